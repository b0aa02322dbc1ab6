/*
 * wake — when the engine's own state next changes in a way that can let a
 * waiting job start, with nothing happening outside it (no submission, no
 * job end, no command). Drivers wake the scheduler then, and a replay ends
 * when neither the outside world nor this has anything left. The simulator
 * and the daemon follow the same rule (docs/simulation.md, "Time is an
 * event"): they iterate at events and at these instants, so a workload run
 * through either gets the same starts.
 *
 * What time alone changes, and when:
 *   - at once, after an iteration whose own starts left work for another
 *     pass at the same instant (iter.c: a job the walks after them promoted
 *     past an idle limit, BACKFILLDEPTH cut short, BESTFIT/GREEDY/PREEMPT's
 *     single choice among candidates); Maui does it at its next iteration;
 *   - when running jobs' remaining PS and WC have run down far enough for a
 *     refused job (the last walk's lift_at, exact to the second);
 *   - a reservation's start or end, a trigger, a deferral or requested start
 *     date ending, a chunking hold ending, a reserved start falling between
 *     job ends, a fairshare window closing while some window holds usage
 *     (or a running job adds to the newest), a
 *     job passing RESERVATIONTHRESHOLDTYPE QUEUETIME or XFACTOR, a running
 *     job passing its walltime while a job waits for a fairshare cap;
 *   - a priority order that moves with time (any factor but queue time
 *     weighted): Maui re-sorts at every poll, and the engine asks for an
 *     iteration at every multiple of RMPOLLINTERVAL while a crossing there
 *     could change what starts or what the walks decide (sched_next_poll:
 *     apart, since these never run out while jobs wait); under limits, the
 *     poll after jobs of a priority of queue time alone tie again at its top
 *     out of their order below it (a cap, or the clip), and the poll at
 *     which jobs whose queue time is stopped reach that top before jobs
 *     submitted after them.
 *
 * Standing reservations are left out: they recur for ever, so a driver that
 * counted them would never run out of events (sched_next_event with
 * `standing` gives them; the simulator bounds how long it follows them).
 */
#include "policy/wake.h"

#include <limits.h>
#include <math.h>

#include "core/sched_int.h"
#include "policy/avail.h"
#include "policy/fs.h"
#include "policy/limits.h"
#include "policy/queue.h"
#include "policy/resv.h"

/* Whether closing fairshare windows can still change anything: some window
 * of the ledger holds usage (each close shifts usage towards oblivion; once
 * FSDEPTH windows are empty, closing more changes nothing), or running jobs
 * are adding to the newest: on an empty ledger the jobs an iteration starts
 * hold none yet at its instant, and a close before the next event decays
 * what they used by then but not what they still have to do, which moves
 * the shares a relative cap compares. */
static int fs_can_change(const struct sched *s)
{
    const struct fs *f = sched_fs(s);
    if (fs_params(f)->policy == FS_NONE)
        return 0;
    for (size_t i = 0; i < s->pl.running.n; i++)
        if (((const struct job *)heap_at(&s->pl.running, i))->fs_rate > 0)
            return 1;
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
    for (size_t d = 0; d < s->rs.nsrdefs; d++) {
        long last = -1;
        for (size_t i = 0; i < s->rs.nresvs; i++) {
            const struct resv *r = s->rs.resvs[i];
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
    for (size_t i = 0; i < s->rs.nresvs; i++) {
        const struct resv *r = s->rs.resvs[i];
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
    if (!s->rs.nresvs)
        return next;
    long horizon = standing_horizon(s);
    for (int i = 0; i < s->pl.nresv; i++) {
        const struct job *j = s->pl.resv[i];
        if (j->state == JOB_IDLE && j->resv_start > now && j->resv_start < next &&
            j->resv_start < horizon && !standing_edge(s, j->resv_start))
            next = j->resv_start;
    }
    return next;
}

int wake_reserved_due(const struct sched *s, long now)
{
    if (!s->rs.nresvs)
        return 0;
    for (int i = 0; i < s->pl.nresv; i++) {
        const struct job *j = s->pl.resv[i];
        if (j->state == JOB_IDLE && j->resv_start > s->pl.last_now && j->resv_start <= now)
            return 1;
    }
    return 0;
}

/* Whether some reservation lets its owners preempt (OWNERPREEMPT). */
static int owner_preempts(const struct sched *s)
{
    for (size_t i = 0; i < s->rs.nresvs; i++)
        if (s->rs.resvs[i]->flags & SRCFG_OWNERPREEMPT)
            return 1;
    return 0;
}

/*
 * Whether the order of the eligibility walks can change what they admit
 * under an idle limit. After a whole-queue walk, only when the idle limits
 * cannot hold at once every job it may admit (policy/elig.c's idle_free);
 * else (eset's walks) when two waiting jobs are there that a walk may
 * admit. A job refused for ever (elig_for_ever: its request alone over a
 * limit) is refused wherever it stands and adds no idle usage (issue
 * 31: such jobs, which wait for ever, made every RMPOLLINTERVAL a poll).
 */
static int walk_order_matters(const struct sched *s)
{
    if (!s->el.eset)
        return !s->el.idle_free;
    int n = 0;
    for (size_t i = s->q.qhead; i < s->q.qlen; i++) {
        const struct job *j = s->q.queue[i];
        if (j && !elig_for_ever(s, j) && ++n > 1)
            return 1;
    }
    return 0;
}

/* Whether iter.c's hard pass (the second backfill pass, over jobs only
 * soft limits hold back) may start j, which fits the free processors, once
 * a crossing moves the reservations it must not delay. */
static int hard_pass_may(const struct sched *s, const struct job *j)
{
    return (j->flags & JOB_HARDOK) && limits_any(s->lim.limits) && s->pol.backfill != BF_NONE;
}

/*
 * Whether a priority crossing between events could change anything an
 * iteration decides: what the walks admit under an idle limit (the walk's
 * order picks whom MAXIJOB admits, and so whose queue time stops), a kept
 * reservation (HIGHEST), a preemption, or what starts. Between events no
 * processor comes free, so a job can start only where the last plan found
 * room for it that a higher job's reservation kept (WAIT_DELAYS), or that
 * holds a later reservation of its own behind a higher one (WAIT_RESERVED,
 * RESERVATIONDEPTH above 1: reserved first, it would start now), or that
 * only soft limits hold back (the hard pass may start it where no
 * reservation is delayed): a crossing that moves the reservation may free it; or a job a negative
 * priority keeps out (REJECTNEGPRIOJOBS) whose priority may rise above 0.
 * Under BACKFILLPOLICY NONE the scan stops at the first job that does not
 * fit, so any job the free processors could hold may be the one a crossing
 * puts first.
 */
static int crossing_matters(const struct sched *s)
{
    if ((limits_any(s->lim.limits) && limits_idle_any(s->lim.limits) && walk_order_matters(s)) ||
        s->pol.respolicy == RP_HIGHEST ||
        (s->rm.preempt && (s->pol.backfill == BF_PREEMPT || owner_preempts(s))))
        return 1;
    long long free_now = plan_free_now((struct sched *)s, NULL);
    if (free_now <= 0)
        return 0;
    int strict = s->pol.backfill == BF_NONE;
    for (size_t i = s->q.qhead; i < s->q.qlen; i++) {
        const struct job *j = s->q.queue[i];
        if (!j || job_procs(j) > free_now)
            continue;
        if (j->flags & JOB_BLOCKED) {
            if (hard_pass_may(s, j))
                return 1;
            continue;
        }
        unsigned long gen;
        enum job_wait w = sched_wait_of(s, j, &gen);
        if (strict ||
            ((w == WAIT_DELAYS || w == WAIT_RESERVED || w == WAIT_REJECTED) &&
             gen == s->pl.plan_gen) ||
            (w == WAIT_POLICY && gen == s->pl.plan_gen && hard_pass_may(s, j)))
            return 1;
    }
    return 0;
}

/*
 * A job refused for a fairshare cap (FSTARGET=n^ or n%) may be admitted by
 * time alone once a running job passes its walltime (JOBMAXOVERRUN): it
 * keeps adding usage it no longer counts as committed work, so the total
 * grows and a refused credential's share may fall. While every running job
 * is within its walltime, usage plus committed work stays put between
 * events (window boundaries are wake-ups). cap_overrun: when the next
 * running job passes its walltime (a wake-up), or now if one has (polls
 * from then on); AVAIL_NEVER when no job is refused for a cap.
 */
static long cap_overrun(const struct sched *s, long now)
{
    long next = AVAIL_NEVER;
    if (!s->el.capped)
        return next;
    for (size_t i = 0; i < s->pl.running.n; i++) {
        const struct job *j = heap_at(&s->pl.running, i);
        long w = j->start + j->walltime;
        if (w <= now)
            return now;
        if (w < next)
            next = w;
    }
    return next;
}

/*
 * Whether jobs tied at the priority floor (1) part in another order than
 * their tie's. Tied, they go by submission; the first to rise above the
 * floor is the one whose queue time started first, and the limits move
 * queue-time starts (JOBPRIOACCRUALPOLICY: a job an idle limit refused
 * counts from when it was admitted), so a job submitted earlier may count
 * from later and fall behind a later one at that instant, between events
 * (the floor is the only flat part of the order that ties break out of:
 * queue time is the only factor weighted). The queue is in priority order,
 * so the floor's jobs are its tail, read back from its end.
 */
static int floor_ties_part(const struct sched *s)
{
    const struct prio_params *p = &s->pol.prio;
    if (p->reject_neg || p->enable_neg ||
        (double)p->cweight[PRIO_SERV] * (double)p->fweight[PF_QUEUETIME] <= 0)
        return 0;          /* no floor, or priorities that never rise above it */
    long least = LONG_MAX; /* the earliest queue-time start of the later-submitted ones */
    for (size_t i = s->q.qlen; i > s->q.qhead; i--) {
        const struct job *j = s->q.queue[i - 1];
        if (!j || (j->flags & JOB_BLOCKED))
            continue;
        if (j->priority > 1.0)
            return 0;
        if (j->qtime_start > least)
            return 1;
        least = j->qtime_start;
    }
    return 0;
}

/* Whether x goes before y when their priorities tie (prio_cmp's order). */
static int tie_before(const struct job *x, const struct job *y)
{
    return x->submit != y->submit ? x->submit < y->submit : x->order < y->order;
}

/* Seconds of queue time at which a priority of queue time alone (weighed
 * by w, components and factor) reaches its top: QUEUETIMECAP, SERVICECAP,
 * or the clip (1e9); AVAIL_NEVER when past any trace's time. */
static long top_reach(const struct prio_params *p, double w)
{
    double minutes = PRIO_CLIP / w;
    if (p->fcap[PF_QUEUETIME] > 0 && p->fcap[PF_QUEUETIME] < minutes)
        minutes = p->fcap[PF_QUEUETIME];
    double serv = p->ccap[PRIO_SERV] / (double)p->fweight[PF_QUEUETIME]; /* SERVICECAP's */
    if (p->ccap[PRIO_SERV] > 0 && serv < minutes)
        minutes = serv;
    double secs = ceil(minutes * 60);
    return secs < (double)(AVAIL_NEVER / 4) ? (long)secs : AVAIL_NEVER;
}

long wake_top_need(const struct sched_policy *pol)
{
    const struct prio_params *p = &pol->prio;
    double w = (double)p->cweight[PRIO_SERV] * (double)p->fweight[PF_QUEUETIME];
    if (w <= 0)
        return AVAIL_NEVER;
    long reach = top_reach(p, w);
    if (reach >= AVAIL_NEVER)
        return AVAIL_NEVER;
    return reach > 1 ? reach - 1 : 1; /* a second early, as top_ties_join */
}

long wake_stopped_need(const struct sched_policy *pol)
{
    long need = wake_top_need(pol);
    return need >= AVAIL_NEVER || (pol->poll > 0 && need > pol->poll) ? 0 : need;
}

/*
 * When jobs tie again at the top of a priority of queue time alone (a cap,
 * or the clip), out of the order they had below it; AVAIL_NEVER when none
 * will. Below the top such a priority orders jobs by queue-time start,
 * which the limits move (JOBPRIOACCRUALPOLICY, see floor_ties_part); at the
 * top they tie and go by submission, so a job submitted before one ahead of
 * it goes ahead once it gets there too, between events: at its queue-time
 * start plus top_reach (answered a second early for the rounding; a poll
 * that comes early asks again).
 */
static long top_ties_join(const struct sched *s, long now)
{
    const struct prio_params *p = &s->pol.prio;
    double w = (double)p->cweight[PRIO_SERV] * (double)p->fweight[PF_QUEUETIME];
    if (!sched_order_is_static(s) || !elig_active(s) || p->accrual == ACCRUE_ALWAYS || w <= 0)
        return AVAIL_NEVER;
    long reach = top_reach(p, w);
    if (reach >= AVAIL_NEVER)
        return AVAIL_NEVER;
    const struct job *last = NULL; /* the latest submitted of the jobs seen */
    long first = AVAIL_NEVER;      /* the earliest queue-time start of the jobs to move */
    for (size_t i = s->q.qhead; i < s->q.qlen; i++) {
        const struct job *j = s->q.queue[i];
        if (!j || (j->flags & JOB_BLOCKED))
            continue;
        if (last && tie_before(j, last)) {
            if (now - j->qtime_start < reach && j->qtime_start < first)
                first = j->qtime_start;
        } else {
            last = j;
        }
    }
    return first < AVAIL_NEVER ? first + reach - 1 : AVAIL_NEVER;
}

/*
 * When jobs whose queue time is stopped (JOBPRIOACCRUALPOLICY: they count it
 * from the last walk or RMPOLLINTERVAL instant) next reach the top of a
 * priority of queue time alone, where one submitted before a job whose
 * queue time accrues goes before it (the tie's order): a poll then walks
 * them so (issue 31: the replay waited for the next event, where they are
 * below the top again). Only where the top is a poll interval of queue
 * time away or less (eset_stopped_top). AVAIL_NEVER when none will.
 */
static __attribute__((noinline)) long stopped_tops(const struct sched *s, long now)
{
    long t = eset_stopped_top(s, now);
    if (t >= AVAIL_NEVER || !elig_active(s) || s->pol.prio.accrual == ACCRUE_ALWAYS)
        return AVAIL_NEVER; /* no top in reach, or no queue time stops */
    if (s->el.eset && eset_stopped_before(s))
        return t;
    const struct job *first = NULL, *latest = NULL; /* the stopped one, the accruing one */
    for (size_t i = s->q.qhead; i < s->q.qlen; i++) {
        const struct job *j = s->q.queue[i];
        if (!j)
            continue;
        if (j->flags & JOB_QSTOP) {
            if (!first || tie_before(j, first))
                first = j;
        } else if (!latest || tie_before(latest, j)) {
            latest = j;
        }
    }
    return first && latest && tie_before(first, latest) ? t : AVAIL_NEVER;
}

/* Whether the order of the jobs the scan looks at moves with time: a factor
 * other than queue time is weighted, or one of them has its queue time
 * stopped (JOBPRIOACCRUALPOLICY: admitted by the soft walk, refused by the
 * hard one), which counts from the last walk or poll instant, so it falls
 * behind jobs submitted since at every RMPOLLINTERVAL instant, or jobs tied
 * at the priority floor part out of their tie's order (floor_ties_part), or
 * the walks after the last iteration's starts restarted a job's queue time
 * so that the next poll's sort ranks it elsewhere than the queue's order
 * (elig.c's rank_holds: the order those walks and the wake-ups read is not
 * the next poll's). */
static int order_moves(const struct sched *s)
{
    if (!sched_order_is_static(s))
        return 1;
    if (!elig_active(s) || s->pol.prio.accrual == ACCRUE_ALWAYS)
        return 0;
    if (s->el.order_stale)
        return 1;
    for (size_t i = s->q.qhead; i < s->q.qlen; i++) {
        const struct job *j = s->q.queue[i];
        if (j && (j->flags & JOB_QSTOP) && !(j->flags & JOB_BLOCKED))
            return 1;
    }
    return floor_ties_part(s);
}

long sched_next_poll(const struct sched *s, long now)
{
    long p = s->pol.poll;
    if (p <= 0 || !sched_nidle(s))
        return AVAIL_NEVER;
    long from = now + 1; /* the first instant a poll may come */
    if (cap_overrun(s, now) > now) {
        if (order_moves(s)) {
            if (!crossing_matters(s))
                return AVAIL_NEVER;
        } else {
            long t = top_ties_join(s, now); /* a move at one instant: the poll after it */
            if (s->stopped_need) {          /* out of line: sched_next_poll's frame stays small */
                long u = stopped_tops(s, now);
                if (u < t)
                    t = u;
            }
            if (t >= AVAIL_NEVER || !crossing_matters(s))
                return AVAIL_NEVER;
            if (t > from)
                from = t;
        }
    }
    long r = ((from % p) + p) % p;
    return r ? from - r + p : from;
}

/* The earliest instant a waiting job passes RESERVATIONTHRESHOLDTYPE
 * QUEUETIME or XFACTOR (iter.c's past_threshold): from then on it may be
 * given a reservation. */
static long next_threshold(const struct sched *s, long now)
{
    long v = s->pol.resthreshvalue, next = AVAIL_NEVER;
    if (s->pol.resthresh != RT_QUEUETIME && s->pol.resthresh != RT_XFACTOR)
        return next;
    for (size_t i = s->q.qhead; i < s->q.qlen; i++) {
        const struct job *j = s->q.queue[i];
        if (!j || (j->flags & (JOB_BLOCKED | JOB_RESERVED)))
            continue;
        long q0 = elig_qtime(s, j, now);
        long w = j->walltime > 0 ? j->walltime : 1;
        if (v < 0 || v >= AVAIL_NEVER / 4 ||
            (s->pol.resthresh == RT_XFACTOR && v > AVAIL_NEVER / 4 / w))
            continue; /* past it already, or never in any trace's time */
        /* QUEUETIME: now - q0 > v; XFACTOR: (now - q0 + w) / w > v in whole
         * numbers, i.e. now - q0 >= v * w. */
        long at = s->pol.resthresh == RT_QUEUETIME ? q0 + v + 1 : q0 + v * w;
        if (at > now && at < next)
            next = at;
    }
    return next;
}

long sched_next_wakeup(const struct sched *s, long now)
{
    if (s->el.again_at == now && now == s->pl.last_now)
        return now; /* this instant's starts changed what its walks decided */
    long next = sched_next_event(s, now, 0); /* administrative reservations, chunking */
    if (s->el.again_at > now && s->el.again_at < next)
        next = s->el.again_at; /* ... and preempted: at the next poll */
    if (s->el.lift_at > now && s->el.lift_at < next)
        next = s->el.lift_at; /* running jobs' PS or WC has run down for a refused job */
    long c = cap_overrun(s, now);
    if (c > now && c < next)
        next = c; /* a running job passes its walltime: its usage runs on uncommitted */
    long t = next_threshold(s, now);
    if (t < next)
        next = t;
    if (s->el.next_undefer > now && s->el.next_undefer < next)
        next = s->el.next_undefer; /* a deferral or a requested start date ends */
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
