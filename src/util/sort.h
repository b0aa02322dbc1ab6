/*
 * sort — a stable natural merge sort of pointer arrays with a caller-kept
 * scratch buffer.
 *
 * Why not qsort: the scheduler re-sorts its queue every iteration when
 * priorities are dynamic. glibc's qsort allocates and frees a buffer of the
 * array's size on every call, which on a large queue means fresh pages (and
 * kernel time) every iteration; and from one iteration to the next the queue
 * is nearly sorted already, which a natural merge sort turns into a single
 * pass over a few runs: O(n) when nothing moved, O(n log r) for r runs.
 */
#ifndef MOKU_SORT_H
#define MOKU_SORT_H

#include <stddef.h>

struct sort_buf {
    void **v; /* merge scratch */
    size_t cap;
    size_t *starts; /* run boundaries */
    size_t scap;
};

/* Sort v[0..n) by cmp, which gets pointers to two elements as qsort's does
 * (so qsort comparators work unchanged). Stable. buf is grown as needed and
 * kept for the next call; free it with sort_buf_free. */
void sort_ptrs(void **v, size_t n, int (*cmp)(const void *, const void *), struct sort_buf *buf);
void sort_buf_free(struct sort_buf *buf);

#endif
