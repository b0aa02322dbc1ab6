/* t_nodeprio — node priority functions (PRIORITYF): Maui's documented
 * examples, the default function, every accepted form, the normalised text,
 * evaluation, and every error path including hostile text. */
#include "policy/nprio.h"

#include <ctype.h>

#include "test.h"

#include "util/mem.h"

/* --------------------------------------------------------------- helpers */

/* Parse text; NULL (message printed) on error. */
static struct nprio *parse(const char *text)
{
    struct nprio *p = NULL;
    struct err err = {{0}};
    if (nprio_parse(text, &p, &err) < 0) {
        fprintf(stderr, "    parse(\"%s\"): %s\n", text, err.msg);
        return NULL;
    }
    return p;
}

/* The normalised text of p (static buffer). */
static const char *fmt(const struct nprio *p)
{
    static char buf[512];
    nprio_format(p, buf, sizeof buf);
    return buf;
}

/* The normalised text of parsing text, or "(error)". */
static const char *norm(const char *text)
{
    static char buf[512];
    struct nprio *p = parse(text);
    snprintf(buf, sizeof buf, "%s", p ? fmt(p) : "(error)");
    nprio_free(p);
    return buf;
}

/* The error of parsing text, which must fail and leave *out alone. */
static const char *parse_err(const char *text)
{
    static struct err err;
    struct nprio *p = (struct nprio *)&err; /* must stay as it is */
    err_clear(&err);
    CHECK_EQ(nprio_parse(text, &p, &err), -1);
    CHECK(p == (struct nprio *)&err);
    return err.msg;
}

/* Term values where each term v is worth `base` + v, so a weight shows. */
static void vars_of(double vars[NPRIO_NVARS], double base)
{
    for (int v = 0; v < NPRIO_NVARS; v++)
        vars[v] = base + v;
}

/* ---------------------------------------------------- Maui's examples */

/* Admin Guide / digest §6.4: PRIORITYF='SPEED + .01*AMEM - 10*JOBCOUNT'. */
static void test_guide_speed_amem_jobcount(void)
{
    struct nprio *p = parse("'SPEED + .01*AMEM - 10*JOBCOUNT'");
    CHECK(p != NULL);
    if (!p)
        return;
    CHECK_STR(fmt(p), "SPEED + 0.01*AMEM - 10*JOBCOUNT");
    CHECK(near(nprio_weight(p, NPRIO_SPEED), 1));
    CHECK(near(nprio_weight(p, NPRIO_AMEM), 0.01));
    CHECK(near(nprio_weight(p, NPRIO_JOBCOUNT), -10));
    CHECK(nprio_weight(p, NPRIO_CMEM) == 0);
    CHECK_EQ(nprio_is_dynamic(p), 1);
    double vars[NPRIO_NVARS] = {0};
    vars[NPRIO_SPEED] = 1.5;
    vars[NPRIO_AMEM] = 2048;
    vars[NPRIO_JOBCOUNT] = 2;
    vars[NPRIO_CMEM] = 1e9; /* unused: no effect */
    CHECK(near(nprio_eval(p, vars), 1.5 + 20.48 - 20));
    nprio_free(p);
}

/* PRIORITYF='-1*LOAD + 10*PRIORITY': favour configured priority, avoid load. */
static void test_guide_load_priority(void)
{
    struct nprio *p = parse("'-1*LOAD + 10*PRIORITY'");
    CHECK(p != NULL);
    if (!p)
        return;
    CHECK_STR(fmt(p), "10*PRIORITY - LOAD");
    CHECK_EQ(nprio_is_dynamic(p), 1);
    double vars[NPRIO_NVARS] = {0};
    vars[NPRIO_LOAD] = 0.75;
    vars[NPRIO_PRIORITY] = 3;
    CHECK(near(nprio_eval(p, vars), 29.25));
    nprio_free(p);
}

/* Without PRIORITYF: N.Priority + 100*PREF + 100*RESAFFINITY. */
static void test_default(void)
{
    struct nprio *p = nprio_default();
    CHECK_STR(fmt(p), "PRIORITY + 100*PREF + 100*RESAFFINITY");
    CHECK_EQ(nprio_is_dynamic(p), 1); /* PREF and RESAFFINITY depend on the job */
    double vars[NPRIO_NVARS] = {0};
    vars[NPRIO_PRIORITY] = 7;
    CHECK(near(nprio_eval(p, vars), 7));
    vars[NPRIO_PREF] = 1;
    vars[NPRIO_RESAFFINITY] = -1; /* negative affinity cancels the preference */
    CHECK(near(nprio_eval(p, vars), 7));
    vars[NPRIO_RESAFFINITY] = 1;
    CHECK(near(nprio_eval(p, vars), 207));
    struct nprio *q = parse(fmt(p));
    CHECK(q && strcmp(fmt(q), "PRIORITY + 100*PREF + 100*RESAFFINITY") == 0);
    nprio_free(q);
    nprio_free(p);
}

/* Static functions can be cached per node; dynamic ones not. */
static void test_dynamic(void)
{
    static const struct {
        const char *text;
        int dynamic;
    } cases[] = {
        {"CDISK + CMEM + CPROCS + CSWAP + PRIORITY + SPEED", 0},
        {"PRIORITY * 2", 0},
        {"5", 0},
        {"AMEM - AMEM + SPEED", 0}, /* folds to SPEED */
        {"ADISK", 1},
        {"0.5*AMEM", 1},
        {"ASWAP", 1},
        {"APROCS", 1},
        {"LOAD", 1},
        {"JOBCOUNT", 1},
        {"USAGE", 1},
        {"PREF", 1},
        {"RESAFFINITY", 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct nprio *p = parse(cases[i].text);
        CHECK(p != NULL);
        if (p && nprio_is_dynamic(p) != cases[i].dynamic)
            fprintf(stderr, "    %s: dynamic %d\n", cases[i].text, nprio_is_dynamic(p));
        CHECK(p && nprio_is_dynamic(p) == cases[i].dynamic);
        nprio_free(p);
    }
}

/* ------------------------------------------------------- accepted forms */

static void test_forms(void)
{
    static const struct {
        const char *text, *norm;
    } cases[] = {
        {"AMEM*0.01", "0.01*AMEM"},
        {"0.01 * AMEM", "0.01*AMEM"},
        {"10 JOBCOUNT", "10*JOBCOUNT"},
        {"10JOBCOUNT", "10*JOBCOUNT"},
        {"-10JOBCOUNT", "-10*JOBCOUNT"},
        {"2*(CMEM - AMEM) + 1", "2*CMEM - 2*AMEM + 1"},
        {"2(CMEM - AMEM)", "2*CMEM - 2*AMEM"},
        {"(CMEM + CSWAP)*0.5", "0.5*CMEM + 0.5*CSWAP"},
        {"2*3*SPEED*0.5", "3*SPEED"},
        {"-(-SPEED)", "SPEED"},
        {"+SPEED", "SPEED"},
        {"10*-JOBCOUNT", "-10*JOBCOUNT"},
        {"speed + Amem", "SPEED + AMEM"},
        {"\"PRIORITY * 2\"", "2*PRIORITY"},
        {"  'SPEED'  ", "SPEED"},
        {"'  SPEED  '", "SPEED"},
        {"\tSPEED\t+\tLOAD ", "SPEED + LOAD"},
        {"1e3*CMEM", "1000*CMEM"},
        {"1.5E-2*CMEM", "0.015*CMEM"},
        {"2.*CMEM", "2*CMEM"},
        {"5", "5"},
        {"-5", "-5"},
        {"SPEED + 5 - 2", "SPEED + 3"},
        {"AMEM - AMEM", "0"},
        {"0*AMEM", "0"},
        {"-0*AMEM - 0", "0"},
        {"(((SPEED)))", "SPEED"},
        {"1e-400*CMEM", "0"}, /* underflows to 0: harmless */
        {"RESAFFINITY*100 + PREF*100 + PRIORITY", "PRIORITY + 100*PREF + 100*RESAFFINITY"},
        {"1e15*AMEM", "1e+15*AMEM"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *got = norm(cases[i].text);
        if (strcmp(got, cases[i].norm) != 0)
            fprintf(stderr, "    \"%s\" -> \"%s\", expected \"%s\"\n", cases[i].text, got,
                    cases[i].norm);
        CHECK(strcmp(got, cases[i].norm) == 0);
    }
}

/* Every term name, in any case, reads back under its own name. */
static void test_names(void)
{
    for (int v = 0; v < NPRIO_NVARS; v++) {
        const char *name = nprio_var_name((enum nprio_var)v);
        CHECK(name != NULL);
        if (!name)
            continue;
        CHECK_STR(norm(name), name);
        char lower[32];
        size_t n = strlen(name);
        for (size_t k = 0; k <= n; k++)
            lower[k] = (char)tolower((unsigned char)name[k]);
        struct nprio *p = parse(lower);
        CHECK(p && nprio_weight(p, (enum nprio_var)v) == 1);
        nprio_free(p);
    }
    CHECK_STR(nprio_var_name(NPRIO_CDISK), "CDISK");
    CHECK_STR(nprio_var_name(NPRIO_RESAFFINITY), "RESAFFINITY");
    CHECK(nprio_var_name(NPRIO_NVARS) == NULL);
    CHECK(nprio_var_name((enum nprio_var) - 1) == NULL);
}

/* Every term weighted by its rank: the sum shows each weight lands on its term. */
static void test_eval_all_terms(void)
{
    struct nprio *p = parse("CDISK + 2*CMEM + 3*CPROCS + 4*CSWAP + 5*PRIORITY + 6*SPEED + "
                            "7*ADISK + 8*AMEM + 9*ASWAP + 10*APROCS + 11*LOAD + 12*JOBCOUNT + "
                            "13*USAGE + 14*PREF + 15*RESAFFINITY + 100");
    CHECK(p != NULL);
    if (!p)
        return;
    double vars[NPRIO_NVARS], want = 100;
    vars_of(vars, 1);
    for (int v = 0; v < NPRIO_NVARS; v++)
        want += (v + 1) * (1.0 + v);
    CHECK(near(nprio_eval(p, vars), want));
    CHECK(near(nprio_weight(p, NPRIO_USAGE), 13));
    CHECK(nprio_weight(p, NPRIO_NVARS) == 0);
    /* terms of weight 0 are not read: NaN there does not spoil the sum */
    struct nprio *q = parse("SPEED");
    vars[NPRIO_LOAD] = NAN;
    CHECK(q && near(nprio_eval(q, vars), vars[NPRIO_SPEED]));
    nprio_free(q);
    nprio_free(p);
}

/* format -> parse -> format is a fixed point, also for weights that do not
 * print exactly. */
static void test_round_trip(void)
{
    static const char *const texts[] = {
        "0.1*3*AMEM + 0.3*CMEM",
        "SPEED + .01*AMEM - 10*JOBCOUNT",
        "-LOAD",
        "123456789.123456789*CDISK - 0.000001",
        "1e-7*AMEM + 1e14",
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        char once[512];
        snprintf(once, sizeof once, "%s", norm(texts[i]));
        CHECK(strcmp(once, "(error)") != 0);
        CHECK_STR(norm(once), once);
    }
}

static void test_format_buffer(void)
{
    struct nprio *p = parse("SPEED + .01*AMEM - 10*JOBCOUNT");
    CHECK(p != NULL);
    if (!p)
        return;
    const char *full = "SPEED + 0.01*AMEM - 10*JOBCOUNT";
    int n = (int)strlen(full);
    CHECK_EQ(nprio_format(p, NULL, 0), n);
    char small[8];
    memset(small, 'x', sizeof small);
    CHECK_EQ(nprio_format(p, small, sizeof small), n);
    CHECK_STR(small, "SPEED +");
    char one[1] = {'x'};
    CHECK_EQ(nprio_format(p, one, 1), n);
    CHECK_EQ(one[0], '\0');
    char exact[64];
    CHECK_EQ(nprio_format(p, exact, (size_t)n + 1), n);
    CHECK_STR(exact, full);
    nprio_free(p);
    nprio_free(NULL); /* no-op */
}

/* --------------------------------------------------------------- errors */

static void test_errors(void)
{
    CHECK_STR(parse_err(""), "PRIORITYF: empty expression");
    CHECK_STR(parse_err("   "), "PRIORITYF: empty expression");
    CHECK_STR(parse_err("''"), "PRIORITYF: empty expression");
    CHECK_STR(parse_err("SPEED+FOO"), "PRIORITYF: unknown term 'FOO' at column 7");
    CHECK_STR(parse_err("'SPEED + FOO'"), "PRIORITYF: unknown term 'FOO' at column 10");
    CHECK_STR(parse_err("inf*AMEM"), "PRIORITYF: unknown term 'inf' at column 1");
    CHECK_STR(parse_err("nan"), "PRIORITYF: unknown term 'nan' at column 1");
    CHECK_STR(parse_err("0x10*AMEM"), "PRIORITYF: unknown term 'x10' at column 2");
    CHECK_STR(parse_err("SPEED +"),
              "PRIORITYF: unexpected end of text at column 8 (expected a number, a term or '(')");
    CHECK_STR(parse_err("AMEM*"),
              "PRIORITYF: unexpected end of text at column 6 (expected a number, a term or '(')");
    CHECK_STR(parse_err("* SPEED"),
              "PRIORITYF: unexpected '*' at column 1 (expected a number, a term or '(')");
    CHECK_STR(parse_err("SPEED + * 3"),
              "PRIORITYF: unexpected '*' at column 9 (expected a number, a term or '(')");
    CHECK_STR(parse_err("."), "PRIORITYF: unexpected '.' at column 1 (expected a number, a term "
                              "or '(')");
    CHECK_STR(parse_err("SPEED LOAD"), "PRIORITYF: missing operator before 'LOAD' at column 7");
    CHECK_STR(parse_err("2 3"), "PRIORITYF: missing operator before '3' at column 3");
    CHECK_STR(parse_err("1.2.3"), "PRIORITYF: missing operator before '.3' at column 4");
    CHECK_STR(parse_err("AMEM 2"), "PRIORITYF: missing operator before '2' at column 6");
    CHECK_STR(parse_err("SPEED)"), "PRIORITYF: ')' at column 6 has no '('");
    CHECK_STR(parse_err("2*(SPEED + (LOAD)"), "PRIORITYF: '(' at column 3 is not closed");
    CHECK_STR(parse_err("()"),
              "PRIORITYF: unexpected ')' at column 2 (expected a number, a term or '(')");
    CHECK_STR(parse_err("AMEM/2"), "PRIORITYF: unexpected '/' at column 5 (expected an operator)");
    CHECK_STR(parse_err("AMEM*CMEM"),
              "PRIORITYF: product of two terms at column 6 (a weight must be a number)");
    CHECK_STR(parse_err("(AMEM + 1) * (CMEM - 1)"),
              "PRIORITYF: product of two terms at column 14 (a weight must be a number)");
    CHECK_STR(parse_err("'SPEED"), "PRIORITYF: unbalanced quote at column 1");
    CHECK_STR(parse_err("'SPEED\""), "PRIORITYF: unbalanced quote at column 1");
    CHECK_STR(parse_err("'"), "PRIORITYF: unbalanced quote at column 1");
    CHECK_STR(parse_err("SPEED'"), "PRIORITYF: unexpected ''' at column 6 (expected an operator)");
    CHECK_STR(parse_err("SPEED + \x01"),
              "PRIORITYF: unexpected byte 0x01 at column 9 (expected a number, a term or '(')");
    CHECK_STR(parse_err("\xc3\xa9"),
              "PRIORITYF: unexpected byte 0xc3 at column 1 (expected a number, a term or '(')");
    CHECK_STR(parse_err("SPEED, LOAD"),
              "PRIORITYF: unexpected ',' at column 6 (expected an operator)");
}

/* Numbers and weights: bounded, never inf or NaN. */
static void test_range(void)
{
    CHECK_STR(parse_err("1e16*AMEM"),
              "PRIORITYF: number '1e16' out of range at column 1 (at most 1e+15)");
    CHECK_STR(parse_err("SPEED + 1e400"),
              "PRIORITYF: number '1e400' out of range at column 9 (at most 1e+15)");
    CHECK_STR(parse_err("1e15*1e15*AMEM"),
              "PRIORITYF: weight out of range at column 6 (at most 1e+15)");
    CHECK_STR(parse_err("AMEM*1e15*10"),
              "PRIORITYF: weight out of range at column 11 (at most 1e+15)");
    CHECK_STR(parse_err("1e15*AMEM + 1e15*AMEM"),
              "PRIORITYF: weight out of range at column 11 (at most 1e+15)");
    CHECK_STR(parse_err("1e15 + 1"), "PRIORITYF: weight out of range at column 6 (at most 1e+15)");
    char digits[200];
    memset(digits, '9', sizeof digits - 1);
    digits[sizeof digits - 1] = '\0';
    CHECK_HAS(parse_err(digits), "PRIORITYF: number '9999999999");
    CHECK_HAS(parse_err(digits), "...' too long at column 1");
    CHECK(strlen(parse_err(digits)) < 120);
    CHECK_STR(norm("-1e15*AMEM + 1e15"), "-1e+15*AMEM + 1e+15");
}

/* Nesting: NPRIO_MAX_DEPTH levels are fine, one more is an error, and a
 * hostile 100,000 levels is the same error (no deep recursion). */
static void test_depth(void)
{
    enum { HUGE_DEPTH = 100000 };
    char *text = xmalloc(2 * HUGE_DEPTH + 16);
    for (int d = NPRIO_MAX_DEPTH; d <= NPRIO_MAX_DEPTH + 1; d++) {
        size_t n = 0;
        for (int i = 0; i < d; i++)
            text[n++] = '(';
        memcpy(text + n, "SPEED", 5);
        n += 5;
        for (int i = 0; i < d; i++)
            text[n++] = ')';
        text[n] = '\0';
        if (d == NPRIO_MAX_DEPTH)
            CHECK_STR(norm(text), "SPEED");
        else
            CHECK_STR(parse_err(text), "PRIORITYF: nested deeper than 32 levels at column 33");
    }
    memset(text, '(', HUGE_DEPTH);
    text[HUGE_DEPTH] = '\0';
    CHECK_STR(parse_err(text), "PRIORITYF: nested deeper than 32 levels at column 33");
    memset(text, '-', HUGE_DEPTH);
    strcpy(text + HUGE_DEPTH, "SPEED");
    CHECK_STR(parse_err(text), "PRIORITYF: nested deeper than 32 levels at column 33");
    CHECK_STR(norm("-(-(-(-SPEED)))"), "SPEED");
    free(text);
}

/* Long text: linear work, folded to one weight per term; long words are
 * quoted shortly in messages. */
static void test_long_text(void)
{
    enum { TERMS = 100000 };
    size_t cap = (size_t)TERMS * 24 + 64, n = 0; /* 17 bytes a term */
    char *text = xmalloc(cap);
    for (int i = 0; i < TERMS; i++)
        n += (size_t)snprintf(text + n, cap - n, "%sSPEED + 2*LOAD", i ? " - " : "");
    struct nprio *p = parse(text);
    CHECK(p != NULL);
    if (p) {
        CHECK(near(nprio_weight(p, NPRIO_SPEED), 2 - TERMS)); /* 1 - (TERMS - 1) */
        CHECK(near(nprio_weight(p, NPRIO_LOAD), 2 * TERMS));
    }
    nprio_free(p);
    memset(text, 'A', 5000);
    text[5000] = '\0';
    const char *msg = parse_err(text);
    CHECK_HAS(msg, "PRIORITYF: unknown term 'AAAAAAAAAA");
    CHECK_HAS(msg, "...' at column 1");
    CHECK(strlen(msg) < 100);
    free(text);
}

int main(void)
{
    TEST_RUN(test_guide_speed_amem_jobcount);
    TEST_RUN(test_guide_load_priority);
    TEST_RUN(test_default);
    TEST_RUN(test_dynamic);
    TEST_RUN(test_forms);
    TEST_RUN(test_names);
    TEST_RUN(test_eval_all_terms);
    TEST_RUN(test_round_trip);
    TEST_RUN(test_format_buffer);
    TEST_RUN(test_errors);
    TEST_RUN(test_range);
    TEST_RUN(test_depth);
    TEST_RUN(test_long_text);
    return TEST_DONE();
}
