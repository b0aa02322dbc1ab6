/*
 * fsfile — Maui's fairshare data files (digest §4.4): one file per finished
 * usage window, `<STATDIR>/FS.<window start, epoch seconds>`, holding a
 * header line and one `<type> <name> <usage>` line per credential with
 * usage in that window, plus the system total.
 *
 * Written:  `# FS Data File (Duration: %6ld seconds)  Starting: <date>` then
 *           `%-10s %15s %12.3f` lines with Maui's lowercase types user,
 *           group, acct, class, qos and `sched` for the total.
 * Read:     `#` starts a comment; blank lines are skipped; a type is any of
 *           user, group, acct, account, class, qos, sched, total in any
 *           letter case (so the Admin Guide's `User USERA 150000.000` and
 *           `TOTAL 600000.00` are read too). Anything else — an unknown
 *           type, a missing or non-numeric or negative or non-finite usage,
 *           extra words, a line without its newline at the end of the file
 *           (a truncated write) — makes the whole file bad: the error names
 *           the file and line and nothing of the file is used.
 *
 * This is driver-side I/O: the engine never calls it. The daemon saves each
 * window as it ends, prunes the files past FSDEPTH and loads the last FSDEPTH
 * at start; the simulator reads and writes them only when asked
 * (docs/simulation.md), so that a replay repeats.
 */
#ifndef MOKU_FSFILE_H
#define MOKU_FSFILE_H

#include <stddef.h>

#include "core/cred.h"
#include "core/params.h" /* FS_MAX_DEPTH */
#include "util/err.h"

struct sched;

/* Record type for the system total (the other types are enum cred_kind). */
#define FSFILE_TOTAL CRED_NKINDS

struct fsfile_rec {
    int type;   /* enum cred_kind, or FSFILE_TOTAL */
    char *name; /* owned; NULL for the total */
    double usage;
};

struct fsfile_data {
    struct fsfile_rec *recs;
    size_t n, cap;
};

/* Maui's keyword for a record type ("user", "group", "acct", "class",
 * "qos", "sched" for the total; NULL out of range), and the type a keyword
 * names in any of the spellings the reader accepts (-1 if none). The daemon
 * keys its stored windows with the same words. */
const char *fsfile_type_word(int type);
int fsfile_type_of(const char *word);

/* "<dir>/FS.<start>" (dir "" or NULL means the current directory; a
 * trailing '/' in dir is not doubled). Caller frees. */
char *fsfile_path(const char *dir, long start);

/* Whether a write waits for the disk (fsync of the file and of its
 * directory): the daemon's files must survive a crash; a simulation's need
 * not, and syncing hundreds of windows would double a replay's time. */
enum fsfile_sync { FSFILE_NOSYNC, FSFILE_SYNC };

/*
 * Write one window's file atomically (a temporary file in the same
 * directory, then rename), creating dir if it does not exist (one level).
 * start is the window's epoch start, interval its length. Records are
 * written in the order given; the total's record is written last whatever
 * its place. Returns 0, or -1 with err naming the path and the system error
 * (no temporary file is left behind). A record the reader would refuse (a
 * name empty, over 255 bytes or holding white space or '#'; a usage negative
 * or not finite) is refused too, before anything is written.
 */
int fsfile_write(const char *path, long interval, long start, const struct fsfile_data *d,
                 enum fsfile_sync sync, struct err *err);

/*
 * Read a file. Returns 1 with *d filled (caller fsfile_free's it), 0 when
 * the file does not exist (*d empty: a window without usage), or -1 with
 * err "path:line: what is wrong" (or "path: <system error>") and *d empty.
 * *d is overwritten, not freed first. Lines are at most 4096 bytes, names
 * at most 255; a CR before a newline is dropped. The total's name, if any,
 * is not kept.
 */
int fsfile_read(const char *path, struct fsfile_data *d, struct err *err);

/* Append a record (name copied; NULL for the total). */
void fsfile_add(struct fsfile_data *d, int type, const char *name, double usage);
void fsfile_free(struct fsfile_data *d);

/*
 * The glue with the engine's ledger (sched_fs).
 *
 * fsfile_save: write window `slot` (0 = current, 1 = the one that just
 * ended, ...) of every credential with usage in it, and the total, to
 * dir/FS.<epoch start of that window>. A window whose total is 0 is not
 * written (returns 0).
 *
 * fsfile_load: at start-up, after fs_advance(sched_fs(s), now) fixed the
 * current window: read dir/FS.<epoch start of window i> into slot i for i
 * = 0..FSDEPTH-1 (missing files are empty windows), creating credentials
 * by name as needed. A bad file is reported through warn (its message
 * names file and line) and skipped; it never stops the load. A file
 * without a total record gets the sum of its users as the total. Returns the
 * number of files read. With FSPOLICY NONE both do nothing (return 0).
 * fsfile_save leaves out a credential whose name could not be read back
 * (white space, '#', over 255 bytes); its usage still counts in the total.
 */
int fsfile_save(const char *dir, struct sched *s, int slot, enum fsfile_sync sync, struct err *err);

/*
 * fsfile_oldest_kept: the epoch start of the oldest window that counts
 * (slot FSDEPTH-1 of the ledger, after fs_advance fixed the current one).
 *
 * fsfile_prune: remove dir's FS.<start> files whose start is before
 * keep_from (epoch seconds): windows past FSDEPTH, which no load reads
 * again. Only names of exactly that form (FS. then decimal digits) are
 * touched. Returns the number removed, or -1 with err naming the directory
 * or file and the system error (files removed before it stay removed). A
 * missing directory removes nothing (returns 0).
 *
 * fsfile_save_kept: write every window that counts (slots 0..FSDEPTH-1
 * with usage) and prune dir of the older ones: the history a later
 * fsfile_load of dir reads, and nothing more (a 1-second FSINTERVAL leaves
 * at most FSDEPTH files, not one per second). Returns the number of files
 * written, or -1 with err (what was written stays). Nothing with FSPOLICY
 * NONE (returns 0).
 */
long fsfile_oldest_kept(const struct sched *s);
int fsfile_prune(const char *dir, long keep_from, struct err *err);
int fsfile_save_kept(const char *dir, struct sched *s, enum fsfile_sync sync, struct err *err);

/*
 * The windows fsfile_save_kept writes, taken at one instant and written
 * later: a replay's history is the ledger as its usage left it, while its
 * clock may go on (jobs that never start are polled until no window that
 * counts holds usage) and the ledger hold nothing by its stop.
 *
 * fsfile_kept_take: the records of every window that counts with usage
 * (slots 0..FSDEPTH-1), with their epoch starts and the prune's bound,
 * replacing what k held. Nothing with FSPOLICY NONE (k left not taken).
 * fsfile_kept_write: write them to dir and prune it, as fsfile_save_kept
 * does; returns the number of files written (0 when k was never taken), or
 * -1 with err. fsfile_kept_free: what k owns; k is then empty, not taken.
 * A zeroed struct is an empty one.
 */
struct fsfile_kept {
    struct fsfile_data win[FS_MAX_DEPTH]; /* the windows with usage, newest first */
    long start[FS_MAX_DEPTH];             /* each one's epoch start */
    int n;                                /* how many */
    int taken;                            /* 1 once taken */
    long interval, keep_from;             /* FSINTERVAL; files before keep_from are pruned */
};
void fsfile_kept_take(struct fsfile_kept *k, const struct sched *s);
int fsfile_kept_write(const char *dir, const struct fsfile_kept *k, enum fsfile_sync sync,
                      struct err *err);
void fsfile_kept_free(struct fsfile_kept *k);
int fsfile_load(const char *dir, struct sched *s, void (*warn)(void *ctx, const char *msg),
                void *ctx);

#endif
