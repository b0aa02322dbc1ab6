/* strmap — see strmap.h. Load factor is kept at or below one half. */
#include "util/strmap.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/mem.h"

static uint64_t hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

void strmap_init(struct strmap *m)
{
    m->n = 0;
    m->nslots = 16;
    m->keys = xcalloc(m->nslots, sizeof *m->keys);
    m->vals = xcalloc(m->nslots, sizeof *m->vals);
}

void strmap_free(struct strmap *m)
{
    free(m->keys);
    free(m->vals);
    m->keys = NULL;
    m->vals = NULL;
    m->n = m->nslots = 0;
}

static size_t slot_of(const struct strmap *m, const char *key)
{
    size_t s = hash(key) & (m->nslots - 1);
    while (m->keys[s] && strcmp(m->keys[s], key) != 0)
        s = (s + 1) & (m->nslots - 1);
    return s;
}

static void grow(struct strmap *m)
{
    struct strmap old = *m;
    m->nslots *= 2;
    m->keys = xcalloc(m->nslots, sizeof *m->keys);
    m->vals = xcalloc(m->nslots, sizeof *m->vals);
    for (size_t i = 0; i < old.nslots; i++)
        if (old.keys[i]) {
            size_t s = slot_of(m, old.keys[i]);
            m->keys[s] = old.keys[i];
            m->vals[s] = old.vals[i];
        }
    free(old.keys);
    free(old.vals);
}

void strmap_put(struct strmap *m, const char *key, size_t val)
{
    if (2 * (m->n + 1) > m->nslots)
        grow(m);
    size_t s = slot_of(m, key);
    if (!m->keys[s]) {
        m->keys[s] = key;
        m->n++;
    }
    m->vals[s] = val;
}

int strmap_get(const struct strmap *m, const char *key, size_t *val)
{
    size_t s = slot_of(m, key);
    if (!m->keys[s])
        return 0;
    if (val)
        *val = m->vals[s];
    return 1;
}

const char *strmap_key(const struct strmap *m, const char *key)
{
    return m->keys[slot_of(m, key)];
}
