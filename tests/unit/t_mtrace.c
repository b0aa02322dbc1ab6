/*
 * t_mtrace — Maui's trace formats: telling SWF and the two Maui traces
 * apart, the Admin Guide's sample workload and resource lines, 43- and
 * 44-field lines, [NONE] and bracket lists, the simulator's workload and
 * nodes built from them, and the errors that must name file and line.
 * Small hand-made traces live in tests/data/mtrace/.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim/workload_maui.h"
#include "test.h"
#include "trace/mtrace.h"
#include "trace/trace.h"

#define DATA "tests/data/mtrace/"

static void check_kind(const char *path, enum mtrace_kind want)
{
    struct err err = {""};
    enum mtrace_kind k = mtrace_detect(path, &err);
    CHECK_EQ(k, want);
    if (k != want)
        fprintf(stderr, "  %s: %s\n", path, err.msg);
}

static void test_detect(void)
{
    check_kind(DATA "jobs.wtrace", MTRACE_MAUI_WORKLOAD);
    check_kind(DATA "jobs.wtrace.gz", MTRACE_MAUI_WORKLOAD);
    check_kind(DATA "nodes.rtrace", MTRACE_MAUI_RESOURCE);
    check_kind(DATA "small.swf", MTRACE_SWF);
    check_kind(DATA "versiononly.wtrace", MTRACE_MAUI_WORKLOAD);
    /* No VERSION line: the field count alone tells. */
    check_kind(DATA "pbs.wtrace", MTRACE_MAUI_WORKLOAD);
    check_kind(DATA "badnum.rtrace", MTRACE_MAUI_RESOURCE);
    check_kind(DATA "semi.rtrace", MTRACE_MAUI_RESOURCE); /* fields separated by ';' */
    CHECK_STR(mtrace_kind_name(MTRACE_SWF), "SWF");
    CHECK_STR(mtrace_kind_name(MTRACE_MAUI_RESOURCE), "Maui resource");
}

static void check_detect_fails(const char *path, const char *want)
{
    struct err err = {""};
    CHECK_EQ(mtrace_detect(path, &err), MTRACE_ERROR);
    CHECK_HAS(err.msg, path);
    CHECK_HAS(err.msg, want);
}

static void test_detect_fails(void)
{
    check_detect_fails(DATA "no-such-file", "cannot open");
    check_detect_fails(DATA "comments.txt", "no job or node lines");
    check_detect_fails(DATA "unknown.txt", ":2: cannot tell the trace format: 5 fields");
}

/* A pipe (moku simulate <(zcat t.swf), /dev/stdin from a pipe) is refused
 * by its kind before it is opened: a trace is read more than once, and an
 * open of a FIFO without a writer would block. */
static void test_detect_pipe(void)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/t_mtrace_fifo.%ld", (long)getpid());
    unlink(path);
    CHECK_EQ(mkfifo(path, 0600), 0);
    struct err err = {""};
    CHECK_EQ(trace_detect(path, &err), TRACE_ERROR);
    CHECK_HAS(err.msg, path);
    CHECK_HAS(err.msg, "a pipe: a trace is read more than once");
    unlink(path);
    /* A regular file still goes by its content. */
    CHECK_EQ(trace_detect(DATA "small.swf", &err), TRACE_SWF);
}

/* The Admin Guide's sample line (line 3 of jobs.wtrace), field by field. */
static void check_docs_job(const struct mtrace_job *j)
{
    CHECK_STR(j->id, "SP02.2343.0");
    CHECK_EQ(j->nodes, 20);
    CHECK_EQ(j->tasks, 20);
    CHECK_STR(j->user, "570");
    CHECK_STR(j->group, "519");
    CHECK_EQ(j->walltime, 86400);
    CHECK_STR(j->state, "Removed");
    CHECK_STR(j->class_, "batch");
    CHECK_EQ(j->submit, 887343658);
    CHECK_EQ(j->dispatch, 889585185);
    CHECK_EQ(j->start, 889585185);
    CHECK_EQ(j->completion, 889585411);
    CHECK_STR(j->network, "ethernet");
    CHECK_STR(j->arch, "R6000");
    CHECK_STR(j->opsys, "AIX43");
    CHECK_STR(j->mem_cmp, ">=");
    CHECK_EQ(j->node_mem, 256);
    CHECK_STR(j->disk_cmp, ">=");
    CHECK_EQ(j->node_disk, 0);
    CHECK(j->features == NULL);
    CHECK_EQ(j->sys_queue_time, 889584538);
    CHECK_EQ(j->tasks_alloc, 20);
    CHECK_EQ(j->tasks_per_node, 0);
    CHECK_STR(j->qos, "0");
    CHECK(j->qos_given == NULL);
    CHECK_STR(j->flags, "2");
    CHECK_STR(j->account, "0");
    CHECK_STR(j->executable, "test.cmd");
    CHECK_STR(j->rm_ext, "1001");
    CHECK_EQ(j->bypass, 6);
    CHECK(fabs(j->ps_used - 678.08) < 1e-9);
    CHECK_STR(j->partition, "0");
    CHECK_EQ(j->procs_per_task, 1);
    CHECK_EQ(j->mem, 0);
    CHECK_EQ(j->disk, 0);
    CHECK_EQ(j->swap, 0);
    CHECK_EQ(j->start_date, 0);
    CHECK_EQ(j->end_date, 0);
    CHECK(j->alloc_hosts == NULL);
    CHECK_STR(j->rm, "0");
    CHECK(j->req_hosts == NULL && j->reservation == NULL);
    CHECK(j->node_set == NULL && j->app_sim == NULL);
    CHECK_EQ(j->nfields, 44);
    CHECK_EQ(j->line, 3);
}

/* A 44-field line with every kind of list (line 5). */
static void check_lists_job(const struct mtrace_job *j)
{
    CHECK_STR(j->id, "job.lists");
    CHECK_EQ(j->tasks, 8);        /* first of "8,16" */
    CHECK_EQ(j->walltime, 7200);  /* first of "7200,3600" */
    CHECK_STR(j->class_, "fast"); /* first of "[fast:2][batch:1]" */
    CHECK_EQ(j->node_mem, 1024);  /* "1G" */
    CHECK_STR(j->features, "gpu,ib");
    CHECK_STR(j->qos, "hi");
    CHECK_STR(j->qos_given, "lo");
    CHECK_STR(j->flags, "[PREEMPTEE]");
    CHECK_STR(j->account, "proj1");
    CHECK_STR(j->partition, "p1");
    CHECK_EQ(j->procs_per_task, 2);
    CHECK_EQ(j->mem, 512); /* "512M" */
    CHECK_EQ(j->disk, 100);
    CHECK_EQ(j->swap, 2); /* "2048K" */
    CHECK_STR(j->alloc_hosts, "n1:n2");
    CHECK_STR(j->rm, "pbs1");
    CHECK_EQ(j->line, 5);
}

static void check_workload(const struct mtrace_workload *w)
{
    CHECK_EQ(w->njobs, 5);
    CHECK_EQ(w->version, MTRACE_VERSION);
    if (w->njobs != 5)
        return;
    check_docs_job(&w->jobs[0]);
    check_lists_job(&w->jobs[2]);

    /* 43 fields: no reserved field; Maui drops the host list and RM. */
    const struct mtrace_job *j = &w->jobs[1];
    CHECK_STR(j->id, "job.43");
    CHECK_EQ(j->nfields, 43);
    CHECK(j->alloc_hosts == NULL && j->rm == NULL);
    CHECK_STR(j->user, "alice");
    CHECK_EQ(j->tasks_per_node, -1);
    CHECK(j->qos == NULL && j->qos_given == NULL);

    CHECK_STR(w->jobs[3].state, "NotRun");

    /* [NONE] everywhere it may stand: strings and lists become NULL. */
    j = &w->jobs[4];
    CHECK_STR(j->id, "job.none");
    CHECK(j->user == NULL && j->group == NULL && j->class_ == NULL);
    CHECK(j->features == NULL && j->qos == NULL && j->account == NULL);
    CHECK(j->partition == NULL && j->flags == NULL);
    CHECK_EQ(j->walltime, -1);
    CHECK_EQ(j->mem, -1);
    CHECK_EQ(j->line, 9); /* past a comment and a blank line */
}

static void test_read_workload(void)
{
    struct mtrace_workload w;
    struct err err = {""};
    CHECK_EQ(mtrace_read_workload(DATA "jobs.wtrace", &w, &err), 0);
    check_workload(&w);
    mtrace_workload_free(&w);
    CHECK(w.jobs == NULL && w.njobs == 0);
    mtrace_workload_free(&w); /* twice is safe */

    CHECK_EQ(mtrace_read_workload(DATA "jobs.wtrace.gz", &w, &err), 0);
    check_workload(&w);
    mtrace_workload_free(&w);
}

/* A file that must fail to read: err names path:line and what. */
static void check_workload_fails(const char *path, const char *want)
{
    struct mtrace_workload w;
    struct err err = {""};
    CHECK_EQ(mtrace_read_workload(path, &w, &err), -1);
    CHECK(w.jobs == NULL && w.njobs == 0 && w.strings == NULL);
    CHECK_HAS(err.msg, path);
    CHECK_HAS(err.msg, want);
}

static void test_workload_errors(void)
{
    check_workload_fails(DATA "short.wtrace", ":3: expected 43 or 44 fields, found 40");
    check_workload_fails(DATA "text.wtrace", ":2: field 9 (submit time) is not a number: 'noon'");
    check_workload_fails(DATA "pbs.wtrace", ":1: field 3 (tasks requested) is a PBS node spec");
    check_workload_fails(DATA "badlist.wtrace",
                         ":3: field 20 (required features) is not a list like [a][b]: '[gpu][ib'");
    check_workload_fails(DATA "badclass.wtrace", ":1: field 8 (class) has a class count");
    check_workload_fails(DATA "version.wtrace", ":1: trace version 231 is not supported");
    check_workload_fails(DATA "no-such-file", "cannot open");
}

static void test_from_maui(void)
{
    struct workload wl;
    struct err err = {""};
    CHECK_EQ(workload_from_maui(DATA "jobs.wtrace.gz", 0, &wl, &err), 0);
    CHECK_EQ(wl.njobs, 4);
    CHECK_EQ(wl.skipped, 1); /* NotRun */
    CHECK_EQ(wl.unix_start, -1);
    if (wl.njobs != 4) {
        workload_free(&wl);
        return;
    }
    /* Sorted by submit: none (500), lists (900), 43 (1000), docs. */
    const struct wl_job *j = &wl.jobs[0];
    const struct wl_names *n = wl_job_names(j);
    CHECK_STR(wl_job_id(&wl, j, (char[WL_ID_LEN]){0}), "job.none");
    CHECK_EQ(wl_job_runtime(j), 0);
    CHECK_EQ(wl_job_walltime(j), 1); /* no limit, no run time: at least 1 */
    CHECK_EQ(j->procs_per_task, 1);
    CHECK_EQ(n->mem, 0);
    CHECK(j->names == NULL); /* none given: no shared copy at all */
    CHECK(n->user == NULL && n->class_ == NULL && n->qos == NULL && n->features == NULL);

    j = &wl.jobs[1];
    n = wl_job_names(j);
    CHECK_STR(wl_job_id(&wl, j, (char[WL_ID_LEN]){0}), "job.lists");
    CHECK_EQ(j->submit, 900);
    CHECK_EQ(wl_job_runtime(j), 600);
    CHECK_EQ(wl_job_walltime(j), 7200);
    CHECK_EQ(j->tasks, 8);
    CHECK_EQ(j->procs_per_task, 2);
    CHECK_EQ(wl_job_procs(j), 16);
    CHECK_EQ(n->mem, 512);
    CHECK_EQ(n->disk, 100);
    CHECK_EQ(n->swap, 2);
    CHECK_EQ(n->nodes, 2);
    CHECK_STR(n->user, "bob");
    CHECK_STR(n->group, "physics");
    CHECK_STR(n->account, "proj1");
    CHECK_STR(n->class_, "fast");
    CHECK_STR(n->qos, "hi");
    CHECK_STR(n->partition, "p1");
    CHECK_STR(n->features, "gpu,ib");
    CHECK_EQ(j->line, 5);

    j = &wl.jobs[2];
    CHECK_STR(wl_job_id(&wl, j, (char[WL_ID_LEN]){0}), "job.43");
    CHECK_EQ(wl_job_runtime(j), 250); /* from dispatch 1150, later than start 1100 */
    CHECK_EQ(j->tasks, 4);
    CHECK_EQ(wl_job_names(j)->nodes, 1);

    j = &wl.jobs[3];
    n = wl_job_names(j);
    CHECK_STR(wl_job_id(&wl, j, (char[WL_ID_LEN]){0}), "SP02.2343.0");
    CHECK_EQ(j->submit, 887343658);
    CHECK_EQ(wl_job_runtime(j), 226);
    CHECK_EQ(wl_job_walltime(j), 86400);
    CHECK_EQ(j->tasks, 20);
    CHECK_EQ(n->nodes, 20);
    CHECK_STR(n->class_, "batch");
    CHECK_STR(n->user, "570");
    /* Maui reads QOS "0", account "0" and partition "0" as none. */
    CHECK(n->qos == NULL && n->account == NULL && n->partition == NULL);
    /* Strings are interned: the same text is the same pointer. */
    CHECK(wl_job_names(&wl.jobs[2])->class_ == n->class_);
    workload_free(&wl);
}

/* Names are shared: one copy per distinct combination, none for none. */
static void test_names_interned(void)
{
    struct workload wl;
    workload_init(&wl);
    const char *a = workload_intern(&wl, "alice"), *b = workload_intern(&wl, "bob");
    const char *g = workload_intern(&wl, "staff");
    CHECK(workload_names(&wl, &(struct wl_names){0}) == NULL);
    const struct wl_names *x = workload_names(&wl, &(struct wl_names){.user = a, .group = g});
    const struct wl_names *y = workload_names(&wl, &(struct wl_names){.user = b, .group = g});
    CHECK(x && y && x != y);
    CHECK(x == workload_names(&wl, &(struct wl_names){.user = a, .group = g}));
    CHECK(x != workload_names(&wl, &(struct wl_names){.user = a, .group = g, .advres = b}));
    /* Past the table's first growth, every one is still found. */
    char name[16];
    const struct wl_names *first[200];
    for (int i = 0; i < 200; i++) {
        snprintf(name, sizeof name, "u%d", i);
        first[i] = workload_names(&wl, &(struct wl_names){.user = workload_intern(&wl, name)});
    }
    int same = 0;
    for (int i = 0; i < 200; i++) {
        snprintf(name, sizeof name, "u%d", i);
        same +=
            first[i] == workload_names(&wl, &(struct wl_names){.user = workload_intern(&wl, name)});
    }
    CHECK_EQ(same, 200);
    CHECK(x == workload_names(&wl, &(struct wl_names){.user = a, .group = g}));
    CHECK_EQ(wl.nnames, 203);
    struct wl_job none = {.id = 1};
    CHECK(wl_job_names(&none)->user == NULL);
    workload_free(&wl);
}

static void test_from_maui_strict(void)
{
    struct workload wl;
    struct err err = {""};
    CHECK_EQ(workload_from_maui(DATA "jobs.wtrace", 1, &wl, &err), -1);
    CHECK_HAS(err.msg, DATA "jobs.wtrace:6: job job.notrun cannot be replayed");
    CHECK_HAS(err.msg, "NotRun");
    CHECK(wl.jobs == NULL && wl.njobs == 0);

    CHECK_EQ(workload_from_maui(DATA "text.wtrace", 0, &wl, &err), -1);
    CHECK_HAS(err.msg, DATA "text.wtrace:2: field 9");
    CHECK(wl.jobs == NULL && wl.njobs == 0);
}

static void test_read_resource(void)
{
    struct mtrace_resource r;
    struct err err = {""};
    CHECK_EQ(mtrace_read_resource(DATA "nodes.rtrace", &r, &err), 0);
    CHECK_EQ(r.nnodes, 5);
    CHECK_EQ(r.skipped, 1); /* the NETWORK line */
    if (r.nnodes != 5) {
        fprintf(stderr, "  %s\n", err.msg);
        mtrace_resource_free(&r);
        return;
    }
    /* The Admin Guide's sample line. */
    const struct mtrace_node *n = &r.nodes[0];
    CHECK_EQ(n->event, MTRACE_AVAILABLE);
    CHECK_EQ(n->event_time, 0);
    CHECK_STR(n->name, "cluster008");
    CHECK_STR(n->rm, "PBS1");
    CHECK_EQ(n->swap, 423132);
    CHECK_EQ(n->mem, 256);
    CHECK_EQ(n->disk, 7140);
    CHECK_EQ(n->procs, 2);
    CHECK_EQ(n->frame, -1);
    CHECK_EQ(n->slot, -1);
    CHECK_EQ(n->slots_used, 1);
    CHECK_STR(n->opsys, "LINUX62");
    CHECK_STR(n->arch, "AthlonK7");
    CHECK_STR(n->features, "s950,compute");
    CHECK_EQ(n->nclasses, 1);
    if (n->nclasses == 1) {
        CHECK_STR(n->classes[0].name, "batch");
        CHECK_EQ(n->classes[0].count, 2);
    }
    CHECK_STR(n->networks, "ethernet,atm");
    CHECK_STR(n->speed_or_gres, "1.67");
    CHECK_EQ(n->line, 3);

    n = &r.nodes[1];
    CHECK_EQ(n->event, MTRACE_DEFINED);
    CHECK(n->rm == NULL && n->features == NULL && n->classes == NULL && n->networks == NULL);
    CHECK_EQ(n->swap, 2048); /* "2G" */
    CHECK_EQ(n->mem, 4096);  /* "4096M", as Maui writes it */

    n = &r.nodes[2];
    CHECK_EQ(n->event, MTRACE_DRAINED);
    CHECK_STR(n->features, "fast"); /* a bare word */
    CHECK_EQ(n->nclasses, 2);
    if (n->nclasses == 2) {
        CHECK_STR(n->classes[0].name, "batch");
        CHECK_EQ(n->classes[0].count, -1);
        CHECK_STR(n->classes[1].name, "debug");
        CHECK_EQ(n->classes[1].count, 1);
    }
    CHECK_EQ(n->line, 6);

    n = &r.nodes[4]; /* fields separated by ';' */
    CHECK_STR(n->name, "n 4");
    CHECK_EQ(n->procs, 2);
    CHECK_EQ(n->disk, 300);
    CHECK_STR(n->features, "a");
    CHECK_EQ(n->line, 8);
    mtrace_resource_free(&r);
    mtrace_resource_free(&r);
}

static void check_resource_fails(const char *path, const char *want)
{
    struct mtrace_resource r;
    struct err err = {""};
    CHECK_EQ(mtrace_read_resource(path, &r, &err), -1);
    CHECK(r.nodes == NULL && r.nnodes == 0 && r.strings == NULL);
    CHECK_HAS(err.msg, path);
    CHECK_HAS(err.msg, want);
}

static void test_resource_errors(void)
{
    check_resource_fails(DATA "badstate.rtrace",
                         ":3: field 2 (event type) is not AVAILABLE, DEFINED or DRAINED: 'BROKEN'");
    check_resource_fails(DATA "badnum.rtrace", ":1: field 9 (processors) is not a number: 'two'");
    check_resource_fails(DATA "badmem.rtrace", ":1: field 7 (memory) is not a size in MB: '12Q'");
    check_resource_fails(DATA "fewnode.rtrace", ":2: expected 21 fields, found 18");
    check_resource_fails(DATA "badtype.rtrace", ":1: unknown resource type 'SWITCHNODE'");
    check_resource_fails(DATA "jobs.wtrace", ":3: unknown resource type 'SP02.2343.0'");
}

static void test_nodes(void)
{
    struct wl_nodes nodes;
    struct err err = {""};
    CHECK_EQ(workload_nodes_from_resource_trace(DATA "nodes.rtrace", &nodes, &err), 0);
    CHECK_EQ(nodes.n, 4);
    CHECK_EQ(nodes.skipped, 2); /* the NETWORK line and n0, which has no processors */
    if (nodes.n == 4) {
        const struct node_spec *s = &nodes.specs[0];
        CHECK_STR(s->name, "cluster008");
        CHECK_EQ(s->procs, 2);
        CHECK_EQ(s->mem, 256);
        CHECK_EQ(s->swap, 423132);
        CHECK_EQ(s->disk, 7140);
        CHECK_STR(s->features, "s950,compute");
        CHECK(s->partition == NULL);
        CHECK_EQ(s->state, NODE_UP);
        CHECK_EQ(nodes.specs[1].state, NODE_DOWN);
        s = &nodes.specs[2];
        CHECK_EQ(s->state, NODE_DRAINED);
        CHECK_EQ(s->swap, 0); /* -1 in the trace */
        CHECK_EQ(s->disk, 0);
        CHECK_STR(nodes.specs[3].name, "n 4");
    }
    workload_nodes_free(&nodes);
    CHECK(nodes.specs == NULL && nodes.n == 0);
    workload_nodes_free(&nodes);
    workload_nodes_free(NULL);

    CHECK_EQ(workload_nodes_from_resource_trace(DATA "dup.rtrace", &nodes, &err), -1);
    CHECK_HAS(err.msg, DATA "dup.rtrace:3: node 'n2' is defined twice (first at line 1)");
    CHECK(nodes.specs == NULL && nodes.n == 0);
    CHECK_EQ(workload_nodes_from_resource_trace(DATA "badstate.rtrace", &nodes, &err), -1);
    CHECK_HAS(err.msg, DATA "badstate.rtrace:3: field 2");
}

int main(void)
{
    TEST_RUN(test_detect);
    TEST_RUN(test_detect_fails);
    TEST_RUN(test_detect_pipe);
    TEST_RUN(test_read_workload);
    TEST_RUN(test_workload_errors);
    TEST_RUN(test_from_maui);
    TEST_RUN(test_names_interned);
    TEST_RUN(test_from_maui_strict);
    TEST_RUN(test_read_resource);
    TEST_RUN(test_resource_errors);
    TEST_RUN(test_nodes);
    return TEST_DONE();
}
