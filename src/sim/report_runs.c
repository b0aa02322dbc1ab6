/*
 * report_runs — several runs of one workload side by side (report.h): the
 * text table with a column per run, the rows by size, runtime, user and
 * class, the recommendation (the Pareto front of wait, bounded slowdown,
 * utilization and fairness of waits), and the JSON of the runs.
 */
#include <stdlib.h>
#include <string.h>

#include "sim/report.h"
#include "sim/report_int.h"

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash && slash[1] ? slash + 1 : path;
}

/* A row of one value per run: the format's arguments may name x, the run
 * (const struct report_run *), and i_, its index from 0. The recorded
 * schedule (x->recorded) has no policy: a row marked policy_only shows "-". */
#define RUNS_ROW_IF(t, label, runs, n, policy_only, ...)                                           \
    do {                                                                                           \
        size_t row_ = report_table_row((t), (label));                                              \
        for (size_t i_ = 0; i_ < (n); i_++) {                                                      \
            const struct report_run *x = &(runs)[i_];                                              \
            (void)x;                                                                               \
            if ((policy_only) && x->recorded)                                                      \
                snprintf(report_cell((t), row_, i_ + 1), REPORT_CELL, "-");                        \
            else                                                                                   \
                snprintf(report_cell((t), row_, i_ + 1), REPORT_CELL, __VA_ARGS__);                \
        }                                                                                          \
    } while (0)
#define RUNS_ROW(t, label, runs, n, ...) RUNS_ROW_IF(t, label, runs, n, 0, __VA_ARGS__)
#define POLICY_ROW(t, label, runs, n, ...) RUNS_ROW_IF(t, label, runs, n, 1, __VA_ARGS__)

/* The first run that is a replay (not the recorded schedule). */
static const struct report_run *first_replay(const struct report_run *runs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!runs[i].recorded)
            return &runs[i];
    return n ? &runs[0] : NULL;
}

/* The k-th --compare line of a run (k < varied), NULL for the recorded one. */
static const char *varied_line(const struct report_run *r, int k)
{
    return r->recorded ? NULL : r->overrides[r->noverrides - (size_t)r->varied + (size_t)k];
}

/* The value of a PARAM=VALUE line. */
static const char *line_value(const char *line)
{
    line += strcspn(line, "= \t");
    return line + strspn(line, "= \t");
}

/* The --compare rows: labelled with each parameter, a value per run. */
static void varied_rows(struct report_table *t, const struct report_run *runs, size_t n)
{
    const struct report_run *r0 = first_replay(runs, n);
    for (int k = 0; r0 && k < r0->varied; k++) {
        const char *line = varied_line(r0, k);
        char label[REPORT_CELL];
        snprintf(label, sizeof label, "%.*s", (int)strcspn(line, "= \t"), line);
        size_t row = report_table_row(t, label);
        for (size_t i = 0; i < n; i++) {
            const char *v = varied_line(&runs[i], k);
            snprintf(report_cell(t, row, i + 1), REPORT_CELL, "%s", v ? line_value(v) : "-");
        }
    }
}

static int any_windowed(const struct report_run *runs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (runs[i].r.windowed)
            return 1;
    return 0;
}

/* The fairshare history row, when some run read one: "N windows from
 * DIR", or "none". */
static void fs_history_row(struct report_table *t, const struct report_run *runs, size_t n)
{
    int any = 0;
    for (size_t i = 0; i < n; i++)
        any |= runs[i].r.fs_history[0] != '\0';
    if (!any)
        return;
    size_t row = report_table_row(t, "fairshare history");
    for (size_t i = 0; i < n; i++) {
        const struct report *r = &runs[i].r;
        if (r->fs_history[0])
            snprintf(report_cell(t, row, i + 1), REPORT_CELL, "%d windows from %s", r->fs_windows,
                     r->fs_history);
        else
            snprintf(report_cell(t, row, i + 1), REPORT_CELL, "%s",
                     runs[i].recorded ? "-" : "none");
    }
}

static void runs_metrics(struct report_table *t, const struct report_run *runs, size_t n)
{
    size_t row = report_table_row(t, "run");
    for (size_t i = 0, k = 0; i < n; i++)
        snprintf(report_cell(t, row, i + 1), REPORT_CELL, runs[i].recorded ? "-" : "%zu",
                 runs[i].recorded ? 0 : ++k);
    RUNS_ROW(t, "configuration", runs, n, "%s",
             x->recorded ? "recorded"
             : x->config ? base_name(x->config)
                         : "defaults");
    varied_rows(t, runs, n);
    POLICY_ROW(t, "backfill policy", runs, n, "%s", x->backfill);
    POLICY_ROW(t, "reservation depth", runs, n, "%d", x->resdepth);
    fs_history_row(t, runs, n);
    RUNS_ROW(t, "processors", runs, n, "%lld", x->r.procs);
    RUNS_ROW(t, "jobs simulated", runs, n, "%zu", x->r.jobs);
    RUNS_ROW(t, "jobs skipped", runs, n, "%zu", x->r.skipped);
    RUNS_ROW(t, "jobs rejected", runs, n, "%zu", x->r.rejected);
    RUNS_ROW(t, "jobs never started", runs, n, "%zu", x->r.never_started);
    if (any_windowed(runs, n))
        RUNS_ROW(t, "jobs excluded", runs, n, "%zu", x->r.excluded);
    RUNS_ROW(t, "makespan (s)", runs, n, "%ld", x->r.makespan);
    RUNS_ROW(t, "utilization (%)", runs, n, "%.2f", 100.0 * x->r.utilization);
    RUNS_ROW(t, "average wait (s)", runs, n, "%.1f", x->r.avg_wait);
    RUNS_ROW(t, "maximum wait (s)", runs, n, "%ld", x->r.max_wait);
    RUNS_ROW(t, "avg bounded slowdown", runs, n, "%.3f", x->r.avg_bsld);
    RUNS_ROW(t, "avg expansion factor", runs, n, "%.3f", x->r.avg_xfactor);
    RUNS_ROW(t, "wait fairness", runs, n, "%.3f", x->r.wait_fairness);
    RUNS_ROW(t, "wait p50 (s)", runs, n, "%.0f", report_percentile(&x->r, REPORT_WAIT, 50));
    RUNS_ROW(t, "wait p95 (s)", runs, n, "%.0f", report_percentile(&x->r, REPORT_WAIT, 95));
    RUNS_ROW(t, "wait p99 (s)", runs, n, "%.0f", report_percentile(&x->r, REPORT_WAIT, 99));
    RUNS_ROW(t, "bsld p50", runs, n, "%.3f", report_percentile(&x->r, REPORT_BSLD, 50));
    RUNS_ROW(t, "bsld p95", runs, n, "%.3f", report_percentile(&x->r, REPORT_BSLD, 95));
    RUNS_ROW(t, "bsld p99", runs, n, "%.3f", report_percentile(&x->r, REPORT_BSLD, 99));
    POLICY_ROW(t, "jobs backfilled", runs, n, "%ld", x->r.backfilled);
    POLICY_ROW(t, "iterations", runs, n, "%ld", x->r.iterations);
    POLICY_ROW(t, "wall time (s)", runs, n, "%.3f", x->r.wall_seconds);
}

/* Three rows per class (jobs, average wait, average bounded slowdown), a
 * column per run; by_size selects the kind of class. */
static void runs_classes(struct report_table *t, const char *title, const struct report_run *runs,
                         size_t n, int by_size)
{
    const struct report_bound *b = by_size ? report_size_bounds() : report_runtime_bounds();
    int nc = by_size ? REPORT_NSIZE : REPORT_NRUNTIME;
    report_table_row(t, "");
    report_table_row(t, title);
    for (int c = 0; c < nc; c++) {
        char label[REPORT_CELL];
        snprintf(label, sizeof label, "  %-8s jobs", b[c].name);
        size_t rj = report_table_row(t, label);
        size_t rw = report_table_row(t, "           avg wait (s)");
        size_t rb = report_table_row(t, "           avg bsld");
        for (size_t i = 0; i < n; i++) {
            const struct report_class *k =
                by_size ? &runs[i].r.by_size[c] : &runs[i].r.by_runtime[c];
            snprintf(report_cell(t, rj, i + 1), REPORT_CELL, "%zu", k->jobs);
            report_fmt_avg(report_cell(t, rw, i + 1), "%.1f", k->avg_wait, k->jobs);
            report_fmt_avg(report_cell(t, rb, i + 1), "%.3f", k->avg_bsld, k->jobs);
        }
    }
}

static const struct report_group *group_named(const struct report_group *g, size_t n,
                                              const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(g[i].name, name) == 0)
            return &g[i];
    return NULL;
}

/* Three rows per group of the first replay (its first `top`, by
 * processor-seconds), a column per run: the same user or class in each. */
static void runs_groups(struct report_table *t, const char *title, const struct report_run *runs,
                        size_t n, int users, size_t top)
{
    const struct report_run *r0 = first_replay(runs, n);
    const struct report_group *g0 = users ? r0->r.users : r0->r.classes;
    size_t n0 = users ? r0->r.nusers : r0->r.nclasses;
    report_table_row(t, "");
    report_table_row(t, title);
    for (size_t c = 0; c < n0 && c < top; c++) {
        char label[REPORT_CELL];
        snprintf(label, sizeof label, "  %-8.*s jobs", REPORT_CELL - 16, g0[c].name);
        size_t rj = report_table_row(t, label);
        size_t rw = report_table_row(t, "           avg wait (s)");
        size_t rb = report_table_row(t, "           avg bsld");
        for (size_t i = 0; i < n; i++) {
            const struct report_group *g =
                users ? group_named(runs[i].r.users, runs[i].r.nusers, g0[c].name)
                      : group_named(runs[i].r.classes, runs[i].r.nclasses, g0[c].name);
            snprintf(report_cell(t, rj, i + 1), REPORT_CELL, "%zu", g ? g->jobs : 0);
            report_fmt_avg(report_cell(t, rw, i + 1), "%.1f", g ? g->avg_wait : 0, g ? g->jobs : 0);
            report_fmt_avg(report_cell(t, rb, i + 1), "%.3f", g ? g->avg_bsld : 0, g ? g->jobs : 0);
        }
    }
}

/* a beats b: at least as good on all four (less wait, less slowdown, more
 * utilization, fairer waits) and better on one. */
static int dominates(const struct report *a, const struct report *b)
{
    int ge = a->avg_wait <= b->avg_wait && a->avg_bsld <= b->avg_bsld &&
             a->utilization >= b->utilization && a->wait_fairness >= b->wait_fairness;
    int gt = a->avg_wait < b->avg_wait || a->avg_bsld < b->avg_bsld ||
             a->utilization > b->utilization || a->wait_fairness > b->wait_fairness;
    return ge && gt;
}

void report_pareto(struct report_run *runs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        runs[i].pareto = 1;
        for (size_t j = 0; j < n && runs[i].pareto; j++)
            if (j != i && dominates(&runs[j].r, &runs[i].r))
                runs[i].pareto = 0;
    }
}

/* The recommendation: a row per run with the four measures, the front marked. */
static void print_front(FILE *f, const struct report_run *runs, size_t n)
{
    const struct report_run *r0 = first_replay(runs, n);
    int nv = r0 ? r0->varied : 0;
    struct report_table t;
    report_table_init(&t, (size_t)(7 + nv));
    size_t h = report_table_row(&t, "run");
    snprintf(report_cell(&t, h, 1), REPORT_CELL, "configuration");
    for (int k = 0; k < nv; k++) {
        /* r0's own line, not varied_line's: nv > 0 only for a replay (a
         * recorded run has no overrides), and its NULL would be in GCC's
         * view here. */
        const char *line = r0->overrides[r0->noverrides - (size_t)nv + (size_t)k];
        snprintf(report_cell(&t, h, 2 + (size_t)k), REPORT_CELL, "%.*s", (int)strcspn(line, "= \t"),
                 line);
    }
    static const char *const heads[] = {"avg wait (s)", "avg bsld", "utilization (%)",
                                        "wait fairness", "front"};
    for (int k = 0; k < 5; k++)
        snprintf(report_cell(&t, h, 2 + (size_t)nv + (size_t)k), REPORT_CELL, "%s", heads[k]);
    for (size_t i = 0, num = 0; i < n; i++) {
        const struct report_run *x = &runs[i];
        char label[16];
        snprintf(label, sizeof label, x->recorded ? "-" : "%zu", x->recorded ? 0 : ++num);
        size_t row = report_table_row(&t, label);
        snprintf(report_cell(&t, row, 1), REPORT_CELL, "%s",
                 x->recorded ? "recorded"
                 : x->config ? base_name(x->config)
                             : "defaults");
        for (int k = 0; k < nv; k++) {
            const char *v = varied_line(x, k);
            snprintf(report_cell(&t, row, 2 + (size_t)k), REPORT_CELL, "%s",
                     v ? line_value(v) : "-");
        }
        size_t c = 2 + (size_t)nv;
        snprintf(report_cell(&t, row, c), REPORT_CELL, "%.1f", x->r.avg_wait);
        snprintf(report_cell(&t, row, c + 1), REPORT_CELL, "%.3f", x->r.avg_bsld);
        snprintf(report_cell(&t, row, c + 2), REPORT_CELL, "%.2f", 100.0 * x->r.utilization);
        snprintf(report_cell(&t, row, c + 3), REPORT_CELL, "%.3f", x->r.wait_fairness);
        snprintf(report_cell(&t, row, c + 4), REPORT_CELL, "%s", x->pareto ? "*" : "");
    }
    fprintf(f, "\n  the Pareto front (*): no other run is as good on all of wait, bounded "
               "slowdown,\n  utilization and wait fairness, and better on one\n\n");
    report_table_print(f, &t);
}

void report_print_runs_text(FILE *f, const char *trace, const struct report_run *runs, size_t n)
{
    size_t replays = 0;
    for (size_t i = 0; i < n; i++)
        replays += !runs[i].recorded;
    fprintf(f, "moku simulate: %s, %zu run%s%s\n", trace, replays, replays == 1 ? "" : "s",
            replays < n ? " and the schedule the log recorded" : "");
    const struct report_run *r0 = first_replay(runs, n);
    size_t common = r0 ? r0->noverrides - (size_t)r0->varied : 0;
    for (size_t i = 0; i < common; i++)
        fprintf(f, "  every run: --set %s\n", r0->overrides[i]);
    fputc('\n', f);
    struct report_table t;
    report_table_init(&t, n + 1);
    runs_metrics(&t, runs, n);
    runs_classes(&t, "by job size (processors)", runs, n, 1);
    runs_classes(&t, "by runtime", runs, n, 0);
    runs_groups(&t, "by user (top 10 of run 1)", runs, n, 1, 10);
    runs_groups(&t, "by class", runs, n, 0, 50);
    report_table_print(f, &t);
    print_front(f, runs, n);
}

/* ------------------------------------------------------------------ JSON */

/* One run of several as a JSON object. */
static void json_run(FILE *f, const struct report_run *r)
{
    fprintf(f, "{\"config\":");
    if (r->recorded)
        fprintf(f, "\"recorded\"");
    else if (r->config)
        report_json_string(f, r->config);
    else
        fprintf(f, "null");
    fprintf(f, ",\"overrides\":[");
    for (size_t k = 0; k < r->noverrides; k++) {
        if (k)
            fputc(',', f);
        report_json_string(f, r->overrides[k]);
    }
    fprintf(f, "],");
    report_json_fields(f, &r->r);
    report_json_extras(f, &r->r);
    report_json_classes(f, &r->r);
    fprintf(f, ",\"pareto\":%s}", r->pareto ? "true" : "false");
}

void report_print_runs_json(FILE *f, const struct report_run *runs, size_t n)
{
    fputc('{', f);
    for (size_t i = 0; i < n; i++)
        if (runs[i].recorded) {
            fprintf(f, "\"recorded\":");
            json_run(f, &runs[i]);
            fputc(',', f);
        }
    fprintf(f, "\"runs\":[");
    for (size_t i = 0, k = 0; i < n; i++)
        if (!runs[i].recorded) {
            fprintf(f, "%s", k++ ? "," : "");
            json_run(f, &runs[i]);
        }
    fprintf(f, "]}\n");
}
