/*
 * lines — see lines.h.
 *
 * Inflating gzip is half the cost of reading a big trace, so a second thread
 * does it while the caller parses: it reads the file in large blocks into a
 * small ring, and lines_next cuts lines out of the blocks. A line that spans
 * blocks is gathered in buf, which doubles as needed. The reading thread
 * stops at the end of the file or at zlib's first error; lines_next hands
 * out every whole line before it and then reports the error at the line it
 * was reading, as a reader of the plain stream would meet it. NUL bytes are
 * looked for once in each block, and reported at the line that holds the
 * first.
 */
#include "trace/lines.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/handoff.h"
#include "util/mem.h"

#define LINES_CAP 1024            /* first size of the line buffer; it grows */
#define LINES_GZ_BUF (128 * 1024) /* zlib's input buffer: fewer read() calls than 8 KB */
#define LINES_BLOCK (256 * 1024)  /* bytes the reading thread inflates at a time */
/* Blocks in the ring: half a megabyte ahead at most. A replay overlapped
 * with the read (sim_stream) holds the ring beside its own memory: four
 * blocks read no faster and raised its peak. */
#define LINES_NBLOCKS 2
/* lines_open_head's zlib buffer and blocks: zlib inflates twice its buffer
 * ahead for a short read, and a block at least as long straight into it. */
#define LINES_HEAD_GZ_BUF (8 * 1024)
#define LINES_HEAD_BLOCK (16 * 1024)

struct lines_pipe {
    gzFile gz;    /* the thread's while it runs */
    size_t block; /* bytes inflated at a time: LINES_BLOCK, or less */
    pthread_t thread;
    int started;
    struct handoff ho; /* data[] is its ring */
    char *data[LINES_NBLOCKS];
    size_t len[LINES_NBLOCKS];
    int zerr;       /* zlib's error code when the thread finished on one, else Z_OK */
    char zmsg[256]; /* ... and its message */
    /* The reader's side: the block being cut into lines. */
    const char *cur;
    size_t curlen, curpos;
    size_t nul;  /* where cur's first NUL byte is, or curlen: one look a block, not a line */
    int holding; /* cur is a block taken (0: none yet, -1: none left) */
};

/* The reading thread: fill the ring until the end, an error or stop. */
static void *lines_fill(void *arg)
{
    struct lines_pipe *p = arg;
    while (handoff_room(&p->ho) == 0) {
        size_t t = handoff_fill_slot(&p->ho);
        int n = gzread(p->gz, p->data[t], (unsigned)p->block);
        int zerr = Z_OK, end = n < (int)p->block;
        const char *zmsg = end ? gzerror(p->gz, &zerr) : NULL;
        if (n > 0) {
            p->len[t] = (size_t)n;
            handoff_put(&p->ho);
        }
        if (end) {
            /* A short read is the end of the file, or where zlib met a cut or
             * corrupt stream (Z_BUF_ERROR for a cut one): what it inflated
             * before that is handed on first. */
            if (n < 0 || zerr != Z_OK) {
                p->zerr = zerr != Z_OK ? zerr : Z_ERRNO;
                snprintf(p->zmsg, sizeof p->zmsg, "%s", zmsg ? zmsg : "read failed");
            }
            break;
        }
    }
    handoff_finish(&p->ho); /* after zerr: the reader looks at it then */
    return NULL;
}

/* lines_open with zlib's buffer and the blocks of the sizes given. */
static int open_with(struct lines *l, const char *path, unsigned gzbuf, size_t block,
                     struct err *err)
{
    memset(l, 0, sizeof *l);
    errno = 0;
    gzFile gz = gzopen(path, "rb");
    /* gzopen leaves errno at 0 when only its own allocation failed. */
    if (!gz)
        return err_set(err, "%s: cannot open: %s", path, errno ? strerror(errno) : "out of memory");
    gzbuffer(gz, gzbuf);
    struct lines_pipe *p = xcalloc(1, sizeof *p);
    p->gz = gz;
    p->block = block;
    for (int i = 0; i < LINES_NBLOCKS; i++)
        p->data[i] = xmalloc(block);
    /* The parser is no faster than inflating: the thread refills a block
     * as soon as one is free. */
    handoff_init(&p->ho, LINES_NBLOCKS, 1);
    *l = (struct lines){.gz = gz,
                        .path = path,
                        .buf = xcalloc(1, LINES_CAP),
                        .cap = LINES_CAP,
                        .err = err,
                        .pipe = p};
    int e = pthread_create(&p->thread, NULL, lines_fill, p);
    if (e != 0) {
        lines_close(l);
        return err_set(err, "%s: cannot start reading: %s", path, strerror(e));
    }
    p->started = 1;
    return 0;
}

int lines_open(struct lines *l, const char *path, struct err *err)
{
    return open_with(l, path, LINES_GZ_BUF, LINES_BLOCK, err);
}

int lines_open_head(struct lines *l, const char *path, struct err *err)
{
    return open_with(l, path, LINES_HEAD_GZ_BUF, LINES_HEAD_BLOCK, err);
}

void lines_close(struct lines *l)
{
    struct lines_pipe *p = l->pipe;
    if (p) {
        if (p->started) {
            handoff_stop(&p->ho);
            pthread_join(p->thread, NULL);
        }
        handoff_destroy(&p->ho);
        for (int i = 0; i < LINES_NBLOCKS; i++)
            free(p->data[i]);
        free(p);
    }
    if (l->gz)
        gzclose(l->gz); /* its only error, a truncated stream, was reported already */
    free(l->buf);
    l->gz = NULL;
    l->buf = NULL;
    l->cap = 0;
    l->pipe = NULL;
}

/* zlib's message reads "<path>: <what>" and ours names the path already. */
static int lines_gz_error(struct lines *l, const char *zmsg)
{
    size_t plen = strlen(l->path);
    if (strncmp(zmsg, l->path, plen) == 0 && strncmp(zmsg + plen, ": ", 2) == 0)
        zmsg += plen + 2;
    return err_set(l->err, "%s:%ld: read error: %s", l->path, l->line, zmsg);
}

/* The next block to cut (giving the one before back to the thread),
 * waiting for the thread; 0 when there is none left (the thread is done). */
static int lines_take(struct lines_pipe *p)
{
    size_t h;
    int have = handoff_take(&p->ho, &h);
    p->holding = have ? 1 : -1;
    if (have) { /* the block is the reader's until it is given back */
        p->cur = p->data[h];
        p->curlen = p->len[h];
        p->curpos = 0;
        const char *z = memchr(p->cur, '\0', p->curlen);
        p->nul = z ? (size_t)(z - p->cur) : p->curlen;
    }
    return have;
}

/* Append n bytes to the line in buf, of len bytes so far. The buffer keeps
 * LINES_PAD bytes past the NUL, all written once (lines.h). */
static void lines_append(struct lines *l, size_t len, const char *s, size_t n)
{
    if (len + n + 1 + LINES_PAD > l->cap) {
        size_t old = l->cap;
        l->buf = xgrow(l->buf, &l->cap, len + n + 1 + LINES_PAD, 1);
        memset(l->buf + old, 0, l->cap - old);
    }
    memcpy(l->buf + len, s, n);
    l->buf[len + n] = '\0';
}

int lines_next(struct lines *l)
{
    struct lines_pipe *p = l->pipe;
    size_t len = 0;
    l->line++;
    l->buf[0] = '\0';
    for (;;) {
        if (p->holding <= 0 || p->curpos == p->curlen) {
            if (!lines_take(p))
                break;
            continue;
        }
        const char *s = p->cur + p->curpos;
        size_t left = p->curlen - p->curpos;
        const char *nl = memchr(s, '\n', left);
        size_t n = nl ? (size_t)(nl - s) + 1 : left;
        if (p->nul < p->curpos + n)
            return err_set(l->err, "%s:%ld: the line holds a NUL byte: not a text file", l->path,
                           l->line);
        lines_append(l, len, s, n);
        len += n;
        p->curpos += n;
        if (nl)
            return 1;
    }
    /* No more data: the end of the file, or the point where zlib stopped. */
    if (p->zerr != Z_OK)
        return lines_gz_error(l, p->zmsg);
    return len > 0;
}
