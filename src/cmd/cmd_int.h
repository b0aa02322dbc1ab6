/*
 * cmd_int — what the command handlers share: a growable text buffer, Maui's
 * time and date formats, JSON output and the per-command entry points.
 * Private to src/cmd/ (and the unit test).
 */
#ifndef MOKU_CMD_INT_H
#define MOKU_CMD_INT_H

#include <stddef.h>

#include <jansson.h>

#include "cmd/cmd.h"
#include "engine/engine.h"

/* A growable NUL-terminated string. Zero-initialise; cmd_buf_take() hands
 * the text over (never NULL). */
struct cmd_buf {
    char *s;
    size_t len, cap;
};

void cmd_buf_puts(struct cmd_buf *b, const char *s);
void cmd_buf_printf(struct cmd_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* One line of columns and a newline, each column `gap` spaces after the
 * last, then s as "%*s" writes it with width (negative: "%-*s"): a row of
 * a per-job table at the cost of one pass (showq, 100,000 rows). At most
 * CMD_ROW_MAX columns. */
#define CMD_ROW_MAX 16
struct cmd_col {
    const char *s;
    int width;
    int gap;
};
void cmd_buf_row(struct cmd_buf *b, const struct cmd_col *cols, size_t n);
/* The text built so far; b is empty afterwards. Caller frees. */
char *cmd_buf_take(struct cmd_buf *b);

/* Room for a duration or a date, terminator included. */
#define CMD_TIME_MAX 32

/*
 * A duration as Maui prints it (MULToTString): [DD:]HH:MM:SS with the hours
 * on one digit under ten hours and "00" under one hour (`1:00:00`,
 * `00:30:00`, `12:00:00`, `1:00:00:00`), a leading `-` when negative,
 * `  INFINITY` from 100 days on and ` -INFINITY` from -10 days down.
 */
void cmd_fmt_duration(long secs, char out[CMD_TIME_MAX]);
/* Processors of running job j on node index idx (slots are runs of nodes,
 * possibly more than one covering the node). */
long long cmd_job_procs_on(const struct job *j, size_t idx);
/* MB of memory running job j holds on node idx (its slots'), 0 when none is
 * booked there. */
long long cmd_job_mem_on(const struct job *j, size_t idx);
/* A date as Maui prints it: the first 19 characters of ctime()
 * (`Thu Jan  1 00:00:00`), of t + c->epoch_offset on the commands' clock
 * (cmd_use_local_time: UTC, or the daemon's local time). */
void cmd_fmt_date(const struct cmd_ctx *c, long t, char out[CMD_TIME_MAX]);
/* t as printed in JSON: epoch seconds (t + c->epoch_offset). */
long cmd_epoch(const struct cmd_ctx *c, long t);
/* A job's priority as the text views print it (checkjob, showq -i, diagnose
 * -p: one priority, one value): the whole part, as Maui's StartPriority (a
 * long) holds it. JSON keeps the real value. */
long cmd_prio_shown(double priority);

/* root as indented JSON text ending in a newline, appended to out; root is
 * released. */
void cmd_json_out(struct cmd_buf *out, json_t *root);

/* A JSON string of s (invalid UTF-8 bytes become '?'; NULL gives null). */
json_t *cmd_jstr(const char *s);

/* The words of a command after its name, with --format taken out. */
struct cmd_args {
    const char *name; /* the command, for messages */
    int argc;
    char **argv;
    int json;
};

/* Text of a user-supplied word for an error message (clipped, never NULL). */
const char *cmd_word(const char *w);

/* One handler per command; each appends its answer to out or returns -1
 * with err naming the command. */
int cmd_showq(const struct cmd_ctx *c, const struct cmd_args *a, struct cmd_buf *out,
              struct err *err);
int cmd_checkjob(const struct cmd_ctx *c, const struct cmd_args *a, struct cmd_buf *out,
                 struct err *err);
int cmd_diagnose(const struct cmd_ctx *c, const struct cmd_args *a, struct cmd_buf *out,
                 struct err *err);
int cmd_showconfig(const struct cmd_ctx *c, const struct cmd_args *a, struct cmd_buf *out,
                   struct err *err);
int cmd_checknode(const struct cmd_ctx *c, const struct cmd_args *a, struct cmd_buf *out,
                  struct err *err);
int cmd_showstats(const struct cmd_ctx *c, const struct cmd_args *a, struct cmd_buf *out,
                  struct err *err);

/* Torque's views (src/cmd/qstat.c): qstat [-a|-f|-n|-x] [-u USER] [JOB...],
 * pbsnodes [-a|-l] [NODE...]. */
int cmd_qstat(const struct cmd_ctx *c, const struct cmd_args *a, struct cmd_buf *out,
              struct err *err);
int cmd_pbsnodes(const struct cmd_ctx *c, const struct cmd_args *a, struct cmd_buf *out,
                 struct err *err);

/* Reservations (src/cmd/showres.c, src/cmd/resctl.c): showres [-n] [id];
 * setres and releaseres (control commands, cmd_ctx.control). */
int cmd_showres(const struct cmd_ctx *c, const struct cmd_args *a, struct cmd_buf *out,
                struct err *err);
int cmd_setres(const struct cmd_ctx *c, const struct cmd_args *a, struct cmd_buf *out,
               struct err *err);
int cmd_releaseres(const struct cmd_ctx *c, const struct cmd_args *a, struct cmd_buf *out,
                   struct err *err);
/* diagnose -r: every reservation in detail (src/cmd/showres.c). */
void cmd_diag_resv(const struct cmd_ctx *c, const struct cmd_args *a, struct cmd_buf *out);
/* checknode: the reservations on node idx, appended to its text
 * (src/cmd/showres.c), or as a JSON array. */
void cmd_node_resv_text(const struct cmd_ctx *c, size_t idx, struct cmd_buf *out);
json_t *cmd_node_resv_json(const struct cmd_ctx *c, size_t idx);

/* What the plan offers: showbf (src/cmd/showbf.c), the backfill windows for
 * given credentials; showstart (src/cmd/showstart.c), a job's or a
 * <procs>@<duration> request's earliest start and completion. */
int cmd_showbf(const struct cmd_ctx *c, const struct cmd_args *a, struct cmd_buf *out,
               struct err *err);
int cmd_showstart(const struct cmd_ctx *c, const struct cmd_args *a, struct cmd_buf *out,
                  struct err *err);

/* Job control for the simulator's command script (src/cmd/jobctl.c; the
 * daemon has its own, which also saves): canceljob, sethold, releasehold,
 * setspri, setqos, runjob — Maui's options and replies. */
int cmd_canceljob(const struct cmd_ctx *c, const struct cmd_args *a, struct cmd_buf *out,
                  struct err *err);
int cmd_sethold(const struct cmd_ctx *c, const struct cmd_args *a, struct cmd_buf *out,
                struct err *err);
int cmd_releasehold(const struct cmd_ctx *c, const struct cmd_args *a, struct cmd_buf *out,
                    struct err *err);
int cmd_setspri(const struct cmd_ctx *c, const struct cmd_args *a, struct cmd_buf *out,
                struct err *err);
int cmd_setqos(const struct cmd_ctx *c, const struct cmd_args *a, struct cmd_buf *out,
               struct err *err);
int cmd_runjob(const struct cmd_ctx *c, const struct cmd_args *a, struct cmd_buf *out,
               struct err *err);

/* Processor use of the cluster, as showq's summaries count it. */
struct cmd_usage {
    long long up_procs, busy_procs;
    long up_nodes, busy_nodes;
};
void cmd_usage(const struct sched *s, struct cmd_usage *u);

/* When the statistics began: the driver's record (cmd_ctx.stats_since)
 * when it has one; else the first submission among the jobs; with no job,
 * the last iteration (if any), else now. Never after now. */
long cmd_stats_since(const struct cmd_ctx *c);
/* Whether job j ended before `since` (resetstats): statistics skip it. */
int cmd_stats_before(const struct job *j, long since);
/* Whether j counts as a completed job in statistics since `since`: it ran
 * (start not before its submission: history without a start is left out)
 * and ended at or after since. */
int cmd_stats_completed(const struct job *j, long since);

/* showstats -u|-g|-a|-c|-q [ID] (src/cmd/showstats_cred.c): per-credential
 * statistics; a->argv[0] is the option. */
int cmd_showstats_cred(const struct cmd_ctx *c, const struct cmd_args *a, struct cmd_buf *out,
                       struct err *err);
/* diagnose -j, -n, -u, -g, -a, -c [NAME] (src/cmd/diagview.c): the job
 * and node tables and the credential tables, with their problems. Errors:
 * an argument to -j or -n, an unknown credential name. */
int cmd_diag_view(const struct cmd_ctx *c, const struct cmd_args *a, char mode, const char *id,
                  struct cmd_buf *out, struct err *err);
/* checkjob -v (src/cmd/cjnodes.c): why each node cannot take idle job j
 * now, appended to out as text, or, with obj, set on it as "rejections":
 * [{"node", "reason"}], "idle_procs" and "feasible_procs". */
void cmd_checkjob_nodes(const struct cmd_ctx *c, const struct job *j, struct cmd_buf *out,
                        json_t *obj);
/* showgrid STATISTIC (src/cmd/showgrid.c). */
int cmd_showgrid(const struct cmd_ctx *c, const struct cmd_args *a, struct cmd_buf *out,
                 struct err *err);

/* A blocked job's reason without its leading "job <name> ", as showq -b
 * prints it (Maui's client drops those two words); reason itself when it
 * does not start so. */
const char *cmd_reason_tail(const struct job *j, const char *reason);

/* Whether idle job j holds a priority reservation (showq -i `*`). */
int cmd_job_reserved(const struct job *j);

/* diagnose -p's text for a set of idle jobs, from their priority breakdowns
 * (exposed so the layout can be tested with chosen weights and parts). */
struct cmd_prio_row {
    const struct job *job;
    struct prio_parts parts;
};
void cmd_diag_text(struct cmd_buf *out, const struct sched_policy *pol, int qos_qt, int qos_xf,
                   const struct cmd_prio_row *rows, size_t n);

/* diagnose -f: the fairshare parameters, window totals and each listed
 * credential's share and target (src/cmd/diagfs.c), as text or, with
 * a->json, JSON; appended to out. Cannot fail: it takes no arguments of its
 * own (cmd_diagnose has checked the line). */
void cmd_diag_fs(const struct cmd_ctx *c, const struct cmd_args *a, struct cmd_buf *out);

#endif
