/*
 * val_trace — the trace as the validator reads it: each job's submission,
 * processors, walltime and runtime, in every format moku simulate reads.
 * The conventions are the simulator's as docs/simulation.md states them,
 * written again here from the page (not shared with src/sim), so that a
 * mistake in one is caught by the other; so is the --estimates model.
 */
#include "validate/val_int.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trace/homelog.h"
#include "trace/mtrace.h"
#include "trace/sacct.h"
#include "trace/swf.h"
#include "trace/tacct.h"
#include "trace/trace.h"
#include "util/mem.h"

static void add(struct val_facts *f, const char *id, long submit, long procs, long walltime,
                long runtime)
{
    f->v = xgrow(f->v, &f->cap, f->n + 1, sizeof *f->v);
    f->v[f->n++] = (struct val_fact){xstrdup(id), submit, procs, walltime, runtime, NULL, 0, NULL};
}

static long at_least_1(long long w, long long runtime)
{
    long long x = w > 0 ? w : runtime;
    return x > 0 ? (long)x : 1;
}

/* Field 17, the preceding job, is kept: checked unless --no-swf-deps. */
static int read_swf(const char *path, struct val_facts *f, struct err *err)
{
    struct swf_trace t;
    if (swf_read(path, &t, err) < 0)
        return -1;
    f->hdr_nodes = t.hdr.max_nodes;
    f->hdr_procs = t.hdr.max_procs;
    for (size_t i = 0; i < t.nrecs; i++) {
        const struct swf_rec *r = &t.recs[i];
        char id[32] = "";
        if (r->id >= 0) /* -1, none: the empty name the replay's outputs give the job */
            snprintf(id, sizeof id, "%lld", r->id);
        add(f, id, (long)r->submit, (long)(r->req_procs > 0 ? r->req_procs : r->alloc),
            at_least_1(r->req_time, r->runtime), (long)r->runtime);
        if (r->prev_job > 0) {
            snprintf(id, sizeof id, "%lld", r->prev_job);
            f->v[f->n - 1].after = xstrdup(id);
        }
    }
    swf_free(&t);
    return 0;
}

static int read_maui(const char *path, struct val_facts *f, struct err *err)
{
    struct mtrace_workload w;
    if (mtrace_read_workload(path, &w, err) < 0)
        return -1;
    f->maui = 1;
    for (size_t i = 0; i < w.njobs; i++) {
        const struct mtrace_job *j = &w.jobs[i];
        long ppt = j->procs_per_task > 0 ? j->procs_per_task : 1;
        /* submissions and runtimes are not checked against a Maui trace (its
         * epoch times, a start that is the later of dispatch and start) */
        add(f, j->id ? j->id : "?", -1, j->tasks * ppt, j->walltime, -1);
        f->v[f->n - 1].attrs = j->features ? xstrdup(j->features) : NULL;
        f->v[f->n - 1].preemptee = j->flags && strstr(j->flags, "[PREEMPTEE]") != NULL;
    }
    mtrace_workload_free(&w);
    return 0;
}

/* sacct: a job that ran (not a step, finished, with a start and an
 * allocation) is in the trace; its runtime End - Start. */
static int sacct_fact(void *ctx, const struct sacct_rec *r, struct err *err)
{
    (void)err;
    long long procs = r->ncpus >= 0 ? r->ncpus : r->reqcpus;
    if (sacct_state_unfinished(r->state) || r->start < 0 || r->ncpus == 0 || r->end < r->start)
        return 0;
    add(ctx, r->id, (long)r->submit, (long)procs, at_least_1(r->timelimit, r->end - r->start),
        (long)(r->end - r->start));
    return 0;
}

/* Torque: an exit record of a job that started; processors from
 * total_execution_slots, exec_host, then Resource_List's procs, nodes, ncpus. */
static int torque_fact(void *ctx, const struct tacct_rec *r, struct err *err)
{
    struct val_facts *f = ctx;
    (void)err;
    if (r->start <= 0 || r->end < r->start || val_fact_of(f, r->id))
        return 0;
    long long procs = r->total_slots > 0       ? r->total_slots
                      : r->exec_slots > 0      ? r->exec_slots
                      : r->req_procs > 0       ? r->req_procs
                      : r->req_nodes_procs > 0 ? r->req_nodes_procs
                                               : r->req_ncpus;
    long long submit = r->qtime >= 0 ? r->qtime : r->ctime >= 0 ? r->ctime : r->etime;
    add(f, r->id, (long)submit, (long)procs, at_least_1(r->req_walltime, r->end - r->start),
        (long)(r->end - r->start));
    /* index as we go: a repeated id keeps its first exit, as simulate does */
    strmap_put(&f->by_id, f->v[f->n - 1].id, f->n - 1);
    return 0;
}

/* The home: a job that started and ended; walltime 1 day when none was asked
 * (the daemon's default). */
static int home_fact(void *ctx, const struct store_job *j, struct err *err)
{
    (void)err;
    char id[32];
    if (j->start <= 0 || j->end < j->start)
        return 0;
    snprintf(id, sizeof id, "%ld", j->id);
    add(ctx, id, j->submit, j->tasks, j->walltime > 0 ? j->walltime : 86400, j->end - j->start);
    return 0;
}

/* --------------------------------------------------------- --estimates */

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15u;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9u;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebu;
    return x ^ (x >> 31);
}

static uint64_t fnv(const char *s)
{
    uint64_t h = 14695981039346656037u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    return h;
}

/* The walltimes --estimates MODEL gives (docs/simulation.md, "Runtime
 * estimates"). A job whose runtime the trace does not say keeps its own. */
static int apply_estimates(const char *model, struct val_facts *f, struct err *err)
{
    double factor = 0;
    unsigned long long seed = 1;
    int kind; /* 1 exact, 2 factor, 3 fmodel */
    char tail;
    if (!model || strcmp(model, "request") == 0)
        return 0;
    if (strcmp(model, "exact") == 0)
        kind = 1;
    else if (sscanf(model, "factor:%lf%c", &factor, &tail) == 1 && factor >= 1)
        kind = 2;
    else if ((sscanf(model, "fmodel:%lf%c", &factor, &tail) == 1 ||
              (sscanf(model, "fmodel:%lf:%llu%c", &factor, &seed, &tail) == 2 &&
               !strchr(model, '-'))) &&
             factor >= 0)
        kind = 3;
    else
        return err_set(err,
                       "--estimates: '%s' is not request, exact, factor:F or "
                       "fmodel:F[:SEED]",
                       model);
    for (size_t i = 0; i < f->n; i++) {
        struct val_fact *x = &f->v[i];
        if (x->runtime < 0)
            continue;
        double r = (double)x->runtime,
               u = (double)(mix(seed ^ fnv(x->id)) >> 11) / 9007199254740992.0;
        double w = kind == 1 ? r : kind == 2 ? ceil(r * factor) : ceil(r * (1 + factor * u));
        if (w > 1099511627776.0)
            w = 1099511627776.0;
        x->walltime = w >= 1 ? (long)w : 1;
    }
    return 0;
}

int val_trace_read(const struct val_opts *o, struct val_facts *f, struct err *err)
{
    struct err e;
    int rc;
    *f = (struct val_facts){0};
    strmap_init(&f->by_id);
    switch (trace_detect(o->trace, &e)) {
    case TRACE_SWF:
        rc = read_swf(o->trace, f, err);
        break;
    case TRACE_MAUI_WORKLOAD:
        rc = read_maui(o->trace, f, err);
        break;
    case TRACE_SACCT:
        rc = sacct_scan(o->trace, NULL, sacct_fact, f, err);
        break;
    case TRACE_TORQUE:
        rc = tacct_scan(o->trace, NULL, torque_fact, f, err);
        break;
    case TRACE_HOME:
        rc = homelog_scan(o->trace, NULL, home_fact, f, err);
        break;
    case TRACE_MAUI_RESOURCE:
        rc = err_set(err, "%s is a resource trace (nodes), not jobs", o->trace);
        break;
    default:
        rc = err_set(err, "%s", e.msg);
        break;
    }
    if (rc == 0)
        rc = apply_estimates(o->estimates, f, err);
    return rc;
}

void val_facts_index(struct val_facts *f)
{
    for (size_t i = 0; i < f->n; i++) /* a repeated id: its last line, as before */
        strmap_put(&f->by_id, f->v[i].id, i);
}

const struct val_fact *val_fact_of(const struct val_facts *f, const char *id)
{
    size_t i;
    return f->by_id.keys && strmap_get(&f->by_id, id, &i) ? &f->v[i] : NULL;
}

void val_facts_free(struct val_facts *f)
{
    for (size_t i = 0; i < f->n; i++) {
        free(f->v[i].id);
        free(f->v[i].attrs);
        free(f->v[i].after);
        free(f->v[i].depend);
        free(f->v[i].array);
    }
    free(f->v);
    for (size_t i = 0; i < f->nalters; i++) {
        free(f->alters[i].id);
        free(f->alters[i].depend);
    }
    free(f->alters);
    if (f->by_id.keys)
        strmap_free(&f->by_id);
    memset(f, 0, sizeof *f);
}
