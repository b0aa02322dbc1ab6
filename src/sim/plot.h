/*
 * plot — utilization and queue length over simulated time, and the SVG
 * chart of them that moku simulate --plot writes. No dependencies: the SVG
 * is written as text.
 *
 * A series takes the state the replay reports after each scheduling
 * iteration (sim_hooks.sample). That state holds until the next iteration,
 * so a series keeps, per bin of fixed width, time integrals — processor-
 * seconds busy and up, job-seconds queued — and a point of the chart is the
 * average over its bin, not an instant picked by chance. When a series
 * outgrows PLOT_MAX_BINS it merges its bins in pairs and doubles their
 * width, so memory stays bounded whatever the first guess of width.
 *
 * What this module is not: it does not decide what is busy (the simulator
 * counts the processors its running jobs asked for) and does no file I/O
 * beyond the stream it is given.
 */
#ifndef MOKU_PLOT_H
#define MOKU_PLOT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util/obuf.h"

#define PLOT_POINTS 1000     /* bins a series aims at (plot_bin_width) */
#define PLOT_MAX_POINTS 2000 /* a line of the chart never has more points */
#define PLOT_MAX_BINS 4096   /* a series never holds more bins */

/* Time integrals over one bin. */
struct plot_bin {
    double busy, up; /* processor-seconds */
    double idle;     /* job-seconds in the queue */
    double running;  /* job-seconds running */
    double span;     /* seconds of the bin covered */
};

struct plot_series {
    long t0, width;        /* bin i covers [t0 + i width, t0 + (i + 1) width) */
    struct plot_bin *bins; /* n used, cap allocated; owned */
    size_t n, cap;
    long last;          /* when the state held began; LONG_MIN before the first */
    long long busy, up; /* the state held since last */
    size_t idle, running;
    /* The bin the last sample fell in, [at_lo, at_hi) (empty: none): a
     * replay samples many times a bin, found again without a division. */
    size_t at;
    long at_lo, at_hi;
};

/* An empty series with bins of width seconds (at least 1) from t0. */
void plot_series_init(struct plot_series *p, long t0, long width);
/* Frees the bins; the series may be initialised again. */
void plot_series_free(struct plot_series *p);
/* The state from now on: busy and up processors, idle and running jobs.
 * now never decreases; time before t0 is not kept. The series ends at the
 * last sample (the replay's last iteration). */
void plot_series_add(struct plot_series *p, long now, long long busy, long long up, size_t idle,
                     size_t running);
/*
 * A series' samples kept for later, while its bins cannot be chosen yet (a
 * replay streamed as its trace is read: the span of the submissions sets
 * their width); plot_log_replay gives them to a series in order, exactly as
 * plot_series_add would have had them. A sample takes 16 bytes (HPC2N:
 * 357,000 samples, 5.7 MB): its time as the step from the one before and
 * three counts in 32 bits, the processors up as the sample before's; one
 * that does not fit so (the first, a step or count past 32 bits, another
 * number of processors up) is kept whole beside them. Zeroed: empty.
 */
struct plot_log_rec {
    uint32_t step; /* PLOT_LOG_WHOLE: the next of the whole samples */
    uint32_t busy, idle, running;
};
struct plot_log_whole {
    long now;
    long long busy, up;
    size_t idle, running;
};
#define PLOT_LOG_WHOLE UINT32_MAX
struct plot_log {
    struct plot_log_rec *v; /* owned */
    size_t n, cap;
    struct plot_log_whole *w; /* owned */
    size_t nw, capw;
    long now;     /* the last sample's */
    long long up; /* the last sample's */
};
/* Keep a sample (plot_series_add's arguments). */
void plot_log_add_any(struct plot_log *l, long now, long long busy, long long up, size_t idle,
                      size_t running);
/* The same; a sample that fits 16 bytes with room left, inlined (one an
 * iteration of the replay). */
static inline void plot_log_add(struct plot_log *l, long now, long long busy, long long up,
                                size_t idle, size_t running)
{
    unsigned long long step = (unsigned long long)now - (unsigned long long)l->now;
    /* One test for the four 32-bit fields: their OR below PLOT_LOG_WHOLE
     * holds each below it (a few that fit fail it: plot_log_add_any, which
     * tests each, keeps them as they fit). n - 1 < cap - 1: 0 < n < cap. */
    if (l->n - 1 < l->cap - 1 && up == l->up &&
        (step | (unsigned long long)busy | idle | running) < PLOT_LOG_WHOLE) {
        l->v[l->n++] = (struct plot_log_rec){(uint32_t)step, (uint32_t)busy, (uint32_t)idle,
                                             (uint32_t)running};
        l->now = now;
        return;
    }
    plot_log_add_any(l, now, busy, up, idle, running);
}
/* Each sample of l, in order, through plot_series_add. */
void plot_log_replay(const struct plot_log *l, struct plot_series *p);
/* Free the samples; l is left empty. */
void plot_log_free(struct plot_log *l);

/* The averages over bins [i k, i k + k): utilization (busy / up, 0..1, 0
 * when no processor was up) and queue length. Returns 0 when those bins
 * cover no time, 1 otherwise. */
int plot_series_point(const struct plot_series *p, size_t i, size_t k, double *util, double *queue);

/* One line of the chart: a run. */
struct plot_line {
    const char *label;
    const struct plot_series *series;
    const char *run_name; /* the CSV's run column for it; NULL: its number, counting the
                             lines without a name from 1 */
};

/* The sums of bins [i k, i k + k) (fewer at the end). */
struct plot_bin plot_series_sum(const struct plot_series *p, size_t i, size_t k);

/* How many bins make one point of a chart's line (at most PLOT_MAX_POINTS). */
size_t plot_merge_factor(const struct plot_series *p);

/*
 * A line's points, ready to draw: point i averages bins [i k, i k + k)
 * (k = plot_merge_factor), t[i] the middle of its time (seconds, at most
 * the series' end); ok[i] = 0 where those bins cover no time. util (0..1)
 * and queue are the points' own averages; util_mean and queue_mean the
 * rolling means over `window` seconds centred on the point, time-weighted
 * (the sums of every bin in the window, divided). Arrays owned.
 */
struct plot_points {
    size_t n;
    double *t, *util, *queue, *util_mean, *queue_mean;
    unsigned char *ok;
};
void plot_points_make(const struct plot_series *p, long window, struct plot_points *pts);
void plot_points_free(struct plot_points *pts);
/* The rolling mean's window for a chart spanning span seconds: 7 days from
 * 60 days on, 1 day from 7 days on, else a twentieth of the span (>= 1 s). */
long plot_window(double span);

/*
 * The series as CSV, a row per bin that covers any time, after a header:
 *   [run,]time,width,covered,utilization,busy_procs,up_procs,queued,running
 * time is the bin's start (trace seconds), width its width and covered the
 * seconds of it the replay reached; the others are time-weighted averages
 * over the covered part (utilization = busy / up, 0..1). With n > 1 each
 * row leads with its line's number from 1. Returns 0, or -1 if writing
 * failed.
 */
int plot_write_csv(struct obuf *f, const struct plot_line *lines, size_t n);

/* A bin width for about `points` bins over [start, end]: at least 1 s. */
long plot_bin_width(long start, long end, int points);
/* An axis step of 1, 2 or 5 times a power of ten, so that [0, max] takes at
 * most `ticks` steps (max <= 0 is taken as 1). */
double plot_tick_step(double max, int ticks);

/*
 * Write the chart as one SVG document: utilization (%) above, queue length
 * (idle jobs) below, a shared time axis in days from the earliest t0, and
 * per series a thin pale line of its points and a thick one of their
 * rolling mean (plot_window), each series in its own colour and dash
 * pattern (plot_colour, plot_dash), and a legend naming them with both.
 * Title and labels are escaped. Returns 0, or -1 if writing failed.
 */
int plot_write_svg(FILE *f, const char *title, const struct plot_line *lines, size_t n);
/* Line i's colour ("#rrggbb") and SVG stroke-dasharray ("" for solid): ten
 * colours and four patterns, so runs 1-40 differ (the HTML report uses them too). */
const char *plot_colour(size_t i);
const char *plot_dash(size_t i);

#endif
