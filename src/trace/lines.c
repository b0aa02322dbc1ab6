/*
 * lines — see lines.h.
 *
 * gzgets reads into a fixed buffer, so a line longer than the buffer comes in
 * pieces: the buffer doubles until a piece ends in a newline. The same call
 * hides three cases behind one short read (end of file, a NUL byte, a cut or
 * corrupt gzip stream), which lines_next tells apart after the loop.
 */
#include "trace/lines.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "util/mem.h"

#define LINES_CAP 1024            /* first size of the line buffer; it grows */
#define LINES_GZ_BUF (128 * 1024) /* zlib's buffer: fewer read() calls than the 8 KB default */

int lines_open(struct lines *l, const char *path, struct err *err)
{
    memset(l, 0, sizeof *l);
    errno = 0;
    gzFile gz = gzopen(path, "rb");
    /* gzopen leaves errno at 0 when only its own allocation failed. */
    if (!gz)
        return err_set(err, "%s: cannot open: %s", path, errno ? strerror(errno) : "out of memory");
    gzbuffer(gz, LINES_GZ_BUF);
    *l = (struct lines){
        .gz = gz, .path = path, .buf = xmalloc(LINES_CAP), .cap = LINES_CAP, .err = err};
    return 0;
}

void lines_close(struct lines *l)
{
    if (l->gz)
        gzclose(l->gz); /* its only error, a truncated stream, was reported already */
    free(l->buf);
    l->gz = NULL;
    l->buf = NULL;
    l->cap = 0;
}

/* zlib's message reads "<path>: <what>" and ours names the path already. */
static int lines_gz_error(struct lines *l, const char *zmsg)
{
    size_t plen = strlen(l->path);
    if (strncmp(zmsg, l->path, plen) == 0 && strncmp(zmsg + plen, ": ", 2) == 0)
        zmsg += plen + 2;
    return err_set(l->err, "%s:%ld: read error: %s", l->path, l->line, zmsg);
}

/*
 * Why gzgets stopped short of a newline after len bytes: the end of the file
 * (1 for a last line without a newline, 0 for none) or an error (-1).
 */
static int lines_short_read(struct lines *l, size_t len)
{
    /* zlib hands out what it decompressed before it found the stream cut or
     * corrupt, so a last line without a newline counts only without error. */
    int zerr;
    const char *zmsg = gzerror(l->gz, &zerr);
    if (zerr != Z_OK)
        return lines_gz_error(l, zmsg);
    /* gzgets stops short only at the end of the file; before it, strlen
     * stopped at a NUL byte and the rest of the line went unseen. */
    if (!gzeof(l->gz))
        return err_set(l->err, "%s:%ld: the line holds a NUL byte: not a text file", l->path,
                       l->line);
    return len > 0;
}

int lines_next(struct lines *l)
{
    size_t len = 0;
    l->line++;
    for (;;) {
        size_t room = l->cap - len;
        if (!gzgets(l->gz, l->buf + len, room > INT_MAX ? INT_MAX : (int)room)) {
            l->buf[len] = '\0';
            break;
        }
        len += strlen(l->buf + len);
        if (len > 0 && l->buf[len - 1] == '\n')
            return 1;
        if (len + 1 < l->cap)
            break; /* short, without a newline: the end of the file or a NUL byte */
        l->buf = xgrow(l->buf, &l->cap, l->cap * 2, 1);
    }
    return lines_short_read(l, len);
}
