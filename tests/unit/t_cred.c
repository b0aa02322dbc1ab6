/*
 * t_cred — the credential table (core/cred.c) against a simple model: fixed-
 * seed random names, in runs as a trace's submissions come (the last-found
 * shortcut of cred_get) and scattered (its hash lookup), from buffers
 * rewritten between calls (the shortcut compares names, never the caller's
 * pointers); each name maps to one object, indexes follow first use, and
 * cred_find agrees without creating anything.
 */
#include <stdint.h>
#include <stdio.h>

#include "core/cred.h"
#include "test.h"

#define POOL 40

static void test_against_model(void)
{
    struct cred_table *t = cred_table_create(CRED_USER);
    int model[POOL]; /* the index each name was given, -1: not yet */
    for (int k = 0; k < POOL; k++)
        model[k] = -1;
    int created = 1; /* DEFAULT */
    uint64_t x = 88172645463325252ULL;
    int k = 0, bad = 0;
    char name[16]; /* one buffer for every name: same pointer, new text */
    for (int i = 0; i < 100000 && bad < 5; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        if (x % 4 == 0) /* a new run: three in four calls repeat the last */
            k = (int)((x >> 8) % POOL);
        snprintf(name, sizeof name, "u%d", k);
        if (i % 7 == 0) {
            struct cred *f = cred_find(t, name);
            bad += model[k] < 0 ? f != NULL : !f || f->index != (size_t)model[k];
            continue;
        }
        struct cred *c = cred_get(t, name);
        if (model[k] < 0)
            model[k] = created++;
        bad +=
            c->index != (size_t)model[k] || strcmp(c->name, name) != 0 || cred_at(t, c->index) != c;
    }
    CHECK_EQ(bad, 0);
    CHECK_EQ(cred_count(t), (size_t)created);
    CHECK(cred_get(t, "") == cred_default(t));
    CHECK(cred_get(t, NULL) == cred_default(t));
    CHECK(cred_get(t, "DEFAULT") == cred_default(t));
    cred_table_destroy(t);
}

int main(void)
{
    TEST_RUN(test_against_model);
    return TEST_DONE();
}
