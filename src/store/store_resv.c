/*
 * store_resv — administrative reservations in the store (see store.h):
 * table resvs, one row per reservation, and resv_nodes, its nodes by name
 * in order. A reservation is written under a savepoint, so a put is whole
 * whether or not the caller has a transaction open.
 *
 * Loading checks every value against what store_resv_put writes: the
 * database is a file anyone with access may edit, and a wrong type or a
 * count out of range must become an error naming the reservation, not an
 * id the engine chokes on or a huge allocation.
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store.h"
#include "store/store_int.h"
#include "util/mem.h"

/* ---- writing ---- */

static int resv_check(const struct store *st, const struct store_resv *r, struct err *err)
{
    if (!r->id || !*r->id)
        return err_set(err, "%s: writing a reservation: no id", st->path);
    if (!r->acl)
        return err_set(err, "%s: writing reservation '%s': no ACL text", st->path, r->id);
    if (r->end <= r->start)
        return err_set(err, "%s: writing reservation '%s': it ends before it starts", st->path,
                       r->id);
    for (size_t k = 0; k < r->nnodes; k++)
        if (!r->nodes[k].name || !*r->nodes[k].name || r->nodes[k].procs == 0)
            return err_set(err,
                           "%s: writing reservation '%s': node %zu has no name or no "
                           "processors",
                           st->path, r->id, k + 1);
    return 0;
}

static int resv_delete(struct store *st, const char *id, struct err *err, const char *what)
{
    static const enum stmt_id dels[] = {S_RESV_NODES_DEL, S_RESV_DEL};
    for (size_t i = 0; i < sizeof dels / sizeof dels[0]; i++) {
        sqlite3_stmt *s = st->stmt[dels[i]];
        struct binder b = {s, 0, SQLITE_OK};
        bind_text(&b, id);
        if (bind_run(st, &b, err, what) < 0)
            return -1;
    }
    return 0;
}

static int resv_insert(struct store *st, const struct store_resv *r, struct err *err,
                       const char *what)
{
    sqlite3_stmt *s = st->stmt[S_RESV_ADD];
    struct binder b = {s, 0, SQLITE_OK};
    bind_text(&b, r->id);
    bind_i64(&b, r->start);
    bind_i64(&b, r->end);
    bind_i64(&b, r->created);
    bind_i64(&b, r->flags);
    bind_i64(&b, r->access);
    bind_text(&b, r->acl);
    bind_text(&b, r->owner);
    bind_i64(&b, r->owner_type);
    bind_i64(&b, r->priority);
    bind_text(&b, r->chargeaccount);
    bind_i64(&b, r->tasks);
    bind_text(&b, r->creator);
    bind_i64(&b, r->creator_uid);
    if (bind_run(st, &b, err, what) < 0)
        return -1;
    s = st->stmt[S_RESV_NODE_ADD];
    for (size_t k = 0; k < r->nnodes; k++) {
        b = (struct binder){s, 0, SQLITE_OK};
        bind_text(&b, r->id);
        bind_i64(&b, (long long)k);
        bind_text(&b, r->nodes[k].name);
        bind_i64(&b, r->nodes[k].procs);
        if (bind_run(st, &b, err, what) < 0)
            return -1;
    }
    return 0;
}

/* Run op under the savepoint: all of it, or none. */
static int in_savepoint(struct store *st, const struct store_resv *r, const char *id,
                        struct err *err, const char *what)
{
    if (stmt_run(st, st->stmt[S_SAVEPOINT], err, what) < 0)
        return -1;
    int rc = resv_delete(st, id, err, what);
    if (rc == 0 && r)
        rc = resv_insert(st, r, err, what);
    if (rc < 0)
        stmt_run(st, st->stmt[S_ROLLBACK_TO], NULL, what);
    if (stmt_run(st, st->stmt[S_RELEASE], rc < 0 ? NULL : err, what) < 0)
        rc = -1;
    return rc;
}

int store_resv_put(struct store *st, const struct store_resv *r, struct err *err)
{
    if (resv_check(st, r, err) < 0)
        return -1;
    char what[160];
    snprintf(what, sizeof what, "writing reservation '%.100s'", r->id);
    return in_savepoint(st, r, r->id, err, what);
}

int store_resv_del(struct store *st, const char *id, struct err *err)
{
    char what[160];
    snprintf(what, sizeof what, "removing reservation '%.100s'", id ? id : "(null)");
    return in_savepoint(st, NULL, id, err, what);
}

/* ---- reading ---- */

void store_resv_free(struct store_resv *r)
{
    if (!r)
        return;
    free(r->id);
    free(r->acl);
    free(r->owner);
    free(r->chargeaccount);
    free(r->creator);
    for (size_t k = 0; k < r->nnodes; k++)
        free(r->nodes[k].name);
    free(r->nodes);
    memset(r, 0, sizeof *r);
}

/* The columns of S_RESVS. */
enum {
    C_ID,
    C_START,
    C_END,
    C_CREATED,
    C_FLAGS,
    C_ACCESS,
    C_ACL,
    C_OWNER,
    C_OWNER_TYPE,
    C_PRIORITY,
    C_CHARGE,
    C_TASKS,
    C_CREATOR,
    C_CREATOR_UID,
    C_NODE,
    C_PROCS
};

static const char *const col_names[] = {"id",         "start_time",  "end_time",      "created",
                                        "flags",      "access",      "acl",           "owner",
                                        "owner_type", "priority",    "chargeaccount", "tasks",
                                        "creator",    "creator_uid", "node",          "procs"};

/* Reading one row, with the first problem remembered. */
struct rowread {
    const struct store *st;
    sqlite3_stmt *s;
    const char *id; /* for messages; NULL until known */
    struct err *err;
    int bad;
};

static void row_bad(struct rowread *rr, int c, const char *what)
{
    if (rr->bad++)
        return;
    err_set(rr->err, "%s: reservation '%.100s': column %s: %s", rr->st->path, rr->id ? rr->id : "?",
            col_names[c], what);
}

/* An integer column within [lo, hi]. */
static long long row_int(struct rowread *rr, int c, long long lo, long long hi)
{
    if (sqlite3_column_type(rr->s, c) != SQLITE_INTEGER) {
        row_bad(rr, c, "not an integer");
        return lo;
    }
    long long v = sqlite3_column_int64(rr->s, c);
    if (v < lo || v > hi) {
        row_bad(rr, c, "out of range");
        return lo;
    }
    return v;
}

/* A text column without NUL bytes: a new string, NULL for SQL NULL when
 * null_ok (else an error); empty text is an error when !empty_ok. */
static char *row_text(struct rowread *rr, int c, int null_ok, int empty_ok)
{
    int type = sqlite3_column_type(rr->s, c);
    if (type == SQLITE_NULL) {
        if (!null_ok)
            row_bad(rr, c, "missing");
        return NULL;
    }
    const char *t = type == SQLITE_TEXT ? (const char *)sqlite3_column_text(rr->s, c) : NULL;
    size_t n = t ? (size_t)sqlite3_column_bytes(rr->s, c) : 0;
    if (!t || strlen(t) != n || (n == 0 && !empty_ok)) {
        row_bad(rr, c, !t ? "not text" : n == 0 ? "empty" : "holds a NUL byte");
        return NULL;
    }
    return xstrndup(t, n);
}

/* The reservation columns of the current row into a zeroed r. */
static void read_resv(struct rowread *rr, struct store_resv *r)
{
    r->id = row_text(rr, C_ID, 0, 0);
    rr->id = r->id;
    r->start = (long)row_int(rr, C_START, LONG_MIN, LONG_MAX);
    r->end = (long)row_int(rr, C_END, LONG_MIN, LONG_MAX);
    r->created = (long)row_int(rr, C_CREATED, LONG_MIN, LONG_MAX);
    r->flags = (unsigned)row_int(rr, C_FLAGS, 0, UINT_MAX);
    r->access = (int)row_int(rr, C_ACCESS, 0, INT_MAX);
    r->acl = row_text(rr, C_ACL, 0, 1);
    r->owner = row_text(rr, C_OWNER, 1, 0);
    r->owner_type = (int)row_int(rr, C_OWNER_TYPE, 0, INT_MAX);
    r->priority = (long)row_int(rr, C_PRIORITY, LONG_MIN, LONG_MAX);
    r->chargeaccount = row_text(rr, C_CHARGE, 1, 0);
    r->tasks = (long)row_int(rr, C_TASKS, 0, LONG_MAX);
    r->creator = row_text(rr, C_CREATOR, 1, 0);
    r->creator_uid = (long)row_int(rr, C_CREATOR_UID, -1, LONG_MAX);
    if (!rr->bad && r->end <= r->start)
        row_bad(rr, C_END, "not after start_time");
}

/* The node columns (a LEFT JOIN: NULL when the reservation has none). */
static void read_node(struct rowread *rr, struct store_resv *r, size_t *cap)
{
    if (sqlite3_column_type(rr->s, C_NODE) == SQLITE_NULL &&
        sqlite3_column_type(rr->s, C_PROCS) == SQLITE_NULL)
        return;
    char *name = row_text(rr, C_NODE, 0, 0);
    unsigned procs = (unsigned)row_int(rr, C_PROCS, 1, UINT_MAX);
    if (!name)
        return; /* row_text said why */
    r->nodes = xgrow(r->nodes, cap, r->nnodes + 1, sizeof *r->nodes);
    r->nodes[r->nnodes++] = (struct store_resv_node){name, procs};
}

static void resvs_free(struct store_resv *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        store_resv_free(&v[i]);
    free(v);
}

/* Every row into *out (rows of one reservation are consecutive: ordered by
 * its seq); s is made ready again. On error nothing is returned. */
static int resvs_collect(struct store *st, struct store_resv **out, size_t *n, struct err *err)
{
    const char *what = "loading the reservations";
    sqlite3_stmt *s = st->stmt[S_RESVS];
    struct store_resv *v = NULL;
    size_t len = 0, cap = 0, ncap = 0;
    struct rowread rr = {st, s, NULL, err, 0};
    int rc = SQLITE_DONE;
    while (!rr.bad && (rc = sqlite3_step(s)) == SQLITE_ROW) {
        const unsigned char *id = sqlite3_column_text(s, C_ID);
        if (!len || !id || strcmp((const char *)id, v[len - 1].id) != 0) {
            v = xgrow(v, &cap, len + 1, sizeof *v);
            memset(&v[len], 0, sizeof v[len]);
            ncap = 0;
            read_resv(&rr, &v[len++]);
        }
        read_node(&rr, &v[len - 1], &ncap);
    }
    if (!rr.bad && rc != SQLITE_DONE)
        rr.bad = db_err(st, err, what) < 0;
    stmt_done(s);
    if (rr.bad) {
        resvs_free(v, len);
        return -1;
    }
    *out = v;
    *n = len;
    return 0;
}

int store_resvs(struct store *st, int (*fn)(void *ctx, const struct store_resv *r), void *ctx,
                struct err *err)
{
    struct store_resv *v;
    size_t n;
    if (resvs_collect(st, &v, &n, err) < 0)
        return -1;
    int ret = 0;
    for (size_t i = 0; i < n && ret == 0; i++)
        ret = fn(ctx, &v[i]);
    resvs_free(v, n);
    return ret;
}
