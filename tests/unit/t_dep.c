/*
 * Job dependencies (engine/dep.c): the depend= parser, and the engine's
 * dependency hold — released in the iteration that sees the other job end,
 * or the job removed when its dependency can never be met.
 */
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "test.h"

static void test_parse(void)
{
    struct job_dep *d;
    size_t n;
    struct err e = {0};
    CHECK(dep_parse("afterok:12.host:13,afterany:7", &d, &n, &e) == 0);
    CHECK(n == 3);
    CHECK(d[0].type == DEP_AFTEROK && strcmp(d[0].on, "12") == 0);
    CHECK(d[1].type == DEP_AFTEROK && strcmp(d[1].on, "13") == 0);
    CHECK(d[2].type == DEP_AFTERANY && strcmp(d[2].on, "7") == 0);
    char buf[64];
    CHECK(dep_text(d, n, buf, sizeof buf) == strlen("afterok:12:13,afterany:7"));
    CHECK(strcmp(buf, "afterok:12:13,afterany:7") == 0);
    dep_free(d, n);
    const char *bad[] = {"",        "afterok",    "afterok:",   "afterok:1::2", "afterok:1,",
                         "later:1", "beforeok:1", "syncwith:1", ",afterok:1",   "afterok:.host"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        d = NULL;
        CHECK(dep_parse(bad[i], &d, &n, &e) == -1);
        CHECK(d == NULL);
    }
    CHECK(dep_parse("beforeok:1", &d, &n, &e) == -1 && strstr(e.msg, "not supported"));
}

static struct job *submit(struct sched *s, const char *name, long at)
{
    struct job_spec spec = {
        .name = name, .tasks = 1, .procs_per_task = 1, .walltime = 100, .submit = at};
    struct job *j = sched_submit(s, &spec, NULL);
    CHECK(j != NULL);
    return j;
}

static struct sched *one_node(void)
{
    struct sched_policy p;
    sched_policy_default(&p);
    struct sched *s = sched_create(&p, NULL);
    struct node_spec n = {.name = "n0", .procs = 4, .state = NODE_UP};
    CHECK(sched_add_node(s, &n, NULL) == 0);
    return s;
}

/* afterok waits while the parent runs and starts in the iteration that sees
 * it end well; afternotok on the same parent is removed then, with why. */
static void test_chain(void)
{
    struct sched *s = one_node();
    struct err e = {0};
    struct job *a = submit(s, "1", 0), *b = submit(s, "2", 0), *c = submit(s, "3", 0);
    CHECK(sched_set_deps(s, b, "afterok:1", &e) == 0);
    CHECK(sched_set_deps(s, c, "afternotok:1.host", &e) == 0);
    CHECK(strcmp(job_display_state(b), "SystemHold") == 0);
    CHECK(sched_deps_removed(s) == 0);
    sched_iterate(s, 0);
    CHECK(a->state == JOB_RUNNING && b->state == JOB_IDLE && c->state == JOB_IDLE);
    CHECK(strcmp(sched_job_blocked(s, b), "job has unsatisfied dependencies") == 0);
    sched_iterate(s, 10);
    CHECK(b->state == JOB_IDLE);
    a->exit_status = 0;
    sched_job_ended(s, a, 50);
    sched_iterate(s, 50);
    CHECK(b->state == JOB_RUNNING && b->start == 50);
    CHECK(c->state == JOB_REMOVED);
    CHECK(c->message && strstr(c->message, "afternotok:1 can never be satisfied"));
    CHECK(sched_deps_removed(s) == 1); /* the daemon records c's removal (ddep_sync) */
    sched_iterate(s, 60);
    CHECK(sched_deps_removed(s) == 1);
    sched_destroy(s);
}

/* A failed parent: afterok is removed, afternotok and afterany start. */
static void test_failed_parent(void)
{
    struct sched *s = one_node();
    struct err e = {0};
    struct job *a = submit(s, "1", 0), *b = submit(s, "2", 0), *c = submit(s, "3", 0),
               *d = submit(s, "4", 0);
    CHECK(sched_set_deps(s, b, "afterok:1", &e) == 0);
    CHECK(sched_set_deps(s, c, "afternotok:1", &e) == 0);
    CHECK(sched_set_deps(s, d, "afterany:1,afternotok:1", &e) == 0);
    sched_iterate(s, 0);
    a->exit_status = 3;
    sched_job_ended(s, a, 20);
    sched_iterate(s, 20);
    CHECK(b->state == JOB_REMOVED && strstr(b->message, "job 1 failed"));
    CHECK(c->state == JOB_RUNNING && c->start == 20);
    CHECK(d->state == JOB_RUNNING && d->start == 20);
    /* Judged at once: afterok on a job that failed is refused, nothing set. */
    struct job *f = submit(s, "5", 20);
    CHECK(sched_set_deps(s, f, "afterok:1", &e) == -1 && strstr(e.msg, "never"));
    CHECK(f->ndeps == 0 && f->holds == 0);
    CHECK(sched_set_deps(s, f, "afterok:99", &e) == -1 && strstr(e.msg, "not known"));
    CHECK(sched_set_deps(s, f, "after:5", &e) == -1);
    /* Met already: no hold at all. */
    CHECK(sched_set_deps(s, f, "afterany:1", &e) == 0 && f->holds == 0);
    sched_destroy(s);
}

/* after: the dependent starts in the same iteration as its parent; a
 * cancelled parent that never started removes it. Admins' release does not
 * lift a dependency hold. */
static void test_after_and_cancel(void)
{
    struct sched *s = one_node();
    struct err e = {0};
    struct job *a = submit(s, "1", 0), *b = submit(s, "2", 0);
    struct job *x = submit(s, "3", 0), *y = submit(s, "4", 0);
    CHECK(sched_hold(s, x, HOLD_USER, &e) == 0);
    CHECK(sched_set_deps(s, b, "after:1", &e) == 0);
    CHECK(sched_set_deps(s, y, "after:3", &e) == 0);
    CHECK(sched_release(s, y, HOLD_USER | HOLD_SYSTEM | HOLD_BATCH | HOLD_DEFER, 0, &e) == 0);
    sched_iterate(s, 0);
    CHECK(a->state == JOB_RUNNING && b->state == JOB_RUNNING && b->start == 0);
    CHECK(y->state == JOB_IDLE && (y->holds & HOLD_DEP));
    CHECK(sched_cancel(s, x, 5, &e) == 0);
    sched_iterate(s, 5);
    CHECK(y->state == JOB_REMOVED && strstr(y->message, "ended without starting"));
    sched_destroy(s);
}

/* A held dependent cancelled and forgotten before the next judging leaves
 * the held list (no freed job judged); the others still wait, then start. */
static void test_forget_held(void)
{
    struct sched *s = one_node();
    struct err e = {0};
    struct job *a = submit(s, "1", 0), *b = submit(s, "2", 0), *c = submit(s, "3", 0);
    CHECK(sched_set_deps(s, b, "afterany:1", &e) == 0);
    CHECK(sched_set_deps(s, c, "afterany:1", &e) == 0);
    sched_iterate(s, 0);
    CHECK(a->state == JOB_RUNNING && b->state == JOB_IDLE);
    CHECK(sched_cancel(s, b, 5, &e) == 0);
    CHECK(sched_job_forget(s, b) == 0);
    sched_iterate(s, 6);
    CHECK(c->state == JOB_IDLE && (c->holds & HOLD_DEP));
    sched_job_ended(s, a, 10);
    sched_iterate(s, 10);
    CHECK(c->state == JOB_RUNNING && c->start == 10);
    sched_destroy(s);
}

/* qalter -W depend=: replaced all or nothing (self, unknown, impossible,
 * a cycle through another job's unmet dependencies are refused and keep
 * the old ones); a replacement met already releases the dependency hold,
 * one that waits holds a job that was free. */
static void test_replace(void)
{
    struct sched *s = one_node();
    struct err e = {0};
    struct job *a = submit(s, "1", 0), *b = submit(s, "2", 0), *c = submit(s, "3", 0),
               *x = submit(s, "4", 0);
    CHECK(sched_hold(s, a, HOLD_USER, &e) == 0);
    CHECK(sched_set_deps(s, b, "afterok:1", &e) == 0);
    CHECK(sched_set_deps(s, c, "afterok:2", &e) == 0);
    CHECK(sched_replace_deps(s, b, "afterok:2", 0, &e) == -1 && strstr(e.msg, "itself"));
    CHECK(sched_replace_deps(s, b, "afterok:3", 0, &e) == -1 && strstr(e.msg, "cycle"));
    CHECK(sched_replace_deps(s, b, "afterok:99", 0, &e) == -1 && strstr(e.msg, "not known"));
    CHECK(sched_replace_deps(s, b, "bogus:1", 0, &e) == -1);
    CHECK(b->ndeps == 1 && strcmp(b->deps[0].on, "1") == 0 && (b->holds & HOLD_DEP));
    /* A cycle through a chain: 4 waits for 3, which waits for 2. */
    CHECK(sched_replace_deps(s, x, "afterany:3", 0, &e) == 0 && (x->holds & HOLD_DEP));
    CHECK(sched_replace_deps(s, b, "afterok:4", 0, &e) == -1 && strstr(e.msg, "cycle"));
    CHECK(sched_replace_deps(s, b, "afterany:1,afterok:1", 0, &e) == 0);
    CHECK(b->ndeps == 2 && (b->holds & HOLD_DEP));
    CHECK(sched_release(s, a, HOLD_USER, 0, &e) == 0);
    sched_iterate(s, 0);
    CHECK(a->state == JOB_RUNNING && b->state == JOB_IDLE);
    /* after:1 is met (1 runs): the hold goes at once, b starts. */
    CHECK(sched_replace_deps(s, b, "after:1", 1, &e) == 0 && !(b->holds & HOLD_DEP));
    sched_iterate(s, 1);
    CHECK(b->state == JOB_RUNNING);
    CHECK(sched_replace_deps(s, b, "afterany:1", 1, &e) == -1 && strstr(e.msg, "queued"));
    sched_job_ended(s, a, 10);
    sched_job_ended(s, b, 10);
    sched_iterate(s, 10);
    CHECK(c->state == JOB_RUNNING && x->state == JOB_IDLE);
    sched_destroy(s);
}

/* The driver's memory of ended jobs the scheduler no longer holds: "7"
 * completed (exit 0), "8" failed (exit 2), "9" removed before it started. */
static int past_jobs(void *ctx, const char *name, struct dep_past *p)
{
    (*(int *)ctx)++;
    if (strcmp(name, "7") == 0)
        *p = (struct dep_past){.start = 5, .exit_status = 0};
    else if (strcmp(name, "8") == 0)
        *p = (struct dep_past){.start = 5, .exit_status = 2};
    else if (strcmp(name, "9") == 0)
        *p = (struct dep_past){.removed = 1};
    else
        return 0;
    return 1;
}

/* A parent purged from the scheduler is judged by the driver's record of
 * it, at once; one the driver does not know either stays unknown. */
static void test_lookup(void)
{
    struct sched *s = one_node();
    struct err e = {0};
    int asked = 0;
    struct job *a = submit(s, "1", 0);
    CHECK(sched_set_deps(s, a, "afterok:7", &e) == -1 && strstr(e.msg, "not known"));
    sched_set_dep_lookup(s, past_jobs, &asked);
    CHECK(sched_deps_check(s, "afterok:7,afternotok:8,after:7,afterany:9", &e) == 0);
    CHECK(asked == 4);
    CHECK(sched_deps_check(s, "afterok:8", &e) == -1 && strstr(e.msg, "job 8 failed"));
    CHECK(sched_deps_check(s, "afternotok:7", &e) == -1 && strstr(e.msg, "job 7 succeeded"));
    CHECK(sched_deps_check(s, "after:9", &e) == -1 && strstr(e.msg, "ended without starting"));
    CHECK(sched_deps_check(s, "afterok:10", &e) == -1 && strstr(e.msg, "not known"));
    CHECK(sched_set_deps(s, a, "afterok:7", &e) == 0 && a->holds == 0);
    sched_iterate(s, 0);
    CHECK(a->state == JOB_RUNNING);
    sched_destroy(s);
}

int main(void)
{
    TEST_RUN(test_forget_held);
    TEST_RUN(test_parse);
    TEST_RUN(test_chain);
    TEST_RUN(test_failed_parent);
    TEST_RUN(test_after_and_cancel);
    TEST_RUN(test_replace);
    TEST_RUN(test_lookup);
    return TEST_DONE();
}
