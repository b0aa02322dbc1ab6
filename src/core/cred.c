/*
 * cred — see cred.h. Lookup is a hash on the name, so a trace with tens of
 * thousands of users stays linear overall.
 */
#include "core/cred.h"

#include <stdlib.h>
#include <string.h>

#include "util/mem.h"
#include "util/strmap.h"

struct cred_table {
    enum cred_kind kind;
    struct cred **items; /* in creation order */
    size_t n, cap;
    struct strmap byname; /* name -> index in items */
    struct cred *last;    /* the last found by name (see cred_get) */
};

struct cred_table *cred_table_create(enum cred_kind kind)
{
    struct cred_table *t = xcalloc(1, sizeof *t);
    t->kind = kind;
    strmap_init(&t->byname);
    cred_get(t, "DEFAULT");
    return t;
}

void cred_table_destroy(struct cred_table *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->n; i++) {
        struct cred *c = t->items[i];
        free(c->name);
        free(c->qdef);
        for (size_t k = 0; k < c->nqlist; k++)
            free(c->qlist[k]);
        free(c->qlist);
        free(c);
    }
    free(t->items);
    strmap_free(&t->byname);
    free(t);
}

struct cred *cred_find(const struct cred_table *t, const char *name)
{
    size_t i;
    if (!name || !*name)
        return t->items[0]; /* DEFAULT is created first, always at 0 */
    return strmap_get(&t->byname, name, &i) ? t->items[i] : NULL;
}

struct cred *cred_get(struct cred_table *t, const char *name)
{
    if (!name || !*name)
        return t->items[0];
    /* Submissions come in runs of one user, group and class (a trace's
     * consecutive jobs: 77 %, 99 %, 100 % on HPC2N): one comparison with
     * the last object found before hashing the name. Names never change,
     * so the comparison is the whole check. */
    if (t->last && strcmp(t->last->name, name) == 0)
        return t->last;
    struct cred *c = cred_find(t, name);
    if (c)
        return t->last = c;
    c = xcalloc(1, sizeof *c);
    c->kind = t->kind;
    c->name = xstrdup(name);
    c->index = t->n;
    t->items = xgrow(t->items, &t->cap, t->n + 1, sizeof *t->items);
    t->items[t->n++] = c;
    strmap_put(&t->byname, c->name, c->index);
    return t->last = c;
}

struct cred *cred_default(const struct cred_table *t)
{
    return t->items[0];
}

size_t cred_count(const struct cred_table *t)
{
    return t->n;
}

struct cred *cred_at(const struct cred_table *t, size_t i)
{
    return i < t->n ? t->items[i] : NULL;
}

int cred_allows_qos(const struct cred *c, const char *qos)
{
    for (size_t k = 0; k < c->nqlist; k++)
        if (strcmp(c->qlist[k], qos) == 0)
            return 1;
    return 0;
}

const char *cred_kind_name(enum cred_kind k)
{
    static const char *names[] = {"user", "group", "account", "class", "qos"};
    return k < CRED_NKINDS ? names[k] : "?";
}
