/*
 * rowq — blocks of an output's rows handed from the replay's thread to a
 * writer thread that formats and writes them, in order.
 *
 * The caller makes the blocks; the queue cycles through them as a ring:
 * the producer fills the next free one and hands it over, waiting while
 * every block is handed and not yet written (so memory stays bounded);
 * the writer runs the caller's function on each, in the order handed.
 * When the thread cannot start, rowq_start returns NULL and the caller
 * writes its rows itself.
 */
#ifndef MOKU_SIM_ROWQ_H
#define MOKU_SIM_ROWQ_H

#include <pthread.h>
#include <stddef.h>

struct rowq;

/* What the writer does with one block (ctx as given to rowq_start). */
typedef void (*rowq_fn)(void *ctx, void *block);

/* Start the writer over blocks[0 .. n-1] (n >= 1). NULL when its thread
 * cannot start. */
struct rowq *rowq_start(void *const *blocks, size_t n, rowq_fn fn, void *ctx);

/* The next block to fill: waits until the writer is done with it. */
void *rowq_next(struct rowq *q);

/* Hand the block rowq_next returned to the writer. */
void rowq_hand(struct rowq *q);

/* Wait until every handed block is written, end the thread, free q. */
void rowq_finish(struct rowq *q);

/* How the thread is made: pthread_create, replaced by tests to make it
 * fail (the rows are then written by their producer). */
extern int (*rowq_thread_create)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

#endif
