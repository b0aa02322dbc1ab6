/* heap — see heap.h. */
#include "util/heap.h"

#include <stdint.h>
#include <stdlib.h>

#include "util/mem.h"

void heap_init(struct heap *h, int (*less)(const void *, const void *),
               void (*setpos)(void *, size_t))
{
    h->v = NULL;
    h->n = h->cap = 0;
    h->less = less;
    h->setpos = setpos;
}

void heap_free(struct heap *h)
{
    free(h->v);
    h->v = NULL;
    h->n = h->cap = 0;
}

static void place(struct heap *h, size_t i, void *e)
{
    h->v[i] = e;
    h->setpos(e, i);
}

static size_t up(struct heap *h, size_t i)
{
    void *e = h->v[i];
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!h->less(e, h->v[parent]))
            break;
        place(h, i, h->v[parent]);
        i = parent;
    }
    place(h, i, e);
    return i;
}

static void down(struct heap *h, size_t i)
{
    void *e = h->v[i];
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= h->n)
            break;
        if (c + 1 < h->n && h->less(h->v[c + 1], h->v[c]))
            c++;
        if (!h->less(h->v[c], e))
            break;
        place(h, i, h->v[c]);
        i = c;
    }
    place(h, i, e);
}

void heap_push(struct heap *h, void *elem)
{
    h->v = xgrow(h->v, &h->cap, h->n + 1, sizeof *h->v);
    h->v[h->n++] = elem;
    up(h, h->n - 1);
}

void *heap_top(const struct heap *h)
{
    return h->n ? h->v[0] : NULL;
}

void *heap_pop(struct heap *h)
{
    if (!h->n)
        return NULL;
    void *top = h->v[0];
    heap_remove(h, 0);
    return top;
}

void heap_remove(struct heap *h, size_t pos)
{
    void *gone = h->v[pos];
    h->n--;
    if (pos != h->n) {
        h->v[pos] = h->v[h->n];
        heap_fix(h, pos);
    }
    h->setpos(gone, SIZE_MAX);
}

void heap_fix(struct heap *h, size_t pos)
{
    if (up(h, pos) == pos)
        down(h, pos);
}
