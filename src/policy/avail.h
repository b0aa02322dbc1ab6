/*
 * avail — the availability profile: how many processors are free at every
 * instant from now on.
 *
 * A step function over [origin, +inf): running jobs hold processors until
 * their planned end (start + walltime), reservations hold them over their
 * window. It answers the question every scheduling decision asks — "when can
 * N processors be had for D seconds?" — by counting, not by naming nodes:
 * processors of a shared cluster are interchangeable, so a job that fits the
 * count at every instant of its window also fits some set of nodes
 * (../shared/reference/availability.md). Nodes are chosen when a job starts.
 *
 * Intervals are half-open, [start, end): a job that ends at t frees its
 * processors for anything starting at t.
 *
 * Cost: the profile keeps one breakpoint per distinct start/end time in the
 * future, so updates and queries are linear in the number of running jobs and
 * reservations, not in the number of nodes or queued jobs. A query of a
 * profile whose count never falls after the origin (nothing reserved later:
 * running jobs only give back) answers from where it starts.
 */
#ifndef MOKU_AVAIL_H
#define MOKU_AVAIL_H

#include <stddef.h>

#include "core/never.h" /* AVAIL_NEVER */

struct avail;

/* A profile with `total` free processors from `origin` on. Caller destroys. */
struct avail *avail_create(long long total, long origin);
void avail_destroy(struct avail *a);

/* Take n processors over [start, end); start before the origin counts from
 * the origin. Free counts may go negative (an overcommitted instant); queries
 * then simply report no room. */
void avail_take(struct avail *a, long start, long end, long long n);
/* Give back what avail_take took (same arguments). */
void avail_give(struct avail *a, long start, long end, long long n);

/* Change the total (nodes came up or went down) from the origin on. */
void avail_add_total(struct avail *a, long long delta);
long long avail_total(const struct avail *a);

/* Forget the past: move the origin to t (t >= origin). */
void avail_advance(struct avail *a, long t);
long avail_origin(const struct avail *a);

/* Free processors at instant t (t >= origin). */
long long avail_free_at(const struct avail *a, long t);
/* Free processors at the origin (O(1)). */
long long avail_free_now(const struct avail *a);
/* Whether n processors are free over [start, end); stops at the first
 * instant that falls short. */
int avail_fits(const struct avail *a, long start, long end, long long n);
/* Least free processors over [start, end). */
long long avail_min_free(const struct avail *a, long start, long end);
/*
 * Earliest t >= from such that at least n processors are free over
 * [t, t + dur). Returns AVAIL_NEVER when n exceeds what the profile will
 * ever offer.
 */
long avail_earliest(const struct avail *a, long from, long dur, long long n);

/* avail_earliest on the profile with `extra` more free over [hs, he), as
 * after avail_give(a, hs, he, extra), without changing it (a job's own
 * reservation, left in place while its new one is looked for). */
long avail_earliest_plus(const struct avail *a, long from, long dur, long long n, long hs, long he,
                         long long extra);

/* Least of the sum of n profiles (n <= 64) over [start, end): what a
 * request that may use all of them has at worst. */
long long avail_min_sum(const struct avail *const *ps, size_t n, long start, long end);
/* The first instant after t at which the free count changes, or
 * AVAIL_NEVER. */
long avail_next_change(const struct avail *a, long t);

/* Number of breakpoints (for tests and benchmarks). */
size_t avail_points(const struct avail *a);

#endif
