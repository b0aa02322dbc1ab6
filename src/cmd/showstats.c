/*
 * showstats — the scheduler's statistics block (digest §7.10; Maui 3.3.1
 * MCShowSchedulerStatistics): jobs eligible, active and completed, queue
 * times and expansion factors, processor-hours dedicated against available,
 * wallclock accuracy and the backlog, in Maui's numeric layout (31-character
 * labels, `%9d/%-9d (%.3f%%)`, `%9.2f/%-9.2f`, trailing blanks included).
 *
 * Everything is computed from the scheduler's jobs at the command's `now`,
 * not accumulated: Maui keeps running sums from the moment its statistics
 * were initialised; moku's jobs (history loaded by the daemon included) are
 * the same record.
 *
 * Where moku differs from Maui:
 * - The first word is `moku`. Statistics begin at the first submission
 *   among the scheduler's jobs; with no job at all, at the last scheduling
 *   iteration (the engine keeps no time of its first one), else now.
 * - Successful jobs: completed with exit status 0 or unknown (moku has no
 *   other notion of success).
 * - Avg/Max QTime is over every started job (running or completed), queue
 *   time = start - submit; Avg/Max XFactor over completed jobs,
 *   (queue time + run time) / walltime limit.
 * - Dedicated processor-hours: each started job's processors times its run
 *   time up to its end or now; total: the processors up now times the time
 *   since statistics began (Maui integrates the processors up over time).
 * - Avg Job Proc Efficiency is always <N/A>: moku does not measure CPU use.
 * - Est/Avg Backlog: the eligible idle jobs' processors x walltime over the
 *   processors up, in hours; both figures are that one (Maui estimates the
 *   first with its wallclock accuracy and utilisation, and averages the
 *   second over its iterations). Like accuracy, <N/A> until a job completes,
 *   as Maui prints it.
 * - -n, -f, -s and -v are refused as not supported yet; -u, -g, -a, -c and
 *   -q, the per-credential tables, are in showstats_cred.c.
 */
#include <stdio.h>
#include <string.h>

#include "cmd/cmd_int.h"

struct statsview {
    const struct cmd_ctx *c;
    long since; /* when statistics began */
    size_t eligible, idle, active;
    size_t completed, successful, started;
    double qt_sum, qt_max; /* queue time of started jobs, seconds */
    double xf_sum, xf_max; /* expansion factor of completed jobs */
    double acc_sum;        /* run time / walltime of completed jobs */
    double ded_ps;         /* processor-seconds dedicated to started jobs */
    double total_ps;       /* processor-seconds available since `since` */
    double backlog_ps;     /* eligible idle jobs: processors x walltime */
    struct cmd_usage use;
};

static double dmax(double a, double b)
{
    return a > b ? a : b;
}

static double pct(double part, double whole)
{
    return whole > 0 ? part * 100.0 / whole : 0.0;
}

/* One started job's queue time, run time and, once it has ended, its
 * expansion factor and accuracy. */
static void add_started(struct statsview *v, const struct job *j)
{
    long until = j->state == JOB_RUNNING ? v->c->now : j->end;
    double run = (double)(until > j->start ? until - j->start : 0);
    double qt = (double)(j->start > j->submit ? j->start - j->submit : 0);
    double wc = (double)(j->walltime > 0 ? j->walltime : 1);
    v->started++;
    v->qt_sum += qt;
    v->qt_max = dmax(v->qt_max, qt);
    v->ded_ps += (double)job_procs(j) * run;
    if (j->state != JOB_COMPLETED)
        return;
    double xf = (qt + run) / wc;
    v->completed++;
    v->successful += j->exit_status <= 0; /* 0, or -1: unknown */
    v->xf_sum += xf;
    v->xf_max = dmax(v->xf_max, xf);
    v->acc_sum += run / wc;
}

static void view_init(struct statsview *v, const struct cmd_ctx *c)
{
    const struct sched *s = c->s;
    *v = (struct statsview){.c = c, .since = cmd_stats_since(c)};
    v->eligible = sched_count_idle(s, 0);
    v->idle = v->eligible + sched_count_idle(s, 1);
    v->active = sched_nrunning(s);
    for (size_t i = 0; i < sched_njobs(s); i++) {
        const struct job *j = sched_job(s, i);
        /* Ended before the statistics began (resetstats): not counted. */
        if (!j || cmd_stats_before(j, v->since))
            continue;
        /* A job ended without ever starting (history with start 0, before
         * its submission) dedicated nothing. */
        if (j->state == JOB_RUNNING || (j->state == JOB_COMPLETED && j->start >= j->submit))
            add_started(v, j);
        else if (j->state == JOB_IDLE && !sched_job_listed_blocked(s, j))
            v->backlog_ps += (double)job_procs(j) * (double)j->walltime;
    }
    cmd_usage(s, &v->use);
    v->total_ps = (double)v->use.up_procs * (double)(c->now - v->since);
}

static double avg_qtime_hours(const struct statsview *v)
{
    return v->started ? v->qt_sum / (double)v->started / 3600.0 : 0.0;
}

static double avg_xfactor(const struct statsview *v)
{
    return v->completed ? v->xf_sum / (double)v->completed : 0.0;
}

static double accuracy_pct(const struct statsview *v)
{
    return v->completed ? v->acc_sum / (double)v->completed * 100.0 : 0.0;
}

static double backlog_hours(const struct statsview *v)
{
    return v->use.up_procs > 0 ? v->backlog_ps / (double)v->use.up_procs / 3600.0 : 0.0;
}

/* ---- text ---- */

static void line_ratio(struct cmd_buf *b, const char *label, long long x, long long y)
{
    cmd_buf_printf(b, "%-31s%9lld/%-9lld (%.3f%%)\n", label, x, y, pct((double)x, (double)y));
}

static void line_pair(struct cmd_buf *b, const char *label, double x, double y)
{
    cmd_buf_printf(b, "%-31s%9.2f/%-9.2f\n", label, x, y);
}

static void text_jobs(struct cmd_buf *b, const struct statsview *v)
{
    line_ratio(b, "Eligible/Idle Jobs:", (long long)v->eligible, (long long)v->idle);
    cmd_buf_printf(b, "%-31s%9zu\n", "Active Jobs:", v->active);
    line_ratio(b, "Successful/Completed Jobs:", (long long)v->successful, (long long)v->completed);
    line_pair(b, "Avg/Max QTime (Hours):", avg_qtime_hours(v), v->qt_max / 3600.0);
    line_pair(b, "Avg/Max XFactor:", avg_xfactor(v), v->xf_max);
}

static void text_procs(struct cmd_buf *b, const struct statsview *v)
{
    double ded = v->ded_ps / 3600.0, total = v->total_ps / 3600.0;
    cmd_buf_printf(b, "\n%-31s%9.2f/%-9.2f (%.3f%%)\n", "Dedicated/Total ProcHours:", ded, total,
                   pct(ded, total));
    cmd_buf_puts(b, "\n");
    line_ratio(b, "Current Active/Total Procs:", v->use.busy_procs, v->use.up_procs);
    cmd_buf_puts(b, "\n");
}

/* Maui prints these as <N/A> until a job has completed; efficiency always
 * (moku does not measure use). */
static void text_quality(struct cmd_buf *b, const struct statsview *v)
{
    if (v->completed)
        cmd_buf_printf(b, "%-31s%8.3f%%\n", "Avg WallClock Accuracy:", accuracy_pct(v));
    else
        cmd_buf_printf(b, "%-31s %8s\n", "Avg WallClock Accuracy:", "<N/A>");
    cmd_buf_printf(b, "%-31s %8s\n", "Avg Job Proc Efficiency:", "<N/A>");
    if (v->completed)
        cmd_buf_printf(b, "%-31s %8.2f/%-8.2f\n", "Est/Avg Backlog (Hours):", backlog_hours(v),
                       backlog_hours(v));
    else
        cmd_buf_printf(b, "%-31s %8s/%-8s\n", "Est/Avg Backlog (Hours):", "<N/A>", "<N/A>");
}

static void text_stats(struct cmd_buf *b, const struct statsview *v)
{
    char up[CMD_TIME_MAX], date[CMD_TIME_MAX];
    cmd_fmt_duration(v->c->now - v->since, up);
    cmd_fmt_date(v->c, v->since, date);
    cmd_buf_printf(b, "moku active for   %11s  stats initialized on %s\n\n", up, date);
    text_jobs(b, v);
    text_procs(b, v);
    text_quality(b, v);
}

/* ---- JSON ---- */

/* x, or null when there is nothing to average (has == 0). */
static json_t *jnum(int has, double x)
{
    return has ? json_real(x) : json_null();
}

static json_t *json_stats(const struct statsview *v)
{
    const struct cmd_ctx *c = v->c;
    json_t *o = json_object();
    json_object_set_new(o, "active_for", json_integer(c->now - v->since));
    json_object_set_new(o, "initialized", json_integer(cmd_epoch(c, v->since)));
    json_object_set_new(o, "eligible_jobs", json_integer((json_int_t)v->eligible));
    json_object_set_new(o, "idle_jobs", json_integer((json_int_t)v->idle));
    json_object_set_new(o, "active_jobs", json_integer((json_int_t)v->active));
    json_object_set_new(o, "successful_jobs", json_integer((json_int_t)v->successful));
    json_object_set_new(o, "completed_jobs", json_integer((json_int_t)v->completed));
    json_object_set_new(o, "avg_qtime_hours", jnum(v->started > 0, avg_qtime_hours(v)));
    json_object_set_new(o, "max_qtime_hours", jnum(v->started > 0, v->qt_max / 3600.0));
    json_object_set_new(o, "avg_xfactor", jnum(v->completed > 0, avg_xfactor(v)));
    json_object_set_new(o, "max_xfactor", jnum(v->completed > 0, v->xf_max));
    json_object_set_new(o, "dedicated_proc_hours", json_real(v->ded_ps / 3600.0));
    json_object_set_new(o, "total_proc_hours", json_real(v->total_ps / 3600.0));
    json_object_set_new(o, "active_procs", json_integer(v->use.busy_procs));
    json_object_set_new(o, "total_procs", json_integer(v->use.up_procs));
    json_object_set_new(o, "wallclock_accuracy", jnum(v->completed > 0, accuracy_pct(v)));
    json_object_set_new(o, "proc_efficiency", json_null());
    json_object_set_new(o, "est_backlog_hours", jnum(v->completed > 0, backlog_hours(v)));
    json_object_set_new(o, "avg_backlog_hours", jnum(v->completed > 0, backlog_hours(v)));
    return o;
}

/* ---- entry ---- */

/* Maui's showstats options for the other statistics (per credential, node,
 * fairshare, standing reservation, verbose): known, not implemented yet. */
static int maui_option(const char *w)
{
    return w[0] == '-' && w[1] != '\0' && w[2] == '\0' && strchr("acfgnqsuv", w[1]);
}

int cmd_showstats(const struct cmd_ctx *c, const struct cmd_args *a, struct cmd_buf *out,
                  struct err *err)
{
    if (a->argc > 0 && a->argv[0][0] == '-' && a->argv[0][1] && !a->argv[0][2] &&
        strchr("ugacq", a->argv[0][1]))
        return cmd_showstats_cred(c, a, out, err);
    for (int i = 0; i < a->argc; i++) {
        const char *w = a->argv[i];
        if (maui_option(w))
            return err_set(err,
                           "showstats: option '%s' is not supported yet (the scheduler "
                           "statistics, or -u, -g, -a, -c, -q)",
                           w);
        if (w[0] == '-')
            return err_usage(err, "showstats: unknown option '%s'", cmd_word(w));
        return err_usage(err, "showstats: unexpected argument '%s'", cmd_word(w));
    }
    struct statsview v;
    view_init(&v, c);
    if (a->json)
        cmd_json_out(out, json_stats(&v));
    else
        text_stats(out, &v);
    return 0;
}
