/*
 * handoff — a ring of slots passed from one producer thread to one
 * consumer thread (trace/lines' blocks, trace/swf's batches), without a
 * lock while both work.
 *
 * The two sides count the slots they filled and emptied in atomic
 * counters of their own; a side makes a system call only to sleep, when
 * it cannot go on, and the other only to wake it. A producer that found the
 * ring full sleeps until `refill` slots are free, not one: it is woken once
 * per `refill` slots instead of once a slot; likewise a consumer may ask
 * to sleep, on an empty ring, until `batch` slots are full (its wake batch).
 * It is not a queue of values:
 * the slots are the caller's arrays, indexed by what handoff_fill_slot and
 * handoff_take give.
 *
 * What the producer wrote into a slot before handoff_put is the consumer's
 * to read once handoff_take gives the slot, and what the consumer did with
 * it happens before the producer fills it again.
 */
#ifndef MOKU_HANDOFF_H
#define MOKU_HANDOFF_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

struct handoff {
    size_t slots, refill;
    size_t batch;                  /* an empty ring's consumer sleeps until this many are full */
    atomic_size_t filled, emptied; /* slots put and given back since the start */
    atomic_int sleeping[2];        /* the producer, the consumer, waits or is about to */
    atomic_int done;               /* handoff_finish: nothing more will be put */
    atomic_int stop;               /* handoff_stop: the consumer gives up */
    int holding;                   /* the consumer's: it works on a slot still counted */
    long sleeps[2];                /* times each side slept (each side writes its own) */
#ifndef __linux__
    pthread_mutex_t mu; /* only to sleep and to wake (on Linux the flags are futexes) */
    pthread_cond_t changed;
#endif
};

/* A ring of slots (>= 1) whose producer, finding it full, waits for refill
 * (1 <= refill <= slots) free slots. */
void handoff_init(struct handoff *h, size_t slots, size_t refill);
void handoff_destroy(struct handoff *h);
/* The consumer, finding the ring empty, sleeps until batch (1 <= batch <=
 * slots; handoff_init makes it 1) slots are full or the producer finished,
 * and then takes them all: woken once per batch slots, not once a slot.
 * Set before the threads start. */
void handoff_wake_batch(struct handoff *h, size_t batch);

/* The producer's side. The slot it fills next (0 .. slots - 1). */
size_t handoff_fill_slot(const struct handoff *h);
/* Wait until the slot to fill is free (after a full ring: refill are);
 * -1 when the consumer stopped, else 0. */
int handoff_room(struct handoff *h);
/* Hand the slot filled over to the consumer. */
void handoff_put(struct handoff *h);
/* Nothing more will be put; what the producer wrote before is the
 * consumer's to read once handoff_take returns 0. */
void handoff_finish(struct handoff *h);

/* The consumer's side. Give back the slot taken before (if any) and wait
 * for the next: 1 with its number in *slot, or 0 once the producer
 * finished and every slot put was taken. */
int handoff_take(struct handoff *h, size_t *slot);
/* Give up: a producer waiting for room, or waiting later, returns -1. */
void handoff_stop(struct handoff *h);

#endif
