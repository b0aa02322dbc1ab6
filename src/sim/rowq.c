/*
 * rowq — the writer thread's ring of blocks (rowq.h), on util/handoff:
 * the producer fills the slot handoff_fill_slot names and puts it; the
 * writer takes slots in order and runs the caller's function on each. The
 * block stays the writer's until its next take gives it back.
 *
 * A sleeping writer is woken once half the ring is handed, not for each
 * block (handoff's wake batch): it then writes them all in one go, and a
 * wake-up (a futex call on each side and a thread's cold start on a
 * shared core) is paid every n / 2 blocks. A producer on a full ring
 * likewise sleeps until half of it is written. Neither waits on the other
 * both at once: a full ring is at least a batch.
 *
 * Before, rowq kept its own two counters under a mutex with two condition
 * variables, taken for every block on both sides: the same ring as
 * handoff's, with some 330 more futex calls on HPC2N.
 */
#include "sim/rowq.h"

#include <stdlib.h>

#include "util/handoff.h"
#include "util/mem.h"

int (*rowq_thread_create)(pthread_t *, const pthread_attr_t *, void *(*)(void *),
                          void *) = pthread_create;

struct rowq {
    void *const *blocks;
    rowq_fn fn;
    void *ctx;
    pthread_t thread;
    struct handoff ho;
};

static void *writer_main(void *arg)
{
    struct rowq *q = arg;
    size_t slot;
    while (handoff_take(&q->ho, &slot))
        q->fn(q->ctx, q->blocks[slot]);
    return NULL;
}

struct rowq *rowq_start(void *const *blocks, size_t n, rowq_fn fn, void *ctx)
{
    struct rowq *q = xcalloc(1, sizeof *q);
    q->blocks = blocks;
    q->fn = fn;
    q->ctx = ctx;
    handoff_init(&q->ho, n, (n + 1) / 2);
    handoff_wake_batch(&q->ho, (n + 1) / 2);
    if (rowq_thread_create(&q->thread, NULL, writer_main, q) != 0) {
        handoff_destroy(&q->ho);
        free(q);
        return NULL;
    }
    return q;
}

void *rowq_next(struct rowq *q)
{
    handoff_room(&q->ho); /* the writer never stops: always 0 */
    return q->blocks[handoff_fill_slot(&q->ho)];
}

void rowq_hand(struct rowq *q)
{
    handoff_put(&q->ho);
}

void rowq_finish(struct rowq *q)
{
    handoff_finish(&q->ho);
    pthread_join(q->thread, NULL);
    handoff_destroy(&q->ho);
    free(q);
}
