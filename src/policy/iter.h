/*
 * iter — the scheduling iteration's public part: completing the last plan
 * for commands (policy/iter.c; the iteration itself is reached through
 * sched_iterate, engine/engine.h).
 */
#ifndef MOKU_POLICY_ITER_H
#define MOKU_POLICY_ITER_H

#include "core/sched.h"

/* Make the rest of the last plan: an iteration leaves the reservations of
 * jobs that could not affect any start for later once no processor is
 * free. Commands call this before they look (the command layer does). */
void sched_complete_plan(struct sched *s);

/* Times a lower-priority job was backfilled ahead of waiting job j (Maui's
 * bypass count): its record's count and what its last quick-scan note still
 * owes (policy/iter.c). */
long sched_job_bypass(const struct sched *s, const struct job *j);

#endif
