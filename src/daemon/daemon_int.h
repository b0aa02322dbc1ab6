/*
 * daemon_int — the daemon's state, shared by its files: serve.c (set-up,
 * the loop, iterations: it owns the state and calls its parts, which never
 * call it back — what they need of the loop is d->loop), djobs.c (jobs:
 * restore, the resource manager's side), djrec.c (a job's stored record),
 * dpreempt.c (OWNERPREEMPT: the engine's preempt and resume callbacks),
 * the requests (dreq.c and the parts it routes to, each with its header),
 * dresv.c (administrative reservations: the store's copy of the engine's),
 * dtrig.c (standing reservations' TRIGGER exec actions: run and reaped).
 */
#ifndef MOKU_DAEMON_INT_H
#define MOKU_DAEMON_INT_H

#include <stddef.h>
#include <sys/types.h>

#include <jansson.h>

#include "cmd/cmdtab.h"
#include "daemon/dhist.h"
#include "daemon/dlog.h"
#include "engine/engine.h"
#include "rm/local.h"
#include "rm/rm.h"
#include "rm/slurm.h"
#include "store/store.h"
#include "util/err.h"
#include "util/strmap.h"

struct cfg;
struct dmn;
struct web;

/* One job the daemon knows: its stored record and its engine job. */
struct djob {
    /* Its record. user, group and cwd point into d->names (djobs.c: one
     * copy of each for all the jobs; never freed with the record, never
     * changed in place). */
    struct store_job rec;
    struct job *j; /* NULL once the engine no longer has it */
    size_t bytes;  /* its script and environment as stored (MAXSUBMITBYTES, dspace.c) */
    /* The flags and small counts below are bytes, side by side: a djob of
     * 344 bytes takes a 352-byte block of malloc's, 16 bytes fewer than the
     * ints did (1.6 MB for 100,000 restored jobs, issue 31). */
    unsigned char draining;     /* a run requeued by preemption is still ending: its spool
                                   directory and its end are not this job's (dpreempt.c) */
    unsigned char drain_waited; /* a start waited DRAIN_WAIT_MS for that run already: later
                                   starts only look (dpreempt.c) */
    unsigned char preempted;    /* suspended by OWNERPREEMPT: the engine resumes it (dpreempt.c) */
    /* A resource manager with holds of its own (Slurm's): the holds
     * (HOLD_USER, HOLD_SYSTEM) and note its record had when last read or
     * written, so that a change there is told from one here (dintake.c). */
    unsigned char rm_holds;
    unsigned char rm_synced; /* rm_holds and rm_note are known */
    unsigned char retries;   /* starts in a row the resource manager did not carry out for a
                                reason that should pass (djobs.c: a failed start after
                                RETRY_MAX) */
    /* Restored lean (store_jobs_active_lean): rec.script and rec.env are
     * not read yet, only when the job starts (djrec_warm); until then the
     * record is saved without them (store_job_put_lean). */
    unsigned char lean;
    char *rm_note;
};

/* The disk the state lives on (dspace.c). */
struct dspace {
    char *path;      /* HOME/moku.reserve */
    long long want;  /* DISKRESERVE bytes, 0 = no reserve */
    int held;        /* the reserve file is there, whole */
    int low;         /* under `want` bytes free (1 MiB without a reserve): no submissions */
    long long avail; /* free bytes at the last look, -1 = unknown */
    /* The live jobs and each uid's bytes, counted at a group's first
     * submission (dspace_submit_ok) and kept up by dspace_submitted, also
     * across groups, until an iteration, a request outside a group, a
     * restore or a failed commit drops it (dspace_group_done): valid while
     * tally.v. */
    struct dspace_tally {
        struct dspace_uid {
            long uid;
            int used;
            long long bytes;
        } * v;
        size_t cap, uids; /* cap: a power of two, more than twice the uids */
        long long live;
    } tally;
};

/* A command the daemon started and does not wait for, still running: a
 * trigger's exec action (dtrig.c) or a job's mail (dmail.c). */
struct dtrig_kid {
    pid_t pid;
    char *what; /* "reservation X event E", for the log; owned */
};

/* Who sent a request (from the kernel). */
struct peer {
    uid_t uid;
    gid_t gid;
    char user[64];
    char group[64];
    int admin; /* 1, 2 or 3 (ADMIN1 .. ADMIN3), 0 = ordinary user */
};

/* Who a uid and gid are, as drights_peer found them (drights.c): the user
 * and group databases are read once per PEER_CACHE_SECONDS for each, not at
 * every request. */
#define PEER_CACHE_SLOTS 64
#define PEER_CACHE_SECONDS 2
struct peer_cache {
    struct peer p[PEER_CACHE_SLOTS];
    long at[PEER_CACHE_SLOTS]; /* monotonic seconds the slot was filled; 0 = empty */
};

/* An administrative reservation the store holds, and who made it. */
struct dresv {
    char *id;
    char *creator;        /* user name, NULL = unknown */
    long uid;             /* the creator's uid, -1 = unknown */
    unsigned long serial; /* the engine reservation's serial when stored: another one
                             means it was modified (setres -m) */
};

/* What one dresv_save wrote, until dresv_settle: ids, owned. */
struct dresv_change {
    char **added, **removed, **modified;
    size_t nadded, nremoved, nmodified;
};

/* What the daemon's parts may ask of the loop (serve.c sets it up): the
 * explicit way back up, instead of calling serve.c. */
struct dmn_loop {
    /* Reload maui.cfg now (schedctl -R, changeparam): built aside first,
     * applied only when all of it is good. 0 applied, *report the lines to
     * tell (its warnings, "configuration reloaded from PATH"); -1 refused,
     * err the reason (file:line), nothing changed. Both are logged. Caller
     * frees *report. */
    int (*reload)(struct dmn *d, char **report, struct err *err);
};

struct dmn {
    struct dmn_loop loop;
    char *home, *cfg_path, *db_path, *sock_path, *spool, *exe;
    struct cfg *cfg;
    struct sched *s;
    struct store *st;
    struct local *local;    /* the local resource manager, or ... */
    struct slurm_rm *slurm; /* ... Slurm (RMCFG TYPE=SLURM), ... */
    struct rm rm;           /* ... behind the resource-manager table, which is all the rest uses */
    struct dlog *log;
    enum dlog_sink log_sink; /* moku serve --log: maui.log, syslog or the journal */
    char *pid_path;          /* HOME/moku.pid once written (removed at exit), else NULL */

    struct djob **jobs; /* indexed by engine job tag; owned */
    size_t njobs, capjobs;
    /* The user and group names and the working directories the jobs'
     * records point to, each once (djobs.c): 100,000 restored jobs of a few
     * users, submitted from a few directories (an array's tasks from one),
     * held three small allocations each. */
    struct strmap names; /* name -> index in name_v; empty until the first job */
    char **name_v;
    size_t nnames, capnames;

    int lfd;          /* listening socket */
    int lockfd;       /* HOME/moku.lock, flock'ed for the daemon's life */
    int exit_status;  /* of moku serve, once the loop ends (1: the store could not recover) */
    int sig[2];       /* self-pipe: signals wake the loop */
    long interval;    /* RMPOLLINTERVAL */
    long next_iter;   /* epoch time of the next timed iteration */
    int due_now;      /* the last iteration left an engine event due at once */
    int want_iter;    /* iterate at once (submit, job end, command) */
    int paused;       /* schedctl -s: no new starts */
    int rm_down;      /* the resource manager could not be read at the last iteration */
    int rm_resync;    /* a new engine: the resource manager's reservations mirrored again */
    int stop;         /* schedctl -k or SIGTERM: leave the loop */
    int reload;       /* schedctl -R or SIGHUP */
    int recover;      /* a commit failed: rebuild the engine from the database (serve_recover) */
    int fail_streak;  /* iterations in a row whose commit failed (their back-off) */
    long hold_until;  /* epoch time before which requests do not trigger an iteration */
    long started;     /* epoch time the daemon started */
    long stats_since; /* epoch time the statistics began (kept in the store) */
    long iterations;
    long last_fs_save; /* epoch time of the last fairshare checkpoint */
    long last_prune;   /* epoch time request tokens were last pruned */
    size_t ddep_seen;  /* sched_deps_removed at the last ddep_sync */
    int ddep_dirty;    /* ddep_apply removed a job: ddep_sync must look */
    long fs_saved_at;  /* the checkpoint the ledger was restored from (usage up to then) */
    long *forget;      /* ended jobs whose spool goes once their end is committed */
    size_t nforget, capforget;
    struct dresv *resvs; /* the engine's RESV_USER reservations the store holds; owned */
    size_t nresvs, capresvs;
    struct dtrig_kid *tkids; /* trigger commands and mail not yet reaped; owned */
    size_t ntkids, captkids;
    struct dspace space;     /* the disk reserve and how full the disk is (dspace.c) */
    struct web *web;         /* the web view (WEBPORT), or NULL */
    struct dhist hist;       /* utilization and queue, for the web view */
    struct peer_cache peers; /* who the recent clients are (drights_peer) */
};

/* djobs.c */
/* Load the active jobs from the store into the engine (idle ones queued,
 * running ones adopted and checked with the resource manager). */
int djobs_restore(struct dmn *d, struct err *err);
/* A new job from a validated submission, inside the caller's transaction:
 * stored with its script (rec->id assigned; NULL for an interactive job,
 * which has none), then queued. The script file
 * the job runs (HOME/scripts/<id>, owned by the job's user) is written when
 * it starts. On error nothing is queued and
 * the caller rolls back. The djob takes rec's strings (rec is zeroed). */
struct djob *djobs_add(struct dmn *d, struct store_job *rec, const char *script, struct err *err);
/* A job the resource manager holds for moku (dintake.c): stored under its
 * id (rec->id), then queued, even if the nodes up now could not hold it;
 * NULL with err when a MAXSUBMITJOBS limit refuses it. The djob takes
 * rec's strings. */
/* Whether the record is a qsub -I job: the word "interactive" in its shape
 * (store.h). Such a job has no script. */
int djobs_interactive(const struct store_job *r);
struct djob *djobs_adopt(struct dmn *d, struct store_job *rec, struct err *err);
struct djob *djobs_find(struct dmn *d, const char *id);
/* Ask the resource manager about every running job; record the ends. */
void djobs_poll(struct dmn *d, long now);
/* ddep.c: job dependencies (qsub -W depend=). Whether depend (may be NULL)
 * names jobs that exist and may still satisfy it: 0, or -1 with err. */
int ddep_check(struct dmn *d, const char *depend, struct err *err);
/* The engine's dep_lookup (engine/dep.h): job `name`'s record in the store,
 * when it has ended; ctx is the daemon. */
int ddep_lookup(void *ctx, const char *name, struct dep_past *p);
/* qalter -W depend=: replace the dependencies of idle job dj by depend's
 * (sched_replace_deps: the same checks as qsub's, and a cycle), in the
 * engine and its record (the caller saves it). -1 with err, nothing
 * changed. */
int ddep_alter(struct dmn *d, struct djob *dj, const char *depend, struct err *err);
/* Give queued job dj its record's dependencies (at submission and restart). */
void ddep_apply(struct dmn *d, struct djob *dj);
/* Record as removed the jobs the engine removed for a dependency never met. */
void ddep_sync(struct dmn *d, long now);
/* After the commit: remove the spool of the jobs whose end it recorded. */
void djobs_forget(struct dmn *d);
/* The engine's start callback (struct sched_rm). */
int djobs_rm_start(void *ctx, struct job *j, long now);
void djobs_free(struct dmn *d);

/* darray.c: job arrays on the local resource manager. */
/* A task's record before it is stored, as the first of its array: the
 * array is then named after the id the store gives it. */
#define DARRAY_FIRST (-1L)
/* The engine name of a record: "12" for a job, Torque's "12[3]" for task 3
 * of array 12. */
void djobs_name(const struct store_job *r, char *buf, size_t n);
/* The id in a job's default output name (<name>.o<id>): "12", or "12-3"
 * for a task, as Torque and Slurm's path name them. */
void darray_file_id(const struct store_job *r, char *buf, size_t n);
/* The job whose stored id is id (a task's own, not its "12[3]"), or NULL. */
struct djob *djobs_find_id(struct dmn *d, long id);
/* Inside djobs_add, once rec is stored: a DARRAY_FIRST task gets its own id
 * as its array's, stored. 0, or -1 with err. */
int darray_first_task(struct dmn *d, struct store_job *rec, struct err *err);
/* A task's engine job made the engine's array task (engine/array.h), held
 * for a slot when its record says so (at submission and restore). */
void darray_apply(struct dmn *d, struct djob *dj);
/* The tasks of array `array` the engine has, in index order (caller frees
 * the vector); how many. */
size_t darray_tasks(struct dmn *d, long array, struct djob ***out);
/* The array a whole-array id "12[]" names (12), or 0 when word is not one. */
long darray_whole(const char *word);
/* A request's words with each whole-array id ("12[]", "12[].host") of an
 * array the daemon has replaced by its tasks' ids ("12[1]" ...: those not
 * ended, or all when every one has): *argv (a NULL-terminated vector the
 * caller frees) is replaced then, and the new words are returned, a
 * NULL-terminated vector of strings the caller frees; NULL when no word
 * was replaced (nothing changed). An array named twice in one request is
 * expanded once (its later words dropped): no request names more tasks
 * than the daemon has. The value of one of def's options that take one
 * (qalter -N NAME) is not a job, and is left as it is. */
struct cmd_def;
char **darray_expand(struct dmn *d, const struct cmd_def *def, int *argc, char ***argv);

/* djrec.c */
/* Write a job's record (inside the caller's transaction); a lean one
 * without its script and environment, which stay as stored. */
void djrec_save(struct dmn *d, struct djob *dj);
/* A lean record's script and environment read from the store (before the
 * job starts). 0, or -1 with err: the record stays lean. */
int djrec_warm(struct dmn *d, struct djob *dj, struct err *err);
/* Whether djrec_save would write anything the record does not hold: the
 * engine's holds, system priority, bypass or defer counts differ from it. */
int djrec_stale(const struct dmn *d, const struct djob *dj);
/* A commit in the middle of an iteration failed: what the iteration did
 * before it is not in the database (the ends it recorded keep their spool
 * directories, so they are found again), and the engine is rebuilt once the
 * iteration is over (d->recover). */
void djrec_commit_failed(struct dmn *d);

/* dintake.c */
/* What the resource manager changed by itself: node states (rm_ops.
 * node_states), and jobs submitted to it (rm_ops.intake, Slurm): new held
 * ones queued, queued ones it no longer has removed. Inside the iteration's
 * transaction; nothing when the resource manager has none of these.
 * -1 when the resource manager cannot be read (d->rm_down; logged once):
 * the iteration then starts nothing. */
int dintake_poll(struct dmn *d, long now);
/* Mirror the holds and notes of the queued jobs into the resource manager's
 * own records (those that changed; ops.hold_sync). */
void dintake_push(struct dmn *d);

/* dpreempt.c */
/* The engine's preempt callback (struct sched_rm; policy/preempt.c): stop
 * running job j (OWNERPREEMPT: for a reservation's owner). REQUEUE: the job
 * is stored as queued and committed, then its run is ended through the
 * resource manager (its later end is not recorded: the job is `draining`).
 * SUSPEND: stored as suspended by preemption and committed, then stopped
 * (SIGSTOP). Returns -1 when it cannot (the job is not running under the
 * resource manager, a commit failed, the resource manager refused): the
 * job goes on as it was. */
int dpreempt_rm_preempt(void *ctx, struct job *j, enum preempt_policy how, long now);
/* The engine's resume callback: resume a job it suspended by preemption. */
int dpreempt_rm_resume(void *ctx, struct job *j, long now);
/* Before dj starts: an earlier run's spool directory (a run requeued by
 * preemption, maybe before a restart) is waited for, a bounded time once,
 * and removed. 0 when the way is clear, SCHED_RM_LATER (logged once) while
 * that run is still ending, -1 when its state cannot be read. */
int dpreempt_clear_old_run(struct dmn *d, struct djob *dj, long now);
/* dj is draining: once its old run has ended, remove its spool directory. */
void dpreempt_drain(struct dmn *d, struct djob *dj, long now);
/* At restore, for a job stored as suspended: 1 when it was suspended by
 * preemption — the engine's record of that is gone, so it is requeued (its
 * run ended, the record queued again, stored); 0 otherwise. */
int dpreempt_restore(struct dmn *d, struct djob *dj, long now);
/* A preempted job ended: drop its mark in the store (inside the caller's
 * transaction). */
void dpreempt_ended(struct dmn *d, struct djob *dj);

/* dtrig.c */
/* Run the exec actions of the triggers the engine fired (sched_pop_fired):
 * `/bin/sh -c DATA` as the daemon's user, in its own process group, never
 * waited for here; submit actions are logged as not supported. */
void dtrig_run(struct dmn *d);
/* Reap the trigger commands (and mail, dmail.c) that have ended, logging
 * their exit status. Only their pids are waited for: the supervisors are
 * left to rm/local. */
void dtrig_reap(struct dmn *d);
/* Reap pid with the trigger commands; what (owned, taken) names it in the
 * log. */
void dtrig_watch(struct dmn *d, pid_t pid, char *what);

/* dspace.c: what the daemon's state may take of its disk (issue 28). */
/* The user's default MAXSUBMITJOBS under the daemon (the engine's
 * sched_default_maxsubmit), when maui.cfg sets none. */
#define DSPACE_USER_JOBS 5000
/* Read DISKRESERVE and make the reserve file if it is missing or of another
 * size (when there is room; logged when there is not). At start-up and at
 * each reload. */
void dspace_open(struct dmn *d);
/* Look at the free space (each pass of the loop, before requests and the
 * iteration): under 1 MiB (a quarter of the reserve, if smaller) with the
 * reserve held, the reserve is removed so that what must be recorded can
 * be; with twice the reserve free again, it is made again. Logged. */
void dspace_check(struct dmn *d);
/* A commit failed: if the disk is the reason, the reserve goes at once. */
void dspace_commit_failed(struct dmn *d);
/* Whether the reserve had to be given up: the disk is full, and no job is
 * started (a start writes spool files) until space comes back. */
int dspace_full(const struct dmn *d);
/* Whether njobs new jobs of uid (one, or an array's tasks, each a job as
 * Maui counts them) with `bytes` of scripts and environments in all may be
 * queued: room on the disk, MAXJOBCOUNT, the user's MAXSUBMITBYTES (local:
 * scripts the daemon keeps; a resource manager with its own queue keeps
 * them itself). -1 with the reason. */
int dspace_submit_ok(struct dmn *d, uid_t uid, size_t bytes, size_t njobs, int local,
                     struct err *err);
/* A job of uid with `bytes` joined the group (dspace_submit_ok said yes):
 * counted in the group's tally. */
void dspace_submitted(struct dmn *d, uid_t uid, size_t bytes);
/* Jobs may have changed other than by a group's submissions (an
 * iteration, a request on its own, a restore, a group not saved): the
 * tally is counted afresh at the next submission. */
void dspace_group_done(struct dmn *d);
void dspace_close(struct dmn *d);

/* dmail.c */
enum dmail_event { DMAIL_BEGIN, DMAIL_END, DMAIL_ABORT };
/* Mail about job dj at ev (detail: a line for the body, or NULL) when its
 * qsub -m letters ask for it (Torque's default "a" without -m): MAILPROGRAM
 * -t with the message on its standard input, to -M's list or the owner;
 * never waited for (dtrig_watch). A missing MAILPROGRAM is logged. */
void dmail_job(struct dmn *d, const struct djob *dj, enum dmail_event ev, const char *detail);
void dtrig_free(struct dmn *d);

/* The requests are answered by the daemon's parts, each with its own
 * header: dreq.h (decode and route), drights.h (who may), dctl.h (the
 * dispatch of moku's commands), dlook.h, djobctl.h, dadmin.h, dsubmit.h
 * (the commands), dreply.h (replies and a request's transaction). */

/* dtorque.c: Torque's commands (the command table's CMD_TORQUE entries:
 * qstat, qdel, qhold, qrls, qalter, qsig, qrun, pbsnodes) as faces on
 * moku's, with Torque's messages and exit codes. dtorque_answers: whether
 * op is one of them; dtorque_run answers one (cmd as typed: qhold, qrls). */
int dtorque_answers(enum cmd_op op);
json_t *dtorque_run(struct dmn *d, const struct peer *p, enum cmd_op op, const char *cmd, int argc,
                    char **argv);
/* Apply the node states pbsnodes -o stored to the engine s, being built
 * (at start-up, reload and recovery); nodes no longer configured are logged
 * and skipped. Errors: the store. */
int dtorque_nodes_restore(struct dmn *d, struct sched *s, struct err *err);

/* dresv.c */
/* Load the stored reservations into the engine (d->s, nodes added): ended
 * ones are removed, nodes that no longer exist dropped, processors capped
 * at what a node has (each logged, and stored); one the engine refuses is
 * logged and left in the store. Errors: the store (unreadable or damaged
 * rows, named). */
int dresv_restore(struct dmn *d, struct err *err);
/* Inside the caller's transaction: store the engine's new RESV_USER
 * reservations (made by `by`, NULL = unknown) and remove those it no longer
 * has. Then, after the commit (or rollback), dresv_settle: committed keeps
 * it; not committed releases the new ones from the engine and restores the
 * removed ones from the store. On error the caller rolls back and settles
 * with 0. */
int dresv_save(struct dmn *d, const struct peer *by, struct dresv_change *c, struct err *err);
void dresv_settle(struct dmn *d, struct dresv_change *c, int committed);
/* The stored reservation id (who made it), or NULL. */
const struct dresv *dresv_find(const struct dmn *d, const char *id);
/* After dresv_save of a setres by p, who is not an administrator (under
 * RESCTLPOLICY ANY): 1 with err ("setres: ...") when p's reservations, as
 * they now are, are over p's own limits or the bounds of one user's
 * reservations (USERRESMAXCOUNT, USERRESMAXPROCS, USERRESMAXPS within
 * USERRESHORIZON); the caller rolls back. 0 when within them. */
int dresv_user_refused(struct dmn *d, const struct peer *p, const struct dresv_change *c, long now,
                       struct err *err);
void dresv_free(struct dmn *d);

/* dparam.c */
/* changeparam PARAM VALUE...: rewrite maui.cfg with the pairs (by: who, for
 * the file's note and the log; owner: whether they are root or the daemon's
 * user, who alone may change the parameters that name files and programs)
 * and reload it. 0 and *report (the reload's
 * lines, caller frees); -1 and err: a bad pair (nothing written), the file
 * not writable, or the reload refused (the old file put back). */
int dparam_change(struct dmn *d, const char *by, int owner, int argc, char **argv, char **report,
                  struct err *err);

/* dnotify.c */
/* Under systemd (NOTIFY_SOCKET set): sd_notify(state), "READY=1" and the
 * like. Otherwise nothing. log (may be NULL) hears of a libsystemd that
 * cannot be loaded. */
void dnotify(struct dlog *log, const char *state);

/* dweb.c */
/* Start the web view when maui.cfg sets WEBPORT (logged with its URL).
 * Errors: the address or port (the daemon does not start). */
int dweb_open(struct dmn *d, struct err *err);
void dweb_close(struct dmn *d);
/* Whether cfg's WEBADDRESS and WEBPORT are ones the web view can serve
 * (a loopback address): checked at every load of maui.cfg, so that a
 * reload or changeparam refuses what the next start would. Errors name
 * path. */
int dweb_check(const struct cfg *cfg, const char *path, struct err *err);
/* After a reload: the line that says a new WEBPORT or WEBADDRESS waits for
 * the next start (caller frees), or NULL when they did not change. */
char *dweb_changed(const struct dmn *d);
/* After an iteration: a history sample (at most one a minute). */
void dweb_sample(struct dmn *d, long now);

/* serve.c: the loop. It owns the state and calls the parts; they never
 * call it back (what they need of it is in d->loop). */
/* One request's text from uid/gid: the reply's text (caller frees). The
 * socket's connections (dconn_service) are answered through it. */
char *serve_reply(void *ctx, uid_t uid, gid_t gid, const char *body, size_t len);
/* After a failed commit the engine holds changes the database does not:
 * reopen the database and rebuild the engine from it (same configuration),
 * as a restart would. 0 done; -1 when the database cannot be reopened or the
 * engine rebuilt: logged, d->stop set and moku serve exits 1. */
int serve_recover(struct dmn *d);
/* A daemon over home (its maui.cfg, a new or existing moku.db; fresh as
 * moku serve --fresh) set up as moku serve sets up, its socket listening,
 * without the loop: the request-handler fuzz harness (fuzz/fuzz_wire.c)
 * answers requests with it. NULL with err; serve_close(NULL) is a no-op. */
struct dmn *serve_open(const char *home, int fresh, struct err *err);
void serve_close(struct dmn *d);

#endif
