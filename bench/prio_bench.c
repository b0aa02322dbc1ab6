/*
 * prio_bench — what computing priorities costs inside an iteration.
 *
 * A 1,000-node cluster held full by one long job, 100,000 idle jobs from
 * 1,000 users, and a priority block with every kind of factor weighted (so
 * the queue is re-ordered every iteration). Prints the time to compute
 * 100,000 start priorities and the time of whole scheduling iterations.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cfg/cfg.h"
#include "engine/engine.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static const char *config =
    "QUEUETIMEWEIGHT 10\nXFACTORWEIGHT 100\nCREDWEIGHT 1\nUSERWEIGHT 1\nGROUPWEIGHT 1\n"
    "RESWEIGHT 1\nPROCWEIGHT 5\nWALLTIMEWEIGHT -1\nBYPASSWEIGHT 2\n"
    "USERCFG[DEFAULT] PRIORITY=10\nGROUPCFG[g7] PRIORITY=500\n";

static struct sched *setup(struct cfg *cfg, int njobs)
{
    struct sched_policy pol;
    struct err e;
    if (cfg_load_string(cfg, config, "bench.cfg", &e) < 0 ||
        sched_policy_from_cfg(cfg, &pol, &e) < 0) {
        fprintf(stderr, "prio_bench: %s\n", e.msg);
        exit(1);
    }
    struct sched *s = sched_create(&pol, NULL);
    sched_creds_from_cfg(s, cfg, &e);
    char name[32], user[32], group[32];
    for (int i = 0; i < 1000; i++) {
        snprintf(name, sizeof name, "n%d", i);
        struct node_spec n = {.name = name, .procs = 8, .state = NODE_UP};
        sched_add_node(s, &n, NULL);
    }
    struct job_spec big = {
        .name = "big", .tasks = 8000, .procs_per_task = 1, .walltime = 1000000, .submit = 0};
    sched_submit(s, &big, NULL);
    sched_iterate(s, 0);
    for (int i = 0; i < njobs; i++) {
        snprintf(name, sizeof name, "%d", i);
        snprintf(user, sizeof user, "u%d", i % 1000);
        snprintf(group, sizeof group, "g%d", i % 20);
        struct job_spec js = {.name = name,
                              .tasks = 1 + i % 64,
                              .procs_per_task = 1,
                              .walltime = 600 + (i % 100) * 60,
                              .submit = i / 10,
                              .user = user,
                              .group = group};
        sched_submit(s, &js, NULL);
    }
    return s;
}

int main(void)
{
    enum { NJOBS = 100000, ROUNDS = 5 };
    struct cfg *cfg = cfg_create();
    struct sched *s = setup(cfg, NJOBS);
    size_t n;
    struct job *const *q = sched_queue(s, 20000, &n);
    double t0 = now_s(), sum = 0;
    for (int r = 0; r < ROUNDS; r++)
        for (size_t i = 0; i < n; i++)
            sum += sched_job_priority(s, q[i], 20000 + r, NULL);
    double prio = (now_s() - t0) / ROUNDS;
    t0 = now_s();
    for (int r = 0; r < ROUNDS; r++)
        sched_iterate(s, 20000 + r);
    double iter = (now_s() - t0) / ROUNDS;
    printf("priority of %zu idle jobs: %.1f ms; whole iteration (priorities, sort, plan): "
           "%.1f ms; priorities are %.0f%% of it%s\n",
           n, prio * 1e3, iter * 1e3, 100.0 * prio / iter, sum > 0 ? "" : " ");
    sched_destroy(s);
    cfg_destroy(cfg);
    return 0;
}
