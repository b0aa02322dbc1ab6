/* t_preempt — OWNERPREEMPT (requeue and suspend/resume) and standing
 * reservations' TRIGGER timetable, through the engine with a recording
 * resource manager. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfg/cfg.h"
#include "engine/engine.h"
#include "test.h"

#define EPOCH 1704067200L /* Mon Jan  1 00:00:00 2024 UTC */
#define H(x) ((x)*3600L)

/* What the resource manager was asked. */
struct rec {
    char log[512];
};

static int rm_start(void *ctx, struct job *j, long now)
{
    (void)ctx, (void)j, (void)now;
    return 0;
}

static int rm_preempt(void *ctx, struct job *j, enum preempt_policy how, long now)
{
    struct rec *r = ctx;
    size_t n = strlen(r->log);
    snprintf(r->log + n, sizeof r->log - n, "%s %s@%ld;",
             how == PREEMPT_SUSPEND ? "suspend" : "requeue", j->name, now);
    return 0;
}

static int rm_resume(void *ctx, struct job *j, long now)
{
    struct rec *r = ctx;
    size_t n = strlen(r->log);
    snprintf(r->log + n, sizeof r->log - n, "resume %s@%ld;", j->name, now);
    return 0;
}

/* Two 4-processor nodes, both in jupiter's OWNERPREEMPT reservation, which
 * saturn may use as a last resort (the Admin Guide's "limited shared
 * access" example). */
static struct sched *world(const char *policy, struct rec *rec)
{
    char text[1024];
    snprintf(text, sizeof text,
             "%s\n"
             "NODECFG[n1] PROCS=4\nNODECFG[n2] PROCS=4\n"
             "SRCFG[jupiter] HOSTLIST=n1,n2 PERIOD=INFINITY\n"
             "SRCFG[jupiter] ACCOUNTLIST=jupiter,saturn- OWNER=ACCOUNT:jupiter\n"
             "SRCFG[jupiter] FLAGS=OWNERPREEMPT\n",
             policy);
    struct cfg *cfg = cfg_create();
    struct err err = {{0}};
    struct sched_policy pol;
    struct sched *s = NULL;
    if (cfg_load_string(cfg, text, "maui.cfg", &err) == 0 &&
        sched_policy_from_cfg(cfg, &pol, &err) == 0) {
        s = sched_create(
            &pol, &(struct sched_rm){
                      .start = rm_start, .preempt = rm_preempt, .resume = rm_resume, .ctx = rec});
        sched_set_zone(s, 0, 0);
        sched_set_epoch(s, EPOCH);
        if (sched_add_nodes_from_cfg(s, cfg, &err) < 0 ||
            sched_standing_from_cfg(s, cfg, &err) < 0) {
            sched_destroy(s);
            s = NULL;
        }
    }
    if (!s)
        fprintf(stderr, "    world: %s\n", err.msg);
    CHECK(s != NULL);
    cfg_destroy(cfg);
    return s;
}

static struct job *submit(struct sched *s, const char *name, int tasks, const char *account,
                          long wall, long now)
{
    struct job_spec js = {.name = name,
                          .tasks = tasks,
                          .procs_per_task = 1,
                          .walltime = wall,
                          .submit = now,
                          .account = account};
    struct job *j = sched_submit(s, &js, NULL);
    CHECK(j != NULL);
    return j;
}

/* saturn fills the nodes; jupiter's job takes them back by requeue, the
 * latest-started saturn job first, and only as many as it needs. */
static void test_requeue(void)
{
    struct rec rec = {{0}};
    struct sched *s = world("PREEMPTPOLICY REQUEUE", &rec);
    if (!s)
        return;
    struct job *a = submit(s, "a", 4, "saturn", H(10), 0);
    sched_iterate(s, 0);
    struct job *b = submit(s, "b", 4, "saturn", H(10), 10);
    sched_iterate(s, 10);
    CHECK(a->state == JOB_RUNNING && b->state == JOB_RUNNING);
    struct job *o = submit(s, "own", 3, "jupiter", H(1), 20);
    sched_iterate(s, 20);
    CHECK_STR(rec.log, "requeue b@20;");
    CHECK(o->state == JOB_RUNNING);
    CHECK(a->state == JOB_RUNNING);
    CHECK(b->state == JOB_IDLE);
    CHECK_EQ(sched_stats(s)->preempted, 1);
    /* An account the reservation does not name never runs there, and
     * preempts nothing. */
    struct job *x = submit(s, "x", 1, "mars", H(1), 30);
    sched_iterate(s, 30);
    CHECK(x->state == JOB_IDLE);
    CHECK_STR(rec.log, "requeue b@20;");
    /* The owner's job ends: b runs again from the start. */
    sched_job_ended(s, o, 40);
    sched_iterate(s, 40);
    CHECK(b->state == JOB_RUNNING);
    CHECK_EQ(b->start, 40);
    sched_destroy(s);
}

/* Processors a preemption frees beyond what the owner's job takes go, in
 * the same iteration, to a job the scan had already turned away (issue 13
 * §1: they waited for the next event). */
static void test_freed_offered_at_once(void)
{
    struct rec rec = {{0}};
    struct sched *s = world("PREEMPTPOLICY REQUEUE", &rec);
    if (!s)
        return;
    struct job *a = submit(s, "a", 4, "saturn", H(10), 0);
    struct job *b = submit(s, "b", 4, "saturn", H(10), 0);
    sched_iterate(s, 0);
    CHECK(a->state == JOB_RUNNING && b->state == JOB_RUNNING);
    struct job *c = submit(s, "c", 1, "saturn", H(1), 10); /* ahead of o in the queue */
    sched_iterate(s, 10);
    CHECK(c->state == JOB_IDLE);
    struct job *o = submit(s, "own", 3, "jupiter", H(1), 20);
    sched_iterate(s, 20);
    CHECK(o->state == JOB_RUNNING);
    CHECK_EQ(sched_stats(s)->preempted, 1);
    CHECK(c->state == JOB_RUNNING); /* the fourth processor, at 20 */
    CHECK_EQ(c->start, 20);
    sched_destroy(s);
}

/* Suspend: the suspended job keeps its nodes in mind and resumes on them,
 * with the walltime it had left, once the owner's job has ended. */
static void test_suspend_resume(void)
{
    struct rec rec = {{0}};
    struct sched *s = world("PREEMPTPOLICY SUSPEND", &rec);
    if (!s)
        return;
    struct job *a = submit(s, "a", 8, "saturn", H(10), 0);
    sched_iterate(s, 0);
    CHECK(a->state == JOB_RUNNING);
    struct job *o = submit(s, "own", 2, "jupiter", H(1), H(1));
    sched_iterate(s, H(1));
    CHECK_STR(rec.log, "suspend a@3600;");
    CHECK(o->state == JOB_RUNNING);
    CHECK(a->state == JOB_RUNNING && (a->flags & JOB_SUSPENDED));
    long used = 0;
    for (size_t i = 0; i < sched_nnodes(s); i++)
        used += sched_node_used(s, i);
    CHECK_EQ(used, 2); /* only the owner's job holds processors */
    sched_job_ended(s, o, H(2));
    sched_iterate(s, H(2));
    CHECK_STR(rec.log, "suspend a@3600;resume a@7200;");
    CHECK(!(a->flags & JOB_SUSPENDED));
    CHECK_EQ(a->planned_end, H(2) + H(9)); /* nine hours were left */
    sched_destroy(s);
}

/* Without a preempt callback nothing is preempted: the owner waits. */
static void test_no_callback(void)
{
    struct rec rec = {{0}};
    struct sched *s = world("", &rec);
    if (!s)
        return;
    sched_set_rm(s, &(struct sched_rm){.start = rm_start});
    struct job *a = submit(s, "a", 8, "saturn", H(10), 0);
    sched_iterate(s, 0);
    struct job *o = submit(s, "own", 1, "jupiter", H(1), 10);
    sched_iterate(s, 10);
    CHECK(a->state == JOB_RUNNING && o->state == JOB_IDLE);
    sched_destroy(s);
}

/* The owner's job would not fit even with every other job gone (its own
 * job holds half the nodes): nothing is preempted for nothing. Before the
 * dry run, saturn's job was requeued at every iteration and started again. */
static void test_owner_never_for_nothing(void)
{
    struct rec rec = {{0}};
    struct sched *s = world("PREEMPTPOLICY REQUEUE", &rec);
    if (!s)
        return;
    struct job *o1 = submit(s, "own1", 4, "jupiter", H(10), 0);
    struct job *a = submit(s, "a", 4, "saturn", H(10), 0);
    sched_iterate(s, 0);
    CHECK(o1->state == JOB_RUNNING && a->state == JOB_RUNNING);
    struct job *o2 = submit(s, "own2", 8, "jupiter", H(1), 10);
    sched_iterate(s, 10);
    sched_iterate(s, 20);
    CHECK_STR(rec.log, "");
    CHECK(a->state == JOB_RUNNING && o2->state == JOB_IDLE);
    CHECK_EQ(sched_stats(s)->preempted, 0);
    sched_destroy(s);
}

/* BACKFILLPOLICY PREEMPT: a waiting job of higher priority preempts a
 * backfilled one only when that lets it run. Here the backfilled job runs in
 * a reservation the waiting job may not use, so its processor is of no use
 * to it; counting processors said otherwise, and the backfilled job was
 * suspended and resumed at every iteration: the replay never ended. */
static void test_priority_never_for_nothing(void)
{
    struct rec rec = {{0}};
    struct cfg *cfg = cfg_create();
    struct err err = {{0}};
    struct sched_policy pol;
    CHECK_EQ(cfg_load_string(cfg,
                             "BACKFILLPOLICY PREEMPT\nPREEMPTPOLICY SUSPEND\n"
                             "NODECFG[n1] PROCS=2\n"
                             "SRCFG[c1] HOSTLIST=n1 PERIOD=INFINITY CLASSLIST=c1\n",
                             "maui.cfg", &err),
             0);
    CHECK_EQ(sched_policy_from_cfg(cfg, &pol, &err), 0);
    struct sched *s = sched_create(
        &pol, &(struct sched_rm){
                  .start = rm_start, .preempt = rm_preempt, .resume = rm_resume, .ctx = &rec});
    sched_set_zone(s, 0, 0);
    sched_set_epoch(s, EPOCH);
    CHECK_EQ(sched_add_nodes_from_cfg(s, cfg, &err), 0);
    CHECK_EQ(sched_standing_from_cfg(s, cfg, &err), 0);
    cfg_destroy(cfg);
    struct job_spec hs = {.name = "hi",
                          .tasks = 1,
                          .procs_per_task = 1,
                          .walltime = 100,
                          .submit = 0,
                          .class_ = "c2"};
    struct job *hi = sched_submit(s, &hs, NULL);
    sched_iterate(s, 0);
    struct job_spec ls = {.name = "lo",
                          .tasks = 1,
                          .procs_per_task = 1,
                          .walltime = 100,
                          .submit = 10,
                          .class_ = "c1"};
    struct job *lo = sched_submit(s, &ls, NULL);
    sched_iterate(s, 10);
    CHECK(lo->state == JOB_RUNNING && (lo->flags & JOB_PREEMPTEE));
    sched_iterate(s, 20);
    sched_iterate(s, 30);
    CHECK_STR(rec.log, "");
    CHECK(lo->state == JOB_RUNNING && !(lo->flags & JOB_SUSPENDED));
    CHECK(hi->state == JOB_IDLE);
    sched_destroy(s);
}

/* Two stacked OWNERPREEMPT reservations with different owners: each owner's
 * job may preempt the other's, but a job preempted in an iteration preempts
 * nothing in it: the two requeued each other for ever within one iteration
 * (each requeued job came back to the scan). */
static void test_owners_take_turns(void)
{
    struct rec rec = {{0}};
    struct cfg *cfg = cfg_create();
    struct err err = {{0}};
    struct sched_policy pol;
    CHECK_EQ(cfg_load_string(cfg,
                             "PREEMPTPOLICY REQUEUE\nNODECFG[n1] PROCS=4\n"
                             "SRCFG[a] HOSTLIST=n1 PERIOD=INFINITY USERLIST=ua,ub\n"
                             "SRCFG[a] OWNER=USER:ua FLAGS=OWNERPREEMPT\n"
                             "SRCFG[b] HOSTLIST=n1 PERIOD=INFINITY USERLIST=ua,ub\n"
                             "SRCFG[b] OWNER=USER:ub FLAGS=OWNERPREEMPT\n",
                             "maui.cfg", &err),
             0);
    CHECK_EQ(sched_policy_from_cfg(cfg, &pol, &err), 0);
    struct sched *s = sched_create(
        &pol, &(struct sched_rm){
                  .start = rm_start, .preempt = rm_preempt, .resume = rm_resume, .ctx = &rec});
    sched_set_zone(s, 0, 0);
    sched_set_epoch(s, EPOCH);
    CHECK_EQ(sched_add_nodes_from_cfg(s, cfg, &err), 0);
    CHECK_EQ(sched_standing_from_cfg(s, cfg, &err), 0);
    cfg_destroy(cfg);
    struct job_spec as = {
        .name = "a", .tasks = 3, .procs_per_task = 1, .walltime = H(1), .user = "ua"};
    struct job_spec bs = {
        .name = "b", .tasks = 3, .procs_per_task = 1, .walltime = H(1), .user = "ub"};
    struct job *a = sched_submit(s, &as, NULL), *b = sched_submit(s, &bs, NULL);
    sched_iterate(s, 0); /* a starts, b's owner takes the node back, a waits */
    CHECK_STR(rec.log, "requeue a@0;");
    CHECK(b->state == JOB_RUNNING && a->state == JOB_IDLE);
    CHECK_EQ(sched_stats(s)->preempted, 1);
    sched_destroy(s);
}

/* TRIGGER: exec actions are handed to the driver at their time; a cancel
 * action ends the instance, which is not made again. */
static void test_triggers(void)
{
    struct cfg *cfg = cfg_create();
    struct err err = {{0}};
    CHECK_EQ(cfg_load_string(cfg,
                             "NODECFG[n1] PROCS=4\nNODECFG[n2] PROCS=4\n"
                             "SRCFG[day] PERIOD=DAY STARTTIME=9:00:00 ENDTIME=10:00:00 "
                             "TASKCOUNT=1 USERLIST=bob DEPTH=1\n"
                             "SRCFG[day] TRIGGER=start+0:30:00;exec@/bin/notify\n"
                             "SRCFG[day] TRIGGER=end;exec@/bin/done\n"
                             "SRCFG[gone] PERIOD=INFINITY TASKCOUNT=1 USERLIST=bob\n"
                             "SRCFG[gone] TRIGGER=create+1:00:00;cancel\n",
                             "maui.cfg", &err),
             0);
    struct sched *s = sched_create(NULL, NULL);
    sched_set_zone(s, 0, 0);
    sched_set_epoch(s, EPOCH);
    CHECK_EQ(sched_add_nodes_from_cfg(s, cfg, &err), 0);
    CHECK_EQ(sched_standing_from_cfg(s, cfg, &err), 0);
    cfg_destroy(cfg);
    sched_iterate(s, 0);
    CHECK(sched_find_resv(s, "day.0") && sched_find_resv(s, "gone.0"));
    CHECK_EQ(sched_next_event(s, 0, 1), H(1)); /* the cancel comes first */
    struct sched_fired f;
    sched_iterate(s, H(1));
    CHECK(sched_find_resv(s, "gone.0") == NULL);
    CHECK_EQ(sched_pop_fired(s, &f), 0);
    sched_iterate(s, H(9) + H(1) / 2);
    CHECK_EQ(sched_pop_fired(s, &f), 1);
    CHECK_STR(f.resv, "day.0");
    CHECK_STR(f.event, "start");
    CHECK_STR(f.data, "/bin/notify");
    CHECK_EQ(f.at, H(9) + H(1) / 2);
    sched_fired_free(&f);
    sched_iterate(s, H(10));
    CHECK_EQ(sched_pop_fired(s, &f), 1);
    CHECK_STR(f.event, "end");
    CHECK_STR(f.data, "/bin/done");
    sched_fired_free(&f);
    CHECK_EQ(sched_pop_fired(s, &f), 0);
    /* The cancelled INFINITY reservation stays gone. */
    sched_iterate(s, H(12));
    CHECK(sched_find_resv(s, "gone.0") == NULL && sched_find_resv(s, "gone.1") == NULL);
    sched_destroy(s);
}

int main(void)
{
    TEST_RUN(test_requeue);
    TEST_RUN(test_freed_offered_at_once);
    TEST_RUN(test_suspend_resume);
    TEST_RUN(test_no_callback);
    TEST_RUN(test_owner_never_for_nothing);
    TEST_RUN(test_priority_never_for_nothing);
    TEST_RUN(test_owners_take_turns);
    TEST_RUN(test_triggers);
    return TEST_DONE();
}
