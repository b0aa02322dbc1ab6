/* dlog — see dlog.h. */
#include "daemon/dlog.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/mem.h"

struct dlog {
    char *path;
    FILE *f;
    int level, depth, echo;
    long max_size;
};

struct dlog *dlog_open(const char *path, int level, long max_size, int depth, struct err *err)
{
    FILE *f = fopen(path, "a");
    if (!f) {
        err_set(err, "%s: cannot open the log: %s", path, strerror(errno));
        return NULL;
    }
    setvbuf(f, NULL, _IOLBF, 0);
    struct dlog *l = xcalloc(1, sizeof *l);
    *l = (struct dlog){.path = xstrdup(path), .f = f, .level = level, .depth = depth,
                       .max_size = max_size};
    return l;
}

void dlog_close(struct dlog *l)
{
    if (!l)
        return;
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

void dlog(struct dlog *l, int level, const char *fmt, ...)
{
    if (!l || level > l->level)
        return;
    char stamp[32];
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(stamp, sizeof stamp, "%Y-%m-%d %H:%M:%S", &tm);
    va_list ap;
    va_start(ap, fmt);
    char msg[2048];
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(l->f, "%s %d %s\n", stamp, level, msg);
    if (l->echo)
        fprintf(stderr, "%s %s\n", stamp, msg);
    if (l->max_size > 0 && ftell(l->f) > l->max_size)
        roll(l);
}
