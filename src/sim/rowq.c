/*
 * rowq — the writer thread's ring of blocks (rowq.h).
 *
 * Two counters say where the ring is: handed (blocks the producer gave)
 * and written (blocks the writer finished). Block k lives at k % n; the
 * producer may fill the next one while handed - written < n. One mutex
 * guards both counters; two condition variables wake whoever waits.
 *
 * A sleeping writer is woken once half the ring is handed, not for each
 * block: it then writes them all in one go, and a wake-up (two futex calls
 * and a thread's cold start on a shared core) is paid every n / 2 blocks.
 * The producer never waits on a ring that has not woken the writer: a
 * full ring is more than half.
 */
#include "sim/rowq.h"

#include <stdlib.h>

#include "util/mem.h"

int (*rowq_thread_create)(pthread_t *, const pthread_attr_t *, void *(*)(void *),
                          void *) = pthread_create;

struct rowq {
    void *const *blocks;
    size_t n;
    rowq_fn fn;
    void *ctx;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t filled; /* handed grew, or closing */
    pthread_cond_t freed;  /* written grew */
    size_t handed, written;
    int closing; /* nothing more will be handed */
};

static void *writer_main(void *arg)
{
    struct rowq *q = arg;
    pthread_mutex_lock(&q->lock);
    for (;;) {
        while (q->written == q->handed && !q->closing)
            pthread_cond_wait(&q->filled, &q->lock);
        if (q->written == q->handed)
            break; /* closing, and every block written */
        void *b = q->blocks[q->written % q->n];
        /* The block is the writer's until written grows: formatted
         * without the lock, while the producer fills the others. */
        pthread_mutex_unlock(&q->lock);
        q->fn(q->ctx, b);
        pthread_mutex_lock(&q->lock);
        q->written++;
        pthread_cond_signal(&q->freed);
    }
    pthread_mutex_unlock(&q->lock);
    return NULL;
}

struct rowq *rowq_start(void *const *blocks, size_t n, rowq_fn fn, void *ctx)
{
    struct rowq *q = xcalloc(1, sizeof *q);
    *q = (struct rowq){.blocks = blocks, .n = n, .fn = fn, .ctx = ctx};
    pthread_mutex_init(&q->lock, NULL);
    pthread_cond_init(&q->filled, NULL);
    pthread_cond_init(&q->freed, NULL);
    if (rowq_thread_create(&q->thread, NULL, writer_main, q) != 0) {
        pthread_cond_destroy(&q->freed);
        pthread_cond_destroy(&q->filled);
        pthread_mutex_destroy(&q->lock);
        free(q);
        return NULL;
    }
    return q;
}

void *rowq_next(struct rowq *q)
{
    pthread_mutex_lock(&q->lock);
    while (q->handed - q->written == q->n)
        pthread_cond_wait(&q->freed, &q->lock);
    void *b = q->blocks[q->handed % q->n];
    pthread_mutex_unlock(&q->lock);
    return b;
}

void rowq_hand(struct rowq *q)
{
    pthread_mutex_lock(&q->lock);
    q->handed++;
    if (q->handed - q->written >= (q->n + 1) / 2)
        pthread_cond_signal(&q->filled);
    pthread_mutex_unlock(&q->lock);
}

void rowq_finish(struct rowq *q)
{
    pthread_mutex_lock(&q->lock);
    q->closing = 1;
    pthread_cond_signal(&q->filled);
    pthread_mutex_unlock(&q->lock);
    pthread_join(q->thread, NULL);
    pthread_cond_destroy(&q->freed);
    pthread_cond_destroy(&q->filled);
    pthread_mutex_destroy(&q->lock);
    free(q);
}
