/* runtab: records found by tag while held, gone once given back, their
 * addresses stable, against a plain array as the model. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "sim/runtab.h"
#include "test.h"

enum { N = 20000 };

static struct run *held[N];

/* Every tag found exactly when the model holds it. */
static void check_all(const struct runtab *t)
{
    size_t n = 0;
    for (size_t tag = 0; tag < N; tag++) {
        CHECK(runtab_find(t, tag) == held[tag]);
        n += held[tag] != NULL;
    }
    CHECK(t->n == n);
}

static void test_random(void)
{
    struct runtab t;
    runtab_init(&t);
    CHECK(runtab_find(&t, 5) == NULL);
    srand(31);
    for (int step = 0; step < 200000; step++) {
        size_t tag = (size_t)rand() % N;
        if (held[tag] && rand() % 2) {
            CHECK(held[tag]->tag == tag);
            runtab_put(&t, held[tag]);
            held[tag] = NULL;
        } else {
            struct run *r = runtab_get(&t, tag);
            CHECK(!held[tag] || r == held[tag]);
            if (!held[tag])
                CHECK(r->tag == tag && r->pos == SIZE_MAX && !r->job && !r->end && !r->left);
            r->end = (long)tag; /* kept while held */
            held[tag] = r;
        }
        if (step % 20000 == 0)
            check_all(&t);
    }
    check_all(&t);
    for (size_t tag = 0; tag < N; tag++)
        if (held[tag]) {
            CHECK(held[tag]->end == (long)tag);
            runtab_put(&t, held[tag]);
            held[tag] = NULL;
        }
    check_all(&t);
    runtab_free(&t);
    runtab_free(&t); /* empty: a no-op */
}

/* Consecutive tags in and out, as a replay's starts and ends: records are
 * reused, so the blocks stay few. */
static void test_reuse(void)
{
    struct runtab t;
    runtab_init(&t);
    for (size_t tag = 0; tag < 1000000; tag++) {
        runtab_get(&t, tag);
        if (tag >= 100)
            runtab_put(&t, runtab_find(&t, tag - 100));
    }
    CHECK(t.n == 100);
    CHECK(t.nblocks == 1);
    CHECK(t.cap <= 256);
    runtab_free(&t);
}

int main(void)
{
    TEST_RUN(test_random);
    TEST_RUN(test_reuse);
    return TEST_DONE();
}
