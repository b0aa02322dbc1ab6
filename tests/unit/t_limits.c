/*
 * t_limits — tests of the throttling limits (policy/limits): every limit
 * type active and idle, soft and hard, DEFAULT and named objects, QOS
 * overrides and flags, per-user limits inside a class or QOS, SYSCFG, the
 * legacy parameters, per-job limits, configuration errors, and the worked
 * examples: MAX.WCLIMIT of five days, the MAXPS arithmetic of a running job's
 * remaining time, and MAXIJOB 8 admitting the highest-priority eight of
 * seventeen jobs.
 *
 * Jobs are built by hand (zeroed, then the fields a test needs); credentials
 * come from real cred tables. Each configuration goes through cfg as a
 * maui.cfg text, as the engine will read it.
 */
#include <stdlib.h>
#include <string.h>

#include "cfg/cfg.h"
#include "core/cred.h"
#include "core/job.h"
#include "policy/limits.h"
#include "policy/prio.h"
#include "test.h"

#define HOUR 3600L
#define DAY 86400L
#define NJOBS 64

struct fx {
    struct cred_table *t[CRED_NKINDS];
    struct limits *L;
    struct prio_env env;
    struct job jobs[NJOBS];
    char names[NJOBS][16];
    int njobs;
    char why[ERR_MSG_MAX];
};

static void fx_init(struct fx *f)
{
    memset(f, 0, sizeof *f);
    for (int k = 0; k < CRED_NKINDS; k++) {
        f->t[k] = cred_table_create((enum cred_kind)k);
        f->env.defaults[k] = cred_get(f->t[k], NULL);
    }
    f->env.procs = 128;
    f->L = limits_create();
}

static void fx_free(struct fx *f)
{
    limits_destroy(f->L);
    for (int k = 0; k < CRED_NKINDS; k++)
        cred_table_destroy(f->t[k]);
}

static struct cred *cred(struct fx *f, enum cred_kind k, const char *name)
{
    return cred_get(f->t[k], name);
}

/* Load maui.cfg text into f->L; the error message, if any, into f->why. */
static int load(struct fx *f, const char *text)
{
    struct err err = {{0}};
    struct cfg *cfg = cfg_create();
    int rc = cfg_load_string(cfg, text, "maui.cfg", &err);
    if (rc == 0)
        rc = limits_load(f->L, cfg, &err);
    snprintf(f->why, sizeof f->why, "%s", rc ? err.msg : "");
    cfg_destroy(cfg);
    return rc;
}

/* A job of `user` (group g, account a, class batch, QOS DEFAULT), named by
 * its sequence number from 1. */
static struct job *job(struct fx *f, const char *user, int procs, long walltime)
{
    struct job *j = &f->jobs[f->njobs];
    memset(j, 0, sizeof *j);
    snprintf(f->names[f->njobs], sizeof f->names[0], "%d", f->njobs + 1);
    j->name = f->names[f->njobs++];
    j->tasks = procs;
    j->procs_per_task = 1;
    j->walltime = walltime;
    j->user = cred(f, CRED_USER, user);
    j->group = cred(f, CRED_GROUP, "g");
    j->account = cred(f, CRED_ACCOUNT, "a");
    j->class_ = cred(f, CRED_CLASS, "batch");
    j->qos = cred(f, CRED_QOS, NULL);
    return j;
}

static void add(struct fx *f, struct job *j, enum lim_mode m, int sign)
{
    double req[LIM_NTYPES];
    limits_request(j, j->walltime, &f->env, req);
    limits_add(f->L, j, m, req, sign);
}

static void run(struct fx *f, struct job *j)
{
    add(f, j, LIM_ACTIVE, +1);
}

/* 1 when j may join `m` usage at `lv` (and f->why empty), else 0 with f->why. */
static int may(struct fx *f, struct job *j, enum lim_mode m, enum lim_level lv)
{
    double req[LIM_NTYPES];
    limits_request(j, j->walltime, &f->env, req);
    return limits_check(f->L, j, m, lv, req, f->why, sizeof f->why) == 0;
}

static int may_run(struct fx *f, struct job *j)
{
    return may(f, j, LIM_ACTIVE, LIM_HARD);
}

static int may_ever(struct fx *f, struct job *j)
{
    return limits_check_job(f->L, j, &f->env, f->why, sizeof f->why) == 0;
}

/* ---------------------------------------------------------------- basics */

static void test_no_limits(void)
{
    struct fx f;
    fx_init(&f);
    CHECK(!limits_any(f.L));
    struct job *j = job(&f, "alice", 1000, 100 * DAY);
    for (int i = 0; i < 10; i++)
        run(&f, j);
    CHECK(may_run(&f, j));
    CHECK(may(&f, j, LIM_IDLE, LIM_SOFT));
    CHECK(may_ever(&f, j));
    CHECK_EQ(load(&f, "USERCFG[alice] PRIORITY=10 MAXJOB=-1\nRMPOLLINTERVAL 30\n"), 0);
    CHECK(!limits_any(f.L)); /* -1 alone limits nothing */
    CHECK_EQ(load(&f, "USERCFG[alice] MAXJOB=1\n"), 0);
    CHECK(limits_any(f.L));
    fx_free(&f);
}

static void test_request(void)
{
    struct fx f;
    fx_init(&f);
    struct job *j = job(&f, "alice", 4, 2 * HOUR);
    j->procs_per_task = 2;
    j->nodes = 3;
    j->mem_per_task = 1000;
    double req[LIM_NTYPES];
    limits_request(j, 600, NULL, req);
    CHECK(req[LIM_JOB] == 1);
    CHECK(req[LIM_PROC] == 8);
    CHECK(req[LIM_NODE] == 3);
    CHECK(req[LIM_PS] == 8 * 600);
    CHECK(req[LIM_PE] == 8); /* no totals: PE = procs */
    CHECK(req[LIM_WC] == 600);
    CHECK(req[LIM_MEM] == 4000);
    /* 128 procs, 64000 MB: each task asks 2/128 procs and 1000/64000 MB; the
     * larger share (1/64 = 2/128) -> PE 8; with 4000 MB a task, 1/16 -> PE 32 */
    f.env.mem = 64000;
    limits_request(j, 600, &f.env, req);
    CHECK(req[LIM_PE] == 8);
    j->mem_per_task = 4000;
    limits_request(j, 600, &f.env, req);
    CHECK(req[LIM_PE] == 32);
    limits_request(j, -5, &f.env, req); /* an overrunning job has no time left */
    CHECK(req[LIM_PS] == 0 && req[LIM_WC] == 0);
    CHECK_STR(limits_type_name(LIM_PS), "MAXPS");
    fx_free(&f);
}

/* ------------------------------------------------------ each limit type */

struct type_case {
    const char *cfg;
    int tasks, ppt, nodes;
    long walltime, mem;
    int admitted;    /* jobs admitted before the next is refused */
    const char *msg; /* the refusal of job admitted + 1 */
};

static const struct type_case active_cases[] = {
    {"USERCFG[DEFAULT] MAXJOB=3", 1, 1, 0, HOUR, 0, 3,
     "job 4 violates active HARD MAXJOB limit of 3 for user alice (R: 1, U: 3)"},
    {"USERCFG[DEFAULT] MAXPROC=10", 2, 2, 0, HOUR, 0, 2,
     "job 3 violates active HARD MAXPROC limit of 10 for user alice (R: 4, U: 8)"},
    {"USERCFG[DEFAULT] MAXNODE=5", 1, 1, 2, HOUR, 0, 2,
     "job 3 violates active HARD MAXNODE limit of 5 for user alice (R: 2, U: 4)"},
    {"USERCFG[DEFAULT] MAXPS=30000", 4, 1, 0, 2 * HOUR, 0, 1,
     "job 2 violates active HARD MAXPS limit of 30000 for user alice (R: 28800, U: 28800)"},
    {"USERCFG[DEFAULT] MAXPE=16", 8, 1, 0, HOUR, 0, 2,
     "job 3 violates active HARD MAXPE limit of 16 for user alice (R: 8, U: 16)"},
    {"USERCFG[DEFAULT] MAXWC=5:00:00", 1, 1, 0, 2 * HOUR, 0, 2,
     "job 3 violates active HARD MAXWC limit of 18000 for user alice (R: 7200, U: 14400)"},
    {"USERCFG[DEFAULT] MAXMEM=10000", 2, 1, 0, HOUR, 2000, 2,
     "job 3 violates active HARD MAXMEM limit of 10000 for user alice (R: 4000, U: 8000)"},
};

/* Add jobs of alice as the case describes to `mode` usage while the check
 * admits them; the case says how many get in and how the next is refused. */
static void run_case(const struct type_case *c, enum lim_mode mode, const char *cfgtext)
{
    struct fx f;
    fx_init(&f);
    CHECK_EQ(load(&f, cfgtext), 0);
    int n = 0;
    for (; n < 20; n++) {
        struct job *j = job(&f, "alice", c->tasks, c->walltime);
        j->procs_per_task = c->ppt;
        j->nodes = c->nodes;
        j->mem_per_task = c->mem;
        if (!may(&f, j, mode, LIM_HARD))
            break;
        add(&f, j, mode, +1);
    }
    CHECK_EQ(n, c->admitted);
    if (mode == LIM_ACTIVE) {
        CHECK_STR(f.why, c->msg);
    } else {
        char want[256]; /* the same words with "idle" for "active" */
        const char *act = strstr(c->msg, "active");
        snprintf(want, sizeof want, "%.*sidle%s", (int)(act - c->msg), c->msg, act + 6);
        CHECK_STR(f.why, want);
    }
    /* another user is not held back by alice's usage */
    struct job *b = job(&f, "bob", c->tasks, c->walltime);
    b->procs_per_task = c->ppt;
    b->nodes = c->nodes;
    b->mem_per_task = c->mem;
    CHECK(may(&f, b, mode, LIM_HARD));
    fx_free(&f);
}

static void test_active_types(void)
{
    for (size_t i = 0; i < sizeof active_cases / sizeof active_cases[0]; i++)
        run_case(&active_cases[i], LIM_ACTIVE, active_cases[i].cfg);
}

/* The same with MAXIJOB, MAXIPROC, ... against idle usage; active usage
 * does not count against idle limits. */
static void test_idle_types(void)
{
    for (size_t i = 0; i < sizeof active_cases / sizeof active_cases[0]; i++) {
        char text[128];
        const char *c = active_cases[i].cfg;
        const char *max = strstr(c, "MAX");
        snprintf(text, sizeof text, "%.*sMAXI%s", (int)(max - c), c, max + 3);
        run_case(&active_cases[i], LIM_IDLE, text);
    }
    struct fx f;
    fx_init(&f);
    CHECK_EQ(load(&f, "USERCFG[DEFAULT] MAXIJOB=1"), 0);
    struct job *j = job(&f, "alice", 1, HOUR);
    run(&f, j);
    run(&f, j);
    CHECK(may(&f, j, LIM_IDLE, LIM_HARD));
    CHECK(may_run(&f, j)); /* no active limit */
    fx_free(&f);
}

/* ------------------------------------------------------------ soft, hard */

static void test_soft_hard(void)
{
    struct fx f;
    fx_init(&f);
    CHECK_EQ(load(&f, "USERCFG[steve] MAXJOB=2,4 MAXNODE=15,30\n"), 0);
    struct job *j = job(&f, "steve", 1, HOUR);
    run(&f, j);
    run(&f, j);
    CHECK(!may(&f, j, LIM_ACTIVE, LIM_SOFT));
    CHECK_STR(f.why, "job 1 violates active SOFT MAXJOB limit of 2 for user steve (R: 1, U: 2)");
    CHECK(may(&f, j, LIM_ACTIVE, LIM_HARD));
    CHECK_STR(f.why, "");
    run(&f, j);
    run(&f, j);
    CHECK(!may(&f, j, LIM_ACTIVE, LIM_HARD));
    CHECK_STR(f.why, "job 1 violates active HARD MAXJOB limit of 4 for user steve (R: 1, U: 4)");
    fx_free(&f);

    /* a soft limit above its hard one is an error (Maui raised the hard
     * limit silently; 72,000 became 72); -1,3 is 3,3 */
    fx_init(&f);
    CHECK_EQ(load(&f, "USERCFG[a] MAXJOB=4,2\n"), -1);
    fx_free(&f);
    fx_init(&f);
    CHECK_EQ(load(&f, "USERCFG[b] MAXJOB=-1,3\nUSERCFG[c] MAXJOB=2,-1\n"), 0);
    struct job *b = job(&f, "b", 1, HOUR), *c = job(&f, "c", 1, HOUR);
    for (int i = 0; i < 3; i++) {
        run(&f, b);
        run(&f, c);
    }
    CHECK(!may(&f, b, LIM_ACTIVE, LIM_SOFT) && !may_run(&f, b));
    CHECK(!may(&f, c, LIM_ACTIVE, LIM_SOFT) && may_run(&f, c)); /* soft 2, hard unlimited */
    fx_free(&f);
}

/* ---------------------------------------------------- DEFAULT and named */

static void test_default_named(void)
{
    struct fx f;
    fx_init(&f);
    CHECK_EQ(load(&f, "USERCFG[DEFAULT] MAXJOB=1\n"
                      "USERCFG[john]    MAXJOB=3\n"
                      "USERCFG[amy]     MAXJOB=-1 MAXPROC=4\n"),
             0);
    struct job *bob = job(&f, "bob", 1, HOUR), *john = job(&f, "john", 1, HOUR);
    struct job *amy = job(&f, "amy", 1, HOUR);
    run(&f, bob);
    CHECK(!may_run(&f, bob));
    for (int i = 0; i < 2; i++) {
        CHECK(may_run(&f, john));
        run(&f, john);
    }
    CHECK(may_run(&f, john));
    run(&f, john);
    CHECK(!may_run(&f, john));
    for (int i = 0; i < 4; i++) { /* -1 lifts the DEFAULT MAXJOB; her MAXPROC holds */
        CHECK(may_run(&f, amy));
        run(&f, amy);
    }
    CHECK(!may_run(&f, amy));
    CHECK_HAS(f.why, "MAXPROC limit of 4 for user amy");
    fx_free(&f);
}

static void test_other_kinds(void)
{
    static const struct {
        const char *cfg, *msg;
    } cases[] = {
        {"GROUPCFG[g] MAXJOB=2",
         "job 3 violates active HARD MAXJOB limit of 2 for group g (R: 1, U: 2)"},
        {"ACCOUNTCFG[DEFAULT] MAXJOB=2",
         "job 3 violates active HARD MAXJOB limit of 2 for acct a (R: 1, U: 2)"},
        {"CLASSCFG[batch] MAXJOB=2",
         "job 3 violates active HARD MAXJOB limit of 2 for class batch (R: 1, U: 2)"},
        {"QOSCFG[DEFAULT] MAXJOB=2",
         "job 3 violates active HARD MAXJOB limit of 2 for qos DEFAULT (R: 1, U: 2)"},
        {"SYSCFG MAXJOB=2",
         "job 3 violates active HARD MAXJOB limit of 2 for par ALL (R: 1, U: 2)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct fx f;
        fx_init(&f);
        CHECK_EQ(load(&f, cases[i].cfg), 0);
        /* different users, so only the shared credential counts */
        run(&f, job(&f, "u1", 1, HOUR));
        run(&f, job(&f, "u2", 1, HOUR));
        CHECK(!may_run(&f, job(&f, "u3", 1, HOUR)));
        CHECK_STR(f.why, cases[i].msg);
        fx_free(&f);
    }
}

/* The check order: user before group before the system. */
static void test_order(void)
{
    struct fx f;
    fx_init(&f);
    CHECK_EQ(load(&f, "SYSCFG MAXPROC=4\nGROUPCFG[g] MAXPROC=4\nUSERCFG[u] MAXPROC=4\n"), 0);
    struct job *j = job(&f, "u", 5, HOUR);
    CHECK(!may_run(&f, j));
    CHECK_HAS(f.why, "for user u");
    CHECK_EQ(load(&f, "SYSCFG MAXPROC=4\nGROUPCFG[g] MAXPROC=4\n"), 0);
    CHECK(!may_run(&f, j));
    CHECK_HAS(f.why, "for group g");
    CHECK_EQ(load(&f, "SYSCFG MAXPROC=4\n"), 0);
    CHECK(!may_run(&f, j));
    CHECK_HAS(f.why, "for par ALL");
    fx_free(&f);
}

/* --------------------------------------------------------- QOS overrides */

static void test_qos_override(void)
{
    struct fx f;
    fx_init(&f);
    CHECK_EQ(load(&f, "USERCFG[DEFAULT] MAXJOB=1 MAXIJOB=1\n"
                      "GROUPCFG[g] MAXJOB=2\n"
                      "QOSCFG[hi] OMAXJOB=3 OMAXIJOB=2\n"),
             0);
    struct job *lo = job(&f, "alice", 1, HOUR), *hi = job(&f, "alice", 1, HOUR);
    hi->qos = cred(&f, CRED_QOS, "hi");
    run(&f, lo);
    CHECK(!may_run(&f, lo));
    CHECK_HAS(f.why, "MAXJOB limit of 1 for user alice");
    /* the override replaces the limit of every credential of the job: the
     * user's 1 and the group's 2 both become 3 */
    CHECK(may_run(&f, hi));
    run(&f, hi);
    CHECK(may_run(&f, hi));
    run(&f, hi);
    CHECK(!may_run(&f, hi));
    CHECK_STR(f.why, "job 2 violates active HARD MAXJOB limit of 3 for user alice (R: 1, U: 3)");
    /* idle: OMAXIJOB */
    add(&f, hi, LIM_IDLE, +1);
    CHECK(may(&f, hi, LIM_IDLE, LIM_SOFT));
    CHECK(!may(&f, lo, LIM_IDLE, LIM_SOFT));
    add(&f, hi, LIM_IDLE, +1);
    CHECK(!may(&f, hi, LIM_IDLE, LIM_SOFT));
    CHECK_HAS(f.why, "idle SOFT MAXJOB limit of 2 for user alice");
    fx_free(&f);
}

/* Each QFLAGS flag, and the legacy QOSFLAGS[q] spelling. */
static void test_qos_flags(void)
{
    static const struct {
        const char *flag, *limit;
        enum lim_mode mode;
    } cases[] = {
        {"IGNJOBPERUSER", "MAXJOB=1", LIM_ACTIVE},      {"IGNPROCPERUSER", "MAXPROC=1", LIM_ACTIVE},
        {"IGNNODEPERUSER", "MAXNODE=1", LIM_ACTIVE},    {"IGNPSPERUSER", "MAXPS=3600", LIM_ACTIVE},
        {"IGNJOBQUEUEDPERUSER", "MAXIJOB=1", LIM_IDLE},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        for (int legacy = 0; legacy < 2; legacy++) {
            struct fx f;
            fx_init(&f);
            char text[256];
            snprintf(
                text, sizeof text, "USERCFG[DEFAULT] %s\n%s%s\nQOSCFG[lo] PRIORITY=1\n",
                cases[i].limit,
                legacy ? "QOSFLAGS[hi] PREEMPTOR:" : "QOSCFG[hi] QFLAGS=PREEMPTOR:", cases[i].flag);
            CHECK_EQ(load(&f, text), 0);
            struct job *hi = job(&f, "alice", 1, HOUR), *lo = job(&f, "alice", 1, HOUR);
            hi->nodes = lo->nodes = 1;
            hi->qos = cred(&f, CRED_QOS, "hi");
            lo->qos = cred(&f, CRED_QOS, "lo");
            add(&f, lo, cases[i].mode, +1);
            CHECK(!may(&f, lo, cases[i].mode, LIM_HARD));
            for (int n = 0; n < 5; n++) {
                CHECK(may(&f, hi, cases[i].mode, LIM_HARD));
                add(&f, hi, cases[i].mode, +1);
            }
            CHECK(!may(&f, lo, cases[i].mode, LIM_HARD)); /* hi's jobs count for the user */
            fx_free(&f);
        }
    }
    /* the flags are per user: a group limit still holds (Maui 3.3.1 lifted it too) */
    struct fx f;
    fx_init(&f);
    CHECK_EQ(load(&f, "USERCFG[DEFAULT] MAXJOB=1\nGROUPCFG[g] MAXJOB=2\n"
                      "QOSCFG[hi] QFLAGS=IGNJOBPERUSER\n"),
             0);
    struct job *hi = job(&f, "alice", 1, HOUR);
    hi->qos = cred(&f, CRED_QOS, "hi");
    run(&f, hi);
    run(&f, hi);
    CHECK(!may_run(&f, hi));
    CHECK_HAS(f.why, "for group g");
    /* ... and they lift the per-user limits inside a class too */
    CHECK_EQ(load(&f, "CLASSCFG[batch] MAXJOB[USER]=1\nQOSCFG[hi] QFLAGS=IGNJOBPERUSER\n"), 0);
    run(&f, hi);
    CHECK(may_run(&f, hi));
    hi->qos = cred(&f, CRED_QOS, NULL);
    CHECK(!may_run(&f, hi));
    CHECK_HAS(f.why, "for user alice in class batch");
    double req[LIM_NTYPES];
    limits_request(hi, HOUR, NULL, req);
    CHECK_EQ(limits_check(f.L, hi, LIM_ACTIVE, LIM_HARD, req, NULL, 0), 1); /* why is optional */
    fx_free(&f);
}

static void test_ignall(void)
{
    struct fx f;
    fx_init(&f);
    CHECK_EQ(load(&f, "USERCFG[DEFAULT] MAXJOB=1 MAXIJOB=1 MAX.WCLIMIT=1:00:00\n"
                      "SYSCFG MAXPROC=2\nSYSTEMMAXPROCPERJOB 2\n"
                      "CLASSCFG[batch] MAXJOB[USER]=1\n"
                      "QOSCFG[hi] QFLAGS=IGNALL\n"),
             0);
    struct job *hi = job(&f, "alice", 8, 2 * HOUR), *lo = job(&f, "alice", 8, 2 * HOUR);
    hi->qos = cred(&f, CRED_QOS, "hi");
    for (int i = 0; i < 5; i++) {
        CHECK(may_run(&f, hi) && may(&f, hi, LIM_IDLE, LIM_HARD) && may_ever(&f, hi));
        run(&f, hi);
        add(&f, hi, LIM_IDLE, +1);
    }
    CHECK(!may_ever(&f, lo));
    CHECK(!may_run(&f, lo));
    fx_free(&f);
}

/* ------------------------------------------------------ per-user in class */

static void test_class_per_user(void)
{
    static const char *const forms[] = {"CLASSCFG[batch] MAXJOB[USER]=2\n",
                                        "CLASSCFG[batch] MAXJOBPERUSER=2\n"};
    for (int i = 0; i < 2; i++) {
        struct fx f;
        fx_init(&f);
        CHECK_EQ(load(&f, forms[i]), 0);
        struct job *a = job(&f, "alice", 1, HOUR), *b = job(&f, "bob", 1, HOUR);
        struct job *other = job(&f, "alice", 1, HOUR);
        other->class_ = cred(&f, CRED_CLASS, "other");
        run(&f, a);
        CHECK(may_run(&f, a));
        run(&f, a);
        CHECK(!may_run(&f, a));
        CHECK_STR(f.why,
                  "job 1 violates active HARD MAXJOB limit of 2 for user alice in class batch "
                  "(R: 1, U: 2)");
        CHECK(may_run(&f, b));      /* bob has his own count in batch */
        CHECK(may_run(&f, other));  /* alice outside batch */
        for (int n = 0; n < 5; n++) /* and the class as a whole is not limited */
            run(&f, job(&f, "bob", 1, HOUR));
        CHECK(!may_run(&f, b));
        fx_free(&f);
    }

    /* PROC and NODE forms, a named user, and the DEFAULT class */
    struct fx f;
    fx_init(&f);
    CHECK_EQ(load(&f, "CLASSCFG[batch] MAXPROC[USER]=8 MAXNODEPERUSER=2 MAXPROC[USER:alice]=16\n"),
             0);
    struct job *a = job(&f, "alice", 6, HOUR), *b = job(&f, "bob", 6, HOUR);
    struct job *n = job(&f, "carol", 1, HOUR);
    n->nodes = 2;
    run(&f, a);
    run(&f, b);
    CHECK(may_run(&f, a)); /* 12 <= 16 */
    CHECK(!may_run(&f, b));
    CHECK_HAS(f.why, "MAXPROC limit of 8 for user bob in class batch");
    run(&f, n);
    CHECK(!may_run(&f, n));
    CHECK_HAS(f.why, "MAXNODE limit of 2 for user carol in class batch");
    /* the DEFAULT class supplies, per limit, what a class does not set */
    CHECK_EQ(load(&f, "CLASSCFG[DEFAULT] MAXJOB[USER]=1 MAXPROC[USER]=2\n"
                      "CLASSCFG[batch] MAXPROC[USER]=100\n"),
             0);
    struct job *o = job(&f, "dave", 1, HOUR);
    o->class_ = cred(&f, CRED_CLASS, "other");
    run(&f, o);
    CHECK(!may_run(&f, o));
    CHECK_HAS(f.why, "MAXJOB limit of 1 for user dave in class other");
    run(&f, a);
    CHECK(!may_run(&f, a)); /* alice in batch: MAXPROC 100 of her class, MAXJOB 1 of DEFAULT */
    CHECK_HAS(f.why, "MAXJOB limit of 1 for user alice in class batch");
    /* idle form */
    CHECK_EQ(load(&f, "CLASSCFG[batch] MAXIJOB[USER]=1\n"), 0);
    add(&f, a, LIM_IDLE, +1);
    CHECK(!may(&f, a, LIM_IDLE, LIM_SOFT));
    CHECK_HAS(f.why, "idle SOFT MAXJOB limit of 1 for user alice in class batch");
    fx_free(&f);
}

static void test_qos_and_group_pairs(void)
{
    struct fx f;
    fx_init(&f);
    CHECK_EQ(load(&f, "QOSCFG[hi] MAXJOBPERUSER=1\n"
                      "CLASSCFG[batch] MAXPROC[GROUP]=8 MAXPROC[GROUP:big]=100\n"
                      "GROUPCFG[g] MAXJOB[USER]=3\n"),
             0);
    struct job *a = job(&f, "alice", 4, HOUR);
    a->qos = cred(&f, CRED_QOS, "hi");
    run(&f, a);
    CHECK(!may_run(&f, a));
    CHECK_STR(f.why,
              "job 1 violates active HARD MAXJOB limit of 1 for user alice in qos hi (R: 1, U: 1)");
    struct job *b = job(&f, "bob", 4, HOUR);
    CHECK(may_run(&f, b)); /* group g in batch: 4 + 4 <= 8 */
    run(&f, b);
    CHECK(!may_run(&f, b));
    CHECK_HAS(f.why, "MAXPROC limit of 8 for group g in class batch (R: 4, U: 8)");
    struct job *c = job(&f, "carol", 40, HOUR);
    c->group = cred(&f, CRED_GROUP, "big");
    run(&f, c);
    CHECK(may_run(&f, c));
    /* user within group */
    CHECK_EQ(load(&f, "GROUPCFG[g] MAXJOB[USER]=2\n"), 0);
    struct job *d = job(&f, "dave", 1, HOUR);
    run(&f, d);
    CHECK(may_run(&f, d));
    run(&f, d);
    CHECK(!may_run(&f, d));
    CHECK_HAS(f.why, "for user dave in group g");
    fx_free(&f);
}

/* ------------------------------------------------------------------ SYSCFG */

static void test_syscfg(void)
{
    struct fx f;
    fx_init(&f);
    CHECK_EQ(load(&f, "SYSCFG MAXPROC=16,32 MAXIJOB=3\n"), 0);
    run(&f, job(&f, "a", 8, HOUR));
    run(&f, job(&f, "b", 8, HOUR));
    struct job *c = job(&f, "c", 8, HOUR);
    CHECK(!may(&f, c, LIM_ACTIVE, LIM_SOFT));
    CHECK_STR(f.why, "job 3 violates active SOFT MAXPROC limit of 16 for par ALL (R: 8, U: 16)");
    CHECK(may_run(&f, c));
    for (int i = 0; i < 3; i++)
        add(&f, job(&f, "x", 1, HOUR), LIM_IDLE, +1);
    CHECK(!may(&f, c, LIM_IDLE, LIM_HARD));
    CHECK_HAS(f.why, "idle HARD MAXJOB limit of 3 for par ALL");
    fx_free(&f);
}

/* ------------------------------------------------------ legacy parameters */

static void test_legacy(void)
{
    struct fx f;
    fx_init(&f);
    CHECK_EQ(load(&f, "MAXJOBPERUSERPOLICY ON\nMAXJOBPERUSERCOUNT 4\nSMAXJOBPERUSERCOUNT 2\n"
                      "MAXJOBQUEUEDPERUSERCOUNT 3\n"
                      "MAXPROCPERGROUPCOUNT 10\n"
                      "MAXPROCSECONDPERACCOUNTCOUNT 36000\n"
                      "USERCFG[john] MAXJOB=1\n"),
             0);
    struct job *j = job(&f, "alice", 1, HOUR);
    run(&f, j);
    run(&f, j);
    CHECK(!may(&f, j, LIM_ACTIVE, LIM_SOFT));
    CHECK_HAS(f.why, "SOFT MAXJOB limit of 2 for user alice");
    CHECK(may_run(&f, j));
    run(&f, j);
    run(&f, j);
    CHECK(!may_run(&f, j));
    CHECK_HAS(f.why, "HARD MAXJOB limit of 4 for user alice");
    for (int i = 0; i < 3; i++)
        add(&f, j, LIM_IDLE, +1);
    CHECK(!may(&f, j, LIM_IDLE, LIM_HARD));
    CHECK_HAS(f.why, "idle HARD MAXJOB limit of 3 for user alice");
    struct job *g = job(&f, "bob", 7, HOUR); /* group g holds 4 procs */
    CHECK(!may_run(&f, g));
    CHECK_HAS(f.why, "MAXPROC limit of 10 for group g");
    g->tasks = 5; /* account a holds 4 x 3600 PS; 5 procs x 2 h = 36000 more */
    CHECK(may_run(&f, g));
    g->walltime = 2 * HOUR;
    CHECK(!may_run(&f, g));
    CHECK_HAS(f.why, "MAXPS limit of 36000 for acct a (R: 36000, U: 14400)");
    struct job *jn = job(&f, "john", 1, HOUR); /* USERCFG[john] replaces the DEFAULT */
    run(&f, jn);
    CHECK(!may(&f, jn, LIM_ACTIVE, LIM_HARD));
    CHECK_HAS(f.why, "limit of 1 for user john");

    /* POLICY OFF turns the count off; USERCFG[DEFAULT] (read later) wins */
    CHECK_EQ(load(&f, "MAXJOBPERUSERPOLICY OFF\nMAXJOBPERUSERCOUNT 1\n"), 0);
    CHECK(!limits_any(f.L));
    CHECK_EQ(load(&f, "MAXJOBPERUSERCOUNT 1\nUSERCFG[DEFAULT] MAXJOB=10\n"), 0);
    run(&f, j);
    CHECK(may_run(&f, j));
    CHECK_EQ(load(&f, "MAXPSPERUSER 100\nMAXWCPERUSER 1:00:00,2:00:00\n"), 0);
    CHECK(!may_run(&f, j));
    CHECK_HAS(f.why, "HARD MAXPS limit of 100 for user alice");
    CHECK_EQ(load(&f, "MAXWCPERUSER 1:00:00,2:00:00\n"), 0);
    for (int i = 0; i < 4; i++)
        run(&f, j);
    CHECK(!may(&f, j, LIM_ACTIVE, LIM_SOFT));
    CHECK_HAS(f.why, "SOFT MAXWC limit of 3600 for user alice (R: 3600, U: 14400)");
    fx_free(&f);
}

/* -------------------------------------------------------- per-job limits */

/* "a job is not allowed to run longer than 5 days" */
static void test_max_wclimit(void)
{
    struct fx f;
    fx_init(&f);
    CHECK_EQ(load(&f, "CLASSCFG[batch] MAX.WCLIMIT=5:00:00:00\n"), 0);
    struct job *ok = job(&f, "alice", 1, 5 * DAY), *over = job(&f, "alice", 1, 5 * DAY + 1);
    CHECK(may_ever(&f, ok));
    CHECK_STR(f.why, "");
    CHECK(!may_ever(&f, over));
    CHECK_STR(f.why,
              "job 2 violates system HARD MAXWC limit of 432000 for class batch (R: 432001, U: 0)");
    /* per-job limits are not usage limits */
    CHECK(may_run(&f, over));
    /* the DEFAULT class's limit covers classes without their own */
    CHECK_EQ(load(&f, "CLASSCFG[DEFAULT] MAX.WCLIMIT=1:00:00\n"
                      "CLASSCFG[long] MAX.WCLIMIT=INFINITY\n"),
             0);
    CHECK(!may_ever(&f, ok));
    ok->class_ = cred(&f, CRED_CLASS, "long");
    CHECK(may_ever(&f, ok));
    fx_free(&f);
}

static void test_per_job(void)
{
    struct fx f;
    fx_init(&f);
    CHECK_EQ(load(&f, "SYSTEMMAXPROCPERJOB 64\nSYSTEMMAXJOBWALLTIME 2:00:00:00\n"
                      "SYSTEMMAXPROCSECONDPERJOB 1000000\n"
                      "USERCFG[DEFAULT] MAXPROCPERJOB=32\nUSERCFG[big] MAXPROCPERJOB=-1\n"
                      "GROUPCFG[g] MAXNODEPERJOB=4\n"
                      "QOSCFG[wide] OMAXJPROC=128\n"
                      "QOSCFG[free] QFLAGS=IGNSYSMAXPROC:IGNSYSMAXTIME:IGNSYSMAXPS\n"),
             0);
    struct job *j = job(&f, "alice", 33, HOUR);
    CHECK(!may_ever(&f, j));
    CHECK_STR(f.why, "job 1 violates system HARD MAXPROC limit of 32 for user alice (R: 33, U: 0)");
    j->user = cred(&f, CRED_USER, "big");
    CHECK(may_ever(&f, j));
    j->tasks = 65;
    CHECK(!may_ever(&f, j));
    CHECK_STR(f.why, "job 1 violates system HARD MAXPROC limit of 64 for par ALL (R: 65, U: 0)");
    j->qos = cred(&f, CRED_QOS, "wide");
    CHECK(may_ever(&f, j));
    j->tasks = 129;
    CHECK(!may_ever(&f, j));
    CHECK_HAS(f.why, "MAXPROC limit of 128 for par ALL");
    j->qos = cred(&f, CRED_QOS, "free");
    CHECK(may_ever(&f, j));
    j->tasks = 1;
    j->walltime = 3 * DAY;
    CHECK(may_ever(&f, j));
    j->qos = cred(&f, CRED_QOS, NULL);
    CHECK(!may_ever(&f, j));
    CHECK_HAS(f.why, "MAXWC limit of 172800 for par ALL");
    j->walltime = HOUR;
    j->tasks = 60; /* 60 x 3600 = 216000 PS */
    CHECK(may_ever(&f, j));
    j->walltime = 5 * HOUR; /* 1,080,000 PS */
    CHECK(!may_ever(&f, j));
    CHECK_HAS(f.why, "MAXPS limit of 1000000 for par ALL (R: 1080000, U: 0)");
    j->walltime = HOUR;
    j->nodes = 5;
    CHECK(!may_ever(&f, j));
    CHECK_HAS(f.why, "MAXNODE limit of 4 for group g");
    /* SYSCFG's per-job attributes replace the parameters */
    CHECK_EQ(load(&f, "SYSTEMMAXPROCPERJOB 64\nSYSCFG MAXPROCPERJOB=8\n"), 0);
    j->nodes = 0;
    j->tasks = 9;
    CHECK(!may_ever(&f, j));
    CHECK_HAS(f.why, "MAXPROC limit of 8 for par ALL");
    /* Usage limits alone refuse no job for itself; a reload that brings a
     * per-job limit back (a QOS's override of the system's) checks again. */
    CHECK_EQ(load(&f, "USERCFG[DEFAULT] MAXJOB=1 MAXPS=10\n"), 0);
    j->tasks = 1000;
    CHECK(may_ever(&f, j));
    CHECK_STR(f.why, "");
    CHECK_EQ(load(&f, "USERCFG[DEFAULT] MAXJOB=1\nQOSCFG[wide] OMAXJPROC=128\n"), 0);
    CHECK(may_ever(&f, j));
    j->qos = cred(&f, CRED_QOS, "wide");
    CHECK(!may_ever(&f, j));
    CHECK_HAS(f.why, "MAXPROC limit of 128 for par ALL");
    fx_free(&f);
}

/* ------------------------------------------------------ worked examples */

/*
 * MAXPS counts a running job's remaining time: a 2-processor job with
 * 9:42:28 left holds 2 x 34,948 = 69,896 PS; an 8-processor 1-hour job asks
 * 28,800, and 98,696 > 72,000.
 */
static void test_maxps_example(void)
{
    struct fx f;
    fx_init(&f);
    CHECK_EQ(load(&f, "USERCFG[alice] MAXPS=72000\n"), 0);
    struct job *r = job(&f, "alice", 2, 12 * HOUR);
    struct job *j = job(&f, "alice", 8, HOUR);
    f.names[1][0] = '1', f.names[1][1] = '2', f.names[1][2] = '\0'; /* job 12 */
    double req[LIM_NTYPES];
    limits_request(r, 9 * HOUR + 42 * 60 + 28, &f.env, req);
    CHECK(req[LIM_PS] == 69896);
    limits_add(f.L, r, LIM_ACTIVE, req, +1);
    limits_request(j, j->walltime, &f.env, req);
    CHECK(req[LIM_PS] == 28800);
    CHECK_EQ(limits_check(f.L, j, LIM_ACTIVE, LIM_SOFT, req, f.why, sizeof f.why), 1);
    CHECK_STR(
        f.why,
        "job 12 violates active SOFT MAXPS limit of 72000 for user alice (R: 28800, U: 69896)");
    CHECK_EQ(limits_check(f.L, j, LIM_ACTIVE, LIM_HARD, req, NULL, 0), 1);
    /* a 1-hour job of 0.5 procs' worth fits: 69,896 + 2,104 = 72,000 exactly */
    req[LIM_PS] = 2104;
    CHECK_EQ(limits_check(f.L, j, LIM_ACTIVE, LIM_SOFT, req, f.why, sizeof f.why), 0);
    fx_free(&f);
}

/*
 * Time runs MAXPS and MAXWC down (issue 26): a 2-processor job with 36,000 s
 * left holds 72,000 of PS; an 8-processor one-hour job (28,800) passes once
 * it has run down to 43,200, 14,400 s later: limits_lift says so to the
 * second, and never for a limit time does not run down (MAXJOB) or when
 * nothing of the credential runs down. A pair's and the system's usage run
 * down at their own rates.
 */
static void test_lift(void)
{
    struct fx f;
    fx_init(&f);
    CHECK_EQ(load(&f, "USERCFG[alice] MAXPS=72000\nUSERCFG[bob] MAXPS=72000 MAXJOB=1\n"
                      "SYSCFG MAXWC=40000\n"),
             0);
    struct job *r = job(&f, "alice", 2, 36000), *j = job(&f, "alice", 8, HOUR);
    double req[LIM_NTYPES];
    limits_clear_usage(f.L, LIM_ACTIVE);
    limits_request(r, 36000, &f.env, req);
    limits_add(f.L, r, LIM_ACTIVE, req, +1);
    limits_add_rate(f.L, r, -1, +1);
    limits_request(j, j->walltime, &f.env, req);
    CHECK_EQ(limits_lift(f.L, j, -1, LIM_SOFT, req), 14400);
    req[LIM_PS] = 28801; /* one more: one more second (2 per second, rounded up) */
    CHECK_EQ(limits_lift(f.L, j, -1, LIM_SOFT, req), 14401);
    req[LIM_PS] = 0; /* within every limit: now */
    CHECK_EQ(limits_lift(f.L, j, -1, LIM_SOFT, req), 0);
    /* The system's MAXWC: 36,000 s of walltime left, 40,000 allowed; a job
     * of 10,000 s fits after 6,000 s (one running job: 1 s per second). */
    limits_request(j, 10000, &f.env, req);
    req[LIM_PS] = 0;
    CHECK_EQ(limits_lift(f.L, j, -1, LIM_SOFT, req), 6000);
    /* bob runs one job: MAXJOB never lifts by time alone. */
    struct job *b = job(&f, "bob", 1, 100), *b2 = job(&f, "bob", 1, 100);
    limits_request(b, 100, &f.env, req);
    limits_add(f.L, b, LIM_ACTIVE, req, +1);
    limits_add_rate(f.L, b, -1, +1);
    limits_request(b2, 100, &f.env, req);
    CHECK_EQ(limits_lift(f.L, b2, -1, LIM_SOFT, req), -1);
    /* Usage with nothing running down (its job past its walltime): never. */
    limits_add_rate(f.L, r, -1, -1);
    limits_request(j, j->walltime, &f.env, req);
    CHECK_EQ(limits_lift(f.L, j, -1, LIM_SOFT, req), -1);
    /* Cleared with the active usage. */
    limits_clear_usage(f.L, LIM_ACTIVE);
    CHECK_EQ(limits_lift(f.L, j, -1, LIM_SOFT, req), 0);
    fx_free(&f);
}

/*
 * USERCFG[DEFAULT] MAXIJOB=8: of 17 idle jobs of one user, taken in
 * priority order, the first 8 become eligible; the 9th waits until one of
 * them leaves idle usage (starts), then it gets in and the 10th does not.
 */
static void test_maxijob_example(void)
{
    struct fx f;
    fx_init(&f);
    CHECK_EQ(load(&f, "USERCFG[DEFAULT] MAXIJOB=8\n"), 0);
    struct job *q[17];
    for (int i = 0; i < 17; i++)
        q[i] = job(&f, "alice", 1, HOUR);
    int eligible[17] = {0}, n = 0;
    for (int i = 0; i < 17; i++) {
        if (may(&f, q[i], LIM_IDLE, LIM_HARD)) {
            add(&f, q[i], LIM_IDLE, +1);
            eligible[i] = 1;
            n++;
        }
    }
    CHECK_EQ(n, 8);
    for (int i = 0; i < 17; i++)
        CHECK_EQ(eligible[i], i < 8);
    CHECK(!may(&f, q[8], LIM_IDLE, LIM_HARD));
    CHECK_STR(f.why, "job 9 violates idle HARD MAXJOB limit of 8 for user alice (R: 1, U: 8)");
    /* job 1 starts: it leaves idle usage for active usage */
    add(&f, q[0], LIM_IDLE, -1);
    run(&f, q[0]);
    CHECK(may(&f, q[8], LIM_IDLE, LIM_HARD));
    add(&f, q[8], LIM_IDLE, +1);
    CHECK(!may(&f, q[9], LIM_IDLE, LIM_HARD));
    /* the next iteration rebuilds idle usage from scratch: jobs 2..9 */
    limits_clear_usage(f.L, LIM_IDLE);
    n = 0;
    for (int i = 1; i < 17; i++) {
        int ok = may(&f, q[i], LIM_IDLE, LIM_HARD);
        if (ok) {
            add(&f, q[i], LIM_IDLE, +1);
            n++;
        }
        CHECK_EQ(ok, i <= 8);
    }
    CHECK_EQ(n, 8);
    fx_free(&f);
}

/* -------------------------------------------------------------- usage */

/* limits_clear_kind forgets one kind's usage in one mode and keeps the
 * rest; while rates are kept it forgets everything, as limits_clear_usage. */
static void test_clear_kind(void)
{
    struct fx f;
    fx_init(&f);
    CHECK_EQ(load(&f, "USERCFG[DEFAULT] MAXJOB=1\nGROUPCFG[DEFAULT] MAXIJOB=1\n"), 0);
    struct job *j = job(&f, "alice", 4, HOUR);
    add(&f, j, LIM_ACTIVE, +1);
    add(&f, j, LIM_IDLE, +1);
    limits_clear_kind(f.L, CRED_USER, LIM_ACTIVE);
    CHECK_EQ(limits_usage(f.L, j, CRED_USER, LIM_ACTIVE)[LIM_JOB], 0.0);
    CHECK_EQ(limits_usage(f.L, j, CRED_USER, LIM_IDLE)[LIM_JOB], 1.0);
    CHECK_EQ(limits_usage(f.L, j, CRED_GROUP, LIM_ACTIVE)[LIM_JOB], 1.0);
    CHECK(may_run(&f, j));
    limits_add_rate(f.L, j, -1, +1); /* rates kept: everything goes */
    limits_clear_kind(f.L, CRED_USER, LIM_ACTIVE);
    CHECK_EQ(limits_usage(f.L, j, CRED_GROUP, LIM_ACTIVE)[LIM_JOB], 0.0);
    add(&f, j, LIM_ACTIVE, +1);
    limits_clear_kind(f.L, -1, LIM_ACTIVE); /* kind < 0: every kind */
    CHECK_EQ(limits_usage(f.L, j, CRED_GROUP, LIM_ACTIVE)[LIM_JOB], 0.0);
    CHECK_EQ(limits_usage(f.L, j, CRED_USER, LIM_IDLE)[LIM_PROC], 4.0);
    /* limits_add_kind keeps the types the credential's limits set, and PS
     * and WC; the others stay 0 */
    double req[LIM_NTYPES];
    limits_clear_kind(f.L, -1, LIM_ACTIVE);
    limits_request(j, j->walltime, &f.env, req);
    limits_add_kind(f.L, j, CRED_USER, LIM_ACTIVE, req, +1);
    const double *u = limits_usage(f.L, j, CRED_USER, LIM_ACTIVE);
    CHECK_EQ(u[LIM_JOB], 1.0);
    CHECK_EQ(u[LIM_PS], 4.0 * HOUR);
    CHECK_EQ(u[LIM_WC], (double)HOUR);
    CHECK_EQ(u[LIM_PROC], 0.0);
    CHECK(!may_run(&f, j));
    limits_add_kind(f.L, j, CRED_USER, LIM_ACTIVE, req, -1);
    CHECK_EQ(u[LIM_PS], 0.0);
    CHECK(may_run(&f, j));
    fx_free(&f);
}

static void test_usage(void)
{
    struct fx f;
    fx_init(&f);
    CHECK_EQ(load(&f, "USERCFG[DEFAULT] MAXPE=10\nCLASSCFG[batch] MAXJOB[USER]=1\n"), 0);
    f.env.mem = 3000;
    struct job *j = job(&f, "alice", 1, HOUR);
    j->mem_per_task = 1000;         /* PE = 128 / 3 = 42.67 > 10: use a smaller cluster */
    f.env.procs = 12;               /* 1/12 procs vs 1/3 mem: PE = 4 */
    for (int i = 0; i < 100; i++) { /* add and remove leave nothing behind */
        run(&f, j);
        add(&f, j, LIM_ACTIVE, -1);
    }
    CHECK(may_run(&f, j));
    run(&f, j);
    CHECK(!may_run(&f, j));
    CHECK_HAS(f.why, "in class batch");
    limits_clear_usage(f.L, LIM_IDLE); /* other mode: nothing changes */
    CHECK(!may_run(&f, j));
    limits_clear_usage(f.L, LIM_ACTIVE);
    CHECK(may_run(&f, j));
    /* many credentials and pairs: the tables grow */
    CHECK_EQ(load(&f, "USERCFG[DEFAULT] MAXJOB=2\nCLASSCFG[DEFAULT] MAXJOB[USER]=1\n"), 0);
    char name[16];
    for (int i = 0; i < 3000; i++) {
        snprintf(name, sizeof name, "u%d", i);
        f.njobs = 0;
        struct job *u = job(&f, name, 1, HOUR);
        CHECK(may_run(&f, u));
        run(&f, u);
        if (!(i % 7)) {
            CHECK(!may_run(&f, u));
        }
    }
    for (int i = 0; i < 3000; i += 111) {
        snprintf(name, sizeof name, "u%d", i);
        f.njobs = 0;
        struct job *u = job(&f, name, 1, HOUR);
        CHECK(!may_run(&f, u));
        u->class_ = cred(&f, CRED_CLASS, "c2");
        CHECK(may_run(&f, u));
    }
    fx_free(&f);
}

/* A new configuration replaces the limits and forgets the usage. */
static void test_reload(void)
{
    struct fx f;
    fx_init(&f);
    CHECK_EQ(load(&f, "USERCFG[alice] MAXJOB=5\n"), 0);
    struct job *j = job(&f, "alice", 1, HOUR);
    run(&f, j);
    run(&f, j);
    CHECK(may_run(&f, j));
    CHECK_EQ(load(&f, "USERCFG[alice] MAXJOB=2\nCLASSCFG[batch] MAXJOB[USER]=1\n"), 0);
    CHECK(may_run(&f, j));
    run(&f, j);
    CHECK(!may_run(&f, j));
    CHECK_HAS(f.why, "limit of 1 for user alice in class batch (R: 1, U: 1)");
    run(&f, j);
    CHECK_EQ(load(&f, "USERCFG[alice] MAXJOB=2\n"), 0);
    run(&f, j);
    run(&f, j);
    CHECK(!may_run(&f, j));
    CHECK_HAS(f.why, "limit of 2 for user alice (R: 1, U: 2)");
    fx_free(&f);
}

/* ------------------------------------------------------ configuration */

static void test_errors(void)
{
    static const struct {
        const char *cfg, *msg;
    } cases[] = {
        {"USERCFG[a] MAXJOB=2\nCLASSCFG[batch] MAXJOB[FOO]=3\n",
         "maui.cfg:2: CLASSCFG[batch] MAXJOB[FOO]: unsupported index (expected USER, "
         "USER:<name>, GROUP or GROUP:<name>)"},
        {"USERCFG[a] MAXJOB[USER]=3\n",
         "maui.cfg:1: USERCFG[a] MAXJOB[USER]: per-user limits apply within GROUPCFG, "
         "ACCOUNTCFG, CLASSCFG and QOSCFG only"},
        {"USERCFG[a] MAXJOBPERUSER=3\n", "maui.cfg:1: USERCFG[a] MAXJOBPERUSER: per-user limits"},
        {"GROUPCFG[g] MAXJOB[GROUP]=3\n",
         "maui.cfg:1: GROUPCFG[g] MAXJOB[GROUP]: per-group limits"},
        {"SYSCFG MAXJOB[USER]=3\n", "maui.cfg:1: SYSCFG MAXJOB[USER]: per-user limits"},
        {"CLASSCFG[c] MAXJOB[USER:]=3\n",
         "maui.cfg:1: CLASSCFG[c] MAXJOB[USER:]: unsupported index"},
        {"USERCFG[a] OMAXJOB=3\n",
         "maui.cfg:1: USERCFG[a] OMAXJOB: override limits apply to QOSCFG only"},
        {"CLASSCFG[c] OMAXJPROC=3\n", "maui.cfg:1: CLASSCFG[c] OMAXJPROC: override limits"},
        {"QOSCFG[q] OMAXJOB[USER]=3\n",
         "maui.cfg:1: QOSCFG[q] OMAXJOB[USER]: override limits take no index"},
        {"USERCFG[a] MAXPROCPERJOB=-5\n",
         "maui.cfg:1: USERCFG[a] MAXPROCPERJOB: invalid limit '-5'"},
        {"CLASSCFG[c] MAX.WCLIMIT[USER]=1:00:00\n",
         "maui.cfg:1: CLASSCFG[c] MAX.WCLIMIT[USER]: takes no index"},
        /* values cfg itself refuses, with file and line */
        {"USERCFG[a] MAXJOB=2\nUSERCFG[b] MAXJOB=lots\n", "maui.cfg:2:"},
        {"USERCFG[a] MAXWC=1:xx\n", "maui.cfg:1:"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct fx f;
        fx_init(&f);
        CHECK_EQ(load(&f, "USERCFG[DEFAULT] MAXJOB=1\n"), 0);
        CHECK_EQ(load(&f, cases[i].cfg), -1);
        if (strncmp(f.why, cases[i].msg, strlen(cases[i].msg)) != 0)
            CHECK_STR(f.why, cases[i].msg);
        /* nothing applied: the previous limits stand */
        struct job *j = job(&f, "a", 1, HOUR);
        run(&f, j);
        CHECK(!may_run(&f, j));
        CHECK_HAS(f.why, "MAXJOB limit of 1 for user a");
        fx_free(&f);
    }
}

/* Time-valued limits, and the attributes limits leave to others. */
static void test_values(void)
{
    struct fx f;
    fx_init(&f);
    CHECK_EQ(load(&f, "USERCFG[DEFAULT] MAXWC=1:00:00,2:00:00 MAXIWC=1:00:00:00 PRIORITY=5 "
                      "FSTARGET=10 MINPROC=4\n"
                      "USERCFG[a] MAXPS=100000000000\n"),
             0);
    struct job *j = job(&f, "b", 1, HOUR);
    run(&f, j);
    CHECK(!may(&f, j, LIM_ACTIVE, LIM_SOFT));
    CHECK_HAS(f.why, "SOFT MAXWC limit of 3600");
    CHECK(may_run(&f, j));
    run(&f, j);
    CHECK(!may_run(&f, j));
    CHECK_HAS(f.why, "HARD MAXWC limit of 7200");
    j->walltime = DAY + 1;
    CHECK(!may(&f, j, LIM_IDLE, LIM_SOFT));
    CHECK_HAS(f.why, "idle SOFT MAXWC limit of 86400");
    struct job *a = job(&f, "a", 20000000, HOUR); /* 7.2e10 PS; MINPROC is not checked */
    CHECK(may_run(&f, a));
    a->tasks = 30000000; /* 1.08e11 */
    CHECK(!may_run(&f, a));
    CHECK_HAS(f.why, "MAXPS limit of 100000000000 for user a (R: 108000000000, U: 0)");
    fx_free(&f);
}

/* ---------------------------------------------- incremental eligibility */

/* limits_single_kind: one kind whose usage limits count, or -1 when limits
 * tie kinds together (policy/eset.c walks credentials apart only then). */
static void test_single_kind(void)
{
    struct fx f;
    fx_init(&f);
    CHECK(load(&f, "USERCFG[DEFAULT] MAXIJOB=8 MAXJOB=72 MAXPS=72000,1080000\n") == 0);
    CHECK(limits_single_kind(f.L) == CRED_USER);
    CHECK(load(&f, "GROUPCFG[g] MAXPROC=4\nGROUPCFG[DEFAULT] MAXIJOB=2\n") == 0);
    CHECK(limits_single_kind(f.L) == CRED_GROUP);
    CHECK(load(&f, "CLASSCFG[batch] MAX.WCLIMIT=1:00:00\nUSERCFG[DEFAULT] MAXJOB=2\n") == 0);
    CHECK(limits_single_kind(f.L) == CRED_USER); /* a per-job limit ties nothing */
    CHECK(load(&f, "USERCFG[DEFAULT] MAXJOB=2\nGROUPCFG[DEFAULT] MAXPROC=8\n") == 0);
    CHECK(limits_single_kind(f.L) == -1);
    CHECK(load(&f, "USERCFG[DEFAULT] MAXJOB=2\nSYSCFG MAXJOB=10\n") == 0);
    CHECK(limits_single_kind(f.L) == -1);
    CHECK(load(&f, "USERCFG[DEFAULT] MAXJOB=2\nQOSCFG[high] OMAXJOB=5\n") == 0);
    CHECK(limits_single_kind(f.L) == -1);
    CHECK(load(&f, "CLASSCFG[batch] MAXJOB[USER]=3\n") == 0);
    CHECK(limits_single_kind(f.L) == -1); /* a pair: class and user */
    CHECK(load(&f, "ACCOUNTCFG[DEFAULT] MAXJOB=3\n") == 0);
    CHECK(limits_single_kind(f.L) == -1); /* jobs may have no account */
    fx_free(&f);
}

/* A small fixed-seed generator (the cases are the same everywhere). */
static unsigned kind_next(unsigned *seed)
{
    *seed = *seed * 1103515245u + 12345u;
    return *seed >> 8;
}

/* limits_admit_kind gives limits_violations2's answer and, when it admits
 * (returns whether it did), adds the job (one more idle job), as
 * limits_add_kind would: taken back with it, the usage is as before. */
static int admit_kind_agrees(struct fx *f, const struct job *j, int kind, enum lim_level lv,
                             const double req[LIM_NTYPES])
{
    unsigned va, vi, va2, vi2;
    double before[LIM_NTYPES];
    limits_violations2(f->L, j, kind, lv, req, &va, &vi);
    memcpy(before, limits_usage(f->L, j, (enum cred_kind)kind, LIM_IDLE), sizeof before);
    int in = limits_admit_kind(f->L, j, kind, lv, req, &va2, &vi2);
    CHECK(va2 == va && vi2 == vi && in == !(va | vi));
    CHECK(limits_usage(f->L, j, (enum cred_kind)kind, LIM_IDLE)[LIM_JOB] == before[LIM_JOB] + in);
    if (in)
        limits_add_kind(f->L, j, kind, LIM_IDLE, req, -1);
    CHECK(memcmp(limits_usage(f->L, j, (enum cred_kind)kind, LIM_IDLE), before, sizeof before) ==
          0);
    /* limits_admit_request builds the request itself: the same answer and
     * usage, and the PS and WC a walk notes (req as limits_request_for's:
     * no PE here) */
    double own[LIM_NTYPES];
    int in2 = limits_admit_request(f->L, j, kind, lv, j->walltime, &f->env, own, &va2, &vi2);
    CHECK(va2 == va && vi2 == vi && in2 == in);
    CHECK(own[LIM_PS] == req[LIM_PS] && own[LIM_WC] == req[LIM_WC]);
    if (in2) {
        double after[LIM_NTYPES];
        memcpy(after, limits_usage(f->L, j, (enum cred_kind)kind, LIM_IDLE), sizeof after);
        limits_add_kind(f->L, j, kind, LIM_IDLE, req, -1);
        CHECK(memcmp(limits_usage(f->L, j, (enum cred_kind)kind, LIM_IDLE), before,
                     sizeof before) == 0);
        limits_add_kind(f->L, j, kind, LIM_IDLE, req, +1); /* as limits_admit_kind left it */
        CHECK(memcmp(limits_usage(f->L, j, (enum cred_kind)kind, LIM_IDLE), after, sizeof after) ==
              0);
        limits_add_kind(f->L, j, kind, LIM_IDLE, req, -1);
    }
    return in;
}

/*
 * limits_check_fast and limits_lift through the one kind
 * limits_single_kind names give the answers of every kind's (-1), with
 * usage and rates kept for every kind (limits_add, limits_add_rate), as
 * policy/elig.c's whole-queue walks ask them (issue 31), limits_count_full
 * refuses only where limits_check_fast does, limits_admit_kind agrees:
 * fixed-seed random jobs of four users, two groups and two QOS (one with
 * IGNALL), random usage added and taken back, every mode and level.
 */
static void test_single_kind_checks(void)
{
    static const char *const cfgs[] = {
        "USERCFG[DEFAULT] MAXIJOB=3 MAXPS=500000\nQOSCFG[free] QFLAGS=IGNALL\n",
        "USERCFG[DEFAULT] MAXJOB=2,4 MAXPROC=8 MAXIPS=200000\nUSERCFG[u1] MAXJOB=1\n",
        "GROUPCFG[DEFAULT] MAXJOB=4 MAXPS=300000,600000\nGROUPCFG[g1] MAXIJOB=1\n",
        "USERCFG[DEFAULT] MAXNODE=6 MAXIMEM=900 MAXJOB=3\nUSERCFG[u2] MAXINODE=3\n",
        "USERCFG[DEFAULT] MAXINODE=2 MAXJOB=3\n",
        "USERCFG[DEFAULT] MAXIMEM=100 MAXJOB=3\n"};
    static const char *const users[] = {"u0", "u1", "u2", "u3"};
    unsigned seed = 31;
    long refused = 0, asked = 0, counted = 0, admits = 0;
    for (size_t c = 0; c < sizeof cfgs / sizeof *cfgs; c++) {
        struct fx f;
        fx_init(&f);
        CHECK(load(&f, cfgs[c]) == 0);
        int kind = limits_single_kind(f.L);
        CHECK(kind >= 0);
        struct job *added[NJOBS];
        int nadded = 0;
        for (int step = 0; step < 2000 && f.njobs < NJOBS; step++) {
            unsigned r = kind_next(&seed);
            struct job *j =
                job(&f, users[r % 4], 1 + (int)(r / 4 % 12), 100 + (long)(r / 64 % 900) * 100);
            j->group = cred(&f, CRED_GROUP, r / 8 % 2 ? "g1" : "g0");
            j->qos = cred(&f, CRED_QOS, r / 16 % 5 == 0 ? "free" : NULL);
            j->nodes = (int)(r / 4096 % 3);
            j->mem_per_task = (long)(r / 16384 % 4) * 20;
            double req[LIM_NTYPES];
            limits_request(j, j->walltime, &f.env, req);
            for (int m = LIM_ACTIVE; m <= LIM_IDLE; m++)
                for (int lv = LIM_SOFT; lv <= LIM_HARD; lv++) {
                    int one =
                        limits_check_fast(f.L, j, kind, (enum lim_mode)m, (enum lim_level)lv, req);
                    CHECK(one ==
                          limits_check_fast(f.L, j, -1, (enum lim_mode)m, (enum lim_level)lv, req));
                    refused += one != 0;
                    asked++;
                    /* the job count alone, when it refuses, is the check's answer */
                    if (limits_count_full(f.L, j, kind, (enum lim_mode)m, (enum lim_level)lv)) {
                        CHECK(one == 1);
                        counted++;
                    }
                    if (m == LIM_ACTIVE)
                        admits += admit_kind_agrees(&f, j, kind, (enum lim_level)lv, req);
                    if (m == LIM_ACTIVE) /* when time alone lifts it: the same too */
                        CHECK(limits_lift(f.L, j, kind, (enum lim_level)lv, req) ==
                              limits_lift(f.L, j, -1, (enum lim_level)lv, req));
                }
            if (r / 1024 % 4 == 1) { /* kept in usage (odd sizes idle, even active, running down) */
                add(&f, j, (j->tasks & 1) ? LIM_IDLE : LIM_ACTIVE, +1);
                if (!(j->tasks & 1))
                    limits_add_rate(f.L, j, -1, +1);
                added[nadded++] = j;
                continue;
            }
            f.njobs--;                         /* not kept: its slot is made again */
            if (r / 1024 % 4 == 0 && nadded) { /* a kept one taken back out of usage */
                struct job *o = added[--nadded];
                add(&f, o, (o->tasks & 1) ? LIM_IDLE : LIM_ACTIVE, -1);
                if (!(o->tasks & 1))
                    limits_add_rate(f.L, o, -1, -1);
            }
        }
        fx_free(&f);
    }
    CHECK(refused > asked / 10 && refused < asked - asked / 10); /* both answers, often */
    CHECK(counted > 0 && counted < refused); /* the count refuses some, not all */
    CHECK(admits > asked / 20);              /* limits_admit_kind admitted often */
}

/* limits_full: once even the least request is refused, every job is; which
 * limit (idle: 2, active: 1 with the excess) says whether time can lift it. */
static void test_full(void)
{
    struct fx f;
    double ex[LIM_NTYPES];
    fx_init(&f);
    CHECK(load(&f, "USERCFG[DEFAULT] MAXIJOB=2 MAXPS=1000,5000\n") == 0);
    struct job *a = job(&f, "alice", 1, 100), *b = job(&f, "alice", 1, 100);
    CHECK(limits_full(f.L, a, CRED_USER, LIM_SOFT, ex) == 0);
    add(&f, a, LIM_IDLE, +1);
    CHECK(limits_full(f.L, a, CRED_USER, LIM_SOFT, ex) == 0);
    add(&f, b, LIM_IDLE, +1);
    CHECK(limits_full(f.L, a, CRED_USER, LIM_SOFT, ex) == 2); /* MAXIJOB 2 reached */
    CHECK(limits_full(f.L, a, -1, LIM_HARD, ex) == 2);        /* the same through every kind */
    limits_clear_usage(f.L, LIM_IDLE);
    struct job *r = job(&f, "alice", 10, 100); /* 1000 PS running: soft MAXPS full */
    run(&f, r);
    CHECK(limits_full(f.L, a, CRED_USER, LIM_SOFT, ex) == 1);
    CHECK(ex[LIM_PS] == 1.0 && ex[LIM_JOB] == 0); /* 1000 + 1 - 1000 */
    CHECK(limits_full(f.L, a, CRED_USER, LIM_HARD, ex) == 0);
    struct job *other = job(&f, "bob", 1, 100);
    CHECK(limits_full(f.L, other, CRED_USER, LIM_SOFT, ex) == 0); /* bob's own usage */
    fx_free(&f);
}

/* limits_violations and limits_excess agree with limits_check, through the
 * one-kind shortcut (kind >= 0) and the whole check (-1). */
static void test_violations(void)
{
    struct fx f;
    double req[LIM_NTYPES], ex[LIM_NTYPES];
    fx_init(&f);
    CHECK(load(&f, "USERCFG[DEFAULT] MAXJOB=1 MAXPROC=8 MAXPS=5000\nUSERCFG[carol] MAXPROC=-1\n") ==
          0);
    struct job *r = job(&f, "alice", 4, 1000), *j = job(&f, "alice", 6, 100);
    run(&f, r);
    limits_request(j, j->walltime, &f.env, req);
    for (int kind = -1; kind <= 0; kind++) {
        unsigned v = limits_violations(f.L, j, kind, LIM_ACTIVE, LIM_SOFT, req);
        CHECK(v == (1u << LIM_JOB | 1u << LIM_PROC)); /* 2 jobs, 10 procs; 4600 PS fits */
        CHECK(limits_check_fast(f.L, j, kind, LIM_ACTIVE, LIM_SOFT, req) == 1);
        limits_excess(f.L, j, kind, LIM_ACTIVE, LIM_SOFT, req, ex);
        CHECK(ex[LIM_JOB] == 1 && ex[LIM_PROC] == 2 && ex[LIM_PS] == 0); /* 4000 + 600 <= 5000 */
    }
    struct job *c = job(&f, "carol", 20, 10);
    limits_request(c, c->walltime, &f.env, req);
    CHECK(limits_violations(f.L, c, CRED_USER, LIM_ACTIVE, LIM_SOFT, req) == 0); /* -1 lifts it */
    CHECK(limits_check(f.L, c, LIM_ACTIVE, LIM_SOFT, req, NULL, 0) == 0);
    fx_free(&f);
}

/*
 * limits_violations2: a job's active and idle violations at once, as the two
 * single calls give them — through the credential's bound slot (kind) or
 * every limit (-1), with and without a QOS that has IGNALL somewhere (the
 * one-slot path looks the QOS up only then).
 */
static void test_violations2(void)
{
    static const char *const cfgs[] = {
        "USERCFG[DEFAULT] MAXJOB=1 MAXIJOB=1 MAXPS=5000\n",
        "USERCFG[DEFAULT] MAXJOB=1 MAXIJOB=1 MAXPS=5000\nQOSCFG[hi] QFLAGS=IGNALL\n"};
    for (size_t c = 0; c < sizeof cfgs / sizeof *cfgs; c++) {
        struct fx f;
        double req[LIM_NTYPES];
        fx_init(&f);
        CHECK_EQ(load(&f, cfgs[c]), 0);
        CHECK_EQ(limits_single_kind(f.L), CRED_USER);
        struct job *r = job(&f, "alice", 4, 1000), *i = job(&f, "alice", 1, 10);
        struct job *j = job(&f, "alice", 2, 1000), *h = job(&f, "alice", 2, 1000);
        h->qos = cred(&f, CRED_QOS, "hi");
        run(&f, r);               /* binds alice's slot: 1 job, 4000 PS */
        add(&f, i, LIM_IDLE, +1); /* 1 idle job */
        for (int kind = -1; kind <= CRED_USER; kind++) {
            unsigned va, vi;
            limits_request(j, j->walltime, &f.env, req);
            limits_violations2(f.L, j, kind, LIM_SOFT, req, &va, &vi);
            CHECK_EQ(va, 1u << LIM_JOB | 1u << LIM_PS); /* 2 jobs; 4000 + 2000 > 5000 */
            CHECK_EQ(vi, 1u << LIM_JOB);
            CHECK_EQ(va, limits_violations(f.L, j, kind, LIM_ACTIVE, LIM_SOFT, req));
            CHECK_EQ(vi, limits_violations(f.L, j, kind, LIM_IDLE, LIM_SOFT, req));
            limits_violations2(f.L, h, kind, LIM_SOFT, req, &va, &vi);
            /* QOS hi: IGNALL where it is configured, else a QOS like any */
            CHECK_EQ(va, c ? 0u : 1u << LIM_JOB | 1u << LIM_PS);
            CHECK_EQ(vi, c ? 0u : 1u << LIM_JOB);
            CHECK_EQ(limits_check_fast(f.L, h, kind, LIM_ACTIVE, LIM_SOFT, req), c ? 0 : 1);
        }
        fx_free(&f);
    }
}

/*
 * limits_room: what policy/eset.c judges whole runs of requests by gives,
 * request by request, limits_violations2's answer (random requests and
 * usage from a fixed seed), and is refused where it could not.
 */
static void test_room(void)
{
    static const char *const cfgs[] = {
        "USERCFG[DEFAULT] MAXIJOB=8 MAXJOB=72 MAXPS=72000,1080000\n",
        "USERCFG[DEFAULT] MAXJOB=3,5 MAXPROC=16,32 MAXWC=5000,9000 MAXIJOB=2 MAXIPS=40000\n",
        "GROUPCFG[DEFAULT] MAXNODE=4 MAXMEM=1000 MAXIPROC=8,12\n",
        "USERCFG[DEFAULT] MAXJOB=4 MAXPROC=24 MAXPS=90000,200000\n"}; /* no idle limit */
    long cuts = 0, counts = 0, ones = 0;
    srand(31);
    for (size_t c = 0; c < sizeof cfgs / sizeof *cfgs; c++) {
        struct fx f;
        fx_init(&f);
        CHECK_EQ(load(&f, cfgs[c]), 0);
        int kind = limits_single_kind(f.L);
        CHECK(kind >= 0);
        struct job *any = job(&f, "alice", 1, 10);
        struct lim_room r;
        CHECK(!limits_room(f.L, any, kind, LIM_SOFT, &r)); /* no bound slot yet */
        for (int n = 0; n < 6; n++) {                      /* usage: running and idle jobs */
            struct job *u = job(&f, "alice", 1 + rand() % 8, 100 + rand() % 3000);
            u->nodes = 1 + rand() % 2;
            u->mem_per_task = rand() % 100;
            add(&f, u, n % 2 ? LIM_IDLE : LIM_ACTIVE, +1);
        }
        for (int k = 0; k < 200; k++) {
            struct job *j = &f.jobs[f.njobs - 1];
            if (f.njobs < NJOBS)
                j = job(&f, "alice", 1, 10);
            j->tasks = 1 + rand() % 40;
            j->walltime = 1 + rand() % 40000;
            j->nodes = rand() % 6;
            j->mem_per_task = rand() % 300;
            double req[LIM_NTYPES];
            limits_request(j, j->walltime, &f.env, req);
            req[LIM_PE] = 0;
            for (int lv = LIM_SOFT; lv <= LIM_HARD; lv++) {
                unsigned va, vi;
                limits_violations2(f.L, j, kind, (enum lim_level)lv, req, &va, &vi);
                CHECK(limits_room(f.L, j, kind, (enum lim_level)lv, &r));
                /* limits_kind_types: every type a check reads */
                CHECK_EQ((r.set[LIM_ACTIVE] | r.set[LIM_IDLE]) & ~limits_kind_types(f.L, kind), 0u);
                unsigned v[LIM_NMODES] = {0};
                for (int m = 0; m < LIM_NMODES; m++)
                    for (int t = 0; t < LIM_NTYPES; t++)
                        if ((r.set[m] >> t & 1) && r.use[m][t] + req[t] > r.cap[m][t])
                            v[m] |= 1u << t;
                CHECK_EQ(v[LIM_ACTIVE], va);
                CHECK_EQ(v[LIM_IDLE], vi);
                /* limits_cut: the same, and the excess when time may lift it */
                for (int kk = kind; kk >= -1; kk -= kind + 1) {
                    unsigned ca, ci;
                    double ex[LIM_NTYPES], cx[LIM_NTYPES];
                    for (int t = 0; t < LIM_NTYPES; t++)
                        cx[t] = -7; /* left as it is when no excess is wanted */
                    limits_cut(f.L, j, kk, (enum lim_level)lv, req, &ca, &ci, cx);
                    CHECK(ca == va && ci == vi);
                    int timed = !vi && va && !(va & ~(1u << LIM_PS | 1u << LIM_WC));
                    limits_excess(f.L, j, kk, LIM_ACTIVE, (enum lim_level)lv, req, ex);
                    for (int t = 0; t < LIM_NTYPES; t++)
                        CHECK(cx[t] == (timed ? ex[t] : -7));
                    cuts += timed;
                    /* limits_excess_one: the excess of one type asked alone */
                    for (int t = LIM_PS; t <= LIM_WC; t += LIM_WC - LIM_PS) {
                        double one[LIM_NTYPES] = {0}, ox[LIM_NTYPES];
                        one[t] = req[t];
                        limits_excess(f.L, j, kk, LIM_ACTIVE, (enum lim_level)lv, one, ox);
                        double e = limits_excess_one(f.L, j, kk, (enum lim_level)lv,
                                                     (enum lim_type)t, req[t]);
                        CHECK(e == ox[t]);
                        ones += e > 0;
                    }
                    counts += !vi && (va & ~(1u << LIM_PS | 1u << LIM_WC)) != 0;
                }
            }
        }
        fx_free(&f);
    }
    CHECK(cuts > 20 && counts > 20); /* some excess was compared, some was not wanted */
    CHECK(ones > 20);
    struct fx f; /* the page's types; a QOS with IGNALL somewhere, a limit on PE: no room */
    fx_init(&f);
    CHECK_EQ(load(&f, cfgs[0]), 0);
    CHECK_EQ(limits_kind_types(f.L, CRED_USER), 1u << LIM_JOB | 1u << LIM_PS);
    CHECK_EQ(limits_kind_types(f.L, CRED_GROUP), 0u);
    fx_free(&f);
    fx_init(&f);
    CHECK_EQ(load(&f, "USERCFG[DEFAULT] MAXJOB=2\nQOSCFG[hi] QFLAGS=IGNALL\n"), 0);
    struct job *a = job(&f, "alice", 1, 10);
    struct lim_room r;
    run(&f, a);
    CHECK(!limits_room(f.L, a, CRED_USER, LIM_SOFT, &r));
    CHECK_EQ(load(&f, "USERCFG[DEFAULT] MAXJOB=2 MAXPE=4\n"), 0);
    run(&f, a);
    CHECK(!limits_room(f.L, a, CRED_USER, LIM_SOFT, &r));
    fx_free(&f);
}

/*
 * limits_cut's excess leaves 0 for a type within rounding of its limit
 * (usage + request - limit at most LIM_EPS, which its check passes), as
 * limits_excess does: a fractional request just past a whole limit, PS
 * here, beside a WC that does go over. Usage and limits in whole numbers
 * alone never show it (round 21 left the mutant `e > 0` uncaught).
 */
static void test_cut_eps(void)
{
    struct fx f;
    fx_init(&f);
    CHECK_EQ(load(&f, "USERCFG[DEFAULT] MAXPS=5000 MAXWC=3000\n"), 0);
    struct job *r = job(&f, "alice", 1, 1000), *j = job(&f, "alice", 1, 10);
    run(&f, r); /* binds alice's slot: PS 1000, WC 1000 */
    for (int kind = -1; kind <= CRED_USER; kind += CRED_USER + 1) {
        double req[LIM_NTYPES] = {[LIM_JOB] = 1, [LIM_PROC] = 1}, ex[LIM_NTYPES], cx[LIM_NTYPES];
        req[LIM_PS] = 4000 + 5e-7; /* 5e-7 past 5000: within rounding */
        req[LIM_WC] = 2500;        /* 500 past 3000 */
        unsigned va, vi;
        limits_cut(f.L, j, kind, LIM_SOFT, req, &va, &vi, cx);
        CHECK_EQ(va, 1u << LIM_WC);
        CHECK_EQ(vi, 0u);
        limits_excess(f.L, j, kind, LIM_ACTIVE, LIM_SOFT, req, ex);
        CHECK(cx[LIM_WC] == 500 && ex[LIM_WC] == 500);
        CHECK(cx[LIM_PS] == 0 && ex[LIM_PS] == 0);
        CHECK(limits_excess_one(f.L, j, kind, LIM_SOFT, LIM_PS, req[LIM_PS]) == 0);
        CHECK(limits_excess_one(f.L, j, kind, LIM_SOFT, LIM_WC, req[LIM_WC]) == 500);
        CHECK(limits_excess_one(f.L, j, kind, LIM_SOFT, LIM_PROC, 9) == 0); /* no MAXPROC */
    }
    fx_free(&f);
}

/*
 * limits_run_down (PS and WC taken off in place, every iteration) leaves
 * the active usage limits_take of the same request leaves, type by type,
 * bit for bit: what rounding leaves of zero made zero, the other types
 * untouched, idle usage too, an unbound or unknown slot left alone.
 */
static void test_run_down(void)
{
    static const char *const cfg = "USERCFG[DEFAULT] MAXIJOB=8 MAXJOB=72 MAXPROC=64 MAXPS=72000\n";
    /* 4100 PS and 1050 s of WC in all, less 1e-7 each: rounding's left-over */
    static const double by[][2] = {{0, 0},  {100, 1},           {2500, 3}, {999.9999999, 0.5},
                                   {7, 40}, {493, 1005.4999999}};
    struct fx f[2];
    size_t idx = 0;
    for (int k = 0; k < 2; k++) {
        fx_init(&f[k]);
        CHECK_EQ(load(&f[k], cfg), 0);
        struct job *a = job(&f[k], "alice", 4, 1000), *b = job(&f[k], "alice", 2, 50);
        struct job *i = job(&f[k], "alice", 3, 10);
        b->nodes = 1;
        double req[LIM_NTYPES];
        limits_request(a, a->walltime, &f[k].env, req);
        limits_add_kind(f[k].L, a, CRED_USER, LIM_ACTIVE, req, +1);
        limits_request(b, b->walltime, &f[k].env, req);
        limits_add_kind(f[k].L, b, CRED_USER, LIM_ACTIVE, req, +1);
        limits_request(i, i->walltime, &f[k].env, req);
        limits_add_kind(f[k].L, i, CRED_USER, LIM_IDLE, req, +1);
        (void)job(&f[k], "bob", 1, 10); /* bob: a credential with no slot bound */
        idx = a->user->index;
    }
    size_t bob = f[0].jobs[3].user->index;
    for (size_t n = 0; n < sizeof by / sizeof *by; n++) {
        double req[LIM_NTYPES] = {0};
        req[LIM_PS] = by[n][0];
        req[LIM_WC] = by[n][1];
        limits_run_down(f[0].L, CRED_USER, idx, by[n][0], by[n][1]);
        limits_take(f[1].L, CRED_USER, idx, req);
        limits_run_down(f[0].L, CRED_USER, bob, by[n][0], by[n][1]);
        limits_run_down(f[0].L, CRED_USER, 1000, by[n][0], by[n][1]);
        limits_run_down(f[0].L, -1, idx, by[n][0], by[n][1]);
        struct lim_room r[2];
        for (int k = 0; k < 2; k++)
            CHECK(limits_room(f[k].L, &f[k].jobs[0], CRED_USER, LIM_SOFT, &r[k]));
        for (int m = 0; m < LIM_NMODES; m++)
            CHECK(memcmp(r[0].use[m], r[1].use[m], LIM_NTYPES * sizeof(double)) == 0);
    }
    struct lim_room r;
    CHECK(limits_room(f[0].L, &f[0].jobs[0], CRED_USER, LIM_SOFT, &r));
    /* run down to within LIM_EPS of zero: zero */
    CHECK(r.use[LIM_ACTIVE][LIM_PS] == 0 && r.use[LIM_ACTIVE][LIM_WC] == 0);
    CHECK(r.use[LIM_ACTIVE][LIM_JOB] == 2 && r.use[LIM_ACTIVE][LIM_PROC] == 6);
    CHECK(r.use[LIM_IDLE][LIM_JOB] == 1);
    CHECK(!limits_room(f[0].L, &f[0].jobs[3], CRED_USER, LIM_SOFT, &r)); /* bob: still unbound */
    fx_free(&f[0]);
    fx_free(&f[1]);
}

/*
 * limits_request_for: processor equivalents only when some limit is on
 * them (the engine's requests), wherever it is set; every other type as
 * limits_request gives it.
 */
static void test_request_pe(void)
{
    static const struct {
        const char *cfg;
        int pe;
    } cases[] = {
        {"USERCFG[DEFAULT] MAXIJOB=8 MAXJOB=72 MAXPS=72000,1080000", 0},
        {"CLASSCFG[batch] MAXPROC=4 MAXJOB[USER]=1", 0},
        {"USERCFG[DEFAULT] MAXPE=16", 1},
        {"GROUPCFG[g] MAXIPE=8", 1},
        {"SYSCFG MAXPE=100", 1},
        {"QOSCFG[DEFAULT] OMAXJPE=10", 1},
        {"CLASSCFG[batch] MAXPE[USER]=4", 1},
        {"MAXPEPERUSERCOUNT 12", 1},
        {"USERCFG[alice] MAXPE=-1", 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct fx f;
        fx_init(&f);
        f.env.mem = 1000;
        CHECK_EQ(load(&f, cases[i].cfg), 0);
        struct job *j = job(&f, "alice", 2, HOUR);
        j->mem_per_task = 250; /* half the memory on 2 of 128 processors: PE 64 */
        double all[LIM_NTYPES], req[LIM_NTYPES];
        limits_request(j, j->walltime, &f.env, all);
        limits_request_for(f.L, j, j->walltime, &f.env, req);
        CHECK(all[LIM_PE] == 64.0);
        for (int t = 0; t < LIM_NTYPES; t++)
            CHECK(req[t] == (t == LIM_PE && !cases[i].pe ? 0.0 : all[t]));
        fx_free(&f);
    }
}

/*
 * limits_cut and limits_excess on fractional usage (processor equivalents
 * are not whole): a type the job fits within LIM_EPS of its limit has no
 * excess (the checks' cap is the limit plus LIM_EPS), though usage plus the
 * request passes the limit by a hair, while another timed type refuses it.
 * Through the slot (kind) and every limit (-1), the two calls alike.
 */
static void test_cut_fraction(void)
{
    static const double hair[] = {5e-7, -5e-7, 1e-9, 9.9e-7};
    for (size_t h = 0; h < sizeof hair / sizeof *hair; h++) {
        struct fx f;
        fx_init(&f);
        CHECK_EQ(load(&f, "USERCFG[DEFAULT] MAXPS=1000 MAXWC=100\n"), 0);
        int kind = limits_single_kind(f.L);
        CHECK_EQ(kind, CRED_USER);
        struct job *r = job(&f, "alice", 1, 10), *j = job(&f, "alice", 1, 10);
        double use[LIM_NTYPES], req[LIM_NTYPES];
        limits_request(r, r->walltime, &f.env, use);
        use[LIM_PS] = 990 + hair[h]; /* with j's 10: 1000 and a hair */
        use[LIM_WC] = 95;            /* with j's 10: 105, over MAXWC */
        limits_add(f.L, r, LIM_ACTIVE, use, +1);
        limits_request(j, j->walltime, &f.env, req);
        CHECK(req[LIM_PS] == 10 && req[LIM_WC] == 10);
        for (int kk = kind; kk >= -1; kk -= kind + 1) {
            unsigned a, i;
            double cx[LIM_NTYPES], ex[LIM_NTYPES];
            limits_cut(f.L, j, kk, LIM_SOFT, req, &a, &i, cx);
            CHECK_EQ(a, 1u << LIM_WC); /* PS fits: within LIM_EPS */
            CHECK_EQ(i, 0u);
            limits_excess(f.L, j, kk, LIM_ACTIVE, LIM_SOFT, req, ex);
            for (int t = 0; t < LIM_NTYPES; t++) {
                double want = t == LIM_WC ? 5 : 0;
                CHECK(cx[t] == want);
                CHECK(ex[t] == want);
            }
        }
        fx_free(&f);
    }
}

int main(void)
{
    TEST_RUN(test_single_kind);
    TEST_RUN(test_single_kind_checks);
    TEST_RUN(test_full);
    TEST_RUN(test_violations);
    TEST_RUN(test_violations2);
    TEST_RUN(test_cut_eps);
    TEST_RUN(test_no_limits);
    TEST_RUN(test_request);
    TEST_RUN(test_active_types);
    TEST_RUN(test_idle_types);
    TEST_RUN(test_soft_hard);
    TEST_RUN(test_default_named);
    TEST_RUN(test_other_kinds);
    TEST_RUN(test_order);
    TEST_RUN(test_qos_override);
    TEST_RUN(test_qos_flags);
    TEST_RUN(test_ignall);
    TEST_RUN(test_class_per_user);
    TEST_RUN(test_qos_and_group_pairs);
    TEST_RUN(test_syscfg);
    TEST_RUN(test_legacy);
    TEST_RUN(test_max_wclimit);
    TEST_RUN(test_per_job);
    TEST_RUN(test_maxps_example);
    TEST_RUN(test_maxijob_example);
    TEST_RUN(test_lift);
    TEST_RUN(test_usage);
    TEST_RUN(test_clear_kind);
    TEST_RUN(test_reload);
    TEST_RUN(test_errors);
    TEST_RUN(test_values);
    TEST_RUN(test_request_pe);
    TEST_RUN(test_room);
    TEST_RUN(test_run_down);
    TEST_RUN(test_cut_fraction);
    return TEST_DONE();
}
