/*
 * queue — the idle queue's public count (policy/queue.c; the queue's
 * transitions are declared in core/sched_int.h for the engine's modules).
 */
#ifndef MOKU_POLICY_QUEUE_H
#define MOKU_POLICY_QUEUE_H

#include "core/sched.h"

/* Jobs waiting to start. */
size_t sched_nidle(const struct sched *s);

#endif
