/* plot — see plot.h. */
#include "sim/plot.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/mem.h"

void plot_series_init(struct plot_series *p, long t0, long width)
{
    *p = (struct plot_series){.t0 = t0, .width = width < 1 ? 1 : width, .last = LONG_MIN};
}

void plot_series_free(struct plot_series *p)
{
    free(p->bins);
    p->bins = NULL;
    p->n = p->cap = 0;
}

/* Halve the number of bins: pairs merge, the width doubles. */
static void merge_pairs(struct plot_series *p)
{
    size_t n = (p->n + 1) / 2;
    for (size_t j = 0; j < n; j++) {
        struct plot_bin b = p->bins[2 * j];
        if (2 * j + 1 < p->n) {
            const struct plot_bin *c = &p->bins[2 * j + 1];
            b.busy += c->busy;
            b.up += c->up;
            b.idle += c->idle;
            b.span += c->span;
        }
        p->bins[j] = b;
    }
    memset(&p->bins[n], 0, (p->n - n) * sizeof *p->bins);
    p->n = n;
    p->width *= 2;
}

/* The bin holding time t (>= t0), created (zeroed) if need be. */
static struct plot_bin *bin_at(struct plot_series *p, long t)
{
    size_t i;
    while ((i = (size_t)((t - p->t0) / p->width)) >= PLOT_MAX_BINS)
        merge_pairs(p);
    if (i >= p->n) {
        if (i >= p->cap) {
            size_t old = p->cap;
            p->bins = xgrow(p->bins, &p->cap, i + 1, sizeof *p->bins);
            memset(&p->bins[old], 0, (p->cap - old) * sizeof *p->bins);
        }
        p->n = i + 1;
    }
    return &p->bins[i];
}

/* Add the state held over [a, b) to the bins it spans. */
static void integrate(struct plot_series *p, long a, long b)
{
    if (a < p->t0)
        a = p->t0;
    while (a < b) {
        struct plot_bin *bin = bin_at(p, a);
        long bin_end = p->t0 + ((a - p->t0) / p->width + 1) * p->width;
        long e = b < bin_end ? b : bin_end;
        double d = (double)(e - a);
        bin->busy += (double)p->busy * d;
        bin->up += (double)p->up * d;
        bin->idle += (double)p->idle * d;
        bin->span += d;
        a = e;
    }
}

void plot_series_add(struct plot_series *p, long now, long long busy, long long up, size_t idle)
{
    if (p->last != LONG_MIN)
        integrate(p, p->last, now);
    p->last = now;
    p->busy = busy;
    p->up = up;
    p->idle = idle;
}

int plot_series_point(const struct plot_series *p, size_t i, size_t k, double *util, double *queue)
{
    struct plot_bin s = {0};
    for (size_t j = i * k; j < i * k + k && j < p->n; j++) {
        s.busy += p->bins[j].busy;
        s.up += p->bins[j].up;
        s.idle += p->bins[j].idle;
        s.span += p->bins[j].span;
    }
    if (s.span <= 0)
        return 0;
    *util = s.up > 0 ? s.busy / s.up : 0.0;
    *queue = s.idle / s.span;
    return 1;
}

long plot_bin_width(long start, long end, int points)
{
    if (points < 1 || end <= start)
        return 1;
    long w = (long)ceil((double)(end - start) / points);
    return w < 1 ? 1 : w;
}

double plot_tick_step(double max, int ticks)
{
    if (!(max > 0))
        max = 1;
    if (ticks < 1)
        ticks = 1;
    double raw = max / ticks;
    double mag = pow(10, floor(log10(raw)));
    static const double steps[] = {1, 2, 5, 10};
    for (size_t i = 0; i < sizeof steps / sizeof *steps; i++)
        if (steps[i] * mag >= raw * (1 - 1e-9))
            return steps[i] * mag;
    return 10 * mag;
}

/* ------------------------------------------------------------------ SVG */

#define W 960.0
#define LEFT 80.0
#define RIGHT 30.0
#define PANEL_H 220.0
#define TOP1 60.0  /* utilization panel */
#define TOP2 340.0 /* queue panel */
#define AXIS_Y (TOP2 + PANEL_H)
#define LEGEND_Y (AXIS_Y + 70.0)

static const char *const colours[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                      "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

/* The frame every panel and line is drawn in. */
struct frame {
    long t0;
    double span; /* seconds on the x axis */
    double unit; /* seconds per tick label unit: 3600 or 86400 */
    double qmax; /* top of the queue axis */
};

static void xml_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&':
            fputs("&amp;", f);
            break;
        case '<':
            fputs("&lt;", f);
            break;
        case '>':
            fputs("&gt;", f);
            break;
        case '"':
            fputs("&quot;", f);
            break;
        case '\'':
            fputs("&apos;", f);
            break;
        default:
            if ((unsigned char)*s >= 0x20 || *s == '\t')
                fputc(*s, f); /* other control characters are not XML */
        }
    }
}

static double x_of(const struct frame *fr, double t)
{
    return LEFT + (t - (double)fr->t0) / fr->span * (W - LEFT - RIGHT);
}

/* v in [0, max] to a y within the panel whose top is top. */
static double y_of(double top, double v, double max)
{
    return top + PANEL_H * (1 - v / max);
}

/* How many bins make one point of a line. */
static size_t merge_factor(const struct plot_series *p)
{
    return p->n > PLOT_MAX_POINTS ? (p->n + PLOT_MAX_POINTS - 1) / PLOT_MAX_POINTS : 1;
}

static void frame_of(struct frame *fr, const struct plot_line *lines, size_t n)
{
    long t0 = LONG_MAX, end = LONG_MIN;
    double qmax = 0;
    for (size_t l = 0; l < n; l++) {
        const struct plot_series *p = lines[l].series;
        if (p->t0 < t0)
            t0 = p->t0;
        if (p->last > end)
            end = p->last;
        size_t k = merge_factor(p);
        double u, q;
        for (size_t i = 0; i * k < p->n; i++)
            if (plot_series_point(p, i, k, &u, &q) && q > qmax)
                qmax = q;
    }
    if (t0 == LONG_MAX)
        t0 = 0;
    fr->t0 = t0;
    fr->span = end > t0 ? (double)(end - t0) : 3600.0;
    fr->unit = fr->span < 2 * 86400.0 ? 3600.0 : 86400.0;
    double step = plot_tick_step(qmax, 5);
    fr->qmax = ceil(qmax / step) * step;
    if (fr->qmax <= 0)
        fr->qmax = step;
}

/* A panel: frame, horizontal grid lines with their labels, the y label. */
static void panel(FILE *f, double top, double max, double step, const char *ylabel)
{
    for (double v = 0; v <= max * (1 + 1e-9); v += step) {
        double y = y_of(top, v, max);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n",
                LEFT, y, W - RIGHT, y);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n", LEFT - 6, y + 4,
                v);
    }
    fprintf(f,
            "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
            "stroke=\"#000\"/>\n",
            LEFT, top, W - LEFT - RIGHT, PANEL_H);
    fprintf(f, "<text transform=\"translate(20,%.1f) rotate(-90)\" text-anchor=\"middle\">",
            top + PANEL_H / 2);
    xml_text(f, ylabel);
    fprintf(f, "</text>\n");
}

static void time_axis(FILE *f, const struct frame *fr)
{
    double max = fr->span / fr->unit, step = plot_tick_step(max, 10);
    for (double v = 0; v <= max * (1 + 1e-9); v += step) {
        double x = x_of(fr, (double)fr->t0 + v * fr->unit);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#000\"/>\n", x,
                AXIS_Y, x, AXIS_Y + 5);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#000\"/>\n", x,
                TOP1 + PANEL_H, x, TOP1 + PANEL_H + 5);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%g</text>\n", x, AXIS_Y + 20,
                v);
    }
    fprintf(f,
            "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">time (%s since the first "
            "submission)</text>\n",
            (LEFT + W - RIGHT) / 2, AXIS_Y + 42, fr->unit == 3600.0 ? "hours" : "days");
}

/* One series as two polylines, utilization and queue, in colour c. */
static void series_lines(FILE *f, const struct frame *fr, const struct plot_series *p,
                         const char *c)
{
    size_t k = merge_factor(p);
    for (int queue = 0; queue < 2; queue++) {
        fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.2\" points=\"", c);
        for (size_t i = 0; i * k < p->n; i++) {
            double u, q;
            if (!plot_series_point(p, i, k, &u, &q))
                continue;
            double mid = (double)p->t0 + ((double)i + 0.5) * (double)k * (double)p->width;
            if (mid > (double)p->last)
                mid = (double)p->last;
            double y = queue ? y_of(TOP2, q, fr->qmax) : y_of(TOP1, 100.0 * u, 100.0);
            fprintf(f, "%s%.1f,%.1f", i ? " " : "", x_of(fr, mid), y);
        }
        fprintf(f, "\"/>\n");
    }
}

static void legend(FILE *f, const struct plot_line *lines, size_t n)
{
    for (size_t l = 0; l < n; l++) {
        double y = LEGEND_Y + 18.0 * (double)l;
        fprintf(f,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                "stroke-width=\"3\"/>\n",
                LEFT, y - 4, LEFT + 24, y - 4, colours[l % (sizeof colours / sizeof *colours)]);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">", LEFT + 32, y);
        xml_text(f, lines[l].label);
        fprintf(f, "</text>\n");
    }
}

int plot_write_svg(FILE *f, const char *title, const struct plot_line *lines, size_t n)
{
    struct frame fr;
    frame_of(&fr, lines, n);
    double h = LEGEND_Y + 18.0 * (double)n + 10;
    fprintf(f,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
            "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"12\">\n",
            W, h, W, h);
    fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n");
    fprintf(f, "<text x=\"%.1f\" y=\"24\" text-anchor=\"middle\" font-size=\"15\">", W / 2);
    xml_text(f, title);
    fprintf(f, "</text>\n");
    panel(f, TOP1, 100.0, 20.0, "utilization (%)");
    panel(f, TOP2, fr.qmax, plot_tick_step(fr.qmax, 5), "queue length (idle jobs)");
    time_axis(f, &fr);
    for (size_t l = 0; l < n; l++)
        series_lines(f, &fr, lines[l].series, colours[l % (sizeof colours / sizeof *colours)]);
    legend(f, lines, n);
    fprintf(f, "</svg>\n");
    return ferror(f) ? -1 : 0;
}
