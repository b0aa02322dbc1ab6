/*
 * dpreempt — OWNERPREEMPT in the daemon: the engine's preempt and resume
 * callbacks (struct sched_rm; policy/preempt.c) turned into the resource
 * manager's requeue, suspend and resume, with the store kept in step.
 *
 * The order is the start's (djobs_rm_start): the change is committed, then
 * done. A daemon that dies in between finds the store ahead of the
 * processes at its restart, and catches up:
 *   - requeued: the job is queued in the store while its old run may still
 *     be going; before the job starts again, that run is ended and its
 *     spool directory removed (dpreempt_clear_old_run);
 *   - suspended by preemption (marked in the store's key-value table as
 *     "preempted.<id>"): the engine's list of suspended jobs waiting for
 *     their nodes is not kept across a restart or a reload, so such a job
 *     is requeued at restore (dpreempt_restore), whether its SIGSTOP was
 *     sent or not.
 *
 * A requeued run goes on ending for up to the supervisor's grace period
 * (SIGTERM, then SIGKILL). Until its status file appears the job is
 * `draining`: djobs_poll does not take that end for the job's (the job is
 * queued, not running) and removes the old spool directory once it comes.
 *
 * An interactive job (qsub -I) is not requeued: Torque's is not rerunnable,
 * so REQUEUE preemption refuses it and it runs on (SUSPEND stops it as any
 * job).
 *
 * Not here: which jobs to preempt, and when to resume them (the engine's).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "daemon/daemon_int.h"

/* How long a start waits for the preempted run of the same job to end:
 * the local resource manager's grace between SIGTERM and SIGKILL (5 s),
 * and then some. Only a job requeued and started again at once, whose
 * processes ignore SIGTERM, waits that long, and only once: a run still
 * going after it (Slurm's KillWait is 30 s, its epilog may be longer) makes
 * the start SCHED_RM_LATER, and the starts at the next iterations only
 * look, so the daemon is not held up while the run ends. */
#define DRAIN_WAIT_MS 7000
#define DRAIN_STEP_MS 10

static struct djob *djob_of(struct dmn *d, const struct job *j)
{
    return j && j->tag < d->njobs ? d->jobs[j->tag] : NULL;
}

/* Why, for the log: the engine's callback does not say which rule
 * preempted the job; with BACKFILLPOLICY PREEMPT it may be a higher-priority
 * job rather than a reservation's owner. */
static const char *preempt_why(const struct dmn *d)
{
    return sched_policy(d->s)->backfill == BF_PREEMPT ? "" : " for reservation owner";
}

static void preempt_key(const struct djob *dj, char *buf, size_t len)
{
    snprintf(buf, len, "preempted.%ld", dj->rec.id);
}

/* Where dj's run stands with the resource manager; -1 (logged) on error. */
static int rm_state(struct dmn *d, const struct djob *dj, long now, struct rm_status *st)
{
    char id[32];
    struct err e;
    snprintf(id, sizeof id, "%ld", dj->rec.id);
    if (d->rm.ops->status(d->rm.ctx, id, now, st, &e) < 0) {
        dlog(d->log, 0, "job %s: %s", id, e.msg);
        return -1;
    }
    return 0;
}

static int run_going(const struct rm_status *st)
{
    return st->state == RM_RUNNING || st->state == RM_SUSPENDED;
}

/* Make the iteration's changes so far durable, before the resource manager
 * acts. On failure the transaction was rolled back and a new one begun. */
static int commit_now(struct dmn *d, const struct djob *dj)
{
    struct err e;
    if (store_commit(d->st, &e) < 0 || store_begin(d->st, &e) < 0) {
        dlog(d->log, 0, "error: job %ld not preempted: %s", dj->rec.id, e.msg);
        djrec_commit_failed(d);
        store_begin(d->st, NULL);
        return -1;
    }
    return 0;
}

/* PREEMPTPOLICY REQUEUE: queued in the store, then its run ended. */
static int preempt_requeue(struct dmn *d, struct djob *dj, long now)
{
    char id[32];
    struct err e;
    snprintf(id, sizeof id, "%ld", dj->rec.id);
    enum store_jstate was = dj->rec.state;
    long start = dj->rec.start;
    char *hosts = dj->rec.hosts;
    dj->rec.state = SJ_IDLE;
    dj->rec.start = 0;
    dj->rec.hosts = NULL;
    djrec_save(d, dj);
    store_event(d->st, now, dj->rec.id, "preempt", "requeue", NULL);
    int rc = commit_now(d, dj);
    if (rc == 0 && d->rm.ops->requeue(d->rm.ctx, id, now, &e) < 0) {
        dlog(d->log, 0, "job %s not preempted: %s", id, e.msg);
        rc = -1;
    }
    if (rc < 0) { /* as it was: the engine leaves the job running */
        dj->rec.state = was;
        dj->rec.start = start;
        dj->rec.hosts = hosts;
        djrec_save(d, dj);
        return -1;
    }
    free(hosts);
    dj->draining = 1; /* its end, when it comes, is the old run's */
    dlog(d->log, 1, "job %s preempted (requeue)%s", id, preempt_why(d));
    return 0;
}

/* PREEMPTPOLICY SUSPEND: marked suspended by preemption in the store, then
 * stopped. A job an administrator suspended (mjobctl -s) is theirs to
 * resume: the engine may not take it over (it would resume it later). */
static int preempt_suspend(struct dmn *d, struct djob *dj, long now)
{
    char id[32], key[48];
    struct err e;
    if (dj->rec.state != SJ_RUNNING)
        return -1;
    snprintf(id, sizeof id, "%ld", dj->rec.id);
    preempt_key(dj, key, sizeof key);
    dj->rec.state = SJ_SUSPENDED;
    djrec_save(d, dj);
    store_kv_set(d->st, key, "suspend", NULL);
    store_event(d->st, now, dj->rec.id, "preempt", "suspend", NULL);
    int rc = commit_now(d, dj);
    if (rc == 0 && d->rm.ops->suspend(d->rm.ctx, id, now, &e) < 0) {
        dlog(d->log, 0, "job %s not preempted: %s", id, e.msg);
        rc = -1;
    }
    if (rc < 0) {
        dj->rec.state = SJ_RUNNING;
        djrec_save(d, dj);
        store_kv_set(d->st, key, NULL, NULL);
        return -1;
    }
    dj->preempted = 1;
    dj->j->flags |= JOB_SUSPENDED;
    dlog(d->log, 1, "job %s preempted (suspend)%s", id, preempt_why(d));
    return 0;
}

int dpreempt_rm_preempt(void *ctx, struct job *j, enum preempt_policy how, long now)
{
    struct dmn *d = ctx;
    struct djob *dj = djob_of(d, j);
    struct rm_status st;
    if (!dj || (dj->rec.state != SJ_RUNNING && dj->rec.state != SJ_SUSPENDED))
        return -1; /* cancelled and ending: its end frees the processors */
    if (rm_state(d, dj, now, &st) < 0 || !run_going(&st))
        return -1; /* ended: djobs_poll records it */
    if (how != PREEMPT_SUSPEND && djobs_interactive(&dj->rec)) {
        /* Torque's qsub marks an interactive job not rerunnable, and its
         * server refuses to requeue one (pbs_rerunjob: "job is not
         * rerunnable"), so Maui's REQUEUE preemption of it fails: it runs
         * on. Requeued, it would start again for a qsub that is gone. */
        dlog(d->log, 2, "job %s not preempted: an interactive job (qsub -I) is not rerunnable",
             j->name);
        return -1;
    }
    return how == PREEMPT_SUSPEND ? preempt_suspend(d, dj, now) : preempt_requeue(d, dj, now);
}

int dpreempt_rm_resume(void *ctx, struct job *j, long now)
{
    struct dmn *d = ctx;
    struct djob *dj = djob_of(d, j);
    char id[32], key[48];
    struct err e;
    if (!dj || !dj->preempted)
        return 0;
    snprintf(id, sizeof id, "%ld", dj->rec.id);
    if (d->rm.ops->resume(d->rm.ctx, id, now, &e) < 0) {
        /* Ended while suspended (djobs_poll records it), or worse: said. */
        dlog(d->log, 0, "job %s not resumed: %s", id, e.msg);
        return -1;
    }
    dj->preempted = 0;
    dj->rec.state = SJ_RUNNING;
    dj->j->flags &= ~(unsigned)JOB_SUSPENDED;
    djrec_save(d, dj);
    preempt_key(dj, key, sizeof key);
    store_kv_set(d->st, key, NULL, NULL);
    store_event(d->st, now, dj->rec.id, "resume", "its nodes are free again", NULL);
    dlog(d->log, 1, "job %s resumed after preemption: its nodes are free again", id);
    return 0;
}

void dpreempt_ended(struct dmn *d, struct djob *dj)
{
    char key[48];
    if (!dj->preempted)
        return;
    preempt_key(dj, key, sizeof key);
    store_kv_set(d->st, key, NULL, NULL);
    dj->preempted = 0;
}

/* The old run has ended: its spool directory goes (nothing of it is
 * recorded: the job was queued again when it was preempted). */
static void drop_old_run(struct dmn *d, struct djob *dj, const struct rm_status *st)
{
    char id[32];
    snprintf(id, sizeof id, "%ld", dj->rec.id);
    d->rm.ops->forget(d->rm.ctx, id);
    dj->draining = 0;
    if (st->state == RM_ENDED)
        dlog(d->log, 1, "job %s: its preempted run ended (exit %d %s)", id, st->exit_code,
             st->reason);
}

void dpreempt_drain(struct dmn *d, struct djob *dj, long now)
{
    struct rm_status st;
    if (rm_state(d, dj, now, &st) == 0 && !run_going(&st))
        drop_old_run(d, dj, &st);
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}

int dpreempt_clear_old_run(struct dmn *d, struct djob *dj, long now)
{
    char id[32];
    struct rm_status st;
    struct err e;
    snprintf(id, sizeof id, "%ld", dj->rec.id);
    if (rm_state(d, dj, now, &st) < 0)
        return -1;
    if (st.state == RM_UNKNOWN) { /* the usual case: no spool directory */
        dj->draining = 0;
        return 0;
    }
    if (run_going(&st) && !dj->draining) {
        /* Requeued, and the daemon died before it could end the run. */
        dlog(d->log, 0,
             "job %s: an earlier run is still going (preempted before a restart): "
             "ending it",
             id);
        if (d->rm.ops->requeue(d->rm.ctx, id, now, &e) < 0)
            dlog(d->log, 0, "job %s: %s", id, e.msg);
        dj->draining = 1;
    }
    long wait_ms = dj->drain_waited ? 0 : DRAIN_WAIT_MS;
    for (long waited = 0; run_going(&st) && waited < wait_ms; waited += DRAIN_STEP_MS) {
        sleep_ms(DRAIN_STEP_MS);
        if (rm_state(d, dj, now, &st) < 0)
            return -1;
    }
    if (run_going(&st)) {
        if (!dj->drain_waited)
            dlog(d->log, 0,
                 "job %s cannot start yet: its preempted run has not ended (tried again at "
                 "each iteration)",
                 id);
        dj->drain_waited = 1;
        return SCHED_RM_LATER;
    }
    dj->drain_waited = 0;
    drop_old_run(d, dj, &st);
    return 0;
}

int dpreempt_restore(struct dmn *d, struct djob *dj, long now)
{
    char id[32], key[48], v[16];
    struct err e;
    preempt_key(dj, key, sizeof key);
    if (store_kv_get(d->st, key, v, sizeof v, NULL) != 1)
        return 0;
    snprintf(id, sizeof id, "%ld", dj->rec.id);
    int tx = store_begin(d->st, NULL) == 0;
    dj->rec.state = SJ_IDLE;
    dj->rec.start = 0;
    free(dj->rec.hosts);
    dj->rec.hosts = NULL;
    dj->j->flags &= ~(unsigned)JOB_SUSPENDED;
    djrec_save(d, dj);
    store_kv_set(d->st, key, NULL, NULL);
    store_event(d->st, now, dj->rec.id, "requeue", "suspended by preemption at a restart", NULL);
    if (tx && store_commit(d->st, &e) < 0)
        dlog(d->log, 0, "error: job %s: %s", id, e.msg);
    /* Ended after the record is stored: a crash now leaves a queued job
     * whose run dpreempt_clear_old_run ends before it starts again. */
    d->rm.ops->requeue(d->rm.ctx, id, now, &e); /* fails when it has ended already */
    dj->draining = 1;
    dlog(d->log, 0,
         "job %s was suspended by preemption; the engine's record of that is not "
         "kept across a restart or reload: queued again",
         id);
    return 1;
}
