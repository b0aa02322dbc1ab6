/*
 * t_rowq — the writer thread's ring of blocks (sim/rowq): blocks written
 * in the order handed, none lost nor written twice, with rings of one to
 * five blocks and a writer slower or faster than its producer (fixed-seed
 * random block fills, against the count of values handed); a ring
 * finished with nothing handed; a thread that cannot start (rowq_start
 * returns NULL, the caller writes in place). The ring is util/handoff's,
 * the writer woken once half of it is handed: a lost wake-up would hang,
 * and an alarm ends the program then.
 */
#include <errno.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "sim/rowq.h"
#include "test.h"

#define VALS 64

struct block {
    size_t n;
    unsigned long vals[VALS];
};

/* The writer's side: what it saw, and whether it came in order. */
struct seen {
    unsigned long next; /* the value it expects */
    size_t blocks, bad;
    int slow; /* 1: sleeps now and then, the producer waits on a full ring;
               * 2: the producer sleeps, the writer waits on an empty one */
};

static void take(void *ctx, void *block)
{
    struct seen *s = ctx;
    struct block *b = block;
    for (size_t i = 0; i < b->n; i++)
        if (b->vals[i] != s->next++)
            s->bad++;
    b->n = 0; /* the block is the producer's again: it must find it empty */
    s->blocks++;
    if (s->slow == 1 && s->blocks % 7 == 0)
        nanosleep(&(struct timespec){0, 200000}, NULL);
}

static void ring_case(unsigned seed, size_t nblocks, int slow)
{
    struct block store[5] = {0};
    void *blocks[5] = {&store[0], &store[1], &store[2], &store[3], &store[4]};
    struct seen s = {.slow = slow};
    struct rowq *q = rowq_start(blocks, nblocks, take, &s);
    CHECK(q != NULL);
    if (!q)
        return;
    srand(seed);
    unsigned long v = 0;
    size_t handed = 0, dirty = 0;
    int rounds = 200 + rand() % 300;
    for (int r = 0; r < rounds; r++) {
        struct block *b = rowq_next(q);
        if (b->n != 0)
            dirty++;
        b->n = (size_t)(rand() % (VALS + 1)); /* an empty block too, now and then */
        for (size_t i = 0; i < b->n; i++)
            b->vals[i] = v++;
        rowq_hand(q);
        handed++;
        if (slow == 2 && r % 5 == 0)
            nanosleep(&(struct timespec){0, 200000}, NULL);
    }
    rowq_finish(q);
    CHECK_EQ(dirty, 0);
    CHECK_EQ(s.bad, 0);
    CHECK_EQ(s.blocks, handed);
    CHECK_EQ(s.next, v);
}

static void test_ring_random(void)
{
    for (unsigned seed = 1; seed <= 20; seed++)
        ring_case(seed, 1 + seed % 5, (int)(seed % 3));
}

static void test_finish_empty(void)
{
    struct block b = {0};
    void *blocks[1] = {&b};
    struct seen s = {0};
    struct rowq *q = rowq_start(blocks, 1, take, &s);
    CHECK(q != NULL);
    rowq_finish(q);
    CHECK_EQ(s.blocks, 0);
}

static int no_thread(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg)
{
    return EAGAIN;
}

static void test_no_thread(void)
{
    struct block b = {0};
    void *blocks[1] = {&b};
    struct seen s = {0};
    rowq_thread_create = no_thread;
    CHECK(rowq_start(blocks, 1, take, &s) == NULL);
    rowq_thread_create = pthread_create;
    CHECK_EQ(s.blocks, 0);
}

int main(void)
{
    alarm(60); /* a lost wake-up hangs: end the program instead */
    TEST_RUN(test_ring_random);
    TEST_RUN(test_finish_empty);
    TEST_RUN(test_no_thread);
    return TEST_DONE();
}
