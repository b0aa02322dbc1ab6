/*
 * t_prio — tests of the job priority function (policy/prio): the default,
 * every factor alone, caps, QOS weight additions, DEFAULT fallbacks, targets,
 * negative priorities, the clip, system priorities, processor equivalents,
 * run priority, reading maui.cfg, and the worked examples of the Maui Admin
 * Guide's "Job Priority Factors" page (§5.1.2) and of the digest (§2.8).
 *
 * Jobs are built by hand (zeroed, then the fields a test needs); credentials
 * come from real cred tables so the DEFAULT objects are the engine's.
 */
#include <math.h>
#include <stdlib.h>
#include <time.h>

#include "cfg/cfg.h"
#include "core/cred.h"
#include "core/job.h"
#include "policy/prio.h"
#include "test.h"

#define HOUR 3600L
#define T0 1000000000L /* a realistic epoch: queue start of most jobs */

/* A cluster, its credentials, default parameters and one 1-proc 1-hour job
 * queued at T0 by user u / group g / account a / class c / QOS DEFAULT. */
struct fx {
    struct cred_table *t[CRED_NKINDS];
    struct prio_env env;
    struct prio_params p;
    struct job j;
};

static void fx_init(struct fx *f)
{
    memset(f, 0, sizeof *f);
    for (int k = 0; k < CRED_NKINDS; k++) {
        f->t[k] = cred_table_create((enum cred_kind)k);
        f->env.defaults[k] = cred_get(f->t[k], NULL);
    }
    f->env.procs = 128;
    prio_params_default(&f->p);
    f->j.tasks = 1;
    f->j.procs_per_task = 1;
    f->j.walltime = HOUR;
    f->j.submit = T0;
    f->j.qtime_start = T0;
    f->j.user = cred_get(f->t[CRED_USER], "u");
    f->j.group = cred_get(f->t[CRED_GROUP], "g");
    f->j.account = cred_get(f->t[CRED_ACCOUNT], "a");
    f->j.class_ = cred_get(f->t[CRED_CLASS], "c");
    f->j.qos = cred_get(f->t[CRED_QOS], NULL);
}

static void fx_free(struct fx *f)
{
    for (int k = 0; k < CRED_NKINDS; k++)
        cred_table_destroy(f->t[k]);
}

static struct cred *cred(struct fx *f, enum cred_kind k, const char *name)
{
    return cred_get(f->t[k], name);
}

/* Start priority of the fixture's job `queued` seconds after it was queued. */
static double start_at(struct fx *f, long queued, struct prio_parts *parts)
{
    return prio_start(&f->p, &f->env, &f->j, f->j.qtime_start + queued, parts);
}

/* Only factor fac weighted (w); queue time unweighted. */
static void only(struct fx *f, enum prio_factor fac, long w)
{
    f->p.fweight[PF_QUEUETIME] = 0;
    f->p.fweight[fac] = w;
}

/* -------------------------------------------------------------- default */

static void test_default(void)
{
    struct fx f;
    fx_init(&f);
    struct prio_parts parts;
    CHECK(near(start_at(&f, 90 * 60, &parts), 90.0));
    CHECK(near(parts.factor[PF_QUEUETIME], 90.0));
    CHECK(near(parts.comp[PRIO_SERV], 90.0));
    CHECK(near(parts.total, 90.0));
    for (int c = PRIO_TARG; c < PRIO_NCOMP; c++)
        CHECK(parts.comp[c] == 0.0);
    CHECK(near(start_at(&f, 90, NULL), 1.5));
    /* the floor: at least 1, also for a fresh job and a future queue start */
    CHECK(near(start_at(&f, 0, NULL), 1.0));
    CHECK(near(start_at(&f, 30, NULL), 1.0));
    CHECK(near(start_at(&f, -600, &parts), 1.0));
    CHECK(parts.factor[PF_QUEUETIME] == 0.0);
    /* parts are optional and change nothing */
    CHECK(start_at(&f, 5000, NULL) == start_at(&f, 5000, &parts));
    fx_free(&f);
}

static void test_component_weight(void)
{
    struct fx f;
    fx_init(&f);
    f.p.cweight[PRIO_SERV] = 3;
    struct prio_parts parts;
    CHECK(near(start_at(&f, 90 * 60, &parts), 270.0));
    CHECK(near(parts.comp[PRIO_SERV], 270.0));
    CHECK(near(parts.factor[PF_QUEUETIME], 90.0)); /* raw, before any weight */
    f.p.cweight[PRIO_SERV] = 0;
    CHECK(near(start_at(&f, 90 * 60, &parts), 1.0));
    CHECK(parts.comp[PRIO_SERV] == 0.0);
    fx_free(&f);
}

/* ------------------------------------------------------- factors alone */

static void test_serv_factors(void)
{
    struct fx f;
    fx_init(&f);
    struct prio_parts parts;
    only(&f, PF_XFACTOR, 10);
    CHECK(near(start_at(&f, HOUR, &parts), 20.0)); /* (1h + 1h) / 1h = 2 */
    CHECK(near(parts.factor[PF_XFACTOR], 2.0));

    fx_free(&f);
    fx_init(&f);
    only(&f, PF_BYPASS, 5);
    f.j.bypass = 3;
    CHECK(near(start_at(&f, HOUR, &parts), 15.0));
    CHECK(near(parts.factor[PF_BYPASS], 3.0));

    fx_free(&f);
    fx_init(&f);
    only(&f, PF_SPVIOLATION, 7);
    CHECK(near(start_at(&f, HOUR, &parts), 1.0));
    CHECK(parts.factor[PF_SPVIOLATION] == 0.0);
    f.j.flags = JOB_SPVIOLATION;
    CHECK(near(start_at(&f, HOUR, &parts), 7.0));
    CHECK(near(parts.factor[PF_SPVIOLATION], 1.0));
    fx_free(&f);
}

static void test_cred_factors(void)
{
    static const struct {
        enum prio_factor fac;
        enum cred_kind kind;
    } rows[] = {{PF_USER, CRED_USER},
                {PF_GROUP, CRED_GROUP},
                {PF_ACCOUNT, CRED_ACCOUNT},
                {PF_QOS, CRED_QOS},
                {PF_CLASS, CRED_CLASS}};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct fx f;
        fx_init(&f);
        f.j.qos = cred(&f, CRED_QOS, "q");
        struct cred *byk[CRED_NKINDS] = {f.j.user, f.j.group, f.j.account, f.j.class_, f.j.qos};
        byk[rows[i].kind]->priority = 40;
        only(&f, rows[i].fac, 3);
        struct prio_parts parts;
        CHECK(near(start_at(&f, HOUR, &parts), 120.0));
        CHECK(near(parts.factor[rows[i].fac], 40.0));
        CHECK(near(parts.comp[PRIO_CRED], 120.0));
        fx_free(&f);
    }
}

static void test_fs_factors(void)
{
    static const enum prio_factor facs[] = {PF_FSUSER, PF_FSGROUP, PF_FSACCOUNT, PF_FSQOS,
                                            PF_FSCLASS};
    for (size_t i = 0; i < 5; i++) {
        struct fx f;
        fx_init(&f);
        f.j.qos = cred(&f, CRED_QOS, "q");
        struct cred *cs[] = {f.j.user, f.j.group, f.j.account, f.j.qos, f.j.class_};
        cs[i]->fs_delta = 12.5;
        only(&f, facs[i], 4);
        struct prio_parts parts;
        CHECK(near(start_at(&f, HOUR, &parts), 50.0));
        CHECK(near(parts.factor[facs[i]], 12.5));
        CHECK(near(parts.comp[PRIO_FS], 50.0));
        fx_free(&f);
    }
}

static void test_res_factors(void)
{
    struct fx f;
    fx_init(&f);
    f.j.tasks = 4;
    f.j.procs_per_task = 2;
    f.j.nodes = 3;
    f.j.mem_per_task = 100;
    f.j.swap_per_task = 200;
    f.j.disk_per_task = 300;
    f.j.walltime = 1000;
    static const struct {
        enum prio_factor fac;
        double value;
    } rows[] = {{PF_NODE, 3},    {PF_PROC, 8},  {PF_MEM, 400}, {PF_SWAP, 800},
                {PF_DISK, 1200}, {PF_PS, 8000}, {PF_PE, 8},    {PF_WALLTIME, 1000}};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        prio_params_default(&f.p);
        only(&f, rows[i].fac, 2);
        struct prio_parts parts;
        CHECK(near(start_at(&f, HOUR, &parts), 2 * rows[i].value));
        CHECK(near(parts.factor[rows[i].fac], rows[i].value));
        CHECK(near(parts.comp[PRIO_RES], 2 * rows[i].value));
    }
    fx_free(&f);
}

/* The attribute component has no factors in Maui 3.3.1: its weight does nothing. */
static void test_attr_is_zero(void)
{
    struct fx f;
    fx_init(&f);
    f.p.cweight[PRIO_ATTR] = 1000;
    f.p.ccap[PRIO_ATTR] = 5;
    struct prio_parts parts;
    CHECK(near(start_at(&f, 600, &parts), 10.0));
    CHECK(parts.comp[PRIO_ATTR] == 0.0);
    fx_free(&f);
}

/* ----------------------------------------------------------------- caps */

static void test_caps(void)
{
    struct fx f;
    fx_init(&f);
    struct prio_parts parts;
    f.p.fcap[PF_QUEUETIME] = 60; /* factor cap: minutes */
    CHECK(near(start_at(&f, 90 * 60, &parts), 60.0));
    CHECK(near(parts.factor[PF_QUEUETIME], 90.0)); /* raw value uncapped */
    CHECK(near(start_at(&f, 30 * 60, NULL), 30.0));
    f.p.fcap[PF_QUEUETIME] = 0; /* 0: none */
    f.p.cweight[PRIO_SERV] = 2;
    f.p.ccap[PRIO_SERV] = 50; /* component cap, applied before the component weight */
    CHECK(near(start_at(&f, 90 * 60, &parts), 100.0));
    CHECK(near(parts.comp[PRIO_SERV], 100.0));
    CHECK(near(start_at(&f, 20 * 60, NULL), 40.0));
    /* caps are upper caps only: a negative value is never raised */
    prio_params_default(&f.p);
    f.p.enable_neg = 1;
    only(&f, PF_USER, 1);
    f.j.user->priority = -500;
    f.p.fcap[PF_USER] = 100;
    f.p.ccap[PRIO_CRED] = 100;
    CHECK(near(start_at(&f, 0, NULL), -500.0));
    f.j.user->priority = 500;
    CHECK(near(start_at(&f, 0, NULL), 100.0));
    fx_free(&f);
}

/* --------------------------------------------------- QOS weight additions */

static void test_qos_weights(void)
{
    struct fx f;
    fx_init(&f);
    /* Admin Guide: QOSCFG[special] QTWEIGHT=5000 raises QUEUETIMEWEIGHT by 5000 */
    struct cred *special = cred(&f, CRED_QOS, "special");
    special->qtweight = 5000;
    f.j.qos = special;
    CHECK(near(start_at(&f, 90 * 60, NULL), 5001.0 * 90));
    /* XFWEIGHT likewise adds to XFACTORWEIGHT (here 0 + 3) */
    special->qtweight = 0;
    special->xfweight = 3;
    CHECK(near(start_at(&f, HOUR, NULL), 60.0 + 3 * 2.0));
    /* per job: another job's QOS leaves this one alone */
    f.j.qos = cred(&f, CRED_QOS, "plain");
    CHECK(near(start_at(&f, HOUR, NULL), 60.0));
    fx_free(&f);
}

/* ---------------------------------------------------- DEFAULT fallbacks */

static void test_default_fallbacks(void)
{
    struct fx f;
    fx_init(&f);
    f.p.fweight[PF_QUEUETIME] = 0;
    f.p.fweight[PF_USER] = 1;
    cred(&f, CRED_USER, NULL)->priority = 100;
    struct prio_parts parts;
    CHECK(near(start_at(&f, 0, &parts), 100.0)); /* u has none: DEFAULT's */
    f.j.user->priority = 50;
    CHECK(near(start_at(&f, 0, &parts), 50.0));
    f.j.user = NULL; /* no user object at all: DEFAULT's */
    CHECK(near(start_at(&f, 0, &parts), 100.0));

    prio_params_default(&f.p);
    only(&f, PF_GROUP, 1);
    cred(&f, CRED_GROUP, NULL)->priority = 70;
    CHECK(near(start_at(&f, 0, NULL), 70.0));
    only(&f, PF_ACCOUNT, 1);
    f.p.fweight[PF_GROUP] = 0;
    cred(&f, CRED_ACCOUNT, NULL)->priority = 80;
    CHECK(near(start_at(&f, 0, NULL), 80.0));
    only(&f, PF_CLASS, 1);
    f.p.fweight[PF_ACCOUNT] = 0;
    cred(&f, CRED_CLASS, NULL)->priority = 90;
    CHECK(near(start_at(&f, 0, NULL), 90.0));
    f.j.class_->priority = 9;
    CHECK(near(start_at(&f, 0, NULL), 9.0));

    /* QOS: no fallback to the DEFAULT QOS */
    prio_params_default(&f.p);
    f.p.enable_neg = 1;
    only(&f, PF_QOS, 1);
    cred(&f, CRED_QOS, NULL)->priority = 60;
    f.j.qos = cred(&f, CRED_QOS, "q");
    CHECK(near(start_at(&f, 0, NULL), 0.0));
    f.j.qos = cred(&f, CRED_QOS, NULL); /* the job's QOS is DEFAULT itself */
    CHECK(near(start_at(&f, 0, NULL), 60.0));
    fx_free(&f);
}

static void test_classweight_override(void)
{
    struct fx f;
    fx_init(&f);
    only(&f, PF_CLASS, 2);
    f.j.class_->priority = 7;
    CHECK(near(start_at(&f, 0, NULL), 14.0));
    f.j.group->classweight = 10; /* GROUPCFG[g] CLASSWEIGHT=10 replaces CLASSWEIGHT */
    CHECK(near(start_at(&f, 0, NULL), 70.0));
    f.p.fweight[PF_CLASS] = 0; /* even when the global weight is 0 */
    CHECK(near(start_at(&f, 0, NULL), 70.0));
    fx_free(&f);
}

/* ------------------------------------------------------------ XFactor */

static void test_xfminwclimit(void)
{
    struct fx f;
    fx_init(&f);
    struct prio_parts parts;
    f.j.walltime = 60; /* a one-minute job queued ten minutes */
    start_at(&f, 600, &parts);
    CHECK(near(parts.factor[PF_XFACTOR], 660.0 / 120)); /* default XFMINWCLIMIT 120 s */
    f.p.xfminwclimit = -1;                              /* none */
    start_at(&f, 600, &parts);
    CHECK(near(parts.factor[PF_XFACTOR], 11.0));
    f.p.xfminwclimit = 600;
    start_at(&f, 600, &parts);
    CHECK(near(parts.factor[PF_XFACTOR], 1.1));
    /* a walltime above the minimum: the minimum has no effect */
    f.j.walltime = 1200;
    start_at(&f, 600, &parts);
    CHECK(near(parts.factor[PF_XFACTOR], 1.5));
    fx_free(&f);
}

/*
 * Admin Guide §5.1.2.4.2: XFactor = 1 + queue time / wallclock limit. A
 * 1-hour job after 1, 2, 4, 8, 16 hours in the queue: 2, 3, 5, 9, 17; a
 * 4-hour job: 1.25, 1.5, 2, 3, 5 — short jobs climb faster.
 */
static void test_guide_xfactor_table(void)
{
    static const long queued[] = {1, 2, 4, 8, 16};
    static const double one_hour[] = {2.00, 3.00, 5.00, 9.00, 17.0};
    static const double four_hour[] = {1.25, 1.50, 2.00, 3.00, 5.0};
    struct fx f;
    fx_init(&f);
    only(&f, PF_XFACTOR, 100);
    for (int i = 0; i < 5; i++) {
        struct prio_parts parts;
        f.j.walltime = HOUR;
        double p1 = start_at(&f, queued[i] * HOUR, &parts);
        CHECK(near(parts.factor[PF_XFACTOR], one_hour[i]));
        CHECK(near(p1, 100 * one_hour[i]));
        f.j.walltime = 4 * HOUR;
        double p4 = start_at(&f, queued[i] * HOUR, &parts);
        CHECK(near(parts.factor[PF_XFACTOR], four_hour[i]));
        CHECK(p1 > p4);
    }
    /* XFACTORCAP keeps it from swamping the other factors */
    f.p.fcap[PF_XFACTOR] = 4;
    f.j.walltime = HOUR;
    CHECK(near(start_at(&f, 16 * HOUR, NULL), 400.0));
    fx_free(&f);
}

/* ------------------------------------------------------------- targets */

static void test_target_queuetime(void)
{
    struct fx f;
    fx_init(&f);
    only(&f, PF_TARGETQUEUETIME, 1);
    struct prio_parts parts;
    start_at(&f, 600, &parts); /* no target: 0 */
    CHECK(parts.factor[PF_TARGETQUEUETIME] == 0.0);

    struct cred *q = cred(&f, CRED_QOS, "q");
    q->qttarget = HOUR;
    f.j.qos = q;
    start_at(&f, 0, &parts);
    /* measured from the queue duration, not the T0 timestamp (Maui's defect) */
    CHECK(near(parts.factor[PF_TARGETQUEUETIME], 1.0 / (3600.0 * 3600.0)));
    start_at(&f, 3500, &parts);
    CHECK(near(parts.factor[PF_TARGETQUEUETIME], 1e-4));
    start_at(&f, 3599, &parts);
    CHECK(near(parts.factor[PF_TARGETQUEUETIME], 1.0));
    /* grows as the target nears */
    double last = 0;
    for (long s = 0; s < HOUR; s += 300) {
        start_at(&f, s, &parts);
        CHECK(parts.factor[PF_TARGETQUEUETIME] > last);
        last = parts.factor[PF_TARGETQUEUETIME];
    }
    /* saturates at 1e8 when reached and after */
    CHECK(near(start_at(&f, HOUR, &parts), 1e8));
    CHECK(near(parts.factor[PF_TARGETQUEUETIME], 1e8));
    CHECK(near(parts.comp[PRIO_TARG], 1e8));
    start_at(&f, 5 * HOUR, &parts);
    CHECK(near(parts.factor[PF_TARGETQUEUETIME], 1e8));
    /* TARGETQUEUETIMECAP applies */
    f.p.fcap[PF_TARGETQUEUETIME] = 1000;
    CHECK(near(start_at(&f, 5 * HOUR, NULL), 1000.0));
    fx_free(&f);
}

static void test_target_xfactor(void)
{
    struct fx f;
    fx_init(&f);
    only(&f, PF_TARGETXFACTOR, 1);
    struct cred *q = cred(&f, CRED_QOS, "q");
    q->xftarget = 5.0;
    f.j.qos = q;
    struct prio_parts parts;
    start_at(&f, 0, &parts); /* XFactor 1: (5 - 1)^-2 */
    CHECK(near(parts.factor[PF_TARGETXFACTOR], 1.0 / 16));
    start_at(&f, 3 * HOUR, &parts); /* XFactor 4 */
    CHECK(near(parts.factor[PF_TARGETXFACTOR], 1.0));
    start_at(&f, 4 * HOUR - 36, &parts); /* XFactor 4.99 */
    CHECK(near(parts.factor[PF_TARGETXFACTOR], 1.0 / (0.01 * 0.01)));
    CHECK(near(start_at(&f, 4 * HOUR, &parts), 1e8)); /* reached */
    start_at(&f, 10 * HOUR, &parts);                  /* passed */
    CHECK(near(parts.factor[PF_TARGETXFACTOR], 1e8));
    fx_free(&f);
}

/* ------------------------------------------------- negatives and limits */

static void test_negative(void)
{
    struct fx f;
    fx_init(&f);
    only(&f, PF_USER, 1);
    f.j.user->priority = -1000;
    struct prio_parts parts;
    CHECK(near(start_at(&f, 0, &parts), 1.0)); /* clamped */
    CHECK(near(parts.comp[PRIO_CRED], -1000.0));
    CHECK(!prio_rejects(&f.p, parts.total));

    f.p.enable_neg = 1; /* ENABLENEGJOBPRIORITY: kept */
    CHECK(near(start_at(&f, 0, NULL), -1000.0));
    CHECK(!prio_rejects(&f.p, -1000.0));

    f.p.enable_neg = 0;
    f.p.reject_neg = 1; /* REJECTNEGPRIOJOBS: kept, and the job kept out */
    double v = start_at(&f, 0, NULL);
    CHECK(near(v, -1000.0));
    CHECK(prio_rejects(&f.p, v));
    CHECK(!prio_rejects(&f.p, 0.0));
    CHECK(!prio_rejects(&f.p, 5.0));

    /* the lower clip */
    f.p.enable_neg = 1;
    f.j.user->priority = -5000000000L;
    CHECK(near(start_at(&f, 0, NULL), -1e9));
    fx_free(&f);
}

static void test_clip(void)
{
    struct fx f;
    fx_init(&f);
    f.p.fweight[PF_QUEUETIME] = 1000000000L;
    CHECK(near(start_at(&f, 90 * 60, NULL), 1e9));
    f.p.fweight[PF_QUEUETIME] = 1000;
    CHECK(near(start_at(&f, 90 * 60, NULL), 90000.0));
    fx_free(&f);
}

static void test_sysprio(void)
{
    struct fx f;
    fx_init(&f);
    f.j.sysprio_mode = SYSPRIO_RELATIVE;
    f.j.sysprio = 500;
    CHECK(near(start_at(&f, 90 * 60, NULL), 590.0));
    f.j.sysprio_mode = SYSPRIO_ABSOLUTE;
    CHECK(near(start_at(&f, 90 * 60, NULL), 1e9 + 500));
    CHECK(near(start_at(&f, 0, NULL), 1e9 + 500));
    f.j.sysprio = 0; /* absolute 0 still beats any computed priority */
    double abs0 = start_at(&f, 0, NULL);
    f.j.sysprio_mode = SYSPRIO_NONE;
    f.p.fweight[PF_QUEUETIME] = 1000000000L;
    CHECK(abs0 >= start_at(&f, 100 * HOUR, NULL));
    fx_free(&f);
}

/* -------------------------------------------------- processor equivalents */

static void test_pe(void)
{
    struct fx f;
    fx_init(&f);
    only(&f, PF_PE, 1);
    struct prio_parts parts;
    /* only processors known: PE = processors */
    f.j.tasks = 32;
    start_at(&f, 0, &parts);
    CHECK(near(parts.factor[PF_PE], 32.0));
    /*
     * Admin Guide §5.1.2.3: on a 128-processor machine, a job asking for
     * 25% of the processors and 50% of the memory has PE max(25%, 50%) x 128 = 64.
     */
    f.env.mem = 256000;
    f.j.mem_per_task = 4000; /* 32 x 4000 = 128000 MB, half the memory */
    CHECK(near(start_at(&f, 0, &parts), 64.0));
    CHECK(near(parts.factor[PF_PE], 64.0));
    /* disk dominating */
    f.env.disk = 1000;
    f.j.disk_per_task = 25; /* 32 x 25 = 800 of 1000 MB */
    start_at(&f, 0, &parts);
    CHECK(near(parts.factor[PF_PE], 0.8 * 128));
    /* a resource the cluster does not report is left out */
    f.env.disk = 0;
    f.env.mem = 0;
    start_at(&f, 0, &parts);
    CHECK(near(parts.factor[PF_PE], 32.0));
    /* no processors configured: PE falls back to the job's processors */
    f.env.procs = 0;
    f.j.procs_per_task = 2;
    start_at(&f, 0, &parts);
    CHECK(near(parts.factor[PF_PE], 64.0));
    fx_free(&f);
}

/* --------------------------------------------------------- run priority */

static void test_run_priority(void)
{
    struct fx f;
    fx_init(&f);
    f.j.state = JOB_RUNNING;
    f.j.tasks = 4;
    f.j.walltime = 1000;
    f.j.start = T0 + 600; /* queued 10 minutes */
    long now = f.j.start + 250;
    f.p.fweight[PF_CONSUMED] = 1;
    f.p.fweight[PF_REMAINING] = 1;
    f.p.fweight[PF_PERCENT] = 1;
    f.p.fweight[PF_EXECUTIONTIME] = 1;
    struct prio_parts sp, rp;
    double s = prio_start(&f.p, &f.env, &f.j, now, &sp);
    CHECK(sp.comp[PRIO_USAGE] == 0.0); /* start priority: no usage */
    CHECK(sp.factor[PF_CONSUMED] == 0.0);
    double r = prio_run(&f.p, &f.env, &f.j, now, &rp);
    CHECK(near(rp.factor[PF_CONSUMED], 1000.0));  /* 4 procs x 250 s */
    CHECK(near(rp.factor[PF_REMAINING], 3000.0)); /* 4 x 750 s */
    CHECK(near(rp.factor[PF_PERCENT], 25.0));
    CHECK(near(rp.factor[PF_EXECUTIONTIME], 250.0));
    CHECK(near(rp.comp[PRIO_USAGE], 4275.0)); /* all four summed */
    CHECK(near(r, s + 4275.0));
    CHECK(near(rp.total, r));
    CHECK(near(prio_run(&f.p, &f.env, &f.j, now, NULL), r));
    /* USAGEWEIGHT and USAGECAP */
    f.p.cweight[PRIO_USAGE] = 2;
    f.p.ccap[PRIO_USAGE] = 1000;
    CHECK(near(prio_run(&f.p, &f.env, &f.j, now, NULL), s + 2000.0));
    /* overrunning: nothing remaining */
    prio_params_default(&f.p);
    f.p.fweight[PF_REMAINING] = 1;
    f.p.fweight[PF_PERCENT] = 1;
    prio_run(&f.p, &f.env, &f.j, f.j.start + 1500, &rp);
    CHECK(rp.factor[PF_REMAINING] == 0.0);
    CHECK(near(rp.factor[PF_PERCENT], 150.0));
    /* a system priority survives: no clip after the usage is added */
    f.j.sysprio_mode = SYSPRIO_ABSOLUTE;
    f.j.sysprio = 10;
    CHECK(near(prio_run(&f.p, &f.env, &f.j, f.j.start + 500, NULL), 1e9 + 10 + 2000 + 50.0));
    fx_free(&f);
}

/* ------------------------------------------------------ worked examples */

/* Digest §2.8: CREDWEIGHT 1, USERWEIGHT 1, john PRIORITY=2000, 90 minutes. */
static void test_digest_worked_default(void)
{
    struct fx f;
    fx_init(&f);
    f.p.fweight[PF_USER] = 1;
    f.j.user = cred(&f, CRED_USER, "john");
    f.j.user->priority = 2000;
    CHECK(near(start_at(&f, 90 * 60, NULL), 2090.0));
    fx_free(&f);
}

/*
 * Admin Guide §5.1.2.1: CREDWEIGHT 1, USERWEIGHT 1, GROUPWEIGHT 1,
 * USERCFG[john] PRIORITY=2000, USERCFG[paul] PRIORITY=-1000,
 * GROUPCFG[staff] PRIORITY=10000. Priorities may be negative.
 */
static void test_guide_cred_example(void)
{
    struct fx f;
    fx_init(&f);
    f.p.fweight[PF_USER] = 1;
    f.p.fweight[PF_GROUP] = 1;
    cred(&f, CRED_USER, "john")->priority = 2000;
    cred(&f, CRED_USER, "paul")->priority = -1000;
    cred(&f, CRED_GROUP, "staff")->priority = 10000;
    f.j.group = cred(&f, CRED_GROUP, "staff");
    f.j.user = cred(&f, CRED_USER, "john");
    CHECK(near(start_at(&f, 0, NULL), 12000.0));
    CHECK(near(start_at(&f, 30 * 60, NULL), 12030.0)); /* queue time still counts */
    f.j.user = cred(&f, CRED_USER, "paul");
    CHECK(near(start_at(&f, 0, NULL), 9000.0));
    /* paul outside staff: -1000, floored at 1 unless negatives are enabled */
    f.j.group = cred(&f, CRED_GROUP, "other");
    CHECK(near(start_at(&f, 0, NULL), 1.0));
    f.p.enable_neg = 1;
    CHECK(near(start_at(&f, 0, NULL), -1000.0));
    fx_free(&f);
}

/*
 * Admin Guide §5.1.2.2: FSWEIGHT 100, FSUSERWEIGHT 10, FSGROUPWEIGHT 20,
 * FSACCOUNTWEIGHT 30, FSQOSWEIGHT 40, FSCLASSWEIGHT 0. User 5 below target
 * (+5), group without target (0), account 10 above (-10), QOS over a floor
 * target (0), class weighted 0: 100 x (10x5 + 30x(-10)) = -25000.
 */
static void test_guide_fs_example(void)
{
    struct fx f;
    fx_init(&f);
    f.p.fweight[PF_QUEUETIME] = 0;
    f.p.cweight[PRIO_FS] = 100;
    f.p.fweight[PF_FSUSER] = 10;
    f.p.fweight[PF_FSGROUP] = 20;
    f.p.fweight[PF_FSACCOUNT] = 30;
    f.p.fweight[PF_FSQOS] = 40;
    f.p.fweight[PF_FSCLASS] = 0;
    f.j.qos = cred(&f, CRED_QOS, "D");
    f.j.user->fs_delta = 5;
    f.j.group->fs_delta = 0;
    f.j.account->fs_delta = -10;
    f.j.qos->fs_delta = 0;
    f.j.class_->fs_delta = 20;
    struct prio_parts parts;
    CHECK(near(start_at(&f, 0, &parts), 1.0));
    CHECK(near(parts.comp[PRIO_FS], -25000.0));
    f.p.enable_neg = 1;
    CHECK(near(start_at(&f, 0, NULL), -25000.0));
    f.p.ccap[PRIO_FS] = 100; /* FSCAP never raises a negative sum */
    CHECK(near(start_at(&f, 0, NULL), -25000.0));
    fx_free(&f);
}

/* ------------------------------------------------------------ from cfg */

static void test_from_cfg(void)
{
    struct prio_params def, p;
    struct err err = {{0}};
    struct cfg *cfg = cfg_create();
    prio_params_default(&def);
    CHECK_EQ(prio_params_from_cfg(cfg, &p, &err), 0);
    CHECK(memcmp(p.cweight, def.cweight, sizeof p.cweight) == 0);
    CHECK(memcmp(p.fweight, def.fweight, sizeof p.fweight) == 0);
    for (int c = 0; c < PRIO_NCOMP; c++)
        CHECK(p.ccap[c] == 0.0);
    for (int i = 0; i < PF_NFACTORS; i++)
        CHECK(p.fcap[i] == 0.0);
    CHECK_EQ(p.xfminwclimit, 120);
    CHECK_EQ(p.accrual, ACCRUE_QUEUEPOLICY);
    CHECK_EQ(p.reject_neg, 0);
    CHECK_EQ(p.enable_neg, 0);

    const char *text = "SERVICEWEIGHT 2\n" /* Maui's spelling of SERVWEIGHT */
                       "TARGETWEIGHT 3\n"
                       "SERVICEWCAP 500\n"
                       "CREDWEIGHT 0\n"
                       "QUEUETIMEWEIGHT 4\n"
                       "QUEUETIMEWEIGHT[1] 99\n" /* per partition: unused */
                       "XFACTORCAP 10.5\n"
                       "UFSWEIGHT 6\n"
                       "FSCLASSCAP 7\n"
                       "PEWEIGHT -8\n"
                       "USAGEEXECUTIONTIMEWEIGHT 9\n"
                       "PERCENTCAP 50\n"
                       "TARGETQUEUETIMEWEIGHT 11\n"
                       "XFMINWCLIMIT 00:10:00\n"
                       "JOBPRIOACCRUALPOLICY ALWAYS\n"
                       "REJECTNEGPRIOJOBS TRUE\n"
                       "ENABLENEGJOBPRIORITY TRUE\n";
    CHECK_EQ(cfg_load_string(cfg, text, "maui.cfg", &err), 0);
    CHECK_EQ(prio_params_from_cfg(cfg, &p, &err), 0);
    CHECK_EQ(p.cweight[PRIO_SERV], 2);
    CHECK_EQ(p.cweight[PRIO_TARG], 3);
    CHECK_EQ(p.cweight[PRIO_CRED], 0);
    CHECK_EQ(p.cweight[PRIO_FS], 1);
    CHECK(near(p.ccap[PRIO_SERV], 500));
    CHECK_EQ(p.fweight[PF_QUEUETIME], 4);
    CHECK(near(p.fcap[PF_XFACTOR], 10.5));
    CHECK_EQ(p.fweight[PF_FSUSER], 6);
    CHECK(near(p.fcap[PF_FSCLASS], 7));
    CHECK_EQ(p.fweight[PF_PE], -8);
    CHECK_EQ(p.fweight[PF_EXECUTIONTIME], 9);
    CHECK(near(p.fcap[PF_PERCENT], 50));
    CHECK_EQ(p.fweight[PF_TARGETQUEUETIME], 11);
    CHECK_EQ(p.xfminwclimit, 600);
    CHECK_EQ(p.accrual, ACCRUE_ALWAYS);
    CHECK_EQ(p.reject_neg, 1);
    CHECK_EQ(p.enable_neg, 1);
    cfg_destroy(cfg);

    cfg = cfg_create();
    CHECK_EQ(cfg_load_string(cfg, "JOBPRIOACCRUALPOLICY FULLPOLICY\nSERVWEIGHT 5\n", "m", &err), 0);
    CHECK_EQ(prio_params_from_cfg(cfg, &p, &err), 0);
    CHECK_EQ(p.accrual, ACCRUE_FULLPOLICY);
    CHECK_EQ(p.cweight[PRIO_SERV], 5);
    cfg_destroy(cfg);
}

/* A config through to a priority: the Admin Guide credential example. */
static void test_cfg_to_priority(void)
{
    struct fx f;
    fx_init(&f);
    struct err err = {{0}};
    struct cfg *cfg = cfg_create();
    CHECK_EQ(cfg_load_string(cfg, "CREDWEIGHT 1\nUSERWEIGHT 1\nGROUPWEIGHT 1\n", "m", &err), 0);
    CHECK_EQ(prio_params_from_cfg(cfg, &f.p, &err), 0);
    f.j.user->priority = 2000;
    f.j.group->priority = 10000;
    CHECK(near(start_at(&f, 90 * 60, NULL), 12090.0));
    cfg_destroy(cfg);
    fx_free(&f);
}

/* ------------------------------------------------- order and comparison */

static void test_order_is_submission(void)
{
    struct prio_params p;
    prio_params_default(&p);
    CHECK(prio_order_is_submission(&p));
    p.fweight[PF_XFACTOR] = 1;
    CHECK(!prio_order_is_submission(&p));
    p.cweight[PRIO_SERV] = 0; /* component weight 0: xfactor has no effect */
    CHECK(prio_order_is_submission(&p));

    prio_params_default(&p);
    p.fweight[PF_QUEUETIME] = -1; /* newest first */
    CHECK(!prio_order_is_submission(&p));
    p.cweight[PRIO_SERV] = -1; /* -1 x -1: oldest first again */
    CHECK(prio_order_is_submission(&p));
    p.fweight[PF_QUEUETIME] = 0; /* all equal: ties go by submission */
    CHECK(prio_order_is_submission(&p));

    prio_params_default(&p);
    p.fcap[PF_QUEUETIME] = 60; /* a cap keeps it monotone */
    p.ccap[PRIO_SERV] = 30;
    CHECK(prio_order_is_submission(&p));
    p.fweight[PF_CONSUMED] = 5; /* usage: never for queued jobs */
    p.fweight[PF_EXECUTIONTIME] = 5;
    CHECK(prio_order_is_submission(&p));
    p.fweight[PF_USER] = 5;
    CHECK(!prio_order_is_submission(&p));
    p.cweight[PRIO_CRED] = 0;
    CHECK(prio_order_is_submission(&p));
    for (int f = 0; f < PF_CONSUMED; f++) {
        if (f == PF_QUEUETIME)
            continue;
        prio_params_default(&p);
        p.fweight[f] = 1;
        CHECK(!prio_order_is_submission(&p));
    }
}

static void test_cmp(void)
{
    struct job a = {0}, b = {0}, c = {0};
    a.priority = 10;
    b.priority = 20;
    c.priority = 10;
    a.submit = 5;
    c.submit = 3;
    a.order = 1;
    c.order = 2;
    struct job *v[] = {&a, &b, &c};
    qsort(v, 3, sizeof v[0], prio_cmp);
    CHECK(v[0] == &b && v[1] == &c && v[2] == &a);
    c.submit = 5; /* same submit time: the submission sequence */
    qsort(v, 3, sizeof v[0], prio_cmp);
    CHECK(v[0] == &b && v[1] == &a && v[2] == &c);
}

/* prio_before (the heap's inline comparison) is prio_cmp(&x, &y) < 0 on
 * random pairs that tie often in priority, submit time and order, and
 * with NaN and infinite priorities. */
static void test_before(void)
{
    static const double prios[] = {1.0, 2.0, -3.5, 1e9, 0.0, -0.0, 1.0 / 0.0, 0.0 / 0.0};
    srand(43);
    for (int k = 0; k < 20000; k++) {
        struct job x = {0}, y = {0};
        x.priority = prios[rand() % 8];
        y.priority = rand() % 2 ? x.priority : prios[rand() % 8];
        x.submit = rand() % 3;
        y.submit = rand() % 3;
        x.order = (size_t)(rand() % 3);
        y.order = (size_t)(rand() % 3);
        const struct job *px = &x, *py = &y;
        CHECK_EQ(prio_before(px, py), prio_cmp(&px, &py) < 0);
    }
}

static void test_names(void)
{
    CHECK_STR(prio_comp_name(PRIO_SERV), "serv");
    CHECK_STR(prio_comp_name(PRIO_USAGE), "usage");
    CHECK_STR(prio_factor_name(PF_QUEUETIME), "queuetime");
    CHECK_STR(prio_factor_name(PF_EXECUTIONTIME), "executiontime");
    CHECK_STR(prio_factor_name(PF_NFACTORS), "?");
    CHECK_EQ(prio_factor_comp(PF_QUEUETIME), PRIO_SERV);
    CHECK_EQ(prio_factor_comp(PF_SPVIOLATION), PRIO_SERV);
    CHECK_EQ(prio_factor_comp(PF_TARGETXFACTOR), PRIO_TARG);
    CHECK_EQ(prio_factor_comp(PF_CLASS), PRIO_CRED);
    CHECK_EQ(prio_factor_comp(PF_FSUSER), PRIO_FS);
    CHECK_EQ(prio_factor_comp(PF_FSCLASS), PRIO_FS);
    CHECK_EQ(prio_factor_comp(PF_NODE), PRIO_RES);
    CHECK_EQ(prio_factor_comp(PF_WALLTIME), PRIO_RES);
    CHECK_EQ(prio_factor_comp(PF_CONSUMED), PRIO_USAGE);
    CHECK_EQ(prio_factor_comp(PF_EXECUTIONTIME), PRIO_USAGE);
}

/* Random component and factor weights and caps (fixed seed by the caller). */
static void random_weights(struct prio_params *p)
{
    for (int c = 0; c < PRIO_NCOMP; c++) {
        p->cweight[c] = rand() % 5 - 1;
        p->ccap[c] = rand() % 3 ? 0 : rand() % 5000;
    }
    for (int i = 0; i < PF_NFACTORS; i++) {
        p->fweight[i] = rand() % 3 ? 0 : rand() % 21 - 10;
        p->fcap[i] = rand() % 4 ? 0 : rand() % 100;
    }
    p->enable_neg = rand() % 2;
}

/* Only the factors whose weight may depend on the job (queue time, xfactor,
 * class) keep their weights: the fast path's common case (sum_weighted). */
static void job_weights_only(struct prio_params *p)
{
    for (int i = 0; i < PF_NFACTORS; i++)
        if (i != PF_QUEUETIME && i != PF_XFACTOR && i != PF_CLASS)
            p->fweight[i] = 0;
}

/* The fast path (no parts) and the diagnostic path agree, whatever the
 * weights; every other round with only the job-dependent factors weighted. */
static void test_parts_agree(void)
{
    struct fx f;
    fx_init(&f);
    srand(7);
    struct cred *q = cred(&f, CRED_QOS, "q");
    f.j.qos = q;
    f.env.mem = 64000;
    f.env.swap = 128000;
    f.env.disk = 1000000;
    for (int round = 0; round < 4000; round++) {
        random_weights(&f.p);
        if (round % 2)
            job_weights_only(&f.p);
        q->qtweight = rand() % 3 - 1;
        q->xfweight = rand() % 3 - 1;
        q->qttarget = rand() % 2 ? 0 : rand() % 7200;
        q->xftarget = rand() % 2 ? 0 : rand() % 10;
        f.j.group->classweight = rand() % 3;
        f.j.user->priority = rand() % 2000 - 1000;
        f.j.class_->priority = rand() % 100;
        f.j.account->fs_delta = rand() % 20 - 10;
        f.j.tasks = 1 + rand() % 16;
        f.j.mem_per_task = rand() % 4000;
        f.j.disk_per_task = rand() % 4000;
        f.j.walltime = 60 + rand() % 20000;
        f.j.bypass = rand() % 4;
        f.j.start = T0 + rand() % 3600;
        long now = T0 + rand() % 20000;
        struct prio_parts parts;
        struct prio_batch pb;
        prio_batch_init(&pb, &f.p, &f.env);
        double fast = prio_start(&f.p, &f.env, &f.j, now, NULL);
        CHECK(fast == prio_start(&f.p, &f.env, &f.j, now, &parts));
        CHECK(fast == parts.total);
        CHECK(fast == prio_batch_start(&pb, &f.j, now)); /* the batch: the same bits */
        double run = prio_run(&f.p, &f.env, &f.j, now, NULL);
        CHECK(run == prio_run(&f.p, &f.env, &f.j, now, &parts));
        CHECK(run == parts.total);
    }
    fx_free(&f);
}

/*
 * One batch asked for many jobs whose credentials come from a small pool
 * (48 combinations, more than the batch's slots, so slots are taken over):
 * every answer is prio_start's, bit for bit, whatever the weights (every
 * other round only queue time and the credentials' factors), QSTOPped or
 * not, and whether or not the job's credentials' part was kept from an
 * earlier job.
 */
static void test_batch_creds(void)
{
    struct fx f;
    fx_init(&f);
    srand(13);
    static const char *const names[] = {"x", "y", "z"};
    static const int npool[CRED_NKINDS] = {3, 2, 2, 2, 2};
    struct cred *pool[CRED_NKINDS][3];
    for (int k = 0; k < CRED_NKINDS; k++)
        for (int i = 0; i < npool[k]; i++)
            pool[k][i] = cred(&f, (enum cred_kind)k, names[i]);
    f.env.mem = 64000;
    f.env.qstop = T0 + 15000; /* for the jobs QSTOPped */
    for (int round = 0; round < 300; round++) {
        random_weights(&f.p);
        if (round % 2) { /* queue time and the credentials' factors: the common path */
            for (int i = 0; i < PF_CONSUMED; i++)
                if (i != PF_QUEUETIME && (i < PF_USER || i > PF_FSCLASS))
                    f.p.fweight[i] = 0;
            if (!f.p.fweight[PF_QUEUETIME])
                f.p.fweight[PF_QUEUETIME] = 1 + rand() % 10;
        }
        for (int k = 0; k < CRED_NKINDS; k++)
            for (int i = 0; i < npool[k]; i++) {
                struct cred *c = pool[k][i];
                c->priority = rand() % 2000 - 1000;
                c->fs_delta = (rand() % 2000 - 1000) / 7.0;
                c->classweight = rand() % 3;
                c->qtweight = rand() % 3 - 1;
                c->xfweight = rand() % 3 - 1;
            }
        struct prio_batch pb;
        prio_batch_init(&pb, &f.p, &f.env);
        long now = T0 + 20000 + rand() % 20000;
        for (int n = 0; n < 200; n++) {
            struct job j = f.j;
            j.user = pool[CRED_USER][rand() % 3];
            j.group = pool[CRED_GROUP][rand() % 2];
            j.account = pool[CRED_ACCOUNT][rand() % 2];
            j.class_ = pool[CRED_CLASS][rand() % 2];
            j.qos = pool[CRED_QOS][rand() % 2];
            j.qtime_start = T0 + rand() % 20000;
            j.tasks = 1 + rand() % 16;
            j.mem_per_task = rand() % 4000;
            j.walltime = 60 + rand() % 20000;
            j.sysprio_mode = rand() % 10 ? SYSPRIO_NONE : SYSPRIO_RELATIVE;
            j.sysprio = rand() % 200 - 100;
            j.flags = rand() % 10 ? 0 : JOB_QSTOP;
            CHECK(prio_batch_start(&pb, &j, now) == prio_start(&f.p, &f.env, &j, now, NULL));
        }
    }
    fx_free(&f);
}

/* What test_batch_fresh's hook saw: calls per user, and the delta each
 * user's credential gets when made current. */
struct fresh_log {
    struct cred *user[3];
    double delta[3];
    int calls[3];
    const struct cred *still[2]; /* credentials whose delta stays 0 (no target) */
};

static void fresh_user(void *ctx, struct cred *c)
{
    struct fresh_log *log = ctx;
    for (int i = 0; i < 3; i++)
        if (c == log->user[i]) {
            log->calls[i]++;
            log->user[i]->fs_delta = log->delta[i];
        }
}

static int still_log(void *ctx, const struct cred *c)
{
    const struct fresh_log *log = ctx;
    return c == log->still[0] || c == log->still[1];
}

/*
 * A batch with a fresh hook calls it for the first job of each combination
 * of credentials, before it reads them, and not for the next jobs of that
 * combination: every answer is prio_start's on the credentials made
 * current (combinations may take each other's slot over: then the hook
 * runs again).
 */
static void test_batch_fresh(void)
{
    struct fx f;
    fx_init(&f);
    srand(17);
    struct fresh_log log = {
        {cred(&f, CRED_USER, "u0"), cred(&f, CRED_USER, "u1"), cred(&f, CRED_USER, "u2")}};
    for (int round = 0; round < 200; round++) {
        random_weights(&f.p);
        f.p.cweight[PRIO_FS] = 1 + rand() % 3;
        f.p.fweight[PF_FSUSER] = 1 + rand() % 5;
        for (int i = 0; i < 3; i++) {
            log.user[i]->fs_delta = -1000; /* stale until the hook runs */
            log.delta[i] = (rand() % 2000 - 1000) / 7.0;
            log.calls[i] = 0;
        }
        struct prio_batch pb;
        prio_batch_init_fresh(&pb, &f.p, &f.env, (struct prio_fresh){fresh_user, NULL, &log});
        long now = T0 + 20000 + rand() % 20000;
        int met[3] = {0};
        for (int n = 0; n < 50; n++) {
            struct job j = f.j;
            int u = rand() % 3;
            j.user = log.user[u];
            met[u] = 1;
            j.qtime_start = T0 + rand() % 20000;
            int before = log.calls[u];
            double p = prio_batch_start(&pb, &j, now);
            CHECK(p == prio_start(&f.p, &f.env, &j, now, NULL));
            CHECK(log.calls[u] <= before + 1);
            j.qtime_start = T0 + rand() % 20000; /* the next job of its combination */
            before = log.calls[u];
            CHECK(prio_batch_start(&pb, &j, now) == prio_start(&f.p, &f.env, &j, now, NULL));
            CHECK_EQ(log.calls[u], before);
        }
        for (int i = 0; i < 3; i++)
            CHECK(log.calls[i] >= met[i]);
    }
    fx_free(&f);
}

static void count_fresh(void *ctx, struct cred *c)
{
    (void)c;
    ++*(int *)ctx;
}

/*
 * Which combinations share a batch's slot comes from the credentials'
 * numbers, not their addresses: the same jobs (by user number, 100 users
 * for 64 slots, and some without a user) asked of two batches over two
 * sets of tables (at other addresses) find the same number of parts, the
 * fresh hook's calls; every answer is prio_start's.
 */
static void test_batch_slot_stable(void)
{
    enum { NU = 100, NJ = 3000 };
    struct fx f[2];
    struct cred *users[2][NU];
    void *apart = NULL;
    for (int t = 0; t < 2; t++) {
        fx_init(&f[t]);
        f[t].p.fweight[PF_FSUSER] = 3;
        f[t].p.cweight[PRIO_FS] = 2;
        for (int i = 0; i < NU; i++) {
            char name[16];
            snprintf(name, sizeof name, "u%d", i);
            users[t][i] = cred(&f[t], CRED_USER, name);
            users[t][i]->fs_delta = (i % 17 - 8) / 3.0;
        }
        if (!t)
            apart = malloc(4096); /* the second set further on in the heap */
    }
    int calls[2] = {0, 0};
    for (int t = 0; t < 2; t++) {
        struct prio_batch pb;
        prio_batch_init_fresh(&pb, &f[t].p, &f[t].env,
                              (struct prio_fresh){count_fresh, NULL, &calls[t]});
        srand(19);
        for (int n = 0; n < NJ; n++) {
            struct job j = f[t].j;
            int u = rand() % (NU + 5);
            j.user = u < NU ? users[t][u] : NULL;
            j.qtime_start = T0 + rand() % 20000;
            CHECK(prio_batch_start(&pb, &j, T0 + 30000) ==
                  prio_start(&f[t].p, &f[t].env, &j, T0 + 30000, NULL));
        }
    }
    CHECK(calls[0] > NU / 2);
    CHECK_EQ(calls[0], calls[1]);
    free(apart);
    for (int t = 0; t < 2; t++)
        fx_free(&f[t]);
}

/*
 * A kept set-up's slots (PRIO_KEPTSLOTS, by the user's number itself): in
 * one generation, jobs of fewer users than slots, numbered one after the
 * other, call the fresh hook once per user (no user takes another's slot);
 * then 600 users (sharing slots) and jobs with no credentials at all (the
 * first of each batch: an empty slot's key is no job's, not NULL) over
 * generations whose deltas move: every answer is prio_start's. Fixed seed.
 */
static void test_batch_kept_slots(void)
{
    enum { NU = 600, FEW = PRIO_KEPTSLOTS - 20 };
    struct fx f;
    fx_init(&f);
    f.p.fweight[PF_FSUSER] = 3;
    f.p.cweight[PRIO_FS] = 2;
    struct cred *users[NU];
    for (int i = 0; i < NU; i++) {
        char name[16];
        snprintf(name, sizeof name, "k%d", i);
        users[i] = cred(&f, CRED_USER, name);
    }
    struct prio_setup *kept = calloc(1, sizeof *kept);
    CHECK(kept != NULL);
    srand(31);
    int calls = 0, seen[NU] = {0}, distinct = 0;
    for (unsigned long gen = 0; gen < 40; gen++) {
        for (int i = 0; i < NU; i++)
            users[i]->fs_delta = (double)(rand() % 41 - 20) / 7.0;
        struct prio_batch pb;
        prio_batch_init_kept(&pb, &f.p, &f.env, (struct prio_fresh){count_fresh, NULL, &calls},
                             kept, gen);
        for (int n = 0; n < 2000; n++) {
            struct job j = f.j;
            int u = gen == 0 ? rand() % FEW : rand() % (NU + 10);
            if (n == 0) /* the first job asked: slot 0 is empty */
                u = NU;
            if (u >= NU) /* no credentials at all */
                j.user = j.group = j.account = j.class_ = j.qos = NULL;
            else
                j.user = users[u];
            if (gen == 0 && u < NU && !seen[u]++)
                distinct++;
            j.qtime_start = T0 + rand() % 20000;
            long now = T0 + 30000 + (long)gen;
            CHECK(prio_batch_start(&pb, &j, now) == prio_start(&f.p, &f.env, &j, now, NULL));
        }
        if (gen == 0)
            CHECK_EQ(calls, distinct);
    }
    free(kept);
    fx_free(&f);
}

/*
 * A batch's assembly (its floor found with the set-up; the system priority's
 * path apart) is prio_start's: random weights of both signs, negatives
 * allowed or rejected or neither, queue times from none to past the clip,
 * system priorities of each mode, in a batch of its own and in a kept one.
 * Fixed seed.
 */
static void test_batch_assemble(void)
{
    struct fx f;
    fx_init(&f);
    srand(37);
    struct prio_setup *kept = calloc(1, sizeof *kept);
    CHECK(kept != NULL);
    for (int round = 0; round < 300; round++) {
        random_weights(&f.p);
        f.p.reject_neg = !f.p.enable_neg && rand() % 3 == 0;
        f.p.fweight[PF_QUEUETIME] = rand() % 2001 - 1000;
        f.p.cweight[PRIO_SERV] = rand() % 2001 - 1000;
        struct prio_batch own, pb;
        prio_batch_init(&own, &f.p, &f.env);
        prio_batch_init_kept(&pb, &f.p, &f.env, (struct prio_fresh){NULL, NULL, NULL}, kept,
                             (unsigned long)round);
        for (int n = 0; n < 40; n++) {
            struct job j = f.j;
            static const long ago[] = {0, 59, 3600, 86400L * 365, 86400L * 365 * 2000};
            long now = T0 + 1000;
            j.qtime_start = now - ago[rand() % 5] - rand() % 100;
            j.sysprio_mode = (enum job_sysprio)(rand() % 3);
            j.sysprio = rand() % 2001 - 1000;
            double want = prio_start(&f.p, &f.env, &j, now, NULL);
            CHECK(prio_batch_start(&own, &j, now) == want);
            CHECK(prio_batch_start(&pb, &j, now) == want);
        }
    }
    free(kept);
    fx_free(&f);
}

/*
 * prio_queue_time_only: when it answers a direction, two jobs with the same
 * credentials that differ in everything but what it allows (queue time)
 * are ordered by their queue time in that direction; it refuses whatever
 * weights a per-job factor, a system priority, a stopped queue time and
 * REJECTNEGPRIOJOBS. Random weights, caps and credential values. A batch's
 * answer, before and after its credentials' part is kept, is the same.
 */
static void test_queue_time_only(void)
{
    struct fx f;
    fx_init(&f);
    srand(11);
    struct cred *q = cred(&f, CRED_QOS, "q");
    f.j.qos = q;
    int seen[3] = {0};
    for (int round = 0; round < 4000; round++) {
        for (int c = 0; c < PRIO_NCOMP; c++) {
            f.p.cweight[c] = rand() % 5 - 2;
            f.p.ccap[c] = rand() % 3 ? 0 : rand() % 500;
        }
        for (int i = 0; i < PF_NFACTORS; i++) {
            f.p.fweight[i] = rand() % 4 ? 0 : rand() % 21 - 10;
            f.p.fcap[i] = rand() % 4 ? 0 : rand() % 100;
        }
        f.p.enable_neg = rand() % 2;
        f.p.reject_neg = rand() % 8 == 0;
        q->qtweight = rand() % 3 - 1;
        q->xfweight = rand() % 4 ? 0 : 1;
        f.j.user->priority = rand() % 2000 - 1000;
        f.j.user->fs_delta = rand() % 200 - 100;
        f.j.group->fs_delta = rand() % 20 - 10;
        f.j.sysprio_mode = rand() % 10 ? SYSPRIO_NONE : SYSPRIO_RELATIVE;
        f.j.flags = rand() % 10 ? 0 : JOB_QSTOP;
        int dir = prio_queue_time_only(&f.p, &f.j);
        struct prio_batch b;
        prio_batch_init(&b, &f.p, &f.env);
        CHECK_EQ(prio_batch_queue_time_only(&b, &f.j), dir);
        /* Again once a priority of the same credentials keeps their part
         * (its answer for a job without own state). */
        struct job plain = f.j;
        plain.sysprio_mode = SYSPRIO_NONE;
        plain.flags = 0;
        (void)prio_batch_start(&b, &plain, T0 + 100);
        CHECK_EQ(prio_batch_queue_time_only(&b, &f.j), dir);
        CHECK_EQ(prio_batch_queue_time_only(&b, &plain), prio_queue_time_only(&f.p, &plain));
        seen[dir + 1]++;
        if (f.p.reject_neg || f.j.sysprio_mode != SYSPRIO_NONE || (f.j.flags & JOB_QSTOP))
            CHECK_EQ(dir, 0);
        if (!dir)
            continue;
        struct job x = f.j, y = f.j; /* the same credentials, another job */
        x.tasks = 1 + rand() % 64;
        y.tasks = 1 + rand() % 64;
        x.walltime = 60 + rand() % 100000;
        y.walltime = 60 + rand() % 100000;
        x.bypass = rand() % 5;
        x.qtime_start = T0 - rand() % 200000;
        y.qtime_start = T0 - rand() % 200000;
        long now = T0 + rand() % 100000;
        double px = prio_start(&f.p, &f.env, &x, now, NULL);
        double py = prio_start(&f.p, &f.env, &y, now, NULL);
        if (x.qtime_start < y.qtime_start) /* x waited longer */
            CHECK(dir > 0 ? px >= py : px <= py);
        else if (x.qtime_start == y.qtime_start)
            CHECK(px == py);
    }
    CHECK(seen[0] > 20 && seen[1] > 100 && seen[2] > 100); /* every answer was met */
    fx_free(&f);
}

/* ---------------------------------------------------------------- speed */

static void test_speed(void)
{
    enum { N = 100000 };
    struct fx f;
    fx_init(&f);
    f.p.fweight[PF_XFACTOR] = 10;
    f.p.fweight[PF_USER] = 1;
    f.p.fweight[PF_PE] = 2;
    f.p.fweight[PF_FSUSER] = 3;
    f.env.mem = 1 << 20;
    struct job *jobs = calloc(N, sizeof *jobs);
    for (int i = 0; i < N; i++) {
        jobs[i] = f.j;
        jobs[i].qtime_start = T0 + i;
        jobs[i].tasks = 1 + i % 64;
        jobs[i].mem_per_task = i % 1000;
    }
    /* best of three passes: the engine recomputes every iteration, warm */
    double sum = 0, ms = 1e9;
    for (int pass = 0; pass < 3; pass++) {
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        for (int i = 0; i < N; i++)
            sum += prio_start(&f.p, &f.env, &jobs[i], T0 + N + HOUR, NULL);
        clock_gettime(CLOCK_MONOTONIC, &b);
        double t = (double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6;
        ms = t < ms ? t : ms;
    }
    printf("t_prio: 100,000 start priorities in %.2f ms\n", ms);
    CHECK(sum > 0);
    CHECK(ms < 250); /* a few ms optimised; generous for sanitizer builds */
    free(jobs);
    fx_free(&f);
}

/*
 * A batch whose set-up is kept (prio_batch_init_kept) is prio_batch_init's
 * whether the weights stayed (copied) or changed (found again): the same
 * factors and components, and the same priorities.
 */
static void test_batch_kept(void)
{
    struct fx f;
    fx_init(&f);
    srand(19);
    struct prio_setup kept = {0};
    for (int round = 0; round < 2000; round++) {
        if (round == 0 || rand() % 3 == 0)
            random_weights(&f.p);
        else if (rand() % 2)
            f.p.fweight[rand() % PF_NFACTORS] = rand() % 3 - 1; /* one weight, maybe the same */
        struct prio_batch want, got;
        prio_batch_init(&want, &f.p, &f.env);
        prio_batch_init_kept(&got, &f.p, &f.env, (struct prio_fresh){NULL, NULL, NULL}, &kept, 0);
        CHECK(got.p == &f.p && got.env == &f.env && got.slot == kept.slot && !got.fresh.cred);
        CHECK_EQ(got.t.nf, want.t.nf);
        CHECK_EQ(got.t.nfc, want.t.nfc);
        CHECK_EQ(got.t.nc, want.t.nc);
        CHECK(!memcmp(got.t.f, want.t.f, (size_t)want.t.nf));
        CHECK(!memcmp(got.t.fc, want.t.fc, (size_t)want.t.nfc));
        CHECK(!memcmp(got.t.c, want.t.c, (size_t)want.t.nc));
        f.j.qtime_start = T0 + rand() % 20000;
        long now = T0 + 20000 + rand() % 20000;
        CHECK(prio_batch_start(&got, &f.j, now) == prio_start(&f.p, &f.env, &f.j, now, NULL));
    }
    fx_free(&f);
}

/*
 * A frozen set-up (an engine's: its parameters never change in place) is
 * found again when the parameters' address changes, and kept while it does
 * not: the same factors, components and priorities as prio_batch_init's.
 */
static void test_batch_kept_frozen(void)
{
    struct fx f;
    fx_init(&f);
    srand(29);
    struct prio_params ps[2];
    for (int k = 0; k < 2; k++) {
        random_weights(&f.p);
        ps[k] = f.p;
    }
    struct prio_setup kept = {0};
    kept.frozen = 1;
    int found = 0;
    for (int round = 0; round < 400; round++) {
        int k = rand() % 4 == 0; /* the other engine's parameters now and then */
        struct prio_batch want, got;
        prio_batch_init(&want, &ps[k], &f.env);
        int was = kept.valid && kept.at == &ps[k];
        prio_batch_init_kept(&got, &ps[k], &f.env, (struct prio_fresh){NULL, NULL, NULL}, &kept, 0);
        found += !was;
        CHECK(kept.at == &ps[k] && got.p == &ps[k]);
        CHECK_EQ(got.t.nf, want.t.nf);
        CHECK_EQ(got.t.nfc, want.t.nfc);
        CHECK_EQ(got.t.nc, want.t.nc);
        CHECK(!memcmp(got.t.f, want.t.f, (size_t)want.t.nf));
        CHECK(!memcmp(got.t.fc, want.t.fc, (size_t)want.t.nfc));
        CHECK(!memcmp(got.t.c, want.t.c, (size_t)want.t.nc));
        f.j.qtime_start = T0 + rand() % 20000;
        long now = T0 + 20000 + rand() % 20000;
        CHECK(prio_batch_start(&got, &f.j, now) == prio_start(&ps[k], &f.env, &f.j, now, NULL));
    }
    CHECK(found > 20 && found < 200);
    fx_free(&f);
}

/*
 * Credentials' parts kept from batch to batch (prio_batch_init_kept's gen):
 * against a model that computes every priority afresh (prio_start on the
 * credentials made current), over iterations where the deltas move (gen
 * moves), batches within one iteration (gen stays: no hook runs again for a
 * combination met), a credential's PRIORITY changed (prio_setup_forget) and
 * the weights or caps changed (found again by themselves). A user and a
 * group have no target (the hook's still: their deltas stay 0), the user's
 * the first FS factor: a renewal leaves them out. Fixed seed.
 */
static void test_batch_kept_parts(void)
{
    struct fx f;
    fx_init(&f);
    srand(23);
    struct fresh_log log = {
        {cred(&f, CRED_USER, "u0"), cred(&f, CRED_USER, "u1"), cred(&f, CRED_USER, "u2")}};
    struct cred *grp[2] = {cred(&f, CRED_GROUP, "g0"), cred(&f, CRED_GROUP, "g1")};
    struct cred *qos[2] = {cred(&f, CRED_QOS, "q0"), cred(&f, CRED_QOS, "q1")};
    qos[1]->qtweight = 2;
    log.still[0] = log.user[2];
    log.still[1] = grp[1];
    struct prio_setup kept = {0};
    unsigned long gen = 0;
    int renewed = 0, forgot = 0, fs_before = 0;
    for (int round = 0; round < 300; round++) {
        if (round == 0 || rand() % 10 == 0) {
            random_weights(&f.p);
            f.p.cweight[PRIO_FS] = rand() % 4;
            f.p.fweight[PF_FSUSER] = rand() % 5;
            f.p.fweight[PF_FSGROUP] = rand() % 3;
            f.p.fweight[PF_QUEUETIME] = rand() % 3;
            f.p.fweight[PF_FSACCOUNT] = rand() % 3 - 1;
            f.p.fweight[PF_FSQOS] = rand() % 3;
            f.p.fweight[PF_FSCLASS] = rand() % 3;
            f.p.enable_neg = 1; /* no floor at 1 hiding a delta */
            f.p.ccap[PRIO_FS] = f.p.fcap[PF_FSUSER] = 0;
            if (rand() % 3 == 0) { /* one own factor after FS: a kept FS term before it */
                for (int k = 0; k < PF_NFACTORS; k++)
                    if (k < PF_USER || k >= PF_NODE)
                        f.p.fweight[k] = 0;
                f.p.fweight[PF_PROC] = 1 + rand() % 3;
                f.p.cweight[PRIO_RES] = 1 + rand() % 3;
                f.p.cweight[PRIO_FS] = 1 + rand() % 3;
                fs_before++;
            }
        } else if (rand() % 5 == 0) {
            f.p.fcap[PF_FSGROUP] = rand() % 2 ? 0 : rand() % 50; /* a cap alone */
        }
        if (rand() % 8 == 0) { /* configured again: the kept parts go */
            log.user[rand() % 3]->priority = rand() % 200 - 100;
            grp[rand() % 2]->priority = rand() % 200 - 100;
            prio_setup_forget(&kept);
            forgot++;
        }
        if (rand() % 4) { /* a new iteration: the deltas move */
            gen++;
            for (int i = 0; i < 3; i++) {
                log.delta[i] = (rand() % 2000 - 1000) / 7.0;
                log.user[i]->fs_delta = -1000; /* stale until the hook runs */
            }
            log.delta[2] = 0; /* still */
            for (int i = 0; i < 2; i++) {
                grp[i]->fs_delta = i == 1 ? 0 : (rand() % 400 - 200) / 3.0;
                qos[i]->fs_delta = (rand() % 400 - 200) / 9.0;
            }
            f.j.account->fs_delta = rand() % 100 - 50;
            f.j.class_->fs_delta = (rand() % 100) / 3.0;
        }
        for (int i = 0; i < 3; i++)
            log.calls[i] = 0;
        struct prio_batch pb;
        prio_batch_init_kept(&pb, &f.p, &f.env, (struct prio_fresh){fresh_user, still_log, &log},
                             &kept, gen);
        long now = T0 + 20000 + rand() % 20000;
        for (int n = 0; n < 20; n++) {
            struct job j = f.j;
            int u = rand() % 3;
            j.user = log.user[u];
            j.group = grp[rand() % 2];
            j.qos = qos[rand() % 2];
            j.qtime_start = T0 + rand() % 20000;
            j.walltime = 60 + rand() % 10000;
            j.tasks = 1 + rand() % 64;
            double p = prio_batch_start(&pb, &j, now);
            if (log.user[u]->fs_delta == -1000) /* not made current: the model's deltas */
                log.user[u]->fs_delta = log.delta[u];
            CHECK(p == prio_start(&f.p, &f.env, &j, now, NULL));
            int before = log.calls[u]; /* the same combination again: its part, no hook */
            CHECK(prio_batch_start(&pb, &j, now) == p);
            CHECK_EQ(log.calls[u], before);
            renewed += before > 0;
        }
    }
    CHECK(renewed > 100 && forgot > 10 && fs_before > 3);
    fx_free(&f);
}

int main(void)
{
    TEST_RUN(test_batch_kept);
    TEST_RUN(test_batch_kept_parts);
    TEST_RUN(test_batch_kept_frozen);
    TEST_RUN(test_default);
    TEST_RUN(test_component_weight);
    TEST_RUN(test_serv_factors);
    TEST_RUN(test_cred_factors);
    TEST_RUN(test_fs_factors);
    TEST_RUN(test_res_factors);
    TEST_RUN(test_attr_is_zero);
    TEST_RUN(test_caps);
    TEST_RUN(test_qos_weights);
    TEST_RUN(test_default_fallbacks);
    TEST_RUN(test_classweight_override);
    TEST_RUN(test_xfminwclimit);
    TEST_RUN(test_guide_xfactor_table);
    TEST_RUN(test_target_queuetime);
    TEST_RUN(test_target_xfactor);
    TEST_RUN(test_negative);
    TEST_RUN(test_clip);
    TEST_RUN(test_sysprio);
    TEST_RUN(test_pe);
    TEST_RUN(test_run_priority);
    TEST_RUN(test_digest_worked_default);
    TEST_RUN(test_guide_cred_example);
    TEST_RUN(test_guide_fs_example);
    TEST_RUN(test_from_cfg);
    TEST_RUN(test_cfg_to_priority);
    TEST_RUN(test_order_is_submission);
    TEST_RUN(test_cmp);
    TEST_RUN(test_before);
    TEST_RUN(test_names);
    TEST_RUN(test_batch_creds);
    TEST_RUN(test_batch_fresh);
    TEST_RUN(test_batch_slot_stable);
    TEST_RUN(test_batch_kept_slots);
    TEST_RUN(test_batch_assemble);
    TEST_RUN(test_parts_agree);
    TEST_RUN(test_queue_time_only);
    TEST_RUN(test_speed);
    return TEST_DONE();
}
