/* homelog — see homelog.h. */
#include "trace/homelog.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/mem.h"

int homelog_is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

char *homelog_db_path(const char *dir)
{
    size_t n = strlen(dir);
    return xprintf("%s%smoku.db", dir, n && dir[n - 1] == '/' ? "" : "/");
}

/* The ended jobs, collected: store callbacks free each record after the
 * call, so a copy is kept (the fields the caller may use). */
struct collect {
    struct store_job *v;
    size_t n, cap;
};

static char *dup_or_null(const char *s)
{
    return s ? xstrdup(s) : NULL;
}

static int keep(void *ctx, const struct store_job *j)
{
    struct collect *c = ctx;
    c->v = xgrow(c->v, &c->cap, c->n + 1, sizeof *c->v);
    struct store_job *k = &c->v[c->n++];
    *k = *j;
    /* Strings of our own (store_job_free frees them); those not kept are NULL. */
    k->name = dup_or_null(j->name);
    k->user = dup_or_null(j->user);
    k->group = dup_or_null(j->group);
    k->account = dup_or_null(j->account);
    k->class_ = dup_or_null(j->class_);
    k->qos = dup_or_null(j->qos);
    k->advres = dup_or_null(j->advres);
    k->features = dup_or_null(j->features);
    k->hosts = k->script = k->cwd = k->out_path = k->err_path = k->env = NULL;
    k->message = k->mail_events = k->mail_users = NULL;
    return 0;
}

static int count(void *ctx, const struct store_job *j)
{
    (void)j;
    ((struct homelog_info *)ctx)->unfinished++;
    return 0;
}

static int by_id(const void *a, const void *b)
{
    const struct store_job *x = a, *y = b;
    return (x->id > y->id) - (x->id < y->id);
}

int homelog_scan(const char *dir, struct homelog_info *info,
                 int (*each)(void *ctx, const struct store_job *j, struct err *err), void *ctx,
                 struct err *err)
{
    char *db = homelog_db_path(dir);
    struct stat sb;
    int missing = stat(db, &sb) < 0;
    if (missing || sb.st_size == 0) {
        err_set(err, "%s: %s: not a moku home (no database to replay)", db,
                missing ? strerror(errno) : "empty");
        free(db);
        return -1;
    }
    struct store *st = store_open_readonly(db, err);
    free(db);
    if (!st)
        return -1;
    struct collect c = {0};
    struct homelog_info in = {0};
    int rc = store_jobs_ended(st, LONG_MIN, SIZE_MAX, keep, &c, err) < 0 ||
             store_jobs_active(st, count, &in, err) < 0;
    store_close(st);
    if (!rc && c.n)
        qsort(c.v, c.n, sizeof *c.v, by_id);
    for (size_t i = 0; i < c.n && !rc; i++)
        rc = each(ctx, &c.v[i], err) != 0;
    for (size_t i = 0; i < c.n; i++)
        store_job_free(&c.v[i]);
    free(c.v);
    if (!rc && info)
        *info = in;
    return rc ? -1 : 0;
}
