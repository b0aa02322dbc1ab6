/* swfout — see swfout.h. */
#include "sim/swfout.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trace/swf.h"
#include "util/mem.h"
#include "util/obuf.h"
#include "util/sort.h"
#include "util/strmap.h"

/* The simulated fields of one job. */
struct simfields {
    long long wait, run, alloc, status;
};

static struct simfields sim_fields(const struct wl_job *w, const struct sim_outcome *o)
{
    struct simfields s = {-1, -1, -1, 5};
    if (o->rejected)
        return s;
    if (o->start >= 0) {
        s.wait = o->start - w->submit;
        s.alloc = wl_job_procs(w);
    }
    if (o->end >= 0) {
        s.run = o->end - o->start;
        s.status = o->cancelled ? 5 : o->killed ? 0 : 1;
    } else if (o->start >= 0) {
        s.status = -1; /* still running (or suspended) when the replay stopped */
    }
    return s;
}

static void header(struct obuf *f, const struct swfout_info *in, size_t records)
{
    obuf_puts(f, "; Version: 2.2\n");
    obuf_puts(f, "; Computer: moku simulate (a simulated schedule)\n");
    obuf_printf(f, "; Conversion: moku simulate --swf-out, from %s\n", in->trace ? in->trace : "-");
    obuf_puts(f, "; Note: fields 3 (wait), 4 (run time), 5 (allocated processors) and 11 (status)\n"
                 ";       are the simulation's; the other fields are the trace's\n");
    if (in->config)
        obuf_printf(f, "; Note: configuration %s\n", in->config);
    if (in->policy)
        obuf_printf(f, "; Note: policy %s\n", in->policy);
    obuf_printf(f, "; MaxRecords: %zu\n", records);
    if (in->unix_start >= 0)
        obuf_printf(f, "; UnixStartTime: %lld\n", in->unix_start);
    if (in->tz && *in->tz)
        obuf_printf(f, "; TimeZoneString: %s\n", in->tz);
    if (in->nodes > 0)
        obuf_printf(f, "; MaxNodes: %lld\n", in->nodes);
    if (in->procs > 0)
        obuf_printf(f, "; MaxProcs: %lld\n", in->procs);
}

/* A double field: whole numbers without a point, as the archive writes them. */
static void dfield(struct obuf *f, double v)
{
    obuf_putc(f, ' ');
    if (v == (double)(long long)v)
        obuf_ll(f, (long long)v);
    else
        obuf_fixed(f, v, 2);
}

/* Integer fields, each after a space (the first with none when lead is 0). */
static void ifields(struct obuf *f, const long long *v, size_t n, int lead)
{
    for (size_t i = 0; i < n; i++) {
        if (i || lead)
            obuf_putc(f, ' ');
        obuf_ll(f, v[i]);
    }
}

static void swf_line(struct obuf *f, const struct swf_rec *r)
{
    const long long first[] = {r->id, r->submit, r->wait, r->runtime, r->alloc};
    ifields(f, first, 5, 0);
    dfield(f, r->cpu);
    dfield(f, r->mem_used);
    const long long req[] = {r->req_procs, r->req_time};
    ifields(f, req, 2, 1);
    dfield(f, r->req_mem);
    const long long rest[] = {r->status, r->user,      r->group,    r->app,
                              r->queue,  r->partition, r->prev_job, r->think};
    ifields(f, rest, 8, 1);
    obuf_putc(f, '\n');
}

/* ------------------------------------------------- an SWF trace, again */

struct rescan {
    struct obuf *f;
    const struct workload *wl;
    const struct sim_outcome *out;
    void **by_line; /* the jobs (const struct wl_job *) in line order */
    size_t next;    /* the first of them not behind the line read */
};

static int by_line(const void *a, const void *b)
{
    long x = (*(const struct wl_job *const *)a)->line, y = (*(const struct wl_job *const *)b)->line;
    return (x > y) - (x < y);
}

/* The job read from line `line`, or SIZE_MAX (a record the replay
 * skipped). The trace is read again in line order, so a cursor over the
 * jobs in line order finds each in turn, without a search. */
static size_t job_at_line(struct rescan *r, long line)
{
    while (r->next < r->wl->njobs && ((const struct wl_job *)r->by_line[r->next])->line < line)
        r->next++;
    if (r->next == r->wl->njobs)
        return SIZE_MAX;
    const struct wl_job *j = r->by_line[r->next];
    return j->line == line ? (size_t)(j - r->wl->jobs) : SIZE_MAX;
}

static int rescan_one(void *ctx, const struct swf_rec *rec, struct err *err)
{
    struct rescan *r = ctx;
    struct swf_rec w = *rec;
    size_t i = job_at_line(r, rec->line);
    if (i == SIZE_MAX) {
        w.wait = -1; /* skipped: not simulated */
    } else {
        struct simfields s = sim_fields(&r->wl->jobs[i], &r->out[i]);
        w.wait = s.wait;
        w.runtime = s.run;
        w.alloc = s.alloc;
        w.status = s.status;
    }
    swf_line(r->f, &w);
    return 0;
}

/* The trace read again record by record (its raw records were not kept),
 * each matched to its job by line number. */
static int write_from_swf(struct obuf *f, const struct workload *wl, const struct sim_outcome *out,
                          const struct swfout_info *in, struct err *err)
{
    struct rescan r = {.f = f, .wl = wl, .out = out};
    r.by_line = xmalloc((wl->njobs ? wl->njobs : 1) * sizeof *r.by_line);
    for (size_t i = 0; i < wl->njobs; i++)
        r.by_line[i] = &wl->jobs[i];
    struct sort_buf buf = {0};
    sort_ptrs(r.by_line, wl->njobs, by_line, &buf);
    sort_buf_free(&buf);
    header(f, in, wl->njobs + wl->skipped);
    struct swf_header hdr;
    int rc = swf_scan(in->trace, &hdr, rescan_one, &r, err);
    free(r.by_line);
    return rc;
}

/* --------------------------------------- a Maui trace: numbers for names */

/* Numbers for the names of one kind, by first appearance from 1. */
struct numbering {
    struct strmap at;
    const char **names;
    size_t n, cap;
};

static long long number_of(struct numbering *m, const char *name)
{
    size_t v;
    if (!name)
        return -1;
    if (strmap_get(&m->at, name, &v))
        return (long long)v;
    m->names = xgrow(m->names, &m->cap, m->n + 1, sizeof *m->names);
    m->names[m->n++] = name; /* the workload's interned copy: lives as long */
    strmap_put(&m->at, name, m->n);
    return (long long)m->n;
}

enum { NUM_USER, NUM_GROUP, NUM_QUEUE, NUM_PARTITION, NUM_KINDS };

static struct swf_rec maui_rec(const struct wl_job *w, size_t i, struct numbering *num)
{
    const struct wl_names *nm = wl_job_names(w);
    long long procs = wl_job_procs(w);
    struct swf_rec r = {
        .id = (long long)i + 1,
        .submit = w->submit,
        .cpu = w->util_known ? (double)w->util * (double)wl_job_runtime(w) : -1,
        .mem_used = -1,
        .req_procs = procs,
        .req_time = wl_job_walltime(w),
        .req_mem = nm->mem > 0
                       ? (double)nm->mem * 1024.0 / (w->procs_per_task ? w->procs_per_task : 1)
                       : -1,
        .user = number_of(&num[NUM_USER], nm->user),
        .group = number_of(&num[NUM_GROUP], nm->group),
        .app = -1,
        .queue = number_of(&num[NUM_QUEUE], nm->class_),
        .partition = number_of(&num[NUM_PARTITION], nm->partition),
        .prev_job = -1,
        .think = -1,
    };
    return r;
}

static int write_from_maui(struct obuf *f, const struct workload *wl, const struct sim_outcome *out,
                           const struct swfout_info *in)
{
    struct numbering num[NUM_KINDS] = {0};
    for (int k = 0; k < NUM_KINDS; k++)
        strmap_init(&num[k].at);
    for (size_t i = 0; i < wl->njobs; i++)
        maui_rec(&wl->jobs[i], i, num); /* number the names first: the header lists them */
    header(f, in, wl->njobs);
    obuf_puts(f, "; Note: the trace's jobs are numbered 1, 2, ... in submit order; its names:\n");
    static const char *const what[NUM_KINDS] = {"user", "group", "queue", "partition"};
    for (int k = 0; k < NUM_KINDS; k++)
        for (size_t i = 0; i < num[k].n; i++) {
            if (k == NUM_QUEUE || k == NUM_PARTITION)
                obuf_printf(f, "; %s: %zu %s\n", k == NUM_QUEUE ? "Queue" : "Partition", i + 1,
                            num[k].names[i]);
            else
                obuf_printf(f, "; Note: %s %zu is %s\n", what[k], i + 1, num[k].names[i]);
        }
    for (size_t i = 0; i < wl->njobs; i++) {
        struct swf_rec r = maui_rec(&wl->jobs[i], i, num);
        struct simfields s = sim_fields(&wl->jobs[i], &out[i]);
        r.wait = s.wait;
        r.runtime = s.run;
        r.alloc = s.alloc;
        r.status = s.status;
        swf_line(f, &r);
    }
    for (int k = 0; k < NUM_KINDS; k++) {
        strmap_free(&num[k].at);
        free(num[k].names);
    }
    return 0;
}

int swfout_write(struct obuf *f, const struct workload *wl, const struct sim_outcome *out,
                 const struct swfout_info *info, struct err *err)
{
    int rc = info->trace_is_swf ? write_from_swf(f, wl, out, info, err)
                                : write_from_maui(f, wl, out, info);
    if (rc == 0 && obuf_failed(f))
        rc = err_set(err, "writing the SWF file failed");
    return rc;
}
