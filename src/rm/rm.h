/*
 * rm — the resource-manager boundary: what a driver asks of whatever runs
 * the jobs. One table of functions, several implementations:
 *
 *   rm_local_ops   runs jobs on this machine (rm/local.c; the daemon's)
 *   rm_slurm_ops   has Slurm run them on its cluster (rm/slurm.c)
 *   sim_rm_ops     plays the resource manager in simulated time (sim/)
 *
 * The engine never calls this: it asks its driver to start a job (struct
 * sched_rm), and the driver turns that into rm->ops->start. Jobs are named
 * by their id (the engine's job name). Functions return 0, or -1 with err;
 * one an implementation cannot do (suspending a simulated job) is an error
 * that says so, never a silent success.
 */
#ifndef MOKU_RM_H
#define MOKU_RM_H

#include <stddef.h>
#include <sys/types.h>

#include "core/node.h"
#include "util/err.h"

/* What to run and where. */
struct rm_job {
    const char *id;         /* the job's id */
    const char *array_task; /* an array task's Torque id "12[3]" (the local resource manager's
                               PBS_JOBID, PBS_ARRAYID, output names); NULL = not a task */
    const char *name;       /* its name (qsub -N), or NULL */
    const char *user;       /* who runs it */
    uid_t uid;
    gid_t gid;
    const char *script;              /* path of the script to run */
    int interactive;                 /* qsub -I: no script is run, the user's shell on qsub's
                                        terminal is (rm/local.h's local_job.interactive); only
                                        the local resource manager runs one (the daemon refuses
                                        it for the others) */
    const char *cwd;                 /* working directory */
    const char *out_path, *err_path; /* NULL: the implementation's default */
    const char *env;                 /* extra "K=V\n" lines, or NULL */
    const char *const *hosts;        /* one host name per processor */
    size_t nhosts;
    int tasks, procs_per_task; /* its tasks, each of so many processors on one node */
    long walltime;             /* seconds */
    long vmem_mb;              /* each process's address space limit (RLIMIT_AS), MB; 0 = none.
                                  Only the local resource manager applies it (the daemon
                                  refuses it for the others) */
    int nice;                  /* the nice value the job's processes run at (-20..19), likewise */
    size_t tag;                /* the engine job's tag (the simulator finds its record by it) */
};

/* RM_LOST: it ran, and neither it nor its end can be found. RM_UNKNOWN: the
 * resource manager has no trace of it. RM_NEVER: a start was begun but cut
 * short before the job ran (what is left of it goes with forget). */
enum rm_state { RM_RUNNING, RM_SUSPENDED, RM_ENDED, RM_LOST, RM_UNKNOWN, RM_NEVER };

struct rm_status {
    enum rm_state state;
    int exit_code;      /* RM_ENDED */
    long end;           /* RM_ENDED: when */
    char reason[16];    /* RM_ENDED: completed, walltime, cancelled, failed */
    char message[512];  /* RM_ENDED: why it could not start (reason failed); RM_NEVER:
                           why it is not running (or "") */
    int never_ran;      /* RM_ENDED: the job's program never ran (its start failed: the
                           output file, the working directory): Removed, not Completed */
    int failed_start;   /* RM_NEVER: it was given to the resource manager, which did not
                           start it for a reason that will not go away by itself (a failed
                           start, DEFERTIME applies), rather than a start cut short, a
                           requeue, a hold or a start to try again at once */
    int retry;          /* RM_NEVER: not carried out for a reason that may pass (moku's
                           picture of the nodes was late or wrong): to start again at once */
    unsigned holds;     /* RM_NEVER: HOLD_* the resource manager put on it since the start
                           (its user's or an administrator's hold): it waits, held */
    int ran;            /* RM_NEVER: it did run, and the resource manager requeued it: the
                           usage of that run stands. Otherwise it never ran, and the
                           fairshare usage counted since its start is taken back */
    int starting;       /* RM_RUNNING: given to the resource manager, not running there yet */
    const char *placed; /* RM_RUNNING, or NULL: where the resource manager runs it, when that
                           is first known, "node:procs:mem,..." (one entry a node, memory in
                           MB); valid until the next call */
};

/* Holds as this boundary names them: the bits of core/job.h's HOLD_*
 * (rm/slurm*.c cannot include job.h beside libslurm's header). */
#define RM_HOLD_USER 0x1
#define RM_HOLD_SYSTEM 0x2
#define RM_HOLD_BATCH 0x4

/* Where a job's dependencies (sbatch --dependency) stand. */
enum rm_dep {
    RM_DEP_NONE,    /* none, or all satisfied */
    RM_DEP_WAIT,    /* not yet satisfied */
    RM_DEP_NEVER,   /* can never be satisfied (afterok of a job that failed) */
    RM_DEP_UNKNOWN, /* a kind moku does not evaluate (singleton, aftercorr, array tasks) */
};

/* A job submitted to the resource manager itself (Slurm's sbatch), held
 * there for moku: what the daemon needs to queue it. Strings live until the
 * callback returns. */
struct rm_new_job {
    long id;          /* the resource manager's job id, also moku's */
    const char *name; /* NULL = none */
    const char *user, *group;
    long uid, gid;
    const char *account, *class_, *qos; /* NULL = none */
    const char *features;               /* "a,b", NULL = none */
    int tasks;                          /* tasks */
    int cpus_per_task;                  /* processors of each task, on one node (>= 1) */
    int tpn;                            /* tasks on each node it gets, 0 = any number */
    int nodes;                          /* nodes asked for, 0 = any */
    int max_nodes;                      /* at most this many nodes, 0 = any */
    long mem_per_task;                  /* MB each task needs, 0 = none */
    long mem_per_node;    /* MB each node must give it, -1 the whole node's, 0 = none */
    int exclusive;        /* its nodes are its own */
    long walltime;        /* seconds, 0 = none */
    long submit;          /* epoch seconds */
    long start_after;     /* not before (epoch seconds), 0 = any time */
    unsigned holds;       /* HOLD_USER, HOLD_SYSTEM: the holds it has there now (its user's,
                             an administrator's, or moku's own mirrored) */
    int release_asked;    /* an administrator released it there (a system hold of moku's
                             to lift; it still waits for moku) */
    const char *note;     /* what its record says of it for moku (Slurm's admin comment, as
                             hold_sync writes it), NULL = nothing */
    const char *blocked;  /* why the resource manager would not run it as it is now (a
                             partition's limit), NULL = nothing */
    const char *resv;     /* the reservation it asks for (sbatch --reservation), NULL = none */
    enum rm_dep dep;      /* its dependencies (sbatch --dependency), as they stand */
    const char *dep_text; /* their text, NULL = none */
    const char *hosts;    /* the nodes it must run on, with its tasks on each: "n1:2,n2:2"
                             (job_spec.hosts), NULL = any */
    long array;           /* a task of this job array (Slurm's array job id), 0 = not a task */
    unsigned array_task;  /* its index */
    unsigned array_slots; /* the array's limit of tasks running at once (%N), 0 = none */
};

/* A job submitted through moku (moku submit, qsub) into a resource manager
 * that keeps its own queue (Slurm), for the user who asked. */
struct rm_submit {
    const char *user; /* who submits, from the kernel */
    uid_t uid;
    gid_t gid;
    const char *name;   /* NULL: the resource manager's default */
    const char *script; /* the script's text */
    const char *shell;  /* -S, NULL = none */
    const char *cwd;
    const char *out_path, *err_path;    /* NULL: <cwd>/<name>.o<id>, .e<id> */
    int join;                           /* 1: the error stream into the output file */
    const char *account, *class_, *qos; /* NULL = none */
    const char *features;               /* "a,b", NULL = none */
    const char *hosts;                  /* "n1:2,n2:2": on exactly those hosts, so many
                                           processors on each (qsub_req.hosts), NULL = any */
    int tasks;                          /* processors */
    int nodes, ppn;                     /* nodes=N:ppn=P, nodes 0 = any */
    long mem_mb, walltime;              /* 0 = not given */
    long start_after;                   /* epoch, 0 = now */
    int hold;                           /* a user hold of moku's (qsub -h) */
    int exclusive;  /* whole nodes of its own (naccesspolicy=singlejob, place=excl) */
    int rerunnable; /* 1, 0, -1 = not given */
    const char *mail_events, *mail_users; /* qsub -m, -M; NULL = none */
    const char *const *env;               /* "NAME=value" */
    size_t nenv;
    const char *token; /* NULL, or the client's token: a retry finds the first job */
    const char *array; /* qsub -t/-J as Slurm's --array ("1,3,5-9%2", "1-9:2"); NULL = none */
};

/* A reservation the resource manager holds (a Slurm reservation): its
 * nodes are for the jobs that ask for it by name and that it admits. */
struct rm_resv {
    const char *name;
    long start, end;          /* epoch seconds */
    const char *const *nodes; /* node names */
    size_t nnodes;
    const char *users, *accounts, *groups; /* comma lists of who may use it, NULL = none */
};

/* What intake tells its caller. seen: a held job (every one, each time the
 * queue changed: the caller takes in those it has not, and follows the
 * dependencies of those it has). */
struct rm_intake {
    void *ctx;
    void (*seen)(void *ctx, const struct rm_new_job *j);
};

/* A node whose state the resource manager changed (strings live until the
 * callback returns). */
struct rm_node_state {
    const char *name;
    enum node_state state;
    const char *reason; /* why it is down or drained, NULL = none */
};

struct rm_ops {
    const char *name;
    /* The nodes whose state or reason changed since the last call, each
     * given to fn (NULL: the driver's nodes never change under it). Returns
     * 0, or -1 with err when they cannot be read. */
    int (*node_states)(void *ctx, long now, void (*fn)(void *fnctx, const struct rm_node_state *n),
                       void *fnctx, struct err *err);
    /* Jobs submitted to the resource manager, not through moku (NULL: the
     * daemon's own submissions are all there is). Returns 1 when the
     * resource manager's queue changed since the last call (seen was
     * called), 0 when not, -1 with err when it cannot be read. */
    int (*intake)(void *ctx, long now, const struct rm_intake *in, struct err *err);
    /* Submit into the resource manager's own queue (NULL: moku keeps the
     * queue, submissions are the daemon's); *id is the new job's id, which
     * intake then brings. */
    int (*submit)(void *ctx, const struct rm_submit *s, long *id, struct err *err);
    /* The resource manager's own reservations (NULL: it has none). When
     * they changed since the last call, or all is set: every one of them
     * given to fn, and 1; 0 when nothing changed; -1 with err. */
    int (*resvs)(void *ctx, long now, int all, void (*fn)(void *fnctx, const struct rm_resv *r),
                 void *fnctx, struct err *err);
    /* The nodes it manages (NULL: the driver's configuration says). */
    int (*nodes)(void *ctx, struct node_spec **out, size_t *n, struct err *err);
    int (*start)(void *ctx, const struct rm_job *j, long now, struct err *err);
    int (*status)(void *ctx, const char *id, long now, struct rm_status *st, struct err *err);
    int (*cancel)(void *ctx, const char *id, long now, struct err *err);
    int (*suspend)(void *ctx, const char *id, long now, struct err *err);
    int (*resume)(void *ctx, const char *id, long now, struct err *err);
    /* Stop the job and let it be started again later (its state is lost). */
    int (*requeue)(void *ctx, const char *id, long now, struct err *err);
    /* A queued job's holds as moku has them now (HOLD_*) and what moku says
     * of it (NULL = nothing), mirrored into the resource manager's own
     * record (Slurm's user and administrator holds, its admin comment), so
     * that both show one state; nothing is sent when they already agree.
     * NULL: the resource manager has no holds of its own. */
    int (*hold_sync)(void *ctx, const char *id, unsigned holds, const char *note, struct err *err);
    /* The driver has recorded the job's end: drop what is kept for it. */
    void (*forget)(void *ctx, const char *id);
};

struct rm {
    const struct rm_ops *ops;
    void *ctx;
};

/* The local resource manager behind the table (ctx: struct local *). */
extern const struct rm_ops rm_local_ops;
/* Slurm's: rm/slurm.h. */

#endif
