/*
 * swf — reader for the Standard Workload Format (Parallel Workloads Archive).
 *
 * Reads a plain or gzip-compressed SWF file into raw records: the 18 numeric
 * fields of each job line and the machine-readable header keywords. It does
 * not decide what a record means for the scheduler (which processors field to
 * use, what to skip): the simulator's trace loader does that.
 *
 * Errors (unreadable file, a line with other than 18 fields, non-numeric
 * text) name the file and line; nothing is returned on error.
 */
#ifndef MOKU_SWF_H
#define MOKU_SWF_H

#include <stdbool.h>
#include <stddef.h>

#include "util/err.h"

/* One job line. Fields are as in the file; -1 means unknown. */
struct swf_rec {
    long long id;        /* 1 job number */
    long long submit;    /* 2 submit time, s from the log start */
    long long wait;      /* 3 */
    long long runtime;   /* 4 */
    long long alloc;     /* 5 allocated processors */
    double cpu;          /* 6 average CPU time used (may be fractional) */
    double mem_used;     /* 7 KB per processor (may be fractional) */
    long long req_procs; /* 8 */
    long long req_time;  /* 9 */
    double req_mem;      /* 10 KB per processor */
    long long status;    /* 11 */
    long long user;      /* 12 */
    long long group;     /* 13 */
    long long app;       /* 14 */
    long long queue;     /* 15 */
    long long partition; /* 16 */
    long long prev_job;  /* 17 */
    long long think;     /* 18 */
    long line;           /* line number in the file (1-based) */
    const char *text;    /* the line from its first field, newline kept: valid
                            during swf_scan's each() only (NULL in swf_read's) */
    bool canon;          /* with a text: true when the parser saw that text is
                            already canonical (trace/swfpack.h: its 18 tokens one
                            space apart, each as swfpack_format writes it, then
                            at most a newline); false: not known */
    size_t text_len;     /* with canon or dot00: the text's length without its newline
                            (readable 16 bytes past it: lines.h's LINES_PAD) */
    unsigned char at[4]; /* with canon or dot00 and a text_len below 255: where
                            fields 3, 6, 11 and 12 start in the text (swfpack
                            keeps them) */
    bool dot00;          /* with a text (canon false): true when the parser saw
                            the text canonical but for whole numbers written
                            with ".00" ("978.00"): its canonical line is the
                            text without them */
};

/* Header keywords moku uses; 0 / -1 when absent. */
struct swf_header {
    long long unix_start; /* UnixStartTime, -1 if absent */
    long long max_nodes;  /* MaxNodes, 0 if absent */
    long long max_procs;  /* MaxProcs, 0 if absent */
    char tz[64];          /* TimeZoneString (e.g. "Europe/Stockholm"), "" if absent or
                             not a plausible zone name */
};

struct swf_trace {
    struct swf_header hdr;
    struct swf_rec *recs; /* in file order */
    size_t nrecs;
};

/*
 * Read the file at path (gzip is detected from its content, not its name).
 * On success fills *out (caller frees with swf_free) and returns 0; on error
 * returns -1, *out is left empty and err reads "<path>:<line>: <what>".
 */
int swf_read(const char *path, struct swf_trace *out, struct err *err);

/*
 * Read the file at path record by record, without keeping them: each job
 * line, once whole and good, is handed to each(ctx, rec) (rec is valid
 * during the call only); *hdr gets the header keywords when the whole file
 * was read. A trace loader builds its own compact records this way instead
 * of holding the raw ones too. Returns 0, or -1 with err set on a bad line
 * (as swf_read) or when each returns non-zero (each sets err then).
 */
int swf_scan(const char *path, struct swf_header *hdr,
             int (*each)(void *ctx, const struct swf_rec *rec, struct err *err), void *ctx,
             struct err *err);

/* swf_scan without the lines: every rec->text is NULL. The parser's thread
 * then copies no line for the caller's (a trace loader that keeps no
 * text reads faster). */
int swf_scan_values(const char *path, struct swf_header *hdr,
                    int (*each)(void *ctx, const struct swf_rec *rec, struct err *err), void *ctx,
                    struct err *err);

/*
 * A trace loader's work on each record, in two stages, so that what does
 * not depend on the caller's state is done on the parser's thread:
 * prep(ctx, rec, out) there, in file order, writing up to size bytes at
 * out; then each(ctx, rec, out, err) on the caller's thread, in file
 * order, with what prep wrote (non-zero stops the scan, each having set
 * err), and batch(ctx, hdr) (NULL: none) each time the records the parser
 * handed over have been through each(), with the header keywords read by
 * then (the parser may be ahead of the records: a keyword after them may
 * be in it already). A caller can act on what it has while the rest is
 * read (a replay that starts before the trace is whole).
 *
 * prep runs while each and batch do: it may touch only what they neither
 * read nor write, and what it made for a record is theirs once each gets
 * it (the hand-over orders the two). It may run on a few records past one
 * whose each failed. With no thread to parse in, prep and each run in turn
 * on the caller's thread and batch is never called. prep may be NULL.
 */
struct swf_stages {
    void (*prep)(void *ctx, const struct swf_rec *rec, void *out);
    size_t size; /* bytes prep writes a record (0 with no prep) */
    int (*each)(void *ctx, const struct swf_rec *rec, void *out, struct err *err);
    void (*batch)(void *ctx, const struct swf_header *hdr);
    void *ctx;
    bool prep_texts; /* with texts: prep alone reads them (each may find
                        rec->text NULL), so none is copied for each */
};

/* swf_scan (texts) or swf_scan_values through the stages st. */
int swf_scan_staged(const char *path, struct swf_header *hdr, const struct swf_stages *st,
                    bool texts, struct err *err);

/* Free what swf_read filled; safe on a zeroed or already-freed trace. */
void swf_free(struct swf_trace *t);

#endif
