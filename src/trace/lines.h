/*
 * lines — numbered lines of a plain or gzip-compressed text file.
 *
 * The one line reader under the trace parsers (swf, mtrace): zlib reads plain
 * files unchanged, so gzip is recognised by content, in a thread of its own
 * ahead of the caller (inflating is half of reading a big trace); lines may
 * be of any length; read errors, NUL bytes and a truncated gzip stream become messages
 * naming the file and line. It does not split or interpret lines: that is
 * each format's business.
 */
#ifndef MOKU_LINES_H
#define MOKU_LINES_H

#include <stddef.h>
#include <zlib.h>

#include "util/err.h"

/*
 * One open file. The readers use buf, line, path and err directly (a format's
 * messages name the same file and line); the rest is private to lines.c.
 */
struct lines_pipe;

/* Bytes past a line's NUL that l->buf always holds, initialised: 16, so
 * that a line may be read 16 bytes at a time to its end (swfpack packs a
 * kept line straight from here). */
#define LINES_PAD 16

struct lines {
    gzFile gz;
    const char *path;        /* borrowed from the caller of lines_open */
    char *buf;               /* the current line, NUL-terminated, newline kept, then at
                                least LINES_PAD readable bytes (a parser may load a word
                                at any place up to the NUL); owned */
    size_t cap;              /* size of buf */
    long line;               /* number of the line in buf (1-based) */
    struct err *err;         /* borrowed; may be NULL */
    struct lines_pipe *pipe; /* the thread inflating the file ahead of the reader */
};

/*
 * Open path for reading; path and err must outlive the reader. Returns 0, or
 * -1 with err reading "<path>: cannot open: <reason>" and *l left closed
 * (lines_close on it is a no-op).
 */
int lines_open(struct lines *l, const char *path, struct err *err);
/* lines_open for a reader of the first lines only (a format's detection):
 * small blocks, so that the first line comes without a quarter of a
 * megabyte inflated before it. Reading on to the end works, in more steps. */
int lines_open_head(struct lines *l, const char *path, struct err *err);

/*
 * Read the next line into l->buf and count it in l->line. Returns 1 for a
 * line (the last one may lack its newline), 0 at the end of the file, -1 on
 * an error with err reading "<path>:<line>: ...": corrupt or truncated gzip
 * data, an I/O error, or a NUL byte in the line.
 */
int lines_next(struct lines *l);

/* Close the file and free buf; safe on a closed or zeroed reader, and twice. */
void lines_close(struct lines *l);

#endif
