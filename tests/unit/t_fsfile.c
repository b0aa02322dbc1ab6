/*
 * t_fsfile — tests of the FS data files (stats/fsfile): the path, the exact
 * text written, a round trip of every record type, the Admin Guide's
 * spellings, comments, every kind of bad line and a truncated file, missing
 * files and directories, and the save/load glue between two schedulers
 * (with a corrupt file among good ones).
 */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/cred.h"
#include "engine/engine.h"
#include "policy/fs.h"
#include "stats/fsfile.h"
#include "test.h"

/* ---- helpers: a temporary directory and files in it ---- */

static char tmpdir[64];

static void tmpdir_make(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/t_fsfile_XXXXXX");
    CHECK(mkdtemp(tmpdir) != NULL);
}

/* Remove everything under dir (two levels deep at most here), then dir. */
static void rm_tree(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char p[512];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        struct stat st;
        if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
            rm_tree(p);
        else
            unlink(p);
    }
    closedir(d);
    rmdir(dir);
}

/* tmpdir/name into out[512]. */
static const char *in_tmp(char out[512], const char *name)
{
    snprintf(out, 512, "%s/%s", tmpdir, name);
    return out;
}

static void put_file(const char *path, const char *text, size_t len)
{
    FILE *fp = fopen(path, "wb");
    CHECK(fp != NULL);
    if (!fp)
        return;
    CHECK(fwrite(text, 1, len, fp) == len);
    fclose(fp);
}

static void put_str(const char *path, const char *text)
{
    put_file(path, text, strlen(text));
}

/* The whole file at path (caller frees), or NULL. */
static char *slurp(const char *path)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return NULL;
    static char buf[65536];
    size_t n = fread(buf, 1, sizeof buf - 1, fp);
    fclose(fp);
    buf[n] = '\0';
    return strdup(buf);
}

/* How many entries dir holds (".", ".." excluded). */
static int count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            n++;
    closedir(d);
    return n;
}

/* Whether d holds exactly the record (type, name, usage) at index i. */
static int rec_is(const struct fsfile_data *d, size_t i, int type, const char *name, double usage)
{
    if (i >= d->n)
        return 0;
    const struct fsfile_rec *r = &d->recs[i];
    if (r->type != type || !near(r->usage, usage))
        return 0;
    if (!name)
        return r->name == NULL;
    return r->name && strcmp(r->name, name) == 0;
}

/* Read text as a file: the return code, *d and err as fsfile_read leaves them. */
static int read_text(const char *text, struct fsfile_data *d, struct err *err)
{
    char path[512];
    put_str(in_tmp(path, "FS.text"), text);
    int rc = fsfile_read(path, d, err);
    unlink(path);
    return rc;
}

/* ---- the file functions ---- */

static void test_path(void)
{
    char *p = fsfile_path("stats", 1000);
    CHECK_STR(p, "stats/FS.1000");
    free(p);
    p = fsfile_path("stats/", 1000);
    CHECK_STR(p, "stats/FS.1000");
    free(p);
    p = fsfile_path("", 42);
    CHECK_STR(p, "FS.42");
    free(p);
    p = fsfile_path(NULL, -3600);
    CHECK_STR(p, "FS.-3600");
    free(p);
    p = fsfile_path("/", 7);
    CHECK_STR(p, "/FS.7");
    free(p);
}

/* Maui's layout exactly; the total given first is written last. */
static void test_write_text(void)
{
    tmpdir_make();
    struct fsfile_data d = {0};
    fsfile_add(&d, FSFILE_TOTAL, "ignored", 600000);
    fsfile_add(&d, CRED_USER, "alice", 1.5);
    fsfile_add(&d, CRED_GROUP, "staff", 20);
    fsfile_add(&d, CRED_ACCOUNT, "chem", 3.25);
    fsfile_add(&d, CRED_CLASS, "batch", 100);
    fsfile_add(&d, CRED_QOS, "high", 7);
    CHECK(d.recs[0].name == NULL); /* the total has no name */
    char path[512];
    struct err err = {{0}};
    CHECK_EQ(fsfile_write(in_tmp(path, "FS.1000000000"), 3600, 1000000000L, &d, FSFILE_SYNC, &err),
             0);
    char *text = slurp(path);
    CHECK_STR(text, "# FS Data File (Duration:   3600 seconds)  Starting: Sun Sep  9 01:46:40\n"
                    "user      "
                    " "
                    "          alice"
                    " "
                    "       1.500\n"
                    "group     "
                    " "
                    "          staff"
                    " "
                    "      20.000\n"
                    "acct      "
                    " "
                    "           chem"
                    " "
                    "       3.250\n"
                    "class     "
                    " "
                    "          batch"
                    " "
                    "     100.000\n"
                    "qos       "
                    " "
                    "           high"
                    " "
                    "       7.000\n"
                    "sched     "
                    " "
                    "          TOTAL"
                    " "
                    "  600000.000\n");
    free(text);
    CHECK_EQ(count_entries(tmpdir), 1); /* no temporary file left */
    fsfile_free(&d);
    fsfile_free(&d); /* twice is harmless */
    CHECK(d.recs == NULL && d.n == 0);
    rm_tree(tmpdir);
}

static void test_round_trip(void)
{
    tmpdir_make();
    struct fsfile_data d = {0};
    fsfile_add(&d, CRED_USER, "alice", 1234.5);
    fsfile_add(&d, CRED_USER, "Bob", 0.125);
    fsfile_add(&d, CRED_GROUP, "staff", 99999.999);
    fsfile_add(&d, CRED_ACCOUNT, "chem", 5);
    fsfile_add(&d, CRED_CLASS, "batch", 10);
    fsfile_add(&d, CRED_QOS, "DEFAULT", 2);
    fsfile_add(&d, FSFILE_TOTAL, NULL, 101251.624);
    char path[512];
    struct err err = {{0}};
    CHECK_EQ(fsfile_write(in_tmp(path, "FS.7200"), 3600, 7200, &d, FSFILE_SYNC, &err), 0);
    struct fsfile_data r;
    CHECK_EQ(fsfile_read(path, &r, &err), 1);
    CHECK_EQ(r.n, 7);
    CHECK(rec_is(&r, 0, CRED_USER, "alice", 1234.5));
    CHECK(rec_is(&r, 1, CRED_USER, "Bob", 0.125));
    CHECK(rec_is(&r, 2, CRED_GROUP, "staff", 99999.999));
    CHECK(rec_is(&r, 3, CRED_ACCOUNT, "chem", 5));
    CHECK(rec_is(&r, 4, CRED_CLASS, "batch", 10));
    CHECK(rec_is(&r, 5, CRED_QOS, "DEFAULT", 2));
    CHECK(rec_is(&r, 6, FSFILE_TOTAL, NULL, 101251.624));

    /* Writing again replaces the file whole. */
    struct fsfile_data one = {0};
    fsfile_add(&one, FSFILE_TOTAL, NULL, 1);
    CHECK_EQ(fsfile_write(path, 3600, 7200, &one, FSFILE_SYNC, &err), 0);
    fsfile_free(&r);
    CHECK_EQ(fsfile_read(path, &r, &err), 1);
    CHECK_EQ(r.n, 1);
    CHECK(rec_is(&r, 0, FSFILE_TOTAL, NULL, 1));
    CHECK_EQ(count_entries(tmpdir), 1);
    fsfile_free(&r);
    fsfile_free(&one);
    fsfile_free(&d);
    rm_tree(tmpdir);
}

/* The Admin Guide's sample and the other spellings, any case. */
static void test_read_spellings(void)
{
    tmpdir_make();
    struct fsfile_data d;
    struct err err = {{0}};
    CHECK_EQ(read_text("User USERA 150000.000\n"
                       "TOTAL 600000.00\n"
                       "Class batch 10\n"
                       "Account chem 5\n"
                       "ACCT physics 6\n"
                       "GROUP staff 7\n"
                       "QoS high 8\n"
                       "sched moab 9\n"
                       "total TOTAL 1e3\n",
                       &d, &err),
             1);
    CHECK_EQ(d.n, 9);
    CHECK(rec_is(&d, 0, CRED_USER, "USERA", 150000));
    CHECK(rec_is(&d, 1, FSFILE_TOTAL, NULL, 600000));
    CHECK(rec_is(&d, 2, CRED_CLASS, "batch", 10));
    CHECK(rec_is(&d, 3, CRED_ACCOUNT, "chem", 5));
    CHECK(rec_is(&d, 4, CRED_ACCOUNT, "physics", 6));
    CHECK(rec_is(&d, 5, CRED_GROUP, "staff", 7));
    CHECK(rec_is(&d, 6, CRED_QOS, "high", 8));
    CHECK(rec_is(&d, 7, FSFILE_TOTAL, NULL, 9));
    CHECK(rec_is(&d, 8, FSFILE_TOTAL, NULL, 1000));
    fsfile_free(&d);
    rm_tree(tmpdir);
}

static void test_read_comments(void)
{
    tmpdir_make();
    struct fsfile_data d;
    struct err err = {{0}};
    CHECK_EQ(read_text("# FS Data File (Duration:  43200 seconds)  Starting: Sun Sep  9 00:00:00\n"
                       "\n"
                       "   \t  \n"
                       "\tuser\t alice  \t 12.5 # a comment after the record\n"
                       "# user bob 3\n"
                       "#\n"
                       "group g 0\r\n" /* a CR LF line end */
                       "sched TOTAL 12.5#no space before it\n",
                       &d, &err),
             1);
    CHECK_EQ(d.n, 3);
    CHECK(rec_is(&d, 0, CRED_USER, "alice", 12.5));
    CHECK(rec_is(&d, 1, CRED_GROUP, "g", 0));
    CHECK(rec_is(&d, 2, FSFILE_TOTAL, NULL, 12.5));
    fsfile_free(&d);

    /* Nothing but comments (or nothing at all): a file without usage. */
    CHECK_EQ(read_text("# header only\n", &d, &err), 1);
    CHECK(d.n == 0 && d.recs == NULL);
    CHECK_EQ(read_text("", &d, &err), 1);
    CHECK(d.n == 0 && d.recs == NULL);
    rm_tree(tmpdir);
}

/* Every bad line rejects the whole file, naming the file and the line. */
static void test_read_bad_lines(void)
{
    tmpdir_make();
    static const struct {
        const char *line;
        const char *says;
    } bad[] = {
        {"users alice 1\n", "unknown record type 'users'"},
        {"partition p 1\n", "unknown record type"},
        {"1.5\n", "unknown record type '1.5'"},
        {"user\n", "needs a name and a usage"},
        {"user alice\n", "needs a name and a usage"},
        {"user 150\n", "needs a name and a usage"},
        {"total\n", "without a usage"},
        {"sched\n", "without a usage"},
        {"user alice abc\n", "'abc' is not a number"},
        {"user alice 12x\n", "'12x' is not a number"},
        {"user alice -1\n", "'-1' is negative"},
        {"user alice nan\n", "not a finite number"},
        {"user alice inf\n", "not a finite number"},
        {"user alice 1e999\n", "not a finite number"},
        {"user alice 1 2\n", "extra words after the usage, from '2'"},
        {"TOTAL 600000 extra\n", "'extra' is not a number"},
        {"sched TOTAL 1 2\n", "extra words"},
        {"user alice 1 # ok\nuser bob 2 3 4 5\n", "extra words"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[256], path[512], want[600];
        /* Two good lines first, so the bad one is line 3 (or 4). */
        snprintf(text, sizeof text, "# header\nuser good 1\n%s", bad[i].line);
        put_str(in_tmp(path, "FS.bad"), text);
        struct fsfile_data d = {(void *)1, 99, 99}; /* overwritten */
        struct err err = {{0}};
        CHECK_EQ(fsfile_read(path, &d, &err), -1);
        CHECK(d.n == 0 && d.recs == NULL);
        int line = strchr(bad[i].line, '\n')[1] ? 4 : 3;
        snprintf(want, sizeof want, "%s:%d: ", path, line);
        CHECK_HAS(err.msg, want);
        CHECK_HAS(err.msg, bad[i].says);
        unlink(path);
    }

    /* A name over 255 bytes; a line over 4096 bytes; a NUL byte. */
    char text[6000], path[512];
    struct fsfile_data d;
    struct err err = {{0}};
    snprintf(text, sizeof text, "user %0300d 1\n", 7);
    CHECK_EQ(read_text(text, &d, &err), -1);
    CHECK_HAS(err.msg, ":1: name longer than 255 bytes");
    CHECK(d.n == 0 && d.recs == NULL);
    memset(text, ' ', 5000);
    memcpy(text + 5000, "user a 1\n", 10);
    CHECK_EQ(read_text(text, &d, &err), -1);
    CHECK_HAS(err.msg, ":1: line longer than 4096 bytes");
    put_file(in_tmp(path, "FS.nul"), "user a 1\nuser b\0 2\n", 19);
    CHECK_EQ(fsfile_read(path, &d, &err), -1);
    CHECK_HAS(err.msg, ":2: the line holds a NUL byte");
    CHECK(d.n == 0 && d.recs == NULL);

    /* A line of exactly 4096 bytes is fine. */
    memset(text, ' ', 4096);
    memcpy(text, "user a 1", 8);
    memcpy(text + 4096, "\n", 2);
    CHECK_EQ(read_text(text, &d, &err), 1);
    CHECK(rec_is(&d, 0, CRED_USER, "a", 1));
    fsfile_free(&d);
    rm_tree(tmpdir);
}

/* A last line without its newline: a write cut short. */
static void test_read_truncated(void)
{
    tmpdir_make();
    struct fsfile_data d;
    struct err err = {{0}};
    char path[512];
    in_tmp(path, "FS.text");
    CHECK_EQ(read_text("user a 1\nuser b 2\nsched TOTAL 3", &d, &err), -1);
    CHECK_HAS(err.msg, path);
    CHECK_HAS(err.msg, ":3: truncated line");
    CHECK(d.n == 0 && d.recs == NULL);
    CHECK_EQ(read_text("user a 1\nus", &d, &err), -1);
    CHECK_HAS(err.msg, ":2: truncated line");
    rm_tree(tmpdir);
}

static void test_read_missing(void)
{
    tmpdir_make();
    struct fsfile_data d = {(void *)1, 5, 5};
    struct err err = {{0}};
    char path[512];
    CHECK_EQ(fsfile_read(in_tmp(path, "FS.123"), &d, &err), 0);
    CHECK(d.n == 0 && d.recs == NULL);
    CHECK_STR(err.msg, ""); /* not an error */
    /* A directory is not a missing file: an error naming it. */
    CHECK_EQ(fsfile_read(tmpdir, &d, &err), -1);
    CHECK_HAS(err.msg, tmpdir);
    CHECK(d.n == 0 && d.recs == NULL);
    rm_tree(tmpdir);
}

static void test_write_dirs(void)
{
    tmpdir_make();
    struct fsfile_data d = {0};
    fsfile_add(&d, CRED_USER, "u", 1);
    fsfile_add(&d, FSFILE_TOTAL, NULL, 1);
    struct err err = {{0}};
    char dir[512], path[512];

    /* A missing directory is created (one level). */
    in_tmp(dir, "stats");
    char *p = fsfile_path(dir, 3600);
    CHECK_EQ(fsfile_write(p, 3600, 3600, &d, FSFILE_SYNC, &err), 0);
    struct stat st;
    CHECK(stat(dir, &st) == 0 && S_ISDIR(st.st_mode));
    CHECK_EQ(count_entries(dir), 1);
    free(p);

    /* Two levels missing: an error naming the path; nothing created. */
    p = fsfile_path(in_tmp(dir, "a/b"), 3600);
    CHECK_EQ(fsfile_write(p, 3600, 3600, &d, FSFILE_SYNC, &err), -1);
    CHECK_HAS(err.msg, p);
    CHECK_HAS(err.msg, strerror(ENOENT));
    free(p);

    /* The directory is a file: an error, and no temporary file left. */
    put_file(in_tmp(path, "plain"), "x\n", 2);
    p = fsfile_path(path, 3600);
    err.msg[0] = '\0';
    CHECK_EQ(fsfile_write(p, 3600, 3600, &d, FSFILE_SYNC, &err), -1);
    CHECK_HAS(err.msg, p);
    free(p);
    CHECK_EQ(count_entries(tmpdir), 2); /* stats and plain */

    /* The target is a directory: the rename fails and the temporary goes. */
    in_tmp(dir, "FS.7200");
    CHECK(mkdir(dir, 0755) == 0);
    err.msg[0] = '\0';
    CHECK_EQ(fsfile_write(dir, 3600, 7200, &d, FSFILE_SYNC, &err), -1);
    CHECK_HAS(err.msg, dir);
    CHECK_EQ(count_entries(tmpdir), 3);

    /* Names and usage the reader would refuse are refused before writing. */
    struct fsfile_data bad = {0};
    fsfile_add(&bad, CRED_USER, "a b", 1);
    CHECK_EQ(fsfile_write(in_tmp(path, "FS.1"), 3600, 1, &bad, FSFILE_SYNC, &err), -1);
    CHECK_HAS(err.msg, "'a b'");
    fsfile_free(&bad);
    fsfile_add(&bad, CRED_USER, "a#b", 1);
    CHECK_EQ(fsfile_write(path, 3600, 1, &bad, FSFILE_SYNC, &err), -1);
    fsfile_free(&bad);
    fsfile_add(&bad, CRED_USER, "", 1);
    CHECK_EQ(fsfile_write(path, 3600, 1, &bad, FSFILE_SYNC, &err), -1);
    fsfile_free(&bad);
    fsfile_add(&bad, CRED_USER, "a", -1);
    CHECK_EQ(fsfile_write(path, 3600, 1, &bad, FSFILE_SYNC, &err), -1);
    fsfile_free(&bad);
    fsfile_add(&bad, FSFILE_TOTAL, NULL, NAN);
    CHECK_EQ(fsfile_write(path, 3600, 1, &bad, FSFILE_SYNC, &err), -1);
    fsfile_free(&bad);
    CHECK_EQ(count_entries(tmpdir), 3);

    fsfile_free(&d);
    rm_tree(tmpdir);
}

/* ---- the glue with the engine ---- */

#define T0 1000000000L /* 2001-09-09 01:46:40 UTC; 2800 s into its hour */
#define HOUR 3600L

static struct sched *fs_sched(long epoch, long now)
{
    struct sched_policy pol;
    sched_policy_default(&pol);
    pol.fs.policy = FS_DEDICATEDPS;
    pol.fs.interval = HOUR;
    pol.fs.depth = 4;
    struct sched *s = sched_create(&pol, NULL);
    sched_set_epoch(s, epoch);
    fs_advance(sched_fs(s), now);
    return s;
}

static struct cred *cred(struct sched *s, enum cred_kind k, const char *name)
{
    return cred_get(sched_creds(s, k), name);
}

struct warnings {
    int n;
    char last[ERR_MSG_MAX];
};

static void warn_cb(void *ctx, const char *msg)
{
    struct warnings *w = ctx;
    w->n++;
    snprintf(w->last, sizeof w->last, "%s", msg);
}

/* Windows of every kind in slots 0..3 (slot 2 empty), saved by one
 * scheduler and loaded by another; epoch 0 or a trace's start. */
static void check_save_load(long epoch, long now)
{
    tmpdir_make();
    char dir[512];
    in_tmp(dir, "stats");
    struct sched *a = fs_sched(epoch, now);
    struct fs *fa = sched_fs(a);
    const char *const names[CRED_NKINDS] = {"alice", "staff", "chem", "batch", "high"};
    for (int i = 0; i < 4; i++) {
        if (i == 2)
            continue;
        for (int k = 0; k < CRED_NKINDS; k++)
            fs_set_window(fa, cred(a, (enum cred_kind)k, names[k]), i, 100.0 * (i + 1) + k);
        fs_set_window(fa, cred(a, CRED_USER, "bob"), i, 0.5 + i);
        fs_set_total_window(fa, i, 1000.0 * (i + 1));
    }
    cred(a, CRED_USER, "idle"); /* no usage: not written */
    struct err err = {{0}};
    for (int i = 0; i < 4; i++)
        CHECK_EQ(fsfile_save(dir, a, i, FSFILE_SYNC, &err), 0);
    CHECK_EQ(count_entries(dir), 3); /* slot 2 has no total: no file */

    /* File names: the epoch start of each window, one interval apart. */
    long w0 = epoch + now - (epoch + now) % HOUR;
    char *p = fsfile_path(dir, w0 - HOUR);
    char *text = slurp(p);
    CHECK(text != NULL);
    CHECK_HAS(text, "# FS Data File (Duration:   3600 seconds)  Starting: ");
    CHECK_HAS(text, "\nuser                 alice      200.000\n"
                    "user                   bob        1.500\n"
                    "group                staff      201.000\n");
    CHECK(!strstr(text, "idle"));
    CHECK_HAS(text, "\nsched                TOTAL     2000.000\n");
    free(text);
    free(p);

    struct sched *b = fs_sched(epoch, now);
    struct fs *fb = sched_fs(b);
    struct warnings w = {0};
    CHECK_EQ(fsfile_load(dir, b, warn_cb, &w), 3);
    CHECK_EQ(w.n, 0);
    for (int i = 0; i < 4; i++) {
        CHECK(near(fs_total_window(fb, i), fs_total_window(fa, i)));
        for (int k = 0; k < CRED_NKINDS; k++) {
            const struct cred *c = cred_find(sched_creds(b, (enum cred_kind)k), names[k]);
            CHECK(c != NULL);
            CHECK(
                near(fs_window(fb, c, i), fs_window(fa, cred(a, (enum cred_kind)k, names[k]), i)));
        }
        CHECK(near(fs_window(fb, cred(b, CRED_USER, "bob"), i), i == 2 ? 0 : 0.5 + i));
    }
    CHECK(cred_find(sched_creds(b, CRED_USER), "idle") == NULL);
    CHECK(
        near(fs_usage(fb, cred(b, CRED_USER, "alice")), fs_usage(fa, cred(a, CRED_USER, "alice"))));
    sched_destroy(b);
    sched_destroy(a);
    rm_tree(tmpdir);
}

static void test_save_load(void)
{
    check_save_load(0, T0 + 100);
    check_save_load(T0, 100); /* driver time 0 is T0 on the epoch clock */
}

/* A corrupt file among good ones is reported (file and line) and skipped;
 * a file without a total gets the sum of its users. */
static void test_load_bad_and_totals(void)
{
    tmpdir_make();
    char dir[512], path[512];
    in_tmp(dir, "stats");
    CHECK(mkdir(dir, 0755) == 0);
    long w0 = T0 - T0 % HOUR;
    char *p = fsfile_path(dir, w0);
    put_str(p, "user alice 10\nsched TOTAL 40\n");
    free(p);
    p = fsfile_path(dir, w0 - HOUR);
    put_str(p, "user alice 1\nuser bob 2\nuser bob 3\nclass batch 9\n");
    free(p);
    p = fsfile_path(dir, w0 - 2 * HOUR);
    put_str(p, "user alice 5\nuser carol five\nsched TOTAL 50\n");
    snprintf(path, sizeof path, "%s:2: ", p);
    free(p);
    p = fsfile_path(dir, w0 - 3 * HOUR);
    put_str(p, "User dave 7\nTOTAL 70\n");
    free(p);
    p = fsfile_path(dir, w0 - 4 * HOUR); /* beyond FSDEPTH: not read */
    put_str(p, "user erin 1\n");
    free(p);

    struct sched *s = fs_sched(0, T0);
    struct fs *f = sched_fs(s);
    struct warnings w = {0};
    CHECK_EQ(fsfile_load(dir, s, warn_cb, &w), 3);
    CHECK_EQ(w.n, 1);
    CHECK_HAS(w.last, path);
    CHECK_HAS(w.last, "'five' is not a number");
    const struct cred *alice = cred(s, CRED_USER, "alice");
    CHECK(near(fs_window(f, alice, 0), 10));
    CHECK(near(fs_total_window(f, 0), 40));
    CHECK(near(fs_window(f, alice, 1), 1));
    CHECK(near(fs_window(f, cred(s, CRED_USER, "bob"), 1), 3)); /* the later wins */
    CHECK(near(fs_window(f, cred(s, CRED_CLASS, "batch"), 1), 9));
    CHECK(near(fs_total_window(f, 1), 4));  /* alice 1 + bob 3: users only */
    CHECK(near(fs_window(f, alice, 2), 0)); /* the bad file: nothing of it */
    CHECK(cred_find(sched_creds(s, CRED_USER), "carol") == NULL);
    CHECK(near(fs_total_window(f, 2), 0));
    CHECK(near(fs_window(f, cred(s, CRED_USER, "dave"), 3), 7));
    CHECK(near(fs_total_window(f, 3), 70));
    CHECK(cred_find(sched_creds(s, CRED_USER), "erin") == NULL);

    /* A NULL warn is allowed. */
    struct sched *s2 = fs_sched(0, T0);
    CHECK_EQ(fsfile_load(dir, s2, NULL, NULL), 3);
    sched_destroy(s2);
    sched_destroy(s);

    /* No files at all, or FSPOLICY NONE: nothing read. */
    struct sched *s3 = fs_sched(0, T0 + 10 * HOUR);
    CHECK_EQ(fsfile_load(dir, s3, warn_cb, &w), 0);
    sched_destroy(s3);
    struct sched *none = sched_create(NULL, NULL);
    CHECK_EQ(fsfile_load(dir, none, warn_cb, &w), 0);
    struct err err = {{0}};
    CHECK_EQ(fsfile_save(dir, none, 0, FSFILE_SYNC, &err), 0);
    sched_destroy(none);
    CHECK_EQ(w.n, 1);
    rm_tree(tmpdir);
}

/* fsfile_save_kept writes the windows that count (FSDEPTH 4 here) and
 * prunes the older FS files of the directory; other names are kept, and a
 * missing directory prunes nothing. */
static void test_save_kept_and_prune(void)
{
    tmpdir_make();
    char dir[512], path[512];
    in_tmp(dir, "stats");
    CHECK(mkdir(dir, 0755) == 0);
    long w0 = T0 - T0 % HOUR;
    struct sched *s = fs_sched(0, T0);
    struct fs *f = sched_fs(s);
    CHECK_EQ(fsfile_oldest_kept(s), w0 - 3 * HOUR);
    for (int i = 0; i < 6; i++) { /* slots 4 and 5 are past FSDEPTH */
        fs_set_window(f, cred(s, CRED_USER, "alice"), i, 10.0 + i);
        fs_set_total_window(f, i, 10.0 + i);
    }
    /* Old windows from an earlier run, a newer one, and files not ours. */
    for (int i = 3; i < 40; i++) {
        char *p = fsfile_path(dir, w0 - i * HOUR);
        put_str(p, "user old 1\n");
        free(p);
    }
    char *newer = fsfile_path(dir, w0 + HOUR);
    put_str(newer, "user later 1\n");
    put_str(in_tmp(path, "stats/FS.notes"), "mine\n");
    put_str(in_tmp(path, "stats/FS.12.tmp.7"), "mine\n");
    struct err err = {{0}};
    CHECK_EQ(fsfile_save_kept(dir, s, FSFILE_NOSYNC, &err), 4);
    /* Slots 0..3, the newer window and the two other files. */
    CHECK_EQ(count_entries(dir), 7);
    char *p3 = fsfile_path(dir, w0 - 3 * HOUR);
    char *text = slurp(p3);
    CHECK(text && strstr(text, "alice") && !strstr(text, "old"));
    free(text);
    free(p3);
    char *p4 = fsfile_path(dir, w0 - 4 * HOUR);
    CHECK(access(p4, F_OK) != 0);
    free(p4);
    CHECK(access(newer, F_OK) == 0);
    free(newer);
    CHECK(access(in_tmp(path, "stats/FS.notes"), F_OK) == 0);

    /* Prune alone: by start; a missing directory is not an error. */
    CHECK_EQ(fsfile_prune(dir, w0, &err), 3);
    CHECK_EQ(count_entries(dir), 4);
    CHECK_EQ(fsfile_prune(in_tmp(path, "nowhere"), w0, &err), 0);
    /* FSPOLICY NONE: nothing written or pruned. */
    struct sched *none = sched_create(NULL, NULL);
    CHECK_EQ(fsfile_save_kept(dir, none, FSFILE_NOSYNC, &err), 0);
    CHECK_EQ(count_entries(dir), 4);
    sched_destroy(none);
    sched_destroy(s);
    rm_tree(tmpdir);
}

/* Whether dirs a and b hold the same FS files of windows w0 - i * HOUR for
 * i in 0..FS_MAX_DEPTH (missing in both, or the same bytes). */
static int same_windows(const char *a, const char *b, long w0)
{
    for (int i = 0; i <= FS_MAX_DEPTH; i++) {
        char *pa = fsfile_path(a, w0 - i * HOUR), *pb = fsfile_path(b, w0 - i * HOUR);
        char *ta = slurp(pa), *tb = slurp(pb);
        int same = (!ta && !tb) || (ta && tb && strcmp(ta, tb) == 0);
        free(ta);
        free(tb);
        free(pa);
        free(pb);
        if (!same)
            return 0;
    }
    return 1;
}

/* fsfile_kept: the windows taken at one instant and written after the
 * ledger moved on (here past all its FS_MAX_DEPTH slots, so nothing of them
 * is left in it) are the files fsfile_save_kept wrote at that instant, the
 * same prune included: fixed-seed random windows (some empty, some past
 * FSDEPTH), each case against a twin scheduler saved at once. */
static void test_kept(void)
{
    tmpdir_make();
    long w0 = T0 - T0 % HOUR;
    unsigned seed = 31;
    const char *const users[] = {"alice", "bob", "carol"};
    for (int c = 0; c < 20; c++) {
        char da[512], db[512], name[32];
        snprintf(name, sizeof name, "a%d", c);
        in_tmp(da, name);
        snprintf(name, sizeof name, "b%d", c);
        in_tmp(db, name);
        CHECK(mkdir(da, 0755) == 0 && mkdir(db, 0755) == 0);
        for (int i = 3; i < 8; i++) { /* older files: pruned by both */
            char *pa = fsfile_path(da, w0 - i * HOUR), *pb = fsfile_path(db, w0 - i * HOUR);
            put_str(pa, "user old 1\n");
            put_str(pb, "user old 1\n");
            free(pa);
            free(pb);
        }
        struct sched *s = fs_sched(0, T0), *twin = fs_sched(0, T0);
        for (int i = 0; i < 6; i++) {
            double total = 0;
            for (int u = 0; u < 3; u++) {
                seed = seed * 1103515245u + 12345u;
                double v = (seed >> 16) % 4 ? (double)((seed >> 8) % 1000) : 0;
                fs_set_window(sched_fs(s), cred(s, CRED_USER, users[u]), i, v);
                fs_set_window(sched_fs(twin), cred(twin, CRED_USER, users[u]), i, v);
                total += v;
            }
            fs_set_total_window(sched_fs(s), i, total);
            fs_set_total_window(sched_fs(twin), i, total);
        }
        struct err err = {{0}};
        int want = fsfile_save_kept(db, twin, FSFILE_NOSYNC, &err);
        struct fsfile_kept k = {0};
        fsfile_kept_take(&k, s);
        fs_advance(sched_fs(s), T0 + 30 * HOUR);
        CHECK_EQ(fs_total_window(sched_fs(s), FS_MAX_DEPTH - 1), 0);
        CHECK_EQ(fsfile_kept_write(da, &k, FSFILE_NOSYNC, &err), want);
        CHECK(same_windows(da, db, w0));
        CHECK_EQ(count_entries(da), count_entries(db));
        fsfile_kept_take(&k, s); /* again, now: replaces, holds nothing */
        CHECK(k.taken && k.n == 0);
        fsfile_kept_free(&k);
        sched_destroy(s);
        sched_destroy(twin);
    }
    /* Never taken, or FSPOLICY NONE: nothing written or pruned. */
    char dir[512];
    in_tmp(dir, "a0");
    int before = count_entries(dir);
    struct fsfile_kept k = {0};
    struct err err = {{0}};
    CHECK_EQ(fsfile_kept_write(dir, &k, FSFILE_NOSYNC, &err), 0);
    struct sched *none = sched_create(NULL, NULL);
    fsfile_kept_take(&k, none);
    CHECK(!k.taken);
    CHECK_EQ(fsfile_kept_write(dir, &k, FSFILE_NOSYNC, &err), 0);
    CHECK_EQ(count_entries(dir), before);
    sched_destroy(none);
    rm_tree(tmpdir);
}

/* The keywords, both ways, as the daemon keys its stored windows. */
static void test_type_words(void)
{
    CHECK_STR(fsfile_type_word(CRED_ACCOUNT), "acct");
    CHECK_STR(fsfile_type_word(FSFILE_TOTAL), "sched");
    CHECK(fsfile_type_word(-1) == NULL && fsfile_type_word(FSFILE_TOTAL + 1) == NULL);
    for (int t = 0; t <= FSFILE_TOTAL; t++)
        CHECK_EQ(fsfile_type_of(fsfile_type_word(t)), t);
    CHECK_EQ(fsfile_type_of("Account"), CRED_ACCOUNT);
    CHECK_EQ(fsfile_type_of("TOTAL"), FSFILE_TOTAL);
    CHECK_EQ(fsfile_type_of("node"), -1);
    CHECK_EQ(fsfile_type_of(NULL), -1);
}

int main(void)
{
    TEST_RUN(test_type_words);
    TEST_RUN(test_path);
    TEST_RUN(test_write_text);
    TEST_RUN(test_round_trip);
    TEST_RUN(test_read_spellings);
    TEST_RUN(test_read_comments);
    TEST_RUN(test_read_bad_lines);
    TEST_RUN(test_read_truncated);
    TEST_RUN(test_read_missing);
    TEST_RUN(test_write_dirs);
    TEST_RUN(test_save_load);
    TEST_RUN(test_load_bad_and_totals);
    TEST_RUN(test_save_kept_and_prune);
    TEST_RUN(test_kept);
    return TEST_DONE();
}
