/*
 * swfpack — SWF job records (trace/swf.h) kept in memory, compactly, in
 * the order they were added: the trace's records as they were read, which
 * the simulator's --swf-out writes back without reading the trace again
 * (reading and parsing it cost more than the writing).
 *
 * Each field is a variable-length integer (7 bits a byte); the job number,
 * the submit time and the line as differences from the record before, so
 * that a trace's record (small numbers, many -1) takes about 30 bytes where
 * struct swf_rec takes 152. A double field that holds a whole number is
 * kept as that integer, any other as its 8 bytes: every value comes back
 * exactly as it was added.
 *
 * Not random access: records are read back in order, from the first.
 */
#ifndef MOKU_SWFPACK_H
#define MOKU_SWFPACK_H

#include <stddef.h>

#include "trace/swf.h"

/* Zeroed: empty. The fields are the module's own. */
struct swfpack {
    unsigned char *buf;
    size_t len, cap;
    size_t n;                                  /* records added */
    long long last_line, last_id, last_submit; /* the last one's: the differences' base */
};

/* Where a reading has got to: zeroed, the first record. */
struct swfpack_cursor {
    size_t pos;
    long long line, id, submit; /* the record before's */
};

/* Append a copy of *r (out of memory aborts, as xmalloc). */
void swfpack_add(struct swfpack *p, const struct swf_rec *r);

/* The record at c into *r, c moved past it: 0, or -1 when c is past the
 * last record (r untouched). */
int swfpack_next(const struct swfpack *p, struct swfpack_cursor *c, struct swf_rec *r);

/* Give back unused capacity (once every record is in). */
void swfpack_trim(struct swfpack *p);

/* Free the records; p is left empty. Safe on a zeroed or freed pack. */
void swfpack_free(struct swfpack *p);

#endif
