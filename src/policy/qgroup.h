/*
 * qgroup — idle jobs grouped by their five credentials, for a look at the
 * queue's order that need not compute every job's priority.
 *
 * Within a group whose priority is a function of the queue time alone
 * (prio_queue_time_only: queue time and what the credentials decide are
 * all that is weighted), the order never moves with time: the job that has
 * waited longest is the group's highest (or lowest, under a negative
 * weight). So whether any job of the group sorts before a given job is
 * known from that one job's priority, unless it ties exactly; then the
 * group's jobs are looked at one by one. The answer is the same as
 * computing every job's priority; only the count of priorities computed
 * differs (an HPC2N poll: about 3 groups for 48 waiting jobs).
 *
 * A table serves one look at a time and is kept for the next (the
 * scheduler's): a generation count empties it, not a clear of every slot.
 * It holds at most QGROUP_MAX groups and leaves a job it cannot group to
 * the caller.
 */
#ifndef MOKU_POLICY_QGROUP_H
#define MOKU_POLICY_QGROUP_H

#include <stddef.h>
#include <stdint.h>

#include "core/job.h"
#include "policy/prio.h"

struct sched;

#define QGROUP_MAX 64
#define QGROUP_SLOTS 128 /* open addressing, at most half full */

struct qgroup {
    struct job *first; /* its first job: the credentials */
    struct job *best;  /* the job that has waited longest (dir > 0) or least */
    int dir;           /* prio_queue_time_only of the group */
    unsigned gen;      /* the look it belongs to: other than the set's, an empty slot */
};

/* What a look grouped, for a next look that only extends it (policy/
 * iter.c's order_holds, at the same plan): the jobs below `last` from queue
 * entries [from, to), every one of them grouped. Set by the caller. */
struct qgroup_kept {
    unsigned long plan_gen;
    const struct job *last;
    size_t from, to;
    int valid; /* cleared by qgroup_init */
};

struct qgroup_set {
    struct qgroup slot[QGROUP_SLOTS];
    int n;
    unsigned gen;
    uint64_t used[QGROUP_SLOTS / 64]; /* the slots of this look: no walk of all of them */
    struct qgroup *last;              /* the group of the last job added (if of this look) */
    struct qgroup_kept kept;
};

/* Empty g for a new look (g zeroed before its first one). */
void qgroup_init(struct qgroup_set *g);

/* Take idle job j into its group: 1 done, 0 when j cannot be grouped (its
 * priority depends on more than its queue time, or the table is full) and
 * the caller must look at it itself. */
int qgroup_add(struct qgroup_set *g, const struct prio_batch *pb, struct job *j);

/* qgroup_add for v[from, to), NULL entries skipped, up to the first job it
 * cannot group: that one's index (qgroup_add was asked), or to. A run of
 * one group's jobs costs a comparison of credentials each, no call. */
size_t qgroup_add_run(struct qgroup_set *g, const struct prio_batch *pb, struct job *const *v,
                      size_t from, size_t to);

/*
 * Whether some grouped job sorts before `last` (prio_cmp) at now, with
 * last->priority fresh. The jobs grouped were taken from queue positions
 * [from, to); those whose priority was computed have it refreshed
 * (j->priority), the others keep their last one. pb brings fairshare
 * deltas up to date (fsacct_batch_init).
 */
int qgroup_any_before(struct qgroup_set *g, struct sched *s, struct prio_batch *pb,
                      const struct job *last, size_t from, size_t to, long now);

#endif
