/*
 * t_sort — the natural merge sort (util/sort): the same order as a stable
 * reference on random, sorted, reversed, nearly sorted and duplicate-heavy
 * arrays; stability; the scratch buffer reused across calls.
 */
#include <stdlib.h>

#include "test.h"
#include "util/sort.h"

struct item {
    int key;
    int seq; /* original position: stability */
};

static int by_key(const void *a, const void *b)
{
    const struct item *x = *(const struct item *const *)a, *y = *(const struct item *const *)b;
    return (x->key > y->key) - (x->key < y->key);
}

/* Stable reference: compare keys, then original positions. */
static int by_key_seq(const void *a, const void *b)
{
    int c = by_key(a, b);
    if (c)
        return c;
    const struct item *x = *(const struct item *const *)a, *y = *(const struct item *const *)b;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

enum shape { RANDOM, SORTED, REVERSED, NEARLY, FEW_KEYS, NSHAPES };

static int sorts_like_reference(size_t n, enum shape shape, struct sort_buf *buf)
{
    struct item *items = malloc((n ? n : 1) * sizeof *items);
    void **v = malloc((n ? n : 1) * sizeof *v), **ref = malloc((n ? n : 1) * sizeof *ref);
    for (size_t i = 0; i < n; i++) {
        int k = rand() % 1000;
        if (shape == SORTED)
            k = (int)i;
        else if (shape == REVERSED)
            k = (int)(n - i);
        else if (shape == NEARLY)
            k = (int)i + (rand() % 20 == 0 ? rand() % 50 - 25 : 0);
        else if (shape == FEW_KEYS)
            k = rand() % 3;
        items[i] = (struct item){k, (int)i};
        v[i] = ref[i] = &items[i];
    }
    sort_ptrs(v, n, by_key, buf);
    qsort(ref, n, sizeof *ref, by_key_seq);
    int same = 1;
    for (size_t i = 0; i < n; i++)
        same &= v[i] == ref[i];
    free(items);
    free(v);
    free(ref);
    return same;
}

static void test_shapes(void)
{
    struct sort_buf buf = {0};
    size_t sizes[] = {0, 1, 2, 3, 7, 64, 1000, 4097};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int shape = 0; shape < NSHAPES; shape++)
            for (int rep = 0; rep < 5; rep++)
                CHECK(sorts_like_reference(sizes[s], (enum shape)shape, &buf));
    sort_buf_free(&buf);
    sort_buf_free(&buf); /* twice is harmless */
}

/* Equal keys in strictly descending runs and ascending runs keep their
 * order. */
static void test_stable(void)
{
    struct item it[] = {{3, 0}, {2, 1}, {2, 2}, {1, 3}, {2, 4}, {3, 5}, {1, 6}};
    void *v[7];
    for (int i = 0; i < 7; i++)
        v[i] = &it[i];
    struct sort_buf buf = {0};
    sort_ptrs(v, 7, by_key, &buf);
    int want[] = {3, 6, 1, 2, 4, 0, 5};
    for (int i = 0; i < 7; i++)
        CHECK_EQ(((struct item *)v[i])->seq, want[i]);
    sort_buf_free(&buf);
}

int main(void)
{
    srand(7);
    TEST_RUN(test_shapes);
    TEST_RUN(test_stable);
    return TEST_DONE();
}
