/*
 * val_sched — schedules that are not moku's jobs CSV: moku simulate's
 * --swf-out (an SWF file whose wait, run time and status are the
 * simulation's) and --batsim-out (Batsim's jobs.csv), each row turned into
 * the validator's terms (val_int.h). Neither says which processors of a
 * node a job held: SWF names no node at all, Batsim names the nodes but
 * not the processors on each; val.c checks what they do say.
 */
#include "validate/val_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "trace/lines.h"
#include "trace/swf.h"
#include "util/mem.h"

/* Batsim's header starts "job_id,workload_name,": that of moku's --batsim-out
 * (with or without a leading run column) and of Batsim itself. */
static int batsim_header(const char *s)
{
    if (strncmp(s, "run,", 4) == 0)
        s += 4;
    return strncmp(s, "job_id,workload_name,", 21) == 0;
}

enum val_sched_kind val_sched_kind(const char *path)
{
    struct lines in = {0};
    struct err e;
    enum val_sched_kind k = VAL_SCHED_CSV;
    if (lines_open(&in, path, &e) < 0)
        return k;
    while (lines_next(&in) > 0) {
        const char *s = in.buf + strspn(in.buf, " \t");
        if (*s == '\n' || *s == '\r' || !*s)
            continue;
        if (*s == ';' || (*s >= '0' && *s <= '9'))
            k = VAL_SCHED_SWF; /* SWF: header comments, or a job line of numbers */
        else if (batsim_header(s))
            k = VAL_SCHED_BATSIM;
        break;
    }
    lines_close(&in);
    return k;
}

static void srow_clear(struct val_srow *r)
{
    for (int k = 0; k < 5; k++)
        free(r->cred[k]);
    free(r->id);
    free(r->state);
    free(r->nodes);
    *r = (struct val_srow){0};
}

static void push(struct val_srow **rows, size_t *n, size_t *cap, const struct val_srow *r)
{
    *rows = xgrow(*rows, cap, *n + 1, sizeof **rows);
    (*rows)[(*n)++] = *r;
}

/* ---------------------------------------------------------------- SWF */

struct swf_ctx {
    struct val_srow *rows;
    size_t n, cap;
};

/* Field 11 as the jobs CSV's state: 1 completed, 0 killed, 5 cancelled (it
 * started) or never started, -1 still running. */
static const char *swf_state(long long status, long long wait)
{
    switch (status) {
    case 1:
        return "completed";
    case 0:
        return "killed";
    case -1:
        return wait >= 0 ? "running" : "never_started";
    default:
        return wait >= 0 ? "cancelled" : "never_started";
    }
}

static int swf_row(void *ctx, const struct swf_rec *r, struct err *err)
{
    struct swf_ctx *c = ctx;
    (void)err;
    char id[32];
    snprintf(id, sizeof id, "%lld", r->id);
    long start = r->wait >= 0 ? (long)(r->submit + r->wait) : -1;
    struct val_srow row = {
        .id = xstrdup(id),
        .line = r->line,
        .submit = (long)r->submit,
        .start = start,
        .end = start >= 0 && r->runtime >= 0 ? start + (long)r->runtime : -1,
        .procs = (long)(r->req_procs > 0 ? r->req_procs : r->alloc),
        .walltime = r->req_time > 0 ? (long)r->req_time : -1,
        .state = xstrdup(swf_state(r->status, r->wait)),
    };
    const long long names[5] = {r->user, r->group, -1, r->queue, -1};
    for (int k = 0; k < 5; k++)
        if (names[k] >= 0) {
            snprintf(id, sizeof id, "%lld", names[k]);
            row.cred[k] = xstrdup(id);
        }
    push(&c->rows, &c->n, &c->cap, &row);
    return 0;
}

static int read_swf(const char *path, struct val_srow **rows, size_t *n, struct err *err)
{
    struct swf_ctx c = {0};
    struct swf_header hdr;
    int rc = swf_scan(path, &hdr, swf_row, &c, err);
    *rows = c.rows;
    *n = c.n;
    return rc;
}

/* ------------------------------------------------------------- Batsim */

enum bcol {
    B_ID,
    B_SUBMIT,
    B_PROCS,
    B_WALL,
    B_STATE,
    B_START,
    B_FINISH,
    B_ALLOC,
    B_RUN,
    B_META,
    B_N
};
static const char *const bcol_names[B_N] = {
    "job_id",         "submission_time",     "requested_number_of_resources",
    "requested_time", "final_state",         "starting_time",
    "finish_time",    "allocated_resources", "run",
    "metadata"};

static int bheader(const char *path, const struct val_row *r, int *col, struct err *err)
{
    for (int c = 0; c < B_N; c++) {
        col[c] = -1;
        for (size_t i = 0; i < r->n; i++)
            if (strcmp(r->f[i], bcol_names[c]) == 0 ||
                (c == B_FINISH && strcmp(r->f[i], "finishing_time") == 0)) /* moku before 32 */
                col[c] = (int)i;
        if (c != B_RUN && c != B_META && col[c] < 0)
            return err_set(err, "%s:1: no column '%s' (Batsim's jobs.csv names its columns)", path,
                           bcol_names[c]);
    }
    return 0;
}

/* A Batsim number (times may have decimals: whole seconds kept), -1 allowed. */
static int bnum(const char *s, long *out)
{
    char *end;
    errno = 0;
    double d = strtod(s, &end);
    if (!*s || *end || errno || d < -1 || d > 1e15)
        return -1;
    *out = (long)d;
    return 0;
}

/* Batsim's final_state as the jobs CSV's state, NULL if unknown. */
static const char *bstate(const char *s)
{
    static const char *const map[][2] = {{"COMPLETED_SUCCESSFULLY", "completed"},
                                         {"COMPLETED_FAILED", "completed"},
                                         {"COMPLETED_WALLTIME_REACHED", "killed"},
                                         {"COMPLETED_KILLED", "cancelled"},
                                         {"REJECTED", "rejected"}};
    for (size_t i = 0; i < sizeof map / sizeof *map; i++)
        if (strcmp(s, map[i][0]) == 0)
            return map[i][1];
    return NULL;
}

/* moku's metadata "user=U;group=G;account=A;class=C;qos=Q": the
 * credentials (Batsim's own metadata, free text, names none). */
static void metadata(const char *m, struct val_srow *row)
{
    static const char *const keys[5] = {"user=", "group=", "account=", "class=", "qos="};
    while (*m) {
        size_t len = strcspn(m, ";");
        for (int k = 0; k < 5; k++) {
            size_t kl = strlen(keys[k]);
            if (len > kl && strncmp(m, keys[k], kl) == 0 && !row->cred[k])
                row->cred[k] = xstrndup(m + kl, len - kl);
        }
        m += len + (m[len] == ';');
    }
}

/* Batsim's interval set "0-3 7" into node indices. */
static int intervals(const char *s, struct val_srow *row)
{
    size_t cap = 0;
    while (*s) {
        char *end;
        errno = 0;
        long a = strtol(s, &end, 10), b = a;
        if (end == s || a < 0 || errno)
            return -1;
        if (*end == '-') {
            const char *t = end + 1;
            b = strtol(t, &end, 10);
            if (end == t || b < a || errno || b - a > 10000000)
                return -1;
        }
        if (*end && *end != ' ')
            return -1;
        for (long k = a; k <= b; k++) {
            row->nodes = xgrow(row->nodes, &cap, row->nnodes + 1, sizeof *row->nodes);
            row->nodes[row->nnodes++] = k;
        }
        s = end + strspn(end, " ");
    }
    return 0;
}

static int brow(const char *path, const int *col, const struct val_row *r, struct val_srow *row,
                struct err *err)
{
    const char *f[B_N];
    for (int c = 0; c < B_N; c++)
        f[c] = col[c] >= 0 && (size_t)col[c] < r->n ? r->f[col[c]] : "";
    *row = (struct val_srow){.id = xstrdup(f[B_ID]), .line = r->line, .start = -1, .end = -1};
    const struct {
        enum bcol c;
        long *to;
    } nums[] = {{B_SUBMIT, &row->submit},
                {B_PROCS, &row->procs},
                {B_WALL, &row->walltime},
                {B_START, &row->start},
                {B_FINISH, &row->end}};
    for (size_t k = 0; k < sizeof nums / sizeof *nums; k++)
        if (bnum(f[nums[k].c], nums[k].to) < 0)
            return err_set(err, "%s:%ld: %s '%s' is not a number", path, r->line,
                           bcol_names[nums[k].c], f[nums[k].c]);
    const char *state = bstate(f[B_STATE]);
    if (!state)
        return err_set(err, "%s:%ld: final_state '%s' is not one of Batsim's", path, r->line,
                       f[B_STATE]);
    row->state = xstrdup(state);
    metadata(f[B_META], row);
    if (intervals(f[B_ALLOC], row) < 0)
        return err_set(err, "%s:%ld: allocated_resources '%s' is not an interval set (0-3 7)", path,
                       r->line, f[B_ALLOC]);
    return 0;
}

static int read_batsim(const char *path, struct val_srow **rows, size_t *n, struct err *err)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return err_set(err, "%s: %s", path, strerror(errno));
    long line = 0;
    size_t cap = 0;
    struct val_row r;
    int col[B_N], got = val_csv_row(f, path, &line, &r, err), rc = got > 0 ? 0 : -1;
    char *run = NULL;
    if (got == 0)
        err_set(err, "%s: empty (no header)", path);
    if (got > 0) {
        rc = bheader(path, &r, col, err);
        val_row_free(&r);
    }
    while (rc == 0 && (got = val_csv_row(f, path, &line, &r, err)) != 0) {
        struct val_srow row = {0};
        if (got < 0) {
            rc = -1;
            break;
        }
        const char *rv = col[B_RUN] >= 0 && (size_t)col[B_RUN] < r.n ? r.f[col[B_RUN]] : NULL;
        if (rv && run && strcmp(rv, run) != 0)
            rc = err_set(err,
                         "%s:%ld: rows of several runs (run %s and %s): validate one "
                         "run's rows at a time, with that run's configuration",
                         path, r.line, run, rv);
        else if (rv && !run)
            run = xstrdup(rv);
        if (rc == 0 && (rc = brow(path, col, &r, &row, err)) == 0)
            push(rows, n, &cap, &row);
        else if (rc < 0 && row.id)
            srow_clear(&row);
        val_row_free(&r);
    }
    free(run);
    fclose(f);
    return rc;
}

int val_sched_read(const char *path, enum val_sched_kind k, struct val_srow **rows, size_t *n,
                   struct err *err)
{
    *rows = NULL;
    *n = 0;
    int rc = k == VAL_SCHED_SWF ? read_swf(path, rows, n, err) : read_batsim(path, rows, n, err);
    if (rc < 0) {
        val_srows_free(*rows, *n);
        *rows = NULL;
        *n = 0;
    }
    return rc;
}

void val_srows_free(struct val_srow *rows, size_t n)
{
    for (size_t i = 0; i < n; i++)
        srow_clear(&rows[i]);
    free(rows);
}
