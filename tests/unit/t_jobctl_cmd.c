/*
 * t_jobctl_cmd — the job-control commands through the command layer
 * (src/cmd/jobctl.c), as the simulator's script runs them: canceljob,
 * sethold, releasehold, setspri, setqos, runjob with Maui's options, the
 * daemon's replies, their errors, and that nothing changes on an error.
 *
 * The scenario: one 4-processor node. At t=0 job 1 (4 procs, 1h) starts;
 * jobs 2 and 3 (2 procs each) wait. Commands run at now = 100.
 */
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "engine/engine.h"
#include "test.h"

#define NOW 100L

static struct sched *scenario(void)
{
    struct sched *s = sched_create(NULL, NULL);
    struct node_spec node = {.name = "n1", .procs = 4, .state = NODE_UP};
    CHECK(sched_add_node(s, &node, NULL) == 0);
    static const struct {
        const char *name;
        int tasks;
    } jobs[] = {{"1", 4}, {"2", 2}, {"3", 2}};
    for (size_t i = 0; i < 3; i++) {
        struct job_spec spec = {.name = jobs[i].name,
                                .tasks = jobs[i].tasks,
                                .procs_per_task = 1,
                                .walltime = 3600,
                                .submit = 0,
                                .user = "alice"};
        CHECK(sched_submit(s, &spec, NULL) != NULL);
    }
    sched_iterate(s, 0);
    CHECK_EQ(sched_find_job(s, "1")->state, JOB_RUNNING);
    return s;
}

/* The resource manager of the tests: records the job and ends it now. */
struct fake_rm {
    struct sched *s;
    int calls;
    int refuse;
};

static int fake_cancel(void *ctx, struct job *j, long now)
{
    struct fake_rm *rm = ctx;
    rm->calls++;
    if (rm->refuse)
        return -1;
    sched_job_ended(rm->s, j, now);
    return 0;
}

/* Run line as the administrator; the answer (caller frees) or NULL with e
 * set. */
static char *run_rm(struct sched *s, struct fake_rm *rm, const char *line, struct err *e)
{
    struct cmd_ctx c = {.s = s, .now = NOW, .control = 1};
    if (rm) {
        c.cancel = fake_cancel;
        c.cancel_ctx = rm;
    }
    char *out = NULL;
    int rc = cmd_run(&c, line, &out, e);
    CHECK((rc == 0) == (out != NULL));
    return out;
}

static char *run(struct sched *s, const char *line, struct err *e)
{
    return run_rm(s, NULL, line, e);
}

/* line succeeds with exactly `want`. */
static void check_reply(struct sched *s, const char *line, const char *want)
{
    struct err e = {{0}};
    char *out = run(s, line, &e);
    if (!out)
        fprintf(stderr, "'%s' failed: %s\n", line, e.msg);
    CHECK_STR(out, want);
    free(out);
}

/* line fails with an error containing msg. */
static void check_error(struct sched *s, const char *line, const char *msg)
{
    struct err e = {{0}};
    char *out = run(s, line, &e);
    CHECK(out == NULL);
    CHECK_HAS(e.msg, msg);
    free(out);
}

static struct job *job(struct sched *s, const char *name)
{
    return sched_find_job(s, name);
}

/* ---- the control gate ---- */

static void test_needs_control(void)
{
    struct sched *s = scenario();
    static const char *const lines[] = {"canceljob 2",  "sethold 2",  "releasehold 2",
                                        "setspri 10 2", "setqos q 2", "runjob 2"};
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        struct cmd_ctx c = {.s = s, .now = NOW};
        char *out = NULL;
        struct err e = {{0}};
        CHECK_EQ(cmd_run(&c, lines[i], &out, &e), -1);
        CHECK_HAS(e.msg, "changes the scheduler's state");
    }
    CHECK_EQ(job(s, "2")->holds, 0);
    CHECK_EQ(job(s, "2")->state, JOB_IDLE);
    CHECK(cmd_known("canceljob") && cmd_known("runjob") && cmd_known("showq"));
    CHECK(!cmd_known("frobnicate") && !cmd_known(""));
    sched_destroy(s);
}

/* ---- canceljob ---- */

static void test_canceljob_idle(void)
{
    struct sched *s = scenario();
    check_reply(s, "canceljob 2", "job '2' cancelled\n");
    CHECK_EQ(job(s, "2")->state, JOB_REMOVED);
    CHECK_EQ(sched_nidle(s), 1);
    check_error(s, "canceljob 2", "canceljob: cannot locate job '2'");
    check_error(s, "canceljob 99", "cannot locate job '99'");
    check_error(s, "canceljob", "missing job id");
    sched_destroy(s);
}

static void test_canceljob_running(void)
{
    struct sched *s = scenario();
    /* Without a resource manager a running job cannot be stopped. */
    check_error(s, "canceljob 1", "no resource manager");
    CHECK_EQ(job(s, "1")->state, JOB_RUNNING);
    struct fake_rm rm = {.s = s};
    struct err e = {{0}};
    char *out = run_rm(s, &rm, "canceljob 1 3", &e);
    CHECK_STR(out, "job '1' cancelled\njob '3' cancelled\n");
    free(out);
    CHECK_EQ(rm.calls, 1);
    CHECK_EQ(job(s, "1")->state, JOB_COMPLETED);
    CHECK_EQ(job(s, "3")->state, JOB_REMOVED);
    sched_iterate(s, NOW);
    CHECK_EQ(job(s, "2")->state, JOB_RUNNING);
    sched_destroy(s);
}

static void test_canceljob_refused(void)
{
    struct sched *s = scenario();
    struct fake_rm rm = {.s = s, .refuse = 1};
    struct err e = {{0}};
    CHECK(run_rm(s, &rm, "canceljob 1", &e) == NULL);
    CHECK_HAS(e.msg, "canceljob: cannot cancel job '1'");
    CHECK_EQ(job(s, "1")->state, JOB_RUNNING);
    sched_destroy(s);
}

/* Every job is checked before any is cancelled. */
static void test_canceljob_all_or_nothing(void)
{
    struct sched *s = scenario();
    check_error(s, "canceljob 2 99", "cannot locate job '99'");
    check_error(s, "canceljob 2 2", "job '2' named twice");
    check_error(s, "canceljob 2 1", "no resource manager");
    CHECK_EQ(job(s, "2")->state, JOB_IDLE);
    CHECK_EQ(sched_nidle(s), 2);
    sched_destroy(s);
}

/* ---- sethold / releasehold ---- */

static void test_sethold_types(void)
{
    struct sched *s = scenario();
    check_reply(s, "sethold 2", "holds modified for job 2\n");
    CHECK_EQ(job(s, "2")->holds, HOLD_USER);
    check_reply(s, "sethold -b 3", "holds modified for job 3\n");
    CHECK_EQ(job(s, "3")->holds, HOLD_BATCH);
    check_reply(s, "sethold -h system 2", "holds modified for job 2\n");
    CHECK_EQ(job(s, "2")->holds, HOLD_USER | HOLD_SYSTEM);
    check_reply(s, "releasehold -h s 2", "holds modified for job 2\n");
    CHECK_EQ(job(s, "2")->holds, HOLD_USER);
    check_reply(s, "releasehold 2 3", "holds modified for job 2\nholds modified for job 3\n");
    CHECK_EQ(job(s, "2")->holds, 0);
    CHECK_EQ(job(s, "3")->holds, HOLD_BATCH); /* a user release leaves the batch hold */
    check_reply(s, "sethold -h all 2", "holds modified for job 2\n");
    CHECK_EQ(job(s, "2")->holds, HOLD_USER | HOLD_SYSTEM | HOLD_BATCH);
    check_reply(s, "releasehold -a 2 3", "holds modified for job 2\nholds modified for job 3\n");
    CHECK_EQ(job(s, "2")->holds, 0);
    CHECK_EQ(job(s, "3")->holds, 0);
    sched_destroy(s);
}

static void test_hold_errors(void)
{
    struct sched *s = scenario();
    check_error(s, "sethold -h forever 2", "sethold: unknown hold type 'forever'");
    check_error(s, "sethold -a 2", "sethold: unknown option '-a'");
    check_error(s, "releasehold -b 2", "releasehold: unknown option '-b'");
    check_error(s, "sethold", "sethold: missing job id");
    check_error(s, "sethold -h", "sethold: -h needs a hold type");
    check_error(s, "sethold 1", "sethold: cannot locate idle job '1'");
    check_error(s, "sethold 2 99", "cannot locate idle job '99'");
    CHECK_EQ(job(s, "2")->holds, 0); /* nothing held on an error */
    sched_destroy(s);
}

/* A held job does not start until released; the next one goes first. */
static void test_hold_blocks_start(void)
{
    struct sched *s = scenario();
    check_reply(s, "sethold 2", "holds modified for job 2\n");
    sched_job_ended(s, job(s, "1"), 200);
    sched_iterate(s, 200);
    CHECK_EQ(job(s, "2")->state, JOB_IDLE);
    CHECK_EQ(job(s, "3")->state, JOB_RUNNING);
    check_reply(s, "releasehold 2", "holds modified for job 2\n");
    sched_iterate(s, 300);
    CHECK_EQ(job(s, "2")->state, JOB_RUNNING);
    sched_destroy(s);
}

/* ---- setspri ---- */

static void test_setspri(void)
{
    struct sched *s = scenario();
    check_reply(s, "setspri 500 3", "job system priority adjusted\n");
    CHECK_EQ(job(s, "3")->sysprio_mode, SYSPRIO_ABSOLUTE);
    CHECK_EQ(job(s, "3")->sysprio, 500);
    check_reply(s, "setspri -r -20 2", "job system priority adjusted\n");
    CHECK_EQ(job(s, "2")->sysprio_mode, SYSPRIO_RELATIVE);
    CHECK_EQ(job(s, "2")->sysprio, -20);
    check_error(s, "setspri 2000 2", "setspri: system priority 2000 out of range");
    check_error(s, "setspri high 2", "setspri: bad priority 'high'");
    check_error(s, "setspri 10", "usage: setspri [-r] PRIORITY JOB");
    check_error(s, "setspri -r 10", "usage");
    check_error(s, "setspri 10 1", "cannot locate idle job '1'");
    CHECK_EQ(job(s, "2")->sysprio, -20);
    sched_destroy(s);
}

/* A system priority puts the later job first. */
static void test_setspri_reorders(void)
{
    struct sched *s = scenario();
    check_reply(s, "setspri 1000 3", "job system priority adjusted\n");
    sched_iterate(s, NOW);
    size_t n;
    struct job *const *q = sched_queue(s, NOW, &n);
    CHECK_EQ(n, 2);
    if (n == 2)
        CHECK_STR(q[0]->name, "3");
    sched_destroy(s);
}

/* ---- setqos ---- */

static void test_setqos(void)
{
    struct sched *s = scenario();
    /* An administrator may give any QOS, listed for the job or not. */
    check_reply(s, "setqos high 2", "job QOS adjusted to high\n");
    CHECK_STR(job(s, "2")->qos->name, "high");
    check_error(s, "setqos high", "setqos: usage: setqos QOS JOB");
    check_error(s, "setqos high 1", "cannot locate idle job '1'");
    sched_destroy(s);
}

/* ---- runjob ---- */

static void test_runjob(void)
{
    struct sched *s = scenario();
    check_error(s, "runjob 2",
                "runjob: job cannot run  (insufficient idle procs:  2 needed  "
                "0 available)");
    sched_job_ended(s, job(s, "1"), NOW);
    check_reply(s, "runjob -x 3", "job '3' started on 2 procs\n");
    CHECK_EQ(job(s, "3")->state, JOB_RUNNING);
    CHECK_EQ(job(s, "3")->start, NOW);
    check_error(s, "runjob 3", "cannot locate idle job '3'");
    check_error(s, "runjob", "usage: runjob [-f] [-x] JOB");
    check_error(s, "runjob 2 3", "usage");
    check_error(s, "runjob -z 2", "runjob: unknown option '-z' (-f, -x or -c)");
    sched_destroy(s);
}

/* A held job: refused unless forced (Maui's runjob -f), and then the reply
 * says the holds went. A forced start that fails leaves the holds. */
static void test_runjob_held(void)
{
    struct sched *s = scenario();
    check_reply(s, "sethold 2", "holds modified for job 2\n");
    check_error(s, "runjob -f 2", "insufficient idle procs");
    CHECK_EQ(job(s, "2")->holds, HOLD_USER);
    sched_job_ended(s, job(s, "1"), NOW);
    check_reply(s, "sethold -h user 3", "holds modified for job 3\n");
    check_reply(s, "sethold -h batch 3", "holds modified for job 3\n");
    check_error(s, "runjob 3",
                "runjob: job '3' has user and batch holds (release them, or runjob -f to start it "
                "anyway)");
    CHECK_EQ(job(s, "3")->state, JOB_IDLE);
    check_reply(s, "runjob -f 3",
                "job '3' started on 2 procs (forced: its user and batch holds were released)\n");
    CHECK_EQ(job(s, "3")->state, JOB_RUNNING);
    sched_destroy(s);
}

/* ---- JSON ---- */

static void test_json(void)
{
    struct sched *s = scenario();
    check_reply(s, "sethold 2 3 --format=json",
                "{\n  \"messages\": [\n    \"holds modified for job 2\",\n"
                "    \"holds modified for job 3\"\n  ]\n}\n");
    sched_destroy(s);
}

/* Hostile words are clipped in messages and change nothing. */
static void test_long_words(void)
{
    struct sched *s = scenario();
    char line[3000];
    memset(line, 'x', sizeof line);
    memcpy(line, "canceljob ", 10);
    line[sizeof line - 1] = '\0';
    struct err e = {{0}};
    char *out = run(s, line, &e);
    CHECK(out == NULL);
    CHECK(strlen(e.msg) < 200);
    CHECK_HAS(e.msg, "...");
    sched_destroy(s);
}

int main(void)
{
    TEST_RUN(test_needs_control);
    TEST_RUN(test_canceljob_idle);
    TEST_RUN(test_canceljob_running);
    TEST_RUN(test_canceljob_refused);
    TEST_RUN(test_canceljob_all_or_nothing);
    TEST_RUN(test_sethold_types);
    TEST_RUN(test_hold_errors);
    TEST_RUN(test_hold_blocks_start);
    TEST_RUN(test_setspri);
    TEST_RUN(test_setspri_reorders);
    TEST_RUN(test_setqos);
    TEST_RUN(test_runjob);
    TEST_RUN(test_runjob_held);
    TEST_RUN(test_json);
    TEST_RUN(test_long_words);
    return TEST_DONE();
}
