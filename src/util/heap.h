/*
 * heap — a binary min-heap of pointers with position tracking, so an element
 * can be removed or re-keyed in O(log n). The element type stores its own
 * position through the `setpos` callback (SIZE_MAX = not in the heap).
 * The heap does not own its elements.
 */
#ifndef MOKU_HEAP_H
#define MOKU_HEAP_H

#include <stddef.h>

struct heap {
    void **v;
    size_t n, cap;
    int (*less)(const void *a, const void *b);
    void (*setpos)(void *elem, size_t pos);
};

void heap_init(struct heap *h, int (*less)(const void *, const void *),
               void (*setpos)(void *, size_t));
void heap_free(struct heap *h);
void heap_push(struct heap *h, void *elem);
/* Smallest element or NULL. */
void *heap_top(const struct heap *h);
void *heap_pop(struct heap *h);
/* Remove the element at position pos (as last reported through setpos). */
void heap_remove(struct heap *h, size_t pos);
/* Restore order after the key of the element at pos changed. */
void heap_fix(struct heap *h, size_t pos);

#endif
