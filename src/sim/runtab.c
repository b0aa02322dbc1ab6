/* runtab — see runtab.h. */
#include "sim/runtab.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/mem.h"

#define RUNTAB_BLOCK 1024

void runtab_init(struct runtab *t)
{
    memset(t, 0, sizeof *t);
}

/* Tags are workload indices: consecutive, so a multiplicative hash spreads
 * them over the slots. */
static size_t home(const struct runtab *t, size_t tag)
{
    return (size_t)(((uint64_t)tag * 0x9E3779B97F4A7C15ull) >> 32) & (t->cap - 1);
}

struct run *runtab_find(const struct runtab *t, size_t tag)
{
    if (!t->cap)
        return NULL;
    for (size_t i = home(t, tag);; i = (i + 1) & (t->cap - 1))
        if (!t->slot[i] || t->slot[i]->tag == tag)
            return t->slot[i];
}

static void place(struct runtab *t, struct run *r)
{
    size_t i = home(t, r->tag);
    while (t->slot[i])
        i = (i + 1) & (t->cap - 1);
    t->slot[i] = r;
}

/* At most half full, so a probe ends soon at an empty slot. */
static void grow(struct runtab *t)
{
    struct run **old = t->slot;
    size_t oldcap = t->cap;
    t->cap = oldcap ? 2 * oldcap : 64;
    t->slot = xcalloc(t->cap, sizeof *t->slot);
    for (size_t i = 0; i < oldcap; i++)
        if (old[i])
            place(t, old[i]);
    free(old);
}

static struct run *new_record(struct runtab *t)
{
    struct run *r = t->free;
    if (r) {
        t->free = r->next_free;
        return r;
    }
    if (!t->nblocks || t->used == RUNTAB_BLOCK) {
        t->blocks = xrealloc(t->blocks, (t->nblocks + 1) * sizeof *t->blocks);
        t->blocks[t->nblocks++] = xmalloc(RUNTAB_BLOCK * sizeof **t->blocks);
        t->used = 0;
    }
    return &t->blocks[t->nblocks - 1][t->used++];
}

struct run *runtab_get(struct runtab *t, size_t tag)
{
    struct run *r = runtab_find(t, tag);
    if (r)
        return r;
    if (2 * (t->n + 1) > t->cap)
        grow(t);
    r = new_record(t);
    *r = (struct run){.tag = tag, .pos = SIZE_MAX};
    place(t, r);
    t->n++;
    return r;
}

/* Removal by backward shift: the records after the hole that could sit in
 * it move up, so no probe ever stops early at a hole. */
void runtab_put(struct runtab *t, struct run *r)
{
    size_t i = home(t, r->tag);
    while (t->slot[i] != r)
        i = (i + 1) & (t->cap - 1);
    for (size_t j = (i + 1) & (t->cap - 1); t->slot[j]; j = (j + 1) & (t->cap - 1)) {
        size_t h = home(t, t->slot[j]->tag);
        /* slot[j] may move to i when its home is not in (i, j] cyclically */
        if ((j > i && (h <= i || h > j)) || (j < i && h <= i && h > j)) {
            t->slot[i] = t->slot[j];
            i = j;
        }
    }
    t->slot[i] = NULL;
    t->n--;
    r->next_free = t->free;
    t->free = r;
}

void runtab_free(struct runtab *t)
{
    for (size_t b = 0; b < t->nblocks; b++)
        free(t->blocks[b]);
    free(t->blocks);
    free(t->slot);
    runtab_init(t);
}
