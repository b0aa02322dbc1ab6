/*
 * prio — job start priority (Maui's MJobGetStartPriority).
 *
 * This first version computes the service component's queue-time factor
 * only — SERVICEWEIGHT x QUEUETIMEWEIGHT x minutes queued, at least 1 —
 * which is Maui's out-of-the-box priority. The other factors of the weighted
 * sum come with the full priority function.
 */
#ifndef MOKU_PRIO_H
#define MOKU_PRIO_H

#include "core/job.h"
#include "core/sched.h"

/* Start priority of idle job j at `now`. */
double prio_start(const struct sched_policy *pol, const struct job *j, long now);

/*
 * Whether ordering by priority is, at every instant, the same as ordering by
 * submission (submit time, then submission sequence). Then the queue never
 * needs re-sorting and a plan stays valid while only new jobs arrive.
 */
int prio_order_is_submission(const struct sched_policy *pol);

/* qsort comparator for struct job *: priority descending, then earlier
 * submit time, then earlier submission. */
int prio_cmp(const void *a, const void *b);

#endif
