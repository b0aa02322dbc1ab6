/*
 * t_acct — the accounting readers (trace/sacct.c, trace/tacct.c), what the
 * trace detector makes of them (trace/trace.c), the runtime-estimate models
 * (sim/estimate.c) and a saved run's round trip (sim/runsave.c). The whole
 * sample logs are tests/data/acct/, replayed by tests/integration/accounting.sh.
 */
#include <stdlib.h>
#include <unistd.h>

#include "sim/estimate.h"
#include "sim/runsave.h"
#include "test.h"
#include "trace/sacct.h"
#include "trace/tacct.h"
#include "trace/trace.h"
#include "util/mem.h"

#define T0 1790812800LL /* 2026-10-01T00:00:00Z */

/* What the callbacks keep of each record. */
struct seen {
    int n;
    char id[8][32];
    long long submit[8], start[8], end[8], limit[8], cpus[8];
    double mem[8];
    char per[8];
    int state[8];
    struct sacct_info info;
};

static int keep_sacct(void *ctx, const struct sacct_rec *r, struct err *err)
{
    struct seen *s = ctx;
    (void)err;
    if (s->n == 8)
        return 0;
    snprintf(s->id[s->n], sizeof s->id[0], "%s", r->id);
    s->submit[s->n] = r->submit;
    s->start[s->n] = r->start;
    s->end[s->n] = r->end;
    s->limit[s->n] = r->timelimit;
    s->cpus[s->n] = r->ncpus;
    s->mem[s->n] = r->reqmem_mb;
    s->per[s->n] = r->reqmem_per;
    s->state[s->n] = r->state;
    s->n++;
    return 0;
}

static int sacct_text(const char *text, struct seen *s, struct err *err)
{
    char path[32];
    write_temp_named(path, "t_acct", text, strlen(text));
    memset(s, 0, sizeof *s);
    int rc = sacct_scan(path, &s->info, keep_sacct, s, err);
    unlink(path);
    return rc;
}

static void test_sacct_formats(void)
{
    struct seen s;
    struct err e;
    const char *text =
        "JobID|Submit|Start|End|Timelimit|NCPUS|ReqMem|State\n"
        "1|2026-10-01T00:00:00|2026-10-01T00:00:10|2026-10-02T00:00:10|1-00:00:00|4|4000M|"
        "COMPLETED\n"
        "1.batch|2026-10-01T00:00:10|2026-10-01T00:00:10|2026-10-02T00:00:10||4||COMPLETED\n"
        "2_3|2028-02-29T23:59:59|Unknown|None|UNLIMITED|0|2Gc|PENDING\n"
        "4+1|1790812800|1790812810|1790812870|05:00|1|64Gn|CANCELLED by 1000\n"
        "5|2026-10-01T00:00:00|2026-10-01T00:00:00|2026-10-01T00:00:01|Partition_Limit|1|1.5K|"
        "TIMEOUT+\n";
    CHECK_EQ(sacct_text(text, &s, &e), 0);
    CHECK_EQ(s.n, 4);
    CHECK_EQ(s.info.steps, 1);
    CHECK_STR(s.id[0], "1");
    CHECK_EQ(s.submit[0], T0);
    CHECK_EQ(s.start[0], T0 + 10);
    CHECK_EQ(s.limit[0], 86400);
    CHECK(near(s.mem[0], 4000));
    CHECK_EQ(s.per[0], 'j');
    CHECK_STR(s.id[1], "2_3");
    CHECK_EQ(s.submit[1], 1835481599LL); /* a leap day, its last second */
    CHECK_EQ(s.start[1], -1);
    CHECK_EQ(s.end[1], -1);
    CHECK_EQ(s.limit[1], -1);
    CHECK_EQ(s.state[1], SACCT_PENDING);
    CHECK(near(s.mem[1], 2048));
    CHECK_EQ(s.per[1], 'c');
    CHECK_STR(s.id[2], "4+1");
    CHECK_EQ(s.start[2], T0 + 10); /* epoch seconds (SLURM_TIME_FORMAT=%s) */
    CHECK_EQ(s.limit[2], 300);     /* MM:SS */
    CHECK_EQ(s.state[2], SACCT_CANCELLED);
    CHECK(near(s.mem[2], 65536));
    CHECK_EQ(s.per[2], 'n');
    CHECK_EQ(s.limit[3], -1);
    CHECK_EQ(s.state[3], SACCT_TIMEOUT);
    CHECK(near(s.mem[3], 1.5 / 1024));
    CHECK(sacct_state_unfinished(SACCT_RUNNING) && !sacct_state_unfinished(SACCT_FAILED));
}

static void test_sacct_errors(void)
{
    static const struct {
        const char *text, *want;
    } cases[] = {
        {"JobID|Submit|Start|End|State|NCPUS\n1|2026-13-01T00:00:00|||COMPLETED|1\n",
         ":2: column Submit: '2026-13-01T00:00:00' is not a time"},
        {"JobID|Submit|Start|End|State|NCPUS\n1|2026-02-29T00:00:00|||COMPLETED|1\n",
         ":2: column Submit"}, /* 2026 is not a leap year */
        {"JobID|Submit|Start|End|State|NCPUS|Timelimit\n1||||COMPLETED|1|1-25:00:00\n",
         ":2: column Timelimit"},
        {"JobID|Submit|Start|End|State|NCPUS\n1||||DONE|1\n", ":2: column State: 'DONE'"},
        {"JobID|Submit|Start|End|State|NCPUS\n1||||COMPLETED|1|extra\n",
         ":2: 7 fields where the header has 6"},
        {"JobID|Submit|Start|End|State|NCPUS\n1||||COMPLETED|-1\n", ":2: column NCPUS"},
        {"JobID|Submit|Start|End|State|NCPUS|ReqMem\n1||||COMPLETED|1|lots\n", ":2: column ReqMem"},
        {"JobID|Submit|Start|End|State\n", ":1: the header has no NCPUS column"},
        {"JobID|Submit|Start|State|NCPUS\n", ":1: the header has no End column"},
        {"JobID|Submit|Start|End|State|NCPUS|jobid\n", ":1: column JobID given twice"},
        {"12|2026-10-01T00:00:00|x\n", ":1: no header line"},
        {"", "empty: no header line"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct seen s;
        struct err e = {""};
        CHECK_EQ(sacct_text(cases[i].text, &s, &e), -1);
        CHECK_HAS(e.msg, cases[i].want);
    }
}

/* What keep_tacct saw. */
struct tseen {
    int n;
    char id[4][40], account[4][16], user[4][16];
    long long procs[4][5], walltime[4], start[4], end[4];
    double mem[4];
    struct tacct_info info;
};

static int keep_tacct(void *ctx, const struct tacct_rec *r, struct err *err)
{
    struct tseen *s = ctx;
    (void)err;
    if (s->n == 4)
        return 0;
    snprintf(s->id[s->n], sizeof s->id[0], "%s", r->id);
    snprintf(s->account[s->n], sizeof s->account[0], "%s", r->account ? r->account : "-");
    snprintf(s->user[s->n], sizeof s->user[0], "%s", r->user ? r->user : "-");
    long long p[5] = {r->total_slots, r->exec_slots, r->req_procs, r->req_nodes_procs,
                      r->req_ncpus};
    memcpy(s->procs[s->n], p, sizeof p);
    s->walltime[s->n] = r->req_walltime;
    s->start[s->n] = r->start;
    s->end[s->n] = r->end;
    s->mem[s->n] = r->req_mem_mb;
    s->n++;
    return 0;
}

static int tacct_text(const char *text, struct tseen *s, struct err *err)
{
    char path[32];
    write_temp_named(path, "t_acct", text, strlen(text));
    memset(s, 0, sizeof *s);
    int rc = tacct_scan(path, &s->info, keep_tacct, s, err);
    unlink(path);
    return rc;
}

static void test_torque(void)
{
    struct tseen s;
    struct err e;
    const char *text =
        "10/01/2026 00:00:00;Q;1.srv;queue=batch\n"
        "10/01/2026 01:00:00;E;1.srv;user=al jobname=a b c queue=batch start=5 end=65 "
        "exec_host=n1/0-3,6+n2/0*2 Resource_List.nodes=2:ppn=4+big:ppn=2:gpu+3 "
        "Resource_List.walltime=1:02:03 Resource_List.mem=4gb account=\"p q\"\n"
        "10/01/2026 01:00:00;D;2.srv;requestor=x@y\n"
        "10/01/2026 01:00:00;E;2[7].srv;user=bo start=1 end=2 exec_host=n1/0+n1/1 "
        "Resource_List.walltime=100 Resource_List.mem=2048kb Exit_status=-11\n";
    CHECK_EQ(tacct_text(text, &s, &e), 0);
    CHECK_EQ(s.n, 2);
    CHECK_EQ(s.info.other, 2);
    CHECK_STR(s.id[0], "1.srv");
    CHECK_STR(s.user[0], "al");
    CHECK_STR(s.account[0], "p q");
    CHECK_EQ(s.procs[0][1], 7);         /* 0-3 and 6: five on n1, *2 on n2 */
    CHECK_EQ(s.procs[0][3], 8 + 2 + 3); /* 2:ppn=4, big:ppn=2, 3 */
    CHECK_EQ(s.walltime[0], 3723);
    CHECK(near(s.mem[0], 4096));
    CHECK_STR(s.id[1], "2[7].srv");
    CHECK_EQ(s.procs[1][1], 2);
    CHECK_EQ(s.walltime[1], 100);
    CHECK(near(s.mem[1], 2));
    static const struct {
        const char *text, *want;
    } bad[] = {
        {"hello\n", ":1: not an accounting record"},
        {"10/01/2026 00:00:00;E;1.s;start=x\n", ":1: start='x' is not a time"},
        {"10/01/2026 00:00:00;E;1.s;exec_host=n1\n", ":1: exec_host='n1' is not a host list"},
        {"10/01/2026 00:00:00;E;1.s;exec_host=n1/3-1\n", ":1: exec_host"},
        {"10/01/2026 00:00:00;E;1.s;Resource_List.mem=4parsecs\n", ":1: Resource_List.mem"},
        {"10/01/2026 00:00:00;E;1.s;Resource_List.walltime=1:2:3:4:5\n",
         ":1: Resource_List.walltime"},
        {"10/01/2026 00:00:00;E;1.s;account=\"open\n", ":1: account: the quote is not closed"},
        {"10/01/2026 00:00:00;E;;user=a\n", ":1: an exit record without a job id"},
        {"10/01/2026 00:00:00;E;1.s;words first=1\n", ":1: 'words first=1' is not key=value"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        struct err err = {""};
        CHECK_EQ(tacct_text(bad[i].text, &s, &err), -1);
        CHECK_HAS(err.msg, bad[i].want);
    }
}

static void test_detect(void)
{
    static const struct {
        const char *text;
        enum trace_kind kind;
    } cases[] = {
        {"\nJobID|User|Submit\n", TRACE_SACCT},
        {"jobidraw|state\n", TRACE_SACCT},
        {"10/01/2026 00:00:00;Q;1.s;queue=a\n", TRACE_TORQUE},
        {"; MaxProcs: 4\n1 0 0 1 1 -1 -1 1 1 -1 1 1 1 -1 1 -1 -1 -1\n", TRACE_SWF},
        {"12|alice|2026\n", TRACE_ERROR},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char path[32];
        struct err e = {""};
        write_temp_named(path, "t_acct", cases[i].text, strlen(cases[i].text));
        CHECK_EQ(trace_detect(path, &e), cases[i].kind);
        if (cases[i].kind == TRACE_ERROR)
            CHECK_HAS(e.msg, "sacct output without its header line");
        unlink(path);
    }
    struct err e;
    CHECK_EQ(trace_detect("tests/data", &e), TRACE_HOME);
}

static void test_estimates(void)
{
    struct estimate m;
    struct err e = {""};
    CHECK_EQ(estimate_parse("request", &m, &e), 0);
    CHECK_EQ(estimate_walltime(&m, 100, 3600, "1"), 3600);
    CHECK_EQ(estimate_parse("exact", &m, &e), 0);
    CHECK_EQ(estimate_walltime(&m, 100, 3600, "1"), 100);
    CHECK_EQ(estimate_walltime(&m, 0, 3600, "1"), 1);
    CHECK_EQ(estimate_parse("factor:2.5", &m, &e), 0);
    CHECK_EQ(estimate_walltime(&m, 101, 10, "1"), 253); /* ceil(252.5) */
    CHECK_EQ(estimate_parse("fmodel:1:7", &m, &e), 0);
    long a = estimate_walltime(&m, 1000, 10, "job-a"), b = estimate_walltime(&m, 1000, 10, "job-b");
    CHECK(a >= 1000 && a <= 2000 && b >= 1000 && b <= 2000 && a != b);
    CHECK_EQ(estimate_walltime(&m, 1000, 10, "job-a"), a); /* the same job, the same draw */
    struct estimate m2;
    CHECK_EQ(estimate_parse("fmodel:1:8", &m2, &e), 0);
    CHECK(estimate_walltime(&m2, 1000, 10, "job-a") != a); /* another seed, another draw */
    static const char *const bad[] = {"factor:0.5",  "factor:", "fmodel:-1", "fmodel:1:x",
                                      "fmodel:1:-3", "tsafrir", "exact:1"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        CHECK_EQ(estimate_parse(bad[i], &m, &e), -1);
}

static void test_runsave(void)
{
    struct report_group users[2] = {{xstrdup("alice"), 3, 30.5, 10.25, 1.5},
                                    {xstrdup("bob"), 1, 0.1, 0, 1}};
    struct runsave s = {.key = "--compare\x1fX=1,2\x1ftrace",
                        .k = 1,
                        .n = 2,
                        .policy = "BACKFILLPOLICY NONE",
                        .backfill = "NONE",
                        .resdepth = 3};
    s.r.jobs = 4;
    s.r.avg_wait = 1.0 / 3.0;
    s.r.quant[REPORT_BSLD][200] = 2.718281828459045;
    s.r.users = users;
    s.r.nusers = 2;
    plot_series_init(&s.series, 100, 10);
    plot_series_add(&s.series, 100, 2, 4, 1, 1);
    plot_series_add(&s.series, 135, 0, 4, 0, 0);
    s.jobs = "run,job_id\n1,7\n";
    s.njobs = strlen(s.jobs);
    FILE *f = tmpfile();
    struct err e;
    CHECK_EQ(runsave_write(f, &s, &e), 0);
    rewind(f);
    struct runsave t;
    CHECK_EQ(runsave_read(f, "saved", &t, &e), 0);
    CHECK_STR(t.key, s.key);
    CHECK_EQ(t.k, 1);
    CHECK_EQ(t.n, 2);
    CHECK_STR(t.backfill, "NONE");
    CHECK_EQ(t.resdepth, 3);
    CHECK(t.r.avg_wait == s.r.avg_wait); /* bit for bit */
    CHECK(t.r.quant[REPORT_BSLD][200] == s.r.quant[REPORT_BSLD][200]);
    CHECK_EQ(t.r.nusers, 2);
    CHECK_STR(t.r.users[1].name, "bob");
    CHECK(t.r.users[0].proc_seconds == 30.5 && t.r.users[0].jobs == 3);
    CHECK_EQ(t.series.n, s.series.n);
    CHECK(t.series.bins[1].busy == s.series.bins[1].busy);
    CHECK_STR(t.jobs, s.jobs);
    CHECK(t.batsim == NULL);
    runsave_free(&t);
    /* cut short: refused, nothing kept */
    long len = ftell(f);
    rewind(f);
    char *buf = xmalloc((size_t)len);
    CHECK_EQ(fread(buf, 1, (size_t)len, f), len);
    FILE *g = tmpfile();
    fwrite(buf, 1, (size_t)len - 9, g);
    rewind(g);
    struct err e2 = {""};
    CHECK_EQ(runsave_read(g, "short", &t, &e2), -1);
    CHECK_HAS(e2.msg, "short: cut short");
    CHECK(t.key == NULL);
    fclose(g);
    free(buf);
    fclose(f);
    plot_series_free(&s.series);
    free(users[0].name);
    free(users[1].name);
}

int main(void)
{
    TEST_RUN(test_sacct_formats);
    TEST_RUN(test_sacct_errors);
    TEST_RUN(test_torque);
    TEST_RUN(test_detect);
    TEST_RUN(test_estimates);
    TEST_RUN(test_runsave);
    return TEST_DONE();
}
