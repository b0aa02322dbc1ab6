/* heap — see heap.h. The sift loops are those of the heap this one
 * replaced (comparison for comparison), so elements with equal keys leave
 * in the same order as before and schedules stay byte-identical. They move
 * a hole rather than swap: the element sifted is held in a local and
 * written once, where it stops. */
#include "util/heap.h"

#include <stdint.h>
#include <stdlib.h>

#include "util/mem.h"

void heap_init(struct heap *h, size_t pos_offset)
{
    h->v = NULL;
    h->n = h->cap = 0;
    h->pos_offset = pos_offset;
}

void heap_free(struct heap *h)
{
    free(h->v);
    h->v = NULL;
    h->n = h->cap = 0;
}

static inline int less(const struct heap_item *a, const struct heap_item *b)
{
    return a->key < b->key || (a->key == b->key && a->seq < b->seq);
}

/* Put it at slot i of v and tell the element, through its position member
 * at offset off. The sift loops keep v, n and off in locals: the write
 * through the element may alias anything, and would otherwise make the
 * compiler reload them from the heap on every level. */
static inline void place(struct heap_item *v, size_t off, size_t i, struct heap_item it)
{
    v[i] = it;
    *(size_t *)((char *)it.elem + off) = i;
}

/* Sift `it` up from the hole at i (its parents that it is less than move
 * down); where it stops. */
static inline size_t up(struct heap_item *v, size_t off, size_t i, struct heap_item it)
{
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!less(&it, &v[parent]))
            break;
        place(v, off, i, v[parent]);
        i = parent;
    }
    place(v, off, i, it);
    return i;
}

/* Sift `it` down from the hole at i in v[0..n): the smaller child (the
 * left one on a tie) moves up while it is less than `it`. Nodes with two
 * children are the loop; the one node that may have a left child only is
 * the last step. */
static inline void down(struct heap_item *v, size_t n, size_t off, size_t i, struct heap_item it)
{
    size_t c;
    while ((c = 2 * i + 1) + 1 < n) {
        c += (size_t)less(&v[c + 1], &v[c]);
        if (!less(&v[c], &it))
            break;
        place(v, off, i, v[c]);
        i = c;
    }
    if (c + 1 == n && less(&v[c], &it)) {
        place(v, off, i, v[c]);
        i = c;
    }
    place(v, off, i, it);
}

/* A push that must grow the array first, out of line: a call on the push's
 * own path made every push save and restore five registers (two pushes a
 * job of a replay), for a growth that happens a few times a run. Here the
 * common path calls nothing, and this one is a tail call. */
static __attribute__((noinline, cold)) void push_grown(struct heap *h, void *elem, long key,
                                                       size_t seq)
{
    h->v = xgrow(h->v, &h->cap, h->n + 1, sizeof *h->v);
    up(h->v, h->pos_offset, h->n++, (struct heap_item){.key = key, .seq = seq, .elem = elem});
}

void heap_push(struct heap *h, void *elem, long key, size_t seq)
{
    if (h->n == h->cap) {
        push_grown(h, elem, key, seq);
        return;
    }
    up(h->v, h->pos_offset, h->n++, (struct heap_item){.key = key, .seq = seq, .elem = elem});
}

/* Fill the hole at pos with `it` (the last element, or pos's own with a new
 * key): up when it is less than its parent, else down (as a remove or a
 * re-key always did: up first, down only when up did not move it). */
static void refill(struct heap *h, size_t pos, struct heap_item it)
{
    struct heap_item *v = h->v;
    size_t off = h->pos_offset;
    if (pos > 0 && less(&it, &v[(pos - 1) / 2]))
        up(v, off, pos, it);
    else
        down(v, h->n, off, pos, it);
}

void *heap_pop(struct heap *h)
{
    if (!h->n)
        return NULL;
    struct heap_item *v = h->v;
    void *top = v[0].elem;
    size_t n = --h->n, off = h->pos_offset;
    if (n)
        down(v, n, off, 0, v[n]);
    *(size_t *)((char *)top + off) = SIZE_MAX;
    return top;
}

void heap_remove(struct heap *h, size_t pos)
{
    void *gone = h->v[pos].elem;
    h->n--;
    if (pos != h->n)
        refill(h, pos, h->v[h->n]);
    *(size_t *)((char *)gone + h->pos_offset) = SIZE_MAX;
}

void heap_rekey(struct heap *h, size_t pos, long key, size_t seq)
{
    struct heap_item it = h->v[pos];
    it.key = key;
    it.seq = seq;
    refill(h, pos, it);
}
