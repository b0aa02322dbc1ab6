/*
 * pool — records of one size carved from large chunks, for objects made and
 * dropped by the hundred thousand (a replay's jobs): a record costs a pointer
 * bump or a pop, not a malloc and a free each.
 *
 * A record given back goes on a free list (its first bytes hold the link)
 * and is the next one taken, as malloc would reuse it; the chunks go back
 * only with the pool. Records are not zeroed: the caller sets every field.
 *
 * Under AddressSanitizer every record is its own malloc and pool_give its
 * free, so a stale pointer to a record given back is still reported as a
 * use after free (its quarantine keeps the memory from being reused at
 * once, which a free list would do).
 */
#ifndef MOKU_POOL_H
#define MOKU_POOL_H

#include <stddef.h>

struct pool_free;

struct pool {
    size_t size;   /* of a record, rounded up for alignment */
    char **chunks; /* owned */
    size_t nchunks, capchunks;
    size_t left;            /* records not yet carved from the last chunk */
    char *next;             /* the next of those */
    struct pool_free *free; /* records given back, the last first */
};

/* An empty pool of records of `size` bytes. */
void pool_init(struct pool *p, size_t size);
/* A record (uninitialized), aligned for any type. */
void *pool_take(struct pool *p);
/* Give back a record taken from p (NULL: nothing). */
void pool_give(struct pool *p, void *rec);
/* Free the chunks. Give every record back first: under AddressSanitizer
 * each is its own malloc, and one not given back is reported as a leak. */
void pool_free(struct pool *p);

#endif
