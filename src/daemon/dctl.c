/*
 * dctl — the daemon's requests: who is asking (the kernel says, never the
 * request), what they may do, and the commands that change state.
 *
 * Anyone may look: showq, checkjob, showres, diagnose, showconfig go to
 * the command layer (cmd/) as in the simulator, and everyone sees every
 * job and reservation. A user may cancel, hold and release their own jobs,
 * and move them to a QOS their credentials allow. ADMIN1 and ADMIN2 may do
 * that to any job and also setspri, runjob, setres and releaseres (with
 * RESCTLPOLICY ANY, any user may setres, and releaseres what they created);
 * ADMIN1 alone controls the scheduler (schedctl). ADMIN3 may look at
 * everything, as anyone may. root and the daemon's own user are always
 * ADMIN1. An ADMINn entry names a user, or a group whose members it admits.
 *
 * Every change is committed to the store before the reply is sent.
 */
#include <grp.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "cfg/cfg.h"
#include "cmd/cmd.h"
#include "cmd/qsub.h"
#include "daemon/daemon_int.h"
#include "util/crashpt.h"
#include "util/idname.h"
#include "util/mem.h"
#include "web/web.h"

#define MAX_ARGS 256
#define MAX_ARG_LEN 4096

/* Whether the comma/space list names user u or a group p belongs to. */
static int list_admits(const char *list, const struct peer *p)
{
    if (!list)
        return 0;
    char *copy = xstrdup(list), *save = NULL;
    int yes = 0;
    for (char *w = strtok_r(copy, " \t,:", &save); w && !yes; w = strtok_r(NULL, " \t,:", &save)) {
        if (strcmp(w, p->user) == 0 || strcmp(w, "ALL") == 0) {
            yes = 1;
            break;
        }
        struct group *g = getgrnam(w);
        if (!g)
            continue;
        if (g->gr_gid == p->gid) {
            yes = 1;
            break;
        }
        for (char **m = g->gr_mem; *m && !yes; m++)
            yes = strcmp(*m, p->user) == 0;
    }
    free(copy);
    return yes;
}

void dctl_peer(struct dmn *d, struct peer *p)
{
    idname_user(p->uid, p->user, sizeof p->user);
    idname_group(p->gid, p->group, sizeof p->group);
    p->admin = 0;
    if (p->uid == 0 || p->uid == geteuid()) {
        p->admin = 1;
        return;
    }
    static const char *const lists[] = {"ADMIN1", "ADMIN2", "ADMIN3"};
    for (int k = 0; k < 3 && !p->admin; k++)
        if (cfg_is_set(d->cfg, lists[k], NULL) && list_admits(cfg_str(d->cfg, lists[k], NULL), p))
            p->admin = k + 1;
}

static json_t *reply_ok(const char *text)
{
    return json_pack("{s:b, s:i, s:s}", "ok", 1, "exit", 0, "output", text ? text : "");
}

/* A refusal or failure with its exit status (1; 2 for usage errors). */
static json_t *reply_vfail(int exit, const char *fmt, va_list ap)
{
    char msg[1024];
    vsnprintf(msg, sizeof msg, fmt, ap);
    return json_pack("{s:b, s:i, s:s}", "ok", 0, "exit", exit, "error", msg);
}

static json_t *reply_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static json_t *reply_err(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    json_t *r = reply_vfail(1, fmt, ap);
    va_end(ap);
    return r;
}

/* A usage error (unknown option, missing operand): exit 2, as a client's
 * own usage errors; the client adds a "try --help" hint. */
static json_t *reply_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static json_t *reply_usage(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    json_t *r = reply_vfail(2, fmt, ap);
    va_end(ap);
    return r;
}

/* A failure of the command layer: exit 2 for its usage errors (err_usage),
 * else 1. */
static json_t *reply_fail(const struct err *e)
{
    return e->usage ? reply_usage("%s", e->msg) : reply_err("%s", e->msg);
}

static int is_owner(const struct peer *p, const struct djob *dj)
{
    return (long)p->uid == dj->rec.uid;
}

/* May p change dj? Owners and ADMIN1/ADMIN2. */
static int may_change(const struct peer *p, const struct djob *dj)
{
    return is_owner(p, dj) || (p->admin >= 1 && p->admin <= 2);
}

int dctl_may_change(const struct peer *p, const struct djob *dj)
{
    return may_change(p, dj);
}

/* Commit the changes of a request; on failure the reply says so. */
static json_t *commit(struct dmn *d, json_t *ok)
{
    struct err e;
    if (store_commit(d->st, &e) < 0) {
        json_decref(ok);
        dspace_commit_failed(d); /* a full disk: the reserve makes room for the next try */
        d->recover = 1; /* the engine may hold the change: rebuilt from the database */
        return reply_err("the change could not be saved: %s", e.msg);
    }
    d->want_iter = 1;
    return ok;
}

static json_t *begin(struct dmn *d)
{
    struct err e;
    if (store_begin(d->st, &e) < 0)
        return reply_err("the state database is unavailable: %s", e.msg);
    return NULL;
}

json_t *dctl_begin(struct dmn *d)
{
    return begin(d);
}

json_t *dctl_commit(struct dmn *d, json_t *ok)
{
    return commit(d, ok);
}

/* ---- canceljob <job>... ---- */

/* The text of a reply built line by line; failed: some line is an error. */
struct cmd_out {
    char *text;
    size_t len, cap;
    int failed;
};

static void out_printf(struct cmd_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void out_printf(struct cmd_out *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    o->text = xgrow(o->text, &o->cap, o->len + (size_t)n + 1, 1);
    va_start(ap, fmt);
    vsnprintf(o->text + o->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    o->len += (size_t)n;
}

static json_t *out_reply(struct cmd_out *o)
{
    json_t *r = o->failed ? json_pack("{s:b, s:i, s:s}", "ok", 0, "exit", 1, "error",
                                      o->text ? o->text : "")
                          : reply_ok(o->text);
    free(o->text);
    return r;
}

static void cancel_one(struct dmn *d, const struct peer *p, const char *id, struct cmd_out *o)
{
    struct djob *dj = djobs_find(d, id);
    long now = time(NULL);
    struct err e;
    if (!dj || dj->rec.state == SJ_COMPLETED ||
        (dj->rec.state == SJ_REMOVED && (!dj->rec.start || dj->rec.end))) {
        out_printf(o, "ERROR:  cannot locate job '%s'\n", id);
        o->failed = 1;
        return;
    }
    if (!may_change(p, dj)) {
        out_printf(o, "user %s is not authorized to cancel job '%s'\n", p->user, id);
        o->failed = 1;
        return;
    }
    if (dj->rec.state == SJ_IDLE) {
        /* A resource manager with a queue of its own (Slurm) keeps the job
         * too: cancelled there first, or a scheduler after moku would run it. */
        if (d->rm.ops->intake && d->rm.ops->cancel(d->rm.ctx, id, now, &e) < 0) {
            out_printf(o, "ERROR:  cannot cancel job '%s': %s\n", id, e.msg);
            o->failed = 1;
            return;
        }
        sched_cancel(d->s, dj->j, now, NULL);
        dj->rec.state = SJ_REMOVED;
        dj->rec.end = now;
    } else if (dj->rec.state == SJ_RUNNING || dj->rec.state == SJ_SUSPENDED) {
        if (d->rm.ops->cancel(d->rm.ctx, id, now, &e) < 0) {
            out_printf(o, "ERROR:  cannot cancel job '%s': %s\n", id, e.msg);
            o->failed = 1;
            return;
        }
        dj->rec.state = SJ_REMOVED; /* its end is recorded when the RM reports it */
    }
    djobs_save(d, dj);
    store_event(d->st, now, dj->rec.id, "cancel", p->user, NULL);
    dlog(d->log, 1, "job %s cancelled by %s", id, p->user);
    out_printf(o, "job '%s' cancelled\n", id);
}

static json_t *do_canceljob(struct dmn *d, const struct peer *p, int argc, char **argv)
{
    if (argc < 1)
        return reply_usage("canceljob: missing job id (usage: canceljob JOB...)");
    for (int i = 0; i < argc; i++) /* no job id starts with '-': a mistyped option */
        if (argv[i][0] == '-')
            return reply_usage("canceljob: unknown option '%.64s'", argv[i]);
    json_t *bad = begin(d);
    if (bad)
        return bad;
    struct cmd_out o = {0};
    for (int i = 0; i < argc; i++)
        cancel_one(d, p, argv[i], &o);
    return commit(d, out_reply(&o));
}

/* ---- sethold / releasehold ---- */

static int hold_type(const char *t, unsigned *h)
{
    if (strcmp(t, "user") == 0 || strcmp(t, "u") == 0)
        *h = HOLD_USER;
    else if (strcmp(t, "system") == 0 || strcmp(t, "s") == 0)
        *h = HOLD_SYSTEM;
    else if (strcmp(t, "batch") == 0 || strcmp(t, "b") == 0)
        *h = HOLD_BATCH;
    else if (strcmp(t, "all") == 0 || strcmp(t, "a") == 0)
        *h = HOLD_USER | HOLD_SYSTEM | HOLD_BATCH | HOLD_DEFER;
    else
        return -1;
    return 0;
}

/* sethold [-b] [-h user|system|batch] JOB... ; releasehold [-a] [-h TYPE] JOB... */
static json_t *do_hold(struct dmn *d, const struct peer *p, int argc, char **argv, int set)
{
    const char *name = set ? "sethold" : "releasehold";
    unsigned holds = HOLD_USER;
    int i = 0;
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (strcmp(argv[i], "-b") == 0 && set)
            holds = HOLD_BATCH;
        else if (strcmp(argv[i], "-a") == 0 && !set)
            holds = HOLD_USER | HOLD_SYSTEM | HOLD_BATCH | HOLD_DEFER; /* Maui: defer too */
        else if (strcmp(argv[i], "-h") == 0 && i + 1 < argc) {
            if (hold_type(argv[++i], &holds) < 0)
                return reply_err("%s: unknown hold type '%.64s' (user, system, batch%s)", name,
                                 argv[i], set ? "" : " or all");
        } else
            return reply_usage("%s: unknown option '%.64s'", name, argv[i]);
    }
    if (i == argc)
        return reply_usage("%s: missing job id", name);
    if ((holds & (HOLD_SYSTEM | HOLD_BATCH)) && !(p->admin >= 1 && p->admin <= 2))
        return reply_err("%s: user %s is not authorized to %s system or batch holds (ADMIN1 or "
                         "ADMIN2)",
                         name, p->user, set ? "set" : "release");
    json_t *bad = begin(d);
    if (bad)
        return bad;
    struct cmd_out o = {0};
    for (; i < argc; i++) {
        struct djob *dj = djobs_find(d, argv[i]);
        struct err e;
        if (!dj || dj->rec.state != SJ_IDLE) {
            out_printf(&o, "ERROR:  cannot locate idle job '%s'\n", argv[i]);
            o.failed = 1;
            continue;
        }
        if (!may_change(p, dj)) {
            out_printf(&o, "user %s is not authorized to modify job '%s'\n", p->user, argv[i]);
            o.failed = 1;
            continue;
        }
        int rc = set ? sched_hold(d->s, dj->j, holds, &e) : sched_release(d->s, dj->j, holds, time(NULL), &e);
        if (rc < 0) {
            out_printf(&o, "ERROR:  job '%s': %s\n", argv[i], e.msg);
            o.failed = 1;
            continue;
        }
        djobs_save(d, dj);
        store_event(d->st, time(NULL), dj->rec.id, set ? "hold" : "release", p->user, NULL);
        out_printf(&o, "holds modified for job %s\n", argv[i]);
    }
    return commit(d, out_reply(&o));
}

/* ---- setspri [-r] PRIO JOB ---- */

static json_t *do_setspri(struct dmn *d, const struct peer *p, int argc, char **argv)
{
    if (!(p->admin >= 1 && p->admin <= 2))
        return reply_err("setspri: user %s is not authorized (ADMIN1 or ADMIN2 only)", p->user);
    int rel = argc > 0 && strcmp(argv[0], "-r") == 0;
    if (argc - rel != 2)
        return reply_usage("setspri: usage: setspri [-r] PRIORITY JOB");
    char *end;
    long v = strtol(argv[rel], &end, 10);
    if (*end || end == argv[rel])
        return reply_err("setspri: bad priority '%.64s'", argv[rel]);
    struct djob *dj = djobs_find(d, argv[rel + 1]);
    if (!dj || dj->rec.state != SJ_IDLE)
        return reply_err("ERROR:  cannot locate idle job '%.64s'", argv[rel + 1]);
    json_t *bad = begin(d);
    if (bad)
        return bad;
    struct err e;
    if (sched_set_sysprio(d->s, dj->j, rel ? SYSPRIO_RELATIVE : SYSPRIO_ABSOLUTE, v, &e) < 0) {
        store_rollback(d->st);
        return reply_err("%s", e.msg);
    }
    djobs_save(d, dj);
    return commit(d, reply_ok("job system priority adjusted\n"));
}

/* ---- setqos QOS JOB ---- */

static json_t *do_setqos(struct dmn *d, const struct peer *p, int argc, char **argv)
{
    if (argc != 2)
        return reply_usage("setqos: usage: setqos QOS JOB");
    struct djob *dj = djobs_find(d, argv[1]);
    if (!dj || dj->rec.state != SJ_IDLE)
        return reply_err("ERROR:  cannot locate idle job '%.64s'", argv[1]);
    if (!may_change(p, dj))
        return reply_err("user %s is not authorized to modify job '%.64s'", p->user, argv[1]);
    json_t *bad = begin(d);
    if (bad)
        return bad;
    struct err e;
    int admin = p->admin >= 1 && p->admin <= 2;
    if (sched_set_qos(d->s, dj->j, argv[0], !admin, &e) < 0) {
        store_rollback(d->st);
        return reply_err("setqos: %s", e.msg);
    }
    free(dj->rec.qos);
    dj->rec.qos = xstrdup(argv[0]);
    djobs_save(d, dj);
    char msg[256];
    snprintf(msg, sizeof msg, "job QOS adjusted to %.64s\n", argv[0]);
    return commit(d, reply_ok(msg));
}

/* ---- runjob JOB ---- */

static json_t *do_runjob(struct dmn *d, const struct peer *p, int argc, char **argv)
{
    if (!(p->admin >= 1 && p->admin <= 2))
        return reply_err("runjob: user %s is not authorized (ADMIN1 or ADMIN2 only)", p->user);
    int force, i;
    struct err e;
    if (cmd_runjob_args(argc, argv, &force, &i, &e) < 0)
        return reply_fail(&e);
    struct djob *dj = djobs_find(d, argv[i]);
    if (!dj || dj->rec.state != SJ_IDLE)
        return reply_err("ERROR:  cannot locate idle job '%.64s'", argv[i]);
    json_t *bad = begin(d);
    if (bad)
        return bad;
    char *msg;
    if (cmd_runjob_start(d->s, dj->j, time(NULL), force, &msg, &e) < 0) {
        store_rollback(d->st);
        return reply_err("runjob: %s", e.msg);
    }
    json_t *r = reply_ok(msg);
    free(msg);
    return commit(d, r);
}

/* ---- mjobctl -s | -r JOB: suspend, resume ---- */

static json_t *do_mjobctl(struct dmn *d, const struct peer *p, int argc, char **argv)
{
    if (argc != 2 || (strcmp(argv[0], "-s") != 0 && strcmp(argv[0], "-r") != 0))
        return reply_usage("mjobctl: usage: mjobctl -s JOB (suspend) | -r JOB (resume)");
    int suspend = argv[0][1] == 's';
    if (!(p->admin >= 1 && p->admin <= 2))
        return reply_err("mjobctl: user %s is not authorized (ADMIN1 or ADMIN2 only)", p->user);
    struct djob *dj = djobs_find(d, argv[1]);
    enum store_jstate want = suspend ? SJ_RUNNING : SJ_SUSPENDED;
    if (!dj || dj->rec.state != want)
        return reply_err("ERROR:  cannot locate %s job '%.64s'", suspend ? "running" : "suspended",
                         argv[1]);
    if (dj->preempted) /* its processors are the reservation owner's now */
        return reply_err("ERROR:  job '%.64s' was suspended by preemption; it resumes when its "
                         "nodes are free", argv[1]);
    json_t *bad = begin(d);
    if (bad)
        return bad;
    struct err e;
    if ((suspend ? d->rm.ops->suspend : d->rm.ops->resume)(d->rm.ctx, argv[1], time(NULL), &e) <
        0) {
        store_rollback(d->st);
        return reply_err("mjobctl: %s", e.msg);
    }
    dj->rec.state = suspend ? SJ_SUSPENDED : SJ_RUNNING;
    if (dj->j) {
        if (suspend)
            dj->j->flags |= JOB_SUSPENDED;
        else
            dj->j->flags &= ~(unsigned)JOB_SUSPENDED;
    }
    djobs_save(d, dj);
    store_event(d->st, time(NULL), dj->rec.id, suspend ? "suspend" : "resume", p->user, NULL);
    char msg[128];
    snprintf(msg, sizeof msg, "job '%.64s' %s\n", argv[1], suspend ? "suspended" : "resumed");
    return commit(d, reply_ok(msg));
}

/* ---- schedctl -s | -r | -k | -R ---- */

static json_t *do_schedctl(struct dmn *d, const struct peer *p, int argc, char **argv)
{
    if (p->admin != 1)
        return reply_err("schedctl: user %s is not authorized (ADMIN1 only)", p->user);
    if (argc != 1)
        return reply_usage("schedctl: usage: schedctl -s|-r|-k|-R");
    if (strcmp(argv[0], "-s") == 0) {
        d->paused = 1;
        store_kv_set(d->st, "paused", "1", NULL);
        dlog(d->log, 0, "scheduling stopped by %s", p->user);
        return reply_ok("scheduling will stop in 0 iterations\n");
    }
    if (strcmp(argv[0], "-r") == 0) {
        d->paused = 0;
        d->want_iter = 1;
        store_kv_set(d->st, "paused", "0", NULL);
        dlog(d->log, 0, "scheduling resumed by %s", p->user);
        return reply_ok("scheduling will resume\n");
    }
    if (strcmp(argv[0], "-k") == 0) {
        d->stop = 1;
        dlog(d->log, 0, "shutdown requested by %s", p->user);
        return reply_ok("moku will be shutdown immediately\n");
    }
    if (strcmp(argv[0], "-R") == 0) {
        /* Now, not later: the reply tells what happened, refusal included. */
        struct err e;
        char *report;
        dlog(d->log, 0, "reload requested by %s", p->user);
        if (serve_reload(d, &report, &e) < 0)
            return reply_err("schedctl: the configuration was not reloaded (the running one is "
                             "kept): %s",
                             e.msg);
        json_t *r = reply_ok(report);
        free(report);
        return r;
    }
    return reply_usage("schedctl: unknown option '%.64s' (-s, -r, -k or -R)", argv[0]);
}

/* ---- setres, releaseres ---- */

/* RESCTLPOLICY ANY: any user may create reservations (and release their
 * own); ADMINONLY (the default): ADMIN1 and ADMIN2 alone. */
static int resctl_any(const struct dmn *d)
{
    const char *v = cfg_str(d->cfg, "RESCTLPOLICY", NULL);
    return v && strcasecmp(v, "ANY") == 0;
}

/* A user who is not an administrator may release only the reservations
 * they created: NULL, or the refusal. Ids the engine does not know, or
 * does not let anyone release, are left to the command's own message. */
static json_t *release_refused(struct dmn *d, const struct peer *p, int argc, char **argv)
{
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--format") == 0) {
            i++;
            continue;
        }
        const struct resv *r = sched_find_resv(d->s, argv[i]);
        if (!r || r->kind != RESV_USER)
            continue;
        const struct dresv *dr = dresv_find(d, argv[i]);
        if (!dr || dr->uid != (long)p->uid)
            return reply_err("releaseres: user %s is not authorized to release reservation "
                             "'%.64s' (only its creator, ADMIN1 or ADMIN2)",
                             p->user, argv[i]);
    }
    return NULL;
}

/* setres -m ID by a user who is not an administrator: only the creator
 * may change it (as releaseres). NULL, or the refusal. */
static json_t *modify_refused(struct dmn *d, const struct peer *p, int argc, char **argv)
{
    for (int i = 0; i < argc; i++) {
        const char *id = strncmp(argv[i], "-m", 2) != 0 ? NULL
                         : argv[i][2]                  ? argv[i] + 2
                         : i + 1 < argc                ? argv[i + 1]
                                                       : NULL;
        const struct resv *r = id ? sched_find_resv(d->s, id) : NULL;
        if (!r || r->kind != RESV_USER)
            continue;
        const struct dresv *dr = dresv_find(d, id);
        if (!dr || dr->uid != (long)p->uid)
            return reply_err("setres: user %s is not authorized to modify reservation '%.64s' "
                             "(only its creator, ADMIN1 or ADMIN2)",
                             p->user, id);
    }
    return NULL;
}

/* Record what a setres or releaseres changed: in the event log (inside
 * the transaction), or in the daemon's log (once committed). */
static void resctl_note(struct dmn *d, const struct peer *p, const struct dresv_change *c,
                        int events)
{
    static const char *const event[] = {"setres", "releaseres", "setres -m"};
    static const char *const done[] = {"created", "released", "modified"};
    long now = time(NULL);
    for (int k = 0; k < 3; k++) {
        char *const *ids = k == 0 ? c->added : k == 1 ? c->removed : c->modified;
        size_t n = k == 0 ? c->nadded : k == 1 ? c->nremoved : c->nmodified;
        for (size_t i = 0; i < n; i++) {
            if (events)
                store_event(d->st, now, 0, event[k], ids[i], NULL);
            else
                dlog(d->log, 1, "reservation %s %s by %s", ids[i], done[k], p->user);
        }
    }
}

/*
 * setres ... / releaseres ID...: the command layer's (cmd/resctl.c) with
 * control set, then the store made to match the engine's reservations,
 * committed before the reply. The store is synchronized even when the
 * command failed, so that whatever the engine holds is what is saved.
 */
static json_t *do_resctl(struct dmn *d, const struct peer *p, const char *cmd, int argc,
                         char **argv)
{
    int admin = p->admin >= 1 && p->admin <= 2, set = strcmp(cmd, "setres") == 0;
    if (!admin && !resctl_any(d))
        return reply_err("%s: user %s is not authorized (ADMIN1 or ADMIN2, or RESCTLPOLICY ANY)",
                         cmd, p->user);
    json_t *r = admin ? NULL
                : set ? modify_refused(d, p, argc, argv)
                      : release_refused(d, p, argc, argv);
    if (r || (r = begin(d)))
        return r;
    char **full = xcalloc((size_t)argc + 2, sizeof *full);
    full[0] = (char *)cmd;
    memcpy(full + 1, argv, (size_t)argc * sizeof *argv);
    struct cmd_ctx ctx = {.s = d->s, .cfg = d->cfg, .now = time(NULL),
                          .stats_since = d->stats_since, .control = 1};
    char *out = NULL;
    struct err e, se;
    int rc = cmd_runv(&ctx, argc + 1, full, &out, &e);
    free(full);
    struct dresv_change c;
    if (dresv_save(d, p, &c, &se) < 0 ||
        (!admin && set && dresv_user_refused(d, p, &c, ctx.now, &se))) {
        store_rollback(d->st);
        dresv_settle(d, &c, 0);
        free(out);
        if (strncmp(se.msg, "setres:", 7) == 0)
            return reply_err("%s", se.msg);
        return reply_err("%s: the change could not be saved: %s", cmd, se.msg);
    }
    resctl_note(d, p, &c, 1);
    int committed = store_commit(d->st, &se) == 0;
    if (committed)
        resctl_note(d, p, &c, 0);
    else
        d->recover = 1;
    dresv_settle(d, &c, committed);
    if (committed) {
        d->want_iter = 1;
        r = rc < 0 ? reply_fail(&e) : reply_ok(out);
    } else {
        r = reply_err("%s: the change could not be saved: %s", cmd, se.msg);
    }
    free(out);
    return r;
}

/* ---- the read-only commands ---- */

static const char *const sj_names[] = {
    [SJ_IDLE] = "Idle", [SJ_RUNNING] = "Running", [SJ_SUSPENDED] = "Suspended",
    [SJ_COMPLETED] = "Completed", [SJ_REMOVED] = "Removed"};

static void date_text(long t, char out[32])
{
    time_t tt = (time_t)t;
    struct tm tm;
    gmtime_r(&tt, &tm);
    strftime(out, 32, "%a %b %e %H:%M:%S", &tm);
}

/* checkjob of a job the engine no longer holds (ended before the last
 * restart): what the store remembers. */
static json_t *checkjob_stored(struct dmn *d, const char *id, int json)
{
    char *end;
    long n = strtol(id, &end, 10);
    struct store_job r;
    struct err e;
    int found = *id && !*end && n > 0 ? store_job_get(d->st, n, &r, &e) : 0;
    if (found < 0)
        return reply_err("checkjob: %s", e.msg);
    if (found == 0)
        return NULL;
    json_t *reply;
    const char *state = (unsigned)r.state <= SJ_REMOVED ? sj_names[r.state] : "Unknown";
    if (json) {
        json_t *o = json_pack("{s:s, s:s, s:s?, s:s?, s:s?, s:s?, s:s?, s:I, s:I}", "id", id,
                              "state", state, "user", r.user, "group", r.group, "account",
                              r.account, "class", r.class_, "qos", r.qos, "walltime",
                              (json_int_t)r.walltime, "submit", (json_int_t)r.submit);
        json_object_set_new(o, "start", r.start ? json_integer(r.start) : json_null());
        json_object_set_new(o, "end", r.end ? json_integer(r.end) : json_null());
        json_object_set_new(o, "exit_status",
                            r.exit_status >= 0 ? json_integer(r.exit_status) : json_null());
        json_t *m = r.message ? json_string(r.message) : NULL; /* NULL too if not UTF-8 */
        json_object_set_new(o, "message", m ? m : json_null());
        char *text = json_dumps(json_pack("{s:o}", "job", o), JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        reply = reply_ok(text);
        free(text);
    } else {
        char sub[32], st[32], en[32], *text;
        date_text(r.submit, sub);
        date_text(r.start, st);
        date_text(r.end, en);
        text = xprintf("checking job %s\n\nState: %s\nCreds:  user:%s  group:%s  account:%s  "
                       "class:%s  qos:%s\nSubmitTime: %s\n%s%s%s%s",
                       id, state, r.user ? r.user : "-", r.group ? r.group : "-",
                       r.account ? r.account : "DEFAULT", r.class_ ? r.class_ : "DEFAULT",
                       r.qos ? r.qos : "DEFAULT", sub, r.start ? "StartTime: " : "",
                       r.start ? st : "", r.start ? "\n" : "", r.end ? "CompletionTime: " : "");
        char *full = r.end ? xprintf("%s%s  Completion Code: %d\n%s%s%s", text, en, r.exit_status,
                                     r.message ? "Messages:  " : "", r.message ? r.message : "",
                                     r.message ? "\n" : "")
                           : xstrdup(text);
        reply = reply_ok(full);
        free(text);
        free(full);
    }
    store_job_free(&r);
    return reply;
}

/* What the store keeps of a job that the engine does not: qstat's name,
 * paths and session (cmd_ctx.job_extra). */
static int job_extra(void *ctx, const struct job *j, struct cmd_job_extra *x)
{
    struct dmn *d = ctx;
    if (j->tag >= d->njobs || d->jobs[j->tag]->j != j)
        return -1;
    const struct store_job *r = &d->jobs[j->tag]->rec;
    *x = (struct cmd_job_extra){.name = r->name, .out_path = r->out_path,
                                .err_path = r->err_path, .cwd = r->cwd, .mem_mb = r->mem_mb};
    return 0;
}

/* This host's short name: the server part of Torque's job ids. */
static void server_name(char *out, size_t n)
{
    if (gethostname(out, n) < 0 || !*out)
        snprintf(out, n, "localhost");
    out[n - 1] = '\0';
    out[strcspn(out, ".")] = '\0';
}

static json_t *do_look(struct dmn *d, const struct peer *p, int argc, char **argv)
{
    char server[256];
    server_name(server, sizeof server);
    struct cmd_ctx ctx = {.s = d->s, .cfg = d->cfg, .now = time(NULL), .epoch_offset = 0,
                          .stats_since = d->stats_since, .user = p->user, .group = p->group,
                          .ordinary = !(p->admin >= 1 && p->admin <= 3), .server = server,
                          .job_extra = job_extra, .job_extra_ctx = d};
    char *out = NULL;
    struct err e;
    if (cmd_runv(&ctx, argc, argv, &out, &e) < 0)
        return reply_fail(&e);
    json_t *r = reply_ok(out);
    free(out);
    return r;
}

/* ---- the request's fields ---- */

/*
 * Every field of a request is read through req_field: it is there when the
 * command needs it, of the type it must be, and nothing else is in the
 * request. So a missing or mistyped field is an error reply, never a NULL
 * passed on (a request without "args" once reached a memcpy as NULL).
 * A request is {"cmd": NAME, "args": [WORD...]}, or for submit
 * {"cmd": "submit", "job": {...}} (the job's own fields: cmd/qsub_json.c).
 */
static const json_t *req_field(const json_t *req, const char *key, json_type type, json_t **bad)
{
    static const char *const what[] = {
        [JSON_OBJECT] = "an object", [JSON_ARRAY] = "an array", [JSON_STRING] = "a string"};
    const json_t *v = json_object_get(req, key);
    if (!v)
        *bad = reply_err("bad request: \"%s\" is missing", key);
    else if (json_typeof(v) != type)
        *bad = reply_err("bad request: \"%s\" must be %s", key, what[type]);
    else
        return v;
    return NULL;
}

/* Only the fields the command reads: "cmd" and `field` (and "token",
 * checked by req_token where it is read). */
static int req_only(const json_t *req, const char *field, json_t **bad)
{
    const char *key;
    const json_t *v;
    json_object_foreach((json_t *)req, key, v)
    {
        if (strcmp(key, "cmd") != 0 && strcmp(key, field) != 0 &&
            !(strcmp(key, "token") == 0 && strcmp(field, "job") == 0)) {
            *bad = reply_err("bad request: unknown field \"%.64s\" (a request has \"cmd\" and "
                             "\"%s\")",
                             key, field);
            return -1;
        }
    }
    return 0;
}

/* The request's optional "token" (store_token_get): 16 to 64 characters
 * of [0-9A-Za-z_-]. *token NULL when there is none. */
static int req_token(const json_t *req, const char **token, json_t **bad)
{
    *token = NULL;
    if (!json_object_get(req, "token"))
        return 0;
    const json_t *t = req_field(req, "token", JSON_STRING, bad);
    if (!t)
        return -1;
    const char *v = json_string_value(t);
    size_t n = strlen(v);
    if (n < 16 || n > 64 || strspn(v, "0123456789abcdefghijklmnopqrstuvwxyz"
                                      "ABCDEFGHIJKLMNOPQRSTUVWXYZ_-") != n ||
        n != json_string_length(t)) {
        *bad = reply_err("bad request: \"token\" must be 16 to 64 letters, digits, '_' or '-'");
        return -1;
    }
    *token = v;
    return 0;
}

/* The request's "args": an array of at most MAX_ARGS short strings, as a
 * NULL-terminated argv (never NULL; caller frees the array, the strings
 * are the request's). */
static int req_args(const json_t *req, char ***argv, int *argc, json_t **bad)
{
    const json_t *a = req_field(req, "args", JSON_ARRAY, bad);
    if (!a)
        return -1;
    size_t n = json_array_size(a);
    if (n > MAX_ARGS) {
        *bad = reply_err("bad request: \"args\" must be an array of at most %d strings", MAX_ARGS);
        return -1;
    }
    *argv = xcalloc(n + 1, sizeof **argv);
    for (size_t i = 0; i < n; i++) {
        json_t *s = json_array_get(a, i);
        if (!json_is_string(s) || json_string_length(s) > MAX_ARG_LEN ||
            strlen(json_string_value(s)) != json_string_length(s)) {
            *bad = reply_err("bad request: argument %zu is not a short string", i + 1);
            free(*argv);
            return -1;
        }
        (*argv)[i] = (char *)json_string_value(s);
    }
    *argc = (int)n;
    return 0;
}

json_t *dctl_submit(struct dmn *d, const struct peer *p, const json_t *job, const char *token);

/* checkjob ID [--format=json] for an ID the engine does not know. */
/* The job checkjob's words name (its first operand), and whether JSON is
 * asked for; NULL when none. */
static const char *checkjob_id(int argc, char **argv, int *json)
{
    const char *id = NULL;
    *json = 0;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--format=json") == 0 ||
            (strcmp(argv[i], "--format") == 0 && i + 1 < argc && strcmp(argv[i + 1], "json") == 0))
            *json = 1;
        else if (argv[i][0] != '-' && !id && (i == 0 || strcmp(argv[i - 1], "--format") != 0))
            id = argv[i];
    }
    return id;
}

static json_t *checkjob_from_store(struct dmn *d, int argc, char **argv)
{
    int json;
    const char *id = checkjob_id(argc, argv, &json);
    if (!id || sched_find_job(d->s, id))
        return NULL;
    return checkjob_stored(d, id, json);
}

/* The uid that owns job id (queued, running or ended), -1 if none is known. */
static long job_uid(struct dmn *d, const char *id)
{
    struct djob *dj = djobs_find(d, id);
    if (dj)
        return dj->rec.uid;
    char *end;
    long n = strtol(id, &end, 10);
    struct store_job rec;
    if (*id == '\0' || *end != '\0' || n <= 0 || store_job_get(d->st, n, &rec, NULL) != 1)
        return -1;
    long uid = rec.uid;
    store_job_free(&rec);
    return uid;
}

/*
 * What an ordinary user may look at (Maui: "users are only permitted to see
 * details of jobs they own"; ADMIN3 "is granted access to all informational
 * Maui commands"): the queue summary (showq, with -b and the filters, not
 * the running or idle detail of -r and -i), their own jobs in detail
 * (checkjob), showstart, showbf. The rest — checkjob of another's job,
 * checknode, diagnose, showconfig, showstats, showres — is for ADMIN1..3.
 * NULL when p may run the command, else the refusal.
 */
static json_t *look_refused(struct dmn *d, const struct peer *p, const char *cmd, int argc,
                            char **argv)
{
    if (p->admin >= 1 && p->admin <= 3)
        return NULL;
    static const char *const everyone[] = {"showq",    "showstart", "showbf",
                                           "checkjob", "qstat",     "pbsnodes", NULL};
    int open = 0;
    for (int i = 0; everyone[i]; i++)
        open |= strcmp(cmd, everyone[i]) == 0;
    if (!open)
        return reply_err("%s: user %s is not authorized (ADMIN1, ADMIN2 or ADMIN3)", cmd, p->user);
    if (strcmp(cmd, "showq") == 0) {
        for (int i = 0; i < argc; i++)
            if (strcmp(argv[i], "-r") == 0 || strcmp(argv[i], "-i") == 0)
                return reply_err("showq %s: user %s is not authorized (ADMIN1, ADMIN2 or "
                                 "ADMIN3; showq and showq -b show the queue to everyone)",
                                 argv[i], p->user);
    }
    if (strcmp(cmd, "checkjob") == 0) {
        int json;
        const char *id = checkjob_id(argc, argv, &json);
        long uid = id ? job_uid(d, id) : -1;
        if (uid >= 0 && uid != (long)p->uid)
            return reply_err("checkjob: user %s is not authorized to see job '%.64s' (its "
                             "owner and ADMIN1, ADMIN2 or ADMIN3 may)",
                             p->user, id);
    }
    return NULL;
}

/* Take --format=json / --format json (or text) out of a control command's
 * words; -1 for another format. */
static int take_json(int *argc, char **argv, int *json)
{
    int w = 0;
    *json = 0;
    for (int i = 0; i < *argc; i++) {
        const char *v = NULL;
        if (strcmp(argv[i], "--format") == 0 && i + 1 < *argc)
            v = argv[++i];
        else if (strncmp(argv[i], "--format=", 9) == 0)
            v = argv[i] + 9;
        else {
            argv[w++] = argv[i];
            continue;
        }
        if (strcmp(v, "json") == 0)
            *json = 1;
        else if (strcmp(v, "text") != 0)
            return -1;
    }
    *argc = w;
    return 0;
}

/* A control command's text reply as JSON: {"messages": [one per line]}. */
static json_t *as_json(json_t *r)
{
    const char *out = json_string_value(json_object_get(r, "output"));
    if (!out)
        return r;
    json_t *lines = json_array();
    for (const char *p = out; *p;) {
        size_t n = strcspn(p, "\n");
        json_array_append_new(lines, json_stringn(p, n));
        p += n + (p[n] == '\n');
    }
    json_t *o = json_pack("{s:o}", "messages", lines);
    char *text = json_dumps(o, JSON_INDENT(2));
    json_decref(o);
    char *full = xprintf("%s\n", text ? text : "{}");
    json_object_set_new(r, "output", json_string(full));
    free(text);
    free(full);
    return r;
}

static int is_control(const char *cmd)
{
    static const char *const names[] = {"canceljob", "sethold",  "releasehold",
                                        "setspri",   "setqos",   "runjob",
                                        "schedctl",  "mjobctl",  "changeparam",
                                        "resetstats", NULL};
    for (int i = 0; names[i]; i++)
        if (strcmp(cmd, names[i]) == 0)
            return 1;
    return 0;
}

/* Commands the daemon answers itself, besides the command layer's. */
static int daemon_command(const char *cmd)
{
    return strcmp(cmd, "schedctl") == 0 || strcmp(cmd, "mjobctl") == 0 ||
           strcmp(cmd, "changeparam") == 0 || strcmp(cmd, "resetstats") == 0;
}

/* resetstats: the statistics start again now (ADMIN1, as Maui's). The
 * start is kept in the store (stats_since), so a restart keeps it; showstats
 * counts only the jobs that ended since. */
static json_t *do_resetstats(struct dmn *d, const struct peer *p, int argc, char **argv)
{
    if (p->admin != 1)
        return reply_err("resetstats: user %s is not authorized (ADMIN1 only)", p->user);
    if (argc != 0)
        return reply_usage("resetstats: unexpected argument '%.64s' (usage: resetstats)", argv[0]);
    json_t *bad = begin(d);
    if (bad)
        return bad;
    long now = time(NULL);
    char v[32];
    snprintf(v, sizeof v, "%ld", now);
    struct err e;
    if (store_kv_set(d->st, "stats_since", v, &e) < 0) {
        store_rollback(d->st);
        return reply_err("resetstats: %s", e.msg);
    }
    store_event(d->st, now, 0, "resetstats", p->user, NULL);
    json_t *r = commit(d, reply_ok("statistics reset\n"));
    if (json_is_true(json_object_get(r, "ok"))) {
        d->stats_since = now;
        dlog(d->log, 0, "statistics reset by %s", p->user);
    }
    return r;
}

/* changeparam PARAM VALUE...: ADMIN1 only (dparam.c). */
static json_t *do_changeparam(struct dmn *d, const struct peer *p, int argc, char **argv)
{
    if (p->admin != 1)
        return reply_err("changeparam: user %s is not authorized (ADMIN1 only)", p->user);
    char *report;
    struct err e;
    dlog(d->log, 0, "changeparam requested by %s", p->user);
    int owner = p->uid == 0 || p->uid == geteuid();
    if (dparam_change(d, p->user, owner, argc, argv, &report, &e) < 0)
        return reply_fail(&e);
    json_t *r = reply_ok(report);
    free(report);
    return r;
}

/* moku web: a one-time login link for the web view, bound to the caller
 * the kernel named. It takes no arguments: one given is refused (exit 2),
 * never ignored — it could only be a mistake (another user's name, say). */
static json_t *do_weblogin(struct dmn *d, const struct peer *p, const json_t *req)
{
    json_t *bad = NULL;
    if (req_only(req, "args", &bad) < 0)
        return bad;
    const json_t *args = json_object_get(req, "args");
    if (args && !json_is_array(args))
        return reply_usage("moku web: \"args\" must be an array");
    if (json_array_size(args) > 0) {
        const char *a = json_string_value(json_array_get(args, 0));
        return reply_usage("moku web: unexpected argument '%.64s' (it takes none: the link is "
                           "for the user who runs it)",
                           a ? a : "?");
    }
    if (!d->web)
        return reply_err("moku web: the web view is off: set WEBPORT in %s and restart moku "
                         "serve",
                         d->cfg_path);
    struct err e;
    char *url = web_login_url(d->web, p->uid, p->gid, &e);
    if (!url)
        return reply_err("moku web: %s", e.msg);
    dlog(d->log, 1, "web login link for %s", p->user);
    char *text = xprintf("%s\n", url);
    json_t *r = reply_ok(text);
    free(text);
    free(url);
    return r;
}

/* Whether the job id (moku's) names a job the daemon has or remembers. */
static int known_job(struct dmn *d, const char *id)
{
    return djobs_find(d, id) != NULL || job_uid(d, id) >= 0;
}

/*
 * A request's words as every command takes them: `--json` is
 * `--format=json` (Slurm's spelling), and a Torque job id "123.host[.dom]"
 * is moku's "123" when 123 is a job the daemon knows (a word that only
 * looks like one, a host name, is left alone). *json says whether JSON
 * was asked for. The words replaced are copies (returned, freed with
 * free_args; argv's other words stay the request's).
 */
static char **normalize_args(struct dmn *d, int argc, char **argv, int *json)
{
    char **own = xcalloc((size_t)argc + 1, sizeof *own);
    *json = 0;
    for (int i = 0; i < argc; i++) {
        char id[32];
        const char *bare = cmd_job_id(argv[i], id, sizeof id);
        if (strcmp(argv[i], "--json") == 0)
            argv[i] = own[i] = xstrdup("--format=json");
        else if (bare != argv[i] && known_job(d, bare))
            argv[i] = own[i] = xstrdup(bare);
        if (strcmp(argv[i], "--format=json") == 0 ||
            (strcmp(argv[i], "--format") == 0 && i + 1 < argc && strcmp(argv[i + 1], "json") == 0))
            *json = 1;
    }
    return own;
}

static void free_args(char **own, int argc)
{
    for (int i = 0; own && i < argc; i++)
        free(own[i]);
    free(own);
}

/* Torque's commands that change something: their --format is taken out
 * as the control commands' is. */
static int torque_control(const char *cmd)
{
    return dtorque_command(cmd) && strcmp(cmd, "qstat") != 0 && strcmp(cmd, "pbsnodes") != 0;
}

/* With JSON asked for, a failure is JSON too, on standard output:
 * {"error": "message", "exit": N}, and the exit status N (never 0). */
static json_t *json_error(json_t *r)
{
    if (json_is_true(json_object_get(r, "ok")))
        return r;
    const char *msg = json_string_value(json_object_get(r, "error"));
    json_t *ex = json_object_get(r, "exit");
    int code = json_is_integer(ex) && json_integer_value(ex) != 0 ? (int)json_integer_value(ex) : 1;
    char *m = xstrdup(msg ? msg : "failed");
    size_t n = strlen(m);
    while (n && m[n - 1] == '\n')
        m[--n] = '\0';
    json_t *v = json_string(m);
    json_t *o = json_pack("{s:o, s:i}", "error", v ? v : json_string("(not UTF-8)"), "exit", code);
    char *text = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    char *full = xprintf("%s\n", text ? text : "{}");
    json_decref(o);
    free(text);
    free(m);
    json_decref(r);
    r = json_pack("{s:b, s:i, s:s}", "ok", 0, "exit", code, "output", full);
    free(full);
    return r;
}

json_t *dctl_call(struct dmn *d, const struct peer *p, const char *cmd, int argc, char **argv)
{
    json_t *r;
    if (!is_control(cmd) && strcmp(cmd, "setres") != 0 && strcmp(cmd, "releaseres") != 0 &&
        (r = look_refused(d, p, cmd, argc, argv)))
        ; /* not for this user's eyes */
    else if (strcmp(cmd, "canceljob") == 0)
        r = do_canceljob(d, p, argc, argv);
    else if (strcmp(cmd, "sethold") == 0)
        r = do_hold(d, p, argc, argv, 1);
    else if (strcmp(cmd, "releasehold") == 0)
        r = do_hold(d, p, argc, argv, 0);
    else if (strcmp(cmd, "setspri") == 0)
        r = do_setspri(d, p, argc, argv);
    else if (strcmp(cmd, "setqos") == 0)
        r = do_setqos(d, p, argc, argv);
    else if (strcmp(cmd, "runjob") == 0)
        r = do_runjob(d, p, argc, argv);
    else if (strcmp(cmd, "schedctl") == 0)
        r = do_schedctl(d, p, argc, argv);
    else if (strcmp(cmd, "mjobctl") == 0)
        r = do_mjobctl(d, p, argc, argv);
    else if (strcmp(cmd, "changeparam") == 0)
        r = do_changeparam(d, p, argc, argv);
    else if (strcmp(cmd, "resetstats") == 0)
        r = do_resetstats(d, p, argc, argv);
    else if (strcmp(cmd, "setres") == 0 || strcmp(cmd, "releaseres") == 0)
        r = do_resctl(d, p, cmd, argc, argv);
    else if (strcmp(cmd, "checkjob") == 0 && (r = checkjob_from_store(d, argc, argv)))
        ; /* a job that ended before the daemon's last restart */
    else {
        /* The command layer's own: showq, checkjob, checknode, showstats,
         * showres, diagnose, showconfig. */
        char **full = xcalloc((size_t)argc + 2, sizeof *full);
        full[0] = (char *)cmd;
        for (int i = 0; i < argc; i++)
            full[i + 1] = argv[i];
        r = do_look(d, p, argc + 1, full);
        free(full);
    }
    return r;
}

json_t *dctl_handle(struct dmn *d, const struct peer *p, const json_t *req)
{
    if (!json_is_object(req))
        return reply_err("bad request: not a JSON object");
    json_t *bad = NULL;
    const json_t *c = req_field(req, "cmd", JSON_STRING, &bad);
    if (!c)
        return bad;
    const char *cmd = json_string_value(c);
    if (strcmp(cmd, "submit") == 0) {
        const json_t *job = req_field(req, "job", JSON_OBJECT, &bad);
        const char *token = NULL;
        if (!job || req_token(req, &token, &bad) < 0 || req_only(req, "job", &bad) < 0)
            return bad;
        dlog(d->log, 2, "request from %s: submit", p->user);
        return dctl_submit(d, p, job, token);
    }
    if (strcmp(cmd, "weblogin") == 0)
        return do_weblogin(d, p, req);
    if (!cmd_known(cmd) && !daemon_command(cmd) && !dtorque_command(cmd))
        return reply_err("%.64s: unknown command", cmd);
    char **argv;
    int argc;
    if (req_only(req, "args", &bad) < 0 || req_args(req, &argv, &argc, &bad) < 0)
        return bad;
    dlog(d->log, 2, "request from %s: %.64s", p->user, cmd);
    int want_json = 0;
    char **own = normalize_args(d, argc, argv, &want_json);
    int nown = argc;
    int json = 0;
    if ((is_control(cmd) || torque_control(cmd)) && take_json(&argc, argv, &json) < 0) {
        free_args(own, nown);
        free(argv);
        return reply_usage("%.64s: --format takes json or text", cmd);
    }
    json_t *r = dtorque_command(cmd) ? dtorque_handle(d, p, cmd, argc, argv)
                                     : dctl_call(d, p, cmd, argc, argv);
    free_args(own, nown);
    free(argv);
    if (json)
        r = as_json(r);
    return want_json ? json_error(r) : r;
}

/* ---- submit ---- */

/* The qsub request as a stored job record of peer p. */
static void record_of(const struct qsub_req *q, const struct peer *p, long now,
                      struct store_job *r)
{
    *r = (struct store_job){
        .name = q->name ? xstrdup(q->name) : NULL,
        .user = xstrdup(p->user),
        .group = xstrdup(p->group),
        .uid = (long)p->uid,
        .gid = (long)p->gid,
        .account = q->account ? xstrdup(q->account) : NULL,
        .class_ = q->queue ? xstrdup(q->queue) : NULL,
        .qos = q->qos ? xstrdup(q->qos) : NULL,
        .tasks = q->tasks,
        .ppn = q->nodes ? q->ppn : 1,
        .nodes = q->nodes,
        .mem_mb = q->mem_mb,
        .walltime = q->walltime,
        .submit = now,
        .start_after = q->start_after,
        .holds = q->hold ? HOLD_USER : 0,
        .state = SJ_IDLE,
        .exit_status = -1,
        .cwd = xstrdup(q->cwd),
        .out_path = q->out_path ? xstrdup(q->out_path) : NULL,
        .err_path = q->err_path ? xstrdup(q->err_path) : NULL,
        .advres = q->advres ? xstrdup(q->advres) : NULL,
        .mail_events = q->mail_events ? xstrdup(q->mail_events) : NULL,
        .mail_users = q->mail_users ? xstrdup(q->mail_users) : NULL,
    };
    if (q->exclusive) /* the shape's words (store.h); tpn 1 keeps nodes=N:ppn=P's one a node */
        r->shape = xstrdup(q->nodes > 0 ? "tpn=1 exclusive" : "exclusive");
    for (size_t i = 0; i < q->nfeatures; i++) { /* the engine reads "a,b" */
        char *more =
            xprintf("%s%s%s", r->features ? r->features : "", i ? "," : "", q->features[i]);
        free(r->features);
        r->features = more;
    }
    size_t len = 0;
    for (size_t i = 0; i < q->nenv; i++)
        len += strlen(q->env[i].name) + strlen(q->env[i].value) + 2;
    if (len) {
        r->env = xmalloc(len + 1);
        size_t off = 0;
        for (size_t i = 0; i < q->nenv; i++)
            off += (size_t)sprintf(r->env + off, "%s=%s\n", q->env[i].name, q->env[i].value);
    }
}

/* -j oe / eo: both streams into one file, the -o (or -e) one. */
static void join_streams(const struct qsub_req *q, struct store_job *r, long id)
{
    if (q->join == QSUB_JOIN_NONE)
        return;
    char **keep = q->join == QSUB_JOIN_OE ? &r->out_path : &r->err_path;
    char **drop = q->join == QSUB_JOIN_OE ? &r->err_path : &r->out_path;
    size_t n = *keep ? strlen(*keep) : 0;
    if (!*keep || (*keep)[n - 1] == '/') { /* none, or DIR/: Torque's name (in DIR) */
        char *file = xprintf("%s%s%s.%c%ld", *keep ? *keep : r->cwd, *keep ? "" : "/",
                             r->name ? r->name : "STDIN", q->join == QSUB_JOIN_OE ? 'o' : 'e', id);
        free(*keep);
        *keep = file;
    }
    free(*drop);
    *drop = xstrdup(*keep);
}

/* The first answer to a submission with this token from p, or NULL (then
 * the submission is new). */
static json_t *answered_before(struct dmn *d, const struct peer *p, const char *token)
{
    char *text = NULL;
    struct err e;
    int known = token ? store_token_get(d->st, (long)p->uid, token, &text, &e) : 0;
    if (known < 0)
        return reply_err("submit: the state database is unavailable: %s", e.msg);
    if (!known)
        return NULL;
    json_t *r = json_loads(text, 0, NULL);
    free(text);
    dlog(d->log, 1, "submission from %s sent again (token %s): its first answer repeated",
         p->user, token);
    return r ? r : reply_err("submit: the stored answer to token %s is damaged", token);
}

/* Inside the submission's transaction: the answer r under p's token, so
 * that a retry gets it again. */
static int remember_answer(struct dmn *d, const struct peer *p, const char *token, long now,
                           const json_t *r, struct err *err)
{
    if (!token)
        return 0;
    char *text = json_dumps(r, JSON_COMPACT);
    int rc = text ? store_token_put(d->st, (long)p->uid, token, now, text, err)
                  : err_set(err, "the answer could not be encoded");
    free(text);
    return rc;
}

/* Under a resource manager with its own queue (Slurm): the job goes there,
 * as p; it is taken in at the next iteration (dintake.c) under the id
 * answered. A retry with the same token finds the first job. */
static json_t *submit_to_rm(struct dmn *d, const struct peer *p, const struct qsub_req *q,
                            const char *token)
{
    if (q->advres)
        return reply_err("submit: ADVRES with RMCFG TYPE=%s is not supported yet",
                         d->rm.ops->name);
    char *features = NULL;
    for (size_t i = 0; i < q->nfeatures; i++) {
        char *more = xprintf("%s%s%s", features ? features : "", i ? "," : "", q->features[i]);
        free(features);
        features = more;
    }
    char **env = xcalloc(q->nenv + 1, sizeof *env);
    for (size_t i = 0; i < q->nenv; i++)
        env[i] = xprintf("%s=%s", q->env[i].name, q->env[i].value);
    struct rm_submit s = {
        .user = p->user, .uid = p->uid, .gid = p->gid,
        .name = q->name, .script = q->script, .shell = q->shell, .cwd = q->cwd,
        .out_path = q->join == QSUB_JOIN_EO ? q->err_path : q->out_path,
        .err_path = q->join == QSUB_JOIN_NONE ? q->err_path : NULL,
        .join = q->join != QSUB_JOIN_NONE,
        .account = q->account, .class_ = q->queue, .qos = q->qos, .features = features,
        .tasks = q->tasks, .nodes = q->nodes, .ppn = q->ppn,
        .mem_mb = q->mem_mb, .walltime = q->walltime, .start_after = q->start_after,
        .hold = q->hold, .exclusive = q->exclusive, .rerunnable = q->rerunnable,
        .mail_events = q->mail_events, .mail_users = q->mail_users,
        .env = (const char *const *)env, .nenv = q->nenv, .token = token,
    };
    long id = 0;
    struct err e;
    int rc = d->rm.ops->submit(d->rm.ctx, &s, &id, &e);
    for (size_t i = 0; i < q->nenv; i++)
        free(env[i]);
    free(env);
    free(features);
    if (rc < 0)
        return reply_err("submit: %s", e.msg);
    crashpt("rm-submitted"); /* the client tries again: its token finds this job */
    dlog(d->log, 1, "job %ld submitted to %s by %s", id, d->rm.ops->name, p->user);
    d->want_iter = 1; /* taken in soon */
    char text[32];
    snprintf(text, sizeof text, "%ld\n", id);
    return reply_ok(text);
}

/* Whether a job may ask for class (qsub -q) on the local resource manager:
 * DEFAULT, or a class maui.cfg names (CLASSCFG[name]). Torque refuses a
 * queue its server does not have; so does moku, rather than make a class
 * no limit or priority of the configuration applies to. */
static int queue_known(const struct dmn *d, const char *class_)
{
    return strcmp(class_, "DEFAULT") == 0 || cfg_obj_find(d->cfg, "CLASSCFG", class_) != NULL;
}

/* qsub -W group_list=G: the job runs as group G and is charged to it, when
 * the user is a member (its login group, or listed in G's members; the
 * kernel's supplementary groups of the client are not on the wire, so the
 * group database is asked, as Torque's server does). *as is p with G. */
static int group_of(const struct peer *p, const char *name, struct peer *as, struct err *err)
{
    *as = *p;
    if (!name)
        return 0;
    char buf[16384];
    struct group gr, *g = NULL;
    if (getgrnam_r(name, &gr, buf, sizeof buf, &g) != 0 || !g)
        return err_set(err, "-W group_list=%s: no such group", name);
    int member = g->gr_gid == p->gid;
    for (char **m = g->gr_mem; m && *m && !member; m++)
        member = strcmp(*m, p->user) == 0;
    if (!member && p->uid != 0)
        return err_set(err, "-W group_list=%s: user %s is not a member of group %s", name,
                       p->user, name);
    as->gid = g->gr_gid;
    snprintf(as->group, sizeof as->group, "%s", g->gr_name);
    return 0;
}

/* Torque's refusal of an unknown queue: PBSE_UNKQUE (15018) modulo 256. */
#define EX_UNKQUE 170

static json_t *unknown_queue(const char *class_)
{
    return json_pack("{s:b, s:i, s:s++}", "ok", 0, "exit", EX_UNKQUE, "error",
                     "submit: submit error (Unknown queue MSG=requested queue not found: ",
                     class_, ")");
}

json_t *dctl_submit(struct dmn *d, const struct peer *client, const json_t *job,
                    const char *token)
{
    struct qsub_req q;
    struct err e;
    json_t *again = answered_before(d, client, token);
    if (again)
        return again;
    if (qsub_from_json(job, &q, &e) < 0)
        return reply_err("submit: %s", e.msg);
    struct peer as;
    const struct peer *p = &as; /* the client, in the group the job asks for */
    if (group_of(client, q.group, &as, &e) < 0) {
        qsub_free(&q);
        return reply_err("submit: %s", e.msg);
    }
    if (geteuid() != 0 && p->uid != geteuid()) {
        qsub_free(&q);
        return reply_err("submit: this daemon runs as uid %ld and can run only that user's "
                         "jobs (start it as root to serve every user)",
                         (long)geteuid());
    }
    size_t bytes = strlen(q.script);
    for (size_t i = 0; i < q.nenv; i++)
        bytes += strlen(q.env[i].name) + strlen(q.env[i].value) + 2; /* "K=V\n" */
    if (dspace_submit_ok(d, p->uid, bytes, !d->rm.ops->submit, &e) < 0) {
        qsub_free(&q);
        return reply_err("submit: refused: %s", e.msg);
    }
    if (d->rm.ops->submit) {
        json_t *r = submit_to_rm(d, p, &q, token);
        qsub_free(&q);
        return r;
    }
    if (q.queue && !queue_known(d, q.queue)) {
        json_t *no = unknown_queue(q.queue);
        qsub_free(&q);
        return no;
    }
    if (q.advres && !sched_resv_name_known(d->s, q.advres)) {
        json_t *no = reply_err("submit: ADVRES:%s names no reservation", q.advres);
        qsub_free(&q);
        return no;
    }
    json_t *bad = begin(d);
    if (bad) {
        qsub_free(&q);
        return bad;
    }
    long now = time(NULL);
    struct store_job rec;
    record_of(&q, p, now, &rec);
    struct djob *dj = djobs_add(d, &rec, q.script, &e);
    if (!dj) {
        store_rollback(d->st);
        store_job_free(&rec);
        qsub_free(&q);
        return reply_err("submit: %s", e.msg);
    }
    join_streams(&q, &dj->rec, dj->rec.id);
    djobs_save(d, dj);
    store_event(d->st, now, dj->rec.id, "submit", p->user, NULL);
    qsub_free(&q);
    char id[32];
    snprintf(id, sizeof id, "%ld\n", dj->rec.id);
    json_t *r = reply_ok(id);
    if (remember_answer(d, p, token, now, r, &e) < 0) {
        json_decref(r);
        store_rollback(d->st);
        sched_cancel(d->s, dj->j, now, NULL);
        dj->rec.state = SJ_REMOVED;
        return reply_err("submit: %s", e.msg);
    }
    r = commit(d, r);
    if (json_is_true(json_object_get(r, "ok"))) {
        crashpt("submit-committed"); /* a client with no answer tries again */
        dlog(d->log, 1, "job %ld submitted by %s", dj->rec.id, p->user);
    } else {
        /* Not saved: the engine must not run what the store does not know. */
        sched_cancel(d->s, dj->j, now, NULL);
        dj->rec.state = SJ_REMOVED;
    }
    return r;
}
