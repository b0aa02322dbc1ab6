/*
 * t_store — tests of the daemon's SQLite store (store/store): creating,
 * reopening and refusing databases (newer schema, not moku's, bad path),
 * a round trip of every job field with and without strings, ids that
 * continue across restarts and are never reused, the job queries (active,
 * ended), nodes, fairshare, kv, the event log, reservations (round
 * trip, replacement, refused writes, hostile rows), the upgrade of a
 * version-1 database, transactions (grouping, rollback, misuse), group
 * commit (savepoints of one transaction, durable at the group's close), and
 * durability: a child adding jobs is killed with
 * SIGKILL at a random moment, and the database must hold every job it had
 * reported committed, whole, and nothing half-written.
 */
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include "store/store.h"
#include "store/store_int.h" /* the connection: its page cache's size */
#include "test.h"
#include "util/mem.h"

/* ---- helpers: a temporary directory, direct SQLite access ---- */

static char tmpdir[64];

static void tmpdir_make(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/t_store_XXXXXX");
    CHECK(mkdtemp(tmpdir) != NULL);
}

/* Remove the files in tmpdir (the database, its -wal and -shm), then it. */
static void tmpdir_remove(void)
{
    DIR *d = opendir(tmpdir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char p[512];
        snprintf(p, sizeof p, "%s/%s", tmpdir, e->d_name);
        unlink(p);
    }
    closedir(d);
    rmdir(tmpdir);
}

/* tmpdir/name into out[512]. */
static const char *in_tmp(char out[512], const char *name)
{
    snprintf(out, 512, "%s/%s", tmpdir, name);
    return out;
}

static struct store *open_ok(const char *path)
{
    struct err e = {""};
    struct store *st = store_open(path, &e);
    if (!st)
        fprintf(stderr, "    store_open: %s\n", e.msg);
    CHECK(st != NULL);
    return st;
}

/* Run sql on a connection of our own; -1 on error (printed). */
static int raw_exec(const char *path, const char *sql)
{
    sqlite3 *db;
    int rc = sqlite3_open(path, &db);
    if (rc == SQLITE_OK)
        rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
    if (rc != SQLITE_OK)
        fprintf(stderr, "    raw_exec %s: %s\n", sql, sqlite3_errmsg(db));
    sqlite3_close(db);
    return rc == SQLITE_OK ? 0 : -1;
}

/* The first column of the first row of sql, as text into out[256] ("" when
 * none, "error: ..." on error). */
static const char *raw_text(const char *path, const char *sql, char out[256])
{
    sqlite3 *db;
    sqlite3_stmt *s = NULL;
    snprintf(out, 256, "error");
    if (sqlite3_open(path, &db) == SQLITE_OK &&
        sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK) {
        int rc = sqlite3_step(s);
        if (rc == SQLITE_ROW)
            snprintf(out, 256, "%s", (const char *)sqlite3_column_text(s, 0));
        else if (rc == SQLITE_DONE)
            out[0] = '\0';
        else
            snprintf(out, 256, "error: %s", sqlite3_errmsg(db));
    } else {
        snprintf(out, 256, "error: %s", sqlite3_errmsg(db));
    }
    sqlite3_finalize(s);
    sqlite3_close(db);
    return out;
}

static long long raw_int(const char *path, const char *sql)
{
    char buf[256];
    return atoll(raw_text(path, sql, buf));
}

/* ---- helpers: jobs ---- */

static char *fmt_str(const char *fmt, long k)
{
    char buf[128];
    snprintf(buf, sizeof buf, fmt, k);
    return xstrdup(buf);
}

/* A job whose every field is set and derived from k. */
static void job_fill(struct store_job *j, long k)
{
    memset(j, 0, sizeof *j);
    j->name = fmt_str("job-%ld", k);
    j->user = fmt_str("user%ld", k % 7);
    j->group = fmt_str("grp%ld", k % 3);
    j->uid = 1000 + k;
    j->gid = 2000 + k;
    j->account = fmt_str("acct%ld", k);
    j->class_ = fmt_str("batch%ld", k);
    j->qos = fmt_str("qos%ld", k);
    j->tasks = (int)(k % 64) + 1;
    j->ppn = (int)(k % 4) + 1;
    j->nodes = (int)(k % 16);
    j->mem_mb = 1024 * k;
    j->walltime = 3600 + k;
    j->submit = 1700000000 + k;
    j->start_after = 1700000100 + k;
    j->holds = (unsigned)(k % 8);
    j->sysprio_mode = (int)(k % 3);
    j->sysprio = -5 * k;
    j->state = (enum store_jstate)(k % 5);
    j->start = 1700000200 + k;
    j->end = 1700000300 + k;
    j->exit_status = (int)(k % 256) - 1;
    j->hosts = fmt_str("n%ld:2,n2:4", k);
    j->script = fmt_str("/var/spool/moku/%ld.sh", k);
    j->cwd = fmt_str("/home/u/%ld", k);
    j->out_path = fmt_str("/home/u/%ld.out", k);
    j->err_path = fmt_str("/home/u/%ld.err", k);
    j->advres = fmt_str("res%ld", k);
    j->depend = k % 2 ? fmt_str("afterok:%ld", k + 1) : NULL;
    j->array_id = k % 3 ? k - 1 : 0;
    j->array_index = (unsigned)(k * 7);
    j->array_slots = (unsigned)(k % 4);
    j->env = fmt_str("A=%ld\nB=x y\n", k);
    j->bypass = k * 3;
    j->defercount = (int)(k % 5);
    j->deferred_until = 1700000400 + k;
    j->message = fmt_str("job %ld: /x: cannot open the output file", k);
    j->mail_events = xstrdup(k % 2 ? "abe" : "n");
    j->mail_users = fmt_str("u%ld@example.org,root", k);
    j->features = fmt_str("f%ld,bigmem", k);
    j->shape = k % 2 ? fmt_str("tpn=%ld mem_node=-1 exclusive", k % 4 + 1) : NULL;
    j->vmem_mb = k * 100;
    j->nice = (int)(k % 40) - 20;
}

static int str_same(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

/* Every field of a and b agrees (ids included). */
static void check_job_eq(const struct store_job *a, const struct store_job *b)
{
    CHECK_EQ(a->id, b->id);
    CHECK(str_same(a->name, b->name));
    CHECK(str_same(a->user, b->user));
    CHECK(str_same(a->group, b->group));
    CHECK_EQ(a->uid, b->uid);
    CHECK_EQ(a->gid, b->gid);
    CHECK(str_same(a->account, b->account));
    CHECK(str_same(a->class_, b->class_));
    CHECK(str_same(a->qos, b->qos));
    CHECK_EQ(a->tasks, b->tasks);
    CHECK_EQ(a->ppn, b->ppn);
    CHECK_EQ(a->nodes, b->nodes);
    CHECK_EQ(a->mem_mb, b->mem_mb);
    CHECK_EQ(a->walltime, b->walltime);
    CHECK_EQ(a->submit, b->submit);
    CHECK_EQ(a->start_after, b->start_after);
    CHECK_EQ(a->holds, b->holds);
    CHECK_EQ(a->sysprio_mode, b->sysprio_mode);
    CHECK_EQ(a->sysprio, b->sysprio);
    CHECK_EQ(a->state, b->state);
    CHECK_EQ(a->start, b->start);
    CHECK_EQ(a->end, b->end);
    CHECK_EQ(a->exit_status, b->exit_status);
    CHECK(str_same(a->hosts, b->hosts));
    CHECK(str_same(a->script, b->script));
    CHECK(str_same(a->cwd, b->cwd));
    CHECK(str_same(a->out_path, b->out_path));
    CHECK(str_same(a->err_path, b->err_path));
    CHECK(str_same(a->advres, b->advres));
    CHECK(str_same(a->depend, b->depend));
    CHECK_EQ(a->array_id, b->array_id);
    CHECK_EQ(a->array_index, b->array_index);
    CHECK_EQ(a->array_slots, b->array_slots);
    CHECK(str_same(a->env, b->env));
    CHECK_EQ(a->bypass, b->bypass);
    CHECK_EQ(a->defercount, b->defercount);
    CHECK_EQ(a->deferred_until, b->deferred_until);
    CHECK(str_same(a->message, b->message));
    CHECK(str_same(a->mail_events, b->mail_events));
    CHECK(str_same(a->mail_users, b->mail_users));
    CHECK(str_same(a->features, b->features));
    CHECK(str_same(a->shape, b->shape));
    CHECK_EQ(a->vmem_mb, b->vmem_mb);
    CHECK_EQ(a->nice, b->nice);
}

/* Stored job id equals job_fill(k) with id k. */
static void check_job_is(struct store *st, long id, long k)
{
    struct store_job want, got;
    struct err e = {""};
    job_fill(&want, k);
    want.id = id;
    int r = store_job_get(st, id, &got, &e);
    CHECK_EQ(r, 1);
    if (r == 1)
        check_job_eq(&got, &want);
    store_job_free(&want);
    store_job_free(&got);
}

/* Add a job with the given state and end time (other fields from job_fill);
 * returns its id. */
static long add_job(struct store *st, long k, enum store_jstate state, long end)
{
    struct store_job j;
    struct err e = {""};
    job_fill(&j, k);
    j.state = state;
    j.end = end;
    CHECK_EQ(store_job_add(st, &j, &e), 0);
    long id = j.id;
    store_job_free(&j);
    return id;
}

/* A callback that records the ids it saw into a list. */
struct idlist {
    long id[64];
    int n;
    int stop_after; /* return 99 after this many, 0 = never */
};

static int collect_id(void *ctx, const struct store_job *j)
{
    struct idlist *l = ctx;
    if (l->n < 64)
        l->id[l->n] = j->id;
    l->n++;
    return l->stop_after && l->n >= l->stop_after ? 99 : 0;
}

/* ---- opening ---- */

static void test_open_create_reopen(void)
{
    tmpdir_make();
    char path[512], buf[256];
    in_tmp(path, "moku.db");
    struct store *st = open_ok(path);
    struct stat sb;
    CHECK(stat(path, &sb) == 0);
    store_close(st);
    CHECK_STR(raw_text(path, "PRAGMA journal_mode", buf), "wal");
    CHECK_EQ(raw_int(path, "PRAGMA user_version"), 9);
    CHECK_EQ(raw_int(path, "SELECT count(*) FROM sqlite_master WHERE name IN "
                           "('jobs','nodes','fairshare','kv','events','jobs_state','jobs_end',"
                           "'resvs','resv_nodes')"),
             9);
    /* A reopen keeps what is there. */
    st = open_ok(path);
    struct err e = {""};
    CHECK_EQ(store_kv_set(st, "k", "v", &e), 0);
    store_close(st);
    st = open_ok(path);
    char v[16];
    CHECK_EQ(store_kv_get(st, "k", v, sizeof v, &e), 1);
    CHECK_STR(v, "v");
    store_close(st);
    store_close(NULL);
    tmpdir_remove();
}

static void test_newer_schema_refused(void)
{
    tmpdir_make();
    char path[512];
    in_tmp(path, "moku.db");
    store_close(open_ok(path));
    CHECK_EQ(raw_exec(path, "PRAGMA user_version = 999"), 0);
    struct err e = {""};
    CHECK(store_open(path, &e) == NULL);
    CHECK_HAS(e.msg, path);
    CHECK_HAS(e.msg, "999");
    CHECK_HAS(e.msg, "newer");
    CHECK_EQ(raw_int(path, "PRAGMA user_version"), 999); /* untouched */
    tmpdir_remove();
}

static void test_foreign_files_refused(void)
{
    tmpdir_make();
    char path[512];
    struct err e = {""};
    /* A SQLite database of something else. */
    in_tmp(path, "other.db");
    CHECK_EQ(raw_exec(path, "CREATE TABLE t (x)"), 0);
    CHECK(store_open(path, &e) == NULL);
    CHECK_HAS(e.msg, path);
    CHECK_HAS(e.msg, "not a moku database");
    /* Not a database at all. */
    in_tmp(path, "text.db");
    FILE *fp = fopen(path, "w");
    CHECK(fp != NULL);
    if (fp) {
        for (int i = 0; i < 100; i++)
            fputs("this is not a database file at all\n", fp);
        fclose(fp);
    }
    e.msg[0] = '\0';
    CHECK(store_open(path, &e) == NULL);
    CHECK_HAS(e.msg, path);
    tmpdir_remove();
}

static void test_bad_path(void)
{
    tmpdir_make();
    char path[512];
    in_tmp(path, "no/such/dir/moku.db");
    struct err e = {""};
    CHECK(store_open(path, &e) == NULL);
    CHECK_HAS(e.msg, path);
    tmpdir_remove();
}

/* ---- jobs ---- */

/* A resource manager's job under its own id (Slurm's): kept, read back,
 * refused a second time; ids the store gives later stay above it. */
static void test_job_add_as(void)
{
    tmpdir_make();
    char path[512];
    struct store *st = open_ok(in_tmp(path, "moku.db"));
    struct err e = {""};
    struct store_job a, got;
    job_fill(&a, 3);
    a.id = 4242;
    CHECK_EQ(store_job_add_as(st, &a, &e), 0);
    CHECK_EQ(store_job_get(st, 4242, &got, &e), 1);
    check_job_eq(&got, &a);
    store_job_free(&got);
    CHECK_EQ(store_job_add_as(st, &a, &e), -1); /* the id is taken */
    a.id = 0;
    CHECK_EQ(store_job_add_as(st, &a, &e), -1);
    CHECK_HAS(e.msg, "not a job id");
    CHECK_EQ(store_job_add(st, &a, &e), 0);
    CHECK(a.id > 4242);
    store_job_free(&a);
    store_close(st);
    tmpdir_remove();
}

static void test_job_round_trip(void)
{
    tmpdir_make();
    char path[512];
    struct store *st = open_ok(in_tmp(path, "moku.db"));
    struct err e = {""};
    struct store_job a, b, got;

    /* Every field set. */
    job_fill(&a, 42);
    a.id = 12345; /* ignored */
    CHECK_EQ(store_job_add(st, &a, &e), 0);
    CHECK_EQ(a.id, 1);
    CHECK_EQ(store_job_get(st, a.id, &got, &e), 1);
    check_job_eq(&got, &a);
    store_job_free(&got);

    /* Every string NULL, numbers at their extremes. */
    memset(&b, 0, sizeof b);
    b.uid = -1;
    b.sysprio = -2147483648L;
    b.exit_status = -1;
    b.holds = 0xffffffffu;
    b.state = SJ_REMOVED;
    b.mem_mb = 1L << 40;
    CHECK_EQ(store_job_add(st, &b, &e), 0);
    CHECK_EQ(b.id, 2);
    CHECK_EQ(store_job_get(st, b.id, &got, &e), 1);
    check_job_eq(&got, &b);
    CHECK(got.name == NULL && got.env == NULL && got.hosts == NULL);
    store_job_free(&got);

    /* Put: the strings of a become NULL and the other way round. */
    struct store_job c;
    job_fill(&c, 7);
    c.id = b.id;
    CHECK_EQ(store_job_put(st, &c, &e), 0);
    store_job_free(&a);
    memset(&a, 0, sizeof a);
    a.id = 1;
    a.state = SJ_RUNNING;
    a.hosts = xstrdup("n1:2");
    CHECK_EQ(store_job_put(st, &a, &e), 0);
    store_close(st); /* and read back after a restart */
    st = open_ok(path);
    CHECK_EQ(store_job_get(st, 1, &got, &e), 1);
    check_job_eq(&got, &a);
    store_job_free(&got);
    CHECK_EQ(store_job_get(st, 2, &got, &e), 1);
    check_job_eq(&got, &c);
    store_job_free(&got);

    /* Missing jobs. */
    CHECK_EQ(store_job_get(st, 3, &got, &e), 0);
    c.id = 99;
    e.msg[0] = '\0';
    CHECK_EQ(store_job_put(st, &c, &e), -1);
    CHECK_HAS(e.msg, path);
    CHECK_HAS(e.msg, "99");
    CHECK_HAS(e.msg, "no such job");

    /* A bad state is refused by the schema, and the message names the file. */
    c.id = 1;
    c.state = (enum store_jstate)9;
    e.msg[0] = '\0';
    CHECK_EQ(store_job_put(st, &c, &e), -1);
    CHECK_HAS(e.msg, path);
    CHECK_EQ(store_job_add(st, &c, &e), -1);
    CHECK_EQ(store_job_get(st, 1, &got, &e), 1);
    CHECK_EQ(got.state, SJ_RUNNING);
    store_job_free(&got);

    store_job_free(&a);
    store_job_free(&c);
    memset(&got, 0, sizeof got);
    store_job_free(&got); /* a zeroed record */
    store_job_free(NULL);
    store_close(st);
    tmpdir_remove();
}

static void test_ids_continue_never_reused(void)
{
    tmpdir_make();
    char path[512];
    struct store *st = open_ok(in_tmp(path, "moku.db"));
    CHECK_EQ(add_job(st, 1, SJ_IDLE, 0), 1);
    CHECK_EQ(add_job(st, 2, SJ_IDLE, 0), 2);
    CHECK_EQ(add_job(st, 3, SJ_IDLE, 0), 3);
    store_close(st);
    st = open_ok(path);
    CHECK_EQ(add_job(st, 4, SJ_IDLE, 0), 4);
    store_close(st);
    /* The store has no delete; should a job row ever go (by hand, or a
     * future purge), its id still is not given again. */
    CHECK_EQ(raw_exec(path, "DELETE FROM jobs WHERE id >= 3"), 0);
    st = open_ok(path);
    CHECK_EQ(add_job(st, 5, SJ_IDLE, 0), 5);
    store_close(st);
    tmpdir_remove();
}

/* A callback that writes to the store while the query's results are being
 * delivered: every active job becomes RUNNING. */
static int start_each(void *ctx, const struct store_job *j)
{
    struct store *st = ctx;
    struct store_job copy = *j;
    struct err e = {""};
    copy.state = SJ_RUNNING;
    return store_job_put(st, &copy, &e) == 0 ? 0 : 1;
}

static void test_jobs_active(void)
{
    tmpdir_make();
    char path[512];
    struct store *st = open_ok(in_tmp(path, "moku.db"));
    struct err e = {""};
    enum store_jstate states[] = {SJ_COMPLETED, SJ_IDLE, SJ_RUNNING,  SJ_REMOVED,
                                  SJ_SUSPENDED, SJ_IDLE, SJ_COMPLETED};
    for (int i = 0; i < 7; i++)
        add_job(st, i, states[i], 100 + i);
    struct idlist l = {{0}, 0, 0};
    CHECK_EQ(store_jobs_active(st, collect_id, &l, &e), 0);
    CHECK_EQ(l.n, 4);
    CHECK_EQ(l.id[0], 2);
    CHECK_EQ(l.id[1], 3);
    CHECK_EQ(l.id[2], 5);
    CHECK_EQ(l.id[3], 6);
    /* Stopping: fn's value comes back. */
    struct idlist l2 = {{0}, 0, 2};
    CHECK_EQ(store_jobs_active(st, collect_id, &l2, &e), 99);
    CHECK_EQ(l2.n, 2);
    /* A callback may write to the store. */
    CHECK_EQ(store_jobs_active(st, start_each, st, &e), 0);
    struct store_job got;
    CHECK_EQ(store_job_get(st, 6, &got, &e), 1);
    CHECK_EQ(got.state, SJ_RUNNING);
    store_job_free(&got);
    /* Nothing active. */
    store_close(st);
    tmpdir_remove();
    tmpdir_make();
    st = open_ok(in_tmp(path, "moku.db"));
    struct idlist l3 = {{0}, 0, 0};
    CHECK_EQ(store_jobs_active(st, collect_id, &l3, &e), 0);
    CHECK_EQ(l3.n, 0);
    store_close(st);
    tmpdir_remove();
}

/* Pages (issue 31): every active job once, in id order, across pages; a
 * job fn adds is not fed back; a stop in a later page returns fn's value. */
struct pages {
    struct store *st;
    long last, n, added;
    int order_ok, stop_at;
};

static int page_each(void *ctx, const struct store_job *j)
{
    struct pages *p = ctx;
    p->order_ok &= j->id > p->last;
    p->last = j->id;
    p->n++;
    if (p->n == 10) /* a job added while the first page is fed */
        p->added = add_job(p->st, 1, SJ_IDLE, 0);
    return p->stop_at && p->n == p->stop_at ? 7 : 0;
}

/* The connection's page cache size (PRAGMA cache_size). */
static long long cache_size(struct store *st)
{
    sqlite3_stmt *q;
    long long v = 0;
    if (sqlite3_prepare_v2(st->db, "PRAGMA cache_size", -1, &q, NULL) == SQLITE_OK &&
        sqlite3_step(q) == SQLITE_ROW)
        v = sqlite3_column_int64(q, 0);
    sqlite3_finalize(q);
    return v;
}

static void test_jobs_active_pages(void)
{
    tmpdir_make();
    char path[512];
    struct store *st = open_ok(in_tmp(path, "moku.db"));
    struct err e = {""};
    CHECK_EQ(store_begin(st, &e), 0);
    long active = 0;
    for (int i = 0; i < 10000; i++) {
        enum store_jstate state = i % 3 == 2 ? SJ_COMPLETED : SJ_IDLE;
        add_job(st, i, state, 0);
        active += state == SJ_IDLE;
    }
    CHECK_EQ(store_commit(st, &e), 0);
    /* The read runs with a small page cache: the connection's own size is
     * put back after it, whether it read to the end or fn stopped it. */
    CHECK_EQ(sqlite3_exec(st->db, "PRAGMA cache_size = -1234", NULL, NULL, NULL), SQLITE_OK);
    struct pages p = {st, 0, 0, 0, 1, 0};
    CHECK_EQ(store_jobs_active(st, page_each, &p, &e), 0);
    CHECK_EQ(p.n, active);
    CHECK(p.order_ok);
    CHECK(p.added > 10000);
    CHECK(p.last < p.added);
    CHECK_EQ(cache_size(st), -1234);
    struct pages q = {st, 0, 0, 0, 1, 5000};
    CHECK_EQ(store_jobs_active(st, page_each, &q, &e), 7);
    CHECK_EQ(q.n, 5000);
    CHECK_EQ(cache_size(st), -1234);
    store_close(st);
    tmpdir_remove();
}

/* store_jobs_active_lean (issue 31): fn keeps a record whole or takes one
 * string; what it left is freed (ASan: no leak, no double free), and what
 * it kept is the row, intact after the store let go of it, but for its
 * script and environment (NULL: lean). A lean record written back leaves
 * them as stored; the script sizes count the environment too. */
struct taken {
    struct store_job whole; /* the first record, taken whole */
    char *name;             /* the second one's name, taken alone */
    long n;
    long long bytes[2]; /* what fn was told of the first two's script and environment */
};

static int take_each(void *ctx, struct store_job *j, long long bytes)
{
    struct taken *t = ctx;
    t->bytes[t->n < 2 ? t->n : 1] = bytes;
    if (t->n == 0) {
        t->whole = *j;
        memset(j, 0, sizeof *j);
    } else if (t->n == 1) {
        t->name = j->name;
        j->name = NULL;
    }
    t->n++;
    return 0;
}

static void test_jobs_active_lean(void)
{
    tmpdir_make();
    char path[512];
    struct store *st = open_ok(in_tmp(path, "moku.db"));
    struct err e = {""};
    struct store_job want;
    job_fill(&want, 3);
    add_job(st, 3, SJ_IDLE, 0);
    add_job(st, 4, SJ_COMPLETED, 10);
    add_job(st, 5, SJ_RUNNING, 0);
    struct taken t = {{0}, NULL, 0, {-1, -1}};
    CHECK_EQ(store_jobs_active_lean(st, take_each, &t, &e), 0);
    CHECK_EQ(t.n, 2);
    CHECK_EQ(t.bytes[0], 0); /* no script stored: nothing counted, environment neither */
    CHECK_EQ(t.bytes[1], 0);
    CHECK_EQ(t.whole.id, 1);
    CHECK_STR(t.whole.user, want.user);
    CHECK_STR(t.whole.name, want.name);
    CHECK_STR(t.whole.cwd, want.cwd);
    CHECK(t.whole.script == NULL);
    CHECK(t.whole.env == NULL);
    CHECK(t.name != NULL);
    /* Written back lean, with a change: the change is stored, the script
     * path and environment are kept. */
    t.whole.holds = 5;
    CHECK_EQ(store_job_put_lean(st, &t.whole, &e), 0);
    struct store_job got;
    CHECK_EQ(store_job_get(st, 1, &got, &e), 1);
    CHECK_EQ(got.holds, 5);
    CHECK_STR(got.script, want.script);
    CHECK_STR(got.env, want.env);
    CHECK_STR(got.name, want.name);
    store_job_free(&got);
    /* A lean put of a job that is not there is an error, as store_job_put's. */
    t.whole.id = 999;
    CHECK_EQ(store_job_put_lean(st, &t.whole, &e), -1);
    /* The bytes of job 1: its script's and its environment's; job 2's
     * script (ended, not yet pruned) is skipped. */
    CHECK_EQ(store_script_put(st, 1, "#!/bin/sh\n", &e), 0);
    CHECK_EQ(store_script_put(st, 2, "x", &e), 0);
    store_job_free(&t.whole);
    free(t.name);
    t = (struct taken){{0}, NULL, 0, {-1, -1}};
    CHECK_EQ(store_jobs_active_lean(st, take_each, &t, &e), 0);
    CHECK_EQ(t.n, 2);
    CHECK_EQ(t.bytes[0], (long long)(strlen("#!/bin/sh\n") + strlen(want.env)));
    CHECK_EQ(t.bytes[1], 0); /* job 3, whose script was not stored */
    store_job_free(&t.whole);
    free(t.name);
    store_job_free(&want);
    store_close(st);
    tmpdir_remove();
}

static void test_jobs_ended(void)
{
    tmpdir_make();
    char path[512];
    struct store *st = open_ok(in_tmp(path, "moku.db"));
    struct err e = {""};
    add_job(st, 1, SJ_COMPLETED, 500); /* 1 */
    add_job(st, 2, SJ_RUNNING, 900);   /* 2: not ended, whatever its end says */
    add_job(st, 3, SJ_REMOVED, 700);   /* 3 */
    add_job(st, 4, SJ_COMPLETED, 100); /* 4 */
    add_job(st, 5, SJ_COMPLETED, 700); /* 5: same end as 3 */
    add_job(st, 6, SJ_IDLE, 0);        /* 6 */
    add_job(st, 7, SJ_COMPLETED, 600); /* 7 */

    struct idlist l = {{0}, 0, 0};
    CHECK_EQ(store_jobs_ended(st, 0, SIZE_MAX, collect_id, &l, &e), 0);
    CHECK_EQ(l.n, 5);
    long want[] = {5, 3, 7, 1, 4}; /* newest first, then the higher id */
    for (int i = 0; i < 5 && i < l.n; i++)
        CHECK_EQ(l.id[i], want[i]);

    struct idlist l2 = {{0}, 0, 0};
    CHECK_EQ(store_jobs_ended(st, 600, SIZE_MAX, collect_id, &l2, &e), 0);
    CHECK_EQ(l2.n, 3); /* at or after 600 */
    CHECK_EQ(l2.id[2], 7);

    struct idlist l3 = {{0}, 0, 0};
    CHECK_EQ(store_jobs_ended(st, 0, 2, collect_id, &l3, &e), 0);
    CHECK_EQ(l3.n, 2);
    CHECK_EQ(l3.id[0], 5);
    CHECK_EQ(l3.id[1], 3);

    struct idlist l4 = {{0}, 0, 0};
    CHECK_EQ(store_jobs_ended(st, 0, 0, collect_id, &l4, &e), 0);
    CHECK_EQ(l4.n, 0);

    struct idlist l5 = {{0}, 0, 1};
    CHECK_EQ(store_jobs_ended(st, 0, 10, collect_id, &l5, &e), 99);
    CHECK_EQ(l5.n, 1);
    store_close(st);
    tmpdir_remove();
}

/* ---- nodes, fairshare, kv, events ---- */

struct textlog {
    char text[1024];
};

static int log_node(void *ctx, const char *node, const char *state)
{
    struct textlog *t = ctx;
    size_t n = strlen(t->text);
    snprintf(t->text + n, sizeof t->text - n, "%s=%s;", node, state);
    return 0;
}

static void test_nodes(void)
{
    tmpdir_make();
    char path[512];
    struct store *st = open_ok(in_tmp(path, "moku.db"));
    struct err e = {""};
    struct textlog t = {""};
    CHECK_EQ(store_nodes(st, log_node, &t, &e), 0);
    CHECK_STR(t.text, "");
    CHECK_EQ(store_node_state(st, "n2", "Drained", &e), 0);
    CHECK_EQ(store_node_state(st, "n1", "Down", &e), 0);
    CHECK_EQ(store_node_state(st, "n3", "Down", &e), 0);
    CHECK_EQ(store_node_state(st, "n1", "Idle", &e), 0); /* replaces */
    CHECK_EQ(store_node_state(st, "n3", NULL, &e), 0);   /* removes */
    CHECK_EQ(store_node_state(st, "n9", NULL, &e), 0);   /* removing none is fine */
    store_close(st);
    st = open_ok(path);
    CHECK_EQ(store_nodes(st, log_node, &t, &e), 0);
    CHECK_STR(t.text, "n1=Idle;n2=Drained;");
    store_close(st);
    tmpdir_remove();
}

static int log_fs(void *ctx, const char *kind, const char *name, long window, double usage)
{
    struct textlog *t = ctx;
    size_t n = strlen(t->text);
    snprintf(t->text + n, sizeof t->text - n, "%s:%s@%ld=%.17g;", kind, name, window, usage);
    return 0;
}

static int stop_fs(void *ctx, const char *kind, const char *name, long window, double usage)
{
    (*(int *)ctx)++;
    return 5;
}

static void test_fairshare(void)
{
    tmpdir_make();
    char path[512];
    struct store *st = open_ok(in_tmp(path, "moku.db"));
    struct err e = {""};
    CHECK_EQ(store_fs_put(st, "user", "alice", 1000, 1.5, &e), 0);
    CHECK_EQ(store_fs_put(st, "user", "bob", 1000, 2.0, &e), 0);
    CHECK_EQ(store_fs_put(st, "sched", "TOTAL", 1000, 3.5, &e), 0);
    CHECK_EQ(store_fs_put(st, "user", "alice", 2000, 0.1, &e), 0);
    CHECK_EQ(store_fs_put(st, "user", "alice", 0, 9.0, &e), 0);
    CHECK_EQ(store_fs_put(st, "user", "alice", 1000, 4.25, &e), 0); /* replaces */
    CHECK_EQ(store_fs_put(st, "group", "alice", 1000, 7.0, &e), 0); /* another kind */
    store_close(st);
    st = open_ok(path);
    struct textlog t = {""};
    CHECK_EQ(store_fs_load(st, 1000, log_fs, &t, &e), 0);
    CHECK_STR(t.text, "group:alice@1000=7;sched:TOTAL@1000=3.5;user:alice@1000=4.25;"
                      "user:bob@1000=2;user:alice@2000=0.10000000000000001;");
    struct textlog t2 = {""};
    CHECK_EQ(store_fs_load(st, 1001, log_fs, &t2, &e), 0);
    CHECK_STR(t2.text, "user:alice@2000=0.10000000000000001;");
    struct textlog t3 = {""};
    CHECK_EQ(store_fs_load(st, 0, log_fs, &t3, &e), 0);
    CHECK_HAS(t3.text, "user:alice@0=9;");
    int calls = 0;
    CHECK_EQ(store_fs_load(st, 0, stop_fs, &calls, &e), 5);
    CHECK_EQ(calls, 1);
    /* A NULL name breaks the schema's NOT NULL: an error naming the file. */
    e.msg[0] = '\0';
    CHECK_EQ(store_fs_put(st, "user", NULL, 0, 1.0, &e), -1);
    CHECK_HAS(e.msg, path);
    store_close(st);
    tmpdir_remove();
}

static int log_kv(void *ctx, const char *key, const char *value)
{
    struct textlog *t = ctx;
    size_t n = strlen(t->text);
    snprintf(t->text + n, sizeof t->text - n, "%s=%s;", key, value);
    return 0;
}

static void test_kv(void)
{
    tmpdir_make();
    char path[512];
    struct store *st = open_ok(in_tmp(path, "moku.db"));
    struct err e = {""};
    char v[8];
    CHECK_EQ(store_kv_get(st, "paused", v, sizeof v, &e), 0);
    CHECK_EQ(store_kv_set(st, "paused", "1", &e), 0);
    CHECK_EQ(store_kv_set(st, "iterations", "1234567", &e), 0);
    CHECK_EQ(store_kv_set(st, "empty", "", &e), 0);
    CHECK_EQ(store_kv_set(st, "paused", "0", &e), 0); /* replaces */
    store_close(st);
    st = open_ok(path);
    CHECK_EQ(store_kv_get(st, "paused", v, sizeof v, &e), 1);
    CHECK_STR(v, "0");
    CHECK_EQ(store_kv_get(st, "iterations", v, sizeof v, &e), 1); /* 7 bytes + NUL fit */
    CHECK_STR(v, "1234567");
    CHECK_EQ(store_kv_get(st, "empty", v, sizeof v, &e), 1);
    CHECK_STR(v, "");
    /* Too long for the buffer: an error, not a cut. */
    CHECK_EQ(store_kv_set(st, "long", "12345678", &e), 0);
    e.msg[0] = '\0';
    CHECK_EQ(store_kv_get(st, "long", v, sizeof v, &e), -1);
    CHECK_HAS(e.msg, "long");
    CHECK_HAS(e.msg, path);
    /* A NULL value removes the key. */
    CHECK_EQ(store_kv_set(st, "paused", NULL, &e), 0);
    CHECK_EQ(store_kv_get(st, "paused", v, sizeof v, &e), 0);
    /* Keys by prefix, in key order; other keys and a LIKE pattern are not matched. */
    CHECK_EQ(store_kv_set(st, "resv.next.b", "3", &e), 0);
    CHECK_EQ(store_kv_set(st, "resv.next.a", "7", &e), 0);
    CHECK_EQ(store_kv_set(st, "resv.nextX", "9", &e), 0);
    CHECK_EQ(store_kv_set(st, "resv_next.c", "9", &e), 0);
    struct textlog t = {""};
    CHECK_EQ(store_kv_each(st, "resv.next.", log_kv, &t, &e), 0);
    CHECK_STR(t.text, "resv.next.a=7;resv.next.b=3;");
    t.text[0] = '\0';
    CHECK_EQ(store_kv_each(st, "resv%", log_kv, &t, &e), 0);
    CHECK_STR(t.text, "");
    store_close(st);
    tmpdir_remove();
}

static int log_event(void *ctx, long time, long job, const char *kind, const char *text)
{
    struct textlog *t = ctx;
    size_t n = strlen(t->text);
    snprintf(t->text + n, sizeof t->text - n, "%ld/%ld/%s/%s;", time, job, kind,
             text ? text : "NULL");
    return 0;
}

static void test_events(void)
{
    tmpdir_make();
    char path[512];
    struct store *st = open_ok(in_tmp(path, "moku.db"));
    struct err e = {""};
    struct textlog t = {""};
    CHECK_EQ(store_events(st, 10, log_event, &t, &e), 0);
    CHECK_STR(t.text, "");
    CHECK_EQ(store_event(st, 100, 1, "submit", "user alice", &e), 0);
    CHECK_EQ(store_event(st, 110, 1, "start", "n1:2", &e), 0);
    CHECK_EQ(store_event(st, 105, 0, "pause", NULL, &e), 0); /* clock stepped back */
    CHECK_EQ(store_event(st, 120, 2, "submit", "it's \"quoted\"; DROP TABLE jobs;", &e), 0);
    CHECK_EQ(store_event(st, 130, 1, "end", "exit 0", &e), 0);
    store_close(st);
    st = open_ok(path);
    CHECK_EQ(store_events(st, 3, log_event, &t, &e), 0);
    CHECK_STR(t.text, "105/0/pause/NULL;120/2/submit/it's \"quoted\"; DROP TABLE jobs;;"
                      "130/1/end/exit 0;");
    struct textlog t2 = {""};
    CHECK_EQ(store_events(st, 100, log_event, &t2, &e), 0);
    CHECK_HAS(t2.text, "100/1/submit/user alice;110/1/start/n1:2;105/0/");
    struct textlog t3 = {""};
    CHECK_EQ(store_events(st, 0, log_event, &t3, &e), 0);
    CHECK_STR(t3.text, "");
    store_close(st);
    tmpdir_remove();
}

/* ---- transactions ---- */

/* ---- reservations ---- */

/* A reservation record; nodes "n1".."n<nnodes>" with k+1 processors. */
static void resv_make(struct store_resv *r, const char *id, long created, size_t nnodes)
{
    memset(r, 0, sizeof *r);
    r->id = xstrdup(id);
    r->start = 1000;
    r->end = 5000;
    r->created = created;
    r->flags = 0x5;
    r->access = 1;
    r->acl = xstrdup(nnodes ? "USER==bob+:==carl+ GROUP==staff+*" : "");
    r->owner = nnodes ? xstrdup("bob") : NULL;
    r->owner_type = 0;
    r->priority = -7;
    r->chargeaccount = nnodes ? xstrdup("proj") : NULL;
    r->tasks = (long)nnodes;
    r->creator = nnodes ? xstrdup("alice") : NULL;
    r->creator_uid = nnodes ? 1001 : -1;
    r->nnodes = nnodes;
    r->nodes = xcalloc(nnodes + 1, sizeof *r->nodes);
    for (size_t k = 0; k < nnodes; k++)
        r->nodes[k] = (struct store_resv_node){fmt_str("n%ld", (long)k + 1), (unsigned)k + 1};
}

static int str_eq(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static int resv_same(const struct store_resv *a, const struct store_resv *b)
{
    int same = str_eq(a->id, b->id) && a->start == b->start && a->end == b->end &&
               a->created == b->created && a->flags == b->flags && a->access == b->access &&
               str_eq(a->acl, b->acl) && str_eq(a->owner, b->owner) &&
               a->owner_type == b->owner_type && a->priority == b->priority &&
               str_eq(a->chargeaccount, b->chargeaccount) && a->tasks == b->tasks &&
               str_eq(a->creator, b->creator) && a->creator_uid == b->creator_uid &&
               a->nnodes == b->nnodes;
    for (size_t k = 0; same && k < a->nnodes; k++)
        same = str_eq(a->nodes[k].name, b->nodes[k].name) && a->nodes[k].procs == b->nodes[k].procs;
    return same;
}

/* What store_resvs gave: copies, in order. */
struct resv_list {
    struct store_resv v[8];
    size_t n;
    int stop_at; /* return 1 (stop) after this many, 0 = never */
};

static int resv_collect_cb(void *ctx, const struct store_resv *r)
{
    struct resv_list *l = ctx;
    if (l->n < 8) {
        struct store_resv *c = &l->v[l->n++];
        *c = *r;
        c->id = xstrdup(r->id);
        c->acl = xstrdup(r->acl);
        c->owner = r->owner ? xstrdup(r->owner) : NULL;
        c->chargeaccount = r->chargeaccount ? xstrdup(r->chargeaccount) : NULL;
        c->creator = r->creator ? xstrdup(r->creator) : NULL;
        c->nodes = xcalloc(r->nnodes + 1, sizeof *c->nodes);
        for (size_t k = 0; k < r->nnodes; k++)
            c->nodes[k] = (struct store_resv_node){xstrdup(r->nodes[k].name), r->nodes[k].procs};
    }
    return l->stop_at && (int)l->n >= l->stop_at;
}

static void resv_list_free(struct resv_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        store_resv_free(&l->v[i]);
    l->n = 0;
}

static void test_resv_round_trip(void)
{
    tmpdir_make();
    char path[512];
    struct store *st = open_ok(in_tmp(path, "moku.db"));
    struct err e = {""};
    struct store_resv a, b, c;
    resv_make(&a, "bob.0", 200, 3);
    resv_make(&b, "SYSTEM.0", 100, 0); /* no ACL, no nodes, NULL strings */
    resv_make(&c, "bob.1", 200, 1);
    CHECK_EQ(store_resv_put(st, &a, &e), 0);
    CHECK_EQ(store_resv_put(st, &b, &e), 0);
    CHECK_EQ(store_resv_put(st, &c, &e), 0);
    store_close(st);
    st = open_ok(path);
    struct resv_list l = {.n = 0};
    CHECK_EQ(store_resvs(st, resv_collect_cb, &l, &e), 0);
    CHECK_EQ(l.n, 3); /* by creation time, then the order stored */
    if (l.n == 3) {
        CHECK(resv_same(&l.v[0], &b));
        CHECK(resv_same(&l.v[1], &a));
        CHECK(resv_same(&l.v[2], &c));
    }
    resv_list_free(&l);
    /* A put of the same id replaces it, nodes included. */
    store_resv_free(&a);
    resv_make(&a, "bob.0", 200, 1);
    a.end = 9000;
    CHECK_EQ(store_resv_put(st, &a, &e), 0);
    CHECK_EQ(raw_int(path, "SELECT count(*) FROM resv_nodes WHERE resv = 'bob.0'"), 1);
    /* fn stops the load with its nonzero return. */
    l.stop_at = 1;
    CHECK_EQ(store_resvs(st, resv_collect_cb, &l, &e), 1);
    CHECK_EQ(l.n, 1);
    resv_list_free(&l);
    l.stop_at = 0;
    /* Delete; an unknown id is not an error. */
    CHECK_EQ(store_resv_del(st, "SYSTEM.0", &e), 0);
    CHECK_EQ(store_resv_del(st, "nosuch.3", &e), 0);
    CHECK_EQ(store_resvs(st, resv_collect_cb, &l, &e), 0);
    CHECK_EQ(l.n, 2);
    if (l.n == 2) {
        CHECK(resv_same(&l.v[0], &a) || resv_same(&l.v[1], &a));
        CHECK_EQ(l.v[0].end + l.v[1].end, 9000 + 5000);
    }
    resv_list_free(&l);
    /* Inside a transaction: a rollback drops the put and the delete. */
    CHECK_EQ(store_begin(st, &e), 0);
    CHECK_EQ(store_resv_put(st, &b, &e), 0);
    CHECK_EQ(store_resv_del(st, "bob.1", &e), 0);
    store_rollback(st);
    CHECK_EQ(raw_int(path, "SELECT count(*) FROM resvs"), 2);
    CHECK_EQ(raw_int(path, "SELECT count(*) FROM resvs WHERE id = 'bob.1'"), 1);
    CHECK_EQ(raw_int(path, "SELECT count(*) FROM resv_nodes"), 2);
    store_resv_free(&a);
    store_resv_free(&b);
    store_resv_free(&c);
    store_resv_free(NULL);
    store_close(st);
    tmpdir_remove();
}

/* Writes the store would not read back are refused, and write nothing. */
static void test_resv_put_refused(void)
{
    tmpdir_make();
    char path[512];
    struct store *st = open_ok(in_tmp(path, "moku.db"));
    struct err e = {""};
    struct store_resv r;
    resv_make(&r, "x.1", 1, 2);
    char *id = r.id;
    r.id = NULL;
    CHECK_EQ(store_resv_put(st, &r, &e), -1);
    CHECK_HAS(e.msg, "no id");
    r.id = id;
    r.end = r.start;
    CHECK_EQ(store_resv_put(st, &r, &e), -1);
    CHECK_HAS(e.msg, "x.1");
    r.end = r.start + 1;
    r.nodes[1].procs = 0;
    CHECK_EQ(store_resv_put(st, &r, &e), -1);
    CHECK_HAS(e.msg, "node 2");
    r.nodes[1].procs = 1;
    char *acl = r.acl;
    r.acl = NULL;
    CHECK_EQ(store_resv_put(st, &r, &e), -1);
    r.acl = acl;
    CHECK_EQ(raw_int(path, "SELECT count(*) FROM resvs"), 0);
    CHECK_EQ(raw_int(path, "SELECT count(*) FROM resv_nodes"), 0);
    store_resv_free(&r);
    store_close(st);
    tmpdir_remove();
}

static int resv_count_cb(void *ctx, const struct store_resv *r)
{
    (void)r;
    (*(int *)ctx)++;
    return 0;
}

/* Rows a hand edit or a damaged file could leave: an error naming the
 * reservation and the column, fn never called, no crash. */
static void test_resv_hostile_rows(void)
{
    static const struct {
        const char *sql; /* run after a good reservation 'good.1' is stored */
        const char *want;
    } cases[] = {
        {"UPDATE resvs SET start_time = 'soon'", "start_time"},
        {"UPDATE resvs SET end_time = 1.5", "end_time"},
        {"UPDATE resvs SET end_time = start_time", "end_time"},
        {"UPDATE resvs SET flags = -1", "flags"},
        {"UPDATE resvs SET flags = 99999999999", "flags"},
        {"UPDATE resvs SET access = x'00ff'", "access"},
        {"UPDATE resvs SET acl = x'414243'", "acl"},
        {"UPDATE resvs SET acl = 'USER==a' || char(0) || 'b'", "acl"},
        {"UPDATE resvs SET owner = ''", "owner"},
        {"UPDATE resvs SET tasks = -3", "tasks"},
        {"UPDATE resvs SET creator_uid = -2", "creator_uid"},
        {"UPDATE resvs SET id = ''", "id"},
        {"UPDATE resv_nodes SET procs = 0", "procs"},
        {"UPDATE resv_nodes SET procs = 4294967296", "procs"},
        {"UPDATE resv_nodes SET procs = 'many'", "procs"},
        {"UPDATE resv_nodes SET node = ''", "node"},
        {"UPDATE resv_nodes SET node = x'6e31'", "node"}, /* a blob */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tmpdir_make();
        char path[512];
        struct store *st = open_ok(in_tmp(path, "moku.db"));
        struct err e = {""};
        struct store_resv r;
        resv_make(&r, "good.1", 1, 2);
        CHECK_EQ(store_resv_put(st, &r, &e), 0);
        store_resv_free(&r);
        /* Foreign keys are off on this connection: the id may change. */
        CHECK_EQ(raw_exec(path, cases[i].sql), 0);
        int calls = 0;
        e.msg[0] = '\0';
        CHECK_EQ(store_resvs(st, resv_count_cb, &calls, &e), -1);
        CHECK_EQ(calls, 0);
        CHECK_HAS(e.msg, path);
        CHECK_HAS(e.msg, cases[i].want);
        if (!strstr(e.msg, cases[i].want))
            fprintf(stderr, "    case %zu: %s\n", i, cases[i].sql);
        /* The store still works: the row can be replaced. */
        resv_make(&r, "good.1", 1, 1);
        CHECK_EQ(store_resv_del(st, "", &e), 0);
        CHECK_EQ(store_resv_put(st, &r, &e), 0);
        store_resv_free(&r);
        store_close(st);
        tmpdir_remove();
    }
}

/* A version-1 database (before reservations) is upgraded in place, and a
 * version-2 one (before job messages and mail) keeps its jobs. */
static void test_schema_upgrade(void)
{
    tmpdir_make();
    char path[512];
    struct store *st = open_ok(in_tmp(path, "moku.db"));
    struct err e = {""};
    CHECK_EQ(store_kv_set(st, "k", "kept", &e), 0);
    store_close(st);
    CHECK_EQ(raw_exec(path, "DROP TABLE history; DROP TABLE tokens; DROP TABLE resv_nodes;"
                            "DROP TABLE resvs;"
                            "ALTER TABLE jobs DROP COLUMN message;"
                            "ALTER TABLE jobs DROP COLUMN mail_events;"
                            "ALTER TABLE jobs DROP COLUMN mail_users;"
                            "ALTER TABLE jobs DROP COLUMN features;"
                            "ALTER TABLE jobs DROP COLUMN shape;"
                            "ALTER TABLE jobs DROP COLUMN vmem_mb;"
                            "ALTER TABLE jobs DROP COLUMN nice;"
                            "ALTER TABLE jobs DROP COLUMN depend;"
                            "ALTER TABLE jobs DROP COLUMN array_id;"
                            "ALTER TABLE jobs DROP COLUMN array_index;"
                            "ALTER TABLE jobs DROP COLUMN array_slots; PRAGMA user_version = 1"),
             0);
    st = open_ok(path);
    CHECK_EQ(raw_int(path, "PRAGMA user_version"), 9);
    char v[8];
    CHECK_EQ(store_kv_get(st, "k", v, sizeof v, &e), 1);
    CHECK_STR(v, "kept");
    struct store_resv r;
    resv_make(&r, "after.0", 1, 1);
    CHECK_EQ(store_resv_put(st, &r, &e), 0);
    store_resv_free(&r);
    struct store_job j, got;
    job_fill(&j, 3);
    CHECK_EQ(store_job_add(st, &j, &e), 0);
    store_close(st);
    CHECK_EQ(raw_exec(path, "DROP TABLE history; DROP TABLE tokens;"
                            "ALTER TABLE jobs DROP COLUMN message;"
                            "ALTER TABLE jobs DROP COLUMN mail_events;"
                            "ALTER TABLE jobs DROP COLUMN mail_users;"
                            "ALTER TABLE jobs DROP COLUMN features;"
                            "ALTER TABLE jobs DROP COLUMN shape;"
                            "ALTER TABLE jobs DROP COLUMN vmem_mb;"
                            "ALTER TABLE jobs DROP COLUMN nice;"
                            "ALTER TABLE jobs DROP COLUMN depend;"
                            "ALTER TABLE jobs DROP COLUMN array_id;"
                            "ALTER TABLE jobs DROP COLUMN array_index;"
                            "ALTER TABLE jobs DROP COLUMN array_slots; PRAGMA user_version = 2"),
             0);
    st = open_ok(path);
    CHECK_EQ(raw_int(path, "PRAGMA user_version"), 9);
    CHECK_EQ(store_job_get(st, j.id, &got, &e), 1);
    CHECK_STR(got.name, "job-3");
    CHECK(got.message == NULL && got.mail_events == NULL && got.mail_users == NULL &&
          got.features == NULL && got.shape == NULL && got.vmem_mb == 0 && got.nice == 0 &&
          got.array_id == 0 && got.array_index == 0 && got.array_slots == 0);
    store_job_free(&got);
    store_job_free(&j);
    store_close(st);
    tmpdir_remove();
}

static void test_transactions(void)
{
    tmpdir_make();
    char path[512];
    struct store *st = open_ok(in_tmp(path, "moku.db"));
    struct err e = {""};
    struct store_job got;

    /* Grouped changes are invisible to another connection until committed. */
    CHECK_EQ(store_begin(st, &e), 0);
    CHECK_EQ(add_job(st, 1, SJ_IDLE, 0), 1);
    CHECK_EQ(add_job(st, 2, SJ_IDLE, 0), 2);
    CHECK_EQ(store_kv_set(st, "a", "1", &e), 0);
    CHECK_EQ(store_event(st, 1, 1, "submit", NULL, &e), 0);
    CHECK_EQ(raw_int(path, "SELECT count(*) FROM jobs"), 0);
    e.msg[0] = '\0';
    CHECK_EQ(store_begin(st, &e), -1); /* not nestable */
    CHECK_HAS(e.msg, path);
    CHECK_EQ(store_commit(st, &e), 0);
    CHECK_EQ(raw_int(path, "SELECT count(*) FROM jobs"), 2);
    CHECK_EQ(raw_int(path, "SELECT count(*) FROM events"), 1);

    /* Rollback drops them all. */
    CHECK_EQ(store_begin(st, &e), 0);
    long id = add_job(st, 3, SJ_IDLE, 0);
    CHECK_EQ(id, 3);
    CHECK_EQ(store_kv_set(st, "a", "2", &e), 0);
    CHECK_EQ(store_kv_set(st, "b", "2", &e), 0);
    CHECK_EQ(store_node_state(st, "n1", "Down", &e), 0);
    store_rollback(st);
    CHECK_EQ(store_job_get(st, id, &got, &e), 0);
    char v[8];
    CHECK_EQ(store_kv_get(st, "a", v, sizeof v, &e), 1);
    CHECK_STR(v, "1");
    CHECK_EQ(store_kv_get(st, "b", v, sizeof v, &e), 0);
    CHECK_EQ(raw_int(path, "SELECT count(*) FROM nodes"), 0);

    /* Misuse: commit without begin is an error, rollback without is a no-op. */
    e.msg[0] = '\0';
    CHECK_EQ(store_commit(st, &e), -1);
    CHECK_HAS(e.msg, path);
    store_rollback(st);
    /* And the store still works as before. */
    CHECK(add_job(st, 4, SJ_IDLE, 0) > 2);

    /* A transaction left open at close is dropped. */
    CHECK_EQ(store_begin(st, &e), 0);
    CHECK_EQ(store_kv_set(st, "c", "3", &e), 0);
    store_close(st);
    st = open_ok(path);
    CHECK_EQ(store_kv_get(st, "c", v, sizeof v, &e), 0);
    CHECK_EQ(store_job_get(st, 1, &got, &e), 1);
    store_job_free(&got);
    store_close(st);
    tmpdir_remove();
}

/* Group commit: begin/commit pairs inside a group are savepoints of one
 * transaction, durable (and visible to others) only at store_group_close;
 * a pair's rollback drops that pair alone; nothing joined, nothing
 * written. */
static void test_group_commit(void)
{
    tmpdir_make();
    char path[512];
    struct store *st = open_ok(in_tmp(path, "moku.db"));
    struct err e = {""};
    char v[8];

    /* A group nobody joined: no transaction, nothing to commit. */
    CHECK_EQ(store_group_open(st, &e), 0);
    CHECK_EQ(store_group_pending(st), 0);
    CHECK_EQ(store_group_close(st, &e), 0);

    CHECK_EQ(store_group_open(st, &e), 0);
    CHECK_EQ(store_group_open(st, &e), -1); /* not nestable */
    CHECK_EQ(store_begin(st, &e), 0);
    CHECK_EQ(add_job(st, 1, SJ_IDLE, 0), 1);
    CHECK_EQ(store_commit(st, &e), 0);
    CHECK_EQ(store_group_pending(st), 1);
    CHECK_EQ(store_in_transaction(st), 0); /* the pair is over; the group is not */
    CHECK_EQ(raw_int(path, "SELECT count(*) FROM jobs"), 0); /* not durable yet */
    CHECK_EQ(store_begin(st, &e), 0);
    CHECK_EQ(store_begin(st, &e), -1); /* a pair is not nestable either */
    CHECK_EQ(add_job(st, 2, SJ_IDLE, 0), 2);
    CHECK_EQ(store_kv_set(st, "x", "2", &e), 0);
    store_rollback(st); /* drops job 2 and x alone */
    CHECK_EQ(store_begin(st, &e), 0);
    CHECK_EQ(add_job(st, 2, SJ_IDLE, 0), 2); /* the id of a dropped one, given again */
    CHECK_EQ(store_commit(st, &e), 0);
    CHECK_EQ(store_commit(st, &e), -1); /* no pair open */
    CHECK_EQ(store_group_close(st, &e), 0);
    CHECK_EQ(store_group_pending(st), 0);
    CHECK_EQ(raw_int(path, "SELECT count(*) FROM jobs"), 2);
    CHECK_EQ(store_kv_get(st, "x", v, sizeof v, &e), 0);

    /* Outside a group, begin/commit are transactions again. */
    CHECK_EQ(store_begin(st, &e), 0);
    CHECK_EQ(add_job(st, 3, SJ_IDLE, 0), 3);
    CHECK_EQ(store_commit(st, &e), 0);
    CHECK_EQ(raw_int(path, "SELECT count(*) FROM jobs"), 3);

    /* A pair left open at the group's close is dropped; the rest is kept. */
    CHECK_EQ(store_group_open(st, &e), 0);
    CHECK_EQ(store_begin(st, &e), 0);
    CHECK_EQ(add_job(st, 4, SJ_IDLE, 0), 4);
    CHECK_EQ(store_commit(st, &e), 0);
    CHECK_EQ(store_begin(st, &e), 0);
    CHECK_EQ(add_job(st, 5, SJ_IDLE, 0), 5);
    CHECK_EQ(store_group_close(st, &e), 0);
    CHECK_EQ(raw_int(path, "SELECT count(*) FROM jobs"), 4);

    /* A group dropped at close (the process dies before store_group_close):
     * none of it is there after a reopen. */
    CHECK_EQ(store_group_open(st, &e), 0);
    CHECK_EQ(store_begin(st, &e), 0);
    CHECK_EQ(store_kv_set(st, "y", "1", &e), 0);
    CHECK_EQ(store_commit(st, &e), 0);
    store_close(st);
    st = open_ok(path);
    CHECK_EQ(store_kv_get(st, "y", v, sizeof v, &e), 0);
    CHECK_EQ(raw_int(path, "SELECT count(*) FROM jobs"), 4);
    store_close(st);
    tmpdir_remove();
}

/* ---- durability under kill -9 ---- */

/* The child: open the store and add jobs job_fill(k), k = first, first+1,
 * ..., `batch` per transaction (1: each its own), writing k to the pipe
 * once its transaction has committed. Never returns. */
static void kill_child(const char *path, int fd, long first, int batch)
{
    struct err e;
    struct store *st = store_open(path, &e);
    if (!st)
        _exit(2);
    for (long k = first;; k += batch) {
        if (batch > 1 && store_begin(st, &e) < 0)
            _exit(3);
        for (long i = k; i < k + batch; i++) {
            struct store_job j;
            job_fill(&j, i);
            if (store_job_add(st, &j, &e) < 0 || j.id != i)
                _exit(4);
            store_job_free(&j);
        }
        if (batch > 1 && store_commit(st, &e) < 0)
            _exit(5);
        long last = k + batch - 1;
        if (write(fd, &last, sizeof last) != (ssize_t)sizeof last)
            _exit(6);
    }
}

/* Read what the child reports, kill it `ms` milliseconds after its first
 * report, read the rest; returns the last id it reported committed (first
 * - 1 if none). The clock starts at the first commit, not at the fork: on a
 * loaded machine the fork and the store's opening alone took more than the
 * shortest wait (30 ms), and a child killed before its first commit failed
 * "the child did get going" (a flake, not a fault of the store). */
static long kill_run(pid_t pid, int fd, int ms, long first)
{
    long last = first - 1;
    unsigned char buf[4096];
    size_t have = 0; /* bytes of a partial long kept in buf */
    struct timespec t0, t;
    int started = 0, killed = 0;
    for (;;) {
        long el = 0;
        if (started) {
            clock_gettime(CLOCK_MONOTONIC, &t);
            el = (t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000;
        }
        if (started && !killed && el >= ms) {
            kill(pid, SIGKILL);
            killed = 1;
        }
        struct pollfd p = {fd, POLLIN, 0};
        /* Until the first report, no deadline: a child that never commits
         * exits on its error (EOF here) rather than hanging. */
        if (poll(&p, 1, killed || !started ? -1 : (int)(ms - el)) < 0 && errno != EINTR)
            break;
        if (!p.revents)
            continue;
        ssize_t n = read(fd, buf + have, sizeof buf - have);
        if (n <= 0)
            break; /* EOF: the child is gone (or an error) */
        have += (size_t)n;
        size_t whole = have - have % sizeof last;
        if (whole)
            memcpy(&last, buf + whole - sizeof last, sizeof last);
        if (whole && !started) {
            clock_gettime(CLOCK_MONOTONIC, &t0);
            started = 1;
        }
        memmove(buf, buf + whole, have - whole);
        have -= whole;
    }
    return last;
}

static void test_kill9_durability(void)
{
    tmpdir_make();
    char path[512], buf[256];
    in_tmp(path, "moku.db");
    store_close(open_ok(path));
    srand((unsigned)time(NULL) ^ (unsigned)getpid());
    long n = 0; /* jobs in the database, ids 1..n */
    for (int round = 0; round < 6; round++) {
        int batch = round % 2 ? 7 : 1;
        int fds[2];
        CHECK(pipe(fds) == 0);
        fflush(NULL);
        pid_t pid = fork();
        CHECK(pid >= 0);
        if (pid == 0) {
            close(fds[0]);
            kill_child(path, fds[1], n + 1, batch);
        }
        close(fds[1]);
        long reported = kill_run(pid, fds[0], 30 + rand() % 300, n + 1);
        close(fds[0]);
        int status = 0;
        CHECK(waitpid(pid, &status, 0) == pid);
        CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
        if (!WIFSIGNALED(status))
            fprintf(stderr, "    child exited with %d\n", WEXITSTATUS(status));

        CHECK_STR(raw_text(path, "PRAGMA integrity_check", buf), "ok");
        long count = (long)raw_int(path, "SELECT count(*) FROM jobs");
        long max = (long)raw_int(path, "SELECT max(id) FROM jobs");
        CHECK_EQ(count, max); /* ids 1..max, none missing */
        CHECK(max >= reported);
        CHECK(max <= reported + batch); /* at most the one transaction in flight */
        CHECK_EQ((max - n) % batch, 0); /* whole transactions only */
        CHECK(max > n);                 /* the child did get going */
        struct store *st = open_ok(path);
        if (!st)
            break;
        for (long k = n + 1; k <= max; k++)
            check_job_is(st, k, k);
        store_close(st);
        if (getenv("T_STORE_VERBOSE"))
            fprintf(stderr, "round %d batch %d: reported %ld, stored %ld (from %ld)\n", round,
                    batch, reported, max, n + 1);
        n = max;
    }
    tmpdir_remove();
}

/* Request tokens: per uid, the first answer kept across a reopen, a
 * second put of the same token refused, old ones pruned. */
static void hist_collect(void *ctx, const long long v[STORE_HIST_COLS])
{
    long long *got = ctx;
    memcpy(got + 1 + got[0] * STORE_HIST_COLS, v, sizeof(long long) * STORE_HIST_COLS);
    got[0]++;
}

/* The web view's history: kept, replaced at the same time, older ones
 * forgotten, loaded oldest first from a given time. */
static void test_history(void)
{
    tmpdir_make();
    char path[512];
    struct store *st = open_ok(in_tmp(path, "moku.db"));
    struct err e = {""};
    for (long t = 100; t <= 500; t += 100) {
        long long v[STORE_HIST_COLS] = {t, 8, t / 100, 1, 2, 3};
        CHECK_EQ(store_hist_put(st, v, 200, &e), 0);
    }
    long long again[STORE_HIST_COLS] = {400, 8, 7, 1, 2, 3};
    CHECK_EQ(store_hist_put(st, again, 200, &e), 0);
    long long got[1 + 8 * STORE_HIST_COLS] = {0};
    CHECK_EQ(store_hist_load(st, 0, hist_collect, got, &e), 0);
    CHECK_EQ(got[0], 4); /* 100 forgotten */
    CHECK_EQ(got[1], 200);
    CHECK_EQ(got[1 + 2 * STORE_HIST_COLS], 400);
    CHECK_EQ(got[1 + 2 * STORE_HIST_COLS + 2], 7); /* replaced */
    got[0] = 0;
    CHECK_EQ(store_hist_load(st, 350, hist_collect, got, &e), 0);
    CHECK_EQ(got[0], 2);
    CHECK_EQ(got[1], 400);
    store_close(st);
    tmpdir_remove();
}

static void test_tokens(void)
{
    tmpdir_make();
    char path[512];
    struct store *st = open_ok(in_tmp(path, "moku.db"));
    struct err e = {""};
    char *r = NULL;
    CHECK_EQ(store_token_get(st, 1000, "0123456789abcdef", &r, &e), 0);
    CHECK(r == NULL);
    CHECK_EQ(store_token_put(st, 1000, "0123456789abcdef", 100, "{\"output\":\"7\\n\"}", &e), 0);
    CHECK_EQ(store_token_put(st, 1000, "0123456789abcdef", 101, "{}", &e), -1); /* once */
    store_close(st);
    st = open_ok(path);
    CHECK_EQ(store_token_get(st, 1000, "0123456789abcdef", &r, &e), 1);
    CHECK_STR(r, "{\"output\":\"7\\n\"}");
    free(r);
    r = NULL;
    CHECK_EQ(store_token_get(st, 1001, "0123456789abcdef", &r, &e), 0); /* another user's */
    CHECK_EQ(store_token_put(st, 1000, "fedcba9876543210", 200, "{}", &e), 0);
    CHECK_EQ(store_tokens_prune(st, 150, &e), 0);
    CHECK_EQ(store_token_get(st, 1000, "0123456789abcdef", &r, &e), 0);
    CHECK_EQ(store_token_get(st, 1000, "fedcba9876543210", &r, &e), 1);
    free(r);
    store_close(st);
}

int main(void)
{
    TEST_RUN(test_open_create_reopen);
    TEST_RUN(test_job_add_as);
    TEST_RUN(test_newer_schema_refused);
    TEST_RUN(test_foreign_files_refused);
    TEST_RUN(test_bad_path);
    TEST_RUN(test_job_round_trip);
    TEST_RUN(test_ids_continue_never_reused);
    TEST_RUN(test_jobs_active);
    TEST_RUN(test_jobs_active_pages);
    TEST_RUN(test_jobs_active_lean);
    TEST_RUN(test_jobs_ended);
    TEST_RUN(test_nodes);
    TEST_RUN(test_fairshare);
    TEST_RUN(test_kv);
    TEST_RUN(test_events);
    TEST_RUN(test_resv_round_trip);
    TEST_RUN(test_resv_put_refused);
    TEST_RUN(test_resv_hostile_rows);
    TEST_RUN(test_schema_upgrade);
    TEST_RUN(test_transactions);
    TEST_RUN(test_group_commit);
    TEST_RUN(test_kill9_durability);
    TEST_RUN(test_tokens);
    TEST_RUN(test_history);
    return TEST_DONE();
}
