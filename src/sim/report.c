/* report — see report.h. The comparison of several runs is report_runs.c. */
#include "sim/report.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "core/cred.h"
#include "engine/engine.h"
#include "sim/report_int.h"
#include "sim/rowq.h"
#include "util/mem.h"
#include "util/strmap.h"

#define BSLD_TAU 10.0 /* seconds: the customary bound for very short jobs (--bsld-tau) */

double report_tau(const struct report *r)
{
    return r->bsld_tau > 0 ? r->bsld_tau : BSLD_TAU;
}

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
    double tau;
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

/* fmax(a, b) where b is a number (fmax, a call into libm, cost a job's
 * pass more than its arithmetic): b when a is NaN, as fmax. */
static double larger(double a, double b)
{
    return a > b ? a : b;
}

/* Bounded slowdown: max(1, (wait + run) / max(run, tau)). */
static double job_bsld(long wait, long run, double tau)
{
    double b = (double)(wait + run) / larger((double)run, tau);
    return b < 1.0 ? 1.0 : b;
}

static void add_job(struct sums *m, const struct wl_job *w, const struct sim_outcome *o,
                    long long procs, long wait, long run, double bsld)
{
    if (m->n == 0 || w->submit < m->first_submit)
        m->first_submit = w->submit;
    if (m->n == 0 || o->end > m->last_end)
        m->last_end = o->end;
    m->wait += (double)wait;
    if (wait > m->max_wait)
        m->max_wait = wait;
    m->bsld += bsld;
    m->xf += (double)(wait + wl_job_walltime(w)) / (double)wl_job_walltime(w);
    m->procsec += (double)procs * (double)run;
    m->n++;
    add_class(&m->size[report_size_class(procs)], wait, bsld);
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

/* A job that ran to its end and was not rejected. */
static int ended(const struct sim_outcome *o)
{
    return !o->rejected && o->end >= 0;
}

/* A job measured: it ended, and was submitted inside the window if any. */
static int measured(const struct report *r, const struct wl_job *w, const struct sim_outcome *o)
{
    return ended(o) && (!r->windowed || (w->submit >= r->window_lo && w->submit <= r->window_hi));
}

/* Distribution d's value for a measured job. */
static double dist_value(enum report_dist d, const struct wl_job *w, const struct sim_outcome *o,
                         double tau)
{
    long wait = o->start - w->submit, run = o->end - o->start;
    switch (d) {
    case REPORT_WAIT:
        return (double)wait;
    case REPORT_BSLD:
        return job_bsld(wait, run, tau);
    default:
        return (double)(wait + run);
    }
}

/* Put in place, in a[lo..hi), the keys of the ranks rank[0..nr) (indices
 * into a, ascending, each in [lo, hi)): a[rank[i]] is then what a sorted a
 * would hold there. Keys are the IEEE 754 bit patterns of non-negative
 * doubles, which order as the numbers do. A quickselect for many ranks at
 * once, in place: the quantiles cost 8 bytes a job while they are
 * computed, not the 16 of a radix sort and its second array (a
 * million-job replay's memory peaks here). Three-way partitions, as many
 * keys are equal (every wait of 0); the smaller side by recursion, the
 * larger by the loop, so the stack stays within log n. */
static void select_ranks(uint64_t *a, size_t lo, size_t hi, const size_t *rank, size_t nr)
{
    while (nr && hi - lo > 1) {
        uint64_t x = a[lo], y = a[lo + (hi - lo) / 2], z = a[hi - 1];
        uint64_t pivot = x < y ? (y < z ? y : x < z ? z : x) : (x < z ? x : y < z ? z : y);
        size_t lt = lo, i = lo, gt = hi; /* [lo,lt) <, [lt,i) =, [gt,hi) > pivot */
        while (i < gt) {
            uint64_t k = a[i];
            if (k < pivot) {
                a[i++] = a[lt];
                a[lt++] = k;
            } else if (k > pivot) {
                a[i] = a[--gt];
                a[gt] = k;
            } else {
                i++;
            }
        }
        size_t nl = 0, nh = 0; /* the ranks below lt, and from gt on */
        while (nl < nr && rank[nl] < lt)
            nl++;
        while (nh < nr - nl && rank[nr - 1 - nh] >= gt)
            nh++;
        const size_t *high = rank + nr - nh;
        if (lt - lo < hi - gt) {
            select_ranks(a, lo, lt, rank, nl);
            lo = gt, rank = high, nr = nh;
        } else {
            select_ranks(a, gt, hi, high, nh);
            hi = lt, nr = nl;
        }
    }
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

/*
 * The keys of ranks rank[0..REPORT_NQUANT) (ascending) of a[0..n), whose
 * range is g, into key[]; a[] is rearranged; cnt: QBUCKETS counters of
 * scratch. Before the quickselect, two passes keep only the keys it needs:
 * a histogram of the keys by their top bits, then the keys of the buckets
 * that hold a rank moved to the front. The quickselect then sorts out a
 * few thousand keys instead of every job's over some eight partitions with
 * a branch no predictor guesses; a rank's bucket of equal keys costs it
 * one partition.
 *
 * Buckets: the smallest key alone in bucket 0, never kept (waits of 0
 * would otherwise stretch the scale over the octaves between 0 and 1 s),
 * the others by their distance from the second smallest, shifted to fit
 * QBUCKETS. HPC2N keeps some 1,400 waits of 200,000, 600 slowdowns and
 * 42,000 turnarounds, most of them the very key their rank wants. Keys of
 * non-negative doubles order as the numbers; bucket order is key order.
 */
#define QBUCKETS (1u << 16)

/* The keys' range, noted as they are gathered (no pass of its own). */
struct qrange {
    uint64_t min, min2, max; /* the smallest key, the smallest above it, the largest */
};

#define QRANGE_EMPTY ((struct qrange){UINT64_MAX, UINT64_MAX, 0})

static void qrange_add(struct qrange *g, uint64_t k)
{
    if (k < g->min) {
        g->min2 = g->min;
        g->min = k;
    } else if (k > g->min && k < g->min2) {
        g->min2 = k;
    }
    g->max = k > g->max ? k : g->max;
}

struct qscale {
    uint64_t min, min2;
    int shift;
};

static size_t qbucket(const struct qscale *sc, uint64_t k)
{
    return k == sc->min ? 0 : 1 + (size_t)((k - sc->min2) >> sc->shift);
}

static struct qscale qscale_of(const struct qrange *g)
{
    struct qscale sc = {.min = g->min, .min2 = g->min2};
    while (sc.min2 != UINT64_MAX && (g->max - sc.min2) >> sc.shift >= QBUCKETS - 1)
        sc.shift++;
    return sc;
}

static void select_quantiles(uint64_t *a, size_t n, const struct qrange *g, const size_t *rank,
                             uint32_t *cnt, uint64_t *key)
{
    const size_t nr = REPORT_NQUANT;
    struct qscale sc = qscale_of(g);
    memset(cnt, 0, QBUCKETS * sizeof *cnt);
    for (size_t i = 0; i < n; i++)
        cnt[qbucket(&sc, a[i])]++;
    size_t q = 0, at[REPORT_NQUANT];
    for (; q < nr && rank[q] < cnt[0]; q++) /* bucket 0: the smallest key, nothing to select */
        key[q] = sc.min;
    size_t q0 = q, kept = 0, below = cnt[0]; /* keys kept, keys in buckets before b */
    cnt[0] = 0;                              /* from here: 1 kept, 0 not */
    for (size_t b = 1; b < QBUCKETS; b++) {
        size_t c = cnt[b], first = q;
        for (; q < nr && rank[q] < below + c; q++)
            at[q] = kept + rank[q] - below;
        below += c;
        cnt[b] = q > first;
        kept += q > first ? c : 0;
    }
    size_t w = 0;
    for (size_t i = 0; i < n; i++)
        if (cnt[qbucket(&sc, a[i])])
            a[w++] = a[i];
    select_ranks(a, 0, w, at + q0, nr - q0);
    for (q = q0; q < nr; q++)
        key[q] = a[at[q]];
}

/* The keys of distribution d over the measured jobs, in job order, into v;
 * their range into *g. Returns how many. */
static size_t gather_keys(uint64_t *v, struct qrange *g, enum report_dist d, const struct report *r,
                          const struct workload *wl, const struct sim_outcome *out)
{
    size_t n = 0;
    *g = QRANGE_EMPTY;
    for (size_t i = 0; i < wl->njobs; i++)
        if (measured(r, &wl->jobs[i], &out[i])) {
            v[n] = key_of(larger(dist_value(d, &wl->jobs[i], &out[i], report_tau(r)), 0.0));
            qrange_add(g, v[n++]);
        }
    return n;
}

/* What the quantiles read (r's window and bound) and write (r->quant
 * alone: they run beside the pass over the jobs, which writes the rest). */
struct qwork {
    struct report *r;
    const struct workload *wl;
    const struct sim_outcome *out;
};

/* Nearest-rank quantiles: the value of rank ceil(q n) for q = i / 200. One
 * scratch array v serves the three distributions in turn, so the report
 * costs a double per job at most (room for every job of the workload, of
 * which the measured touch the head), and only while it is computed. */
static void *compute_quantiles(void *arg)
{
    const struct qwork *qw = arg;
    struct report *r = qw->r;
    memset(r->quant, 0, sizeof r->quant);
    _Static_assert(sizeof(double) == sizeof(uint64_t), "doubles sort as 64-bit patterns");
    uint64_t *v = xmalloc((qw->wl->njobs ? qw->wl->njobs : 1) * sizeof *v);
    uint32_t *cnt = xmalloc(QBUCKETS * sizeof *cnt); /* counts below 2^31: sim.h */
    size_t rank[REPORT_NQUANT];
    for (int d = 0; d < REPORT_NDIST; d++) {
        struct qrange g;
        size_t n = gather_keys(v, &g, (enum report_dist)d, r, qw->wl, qw->out);
        if (!n)
            break;
        for (int q = 0; q < REPORT_NQUANT; q++) {
            size_t k = (size_t)ceil((double)q * (double)n / (REPORT_NQUANT - 1) - 1e-9);
            rank[q] = k ? k - 1 : 0;
        }
        uint64_t key[REPORT_NQUANT];
        select_quantiles(v, n, &g, rank, cnt, key);
        for (int q = 0; q < REPORT_NQUANT; q++)
            r->quant[d][q] = value_of(key[q]);
    }
    free(cnt);
    free(v);
    return NULL;
}

/* ------------------------------------------------------------- groups */

/* Groups being summed: the list, and a map from name to position. */
struct gsum {
    struct report_group *g; /* avg_wait and avg_bsld hold sums until the end */
    size_t n, cap;
    struct strmap at;
    const char *last; /* the name of the last job added, and its group */
    size_t last_i;
};

/* The position of name's group, made if new. */
static size_t gsum_at(struct gsum *s, const char *name)
{
    /* Consecutive jobs mostly share a user and a class. The names are the
     * engine's or the workload's, alive and unchanged while the groups are
     * summed, so the same pointer is the same name: no hashing. */
    size_t i;
    if (name == s->last)
        return s->last_i;
    if (!strmap_get(&s->at, name, &i)) {
        s->g = xgrow(s->g, &s->cap, s->n + 1, sizeof *s->g);
        i = s->n++;
        s->g[i] = (struct report_group){.name = xstrdup(name)};
        strmap_put(&s->at, s->g[i].name, i);
    }
    s->last = name;
    s->last_i = i;
    return i;
}

static void group_add(struct report_group *g, long wait, double bsld, double procsec)
{
    g->jobs++;
    g->proc_seconds += procsec;
    g->avg_wait += (double)wait;
    g->avg_bsld += bsld;
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
 * c's, else the workload's. */
static const char *group_name(const struct cred *c, const struct wl_job *w, enum cred_kind k)
{
    if (c)
        return c->name;
    const struct wl_names *nm = wl_job_names(w);
    const char *name = k == CRED_USER ? nm->user : nm->class_;
    return name ? name : "DEFAULT";
}

/* What the one pass over the jobs gathers: the sums and the groups. */
struct pass {
    struct sums m;
    struct gsum users, classes;
    const struct sched *s;
    /* The last forgotten job's user and class (indices in s's tables) and
     * their groups: consecutive jobs mostly share them (a user's jobs come
     * in bursts), and then need no lookup. */
    int have_last;
    unsigned last_user, last_class;
    size_t user_at, class_at;
};

/* The positions of a measured job's user and class groups, by the names
 * of its engine record, else of s's tables (the record was forgotten when
 * the job ended), else of the workload. */
static void groups_of(struct pass *p, const struct wl_job *w, const struct sim_outcome *o,
                      size_t *user, size_t *class_)
{
    const struct job *j = sim_outcome_job(p->s, o);
    if (j || !p->s) {
        *user = gsum_at(&p->users, group_name(j ? j->user : NULL, w, CRED_USER));
        *class_ = gsum_at(&p->classes, group_name(j ? j->class_ : NULL, w, CRED_CLASS));
        return;
    }
    unsigned u = sim_outcome_cred(o, CRED_USER), c = sim_outcome_cred(o, CRED_CLASS);
    if (!p->have_last || u != p->last_user || c != p->last_class) {
        const struct cred *cu = cred_at(sched_creds(p->s, CRED_USER), u),
                          *cc = cred_at(sched_creds(p->s, CRED_CLASS), c);
        p->user_at = gsum_at(&p->users, group_name(cu, w, CRED_USER));
        p->class_at = gsum_at(&p->classes, group_name(cc, w, CRED_CLASS));
        /* A name from the workload is the job's own, not the indices'. */
        p->have_last = cu && cc;
        p->last_user = u;
        p->last_class = c;
    }
    *user = p->user_at;
    *class_ = p->class_at;
}

/* A measured job into every sum and its groups. */
static void measure_job(struct pass *p, const struct wl_job *w, const struct sim_outcome *o)
{
    long wait = o->start - w->submit, run = o->end - o->start;
    long long procs = wl_job_procs(w);
    double bsld = job_bsld(wait, run, p->m.tau), ps = (double)procs * (double)run;
    add_job(&p->m, w, o, procs, wait, run, bsld);
    size_t user, class_;
    groups_of(p, w, o, &user, &class_);
    group_add(&p->users.g[user], wait, bsld, ps);
    group_add(&p->classes.g[class_], wait, bsld, ps);
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

/* Jain's fairness index of the users' average waits. */
static double wait_fairness(const struct report *r)
{
    double sum = 0, sq = 0;
    for (size_t i = 0; i < r->nusers; i++) {
        sum += r->users[i].avg_wait;
        sq += r->users[i].avg_wait * r->users[i].avg_wait;
    }
    return sq > 0 ? sum * sum / ((double)r->nusers * sq) : 1.0;
}

/* Processor-seconds of every job that ran inside [lo, hi], over the
 * processors and the window's length: utilization within the window. */
static double window_utilization(const struct report *r, const struct workload *wl,
                                 const struct sim_outcome *out, long long procs)
{
    double used = 0;
    for (size_t i = 0; i < wl->njobs; i++) {
        if (!ended(&out[i]))
            continue;
        long a = out[i].start > r->window_lo ? out[i].start : r->window_lo;
        long b = out[i].end < r->window_hi ? out[i].end : r->window_hi;
        if (b > a)
            used += (double)wl_job_procs(&wl->jobs[i]) * (double)(b - a);
    }
    long len = r->window_hi - r->window_lo;
    return len > 0 && procs > 0 ? used / ((double)procs * (double)len) : 0.0;
}

/* One pass over the jobs, in their order (sums of fractions come out as
 * they always did): a job is read once, not once per metric. The
 * quantiles, the other half of the work, in a thread of their own
 * meanwhile (here after the pass when no thread can be started). */
void report_compute(struct report *r, const struct workload *wl, const struct sim_outcome *out,
                    long long procs, const struct sched *s)
{
    struct pass p = {.m = {.tau = report_tau(r)}, .s = s};
    strmap_init(&p.users.at);
    strmap_init(&p.classes.at);
    size_t rejected = 0;
    report_free(r);
    struct qwork qw = {r, wl, out};
    pthread_t quantiles;
    int threaded = pthread_create(&quantiles, NULL, compute_quantiles, &qw) == 0;
    r->never_started = r->excluded = 0;
    for (size_t i = 0; i < wl->njobs; i++) {
        if (out[i].rejected)
            rejected++;
        else if (measured(r, &wl->jobs[i], &out[i]))
            measure_job(&p, &wl->jobs[i], &out[i]);
        else if (out[i].end >= 0)
            r->excluded++;
        else if (out[i].start < 0 && sim_outcome_job(s, &out[i]) &&
                 sim_outcome_job(s, &out[i])->state == JOB_IDLE)
            r->never_started++;
    }
    const struct sums *m = &p.m;
    r->jobs = m->n;
    r->skipped = wl->skipped;
    r->unfinished = wl->unfinished;
    r->rejected = rejected;
    r->makespan = m->n ? m->last_end - m->first_submit : 0;
    r->utilization =
        r->makespan > 0 && procs > 0 ? m->procsec / ((double)procs * (double)r->makespan) : 0.0;
    if (r->windowed)
        r->utilization = window_utilization(r, wl, out, procs);
    r->avg_wait = m->n ? m->wait / (double)m->n : 0.0;
    r->max_wait = m->max_wait;
    r->avg_bsld = m->n ? m->bsld / (double)m->n : 0.0;
    r->avg_xfactor = m->n ? m->xf / (double)m->n : 0.0;
    r->procs = procs;
    class_averages(r->by_size, m->size, REPORT_NSIZE);
    class_averages(r->by_runtime, m->runtime, REPORT_NRUNTIME);
    if (threaded)
        pthread_join(quantiles, NULL);
    else
        compute_quantiles(&qw);
    gsum_finish(&p.users, &r->users, &r->nusers);
    gsum_finish(&p.classes, &r->classes, &r->nclasses);
    r->wait_fairness = wait_fairness(r);
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
    if (r->fs_history[0])
        fprintf(f, "  fairshare history    %d window%s from %s\n", r->fs_windows,
                r->fs_windows == 1 ? "" : "s", r->fs_history);
    fputc('\n', f);
    fprintf(f, "  jobs simulated       %zu\n", r->jobs);
    if (r->unfinished)
        fprintf(f,
                "  jobs skipped         %zu   (trace records that cannot be replayed; %zu of "
                "them unfinished when the log was taken)\n",
                r->skipped, r->unfinished);
    else
        fprintf(f, "  jobs skipped         %zu   (trace records that cannot be replayed)\n",
                r->skipped);
    fprintf(f, "  jobs rejected        %zu   (larger than the cluster, or over MAXSUBMITJOBS)\n",
            r->rejected);
    fprintf(f, "  jobs never started   %zu   (still waiting when no event left could start them)\n",
            r->never_started);
    if (r->windowed)
        fprintf(f,
                "  jobs excluded        %zu   (submitted in the warm-up or cool-down: "
                "simulated, not measured)\n",
                r->excluded);
    fprintf(f, "  makespan             %ld s   (%s)\n", r->makespan, mk);
    fprintf(f, "  utilization          %.2f %%%s\n", 100.0 * r->utilization,
            r->windowed ? "   (inside the measured window)" : "");
    fprintf(f, "  average wait         %.1f s   (%s)\n", r->avg_wait, aw);
    fprintf(f, "  maximum wait         %ld s   (%s)\n", r->max_wait, mw);
    fprintf(f, "  avg bounded slowdown %.3f   (tau = %g s)\n", r->avg_bsld, report_tau(r));
    fprintf(f, "  avg expansion factor %.3f   ((wait + walltime) / walltime)\n", r->avg_xfactor);
    fprintf(f, "  wait fairness        %.3f   (Jain's index of the users' average waits)\n",
            r->wait_fairness);
    fprintf(f, "  wait p50/p95/p99     %.0f / %.0f / %.0f s\n",
            report_percentile(r, REPORT_WAIT, 50), report_percentile(r, REPORT_WAIT, 95),
            report_percentile(r, REPORT_WAIT, 99));
    fprintf(f, "  bsld p50/p95/p99     %.3f / %.3f / %.3f\n", report_percentile(r, REPORT_BSLD, 50),
            report_percentile(r, REPORT_BSLD, 95), report_percentile(r, REPORT_BSLD, 99));
    fprintf(f, "  jobs backfilled      %ld\n", r->backfilled);
    fprintf(f, "  iterations           %ld\n", r->iterations);
    fprintf(f, "  wall time            %.3f s   (reading the trace %.3f s before)\n",
            r->wall_seconds, r->read_seconds);
}

/* ---------------------------------------------------------------- tables */

void report_table_init(struct report_table *t, size_t ncols)
{
    *t = (struct report_table){.ncols = ncols};
}

char *report_cell(struct report_table *t, size_t row, size_t col)
{
    return t->cells[row * t->ncols + col];
}

/* Append a row labelled label (its value cells empty); returns its index. */
size_t report_table_row(struct report_table *t, const char *label)
{
    if (t->nrows == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 32;
        t->cells = xrealloc(t->cells, t->cap * t->ncols * sizeof *t->cells);
    }
    memset(t->cells[t->nrows * t->ncols], 0, t->ncols * sizeof *t->cells);
    snprintf(report_cell(t, t->nrows, 0), REPORT_CELL, "%s", label);
    return t->nrows++;
}

/* Print and free the table. No line ends with blanks: a row without values
 * is its label alone. */
void report_table_print(FILE *f, struct report_table *t)
{
    size_t *w = xcalloc(t->ncols, sizeof *w);
    for (size_t r = 0; r < t->nrows; r++)
        for (size_t c = 0; c < t->ncols; c++)
            if (strlen(report_cell(t, r, c)) > w[c])
                w[c] = strlen(report_cell(t, r, c));
    for (size_t r = 0; r < t->nrows; r++) {
        size_t last = t->ncols - 1;
        while (last > 0 && !*report_cell(t, r, last))
            last--;
        if (last || *report_cell(t, r, 0))
            fprintf(f, "  %-*s", last ? (int)w[0] : 0, report_cell(t, r, 0));
        for (size_t c = 1; c <= last; c++)
            fprintf(f, "  %*s", (int)w[c], report_cell(t, r, c));
        fputc('\n', f);
    }
    free(w);
    free(t->cells);
}

void report_fmt_avg(char *buf, const char *fmt, double v, size_t jobs)
{
    if (jobs)
        snprintf(buf, REPORT_CELL, fmt, v);
    else
        snprintf(buf, REPORT_CELL, "-");
}

/* One block of the one-run class section: a header row, then a row per class. */
static void classes_block(struct report_table *t, const char *title, const struct report_bound *b,
                          const struct report_class *c, int n)
{
    size_t h = report_table_row(t, title);
    snprintf(report_cell(t, h, 1), REPORT_CELL, "jobs");
    snprintf(report_cell(t, h, 2), REPORT_CELL, "avg wait (s)");
    snprintf(report_cell(t, h, 3), REPORT_CELL, "avg bsld");
    for (int i = 0; i < n; i++) {
        char label[REPORT_CELL];
        snprintf(label, sizeof label, "  %s", b[i].name);
        size_t row = report_table_row(t, label);
        snprintf(report_cell(t, row, 1), REPORT_CELL, "%zu", c[i].jobs);
        report_fmt_avg(report_cell(t, row, 2), "%.1f", c[i].avg_wait, c[i].jobs);
        report_fmt_avg(report_cell(t, row, 3), "%.3f", c[i].avg_bsld, c[i].jobs);
    }
}

/* A block of groups: a header row, then a row for each of the first `top`
 * groups (the list is by processor-seconds). */
static void groups_block(struct report_table *t, const char *title, const struct report_group *g,
                         size_t n, size_t top)
{
    size_t h = report_table_row(t, title);
    snprintf(report_cell(t, h, 1), REPORT_CELL, "jobs");
    snprintf(report_cell(t, h, 2), REPORT_CELL, "avg wait (s)");
    snprintf(report_cell(t, h, 3), REPORT_CELL, "avg bsld");
    n = n < top ? n : top;
    for (size_t i = 0; i < n; i++) {
        char label[REPORT_CELL];
        snprintf(label, sizeof label, "  %.*s", REPORT_CELL - 3, g[i].name);
        size_t row = report_table_row(t, label);
        snprintf(report_cell(t, row, 1), REPORT_CELL, "%zu", g[i].jobs);
        snprintf(report_cell(t, row, 2), REPORT_CELL, "%.1f", g[i].avg_wait);
        snprintf(report_cell(t, row, 3), REPORT_CELL, "%.3f", g[i].avg_bsld);
    }
}

void report_print_classes_text(FILE *f, const struct report *r)
{
    struct report_table t;
    report_table_init(&t, 4);
    classes_block(&t, "by job size (processors)", size_bounds, r->by_size, REPORT_NSIZE);
    report_table_row(&t, "");
    classes_block(&t, "by runtime", runtime_bounds, r->by_runtime, REPORT_NRUNTIME);
    report_table_row(&t, "");
    groups_block(&t, "by user (top 10 by processor-seconds)", r->users, r->nusers, 10);
    report_table_row(&t, "");
    groups_block(&t, "by class", r->classes, r->nclasses, r->nclasses);
    fputc('\n', f);
    report_table_print(f, &t);
}

/* ------------------------------------------------------------------ JSON */

void report_json_string(FILE *f, const char *s)
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
void report_json_fields(FILE *f, const struct report *r)
{
    fprintf(f,
            "\"jobs\":%zu,\"skipped\":%zu,\"rejected\":%zu,\"never_started\":%zu,"
            "\"makespan\":%ld,"
            "\"utilization\":%.6f,\"avg_wait\":%.3f,\"max_wait\":%ld,\"avg_bsld\":%.6f,"
            "\"avg_xfactor\":%.6f,\"backfilled\":%ld,\"iterations\":%ld,\"wall_seconds\":%.6f,"
            "\"read_seconds\":%.6f,\"unfinished\":%zu,\"excluded\":%zu,\"bsld_tau\":%g,"
            "\"wait_fairness\":%.6f",
            r->jobs, r->skipped, r->rejected, r->never_started, r->makespan, r->utilization,
            r->avg_wait, r->max_wait, r->avg_bsld, r->avg_xfactor, r->backfilled, r->iterations,
            r->wall_seconds, r->read_seconds, r->unfinished, r->excluded, report_tau(r),
            r->wait_fairness);
    if (r->fs_history[0]) {
        fprintf(f, ",\"fs_history\":{\"dir\":");
        report_json_string(f, r->fs_history);
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
        report_json_string(f, g[i].name);
        fprintf(f,
                ",\"jobs\":%zu,\"proc_seconds\":%.0f,\"share\":%.6f,\"avg_wait\":%.3f,"
                "\"avg_bsld\":%.6f}",
                g[i].jobs, g[i].proc_seconds, total > 0 ? g[i].proc_seconds / total : 0.0,
                g[i].avg_wait, g[i].avg_bsld);
    }
    fputc(']', f);
}

/* What follows the one-run keys in every JSON report. */
void report_json_extras(FILE *f, const struct report *r)
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
        report_json_string(f, b[i].name);
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
void report_json_classes(FILE *f, const struct report *r)
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
    report_json_fields(f, r);
    report_json_extras(f, r);
    if (classes)
        report_json_classes(f, r);
    fprintf(f, "}\n");
}

/* -------------------------------------------------------------------- CSV */

void report_csv_field(struct obuf *f, const char *v)
{
    if (!v || !*v) /* none, or empty: nothing to write */
        return;
    /* The common field (a name) has nothing to quote: written as it is
     * (strcspn scans many bytes at a time). */
    size_t n = strcspn(v, ",\"\r\n");
    if (!v[n]) {
        obuf_write(f, v, n);
        return;
    }
    obuf_putc(f, '"');
    for (; *v; v++) {
        if (*v == '"')
            obuf_putc(f, '"');
        obuf_putc(f, *v);
    }
    obuf_putc(f, '"');
}

/* A job's final state, and its name with its length, each name in 16
 * bytes: a jobs CSV row copies it in one 16-byte move. */
enum final_state {
    FS_REJECTED,
    FS_CANCELLED,
    FS_KILLED,
    FS_COMPLETED,
    FS_RUNNING,
    FS_NEVER_STARTED,
    FS_PREEMPTED,
};
#define STATE_ROOM 16
static const struct {
    char text[STATE_ROOM];
    unsigned char len;
} state_names[] = {
    [FS_REJECTED] = {"rejected", 8},   [FS_CANCELLED] = {"cancelled", 9},
    [FS_KILLED] = {"killed", 6},       [FS_COMPLETED] = {"completed", 9},
    [FS_RUNNING] = {"running", 7},     [FS_NEVER_STARTED] = {"never_started", 13},
    [FS_PREEMPTED] = {"preempted", 9},
};

/* o's final state; j: its engine record (sim_outcome_job), NULL once
 * forgotten. */
static enum final_state final_state(const struct sim_outcome *o, const struct job *j)
{
    if (o->rejected)
        return FS_REJECTED;
    if (o->end >= 0)
        return o->cancelled ? FS_CANCELLED : o->killed ? FS_KILLED : FS_COMPLETED;
    if (!j) /* outcomes without a scheduler behind them (tests) */
        return o->start >= 0 ? FS_RUNNING : FS_NEVER_STARTED;
    if (j->state == JOB_REMOVED)
        return FS_CANCELLED;
    if (j->state == JOB_RUNNING)
        return (j->flags & JOB_PREEMPTED) ? FS_PREEMPTED : FS_RUNNING;
    return sim_outcome_preempted(o) ? FS_PREEMPTED : FS_NEVER_STARTED;
}

const char *report_final_state(const struct sim_outcome *o, const struct sched *s)
{
    return state_names[final_state(o, sim_outcome_job(s, o))].text;
}

/* Why a job that never ran did not: the engine's reason, or that no node
 * it may use can ever hold it (a feature no node has, more than a node). */
static const char *never_reason(struct sched *s, const struct job *j, long now, char *buf, size_t n)
{
    if (!sched_job_blocked(s, j) && sched_job_advres_refused(s, j, buf, n))
        return buf;
    if (!sched_job_blocked(s, j) && sched_earliest_start(s, j, now) >= SCHED_NEVER) {
        int len = snprintf(buf, n, "the nodes it may use can never hold it");
        for (size_t k = 0; k < j->nfeatures && len > 0 && (size_t)len < n; k++)
            len += snprintf(buf + len, n - (size_t)len, "%s%s",
                            k ? "," : " (features: ", j->features[k]);
        if (j->nfeatures && len > 0 && (size_t)len < n)
            snprintf(buf + len, n - (size_t)len, ")");
        return buf;
    }
    struct cmd_ctx c = {.s = s, .now = now};
    return cmd_wait_reason(&c, j, buf, n);
}

/* The credentials of a forgotten job that are not the last one's: its
 * indices, each looked up in s's tables when it differs from the last's
 * (a new user mostly keeps the class, account and QoS). */
static void forgotten_creds(struct report_creds *rc, const struct sim_outcome *o)
{
    for (int k = 0; k < CRED_NKINDS; k++) {
        unsigned idx = sim_outcome_cred(o, (enum cred_kind)k);
        if (!rc->have || idx != rc->idx[k]) {
            rc->last[k] = cred_at(sched_creds(rc->s, (enum cred_kind)k), idx);
            rc->idx[k] = idx;
        }
    }
    rc->have = 1;
    memcpy(rc->raw, o->cred, sizeof rc->raw);
    rc->wide = 0;
    for (int k = 0; k < CRED_NKINDS; k++)
        rc->wide |= o->cred[k] == SIM_CRED_WIDE;
}

/* 1 when o is a forgotten job's whose credentials are rc's last ones: the
 * same raw indices, nothing to look up (consecutive jobs mostly share
 * theirs: a user's jobs come in bursts). */
static int same_forgotten(const struct report_creds *rc, const struct sim_outcome *o)
{
    return rc->have && !rc->wide && memcmp(o->cred, rc->raw, sizeof rc->raw) == 0;
}

/* report_job_creds with o's engine record j (sim_outcome_job) known. */
static void job_creds(struct report_creds *rc, const struct sim_outcome *o, const struct job *j,
                      const struct cred *creds[CRED_NKINDS])
{
    if (j) {
        const struct cred *c[CRED_NKINDS] = {j->user, j->group, j->account, j->class_, j->qos};
        memcpy(creds, c, sizeof c);
    } else if (o->end >= 0 && rc->s) { /* ended, its engine record forgotten */
        if (!same_forgotten(rc, o))
            forgotten_creds(rc, o);
        memcpy(creds, rc->last, sizeof rc->last);
    } else {
        memset(creds, 0, CRED_NKINDS * sizeof *creds);
    }
}

void report_job_creds(struct report_creds *rc, const struct sim_outcome *o,
                      const struct cred *creds[CRED_NKINDS])
{
    job_creds(rc, o, sim_outcome_job(rc->s, o), creds);
}

/* A time and the comma after it; only the comma when it is not known. */
static void opt_time(struct obuf *f, long v, int known)
{
    if (known)
        obuf_ll(f, v);
    obuf_putc(f, ',');
}

void report_id_field(struct obuf *f, const struct workload *wl, const struct wl_job *w)
{
    if (w->id < WL_ID_TEXT)
        obuf_ll(f, w->id); /* digits: never quoted */
    else
        report_csv_field(f, wl_job_id(wl, w, (char[WL_ID_LEN]){0}));
}

char *report_id_room_text(struct obuf *f, const struct workload *wl, const struct wl_job *w,
                          size_t room)
{
    report_csv_field(f, wl_job_id(wl, w, (char[WL_ID_LEN]){0}));
    return obuf_reserve(f, room);
}

/* The credentials' fields of one kind, by their index: at, len in text
 * (len SIZE_MAX: not made yet). */
struct cred_text {
    size_t at, len;
};
struct cred_texts {
    struct cred_text *at;
    size_t n;
    char *text;
    size_t len, cap;
};

/* Where a row's text lies in its block's text (offsets: the text moves as
 * it grows); NO_TEXT: none (an empty field). */
#define NO_TEXT SIZE_MAX

/* What one jobs CSV row needs, copied on the replay's thread when the job
 * is final: the engine may forget the job, and the replay free its nodes,
 * before the writer thread formats it. The credentials are pointers: the
 * engine keeps them until it is freed, after the writer has ended. */
struct csv_rec {
    uint32_t id, submit; /* id: when id_text is NO_TEXT */
    long start, run_start, end, walltime, runtime;
    long long procs;
    size_t id_text, reason, segments; /* in the block's text */
    size_t nodes;    /* the first of its slots in the block's (NODES_SLOTS), or its text */
    unsigned nslots; /* NODES_SLOTS: how many */
    int preempted;
    /* The credentials, in the block's creds, only when they may differ
     * from the last row's (same_creds 0): a forgotten job's are its
     * predecessor's most of the time, known by its raw indices alone. */
    unsigned creds;
    unsigned char same_creds;
    unsigned char state; /* enum final_state */
    unsigned char backfilled;
    unsigned char nodes_as; /* NODES_* */
};
enum { NODES_NONE, NODES_SLOTS, NODES_TEXT };
/* Written by one thread, read by the other: each byte a row takes is a
 * cache line's share moved between cores. */
_Static_assert(sizeof(struct csv_rec) <= 104, "a jobs CSV row's record grew");

/* Rows handed over together, and how many blocks the ring holds: a few
 * hundred KB in all, and a hand-over once every CSV_BLOCK_ROWS rows. */
#define CSV_BLOCK_ROWS 512
#define CSV_BLOCKS 4

struct csv_block {
    size_t n; /* rows in rec */
    struct csv_rec rec[CSV_BLOCK_ROWS];
    const struct cred *creds[CSV_BLOCK_ROWS][CRED_NKINDS]; /* the rows' that differ */
    size_t ncreds;
    struct job_slot *slots; /* the rows' nodes */
    size_t nslots, slots_cap;
    char *text; /* the rows' text fields, each ending in a NUL */
    size_t len, cap;
};

/* What the rows of one jobs CSV share: the file, the engine, the next row
 * to write, and the credential fields of the last row, kept as written.
 * With a writer thread (rowq), the rows are copied on the replay's thread
 * (wl, s, rc, now, next, cur) and formatted on the writer's (f, creds,
 * last, have, names); runs is made before the thread starts and only read
 * after. */
struct report_jobs_csv {
    struct obuf *f;
    const struct workload *wl;
    struct sched *s;
    int run;
    size_t next; /* the first job whose row is not written */
    struct report_creds rc;
    /* The last row copied was a forgotten job's, with rc's last credentials,
     * none of them wide: a forgotten job with rc's raw indices has them too
     * (same_forgotten's have and wide, known once, not tested a row). */
    int same_ok;
    struct sim_noderuns *runs; /* made with the first row: s's nodes are all in */
    size_t runs_nodes;         /* how many nodes s had then */
    int all_held;              /* s has no node since: runs holds every slot (a batch's) */
    long now;
    struct obuf *creds;                   /* ",user,group,account,class,qos" */
    const char *ctext;                    /* creds' bytes, */
    size_t clen;                          /* and their length */
    const struct cred *last[CRED_NKINDS]; /* the credentials it was made from */
    int have;                             /* creds holds a row's */
    struct cred_texts names[CRED_NKINDS]; /* each credential's field, made once */
    struct csv_block *blocks[CSV_BLOCKS]; /* the ring's; the first alone without a thread */
    struct csv_block *cur;                /* the block being filled, NULL: none */
    struct rowq *q;                       /* the writer thread, NULL: rows written in place */
    int started;                          /* the thread was tried (the first rows) */
    atomic_int failed;                    /* f failed: rows are no longer copied */
    struct obuf *scratch;                 /* nodes outside runs' table, formatted here */
};

/* Credential cr's field (kind k) after the row's credentials so far: its
 * name as report_csv_field writes it (quoted when it must be), made once
 * and kept. Rows name a few hundred credentials, and the user changes
 * every third row or so (Curie). */
static void cred_put(struct report_jobs_csv *c, size_t k, const struct cred *cr)
{
    struct cred_texts *t = &c->names[k];
    if (cr->index >= t->n) {
        size_t n = t->n;
        t->at = xgrow(t->at, &t->n, cr->index + 1, sizeof *t->at);
        for (size_t i = n; i < t->n; i++)
            t->at[i] = (struct cred_text){0, SIZE_MAX};
    }
    struct cred_text *ct = &t->at[cr->index];
    if (ct->len != SIZE_MAX) {
        obuf_write(c->creds, t->text + ct->at, ct->len);
        return;
    }
    size_t from, to;
    obuf_data(c->creds, &from);
    report_csv_field(c->creds, cr->name);
    const char *row = obuf_data(c->creds, &to);
    t->text = xgrow(t->text, &t->cap, t->len + (to - from) + 1, 1);
    memcpy(t->text + t->len, row + from, to - from);
    *ct = (struct cred_text){t->len, to - from};
    t->len += to - from;
}

/* The five credential fields, each after its comma, into c->ctext (its
 * length c->clen). Consecutive jobs mostly share them (a user's jobs come
 * in bursts): they are put together again, from each credential's field,
 * only when one differs from the last row's. */
#define CRED_CHUNK 16
static void cred_fields(struct report_jobs_csv *c, const struct cred *const creds[])
{
    if (!c->have || memcmp(creds, c->last, sizeof c->last) != 0) {
        obuf_reset(c->creds);
        for (size_t k = 0; k < CRED_NKINDS; k++) {
            obuf_putc(c->creds, ',');
            /* No account is written as none (empty), not as DEFAULT. */
            if (creds[k] && (k != 2 || creds[k]->index != 0))
                cred_put(c, k, creds[k]);
        }
        /* Room after the text, not taken: a row copies it CRED_CHUNK
         * bytes at a time, the last chunk reading past its end. */
        obuf_reserve(c->creds, CRED_CHUNK);
        c->ctext = obuf_data(c->creds, &c->clen);
        memcpy(c->last, creds, sizeof c->last);
        c->have = 1;
    }
}

/* n bytes of s into b's text, and a NUL: where they start. */
static size_t text_put(struct csv_block *b, const char *s, size_t n)
{
    b->text = xgrow(b->text, &b->cap, b->len + n + 1, 1);
    memcpy(b->text + b->len, s, n);
    b->text[b->len + n] = '\0';
    b->len += n + 1;
    return b->len - n - 1;
}

static size_t text_or_none(struct csv_block *b, const char *s)
{
    return s ? text_put(b, s, strlen(s)) : NO_TEXT;
}

/* A job id that is not a number: its text, or for a job without one (an
 * SWF id of -1) an empty field, the name the engine gives it (the commands
 * and Batsim's rows show it so), not NO_TEXT, which would print the
 * reader's marker as a number. */
static size_t id_text(struct csv_block *b, const struct workload *wl, const struct wl_job *w)
{
    const char *id = wl_job_id(wl, w, (char[WL_ID_LEN]){0});
    return id ? text_put(b, id, strlen(id)) : text_put(b, "", 0);
}

/* never_reason's text into b. Apart, with its buffer: a function with
 * the array pays the stack protector's check, and copy_row is called
 * for every row, this only for a job that never ran. */
__attribute__((noinline)) static size_t never_text(struct report_jobs_csv *c, struct csv_block *b,
                                                   const struct job *j)
{
    char buf[512];
    return text_or_none(b, never_reason(c->s, j, c->now, buf, sizeof buf));
}

/* Why a row's job did not run, in b's text, or NO_TEXT: the engine's
 * reason, a refusal. */
static size_t row_reason(struct report_jobs_csv *c, struct csv_block *b,
                         const struct sim_outcome *o, const struct job *j, enum final_state state)
{
    if (o->rejected)
        return text_or_none(b, o->more ? o->more->reason : NULL);
    if (j && (state == FS_NEVER_STARTED || (state == FS_PREEMPTED && o->start < 0)))
        return never_text(c, b, j);
    if (j && state == FS_CANCELLED && o->start < 0)
        return text_or_none(b, j->message); /* a dependency never met says so */
    return NO_TEXT;
}

/* The row's nodes: the slots copied when runs' table holds them (the
 * writer needs nothing else), else their text, made now from s. */
static void copy_nodes(struct report_jobs_csv *c, struct csv_block *b, struct csv_rec *r,
                       const struct sim_detail *d)
{
    if (c->all_held || sim_noderuns_holds(c->runs, d->slots, d->nslots)) {
        if (b->nslots + d->nslots > b->slots_cap)
            b->slots = xgrow(b->slots, &b->slots_cap, b->nslots + d->nslots, sizeof *b->slots);
        if (d->nslots == 1) /* the common job, on one run of nodes: no call */
            b->slots[b->nslots] = d->slots[0];
        else if (d->nslots) /* a job on no node: no array yet, and memcpy takes no NULL */
            memcpy(b->slots + b->nslots, d->slots, d->nslots * sizeof *d->slots);
        r->nodes = b->nslots;
        r->nslots = d->nslots;
        r->nodes_as = NODES_SLOTS;
        b->nslots += d->nslots;
        return;
    }
    if (!c->scratch)
        c->scratch = obuf_mem();
    obuf_reset(c->scratch);
    sim_format_slots(c->scratch, c->s, c->runs, d->slots, d->nslots);
    size_t len;
    const char *text = obuf_data(c->scratch, &len);
    r->nodes = text_put(b, text, len); /* node names hold no NUL */
    r->nodes_as = NODES_TEXT;
}

/* The row's credentials into r, or same_creds when they are the last
 * row's: a forgotten job with the last forgotten one's raw indices, right
 * after it. */
static void copy_creds(struct report_jobs_csv *c, struct csv_block *b, struct csv_rec *r,
                       const struct sim_outcome *o, const struct job *j)
{
    int forgotten = !j && o->end >= 0 && c->rc.s;
    r->same_creds = (unsigned char)(forgotten && c->same_ok &&
                                    memcmp(o->cred, c->rc.raw, sizeof c->rc.raw) == 0);
    if (!r->same_creds) {
        r->creds = (unsigned)b->ncreds++;
        job_creds(&c->rc, o, j, b->creds[r->creds]);
        /* a forgotten job's raw indices are rc's now (job_creds) */
        c->same_ok = forgotten && !c->rc.wide;
    }
}

/* Job w's row, copied into b (on the replay's thread). */
static void copy_row(struct report_jobs_csv *c, struct csv_block *b, const struct wl_job *w,
                     const struct sim_outcome *o)
{
    /* Every field set (the record is not cleared first: a row's cost is
     * the replay's, and these are most of it). */
    struct csv_rec *r = &b->rec[b->n++];
    /* What the detail holds, read in one place (nearly every row's job
     * ran, and has one: its nodes). run_start is read only when the job
     * started (row_numbers). */
    const struct sim_detail *d = o->more;
    r->run_start = o->start;
    if (d) {
        r->nodes_as = NODES_NONE;
        if (o->start >= 0) {
            copy_nodes(c, b, r, d);
            if (d->resumed)
                r->run_start = d->run_start; /* sim_run_start */
        }
        r->preempted = d->preempted; /* sim_outcome_preempted */
        r->segments = text_or_none(b, d->segments);
    } else {
        r->nodes_as = NODES_NONE;
        r->preempted = 0;
        r->segments = NO_TEXT;
    }
    const struct job *j = sim_outcome_job(c->s, o);
    copy_creds(c, b, r, o, j);
    r->id = w->id;
    r->id_text = w->id < WL_ID_TEXT ? NO_TEXT : id_text(b, c->wl, w);
    r->submit = w->submit;
    r->start = o->start;
    r->end = o->end;
    r->procs = wl_job_procs(w);
    r->walltime = wl_job_walltime(w);
    r->runtime = wl_job_runtime(w);
    r->backfilled = o->backfilled;
    enum final_state st = final_state(o, j); /* from the engine record found above */
    r->state = (unsigned char)st;
    r->reason = row_reason(c, b, o, j, st);
}

/* The room a row's numbers take (row_numbers). */
#define ROW_NUMS_ROOM (9 * (1 + OBUF_LL_ROOM))

/* A row's numbers after its id at p, each after its comma: submit, start,
 * end, wait (the last three empty when not known), procs, walltime,
 * runtime, backfilled (a bit: its digit), preempted. Returns their end.
 * The submit time (32 bits: 10 digits at most) is read again for a start
 * equal to it.
 * Times and durations are never negative (unsigned in the workload, or
 * known): written without the test for SWF's -1. */
static char *row_numbers(char *p, const struct csv_rec *r)
{
    *p++ = ',';
    char *sub = p; /* the submit time's digits: the start's too when it did not wait */
    p = obuf_fmt_ull(p, (unsigned long long)r->submit);
    size_t sublen = (size_t)(p - sub);
    *p++ = ',';
    if (r->start >= 0 && r->run_start == (long)r->submit) /* two rows in three (HPC2N) */
        p = obuf_fmt_again(p, sub, sublen);
    else if (r->start >= 0)
        p = obuf_fmt_ull(p, (unsigned long long)r->run_start);
    *p++ = ',';
    if (r->end >= 0)
        p = obuf_fmt_ull(p, (unsigned long long)r->end);
    *p++ = ',';
    if (r->start >= 0)
        p = obuf_fmt_ll(p, r->start - r->submit);
    *p++ = ',';
    p = obuf_fmt_ll(p, r->procs);
    *p++ = ',';
    p = obuf_fmt_ull(p, (unsigned long long)r->walltime);
    *p++ = ',';
    p = obuf_fmt_ull(p, (unsigned long long)r->runtime);
    *p++ = ',';
    *p++ = (char)('0' + r->backfilled);
    *p++ = ',';
    if ((unsigned)r->preempted < 10) { /* (nearly) always 0: its digit, no sign to test */
        *p = (char)('0' + r->preempted);
        return p + 1;
    }
    return obuf_fmt_ll(p, r->preempted);
}

/* Credential fields up to this long are copied in place with the numbers
 * (CRED_CHUNK bytes a move); longer ones, with obuf_write. */
#define CREDS_IN_PLACE 512

/* Row r of block b, formatted (on the writer's thread, if there is one).
 * Inlined in write_block's loop: a call a row saved and restored a
 * register set each time (some 20 instructions a row). */
static inline __attribute__((always_inline)) void
csv_row(struct report_jobs_csv *c, const struct csv_block *b, const struct csv_rec *r)
{
    struct obuf *f = c->f;
    if (c->run >= 1) {
        obuf_ll(f, c->run);
        obuf_putc(f, ',');
    }
    if (!r->same_creds)
        cred_fields(c, b->creds[r->creds]);
    /* The id, the numbers, the credentials and the state in place, in one
     * go (room for a chunk's copy past the credentials, and the state's). */
    int inplace = c->clen <= CREDS_IN_PLACE;
    size_t room = ROW_NUMS_ROOM + (inplace ? c->clen + CRED_CHUNK : 0) + STATE_ROOM + 2;
    char *p;
    if (r->id_text == NO_TEXT) { /* a number, the common id */
        p = obuf_fmt_ull(obuf_reserve(f, OBUF_LL_ROOM + room), r->id);
    } else {
        report_csv_field(f, b->text + r->id_text);
        p = obuf_reserve(f, room);
    }
    p = row_numbers(p, r);
    if (inplace) {
        for (size_t k = 0; k < c->clen; k += CRED_CHUNK)
            memcpy(p + k, c->ctext + k, CRED_CHUNK);
        p += c->clen;
    } else {
        obuf_commit(f, p);
        obuf_write(f, c->ctext, c->clen);
        p = obuf_reserve(f, STATE_ROOM + 2);
    }
    *p++ = ',';
    memcpy(p, state_names[r->state].text, STATE_ROOM);
    p += state_names[r->state].len;
    *p++ = ',';
    if (r->reason == NO_TEXT) { /* most rows: the empty reason with the rest */
        *p++ = ',';
        obuf_commit(f, p);
    } else {
        obuf_commit(f, p);
        report_csv_field(f, b->text + r->reason);
        obuf_putc(f, ',');
    }
    if (r->nodes_as == NODES_SLOTS) /* from the table alone, checked when copied */
        sim_noderuns_format(f, c->runs, b->slots + r->nodes, r->nslots);
    else if (r->nodes_as == NODES_TEXT)
        obuf_puts(f, b->text + r->nodes);
    if (r->segments == NO_TEXT) { /* most rows: the empty last field and the line's end */
        obuf_write(f, ",\n", 2);
        return;
    }
    obuf_putc(f, ',');
    report_csv_field(f, b->text + r->segments);
    obuf_putc(f, '\n');
}

/* A block's rows, written, and the block emptied (rowq_fn). Once f has
 * failed, the rest is dropped: the error is reported when it closes. */
static void write_block(void *ctx, void *block)
{
    struct report_jobs_csv *c = ctx;
    struct csv_block *b = block;
    for (size_t i = 0; i < b->n; i++)
        csv_row(c, b, &b->rec[i]);
    if (obuf_failed(c->f))
        atomic_store(&c->failed, 1);
    b->n = b->nslots = b->len = b->ncreds = 0;
}

/* The block being filled: to the writer thread, or written now. */
static void flush_block(struct report_jobs_csv *c)
{
    if (c->q)
        rowq_hand(c->q);
    else
        write_block(c, c->cur);
    c->cur = NULL;
}

/* The writer thread's rows all written, and the thread ended. */
static void stop_writer(struct report_jobs_csv *c)
{
    if (!c->q)
        return;
    if (c->cur)
        flush_block(c);
    rowq_finish(c->q);
    c->q = NULL;
}

struct report_jobs_csv *report_jobs_csv_open(struct obuf *f, const struct workload *wl,
                                             struct sched *s, int run, int header)
{
    if (header)
        obuf_printf(f,
                    "%sjob_id,submit,start,end,wait,procs,walltime,runtime,backfilled,preempted,"
                    "user,group,account,class,qos,state,reason,nodes,segments\n",
                    run >= 1 ? "run," : "");
    struct report_jobs_csv *c = xcalloc(1, sizeof *c);
    *c = (struct report_jobs_csv){
        .f = f, .wl = wl, .s = s, .run = run, .rc = {.s = s}, .creds = obuf_mem()};
    atomic_init(&c->failed, 0);
    c->blocks[0] = xcalloc(1, sizeof *c->blocks[0]);
    return c;
}

/* The first rows of a run: the writer thread started, with its blocks;
 * when it cannot start, the rows are written in place, as they come. */
static void start_writer(struct report_jobs_csv *c)
{
    c->started = 1;
    for (size_t k = 1; k < CSV_BLOCKS; k++)
        c->blocks[k] = xcalloc(1, sizeof *c->blocks[k]);
    c->q = rowq_start((void *const *)c->blocks, CSV_BLOCKS, write_block, c);
}

void report_jobs_csv_rows(struct report_jobs_csv *c, const struct sim_outcome *out, size_t to)
{
    if (c->next >= to)
        return;
    if (!c->runs) {
        c->runs = sim_noderuns_create(c->s);
        c->runs_nodes = c->s ? sched_nnodes(c->s) : 0;
    }
    /* Nodes are added, never taken away, and a slot names s's nodes: with
     * none added since the table was made, it holds every row's, known
     * once a batch, not slot by slot (some 20 instructions a row). */
    c->all_held = c->s && sched_nnodes(c->s) == c->runs_nodes;
    if (!c->started)
        start_writer(c);
    /* A block's worth of rows at a time: the failure checked, and the
     * block's room found, once a block, not once a row. */
    while (c->next < to && !atomic_load_explicit(&c->failed, memory_order_relaxed)) {
        if (!c->cur)
            c->cur = c->q ? rowq_next(c->q) : c->blocks[0];
        struct csv_block *b = c->cur;
        size_t from = c->next, n = to - from, room = CSV_BLOCK_ROWS - b->n;
        n = n < room ? n : room;
        const struct wl_job *w = c->wl->jobs + from;
        for (size_t i = 0; i < n; i++)
            copy_row(c, b, &w[i], &out[from + i]);
        c->next = from + n;
        if (b->n == CSV_BLOCK_ROWS)
            flush_block(c);
    }
    if (!c->q && c->cur) /* in place: written now, as the rows came */
        flush_block(c);
    c->next = to > c->next ? to : c->next; /* after a failure: not written, reported at close */
}

int report_jobs_csv_close(struct report_jobs_csv *c, const struct sim_outcome *out, long now)
{
    /* The rows of jobs not ended name the engine's state now: written
     * here, after the thread's, on this thread. */
    stop_writer(c);
    c->started = 1;
    c->now = now;
    report_jobs_csv_rows(c, out, c->wl->njobs);
    int rc = obuf_failed(c->f) ? -1 : 0;
    report_jobs_csv_drop(c);
    return rc;
}

void report_jobs_csv_drop(struct report_jobs_csv *c)
{
    c->cur = NULL; /* a block being filled is dropped; handed ones are written */
    stop_writer(c);
    obuf_close(c->creds, NULL);
    if (c->scratch)
        obuf_close(c->scratch, NULL);
    for (size_t k = 0; k < CRED_NKINDS; k++) {
        free(c->names[k].at);
        free(c->names[k].text);
    }
    for (size_t k = 0; k < CSV_BLOCKS; k++) {
        if (!c->blocks[k])
            continue;
        free(c->blocks[k]->slots);
        free(c->blocks[k]->text);
        free(c->blocks[k]);
    }
    sim_noderuns_destroy(c->runs);
    free(c);
}

int report_write_jobs_csv(struct obuf *f, const struct workload *wl, const struct sim_outcome *out,
                          struct sched *s, long now, int run, int header)
{
    return report_jobs_csv_close(report_jobs_csv_open(f, wl, s, run, header), out, now);
}

int report_write_recorded_csv(struct obuf *f, const struct workload *wl,
                              const struct sim_outcome *out)
{
    obuf_puts(f, "run,job_id,submit,start,end,wait,procs,walltime,runtime,backfilled,preempted,"
                 "user,group,account,class,qos,state,reason,nodes,segments\n");
    for (size_t i = 0; i < wl->njobs; i++) {
        const struct wl_job *w = &wl->jobs[i];
        const struct sim_outcome *o = &out[i];
        const struct wl_names *nm = wl_job_names(w);
        const char *names[CRED_NKINDS] = {nm->user, nm->group, nm->account, nm->class_, nm->qos};
        report_csv_field(f, "recorded");
        obuf_putc(f, ',');
        report_id_field(f, wl, w);
        obuf_putc(f, ',');
        obuf_ll(f, w->submit);
        obuf_putc(f, ',');
        opt_time(f, o->start, o->start >= 0);
        opt_time(f, o->end, o->end >= 0);
        if (o->start >= 0)
            obuf_ll(f, o->start - w->submit);
        obuf_printf(f, ",%lld,%ld,%ld,,0", wl_job_procs(w), wl_job_walltime(w), wl_job_runtime(w));
        for (int k = 0; k < CRED_NKINDS; k++) {
            obuf_putc(f, ',');
            report_csv_field(f, names[k]);
        }
        obuf_printf(f, ",%s,,,\n",
                    o->end >= 0     ? "completed"
                    : o->start >= 0 ? "running"
                                    : "never_started");
    }
    return obuf_failed(f) ? -1 : 0;
}
