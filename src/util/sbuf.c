/* sbuf — see sbuf.h. */
#include "util/sbuf.h"

#include <limits.h>
#include <string.h>

void sbuf_put(struct sbuf *b, const char *s)
{
    size_t n = strlen(s);
    if (b->pos + 1 < b->len) {
        size_t room = b->len - 1 - b->pos;
        memcpy(b->buf + b->pos, s, n < room ? n : room);
    }
    b->pos += n;
}

int sbuf_end(struct sbuf *b)
{
    if (b->len > 0)
        b->buf[b->pos < b->len ? b->pos : b->len - 1] = '\0';
    return b->pos > INT_MAX ? INT_MAX : (int)b->pos;
}
