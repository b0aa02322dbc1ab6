/* Credentials from maui.cfg, QOS assignment, bypass counting, system
 * priority (engine/credcfg.c, engine/engine.c, policy/iter.c). */
#include <stdlib.h>

#include "cfg/cfg.h"
#include "engine/engine.h"
#include "test.h"

static struct sched *load(const char *text, struct cfg **cfgp, struct err *e)
{
    struct cfg *cfg = cfg_create();
    struct sched_policy pol;
    struct sched *s = NULL;
    if (cfg_load_string(cfg, text, "t.cfg", e) == 0 && sched_policy_from_cfg(cfg, &pol, e) == 0) {
        s = sched_create(&pol, NULL);
        if (sched_creds_from_cfg(s, cfg, e) < 0) {
            sched_destroy(s);
            s = NULL;
        }
    }
    *cfgp = cfg;
    return s;
}

static void add_node(struct sched *s, const char *name, int procs)
{
    struct node_spec n = {.name = name, .procs = procs, .state = NODE_UP};
    CHECK(sched_add_node(s, &n, NULL) == 0);
}

static struct job *submit(struct sched *s, const char *name, int tasks, long wall, long at,
                          const char *user, const char *group, const char *qos)
{
    struct job_spec js = {.name = name,
                          .tasks = tasks,
                          .procs_per_task = 1,
                          .walltime = wall,
                          .submit = at,
                          .user = user,
                          .group = group,
                          .qos = qos};
    return sched_submit(s, &js, NULL);
}

static void test_priorities_and_qos_objects(void)
{
    struct cfg *cfg;
    struct err e;
    struct sched *s = load("USERCFG[john] PRIORITY=100\n"
                           "GROUPCFG[staff] PRIORITY=1000 QLIST=hi:low QDEF=hi CLASSWEIGHT=3\n"
                           "QOSCFG[hi] PRIORITY=50 QTWEIGHT=2 XFTARGET=4 QFLAGS=NOBF\n"
                           "QOSPRIORITY[low] 7\n",
                           &cfg, &e);
    CHECK(s != NULL);
    struct cred *john = cred_find(sched_creds(s, CRED_USER), "john");
    struct cred *staff = cred_find(sched_creds(s, CRED_GROUP), "staff");
    struct cred *hi = cred_find(sched_creds(s, CRED_QOS), "hi");
    struct cred *low = cred_find(sched_creds(s, CRED_QOS), "low");
    CHECK(john && staff && hi && low);
    CHECK_EQ(john->priority, 100);
    CHECK_EQ(staff->priority, 1000);
    CHECK_EQ(staff->classweight, 3);
    CHECK_EQ(staff->nqlist, 2);
    CHECK_STR(staff->qdef, "hi");
    CHECK_EQ(hi->priority, 50);
    CHECK_EQ(hi->qtweight, 2);
    CHECK(hi->xftarget > 3.99 && hi->xftarget < 4.01);
    CHECK(hi->qflags & QOS_NOBF);
    CHECK_EQ(low->priority, 7);
    sched_destroy(s);
    cfg_destroy(cfg);
}

static void test_qos_assignment(void)
{
    struct cfg *cfg;
    struct err e;
    struct sched *s = load("GROUPCFG[staff] QLIST=hi:low QDEF=low\n"
                           "USERCFG[DEFAULT] QDEF=basic\n",
                           &cfg, &e);
    add_node(s, "n1", 4);
    struct job *a = submit(s, "a", 1, 60, 0, "u1", "staff", "hi");
    struct job *b = submit(s, "b", 1, 60, 0, "u1", "staff", "gold"); /* not in QLIST */
    struct job *c = submit(s, "c", 1, 60, 0, "u1", "staff", NULL);
    struct job *d = submit(s, "d", 1, 60, 0, "u2", "other", NULL);
    CHECK_STR(a->qos->name, "hi");
    CHECK_STR(b->qos->name, "low"); /* denied: the group's QDEF */
    CHECK_STR(c->qos->name, "low");
    CHECK_STR(d->qos->name, "basic"); /* DEFAULT user's QDEF */
    sched_destroy(s);
    cfg_destroy(cfg);
}

static void test_open_qos_when_unrestricted(void)
{
    struct cfg *cfg;
    struct err e;
    struct sched *s = load("", &cfg, &e);
    add_node(s, "n1", 4);
    struct job *a = submit(s, "a", 1, 60, 0, "u1", NULL, "premium");
    struct job *b = submit(s, "b", 1, 60, 0, "u1", NULL, NULL);
    CHECK_STR(a->qos->name, "premium"); /* a trace's QOS is kept when nothing restricts */
    CHECK_STR(b->qos->name, "DEFAULT");
    sched_destroy(s);
    cfg_destroy(cfg);
}

static void test_bad_values_apply_nothing(void)
{
    struct cfg *cfg = cfg_create();
    struct err e;
    struct sched_policy pol;
    sched_policy_default(&pol);
    struct sched *s = sched_create(&pol, NULL);
    CHECK(cfg_load_string(cfg, "USERCFG[a] PRIORITY=5\n", "t.cfg", &e) == 0);
    CHECK(sched_creds_from_cfg(s, cfg, &e) == 0);
    CHECK_EQ(cred_find(sched_creds(s, CRED_USER), "a")->priority, 5);
    sched_destroy(s);
    cfg_destroy(cfg);
}

/* Every waiting higher-priority job counts a backfilled job passing it. */
static void test_bypass(void)
{
    struct cfg *cfg;
    struct err e;
    struct sched *s = load("", &cfg, &e);
    add_node(s, "n1", 10);
    struct job *j1 = submit(s, "1", 8, 100, 0, NULL, NULL, NULL);
    sched_iterate(s, 0);
    struct job *j2 = submit(s, "2", 5, 100, 1, NULL, NULL, NULL); /* reserved at 100 */
    struct job *j3 = submit(s, "3", 1, 10, 1, NULL, NULL, NULL);  /* backfills */
    sched_iterate(s, 1);
    CHECK(j1->state == JOB_RUNNING);
    CHECK(j3->state == JOB_RUNNING && (j3->flags & JOB_BACKFILLED));
    CHECK_EQ(j2->bypass, 1);
    CHECK(sched_job_wait(s, j2) == WAIT_RESERVED);
    CHECK_EQ(j2->resv_start, 100);
    struct job *j4 = submit(s, "4", 1, 10, 2, NULL, NULL, NULL);
    sched_iterate(s, 2);
    CHECK(j4->state == JOB_RUNNING);
    CHECK_EQ(j2->bypass, 2);
    sched_destroy(s);
    cfg_destroy(cfg);
}

/* An absolute system priority puts a job first. */
static void test_sysprio_reorders(void)
{
    struct cfg *cfg;
    struct err e;
    struct sched *s = load("", &cfg, &e);
    add_node(s, "n1", 4);
    struct job *run = submit(s, "r", 4, 100, 0, NULL, NULL, NULL);
    sched_iterate(s, 0);
    struct job *a = submit(s, "a", 4, 100, 1, NULL, NULL, NULL);
    struct job *b = submit(s, "b", 4, 100, 2, NULL, NULL, NULL);
    CHECK(sched_set_sysprio(s, b, SYSPRIO_ABSOLUTE, 1001, &e) < 0);
    CHECK_HAS(e.msg, "0..1000");
    CHECK(sched_set_sysprio(s, b, SYSPRIO_ABSOLUTE, 10, &e) == 0);
    CHECK(sched_set_sysprio(s, run, SYSPRIO_ABSOLUTE, 10, &e) < 0);
    sched_iterate(s, 3);
    CHECK(sched_job_wait(s, b) == WAIT_RESERVED);
    CHECK(sched_job_wait(s, a) == WAIT_RESOURCES);
    sched_job_ended(s, run, 100);
    sched_iterate(s, 100);
    CHECK(b->state == JOB_RUNNING);
    CHECK(a->state == JOB_IDLE);
    sched_destroy(s);
    cfg_destroy(cfg);
}

/* A submission that hands over its credentials (job_spec.creds, a
 * replay's jobs of names seen before) gets those objects, counted and
 * given their QOS as when they are looked up by name. */
static void test_known_creds(void)
{
    struct cfg *cfg;
    struct err e;
    struct sched *s = load("GROUPCFG[staff] QLIST=hi:low QDEF=low\n", &cfg, &e);
    add_node(s, "n1", 4);
    struct job *a = submit(s, "a", 1, 60, 0, "u1", "staff", NULL);
    struct cred *const known[4] = {a->user, a->group, a->account, a->class_};
    struct job_spec js = {.name = "b",
                          .tasks = 1,
                          .procs_per_task = 1,
                          .walltime = 60,
                          .user = "u1",
                          .group = "staff",
                          .creds = known};
    struct job *b = sched_submit(s, &js, NULL);
    CHECK(b != NULL);
    CHECK(b->user == a->user && b->group == a->group);
    CHECK(b->account == a->account && b->class_ == a->class_);
    CHECK_STR(b->qos->name, "low");
    CHECK_EQ(a->group->jobs, 2);
    CHECK_EQ(a->user->live, 2);
    sched_destroy(s);
    cfg_destroy(cfg);
}

int main(void)
{
    TEST_RUN(test_priorities_and_qos_objects);
    TEST_RUN(test_qos_assignment);
    TEST_RUN(test_open_qos_when_unrestricted);
    TEST_RUN(test_bad_values_apply_nothing);
    TEST_RUN(test_bypass);
    TEST_RUN(test_sysprio_reorders);
    TEST_RUN(test_known_creds);
    return TEST_DONE();
}
