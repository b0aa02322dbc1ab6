/*
 * mtrace — see mtrace.h.
 *
 * Each reader is one pass over the file, line by line through trace/lines
 * (plain or gzip, recognised by content): a line is cut at its comment,
 * split in place into fields, and every field is converted by the kind its
 * entry in a field table names, so the two formats are two tables and one
 * converter. Strings are copied into an arena owned by the trace: one free
 * for the whole file, and no per-field allocation on traces of a few hundred
 * thousand jobs.
 *
 * Maui 3.3.1 (MTrace.c) reads these lines with sscanf and ignores a line it
 * cannot read. moku is stricter on purpose: a line that Maui would drop or
 * half-read is an error naming the file, line and field, so a trace is never
 * replayed with jobs silently missing.
 */
#include "trace/mtrace.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "trace/lines.h"
#include "util/mem.h"

#define MT_JOB_FIELDS 44
#define MT_NODE_FIELDS 21
#define MT_SWF_FIELDS 18
#define MT_BLOCK (64 * 1024) /* arena block size */
#define MT_TOKEN_SHOWN 64    /* at most this much of a bad token goes into a message */
#define MT_NONE "[NONE]"

/* ---- The arena: strings and class lists of one trace. ---- */

struct mtrace_block {
    struct mtrace_block *next;
    char *data;
    size_t used, cap;
};

struct mtrace_arena {
    struct mtrace_block *head;
};

static void *mt_alloc(struct mtrace_arena *a, size_t n, size_t align)
{
    struct mtrace_block *b = a->head;
    size_t at = b ? (b->used + align - 1) / align * align : 0;
    if (!b || at + n > b->cap) {
        b = xmalloc(sizeof *b);
        b->cap = n > MT_BLOCK ? n : MT_BLOCK;
        b->data = xmalloc(b->cap); /* malloc's alignment suits any object */
        b->next = a->head;
        a->head = b;
        at = 0;
    }
    b->used = at + n;
    return b->data + at;
}

static const char *mt_strndup(struct mtrace_arena *a, const char *s, size_t n)
{
    char *d = mt_alloc(a, n + 1, 1);
    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

static void mt_arena_free(struct mtrace_arena *a)
{
    if (!a)
        return;
    while (a->head) {
        struct mtrace_block *b = a->head;
        a->head = b->next;
        free(b->data);
        free(b);
    }
    free(a);
}

/* ---- The reader: one file being read, and the trace's arena. ---- */

struct mtrace_reader {
    struct lines in; /* the file, its current line and line number, err */
    struct mtrace_arena *arena;
};

static bool mt_is_blank(char c)
{
    return c == ' ' || (c >= '\t' && c <= '\r');
}

/* The data of the line in buf: the comment ('#' anywhere, as in Maui) cut
 * off and leading blanks skipped; NULL when nothing is left. */
static char *mt_data(char *buf)
{
    char *hash = strchr(buf, '#');
    if (hash)
        *hash = '\0';
    while (mt_is_blank(*buf))
        buf++;
    return *buf ? buf : NULL;
}

static char *mt_trim(char *s, char *end)
{
    while (end > s && mt_is_blank(end[-1]))
        *--end = '\0';
    while (mt_is_blank(*s))
        s++;
    return s;
}

/*
 * Split s in place into fields separated by blanks, or by ';' when semi is
 * set (blanks around a field are then trimmed, and a field may be empty).
 * The first max fields go into tok; returns the number of fields in the
 * line, which may be more.
 */
static int mt_split(char *s, bool semi, char **tok, int max)
{
    int n = 0;
    while (*s) {
        char *end;
        if (semi) {
            end = s + strcspn(s, ";");
        } else {
            while (mt_is_blank(*s))
                s++;
            if (!*s)
                break;
            end = s;
            while (*end && !mt_is_blank(*end))
                end++;
        }
        bool last = *end == '\0';
        *end = '\0';
        if (n < max)
            tok[n] = semi ? mt_trim(s, end) : s;
        n++;
        if (last)
            break;
        s = end + 1;
    }
    return n;
}

/* ---- Values. Each converter returns NULL when the token is good, else
 * what is wrong with it, to follow "field <n> (<name>)" in a message. ---- */

static const char *mt_long(const char *s, long *out)
{
    if (!(isdigit((unsigned char)*s) || *s == '-' || *s == '+'))
        return "is not a number";
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end)
        return "is not a number";
    if (errno == ERANGE)
        return "is out of range";
    *out = v;
    return NULL;
}

static const char *mt_int(const char *s, int *out)
{
    long v;
    const char *bad = mt_long(s, &v);
    if (bad)
        return bad;
    if (v < INT_MIN || v > INT_MAX)
        return "is out of range";
    *out = (int)v;
    return NULL;
}

static const char *mt_real(const char *s, double *out)
{
    /* strtod alone would also take "inf", "nan" and hexadecimal. */
    if (!*s || s[strspn(s, "0123456789+-.eE")] != '\0')
        return "is not a number";
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end)
        return "is not a number";
    if (!isfinite(v))
        return "is out of range";
    *out = v;
    return NULL;
}

/*
 * A size in MB: an integer with an optional unit b, k, m, g or t (any case,
 * "kb" and the like too), as Maui's MURSpecToL reads it and as Maui writes
 * resource traces ("256M"). Smaller units round down, like Maui's shifts.
 * A negative value (-1 = not given) is kept as it is.
 */
static const char *mt_mb(const char *s, long *out)
{
    static const char units[] = "bkmgt"; /* 2^-20, 2^-10, 1, 2^10, 2^20 MB */
    if (!(isdigit((unsigned char)*s) || *s == '-' || *s == '+'))
        return "is not a size in MB";
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s)
        return "is not a size in MB";
    if (errno == ERANGE)
        return "is out of range";
    int shift = 0;
    if (*end) {
        const char *u = strchr(units, tolower((unsigned char)*end));
        if (!u)
            return "is not a size in MB";
        shift = (int)(u - units) * 10 - 20;
        end++;
        if (u != units && (*end == 'b' || *end == 'B'))
            end++;
        if (*end)
            return "is not a size in MB";
    }
    if (v >= 0 && shift < 0)
        v >>= -shift;
    else if (v >= 0 && shift > 0 && v > (LONG_MAX >> shift))
        return "is out of range";
    else if (v >= 0)
        v <<= shift;
    *out = v;
    return NULL;
}

/* "n[<sep>n2...]": every element an integer; the first goes to *first. */
static const char *mt_shapes(char *s, const char *seps, long *first)
{
    for (bool at_first = true;; at_first = false) {
        size_t len = strcspn(s, seps);
        char c = s[len];
        s[len] = '\0';
        long v;
        const char *bad = mt_long(s, &v);
        s[len] = c; /* the token stays whole for a message */
        if (bad)
            return at_first && !c ? bad : "is not a list of numbers";
        if (at_first)
            *first = v;
        if (!c)
            return NULL;
        s += len + 1;
    }
}

/*
 * Whether tok is a well-formed list, and how many items: "[a][b]..." with
 * items that are neither empty nor hold a bracket, or one bare word without
 * brackets (Maui reads "fast" as "[fast]").
 */
static bool mt_list_ok(const char *tok, size_t *n)
{
    *n = 0;
    if (*tok != '[') {
        *n = 1;
        return strpbrk(tok, "[]") == NULL;
    }
    while (*tok) {
        size_t len = strcspn(tok + 1, "[]");
        if (*tok != '[' || len == 0 || tok[1 + len] != ']')
            return false;
        tok += len + 2;
        (*n)++;
    }
    return true;
}

/* The next item of a list checked by mt_list_ok; *p moves past it. */
static char *mt_list_item(char **p, size_t *len)
{
    char *item = *p;
    if (*item == '[')
        item++;
    *len = strcspn(item, "]");
    *p = item[*len] ? item + *len + 1 : item + *len;
    return item;
}

#define MT_BAD_LIST "is not a list like [a][b]"

/* A list of names as one comma-separated string; "[NONE]" = NULL. */
static const char *mt_list_join(struct mtrace_reader *r, char *tok, const char **out)
{
    size_t n;
    *out = NULL;
    if (strcmp(tok, MT_NONE) == 0)
        return NULL;
    if (!mt_list_ok(tok, &n))
        return MT_BAD_LIST;
    char *joined = mt_alloc(r->arena, strlen(tok) + 1, 1), *d = joined;
    for (char *p = tok; n-- > 0;) {
        size_t len;
        char *item = mt_list_item(&p, &len);
        memcpy(d, item, len);
        d += len;
        *d++ = n ? ',' : '\0';
    }
    *out = joined;
    return NULL;
}

/* One "name[:count]" class item of len bytes; count -1 when not written. */
static const char *mt_class_item(char *item, size_t len, size_t *namelen, int *count)
{
    *namelen = strcspn(item, ":]");
    *count = -1;
    if (*namelen == 0)
        return "has a class without a name";
    if (*namelen == len)
        return NULL;
    char c = item[len];
    item[len] = '\0';
    const char *bad = mt_int(item + *namelen + 1, count);
    item[len] = c;
    return bad || *count < 0 ? "has a class count that is not a number" : NULL;
}

/* A node's "[name:count]..." list, or "[NONE]" (no classes). */
static const char *mt_classes(struct mtrace_reader *r, char *tok, const struct mtrace_class **out,
                              size_t *nout)
{
    size_t n;
    *out = NULL;
    *nout = 0;
    if (strcmp(tok, MT_NONE) == 0)
        return NULL;
    if (!mt_list_ok(tok, &n))
        return MT_BAD_LIST;
    struct mtrace_class *cl = mt_alloc(r->arena, n * sizeof *cl, _Alignof(struct mtrace_class));
    char *p = tok;
    for (size_t i = 0; i < n; i++) {
        size_t len, namelen;
        char *item = mt_list_item(&p, &len);
        const char *bad = mt_class_item(item, len, &namelen, &cl[i].count);
        if (bad)
            return bad;
        cl[i].name = mt_strndup(r->arena, item, namelen);
    }
    *out = cl;
    *nout = n;
    return NULL;
}

/* A job's class "[name:count]": the first name; "[NONE]" = NULL. */
static const char *mt_job_class(struct mtrace_reader *r, char *tok, const char **out)
{
    const struct mtrace_class *cl;
    size_t n;
    const char *bad = mt_classes(r, tok, &cl, &n);
    *out = !bad && n > 0 ? cl[0].name : NULL;
    return bad;
}

/* QOS "req[:delivered]". */
static void mt_qos(struct mtrace_reader *r, char *tok, const char **req, const char **given)
{
    size_t len = strcspn(tok, ":");
    *req = len == 0 || (len == strlen(MT_NONE) && strncmp(tok, MT_NONE, len) == 0)
               ? NULL
               : mt_strndup(r->arena, tok, len);
    *given = tok[len] && tok[len + 1] && strcmp(tok + len + 1, MT_NONE) != 0
                 ? mt_strndup(r->arena, tok + len + 1, strlen(tok + len + 1))
                 : NULL;
}

static const char *mt_event(const char *tok, enum mtrace_event *out)
{
    static const char *const names[] = {
        [MTRACE_AVAILABLE] = "AVAILABLE",
        [MTRACE_DEFINED] = "DEFINED",
        [MTRACE_DRAINED] = "DRAINED",
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(tok, names[i]) == 0) {
            *out = (enum mtrace_event)i;
            return NULL;
        }
    return "is not AVAILABLE, DEFINED or DRAINED";
}

/* ---- Field tables. ---- */

enum mtrace_type {
    MT_STR,     /* text; "[NONE]" = NULL */
    MT_INT,     /* int */
    MT_LONG,    /* long */
    MT_REAL,    /* double */
    MT_MB,      /* long, MB (units accepted) */
    MT_TASKS,   /* long: the first of "n[,n2]" */
    MT_WCLIMIT, /* long: the first of "n[,n2]" or "n[:n2]" */
    MT_CLASS,   /* const char *: the first class name */
    MT_QOS,     /* const char * at off and off2 */
    MT_LIST,    /* const char *: "a,b" */
    MT_CLASSES, /* const struct mtrace_class * at off, size_t count at off2 */
    MT_EVENT,   /* enum mtrace_event */
    MT_IGNORE,
};

struct mtrace_field {
    const char *name;
    enum mtrace_type type;
    size_t off, off2;
};

#define JOB(f) offsetof(struct mtrace_job, f)
#define NODE(f) offsetof(struct mtrace_node, f)

static const struct mtrace_field job_fields[MT_JOB_FIELDS] = {
    {"job id", MT_STR, JOB(id), 0},
    {"nodes requested", MT_INT, JOB(nodes), 0},
    {"tasks requested", MT_TASKS, JOB(tasks), 0},
    {"user", MT_STR, JOB(user), 0},
    {"group", MT_STR, JOB(group), 0},
    {"wallclock limit", MT_WCLIMIT, JOB(walltime), 0},
    {"completion state", MT_STR, JOB(state), 0},
    {"class", MT_CLASS, JOB(class_), 0},
    {"submit time", MT_LONG, JOB(submit), 0},
    {"dispatch time", MT_LONG, JOB(dispatch), 0},
    {"start time", MT_LONG, JOB(start), 0},
    {"completion time", MT_LONG, JOB(completion), 0},
    {"required network", MT_STR, JOB(network), 0},
    {"required architecture", MT_STR, JOB(arch), 0},
    {"required operating system", MT_STR, JOB(opsys), 0},
    {"memory comparison", MT_STR, JOB(mem_cmp), 0},
    {"required node memory", MT_MB, JOB(node_mem), 0},
    {"disk comparison", MT_STR, JOB(disk_cmp), 0},
    {"required node disk", MT_MB, JOB(node_disk), 0},
    {"required features", MT_LIST, JOB(features), 0},
    {"system queue time", MT_LONG, JOB(sys_queue_time), 0},
    {"tasks allocated", MT_INT, JOB(tasks_alloc), 0},
    {"tasks per node", MT_INT, JOB(tasks_per_node), 0},
    {"QOS", MT_QOS, JOB(qos), JOB(qos_given)},
    {"job flags", MT_STR, JOB(flags), 0},
    {"account", MT_STR, JOB(account), 0},
    {"executable", MT_STR, JOB(executable), 0},
    {"RM extension", MT_STR, JOB(rm_ext), 0},
    {"bypass count", MT_INT, JOB(bypass), 0},
    {"proc-seconds utilised", MT_REAL, JOB(ps_used), 0},
    {"partition", MT_STR, JOB(partition), 0},
    {"dedicated procs per task", MT_INT, JOB(procs_per_task), 0},
    {"dedicated memory per task", MT_MB, JOB(mem), 0},
    {"dedicated disk per task", MT_MB, JOB(disk), 0},
    {"dedicated swap per task", MT_MB, JOB(swap), 0},
    {"start date", MT_LONG, JOB(start_date), 0},
    {"end date", MT_LONG, JOB(end_date), 0},
    {"allocated hosts", MT_STR, JOB(alloc_hosts), 0},
    {"resource manager", MT_STR, JOB(rm), 0},
    {"required hosts", MT_STR, JOB(req_hosts), 0},
    {"reservation", MT_STR, JOB(reservation), 0},
    {"node set", MT_STR, JOB(node_set), 0},
    {"application simulator", MT_STR, JOB(app_sim), 0},
    {"reserved", MT_IGNORE, 0, 0},
};

static const struct mtrace_field node_fields[MT_NODE_FIELDS] = {
    {"resource type", MT_IGNORE, 0, 0},
    {"event type", MT_EVENT, NODE(event), 0},
    {"event time", MT_LONG, NODE(event_time), 0},
    {"node name", MT_STR, NODE(name), 0},
    {"resource manager", MT_STR, NODE(rm), 0},
    {"swap", MT_MB, NODE(swap), 0},
    {"memory", MT_MB, NODE(mem), 0},
    {"disk", MT_MB, NODE(disk), 0},
    {"processors", MT_INT, NODE(procs), 0},
    {"frame", MT_INT, NODE(frame), 0},
    {"slot", MT_INT, NODE(slot), 0},
    {"slots used", MT_INT, NODE(slots_used), 0},
    {"operating system", MT_STR, NODE(opsys), 0},
    {"architecture", MT_STR, NODE(arch), 0},
    {"features", MT_LIST, NODE(features), 0},
    {"classes", MT_CLASSES, NODE(classes), NODE(nclasses)},
    {"networks", MT_LIST, NODE(networks), 0},
    {"speed or GRES", MT_STR, NODE(speed_or_gres), 0},
    {"reserved 1", MT_IGNORE, 0, 0},
    {"reserved 2", MT_IGNORE, 0, 0},
    {"reserved 3", MT_IGNORE, 0, 0},
};

static const char *mt_str(struct mtrace_reader *r, const char *tok)
{
    if (!*tok || strcmp(tok, MT_NONE) == 0)
        return NULL;
    return mt_strndup(r->arena, tok, strlen(tok));
}

/* Convert token tok of field i (0-based) into rec. */
static int mt_field(struct mtrace_reader *r, const struct mtrace_field *tab, int i, char *tok,
                    void *rec)
{
    const struct mtrace_field *f = &tab[i];
    char *dst = (char *)rec + f->off, *dst2 = (char *)rec + f->off2;
    const char *bad = NULL;
    switch (f->type) {
    case MT_STR:
        *(const char **)dst = mt_str(r, tok);
        break;
    case MT_INT:
        bad = mt_int(tok, (int *)dst);
        break;
    case MT_LONG:
        bad = mt_long(tok, (long *)dst);
        break;
    case MT_REAL:
        bad = mt_real(tok, (double *)dst);
        break;
    case MT_MB:
        bad = mt_mb(tok, (long *)dst);
        break;
    case MT_TASKS:
        /* Maui hands "PBS=<nodespec>" to its PBS job parser; moku has none. */
        bad = strncmp(tok, "PBS=", 4) == 0 ? "is a PBS node spec, which moku does not read "
                                             "(write the task count)"
                                           : mt_shapes(tok, ",", (long *)dst);
        break;
    case MT_WCLIMIT:
        bad = mt_shapes(tok, ",:", (long *)dst);
        break;
    case MT_CLASS:
        bad = mt_job_class(r, tok, (const char **)dst);
        break;
    case MT_QOS:
        mt_qos(r, tok, (const char **)dst, (const char **)dst2);
        break;
    case MT_LIST:
        bad = mt_list_join(r, tok, (const char **)dst);
        break;
    case MT_CLASSES:
        bad = mt_classes(r, tok, (const struct mtrace_class **)dst, (size_t *)dst2);
        break;
    case MT_EVENT:
        bad = mt_event(tok, (enum mtrace_event *)dst);
        break;
    case MT_IGNORE:
        break;
    }
    if (!bad)
        return 0;
    size_t len = strlen(tok);
    return err_set(r->in.err, "%s:%ld: field %d (%s) %s: '%.*s'", r->in.path, r->in.line, i + 1,
                   f->name, bad, len > MT_TOKEN_SHOWN ? MT_TOKEN_SHOWN : (int)len, tok);
}

static int mt_fields(struct mtrace_reader *r, const struct mtrace_field *tab, char **tok, int n,
                     void *rec)
{
    for (int i = 0; i < n; i++)
        if (mt_field(r, tab, i, tok[i], rec) < 0)
            return -1;
    return 0;
}

/* A "VERSION <n>" line: only 230 is a format moku (and Maui 3.3.1) reads. */
static int mt_version(struct mtrace_reader *r, char **tok, int n, int *version)
{
    int v;
    if (n != 2 || mt_int(tok[1], &v) != NULL)
        return err_set(r->in.err, "%s:%ld: expected 'VERSION %d'", r->in.path, r->in.line,
                       MTRACE_VERSION);
    if (v != MTRACE_VERSION)
        return err_set(r->in.err,
                       "%s:%ld: trace version %d is not supported (moku reads version %d)",
                       r->in.path, r->in.line, v, MTRACE_VERSION);
    *version = v;
    return 0;
}

/* ---- Detection. ---- */

/* Whether the line at s starts with a resource type, ended by a blank or by
 * ';' (the other separator mt_node_line accepts). */
static bool mt_is_resource_line(const char *s)
{
    static const char *const types[] = {"COMPUTENODE", "NETWORK", "HSM"};
    size_t len = strcspn(s, " \t\n\v\f\r;");
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (strlen(types[i]) == len && strncmp(s, types[i], len) == 0)
            return true;
    return false;
}

static bool mt_all_numeric(char **tok, int n)
{
    double v;
    for (int i = 0; i < n; i++)
        if (mt_real(tok[i], &v) != NULL)
            return false;
    return true;
}

/* The kind the first data line tells, or MTRACE_ERROR with err set. */
static enum mtrace_kind mt_kind_of(struct mtrace_reader *r, char *s, bool saw_version)
{
    if (mt_is_resource_line(s))
        return MTRACE_MAUI_RESOURCE;
    char *tok[MT_JOB_FIELDS];
    int n = mt_split(s, false, tok, MT_JOB_FIELDS);
    if (saw_version || n == MT_JOB_FIELDS || n == MT_JOB_FIELDS - 1)
        return MTRACE_MAUI_WORKLOAD;
    if (n == MT_SWF_FIELDS && mt_all_numeric(tok, n))
        return MTRACE_SWF;
    err_set(r->in.err,
            "%s:%ld: cannot tell the trace format: %d fields (SWF has 18 numbers, a Maui "
            "workload trace 43 or 44 fields, a resource trace starts with COMPUTENODE)",
            r->in.path, r->in.line, n);
    return MTRACE_ERROR;
}

enum mtrace_kind mtrace_detect(const char *path, struct err *err)
{
    struct mtrace_reader r = {0};
    if (lines_open_head(&r.in, path, err) < 0)
        return MTRACE_ERROR;
    enum mtrace_kind kind = MTRACE_ERROR;
    bool saw_version = false;
    int rc;
    while ((rc = lines_next(&r.in)) > 0) {
        char *s = r.in.buf;
        while (mt_is_blank(*s))
            s++;
        if (*s == ';' || !(s = mt_data(s)))
            continue;
        if (strncmp(s, "VERSION", 7) == 0 && (!s[7] || mt_is_blank(s[7]))) {
            saw_version = true;
            continue;
        }
        kind = mt_kind_of(&r, s, saw_version);
        break;
    }
    if (rc == 0 && saw_version)
        kind = MTRACE_MAUI_WORKLOAD;
    else if (rc == 0)
        err_set(err, "%s: no job or node lines: cannot tell the trace format", path);
    lines_close(&r.in);
    return kind;
}

const char *mtrace_kind_name(enum mtrace_kind k)
{
    switch (k) {
    case MTRACE_SWF:
        return "SWF";
    case MTRACE_MAUI_WORKLOAD:
        return "Maui workload";
    case MTRACE_MAUI_RESOURCE:
        return "Maui resource";
    case MTRACE_ERROR:
        break;
    }
    return "unknown";
}

/* ---- The workload trace. ---- */

struct mt_jobs {
    struct mtrace_job *v;
    size_t n, cap;
};

static int mt_job_line(struct mtrace_reader *r, char *s, struct mt_jobs *jobs, int *version)
{
    char *tok[MT_JOB_FIELDS];
    int n = mt_split(s, false, tok, MT_JOB_FIELDS);
    if (strcmp(tok[0], "VERSION") == 0)
        return mt_version(r, tok, n, version);
    if (n != MT_JOB_FIELDS && n != MT_JOB_FIELDS - 1)
        return err_set(r->in.err, "%s:%ld: expected %d or %d fields, found %d", r->in.path,
                       r->in.line, MT_JOB_FIELDS - 1, MT_JOB_FIELDS, n);
    jobs->v = xgrow(jobs->v, &jobs->cap, jobs->n + 1, sizeof *jobs->v);
    struct mtrace_job *j = &jobs->v[jobs->n];
    memset(j, 0, sizeof *j);
    if (mt_fields(r, job_fields, tok, n, j) < 0)
        return -1;
    if (!j->id)
        return err_set(r->in.err, "%s:%ld: field 1 (job id) is missing", r->in.path, r->in.line);
    if (n == MT_JOB_FIELDS - 1) {
        /* Maui reads a 43-field line with no master host and RM 0. */
        j->alloc_hosts = NULL;
        j->rm = NULL;
    }
    j->nfields = n;
    j->line = r->in.line;
    jobs->n++;
    return 0;
}

int mtrace_read_workload(const char *path, struct mtrace_workload *out, struct err *err)
{
    struct mtrace_reader r = {0};
    memset(out, 0, sizeof *out);
    if (lines_open(&r.in, path, err) < 0)
        return -1;
    r.arena = xcalloc(1, sizeof *r.arena);
    struct mt_jobs jobs = {0};
    int version = MTRACE_VERSION, rc;
    while ((rc = lines_next(&r.in)) > 0) {
        char *s = mt_data(r.in.buf);
        if (s && mt_job_line(&r, s, &jobs, &version) < 0) {
            rc = -1;
            break;
        }
    }
    lines_close(&r.in);
    if (rc < 0) {
        free(jobs.v);
        mt_arena_free(r.arena);
        return -1;
    }
    if (jobs.n > 0) /* give back the doubling slack */
        jobs.v = xrealloc(jobs.v, jobs.n * sizeof *jobs.v);
    *out = (struct mtrace_workload){
        .jobs = jobs.v, .njobs = jobs.n, .version = version, .strings = r.arena};
    return 0;
}

void mtrace_workload_free(struct mtrace_workload *w)
{
    if (!w)
        return;
    free(w->jobs);
    mt_arena_free(w->strings);
    memset(w, 0, sizeof *w);
}

/* ---- The resource trace. ---- */

struct mt_nodes {
    struct mtrace_node *v;
    size_t n, cap, skipped;
};

static int mt_node_line(struct mtrace_reader *r, char *s, struct mt_nodes *nodes, int *version)
{
    char *tok[MT_NODE_FIELDS];
    /* Maui (MTraceLoadComputeNode) splits a line holding ';' at the ';'s. */
    int n = mt_split(s, strchr(s, ';') != NULL, tok, MT_NODE_FIELDS);
    if (strcmp(tok[0], "VERSION") == 0)
        return mt_version(r, tok, n, version);
    if (strcmp(tok[0], "NETWORK") == 0 || strcmp(tok[0], "HSM") == 0) {
        nodes->skipped++;
        return 0;
    }
    if (strcmp(tok[0], "COMPUTENODE") != 0)
        return err_set(r->in.err, "%s:%ld: unknown resource type '%.*s' (expected COMPUTENODE)",
                       r->in.path, r->in.line, MT_TOKEN_SHOWN, tok[0]);
    if (n != MT_NODE_FIELDS)
        return err_set(r->in.err, "%s:%ld: expected %d fields, found %d", r->in.path, r->in.line,
                       MT_NODE_FIELDS, n);
    nodes->v = xgrow(nodes->v, &nodes->cap, nodes->n + 1, sizeof *nodes->v);
    struct mtrace_node *nd = &nodes->v[nodes->n];
    memset(nd, 0, sizeof *nd);
    if (mt_fields(r, node_fields, tok, n, nd) < 0)
        return -1;
    if (!nd->name)
        return err_set(r->in.err, "%s:%ld: field 4 (node name) is missing", r->in.path, r->in.line);
    nd->line = r->in.line;
    nodes->n++;
    return 0;
}

int mtrace_read_resource(const char *path, struct mtrace_resource *out, struct err *err)
{
    struct mtrace_reader r = {0};
    memset(out, 0, sizeof *out);
    if (lines_open(&r.in, path, err) < 0)
        return -1;
    r.arena = xcalloc(1, sizeof *r.arena);
    struct mt_nodes nodes = {0};
    int version = MTRACE_VERSION, rc;
    while ((rc = lines_next(&r.in)) > 0) {
        char *s = mt_data(r.in.buf);
        if (s && mt_node_line(&r, s, &nodes, &version) < 0) {
            rc = -1;
            break;
        }
    }
    lines_close(&r.in);
    if (rc < 0) {
        free(nodes.v);
        mt_arena_free(r.arena);
        return -1;
    }
    *out = (struct mtrace_resource){.nodes = nodes.v,
                                    .nnodes = nodes.n,
                                    .skipped = nodes.skipped,
                                    .version = version,
                                    .strings = r.arena};
    return 0;
}

void mtrace_resource_free(struct mtrace_resource *r)
{
    if (!r)
        return;
    free(r->nodes);
    mt_arena_free(r->strings);
    memset(r, 0, sizeof *r);
}
