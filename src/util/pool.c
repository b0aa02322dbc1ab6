/* pool — see pool.h. */
#include "util/pool.h"

#include <stdalign.h>
#include <stdlib.h>

#include "util/mem.h"

#if defined(__SANITIZE_ADDRESS__)
#define POOL_MALLOC 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define POOL_MALLOC 1
#endif
#endif

/* Chunks double from the first to the last size: a daemon with a few jobs
 * keeps little, a replay's chunks are few. */
#define POOL_FIRST 16
#define POOL_LAST 4096

struct pool_free {
    struct pool_free *next;
};

void pool_init(struct pool *p, size_t size)
{
    size_t a = alignof(max_align_t);
    if (size < sizeof(struct pool_free))
        size = sizeof(struct pool_free);
    *p = (struct pool){.size = (size + a - 1) / a * a};
}

#ifdef POOL_MALLOC

void *pool_take(struct pool *p)
{
    return xmalloc(p->size);
}

void pool_give(struct pool *p, void *rec)
{
    (void)p;
    free(rec);
}

#else

/* A new chunk, twice the last one's records (up to POOL_LAST). */
static void grow(struct pool *p)
{
    size_t n = POOL_FIRST;
    for (size_t k = 0; k < p->nchunks && n < POOL_LAST; k++)
        n *= 2;
    p->chunks = xgrow(p->chunks, &p->capchunks, p->nchunks + 1, sizeof *p->chunks);
    p->chunks[p->nchunks++] = p->next = xmalloc(n * p->size);
    p->left = n;
}

void *pool_take(struct pool *p)
{
    if (p->free) {
        struct pool_free *f = p->free;
        p->free = f->next;
        return f;
    }
    if (!p->left)
        grow(p);
    void *rec = p->next;
    p->next += p->size;
    p->left--;
    return rec;
}

void pool_give(struct pool *p, void *rec)
{
    if (!rec)
        return;
    struct pool_free *f = rec;
    f->next = p->free;
    p->free = f;
}

#endif

void pool_free(struct pool *p)
{
    for (size_t k = 0; k < p->nchunks; k++)
        free(p->chunks[k]);
    free(p->chunks);
    *p = (struct pool){.size = p->size};
}
