/*
 * swfpack — SWF job records (trace/swf.h) kept in memory as the text of
 * their lines, in the order they were added: the trace's records as they
 * were read, which the simulator's --swf-out writes back without reading
 * the trace again, or parsing and formatting again what it copies.
 *
 * A record is kept as its canonical line (swfpack_format's: the 18 fields
 * in decimal, one space apart; a double field that holds a whole number
 * without a point, any other with two decimals): the trace's own text when
 * it is already that (the archive's cleaned traces are), else the line
 * formatted from the record's values. Its bytes (digits, spaces, '-', '.')
 * are packed two to a byte; with them go its length, where the fields a
 * replay replaces start (the reader's, or found as it is added) and its
 * line number (as the difference from the record before): about 43 bytes
 * a record on HPC2N, whose lines have 70.
 *
 * Not random access: records are read back in order, from the first.
 */
#ifndef MOKU_SWFPACK_H
#define MOKU_SWFPACK_H

#include <stddef.h>

#include "trace/swf.h"
#include "util/obuf.h"

/* Zeroed: empty. The fields are the module's own. */
struct swfpack {
    unsigned char *buf;
    size_t len, cap;
    size_t n;       /* records added */
    long last_line; /* the last one's: the differences' base */
};

/* The most bytes swfpack_format writes: 15 integers and 3 doubles, each
 * with its room (obuf.h) and a space. */
#define SWFPACK_LINE_ROOM (15 * (1 + OBUF_LL_ROOM) + 3 * (1 + OBUF_FIXED_ROOM))
/* A line's room as it is unpacked (or made): 32 bytes more to read and write
 * 16 at a time. */
#define SWFPACK_TEXT_ROOM (SWFPACK_LINE_ROOM + 32)

/* Where a reading has got to: zeroed, the first record. */
struct swfpack_cursor {
    size_t pos;
    long line;                    /* the record before's */
    char text[SWFPACK_TEXT_ROOM]; /* the last record's line, unpacked */
};

/* One record as read: its canonical line (no newline, not NUL-terminated;
 * in the cursor, until its next read; readable 16 bytes past its end, so
 * that it may be copied 16 at a time) and where its fields 3 (wait), 4 (run
 * time), 6 and 11 (status), 12 start in it; fields 3 to 5 and 11 are the
 * ones a replay replaces, each before a space. */
struct swfpack_line {
    long line; /* the line number in the trace */
    const char *text;
    size_t len;
    size_t f3, f4, f6, f11, f12;
};

/* Append r as its canonical line: r->text when that is the line's
 * canonical text already (r->canon: the reader says so, taken unchecked;
 * else checked here), else the line formatted from r's values (out of
 * memory aborts, as xmalloc). */
void swfpack_add(struct swfpack *p, const struct swf_rec *r);

/* The record at c into *l, c moved past it: 0, or -1 when c is past the
 * last record (l untouched). */
int swfpack_next(const struct swfpack *p, struct swfpack_cursor *c, struct swfpack_line *l);

/* r's canonical line at p (SWFPACK_LINE_ROOM bytes; those past its end may
 * be scratch), without a newline; returns its end. */
char *swfpack_format(char *p, const struct swf_rec *r);

/* Give back unused capacity (once every record is in; 16 bytes are kept
 * past the last record, which the reading of its text may touch). */
void swfpack_trim(struct swfpack *p);

/* Free the records; p is left empty. Safe on a zeroed or freed pack. */
void swfpack_free(struct swfpack *p);

#endif
