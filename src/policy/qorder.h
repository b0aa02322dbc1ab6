/*
 * qorder — the queue put in priority order as a full pass's scan reads it,
 * computing only the priorities of the jobs it reads.
 *
 * A full pass under a dynamic priority sorted the whole queue at every
 * iteration, and its scan often stops after a few jobs (no processor free:
 * the rest is deferred, policy/iter.c). Here the waiting jobs are split by
 * their five credentials; within a group whose priority moves with the
 * queue time alone (prio_batch_queue_time_only, +1), the order by queue
 * time start, then submission, is the priority order (prio_cmp) whenever
 * the submissions come in that order too — checked, else the group's jobs
 * are taken one by one. The groups are merged by their first job's
 * priority (a heap): each entry placed costs one priority and a step of
 * the heap, and the entries placed are exactly those of the full sort.
 *
 * What the scan did not read is left at the end of the queue in no order
 * (s->q.loose from s->q.qloose on), with stale priorities: below every job
 * placed, it decides nothing while no processor is free (order_holds asks
 * only whether one rises above the last job the plan looked at);
 * qorder_tighten sorts it when a command looks or the rest of the plan is
 * made.
 */
#ifndef MOKU_POLICY_QORDER_H
#define MOKU_POLICY_QORDER_H

#include <stddef.h>
#include <stdint.h>

#include "core/sched_int.h"
#include "policy/prio.h"

#define QORDER_ALONE SIZE_MAX /* a heap entry that is a job by itself */

/* A credential group's jobs, jobs[next, end) still to place, in priority
 * order unless `alone` (then each is its own heap entry). */
struct qorder_group {
    struct job *first; /* its credentials */
    struct job *tail;  /* its last job in queue order (split) */
    size_t next, end;
    int alone;
    int unsorted; /* its jobs in queue order are not in queue-time order */
    int resubmit; /* and, when they are, not in submission order */
};

struct qorder_head {
    struct job *j; /* priority fresh */
    size_t g;      /* its group, or QORDER_ALONE */
};

/* The placing's state, kept in the scheduler between passes (no
 * allocation per pass once the buffers have grown to the queue). Public
 * for qorder_place's common case, inline in the scan's loop; the rest of
 * it is qorder.c's. */
struct qorder {
    struct prio_env env;
    struct prio_batch pb; /* pb.env is &env */
    long now;
    struct job **jobs;      /* the queue's jobs, group after group */
    struct qorder_run *run; /* split's runs of one group's jobs, in queue order */
    size_t nrun, capjobs, caprun;
    struct qorder_group *g;
    size_t ng, capg;
    struct qorder_slot *slot; /* credentials' hash */
    size_t nslot, capslot;
    unsigned gen;             /* this pass's slots: no clear of the table per pass */
    struct qorder_head *heap; /* the groups' next jobs by priority (prio_before) */
    size_t nheap, capheap;
    struct qorder_looked *look; /* qorder_look's, kept apart from the queue */
    struct job **lookq;
    size_t caplook, caplookq;
    /* What the last pass left, queue entries [tail_from, tail_to) entry
     * after entry (the runs it placed, then its loose tail), while tail_ok
     * (qorder_drop_tail): the next split takes a group's entry as it is, a
     * run known to be in order. While placing, the runs placed so far, and
     * the open one from seg_from, of a group (seg_g) or alone. */
    struct qorder_tail *tail;
    size_t ntail, captail, tail_from, tail_to, seg_from;
    int tail_ok;
    size_t seg_g; /* the open run's group, or QORDER_ALONE */
    /* take_tail's: the last pass's group number (nwas of them) to this
     * pass's, QORDER_ALONE until met. */
    size_t *was;
    size_t nwas, capwas;
};

/* Whether this full pass may place the queue lazily: a dynamic priority
 * that no job's own state or a throttling walk moves between the order and
 * the scan (no limits or fairshare caps, holds or deferrals), and a scan
 * that alone reads the order (FIRSTFIT or no backfill, no HIGHEST
 * reservations, no owner preemption, no REJECTNEGPRIOJOBS). */
int qorder_usable(const struct sched *s);

/* Start placing the queue's jobs, entries [qhead, qlen) with their holes,
 * in priority order at now: the queue is compacted as they are grouped
 * (qhead 0, qlen their number, as sched_compact_queue leaves it), and every
 * group's first job's priority is computed (and so every credential's
 * fairshare delta made current) before any job starts. Sets s->q.placing;
 * entries from s->q.qplaced on are not placed yet. */
void qorder_start(struct sched *s, long now);

/* qorder_place's general case: entries up to i placed one by one. */
void qorder_place_upto(struct sched *s, size_t i);
/* The heap's top, a group's next job just put there, sifted down to its
 * place from child c, the one that comes before it (what qorder_place's
 * common case leaves when it does not stay, after its first step's
 * comparisons), after the placed job: the run it ended is noted for the
 * next split. */
void qorder_sink_top(struct sched *s, size_t c);

/*
 * Place queue entries up to i (qplaced <= i < qlen): the next jobs in
 * priority order, their priorities fresh. A scan asks for one entry at a
 * time, and the top of the heap is mostly a group whose next job still
 * comes first (a few credential groups, each with many jobs): that case
 * is inline, a priority and the comparisons sift_down's first step makes
 * (the same ones, the same order), without a call but the priority's.
 */
static inline void qorder_place(struct sched *s, size_t i)
{
    struct qorder *o = s->q.ord;
    struct qorder_head *h = o->heap;
    struct qorder_group *q = o->nheap && h->g != QORDER_ALONE ? &o->g[h->g] : NULL;
    if (i != s->q.qplaced || !q || q->next + 1 >= q->end) { /* a job alone, or the last */
        qorder_place_upto(s, i);
        return;
    }
    struct job *j = o->jobs[++q->next];
    s->q.queue[s->q.qplaced++] = h->j;
    j->priority = prio_batch_start(&o->pb, j, o->now);
    h->j = j;
    if (o->nheap > 1) {
        size_t c = o->nheap > 2 && prio_before(h[2].j, h[1].j) ? 2 : 1;
        if (prio_before(h[c].j, j))
            qorder_sink_top(s, c);
    }
}

/* End the placing: the jobs not placed fill [qplaced, qlen) in no order
 * (s->q.loose, s->q.qloose). */
void qorder_finish(struct sched *s);

/*
 * The loose tail, entries [qloose, qloose_end) of the queue, as the last
 * pass left it (valid while s->q.loose: no job left the queue since, or a
 * full pass would have come first): k < qorder_nloose entries, each the
 * jobs of a credential group in priority order (grouped: the first is the
 * group's highest at any time) or one job alone. n gets their number.
 */
size_t qorder_nloose(const struct sched *s);
struct job *const *qorder_loose_entry(const struct sched *s, size_t k, size_t *n, int *grouped);

/* Forget the loose tail the last pass left, for the next pass's split
 * (which otherwise takes a group's entry in it as it is, unlooked at):
 * before anything moves the queue's entries (a compaction, a sort) or may
 * have changed a waiting job's credentials, queue time or system priority
 * (s->el.elig_all), and at a pass that does not place the queue. */
void qorder_drop_tail(struct sched *s);
/* Put a loose tail in priority order at now (priorities made fresh): what
 * the last pass did not read, before a command or the rest of the plan
 * looks at it. Nothing when there is none. */
void qorder_tighten(struct sched *s, long now);

/*
 * The compacted queue's n jobs (qhead 0, no holes) in priority order at
 * now, for a command that looks: a poll whose order holds keeps the jobs it
 * placed in their old order below the last one the plan looked at, and a
 * job whose priority rose since (XFACTOR) may sit below one it passed. A
 * copy, sorted on priorities of its own: the queue and the jobs' stored
 * priorities, which the next iteration reads, stay as they are. Valid
 * until the next look.
 */
struct job *const *qorder_look(struct sched *s, long now, size_t n);

void qorder_destroy(struct qorder *o);

#endif
