/* plot — see plot.h. */
#include "sim/plot.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/markup.h"
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
    p->at_lo = p->at_hi = 0;
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
            b.running += c->running;
            b.span += c->span;
        }
        p->bins[j] = b;
    }
    if (p->n > n) /* an empty series (a first sample far past t0) has no bins */
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

/* Add the state held for d seconds to bin. */
static inline void hold(struct plot_bin *bin, const struct plot_series *p, double d)
{
    bin->busy += (double)p->busy * d;
    bin->up += (double)p->up * d;
    bin->idle += (double)(long long)p->idle * d; /* a count: exact, one conversion */
    bin->running += (double)(long long)p->running * d;
    bin->span += d;
}

/* Add the state held over [a, b) to the bins it spans. */
static void integrate(struct plot_series *p, long a, long b)
{
    if (a < p->t0)
        a = p->t0;
    while (a < b) {
        if (a < p->at_lo || a >= p->at_hi) { /* another bin (its widths may change) */
            size_t i = (size_t)(bin_at(p, a) - p->bins);
            /* its end from its index: one division a step, not two */
            p->at = i;
            p->at_hi = p->t0 + ((long)i + 1) * p->width;
            p->at_lo = p->at_hi - p->width;
        }
        long e = b < p->at_hi ? b : p->at_hi;
        hold(&p->bins[p->at], p, (double)(e - a));
        a = e;
    }
}

/* plot_series_add, inlined in plot_log_replay (a sample of every replay's
 * iteration). Most samples fall in the bin of the one before: that case
 * adds to it here, without integrate's loop and clamps (the same additions
 * in the same order, so the same doubles). */
static inline void series_add(struct plot_series *p, long now, long long busy, long long up,
                              size_t idle, size_t running)
{
    long a = p->last;
    if (a >= p->at_lo && now <= p->at_hi) { /* (an empty [at_lo, at_hi) holds no a) */
        if (a < now)
            hold(&p->bins[p->at], p, (double)(now - a));
    } else if (a != LONG_MIN) {
        integrate(p, a, now);
    }
    p->last = now;
    p->busy = busy;
    p->up = up;
    p->idle = idle;
    p->running = running;
}

void plot_series_add(struct plot_series *p, long now, long long busy, long long up, size_t idle,
                     size_t running)
{
    series_add(p, now, busy, up, idle, running);
}

void plot_log_add_any(struct plot_log *l, long now, long long busy, long long up, size_t idle,
                      size_t running)
{
    unsigned long long step = (unsigned long long)now - (unsigned long long)l->now;
    int fits = l->n && step < PLOT_LOG_WHOLE && up == l->up &&
               (unsigned long long)busy < PLOT_LOG_WHOLE && idle < PLOT_LOG_WHOLE &&
               running < PLOT_LOG_WHOLE;
    if (l->n == l->cap)
        l->v = xgrow(l->v, &l->cap, l->n + 1, sizeof *l->v);
    if (fits) {
        l->v[l->n++] = (struct plot_log_rec){(uint32_t)step, (uint32_t)busy, (uint32_t)idle,
                                             (uint32_t)running};
    } else {
        l->v[l->n++] = (struct plot_log_rec){.step = PLOT_LOG_WHOLE};
        l->w = xgrow(l->w, &l->capw, l->nw + 1, sizeof *l->w);
        l->w[l->nw++] = (struct plot_log_whole){now, busy, up, idle, running};
    }
    l->now = now;
    l->up = up;
}

/* The compact samples from l->v[i] to the next whole one (or the end), at
 * times from *now on, into p; the index of that whole sample. series_add's
 * work with the state held in locals, not in p: every sample of a streamed
 * replay passes here. The processors up stay p->up throughout (a compact
 * sample has those of the one before). p is written back before integrate
 * (which reads it) and at the end. */
static size_t replay_compact(const struct plot_log *l, size_t i, long *now, struct plot_series *p)
{
    long t = *now, last = p->last, lo = p->at_lo, hi = p->at_hi;
    long long busy = p->busy;
    size_t idle = p->idle, running = p->running;
    double up = (double)p->up;
    struct plot_bin *bin = hi > lo ? &p->bins[p->at] : NULL;
    for (; i < l->n && l->v[i].step != PLOT_LOG_WHOLE; i++) {
        const struct plot_log_rec *r = &l->v[i];
        t = (long)((unsigned long long)t + r->step);
        if (last >= lo && t <= hi) { /* (an empty [lo, hi) holds no last) */
            if (last < t) {          /* hold()'s additions, in its order */
                double d = (double)(t - last);
                bin->busy += (double)busy * d;
                bin->up += up * d;
                bin->idle += (double)(long long)idle * d;
                bin->running += (double)(long long)running * d;
                bin->span += d;
            }
        } else if (last != LONG_MIN) {
            p->busy = busy, p->idle = idle, p->running = running;
            integrate(p, last, t);
            lo = p->at_lo, hi = p->at_hi, bin = &p->bins[p->at];
        }
        last = t, busy = r->busy, idle = r->idle, running = r->running;
    }
    p->last = last, p->busy = busy, p->idle = idle, p->running = running;
    *now = t;
    return i;
}

void plot_log_replay(const struct plot_log *l, struct plot_series *p)
{
    long now = 0;
    size_t w = 0, i = 0;
    while (i < l->n) {
        if (l->v[i].step == PLOT_LOG_WHOLE) {
            const struct plot_log_whole *x = &l->w[w++];
            now = x->now;
            series_add(p, now, x->busy, x->up, x->idle, x->running);
            i++;
        } else {
            i = replay_compact(l, i, &now, p);
        }
    }
}

void plot_log_free(struct plot_log *l)
{
    free(l->v);
    free(l->w);
    *l = (struct plot_log){0};
}

static void bin_add(struct plot_bin *s, const struct plot_bin *b)
{
    s->busy += b->busy;
    s->up += b->up;
    s->idle += b->idle;
    s->running += b->running;
    s->span += b->span;
}

struct plot_bin plot_series_sum(const struct plot_series *p, size_t i, size_t k)
{
    struct plot_bin s = {0};
    for (size_t j = i * k; j < i * k + k && j < p->n; j++)
        bin_add(&s, &p->bins[j]);
    return s;
}

int plot_series_point(const struct plot_series *p, size_t i, size_t k, double *util, double *queue)
{
    struct plot_bin s = plot_series_sum(p, i, k);
    if (s.span <= 0)
        return 0;
    *util = s.up > 0 ? s.busy / s.up : 0.0;
    *queue = s.idle / s.span;
    return 1;
}

size_t plot_merge_factor(const struct plot_series *p)
{
    return p->n > PLOT_MAX_POINTS ? (p->n + PLOT_MAX_POINTS - 1) / PLOT_MAX_POINTS : 1;
}

long plot_window(double span)
{
    if (span >= 60 * 86400.0)
        return 7 * 86400L;
    if (span >= 7 * 86400.0)
        return 86400L;
    long w = (long)(span / 20);
    return w < 1 ? 1 : w;
}

/* Sums of the points before each: pre[i] holds points [0, i). */
static struct plot_bin *prefix_sums(const struct plot_series *p, size_t k, size_t n)
{
    struct plot_bin *pre = xcalloc(n + 1, sizeof *pre);
    for (size_t i = 0; i < n; i++) {
        struct plot_bin b = plot_series_sum(p, i, k);
        pre[i + 1] = pre[i];
        bin_add(&pre[i + 1], &b);
    }
    return pre;
}

/* Points [a, b) as one: pre[b] - pre[a]. */
static struct plot_bin range_sum(const struct plot_bin *pre, size_t a, size_t b)
{
    return (struct plot_bin){.busy = pre[b].busy - pre[a].busy,
                             .up = pre[b].up - pre[a].up,
                             .idle = pre[b].idle - pre[a].idle,
                             .running = pre[b].running - pre[a].running,
                             .span = pre[b].span - pre[a].span};
}

void plot_points_make(const struct plot_series *p, long window, struct plot_points *pts)
{
    size_t k = plot_merge_factor(p), n = (p->n + k - 1) / k;
    size_t cap = n ? n : 1;
    *pts = (struct plot_points){.n = n,
                                .t = xcalloc(cap, sizeof(double)),
                                .util = xcalloc(cap, sizeof(double)),
                                .queue = xcalloc(cap, sizeof(double)),
                                .util_mean = xcalloc(cap, sizeof(double)),
                                .queue_mean = xcalloc(cap, sizeof(double)),
                                .ok = xcalloc(cap, 1)};
    struct plot_bin *pre = prefix_sums(p, k, n);
    double step = (double)k * (double)p->width;
    /* Points within half a window either side (at least the point itself). */
    size_t half = (size_t)((double)window / 2 / step);
    for (size_t i = 0; i < n; i++) {
        double mid = (double)p->t0 + ((double)i + 0.5) * step;
        pts->t[i] = mid > (double)p->last ? (double)p->last : mid;
        struct plot_bin b = range_sum(pre, i, i + 1);
        pts->ok[i] = b.span > 0;
        if (!pts->ok[i])
            continue;
        pts->util[i] = b.up > 0 ? b.busy / b.up : 0.0;
        pts->queue[i] = b.idle / b.span;
        struct plot_bin w =
            range_sum(pre, i > half ? i - half : 0, i + half + 1 < n ? i + half + 1 : n);
        pts->util_mean[i] = w.up > 0 ? w.busy / w.up : 0.0;
        pts->queue_mean[i] = w.span > 0 ? w.idle / w.span : 0.0;
    }
    free(pre);
}

void plot_points_free(struct plot_points *pts)
{
    free(pts->t);
    free(pts->util);
    free(pts->queue);
    free(pts->util_mean);
    free(pts->queue_mean);
    free(pts->ok);
    *pts = (struct plot_points){0};
}

int plot_write_csv(struct obuf *f, const struct plot_line *lines, size_t n)
{
    obuf_printf(f, "%stime,width,covered,utilization,busy_procs,up_procs,queued,running\n",
                n > 1 ? "run," : "");
    for (size_t l = 0, num = 0; l < n; l++) {
        const struct plot_series *p = lines[l].series;
        num += !lines[l].run_name;
        for (size_t i = 0; i < p->n; i++) {
            const struct plot_bin *b = &p->bins[i];
            if (b->span <= 0)
                continue;
            if (n > 1 && lines[l].run_name)
                obuf_puts(f, lines[l].run_name);
            else if (n > 1)
                obuf_ull(f, num);
            if (n > 1)
                obuf_putc(f, ',');
            obuf_ll(f, p->t0 + (long)i * p->width);
            obuf_putc(f, ',');
            obuf_ll(f, p->width);
            obuf_putc(f, ',');
            const double v[] = {b->span,           b->up > 0 ? b->busy / b->up : 0.0,
                                b->busy / b->span, b->up / b->span,
                                b->idle / b->span, b->running / b->span};
            static const int decimals[] = {0, 6, 3, 3, 3, 3};
            for (size_t k = 0; k < sizeof v / sizeof *v; k++) {
                obuf_fixed(f, v[k], decimals[k]);
                obuf_putc(f, k + 1 < sizeof v / sizeof *v ? ',' : '\n');
            }
        }
    }
    return obuf_failed(f) ? -1 : 0;
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
    double unit; /* seconds per tick label unit: a day */
    double qmax; /* top of the queue axis */
};

/* Text in an SVG label (a newline would be only white space there). */
static void xml_text(FILE *f, const char *s)
{
    markup_text(f, s, 0);
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
        size_t k = plot_merge_factor(p);
        double u, q;
        for (size_t i = 0; i * k < p->n; i++)
            if (plot_series_point(p, i, k, &u, &q) && q > qmax)
                qmax = q;
    }
    if (t0 == LONG_MAX)
        t0 = 0;
    fr->t0 = t0;
    fr->span = end > t0 ? (double)(end - t0) : 3600.0;
    fr->unit = 86400.0;
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
            "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">time (days since the first "
            "submission)</text>\n",
            (LEFT + W - RIGHT) / 2, AXIS_Y + 42);
}

const char *plot_colour(size_t i)
{
    return colours[i % (sizeof colours / sizeof *colours)];
}

/* With the colours' cycle of ten, line i's pattern is (i + i / 10) % 4:
 * lines 10 apart differ in pattern, so 40 lines are all told apart. */
const char *plot_dash(size_t i)
{
    static const char *const dashes[] = {"", "8 4", "2 3", "10 3 2 3"};
    return dashes[(i + i / 10) % 4];
}

/* One polyline of a line's points: the raw ones or their rolling mean. */
static void polyline(FILE *f, const struct frame *fr, const struct plot_points *pts, int queue,
                     int mean, size_t l)
{
    if (mean)
        fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\"", plot_colour(l));
    else
        fprintf(f,
                "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"0.8\" "
                "stroke-opacity=\"0.35\"",
                plot_colour(l));
    if (mean && *plot_dash(l))
        fprintf(f, " stroke-dasharray=\"%s\"", plot_dash(l));
    fprintf(f, " points=\"");
    const char *sep = "";
    for (size_t i = 0; i < pts->n; i++) {
        if (!pts->ok[i])
            continue;
        double v = queue ? (mean ? pts->queue_mean[i] : pts->queue[i])
                         : 100.0 * (mean ? pts->util_mean[i] : pts->util[i]);
        double y = queue ? y_of(TOP2, v, fr->qmax) : y_of(TOP1, v, 100.0);
        fprintf(f, "%s%.1f,%.1f", sep, x_of(fr, pts->t[i]), y);
        sep = " ";
    }
    fprintf(f, "\"/>\n");
}

/* One series: per panel, its points pale and their rolling mean bold. */
static void series_lines(FILE *f, const struct frame *fr, const struct plot_series *p, size_t l)
{
    struct plot_points pts;
    plot_points_make(p, plot_window(fr->span), &pts);
    for (int queue = 0; queue < 2; queue++)
        for (int mean = 0; mean < 2; mean++)
            polyline(f, fr, &pts, queue, mean, l);
    plot_points_free(&pts);
}

static void legend(FILE *f, const struct plot_line *lines, size_t n, const struct frame *fr)
{
    for (size_t l = 0; l < n; l++) {
        double y = LEGEND_Y + 18.0 * (double)l;
        fprintf(f,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                "stroke-width=\"3\"",
                LEFT, y - 4, LEFT + 36, y - 4, plot_colour(l));
        if (*plot_dash(l))
            fprintf(f, " stroke-dasharray=\"%s\"", plot_dash(l));
        fprintf(f, "/>\n<text x=\"%.1f\" y=\"%.1f\">", LEFT + 44, y);
        xml_text(f, lines[l].label);
        fprintf(f, "</text>\n");
    }
    double w = (double)plot_window(fr->span);
    fprintf(f,
            "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" fill=\"#555\">bold: rolling mean "
            "over %g %s; pale: the points' own averages</text>\n",
            W - RIGHT, LEGEND_Y,
            w >= 86400  ? w / 86400
            : w >= 3600 ? w / 3600
                        : w,
            w >= 86400  ? (w == 86400 ? "day" : "days")
            : w >= 3600 ? "hours"
                        : "seconds");
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
        series_lines(f, &fr, lines[l].series, l);
    legend(f, lines, n, &fr);
    fprintf(f, "</svg>\n");
    return ferror(f) ? -1 : 0;
}
