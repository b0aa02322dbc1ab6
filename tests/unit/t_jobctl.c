/*
 * t_jobctl — job control through the engine, as the daemon drives it:
 * cancelling an idle job (also one holding a priority reservation, whose
 * processors must come back), requeueing a running job, and a requested
 * start date (qsub -a) that keeps a job waiting, shown as Idle with its own
 * reason, until the date comes.
 */
#include <stdio.h>

#include "engine/engine.h"
#include "test.h"

static struct sched *cluster(int procs)
{
    struct sched *s = sched_create(NULL, NULL);
    struct node_spec spec = {.name = "n0", .procs = procs, .state = NODE_UP};
    sched_add_node(s, &spec, NULL);
    return s;
}

static struct job *submit(struct sched *s, const char *name, int procs, long walltime, long now,
                          long start_after)
{
    struct job_spec spec = {.name = name,
                            .tasks = procs,
                            .procs_per_task = 1,
                            .walltime = walltime,
                            .submit = now,
                            .user = "u",
                            .start_after = start_after};
    struct job *j = sched_submit(s, &spec, NULL);
    CHECK(j != NULL);
    return j;
}

static void test_cancel(void)
{
    struct sched *s = cluster(4);
    struct job *a = submit(s, "1", 4, 100, 0, 0);
    struct job *b = submit(s, "2", 4, 100, 0, 0); /* reserved at 100 */
    struct job *c = submit(s, "3", 2, 50, 0, 0);  /* fits before 100? no: a holds all */
    sched_iterate(s, 0);
    CHECK_EQ(a->state, JOB_RUNNING);
    CHECK_EQ(sched_job_wait(s, b), WAIT_RESERVED);
    struct err e;
    CHECK_EQ(sched_cancel(s, a, 1, &e), -1); /* running: through the RM */
    CHECK_HAS(e.msg, "not idle");
    CHECK_EQ(sched_cancel(s, b, 1, &e), 0);
    CHECK_EQ(b->state, JOB_REMOVED);
    CHECK_EQ(sched_nidle(s), 1);
    size_t n;
    sched_queue(s, 0, &n);
    CHECK_EQ(n, 1);
    sched_job_ended(s, a, 10);
    sched_iterate(s, 10);
    CHECK_EQ(c->state, JOB_RUNNING);
    CHECK_EQ(sched_cancel(s, b, 11, &e), -1); /* twice */
    sched_destroy(s);
}

static void test_requeue(void)
{
    struct sched *s = cluster(2);
    struct job *a = submit(s, "1", 2, 100, 0, 0);
    struct job *b = submit(s, "2", 2, 100, 0, 0);
    sched_iterate(s, 0);
    CHECK_EQ(a->state, JOB_RUNNING);
    struct err e;
    CHECK_EQ(sched_requeue(s, b, 5, &e), -1);
    CHECK_EQ(sched_requeue(s, a, 5, &e), 0);
    CHECK_EQ(a->state, JOB_IDLE);
    CHECK_EQ(sched_node_used(s, 0), 0);
    sched_iterate(s, 5);
    /* b has waited longer now (queue time from 0; a's restarted at 5). */
    CHECK_EQ(b->state, JOB_RUNNING);
    CHECK_EQ(a->state, JOB_IDLE);
    sched_job_ended(s, b, 50);
    sched_iterate(s, 50);
    CHECK_EQ(a->state, JOB_RUNNING);
    CHECK_EQ(a->start, 50);
    sched_destroy(s);
}

static void test_start_date(void)
{
    struct sched *s = cluster(2);
    struct job *a = submit(s, "1", 1, 100, 0, 500);
    struct job *b = submit(s, "2", 1, 100, 0, 0);
    sched_iterate(s, 0);
    CHECK_EQ(a->state, JOB_IDLE);
    CHECK_EQ(b->state, JOB_RUNNING);
    CHECK_STR(job_display_state(a), "Idle");
    const char *why = sched_job_blocked(s, a);
    CHECK(why != NULL);
    if (why)
        CHECK_HAS(why, "start date");
    sched_job_ended(s, b, 100);
    sched_iterate(s, 499);
    CHECK_EQ(a->state, JOB_IDLE);
    sched_iterate(s, 500);
    CHECK_EQ(a->state, JOB_RUNNING);
    CHECK_EQ(a->start, 500);
    /* A start date in the past means now. */
    struct job *c = submit(s, "3", 1, 10, 600, 100);
    sched_iterate(s, 600);
    CHECK_EQ(c->state, JOB_RUNNING);
    sched_destroy(s);
}

/* After a daemon restart a running job is adopted on the processors it
 * holds; runjob starts a job now whatever the plan says. */
static void test_adopt_runjob(void)
{
    struct sched *s = sched_create(NULL, NULL);
    for (int i = 0; i < 3; i++) {
        char name[16];
        snprintf(name, sizeof name, "n%d", i);
        struct node_spec spec = {.name = name, .procs = 2, .state = NODE_UP};
        sched_add_node(s, &spec, NULL);
    }
    CHECK_EQ(sched_find_node(s, "n2"), 2);
    CHECK_EQ(sched_find_node(s, "nx"), -1);
    struct job *a = submit(s, "1", 3, 100, 0, 0);
    struct job_slot slots[] = {{1, 1, 2}, {2, 1, 1}};
    struct err e;
    CHECK_EQ(sched_adopt(s, a, 50, slots, 2, &e), 0);
    CHECK_EQ(a->state, JOB_RUNNING);
    CHECK_EQ(a->start, 50);
    CHECK_EQ(sched_node_used(s, 0), 0);
    CHECK_EQ(sched_node_used(s, 1), 2);
    CHECK_EQ(sched_node_used(s, 2), 1);
    CHECK_EQ(sched_nidle(s), 0);
    struct job_slot bad[] = {{5, 1, 1}};
    struct job *b = submit(s, "2", 1, 100, 60, 0);
    CHECK_EQ(sched_adopt(s, b, 60, bad, 1, &e), -1);
    /* b waits behind a reservation? No: 3 processors are free; but a big
     * job c (4 procs) queued first holds a reservation that b would delay
     * if b ran 100 s... runjob ignores that. */
    struct job *c = submit(s, "3", 4, 100, 60, 0);
    CHECK_EQ(sched_runjob(s, c, 61, &e), -1);
    CHECK_HAS(e.msg, "insufficient idle procs:  4 needed  3 available");
    CHECK_EQ(sched_runjob(s, b, 61, &e), 0);
    CHECK_EQ(b->state, JOB_RUNNING);
    CHECK_EQ(sched_runjob(s, b, 62, &e), -1);
    sched_job_ended(s, a, 150);
    sched_iterate(s, 150);
    sched_destroy(s);
}

/* runjob ignores the plan, not what a job asks of its nodes: a job asking
 * for a feature runs only on nodes that have it (it ran on any node). */
static void test_runjob_features(void)
{
    struct sched *s = sched_create(NULL, NULL);
    struct node_spec plain = {.name = "n0", .procs = 2, .state = NODE_UP};
    sched_add_node(s, &plain, NULL);
    struct job_spec spec = {.name = "big",
                            .tasks = 1,
                            .procs_per_task = 1,
                            .walltime = 100,
                            .user = "u",
                            .features = "bigmem"};
    struct job *big = sched_submit(s, &spec, NULL);
    struct err e;
    sched_iterate(s, 0);
    CHECK_EQ(sched_runjob(s, big, 1, &e), -1); /* one region, no node has it */
    CHECK_EQ(big->state, JOB_IDLE);
    CHECK_EQ(sched_node_used(s, 0), 0);
    struct node_spec fast = {.name = "n1", .procs = 2, .state = NODE_UP, .features = "fast"};
    sched_add_node(s, &fast, NULL);
    spec.name = "quick";
    spec.features = "fast";
    struct job *quick = sched_submit(s, &spec, NULL);
    sched_iterate(s, 2);
    CHECK_EQ(quick->state, JOB_RUNNING); /* the plan starts it, on n1 */
    CHECK_EQ(sched_node_used(s, 1), 1);
    CHECK_EQ(sched_runjob(s, big, 3, &e), -1); /* two regions, neither has it */
    CHECK_EQ(big->state, JOB_IDLE);
    CHECK_EQ(sched_node_used(s, 0), 0);
    spec.name = "other";
    struct job *other = sched_submit(s, &spec, NULL);
    CHECK_EQ(sched_runjob(s, other, 4, &e), 0);
    CHECK_EQ(sched_node_used(s, 1), 2); /* n1, the node with the feature */
    CHECK_EQ(sched_node_used(s, 0), 0);
    sched_destroy(s);
}

int main(void)
{
    TEST_RUN(test_adopt_runjob);
    TEST_RUN(test_runjob_features);
    TEST_RUN(test_cancel);
    TEST_RUN(test_requeue);
    TEST_RUN(test_start_date);
    return TEST_DONE();
}
