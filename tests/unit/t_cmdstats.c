/*
 * Tests for checknode and showstats (src/cmd/checknode.c, showstats.c): the
 * text against hand-written expectations, the JSON fields, the errors.
 *
 * The scenario (dates from 2024-01-01 00:00:00 UTC; commands at now = 1800):
 *   nodes n01 (4 procs, 4096M mem, 2048M swap, 100000M disk, fast+ib),
 *         n02 (4 procs, 4096M), n03 (2 procs, drained, partition debug):
 *         8 processors up.
 *   t=0     1 (2 procs, 512M a task, 1h) and 2 (2 procs, 2h) start on n01,
 *           3 (4 procs, 30m) on n02; 5 (1 proc, 10m) waits.
 *   t=300   4 (8 procs, 1h) submitted: it can start only on every processor.
 *   t=1000  3 ends (exit status unknown); 5 starts on n02 (queued 1000s).
 *   t=1200  6 (1 proc, 1h) submitted with a user hold: blocked.
 *   t=1500  5 ends with exit status 1.
 * At 1800: n01 Busy with 1 and 2, n02 Idle, n03 Drained.
 *
 * showstats by hand:
 *   eligible/idle 1/2 (4 eligible, 6 held); active 2; successful/completed
 *   1/2 (3 unknown = success, 5 failed);
 *   queue times of started jobs 0, 0, 0, 1000 s: avg 250 s = 0.07 h, max 0.28 h;
 *   XFactor of completed jobs (0+1000)/1800 and (1000+500)/600 = 2.5: avg 1.53;
 *   dedicated 2x1800 + 2x1800 + 4x1000 + 1x500 = 11700 proc-s = 3.25 h of
 *   8 x 1800 s = 4.00 h (81.250%); active procs 4/8;
 *   accuracy (1000/1800 + 500/600) / 2 = 69.444%;
 *   backlog 8 x 3600 proc-s / 8 procs = 1.00 h.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "engine/engine.h"
#include "test.h"

#define EPOCH 1704067200L /* Mon Jan  1 00:00:00 2024 UTC */
#define NOW 1800L

/* ---- helpers ---- */

static void add_node(struct sched *s, struct node_spec spec)
{
    struct err e;
    int rc = sched_add_node(s, &spec, &e);
    if (rc < 0)
        fprintf(stderr, "node %s: %s\n", spec.name, e.msg);
    CHECK(rc == 0);
}

static struct job *submit(struct sched *s, struct job_spec spec)
{
    struct err e;
    if (!spec.procs_per_task)
        spec.procs_per_task = 1;
    struct job *j = sched_submit(s, &spec, &e);
    if (!j)
        fprintf(stderr, "submit %s: %s\n", spec.name, e.msg);
    CHECK(j != NULL);
    return j;
}

static struct sched *scenario(void)
{
    struct sched_policy pol;
    sched_policy_default(&pol);
    pol.nalloc = NALLOC_FIRSTAVAILABLE; /* the checks name the nodes jobs run on */
    struct sched *s = sched_create(&pol, NULL);
    /* clang-format off */
    add_node(s, (struct node_spec){.name = "n01", .procs = 4, .mem = 4096, .swap = 2048,
                                   .disk = 100000, .features = "fast,ib"});
    add_node(s, (struct node_spec){.name = "n02", .procs = 4, .mem = 4096});
    add_node(s, (struct node_spec){.name = "n03", .procs = 2, .partition = "debug",
                                   .state = NODE_DRAINED});
    submit(s, (struct job_spec){.name = "1", .tasks = 2, .mem_per_task = 512, .walltime = 3600,
                                .submit = 0, .user = "alice"});
    submit(s, (struct job_spec){.name = "2", .tasks = 2, .walltime = 7200, .submit = 0,
                                .user = "bob"});
    struct job *j3 = submit(s, (struct job_spec){.name = "3", .tasks = 4, .walltime = 1800,
                                                 .submit = 0, .user = "carol"});
    struct job *j5 = submit(s, (struct job_spec){.name = "5", .tasks = 1, .walltime = 600,
                                                 .submit = 0, .user = "erin"});
    sched_iterate(s, 0);
    submit(s, (struct job_spec){.name = "4", .tasks = 8, .walltime = 3600, .submit = 300,
                                .user = "dave"});
    sched_iterate(s, 300);
    sched_job_ended(s, j3, 1000);
    sched_iterate(s, 1000);
    submit(s, (struct job_spec){.name = "6", .tasks = 1, .walltime = 3600, .submit = 1200,
                                .user = "frank", .holds = HOLD_USER});
    sched_iterate(s, 1200);
    sched_job_ended(s, j5, 1500);
    j5->exit_status = 1;
    sched_iterate(s, 1500);
    /* clang-format on */
    return s;
}

/* Run line at now; the answer (caller frees) or NULL with e set. */
static char *run_at(struct sched *s, long now, const char *line, struct err *e)
{
    struct cmd_ctx c = {.s = s, .now = now, .epoch_offset = EPOCH};
    char *out = (char *)"sentinel";
    int rc = cmd_run(&c, line, &out, e);
    if (rc < 0) {
        CHECK(out == NULL);
        return NULL;
    }
    CHECK(out != NULL && out[0] && out[strlen(out) - 1] == '\n');
    return out;
}

static char *run(struct sched *s, const char *line)
{
    struct err e = {{0}};
    char *out = run_at(s, NOW, line, &e);
    if (!out)
        fprintf(stderr, "'%s' failed: %s\n", line, e.msg);
    return out;
}

static void check_text(struct sched *s, long now, const char *line, const char *want)
{
    struct err e = {{0}};
    char *out = run_at(s, now, line, &e);
    if (!out)
        fprintf(stderr, "'%s' failed: %s\n", line, e.msg);
    CHECK_STR(out, want);
    free(out);
}

static void check_error(struct sched *s, const char *line, const char *msg)
{
    struct err e = {{0}};
    char *out = run_at(s, NOW, line, &e);
    CHECK(out == NULL);
    CHECK_HAS(e.msg, msg);
    free(out);
}

/* The JSON answer to line, parsed (caller releases). */
static json_t *run_json(struct sched *s, long now, const char *line)
{
    struct err e = {{0}};
    char *out = run_at(s, now, line, &e);
    if (!out)
        fprintf(stderr, "'%s' failed: %s\n", line, e.msg);
    json_error_t je;
    json_t *root = out ? json_loads(out, 0, &je) : NULL;
    CHECK(root != NULL);
    free(out);
    return root;
}

static long long jint(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    CHECK(json_is_integer(v));
    return json_integer_value(v);
}

static const char *jstr(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    CHECK(json_is_string(v));
    return json_string_value(v);
}

static double jreal(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    CHECK(json_is_number(v));
    return json_number_value(v);
}

/* ---- the scenario itself ---- */

static void test_scenario(void)
{
    struct sched *s = scenario();
    CHECK_EQ(sched_nrunning(s), 2);
    CHECK_EQ(sched_count_idle(s, 0), 1);
    CHECK_EQ(sched_count_idle(s, 1), 1);
    CHECK_EQ(sched_node_used(s, 0), 4);
    CHECK_EQ(sched_node_used(s, 1), 0);
    struct job *j5 = sched_find_job(s, "5");
    CHECK(j5 && j5->state == JOB_COMPLETED && j5->start == 1000 && j5->end == 1500);
    struct job *j3 = sched_find_job(s, "3");
    CHECK(j3 && j3->state == JOB_COMPLETED && j3->exit_status == -1);
    sched_destroy(s);
}

/* ---- checknode ---- */

static void test_checknode_busy(void)
{
    struct sched *s = scenario();
    check_text(s, NOW, "checknode n01",
               "checking node n01\n"
               "\n"
               "State:      Busy\n"
               "Configured Resources: PROCS: 4  MEM: 4096M  SWAP: 2048M  DISK: 100000M\n"
               "Dedicated  Resources: PROCS: 4  MEM: 1024M\n"
               "Features:   [fast][ib]\n"
               "Partition:  DEFAULT\n"
               "\n"
               "Reservations:\n"
               "  Job '1'(x2)  -00:30:00 -> 00:30:00 (1:00:00)\n"
               "  Job '2'(x2)  -00:30:00 -> 1:30:00 (2:00:00)\n"
               "JobList:  1,2\n");
    sched_destroy(s);
}

static void test_checknode_idle(void)
{
    struct sched *s = scenario();
    check_text(s, NOW, "checknode n02",
               "checking node n02\n"
               "\n"
               "State:      Idle\n"
               "Configured Resources: PROCS: 4  MEM: 4096M  SWAP: 0M  DISK: 0M\n"
               "Dedicated  Resources: [NONE]\n"
               "Features:   [NONE]\n"
               "Partition:  DEFAULT\n");
    check_text(s, NOW, "checknode n03",
               "checking node n03\n"
               "\n"
               "State:   Drained\n"
               "Configured Resources: PROCS: 2  MEM: 0M  SWAP: 0M  DISK: 0M\n"
               "Dedicated  Resources: [NONE]\n"
               "Features:   [NONE]\n"
               "Partition:  debug\n");
    sched_destroy(s);
}

static void test_checknode_json(void)
{
    struct sched *s = scenario();
    json_t *root = run_json(s, NOW, "checknode --format=json n01");
    json_t *n = json_object_get(root, "node");
    CHECK(json_is_object(n));
    CHECK_EQ(json_object_size(root), 1);
    CHECK_STR(jstr(n, "name"), "n01");
    CHECK_STR(jstr(n, "state"), "Busy");
    CHECK_EQ(jint(n, "procs"), 4);
    CHECK_EQ(jint(n, "procs_free"), 0);
    CHECK_EQ(jint(n, "memory"), 4096);
    CHECK_EQ(jint(n, "swap"), 2048);
    CHECK_EQ(jint(n, "disk"), 100000);
    CHECK_STR(jstr(n, "partition"), "DEFAULT");
    json_t *f = json_object_get(n, "features");
    CHECK(json_is_array(f) && json_array_size(f) == 2);
    CHECK_STR(json_string_value(json_array_get(f, 0)), "fast");
    CHECK_STR(json_string_value(json_array_get(f, 1)), "ib");
    json_t *jobs = json_object_get(n, "jobs");
    CHECK(json_is_array(jobs) && json_array_size(jobs) == 2);
    CHECK_STR(jstr(json_array_get(jobs, 0), "id"), "1");
    CHECK_EQ(jint(json_array_get(jobs, 0), "procs"), 2);
    CHECK_STR(jstr(json_array_get(jobs, 1), "id"), "2");
    CHECK_EQ(jint(json_array_get(jobs, 1), "procs"), 2);
    CHECK_EQ(json_object_size(n), 11);
    json_decref(root);

    root = run_json(s, NOW, "checknode n02 --format json");
    n = json_object_get(root, "node");
    CHECK_STR(jstr(n, "state"), "Idle");
    CHECK_EQ(jint(n, "procs_free"), 4);
    CHECK(json_is_array(json_object_get(n, "features")));
    CHECK_EQ(json_array_size(json_object_get(n, "features")), 0);
    CHECK_EQ(json_array_size(json_object_get(n, "jobs")), 0);
    json_decref(root);

    /* A drained node offers nothing, whatever is not in use. */
    root = run_json(s, NOW, "checknode --format=json n03");
    n = json_object_get(root, "node");
    CHECK_STR(jstr(n, "state"), "Drained");
    CHECK_EQ(jint(n, "procs_free"), 0);
    CHECK_STR(jstr(n, "partition"), "debug");
    json_decref(root);
    sched_destroy(s);
}

/* A job spread over nodes shows on each with its processors there; a node
 * partly used is Running. */
static void test_checknode_spread(void)
{
    struct sched_policy pol;
    sched_policy_default(&pol);
    pol.nalloc = NALLOC_FIRSTAVAILABLE; /* the checks name the nodes jobs run on */
    struct sched *s = sched_create(&pol, NULL);
    add_node(s, (struct node_spec){.name = "a", .procs = 4});
    add_node(s, (struct node_spec){.name = "b", .procs = 2});
    add_node(s, (struct node_spec){.name = "c", .procs = 2});
    /* clang-format off */
    submit(s, (struct job_spec){.name = "big", .tasks = 3, .procs_per_task = 2,
                                .mem_per_task = 100, .walltime = 600, .submit = 0});
    submit(s, (struct job_spec){.name = "small", .tasks = 1, .walltime = 7200, .submit = 0});
    /* clang-format on */
    sched_iterate(s, 0);
    CHECK_EQ(sched_node_used(s, 0), 4);
    CHECK_EQ(sched_node_used(s, 1), 2);
    CHECK_EQ(sched_node_used(s, 2), 1);
    check_text(s, 60, "checknode b",
               "checking node b\n"
               "\n"
               "State:      Busy\n"
               "Configured Resources: PROCS: 2  MEM: 0M  SWAP: 0M  DISK: 0M\n"
               "Dedicated  Resources: PROCS: 2  MEM: 100M\n"
               "Features:   [NONE]\n"
               "Partition:  DEFAULT\n"
               "\n"
               "Reservations:\n"
               "  Job 'big'(x2)  -00:01:00 -> 00:09:00 (00:10:00)\n"
               "JobList:  big\n");
    char *out = run(s, "checknode c");
    CHECK_HAS(out, "State:   Running\n");
    CHECK_HAS(out, "Dedicated  Resources: PROCS: 1\n");
    CHECK_HAS(out, "  Job 'small'(x1)  ");
    CHECK_HAS(out, "JobList:  small\n");
    free(out);
    json_t *root = run_json(s, 60, "checknode --format=json c");
    json_t *n = json_object_get(root, "node");
    CHECK_STR(jstr(n, "state"), "Running");
    CHECK_EQ(jint(n, "procs_free"), 1);
    json_decref(root);
    root = run_json(s, 60, "checknode --format=json a");
    n = json_object_get(root, "node");
    json_t *jobs = json_object_get(n, "jobs");
    CHECK(json_array_size(jobs) == 1);
    CHECK_STR(jstr(json_array_get(jobs, 0), "id"), "big");
    CHECK_EQ(jint(json_array_get(jobs, 0), "procs"), 4);
    json_decref(root);
    sched_destroy(s);
}

static void test_checknode_errors(void)
{
    struct sched *s = scenario();
    check_error(s, "checknode", "checknode: missing node name");
    check_error(s, "checknode --format=json", "checknode: missing node name");
    check_error(s, "checknode nope", "checknode: no node 'nope'");
    check_error(s, "checknode N01", "checknode: no node 'N01'");
    check_error(s, "checknode -v n01", "checknode: unknown option '-v'");
    check_error(s, "checknode n01 n02", "checknode: one node at a time");
    check_error(s, "frobnicate", "unknown command (showq, checkjob, checknode, showstats,");
    sched_destroy(s);
}

/* ---- showstats ---- */

static void test_showstats(void)
{
    struct sched *s = scenario();
    check_text(s, NOW, "showstats",
               "moku active for      00:30:00  stats initialized on Mon Jan  1 00:00:00\n"
               "\n"
               "Eligible/Idle Jobs:                    1/2         (50.000%)\n"
               "Active Jobs:                           2\n"
               "Successful/Completed Jobs:             1/2         (50.000%)\n"
               "Avg/Max QTime (Hours):              0.07/0.28     \n"
               "Avg/Max XFactor:                    1.53/2.50     \n"
               "\n"
               "Dedicated/Total ProcHours:          3.25/4.00      (81.250%)\n"
               "\n"
               "Current Active/Total Procs:            4/8         (50.000%)\n"
               "\n"
               "Avg WallClock Accuracy:          69.444%\n"
               "Avg Job Proc Efficiency:           <N/A>\n"
               "Est/Avg Backlog (Hours):            1.00/1.00    \n");
    sched_destroy(s);
}

static void test_showstats_json(void)
{
    struct sched *s = scenario();
    json_t *o = run_json(s, NOW, "showstats --format=json");
    CHECK(json_is_object(o));
    CHECK_EQ(jint(o, "active_for"), 1800);
    CHECK_EQ(jint(o, "initialized"), EPOCH);
    CHECK_EQ(jint(o, "eligible_jobs"), 1);
    CHECK_EQ(jint(o, "idle_jobs"), 2);
    CHECK_EQ(jint(o, "active_jobs"), 2);
    CHECK_EQ(jint(o, "successful_jobs"), 1);
    CHECK_EQ(jint(o, "completed_jobs"), 2);
    CHECK(near(jreal(o, "avg_qtime_hours"), 250.0 / 3600.0));
    CHECK(near(jreal(o, "max_qtime_hours"), 1000.0 / 3600.0));
    CHECK(near(jreal(o, "avg_xfactor"), (1000.0 / 1800.0 + 2.5) / 2.0));
    CHECK(near(jreal(o, "max_xfactor"), 2.5));
    CHECK(near(jreal(o, "dedicated_proc_hours"), 3.25));
    CHECK(near(jreal(o, "total_proc_hours"), 4.0));
    CHECK_EQ(jint(o, "active_procs"), 4);
    CHECK_EQ(jint(o, "total_procs"), 8);
    CHECK(near(jreal(o, "wallclock_accuracy"), (1000.0 / 1800.0 + 500.0 / 600.0) / 2.0 * 100.0));
    CHECK(json_is_null(json_object_get(o, "proc_efficiency")));
    CHECK(near(jreal(o, "est_backlog_hours"), 1.0));
    CHECK(near(jreal(o, "avg_backlog_hours"), 1.0));
    CHECK_EQ(json_object_size(o), 19);
    json_decref(o);
    sched_destroy(s);
}

/* Before anything completes: Maui's <N/A> lines, null in JSON. Statistics
 * begin at the first submission. */
static void test_showstats_nothing_completed(void)
{
    struct sched_policy pol;
    sched_policy_default(&pol);
    pol.nalloc = NALLOC_FIRSTAVAILABLE; /* the checks name the nodes jobs run on */
    struct sched *s = sched_create(&pol, NULL);
    add_node(s, (struct node_spec){.name = "a", .procs = 4});
    submit(s, (struct job_spec){.name = "r", .tasks = 2, .walltime = 3600, .submit = 100});
    sched_iterate(s, 100);
    check_text(s, 3700, "showstats",
               "moku active for       1:00:00  stats initialized on Mon Jan  1 00:01:40\n"
               "\n"
               "Eligible/Idle Jobs:                    0/0         (0.000%)\n"
               "Active Jobs:                           1\n"
               "Successful/Completed Jobs:             0/0         (0.000%)\n"
               "Avg/Max QTime (Hours):              0.00/0.00     \n"
               "Avg/Max XFactor:                    0.00/0.00     \n"
               "\n"
               "Dedicated/Total ProcHours:          2.00/4.00      (50.000%)\n"
               "\n"
               "Current Active/Total Procs:            2/4         (50.000%)\n"
               "\n"
               "Avg WallClock Accuracy:            <N/A>\n"
               "Avg Job Proc Efficiency:           <N/A>\n"
               "Est/Avg Backlog (Hours):           <N/A>/<N/A>   \n");
    json_t *o = run_json(s, 3700, "showstats --format=json");
    CHECK_EQ(jint(o, "active_for"), 3600);
    CHECK_EQ(jint(o, "initialized"), EPOCH + 100);
    CHECK(near(jreal(o, "avg_qtime_hours"), 0.0));
    CHECK(json_is_null(json_object_get(o, "avg_xfactor")));
    CHECK(json_is_null(json_object_get(o, "max_xfactor")));
    CHECK(json_is_null(json_object_get(o, "wallclock_accuracy")));
    CHECK(json_is_null(json_object_get(o, "est_backlog_hours")));
    CHECK(json_is_null(json_object_get(o, "avg_backlog_hours")));
    json_decref(o);
    sched_destroy(s);
}

/* No job at all: statistics begin at the last iteration, or now before any;
 * nothing divides by zero. */
static void test_showstats_empty(void)
{
    struct sched_policy pol;
    sched_policy_default(&pol);
    struct sched *s = sched_create(&pol, NULL);
    char *out = run(s, "showstats");
    CHECK_HAS(out, "moku active for      00:00:00  stats initialized on Mon Jan  1 00:30:00\n");
    CHECK_HAS(out, "Dedicated/Total ProcHours:          0.00/0.00      (0.000%)\n");
    CHECK_HAS(out, "Current Active/Total Procs:            0/0         (0.000%)\n");
    free(out);
    sched_iterate(s, 600);
    out = run(s, "showstats");
    CHECK_HAS(out, "moku active for      00:20:00  stats initialized on Mon Jan  1 00:10:00\n");
    free(out);
    json_t *o = run_json(s, NOW, "showstats --format=json");
    CHECK_EQ(jint(o, "active_for"), 1200);
    CHECK(json_is_null(json_object_get(o, "avg_qtime_hours")));
    CHECK_EQ(jint(o, "total_procs"), 0);
    json_decref(o);
    sched_destroy(s);
}

/* Jobs the daemon loads as history (sched_add_ended) count like the others;
 * one that ended without starting (start 0, before its submission) and a
 * removed one count for nothing but the first submission. */
static void test_showstats_history(void)
{
    struct sched_policy pol;
    sched_policy_default(&pol);
    pol.nalloc = NALLOC_FIRSTAVAILABLE; /* the checks name the nodes jobs run on */
    struct sched *s = sched_create(&pol, NULL);
    add_node(s, (struct node_spec){.name = "a", .procs = 4});
    struct job_spec done = {
        .name = "h1", .tasks = 2, .procs_per_task = 1, .walltime = 1200, .submit = 0};
    struct job_spec never = {
        .name = "h2", .tasks = 4, .procs_per_task = 1, .walltime = 600, .submit = 500};
    struct job_spec gone = {
        .name = "h3", .tasks = 1, .procs_per_task = 1, .walltime = 600, .submit = 200};
    CHECK(sched_add_ended(s, &done, 300, 900, 0, 0, NULL) != NULL);
    CHECK(sched_add_ended(s, &never, 0, 900, 0, 1, NULL) != NULL);
    CHECK(sched_add_ended(s, &gone, 0, 400, 1, -1, NULL) != NULL);
    json_t *o = run_json(s, 3600, "showstats --format=json");
    CHECK_EQ(jint(o, "active_for"), 3600);
    CHECK_EQ(jint(o, "completed_jobs"), 1);
    CHECK_EQ(jint(o, "successful_jobs"), 1);
    CHECK_EQ(jint(o, "idle_jobs"), 0);
    CHECK(near(jreal(o, "max_qtime_hours"), 300.0 / 3600.0));
    CHECK(near(jreal(o, "avg_xfactor"), 900.0 / 1200.0));
    CHECK(near(jreal(o, "wallclock_accuracy"), 50.0));
    CHECK(near(jreal(o, "dedicated_proc_hours"), 2.0 * 600.0 / 3600.0));
    CHECK(near(jreal(o, "total_proc_hours"), 4.0));
    CHECK(near(jreal(o, "est_backlog_hours"), 0.0));
    json_decref(o);
    sched_destroy(s);
}

static void test_showstats_errors(void)
{
    struct sched *s = scenario();
    check_error(s, "showstats -n", "showstats: option '-n' is not supported yet");
    check_error(s, "showstats -f staff", "showstats: option '-f' is not supported yet");
    check_error(s, "showstats -u nobody", "showstats: no user 'nobody'");
    check_error(s, "showstats -v", "showstats: option '-v' is not supported yet");
    check_error(s, "showstats -x", "showstats: unknown option '-x'");
    check_error(s, "showstats --users", "showstats: unknown option '--users'");
    check_error(s, "showstats all", "showstats: unexpected argument 'all'");
    check_error(s, "showstats --format=xml", "showstats: unknown format 'xml'");
    sched_destroy(s);
}

/* Random lines over both commands' vocabulary: an answer ending in a
 * newline or a message, never a crash. */
static void test_fuzz(void)
{
    static const char *const vocab[] = {
        "checknode", "showstats", "n01",  "n02",  "n03",           "nope", "-u",       "-v",
        "-x",        "--format",  "json", "text", "--format=json", "-",    "\xff\xfe", "%s%n"};
    struct sched *s = scenario();
    unsigned seed = 4242;
    int ok = 0, failed = 0;
    for (int iter = 0; iter < 2000; iter++) {
        char line[256] = "";
        int words = (int)(seed % 4);
        for (int w = 0; w < words; w++) {
            seed = seed * 1103515245u + 12345u;
            strncat(line, vocab[(seed >> 16) % (sizeof vocab / sizeof vocab[0])],
                    sizeof line - strlen(line) - 2);
            strncat(line, " ", sizeof line - strlen(line) - 1);
        }
        seed = seed * 1103515245u + 12345u;
        struct err e = {{0}};
        char *out = run_at(s, NOW, line, &e);
        if (out)
            ok++;
        else
            CHECK(e.msg[0] != '\0');
        failed += out == NULL;
        free(out);
    }
    CHECK(ok > 0 && failed > 0);
    sched_destroy(s);
}

int main(void)
{
    TEST_RUN(test_scenario);
    TEST_RUN(test_checknode_busy);
    TEST_RUN(test_checknode_idle);
    TEST_RUN(test_checknode_json);
    TEST_RUN(test_checknode_spread);
    TEST_RUN(test_checknode_errors);
    TEST_RUN(test_showstats);
    TEST_RUN(test_showstats_json);
    TEST_RUN(test_showstats_nothing_completed);
    TEST_RUN(test_showstats_empty);
    TEST_RUN(test_showstats_history);
    TEST_RUN(test_showstats_errors);
    TEST_RUN(test_fuzz);
    return TEST_DONE();
}
