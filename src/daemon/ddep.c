/*
 * ddep — job dependencies in the daemon (qsub -W depend=): checked before a
 * job is recorded, given to the engine when the job is queued (at
 * submission and again at every restart, from the record's depend text),
 * and the jobs the engine removed because a dependency can never be met
 * recorded as removed, with the reason as their message (Torque deletes
 * such a job); qalter -W depend= replacing a queued job's. A parent the
 * engine no longer holds (ended before the history a restart loaded) is
 * judged by its record in the store (ddep_lookup).
 */
#include "daemon/daemon_int.h"

#include <stdlib.h>
#include <time.h>

#include "util/mem.h"

int ddep_lookup(void *ctx, const char *name, struct dep_past *p)
{
    struct dmn *d = ctx;
    char *end;
    long id = strtol(name, &end, 10);
    struct store_job r;
    struct err e;
    if (*end || end == name || id <= 0 || store_job_get(d->st, id, &r, &e) != 1)
        return 0;
    int ended = r.state == SJ_COMPLETED || r.state == SJ_REMOVED;
    *p = (struct dep_past){
        .removed = r.state == SJ_REMOVED, .start = r.start, .exit_status = r.exit_status};
    store_job_free(&r);
    return ended;
}

int ddep_check(struct dmn *d, const char *depend, struct err *err)
{
    struct err e;
    if (depend && sched_deps_check(d->s, depend, &e) < 0)
        return err_set(err, "invalid job dependency: %s", e.msg);
    return 0;
}

int ddep_alter(struct dmn *d, struct djob *dj, const char *depend, struct err *err)
{
    if (sched_replace_deps(d->s, dj->j, depend, time(NULL), err) < 0)
        return -1;
    free(dj->rec.depend);
    dj->rec.depend = xstrdup(depend);
    return 0;
}

void ddep_apply(struct dmn *d, struct djob *dj)
{
    struct err e;
    if (!dj->rec.depend || dj->rec.state != SJ_IDLE)
        return;
    if (sched_set_deps(d->s, dj->j, dj->rec.depend, &e) == 0)
        return;
    /* A restart found it unsatisfiable (its parent ended badly, or is no
     * longer in the history): removed at the next iteration, as the engine
     * removes one whose parent ends badly while it waits. */
    sched_job_note(d->s, dj->j, e.msg);
    sched_cancel(d->s, dj->j, dj->rec.submit, NULL);
    d->ddep_dirty = 1;
}

/* Only the engine's dependency removals and ddep_apply's make such a job:
 * without either since the last look, there is nothing to record and no
 * scan of every job. */
void ddep_sync(struct dmn *d, long now)
{
    size_t removed = sched_deps_removed(d->s);
    if (!d->ddep_dirty && removed == d->ddep_seen)
        return;
    d->ddep_seen = removed;
    d->ddep_dirty = 0;
    for (size_t i = 0; i < d->njobs; i++) {
        struct djob *dj = d->jobs[i];
        if (!dj || !dj->j || dj->rec.state != SJ_IDLE || dj->j->state != JOB_REMOVED ||
            !dj->rec.depend)
            continue;
        dj->rec.state = SJ_REMOVED;
        dj->rec.end = now;
        free(dj->rec.message);
        dj->rec.message = dj->j->message ? xstrdup(dj->j->message) : NULL;
        djrec_save(d, dj);
        store_event(d->st, now, dj->rec.id, "dependency", dj->rec.message, NULL);
        dlog(d->log, 1, "job %ld removed: %s", dj->rec.id,
             dj->rec.message ? dj->rec.message : "dependency never satisfied");
    }
}
