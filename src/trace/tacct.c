/*
 * tacct — see tacct.h.
 *
 * One pass through trace/lines. A record's attributes are `key=value`
 * words; a word without '=' continues the value before it (Torque writes a
 * job name with blanks as it is), and a value that starts with a quote runs
 * to the closing quote (PBS Pro). Only the keys moku uses are converted;
 * the others are passed over whatever they hold.
 */
#include "trace/tacct.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "trace/lines.h"
#include "util/mem.h"

#define TACCT_SHOWN 48
#define TACCT_TIME_MAX ((long long)1 << 40)

struct tacct_reader {
    struct lines in;
    struct tacct_info info;
};

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* "MM/DD/YYYY HH:MM:SS" at s (19 characters). */
static int is_stamp(const char *s)
{
    static const char shape[] = "dd/dd/dddd dd:dd:dd";
    for (int i = 0; shape[i]; i++)
        if (shape[i] == 'd' ? !is_digit(s[i]) : s[i] != shape[i])
            return 0;
    return 1;
}

int tacct_is_record(const char *line)
{
    return strlen(line) >= 22 && is_stamp(line) && line[19] == ';' &&
           isalpha((unsigned char)line[20]) && line[21] == ';';
}

static int bad(struct tacct_reader *r, const char *key, const char *v, size_t n, const char *what)
{
    return err_set(r->in.err, "%s:%ld: %s='%.*s'%s %s", r->in.path, r->in.line, key,
                   (int)(n < TACCT_SHOWN ? n : TACCT_SHOWN), v, n > TACCT_SHOWN ? "..." : "", what);
}

/* Digits [s, s + n) into *out; -1 unless all digits and in range. */
static int digits(const char *s, size_t n, long long *out)
{
    long long v = 0;
    if (n == 0 || n > 18)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (!is_digit(s[i]))
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return 0;
}

/* [[[DD:]HH:]MM:]SS (Torque writes HH:MM:SS, hours past 24 allowed). */
static long long duration(const char *s, size_t n)
{
    long long part[4], total = 0;
    int k = 0;
    for (size_t at = 0;;) {
        size_t len = 0;
        while (at + len < n && s[at + len] != ':')
            len++;
        if (k == 4 || digits(s + at, len, &part[k]))
            return -1;
        k++;
        at += len;
        if (at == n)
            break;
        at++;
    }
    static const long long unit[4][4] = {{1}, {60, 1}, {3600, 60, 1}, {86400, 3600, 60, 1}};
    for (int i = 0; i < k; i++)
        total += part[i] * unit[k - 1][i];
    return total < TACCT_TIME_MAX ? total : -1;
}

/* "4gb", "2031040kb", "100mb", "1024" (bytes), "10w" (words) into MB. */
static double size_mb(const char *s, size_t n)
{
    long long v;
    size_t d = 0;
    while (d < n && is_digit(s[d]))
        d++;
    if (digits(s, d, &v))
        return -1;
    char unit[4] = {0};
    if (n - d > 3)
        return -1;
    for (size_t i = d; i < n; i++)
        unit[i - d] = (char)tolower((unsigned char)s[i]);
    static const char *const units[] = {"b", "kb", "mb", "gb", "tb", "pb"};
    static const char *const words[] = {"w", "kw", "mw", "gw", "tw", "pw"};
    for (int i = 0; i < 6; i++) {
        if (!*unit || !strcmp(unit, units[i]))
            return (double)v * pow(1024.0, (double)(*unit ? i : 0)) / (1024.0 * 1024.0);
        if (!strcmp(unit, words[i]))
            return (double)v * 8.0 * pow(1024.0, (double)i) / (1024.0 * 1024.0);
    }
    return -1;
}

/* Slots of one exec_host entry's list after '/': "0", "0-3", "0,2-3", "0*4". */
static long long slot_list(const char *s, size_t n)
{
    long long total = 0;
    for (size_t at = 0; at <= n;) {
        size_t len = 0;
        while (at + len < n && s[at + len] != ',')
            len++;
        const char *w = s + at;
        const char *dash = memchr(w, '-', len), *star = memchr(w, '*', len);
        const char *sep = star ? star : dash;
        long long a, b;
        if (!len)
            return -1; /* "", "0,", ",1" */
        if (!sep) {
            if (digits(w, len, &a))
                return -1;
            total++;
        } else {
            size_t left = (size_t)(sep - w);
            if (digits(w, left, &a) || digits(sep + 1, len - left - 1, &b))
                return -1;
            if (!star && b < a)
                return -1;
            total += star ? b : b - a + 1; /* PBS Pro: host/0*4 is four processors */
        }
        at += len + 1;
    }
    return total;
}

/* exec_host "n1/0-3+n2/0+n2/1": every slot it lists. */
static long long exec_slots(const char *s, size_t n)
{
    long long total = 0;
    for (size_t at = 0; at <= n;) {
        size_t len = 0;
        while (at + len < n && s[at + len] != '+')
            len++;
        const char *slash = memchr(s + at, '/', len);
        if (!len || !slash || slash == s + at)
            return -1;
        size_t rest = len - (size_t)(slash - (s + at)) - 1;
        long long k = slot_list(slash + 1, rest);
        if (k < 0)
            return -1;
        total += k;
        at += len + 1;
    }
    return total;
}

/* Resource_List.nodes "2:ppn=4+node7:ppn=2:bigmem+3": processors asked. */
static long long nodes_procs(const char *s, size_t n)
{
    long long total = 0;
    for (size_t at = 0; at <= n;) {
        size_t len = 0;
        while (at + len < n && s[at + len] != '+')
            len++;
        if (!len)
            return -1;
        const char *p = s + at, *e = p + len;
        size_t first = 0;
        while (p + first < e && p[first] != ':')
            first++;
        long long count = 1, ppn = 1;
        if (first && is_digit(p[0]) && digits(p, first, &count))
            return -1; /* "2x" is neither a count nor a host name Torque takes */
        for (const char *q = p + first; q < e;) {
            q++; /* past ':' */
            size_t k = 0;
            while (q + k < e && q[k] != ':')
                k++;
            if (k > 4 && strncmp(q, "ppn=", 4) == 0 && digits(q + 4, k - 4, &ppn))
                return -1;
            q += k;
        }
        if (count > INT_MAX || ppn > INT_MAX)
            return -1;
        total += count * ppn;
        at += len + 1;
    }
    return total;
}

/* The keys moku converts, and how. */
enum tkind { TK_TEXT, TK_EPOCH, TK_TIME, TK_COUNT, TK_SIZE, TK_EXEC, TK_NODES, TK_EXIT };

static const struct tkey {
    const char *name;
    enum tkind kind;
    size_t off;
} tkeys[] = {
    {"user", TK_TEXT, offsetof(struct tacct_rec, user)},
    {"group", TK_TEXT, offsetof(struct tacct_rec, group)},
    {"account", TK_TEXT, offsetof(struct tacct_rec, account)},
    {"queue", TK_TEXT, offsetof(struct tacct_rec, queue)},
    {"ctime", TK_EPOCH, offsetof(struct tacct_rec, ctime)},
    {"qtime", TK_EPOCH, offsetof(struct tacct_rec, qtime)},
    {"etime", TK_EPOCH, offsetof(struct tacct_rec, etime)},
    {"start", TK_EPOCH, offsetof(struct tacct_rec, start)},
    {"end", TK_EPOCH, offsetof(struct tacct_rec, end)},
    {"Resource_List.walltime", TK_TIME, offsetof(struct tacct_rec, req_walltime)},
    {"Resource_List.procs", TK_COUNT, offsetof(struct tacct_rec, req_procs)},
    {"Resource_List.ncpus", TK_COUNT, offsetof(struct tacct_rec, req_ncpus)},
    {"Resource_List.nodect", TK_COUNT, offsetof(struct tacct_rec, req_nodect)},
    {"Resource_List.nodes", TK_NODES, offsetof(struct tacct_rec, req_nodes_procs)},
    {"Resource_List.mem", TK_SIZE, offsetof(struct tacct_rec, req_mem_mb)},
    {"exec_host", TK_EXEC, offsetof(struct tacct_rec, exec_slots)},
    {"total_execution_slots", TK_COUNT, offsetof(struct tacct_rec, total_slots)},
    {"resources_used.walltime", TK_TIME, offsetof(struct tacct_rec, used_walltime)},
    {"Exit_status", TK_EXIT, offsetof(struct tacct_rec, exit_status)},
};

static long long *num_at(struct tacct_rec *rec, size_t off)
{
    return (long long *)((char *)rec + off);
}

/* Convert value v (n bytes, NUL-terminated in place) of key k into rec. */
static int convert(struct tacct_reader *r, const struct tkey *k, char *v, size_t n,
                   struct tacct_rec *rec)
{
    long long x = -1;
    double mb;
    switch (k->kind) {
    case TK_TEXT:
        *(const char **)((char *)rec + k->off) = n ? v : NULL;
        return 0;
    case TK_EPOCH:
        if (digits(v, n, &x) || x >= TACCT_TIME_MAX)
            return bad(r, k->name, v, n, "is not a time in epoch seconds");
        break;
    case TK_TIME:
        if ((x = duration(v, n)) < 0)
            return bad(r, k->name, v, n, "is not a duration [[HH:]MM:]SS");
        break;
    case TK_COUNT:
        if (digits(v, n, &x) || x > INT_MAX)
            return bad(r, k->name, v, n, "is not a count");
        break;
    case TK_NODES:
        if ((x = nodes_procs(v, n)) < 0 || x > INT_MAX)
            return bad(r, k->name, v, n, "is not a node spec N[:ppn=P][+...]");
        break;
    case TK_EXEC:
        if ((x = exec_slots(v, n)) < 0 || x > INT_MAX)
            return bad(r, k->name, v, n, "is not a host list host/slots[+host/slots...]");
        break;
    case TK_SIZE:
        if ((mb = size_mb(v, n)) < 0)
            return bad(r, k->name, v, n, "is not a size (4gb, 2048mb)");
        rec->req_mem_mb = mb;
        return 0;
    case TK_EXIT: {
        int neg = n && v[0] == '-';
        if (digits(v + neg, n - (size_t)neg, &x) || x > INT_MAX)
            return bad(r, k->name, v, n, "is not an exit status");
        rec->exit_status = neg ? -x : x;
        rec->has_exit = 1;
        return 0;
    }
    }
    *num_at(rec, k->off) = x;
    return 0;
}

/* Whether a word at s starts a new attribute: name=..., the name made of
 * letters, digits, '_' and '.'. */
static int starts_attr(const char *s)
{
    if (!isalpha((unsigned char)*s) && *s != '_')
        return 0;
    while (isalnum((unsigned char)*s) || *s == '_' || *s == '.')
        s++;
    return *s == '=';
}

/* Cut the next attribute off *p: its key and value, NUL-terminated in
 * place; 1 for one, 0 at the end, -1 on an unterminated quote. */
static int next_attr(struct tacct_reader *r, char **p, char **key, char **val, size_t *vlen)
{
    char *s = *p;
    while (*s == ' ' || *s == '\t')
        s++;
    if (!*s)
        return 0;
    *key = s;
    if (!starts_attr(s)) /* a word of the record's first value, before any key */
        return err_set(r->in.err, "%s:%ld: '%.*s' is not key=value", r->in.path, r->in.line,
                       TACCT_SHOWN, s);
    char *eq = strchr(s, '=');
    *eq = '\0';
    char *v = eq + 1, *end;
    if (*v == '"') {
        end = strchr(v + 1, '"');
        if (!end)
            return err_set(r->in.err, "%s:%ld: %s: the quote is not closed", r->in.path, r->in.line,
                           *key);
        v++;
        *end = '\0';
        *p = end + 1;
    } else {
        /* to the next word that starts an attribute: the blanks of a job
         * name stay in its value */
        end = v;
        for (;;) {
            end += strcspn(end, " \t");
            char *w = end;
            while (*w == ' ' || *w == '\t')
                w++;
            if (!*w || starts_attr(w))
                break;
            end = w;
        }
        *p = *end ? end + 1 : end;
        *end = '\0';
    }
    *val = v;
    *vlen = strlen(v);
    return 1;
}

static int exit_record(struct tacct_reader *r, char *id, char *attrs, struct tacct_rec *rec)
{
    memset(rec, 0, sizeof *rec);
    rec->id = id;
    rec->line = r->in.line;
    for (const struct tkey *k = tkeys; k < tkeys + sizeof tkeys / sizeof *tkeys; k++)
        if (k->kind != TK_TEXT && k->kind != TK_SIZE && k->kind != TK_EXIT)
            *num_at(rec, k->off) = -1;
    rec->req_mem_mb = -1;
    char *key = NULL, *val = NULL;
    size_t n = 0;
    int got;
    while ((got = next_attr(r, &attrs, &key, &val, &n)) > 0)
        for (const struct tkey *k = tkeys; k < tkeys + sizeof tkeys / sizeof *tkeys; k++)
            if (strcmp(key, k->name) == 0 && convert(r, k, val, n, rec) < 0)
                return -1;
    return got;
}

/* One line: -1 on an error, else 0 (an E record went to each when 1 is
 * put in *is_exit). */
static int record(struct tacct_reader *r, struct tacct_rec *rec, int *is_exit)
{
    char *s = r->in.buf;
    s[strcspn(s, "\r\n")] = '\0';
    *is_exit = 0;
    if (!tacct_is_record(s))
        return err_set(r->in.err,
                       "%s:%ld: not an accounting record MM/DD/YYYY HH:MM:SS;TYPE;JOBID;...",
                       r->in.path, r->in.line);
    if (s[20] != 'E') {
        r->info.other++;
        return 0;
    }
    char *id = s + 22, *semi = strchr(id, ';');
    if (!semi || semi == id)
        return err_set(r->in.err, "%s:%ld: an exit record without a job id", r->in.path,
                       r->in.line);
    *semi = '\0';
    *is_exit = 1;
    return exit_record(r, id, semi + 1, rec);
}

int tacct_scan(const char *path, struct tacct_info *info,
               int (*each)(void *ctx, const struct tacct_rec *rec, struct err *err), void *ctx,
               struct err *err)
{
    struct tacct_reader r = {0};
    if (lines_open(&r.in, path, err) < 0)
        return -1;
    int rc, fail = 0;
    while (!fail && (rc = lines_next(&r.in)) > 0) {
        if (r.in.buf[strspn(r.in.buf, " \t\r\n")] == '\0')
            continue;
        struct tacct_rec rec;
        int is_exit;
        fail = record(&r, &rec, &is_exit) < 0 || (is_exit && each(ctx, &rec, err) != 0);
    }
    if (rc < 0)
        fail = 1;
    lines_close(&r.in);
    if (!fail && info)
        *info = r.info;
    return fail ? -1 : 0;
}
