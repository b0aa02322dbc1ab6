/*
 * Tests for showbf and showstart (src/cmd/showbf.c, showstart.c): the
 * backfill windows and earliest starts the plan offers, through cmd_run on
 * a scheduler built here, text and JSON, the options and the errors.
 *
 * The scenario (dates from 2024-01-01 00:00:00 UTC, driver time 0 = EPOCH;
 * commands at now = 600):
 *   nodes n01..n04, 4 procs each.
 *   t=0    job 1 (alice, 8 procs, 1h) starts on n01, n02.
 *   t=600  job 2 (bob, 12 procs, 1h) cannot start: its priority reservation
 *          starts at 3600, when job 1 ends.
 * So from now 8 processors are free until 3600, then 4 until 7200 (job 2
 * holds 12), then all 16.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "engine/engine.h"
#include "test.h"

#define EPOCH 1704067200L /* Mon Jan  1 00:00:00 2024 UTC */
#define NOW 600L

/* ---- helpers ---- */

static void add_node(struct sched *s, const char *name, const char *features)
{
    struct node_spec spec = {
        .name = name, .procs = 4, .mem = 4096, .state = NODE_UP, .features = features};
    CHECK(sched_add_node(s, &spec, NULL) == 0);
}

static struct job *submit(struct sched *s, const char *name, const char *user, int procs,
                          long submit_at)
{
    struct err e;
    struct job_spec js = {.name = name,
                          .tasks = procs,
                          .procs_per_task = 1,
                          .walltime = 3600,
                          .submit = submit_at,
                          .user = user,
                          .group = "staff"};
    struct job *j = sched_submit(s, &js, &e);
    if (!j)
        fprintf(stderr, "submit %s: %s\n", name, e.msg);
    CHECK(j != NULL);
    return j;
}

/* The scenario, n04 with these features (NULL: none). */
static struct sched *scenario_with(const char *n04_features)
{
    struct sched_policy pol;
    sched_policy_default(&pol);
    pol.nalloc = NALLOC_FIRSTAVAILABLE;
    struct sched *s = sched_create(&pol, NULL);
    sched_set_epoch(s, EPOCH);
    add_node(s, "n01", NULL);
    add_node(s, "n02", NULL);
    add_node(s, "n03", NULL);
    add_node(s, "n04", n04_features);
    struct job *j1 = submit(s, "1", "alice", 8, 0);
    sched_iterate(s, 0);
    CHECK(j1 && j1->state == JOB_RUNNING);
    struct job *j2 = submit(s, "2", "bob", 12, NOW);
    sched_iterate(s, NOW);
    CHECK(j2 && j2->state == JOB_IDLE && j2->resv_start == 3600);
    return s;
}

static struct sched *scenario(void)
{
    return scenario_with(NULL);
}

/* Run line (control commands allowed, for setres); the answer (caller
 * frees) or NULL with e set. */
static char *run_e(struct sched *s, const char *line, struct err *e)
{
    struct cmd_ctx c = {.s = s, .now = NOW, .epoch_offset = EPOCH, .control = 1};
    char *out = (char *)"sentinel";
    int rc = cmd_run(&c, line, &out, e);
    if (rc < 0) {
        CHECK(out == NULL);
        return NULL;
    }
    CHECK(out != NULL);
    return out;
}

static char *run(struct sched *s, const char *line)
{
    struct err e = {{0}};
    char *out = run_e(s, line, &e);
    if (!out)
        fprintf(stderr, "'%s' failed: %s\n", line, e.msg);
    CHECK(out != NULL);
    return out;
}

static void check_text(struct sched *s, const char *line, const char *want)
{
    char *out = run(s, line);
    CHECK_STR(out, want);
    free(out);
}

static void check_error(struct sched *s, const char *line, const char *msg)
{
    struct err e = {{0}};
    char *out = run_e(s, line, &e);
    if (out)
        fprintf(stderr, "'%s' answered:\n%s", line, out);
    CHECK(out == NULL);
    CHECK_HAS(e.msg, msg);
    free(out);
}

static json_t *run_json(struct sched *s, const char *line)
{
    char *out = run(s, line);
    json_error_t je;
    json_t *root = out ? json_loads(out, 0, &je) : NULL;
    CHECK(root != NULL);
    free(out);
    return root;
}

static long long jint(json_t *o, const char *key)
{
    return (long long)json_integer_value(json_object_get(o, key));
}

/* showbf's header at NOW for user u, group g (partition ALL). */
#define HEADER(u, g)                                                                               \
    "backfill window (user: '" u "' group: '" g "' partition: ALL) Mon Jan  1 00:10:00\n\n"
/* The windows: 8 processors until job 2's reservation, then 4 for ever. */
#define W8 "  8 procs available for      00:50:00\n"
#define W4 "  4 procs available with no timelimit\n"
#define W4_50 "  4 procs available for      00:50:00\n"
#define NONE "no procs available\n"

/* ---- showbf ---- */

static void test_showbf_windows(void)
{
    struct sched *s = scenario();
    check_text(s, "showbf", HEADER("ALL", "ALL") W8 W4);
    check_text(s, "showbf -A", HEADER("ALL", "ALL") W8 W4);
    check_text(s, "showbf -u carol -g staff", HEADER("carol", "staff") W8 W4);
    check_text(s, "showbf -v",
               HEADER("ALL", "ALL") "  8 procs available for      00:50:00 (on up to 2 nodes)\n"
                                    "  4 procs available with no timelimit (on up to 2 nodes)\n");
    json_t *root = run_json(s, "showbf --format=json");
    json_t *w = json_object_get(root, "windows");
    CHECK_EQ(json_array_size(w), 2);
    CHECK_EQ(jint(json_array_get(w, 0), "procs"), 8);
    CHECK_EQ(jint(json_array_get(w, 0), "nodes"), 2);
    CHECK_EQ(jint(json_array_get(w, 0), "duration"), 3000);
    CHECK_EQ(jint(json_array_get(w, 1), "procs"), 4);
    CHECK_EQ(jint(json_array_get(w, 1), "nodes"), 2);
    CHECK(json_is_null(json_object_get(json_array_get(w, 1), "duration")));
    json_decref(root);
    sched_destroy(s);
}

static void test_showbf_filters(void)
{
    struct sched *s = scenario();
    check_text(s, "showbf -r 5", HEADER("ALL", "ALL") W8);
    check_text(s, "showbf -r5 -d 00:50:00", HEADER("ALL", "ALL") W8);
    check_text(s, "showbf -d 1:00:00", HEADER("ALL", "ALL") W4);
    check_text(s, "showbf -n 2 -d 3001", HEADER("ALL", "ALL") W4);
    check_text(s, "showbf -d 1:00:00 -r 5", HEADER("ALL", "ALL") NONE);
    check_text(s, "showbf -n 3", HEADER("ALL", "ALL") NONE);
    json_t *root = run_json(s, "showbf -r 9 --format json");
    CHECK_EQ(json_array_size(json_object_get(root, "windows")), 0);
    json_decref(root);
    /* A partition no node is in: nothing. */
    check_text(s, "showbf -p nowhere",
               "backfill window (user: 'ALL' group: 'ALL' partition: nowhere) "
               "Mon Jan  1 00:10:00\n\n" NONE);
    sched_destroy(s);
}

/* A reservation counts against the users its ACL refuses, not against
 * those it admits; a SYSTEM reservation (no ACL) against everyone. */
static void test_showbf_reservations(void)
{
    struct sched *s = scenario();
    free(run(s, "setres -u john -d 8:00:00 n04"));
    sched_iterate(s, NOW);
    check_text(s, "showbf -u alice", HEADER("alice", "ALL") W4_50);
    check_text(s, "showbf", HEADER("ALL", "ALL") W4_50);
    check_text(s, "showbf -u john", HEADER("john", "ALL") W8 W4);
    sched_destroy(s);

    s = scenario();
    free(run(s, "setres -d 8:00:00 n04"));
    sched_iterate(s, NOW);
    check_text(s, "showbf -u john", HEADER("john", "ALL") W4_50);
    sched_destroy(s);
}

/* A reservation of every node that begins later (at 7800, for two hours):
 * it ends the windows of a user it refuses at its start, and leaves those
 * of one it admits alone. */
static void test_showbf_future_reservation(void)
{
    struct sched *s = scenario();
    free(run(s, "setres -u john -s +2:00:00 -d 2:00:00 ALL"));
    sched_iterate(s, NOW);
    check_text(s, "showbf -u alice",
               HEADER("alice", "ALL") W8 "  4 procs available for       2:00:00\n");
    check_text(s, "showbf -u john", HEADER("john", "ALL") W8 W4);
    /* Asked by john (the daemon says who asks): his windows by default;
     * -A gives everybody's. */
    struct cmd_ctx c = {
        .s = s, .now = NOW, .epoch_offset = EPOCH, .user = "john", .group = "staff"};
    char *out = NULL;
    struct err e = {{0}};
    CHECK_EQ(cmd_run(&c, "showbf", &out, &e), 0);
    CHECK_STR(out ? out : "", HEADER("john", "staff") W8 W4);
    free(out);
    CHECK_EQ(cmd_run(&c, "showbf -A", &out, &e), 0);
    CHECK_STR(out ? out : "", HEADER("ALL", "ALL") W8 "  4 procs available for       2:00:00\n");
    free(out);
    sched_destroy(s);
}

/* -f: only nodes with the feature count. n04 is "fast": its 4 processors
 * at most (job 2's reservation is placed on the other nodes). */
static void test_showbf_feature(void)
{
    struct sched *s = scenario_with("fast");
    check_text(s, "showbf", HEADER("ALL", "ALL") W8 W4);
    char *out = run(s, "showbf -f fast");
    CHECK(out && strstr(out, "  8 procs") == NULL);
    free(out);
    check_text(s, "showbf -f slow", HEADER("ALL", "ALL") NONE);
    /* showstart -f: one fast node cannot hold 8 processors. */
    check_text(s, "showstart 8@1:00:00 -f fast",
               "job 8@1:00:00 requires 8 procs for 1:00:00\n"
               "job 8@1:00:00 cannot start: the nodes it may use can never hold it\n");
    sched_destroy(s);
}

static void test_showbf_errors(void)
{
    struct sched *s = scenario();
    check_error(s, "showbf -m 100", "showbf: -m (memory) is not supported");
    check_error(s, "showbf -M 100", "showbf: -M");
    check_error(s, "showbf -S", "showbf: -S (SMP mode) is not supported");
    check_error(s, "showbf -x", "showbf: unknown option '-x'");
    check_error(s, "showbf -Ax", "showbf: unknown option '-Ax'");
    check_error(s, "showbf -r", "showbf: -r needs a value");
    check_error(s, "showbf -r 0", "showbf: -r needs a positive count, not '0'");
    check_error(s, "showbf -n many", "showbf: -n needs a positive count");
    check_error(s, "showbf -d soon", "showbf: bad duration 'soon' for -d");
    check_error(s, "showbf -u a -u b", "showbf: -u given twice");
    check_error(s, "showbf -A -u bob", "showbf: -A (all credentials) and -u");
    check_error(s, "showbf alice", "showbf: unexpected argument 'alice'");
    sched_destroy(s);
}

/* ---- showstart ---- */

/* Job 2 starts when its priority reservation does. */
static void test_showstart_reserved(void)
{
    struct sched *s = scenario();
    check_text(s, "showstart 2",
               "job 2 requires 12 procs for 1:00:00\n"
               "Earliest start in         00:50:00 on Mon Jan  1 01:00:00\n"
               "Earliest completion in     1:50:00 on Mon Jan  1 02:00:00\n"
               "Best Partition: DEFAULT\n");
    json_t *root = run_json(s, "showstart --format=json 2");
    CHECK_STR(json_string_value(json_object_get(root, "job")), "2");
    CHECK_EQ(jint(root, "procs"), 12);
    CHECK_EQ(jint(root, "duration"), 3600);
    CHECK_EQ(jint(root, "start"), EPOCH + 3600);
    CHECK_EQ(jint(root, "completion"), EPOCH + 7200);
    CHECK(json_is_false(json_object_get(root, "running")));
    json_decref(root);
    sched_destroy(s);
}

static void test_showstart_running(void)
{
    struct sched *s = scenario();
    check_text(s, "showstart 1",
               "job 1 requires 8 procs for 1:00:00\n"
               "job 1 is already running, started 00:10:00 ago on Mon Jan  1 00:00:00\n"
               "Expected completion in    00:50:00 on Mon Jan  1 01:00:00\n");
    json_t *root = run_json(s, "showstart 1 --format=json");
    CHECK_EQ(jint(root, "start"), EPOCH);
    CHECK_EQ(jint(root, "completion"), EPOCH + 3600);
    CHECK(json_is_true(json_object_get(root, "running")));
    json_decref(root);
    /* Once job 1 has ended it will not start again; job 2 then runs. */
    sched_job_ended(s, sched_find_job(s, "1"), 3600);
    sched_iterate(s, 3600);
    check_error(s, "showstart 1", "showstart: job '1' is Completed");
    sched_destroy(s);
}

static void test_showstart_hypothetical(void)
{
    struct sched *s = scenario();
    /* 8 for an hour: not before job 2's reservation ends. */
    check_text(s, "showstart 8@1:00:00",
               "job 8@1:00:00 requires 8 procs for 1:00:00\n"
               "Earliest start in          1:50:00 on Mon Jan  1 02:00:00\n"
               "Earliest completion in     2:50:00 on Mon Jan  1 03:00:00\n"
               "Best Partition: DEFAULT\n");
    /* 4 for an hour fit now, beside job 2's reservation. */
    check_text(s, "showstart 4@3600",
               "job 4@3600 requires 4 procs for 1:00:00\n"
               "Earliest start in         00:00:00 on Mon Jan  1 00:10:00\n"
               "Earliest completion in     1:00:00 on Mon Jan  1 01:10:00\n"
               "Best Partition: DEFAULT\n");
    /* 8 for 50 minutes fit now, before it. */
    json_t *root = run_json(s, "showstart 8@00:50:00 --format=json");
    CHECK(json_is_null(json_object_get(root, "job")));
    CHECK_EQ(jint(root, "start"), EPOCH + NOW);
    CHECK_EQ(jint(root, "completion"), EPOCH + NOW + 3000);
    json_decref(root);
    /* A reservation john may use adds its processors for him only. */
    free(run(s, "setres -u john -d 8:00:00 n04"));
    sched_iterate(s, NOW);
    root = run_json(s, "showstart 8@00:50:00 -u john --format=json");
    CHECK_EQ(jint(root, "start"), EPOCH + NOW);
    json_decref(root);
    root = run_json(s, "showstart 8@00:50:00 -u alice --format=json");
    CHECK_EQ(jint(root, "start"), EPOCH + 7200);
    json_decref(root);
    sched_destroy(s);
}

static void test_showstart_never(void)
{
    struct sched *s = scenario();
    check_text(s, "showstart 1000@1:00:00",
               "job 1000@1:00:00 requires 1000 procs for 1:00:00\n"
               "job 1000@1:00:00 cannot start: the nodes it may use can never hold it\n");
    json_t *root = run_json(s, "showstart 1000@1:00:00 --format=json");
    CHECK(json_is_null(json_object_get(root, "start")));
    CHECK(json_is_null(json_object_get(root, "completion")));
    CHECK_EQ(jint(root, "procs"), 1000);
    json_decref(root);
    check_text(s, "showstart 4@1:00:00 -p nowhere",
               "job 4@1:00:00 requires 4 procs for 1:00:00\n"
               "job 4@1:00:00 cannot start: the nodes it may use can never hold it\n");
    sched_destroy(s);
}

static void test_showstart_errors(void)
{
    struct sched *s = scenario();
    check_error(s, "showstart", "showstart: missing job");
    check_error(s, "showstart 99", "showstart: no job '99', nor a request <procs>@<duration>");
    check_error(s, "showstart 0@1:00:00", "showstart: no job '0@1:00:00'");
    check_error(s, "showstart 8@soon", "showstart: no job '8@soon'");
    check_error(s, "showstart 8@0", "showstart: no job '8@0'");
    check_error(s, "showstart @1:00:00", "showstart: no job '@1:00:00'");
    check_error(s, "showstart 1 2", "showstart: one job at a time ('2' is extra)");
    check_error(s, "showstart 1 -u bob", "showstart: -u applies to <procs>@<duration> only");
    check_error(s, "showstart -x 1", "showstart: unknown option '-x'");
    check_error(s, "showstart 8@1:00:00 -u", "showstart: -u needs a value");
    sched_destroy(s);
}

int main(void)
{
    TEST_RUN(test_showbf_windows);
    TEST_RUN(test_showbf_filters);
    TEST_RUN(test_showbf_reservations);
    TEST_RUN(test_showbf_future_reservation);
    TEST_RUN(test_showbf_feature);
    TEST_RUN(test_showbf_errors);
    TEST_RUN(test_showstart_reserved);
    TEST_RUN(test_showstart_running);
    TEST_RUN(test_showstart_hypothetical);
    TEST_RUN(test_showstart_never);
    TEST_RUN(test_showstart_errors);
    return TEST_DONE();
}
