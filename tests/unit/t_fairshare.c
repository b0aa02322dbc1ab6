/*
 * t_fairshare — fairshare through the engine: maui.cfg text to a scheduler
 * (FSPOLICY, FSTARGET on every credential kind, the FS weights), jobs that
 * run and charge their credentials, the seed's priority example (a user 5 %
 * under target adds, an account 10 % over subtracts, a floor QOS over its
 * target and a credential without target add nothing), fairshare reordering
 * the queue, caps that block (absolute and relative, with the reason), the
 * percent policy, DEDICATEDPES, UTILIZEDPS, and windows rolling over in
 * simulated time on the trace's epoch clock.
 */
#include <stdlib.h>

#include "cfg/cfg.h"
#include "engine/engine.h"
#include "policy/fs.h"
#include "sim/sim.h"
#include "test.h"

/* A scheduler from maui.cfg text, with `nodes` nodes of `ppn` processors. */
static struct sched *make(const char *text, int nodes, int ppn)
{
    struct cfg *cfg = cfg_create();
    struct err e = {{0}};
    struct sched_policy pol;
    CHECK_EQ(cfg_load_string(cfg, text, "maui.cfg", &e), 0);
    CHECK_EQ(sched_policy_from_cfg(cfg, &pol, &e), 0);
    struct sched *s = sched_create(&pol, NULL);
    CHECK_EQ(sched_creds_from_cfg(s, cfg, &e), 0);
    CHECK_EQ(sched_limits_from_cfg(s, cfg, &e), 0);
    cfg_destroy(cfg);
    char name[16];
    for (int i = 0; i < nodes; i++) {
        snprintf(name, sizeof name, "n%d", i);
        struct node_spec spec = {.name = name, .procs = ppn, .state = NODE_UP};
        sched_add_node(s, &spec, NULL);
    }
    return s;
}

static struct job *submit(struct sched *s, const char *name, const char *user, int procs,
                          long walltime, long now)
{
    struct job_spec spec = {.name = name,
                            .tasks = procs,
                            .procs_per_task = 1,
                            .walltime = walltime,
                            .submit = now,
                            .user = user,
                            .group = "g",
                            .account = "a",
                            .qos = "q"};
    struct job *j = sched_submit(s, &spec, NULL);
    CHECK(j != NULL);
    return j;
}

static struct cred *cred(struct sched *s, enum cred_kind k, const char *name)
{
    return cred_get(sched_creds(s, k), name);
}

static void test_config(void)
{
    struct sched *s = make("FSPOLICY DEDICATEDPES%\nFSINTERVAL 6:00:00\nFSDEPTH 5\n"
                           "FSDECAY 0.75\nUSERCFG[amy] FSTARGET=20+\nSYSCFG FSTARGET=80\n",
                           1, 1);
    const struct fs_params *p = fs_params(sched_fs(s));
    CHECK_EQ(p->policy, FS_DEDICATEDPES);
    CHECK_EQ(p->percent, 1);
    CHECK_EQ(p->interval, 6 * 3600);
    CHECK_EQ(p->depth, 5);
    CHECK(near(p->decay, 0.75));
    struct fs_target t = fs_own_target(sched_fs(s), cred(s, CRED_USER, "amy"));
    CHECK(t.value == 20 && t.mode == FS_MODE_FLOOR);
    CHECK(fs_total_target(sched_fs(s)).value == 80);
    sched_destroy(s);

    /* Maui's defaults; FSPOLICY TRUE means DEDICATEDPS. */
    s = make("", 1, 1);
    p = fs_params(sched_fs(s));
    CHECK(p->policy == FS_NONE && p->interval == 43200 && p->depth == 8 && p->decay == 1.0);
    sched_destroy(s);
    s = make("FSPOLICY TRUE\n", 1, 1);
    CHECK_EQ(fs_params(sched_fs(s))->policy, FS_DEDICATEDPS);
    sched_destroy(s);

    /* A bad FSTARGET is an error naming file, line and object. */
    struct cfg *cfg = cfg_create();
    struct err e = {{0}};
    int rc =
        cfg_load_string(cfg, "FSPOLICY DEDICATEDPS\nGROUPCFG[x] FSTARGET=5x\n", "maui.cfg", &e);
    CHECK_EQ(rc, -1);
    CHECK_HAS(e.msg, "maui.cfg:2");
    CHECK_HAS(e.msg, "FSTARGET");
    cfg_destroy(cfg);
}

/* The seed's priority example: usage 45 / 35 / 25 / 60 % of the total for
 * user, account, QOS and group; targets 50, 25, 10+ and none. */
static void test_seed_priority(void)
{
    struct sched *s = make("FSPOLICY DEDICATEDPS\nFSWEIGHT 1\nFSUSERWEIGHT 1\n"
                           "FSGROUPWEIGHT 1\nFSACCOUNTWEIGHT 1\nFSQOSWEIGHT 1\n"
                           "USERCFG[u] FSTARGET=50\nACCOUNTCFG[a] FSTARGET=25\n"
                           "QOSCFG[q] FSTARGET=10+\nQOSCFG[q] PRIORITY=1\n"
                           "USERCFG[u] QLIST=q\n",
                           1, 4);
    struct fs *f = sched_fs(s);
    fs_advance(f, 0);
    fs_set_window(f, cred(s, CRED_USER, "u"), 1, 45);
    fs_set_window(f, cred(s, CRED_ACCOUNT, "a"), 1, 35);
    fs_set_window(f, cred(s, CRED_QOS, "q"), 1, 25);
    fs_set_window(f, cred(s, CRED_GROUP, "g"), 1, 60);
    fs_set_total_window(f, 1, 100);
    struct job *k = submit(s, "1", "u", 4, 100, 0);
    sched_iterate(s, 0);
    CHECK(near(cred(s, CRED_USER, "u")->fs_delta, 5));
    CHECK(near(cred(s, CRED_ACCOUNT, "a")->fs_delta, -10));
    CHECK(cred(s, CRED_QOS, "q")->fs_delta == 0);
    CHECK(cred(s, CRED_GROUP, "g")->fs_delta == 0);
    struct prio_parts parts;
    sched_job_priority(s, k, 0, &parts);
    CHECK(near(parts.factor[PF_FSUSER], 5));
    CHECK(near(parts.factor[PF_FSACCOUNT], -10));
    CHECK(near(parts.comp[PRIO_FS], -5));
    sched_destroy(s);
}

/* Running jobs charge their user, group, account, class, QOS and the total
 * by the second; priorities then favour the user under target. */
static void test_accrual_and_order(void)
{
    struct sched *s = make("FSPOLICY DEDICATEDPS\nFSINTERVAL 1000\nFSDEPTH 4\nFSDECAY 0.5\n"
                           "FSWEIGHT 100\nFSUSERWEIGHT 1\nUSERCFG[DEFAULT] FSTARGET=50\n",
                           1, 4);
    struct fs *f = sched_fs(s);
    struct job *a = submit(s, "1", "alice", 4, 400, 0);
    sched_iterate(s, 0);
    CHECK_EQ(a->state, JOB_RUNNING);
    sched_iterate(s, 100);
    CHECK(near(fs_window(f, cred(s, CRED_USER, "alice"), 0), 400));
    CHECK(near(fs_window(f, cred(s, CRED_GROUP, "g"), 0), 400));
    CHECK(near(fs_window(f, cred(s, CRED_ACCOUNT, "a"), 0), 400));
    CHECK(near(fs_window(f, cred(s, CRED_QOS, "q"), 0), 400));
    CHECK(near(fs_total_window(f, 0), 400));
    /* Two jobs wait: alice's first, then bob's. Bob, with no usage, is 50
     * under target; alice at 100 % is 50 over: bob's job runs first. */
    struct job *a2 = submit(s, "2", "alice", 4, 100, 200);
    struct job *b = submit(s, "3", "bob", 4, 100, 300);
    sched_iterate(s, 300);
    sched_job_ended(s, a, 400);
    sched_iterate(s, 400);
    CHECK(near(fs_window(f, cred(s, CRED_USER, "alice"), 0), 1600));
    CHECK_EQ(b->state, JOB_RUNNING);
    CHECK_EQ(a2->state, JOB_IDLE);
    CHECK(near(cred(s, CRED_USER, "bob")->fs_delta, 50));
    CHECK(near(cred(s, CRED_USER, "alice")->fs_delta, -50));
    /* Bob's job runs 400..500; at 1200 the window 0..1000 has rolled. */
    sched_job_ended(s, b, 500);
    sched_iterate(s, 500); /* alice's second job: 500..600 */
    sched_job_ended(s, a2, 600);
    sched_iterate(s, 1200);
    CHECK_EQ(fs_window_start(f), 1000);
    CHECK(near(fs_window(f, cred(s, CRED_USER, "alice"), 1), 2000));
    CHECK(near(fs_window(f, cred(s, CRED_USER, "bob"), 1), 400));
    CHECK(near(fs_total_window(f, 1), 2400));
    CHECK(fs_total_window(f, 0) == 0);
    CHECK(near(fs_percent(f, cred(s, CRED_USER, "bob")), 100.0 * 400 / 2400));
    sched_destroy(s);
}

/* Feasibility-based fairshare: a job that would take its user past an
 * absolute cap (^) is blocked, with the reason; work still due from
 * running jobs counts. */
static void test_caps(void)
{
    struct sched *s = make("FSPOLICY DEDICATEDPS\nUSERCFG[carl] FSTARGET=1000^\n", 1, 4);
    struct job *j1 = submit(s, "1", "carl", 1, 600, 0);
    struct job *j2 = submit(s, "2", "carl", 1, 600, 0);
    struct job *d = submit(s, "3", "dora", 1, 600, 0);
    sched_iterate(s, 0);
    CHECK_EQ(j1->state, JOB_RUNNING);
    CHECK_EQ(j2->state, JOB_IDLE); /* 600 due + 600 > 1000 */
    CHECK_EQ(d->state, JOB_RUNNING);
    sched_iterate(s, 10);
    const char *why = sched_job_blocked(s, j2);
    CHECK(why != NULL);
    if (why) {
        CHECK_HAS(why, "fairshare cap of 1000.00^ for user carl");
        CHECK_HAS(why, "job 2");
    }
    CHECK_EQ(sched_count_idle(s, 1), 1);
    sched_job_ended(s, j1, 300); /* delivered 300: 300 + 600 <= 1000 */
    sched_iterate(s, 300);
    CHECK_EQ(j2->state, JOB_RUNNING);
    sched_destroy(s);

    /* Relative cap: erin may have at most 50 % of the delivered usage. */
    s = make("FSPOLICY DEDICATEDPS\nUSERCFG[erin] FSTARGET=50%\n", 1, 2);
    struct job *e1 = submit(s, "1", "erin", 1, 100, 0);
    struct job *e2 = submit(s, "2", "erin", 1, 100, 0);
    sched_iterate(s, 0);
    /* Nothing delivered or due yet: the first job runs; then erin has all
     * the committed work, so the second would take her past 50 %. */
    CHECK_EQ(e1->state, JOB_RUNNING);
    CHECK_EQ(e2->state, JOB_IDLE);
    struct job *f1 = submit(s, "3", "fred", 1, 300, 5);
    sched_iterate(s, 5);
    CHECK_EQ(f1->state, JOB_RUNNING);
    sched_job_ended(s, e1, 100);
    sched_iterate(s, 100);
    /* erin 100 delivered; fred 95 delivered + 205 due: (100 + 100) / 500 */
    CHECK_EQ(e2->state, JOB_RUNNING);
    sched_destroy(s);

    /* Without FSPOLICY a cap does nothing. */
    s = make("USERCFG[carl] FSTARGET=1^\n", 1, 4);
    j1 = submit(s, "1", "carl", 1, 600, 0);
    sched_iterate(s, 0);
    CHECK_EQ(j1->state, JOB_RUNNING);
    sched_destroy(s);
}

/* DEDICATEDPES charges processor equivalents; UTILIZEDPS the processors
 * the job keeps busy when that is known. */
static void test_policies(void)
{
    /* 2 nodes x 4 procs, 2000 MB each: a 1-proc job asking for 1000 MB
     * holds a quarter of the memory = 2 processor equivalents. */
    struct job_spec spec = {.name = "1",
                            .tasks = 1,
                            .procs_per_task = 1,
                            .walltime = 100,
                            .user = "u",
                            .mem_per_task = 1000};
    struct sched *s = make("FSPOLICY DEDICATEDPES\n", 0, 0);
    struct cfg *cfg = cfg_create();
    cfg_load_string(cfg, "NODECFG[m0] PROCS=4 MEMORY=2000\nNODECFG[m1] PROCS=4 MEMORY=2000\n",
                    "maui.cfg", NULL);
    CHECK_EQ(sched_add_nodes_from_cfg(s, cfg, NULL), 0);
    cfg_destroy(cfg);
    struct job *j = sched_submit(s, &spec, NULL);
    CHECK(j != NULL);
    sched_iterate(s, 0);
    sched_iterate(s, 10);
    CHECK(near(fs_window(sched_fs(s), cred(s, CRED_USER, "u"), 0), 10 * 2));
    sched_destroy(s);

    s = make("FSPOLICY UTILIZEDPS\n", 1, 4);
    spec = (struct job_spec){.name = "1",
                             .tasks = 4,
                             .procs_per_task = 1,
                             .walltime = 100,
                             .user = "u",
                             .util = 0.25f,
                             .util_known = 1};
    sched_submit(s, &spec, NULL);
    sched_iterate(s, 0);
    sched_iterate(s, 20);
    CHECK(near(fs_window(sched_fs(s), cred(s, CRED_USER, "u"), 0), 20 * 4 * 0.25));
    sched_destroy(s);
    /* Known 0 (a job that used no CPU) charges nothing; unknown charges the
     * dedicated processors (issue 26: SWF's 0 is not "unknown", -1 is). */
    static const struct {
        int known;
        double util, want;
    } rows[] = {{1, 0, 0}, {0, 0, 20 * 4}, {0, 0.5, 20 * 4}};
    for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
        s = make("FSPOLICY UTILIZEDPS\n", 1, 4);
        spec = (struct job_spec){.name = "1",
                                 .tasks = 4,
                                 .procs_per_task = 1,
                                 .walltime = 100,
                                 .user = "u",
                                 .util = rows[k].util,
                                 .util_known = rows[k].known};
        sched_submit(s, &spec, NULL);
        sched_iterate(s, 0);
        sched_iterate(s, 20);
        CHECK(near(fs_window(sched_fs(s), cred(s, CRED_USER, "u"), 0), rows[k].want));
        sched_destroy(s);
    }
}

/* The percent policy: delta = 1 - usage/target. */
static void test_percent_policy(void)
{
    struct sched *s = make("FSPOLICY DEDICATEDPS%\nFSUSERWEIGHT 1\nUSERCFG[u] FSTARGET=40\n", 1, 4);
    struct fs *f = sched_fs(s);
    fs_advance(f, 0);
    fs_set_window(f, cred(s, CRED_USER, "u"), 1, 20);
    fs_set_total_window(f, 1, 100);
    submit(s, "1", "u", 8 / 2, 10, 0);
    sched_iterate(s, 0);
    CHECK(near(cred(s, CRED_USER, "u")->fs_delta, 1 - 20.0 / 40));
    sched_destroy(s);
}

/* Windows roll over in simulated time, aligned on the trace's epoch clock:
 * when the replay ends the ledger holds each window's usage in its slot. */
static void test_sim_rollover(void)
{
    struct sched *s = make("FSPOLICY DEDICATEDPS\nFSINTERVAL 1000\nFSDEPTH 3\n", 1, 2);
    sched_set_epoch(s, 5500); /* trace time 0 = epoch 5500: windows at -500, 500, 1500 */
    static const struct wl_names u7 = {.user = "7"}, u8 = {.user = "8"};
    static struct wl_job jobs[2] = {
        {.id = 1,
         .submit = 0,
         .runtime_lo = 1700,
         .walltime_lo = 2000,
         .tasks = 2,
         .procs_per_task = 1,
         .names = &u7,
         .line = 1},
        {.id = 2,
         .submit = 2600,
         .runtime_lo = 100,
         .walltime_lo = 100,
         .tasks = 1,
         .procs_per_task = 1,
         .names = &u8,
         .line = 2},
    };
    struct workload wl = {.jobs = jobs, .njobs = 2};
    struct sim_outcome out[2];
    sim_run(s, &wl, out, SIM_FOREVER, NULL);
    /* Job 1 runs 0..1700 on 2 procs: 500 s in window 5000, 1000 s in 6000,
     * 200 s in 7000; job 2 runs 2600..2700 in window 8000, the current one. */
    struct fs *f = sched_fs(s);
    const struct cred *u = cred_get(sched_creds(s, CRED_USER), "7");
    CHECK_EQ(fs_window_start(f) + fs_epoch(f), 8000);
    CHECK(fs_window(f, u, 0) == 0);
    CHECK(near(fs_total_window(f, 0), 100));
    CHECK(near(fs_window(f, u, 1), 400));
    CHECK(near(fs_window(f, u, 2), 2000));
    CHECK(near(fs_window(f, u, 3), 1000));
    CHECK(near(fs_total_window(f, 3), 1000));
    sched_destroy(s);
}

int main(void)
{
    TEST_RUN(test_config);
    TEST_RUN(test_seed_priority);
    TEST_RUN(test_accrual_and_order);
    TEST_RUN(test_caps);
    TEST_RUN(test_policies);
    TEST_RUN(test_percent_policy);
    TEST_RUN(test_sim_rollover);
    return TEST_DONE();
}
