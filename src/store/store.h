/*
 * store — the daemon's persistent state in SQLite (WAL mode): jobs and their
 * requests, holds and system priorities, node administrative state,
 * administrative reservations, fairshare usage windows, counters, and an
 * event log.
 *
 * Every store_* call that changes something is durable when it returns
 * (its own transaction, committed with synchronous=FULL in WAL mode), unless
 * it runs inside store_begin/store_commit, which groups several changes into
 * one atomic transaction (the daemon groups the changes of one iteration or
 * one request). A `kill -9` at any moment loses at most a transaction that
 * had not committed, never part of one.
 *
 * Only the daemon uses this module; the engine never sees it. Errors name
 * the database path and SQLite's message.
 */
#ifndef MOKU_STORE_H
#define MOKU_STORE_H

#include <stddef.h>

#include "util/err.h"

struct store;

/* Job states as stored (the daemon's view; Maui's names on display). */
enum store_jstate {
    SJ_IDLE,      /* queued (holds are separate) */
    SJ_RUNNING,   /* started by the resource manager */
    SJ_SUSPENDED, /* running but stopped (SIGSTOP) */
    SJ_COMPLETED, /* ended, exit status known */
    SJ_REMOVED,   /* cancelled before or while running */
};

/* A job as the daemon keeps it. Strings are owned by the record (store
 * functions that fill one allocate them; store_job_free frees them). NULL
 * strings are stored as NULL. */
struct store_job {
    long id;                      /* > 0, assigned by store_job_add */
    char *name;                   /* -N job name, or NULL */
    char *user, *group;           /* submitter's user and group names */
    long uid, gid;                /* submitter's ids (from the kernel) */
    char *account, *class_, *qos; /* requested (-A, -q, -W x=QOS:...), NULL = none */
    int tasks, ppn;   /* nodes=N:ppn=P -> tasks = N*P, ppn = P per node (1 when not given) */
    int nodes;        /* requested node count, 0 = none */
    long mem_mb;      /* per job, 0 = none */
    long walltime;    /* seconds */
    long submit;      /* epoch seconds */
    long start_after; /* -a: epoch seconds, 0 = none */
    unsigned holds;   /* HOLD_* bits (core/job.h) */
    int sysprio_mode; /* enum job_sysprio */
    long sysprio;
    enum store_jstate state;
    int exit_status; /* as recorded by the supervisor; -1 = unknown */
    long start, end; /* epoch seconds, 0 = not yet */
    char *hosts;     /* running: allocated hosts, "n1:2,n2:4" (host:procs), else NULL */
    char *script;    /* path of the stored job script */
    char *cwd, *out_path, *err_path; /* -d, -o, -e (absolute paths) */
    char *advres;                    /* -W x=ADVRES:name, or NULL */
    char *env;                       /* extra environment, "K=V\n" lines (qsub -v), or NULL */
    long bypass;                     /* backfill bypass count */
    int defercount;
    int nice;             /* qsub -l nice: the nice value its processes run at (beside
                             defercount: the ints in pairs leave no padding in a record
                             the daemon keeps 100,000 of) */
    long deferred_until;  /* epoch, 0 = not deferred */
    char *message;        /* why it failed to start or was ended (checkjob's Messages), or
                             NULL */
    char *mail_events;    /* qsub -m: letters of "abef", or "n"; NULL = not given */
    char *mail_users;     /* qsub -M: comma list of addresses; NULL = not given */
    char *features;       /* node features of -l nodes=N:feat1:feat2, as "feat1,feat2";
                             NULL = none */
    char *shape;          /* a resource manager's job's shape (Slurm's), or a local job's
                             "exclusive" (qsub naccesspolicy=singlejob); NULL: Torque's, as
                             above. Else tasks are tasks / ppn tasks of ppn processors, nodes
                             a count that does not fix tasks per node, and space-separated
                             words say the rest: "tpn=T" (tasks per node), "mem_task=M" (MB
                             a task, instead of mem_mb), "mem_node=M" (MB a node, -1: the
                             whole node's), "exclusive", "max_nodes=N", "interactive"
                             (qsub -I: no script is stored; djobs_interactive), and last
                             "hosts=n1:2,n2:1" (those hosts, so many one-processor tasks on
                             each: qsub_req.hosts); others are ignored */
    long vmem_mb;         /* qsub -l vmem/pvmem: each process's address space limit, MB;
                             0 = none */
    char *depend;         /* qsub -W depend= (engine/dep.h), as given; NULL = none */
    long array_id;        /* a job array's task (qsub -t, -J): its array's id, which is its
                             first task's id; 0 = not a task */
    unsigned array_index; /* the task's index in its array */
    unsigned array_slots; /* the array's %N slot limit, 0 = none */
};

/* Open (creating if needed) the database at path; WAL mode, FULL sync,
 * foreign keys on, schema created or checked (a newer schema version than
 * this code knows is an error). Caller closes. */
struct store *store_open(const char *path, struct err *err);
void store_close(struct store *st);
/* Open the database at path read-only, for a reader beside the daemon
 * (moku simulate of a home): nothing is created, upgraded or written; a
 * schema version other than this code's is an error. Caller closes. */
struct store *store_open_readonly(const char *path, struct err *err);

/* Group the following changes into one transaction; store_commit makes them
 * durable together, store_rollback drops them. Not nestable: store_begin
 * with a transaction open is an error, and so is store_commit without one
 * (including after SQLite rolled one back by itself on an I/O error). A
 * failed store_commit rolls back, so no transaction is left open; the
 * changes are dropped. store_rollback without a transaction does nothing;
 * store_close with one open drops it. */
int store_begin(struct store *st, struct err *err);
int store_commit(struct store *st, struct err *err);
void store_rollback(struct store *st);
/* 1 while a store_begin transaction is open (SQLite may have ended it). */
int store_in_transaction(const struct store *st);

/*
 * Group commit: between store_group_open and store_group_close, every
 * store_begin/store_commit pair joins one transaction (as a savepoint;
 * store_rollback drops that pair's changes alone), begun at the first
 * store_begin, and store_group_close commits it — one fsync for them all.
 * A store_commit inside a group makes nothing durable by itself: whoever
 * answers for those changes waits for store_group_close. A change outside
 * store_begin (autocommit) inside a group joins the group's transaction once
 * it has begun. store_group_close returns 0 when the group's changes are
 * durable (or there were none), -1 when they are all dropped (with no
 * transaction left open either way). store_group_pending: 1 while a group's
 * transaction has begun (its changes not yet durable).
 */
int store_group_open(struct store *st, struct err *err);
int store_group_close(struct store *st, struct err *err);
int store_group_pending(const struct store *st);
/* 1 between store_group_open and store_group_close. */
int store_group_is_open(const struct store *st);

/* Insert j (j->id is ignored and set to the new id, ids increase and are
 * never reused, even after a restart). An id taken inside a transaction that
 * is rolled back was never stored and may be given again. */
int store_job_add(struct store *st, struct store_job *j, struct err *err);
/* Insert j under its own id (a resource manager's job id: Slurm's);
 * error when a job has that id already. */
int store_job_add_as(struct store *st, const struct store_job *j, struct err *err);
/* Write every field of j (found by j->id). Error if no such job. */
int store_job_put(struct store *st, const struct store_job *j, struct err *err);
/* Load one job by id: 1 found (j filled; store_job_free it), 0 none, -1 error. */
int store_job_get(struct store *st, long id, struct store_job *j, struct err *err);
/* Call fn for every job not yet COMPLETED or REMOVED (the daemon's start-up
 * load), in id order; fn returns 0 to go on, nonzero to stop (returned).
 * The record passed is freed after fn returns. Here and in every loading
 * function below, the rows are read before fn is first called, so fn may
 * call store functions (e.g. store_job_put on the job it was given); here
 * a page of 4,096 rows at a time (fn is called on a page once it is read
 * whole), and only jobs there were when the call began. */
int store_jobs_active(struct store *st, int (*fn)(void *ctx, const struct store_job *j), void *ctx,
                      struct err *err);
/* As store_jobs_active, but each record is lean: script and env are NULL
 * whatever is stored (a daemon reads them only when the job starts:
 * store_job_get), and fn may take the record's strings (or the whole
 * record, copied out and zeroed); what it leaves is freed after it returns.
 * The daemon's restore keeps 100,000 records this way without copying each
 * string once more (issue 31). fn's bytes are the job's stored script's
 * and environment's (MAXSUBMITBYTES counts them), 0 when no script is
 * stored (store_script_put). A lean record is written back with
 * store_job_put_lean, which leaves the stored script and env as they are. */
int store_jobs_active_lean(struct store *st,
                           int (*fn)(void *ctx, struct store_job *j, long long bytes), void *ctx,
                           struct err *err);
int store_job_put_lean(struct store *st, const struct store_job *j, struct err *err);
/* Jobs that ended at or after `since` (epoch), newest first, at most max
 * (for showq -c style history and tests); fn as above. "Ended" is the state
 * (COMPLETED or REMOVED), "when" is j->end; equal ends come higher id first.
 * max 0 gives none; pass SIZE_MAX for all. */
int store_jobs_ended(struct store *st, long since, size_t max,
                     int (*fn)(void *ctx, const struct store_job *j), void *ctx, struct err *err);
void store_job_free(struct store_job *j);

/* A job's script, kept in the database so that a submission costs one
 * durable write: put (replacing), get (1 found with *text allocated, 0
 * none, -1 error). */
int store_script_put(struct store *st, long id, const char *text, struct err *err);
int store_script_get(struct store *st, long id, char **text, struct err *err);
/* Forget a job's script (an ended job's: it is only needed to run), or
 * those of every job that has ended (a database from before this was
 * done). No script is not an error. */
int store_script_del(struct store *st, long id, struct err *err);
int store_scripts_prune(struct store *st, struct err *err);

/* Node administrative state (e.g. "Drained", "Down", "Idle"): set (a NULL
 * state removes the node's entry), and load all in name order (fn gets name
 * and state). */
int store_node_state(struct store *st, const char *node, const char *state, struct err *err);
int store_nodes(struct store *st, int (*fn)(void *ctx, const char *node, const char *state),
                void *ctx, struct err *err);

/* An administrative reservation (setres) as the daemon keeps it; standing
 * reservations' instances are not stored (maui.cfg makes them again). The
 * nodes are kept by name, not by index, so that a changed node table is
 * noticed. Strings are owned by the record (store_resv_free). */
struct store_resv_node {
    char *name;     /* node name, never NULL or empty */
    unsigned procs; /* processors reserved on it, > 0 */
};

struct store_resv {
    char *id;        /* "<name>.<n>", never NULL or empty */
    long start, end; /* epoch seconds, end > start */
    long created;    /* epoch seconds */
    unsigned flags;  /* SRCFG_* bits (policy/srcfg.h) */
    int access;      /* enum srcfg_access */
    char *acl;       /* acl_format text, "" = no ACL (never NULL) */
    char *owner;     /* NULL = none */
    int owner_type;  /* enum acl_type, meaningful with an owner */
    long priority;
    char *chargeaccount; /* NULL = none */
    long tasks;          /* tasks asked */
    char *creator;       /* the user who made it (setres), NULL = unknown */
    long creator_uid;    /* -1 = unknown */
    struct store_resv_node *nodes;
    size_t nnodes;
};

/* Write r with its nodes, replacing any reservation with the same id (its
 * nodes included). Errors: NULL or empty id or node name, NULL acl, a node
 * with 0 processors, end <= start; SQLite errors. */
int store_resv_put(struct store *st, const struct store_resv *r, struct err *err);
/* Remove reservation id and its nodes; no such reservation is not an error. */
int store_resv_del(struct store *st, const char *id, struct err *err);
/* Call fn for every stored reservation, in the order they were created
 * (then stored); fn as for store_jobs_active. A row that is not what
 * store_resv_put writes (a wrong type, NULL or empty text, a count out of
 * range: a hand-edited or damaged database) is an error naming the
 * reservation, and fn is not called at all. */
int store_resvs(struct store *st, int (*fn)(void *ctx, const struct store_resv *r), void *ctx,
                struct err *err);
void store_resv_free(struct store_resv *r);

/* Fairshare: usage of one credential in one window (kind: "user", "group",
 * "acct", "class", "qos", "sched" for the total; window: epoch start).
 * store_fs_put replaces the value (kind and name must not be NULL);
 * store_fs_load calls fn for every stored value with window >= since, in
 * window order, then kind and name. */
int store_fs_put(struct store *st, const char *kind, const char *name, long window, double usage,
                 struct err *err);
int store_fs_load(struct store *st, long since,
                  int (*fn)(void *ctx, const char *kind, const char *name, long window,
                            double usage),
                  void *ctx, struct err *err);

/* Named counters and values (statistics, the scheduler's state such as
 * "paused"): set (a NULL value removes the key) and get; get returns 1
 * found (value NUL-terminated), 0 not, -1 error — a value that does not fit
 * in len bytes with its NUL is an error, never cut. */
int store_kv_set(struct store *st, const char *key, const char *value, struct err *err);
int store_kv_get(struct store *st, const char *key, char *value, size_t len, struct err *err);
/* Call fn for every key that starts with prefix, in key order (fn as for
 * store_jobs_active). A NULL prefix is an error. */
int store_kv_each(struct store *st, const char *prefix,
                  int (*fn)(void *ctx, const char *key, const char *value), void *ctx,
                  struct err *err);

/* Append to the event log: time (epoch), job id (0 = none), kind
 * ("submit", "start", "end", "cancel", "hold", ...), free text. */
int store_event(struct store *st, long time, long job, const char *kind, const char *text,
                struct err *err);
/* The last max events, oldest first (in the order logged), 0 gives none
 * (fn gets the fields; kind and text may be NULL if logged so). */
int store_events(struct store *st, size_t max,
                 int (*fn)(void *ctx, long time, long job, const char *kind, const char *text),
                 void *ctx, struct err *err);

/* Request tokens: a client names a request that changes something with a
 * token of its own, and sends it again with the same token when it got no
 * answer (the daemon may have died before answering, or after). The answer
 * is stored with the change, in its transaction; a repeated token gets the
 * stored answer, nothing done twice. Tokens are per uid (one user cannot
 * read or spoil another's). store_token_get: 1 and *reply (caller frees)
 * when (uid, token) is known, 0 when not, -1 on error. store_token_put
 * fails on a token already stored. store_tokens_prune forgets those stored
 * before `before` (epoch seconds). */
int store_token_get(struct store *st, long uid, const char *token, char **reply, struct err *err);
int store_token_put(struct store *st, long uid, const char *token, long time, const char *reply,
                    struct err *err);
int store_tokens_prune(struct store *st, long before, struct err *err);

/* The web view's history (daemon/dhist.c): samples of time, procs, busy,
 * running, idle and blocked, one row per time. store_hist_put writes one
 * (replacing one of the same time) and forgets those older than before;
 * store_hist_load calls fn for each since `since`, oldest first. */
#define STORE_HIST_COLS 6
int store_hist_put(struct store *st, const long long v[STORE_HIST_COLS], long before,
                   struct err *err);
int store_hist_load(struct store *st, long since,
                    void (*fn)(void *ctx, const long long v[STORE_HIST_COLS]), void *ctx,
                    struct err *err);

#endif
