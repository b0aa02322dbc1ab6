/*
 * t_arange — job array ranges (util/arange): Torque's -t lists and ranges
 * with a slot limit, PBS Pro's -J with a step, the canonical form written
 * back, and every refusal (a range that runs down, %0, garbage, an index
 * twice, more tasks than the bound) with nothing left allocated.
 */
#include "cfg/cfg.h"
#include "test.h"
#include "util/arange.h"

/* s parsed as Torque's -t, written back. */
static char *torque(const char *s)
{
    struct arange a;
    struct err e;
    if (arange_parse_torque(s, ARANGE_DEFAULT_MAX, &a, &e) < 0)
        return strdup(e.msg);
    char *f = arange_format(&a);
    arange_free(&a);
    return f;
}

static int torque_is(const char *s, const char *want)
{
    char *f = torque(s);
    int ok = strcmp(f, want) == 0;
    if (!ok)
        fprintf(stderr, "  '%s' gave '%s', not '%s'\n", s, f, want);
    free(f);
    return ok;
}

static int torque_fails(const char *s, size_t max, const char *want)
{
    struct arange a = {0};
    struct err e;
    int rc = arange_parse_torque(s, max, &a, &e);
    if (rc == 0 || a.idx || a.n) {
        arange_free(&a);
        return 0;
    }
    if (!strstr(e.msg, want)) {
        fprintf(stderr, "  '%s': message '%s' lacks '%s'\n", s, e.msg, want);
        return 0;
    }
    return 1;
}

static void test_torque_forms(void)
{
    struct arange a;
    CHECK_EQ(arange_parse_torque("1-100", ARANGE_DEFAULT_MAX, &a, NULL), 0);
    CHECK_EQ(a.n, 100);
    CHECK_EQ(a.idx[0], 1);
    CHECK_EQ(a.idx[99], 100);
    CHECK_EQ(a.slots, 0);
    arange_free(&a);
    CHECK_EQ(arange_parse_torque("1,3,5-9%2", ARANGE_DEFAULT_MAX, &a, NULL), 0);
    CHECK_EQ(a.n, 7);
    CHECK_EQ(a.slots, 2);
    CHECK(arange_has(&a, 3) && arange_has(&a, 9) && !arange_has(&a, 4) && !arange_has(&a, 10));
    arange_free(&a);
    CHECK(torque_is("0-299%5", "0-299%5"));
    CHECK(torque_is("7", "7"));
    CHECK(torque_is("9,1,2,3,5", "1-3,5,9")); /* sorted, runs joined */
    CHECK(torque_is("4-4", "4"));
    CHECK(torque_is("0,2147483647", "0,2147483647"));
}

static void test_torque_refused(void)
{
    CHECK(torque_fails("5-1", 100, "runs down"));
    CHECK(torque_fails("1-10%0", 100, "%0"));
    CHECK(torque_fails("", 100, "empty"));
    CHECK(torque_fails("abc", 100, "bad array index 'abc'"));
    CHECK(torque_fails("1-", 100, "bad array index"));
    CHECK(torque_fails("-3", 100, "bad array index"));
    CHECK(torque_fails("1,,2", 100, "bad array index"));
    CHECK(torque_fails("1,", 100, "bad array index"));
    CHECK(torque_fails(" 1", 100, "bad array index"));
    CHECK(torque_fails("1-10:2", 100, "bad array index")); /* steps are PBS Pro's */
    CHECK(torque_fails("1-10%", 100, "bad slot limit"));
    CHECK(torque_fails("1-10%x", 100, "bad slot limit"));
    CHECK(torque_fails("1-10%2%3", 100, "bad slot limit"));
    CHECK(torque_fails("2147483648", 100, "bad array index"));
    CHECK(torque_fails("1-5,3", 100, "index 3 is given twice"));
    CHECK(torque_fails("1-101", 100, "more than 100 tasks (MAXJOBARRAYSIZE 100)"));
    CHECK(torque_fails("0-2000000000", ARANGE_DEFAULT_MAX, "more than 10000 tasks"));
    CHECK(torque_fails("1-60,61-120", 100, "more than 100"));
    CHECK(torque_fails("1\x1b[2J", 100, "'1?[2J'")); /* no raw control in a message */
    struct arange a;
    CHECK_EQ(arange_parse_torque("1-100", 100, &a, NULL), 0); /* the bound itself fits */
    arange_free(&a);
    arange_free(NULL);
    arange_free(&a); /* emptied: a second free is harmless */
}

static void test_pbs(void)
{
    struct arange a;
    struct err e;
    CHECK_EQ(arange_parse_pbs("1-10:3", ARANGE_DEFAULT_MAX, &a, NULL), 0);
    CHECK_EQ(a.n, 4); /* 1 4 7 10 */
    CHECK(arange_has(&a, 7) && !arange_has(&a, 8));
    char *f = arange_format(&a);
    CHECK_STR(f, "1,4,7,10");
    free(f);
    arange_free(&a);
    CHECK_EQ(arange_parse_pbs("0-9%3", ARANGE_DEFAULT_MAX, &a, NULL), 0);
    CHECK_EQ(a.n, 10);
    CHECK_EQ(a.slots, 3);
    arange_free(&a);
    CHECK_EQ(arange_parse_pbs("5", 100, &a, &e), -1);
    CHECK(strstr(e.msg, "A-B") != NULL);
    CHECK_EQ(arange_parse_pbs("5-5", 100, &a, &e), -1);
    CHECK(strstr(e.msg, "one index") != NULL);
    CHECK(a.idx == NULL);
    CHECK_EQ(arange_parse_pbs("1-3,5", 100, &a, &e), -1); /* no lists in -J */
    CHECK_EQ(arange_parse_pbs("1-10:0", 100, &a, &e), -1);
    CHECK(strstr(e.msg, "step") != NULL);
    CHECK_EQ(arange_parse_pbs("9-1", 100, &a, &e), -1);
    CHECK_EQ(arange_parse_pbs("1-1000:2", 100, &a, &e), -1);
    CHECK(strstr(e.msg, "MAXJOBARRAYSIZE") != NULL);
    CHECK_EQ(arange_parse_pbs("1-200:2", 100, &a, &e), 0); /* 100 tasks */
    CHECK_EQ(a.n, 100);
    arange_free(&a);
}

/* Writing back and parsing again gives the same indices, for many lists. */
static void test_roundtrip(void)
{
    int bad = 0;
    unsigned seed = 7;
    for (int t = 0; t < 300; t++) {
        struct arange a, b;
        char spec[256];
        size_t len = 0;
        unsigned base = 0;
        for (int k = 0; k < 1 + t % 6; k++) {
            seed = seed * 1103515245u + 12345u;
            unsigned lo = base + (seed >> 16) % 5, hi = lo + (seed >> 8) % 4;
            len += (size_t)snprintf(spec + len, sizeof spec - len, "%s%u-%u", k ? "," : "", lo, hi);
            base = hi + 1;
        }
        if (arange_parse_torque(spec, 1000, &a, NULL) < 0) {
            bad++;
            continue;
        }
        char *f = arange_format(&a);
        if (arange_parse_torque(f, 1000, &b, NULL) < 0 || b.n != a.n ||
            memcmp(a.idx, b.idx, a.n * sizeof *a.idx) != 0)
            bad++;
        else
            arange_free(&b);
        free(f);
        arange_free(&a);
    }
    CHECK_EQ(bad, 0);
}

/* qsub's bounds are the parameter's: its default and its top. */
static void test_parameter(void)
{
    struct cfg *c = cfg_create();
    CHECK_EQ(cfg_int(c, "MAXJOBARRAYSIZE", NULL), ARANGE_DEFAULT_MAX);
    struct err e;
    CHECK(cfg_load_string(c, "MAXJOBARRAYSIZE 1000001\n", "t.cfg", &e) < 0);
    CHECK(cfg_load_string(c, "MAXJOBARRAYSIZE 0\n", "t.cfg", &e) < 0);
    CHECK(cfg_load_string(c, "MAXJOBARRAYSIZE 1000000\n", "t.cfg", &e) == 0);
    CHECK_EQ(cfg_int(c, "MAXJOBARRAYSIZE", NULL), ARANGE_LIMIT_MAX);
    cfg_destroy(c);
}

int main(void)
{
    TEST_RUN(test_parameter);
    TEST_RUN(test_torque_forms);
    TEST_RUN(test_torque_refused);
    TEST_RUN(test_pbs);
    TEST_RUN(test_roundtrip);
    return TEST_DONE();
}
