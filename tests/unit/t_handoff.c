/*
 * t_handoff — the ring between a producer thread and a consumer thread:
 * every slot's contents arrive, in order, once; a producer ahead of a slow
 * consumer sleeps once per `refill` slots, not once a slot; a consumer
 * ahead of a slow producer, with a wake batch, sleeps once per batch and
 * still takes the last, partial batch; a stopped
 * consumer releases a producer waiting for room. A lost wake-up would hang:
 * an alarm ends the program then.
 */
#include <pthread.h>
#include <signal.h>
#include <time.h>

#include "test.h"
#include "util/handoff.h"

enum { SLOTS = 8 };

struct ring {
    struct handoff ho;
    long val[SLOTS];
    long n;       /* values the producer puts: 1 .. n */
    int slow;     /* the consumer waits a little at every slot */
    int pslow;    /* the producer does, before every slot */
    size_t batch; /* the consumer's wake batch (0: handoff_init's) */
    long stopped; /* the producer's: the value at which handoff_room said stop, else 0 */
};

static void pause_briefly(void)
{
    nanosleep(&(struct timespec){0, 200000}, NULL); /* 0.2 ms */
}

static void *produce(void *arg)
{
    struct ring *r = arg;
    for (long v = 1; v <= r->n; v++) {
        if (r->pslow)
            pause_briefly();
        if (handoff_room(&r->ho) < 0) {
            r->stopped = v;
            break;
        }
        r->val[handoff_fill_slot(&r->ho)] = v;
        handoff_put(&r->ho);
    }
    handoff_finish(&r->ho);
    return NULL;
}

/* Take every slot; the count of values in order (1, 2, 3 ...) and the
 * number taken. */
static long consume(struct ring *r, long *taken)
{
    long in_order = 0;
    size_t s;
    *taken = 0;
    while (handoff_take(&r->ho, &s)) {
        in_order += r->val[s] == *taken + 1;
        ++*taken;
        if (r->slow)
            pause_briefly();
    }
    return in_order;
}

static void run(struct ring *r, size_t refill, long *in_order, long *taken)
{
    handoff_init(&r->ho, SLOTS, refill);
    if (r->batch)
        handoff_wake_batch(&r->ho, r->batch);
    pthread_t t;
    CHECK_EQ(pthread_create(&t, NULL, produce, r), 0);
    *in_order = consume(r, taken);
    pthread_join(t, NULL);
    handoff_destroy(&r->ho);
}

/* Many values through a ring of 8, consumer fast then slow: all of them,
 * in order. */
static void test_all_in_order(void)
{
    for (int slow = 0; slow <= 1; slow++) {
        struct ring r = {.n = slow ? 400 : 200000, .slow = slow};
        long in_order, taken;
        run(&r, 1, &in_order, &taken);
        CHECK_EQ(taken, r.n);
        CHECK_EQ(in_order, r.n);
    }
}

/* A producer far ahead of its consumer sleeps on a full ring and is woken
 * once `refill` slots are free: at most n / refill + 1 sleeps (once a slot,
 * it would sleep nearly n times). */
static void test_refill(void)
{
    struct ring r = {.n = 240, .slow = 1};
    long in_order, taken;
    run(&r, 6, &in_order, &taken);
    CHECK_EQ(taken, r.n);
    CHECK_EQ(in_order, r.n);
    CHECK(r.ho.sleeps[0] >= 1);
    CHECK(r.ho.sleeps[0] <= r.n / 6 + 1);
}

/* A consumer far ahead of its producer sleeps on an empty ring until a
 * batch is full: at most n / batch + 1 sleeps (woken once a slot, it would
 * sleep some n times). n is no multiple of the batch: the last values come
 * with the producer's finish. Batches of the whole ring too: a producer
 * that did not wake the consumer on a full ring would wait forever (the
 * alarm). */
static void test_wake_batch(void)
{
    size_t batches[] = {3, SLOTS};
    for (size_t k = 0; k < sizeof batches / sizeof *batches; k++) {
        struct ring r = {.n = 241, .pslow = 1, .batch = batches[k]};
        long in_order, taken;
        run(&r, 1, &in_order, &taken);
        CHECK_EQ(taken, r.n);
        CHECK_EQ(in_order, r.n);
        CHECK(r.ho.sleeps[1] >= 1);
        CHECK(r.ho.sleeps[1] <= r.n / (long)batches[k] + 1);
    }
    /* And fast on both sides, many values: none lost, none late. */
    struct ring r = {.n = 200000, .batch = 4};
    long in_order, taken;
    run(&r, 4, &in_order, &taken);
    CHECK_EQ(taken, r.n);
    CHECK_EQ(in_order, r.n);
}

/* The consumer gives up with the producer waiting on a full ring: the
 * producer is told (handoff_room: -1) and finishes. */
static void test_stop(void)
{
    struct ring r = {.n = 1000};
    handoff_init(&r.ho, SLOTS, 2);
    pthread_t t;
    CHECK_EQ(pthread_create(&t, NULL, produce, &r), 0);
    size_t s;
    CHECK_EQ(handoff_take(&r.ho, &s), 1);
    CHECK_EQ(r.val[s], 1);
    while (!atomic_load(&r.ho.sleeping[0])) /* the ring fills: the producer waits */
        pause_briefly();
    handoff_stop(&r.ho);
    pthread_join(t, NULL);
    CHECK_EQ(r.stopped, SLOTS + 1);
    handoff_destroy(&r.ho);
}

int main(void)
{
    alarm(60); /* a lost wake-up hangs: end the program instead */
    TEST_RUN(test_all_in_order);
    TEST_RUN(test_refill);
    TEST_RUN(test_wake_batch);
    TEST_RUN(test_stop);
    return TEST_DONE();
}
