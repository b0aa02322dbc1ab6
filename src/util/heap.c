/* heap — see heap.h. The sift loops are those of the heap this one
 * replaced (comparison for comparison), so elements with equal keys leave
 * in the same order as before and schedules stay byte-identical. */
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

static int less(const struct heap_item *a, const struct heap_item *b)
{
    return a->key < b->key || (a->key == b->key && a->seq < b->seq);
}

/* Put it at slot i of v and tell the element, through its position member
 * at offset off. The sift loops keep v, n and off in locals: the write
 * through the element may alias anything, and would otherwise make the
 * compiler reload them from the heap on every level. */
static void place(struct heap_item *v, size_t off, size_t i, struct heap_item it)
{
    v[i] = it;
    *(size_t *)((char *)it.elem + off) = i;
}

static size_t up(struct heap *h, size_t i)
{
    struct heap_item *v = h->v;
    size_t off = h->pos_offset;
    struct heap_item it = v[i];
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

static void down(struct heap *h, size_t i)
{
    struct heap_item *v = h->v;
    size_t n = h->n, off = h->pos_offset;
    struct heap_item it = v[i];
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && less(&v[c + 1], &v[c]))
            c++;
        if (!less(&v[c], &it))
            break;
        place(v, off, i, v[c]);
        i = c;
    }
    place(v, off, i, it);
}

static void fix(struct heap *h, size_t pos)
{
    if (up(h, pos) == pos)
        down(h, pos);
}

void heap_push(struct heap *h, void *elem, long key, size_t seq)
{
    if (h->n == h->cap)
        h->v = xgrow(h->v, &h->cap, h->n + 1, sizeof *h->v);
    h->v[h->n++] = (struct heap_item){.key = key, .seq = seq, .elem = elem};
    up(h, h->n - 1);
}

void *heap_pop(struct heap *h)
{
    if (!h->n)
        return NULL;
    void *top = h->v[0].elem;
    heap_remove(h, 0);
    return top;
}

void heap_remove(struct heap *h, size_t pos)
{
    void *gone = h->v[pos].elem;
    h->n--;
    if (pos != h->n) {
        h->v[pos] = h->v[h->n];
        fix(h, pos);
    }
    *(size_t *)((char *)gone + h->pos_offset) = SIZE_MAX;
}

void heap_rekey(struct heap *h, size_t pos, long key, size_t seq)
{
    h->v[pos].key = key;
    h->v[pos].seq = seq;
    fix(h, pos);
}
