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
    TEST_RUN(test_empty);
    return TEST_DONE();
}
