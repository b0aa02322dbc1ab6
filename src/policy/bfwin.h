/*
 * bfwin — what the last plan offers: backfill windows (showbf) and the
 * earliest start of a job or of a request (showstart; policy/bfwin.c).
 */
#ifndef MOKU_POLICY_BFWIN_H
#define MOKU_POLICY_BFWIN_H

#include "core/sched.h"

/* ---- what the plan offers (policy/bfwin.c): showbf, showstart ---- */

/* A backfill window: procs free from now for duration seconds (-1: no
 * limit), on at most `nodes` nodes. */
struct sched_window {
    long long procs;
    long nodes;
    long duration;
};
/* The windows a job with who's credentials (features, partition) could
 * use, as the last iteration left the plan, widest and shortest first.
 * Writes at most max and returns how many there are. */
size_t sched_backfill_windows(struct sched *s, const struct job_spec *who, long now,
                              struct sched_window *out, size_t max);
/* BACKFILLPOLICY NONE: the job the last plan stopped at (the first eligible
 * job that could not start; nothing after it may start), NULL when nothing
 * waits or another policy is in force. Under NONE no job gets a priority
 * reservation (Maui 3.3.1's MJobPReserve makes none: one is made only to
 * protect a job from backfill, and there is none); this job starts when the
 * plan first has room for it (sched_earliest_start). */
const struct job *sched_fcfs_head(const struct sched *s);
/* When idle job j could start: its priority reservation's start, else the
 * earliest instant the plan has room for it (AVAIL_NEVER-like far future
 * if never); a running job's start. */
long sched_earliest_start(struct sched *s, const struct job *j, long now);
/* The same for a job that is not there: spec's tasks x procs_per_task for
 * spec's walltime, with its credentials. */
long sched_earliest_for(struct sched *s, const struct job_spec *spec, long now);
/* "Never" is SCHED_NEVER (core/sched.h). */

#endif
