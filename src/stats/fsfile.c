/*
 * fsfile — see fsfile.h.
 *
 * The file is small (a line per credential with usage), so the reader takes
 * it a byte at a time into a fixed line buffer: a line has a bounded length
 * (FSFILE_LINE_MAX), a NUL byte or an over-long line is an error rather than
 * a silent cut, and a last line without its newline — what a crash in the
 * middle of a write leaves — is told apart from a complete one. The writer
 * never leaves such a file behind: it writes a temporary file and renames
 * it over the old one, so a reader sees the old file or the new, whole.
 *
 * Where moku differs from Maui 3.3.1 (MFSLoadDataFile / MFSUpdateData):
 *  - Maui skips what it cannot parse and uses the rest of the file; moku
 *    rejects the whole file and says which line is wrong, since a window
 *    half loaded shifts every share silently.
 *  - The header's date is printed in UTC (Maui's ctime uses the local
 *    zone): the file name carries the real start, the date is for people,
 *    and a file must not depend on the TZ of the process that wrote it.
 *  - The total is written `sched TOTAL` (Maui writes the scheduler's name).
 *  - A line may end in CR LF (a file edited on Windows); the CR is dropped.
 */
#include "stats/fsfile.h"

#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "engine/engine.h"
#include "policy/fs.h"
#include "util/mem.h"

#define FSFILE_LINE_MAX 4096 /* bytes in a line, newline excluded */
#define FSFILE_NAME_MAX 255  /* bytes in a credential name */
#define FSFILE_WORDS 4       /* one more than a line may hold, to see extras */

/* Maui's keywords for writing, indexed by record type (enum cred_kind, then
 * FSFILE_TOTAL). */
static const char *const type_words[CRED_NKINDS + 1] = {"user",  "group", "acct",
                                                        "class", "qos",   "sched"};

/* The words a reader accepts, any letter case. */
static const struct {
    const char *word;
    int type;
} type_names[] = {
    {"user", CRED_USER},       {"group", CRED_GROUP},   {"acct", CRED_ACCOUNT},
    {"account", CRED_ACCOUNT}, {"class", CRED_CLASS},   {"qos", CRED_QOS},
    {"sched", FSFILE_TOTAL},   {"total", FSFILE_TOTAL},
};

static int type_lookup(const char *word)
{
    for (size_t i = 0; i < sizeof type_names / sizeof type_names[0]; i++)
        if (strcasecmp(word, type_names[i].word) == 0)
            return type_names[i].type;
    return -1;
}

const char *fsfile_type_word(int type)
{
    return type >= 0 && type <= FSFILE_TOTAL ? type_words[type] : NULL;
}

int fsfile_type_of(const char *word)
{
    return word ? type_lookup(word) : -1;
}

char *fsfile_path(const char *dir, long start)
{
    if (!dir)
        dir = "";
    size_t len = strlen(dir);
    const char *sep = len > 0 && dir[len - 1] != '/' ? "/" : "";
    size_t size = len + 1 + 32;
    char *p = xmalloc(size);
    snprintf(p, size, "%s%sFS.%ld", dir, sep, start);
    return p;
}

void fsfile_add(struct fsfile_data *d, int type, const char *name, double usage)
{
    assert(type >= 0 && type <= FSFILE_TOTAL);
    assert(type == FSFILE_TOTAL || name);
    d->recs = xgrow(d->recs, &d->cap, d->n + 1, sizeof d->recs[0]);
    d->recs[d->n++] = (struct fsfile_rec){
        .type = type, .name = type == FSFILE_TOTAL ? NULL : xstrdup(name), .usage = usage};
}

void fsfile_free(struct fsfile_data *d)
{
    if (!d)
        return;
    for (size_t i = 0; i < d->n; i++)
        free(d->recs[i].name);
    free(d->recs);
    *d = (struct fsfile_data){0};
}

/* ---- Writing ---- */

/* Whether name reads back as the one word it is: not empty, not too long,
 * no separator, no comment sign, no line end. */
static int name_writable(const char *name)
{
    size_t len = strlen(name);
    return len > 0 && len <= FSFILE_NAME_MAX && !strpbrk(name, " \t\r\n\v\f#");
}

/* Refuse what the reader would refuse, before anything touches the disk. */
static int check_data(const char *path, const struct fsfile_data *d, struct err *err)
{
    for (size_t i = 0; i < d->n; i++) {
        const struct fsfile_rec *r = &d->recs[i];
        if (r->type < 0 || r->type > FSFILE_TOTAL)
            return err_set(err, "%s: cannot write record %zu: bad type %d", path, i + 1, r->type);
        if (r->type != FSFILE_TOTAL && (!r->name || !name_writable(r->name)))
            return err_set(err,
                           "%s: cannot write %s name '%.*s': empty, longer than %d bytes, "
                           "or holding white space or '#'",
                           path, type_words[r->type], 300, r->name ? r->name : "", FSFILE_NAME_MAX);
        if (!isfinite(r->usage) || r->usage < 0)
            return err_set(err, "%s: cannot write usage %g: not a finite number >= 0", path,
                           r->usage);
    }
    return 0;
}

/* ctime's first 19 characters ("Sun Sep  9 01:46:40") of start, in UTC. */
static void format_start(long start, char out[32])
{
    time_t t = (time_t)start;
    struct tm tm;
    if (!gmtime_r(&t, &tm) || strftime(out, 32, "%a %b %e %H:%M:%S", &tm) == 0)
        snprintf(out, 32, "(epoch %ld)", start);
}

static void print_rec(FILE *fp, const struct fsfile_rec *r)
{
    fprintf(fp, "%-10s %15s %12.3f\n", type_words[r->type],
            r->type == FSFILE_TOTAL ? "TOTAL" : r->name, r->usage);
}

/* Header, then the credentials' records in order, then the total's. */
static void print_data(FILE *fp, long interval, long start, const struct fsfile_data *d)
{
    char date[32];
    format_start(start, date);
    fprintf(fp, "# FS Data File (Duration: %6ld seconds)  Starting: %s\n", interval, date);
    for (size_t i = 0; i < d->n; i++)
        if (d->recs[i].type != FSFILE_TOTAL)
            print_rec(fp, &d->recs[i]);
    for (size_t i = 0; i < d->n; i++)
        if (d->recs[i].type == FSFILE_TOTAL)
            print_rec(fp, &d->recs[i]);
}

/* Create path's directory if it is missing (one level, like Maui's STATDIR
 * at start-up). */
static int make_dir(const char *path, struct err *err)
{
    const char *slash = strrchr(path, '/');
    if (!slash || slash == path)
        return 0; /* the current directory, or the root */
    char *dir = xstrndup(path, (size_t)(slash - path));
    int rc = 0;
    if (mkdir(dir, 0755) != 0 && errno != EEXIST)
        rc = err_set(err, "%s: cannot create directory %s: %s", path, dir, strerror(errno));
    free(dir);
    return rc;
}

/* Write the file's text to tmp and make it durable. On failure the partial
 * tmp is left for the caller to remove. */
static int write_tmp(const char *path, const char *tmp, long interval, long start,
                     const struct fsfile_data *d, enum fsfile_sync sync, struct err *err)
{
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return err_set(err, "%s: cannot create %s: %s", path, tmp, strerror(errno));
    FILE *fp = fdopen(fd, "w");
    if (!fp) {
        int e = errno;
        close(fd);
        return err_set(err, "%s: cannot write: %s", path, strerror(e));
    }
    print_data(fp, interval, start, d);
    if (fflush(fp) != 0 || ferror(fp) || (sync == FSFILE_SYNC && fsync(fd) != 0)) {
        int e = errno ? errno : EIO;
        fclose(fp);
        return err_set(err, "%s: cannot write: %s", path, strerror(e));
    }
    if (fclose(fp) != 0)
        return err_set(err, "%s: cannot write: %s", path, strerror(errno));
    return 0;
}

/* Best effort: make the rename itself durable. A failure here loses at most
 * the newest window in a crash, which is not worth failing the write for. */
static void sync_dir(const char *path)
{
    const char *slash = strrchr(path, '/');
    char *dir = slash ? xstrndup(path, slash == path ? 1 : (size_t)(slash - path)) : xstrdup(".");
    int fd = open(dir, O_RDONLY);
    if (fd >= 0) {
        (void)fsync(fd);
        close(fd);
    }
    free(dir);
}

int fsfile_write(const char *path, long interval, long start, const struct fsfile_data *d,
                 enum fsfile_sync sync, struct err *err)
{
    if (check_data(path, d, err) < 0 || make_dir(path, err) < 0)
        return -1;
    size_t size = strlen(path) + 32;
    char *tmp = xmalloc(size);
    snprintf(tmp, size, "%s.tmp.%ld", path, (long)getpid());
    errno = 0;
    int rc = write_tmp(path, tmp, interval, start, d, sync, err);
    if (rc == 0 && rename(tmp, path) != 0)
        rc = err_set(err, "%s: cannot rename %s to it: %s", path, tmp, strerror(errno));
    if (rc == 0 && sync == FSFILE_SYNC)
        sync_dir(path);
    else
        unlink(tmp);
    free(tmp);
    return rc;
}

/* ---- Reading ---- */

/*
 * Read the next line of fp (newline and a CR before it dropped) into
 * buf[FSFILE_LINE_MAX + 1]. Returns 1 for a line, 0 at the end of the file,
 * -1 with err for a read error, a NUL byte, an over-long line or a last line
 * without its newline.
 */
static int read_line(FILE *fp, const char *path, long lineno, char *buf, struct err *err)
{
    size_t len = 0;
    int c;
    while ((c = getc(fp)) != EOF && c != '\n') {
        if (c == '\0')
            return err_set(err, "%s:%ld: the line holds a NUL byte: not a text file", path, lineno);
        if (len == FSFILE_LINE_MAX)
            return err_set(err, "%s:%ld: line longer than %d bytes", path, lineno, FSFILE_LINE_MAX);
        buf[len++] = (char)c;
    }
    if (c == EOF && ferror(fp))
        return err_set(err, "%s: %s", path, strerror(errno ? errno : EIO));
    if (c == EOF && len == 0)
        return 0;
    if (c == EOF)
        return err_set(err, "%s:%ld: truncated line (no newline at the end of the file)", path,
                       lineno);
    if (len > 0 && buf[len - 1] == '\r')
        len--;
    buf[len] = '\0';
    return 1;
}

/* Split line (its comment cut off) at spaces and tabs into at most max
 * words; returns how many there were, up to max. */
static int split_words(char *line, char *w[], int max)
{
    char *hash = strchr(line, '#');
    if (hash)
        *hash = '\0';
    int n = 0;
    char *save = NULL;
    for (char *t = strtok_r(line, " \t", &save); t && n < max; t = strtok_r(NULL, " \t", &save))
        w[n++] = t;
    return n;
}

static int parse_usage(const char *word, const char *path, long lineno, double *out,
                       struct err *err)
{
    char *end;
    errno = 0;
    double v = strtod(word, &end);
    if (end == word || *end != '\0')
        return err_set(err, "%s:%ld: usage '%s' is not a number", path, lineno, word);
    if (!isfinite(v))
        return err_set(err, "%s:%ld: usage '%s' is not a finite number", path, lineno, word);
    if (v < 0)
        return err_set(err, "%s:%ld: usage '%s' is negative", path, lineno, word);
    *out = v;
    return 0;
}

/* One line's words as a record appended to d; nothing for a blank line.
 * `<type> <name> <usage>`, or `<total type> <usage>` for the total. */
static int parse_line(char *line, const char *path, long lineno, struct fsfile_data *d,
                      struct err *err)
{
    char *w[FSFILE_WORDS];
    int n = split_words(line, w, FSFILE_WORDS);
    if (n == 0)
        return 0;
    int type = type_lookup(w[0]);
    if (type < 0)
        return err_set(err,
                       "%s:%ld: unknown record type '%s' (expected user, group, acct, account, "
                       "class, qos, sched or total)",
                       path, lineno, w[0]);
    if (n > 3)
        return err_set(err, "%s:%ld: extra words after the usage, from '%s'", path, lineno, w[3]);
    if (type == FSFILE_TOTAL && n == 1)
        return err_set(err, "%s:%ld: %s record without a usage", path, lineno, w[0]);
    if (type != FSFILE_TOTAL && n < 3)
        return err_set(err, "%s:%ld: %s record needs a name and a usage", path, lineno, w[0]);
    if (n == 3 && strlen(w[1]) > FSFILE_NAME_MAX)
        return err_set(err, "%s:%ld: name longer than %d bytes", path, lineno, FSFILE_NAME_MAX);
    double usage = 0;
    if (parse_usage(w[n - 1], path, lineno, &usage, err) < 0)
        return -1;
    fsfile_add(d, type, w[1], usage); /* the total's name is dropped */
    return 0;
}

static int read_all(FILE *fp, const char *path, struct fsfile_data *d, struct err *err)
{
    char *buf = xmalloc(FSFILE_LINE_MAX + 1);
    int rc;
    long lineno = 0;
    errno = 0;
    while ((rc = read_line(fp, path, ++lineno, buf, err)) > 0)
        if (parse_line(buf, path, lineno, d, err) < 0) {
            rc = -1;
            break;
        }
    free(buf);
    return rc;
}

int fsfile_read(const char *path, struct fsfile_data *d, struct err *err)
{
    *d = (struct fsfile_data){0};
    FILE *fp = fopen(path, "r");
    if (!fp) {
        if (errno == ENOENT)
            return 0;
        return err_set(err, "%s: %s", path, strerror(errno));
    }
    int rc = read_all(fp, path, d, err);
    fclose(fp);
    if (rc < 0) {
        fsfile_free(d);
        return -1;
    }
    return 1;
}

/* ---- The glue with the engine's ledger ---- */

/* Epoch start of window `slot` of f (0 = the current window). */
static long slot_start(const struct fs *f, int slot)
{
    return fs_window_start(f) + fs_epoch(f) - (long)slot * fs_params(f)->interval;
}

/*
 * Window `slot`'s records into *d (empty on entry): every credential with
 * usage in it, then the total. Returns 0 (d left empty) for a window whose
 * total is 0. Credentials whose name would not read back as one word (white
 * space, '#', over FSFILE_NAME_MAX bytes) are left out of the file rather
 * than fail the whole window; their usage still counts in the total
 * written. Usage <= 0 is left out as Maui does (only non-zero usage is
 * written; the ledger's usage is never negative).
 */
static int window_data(const struct sched *s, int slot, struct fsfile_data *d)
{
    const struct fs *f = sched_fs(s);
    double total = fs_total_window(f, slot);
    if (!(total > 0) || !isfinite(total))
        return 0;
    for (int k = 0; k < CRED_NKINDS; k++) {
        const struct cred_table *t = sched_creds(s, (enum cred_kind)k);
        for (size_t i = 0; i < cred_count(t); i++) {
            const struct cred *c = cred_at(t, i);
            double u = fs_window(f, c, slot);
            if (u > 0 && isfinite(u) && name_writable(c->name))
                fsfile_add(d, k, c->name, u);
        }
    }
    fsfile_add(d, FSFILE_TOTAL, NULL, total);
    return 1;
}

static int save_data(const char *dir, long interval, long start, const struct fsfile_data *d,
                     enum fsfile_sync sync, struct err *err)
{
    char *path = fsfile_path(dir, start);
    int rc = fsfile_write(path, interval, start, d, sync, err);
    free(path);
    return rc;
}

int fsfile_save(const char *dir, struct sched *s, int slot, enum fsfile_sync sync, struct err *err)
{
    struct fsfile_data d = {0};
    if (!window_data(s, slot, &d))
        return 0;
    const struct fs *f = sched_fs(s);
    int rc = save_data(dir, fs_params(f)->interval, slot_start(f, slot), &d, sync, err);
    fsfile_free(&d);
    return rc;
}

/* Sum of slot i of every user: the total of a file that has none (Maui's
 * files always have one; a hand-written file may not). It is taken from the
 * ledger after the file's records were set, so a user named twice counts
 * once, with the value that won. */
static double user_sum(struct sched *s, int i)
{
    const struct fs *f = sched_fs(s);
    const struct cred_table *t = sched_creds(s, CRED_USER);
    double sum = 0;
    for (size_t j = 0; j < cred_count(t); j++)
        sum += fs_window(f, cred_at(t, j), i);
    return sum;
}

/* Set slot i from a file's records; a record named twice: the later wins. */
static void apply(struct sched *s, int i, const struct fsfile_data *d)
{
    struct fs *f = sched_fs(s);
    int have_total = 0;
    for (size_t j = 0; j < d->n; j++) {
        const struct fsfile_rec *r = &d->recs[j];
        if (r->type == FSFILE_TOTAL) {
            fs_set_total_window(f, i, r->usage);
            have_total = 1;
        } else {
            struct cred *c = cred_get(sched_creds(s, (enum cred_kind)r->type), r->name);
            fs_set_window(f, c, i, r->usage);
        }
    }
    if (!have_total)
        fs_set_total_window(f, i, user_sum(s, i));
}

/*
 * Slots of missing or bad files are left as they are: load is meant for
 * start-up, on a ledger without usage. With FSPOLICY NONE nothing is read
 * (the ledger keeps no windows, and has no current window to count from).
 */
int fsfile_load(const char *dir, struct sched *s, void (*warn)(void *ctx, const char *msg),
                void *ctx)
{
    const struct fs *f = sched_fs(s);
    const struct fs_params *p = fs_params(f);
    if (p->policy == FS_NONE)
        return 0;
    int nread = 0;
    for (int i = 0; i < p->depth && i < FS_MAX_DEPTH; i++) {
        char *path = fsfile_path(dir, slot_start(f, i));
        struct fsfile_data d;
        struct err err = {{0}};
        int rc = fsfile_read(path, &d, &err);
        if (rc < 0 && warn)
            warn(ctx, err.msg);
        if (rc > 0) {
            apply(s, i, &d);
            nread++;
        }
        fsfile_free(&d);
        free(path);
    }
    return nread;
}

/* ---- Keeping only the windows that count ---- */

long fsfile_oldest_kept(const struct sched *s)
{
    const struct fs *f = sched_fs(s);
    int depth = fs_params(f)->depth;
    if (depth > FS_MAX_DEPTH)
        depth = FS_MAX_DEPTH;
    return slot_start(f, depth > 0 ? depth - 1 : 0);
}

/* The window start an FS data file's name holds: "FS." then decimal digits
 * (at most 18: the name of no window this side of the year 10^10 is
 * longer). Returns 1 with *start, or 0 for any other name (temporary
 * files, a user's notes) — those are never removed. */
static int fs_name_start(const char *name, long *start)
{
    if (strncmp(name, "FS.", 3) != 0)
        return 0;
    const char *p = name + 3;
    size_t n = strspn(p, "0123456789");
    if (n == 0 || n > 18 || p[n])
        return 0;
    *start = strtol(p, NULL, 10);
    return 1;
}

int fsfile_prune(const char *dir, long keep_from, struct err *err)
{
    const char *d = dir && *dir ? dir : ".";
    DIR *dp = opendir(d);
    if (!dp) {
        if (errno == ENOENT)
            return 0;
        return err_set(err, "%s: cannot read the directory: %s", d, strerror(errno));
    }
    int removed = 0;
    struct dirent *de;
    long start;
    while ((de = readdir(dp)) != NULL) {
        if (!fs_name_start(de->d_name, &start) || start >= keep_from)
            continue;
        size_t len = strlen(d);
        char *path = xprintf("%s%s%s", d, len && d[len - 1] == '/' ? "" : "/", de->d_name);
        int rc = unlink(path);
        if (rc != 0 && errno != ENOENT) {
            removed = err_set(err, "%s: cannot remove an old window: %s", path, strerror(errno));
            free(path);
            break;
        }
        free(path);
        removed += rc == 0;
    }
    closedir(dp);
    return removed;
}

void fsfile_kept_take(struct fsfile_kept *k, const struct sched *s)
{
    fsfile_kept_free(k);
    const struct fs *f = sched_fs(s);
    const struct fs_params *p = fs_params(f);
    if (p->policy == FS_NONE)
        return;
    k->taken = 1;
    k->interval = p->interval;
    k->keep_from = fsfile_oldest_kept(s);
    for (int i = 0; i < p->depth && i < FS_MAX_DEPTH; i++) {
        struct fsfile_data *d = &k->win[k->n];
        if (window_data(s, i, d))
            k->start[k->n++] = slot_start(f, i);
    }
}

int fsfile_kept_write(const char *dir, const struct fsfile_kept *k, enum fsfile_sync sync,
                      struct err *err)
{
    if (!k->taken)
        return 0;
    for (int i = 0; i < k->n; i++)
        if (save_data(dir, k->interval, k->start[i], &k->win[i], sync, err) < 0)
            return -1;
    if (fsfile_prune(dir, k->keep_from, err) < 0)
        return -1;
    return k->n;
}

void fsfile_kept_free(struct fsfile_kept *k)
{
    for (int i = 0; i < k->n; i++)
        fsfile_free(&k->win[i]);
    *k = (struct fsfile_kept){0};
}

int fsfile_save_kept(const char *dir, struct sched *s, enum fsfile_sync sync, struct err *err)
{
    struct fsfile_kept k = {0};
    fsfile_kept_take(&k, s);
    int rc = fsfile_kept_write(dir, &k, sync, err);
    fsfile_kept_free(&k);
    return rc;
}
