/* t_backfill — BACKFILLPOLICY BESTFIT, GREEDY and PREEMPT, BACKFILLDEPTH,
 * chunking, RESERVATIONPOLICY HIGHEST, RESERVATIONDEPTH groups and
 * thresholds, on hand-made scenarios whose answers are worked out in the
 * comments. Times are seconds; every job asks for 1-processor tasks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfg/cfg.h"
#include "core/sched_int.h"
#include "engine/engine.h"
#include "test.h"

static int rm_start(void *ctx, struct job *j, long now)
{
    (void)ctx, (void)j, (void)now;
    return 0;
}

static int rm_preempt(void *ctx, struct job *j, enum preempt_policy how, long now)
{
    (void)j, (void)how, (void)now;
    ++*(int *)ctx;
    return 0;
}

static int npreempted;

/* A cluster of `procs` one-processor nodes under the policy in text. */
static struct sched *world(const char *text, int procs)
{
    struct cfg *cfg = cfg_create();
    struct err err = {{0}};
    struct sched_policy pol;
    struct sched *s = NULL;
    if (cfg_load_string(cfg, text, "maui.cfg", &err) == 0 &&
        sched_policy_from_cfg(cfg, &pol, &err) == 0) {
        s = sched_create(
            &pol, &(struct sched_rm){.start = rm_start, .preempt = rm_preempt, .ctx = &npreempted});
        if (sched_creds_from_cfg(s, cfg, &err) < 0) {
            sched_destroy(s);
            s = NULL;
        }
    }
    if (!s)
        fprintf(stderr, "    world: %s\n", err.msg);
    CHECK(s != NULL);
    cfg_destroy(cfg);
    for (int i = 0; s && i < procs; i++) {
        char name[16];
        snprintf(name, sizeof name, "n%02d", i);
        sched_add_node(s, &(struct node_spec){.name = name, .procs = 1, .state = NODE_UP}, NULL);
    }
    return s;
}

static struct job *sub(struct sched *s, const char *name, int procs, long wall, long at,
                       const char *qos)
{
    struct job_spec js = {.name = name,
                          .tasks = procs,
                          .procs_per_task = 1,
                          .walltime = wall,
                          .submit = at,
                          .qos = qos};
    struct job *j = sched_submit(s, &js, NULL);
    CHECK(j != NULL);
    return j;
}

/* Which of the named jobs run, as "a,b" in submission order. */
static const char *running(struct sched *s)
{
    static char buf[256];
    buf[0] = '\0';
    for (size_t i = 0; i < sched_njobs(s); i++) {
        const struct job *j = sched_job(s, i);
        if (j->state == JOB_RUNNING && strcmp(j->name, "big") != 0) {
            if (buf[0])
                strcat(buf, ",");
            strcat(buf, j->name);
        }
    }
    return buf;
}

/*
 * 10 processors; "big" holds 4 until 1000. "top" (9 procs) cannot start and
 * is reserved at 1000, so 6 processors are free until 1000: a window of 6
 * for 1000 s. Candidates, in priority order: x (4 procs), y (3), z (3), all
 * ending before 1000.
 *   FIRSTFIT: x, then y needs 3 of the 2 left: x alone (4 procs used).
 *   BESTFIT (PROCS): the largest that fits, x (4); then nothing fits 2.
 *   GREEDY (PROCS): the best set is {y, z} = 6 > {x} = 4.
 */
static struct sched *window_world(const char *policy)
{
    struct sched *s = world(policy, 10);
    if (!s)
        return NULL;
    sub(s, "big", 4, 1000, 0, NULL);
    sched_iterate(s, 0);
    sub(s, "top", 9, 500, 1, NULL);
    sub(s, "x", 4, 600, 2, NULL);
    sub(s, "y", 3, 600, 3, NULL);
    sub(s, "z", 3, 600, 4, NULL);
    sched_iterate(s, 10);
    return s;
}

static void test_firstfit_bestfit_greedy(void)
{
    static const struct {
        const char *cfg, *want;
    } rows[] = {
        {"BACKFILLPOLICY FIRSTFIT\n", "x"},
        {"BACKFILLPOLICY BESTFIT\n", "x"},
        {"BACKFILLPOLICY GREEDY\n", "y,z"},
        {"BACKFILLPOLICY GREEDY\nBACKFILLMAXSCHEDULES 1\n", "x"}, /* one step: {x} only */
        {"BACKFILLPOLICY NONE\n", ""},
    };
    for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
        struct sched *s = window_world(rows[k].cfg);
        if (!s)
            continue;
        if (strcmp(running(s), rows[k].want) != 0)
            fprintf(stderr, "    %s", rows[k].cfg);
        CHECK_STR(running(s), rows[k].want);
        sched_destroy(s);
    }
}

/*
 * BESTFIT metrics. 10 processors, big holds 4 until 1000, top reserved at
 * 1000: window 6 x 1000. Candidates p (2 procs, 900 s) and q (5 procs,
 * 100 s): PROCS picks q (5 > 2), SECONDS picks p (900 > 100), PROCSECONDS
 * p (1800 > 500). Only one of them fits the 6 processors at a time? No:
 * 2 + 5 = 7 > 6, so the pick decides.
 */
static void test_bestfit_metrics(void)
{
    static const struct {
        const char *metric, *want;
    } rows[] = {{"PROCS", "q"}, {"SECONDS", "p"}, {"PROCSECONDS", "p"}};
    for (size_t k = 0; k < 3; k++) {
        char cfg[128];
        snprintf(cfg, sizeof cfg, "BACKFILLPOLICY BESTFIT\nBACKFILLMETRIC %s\n", rows[k].metric);
        struct sched *s = world(cfg, 10);
        if (!s)
            continue;
        sub(s, "big", 4, 1000, 0, NULL);
        sched_iterate(s, 0);
        sub(s, "top", 9, 500, 1, NULL);
        sub(s, "p", 2, 900, 2, NULL);
        sub(s, "q", 5, 100, 3, NULL);
        sched_iterate(s, 10);
        CHECK_STR(running(s), rows[k].want);
        sched_destroy(s);
    }
}

/* BESTFIT visits the shortest window first: with a second window (the
 * processors big frees at 1000 stay free only until top's reservation ends
 * ... ) a short job is preferred over a longer one of the same size. Here:
 * 10 procs, big (4) ends at 1000, top (9, 500 s) reserved at 1000; r (6
 * procs, 1200 s) would run into top's reservation: not a candidate that
 * fits; s6 (6 procs, 900 s) fits the first window. */
static void test_bestfit_never_delays(void)
{
    struct sched *s = world("BACKFILLPOLICY BESTFIT\n", 10);
    if (!s)
        return;
    sub(s, "big", 4, 1000, 0, NULL);
    sched_iterate(s, 0);
    struct job *top = sub(s, "top", 9, 500, 1, NULL);
    sub(s, "r", 6, 1200, 2, NULL);
    sub(s, "s6", 6, 900, 3, NULL);
    sched_iterate(s, 10);
    CHECK_STR(running(s), "s6");
    CHECK_EQ(top->resv_start, 1000);
    sched_destroy(s);
}

/* BACKFILLDEPTH 1: only the first candidate is looked at. */
static void test_backfill_depth(void)
{
    struct sched *s = world("BACKFILLPOLICY FIRSTFIT\nBACKFILLDEPTH 1\n", 10);
    if (!s)
        return;
    sub(s, "big", 4, 1000, 0, NULL);
    sched_iterate(s, 0);
    sub(s, "top", 9, 500, 1, NULL);
    sub(s, "w", 7, 600, 2, NULL); /* does not fit: it is the one candidate */
    sub(s, "v", 2, 600, 3, NULL); /* would fit, but is not looked at */
    sched_iterate(s, 10);
    CHECK_STR(running(s), "");
    sched_destroy(s);
}

/*
 * Chunking: BFCHUNKSIZE 4, BFCHUNKDURATION 100. 8 procs: a (4 procs) ends
 * at 50, freeing 4; "top" (8 procs) is reserved when b (4) ends at 500.
 * Queue after top: c (4 procs, 300 s) fits now; d (1 proc) too. Within
 * 100 s of a's end, c is tried first and fits; no chunk is needed. Make c
 * not fit (400 s: it would run past 500 into top's reservation): then c,
 * of chunk size, stays unstarted and d (smaller) is held back until 150.
 */
static void test_chunking(void)
{
    struct sched *s = world("BFCHUNKSIZE 4\nBFCHUNKDURATION 100\n", 8);
    if (!s)
        return;
    struct job *a = sub(s, "a", 4, 50, 0, NULL);
    sub(s, "b", 4, 500, 0, NULL);
    sched_iterate(s, 0);
    sched_job_ended(s, a, 50);
    sub(s, "top", 8, 100, 50, NULL);
    sub(s, "c", 4, 600, 50, NULL);
    struct job *d = sub(s, "d", 1, 60, 50, NULL);
    sched_iterate(s, 50);
    CHECK(d->state == JOB_IDLE); /* held back for a chunk */
    sched_iterate(s, 149);
    CHECK(d->state == JOB_IDLE);
    sched_iterate(s, 150); /* BFCHUNKDURATION since the last end has passed */
    CHECK(d->state == JOB_RUNNING);
    sched_destroy(s);
    /* Without chunking d starts at once. */
    s = world("", 8);
    a = sub(s, "a", 4, 50, 0, NULL);
    sub(s, "b", 4, 500, 0, NULL);
    sched_iterate(s, 0);
    sched_job_ended(s, a, 50);
    sub(s, "top", 8, 100, 50, NULL);
    sub(s, "c", 4, 600, 50, NULL);
    d = sub(s, "d", 1, 60, 50, NULL);
    sched_iterate(s, 50);
    CHECK(d->state == JOB_RUNNING);
    sched_destroy(s);
}

/*
 * RESERVATIONPOLICY: 4 procs, all held by big until 1000. A (4 procs) is
 * reserved at 1000. Then B arrives with a higher system priority.
 *   CURRENTHIGHEST: the one reservation (depth 1) goes to B.
 *   HIGHEST: A keeps its reservation; B, with no slot left, gets none.
 */
static void test_reservation_policy(void)
{
    static const struct {
        const char *cfg;
        int a_keeps;
    } rows[] = {{"RESERVATIONPOLICY CURRENTHIGHEST\n", 0}, {"RESERVATIONPOLICY HIGHEST\n", 1}};
    for (size_t k = 0; k < 2; k++) {
        struct sched *s = world(rows[k].cfg, 4);
        if (!s)
            continue;
        sub(s, "big", 4, 1000, 0, NULL);
        sched_iterate(s, 0);
        struct job *a = sub(s, "A", 4, 100, 1, NULL);
        sched_iterate(s, 1);
        CHECK_EQ(a->resv_start, 1000);
        struct job *b = sub(s, "B", 4, 100, 2, NULL);
        CHECK_EQ(sched_set_sysprio(s, b, SYSPRIO_ABSOLUTE, 1000, NULL), 0);
        sched_iterate(s, 3);
        CHECK_EQ(a->resv_start >= 0, rows[k].a_keeps);
        CHECK_EQ(b->resv_start >= 0, !rows[k].a_keeps);
        sched_destroy(s);
    }
}

/* RESERVATIONDEPTH groups by QOS: group 0 (high) one reservation, group 1
 * (every other QOS) none; a job of QOS low is never reserved, so a smaller
 * job may pass it. */
static void test_depth_groups(void)
{
    struct sched *s = world("QOSCFG[high] PRIORITY=100\nQOSCFG[low] PRIORITY=1\n"
                            "USERCFG[DEFAULT] QLIST=high,low\n"
                            "RESERVATIONDEPTH[0] 1\nRESERVATIONQOSLIST[0] high\n"
                            "RESERVATIONDEPTH[1] 0\nRESERVATIONQOSLIST[1] [ALL]\n",
                            4);
    if (!s)
        return;
    sub(s, "big", 2, 1000, 0, NULL);
    sched_iterate(s, 0);
    struct job *l = sub(s, "L", 4, 100, 1, "low");
    struct job *m = sub(s, "m", 2, 2000, 2, "low");
    sched_iterate(s, 5);
    CHECK_EQ(l->resv_start, -1);    /* its group has no reservations */
    CHECK(m->state == JOB_RUNNING); /* so m takes the free processors */
    sched_destroy(s);
    /* The same with L in QOS high: L is reserved at 1000 and m, which
     * would run past it, waits. */
    s = world("QOSCFG[high] PRIORITY=100\nQOSCFG[low] PRIORITY=1\n"
              "USERCFG[DEFAULT] QLIST=high,low\n"
              "RESERVATIONDEPTH[0] 1\nRESERVATIONQOSLIST[0] high\n",
              4);
    sub(s, "big", 2, 1000, 0, NULL);
    sched_iterate(s, 0);
    l = sub(s, "L", 4, 100, 1, "high");
    m = sub(s, "m", 2, 2000, 2, "low");
    sched_iterate(s, 5);
    CHECK_EQ(l->resv_start, 1000);
    CHECK(m->state == JOB_IDLE);
    sched_destroy(s);
}

/* RESERVATIONTHRESHOLDTYPE QUEUETIME 100: a job is reserved only after
 * waiting more than 100 s. */
static void test_threshold(void)
{
    struct sched *s =
        world("RESERVATIONTHRESHOLDTYPE QUEUETIME\nRESERVATIONTHRESHOLDVALUE 100\n", 4);
    if (!s)
        return;
    sub(s, "big", 4, 1000, 0, NULL);
    sched_iterate(s, 0);
    struct job *a = sub(s, "A", 4, 100, 0, NULL);
    sched_iterate(s, 50);
    CHECK_EQ(a->resv_start, -1);
    sched_iterate(s, 101);
    CHECK_EQ(a->resv_start, 1000);
    sched_destroy(s);
}

/*
 * PREEMPT: no priority reservations; backfilled jobs are preemptible. 4
 * procs; big (2) until 1000. A (4 procs) cannot start and gets no
 * reservation, so b (2 procs, 5000 s) backfills, marked preemptee. When
 * big ends, A (higher priority) preempts b.
 */
static void test_preempt_backfill(void)
{
    npreempted = 0;
    struct sched *s = world("BACKFILLPOLICY PREEMPT\n", 4);
    if (!s)
        return;
    struct job *big = sub(s, "big", 2, 1000, 0, NULL);
    sched_iterate(s, 0);
    struct job *a = sub(s, "A", 4, 100, 1, NULL);
    struct job *b = sub(s, "b", 2, 5000, 2, NULL);
    sched_iterate(s, 5);
    CHECK_EQ(a->resv_start, -1);
    CHECK(b->state == JOB_RUNNING && (b->flags & JOB_PREEMPTEE));
    sched_job_ended(s, big, 1000);
    sched_iterate(s, 1000);
    CHECK_EQ(npreempted, 1);
    CHECK(a->state == JOB_RUNNING);
    CHECK(b->state == JOB_IDLE); /* requeued (PREEMPTPOLICY REQUEUE) */
    sched_destroy(s);
}

/* The bypass counter: a job backfilled past a waiting one adds one. */
static void test_bypass_counts(void)
{
    struct sched *s = world("BACKFILLPOLICY BESTFIT\n", 4);
    if (!s)
        return;
    sub(s, "big", 2, 1000, 0, NULL);
    sched_iterate(s, 0);
    struct job *a = sub(s, "A", 4, 100, 1, NULL);
    sub(s, "c", 1, 500, 2, NULL);
    sub(s, "d", 1, 500, 3, NULL);
    sched_iterate(s, 5);
    CHECK_STR(running(s), "c,d");
    CHECK_EQ(a->bypass, 2);
    sched_destroy(s);
}

/*
 * Bypass counts through the quick scan's notes (policy/iter.c: a job noted
 * is owed the backfills of its plan, read from a clock, not counted at each
 * start) against the full path, which counts every backfill at once: the
 * same workload on two schedulers, FIRSTFIT with RESERVATIONDEPTH 1, one
 * with BACKFILLDEPTH above any queue's length (the same starts, no quick
 * scan). Twins' jobs of one index must be in the same state with the same
 * count and the same reason to wait after every iteration; after
 * sched_complete_plan (what a command calls first) the record's own count
 * must be the whole of it.
 */
#define TWIN_JOBS 200

struct twin {
    struct sched *s[2];
    struct job *j[2][TWIN_JOBS];
    long run[TWIN_JOBS];
    int n;
    long now;
};

static void twin_init(struct twin *t, int procs)
{
    t->s[0] = world("BACKFILLPOLICY FIRSTFIT\nRESERVATIONDEPTH[0] 1\n", procs);
    t->s[1] =
        world("BACKFILLPOLICY FIRSTFIT\nRESERVATIONDEPTH[0] 1\nBACKFILLDEPTH 1000000\n", procs);
    t->n = 0;
    t->now = 0;
}

static void twin_submit(struct twin *t, int procs, long wall, long run)
{
    char name[16];
    snprintf(name, sizeof name, "j%d", t->n);
    for (int k = 0; k < 2; k++)
        t->j[k][t->n] = sub(t->s[k], name, procs, wall, t->now, NULL);
    t->run[t->n++] = run;
}

/* Time moves to the next end of a running job (or by `idle` with none), and
 * the jobs due end on both. */
static void twin_advance(struct twin *t, long idle)
{
    long next = t->now + idle;
    for (int i = 0; i < t->n; i++)
        if (t->j[0][i]->state == JOB_RUNNING && t->j[0][i]->start + t->run[i] < next)
            next = t->j[0][i]->start + t->run[i];
    t->now = next > t->now ? next : t->now;
    for (int i = 0; i < t->n; i++)
        for (int k = 0; k < 2; k++)
            if (t->j[k][i]->state == JOB_RUNNING && t->j[k][i]->start + t->run[i] <= t->now)
                sched_job_ended(t->s[k], t->j[k][i], t->now);
}

/* Whether the twins agree: states, bypass counts (after sched_complete_plan,
 * j->bypass itself) and why the waiting ones wait. */
static int twin_agree(struct twin *t, int complete)
{
    int ok = 1;
    for (int k = 0; complete && k < 2; k++)
        sched_complete_plan(t->s[k]);
    for (int i = 0; i < t->n; i++) {
        const struct job *a = t->j[0][i], *b = t->j[1][i];
        long na = complete ? a->bypass : sched_job_bypass(t->s[0], a);
        ok &= a->state == b->state && na == sched_job_bypass(t->s[1], b) && b->bp_slot == 0 &&
              sched_job_wait(t->s[0], a) == sched_job_wait(t->s[1], b);
    }
    return ok;
}

static void twin_iterate(struct twin *t)
{
    for (int k = 0; k < 2; k++)
        sched_iterate(t->s[k], t->now);
}

/* A random idle job's index, -1 if none. */
static int twin_idle(const struct twin *t)
{
    int i = t->n ? rand() % t->n : 0, m = t->n;
    for (; m > 0 && t->j[0][i]->state != JOB_IDLE; m--)
        i = (i + 1) % t->n;
    return m ? i : -1;
}

static void test_bypass_notes_random(void)
{
    srand(31);
    int ok = 1, noted = 0;
    for (int round = 0; round < 30 && ok; round++) {
        struct twin t;
        twin_init(&t, 16);
        if (!t.s[0] || !t.s[1])
            return;
        for (int step = 0; step < 600 && ok; step++) {
            int op = rand() % 12, i;
            long wall = 5 + rand() % 100;
            if (op < 4 && t.n < TWIN_JOBS) {
                twin_submit(&t, 1 << (rand() % 5), wall, 1 + rand() % wall);
            } else if (op < 8) {
                twin_advance(&t, 1 + rand() % 30);
            } else if (op == 8 && (i = twin_idle(&t)) >= 0) {
                for (int k = 0; k < 2; k++)
                    CHECK(sched_cancel(t.s[k], t.j[k][i], t.now, NULL) == 0);
            } else if (op == 9 && (i = twin_idle(&t)) >= 0) {
                for (int k = 0; k < 2; k++) /* a full pass, nothing else changed */
                    sched_set_walltime(t.s[k], t.j[k][i], t.j[k][i]->walltime, NULL);
            } else if (op == 10 && (i = twin_idle(&t)) >= 0) {
                for (int k = 0; k < 2; k++) /* runjob: a start that is no backfill */
                    sched_runjob(t.s[k], t.j[k][i], t.now, NULL);
            }
            twin_iterate(&t);
            for (int m = 0; m < t.n; m++)
                noted |= t.j[0][m]->bp_slot != 0;
            ok &= twin_agree(&t, rand() % 16 == 0);
        }
        CHECK(ok);
        for (int k = 0; k < 2; k++)
            sched_destroy(t.s[k]);
    }
    CHECK(noted); /* the quick scan did note jobs */
}

/*
 * The notes' slots are reused once 4,096 and more than the jobs held are
 * taken (every note settled, then): 6,000 plans over a queue of about 30
 * jobs, a short job backfilled every 60th.
 */
static void test_bypass_slots_reused(void)
{
    struct twin t;
    twin_init(&t, 8);
    if (!t.s[0] || !t.s[1])
        return;
    twin_submit(&t, 6, 1000000, 1000000); /* holds 6 of 8 nodes throughout */
    for (int i = 0; i < 30; i++)
        twin_submit(&t, 8, 100, 100); /* wait behind it, one reserved */
    twin_iterate(&t);
    int ok = 1, reused = 0;
    unsigned most = 0;
    for (int step = 0; step < 6000 && ok; step++) {
        if (step % 60 == 0)
            twin_submit(&t, 1, 5, 3); /* backfilled in the 2 free nodes */
        twin_advance(&t, 1);
        twin_iterate(&t);
        int i = 1 + rand() % 30; /* a waiting job: one more full pass */
        for (int k = 0; k < 2; k++)
            sched_set_walltime(t.s[k], t.j[k][i], 100, NULL);
        twin_iterate(&t);
        ok &= twin_agree(&t, 0);
        reused |= t.s[0]->pl.bp_cur < most;
        most = most > t.s[0]->pl.bp_cur ? most : t.s[0]->pl.bp_cur;
    }
    CHECK(ok);
    CHECK(twin_agree(&t, 1));
    CHECK(reused && most == 4096); /* slots 1 to 4,096 used, then started again */
    for (int k = 0; k < 2; k++)
        sched_destroy(t.s[k]);
}

/*
 * The scan's quick path (policy/iter.c quick_waits) learns from jobs the
 * processor profile turns away, not from jobs turned away for their nodes.
 * 10 processors (EASY); big holds 4 until 1000, top (9) is reserved at
 * 1000: 6 free until 1000, 1 after. f (2 procs, 600 s) asks for a feature
 * no node has: it waits, and says nothing of x. y (5, 2000 s) does not fit
 * past 1000: z (6, 2000 s), as large and as long, waits too (for the
 * reservation: 6 are free now). x (3, 700 s) fits before 1000 and starts;
 * then w (1, 2000 s) fits the one processor left past 1000 and starts.
 */
static void test_quick_scan(void)
{
    struct sched *s = world("BACKFILLPOLICY FIRSTFIT\nRESERVATIONDEPTH[0] 1\n", 10);
    if (!s)
        return;
    sub(s, "big", 4, 1000, 0, NULL);
    sched_iterate(s, 0);
    sub(s, "top", 9, 500, 1, NULL);
    struct job_spec fs = {.name = "f",
                          .tasks = 2,
                          .procs_per_task = 1,
                          .walltime = 600,
                          .submit = 2,
                          .features = "gpu"};
    struct job *f = sched_submit(s, &fs, NULL);
    CHECK(f != NULL);
    sub(s, "y", 5, 2000, 3, NULL);
    struct job *z = sub(s, "z", 6, 2000, 4, NULL);
    sub(s, "x", 3, 700, 5, NULL);
    sub(s, "w", 1, 2000, 6, NULL);
    sched_iterate(s, 10);
    CHECK_STR(running(s), "x,w");
    CHECK_EQ(sched_job_wait(s, z), WAIT_DELAYS);
    if (f)
        CHECK_EQ(f->state, JOB_IDLE);
    sched_destroy(s);
}

/*
 * The full path starts without asking plan_fits again only the job the
 * quick walk stopped at for plan_fits' yes (policy/iter.c start_fitting),
 * not one it stopped at for another reason. The world of test_quick_scan:
 * 6 processors free until 1000, 1 after. e (exclusive, 2 one-processor
 * nodes, 2000 s) would hold 2 past 1000, delaying top: the walk stops at
 * it (an exclusive job takes the full path), and it waits, though 2 whole
 * nodes are free now. x (3, 700 s), which plan_fits answers for in the
 * walk, starts; then w (1, 2000 s) takes the one processor left past 1000.
 */
static void test_quick_stop_asks(void)
{
    struct sched *s = world("BACKFILLPOLICY FIRSTFIT\nRESERVATIONDEPTH[0] 1\n", 10);
    if (!s)
        return;
    sub(s, "big", 4, 1000, 0, NULL);
    sched_iterate(s, 0);
    struct job *top = sub(s, "top", 9, 500, 1, NULL);
    struct job_spec es = {.name = "e",
                          .tasks = 2,
                          .procs_per_task = 1,
                          .walltime = 2000,
                          .submit = 2,
                          .exclusive = 1};
    struct job *e = sched_submit(s, &es, NULL);
    CHECK(e != NULL);
    sub(s, "x", 3, 700, 3, NULL);
    sub(s, "w", 1, 2000, 4, NULL);
    sched_iterate(s, 10);
    CHECK_STR(running(s), "x,w");
    CHECK_EQ(top->resv_start, 1000);
    if (e) {
        CHECK_EQ(e->state, JOB_IDLE);
        CHECK_EQ(sched_job_wait(s, e), WAIT_DELAYS);
    }
    sched_destroy(s);
}

int main(void)
{
    TEST_RUN(test_firstfit_bestfit_greedy);
    TEST_RUN(test_bestfit_metrics);
    TEST_RUN(test_bestfit_never_delays);
    TEST_RUN(test_backfill_depth);
    TEST_RUN(test_chunking);
    TEST_RUN(test_reservation_policy);
    TEST_RUN(test_depth_groups);
    TEST_RUN(test_threshold);
    TEST_RUN(test_preempt_backfill);
    TEST_RUN(test_bypass_counts);
    TEST_RUN(test_bypass_notes_random);
    TEST_RUN(test_bypass_slots_reused);
    TEST_RUN(test_quick_scan);
    TEST_RUN(test_quick_stop_asks);
    return TEST_DONE();
}
