/*
 * Memory and whole nodes as the engine places and plans them (issue 27):
 * a job's memory per task and per node holds it off nodes whose known
 * memory is short, an exclusive job takes whole nodes no one shares, the
 * plan reserves a memory-bound job where memory frees, sched_job_fit
 * refuses a task no node's memory holds, and sched_job_reslot books what
 * the resource manager actually gave a job.
 */
#include <stdlib.h>

#include "engine/engine.h"
#include "test.h"

/* nodes nodes of ppn processors and mem MB each (n0, n1, ...). */
static struct sched *cluster(int nodes, int ppn, long mem)
{
    struct sched_policy pol;
    sched_policy_default(&pol);
    pol.nalloc = NALLOC_FIRSTAVAILABLE; /* Slurm's order: the first nodes first */
    struct sched *s = sched_create(&pol, NULL);
    char name[16];
    for (int i = 0; i < nodes; i++) {
        snprintf(name, sizeof name, "n%d", i);
        struct node_spec spec = {.name = name, .procs = ppn, .mem = mem, .state = NODE_UP};
        CHECK(sched_add_node(s, &spec, NULL) == 0);
    }
    return s;
}

static struct job *submit(struct sched *s, const struct job_spec *in)
{
    static int serial;
    char name[16];
    snprintf(name, sizeof name, "%d", ++serial);
    struct job_spec spec = *in;
    spec.name = name;
    if (!spec.walltime)
        spec.walltime = 100;
    struct err e;
    struct job *j = sched_submit(s, &spec, &e);
    CHECK(j != NULL);
    return j;
}

/* Nodes j holds, "name:procs/mem" joined by spaces. */
static const char *where(struct sched *s, const struct job *j)
{
    static char buf[256];
    size_t len = 0;
    buf[0] = '\0';
    for (size_t k = 0; k < j->nslots; k++)
        for (unsigned i = 0; i < j->slots[k].nnodes; i++)
            len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s:%u/%u", len ? " " : "",
                                    sched_node(s, j->slots[k].node + i)->name, j->slots[k].procs,
                                    j->slots[k].mem);
    return buf;
}

/* Four jobs of one task and 800 MB on four nodes of 1000 MB: one a node,
 * all at once; a fifth waits for one to end, and is reserved then. */
static void test_memory_per_task(void)
{
    struct sched *s = cluster(4, 4, 1000);
    struct job *j[5];
    for (int i = 0; i < 5; i++)
        j[i] = submit(
            s, &(struct job_spec){
                   .tasks = 1, .procs_per_task = 1, .mem_per_task = 800, .walltime = 100 + 10 * i});
    sched_iterate(s, 0);
    for (int i = 0; i < 4; i++)
        CHECK_EQ(j[i]->state, JOB_RUNNING);
    CHECK_STR(where(s, j[0]), "n0:1/800");
    CHECK_STR(where(s, j[3]), "n3:1/800");
    CHECK_EQ(j[4]->state, JOB_IDLE);
    CHECK_EQ(sched_earliest_start(s, j[4], 0), 100);
    /* A job without memory still has the processors left. */
    struct job *free_cpu =
        submit(s, &(struct job_spec){.tasks = 3, .procs_per_task = 1, .walltime = 50});
    sched_iterate(s, 1);
    CHECK_EQ(free_cpu->state, JOB_RUNNING);
    sched_job_ended(s, j[0], 100);
    sched_iterate(s, 100);
    CHECK_EQ(j[4]->state, JOB_RUNNING);
    CHECK_STR(where(s, j[4]), "n0:1/800");
    sched_destroy(s);
}

/* Tasks of three processors: one a node of four, four jobs at once; memory
 * per processor (Slurm's --mem-per-cpu) limits tasks a node takes. */
static void test_task_shape(void)
{
    struct sched *s = cluster(4, 4, 1000);
    struct job *j[4];
    for (int i = 0; i < 4; i++)
        j[i] = submit(s, &(struct job_spec){.tasks = 1, .procs_per_task = 3, .mem_per_task = 300});
    sched_iterate(s, 0);
    for (int i = 0; i < 4; i++) {
        CHECK_EQ(j[i]->state, JOB_RUNNING);
        CHECK_EQ(j[i]->nslots, 1);
    }
    CHECK_STR(where(s, j[1]), "n1:3/300");
    sched_destroy(s);
    /* 400 MB a task: two a node of 1000 MB whatever the processors. */
    s = cluster(2, 4, 1000);
    struct job *m =
        submit(s, &(struct job_spec){.tasks = 4, .procs_per_task = 1, .mem_per_task = 400});
    sched_iterate(s, 0);
    CHECK_EQ(m->state, JOB_RUNNING);
    CHECK_STR(where(s, m), "n0:2/800 n1:2/800");
    sched_destroy(s);
}

/* Memory per node (--mem) and a whole node's memory: a node gives it once
 * per node, whatever its tasks there. */
static void test_memory_per_node(void)
{
    struct sched *s = cluster(2, 4, 1000);
    struct job *a =
        submit(s, &(struct job_spec){.tasks = 6, .procs_per_task = 1, .mem_per_node = 600});
    struct job *b =
        submit(s, &(struct job_spec){.tasks = 1, .procs_per_task = 1, .mem_per_node = 600});
    struct job *c = submit(
        s, &(struct job_spec){.tasks = 1, .procs_per_task = 1, .mem_per_node = JOB_MEM_WHOLE});
    sched_iterate(s, 0);
    CHECK_EQ(a->state, JOB_RUNNING);
    CHECK_STR(where(s, a), "n0:4/600 n1:2/600");
    CHECK_EQ(b->state, JOB_IDLE); /* 400 MB left on each node */
    CHECK_EQ(c->state, JOB_IDLE); /* no node with all its memory free */
    sched_job_ended(s, a, 10);
    sched_iterate(s, 10);
    CHECK_EQ(b->state, JOB_RUNNING);
    CHECK_EQ(c->state, JOB_RUNNING);
    CHECK_STR(where(s, c), "n1:1/1000");
    sched_destroy(s);
}

/* An exclusive job beside a 12-processor job: the fourth node, whole; a
 * one-processor job then finds no node (none is shared with it). */
static void test_exclusive(void)
{
    struct sched *s = cluster(4, 4, 1000);
    struct job *big = submit(s, &(struct job_spec){.tasks = 12, .procs_per_task = 1});
    struct job *x = submit(s, &(struct job_spec){.tasks = 1, .procs_per_task = 1, .exclusive = 1});
    struct job *one = submit(s, &(struct job_spec){.tasks = 1, .procs_per_task = 1});
    sched_iterate(s, 0);
    CHECK_EQ(big->state, JOB_RUNNING);
    CHECK_EQ(x->state, JOB_RUNNING);
    CHECK_STR(where(s, x), "n3:4/0");
    CHECK_EQ(sched_node_used(s, 3), 4);
    /* Started, not yet running at the resource manager: Maui's Starting. */
    CHECK_STR(job_display_state(x), "Running");
    x->flags |= JOB_STARTING;
    CHECK_STR(job_display_state(x), "Starting");
    x->flags &= ~(unsigned)JOB_STARTING;
    CHECK_EQ(one->state, JOB_IDLE);
    sched_job_ended(s, big, 5);
    sched_iterate(s, 5);
    CHECK_EQ(one->state, JOB_RUNNING);
    CHECK_STR(where(s, one), "n0:1/0");
    /* An exclusive job waits for a node no job uses. */
    struct job *x2 = submit(s, &(struct job_spec){.tasks = 2, .procs_per_task = 1, .exclusive = 1});
    sched_iterate(s, 6);
    CHECK_EQ(x2->state, JOB_RUNNING);
    CHECK_STR(where(s, x2), "n1:4/0");
    sched_destroy(s);
}

/* What could never run: a task's memory, or processors, over every node. */
static void test_fit(void)
{
    struct sched *s = cluster(4, 4, 1000);
    struct err e = {{0}};
    struct job_spec big_mem = {
        .name = "1", .tasks = 1, .procs_per_task = 1, .mem_per_node = 1908, .walltime = 10};
    CHECK_EQ(sched_job_fit(s, &big_mem, SCHED_FIT_ALL, &e), SCHED_NO_NODES);
    CHECK_STR(e.msg, "needs 1908 MB of memory on one node, the largest node has 1000 MB");
    struct job_spec wide = {.name = "2", .tasks = 1, .procs_per_task = 8, .walltime = 10};
    CHECK_EQ(sched_job_fit(s, &wide, SCHED_FIT_ALL, &e), SCHED_NO_NODES);
    CHECK_STR(e.msg, "needs 8 processors on one node, the largest node has 4");
    struct job_spec many = {
        .name = "3", .tasks = 5, .procs_per_task = 1, .mem_per_task = 800, .walltime = 10};
    CHECK_EQ(sched_job_fit(s, &many, SCHED_FIT_ALL, &e), SCHED_NO_NODES);
    struct job_spec ok = {
        .name = "4", .tasks = 4, .procs_per_task = 1, .mem_per_task = 800, .walltime = 10};
    CHECK_EQ(sched_job_fit(s, &ok, SCHED_FIT_ALL, &e), SCHED_FITS);
    /* Configured: nodes that are down count (they may come back). */
    sched_node_set_state(s, 0, NODE_DOWN, NULL);
    sched_node_set_state(s, 1, NODE_DOWN, NULL);
    CHECK_EQ(sched_job_fit(s, &ok, SCHED_FIT_NODES, &e), SCHED_NO_NODES);
    CHECK_EQ(sched_job_fit(s, &ok, SCHED_FIT_NODES | SCHED_FIT_CONFIGURED, &e), SCHED_FITS);
    sched_destroy(s);
}

/* The resource manager split the tasks its own way: the books follow, and
 * the next job goes where processors really are free. */
static void test_reslot(void)
{
    struct sched *s = cluster(2, 4, 1000);
    struct job *a =
        submit(s, &(struct job_spec){.tasks = 6, .procs_per_task = 1, .mem_per_task = 100});
    sched_iterate(s, 0);
    CHECK_STR(where(s, a), "n0:4/400 n1:2/200");
    struct job_slot real[] = {{0, 1, 2, 200}, {1, 1, 4, 400}};
    struct err e;
    CHECK(sched_job_reslot(s, a, real, 2, 1, &e) == 0);
    CHECK_STR(where(s, a), "n0:2/200 n1:4/400");
    CHECK_EQ(sched_node_used(s, 0), 2);
    CHECK_EQ(sched_node_used(s, 1), 4);
    struct job *b = submit(s, &(struct job_spec){.tasks = 2, .procs_per_task = 1});
    sched_iterate(s, 2);
    CHECK_EQ(b->state, JOB_RUNNING);
    CHECK_STR(where(s, b), "n0:2/0");
    /* Widened to whole nodes: nothing is left for a third. */
    struct job_slot whole[] = {{0, 2, 4, 1000}};
    CHECK(sched_job_reslot(s, a, whole, 1, 3, &e) == 0);
    struct job *c =
        submit(s, &(struct job_spec){.tasks = 1, .procs_per_task = 1, .mem_per_task = 10});
    sched_iterate(s, 4);
    CHECK_EQ(c->state, JOB_IDLE);
    struct job_slot bad[] = {{5, 1, 1, 0}};
    CHECK(sched_job_reslot(s, a, bad, 1, 5, &e) < 0);
    CHECK(sched_job_reslot(s, c, whole, 1, 5, &e) < 0);
    sched_job_ended(s, a, 10);
    sched_iterate(s, 10);
    CHECK_EQ(c->state, JOB_RUNNING);
    sched_destroy(s);
}

/* Nodes of unknown memory (0): memory requests do not hold a job off. */
static void test_unknown_memory(void)
{
    struct sched *s = cluster(1, 4, 0);
    struct job *a =
        submit(s, &(struct job_spec){.tasks = 2, .procs_per_task = 1, .mem_per_task = 5000});
    sched_iterate(s, 0);
    CHECK_EQ(a->state, JOB_RUNNING);
    CHECK_STR(where(s, a), "n0:2/0");
    sched_destroy(s);
}

/* fill_in_order (the resource manager's split, Slurm's): whatever nodes
 * NODEALLOCATIONPOLICY picks (LASTAVAILABLE: the last ones), the tasks go
 * on them in table order, each as full as it can be while every later one
 * keeps a task; three uneven jobs all start at once. */
static void test_fill_in_order(void)
{
    struct sched_policy pol;
    sched_policy_default(&pol);
    pol.nalloc = NALLOC_LASTAVAILABLE;
    pol.fill_in_order = 1;
    struct sched *s = sched_create(&pol, NULL);
    char name[16];
    for (int i = 0; i < 4; i++) {
        snprintf(name, sizeof name, "n%d", i);
        struct node_spec spec = {.name = name, .procs = 4, .mem = 1000, .state = NODE_UP};
        CHECK(sched_add_node(s, &spec, NULL) == 0);
    }
    struct job *a = submit(s, &(struct job_spec){.tasks = 6, .procs_per_task = 1});
    struct job *b = submit(s, &(struct job_spec){.tasks = 6, .procs_per_task = 1});
    struct job *c = submit(s, &(struct job_spec){.tasks = 4, .procs_per_task = 1});
    sched_iterate(s, 0);
    CHECK_STR(where(s, a), "n2:4/0 n3:2/0");
    CHECK_STR(where(s, b), "n1:4/0 n3:2/0");
    CHECK_EQ(c->state, JOB_RUNNING);
    CHECK_STR(where(s, c), "n0:4/0");
    /* Around another job: ten tasks over four nodes. */
    sched_job_ended(s, a, 1);
    sched_job_ended(s, b, 1);
    sched_job_ended(s, c, 1);
    struct job *h = submit(s, &(struct job_spec){.tasks = 3, .procs_per_task = 1});
    sched_iterate(s, 1); /* n3:3 (the last node first) */
    struct job *d =
        submit(s, &(struct job_spec){.tasks = 10, .procs_per_task = 1, .mem_per_task = 100});
    sched_iterate(s, 2);
    CHECK_STR(where(s, h), "n3:3/0");
    /* The walk took n3:1, n2:4, n1:4, n0:1; Slurm fills them in order. */
    CHECK_STR(where(s, d), "n0:4/400 n1:4/400 n2:1/100 n3:1/100");
    CHECK_EQ(d->state, JOB_RUNNING);
    sched_destroy(s);
}

int main(void)
{
    TEST_RUN(test_memory_per_task);
    TEST_RUN(test_task_shape);
    TEST_RUN(test_memory_per_node);
    TEST_RUN(test_exclusive);
    TEST_RUN(test_fit);
    TEST_RUN(test_reslot);
    TEST_RUN(test_unknown_memory);
    TEST_RUN(test_fill_in_order);
    return TEST_DONE();
}
