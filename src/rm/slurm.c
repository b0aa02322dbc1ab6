/* slurm — see slurm.h; the parts are listed in slurm_int.h. This one:
 * connecting, the nodes and partitions, a job's start, cancel, suspension
 * and requeue. */
#include "rm/slurm.h"
#include "rm/slurm_dl.h"
#include "rm/slurm_int.h"

#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/mem.h"

const char *srm_error(void)
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
int srm_ctld_up(const struct slurm_rm *sr, struct err *err)
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

slurm_job_info_t *srm_find_job(const struct slurm_rm *sr, uint32_t id)
{
    struct by_id key = {id, 0};
    struct by_id *hit = sr->index ? bsearch(&key, sr->index, sr->nindex, sizeof key, id_cmp) : NULL;
    return hit ? &sr->jobs->job_array[hit->at] : NULL;
}

/* Read the queue again when it changed: 1 changed, 0 not, -1 error. */
int srm_refresh(struct slurm_rm *sr, struct err *err)
{
    if (srm_ctld_up(sr, err) < 0)
        return -1;
    job_info_msg_t *msg = NULL;
    /* With the allocations (a check of moku's books): a whole read. */
    int detail = sr->detail > 0;
    time_t since = sr->jobs && !detail ? sr->jobs->last_update : 0;
    uint16_t show = SHOW_ALL | (detail ? SHOW_DETAIL : 0);
    if (slurm_load_jobs(since, &msg, show) != SLURM_SUCCESS) {
        if (slurm_get_errno() == SLURM_NO_CHANGE_IN_DATA)
            return 0;
        return err_set(err, "Slurm: cannot read the queue from slurmctld: %s", srm_error());
    }
    if (sr->jobs)
        slurm_free_job_info_msg(sr->jobs);
    sr->jobs = msg;
    sr->unread = 1;
    sr->stale = 0;
    sr->detailed = detail;
    index_jobs(sr);
    return 1;
}

struct release *srm_release_of(struct slurm_rm *sr, uint32_t id)
{
    for (size_t i = 0; i < sr->nrel; i++)
        if (sr->rel[i].id == id)
            return &sr->rel[i];
    return NULL;
}

long srm_release_at(const struct slurm_rm *sr, uint32_t id)
{
    for (size_t i = 0; i < sr->nrel; i++)
        if (sr->rel[i].id == id)
            return sr->rel[i].at;
    return -1;
}

void srm_release_drop(struct slurm_rm *sr, uint32_t id)
{
    for (size_t i = 0; i < sr->nrel; i++)
        if (sr->rel[i].id == id) {
            sr->rel[i] = sr->rel[--sr->nrel];
            return;
        }
}

/* One update of a job: hold it (priority 0), clearing what a start set.
 * As Slurm's user hold (JobHeldUser), as the job-submit plugin holds a new
 * job: moku's queue; an administrator's hold is JobHeldAdmin. The node list
 * (emptied) tells the plugin the update is moku's. */
int srm_hold(struct slurm_rm *sr, uint32_t id, struct err *err)
{
    if (srm_ctld_up(sr, err) < 0)
        return -1;
    job_desc_msg_t d;
    slurm_init_job_desc_msg(&d);
    d.job_id = id;
    d.priority = 0;
    d.alloc_sid = ALLOC_SID_USER_HOLD;
    d.req_nodes = "";
    if (slurm_update_job(&d) != SLURM_SUCCESS)
        return err_set(err, "Slurm: cannot hold job %u: %s", id, srm_error());
    sr->stale = 1;
    return 0;
}

int srm_parse_id(const char *id, uint32_t *out, struct err *err)
{
    char *end;
    unsigned long v = strtoul(id, &end, 10);
    if (!*id || *end || v == 0 || v > UINT32_MAX)
        return err_set(err, "'%s' is not a Slurm job id", id);
    *out = (uint32_t)v;
    return 0;
}

/* ---- opening: is this a Slurm moku can drive? ---- */

/* Whether slurm.conf at path names the lua job-submit plugin (the file,
 * which slurmctld may not have read since it was changed). */
static int conf_has_lua(const char *path)
{
    FILE *f = fopen(path, "r");
    char line[1024];
    int found = 0;
    while (f && !found && fgets(line, sizeof line, f)) {
        const char *p = line + strspn(line, " \t");
        if (strncasecmp(p, "JobSubmitPlugins", 16) == 0 && strstr(p, "lua"))
            found = 1;
    }
    if (f)
        fclose(f);
    return found;
}

/* What slurmctld's configuration means for moku's books: memory booked
 * (CR_*_Memory), whole nodes for every job (select/linear). */
static void read_select(struct slurm_rm *sr, const slurm_conf_t *c)
{
    sr->mem_tracked = (c->select_type_param & CR_MEMORY) != 0;
    sr->whole_nodes = c->select_type && strstr(c->select_type, "linear") != NULL;
}

/* slurmctld answers, is the Slurm moku was built for (libslurm's protocol
 * follows the release: another one is refused, or misread), and holds new
 * jobs: slurmctld runs the lua job-submit plugin. A job the plugin did not
 * hold would tell only once submitted. */
static int check_ctld(struct slurm_rm *sr, const char *path, struct err *err)
{
    slurm_conf_t *c = NULL;
    if (slurm_load_ctl_conf(0, &c) != SLURM_SUCCESS)
        return err_set(err,
                       "Slurm: slurmctld does not answer (%s): is it running, and is "
                       "SLURM_CONF (or RMCFG CONFIGFILE) its slurm.conf?",
                       srm_error());
    int major = 0, minor = 0;
    int ok = c->version && sscanf(c->version, "%d.%d", &major, &minor) == 2 &&
             major == SLURM_VERSION_MAJOR(SLURM_VERSION_NUMBER) &&
             minor == SLURM_VERSION_MINOR(SLURM_VERSION_NUMBER);
    int lua = c->job_submit_plugins && strstr(c->job_submit_plugins, "lua");
    read_select(sr, c);
    sr->ctld = xcalloc(c->control_cnt + 1, sizeof *sr->ctld);
    for (uint32_t i = 0; i < c->control_cnt; i++)
        if (c->control_addr && c->control_addr[i])
            sr->ctld[sr->nctld++] = xstrdup(c->control_addr[i]);
    sr->ctld_port = c->slurmctld_port;
    if (!ok)
        err_set(err,
                "Slurm: slurmctld is Slurm %s, moku was built for %d.%02d: rebuild moku "
                "against this Slurm's libslurm-dev",
                c->version ? c->version : "(unknown)", SLURM_VERSION_MAJOR(SLURM_VERSION_NUMBER),
                SLURM_VERSION_MINOR(SLURM_VERSION_NUMBER));
    else if (!lua && conf_has_lua(path))
        err_set(err,
                "Slurm: %s has JobSubmitPlugins=lua, but slurmctld runs without it (it "
                "was started before the change): new jobs would start without moku; restart "
                "slurmctld (docs/slurm.md)",
                path);
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
        err_set(err,
                "Slurm: %s: %s (give slurm.conf's path in SLURM_CONF or RMCFG "
                "CONFIGFILE)",
                path, strerror(errno));
        return NULL;
    }
    if (slurm_dl_load(err) < 0)
        return NULL;
    slurm_init(path);
    struct slurm_rm *sr = xcalloc(1, sizeof *sr);
    if (check_ctld(sr, path, err) < 0 || srm_refresh(sr, err) < 0) {
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
    if (sr->parts)
        slurm_free_partition_info_msg(sr->parts);
    free(sr->placed);
    for (size_t i = 0; i < sr->nknown; i++) {
        free(sr->known[i].name);
        free(sr->known[i].reason);
        free(sr->known[i].features);
    }
    free(sr->known);
    for (size_t i = 0; i < sr->nctld; i++)
        free(sr->ctld[i]);
    free(sr->ctld);
    free(sr->index);
    free(sr->rel);
    free(sr->rq);
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
    sr->known[sr->nknown] = (struct known_node){xstrdup(name), NULL, NODE_UP, NULL};
    return &sr->known[sr->nknown++];
}

/* Read the nodes again when they changed: 1 changed, 0 not, -1 error. */
static int refresh_nodes(struct slurm_rm *sr, struct err *err)
{
    if (srm_ctld_up(sr, err) < 0)
        return -1;
    node_info_msg_t *msg = NULL;
    time_t since = sr->nodes ? sr->nodes->last_update : 0;
    if (slurm_load_node(since, &msg, SHOW_ALL) != SLURM_SUCCESS) {
        if (slurm_get_errno() == SLURM_NO_CHANGE_IN_DATA)
            return 0;
        return err_set(err, "Slurm: cannot read the nodes from slurmctld: %s", srm_error());
    }
    if (sr->nodes)
        slurm_free_node_info_msg(sr->nodes);
    sr->nodes = msg;
    return 1;
}

/* Read the partitions again when they changed (their limits are checked
 * at intake); 0 or -1. */
static int refresh_parts(struct slurm_rm *sr, struct err *err)
{
    partition_info_msg_t *msg = NULL;
    time_t since = sr->parts ? sr->parts->last_update : 0;
    if (slurm_load_partitions(since, &msg, SHOW_ALL) != SLURM_SUCCESS) {
        if (slurm_get_errno() == SLURM_NO_CHANGE_IN_DATA)
            return 0;
        return err_set(err, "Slurm: cannot read the partitions: %s", srm_error());
    }
    if (sr->parts)
        slurm_free_partition_info_msg(sr->parts);
    sr->parts = msg;
    return 0;
}

/* A node's features for moku: Slurm's, and one per partition it is in. */
static char *node_features(const node_info_t *x)
{
    char *out = xstrdup(x->features ? x->features : "");
    char *parts = xstrdup(x->partitions ? x->partitions : ""), *save = NULL;
    for (char *p = strtok_r(parts, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
        char *more = xprintf("%s%s" SRM_PART_FEATURE "%s", out, *out ? "," : "", p);
        free(out);
        out = more;
    }
    free(parts);
    return out;
}

/* The node table as moku takes it, remembering each state told. */
static int sl_nodes(void *ctx, struct node_spec **out, size_t *n, struct err *err)
{
    struct slurm_rm *sr = ctx;
    if (sr->nodes) { /* a whole read (start-up, schedctl -R), not the changes */
        slurm_free_node_info_msg(sr->nodes);
        sr->nodes = NULL;
    }
    if (refresh_nodes(sr, err) < 0)
        return -1;
    /* The partitions of each node: libslurm fills them in from a read of
     * the partitions (kept: their limits are checked at intake). The
     * configuration too: a restarted slurmctld may book memory now. */
    slurm_conf_t *c = NULL;
    if (slurm_load_ctl_conf(0, &c) == SLURM_SUCCESS) {
        read_select(sr, c);
        slurm_free_ctl_conf(c);
    }
    if (sr->parts) {
        slurm_free_partition_info_msg(sr->parts);
        sr->parts = NULL;
    }
    if (refresh_parts(sr, err) < 0)
        return -1;
    slurm_populate_node_partitions(sr->nodes, sr->parts);
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
        free(k->features);
        k->features = node_features(x);
        /* Memory only where Slurm books it: with CR_Core, a job's memory
         * takes nothing from a node, and moku's books must not either. */
        (*out)[(*n)++] = (struct node_spec){
            .name = x->name,
            .procs = x->cpus,
            .mem = sr->mem_tracked ? (long)x->real_memory : 0,
            .features = k->features,
            .state = st,
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
    if (changed < 0 || refresh_parts(sr, err) < 0)
        return -1;
    if (!changed)
        return 0;
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

/* Tasks on each node when the engine put the same number on every one
 * (pinned: Slurm then splits them so), 0 when not (the split is Slurm's,
 * which the engine's follows: sched_policy.fill_in_order), NO_VAL16 when
 * the job holds more than its tasks (whole nodes: left as it is). */
static uint16_t tasks_per_node(const struct rm_job *j)
{
    size_t ppt = j->procs_per_task > 0 ? (size_t)j->procs_per_task : 1, first = 0, run = 0;
    int even = 1;
    if (j->tasks <= 0 || j->nhosts != (size_t)j->tasks * ppt)
        return NO_VAL16;
    for (size_t i = 0; i < j->nhosts; i++) { /* a node's processors are consecutive */
        run++;
        if (i + 1 == j->nhosts || strcmp(j->hosts[i + 1], j->hosts[i]) != 0) {
            if (!first)
                first = run;
            even &= run == first;
            run = 0;
        }
    }
    size_t k = first / ppt;
    return even && k > 0 && k < NO_VAL16 ? (uint16_t)k : 0;
}

/* Pin the job to the engine's nodes and release it: one update. The nodes
 * are the distinct hosts, in order; Slurm places the tasks on them (as
 * many on each as the engine did, when that is the same number on all). */
static int sl_start(void *ctx, const struct rm_job *j, long now, struct err *err)
{
    struct slurm_rm *sr = ctx;
    uint32_t id = 0;
    if (srm_parse_id(j->id, &id, err) < 0)
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
    uint16_t tpn = tasks_per_node(j);
    if (srm_ctld_up(sr, err) < 0) {
        free(list);
        return -1;
    }
    job_desc_msg_t d;
    slurm_init_job_desc_msg(&d);
    d.job_id = id;
    d.req_nodes = list;
    d.min_nodes = d.max_nodes = (uint32_t)count;
    d.ntasks_per_node = tpn;
    d.priority = INFINITE;
    d.begin_time = (time_t)now; /* a requeued job is otherwise eligible 2 minutes later */
    int rc = slurm_update_job(&d);
    free(list);
    if (rc != SLURM_SUCCESS)
        return err_set(err, "Slurm refused to start job %u: %s", id, srm_error());
    const slurm_job_info_t *x = srm_find_job(sr, id);
    srm_release_drop(sr, id); /* a start again: this one counts */
    sr->rel = xgrow(sr->rel, &sr->caprel, sr->nrel + 1, sizeof *sr->rel);
    sr->rel[sr->nrel++] = (struct release){id, now, x ? x->restart_cnt : 0};
    sr->stale = 1;
    return 0;
}

/* What moku asks Slurm to do to a job it started: one rule for all four —
 * the id read, slurmctld up, the call, its failure named, and the next
 * read of the queue fresh (stale). */
enum sl_act { SL_CANCEL, SL_SUSPEND, SL_RESUME, SL_REQUEUE };

static int sl_act(struct slurm_rm *sr, const char *id, enum sl_act act, struct err *err)
{
    static const char *const verb[] = {"cancel", "suspend", "resume", "requeue"};
    uint32_t n = 0;
    if (srm_parse_id(id, &n, err) < 0 || srm_ctld_up(sr, err) < 0)
        return -1;
    int rc = SLURM_ERROR;
    char text[16];
    switch (act) {
    case SL_CANCEL:
        /* As scancel does it (slurm_kill_job2 on the id's text): Slurm
         * records the same end (ExitCode 0:15) whoever cancels. */
        snprintf(text, sizeof text, "%u", n);
        rc = slurm_kill_job2(text, SIGKILL, 0, NULL);
        if (rc != SLURM_SUCCESS && slurm_get_errno() == ESLURM_ALREADY_DONE)
            rc = SLURM_SUCCESS;
        break;
    case SL_SUSPEND:
        rc = slurm_suspend(n);
        break;
    case SL_RESUME:
        rc = slurm_resume(n);
        break;
    case SL_REQUEUE:
        /* Requeued held: pending again with priority 0, for moku to start
         * later. */
        srm_release_drop(sr, n);
        rc = slurm_requeue(n, JOB_REQUEUE_HOLD);
        break;
    }
    if (rc != SLURM_SUCCESS)
        return err_set(err, "Slurm: cannot %s job %u: %s", verb[act], n, srm_error());
    sr->stale = 1;
    return 0;
}

static int sl_cancel(void *ctx, const char *id, long now, struct err *err)
{
    return sl_act(ctx, id, SL_CANCEL, err);
}

static int sl_suspend(void *ctx, const char *id, long now, struct err *err)
{
    return sl_act(ctx, id, SL_SUSPEND, err);
}

static int sl_resume(void *ctx, const char *id, long now, struct err *err)
{
    return sl_act(ctx, id, SL_RESUME, err);
}

static int sl_requeue(void *ctx, const char *id, long now, struct err *err)
{
    return sl_act(ctx, id, SL_REQUEUE, err);
}

static void sl_forget(void *ctx, const char *id)
{
    struct slurm_rm *sr = ctx;
    struct err e;
    uint32_t n = 0; /* set by srm_parse_id; gcc cannot tell once inlined */
    if (srm_parse_id(id, &n, &e) == 0)
        srm_release_drop(sr, n);
}

const struct rm_ops rm_slurm_ops = {
    .name = "slurm",
    .intake = srm_intake,
    .submit = srm_submit,
    .resvs = srm_resvs,
    .node_states = sl_node_states,
    .nodes = sl_nodes,
    .start = sl_start,
    .status = srm_status,
    .hold_sync = srm_hold_sync,
    .cancel = sl_cancel,
    .suspend = sl_suspend,
    .resume = sl_resume,
    .requeue = sl_requeue,
    .forget = sl_forget,
};
