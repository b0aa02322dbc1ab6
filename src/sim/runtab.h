/*
 * runtab — the simulator's run records (struct run, sim_int.h), one for
 * each job the simulated resource manager holds: running, or preempted
 * and waiting to run again. Found by the job's workload index (its tag).
 *
 * A replay keeps only these, not one per trace job: a million-job trace
 * holds a few thousand at once (issue 31, growth). Records come from
 * blocks and are reused, so their addresses stay valid while they are
 * held (the ends heap points at them) and a replay does not malloc per job.
 */
#ifndef MOKU_RUNTAB_H
#define MOKU_RUNTAB_H

#include <stddef.h>

struct job;

/* A job the simulated resource manager holds. */
struct run {
    struct job *job;
    long end;
    long left;             /* suspended by preemption: runtime still to go */
    size_t pos;            /* in the ends heap; SIZE_MAX: not in it */
    size_t tag;            /* its workload index */
    struct run *next_free; /* given back: the next one given back before it */
};

struct runtab {
    struct run **slot;    /* open addressing by tag, cap a power of two (0: none yet) */
    size_t cap, n;        /* n records held */
    struct run **blocks;  /* every record ever made, RUNTAB_BLOCK a block */
    size_t nblocks, used; /* records used of the last block */
    struct run *free;     /* records given back, for reuse */
};

/* An empty table. */
void runtab_init(struct runtab *t);
/* The record of tag, or NULL when none is held. */
struct run *runtab_find(const struct runtab *t, size_t tag);
/* The record of tag: the held one, else a new one zeroed but for its tag
 * and pos (SIZE_MAX: not in the ends heap). */
struct run *runtab_get(struct runtab *t, size_t tag);
/* Give r back (it must be held): no longer found, its memory reused. */
void runtab_put(struct runtab *t, struct run *r);
/* Free every record and the table; t is left empty. */
void runtab_free(struct runtab *t);

#endif
