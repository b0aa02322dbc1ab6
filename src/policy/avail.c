/*
 * avail — see avail.h.
 *
 * Representation: a sorted array of breakpoints (t[i], d[i]), the change of
 * the free count at t[i]: the count over [t[i], t[i+1]) is d[0] + ... + d[i].
 * Point 0 is the origin and d[0] the count there. Invariant: times strictly
 * increase and no point but the origin carries a zero change (such a point
 * is removed), so the array stays as small as the number of distinct future
 * events.
 *
 * Changes rather than counts because updates are what the scheduler does
 * most: every start takes [now, planned end), every end gives back
 * [now, planned end), every pass drops and places a reservation. Over counts
 * each update added to every point of its window (most of a profile whose
 * points are the running jobs' ends); over changes it touches its two
 * edges, found by a search. The queries walk from the origin as before,
 * summing as they go; one that starts later (a reservation's window) sums
 * its way there instead of searching.
 *
 * p[n] is a sentinel at LONG_MAX (no change): a walk up to any time stops
 * there without a test of the index.
 *
 * The points lie inside a larger buffer with room on both sides, so that a
 * point made or removed moves the shorter side of the array (the points
 * before it or those after), and the origin moving on drops the points it
 * passes by moving p, not them. When the side to move has no room, the
 * points are centred again (in a larger buffer when they fill a quarter).
 *
 * nneg counts the points past the origin whose change is negative: a take
 * that starts later (a reservation, a job's hold), never a running job's,
 * whose take starts at the origin and ends in a positive change. Without
 * one, the count never falls after the origin, and the queries answer from
 * where they start: enough free there is enough over any window after it.
 * Between two passes of an EASY plan (its one reservation dropped) and
 * whenever nothing is reserved, that is the profile the jobs ask of.
 */
#include "policy/avail.h"

#include <assert.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "util/mem.h"

struct point {
    long t;
    long long d; /* the change at t; at the origin, the count there */
};

struct avail {
    struct point *p;   /* the origin; p[0..n] lie in buf[0..cap) */
    struct point *buf; /* what was allocated */
    size_t n, cap;
    size_t nneg;     /* points after the origin with a negative change */
    long long total; /* processors in the cluster (up) */
};

struct avail *avail_create(long long total, long origin)
{
    struct avail *a = xcalloc(1, sizeof *a);
    a->buf = a->p = xgrow(NULL, &a->cap, 16, sizeof *a->p);
    a->p[0] = (struct point){origin, total};
    a->p[1] = (struct point){LONG_MAX, 0};
    a->n = 1;
    a->total = total;
    return a;
}

void avail_destroy(struct avail *a)
{
    if (!a)
        return;
    free(a->buf);
    free(a);
}

/* Index of the point whose interval contains t (t >= origin). Without a
 * branch on the comparison (a conditional move): the times searched for,
 * jobs' planned ends, fall anywhere, and a mispredicted branch at every
 * step cost more than the step. The steps are powers of two (k, the
 * largest not above n, then halves): the first compare leaves [0, n - k)
 * or [n - k, n), both within k - 1 of their start. The halves are then
 * unrolled, entered by the number left (a jump table): a step is a compare
 * and a conditional move with its length a constant, no shift and no test
 * of a loop (half the instructions of the loop it replaces; a take or a
 * give makes four or five). Profiles past FIND_UNROLLED points (none of the
 * traces') halve in a loop down to it first. */
#define FIND_UNROLLED 12 /* the steps unrolled: 2^11 down to 1 */
#define FIND_STEP(h) base = base[h].t <= t ? base + (h) : base

static inline size_t find(const struct avail *a, long t)
{
    const struct point *base = a->p;
    size_t n = a->n;                                 /* n >= 1 */
    unsigned lg = 63 - (unsigned)__builtin_clzll(n); /* k = 2^lg <= n */
    base = base[n - ((size_t)1 << lg)].t <= t ? base + (n - ((size_t)1 << lg)) : base;
    for (; lg > FIND_UNROLLED; lg--) /* a step of 2^(lg - 1) */
        FIND_STEP((size_t)1 << (lg - 1));
    switch (lg) { /* lg steps left: 2^(lg - 1) down to 1 */
    case 12:
        FIND_STEP(2048); /* fall through */
    case 11:
        FIND_STEP(1024); /* fall through */
    case 10:
        FIND_STEP(512); /* fall through */
    case 9:
        FIND_STEP(256); /* fall through */
    case 8:
        FIND_STEP(128); /* fall through */
    case 7:
        FIND_STEP(64); /* fall through */
    case 6:
        FIND_STEP(32); /* fall through */
    case 5:
        FIND_STEP(16); /* fall through */
    case 4:
        FIND_STEP(8); /* fall through */
    case 3:
        FIND_STEP(4); /* fall through */
    case 2:
        FIND_STEP(2); /* fall through */
    case 1:
        FIND_STEP(1); /* fall through */
    default:
        break;
    }
    return (size_t)(base - a->p);
}

/* The count at t (t >= origin), summed from the origin; *at gets the index
 * of the point whose interval holds t. */
static long long count_at(const struct avail *a, long t, size_t *at)
{
    long long c = a->p[0].d;
    size_t i = 1;
    for (; a->p[i].t <= t && i < a->n; i++)
        c += a->p[i].d;
    *at = i - 1;
    return c;
}

/* Centre the n + 1 points in the buffer, a new one four times their number
 * when they fill more than a quarter of it: room on both sides for as many
 * points again as there are, and then some. */
static void recentre(struct avail *a)
{
    size_t used = a->n + 1, cap = a->cap;
    struct point *buf = a->buf;
    if (4 * used > cap) {
        cap = 4 * used;
        buf = xcalloc(cap, sizeof *buf);
    }
    struct point *p = buf + (cap - used) / 2;
    memmove(p, a->p, used * sizeof *p);
    if (buf != a->buf)
        free(a->buf);
    a->buf = buf;
    a->cap = cap;
    a->p = p;
}

/* Add delta to the change at t (t > origin), making the point or removing
 * it when the change comes to nothing. Of the points on either side of it,
 * the fewer move: those before it (the origin with them) or those after
 * (the sentinel with them). */
static void add_at(struct avail *a, long t, long long delta)
{
    size_t i = find(a, t), n = a->n;
    struct point *p = a->p;
    if (p[i].t == t) { /* i > 0: t is past the origin */
        long long was = p[i].d;
        p[i].d += delta;
        a->nneg += (size_t)(p[i].d < 0) - (size_t)(was < 0);
        if (p[i].d == 0) {
            if (i < n - i) {
                memmove(p + 1, p, i * sizeof *p);
                a->p = p + 1;
            } else {
                memmove(p + i, p + i + 1, (n - i) * sizeof *p);
            }
            a->n = n - 1;
        }
        return;
    }
    /* The new point goes at i + 1: [0, i] move down or [i + 1, n] up. */
    int down = i + 1 < n - i;
    if (down ? p == a->buf : p + n + 1 == a->buf + a->cap) {
        recentre(a);
        p = a->p;
    }
    if (down) {
        memmove(p - 1, p, (i + 1) * sizeof *p);
        a->p = --p;
    } else {
        memmove(p + i + 2, p + i + 1, (n - i) * sizeof *p);
    }
    p[i + 1] = (struct point){t, delta};
    a->n = n + 1;
    a->nneg += delta < 0;
}

/* Add delta over [start, end): a change at each edge, the end first (it lies
 * after the start, so its point does not move the start's). */
static void add_range(struct avail *a, long start, long end, long long delta)
{
    if (start < a->p[0].t)
        start = a->p[0].t;
    if (end <= start || delta == 0)
        return;
    if (end < AVAIL_NEVER)
        add_at(a, end, -delta);
    if (start == a->p[0].t)
        a->p[0].d += delta;
    else
        add_at(a, start, delta);
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
    a->p[0].d += delta;
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
    size_t i;
    long long c = count_at(a, t, &i);
    for (size_t k = 1; a->nneg && k <= i; k++)
        a->nneg -= a->p[k].d < 0;
    a->p += i; /* the points passed are left behind in the buffer */
    a->n -= i;
    a->p[0] = (struct point){t, c};
}

long avail_origin(const struct avail *a)
{
    return a->p[0].t;
}

long long avail_free_at(const struct avail *a, long t)
{
    size_t i;
    return count_at(a, t, &i);
}

long long avail_free_now(const struct avail *a)
{
    return a->p[0].d;
}

int avail_fits(const struct avail *a, long start, long end, long long n)
{
    size_t i;
    long long c = count_at(a, start, &i);
    if (c < n)
        return 0;
    if (!a->nneg)
        return 1; /* the count does not fall after start */
    for (const struct point *p = a->p + i + 1; p->t < end; p++)
        if ((c += p->d) < n)
            return 0;
    return 1;
}

long long avail_min_free(const struct avail *a, long start, long end)
{
    size_t i;
    long long c = count_at(a, start, &i), min = c;
    if (!a->nneg)
        return min; /* the count does not fall after start */
    for (const struct point *p = a->p + i + 1; p->t < end; p++)
        if ((c += p->d) < min)
            min = c;
    return min;
}

long avail_earliest(const struct avail *a, long from, long dur, long long n)
{
    if (from < a->p[0].t)
        from = a->p[0].t;
    size_t i;
    long long c = count_at(a, from, &i);
    const struct point *first = a->p + i, *p = first, *last = a->p + a->n;
    long cand = -1; /* start of the current run of points with room */
    for (;;) {      /* c: the count over [p->t, p[1].t) */
        if (c < n) {
            cand = -1;
        } else {
            if (cand < 0)
                cand = p == first ? from : p->t;
            /* Without a negative change the run of room never ends. */
            if (!a->nneg || p + 1 == last || p[1].t >= cand + dur)
                return cand;
        }
        if (++p == last)
            return AVAIL_NEVER;
        c += p->d;
    }
}

/* avail_earliest as it would answer after avail_give(a, hs, he, extra),
 * the profile left as it is (add_range's clipping and never-ending gives
 * included). Three stretches, each walked as avail_earliest walks: before
 * hs, [hs, he) with the extra (a lower threshold), after he; the extra's
 * edges cut pieces where the given profile has points. A run of room cut
 * at an edge ends where it did, so the answer is the given profile's. */
long avail_earliest_plus(const struct avail *a, long from, long dur, long long n, long hs, long he,
                         long long extra)
{
    if (from < a->p[0].t)
        from = a->p[0].t;
    if (hs < from)
        hs = from; /* (before from it changes nothing: no start is looked at there) */
    if (he <= hs || extra == 0)
        return avail_earliest(a, from, dur, n);
    if (he >= AVAIL_NEVER)
        he = LONG_MAX; /* given for good: no edge at its end */
    size_t i;
    long long c = count_at(a, from, &i); /* over [p->t, p[1].t), p[n] the LONG_MAX sentinel */
    const struct point *p = a->p + i;
    long x = from, cand = -1; /* x: where the current piece starts */
    for (; p[1].t <= hs; x = (++p)->t, c += p->d) {
        if (c < n)
            cand = -1;
        else if ((cand < 0 ? (cand = x) : cand) <= p[1].t - dur)
            return cand;
    }
    if (x < hs) { /* the piece [x, hs) */
        if (c < n)
            cand = -1;
        else if ((cand < 0 ? (cand = x) : cand) <= hs - dur)
            return cand;
        x = hs;
    }
    long long m = n - extra;
    if (cand < 0 && x == hs && c >= m && hs <= he - dur) {
        /* A run from hs (the usual answer: the hold where it was): room
         * over [hs, hs + dur), all of it within the extra, or the first
         * point without, where the walk goes on. With no negative change
         * but the hold's own take at hs (between an EASY plan's passes),
         * the count does not fall after hs: no walk. */
        if (a->nneg == (size_t)(p != a->p && p->t == hs && p->d < 0))
            return hs;
        while (p[1].t < hs + dur && c >= m)
            c += (++p)->d;
        if (c >= m)
            return hs;
        x = p->t;
    }
    while (x < he) {
        long next = p[1].t < he ? p[1].t : he;
        if (c < m)
            cand = -1;
        else if (next == LONG_MAX || (cand < 0 ? (cand = x) : cand) <= next - dur)
            return cand < 0 ? x : cand;
        if (next == LONG_MAX)
            return AVAIL_NEVER;
        if ((x = next) == p[1].t)
            c += (++p)->d;
    }
    for (;; x = (++p)->t, c += p->d) {
        if (c < n)
            cand = -1;
        else if (p[1].t == LONG_MAX || (cand < 0 ? (cand = x) : cand) <= p[1].t - dur)
            return cand < 0 ? x : cand;
        if (p[1].t == LONG_MAX)
            return AVAIL_NEVER;
    }
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
    for (size_t k = 0; k < n; k++)
        sum += count_at(ps[k], start, &cur[k]);
    long long min = sum;
    for (;;) {
        long next = AVAIL_NEVER;
        for (size_t k = 0; k < n; k++)
            if (cur[k] + 1 < ps[k]->n && ps[k]->p[cur[k] + 1].t < next)
                next = ps[k]->p[cur[k] + 1].t;
        if (next >= end)
            return min;
        for (size_t k = 0; k < n; k++)
            if (cur[k] + 1 < ps[k]->n && ps[k]->p[cur[k] + 1].t == next)
                sum += ps[k]->p[++cur[k]].d;
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
