/*
 * t_swfpack — SWF records kept compactly (trace/swfpack): every record
 * comes back exactly as it went in, in order: the extremes (LLONG_MIN and
 * LLONG_MAX, differences that wrap, -0, NaN, infinities, fractions,
 * 2^53 and past it), an empty pack, a trimmed pack, and 20,000 random
 * records (fixed seed) against an array of the same records; and the size
 * of a trace's record.
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>

#include "test.h"
#include "trace/swfpack.h"

/* Bit for bit: NaN is itself, -0 is not 0. */
static int same_double(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

static int rec_same(const struct swf_rec *a, const struct swf_rec *b)
{
    return a->id == b->id && a->submit == b->submit && a->wait == b->wait &&
           a->runtime == b->runtime && a->alloc == b->alloc && same_double(a->cpu, b->cpu) &&
           same_double(a->mem_used, b->mem_used) && a->req_procs == b->req_procs &&
           a->req_time == b->req_time && same_double(a->req_mem, b->req_mem) &&
           a->status == b->status && a->user == b->user && a->group == b->group &&
           a->app == b->app && a->queue == b->queue && a->partition == b->partition &&
           a->prev_job == b->prev_job && a->think == b->think && a->line == b->line;
}

/* Read the pack back: n records, each the model's. */
static int reads_back(const struct swfpack *p, const struct swf_rec *model, size_t n)
{
    struct swfpack_cursor c = {0};
    struct swf_rec r;
    for (size_t i = 0; i < n; i++)
        if (swfpack_next(p, &c, &r) != 0 || !rec_same(&r, &model[i])) {
            fprintf(stderr, "record %zu differs\n", i);
            return 0;
        }
    return swfpack_next(p, &c, &r) == -1 && p->n == n;
}

static void test_empty(void)
{
    struct swfpack p = {0};
    CHECK(reads_back(&p, NULL, 0));
    swfpack_trim(&p);
    swfpack_free(&p);
    swfpack_free(&p); /* freed twice: nothing */
}

static struct swf_rec all(long long v, double d, long line)
{
    return (struct swf_rec){v, v, v, v, v, d, d, v, v, d, v, v, v, v, v, v, v, v, line};
}

static void test_extremes(void)
{
    const long long ints[] = {0,         -1,          1,   63,        64,        -64,
                              -65,       127,         128, LLONG_MAX, LLONG_MIN, LLONG_MIN + 1,
                              1LL << 40, -(1LL << 53)};
    const double dbls[] = {0.0,
                           -0.0,
                           -1.0,
                           0.5,
                           -2.75,
                           0x1p53,
                           -0x1p53,
                           0x1p53 + 2,
                           0x1p63,
                           -0x1p63,
                           1e300,
                           NAN,
                           INFINITY,
                           -INFINITY,
                           4.9e-324,
                           123456.78125,
                           9007199254740991.0};
    size_t ni = sizeof ints / sizeof *ints, nd = sizeof dbls / sizeof *dbls, n = ni * nd;
    struct swf_rec *model = malloc(n * sizeof *model);
    struct swfpack p = {0};
    for (size_t i = 0; i < n; i++) {
        /* lines going back and forth by the largest steps too */
        long line = i % 2 ? LONG_MAX - (long)i : LONG_MIN + (long)i;
        model[i] = all(ints[i % ni], dbls[i / ni], line);
        swfpack_add(&p, &model[i]);
    }
    CHECK(reads_back(&p, model, n));
    swfpack_trim(&p);
    CHECK_EQ(p.len, p.cap);
    CHECK(reads_back(&p, model, n));
    swfpack_free(&p);
    free(model);
}

/* A value as traces have them: mostly -1 or small, now and then anything. */
static long long some_ll(void)
{
    switch (rand() % 8) {
    case 0:
        return -1;
    case 1:
        return rand() % 10;
    case 2:
        return ((long long)rand() << 31 | rand()) * (rand() % 2 ? 1 : -1);
    case 3:
        return rand() % 2 ? LLONG_MAX - rand() % 3 : LLONG_MIN + rand() % 3;
    default:
        return rand() % 100000;
    }
}

static double some_double(void)
{
    switch (rand() % 4) {
    case 0:
        return -1;
    case 1:
        return (double)(rand() % 100000) / 64.0; /* fractions too */
    case 2:
        return (double)rand() * (double)rand() * 1e3;
    default:
        return (double)(rand() % 1000);
    }
}

static void test_random(void)
{
    enum { N = 20000 };
    srand(31);
    struct swf_rec *model = malloc(N * sizeof *model);
    struct swfpack p = {0};
    long long id = 0, submit = 0;
    long line = 0;
    for (size_t i = 0; i < N; i++) {
        /* ids, submits and lines mostly rising a little, as in a trace */
        /* a step from a random value near the top starts again (no overflow) */
        id = rand() % 10 && id < LLONG_MAX - 1 ? id + 1 : some_ll();
        submit = rand() % 10 && submit < LLONG_MAX - 500 ? submit + rand() % 500 : some_ll();
        line = rand() % 10 && line < LONG_MAX - 4 ? line + 1 + rand() % 3 : (long)some_ll();
        model[i] = (struct swf_rec){
            id,        submit,    some_ll(),     some_ll(), some_ll(), some_double(), some_double(),
            some_ll(), some_ll(), some_double(), some_ll(), some_ll(), some_ll(),     some_ll(),
            some_ll(), some_ll(), some_ll(),     some_ll(), line};
        swfpack_add(&p, &model[i]);
    }
    CHECK(reads_back(&p, model, N));
    swfpack_free(&p);
    free(model);
}

/* A trace's record (HPC2N's sort: a CPU time that is not whole) takes
 * about 35 bytes, not 152 (the whole of HPC2N: 30 a record). */
static void test_size(void)
{
    struct swfpack p = {0};
    for (long i = 0; i < 1000; i++) {
        struct swf_rec r = {i + 1, i * 97, 1200, 35000, 2, 33000.5, -1, 2,  86400, -1,
                            1,     12,     3,    -1,    1, -1,      -1, -1, i + 11};
        swfpack_add(&p, &r);
    }
    CHECK(p.len <= 1000 * 35);
    swfpack_free(&p);
}

int main(void)
{
    TEST_RUN(test_empty);
    TEST_RUN(test_extremes);
    TEST_RUN(test_random);
    TEST_RUN(test_size);
    return TEST_DONE();
}
