/*
 * showstart — when a job could start and end (digest §7.6; Maui 3.3.1
 * UserI.c UIJobGetStart, client MCShowEStart): a queued job's priority
 * reservation start if it holds one, else the earliest instant the plan has
 * room for it (sched_earliest_start); or the same for a job that is not
 * there, `<procs>@<duration>` (sched_earliest_for).
 *
 * showstart <jobid>
 * showstart <procs>@<duration> [-u user] [-g group] [-a acct] [-c class]
 *           [-q qos] [-p partition] [-f features]
 *   job <id> requires <procs> proc[s] for <duration>
 *   Earliest start in      <rel> on <date>
 *   Earliest completion in <rel> on <date>
 *   Best Partition: <partition>
 * A running job: `job <id> is already running, started <rel> ago on <date>`
 * and `Expected completion in <rel> on <date>` (its planned end). A job no
 * set of nodes it may use can ever hold: `job <id> cannot start: the nodes
 * it may use can never hold it`. The hypothetical job's id is the request
 * as typed.
 * JSON: {"job": id|null, "procs", "duration", "start": epoch|null,
 * "completion": epoch|null, "running": bool} (null: never).
 *
 * Where moku differs from Maui 3.3.1: Best Partition is the partition the
 * job asked for, else the cluster's one partition, else ALL (the engine
 * plans across partitions and does not name one). Holds and throttling
 * limits are not considered: the answer is when the resources are there,
 * as with Maui's estimate.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfg/cfg.h"
#include "cmd/cmd_int.h"

/* Options of the hypothetical form, all with a value. */
#define SHOWSTART_OPTS "ugacqpf"

struct showstart_req {
    const char *what;     /* the job id or procs@duration word */
    const char *opt[128]; /* option values */
};

/* What both layouts print. */
struct start_view {
    const char *label;   /* job id, or the request as typed */
    const struct job *j; /* NULL: hypothetical */
    long long procs;
    long walltime;
    const char *partition; /* asked for, or NULL */
    int running;
    long start, end; /* start SCHED_NEVER: never */
};

/* ---- the command line ---- */

static int parse_words(const struct cmd_args *a, struct showstart_req *q, struct err *err)
{
    for (int i = 0; i < a->argc; i++) {
        const char *w = a->argv[i];
        if (w[0] != '-' || w[1] == '\0') {
            if (q->what)
                return err_usage(err, "showstart: one job at a time ('%s' is extra)", cmd_word(w));
            q->what = w;
            continue;
        }
        char c = w[1];
        if (!strchr(SHOWSTART_OPTS, c))
            return err_usage(err, "showstart: unknown option '%s'", cmd_word(w));
        if (q->opt[(unsigned char)c])
            return err_usage(err, "showstart: -%c given twice", c);
        if (!w[2] && i + 1 >= a->argc)
            return err_usage(err, "showstart: -%c needs a value", c);
        q->opt[(unsigned char)c] = w[2] ? w + 2 : a->argv[++i];
    }
    if (!q->what)
        return err_usage(err, "showstart: missing job (showstart <jobid> or <procs>@<duration>)");
    return 0;
}

/* `<procs>@<duration>` into procs and walltime. */
static int parse_shape(const char *w, long long *procs, long *wall, struct err *err)
{
    const char *at = strchr(w, '@');
    char num[32];
    size_t len = at ? (size_t)(at - w) : 0;
    int ok = at && len > 0 && len < sizeof num;
    if (ok) {
        memcpy(num, w, len);
        num[len] = '\0';
        ok = cfg_parse_int(num, 1, 100000000, procs, NULL) == 0 &&
             cfg_parse_time(at + 1, wall, NULL) == 0 && *wall > 0;
    }
    if (!ok)
        return err_set(err,
                       "showstart: no job '%s', nor a request <procs>@<duration> (e.g. "
                       "8@1:00:00)",
                       cmd_word(w));
    return 0;
}

/* ---- the answer ---- */

/* Maui's Best Partition: the one asked for, else the cluster's only one,
 * else ALL. */
static const char *best_partition(const struct cmd_ctx *c, const char *asked)
{
    if (asked && strcmp(asked, "ALL") != 0)
        return asked;
    const char *p = NULL;
    for (size_t i = 0; i < sched_nnodes(c->s); i++) {
        const char *q = sched_node(c->s, i)->partition;
        if (p && strcmp(p, q) != 0)
            return "ALL";
        p = q;
    }
    return p ? p : "DEFAULT";
}

static int view_job(const struct cmd_ctx *c, const struct job *j, struct start_view *v,
                    struct err *err)
{
    if (j->state != JOB_IDLE && j->state != JOB_RUNNING)
        return err_set(err, "showstart: job '%s' is %s: it will not start", cmd_word(j->name),
                       job_state_name(j->state));
    *v = (struct start_view){.label = j->name,
                             .j = j,
                             .procs = job_procs(j),
                             .walltime = j->walltime,
                             .partition = j->partition,
                             .running = j->state == JOB_RUNNING};
    if (v->running) {
        v->start = j->start;
        v->end = j->planned_end > j->start ? j->planned_end : j->start + j->walltime;
        return 0;
    }
    v->start = sched_earliest_start(c->s, j, c->now);
    return 0;
}

static int view_shape(const struct cmd_ctx *c, const struct showstart_req *q, struct start_view *v,
                      struct err *err)
{
    long long procs = 0;
    long wall = 0;
    if (parse_shape(q->what, &procs, &wall, err) < 0)
        return -1;
    struct job_spec spec = {.name = q->what,
                            .tasks = (int)procs,
                            .procs_per_task = 1,
                            .walltime = wall,
                            .user = q->opt['u'],
                            .group = q->opt['g'],
                            .account = q->opt['a'],
                            .class_ = q->opt['c'],
                            .qos = q->opt['q'],
                            .partition = q->opt['p'],
                            .features = q->opt['f']};
    *v = (struct start_view){.label = q->what,
                             .procs = procs,
                             .walltime = wall,
                             .partition = q->opt['p'],
                             .start = sched_earliest_for(c->s, &spec, c->now)};
    return 0;
}

static int make_view(const struct cmd_ctx *c, const struct showstart_req *q, struct start_view *v,
                     struct err *err)
{
    const struct job *j = sched_find_job(c->s, q->what);
    if (!j)
        return view_shape(c, q, v, err);
    for (const char *p = SHOWSTART_OPTS; *p; p++)
        if (q->opt[(unsigned char)*p])
            return err_set(err,
                           "showstart: -%c applies to <procs>@<duration> only (job '%s' "
                           "has its own)",
                           *p, cmd_word(q->what));
    if (view_job(c, j, v, err) < 0)
        return -1;
    return 0;
}

/* Never, or a start the plan placed before now (a stale plan): now. */
static void settle(const struct cmd_ctx *c, struct start_view *v)
{
    if (v->running || v->start >= SCHED_NEVER)
        return;
    if (v->start < c->now)
        v->start = c->now;
    v->end = v->start + v->walltime;
}

/* Duration without the padding cmd_fmt_duration gives INFINITY. */
static const char *trimmed(const char *d)
{
    while (*d == ' ')
        d++;
    return d;
}

static void text_line(struct cmd_buf *b, const struct cmd_ctx *c, const char *what, long t)
{
    char rel[CMD_TIME_MAX], date[CMD_TIME_MAX];
    cmd_fmt_duration(t - c->now, rel);
    cmd_fmt_date(c, t, date);
    cmd_buf_printf(b, "%s %11s on %s\n", what, rel, date);
}

static void text_out(struct cmd_buf *b, const struct cmd_ctx *c, const struct start_view *v)
{
    char d[CMD_TIME_MAX];
    cmd_fmt_duration(v->walltime, d);
    cmd_buf_printf(b, "job %s requires %lld proc%s for %s\n", v->label, v->procs,
                   v->procs == 1 ? "" : "s", trimmed(d));
    if (v->running) {
        char ago[CMD_TIME_MAX], date[CMD_TIME_MAX];
        cmd_fmt_duration(c->now - v->start, ago);
        cmd_fmt_date(c, v->start, date);
        cmd_buf_printf(b, "job %s is already running, started %s ago on %s\n", v->label,
                       trimmed(ago), date);
        text_line(b, c, "Expected completion in", v->end);
        return;
    }
    if (v->start >= SCHED_NEVER) {
        cmd_buf_printf(b, "job %s cannot start: the nodes it may use can never hold it\n",
                       v->label);
        return;
    }
    text_line(b, c, "Earliest start in     ", v->start);
    text_line(b, c, "Earliest completion in", v->end);
    cmd_buf_printf(b, "Best Partition: %s\n", best_partition(c, v->partition));
}

static json_t *json_time(const struct cmd_ctx *c, const struct start_view *v, long t)
{
    return v->start >= SCHED_NEVER ? json_null() : json_integer(cmd_epoch(c, t));
}

static void json_out(struct cmd_buf *b, const struct cmd_ctx *c, const struct start_view *v)
{
    cmd_json_out(b,
                 json_pack("{s:o, s:I, s:I, s:o, s:o, s:b}", "job",
                           v->j ? cmd_jstr(v->j->name) : json_null(), "procs", (json_int_t)v->procs,
                           "duration", (json_int_t)v->walltime, "start", json_time(c, v, v->start),
                           "completion", json_time(c, v, v->end), "running", v->running));
}

int cmd_showstart(const struct cmd_ctx *c, const struct cmd_args *a, struct cmd_buf *out,
                  struct err *err)
{
    struct showstart_req q = {0};
    struct start_view v = {0};
    if (parse_words(a, &q, err) < 0 || make_view(c, &q, &v, err) < 0)
        return -1;
    settle(c, &v);
    if (a->json)
        json_out(out, c, &v);
    else
        text_out(out, c, &v);
    return 0;
}
