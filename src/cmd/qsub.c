/*
 * qsub — see qsub.h. This file holds the parser and what it builds on; the
 * field table that drives qsub_check, qsub_to_json and qsub_from_json is in
 * qsub_json.c. The parts, in order: text checks shared by the parser and
 * qsub_json.c (declared in qsub_int.h); the request's state (qsub_free); the
 * option values (-l, -W, -v, -a, paths); the option scanner (a getopt of our
 * own: no global state) and the directive reader; qsub_parse.
 *
 * Torque semantics kept: walltime `MM:SS` is minutes and seconds (Torque),
 * not maui.cfg's HH:MM; mem without a unit is bytes; -o/-e/-d relative paths
 * are relative to the client's cwd; -a without a day means the next such time
 * (today, else tomorrow), without a month the next such day, without a year
 * the next such date; a fully given date in the past is accepted (the job is
 * simply eligible at once). PBS Pro's select=/place= are read into the same
 * request as nodes=N:ppn=C; host names in nodes= (and -l host=) as a host
 * list (qsub_req.hosts). Where moku differs: host:path outputs for
 * another host, node groups mixing counts and hosts, and unknown resources
 * are errors
 * rather than passed through; node groups of different ppn lose their
 * per-node shape (a warning says so); options moku has no meaning for are
 * read and warned of (qsub_req.warnings); -v VAR for a VAR the environment lacks
 * is skipped (as Torque does); -V skips variables whose name is not an
 * identifier or whose value holds control characters (bash exports
 * functions as BASH_FUNC_f%%=() {...\n}).
 */
#include "cmd/qsub.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "cfg/cfg.h"
#include "cmd/qsub_int.h"
#include "engine/dep.h"
#include "util/mem.h"
#include "util/utf8.h"

/* ------------------------------------------------------------------ text */

struct qsub_shown qsub_shown(const char *s)
{
    struct qsub_shown out;
    size_t n = 0;
    for (; *s && n < 60; s++)
        out.s[n++] = (*s >= 0x20 && *s < 0x7f) ? *s : '?';
    if (*s) {
        memcpy(out.s + n, "...", 3);
        n += 3;
    }
    out.s[n] = '\0';
    return out;
}

static const char *base_name(const char *s)
{
    const char *slash = strrchr(s, '/');
    return slash ? slash + 1 : s;
}

/* "qsub: " from argv[0] (its base name), the prefix of command-line errors. */
static void prog_prefix(char *buf, size_t n, int argc, char *const argv[])
{
    snprintf(buf, n, "%s: ", argc > 0 && argv[0] ? qsub_shown(base_name(argv[0])).s : "qsub");
}

#define TXT_SPACE 0x1  /* ' ' allowed */
#define TXT_TAB 0x2    /* '\t' allowed */
#define TXT_FORMAT 0x4 /* format characters allowed (text no other user sees) */

/* NULL if s is valid UTF-8 without control characters (C0, DEL, C1),
 * unless allowed without format characters (bidi controls, zero-width
 * characters, line separators: util/utf8.h) and without blanks; else what
 * is wrong with it. A job's name, account or path reaches other users'
 * screens (qstat, showq); its environment does not. */
static const char *text_fault(const char *s, unsigned allow)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t n = strlen(s);
    while (n) {
        unsigned long cp;
        size_t k = utf8_seq(p, n, &cp);
        if (!k)
            return "is not valid UTF-8";
        if ((cp == ' ' && !(allow & TXT_SPACE)) || (cp == '\t' && !(allow & TXT_TAB)))
            return "contains white space";
        if (cp != '\t' && (cp < 0x20 || (cp >= 0x7f && cp < 0xa0)))
            return "contains a control character";
        if (utf8_hidden(cp) && !(allow & TXT_FORMAT))
            return "contains a format character (bidi control, zero-width character or line "
                   "separator), which would change how other users read the line";
        p += k;
        n -= k;
    }
    return NULL;
}

static int check_len(const char *s, size_t max, struct err *err)
{
    if (!*s)
        return err_set(err, "empty value");
    if (strlen(s) > max)
        return err_set(err, "'%s' is longer than %zu bytes", qsub_shown(s).s, max);
    return 0;
}

/* -m: letters of "abef", or "n" alone. */
static int check_mail(const char *s, struct err *err)
{
    size_t n = strlen(s);
    if (n == 0 || n > 8 || strspn(s, "abefn") != n || (strchr(s, 'n') && n != 1))
        return err_set(err, "bad mail events '%s' (expected letters of 'abef', or 'n')",
                       qsub_shown(s).s);
    return 0;
}

/* Blank, too large, a NUL byte or bad UTF-8: what is wrong with a script and
 * on which line (0: the whole script), or NULL. */
static const char *script_fault(const char *text, size_t len, int *line)
{
    *line = 0;
    if (len > (size_t)QSUB_MAX_SCRIPT)
        return "script larger than 1 MiB";
    size_t blank = 0;
    while (blank < len && text[blank] && strchr(" \t\r\n\f\v", text[blank]))
        blank++;
    if (blank == len)
        return "script is empty";
    const unsigned char *p = (const unsigned char *)text;
    int ln = 1;
    for (size_t i = 0; i < len;) {
        unsigned long cp;
        size_t k = p[i] ? utf8_seq(p + i, len - i, &cp) : 0;
        if (!k) {
            *line = ln;
            return p[i] ? "not valid UTF-8" : "NUL byte in the script";
        }
        ln += p[i] == '\n';
        i += k;
    }
    return NULL;
}

/* -M: a comma list of addresses, user or user@host, each of letters,
 * digits and ._%+=- (host: letters, digits, . and -), not starting with
 * '-'. Stricter than RFC 5322 on purpose: the list becomes a To: header
 * handed to sendmail -t (daemon/dmail.c), where nothing may be read as an
 * option, a second header or a second address. */
static int check_mailto(const char *s, struct err *err)
{
    if (check_len(s, QSUB_MAX_WORD, err) < 0)
        return -1;
    for (const char *p = s; *p;) {
        size_t n = strcspn(p, ","), at = strcspn(p, "@");
        size_t user = at < n ? at : n;
        int ok =
            n > 0 && user > 0 && p[0] != '-' &&
            strspn(p, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._%+=-") ==
                user;
        if (ok && at < n)
            ok = n - at > 1 &&
                 strspn(p + at + 1,
                        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789.-") ==
                     n - at - 1;
        if (!ok)
            return err_set(err,
                           "bad mail address in '%s' (expected user or user@host, a comma "
                           "between two)",
                           qsub_shown(s).s);
        p += n + (p[n] == ',');
        if (p[-1] == ',' && !*p)
            return err_set(err, "bad mail address list '%s' (ends with ',')", qsub_shown(s).s);
    }
    return 0;
}

/* Whether s[0..n) is a host name as a host list holds it: a letter, then
 * letters, digits, '.', '_' and '-'. */
static int host_name_ok(const char *s, size_t n)
{
    if (!n || n > QSUB_MAX_WORD || !((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')))
        return 0;
    return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") >= n;
}

/* A host list: name:count[,name:count]..., names distinct, counts
 * 1..QSUB_MAX_COUNT and their sum too. */
static int check_hosts(const char *s, struct err *err)
{
    if (check_len(s, QSUB_MAX_PATH, err) < 0)
        return -1;
    long long sum = 0;
    for (const char *it = s; it;) {
        const char *comma = strchr(it, ','), *colon = strchr(it, ':');
        size_t len = comma ? (size_t)(comma - it) : strlen(it);
        if (!colon || colon > it + len || !host_name_ok(it, (size_t)(colon - it)))
            return err_set(err, "'%s' is not a host list (name:count,...)", qsub_shown(s).s);
        char *end;
        long n = strtol(colon + 1, &end, 10);
        if (end != it + len || end == colon + 1 || n < 1 || n > QSUB_MAX_COUNT ||
            (sum += n) > QSUB_MAX_COUNT)
            return err_set(err, "'%s': bad processor count", qsub_shown(s).s);
        for (const char *p = s; p < it; p = strchr(p, ',') + 1)
            if (strncmp(p, it, (size_t)(colon - it) + 1) == 0)
                return err_set(err, "'%s' names a host twice", qsub_shown(s).s);
        it = comma ? comma + 1 : NULL;
    }
    return 0;
}

long long qsub_hosts_procs(const char *hosts)
{
    long long sum = 0;
    for (const char *it = hosts; it; it = strchr(it, ',') ? strchr(it, ',') + 1 : NULL)
        sum += strtol(strchr(it, ':') + 1, NULL, 10);
    return sum;
}

int qsub_check_str(enum qsub_sclass c, const char *s, struct err *err)
{
    const char *f = NULL;
    int line;
    switch (c) {
    case QSUB_S_NAME:
    case QSUB_S_WORD:
        if (check_len(s, c == QSUB_S_NAME ? QSUB_MAX_NAME : QSUB_MAX_WORD, err) < 0)
            return -1;
        f = text_fault(s, 0);
        /* A job name becomes a file name (<name>.o<id>) in the job's
         * directory: a '/' would put it elsewhere, and the job could never
         * start. */
        if (!f && c == QSUB_S_NAME && strchr(s, '/'))
            f = "contains '/' (a job name is part of its output file's name)";
        break;
    case QSUB_S_MAILTO:
        return check_mailto(s, err);
    case QSUB_S_PATH:
        if (check_len(s, QSUB_MAX_PATH, err) < 0)
            return -1;
        if (s[0] != '/')
            return err_set(err, "'%s' is not an absolute path", qsub_shown(s).s);
        f = text_fault(s, TXT_SPACE);
        break;
    case QSUB_S_MAIL:
        return check_mail(s, err);
    case QSUB_S_DEPEND: {
        if (check_len(s, QSUB_MAX_PATH, err) < 0)
            return -1;
        struct job_dep *deps;
        size_t n;
        if (dep_parse(s, &deps, &n, err) < 0)
            return -1;
        dep_free(deps, n);
        return 0;
    }
    case QSUB_S_HOSTS:
        return check_hosts(s, err);
    case QSUB_S_ARRAY:
    case QSUB_S_ARRAY_PBS:
        return qsub_check_array(c == QSUB_S_ARRAY_PBS, s, err);
    case QSUB_S_SCRIPT:
        f = script_fault(s, strlen(s), &line);
        if (f && line)
            return err_set(err, "line %d: %s", line, f);
        return f ? err_set(err, "%s", f) : 0;
    }
    return f ? err_set(err, "'%s' %s", qsub_shown(s).s, f) : 0;
}

int qsub_check_name(const char *s, struct err *err)
{
    return qsub_check_str(QSUB_S_NAME, s, err);
}

int qsub_env_name_ok(const char *s, size_t n)
{
    if (n == 0 || n > QSUB_MAX_WORD || (s[0] >= '0' && s[0] <= '9'))
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!(c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              (c >= '0' && c <= '9')))
            return 0;
    }
    return 1;
}

int qsub_check_env_value(const char *name, const char *v, struct err *err)
{
    if (strlen(v) > QSUB_MAX_ENV_VALUE)
        return err_set(err, "value of %s is longer than %d bytes", name, QSUB_MAX_ENV_VALUE);
    const char *f = text_fault(v, TXT_SPACE | TXT_TAB | TXT_FORMAT);
    return f ? err_set(err, "value of %s %s", name, f) : 0;
}

/* --------------------------------------------------------- request state */

void qsub_req_init(struct qsub_req *r)
{
    *r = (struct qsub_req){.ppn = 1, .tasks = 1, .rerunnable = -1};
}

static void free_strs(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

void qsub_free(struct qsub_req *r)
{
    if (!r)
        return;
    char **strs[] = {&r->name,       &r->account,  &r->queue,    &r->qos,      &r->group,
                     &r->advres,     &r->out_path, &r->err_path, &r->cwd,      &r->mail_events,
                     &r->mail_users, &r->shell,    &r->script,   &r->warnings, &r->depend,
                     &r->hosts,      &r->array,    &r->array_pbs};
    for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++)
        free(*strs[i]);
    free_strs(r->features, r->nfeatures);
    for (size_t i = 0; i < r->nenv; i++) {
        free(r->env[i].name);
        free(r->env[i].value);
    }
    free(r->env);
    memset(r, 0, sizeof *r);
}

static void set_str(char **slot, const char *v)
{
    free(*slot);
    *slot = xstrdup(v);
}

/* Set (or replace) one variable; takes ownership of nothing. */
static int env_set(struct qsub_req *r, const char *name, size_t nlen, const char *value,
                   struct err *err)
{
    for (size_t i = 0; i < r->nenv; i++) {
        if (strlen(r->env[i].name) == nlen && memcmp(r->env[i].name, name, nlen) == 0)
            return set_str(&r->env[i].value, value), 0;
    }
    if (r->nenv >= QSUB_MAX_ENV)
        return err_set(err, "more than %d environment variables", QSUB_MAX_ENV);
    r->env = xrealloc(r->env, (r->nenv + 1) * sizeof *r->env);
    r->env[r->nenv].name = xstrndup(name, nlen);
    r->env[r->nenv].value = xstrdup(value);
    r->nenv++;
    return 0;
}

/* The parser's working state: the request being built and what the options
 * need from the caller. */
struct draft {
    struct qsub_req r;
    const char *ccwd;  /* the client's working directory (checked absolute) */
    char *const *envp; /* may be NULL */
    long now;
    int export_all;  /* -V */
    long pmem_mb;    /* -l pmem (MB a processor), 0 = not given: made job memory at the end */
    int place;       /* -l place=: PLACE_* */
    int chunks_many; /* the last select= asked for more than one chunk */
    const char *prefix, *tag; /* where the option being applied came from (warnings) */
    char opt;
    int in_depend;                /* the last -W item was (part of) depend= */
    char host[QSUB_MAX_WORD + 1]; /* -l host=: "" = none */
};

enum { PLACE_NONE, PLACE_FREE, PLACE_SCATTER, PLACE_PACK };

/* A note for the user on stderr (qsub_req.warnings): an option moku reads
 * but cannot honour as Torque or PBS Pro would, said rather than dropped. */
static void warn(struct draft *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn(struct draft *d, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    char *old = d->r.warnings;
    d->r.warnings =
        xprintf("%s%s%s%s-%c: warning: %s\n", old ? old : "", d->prefix ? d->prefix : "",
                d->tag ? d->tag : "", d->tag ? " " : "", d->opt ? d->opt : '?', msg);
    free(old);
}

/* ------------------------------------------------------------------ paths */

/* Lexically clean an absolute path: "//" collapsed, "." dropped, ".." takes
 * the previous component off (at the root it stays the root). Caller frees. */
static char *path_clean(const char *p)
{
    char *out = xmalloc(strlen(p) + 2);
    size_t o = 0;
    while (*p) {
        while (*p == '/')
            p++;
        size_t k = strcspn(p, "/");
        if (k == 0)
            break;
        if (k == 2 && p[0] == '.' && p[1] == '.') {
            while (o > 0 && out[o - 1] != '/')
                o--;
            if (o > 0)
                o--;
        } else if (!(k == 1 && p[0] == '.')) {
            out[o++] = '/';
            memcpy(out + o, p, k);
            o += k;
        }
        p += k;
    }
    if (o == 0)
        out[o++] = '/';
    out[o] = '\0';
    return out;
}

/* Whether host[0..n) names this machine: "localhost", or its name, short
 * or in full (Torque's -o host:path; the daemon is on this machine, the
 * client reaches it through a local socket). */
static int local_host(const char *host, size_t n)
{
    char me[256];
    if (n == 9 && strncasecmp(host, "localhost", 9) == 0)
        return 1;
    if (gethostname(me, sizeof me) < 0)
        return 0;
    me[sizeof me - 1] = '\0';
    size_t shortn = strcspn(me, ".");
    return (n == strlen(me) && strncasecmp(host, me, n) == 0) ||
           (n == shortn && strncasecmp(host, me, n) == 0);
}

/* p made absolute against base and cleaned, into *out (caller frees); a
 * trailing '/' is kept (Torque's -o DIR/: the job's file inside DIR under
 * its default name; rm/jobfile.c, which also takes a directory named
 * without one). A "host:" before it is taken off when host is this
 * machine. */
static int resolve_path(const char *base, const char *p, char **out, struct err *err)
{
    if (!*p)
        return err_set(err, "empty path");
    if (strlen(p) > QSUB_MAX_PATH)
        return err_set(err, "path '%s' is longer than %d bytes", qsub_shown(p).s, QSUB_MAX_PATH);
    const char *f = text_fault(p, TXT_SPACE);
    if (f)
        return err_set(err, "path '%s' %s", qsub_shown(p).s, f);
    size_t colon = strcspn(p, ":");
    if (p[colon] && colon < strcspn(p, "/")) {
        if (!local_host(p, colon))
            return err_set(err,
                           "'%s': moku writes output on this host only (host:path names "
                           "another host; give a local path)",
                           qsub_shown(p).s);
        p += colon + 1;
        if (!*p)
            return err_set(err, "empty path");
    }
    size_t n = strlen(base) + strlen(p) + 2;
    char *joined = xmalloc(n);
    snprintf(joined, n, "%s/%s", p[0] == '/' ? "" : base, p);
    char *clean = path_clean(joined);
    free(joined);
    size_t cn = strlen(clean);
    if (p[strlen(p) - 1] == '/' && cn > 1) { /* DIR/: kept, the job's file goes inside */
        clean = xrealloc(clean, cn + 2);
        memcpy(clean + cn, "/", 2);
    }
    if (strlen(clean) > QSUB_MAX_PATH) {
        free(clean);
        return err_set(err, "path '%s' is longer than %d bytes", qsub_shown(p).s, QSUB_MAX_PATH);
    }
    *out = clean;
    return 0;
}

/* ---------------------------------------------------------------- -l */

/* A whole number 1..QSUB_MAX_COUNT. */
static int parse_count(const char *what, const char *s, int *out, struct err *err)
{
    size_t n = strlen(s);
    long v = n && n <= 7 && strspn(s, "0123456789") == n ? strtol(s, NULL, 10) : 0;
    if (v < 1 || v > QSUB_MAX_COUNT)
        return err_set(err, "bad %s '%s' (expected a whole number from 1 to %d)", what,
                       qsub_shown(s).s, QSUB_MAX_COUNT);
    *out = (int)v;
    return 0;
}

/* Torque's [[HH:]MM:]SS or seconds, and DD:HH:MM:SS (cfg_parse_time reads
 * MM:SS as HH:MM, so a lone colon gets an hour field of 0 first; INFINITY is
 * out of range). */
static int parse_walltime(const char *orig, long *out, struct err *err)
{
    char buf[64];
    const char *s = orig, *colon = strchr(orig, ':');
    long v = 0;
    if (colon && !strchr(colon + 1, ':') && strlen(orig) + 3 <= sizeof buf)
        snprintf(buf, sizeof buf, "0:%s", orig), s = buf;
    if (strlen(orig) > 40 || cfg_parse_time(s, &v, NULL) < 0)
        return err_set(err, "bad walltime '%s' (expected [[HH:]MM:]SS or seconds)",
                       qsub_shown(orig).s);
    if (v <= 0)
        return err_set(err, "walltime '%s' must be positive", qsub_shown(orig).s);
    if (v > QSUB_MAX_WALLTIME)
        return err_set(err, "walltime '%s' is longer than 10 years", qsub_shown(orig).s);
    *out = v;
    return 0;
}

int qsub_walltime(const char *s, long *out, struct err *err)
{
    return parse_walltime(s, out, err);
}

/* N[b|kb|mb|gb|tb] (units of 1024, any case; no unit = bytes) in MB, rounded up. */
static int parse_mem(const char *s, long *out, struct err *err)
{
    static const char *const units[] = {"b", "kb", "mb", "gb", "tb"};
    size_t digits = strspn(s, "0123456789");
    int u = -1;
    for (int i = 0; i < 5; i++) {
        if (strcasecmp(s + digits, units[i]) == 0)
            u = i;
    }
    if (s[digits] == '\0')
        u = 0;
    if (digits == 0 || digits > 18 || u < 0)
        return err_set(err, "bad mem '%s' (expected a number with b, kb, mb, gb or tb)",
                       qsub_shown(s).s);
    unsigned long long v = strtoull(s, NULL, 10), mb;
    int shift = 10 * u - 20; /* b: -20, kb: -10, mb: 0, gb: 10, tb: 20 */
    if (shift < 0)
        mb = (v + (1ULL << -shift) - 1) >> -shift; /* rounded up */
    else if (v > (unsigned long long)QSUB_MAX_MEM_MB >> shift)
        mb = (unsigned long long)QSUB_MAX_MEM_MB + 1; /* too large, without overflow */
    else
        mb = v << shift;
    if (mb == 0)
        return err_set(err, "mem '%s' must be positive", qsub_shown(s).s);
    if (mb > (unsigned long long)QSUB_MAX_MEM_MB)
        return err_set(err, "mem '%s' is too large", qsub_shown(s).s);
    *out = (long)mb;
    return 0;
}

/* The features of a node spec, in order, duplicates dropped. */
static int add_feature(char ***v, size_t *n, const char *f, struct err *err)
{
    if (qsub_check_str(QSUB_S_WORD, f, err) < 0)
        return -1;
    for (size_t i = 0; i < *n; i++) {
        if (strcmp((*v)[i], f) == 0)
            return 0;
    }
    if (*n >= QSUB_MAX_FEATURES)
        return err_set(err, "more than %d node features", QSUB_MAX_FEATURES);
    *v = xrealloc(*v, (*n + 1) * sizeof **v);
    (*v)[(*n)++] = xstrdup(f);
    return 0;
}

/* One node group's request, and the sum of a nodes= or select= value's. */
struct ngroup {
    long long count, ppn, procs; /* ppn 0: groups of different ppn */
    char **feat;
    size_t nfeat;
    char **host; /* groups naming a host: the host, and its processors */
    long long *hprocs;
    size_t nhost;
};

/* The items after the node count: ppn=P and features. */
static int node_items(char *items, struct ngroup *g, struct err *err)
{
    for (char *it = items, *next; it; it = next) {
        next = strchr(it, ':');
        if (next)
            *next++ = '\0';
        if (!*it)
            continue;
        int ppn = 0;
        if (strncasecmp(it, "ppn=", 4) == 0) {
            if (parse_count("ppn", it + 4, &ppn, err) < 0)
                return -1;
            g->ppn = ppn;
        } else if (strchr(it, '=')) {
            return err_set(err, "unknown node property '%s' (moku knows ppn=P and features)",
                           qsub_shown(it).s);
        } else if (add_feature(&g->feat, &g->nfeat, it, err) < 0) {
            return -1;
        }
    }
    return 0;
}

/* One nodes= group naming a host: HOST[:ppn=P][:feature]..., P processors
 * on it (a host named twice gets both groups', as Torque's n1+n1). */
static int host_group(char *host, char *items, struct ngroup *sum, struct err *err)
{
    if (!host_name_ok(host, strlen(host)))
        return err_set(err, "'%s' is not a host name", qsub_shown(host).s);
    struct ngroup g = {.ppn = 1, .feat = sum->feat, .nfeat = sum->nfeat};
    int rc = items ? node_items(items, &g, err) : 0;
    sum->feat = g.feat, sum->nfeat = g.nfeat;
    if (rc < 0)
        return -1;
    sum->procs += g.ppn;
    for (size_t i = 0; i < sum->nhost; i++)
        if (strcmp(sum->host[i], host) == 0)
            return sum->hprocs[i] += g.ppn, 0;
    sum->host = xrealloc(sum->host, (sum->nhost + 1) * sizeof *sum->host);
    sum->hprocs = xrealloc(sum->hprocs, (sum->nhost + 1) * sizeof *sum->hprocs);
    sum->host[sum->nhost] = xstrdup(host);
    sum->hprocs[sum->nhost++] = g.ppn;
    return 0;
}

/* One nodes= group: N[:ppn=P][:feature]... or HOST[:ppn=P][:feature]...
 * added to sum (its features too). */
static int node_group(char *spec, struct ngroup *sum, struct err *err)
{
    char *items = strchr(spec, ':');
    if (items)
        *items++ = '\0';
    if ((*spec >= 'a' && *spec <= 'z') || (*spec >= 'A' && *spec <= 'Z'))
        return host_group(spec, items, sum, err);
    int count = 0;
    if (parse_count("nodes", spec, &count, err) < 0)
        return -1;
    struct ngroup g = {.ppn = 1, .feat = sum->feat, .nfeat = sum->nfeat};
    int rc = items ? node_items(items, &g, err) : 0;
    sum->feat = g.feat, sum->nfeat = g.nfeat;
    if (rc < 0)
        return -1;
    if (sum->count && sum->ppn != g.ppn)
        sum->ppn = 0; /* groups of different sizes: no one per-node shape */
    else if (!sum->count)
        sum->ppn = g.ppn;
    sum->count += count;
    sum->procs += (long long)count * g.ppn;
    return 0;
}

/* The summed groups as the processor request: N nodes of P processors when
 * every group has the same ppn, else that many processors with no per-node
 * shape (as procs=N; the caller warns). Features apply to the whole job. */
static void set_groups(struct qsub_req *r, struct ngroup *g, long long procs)
{
    free(r->hosts);
    r->hosts = NULL;
    free_strs(r->features, r->nfeatures);
    r->features = g->feat, r->nfeatures = g->nfeat;
    g->feat = NULL, g->nfeat = 0;
    if (g->ppn > 0)
        r->nodes = (int)g->count, r->ppn = (int)g->ppn, r->tasks = (int)procs;
    else
        r->nodes = 0, r->ppn = 1, r->tasks = (int)procs;
}

/* Groups that all name hosts as the processor request: one-processor
 * tasks, so many on each host (features apply to each). */
static void set_hosts(struct qsub_req *r, struct ngroup *g)
{
    free_strs(r->features, r->nfeatures);
    r->features = g->feat, r->nfeatures = g->nfeat;
    g->feat = NULL, g->nfeat = 0;
    free(r->hosts);
    r->hosts = NULL;
    for (size_t i = 0; i < g->nhost; i++) {
        char *more = xprintf("%s%s%s:%lld", r->hosts ? r->hosts : "", i ? "," : "", g->host[i],
                             g->hprocs[i]);
        free(r->hosts);
        r->hosts = more;
    }
    r->nodes = 0, r->ppn = 1, r->tasks = (int)g->procs;
}

static void free_ngroup(struct ngroup *g)
{
    free_strs(g->feat, g->nfeat);
    free_strs(g->host, g->nhost);
    free(g->hprocs);
}

/* nodes=GROUP[+GROUP]... (GROUP: N[:ppn=P][:feature]... or
 * HOST[:ppn=P][:feature]...) replaces the processor request. Groups are
 * all counted or all named: the engine places a job on the hosts it names
 * or anywhere, not both. */
static int res_nodes(struct draft *d, const char *v, struct err *err)
{
    char *copy = xstrdup(v);
    struct ngroup sum = {0};
    int rc = 0;
    for (char *g = copy, *next; g && rc == 0; g = next) {
        next = strchr(g, '+');
        if (next)
            *next++ = '\0';
        rc = node_group(g, &sum, err);
        if (rc == 0 && sum.procs > QSUB_MAX_COUNT)
            rc = err_set(err, "nodes '%s' asks for %lld processors, more than %d", qsub_shown(v).s,
                         sum.procs, QSUB_MAX_COUNT);
    }
    if (rc == 0 && sum.nhost && sum.count)
        rc = err_set(err,
                     "nodes=%s mixes node counts and host names: moku places a job on the "
                     "hosts it names or on any nodes, not both (name every host, or none)",
                     qsub_shown(v).s);
    if (rc == 0 && sum.nhost) {
        set_hosts(&d->r, &sum);
    } else if (rc == 0) {
        set_groups(&d->r, &sum, sum.procs);
        if (!sum.ppn)
            warn(d,
                 "nodes=%s: groups with different ppn are asked for as %lld processors "
                 "with no per-node shape",
                 qsub_shown(v).s, sum.procs);
    }
    free_ngroup(&sum);
    free(copy);
    return rc;
}

/* One item of a select= chunk other than the count: ncpus=C, mem=M,
 * mpiprocs and ompthreads (read: moku starts one script, the processes are
 * the job's own). */
static int chunk_item(struct draft *d, char *it, int *ncpus, long *mem, struct err *err)
{
    char *v = strchr(it, '=');
    if (!v)
        return err_set(err, "'%s': expected resource=value in a select chunk", qsub_shown(it).s);
    *v++ = '\0';
    int n = 0;
    if (strcasecmp(it, "ncpus") == 0)
        return parse_count("ncpus", v, ncpus, err);
    if (strcasecmp(it, "mem") == 0)
        return parse_mem(v, mem, err);
    if (strcasecmp(it, "mpiprocs") == 0 || strcasecmp(it, "ompthreads") == 0)
        return parse_count(it, v, &n, err);
    if (strcasecmp(it, "host") == 0 || strcasecmp(it, "vnode") == 0)
        return err_set(err,
                       "select's %s=%s: moku places a job by count and features, not by "
                       "host name",
                       it, qsub_shown(v).s);
    (void)d;
    return err_set(err,
                   "unknown resource '%s' in a select chunk (moku knows ncpus, mem, "
                   "mpiprocs, ompthreads)",
                   qsub_shown(it).s);
}

/* PBS Pro's select=[N:]ncpus=C[:mem=M][:mpiprocs=K][+...]: N chunks of C
 * processors, read as nodes=N:ppn=C (mem= is a chunk's: the job's memory is
 * the sum). Replaces the processor request and the memory. */
static int res_select(struct draft *d, const char *v, struct err *err)
{
    char *copy = xstrdup(v);
    struct ngroup sum = {0};
    long long procs = 0, mem = 0;
    int rc = 0;
    for (char *c = copy, *next; c && rc == 0; c = next) {
        next = strchr(c, '+');
        if (next)
            *next++ = '\0';
        int count = 1, ncpus = 1;
        long cmem = 0;
        char *it = c, *more;
        if (strspn(c, ":") == strlen(c)) {
            rc = err_set(err, "bad select '%s': an empty chunk", qsub_shown(v).s);
            break;
        }
        for (; it && rc == 0; it = more) {
            more = strchr(it, ':');
            if (more)
                *more++ = '\0';
            if (it == c && *it && strspn(it, "0123456789") == strlen(it))
                rc = parse_count("select count", it, &count, err);
            else if (*it)
                rc = chunk_item(d, it, &ncpus, &cmem, err);
        }
        if (rc < 0)
            break;
        if (sum.count && sum.ppn != ncpus)
            sum.ppn = 0;
        else if (!sum.count)
            sum.ppn = ncpus;
        sum.count += count;
        procs += (long long)count * ncpus;
        mem += (long long)count * cmem;
        if (procs > QSUB_MAX_COUNT || mem > QSUB_MAX_MEM_MB)
            rc = err_set(err, "select=%s asks for more than moku's limits", qsub_shown(v).s);
    }
    if (rc == 0) {
        set_groups(&d->r, &sum, procs);
        d->r.mem_mb = (long)mem;
        d->chunks_many = sum.count > 1;
        if (!sum.ppn)
            warn(d,
                 "select=%s: chunks of different ncpus are asked for as %lld processors "
                 "with no per-node shape",
                 qsub_shown(v).s, procs);
    }
    free_strs(sum.feat, sum.nfeat);
    free(copy);
    return rc;
}

/* PBS Pro's place=free|pack|scatter[:excl|:shared]...: pack puts every chunk
 * on one node, scatter one a node; free (PBS Pro's default) is read as
 * scatter, which a free placement allows, and said so when it matters. */
static int res_place(struct draft *d, const char *v, struct err *err)
{
    char *copy = xstrdup(v);
    int rc = 0;
    for (char *it = copy, *next; it && rc == 0; it = next) {
        next = strchr(it, ':');
        if (next)
            *next++ = '\0';
        if (strcasecmp(it, "free") == 0)
            d->place = PLACE_FREE;
        else if (strcasecmp(it, "scatter") == 0 || strcasecmp(it, "vscatter") == 0)
            d->place = PLACE_SCATTER;
        else if (strcasecmp(it, "pack") == 0)
            d->place = PLACE_PACK;
        else if (strcasecmp(it, "shared") == 0)
            ;
        else if (strcasecmp(it, "excl") == 0 || strcasecmp(it, "exclhost") == 0)
            d->r.exclusive = 1;
        else if (strncasecmp(it, "group=", 6) == 0)
            warn(d, "place=...:%s: node grouping is not known to moku; ignored", qsub_shown(it).s);
        else
            rc = err_set(err,
                         "bad place '%s' (expected free, pack or scatter, with excl, "
                         "shared or group=)",
                         qsub_shown(it).s);
    }
    free(copy);
    return rc;
}

/* place= and pmem applied once every option is read (they qualify the
 * processor request, whichever came first). */
static int finish_request(struct draft *d, struct err *err)
{
    struct qsub_req *r = &d->r;
    if (d->host[0]) { /* host= holds the whole processor request, whichever came first */
        if (r->hosts)
            return err_set(err, "-l host=%s and host names in nodes= both given", d->host);
        if (r->nodes > 1)
            return err_set(err, "-l host=%s with %d nodes: one host is one node", d->host,
                           r->nodes);
        r->hosts = xprintf("%s:%d", d->host, r->tasks);
        r->nodes = 0, r->ppn = 1;
    }
    if (d->place == PLACE_PACK && r->nodes > 1) {
        if ((long long)r->tasks > QSUB_MAX_COUNT)
            return err_set(err, "place=pack asks for too many processors on one node");
        r->nodes = 1, r->ppn = r->tasks;
    } else if (d->place != PLACE_SCATTER && d->place != PLACE_PACK && d->chunks_many &&
               r->nodes > 1) {
        d->opt = 'l';
        warn(d, "select with place=free: moku puts each chunk on a node of its own (as "
                "place=scatter)");
    }
    if (d->pmem_mb) {
        long long m = (long long)d->pmem_mb * r->tasks;
        if (m > QSUB_MAX_MEM_MB)
            return err_set(err, "pmem times %d processors is too large", r->tasks);
        if (m > r->mem_mb)
            r->mem_mb = (long)m; /* mem and pmem both: the larger, as Maui takes it */
    }
    return 0;
}

static int res_procs(struct qsub_req *r, const char *v, struct err *err)
{
    int n = 0;
    if (parse_count("procs", v, &n, err) < 0)
        return -1;
    free_strs(r->features, r->nfeatures);
    r->features = NULL, r->nfeatures = 0;
    free(r->hosts);
    r->hosts = NULL;
    r->nodes = 0, r->ppn = 1, r->tasks = n;
    return 0;
}

static int res_word(char **slot, const char *what, const char *v, struct err *err)
{
    struct err e;
    if (qsub_check_str(QSUB_S_WORD, v, &e) < 0)
        return err_set(err, "bad %s: %s", what, e.msg);
    set_str(slot, v);
    return 0;
}

/* -l vmem, pvmem, nice: limits the local resource manager applies to the
 * job's processes, as Torque's pbs_mom does: the address space (RLIMIT_AS,
 * the smaller of vmem and pvmem when both are given) and the nice value.
 * 1 when item is none of these. */
static int res_limit(struct draft *d, const char *item, const char *v, struct err *err)
{
    long mb = 0;
    if (strcasecmp(item, "vmem") == 0 || strcasecmp(item, "pvmem") == 0) {
        if (parse_mem(v, &mb, err) < 0)
            return -1;
        if (!d->r.vmem_mb || mb < d->r.vmem_mb)
            d->r.vmem_mb = mb;
        return 0;
    }
    if (strcasecmp(item, "nice") == 0) {
        char *end;
        long n = strtol(v, &end, 10);
        if (!*v || *end || n < QSUB_MIN_NICE || n > QSUB_MAX_NICE)
            return err_set(err, "bad nice '%s' (expected %d to %d)", qsub_shown(v).s, QSUB_MIN_NICE,
                           QSUB_MAX_NICE);
        d->r.nice = (int)n;
        return 0;
    }
    return 1;
}

/* -l resources moku reads but has no meaning for: said on stderr. */
static int res_noted(struct draft *d, const char *item, const char *v, struct err *err)
{
    long mb;
    if (strcasecmp(item, "naccesspolicy") == 0) {
        static const char *const known[] = {"shared",     "singlejob",  "singleuser",
                                            "singletask", "uniqueuser", "singleaccount"};
        for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
            if (strcasecmp(v, known[i]) == 0) {
                d->r.exclusive = i == 1; /* singlejob: the nodes are the job's alone */
                if (i > 1)
                    warn(d,
                         "naccesspolicy=%s: moku applies maui.cfg's NODEACCESSPOLICY to "
                         "every job, not a job's own; not honoured",
                         known[i]);
                return 0;
            }
        return err_set(err,
                       "bad naccesspolicy '%s' (expected shared, singlejob, singleuser, "
                       "singletask or uniqueuser)",
                       qsub_shown(v).s);
    }
    if (strcasecmp(item, "file") == 0) {
        if (parse_mem(v, &mb, err) < 0)
            return -1;
        warn(d, "file=%s: moku does not limit a job's file size; ignored", qsub_shown(v).s);
        return 0;
    }
    return 1; /* not one of these */
}

/* One resource=value of -l. */
static int apply_resource(struct draft *d, char *item, struct err *err)
{
    struct qsub_req *r = &d->r;
    char *v = strchr(item, '=');
    if (!v)
        return err_set(err, "'%s': expected resource=value", qsub_shown(item).s);
    *v++ = '\0';
    int n = 0;
    if (strcasecmp(item, "nodes") == 0)
        return d->chunks_many = 0, res_nodes(d, v, err);
    if (strcasecmp(item, "select") == 0)
        return res_select(d, v, err);
    if (strcasecmp(item, "place") == 0)
        return res_place(d, v, err);
    if (strcasecmp(item, "procs") == 0)
        return d->chunks_many = 0, res_procs(r, v, err);
    if (strcasecmp(item, "ncpus") == 0) { /* Torque: N processors on one node */
        if (parse_count("ncpus", v, &n, err) < 0)
            return -1;
        free_strs(r->features, r->nfeatures);
        r->features = NULL, r->nfeatures = 0;
        free(r->hosts);
        r->hosts = NULL;
        r->nodes = 1, r->ppn = n, r->tasks = n;
        return d->chunks_many = 0, 0;
    }
    if (strcasecmp(item, "walltime") == 0)
        return parse_walltime(v, &r->walltime, err);
    if (strcasecmp(item, "mem") == 0)
        return parse_mem(v, &r->mem_mb, err);
    if (strcasecmp(item, "pmem") == 0)
        return parse_mem(v, &d->pmem_mb, err);
    if (strcasecmp(item, "qos") == 0)
        return res_word(&r->qos, "qos", v, err);
    if (strcasecmp(item, "advres") == 0)
        return res_word(&r->advres, "advres", v, err);
    if (strcasecmp(item, "host") == 0) { /* PBS Pro: every processor on that host */
        if (!host_name_ok(v, strlen(v)))
            return err_set(err, "host=%s: not a host name", qsub_shown(v).s);
        snprintf(d->host, sizeof d->host, "%s", v);
        return 0;
    }
    int rc = res_limit(d, item, v, err);
    if (rc <= 0)
        return rc;
    rc = res_noted(d, item, v, err);
    if (rc <= 0)
        return rc;
    return err_set(err,
                   "unknown resource '%s' (moku knows nodes, procs, ncpus, select, place, "
                   "walltime, mem, pmem, vmem, pvmem, nice, naccesspolicy, qos, advres; file "
                   "is read and ignored)",
                   qsub_shown(item).s);
}

/* Call fn on each non-empty sep-separated piece of a copy of s. */
static int each_item(struct draft *d, const char *s, int sep,
                     int (*fn)(struct draft *, char *, struct err *), struct err *err)
{
    char *copy = xstrdup(s);
    int rc = 0;
    for (char *it = copy, *next; it && rc == 0; it = next) {
        next = strchr(it, sep);
        if (next)
            *next++ = '\0';
        if (*it)
            rc = fn(d, it, err);
    }
    free(copy);
    return rc;
}

static int resource_item(struct draft *d, char *it, struct err *err)
{
    return apply_resource(d, it, err);
}

/* ---------------------------------------------------------------- -W, -v */

/* One item of -W x=: QOS:X or ADVRES:X (':' or '=' between, any case). */
static int x_item(struct draft *d, char *it, struct err *err)
{
    size_t k = strcspn(it, ":=");
    if (it[k]) {
        it[k] = '\0';
        if (strcasecmp(it, "QOS") == 0)
            return res_word(&d->r.qos, "QOS", it + k + 1, err);
        if (strcasecmp(it, "ADVRES") == 0)
            return res_word(&d->r.advres, "ADVRES", it + k + 1, err);
    }
    return err_set(err, "unsupported x= item '%s' (moku knows QOS:name and ADVRES:name)",
                   qsub_shown(it).s);
}

/* -W depend=: Torque's value has commas of its own ("afterok:1,afterany:2"),
 * which the -W list has already split: an item that starts with a
 * dependency type goes on the depend= before it. Checked whole at the end
 * of the option (qsub_check_str). */
static int w_depend(struct draft *d, const char *v, int more)
{
    if (!more) {
        free(d->r.depend);
        d->r.depend = xstrdup(v);
        return 0;
    }
    char *all = xprintf("%s,%s", d->r.depend, v);
    free(d->r.depend);
    d->r.depend = all;
    return 0;
}

static int is_dep_item(const char *it)
{
    static const char *const types[] = {"after", "before", "sync"};
    for (size_t i = 0; i < 3; i++)
        if (strncmp(it, types[i], strlen(types[i])) == 0 && strchr(it, ':'))
            return 1;
    return 0;
}

static int w_attr(struct draft *d, char *it, struct err *err)
{
    if (strncmp(it, "depend=", 7) == 0) {
        d->in_depend = 1;
        return w_depend(d, it + 7, 0);
    }
    if (d->in_depend && is_dep_item(it))
        return w_depend(d, it, 1);
    d->in_depend = 0;
    if ((it[0] == 'x' || it[0] == 'X') && it[1] == '=')
        return each_item(d, it + 2, ';', x_item, err);
    if (strncasecmp(it, "group_list=", 11) == 0) {
        /* Torque's G[@host][,G@host]...: one group here (a ',' already
         * split the -W value), its host this one. */
        char *g = it + 11, *at = strchr(g, '@');
        if (at && !local_host(at + 1, strlen(at + 1)))
            return err_set(err, "group_list=%s: names another host", qsub_shown(g).s);
        if (at)
            *at = '\0';
        return res_word(&d->r.group, "group_list", g, err);
    }
    it[strcspn(it, "=")] = '\0';
    return err_set(err, "unsupported attribute '%s' (moku knows x=, group_list= and depend=)",
                   qsub_shown(it).s);
}

/* The value of NAME in the caller's environment, or NULL. */
static const char *env_lookup(char *const *envp, const char *name)
{
    size_t n = strlen(name);
    for (size_t i = 0; envp && envp[i]; i++) {
        if (strncmp(envp[i], name, n) == 0 && envp[i][n] == '=')
            return envp[i] + n + 1;
    }
    return NULL;
}

/* VAR=value, or VAR (its value from the environment; skipped when unset). */
static int v_item(struct draft *d, char *it, struct err *err)
{
    char *eq = strchr(it, '=');
    if (eq)
        *eq = '\0';
    if (!qsub_env_name_ok(it, strlen(it)))
        return err_set(err, "bad variable name '%s'", qsub_shown(it).s);
    const char *value = eq ? eq + 1 : env_lookup(d->envp, it);
    if (!value)
        return 0;
    if (qsub_check_env_value(it, value, err) < 0)
        return -1;
    return env_set(&d->r, it, strlen(it), value, err);
}

/* -V at the end: every usable variable of the environment that -v did not set. */
static int export_env(struct draft *d, struct err *err)
{
    for (size_t i = 0; d->envp && d->envp[i]; i++) {
        const char *s = d->envp[i], *eq = strchr(s, '=');
        if (!eq || !qsub_env_name_ok(s, (size_t)(eq - s)) ||
            qsub_check_env_value("", eq + 1, NULL) < 0)
            continue;
        int seen = 0;
        for (size_t k = 0; k < d->r.nenv && !seen; k++)
            seen = strlen(d->r.env[k].name) == (size_t)(eq - s) &&
                   memcmp(d->r.env[k].name, s, (size_t)(eq - s)) == 0;
        if (!seen && env_set(&d->r, s, (size_t)(eq - s), eq + 1, err) < 0)
            return -1;
    }
    return 0;
}

/* ---------------------------------------------------------------- -a */

/* A local date to epoch (mktime, tm_isdst left to it); with check_day the
 * day of the month must survive normalisation (no 31 April). */
static int local_epoch(struct tm t, int check_day, long *out)
{
    int mday = t.tm_mday;
    t.tm_isdst = -1;
    time_t e = mktime(&t);
    if (e == (time_t)-1 || (check_day && t.tm_mday != mday))
        return -1;
    *out = (long)e;
    return 0;
}

static int two(const char *s)
{
    return (s[0] - '0') * 10 + (s[1] - '0');
}

/*
 * [[[[CC]YY]MM]DD]hhmm[.SS] as Torque's cvtdate reads it: the fields not
 * given are today's, and when the time so made is in the past, the smallest
 * missing unit moves on (tomorrow, next month, next year) until it is not.
 */
static int parse_date(const char *s, long now, long *out, struct err *err)
{
    size_t n = strspn(s, "0123456789");
    int sec = 0;
    if (s[n] == '.' && strlen(s + n + 1) == 2 && strspn(s + n + 1, "0123456789") == 2)
        sec = two(s + n + 1);
    else if (s[n])
        n = 0;
    if (n < 4 || n > 12 || n % 2 || sec > 59)
        return err_set(err, "bad date '%s' (expected [[[[CC]YY]MM]DD]hhmm[.SS])", qsub_shown(s).s);
    const char *hm = s + n - 4;
    int year = -1, mon = -1, mday = -1, hour = two(hm), min = two(hm + 2);
    if (n >= 6)
        mday = two(hm - 2);
    if (n >= 8)
        mon = two(hm - 4);
    if (n == 10)
        year = two(s) < 69 ? 2000 + two(s) : 1900 + two(s);
    if (n == 12)
        year = two(s) * 100 + two(s + 2);
    if (hour > 23 || min > 59 || mday == 0 || mday > 31 || mon == 0 || mon > 12)
        return err_set(err, "bad date '%s': no such time", qsub_shown(s).s);
    time_t tnow = (time_t)now;
    struct tm base;
    if (!localtime_r(&tnow, &base))
        return err_set(err, "bad date '%s': cannot read the local time", qsub_shown(s).s);
    /* Tries: 2 days, 13 months (a 31st may skip one), 9 years (29 February). */
    int tries = n == 4 ? 2 : n == 6 ? 13 : n == 8 ? 9 : 1;
    for (int k = 0; k < tries; k++) {
        struct tm t = {.tm_sec = sec, .tm_min = min, .tm_hour = hour};
        t.tm_mday = n == 4 ? base.tm_mday + k : mday;
        t.tm_mon = n <= 6 ? base.tm_mon + (n == 6 ? k : 0) : mon - 1;
        t.tm_year = (year >= 0 ? year - 1900 : base.tm_year) + (n == 8 ? k : 0);
        long e;
        if (local_epoch(t, n > 4, &e) < 0)
            continue;
        if (e >= now || year >= 0) {
            if (e < 1 || e > QSUB_MAX_EPOCH)
                return err_set(err, "date '%s' is out of range", qsub_shown(s).s);
            *out = e;
            return 0;
        }
    }
    return err_set(err, "bad date '%s': no such date", qsub_shown(s).s);
}

/* ------------------------------------------------------------ the options */

static int opt_name(struct draft *d, const char *v, struct err *err)
{
    if (qsub_check_str(QSUB_S_NAME, v, err) < 0)
        return -1;
    return set_str(&d->r.name, v), 0;
}

static int opt_word(char **slot, const char *v, struct err *err)
{
    if (qsub_check_str(QSUB_S_WORD, v, err) < 0)
        return -1;
    return set_str(slot, v), 0;
}

static int opt_path(struct draft *d, char **slot, const char *v, struct err *err)
{
    char *p;
    if (resolve_path(d->ccwd, v, &p, err) < 0)
        return -1;
    free(*slot);
    *slot = p;
    return 0;
}

/* -p: Torque's job priority, -1024 to 1023. Read, and said to be ignored,
 * as Maui 3.3.1 does in effect: it reads it into the job's user priority
 * (J->UPriority), which no priority factor weighs (maui-digest §2.7; the
 * USERPRIO factor came with Moab). qalter -p sets the administrator's
 * system priority instead. */
static int opt_priority(struct draft *d, const char *v, struct err *err)
{
    char *end;
    long p = strtol(v, &end, 10);
    if (!*v || *end || p < -1024 || p > 1023)
        return err_set(err, "bad priority '%s' (expected -1024 to 1023)", qsub_shown(v).s);
    if (p != 0)
        warn(d,
             "%ld: moku has no user priority (Maui 3.3.1 weighed none either; an "
             "administrator sets a job's with qalter -p or setspri); ignored",
             p);
    return 0;
}

/* Apply option c with value v (NULL for flags). */
static int apply_opt(struct draft *d, char c, const char *v, struct err *err)
{
    struct qsub_req *r = &d->r;
    switch (c) {
    case 'N':
        return opt_name(d, v, err);
    case 'A':
        return opt_word(&r->account, v, err);
    case 'q': {
        /* Torque's queue@server: the server is this host (the daemon's). */
        const char *at = strchr(v, '@');
        if (at && !local_host(at + 1, strlen(at + 1)))
            return err_set(err, "'%s': the server is another host", qsub_shown(v).s);
        char *qn = xstrndup(v, at ? (size_t)(at - v) : strlen(v));
        int rc = opt_word(&r->queue, qn, err);
        free(qn);
        return rc;
    }
    case 'M':
        if (check_mailto(v, err) < 0)
            return -1;
        return set_str(&r->mail_users, v), 0;
    case 'd':
        return opt_path(d, &r->cwd, v, err);
    case 'o':
        return opt_path(d, &r->out_path, v, err);
    case 'e':
        return opt_path(d, &r->err_path, v, err);
    case 'a':
        return parse_date(v, d->now, &r->start_after, err);
    case 'h':
        return r->hold = 1, 0;
    case 'I':
        return r->interactive = 1, 0;
    case 'V':
        return d->export_all = 1, 0;
    case 'l':
        return each_item(d, v, ',', resource_item, err);
    case 'W': {
        d->in_depend = 0;
        if (each_item(d, v, ',', w_attr, err) < 0)
            return -1;
        struct err e;
        if (r->depend && qsub_check_str(QSUB_S_DEPEND, r->depend, &e) < 0)
            return err_set(err, "depend=%s: %s", qsub_shown(r->depend).s, e.msg);
        return 0;
    }
    case 'v':
        return each_item(d, v, ',', v_item, err);
    case 'm':
        if (check_mail(v, err) < 0)
            return -1;
        return set_str(&r->mail_events, v), 0;
    case 'j':
        if (strcmp(v, "oe") && strcmp(v, "eo") && strcmp(v, "n"))
            return err_set(err, "bad join '%s' (expected oe, eo or n)", qsub_shown(v).s);
        r->join = v[0] == 'o' ? QSUB_JOIN_OE : v[0] == 'e' ? QSUB_JOIN_EO : QSUB_JOIN_NONE;
        return 0;
    case 'r':
        if (strcmp(v, "y") && strcmp(v, "n"))
            return err_set(err, "expected y or n, got '%s'", qsub_shown(v).s);
        r->rerunnable = v[0] == 'y';
        return 0;
    case 'S':
        if (qsub_check_str(QSUB_S_PATH, v, err) < 0)
            return -1;
        return set_str(&r->shell, v), 0;
    case 'p':
        return opt_priority(d, v, err);
    case 't':
    case 'J':
        return qsub_opt_array(r, c == 'J', v, err);
    case 'k':
        if (strspn(v, "eon") != strlen(v) || !*v || strlen(v) > 2)
            return err_set(err, "bad keep '%s' (expected e, o, eo, oe or n)", qsub_shown(v).s);
        if (strcmp(v, "n") != 0)
            warn(d,
                 "%s: moku writes the output where -o and -e say as the job runs, not "
                 "on the execution host; ignored",
                 qsub_shown(v).s);
        return 0;
    }
    return err_set(err, "internal: no handler"); /* every table entry has a case */
}

struct optdef {
    char c;
    int has_arg;
    const char *refused; /* why the option is refused, or NULL */
};

static const struct optdef optdefs[] = {
    {'a', 1, NULL},
    {'A', 1, NULL},
    {'d', 1, NULL},
    {'e', 1, NULL},
    {'h', 0, NULL},
    {'j', 1, NULL},
    {'l', 1, NULL},
    {'m', 1, NULL},
    {'M', 1, NULL},
    {'N', 1, NULL},
    {'o', 1, NULL},
    {'q', 1, NULL},
    {'r', 1, NULL},
    {'S', 1, NULL},
    {'v', 1, NULL},
    {'V', 0, NULL},
    {'W', 1, NULL},
    {'p', 1, NULL},
    {'k', 1, NULL},
    {'t', 1, NULL},
    {'J', 1, NULL},
    {'I', 0, NULL},
    {'X', 0,
     "X11 forwarding is not supported (an interactive job's terminal is relayed, "
     "not its X display)"},
};

static const struct optdef *find_opt(char c)
{
    for (size_t i = 0; i < sizeof optdefs / sizeof optdefs[0]; i++) {
        if (optdefs[i].c == c)
            return &optdefs[i];
    }
    return NULL;
}

/* Where words come from, for messages: "qsub: " and no tag, or
 * "job.sh:3: " and "#PBS". */
struct where {
    const char *prefix;
    const char *tag;
};

static int where_err(const struct where *w, char opt, const char *msg, struct err *err)
{
    if (w->tag && opt)
        return err_set(err, "%s%s -%c: %s", w->prefix, w->tag, opt, msg);
    if (w->tag)
        return err_set(err, "%s%s: %s", w->prefix, w->tag, msg);
    if (opt)
        return err_set(err, "%s-%c: %s", w->prefix, opt, msg);
    return err_set(err, "%s%s", w->prefix, msg);
}

/* The same for the shape of the words (an unknown option, a missing value,
 * an extra operand): a usage error on the command line (exit 2), a plain
 * one in a script's directive (the script is wrong, not the command). */
static int where_usage(const struct where *w, char opt, const char *msg, struct err *err)
{
    where_err(w, opt, msg, err);
    if (err && !w->tag)
        err->usage = 1;
    return -1;
}

/* One word that starts with '-': its options (flags may group; an option
 * with a value takes the rest of the word or the next word). *i moves past
 * what was used. d NULL: syntax only. */
static int scan_word(struct draft *d, int argc, char *const argv[], int *i, const struct where *w,
                     struct err *err)
{
    struct err e;
    for (const char *p = argv[*i] + 1; *p; p++) {
        const struct optdef *o = find_opt(*p);
        if (!o && *p > 0x20 && *p < 0x7f && *p != '-')
            snprintf(e.msg, sizeof e.msg, "unknown option '-%c'", *p);
        else if (!o)
            snprintf(e.msg, sizeof e.msg, "unknown option '%s'", qsub_shown(argv[*i]).s);
        if (!o)
            return where_usage(w, 0, e.msg, err);
        if (o->refused)
            return where_err(w, o->c, o->refused, err);
        const char *v = NULL;
        if (o->has_arg) {
            v = p[1] ? p + 1 : *i + 1 < argc ? argv[++*i] : NULL;
            if (!v)
                return where_usage(w, o->c, "missing argument", err);
        }
        if (d) {
            d->prefix = w->prefix, d->tag = w->tag, d->opt = o->c;
            if (apply_opt(d, o->c, v, &e) < 0)
                return where_err(w, o->c, e.msg, err);
        }
        if (v)
            break;
    }
    return 0;
}

/* Scan words argv[first..argc): options anywhere (as GNU getopt permutes),
 * "--" ends them, "-" is an operand. One operand is allowed and kept in
 * *operand; with operand NULL (a directive) none is. d NULL: syntax only. */
static int scan_args(struct draft *d, int argc, char *const argv[], int first,
                     const struct where *w, const char **operand, struct err *err)
{
    int dashdash = 0, nop = 0;
    for (int i = first; i < argc; i++) {
        const char *a = argv[i];
        if (!dashdash && strcmp(a, "--") == 0) {
            dashdash = 1;
        } else if (dashdash || a[0] != '-' || a[1] == '\0') {
            struct err e;
            if (!operand || nop++ > 0) {
                snprintf(e.msg, sizeof e.msg, "%s argument '%s'",
                         operand ? "unexpected extra" : "unexpected", qsub_shown(a).s);
                return where_usage(w, 0, e.msg, err);
            }
            *operand = a;
        } else if (scan_word(d, argc, argv, &i, w, err) < 0) {
            return -1;
        }
    }
    return 0;
}

/* ------------------------------------------------------------ directives */

/* Split a directive into words: blanks separate, '...' and "..." group (no
 * escapes), an unquoted '#' starting a word begins a comment. *words is a
 * NULL-terminated array (free_strs with the count). */
static int split_words(const char *s, char ***words, int *nwords, struct err *err)
{
    size_t len = strlen(s);
    char *buf = xmalloc(len + 1);
    char **v = NULL;
    int n = 0;
    const char *p = s;
    for (;;) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p || *p == '#')
            break;
        size_t o = 0;
        char quote = 0;
        for (; *p && (quote || (*p != ' ' && *p != '\t')); p++) {
            if (quote ? *p == quote : (*p == '"' || *p == '\''))
                quote = quote ? 0 : *p;
            else
                buf[o++] = *p;
        }
        if (quote) {
            free(buf);
            free_strs(v, (size_t)n);
            return err_set(err, "unterminated %c quote", quote);
        }
        v = xrealloc(v, (size_t)(n + 2) * sizeof *v);
        v[n++] = xstrndup(buf, o);
        v[n] = NULL;
    }
    free(buf);
    *words = v;
    *nwords = n;
    return 0;
}

/* The tag of a directive line ("#PBS", "#MSUB") or NULL. */
static const char *directive_tag(const char *line)
{
    static const char *const tags[] = {"#PBS", "#MSUB"};
    for (size_t i = 0; i < 2; i++) {
        size_t k = strlen(tags[i]);
        if (strncmp(line, tags[i], k) == 0 && (line[k] == ' ' || line[k] == '\t'))
            return tags[i];
    }
    return NULL;
}

/* One directive line: its words are options (the first word is a stand-in
 * argv[0]). */
static int directive(struct draft *d, const char *line, const char *tag, const char *sname, int ln,
                     struct err *err)
{
    char prefix[128];
    snprintf(prefix, sizeof prefix, "%s:%d: ", sname, ln);
    struct where w = {prefix, tag};
    char **words = NULL;
    int n = 0;
    struct err e;
    if (split_words(line + strlen(tag), &words, &n, &e) < 0)
        return where_err(&w, 0, e.msg, err);
    int rc = 0;
    if (n > 0) {
        char **argv = xmalloc((size_t)(n + 2) * sizeof *argv);
        argv[0] = (char *)tag;
        memcpy(argv + 1, words, (size_t)(n + 1) * sizeof *argv);
        rc = scan_args(d, n + 1, argv, 1, &w, NULL, err);
        free(argv);
    }
    free_strs(words, (size_t)n);
    return rc;
}

/* Read the directives at the head of the script (already checked: no NUL). */
static int directives(struct draft *d, const char *text, size_t len, const char *sname,
                      struct err *err)
{
    const char *p = text, *end = text + len;
    for (int ln = 1; p < end; ln++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t k = (size_t)((nl ? nl : end) - p);
        char *line = xstrndup(p, k);
        p = nl ? nl + 1 : end;
        if (k && line[k - 1] == '\r') /* CRLF scripts */
            line[k - 1] = '\0';
        const char *first = line + strspn(line, " \t\f\v\r");
        const char *tag = directive_tag(line); /* a "#!" first line is a comment */
        int rc = 0, stop = *first && *first != '#';
        if (!stop && tag)
            rc = directive(d, line, tag, sname, ln, err);
        free(line);
        if (rc < 0)
            return -1;
        if (stop)
            break;
    }
    return 0;
}

/* ------------------------------------------------------------ qsub_parse */

/* Whether flag c (an option without a value) is among argv[1..] as scan_args
 * reads them: grouped flags count, an option's value and the words after
 * "--" do not. argv is known to scan cleanly. */
static int has_flag(int argc, char *const argv[], char c)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0)
            return 0;
        if (argv[i][0] != '-' || argv[i][1] == '\0')
            continue;
        for (const char *p = argv[i] + 1; *p; p++) {
            const struct optdef *o = find_opt(*p);
            if (o && o->c == c && !o->has_arg)
                return 1;
            if (o && o->has_arg) {
                i += !p[1]; /* the value is the next word */
                break;
            }
        }
    }
    return 0;
}

/* The default job name: the script's base name with anything outside
 * printable ASCII or blank made '_', cut to QSUB_MAX_NAME; "STDIN" for none. */
static char *default_name(const char *script_name)
{
    const char *b = script_name ? base_name(script_name) : "";
    if (!*b)
        return xstrdup("STDIN");
    char *s = xstrndup(b, strnlen(b, QSUB_MAX_NAME));
    for (char *c = s; *c; c++) {
        if (*c <= 0x20 || *c >= 0x7f)
            *c = '_';
    }
    return s;
}

int qsub_script_arg(int argc, char *const argv[], const char **path, int *interactive,
                    struct err *err)
{
    char prefix[96];
    prog_prefix(prefix, sizeof prefix, argc, argv);
    struct where w = {prefix, NULL};
    const char *op = NULL;
    if (scan_args(NULL, argc, argv, 1, &w, &op, err) < 0)
        return -1;
    *path = op;
    if (interactive) /* the syntax is sound: only -I itself is looked for */
        *interactive = has_flag(argc, argv, 'I');
    return 0;
}

/* The script's text: read for its directives, kept unless the job is
 * interactive (Torque's qsub -I script.sh reads the #PBS lines and runs a
 * shell, not the body). script NULL: none was read (-I with no operand). */
static int parse_into(struct draft *d, int argc, char *const argv[], const char *script, size_t len,
                      const char *sname, const struct where *w, struct err *err)
{
    struct err e;
    int line;
    const char *f = script ? script_fault(script, len, &line) : NULL;
    if (f && line)
        return err_set(err, "%s:%d: %s", qsub_shown(sname).s, line, f);
    if (f)
        return err_set(err, "%s: %s", qsub_shown(sname).s, f);
    if (script && directives(d, script, len, qsub_shown(sname).s, err) < 0)
        return -1;
    const char *op = NULL;
    if (scan_args(d, argc, argv, 1, w, &op, err) < 0)
        return -1;
    if (!script && !d->r.interactive)
        return err_set(err, "%s: script is empty", qsub_shown(sname).s);
    if (d->r.interactive && (d->r.array || d->r.array_pbs))
        return where_err(w, 'I', "an interactive job cannot be an array (-t, -J)", err);
    if (d->export_all && export_env(d, &e) < 0)
        return where_err(w, 'V', e.msg, err);
    d->prefix = w->prefix, d->tag = NULL;
    if (finish_request(d, &e) < 0)
        return where_err(w, 'l', e.msg, err);
    if (!d->r.interactive)
        d->r.script = xstrndup(script, len);
    if (!d->r.name)
        d->r.name = default_name(sname);
    if (qsub_check(&d->r, &e) < 0)
        return where_err(w, 0, e.msg, err);
    return 0;
}

int qsub_parse(int argc, char *const argv[], const char *script, size_t script_len,
               const char *script_name, const char *cwd, char *const envp[], long now,
               struct qsub_req *out, struct err *err)
{
    char prefix[96];
    prog_prefix(prefix, sizeof prefix, argc, argv);
    struct where w = {prefix, NULL};
    struct draft d = {.ccwd = cwd, .envp = envp, .now = now};
    qsub_req_init(&d.r);
    struct err e;
    if (!cwd || cwd[0] != '/' || resolve_path("/", cwd, &d.r.cwd, &e) < 0)
        return err_set(err, "%sworking directory '%s' is not a usable absolute path", prefix,
                       cwd ? qsub_shown(cwd).s : "(none)");
    char *ccwd = xstrdup(d.r.cwd); /* -d may replace r.cwd; relative paths stay the client's */
    d.ccwd = ccwd;
    int rc = parse_into(&d, argc, argv, script, script ? script_len : 0,
                        script_name ? script_name : "STDIN", &w, err);
    free(ccwd);
    if (rc < 0) {
        qsub_free(&d.r);
        return -1;
    }
    *out = d.r;
    return 0;
}
