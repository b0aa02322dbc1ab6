/*
 * dep — job dependencies (Torque's qsub -W depend=): a job that waits for
 * other jobs to start or end. The engine holds such a job with HOLD_DEP
 * (shown as a system hold, as Torque's dependency hold is) and releases it
 * at the first scheduling iteration after its last dependency is satisfied;
 * one that can never be satisfied (afterok on a job that failed or was
 * removed, afternotok on one that succeeded) is removed, as Torque deletes
 * it, with the reason as its message.
 *
 * Types: after (the other job has started), afterok (ended with exit status
 * 0, or an unknown one: a replayed job with no recorded failure), afternotok
 * (ended otherwise, or removed before it ended), afterany (ended or removed
 * in any way). Torque's before* and sync* types are refused by the parser.
 */
#ifndef MOKU_DEP_H
#define MOKU_DEP_H

#include <stddef.h>

#include "util/err.h"

struct sched;
struct job;

enum dep_type { DEP_AFTER, DEP_AFTEROK, DEP_AFTERNOTOK, DEP_AFTERANY };

/* One dependency: on job `on` (its name, host part removed). */
struct job_dep {
    enum dep_type type;
    char *on;
    int met; /* satisfied for good (judged once, so a purged job still counts) */
};

/* An ended job the scheduler no longer holds, as its driver remembers it
 * (the daemon's store: a job ended before the history it loaded). */
struct dep_past {
    int removed;     /* removed (cancelled, ...), else completed */
    long start;      /* when it started; 0: never */
    int exit_status; /* completed: its exit status, -1 unknown (counts as success) */
};
/* Where the scheduler asks about a job a dependency names that it does not
 * know: fn returns 1 with *p filled for an ended job the driver remembers,
 * 0 for none (then the job is unknown). Without it (the default), a job
 * the scheduler does not hold is unknown. */
void sched_set_dep_lookup(struct sched *s,
                          int (*fn)(void *ctx, const char *name, struct dep_past *p), void *ctx);

/* Parse a depend= value, "type:id[:id...][,type:id...]" (ids with or
 * without ".host"), into a new array (caller frees with dep_free). Errors
 * name the bad part; nothing is returned then. */
int dep_parse(const char *text, struct job_dep **deps, size_t *n, struct err *err);
void dep_free(struct job_dep *deps, size_t n);
/* "after", "afterok", "afternotok", "afterany". */
const char *dep_type_name(enum dep_type t);
/* Write the dependencies not yet met as a depend= value ("afterok:3:4");
 * returns the length it needed (snprintf's rule). */
size_t dep_text(const struct job_dep *deps, size_t n, char *buf, size_t len);

/* Give idle job j (no dependencies yet) the dependencies of text, judged at
 * once: held with HOLD_DEP while some wait. Errors (nothing changes): a
 * parse error, a job named that the scheduler does not know, a dependency
 * that can never be satisfied already. */
int sched_set_deps(struct sched *s, struct job *j, const char *text, struct err *err);
/* Replace the dependencies of idle job j (Torque's qalter -W depend=) by
 * those of text, judged at once: held with HOLD_DEP while some wait,
 * released at now (from a dependency hold only) when all are met already.
 * Errors (nothing changes): j not idle, a parse error, j itself named, a
 * job the scheduler does not know, a dependency that can never be
 * satisfied already, a cycle (a job named waits, through its own unmet
 * dependencies, for j). */
int sched_replace_deps(struct sched *s, struct job *j, const char *text, long now, struct err *err);
/* What sched_set_deps would refuse, for a job not queued yet (a driver
 * checks before it records the job): 0, or -1 with err. */
int sched_deps_check(struct sched *s, const char *text, struct err *err);
/* Judge the dependencies of every waiting job (sched_iterate does it before
 * and after its iteration): release those met, remove those that never
 * will be at now. Returns how many jobs were released. */
size_t sched_deps_update(struct sched *s, long now);
/* How many jobs sched_deps_update has removed since the scheduler was
 * made: a driver that records those removals looks again only when it
 * grew. */
size_t sched_deps_removed(const struct sched *s);
/* The engine's: job j, which had dependencies, is being freed (no longer
 * among the jobs held for them). */
void dep_forget(struct sched *s, const struct job *j);

#endif
