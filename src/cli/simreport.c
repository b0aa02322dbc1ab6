/*
 * simreport — what moku simulate does after the replays: the report (one
 * run, or side by side with the Pareto front), the chart, series and HTML
 * outputs, the schedule the log recorded (--recorded) measured as a run,
 * and --merge, the report of a comparison whose runs were made apart.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cfg/cfg.h"
#include "cli/simulate_int.h"
#include "sim/html.h"
#include "sim/plot.h"
#include "sim/report.h"
#include "sim/runsave.h"
#include "sim/sim.h"
#include "util/mem.h"

/* The runs as the report module sees them, the front marked (caller frees). */
static struct report_run *report_runs(const struct run *runs, size_t n)
{
    struct report_run *rr = xcalloc(n ? n : 1, sizeof *rr);
    for (size_t i = 0; i < n; i++)
        rr[i] = (struct report_run){.config = runs[i].config,
                                    .overrides = runs[i].overrides,
                                    .noverrides = runs[i].noverrides,
                                    .varied = runs[i].varied,
                                    .recorded = runs[i].recorded,
                                    .backfill = sim_backfill_name(runs[i].pol.backfill),
                                    .resdepth = runs[i].pol.resdepth,
                                    .r = runs[i].report};
    report_pareto(rr, n);
    return rr;
}

void sim_print_reports(struct run *runs, size_t n, const struct sim_opts *o)
{
    if (n == 1 && o->json) {
        report_print_json(stdout, &runs[0].report, o->classes);
    } else if (n == 1) {
        report_print_text(stdout, &runs[0].report, o->trace, runs[0].policy);
        if (o->classes)
            report_print_classes_text(stdout, &runs[0].report);
    } else {
        struct report_run *rr = report_runs(runs, n);
        if (o->json)
            report_print_runs_json(stdout, rr, n);
        else
            report_print_runs_text(stdout, o->trace, rr, n);
        free(rr);
    }
}

/* A chart line per run, named by its configuration and --compare values
 * (plot_lines_free frees them). */
static struct plot_line *plot_lines(const struct run *runs, size_t n)
{
    struct plot_line *lines = xcalloc(n ? n : 1, sizeof *lines);
    for (size_t i = 0; i < n; i++) {
        const struct run *r = &runs[i];
        lines[i].series = &r->series;
        if (r->recorded) {
            lines[i].label = xstrdup("recorded");
            lines[i].run_name = "recorded";
            continue;
        }
        char *label = xstrdup(r->config ? r->config : "defaults");
        for (int k = 0; k < r->varied; k++) {
            char *next = xprintf("%s %s", label,
                                 r->overrides[r->noverrides - (size_t)r->varied + (size_t)k]);
            free(label);
            label = next;
        }
        lines[i].label = label;
    }
    return lines;
}

static void plot_lines_free(struct plot_line *lines, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free((char *)lines[i].label);
    free(lines);
}

/* A configuration file's text for the HTML report (caller frees), NULL when
 * it cannot be read; at most 1 MB of it. */
static char *read_text(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    size_t cap = 1 << 20;
    char *text = xmalloc(cap + 1);
    size_t len = fread(text, 1, cap, f);
    text[len] = 0;
    fclose(f);
    return text;
}

/* --html FILE: the page, a column (a line) per run. */
static void write_html(FILE *f, const struct run *runs, const struct plot_line *lines, size_t n,
                       const struct sim_opts *o)
{
    struct html_run *h = xcalloc(n ? n : 1, sizeof *h);
    struct report_run *rr = report_runs(runs, n);
    for (size_t i = 0; i < n; i++)
        h[i] = (struct html_run){.label = lines[i].label,
                                 .config = runs[i].config,
                                 .config_text = runs[i].config ? read_text(runs[i].config) : NULL,
                                 .overrides = runs[i].overrides,
                                 .noverrides = runs[i].noverrides,
                                 .varied = runs[i].varied,
                                 .recorded = runs[i].recorded,
                                 .pareto = n > 1 && rr[i].pareto,
                                 .policy = runs[i].policy,
                                 .r = &runs[i].report,
                                 .series = &runs[i].series};
    html_write_report(f, o->trace, h, n);
    for (size_t i = 0; i < n; i++)
        free((char *)h[i].config_text);
    free(rr);
    free(h);
}

void sim_write_series(const struct run *runs, size_t n, const struct sim_opts *o,
                      const struct outputs *outs)
{
    struct plot_line *lines = plot_lines(runs, n);
    if (outs->plot) {
        char *title = xprintf("moku simulate: %s", o->trace);
        plot_write_svg(outs->plot, title, lines, n);
        free(title);
    }
    if (outs->series)
        plot_write_csv(outs->series, lines, n);
    if (outs->html)
        write_html(outs->html, runs, lines, n, o);
    plot_lines_free(lines, n);
}

/* ------------------------------------------------------------ recorded */

/* One change of the recorded schedule's state. */
struct rev {
    long t;
    int kind; /* 0 an end, 1 a submission, 2 a start: the simulator's order at an instant */
    size_t job;
};

static int rev_cmp(const void *a, const void *b)
{
    const struct rev *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return (x->kind > y->kind) - (x->kind < y->kind);
}

/* The recorded schedule's state over time, as a replay samples its own. */
static void recorded_series(struct run *rec, const struct sim_opts *o, const struct workload *wl,
                            const struct sim_outcome *out, long long procs)
{
    struct rev *e = xmalloc((3 * wl->njobs + 1) * sizeof *e);
    size_t n = 0;
    for (size_t i = 0; i < wl->njobs; i++) {
        if (out[i].start < 0)
            continue;
        e[n++] = (struct rev){wl->jobs[i].submit, 1, i};
        e[n++] = (struct rev){out[i].start, 2, i};
        if (out[i].end >= 0)
            e[n++] = (struct rev){out[i].end, 0, i};
    }
    qsort(e, n, sizeof *e, rev_cmp);
    sim_start_series(&rec->series, wl, o->until);
    long long busy = 0;
    size_t idle = 0, running = 0;
    for (size_t i = 0; i < n; i++) {
        long long p = wl_job_procs(&wl->jobs[e[i].job]);
        if (e[i].kind == 0)
            busy -= p, running--;
        else if (e[i].kind == 1)
            idle++;
        else
            busy += p, running++, idle--;
        if (i + 1 == n || e[i + 1].t != e[i].t)
            plot_series_add(&rec->series, e[i].t, busy, procs, idle, running);
    }
    free(e);
}

void sim_recorded(struct run *rec, const struct sim_opts *o, const struct workload *wl,
                  struct obuf *jobs)
{
    long long procs = 0;
    size_t nodes = 0;
    sim_cluster_size(rec + 1, o, wl, &procs, &nodes);
    struct sim_outcome *out = xcalloc(wl->njobs ? wl->njobs : 1, sizeof *out);
    for (size_t i = 0; i < wl->njobs; i++) {
        long start = wl->rec_start ? wl->rec_start[i] : -1;
        out[i].start = out[i].end = -1;
        if (start < 0 || start > o->until)
            continue;
        out[i].start = start;
        if (start + wl_job_runtime(&wl->jobs[i]) <= o->until)
            out[i].end = start + wl_job_runtime(&wl->jobs[i]);
    }
    snprintf(rec->policy, sizeof rec->policy, "the schedule the log recorded");
    report_compute(&rec->report, wl, out, procs, NULL);
    rec->report.nodes = nodes;
    if (sim_wants_series(o))
        recorded_series(rec, o, wl, out, procs);
    if (jobs)
        report_write_recorded_csv(jobs, wl, out);
    free(out);
}

/* --------------------------------------------------------------- merge */

/* The saved runs, each checked against the first: one comparison, every
 * run there once. -1 after saying why. */
static int read_saves(int nfiles, char **files, struct runsave *saves)
{
    for (int i = 0; i < nfiles; i++) {
        FILE *f = fopen(files[i], "rb");
        struct err e;
        if (!f) {
            fprintf(stderr, "moku: --merge: %s: %s\n", files[i], strerror(errno));
            return -1;
        }
        int rc = runsave_read(f, files[i], &saves[i], &e);
        fclose(f);
        if (rc < 0) {
            fprintf(stderr, "moku: --merge: %s\n", e.msg);
            return -1;
        }
        if (strcmp(saves[i].key, saves[0].key) != 0 || saves[i].n != saves[0].n) {
            fprintf(stderr,
                    "moku: --merge: %s is a run of another comparison than %s (its "
                    "command line differs)\n",
                    files[i], files[0]);
            return -1;
        }
        for (int j = 0; j < i; j++)
            if (saves[j].k == saves[i].k) {
                fprintf(stderr, "moku: --merge: %s and %s are both run %d\n", files[j], files[i],
                        saves[i].k + 1);
                return -1;
            }
    }
    if (nfiles != saves[0].n) {
        fprintf(stderr, "moku: --merge: the comparison has %d runs, %d files given\n", saves[0].n,
                nfiles);
        return -1;
    }
    return 0;
}

static enum bf_policy backfill_of(const char *name)
{
    for (int b = BF_NONE; b <= BF_PREEMPT; b++)
        if (name && strcmp(sim_backfill_name((enum bf_policy)b), name) == 0)
            return (enum bf_policy)b;
    return BF_NONE;
}

/* The saved run becomes runs[k]: its report and series move over. */
static void take_save(struct run *r, struct runsave *s)
{
    r->report = s->r;
    r->series = s->series;
    memset(&s->r, 0, sizeof s->r);
    memset(&s->series, 0, sizeof s->series);
    snprintf(r->policy, sizeof r->policy, "%s", s->policy ? s->policy : "");
    r->pol.backfill = backfill_of(s->backfill);
    r->pol.resdepth = s->resdepth;
}

/* The per-job rows, appended in run order as one process writes them. */
static void write_rows(struct obuf *f, const struct runsave *saves, int n, int batsim)
{
    for (int k = 0; f && k < n; k++)
        for (int i = 0; i < n; i++)
            if (saves[i].k == k) {
                const char *rows = batsim ? saves[i].batsim : saves[i].jobs;
                size_t len = batsim ? saves[i].nbatsim : saves[i].njobs;
                if (rows)
                    obuf_write(f, rows, len);
            }
}

int sim_merge(int nfiles, char **files)
{
    if (nfiles < 1) {
        fprintf(stderr, "moku: --merge needs the files of --save-run\n");
        return 2;
    }
    struct runsave *saves = xcalloc((size_t)nfiles, sizeof *saves);
    struct sim_opts o = {0};
    char **argv = NULL;
    struct run *all = xcalloc(MAX_RUNS + 1, sizeof *all), *runs = all + 1;
    struct workload wl = {0};
    int rc = 1;
    if (read_saves(nfiles, files, saves) < 0 || sim_parse_key(saves[0].key, &o, &argv) < 0)
        goto out;
    size_t n = sim_plan_runs(&o, runs);
    if (n != (size_t)saves[0].n) {
        fprintf(stderr, "moku: --merge: the command line plans %zu runs, the files %d\n", n,
                saves[0].n);
        goto out;
    }
    for (int i = 0; i < nfiles; i++)
        take_save(&runs[saves[i].k], &saves[i]);
    all[0].recorded = 1;
    all[0].report = (struct report){.bsld_tau = runs[0].report.bsld_tau,
                                    .windowed = runs[0].report.windowed,
                                    .window_lo = runs[0].report.window_lo,
                                    .window_hi = runs[0].report.window_hi,
                                    .read_seconds = runs[0].report.read_seconds};
    struct outputs outs;
    if (o.recorded && sim_load_for_merge(&o, &runs[0], &wl) < 0)
        goto out;
    if (sim_open_outputs(&o, &outs) < 0)
        goto out;
    if (o.recorded) /* the log's schedule: read again, measured again */
        sim_recorded(&all[0], &o, &wl, outs.jobs);
    write_rows(outs.jobs, saves, nfiles, 0);
    write_rows(outs.batsim, saves, nfiles, 1);
    sim_write_series(runs - o.recorded, n + (size_t)o.recorded, &o, &outs);
    int lost = sim_close_outputs(&o, &outs) < 0;
    sim_print_reports(runs - o.recorded, n + (size_t)o.recorded, &o);
    rc = lost;
out:
    for (size_t i = 0; i <= MAX_RUNS; i++) {
        cfg_destroy(all[i].cfg);
        report_free(&all[i].report);
        plot_series_free(&all[i].series);
    }
    free(all);
    workload_free(&wl);
    for (int i = 0; i < nfiles; i++)
        runsave_free(&saves[i]);
    free(saves);
    sim_free_key_opts(&o, argv);
    return rc;
}
