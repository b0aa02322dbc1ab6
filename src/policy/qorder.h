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

struct sched;
struct qorder;

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

/* Place queue entries up to i (i < qlen): the next jobs in priority order,
 * their priorities fresh. */
void qorder_place(struct sched *s, size_t i);

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
