/*
 * djobctl — the daemon's job control commands: canceljob, sethold,
 * releasehold, setspri, setqos, runjob, mjobctl. Each checks, job by job,
 * that the caller may change the job (drights_may_change; the command's
 * own right was checked by dctl.c before), changes the engine and the
 * resource manager, and commits before the reply (dreply.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd/cmd.h"
#include "daemon/daemon_int.h"
#include "daemon/djobctl.h"
#include "daemon/dreply.h"
#include "daemon/drights.h"
#include "util/mem.h"

static void cancel_one(struct dmn *d, const struct peer *p, const char *id, struct dreply_text *o)
{
    struct djob *dj = djobs_find(d, id);
    long now = time(NULL);
    struct err e;
    if (!dj || dj->rec.state == SJ_COMPLETED ||
        (dj->rec.state == SJ_REMOVED && (!dj->rec.start || dj->rec.end))) {
        dreply_printf(o, "ERROR:  cannot locate job '%s'\n", id);
        o->failed = 1;
        return;
    }
    if (!drights_may_change(p, dj)) {
        dreply_printf(o, "user %s is not authorized to cancel job '%s'\n", p->user, id);
        o->failed = 1;
        return;
    }
    char rid[32]; /* the resource manager's name of it: its stored id (a task's too) */
    snprintf(rid, sizeof rid, "%ld", dj->rec.id);
    if (dj->rec.state == SJ_IDLE) {
        /* A resource manager with a queue of its own (Slurm) keeps the job
         * too: cancelled there first, or a scheduler after moku would run it. */
        if (d->rm.ops->intake && d->rm.ops->cancel(d->rm.ctx, rid, now, &e) < 0) {
            dreply_printf(o, "ERROR:  cannot cancel job '%s': %s\n", id, e.msg);
            o->failed = 1;
            return;
        }
        sched_cancel(d->s, dj->j, now, NULL);
        dj->rec.state = SJ_REMOVED;
        dj->rec.end = now;
    } else if (dj->rec.state == SJ_RUNNING || dj->rec.state == SJ_SUSPENDED) {
        if (d->rm.ops->cancel(d->rm.ctx, rid, now, &e) < 0) {
            dreply_printf(o, "ERROR:  cannot cancel job '%s': %s\n", id, e.msg);
            o->failed = 1;
            return;
        }
        dj->rec.state = SJ_REMOVED; /* its end is recorded when the RM reports it */
    }
    djrec_save(d, dj);
    store_event(d->st, now, dj->rec.id, "cancel", p->user, NULL);
    dlog(d->log, 1, "job %s cancelled by %s", id, p->user);
    dreply_printf(o, "job '%s' cancelled\n", id);
}

json_t *djobctl_canceljob(struct dmn *d, const struct peer *p, const char *cmd, int argc,
                          char **argv)
{
    if (argc < 1)
        return dreply_usage("canceljob: missing job id (usage: canceljob JOB...)");
    for (int i = 0; i < argc; i++) /* no job id starts with '-': a mistyped option */
        if (argv[i][0] == '-')
            return dreply_usage("canceljob: unknown option '%.64s'", argv[i]);
    json_t *bad = dreply_begin(d);
    if (bad)
        return bad;
    struct dreply_text o = {0};
    for (int i = 0; i < argc; i++)
        cancel_one(d, p, argv[i], &o);
    return dreply_commit(d, dreply_lines(&o));
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
                return dreply_err("%s: unknown hold type '%.64s' (user, system, batch%s)", name,
                                  argv[i], set ? "" : " or all");
        } else
            return dreply_usage("%s: unknown option '%.64s'", name, argv[i]);
    }
    if (i == argc)
        return dreply_usage("%s: missing job id", name);
    if ((holds & (HOLD_SYSTEM | HOLD_BATCH)) && !(p->admin >= 1 && p->admin <= 2))
        return dreply_err("%s: user %s is not authorized to %s system or batch holds (ADMIN1 or "
                          "ADMIN2)",
                          name, p->user, set ? "set" : "release");
    json_t *bad = dreply_begin(d);
    if (bad)
        return bad;
    struct dreply_text o = {0};
    for (; i < argc; i++) {
        struct djob *dj = djobs_find(d, argv[i]);
        struct err e;
        if (!dj || dj->rec.state != SJ_IDLE) {
            dreply_printf(&o, "ERROR:  cannot locate idle job '%s'\n", argv[i]);
            o.failed = 1;
            continue;
        }
        if (!drights_may_change(p, dj)) {
            dreply_printf(&o, "user %s is not authorized to modify job '%s'\n", p->user, argv[i]);
            o.failed = 1;
            continue;
        }
        int rc = set ? sched_hold(d->s, dj->j, holds, &e)
                     : sched_release(d->s, dj->j, holds, time(NULL), &e);
        if (rc < 0) {
            dreply_printf(&o, "ERROR:  job '%s': %s\n", argv[i], e.msg);
            o.failed = 1;
            continue;
        }
        djrec_save(d, dj);
        store_event(d->st, time(NULL), dj->rec.id, set ? "hold" : "release", p->user, NULL);
        dreply_printf(&o, "holds modified for job %s\n", argv[i]);
    }
    return dreply_commit(d, dreply_lines(&o));
}

/* ---- setspri [-r] PRIO JOB ---- */

json_t *djobctl_setspri(struct dmn *d, const struct peer *p, const char *cmd, int argc, char **argv)
{
    int rel = argc > 0 && strcmp(argv[0], "-r") == 0;
    if (argc - rel != 2)
        return dreply_usage("setspri: usage: setspri [-r] PRIORITY JOB");
    char *end;
    long v = strtol(argv[rel], &end, 10);
    if (*end || end == argv[rel])
        return dreply_err("setspri: bad priority '%.64s'", argv[rel]);
    struct djob *dj = djobs_find(d, argv[rel + 1]);
    if (!dj || dj->rec.state != SJ_IDLE)
        return dreply_err("ERROR:  cannot locate idle job '%.64s'", argv[rel + 1]);
    json_t *bad = dreply_begin(d);
    if (bad)
        return bad;
    struct err e;
    if (sched_set_sysprio(d->s, dj->j, rel ? SYSPRIO_RELATIVE : SYSPRIO_ABSOLUTE, v, &e) < 0) {
        store_rollback(d->st);
        return dreply_err("%s", e.msg);
    }
    djrec_save(d, dj);
    return dreply_commit(d, dreply_ok("job system priority adjusted\n"));
}

/* ---- setqos QOS JOB ---- */

json_t *djobctl_setqos(struct dmn *d, const struct peer *p, const char *cmd, int argc, char **argv)
{
    if (argc != 2)
        return dreply_usage("setqos: usage: setqos QOS JOB");
    struct djob *dj = djobs_find(d, argv[1]);
    if (!dj || dj->rec.state != SJ_IDLE)
        return dreply_err("ERROR:  cannot locate idle job '%.64s'", argv[1]);
    if (!drights_may_change(p, dj))
        return dreply_err("user %s is not authorized to modify job '%.64s'", p->user, argv[1]);
    json_t *bad = dreply_begin(d);
    if (bad)
        return bad;
    struct err e;
    int admin = p->admin >= 1 && p->admin <= 2;
    if (sched_set_qos(d->s, dj->j, argv[0], !admin, &e) < 0) {
        store_rollback(d->st);
        return dreply_err("setqos: %s", e.msg);
    }
    free(dj->rec.qos);
    dj->rec.qos = xstrdup(argv[0]);
    djrec_save(d, dj);
    char msg[256];
    snprintf(msg, sizeof msg, "job QOS adjusted to %.64s\n", argv[0]);
    return dreply_commit(d, dreply_ok(msg));
}

/* ---- runjob JOB ---- */

json_t *djobctl_runjob(struct dmn *d, const struct peer *p, const char *cmd, int argc, char **argv)
{
    int force, i;
    struct err e;
    if (cmd_runjob_args(argc, argv, &force, &i, &e) < 0)
        return dreply_fail(&e);
    struct djob *dj = djobs_find(d, argv[i]);
    if (!dj || dj->rec.state != SJ_IDLE)
        return dreply_err("ERROR:  cannot locate idle job '%.64s'", argv[i]);
    json_t *bad = dreply_begin(d);
    if (bad)
        return bad;
    char *msg;
    if (cmd_runjob_start(d->s, dj->j, time(NULL), force, &msg, &e) < 0) {
        store_rollback(d->st);
        return dreply_err("runjob: %s", e.msg);
    }
    json_t *r = dreply_ok(msg);
    free(msg);
    return dreply_commit(d, r);
}

/* ---- mjobctl -s | -r JOB: suspend, resume ---- */

json_t *djobctl_mjobctl(struct dmn *d, const struct peer *p, const char *cmd, int argc, char **argv)
{
    if (argc != 2 || (strcmp(argv[0], "-s") != 0 && strcmp(argv[0], "-r") != 0))
        return dreply_usage("mjobctl: usage: mjobctl -s JOB (suspend) | -r JOB (resume)");
    int suspend = argv[0][1] == 's';
    if (!(p->admin >= 1 && p->admin <= 2))
        return dreply_err("mjobctl: user %s is not authorized (ADMIN1 or ADMIN2 only)", p->user);
    struct djob *dj = djobs_find(d, argv[1]);
    enum store_jstate want = suspend ? SJ_RUNNING : SJ_SUSPENDED;
    if (!dj || dj->rec.state != want)
        return dreply_err("ERROR:  cannot locate %s job '%.64s'", suspend ? "running" : "suspended",
                          argv[1]);
    if (dj->preempted) /* its processors are the reservation owner's now */
        return dreply_err("ERROR:  job '%.64s' was suspended by preemption; it resumes when its "
                          "nodes are free",
                          argv[1]);
    json_t *bad = dreply_begin(d);
    if (bad)
        return bad;
    struct err e;
    if ((suspend ? d->rm.ops->suspend : d->rm.ops->resume)(d->rm.ctx, argv[1], time(NULL), &e) <
        0) {
        store_rollback(d->st);
        return dreply_err("mjobctl: %s", e.msg);
    }
    dj->rec.state = suspend ? SJ_SUSPENDED : SJ_RUNNING;
    if (dj->j) {
        if (suspend)
            dj->j->flags |= JOB_SUSPENDED;
        else
            dj->j->flags &= ~(unsigned)JOB_SUSPENDED;
    }
    djrec_save(d, dj);
    store_event(d->st, time(NULL), dj->rec.id, suspend ? "suspend" : "resume", p->user, NULL);
    char msg[128];
    snprintf(msg, sizeof msg, "job '%.64s' %s\n", argv[1], suspend ? "suspended" : "resumed");
    return dreply_commit(d, dreply_ok(msg));
}

json_t *djobctl_sethold(struct dmn *d, const struct peer *p, const char *cmd, int argc, char **argv)
{
    return do_hold(d, p, argc, argv, 1);
}

json_t *djobctl_releasehold(struct dmn *d, const struct peer *p, const char *cmd, int argc,
                            char **argv)
{
    return do_hold(d, p, argc, argv, 0);
}
