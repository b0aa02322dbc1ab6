/*
 * workload_maui — see workload_maui.h.
 *
 * Maui's simulator (MTraceLoadWorkload in MSim mode) does not look at the
 * completion state: it replays every job, giving one that never ran a run
 * time of max(1, completion - start). moku skips such jobs instead, as its
 * SWF loader skips records it cannot replay, and counts them; --strict
 * makes them errors. Maui also runs a zero-length job for one second; moku
 * keeps the trace's 0.
 */
#include "sim/workload_maui.h"

#include <stdlib.h>
#include <string.h>

#include "util/mem.h"
#include "util/strmap.h"

/* Start as Maui takes it: the later of dispatch and start. */
static long start_of(const struct mtrace_job *j)
{
    return j->dispatch > j->start ? j->dispatch : j->start;
}

/* Why a job cannot be replayed, or NULL if it can. */
static const char *unusable(const struct mtrace_job *j)
{
    if (j->state && strcmp(j->state, "NotRun") == 0)
        return "it never ran (state NotRun)";
    if (start_of(j) <= 0)
        return "it has no start time";
    if (j->completion < start_of(j))
        return "it completed before it started";
    if (j->tasks <= 0)
        return "it asks for no tasks";
    if (j->submit < 0)
        return "negative submit time";
    return NULL;
}

/* s unless it is one of the words Maui reads as "none" (NULL-terminated). */
static const char *unless(const char *s, const char *const *none)
{
    for (; s && *none; none++)
        if (strcmp(s, *none) == 0)
            return NULL;
    return s;
}

static long runtime_of(const struct mtrace_job *j)
{
    return j->completion - start_of(j);
}

static long walltime_of(const struct mtrace_job *j)
{
    long w = j->walltime > 0 ? j->walltime : runtime_of(j);
    return w > 0 ? w : 1;
}

static long ppt_of(const struct mtrace_job *j)
{
    return j->procs_per_task > 0 ? j->procs_per_task : 1;
}

/* j's record; workload_check_job passed. */
static struct wl_job job_of(struct workload *wl, const struct mtrace_job *j)
{
    static const char *const no_account[] = {"0", NULL};
    static const char *const no_qos[] = {"0", "-1", "DEFAULT", NULL};
    static const char *const no_partition[] = {"0", "DEFAULT", "[DEFAULT]", NULL};
    static const char *const no_resv[] = {"0", "-", NULL};
    struct wl_job w = {
        .submit = (uint32_t)j->submit,
        .tasks = (int32_t)j->tasks,
        .procs_per_task = (unsigned)ppt_of(j),
        .names =
            workload_names(wl,
                           &(struct wl_names){
                               .user = workload_intern(wl, j->user),
                               .group = workload_intern(wl, j->group),
                               .account = workload_intern(wl, unless(j->account, no_account)),
                               .class_ = workload_intern(wl, j->class_),
                               .qos = workload_intern(wl, unless(j->qos, no_qos)),
                               .partition = workload_intern(wl, unless(j->partition, no_partition)),
                               .features = workload_intern(wl, j->features),
                               .advres = workload_intern(wl, unless(j->reservation, no_resv)),
                               .mem = j->mem > 0 ? j->mem : 0,
                               .swap = j->swap > 0 ? j->swap : 0,
                               .disk = j->disk > 0 ? j->disk : 0,
                               .nodes = j->nodes > 0 ? j->nodes : 0,
                           }),
        .preemptee = j->flags && strstr(j->flags, "[PREEMPTEE]") != NULL,
        .line = (int32_t)j->line,
    };
    wl_job_set_runtime(&w, runtime_of(j));
    wl_job_set_walltime(&w, walltime_of(j));
    workload_set_id(wl, &w, j->id);
    return w;
}

int workload_from_maui(const char *path, int strict, struct workload *wl, struct err *err)
{
    struct mtrace_workload t;
    workload_init(wl);
    if (mtrace_read_workload(path, &t, err) < 0) {
        workload_free(wl);
        return -1;
    }
    for (size_t i = 0; i < t.njobs; i++) {
        const struct mtrace_job *j = &t.jobs[i];
        const char *why = unusable(j);
        if (why && strict) {
            err_set(err, "%s:%ld: job %s cannot be replayed: %s", path, j->line, j->id, why);
            mtrace_workload_free(&t);
            workload_free(wl);
            return -1;
        }
        if (why) {
            wl->skipped++;
            continue;
        }
        if (workload_check_job(path, j->line, j->id, j->submit, runtime_of(j), walltime_of(j),
                               j->tasks, ppt_of(j), err) < 0) {
            mtrace_workload_free(&t);
            workload_free(wl);
            return -1;
        }
        struct wl_job w = job_of(wl, j);
        workload_add_recorded(wl, &w, start_of(j));
    }
    mtrace_workload_free(&t);
    /* Statistics files list jobs by completion, not by submission. */
    workload_sort(wl);
    return 0;
}

static enum node_state state_of(enum mtrace_event e)
{
    switch (e) {
    case MTRACE_DEFINED:
        return NODE_DOWN;
    case MTRACE_DRAINED:
        return NODE_DRAINED;
    case MTRACE_AVAILABLE:
        break;
    }
    return NODE_UP;
}

static struct node_spec spec_of(const struct mtrace_node *nd)
{
    return (struct node_spec){
        .name = nd->name,
        .procs = nd->procs,
        .mem = nd->mem > 0 ? nd->mem : 0,
        .swap = nd->swap > 0 ? nd->swap : 0,
        .disk = nd->disk > 0 ? nd->disk : 0,
        .features = nd->features,
        .partition = NULL,
        .state = state_of(nd->event),
    };
}

/* Fill out->specs from out->trace; -1 on a name defined twice. */
static int make_specs(const char *path, struct wl_nodes *out, struct err *err)
{
    const struct mtrace_resource *t = &out->trace;
    struct strmap seen; /* name -> index in t->nodes */
    int rc = 0;
    strmap_init(&seen);
    out->specs = xcalloc(t->nnodes, sizeof *out->specs);
    for (size_t i = 0; i < t->nnodes; i++) {
        const struct mtrace_node *nd = &t->nodes[i];
        size_t first;
        if (strmap_get(&seen, nd->name, &first)) {
            rc = err_set(err, "%s:%ld: node '%s' is defined twice (first at line %ld)", path,
                         nd->line, nd->name, t->nodes[first].line);
            break;
        }
        strmap_put(&seen, nd->name, i);
        if (nd->procs <= 0)
            out->skipped++; /* Maui's state None: never schedulable */
        else
            out->specs[out->n++] = spec_of(nd);
    }
    strmap_free(&seen);
    return rc;
}

int workload_nodes_from_resource_trace(const char *path, struct wl_nodes *out, struct err *err)
{
    memset(out, 0, sizeof *out);
    if (mtrace_read_resource(path, &out->trace, err) < 0)
        return -1;
    out->skipped = out->trace.skipped;
    if (make_specs(path, out, err) < 0) {
        workload_nodes_free(out);
        return -1;
    }
    return 0;
}

void workload_nodes_free(struct wl_nodes *nodes)
{
    if (!nodes)
        return;
    free(nodes->specs);
    mtrace_resource_free(&nodes->trace);
    memset(nodes, 0, sizeof *nodes);
}
