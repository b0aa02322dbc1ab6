/* html — see html.h. */
#include "sim/html.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/markup.h"
#include "util/mem.h"

/* ------------------------------------------------------------ escaping */

/* Text as HTML (newlines kept): util/markup.c's one rule. */
static void esc(FILE *f, const char *s)
{
    markup_text(f, s, 1);
}

/* ---------------------------------------------------------------- page */

static const char style[] =
    "body{font-family:sans-serif;margin:1.5em auto;max-width:1000px;color:#222;padding:0 1em}"
    "h1{font-size:1.4em}h2{font-size:1.15em;border-bottom:1px solid #ccc;margin-top:2em}"
    "table{border-collapse:collapse;margin:.5em 0 1em}"
    "th,td{padding:2px 8px;border-bottom:1px solid #eee;text-align:right}"
    "th:first-child,td:first-child{text-align:left}thead th{border-bottom:1px solid #888}"
    "pre{background:#f6f6f6;padding:.6em;overflow:auto;max-height:30em}"
    "svg{font-size:12px;display:block}.note{color:#555;font-size:.9em}"
    ".key span{display:inline-block;margin-right:1.5em}"
    ".zoom{margin:.5em 0}.zoom input{width:35%;vertical-align:middle}";

static void page_head(FILE *f, const char *trace, size_t n)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>moku "
          "simulate: ",
          f);
    esc(f, trace);
    fprintf(f, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>moku simulate: ", style);
    esc(f, trace);
    fprintf(f,
            "</h1>\n<p class=\"note\">%zu run%s of one workload. Metrics are over the jobs that "
            "ran to their end; times are the trace's, in seconds unless said.</p>\n"
            "<p><a href=\"#metrics\">metrics</a> · <a href=\"#time\">over time</a> · "
            "<a href=\"#dist\">distributions</a> · <a href=\"#groups\">breakdowns</a> · "
            "%s<a href=\"#config\">configuration</a></p>\n",
            n, n == 1 ? "" : "s", n > 1 ? "<a href=\"#front\">the Pareto front</a> · " : "");
}

/* A header row: a first cell, then each run's label (spanning span columns). */
static void run_header(FILE *f, const char *first, const struct html_run *runs, size_t n, int span)
{
    fputs("<thead><tr><th>", f);
    esc(f, first);
    fputs("</th>", f);
    for (size_t i = 0; i < n; i++) {
        fprintf(f, "<th colspan=\"%d\" style=\"border-top:4px solid %s\">", span, plot_colour(i));
        esc(f, runs[i].label);
        fputs("</th>", f);
    }
    fputs("</tr></thead>\n", f);
}

/* A metrics row: the label, then one value per run from the format. */
#define ROW(f, label, runs, n, ...)                                                                \
    do {                                                                                           \
        fprintf((f), "<tr><td>%s</td>", (label));                                                  \
        for (size_t i_ = 0; i_ < (n); i_++) {                                                      \
            const struct report *r = (runs)[i_].r;                                                 \
            (void)r;                                                                               \
            fputs("<td>", (f));                                                                    \
            fprintf((f), __VA_ARGS__);                                                             \
            fputs("</td>", (f));                                                                   \
        }                                                                                          \
        fputs("</tr>\n", (f));                                                                     \
    } while (0)

static void metrics(FILE *f, const struct html_run *runs, size_t n)
{
    fputs("<h2 id=\"metrics\">Metrics</h2>\n<table>\n", f);
    run_header(f, "run", runs, n, 1);
    fputs("<tbody>\n<tr><td>policy</td>", f);
    for (size_t i = 0; i < n; i++) {
        fputs("<td>", f);
        esc(f, runs[i].policy);
        fputs("</td>", f);
    }
    fputs("</tr>\n", f);
    ROW(f, "processors", runs, n, "%lld", r->procs);
    ROW(f, "jobs simulated", runs, n, "%zu", r->jobs);
    ROW(f, "jobs skipped", runs, n, "%zu", r->skipped);
    ROW(f, "jobs rejected", runs, n, "%zu", r->rejected);
    ROW(f, "jobs never started", runs, n, "%zu", r->never_started);
    ROW(f, "makespan (days)", runs, n, "%.2f", (double)r->makespan / 86400);
    ROW(f, "utilization (%)", runs, n, "%.2f", 100 * r->utilization);
    ROW(f, "average wait", runs, n, "%.1f", r->avg_wait);
    ROW(f, "maximum wait", runs, n, "%ld", r->max_wait);
    ROW(f, "avg bounded slowdown", runs, n, "%.3f", r->avg_bsld);
    ROW(f, "avg expansion factor", runs, n, "%.3f", r->avg_xfactor);
    ROW(f, "wait fairness (Jain)", runs, n, "%.3f", r->wait_fairness);
    ROW(f, "jobs backfilled", runs, n, "%ld", r->backfilled);
    ROW(f, "iterations", runs, n, "%ld", r->iterations);
    fputs("</tbody>\n</table>\n", f);
}

/* ------------------------------------------------------ over time (SVG) */

#define CW 960.0 /* chart width */
#define CL 70.0  /* left margin */
#define CR 20.0  /* right margin */
#define CH 200.0 /* plot height */
#define CT 12.0  /* top margin */
#define CPW (CW - CL - CR)

/* Where the time charts start and how long they run, in days. */
struct span {
    long t0;
    double days;
};

static struct span time_span(const struct html_run *runs, size_t n)
{
    long t0 = LONG_MAX, end = LONG_MIN;
    for (size_t i = 0; i < n; i++) {
        const struct plot_series *p = runs[i].series;
        if (p->t0 < t0)
            t0 = p->t0;
        if (p->last > end)
            end = p->last;
    }
    if (t0 == LONG_MAX)
        t0 = end = 0;
    struct span s = {t0, (double)(end - t0) / 86400};
    if (s.days <= 0)
        s.days = 1.0 / 24;
    return s;
}

/* The time axis's ticks, days from 0 to max (the script re-draws them on zoom). */
static void time_ticks(FILE *f, double x0, double x1, double y)
{
    double step = plot_tick_step(x1 - x0, 8);
    for (double v = ceil(x0 / step) * step; v <= x1 * (1 + 1e-9); v += step) {
        double x = CL + (v - x0) / (x1 - x0) * CPW;
        fprintf(f,
                "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#000\"/>"
                "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%g</text>",
                x, x, y, y + 5, x, y + 18, v);
    }
}

/* One line of a time chart: points in data units (x days, y 0..100 from
 * the top), drawn in the inner svg whose viewBox the zoom changes. */
static void time_line(FILE *f, const struct plot_points *pts, const struct span *sp, int queue,
                      int mean, double qmax, size_t run)
{
    if (mean)
        fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s%s%s",
                plot_colour(run), *plot_dash(run) ? " stroke-dasharray=\"" : "", plot_dash(run),
                *plot_dash(run) ? "\"" : "");
    else
        fprintf(f,
                "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"0.8\" "
                "stroke-opacity=\"0.35\"",
                plot_colour(run));
    fputs(" vector-effect=\"non-scaling-stroke\" points=\"", f);
    const char *sep = "";
    for (size_t i = 0; i < pts->n; i++) {
        if (!pts->ok[i])
            continue;
        double v = queue ? (mean ? pts->queue_mean[i] : pts->queue[i]) / qmax
                         : (mean ? pts->util_mean[i] : pts->util[i]);
        fprintf(f, "%s%.4g,%.2f", sep, (pts->t[i] - (double)sp->t0) / 86400, 100 * (1 - v));
        sep = " ";
    }
    fputs("\"/>\n", f);
}

static double queue_max(const struct plot_points *pts, size_t n)
{
    double m = 0;
    for (size_t r = 0; r < n; r++)
        for (size_t i = 0; i < pts[r].n; i++)
            if (pts[r].ok[i] && pts[r].queue[i] > m)
                m = pts[r].queue[i];
    double step = plot_tick_step(m, 5);
    m = ceil(m / step) * step;
    return m > 0 ? m : step;
}

/* A time chart: its y grid, the inner svg of lines, the time axis. */
static void time_chart(FILE *f, const char *id, const char *ylabel, const struct plot_points *pts,
                       size_t n, const struct span *sp, int queue, double qmax)
{
    double top = 100.0 * (queue ? qmax / 100.0 : 1.0);
    double axis = CT + CH;
    fprintf(f,
            "<svg class=\"ts\" id=\"%s\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
            "data-left=\"%.0f\" data-w=\"%.0f\" data-y=\"%.0f\">\n",
            id, CW, axis + 40, CW, axis + 40, CL, CPW, axis);
    double step = plot_tick_step(top, 5);
    for (double v = 0; v <= top * (1 + 1e-9); v += step) {
        double y = CT + CH * (1 - v / top);
        fprintf(f,
                "<line x1=\"%.0f\" x2=\"%.0f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n",
                CL, CW - CR, y, y, CL - 6, y + 4, v);
    }
    fprintf(f,
            "<text transform=\"translate(16,%.0f) rotate(-90)\" text-anchor=\"middle\">%s</text>\n",
            CT + CH / 2, ylabel);
    fprintf(f,
            "<svg x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.6g 100\" "
            "preserveAspectRatio=\"none\">\n",
            CL, CT, CPW, CH, sp->days);
    for (size_t r = 0; r < n; r++)
        for (int mean = 0; mean < 2; mean++)
            time_line(f, &pts[r], sp, queue, mean, qmax, r);
    fprintf(f,
            "</svg>\n<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" fill=\"none\" "
            "stroke=\"#000\"/>\n<g class=\"xt\">",
            CL, CT, CPW, CH);
    time_ticks(f, 0, sp->days, axis);
    fprintf(f,
            "</g>\n<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">days since the first "
            "submission</text>\n</svg>\n",
            CL + CPW / 2, axis + 36);
}

/* The legend of every chart: each run's colour and dash, and its label. */
static void key(FILE *f, const struct html_run *runs, size_t n)
{
    fputs("<p class=\"key\">", f);
    for (size_t i = 0; i < n; i++) {
        fprintf(f,
                "<span><svg width=\"40\" height=\"10\" style=\"display:inline\"><line x1=\"0\" "
                "y1=\"5\" x2=\"40\" y2=\"5\" stroke=\"%s\" stroke-width=\"3\"%s%s%s/></svg> ",
                plot_colour(i), *plot_dash(i) ? " stroke-dasharray=\"" : "", plot_dash(i),
                *plot_dash(i) ? "\"" : "");
        esc(f, runs[i].label);
        fputs("</span>", f);
    }
    fputs("</p>\n", f);
}

static void over_time(FILE *f, const struct html_run *runs, size_t n)
{
    struct span sp = time_span(runs, n);
    struct plot_points *pts = xcalloc(n, sizeof *pts);
    long window = plot_window(sp.days * 86400);
    for (size_t i = 0; i < n; i++)
        plot_points_make(runs[i].series, window, &pts[i]);
    double qmax = queue_max(pts, n);
    fprintf(f,
            "<h2 id=\"time\">Utilization and queue length over time</h2>\n"
            "<p class=\"note\">Each point is the time-weighted average over its share of the "
            "replay (pale); the bold line is the rolling mean over %g days. Utilization: "
            "processors the running jobs asked for over processors up. Queue: jobs waiting.</p>\n",
            (double)window / 86400);
    key(f, runs, n);
    double stepd = sp.days / 1000;
    fprintf(f,
            "<div class=\"zoom\">zoom: from <input type=\"range\" id=\"zfrom\" min=\"0\" "
            "max=\"%.6g\" step=\"%.6g\" value=\"0\"> to <input type=\"range\" id=\"zto\" min=\"0\" "
            "max=\"%.6g\" step=\"%.6g\" value=\"%.6g\"> <span id=\"zshow\">days 0 to %.4g</span> "
            "<button id=\"zall\" type=\"button\">whole replay</button></div>\n",
            sp.days, stepd, sp.days, stepd, sp.days, sp.days);
    time_chart(f, "ts-util", "utilization (%)", pts, n, &sp, 0, 100);
    time_chart(f, "ts-queue", "queue length (jobs)", pts, n, &sp, 1, qmax);
    for (size_t i = 0; i < n; i++)
        plot_points_free(&pts[i]);
    free(pts);
}

/* The zoom: the range inputs set the inner svgs' viewBox and re-draw the
 * time axis. No library, nothing fetched. */
static const char script[] =
    "(function(){\n"
    "var a=document.getElementById('zfrom'),b=document.getElementById('zto'),"
    "show=document.getElementById('zshow'),charts=document.querySelectorAll('svg.ts');\n"
    "if(!a||!b)return;var span=+a.max,st=+a.step;\n"
    "function nice(m){var r=m/8,p=Math.pow(10,Math.floor(Math.log(r)/Math.LN10)),s=[1,2,5,10];"
    "for(var i=0;i<4;i++)if(s[i]*p>=r*(1-1e-9))return s[i]*p;return 10*p;}\n"
    "function draw(){var x0=+a.value,x1=+b.value;if(x1<=x0)return;var k=nice(x1-x0);\n"
    "for(var c=0;c<charts.length;c++){var svg=charts[c],inner=svg.querySelector('svg'),"
    "g=svg.querySelector('g.xt'),L=+svg.getAttribute('data-left'),W=+svg.getAttribute('data-w'),"
    "Y=+svg.getAttribute('data-y'),h='';\n"
    "inner.setAttribute('viewBox',x0+' 0 '+(x1-x0)+' 100');\n"
    "for(var v=Math.ceil(x0/k)*k;v<=x1*(1+1e-9);v+=k){var x=(L+(v-x0)/(x1-x0)*W).toFixed(1);"
    "h+='<line x1=\"'+x+'\" x2=\"'+x+'\" y1=\"'+Y+'\" y2=\"'+(Y+5)+'\" stroke=\"#000\"/>'+"
    "'<text x=\"'+x+'\" y=\"'+(Y+18)+'\" text-anchor=\"middle\">'+(+v.toPrecision(6))+'</text>';}\n"
    "g.innerHTML=h;}\n"
    "show.textContent='days '+(+x0.toPrecision(4))+' to '+(+x1.toPrecision(4));}\n"
    "a.oninput=function(){if(+a.value>=+b.value)a.value=+b.value-st;draw();};\n"
    "b.oninput=function(){if(+b.value<=+a.value)b.value=+a.value+st;draw();};\n"
    "document.getElementById('zall').onclick=function(){a.value=0;b.value=span;draw();};\n"
    "})();\n";

/* ------------------------------------------------------ distributions */

#define DW 470.0 /* a CDF chart's width */
#define DL 50.0
#define DR 15.0
#define DH 220.0
#define DT 10.0
#define DPW (DW - DL - DR)

/* log10 of a value, at least 0 (values below 1 sit at the left edge). */
static double lg(double v)
{
    return v > 1 ? log10(v) : 0;
}

/* One CDF chart: x on a log scale up to the largest value of any run. */
static void cdf_chart(FILE *f, const char *title, enum report_dist d, const struct html_run *runs,
                      size_t n, int seconds)
{
    double xmax = 1;
    for (size_t i = 0; i < n; i++)
        if (lg(runs[i].r->quant[d][REPORT_NQUANT - 1]) > xmax)
            xmax = lg(runs[i].r->quant[d][REPORT_NQUANT - 1]);
    xmax = ceil(xmax);
    fprintf(f,
            "<svg width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
            "style=\"display:inline-block\">\n",
            DW, DT + DH + 45, DW, DT + DH + 45);
    for (int p = 0; p <= 100; p += 20) {
        double y = DT + DH * (1 - p / 100.0);
        fprintf(f,
                "<line x1=\"%.0f\" x2=\"%.0f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%d%%</text>\n",
                DL, DW - DR, y, y, DL - 5, y + 4, p);
    }
    /* Ticks: seconds at 1 s, 1 min, 1 h, 1 d, 10 d, ...; slowdowns at decades. */
    static const double tsec[] = {1, 60, 3600, 86400, 864000, 8640000, 86400000};
    static const char *const tname[] = {"1s", "1m", "1h", "1d", "10d", "100d", "1000d"};
    for (int i = 0; i < (seconds ? 7 : (int)xmax + 1); i++) {
        double v = seconds ? lg(tsec[i]) : i;
        if (v > xmax)
            break;
        double x = DL + v / xmax * DPW;
        fprintf(f,
                "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.0f\" y2=\"%.0f\" stroke=\"#ddd\"/>"
                "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">",
                x, x, DT, DT + DH, x, DT + DH + 16);
        if (seconds)
            fputs(tname[i], f);
        else
            fprintf(f, "%g", pow(10, i));
        fputs("</text>\n", f);
    }
    for (size_t r = 0; r < n; r++) {
        fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s%s%s points=\"",
                plot_colour(r), *plot_dash(r) ? " stroke-dasharray=\"" : "", plot_dash(r),
                *plot_dash(r) ? "\"" : "");
        for (int q = 0; runs[r].r->jobs && q < REPORT_NQUANT; q++)
            fprintf(f, "%s%.1f,%.1f", q ? " " : "", DL + lg(runs[r].r->quant[d][q]) / xmax * DPW,
                    DT + DH * (1 - (double)q / (REPORT_NQUANT - 1)));
        fputs("\"/>\n", f);
    }
    fprintf(f,
            "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" fill=\"none\" "
            "stroke=\"#000\"/>\n<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">%s</text>\n"
            "</svg>\n",
            DL, DT, DPW, DH, DL + DPW / 2, DT + DH + 36, title);
}

static void distributions(FILE *f, const struct html_run *runs, size_t n)
{
    fputs("<h2 id=\"dist\">Distributions</h2>\n<p class=\"note\">Share of the jobs at or below "
          "a value (log scale). Bounded slowdown: max(1, (wait + run) / max(run, 10 s)).</p>\n",
          f);
    key(f, runs, n);
    cdf_chart(f, "wait (log scale)", REPORT_WAIT, runs, n, 1);
    cdf_chart(f, "bounded slowdown (log scale)", REPORT_BSLD, runs, n, 0);
    fputs("<table>\n", f);
    run_header(f, "percentile", runs, n, 1);
    fputs("<tbody>\n", f);
    static const double ps[] = {50, 95, 99};
    static const char *const what[REPORT_NDIST] = {"wait", "bounded slowdown", "turnaround"};
    for (int d = 0; d < REPORT_NDIST; d++)
        for (int k = 0; k < 3; k++) {
            char label[64];
            snprintf(label, sizeof label, "%s p%.0f", what[d], ps[k]);
            ROW(f, label, runs, n, d == REPORT_BSLD ? "%.3f" : "%.0f",
                report_percentile(r, (enum report_dist)d, ps[k]));
        }
    fputs("</tbody>\n</table>\n", f);
}

/* ----------------------------------------------------------- breakdowns */

static void class_table(FILE *f, const char *title, const struct report_bound *b, int nb,
                        const struct html_run *runs, size_t n, int by_size)
{
    fputs("<table>\n", f);
    run_header(f, title, runs, n, 3);
    fputs("<tbody>\n<tr><td></td>", f);
    for (size_t i = 0; i < n; i++)
        fputs("<td>jobs</td><td>avg wait</td><td>avg bsld</td>", f);
    fputs("</tr>\n", f);
    for (int c = 0; c < nb; c++) {
        fputs("<tr><td>", f);
        esc(f, b[c].name);
        fputs("</td>", f);
        for (size_t i = 0; i < n; i++) {
            const struct report_class *k =
                by_size ? &runs[i].r->by_size[c] : &runs[i].r->by_runtime[c];
            if (k->jobs)
                fprintf(f, "<td>%zu</td><td>%.1f</td><td>%.3f</td>", k->jobs, k->avg_wait,
                        k->avg_bsld);
            else
                fputs("<td>0</td><td>-</td><td>-</td>", f);
        }
        fputs("</tr>\n", f);
    }
    fputs("</tbody>\n</table>\n", f);
}

static const struct report_group *find_group(const struct report_group *g, size_t n,
                                             const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(g[i].name, name) == 0)
            return &g[i];
    return NULL;
}

/* The first `top` groups of the first run (by processor-seconds), each
 * with every run's figures for it. users: the user lists, else the classes. */
static void group_table(FILE *f, const char *title, const struct html_run *runs, size_t n,
                        int users, size_t top)
{
    const struct report *r0 = runs[0].r;
    const struct report_group *g0 = users ? r0->users : r0->classes;
    size_t n0 = users ? r0->nusers : r0->nclasses;
    fputs("<table>\n", f);
    run_header(f, title, runs, n, 4);
    fputs("<tbody>\n<tr><td></td>", f);
    for (size_t i = 0; i < n; i++)
        fputs("<td>jobs</td><td>share of use</td><td>avg wait</td><td>avg bsld</td>", f);
    fputs("</tr>\n", f);
    for (size_t k = 0; k < n0 && k < top; k++) {
        fputs("<tr><td>", f);
        esc(f, g0[k].name);
        fputs("</td>", f);
        for (size_t i = 0; i < n; i++) {
            const struct report *r = runs[i].r;
            const struct report_group *g = find_group(users ? r->users : r->classes,
                                                      users ? r->nusers : r->nclasses, g0[k].name);
            double total = 0;
            for (size_t j = 0; j < (users ? r->nusers : r->nclasses); j++)
                total += (users ? r->users : r->classes)[j].proc_seconds;
            if (g)
                fprintf(f, "<td>%zu</td><td>%.1f %%</td><td>%.1f</td><td>%.3f</td>", g->jobs,
                        total > 0 ? 100 * g->proc_seconds / total : 0.0, g->avg_wait, g->avg_bsld);
            else
                fputs("<td>0</td><td>-</td><td>-</td><td>-</td>", f);
        }
        fputs("</tr>\n", f);
    }
    fputs("</tbody>\n</table>\n", f);
    if (n0 > top)
        fprintf(f,
                "<p class=\"note\">%zu more; the JSON report (--format json) has them all.</p>\n",
                n0 - top);
}

static void breakdowns(FILE *f, const struct html_run *runs, size_t n)
{
    fputs("<h2 id=\"groups\">Breakdowns</h2>\n", f);
    class_table(f, "job size (processors)", report_size_bounds(), REPORT_NSIZE, runs, n, 1);
    class_table(f, "runtime", report_runtime_bounds(), REPORT_NRUNTIME, runs, n, 0);
    group_table(f, "user (top 10 by use)", runs, n, 1, 10);
    group_table(f, "class", runs, n, 0, 50);
}

/* ------------------------------------------------------ the Pareto front */

/* The recommendation: a row per run with the four measures; the runs no
 * other run beats on all of them are marked and shaded. */
static void front(FILE *f, const struct html_run *runs, size_t n)
{
    if (n < 2)
        return;
    fputs("<h2 id=\"front\">The Pareto front</h2>\n<p class=\"note\">A run is on the front "
          "(&#9733;) when no other run is as good on all four measures — lower average wait, "
          "lower average bounded slowdown, higher utilization, fairer waits across users "
          "(Jain's index of their average waits) — and better on one. Choose among these; the "
          "others are beaten.</p>\n<table>\n<thead><tr><th>run</th>",
          f);
    const struct html_run *r0 = runs;
    while (r0 < runs + n - 1 && r0->recorded)
        r0++;
    for (int k = 0; k < r0->varied; k++) {
        const char *line = r0->overrides[r0->noverrides - (size_t)r0->varied + (size_t)k];
        char name[128];
        snprintf(name, sizeof name, "%.*s", (int)strcspn(line, "= \t"), line);
        fputs("<th>", f);
        esc(f, name);
        fputs("</th>", f);
    }
    fputs("<th>avg wait (s)</th><th>avg bsld</th><th>utilization (%)</th><th>wait "
          "fairness</th><th>front</th></tr></thead>\n<tbody>\n",
          f);
    for (size_t i = 0; i < n; i++) {
        const struct html_run *x = &runs[i];
        fprintf(f, "<tr%s><td style=\"border-left:6px solid %s\">",
                x->pareto ? " style=\"background:#eef6e8;font-weight:bold\"" : "", plot_colour(i));
        esc(f, x->label);
        fputs("</td>", f);
        for (int k = 0; k < r0->varied; k++) {
            fputs("<td>", f);
            if (x->recorded || k >= x->varied) {
                fputs("-", f);
            } else {
                const char *v = x->overrides[x->noverrides - (size_t)x->varied + (size_t)k];
                v += strcspn(v, "= \t");
                esc(f, v + strspn(v, "= \t"));
            }
            fputs("</td>", f);
        }
        fprintf(f, "<td>%.1f</td><td>%.3f</td><td>%.2f</td><td>%.3f</td><td>%s</td></tr>\n",
                x->r->avg_wait, x->r->avg_bsld, 100 * x->r->utilization, x->r->wait_fairness,
                x->pareto ? "&#9733;" : "");
    }
    fputs("</tbody>\n</table>\n", f);
}

/* -------------------------------------------------------- configuration */

static void configuration(FILE *f, const struct html_run *runs, size_t n)
{
    fputs("<h2 id=\"config\">Configuration</h2>\n", f);
    for (size_t i = 0; i < n; i++) {
        fprintf(f, "<h3 style=\"border-left:6px solid %s;padding-left:6px\">", plot_colour(i));
        esc(f, runs[i].label);
        fputs("</h3>\n<p>", f);
        esc(f, runs[i].policy);
        fputs("</p>\n", f);
        if (runs[i].config) {
            fputs("<p>maui.cfg: ", f);
            esc(f, runs[i].config);
            fputs("</p>\n<pre>", f);
            esc(f, runs[i].config_text ? runs[i].config_text : "(could not be read again)");
            fputs("</pre>\n", f);
        } else if (runs[i].recorded) {
            fputs("<p>What the log recorded: each job's own start, no replay.</p>\n", f);
        } else {
            fputs("<p>Maui's defaults (no --config).</p>\n", f);
        }
        if (runs[i].noverrides) {
            fputs("<p>then:</p>\n<pre>", f);
            for (size_t k = 0; k < runs[i].noverrides; k++) {
                esc(f, runs[i].overrides[k]);
                fputc('\n', f);
            }
            fputs("</pre>\n", f);
        }
    }
}

int html_write_report(FILE *f, const char *trace, const struct html_run *runs, size_t n)
{
    page_head(f, trace, n);
    metrics(f, runs, n);
    front(f, runs, n);
    over_time(f, runs, n);
    distributions(f, runs, n);
    breakdowns(f, runs, n);
    configuration(f, runs, n);
    fprintf(f, "<script>\n%s</script>\n</body>\n</html>\n", script);
    return ferror(f) ? -1 : 0;
}
