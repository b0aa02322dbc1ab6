/*
 * dlog — the daemon's log file (LOGFILE in LOGDIR, LOGLEVEL), rolled when
 * it passes LOGFILEMAXSIZE bytes: maui.log -> maui.log.1 -> ... up to
 * LOGFILEROLLDEPTH old files. Lines are `YYYY-MM-DD HH:MM:SS +ZZZZ LEVEL
 * message`, in the daemon's local time with its offset from UTC. Level 0
 * logs errors, warnings and the daemon's life (start, stop, reload); 1 adds
 * job events (submit, start, end, cancel); 2 and up adds requests.
 *
 * Or, when the administrator asks (moku serve --log), the same lines go to
 * syslog (facility daemon) or to systemd's journal (standard error, each
 * line with its sd-daemon priority prefix "<N>"), which stamp them
 * themselves; no file is written then. The priority is told from the line:
 * "error" and "warning" first words, else notice (level 0), info (level 1)
 * or debug.
 */
#ifndef MOKU_DLOG_H
#define MOKU_DLOG_H

#include "util/err.h"

struct dlog;

enum dlog_sink { DLOG_FILE, DLOG_SYSLOG, DLOG_JOURNAL };

/* "file", "syslog" or "journal": 0 and *sink, or -1. */
int dlog_sink_of(const char *word, enum dlog_sink *sink);

/* Open (append) path; max_size 0 = never roll. Caller closes. */
struct dlog *dlog_open(const char *path, int level, long max_size, int depth, struct err *err);
/* A log to syslog or the journal (sink is not DLOG_FILE) at level. */
struct dlog *dlog_open_system(enum dlog_sink sink, int level);
void dlog_close(struct dlog *l);
/* Log at level (printf-style) when level <= the configured level. Also
 * copies to stderr when `echo` was set (foreground daemon). */
void dlog(struct dlog *l, int level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void dlog_echo(struct dlog *l, int on);
/* Reopen the file at its path (after logrotate moved it away: SIGUSR1).
 * On error l keeps writing where it did. */
int dlog_reopen(struct dlog *l, struct err *err);
/* l takes over from's file, path, level, size and depth (a reload's new
 * LOGFILE, LOGLEVEL, ...); it keeps its own echo. from is freed. */
void dlog_adopt(struct dlog *l, struct dlog *from);

#endif
