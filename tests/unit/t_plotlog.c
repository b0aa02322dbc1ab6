/*
 * t_plotlog — a series' samples kept for later (plot_log: a streamed
 * replay's --series): replayed into a series, they make it exactly as the
 * same samples added one by one do (the model), bin for bin, bit for bit.
 * Fixed-seed random runs of samples mostly as a replay has them (steps of
 * seconds to days, counts below 32 bits, the processors up steady), with
 * now and then one kept whole: the first, a step or count past 32 bits, a
 * negative count, another number of processors up; then an empty log.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "sim/plot.h"
#include "test.h"

/* Whether two series hold the same bins and state, bit for bit. */
static int same_series(const struct plot_series *a, const struct plot_series *b)
{
    return a->t0 == b->t0 && a->width == b->width && a->n == b->n && a->last == b->last &&
           a->busy == b->busy && a->up == b->up && a->idle == b->idle && a->running == b->running &&
           (a->n == 0 || memcmp(a->bins, b->bins, a->n * sizeof *a->bins) == 0);
}

/* A count: mostly small, now and then past 32 bits or negative. */
static long long some_count(void)
{
    switch (rand() % 40) {
    case 0:
        return (long long)rand() << 32 | (unsigned)rand();
    case 1:
        return -(long long)(rand() % 1000) - 1;
    case 2:
        return UINT32_MAX;
    default:
        return rand() % 100000;
    }
}

static void test_random_runs(void)
{
    srand(31);
    for (int run = 0; run < 200; run++) {
        struct plot_series model, kept;
        long t0 = rand() % 1000 - 500, width = 1 + rand() % 5000;
        plot_series_init(&model, t0, width);
        plot_series_init(&kept, t0, width);
        struct plot_log log = {0};
        long now = t0 - rand() % 100;
        long long up = 1000;
        int n = rand() % 3000;
        for (int i = 0; i < n; i++) {
            int r = rand() % 100;
            now += r == 0 ? (long)UINT32_MAX + rand() % 10 : r < 5 ? 0 : rand() % 86400;
            if (rand() % 50 == 0)
                up = 500 + rand() % 1000;
            long long busy = some_count();
            size_t idle = (size_t)some_count(), running = (size_t)(rand() % 5000);
            plot_series_add(&model, now, busy, up, idle, running);
            plot_log_add(&log, now, busy, up, idle, running);
        }
        plot_log_replay(&log, &kept);
        CHECK(same_series(&model, &kept));
        plot_log_free(&log);
        plot_log_free(&log); /* freed twice: nothing */
        plot_series_free(&model);
        plot_series_free(&kept);
    }
}

/* The model of a series without plot.c's shortcuts (the bin of the sample
 * before, found again without a division): each held state added to the
 * bins it spans, bin by bin, each found by a division; the same additions
 * in the same order, so the same doubles. No merging: the runs stay within
 * PLOT_MAX_BINS bins. */
struct ref {
    long t0, width, last;
    double bins[PLOT_MAX_BINS][5];
    long long busy, up, idle, running;
};

static void ref_add(struct ref *r, long now, long long busy, long long up, long long idle,
                    long long running)
{
    long a = r->last < r->t0 ? r->t0 : r->last;
    while (r->last != LONG_MIN && a < now) {
        long i = (a - r->t0) / r->width, hi = r->t0 + (i + 1) * r->width;
        long e = now < hi ? now : hi;
        double d = (double)(e - a), *b = r->bins[i];
        b[0] += (double)r->busy * d;
        b[1] += (double)r->up * d;
        b[2] += (double)r->idle * d;
        b[3] += (double)r->running * d;
        b[4] += d;
        a = e;
    }
    r->last = now, r->busy = busy, r->up = up, r->idle = idle, r->running = running;
}

/* Samples straight into a series (plot_series_add) and through a log
 * (plot_log_replay) make the model's bins: many samples a bin, steps of
 * zero, steps across several bins, a first sample before t0. */
static void test_against_model(void)
{
    static struct ref ref;
    srand(32);
    for (int run = 0; run < 100; run++) {
        long t0 = rand() % 1000 - 500, width = 1 + rand() % 3000;
        ref = (struct ref){.t0 = t0, .width = width, .last = LONG_MIN};
        struct plot_series direct, kept;
        plot_series_init(&direct, t0, width);
        plot_series_init(&kept, t0, width);
        struct plot_log log = {0};
        long now = t0 - rand() % 100, end = t0 + width * (PLOT_MAX_BINS - 1);
        for (int i = 0; i < 4000; i++) {
            int r = rand() % 100;
            long step = r < 10 ? 0 : r < 15 ? width * (1 + rand() % 4) : rand() % (width / 8 + 2);
            if (now + step >= end)
                break;
            now += step;
            long long busy = rand() % 100000, up = 100000, idle = rand() % 5000,
                      running = rand() % 5000;
            ref_add(&ref, now, busy, up, idle, running);
            plot_series_add(&direct, now, busy, up, (size_t)idle, (size_t)running);
            plot_log_add(&log, now, busy, up, (size_t)idle, (size_t)running);
        }
        plot_log_replay(&log, &kept);
        CHECK(same_series(&direct, &kept));
        CHECK_EQ(direct.width, width);
        int same = direct.last == ref.last;
        for (size_t i = 0; i < direct.n && same; i++) {
            const struct plot_bin *b = &direct.bins[i];
            const double v[5] = {b->busy, b->up, b->idle, b->running, b->span};
            same = memcmp(v, ref.bins[i], sizeof v) == 0;
        }
        for (size_t i = direct.n; i < PLOT_MAX_BINS && same; i++)
            same = ref.bins[i][4] == 0; /* past the series' bins: nothing held */
        CHECK(same);
        plot_log_free(&log);
        plot_series_free(&direct);
        plot_series_free(&kept);
    }
}

/* No sample: the series stays empty. */
static void test_empty(void)
{
    struct plot_series a, b;
    plot_series_init(&a, 0, 10);
    plot_series_init(&b, 0, 10);
    struct plot_log log = {0};
    plot_log_replay(&log, &b);
    CHECK(same_series(&a, &b));
    plot_log_free(&log);
}

int main(void)
{
    TEST_RUN(test_random_runs);
    TEST_RUN(test_against_model);
    TEST_RUN(test_empty);
    return TEST_DONE();
}
