/*
 * dreply — the daemon's replies to requests, and a request's transaction:
 * the reply objects every part answers with ({"ok", "exit", "output"} or
 * "error"), a reply built line by line, and dreply_begin / dreply_commit,
 * which every change of state goes through (committed before the reply).
 * A leaf of the daemon's parts: it calls only the store and the disk's
 * reserve (dspace.c).
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/daemon_int.h"
#include "daemon/dreply.h"
#include "util/mem.h"

/* Whether the n bytes at s are all ASCII, a word at a time. */
static int all_ascii(const char *s, size_t n)
{
    const uint64_t high = 0x8080808080808080u;
    uint64_t acc = 0;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, sizeof w);
        acc |= w;
    }
    for (; i < n; i++)
        acc |= (unsigned char)s[i];
    return (acc & high) == 0;
}

json_t *dreply_ok(const char *text)
{
    /* A command's whole output (showq of 100,000 jobs: 8 MB) is mostly
     * ASCII, which is valid UTF-8 as it is: checked a word at a time here
     * rather than a character at a time by jansson (issue 31). Anything
     * else is checked by jansson as before. */
    const char *t = text ? text : "";
    size_t n = strlen(t);
    json_t *out = all_ascii(t, n) ? json_stringn_nocheck(t, n) : json_stringn(t, n);
    return json_pack("{s:b, s:i, s:o}", "ok", 1, "exit", 0, "output", out);
}

/* A refusal or failure with its exit status (1; 2 for usage errors). */
static json_t *reply_vfail(int exit, const char *fmt, va_list ap)
{
    char msg[1024];
    vsnprintf(msg, sizeof msg, fmt, ap);
    return json_pack("{s:b, s:i, s:s}", "ok", 0, "exit", exit, "error", msg);
}

json_t *dreply_err(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    json_t *r = reply_vfail(1, fmt, ap);
    va_end(ap);
    return r;
}

json_t *dreply_usage(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    json_t *r = reply_vfail(2, fmt, ap);
    va_end(ap);
    return r;
}

json_t *dreply_fail(const struct err *e)
{
    return e->usage ? dreply_usage("%s", e->msg) : dreply_err("%s", e->msg);
}

json_t *dreply_commit(struct dmn *d, json_t *ok)
{
    struct err e;
    if (store_commit(d->st, &e) < 0) {
        json_decref(ok);
        dspace_commit_failed(d); /* a full disk: the reserve makes room for the next try */
        d->recover = 1;          /* the engine may hold the change: rebuilt from the database */
        return dreply_err("the change could not be saved: %s", e.msg);
    }
    d->want_iter = 1;
    return ok;
}

json_t *dreply_begin(struct dmn *d)
{
    struct err e;
    if (store_begin(d->st, &e) < 0)
        return dreply_err("the state database is unavailable: %s", e.msg);
    return NULL;
}

void dreply_printf(struct dreply_text *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    o->text = xgrow(o->text, &o->cap, o->len + (size_t)n + 1, 1);
    va_start(ap, fmt);
    vsnprintf(o->text + o->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    o->len += (size_t)n;
}

json_t *dreply_lines(struct dreply_text *o)
{
    json_t *r = o->failed ? json_pack("{s:b, s:i, s:s}", "ok", 0, "exit", 1, "error",
                                      o->text ? o->text : "")
                          : dreply_ok(o->text);
    free(o->text);
    return r;
}
