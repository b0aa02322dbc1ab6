/*
 * cmd — the command layer: Maui's client commands answered from the
 * scheduler's state. The simulator (`moku simulate --show "..."` and its
 * --commands script) and the daemon call the same handlers.
 *
 * A command line is split into words like a shell would (no quoting needed
 * beyond plain words); `--format=json` (or `--format json`) anywhere selects
 * JSON output, else Maui's text layout. The commands are the command
 * table's entries with a handler here (cmd/cmdtab.h: showq, checkjob,
 * checknode, showstats, showgrid, showres, showbf, showstart, diagnose,
 * showconfig, qstat, pbsnodes); and, when cmd_ctx.control allows, those
 * that change state (setres, releaseres, canceljob, sethold, releasehold,
 * setspri, setqos, runjob).
 *
 * Read commands never change what the scheduler decided. Before any command
 * the plan is completed (sched_complete_plan: the reservations an iteration
 * left for later), and sched_queue() may compact the queue's internal holes
 * (the list it gives is a sorted copy, policy/qorder.h's qorder_look);
 * neither changes anything observable.
 */
#ifndef MOKU_CMD_H
#define MOKU_CMD_H

#include <time.h>

#include "util/err.h"

struct sched;
struct cfg;
struct job;

/* What a driver keeps of a job that the engine does not (the daemon's
 * record): strings borrowed until the command returns, NULL = unknown. */
struct cmd_job_extra {
    const char *name; /* qsub -N */
    const char *out_path, *err_path, *cwd;
    long mem_mb;     /* -l mem, 0 = none */
    long session;    /* running: the job's process group, 0 = unknown */
    int interactive; /* qsub -I: a shell on qsub's terminal (checkjob's INTERACTIVE flag) */
};

struct cmd_ctx {
    struct sched *s;
    const struct cfg *cfg; /* for showconfig; may be NULL (defaults shown) */
    long now;              /* the time the answer is for (trace time in a simulation) */
    long epoch_offset; /* added to times when they are printed as dates (SWF UnixStartTime; 0) */
    long stats_since;  /* when the statistics began (the daemon's record); 0: showstats
                          takes the first submission */
    /* Control commands change the state (setres, releaseres, canceljob,
     * sethold, releasehold, setspri, setqos, runjob): refused unless set. The
     * simulator's --commands script sets it; so does the daemon for setres and
     * releaseres, saving the result itself. */
    int control;
    /* canceljob of a running job: ask the resource manager to end it (it
     * reports the end later); NULL refuses. */
    int (*cancel)(void *ctx, struct job *j, long now);
    void *cancel_ctx;
    /* Who asks (the daemon's caller), or NULL: showbf's windows default to
     * that user's and group's. */
    const char *user, *group;
    /* The caller is an ordinary user (the daemon: not ADMIN1..3). Torque's
     * views then show what showq and checkjob show them and checknode
     * does not: other users' jobs in the queue, but where they run (qstat
     * -n, pbsnodes' jobs), their ended jobs (qstat -x) and nodes' notes
     * only for the caller's own jobs (named by user). */
    int ordinary;
    /* Torque's faces (qstat, pbsnodes): the server name job ids are shown
     * with ("123.server"), NULL = bare ids; and what the driver keeps of a
     * job beyond the engine (its -N name, output paths), NULL = nothing. */
    const char *server;
    int (*job_extra)(void *ctx, const struct job *j, struct cmd_job_extra *x);
    void *job_extra_ctx;
};

/* Why idle job j is not running, as one phrase: why it is blocked when it
 * is (sched_job_blocked, Maui's policy message), else what the last plan
 * decided ("insufficient idle processors", ...); buf holds a reservation's
 * start date. NULL for a job that is not idle. */
const char *cmd_wait_reason(const struct cmd_ctx *c, const struct job *j, char *buf, size_t n);

/*
 * Answer one command line. On success returns 0 and sets *out to the answer
 * (caller frees; text ends with a newline). On an unknown command, unknown
 * option or missing/unknown job or node returns -1, *out is NULL, and err
 * says what was wrong, naming the command ("checkjob: no job '42'").
 * A usage error — the words' shape is wrong: an unknown option, a missing
 * or extra operand, an option without its value, options given twice or
 * that exclude each other — sets err->usage (err_usage); the daemon's
 * clients exit 2 for those, 1 for the rest (a job that is not there, a
 * value that is read and refused).
 */
int cmd_run(const struct cmd_ctx *c, const char *line, char **out, struct err *err);

/*
 * The clock commands print dates by (docs/commands.md, "The clock"): UTC by
 * default (a replay's answers are the same on every machine), the process's
 * local time zone (TZ, else /etc/localtime) once a driver asks for it — the
 * daemon does, so that its answers, its log and its web view show one clock.
 * Process-wide, as TZ is.
 */
void cmd_use_local_time(int on);
/* epoch as broken-down time on that clock; -1 when it cannot be. */
int cmd_clock_tm(long epoch, struct tm *tm);
/* The clock's zone at epoch: its IANA name where known (Asia/Kolkata; "UTC";
 * "" when the zone has none, e.g. a POSIX TZ string), its abbreviation (IST)
 * and its offset east of UTC in seconds. */
struct cmd_zone {
    char name[64];
    char abbrev[16];
    long offset;
};
void cmd_clock_zone(long epoch, struct cmd_zone *z);
/* The same for a command already split into words (the daemon's requests:
 * a word may hold spaces). */
int cmd_runv(const struct cmd_ctx *c, int argc, char *const argv[], char **out, struct err *err);
/* Whether name is a command cmd_run knows (control commands included), to
 * check a script before it runs. */
int cmd_known(const char *name);

/* The job a user's word names: its id, or a Torque id "<id>.<host>[.<domain>...]"
 * whose number part is a job's id (qstat, qdel and checkjob take both); NULL
 * when none. */
struct job *cmd_find_job(const struct sched *s, const char *word);
/* The moku id inside a Torque job id: "123.host.domain" gives "123" when the
 * part before the first dot is all digits and the rest starts with a letter;
 * an array task's "12[3].host" gives "12[3]" and a whole array's "12[].host"
 * gives "12[]"; else word itself. Written to out (n bytes). */
const char *cmd_job_id(const char *word, char *out, size_t n);

/*
 * runjob's words, shared by the simulator's script and the daemon:
 * [-c] [-f] [-x] JOB. -f forces the start of a job that has holds; -c and
 * -x change nothing (moku's runjob ignores policies and reservations
 * anyway). Sets *force and *job (the index of the job id). Errors: an
 * unknown option, not exactly one job ("runjob: usage: runjob [-f] [-x] JOB").
 */
int cmd_runjob_args(int argc, char *const argv[], int *force, int *job, struct err *err);
/*
 * Start idle job j now (sched_runjob). A job with holds is refused unless
 * forced, as Maui refuses it; forced, its holds are released first (and put
 * back if the start fails) and the reply says so. On success *reply is
 * "job '<id>' started on <n> procs\n" (caller frees). Errors as
 * sched_runjob's, and "job '<id>' has a user hold (...)".
 */
int cmd_runjob_start(struct sched *s, struct job *j, long now, int force, char **reply,
                     struct err *err);

#endif
