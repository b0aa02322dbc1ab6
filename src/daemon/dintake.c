/*
 * dintake — jobs submitted to the resource manager itself: under Slurm,
 * sbatch/srun/salloc from any user. Each held job the daemon has not seen
 * is stored under Slurm's id (so checkjob 42 and squeue agree) and queued;
 * one the policy refuses (it could never run here, MAXSUBMITJOBS) is
 * cancelled in Slurm with the reason logged; a queued job Slurm no longer
 * has, or has ended (scancel of a held job), is removed from the queue.
 * The states of the nodes (down, drained, up again) come the same way.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sched.h"
#include "daemon/daemon_int.h"
#include "util/mem.h"

struct intake {
    struct dmn *d;
    long now;
};

static char *dup_or_null(const char *s)
{
    return s ? xstrdup(s) : NULL;
}

/* The stored record of a held job: tasks per node when it asked for a node
 * count that divides its processors, else processors anywhere. */
static void record_of(const struct rm_new_job *x, struct store_job *rec)
{
    int per_node = x->nodes > 0 && x->tasks % x->nodes == 0 ? x->tasks / x->nodes : 0;
    *rec = (struct store_job){
        .id = x->id,
        .name = dup_or_null(x->name),
        .user = xstrdup(x->user),
        .group = xstrdup(x->group),
        .uid = x->uid,
        .gid = x->gid,
        .account = dup_or_null(x->account),
        .class_ = dup_or_null(x->class_),
        .qos = dup_or_null(x->qos),
        .tasks = x->tasks,
        .ppn = per_node ? per_node : 1,
        .nodes = per_node ? x->nodes : 0,
        .mem_mb = x->mem_mb,
        .walltime = x->walltime,
        .submit = x->submit,
        .holds = x->hold ? HOLD_USER : 0,
        .state = SJ_IDLE,
        .exit_status = -1,
        .features = dup_or_null(x->features),
    };
}

static void seen(void *ctx, const struct rm_new_job *x)
{
    struct intake *in = ctx;
    struct dmn *d = in->d;
    char id[32];
    snprintf(id, sizeof id, "%ld", x->id);
    if (djobs_find(d, id))
        return;
    struct store_job old;
    struct err e;
    int known = store_job_get(d->st, x->id, &old, &e);
    if (known == 1)
        store_job_free(&old);
    if (known != 0) {
        if (known < 0)
            dlog(d->log, 0, "error: job %s: %s", id, e.msg);
        return; /* ended here, or unreadable: not queued a second time */
    }
    struct store_job rec;
    record_of(x, &rec);
    if (!djobs_adopt(d, &rec, &e)) {
        dlog(d->log, 0, "%s job %s of %s refused: %s; cancelled there", d->rm.ops->name, id,
             x->user, e.msg);
        store_job_free(&rec);
        struct err ce;
        if (d->rm.ops->cancel(d->rm.ctx, id, in->now, &ce) < 0)
            dlog(d->log, 0, "error: %s", ce.msg);
        return;
    }
    store_event(d->st, in->now, x->id, "submit", x->user, NULL);
    dlog(d->log, 1, "job %s of %s taken in from %s", id, x->user, d->rm.ops->name);
}

/* Queued here, ended or gone there: cancelled outside moku. */
static void gone(struct dmn *d, struct djob *dj, long now)
{
    sched_cancel(d->s, dj->j, now, NULL);
    dj->rec.state = SJ_REMOVED;
    dj->rec.end = now;
    free(dj->rec.message);
    dj->rec.message = xprintf("cancelled in %s while queued", d->rm.ops->name);
    djobs_save(d, dj);
    store_event(d->st, now, dj->rec.id, "cancel", d->rm.ops->name, NULL);
    dlog(d->log, 1, "job %ld cancelled in %s while queued", dj->rec.id, d->rm.ops->name);
}

static void node_changed(void *ctx, const struct rm_node_state *n)
{
    struct dmn *d = ctx;
    long i = sched_find_node(d->s, n->name);
    if (i < 0) {
        dlog(d->log, 2, "%s node %s is not in moku's node table (schedctl -R reads the nodes "
                        "again)", d->rm.ops->name, n->name);
        return;
    }
    sched_node_set_state(d->s, (size_t)i, n->state, n->reason);
    dlog(d->log, 1, "node %s is %s in %s%s%s", n->name, node_state_name(n->state),
         d->rm.ops->name, n->reason ? ": " : "", n->reason ? n->reason : "");
}

/* The resource manager could not be read (-1): logged when that starts
 * and when it ends, not at every iteration of an outage. */
static int rm_read(struct dmn *d, int rc, const struct err *e)
{
    if (rc < 0 && !d->rm_down)
        dlog(d->log, 0, "error: %s (moku starts nothing until it answers)", e->msg);
    else if (rc >= 0 && d->rm_down)
        dlog(d->log, 0, "%s answers again", d->rm.ops->name);
    d->rm_down = rc < 0;
    return rc;
}

int dintake_poll(struct dmn *d, long now)
{
    struct err e;
    /* Node states first: a job is not started on a node that went down. */
    if (d->rm.ops->node_states &&
        rm_read(d, d->rm.ops->node_states(d->rm.ctx, now, node_changed, d, &e), &e) < 0)
        return -1;
    if (!d->rm.ops->intake)
        return 0;
    struct intake in = {d, now};
    struct rm_intake cb = {&in, seen};
    int changed = rm_read(d, d->rm.ops->intake(d->rm.ctx, now, &cb, &e), &e);
    if (changed <= 0)
        return changed;
    for (size_t i = 0; i < d->njobs; i++) {
        struct djob *dj = d->jobs[i];
        if (dj->rec.state != SJ_IDLE || !dj->j || dj->j->state != JOB_IDLE)
            continue;
        char id[32];
        struct rm_status st;
        snprintf(id, sizeof id, "%ld", dj->rec.id);
        if (d->rm.ops->status(d->rm.ctx, id, now, &st, &e) == 0 &&
            (st.state == RM_UNKNOWN || st.state == RM_ENDED))
            gone(d, dj, now);
    }
    return 0;
}
