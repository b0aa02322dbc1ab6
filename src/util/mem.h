/*
 * mem — allocation that aborts on out-of-memory, so callers never check for
 * NULL (the Redis convention). Running out of memory in a scheduler is not an
 * input error the user can mend; it is reported once and the process ends.
 */
#ifndef MOKU_MEM_H
#define MOKU_MEM_H

#include <stddef.h>

void *xmalloc(size_t size);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t size);
/* size bytes, zeroed, at an address that is a multiple of align (a power
 * of two, a multiple of sizeof(void *)); freed with free. */
void *xcalloc_aligned(size_t align, size_t size);
/* Grow an array to hold at least `need` elements of `size` bytes; *cap is
 * updated. Returns the (possibly moved) array. */
void *xgrow(void *p, size_t *cap, size_t need, size_t size);
/* Caller frees. */
char *xstrdup(const char *s);
/* Copy of the first n bytes of s, NUL-terminated. Caller frees. */
char *xstrndup(const char *s, size_t n);
/* A new string formatted like printf. */
char *xprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
