/* sort — see sort.h. */
#include "util/sort.h"

#include <stdlib.h>
#include <string.h>

#include "util/mem.h"

/* Merge the sorted runs a[0..na) and a[na..na+nb) through tmp. */
static void merge(void **a, size_t na, size_t nb, int (*cmp)(const void *, const void *),
                  void **tmp)
{
    /* Already in order: the common case for a nearly sorted queue. */
    if (cmp(&a[na - 1], &a[na]) <= 0)
        return;
    memcpy(tmp, a, na * sizeof *a);
    size_t i = 0, j = na, k = 0, end = na + nb;
    while (i < na && j < end)
        a[k++] = cmp(&a[j], &tmp[i]) < 0 ? a[j++] : tmp[i++]; /* ties: left first */
    while (i < na)
        a[k++] = tmp[i++];
}

/* Length of the run starting at v[i]: ascending, or strictly descending
 * (reversed in place, which keeps the sort stable). */
static size_t run_at(void **v, size_t i, size_t n, int (*cmp)(const void *, const void *))
{
    size_t j = i + 1;
    if (j == n)
        return 1;
    if (cmp(&v[j], &v[i]) < 0) {
        while (j + 1 < n && cmp(&v[j + 1], &v[j]) < 0)
            j++;
        for (size_t lo = i, hi = j; lo < hi; lo++, hi--) {
            void *t = v[lo];
            v[lo] = v[hi];
            v[hi] = t;
        }
        return j - i + 1;
    }
    while (j + 1 < n && cmp(&v[j + 1], &v[j]) >= 0)
        j++;
    return j - i + 1;
}

void sort_ptrs(void **v, size_t n, int (*cmp)(const void *, const void *), struct sort_buf *buf)
{
    if (n < 2)
        return;
    /* Find the runs, then merge neighbours pass by pass. Every run but the
     * last has at least two elements: at most n/2 + 1 runs. */
    buf->starts = xgrow(buf->starts, &buf->scap, n / 2 + 2, sizeof *buf->starts);
    size_t *starts = buf->starts;
    size_t nruns = 0;
    for (size_t i = 0; i < n; i += run_at(v, i, n, cmp))
        starts[nruns++] = i;
    starts[nruns] = n;
    if (nruns > 1) {
        buf->v = xgrow(buf->v, &buf->cap, n, sizeof *buf->v);
        while (nruns > 1) {
            size_t w = 0;
            for (size_t r = 0; r < nruns; r += 2) {
                if (r + 1 < nruns)
                    merge(&v[starts[r]], starts[r + 1] - starts[r], starts[r + 2] - starts[r + 1],
                          cmp, buf->v);
                starts[w++] = starts[r];
            }
            starts[w] = n;
            nruns = w;
        }
    }
}

void sort_buf_free(struct sort_buf *buf)
{
    free(buf->v);
    free(buf->starts);
    *buf = (struct sort_buf){0};
}
