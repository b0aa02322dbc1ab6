/*
 * Scenario tests for the scheduling iteration: small hand-made workloads with
 * known start times, replayed through the simulator (sim/sim.c) so that the
 * event order is the real one: ends, then submissions, then one iteration.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cfg/cfg.h"
#include "core/sched_int.h"
#include "engine/engine.h"
#include "sim/sim.h"
#include "test.h"

/* {submit, runtime, walltime, procs} */
struct row {
    long submit, runtime, walltime;
    long long procs;
};

struct run {
    struct sched *s;
    struct workload wl;
    struct sim_outcome out[32];
    size_t rejected;
};

static void add_nodes(struct sched *s, int nodes, int ppn)
{
    char name[16];
    for (int i = 0; i < nodes; i++) {
        snprintf(name, sizeof name, "n%d", i);
        struct node_spec spec = {.name = name, .procs = ppn, .state = NODE_UP};
        CHECK(sched_add_node(s, &spec, NULL) == 0);
    }
}

/* Replay rows on nodes x ppn processors under the given policy. */
static void replay(struct run *r, const struct sched_policy *pol, int nodes, int ppn,
                   const struct row *rows, size_t n)
{
    static struct wl_job jobs[32];
    for (size_t i = 0; i < n; i++)
        jobs[i] = (struct wl_job){.id = (uint32_t)i + 1,
                                  .submit = rows[i].submit,
                                  .runtime_lo = rows[i].runtime,
                                  .walltime_lo = rows[i].walltime,
                                  .tasks = rows[i].procs,
                                  .procs_per_task = 1,
                                  .line = (long)i + 1};
    r->wl = (struct workload){.jobs = jobs, .njobs = n};
    r->s = sched_create(pol, NULL);
    add_nodes(r->s, nodes, ppn);
    r->rejected = sim_run(r->s, &r->wl, r->out, SIM_FOREVER, NULL);
}

static void done(struct run *r)
{
    sim_outcomes_free(r->out, r->wl.njobs); /* a rejected job's reason */
    sched_destroy(r->s);
}

static struct sched_policy easy(void)
{
    struct sched_policy p;
    sched_policy_default(&p);
    return p;
}

static struct sched_policy fcfs(void)
{
    struct sched_policy p = easy();
    p.backfill = BF_NONE;
    return p;
}

/* A short job fits before the reservation of a blocked one. */
static void test_backfill_that_fits(void)
{
    const struct row rows[] = {
        {0, 100, 100, 8}, /* J1 runs 0..100 */
        {1, 100, 100, 5}, /* J2 waits: reserved at 100 */
        {2, 50, 50, 2},   /* J3 fits in 2 free processors and ends at 52 */
    };
    struct run r;
    struct sched_policy p = easy();
    replay(&r, &p, 1, 10, rows, 3);
    CHECK_EQ(r.out[0].start, 0);
    CHECK_EQ(r.out[1].start, 100);
    CHECK_EQ(r.out[2].start, 2);
    CHECK(r.out[2].backfilled);
    CHECK(!r.out[1].backfilled);
    done(&r);
}

/* A job that would delay the reservation waits; one that ends in time or
 * fits the extra processors goes. */
static void test_backfill_that_would_delay(void)
{
    const struct row rows[] = {
        {0, 100, 100, 6}, /* J1: 4 free */
        {1, 100, 100, 8}, /* J2: shadow 100, extra 10 - 8 = 2 */
        {2, 200, 200, 3}, /* J3: fits now, runs past 100 and needs 3 > 2: waits */
        {3, 50, 50, 3},   /* J4: ends at 53, before the shadow: goes */
        {4, 500, 500, 1}, /* J5: runs past 100 but fits the extra: goes */
    };
    struct run r;
    struct sched_policy p = easy();
    replay(&r, &p, 10, 1, rows, 5);
    CHECK_EQ(r.out[1].start, 100);
    CHECK_EQ(r.out[3].start, 3);
    CHECK_EQ(r.out[4].start, 4);
    CHECK(r.out[2].start >= 100);  /* not before the reserved job */
    CHECK_EQ(r.out[2].start, 200); /* J2 8 + J5 1 leave 1 until 200 */
    done(&r);
}

/* A job ending exactly at the shadow time does not delay the reservation. */
static void test_ends_exactly_at_shadow(void)
{
    const struct row rows[] = {
        {0, 100, 100, 6},
        {1, 100, 100, 8}, /* shadow 100 */
        {1, 99, 99, 4},   /* ends at 100 = shadow */
    };
    struct run r;
    struct sched_policy p = easy();
    replay(&r, &p, 1, 10, rows, 3);
    CHECK_EQ(r.out[2].start, 1);
    CHECK_EQ(r.out[1].start, 100);
    done(&r);
}

/* Extra processors count every job that ends exactly at the shadow time. */
static void test_extra_counts_jobs_ending_at_shadow(void)
{
    const struct row rows[] = {
        {0, 100, 100, 5},   /* ends 100 */
        {0, 150, 150, 3},   /* ends 150 */
        {1, 10, 10, 6},     /* shadow 100: 2 + 5 = 7 free, extra 1 */
        {2, 1000, 1000, 1}, /* uses the extra processor */
        {3, 1000, 1000, 1}, /* fits now (1 free) but the extra is used up */
    };
    struct run r;
    struct sched_policy p = easy();
    replay(&r, &p, 1, 10, rows, 5);
    CHECK_EQ(r.out[2].start, 100);
    CHECK_EQ(r.out[3].start, 2);
    CHECK_EQ(r.out[4].start, 110); /* after the reserved job ends */
    done(&r);
}

/* BACKFILLPOLICY NONE: nothing passes a waiting job. */
static void test_fcfs_nothing_passes(void)
{
    const struct row rows[] = {
        {0, 100, 100, 8},
        {1, 100, 100, 5},
        {2, 50, 50, 2}, /* would fit, but J2 waits */
        {3, 10, 10, 1},
    };
    struct run r;
    struct sched_policy p = fcfs();
    replay(&r, &p, 1, 10, rows, 4);
    CHECK_EQ(r.out[1].start, 100);
    CHECK_EQ(r.out[2].start, 100);
    CHECK_EQ(r.out[3].start, 100);
    CHECK(!r.out[2].backfilled);
    done(&r);
}

/* RESERVATIONDEPTH 2 protects the second blocked job too. */
static void test_depth_two(void)
{
    const struct row rows[] = {
        {0, 100, 100, 8},  /* J1 */
        {1, 100, 100, 10}, /* J2: reserved 100..200 */
        {2, 100, 100, 4},  /* J3: needs 4, only 2 free: reserved 200..300 under depth 2 */
        {3, 150, 150, 2},  /* J4: fits now; with depth 1 it runs 3..153. Depth 2: 3..153
                              overlaps J2 (needs all 10) -> waits */
    };
    struct run r;
    struct sched_policy p = easy();
    p.resdepth = 2;
    replay(&r, &p, 1, 10, rows, 4);
    CHECK_EQ(r.out[1].start, 100);
    CHECK_EQ(r.out[2].start, 200);
    CHECK(r.out[3].start >= 200);
    done(&r);
    p.resdepth = 0; /* no reservations: plain greedy */
    replay(&r, &p, 1, 10, rows, 4);
    CHECK_EQ(r.out[3].start, 3);
    done(&r);
}

/* A job larger than the cluster is rejected, not shrunk. */
static void test_too_big_is_rejected(void)
{
    const struct row rows[] = {{0, 10, 10, 11}, {0, 10, 10, 10}};
    struct run r;
    struct sched_policy p = easy();
    replay(&r, &p, 5, 2, rows, 2);
    CHECK_EQ(r.rejected, 1);
    CHECK(r.out[0].rejected);
    CHECK_EQ(r.out[0].start, -1);
    CHECK_EQ(r.out[1].start, 0);
    done(&r);
}

/* A job running past its walltime is killed at walltime + JOBMAXOVERRUN. */
static void test_walltime_kill_and_overrun(void)
{
    const struct row rows[] = {{0, 500, 100, 4}, {0, 50, 50, 10}};
    struct run r;
    struct sched_policy p = easy();
    replay(&r, &p, 1, 10, rows, 2);
    CHECK_EQ(r.out[0].end, 100);
    CHECK(r.out[0].killed);
    CHECK_EQ(r.out[1].start, 100);
    done(&r);
    p.overrun = 60;
    replay(&r, &p, 1, 10, rows, 2);
    CHECK_EQ(r.out[0].end, 160);
    CHECK_EQ(r.out[1].start, 160); /* the plan followed the overrun */
    done(&r);
    p.overrun = -1; /* never killed */
    replay(&r, &p, 1, 10, rows, 2);
    CHECK_EQ(r.out[0].end, 500);
    CHECK_EQ(r.out[1].start, 500);
    done(&r);
}

/* Tasks spread over nodes; shared access packs jobs onto partly used nodes. */
static void test_nodes_hold_the_tasks(void)
{
    const struct row rows[] = {{0, 100, 100, 3}, {0, 100, 100, 5}, {1, 10, 10, 1}};
    struct run r;
    struct sched_policy p = easy();
    replay(&r, &p, 3, 3, rows, 3);
    CHECK_EQ(r.out[0].start, 0);
    CHECK_EQ(r.out[1].start, 0);
    CHECK_EQ(r.out[2].start, 1);
    long used = 0;
    for (size_t i = 0; i < sched_nnodes(r.s); i++)
        used += sched_node_used(r.s, i);
    CHECK_EQ(used, 0); /* everything given back at the end */
    done(&r);
}

/* Allocations over many one-processor nodes cross bitmap words; what ends
 * is found free again (run-length slots, word-wise release). */
static void test_many_small_nodes(void)
{
    const struct row rows[] = {
        {0, 100, 100, 100}, /* nodes 0..99 */
        {0, 200, 200, 20},  /* nodes 100..119 */
        {1, 50, 50, 110},   /* waits for the first: 10 + 100 free at 100 */
        {2, 10, 10, 10},    /* fits the last 10 now: backfill */
    };
    struct run r;
    struct sched_policy p = easy();
    replay(&r, &p, 130, 1, rows, 4);
    CHECK_EQ(r.out[2].start, 100);
    CHECK_EQ(r.out[3].start, 2);
    long used = 0;
    for (size_t i = 0; i < sched_nnodes(r.s); i++)
        used += sched_node_used(r.s, i);
    CHECK_EQ(used, 0);
    done(&r);
}

/* A job's allocation is stored as runs of consecutive nodes. */
static void test_allocation_runs(void)
{
    struct sched_policy p = easy();
    struct sched *s = sched_create(&p, NULL);
    add_nodes(s, 70, 1);
    struct job_spec js = {.name = "1", .tasks = 70, .procs_per_task = 1, .walltime = 10};
    struct job *j = sched_submit(s, &js, NULL);
    sched_iterate(s, 0);
    CHECK(j && j->state == JOB_RUNNING);
    CHECK_EQ(j->nslots, 1);
    CHECK_EQ(j->slots[0].nnodes, 70);
    sched_job_ended(s, j, 5);
    js.name = "2";
    js.tasks = 70;
    struct job *k = sched_submit(s, &js, NULL);
    sched_iterate(s, 5);
    CHECK(k && k->state == JOB_RUNNING);
    sched_destroy(s);
}

/* A job's name is kept whole whatever its length: in the record up to 15
 * bytes, on the heap beyond (engine/engine.c set_name); both are found by
 * name and freed with the job (make asan checks the frees). */
static void test_names_short_and_long(void)
{
    struct sched_policy p = easy();
    struct sched *s = sched_create(&p, NULL);
    add_nodes(s, 2, 1);
    const char *names[] = {"", "123456789012345", "1234567890123456",
                           "a-job-name-of-forty-bytes-or-more-000001"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        struct job_spec js = {.name = names[i], .tasks = 1, .procs_per_task = 1, .walltime = 10};
        struct job *j = sched_submit(s, &js, NULL);
        CHECK(j && strcmp(j->name, names[i]) == 0);
        if (i > 0)
            CHECK(sched_find_job(s, names[i]) == j);
    }
    sched_iterate(s, 0);
    sched_destroy(s);
}

/* What a scan of a long queue reads of every waiting job lies in the first
 * 48 bytes of its record: at most two cache lines (issue 31: spread over
 * five, a burst's scan waited on memory). */
static void test_hot_fields_share_a_line(void)
{
    CHECK(offsetof(struct job, tasks) + sizeof(int) <= 48);
    CHECK(offsetof(struct job, procs_per_task) + sizeof(int) <= 48);
    CHECK(offsetof(struct job, walltime) + sizeof(long) <= 48);
    CHECK(offsetof(struct job, flags) + sizeof(unsigned) <= 48);
    CHECK(offsetof(struct job, wait) + sizeof(enum job_wait) <= 48);
    CHECK(offsetof(struct job, exclusive) + sizeof(int) <= 48);
    CHECK(offsetof(struct job, wait_gen) + sizeof(unsigned long) <= 48);
    CHECK(offsetof(struct job, bypass) + sizeof(long) <= 48);
    CHECK(offsetof(struct job, bp_slot) + sizeof(unsigned) <= 48);
}

/* One-processor nodes are taken a free-map word at a time (alloc.c,
 * walk_single): against a model of the nodes, over 200 nodes (words cut at
 * 64, 128, 192) and jobs starting and ending at random, a job gets the
 * lowest free nodes (FIRSTAVAILABLE) or the highest (LASTAVAILABLE), as
 * runs in node order none of which could be joined to the next, and each
 * node's use is what the model says. */
static void check_single_walk(enum node_alloc nalloc)
{
    enum { N = 200, STEPS = 400 };
    struct sched_policy p = easy();
    p.nalloc = nalloc;
    struct sched *s = sched_create(&p, NULL);
    add_nodes(s, N, 1);
    struct job *run[N];
    int owner[N], nrun = 0, nfree = N;
    for (int i = 0; i < N; i++)
        owner[i] = -1;
    unsigned seed = 31;
    char name[16];
    for (int step = 0; step < STEPS; step++) {
        seed = seed * 1103515245u + 12345u;
        unsigned r = (seed >> 16) & 0x7fff;
        if (nrun && (r % 3 == 0 || nfree == 0)) { /* an end */
            int x = (int)(r / 3 % (unsigned)nrun);
            for (size_t k = 0; k < run[x]->nslots; k++)
                for (unsigned i = 0; i < run[x]->slots[k].nnodes; i++)
                    owner[run[x]->slots[k].node + i] = -1;
            nfree += (int)run[x]->tasks;
            sched_job_ended(s, run[x], step);
            run[x] = run[--nrun];
        } else { /* a start, of any size up to the free nodes */
            long tasks = 1 + (long)(r % (unsigned)nfree);
            snprintf(name, sizeof name, "%d", step);
            struct job_spec js = {
                .name = name, .tasks = tasks, .procs_per_task = 1, .walltime = 100000};
            struct job *j = sched_submit(s, &js, NULL);
            sched_iterate(s, step);
            CHECK(j && j->state == JOB_RUNNING);
            if (!j || j->state != JOB_RUNNING)
                break;
            long want = tasks;
            int expect[N] = {0};
            for (int x = 0; x < N && want; x++) {
                int i = nalloc == NALLOC_LASTAVAILABLE ? N - 1 - x : x;
                if (owner[i] < 0)
                    expect[i] = 1, want--;
            }
            int got[N] = {0};
            for (size_t k = 0; k < j->nslots; k++) {
                CHECK_EQ(j->slots[k].procs, 1);
                if (k)
                    CHECK(j->slots[k].node > j->slots[k - 1].node + j->slots[k - 1].nnodes);
                for (unsigned i = 0; i < j->slots[k].nnodes; i++)
                    got[j->slots[k].node + i] = 1;
            }
            for (int i = 0; i < N; i++) {
                CHECK_EQ(got[i], expect[i]);
                if (got[i])
                    owner[i] = step;
            }
            nfree -= (int)tasks;
            run[nrun++] = j;
        }
        for (int i = 0; i < N; i++)
            CHECK_EQ(sched_node_used(s, (size_t)i), owner[i] >= 0);
    }
    sched_destroy(s);
}

static void test_single_walk(void)
{
    check_single_walk(NALLOC_FIRSTAVAILABLE);
    check_single_walk(NALLOC_LASTAVAILABLE);
}

/* A job submitted held is blocked by its hold at once, before any
 * iteration marks it (checkjob said "insufficient idle processors" in
 * between; daemon_lean.sh saw it). */
static void test_hold_before_iteration(void)
{
    struct sched_policy p;
    sched_policy_default(&p);
    struct sched *s = sched_create(&p, NULL);
    struct node_spec n = {.name = "n0", .procs = 1, .state = NODE_UP};
    CHECK(sched_add_node(s, &n, NULL) == 0);
    struct job_spec js = {
        .name = "1", .tasks = 1, .procs_per_task = 1, .walltime = 60, .holds = HOLD_USER};
    struct job *j = sched_submit(s, &js, NULL);
    CHECK(j != NULL);
    const char *why = j ? sched_job_blocked(s, j) : NULL;
    CHECK(why && strcmp(why, "job has a user hold") == 0);
    CHECK(j && sched_job_listed_blocked(s, j) != NULL);
    sched_destroy(s);
}

/* Down nodes do not count. */
static void test_down_nodes(void)
{
    struct sched_policy p = easy();
    struct sched *s = sched_create(&p, NULL);
    struct node_spec up = {.name = "a", .procs = 4, .state = NODE_UP};
    struct node_spec down = {.name = "b", .procs = 4, .state = NODE_DOWN};
    struct err e;
    CHECK(sched_add_node(s, &up, &e) == 0);
    CHECK(sched_add_node(s, &down, &e) == 0);
    CHECK(sched_add_node(s, &up, &e) < 0);
    CHECK_HAS(e.msg, "defined twice");
    CHECK_EQ(sched_up_procs(s), 4);
    struct job_spec js = {.name = "1", .tasks = 5, .procs_per_task = 1, .walltime = 10};
    CHECK(sched_submit(s, &js, &e) == NULL);
    CHECK_HAS(e.msg, "asks for 5 processors, the cluster has 4");
    sched_destroy(s);
}

/* A scheduler from maui.cfg text: NODECFG nodes, standing reservations. */
static struct sched *from_cfg(const char *text)
{
    struct cfg *cfg = cfg_create();
    struct err err = {{0}};
    struct sched_policy pol;
    struct sched *s = NULL;
    if (cfg_load_string(cfg, text, "maui.cfg", &err) == 0 &&
        sched_policy_from_cfg(cfg, &pol, &err) == 0) {
        s = sched_create(&pol, NULL);
        sched_set_zone(s, 0, 0);
        if (sched_add_nodes_from_cfg(s, cfg, &err) < 0 ||
            sched_standing_from_cfg(s, cfg, &err) < 0) {
            sched_destroy(s);
            s = NULL;
        }
    }
    if (!s)
        fprintf(stderr, "    from_cfg: %s\n", err.msg);
    CHECK(s != NULL);
    cfg_destroy(cfg);
    return s;
}

/* Three tasks of two processors on two 3-processor nodes: the counts say 6
 * of 6, the nodes hold one task each. The job must not be reserved a second
 * ahead at every iteration (a wake-up each second, for ever), nor keep a
 * one-processor job off the nodes. */
static void test_shapes_never_fit(void)
{
    struct sched *s = from_cfg("NODECFG[n1] PROCS=3\nNODECFG[n2] PROCS=3\n"
                               "NODECFG[n3] PROCS=1\n"
                               "SRCFG[z] HOSTLIST=n3 USERLIST=u9 PERIOD=INFINITY\n");
    if (!s)
        return;
    struct job_spec xs = {
        .name = "x", .tasks = 3, .procs_per_task = 2, .walltime = 3600, .user = "u1"};
    struct job *x = sched_submit(s, &xs, NULL);
    sched_iterate(s, 0);
    CHECK(x && x->state == JOB_IDLE);
    CHECK(!(x->flags & JOB_RESERVED)); /* the nodes can never hold it */
    CHECK(sched_earliest_start(s, x, 0) >= SCHED_NEVER);
    CHECK(sched_next_wakeup(s, 0) >= SCHED_NEVER);
    struct job_spec ys = {.name = "y",
                          .tasks = 1,
                          .procs_per_task = 1,
                          .walltime = 3600,
                          .submit = 100,
                          .user = "u1"};
    struct job *y = sched_submit(s, &ys, NULL);
    sched_iterate(s, 100);
    CHECK(y && y->state == JOB_RUNNING);
    sched_destroy(s);
}

/* The same on a plain cluster (one region, no reservation): the count of
 * free processors is not what the nodes hold. */
static void test_shapes_never_fit_plain(void)
{
    struct sched *s = from_cfg("NODECFG[n1] PROCS=3\nNODECFG[n2] PROCS=3\n");
    if (!s)
        return;
    struct job_spec xs = {.name = "x", .tasks = 3, .procs_per_task = 2, .walltime = 3600};
    struct job *x = sched_submit(s, &xs, NULL);
    struct job_spec fs = {.name = "fits", .tasks = 2, .procs_per_task = 2, .walltime = 3600};
    struct job *f = sched_submit(s, &fs, NULL);
    sched_iterate(s, 0);
    CHECK(x && x->state == JOB_IDLE && !(x->flags & JOB_RESERVED));
    CHECK(sched_earliest_start(s, x, 0) >= SCHED_NEVER);
    CHECK(f && f->state == JOB_RUNNING); /* two tasks of two: one per node */
    sched_destroy(s);
}

/* A job no instance of a daily standing reservation admits is reserved
 * past the last instance made; that start is no wake-up (the next instance
 * pushes it a day on, for ever): the reservations' own edges are the
 * driver's events. */
static void test_no_wakeup_past_the_calendar(void)
{
    struct sched *s = from_cfg("NODECFG[n1] PROCS=1\nSRCFG[x] HOSTLIST=n1 USERLIST=2\n");
    if (!s)
        return;
    struct job_spec js = {
        .name = "1", .tasks = 1, .procs_per_task = 1, .walltime = 100, .user = "1"};
    struct job *j = sched_submit(s, &js, NULL);
    sched_iterate(s, 0);
    CHECK(j && j->state == JOB_IDLE && (j->flags & JOB_RESERVED));
    CHECK(sched_next_wakeup(s, 0) >= SCHED_NEVER);
    CHECK_EQ(sched_next_event(s, 0, 1), 86400); /* the first instance ends */
    sched_destroy(s);
}

/* A scheduler from maui.cfg text with its limits too. */
static struct sched *with_limits(const char *text)
{
    struct cfg *cfg = cfg_create();
    struct err err = {{0}};
    struct sched_policy pol;
    struct sched *s = NULL;
    if (cfg_load_string(cfg, text, "maui.cfg", &err) == 0 &&
        sched_policy_from_cfg(cfg, &pol, &err) == 0) {
        s = sched_create(&pol, NULL);
        if (sched_add_nodes_from_cfg(s, cfg, &err) < 0 || sched_creds_from_cfg(s, cfg, &err) < 0 ||
            sched_limits_from_cfg(s, cfg, &err) < 0) {
            sched_destroy(s);
            s = NULL;
        }
    }
    if (!s)
        fprintf(stderr, "    with_limits: %s\n", err.msg);
    CHECK(s != NULL);
    cfg_destroy(cfg);
    return s;
}

/*
 * What time alone changes wakes the scheduler (issue 26, policy/wake.c).
 * MAXPS=72000: a 2-processor job with 36,000 s of walltime, an 8-processor
 * one-hour job refused for it: the wake-up is when the sum has run down to
 * 43,200, at 14,400 s, and the job starts then.
 */
static void test_wake_maxps(void)
{
    struct sched *s = with_limits("NODECFG[n1] PROCS=16\nUSERCFG[DEFAULT] MAXPS=72000\n");
    if (!s)
        return;
    struct job_spec a = {
        .name = "1", .tasks = 2, .procs_per_task = 1, .walltime = 36000, .user = "u"};
    struct job_spec b = {
        .name = "2", .tasks = 8, .procs_per_task = 1, .walltime = 3600, .user = "u"};
    struct job *j1 = sched_submit(s, &a, NULL), *j2 = sched_submit(s, &b, NULL);
    sched_iterate(s, 0);
    CHECK(j1 && j1->state == JOB_RUNNING && j2 && j2->state == JOB_IDLE);
    long t = 0;
    for (int i = 0; i < 4 && (t = sched_next_wakeup(s, t)) == sched_last_iteration(s); i++)
        sched_iterate(s, t); /* the walks after the start: again at 0 */
    CHECK_EQ(t, 14400);
    sched_iterate(s, 14399);
    CHECK(j2->state == JOB_IDLE);
    sched_iterate(s, 14400);
    CHECK(j2->state == JOB_RUNNING);
    sched_destroy(s);
}

/*
 * MAXIJOB=8, 10 one-processor jobs on 64 processors: the iteration that
 * starts 8 promotes the other 2, and asks for another iteration at the same
 * instant (sched_next_wakeup answers now), which starts them. Without a free
 * processor it does not ask.
 */
static void test_wake_promotion(void)
{
    struct sched *s = with_limits("NODECFG[n1] PROCS=64\nUSERCFG[DEFAULT] MAXIJOB=8\n");
    if (!s)
        return;
    struct job *j[10];
    for (int i = 0; i < 10; i++) {
        char name[16];
        snprintf(name, sizeof name, "%d", i + 1);
        struct job_spec js = {
            .name = name, .tasks = 1, .procs_per_task = 1, .walltime = 3600, .user = "u"};
        j[i] = sched_submit(s, &js, NULL);
    }
    sched_iterate(s, 0);
    CHECK(j[7]->state == JOB_RUNNING && j[8]->state == JOB_IDLE);
    CHECK_EQ(sched_next_wakeup(s, 0), 0);
    sched_iterate(s, 0);
    CHECK(j[8]->state == JOB_RUNNING && j[9]->state == JOB_RUNNING);
    CHECK(sched_next_wakeup(s, 0) > 0); /* nothing more to promote: the chain ends */
    sched_destroy(s);
}

/*
 * A priority order that moves with time (XFACTOR) polls at the multiples of
 * RMPOLLINTERVAL only while a crossing could start a job: a job the plan
 * kept off free processors by a reservation. A static order never polls.
 */
static void test_poll(void)
{
    const char *cfgs[2] = {"NODECFG[n1] PROCS=4\nRMPOLLINTERVAL 0:01:00\n",
                           "NODECFG[n1] PROCS=4\nRMPOLLINTERVAL 0:01:00\nXFACTORWEIGHT 100\n"};
    for (int c = 0; c < 2; c++) {
        struct sched *s = with_limits(cfgs[c]);
        if (!s)
            return;
        struct job_spec r = {
            .name = "r", .tasks = 2, .procs_per_task = 1, .walltime = 1000, .user = "u"};
        struct job_spec big = {
            .name = "big", .tasks = 4, .procs_per_task = 1, .walltime = 100, .user = "u"};
        struct job_spec small = {.name = "small",
                                 .tasks = 2,
                                 .procs_per_task = 1,
                                 .walltime = 5000,
                                 .submit = 20,
                                 .user = "u"};
        sched_submit(s, &r, NULL);
        sched_submit(s, &big, NULL);
        sched_iterate(s, 0);
        sched_submit(s, &small, NULL);
        sched_iterate(s, 20); /* small fits the 2 free, but would delay big's reservation */
        CHECK_EQ(sched_next_poll(s, 20), c ? 60 : SCHED_NEVER);
        CHECK_EQ(sched_next_poll(s, 60), c ? 120 : SCHED_NEVER);
        sched_destroy(s);
    }
}

/*
 * Jobs tied at the priority floor go by submission until one rises above it
 * (policy/wake.c, floor_ties_part). MAXIJOB=1 per user, BACKFILLPOLICY NONE,
 * 4 processors, 3 busy: user a's first job (4 processors) holds a's idle slot
 * until it is cancelled at 30, so a's second job (submitted at 5) counts its
 * queue time from the last iteration that refused it (20); user b's job
 * (1 processor, submitted at 10) from 10. Both at the floor, a's goes first
 * and stops the scan; at 71 b's rises above the floor and goes first: the
 * replay polls for it (60, 120) and starts it at 120, as a scheduler polling
 * would. Without the inversion (b submitted at 40) it does not poll.
 */
static void test_poll_floor_ties(void)
{
    for (int late = 0; late < 2; late++) {
        struct sched *s = with_limits("NODECFG[n1] PROCS=4\nRMPOLLINTERVAL 0:01:00\n"
                                      "BACKFILLPOLICY NONE\nUSERCFG[DEFAULT] MAXIJOB=1\n");
        if (!s)
            return;
        struct job_spec r = {
            .name = "r", .tasks = 3, .procs_per_task = 1, .walltime = 10000, .user = "r"};
        struct job_spec a0 = {
            .name = "a0", .tasks = 4, .procs_per_task = 1, .walltime = 100, .user = "a"};
        struct job_spec a1 = {.name = "a1",
                              .tasks = 4,
                              .procs_per_task = 1,
                              .walltime = 100,
                              .submit = 5,
                              .user = "a"};
        struct job_spec b = {.name = "b",
                             .tasks = 1,
                             .procs_per_task = 1,
                             .walltime = 100,
                             .submit = late ? 40 : 10,
                             .user = "b"};
        sched_submit(s, &r, NULL);
        struct job *ja0 = sched_submit(s, &a0, NULL);
        sched_iterate(s, 0);
        sched_submit(s, &a1, NULL);
        sched_iterate(s, 5);
        if (!late)
            sched_submit(s, &b, NULL);
        sched_iterate(s, 10);
        sched_iterate(s, 20);
        CHECK(sched_cancel(s, ja0, 30, NULL) == 0);
        sched_iterate(s, 30);
        if (late) {
            sched_submit(s, &b, NULL);
            sched_iterate(s, 40);
        }
        struct job *jb = sched_find_job(s, "b");
        CHECK(jb && jb->state == JOB_IDLE);
        CHECK_EQ(sched_next_poll(s, late ? 40 : 30), late ? SCHED_NEVER : 60);
        if (!late) {
            sched_iterate(s, 60);
            CHECK(jb->state == JOB_IDLE);
            CHECK_EQ(sched_next_poll(s, 60), 120);
            sched_iterate(s, 120);
            CHECK(jb->state == JOB_RUNNING);
        }
        sched_destroy(s);
    }
}

/*
 * Jobs tie again at a priority cap (policy/wake.c, top_ties_join), as
 * tests/data/property/wake-cap-ties: MAXIJOB=1 per user, BACKFILLPOLICY
 * NONE, 4 processors, 3 busy. a1 (1 processor, submitted at 5) is refused
 * while a0 waits, so its queue time counts from 20 (the last iteration
 * that refused it); b (4 processors, submitted at 8) from 8: b goes first,
 * does not fit, and the scan stops. With QUEUETIMECAP 10 (minutes) both
 * are at the cap from 620 and tie, a1 first: the poll after it (660)
 * starts a1. Without the cap they tie only at the clip (a priority of 1e9:
 * 10^7 minutes of queue time at weight 100): the poll after 600,000,020.
 */
static void test_poll_cap_ties(void)
{
    for (int capped = 0; capped < 2; capped++) {
        struct sched *s = with_limits(capped ? "NODECFG[n1] PROCS=4\nRMPOLLINTERVAL 0:01:00\n"
                                               "BACKFILLPOLICY NONE\nUSERCFG[DEFAULT] MAXIJOB=1\n"
                                               "QUEUETIMEWEIGHT 100\nQUEUETIMECAP 10\n"
                                             : "NODECFG[n1] PROCS=4\nRMPOLLINTERVAL 0:01:00\n"
                                               "BACKFILLPOLICY NONE\nUSERCFG[DEFAULT] MAXIJOB=1\n"
                                               "QUEUETIMEWEIGHT 100\n");
        if (!s)
            return;
        struct job_spec r = {
            .name = "r", .tasks = 3, .procs_per_task = 1, .walltime = 100000, .user = "r"};
        struct job_spec a0 = {
            .name = "a0", .tasks = 4, .procs_per_task = 1, .walltime = 100, .user = "a"};
        struct job_spec a1 = {.name = "a1",
                              .tasks = 1,
                              .procs_per_task = 1,
                              .walltime = 100,
                              .submit = 5,
                              .user = "a"};
        struct job_spec b = {.name = "b",
                             .tasks = 4,
                             .procs_per_task = 1,
                             .walltime = 100,
                             .submit = 8,
                             .user = "b"};
        sched_submit(s, &r, NULL);
        struct job *ja0 = sched_submit(s, &a0, NULL);
        sched_iterate(s, 0);
        struct job *ja1 = sched_submit(s, &a1, NULL);
        sched_iterate(s, 5);
        sched_submit(s, &b, NULL);
        sched_iterate(s, 8);
        sched_iterate(s, 20);
        CHECK(sched_cancel(s, ja0, 30, NULL) == 0);
        sched_iterate(s, 30);
        CHECK(ja1 && ja1->state == JOB_IDLE);
        CHECK_EQ(sched_next_poll(s, 30), capped ? 660 : 600000060);
        if (capped) {
            sched_iterate(s, 660);
            CHECK(ja1->state == JOB_RUNNING);
        }
        sched_destroy(s);
    }
}

/*
 * A fairshare window closes on a ledger no window of which held usage at
 * the last iteration, as tests/data/property/wake-fs-empty-ledger: x (2
 * processors, 4,000 s) and y (1, 20,000 s) start at 0, z (x's user, 1,000 s)
 * is over its cap (FSTARGET=30%): (8,000 + 1,000) / 29,000. The close at
 * 3,600 halves what x and y used (FSDECAY 0.5), not what they still have to
 * do: (4,400 + 1,000) / 23,600 is under 30 %. The close is a wake-up
 * (policy/wake.c fs_can_change: jobs are adding usage), and z starts there.
 */
static void test_wake_fs_empty_ledger(void)
{
    struct sched *s = with_limits("NODECFG[n1] PROCS=4\nFSPOLICY DEDICATEDPS\nFSINTERVAL 1:00:00\n"
                                  "FSDEPTH 2\nFSDECAY 0.5\nUSERCFG[u] FSTARGET=30%\n");
    if (!s)
        return;
    const struct job_spec js[3] = {
        {.name = "x", .tasks = 2, .procs_per_task = 1, .walltime = 4000, .user = "u"},
        {.name = "y", .tasks = 1, .procs_per_task = 1, .walltime = 20000, .user = "v"},
        {.name = "z", .tasks = 1, .procs_per_task = 1, .walltime = 1000, .user = "u"}};
    struct job *j[3];
    for (int i = 0; i < 3; i++)
        j[i] = sched_submit(s, &js[i], NULL);
    sched_iterate(s, 0);
    CHECK(j[0]->state == JOB_RUNNING && j[1]->state == JOB_RUNNING && j[2]->state == JOB_IDLE);
    CHECK_EQ(sched_next_wakeup(s, 0), 3600);
    sched_iterate(s, 3600);
    CHECK(j[2]->state == JOB_RUNNING);
    sched_destroy(s);
}

/*
 * A cap on a share of the whole (FSTARGET=10%) on an empty ledger: the pass
 * starts x (3,712 processor-seconds) and y (221), turns z (448) away, over
 * 10 % of the work then committed (448 / 4,381), and starts w (196), which
 * raises the whole: 448 / 4,577 is under 10 %. The iteration asks for
 * another at once (iter.c, cap_room_back), which starts z; then the chain
 * ends.
 */
static void test_wake_cap_room_back(void)
{
    struct sched *s = with_limits("NODECFG[n1] PROCS=128\nFSPOLICY DEDICATEDPS\n"
                                  "FSINTERVAL 1:00:00\nUSERCFG[DEFAULT] FSTARGET=10%\n");
    if (!s)
        return;
    const struct job_spec js[4] = {
        {.name = "x", .tasks = 32, .procs_per_task = 1, .walltime = 116, .user = "x"},
        {.name = "y", .tasks = 1, .procs_per_task = 1, .walltime = 221, .user = "y"},
        {.name = "z", .tasks = 1, .procs_per_task = 1, .walltime = 448, .user = "z"},
        {.name = "w", .tasks = 4, .procs_per_task = 1, .walltime = 49, .user = "w"}};
    struct job *j[4];
    for (int i = 0; i < 4; i++)
        j[i] = sched_submit(s, &js[i], NULL);
    sched_iterate(s, 0);
    CHECK(j[0]->state == JOB_RUNNING && j[1]->state == JOB_RUNNING);
    CHECK(j[2]->state == JOB_IDLE && j[3]->state == JOB_RUNNING);
    CHECK_EQ(sched_next_wakeup(s, 0), 0);
    sched_iterate(s, 0);
    CHECK(j[2]->state == JOB_RUNNING);
    sched_destroy(s);
}

/*
 * A backfill start bypasses the waiting jobs that sort before it (Maui's
 * MStatUpdateBFUsage), also when a scan of the jobs submitted since the plan
 * takes it after the plan's jobs. 4 processors, r holds 2 until 1000; a
 * (4, user priority 100) is reserved at 1000; b (4, user priority 0) waits
 * behind it; c (1 processor, user priority 50), submitted at 10, fits
 * before a's reservation and is backfilled: a is bypassed, b is not.
 */
static void test_bypass_sorts_before(void)
{
    struct sched *s = with_limits("NODECFG[n1] PROCS=4\nCREDWEIGHT 1\nUSERWEIGHT 1\n"
                                  "USERCFG[a] PRIORITY=100\nUSERCFG[c] PRIORITY=50\n");
    if (!s)
        return;
    const struct job_spec js[4] = {
        {.name = "r", .tasks = 2, .procs_per_task = 1, .walltime = 1000, .user = "r"},
        {.name = "a", .tasks = 4, .procs_per_task = 1, .walltime = 100, .submit = 1, .user = "a"},
        {.name = "b", .tasks = 4, .procs_per_task = 1, .walltime = 100, .submit = 1, .user = "b"},
        {.name = "c", .tasks = 1, .procs_per_task = 1, .walltime = 100, .submit = 10, .user = "c"}};
    struct job *j[4];
    j[0] = sched_submit(s, &js[0], NULL);
    sched_iterate(s, 0);
    j[1] = sched_submit(s, &js[1], NULL);
    j[2] = sched_submit(s, &js[2], NULL);
    sched_iterate(s, 1);
    CHECK(j[0]->state == JOB_RUNNING && j[1]->state == JOB_IDLE && j[2]->state == JOB_IDLE);
    j[3] = sched_submit(s, &js[3], NULL);
    sched_iterate(s, 10);
    CHECK(j[3]->state == JOB_RUNNING);
    CHECK_EQ(sched_job_bypass(s, j[1]), 1);
    CHECK_EQ(sched_job_bypass(s, j[2]), 0);
    sched_destroy(s);
}

/*
 * Bypass counts against Maui's meaning (digest 5.7, MStatUpdateBFUsage):
 * each backfill start adds one to every job still waiting that sorts
 * before it, in every iteration. Under a static order (queue time alone)
 * with FIRSTFIT the scan takes the quick path (iter.c quick_run), whose
 * notes are counted against a bypass clock at every later backfill of
 * their plan, not by asking each note: this holds because in such an order
 * every job a later scan of the same plan backfills was submitted after
 * the noted ones, so sorts after them (fidelity question 1 of issue 31: no
 * bug). Model: after each iteration, for each job it backfilled, every job
 * still idle and submitted before it gains one (a job sorting before it and
 * started in the same iteration was started first, as in Maui's scan).
 * 150 fixed-seed workloads of 40 jobs on 8 processors; iterations at
 * submissions and ends, again at once while the engine asks.
 */
static unsigned long bp_rng;
static long bp_rand(long n)
{
    bp_rng = bp_rng * 6364136223846793005ul + 1442695040888963407ul;
    return (long)((bp_rng >> 33) % (unsigned long)n);
}

static void test_bypass_model(void)
{
    enum { NJ = 40 };
    for (int seed = 1; seed <= 150; seed++) {
        bp_rng = (unsigned long)seed;
        struct sched *s = with_limits(seed % 2 ? "NODECFG[n1] PROCS=8\n"
                                               : "NODECFG[n1] PROCS=8\nRESERVATIONDEPTH[0] 2\n");
        if (!s)
            return;
        struct job_spec js[NJ];
        struct job *j[NJ] = {0};
        char names[NJ][16];
        long expect[NJ] = {0}, t = 0;
        for (int i = 0; i < NJ; i++) {
            t += bp_rand(4) ? bp_rand(30) : 0;
            snprintf(names[i], sizeof names[i], "j%d", i);
            js[i] = (struct job_spec){.name = names[i],
                                      .tasks = 1 + (int)bp_rand(bp_rand(3) ? 3 : 8),
                                      .procs_per_task = 1,
                                      .walltime = 5 + bp_rand(bp_rand(2) ? 60 : 400),
                                      .submit = t,
                                      .user = "u"};
        }
        int next = 0, guard = 0;
        for (long now = 0; now < SCHED_NEVER && guard++ < 10000;) {
            for (int i = 0; i < NJ; i++)
                if (j[i] && j[i]->state == JOB_RUNNING && j[i]->start + j[i]->walltime == now)
                    sched_job_ended(s, j[i], now);
            for (; next < NJ && js[next].submit == now; next++)
                j[next] = sched_submit(s, &js[next], NULL);
            do {
                int was_idle[NJ];
                for (int i = 0; i < NJ; i++)
                    was_idle[i] = j[i] && j[i]->state == JOB_IDLE;
                sched_iterate(s, now);
                for (int k = 0; k < NJ; k++) {
                    if (!was_idle[k] || j[k]->state != JOB_RUNNING ||
                        !(j[k]->flags & JOB_BACKFILLED))
                        continue;
                    for (int i = 0; i < k; i++) /* submitted before k: sorts before it */
                        expect[i] += j[i] && j[i]->state == JOB_IDLE;
                }
            } while (sched_next_wakeup(s, now) == now);
            long nt = SCHED_NEVER;
            for (int i = 0; i < NJ; i++)
                if (j[i] && j[i]->state == JOB_RUNNING && j[i]->start + j[i]->walltime < nt)
                    nt = j[i]->start + j[i]->walltime;
            if (next < NJ && js[next].submit < nt)
                nt = js[next].submit;
            now = nt;
        }
        for (int i = 0; i < NJ; i++) {
            CHECK(j[i] && j[i]->state == JOB_COMPLETED);
            if (j[i] && sched_job_bypass(s, j[i]) != expect[i]) {
                fprintf(stderr, "    seed %d job %d: bypass %ld, expected %ld\n", seed, i,
                        sched_job_bypass(s, j[i]), expect[i]);
                CHECK_EQ(sched_job_bypass(s, j[i]), expect[i]);
            }
        }
        sched_destroy(s);
    }
}

/* MAXSUBMITJOBS counts the jobs each credential has in the system (idle,
 * held, running): a submission at the limit is refused; a job that ends or
 * is cancelled makes room; a named object's own limit beats DEFAULT's; a
 * user not seen before starts at 0. */
static void test_maxsubmitjobs(void)
{
    struct cfg *cfg = cfg_create();
    struct err err = {{0}};
    struct sched_policy pol;
    CHECK(cfg_load_string(cfg,
                          "NODECFG[n1] PROCS=1\nUSERCFG[DEFAULT] MAXSUBMITJOBS=2\n"
                          "USERCFG[big] MAXSUBMITJOBS=3\nQOSCFG[q1] MAXSUBMITJOBS=1\n",
                          "maui.cfg", &err) == 0);
    CHECK(sched_policy_from_cfg(cfg, &pol, &err) == 0);
    struct sched *s = sched_create(&pol, NULL);
    CHECK(sched_creds_from_cfg(s, cfg, &err) == 0 && sched_add_nodes_from_cfg(s, cfg, &err) == 0);
    struct job_spec js = {
        .name = "a", .tasks = 1, .procs_per_task = 1, .walltime = 100, .user = "u"};
    CHECK(sched_submit_allowed(s, &js, &err) == 0);
    struct job *a = sched_submit(s, &js, &err);
    js.name = "b";
    CHECK(sched_submit_allowed(s, &js, &err) == 0);
    struct job *b = sched_submit(s, &js, &err);
    CHECK(a && b);
    js.name = "c";
    CHECK(sched_submit_allowed(s, &js, &err) < 0);
    CHECK_HAS(err.msg, "user u already has 2 jobs queued or running (MAXSUBMITJOBS 2)");
    sched_iterate(s, 0); /* a runs, b waits: both still count */
    CHECK(a->state == JOB_RUNNING);
    CHECK(sched_submit_allowed(s, &js, &err) < 0);
    CHECK(sched_cancel(s, b, 10, &err) == 0);
    CHECK(sched_submit_allowed(s, &js, &err) == 0);
    CHECK(sched_submit(s, &js, &err) != NULL);
    CHECK(sched_submit_allowed(s, &js, &err) < 0);
    sched_job_ended(s, a, 100);
    CHECK(sched_submit_allowed(s, &js, &err) == 0);
    js.user = "newcomer";
    CHECK(sched_submit_allowed(s, &js, &err) == 0);
    js.user = "big";
    for (int i = 0; i < 3; i++) {
        CHECK(sched_submit_allowed(s, &js, &err) == 0);
        CHECK(sched_submit(s, &js, &err) != NULL);
    }
    CHECK(sched_submit_allowed(s, &js, &err) < 0);
    CHECK_HAS(err.msg, "MAXSUBMITJOBS 3");
    /* The QOS the job would get counts too (QOSCFG[q1] MAXSUBMITJOBS=1). */
    js.user = "v";
    js.qos = "q1";
    CHECK(sched_submit_allowed(s, &js, &err) == 0);
    CHECK(sched_submit(s, &js, &err) != NULL);
    js.user = "w";
    CHECK(sched_submit_allowed(s, &js, &err) < 0);
    CHECK_HAS(err.msg, "QOS q1 already has 1 job queued or running (MAXSUBMITJOBS 1)");
    js.qos = NULL;
    CHECK(sched_submit_allowed(s, &js, &err) == 0);
    sched_destroy(s);
    cfg_destroy(cfg);
}

/* An ended job's record can be freed; idle and running ones cannot. The
 * name index, once built, forgets it too, and the rest still schedules. */
static void test_forget_ended(void)
{
    struct sched_policy pol = easy();
    struct sched *s = sched_create(&pol, NULL);
    add_nodes(s, 1, 1);
    struct err err;
    struct job_spec js = {
        .name = "a", .tasks = 1, .procs_per_task = 1, .walltime = 100, .user = "u"};
    struct job *a = sched_submit(s, &js, &err);
    js.name = "b";
    struct job *b = sched_submit(s, &js, &err);
    CHECK(a && b);
    CHECK(sched_job_forget(s, a) == -1); /* idle */
    sched_iterate(s, 0);
    CHECK(a->state == JOB_RUNNING && b->state == JOB_IDLE);
    CHECK(sched_job_forget(s, a) == -1); /* running */
    CHECK(sched_find_job(s, "a") == a);  /* the name index is built now */
    sched_job_ended(s, a, 50);
    CHECK(sched_job_forget(s, a) == 0);
    CHECK(sched_job(s, 0) == NULL && sched_job(s, 1) == b && sched_njobs(s) == 2);
    CHECK(sched_find_job(s, "a") == NULL);
    CHECK(sched_find_job(s, "b") == b);
    sched_iterate(s, 50);
    CHECK(b->state == JOB_RUNNING && b->start == 50);
    js.name = "a"; /* a new job may take the forgotten one's name */
    struct job *a2 = sched_submit(s, &js, &err);
    CHECK(a2 && sched_find_job(s, "a") == a2);
    sched_job_ended(s, b, 150);
    sched_iterate(s, 150);
    CHECK(a2->state == JOB_RUNNING);
    sched_destroy(s); /* frees the rest, skipping the forgotten */
}

/* A job submitted into the record a forgotten one gave back (the job pool
 * reuses it at once) starts fresh: nothing of the ended job's run, state
 * or plan is left in it (sched_submit zeroes the record, then sets what
 * is not zero). */
static void test_reused_record_fresh(void)
{
    struct sched_policy pol = easy();
    struct sched *s = sched_create(&pol, NULL);
    add_nodes(s, 1, 2);
    struct err err;
    struct job_spec js = {
        .name = "a", .tasks = 2, .procs_per_task = 1, .walltime = 100, .user = "u"};
    struct job *a = sched_submit(s, &js, &err);
    CHECK(a != NULL);
    sched_iterate(s, 10);
    CHECK(a->state == JOB_RUNNING && a->start == 10 && a->nslots > 0);
    sched_job_ended(s, a, 60);
    CHECK(a->end == 60 && a->nstarts == 1);
    CHECK(sched_job_forget(s, a) == 0);
    js = (struct job_spec){
        .name = "b", .tasks = 1, .procs_per_task = 1, .walltime = 50, .user = "v", .tag = 7};
    struct job *b = sched_submit(s, &js, &err);
    CHECK(b != NULL);
    CHECK(b->state == JOB_IDLE && b->flags == 0 && b->wait == WAIT_NONE);
    CHECK(b->start == 0 && b->end == 0 && b->planned_end == 0 && b->nstarts == 0);
    CHECK(b->slots == NULL && b->nslots == 0 && b->slots_cap == 0);
    CHECK(b->plan_procs == 0 && b->plan_mem == 0 && b->takes == NULL && b->ntakes == 0);
    CHECK(b->priority == 0 && b->bypass == 0 && b->fs_rate == 0 && b->message == NULL);
    CHECK(b->heap_pos == SIZE_MAX && b->epos == SIZE_MAX && b->resv_start == -1);
    CHECK(b->exit_status == -1 && b->util == -1 && b->tag == 7 && b->order == 1);
    CHECK(b->tasks == 1 && b->walltime == 50 && b->submit == 0 && b->array == NULL);
    CHECK(strcmp(b->name, "b") == 0 && strcmp(b->user->name, "v") == 0);
    sched_iterate(s, 60);
    CHECK(b->state == JOB_RUNNING && b->start == 60);
    sched_destroy(s);
}

/* A job parked by eligibility (held, under a throttling limit) whose
 * walltime or QOS changes is still in the queue once released: it starts.
 * (It was lost from every list until a full rebuild: a Slurm job released
 * from a partition-limit hold, its time limit changed, waited half a
 * minute on an idle cluster.) */
static void test_parked_job_changed(void)
{
    for (int qos = 0; qos < 2; qos++) {
        struct sched_policy pol;
        sched_policy_default(&pol);
        struct cfg *cfg = cfg_create();
        CHECK(cfg_load_string(cfg, "USERCFG[DEFAULT] MAXJOB=1\nQOSCFG[fast] PRIORITY=1\n",
                              "maui.cfg", NULL) == 0);
        struct sched *s = sched_create(&pol, NULL);
        CHECK(sched_creds_from_cfg(s, cfg, NULL) == 0);
        CHECK(sched_limits_from_cfg(s, cfg, NULL) == 0);
        struct node_spec ns = {.name = "n1", .procs = 4, .state = NODE_UP};
        CHECK(sched_add_node(s, &ns, NULL) == 0);
        struct job_spec sp = {.name = "1",
                              .tasks = 1,
                              .procs_per_task = 1,
                              .walltime = 300,
                              .user = "u",
                              .holds = HOLD_SYSTEM};
        struct job *j = sched_submit(s, &sp, NULL);
        sched_iterate(s, 1);
        sched_iterate(s, 2);
        CHECK_EQ(j->state, JOB_IDLE);
        CHECK(sched_release(s, j, HOLD_SYSTEM, 3, NULL) == 0);
        if (qos)
            CHECK(sched_set_qos(s, j, "fast", 0, NULL) == 0);
        else
            CHECK(sched_set_walltime(s, j, 60, NULL) == 0);
        sched_iterate(s, 3);
        CHECK_EQ(j->state, JOB_RUNNING);
        sched_destroy(s);
        cfg_destroy(cfg);
    }
}

/*
 * Under a static order the holes started jobs leave behind a waiting job
 * are closed once 32 (iter.c's compact_queue; 256 under a kept qorder
 * order): a wide job waits at the head behind a long one while 300 short
 * jobs backfill past it, three at a time, in its shadow. Every short job
 * starts at its submission, the wide one when the long one ends, and no
 * pass finds 32 holes or more past the head.
 */
static void test_static_queue_holes_closed(void)
{
    struct sched_policy p;
    sched_policy_default(&p);
    p.backfill = BF_FIRSTFIT;
    struct sched *s = sched_create(&p, NULL);
    add_nodes(s, 4, 1);
    struct job_spec spec = {.name = "long", .tasks = 1, .procs_per_task = 1, .walltime = 100000};
    struct job *lng = sched_submit(s, &spec, NULL), *shorts[3];
    sched_iterate(s, 0);
    spec = (struct job_spec){
        .name = "wide", .tasks = 4, .procs_per_task = 1, .walltime = 10, .submit = 1};
    struct job *wide = sched_submit(s, &spec, NULL);
    sched_iterate(s, 1);
    size_t most = 0;
    int late = 0;
    for (int k = 0; k < 100; k++) {
        long t = 10 + 10L * k;
        for (int i = 0; i < 3; i++) {
            char name[16];
            snprintf(name, sizeof name, "s%d", 3 * k + i);
            spec = (struct job_spec){
                .name = name, .tasks = 1, .procs_per_task = 1, .walltime = 5, .submit = t};
            shorts[i] = sched_submit(s, &spec, NULL);
        }
        sched_iterate(s, t);
        for (int i = 0; i < 3; i++) {
            late += shorts[i]->state != JOB_RUNNING || shorts[i]->start != t;
            shorts[i]->exit_status = 0;
            sched_job_ended(s, shorts[i], t + 5);
        }
        sched_iterate(s, t + 5);
        size_t holes = 0;
        for (size_t i = s->q.qhead; i < s->q.qlen; i++)
            holes += !s->q.queue[i];
        most = holes > most ? holes : most;
    }
    CHECK_EQ(late, 0);
    CHECK(most < 32);
    CHECK(wide->state == JOB_IDLE && s->q.qidle == 1);
    lng->exit_status = 0;
    sched_job_ended(s, lng, 2000);
    sched_iterate(s, 2000);
    CHECK(wide->state == JOB_RUNNING && wide->start == 2000);
    sched_destroy(s);
}

int main(void)
{
    TEST_RUN(test_parked_job_changed);
    TEST_RUN(test_hot_fields_share_a_line);
    TEST_RUN(test_backfill_that_fits);
    TEST_RUN(test_backfill_that_would_delay);
    TEST_RUN(test_ends_exactly_at_shadow);
    TEST_RUN(test_extra_counts_jobs_ending_at_shadow);
    TEST_RUN(test_fcfs_nothing_passes);
    TEST_RUN(test_depth_two);
    TEST_RUN(test_too_big_is_rejected);
    TEST_RUN(test_walltime_kill_and_overrun);
    TEST_RUN(test_nodes_hold_the_tasks);
    TEST_RUN(test_many_small_nodes);
    TEST_RUN(test_single_walk);
    TEST_RUN(test_hold_before_iteration);
    TEST_RUN(test_allocation_runs);
    TEST_RUN(test_names_short_and_long);
    TEST_RUN(test_down_nodes);
    TEST_RUN(test_shapes_never_fit);
    TEST_RUN(test_shapes_never_fit_plain);
    TEST_RUN(test_no_wakeup_past_the_calendar);
    TEST_RUN(test_maxsubmitjobs);
    TEST_RUN(test_forget_ended);
    TEST_RUN(test_reused_record_fresh);
    TEST_RUN(test_wake_maxps);
    TEST_RUN(test_wake_promotion);
    TEST_RUN(test_poll);
    TEST_RUN(test_poll_floor_ties);
    TEST_RUN(test_wake_cap_room_back);
    TEST_RUN(test_poll_cap_ties);
    TEST_RUN(test_wake_fs_empty_ledger);
    TEST_RUN(test_bypass_model);
    TEST_RUN(test_bypass_sorts_before);
    TEST_RUN(test_static_queue_holes_closed);
    return TEST_DONE();
}
