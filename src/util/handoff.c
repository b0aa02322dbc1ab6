/*
 * handoff — see handoff.h.
 *
 * Sleeping: a side raises its flag (sleeping[side]), looks at its
 * condition again, and sleeps while the flag is up. Waking: the other
 * side, after moving its counter, clears the flag and, if it was up,
 * wakes the sleeper. Counters and flags are sequentially consistent, so
 * of a side raising its flag and the other moving its counter one always
 * sees the other: no wake-up is lost. Stopping clears the producer's flag
 * too (the consumer is the one that stops).
 *
 * Before, trace/lines and trace/swf each took their mutex for every block
 * or batch on both sides and signalled every hand-over: on HPC2N some
 * 1,700 futex calls, 600 on the replay's thread, many of them the two
 * threads meeting on the mutex.
 */
#include "util/handoff.h"

#include <limits.h>
#include <stdbool.h>
#ifdef __linux__
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

enum { PRODUCER, CONSUMER };

void handoff_init(struct handoff *h, size_t slots, size_t refill)
{
    h->slots = slots;
    h->refill = refill;
    h->batch = 1;
    atomic_init(&h->filled, 0);
    atomic_init(&h->emptied, 0);
    atomic_init(&h->sleeping[PRODUCER], 0);
    atomic_init(&h->sleeping[CONSUMER], 0);
    atomic_init(&h->done, 0);
    atomic_init(&h->stop, 0);
    h->holding = 0;
    h->sleeps[PRODUCER] = h->sleeps[CONSUMER] = 0;
#ifndef __linux__
    pthread_mutex_init(&h->mu, NULL);
    pthread_cond_init(&h->changed, NULL);
#endif
}

void handoff_destroy(struct handoff *h)
{
#ifndef __linux__
    pthread_mutex_destroy(&h->mu);
    pthread_cond_destroy(&h->changed);
#else
    (void)h;
#endif
}

void handoff_wake_batch(struct handoff *h, size_t batch)
{
    h->batch = batch;
}

/* Slots full (put, not yet given back). */
static size_t full(struct handoff *h)
{
    return atomic_load(&h->filled) - atomic_load(&h->emptied);
}

/* The producer may fill again after a full ring. */
static bool refilled(struct handoff *h)
{
    return full(h) <= h->slots - h->refill;
}

/* The consumer, asleep on an empty ring, may wake: a batch of slots to
 * take, or there will be no more. */
static bool takeable(struct handoff *h)
{
    return atomic_load(&h->done) || full(h) >= h->batch;
}

#ifdef __linux__
/* Sleep while *flag is up. The flag is the futex word: the kernel looks at
 * it as the sleep begins, so a flag cleared by then is no sleep, and a
 * wake-up costs the waker one call and the sleeper one (a mutex and a
 * condition variable cost each side two or three: glibc marks the mutex
 * contended after every wait). */
static void sleep_on(struct handoff *h, atomic_int *flag)
{
    while (atomic_load(flag) && !atomic_load(&h->stop))
        syscall(SYS_futex, (int *)flag, FUTEX_WAIT_PRIVATE, 1, NULL, NULL, 0);
}

static void wake_up(struct handoff *h, atomic_int *flag)
{
    (void)h;
    syscall(SYS_futex, (int *)flag, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}
#else
/* The sleeper looks at its flag under the mutex and the waker takes the
 * mutex once after clearing it, so the signal cannot fall between that
 * look and the wait; it is sent after unlocking, so that the woken side
 * does not meet the mutex still held. */
static void sleep_on(struct handoff *h, atomic_int *flag)
{
    pthread_mutex_lock(&h->mu);
    while (atomic_load(flag) && !atomic_load(&h->stop))
        pthread_cond_wait(&h->changed, &h->mu);
    pthread_mutex_unlock(&h->mu);
}

static void wake_up(struct handoff *h, atomic_int *flag)
{
    (void)flag;
    pthread_mutex_lock(&h->mu);
    pthread_mutex_unlock(&h->mu);
    pthread_cond_broadcast(&h->changed);
}
#endif

/* Sleep as side until ready(h), or stop. */
static void wait_for(struct handoff *h, int side, bool (*ready)(struct handoff *))
{
    atomic_int *flag = &h->sleeping[side];
    while (!ready(h) && !atomic_load(&h->stop)) {
        atomic_store(flag, 1);
        if (ready(h)) { /* it changed before the other side could see the flag */
            atomic_store(flag, 0);
            return;
        }
        h->sleeps[side]++;
        sleep_on(h, flag);
    }
}

/* Wake side if it sleeps (or is about to). */
static void wake(struct handoff *h, int side)
{
    atomic_int *flag = &h->sleeping[side];
    if (atomic_load(flag) && atomic_exchange(flag, 0))
        wake_up(h, flag);
}

size_t handoff_fill_slot(const struct handoff *h)
{
    return atomic_load_explicit(&h->filled, memory_order_relaxed) % h->slots; /* ours */
}

int handoff_room(struct handoff *h)
{
    if (full(h) == h->slots)
        wait_for(h, PRODUCER, refilled);
    return atomic_load(&h->stop) ? -1 : 0;
}

/* The consumer is woken only once a batch is full: its flag stays up
 * until then. Its count of full slots cannot be more than ours (it does
 * not give back slots while it sleeps), so a batch it waits for is one we
 * see. */
void handoff_put(struct handoff *h)
{
    atomic_store(&h->filled, atomic_load_explicit(&h->filled, memory_order_relaxed) + 1);
    if (atomic_load(&h->sleeping[CONSUMER]) && full(h) >= h->batch)
        wake(h, CONSUMER);
}

void handoff_finish(struct handoff *h)
{
    atomic_store(&h->done, 1);
    wake(h, CONSUMER);
}

int handoff_take(struct handoff *h, size_t *slot)
{
    size_t e = atomic_load_explicit(&h->emptied, memory_order_relaxed); /* ours */
    if (h->holding) {
        atomic_store(&h->emptied, ++e);
        h->holding = 0;
        if (refilled(h))
            wake(h, PRODUCER);
    }
    if (atomic_load(&h->filled) == e) /* a slot left: taken without a wait */
        wait_for(h, CONSUMER, takeable);
    /* Empty now means done, seen before this look: nothing more comes. */
    if (atomic_load(&h->filled) == e)
        return 0;
    *slot = e % h->slots;
    h->holding = 1;
    return 1;
}

void handoff_stop(struct handoff *h)
{
    atomic_store(&h->stop, 1);
    wake(h, PRODUCER);
}
