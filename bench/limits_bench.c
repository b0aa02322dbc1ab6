/*
 * limits_bench — what one iteration costs under throttling limits when
 * little changed. Two clusters, each held full by running jobs, with
 * 100,000 waiting jobs of 1,000 users under USERCFG MAXIJOB, MAXJOB and
 * MAXPS (soft and hard):
 *   - issue 16's: 10,000 nodes of 8 processors, 10,000 running jobs;
 *   - issue 31's: 100,000 one-processor nodes under the throttling page's
 *     own limits, 12,500 running jobs of 8 processors (target: within
 *     20 ms after one job ends).
 * Prints the time of an iteration after one running job ends, walking
 * eligibility credential by credential (policy/eset.c) and, for
 * comparison, the whole queue as Maui does (sched_set_full_walk). A
 * benchmark: it judges nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cfg/cfg.h"
#include "engine/engine.h"

/* WARMUP: the first iterations after the burst of submissions, which sort
 * the new jobs into their credentials' stopped lists (policy/eset.c): timed
 * and printed apart from the ROUNDS that follow. */
enum { USERS = 1000, WAITING = 100000, WARMUP = 2, ROUNDS = 20 };

struct bench_case {
    const char *issue; /* which issue's figure, for the line printed */
    int nodes, procs;  /* nodes of procs processors each */
    int running;       /* running jobs of 8 processors, holding the cluster full */
    const char *limits;
};

static const struct bench_case cases[] = {
    {"issue 16", 10000, 8, 10000, "USERCFG[DEFAULT] MAXIJOB=8 MAXJOB=20 MAXPS=400000,2000000\n"},
    {"issue 31, target <= 20 ms", 100000, 1, 12500,
     "USERCFG[DEFAULT] MAXIJOB=8 MAXJOB=72 MAXPS=72000,1080000\n"},
};

/* The process's CPU time, not the wall clock: the machine may be shared,
 * and other processes would stretch a wall-clock worst case. */
static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void die(const char *what, const struct err *e)
{
    fprintf(stderr, "limits_bench: %s: %s\n", what, e->msg);
    exit(1);
}

static struct sched *setup(const struct bench_case *c)
{
    struct sched_policy pol;
    struct err e;
    struct cfg *none = cfg_create(), *lim = cfg_create();
    if (cfg_load_string(none, "", "none.cfg", &e) < 0 || sched_policy_from_cfg(none, &pol, &e) < 0)
        die("policy", &e);
    struct sched *s = sched_create(&pol, NULL);
    char name[32], user[32];
    for (int i = 0; i < c->nodes; i++) {
        snprintf(name, sizeof name, "n%06d", i);
        struct node_spec n = {.name = name, .procs = c->procs, .state = NODE_UP};
        sched_add_node(s, &n, NULL);
    }
    /* The cluster held full, before any limit applies. */
    for (int i = 0; i < c->running; i++) {
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
    if (cfg_load_string(lim, c->limits, "bench.cfg", &e) < 0 ||
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

/* n iterations, each after the next running job ends: mean and worst, ms. */
static void rounds(struct sched *s, int n, size_t *next, long *t, double *mean, double *worst)
{
    *mean = *worst = 0;
    for (int r = 0; r < n; r++) {
        struct job *j;
        while ((j = sched_job(s, (*next)++)) && j->state != JOB_RUNNING)
            ;
        if (!j)
            break;
        double t0 = now_s();
        sched_job_ended(s, j, ++*t);
        sched_iterate(s, *t);
        double d = (now_s() - t0) * 1e3;
        *mean += d / n;
        if (d > *worst)
            *worst = d;
    }
}

static void run_case(const struct bench_case *c)
{
    struct sched *s = setup(c);
    size_t next = 0;
    long t = 300;
    double warm, warm_worst, inc, inc_worst, full, full_worst;
    rounds(s, WARMUP, &next, &t, &warm, &warm_worst);
    rounds(s, ROUNDS, &next, &t, &inc, &inc_worst);
    sched_set_full_walk(s, 1);
    sched_iterate(s, ++t); /* the switch itself: every parked job back in the queue */
    rounds(s, ROUNDS, &next, &t, &full, &full_worst);
    printf("one iteration after a job ends, %d waiting jobs of %d users under MAXIJOB/MAXPS on "
           "%d nodes of %d processors (%s): CPU %.2f ms (worst %.2f) by credential, %.1f ms (worst "
           "%.1f) walking the whole queue (%.0fx); the first %d after the submissions: worst "
           "%.2f ms\n",
           WAITING, USERS, c->nodes, c->procs, c->issue, inc, inc_worst, full, full_worst,
           inc > 0 ? full / inc : 0, WARMUP, warm_worst);
    sched_destroy(s);
}

int main(void)
{
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run_case(&cases[i]);
    return 0;
}
