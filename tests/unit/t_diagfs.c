/*
 * Tests for diagnose -f (src/cmd/diagfs.c) through cmd_run: the 3.2 docs
 * sample byte for byte, the seed's John example (windows 60, 0, 10, 50 of
 * totals 110, 125, 100, 150, decay 0.5: 31.79% of the decayed usage) as text
 * and JSON, the `*` rule per target mode, which objects are listed, section
 * order, and the option handling in diagnose.
 *
 * Each scenario sets the fairshare ledger by hand (fs_set_window, targets)
 * on an empty scheduler; no job runs.
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "engine/engine.h"
#include "policy/fs.h"
#include "test.h"

#define T0 (100L * 86400 + 5000) /* inside a window, whatever the interval */

/* ---- helpers ---- */

static struct sched *make_sched(struct fs_params p)
{
    struct sched_policy pol;
    sched_policy_default(&pol);
    pol.fs = p;
    struct sched *s = sched_create(&pol, NULL);
    fs_advance(sched_fs(s), T0);
    return s;
}

static struct cred *cred(struct sched *s, enum cred_kind k, const char *name)
{
    return cred_get(sched_creds(s, k), name);
}

static void target(struct sched *s, enum cred_kind k, const char *name, double v, enum fs_mode m)
{
    fs_set_target(sched_fs(s), cred(s, k, name), (struct fs_target){v, m});
}

/* Run line; NULL (and a message) when it fails. Caller frees. */
static char *run(struct sched *s, const char *line)
{
    struct cmd_ctx c = {.s = s, .now = T0};
    struct err e = {{0}};
    char *out = NULL;
    if (cmd_run(&c, line, &out, &e) < 0) {
        fprintf(stderr, "    %s: %s\n", line, e.msg);
        return NULL;
    }
    return out;
}

static json_t *run_json(struct sched *s, const char *line)
{
    char *out = run(s, line);
    json_t *o = out ? json_loads(out, 0, NULL) : NULL;
    free(out);
    return o;
}

/* The line of text that starts with prefix (after a newline), as a copy in
 * buf; "" when there is none. */
static const char *line_of(const char *text, const char *prefix, char *buf, size_t n)
{
    buf[0] = '\0';
    for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
        if (strncmp(p, prefix, strlen(prefix)) == 0) {
            snprintf(buf, n, "%.*s", (int)strcspn(p, "\n"), p);
            break;
        }
    return buf;
}

/* The seed's example: user john with windows 60, 0, 10, 50 (x unit) of
 * totals 110, 125, 100, 150, decay 0.5, depth 4, daily windows. */
static struct sched *john_scenario(double unit)
{
    struct sched *s = make_sched(
        (struct fs_params){.policy = FS_DEDICATEDPS, .interval = 86400, .depth = 4, .decay = 0.5});
    struct fs *f = sched_fs(s);
    const double john[] = {60, 0, 10, 50}, total[] = {110, 125, 100, 150};
    struct cred *j = cred(s, CRED_USER, "john");
    for (int i = 0; i < 4; i++) {
        fs_set_window(f, j, i, john[i] * unit);
        fs_set_total_window(f, i, total[i] * unit);
    }
    target(s, CRED_USER, "john", 10, FS_MODE_TARGET);
    return s;
}

/* ---- the docs sample ---- */

/* Maui 3.2's sample (digest §4.6): the default parameters, FSPOLICY off, one
 * group target and no usage at all. */
static void test_docs_sample(void)
{
    struct sched *s = make_sched(
        (struct fs_params){.policy = FS_NONE, .interval = 43200, .depth = 8, .decay = 1.0});
    target(s, CRED_GROUP, "dallas", 15, FS_MODE_TARGET);
    cred(s, CRED_USER, "nobody"); /* exists, no target, no usage: not listed */
    char *out = run(s, "diagnose -f");
    CHECK_STR(out, "FairShare Information\n"
                   "\n"
                   "Depth: 8 intervals   Interval Length: 12:00:00   Decay Rate: 1.00\n"
                   "\n"
                   "FS Policy: [NONE]\n"
                   "System FS Settings:  Target Usage: 0.00    Flags: 0\n"
                   "\n"
                   "FSInterval        %     Target\n"
                   "FSWeight       ------- -------\n"
                   "TotalUsage      100.00 -------\n"
                   "\n"
                   "GROUP\n"
                   "-------------\n"
                   "dallas            0.00  15.00\n");
    free(out);

    json_t *o = run_json(s, "diagnose -f --format=json");
    CHECK_STR(json_string_value(json_object_get(o, "policy")), "NONE");
    CHECK_EQ(json_integer_value(json_object_get(o, "interval")), 43200);
    CHECK_EQ(json_integer_value(json_object_get(o, "depth")), 8);
    CHECK(near(json_real_value(json_object_get(o, "decay")), 1.0));
    json_t *creds = json_object_get(o, "credentials");
    CHECK_EQ(json_array_size(creds), 1);
    json_t *d = json_array_get(creds, 0);
    CHECK_STR(json_string_value(json_object_get(d, "type")), "group");
    CHECK_STR(json_string_value(json_object_get(d, "name")), "dallas");
    CHECK(near(json_real_value(json_object_get(d, "target")), 15));
    CHECK_STR(json_string_value(json_object_get(d, "mode")), "target");
    CHECK(near(json_real_value(json_object_get(d, "usage")), 0));
    CHECK_EQ(json_array_size(json_object_get(d, "windows")), 8);
    json_decref(o);
    sched_destroy(s);
}

/* ---- the John example ---- */

static void test_john_text(void)
{
    struct sched *s = john_scenario(3600); /* processor-hours in the table */
    char *out = run(s, "diagnose -f");
    CHECK_STR(out, "FairShare Information\n"
                   "\n"
                   "Depth: 4 intervals   Interval Length: 1:00:00:00   Decay Rate: 0.50\n"
                   "\n"
                   "FS Policy: DEDICATEDPS\n"
                   "System FS Settings:  Target Usage: 0.00    Flags: 0\n"
                   "\n"
                   "FSInterval        %     Target       0       1       2       3\n"
                   "FSWeight       ------- -------  1.0000  0.5000  0.2500  0.1250\n"
                   "TotalUsage      100.00 -------   110.0   125.0   100.0   150.0\n"
                   "\n"
                   "USER\n"
                   "-------------\n"
                   "john*            31.79  10.00    54.55 -------   10.00   33.33\n");
    free(out);
    sched_destroy(s);
}

/* as_of: the time the windows are counted up to, the ledger's last advance
 * (the daemon's fairshare check compares two answers by it). */
static void test_json_as_of(void)
{
    struct sched *s = make_sched(
        (struct fs_params){.policy = FS_DEDICATEDPS, .interval = 86400, .depth = 4, .decay = 0.5});
    long t0 = fs_now(sched_fs(s));
    fs_advance(sched_fs(s), t0 + 5000);
    json_t *o = run_json(s, "diagnose -f --format=json");
    CHECK_EQ(json_integer_value(json_object_get(o, "as_of")), t0 + 5000);
    json_decref(o);
    sched_destroy(s);
}

static void test_john_json(void)
{
    struct sched *s = john_scenario(1);
    json_t *o = run_json(s, "diagnose -f --format=json");
    CHECK(json_is_object(o));
    CHECK_STR(json_string_value(json_object_get(o, "policy")), "DEDICATEDPS");
    CHECK_EQ(json_integer_value(json_object_get(o, "interval")), 86400);
    CHECK_EQ(json_integer_value(json_object_get(o, "depth")), 4);
    CHECK(near(json_real_value(json_object_get(o, "decay")), 0.5));
    json_t *creds = json_object_get(o, "credentials");
    CHECK_EQ(json_array_size(creds), 1);
    json_t *j = json_array_get(creds, 0);
    CHECK_STR(json_string_value(json_object_get(j, "type")), "user");
    CHECK_STR(json_string_value(json_object_get(j, "name")), "john");
    CHECK(near(json_real_value(json_object_get(j, "target")), 10));
    CHECK_STR(json_string_value(json_object_get(j, "mode")), "target");
    /* (60 + 10/4 + 50/8) / (110 + 125/2 + 100/4 + 150/8) = 68.75 / 216.25 */
    double usage = json_real_value(json_object_get(j, "usage"));
    CHECK(near(usage, 100.0 * 68.75 / 216.25));
    CHECK(fabs(usage - 31.79) < 0.005);
    json_t *w = json_object_get(j, "windows");
    const double want[] = {60, 0, 10, 50};
    CHECK_EQ(json_array_size(w), 4);
    for (size_t i = 0; i < 4; i++)
        CHECK(near(json_number_value(json_array_get(w, i)), want[i]));
    /* Exactly these keys, in this order. */
    const char *keys[] = {"policy", "interval", "depth", "decay", "as_of", "credentials"};
    size_t k = 0;
    const char *key;
    json_t *v;
    json_object_foreach(o, key, v)
    {
        CHECK(k < 6 && strcmp(key, keys[k]) == 0);
        k++;
    }
    CHECK_EQ(k, 6);
    CHECK_EQ(json_object_size(j), 6);
    json_decref(o);
    sched_destroy(s);
}

/* ---- the `*` rule ---- */

/* Nine users sharing one window of 10000 units: usage/100 percent each. */
static struct sched *modes_scenario(void)
{
    struct sched *s = make_sched(
        (struct fs_params){.policy = FS_DEDICATEDPS, .interval = 3600, .depth = 2, .decay = 1});
    struct fs *f = sched_fs(s);
    static const struct {
        const char *name;
        double usage, target;
        enum fs_mode mode;
    } u[] = {
        {"fl_low", 1000, 20, FS_MODE_FLOOR},  /* 10% under a 20% floor: * */
        {"fl_ok", 2500, 20, FS_MODE_FLOOR},   /* 25% over it */
        {"ce_hi", 1500, 10, FS_MODE_CEILING}, /* 15% over a 10% ceiling: * */
        {"ce_ok", 500, 10, FS_MODE_CEILING},  /* 5% under it */
        {"tg_in", 1400, 10, FS_MODE_TARGET},  /* 14% of 10: within 5 */
        {"tg_out", 1600, 10, FS_MODE_TARGET}, /* 16%: 6 over: * */
        {"tg_lo", 400, 10, FS_MODE_TARGET},   /* 4%: 6 under: * */
        {"cap", 600, 1, FS_MODE_CAP},         /* caps never get a * */
        {"pcap", 500, 1, FS_MODE_PCAP},
    };
    for (size_t i = 0; i < sizeof u / sizeof u[0]; i++) {
        fs_set_window(f, cred(s, CRED_USER, u[i].name), 0, u[i].usage);
        target(s, CRED_USER, u[i].name, u[i].target, u[i].mode);
    }
    fs_set_total_window(f, 0, 10000);
    return s;
}

static void test_star_rule(void)
{
    struct sched *s = modes_scenario();
    char *out = run(s, "diagnose -f");
    char b[256];
    CHECK_STR(line_of(out, "fl_low", b, sizeof b), "fl_low*          10.00  20.00+   10.00");
    CHECK_STR(line_of(out, "fl_ok", b, sizeof b), "fl_ok            25.00  20.00+   25.00");
    CHECK_STR(line_of(out, "ce_hi", b, sizeof b), "ce_hi*           15.00  10.00-   15.00");
    CHECK_STR(line_of(out, "ce_ok", b, sizeof b), "ce_ok             5.00  10.00-    5.00");
    CHECK_STR(line_of(out, "tg_in", b, sizeof b), "tg_in            14.00  10.00    14.00");
    CHECK_STR(line_of(out, "tg_out", b, sizeof b), "tg_out*          16.00  10.00    16.00");
    CHECK_STR(line_of(out, "tg_lo", b, sizeof b), "tg_lo*            4.00  10.00     4.00");
    CHECK_STR(line_of(out, "cap ", b, sizeof b), "cap               6.00   1.00^    6.00");
    CHECK_STR(line_of(out, "pcap", b, sizeof b), "pcap              5.00   1.00%    5.00");
    free(out);

    json_t *o = run_json(s, "diagnose -f --format=json");
    json_t *creds = json_object_get(o, "credentials");
    const char *modes[] = {"floor",  "floor",  "ceiling", "ceiling", "target",
                           "target", "target", "cap",     "pcap"};
    CHECK_EQ(json_array_size(creds), 9);
    for (size_t i = 0; i < 9; i++)
        CHECK_STR(json_string_value(json_object_get(json_array_get(creds, i), "mode")), modes[i]);
    json_decref(o);
    sched_destroy(s);
}

/* A window's share is 100% only when the object used all of it; the cell
 * is `-------` when it used none. Windows without total are no column. */
static void test_window_columns(void)
{
    struct sched *s = make_sched(
        (struct fs_params){.policy = FS_DEDICATEDPS, .interval = 3600, .depth = 3, .decay = 0.8});
    struct fs *f = sched_fs(s);
    fs_set_window(f, cred(s, CRED_USER, "ann"), 2, 3600);
    fs_set_window(f, cred(s, CRED_USER, "bob"), 0, 7200);
    fs_set_window(f, cred(s, CRED_USER, "bob"), 2, 3600);
    fs_set_total_window(f, 0, 7200);
    fs_set_total_window(f, 2, 7200);
    fs_set_window(f, cred(s, CRED_USER, "old"), 5, 100); /* past FSDEPTH: no column */
    fs_set_total_window(f, 5, 100);
    char *out = run(s, "diagnose -f");
    char b[256];
    CHECK_STR(line_of(out, "FSInterval", b, sizeof b),
              "FSInterval        %     Target       0       2");
    CHECK_STR(line_of(out, "FSWeight", b, sizeof b),
              "FSWeight       ------- -------  1.0000  0.6400");
    CHECK_STR(line_of(out, "TotalUsage", b, sizeof b),
              "TotalUsage      100.00 -------     2.0     2.0");
    /* ann: 3600 x 0.64 of 7200 + 7200 x 0.64 */
    CHECK_STR(line_of(out, "ann", b, sizeof b), "ann              19.51 ------- -------   50.00");
    CHECK_STR(line_of(out, "bob", b, sizeof b), "bob              80.49 -------  100.00   50.00");
    /* old's usage is past FSDEPTH, where it no longer counts: not listed. */
    CHECK_STR(line_of(out, "old", b, sizeof b), "");
    free(out);
    sched_destroy(s);
}

/* ---- which objects, in which order ---- */

static void test_listing(void)
{
    struct sched *s = make_sched(
        (struct fs_params){.policy = FS_UTILIZEDPS, .percent = 1, .interval = 3600, .depth = 1});
    struct fs *f = sched_fs(s);
    const struct cred *all[CRED_NKINDS] = {0};
    /* Usage in every kind, added in reverse of the display order. */
    all[CRED_CLASS] = cred(s, CRED_CLASS, "batch");
    all[CRED_QOS] = cred(s, CRED_QOS, "high");
    all[CRED_ACCOUNT] = cred(s, CRED_ACCOUNT, "chem");
    all[CRED_GROUP] = cred(s, CRED_GROUP, "staff");
    all[CRED_USER] = cred(s, CRED_USER, "amy");
    fs_add(f, T0, all, 100);
    cred(s, CRED_USER, "idle");                           /* nothing: left out */
    target(s, CRED_USER, "tgt", 30, FS_MODE_FLOOR);       /* target only: listed */
    target(s, CRED_GROUP, "DEFAULT", 5, FS_MODE_CEILING); /* DEFAULT with its own */
    fs_set_total_target(f, (struct fs_target){80, FS_MODE_FLOOR});
    char *out = run(s, "diagnose -f");
    CHECK_HAS(out, "FS Policy: UTILIZEDPS%\n");
    CHECK_HAS(out, "System FS Settings:  Target Usage: 80.00+   Flags: 0\n");
    CHECK_HAS(out, "\nUSER\n-------------\namy             100.00 -------  100.00\n"
                   "tgt*              0.00  30.00+ -------\n\nGROUP\n");
    CHECK(out && !strstr(out, "idle"));
    /* staff has no target: DEFAULT's ceiling applies, and 100% > 5. */
    CHECK_HAS(out, "\nGROUP\n-------------\nDEFAULT           0.00   5.00- -------\n"
                   "staff*          100.00   5.00-  100.00\n\nACCT\n");
    const char *order[] = {"\nUSER\n", "\nGROUP\n", "\nACCT\n", "\nQOS\n", "\nCLASS\n"};
    const char *prev = out;
    for (size_t i = 0; i < 5 && out; i++) {
        const char *at = strstr(out, order[i]);
        CHECK(at && at >= prev);
        prev = at ? at : prev;
    }
    free(out);

    json_t *o = run_json(s, "diagnose -f --format=json");
    CHECK_STR(json_string_value(json_object_get(o, "policy")), "UTILIZEDPS%");
    json_t *creds = json_object_get(o, "credentials");
    const char *types[] = {"user", "user", "group", "group", "account", "qos", "class"};
    const char *names[] = {"amy", "tgt", "DEFAULT", "staff", "chem", "high", "batch"};
    CHECK_EQ(json_array_size(creds), 7);
    for (size_t i = 0; i < 7 && i < json_array_size(creds); i++) {
        json_t *c = json_array_get(creds, i);
        CHECK_STR(json_string_value(json_object_get(c, "type")), types[i]);
        CHECK_STR(json_string_value(json_object_get(c, "name")), names[i]);
    }
    json_t *amy = json_array_get(creds, 0);
    CHECK(json_is_null(json_object_get(amy, "target")));
    CHECK_STR(json_string_value(json_object_get(amy, "mode")), "none");
    CHECK(near(json_real_value(json_object_get(amy, "usage")), 100));
    json_t *staff = json_array_get(creds, 3);
    CHECK(near(json_real_value(json_object_get(staff, "target")), 5));
    CHECK_STR(json_string_value(json_object_get(staff, "mode")), "ceiling");
    json_decref(o);
    sched_destroy(s);
}

/* Every credential with usage in a window shown has a row, the DEFAULT
 * objects too (jobs without that credential: an SWF job of user -1), so
 * that a window's rows add up to its total (issue 26). */
static void test_default_listed(void)
{
    struct sched *s = make_sched(
        (struct fs_params){.policy = FS_DEDICATEDPS, .interval = 3600, .depth = 2, .decay = 1});
    struct fs *f = sched_fs(s);
    const struct cred *unknown[CRED_NKINDS] = {0}, *amy[CRED_NKINDS] = {0};
    unknown[CRED_USER] = cred(s, CRED_USER, "DEFAULT");
    unknown[CRED_ACCOUNT] = cred(s, CRED_ACCOUNT, "DEFAULT");
    amy[CRED_USER] = cred(s, CRED_USER, "amy");
    amy[CRED_ACCOUNT] = cred(s, CRED_ACCOUNT, "DEFAULT");
    fs_add(f, T0, unknown, 3600);
    fs_add(f, T0, amy, 3600);
    char *out = run(s, "diagnose -f");
    CHECK_HAS(out, "\nUSER\n-------------\nDEFAULT          50.00 -------   50.00\n"
                   "amy              50.00 -------   50.00\n");
    CHECK_HAS(out, "\nACCT\n-------------\nDEFAULT         100.00 -------  100.00\n");
    free(out);
    json_t *o = run_json(s, "diagnose -f --format=json");
    CHECK_EQ(json_array_size(json_object_get(o, "credentials")), 3);
    json_decref(o);
    sched_destroy(s);
}

/* No credential at all: the header and the window lines only. */
static void test_empty(void)
{
    struct sched *s = make_sched(
        (struct fs_params){.policy = FS_DEDICATEDPES, .interval = 1800, .depth = 24, .decay = 1});
    char *out = run(s, "diagnose -f");
    CHECK_HAS(out, "Depth: 24 intervals   Interval Length: 00:30:00   Decay Rate: 1.00\n");
    CHECK_HAS(out, "FS Policy: DEDICATEDPES\n");
    CHECK(out && strlen(out) > 0 && out[strlen(out) - 1] == '\n');
    CHECK(out && strstr(out, "TotalUsage      100.00 -------\n") == out + strlen(out) - 31);
    free(out);
    json_t *o = run_json(s, "diagnose -f --format=json");
    CHECK(json_is_array(json_object_get(o, "credentials")));
    CHECK_EQ(json_array_size(json_object_get(o, "credentials")), 0);
    json_decref(o);
    sched_destroy(s);
}

/* ---- options ---- */

static void check_error(struct sched *s, const char *line, const char *msg)
{
    struct cmd_ctx c = {.s = s, .now = T0};
    struct err e = {{0}};
    char *out = NULL;
    CHECK(cmd_run(&c, line, &out, &e) < 0);
    CHECK(out == NULL);
    CHECK_HAS(e.msg, msg);
    free(out);
}

static void test_options(void)
{
    struct sched *s = john_scenario(1);
    check_error(s, "diagnose -f -p", "diagnose: -f and -p are exclusive");
    check_error(s, "diagnose -q -f", "diagnose: -q and -f are exclusive");
    check_error(s, "diagnose -f john", "diagnose: unexpected argument 'john'");
    check_error(s, "diagnose -x",
                "diagnose: unknown option '-x' (-a, -c, -f, -g, -j, -n, -p, -q, -r or -u)");
    check_error(s, "diagnose", "diagnose: missing option (-f, fairshare");
    char *a = run(s, "diagnose -f -f"), *b = run(s, "diagnose --format json -f");
    CHECK_HAS(a, "FairShare Information\n");
    CHECK(b && b[0] == '{');
    free(a);
    free(b);
    sched_destroy(s);
}

int main(void)
{
    TEST_RUN(test_docs_sample);
    TEST_RUN(test_john_text);
    TEST_RUN(test_john_json);
    TEST_RUN(test_json_as_of);
    TEST_RUN(test_star_rule);
    TEST_RUN(test_window_columns);
    TEST_RUN(test_listing);
    TEST_RUN(test_default_listed);
    TEST_RUN(test_empty);
    TEST_RUN(test_options);
    return TEST_DONE();
}
