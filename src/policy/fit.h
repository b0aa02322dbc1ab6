/*
 * fit — whether a job could ever run on the scheduler's nodes, within its
 * limits and the reservation it names (policy/fit.c).
 */
#ifndef MOKU_POLICY_FIT_H
#define MOKU_POLICY_FIT_H

#include "core/sched.h"

/* Why a job could never run on this scheduler's nodes, whatever else runs
 * or waits (policy/fit.c). */
enum sched_fit {
    SCHED_FITS,         /* it could run */
    SCHED_TOO_LARGE,    /* more processors than the up nodes have in all */
    SCHED_NO_NODES,     /* no set of up nodes with its features and partition can hold it:
                           a task larger than any such node, fewer such nodes than its
                           tasks per node need, fewer processors than it asks */
    SCHED_OVER_LIMIT,   /* its request alone is over a HARD active or idle throttling limit,
                           or over a per-job limit (MAX.WCLIMIT, MAXPROCPERJOB, ...) */
    SCHED_RESV_REFUSES, /* it asks for a reservation (ADVRES) whose ACL admits it at no
                           start: every reservation and standing reservation of that name
                           refuses its credentials */
};
/* What sched_job_fit checks. */
#define SCHED_FIT_SIZE 0x1   /* SCHED_TOO_LARGE: one comparison (sched_submit's check) */
#define SCHED_FIT_NODES 0x2  /* SCHED_NO_NODES: a walk over the nodes */
#define SCHED_FIT_LIMITS 0x4 /* SCHED_OVER_LIMIT: the limits of its credentials */
#define SCHED_FIT_RESV 0x8   /* SCHED_RESV_REFUSES: the ACL of the reservation it names */
#define SCHED_FIT_ALL 0xf
#define SCHED_FIT_CONFIGURED                                                                       \
    0x10 /* with NODES: every node as configured, up or not (a                                     \
            resource manager's node that is down may come back);                                   \
            SIZE is then left to NODES */
/*
 * Whether a job asking for spec could ever run here: the checks in `what`,
 * in the order above; the first that fails is returned, with err saying why
 * in words that follow "the job" ("asks for 5 processors, the cluster has
 * 4", "needs 6 processors on one node, the largest node has 4", "violates
 * active HARD MAXPROC limit of 1 for user alice (R: 2, U: 0)", "asks for
 * reservation 'x', whose ACL does not admit it (USER==bob+)"). Reservations
 * are not considered (they end), but for the one an ADVRES names: its ACL
 * is the job's only door. Nothing in s changes: credentials the
 * spec names that s does not know are looked at as their DEFAULT objects.
 * sched_submit refuses SCHED_TOO_LARGE (a simulated workload keeps the
 * rest, to count them as never started); the daemon refuses all four.
 */
enum sched_fit sched_job_fit(const struct sched *s, const struct job_spec *spec, unsigned what,
                             struct err *err);

#endif
