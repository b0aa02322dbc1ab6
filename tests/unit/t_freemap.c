/*
 * The free map and its summary (policy/alloc.c) against what the nodes
 * really hold: random starts, ends and node state changes (fixed seeds),
 * on one-processor nodes (walk_single, which trusts the map's bits whole)
 * and on four-processor nodes (walk_plain). A job is never placed on a
 * node that is not up, no up node holds more than it has, and once every
 * job ended and every node is back a job asking for the whole cluster
 * starts at once (no node with room lost from the map). Each node's used
 * processors match the running jobs' slots (a sum over them), and the
 * map and its summary match the nodes.
 */
#include <stdlib.h>

#include "core/sched_int.h"
#include "engine/engine.h"
#include "test.h"

#define NNODES 130 /* three free-map words, the last one partial */

static unsigned long rng;

static unsigned next_rand(unsigned n)
{
    rng = rng * 6364136223846793005UL + 1442695040888963407UL;
    return (unsigned)((rng >> 33) % n);
}

/* NODEALLOCATIONPOLICY and the resource manager's split of the runs */
static enum node_alloc order = NALLOC_LASTAVAILABLE;
static int fill_in_order;

static struct sched *cluster(int ppn)
{
    struct sched_policy pol;
    sched_policy_default(&pol);
    pol.nalloc = order;
    pol.fill_in_order = fill_in_order;
    struct sched *s = sched_create(&pol, NULL);
    char name[16];
    for (int i = 0; i < NNODES; i++) {
        snprintf(name, sizeof name, "n%d", i);
        struct node_spec spec = {.name = name, .procs = ppn, .state = NODE_UP};
        CHECK(sched_add_node(s, &spec, NULL) == 0);
    }
    return s;
}

static struct job *submit(struct sched *s, int tasks)
{
    static int serial;
    char name[16];
    snprintf(name, sizeof name, "%d", ++serial);
    struct job_spec spec = {.name = name, .tasks = tasks, .procs_per_task = 1, .walltime = 1000};
    struct err e;
    struct job *j = sched_submit(s, &spec, &e);
    CHECK(j != NULL);
    return j;
}

/* Every job started at now holds only up nodes; no up node is over. */
static int placements_ok(struct sched *s, long now, int ppn)
{
    for (size_t k = 0; k < sched_njobs(s); k++) {
        const struct job *j = sched_job(s, k);
        if (j->state != JOB_RUNNING || j->start != now)
            continue;
        for (size_t q = 0; q < j->nslots; q++)
            for (unsigned i = 0; i < j->slots[q].nnodes; i++)
                if (sched_node(s, j->slots[q].node + i)->state != NODE_UP)
                    return 0;
    }
    for (size_t i = 0; i < sched_nnodes(s); i++)
        if (sched_node(s, i)->state == NODE_UP && sched_node_used(s, i) > ppn)
            return 0;
    return 1;
}

/* Every node's used processors are what the running jobs' slots hold there
 * (the model: a sum over the jobs), after the runs of nodes that starts
 * take and ends give back (policy/alloc.c's take_run and give_run), and its
 * count of jobs the number of running jobs' slots there (give_nodes counts
 * down without a clamp at 0). */
static int used_ok(struct sched *s)
{
    int model[NNODES] = {0}, jobs[NNODES] = {0};
    for (size_t k = 0; k < sched_njobs(s); k++) {
        const struct job *j = sched_job(s, k);
        if (j->state != JOB_RUNNING)
            continue;
        for (size_t q = 0; q < j->nslots; q++)
            for (unsigned i = 0; i < j->slots[q].nnodes; i++) {
                model[j->slots[q].node + i] += (int)j->slots[q].procs;
                jobs[j->slots[q].node + i]++;
            }
    }
    for (size_t i = 0; i < NNODES; i++)
        if (sched_node_used(s, i) != model[i] || s->nt.node_jobs[i] != jobs[i])
            return 0;
    return 1;
}

/* The map's bit of each node is whether it has room, and the summary's bit
 * of each word whether the word has one (the walks clear a summary bit only
 * where the word they took from has none left). */
static int map_ok(const struct sched *s)
{
    for (size_t i = 0; i < NNODES; i++)
        if (!(s->nt.freemap[i / 64] >> (i % 64) & 1) != !(s->nt.node_used[i] < s->nt.node_cap[i]))
            return 0;
    for (size_t w = 0; w < (NNODES + 63) / 64; w++)
        if (!(s->nt.freesum[w / 64] >> (w % 64) & 1) != !s->nt.freemap[w])
            return 0;
    return 1;
}

/* Every running job's slots are in node order, none overlapping the next
 * (job.h; the plain walks leave them so without a sort, alloc_job), and
 * none that could have grown into the next: nodes that adjoin with the
 * same processors are one slot (walk_single joins runs across a word's
 * edge). */
static int slots_ok(const struct sched *s)
{
    for (size_t k = 0; k < sched_njobs(s); k++) {
        const struct job *j = sched_job(s, k);
        if (j->state != JOB_RUNNING)
            continue;
        for (size_t q = 1; q < j->nslots; q++) {
            const struct job_slot *a = &j->slots[q - 1], *b = &j->slots[q];
            if (a->node + a->nnodes > b->node ||
                (a->node + a->nnodes == b->node && a->procs == b->procs && a->mem == b->mem))
                return 0;
        }
    }
    return 1;
}

/* End every running job at now; whether any job was queued or running. */
static int busy(struct sched *s, long now)
{
    int any = 0;
    for (size_t k = 0; k < sched_njobs(s); k++) {
        struct job *j = sched_job(s, k);
        if (j->state == JOB_RUNNING)
            sched_job_ended(s, j, now);
        any |= j->state == JOB_RUNNING || j->state == JOB_IDLE;
    }
    return any;
}

static void run_seed(unsigned long seed, int ppn)
{
    rng = seed;
    struct sched *s = cluster(ppn);
    long now = 1;
    int bad = 0;
    for (int step = 0; step < 400; step++, now++) {
        unsigned op = next_rand(10);
        if (op < 4) {
            submit(s, 1 + (int)next_rand(40));
        } else if (op < 7) { /* end a running job, if any */
            size_t n = sched_njobs(s), at = next_rand((unsigned)n + 1);
            for (size_t k = 0; k < n; k++) {
                struct job *j = sched_job(s, (at + k) % n);
                if (j->state == JOB_RUNNING) {
                    sched_job_ended(s, j, now);
                    break;
                }
            }
        } else { /* a node goes down (jobs keep it busy) or comes back */
            size_t i = next_rand(NNODES);
            int up = sched_node(s, i)->state == NODE_UP;
            sched_node_set_state(s, i, up ? NODE_DOWN : NODE_UP, NULL);
        }
        sched_iterate(s, now);
        if (!placements_ok(s, now, ppn) || !used_ok(s) || !map_ok(s) || !slots_ok(s))
            bad++;
    }
    CHECK_EQ(bad, 0);
    /* Every node comes back and every job runs to its end (bounded: one
     * job at least starts an iteration): then the whole cluster is free. */
    for (size_t i = 0; i < NNODES; i++)
        sched_node_set_state(s, i, NODE_UP, NULL);
    for (int round = 0; round < 500 && busy(s, now); round++)
        sched_iterate(s, ++now);
    CHECK_EQ(busy(s, now), 0);
    struct job *all = submit(s, NNODES * ppn);
    sched_iterate(s, ++now);
    CHECK_EQ(all->state, JOB_RUNNING);
    sched_destroy(s);
}

/* One-processor nodes: the run-at-a-time walk. */
static void test_single(void)
{
    for (unsigned long seed = 1; seed <= 20; seed++)
        run_seed(seed, 1);
}

/* Four-processor nodes: the node-at-a-time walk. */
static void test_plain(void)
{
    for (unsigned long seed = 1; seed <= 20; seed++)
        run_seed(seed, 4);
}

/* The smallest case: a one-processor node goes down under its job, the
 * job ends, and the next job must not be placed there. */
static void test_down_under_job(void)
{
    struct sched *s = cluster(1);
    struct job *a = submit(s, 1);
    sched_iterate(s, 1);
    CHECK_EQ(a->state, JOB_RUNNING);
    size_t node = a->slots[0].node;
    sched_node_set_state(s, node, NODE_DOWN, NULL);
    sched_job_ended(s, a, 2);
    struct job *b = submit(s, NNODES - 1);
    sched_iterate(s, 3);
    CHECK_EQ(b->state, JOB_RUNNING);
    CHECK(placements_ok(s, 3, 1));
    sched_destroy(s);
}

/* Both walks in table order (FIRSTAVAILABLE) and with the resource
 * manager's split (fill_in_order, which takes the nodes again). */
static void test_first_available(void)
{
    order = NALLOC_FIRSTAVAILABLE;
    for (fill_in_order = 0; fill_in_order < 2; fill_in_order++)
        for (unsigned long seed = 1; seed <= 10; seed++) {
            run_seed(seed, 1);
            run_seed(seed, 4);
        }
    fill_in_order = 0;
    order = NALLOC_LASTAVAILABLE;
}

/* LASTAVAILABLE (the default) with fill_in_order: backwards, then taken
 * again in table order. */
static void test_last_available_refill(void)
{
    fill_in_order = 1;
    for (unsigned long seed = 1; seed <= 10; seed++) {
        run_seed(seed, 1);
        run_seed(seed, 4);
    }
    fill_in_order = 0;
}

int main(void)
{
    TEST_RUN(test_down_under_job);
    TEST_RUN(test_single);
    TEST_RUN(test_plain);
    TEST_RUN(test_first_available);
    TEST_RUN(test_last_available_refill);
    return TEST_DONE();
}
