/*
 * Throttling policies in the scheduling iteration (policy/elig.c with
 * policy/iter.c): eligible and blocked jobs, idle limits admitting the
 * highest priority first, soft and hard passes, per-job limits.
 */
#include <stdlib.h>
#include <string.h>

#include "cfg/cfg.h"
#include "core/sched_int.h"
#include "engine/engine.h"
#include "policy/wake.h"
#include "test.h"

static struct sched *setup(const char *cfgtext, int nodes, int ppn)
{
    struct cfg *cfg = cfg_create();
    struct sched_policy pol;
    struct err e;
    struct sched *s = NULL;
    if (cfg_load_string(cfg, cfgtext, "t.cfg", &e) == 0 &&
        sched_policy_from_cfg(cfg, &pol, &e) == 0) {
        s = sched_create(&pol, NULL);
        CHECK(sched_creds_from_cfg(s, cfg, &e) == 0);
        CHECK(sched_limits_from_cfg(s, cfg, &e) == 0);
    }
    cfg_destroy(cfg);
    char name[16];
    for (int i = 0; s && i < nodes; i++) {
        snprintf(name, sizeof name, "n%d", i);
        struct node_spec n = {.name = name, .procs = ppn, .state = NODE_UP};
        sched_add_node(s, &n, NULL);
    }
    return s;
}

static struct job *submit(struct sched *s, const char *name, int procs, long wall, long at,
                          const char *user)
{
    struct job_spec js = {.name = name,
                          .tasks = procs,
                          .procs_per_task = 1,
                          .walltime = wall,
                          .submit = at,
                          .user = user};
    return sched_submit(s, &js, NULL);
}

static size_t count_state(struct sched *s, enum job_state st)
{
    size_t n = 0;
    for (size_t i = 0; i < sched_njobs(s); i++)
        n += sched_job(s, i)->state == st;
    return n;
}

/* The seed's MAXIJOB example: 17 jobs of one user on a one-processor
 * cluster show 1 active, 8 idle and 8 blocked; when the active one ends and
 * an idle one starts, the next blocked job becomes idle. */
static void test_maxijob_seed_example(void)
{
    struct sched *s = setup("USERCFG[DEFAULT] MAXIJOB=8\n", 1, 1);
    char name[16];
    struct job *j[17];
    for (int i = 0; i < 17; i++) {
        snprintf(name, sizeof name, "%d", i + 1);
        j[i] = submit(s, name, 1, 100, i, "steve");
    }
    sched_iterate(s, 20);
    CHECK_EQ(count_state(s, JOB_RUNNING), 1);
    CHECK_EQ(sched_count_idle(s, 0), 8);
    CHECK_EQ(sched_count_idle(s, 1), 8);
    CHECK(sched_job_blocked(s, j[9]) != NULL);
    CHECK(sched_job_blocked(s, j[8]) == NULL); /* the eight highest are eligible */
    CHECK_HAS(sched_job_blocked(s, j[9]), "violates idle");
    CHECK_HAS(sched_job_blocked(s, j[9]), "MAXJOB limit of 8 for user steve");
    sched_job_ended(s, j[0], 120);
    sched_iterate(s, 120);
    CHECK(j[1]->state == JOB_RUNNING);
    CHECK_EQ(sched_count_idle(s, 0), 8);
    CHECK_EQ(sched_count_idle(s, 1), 7);
    CHECK(sched_job_blocked(s, j[9]) == NULL);
    sched_destroy(s);
}

/* The seed's MAXPS arithmetic (one value: soft and hard, so the reason says
 * HARD, issue 13 §4): a 2-processor job with 9:42:28 left holds
 * 69,896 PS; an 8-processor one-hour job asks 28,800; 98,696 > 72,000. */
static void test_maxps_seed_example(void)
{
    /* A 10-hour job that started 1,052 s ago has 9:42:28 = 34,948 s left. */
    struct sched *s = setup("USERCFG[DEFAULT] MAXPS=72000\n", 4, 4);
    struct job *a = submit(s, "1", 2, 36000, 0, "alice");
    sched_iterate(s, 0);
    CHECK(a->state == JOB_RUNNING);
    struct job *b = submit(s, "12", 8, 3600, 1052, "alice");
    sched_iterate(s, 1052);
    CHECK(b->state == JOB_IDLE);
    CHECK_STR(
        sched_job_blocked(s, b),
        "job 12 violates active HARD MAXPS limit of 72000 for user alice (R: 28800, U: 69896)");
    sched_destroy(s);
}

/* Soft vs hard: MAXJOB=1,2 lets a second job run as a soft-limit violation
 * when the processors would otherwise idle; the third waits. */
static void test_soft_and_hard(void)
{
    struct sched *s = setup("USERCFG[DEFAULT] MAXJOB=1,2\n", 1, 4);
    struct job *a = submit(s, "1", 1, 100, 0, "bob");
    struct job *b = submit(s, "2", 1, 100, 0, "bob");
    struct job *c = submit(s, "3", 1, 100, 0, "bob");
    sched_iterate(s, 0);
    CHECK(a->state == JOB_RUNNING);
    CHECK(!(a->flags & JOB_SPVIOLATION));
    CHECK(b->state == JOB_RUNNING);
    CHECK(b->flags & JOB_SPVIOLATION);
    CHECK(c->state == JOB_IDLE);
    sched_iterate(s, 1);
    CHECK_HAS(sched_job_blocked(s, c), "violates active");
    sched_destroy(s);
}

/* A walltime over MAX.WCLIMIT can never run; named credentials beat DEFAULT
 * and -1 lifts it. */
static void test_per_job_and_default(void)
{
    struct sched *s = setup("USERCFG[DEFAULT] MAX.WCLIMIT=5:00:00:00 MAXJOB=1\n"
                            "USERCFG[vip] MAXJOB=-1\n",
                            1, 8);
    struct job *big = submit(s, "1", 1, 5 * 86400 + 1, 0, "ann");
    struct job *ok = submit(s, "2", 1, 5 * 86400, 0, "ann");
    struct job *v1 = submit(s, "3", 1, 100, 0, "vip");
    struct job *v2 = submit(s, "4", 1, 100, 0, "vip");
    sched_iterate(s, 0);
    CHECK(big->state == JOB_IDLE);
    CHECK(sched_job_blocked(s, big) != NULL);
    CHECK(ok->state == JOB_RUNNING);
    CHECK(v1->state == JOB_RUNNING && v2->state == JOB_RUNNING);
    sched_destroy(s);
}

/* A held job is blocked, with or without limits, until every hold is
 * released; showq shows the strongest hold. */
static void test_holds(void)
{
    struct sched *s = setup("JOBPRIOACCRUALPOLICY FULLPOLICY\n", 1, 4);
    struct job_spec js = {.name = "h",
                          .tasks = 1,
                          .procs_per_task = 1,
                          .walltime = 100,
                          .submit = 0,
                          .holds = HOLD_USER};
    struct job *h = sched_submit(s, &js, NULL);
    struct job *a = submit(s, "a", 1, 100, 0, "u");
    sched_iterate(s, 0);
    CHECK(a->state == JOB_RUNNING);
    CHECK(h->state == JOB_IDLE);
    CHECK_STR(job_display_state(h), "UserHold");
    CHECK_STR(sched_job_blocked(s, h), "job has a user hold");
    CHECK_EQ(sched_count_idle(s, 1), 1);
    struct err e;
    CHECK(sched_hold(s, h, HOLD_SYSTEM, &e) == 0);
    CHECK_STR(job_display_state(h), "SystemHold");
    CHECK(sched_hold(s, a, HOLD_USER, &e) < 0); /* running: no */
    sched_iterate(s, 50);
    CHECK_EQ(sched_job_qtime(s, h, 50), 50); /* FULLPOLICY: no queue time while held */
    CHECK(sched_release(s, h, HOLD_USER, 0, &e) == 0);
    sched_iterate(s, 60);
    CHECK(h->state == JOB_IDLE); /* the system hold remains */
    CHECK(sched_release(s, h, HOLD_SYSTEM, 0, &e) == 0);
    sched_iterate(s, 70);
    CHECK(h->state == JOB_RUNNING);
    CHECK_EQ(sched_count_idle(s, 1), 0);
    sched_destroy(s);
}

/* A held job arriving between full passes is not started by the
 * incremental scan. */
static void test_held_submission_between_passes(void)
{
    struct sched *s = setup("", 1, 4);
    submit(s, "a", 1, 100, 0, "u");
    sched_iterate(s, 0);
    struct job_spec js = {.name = "h",
                          .tasks = 1,
                          .procs_per_task = 1,
                          .walltime = 10,
                          .submit = 5,
                          .holds = HOLD_BATCH};
    struct job *h = sched_submit(s, &js, NULL);
    sched_iterate(s, 5);
    CHECK(h->state == JOB_IDLE);
    CHECK_STR(job_display_state(h), "BatchHold");
    sched_destroy(s);
}

/* A reservation is not placed where the job's credentials would be over a
 * soft active limit (Maui's MPolicyGetEStartTime): user u may run one job;
 * its second job is reserved after the first one's reservation ends, not
 * beside it. */
static void test_reservation_respects_limits(void)
{
    struct sched *s = setup("USERCFG[u] MAXJOB=1\nRESERVATIONDEPTH[0] 2\n", 1, 3);
    struct job *x = submit(s, "x", 3, 100, 0, "v");
    sched_iterate(s, 0);
    CHECK(x->state == JOB_RUNNING);
    struct job *j1 = submit(s, "1", 2, 100, 1, "u");
    struct job *j2 = submit(s, "2", 1, 100, 1, "u");
    sched_iterate(s, 1);
    sched_complete_plan(s); /* no processor is free: the iteration left j2's for later */
    CHECK_EQ(j1->resv_start, 100);
    CHECK_EQ(j2->resv_start, 200); /* processors are free at 100, u's limit is not */
    sched_destroy(s);
    /* Without the limit both are reserved at 100. */
    s = setup("RESERVATIONDEPTH[0] 2\n", 1, 3);
    submit(s, "x", 3, 100, 0, "v");
    sched_iterate(s, 0);
    j1 = submit(s, "1", 2, 100, 1, "u");
    j2 = submit(s, "2", 1, 100, 1, "u");
    sched_iterate(s, 1);
    sched_complete_plan(s);
    CHECK_EQ(j1->resv_start, 100);
    CHECK_EQ(j2->resv_start, 100);
    sched_destroy(s);
}

/* A resource manager that refuses to start job "bad" `refusals` times. */
static int refusals;
static int picky_start(void *ctx, struct job *j, long now)
{
    (void)ctx;
    (void)now;
    if (strcmp(j->name, "bad") == 0 && refusals > 0) {
        refusals--;
        return -1;
    }
    return 0;
}

/* A job the resource manager could not start is deferred for DEFERTIME
 * (blocked, shown as Deferred), then tried again; after DEFERCOUNT
 * deferrals it gets a batch hold. */
static void test_deferral(void)
{
    struct sched *s = setup("DEFERTIME 60\nDEFERCOUNT 1\n", 1, 4);
    sched_set_rm(s, &(struct sched_rm){.start = picky_start});
    refusals = 1;
    struct job *bad = submit(s, "bad", 1, 100, 0, "u");
    sched_iterate(s, 0);
    CHECK(bad->state == JOB_IDLE);
    CHECK_STR(job_display_state(bad), "Deferred");
    CHECK_HAS(sched_job_blocked(s, bad), "deferred");
    sched_iterate(s, 30);
    CHECK(bad->state == JOB_IDLE);
    sched_iterate(s, 60); /* DEFERTIME over: tried again, and it starts */
    CHECK(bad->state == JOB_RUNNING);
    sched_destroy(s);

    s = setup("DEFERTIME 60\nDEFERCOUNT 1\n", 1, 4);
    sched_set_rm(s, &(struct sched_rm){.start = picky_start});
    refusals = 5;
    bad = submit(s, "bad", 1, 100, 0, "u");
    sched_iterate(s, 0);  /* first deferral */
    sched_iterate(s, 60); /* second failure: over DEFERCOUNT, a batch hold */
    CHECK_STR(job_display_state(bad), "BatchHold");
    sched_iterate(s, 500);
    CHECK(bad->state == JOB_IDLE);
    sched_destroy(s);
}

/* A resource manager that cannot start job "bad" yet `laters` times. */
static int laters;
static int later_start(void *ctx, struct job *j, long now)
{
    (void)ctx;
    (void)now;
    if (strcmp(j->name, "bad") == 0 && laters > 0) {
        laters--;
        return SCHED_RM_LATER;
    }
    return 0;
}

/* A start the resource manager cannot make yet (a preempted run of the
 * same job still ending, dpreempt.c) is no failure: the job stays queued,
 * not deferred, however many times, its processors free for others only
 * as the plan allows, and it starts at the first iteration that can. As a
 * failure it would wait out DEFERTIME (an hour by default) and, after
 * DEFERCOUNT, be held. */
static void test_start_later(void)
{
    struct sched *s = setup("DEFERTIME 3600\nDEFERCOUNT 1\n", 1, 4);
    sched_set_rm(s, &(struct sched_rm){.start = later_start});
    laters = 3;
    struct job *bad = submit(s, "bad", 4, 100, 0, "u"), *other = NULL;
    for (long t = 0; t < 3; t++) {
        sched_iterate(s, t);
        CHECK(bad->state == JOB_IDLE);
        CHECK_STR(job_display_state(bad), "Idle");
        CHECK_EQ(bad->deferred_until, 0);
        CHECK_EQ(bad->startcount, 0);
        /* Its processors are not given to a later job that would hold
         * them past its start (the old run holds them still, in truth). */
        if (!other)
            other = submit(s, "other", 1, 1000, t, "v");
        CHECK(other->state == JOB_IDLE);
    }
    sched_iterate(s, 3); /* the old run has ended: it starts */
    CHECK(bad->state == JOB_RUNNING);
    CHECK(other->state == JOB_IDLE);
    sched_destroy(s);
}

/* Without limits nothing is ever blocked. */
static void test_no_limits_no_blocking(void)
{
    struct sched *s = setup("", 1, 1);
    for (int i = 0; i < 5; i++) {
        char name[16];
        snprintf(name, sizeof name, "%d", i);
        submit(s, name, 1, 10, 0, "u");
    }
    sched_iterate(s, 0);
    CHECK_EQ(sched_count_idle(s, 1), 0);
    CHECK_EQ(sched_count_idle(s, 0), 4);
    sched_destroy(s);
}

/* Issue 31: a job whose request alone goes over a HARD limit (8 x 100,000
 * processor-seconds against MAXPS=500000) is refused for ever: blocked with
 * Maui's words, listed as blocked, and, with a priority that moves and an
 * idle limit, no poll for it. It comes back when what refuses it changes: its
 * walltime, its QOS, the limits. */
static void test_refused_for_ever(void)
{
    const char *cfg = "FSPOLICY DEDICATEDPS\nFSWEIGHT 10\nFSUSERWEIGHT 1\n"
                      "USERCFG[DEFAULT] MAXIJOB=3 MAXPS=500000\n"
                      "QOSCFG[high] QFLAGS=IGNALL\nUSERCFG[ann] QLIST=DEFAULT,high\n";
    struct sched *s = setup(cfg, 4, 4);
    struct job *a = submit(s, "1", 8, 100000, 0, "ann");
    struct job *b = submit(s, "2", 8, 100000, 0, "ann");
    struct job *c = submit(s, "3", 8, 100000, 0, "ann");
    sched_iterate(s, 0);
    CHECK(a->state == JOB_IDLE && b->state == JOB_IDLE && c->state == JOB_IDLE);
    CHECK_STR(sched_job_blocked(s, a),
              "job 1 violates active HARD MAXPS limit of 500000 for user ann (R: 800000, U: 0)");
    CHECK_EQ(sched_count_idle(s, 1), 3); /* showq: blocked */
    CHECK_EQ(sched_next_poll(s, 0), SCHED_NEVER);
    struct err e;
    CHECK(sched_set_walltime(s, a, 60000, &e) == 0); /* 480,000: within */
    sched_iterate(s, 10);
    CHECK(a->state == JOB_RUNNING);
    CHECK(sched_set_qos(s, b, "high", 1, &e) == 0);
    sched_iterate(s, 20);
    CHECK(b->state == JOB_RUNNING);
    struct cfg *more = cfg_create();
    CHECK(cfg_load_string(more, "USERCFG[DEFAULT] MAXIJOB=3 MAXPS=3000000\n", "t.cfg", &e) == 0);
    CHECK(sched_limits_from_cfg(s, more, &e) == 0);
    cfg_destroy(more);
    sched_iterate(s, 30);
    CHECK(c->state == JOB_IDLE); /* within every limit now, but a and b hold the processors */
    CHECK(sched_job_blocked(s, c) == NULL);
    sched_destroy(s);
}

/* The order of a walk decides what an idle limit admits only when the limit
 * cannot hold at once every job the walk may admit: four one-processor jobs
 * of one user waiting behind a whole-cluster job under MAXIJOB=3 poll at
 * RMPOLLINTERVAL (a priority crossing picks the three), three do not. */
static void test_idle_order_polls(void)
{
    for (int n = 3; n <= 4; n++) {
        struct sched *s = setup("FSPOLICY DEDICATEDPS\nFSWEIGHT 10\nFSUSERWEIGHT 1\n"
                                "USERCFG[DEFAULT] MAXIJOB=3\n",
                                1, 4);
        submit(s, "0", 4, 1000, 0, "bob");
        char name[16];
        for (int i = 1; i <= n; i++) {
            snprintf(name, sizeof name, "%d", i);
            submit(s, name, 1, 100, i, "ann");
        }
        sched_iterate(s, 10);
        CHECK_EQ(sched_count_idle(s, 1), n - 3);
        CHECK_EQ(sched_next_poll(s, 10), n > 3 ? 60 : SCHED_NEVER);
        sched_destroy(s);
    }
}

/* A small fixed-seed generator (the test's cases are the same everywhere). */
static unsigned twin_next(unsigned *seed)
{
    *seed = *seed * 1103515245u + 12345u;
    return *seed >> 8;
}

/* The k-th job (from `from`, wrapping) of s in state st, or NULL. */
static struct job *nth_in(struct sched *s, enum job_state st, unsigned k, unsigned holds)
{
    size_t n = sched_njobs(s), seen = 0;
    for (size_t i = 0; i < n; i++) {
        struct job *j = sched_job(s, i);
        seen += j && j->state == st && (!holds || j->holds);
    }
    if (!seen)
        return NULL;
    k %= (unsigned)seen;
    for (size_t i = 0; i < n; i++) {
        struct job *j = sched_job(s, i);
        if (j && j->state == st && (!holds || j->holds) && k-- == 0)
            return j;
    }
    return NULL;
}

/* Idle jobs of s, counted from the job table. */
static size_t idle_jobs(struct sched *s)
{
    size_t n = 0;
    for (size_t i = 0; i < sched_njobs(s); i++)
        n += sched_job(s, i) && sched_job(s, i)->state == JOB_IDLE;
    return n;
}

/* One random event, the same on both twins. */
static void twin_event(struct sched *s[2], unsigned r, unsigned k, long now, int *nsub)
{
    struct err e;
    char name[16];
    static const char *const users[] = {"ann", "bob", "cy"};
    if (r % 10 < 4) {
        snprintf(name, sizeof name, "%d", ++*nsub);
        for (int t = 0; t < 2; t++) /* 1..16 processors, up to 100,000 s: often over MAXPS alone */
            submit(s[t], name, 1 + (int)(k % 16), 100 + (long)(k / 16 % 1000) * 100, now,
                   users[k / 7 % 3]);
        return;
    }
    for (int t = 0; t < 2; t++) {
        struct job *j = nth_in(s[t],
                               r % 10 == 6   ? JOB_IDLE
                               : r % 10 == 4 ? JOB_RUNNING
                                             : JOB_IDLE,
                               k, r % 10 == 6);
        if (!j && r % 10 != 9)
            continue;
        switch (r % 10) {
        case 4:
            sched_job_ended(s[t], j, now);
            break;
        case 5:
            sched_hold(s[t], j, HOLD_USER, &e);
            break;
        case 6:
            sched_release(s[t], j, HOLD_USER, now, &e);
            break;
        case 7:
            sched_set_walltime(s[t], j, 100 + (long)(k % 500) * 100, &e);
            break;
        case 8:
            sched_cancel(s[t], j, now, &e);
            break;
        default: {
            static const char *const ps[] = {"300000", "500000", "2000000"};
            char text[96];
            snprintf(text, sizeof text, "USERCFG[DEFAULT] MAXIJOB=3 MAXPS=%s\n", ps[k % 3]);
            struct cfg *more = cfg_create();
            CHECK(cfg_load_string(more, text, "t.cfg", &e) == 0);
            CHECK(sched_limits_from_cfg(s[t], more, &e) == 0);
            cfg_destroy(more);
        }
        }
    }
}

/*
 * Issue 31: under whole-queue walks the jobs refused for ever wait out of
 * the queue (parked, policy/elig.c) until the limits or the job change.
 * Two schedulers get the same fixed-seed random events (submissions, many
 * over MAXPS alone; ends; holds and releases; walltimes set; cancels;
 * limits reloaded); one is looked at (sched_queue, which brings every
 * parked job back, as a command) before each iteration, the other only now
 * and then: the same starts, the same blocked jobs in the same words, and
 * every idle job counted once (sched_nidle, the look's list).
 */
static void test_parked_twins(void)
{
    const char *cfg = "FSPOLICY DEDICATEDPS\nFSWEIGHT 10\nFSUSERWEIGHT 1\n"
                      "RESERVATIONDEPTH[0] 2\nUSERCFG[DEFAULT] MAXIJOB=3 MAXPS=500000\n";
    unsigned seed = 31;
    size_t most = 0;
    for (int round = 0; round < 12; round++) {
        struct sched *s[2] = {setup(cfg, 4, 4), setup(cfg, 4, 4)};
        long now = 0;
        int nsub = 0;
        for (int step = 0; step < 300; step++) {
            now += 1 + (long)(twin_next(&seed) % 900);
            unsigned r = twin_next(&seed), k = twin_next(&seed);
            twin_event(s, r, k, now, &nsub);
            size_t n;
            sched_queue(s[1], now, &n);
            sched_iterate(s[0], now);
            sched_iterate(s[1], now);
            if (s[0]->el.nparked > most)
                most = s[0]->el.nparked;
            CHECK_EQ(sched_nidle(s[0]), idle_jobs(s[0]));
            for (size_t i = 0; i < sched_njobs(s[0]); i++) {
                const struct job *a = sched_job(s[0], i), *b = sched_job(s[1], i);
                CHECK(a->state == b->state && a->start == b->start);
            }
            if (step % 50 != 49)
                continue;
            for (size_t i = 0; i < sched_njobs(s[0]); i++) {
                const char *a = sched_job_blocked(s[0], sched_job(s[0], i));
                const char *b = sched_job_blocked(s[1], sched_job(s[1], i));
                CHECK((!a && !b) || (a && b && strcmp(a, b) == 0));
            }
            sched_queue(s[0], now, &n);
            CHECK_EQ(n, idle_jobs(s[0]));
        }
        sched_destroy(s[0]);
        sched_destroy(s[1]);
    }
    CHECK(most >= 20); /* the cases do park jobs (43 at most) */
}

/* The queue time a priority of queue time alone needs to reach its top, a
 * second early (wake_top_need), whatever the poll interval; stopped jobs,
 * which count from the last poll instant, reach it only within one
 * (wake_stopped_need); sched_create keeps the first as top_need (eset.c's
 * wake_order walks a credential again when its accruing jobs tie there out
 * of their order: tests/data/property/top-tie-maxjob). */
static void test_top_need(void)
{
    static const struct {
        const char *cfg;
        long top, stopped;
    } c[] = {
        {"QUEUETIMEWEIGHT 100\nQUEUETIMECAP 1\n", 59, 59},
        {"QUEUETIMEWEIGHT 100\nQUEUETIMECAP 5\n", 299, 0}, /* past the 60 s poll */
        {"QUEUETIMEWEIGHT 1\nSERVICECAP 2\n", 119, 0},     /* 2 minutes: past the poll */
        {"QUEUETIMEWEIGHT 1\n", 60000000000L - 1, 0},      /* the clip: 1e9 minutes */
        {"QUEUETIMEWEIGHT 0\n", SCHED_NEVER, 0},
    };
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        struct sched *s = setup(c[i].cfg, 1, 1);
        CHECK_EQ(wake_top_need(&s->pol), c[i].top);
        CHECK_EQ(s->top_need, c[i].top);
        CHECK_EQ(wake_stopped_need(&s->pol), c[i].stopped);
        sched_destroy(s);
    }
}

/* Issue 31 (tests/data/property/maxiproc-reason): under eset, a refusal's
 * words come from a walk in the last iteration's order, where 94 (stopped
 * at 1, counting from then) ties with 137 at one second and goes first, so
 * 94 is refused by MAXPROC, not behind 137 by MAXJOB. The list a command
 * reads (sched_queue: 137 first, 94 counting from the walk at 2) does not
 * move when a job's words are asked for while it is read (showq does). */
static void test_reasons_walk_order(void)
{
    const char *cfg = "BACKFILLPOLICY NONE\nQUEUETIMEWEIGHT 1000\n"
                      "USERCFG[DEFAULT] MAXIJOB=1,1 MAXIPROC=48,64\n";
    struct sched *s = setup(cfg, 32, 4);
    struct job *a = submit(s, "94", 107, 1, 1, "4");
    struct job *b = submit(s, "137", 51, 1, 1, "4");
    sched_iterate(s, 1);
    sched_iterate(s, 2);
    CHECK(s->el.eset != NULL);
    size_t n;
    struct job *const *q = sched_queue(s, 2, &n);
    CHECK_EQ(n, 2);
    CHECK(q[0] == b && q[1] == a);
    CHECK_STR(sched_job_blocked(s, a),
              "job 94 violates idle HARD MAXPROC limit of 64 for user 4 (R: 107, U: 0)");
    CHECK(q[0] == b && q[1] == a); /* the words did not re-sort the list */
    sched_destroy(s);
}

int main(void)
{
    TEST_RUN(test_maxijob_seed_example);
    TEST_RUN(test_maxps_seed_example);
    TEST_RUN(test_soft_and_hard);
    TEST_RUN(test_per_job_and_default);
    TEST_RUN(test_no_limits_no_blocking);
    TEST_RUN(test_holds);
    TEST_RUN(test_reservation_respects_limits);
    TEST_RUN(test_deferral);
    TEST_RUN(test_start_later);
    TEST_RUN(test_held_submission_between_passes);
    TEST_RUN(test_refused_for_ever);
    TEST_RUN(test_idle_order_polls);
    TEST_RUN(test_parked_twins);
    TEST_RUN(test_top_need);
    TEST_RUN(test_reasons_walk_order);
    return TEST_DONE();
}
