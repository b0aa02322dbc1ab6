/* Unit tests for the availability profile (policy/avail.c). */
#include "policy/avail.h"
#include "test.h"

static void test_empty_profile(void)
{
    struct avail *a = avail_create(10, 0);
    CHECK_EQ(avail_free_at(a, 0), 10);
    CHECK_EQ(avail_free_at(a, 1000000), 10);
    CHECK_EQ(avail_min_free(a, 0, 100), 10);
    CHECK_EQ(avail_earliest(a, 5, 100, 10), 5);
    CHECK_EQ(avail_earliest(a, 5, 100, 11), AVAIL_NEVER);
    CHECK_EQ(avail_points(a), 1);
    avail_destroy(a);
}

static void test_take_and_give(void)
{
    struct avail *a = avail_create(10, 0);
    avail_take(a, 0, 100, 6);
    avail_take(a, 0, 50, 2);
    CHECK_EQ(avail_free_at(a, 0), 2);
    CHECK_EQ(avail_free_at(a, 49), 2);
    CHECK_EQ(avail_free_at(a, 50), 4); /* half-open: free at the end instant */
    CHECK_EQ(avail_free_at(a, 100), 10);
    CHECK_EQ(avail_min_free(a, 10, 60), 2);
    CHECK_EQ(avail_min_free(a, 50, 60), 4);
    CHECK_EQ(avail_free_now(a), 2);
    CHECK(avail_fits(a, 0, 50, 2));
    CHECK(!avail_fits(a, 0, 50, 3));
    CHECK(avail_fits(a, 50, 100, 4));
    CHECK(!avail_fits(a, 40, 60, 4));
    CHECK(avail_fits(a, 100, 1000, 10));
    avail_give(a, 0, 50, 2);
    avail_give(a, 0, 100, 6);
    CHECK_EQ(avail_points(a), 1); /* redundant points merged away */
    CHECK_EQ(avail_free_at(a, 20), 10);
    avail_destroy(a);
}

static void test_earliest(void)
{
    struct avail *a = avail_create(10, 0);
    avail_take(a, 0, 100, 6); /* 4 free until 100 */
    avail_take(a, 0, 200, 3); /* 1 free until 100, 7 until 200 */
    CHECK_EQ(avail_earliest(a, 0, 10, 1), 0);
    CHECK_EQ(avail_earliest(a, 0, 10, 2), 100);
    CHECK_EQ(avail_earliest(a, 0, 10, 8), 200);
    CHECK_EQ(avail_earliest(a, 0, 10, 10), 200);
    /* A hole too short for the duration is skipped. */
    avail_take(a, 250, 300, 9); /* 1 free over [250, 300) */
    CHECK_EQ(avail_earliest(a, 0, 100, 5), 100);
    CHECK_EQ(avail_earliest(a, 0, 100, 8), 300);
    CHECK_EQ(avail_earliest(a, 0, 50, 8), 200);
    avail_destroy(a);
}

static void test_advance(void)
{
    struct avail *a = avail_create(10, 0);
    avail_take(a, 0, 100, 6);
    avail_take(a, 0, 200, 3);
    avail_advance(a, 150);
    CHECK_EQ(avail_origin(a), 150);
    CHECK_EQ(avail_free_at(a, 150), 7);
    CHECK_EQ(avail_points(a), 2);
    /* Giving back an interval that began before the origin counts from it. */
    avail_give(a, 0, 200, 3);
    CHECK_EQ(avail_free_at(a, 150), 10);
    CHECK_EQ(avail_points(a), 1);
    avail_destroy(a);
}

static void test_total_changes(void)
{
    struct avail *a = avail_create(4, 0);
    avail_take(a, 0, 10, 4);
    avail_add_total(a, 4);
    CHECK_EQ(avail_total(a), 8);
    CHECK_EQ(avail_free_at(a, 5), 4);
    CHECK_EQ(avail_free_at(a, 10), 8);
    avail_destroy(a);
}

/* Against a brute-force array model, over a random sequence of operations. */
static void test_random_against_model(void)
{
    enum { T = 400, TOTAL = 64 };
    long long model[T];
    struct avail *a = avail_create(TOTAL, 0);
    for (int t = 0; t < T; t++)
        model[t] = TOTAL;
    unsigned seed = 12345;
    struct held {
        long s, e;
        long long n;
    } held[64];
    int nheld = 0;
    for (int step = 0; step < 3000; step++) {
        seed = seed * 1103515245u + 12345u;
        if (nheld < 64 && (seed >> 16) % 3) {
            long s = (long)((seed >> 8) % 300), e = s + 1 + (long)((seed >> 4) % 99);
            long long n = 1 + (seed >> 20) % 8;
            avail_take(a, s, e, n);
            for (long t = s; t < e; t++)
                model[t] -= n;
            held[nheld++] = (struct held){s, e, n};
        } else if (nheld) {
            int k = (int)((seed >> 12) % (unsigned)nheld);
            avail_give(a, held[k].s, held[k].e, held[k].n);
            for (long t = held[k].s; t < held[k].e; t++)
                model[t] += held[k].n;
            held[k] = held[--nheld];
        }
        long q = (long)((seed >> 3) % 350), d = 1 + (long)((seed >> 7) % 40);
        long long n = 1 + (seed >> 11) % TOTAL;
        long want = AVAIL_NEVER;
        for (long t = q; t < T && want == AVAIL_NEVER; t++) {
            int ok = 1;
            for (long u = t; u < t + d && ok; u++)
                ok = (u >= T ? TOTAL : model[u]) >= n;
            if (ok)
                want = t;
        }
        if (want == AVAIL_NEVER)
            want = T > q ? T : q; /* past every interval everything is free */
        CHECK_EQ(avail_earliest(a, q, d, n), want);
        CHECK_EQ(avail_free_at(a, q), model[q]);
    }
    avail_destroy(a);
}

/* The model's count of distinct steps from `from` on: the points a profile
 * without redundant points keeps. */
static size_t model_points(const long long *model, int n, long from)
{
    size_t k = 1;
    for (long t = from + 1; t < n; t++)
        k += model[t] != model[t - 1];
    return k;
}

/* avail_fits and avail_min_free over [q, q + d) against the model's least
 * free count there, and fits from now against min_free from now. */
static void check_window(const struct avail *a, const long long *model, long now, long q, long d,
                         long long n)
{
    long long min = model[q];
    for (long u = q; u < q + d; u++)
        min = model[u] < min ? model[u] : min;
    CHECK_EQ(avail_fits(a, q, q + d, n), min >= n);
    CHECK_EQ(avail_fits(a, now, now + d, n), avail_min_free(a, now, now + d) >= n);
    CHECK_EQ(avail_min_free(a, q, q + d), min);
}

/*
 * Against the model as the scheduler uses a profile: the origin moves on,
 * most takes and gives start at it (jobs starting now, ending early), some
 * later (reservations), some never end; fits, min_free and the number of
 * points (no redundant one) checked after every step. Fixed seed.
 */
static void test_random_moving_origin(void)
{
    enum { T = 3000, TOTAL = 32 };
    static long long model[T + 1];
    struct avail *a = avail_create(TOTAL, 0);
    for (int t = 0; t <= T; t++)
        model[t] = TOTAL; /* model[T]: from T on (nothing ends past T but "never") */
    struct held {
        long s, e;
        long long n;
    } held[48];
    int nheld = 0;
    long now = 0;
    unsigned seed = 777;
    for (int step = 0; step < 4000 && now < T - 200; step++) {
        seed = seed * 1103515245u + 12345u;
        unsigned r = seed >> 8;
        if (r % 7 == 0) {
            now += (long)(r >> 4) % 5;
            avail_advance(a, now);
        } else if (nheld < 48 && r % 3) {
            long s = r % 4 ? now : now + (long)(r >> 5) % 60;
            long e = r % 11 == 0 ? AVAIL_NEVER : s + 1 + (long)(r >> 9) % 150;
            long long n = 1 + (r >> 13) % 6;
            avail_take(a, s, e, n);
            for (long t = s; t <= T && t < e; t++)
                model[t] -= n;
            held[nheld++] = (struct held){s, e, n};
        } else if (nheld) {
            int k = (int)((r >> 3) % (unsigned)nheld);
            avail_give(a, held[k].s, held[k].e, held[k].n); /* the past part clamps */
            for (long t = held[k].s > now ? held[k].s : now; t <= T && t < held[k].e; t++)
                model[t] += held[k].n;
            held[k] = held[--nheld];
        }
        long q = now + (long)(r >> 2) % 200, d = 1 + (long)(r >> 6) % 80;
        long long n = (long long)((r >> 10) % (TOTAL + 2)) - 1;
        check_window(a, model, now, q, d, n);
        CHECK_EQ(avail_free_now(a), model[now]);
        CHECK_EQ(avail_points(a), model_points(model, T + 1, now));
    }
    avail_destroy(a);
}

/* model's earliest t >= q with n free over [t, t + d) (past T: all free). */
static long model_earliest(const long long *model, long T, long long total, long q, long d,
                           long long n)
{
    if (n > total)
        return AVAIL_NEVER;
    for (long t = q;; t++) {
        int ok = 1;
        for (long u = t; u < t + d && ok; u++)
            ok = (u >= T ? total : model[u]) >= n;
        if (ok)
            return t;
    }
}

/*
 * The queries test_random_moving_origin leaves out, against two models as
 * the plan uses profiles (one per region): earliest, free_at, next_change
 * and min_sum at any time from the origin on, with takes and gives at and
 * after it, total changes (nodes up and down) and the origin moving on.
 * Fixed seed.
 */
static void test_random_queries_two_profiles(void)
{
    enum { T = 2000, TOTAL = 24 };
    static long long model[2][T];
    long long total[2] = {TOTAL, TOTAL};
    struct avail *a[2] = {avail_create(TOTAL, 0), avail_create(TOTAL, 0)};
    for (int k = 0; k < 2; k++)
        for (int t = 0; t < T; t++)
            model[k][t] = TOTAL;
    struct held {
        int k;
        long s, e;
        long long n;
    } held[64];
    int nheld = 0;
    long now = 0;
    unsigned seed = 4242;
    for (int step = 0; step < 5000 && now < T - 400; step++) {
        seed = seed * 1103515245u + 12345u;
        unsigned r = seed >> 8;
        int k = (int)(r >> 20) & 1;
        if (r % 9 == 0) {
            now += (long)(r >> 4) % 4;
            avail_advance(a[0], now);
            avail_advance(a[1], now);
        } else if (r % 31 == 1) {
            long long d = (r >> 6) % 2 ? 2 : -2;
            avail_add_total(a[k], d);
            total[k] += d;
            for (long t = now; t < T; t++)
                model[k][t] += d;
        } else if (nheld < 64 && r % 3) {
            long s = r % 4 ? now : now + (long)(r >> 5) % 80;
            long e = s + 1 + (long)(r >> 9) % 200;
            long long n = 1 + (r >> 13) % 5;
            avail_take(a[k], s, e, n);
            for (long t = s; t < e; t++)
                model[k][t] -= n;
            held[nheld++] = (struct held){k, s, e, n};
        } else if (nheld) {
            int h = (int)((r >> 3) % (unsigned)nheld);
            struct held g = held[h];
            avail_give(a[g.k], g.s, g.e, g.n);
            for (long t = g.s > now ? g.s : now; t < g.e; t++)
                model[g.k][t] += g.n;
            held[h] = held[--nheld];
        }
        long q = now + (long)(r >> 2) % 150, d = 1 + (long)(r >> 6) % 60;
        long long n = (long long)((r >> 10) % (TOTAL + 3));
        CHECK_EQ(avail_origin(a[k]), now);
        CHECK_EQ(avail_free_at(a[k], q), model[k][q]);
        CHECK_EQ(avail_earliest(a[k], q, d, n), model_earliest(model[k], T, total[k], q, d, n));
        long next = q + 1;
        while (next < T && model[k][next] == model[k][q])
            next++;
        CHECK_EQ(avail_next_change(a[k], q), next < T ? next : AVAIL_NEVER);
        long long min = model[0][q] + model[1][q];
        for (long u = q; u < q + d; u++)
            min = model[0][u] + model[1][u] < min ? model[0][u] + model[1][u] : min;
        const struct avail *const both[2] = {a[0], a[1]};
        CHECK_EQ(avail_min_sum(both, 2, q, q + d), min);
    }
    avail_destroy(a[0]);
    avail_destroy(a[1]);
}

/* Whether the model's count falls anywhere after now (the profile then
 * holds a negative change past its origin). */
static int model_falls(const long long *model, long T, long now)
{
    for (long t = now + 1; t < T; t++)
        if (model[t] < model[t - 1])
            return 1;
    return 0;
}

/*
 * The profile as an EASY plan leaves it between passes: running jobs take
 * from the origin to their planned end (changes after the origin are all
 * gains), a reservation or two starts later (a loss at its start) and is
 * dropped again, the origin moves on past starts and ends, nodes go down
 * and up. fits, min_free and earliest against the model after every step,
 * most of them asked of a profile whose count never falls after the origin
 * (answered from where they start) and the rest of one where it does.
 * Fixed seed.
 */
static void test_random_gains_only(void)
{
    enum { T = 4000, TOTAL = 40 };
    static long long model[T];
    long long total = TOTAL;
    struct avail *a = avail_create(TOTAL, 0);
    for (int t = 0; t < T; t++)
        model[t] = TOTAL;
    struct held {
        long s, e;
        long long n;
    } held[40], resv = {0, 0, 0}; /* resv: the plan's one reservation (n 0: none) */
    int nheld = 0, falls = 0, asked = 0;
    long now = 0;
    unsigned seed = 31337;
    for (int step = 0; step < 6000 && now < T - 400; step++) {
        seed = seed * 1103515245u + 12345u;
        unsigned r = seed >> 8;
        if (r % 6 == 0) {
            now += (long)(r >> 4) % 7;
            avail_advance(a, now);
        } else if (r % 47 == 1) {
            long long d = (r >> 6) % 2 ? 3 : -3;
            avail_add_total(a, d);
            total += d;
            for (long t = now; t < T; t++)
                model[t] += d;
        } else if (r % 5 == 4 && (resv.n || (r >> 5) % 3 == 0)) {
            if (!resv.n) { /* placed later than now */
                long s = now + 1 + (long)(r >> 11) % 90;
                resv = (struct held){s, s + 1 + (long)(r >> 9) % 200, 1 + (r >> 13) % 8};
                avail_take(a, resv.s, resv.e, resv.n);
                for (long t = resv.s; t < resv.e; t++)
                    model[t] -= resv.n;
            } else { /* dropped (the past part clamps) */
                avail_give(a, resv.s, resv.e, resv.n);
                for (long t = resv.s > now ? resv.s : now; t < resv.e; t++)
                    model[t] += resv.n;
                resv.n = 0;
            }
        } else if (nheld < 40 && r % 5 < 3) { /* a job starts now */
            long e = now + 1 + (long)(r >> 9) % 200;
            long long n = 1 + (r >> 13) % 8;
            avail_take(a, now, e, n);
            for (long t = now; t < e; t++)
                model[t] -= n;
            held[nheld++] = (struct held){now, e, n};
        } else if (nheld) { /* one ends, early or not */
            int h = (int)((r >> 3) % (unsigned)nheld);
            avail_give(a, held[h].s, held[h].e, held[h].n);
            for (long t = now; t < held[h].e; t++)
                model[t] += held[h].n;
            held[h] = held[--nheld];
        }
        long q = now + (long)(r >> 2) % 120, d = 1 + (long)(r >> 6) % 150;
        long long n = (long long)((r >> 10) % (TOTAL + 4)) - 1;
        check_window(a, model, now, q, d, n);
        CHECK_EQ(avail_earliest(a, q, d, n), model_earliest(model, T, total, q, d, n));
        falls += model_falls(model, T, now);
        asked++;
    }
    CHECK(asked - falls > 1000); /* both kinds asked, many times */
    CHECK(falls > 1000);
    avail_destroy(a);
}

/*
 * avail_earliest_plus against the profile given the extra for real
 * (avail_give, avail_earliest, avail_take back): random profiles with a
 * moving origin, extras that start before the origin, at a point, past the
 * last point, or never end, and the shape a job's own kept hold has (as
 * long as the job). Fixed seed.
 */
static void test_random_earliest_plus(void)
{
    enum { TOTAL = 32 };
    struct avail *a = avail_create(TOTAL, 0);
    unsigned seed = 777;
    struct held {
        long s, e;
        long long n;
    } held[48];
    int nheld = 0;
    long origin = 0;
    for (int step = 0; step < 4000; step++) {
        seed = seed * 1103515245u + 12345u;
        if (nheld < 48 && (seed >> 16) % 3) {
            long s = origin + (long)((seed >> 8) % 200), e = s + 1 + (long)((seed >> 4) % 150);
            long long n = 1 + (seed >> 20) % 6;
            avail_take(a, s, e, n);
            held[nheld++] = (struct held){s, e, n};
        } else if (nheld) {
            int k = (int)((seed >> 12) % (unsigned)nheld);
            avail_give(a, held[k].s, held[k].e, held[k].n);
            held[k] = held[--nheld];
        }
        if ((seed >> 24) % 8 == 0) {
            origin += (long)((seed >> 5) % 20);
            avail_advance(a, origin);
        }
        for (int q = 0; q < 4; q++) {
            seed = seed * 1103515245u + 12345u;
            long from = origin - 5 + (long)((seed >> 8) % 260);
            long hs = origin - 10 + (long)((seed >> 4) % 260);
            long dur = 1 + (long)((seed >> 20) % 100);
            unsigned kind = (seed >> 28) % 4; /* never ending; a job's own hold's shape; any */
            long he = kind == 0   ? AVAIL_NEVER
                      : kind == 1 ? hs + dur
                                  : hs + (long)((seed >> 14) % 120);
            long long n = 1 + (seed >> 11) % TOTAL, extra = (long long)((seed >> 3) % 9);
            long got = avail_earliest_plus(a, from, dur, n, hs, he, extra);
            size_t points = avail_points(a);
            avail_give(a, hs, he, extra);
            long want = avail_earliest(a, from, dur, n);
            avail_take(a, hs, he, extra);
            CHECK_EQ(got, want);
            CHECK_EQ(avail_points(a), points); /* taken back exactly */
        }
    }
    avail_destroy(a);
}

/*
 * avail_earliest_plus on wider profiles than above: holds that never end,
 * the total moving (nodes down and up: free counts below zero), requests
 * above the total, extras as large as it, empty ranges (he == hs), starts
 * and durations past every point. Against the given profile, as above.
 */
static void test_random_earliest_plus_wide(void)
{
    for (unsigned run = 0; run < 12; run++) {
        long long total = 1 + run % 9;
        struct avail *a = avail_create(total, 0);
        unsigned seed = 1000 + run;
        struct {
            long s, e;
            long long n;
        } held[64];
        int nheld = 0;
        long origin = 0;
        for (int step = 0; step < 1500; step++) {
            seed = seed * 1103515245u + 12345u;
            unsigned r = seed >> 8;
            if (nheld < 64 && r % 3) {
                long s = origin + (long)(r % 500) - 20;
                long e = (r >> 9) % 10 == 0 ? AVAIL_NEVER : s + 1 + (long)((r >> 3) % 700);
                long long n = 1 + (r >> 12) % (unsigned)(total + 2);
                avail_take(a, s, e, n);
                held[nheld].s = s, held[nheld].e = e, held[nheld].n = n;
                nheld++;
            } else if (nheld) {
                int k = (int)((r >> 2) % (unsigned)nheld);
                avail_give(a, held[k].s, held[k].e, held[k].n);
                held[k] = held[--nheld];
            }
            if ((r >> 16) % 10 == 0) {
                origin += (long)((r >> 4) % 50);
                avail_advance(a, origin);
            }
            long long d = (long long)((r >> 5) % 5) - 2;
            if ((r >> 20) % 25 == 0 && total + d >= 1) {
                avail_add_total(a, d);
                total += d;
            }
            for (int q = 0; q < 4; q++) {
                seed = seed * 1103515245u + 12345u;
                unsigned u = seed >> 4;
                long from = origin - 50 + (long)(u % 1200);
                long hs = origin - 100 + (long)((u >> 3) % 1200);
                long dur = 1 + (long)((u >> 7) % 900);
                unsigned kind = (u >> 20) % 5; /* never ending, a hold's shape, empty, any */
                long he = kind == 0   ? AVAIL_NEVER
                          : kind == 1 ? hs + dur
                          : kind == 2 ? hs
                                      : hs + (long)((u >> 11) % 1000);
                long long n = 1 + (u >> 13) % (unsigned)(total + 3);
                long long extra = (long long)((u >> 17) % (unsigned)(total + 2));
                long got = avail_earliest_plus(a, from, dur, n, hs, he, extra);
                avail_give(a, hs, he, extra);
                long want = avail_earliest(a, from, dur, n);
                avail_take(a, hs, he, extra);
                CHECK_EQ(got, want);
            }
        }
        avail_destroy(a);
    }
}

/* The next of a fixed-seed sequence, its high bits. */
static unsigned long rnd(unsigned *seed)
{
    *seed = *seed * 1103515245u + 12345u;
    return *seed >> 8;
}

/*
 * avail_earliest_plus on the profiles an EASY plan asks of between passes:
 * running jobs' takes from the origin (no negative change), the reserved
 * job's kept hold, and sometimes one later take besides (then the hold's
 * take is not the only negative change), asked with the hold's own shape
 * from random starts. The hold's start may coincide with a running job's
 * end (the point's change then nothing, or positive). Against the given
 * profile, as above; most answers are the hold's start. Fixed seed.
 */
static void test_random_earliest_plus_easy(void)
{
    enum { TOTAL = 24 };
    unsigned seed = 4242;
    int at_hold = 0;
    for (int run = 0; run < 3000; run++) {
        struct avail *a = avail_create(TOTAL, 0);
        long origin = 0, last = 0;
        long long used = 0;
        int nrun = (int)(rnd(&seed) % 10);
        for (int k = 0; k < nrun; k++) {
            long long n = 1 + (long long)(rnd(&seed) % 6);
            if (used + n > TOTAL)
                break;
            long e = 1 + (long)(rnd(&seed) % 300);
            avail_take(a, 0, e, n);
            used += n;
            last = e > last ? e : last;
        }
        if (rnd(&seed) % 4 == 0) {
            origin = (long)(rnd(&seed) % 40);
            avail_advance(a, origin);
        }
        /* The hold: where the plan puts it (its earliest start after now),
         * at the last running job's end, or anywhere up to it. */
        long dur = 1 + (long)(rnd(&seed) % 200);
        long long hn = 1 + (long long)(rnd(&seed) % TOTAL);
        long hs = origin + 1 + (long)(rnd(&seed) % (unsigned long)(last + 20));
        unsigned where = (unsigned)(rnd(&seed) % 3);
        if (where == 0)
            hs = avail_earliest(a, origin + 1, dur, hn);
        else if (where == 1 && last > origin)
            hs = last;
        avail_take(a, hs, hs + dur, hn);
        if (rnd(&seed) % 4 == 0) { /* a second negative change */
            long s = origin + 1 + (long)(rnd(&seed) % 400);
            avail_take(a, s, s + 1 + (long)(rnd(&seed) % 200), 1 + (long long)(rnd(&seed) % 4));
        }
        for (int q = 0; q < 6; q++) {
            long from = origin - 5 + (long)(rnd(&seed) % (unsigned long)(hs - origin + 30));
            long long n = q ? hn : 1 + (long long)(rnd(&seed) % TOTAL);
            long got = avail_earliest_plus(a, from, dur, n, hs, hs + dur, hn);
            avail_give(a, hs, hs + dur, hn);
            long want = avail_earliest(a, from, dur, n);
            avail_take(a, hs, hs + dur, hn);
            CHECK_EQ(got, want);
            at_hold += got == hs && from <= hs;
        }
        avail_destroy(a);
    }
    CHECK(at_hold > 3000); /* the shortcut's case, many times */
}

/* The search for the point that holds an instant (avail_next_change, and
 * every take or give past the origin), at every number of points from 1 to
 * 130 (each power of two and the sizes either side of it), for every
 * instant around each point, against the points' times counted by hand. */
static void test_find_every_size(void)
{
    for (long m = 0; m < 130; m++) {
        struct avail *a = avail_create(200, 0);
        for (long k = 1; k <= m; k++)
            avail_take(a, 10 * k, AVAIL_NEVER, 1); /* a point at 10k, none at its end */
        CHECK_EQ(avail_points(a), (size_t)m + 1);
        for (long t = 0; t <= 10 * m + 12; t++) {
            long want = t / 10 + 1 <= m ? (t / 10 + 1) * 10 : AVAIL_NEVER;
            CHECK_EQ(avail_next_change(a, t), want);
        }
        avail_destroy(a);
    }
}

/* The same search past the sizes find() unrolls (2^12 points and beyond it
 * halves in a loop first): sizes either side of 2^12, 2^13 and 2^14, every
 * instant around a sample of points, each point's neighbours included. */
static void test_find_large_sizes(void)
{
    static const long sizes[] = {4094, 4095, 4096, 4097, 8191, 8192, 8193, 16383, 16385};
    for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++) {
        long m = sizes[z];
        struct avail *a = avail_create(1L << 20, 0);
        for (long k = 1; k <= m; k++)
            avail_take(a, 10 * k, AVAIL_NEVER, 1);
        CHECK_EQ(avail_points(a), (size_t)m + 1);
        for (long k = 0; k <= m + 1; k += (k < 40 || k > m - 40) ? 1 : 37)
            for (long t = 10 * k - 1; t <= 10 * k + 1; t++) {
                if (t < 0)
                    continue;
                long want = t / 10 + 1 <= m ? (t / 10 + 1) * 10 : AVAIL_NEVER;
                CHECK_EQ(avail_next_change(a, t), want);
            }
        avail_destroy(a);
    }
}

int main(void)
{
    TEST_RUN(test_empty_profile);
    TEST_RUN(test_take_and_give);
    TEST_RUN(test_earliest);
    TEST_RUN(test_advance);
    TEST_RUN(test_total_changes);
    TEST_RUN(test_random_against_model);
    TEST_RUN(test_random_moving_origin);
    TEST_RUN(test_random_queries_two_profiles);
    TEST_RUN(test_random_gains_only);
    TEST_RUN(test_random_earliest_plus);
    TEST_RUN(test_random_earliest_plus_wide);
    TEST_RUN(test_random_earliest_plus_easy);
    TEST_RUN(test_find_every_size);
    TEST_RUN(test_find_large_sizes);
    return TEST_DONE();
}
