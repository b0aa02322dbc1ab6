/*
 * store — see store.h.
 *
 * One SQLite connection in WAL mode with synchronous=FULL: a commit returns
 * after the WAL is fsync'd, and a crash (kill -9, or the machine) leaves the
 * database as of the last commit, since SQLite replays or ignores the WAL
 * frames past the last commit record on the next open. Every statement is
 * prepared once at open (SQLITE_PREPARE_PERSISTENT) and takes its values as
 * bound parameters; SQL text never contains a value. A change outside
 * store_begin/store_commit is a single statement in autocommit mode, which
 * SQLite runs as its own transaction.
 *
 * The callbacks of the loading functions (store_jobs_active, store_nodes,
 * ...) run after the query has finished and its statement is reset: the rows
 * are copied first. So a callback may call any store function, this one
 * included, and a stopped iteration leaves no statement half-stepped (which
 * would hold a read snapshot open and keep the WAL from being checkpointed).
 *
 * The schema carries a version in PRAGMA user_version. Version 0 is a new,
 * empty database: the tables are created in one transaction (BEGIN
 * IMMEDIATE, so two daemons opening a new file at once create it once). An
 * older version is upgraded the same way, in one transaction, by the steps
 * of upgrade_sql; a new database is created at version 1 and upgraded, so
 * that new and upgraded databases cannot differ. A version newer than
 * STORE_SCHEMA is refused before anything is written, so an older moku never
 * touches a newer database.
 *
 * Reservations are in store_resv.c (the helpers they share: store_int.h).
 */
#include "store/store.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "store/store_int.h"
#include "util/crashpt.h"
#include "util/mem.h"

#define STORE_SCHEMA 9     /* PRAGMA user_version written by this code */
#define STORE_BUSY_MS 5000 /* wait this long for another connection's lock */
#define STORE_STR_(x) #x
#define STORE_STR(x) STORE_STR_(x)

/* The SQL below spells the ended states as literals. */
_Static_assert(SJ_COMPLETED == 3 && SJ_REMOVED == 4 && SJ_IDLE == 0, "store_jstate values");

static const char schema_sql[] =
    "CREATE TABLE jobs ("
    " id INTEGER PRIMARY KEY AUTOINCREMENT,"
    " name TEXT, user_name TEXT, group_name TEXT,"
    " uid INTEGER NOT NULL, gid INTEGER NOT NULL,"
    " account TEXT, class TEXT, qos TEXT,"
    " tasks INTEGER NOT NULL, ppn INTEGER NOT NULL, nodes INTEGER NOT NULL,"
    " mem_mb INTEGER NOT NULL, walltime INTEGER NOT NULL,"
    " submit INTEGER NOT NULL, start_after INTEGER NOT NULL,"
    " holds INTEGER NOT NULL, sysprio_mode INTEGER NOT NULL, sysprio INTEGER NOT NULL,"
    " state INTEGER NOT NULL CHECK (state BETWEEN 0 AND 4),"
    " start_time INTEGER NOT NULL, end_time INTEGER NOT NULL, exit_status INTEGER NOT NULL,"
    " hosts TEXT, script TEXT, cwd TEXT, out_path TEXT, err_path TEXT,"
    " advres TEXT, env TEXT,"
    " bypass INTEGER NOT NULL, defercount INTEGER NOT NULL, deferred_until INTEGER NOT NULL);"
    "CREATE INDEX jobs_state ON jobs (state);"
    "CREATE INDEX jobs_end ON jobs (end_time);"
    "CREATE TABLE nodes (name TEXT PRIMARY KEY NOT NULL, state TEXT NOT NULL) WITHOUT ROWID;"
    "CREATE TABLE fairshare (kind TEXT NOT NULL, name TEXT NOT NULL,"
    " window_start INTEGER NOT NULL, usage REAL NOT NULL,"
    " PRIMARY KEY (kind, name, window_start)) WITHOUT ROWID;"
    "CREATE TABLE kv (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL) WITHOUT ROWID;"
    "CREATE TABLE events (id INTEGER PRIMARY KEY AUTOINCREMENT, time INTEGER NOT NULL,"
    " job INTEGER NOT NULL, kind TEXT, text TEXT);"
    "CREATE TABLE scripts (id INTEGER PRIMARY KEY, text TEXT NOT NULL);";

/* upgrade_sql[k] takes a version-k database to version k + 1. */
static const char *const upgrade_sql[STORE_SCHEMA] = {
    /* 2: administrative reservations (setres), their nodes by name. seq
     * keeps the order they were stored in. */
    [1] = "CREATE TABLE resvs (seq INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE,"
          " start_time INTEGER NOT NULL, end_time INTEGER NOT NULL, created INTEGER NOT NULL,"
          " flags INTEGER NOT NULL, access INTEGER NOT NULL, acl TEXT NOT NULL,"
          " owner TEXT, owner_type INTEGER NOT NULL, priority INTEGER NOT NULL,"
          " chargeaccount TEXT, tasks INTEGER NOT NULL, creator TEXT,"
          " creator_uid INTEGER NOT NULL);"
          "CREATE TABLE resv_nodes (resv TEXT NOT NULL REFERENCES resvs (id) ON DELETE CASCADE,"
          " pos INTEGER NOT NULL, node TEXT NOT NULL, procs INTEGER NOT NULL,"
          " PRIMARY KEY (resv, pos)) WITHOUT ROWID;",
    /* 3: why a job failed to start (checkjob's Messages), qsub -m and -M, the
     * node features of -l nodes=N:feature. */
    [2] = "ALTER TABLE jobs ADD COLUMN message TEXT;"
          "ALTER TABLE jobs ADD COLUMN mail_events TEXT;"
          "ALTER TABLE jobs ADD COLUMN mail_users TEXT;"
          "ALTER TABLE jobs ADD COLUMN features TEXT;",
    /* 4: the answers to requests that carried a token (a client's retry of
     * a submission it got no answer to gets the first answer again). */
    [3] = "CREATE TABLE tokens (uid INTEGER NOT NULL, token TEXT NOT NULL,"
          " time INTEGER NOT NULL, reply TEXT NOT NULL,"
          " PRIMARY KEY (uid, token)) WITHOUT ROWID;"
          "CREATE INDEX tokens_time ON tokens (time);",
    /* 5: the web view's history: a sample a minute of the cluster's use. */
    [4] = "CREATE TABLE history (time INTEGER PRIMARY KEY, procs INTEGER NOT NULL,"
          " busy INTEGER NOT NULL, running INTEGER NOT NULL, idle INTEGER NOT NULL,"
          " blocked INTEGER NOT NULL);",
    /* 6: a job's shape beyond tasks and processors per task (store.h:
     * store_job.shape): Slurm's tasks per node, memory per node,
     * exclusive nodes, node limits. */
    [5] = "ALTER TABLE jobs ADD COLUMN shape TEXT;",
    /* 7: the limits the local resource manager applies to a job's
     * processes (qsub -l vmem/pvmem, nice). */
    [6] = "ALTER TABLE jobs ADD COLUMN vmem_mb INTEGER NOT NULL DEFAULT 0;"
          "ALTER TABLE jobs ADD COLUMN nice INTEGER NOT NULL DEFAULT 0;",
    /* 8: the job's dependencies (qsub -W depend=), as given. */
    [7] = "ALTER TABLE jobs ADD COLUMN depend TEXT;",
    /* 9: a job array's task (qsub -t, -J on the local resource manager):
     * its array's id (the first task's), its index, the array's %N. */
    [8] = "ALTER TABLE jobs ADD COLUMN array_id INTEGER NOT NULL DEFAULT 0;"
          "ALTER TABLE jobs ADD COLUMN array_index INTEGER NOT NULL DEFAULT 0;"
          "ALTER TABLE jobs ADD COLUMN array_slots INTEGER NOT NULL DEFAULT 0;",
};

/* The job columns after id, in the order job_bind and job_read use. A lean
 * record (store.h) is the same without script and env: read as NULL,
 * written as they are. */
#define JOB_COLS_A                                                                                 \
    "name, user_name, group_name, uid, gid, account, class, qos, tasks, ppn, nodes, mem_mb, "      \
    "walltime, submit, start_after, holds, sysprio_mode, sysprio, state, start_time, end_time, "   \
    "exit_status, hosts, "
#define JOB_COLS_B "cwd, out_path, err_path, advres, "
#define JOB_COLS_C                                                                                 \
    "bypass, defercount, deferred_until, message, mail_events, mail_users, features, shape, "      \
    "vmem_mb, nice, depend, array_id, array_index, array_slots"
#define JOB_COLS JOB_COLS_A "script, " JOB_COLS_B "env, " JOB_COLS_C
#define JOB_COLS_LEAN_READ JOB_COLS_A "NULL, " JOB_COLS_B "NULL, " JOB_COLS_C
#define JOB_COLS_LEAN JOB_COLS_A JOB_COLS_B JOB_COLS_C
#define JOB_NCOLS 43
#define JOB_QMARKS                                                                                 \
    "?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?"
#define JOB_QMARKS_LEAN                                                                            \
    "?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?"

static const char *const stmt_sql[S_COUNT] = {
    [S_BEGIN] = "BEGIN IMMEDIATE",
    [S_COMMIT] = "COMMIT",
    [S_ROLLBACK] = "ROLLBACK",
    [S_JOB_ADD] = "INSERT INTO jobs (" JOB_COLS ") VALUES (" JOB_QMARKS ")",
    [S_JOB_ADD_AS] = "INSERT INTO jobs (id, " JOB_COLS ") VALUES (?, " JOB_QMARKS ")",
    [S_JOB_PUT] = "UPDATE jobs SET (" JOB_COLS ") = (" JOB_QMARKS ") WHERE id = ?",
    [S_JOB_PUT_LEAN] = "UPDATE jobs SET (" JOB_COLS_LEAN ") = (" JOB_QMARKS_LEAN ") WHERE id = ?",
    [S_JOB_GET] = "SELECT id, " JOB_COLS " FROM jobs WHERE id = ?",
    [S_JOBS_ACTIVE] = "SELECT id, " JOB_COLS " FROM jobs WHERE state NOT IN (3, 4)"
                      " AND id > ? AND id <= ? ORDER BY id LIMIT ?",
    /* The environment's bytes last (MAXSUBMITBYTES' count: jobs_bytes). */
    [S_JOBS_ACTIVE_LEAN] = "SELECT id, " JOB_COLS_LEAN_READ ", length(CAST(env AS BLOB))"
                           " FROM jobs WHERE state NOT IN (3, 4)"
                           " AND id > ? AND id <= ? ORDER BY id LIMIT ?",
    [S_JOBS_ENDED] = "SELECT id, " JOB_COLS " FROM jobs WHERE state IN (3, 4) AND end_time >= ?"
                     " ORDER BY end_time DESC, id DESC LIMIT ?",
    [S_NODE_SET] = "INSERT INTO nodes (name, state) VALUES (?, ?)"
                   " ON CONFLICT (name) DO UPDATE SET state = excluded.state",
    [S_NODE_DEL] = "DELETE FROM nodes WHERE name = ?",
    [S_NODES] = "SELECT name, state, 0, 0, 0.0 FROM nodes ORDER BY name",
    [S_FS_PUT] = "INSERT INTO fairshare (kind, name, window_start, usage) VALUES (?, ?, ?, ?)"
                 " ON CONFLICT (kind, name, window_start) DO UPDATE SET usage = excluded.usage",
    [S_FS_LOAD] = "SELECT kind, name, window_start, 0, usage FROM fairshare"
                  " WHERE window_start >= ? ORDER BY window_start, kind, name",
    [S_KV_SET] = "INSERT INTO kv (key, value) VALUES (?, ?)"
                 " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
    [S_KV_DEL] = "DELETE FROM kv WHERE key = ?",
    [S_KV_GET] = "SELECT value FROM kv WHERE key = ?",
    [S_KV_EACH] = "SELECT key, value, 0, 0, 0.0 FROM kv WHERE substr(key, 1, length(?1)) = ?1"
                  " ORDER BY key",
    [S_EVENT] = "INSERT INTO events (time, job, kind, text) VALUES (?, ?, ?, ?)",
    [S_EVENTS] = "SELECT kind, text, time, job, 0.0 FROM"
                 " (SELECT id, kind, text, time, job FROM events ORDER BY id DESC LIMIT ?)"
                 " ORDER BY id",
    [S_SCRIPT_PUT] = "INSERT OR REPLACE INTO scripts (id, text) VALUES (?, ?)",
    [S_SCRIPT_GET] = "SELECT text FROM scripts WHERE id = ?",
    [S_SCRIPT_DEL] = "DELETE FROM scripts WHERE id = ?",
    [S_SCRIPTS_PRUNE] =
        "DELETE FROM scripts WHERE id IN (SELECT id FROM jobs WHERE state IN (3, 4))",
    [S_SCRIPT_SIZES] = "SELECT id, length(CAST(text AS BLOB)) FROM scripts"
                       " WHERE id >= ? AND id <= ? ORDER BY id",
    /* store_resv.c: a reservation and its nodes are written under a
     * savepoint, atomic inside or outside a transaction. */
    [S_REQ_SAVEPOINT] = "SAVEPOINT req",
    [S_REQ_RELEASE] = "RELEASE req",
    [S_REQ_ROLLBACK_TO] = "ROLLBACK TO req",
    [S_SAVEPOINT] = "SAVEPOINT resv",
    [S_RELEASE] = "RELEASE resv",
    [S_ROLLBACK_TO] = "ROLLBACK TO resv",
    [S_RESV_DEL] = "DELETE FROM resvs WHERE id = ?",
    [S_RESV_NODES_DEL] = "DELETE FROM resv_nodes WHERE resv = ?",
    [S_RESV_ADD] = "INSERT INTO resvs (id, " RESV_COLS ") VALUES (" RESV_QMARKS ")",
    [S_RESV_NODE_ADD] = "INSERT INTO resv_nodes (resv, pos, node, procs) VALUES (?, ?, ?, ?)",
    [S_RESVS] = "SELECT r.id, r.start_time, r.end_time, r.created, r.flags, r.access, r.acl,"
                " r.owner, r.owner_type, r.priority, r.chargeaccount, r.tasks, r.creator,"
                " r.creator_uid, n.node, n.procs"
                " FROM resvs r LEFT JOIN resv_nodes n ON n.resv = r.id"
                " ORDER BY r.created, r.seq, n.pos",
    [S_TOKEN_GET] = "SELECT reply FROM tokens WHERE uid = ? AND token = ?",
    [S_TOKEN_PUT] = "INSERT INTO tokens (uid, token, time, reply) VALUES (?, ?, ?, ?)",
    [S_TOKENS_PRUNE] = "DELETE FROM tokens WHERE time < ?",
    [S_HIST_PUT] = "INSERT OR REPLACE INTO history (time, procs, busy, running, idle, blocked)"
                   " VALUES (?, ?, ?, ?, ?, ?)",
    [S_HIST_PRUNE] = "DELETE FROM history WHERE time < ?",
    [S_HIST_LOAD] = "SELECT time, procs, busy, running, idle, blocked FROM history"
                    " WHERE time >= ? ORDER BY time",
};

/* ---- opening ---- */

/* Run a PRAGMA (or any one-row query) and read its first column as an
 * integer (0 when it returns no row). */
static int query_int(struct store *st, const char *sql, long long *out, struct err *err,
                     const char *what)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK)
        return db_err(st, err, what);
    int rc = sqlite3_step(s);
    *out = rc == SQLITE_ROW ? sqlite3_column_int64(s, 0) : 0;
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
        db_err(st, err, what);
        sqlite3_finalize(s);
        return -1;
    }
    sqlite3_finalize(s);
    return 0;
}

/* Switch to WAL and check that SQLite did: journal_mode answers the mode in
 * force, which stays the old one where WAL is impossible (e.g. no shared
 * memory on the file system), and that must not pass silently. */
static int set_wal(struct store *st, struct err *err)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(st->db, "PRAGMA journal_mode = WAL", -1, &s, NULL) != SQLITE_OK)
        return db_err(st, err, "setting WAL journal mode");
    int rc = sqlite3_step(s);
    if (rc != SQLITE_ROW) {
        db_err(st, err, "setting WAL journal mode");
        sqlite3_finalize(s);
        return -1;
    }
    const char *mode = (const char *)sqlite3_column_text(s, 0);
    int wal = mode && strcmp(mode, "wal") == 0;
    if (!wal)
        err_set(err, "%s: setting WAL journal mode: the database stayed in mode '%s'", st->path,
                mode ? mode : "?");
    sqlite3_finalize(s);
    return wal ? 0 : -1;
}

static int exec(struct store *st, const char *sql, struct err *err, const char *what)
{
    if (sqlite3_exec(st->db, sql, NULL, NULL, NULL) != SQLITE_OK)
        return db_err(st, err, what);
    return 0;
}

/* Create the tables if the database is new (version 0 and empty), and
 * upgrade an older one step by step to STORE_SCHEMA. Under BEGIN IMMEDIATE,
 * so the version read is the one the creation or upgrade replaces. */
static int schema_create(struct store *st, struct err *err)
{
    if (exec(st, "BEGIN IMMEDIATE", err, "creating the schema") < 0)
        return -1;
    long long version, objects;
    const char *sql_objects = "SELECT count(*) FROM sqlite_master";
    if (query_int(st, "PRAGMA user_version", &version, err, "reading the schema version") < 0 ||
        query_int(st, sql_objects, &objects, err, "reading the schema") < 0)
        goto fail;
    if (version == 0 && objects > 0) {
        err_set(err, "%s: not a moku database (it has tables but no moku schema version)",
                st->path);
        goto fail;
    }
    if (version > STORE_SCHEMA) { /* another moku, newer, got there first */
        err_set(err, "%s: database schema version %lld is newer than this moku knows (%d)",
                st->path, version, STORE_SCHEMA);
        goto fail;
    }
    if (version == 0) {
        if (exec(st, schema_sql, err, "creating the schema") < 0)
            goto fail;
        version = 1;
    }
    for (; version < STORE_SCHEMA; version++)
        if (exec(st, upgrade_sql[version], err, "upgrading the schema") < 0)
            goto fail;
    if (exec(st, "PRAGMA user_version = " STORE_STR(STORE_SCHEMA), err,
             "setting the schema version") < 0 ||
        exec(st, "COMMIT", err, "creating the schema") < 0)
        goto fail;
    return 0;
fail:
    sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
    return -1;
}

static int prepare_all(struct store *st, struct err *err)
{
    for (int i = 0; i < S_COUNT; i++) {
        if (sqlite3_prepare_v3(st->db, stmt_sql[i], -1, SQLITE_PREPARE_PERSISTENT, &st->stmt[i],
                               NULL) != SQLITE_OK)
            return err_set(err, "%s: preparing \"%s\": %s", st->path, stmt_sql[i],
                           sqlite3_errmsg(st->db));
    }
    return 0;
}

/* The settings and schema of a just-opened connection. The version is
 * checked before anything is written, so a newer database stays untouched. */
static int setup(struct store *st, struct err *err)
{
    long long version;
    if (sqlite3_busy_timeout(st->db, STORE_BUSY_MS) != SQLITE_OK)
        return db_err(st, err, "setting the busy timeout");
    if (query_int(st, "PRAGMA user_version", &version, err, "reading the schema version") < 0)
        return -1;
    if (version > STORE_SCHEMA)
        return err_set(err,
                       "%s: database schema version %lld is newer than this moku knows (%d); "
                       "use a newer moku or another database",
                       st->path, version, STORE_SCHEMA);
    if (version < 0)
        return err_set(err, "%s: bad schema version %lld", st->path, version);
    if (set_wal(st, err) < 0 ||
        exec(st, "PRAGMA synchronous = FULL", err, "setting synchronous=FULL") < 0 ||
        exec(st, "PRAGMA foreign_keys = ON", err, "enabling foreign keys") < 0)
        return -1;
    if (version < STORE_SCHEMA && schema_create(st, err) < 0)
        return -1;
    return prepare_all(st, err);
}

struct store *store_open(const char *path, struct err *err)
{
    struct store *st = xcalloc(1, sizeof *st);
    st->path = xstrdup(path);
    /* NOMUTEX: a store is used by one thread at a time (the daemon's loop;
     * a reader's own), so SQLite need not lock the connection at every call
     * (a lock and an unlock per column read: 8 % of a restart's time with
     * 100,000 jobs, issue 31). */
    int rc = sqlite3_open_v2(
        path, &st->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc != SQLITE_OK) {
        if (st->db)
            db_err(st, err, "opening the database");
        else
            err_set(err, "%s: opening the database: %s", path, sqlite3_errstr(rc));
        store_close(st);
        return NULL;
    }
    sqlite3_extended_result_codes(st->db, 1);
    if (setup(st, err) < 0) {
        store_close(st);
        return NULL;
    }
    return st;
}

/* An open transaction is rolled back (sqlite3_close does it). */
/* A read-only connection: the schema must be this code's (nothing is
 * created or upgraded), and no pragma that writes is run. */
struct store *store_open_readonly(const char *path, struct err *err)
{
    struct store *st = xcalloc(1, sizeof *st);
    st->path = xstrdup(path);
    long long version;
    int rc = sqlite3_open_v2(path, &st->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc != SQLITE_OK) {
        if (st->db)
            db_err(st, err, "opening the database");
        else
            err_set(err, "%s: opening the database: %s", path, sqlite3_errstr(rc));
    } else if (sqlite3_busy_timeout(st->db, STORE_BUSY_MS) != SQLITE_OK) {
        db_err(st, err, "setting the busy timeout");
    } else if (query_int(st, "PRAGMA user_version", &version, err, "reading the schema version") ==
               0) {
        if (version == STORE_SCHEMA && prepare_all(st, err) == 0)
            return st;
        if (version != STORE_SCHEMA)
            err_set(err, "%s: database schema version %lld, this moku reads %d (%s)", path, version,
                    STORE_SCHEMA,
                    version < STORE_SCHEMA ? "start the daemon once with this moku to upgrade it"
                                           : "use a newer moku");
    }
    store_close(st);
    return NULL;
}

void store_close(struct store *st)
{
    if (!st)
        return;
    for (int i = 0; i < S_COUNT; i++)
        sqlite3_finalize(st->stmt[i]); /* NULL is a no-op */
    sqlite3_close(st->db);             /* NULL is a no-op; nothing else holds it */
    free(st->path);
    free(st);
}

/* ---- transactions ---- */

/* Inside a group, store_begin/commit/rollback are a savepoint of the group's
 * one transaction: a change "committed" there is durable when the group is. */
static int req_begin(struct store *st, struct err *err)
{
    if (st->req_open)
        return err_set(err, "%s: begin: a transaction is already open", st->path);
    if (!st->group_tx) {
        if (stmt_run(st, st->stmt[S_BEGIN], err, "begin (a group)") < 0)
            return -1;
        st->group_tx = 1;
    } else if (sqlite3_get_autocommit(st->db)) {
        return err_set(err,
                       "%s: begin: the group's transaction was rolled back after an error; "
                       "nothing more joins it",
                       st->path);
    }
    if (stmt_run(st, st->stmt[S_REQ_SAVEPOINT], err, "begin (in a group)") < 0)
        return -1;
    st->req_open = 1;
    return 0;
}

static void req_rollback(struct store *st)
{
    st->req_open = 0;
    if (sqlite3_get_autocommit(st->db))
        return; /* the whole group is gone already */
    stmt_run(st, st->stmt[S_REQ_ROLLBACK_TO], NULL, "rollback (in a group)");
    stmt_run(st, st->stmt[S_REQ_RELEASE], NULL, "rollback (in a group)");
}

static int req_commit(struct store *st, struct err *err)
{
    if (!st->req_open || sqlite3_get_autocommit(st->db)) {
        st->req_open = 0;
        return err_set(err,
                       "%s: commit: no transaction is open (it was rolled back after an "
                       "error, or never begun)",
                       st->path);
    }
    if (stmt_run(st, st->stmt[S_REQ_RELEASE], err, "commit (in a group; the changes are dropped)") <
        0) {
        req_rollback(st);
        return -1;
    }
    st->req_open = 0;
    return 0;
}

int store_begin(struct store *st, struct err *err)
{
    if (crashpt_fail("store-begin"))
        return err_set(err, "%s: begin: failed on purpose (MOKU_FAIL)", st->path);
    if (st->grouping)
        return req_begin(st, err);
    if (!sqlite3_get_autocommit(st->db))
        return err_set(err, "%s: begin: a transaction is already open", st->path);
    return stmt_run(st, st->stmt[S_BEGIN], err, "begin");
}

/* The transaction's COMMIT: durable on success; on failure rolled back. A
 * failed COMMIT leaves the transaction open in some cases (SQLITE_BUSY); it
 * is rolled back then, so that a failure never leaves one open behind the
 * caller: the changes are dropped and the error says so. */
static int tx_commit(struct store *st, struct err *err)
{
    if (sqlite3_get_autocommit(st->db))
        return err_set(err,
                       "%s: commit: no transaction is open (it was rolled back after an "
                       "error, or never begun)",
                       st->path);
    if (crashpt_fail("store-commit"))
        err_set(err, "%s: commit: failed on purpose (MOKU_FAIL; the changes are dropped)",
                st->path);
    else if (stmt_run(st, st->stmt[S_COMMIT], err, "commit (the changes are dropped)") == 0)
        return crashpt("store-after-commit"), 0;
    if (!sqlite3_get_autocommit(st->db))
        stmt_run(st, st->stmt[S_ROLLBACK], NULL, "rollback");
    return -1;
}

int store_commit(struct store *st, struct err *err)
{
    return st->grouping ? req_commit(st, err) : tx_commit(st, err);
}

int store_in_transaction(const struct store *st)
{
    if (st && st->grouping)
        return st->req_open && !sqlite3_get_autocommit(st->db);
    return st && !sqlite3_get_autocommit(st->db);
}

/* No transaction open: nothing to do. A ROLLBACK that fails leaves nothing
 * the caller could mend; SQLite rolls back when the connection closes. */
void store_rollback(struct store *st)
{
    if (st->grouping)
        req_rollback(st);
    else if (!sqlite3_get_autocommit(st->db))
        stmt_run(st, st->stmt[S_ROLLBACK], NULL, "rollback");
}

int store_group_open(struct store *st, struct err *err)
{
    if (st->grouping || !sqlite3_get_autocommit(st->db))
        return err_set(err, "%s: group: a transaction is already open", st->path);
    st->grouping = 1;
    st->group_tx = st->req_open = 0;
    return 0;
}

int store_group_close(struct store *st, struct err *err)
{
    if (!st->grouping)
        return 0;
    int began = st->group_tx, left_open = st->req_open;
    if (left_open)
        req_rollback(st); /* a caller's bug: what it did not commit is not kept */
    st->grouping = st->group_tx = st->req_open = 0;
    if (!began)
        return 0; /* nothing joined: nothing to write */
    return tx_commit(st, err);
}

int store_group_pending(const struct store *st)
{
    return st->grouping && st->group_tx;
}

int store_group_is_open(const struct store *st)
{
    return st->grouping;
}

/* ---- jobs ---- */

/* Parameters 1..JOB_NCOLS in JOB_COLS order (lean: JOB_COLS_LEAN's, two
 * fewer). */
static void job_bind(struct binder *b, const struct store_job *j, int lean)
{
    bind_text(b, j->name);
    bind_text(b, j->user);
    bind_text(b, j->group);
    bind_i64(b, j->uid);
    bind_i64(b, j->gid);
    bind_text(b, j->account);
    bind_text(b, j->class_);
    bind_text(b, j->qos);
    bind_i64(b, j->tasks);
    bind_i64(b, j->ppn);
    bind_i64(b, j->nodes);
    bind_i64(b, j->mem_mb);
    bind_i64(b, j->walltime);
    bind_i64(b, j->submit);
    bind_i64(b, j->start_after);
    bind_i64(b, j->holds);
    bind_i64(b, j->sysprio_mode);
    bind_i64(b, j->sysprio);
    bind_i64(b, j->state);
    bind_i64(b, j->start);
    bind_i64(b, j->end);
    bind_i64(b, j->exit_status);
    bind_text(b, j->hosts);
    if (!lean)
        bind_text(b, j->script);
    bind_text(b, j->cwd);
    bind_text(b, j->out_path);
    bind_text(b, j->err_path);
    bind_text(b, j->advres);
    if (!lean)
        bind_text(b, j->env);
    bind_i64(b, j->bypass);
    bind_i64(b, j->defercount);
    bind_i64(b, j->deferred_until);
    bind_text(b, j->message);
    bind_text(b, j->mail_events);
    bind_text(b, j->mail_users);
    bind_text(b, j->features);
    bind_text(b, j->shape);
    bind_i64(b, j->vmem_mb);
    bind_i64(b, j->nice);
    bind_text(b, j->depend);
    bind_i64(b, j->array_id);
    bind_i64(b, j->array_index);
    bind_i64(b, j->array_slots);
}

/* The current row ("id, " JOB_COLS) into a zeroed j; strings allocated. */
static void job_read(sqlite3_stmt *s, struct store_job *j)
{
    int c = 0;
    j->id = (long)sqlite3_column_int64(s, c++);
    j->name = col_str(s, c++);
    j->user = col_str(s, c++);
    j->group = col_str(s, c++);
    j->uid = (long)sqlite3_column_int64(s, c++);
    j->gid = (long)sqlite3_column_int64(s, c++);
    j->account = col_str(s, c++);
    j->class_ = col_str(s, c++);
    j->qos = col_str(s, c++);
    j->tasks = sqlite3_column_int(s, c++);
    j->ppn = sqlite3_column_int(s, c++);
    j->nodes = sqlite3_column_int(s, c++);
    j->mem_mb = (long)sqlite3_column_int64(s, c++);
    j->walltime = (long)sqlite3_column_int64(s, c++);
    j->submit = (long)sqlite3_column_int64(s, c++);
    j->start_after = (long)sqlite3_column_int64(s, c++);
    j->holds = (unsigned)sqlite3_column_int64(s, c++);
    j->sysprio_mode = sqlite3_column_int(s, c++);
    j->sysprio = (long)sqlite3_column_int64(s, c++);
    j->state = (enum store_jstate)sqlite3_column_int(s, c++);
    j->start = (long)sqlite3_column_int64(s, c++);
    j->end = (long)sqlite3_column_int64(s, c++);
    j->exit_status = sqlite3_column_int(s, c++);
    j->hosts = col_str(s, c++);
    j->script = col_str(s, c++);
    j->cwd = col_str(s, c++);
    j->out_path = col_str(s, c++);
    j->err_path = col_str(s, c++);
    j->advres = col_str(s, c++);
    j->env = col_str(s, c++);
    j->bypass = (long)sqlite3_column_int64(s, c++);
    j->defercount = sqlite3_column_int(s, c++);
    j->deferred_until = (long)sqlite3_column_int64(s, c++);
    j->message = col_str(s, c++);
    j->mail_events = col_str(s, c++);
    j->mail_users = col_str(s, c++);
    j->features = col_str(s, c++);
    j->shape = col_str(s, c++);
    j->vmem_mb = (long)sqlite3_column_int64(s, c++);
    j->nice = sqlite3_column_int(s, c++);
    j->depend = col_str(s, c++);
    j->array_id = (long)sqlite3_column_int64(s, c++);
    j->array_index = (unsigned)sqlite3_column_int64(s, c++);
    j->array_slots = (unsigned)sqlite3_column_int64(s, c++);
}

int store_job_add(struct store *st, struct store_job *j, struct err *err)
{
    sqlite3_stmt *s = st->stmt[S_JOB_ADD];
    struct binder b = {s, 0, SQLITE_OK};
    job_bind(&b, j, 0);
    if (bind_run(st, &b, err, "adding a job") < 0)
        return -1;
    /* Read before anything else can insert on this connection; AUTOINCREMENT
     * makes it larger than any id ever used in this database. */
    j->id = (long)sqlite3_last_insert_rowid(st->db);
    return 0;
}

int store_job_add_as(struct store *st, const struct store_job *j, struct err *err)
{
    if (j->id <= 0)
        return err_set(err, "adding job %ld: not a job id", j->id);
    sqlite3_stmt *s = st->stmt[S_JOB_ADD_AS];
    struct binder b = {s, 0, SQLITE_OK};
    bind_i64(&b, j->id);
    job_bind(&b, j, 0);
    if (bind_run(st, &b, err, "adding a job") < 0)
        return -1;
    return 0;
}

static int job_put(struct store *st, const struct store_job *j, int lean, struct err *err)
{
    char what[64];
    snprintf(what, sizeof what, "writing job %ld", j->id);
    sqlite3_stmt *s = st->stmt[lean ? S_JOB_PUT_LEAN : S_JOB_PUT];
    struct binder b = {s, 0, SQLITE_OK};
    job_bind(&b, j, lean);
    bind_i64(&b, j->id);
    if (bind_run(st, &b, err, what) < 0)
        return -1;
    if (sqlite3_changes(st->db) == 0)
        return err_set(err, "%s: %s: no such job", st->path, what);
    return 0;
}

int store_job_put(struct store *st, const struct store_job *j, struct err *err)
{
    return job_put(st, j, 0, err);
}

int store_job_put_lean(struct store *st, const struct store_job *j, struct err *err)
{
    return job_put(st, j, 1, err);
}

int store_job_get(struct store *st, long id, struct store_job *j, struct err *err)
{
    char what[64];
    snprintf(what, sizeof what, "reading job %ld", id);
    sqlite3_stmt *s = st->stmt[S_JOB_GET];
    struct binder b = {s, 0, SQLITE_OK};
    bind_i64(&b, id);
    if (bind_check(st, &b, err, what) < 0)
        return -1;
    int rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
        memset(j, 0, sizeof *j);
        job_read(s, j);
    } else if (rc != SQLITE_DONE) {
        db_err(st, err, what);
    }
    stmt_done(s);
    return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

void store_job_free(struct store_job *j)
{
    if (!j)
        return;
    free(j->name);
    free(j->user);
    free(j->group);
    free(j->account);
    free(j->class_);
    free(j->qos);
    free(j->hosts);
    free(j->script);
    free(j->cwd);
    free(j->out_path);
    free(j->err_path);
    free(j->advres);
    free(j->depend);
    free(j->env);
    free(j->message);
    free(j->mail_events);
    free(j->mail_users);
    free(j->features);
    free(j->shape);
    memset(j, 0, sizeof *j);
}

/* Step s (bound) to the end, reading every job row into v[0..*n) (*v grown
 * as needed, *cap its room; the caller frees it, and may pass it again: the
 * active jobs' pages reuse one array instead of growing and dropping one per
 * page). With env_bytes (a lean page, at most ACTIVE_PAGE rows), the
 * column after the record is each environment's bytes, into env_bytes[i].
 * s is made ready again. On error no record is left. */
static int jobs_collect(struct store *st, sqlite3_stmt *s, struct store_job **v, size_t *cap,
                        size_t *n, long long *env_bytes, struct err *err, const char *what)
{
    size_t len = 0;
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        *v = xgrow(*v, cap, len + 1, sizeof **v);
        memset(&(*v)[len], 0, sizeof(*v)[len]);
        if (env_bytes)
            env_bytes[len] = sqlite3_column_int64(s, JOB_NCOLS + 1);
        job_read(s, &(*v)[len++]);
    }
    if (rc != SQLITE_DONE) {
        db_err(st, err, what);
        stmt_done(s);
        for (size_t i = 0; i < len; i++)
            store_job_free(&(*v)[i]);
        return -1;
    }
    stmt_done(s);
    *n = len;
    return 0;
}

/* Call fn on each of v[0..n) (with bytes[i], or 0 without bytes) until it
 * returns nonzero; free their strings (what fn took of a record it left
 * NULL), not v. */
static int jobs_feed(struct store_job *v, const long long *bytes, size_t n,
                     int (*fn)(void *ctx, struct store_job *j, long long bytes), void *ctx)
{
    int ret = 0;
    for (size_t i = 0; i < n; i++) {
        if (ret == 0)
            ret = fn(ctx, &v[i], bytes ? bytes[i] : 0);
        store_job_free(&v[i]);
    }
    return ret;
}

/* A caller's const callback under jobs_feed's (it takes nothing). */
struct const_fn {
    int (*fn)(void *ctx, const struct store_job *j);
    void *ctx;
};

static int const_feed(void *ctx, struct store_job *j, long long bytes)
{
    (void)bytes;
    struct const_fn *c = ctx;
    return c->fn(c->ctx, j);
}

/* The bytes of a lean page's jobs v[0..n) (in id order): a stored script's
 * and the job's environment's (env[i]), 0 for a job with no stored script.
 * The scripts of the page's id range are read in id order beside the page,
 * so that no job row is read twice (a join on the jobs was 7 % of a
 * 100,000-job restore, and 15 % with every job's script stored). */
static int jobs_bytes(struct store *st, const struct store_job *v, const long long *env, size_t n,
                      long long *bytes, struct err *err)
{
    sqlite3_stmt *s = st->stmt[S_SCRIPT_SIZES];
    struct binder b = {s, 0, SQLITE_OK};
    bind_i64(&b, v[0].id);
    bind_i64(&b, v[n - 1].id);
    const char *what = "reading the sizes of job scripts";
    if (bind_check(st, &b, err, what) < 0)
        return -1;
    memset(bytes, 0, n * sizeof *bytes);
    size_t i = 0;
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        long id = (long)sqlite3_column_int64(s, 0);
        while (i < n && v[i].id < id)
            i++;
        if (i < n && v[i].id == id) /* else an ended job's script, not yet pruned */
            bytes[i] = sqlite3_column_int64(s, 1) + env[i];
    }
    int ret = rc == SQLITE_DONE ? 0 : db_err(st, err, what);
    stmt_done(s);
    return ret;
}

/* Active jobs are read a page at a time: a daemon restarting with 100,000
 * jobs held every record twice at once (the rows read, then the engine's
 * and the daemon's copies) when they were read in one go (issue 31). Each
 * page is read whole before fn sees it, as store.h promises, and only the
 * ids there were at the start are read, so a job fn adds is not fed back.
 * The pages share one array, kept for the whole read: 1,024 records (320 kB)
 * rather than 4,096, so that keeping it does not raise the restore's peak. */
#define ACTIVE_PAGE 1024

static int jobs_active_pages(struct store *st, int lean,
                             int (*fn)(void *ctx, struct store_job *j, long long bytes), void *ctx,
                             struct err *err)
{
    const char *what = "loading the active jobs";
    long long last;
    if (query_int(st, "SELECT coalesce(max(id), 0) FROM jobs", &last, err, what) < 0)
        return -1;
    size_t cap = 0;
    struct store_job *v = NULL;
    long long env[ACTIVE_PAGE], bytes[ACTIVE_PAGE];
    int ret = 0;
    for (long long after = 0;;) {
        sqlite3_stmt *s = st->stmt[lean ? S_JOBS_ACTIVE_LEAN : S_JOBS_ACTIVE];
        struct binder b = {s, 0, SQLITE_OK};
        bind_i64(&b, after);
        bind_i64(&b, last);
        bind_i64(&b, ACTIVE_PAGE);
        size_t n;
        if (bind_check(st, &b, err, what) < 0 ||
            jobs_collect(st, s, &v, &cap, &n, lean ? env : NULL, err, what) < 0) {
            ret = -1;
            break;
        }
        if (n == 0)
            break;
        if (lean && jobs_bytes(st, v, env, n, bytes, err) < 0) {
            for (size_t i = 0; i < n; i++)
                store_job_free(&v[i]);
            ret = -1;
            break;
        }
        after = v[n - 1].id;
        ret = jobs_feed(v, lean ? bytes : NULL, n, fn, ctx);
        if (ret != 0 || n < ACTIVE_PAGE)
            break;
    }
    free(v);
    return ret;
}

/* The pages pass the whole jobs table through SQLite's page cache once,
 * and nothing reads those pages again soon: with the default cache
 * (2,000 KiB) they stayed, 2 MB of a 100,000-job restore's peak memory
 * (issue 31). So the read runs with a small cache, and the connection's
 * own size is put back after (a cache shrunk frees its pages; put back, it
 * grows again only as pages are read). */
#define ACTIVE_CACHE "PRAGMA cache_size = -256" /* KiB */

static int jobs_active(struct store *st, int lean,
                       int (*fn)(void *ctx, struct store_job *j, long long bytes), void *ctx,
                       struct err *err)
{
    const char *what = "loading the active jobs";
    long long size;
    if (query_int(st, "PRAGMA cache_size", &size, err, what) < 0 ||
        exec(st, ACTIVE_CACHE, err, what) < 0)
        return -1;
    int ret = jobs_active_pages(st, lean, fn, ctx, err);
    char sql[64];
    snprintf(sql, sizeof sql, "PRAGMA cache_size = %lld", size);
    struct err e;
    if (exec(st, sql, &e, what) < 0 && ret >= 0)
        ret = err_set(err, "%s", e.msg);
    return ret;
}

int store_jobs_active(struct store *st, int (*fn)(void *ctx, const struct store_job *j), void *ctx,
                      struct err *err)
{
    struct const_fn c = {fn, ctx};
    return jobs_active(st, 0, const_feed, &c, err);
}

int store_jobs_active_lean(struct store *st,
                           int (*fn)(void *ctx, struct store_job *j, long long bytes), void *ctx,
                           struct err *err)
{
    return jobs_active(st, 1, fn, ctx, err);
}

/* max is the number of jobs at most: 0 gives none (pass SIZE_MAX for all). */
int store_jobs_ended(struct store *st, long since, size_t max,
                     int (*fn)(void *ctx, const struct store_job *j), void *ctx, struct err *err)
{
    const char *what = "loading the ended jobs";
    sqlite3_stmt *s = st->stmt[S_JOBS_ENDED];
    struct binder b = {s, 0, SQLITE_OK};
    bind_i64(&b, since);
    bind_i64(&b, max > INT64_MAX ? INT64_MAX : (long long)max);
    struct store_job *v = NULL;
    size_t cap = 0, n;
    int ret = -1;
    if (bind_check(st, &b, err, what) == 0 &&
        jobs_collect(st, s, &v, &cap, &n, NULL, err, what) == 0) {
        struct const_fn c = {fn, ctx};
        ret = jobs_feed(v, NULL, n, const_feed, &c);
    }
    free(v);
    return ret;
}

/* ---- nodes, fairshare and events: rows of (text, text, int, int, real) ---- */

struct row {
    char *s1, *s2;
    long long i1, i2;
    double d;
};

static void rows_free(struct row *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(v[i].s1);
        free(v[i].s2);
    }
    free(v);
}

/* As jobs_collect, for the five-column queries. */
static int rows_collect(struct store *st, sqlite3_stmt *s, struct row **out, size_t *n,
                        struct err *err, const char *what)
{
    struct row *v = NULL;
    size_t len = 0, cap = 0;
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        v = xgrow(v, &cap, len + 1, sizeof *v);
        v[len++] = (struct row){col_str(s, 0), col_str(s, 1), sqlite3_column_int64(s, 2),
                                sqlite3_column_int64(s, 3), sqlite3_column_double(s, 4)};
    }
    if (rc != SQLITE_DONE) {
        db_err(st, err, what);
        stmt_done(s);
        rows_free(v, len);
        return -1;
    }
    stmt_done(s);
    *out = v;
    *n = len;
    return 0;
}

/* The rule of every loader of rows: check the binding, read all the rows
 * before the first call back (fn may write to the store, which a statement
 * still stepping would read half-done), call each(row, arg) until it
 * returns nonzero, free. Returns each's last return, or -1 with err. */
static int rows_feed(struct store *st, struct binder *b, struct err *err, const char *what,
                     int (*each)(const struct row *r, void *arg), void *arg)
{
    struct row *v;
    size_t n;
    if (bind_check(st, b, err, what) < 0 || rows_collect(st, b->s, &v, &n, err, what) < 0)
        return -1;
    int ret = 0;
    for (size_t i = 0; i < n && ret == 0; i++)
        ret = each(&v[i], arg);
    rows_free(v, n);
    return ret;
}

/* The loaders whose callback takes two texts (node and state, key and
 * value). */
struct pair_fn {
    int (*fn)(void *ctx, const char *a, const char *b);
    void *ctx;
};

static int pair_row(const struct row *r, void *arg)
{
    const struct pair_fn *p = arg;
    return p->fn(p->ctx, r->s1, r->s2);
}

/* The rule of the two-text tables whose NULL value means "no entry" (a
 * node's administrative state, a key's value): set writes (name, value),
 * del removes name's row. */
static int pair_set(struct store *st, enum stmt_id set, enum stmt_id del, const char *name,
                    const char *value, struct err *err, const char *what)
{
    struct binder b = {st->stmt[value ? set : del], 0, SQLITE_OK};
    bind_text(&b, name);
    if (value)
        bind_text(&b, value);
    return bind_run(st, &b, err, what);
}

/* A NULL state removes the node's entry (it has no administrative state). */
int store_node_state(struct store *st, const char *node, const char *state, struct err *err)
{
    char what[128];
    snprintf(what, sizeof what, "setting the state of node '%s'", node ? node : "(null)");
    return pair_set(st, S_NODE_SET, S_NODE_DEL, node, state, err, what);
}

/* In name order. */
int store_nodes(struct store *st, int (*fn)(void *ctx, const char *node, const char *state),
                void *ctx, struct err *err)
{
    struct binder b = {st->stmt[S_NODES], 0, SQLITE_OK};
    struct pair_fn p = {fn, ctx};
    return rows_feed(st, &b, err, "loading the node states", pair_row, &p);
}

int store_fs_put(struct store *st, const char *kind, const char *name, long window, double usage,
                 struct err *err)
{
    char what[160];
    snprintf(what, sizeof what, "writing fairshare usage of %s '%s' window %ld",
             kind ? kind : "(null)", name ? name : "(null)", window);
    sqlite3_stmt *s = st->stmt[S_FS_PUT];
    struct binder b = {s, 0, SQLITE_OK};
    bind_text(&b, kind);
    bind_text(&b, name);
    bind_i64(&b, window);
    bind_double(&b, usage);
    return bind_run(st, &b, err, what);
}

struct fs_fn {
    int (*fn)(void *ctx, const char *kind, const char *name, long window, double usage);
    void *ctx;
};

static int fs_row(const struct row *r, void *arg)
{
    const struct fs_fn *f = arg;
    return f->fn(f->ctx, r->s1, r->s2, (long)r->i1, r->d);
}

/* In window order, then kind and name; fn's return as in store_jobs_active. */
int store_fs_load(struct store *st, long since,
                  int (*fn)(void *ctx, const char *kind, const char *name, long window,
                            double usage),
                  void *ctx, struct err *err)
{
    struct binder b = {st->stmt[S_FS_LOAD], 0, SQLITE_OK};
    bind_i64(&b, since);
    struct fs_fn f = {fn, ctx};
    return rows_feed(st, &b, err, "loading fairshare usage", fs_row, &f);
}

/* ---- kv ---- */

/* A NULL value removes the key. */
int store_kv_set(struct store *st, const char *key, const char *value, struct err *err)
{
    char what[128];
    snprintf(what, sizeof what, "setting '%s'", key ? key : "(null)");
    return pair_set(st, S_KV_SET, S_KV_DEL, key, value, err, what);
}

/* A value that does not fit in len bytes (its NUL included) is an error,
 * not a silent cut. */
int store_kv_get(struct store *st, const char *key, char *value, size_t len, struct err *err)
{
    char what[128];
    snprintf(what, sizeof what, "reading '%s'", key ? key : "(null)");
    sqlite3_stmt *s = st->stmt[S_KV_GET];
    struct binder b = {s, 0, SQLITE_OK};
    bind_text(&b, key);
    if (bind_check(st, &b, err, what) < 0)
        return -1;
    int rc = sqlite3_step(s), ret = 0;
    if (rc == SQLITE_ROW) {
        const unsigned char *t = sqlite3_column_text(s, 0);
        size_t n = (size_t)sqlite3_column_bytes(s, 0);
        if (!t) /* NOT NULL column: only out of memory */
            ret = db_err(st, err, what);
        else if (n >= len)
            ret = err_set(err, "%s: %s: the value has %zu bytes, more than the %zu given", st->path,
                          what, n, len ? len - 1 : 0);
        else {
            memcpy(value, t, n + 1);
            ret = 1;
        }
    } else if (rc != SQLITE_DONE) {
        ret = db_err(st, err, what);
    }
    stmt_done(s);
    return ret;
}

/* The one text column of the row bound statement s selects, if any: 1 and
 * *out (caller frees), 0 when there is no row, -1 with err. The getters of
 * one text (a job's script, a token's answer) share it. */
static int text_row(struct store *st, sqlite3_stmt *s, char **out, struct err *err,
                    const char *what)
{
    int rc = sqlite3_step(s), ret = 0;
    if (rc == SQLITE_ROW) {
        const unsigned char *t = sqlite3_column_text(s, 0);
        if (t) {
            *out = xstrndup((const char *)t, (size_t)sqlite3_column_bytes(s, 0));
            ret = 1;
        } else {
            ret = db_err(st, err, what); /* NOT NULL column: only out of memory */
        }
    } else if (rc != SQLITE_DONE) {
        ret = db_err(st, err, what);
    }
    stmt_done(s);
    return ret;
}

/* ---- job scripts ---- */

int store_script_put(struct store *st, long id, const char *text, struct err *err)
{
    const char *what = "storing a job script";
    sqlite3_stmt *s = st->stmt[S_SCRIPT_PUT];
    struct binder b = {s, 0, SQLITE_OK};
    bind_i64(&b, id);
    bind_text(&b, text ? text : "");
    return bind_run(st, &b, err, what);
}

int store_script_get(struct store *st, long id, char **text, struct err *err)
{
    const char *what = "reading a job script";
    sqlite3_stmt *s = st->stmt[S_SCRIPT_GET];
    struct binder b = {s, 0, SQLITE_OK};
    bind_i64(&b, id);
    *text = NULL;
    if (bind_check(st, &b, err, what) < 0)
        return -1;
    return text_row(st, s, text, err, what);
}

int store_script_del(struct store *st, long id, struct err *err)
{
    const char *what = "forgetting a job script";
    sqlite3_stmt *s = st->stmt[S_SCRIPT_DEL];
    struct binder b = {s, 0, SQLITE_OK};
    bind_i64(&b, id);
    return bind_run(st, &b, err, what);
}

int store_scripts_prune(struct store *st, struct err *err)
{
    return stmt_run(st, st->stmt[S_SCRIPTS_PRUNE], err, "forgetting ended jobs' scripts");
}

/* In key order. */
int store_kv_each(struct store *st, const char *prefix,
                  int (*fn)(void *ctx, const char *key, const char *value), void *ctx,
                  struct err *err)
{
    char what[128];
    snprintf(what, sizeof what, "reading the keys '%s...'", prefix ? prefix : "(null)");
    struct binder b = {st->stmt[S_KV_EACH], 0, SQLITE_OK};
    bind_text(&b, prefix);
    struct pair_fn p = {fn, ctx};
    return rows_feed(st, &b, err, what, pair_row, &p);
}

/* ---- events ---- */

int store_event(struct store *st, long time, long job, const char *kind, const char *text,
                struct err *err)
{
    const char *what = "logging an event";
    sqlite3_stmt *s = st->stmt[S_EVENT];
    struct binder b = {s, 0, SQLITE_OK};
    bind_i64(&b, time);
    bind_i64(&b, job);
    bind_text(&b, kind);
    bind_text(&b, text);
    return bind_run(st, &b, err, what);
}

struct event_fn {
    int (*fn)(void *ctx, long time, long job, const char *kind, const char *text);
    void *ctx;
};

static int event_row(const struct row *r, void *arg)
{
    const struct event_fn *e = arg;
    return e->fn(e->ctx, (long)r->i1, (long)r->i2, r->s1, r->s2);
}

/* In the order logged (event id), which is oldest first even if the clock
 * stepped back; max as in store_jobs_ended. */
int store_events(struct store *st, size_t max,
                 int (*fn)(void *ctx, long time, long job, const char *kind, const char *text),
                 void *ctx, struct err *err)
{
    struct binder b = {st->stmt[S_EVENTS], 0, SQLITE_OK};
    bind_i64(&b, max > INT64_MAX ? INT64_MAX : (long long)max);
    struct event_fn e = {fn, ctx};
    return rows_feed(st, &b, err, "loading the event log", event_row, &e);
}

/* ---- request tokens ---- */

int store_token_get(struct store *st, long uid, const char *token, char **reply, struct err *err)
{
    const char *what = "reading a request token";
    sqlite3_stmt *s = st->stmt[S_TOKEN_GET];
    struct binder b = {s, 0, SQLITE_OK};
    bind_i64(&b, uid);
    bind_text(&b, token);
    *reply = NULL;
    if (bind_check(st, &b, err, what) < 0)
        return -1;
    return text_row(st, s, reply, err, what);
}

int store_token_put(struct store *st, long uid, const char *token, long time, const char *reply,
                    struct err *err)
{
    const char *what = "saving a request token";
    sqlite3_stmt *s = st->stmt[S_TOKEN_PUT];
    struct binder b = {s, 0, SQLITE_OK};
    bind_i64(&b, uid);
    bind_text(&b, token);
    bind_i64(&b, time);
    bind_text(&b, reply);
    return bind_run(st, &b, err, what);
}

int store_tokens_prune(struct store *st, long before, struct err *err)
{
    sqlite3_stmt *s = st->stmt[S_TOKENS_PRUNE];
    struct binder b = {s, 0, SQLITE_OK};
    bind_i64(&b, before);
    return bind_run(st, &b, err, "forgetting old request tokens");
}

/* ---- the web view's history ---- */

int store_hist_put(struct store *st, const long long v[STORE_HIST_COLS], long before,
                   struct err *err)
{
    const char *what = "saving the history";
    sqlite3_stmt *s = st->stmt[S_HIST_PUT];
    struct binder b = {s, 0, SQLITE_OK};
    for (int i = 0; i < STORE_HIST_COLS; i++)
        bind_i64(&b, v[i]);
    if (bind_run(st, &b, err, what) < 0)
        return -1;
    s = st->stmt[S_HIST_PRUNE];
    b = (struct binder){s, 0, SQLITE_OK};
    bind_i64(&b, before);
    return bind_run(st, &b, err, what);
}

int store_hist_load(struct store *st, long since,
                    void (*fn)(void *ctx, const long long v[STORE_HIST_COLS]), void *ctx,
                    struct err *err)
{
    const char *what = "loading the history";
    sqlite3_stmt *s = st->stmt[S_HIST_LOAD];
    struct binder b = {s, 0, SQLITE_OK};
    bind_i64(&b, since);
    if (bind_check(st, &b, err, what) < 0)
        return -1;
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        long long v[STORE_HIST_COLS];
        for (int i = 0; i < STORE_HIST_COLS; i++)
            v[i] = sqlite3_column_int64(s, i);
        fn(ctx, v);
    }
    int ret = rc == SQLITE_DONE ? 0 : db_err(st, err, what);
    stmt_done(s);
    return ret;
}
