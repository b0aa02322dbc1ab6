/*
 * avail — see avail.h.
 *
 * Representation: a sorted array of breakpoints (t[i], free[i]) meaning that
 * `free[i]` processors are free over [t[i], t[i+1]) and free[last] from
 * t[last] on. Point 0 is the origin. Invariant: times strictly increase and
 * no two neighbouring points carry the same free count (redundant points are
 * removed), so the array stays as small as the number of distinct future
 * events.
 */
#include "policy/avail.h"

#include <assert.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "util/mem.h"

struct point {
    long t;
    long long free;
};

struct avail {
    struct point *p;
    size_t n, cap;
    long long total; /* processors in the cluster (up) */
};

struct avail *avail_create(long long total, long origin)
{
    struct avail *a = xcalloc(1, sizeof *a);
    a->p = xgrow(NULL, &a->cap, 16, sizeof *a->p);
    a->p[0] = (struct point){origin, total};
    a->n = 1;
    a->total = total;
    return a;
}

void avail_destroy(struct avail *a)
{
    if (!a)
        return;
    free(a->p);
    free(a);
}

/* Index of the point whose interval contains t (t >= origin). */
static size_t find(const struct avail *a, long t)
{
    size_t lo = 0, hi = a->n; /* answer in [lo, hi) */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (a->p[mid].t <= t)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* Insert a point at index k (t, free); the caller keeps the order. */
static void insert_at(struct avail *a, size_t k, long t, long long free)
{
    a->p = xgrow(a->p, &a->cap, a->n + 1, sizeof *a->p);
    memmove(&a->p[k + 1], &a->p[k], (a->n - k) * sizeof *a->p);
    a->p[k] = (struct point){t, free};
    a->n++;
}

/* Make sure a breakpoint starts exactly at t; return its index. */
static size_t split(struct avail *a, long t)
{
    size_t i = find(a, t);
    if (a->p[i].t == t)
        return i;
    insert_at(a, i + 1, t, a->p[i].free);
    return i + 1;
}

/* Remove point i if it repeats its predecessor's count. */
static void merge_at(struct avail *a, size_t i)
{
    if (i == 0 || i >= a->n || a->p[i].free != a->p[i - 1].free)
        return;
    memmove(&a->p[i], &a->p[i + 1], (a->n - i - 1) * sizeof *a->p);
    a->n--;
}

/*
 * The walk that adds delta over [start, end) also finds end's place, so
 * the end costs no search: the walk is linear in the points of the window
 * anyway. A start at the origin (a job starting now, one ending before its
 * planned end) costs none either.
 */
static void add_range(struct avail *a, long start, long end, long long delta)
{
    if (start < a->p[0].t)
        start = a->p[0].t;
    if (end <= start || delta == 0)
        return;
    size_t i = start == a->p[0].t ? 0 : split(a, start);
    struct point *p = a->p + i, *last = a->p + a->n;
    /* No point lies at LONG_MAX (a start there has no window): "never" ends
     * past every point. */
    long stop = end >= AVAIL_NEVER ? LONG_MAX : end;
    for (; p < last && p->t < stop; p++)
        p->free += delta;
    size_t k = (size_t)(p - a->p);
    /* p[k - 1] (k > i: p[i].t = start < end) held end's count before. */
    if (end < AVAIL_NEVER && (k == a->n || a->p[k].t != end))
        insert_at(a, k, end, a->p[k - 1].free - delta);
    /* Only the two edges can have become redundant; the right one first so
     * that removing it does not shift the left index. */
    merge_at(a, k);
    merge_at(a, i);
}

void avail_take(struct avail *a, long start, long end, long long n)
{
    add_range(a, start, end, -n);
}

void avail_give(struct avail *a, long start, long end, long long n)
{
    add_range(a, start, end, n);
}

void avail_add_total(struct avail *a, long long delta)
{
    for (size_t k = 0; k < a->n; k++)
        a->p[k].free += delta;
    a->total += delta;
}

long long avail_total(const struct avail *a)
{
    return a->total;
}

void avail_advance(struct avail *a, long t)
{
    if (t <= a->p[0].t)
        return;
    /* Time moves from event to event: the points it passes are few, a walk
     * finds them sooner than a search. */
    size_t i = 0;
    while (i + 1 < a->n && a->p[i + 1].t <= t)
        i++;
    if (i > 0) {
        memmove(&a->p[0], &a->p[i], (a->n - i) * sizeof *a->p);
        a->n -= i;
    }
    a->p[0].t = t;
}

long avail_origin(const struct avail *a)
{
    return a->p[0].t;
}

long long avail_free_at(const struct avail *a, long t)
{
    return a->p[find(a, t < a->p[0].t ? a->p[0].t : t)].free;
}

long long avail_free_now(const struct avail *a)
{
    return a->p[0].free;
}

int avail_fits(const struct avail *a, long start, long end, long long n)
{
    if (start < a->p[0].t)
        start = a->p[0].t;
    const struct point *p = a->p + (start == a->p[0].t ? 0 : find(a, start)), *last = a->p + a->n;
    if (p->free < n)
        return 0;
    for (p++; p < last && p->t < end; p++)
        if (p->free < n)
            return 0;
    return 1;
}

long long avail_min_free(const struct avail *a, long start, long end)
{
    if (start < a->p[0].t)
        start = a->p[0].t;
    size_t i = find(a, start);
    long long min = a->p[i].free;
    for (size_t k = i + 1; k < a->n && a->p[k].t < end; k++)
        if (a->p[k].free < min)
            min = a->p[k].free;
    return min;
}

long avail_earliest(const struct avail *a, long from, long dur, long long n)
{
    if (from < a->p[0].t)
        from = a->p[0].t;
    const struct point *first = a->p + (from == a->p[0].t ? 0 : find(a, from)), *last = a->p + a->n;
    long cand = -1; /* start of the current run of points with room */
    for (const struct point *p = first; p < last; p++) {
        if (p->free < n) {
            cand = -1;
            continue;
        }
        if (cand < 0)
            cand = p == first ? from : p->t;
        if (p + 1 == last || p[1].t >= cand + dur)
            return cand;
    }
    return AVAIL_NEVER;
}

long long avail_min_sum(const struct avail *const *ps, size_t n, long start, long end)
{
    if (n == 1)
        return avail_min_free(ps[0], start, end);
    /* A merge of the profiles' breakpoints, one cursor each: linear in the
     * points inside the window. */
    size_t cur[64];
    if (n > 64)
        n = 64;
    long long sum = 0;
    for (size_t k = 0; k < n; k++) {
        long t = start < ps[k]->p[0].t ? ps[k]->p[0].t : start;
        cur[k] = find(ps[k], t);
        sum += ps[k]->p[cur[k]].free;
    }
    long long min = sum;
    for (;;) {
        long next = AVAIL_NEVER;
        for (size_t k = 0; k < n; k++)
            if (cur[k] + 1 < ps[k]->n && ps[k]->p[cur[k] + 1].t < next)
                next = ps[k]->p[cur[k] + 1].t;
        if (next >= end)
            return min;
        for (size_t k = 0; k < n; k++)
            if (cur[k] + 1 < ps[k]->n && ps[k]->p[cur[k] + 1].t == next) {
                sum += ps[k]->p[cur[k] + 1].free - ps[k]->p[cur[k]].free;
                cur[k]++;
            }
        if (sum < min)
            min = sum;
    }
}

long avail_next_change(const struct avail *a, long t)
{
    size_t i = find(a, t < a->p[0].t ? a->p[0].t : t);
    return i + 1 < a->n ? a->p[i + 1].t : AVAIL_NEVER;
}

size_t avail_points(const struct avail *a)
{
    return a->n;
}
