/*
 * dreply — the daemon's replies to requests, and a request's transaction:
 * the reply objects every part answers with ({"ok", "exit", "output"} or
 * "error"), a reply built line by line, and dreply_begin / dreply_commit,
 * which every change of state goes through (committed before the reply).
 * A leaf of the daemon's parts: it calls only the store and the disk's
 * reserve (dspace.c).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "daemon/daemon_int.h"
#include "daemon/dreply.h"
#include "util/mem.h"

json_t *dreply_ok(const char *text)
{
    return json_pack("{s:b, s:i, s:s}", "ok", 1, "exit", 0, "output", text ? text : "");
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
