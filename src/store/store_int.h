/*
 * store_int — what the store's files share (store.c: opening, transactions,
 * jobs, nodes, fairshare, kv, events; store_resv.c: reservations): the
 * connection, its prepared statements, and small statement helpers. Not
 * part of the API; only src/store/ includes it.
 */
#ifndef MOKU_STORE_INT_H
#define MOKU_STORE_INT_H

#include <sqlite3.h>

#include "store/store.h"
#include "util/mem.h"

/* The prepared statements, one per operation (their SQL: stmt_sql in
 * store.c). The row queries of nodes, fairshare and events all return
 * (text, text, int, int, real) so that one collector (rows_collect) serves
 * the three. */
enum stmt_id {
    S_BEGIN,
    S_COMMIT,
    S_ROLLBACK,
    S_JOB_ADD,
    S_JOB_ADD_AS,
    S_JOB_PUT,
    S_JOB_PUT_LEAN,
    S_JOB_GET,
    S_JOBS_ACTIVE,
    S_JOBS_ACTIVE_LEAN,
    S_JOBS_ENDED,
    S_NODE_SET,
    S_NODE_DEL,
    S_NODES,
    S_FS_PUT,
    S_FS_LOAD,
    S_KV_SET,
    S_KV_DEL,
    S_KV_GET,
    S_KV_EACH,
    S_EVENT,
    S_EVENTS,
    S_SCRIPT_PUT,
    S_SCRIPT_GET,
    S_SCRIPT_DEL,
    S_SCRIPTS_PRUNE,
    S_SCRIPT_SIZES,
    S_SAVEPOINT,
    S_RELEASE,
    S_ROLLBACK_TO,
    S_RESV_DEL,
    S_RESV_NODES_DEL,
    S_RESV_ADD,
    S_RESV_NODE_ADD,
    S_RESVS,
    S_TOKEN_GET,
    S_TOKEN_PUT,
    S_TOKENS_PRUNE,
    S_HIST_PUT,
    S_HIST_PRUNE,
    S_HIST_LOAD,
    S_REQ_SAVEPOINT,
    S_REQ_RELEASE,
    S_REQ_ROLLBACK_TO,
    S_COUNT
};

/* The reservation columns after id, in the order store_resv.c binds and
 * reads them. */
#define RESV_COLS                                                                                  \
    "start_time, end_time, created, flags, access, acl, owner, owner_type, priority, "             \
    "chargeaccount, tasks, creator, creator_uid"
#define RESV_QMARKS "?,?,?,?,?,?,?,?,?,?,?,?,?,?"

struct store {
    sqlite3 *db;
    char *path; /* as given to store_open, for messages */
    sqlite3_stmt *stmt[S_COUNT];
    /* A group (store_group_open): grouping while open, group_tx once its
     * transaction has begun (at the first store_begin), req_open while a
     * store_begin of the group is open (a savepoint). */
    int grouping, group_tx, req_open;
};

/* "<path>: <what>: <SQLite's message>"; returns -1. */
static inline int db_err(const struct store *st, struct err *err, const char *what)
{
    return err_set(err, "%s: %s: %s", st->path, what, sqlite3_errmsg(st->db));
}

/* Make s ready for the next use: reset it and drop the bound values (which
 * may point into the caller's strings, bound SQLITE_STATIC). Their return
 * codes repeat the last step's, which the caller has already seen. */
static inline void stmt_done(sqlite3_stmt *s)
{
    sqlite3_reset(s);
    sqlite3_clear_bindings(s);
}

/* Step a statement that returns no rows, then make it ready again. */
static inline int stmt_run(struct store *st, sqlite3_stmt *s, struct err *err, const char *what)
{
    int rc = sqlite3_step(s);
    if (rc != SQLITE_DONE) {
        db_err(st, err, what); /* before the reset, while the message is this step's */
        stmt_done(s);
        return -1;
    }
    stmt_done(s);
    return 0;
}

/* Sequential binding of parameters 1, 2, ...: the first failure sticks, so
 * a run of binds needs one check at the end. */
struct binder {
    sqlite3_stmt *s;
    int i;
    int rc;
};

static inline void bind_i64(struct binder *b, long long v)
{
    if (b->rc == SQLITE_OK)
        b->rc = sqlite3_bind_int64(b->s, ++b->i, v);
}

static inline void bind_double(struct binder *b, double v)
{
    if (b->rc == SQLITE_OK)
        b->rc = sqlite3_bind_double(b->s, ++b->i, v);
}

/* NULL binds SQL NULL. The text is not copied: the statement is reset and
 * its bindings cleared before the calling store function returns. */
static inline void bind_text(struct binder *b, const char *v)
{
    if (b->rc != SQLITE_OK)
        return;
    ++b->i;
    b->rc = v ? sqlite3_bind_text(b->s, b->i, v, -1, SQLITE_STATIC) : sqlite3_bind_null(b->s, b->i);
}

/* Finish a run of binds: 0, or -1 with the message (and s made ready). */
static inline int bind_check(struct store *st, struct binder *b, struct err *err, const char *what)
{
    if (b->rc == SQLITE_OK)
        return 0;
    err_set(err, "%s: %s: binding parameter %d: %s", st->path, what, b->i, sqlite3_errstr(b->rc));
    stmt_done(b->s);
    return -1;
}

/* Finish a run of binds and step the statement (one that returns no rows):
 * every writer's last step. */
static inline int bind_run(struct store *st, struct binder *b, struct err *err, const char *what)
{
    if (bind_check(st, b, err, what) < 0)
        return -1;
    return stmt_run(st, b->s, err, what);
}

/* Column i as a new string, NULL for SQL NULL. Caller frees. */
static inline char *col_str(sqlite3_stmt *s, int i)
{
    const unsigned char *t = sqlite3_column_text(s, i);
    return t ? xstrdup((const char *)t) : NULL;
}

#endif
