/*
 * wake — when the engine's own state next lets a waiting job start, and the
 * polls a moving priority order needs (policy/wake.c).
 */
#ifndef MOKU_POLICY_WAKE_H
#define MOKU_POLICY_WAKE_H

#include "core/sched.h"

/* The next instant at which the engine's own state can let a waiting job
 * start with no outside event (policy/wake.c): now itself right after an
 * iteration at now that started jobs under throttling limits or fairshare
 * caps (what they changed is walked again); else after now, when running
 * jobs' remaining processor-seconds (or walltime) have run down enough for
 * a job a limit refused, an administrative reservation begins or ends, a
 * deferral or a requested start date ends, a priority reservation's start
 * falls between job ends, a chunking hold ends, a job passes the
 * reservation threshold, or a fairshare window closes while the ledger
 * still holds usage. Standing reservations are not counted (they recur for
 * ever; see sched_next_event), nor polls (sched_next_poll). AVAIL_NEVER-like
 * far future if nothing remains: these run out. */
long sched_next_wakeup(const struct sched *s, long now);

/* When the priority order moves with time (a factor other than queue time
 * weighted), the next multiple of RMPOLLINTERVAL after now while a
 * crossing there could change what an iteration decides (a waiting job
 * fits the free processors, an idle limit, RESERVATIONPOLICY HIGHEST,
 * preemption): Maui re-sorts at every poll. AVAIL_NEVER-like far future
 * otherwise. These never run out while jobs wait: a replay follows them
 * only as long as it follows standing reservations. */
long sched_next_poll(const struct sched *s, long now);

/* How much queue time a priority of queue time alone needs to reach its top
 * (QUEUETIMECAP, SERVICECAP, the clip), a second early (a walk or poll that
 * comes early asks again); AVAIL_NEVER when it never does (no queue-time
 * weight, or a top past any trace's time). Fixed with the policy
 * (sched_create keeps it as top_need; policy/eset.c's wake_order reads it:
 * jobs whose queue time accrues tie there out of their order below it). */
long wake_top_need(const struct sched_policy *pol);

/* How much queue time jobs whose queue time is stopped need to reach the top
 * of a priority of queue time alone (QUEUETIMECAP, SERVICECAP, the clip), a
 * second early; 0 when the top is more than a poll interval of queue time
 * away or infinite (with no polls: whenever it is finite), so they never
 * can: they count queue time from the last walk or RMPOLLINTERVAL instant
 * (prio_qstop_from). Fixed with the policy (sched_create keeps it as
 * stopped_need; policy/eset.c's eset_stopped_top reads it). */
long wake_stopped_need(const struct sched_policy *pol);

#endif
