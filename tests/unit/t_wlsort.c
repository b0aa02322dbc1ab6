/*
 * t_wlsort — the order a replay queues its jobs in (workload_sort): a
 * trace's by submit time, then id, then line; a --commands script's
 * submissions (jobs with a wl_more) at one instant after the trace's, in
 * the script's line order whatever their names, an array's tasks by index
 * — as the daemon queues what qsub submits one line after the other.
 */
#include <stdio.h>
#include <string.h>

#include "sim/workload.h"
#include "test.h"

/* Job id submitted at t from line `line`; with more (a script's) when m. */
static void add(struct workload *wl, const char *id, long t, long line, const struct wl_more *m)
{
    struct wl_job j = {.id_ = workload_id(wl, id),
                       .submit = t,
                       .tasks = 1,
                       .procs_per_task = 1,
                       .line = (int32_t)line};
    wl_job_set_runtime(&j, 1);
    wl_job_set_walltime(&j, 1);
    if (m)
        workload_add_more(wl, &j, m);
    else
        workload_add(wl, &j);
}

static void test_script_order(void)
{
    struct workload wl;
    workload_init(&wl);
    add(&wl, "20", 10, 2, NULL);
    add(&wl, "3", 10, 1, NULL);
    struct wl_more m = {.exit_status = -1, .script = 1};
    add(&wl, "zeta", 10, 4, &m); /* the script's order: zeta, then alpha */
    add(&wl, "alpha", 10, 5, &m);
    struct wl_more t2 = {.array = "arr", .index = 2, .exit_status = -1, .script = 1};
    struct wl_more t1 = {.array = "arr", .index = 1, .exit_status = -1, .script = 1};
    add(&wl, "arr[2]", 10, 6, &t2);
    add(&wl, "arr[1]", 10, 6, &t1);
    add(&wl, "early", 5, 3, &m); /* an earlier time first, whatever its line */
    add(&wl, "1", 20, 7, NULL);
    workload_sort(&wl);
    static const char *const want[] = {"early", "3",      "20",     "zeta",
                                       "alpha", "arr[1]", "arr[2]", "1"};
    CHECK_EQ(wl.njobs, 8);
    for (size_t i = 0; i < wl.njobs && i < 8; i++)
        CHECK_STR(wl_job_id(&wl.jobs[i], (char[WL_ID_BUF]){0}), want[i]);
    /* The mores moved with their jobs. */
    CHECK(wl.more[0] != NULL && wl.more[1] == NULL && wl.more[5] && wl.more[5]->index == 1);
    workload_free(&wl);
}

/* A trace's job that names a preceding job (SWF field 17) has a more, but
 * is a trace's job: at its instant it queues by id among the trace's, not
 * after them (swf_deps.sh's jobs 3 and 4 were written 4, 3). */
static void test_trace_after(void)
{
    struct workload wl;
    workload_init(&wl);
    add(&wl, "1", 0, 1, NULL);
    struct wl_more after = {.after = "1", .exit_status = -1};
    add(&wl, "3", 20, 3, &after);
    add(&wl, "4", 20, 4, NULL);
    add(&wl, "2", 10, 2, NULL);
    workload_sort(&wl);
    static const char *const want[] = {"1", "2", "3", "4"};
    CHECK_EQ(wl.njobs, 4);
    for (size_t i = 0; i < wl.njobs && i < 4; i++)
        CHECK_STR(wl_job_id(&wl.jobs[i], (char[WL_ID_BUF]){0}), want[i]);
    CHECK(wl.more[2] && wl.more[2]->after && !wl.more[3]);
    workload_free(&wl);
}

int main(void)
{
    TEST_RUN(test_script_order);
    TEST_RUN(test_trace_after);
    return TEST_DONE();
}
