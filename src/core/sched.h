/*
 * sched — the scheduler object's data: the policy it runs, the callbacks
 * that start jobs, its statistics, and the questions every layer may ask of
 * it (nodes, jobs, credentials, the priority environment). Defined in
 * core/sched.c, which calls nothing above core/. The scheduler's façade —
 * create, submit, iterate, end, hold, requeue, cancel — is engine/engine.h,
 * which drivers include; policy/ includes this header and never that one.
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
#include "core/params.h"
#include "core/resv.h"
#include "util/err.h"

struct fs; /* policy/fs.h: the fairshare ledger */

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
    struct sched_resgroup
        resgroup[SCHED_RESGROUPS]; /* RESERVATIONDEPTH[i], RESERVATIONQOSLIST[i] */
    int nresgroups;
    enum res_policy respolicy;    /* RESERVATIONPOLICY */
    enum res_threshold resthresh; /* RESERVATIONTHRESHOLDTYPE */
    long resthreshvalue;          /* RESERVATIONTHRESHOLDVALUE */
    int bfdepth;                  /* BACKFILLDEPTH: backfill candidates per pass, 0 = all */
    enum bf_metric bfmetric;      /* BACKFILLMETRIC */
    long bfmaxschedules;          /* BACKFILLMAXSCHEDULES: GREEDY search bound */
    enum bf_prio bfprio;          /* BFPRIORITYPOLICY */
    long bfchunksize;             /* BFCHUNKSIZE (processors), 0 = off */
    long bfchunkduration;         /* BFCHUNKDURATION */
    long defertime;               /* DEFERTIME: how long a job stays deferred */
    int defercount;               /* DEFERCOUNT: deferrals before a batch hold */
    int deferstartcount;          /* DEFERSTARTCOUNT: failed starts before a deferral */
    long overrun;                 /* JOBMAXOVERRUN: seconds past its walltime before a job is
                                     killed; -1 = never killed */
    long poll;                    /* RMPOLLINTERVAL: Maui iterates at least this often, which
                                     the engine's accrual and wake-ups reckon with (wake.c) */
    struct prio_params prio;      /* the priority function's weights and caps */
    struct fs_params fs;          /* fairshare: FSPOLICY, FSINTERVAL, FSDEPTH, FSDECAY */
    enum node_alloc nalloc;       /* NODEALLOCATIONPOLICY */
    enum node_access naccess;     /* NODEACCESSPOLICY */
    enum preempt_policy preempt;  /* PREEMPTPOLICY (OWNERPREEMPT reservations) */
    int fill_in_order;            /* the resource manager spreads a job's tasks over the nodes it is
                                     given itself, in table order, each node as full as it can be while
                                     every later one keeps a task (Slurm's cons_tres): placement
                                     splits them the same way over the nodes it chose (policy/alloc.c).
                                     Set by a driver, not by maui.cfg */
};

/* How the engine starts jobs: the resource manager's side of the boundary.
 * start() returns 0 when the job runs on j->slots, -1 when it could not be
 * started (the engine keeps it queued and counts a failed start:
 * DEFERSTARTCOUNT, then DEFERTIME), or SCHED_RM_LATER when it cannot start
 * yet for a reason of the driver's own that passes by itself (a preempted
 * run of the same job still ending): queued, no failure counted, tried
 * again at the next iteration. */
#define SCHED_RM_LATER 1
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

/* Far future: what the engine answers for "never" (sched_earliest_start,
 * reservations without an end). */
#define SCHED_NEVER ((long)1 << 62)

/* on: eligibility under throttling limits walks every idle job at every
 * iteration, as Maui does, instead of only the credentials whose answer can
 * have changed (policy/eset.c). The same schedule; for comparison. */
void sched_set_full_walk(struct sched *s, int on);
/* Replace the resource-manager callbacks (NULL: none). */
void sched_set_rm(struct sched *s, const struct sched_rm *rm);
size_t sched_nnodes(const struct sched *s);
const struct node *sched_node(const struct sched *s, size_t i);
/* Processors of node i dedicated to running jobs. */
int sched_node_used(const struct sched *s, size_t i);
/* Processors on nodes that are up. */
long long sched_up_procs(const struct sched *s);
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
/* Set (text) or clear (NULL) the driver's note on j (job.h: message). */
void sched_job_note(struct sched *s, struct job *j, const char *text);
/* Index of the node named name, or -1. */
long sched_find_node(const struct sched *s, const char *name);

/* When the engine kills a running job for exceeding its walltime
 * (start + walltime + JOBMAXOVERRUN), or AVAIL_NEVER-like far future when
 * overruns are unlimited. */
long sched_kill_time(const struct sched *s, const struct job *j);

/* What priorities are weighed against: configured totals and the DEFAULT
 * credentials. */
void sched_prio_env(const struct sched *s, struct prio_env *env);
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

/* Jobs ever submitted, and the i-th of them in submission order: NULL once
 * forgotten (sched_job_forget). */
size_t sched_njobs(const struct sched *s);
struct job *sched_job(const struct sched *s, size_t i);
size_t sched_nrunning(const struct sched *s);
struct cred_table *sched_creds(const struct sched *s, enum cred_kind kind);
const struct sched_policy *sched_policy(const struct sched *s);
const struct sched_stats *sched_stats(const struct sched *s);
/* The throttling limits in effect (policy/limits.h), for commands to read
 * (limits_configured); never NULL. */
struct limits;
const struct limits *sched_limits(const struct sched *s);

#endif
