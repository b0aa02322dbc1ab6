/* workload — see workload.h. */
#include "sim/workload.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/mem.h"

/* Why a record cannot be replayed, or NULL if it can. */
static const char *unusable(const struct swf_rec *r)
{
    if (r->req_procs <= 0 && r->alloc <= 0)
        return "no processors";
    if (r->runtime < 0)
        return "negative run time";
    if (r->submit < 0)
        return "negative submit time";
    return NULL;
}

/* Decimal text of v, or NULL for an unknown (-1) value. */
static const char *num_name(struct workload *wl, long long v)
{
    char buf[24];
    if (v < 0)
        return NULL;
    snprintf(buf, sizeof buf, "%lld", v);
    return workload_intern(wl, buf);
}

static struct wl_job job_of(struct workload *wl, const struct swf_rec *r)
{
    long long procs = r->req_procs > 0 ? r->req_procs : r->alloc;
    long walltime = (long)(r->req_time > 0 ? r->req_time : r->runtime);
    return (struct wl_job){
        .id = num_name(wl, r->id),
        .submit = (long)r->submit,
        .runtime = (long)r->runtime,
        .walltime = walltime > 0 ? walltime : 1,
        .tasks = procs,
        .procs_per_task = 1,
        .user = num_name(wl, r->user),
        .group = num_name(wl, r->group),
        .class_ = num_name(wl, r->queue),
        .partition = num_name(wl, r->partition),
        .line = r->line,
    };
}

static int by_submit(const void *a, const void *b)
{
    const struct wl_job *x = a, *y = b;
    if (x->submit != y->submit)
        return x->submit < y->submit ? -1 : 1;
    return x->line < y->line ? -1 : (x->line > y->line);
}

void workload_sort(struct workload *wl)
{
    for (size_t i = 1; i < wl->njobs; i++)
        if (by_submit(&wl->jobs[i - 1], &wl->jobs[i]) > 0) {
            qsort(wl->jobs, wl->njobs, sizeof *wl->jobs, by_submit);
            return;
        }
}

long long wl_job_procs(const struct wl_job *w)
{
    return w->tasks * w->procs_per_task;
}

void workload_init(struct workload *wl)
{
    memset(wl, 0, sizeof *wl);
    wl->unix_start = -1;
    strmap_init(&wl->strings);
}

const char *workload_intern(struct workload *wl, const char *s)
{
    size_t i;
    if (!s)
        return NULL;
    if (strmap_get(&wl->strings, s, &i))
        return wl->pool[i];
    wl->pool = xgrow(wl->pool, &wl->cappool, wl->npool + 1, sizeof *wl->pool);
    wl->pool[wl->npool] = xstrdup(s);
    strmap_put(&wl->strings, wl->pool[wl->npool], wl->npool);
    return wl->pool[wl->npool++];
}

void workload_add(struct workload *wl, const struct wl_job *job)
{
    wl->jobs = xgrow(wl->jobs, &wl->cap, wl->njobs + 1, sizeof *wl->jobs);
    wl->jobs[wl->njobs++] = *job;
}

int workload_from_swf(const struct swf_trace *t, const char *path, int strict,
                      struct workload *wl, struct err *err)
{
    workload_init(wl);
    for (size_t i = 0; i < t->nrecs; i++) {
        const char *why = unusable(&t->recs[i]);
        if (why && strict) {
            err_set(err, "%s:%ld: job %lld cannot be replayed: %s", path, t->recs[i].line,
                    t->recs[i].id, why);
            workload_free(wl);
            return -1;
        }
        if (why)
            wl->skipped++;
        else {
            struct wl_job j = job_of(wl, &t->recs[i]);
            workload_add(wl, &j);
        }
    }
    /* Lines out of submit order exist in real logs (LLNL Thunder). */
    workload_sort(wl);
    wl->max_nodes = t->hdr.max_nodes;
    wl->max_procs = t->hdr.max_procs;
    wl->unix_start = t->hdr.unix_start;
    return 0;
}

void workload_free(struct workload *wl)
{
    free(wl->jobs);
    for (size_t i = 0; i < wl->npool; i++)
        free(wl->pool[i]);
    free(wl->pool);
    if (wl->strings.keys)
        strmap_free(&wl->strings);
    memset(wl, 0, sizeof *wl);
}
