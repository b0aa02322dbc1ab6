/* swfout — see swfout.h. */
#include "sim/swfout.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trace/swf.h"
#include "trace/swfpack.h"
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

/* Text at p (its room reserved). */
static char *text(char *p, const char *t, size_t n)
{
    memcpy(p, t, n);
    return p + n;
}

/* n bytes of a read line's text at t to p, 16 at a time without a call
 * (a line's three pieces: three memcpy calls of a few bytes each cost more
 * than the rest of its row). Reads up to 15 bytes past them (the cursor's
 * text is readable that far: swfpack.h), writes as many past p + n (room
 * reserved; what follows overwrites them). */
_Static_assert(SWFPACK_TEXT_ROOM >= SWFPACK_LINE_ROOM + 16, "a read line is readable past its end");
static inline char *line_text(char *p, const char *t, size_t n)
{
    for (size_t i = 0; i < n; i += 16)
        memcpy(p + i, t + i, 16);
    return p + n;
}

/* A number and the space after it (always inlined: four a row, GCC kept
 * it out of line). */
static inline __attribute__((always_inline)) char *field(char *p, long long v)
{
    p = obuf_fmt_ll(p, v);
    *p++ = ' ';
    return p;
}

/* A trace record's line with the replay's fields: its own text but for
 * fields 3 to 5 and 11, in place in one go. */
static void replayed_line(struct obuf *f, const struct swfpack_line *l, const struct simfields *s)
{
    char *p = obuf_reserve(f, l->len + 4 * (OBUF_LL_ROOM + 1) + 1 + 15);
    p = line_text(p, l->text, l->f3);
    p = field(p, s->wait);
    p = field(p, s->run);
    p = field(p, s->alloc);
    p = line_text(p, l->text + l->f6, l->f11 - l->f6);
    p = field(p, s->status);
    p = line_text(p, l->text + l->f12, l->len - l->f12);
    *p++ = '\n';
    obuf_commit(f, p);
}

/* A record the replay skipped: its own line with -1 as its wait. */
static void skipped_line(struct obuf *f, const struct swfpack_line *l)
{
    char *p = obuf_reserve(f, l->len + 3 + 15);
    p = line_text(p, l->text, l->f3);
    p = text(p, "-1", 2);
    p = line_text(p, l->text + l->f4 - 1, l->len - (l->f4 - 1)); /* from the space before field 4 */
    *p++ = '\n';
    obuf_commit(f, p);
}

/* A line formatted from its record. */
static void swf_line(struct obuf *f, const struct swf_rec *r)
{
    char *p = swfpack_format(obuf_reserve(f, SWFPACK_LINE_ROOM + 1), r);
    *p++ = '\n';
    obuf_commit(f, p);
}

/* ------------------------------------------------- an SWF trace's records */

static int by_line(const void *a, const void *b)
{
    long x = (*(const struct wl_job *const *)a)->line, y = (*(const struct wl_job *const *)b)->line;
    return (x > y) - (x < y);
}

/* The jobs in line order (caller frees). */
static void **jobs_by_line(const struct workload *wl)
{
    void **v = xmalloc((wl->njobs ? wl->njobs : 1) * sizeof *v);
    for (size_t i = 0; i < wl->njobs; i++)
        v[i] = &wl->jobs[i];
    struct sort_buf buf = {0};
    sort_ptrs(v, wl->njobs, by_line, &buf);
    sort_buf_free(&buf);
    return v;
}

/* The trace's records as the reader kept them (workload.recs), in file
 * order, each matched to its job by line number: the jobs in line order
 * are met in turn, so a cursor over them finds each without a search. A
 * record the replay skipped keeps its fields, with -1 as its wait. */
static void write_from_recs(struct obuf *f, const struct workload *wl,
                            const struct sim_outcome *out, const struct swfout_info *in)
{
    void **jobs = jobs_by_line(wl);
    size_t next = 0; /* the first job not behind the record */
    header(f, in, wl->recs->n);
    struct swfpack_cursor c = {0};
    struct swfpack_line l;
    while (swfpack_next(wl->recs, &c, &l) == 0) {
        while (next < wl->njobs && ((const struct wl_job *)jobs[next])->line < l.line)
            next++;
        const struct wl_job *j = next < wl->njobs ? jobs[next] : NULL;
        if (j && j->line == l.line) {
            struct simfields s = sim_fields(j, &out[j - wl->jobs]);
            replayed_line(f, &l, &s);
        } else {
            skipped_line(f, &l);
        }
    }
    free(jobs);
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

static void write_from_maui(struct obuf *f, const struct workload *wl,
                            const struct sim_outcome *out, const struct swfout_info *in)
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
}

int swfout_write(struct obuf *f, const struct workload *wl, const struct sim_outcome *out,
                 const struct swfout_info *info, struct err *err)
{
    if (wl->recs)
        write_from_recs(f, wl, out, info);
    else
        write_from_maui(f, wl, out, info);
    if (obuf_failed(f))
        return err_set(err, "writing the SWF file failed");
    return 0;
}
