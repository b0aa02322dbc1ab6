/*
 * t_fs — tests of fairshare (policy/fs): FSTARGET parsing and display, the
 * seed's John example of decayed usage, the decay weights, rate accrual split
 * exactly at window boundaries on the epoch clock, roll-over and idle
 * periods, targets with the DEFAULT fallback, the priority delta examples of
 * digest §4.5 (normal and percent policy, every mode) and the absolute and
 * relative caps with committed work.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/cred.h"
#include "policy/fs.h"
#include "test.h"

#define DAY 86400L
#define T0 1000000000L

/* Credentials for the tests: one table per kind. */
struct creds {
    struct cred_table *t[CRED_NKINDS];
};

static void creds_init(struct creds *c)
{
    for (int k = 0; k < CRED_NKINDS; k++)
        c->t[k] = cred_table_create((enum cred_kind)k);
}

static void creds_free(struct creds *c)
{
    for (int k = 0; k < CRED_NKINDS; k++)
        cred_table_destroy(c->t[k]);
}

static void test_target_parse(void)
{
    struct fs_target t = {0};
    struct err err;
    CHECK_EQ(fs_target_parse("50", &t, &err), 0);
    CHECK(t.value == 50 && t.mode == FS_MODE_TARGET);
    CHECK_EQ(fs_target_parse("10+", &t, &err), 0);
    CHECK(t.value == 10 && t.mode == FS_MODE_FLOOR);
    CHECK_EQ(fs_target_parse("25-", &t, &err), 0);
    CHECK(t.value == 25 && t.mode == FS_MODE_CEILING);
    CHECK_EQ(fs_target_parse("1000^", &t, &err), 0);
    CHECK(t.value == 1000 && t.mode == FS_MODE_CAP);
    CHECK_EQ(fs_target_parse("20%", &t, &err), 0);
    CHECK(t.value == 20 && t.mode == FS_MODE_PCAP);
    CHECK_EQ(fs_target_parse("12.5", &t, &err), 0);
    CHECK(t.value == 12.5 && t.mode == FS_MODE_TARGET);

    const char *bad[] = {"", "abc", "50x", "10++", "-5", "+", "%", "nan", "inf", "5 ^"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct fs_target u = {7, FS_MODE_FLOOR};
        err_clear(&err);
        CHECK_EQ(fs_target_parse(bad[i], &u, &err), -1);
        CHECK(err.msg[0] != '\0');
        CHECK(u.value == 7 && u.mode == FS_MODE_FLOOR); /* untouched on failure */
    }
    CHECK_EQ(fs_target_parse(NULL, &t, NULL), -1);
}

static struct fs *mk(long interval, int depth, double decay, enum fs_policy p, int percent)
{
    struct fs_params fp = {
        .policy = p, .percent = percent, .interval = interval, .depth = depth, .decay = decay};
    return fs_create(&fp, 0);
}

static void test_target_format(void)
{
    char out[32];
    struct fs_target t;
    const char *in[] = {"50", "10+", "25-", "1000^", "20%", "12.5"};
    const char *want[] = {"50.00", "10.00+", "25.00-", "1000.00^", "20.00%", "12.50"};
    for (size_t i = 0; i < sizeof in / sizeof in[0]; i++) {
        fs_target_parse(in[i], &t, NULL);
        fs_target_format(&t, out);
        CHECK_STR(out, want[i]);
    }
    t.mode = FS_MODE_NONE;
    fs_target_format(&t, out);
    CHECK_STR(out, "");
    fs_target_format(NULL, out);
    CHECK_STR(out, "");
}

/* The seed's example: John's windows (newest first) 60, 0, 10, 50 of totals
 * 110, 125, 100, 150 with FSDECAY 0.5 → 68.75 / 216.25 = 31.79 %. */
static void test_john(void)
{
    struct creds cs;
    creds_init(&cs);
    struct cred *john = cred_get(cs.t[CRED_USER], "john");
    struct fs *f = mk(DAY, 4, 0.5, FS_DEDICATEDPS, 0);
    double jw[] = {60, 0, 10, 50}, tw[] = {110, 125, 100, 150};
    for (int i = 0; i < 4; i++) {
        fs_set_window(f, john, i, jw[i]);
        fs_set_total_window(f, i, tw[i]);
    }
    CHECK(near(fs_usage(f, john), 68.75));
    CHECK(near(fs_total(f), 216.25));
    CHECK(near(fs_percent(f, john), 100 * 68.75 / 216.25));
    CHECK(fabs(fs_percent(f, john) - 31.79) < 0.005);
    CHECK(near(fs_window(f, john, 2), 10));
    CHECK(near(fs_total_window(f, 1), 125));
    CHECK(fs_window(f, john, FS_MAX_DEPTH) == 0);
    CHECK(fs_window(f, john, -1) == 0);
    fs_set_window(f, john, 4, 99); /* kept, but past depth 4: not counted */
    CHECK(near(fs_window(f, john, 4), 99));
    CHECK(near(fs_usage(f, john), 68.75));
    CHECK(fs_has_usage(f, john));
    /* An object never charged has no usage. */
    struct cred *nobody = cred_get(cs.t[CRED_USER], "nobody");
    CHECK(fs_usage(f, nobody) == 0);
    CHECK(!fs_has_usage(f, nobody));
    CHECK(fs_percent(f, cred_get(cs.t[CRED_GROUP], "g")) == 0);
    fs_destroy(f);
    creds_free(&cs);
}

/* One unit in each window: the decayed usage is Σ decay^i, the weights
 * 1, 0.5, 0.25, ... for FSDECAY 0.5; FSDECAY 1 counts all depth windows. */
static void test_decay_table(void)
{
    struct creds cs;
    creds_init(&cs);
    struct cred *u = cred_get(cs.t[CRED_USER], "u");
    double decays[] = {1.0, 0.5, 0.8, 0.0};
    for (size_t d = 0; d < sizeof decays / sizeof decays[0]; d++) {
        struct fs *f = mk(DAY, 8, decays[d], FS_DEDICATEDPS, 0);
        for (int i = 0; i < 8; i++) {
            struct fs *one = mk(DAY, 8, decays[d], FS_DEDICATEDPS, 0);
            fs_set_window(one, u, i, 1);
            CHECK(near(fs_usage(one, u), pow(decays[d], i)));
            fs_destroy(one);
            fs_set_window(f, u, i, 1);
        }
        double sum = 0;
        for (int i = 0; i < 8; i++)
            sum += pow(decays[d], i);
        CHECK(near(fs_usage(f, u), sum));
        fs_destroy(f);
    }
    /* Depth is capped at 24 and floored at 1. */
    struct fs *f = mk(DAY, 100, 1.0, FS_DEDICATEDPS, 0);
    CHECK_EQ(fs_params(f)->depth, FS_MAX_DEPTH);
    for (int i = 0; i < 30; i++)
        fs_set_window(f, u, i, 1);
    CHECK(near(fs_usage(f, u), FS_MAX_DEPTH));
    fs_destroy(f);
    f = mk(DAY, 0, 1.0, FS_DEDICATEDPS, 0);
    fs_set_window(f, u, 0, 3);
    fs_set_window(f, u, 1, 5);
    CHECK(near(fs_usage(f, u), 3));
    fs_destroy(f);
    creds_free(&cs);
}

/* Usage added at once goes to every credential given and to the total;
 * windows align to multiples of the interval; two windows on shifts by
 * two; windows older than depth stop counting. */
static void test_add_roll(void)
{
    struct creds cs;
    creds_init(&cs);
    const struct cred *jc[CRED_NKINDS];
    for (int k = 0; k < CRED_NKINDS; k++)
        jc[k] = cred_get(cs.t[k], "a");
    const struct cred *other[CRED_NKINDS] = {cred_get(cs.t[CRED_USER], "b"), NULL, NULL, NULL,
                                             NULL};
    long iv = 3600;
    struct fs *f = mk(iv, 3, 0.5, FS_DEDICATEDPS, 0);
    CHECK_EQ(fs_window_start(f), 0);

    long k0 = T0 / iv; /* window k0 starts at k0*iv */
    long t = k0 * iv + 100;
    fs_add(f, t, jc, 10);
    CHECK_EQ(fs_window_start(f), k0 * iv);
    fs_add(f, t + 1000, jc, 5);
    fs_add(f, k0 * iv + iv - 1, other, 7); /* last second of window k0 */
    CHECK_EQ(fs_window_start(f), k0 * iv);
    for (int k = 0; k < CRED_NKINDS; k++)
        CHECK(near(fs_window(f, jc[k], 0), 15));
    CHECK(near(fs_window(f, other[0], 0), 7));
    CHECK(near(fs_total_window(f, 0), 22));
    CHECK(near(fs_percent(f, jc[CRED_USER]), 100.0 * 15 / 22));

    fs_add(f, (k0 + 2) * iv, jc, 4);
    CHECK_EQ(fs_window_start(f), (k0 + 2) * iv);
    CHECK(near(fs_window(f, jc[CRED_QOS], 0), 4));
    CHECK(fs_window(f, jc[CRED_QOS], 1) == 0);
    CHECK(near(fs_window(f, jc[CRED_QOS], 2), 15));
    CHECK(near(fs_usage(f, jc[CRED_USER]), 4 + 15 * 0.25));
    CHECK(near(fs_total(f), 4 + 22 * 0.25));

    /* Time going backwards changes nothing. */
    fs_advance(f, k0 * iv);
    CHECK_EQ(fs_window_start(f), (k0 + 2) * iv);

    /* One more window: the window of k0 is slot 3, past depth 3. */
    fs_advance(f, (k0 + 3) * iv + 5);
    CHECK_EQ(fs_window_start(f), (k0 + 3) * iv);
    CHECK(near(fs_window(f, jc[CRED_USER], 1), 4));
    CHECK(near(fs_window(f, jc[CRED_USER], 3), 15)); /* kept for the FS files */
    CHECK(near(fs_usage(f, jc[CRED_USER]), 4 * 0.5));
    CHECK(near(fs_total(f), 4 * 0.5));
    CHECK(fs_usage(f, other[0]) == 0);

    /* A long idle period clears everything. */
    fs_advance(f, (k0 + 100) * iv);
    CHECK(fs_total(f) == 0);
    CHECK(!fs_has_usage(f, jc[CRED_USER]));

    /* A credential first seen after a roll grows its kind's array. */
    const struct cred *late[CRED_NKINDS] = {NULL, cred_get(cs.t[CRED_GROUP], "late"), NULL, NULL,
                                            NULL};
    fs_add(f, (k0 + 100) * iv + 1, late, 2);
    CHECK(near(fs_usage(f, late[CRED_GROUP]), 2));
    fs_destroy(f);

    /* Alignment before the epoch floors too. */
    f = mk(100, 2, 1, FS_DEDICATEDPS, 0);
    fs_advance(f, -150);
    CHECK_EQ(fs_window_start(f), -200);
    fs_advance(f, -1);
    CHECK_EQ(fs_window_start(f), -100);
    fs_destroy(f);
    fs_destroy(NULL);
    creds_free(&cs);
}

/* Running jobs accrue rate x seconds, split exactly at window boundaries of
 * the epoch clock, whatever the times at which the ledger is advanced. */
static void test_rates(void)
{
    struct creds cs;
    creds_init(&cs);
    const struct cred *a[CRED_NKINDS] = {cred_get(cs.t[CRED_USER], "alice"), NULL,
                                         cred_get(cs.t[CRED_ACCOUNT], "chem"), NULL, NULL};
    const struct cred *b[CRED_NKINDS] = {cred_get(cs.t[CRED_USER], "bob"), NULL, NULL, NULL, NULL};
    struct fs_params fp = {.policy = FS_DEDICATEDPS, .interval = 1000, .depth = 4, .decay = 0.5};
    /* Driver time 0 is epoch 10300: windows start at driver times
     * -300, 700, 1700, ... */
    struct fs *f = fs_create(&fp, 10300);
    CHECK_EQ(fs_epoch(f), 10300);
    fs_advance(f, 0);
    CHECK_EQ(fs_window_start(f), -300);
    fs_start(f, a, 4, 2000, 100); /* 4 procs from 100 */
    fs_start(f, b, 2, 900, 600);  /* 2 procs from 600 */
    fs_advance(f, 650);
    CHECK(near(fs_window(f, a[CRED_USER], 0), 4 * 550));
    CHECK(near(fs_window(f, a[CRED_ACCOUNT], 0), 4 * 550));
    CHECK(near(fs_window(f, b[CRED_USER], 0), 2 * 50));
    CHECK(near(fs_total_window(f, 0), 4 * 550 + 2 * 50));
    /* Past two boundaries (700 and 1700): alice's usage is split 600 / 1000
     * / 100; bob stops at 900. */
    fs_stop(f, b, 2, 900, 900);
    fs_advance(f, 1800);
    CHECK_EQ(fs_window_start(f), 1700);
    CHECK(near(fs_window(f, a[CRED_USER], 2), 4 * 600));
    CHECK(near(fs_window(f, a[CRED_USER], 1), 4 * 1000));
    CHECK(near(fs_window(f, a[CRED_USER], 0), 4 * 100));
    CHECK(near(fs_window(f, b[CRED_USER], 2), 2 * 100));
    CHECK(near(fs_window(f, b[CRED_USER], 1), 2 * 200));
    CHECK(near(fs_total_window(f, 1), 4 * 1000 + 2 * 200));
    CHECK(fs_has_usage(f, b[CRED_USER]));
    /* Decayed: 400 + 0.5 * 4000 + 0.25 * 2400. */
    CHECK(near(fs_usage(f, a[CRED_USER]), 400 + 2000 + 600));
    fs_stop(f, a, 4, 2000, 2000);
    fs_advance(f, 2500);
    CHECK(near(fs_window(f, a[CRED_USER], 0), 4 * 300)); /* 1700 .. 2000 */
    /* Stopping twice does not go negative. */
    fs_stop(f, a, 4, 2000, 2600);
    fs_advance(f, 2650);
    CHECK(near(fs_window(f, a[CRED_USER], 0), 4 * 300));
    /* ... nor takes back what it never accrued, when the second stop says
     * an earlier end. */
    fs_stop(f, a, 4, 2000, 2400);
    CHECK(near(fs_window(f, a[CRED_USER], 0), 4 * 300));
    /* A stop heard after the ledger went past the end (a daemon's poll):
     * charged to its end, not to the ledger's now, across a window
     * boundary too (2700): bob runs 2650 .. 2690, heard of at 2720. */
    fs_start(f, b, 2, 3000, 2650);
    fs_advance(f, 2720);
    CHECK(near(fs_window(f, b[CRED_USER], 0), 2 * 20));
    fs_stop(f, b, 2, 3000, 2690);
    CHECK(near(fs_window(f, b[CRED_USER], 0), 0));
    CHECK(near(fs_window(f, b[CRED_USER], 1), 2 * 40));
    CHECK(near(fs_total_window(f, 1), 2 * 40 + 4 * 300));
    fs_advance(f, 2750);
    CHECK(near(fs_window(f, b[CRED_USER], 1), 2 * 40)); /* no longer accruing */
    fs_destroy(f);

    /* Policy NONE: nothing is accounted. */
    fp.policy = FS_NONE;
    f = fs_create(&fp, 0);
    fs_start(f, a, 4, 2000, 0);
    fs_advance(f, 5000);
    fs_add(f, 5000, a, 10);
    CHECK(fs_total(f) == 0);
    CHECK(fs_total_window(f, 0) == 0);
    fs_destroy(f);
    creds_free(&cs);
}

/* A 1-second FSINTERVAL and a job running for a year: the ledger jumps over
 * the windows it cannot keep, and the windows it keeps are exact. */
static void test_long_jump(void)
{
    struct creds cs;
    creds_init(&cs);
    const struct cred *a[CRED_NKINDS] = {cred_get(cs.t[CRED_USER], "alice"), NULL, NULL, NULL,
                                         NULL};
    struct fs_params fp = {.policy = FS_DEDICATEDPS, .interval = 1, .depth = 24, .decay = 1};
    struct fs *f = fs_create(&fp, 0);
    fs_advance(f, 0);
    fs_start(f, a, 3, 40000000, 0);
    fs_set_window(f, a[CRED_USER], 0, 5); /* gone once past the ledger's depth */
    long year = 365L * 86400;
    fs_advance(f, year + 0); /* exactly on a boundary: slot 0 is empty so far */
    CHECK_EQ(fs_window_start(f), year);
    CHECK(fs_window(f, a[CRED_USER], 0) == 0);
    for (int i = 1; i < FS_MAX_DEPTH; i++)
        CHECK(near(fs_window(f, a[CRED_USER], i), 3));
    CHECK(near(fs_usage(f, a[CRED_USER]), 3 * 23));
    CHECK(near(fs_total(f), 3 * 23));
    /* A jump of exactly the ledger's depth keeps every window. */
    fs_advance(f, year + FS_MAX_DEPTH);
    for (int i = 1; i < FS_MAX_DEPTH; i++)
        CHECK(near(fs_window(f, a[CRED_USER], i), 3));
    fs_stop(f, a, 3, 40000000, year + FS_MAX_DEPTH + 10);
    fs_destroy(f);
    creds_free(&cs);
}

/* Build a ledger where `c` holds `pct` percent of a total of 100. */
static struct fs *share(const struct cred *c, double pct, enum fs_policy p, int percent)
{
    struct fs *f = mk(DAY, 8, 1.0, p, percent);
    fs_set_window(f, c, 0, pct);
    fs_set_total_window(f, 0, 100);
    return f;
}

static double delta_with(struct fs *f, const struct cred *c, const char *target)
{
    struct fs_target t = {0, FS_MODE_NONE};
    if (target)
        fs_target_parse(target, &t, NULL);
    fs_set_target(f, c, t);
    return fs_delta(f, c);
}

/* fs_delta as digest §4.5 states it, from the public reads (target with
 * the DEFAULT fallback, percent of the total): fs_delta finds c's object
 * and the total once, and must give these bits. */
static double delta_model(const struct fs *f, const struct cred *c, int percent)
{
    struct fs_target t = fs_target_of(f, c);
    if (t.mode == FS_MODE_NONE || t.value <= 0 || t.mode == FS_MODE_CAP || t.mode == FS_MODE_PCAP ||
        fs_total(f) <= 0)
        return 0;
    double pct = fs_percent(f, c);
    double d = percent ? 1.0 - pct / t.value : t.value - pct;
    if ((t.mode == FS_MODE_FLOOR && d < 0) || (t.mode == FS_MODE_CEILING && d > 0))
        d = 0;
    return d;
}

/* Random ledgers (running jobs, windows, own and DEFAULT targets of every
 * mode, credentials never touched): fs_delta is the model's, bit for bit. */
static void test_delta_model(void)
{
    static const char *const targets[] = {NULL, "30", "5", "10+", "50-", "1000^", "20%", "0"};
    static const char *const names[] = {"a", "b", "c", "d"};
    srand(31);
    for (int round = 0; round < 200; round++) {
        struct creds cs;
        creds_init(&cs);
        int percent = rand() % 2;
        struct fs *f = mk(DAY, 1 + rand() % 8, 0.5 + (rand() % 5) / 10.0, FS_DEDICATEDPS, percent);
        struct cred *c[CRED_NKINDS][4];
        for (int k = 0; k < CRED_NKINDS; k++) {
            for (int i = 0; i < 4; i++)
                c[k][i] = cred_get(cs.t[k], names[i]);
            struct fs_target t = {0, FS_MODE_NONE};
            if (rand() % 2)
                fs_target_parse(targets[rand() % 8], &t, NULL);
            fs_set_target(f, cred_default(cs.t[k]), t);
        }
        long now = T0;
        for (int step = 0; step < 20; step++) {
            const struct cred *a[CRED_NKINDS];
            for (int k = 0; k < CRED_NKINDS; k++)
                a[k] = c[k][rand() % 3]; /* the fourth never runs */
            if (rand() % 3) {
                struct fs_target t = {0, FS_MODE_NONE};
                fs_target_parse(targets[1 + rand() % 7], &t, NULL);
                fs_set_target(f, a[rand() % CRED_NKINDS], t);
            }
            double rate = 1 + rand() % 64;
            fs_start(f, a, rate, now + rate * 1000, now);
            now += rand() % DAY;
            fs_advance(f, now);
            for (int k = 0; k < CRED_NKINDS; k++)
                for (int i = 0; i < 4; i++)
                    CHECK(fs_delta(f, c[k][i]) == delta_model(f, c[k][i], percent));
        }
        fs_destroy(f);
        creds_free(&cs);
    }
}

/* decayed usage as fs.c's rehist sums it, from the public reads: slot 0,
 * then the older slots times decay^i in order (the same bits). */
static double usage_model(const struct fs *f, const struct cred *c, int depth, double decay)
{
    double sum = 0, weight = 1;
    for (int i = 1; i < depth; i++) {
        weight *= decay;
        sum += fs_window(f, c, i) * weight;
    }
    return fs_window(f, c, 0) + sum;
}

/* Random ledgers whose credentials run, stop and stay idle past the
 * ledger's depth (their slots shifted out, then skipped at each window
 * closing while all +0): every window and the decayed usage are the
 * model's bit for bit, and an idle credential's slots read +0. */
static void test_idle_shift(void)
{
    static const char *const names[] = {"a", "b", "c", "d", "e", "f"};
    srand(1931);
    for (int round = 0; round < 100; round++) {
        struct creds cs;
        creds_init(&cs);
        int depth = 1 + rand() % 8;
        double decay = 0.5 + (rand() % 5) / 10.0;
        struct fs *f = mk(3600, depth, decay, FS_DEDICATEDPS, 0);
        const struct cred *u[6];
        for (int i = 0; i < 6; i++)
            u[i] = cred_get(cs.t[CRED_USER], names[i]);
        long now = T0, end[6] = {0};
        double rate[6] = {0};
        fs_advance(f, now);
        for (int step = 0; step < 60; step++) {
            int i = rand() % 6;
            const struct cred *a[CRED_NKINDS] = {u[i], NULL, NULL, NULL, NULL};
            if (rate[i] > 0) {
                fs_stop(f, a, rate[i], end[i], now);
                rate[i] = 0;
            } else if (rand() % 2) {
                rate[i] = 1 + rand() % 16;
                end[i] = now + 7200;
                fs_start(f, a, rate[i], end[i], now);
            }
            /* Sometimes a stretch longer than the ledger keeps. */
            now += rand() % 4 ? rand() % 7200 : 3600L * (depth + rand() % 4);
            fs_advance(f, now);
            for (int k = 0; k < 6; k++) {
                double m = usage_model(f, u[k], depth, decay);
                CHECK(memcmp(&m, &(double){fs_usage(f, u[k])}, sizeof m) == 0);
                if (rate[k] == 0 && !fs_has_usage(f, u[k]))
                    for (int w = 0; w < depth; w++)
                        CHECK(fs_window(f, u[k], w) == 0 && !signbit(fs_window(f, u[k], w)));
            }
        }
        fs_destroy(f);
        creds_free(&cs);
    }
}

static void test_delta(void)
{
    struct creds cs;
    creds_init(&cs);
    struct cred *u = cred_get(cs.t[CRED_USER], "u");
    struct cred *a = cred_get(cs.t[CRED_ACCOUNT], "a");
    struct cred *q = cred_get(cs.t[CRED_QOS], "q");

    /* Digest §4.5 examples. */
    struct fs *f = share(u, 45, FS_DEDICATEDPS, 0);
    fs_set_window(f, a, 0, 35);
    fs_set_window(f, q, 0, 25);
    CHECK(near(delta_with(f, u, "50"), 5));
    CHECK(near(delta_with(f, a, "25"), -10));
    CHECK(delta_with(f, q, "10+") == 0); /* floor: only raises */
    CHECK(near(delta_with(f, q, "50+"), 25));
    CHECK(near(delta_with(f, a, "25-"), -10)); /* ceiling: only lowers */
    CHECK(delta_with(f, u, "50-") == 0);
    CHECK(delta_with(f, u, "1000^") == 0);
    CHECK(delta_with(f, u, "20%") == 0);
    CHECK(delta_with(f, u, NULL) == 0);
    CHECK(delta_with(f, u, "0") == 0);
    fs_destroy(f);

    /* Without a target of its own, a credential takes its DEFAULT's. */
    f = share(u, 45, FS_DEDICATEDPS, 0);
    struct fs_target t;
    fs_target_parse("30", &t, NULL);
    fs_set_target(f, cred_default(cs.t[CRED_USER]), t);
    CHECK(near(fs_delta(f, u), -15));
    CHECK(fs_own_target(f, u).mode == FS_MODE_NONE);
    CHECK(fs_target_of(f, u).value == 30);
    CHECK(near(delta_with(f, u, "60"), 15)); /* its own wins */
    CHECK(fs_target_of(f, cred_get(cs.t[CRED_GROUP], "g")).mode == FS_MODE_NONE);
    fs_set_total_target(f, t);
    CHECK(fs_total_target(f).value == 30);
    fs_destroy(f);

    /* Percent policy: 1 - pct/target. */
    f = share(u, 45, FS_DEDICATEDPS, 1);
    fs_set_window(f, a, 0, 35);
    CHECK(near(delta_with(f, u, "50"), 1 - 45.0 / 50));
    CHECK(near(delta_with(f, a, "25"), 1 - 35.0 / 25));
    CHECK(delta_with(f, a, "25+") == 0);
    fs_destroy(f);

    /* FS_NONE, or no total usage: no delta. */
    f = share(u, 45, FS_NONE, 0);
    CHECK(delta_with(f, u, "50") == 0);
    fs_destroy(f);
    f = mk(DAY, 8, 1.0, FS_UTILIZEDPS, 0);
    CHECK(delta_with(f, u, "50") == 0);
    fs_destroy(f);
    creds_free(&cs);
}

static int over_with(struct fs *f, const struct cred *c, const char *target, double request)
{
    struct fs_target t = {0, FS_MODE_NONE};
    if (target)
        fs_target_parse(target, &t, NULL);
    fs_set_target(f, c, t);
    return fs_over_cap(f, c, request);
}

static void test_caps(void)
{
    struct creds cs;
    creds_init(&cs);
    struct cred *u = cred_get(cs.t[CRED_USER], "u");

    /* Absolute: usage 600 (decayed 400 + 0.5 * 400), cap 1000. */
    struct fs *f = mk(DAY, 4, 0.5, FS_DEDICATEDPS, 0);
    fs_set_window(f, u, 0, 400);
    fs_set_window(f, u, 1, 400);
    fs_set_total_window(f, 0, 1000);
    fs_set_total_window(f, 1, 1000);            /* total 1500 */
    CHECK_EQ(over_with(f, u, "1000^", 400), 0); /* 1000 is not > 1000 */
    CHECK_EQ(over_with(f, u, "1000^", 401), 1);
    CHECK_EQ(over_with(f, cred_get(cs.t[CRED_USER], "new"), "1000^", 1000), 0);

    /* Relative: (600 + r) / (1500 + r) * 100 > 50 blocks when r > 300. */
    CHECK_EQ(over_with(f, u, "50%", 300), 0);
    CHECK_EQ(over_with(f, u, "50%", 301), 1);
    CHECK_EQ(over_with(f, u, "30%", 0), 1); /* already at 40 % */

    /* Other modes never block. */
    CHECK_EQ(over_with(f, u, "10", 1e9), 0);
    CHECK_EQ(over_with(f, u, "10-", 1e9), 0);
    CHECK_EQ(over_with(f, u, NULL, 1e9), 0);
    fs_destroy(f);

    /* Relative cap with nothing delivered or running yet: not blocked. */
    f = mk(DAY, 4, 0.5, FS_DEDICATEDPS, 0);
    CHECK_EQ(over_with(f, u, "50%", 100), 0);
    fs_destroy(f);

    /* Committed work counts: a running job's remaining walltime is usage
     * to come, so a second job cannot slip under the cap beside it. */
    f = mk(DAY, 4, 1.0, FS_DEDICATEDPS, 0);
    const struct cred *jc[CRED_NKINDS] = {u, NULL, NULL, NULL, NULL};
    fs_advance(f, 0);
    fs_start(f, jc, 2, 500, 0); /* 2 procs, planned end 500: 1000 due */
    CHECK_EQ(over_with(f, u, "1500^", 500), 0);
    CHECK_EQ(over_with(f, u, "1500^", 501), 1);
    fs_advance(f, 200); /* 400 delivered + 600 due: the same */
    CHECK(near(fs_usage(f, u), 400));
    CHECK_EQ(over_with(f, u, "1500^", 500), 0);
    CHECK_EQ(over_with(f, u, "1500^", 501), 1);
    fs_destroy(f);
    creds_free(&cs);
}

int main(void)
{
    TEST_RUN(test_target_parse);
    TEST_RUN(test_target_format);
    TEST_RUN(test_john);
    TEST_RUN(test_decay_table);
    TEST_RUN(test_add_roll);
    TEST_RUN(test_rates);
    TEST_RUN(test_long_jump);
    TEST_RUN(test_delta);
    TEST_RUN(test_delta_model);
    TEST_RUN(test_idle_shift);
    TEST_RUN(test_caps);
    return TEST_DONE();
}
