/*
 * engine — the scheduler's façade, the engine's whole public face for
 * drivers (the simulator, the daemon, the commands): create a scheduler from
 * a policy and a configuration, feed it events in time order — jobs
 * submitted, started, ended, held, released, requeued, cancelled — and call
 * sched_iterate() once per scheduling iteration; the engine answers by
 * starting jobs through the resource-manager callback it was given.
 *
 * The engine does no I/O and never reads the clock: every call that depends
 * on time takes `now`. No globals: two sched objects are fully independent.
 *
 * Layers: this module (engine/) calls down into policy/ and core/; policy/
 * calls core/ and never this module. The scheduler's data and the questions
 * every layer may ask are core/sched.h; what policy modules offer drivers
 * directly is in their public headers, included here.
 */
#ifndef MOKU_ENGINE_H
#define MOKU_ENGINE_H

#include "engine/array.h"
#include "engine/dep.h"
#include "engine/engine.h"
#include "policy/bfwin.h"
#include "policy/fit.h"
#include "policy/fsacct.h"
#include "policy/iter.h"
#include "policy/queue.h"
#include "policy/resv.h"
#include "policy/trigger.h"
#include "policy/wake.h"

struct cfg;

/* Default policy (Maui's defaults: FIRSTFIT, depth 1, ...). */
void sched_policy_default(struct sched_policy *pol);
/*
 * Read the policy from a configuration: backfill, reservations, overrun and
 * the priority block. Values the engine cannot honour yet are refused with a
 * message rather than silently changed: BACKFILLPOLICY BESTFIT, GREEDY and
 * PREEMPT and RESERVATIONPOLICY HIGHEST are errors for now.
 */
int sched_policy_from_cfg(const struct cfg *cfg, struct sched_policy *pol, struct err *err);

/* An empty scheduler (no nodes, no jobs). The policy is copied; rm may be
 * NULL (jobs are then started without asking anyone). Caller destroys. */
struct sched *sched_create(const struct sched_policy *pol, const struct sched_rm *rm);
void sched_destroy(struct sched *s);

/* Add a node. Errors: empty or duplicate name, procs < 1. */
int sched_add_node(struct sched *s, const struct node_spec *spec, struct err *err);
/* Add every NODECFG[name] object of cfg as a node (PROCS, MEMORY, SWAP,
 * DISK, FEATURES, PARTITION, STATE). All or nothing; errors name the node. */
int sched_add_nodes_from_cfg(struct sched *s, const struct cfg *cfg, struct err *err);
/* Credentials from USERCFG/GROUPCFG/ACCOUNTCFG/CLASSCFG/QOSCFG (PRIORITY, QDEF,
 * QLIST, CLASSWEIGHT, QOS weights, targets and flags) and the legacy QOS*
 * parameters. All or nothing; errors name file, line and object. */
int sched_creds_from_cfg(struct sched *s, const struct cfg *cfg, struct err *err);
/* Throttling limits from USERCFG ... SYSCFG, QOS overrides and flags,
 * per-user limits in a class or QOS, SYSTEMMAX* and the legacy MAX*PER*
 * parameters (policy/limits.h). All or nothing. */
int sched_limits_from_cfg(struct sched *s, const struct cfg *cfg, struct err *err);
/* Add holds (HOLD_* bits) to an idle job; it is blocked until all are
 * released. Errors: job not idle, no hold named. */
int sched_hold(struct sched *s, struct job *j, unsigned holds, struct err *err);
/* Release holds (HOLD_* bits) of a job at `now` (under JOBPRIOACCRUALPOLICY
 * FULLPOLICY its queue time starts again then); HOLD_DEFER ends a deferral
 * after failed starts (not a requested start date). Errors: job not idle. */
int sched_release(struct sched *s, struct job *j, unsigned holds, long now, struct err *err);
/* Set an administrator's system priority on an idle job (Maui setspri):
 * SYSPRIO_ABSOLUTE with 0..1000, SYSPRIO_RELATIVE with any value,
 * SYSPRIO_NONE to clear. Errors: job not idle, value out of range. */
int sched_set_sysprio(struct sched *s, struct job *j, enum job_sysprio mode, long value,
                      struct err *err);
/* Change an idle job's QOS (setqos). With check, the job's credentials must
 * allow it (QLIST/QDEF, as at submission); an administrator passes 0.
 * Errors: not idle, not allowed. */
int sched_set_qos(struct sched *s, struct job *j, const char *qos, int check, struct err *err);
/* Change an idle job's walltime (qalter -l walltime=): its plan, limits
 * and eligibility are looked at again. Errors: not idle, walltime < 1. */
int sched_set_walltime(struct sched *s, struct job *j, long walltime, struct err *err);

/*
 * Queue a job submitted at spec->submit. Refused (NULL, err set) when the
 * request is malformed or asks for more processors than the cluster has:
 * such a job could never run, and shrinking it would falsify the workload.
 * The job is owned by s.
 *
 * QOS: the requested one (spec->qos) when the job's user, group, account or
 * class lists it (QLIST or QDEF), or when no credential restricts QOS at all;
 * else the first QDEF of user, group, account, class (then of their DEFAULT
 * objects); else "DEFAULT".
 */
struct job *sched_submit(struct sched *s, const struct job_spec *spec, struct err *err);

/* A running job ended at `now` (completed, failed or killed): free its
 * nodes. */
void sched_job_ended(struct sched *s, struct job *j, long now);
/* A job that ended before this scheduler existed (the daemon's history
 * after a restart): recorded as JOB_COMPLETED (or JOB_REMOVED when removed)
 * with its start (0 = never started), end and exit status, for commands
 * and statistics; it never takes part in scheduling. */
struct job *sched_add_ended(struct sched *s, const struct job_spec *spec, long start, long end,
                            int removed, int exit_status, struct err *err);
/* Remove an idle job from the queue (canceljob): it becomes JOB_REMOVED.
 * A running job is cancelled through the resource manager, which then
 * reports its end. Errors: job not idle. */
int sched_cancel(struct sched *s, struct job *j, long now, struct err *err);
/* A job found running (the daemon restarted while it ran): mark it running
 * since `start` on exactly these processors (node indices, as in
 * job->slots). Errors: not idle, unknown node. */
int sched_adopt(struct sched *s, struct job *j, long start, const struct job_slot *slots, size_t n,
                struct err *err);
/* The resource manager runs job j on other processors than the engine
 * chose (Slurm's own split of its tasks over the nodes it was given, whole
 * nodes for an exclusive job, more memory than asked): from now on j holds
 * exactly these (node indices, as in job->slots), in the nodes' counts
 * and the plan. Errors: not running (or suspended by preemption), a node
 * not in the table; nothing changes then. */
int sched_job_reslot(struct sched *s, struct job *j, const struct job_slot *slots, size_t n,
                     long now, struct err *err);
/* Start an idle job now on whatever processors are free, ignoring policies
 * and reservations (Maui runjob -x). Errors, in Maui's words: not enough
 * idle processors, or the resource manager refused. */
int sched_runjob(struct sched *s, struct job *j, long now, struct err *err);
/* Node i is now up, down or drained, as the resource manager says (reason:
 * why, or NULL; checknode shows it). A node no longer up takes no new job
 * and leaves the plans; the jobs running on it keep their processors until
 * their end is reported. */
void sched_node_set_state(struct sched *s, size_t i, enum node_state st, const char *reason);
/* A running job goes back to the queue (the resource manager requeued it):
 * its processors are freed and it waits again, its queue time restarting
 * at now. Errors: job not running. */
int sched_requeue(struct sched *s, struct job *j, long now, struct err *err);
/* Running job j never ran (the daemon died between committing its start
 * and launching it; the resource manager never started it): requeued as
 * sched_requeue does, and the fairshare usage counted since its start taken
 * back, so that the live books agree with the store's, which count a job's
 * runs only. Errors: job not running. */
int sched_start_undone(struct sched *s, struct job *j, long now, struct err *err);
/* The resource manager took the start of running job j and then did not
 * start it (Slurm left it pending): undone as sched_start_undone does, and
 * counted as a failed start, as a start refused at once is
 * (DEFERSTARTCOUNT, DEFERTIME, DEFERCOUNT). Errors: job not running. */
int sched_start_failed(struct sched *s, struct job *j, long now, struct err *err);

/*
 * One scheduling iteration at `now` (after this instant's ends and
 * submissions have been reported): order the queue by priority, start what
 * fits, hold priority reservations for the first RESERVATIONDEPTH jobs that
 * do not, and backfill around them.
 */
void sched_iterate(struct sched *s, long now);
/* When j's queue time (for priority) started, seen at now: qtime_start, or
 * while its accrual is stopped (JOBPRIOACCRUALPOLICY) the last scheduling
 * iteration or RMPOLLINTERVAL instant before now (prio_qstop_from). */
long sched_job_qtime(const struct sched *s, const struct job *j, long now);
/* Priority of job j at now, taken apart (start priority for idle jobs, run
 * priority for running ones). */
double sched_job_priority(const struct sched *s, const struct job *j, long now,
                          struct prio_parts *parts);

/* The idle jobs in the order of their priorities at now (a command's
 * time; the scheduler's own queue is not reordered), for commands; *n is
 * set. The array is owned by s and valid until the next call into s. */
struct job *const *sched_queue(const struct sched *s, long now, size_t *n);
/* Why an idle job is blocked (not eligible for scheduling: over an idle or
 * active policy limit, or a per-job limit it can never meet), in Maui's
 * words ("job 12 violates active SOFT MAXPS limit of 72000 for user alice
 * (R: 28800, U: 69896)"); NULL when the job is eligible or not idle. A
 * hold blocks a job from the moment it is put on, before any iteration. */
const char *sched_job_blocked(const struct sched *s, const struct job *j);
/* Whether showq lists an idle job under BLOCKED, and why (NULL: under IDLE).
 * Maui's throttling page: a job over a SOFT limit only is idle — the hard
 * pass may still start it, and it counts against the idle limits — while a
 * job over a HARD or idle limit (MAXIJOB), held, deferred, or rejected for
 * its negative priority (REJECTNEGPRIOJOBS) is blocked. */
const char *sched_job_listed_blocked(const struct sched *s, const struct job *j);
/* Idle jobs: eligible ones (blocked == 0) or blocked ones (blocked == 1). */
size_t sched_count_idle(const struct sched *s, int blocked);
/* Bring what time alone accrues — the fairshare ledger's usage of running
 * jobs and the deltas priorities weigh — up to now, deciding nothing: a
 * snapshot between iterations (simulate --until) shows usage as of its
 * instant. */
void sched_accrue(struct sched *s, long now);
/* The epoch time of driver time 0 (a trace's UnixStartTime; 0 when times
 * are epoch times already). Fairshare windows align on epoch time. Set it
 * before the first event. */
void sched_set_epoch(struct sched *s, long epoch);
/* Free the record of job j, which has ended (completed, or removed before it
 * started): the driver will not ask about it again. A replay without
 * commands frees each job when it ends, so its memory grows with the queue,
 * not the trace. Its name no longer finds it, sched_job() gives NULL at its
 * place and commands that count past jobs (showstats) no longer see it; the
 * engine's own tallies (sched_stats, fairshare usage) keep what it added.
 * Returns -1, doing nothing, for a job still idle or running. */
int sched_job_forget(struct sched *s, struct job *j);

#endif
