/*
 * iter — one scheduling iteration (Maui's MSchedProcessJobs, for the parts
 * that exist so far).
 *
 * Steps, each a function below:
 *   1. settle_time      forget the past; extend jobs running past their walltime
 *   2. full_pass or     drop last iteration's priority reservations, order the
 *      scan of new jobs queue, then scan it (step 3) from the top — or, when
 *                       nothing but new submissions happened since the last plan,
 *                       scan only the new jobs (see "Incremental plans")
 *   3. scan             in priority order: start every job that fits now without
 *                       delaying a reservation; give the first RESERVATIONDEPTH
 *                       jobs that do not fit a reservation at their earliest start;
 *                       with BACKFILLPOLICY NONE stop at the first job that does
 *                       not fit (and make no reservation, as Maui 3.3.1).
 *
 * The test "fits now without delaying a reservation" is one question to the
 * availability profile, which holds running jobs until their planned end and
 * the reservations made so far in this iteration: are `procs` processors free
 * over [now, now + walltime)? With RESERVATIONDEPTH 1 this is textbook EASY:
 * before the shadow time a candidate needs only free processors, past it only
 * the extra ones. Maui 3.3.1 starts the same jobs in two phases (priority
 * starts around the reservations, then FIRSTFIT over backfill windows from
 * the shortest window to the longest); moku scans once, in priority order,
 * which is the order textbook EASY prescribes (docs/scheduling.md).
 *
 * Incremental plans. A plan made at time t stays exact at t' > t while no job
 * ended, no node changed and only new jobs arrived at the tail of the queue:
 * free processors at t' equal those at t (no running job ended, and a
 * reservation never starts before some running job's planned end), so every
 * job that could not start at t still cannot, and the reservations would be
 * placed where they are. Only the new jobs need a look. This is what makes a
 * replay grow linearly with the trace instead of with trace x queue length.
 */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/sched_int.h"
#include "policy/avail.h"
#include "policy/iter.h"
#include "policy/limits.h"
#include "policy/prio.h"
#include "policy/qgroup.h"
#include "policy/qorder.h"
#include "util/mem.h"
#include "util/sort.h"

/* Step 1. */
static void settle_time(struct sched *s, long now)
{
    plan_advance(s, now);
    struct job *j;
    while ((j = heap_top(&s->pl.running)) && j->planned_end <= now) {
        /* Still running at its planned end: it is overrunning. Plan on the
         * kill time; with unlimited overrun, on "any moment now". */
        long until = sched_kill_time(s, j);
        if (until <= now || until >= AVAIL_NEVER)
            until = now + 1;
        plan_run(s, j, now, until);
        j->planned_end = until;
        heap_rekey(&s->pl.running, j->heap_pos, until, 0);
        s->pl.replan = 1;
    }
}

/*
 * Kept holds. A full pass drops the reservation and nearly always places
 * it again where it was (HPC2N under EASY: 44,532 of 79,930), taking it out
 * of the profile and putting it back for nothing. A lone reservation whose
 * job cannot start now (fewer processors free than it needs, which its own
 * later hold does not change) stays in the profile instead, dropped in name
 * only (s->pl.kept), while the scan comes to its job first: its earliest
 * start is asked as if it were released (plan_earliest_kept), and when that
 * is where it is and holding it there would take the same, it is held
 * again as it stands. Anything else first releases it for real
 * (release_kept): the scan reaching another job, a queue still being
 * placed, the job's turn ending otherwise, the end of the scan. Every
 * question the profile answers in between is then answered as after the
 * release, and the profile is the same point for point, so the plan is.
 */
static void release_kept(struct sched *s)
{
    struct job *j = s->pl.kept;
    if (!j)
        return;
    s->pl.kept = NULL;
    j->resv_start = s->pl.kept_t;
    plan_unhold(s, j);
}

/* Whether a full pass may keep j's reservation (see "Kept holds"). */
static int may_keep(struct sched *s, const struct job *j)
{
    return s->pl.nresv == 1 && s->pol.backfill == BF_FIRSTFIT && s->pol.respolicy != RP_HIGHEST &&
           !s->pl.completing && s->rs.regions_gen == s->rs.resv_gen &&
           plan_kept_short(s, j, j->resv_start);
}

/* Drop the last plan's priority reservations (a full pass's, `keep`, may
 * keep one in the profile: above). Under RESERVATIONPOLICY HIGHEST a job
 * that held one keeps the right to one (JOB_HADRESV): it is placed again
 * first, at its earliest (keep_reservations). */
static void drop_reservations(struct sched *s, int keep)
{
    if (!s->pl.nresv)
        return; /* book counts a group only with a reservation: all 0 already */
    for (int k = 0; k < s->pl.nresv; k++) {
        struct job *j = s->pl.resv[k];
        if (j->state == JOB_IDLE && keep && may_keep(s, j)) {
            s->pl.kept = j;
            s->pl.kept_t = j->resv_start;
        } else if (j->state == JOB_IDLE) {
            plan_unhold(s, j);
            if (s->pol.respolicy == RP_HIGHEST)
                j->flags |= JOB_HADRESV;
        }
        j->resv_start = -1;
        j->flags &= ~(unsigned)JOB_RESERVED;
    }
    s->pl.nresv = 0;
    memset(s->pl.resgroup_n, 0, sizeof s->pl.resgroup_n);
}

/*
 * Close the holes that started jobs left in the queue — but only once they
 * are a thirty-second of the waiting jobs and at least 256, so that a pass
 * costs what it scans and not the whole queue (under strict FCFS a pass may
 * look at one job): closing them moves pointers only, about 32 for each
 * start, where a scan of a long queue steps over every hole at every pass
 * (a burst of 10,000 jobs stepped over 12.7 million holes, a quarter of its
 * steps, when they waited to be half of the queue). Under a static order
 * (no kept order for qorder to lose: qorder_drop_tail) at least 32: a short
 * queue's pass stepped over up to 255 holes (HPC2N EASY: 2 million steps,
 * half of the quick walk's). Leading holes are skipped for good by moving
 * qhead.
 */
static void compact_queue(struct sched *s)
{
    while (s->q.qhead < s->q.qlen && !s->q.queue[s->q.qhead])
        s->q.qhead++;
    size_t holes = s->q.qlen - s->q.qidle; /* leading ones too: the array must shrink */
    if (holes * 32 >= s->q.qidle && holes >= (s->order_static ? 32 : 256)) {
        qorder_drop_tail(s); /* its entries move */
        sched_compact_queue(s);
    }
}

static void order_queue(struct sched *s, long now)
{
    /* Throttling limits move queue-time starts (JOBPRIOACCRUALPOLICY), so
     * with limits the order is recomputed like any dynamic priority. */
    if (!qorder_usable(s) || s->el.eset)
        qorder_drop_tail(s); /* a pass that does not place the queue */
    if (s->order_static && !s->q.unsorted && !elig_active(s) && !s->q.loose)
        return;
    if (s->el.eset)
        return; /* eset keeps the queue in order (eset_settle, after the walks) */
    s->q.loose = 0;
    if (qorder_usable(s)) {
        qorder_start(s, now); /* placed as the scan reads it, compacted as split */
        s->q.unsorted = 0;
        return;
    }
    sched_compact_queue(s);
    struct prio_env env;
    struct prio_batch pb;
    sched_prio_env(s, &env);
    fsacct_batch_init(s, &pb, &env);
    for (size_t i = 0; i < s->q.qlen; i++) {
        s->q.queue[i]->priority = prio_batch_start(&pb, s->q.queue[i], now);
    }
    sort_ptrs((void **)s->q.queue, s->q.qlen, prio_cmp, &s->q.sortbuf); /* nearly sorted: cheap */
    s->q.unsorted = 0;
}

/*
 * An iteration where only time passed (a poll: nothing happened since the
 * last plan) under a priority order that moves with time: the plan is what
 * a full pass would make again unless the order moved where it matters.
 * With no job ended and no reservation edge, what is free from now on is
 * what was free at the last plan, so a job that did not fit then does not
 * now, and reservations land where they are. What can change the scan: the
 * order of the jobs up to the last one the plan reserved (or the first it
 * could not start), a job below that one rising above it, or a priority
 * crossing 0 under REJECTNEGPRIOJOBS; the order below it decided nothing (no
 * job there could start). Refreshes the priorities; whether the plan holds.
 */
/* j's priority now, refreshed; whether it moved where it matters: before
 * prev (the job it must stay below), or across 0 under REJECTNEGPRIOJOBS. */
static int moved(struct sched *s, struct prio_batch *pb, const struct job *prev, struct job *j,
                 long now)
{
    double p = prio_batch_start(pb, j, now);
    int m = prio_rejects(&s->pol.prio, p) != prio_rejects(&s->pol.prio, j->priority);
    j->priority = p;
    return m || (prev && prio_cmp(&prev, &j) > 0);
}

/* Whether a job of the loose tail (policy/qorder.h), all below `last`,
 * now sorts before it: a credential group is asked through g by its first
 * job, the one that sorts highest whatever the time; a job alone is
 * looked at (and *all_grouped cleared). No walk of the tail. */
static int loose_rises(struct sched *s, struct prio_batch *pb, struct qgroup_set *g,
                       const struct job *last, long now, int *all_grouped)
{
    for (size_t k = 0; k < qorder_nloose(s); k++) {
        size_t n;
        int grouped;
        struct job *const *v = qorder_loose_entry(s, k, &n, &grouped);
        if (grouped && qgroup_add(g, pb, v[0]))
            continue;
        *all_grouped = 0;
        for (size_t m = 0; m < n; m++)
            if (moved(s, pb, last, v[m], now))
                return 1;
    }
    return 0;
}

/*
 * Whether g still holds the old jobs below `last` as the last look at this
 * plan grouped them (g->kept), so that this look only adds the jobs after
 * them. Between two looks at one plan (no full pass: any job leaving the
 * queue, or a change to a job's priority terms, asks for one) only the
 * scan of new jobs changed the queue, from the entry the last look stopped
 * at; with every job grouped (the others are looked at one by one), the
 * loose tail's entries too. A loose tail must be the one the last look
 * grouped whole (it lies below `last` until a full pass, or
 * qorder_tighten puts it in order: then none is kept); the jobs after it
 * (submitted since the pass, unread) are then added from where the last
 * look stopped too.
 */
static int kept_holds(const struct sched *s, const struct qgroup_set *g, const struct job *last,
                      size_t to)
{
    const struct qgroup_kept *k = &g->kept;
    size_t loose_end = s->q.loose ? s->q.qloose_end : 0;
    return k->valid && last && k->last == last && k->plan_gen == s->pl.plan_gen &&
           k->loose_end == loose_end && k->to >= loose_end && !s->el.eset && k->to <= to &&
           k->from > s->q.qhead && s->q.queue[k->from - 1] == last;
}

static int may_defer_rest(const struct sched *s);

/* Whether the run of new jobs the last look at this plan skipped starts
 * after j, the job at queue entry i (g->chain), so that this look, in
 * the same state at j (deferred, below `last`, j fresh and computed),
 * skips it whole: the queue there is the same (qgroup.h). No loose tail
 * (its jobs are grouped, not skipped). */
static int chain_holds(const struct sched *s, const struct qgroup_set *g, const struct job *last,
                       const struct job *j, size_t i)
{
    const struct qgroup_chain *c = &g->chain;
    return c->j0 == j && c->at == i && c->plan_gen == s->pl.plan_gen && c->last == last &&
           !s->q.loose && c->end <= s->q.qlen && s->q.queue[c->end - 1] == c->tail;
}

/* Keep the run of new jobs from entry at (its first job j0) to end for the
 * next look (chain_holds). */
static void chain_keep(const struct sched *s, struct qgroup_set *g, const struct job *last,
                       const struct job *j0, size_t at, size_t end, struct job *tail, int dir)
{
    if (s->q.loose)
        return;
    g->chain = (struct qgroup_chain){s->pl.plan_gen, last, j0, tail, at, end, dir};
}

static int order_holds(struct sched *s, long now)
{
    const struct job *last = s->pl.nresv      ? s->pl.resv[s->pl.nresv - 1]
                             : s->pl.nblocked ? s->pl.blocked[0]
                                              : NULL;
    struct prio_env env;
    struct prio_batch pb;
    sched_prio_env(s, &env);
    fsacct_batch_init(s, &pb, &env);
    struct job *prev = NULL, *prevnew = NULL;
    int holds = 1, below = last == NULL; /* past `last`: only its rank matters */
    /* Old jobs below `last` matter only if one now sorts before it: asked
     * of their credential groups (policy/qgroup.h), not job by job. */
    if (!s->q.qg)
        s->q.qg = xcalloc(1, sizeof *s->q.qg);
    struct qgroup_set *g = s->q.qg;
    size_t from = s->q.qhead, to = s->q.qscanned < s->q.qlen ? s->q.qscanned : s->q.qlen;
    /* What the last pass left unread (qorder.h) lies below `last` in no
     * order: like the old jobs below it, it matters only if one now sorts
     * before it (the plan is partial: the scan takes none of it). */
    size_t loose = s->q.loose ? s->q.qloose : SIZE_MAX;
    if (s->q.loose)
        to = s->q.qlen;
    int kept = kept_holds(s, g, last, to), all_grouped = 1;
    if (!kept)
        qgroup_init(g);
    if (!kept && s->el.eset)
        qgroup_forget(g); /* eset.c reads the queue's priorities: every best computed */
    /* The plan stopped with no processor free (plan_partial) and this
     * poll's scan stops at once too (may_defer_rest; no kept reservation
     * to release first): the jobs it deferred, and those submitted since,
     * wait unread until a full pass (nothing ends at a poll, so none can
     * start; a command's completion of the plan starts none either), which
     * computes the priorities it reads. A new job below `last` that follows
     * the previous one in its credential group's fixed order
     * (qgroup_follows) then sorts after it, and so after `last` as that one
     * does: its priority is not computed (it keeps its last one, as a loose
     * tail's jobs do), but for the last of such a run when the next new
     * job is compared with it. Not under an eligibility set (eset.c reads
     * the queue's priorities), nor while system priorities make the order
     * move (once they leave, a static order's passes compute none). */
    int deferred =
        s->pl.plan_partial && !s->pl.kept && !s->el.eset && !s->el.nsysprio && may_defer_rest(s);
    int newbelow = 0, skipped = 0;
    struct qgroup_follow fol = {NULL, 0};
    /* A run of skipped new jobs: the computed one before it (j0 at
     * entry run_at) and the entry after its last. */
    const struct job *run_j0 = NULL;
    size_t prevnew_at = 0, run_at = 0, run_end = 0;
    for (size_t i = s->q.qhead; i < s->q.qlen; i++) {
        if (i == loose && below && last) {
            if (!kept) /* kept: the last look grouped it whole */
                holds &= !loose_rises(s, &pb, g, last, now, &all_grouped);
            i = s->q.qloose_end - 1;
            continue;
        }
        if (below && last && i < to) {
            /* Old jobs below `last` up to the loose tail, as a run. */
            size_t end = i < loose && loose < to ? loose : to;
            size_t start = kept && g->kept.to > i ? g->kept.to : i; /* kept: grouped */
            size_t k = qgroup_add_run(g, &pb, s->q.queue, start, end);
            all_grouped &= k == end;
            if (k == end) {
                i = end - 1;
                continue;
            }
            i = k; /* a job it cannot group: looked at here */
        }
        struct job *j = s->q.queue[i];
        if (!j)
            continue;
        int fresh = i >= s->q.qscanned && i < loose;
        if (fresh && deferred && below && newbelow && qgroup_follows(&fol, &pb, prevnew, j)) {
            if (!skipped)
                run_j0 = prevnew, run_at = prevnew_at;
            prevnew = j;
            run_end = i + 1;
            skipped = 1;
            continue;
        }
        if (fresh && skipped) { /* the last of a run is compared with j: its priority now */
            chain_keep(s, g, last, run_j0, run_at, run_end, prevnew, fol.dir);
            prevnew->priority = prio_batch_start(&pb, prevnew, now);
            skipped = 0;
        }
        if (moved(s, &pb, prev, j, now))
            holds = 0;
        /* The jobs submitted since, which the scan takes in queue order. */
        if (fresh) {
            if (prevnew && prio_cmp(&prevnew, &j) > 0)
                holds = 0;
            prevnew = j;
            prevnew_at = i;
            newbelow = below && j != last;
            /* The run the last look skipped after j: skipped whole, left
             * as the walk leaves it (its last job uncomputed, the run's
             * sign kept). j is below `last`: nothing below applies. */
            if (deferred && newbelow && chain_holds(s, g, last, j, i)) {
                run_j0 = j, run_at = i, run_end = g->chain.end;
                prevnew = g->chain.tail;
                fol = (struct qgroup_follow){g->chain.tail, g->chain.dir};
                skipped = 1;
                i = run_end - 1;
                continue;
            }
        }
        if (!below)
            prev = j;
        if (j == last)
            from = i + 1;
        below |= j == last;
    }
    if (skipped) /* a run open at the queue's end: the next look goes on from it */
        chain_keep(s, g, last, run_j0, run_at, run_end, prevnew, fol.dir);
    size_t loose_end = s->q.loose ? s->q.qloose_end : 0;
    g->kept =
        (struct qgroup_kept){s->pl.plan_gen, last, from, to, all_grouped && !s->el.eset, loose_end};
    return holds && !(last && qgroup_any_before(g, s, &pb, last, from, to, now));
}

/*
 * The resource manager refused to start j (Maui MJobStart failure): after
 * DEFERSTARTCOUNT failures it is deferred for DEFERTIME — blocked, shown as
 * Deferred — and after DEFERCOUNT deferrals it gets a batch hold.
 */
void iter_start_failed(struct sched *s, struct job *j, long now)
{
    if (++j->startcount < s->pol.deferstartcount)
        return;
    j->startcount = 0;
    if (++j->defercount > s->pol.defercount) {
        if (j->state == JOB_IDLE)
            queue_hold(s, j, HOLD_BATCH);
        return;
    }
    s->el.nheld += !j->deferred_until && !j->holds;
    j->deferred_until = now + (s->pol.defertime > 0 ? s->pol.defertime : 1);
    s->el.elig_all = 1;
    if (!s->el.next_undefer || j->deferred_until < s->el.next_undefer)
        s->el.next_undefer = j->deferred_until;
    j->flags |= JOB_BLOCKED;
    s->el.nblocked_jobs++;
    s->pl.replan = 1;
}

/* Jobs ahead of the scan whose records are fetched into the cache while it
 * looks at the current one. A long queue's records lie scattered in memory
 * and most are read for a few comparisons: the scan of 100,000 waiting jobs
 * otherwise spends half its time waiting for their first reads. 32, not 8:
 * quick_run looks at a job in about 30 instructions, so 8 jobs ahead was
 * too short a time for a read from memory (the burst of 50,000 jobs: about
 * 9 % less CPU time). */
#define SCAN_AHEAD 32

static void prefetch_job(const struct job *j)
{
    /* What it reads lies in the record's first 48 bytes (core/job.h): one
     * cache line, or two. A queue's hole (NULL) is fetched too, without a
     * test: a prefetch never faults (GCC's manual), and the address is
     * formed as an integer, which a null pointer plus 47 may not be. */
    uintptr_t a = (uintptr_t)j;
    __builtin_prefetch((const void *)a);
    __builtin_prefetch((const void *)(a + 47));
}

static void note_blocked(struct sched *s, struct job *j)
{
    s->pl.blocked =
        xgrow(s->pl.blocked, &s->pl.capblocked, s->pl.nblocked + 1, sizeof *s->pl.blocked);
    s->pl.blocked[s->pl.nblocked++] = j;
}

/*
 * Bypass counting (Maui's bypass counter, digest §5.7; it feeds the BYPASS
 * priority factor): a backfill start adds one to every job of the plan
 * that could not start before it, still waits and sorts before it (bypassed:
 * the full path's notes; the clock below counts a quick scan's notes at
 * every later backfill of their plan, whichever sorts first). The few jobs the full
 * path notes blocked are in s->pl.blocked and counted at each start. The
 * many a quick scan notes are not walked at each start (the burst of
 * 50,000 jobs walked a third of its queue at every backfill, a fifth of its
 * CPU time). A bypass clock counts the backfills. Each quick scan takes a
 * slot for the jobs it notes; a job noted keeps the slot and its count less
 * the clock's reading then: it is owed the backfills until its plan ends
 * (the slot keeps the clock's reading then) or until it leaves the queue
 * (iter_settle_bypass). Noted again in a later plan (a job is noted at most
 * once a plan), it adds its last slot's reading and subtracts the clock's.
 * The slot also says why its jobs wait (its plan and the processors free:
 * fewer than a job needs, it waits for resources, else it would delay a
 * reservation), so the scan writes two fields of a record it reads anyway,
 * where a walk at each backfill read every blocked record again
 * (core/sched.c's sched_wait_of reads the reason back).
 */

/* The reading j's count is kept against: 0 for no note, the clock's for a
 * note of the current plan. */
static long bp_reading(const struct sched *s, const struct job *j)
{
    if (!j->bp_slot)
        return 0;
    return j->bp_slot >= s->pl.bp_first ? s->pl.bp_clock : s->pl.bp[j->bp_slot].end;
}

long sched_job_bypass(const struct sched *s, const struct job *j)
{
    return j->bypass + bp_reading(s, j);
}

void iter_settle_bypass(struct sched *s, struct job *j)
{
    j->wait = sched_wait_of(s, j, &j->wait_gen);
    j->bypass += bp_reading(s, j);
    j->bp_slot = 0;
}

/* Every note into its job's record, which then holds its whole bypass count
 * and reason, and the slots free again. A job noted in the current plan is
 * still owed its later backfills: it joins the jobs counted at each start. */
static void bp_settle_all(struct sched *s)
{
    for (size_t k = 0; k < s->njobs - s->jobs_base; k++) {
        struct job *j = s->jobs[k];
        if (!j || !j->bp_slot)
            continue;
        if (j->bp_slot >= s->pl.bp_first)
            note_blocked(s, j);
        iter_settle_bypass(s, j);
    }
    s->pl.bp_cur = 0;
    s->pl.bp_first = 1;
}

/* The current plan ends (a full pass begins): the clock's reading is kept
 * in its slots, and the next plan's begin after them. Once the slots
 * outnumber both 4,096 and the jobs, every note is settled and they start
 * again: a walk of the jobs every as many plans, which bounds the slots by
 * the jobs held. */
static void bp_plan_ends(struct sched *s)
{
    for (unsigned k = s->pl.bp_first; k <= s->pl.bp_cur; k++)
        s->pl.bp[k].end = s->pl.bp_clock;
    s->pl.bp_first = s->pl.bp_cur + 1;
    if (s->pl.bp_cur >= 4096 && s->pl.bp_cur >= s->njobs - s->jobs_base)
        bp_settle_all(s);
}

/* A slot for the jobs a quick scan is about to note, free processors now:
 * the plan's last one when it says the same; its reading the clock's until
 * its plan ends. */
static unsigned bp_open(struct sched *s, long long free)
{
    unsigned k = s->pl.bp_cur;
    if (k >= s->pl.bp_first && s->pl.bp[k].free == free)
        return k;
    k = ++s->pl.bp_cur;
    s->pl.bp = xgrow(s->pl.bp, &s->pl.capbp, (size_t)k + 1, sizeof *s->pl.bp);
    s->pl.bp[0] = (struct bp_slot){0, 0, 0};
    s->pl.bp[k] = (struct bp_slot){s->pl.bp_clock, free, s->pl.plan_gen};
    return k;
}

/* Whether b, noted blocked, was bypassed by j's backfill start: it still
 * waits and sorts before j. A full pass notes only jobs before j; a scan of
 * the jobs submitted since the plan takes them after the plan's jobs, and
 * one may sort before some of those (the order below the plan's last
 * reserved job decides no start, iter.c's order_holds): Maui's scan, in
 * priority order, would not count those. */
static int bypassed(const struct job *b, const struct job *j)
{
    return b->state == JOB_IDLE && prio_cmp(&b, &j) < 0;
}

/* A job was backfilled: the clock moves, and the jobs the full path noted
 * are counted now. */
static void count_bypass(struct sched *s, const struct job *j)
{
    s->pl.bp_clock++;
    if (s->q.qg)
        qgroup_settle(s->q.qg, s); /* the blocked jobs' priorities a poll did not compute */
    /* The records the scan noted long before this start may no longer be
     * in the cache: fetched ahead, as the scan does. */
    struct job **b = s->pl.blocked;
    size_t n = s->pl.nblocked, k = 0, ahead = n > SCAN_AHEAD ? n - SCAN_AHEAD : 0;
    for (; k < ahead; k++) {
        prefetch_job(b[k + SCAN_AHEAD]);
        b[k]->bypass += bypassed(b[k], j);
    }
    for (; k < n; k++)
        b[k]->bypass += bypassed(b[k], j);
}

void iter_mark_running(struct sched *s, struct job *j, long from)
{
    iter_settle_bypass(s, j); /* after its own start's count, as the full path's notes */
    j->state = JOB_RUNNING;
    j->nstarts++;
    j->flags &= ~(unsigned)JOB_HADRESV;
    fsacct_started(s, j, from);
    elig_started(s, j);
    plan_run(s, j, from, j->planned_end);
    heap_push(&s->pl.running, j, j->planned_end, 0);
    eset_started(s, j);
    s->stats.started++;
}

/* The resource manager told to start j on the nodes it was given: whether
 * it did. A start it could not make counts towards deferring j; one it
 * cannot make yet (SCHED_RM_LATER) leaves j queued as it was, for the next
 * iteration: a preempted run still ending is no failure of the job's, and
 * deferring it would keep it off for DEFERTIME (an hour by default). Until
 * then no job passes it (the pass stops there, as under BACKFILLPOLICY
 * NONE): the plan has no reservation for a job that fits now, and another
 * job on its processors would hold them past its start (the old run holds
 * them in truth, for seconds). */
static __attribute__((noinline, cold)) int rm_not_started(struct sched *s, struct job *j, long now,
                                                          int rc)
{
    alloc_release(s, j);
    if (rc < 0)
        iter_start_failed(s, j, now);
    else {
        s->pl.plan_stopped = 1;
        s->pl.replan = 1; /* the next iteration's walk reads j again, from the top */
    }
    return 0;
}

/* Out of line, what a start not made does: a replay starts every job it
 * is told to (plain EASY's starts cost what they did, HPC2N's replay
 * 994.2 M instructions, not 995.2 M with it inline). */
static inline int rm_started(struct sched *s, struct job *j, long now)
{
    int rc = s->rm.start ? s->rm.start(s->rm.ctx, j, now) : 0;
    return __builtin_expect(rc == 0, 1) ? 1 : rm_not_started(s, j, now, rc);
}

/* try_start for a job plan_fits has just said yes to, the profile
 * unchanged since (the scan's quick walk asked it: quick_one). */
static int start_fitting(struct sched *s, struct job *j, long now)
{
    if (s->pl.completing)
        return 0; /* a command looking at the plan never starts a job */
    if (alloc_job(s, j, now) < 0)
        return 0;
    j->start = now;
    j->planned_end = now + j->walltime;
    if (!rm_started(s, j, now))
        return 0;
    if (s->pl.plan_blocked) {
        j->flags |= JOB_BACKFILLED;
        s->stats.backfilled++;
        count_bypass(s, j);
    }
    if (j->sysprio_mode != SYSPRIO_NONE)
        s->el.nsysprio--;
    iter_mark_running(s, j, now);
    return 1;
}

static int try_start(struct sched *s, struct job *j, long now)
{
    if (s->pl.completing || !plan_fits(s, j, now))
        return 0;
    return start_fitting(s, j, now);
}

int iter_force_start(struct sched *s, struct job *j, long now)
{
    if (alloc_job(s, j, now) < 0)
        return -1;
    j->start = now;
    j->planned_end = now + j->walltime;
    if (s->rm.start && s->rm.start(s->rm.ctx, j, now) != 0) { /* failed, or not yet */
        alloc_release(s, j);
        return -1;
    }
    iter_mark_running(s, j, now);
    s->pl.replan = 1;
    return 0;
}

/* The RESERVATIONDEPTH group of j: the first with a depth whose
 * RESERVATIONQOSLIST names j's QOS or [ALL] (an empty list is [ALL]); -1
 * if none. */
static int resgroup_of(const struct sched *s, const struct job *j)
{
    for (int g = 0; g < s->pol.nresgroups; g++) {
        const char *q = s->pol.resgroup[g].qos;
        if (s->pol.resgroup[g].depth <= 0)
            continue;
        if (!*q)
            return g;
        for (const char *p = q; *p;) {
            p += strspn(p, " \t,:");
            size_t n = strcspn(p, " \t,:");
            if ((n == 5 && strncmp(p, "[ALL]", 5) == 0) || (n == 3 && strncmp(p, "ALL", 3) == 0) ||
                (n == strlen(j->qos->name) && strncmp(p, j->qos->name, n) == 0))
                return g;
            p += n;
        }
    }
    return -1;
}

/* RESERVATIONTHRESHOLDTYPE/VALUE: only jobs past the threshold get a
 * reservation. */
static int past_threshold(const struct sched *s, const struct job *j, long now)
{
    long v = s->pol.resthreshvalue;
    switch (s->pol.resthresh) {
    case RT_BYPASS:
        return sched_job_bypass(s, j) > v;
    case RT_QUEUETIME:
        return now - elig_qtime(s, j, now) > v;
    case RT_XFACTOR: {
        long q = now > elig_qtime(s, j, now) ? now - elig_qtime(s, j, now) : 0;
        return (q + j->walltime) / (j->walltime > 0 ? j->walltime : 1) > v;
    }
    default:
        return 1;
    }
}

/* Whether some RESERVATIONDEPTH group still has room in this plan: once
 * none has, no job gets a reservation, and the scan need not find each
 * one's group (a walk of its QOS list) to learn so. */
static int resgroup_room(const struct sched *s)
{
    for (int g = 0; g < s->pol.nresgroups; g++)
        if (s->pl.resgroup_n[g] < s->pol.resgroup[g].depth)
            return 1;
    return 0;
}

/* reserve_slot once some group has room: j's group, and its threshold.
 * Out of line, so that the answer the scan gets for nearly every job it
 * looks at after the plan's reservations, no, costs no frame (HPC2N
 * fairshare: 2.3 million questions). */
static __attribute__((noinline)) int reserve_slot_group(const struct sched *s, const struct job *j,
                                                        long now)
{
    int g = resgroup_of(s, j);
    return g >= 0 && s->pl.resgroup_n[g] < s->pol.resgroup[g].depth && past_threshold(s, j, now)
               ? g
               : -1;
}

/* The RESERVATIONDEPTH group in which j may get a priority reservation in
 * this plan (resgroup_of's answer, which reserve books it in); -1 if it may
 * not get one. */
static inline int reserve_slot(const struct sched *s, const struct job *j, long now)
{
    if (s->pol.backfill == BF_PREEMPT || s->pol.respolicy == RP_NEVER || !resgroup_room(s))
        return -1; /* PREEMPT makes none: priority jobs preempt instead */
    return reserve_slot_group(s, j, now);
}

/* Tries at placing a reservation past instants where the job's credentials
 * would exceed a soft active limit; after that it is placed regardless. */
#define RESERVE_TRIES 64

/* j holds a priority reservation in the plan, counted in its
 * RESERVATIONDEPTH group g (resgroup_of's answer; -1: none). */
static void book(struct sched *s, struct job *j, int g)
{
    if (g >= 0)
        s->pl.resgroup_n[g]++;
    j->flags |= JOB_RESERVED;
    j->wait = WAIT_RESERVED;
    s->pl.resv = xgrow(s->pl.resv, &s->pl.capresv, (size_t)s->pl.nresv + 1, sizeof *s->pl.resv);
    s->pl.resv[s->pl.nresv++] = j;
}

/* j reserved at its earliest start, booked in group g (resgroup_of's
 * answer, which the scan has asked already: reserve_slot). */
static void reserve(struct sched *s, struct job *j, long now, int g)
{
    long t;
    if (j == s->pl.kept) {
        /* Its kept hold: where it is, it is held again as it stands (the
         * path below, after a release, would land there, the limits
         * agreeing at once). Else released: t is what plan_earliest says. */
        t = plan_earliest_kept(s, j, now, s->pl.kept_t);
        if (t == s->pl.kept_t && t > now && elig_fits_at(s, j, t, now) &&
            plan_rehold(s, j, s->pl.kept_t, t)) {
            s->pl.kept = NULL;
            book(s, j, g);
            return;
        }
        release_kept(s);
    } else {
        t = plan_earliest(s, j, now);
    }
    if (t <= now) {
        /* The counts fit now, the nodes' shapes did not (tasks of several
         * processors, spread over nodes' leftovers): they can change only
         * where what is free changes. A second later (as it was) they are
         * the same: the job was reserved a second ahead at every iteration,
         * a wake-up each second (the replay never ended), and its
         * reservation kept every other job off processors it cannot use. */
        long next = plan_next_change(s, j, now);
        t = next < AVAIL_NEVER ? plan_earliest(s, j, next) : AVAIL_NEVER;
    }
    if (t >= AVAIL_NEVER)
        return; /* cannot run on the nodes that are up now: nothing to hold */
    /* Where processors are free but the job's credentials would then be over
     * a soft active limit (their other reservations, jobs still running),
     * look later, as Maui's MPolicyGetEStartTime does. */
    for (int tries = 0; tries < RESERVE_TRIES && !elig_fits_at(s, j, t, now); tries++) {
        long next = elig_next_end(s, t);
        if (next >= AVAIL_NEVER)
            break;
        t = plan_earliest(s, j, next);
        if (t >= AVAIL_NEVER)
            return;
    }
    plan_hold(s, j, t);
    book(s, j, g);
}

/* Why j, which could not start now, waits (before any reservation). Jobs a
 * scan never reaches get their reason from sched_job_wait() instead: marking
 * them here would make every pass cost the whole queue. */
static void note_wait(struct sched *s, struct job *j)
{
    j->wait = plan_free_now(s, j) >= job_procs(j) ? WAIT_DELAYS : WAIT_RESOURCES;
    j->wait_gen = s->pl.plan_gen;
}

static int chunking(const struct sched *s, long now)
{
    return s->pol.backfill == BF_FIRSTFIT && s->pol.bfchunksize > 0 &&
           now < s->pl.last_end + s->pol.bfchunkduration;
}

/* FIRSTFIT's backfill limits: BACKFILLDEPTH candidates, and chunking
 * (BFCHUNKSIZE/BFCHUNKDURATION: for a while after a job ends, once a job of
 * at least BFCHUNKSIZE processors could not start, smaller ones may not
 * take the freed processors either, so that they gather into a chunk). */
static int firstfit_skips(struct sched *s, const struct job *j, long now)
{
    if (s->pol.bfdepth > 0 && ++s->pl.bf_seen > s->pol.bfdepth) {
        s->pl.bf_capped = 1; /* left for the next pass */
        return 1;
    }
    return s->pl.chunk_hit && job_procs(j) < s->pol.bfchunksize && chunking(s, now);
}

static void add_candidate(struct sched *s, struct job *j)
{
    s->pl.cand = xgrow(s->pl.cand, &s->pl.capcand, s->pl.ncand + 1, sizeof *s->pl.cand);
    s->pl.cand[s->pl.ncand++] = j;
}

/* A job that holds a reservation kept from the last plan (HIGHEST) waits
 * for it: later starts are backfill. */
static void waits_reserved(struct sched *s, struct job *j)
{
    note_blocked(s, j);
    s->pl.plan_blocked = 1;
}

/* Whether the rest of a scan can be left for later once no processor is
 * free now: nothing after can start now (preemption aside), so what is
 * left — reservations of lower-priority jobs — decides nothing until a job
 * ends, which re-plans anyway. The plan is completed when a command looks
 * at it (sched_complete_plan). This is what keeps conservative
 * backfilling on long queues linear in what starts. */
static int may_defer_rest(const struct sched *s)
{
    if (s->pl.completing || !s->pl.plan_blocked)
        return 0;
    if (s->rm.preempt && (s->pol.backfill == BF_PREEMPT || s->rs.nresvs))
        return 0; /* a preemption could free processors further down */
    return plan_free_now((struct sched *)s, NULL) <= 0;
}

/*
 * Whether the scan may decide that waiting jobs wait in a few comparisons
 * (quick_run). In a long EASY queue nearly every job waits: a backfill pass under FIRSTFIT with
 * no BACKFILLDEPTH or chunking, a static order (priorities are not checked), no throttling limit or
 * fairshare cap (elig_may_start answers yes), no owner preemption, one
 * processor pool (policy/plan.c's fast path). What this asks does not
 * change during a scan.
 */
static int quick_scan(const struct sched *s)
{
    return !s->pl.multi && s->pol.backfill == BF_FIRSTFIT && s->pol.bfdepth <= 0 &&
           s->pol.bfchunksize <= 0 && s->order_static && !elig_active(s) &&
           !(s->rm.preempt && s->rs.nresvs);
}

/*
 * Under quick_scan, what a scan learns of the free processors while nothing
 * starts or is reserved: `free` now (-1: not asked since the last job the
 * full path took), and two jobs that did not fit now, the one of fewest
 * processors and the shortest. Nothing gives processors back during such a
 * scan (owner preemption is excluded), so what is free over any interval
 * only shrinks: a job at least as large and as long as one that did not
 * fit does not fit either.
 */
struct quick {
    long long free;
    long long p[2];
    long w[2];
    long started; /* s->stats.started and s->pl.nresv when learnt */
    int nresv;
    /* The job quick_run stopped at because plan_fits said yes (NULL: none):
     * the full path, which takes it next with nothing changed in between,
     * starts it without asking again (HPC2N EASY: 39,041 questions). */
    const struct job *fits;
};

static void quick_reset(struct quick *q, const struct sched *s)
{
    *q = (struct quick){
        -1, {LLONG_MAX, LLONG_MAX}, {LONG_MAX, LONG_MAX}, s->stats.started, s->pl.nresv, NULL};
}

/* Whether j is as large and as long as a job that did not fit. */
static int quick_dominated(const struct quick *q, long long p, long w)
{
    return (p >= q->p[0] && w >= q->w[0]) || (p >= q->p[1] && w >= q->w[1]);
}

static void quick_failed(struct quick *q, long long p, long w)
{
    if (p < q->p[0] || (p == q->p[0] && w < q->w[0]))
        q->p[0] = p, q->w[0] = w;
    if (w < q->w[1] || (w == q->w[1] && p < q->p[1]))
        q->p[1] = p, q->w[1] = w;
}

/* One job of quick_run's walk; 1 when the walk stops at it (the full path
 * takes it from there). Inlined into both of quick_run's loops. */
static inline __attribute__((always_inline)) int quick_one(struct sched *s, struct job *j, long now,
                                                           struct quick *q, long long free,
                                                           const struct bp_slot *bp, long clock,
                                                           unsigned slot)
{
    if ((j->flags & (JOB_BLOCKED | JOB_RESERVED)) || j->exclusive)
        return 1;
    long long p = job_procs(j);
    if (p <= free && !quick_dominated(q, p, j->walltime)) {
        /* Only the processor profile's no is learnt: a job may also
         * not fit for its features, partition or memory, which says
         * nothing of the next one. */
        if (!avail_fits(s->pl.avail, now, now + j->walltime, p))
            quick_failed(q, p, j->walltime);
        else if (plan_fits(s, j, now)) {
            q->fits = j;
            return 1;
        }
    }
    /* Noted blocked, in its record (bypass counting, above): its last
     * note's reading in, the clock's out; no test, no branch (slot 0
     * reads 0). The slot says why it waits. */
    j->bypass += bp[j->bp_slot].end - clock;
    j->bp_slot = slot;
    return 0;
}

/*
 * Under quick_scan, the waiting jobs from queue entry i on that wait for
 * certain, decided in a few comparisons each (and at most one question to
 * the profile) where the full path below asks many; returns the first entry
 * the full path must take (qlen when none). Once an earlier job is blocked,
 * every RESERVATIONDEPTH group is full and the profile starts now, a job
 * that does not fit fails plan_fits (try_start changes nothing then), waits
 * (for resources when fewer are free now than it needs, else because it
 * would delay a reservation: note_wait's answers, which its note's slot
 * gives) and is noted blocked (in its record, not in s->pl.blocked: bypass
 * counting, above), which is all the full path does for it. A job that fits takes the full
 * path. Nothing here starts, reserves or moves the queue, so what the loop
 * reads of the scheduler is held in locals: through the job records' stores
 * the compiler would read it again for every job.
 */
static size_t quick_run(struct sched *s, size_t i, long now, struct quick *q)
{
    size_t n = s->q.qlen;
    if (s->stats.started != q->started || s->pl.nresv != q->nresv)
        quick_reset(q, s); /* what is free shrank */
    if (q->free < 0) {
        if (!s->pl.plan_blocked || (s->pol.respolicy != RP_NEVER && resgroup_room(s)) ||
            now > avail_origin(s->pl.avail))
            return i;
        q->free = plan_free_now(s, NULL);
    }
    if (q->free <= 0)
        return i; /* none free: may_defer_rest stops the scan */
    struct job **queue = s->q.queue;
    size_t ahead = n > SCAN_AHEAD ? n - SCAN_AHEAD : 0;
    long long free = q->free;
    unsigned slot = bp_open(s, q->free);
    const struct bp_slot *bp = s->pl.bp;
    long clock = s->pl.bp_clock;
    /* Two loops, so that the jobs with SCAN_AHEAD more behind them
     * prefetch without a test of the index each. */
    for (; i < ahead; i++) {
        prefetch_job(queue[i + SCAN_AHEAD]);
        if (queue[i] && quick_one(s, queue[i], now, q, free, bp, clock, slot))
            return i;
    }
    for (; i < n; i++)
        if (queue[i] && quick_one(s, queue[i], now, q, free, bp, clock, slot))
            return i;
    return i;
}

/*
 * Whether what is free only shrinks through a scan, as quick_run assumes:
 * one processor pool and no preemption to give processors back (a kept
 * reservation, released at the latest before another job asks, is left
 * out by may_fit). What this asks does not change during a scan.
 */
static int profile_shrinks(const struct sched *s)
{
    return !s->pl.multi && !(s->rm.preempt && (s->pol.backfill == BF_PREEMPT || s->rs.nresvs));
}

/*
 * Whether j may fit now, asked before try_start asks the plan (nofit NULL:
 * not asked). While what is free only shrinks (profile_shrinks), a job as
 * large and as long as one whose processors were not free fails plan_fits
 * too, and so does one the processor profile refuses (plan_fits' first
 * question for a job not exclusive): those are answered here, the
 * profile's no learnt for the next ones (quick_failed). A scan under a
 * dynamic priority has no quick_run: every waiting job it reads asks.
 */
static int may_fit(struct sched *s, const struct job *j, long now, struct quick *nofit)
{
    if (!nofit || s->pl.kept || j->exclusive)
        return 1;
    long long p = job_procs(j);
    if (quick_dominated(nofit, p, j->walltime))
        return 0;
    if (avail_fits(s->pl.avail, now, now + j->walltime, p))
        return 1;
    quick_failed(nofit, p, j->walltime);
    return 0;
}

/*
 * Whether the full path below would only note waiting the jobs may_fit
 * refuses (nofit: it is asked): a FIRSTFIT scan without BACKFILLDEPTH or
 * chunking, limits or caps, REJECTNEGPRIOJOBS or a kept reservation, once
 * the plan is blocked and no RESERVATIONDEPTH group has room.
 */
static int only_waits(const struct sched *s, const struct quick *nofit, int elig)
{
    return nofit && s->pl.plan_blocked && !s->pl.kept && !s->pl.completing && !elig &&
           s->pol.backfill == BF_FIRSTFIT && s->pol.bfdepth <= 0 && s->pol.bfchunksize <= 0 &&
           !s->pol.prio.reject_neg && (s->pol.respolicy == RP_NEVER || !resgroup_room(s));
}

/*
 * Under only_waits, the jobs from queue entry i on (placed as they are
 * read) that may_fit refuses, taken as the full path takes them: with
 * processors free (else may_defer_rest stops the scan) such a job waits,
 * for resources when fewer are free than it needs, else because it would
 * delay a reservation (note_wait's answer: what is free now does not move
 * while nothing starts), and is noted blocked. Returns the first entry the
 * full path must take (qlen when none). A scan under a dynamic priority
 * (no quick_run) otherwise takes each of them through every question of
 * the full path.
 */
static size_t wait_run(struct sched *s, size_t i, long now, struct quick *nofit)
{
    long long free = plan_free_now(s, NULL);
    if (free <= 0)
        return i;
    for (; i < s->q.qlen; i++) {
        if (s->q.placing && i >= s->q.qplaced)
            qorder_place(s, i);
        struct job *j = s->q.queue[i];
        if (!j)
            continue;
        if ((j->flags & (JOB_BLOCKED | JOB_RESERVED)) || may_fit(s, j, now, nofit))
            return i;
        j->wait = free >= job_procs(j) ? WAIT_DELAYS : WAIT_RESOURCES;
        j->wait_gen = s->pl.plan_gen;
        note_blocked(s, j);
    }
    return i;
}

/* What a scan that reached the queue's end leaves: the whole queue looked
 * at, the plan complete. */
static void scan_done(struct sched *s)
{
    s->q.qscanned = s->q.qlen;
    s->pl.plan_partial = 0;
}

/* Step 3, over queue entries [from, qlen), from < qlen. */
static void scan_from(struct sched *s, long now, size_t from)
{
    /* elig_may_start answers yes without limits or caps: not asked. */
    int ff = s->pol.backfill == BF_FIRSTFIT, quick = quick_scan(s), elig = elig_active(s);
    struct quick q, nofit;
    quick_reset(&q, s);
    struct quick *learn = NULL; /* quick_run learns its own */
    if (!quick && profile_shrinks(s)) {
        quick_reset(&nofit, s); /* only when it is used */
        learn = &nofit;
    }
    for (size_t i = from; i < s->q.qlen && !s->pl.plan_stopped; i++) {
        if (s->pl.kept && (s->q.placing || s->q.queue[i] != s->pl.kept ||
                           !plan_kept_short(s, s->pl.kept, s->pl.kept_t)))
            release_kept(s); /* before any other job asks the profile */
        if (quick && (i = quick_run(s, i, now, &q)) >= s->q.qlen)
            break;
        if (only_waits(s, learn, elig) && (i = wait_run(s, i, now, learn)) >= s->q.qlen)
            break;
        if (s->q.placing && i >= s->q.qplaced)
            qorder_place(s, i); /* the next job in priority order */
        struct job *j = s->q.queue[i];
        if (i + SCAN_AHEAD < s->q.qlen)
            prefetch_job(s->q.queue[i + SCAN_AHEAD]);
        if (!j)
            continue;
        q.free = -1; /* the full path may block, start or reserve it: ask again after it */
        int fits = q.fits == j; /* the quick walk stopped at j for this */
        q.fits = NULL;
        if (may_defer_rest(s)) {
            s->pl.plan_partial = 1;
            s->q.qscanned = i;
            return;
        }
        if (j->flags & JOB_BLOCKED)
            continue; /* over a throttling limit: not eligible (policy/elig.c) */
        if (!s->order_static && prio_rejects(&s->pol.prio, j->priority)) {
            j->wait = WAIT_REJECTED; /* priorities are fresh: order_queue computed them */
            j->wait_gen = s->pl.plan_gen;
            continue;
        }
        if (j->flags & JOB_RESERVED) {
            waits_reserved(s, j);
            continue;
        }
        if (elig && !elig_may_start(s, j, LIM_SOFT, NULL, 0)) {
            j->wait = WAIT_POLICY; /* jobs started in this pass used up its room */
            j->wait_gen = s->pl.plan_gen;
            continue;
        }
        int backfill = s->pl.plan_blocked;
        if (backfill && !ff && s->pol.backfill != BF_NONE && reserve_slot(s, j, now) < 0) {
            /* BESTFIT, GREEDY, PREEMPT choose among these after the scan. */
            note_wait(s, j);
            if (s->pol.bfdepth <= 0 || (long)s->pl.ncand < s->pol.bfdepth)
                add_candidate(s, j);
            else
                s->pl.bf_capped = 1; /* left for the next pass */
            continue;
        }
        if (backfill && ff && firstfit_skips(s, j, now)) {
            note_wait(s, j);
            continue;
        }
        /* learn NULL (a quick scan): may_fit answers yes; not called. */
        if ((fits ? start_fitting(s, j, now)
                  : (!learn || may_fit(s, j, now, learn)) && try_start(s, j, now)) ||
            (s->rm.preempt && s->rs.nresvs && preempt_for_owner(s, j, now) &&
             try_start(s, j, now)) ||
            (s->pol.backfill == BF_PREEMPT && preempt_for_priority(s, j, now) &&
             try_start(s, j, now))) {
            s->q.queue[i] = NULL;
            s->q.qidle--;
            continue;
        }
        if (backfill && ff && s->pol.bfchunksize > 0 && job_procs(j) >= s->pol.bfchunksize)
            s->pl.chunk_hit = 1;
        note_wait(s, j);
        if (s->pol.backfill == BF_NONE) {
            /* Strict priority order: nothing passes it — unless it can
             * never start on the nodes that are up (Maui defers such a job,
             * MJobPReserve's check, and the rest go on meanwhile). */
            if (plan_earliest(s, j, now) < AVAIL_NEVER) {
                note_blocked(s, j);
                s->pl.plan_blocked = 1;
                s->pl.plan_stopped = 1;
            }
            continue;
        }
        note_blocked(s, j);
        s->pl.plan_blocked = 1;
        int g = reserve_slot(s, j, now);
        if (g >= 0) {
            reserve(s, j, now, g);
            /* A job the plan reserves is not one of the BACKFILLDEPTH
             * candidates (Maui reserves in its priority phase): counted, it
             * would take a candidate's place in the pass that reserves it
             * and not in the next (a reservation HIGHEST keeps is placed
             * before the scan), so iterating twice would start more. */
            if (backfill && ff && s->pol.bfdepth > 0 && (j->flags & JOB_RESERVED))
                s->pl.bf_seen--;
        }
    }
    scan_done(s);
}

/* Step 3, over queue entries [from, qlen). An empty range (an instant that
 * added no job to a plan that holds: 105,082 of HPC2N's 356,519 scans under
 * EASY) is done without scan_from's set-up. */
static inline void scan(struct sched *s, long now, size_t from)
{
    if (from < s->q.qlen)
        scan_from(s, now, from);
    else
        scan_done(s);
}

void sched_complete_plan(struct sched *s)
{
    /* Once anything changed since the iteration (a job ended, a hold, ...),
     * the deferred rest of the plan is stale: completing it at the
     * iteration's time would place jobs on processors freed later, in the
     * past. The next iteration plans afresh; until then a command sees what
     * the last one left. */
    if (s->pl.plan_partial && !s->pl.replan) {
        qorder_tighten(s, s->pl.last_now);
        s->pl.completing = 1;
        scan(s, s->pl.last_now, s->q.qscanned);
        s->pl.completing = 0;
    }
    if (s->pl.bp_cur)
        bp_settle_all(s); /* a command may read any job's record */
}

/* RESERVATIONPOLICY HIGHEST: jobs that held a reservation are placed again
 * first, in priority order, each at its earliest (sliding earlier when it
 * can); they count against their group's depth. One that fits now starts
 * now, before the scan: its reservation is its own, and a job lifted above
 * it since (setspri, a QOS change) must not take its processors when they
 * come free — that is CURRENTHIGHEST. */
static void keep_reservations(struct sched *s, long now)
{
    for (size_t i = s->q.qhead; i < s->q.qlen; i++) {
        struct job *j = s->q.queue[i];
        if (!j || !(j->flags & JOB_HADRESV))
            continue;
        j->flags &= ~(unsigned)JOB_HADRESV;
        if (j->flags & JOB_BLOCKED)
            continue;
        if (!plan_fits(s, j, now)) {
            reserve(s, j, now, resgroup_of(s, j));
            continue;
        }
        if ((s->order_static || !prio_rejects(&s->pol.prio, j->priority)) &&
            elig_may_start(s, j, LIM_SOFT, NULL, 0) && try_start(s, j, now)) {
            s->q.queue[i] = NULL;
            s->q.qidle--;
        }
    }
}

/* After BESTFIT/GREEDY/PREEMPT started candidates: their queue entries. */
static void sweep_started(struct sched *s)
{
    for (size_t i = s->q.qhead; i < s->q.qlen; i++)
        if (s->q.queue[i] && s->q.queue[i]->state != JOB_IDLE) {
            s->q.queue[i] = NULL;
            s->q.qidle--;
        }
}

int bf_may_start(struct sched *s, struct job *j)
{
    return j->state == JOB_IDLE && !(j->flags & JOB_BLOCKED) &&
           elig_may_start(s, j, LIM_SOFT, NULL, 0);
}

int bf_start(struct sched *s, struct job *j, long now)
{
    return try_start(s, j, now);
}

/* Candidates of the hard pass: blocked by a soft limit only, or eligible
 * but stopped in this pass by a soft active limit. */
static int hard_candidate(const struct sched *s, const struct job *j)
{
    if (!(j->flags & JOB_HARDOK))
        return 0;
    return (j->flags & JOB_BLOCKED) || (j->wait == WAIT_POLICY && j->wait_gen == s->pl.plan_gen);
}

/*
 * The second backfill pass (Maui's MQueueBackFill over the HARD list): jobs
 * held back only by soft limits may have what nothing else can use, if they
 * fit now without delaying any reservation and stay within their hard
 * active limits. One that exceeds a soft limit runs marked SPVIOLATION.
 */
static void hard_pass(struct sched *s, long now)
{
    if (!limits_any(s->lim.limits) || s->pol.backfill == BF_NONE)
        return;
    for (size_t i = s->q.qhead; i < s->q.qlen && plan_free_now(s, NULL) > 0; i++) {
        struct job *j = s->q.queue[i];
        if (!j || !hard_candidate(s, j) || !elig_may_start(s, j, LIM_HARD, NULL, 0))
            continue;
        int over_soft = !elig_may_start(s, j, LIM_SOFT, NULL, 0) || (j->flags & JOB_BLOCKED);
        if (try_start(s, j, now)) {
            if (over_soft)
                j->flags |= JOB_SPVIOLATION;
            s->q.queue[i] = NULL;
            s->q.qidle--;
        }
    }
}

static void full_pass(struct sched *s, long now)
{
    s->stats.full_passes++;
    bp_plan_ends(s);
    s->pl.plan_gen++;
    if (s->q.qg)
        s->q.qg->npending = 0; /* what a poll skipped: the pass computes what it reads */
    drop_reservations(s, 1);
    if (s->rs.regions_gen != s->rs.resv_gen)
        plan_rebuild(s, now); /* reservations or nodes changed */
    compact_queue(s);
    order_queue(s, now);
    s->pl.plan_blocked = 0;
    s->pl.plan_stopped = 0;
    s->pl.nblocked = 0;
    s->pl.ncand = 0;
    s->pl.bf_seen = 0;
    s->pl.bf_capped = 0;
    s->pl.plan_partial = 0;
    s->pl.chunk_hit = 0;
    s->pl.replan = 0;
    elig_run(s, now);
    long started = s->stats.started;
    if (s->pol.respolicy == RP_HIGHEST)
        keep_reservations(s, now);
    scan(s, now, s->q.qhead);
    release_kept(s); /* its job's turn did not come, or did not place it */
    if (s->q.placing)
        qorder_finish(s); /* what the scan did not read stays loose */
    s->pl.ncand_seen = s->pl.ncand > 0;
    if (s->pl.ncand) {
        backfill_run(s, s->pl.cand, s->pl.ncand, now);
        sweep_started(s);
        s->pl.ncand = 0;
    }
    hard_pass(s, now);
    /* Maui shows the queue as the soft filter sees it after this iteration's
     * starts (MUIQ): a job that started frees its idle slot for the next.
     * Nothing started, nothing changed. The hard walk too: a job the starts
     * pushed over a hard limit stops accruing queue time now, as at Maui's
     * next iteration (JOBPRIOACCRUALPOLICY). */
    s->el.promotion = s->stats.started != started && elig_final(s, now);
}

void iter_rebuild(struct sched *s, long now)
{
    drop_reservations(s, 0);
    plan_rebuild(s, now);
    s->pl.replan = 1;
}

/* Whether a job promoted after this iteration's starts can change anything
 * at once: start (processors are free), preempt, or take a reservation it
 * keeps (HIGHEST). Otherwise the next event's iteration finds it. */
static int promotion_matters(struct sched *s)
{
    return plan_free_now(s, NULL) > 0 || s->pol.respolicy == RP_HIGHEST ||
           s->pol.backfill == BF_PREEMPT || (s->rm.preempt && s->rs.nresvs);
}

/* Whether a job the last pass turned away for a fairshare cap (the jobs
 * started before it used up its room) may start now: under a cap on a
 * share of the whole (FSTARGET=n%), the jobs started after it raised the
 * whole. Otherwise the next event's iteration finds it. */
static int cap_room_back(struct sched *s)
{
    if (!s->fsh.fs_caps)
        return 0;
    for (size_t i = s->q.qhead; i < s->q.qlen; i++) {
        struct job *j = s->q.queue[i];
        if (j && j->wait == WAIT_POLICY && j->wait_gen == s->pl.plan_gen &&
            !(j->flags & JOB_BLOCKED) && elig_may_start(s, j, LIM_SOFT, NULL, 0))
            return 1;
    }
    return 0;
}

/* Whether a job reserved in this pass is one the limits refuse now: the
 * pass's own starts took its credential over a throttling limit (MAXJOB,
 * MAXPS, ...) or a fairshare cap (a relative cap does not block a system
 * with neither usage nor running work, its state when the pass began), and
 * its reservation, which the next pass drops, keeps jobs from backfilling
 * until then: Maui's next poll, which the drivers are woken for. A job
 * reserved while a limit already held it back (MAXPS falls as jobs run)
 * wakes them too: one more iteration at an instant the live loop polls
 * anyway, which changes nothing where the poll finds nothing to do. */
static int reserved_refused(struct sched *s)
{
    if (!elig_active(s))
        return 0;
    for (int i = 0; i < s->pl.nresv; i++) {
        struct job *j = s->pl.resv[i];
        if (j->state == JOB_IDLE && !elig_may_start(s, j, LIM_SOFT, NULL, 0))
            return 1;
    }
    return 0;
}

/* Whether a reservation's window began or ended since the last iteration
 * (the incremental plan assumes what is free changes only with jobs). */
static int resv_edge(const struct sched *s, long now)
{
    for (size_t i = 0; i < s->rs.nresvs; i++) {
        const struct resv *r = s->rs.resvs[i];
        if ((r->start > s->pl.last_now && r->start <= now) ||
            (r->end > s->pl.last_now && r->end <= now))
            return 1;
    }
    return 0;
}

void iter_run(struct sched *s, long now)
{
    s->stats.iterations++;
    s->el.promotion = 0;
    /* A waiting job's credentials, queue time or priority may have changed
     * since the last pass (eset_sync consumes the flag). */
    if (s->el.elig_all) {
        qorder_drop_tail(s);
        qgroup_forget(s->q.qg);
    }
    s->order_static = sched_order_is_static(s); /* fixed for the whole iteration */
    eset_sync(s);                               /* eligibility by credential, or the whole queue */
    settle_time(s, now);
    if (s->rs.nsrdefs || s->rs.nresvs)
        resv_refresh(s, now);
    if (s->rs.regions_gen != s->rs.resv_gen)
        iter_rebuild(s, now); /* before a resume or a start looks at the regions */
    if (resv_edge(s, now))
        s->pl.replan = 1; /* a reservation began or ended: what jobs may use changed */
    if (wake_reserved_due(s, now))
        s->pl.replan = 1; /* a reserved start between job ends came due: start it now */
    if (s->nsuspended)
        preempt_resume(s, now);
    fsacct_iterate(s, now);
    if (elig_active(s))
        s->pl.replan = 1; /* usage changes with time (remaining PS): re-plan every iteration */
    if (s->pol.backfill == BF_BESTFIT || s->pol.backfill == BF_GREEDY ||
        s->pol.backfill == BF_PREEMPT || chunking(s, now) || chunking(s, s->pl.last_now) ||
        s->pol.resthresh != RT_NONE)
        s->pl.replan = 1; /* the choice depends on every candidate (or on time): no increments */
    if (s->el.next_undefer && now >= s->el.next_undefer) {
        s->pl.replan = 1;       /* a deferral is over */
        s->el.next_undefer = 0; /* the walk notes the next one (policy/elig.c) */
        s->el.elig_all = 1;
    }
    long preempted = s->stats.preempted, started = s->stats.started;
    if (s->pl.replan || s->q.unsorted || (!s->order_static && !order_holds(s, now)))
        full_pass(s, now);
    else
        scan(s, now, s->q.qscanned); /* the jobs that joined the tail since */
    /* OWNERPREEMPT frees a preempted job's processors, possibly more than
     * its owner's job takes, after jobs ahead of it in the scan were turned
     * away: offer them to every waiting job now, not at the next event. */
    if (s->stats.preempted != preempted)
        full_pass(s, now);
    /* Under limits (or fairshare caps) this iteration's starts change what
     * the walks at its start decided: a job blocked behind them by an idle
     * limit (MAXIJOB) is promoted (the walks after the starts, elig_final,
     * also stop the queue time of the jobs they push over a hard limit and
     * note when time runs MAXPS down for those they push over it). A pass
     * that BACKFILLDEPTH cut short looks at the next candidates only in the
     * next pass, now that its starts took theirs; BESTFIT, GREEDY and
     * PREEMPT choose once among the candidates of the pass, leaving room a
     * next pass may fill (and under PREEMPT a job backfilled in this pass
     * may be preempted by a higher one in the next); a job a relative
     * fairshare cap turned away before later starts raised the whole
     * (cap_room_back). Maui does these at its
     * next iteration; the drivers iterate again at once
     * (sched_next_wakeup answers now) — a chain that ends, each link
     * starting jobs and stopping none. An iteration that also preempted jobs
     * (they may start again, and preempt again) leaves it to the next
     * RMPOLLINTERVAL instant, as Maui's next poll. */
    s->el.again_at = AVAIL_NEVER;
    if (s->stats.started != started &&
        (s->el.promotion || s->pl.bf_capped || s->pl.ncand_seen || cap_room_back(s)) &&
        (plan_free_now(s, NULL) > 0 || (s->el.promotion && promotion_matters(s)) ||
         s->pol.backfill == BF_PREEMPT)) {
        long p = s->pol.poll > 0 ? s->pol.poll : 1;
        s->el.again_at = s->stats.preempted == preempted ? now : now - ((now % p) + p) % p + p;
    } else if (s->stats.started != started && plan_free_now(s, NULL) > 0 && reserved_refused(s)) {
        long p = s->pol.poll > 0 ? s->pol.poll : 1;
        s->el.again_at = now - ((now % p) + p) % p + p; /* a reservation to drop */
    }
    s->pl.last_now = now;
}
