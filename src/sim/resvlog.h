/*
 * resvlog — every reservation instance a replay had, for `simulate
 * --resv-out` (what `moku validate --reservations` reads; docs/validate.md):
 * after each iteration the scheduler's reservations are looked at; a new id
 * is recorded, and one gone before its end was released then. Priority
 * reservations of jobs are not reservations here (they exclude no job).
 */
#ifndef MOKU_RESVLOG_H
#define MOKU_RESVLOG_H

#include <stdio.h>

#include "engine/engine.h"
#include "util/obuf.h"

struct resvlog;

struct resvlog *resvlog_create(void);
void resvlog_destroy(struct resvlog *l);
/* After an iteration at `now`: note new reservations and releases. */
void resvlog_note(struct resvlog *l, const struct sched *s, long now);
/* The CSV: a header, then one row per instance in the order first seen.
 * Times are trace seconds; an empty end or released means none. Returns
 * -1 if the stream reports an error. */
int resvlog_write(const struct resvlog *l, struct obuf *f);

#endif
