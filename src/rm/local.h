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
 *     user, created 0600 if new); environment: a clean one with HOME, USER,
 *     LOGNAME, SHELL, PATH (/usr/local/bin:/usr/bin:/bin), the job's extra
 *     variables, and MOKU_JOBID, PBS_JOBID, PBS_JOBNAME, PBS_NODEFILE
 *     (<spooldir>/nodefile, one host name per processor), PBS_O_WORKDIR,
 *     PBS_NUM_NODES, PBS_NP, MOKU_NODES (the host list);
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
 *     (code: the exit status, or 128 + signal), then exits.
 *
 * Spool files: job.json (the start request, written by local_start),
 * nodefile, supervisor.pid (written by the supervisor, atomically, before it
 * starts the job), status (at the end), supervisor.log (its own errors).
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
    const char *id;       /* job id, used as the spool directory name: [A-Za-z0-9._-]+ */
    const char *name;     /* job name (PBS_JOBNAME), or NULL = the id */
    const char *user;     /* user name to run as */
    uid_t uid;
    gid_t gid;
    const char *script;   /* path of the script file to run (readable by the user) */
    const char *cwd;      /* working directory (absolute) */
    const char *out_path, *err_path; /* absolute; NULL: <cwd>/<name>.o<id> / .e<id> */
    const char *env;      /* extra "K=V\n" lines, or NULL */
    const char *const *hosts; /* one entry per allocated processor (nodefile lines) */
    size_t nhosts;
    long walltime;        /* seconds; > 0 */
    long grace;           /* seconds between SIGTERM and SIGKILL; 0 = default 5 */
};

struct local;

/* A local resource manager spooling under dir (created 0700 if missing).
 * exe is the path of the moku binary to run as supervisor (e.g. from
 * /proc/self/exe). Caller destroys. */
struct local *local_create(const char *spool, const char *exe, struct err *err);
void local_destroy(struct local *l);

/* Start a job: write its spool directory, start its supervisor, return once
 * the supervisor has written supervisor.pid (or failed: then -1 with the
 * reason, nothing left running, the spool directory removed). */
int local_start(struct local *l, const struct local_job *j, struct err *err);

enum local_state {
    LOCAL_RUNNING,   /* supervisor alive */
    LOCAL_SUSPENDED, /* ... and the job stopped by local_suspend */
    LOCAL_ENDED,     /* status file present */
    LOCAL_LOST,      /* no supervisor and no status (e.g. the machine rebooted) */
    LOCAL_UNKNOWN,   /* no spool directory for that id */
};

struct local_status {
    enum local_state state;
    int exit_code;     /* LOCAL_ENDED */
    long end;          /* LOCAL_ENDED: epoch seconds */
    char reason[16];   /* LOCAL_ENDED: completed, walltime, cancelled, failed */
};

/* Where job `id` stands (reaps the supervisor if it is the daemon's child). */
int local_poll(struct local *l, const char *id, struct local_status *st, struct err *err);
/* Signal the job through its supervisor: cancel (SIGTERM, then SIGKILL after
 * the grace), suspend, resume. Error when the job is not running. */
int local_cancel(struct local *l, const char *id, struct err *err);
int local_suspend(struct local *l, const char *id, struct err *err);
int local_resume(struct local *l, const char *id, struct err *err);
/* Forget an ended job: remove its spool directory. */
int local_forget(struct local *l, const char *id, struct err *err);
/* Reap any exited supervisors that are the daemon's children (call now and
 * then; never blocks). */
void local_reap(struct local *l);

/* The supervisor's main: `moku _supervise <spooldir>`. Returns the process
 * exit status (it does not return until the job has ended). */
int local_supervise(const char *spooldir);

/* This host: number of online processors and total memory in MB. */
void local_host(int *procs, long *mem_mb);

#endif
