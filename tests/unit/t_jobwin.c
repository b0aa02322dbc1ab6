/*
 * t_jobwin — the engine's window of jobs by submission order (sched_job,
 * sched_find_job) as a long replay forgets the jobs that ended, in random
 * order, checked against a plain model. (Workload ids: t_wlsort.)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "test.h"

static struct sched *one_node(void)
{
    struct sched_policy p;
    sched_policy_default(&p);
    struct sched *s = sched_create(&p, NULL);
    struct node_spec n = {.name = "n0", .procs = 1, .state = NODE_UP};
    CHECK(sched_add_node(s, &n, NULL) == 0);
    return s;
}

static struct job *submit(struct sched *s, size_t i)
{
    char name[24];
    snprintf(name, sizeof name, "%zu", i);
    struct job_spec spec = {
        .name = name, .tasks = 1, .procs_per_task = 1, .walltime = 100, .submit = 0};
    struct job *j = sched_submit(s, &spec, NULL);
    CHECK(j != NULL && j->order == i);
    return j;
}

/* Every order answers its job until forgotten, NULL after; names too. */
static void check_model(struct sched *s, struct job **model, size_t n)
{
    size_t bad = 0;
    for (size_t i = 0; i < n + 2; i++)
        bad += sched_job(s, i) != (i < n ? model[i] : NULL);
    CHECK_EQ(bad, 0);
    for (size_t i = 0; i < n; i += 97) {
        char name[24];
        snprintf(name, sizeof name, "%zu", i);
        CHECK(sched_find_job(s, name) == model[i]);
    }
}

/* Jobs submitted and forgotten in random order (fixed seeds), mostly
 * oldest first as a replay ends them, the window moving past the
 * forgotten prefix: each order keeps its job. */
static void test_window(void)
{
    for (unsigned seed = 1; seed <= 4; seed++) {
        srand(seed);
        struct sched *s = one_node();
        size_t n = 0, cap = 40000;
        struct job **model = calloc(cap, sizeof *model);
        size_t oldest = 0;
        for (int step = 0; step < 60000; step++) {
            if (n < cap && rand() % 3) {
                model[n] = submit(s, n);
                n++;
            } else if (n > oldest) {
                /* Mostly near the oldest live job, sometimes anywhere. */
                size_t k = rand() % 4 ? oldest + (size_t)rand() % 8 : (size_t)rand() % n;
                if (k >= n || !model[k])
                    continue;
                struct err e = {0};
                CHECK(sched_cancel(s, model[k], 0, &e) == 0);
                CHECK(sched_job_forget(s, model[k]) == 0);
                model[k] = NULL;
                while (oldest < n && !model[oldest])
                    oldest++;
            }
            if (step % 5000 == 0)
                check_model(s, model, n);
        }
        check_model(s, model, n);
        sched_destroy(s);
        free(model);
    }
}

/* A forgotten job's order cannot be forgotten again, and sched_job of an
 * order before the window is NULL, not a neighbour. */
static void test_forget_twice(void)
{
    struct sched *s = one_node();
    struct job *j[3000];
    for (size_t i = 0; i < 3000; i++)
        j[i] = submit(s, i);
    struct err e = {0};
    for (size_t i = 0; i < 2500; i++) {
        CHECK(sched_cancel(s, j[i], 0, &e) == 0);
        CHECK(sched_job_forget(s, j[i]) == 0);
    }
    CHECK(sched_job(s, 0) == NULL && sched_job(s, 2499) == NULL);
    CHECK(sched_job(s, 2500) == j[2500] && sched_job(s, 2999) == j[2999]);
    CHECK(sched_find_job(s, "10") == NULL && sched_find_job(s, "2600") == j[2600]);
    struct job *k = submit(s, 3000);
    CHECK(sched_job(s, 3000) == k);
    sched_destroy(s);
}

int main(void)
{
    TEST_RUN(test_window);
    TEST_RUN(test_forget_twice);
    return TEST_DONE();
}
