/*
 * depth_bench — one scheduling iteration with 10,000 waiting jobs at
 * RESERVATIONDEPTH 100 on 10,000 nodes (issue 8's benchmark), for each
 * backfill policy. The cluster is busy with jobs of staggered ends, so the
 * 100 reservations spread over the profile and every waiting job is a
 * backfill candidate. Prints the mean time of a full re-planning
 * iteration (a job ends before each).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cfg/cfg.h"
#include "engine/engine.h"

#define NODES 10000
#define QUEUED 10000
#define ROUNDS 10

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static struct sched *setup(const char *policy)
{
    char text[256];
    snprintf(text, sizeof text, "RESERVATIONDEPTH[0] 100\nBACKFILLPOLICY %s\n", policy);
    struct cfg *cfg = cfg_create();
    struct sched_policy pol;
    struct err e;
    if (cfg_load_string(cfg, text, "bench.cfg", &e) < 0 ||
        sched_policy_from_cfg(cfg, &pol, &e) < 0) {
        fprintf(stderr, "depth_bench: %s\n", e.msg);
        exit(1);
    }
    cfg_destroy(cfg);
    struct sched *s = sched_create(&pol, NULL);
    char name[32];
    for (int i = 0; i < NODES; i++) {
        snprintf(name, sizeof name, "n%d", i);
        sched_add_node(s, &(struct node_spec){.name = name, .procs = 1, .state = NODE_UP}, NULL);
    }
    /* The whole cluster busy: 1,000 jobs of 10 nodes ending over a day. */
    for (int i = 0; i < NODES / 10; i++) {
        snprintf(name, sizeof name, "r%d", i);
        struct job_spec js = {.name = name,
                              .tasks = 10,
                              .procs_per_task = 1,
                              .walltime = 600 + (i % 144) * 600,
                              .submit = 0};
        sched_submit(s, &js, NULL);
    }
    sched_iterate(s, 0);
    for (int i = 0; i < QUEUED; i++) {
        snprintf(name, sizeof name, "q%d", i);
        struct job_spec js = {.name = name,
                              .tasks = 1 + (i * 7919) % 200,
                              .procs_per_task = 1,
                              .walltime = 300 + (i % 97) * 300,
                              .submit = 1};
        sched_submit(s, &js, NULL);
    }
    sched_iterate(s, 1);
    return s;
}

static double rounds(struct sched *s)
{
    double t0 = now_s();
    for (int r = 0; r < ROUNDS; r++) {
        long now = 2 + r;
        for (size_t i = 0; i < sched_njobs(s); i++) {
            struct job *j = sched_job(s, i);
            if (j->state == JOB_RUNNING) {
                sched_job_ended(s, j, now);
                break;
            }
        }
        sched_iterate(s, now);
    }
    return (now_s() - t0) / ROUNDS;
}

int main(void)
{
    static const char *const policies[] = {"FIRSTFIT", "BESTFIT", "GREEDY", "PREEMPT"};
    for (int p = 0; p < 4; p++) {
        struct sched *s = setup(policies[p]);
        double t = rounds(s);
        size_t nres = 0;
        for (size_t i = 0; i < sched_njobs(s); i++)
            nres += sched_job(s, i)->resv_start >= 0;
        printf("depth_bench: %d nodes, %zu waiting, RESERVATIONDEPTH 100, %-8s: %.2f ms an "
               "iteration (%zu reservations held)\n",
               NODES, sched_nidle(s), policies[p], t * 1e3, nres);
        sched_destroy(s);
    }
    return 0;
}
