/*
 * resv_bench — what standing reservations cost a scheduling iteration.
 *
 * A 10,000-node cluster (8 processors each), half of it busy with running
 * jobs of staggered lengths, and a queue of waiting jobs of mixed sizes.
 * The same scenario is timed without reservations and with standing
 * reservations: one on a 2,500-node host list (a regex) for a class, a
 * floating 1,000-task one for a group, and a daily business-hours one with
 * a time limit. Prints the mean time of a full re-planning iteration in
 * each case, and the ratio. Issue 7's target: a small factor.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cfg/cfg.h"
#include "engine/engine.h"

#define NODES 10000
#define QUEUED 10000
#define ROUNDS 100

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static const char *with_sr =
    "RESERVATIONDEPTH 10\n"
    "SRCFG[big] HOSTLIST=n[0-9]?[0-9]?[0-2][0-9][0-9] PERIOD=INFINITY CLASSLIST=special\n"
    "SRCFG[float] TASKCOUNT=1000 PERIOD=INFINITY GROUPLIST=g3\n"
    "SRCFG[day] TASKCOUNT=500 STARTTIME=9:00:00 ENDTIME=17:00:00 TIMELIMIT=1:00:00 DEPTH=3\n";
static const char *without_sr = "RESERVATIONDEPTH 10\n";

static struct sched *setup(const char *text)
{
    struct cfg *cfg = cfg_create();
    struct sched_policy pol;
    struct err e;
    if (cfg_load_string(cfg, text, "bench.cfg", &e) < 0 ||
        sched_policy_from_cfg(cfg, &pol, &e) < 0) {
        fprintf(stderr, "resv_bench: %s\n", e.msg);
        exit(1);
    }
    struct sched *s = sched_create(&pol, NULL);
    char name[32], user[32], group[32];
    for (int i = 0; i < NODES; i++) {
        snprintf(name, sizeof name, "n%d", i);
        struct node_spec n = {.name = name, .procs = 8, .state = NODE_UP};
        sched_add_node(s, &n, NULL);
    }
    if (sched_standing_from_cfg(s, cfg, &e) < 0) {
        fprintf(stderr, "resv_bench: %s\n", e.msg);
        exit(1);
    }
    cfg_destroy(cfg);
    /* Half the cluster busy: 5,000 8-processor jobs ending over a day. */
    for (int i = 0; i < NODES / 2; i++) {
        snprintf(name, sizeof name, "r%d", i);
        struct job_spec js = {.name = name,
                              .tasks = 8,
                              .procs_per_task = 1,
                              .walltime = 3600 + (i % 24) * 3600,
                              .submit = 0};
        sched_submit(s, &js, NULL);
    }
    sched_iterate(s, 0);
    for (int i = 0; i < QUEUED; i++) {
        snprintf(name, sizeof name, "q%d", i);
        snprintf(user, sizeof user, "u%d", i % 500);
        snprintf(group, sizeof group, "g%d", i % 10);
        struct job_spec js = {.name = name,
                              .tasks = 64 + (i % 50) * 64,
                              .procs_per_task = 1,
                              .walltime = 1800 + (i % 40) * 900,
                              .submit = 1,
                              .user = user,
                              .group = group,
                              .class_ = i % 7 ? "batch" : "special"};
        sched_submit(s, &js, NULL);
    }
    return s;
}

/* Mean seconds of a full iteration: a job ends before each, so the whole
 * queue is planned again. */
static double iterations(struct sched *s, size_t *resv)
{
    sched_iterate(s, 1);
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
    *resv = sched_nresv(s);
    return (now_s() - t0) / ROUNDS;
}

int main(void)
{
    size_t n0, n1;
    struct sched *a = setup(without_sr);
    double plain = iterations(a, &n0);
    struct sched *b = setup(with_sr);
    double sr = iterations(b, &n1);
    printf("resv_bench: %d nodes, %d queued, depth 10: iteration %.1f ms without reservations, "
           "%.1f ms with %zu standing instances (x%.1f)\n",
           NODES, QUEUED, plain * 1e3, sr * 1e3, n1, sr / plain);
    sched_destroy(a);
    sched_destroy(b);
    return 0;
}
