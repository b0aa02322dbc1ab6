/*
 * t_report — the simulation report and its chart: job classes and their
 * bounds, the per-class sums of report_compute, the JSON and text of one
 * run and of several, the CSV run column, the jobs CSV's rows through the
 * writer thread and in place (its thread not started) as written at the
 * end, and on a full disk; forgotten jobs' credentials; the
 * plot series' time integrals, bin merging, axis steps and the SVG
 * document.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cred.h"
#include "core/sched.h"
#include "engine/engine.h"
#include "sim/plot.h"
#include "sim/report.h"
#include "sim/rowq.h"
#include "sim/sim.h"
#include "test.h"
#include "util/err.h"
#include "util/obuf.h"

/* What f wrote, as a string the caller frees. */
#define CAPTURE(buf, call)                                                                         \
    do {                                                                                           \
        size_t len_;                                                                               \
        FILE *f = open_memstream(&(buf), &len_);                                                   \
        call;                                                                                      \
        fclose(f);                                                                                 \
    } while (0)

/* The same for the writers of util/obuf. */
#define OCAPTURE(buf, call)                                                                        \
    do {                                                                                           \
        size_t len_;                                                                               \
        struct obuf *f = obuf_mem();                                                               \
        call;                                                                                      \
        (buf) = strdup(obuf_data(f, &len_));                                                       \
        obuf_close(f, NULL);                                                                       \
    } while (0)

static size_t count(const char *s, const char *what)
{
    size_t n = 0;
    for (const char *p = s; (p = strstr(p, what)); p += strlen(what))
        n++;
    return n;
}

static void test_size_classes(void)
{
    static const long long v[] = {0, 1, 2, 4, 5, 16, 17, 64, 65, 256, 257, 100000};
    static const int want[] = {0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5};
    for (size_t i = 0; i < sizeof v / sizeof *v; i++)
        CHECK_EQ(report_size_class(v[i]), want[i]);
}

static void test_runtime_classes(void)
{
    static const long v[] = {-5, 0, 599, 600, 3599, 3600, 14399, 14400, 86399, 86400, 10000000};
    static const int want[] = {0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4};
    for (size_t i = 0; i < sizeof v / sizeof *v; i++)
        CHECK_EQ(report_runtime_class(v[i]), want[i]);
}

/* Each class starts where the one before ends; the last has no end. */
static void check_bounds(const struct report_bound *b, int n)
{
    for (int i = 0; i + 1 < n; i++) {
        CHECK(b[i].hi >= b[i].lo);
        CHECK_EQ(b[i + 1].lo, b[i].hi + 1);
    }
    CHECK_EQ(b[n - 1].hi, -1);
}

static void test_bounds_contiguous(void)
{
    check_bounds(report_size_bounds(), REPORT_NSIZE);
    check_bounds(report_runtime_bounds(), REPORT_NRUNTIME);
    CHECK_EQ(report_size_bounds()[0].lo, 1);
    CHECK_EQ(report_runtime_bounds()[0].lo, 0);
}

static void add(struct workload *wl, const char *id, long submit, long long procs, long wall)
{
    struct wl_job j = {.submit = submit,
                       .tasks = procs,
                       .procs_per_task = 1,
                       .walltime_lo = wall,
                       .runtime_lo = wall};
    workload_set_id(wl, &j, id);
    workload_add(wl, &j);
}

/* Five jobs: three ran (one of each of sizes 1, 5-16, >256), one was
 * rejected, one had not ended. */
static void small_replay(struct workload *wl, struct sim_outcome *out)
{
    static struct sim_detail reject = {.reason = "procs, more than the cluster"};
    workload_init(wl);
    add(wl, "1", 0, 1, 100);
    add(wl, "2", 0, 8, 7200);
    add(wl, "3", 100, 300, 100000);
    add(wl, "4", 100, 5000, 10);
    add(wl, "5", 200, 2, 50);
    out[0] = (struct sim_outcome){.start = 0, .end = 100};      /* wait 0, run 100 */
    out[1] = (struct sim_outcome){.start = 3600, .end = 10800}; /* wait 3600 */
    out[2] = (struct sim_outcome){.start = 100, .end = 100100, .killed = 1};
    out[3] = (struct sim_outcome){.start = -1, .end = -1, .rejected = 1, .more = &reject};
    out[4] = (struct sim_outcome){.start = 200, .end = -1};
}

static void test_compute_classes(void)
{
    struct workload wl;
    struct sim_outcome out[5];
    struct report r = {0};
    small_replay(&wl, out);
    report_compute(&r, &wl, out, 1000, NULL);
    CHECK_EQ(r.jobs, 3);
    CHECK_EQ(r.rejected, 1);
    size_t sum = 0;
    for (int i = 0; i < REPORT_NSIZE; i++)
        sum += r.by_size[i].jobs;
    CHECK_EQ(sum, r.jobs);
    sum = 0;
    for (int i = 0; i < REPORT_NRUNTIME; i++)
        sum += r.by_runtime[i].jobs;
    CHECK_EQ(sum, r.jobs);
    CHECK_EQ(r.by_size[0].jobs, 1);
    CHECK_EQ(r.by_size[2].jobs, 1);
    CHECK_EQ(r.by_size[5].jobs, 1);
    CHECK_EQ(r.by_size[1].jobs, 0); /* job 5 had not ended */
    CHECK(near(r.by_size[2].avg_wait, 3600));
    CHECK(near(r.by_size[2].avg_bsld, (3600.0 + 7200) / 7200));
    CHECK(near(r.by_size[1].avg_wait, 0));
    /* runtimes 100 (<10m), 7200 (1h-4h), 100000 (>=1d) */
    CHECK_EQ(r.by_runtime[0].jobs, 1);
    CHECK_EQ(r.by_runtime[2].jobs, 1);
    CHECK_EQ(r.by_runtime[4].jobs, 1);
    CHECK(near(r.by_runtime[0].avg_bsld, 1.0));
    CHECK(near(r.avg_bsld, (1.0 + 1.5 + 1.0) / 3));
    report_free(&r);
    workload_free(&wl);
}

/* Quantiles are nearest-rank over the measured jobs: waits 0, 0, 3600. */
static void test_quantiles(void)
{
    struct workload wl;
    struct sim_outcome out[5];
    struct report r = {0};
    small_replay(&wl, out);
    report_compute(&r, &wl, out, 1000, NULL);
    CHECK(near(report_percentile(&r, REPORT_WAIT, 0), 0));
    CHECK(near(report_percentile(&r, REPORT_WAIT, 50), 0));    /* rank ceil(1.5) = 2 */
    CHECK(near(report_percentile(&r, REPORT_WAIT, 66.5), 0));  /* rank ceil(1.995) = 2 */
    CHECK(near(report_percentile(&r, REPORT_WAIT, 67), 3600)); /* rank ceil(2.01) = 3 */
    CHECK(near(report_percentile(&r, REPORT_WAIT, 99), 3600));
    CHECK(near(report_percentile(&r, REPORT_WAIT, 100), 3600));
    CHECK(near(report_percentile(&r, REPORT_BSLD, 99), 1.5));
    CHECK(near(report_percentile(&r, REPORT_BSLD, 50), 1.0));
    /* turnarounds 100, 10800, 100000 */
    CHECK(near(report_percentile(&r, REPORT_TURNAROUND, 50), 10800));
    CHECK(near(report_percentile(&r, REPORT_TURNAROUND, 100), 100000));
    char *js = NULL;
    CAPTURE(js, report_print_json(f, &r, 0));
    CHECK_HAS(js, ",\"percentiles\":{\"wait\":{\"p50\":0,\"p95\":3600,\"p99\":3600},"
                  "\"bsld\":{\"p50\":1,\"p95\":1.5,\"p99\":1.5},"
                  "\"turnaround\":{\"p50\":10800,\"p95\":100000,\"p99\":100000}}");
    free(js);
    report_free(&r);
    /* No job measured: every quantile 0. */
    struct sim_outcome none[5];
    for (int i = 0; i < 5; i++)
        none[i] = (struct sim_outcome){.start = -1, .end = -1};
    report_compute(&r, &wl, none, 1000, NULL);
    CHECK(near(report_percentile(&r, REPORT_WAIT, 99), 0));
    CHECK_EQ(r.nusers, 0);
    report_free(&r);
    workload_free(&wl);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* A wait of case c: many zeros, many repeats, a few large, or (c = 1) spread
 * over every octave up to weeks, or (c = 2) all alike but one. */
static long random_wait(int c)
{
    if (c == 1)
        return rand() % 5 == 0 ? 0 : (long)(rand() % 1000 + 1) << (rand() % 20);
    if (c == 2)
        return rand() % 1000 == 0 ? 7 : 3600;
    return rand() % 3 == 0 ? 0 : rand() % 4 == 0 ? rand() % 100000 : rand() % 50;
}

/* The nearest-rank quantiles of v[0..n) as a full sort finds them, against
 * those of distribution d; the count of those that differ. */
static int quantiles_differ(const struct report *r, enum report_dist d, double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    int bad = 0;
    for (int q = 0; q < REPORT_NQUANT; q++) {
        size_t k = (size_t)ceil((double)q * (double)n / (REPORT_NQUANT - 1) - 1e-9);
        bad += r->quant[d][q] != v[k ? k - 1 : 0];
    }
    return bad;
}

/* Every kept quantile of the three distributions is the nearest-rank value
 * of a full sort, whatever the sizes, however many values are equal and
 * however they spread (the selection keeps only the keys of the buckets
 * that hold a rank, then works in place, partition by partition). */
static void test_quantiles_random(void)
{
    srand(31);
    const size_t sizes[] = {1, 2, 3, 7, 199, 200, 201, 401, 5000, 40000, 100000};
    for (size_t t = 0; t < 3 * sizeof sizes / sizeof *sizes; t++) {
        size_t n = sizes[t / 3];
        int c = (int)(t % 3);
        struct workload wl;
        workload_init(&wl);
        struct sim_outcome *out = calloc(n, sizeof *out);
        double *v[REPORT_NDIST];
        for (int d = 0; d < REPORT_NDIST; d++)
            v[d] = calloc(n, sizeof *v[d]);
        for (size_t i = 0; i < n; i++) {
            long run = rand() % 2 ? 100 : rand() % 200000;
            struct wl_job j = {.submit = (uint32_t)(rand() % 1000),
                               .tasks = 1,
                               .procs_per_task = 1,
                               .walltime_lo = 200000,
                               .runtime_lo = (uint32_t)run};
            workload_add(&wl, &j);
            long w = random_wait(c);
            out[i] = (struct sim_outcome){.start = j.submit + w, .end = j.submit + w + run};
            v[REPORT_WAIT][i] = (double)w;
            double b = (double)(w + run) / (run > 10 ? (double)run : 10.0);
            v[REPORT_BSLD][i] = b < 1 ? 1 : b;
            v[REPORT_TURNAROUND][i] = (double)(w + run);
        }
        struct report r = {0};
        report_compute(&r, &wl, out, 1000, NULL);
        for (int d = 0; d < REPORT_NDIST; d++) {
            CHECK_EQ(quantiles_differ(&r, (enum report_dist)d, v[d], n), 0);
            free(v[d]);
        }
        report_free(&r);
        workload_free(&wl);
        free(out);
    }
}

/* Groups by user and class from the workload's names, most
 * processor-seconds first; their jobs add up to the jobs measured. */
static void test_groups(void)
{
    struct workload wl;
    workload_init(&wl);
    const char *users[] = {"alice", "<b>bob</b>", "alice"};
    for (int i = 0; i < 3; i++) {
        struct wl_names nm = {.user = workload_intern(&wl, users[i]),
                              .class_ = i == 2 ? workload_intern(&wl, "long") : NULL};
        struct wl_job j = {.id = (uint32_t)i + 1,
                           .names = workload_names(&wl, &nm),
                           .submit = 0,
                           .tasks = i == 1 ? 100 : 1,
                           .procs_per_task = 1,
                           .walltime_lo = 1000,
                           .runtime_lo = 1000};
        workload_add(&wl, &j);
    }
    struct sim_outcome out[3];
    for (int i = 0; i < 3; i++)
        out[i] = (struct sim_outcome){.start = 10 * i, .end = 10 * i + 1000};
    struct report r = {0};
    report_compute(&r, &wl, out, 1000, NULL);
    CHECK_EQ(r.nusers, 2);
    CHECK(strcmp(r.users[0].name, "<b>bob</b>") == 0); /* 100 x 1000 processor-seconds */
    CHECK_EQ(r.users[1].jobs, 2);
    CHECK(near(r.users[1].avg_wait, 10)); /* waits 0 and 20 */
    CHECK(near(r.users[1].proc_seconds, 2000));
    CHECK_EQ(r.nclasses, 2);
    CHECK(strcmp(r.classes[0].name, "DEFAULT") == 0);
    CHECK_EQ(r.classes[0].jobs + r.classes[1].jobs, 3);
    char *js = NULL;
    CAPTURE(js, report_print_json(f, &r, 0));
    CHECK_HAS(js, ",\"by_user\":[{\"name\":\"<b>bob</b>\",\"jobs\":1,\"proc_seconds\":100000,");
    CHECK_HAS(js, "{\"name\":\"alice\",\"jobs\":2,\"proc_seconds\":2000,\"share\":0.019608,");
    CHECK_HAS(js, ",\"by_class\":[{\"name\":\"DEFAULT\",\"jobs\":2,");
    free(js);
    /* Computing again frees what the report held (LeakSanitizer tells). */
    report_compute(&r, &wl, out, 1000, NULL);
    CHECK_EQ(r.nusers, 2);
    report_free(&r);
    report_free(&r); /* twice is harmless */
    workload_free(&wl);
}

/* The jobs of a group named name, 0 if none. */
static size_t group_jobs(const struct report_group *g, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(g[i].name, name) == 0)
            return g[i].jobs;
    return 0;
}

/* Forgotten jobs (no engine record) are grouped by the names of the
 * scheduler's tables at their credential indices, else by the workload's:
 * in bursts of equal indices, as a user's jobs come, and across index
 * changes that keep one kind, against a per-job lookup. */
static void test_groups_forgotten(void)
{
    struct sched_policy pol;
    sched_policy_default(&pol);
    struct sched *s = sched_create(&pol, NULL);
    for (int i = 0; i < 6; i++) {
        char name[16];
        snprintf(name, sizeof name, "u%d", i);
        CHECK(cred_get(sched_creds(s, CRED_USER), name) != NULL);
        snprintf(name, sizeof name, "k%d", i % 3);
        CHECK(cred_get(sched_creds(s, CRED_CLASS), name) != NULL);
    }
    enum { N = 3000 };
    struct workload wl;
    workload_init(&wl);
    struct sim_outcome *out = calloc(N, sizeof *out);
    srand(31);
    unsigned short u = 0, c = 0;
    for (int i = 0; i < N; i++) {
        char name[16];
        snprintf(name, sizeof name, "w%d", rand() % 4);
        struct wl_names nm = {.user = workload_intern(&wl, name),
                              .class_ = rand() % 2 ? workload_intern(&wl, "wq") : NULL};
        struct wl_job j = {.names = workload_names(&wl, &nm),
                           .tasks = 1,
                           .procs_per_task = 1,
                           .walltime_lo = 100,
                           .runtime_lo = 10};
        workload_add(&wl, &j);
        if (rand() % 8 == 0) /* a new burst: indices past the tables too */
            u = (unsigned short)(rand() % 9);
        if (rand() % 8 == 0)
            c = (unsigned short)(rand() % 6);
        out[i] = (struct sim_outcome){
            .start = 5, .end = 15, .cred = {[CRED_USER] = u, [CRED_CLASS] = c}};
    }
    struct report r = {0};
    report_compute(&r, &wl, out, 10, s);
    CHECK_EQ(r.jobs, N);
    int bad = 0;
    size_t users = 0, classes = 0;
    for (size_t g = 0; g < r.nusers; g++) {
        size_t want = 0;
        for (int i = 0; i < N; i++) {
            const struct cred *cr = cred_at(sched_creds(s, CRED_USER), out[i].cred[CRED_USER]);
            want += strcmp(cr ? cr->name : wl_job_names(&wl.jobs[i])->user, r.users[g].name) == 0;
        }
        bad += group_jobs(r.users, r.nusers, r.users[g].name) != want;
        users += want;
    }
    for (size_t g = 0; g < r.nclasses; g++) {
        size_t want = 0;
        for (int i = 0; i < N; i++) {
            const struct cred *cr = cred_at(sched_creds(s, CRED_CLASS), out[i].cred[CRED_CLASS]);
            const char *wn = wl_job_names(&wl.jobs[i])->class_;
            want += strcmp(cr ? cr->name : wn ? wn : "DEFAULT", r.classes[g].name) == 0;
        }
        bad += group_jobs(r.classes, r.nclasses, r.classes[g].name) != want;
        classes += want;
    }
    CHECK_EQ(bad, 0);
    CHECK_EQ(users, N);
    CHECK_EQ(classes, N);
    report_free(&r);
    workload_free(&wl);
    free(out);
    sched_destroy(s);
}

static void test_json_classes(void)
{
    struct workload wl;
    struct sim_outcome out[5];
    struct report r = {0};
    small_replay(&wl, out);
    report_compute(&r, &wl, out, 1000, NULL);
    char *plain = NULL, *with = NULL;
    CAPTURE(plain, report_print_json(f, &r, 0));
    CAPTURE(with, report_print_json(f, &r, 1));
    CHECK(!strstr(plain, "classes"));
    CHECK_HAS(with, ",\"classes\":{\"size\":[{\"class\":\"1\",\"min\":1,\"max\":1,\"jobs\":1,");
    CHECK_HAS(with, "{\"class\":\">256\",\"min\":257,\"max\":null,\"jobs\":1,");
    CHECK_HAS(with, "\"runtime\":[{\"class\":\"<10m\",\"min\":0,\"max\":599,");
    /* The one-run keys come first, unchanged. */
    CHECK(strncmp(plain, with, strlen(plain) - 2) == 0);
    CHECK_EQ(with[strlen(with) - 1], '\n');
    free(plain);
    free(with);
    report_free(&r);
    workload_free(&wl);
}

static void test_classes_text(void)
{
    struct workload wl;
    struct sim_outcome out[5];
    struct report r = {0};
    small_replay(&wl, out);
    report_compute(&r, &wl, out, 1000, NULL);
    char *s = NULL;
    CAPTURE(s, report_print_classes_text(f, &r));
    CHECK_HAS(s, "by job size (processors)");
    CHECK_HAS(s, "by runtime");
    CHECK_HAS(s, "3600.0");
    CHECK(!strstr(s, " \n")); /* no line ends with blanks */
    free(s);
    report_free(&r);
    workload_free(&wl);
}

static void test_runs(void)
{
    struct workload wl;
    struct sim_outcome out[5];
    small_replay(&wl, out);
    const char *ov1[] = {"RESERVATIONDEPTH=2", "BACKFILLPOLICY=FIRSTFIT"};
    const char *ov2[] = {"RESERVATIONDEPTH=2", "BACKFILLPOLICY=NONE"};
    struct report_run runs[2] = {
        {.config = "dir/my \"site\".cfg",
         .overrides = ov1,
         .noverrides = 2,
         .varied = 1,
         .backfill = "FIRSTFIT",
         .resdepth = 2},
        {.config = NULL,
         .overrides = ov2,
         .noverrides = 2,
         .varied = 1,
         .backfill = "NONE",
         .resdepth = 2},
    };
    report_compute(&runs[0].r, &wl, out, 1000, NULL);
    report_compute(&runs[1].r, &wl, out, 1000, NULL);
    char *js = NULL, *txt = NULL;
    CAPTURE(js, report_print_runs_json(f, runs, 2));
    CHECK(strncmp(js,
                  "{\"runs\":[{\"config\":\"dir/my \\\"site\\\".cfg\",\"overrides\":"
                  "[\"RESERVATIONDEPTH=2\",\"BACKFILLPOLICY=FIRSTFIT\"],\"jobs\":3,",
                  strlen("{\"runs\":[{\"config\":\"dir/my \\\"site\\\".cfg\",\"overrides\":"
                         "[\"RESERVATIONDEPTH=2\",\"BACKFILLPOLICY=FIRSTFIT\"],\"jobs\":3,")) == 0);
    CHECK_HAS(js, "},{\"config\":null,\"overrides\":[");
    CHECK_EQ(count(js, "\"classes\":"), 2);
    CHECK_HAS(js, "]}\n");
    CAPTURE(txt, report_print_runs_text(f, "t.swf", runs, 2));
    CHECK_HAS(txt, "moku simulate: t.swf, 2 runs\n");
    CHECK_HAS(txt, "every run: --set RESERVATIONDEPTH=2\n");
    CHECK(!strstr(txt, "every run: --set BACKFILLPOLICY")); /* the varied line is a row */
    CHECK_HAS(txt, "my \"site\".cfg");
    CHECK_HAS(txt, "defaults");
    CHECK_HAS(txt, "BACKFILLPOLICY");
    CHECK_HAS(txt, "FIRSTFIT      NONE\n");
    CHECK_HAS(txt, "jobs simulated");
    CHECK_HAS(txt, "by runtime");
    CHECK(!strstr(txt, " \n"));
    free(js);
    free(txt);
    report_free(&runs[0].r);
    report_free(&runs[1].r);
    workload_free(&wl);
}

static void test_csv_run_column(void)
{
    struct workload wl;
    struct sim_outcome out[5];
    small_replay(&wl, out);
    char *one = NULL, *r1 = NULL, *r2 = NULL;
    OCAPTURE(one, report_write_jobs_csv(f, &wl, out, NULL, 0, 0, 1));
    OCAPTURE(r1, report_write_jobs_csv(f, &wl, out, NULL, 0, 1, 1));
    OCAPTURE(r2, report_write_jobs_csv(f, &wl, out, NULL, 0, 2, 0));
    CHECK(strncmp(one, "job_id,submit,", 14) == 0);
    CHECK(strncmp(r1, "run,job_id,submit,", 18) == 0);
    CHECK(!strstr(r2, "job_id")); /* the header comes with run 1 only */
    CHECK_HAS(one, "job_id,submit,start,end,wait,procs,walltime,runtime,backfilled,preempted,"
                   "user,group,account,class,qos,state,reason,nodes,segments\n");
    CHECK_HAS(r2, "2,2,0,3600,10800,3600,8,7200,7200,0,0,,,,,,completed,,,\n");
    CHECK_HAS(one, "\n3,100,100,100100,0,300,100000,100000,0,0,,,,,,killed,,,\n");
    /* every job has a row; a reason with a comma is quoted (RFC 4180) */
    CHECK_HAS(one, "\n4,100,,,,5000,10,10,0,0,,,,,,rejected,\"procs, more than the cluster\",,\n");
    CHECK_HAS(one, "\n5,200,200,,0,2,50,50,0,0,,,,,,running,,,\n");
    CHECK_EQ(count(one, "\n"), 6);
    CHECK_EQ(count(r2, "\n"), 5);
    free(one);
    free(r1);
    free(r2);
    workload_free(&wl);
}

/* A row's submit, start, end and wait against snprintf: 2,000 random jobs
 * (fixed seed), submit times of 1 to 10 digits (to 2^32 - 1), starts at
 * their submit time (whose digits the row copies) or later, ended, still
 * running or never started. */
static void test_csv_times(void)
{
    enum { N = 2000 };
    struct workload wl;
    workload_init(&wl);
    static struct sim_outcome out[N];
    srand(3119);
    for (int i = 0; i < N; i++) {
        long submit = i < 2 ? (i ? 4294967295L : 0) : (long)(test_digits(10) % 4294967296LL);
        long start = rand() % 2 ? submit : submit + (long)test_digits(9);
        char id[16];
        snprintf(id, sizeof id, "%d", i + 1);
        add(&wl, id, submit, 1 + rand() % 64, 1 + rand() % 100000);
        int kind = rand() % 4;
        out[i] = (struct sim_outcome){.start = start, .end = start + (long)test_digits(7)};
        if (kind == 1)
            out[i].end = -1; /* running */
        else if (kind == 2)
            out[i] = (struct sim_outcome){.start = -1, .end = -1}; /* never started */
    }
    char *rows = NULL;
    OCAPTURE(rows, report_write_jobs_csv(f, &wl, out, NULL, 0, 0, 1));
    const char *p = strchr(rows, '\n') + 1;
    int bad = 0;
    for (int i = 0; i < N && p; i++) {
        char want[128], num[3][24] = {"", "", ""};
        const struct sim_outcome *o = &out[i];
        if (o->start >= 0) {
            snprintf(num[0], sizeof num[0], "%ld", o->start);
            snprintf(num[2], sizeof num[2], "%ld", o->start - (long)wl.jobs[i].submit);
        }
        if (o->end >= 0)
            snprintf(num[1], sizeof num[1], "%ld", o->end);
        int n = snprintf(want, sizeof want, "%d,%ld,%s,%s,%s,", i + 1, (long)wl.jobs[i].submit,
                         num[0], num[1], num[2]);
        if (strncmp(p, want, (size_t)n) != 0 && bad++ < 5)
            fprintf(stderr, "job %d: want %s got %.60s\n", i + 1, want, p);
        p = strchr(p, '\n');
        p = p ? p + 1 : NULL;
    }
    CHECK_EQ(bad, 0);
    CHECK(p && *p == '\0');
    free(rows);
    workload_free(&wl);
}

/* Many jobs, of every kind a row writes (text ids, a quoted reason and
 * segments, rejected, running, never started), fixed-seed random. */
#define MANY 3000
static void many_jobs(struct workload *wl, struct sim_outcome *out, struct sim_detail *more)
{
    workload_init(wl);
    srand(31);
    for (size_t i = 0; i < MANY; i++) {
        char id[32];
        snprintf(id, sizeof id, i % 97 == 5 ? "job,%zu" : i % 13 == 0 ? "j%zu" : "%zu", i + 1);
        long submit = (long)i * 10, wall = 1 + rand() % 100000;
        add(wl, id, submit, 1 + rand() % 500, wall);
        long start = submit + rand() % 5000;
        int kind = rand() % 10;
        out[i] = (struct sim_outcome){.start = start, .end = start + wall, .backfilled = kind == 1};
        if (kind == 2) {
            more[i] = (struct sim_detail){.reason = "procs, more than the cluster"};
            out[i] = (struct sim_outcome){.start = -1, .end = -1, .rejected = 1, .more = &more[i]};
        } else if (kind == 3) {
            out[i].end = -1; /* running */
        } else if (kind == 4) {
            out[i] = (struct sim_outcome){.start = -1, .end = -1}; /* never started */
        } else if (kind == 5) {
            more[i] = (struct sim_detail){.segments = "10-20@\"a\",b", .preempted = 2};
            out[i].more = &more[i];
        }
    }
}

/* A node added after the first rows (the nodes' table made with them):
 * a later row on it names it, from its text, not from the table, which
 * holds the first nodes only; rows on the first nodes still name theirs. */
static void test_csv_node_added(void)
{
    struct sched_policy pol;
    sched_policy_default(&pol);
    struct sched *s = sched_create(&pol, NULL);
    for (int i = 0; i < 4; i++) {
        char name[16];
        snprintf(name, sizeof name, "n%d", i);
        struct node_spec spec = {.name = name, .procs = 2, .state = NODE_UP};
        CHECK(sched_add_node(s, &spec, NULL) == 0);
    }
    struct workload wl;
    workload_init(&wl);
    struct sim_outcome out[3];
    struct sim_detail more[3];
    static const struct job_slot slot[3] = {{.node = 1, .nnodes = 2, .procs = 1},
                                            {.node = 4, .nnodes = 1, .procs = 2},
                                            {.node = 0, .nnodes = 1, .procs = 1}};
    for (size_t i = 0; i < 3; i++) {
        char id[16];
        snprintf(id, sizeof id, "%zu", i + 1);
        add(&wl, id, (long)i, 1, 10);
        more[i] = (struct sim_detail){.one = slot[i], .nslots = 1};
        more[i].slots = &more[i].one;
        out[i] = (struct sim_outcome){.start = (long)i, .end = (long)i + 10, .more = &more[i]};
    }
    char *csv = NULL;
    struct node_spec late = {.name = "late", .procs = 2, .state = NODE_UP};
    OCAPTURE(csv, {
        struct report_jobs_csv *c = report_jobs_csv_open(f, &wl, s, 0, 1);
        report_jobs_csv_rows(c, out, 1);
        CHECK(sched_add_node(s, &late, NULL) == 0);
        report_jobs_csv_rows(c, out, 3);
        CHECK_EQ(report_jobs_csv_close(c, out, 0), 0);
    });
    CHECK_HAS(csv, ",n[1-2]:1,\n");
    CHECK_HAS(csv, ",late:2,\n");
    CHECK_HAS(csv, ",n0:1,\n");
    free(csv);
    workload_free(&wl);
    sched_destroy(s);
}

/* What a row reads from its job's detail: a resumed job's start is its
 * last run's (its wait from its first start), a count of preemptions past
 * one digit, a detail on a job that never started (no nodes: its slots
 * are not read), and a job without a detail. */
static void test_csv_details(void)
{
    struct workload wl;
    workload_init(&wl);
    for (int i = 0; i < 4; i++)
        add(&wl, (const char *[]){"1", "2", "3", "4"}[i], 10 * i, 1, 50);
    struct sim_detail more[3] = {
        {.resumed = 1, .run_start = 500, .preempted = 1, .segments = "100-300@n0:1"},
        {.preempted = 12},
        {.preempted = 3, .segments = "x", .nslots = 1}};
    more[2].slots = &more[2].one; /* a stale slot: never read, the job did not start */
    struct sim_outcome out[4] = {{.start = 100, .end = 550, .more = &more[0]},
                                 {.start = 20, .end = 70, .more = &more[1]},
                                 {.start = -1, .end = -1, .more = &more[2]},
                                 {.start = 30, .end = 80}};
    char *csv = NULL;
    OCAPTURE(csv, report_write_jobs_csv(f, &wl, out, NULL, 0, 0, 0));
    CHECK_STR(csv, "1,0,500,550,100,1,50,50,0,1,,,,,,completed,,,100-300@n0:1\n"
                   "2,10,20,70,10,1,50,50,0,12,,,,,,completed,,,\n"
                   "3,20,,,,1,50,50,0,3,,,,,,never_started,,,x\n"
                   "4,30,30,80,0,1,50,50,0,0,,,,,,completed,,,\n");
    free(csv);
    workload_free(&wl);
}

/* The rows handed as a replay hands them, in random runs, through the
 * writer thread (or in place when it cannot start). */
static void csv_in_runs(struct obuf *f, const struct workload *wl, const struct sim_outcome *out)
{
    struct report_jobs_csv *c = report_jobs_csv_open(f, wl, NULL, 1, 1);
    for (size_t to = 0; to < MANY;) {
        to += (size_t)(rand() % 700);
        report_jobs_csv_rows(c, out, to < MANY ? to : MANY);
    }
    CHECK_EQ(report_jobs_csv_close(c, out, 0), 0);
}

static int no_thread(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg)
{
    return EAGAIN;
}

/* The rows written by the writer thread, and in place when it cannot
 * start, are those written at the end in one go; a full disk is reported. */
static void test_csv_writer_thread(void)
{
    struct workload wl;
    static struct sim_outcome out[MANY];
    static struct sim_detail more[MANY];
    many_jobs(&wl, out, more);
    char *whole = NULL, *threaded = NULL, *inplace = NULL;
    OCAPTURE(whole, report_write_jobs_csv(f, &wl, out, NULL, 0, 1, 1));
    OCAPTURE(threaded, csv_in_runs(f, &wl, out));
    rowq_thread_create = no_thread;
    OCAPTURE(inplace, csv_in_runs(f, &wl, out));
    rowq_thread_create = pthread_create;
    CHECK_EQ(count(whole, "\n"), MANY + 1);
    CHECK_HAS(whole, "\n1,\"job,6\",50,");
    CHECK_HAS(whole, "\"10-20@\"\"a\"\",b\"\n");
    CHECK_STR(threaded, whole);
    CHECK_STR(inplace, whole);
    free(whole);
    free(threaded);
    free(inplace);
    struct err e;
    struct obuf *full = obuf_open("/dev/full", &e);
    if (full) {
        struct report_jobs_csv *c = report_jobs_csv_open(full, &wl, NULL, 0, 1);
        for (int i = 0; i < 10000; i++) /* past the buffer: the disk is found full */
            obuf_puts(full, "a row that will not fit on a full disk\n");
        for (size_t to = 0; to <= MANY; to += 100)
            report_jobs_csv_rows(c, out, to);
        CHECK_EQ(report_jobs_csv_close(c, out, 0), -1);
        CHECK_EQ(obuf_close(full, &e), -1);
        CHECK_STR(e.msg, "/dev/full: write failed: No space left on device");
    }
    workload_free(&wl);
}

static void test_tick_step(void)
{
    CHECK(near(plot_tick_step(100, 5), 20));
    CHECK(near(plot_tick_step(1, 5), 0.2));
    CHECK(near(plot_tick_step(0, 5), 0.2)); /* as for 1 */
    CHECK(near(plot_tick_step(7, 10), 1));
    CHECK(near(plot_tick_step(333, 10), 50));
    CHECK(near(plot_tick_step(28, 10), 5));
    CHECK(near(plot_tick_step(10, 10), 1));
    CHECK(near(plot_tick_step(332.9, 10), 50));
}

static void test_bin_width(void)
{
    CHECK_EQ(plot_bin_width(0, 1000, 1000), 1);
    CHECK_EQ(plot_bin_width(0, 1001, 1000), 2);
    CHECK_EQ(plot_bin_width(5, 5, 1000), 1);
    CHECK_EQ(plot_bin_width(10, 0, 1000), 1);
    CHECK_EQ(plot_bin_width(599850, 29363626, 1000), 28764);
}

/* The state holds from one sample to the next: bins average over time. */
static void test_series_integrals(void)
{
    struct plot_series p;
    double u, q;
    plot_series_init(&p, 0, 10);
    plot_series_add(&p, -50, 9, 10, 7, 0); /* before t0: not kept */
    plot_series_add(&p, 0, 5, 10, 2, 0);
    plot_series_add(&p, 15, 10, 10, 0, 0);
    plot_series_add(&p, 20, 0, 10, 0, 0);
    CHECK_EQ(p.n, 2);
    CHECK(plot_series_point(&p, 0, 1, &u, &q));
    CHECK(near(u, 0.5));
    CHECK(near(q, 2));
    CHECK(plot_series_point(&p, 1, 1, &u, &q));
    CHECK(near(u, 0.75));
    CHECK(near(q, 1));
    CHECK(plot_series_point(&p, 0, 2, &u, &q)); /* two bins as one point */
    CHECK(near(u, 0.625));
    CHECK(near(q, 1.5));
    CHECK(!plot_series_point(&p, 5, 1, &u, &q)); /* nothing there */
    plot_series_add(&p, 40, 0, 0, 0, 0);         /* no processor up */
    plot_series_add(&p, 50, 0, 0, 0, 0);
    CHECK(plot_series_point(&p, 4, 1, &u, &q));
    CHECK(near(u, 0));
    plot_series_free(&p);
}

/* Past PLOT_MAX_BINS, bins merge in pairs: fewer bins, the same integrals. */
static void test_series_merge(void)
{
    struct plot_series p;
    plot_series_init(&p, 0, 1);
    plot_series_add(&p, 0, 1, 2, 3, 0);
    plot_series_add(&p, 3L * PLOT_MAX_BINS, 0, 2, 0, 0);
    CHECK(p.n <= PLOT_MAX_BINS);
    CHECK_EQ(p.width, 4);
    double busy = 0, up = 0, idle = 0, span = 0;
    for (size_t i = 0; i < p.n; i++) {
        busy += p.bins[i].busy;
        up += p.bins[i].up;
        idle += p.bins[i].idle;
        span += p.bins[i].span;
    }
    CHECK(near(span, 3.0 * PLOT_MAX_BINS));
    CHECK(near(busy, span));
    CHECK(near(up, 2 * span));
    CHECK(near(idle, 3 * span));
    double u, q;
    CHECK(plot_series_point(&p, 0, 1, &u, &q));
    CHECK(near(u, 0.5));
    CHECK(near(q, 3));
    plot_series_free(&p);
}

/* The old way, one bin found by a division a step, as a model: bins merge
 * in pairs past PLOT_MAX_BINS; the state over [a, b) added in the same
 * floating-point operations. */
struct series_model {
    long t0, width;
    struct plot_bin bins[PLOT_MAX_BINS];
    size_t n;
};

static void model_add(struct series_model *m, long a, long b, long long busy, long long up,
                      size_t idle, size_t running)
{
    if (a < m->t0)
        a = m->t0;
    while (a < b) {
        size_t i;
        while ((i = (size_t)((a - m->t0) / m->width)) >= PLOT_MAX_BINS) {
            size_t n = (m->n + 1) / 2;
            for (size_t j = 0; j < n; j++) {
                struct plot_bin x = m->bins[2 * j], y = {0};
                if (2 * j + 1 < m->n)
                    y = m->bins[2 * j + 1];
                m->bins[j] = (struct plot_bin){x.busy + y.busy, x.up + y.up, x.idle + y.idle,
                                               x.running + y.running, x.span + y.span};
            }
            memset(&m->bins[n], 0, (m->n - n) * sizeof *m->bins);
            m->n = n;
            m->width *= 2;
        }
        m->n = i + 1 > m->n ? i + 1 : m->n;
        long end = m->t0 + ((long)i + 1) * m->width, e = b < end ? b : end;
        double d = (double)(e - a);
        m->bins[i].busy += (double)busy * d;
        m->bins[i].up += (double)up * d;
        m->bins[i].idle += (double)idle * d;
        m->bins[i].running += (double)running * d;
        m->bins[i].span += d;
        a = e;
    }
}

/* Samples at fixed-seed random times (many within a bin, some across
 * several, some past the last bin so that bins merge), before t0 too: the
 * series' bins are the model's, bit for bit (the bin kept from the last
 * sample is found again only while it is the one). */
static void test_series_random(void)
{
    static struct series_model m;
    uint64_t x = 0x9E3779B97F4A7C15ULL;
    for (int round = 0; round < 20; round++) {
        struct plot_series p;
        long t0 = round * 1000 - 5000, width = 1 + round % 7 * 13, t = t0 - 3 * width;
        plot_series_init(&p, t0, width);
        m = (struct series_model){.t0 = t0, .width = width};
        long long busy = 0, up = 0;
        size_t idle = 0, running = 0;
        int have = 0;
        long last = 0;
        for (int k = 0; k < 3000; k++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            unsigned gap = (unsigned)(x % 100);
            long step = gap < 70   ? (long)(x >> 8) % width       /* within a bin, or just past */
                        : gap < 97 ? (long)(x >> 8) % (8 * width) /* across a few */
                                   : (long)(x >> 8) % (400 * width); /* far: bins merge */
            t += step;
            if (have)
                model_add(&m, last, t, busy, up, idle, running);
            busy = (long long)(x >> 20) % 1000, up = 1000;
            idle = (size_t)(x >> 40) % 300, running = (size_t)(x >> 50) % 100;
            plot_series_add(&p, t, busy, up, idle, running);
            have = 1, last = t;
        }
        CHECK_EQ(p.n, m.n);
        CHECK_EQ(p.width, m.width);
        CHECK(p.n == m.n && memcmp(p.bins, m.bins, p.n * sizeof *p.bins) == 0);
        plot_series_free(&p);
    }
}

static void test_svg(void)
{
    struct plot_series a, b;
    plot_series_init(&a, 0, 3600);
    plot_series_init(&b, 0, 3600);
    for (long t = 0; t <= 10 * 86400; t += 1800) {
        plot_series_add(&a, t, t % 7200 ? 50 : 100, 100, (size_t)(t / 86400), 0);
        plot_series_add(&b, t, 25, 100, 3, 0);
    }
    struct plot_line lines[] = {{"first.cfg", &a}, {"R&D <new>", &b}};
    char *s = NULL;
    int rc = 0;
    CAPTURE(s, rc = plot_write_svg(f, "moku simulate: \"x\".swf", lines, 2));
    CHECK_EQ(rc, 0);
    CHECK(strncmp(s, "<?xml version=\"1.0\"", 19) == 0);
    CHECK_HAS(s, "<svg xmlns=\"http://www.w3.org/2000/svg\"");
    CHECK(strcmp(s + strlen(s) - 7, "</svg>\n") == 0);
    CHECK_EQ(count(s, "<polyline"), 8);                /* per run and panel: points, rolling mean */
    CHECK_EQ(count(s, "stroke-dasharray=\"8 4\""), 3); /* run 2: two means, its legend */
    CHECK_HAS(s, "R&amp;D &lt;new&gt;");
    CHECK_HAS(s, "rolling mean over 1 day");
    CHECK_HAS(s, "moku simulate: &quot;x&quot;.swf");
    CHECK_HAS(s, "time (days since the first submission)");
    CHECK_HAS(s, "utilization (%)");
    CHECK_HAS(s, "queue length (idle jobs)");
    /* The utilization axis runs to 100 %. */
    CHECK_HAS(s, ">100</text>");
    CHECK_EQ(count(s, "<text"), count(s, "</text>"));
    free(s);
    plot_series_free(&a);
    plot_series_free(&b);
}

/* A replay shorter than two days is drawn in hours. */
/* A replay shorter than a day still has its axis in days. */
static void test_svg_days(void)
{
    struct plot_series a;
    plot_series_init(&a, 1000, 60);
    plot_series_add(&a, 1000, 1, 4, 0, 0);
    plot_series_add(&a, 1000 + 5 * 3600, 0, 4, 0, 0);
    struct plot_line line = {"defaults", &a};
    char *s = NULL;
    CAPTURE(s, plot_write_svg(f, "t", &line, 1));
    CHECK_HAS(s, "time (days since the first submission)");
    CHECK_HAS(s, ">0.2</text>"); /* fractions of a day */
    CHECK_EQ(count(s, "<polyline"), 4);
    free(s);
    plot_series_free(&a);
}

/* The CSV of a series: a row per covered bin, time-weighted averages. */
static void test_series_csv(void)
{
    struct plot_series a, b;
    plot_series_init(&a, 0, 10);
    plot_series_init(&b, 0, 10);
    plot_series_add(&a, 0, 5, 10, 2, 1);
    plot_series_add(&a, 15, 10, 10, 0, 3);
    plot_series_add(&a, 20, 0, 10, 0, 0);
    plot_series_add(&b, 0, 1, 4, 1, 1);
    plot_series_add(&b, 5, 1, 4, 1, 1);
    struct plot_line lines[] = {{"a", &a}, {"b", &b}};
    char *one = NULL, *two = NULL;
    OCAPTURE(one, plot_write_csv(f, lines, 1));
    OCAPTURE(two, plot_write_csv(f, lines, 2));
    CHECK(strcmp(one, "time,width,covered,utilization,busy_procs,up_procs,queued,running\n"
                      "0,10,10,0.500000,5.000,10.000,2.000,1.000\n"
                      "10,10,10,0.750000,7.500,10.000,1.000,2.000\n") == 0);
    CHECK_HAS(two, "run,time,width,");
    CHECK_HAS(two, "\n2,0,10,5,0.250000,1.000,4.000,1.000,1.000\n"); /* 5 s of the bin covered */
    CHECK_EQ(count(two, "\n"), 4);
    free(one);
    free(two);
    /* Points and rolling means: a window of 20 s over 10 s bins is the
     * point and its neighbours. */
    struct plot_points pts;
    plot_points_make(&a, 30, &pts);
    CHECK_EQ(pts.n, 2);
    CHECK(pts.ok[0] && pts.ok[1]);
    CHECK(near(pts.util[0], 0.5));
    CHECK(near(pts.util_mean[0], 12.5 / 20));
    CHECK(near(pts.queue_mean[1], 1.5)); /* (20 + 10) job-seconds over 20 s */
    CHECK(near(pts.t[1], 15));           /* the middle of the second bin */
    plot_points_free(&pts);
    plot_series_free(&a);
    plot_series_free(&b);
}

/* Forty lines, no two with both colour and dash alike. */
static void test_colours_dashes(void)
{
    for (size_t i = 0; i < 40; i++)
        for (size_t j = i + 1; j < 40; j++)
            CHECK(strcmp(plot_colour(i), plot_colour(j)) || strcmp(plot_dash(i), plot_dash(j)));
    CHECK(plot_window(365 * 86400.0) == 7 * 86400L);
    CHECK(plot_window(10 * 86400.0) == 86400L);
    CHECK(plot_window(2000) == 100);
}

/* The credentials of forgotten jobs (report_job_creds), 5,000 in turn
 * (fixed seed): runs of the same indices (the lookup reused), changes in
 * one kind, indices past 16 bits (SIM_CRED_WIDE, in the detail), jobs not
 * ended (none), against the tables looked up for each. */
static void test_job_creds(void)
{
    struct sched_policy pol;
    sched_policy_default(&pol);
    struct sched *s = sched_create(&pol, NULL);
    for (int k = 0; k < CRED_NKINDS; k++)
        for (int i = 0; i < 8; i++) {
            char name[16];
            snprintf(name, sizeof name, "c%d", i);
            CHECK(cred_get(sched_creds(s, (enum cred_kind)k), name) != NULL);
        }
    struct report_creds rc = {.s = s};
    unsigned wide[CRED_NKINDS] = {0};
    struct sim_detail d = {.wide_cred = wide};
    struct sim_outcome o = {.start = 0, .end = 10};
    srand(31);
    int bad = 0;
    for (int i = 0; i < 5000; i++) {
        int r = rand() % 10;
        if (r < 3) { /* one kind changes */
            o.cred[rand() % CRED_NKINDS] = (unsigned short)(rand() % 8);
        } else if (r == 3) { /* a wide one: the detail holds the indices */
            for (int k = 0; k < CRED_NKINDS; k++)
                wide[k] = (unsigned)(rand() % 8);
            o.cred[rand() % CRED_NKINDS] = SIM_CRED_WIDE;
        } else if (r == 4) { /* back to narrow */
            for (int k = 0; k < CRED_NKINDS; k++)
                o.cred[k] = (unsigned short)(o.cred[k] == SIM_CRED_WIDE ? 0 : o.cred[k]);
        }
        o.more = &d;
        o.end = rand() % 50 ? 10 : -1;
        const struct cred *got[CRED_NKINDS];
        report_job_creds(&rc, &o, got);
        for (int k = 0; k < CRED_NKINDS; k++) {
            const struct cred *want = o.end < 0 ? NULL
                                                : cred_at(sched_creds(s, (enum cred_kind)k),
                                                          sim_outcome_cred(&o, (enum cred_kind)k));
            bad += got[k] != want;
        }
        if (rand() % 7 == 0) /* a wide one's indices change under the same raw ones */
            for (int k = 0; k < CRED_NKINDS; k++)
                wide[k] = (unsigned)(rand() % 8);
    }
    CHECK_EQ(bad, 0);
    sched_destroy(s);
}

/* Field k (from 0) of a CSV line without quotes, into buf (n bytes). */
static void csv_nth(const char *line, int k, char *buf, size_t n)
{
    for (; k > 0 && line; k--)
        line = strchr(line, ',') ? strchr(line, ',') + 1 : NULL;
    size_t len = line ? strcspn(line, ",\n") : 0;
    len = len < n - 1 ? len : n - 1;
    memcpy(buf, line ? line : "", len);
    buf[len] = '\0';
}

/* A jobs CSV's credential columns for forgotten jobs, 4,000 rows through
 * the writer thread in random runs (fixed seed): runs of the same raw
 * indices (a row then only says it has the last row's), changes in one
 * kind, wide indices (in the detail), jobs not ended in between (no
 * credentials), and a name too long to be copied in place; each row's
 * fields against the names its indices give. */
#define CRED_ROWS 4000
static void test_csv_forgotten_creds(void)
{
    struct sched_policy pol;
    sched_policy_default(&pol);
    struct sched *s = sched_create(&pol, NULL);
    char longname[700];
    unsigned nidx = 0;
    memset(longname, 'x', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    for (int k = 0; k < CRED_NKINDS; k++)
        for (int i = 0; i < 8; i++) {
            char name[16];
            snprintf(name, sizeof name, "c%d", i);
            struct cred *cr = cred_get(sched_creds(s, (enum cred_kind)k), i == 7 ? longname : name);
            CHECK(cr != NULL);
            nidx = cr->index + 1; /* the same in every kind: the long name's is the last */
        }
    struct workload wl;
    workload_init(&wl);
    static struct sim_outcome out[CRED_ROWS];
    static struct sim_detail more[CRED_ROWS];
    static unsigned wide[CRED_ROWS][CRED_NKINDS];
    srand(31);
    unsigned short raw[CRED_NKINDS] = {0};
    for (size_t i = 0; i < CRED_ROWS; i++) {
        char id[16];
        snprintf(id, sizeof id, "%zu", i + 1);
        add(&wl, id, (long)i, 1, 10);
        int r = rand() % 10;
        if (r < 3)
            raw[rand() % CRED_NKINDS] = (unsigned short)(rand() % nidx);
        out[i] = (struct sim_outcome){.start = (long)i, .end = (long)i + 10};
        memcpy(out[i].cred, raw, sizeof raw);
        if (r == 3) { /* wide: the same raw indices, others in the detail */
            for (int k = 0; k < CRED_NKINDS; k++)
                wide[i][k] = (unsigned)(rand() % nidx);
            out[i].cred[rand() % CRED_NKINDS] = SIM_CRED_WIDE;
            more[i] = (struct sim_detail){.wide_cred = wide[i]};
            out[i].more = &more[i];
        } else if (r == 4) {
            out[i].end = -1; /* running: no credentials */
        }
    }
    char *csv = NULL;
    OCAPTURE(csv, {
        struct report_jobs_csv *c = report_jobs_csv_open(f, &wl, s, 0, 1);
        for (size_t to = 0; to < CRED_ROWS;) {
            to += (size_t)(rand() % 300);
            report_jobs_csv_rows(c, out, to < CRED_ROWS ? to : CRED_ROWS);
        }
        CHECK_EQ(report_jobs_csv_close(c, out, 0), 0);
    });
    const char *line = strchr(csv, '\n') + 1;
    int bad = 0;
    for (size_t i = 0; i < CRED_ROWS && line; i++) {
        for (int k = 0; k < CRED_NKINDS; k++) {
            char got[800];
            csv_nth(line, 10 + k, got, sizeof got);
            unsigned idx = sim_outcome_cred(&out[i], (enum cred_kind)k);
            const char *want = out[i].end < 0 || (k == CRED_ACCOUNT && idx == 0)
                                   ? ""
                                   : cred_at(sched_creds(s, (enum cred_kind)k), idx)->name;
            bad += strcmp(got, want) != 0;
        }
        line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL;
    }
    CHECK_EQ(bad, 0);
    CHECK_EQ(count(csv, "\n"), CRED_ROWS + 1);
    CHECK_HAS(csv, longname);
    free(csv);
    workload_free(&wl);
    sched_destroy(s);
}

int main(void)
{
    TEST_RUN(test_size_classes);
    TEST_RUN(test_runtime_classes);
    TEST_RUN(test_bounds_contiguous);
    TEST_RUN(test_compute_classes);
    TEST_RUN(test_quantiles);
    TEST_RUN(test_groups);
    TEST_RUN(test_groups_forgotten);
    TEST_RUN(test_json_classes);
    TEST_RUN(test_classes_text);
    TEST_RUN(test_runs);
    TEST_RUN(test_csv_run_column);
    TEST_RUN(test_csv_times);
    TEST_RUN(test_csv_writer_thread);
    TEST_RUN(test_csv_node_added);
    TEST_RUN(test_csv_details);
    TEST_RUN(test_tick_step);
    TEST_RUN(test_bin_width);
    TEST_RUN(test_series_integrals);
    TEST_RUN(test_series_merge);
    TEST_RUN(test_series_random);
    TEST_RUN(test_svg);
    TEST_RUN(test_quantiles_random);
    TEST_RUN(test_svg_days);
    TEST_RUN(test_series_csv);
    TEST_RUN(test_colours_dashes);
    TEST_RUN(test_job_creds);
    TEST_RUN(test_csv_forgotten_creds);
    return TEST_DONE();
}
