/*
 * strmap — a hash map from strings to size_t values (open addressing,
 * FNV-1a). Keys are borrowed: the caller keeps them alive as long as the map
 * (moku's tables keep the name inside the object the value indexes).
 */
#ifndef MOKU_STRMAP_H
#define MOKU_STRMAP_H

#include <stddef.h>

struct strmap {
    const char **keys;
    size_t *vals;
    size_t n, nslots;
};

void strmap_init(struct strmap *m);
void strmap_free(struct strmap *m);
/* Insert or replace. */
void strmap_put(struct strmap *m, const char *key, size_t val);
/* 1 and *val when present, else 0. */
int strmap_get(const struct strmap *m, const char *key, size_t *val);
/* The key as stored (the map's borrowed pointer) equal to key, or NULL:
 * lets the map serve as a string interning table. */
const char *strmap_key(const struct strmap *m, const char *key);

#endif
