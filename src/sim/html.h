/*
 * html — the report of one or several replays as one self-contained HTML
 * page (moku simulate --html): nothing is fetched when it is opened (CSS,
 * the charts' SVG and a few lines of JavaScript are inline), so it can be
 * mailed, archived or published as it is.
 *
 * The page: the runs' metrics side by side (a column per run);
 * utilization and queue length over time (each run's points pale, their
 * rolling mean bold; two range inputs zoom both charts by re-setting their
 * viewBox, the axis re-drawn; without JavaScript the whole replay shows);
 * the CDFs of wait and bounded slowdown with p50/p95/p99 of wait, bounded
 * slowdown and turnaround; the jobs by size, by runtime, the top users and
 * the classes; each run's configuration. Every text that comes from a
 * trace or a configuration (names, file names, the maui.cfg text) is
 * escaped. Its size does not grow with the trace: the series are the
 * replay's bins (at most PLOT_MAX_POINTS points a line), the
 * distributions REPORT_NQUANT quantiles, the users the top ten.
 *
 * What it is not: it reads no file (the caller gives the configuration's
 * text) and computes no metric (report, plot do).
 */
#ifndef MOKU_HTML_H
#define MOKU_HTML_H

#include <stdio.h>

#include "sim/plot.h"
#include "sim/report.h"

/* One run, borrowed. */
struct html_run {
    const char *label;            /* how the page names it: its file and --compare value */
    const char *config;           /* the --config file as given, NULL: Maui's defaults */
    const char *config_text;      /* that file's text, NULL when none or unreadable */
    const char *const *overrides; /* --set lines, then the --compare lines */
    size_t noverrides;
    int varied;         /* the last `varied` overrides are its --compare values */
    int recorded;       /* the schedule the log recorded, not a replay */
    int pareto;         /* on the Pareto front (report_pareto); 0 for a lone run */
    const char *policy; /* one line: backfill policy, reservation depth, overrun */
    const struct report *r;
    const struct plot_series *series;
};

/* Write the page. Returns 0, or -1 if writing failed. */
int html_write_report(FILE *f, const char *trace, const struct html_run *runs, size_t n);

#endif
