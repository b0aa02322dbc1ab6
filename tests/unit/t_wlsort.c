/*
 * t_wlsort — the order a replay queues its jobs in (workload_sort): a
 * trace's by submit time, then id, then line; a --commands script's
 * submissions (jobs with a wl_more) at one instant after the trace's, in
 * the script's line order whatever their names, an array's tasks by index
 * — as the daemon queues what qsub submits one line after the other.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/workload.h"
#include "test.h"

/* Job id submitted at t from line `line`; with more (a script's) when m. */
static void add(struct workload *wl, const char *id, long t, long line, const struct wl_more *m)
{
    struct wl_job j = {
        .submit = (uint32_t)t, .tasks = 1, .procs_per_task = 1, .line = (int32_t)line};
    wl_job_set_runtime(&j, 1);
    wl_job_set_walltime(&j, 1);
    workload_set_id(wl, &j, id);
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
        CHECK_STR(wl_job_id(&wl, &wl.jobs[i], (char[WL_ID_LEN]){0}), want[i]);
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
        CHECK_STR(wl_job_id(&wl, &wl.jobs[i], (char[WL_ID_LEN]){0}), want[i]);
    CHECK(wl.more[2] && wl.more[2]->after && !wl.more[3]);
    workload_free(&wl);
}

/* Ids are numbers when they are one's decimal text below WL_ID_TEXT, text
 * otherwise (leading zeros, a sign, letters, too large), none when NULL;
 * each reads back as it was given. */
static void test_id_kinds(void)
{
    struct workload wl;
    workload_init(&wl);
    static const char *const ids[] = {"0",  "7",           "2147483647", "2147483648", "007",
                                      "-1", "99999999999", "job.1",      "",           "1a"};
    static const int number[] = {1, 1, 1, 0, 0, 0, 0, 0, 0, 0};
    for (size_t i = 0; i < sizeof ids / sizeof *ids; i++) {
        struct wl_job j = {0};
        workload_set_id(&wl, &j, ids[i]);
        CHECK_EQ(j.id < WL_ID_TEXT, number[i]);
        CHECK_STR(wl_job_id(&wl, &j, (char[WL_ID_LEN]){0}), ids[i]);
    }
    struct wl_job none = {0};
    workload_set_id(&wl, &none, NULL);
    CHECK_EQ(none.id, WL_NO_ID);
    CHECK(wl_job_id(&wl, &none, (char[WL_ID_LEN]){0}) == NULL);
    CHECK_EQ(wl.nidtext, 7);
    workload_free(&wl);
}

/* The model of the order (the ids' texts as they were kept before ids
 * could be numbers): submit, then numbers by value when both ids are all
 * digits, else the texts byte by byte (no id first), then line. */
struct model_job {
    long submit, line;
    const char *id;
};

static int all_digits(const char *s)
{
    if (!*s)
        return 0;
    return strspn(s, "0123456789") == strlen(s);
}

static int model_cmp(const void *a, const void *b)
{
    const struct model_job *x = a, *y = b;
    if (x->submit != y->submit)
        return x->submit < y->submit ? -1 : 1;
    const char *p = x->id, *q = y->id;
    int c;
    if (!p || !q) {
        c = (p != NULL) - (q != NULL);
    } else {
        if (all_digits(p) && all_digits(q)) {
            p += strspn(p, "0");
            q += strspn(q, "0");
        }
        size_t lp = strlen(p), lq = strlen(q);
        c = all_digits(x->id) && all_digits(y->id) && lp != lq ? (lp < lq ? -1 : 1) : strcmp(p, q);
    }
    if (c)
        return c;
    return x->line < y->line ? -1 : (x->line > y->line);
}

/* Fixed-seed random workloads of numbers, near-numbers and names, with
 * and without recorded starts: workload_sort's order is the model's. */
static void test_random_ids(void)
{
    static const char *const pool[] = {"0",          "1",          "2",          "10", "09",  "9",
                                       "2147483647", "2147483648", "4294967296", "a",  "b10", "b9",
                                       "007",        NULL,         "-3",         "11"};
    uint64_t seed = 0x31f;
    for (int round = 0; round < 200; round++) {
        struct workload wl;
        workload_init(&wl);
        struct model_job m[40];
        size_t n = 1 + round % 40;
        for (size_t i = 0; i < n; i++) {
            seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
            m[i] = (struct model_job){(long)(seed >> 60) % 4, (long)i + 1,
                                      pool[(seed >> 33) % (sizeof pool / sizeof *pool)]};
            struct wl_job j = {.submit = (uint32_t)m[i].submit, .line = (int32_t)m[i].line};
            workload_set_id(&wl, &j, m[i].id);
            if (round % 2)
                workload_add_recorded(&wl, &j, (long)i);
            else
                workload_add(&wl, &j);
        }
        workload_sort(&wl);
        qsort(m, n, sizeof *m, model_cmp);
        for (size_t i = 0; i < n; i++) {
            const char *id = wl_job_id(&wl, &wl.jobs[i], (char[WL_ID_LEN]){0});
            CHECK_EQ(wl.jobs[i].line, m[i].line);
            CHECK(id == m[i].id || (id && m[i].id && strcmp(id, m[i].id) == 0));
            if (wl.rec_start)
                CHECK_EQ(wl.rec_start[i], m[i].line - 1);
        }
        workload_free(&wl);
    }
}

/* A number id's text, two digits a step (id_text), is printf's: every
 * length, the edges of each and fixed-seed random values. */
static void test_number_text(void)
{
    struct workload wl;
    workload_init(&wl);
    uint64_t seed = 0x7e11;
    for (int i = 0; i < 20000; i++) {
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        uint32_t v = i < 64 ? (uint32_t)i : (uint32_t)(seed >> 33) >> (seed >> 27 & 31);
        if (i % 1000 == 999)
            v = WL_ID_TEXT - 1;
        struct wl_job j = {.id = v};
        char want[WL_ID_LEN];
        snprintf(want, sizeof want, "%u", (unsigned)v);
        CHECK_STR(wl_job_id(&wl, &j, (char[WL_ID_LEN]){0}), want);
    }
    workload_free(&wl);
}

int main(void)
{
    TEST_RUN(test_script_order);
    TEST_RUN(test_trace_after);
    TEST_RUN(test_id_kinds);
    TEST_RUN(test_random_ids);
    TEST_RUN(test_number_text);
    return TEST_DONE();
}
