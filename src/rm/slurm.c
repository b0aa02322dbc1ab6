/* slurm — see slurm.h. */
#include "rm/slurm.h"

#include <errno.h>
#include <grp.h>
#include <netdb.h>
#include <poll.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include "util/mem.h"

/* Exported by libslurm, not declared in its header (22.05). */
extern char *slurm_job_reason_string(enum job_state_reason inx);
extern char *slurm_job_state_string(uint32_t inx);

/* A job moku released and has not yet seen running. */
struct release {
    uint32_t id;
    long at;
};

/* A node's state as moku was last told it. */
struct known_node {
    char *name, *reason;
    enum node_state state;
};

/* One job of the snapshot, found by id. */
struct by_id {
    uint32_t id;
    size_t at;
};

struct slurm_rm {
    job_info_msg_t *jobs;   /* the last snapshot of the queue, NULL before the first */
    struct by_id *index;    /* jobs by id, sorted */
    size_t nindex;
    node_info_msg_t *nodes; /* the last read of the nodes */
    struct known_node *known; /* each node's state as last told, by name */
    size_t nknown, capknown;
    int unread;             /* the snapshot has not been through intake yet */
    int stale;              /* a job was changed since the snapshot: read before a status */
    struct release *rel;
    size_t nrel, caprel;
    reserve_info_msg_t *resvs; /* the last read of the reservations */
    char **ctld;          /* slurmctld's addresses (SlurmctldHost), for ctld_up */
    size_t nctld;
    unsigned ctld_port;
};

static const char *slurm_error(void)
{
    return slurm_strerror(slurm_get_errno());
}

/* How long a probe of slurmctld waits for its connection. */
#define CTLD_PROBE_MS 300

static int probe(const char *host, unsigned port)
{
    char service[16];
    snprintf(service, sizeof service, "%u", port);
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res = NULL;
    if (getaddrinfo(host, service, &hints, &res) != 0)
        return 0;
    int up = 0;
    for (struct addrinfo *a = res; a && !up; a = a->ai_next) {
        int fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd < 0)
            continue;
        if (connect(fd, a->ai_addr, a->ai_addrlen) == 0) {
            up = 1;
        } else if (errno == EINPROGRESS) {
            struct pollfd p = {.fd = fd, .events = POLLOUT};
            int e = 0;
            socklen_t len = sizeof e;
            up = poll(&p, 1, CTLD_PROBE_MS) == 1 &&
                 getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &len) == 0 && e == 0;
        }
        close(fd);
    }
    freeaddrinfo(res);
    return up;
}

/* Whether slurmctld takes connections. libslurm, when it does not, retries
 * for MessageTimeout (10 s) on every call: the daemon would stop answering
 * its own clients for as long. So every call is preceded by this probe of
 * a few hundred microseconds, and an unreachable slurmctld is an error at
 * once (the daemon tries again at the next iteration). */
static int ctld_up(const struct slurm_rm *sr, struct err *err)
{
    for (size_t i = 0; i < sr->nctld; i++)
        if (probe(sr->ctld[i], sr->ctld_port))
            return 0;
    return err_set(err, "Slurm: slurmctld (%s port %u) does not take connections",
                   sr->nctld ? sr->ctld[0] : "?", sr->ctld_port);
}

static int id_cmp(const void *a, const void *b)
{
    const struct by_id *x = a, *y = b;
    return (x->id > y->id) - (x->id < y->id);
}

static void index_jobs(struct slurm_rm *sr)
{
    free(sr->index);
    sr->nindex = sr->jobs->record_count;
    sr->index = xcalloc(sr->nindex + 1, sizeof *sr->index);
    for (size_t i = 0; i < sr->nindex; i++)
        sr->index[i] = (struct by_id){sr->jobs->job_array[i].job_id, i};
    qsort(sr->index, sr->nindex, sizeof *sr->index, id_cmp);
}

static slurm_job_info_t *find_job(const struct slurm_rm *sr, uint32_t id)
{
    struct by_id key = {id, 0};
    struct by_id *hit = sr->index ? bsearch(&key, sr->index, sr->nindex, sizeof key, id_cmp) : NULL;
    return hit ? &sr->jobs->job_array[hit->at] : NULL;
}

/* Read the queue again when it changed: 1 changed, 0 not, -1 error. */
static int refresh(struct slurm_rm *sr, struct err *err)
{
    if (ctld_up(sr, err) < 0)
        return -1;
    job_info_msg_t *msg = NULL;
    time_t since = sr->jobs ? sr->jobs->last_update : 0;
    if (slurm_load_jobs(since, &msg, SHOW_ALL) != SLURM_SUCCESS) {
        if (slurm_get_errno() == SLURM_NO_CHANGE_IN_DATA)
            return 0;
        return err_set(err, "Slurm: cannot read the queue from slurmctld: %s", slurm_error());
    }
    if (sr->jobs)
        slurm_free_job_info_msg(sr->jobs);
    sr->jobs = msg;
    sr->unread = 1;
    sr->stale = 0;
    index_jobs(sr);
    return 1;
}

static long release_at(const struct slurm_rm *sr, uint32_t id)
{
    for (size_t i = 0; i < sr->nrel; i++)
        if (sr->rel[i].id == id)
            return sr->rel[i].at;
    return -1;
}

static void release_drop(struct slurm_rm *sr, uint32_t id)
{
    for (size_t i = 0; i < sr->nrel; i++)
        if (sr->rel[i].id == id) {
            sr->rel[i] = sr->rel[--sr->nrel];
            return;
        }
}

/* One update of a job: hold it (priority 0), clearing what a start set. */
static int hold(struct slurm_rm *sr, uint32_t id, struct err *err)
{
    if (ctld_up(sr, err) < 0)
        return -1;
    job_desc_msg_t d;
    slurm_init_job_desc_msg(&d);
    d.job_id = id;
    d.priority = 0;
    d.req_nodes = "";
    if (slurm_update_job(&d) != SLURM_SUCCESS)
        return err_set(err, "Slurm: cannot hold job %u: %s", id, slurm_error());
    sr->stale = 1;
    return 0;
}

static int parse_id(const char *id, uint32_t *out, struct err *err)
{
    char *end;
    unsigned long v = strtoul(id, &end, 10);
    if (!*id || *end || v == 0 || v > UINT32_MAX)
        return err_set(err, "'%s' is not a Slurm job id", id);
    *out = (uint32_t)v;
    return 0;
}

/* ---- opening: is this a Slurm moku can drive? ---- */

/* slurmctld answers, is the Slurm moku was built for (libslurm's protocol
 * follows the release: another one is refused, or misread), and holds new
 * jobs: slurm.conf asks for the lua job-submit plugin. A job the plugin
 * did not hold would tell only once submitted. */
static int check_ctld(struct slurm_rm *sr, struct err *err)
{
    slurm_conf_t *c = NULL;
    if (slurm_load_ctl_conf(0, &c) != SLURM_SUCCESS)
        return err_set(err, "Slurm: slurmctld does not answer (%s): is it running, and is "
                       "SLURM_CONF (or RMCFG CONFIGFILE) its slurm.conf?", slurm_error());
    int major = 0, minor = 0;
    int ok = c->version && sscanf(c->version, "%d.%d", &major, &minor) == 2 &&
             major == SLURM_VERSION_MAJOR(SLURM_VERSION_NUMBER) &&
             minor == SLURM_VERSION_MINOR(SLURM_VERSION_NUMBER);
    int lua = c->job_submit_plugins && strstr(c->job_submit_plugins, "lua");
    sr->ctld = xcalloc(c->control_cnt + 1, sizeof *sr->ctld);
    for (uint32_t i = 0; i < c->control_cnt; i++)
        if (c->control_addr && c->control_addr[i])
            sr->ctld[sr->nctld++] = xstrdup(c->control_addr[i]);
    sr->ctld_port = c->slurmctld_port;
    if (!ok)
        err_set(err, "Slurm: slurmctld is Slurm %s, moku was built for %d.%02d: rebuild moku "
                "against this Slurm's libslurm-dev", c->version ? c->version : "(unknown)",
                SLURM_VERSION_MAJOR(SLURM_VERSION_NUMBER),
                SLURM_VERSION_MINOR(SLURM_VERSION_NUMBER));
    else if (!lua)
        err_set(err, "Slurm: slurm.conf has no JobSubmitPlugins=lua: new jobs would start "
                "without moku (put contrib/slurm/job_submit.lua beside slurm.conf, set "
                "JobSubmitPlugins=lua and restart slurmctld; docs/slurm.md)");
    slurm_free_ctl_conf(c);
    return ok && lua ? 0 : -1;
}

/* Where Slurm's clients find slurm.conf (configless Slurm, fetched from DNS,
 * is not supported: libslurm ends the process when that fails). */
#define SLURM_DEFAULT_CONF "/etc/slurm/slurm.conf"

struct slurm_rm *slurm_rm_open(const char *conf, struct err *err)
{
    const char *path = conf ? conf : getenv("SLURM_CONF");
    if (!path || !*path)
        path = SLURM_DEFAULT_CONF;
    if (access(path, R_OK) != 0) {
        err_set(err, "Slurm: %s: %s (give slurm.conf's path in SLURM_CONF or RMCFG "
                "CONFIGFILE)", path, strerror(errno));
        return NULL;
    }
    slurm_init(path);
    struct slurm_rm *sr = xcalloc(1, sizeof *sr);
    if (check_ctld(sr, err) < 0 || refresh(sr, err) < 0) {
        slurm_rm_close(sr);
        return NULL;
    }
    return sr;
}

void slurm_rm_close(struct slurm_rm *sr)
{
    if (!sr)
        return;
    if (sr->jobs)
        slurm_free_job_info_msg(sr->jobs);
    if (sr->nodes)
        slurm_free_node_info_msg(sr->nodes);
    if (sr->resvs)
        slurm_free_reservation_info_msg(sr->resvs);
    for (size_t i = 0; i < sr->nknown; i++) {
        free(sr->known[i].name);
        free(sr->known[i].reason);
    }
    free(sr->known);
    for (size_t i = 0; i < sr->nctld; i++)
        free(sr->ctld[i]);
    free(sr->ctld);
    free(sr->index);
    free(sr->rel);
    free(sr);
    slurm_fini();
}

/* ---- the table ---- */

/* moku's state of a Slurm node: down (DOWN, FUTURE, not responding, FAIL),
 * drained (DRAIN, draining too: no new work), else up; *reason why. */
static enum node_state state_of(const node_info_t *x, const char **reason)
{
    uint32_t base = x->node_state & NODE_STATE_BASE;
    *reason = x->reason && *x->reason ? x->reason : NULL;
    if (base == NODE_STATE_DOWN || base == NODE_STATE_FUTURE || base == NODE_STATE_UNKNOWN)
        return NODE_DOWN;
    if (x->node_state & NODE_STATE_NO_RESPOND) {
        if (!*reason)
            *reason = "not responding";
        return NODE_DOWN;
    }
    if (x->node_state & (NODE_STATE_DRAIN | NODE_STATE_FAIL))
        return NODE_DRAINED;
    *reason = NULL;
    return NODE_UP;
}

static struct known_node *known_of(struct slurm_rm *sr, const char *name)
{
    for (size_t i = 0; i < sr->nknown; i++)
        if (strcmp(sr->known[i].name, name) == 0)
            return &sr->known[i];
    sr->known = xgrow(sr->known, &sr->capknown, sr->nknown + 1, sizeof *sr->known);
    sr->known[sr->nknown] = (struct known_node){xstrdup(name), NULL, NODE_UP};
    return &sr->known[sr->nknown++];
}

/* Read the nodes again when they changed: 1 changed, 0 not, -1 error. */
static int refresh_nodes(struct slurm_rm *sr, struct err *err)
{
    if (ctld_up(sr, err) < 0)
        return -1;
    node_info_msg_t *msg = NULL;
    time_t since = sr->nodes ? sr->nodes->last_update : 0;
    if (slurm_load_node(since, &msg, SHOW_ALL) != SLURM_SUCCESS) {
        if (slurm_get_errno() == SLURM_NO_CHANGE_IN_DATA)
            return 0;
        return err_set(err, "Slurm: cannot read the nodes from slurmctld: %s", slurm_error());
    }
    if (sr->nodes)
        slurm_free_node_info_msg(sr->nodes);
    sr->nodes = msg;
    return 1;
}

/* The node table as moku takes it, remembering each state told. */
static int sl_nodes(void *ctx, struct node_spec **out, size_t *n, struct err *err)
{
    struct slurm_rm *sr = ctx;
    if (refresh_nodes(sr, err) < 0)
        return -1;
    *out = xcalloc(sr->nodes->record_count + 1, sizeof **out);
    *n = 0;
    for (uint32_t i = 0; i < sr->nodes->record_count; i++) {
        const node_info_t *x = &sr->nodes->node_array[i];
        if (!x->name)
            continue;
        const char *why;
        enum node_state st = state_of(x, &why);
        struct known_node *k = known_of(sr, x->name);
        k->state = st;
        free(k->reason);
        k->reason = why ? xstrdup(why) : NULL;
        (*out)[(*n)++] = (struct node_spec){
            .name = x->name, .procs = x->cpus, .mem = (long)x->real_memory,
            .features = x->features, .state = st,
        };
    }
    return 0;
}

static int same_text(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

/* Only what changed: slurmctld answers "no change" to a read since its last
 * update, and then nothing here looks at a node. */
static int sl_node_states(void *ctx, long now, void (*fn)(void *, const struct rm_node_state *),
                          void *fnctx, struct err *err)
{
    struct slurm_rm *sr = ctx;
    (void)now;
    int changed = refresh_nodes(sr, err);
    if (changed <= 0)
        return changed;
    for (uint32_t i = 0; i < sr->nodes->record_count; i++) {
        const node_info_t *x = &sr->nodes->node_array[i];
        if (!x->name)
            continue;
        const char *why;
        enum node_state st = state_of(x, &why);
        struct known_node *k = known_of(sr, x->name);
        if (k->state == st && same_text(k->reason, why))
            continue;
        k->state = st;
        free(k->reason);
        k->reason = why ? xstrdup(why) : NULL;
        fn(fnctx, &(struct rm_node_state){x->name, st, why});
    }
    return 0;
}

/* Pin the job to the engine's nodes and release it: one update. The nodes
 * are the distinct hosts, in order; Slurm places the tasks on them. */
static int sl_start(void *ctx, const struct rm_job *j, long now, struct err *err)
{
    struct slurm_rm *sr = ctx;
    uint32_t id;
    if (parse_id(j->id, &id, err) < 0)
        return -1;
    size_t len = 1, count = 0;
    for (size_t i = 0; i < j->nhosts; i++)
        len += strlen(j->hosts[i]) + 1;
    char *list = xcalloc(len, 1);
    for (size_t i = 0; i < j->nhosts; i++) {
        if (i > 0 && strcmp(j->hosts[i], j->hosts[i - 1]) == 0)
            continue;
        if (count)
            strcat(list, ",");
        strcat(list, j->hosts[i]);
        count++;
    }
    if (ctld_up(sr, err) < 0) {
        free(list);
        return -1;
    }
    job_desc_msg_t d;
    slurm_init_job_desc_msg(&d);
    d.job_id = id;
    d.req_nodes = list;
    d.min_nodes = d.max_nodes = (uint32_t)count;
    d.priority = INFINITE;
    d.begin_time = (time_t)now; /* a requeued job is otherwise eligible 2 minutes later */
    int rc = slurm_update_job(&d);
    free(list);
    if (rc != SLURM_SUCCESS)
        return err_set(err, "Slurm refused to start job %u: %s", id, slurm_error());
    sr->rel = xgrow(sr->rel, &sr->caprel, sr->nrel + 1, sizeof *sr->rel);
    sr->rel[sr->nrel++] = (struct release){id, now};
    sr->stale = 1;
    return 0;
}

static const char *end_reason(uint32_t base)
{
    switch (base) {
    case JOB_TIMEOUT:
        return "walltime";
    case JOB_CANCELLED:
        return "cancelled";
    case JOB_COMPLETE:
        return "completed";
    default:
        return "failed";
    }
}

/* A pending job: released by moku and not yet running (running soon, or a
 * failed start once START_GRACE has passed), or held again. */
static void pending_status(struct slurm_rm *sr, const slurm_job_info_t *x, long now,
                           struct rm_status *st)
{
    long at = release_at(sr, x->job_id);
    if (at >= 0 && x->priority != 0 && now - at < SLURM_START_GRACE) {
        st->state = RM_RUNNING; /* starting: Slurm schedules it within a second or so */
        return;
    }
    struct err e;
    const char *reason = slurm_job_reason_string((enum job_state_reason)x->state_reason);
    if (x->priority != 0 && hold(sr, x->job_id, &e) < 0)
        snprintf(st->message, sizeof st->message, "%.500s", e.msg);
    else if (at >= 0)
        snprintf(st->message, sizeof st->message,
                 "the last start failed: Slurm did not run it within %d s (%s)",
                 SLURM_START_GRACE, reason);
    else if (x->restart_cnt > 0)
        snprintf(st->message, sizeof st->message, "requeued by Slurm (%s)", reason);
    else
        snprintf(st->message, sizeof st->message, "not started by Slurm before moku restarted");
    st->failed_start = at >= 0;
    release_drop(sr, x->job_id);
    st->state = RM_NEVER;
}

static int sl_status(void *ctx, const char *id, long now, struct rm_status *st, struct err *err)
{
    struct slurm_rm *sr = ctx;
    uint32_t n;
    if (parse_id(id, &n, err) < 0)
        return -1;
    memset(st, 0, sizeof *st);
    struct err re;
    if (sr->stale) { /* once: unreachable or unchanged, the snapshot will do */
        sr->stale = 0;
        refresh(sr, &re);
    }
    const slurm_job_info_t *x = find_job(sr, n);
    if (!x) {
        st->state = RM_UNKNOWN;
        return 0;
    }
    uint32_t base = x->job_state & JOB_STATE_BASE;
    if (base == JOB_PENDING) {
        pending_status(sr, x, now, st);
    } else if (base == JOB_RUNNING) {
        release_drop(sr, n);
        st->state = RM_RUNNING;
    } else if (base == JOB_SUSPENDED) {
        st->state = RM_SUSPENDED;
    } else {
        release_drop(sr, n);
        st->state = RM_ENDED;
        st->end = (long)x->end_time;
        /* A wait status: the exit code, or 128 + the signal that ended it. */
        st->exit_code = WIFSIGNALED(x->exit_code) ? 128 + WTERMSIG(x->exit_code)
                                                  : WEXITSTATUS(x->exit_code);
        snprintf(st->reason, sizeof st->reason, "%s", end_reason(base));
        if (base == JOB_NODE_FAIL || base == JOB_BOOT_FAIL || base == JOB_OOM ||
            base == JOB_DEADLINE || base == JOB_PREEMPTED)
            snprintf(st->message, sizeof st->message, "Slurm ended it: %s",
                     slurm_job_state_string(x->job_state));
    }
    return 0;
}

static int sl_cancel(void *ctx, const char *id, long now, struct err *err)
{
    (void)now;
    uint32_t n;
    if (parse_id(id, &n, err) < 0 || ctld_up(ctx, err) < 0)
        return -1;
    if (slurm_kill_job(n, SIGKILL, 0) != SLURM_SUCCESS &&
        slurm_get_errno() != ESLURM_ALREADY_DONE)
        return err_set(err, "Slurm: cannot cancel job %u: %s", n, slurm_error());
    ((struct slurm_rm *)ctx)->stale = 1;
    return 0;
}

static int sl_suspend(void *ctx, const char *id, long now, struct err *err)
{
    (void)now;
    uint32_t n;
    if (parse_id(id, &n, err) < 0 || ctld_up(ctx, err) < 0)
        return -1;
    if (slurm_suspend(n) != SLURM_SUCCESS)
        return err_set(err, "Slurm: cannot suspend job %u: %s", n, slurm_error());
    ((struct slurm_rm *)ctx)->stale = 1;
    return 0;
}

static int sl_resume(void *ctx, const char *id, long now, struct err *err)
{
    (void)now;
    uint32_t n;
    if (parse_id(id, &n, err) < 0 || ctld_up(ctx, err) < 0)
        return -1;
    if (slurm_resume(n) != SLURM_SUCCESS)
        return err_set(err, "Slurm: cannot resume job %u: %s", n, slurm_error());
    ((struct slurm_rm *)ctx)->stale = 1;
    return 0;
}

/* Requeued held: pending again with priority 0, for moku to start later. */
static int sl_requeue(void *ctx, const char *id, long now, struct err *err)
{
    struct slurm_rm *sr = ctx;
    (void)now;
    uint32_t n;
    if (parse_id(id, &n, err) < 0)
        return -1;
    if (ctld_up(sr, err) < 0)
        return -1;
    release_drop(sr, n);
    if (slurm_requeue(n, JOB_REQUEUE_HOLD) != SLURM_SUCCESS)
        return err_set(err, "Slurm: cannot requeue job %u: %s", n, slurm_error());
    sr->stale = 1;
    return 0;
}

static void sl_forget(void *ctx, const char *id)
{
    struct slurm_rm *sr = ctx;
    struct err e;
    uint32_t n;
    if (parse_id(id, &n, &e) == 0)
        release_drop(sr, n);
}

static const char *user_name(uid_t uid, char *buf, size_t n)
{
    struct passwd *pw = getpwuid(uid);
    if (pw)
        snprintf(buf, n, "%s", pw->pw_name);
    else
        snprintf(buf, n, "%lu", (unsigned long)uid);
    return buf;
}

static const char *group_name(gid_t gid, char *buf, size_t n)
{
    struct group *gr = getgrgid(gid);
    if (gr)
        snprintf(buf, n, "%s", gr->gr_name);
    else
        snprintf(buf, n, "%lu", (unsigned long)gid);
    return buf;
}

/* word stands alone in text (between spaces or the ends). */
static int has_word(const char *text, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = text; p && (p = strstr(p, word)); p += n)
        if ((p == text || p[-1] == ' ') && (p[n] == '\0' || p[n] == ' '))
            return 1;
    return 0;
}

/* ---- dependencies ----
 * While a job is held, slurmctld does not evaluate its dependencies (its
 * scheduler skips held jobs): moku does, from the queue it reads. */

/* Whether dependency kind on job x stands: 1 satisfied, 0 not yet, -1
 * never. A job no longer in the queue (purged after MinJobAge) counts as
 * satisfied, as it ended long ago. */
static int dep_one(const slurm_job_info_t *x, const char *kind)
{
    if (!x)
        return 1;
    uint32_t base = x->job_state & JOB_STATE_BASE;
    int ended = base >= JOB_COMPLETE;
    int ok = base == JOB_COMPLETE && x->exit_code == 0;
    if (strcmp(kind, "after") == 0)
        return base != JOB_PENDING;
    if (strcmp(kind, "afterany") == 0)
        return ended;
    if (strcmp(kind, "afterok") == 0)
        return !ended ? 0 : ok ? 1 : -1;
    /* afternotok */
    return !ended ? 0 : ok ? -1 : 1;
}

/* "afterok:12(unfulfilled),afterany:13:14" (all) or with '?' (any). */
static enum rm_dep dep_state(struct slurm_rm *sr, const char *text)
{
    if (!text || !*text || strcmp(text, "(null)") == 0)
        return RM_DEP_NONE;
    int any = strchr(text, '?') != NULL;
    int sat = 0, wait = 0, never = 0;
    char *buf = xstrdup(text), *save = NULL;
    for (char *item = strtok_r(buf, any ? "?" : ",", &save); item;
         item = strtok_r(NULL, any ? "?" : ",", &save)) {
        char *paren = strchr(item, '(');
        if (paren)
            *paren = '\0';
        char *colon = strchr(item, ':');
        if (!colon) {
            free(buf);
            return RM_DEP_UNKNOWN;
        }
        *colon = '\0';
        const char *kind = item;
        if (strcmp(kind, "after") && strcmp(kind, "afterany") && strcmp(kind, "afterok") &&
            strcmp(kind, "afternotok")) {
            free(buf);
            return RM_DEP_UNKNOWN;
        }
        char *save2 = NULL;
        for (char *id = strtok_r(colon + 1, ":", &save2); id; id = strtok_r(NULL, ":", &save2)) {
            char *end;
            unsigned long v = strtoul(id, &end, 10);
            /* after:ID+minutes (a delay after the start) is read as after. */
            if (end == id || (*end && *end != '+')) {
                free(buf);
                return RM_DEP_UNKNOWN; /* an array task (12_3, 12_*) */
            }
            int r = dep_one(find_job(sr, (uint32_t)v), kind);
            sat += r > 0;
            wait += r == 0;
            never += r < 0;
        }
    }
    free(buf);
    if (any)
        return sat ? RM_DEP_NONE : wait ? RM_DEP_WAIT : RM_DEP_NEVER;
    return never ? RM_DEP_NEVER : wait ? RM_DEP_WAIT : RM_DEP_NONE;
}

/* A held job as moku queues it. */
static void new_job(struct slurm_rm *sr, const slurm_job_info_t *x, struct rm_new_job *j,
                    char *user, char *group, size_t n)
{
    *j = (struct rm_new_job){
        .id = (long)x->job_id,
        .name = x->name,
        .user = user_name(x->user_id, user, n),
        .group = group_name(x->group_id, group, n),
        .uid = (long)x->user_id,
        .gid = (long)x->group_id,
        .account = x->account && *x->account ? x->account : NULL,
        .class_ = x->partition && *x->partition ? x->partition : NULL,
        .qos = x->qos && *x->qos && strcmp(x->qos, "normal") != 0 ? x->qos : NULL,
        .features = x->features && *x->features ? x->features : NULL,
        .tasks = (int)x->num_cpus,
        .nodes = x->max_nodes > 0 && x->max_nodes == x->num_nodes ? (int)x->num_nodes : 0,
        .walltime = x->time_limit == INFINITE || x->time_limit == NO_VAL
                        ? 0
                        : (long)x->time_limit * 60,
        .submit = (long)x->submit_time,
        .hold = x->comment && strncmp(x->comment, "moku", 4) == 0 && has_word(x->comment, "hold"),
        .resv = x->resv_name && *x->resv_name ? x->resv_name : NULL,
        .dep = dep_state(sr, x->dependency),
        .dep_text = x->dependency && *x->dependency ? x->dependency : NULL,
    };
    /* Memory per node (--mem) or per CPU (--mem-per-cpu): per job here. */
    uint64_t m = x->pn_min_memory;
    if (m && m != NO_VAL64) {
        if (m & MEM_PER_CPU)
            j->mem_mb = (long)(m & ~MEM_PER_CPU) * j->tasks;
        else
            j->mem_mb = (long)m * (j->nodes > 0 ? j->nodes : 1);
    }
}

/* Job arrays: Slurm keeps the tasks not yet split off as one pending
 * record ("0-99:2%4" in array_task_str). Any update of task A_i splits it
 * into a job of its own; holding each one (priority 0, as it is) does it,
 * and the next read of the queue has every task as a job, taken in as any
 * other. At most ARRAY_SPLIT_MAX tasks an iteration, so a huge array costs
 * a few iterations rather than one long one. */
#define ARRAY_SPLIT_MAX 256

static int split_task(struct slurm_rm *sr, uint32_t array, unsigned long task)
{
    char id[48];
    snprintf(id, sizeof id, "%u_%lu", array, task);
    job_desc_msg_t d;
    slurm_init_job_desc_msg(&d);
    d.job_id_str = id;
    d.priority = 0;
    job_array_resp_msg_t *resp = NULL;
    int rc = slurm_update_job2(&d, &resp);
    if (resp)
        slurm_free_job_array_resp(resp);
    sr->stale = 1;
    return rc == SLURM_SUCCESS ? 0 : -1;
}

/* Split the tasks of "0-3,7,10-20:5%2"; returns how many were split. */
static size_t split_array(struct slurm_rm *sr, const slurm_job_info_t *x, size_t budget)
{
    char *text = xstrdup(x->array_task_str), *save = NULL;
    char *pct = strchr(text, '%');
    if (pct)
        *pct = '\0'; /* the limit of tasks running at once: Slurm's, not moku's */
    size_t done = 0;
    for (char *w = strtok_r(text, ",", &save); w && done < budget; w = strtok_r(NULL, ",", &save)) {
        unsigned long lo, hi, step = 1;
        char *end;
        lo = strtoul(w, &end, 10);
        hi = lo;
        if (*end == '-')
            hi = strtoul(end + 1, &end, 10);
        if (*end == ':')
            step = strtoul(end + 1, &end, 10);
        if (*end || step == 0 || hi < lo)
            break; /* not a form this knows: left held */
        for (unsigned long t = lo; t <= hi && done < budget; t += step)
            if (split_task(sr, x->array_job_id, t) == 0)
                done++;
    }
    free(text);
    return done;
}

/* ---- submissions through moku ---- */

/* moku's mark in a job's comment: "moku token=T hold". The token finds a
 * submission again when the client retries (its first answer was lost);
 * hold is qsub -h, applied when the job is taken in. */
static char *mark_of(const struct rm_submit *s)
{
    return xprintf("moku%s%s%s", s->token ? " token=" : "", s->token ? s->token : "",
                   s->hold ? " hold" : "");
}

/* The job a submission with this token made already, or 0. */
static uint32_t submitted_before(struct slurm_rm *sr, const struct rm_submit *s)
{
    if (!s->token || !sr->jobs)
        return 0;
    char *word = xprintf("token=%s", s->token);
    uint32_t found = 0;
    for (uint32_t i = 0; i < sr->jobs->record_count && !found; i++) {
        const slurm_job_info_t *x = &sr->jobs->job_array[i];
        if (x->user_id == s->uid && x->comment && strncmp(x->comment, "moku", 4) == 0 &&
            has_word(x->comment, word))
            found = x->job_id;
    }
    free(word);
    return found;
}

/* The script as Slurm takes it: its first line must be "#!"; -S names the
 * shell when the script has none. */
static char *script_of(const struct rm_submit *s)
{
    if (strncmp(s->script, "#!", 2) == 0)
        return xstrdup(s->script);
    return xprintf("#!%s\n%s", s->shell ? s->shell : "/bin/sh", s->script);
}

static uint16_t mail_of(const char *m)
{
    uint16_t t = 0;
    for (; m && *m; m++)
        t |= *m == 'a' ? MAIL_JOB_FAIL : *m == 'b' ? MAIL_JOB_BEGIN : *m == 'e' ? MAIL_JOB_END : 0;
    return t;
}

/* The environment Slurm gives the job: the client's -v/-V, and what a
 * login would set when they do not. */
static char **env_of(const struct rm_submit *s, uint32_t *n)
{
    struct passwd *pw = getpwuid(s->uid);
    const char *fallback[] = {"PATH=/usr/local/bin:/usr/bin:/bin", NULL, NULL};
    char *home = pw ? xprintf("HOME=%s", pw->pw_dir) : NULL;
    char *user = xprintf("USER=%s", s->user);
    fallback[1] = home;
    fallback[2] = user;
    char **env = xcalloc(s->nenv + 4, sizeof *env);
    *n = 0;
    for (size_t i = 0; i < s->nenv; i++)
        env[(*n)++] = xstrdup(s->env[i]);
    for (size_t f = 0; f < 3; f++) {
        if (!fallback[f])
            continue;
        size_t k = (size_t)(strchr(fallback[f], '=') - fallback[f]) + 1;
        int given = 0;
        for (size_t i = 0; i < s->nenv && !given; i++)
            given = strncmp(s->env[i], fallback[f], k) == 0;
        if (!given)
            env[(*n)++] = xstrdup(fallback[f]);
    }
    free(home);
    free(user);
    return env;
}

static int sl_submit(void *ctx, const struct rm_submit *s, long *id, struct err *err)
{
    struct slurm_rm *sr = ctx;
    if (ctld_up(sr, err) < 0)
        return -1;
    struct err re;
    if (s->token && refresh(sr, &re) >= 0 && (*id = (long)submitted_before(sr, s)))
        return 0; /* sent again: the first submission's job */
    job_desc_msg_t d;
    slurm_init_job_desc_msg(&d);
    char *script = script_of(s), *mark = mark_of(s), *features = NULL;
    const char *name = s->name ? s->name : "STDIN";
    char *out = s->out_path ? xstrdup(s->out_path) : xprintf("%s/%s.o%%j", s->cwd, name);
    char *errp = s->join ? NULL
                 : s->err_path ? xstrdup(s->err_path)
                               : xprintf("%s/%s.e%%j", s->cwd, name);
    if (s->features) { /* "a,b": every one, which Slurm writes a&b */
        features = xstrdup(s->features);
        for (char *p = features; *p; p++)
            if (*p == ',')
                *p = '&';
    }
    d.name = (char *)name;
    d.script = script;
    d.work_dir = (char *)s->cwd;
    d.std_out = out;
    d.std_err = errp;
    d.user_id = s->uid;
    d.group_id = s->gid;
    d.account = (char *)s->account;
    d.partition = (char *)s->class_;
    d.qos = (char *)s->qos;
    d.features = features;
    d.comment = mark;
    d.min_cpus = d.num_tasks = (uint32_t)s->tasks;
    if (s->nodes > 0) {
        d.min_nodes = d.max_nodes = (uint32_t)s->nodes;
        d.ntasks_per_node = (uint16_t)s->ppn;
    }
    if (s->mem_mb > 0) /* per job: per processor here, as Slurm counts it */
        d.pn_min_memory = (uint64_t)((s->mem_mb + s->tasks - 1) / s->tasks) | MEM_PER_CPU;
    if (s->walltime > 0)
        d.time_limit = (uint32_t)((s->walltime + 59) / 60);
    if (s->start_after > 0)
        d.begin_time = (time_t)s->start_after;
    if (s->rerunnable >= 0)
        d.requeue = (uint16_t)s->rerunnable;
    if (s->mail_events && strcmp(s->mail_events, "n") != 0) {
        d.mail_type = mail_of(s->mail_events);
        d.mail_user = (char *)s->mail_users;
    }
    uint32_t nenv;
    char **env = env_of(s, &nenv);
    d.environment = env;
    d.env_size = nenv;
    submit_response_msg_t *resp = NULL;
    int rc = slurm_submit_batch_job(&d, &resp);
    if (rc == SLURM_SUCCESS && resp)
        *id = (long)resp->job_id;
    else
        err_set(err, "Slurm refused the job: %s", slurm_error());
    if (resp)
        slurm_free_submit_response_response_msg(resp);
    for (uint32_t i = 0; i < nenv; i++)
        free(env[i]);
    free(env);
    free(script);
    free(mark);
    free(features);
    free(out);
    free(errp);
    sr->stale = 1;
    return rc == SLURM_SUCCESS && resp ? 0 : -1;
}

static int sl_intake(void *ctx, long now, const struct rm_intake *in, struct err *err)
{
    struct slurm_rm *sr = ctx;
    (void)now;
    if (refresh(sr, err) < 0)
        return -1;
    if (!sr->unread)
        return 0;
    sr->unread = 0;
    size_t budget = ARRAY_SPLIT_MAX;
    for (uint32_t i = 0; i < sr->jobs->record_count; i++) {
        const slurm_job_info_t *x = &sr->jobs->job_array[i];
        if ((x->job_state & JOB_STATE_BASE) != JOB_PENDING)
            continue;
        if (x->array_task_str && *x->array_task_str) {
            budget -= split_array(sr, x, budget); /* taken in at the next read */
            continue;
        }
        if (x->priority != 0 && release_at(sr, x->job_id) < 0) {
            /* Released by nobody here: Slurm requeued it by itself. */
            struct err e;
            if (hold(sr, x->job_id, &e) < 0)
                continue;
        }
        char user[64], group[64];
        struct rm_new_job j;
        new_job(sr, x, &j, user, group, sizeof user);
        in->seen(in->ctx, &j);
    }
    return 1;
}

/* ---- Slurm's reservations ---- */

/* The node names of a hostlist ("n[1-3],n7"); *n set. ALL: every node. */
static char **hosts_of(struct slurm_rm *sr, const char *list, size_t *n)
{
    *n = 0;
    size_t cap = 0;
    char **out = NULL;
    if (list && strcmp(list, "ALL") == 0) {
        for (uint32_t i = 0; sr->nodes && i < sr->nodes->record_count; i++)
            if (sr->nodes->node_array[i].name) {
                out = xgrow(out, &cap, *n + 1, sizeof *out);
                out[(*n)++] = xstrdup(sr->nodes->node_array[i].name);
            }
        return out;
    }
    hostlist_t hl = list && *list ? slurm_hostlist_create(list) : NULL;
    char *h;
    while (hl && (h = slurm_hostlist_shift(hl))) {
        out = xgrow(out, &cap, *n + 1, sizeof *out);
        out[(*n)++] = xstrdup(h);
        free(h);
    }
    if (hl)
        slurm_hostlist_destroy(hl);
    return out;
}

static int sl_resvs(void *ctx, long now, int all, void (*fn)(void *, const struct rm_resv *),
                    void *fnctx, struct err *err)
{
    struct slurm_rm *sr = ctx;
    (void)now;
    if (ctld_up(sr, err) < 0)
        return -1;
    reserve_info_msg_t *msg = NULL;
    time_t since = sr->resvs && !all ? sr->resvs->last_update : 0;
    if (slurm_load_reservations(since, &msg) != SLURM_SUCCESS) {
        if (slurm_get_errno() == SLURM_NO_CHANGE_IN_DATA)
            return 0;
        return err_set(err, "Slurm: cannot read the reservations: %s", slurm_error());
    }
    if (sr->resvs)
        slurm_free_reservation_info_msg(sr->resvs);
    sr->resvs = msg;
    for (uint32_t i = 0; i < msg->record_count; i++) {
        const reserve_info_t *x = &msg->reservation_array[i];
        size_t n;
        char **hosts = hosts_of(sr, x->node_list, &n);
        struct rm_resv r = {
            .name = x->name, .start = (long)x->start_time, .end = (long)x->end_time,
            .nodes = (const char *const *)hosts, .nnodes = n,
            .users = x->users && *x->users ? x->users : NULL,
            .accounts = x->accounts && *x->accounts ? x->accounts : NULL,
            .groups = x->groups && *x->groups ? x->groups : NULL,
        };
        fn(fnctx, &r);
        for (size_t k = 0; k < n; k++)
            free(hosts[k]);
        free(hosts);
    }
    return 1;
}

const struct rm_ops rm_slurm_ops = {
    .name = "slurm",
    .intake = sl_intake,
    .submit = sl_submit,
    .resvs = sl_resvs,
    .node_states = sl_node_states,
    .nodes = sl_nodes,
    .start = sl_start,
    .status = sl_status,
    .cancel = sl_cancel,
    .suspend = sl_suspend,
    .resume = sl_resume,
    .requeue = sl_requeue,
    .forget = sl_forget,
};
