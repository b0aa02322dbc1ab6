/*
 * sbuf — text appended into a caller's fixed buffer the way snprintf
 * fills one: what does not fit is cut, the full length is still counted,
 * so callers can return "the length the whole text needs".
 */
#ifndef MOKU_SBUF_H
#define MOKU_SBUF_H

#include <stddef.h>

struct sbuf {
    char *buf;  /* may be NULL when len is 0 */
    size_t len; /* bytes of buf, terminator included */
    size_t pos; /* length of the whole text so far */
};

/* Append s (cut to what fits). */
void sbuf_put(struct sbuf *b, const char *s);
/* Terminate the buffer (when there is one) and return the whole length,
 * clamped to INT_MAX. */
int sbuf_end(struct sbuf *b);

#endif
