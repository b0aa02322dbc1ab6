/*
 * sacct — see sacct.h.
 *
 * One pass over the file through trace/lines. The header line maps column
 * names to positions once; each later line is split in place at '|' and
 * only the columns moku uses are converted. A blank line (sacct prints
 * none, but an editor may leave one at the end) is passed over.
 */
#include "trace/sacct.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "trace/lines.h"
#include "util/mem.h"

#define SACCT_SHOWN 48 /* at most this much of a bad value goes into a message */
/* Times past 2^40 s are errors, as in SWF: the engine's "never" is 2^62. */
#define SACCT_TIME_MAX ((long long)1 << 40)

/* The columns moku reads; several names may fill one (the first present wins). */
enum sacct_col {
    SC_JOBID,
    SC_JOBIDRAW,
    SC_USER,
    SC_GROUP,
    SC_ACCOUNT,
    SC_PARTITION,
    SC_QOS,
    SC_SUBMIT,
    SC_START,
    SC_END,
    SC_TIMELIMIT,
    SC_NCPUS,
    SC_ALLOCCPUS,
    SC_REQCPUS,
    SC_NNODES,
    SC_REQMEM,
    SC_STATE,
    SC_EXITCODE,
    SC_NCOLS
};

static const char *const sacct_col_names[SC_NCOLS] = {
    "JobID",     "JobIDRaw", "User",   "Group",  "Account",   "Partition",
    "QOS",       "Submit",   "Start",  "End",    "Timelimit", "NCPUS",
    "AllocCPUS", "ReqCPUS",  "NNodes", "ReqMem", "State",     "ExitCode",
};

static const char *const sacct_state_names[SACCT_NSTATES] = {
    "COMPLETED",     "FAILED",    "TIMEOUT",   "CANCELLED", "NODE_FAIL",
    "OUT_OF_MEMORY", "PREEMPTED", "BOOT_FAIL", "DEADLINE",  "REVOKED",
    "PENDING",       "RUNNING",   "SUSPENDED", "REQUEUED",  "RESIZING",
};

const char *sacct_state_name(enum sacct_state s)
{
    return s >= 0 && s < SACCT_NSTATES ? sacct_state_names[s] : "?";
}

int sacct_state_unfinished(enum sacct_state s)
{
    return s == SACCT_PENDING || s == SACCT_RUNNING || s == SACCT_SUSPENDED ||
           s == SACCT_REQUEUED || s == SACCT_RESIZING;
}

/* The state of one sacct_scan. */
struct sacct_reader {
    struct lines in;
    int col[SC_NCOLS]; /* position of each column, -1 when absent */
    int nfields;       /* fields of the header */
    char **f;          /* the current line's fields (nfields) */
    struct sacct_info info;
};

/* The first field of line, up to '|' or its end, into buf. */
static void first_field(const char *line, char *buf, size_t len)
{
    size_t n = strcspn(line, "|\r\n");
    snprintf(buf, len, "%.*s", (int)(n < len ? n : len - 1), line);
}

int sacct_is_header(const char *line)
{
    char first[16];
    if (!strchr(line, '|'))
        return 0;
    first_field(line, first, sizeof first);
    return strcasecmp(first, "JobID") == 0 || strcasecmp(first, "JobIDRaw") == 0;
}

/* Cut the line's end of line; split it at '|' into f (at most max). */
static int split(char *s, char **f, int max)
{
    s[strcspn(s, "\r\n")] = '\0';
    int n = 0;
    for (;;) {
        char *bar = strchr(s, '|');
        if (n < max)
            f[n] = s;
        n++;
        if (!bar)
            return n;
        *bar = '\0';
        s = bar + 1;
    }
}

static int header(struct sacct_reader *r)
{
    int n = 1;
    for (const char *p = r->in.buf; *p && *p != '\n' && *p != '\r'; p++)
        n += *p == '|';
    r->f = xcalloc((size_t)n, sizeof *r->f);
    r->nfields = split(r->in.buf, r->f, n);
    for (int c = 0; c < SC_NCOLS; c++)
        r->col[c] = -1;
    for (int i = 0; i < r->nfields; i++)
        for (int c = 0; c < SC_NCOLS; c++) {
            if (strcasecmp(r->f[i], sacct_col_names[c]) != 0)
                continue;
            if (r->col[c] >= 0)
                return err_set(r->in.err, "%s:%ld: column %s given twice", r->in.path, r->in.line,
                               sacct_col_names[c]);
            r->col[c] = i;
        }
    if (r->col[SC_JOBID] < 0 && r->col[SC_JOBIDRAW] < 0)
        return err_set(r->in.err, "%s:%ld: the header has no JobID column", r->in.path, r->in.line);
    static const enum sacct_col needed[] = {SC_SUBMIT, SC_START, SC_END, SC_STATE};
    for (size_t k = 0; k < sizeof needed / sizeof *needed; k++)
        if (r->col[needed[k]] < 0)
            return err_set(r->in.err,
                           "%s:%ld: the header has no %s column (give sacct --format "
                           "JobID,User,...,%s,...: docs/simulation.md has the command)",
                           r->in.path, r->in.line, sacct_col_names[needed[k]],
                           sacct_col_names[needed[k]]);
    if (r->col[SC_NCPUS] < 0 && r->col[SC_ALLOCCPUS] < 0 && r->col[SC_REQCPUS] < 0)
        return err_set(r->in.err, "%s:%ld: the header has no NCPUS column", r->in.path, r->in.line);
    return 0;
}

/* The field of column c on the current line, NULL when the column is absent. */
static const char *field(const struct sacct_reader *r, enum sacct_col c)
{
    return r->col[c] >= 0 ? r->f[r->col[c]] : NULL;
}

static int bad(struct sacct_reader *r, enum sacct_col c, const char *v, const char *what)
{
    return err_set(r->in.err, "%s:%ld: column %s: '%.*s'%s %s", r->in.path, r->in.line,
                   sacct_col_names[c], SACCT_SHOWN, v, strlen(v) > SACCT_SHOWN ? "..." : "", what);
}

/* Decimal digits [s, s + n) into *out; 0 when they all are digits and fit. */
static int digits(const char *s, size_t n, long long *out)
{
    long long v = 0;
    if (n == 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9' || v > (LLONG_MAX - 9) / 10)
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return 0;
}

/* Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar
 * (Howard Hinnant's days_from_civil): no time zone, no libc state. */
static long long days_from_civil(long long y, long long m, long long d)
{
    y -= m <= 2;
    long long era = (y >= 0 ? y : y - 399) / 400;
    long long yoe = y - era * 400;
    long long doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    long long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static int days_in_month(long long y, long long m)
{
    static const int dm[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return dm[m - 1] + (m == 2 && leap);
}

/* "2026-10-01T08:30:00" as UTC epoch seconds; -1 when not of that form. */
static long long iso_time(const char *s)
{
    long long y, mo, d, h, mi, se;
    if (strlen(s) != 19 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' ||
        s[16] != ':' || digits(s, 4, &y) || digits(s + 5, 2, &mo) || digits(s + 8, 2, &d) ||
        digits(s + 11, 2, &h) || digits(s + 14, 2, &mi) || digits(s + 17, 2, &se))
        return -1;
    if (mo < 1 || mo > 12 || d < 1 || d > days_in_month(y, mo) || h > 23 || mi > 59 || se > 60)
        return -1;
    return days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se;
}

/* Submit, Start, End: a date, epoch seconds, or unknown (-1). */
static int time_field(struct sacct_reader *r, enum sacct_col c, long long *out)
{
    const char *v = field(r, c);
    *out = -1;
    if (!v || !*v || strcmp(v, "Unknown") == 0 || strcmp(v, "None") == 0)
        return 0;
    long long t;
    if (digits(v, strlen(v), &t) == 0 && t < SACCT_TIME_MAX) {
        *out = t;
        return 0;
    }
    if ((t = iso_time(v)) < 0)
        return bad(r, c, v,
                   "is not a time YYYY-MM-DDTHH:MM:SS (run sacct with TZ=UTC "
                   "SLURM_TIME_FORMAT=standard)");
    *out = t;
    return 0;
}

/* Slurm's [DD-[HH:]]MM:SS into seconds; -1 when not of that form. */
static long long duration(const char *s)
{
    long long days = 0, part[3] = {0, 0, 0};
    const char *dash = strchr(s, '-');
    if (dash) {
        if (digits(s, (size_t)(dash - s), &days) || days > 100000000)
            return -1;
        s = dash + 1;
    }
    int n = 0;
    for (;;) {
        size_t len = strcspn(s, ":");
        if (n == 3 || len > 9 || digits(s, len, &part[n]))
            return -1;
        n++;
        if (!s[len])
            break;
        s += len + 1;
    }
    /* MM:SS, HH:MM:SS; after "D-" hours come first (D-HH, D-HH:MM, D-HH:MM:SS). */
    long long h = 0, m = 0, sec = 0;
    if (dash) {
        h = part[0];
        m = n > 1 ? part[1] : 0;
        sec = n > 2 ? part[2] : 0;
    } else if (n == 3) {
        h = part[0], m = part[1], sec = part[2];
    } else if (n == 2) {
        m = part[0], sec = part[1];
    } else {
        m = part[0]; /* a bare number is minutes, as Slurm reads --time */
    }
    if ((m > 59 && (dash || n == 3)) || (dash && h > 23))
        return -1;
    if (sec > 59 && n > 1)
        return -1;
    return days * 86400 + h * 3600 + m * 60 + sec;
}

static int timelimit_field(struct sacct_reader *r, long long *out)
{
    const char *v = field(r, SC_TIMELIMIT);
    *out = -1;
    if (!v || !*v || strcmp(v, "UNLIMITED") == 0 || strcmp(v, "Partition_Limit") == 0)
        return 0;
    if ((*out = duration(v)) < 0)
        return bad(r, SC_TIMELIMIT, v, "is not a time limit [DD-[HH:]]MM:SS or UNLIMITED");
    return 0;
}

/* A count column; -1 when empty or absent. */
static int count_field(struct sacct_reader *r, enum sacct_col c, long long *out)
{
    const char *v = field(r, c);
    *out = -1;
    if (!v || !*v)
        return 0;
    if (digits(v, strlen(v), out) || *out > INT_MAX)
        return bad(r, c, v, "is not a count");
    return 0;
}

/* ReqMem: "4000M", "1.50G", "2Gc", "64000Mn", "0". */
static int reqmem_field(struct sacct_reader *r, struct sacct_rec *rec)
{
    const char *v = field(r, SC_REQMEM);
    rec->reqmem_mb = -1;
    rec->reqmem_per = 'j';
    if (!v || !*v)
        return 0;
    char *end;
    double x = strtod(v, &end);
    if (end == v || !isdigit((unsigned char)*v) || !isfinite(x))
        return bad(r, SC_REQMEM, v, "is not an amount of memory (4000M, 4G, 2Gc)");
    static const char units[] = "KMGTP";
    const char *u = *end ? strchr(units, toupper((unsigned char)*end)) : NULL;
    double scale = 1;
    if (u) {
        scale = pow(1024.0, (double)(u - units) - 1); /* K is 1/1024 MB */
        end++;
    }
    if (*end == 'c' || *end == 'n')
        rec->reqmem_per = *end++;
    if (*end || x * scale > 1e15)
        return bad(r, SC_REQMEM, v, "is not an amount of memory (4000M, 4G, 2Gc)");
    rec->reqmem_mb = x * scale;
    return 0;
}

static int state_field(struct sacct_reader *r, struct sacct_rec *rec)
{
    const char *v = field(r, SC_STATE);
    size_t n = strcspn(v, " +");
    for (int s = 0; s < SACCT_NSTATES; s++)
        if (strlen(sacct_state_names[s]) == n && strncmp(v, sacct_state_names[s], n) == 0) {
            rec->state = (enum sacct_state)s;
            return 0;
        }
    return bad(r, SC_STATE, v, "is not a job state sacct prints (COMPLETED, CANCELLED, ...)");
}

static int exitcode_field(struct sacct_reader *r, struct sacct_rec *rec)
{
    const char *v = field(r, SC_EXITCODE);
    long long code, sig;
    rec->exit_code = rec->exit_signal = -1;
    if (!v || !*v)
        return 0;
    const char *colon = strchr(v, ':');
    if (!colon || digits(v, (size_t)(colon - v), &code) ||
        digits(colon + 1, strlen(colon + 1), &sig) || code > 255 || sig > 255)
        return bad(r, SC_EXITCODE, v, "is not an exit code CODE:SIGNAL");
    rec->exit_code = (int)code;
    rec->exit_signal = (int)sig;
    return 0;
}

static const char *text_field(const struct sacct_reader *r, enum sacct_col c)
{
    const char *v = field(r, c);
    return v && *v ? v : NULL;
}

/* "12.batch", "12.0", "12_3.extern", "12+1.0": a step of a job. */
static int is_step(const char *id)
{
    return strchr(id, '.') != NULL;
}

/* Convert the fields of a job line into rec. */
static int job_line(struct sacct_reader *r, struct sacct_rec *rec)
{
    const char *id = text_field(r, r->col[SC_JOBID] >= 0 ? SC_JOBID : SC_JOBIDRAW);
    if (!id)
        return err_set(r->in.err, "%s:%ld: column JobID is empty", r->in.path, r->in.line);
    *rec = (struct sacct_rec){.id = id,
                              .user = text_field(r, SC_USER),
                              .group = text_field(r, SC_GROUP),
                              .account = text_field(r, SC_ACCOUNT),
                              .partition = text_field(r, SC_PARTITION),
                              .qos = text_field(r, SC_QOS),
                              .line = r->in.line};
    enum sacct_col cpus = r->col[SC_NCPUS] >= 0 ? SC_NCPUS : SC_ALLOCCPUS;
    if (time_field(r, SC_SUBMIT, &rec->submit) < 0 || time_field(r, SC_START, &rec->start) < 0 ||
        time_field(r, SC_END, &rec->end) < 0 || timelimit_field(r, &rec->timelimit) < 0 ||
        count_field(r, cpus, &rec->ncpus) < 0 || count_field(r, SC_REQCPUS, &rec->reqcpus) < 0 ||
        count_field(r, SC_NNODES, &rec->nnodes) < 0 || reqmem_field(r, rec) < 0 ||
        state_field(r, rec) < 0 || exitcode_field(r, rec) < 0)
        return -1;
    return 0;
}

/* The first data line of a file without a header: say what to do. */
static int no_header(struct sacct_reader *r)
{
    return err_set(r->in.err,
                   "%s:%ld: no header line naming the columns (sacct -n/--noheader leaves it "
                   "out: run sacct without it)",
                   r->in.path, r->in.line);
}

static int is_blank(const char *s)
{
    return s[strspn(s, " \t\r\n")] == '\0';
}

int sacct_scan(const char *path, struct sacct_info *info,
               int (*each)(void *ctx, const struct sacct_rec *rec, struct err *err), void *ctx,
               struct err *err)
{
    struct sacct_reader r = {0};
    if (lines_open(&r.in, path, err) < 0)
        return -1;
    int rc, fail = 0;
    while (!fail && (rc = lines_next(&r.in)) > 0) {
        if (is_blank(r.in.buf))
            continue;
        if (!r.f) {
            fail = sacct_is_header(r.in.buf) ? header(&r) < 0 : no_header(&r) < 0;
            continue;
        }
        int n = split(r.in.buf, r.f, r.nfields);
        if (n != r.nfields) {
            fail = err_set(err,
                           "%s:%ld: %d fields where the header has %d (a '|' inside a "
                           "field? leave JobName and free text out of --format)",
                           path, r.in.line, n, r.nfields) < 0;
            continue;
        }
        const char *id = field(&r, r.col[SC_JOBID] >= 0 ? SC_JOBID : SC_JOBIDRAW);
        if (*id && is_step(id)) {
            r.info.steps++;
            continue;
        }
        struct sacct_rec rec;
        fail = job_line(&r, &rec) < 0 || each(ctx, &rec, err) != 0;
    }
    if (!fail && rc == 0 && !r.f)
        fail = err_set(err, "%s: empty: no header line", path) < 0;
    if (rc < 0)
        fail = 1;
    free(r.f);
    lines_close(&r.in);
    if (!fail && info)
        *info = r.info;
    return fail ? -1 : 0;
}
