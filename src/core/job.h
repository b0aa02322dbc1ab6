/*
 * job — a batch job: what it asks for, who asked, and where it stands.
 *
 * Jobs are owned by the scheduler object (struct sched); everything else
 * borrows pointers. A job's request is fixed at submission; its state,
 * reservation and allocation are changed only by the engine.
 */
#ifndef MOKU_JOB_H
#define MOKU_JOB_H

#include <stddef.h>

#include "core/cred.h"

struct cred;
struct plan_take;
struct resv_charge;

enum job_state {
    JOB_IDLE,      /* queued, waiting to start */
    JOB_RUNNING,   /* started, holding its nodes */
    JOB_COMPLETED, /* ended (normally or killed at its walltime) */
    JOB_REMOVED,   /* cancelled before it started */
};

#define JOB_BACKFILLED 0x1  /* started ahead of a higher-priority waiting job */
#define JOB_RESERVED 0x2    /* holds a priority reservation in the current plan */
#define JOB_SPVIOLATION 0x4 /* running over a soft policy limit (Maui SPVIOLATION) */
#define JOB_HARDOK 0x8      /* within its hard limits: the hard pass may start it */
#define JOB_BLOCKED 0x10    /* idle but not eligible (over a soft limit or a per-job one) */
#define JOB_STARTDATE                                                                              \
    0x20 /* deferred_until is the job's requested start date (qsub -a),                            \
            not a deferral after a failed start */
#define JOB_SUSPENDED                                                                              \
    0x40 /* running, but stopped by the resource manager (it keeps its                             \
            processors); set by the driver */
#define JOB_PREEMPTED                                                                              \
    0x80 /* suspended by OWNERPREEMPT (PREEMPTPOLICY SUSPEND): its                                 \
            processors went to the preemptor; resumed on the same                                  \
            nodes when they are free again */

#define JOB_PREEMPTEE                                                                              \
    0x100 /* backfilled under BACKFILLPOLICY PREEMPT: a higher-priority job                        \
             may preempt it */
#define JOB_ATTR_PREEMPTEE                                                                         \
    0x400 /* submitted flagged PREEMPTEE (a Maui trace's job flags):                               \
             reservations' JOBATTRLIST=PREEMPTEE admit it */
#define JOB_HADRESV                                                                                \
    0x200 /* RESERVATIONPOLICY HIGHEST: held a priority reservation in the                         \
             last plan, keeps one until it runs */
#define JOB_QSTOP                                                                                  \
    0x800              /* its queue time is not accruing (blocked, JOBPRIOACCRUALPOLICY):          \
                          it counts from the last eligibility walk, not qtime_start */
#define JOB_INB 0x2000 /* in its credential's list of stopped jobs (policy/eset.c) */
#define JOB_PARKED                                                                                 \
    0x1000 /* blocked at every level: out of the scan's queue, in its                              \
              credential's list only (policy/eset.c); or, under                                    \
              whole-queue walks, refused for ever and in s->el.parked                              \
              only (policy/elig.c) */
#define JOB_STARTING                                                                               \
    0x4000 /* running for the engine (its nodes are held), but the resource                        \
              manager has not reported it running yet (Slurm schedules a                           \
              release within a second or so); set by the driver */

/* Holds (Maui's hold types): a held job is blocked until every hold is
 * released. */
#define HOLD_USER 0x1
#define HOLD_SYSTEM 0x2
#define HOLD_BATCH 0x4
#define HOLD_DEFER                                                                                 \
    0x8 /* sched_release only: the deferral after failed starts, Maui's defer                      \
           hold (releasehold -a lifts it with the others) */
#define HOLD_DEP                                                                                   \
    0x10 /* engine/dep.c only: waiting for its dependencies (qsub -W depend=);                     \
            shown as a system hold, as Torque's; releasehold does not lift it */
#define HOLD_SLOT                                                                                  \
    0x20 /* engine/array.c only: a task of a job array waiting for a slot under its %N slot        \
            limit; shown as a system hold, as Torque's slot-limit hold; releasehold does not       \
            lift it */

/* Why an idle job is not running, as the last scheduling iteration saw it. */
enum job_wait {
    WAIT_NONE,      /* not examined yet (or running) */
    WAIT_RESOURCES, /* not enough processors free now; no reservation left for it */
    WAIT_RESERVED,  /* holds a priority reservation starting at resv_start */
    WAIT_DELAYS,    /* would fit now, but would delay a higher-priority reservation */
    WAIT_PRIORITY,  /* BACKFILLPOLICY NONE: a higher-priority job is waiting */
    WAIT_REJECTED,  /* negative priority under REJECTNEGPRIOJOBS: not considered */
    WAIT_POLICY,    /* starting now would exceed an active policy limit */
};

/* How an administrator's system priority applies (Maui setspri). */
enum job_sysprio { SYSPRIO_NONE, SYSPRIO_ABSOLUTE, SYSPRIO_RELATIVE };

/* Processors a running job holds: `procs` on each of `nnodes` consecutive
 * nodes of the scheduler's node table, from index `node` on, and `mem` MB
 * of memory on each (0 when the job asks for none, or the nodes' memory is
 * not known). Runs keep the allocation of a job spread over thousands of
 * small nodes compact. */
struct job_slot {
    unsigned node;
    unsigned nnodes;
    unsigned procs;
    unsigned mem;
};

/* job_spec.mem_per_node: all of the memory of every node the job gets
 * (what Slurm gives a job without a memory request when memory is a
 * consumable resource and no default is configured). */
#define JOB_MEM_WHOLE (-1L)

/* What a submitter asks for; copied into the job by sched_submit. */
struct job_spec {
    const char *name;     /* job id as text (a trace's job number) */
    int tasks;            /* >= 1 */
    int procs_per_task;   /* >= 1 */
    long mem_per_task;    /* MB each task needs on its node, 0 = none (Maui's dedicated
                             memory: placement and the plan count it where nodes have a
                             known memory) */
    long mem_per_node;    /* MB each node the job gets must give it besides its tasks'
                             (Slurm's --mem), JOB_MEM_WHOLE, 0 = none */
    int exclusive;        /* its nodes are its own, whole (Slurm's --exclusive) */
    int max_nodes;        /* on at most this many nodes (a Slurm partition's MaxNodes), 0 = any */
    long swap_per_task;   /* MB */
    long disk_per_task;   /* MB */
    int nodes;            /* requested node count, 0 = none given */
    int tpn;              /* tasks per node: 0 = any number; else every node the job gets
                             holds exactly tpn of its tasks, so it spans tasks / tpn distinct
                             nodes (Torque's nodes=N:ppn=P is N tasks of P processors, tpn 1);
                             tasks must then be a multiple of tpn */
    const char *features; /* required node features, list as for nodes; NULL = none */
    long walltime;        /* requested limit, seconds, >= 1 */
    long submit;          /* epoch or trace seconds */
    const char *user, *group, *account, *class_, *qos, *partition; /* NULL = DEFAULT */
    size_t tag;         /* the driver's own handle for the job, returned untouched */
    unsigned holds;     /* HOLD_* at submission (qsub -h: HOLD_USER) */
    double util;        /* fraction of its processors it keeps busy (FSPOLICY UTILIZEDPS),
                           0..1, when util_known */
    int util_known;     /* util is known: 0 is then a job that uses no CPU */
    long start_after;   /* not to start before this time (qsub -a); 0 = any time */
    const char *advres; /* run only in this reservation (id, or base name for any of its
                           instances; qsub -W x=ADVRES:name); NULL = any */
    int preemptee;      /* flagged PREEMPTEE (JOB_ATTR_PREEMPTEE) */
    int any_size;       /* accepted even when more than the up nodes hold: a job the
                           resource manager already has (Slurm's), whose nodes may be down
                           only for a while; it waits, blocked, until they are back */
    const char *hosts;  /* "node:tasks[,node:tasks]...": exactly that many of its tasks on
                           each named node and nowhere else (Torque's nodes=n1:ppn=2+n2);
                           the counts sum to tasks, tpn is 0; NULL = any nodes */
    /* NULL, or the user, group, account and class objects the names above
     * are, known from this scheduler's jobs before (a replay's jobs share a
     * few names: no look-up per job). */
    struct cred *const *creds;
};

/* One host of a job's host list: `tasks` of its tasks on node `node` (an
 * index into the scheduler's node table). */
struct job_host {
    unsigned node;
    unsigned tasks;
};

struct job {
    /* What a scan of a long queue reads or writes for nearly every waiting
     * job (policy/iter.c's quick_run), kept together in the first 48 bytes:
     * one cache line, or two when malloc's 16-byte alignment puts the
     * record's start late in a line (records aligned on a line cost HPC2N's
     * replay 11 MB of heap for no measurable gain). Spread over five lines,
     * the scan of 50,000 waiting jobs waited on memory (issue 31). */
    int tasks;
    int procs_per_task;
    long walltime;
    unsigned flags;
    enum job_wait wait; /* idle: why not running, as of plan wait_gen */
    int exclusive;      /* job_spec.exclusive */
    unsigned bp_slot;   /* see bypass */
    unsigned long wait_gen;
    /* Times a lower-priority job was backfilled ahead of it (Maui's bypass
     * count, sched_job_bypass) when bp_slot is 0. Otherwise a quick scan
     * noted it blocked in the plan of slot bp_slot, and the count is bypass
     * plus the bypass clock's reading at that plan's end (policy/iter.c). */
    long bypass;
    enum job_state state;

    char *name;
    size_t order; /* submission sequence number: the final tie-breaker */
    long mem_per_task, swap_per_task, disk_per_task; /* MB per task */
    long mem_per_node; /* MB per node besides its tasks', JOB_MEM_WHOLE, 0 = none */
    int max_nodes;     /* job_spec.max_nodes */
    int nodes;         /* requested node count (Maui Request.NC), 0 = none */
    int tpn;           /* tasks per node (Maui TasksPerNode, exact), 0 = any: job_spec.tpn */
    /* ended: the exit status the resource manager reported, -1 unknown (here
     * beside the request's ints, and the ints below in pairs: no padding, a
     * record of 480 bytes, 24 fewer, which a daemon keeps 100,000 of) */
    int exit_status;
    char **features; /* required node features */
    size_t nfeatures;
    long submit;
    long qtime_start; /* when priority queue time started accruing (JOBPRIOACCRUALPOLICY) */
    struct cred *user, *group, *account, *class_, *qos;
    char *partition; /* requested partition name or NULL */

    double priority;               /* start priority at the last ordering */
    enum job_sysprio sysprio_mode; /* administrator's system priority, if any */
    unsigned holds;                /* HOLD_*: blocked while any is set */
    long sysprio;
    long deferred_until;        /* deferred (blocked) until this instant; 0 = not deferred */
    char *blocked;              /* JOB_BLOCKED: why, in Maui's words (owned), filled on demand by
                                   sched_job_blocked(); may be stale or NULL otherwise */
    unsigned long jobcheck_gen; /* per-job limits checked under this limits generation */
    int jobcheck_ok;            /* ... and the answer */
    unsigned long alone_gen;    /* its request alone checked under this limits generation */
    unsigned alone_levels;      /* ... and the levels (bit 1 << lim_level) at which that request
                                   alone goes over an active or idle limit: refused for ever
                                   (bit 4 << lim_level: an active one, policy/elig.c) */
    int startcount;             /* failed starts since the last deferral */
    int nstarts;                /* times started (checkjob's StartCount): a requeued job started
                                   again counts each start; a resumption is not a start */
    int defercount;             /* deferrals so far */
    long start;                 /* when it started (JOB_RUNNING, JOB_COMPLETED) */
    long end;                   /* when it ended (JOB_COMPLETED) */
    long planned_end;           /* running: the end the plan assumes (start + walltime, or later if
                                   overrunning) */
    long resv_start;            /* start of its priority reservation, or -1 */
    double util;                /* job_spec.util, clamped to 0..1; -1 when unknown */
    char *advres;               /* job_spec.advres (owned) or NULL */
    double fs_rate;             /* running: fairshare usage units it accrues per second */
    long susp_left;             /* JOB_PREEMPTED: walltime left when it was suspended */
    long preempted_iter;        /* the iteration (sched_stats) that last preempted it, 0 = none */
    char *message;              /* the driver's note (why its start failed, ...), shown by checkjob
                                   as Maui's Messages; owned, NULL = none (sched_job_note) */

    struct job_slot *slots; /* running: the processors it holds, in node order */
    size_t nslots;
    size_t slots_cap; /* slots' room when policy/alloc.c made it, else 0 (not kept for reuse) */
    /* What the plan holds for it on the one-region fast path (running: its
     * slots' processors and memory; reserved: the estimate it was held
     * with), so that giving it back gives back what was taken. */
    long long plan_procs, plan_mem;

    /* Engine bookkeeping when reservations or node classes matter
     * (policy/plan.c): what the job holds in the plan, per region, and the
     * reserved processors it uses, per reservation node. */
    struct plan_take *takes;
    size_t ntakes;
    struct resv_charge *charges;
    size_t ncharges;

    size_t heap_pos; /* position in the scheduler's running-job heap */
    size_t epos;     /* idle: position in its credential's list (policy/eset.c), SIZE_MAX none */
    long qstop_iter; /* the iteration whose walk set JOB_QSTOP */
    size_t tag;      /* the driver's handle (job_spec.tag) */
    struct job_dep *deps; /* engine/dep.h: what it waits for (owned), NULL = none */
    size_t ndeps;
    struct job_host *hosts; /* job_spec.hosts, in the order given (owned); NULL = any nodes */
    size_t nhosts;
    /* A task of a job array (engine/array.h): the array's name (shared
     * with the array's other tasks: engine/array.c, never changed or freed
     * but by it; NULL: not a task), its index, and the array's slot limit
     * (0: none). */
    char *array;
    unsigned aindex;
    unsigned aslots;
    /* name's storage when it is short (a trace's job numbers): a replay
     * submits and drops jobs by the 100,000, and a malloc and free of a
     * few bytes each was a tenth of a submission (engine/engine.c). */
    char name_inline[16];
};

/* Whether j runs only on the hosts it names: the one test by which
 * placement's fast paths step aside (policy/plan.c, policy/alloc.c). */
static inline int job_has_hostlist(const struct job *j)
{
    return j->nhosts > 0;
}

/* The state Maui shows: "UserHold", "SystemHold" or "BatchHold" for a held
 * idle job (the strongest hold), "Deferred" for a deferred one, else
 * job_state_name(). */
const char *job_display_state(const struct job *j);
/* Processors the job needs: tasks x processors per task. Inline: a scan of
 * a long queue asks it of every waiting job (policy/iter.c). */
static inline long long job_procs(const struct job *j)
{
    return (long long)j->tasks * j->procs_per_task;
}
/* Copy what spec asks for (tasks, processors, memory, swap, disk, nodes,
 * tasks per node, exclusive, max_nodes, walltime) into j, as sched_submit
 * makes a job of it; names, credentials and state are the caller's. One
 * copy for the engine and for the fit check's stand-in job (policy/fit.c),
 * so that a check judges the job a submission would make. */
void job_request_from_spec(struct job *j, const struct job_spec *spec);
/* Whether the job asks for memory (per task or per node). */
int job_wants_mem(const struct job *j);
/* Memory the job needs on a node of `node_mem` MB holding `tasks` of its
 * tasks (0 when it asks for none, or node_mem is 0: not known). */
long job_node_mem(const struct job *j, long node_mem, long tasks);
/* "Idle", "Running", "Completed", "Removed". */
const char *job_state_name(enum job_state s);
/* The job's credential of kind k (its DEFAULT ones included). */
const struct cred *job_cred(const struct job *j, enum cred_kind k);

#endif
