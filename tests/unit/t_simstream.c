/*
 * t_simstream — the replay fed while the workload is read (sim_stream):
 * for fixed-seed random workloads (many jobs submitted at one instant,
 * some killed at their walltime, some too big for the cluster) handed over
 * in random pieces, cut inside runs of one submit time too, the outcomes
 * and the instants of every iteration are sim_run's on the whole workload.
 * An iteration run at an instant before every job submitted then was known
 * would show as an extra iteration there, or another schedule.
 */
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "sim/sim.h"
#include "test.h"

#define MAXJOBS 400
#define MAXITER 4000

/* The instants the replay iterated at (sim_hooks.iterated). */
struct times {
    long at[MAXITER];
    size_t n;
};

static void note_time(void *ctx, const struct sched *s, long now)
{
    (void)s;
    struct times *t = ctx;
    if (t->n < MAXITER)
        t->at[t->n] = now;
    t->n++;
}

/* n jobs from seed: submits a few seconds apart, often at one instant. */
static void make_jobs(struct wl_job *jobs, size_t n, unsigned seed)
{
    srand(seed);
    long t = rand() % 5;
    for (size_t i = 0; i < n; i++) {
        t += rand() % 4 == 0 ? 1 + rand() % 30 : 0;
        long run = 1 + rand() % 60;
        jobs[i] = (struct wl_job){.id = (uint32_t)i + 1,
                                  .submit = t,
                                  .runtime_lo = run,
                                  .walltime_lo = run + rand() % 40 - 5, /* some killed */
                                  .tasks = 1 + rand() % 11,             /* 11 > 10: rejected */
                                  .procs_per_task = 1,
                                  .line = (long)i + 1};
    }
}

static struct sched *cluster(int policy)
{
    struct sched_policy p;
    sched_policy_default(&p);
    if (policy == 1)
        p.backfill = BF_NONE;
    else if (policy == 2)
        p.resdepth = 1000; /* conservative */
    struct sched *s = sched_create(&p, NULL);
    for (int i = 0; i < 5; i++) {
        char name[16];
        snprintf(name, sizeof name, "n%d", i);
        struct node_spec spec = {.name = name, .procs = 2, .state = NODE_UP};
        CHECK(sched_add_node(s, &spec, NULL) == 0);
    }
    return s;
}

/* One random case: the whole replay against the streamed one. */
static void one_case(unsigned seed)
{
    static struct wl_job jobs[MAXJOBS];
    static struct sim_outcome whole[MAXJOBS];
    static struct times tw, ts;
    size_t n = 50 + (size_t)(seed * 7919u % (MAXJOBS - 50));
    make_jobs(jobs, n, seed);
    int policy = (int)(seed % 3), forget = (int)(seed / 3 % 2);
    long every = seed % 5 == 0 ? 7 : 0;

    tw.n = ts.n = 0;
    struct workload wl = {.jobs = jobs, .njobs = n};
    struct sched *s = cluster(policy);
    struct sim_hooks h = {
        .iterated = note_time, .forget_ended = forget, .iterate_every = every, .ctx = &tw};
    size_t rej = sim_run(s, &wl, whole, SIM_FOREVER, &h);
    long iters = sched_stats(s)->iterations;
    sched_destroy(s);

    /* The same jobs, known a random piece at a time. */
    struct workload part = {.jobs = jobs, .njobs = 0};
    s = cluster(policy);
    h.ctx = &ts;
    struct sim_stream *st = NULL;
    srand(seed * 31u + 1);
    while (part.njobs < n) {
        part.njobs += 1 + (size_t)rand() % 12;
        if (part.njobs > n)
            part.njobs = n;
        if (!st)
            st = sim_stream_begin(s, &part, &h);
        sim_stream_advance(st, 0);
        /* never past the last known job's instant */
        CHECK(ts.n == 0 ||
              ts.at[ts.n - 1 < MAXITER ? ts.n - 1 : MAXITER - 1] < jobs[part.njobs - 1].submit);
    }
    sim_stream_advance(st, 1);
    struct sim_outcome *out = NULL;
    size_t rej2 = sim_stream_end(st, &out);

    CHECK_EQ(rej2, rej);
    CHECK_EQ(sched_stats(s)->iterations, iters);
    CHECK_EQ(ts.n, tw.n);
    int same_times = ts.n == tw.n &&
                     memcmp(ts.at, tw.at, sizeof *ts.at * (ts.n < MAXITER ? ts.n : MAXITER)) == 0;
    CHECK(same_times);
    size_t diff = 0;
    for (size_t i = 0; i < n; i++)
        diff += out[i].start != whole[i].start || out[i].end != whole[i].end ||
                out[i].backfilled != whole[i].backfilled || out[i].rejected != whole[i].rejected ||
                out[i].killed != whole[i].killed;
    CHECK_EQ(diff, 0);
    if (diff || !same_times || rej2 != rej)
        fprintf(stderr, "  seed %u: %zu jobs, policy %d, forget %d, every %ld\n", seed, n, policy,
                forget, every);
    sim_outcomes_free(out, n);
    free(out);
    sim_outcomes_free(whole, n);
    sched_destroy(s);
}

static void test_random_pieces(void)
{
    for (unsigned seed = 1; seed <= 60; seed++)
        one_case(seed);
}

/* The pieces end inside a run of one instant: the jobs of that instant
 * read later are queued with the others, before its iteration. */
static void test_cut_inside_an_instant(void)
{
    struct wl_job jobs[4];
    for (int i = 0; i < 4; i++)
        jobs[i] = (struct wl_job){.id = (uint32_t)i + 1,
                                  .submit = i < 3 ? 10 : 20,
                                  .runtime_lo = 100,
                                  .walltime_lo = 100,
                                  .tasks = i == 0 ? 4 : 8,
                                  .procs_per_task = 1,
                                  .line = i + 1};
    struct sched *s = cluster(1); /* FCFS: J1 runs, J2 (8 of 6 left) blocks J3 */
    struct workload part = {.jobs = jobs, .njobs = 2};
    struct times t = {.n = 0};
    struct sim_hooks h = {.iterated = note_time, .ctx = &t};
    struct sim_stream *st = sim_stream_begin(s, &part, &h);
    sim_stream_advance(st, 0);
    CHECK_EQ(t.n, 0); /* J3 may come at 10 still */
    part.njobs = 3;
    sim_stream_advance(st, 0);
    CHECK_EQ(t.n, 0);
    part.njobs = 4; /* J4 at 20: the instant 10 is whole */
    sim_stream_advance(st, 0);
    CHECK_EQ(t.n, 1);
    CHECK_EQ(t.at[0], 10);
    CHECK_EQ(sched_nidle(s), 2); /* J2 and J3 queued at 10, J4 not yet */
    sim_stream_advance(st, 1);
    struct sim_outcome *out = NULL;
    CHECK_EQ(sim_stream_end(st, &out), 0);
    CHECK_EQ(out[0].start, 10);
    CHECK_EQ(out[1].start, 110);
    CHECK_EQ(out[2].start, 210);
    sim_outcomes_free(out, 4);
    free(out);
    sched_destroy(s);
}

int main(void)
{
    TEST_RUN(test_cut_inside_an_instant);
    TEST_RUN(test_random_pieces);
    return TEST_DONE();
}
