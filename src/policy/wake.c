/*
 * wake — when the engine's own state next changes in a way that can let a
 * waiting job start, with nothing happening outside it (no submission, no
 * job end, no command). Drivers wake the scheduler then, and a replay ends
 * when neither the outside world nor this has anything left.
 *
 * Standing reservations are left out: they recur for ever, so a driver that
 * counted them would never run out of events (sched_next_event with
 * `standing` gives them; the simulator bounds how long it follows them).
 */
#include "core/sched_int.h"
#include "policy/avail.h"
#include "policy/fs.h"

/* Whether closing fairshare windows can still change anything: some window
 * of the ledger holds usage (each close shifts usage towards oblivion; once
 * FSDEPTH windows are empty, closing more changes nothing). */
static int fs_can_change(const struct sched *s)
{
    const struct fs *f = sched_fs(s);
    if (fs_params(f)->policy == FS_NONE)
        return 0;
    for (int i = 0; i <= fs_params(f)->depth; i++)
        if (fs_total_window(f, i) > 0)
            return 1;
    return 0;
}

/* Where the calendar the plan sees runs out: the earliest, over the
 * standing reservations, of the end of the last instance made (instances
 * are made DEPTH periods ahead and roll as time passes). AVAIL_NEVER when
 * there are none. */
static long standing_horizon(const struct sched *s)
{
    long horizon = AVAIL_NEVER;
    for (size_t d = 0; d < s->nsrdefs; d++) {
        long last = -1;
        for (size_t i = 0; i < s->nresvs; i++) {
            const struct resv *r = s->resvs[i];
            if (r->kind == RESV_STANDING && r->sr == (long)d && r->end > last)
                last = r->end;
        }
        if (last >= 0 && last < horizon)
            horizon = last;
    }
    return horizon;
}

/* Whether t is where a standing reservation's instance begins or ends. */
static int standing_edge(const struct sched *s, long t)
{
    for (size_t i = 0; i < s->nresvs; i++) {
        const struct resv *r = s->resvs[i];
        if (r->kind == RESV_STANDING && (r->start == t || r->end == t))
            return 1;
    }
    return 0;
}

/* The earliest priority-reservation start after now. Only with
 * reservations: on a plain cluster a reserved start is a running job's
 * planned end, and a job's end is already an event (the textbook
 * schedules iterate at events only); a reservation's window or TIMELIMIT
 * makes starts fall between events. Standing reservations' instances are
 * left to the driver, which follows their edges (sched_next_event) as long
 * as they can still matter, and each edge re-plans: neither a start on an
 * instance's edge nor one at or past the standing horizon counts. The plan
 * cannot see instances not yet made, so a job no instance admits is
 * reserved just past the last one, and once the next is made, past that one
 * (or, its tasks not fitting the nodes' shapes, at each next edge), for
 * ever: the replay ran its 100,000 idle iterations, a wake-up a day. */
static long next_reserved_start(const struct sched *s, long now)
{
    long next = AVAIL_NEVER;
    if (!s->nresvs)
        return next;
    long horizon = standing_horizon(s);
    for (int i = 0; i < s->nresv; i++) {
        const struct job *j = s->resv[i];
        if (j->state == JOB_IDLE && j->resv_start > now && j->resv_start < next &&
            j->resv_start < horizon && !standing_edge(s, j->resv_start))
            next = j->resv_start;
    }
    return next;
}

int wake_reserved_due(const struct sched *s, long now)
{
    if (!s->nresvs)
        return 0;
    for (int i = 0; i < s->nresv; i++) {
        const struct job *j = s->resv[i];
        if (j->state == JOB_IDLE && j->resv_start > s->last_now && j->resv_start <= now)
            return 1;
    }
    return 0;
}

long sched_next_wakeup(const struct sched *s, long now)
{
    long next = sched_next_event(s, now, 0); /* administrative reservations, chunking */
    if (s->next_undefer > now && s->next_undefer < next)
        next = s->next_undefer; /* a deferral or a requested start date ends */
    long r = next_reserved_start(s, now);
    if (r < next)
        next = r;
    if (fs_can_change(s)) {
        const struct fs *f = sched_fs(s);
        long w = fs_window_start(f) + fs_params(f)->interval;
        if (w <= now)
            w = now + 1; /* windows not yet closed: the next instant closes them */
        if (w < next)
            next = w;
    }
    return next;
}
