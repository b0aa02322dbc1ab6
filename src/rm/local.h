/*
 * local — the local resource manager: runs jobs on this machine.
 *
 * Each started job gets a spool directory <spool>/<jobid>/ holding the
 * files below, and a *supervisor*: a process of its own session, started by
 * re-executing the moku binary (`moku _supervise <spooldir>`, see
 * local_supervise) so that it carries none of the daemon's state, and not a
 * child the daemon must stay alive for. The supervisor
 *   - starts the job's process in its own process group: as the submitting
 *     user (setgid, initgroups, setuid) when running as root, else as the
 *     daemon's user (which must then be the submitter); in the job's working
 *     directory; stdout and stderr to the requested files (opened as the
 *     user, created 0600 if new, never through a link nor into another
 *     user's file: rm/jobfile.h); environment: a clean one with HOME, USER,
 *     LOGNAME, SHELL, PATH (/usr/local/bin:/usr/bin:/bin), the job's extra
 *     variables, and MOKU_JOBID, PBS_JOBID (Torque's full id "12.host",
 *     host: this machine's short name), PBS_JOBNAME, PBS_NODEFILE
 *     (<spooldir>/nodefile, one host name per processor), PBS_O_WORKDIR,
 *     PBS_NUM_NODES (distinct hosts), PBS_NP (processors), MOKU_NODES (the
 *     distinct hosts, in nodefile order, separated by spaces);
 *   - runs the script with execve: directly when it starts with "#!", else
 *     as `/bin/sh <script>` (argv only; never a command string);
 *   - enforces the walltime itself (so it holds while the daemon is down):
 *     SIGTERM to the job's process group at start + walltime, SIGKILL after
 *     the grace period;
 *   - on SIGTERM/SIGINT to itself (cancel), SIGUSR1 (suspend) and SIGUSR2
 *     (resume) forwards SIGTERM (then SIGKILL after the grace), SIGSTOP and
 *     SIGCONT to the job's process group;
 *   - when the job's process exits, writes <spooldir>/status atomically:
 *     "exit <code>\nend <epoch>\nreason <completed|walltime|cancelled|failed>\n"
 *     (code: the exit status, or 128 + signal), then for a job that could not
 *     start "message <why, one line>\n", then exits.
 *
 * Spool files (names: LOCAL_F_* below): job.json (the start request,
 * written by local_start, 0600), nodefile (0644: the job reads it),
 * supervisor.pid (written by the supervisor, atomically, before it starts
 * the job), job.pgid (the job's process group, once started), suspended
 * (present while local_suspend holds the job), status (at the end),
 * supervisor.log (its own errors and events, 0600). The spool directory and
 * each job's directory are 0711 (owned by the daemon's user): a job running
 * as another user must reach its nodefile, but no one can list them.
 *
 * An interactive job (qsub -I, local_job.interactive) runs the user's login
 * shell instead of a script, on a pseudo-terminal handed to the owner's qsub
 * over <spooldir>/tty.sock (0600, the owner's; the peer checked with
 * SO_PEERCRED); PBS_ENVIRONMENT is PBS_INTERACTIVE; the walltime counts from
 * qsub's connection; qsub's end cancels the job; the status line "exit N"
 * goes to qsub before the status file is written (rm/pty.h).
 *
 * The walltime clock stops while the job is suspended (Maui and Torque do
 * not charge suspended time against the walltime). When the job's main
 * process exits, whatever is left of its process group is killed (as
 * Torque's MOM kills a job's session): the job's allocation has ended. A
 * process that leaves the group (setsid, setpgid) escapes the supervisor;
 * there is no cgroup here.
 *
 * A job outlives a daemon restart: local_poll finds it by its spool
 * directory, whether still running (supervisor alive) or finished (status
 * file). No I/O here reads the clock for scheduling; the supervisor reads
 * it for the walltime, as a real resource manager must.
 */
#ifndef MOKU_LOCAL_H
#define MOKU_LOCAL_H

#include <stddef.h>
#include <sys/types.h>

#include "util/err.h"

/* What to run. */
struct local_job {
    const char *id;   /* job id, the spool directory name: [A-Za-z0-9._-]+, at most
                       * LOCAL_ID_MAX characters, no ".." */
    const char *name; /* job name (PBS_JOBNAME), or NULL = the id; no '/' */
    /* A job array's task: Torque's id "A[i]" (digits), or NULL. PBS_JOBID is
     * "A[i].host", PBS_ARRAYID and SLURM_ARRAY_TASK_ID i, SLURM_ARRAY_JOB_ID
     * A, and output names use "A-i" for the id (<name>.oA-i, as Torque and
     * Slurm's path name them). */
    const char *array_task;
    const char *user; /* user name to run as */
    uid_t uid;
    gid_t gid;
    const char *script; /* absolute path of the script file to run (readable by the user) */
    const char *cwd;    /* working directory (absolute) */
    const char *out_path, *err_path; /* absolute; NULL: <cwd>/<name>.o<id> / .e<id> */
    const char *env;                 /* extra "K=V\n" lines, or NULL; they may override HOME, PATH,
                                      * ... but not the MOKU_ and PBS_ variables above */
    const char *const *hosts;        /* one entry per allocated processor (nodefile lines);
                                      * at least one, no blanks */
    size_t nhosts;
    long walltime; /* seconds; > 0 */
    long grace;    /* seconds between SIGTERM and SIGKILL; 0 = default 5 */
    long vmem_mb;  /* RLIMIT_AS of each of the job's processes, MB (Torque's vmem/pvmem);
                      0 = none (the daemon's own limit) */
    int nice;      /* the nice value the job's processes run at, -20..19 (Torque's nice),
                      set as root before the switch to the user; 0 = the supervisor's */
    /* qsub -I: no script is run; the supervisor waits (60 s at most) for the
     * owner's qsub on <spooldir>/tty.sock, then starts the user's login shell
     * on a pseudo-terminal it hands to qsub (rm/pty.h). script must still be
     * an absolute path (unused). */
    int interactive;
};

/* Names of the files in a job's spool directory (see above). */
#define LOCAL_F_JOB "job.json"
#define LOCAL_F_NODEFILE "nodefile"
#define LOCAL_F_PID "supervisor.pid"
#define LOCAL_F_PGID "job.pgid"
#define LOCAL_F_SUSPENDED "suspended"
#define LOCAL_F_STATUS "status"
#define LOCAL_F_LOG "supervisor.log"
#define LOCAL_F_TTY "tty.sock" /* qsub -I connects here (rm/pty.h) */

/* Longest job id (the spool directory's name). */
#define LOCAL_ID_MAX 64
/* Longest message in a status file, its NUL included. */
#define LOCAL_MSG_MAX 512

struct local;

/* A local resource manager spooling under spool (created 0711 if missing;
 * its parent must exist). exe is the path of the moku binary to run as
 * supervisor (e.g. from /proc/self/exe); it must be executable. Both are
 * kept as absolute paths, so the daemon may chdir. Caller destroys. */
struct local *local_create(const char *spool, const char *exe, struct err *err);
void local_destroy(struct local *l);

/* Start a job: write its spool directory, start its supervisor, return once
 * the supervisor has written supervisor.pid (or failed: then -1 with the
 * reason, nothing left running, the spool directory removed). Errors: an
 * invalid request (id, relative paths, no hosts, walltime <= 0, a bad env
 * line, a name with '/'), a job id whose spool directory exists already, a
 * uid the daemon cannot run as (a daemon not running as root runs only its
 * own uid; uid 0 only for user "root"), and the supervisor's own failure
 * (with its supervisor.log). Problems the supervisor meets while starting
 * the job as the user (working directory, output files, exec) are not
 * errors here: the job ends at once with reason "failed" and exit 127, the
 * message in its error file (when it can be written as the user: not when
 * the error file itself is the problem), supervisor.log and the status
 * file's message line. */
int local_start(struct local *l, const struct local_job *j, struct err *err);

/* The id in a job's output names: id, or an array task's "A[i]" as "A-i"
 * (into buf of n bytes). NULL when array_task is not of that form. */
const char *local_file_id(const char *id, const char *array_task, char *buf, size_t n);

enum local_state {
    LOCAL_RUNNING,   /* supervisor alive */
    LOCAL_SUSPENDED, /* ... and the job stopped by local_suspend */
    LOCAL_ENDED,     /* status file present */
    LOCAL_LOST,      /* no supervisor and no status (e.g. the machine rebooted) */
    LOCAL_UNKNOWN,   /* no spool directory for that id */
    LOCAL_NEVER,     /* a spool directory, but no supervisor ever wrote its pid there and
                        none is coming up: the job never ran (a start cut short) */
};

struct local_status {
    enum local_state state;
    int exit_code;               /* LOCAL_ENDED */
    long end;                    /* LOCAL_ENDED: epoch seconds */
    char reason[16];             /* LOCAL_ENDED: completed, walltime, cancelled, failed */
    char message[LOCAL_MSG_MAX]; /* LOCAL_ENDED: why it could not start, or "" */
};

/* Where job `id` stands (reaps its supervisor if this struct local started it).
 * A supervisor counts as alive only if /proc/<pid>/cmdline is
 * `... _supervise <spooldir>` (a reused pid is not the job). Errors: an
 * invalid id, a malformed status file. */
int local_poll(struct local *l, const char *id, struct local_status *st, struct err *err);
/* Signal the job through its supervisor: cancel (SIGTERM, then SIGKILL after
 * the grace), suspend, resume. Error when the job is not running (or
 * suspended). Suspending a suspended job or resuming a running one is not an
 * error. The suspended state is a file in the spool directory, so it
 * survives a daemon restart. */
int local_cancel(struct local *l, const char *id, struct err *err);
int local_suspend(struct local *l, const char *id, struct err *err);
int local_resume(struct local *l, const char *id, struct err *err);
/* Forget an ended (or lost) job: remove its spool directory, only the files
 * named above (anything else left there is an error naming it, and the
 * directory stays). Error when the job is still running; forgetting an
 * unknown id is not an error (a retry after a crash finds nothing). */
int local_forget(struct local *l, const char *id, struct err *err);
/* Reap the supervisors this struct local started that have exited (call now
 * and then; never blocks). Other children of the daemon are left alone. */
void local_reap(struct local *l);

/* The supervisor's main: `moku _supervise <spooldir>`. Returns the process
 * exit status (it does not return until the job has ended): 0 once the
 * status file is written, 1 when it could not even start (no pid file then;
 * the reason is on its stderr, supervisor.log). */
int local_supervise(const char *spooldir);

/* This host: number of online processors and total memory in MB. */
void local_host(int *procs, long *mem_mb);

#endif
