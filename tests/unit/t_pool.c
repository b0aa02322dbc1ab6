/*
 * t_pool — the record pool (util/pool) against a simple model: 200,000
 * fixed-seed random takes and gives, each live record filled with its own
 * pattern and checked whole before it is given back (no two live records
 * share a byte), every record aligned for any type; records of several
 * sizes, down to less than the free list's link.
 */
#include <stdalign.h>
#include <stdint.h>

#include "test.h"
#include "util/pool.h"

#define LIVE_MAX 3000

static int intact(const unsigned char *r, size_t size, unsigned char mark)
{
    for (size_t i = 0; i < size; i++)
        if (r[i] != mark)
            return 0;
    return 1;
}

static void random_run(size_t size)
{
    struct pool p;
    pool_init(&p, size);
    static unsigned char *live[LIVE_MAX];
    static unsigned char mark[LIVE_MAX];
    size_t n = 0;
    uint64_t x = 88172645463325252ULL ^ size;
    int bad = 0;
    for (int i = 0; i < 200000 && bad < 5; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        /* Takes outweigh gives until the live count nears its cap. */
        int take = n == 0 || (n < LIVE_MAX && x % 100 < (n < LIVE_MAX / 2 ? 60u : 45u));
        if (take) {
            unsigned char *r = pool_take(&p);
            bad += (uintptr_t)r % alignof(max_align_t) != 0;
            mark[n] = (unsigned char)(x >> 32);
            memset(r, mark[n], size);
            live[n++] = r;
        } else {
            size_t k = (size_t)(x >> 16) % n;
            bad += !intact(live[k], size, mark[k]);
            pool_give(&p, live[k]);
            live[k] = live[--n];
            mark[k] = mark[n];
        }
    }
    for (size_t k = 0; k < n; k++) {
        bad += !intact(live[k], size, mark[k]);
        pool_give(&p, live[k]);
    }
    pool_give(&p, NULL);
    CHECK_EQ(bad, 0);
    pool_free(&p);
}

static void test_sizes(void)
{
    random_run(1);
    random_run(24);
    random_run(100);
    random_run(sizeof(long double) * 37);
}

int main(void)
{
    TEST_RUN(test_sizes);
    return TEST_DONE();
}
