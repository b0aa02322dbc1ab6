/* workload — see workload.h. */
#include "sim/workload.h"

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

static struct wl_job job_of(const struct swf_rec *r)
{
    long long procs = r->req_procs > 0 ? r->req_procs : r->alloc;
    long walltime = (long)(r->req_time > 0 ? r->req_time : r->runtime);
    return (struct wl_job){
        .id = r->id,
        .submit = (long)r->submit,
        .runtime = (long)r->runtime,
        .walltime = walltime > 0 ? walltime : 1,
        .procs = procs,
        .user = r->user,
        .group = r->group,
        .queue = r->queue,
        .partition = r->partition,
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

static int sorted(const struct wl_job *jobs, size_t n)
{
    for (size_t i = 1; i < n; i++)
        if (by_submit(&jobs[i - 1], &jobs[i]) > 0)
            return 0;
    return 1;
}

int workload_from_swf(const struct swf_trace *t, const char *path, int strict,
                      struct workload *wl, struct err *err)
{
    memset(wl, 0, sizeof *wl);
    struct wl_job *jobs = xmalloc((t->nrecs ? t->nrecs : 1) * sizeof *jobs);
    size_t n = 0, skipped = 0;
    for (size_t i = 0; i < t->nrecs; i++) {
        const char *why = unusable(&t->recs[i]);
        if (why && strict) {
            free(jobs);
            return err_set(err, "%s:%ld: job %lld cannot be replayed: %s", path,
                           t->recs[i].line, t->recs[i].id, why);
        }
        if (why)
            skipped++;
        else
            jobs[n++] = job_of(&t->recs[i]);
    }
    /* Lines out of submit order exist in real logs (LLNL Thunder). */
    if (!sorted(jobs, n))
        qsort(jobs, n, sizeof *jobs, by_submit);
    *wl = (struct workload){
        .jobs = jobs,
        .njobs = n,
        .skipped = skipped,
        .max_nodes = t->hdr.max_nodes,
        .max_procs = t->hdr.max_procs,
        .unix_start = t->hdr.unix_start,
    };
    return 0;
}

void workload_free(struct workload *wl)
{
    free(wl->jobs);
    memset(wl, 0, sizeof *wl);
}
