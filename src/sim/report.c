/* report — see report.h. */
#include "sim/report.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "core/cred.h"
#include "core/sched.h"
#include "util/mem.h"
#include "util/strmap.h"

#define BSLD_TAU 10.0 /* seconds: the customary bound for very short jobs */

/* Powers of 4, so each class spans a factor of four in width. */
static const struct report_bound size_bounds[REPORT_NSIZE] = {
    {"1", 1, 1},       {"2-4", 2, 4},       {"5-16", 5, 16},
    {"17-64", 17, 64}, {"65-256", 65, 256}, {">256", 257, -1},
};

/* The lengths a batch site's queues are usually cut at. */
static const struct report_bound runtime_bounds[REPORT_NRUNTIME] = {
    {"<10m", 0, 599},        {"10m-1h", 600, 3599}, {"1h-4h", 3600, 14399},
    {"4h-1d", 14400, 86399}, {">=1d", 86400, -1},
};

const struct report_bound *report_size_bounds(void)
{
    return size_bounds;
}

const struct report_bound *report_runtime_bounds(void)
{
    return runtime_bounds;
}

static int class_of(const struct report_bound *b, int n, long long v)
{
    for (int i = 0; i < n - 1; i++)
        if (v <= b[i].hi)
            return i;
    return n - 1;
}

int report_size_class(long long procs)
{
    return class_of(size_bounds, REPORT_NSIZE, procs);
}

int report_runtime_class(long runtime)
{
    return class_of(runtime_bounds, REPORT_NRUNTIME, runtime);
}

/* Sums of one class, averaged at the end. */
struct csum {
    double wait, bsld;
    size_t n;
};

struct sums {
    long first_submit, last_end;
    double wait, bsld, xf, procsec;
    long max_wait;
    size_t n;
    struct csum size[REPORT_NSIZE], runtime[REPORT_NRUNTIME];
};

static void add_class(struct csum *c, long wait, double bsld)
{
    c->wait += (double)wait;
    c->bsld += bsld;
    c->n++;
}

/* Bounded slowdown: max(1, (wait + run) / max(run, tau)). */
static double job_bsld(long wait, long run)
{
    double b = (double)(wait + run) / fmax((double)run, BSLD_TAU);
    return b < 1.0 ? 1.0 : b;
}

static void add_job(struct sums *m, const struct wl_job *w, const struct sim_outcome *o)
{
    long wait = o->start - w->submit;
    long run = o->end - o->start;
    double bsld = job_bsld(wait, run);
    if (m->n == 0 || w->submit < m->first_submit)
        m->first_submit = w->submit;
    if (m->n == 0 || o->end > m->last_end)
        m->last_end = o->end;
    m->wait += (double)wait;
    if (wait > m->max_wait)
        m->max_wait = wait;
    m->bsld += bsld;
    m->xf += (double)(wait + w->walltime) / (double)w->walltime;
    m->procsec += (double)wl_job_procs(w) * (double)run;
    m->n++;
    add_class(&m->size[report_size_class(wl_job_procs(w))], wait, bsld);
    add_class(&m->runtime[report_runtime_class(run)], wait, bsld);
}

static void class_averages(struct report_class *out, const struct csum *in, int n)
{
    for (int i = 0; i < n; i++) {
        out[i].jobs = in[i].n;
        out[i].avg_wait = in[i].n ? in[i].wait / (double)in[i].n : 0.0;
        out[i].avg_bsld = in[i].n ? in[i].bsld / (double)in[i].n : 0.0;
    }
}

/* A job measured: it ran to its end and was not rejected. */
static int measured(const struct sim_outcome *o)
{
    return !o->rejected && o->end >= 0;
}

/* Distribution d's value for a measured job. */
static double dist_value(enum report_dist d, const struct wl_job *w, const struct sim_outcome *o)
{
    long wait = o->start - w->submit, run = o->end - o->start;
    switch (d) {
    case REPORT_WAIT: return (double)wait;
    case REPORT_BSLD: return job_bsld(wait, run);
    default: return (double)(wait + run);
    }
}

/* Sort n keys: the IEEE 754 bit patterns of non-negative doubles, which
 * order as the numbers do. An LSD radix sort, 11 bits a pass (6 passes at
 * most), skipping the digits all keys share. qsort took 25 ms a
 * distribution on HPC2N's 202,876 jobs, 10 % of the replay; this takes a
 * few. tmp holds n. */
#define RADIX_BITS 11
static void sort_keys(uint64_t *a, uint64_t *b, size_t n)
{
    uint64_t *orig = a;
    const uint64_t mask = (1u << RADIX_BITS) - 1;
    for (int shift = 0; shift < 64; shift += RADIX_BITS) {
        size_t count[(1u << RADIX_BITS) + 1] = {0};
        for (size_t i = 0; i < n; i++)
            count[((a[i] >> shift) & mask) + 1]++;
        if (count[((a[0] >> shift) & mask) + 1] == n)
            continue; /* every key has this digit */
        for (size_t k = 0; k < mask + 1; k++)
            count[k + 1] += count[k];
        for (size_t i = 0; i < n; i++)
            b[count[(a[i] >> shift) & mask]++] = a[i];
        uint64_t *t = a;
        a = b;
        b = t;
    }
    if (a != orig)
        memcpy(orig, a, n * sizeof *a);
}

/* A non-negative double's bit pattern, and back (memcpy: no aliasing). */
static uint64_t key_of(double d)
{
    uint64_t k;
    memcpy(&k, &d, sizeof k);
    return k;
}

static double value_of(uint64_t k)
{
    double d;
    memcpy(&d, &k, sizeof d);
    return d;
}

/* Nearest-rank quantiles: the value of rank ceil(q n) for q = i / 200. One
 * scratch array serves the three distributions in turn, so the report
 * costs a double per job at most, and only while it is computed. */
static void compute_quantiles(struct report *r, const struct workload *wl,
                              const struct sim_outcome *out)
{
    memset(r->quant, 0, sizeof r->quant);
    if (!r->jobs)
        return;
    _Static_assert(sizeof(double) == sizeof(uint64_t), "doubles sort as 64-bit patterns");
    uint64_t *v = xmalloc(r->jobs * sizeof *v), *tmp = xmalloc(r->jobs * sizeof *tmp);
    for (int d = 0; d < REPORT_NDIST; d++) {
        size_t n = 0;
        for (size_t i = 0; i < wl->njobs && n < r->jobs; i++)
            if (measured(&out[i]))
                v[n++] = key_of(fmax(0.0, dist_value((enum report_dist)d, &wl->jobs[i], &out[i])));
        sort_keys(v, tmp, n);
        for (int q = 0; q < REPORT_NQUANT; q++) {
            size_t rank = (size_t)ceil((double)q * (double)n / (REPORT_NQUANT - 1) - 1e-9);
            r->quant[d][q] = n ? value_of(v[rank ? rank - 1 : 0]) : 0.0;
        }
    }
    free(v);
    free(tmp);
}

/* ------------------------------------------------------------- groups */

/* Groups being summed: the list, and a map from name to position. */
struct gsum {
    struct report_group *g; /* avg_wait and avg_bsld hold sums until the end */
    size_t n, cap;
    struct strmap at;
};

static void gsum_add(struct gsum *s, const char *name, long wait, double bsld, double procsec)
{
    size_t i;
    if (!strmap_get(&s->at, name, &i)) {
        s->g = xgrow(s->g, &s->cap, s->n + 1, sizeof *s->g);
        i = s->n++;
        s->g[i] = (struct report_group){.name = xstrdup(name)};
        strmap_put(&s->at, s->g[i].name, i);
    }
    s->g[i].jobs++;
    s->g[i].proc_seconds += procsec;
    s->g[i].avg_wait += (double)wait;
    s->g[i].avg_bsld += bsld;
}

static int group_order(const void *a, const void *b)
{
    const struct report_group *x = a, *y = b;
    if (x->proc_seconds != y->proc_seconds)
        return x->proc_seconds < y->proc_seconds ? 1 : -1;
    if (x->jobs != y->jobs)
        return x->jobs < y->jobs ? 1 : -1;
    return strcmp(x->name, y->name);
}

/* The sums become averages, sorted; the list moves to *out. */
static void gsum_finish(struct gsum *s, struct report_group **out, size_t *n)
{
    for (size_t i = 0; i < s->n; i++) {
        s->g[i].avg_wait /= (double)s->g[i].jobs;
        s->g[i].avg_bsld /= (double)s->g[i].jobs;
    }
    if (s->n)
        qsort(s->g, s->n, sizeof *s->g, group_order);
    strmap_free(&s->at);
    *out = s->g;
    *n = s->n;
}

/* A measured job's credential of kind k (CRED_USER or CRED_CLASS) by name:
 * the engine's record, else its table (the record was forgotten when the
 * job ended), else the workload's name. */
static const char *group_name(const struct sched *s, const struct wl_job *w,
                              const struct sim_outcome *o, enum cred_kind k)
{
    const struct cred *c = NULL;
    if (o->job)
        c = k == CRED_USER ? o->job->user : o->job->class_;
    else if (s)
        c = cred_at(sched_creds(s, k), o->cred[k]);
    if (c)
        return c->name;
    const struct wl_names *nm = wl_job_names(w);
    const char *name = k == CRED_USER ? nm->user : nm->class_;
    return name ? name : "DEFAULT";
}

static void compute_groups(struct report *r, const struct workload *wl,
                           const struct sim_outcome *out, const struct sched *s)
{
    struct gsum users = {0}, classes = {0};
    strmap_init(&users.at);
    strmap_init(&classes.at);
    for (size_t i = 0; i < wl->njobs; i++) {
        if (!measured(&out[i]))
            continue;
        const struct wl_job *w = &wl->jobs[i];
        long wait = out[i].start - w->submit, run = out[i].end - out[i].start;
        double bsld = job_bsld(wait, run), ps = (double)wl_job_procs(w) * (double)run;
        gsum_add(&users, group_name(s, w, &out[i], CRED_USER), wait, bsld, ps);
        gsum_add(&classes, group_name(s, w, &out[i], CRED_CLASS), wait, bsld, ps);
    }
    gsum_finish(&users, &r->users, &r->nusers);
    gsum_finish(&classes, &r->classes, &r->nclasses);
}

static void free_groups(struct report_group *g, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(g[i].name);
    free(g);
}

void report_free(struct report *r)
{
    free_groups(r->users, r->nusers);
    free_groups(r->classes, r->nclasses);
    r->users = r->classes = NULL;
    r->nusers = r->nclasses = 0;
}

double report_percentile(const struct report *r, enum report_dist d, double p)
{
    int i = (int)lround(p * (REPORT_NQUANT - 1) / 100.0);
    return r->quant[d][i < 0 ? 0 : i >= REPORT_NQUANT ? REPORT_NQUANT - 1 : i];
}

const char *report_dist_name(enum report_dist d)
{
    static const char *const names[REPORT_NDIST] = {"wait", "bsld", "turnaround"};
    return names[d];
}

void report_compute(struct report *r, const struct workload *wl, const struct sim_outcome *out,
                    long long procs, const struct sched *s)
{
    struct sums m = {0};
    size_t rejected = 0;
    report_free(r);
    r->never_started = 0;
    for (size_t i = 0; i < wl->njobs; i++) {
        if (out[i].rejected)
            rejected++;
        else if (out[i].end >= 0)
            add_job(&m, &wl->jobs[i], &out[i]);
        else if (out[i].start < 0 && out[i].job && out[i].job->state == JOB_IDLE)
            r->never_started++;
    }
    r->jobs = m.n;
    r->skipped = wl->skipped;
    r->rejected = rejected;
    r->makespan = m.n ? m.last_end - m.first_submit : 0;
    r->utilization =
        r->makespan > 0 && procs > 0 ? m.procsec / ((double)procs * (double)r->makespan) : 0.0;
    r->avg_wait = m.n ? m.wait / (double)m.n : 0.0;
    r->max_wait = m.max_wait;
    r->avg_bsld = m.n ? m.bsld / (double)m.n : 0.0;
    r->avg_xfactor = m.n ? m.xf / (double)m.n : 0.0;
    r->procs = procs;
    class_averages(r->by_size, m.size, REPORT_NSIZE);
    class_averages(r->by_runtime, m.runtime, REPORT_NRUNTIME);
    compute_quantiles(r, wl, out);
    compute_groups(r, wl, out, s);
}

/* "12d 03:04:05" for a duration in seconds. */
static void fmt_duration(char *buf, size_t len, double secs)
{
    long s = (long)llround(secs);
    long d = s / 86400;
    s %= 86400;
    if (d)
        snprintf(buf, len, "%ldd %02ld:%02ld:%02ld", d, s / 3600, s / 60 % 60, s % 60);
    else
        snprintf(buf, len, "%02ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
}

void report_print_text(FILE *f, const struct report *r, const char *trace, const char *policy)
{
    char mk[32], aw[32], mw[32];
    fmt_duration(mk, sizeof mk, (double)r->makespan);
    fmt_duration(aw, sizeof aw, r->avg_wait);
    fmt_duration(mw, sizeof mw, (double)r->max_wait);
    fprintf(f, "moku simulate: %s\n", trace);
    fprintf(f, "  cluster              %zu nodes, %lld processors\n", r->nodes, r->procs);
    fprintf(f, "  policy               %s\n", policy);
    if (r->fs_history)
        fprintf(f, "  fairshare history    %d window%s from %s\n", r->fs_windows,
                r->fs_windows == 1 ? "" : "s", r->fs_history);
    fputc('\n', f);
    fprintf(f, "  jobs simulated       %zu\n", r->jobs);
    fprintf(f, "  jobs skipped         %zu   (trace records that cannot be replayed)\n",
            r->skipped);
    fprintf(f, "  jobs rejected        %zu   (larger than the cluster, or over MAXSUBMITJOBS)\n",
            r->rejected);
    fprintf(f, "  jobs never started   %zu   (still waiting when no event left could start them)\n",
            r->never_started);
    fprintf(f, "  makespan             %ld s   (%s)\n", r->makespan, mk);
    fprintf(f, "  utilization          %.2f %%\n", 100.0 * r->utilization);
    fprintf(f, "  average wait         %.1f s   (%s)\n", r->avg_wait, aw);
    fprintf(f, "  maximum wait         %ld s   (%s)\n", r->max_wait, mw);
    fprintf(f, "  avg bounded slowdown %.3f   (tau = 10 s)\n", r->avg_bsld);
    fprintf(f, "  avg expansion factor %.3f   ((wait + walltime) / walltime)\n", r->avg_xfactor);
    fprintf(f, "  wait p50/p95/p99     %.0f / %.0f / %.0f s\n", report_percentile(r, REPORT_WAIT, 50),
            report_percentile(r, REPORT_WAIT, 95), report_percentile(r, REPORT_WAIT, 99));
    fprintf(f, "  bsld p50/p95/p99     %.3f / %.3f / %.3f\n", report_percentile(r, REPORT_BSLD, 50),
            report_percentile(r, REPORT_BSLD, 95), report_percentile(r, REPORT_BSLD, 99));
    fprintf(f, "  jobs backfilled      %ld\n", r->backfilled);
    fprintf(f, "  iterations           %ld\n", r->iterations);
    fprintf(f, "  wall time            %.3f s   (reading the trace %.3f s before)\n", r->wall_seconds,
            r->read_seconds);
}

/* ---------------------------------------------------------------- tables */

/* A text table: column 0 holds the row labels (left-aligned), the others
 * values (right-aligned); each column is as wide as its widest cell. */
#define CELL 64

struct table {
    size_t ncols, nrows, cap;
    char (*cells)[CELL]; /* nrows x ncols */
};

static void table_init(struct table *t, size_t ncols)
{
    *t = (struct table){.ncols = ncols};
}

static char *cell(struct table *t, size_t row, size_t col)
{
    return t->cells[row * t->ncols + col];
}

/* Append a row labelled label (its value cells empty); returns its index. */
static size_t table_row(struct table *t, const char *label)
{
    if (t->nrows == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 32;
        t->cells = xrealloc(t->cells, t->cap * t->ncols * sizeof *t->cells);
    }
    memset(t->cells[t->nrows * t->ncols], 0, t->ncols * sizeof *t->cells);
    snprintf(cell(t, t->nrows, 0), CELL, "%s", label);
    return t->nrows++;
}

/* Print and free the table. No line ends with blanks: a row without values
 * is its label alone. */
static void table_print(FILE *f, struct table *t)
{
    size_t *w = xcalloc(t->ncols, sizeof *w);
    for (size_t r = 0; r < t->nrows; r++)
        for (size_t c = 0; c < t->ncols; c++)
            if (strlen(cell(t, r, c)) > w[c])
                w[c] = strlen(cell(t, r, c));
    for (size_t r = 0; r < t->nrows; r++) {
        size_t last = t->ncols - 1;
        while (last > 0 && !*cell(t, r, last))
            last--;
        if (last || *cell(t, r, 0))
            fprintf(f, "  %-*s", last ? (int)w[0] : 0, cell(t, r, 0));
        for (size_t c = 1; c <= last; c++)
            fprintf(f, "  %*s", (int)w[c], cell(t, r, c));
        fputc('\n', f);
    }
    free(w);
    free(t->cells);
}

static void fmt_class_avg(char *buf, const char *fmt, double v, size_t jobs)
{
    if (jobs)
        snprintf(buf, CELL, fmt, v);
    else
        snprintf(buf, CELL, "-");
}

/* One block of the one-run class section: a header row, then a row per class. */
static void classes_block(struct table *t, const char *title, const struct report_bound *b,
                          const struct report_class *c, int n)
{
    size_t h = table_row(t, title);
    snprintf(cell(t, h, 1), CELL, "jobs");
    snprintf(cell(t, h, 2), CELL, "avg wait (s)");
    snprintf(cell(t, h, 3), CELL, "avg bsld");
    for (int i = 0; i < n; i++) {
        char label[CELL];
        snprintf(label, sizeof label, "  %s", b[i].name);
        size_t row = table_row(t, label);
        snprintf(cell(t, row, 1), CELL, "%zu", c[i].jobs);
        fmt_class_avg(cell(t, row, 2), "%.1f", c[i].avg_wait, c[i].jobs);
        fmt_class_avg(cell(t, row, 3), "%.3f", c[i].avg_bsld, c[i].jobs);
    }
}

/* A block of groups: a header row, then a row for each of the first `top`
 * groups (the list is by processor-seconds). */
static void groups_block(struct table *t, const char *title, const struct report_group *g,
                         size_t n, size_t top)
{
    size_t h = table_row(t, title);
    snprintf(cell(t, h, 1), CELL, "jobs");
    snprintf(cell(t, h, 2), CELL, "avg wait (s)");
    snprintf(cell(t, h, 3), CELL, "avg bsld");
    n = n < top ? n : top;
    for (size_t i = 0; i < n; i++) {
        char label[CELL];
        snprintf(label, sizeof label, "  %.*s", CELL - 3, g[i].name);
        size_t row = table_row(t, label);
        snprintf(cell(t, row, 1), CELL, "%zu", g[i].jobs);
        snprintf(cell(t, row, 2), CELL, "%.1f", g[i].avg_wait);
        snprintf(cell(t, row, 3), CELL, "%.3f", g[i].avg_bsld);
    }
}

void report_print_classes_text(FILE *f, const struct report *r)
{
    struct table t;
    table_init(&t, 4);
    classes_block(&t, "by job size (processors)", size_bounds, r->by_size, REPORT_NSIZE);
    table_row(&t, "");
    classes_block(&t, "by runtime", runtime_bounds, r->by_runtime, REPORT_NRUNTIME);
    table_row(&t, "");
    groups_block(&t, "by user (top 10 by processor-seconds)", r->users, r->nusers, 10);
    table_row(&t, "");
    groups_block(&t, "by class", r->classes, r->nclasses, r->nclasses);
    fputc('\n', f);
    table_print(f, &t);
}

/* ------------------------------------------------------- several runs */

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash && slash[1] ? slash + 1 : path;
}

/* A row of one value per run: the format's arguments may name x, the run
 * (const struct report_run *), and i_, its index from 0. */
#define RUNS_ROW(t, label, runs, n, ...)                                                           \
    do {                                                                                           \
        size_t row_ = table_row((t), (label));                                                     \
        for (size_t i_ = 0; i_ < (n); i_++) {                                                      \
            const struct report_run *x = &(runs)[i_];                                              \
            (void)x;                                                                               \
            snprintf(cell((t), row_, i_ + 1), CELL, __VA_ARGS__);                                  \
        }                                                                                          \
    } while (0)

/* The fairshare history row, when some run read one: "N windows from
 * DIR", or "none". */
static void fs_history_row(struct table *t, const struct report_run *runs, size_t n)
{
    int any = 0;
    for (size_t i = 0; i < n; i++)
        any |= runs[i].r.fs_history != NULL;
    if (!any)
        return;
    size_t row = table_row(t, "fairshare history");
    for (size_t i = 0; i < n; i++) {
        const struct report *r = &runs[i].r;
        if (r->fs_history)
            snprintf(cell(t, row, i + 1), CELL, "%d windows from %s", r->fs_windows,
                     r->fs_history);
        else
            snprintf(cell(t, row, i + 1), CELL, "none");
    }
}

/* The --compare row: labelled with the parameter, a value per run. */
static void varied_row(struct table *t, const struct report_run *runs, size_t n)
{
    const char *line = runs[0].overrides[runs[0].noverrides - 1];
    char label[CELL];
    snprintf(label, sizeof label, "%.*s", (int)strcspn(line, "= \t"), line);
    size_t row = table_row(t, label);
    for (size_t i = 0; i < n; i++) {
        const char *v = runs[i].overrides[runs[i].noverrides - 1];
        v += strcspn(v, "= \t");
        v += strspn(v, "= \t");
        snprintf(cell(t, row, i + 1), CELL, "%s", v);
    }
}

static void runs_metrics(struct table *t, const struct report_run *runs, size_t n)
{
    RUNS_ROW(t, "run", runs, n, "%zu", i_ + 1);
    RUNS_ROW(t, "configuration", runs, n, "%s", x->config ? base_name(x->config) : "defaults");
    if (runs[0].varied)
        varied_row(t, runs, n);
    RUNS_ROW(t, "backfill policy", runs, n, "%s", x->backfill);
    RUNS_ROW(t, "reservation depth", runs, n, "%d", x->resdepth);
    fs_history_row(t, runs, n);
    RUNS_ROW(t, "processors", runs, n, "%lld", x->r.procs);
    RUNS_ROW(t, "jobs simulated", runs, n, "%zu", x->r.jobs);
    RUNS_ROW(t, "jobs skipped", runs, n, "%zu", x->r.skipped);
    RUNS_ROW(t, "jobs rejected", runs, n, "%zu", x->r.rejected);
    RUNS_ROW(t, "jobs never started", runs, n, "%zu", x->r.never_started);
    RUNS_ROW(t, "makespan (s)", runs, n, "%ld", x->r.makespan);
    RUNS_ROW(t, "utilization (%)", runs, n, "%.2f", 100.0 * x->r.utilization);
    RUNS_ROW(t, "average wait (s)", runs, n, "%.1f", x->r.avg_wait);
    RUNS_ROW(t, "maximum wait (s)", runs, n, "%ld", x->r.max_wait);
    RUNS_ROW(t, "avg bounded slowdown", runs, n, "%.3f", x->r.avg_bsld);
    RUNS_ROW(t, "avg expansion factor", runs, n, "%.3f", x->r.avg_xfactor);
    RUNS_ROW(t, "wait p50 (s)", runs, n, "%.0f", report_percentile(&x->r, REPORT_WAIT, 50));
    RUNS_ROW(t, "wait p95 (s)", runs, n, "%.0f", report_percentile(&x->r, REPORT_WAIT, 95));
    RUNS_ROW(t, "wait p99 (s)", runs, n, "%.0f", report_percentile(&x->r, REPORT_WAIT, 99));
    RUNS_ROW(t, "bsld p50", runs, n, "%.3f", report_percentile(&x->r, REPORT_BSLD, 50));
    RUNS_ROW(t, "bsld p95", runs, n, "%.3f", report_percentile(&x->r, REPORT_BSLD, 95));
    RUNS_ROW(t, "bsld p99", runs, n, "%.3f", report_percentile(&x->r, REPORT_BSLD, 99));
    RUNS_ROW(t, "jobs backfilled", runs, n, "%ld", x->r.backfilled);
    RUNS_ROW(t, "iterations", runs, n, "%ld", x->r.iterations);
    RUNS_ROW(t, "wall time (s)", runs, n, "%.3f", x->r.wall_seconds);
}

/* Three rows per class (jobs, average wait, average bounded slowdown), a
 * column per run; by_size selects the kind of class. */
static void runs_classes(struct table *t, const char *title, const struct report_run *runs,
                         size_t n, int by_size)
{
    const struct report_bound *b = by_size ? size_bounds : runtime_bounds;
    int nc = by_size ? REPORT_NSIZE : REPORT_NRUNTIME;
    table_row(t, "");
    table_row(t, title);
    for (int c = 0; c < nc; c++) {
        char label[CELL];
        snprintf(label, sizeof label, "  %-8s jobs", b[c].name);
        size_t rj = table_row(t, label);
        size_t rw = table_row(t, "           avg wait (s)");
        size_t rb = table_row(t, "           avg bsld");
        for (size_t i = 0; i < n; i++) {
            const struct report_class *k =
                by_size ? &runs[i].r.by_size[c] : &runs[i].r.by_runtime[c];
            snprintf(cell(t, rj, i + 1), CELL, "%zu", k->jobs);
            fmt_class_avg(cell(t, rw, i + 1), "%.1f", k->avg_wait, k->jobs);
            fmt_class_avg(cell(t, rb, i + 1), "%.3f", k->avg_bsld, k->jobs);
        }
    }
}

void report_print_runs_text(FILE *f, const char *trace, const struct report_run *runs, size_t n)
{
    fprintf(f, "moku simulate: %s, %zu runs\n", trace, n);
    size_t common = n ? runs[0].noverrides - (runs[0].varied ? 1 : 0) : 0;
    for (size_t i = 0; i < common; i++)
        fprintf(f, "  every run: --set %s\n", runs[0].overrides[i]);
    fputc('\n', f);
    struct table t;
    table_init(&t, n + 1);
    runs_metrics(&t, runs, n);
    runs_classes(&t, "by job size (processors)", runs, n, 1);
    runs_classes(&t, "by runtime", runs, n, 0);
    table_print(f, &t);
}

/* ------------------------------------------------------------------ JSON */

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(f, "\\%c", ch);
        else if (ch < 0x20)
            fprintf(f, "\\u%04x", ch);
        else
            fputc(ch, f);
    }
    fputc('"', f);
}

/* The one-run keys, without the braces. */
static void json_fields(FILE *f, const struct report *r)
{
    fprintf(f,
            "\"jobs\":%zu,\"skipped\":%zu,\"rejected\":%zu,\"never_started\":%zu,"
            "\"makespan\":%ld,"
            "\"utilization\":%.6f,\"avg_wait\":%.3f,\"max_wait\":%ld,\"avg_bsld\":%.6f,"
            "\"avg_xfactor\":%.6f,\"backfilled\":%ld,\"iterations\":%ld,\"wall_seconds\":%.6f,"
            "\"read_seconds\":%.6f",
            r->jobs, r->skipped, r->rejected, r->never_started, r->makespan, r->utilization, r->avg_wait, r->max_wait,
            r->avg_bsld, r->avg_xfactor, r->backfilled, r->iterations, r->wall_seconds,
            r->read_seconds);
    if (r->fs_history) {
        fprintf(f, ",\"fs_history\":{\"dir\":");
        json_string(f, r->fs_history);
        fprintf(f, ",\"windows\":%d}", r->fs_windows);
    }
}

/* ,"percentiles":{"wait":{"p50":..,"p95":..,"p99":..},...} */
static void json_percentiles(FILE *f, const struct report *r)
{
    static const double ps[] = {50, 95, 99};
    fprintf(f, ",\"percentiles\":{");
    for (int d = 0; d < REPORT_NDIST; d++) {
        fprintf(f, "%s\"%s\":{", d ? "," : "", report_dist_name((enum report_dist)d));
        for (int k = 0; k < 3; k++)
            fprintf(f, "%s\"p%.0f\":%.6g", k ? "," : "", ps[k],
                    report_percentile(r, (enum report_dist)d, ps[k]));
        fputc('}', f);
    }
    fputc('}', f);
}

/* ,"KEY":[{"name":..,"jobs":..,"proc_seconds":..,"share":..,"avg_wait":..,"avg_bsld":..},...] */
static void json_groups(FILE *f, const char *key, const struct report_group *g, size_t n)
{
    double total = 0;
    for (size_t i = 0; i < n; i++)
        total += g[i].proc_seconds;
    fprintf(f, ",\"%s\":[", key);
    for (size_t i = 0; i < n; i++) {
        fprintf(f, "%s{\"name\":", i ? "," : "");
        json_string(f, g[i].name);
        fprintf(f, ",\"jobs\":%zu,\"proc_seconds\":%.0f,\"share\":%.6f,\"avg_wait\":%.3f,"
                   "\"avg_bsld\":%.6f}",
                g[i].jobs, g[i].proc_seconds, total > 0 ? g[i].proc_seconds / total : 0.0,
                g[i].avg_wait, g[i].avg_bsld);
    }
    fputc(']', f);
}

/* What follows the one-run keys in every JSON report. */
static void json_extras(FILE *f, const struct report *r)
{
    json_percentiles(f, r);
    json_groups(f, "by_user", r->users, r->nusers);
    json_groups(f, "by_class", r->classes, r->nclasses);
}

static void json_class_list(FILE *f, const struct report_bound *b, const struct report_class *c,
                            int n)
{
    fputc('[', f);
    for (int i = 0; i < n; i++) {
        fprintf(f, "%s{\"class\":", i ? "," : "");
        json_string(f, b[i].name);
        fprintf(f, ",\"min\":%lld,\"max\":", b[i].lo);
        if (b[i].hi < 0)
            fprintf(f, "null");
        else
            fprintf(f, "%lld", b[i].hi);
        fprintf(f, ",\"jobs\":%zu,\"avg_wait\":%.3f,\"avg_bsld\":%.6f}", c[i].jobs, c[i].avg_wait,
                c[i].avg_bsld);
    }
    fputc(']', f);
}

/* ,"classes":{"size":[...],"runtime":[...]} */
static void json_classes(FILE *f, const struct report *r)
{
    fprintf(f, ",\"classes\":{\"size\":");
    json_class_list(f, size_bounds, r->by_size, REPORT_NSIZE);
    fprintf(f, ",\"runtime\":");
    json_class_list(f, runtime_bounds, r->by_runtime, REPORT_NRUNTIME);
    fputc('}', f);
}

void report_print_json(FILE *f, const struct report *r, int classes)
{
    fputc('{', f);
    json_fields(f, r);
    json_extras(f, r);
    if (classes)
        json_classes(f, r);
    fprintf(f, "}\n");
}

void report_print_runs_json(FILE *f, const struct report_run *runs, size_t n)
{
    fprintf(f, "{\"runs\":[");
    for (size_t i = 0; i < n; i++) {
        fprintf(f, "%s{\"config\":", i ? "," : "");
        if (runs[i].config)
            json_string(f, runs[i].config);
        else
            fprintf(f, "null");
        fprintf(f, ",\"overrides\":[");
        for (size_t k = 0; k < runs[i].noverrides; k++) {
            if (k)
                fputc(',', f);
            json_string(f, runs[i].overrides[k]);
        }
        fprintf(f, "],");
        json_fields(f, &runs[i].r);
        json_extras(f, &runs[i].r);
        json_classes(f, &runs[i].r);
        fputc('}', f);
    }
    fprintf(f, "]}\n");
}

/* -------------------------------------------------------------------- CSV */

void report_csv_field(FILE *f, const char *v)
{
    if (!v)
        v = "";
    if (!strpbrk(v, ",\"\r\n")) {
        fputs(v, f);
        return;
    }
    fputc('"', f);
    for (; *v; v++) {
        if (*v == '"')
            fputc('"', f);
        fputc(*v, f);
    }
    fputc('"', f);
}

static const char *cred_name(const struct cred *c)
{
    return c ? c->name : "";
}

const char *report_final_state(const struct sim_outcome *o)
{
    if (o->rejected)
        return "rejected";
    const struct job *j = o->job;
    if (o->end >= 0)
        return o->cancelled ? "cancelled" : o->killed ? "killed" : "completed";
    if (!j) /* outcomes without a scheduler behind them (tests) */
        return o->start >= 0 ? "running" : "never_started";
    if (j->state == JOB_REMOVED)
        return "cancelled";
    if (j->state == JOB_RUNNING)
        return (j->flags & JOB_PREEMPTED) ? "preempted" : "running";
    return o->preempted ? "preempted" : "never_started";
}

/* Why a job that never ran did not: the engine's reason, or that no node
 * it may use can ever hold it (a feature no node has, more than a node). */
static const char *never_reason(struct sched *s, const struct job *j, long now, char *buf,
                                size_t n)
{
    if (!sched_job_blocked(s, j) && sched_job_advres_refused(s, j, buf, n))
        return buf;
    if (!sched_job_blocked(s, j) && sched_earliest_start(s, j, now) >= SCHED_NEVER) {
        int len = snprintf(buf, n, "the nodes it may use can never hold it");
        for (size_t k = 0; k < j->nfeatures && len > 0 && (size_t)len < n; k++)
            len += snprintf(buf + len, n - (size_t)len, "%s%s", k ? "," : " (features: ",
                            j->features[k]);
        if (j->nfeatures && len > 0 && (size_t)len < n)
            snprintf(buf + len, n - (size_t)len, ")");
        return buf;
    }
    struct cmd_ctx c = {.s = s, .now = now};
    return cmd_wait_reason(&c, j, buf, n);
}

void report_job_creds(const struct sim_outcome *o, const struct sched *s,
                      const struct cred *creds[CRED_NKINDS])
{
    const struct job *j = o->job;
    memset(creds, 0, CRED_NKINDS * sizeof *creds);
    if (j) {
        const struct cred *c[CRED_NKINDS] = {j->user, j->group, j->account, j->class_, j->qos};
        memcpy(creds, c, sizeof c);
    } else if (o->end >= 0 && s) { /* ended, its engine record forgotten */
        for (int k = 0; k < CRED_NKINDS; k++)
            creds[k] = cred_at(sched_creds(s, (enum cred_kind)k), o->cred[k]);
    }
}

static void csv_row(FILE *f, const struct wl_job *w, const struct sim_outcome *o,
                    struct sched *s, long now)
{
    const struct job *j = o->job;
    report_csv_field(f, w->id);
    fprintf(f, ",%ld,", w->submit);
    if (o->start >= 0)
        fprintf(f, "%ld", o->run_start);
    fputc(',', f);
    if (o->end >= 0)
        fprintf(f, "%ld", o->end);
    fputc(',', f);
    if (o->start >= 0)
        fprintf(f, "%ld", o->start - w->submit);
    fprintf(f, ",%lld,%ld,%ld,%d,%d", wl_job_procs(w), w->walltime, w->runtime, o->backfilled,
            o->preempted);
    const struct cred *creds[CRED_NKINDS];
    report_job_creds(o, s, creds);
    for (size_t k = 0; k < CRED_NKINDS; k++) {
        fputc(',', f);
        /* No account is written as none (empty), not as DEFAULT. */
        if (k != 2 || (creds[k] && creds[k]->index != 0))
            report_csv_field(f, cred_name(creds[k]));
    }
    const char *state = report_final_state(o);
    fprintf(f, ",%s,", state);
    char buf[512];
    if (o->rejected)
        report_csv_field(f, o->more ? o->more->reason : NULL);
    else if (j && (!strcmp(state, "never_started") || (!strcmp(state, "preempted") && o->start < 0)))
        report_csv_field(f, never_reason(s, j, now, buf, sizeof buf));
    fputc(',', f);
    if (o->start >= 0 && o->more)
        sim_format_slots(f, s, o->more->slots, o->more->nslots);
    fputc(',', f);
    report_csv_field(f, o->more ? o->more->segments : NULL);
    fputc('\n', f);
}

int report_write_jobs_csv(FILE *f, const struct workload *wl, const struct sim_outcome *out,
                          struct sched *s, long now, int run)
{
    if (run <= 1)
        fprintf(f,
                "%sjob_id,submit,start,end,wait,procs,walltime,runtime,backfilled,preempted,"
                "user,group,account,class,qos,state,reason,nodes,segments\n",
                run == 1 ? "run," : "");
    for (size_t i = 0; i < wl->njobs; i++) {
        if (run >= 1)
            fprintf(f, "%d,", run);
        csv_row(f, &wl->jobs[i], &out[i], s, now);
    }
    return ferror(f) ? -1 : 0;
}
