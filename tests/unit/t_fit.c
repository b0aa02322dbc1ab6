/*
 * Jobs with tasks per node (job_spec.tpn: Torque's nodes=N:ppn=P, N distinct
 * nodes) placed on distinct nodes, planned and started when the nodes' shapes
 * allow; and sched_job_fit, which tells a job that could never run (too
 * large, no node shaped for it, over a limit no waiting lifts).
 */
#include <stdlib.h>

#include "cfg/cfg.h"
#include "cmd/cmd.h"
#include "engine/engine.h"
#include "test.h"

static struct sched *cluster(int nodes, int ppn, const char *cfgtext)
{
    struct sched_policy pol;
    sched_policy_default(&pol);
    struct cfg *cfg = cfg_create();
    if (cfgtext) {
        CHECK(cfg_load_string(cfg, cfgtext, "maui.cfg", NULL) == 0);
        CHECK(sched_policy_from_cfg(cfg, &pol, NULL) == 0);
    }
    struct sched *s = sched_create(&pol, NULL);
    CHECK(sched_creds_from_cfg(s, cfg, NULL) == 0);
    CHECK(sched_limits_from_cfg(s, cfg, NULL) == 0);
    cfg_destroy(cfg);
    char name[16];
    for (int i = 0; i < nodes; i++) {
        snprintf(name, sizeof name, "n%d", i);
        struct node_spec spec = {.name = name, .procs = ppn, .state = NODE_UP};
        CHECK(sched_add_node(s, &spec, NULL) == 0);
    }
    return s;
}

static struct job *submit(struct sched *s, const char *name, int tasks, int ppt, int tpn,
                          long walltime, long now)
{
    struct job_spec spec = {.name = name,
                            .tasks = tasks,
                            .procs_per_task = ppt,
                            .tpn = tpn,
                            .nodes = tpn ? tasks / tpn : 0,
                            .walltime = walltime,
                            .submit = now};
    struct err e;
    struct job *j = sched_submit(s, &spec, &e);
    CHECK(j != NULL);
    return j;
}

/* Nodes j holds, in order, each as "name:procs" joined by spaces. */
static const char *where(struct sched *s, const struct job *j)
{
    static char buf[256];
    size_t len = 0;
    buf[0] = '\0';
    for (size_t k = 0; k < j->nslots; k++)
        for (unsigned i = 0; i < j->slots[k].nnodes; i++)
            len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s:%u", len ? " " : "",
                                    sched_node(s, j->slots[k].node + i)->name, j->slots[k].procs);
    return buf;
}

/* nodes=2:ppn=1 and nodes=2:ppn=2: one task on each of two nodes. */
static void test_tasks_per_node_distinct(void)
{
    struct sched *s = cluster(2, 4, NULL);
    struct job *a = submit(s, "1", 2, 1, 1, 100, 0);
    sched_iterate(s, 0);
    CHECK_EQ(a->state, JOB_RUNNING);
    CHECK_STR(where(s, a), "n0:1 n1:1");
    struct job *b = submit(s, "2", 2, 2, 1, 100, 0);
    sched_iterate(s, 0);
    CHECK_EQ(b->state, JOB_RUNNING);
    CHECK_STR(where(s, b), "n0:2 n1:2");
    sched_destroy(s);
    /* Without tasks per node the same request shares one node
     * (LASTAVAILABLE, Maui's default: the last node first). */
    s = cluster(2, 4, NULL);
    struct job *c = submit(s, "3", 2, 1, 0, 100, 0);
    sched_iterate(s, 0);
    CHECK_STR(where(s, c), "n1:2");
    sched_destroy(s);
}

/* Processors free in all but not a node's share: the job waits for one. */
static void test_tasks_per_node_waits_for_shape(void)
{
    struct sched *s = cluster(2, 4, NULL);
    struct job *big = submit(s, "1", 3, 1, 0, 100, 0); /* n1: 3 of 4 */
    sched_iterate(s, 0);
    CHECK_STR(where(s, big), "n1:3");
    struct job *pair = submit(s, "2", 2, 2, 1, 50, 0); /* needs 2 nodes x 2 */
    struct job *small = submit(s, "3", 1, 1, 0, 10, 0);
    sched_iterate(s, 0);
    CHECK_EQ(pair->state, JOB_IDLE); /* 5 processors free, but n1 has 1 */
    CHECK_EQ(small->state, JOB_RUNNING);
    sched_job_ended(s, small, 10);
    sched_job_ended(s, big, 100);
    sched_iterate(s, 100);
    CHECK_EQ(pair->state, JOB_RUNNING);
    CHECK_STR(where(s, pair), "n0:2 n1:2");
    sched_destroy(s);
}

/* Exclusive access: tpn tasks on each whole node. */
static void test_tasks_per_node_singlejob(void)
{
    struct sched *s = cluster(3, 4, "NODEACCESSPOLICY SINGLEJOB\n");
    struct job *a = submit(s, "1", 4, 1, 2, 100, 0);
    sched_iterate(s, 0);
    CHECK_EQ(a->state, JOB_RUNNING);
    CHECK_STR(where(s, a), "n1:4 n2:4");
    struct job *b = submit(s, "2", 4, 1, 2, 100, 0); /* one node left */
    sched_iterate(s, 0);
    CHECK_EQ(b->state, JOB_IDLE);
    CHECK(sched_earliest_start(s, b, 0) == 100);
    sched_destroy(s);
}

static enum sched_fit fit(struct sched *s, int tasks, int ppt, int tpn, const char *feat,
                          struct err *e)
{
    struct job_spec spec = {.name = "9",
                            .tasks = tasks,
                            .procs_per_task = ppt,
                            .tpn = tpn,
                            .nodes = tpn ? tasks / tpn : 0,
                            .walltime = 3600,
                            .user = "alice",
                            .features = feat};
    return sched_job_fit(s, &spec, SCHED_FIT_ALL, e);
}

static void test_fit_nodes(void)
{
    struct sched *s = cluster(2, 4, NULL);
    struct err e;
    CHECK_EQ(fit(s, 2, 2, 1, NULL, &e), SCHED_FITS);
    CHECK_EQ(fit(s, 9, 1, 0, NULL, &e), SCHED_TOO_LARGE);
    CHECK_STR(e.msg, "asks for 9 processors, the cluster has 8");
    /* nodes=1:ppn=6 on 4-processor nodes */
    CHECK_EQ(fit(s, 1, 6, 1, NULL, &e), SCHED_NO_NODES);
    CHECK_STR(e.msg, "needs 6 processors on one node, the largest node has 4");
    /* nodes=3 on two nodes */
    CHECK_EQ(fit(s, 3, 1, 1, NULL, &e), SCHED_NO_NODES);
    CHECK_STR(e.msg, "needs 3 distinct nodes of 1 processors, the cluster has 2 such nodes");
    /* 3 tasks of 3 processors: 9 > 8 processors anyway */
    CHECK_EQ(fit(s, 2, 3, 0, NULL, &e), SCHED_FITS);
    CHECK_EQ(fit(s, 3, 2, 0, "bigmem", &e), SCHED_NO_NODES);
    CHECK_STR(e.msg, "can use no node: no up node with features bigmem");
    /* Tasks that do not pack: 2 tasks of 3 processors fit, 2 of 3 on ... */
    struct sched *t = cluster(3, 3, NULL);
    CHECK_EQ(fit(t, 2, 2, 0, NULL, &e), SCHED_FITS);
    CHECK_EQ(fit(t, 4, 2, 0, NULL, &e), SCHED_NO_NODES); /* 8 <= 9, but one task a node */
    CHECK_STR(e.msg, "asks for 4 tasks of 2 processors, the nodes can hold 3");
    /* sched_submit refuses the too large only. */
    struct job_spec spec = {
        .name = "1", .tasks = 1, .procs_per_task = 6, .tpn = 1, .nodes = 1, .walltime = 10};
    CHECK(sched_submit(s, &spec, &e) != NULL);
    spec.tasks = 2, spec.procs_per_task = 5, spec.name = "2";
    CHECK(sched_submit(s, &spec, &e) == NULL);
    CHECK_STR(e.msg, "job 2: asks for 10 processors, the cluster has 8");
    spec.tasks = 3, spec.procs_per_task = 1, spec.tpn = 2;
    CHECK(sched_submit(s, &spec, &e) == NULL);
    CHECK_HAS(e.msg, "not a whole number of nodes");
    sched_destroy(s);
    sched_destroy(t);
}

static void test_fit_limits(void)
{
    struct sched *s = cluster(2, 4,
                              "USERCFG[DEFAULT] MAXPROC=1\n"
                              "USERCFG[bob] MAXPROC=4\n"
                              "CLASSCFG[short] MAX.WCLIMIT=1:00:00\n");
    struct err e;
    size_t users = cred_count(sched_creds(s, CRED_USER));
    CHECK_EQ(fit(s, 2, 1, 0, NULL, &e), SCHED_OVER_LIMIT);
    CHECK_STR(e.msg, "violates active HARD MAXPROC limit of 1 for user alice (R: 2, U: 0)");
    CHECK_EQ(cred_count(sched_creds(s, CRED_USER)), users); /* alice was not created */
    struct job_spec spec = {.tasks = 2, .procs_per_task = 1, .walltime = 60, .user = "bob"};
    CHECK_EQ(sched_job_fit(s, &spec, SCHED_FIT_ALL, &e), SCHED_FITS);
    spec.class_ = "short", spec.walltime = 7200;
    CHECK_EQ(sched_job_fit(s, &spec, SCHED_FIT_ALL, &e), SCHED_OVER_LIMIT);
    CHECK_HAS(e.msg, "MAXWC limit of 3600 for class short");
    /* What is over a limit now but not alone is not refused. */
    spec.class_ = NULL, spec.walltime = 60, spec.user = "alice", spec.tasks = 1;
    CHECK_EQ(sched_job_fit(s, &spec, SCHED_FIT_ALL, &e), SCHED_FITS);
    sched_destroy(s);
}

/* A queued job no node can hold (the simulator keeps one; the daemon's
 * node table may shrink under one): checkjob says so, not that it would
 * delay a reservation. */
static void test_checkjob_never(void)
{
    struct sched *s = cluster(2, 4, NULL);
    submit(s, "1", 1, 6, 1, 100, 0);
    sched_iterate(s, 0);
    struct cmd_ctx c = {.s = s, .now = 0};
    char *out = NULL;
    CHECK_EQ(cmd_run(&c, "checkjob 1", &out, NULL), 0);
    CHECK_HAS(out, "job cannot run  (the nodes it may use can never hold it)");
    free(out);
    sched_destroy(s);
}

int main(void)
{
    TEST_RUN(test_tasks_per_node_distinct);
    TEST_RUN(test_tasks_per_node_waits_for_shape);
    TEST_RUN(test_tasks_per_node_singlejob);
    TEST_RUN(test_fit_nodes);
    TEST_RUN(test_fit_limits);
    TEST_RUN(test_checkjob_never);
    return TEST_DONE();
}
