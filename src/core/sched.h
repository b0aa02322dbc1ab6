/*
 * sched — the scheduler object: it owns the nodes, the jobs, the credentials,
 * the policy and the plan, and it is the engine's whole public face.
 *
 * The engine does no I/O and never reads the clock: every call that depends
 * on time takes `now`. A driver (the simulator, later the daemon) feeds it
 * events in time order — jobs submitted, jobs ended — and calls
 * sched_iterate() once per scheduling iteration; the engine answers by
 * starting jobs through the resource-manager callback it was given.
 *
 * No globals: two sched objects are fully independent.
 */
#ifndef MOKU_SCHED_H
#define MOKU_SCHED_H

#include <stddef.h>

#include "core/cred.h"
#include "core/job.h"
#include "core/node.h"
#include "core/resv.h"
#include "policy/fs.h"
#include "policy/prio.h"
#include "util/err.h"

struct cfg;
struct srcfg_def;

enum bf_policy { BF_NONE, BF_FIRSTFIT, BF_BESTFIT, BF_GREEDY, BF_PREEMPT };

/* NODEALLOCATIONPOLICY: the order nodes are offered to a starting job
 * (within each reservation-affinity level; policy/alloc.c). */
enum node_alloc {
    NALLOC_FIRSTAVAILABLE,
    NALLOC_LASTAVAILABLE,
    NALLOC_MINRESOURCE,
    NALLOC_CPULOAD,
    NALLOC_PRIORITY,
    NALLOC_FASTEST,
    NALLOC_MAXBALANCE,
};

/* NODEACCESSPOLICY: who may share a node. */
enum node_access { NACCESS_SHARED, NACCESS_SINGLEJOB, NACCESS_SINGLETASK, NACCESS_SINGLEUSER };

/* BACKFILLMETRIC: what BESTFIT and GREEDY maximise. */
enum bf_metric { BFM_PROCS, BFM_NODES, BFM_PROCSECONDS, BFM_SECONDS, BFM_PE, BFM_PESECONDS };
/* BFPRIORITYPOLICY: the order of backfill candidates under PREEMPT. */
enum bf_prio { BFP_RANDOM, BFP_DURATION, BFP_HWDURATION, BFP_NONE };
/* RESERVATIONPOLICY. */
enum res_policy { RP_CURRENTHIGHEST, RP_HIGHEST, RP_NEVER };
/* RESERVATIONTHRESHOLDTYPE. */
enum res_threshold { RT_NONE, RT_BYPASS, RT_QUEUETIME, RT_XFACTOR };

/* RESERVATIONDEPTH[i] and RESERVATIONQOSLIST[i]: up to SCHED_RESGROUPS
 * groups of QOS, each with its own number of priority reservations. */
#define SCHED_RESGROUPS 8
struct sched_resgroup {
    int depth;
    char qos[256]; /* QOS names separated by blanks, ',' or ':'; "" or [ALL]: every QOS */
};

/* PREEMPTPOLICY: what happens to a preempted job. */
enum preempt_policy { PREEMPT_REQUEUE, PREEMPT_SUSPEND };

/* The scheduling policy, read from maui.cfg by sched_policy_from_cfg. */
struct sched_policy {
    enum bf_policy backfill; /* BACKFILLPOLICY */
    int resdepth;            /* priority reservations per iteration, all groups */
    struct sched_resgroup resgroup[SCHED_RESGROUPS]; /* RESERVATIONDEPTH[i], RESERVATIONQOSLIST[i] */
    int nresgroups;
    enum res_policy respolicy;   /* RESERVATIONPOLICY */
    enum res_threshold resthresh; /* RESERVATIONTHRESHOLDTYPE */
    long resthreshvalue;          /* RESERVATIONTHRESHOLDVALUE */
    int bfdepth;                  /* BACKFILLDEPTH: backfill candidates per pass, 0 = all */
    enum bf_metric bfmetric;      /* BACKFILLMETRIC */
    long bfmaxschedules;          /* BACKFILLMAXSCHEDULES: GREEDY search bound */
    enum bf_prio bfprio;          /* BFPRIORITYPOLICY */
    long bfchunksize;             /* BFCHUNKSIZE (processors), 0 = off */
    long bfchunkduration;         /* BFCHUNKDURATION */
    long defertime;          /* DEFERTIME: how long a job stays deferred */
    int defercount;          /* DEFERCOUNT: deferrals before a batch hold */
    int deferstartcount;     /* DEFERSTARTCOUNT: failed starts before a deferral */
    long overrun;            /* JOBMAXOVERRUN: seconds past its walltime before a job is
                                killed; -1 = never killed */
    struct prio_params prio; /* the priority function's weights and caps */
    struct fs_params fs;     /* fairshare: FSPOLICY, FSINTERVAL, FSDEPTH, FSDECAY */
    enum node_alloc nalloc;  /* NODEALLOCATIONPOLICY */
    enum node_access naccess; /* NODEACCESSPOLICY */
    enum preempt_policy preempt; /* PREEMPTPOLICY (OWNERPREEMPT reservations) */
};

/* How the engine starts jobs: the resource manager's side of the boundary.
 * start() returns 0 when the job runs on j->slots, -1 when it could not be
 * started (the engine then keeps it queued). */
struct sched_rm {
    int (*start)(void *ctx, struct job *j, long now);
    /* Preempt running job j (OWNERPREEMPT): requeue it (the driver calls
     * sched_requeue once it has stopped) or suspend it (the driver sets
     * JOB_SUSPENDED; the job keeps its nodes, the engine plans as if it
     * were gone until resumed by sched_resume_preempted). NULL: no
     * preemption. Returns 0 if done. */
    int (*preempt)(void *ctx, struct job *j, enum preempt_policy how, long now);
    /* Resume job j the engine suspended by preemption, on its nodes (its
     * walltime clock runs again). NULL: nothing to tell. */
    int (*resume)(void *ctx, struct job *j, long now);
    void *ctx;
};

struct sched_stats {
    long iterations;  /* sched_iterate calls */
    long full_passes; /* iterations that re-planned the whole queue */
    long started;     /* jobs started */
    long backfilled;  /* of which started ahead of a waiting higher-priority job */
    long preempted;   /* running jobs preempted for a reservation's owner (OWNERPREEMPT) */
};

struct sched;

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
/* on: eligibility under throttling limits walks every idle job at every
 * iteration, as Maui does, instead of only the credentials whose answer can
 * have changed (policy/eset.c). The same schedule; for comparison. */
void sched_set_full_walk(struct sched *s, int on);
void sched_destroy(struct sched *s);
/* Replace the resource-manager callbacks (NULL: none). */
void sched_set_rm(struct sched *s, const struct sched_rm *rm);

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
 * FULLPOLICY its queue time starts again then). Errors: job not idle. */
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
size_t sched_nnodes(const struct sched *s);
const struct node *sched_node(const struct sched *s, size_t i);
/* Processors of node i dedicated to running jobs. */
int sched_node_used(const struct sched *s, size_t i);
/* Processors on nodes that are up. */
long long sched_up_procs(const struct sched *s);

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
/* Whether a new submission of spec is within MAXSUBMITJOBS: every
 * credential (user, group, account, class and the QOS it would get; its own
 * limit, else its DEFAULT object's) has fewer jobs queued, held or running than its limit. The
 * drivers ask before sched_submit for a new job (not for jobs restored);
 * err: "user alice already has 72 jobs queued or running (MAXSUBMITJOBS
 * 72)". */
int sched_submit_allowed(const struct sched *s, const struct job_spec *spec, struct err *err);
/* A driver's default MAXSUBMITJOBS for the objects of kind k whose own
 * limit and DEFAULT object's both are unset (0 = none, the engine's
 * default): the daemon bounds each user's jobs by default (docs/daemon.md);
 * a replay takes its trace as it is. */
void sched_default_maxsubmit(struct sched *s, enum cred_kind k, long n);

/* Why a job could never run on this scheduler's nodes, whatever else runs
 * or waits (policy/fit.c). */
enum sched_fit {
    SCHED_FITS,       /* it could run */
    SCHED_TOO_LARGE,  /* more processors than the up nodes have in all */
    SCHED_NO_NODES,   /* no set of up nodes with its features and partition can hold it:
                         a task larger than any such node, fewer such nodes than its
                         tasks per node need, fewer processors than it asks */
    SCHED_OVER_LIMIT, /* its request alone is over a HARD active or idle throttling limit,
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
/* Set (text) or clear (NULL) the driver's note on j (job.h: message). */
void sched_job_note(struct sched *s, struct job *j, const char *text);

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
int sched_adopt(struct sched *s, struct job *j, long start, const struct job_slot *slots,
                size_t n, struct err *err);
/* Start an idle job now on whatever processors are free, ignoring policies
 * and reservations (Maui runjob -x). Errors, in Maui's words: not enough
 * idle processors, or the resource manager refused. */
int sched_runjob(struct sched *s, struct job *j, long now, struct err *err);
/* Charge j's credentials the fairshare usage of running from `from` to `to`
 * (a job that ended while the daemon was down, after the last saved
 * fairshare checkpoint), into the current window. */
void sched_fs_charge(struct sched *s, const struct job *j, long from, long to);
/* Node i is now up, down or drained, as the resource manager says (reason:
 * why, or NULL; checknode shows it). A node no longer up takes no new job
 * and leaves the plans; the jobs running on it keep their processors until
 * their end is reported. */
void sched_node_set_state(struct sched *s, size_t i, enum node_state st, const char *reason);
/* Index of the node named name, or -1. */
long sched_find_node(const struct sched *s, const char *name);
/* A running job goes back to the queue (the resource manager requeued it):
 * its processors are freed and it waits again, its queue time restarting
 * at now. Errors: job not running. */
int sched_requeue(struct sched *s, struct job *j, long now, struct err *err);
/* The resource manager took the start of running job j and then did not
 * start it (Slurm left it pending): requeued as sched_requeue does, and
 * counted as a failed start, as a start refused at once is
 * (DEFERSTARTCOUNT, DEFERTIME, DEFERCOUNT). Errors: job not running. */
int sched_start_failed(struct sched *s, struct job *j, long now, struct err *err);

/* ---- reservations (core/resv.h; policy/resv.c) ---- */

/*
 * Create an administrative reservation (setres) at `now`: choose its nodes
 * (HOSTLIST hosts, or TASKCOUNT tasks on nodes that have the features and
 * partition, without a conflicting reservation: one that is DEDICATED, or
 * any when the new one is), give it the id <base>.<n> and make it count from
 * the next iteration. Errors: bad window (end <= start, end <= now), a host
 * or regex that matches no node, fewer tasks found than asked (unless
 * BESTEFFORT). Nothing is created on error.
 */
struct resv *sched_resv_create(struct sched *s, const struct resv_spec *spec, long now,
                               struct err *err);
/* The number the next reservation id <base>.<n> gets (0 for a base never
 * used). */
long sched_resv_next_number(const struct sched *s, const char *base);
/* Ids <base>.<n> go on from `next` at least (a driver that keeps the
 * numbering across restarts, so that a released id is never given again;
 * a lower value than the scheduler's own changes nothing). */
void sched_resv_number_from(struct sched *s, const char *base, long next);
/* Same, with the id given (the daemon's store restoring its reservations);
 * the nodes given are taken as they are (indices into the node table). */
struct resv *sched_resv_restore(struct sched *s, const struct resv_spec *spec, const char *id,
                                const struct resv_node *nodes, size_t nnodes, long created,
                                struct err *err);
/* A reservation the resource manager holds (Slurm's), mirrored as
 * RESV_EXTERNAL with the id and nodes given, made at now (so jobs already
 * running on its nodes stay). Only the driver changes it
 * (sched_resv_drop_external); release and setres -m refuse it. */
struct resv *sched_resv_external(struct sched *s, const struct resv_spec *spec, const char *id,
                                 const struct resv_node *nodes, size_t nnodes, long now,
                                 struct err *err);
/* Remove external reservation id; -1 when there is none. */
int sched_resv_drop_external(struct sched *s, const char *id);
/* Release (destroy) reservation id. Errors: no such reservation; a standing
 * reservation's instance (change SRCFG instead); an external one. */
int sched_resv_release(struct sched *s, const char *id, struct err *err);
/* What setres -m changes of an administrative reservation: its window, and
 * its ACL and flags when given. */
struct resv_change {
    long start, end;       /* the new window, end > start */
    const struct acl *acl; /* the new ACL (copied), NULL: kept */
    int set_flags;         /* flags replace the old ones */
    unsigned flags;
};
/* Change administrative reservation id in place: same id, nodes, owner and
 * creation time, a new window, ACL or flags. Refused when another
 * reservation keeps it off one of its nodes over the new window (a
 * DEDICATED one, or any when it is DEDICATED; FORCE overrides), for a
 * standing reservation's instance, or an empty window. The reservation is
 * a new object afterwards (its serial changes; pointers to the old one
 * stay valid until the next iteration, as after a release). */
int sched_resv_modify(struct sched *s, const char *id, const struct resv_change *ch,
                      struct err *err);
/* Reservations in creation order; valid until the next change. */
size_t sched_nresv(const struct sched *s);
const struct resv *sched_resv_at(const struct sched *s, size_t i);
const struct resv *sched_find_resv(const struct sched *s, const char *id);
/* Whether name is a reservation's id, an administrative reservation's name
 * or a standing reservation's (SRCFG) name: what ADVRES may ask for. */
int sched_resv_name_known(const struct sched *s, const char *name);
/*
 * Standing reservations from cfg (SRCFG and the legacy SR* parameters,
 * policy/srcfg.h); their instances are created at the next iteration and
 * kept DEPTH periods ahead, in the calendar of zone (UTC unless told).
 * All or nothing; errors name file, line and reservation.
 */
int sched_standing_from_cfg(struct sched *s, const struct cfg *cfg, struct err *err);
/* Standing reservations that can place nothing whatever happens (a HOSTLIST
 * host no node matches, features or a partition no node has, tasks bigger
 * than every node, STARTTIME equal to ENDTIME), one line each,
 * "<file>:<line>: SRCFG[<name>]: <why>: it reserves nothing\n"; NULL when
 * there are none. Ask after the nodes are added. Caller frees. */
char *sched_standing_warnings(const struct sched *s);
/* The standing reservation definitions, in srcfg_load's order. */
size_t sched_nstanding(const struct sched *s);
const struct srcfg_def *sched_standing_at(const struct sched *s, size_t i);
/* Why definition i's current window has no instance (NULL when it has, or
 * none was due), and in *windows (may be NULL) how many of its windows so
 * far went wanting for a reason that may pass (nodes down, DEDICATED
 * reservations in the way; not those sched_standing_warnings names). */
const char *sched_standing_wanting(const struct sched *s, size_t i, long *windows);
/* The calendar standing reservations follow (srtime.h), and the epoch of
 * driver time 0 (sched_set_epoch) is used to turn driver time into dates. */
void sched_set_zone(struct sched *s, int local, long offset);
void sched_get_zone(const struct sched *s, int *local, long *offset);
/* The epoch time of driver time 0 (sched_set_epoch). */
long sched_epoch(const struct sched *s);
/* Whether job j may use reservation r if it ran over [start, start +
 * walltime), and with which affinity (ACL_NONE: no). */
enum acl_affinity sched_resv_access(const struct sched *s, const struct resv *r,
                                    const struct job *j, long start);
/* Why job j, which asks for a reservation by name (ADVRES), can run in none:
 * no reservation or standing reservation of that name admits it, whatever
 * its start ("it asks for reservation 'x', whose ACL does not admit it
 * (USER==bob+)"), or there is none of that name. NULL when one admits it or
 * it asks for none. The text is written into buf (n bytes). */
const char *sched_job_advres_refused(const struct sched *s, const struct job *j, char *buf,
                                     size_t n);

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
/* Far future: what the two above return for "never". */
#define SCHED_NEVER ((long)1 << 62)

/* A standing reservation's TRIGGER with an exec or submit action came due
 * (policy/trigger.c): the driver runs it, or says it cannot. */
struct sched_fired {
    char *resv;        /* the instance's id */
    const char *event; /* "create", "start", "end" */
    int submit;        /* action submit (data: a job script), else exec (data: a command) */
    char *data;
    long at;
};
/* Take the oldest fired trigger: 1 and *out filled (free with
 * sched_fired_free), or 0 when none is waiting. */
int sched_pop_fired(struct sched *s, struct sched_fired *out);
void sched_fired_free(struct sched_fired *f);

/* The next instant after now at which a reservation begins or ends
 * (AVAIL_NEVER-like far future if none), standing ones only when asked:
 * drivers wake the scheduler then, as for a job's end. */
long sched_next_event(const struct sched *s, long now, int standing);

/* The next instant after now at which the engine's own state can let a
 * waiting job start with no outside event (policy/wake.c): an
 * administrative reservation begins or ends, a deferral or a requested start
 * date ends, a priority reservation's start falls between job ends, a
 * chunking hold ends, or a fairshare window closes while the ledger still
 * holds usage. Standing reservations are not counted (they recur for ever;
 * see sched_next_event). AVAIL_NEVER-like far future if nothing remains. */
long sched_next_wakeup(const struct sched *s, long now);

/* When the engine kills a running job for exceeding its walltime
 * (start + walltime + JOBMAXOVERRUN), or AVAIL_NEVER-like far future when
 * overruns are unlimited. */
long sched_kill_time(const struct sched *s, const struct job *j);

/*
 * One scheduling iteration at `now` (after this instant's ends and
 * submissions have been reported): order the queue by priority, start what
 * fits, hold priority reservations for the first RESERVATIONDEPTH jobs that
 * do not, and backfill around them.
 */
void sched_iterate(struct sched *s, long now);

/* What priorities are weighed against: configured totals and the DEFAULT
 * credentials. */
void sched_prio_env(const struct sched *s, struct prio_env *env);
/* When j's queue time (for priority) started: qtime_start, or the last
 * scheduling iteration while its accrual is stopped (JOBPRIOACCRUALPOLICY). */
long sched_job_qtime(const struct sched *s, const struct job *j);
/* Priority of job j at now, taken apart (start priority for idle jobs, run
 * priority for running ones). */
double sched_job_priority(const struct sched *s, const struct job *j, long now,
                          struct prio_parts *parts);

/* Make the rest of the last plan: an iteration leaves the reservations of
 * jobs that could not affect any start for later once no processor is
 * free. Commands call this before they look (the command layer does). */
void sched_complete_plan(struct sched *s);

/* The idle jobs in the order of the last plan (priority order), for
 * commands; *n is set. The array is owned by s and valid until the next
 * call into s. */
struct job *const *sched_queue(const struct sched *s, size_t *n);
/* Why an idle job is blocked (not eligible for scheduling: over an idle or
 * active policy limit, or a per-job limit it can never meet), in Maui's
 * words ("job 12 violates active SOFT MAXPS limit of 72000 for user alice
 * (R: 28800, U: 69896)"); NULL when the job is eligible or not idle. */
const char *sched_job_blocked(const struct sched *s, const struct job *j);
/* Whether showq lists an idle job under BLOCKED, and why (NULL: under IDLE).
 * Maui's throttling page: a job over a SOFT limit only is idle — the hard
 * pass may still start it, and it counts against the idle limits — while a
 * job over a HARD or idle limit (MAXIJOB), held, deferred, or rejected for
 * its negative priority (REJECTNEGPRIOJOBS) is blocked. */
const char *sched_job_listed_blocked(const struct sched *s, const struct job *j);
/* Idle jobs: eligible ones (blocked == 0) or blocked ones (blocked == 1). */
size_t sched_count_idle(const struct sched *s, int blocked);
/* Why idle job j is not running, as the last plan saw it. */
enum job_wait sched_job_wait(const struct sched *s, const struct job *j);
/* Look a job up by name; NULL if none. */
struct job *sched_find_job(const struct sched *s, const char *name);
/* Time of the last scheduling iteration. */
long sched_last_iteration(const struct sched *s);

/* The fairshare ledger (policy/fs.h): usage windows and targets. Always
 * present; with FSPOLICY NONE nothing accrues. Drivers load and save its
 * windows (stats/fsfile.h); fs_advance on it is theirs to call at window
 * boundaries, the engine calls it at every iteration. */
struct fs *sched_fs(const struct sched *s);
/* The epoch time of driver time 0 (a trace's UnixStartTime; 0 when times
 * are epoch times already). Fairshare windows align on epoch time. Set it
 * before the first event. */
void sched_set_epoch(struct sched *s, long epoch);

/* Jobs ever submitted, and the i-th of them in submission order: NULL once
 * forgotten (sched_job_forget). */
size_t sched_njobs(const struct sched *s);
struct job *sched_job(const struct sched *s, size_t i);
/* Free the record of job j, which has ended (completed, or removed before it
 * started): the driver will not ask about it again. A replay without
 * commands frees each job when it ends, so its memory grows with the queue,
 * not the trace. Its name no longer finds it, sched_job() gives NULL at its
 * place and commands that count past jobs (showstats) no longer see it; the
 * engine's own tallies (sched_stats, fairshare usage) keep what it added.
 * Returns -1, doing nothing, for a job still idle or running. */
int sched_job_forget(struct sched *s, struct job *j);
/* Jobs waiting to start. */
size_t sched_nidle(const struct sched *s);
size_t sched_nrunning(const struct sched *s);
struct cred_table *sched_creds(const struct sched *s, enum cred_kind kind);
const struct sched_policy *sched_policy(const struct sched *s);
const struct sched_stats *sched_stats(const struct sched *s);
/* The throttling limits in effect (policy/limits.h), for commands to read
 * (limits_configured); never NULL. */
struct limits;
const struct limits *sched_limits(const struct sched *s);

#endif
