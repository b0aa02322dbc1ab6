/*
 * never — the far future: the end of an unbounded interval, the answer
 * "never" of every question about when (the availability profile's, the
 * plan's, a job's kill time). In core so that every layer may use it.
 */
#ifndef MOKU_NEVER_H
#define MOKU_NEVER_H

/* Far future: the end of an unbounded interval. */
#define AVAIL_NEVER ((long)1 << 62)

#endif
