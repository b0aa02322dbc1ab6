/*
 * heap — a binary min-heap of pointers with position tracking, so an element
 * can be removed or re-keyed in O(log n). Each element is held with a copy
 * of its key, a (time, seq) pair compared inline: the hot loops of the
 * simulator and the engine read no element and call no function to order
 * them. Elements with equal keys come out in the order the heap's shape
 * gives them (callers that need a fixed order make seq unique).
 * The element type keeps its own position in a size_t member whose offset
 * is given at init (SIZE_MAX = not in the heap). The heap does not own its
 * elements.
 */
#ifndef MOKU_HEAP_H
#define MOKU_HEAP_H

#include <stddef.h>

struct heap_item {
    long key; /* ordered by key, then seq */
    size_t seq;
    void *elem;
};

struct heap {
    struct heap_item *v;
    size_t n, cap;
    size_t pos_offset; /* offsetof the element's size_t position member */
};

/* An empty heap whose elements keep their position at pos_offset, e.g.
 * offsetof(struct job, heap_pos). */
void heap_init(struct heap *h, size_t pos_offset);
void heap_free(struct heap *h);
/* Add elem under (key, seq). The key is a copy: when the element's own
 * time changes, tell the heap with heap_rekey. */
void heap_push(struct heap *h, void *elem, long key, size_t seq);
/* Smallest element or NULL. */
static inline void *heap_top(const struct heap *h)
{
    return h->n ? h->v[0].elem : NULL;
}
/* The element at position i < h->n: walking 0..n-1 visits every element
 * once, in no useful order. */
static inline void *heap_at(const struct heap *h, size_t i)
{
    return h->v[i].elem;
}
void *heap_pop(struct heap *h);
/* Remove the element at position pos (as last stored in its member). */
void heap_remove(struct heap *h, size_t pos);
/* Give the element at pos the key (key, seq) and restore the order. */
void heap_rekey(struct heap *h, size_t pos, long key, size_t seq);

#endif
