/* dlog — see dlog.h. */
#include "daemon/dlog.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>

#include "util/mem.h"

struct dlog {
    enum dlog_sink sink;
    char *path; /* DLOG_FILE: the file; NULL for the others */
    FILE *f;
    int level, depth, echo;
    long max_size;
};

int dlog_sink_of(const char *word, enum dlog_sink *sink)
{
    static const char *const names[] = {
        [DLOG_FILE] = "file", [DLOG_SYSLOG] = "syslog", [DLOG_JOURNAL] = "journal"};
    for (int i = 0; i < 3; i++)
        if (strcmp(word, names[i]) == 0) {
            *sink = (enum dlog_sink)i;
            return 0;
        }
    return -1;
}

struct dlog *dlog_open_system(enum dlog_sink sink, int level)
{
    struct dlog *l = xcalloc(1, sizeof *l);
    *l = (struct dlog){.sink = sink, .level = level};
    if (sink == DLOG_SYSLOG)
        openlog("moku", LOG_PID | LOG_NDELAY, LOG_DAEMON);
    return l;
}

struct dlog *dlog_open(const char *path, int level, long max_size, int depth, struct err *err)
{
    FILE *f = fopen(path, "a");
    if (!f) {
        err_set(err, "%s: cannot open the log: %s", path, strerror(errno));
        return NULL;
    }
    setvbuf(f, NULL, _IOLBF, 0);
    struct dlog *l = xcalloc(1, sizeof *l);
    *l = (struct dlog){.sink = DLOG_FILE,
                       .path = xstrdup(path),
                       .f = f,
                       .level = level,
                       .depth = depth,
                       .max_size = max_size};
    return l;
}

void dlog_close(struct dlog *l)
{
    if (!l)
        return;
    if (l->f)
        fclose(l->f);
    free(l->path);
    free(l);
}

void dlog_echo(struct dlog *l, int on)
{
    if (l)
        l->echo = on;
}

int dlog_reopen(struct dlog *l, struct err *err)
{
    if (l->sink != DLOG_FILE)
        return 0; /* syslog and the journal are not files moved away */
    FILE *f = fopen(l->path, "a");
    if (!f)
        return err_set(err, "%s: cannot reopen the log: %s", l->path, strerror(errno));
    setvbuf(f, NULL, _IOLBF, 0);
    fclose(l->f);
    l->f = f;
    return 0;
}

void dlog_adopt(struct dlog *l, struct dlog *from)
{
    if (l->f)
        fclose(l->f);
    free(l->path);
    int echo = l->echo;
    *l = *from;
    l->echo = echo;
    free(from);
}

/* path.N-1 -> path.N, ..., path -> path.1, then a fresh path. */
static void roll(struct dlog *l)
{
    size_t n = strlen(l->path) + 24;
    char *from = xmalloc(n), *to = xmalloc(n);
    for (int i = l->depth; i >= 1; i--) {
        snprintf(to, n, "%s.%d", l->path, i);
        if (i == 1)
            snprintf(from, n, "%s", l->path);
        else
            snprintf(from, n, "%s.%d", l->path, i - 1);
        rename(from, to); /* a missing one is fine */
    }
    free(from);
    free(to);
    FILE *f = fopen(l->path, "w");
    if (f) {
        fclose(l->f);
        l->f = f;
        setvbuf(f, NULL, _IOLBF, 0);
    }
}

/* The syslog priority of a line (the journal's prefixes are the same
 * numbers). */
static int priority(int level, const char *msg)
{
    if (strncmp(msg, "error", 5) == 0)
        return LOG_ERR;
    if (strncmp(msg, "warning", 7) == 0)
        return LOG_WARNING;
    return level == 0 ? LOG_NOTICE : level == 1 ? LOG_INFO : LOG_DEBUG;
}

void dlog(struct dlog *l, int level, const char *fmt, ...)
{
    if (!l || level > l->level)
        return;
    va_list ap;
    va_start(ap, fmt);
    char msg[2048];
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    /* One line per message, whatever it quotes (a job name, a path): a
     * newline in a user's text must not forge a line, or a priority, of
     * its own. */
    for (char *c = msg; *c; c++)
        if ((unsigned char)*c < 0x20 && *c != '\t')
            *c = ' ';
    if (l->sink == DLOG_SYSLOG) {
        syslog(priority(level, msg), "%s", msg);
        return;
    }
    if (l->sink == DLOG_JOURNAL) {
        fprintf(stderr, "<%d>%s\n", priority(level, msg), msg);
        return;
    }
    /* Local time with its offset: an administrator reads the log against
     * the wall clock, and the offset makes each line unambiguous across
     * zones and daylight-saving changes. */
    char stamp[40];
    time_t t = time(NULL);
    struct tm tm;
    localtime_r(&t, &tm);
    strftime(stamp, sizeof stamp, "%Y-%m-%d %H:%M:%S %z", &tm);
    fprintf(l->f, "%s %d %s\n", stamp, level, msg);
    if (l->echo)
        fprintf(stderr, "%s %s\n", stamp, msg);
    if (l->max_size > 0 && ftell(l->f) > l->max_size)
        roll(l);
}
