/*
 * backfill — which waiting jobs start ahead of blocked higher-priority ones,
 * for the BACKFILLPOLICY values beyond FIRSTFIT (digest §5.5, §5.6).
 *
 * FIRSTFIT needs nothing here: the scan (policy/iter.c) tries every job in
 * priority order and starts each that fits now without delaying a
 * reservation. The others pick among the same candidates differently:
 *
 *   BESTFIT  Windows of free processors are visited shortest first (the
 *            widest). In a window, of the candidates that fit it, the one
 *            with the largest BACKFILLMETRIC starts; again, while any fits.
 *   GREEDY   In a window, the set of fitting candidates with the largest
 *            summed metric whose processors fit the window together, by a
 *            depth-first search of at most BACKFILLMAXSCHEDULES steps (the
 *            search Maui 3.3.1 meant: its list of candidates is never
 *            filled). The set starts in priority order; what then no longer
 *            fits is left to BESTFIT.
 *   PREEMPT  No priority reservations. Candidates start in BFPRIORITYPOLICY
 *            order (DURATION: shortest first; HWDURATION: fewest
 *            processor-seconds first; RANDOM and NONE: priority order, for
 *            reproducible replays) and are marked preemptible: a
 *            higher-priority job that cannot start later takes their
 *            processors (PREEMPTPOLICY).
 *
 * "Fits" is always the plan's exact question (plan_fits): a candidate is
 * never started where it would delay a priority reservation or use
 * reserved processors it may not use. Windows only order and bound the
 * search; they are computed for a job that may use every reservation.
 */
#include <stdlib.h>
#include <string.h>

#include "core/sched_int.h"
#include "policy/bfwin.h"
#include "util/mem.h"

/* Windows of processors free from now: (procs, duration), shortest first;
 * duration -1 for the last, unbounded one. At most max. */
static size_t windows(struct sched *s, long now, struct sched_window *w, size_t max)
{
    struct job_spec all = {0};
    size_t n = sched_backfill_windows(s, &all, now, w, max);
    return n < max ? n : max;
}

static double metric(const struct sched *s, const struct job *j)
{
    double procs = (double)job_procs(j);
    switch (s->pol.bfmetric) {
    case BFM_SECONDS:
        return (double)j->walltime;
    case BFM_PROCSECONDS:
    case BFM_PESECONDS:
        return procs * (double)j->walltime;
    default:
        return procs; /* PROCS; NODES and PE as Maui: processors */
    }
}

static int in_window(const struct job *j, const struct sched_window *w)
{
    return job_procs(j) <= w->procs && (w->duration < 0 || j->walltime <= w->duration);
}

/* BESTFIT in one window: the best fitting candidate, again and again. */
static void best_in(struct sched *s, struct job **c, size_t n, struct sched_window *w, long now)
{
    for (;;) {
        struct job *best = NULL;
        for (size_t k = 0; k < n; k++) {
            struct job *j = c[k];
            if (!j || !in_window(j, w) || !bf_may_start(s, j) || !plan_fits(s, j, now))
                continue;
            if (!best || metric(s, j) > metric(s, best))
                best = j;
        }
        if (!best)
            return;
        for (size_t k = 0; k < n; k++)
            if (c[k] == best)
                c[k] = NULL;
        if (bf_start(s, best, now))
            w->procs -= job_procs(best);
    }
}

/* GREEDY's search: the subset of cand[k..] with the largest summed metric
 * whose processors fit `room`. */
struct greedy {
    struct sched *s;
    struct job **cand;
    size_t n;
    long steps;
    char *take, *best;
    double best_sum;
};

static void search(struct greedy *g, size_t k, long long room, double sum)
{
    if (sum > g->best_sum) {
        g->best_sum = sum;
        memcpy(g->best, g->take, g->n);
    }
    for (size_t i = k; i < g->n && g->steps > 0; i++) {
        long long p = job_procs(g->cand[i]);
        if (p > room)
            continue;
        g->steps--;
        g->take[i] = 1;
        search(g, i + 1, room - p, sum + metric(g->s, g->cand[i]));
        g->take[i] = 0;
    }
}

static void greedy_in(struct sched *s, struct job **c, size_t n, struct sched_window *w, long now)
{
    struct job **fit = xcalloc(n + 1, sizeof *fit);
    size_t m = 0;
    for (size_t k = 0; k < n; k++)
        if (c[k] && in_window(c[k], w) && bf_may_start(s, c[k]) && plan_fits(s, c[k], now))
            fit[m++] = c[k];
    struct greedy g = {s,
                       fit,
                       m,
                       s->pol.bfmaxschedules > 0 ? s->pol.bfmaxschedules : 10000,
                       xcalloc(m + 1, 1),
                       xcalloc(m + 1, 1),
                       0};
    search(&g, 0, w->procs, 0);
    for (size_t i = 0; i < m; i++) { /* fit is in priority order */
        if (!g.best[i])
            continue;
        for (size_t k = 0; k < n; k++)
            if (c[k] == fit[i])
                c[k] = NULL;
        if (plan_fits(s, fit[i], now) && bf_start(s, fit[i], now))
            w->procs -= job_procs(fit[i]);
    }
    free(g.take);
    free(g.best);
    free(fit);
    best_in(s, c, n, w, now); /* what the set left: one by one */
}

static const struct sched *order_s;
static int by_bfprio(const void *a, const void *b)
{
    const struct job *x = *(const struct job *const *)a, *y = *(const struct job *const *)b;
    double kx = 0, ky = 0;
    if (order_s->pol.bfprio == BFP_DURATION) {
        kx = (double)x->walltime;
        ky = (double)y->walltime;
    } else if (order_s->pol.bfprio == BFP_HWDURATION) {
        kx = (double)job_procs(x) * (double)x->walltime;
        ky = (double)job_procs(y) * (double)y->walltime;
    }
    if (kx != ky)
        return kx < ky ? -1 : 1;
    return 0; /* sort_ptrs is stable: ties keep priority order */
}

/* PREEMPT's backfill: candidates in BFPRIORITYPOLICY order, first fit. */
static void preempt_order(struct sched *s, struct job **c, size_t n, long now)
{
    struct job **o = xcalloc(n + 1, sizeof *o);
    size_t m = 0;
    for (size_t k = 0; k < n; k++)
        if (c[k])
            o[m++] = c[k];
    order_s = s;
    if (s->pol.bfprio == BFP_DURATION || s->pol.bfprio == BFP_HWDURATION)
        sort_ptrs((void **)o, m, by_bfprio, &s->q.sortbuf); /* stable: priority order in ties */
    for (size_t k = 0; k < m; k++)
        if (bf_may_start(s, o[k]) && plan_fits(s, o[k], now) && bf_start(s, o[k], now))
            o[k]->flags |= JOB_PREEMPTEE;
    free(o);
}

void backfill_run(struct sched *s, struct job **c, size_t n, long now)
{
    if (!n)
        return;
    if (s->pol.backfill == BF_PREEMPT) {
        preempt_order(s, c, n, now);
        return;
    }
    struct sched_window w[64];
    size_t nw = windows(s, now, w, 64);
    for (size_t k = 0; k < nw; k++) {
        if (w[k].procs <= 0)
            continue;
        if (s->pol.backfill == BF_GREEDY)
            greedy_in(s, c, n, &w[k], now);
        else
            best_in(s, c, n, &w[k], now);
    }
}
