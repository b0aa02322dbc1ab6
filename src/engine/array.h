/*
 * array — the tasks of a job array (Torque's qsub -t, PBS Pro's -J) as the
 * engine sees them: each task is a job of its own (limits, fairshare and
 * priority count tasks as jobs, as Maui counted Torque's array tasks),
 * carrying its array's name, its index, and the array's "%N" slot limit.
 *
 * The slot limit is a hold, as in Torque: a task beyond it is held with
 * HOLD_SLOT (shown as a system hold; checkjob gives "array slot limit" as
 * the reason) and released, lowest index first, at the first scheduling
 * iteration where fewer than N tasks of its array hold a slot. A task holds
 * a slot from that release until it ends or is removed — also while idle or
 * held otherwise — so that no more than N ever run at once.
 *
 * What is not here: parsing ranges (util/arange.h), naming tasks "12[3]"
 * and the array "12[]", which are the drivers'.
 */
#ifndef MOKU_ARRAY_H
#define MOKU_ARRAY_H

#include <stddef.h>

#include "util/err.h"

struct sched;
struct job;

/* Make job j (not a task yet) task `index` of array `array` (copied) whose
 * slot limit is `slots` (0: none). With a slot limit and held, an idle j is
 * held with HOLD_SLOT until sched_array_update finds a slot for it; a
 * running j, or one passed held = 0 (a driver restoring a task that held a
 * slot before a restart), holds a slot at once. An ended j (a driver
 * restoring an ended task's history) only gets its name and index: it
 * holds no slot. Errors (nothing changes): j a task already, an ended j
 * passed held, an empty array name. */
int sched_set_array(struct sched *s, struct job *j, const char *array, unsigned index,
                    unsigned slots, int held, struct err *err);

/* Release held tasks into the slots free in their arrays, lowest index of
 * each array first (sched_iterate calls it before each iteration). Returns
 * how many were released. */
size_t sched_array_update(struct sched *s, long now);

/* 1 when j holds a slot of its array (a task, idle or running, not waiting
 * for one). */
int sched_array_in_slot(const struct job *j);

#endif
