/*
 * t_fs — tests of fairshare (policy/fs): FSTARGET parsing, the seed's John
 * example of decayed usage, the decay weights, accrual and window roll-over
 * in time, the priority delta examples of digest §4.5 (normal and percent
 * policy, every mode) and the absolute and relative caps.
 */
#include <math.h>

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

/* The seed's example: John's windows (newest first) 60, 0, 10, 50 of totals
 * 110, 125, 100, 150 with FSDECAY 0.5 → 68.75 / 216.25 = 31.79 %. */
static void test_john(void)
{
    struct creds cs;
    creds_init(&cs);
    struct cred *john = cred_get(cs.t[CRED_USER], "john");
    struct fs *f = fs_create(DAY, 4, 0.5, FS_DEDICATEDPS, 0);
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
    CHECK(fs_window(f, john, 4) == 0); /* past depth */
    CHECK(fs_window(f, john, -1) == 0);
    fs_set_window(f, john, 4, 99); /* ignored */
    CHECK(near(fs_usage(f, john), 68.75));
    /* An object never charged has no usage. */
    CHECK(fs_usage(f, cred_get(cs.t[CRED_USER], "nobody")) == 0);
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
        struct fs *f = fs_create(DAY, 8, decays[d], FS_DEDICATEDPS, 0);
        for (int i = 0; i < 8; i++) {
            struct fs *one = fs_create(DAY, 8, decays[d], FS_DEDICATEDPS, 0);
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
    struct fs *f = fs_create(DAY, 100, 1.0, FS_DEDICATEDPS, 0);
    for (int i = 0; i < 30; i++)
        fs_set_window(f, u, i, 1);
    CHECK(near(fs_usage(f, u), FS_MAX_DEPTH));
    fs_destroy(f);
    f = fs_create(DAY, 0, 1.0, FS_DEDICATEDPS, 0);
    fs_set_window(f, u, 0, 3);
    fs_set_window(f, u, 1, 5);
    CHECK(near(fs_usage(f, u), 3));
    fs_destroy(f);
    creds_free(&cs);
}

/* Accrual: usage goes to every credential given and to the total; windows
 * are aligned to multiples of the interval; moving two windows on shifts
 * the usage by two; usage older than depth windows is dropped. */
static void test_accrual_roll(void)
{
    struct creds cs;
    creds_init(&cs);
    const struct cred *jc[CRED_NKINDS];
    for (int k = 0; k < CRED_NKINDS; k++)
        jc[k] = cred_get(cs.t[k], "a");
    const struct cred *other[CRED_NKINDS] = {cred_get(cs.t[CRED_USER], "b"), NULL, NULL, NULL,
                                             NULL};
    long iv = 3600;
    struct fs *f = fs_create(iv, 3, 0.5, FS_DEDICATEDPS, 0);
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
    CHECK(fs_window(f, cred_get(cs.t[CRED_GROUP], "DEFAULT"), 0) == 0);

    /* Into window k0+2: shifted by two. */
    fs_add(f, (k0 + 2) * iv, jc, 4);
    CHECK_EQ(fs_window_start(f), (k0 + 2) * iv);
    CHECK(near(fs_window(f, jc[CRED_QOS], 0), 4));
    CHECK(fs_window(f, jc[CRED_QOS], 1) == 0);
    CHECK(near(fs_window(f, jc[CRED_QOS], 2), 15));
    CHECK(near(fs_window(f, other[0], 2), 7));
    CHECK(near(fs_total_window(f, 2), 22));
    CHECK(near(fs_usage(f, jc[CRED_USER]), 4 + 15 * 0.25));
    CHECK(near(fs_total(f), 4 + 22 * 0.25));

    /* Time going backwards changes nothing. */
    fs_roll(f, k0 * iv);
    CHECK_EQ(fs_window_start(f), (k0 + 2) * iv);

    /* One more window: the window of k0 falls past depth 3 and is dropped. */
    fs_roll(f, (k0 + 3) * iv + 5);
    CHECK_EQ(fs_window_start(f), (k0 + 3) * iv);
    CHECK(fs_window(f, jc[CRED_USER], 0) == 0);
    CHECK(near(fs_window(f, jc[CRED_USER], 1), 4));
    CHECK(fs_window(f, jc[CRED_USER], 2) == 0);
    CHECK(near(fs_usage(f, jc[CRED_USER]), 4 * 0.5));
    CHECK(near(fs_total(f), 4 * 0.5));
    CHECK(fs_usage(f, other[0]) == 0);

    /* A long idle period clears everything. */
    fs_roll(f, (k0 + 100) * iv);
    CHECK(fs_total(f) == 0);
    CHECK(fs_percent(f, jc[CRED_USER]) == 0);

    /* A credential first seen after a roll grows its kind's array. */
    const struct cred *late[CRED_NKINDS] = {NULL, cred_get(cs.t[CRED_GROUP], "late"), NULL, NULL,
                                            NULL};
    fs_add(f, (k0 + 100) * iv + 1, late, 2);
    CHECK(near(fs_usage(f, late[CRED_GROUP]), 2));
    fs_destroy(f);

    /* Alignment before the epoch floors too. */
    f = fs_create(100, 2, 1, FS_DEDICATEDPS, 0);
    fs_roll(f, -150);
    CHECK_EQ(fs_window_start(f), -200);
    fs_roll(f, -1);
    CHECK_EQ(fs_window_start(f), -100);
    fs_destroy(f);
    fs_destroy(NULL);
    creds_free(&cs);
}

/* Build a ledger where `c` holds `pct` percent of a total of 100. */
static struct fs *share(const struct cred *c, double pct, enum fs_policy p, int percent)
{
    struct fs *f = fs_create(DAY, 8, 1.0, p, percent);
    fs_set_window(f, c, 0, pct);
    fs_set_total_window(f, 0, 100);
    return f;
}

static void test_delta(void)
{
    struct creds cs;
    creds_init(&cs);
    struct cred *u = cred_get(cs.t[CRED_USER], "u");
    struct cred *a = cred_get(cs.t[CRED_ACCOUNT], "a");
    struct cred *q = cred_get(cs.t[CRED_QOS], "q");
    struct fs_target t;

    /* Digest §4.5 examples. */
    struct fs *f = share(u, 45, FS_DEDICATEDPS, 0);
    fs_set_window(f, a, 0, 35);
    fs_set_window(f, q, 0, 25);
    fs_target_parse("50", &t, NULL);
    CHECK(near(fs_delta(f, u, &t), 5));
    fs_target_parse("25", &t, NULL);
    CHECK(near(fs_delta(f, a, &t), -10));
    fs_target_parse("10+", &t, NULL);
    CHECK(fs_delta(f, q, &t) == 0);   /* floor: only raises */
    fs_target_parse("50+", &t, NULL); /* floor below target: raises */
    CHECK(near(fs_delta(f, q, &t), 25));
    fs_target_parse("25-", &t, NULL); /* ceiling: only lowers */
    CHECK(near(fs_delta(f, a, &t), -10));
    fs_target_parse("50-", &t, NULL);
    CHECK(fs_delta(f, u, &t) == 0);
    fs_target_parse("1000^", &t, NULL);
    CHECK(fs_delta(f, u, &t) == 0);
    fs_target_parse("20%", &t, NULL);
    CHECK(fs_delta(f, u, &t) == 0);
    /* No target. */
    CHECK(fs_delta(f, u, NULL) == 0);
    t = (struct fs_target){0, FS_MODE_TARGET};
    CHECK(fs_delta(f, u, &t) == 0);
    t = (struct fs_target){50, FS_MODE_NONE};
    CHECK(fs_delta(f, u, &t) == 0);
    fs_destroy(f);

    /* Percent policy: 1 - pct/target. */
    f = share(u, 45, FS_DEDICATEDPS, 1);
    fs_set_window(f, a, 0, 35);
    fs_target_parse("50", &t, NULL);
    CHECK(near(fs_delta(f, u, &t), 1 - 45.0 / 50));
    fs_target_parse("25", &t, NULL);
    CHECK(near(fs_delta(f, a, &t), 1 - 35.0 / 25));
    fs_target_parse("25+", &t, NULL);
    CHECK(fs_delta(f, a, &t) == 0);
    fs_destroy(f);

    /* FS_NONE, or no total usage: no delta. */
    f = share(u, 45, FS_NONE, 0);
    fs_target_parse("50", &t, NULL);
    CHECK(fs_delta(f, u, &t) == 0);
    fs_destroy(f);
    f = fs_create(DAY, 8, 1.0, FS_UTILIZEDPS, 0);
    CHECK(fs_delta(f, u, &t) == 0);
    fs_destroy(f);
    creds_free(&cs);
}

static void test_caps(void)
{
    struct creds cs;
    creds_init(&cs);
    struct cred *u = cred_get(cs.t[CRED_USER], "u");
    struct fs_target t;

    /* Absolute: usage 600 (decayed 400 + 0.5 * 400), cap 1000. */
    struct fs *f = fs_create(DAY, 4, 0.5, FS_DEDICATEDPS, 0);
    fs_set_window(f, u, 0, 400);
    fs_set_window(f, u, 1, 400);
    fs_set_total_window(f, 0, 1000);
    fs_set_total_window(f, 1, 1000); /* total 1500 */
    fs_target_parse("1000^", &t, NULL);
    CHECK_EQ(fs_over_cap(f, u, &t, 400), 0); /* 1000 is not > 1000 */
    CHECK_EQ(fs_over_cap(f, u, &t, 401), 1);
    CHECK_EQ(fs_over_cap(f, cred_get(cs.t[CRED_USER], "new"), &t, 1000), 0);

    /* Relative: (600 + r) / 1500 * 100 > 50 blocks when r > 150. */
    fs_target_parse("50%", &t, NULL);
    CHECK_EQ(fs_over_cap(f, u, &t, 150), 0);
    CHECK_EQ(fs_over_cap(f, u, &t, 151), 1);
    fs_target_parse("30%", &t, NULL);
    CHECK_EQ(fs_over_cap(f, u, &t, 0), 1); /* already at 40 % */

    /* Other modes never block. */
    fs_target_parse("10", &t, NULL);
    CHECK_EQ(fs_over_cap(f, u, &t, 1e9), 0);
    fs_target_parse("10-", &t, NULL);
    CHECK_EQ(fs_over_cap(f, u, &t, 1e9), 0);
    CHECK_EQ(fs_over_cap(f, u, NULL, 1e9), 0);
    fs_destroy(f);

    /* Relative cap with no usage recorded yet: not blocked. */
    f = fs_create(DAY, 4, 0.5, FS_DEDICATEDPS, 0);
    fs_target_parse("50%", &t, NULL);
    CHECK_EQ(fs_over_cap(f, u, &t, 100), 0);
    fs_destroy(f);
    creds_free(&cs);
}

int main(void)
{
    TEST_RUN(test_target_parse);
    TEST_RUN(test_john);
    TEST_RUN(test_decay_table);
    TEST_RUN(test_accrual_roll);
    TEST_RUN(test_delta);
    TEST_RUN(test_caps);
    return TEST_DONE();
}
