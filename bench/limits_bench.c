/*
 * limits_bench — what one iteration costs under throttling limits when
 * little changed (issue 16): 10,000 nodes of 8 processors, held full by
 * 10,000 running jobs, and 100,000 waiting jobs of 1,000 users under
 * USERCFG MAXIJOB, MAXJOB and MAXPS (soft and hard). Prints the time of an
 * iteration after one running job ends, walking eligibility credential by
 * credential (policy/eset.c) and, for comparison, the whole queue as Maui
 * does (sched_set_full_walk). A benchmark: it judges nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cfg/cfg.h"
#include "engine/engine.h"

enum { NODES = 10000, RUNNING = 10000, USERS = 1000, WAITING = 100000, ROUNDS = 20 };

static const char *limits_cfg = "USERCFG[DEFAULT] MAXIJOB=8 MAXJOB=20 MAXPS=400000,2000000\n";

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void die(const char *what, const struct err *e)
{
    fprintf(stderr, "limits_bench: %s: %s\n", what, e->msg);
    exit(1);
}

static struct sched *setup(void)
{
    struct sched_policy pol;
    struct err e;
    struct cfg *none = cfg_create(), *lim = cfg_create();
    if (cfg_load_string(none, "", "none.cfg", &e) < 0 || sched_policy_from_cfg(none, &pol, &e) < 0)
        die("policy", &e);
    struct sched *s = sched_create(&pol, NULL);
    char name[32], user[32];
    for (int i = 0; i < NODES; i++) {
        snprintf(name, sizeof name, "n%05d", i);
        struct node_spec n = {.name = name, .procs = 8, .state = NODE_UP};
        sched_add_node(s, &n, NULL);
    }
    /* The cluster held full, before any limit applies. */
    for (int i = 0; i < RUNNING; i++) {
        snprintf(name, sizeof name, "r%d", i);
        snprintf(user, sizeof user, "u%d", i % USERS);
        struct job_spec js = {.name = name,
                              .tasks = 8,
                              .procs_per_task = 1,
                              .walltime = 3600 + (i % 3600),
                              .submit = 0,
                              .user = user};
        if (!sched_submit(s, &js, &e))
            die("submit", &e);
    }
    sched_iterate(s, 0);
    if (cfg_load_string(lim, limits_cfg, "bench.cfg", &e) < 0 ||
        sched_limits_from_cfg(s, lim, &e) < 0)
        die("limits", &e);
    for (int i = 0; i < WAITING; i++) {
        snprintf(name, sizeof name, "w%d", i);
        snprintf(user, sizeof user, "u%d", i % USERS);
        struct job_spec js = {.name = name,
                              .tasks = 1 + i % 16,
                              .procs_per_task = 1,
                              .walltime = 600 + (i % 50) * 60,
                              .submit = 1 + i / 1000,
                              .user = user};
        if (!sched_submit(s, &js, &e))
            die("submit", &e);
    }
    sched_iterate(s, 200);
    cfg_destroy(none);
    cfg_destroy(lim);
    return s;
}

/* ROUNDS iterations, each after the next running job ends: mean and worst, ms. */
static void rounds(struct sched *s, size_t *next, long *t, double *mean, double *worst)
{
    *mean = *worst = 0;
    for (int r = 0; r < ROUNDS; r++) {
        struct job *j;
        while ((j = sched_job(s, (*next)++)) && j->state != JOB_RUNNING)
            ;
        if (!j)
            break;
        double t0 = now_s();
        sched_job_ended(s, j, ++*t);
        sched_iterate(s, *t);
        double d = (now_s() - t0) * 1e3;
        *mean += d / ROUNDS;
        if (d > *worst)
            *worst = d;
    }
}

int main(void)
{
    struct sched *s = setup();
    size_t next = 0;
    long t = 300;
    double inc, inc_worst, full, full_worst;
    rounds(s, &next, &t, &inc, &inc_worst);
    sched_set_full_walk(s, 1);
    sched_iterate(s, ++t); /* the switch itself: every parked job back in the queue */
    rounds(s, &next, &t, &full, &full_worst);
    printf("one iteration after a job ends, %d waiting jobs of %d users under MAXIJOB/MAXPS on "
           "%d nodes: %.2f ms (worst %.2f) by credential, %.1f ms (worst %.1f) walking the whole "
           "queue (%.0fx)\n",
           WAITING, USERS, NODES, inc, inc_worst, full, full_worst, inc > 0 ? full / inc : 0);
    sched_destroy(s);
    return 0;
}
