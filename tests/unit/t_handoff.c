/*
 * t_handoff — the ring between a producer thread and a consumer thread:
 * every slot's contents arrive, in order, once; a producer ahead of a slow
 * consumer sleeps once per `refill` slots, not once a slot; a stopped
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
    TEST_RUN(test_stop);
    return TEST_DONE();
}
