/* t_hosts — jobs with a host list (job_spec.hosts, Torque's nodes=n1:ppn=2+n2):
 * what a submission refuses, that such a job starts only on its hosts with
 * its count on each, that its priority reservation sits on its hosts, and
 * that backfill goes around it. Four nodes n00..n03 of 4 processors;
 * 1-processor tasks; times in seconds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfg/cfg.h"
#include "engine/engine.h"
#include "test.h"

static int rm_start(void *ctx, struct job *j, long now)
{
    (void)ctx, (void)j, (void)now;
    return 0;
}

static struct sched *world(const char *text)
{
    struct cfg *cfg = cfg_create();
    struct err err = {{0}};
    struct sched_policy pol;
    struct sched *s = NULL;
    if (cfg_load_string(cfg, text, "maui.cfg", &err) == 0 &&
        sched_policy_from_cfg(cfg, &pol, &err) == 0)
        s = sched_create(&pol, &(struct sched_rm){.start = rm_start});
    if (!s)
        fprintf(stderr, "    world: %s\n", err.msg);
    CHECK(s != NULL);
    cfg_destroy(cfg);
    for (int i = 0; s && i < 4; i++) {
        char name[16];
        snprintf(name, sizeof name, "n%02d", i);
        sched_add_node(s, &(struct node_spec){.name = name, .procs = 4, .state = NODE_UP}, NULL);
    }
    return s;
}

static struct job *sub(struct sched *s, const char *name, int tasks, const char *hosts, long wall,
                       long at)
{
    struct job_spec js = {.name = name,
                          .tasks = tasks,
                          .procs_per_task = 1,
                          .walltime = wall,
                          .submit = at,
                          .hosts = hosts};
    struct err err = {{0}};
    struct job *j = sched_submit(s, &js, &err);
    if (!j)
        fprintf(stderr, "    %s: %s\n", name, err.msg);
    CHECK(j != NULL);
    return j;
}

/* Where j runs, as "n01:1,n02:3" (node:processors), "" when it does not. */
static const char *where(const struct sched *s, const struct job *j)
{
    static char buf[256];
    buf[0] = '\0';
    if (!j || j->state != JOB_RUNNING)
        return buf;
    for (size_t k = 0; k < j->nslots; k++)
        for (unsigned i = 0; i < j->slots[k].nnodes; i++) {
            size_t len = strlen(buf);
            snprintf(buf + len, sizeof buf - len, "%sn%02u:%u", len ? "," : "",
                     j->slots[k].node + i, j->slots[k].procs);
        }
    (void)s;
    return buf;
}

static void test_refused(void)
{
    struct sched *s = world("");
    if (!s)
        return;
    static const struct {
        const char *hosts;
        int tasks, tpn;
        const char *msg;
    } rows[] = {
        {"n09:1", 1, 0, "no node named n09"},
        {"n01:1,n01:1", 2, 0, "node n01 named twice"},
        {"n01:2", 3, 0, "the hosts hold 2 tasks, the job has 3"},
        {"n01:5", 5, 0, "node n01 has 4 processors, not the 5 asked of it"},
        {"n01", 1, 0, "expected node:tasks"},
        {"n01:0", 1, 0, "bad task count '0'"},
        {"n01:2,n02:2", 4, 2, "no tasks per node"},
        {"n01:1", 1, 0, "node n01 does not have feature fast"},
    };
    for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
        struct job_spec js = {.name = "x",
                              .tasks = rows[k].tasks,
                              .tpn = rows[k].tpn,
                              .procs_per_task = 1,
                              .features = strstr(rows[k].msg, "feature") ? "fast" : NULL,
                              .walltime = 10,
                              .hosts = rows[k].hosts};
        struct err err = {{0}};
        CHECK(sched_submit(s, &js, &err) == NULL);
        CHECK_HAS(err.msg, rows[k].msg);
    }
    CHECK_EQ(sched_njobs(s), 0);
    sched_destroy(s);
}

/* With every node free, a job naming n03 runs on n03, one naming n01 and
 * n02 gets 1 and 3 processors there; a job without a list still takes the
 * first free node (FIRSTAVAILABLE: table order). */
static void test_placed_on_hosts(void)
{
    struct sched *s = world("NODEALLOCATIONPOLICY FIRSTAVAILABLE\n");
    if (!s)
        return;
    struct job *a = sub(s, "a", 2, "n03:2", 100, 0);
    struct job *b = sub(s, "b", 4, "n02:3,n01:1", 100, 0);
    struct job *c = sub(s, "c", 2, NULL, 100, 0);
    sched_iterate(s, 0);
    CHECK_STR(where(s, a), "n03:2");
    CHECK_STR(where(s, b), "n01:1,n02:3");
    CHECK_STR(where(s, c), "n00:2");
    sched_destroy(s);
}

/*
 * "fill" holds 2 of n03 until 1000. "top" asks for all 4 of n03 for 100 s:
 * it cannot start, and its reservation sits on n03 at 1000 though 12 other
 * processors are free. "wide" (12 tasks anywhere, 5000 s) backfills onto
 * n00..n02: it does not touch n03. "late" (n03:2, 5000 s) would fit on n03
 * now but would delay top: it waits. "short" (n03:2, 500 s) ends before
 * 1000: it backfills onto n03.
 */
static void test_reserved_on_hosts(void)
{
    struct sched *s = world("");
    if (!s)
        return;
    struct job *fill = sub(s, "fill", 2, "n03:2", 1000, 0);
    sched_iterate(s, 0);
    CHECK_STR(where(s, fill), "n03:2");
    struct job *top = sub(s, "top", 4, "n03:4", 100, 1);
    struct job *wide = sub(s, "wide", 12, NULL, 5000, 2);
    struct job *late = sub(s, "late", 2, "n03:2", 5000, 3);
    struct job *shrt = sub(s, "short", 2, "n03:2", 500, 4);
    sched_iterate(s, 10);
    CHECK(top->state == JOB_IDLE);
    CHECK_EQ(top->resv_start, 1000);
    CHECK_STR(where(s, wide), "n00:4,n01:4,n02:4");
    CHECK(late->state == JOB_IDLE);
    CHECK_STR(where(s, shrt), "n03:2");
    sched_destroy(s);
}

/* A host that is down keeps the job waiting while the others are free; it
 * starts there once the host is back. */
static void test_host_down(void)
{
    struct sched *s = world("");
    if (!s)
        return;
    sched_node_set_state(s, 1, NODE_DOWN, "test");
    struct job *a = sub(s, "a", 1, "n01:1", 100, 0);
    sched_iterate(s, 0);
    CHECK(a->state == JOB_IDLE);
    sched_node_set_state(s, 1, NODE_UP, NULL);
    sched_iterate(s, 10);
    CHECK_STR(where(s, a), "n01:1");
    sched_destroy(s);
}

int main(void)
{
    TEST_RUN(test_refused);
    TEST_RUN(test_placed_on_hosts);
    TEST_RUN(test_reserved_on_hosts);
    TEST_RUN(test_host_down);
    return TEST_DONE();
}
