/*
 * t_heap — the position-tracking heap (util/heap) against two models, in
 * fixed-seed random runs of pushes, pops, removals and re-keyings:
 *  - a sorted array of the live (key, seq) pairs: every pop and every top
 *    is the smallest pair, every position member points at its element;
 *  - the heap moku had before its keys were stored inline (a comparison
 *    callback a compare): with keys that tie, elements must leave in the
 *    same order as there, since the engine's running heap breaks ties on
 *    planned end by the heap's shape and schedules depend on it.
 */
#include <stddef.h>
#include <stdint.h>

#include "test.h"
#include "util/heap.h"

#define NEL 400

struct el {
    long key;
    size_t seq;
    size_t pos;     /* in the heap under test */
    size_t ref_pos; /* in the reference heap */
    int live;
};

/* The reference: the old heap's sift loops, comparing through the element. */
struct ref {
    struct el *v[NEL];
    size_t n;
};

static int el_less(const struct el *a, const struct el *b)
{
    return a->key < b->key || (a->key == b->key && a->seq < b->seq);
}

static void ref_place(struct ref *r, size_t i, struct el *e)
{
    r->v[i] = e;
    e->ref_pos = i;
}

static size_t ref_up(struct ref *r, size_t i)
{
    struct el *e = r->v[i];
    while (i > 0 && el_less(e, r->v[(i - 1) / 2])) {
        ref_place(r, i, r->v[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
    ref_place(r, i, e);
    return i;
}

static void ref_down(struct ref *r, size_t i)
{
    struct el *e = r->v[i];
    for (size_t c; (c = 2 * i + 1) < r->n; i = c) {
        if (c + 1 < r->n && el_less(r->v[c + 1], r->v[c]))
            c++;
        if (!el_less(r->v[c], e))
            break;
        ref_place(r, i, r->v[c]);
    }
    ref_place(r, i, e);
}

static void ref_fix(struct ref *r, size_t i)
{
    if (ref_up(r, i) == i)
        ref_down(r, i);
}

static void ref_remove(struct ref *r, size_t i)
{
    struct el *gone = r->v[i];
    if (i != --r->n) {
        r->v[i] = r->v[r->n];
        ref_fix(r, i);
    }
    gone->ref_pos = SIZE_MAX;
}

static uint64_t next(uint64_t *x)
{
    *x ^= *x << 13, *x ^= *x >> 7, *x ^= *x << 17;
    return *x;
}

/* Both heaps hold the same elements at the same positions, each element's
 * position member is right, and the top is the smallest live pair. */
static int consistent(const struct heap *h, const struct ref *r, struct el *els)
{
    if (h->n != r->n)
        return 0;
    for (size_t i = 0; i < h->n; i++) {
        const struct el *e = heap_at(h, i);
        if (e != r->v[i] || e->pos != i || e->ref_pos != i || !e->live)
            return 0;
        if (h->v[i].key != e->key || h->v[i].seq != e->seq)
            return 0;
    }
    const struct el *min = NULL;
    for (size_t k = 0; k < NEL; k++) {
        if (!els[k].live && els[k].pos != SIZE_MAX)
            return 0;
        if (els[k].live && (!min || el_less(&els[k], min)))
            min = &els[k];
    }
    const struct el *top = heap_top(h);
    return min ? top && top->key == min->key && top->seq == min->seq : !top;
}

/* One run: keys drawn from [0, keys), seq from [0, seqs); seqs == 1 gives
 * the engine's case, where only the key orders and ties are everywhere. */
static void random_run(uint64_t seed, long keys, size_t seqs)
{
    static struct el els[NEL];
    struct ref r = {.n = 0};
    struct heap h;
    heap_init(&h, offsetof(struct el, pos));
    for (size_t k = 0; k < NEL; k++)
        els[k] = (struct el){.pos = SIZE_MAX, .ref_pos = SIZE_MAX};
    uint64_t x = seed;
    int bad = 0;
    for (int i = 0; i < 100000 && bad < 5; i++) {
        struct el *e = &els[next(&x) % NEL];
        long key = (long)(next(&x) % (uint64_t)keys) - keys / 2;
        size_t seq = next(&x) % seqs;
        unsigned op = next(&x) % 4;
        if (!e->live) { /* push */
            e->key = key, e->seq = seq, e->live = 1;
            heap_push(&h, e, key, seq);
            r.v[r.n++] = e;
            ref_up(&r, r.n - 1);
        } else if (op == 0) { /* pop: both heaps give the same element */
            struct el *want = r.v[0];
            ref_remove(&r, 0);
            struct el *got = heap_pop(&h);
            bad += got != want;
            want->live = 0;
        } else if (op == 1) { /* remove where it is */
            heap_remove(&h, e->pos);
            ref_remove(&r, e->ref_pos);
            e->live = 0;
        } else { /* re-key, up or down or to the same pair */
            e->key = key, e->seq = seq;
            heap_rekey(&h, e->pos, key, seq);
            ref_fix(&r, e->ref_pos);
        }
        bad += !consistent(&h, &r, els);
    }
    /* Drain: pairs come out in sorted order, ties as the reference has them. */
    const struct el *last = NULL;
    while (h.n) {
        struct el *want = r.v[0];
        ref_remove(&r, 0);
        struct el *got = heap_pop(&h);
        bad += got != want || (last && el_less(got, last)) || got->pos != SIZE_MAX;
        last = got;
    }
    CHECK(heap_pop(&h) == NULL);
    CHECK(heap_top(&h) == NULL);
    CHECK_EQ(bad, 0);
    heap_free(&h);
}

static void test_random(void)
{
    random_run(88172645463325252ULL, 1000000, 1000000); /* nearly all pairs distinct */
    random_run(2463534242ULL, 20, 1000000);             /* ties on key, seq decides */
    random_run(1181783497276652981ULL, 20, 1);          /* ties left to the shape */
    random_run(7ULL, 3, 2);                             /* ties everywhere */
}

/* The small cases by hand: an empty heap, a re-key to the top and back,
 * removing the last slot. */
static void test_small(void)
{
    struct el a = {.key = 5}, b = {.key = 7}, c = {.key = 7, .seq = 1};
    struct heap h;
    heap_init(&h, offsetof(struct el, pos));
    CHECK(heap_top(&h) == NULL);
    heap_push(&h, &c, c.key, c.seq);
    heap_push(&h, &b, b.key, b.seq);
    heap_push(&h, &a, a.key, a.seq);
    CHECK(heap_top(&h) == &a);
    heap_rekey(&h, c.pos, 1, 1);
    CHECK(heap_top(&h) == &c);
    heap_rekey(&h, c.pos, 9, 0);
    CHECK(heap_top(&h) == &a);
    heap_remove(&h, h.n - 1);
    CHECK_EQ(h.n, 2);
    CHECK(heap_pop(&h) == &a);
    CHECK_EQ(a.pos, SIZE_MAX);
    CHECK(heap_pop(&h) != NULL);
    CHECK(heap_pop(&h) == NULL);
    heap_free(&h);
    heap_free(&h); /* a freed heap is empty and may be freed again */
}

int main(void)
{
    TEST_RUN(test_random);
    TEST_RUN(test_small);
    return TEST_DONE();
}
