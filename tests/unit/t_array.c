/*
 * Job array tasks (engine/array.c): the %N slot limit as a hold released
 * lowest index first, never more than N tasks running, a cancelled idle
 * task giving its slot back, the reason checkjob shows, tasks without
 * a limit scheduled as plain jobs, and the array names the tasks share.
 */
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "test.h"

static struct job *task(struct sched *s, const char *array, unsigned index, unsigned slots, long at)
{
    char name[32];
    snprintf(name, sizeof name, "%s[%u]", array, index);
    struct job_spec spec = {
        .name = name, .tasks = 1, .procs_per_task = 1, .walltime = 100, .submit = at};
    struct job *j = sched_submit(s, &spec, NULL);
    CHECK(j != NULL);
    CHECK(sched_set_array(s, j, array, index, slots, 1, NULL) == 0);
    return j;
}

static struct sched *node_of(int procs)
{
    struct sched_policy p;
    sched_policy_default(&p);
    struct sched *s = sched_create(&p, NULL);
    struct node_spec n = {.name = "n0", .procs = procs, .state = NODE_UP};
    CHECK(sched_add_node(s, &n, NULL) == 0);
    return s;
}

static int running(struct job **t, int n)
{
    int r = 0;
    for (int i = 0; i < n; i++)
        r += t[i]->state == JOB_RUNNING;
    return r;
}

/* Eight processors, six tasks, %2: two run at a time, in index order. */
static void test_slot_limit(void)
{
    struct sched *s = node_of(8);
    struct job *t[6];
    for (int i = 0; i < 6; i++)
        t[i] = task(s, "12", (unsigned)i + 1, 2, 0);
    CHECK(strcmp(job_display_state(t[0]), "SystemHold") == 0);
    sched_iterate(s, 0);
    CHECK_EQ(running(t, 6), 2);
    CHECK(t[0]->state == JOB_RUNNING && t[1]->state == JOB_RUNNING);
    CHECK(t[2]->state == JOB_IDLE && (t[2]->holds & HOLD_SLOT));
    CHECK_HAS(sched_job_blocked(s, t[2]), "array slot limit");
    /* An administrator's release lifts the others, never this one. */
    CHECK(sched_release(s, t[3], HOLD_USER | HOLD_SYSTEM | HOLD_BATCH | HOLD_DEFER, 0, NULL) == 0);
    sched_iterate(s, 1);
    CHECK_EQ(running(t, 6), 2);
    t[0]->exit_status = 0;
    sched_job_ended(s, t[0], 50);
    sched_iterate(s, 50);
    CHECK_EQ(running(t, 6), 2);
    CHECK(t[2]->state == JOB_RUNNING && t[2]->start == 50);
    /* An idle task given a slot and cancelled hands it on. */
    t[1]->exit_status = 0;
    sched_job_ended(s, t[1], 60);
    CHECK(sched_hold(s, t[4], HOLD_USER, NULL) == 0);
    sched_iterate(s, 60); /* the one free slot: task 4 */
    CHECK(t[3]->state == JOB_RUNNING && (t[4]->holds & HOLD_SLOT));
    t[2]->exit_status = 0;
    sched_job_ended(s, t[2], 70);
    sched_iterate(s, 70); /* task 5 gets the slot, but its user hold keeps it idle */
    CHECK(t[4]->state == JOB_IDLE && t[4]->holds == HOLD_USER);
    CHECK(t[5]->state == JOB_IDLE && (t[5]->holds & HOLD_SLOT));
    CHECK_EQ(running(t, 6), 1);
    CHECK(sched_cancel(s, t[4], 71, NULL) == 0);
    sched_iterate(s, 71);
    CHECK(t[5]->state == JOB_RUNNING);
    CHECK_EQ(running(t, 6), 2);
    sched_destroy(s);
}

/* Two arrays keep their own counts; a task without a limit is a plain job;
 * a restored task passed held = 0 holds its slot at once. */
static void test_arrays_apart(void)
{
    struct sched *s = node_of(8);
    struct job *a[3], *b[3], *c[2];
    struct err e = {0};
    struct job_spec spec = {.name = "7[1]", .tasks = 1, .procs_per_task = 1, .walltime = 100};
    struct job *r = sched_submit(s, &spec, NULL);
    CHECK(sched_set_array(s, r, "7", 1, 1, 0, &e) == 0 && r->holds == 0);
    CHECK(sched_set_array(s, r, "7", 1, 1, 0, &e) == -1 && strstr(e.msg, "not a task"));
    /* A job found running (a Slurm task taken in after a restart) holds
     * one of its array's slots at once. */
    struct job_spec rs = {.name = "8[9]", .tasks = 1, .procs_per_task = 1, .walltime = 100};
    struct job *run = sched_submit(s, &rs, NULL);
    sched_iterate(s, 0); /* r and it start */
    CHECK(run->state == JOB_RUNNING);
    CHECK(sched_set_array(s, run, "8", 9, 2, 1, &e) == 0 && run->holds == 0);
    CHECK(sched_array_in_slot(run));
    for (int i = 0; i < 3; i++) {
        a[i] = task(s, "7", (unsigned)i + 2, 1, 0);
        b[i] = task(s, "8", (unsigned)i, 2, 0);
    }
    for (int i = 0; i < 2; i++)
        c[i] = task(s, "9", (unsigned)i, 0, 0);
    CHECK(c[0]->holds == 0);
    sched_iterate(s, 1);
    CHECK(r->state == JOB_RUNNING);
    CHECK_EQ(running(a, 3), 0); /* 7's one slot is the restored task's */
    CHECK_EQ(running(b, 3), 1); /* 8's other slot is the running task's */
    CHECK_EQ(running(c, 2), 2);
    r->exit_status = 0;
    sched_job_ended(s, r, 10);
    sched_iterate(s, 10);
    CHECK(a[0]->state == JOB_RUNNING && running(a, 3) == 1);
    sched_destroy(s);
}

/* A driver restoring an ended task's history names it its array's task:
 * it holds no slot (a waiting task of its array starts), and it may not be
 * passed held. */
static void test_ended_task(void)
{
    struct sched *s = node_of(2);
    struct err e;
    struct job_spec spec = {.name = "5[0]", .tasks = 1, .procs_per_task = 1, .walltime = 100};
    struct job *done = sched_add_ended(s, &spec, 0, 5, 0, 0, NULL);
    CHECK(done != NULL && done->state == JOB_COMPLETED);
    CHECK(sched_set_array(s, done, "5", 0, 1, 1, &e) == -1);
    CHECK(done->array == NULL);
    CHECK(sched_set_array(s, done, "5", 0, 1, 0, &e) == 0);
    CHECK(done->array && strcmp(done->array, "5") == 0 && done->aindex == 0);
    CHECK(!sched_array_in_slot(done));
    struct job *next = task(s, "5", 1, 1, 0);
    sched_iterate(s, 10);
    CHECK(next->state == JOB_RUNNING); /* the ended task held no slot */
    sched_destroy(s);
}

/* Array names are shared (engine/array.c): tasks of arrays made in a
 * random interleaving (fixed seed) each carry their own array's name, a
 * task that follows one of the same array shares its copy, and every copy
 * is freed with the engine (valgrind and the ASan build see a leak or a
 * double free). A few tasks are cancelled and ended on the way. */
static void test_shared_names(void)
{
    struct sched *s = node_of(4);
    srand(31);
    enum { N = 300 };
    static const char *const names[] = {"10", "11", "12345", "7"};
    struct job *t[N];
    const char *want[N];
    for (int i = 0; i < N; i++) {
        want[i] = names[rand() % 4];
        t[i] = task(s, want[i], (unsigned)i, 0, 0);
        CHECK(strcmp(t[i]->array, want[i]) == 0);
        if (i > 0)
            CHECK((t[i]->array == t[i - 1]->array) == (want[i] == want[i - 1]));
        if (rand() % 10 == 0)
            CHECK(sched_cancel(s, t[i], 0, NULL) == 0);
    }
    sched_iterate(s, 0);
    sched_iterate(s, 200); /* the first ones end */
    for (int i = 0; i < N; i++)
        CHECK(strcmp(t[i]->array, want[i]) == 0);
    sched_destroy(s);
}

int main(void)
{
    TEST_RUN(test_shared_names);
    TEST_RUN(test_ended_task);
    TEST_RUN(test_slot_limit);
    TEST_RUN(test_arrays_apart);
    return TEST_DONE();
}
