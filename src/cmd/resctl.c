/*
 * resctl — setres and releaseres: administrative reservations made and
 * released by hand (digest §7.7; Maui 3.3.1 UIResCreate, UIResDestroy).
 * Both are control commands (cmd_ctx.control); the engine does the placing
 * (sched_resv_create), this file only reads the command line.
 *
 * setres [-a accts] [-A chargeacct] [-c classes] [-d duration] [-e endtime]
 *        [-f features] [-g groups] [-j jobattrs] [-n name] [-p partition]
 *        [-q qos] [-r resdesc] [-s starttime] [-u users] [-x flags] RES_EXP
 *   lists are ':'-separated (',' also works); -u -g -a -c -q -j make the
 *   ACL, in that order (the first entry names the reservation when -n does
 *   not); no ACL at all is a SYSTEM reservation that no job may use.
 *   RES_EXP: ALL | TASKS==<n> | TASKS>=<n> | hosts: words, each a regular
 *   expression (it holds one of []*?+^$(){}|\) or a ','-separated list of
 *   names.
 *   TIME_EXP (-s, -e): +[[[DD:]HH:]MM:]SS from now, or
 *   HH[:MM[:SS]][_MO[/DD[/YY]]] in the scheduler's time zone (today when no
 *   date is given; YY < 100 is 20YY). -d: [[[DD:]HH:]MM:]SS (two fields are
 *   HH:MM, as Maui reads them) or INFINITY.
 *   RES_DESC (-r): PROCS=<n>;MEM=<MB>;DISK=<MB>;SWAP=<MB> — ';' ',' or '+'
 *   between items, '=' or ':' inside them; PROCS=ALL (the default) is a
 *   whole node per task.
 *   -x: the flag names of SRCFG FLAGS (BYNAME, ...), DEDICATEDRESOURCE.
 *   Reply: `reservation '<id>' created on <N> node[s] (<T> tasks, <P> processors)`
 *   (Maui 3.3.1 gives the tasks alone), then
 *   `<node>:<tasks>` per node; with --format=json showres's JSON of it.
 * releaseres <id>... : `released User reservation '<id>'` per id.
 *
 * Where moku differs from Maui 3.3.1: start defaults to now and a start in
 * the past is moved to now; -d and -e together are refused (Maui lets the
 * last win); -N (node sets) is refused rather than ignored, since moku has
 * no node sets and ignoring it would reserve other nodes than asked; -x is
 * parsed (3.3.1 reads it only when it is "[NONE]", an inverted test);
 * TASKS>=n reserves n tasks, which meets it. releaseres is all or nothing:
 * one unknown id fails the command and releases none (Maui releases the
 * others) — a failed command returns no reply, so released reservations
 * would go unreported, and the daemon saves only what succeeded. The error
 * names every bad id and says that nothing was released.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "cfg/cfg.h"
#include "cmd/cmd_int.h"
#include "policy/srcfg.h"
#include "util/mem.h"

/* Maui's window for a reservation without -d or -e: 100,000,000 s. */
#define SETRES_LENGTH 100000000L
/* Options that take a value. */
#define SETRES_OPTS "aAcdefgjmnNpqrsux"
/* What makes a host word a regular expression (as SRCFG HOSTLIST reads
 * them, policy/srcfg.h). */
#define HOST_REGEX_CHARS "[]*?+^$(){}|\\"

/* The command line, sorted out. */
struct setres_req {
    const char *opt[128]; /* -<letter>'s value, NULL when not given */
    const char **words;   /* RES_EXP words; owned array */
    int nwords;
};

/* The spec and the storage it points to. */
struct setres_build {
    struct resv_spec spec;
    struct srcfg_host *hosts;
    size_t nhosts, hcap;
    char **features;
    size_t nfeatures, fcap;
    struct acl *acl;
};

/* ---- the command line ---- */

static int req_parse(const struct cmd_args *a, struct setres_req *q, struct err *err)
{
    memset(q, 0, sizeof *q);
    q->words = xcalloc((size_t)a->argc + 1, sizeof *q->words);
    for (int i = 0; i < a->argc; i++) {
        const char *w = a->argv[i];
        if (w[0] != '-' || w[1] == '\0') {
            q->words[q->nwords++] = w;
            continue;
        }
        unsigned char o = (unsigned char)w[1];
        if (!strchr(SETRES_OPTS, o))
            return err_usage(err, "setres: unknown option '%s'", cmd_word(w));
        if (q->opt[o])
            return err_usage(err, "setres: -%c given twice", o);
        if (!w[2] && i + 1 >= a->argc)
            return err_usage(err, "setres: -%c needs a value", o);
        q->opt[o] = w[2] ? w + 2 : a->argv[++i];
    }
    if (q->opt['N'])
        return err_set(err, "setres: -N (node sets) is not supported; name the hosts or use -f");
    return 0;
}

/* ---- times ---- */

static int bad_time(char opt, const char *s, struct err *err)
{
    return err_set(err,
                   "setres: bad time '%s' for -%c (+[[[DD:]HH:]MM:]SS or "
                   "HH[:MM[:SS]][_MO[/DD[/YY]]])",
                   cmd_word(s), opt);
}

/* Up to four digits at *p as a number; -1 when there is none. */
static int take_num(const char **p)
{
    int v = 0, n = 0;
    for (; n < 4 && isdigit((unsigned char)**p); n++, (*p)++)
        v = v * 10 + (**p - '0');
    return n ? v : -1;
}

/* Up to max numbers separated by sep into f. */
static int take_fields(const char **p, int *f, int max, char sep)
{
    for (int i = 0; i < max; i++) {
        if ((f[i] = take_num(p)) < 0)
            return -1;
        if (**p != sep || i + 1 == max)
            return 0;
        (*p)++;
    }
    return 0;
}

/* "HH[:MM[:SS]][_MO[/DD[/YY]]]": f[0..2] the time, f[3..5] the date, -1
 * where not given ("_06/20": midnight). */
static int split_abs(const char *s, int f[6])
{
    const char *p = s;
    for (int i = 0; i < 6; i++)
        f[i] = -1;
    if (*p != '_' && take_fields(&p, f, 3, ':') < 0)
        return -1;
    if (*p == '_') {
        p++;
        if (take_fields(&p, f + 3, 3, '/') < 0)
            return -1;
    }
    return *p == '\0' ? 0 : -1;
}

/* The broken-down time of epoch t in the scheduler's zone. */
static int zone_tm(int local, long off, time_t t, struct tm *tm)
{
    time_t shifted = t + (time_t)off;
    return (local ? localtime_r(&t, tm) : gmtime_r(&shifted, tm)) ? 0 : -1;
}

/* Fields to driver time: what is not given is today's date; checked by
 * converting back (June 31 is refused, not moved to July 1). */
static int abs_time(const struct cmd_ctx *c, const int f[6], long *out)
{
    int local;
    long off, ep = sched_epoch(c->s);
    sched_get_zone(c->s, &local, &off);
    struct tm tm, back;
    if (zone_tm(local, off, (time_t)(c->now + ep), &tm) < 0)
        return -1;
    tm.tm_hour = f[0] < 0 ? 0 : f[0];
    tm.tm_min = f[1] < 0 ? 0 : f[1];
    tm.tm_sec = f[2] < 0 ? 0 : f[2];
    tm.tm_mon = f[3] < 0 ? tm.tm_mon : f[3] - 1;
    tm.tm_mday = f[4] < 0 ? tm.tm_mday : f[4];
    tm.tm_year = f[5] < 0 ? tm.tm_year : (f[5] < 100 ? 2000 + f[5] : f[5]) - 1900;
    if (tm.tm_hour > 23 || tm.tm_min > 59 || tm.tm_sec > 59 || tm.tm_mon < 0 || tm.tm_mon > 11 ||
        tm.tm_mday < 1 || tm.tm_year < 70)
        return -1;
    int mday = tm.tm_mday, mon = tm.tm_mon;
    tm.tm_isdst = -1;
    time_t t = local ? mktime(&tm) : timegm(&tm) - (time_t)off;
    if (zone_tm(local, off, t, &back) < 0 || back.tm_mday != mday || back.tm_mon != mon)
        return -1;
    *out = (long)t - ep;
    return 0;
}

/* A duration, with or without a leading '+'. */
static int parse_duration(const char *s, long *out)
{
    return cfg_parse_time(s[0] == '+' ? s + 1 : s, out, NULL) < 0 || *out < 0 ? -1 : 0;
}

/* TIME_EXP into driver time. */
static int parse_time_exp(const struct cmd_ctx *c, char opt, const char *s, long *out,
                          struct err *err)
{
    int f[6];
    long d = 0;
    if (s[0] == '+') {
        if (parse_duration(s, &d) < 0)
            return bad_time(opt, s, err);
        *out = c->now + d;
        return 0;
    }
    if (split_abs(s, f) < 0 || abs_time(c, f, out) < 0)
        return bad_time(opt, s, err);
    return 0;
}

static int setres_window(const struct cmd_ctx *c, const struct setres_req *q, long *start,
                         long *end, struct err *err)
{
    const char *s = q->opt['s'], *e = q->opt['e'], *d = q->opt['d'];
    long len;
    if (e && d)
        return err_usage(err, "setres: -d and -e both set the end; give one of them");
    /* INFINITY (-d or -e) never ends: the engine's "never", not Maui's
     * 2140000000 s, which ends some 68 years on. */
    int forever = (e && strcasecmp(e, "INFINITY") == 0) || (d && strcasecmp(d, "INFINITY") == 0);
    *start = c->now;
    if (s && parse_time_exp(c, 's', s, start, err) < 0)
        return -1;
    *end = *start + SETRES_LENGTH;
    if (forever)
        *end = SCHED_NEVER;
    else if (e && parse_time_exp(c, 'e', e, end, err) < 0)
        return -1;
    if (d && !forever && parse_duration(d, &len) < 0)
        return err_set(err, "setres: bad duration '%s' for -d ([[[DD:]HH:]MM:]SS)", cmd_word(d));
    if (d && !forever)
        *end = *start + len;
    if (*start < c->now)
        *start = c->now; /* a reservation begins when it is made at the earliest */
    if (*end <= *start)
        return err_set(err, "cannot create reservation (invalid timeframe)");
    return 0;
}

/* ---- RES_DESC, flags, features ---- */

static int resdesc_item(char *item, struct srcfg_res *res, struct err *err)
{
    char *v = item + strcspn(item, "=:");
    if (!*v)
        return err_set(err, "setres: -r: '%s' is not NAME=VALUE", cmd_word(item));
    *v++ = '\0';
    char *end;
    long n = strtol(v, &end, 10);
    int ok = *v && !*end && n >= 0 && n <= 1000000000L;
    if (strcasecmp(item, "PROCS") == 0) {
        ok = strcasecmp(v, "ALL") == 0 || (ok && n >= 1);
        res->procs = strcasecmp(v, "ALL") == 0 ? -1 : n;
    } else if (strcasecmp(item, "MEM") == 0) {
        res->mem = n;
    } else if (strcasecmp(item, "DISK") == 0) {
        res->disk = n;
    } else if (strcasecmp(item, "SWAP") == 0) {
        res->swap = n;
    } else {
        return err_set(err, "setres: -r: unknown resource '%s' (PROCS, MEM, DISK or SWAP)",
                       cmd_word(item));
    }
    return ok ? 0 : err_set(err, "setres: -r: bad value '%s' for %s", cmd_word(v), item);
}

/* "PROCS=2;MEM=512" (also "PROCS:2;MEM:512", "PROCS=2,MEM=256"). */
static int parse_resdesc(const char *s, struct srcfg_res *res, struct err *err)
{
    *res = (struct srcfg_res){.procs = -1};
    char *copy = xstrdup(s), *save = NULL;
    int rc = 0, n = 0;
    for (char *t = strtok_r(copy, ";,+", &save); t && rc == 0; t = strtok_r(NULL, ";,+", &save)) {
        rc = resdesc_item(t, res, err);
        n++;
    }
    free(copy);
    if (rc == 0 && n == 0)
        rc = err_set(err, "setres: -r: empty resource description");
    return rc;
}

/* The SRCFG_* bit named tok, 0 if none. */
static unsigned flag_bit(const char *tok)
{
    for (unsigned b = 0; b < 32; b++) {
        const char *name = srcfg_flag_name(1u << b);
        if (strcmp(name, "?") != 0 && strcasecmp(name, tok) == 0)
            return 1u << b;
    }
    return 0;
}

static int parse_flags(const char *s, struct resv_spec *spec, struct err *err)
{
    char *copy = xstrdup(s), *save = NULL;
    int rc = 0;
    for (char *t = strtok_r(copy, ":,|[] ", &save); t && rc == 0;
         t = strtok_r(NULL, ":,|[] ", &save)) {
        unsigned bit = flag_bit(t);
        if (bit)
            spec->flags |= bit;
        else if (strcasecmp(t, "DEDICATEDRESOURCE") == 0)
            spec->access = SRCFG_DEDICATED;
        else if (srcfg_flag_unsupported(t))
            rc =
                err_set(err, "setres: -x: flag '%s' is not supported by moku (it would be ignored)",
                        cmd_word(t));
        else if (strcasecmp(t, "NONE") != 0)
            rc = err_set(err,
                         "setres: -x: unknown flag '%s' (BYNAME, BESTEFFORT, ..., "
                         "DEDICATEDRESOURCE)",
                         cmd_word(t));
    }
    free(copy);
    return rc;
}

static void add_feature(struct setres_build *b, const char *f, size_t n)
{
    b->features = xgrow(b->features, &b->fcap, b->nfeatures + 1, sizeof *b->features);
    b->features[b->nfeatures++] = xstrndup(f, n);
}

static void parse_features(const char *s, struct setres_build *b)
{
    for (const char *p = s; *p;) {
        size_t n = strcspn(p, ":,");
        if (n)
            add_feature(b, p, n);
        p += n + (p[n] != '\0');
    }
}

/* ---- RES_EXP ---- */

static void add_host(struct setres_build *b, const char *text, size_t n, int regex)
{
    b->hosts = xgrow(b->hosts, &b->hcap, b->nhosts + 1, sizeof *b->hosts);
    b->hosts[b->nhosts++] = (struct srcfg_host){.text = xstrndup(text, n), .regex = regex};
}

static int host_word(struct setres_build *b, const char *w, struct err *err)
{
    if (strpbrk(w, HOST_REGEX_CHARS)) {
        add_host(b, w, strlen(w), 1); /* the engine compiles it and says if it is bad */
        return 0;
    }
    size_t before = b->nhosts;
    for (const char *p = w; *p;) {
        size_t n = strcspn(p, ",");
        if (n)
            add_host(b, p, n, 0);
        p += n + (p[n] != '\0');
    }
    return b->nhosts > before ? 0 : err_set(err, "setres: no host in '%s'", cmd_word(w));
}

/* TASKS==<n> or TASKS>=<n> (any case); 1 when w is one, -1 on a bad one. */
static int tasks_word(const char *w, long *tasks, struct err *err)
{
    if (strncasecmp(w, "TASKS", 5) != 0 || (w[5] != '=' && w[5] != '>'))
        return 0;
    char *end = NULL;
    long n = w[6] == '=' && isdigit((unsigned char)w[7]) ? strtol(w + 7, &end, 10) : 0;
    if (!end || *end || n < 1 || n > 10000000L)
        return err_set(err, "setres: bad task count '%s' (TASKS==<n> or TASKS>=<n>)", cmd_word(w));
    *tasks = n;
    return 1;
}

static int parse_where(const struct setres_req *q, struct setres_build *b, struct err *err)
{
    if (q->nwords == 0)
        return err_usage(err, "setres: missing resource expression (ALL, TASKS==<n> or hosts)");
    const char *w = q->words[0];
    int t = tasks_word(w, &b->spec.tasks, err);
    if (t < 0)
        return -1;
    int alone = t > 0 || strcasecmp(w, "ALL") == 0;
    if (alone && q->nwords > 1)
        return err_usage(err, "setres: '%s' is the whole resource expression ('%s' is extra)",
                         cmd_word(w), cmd_word(q->words[1]));
    if (t > 0)
        return 0;
    if (strcasecmp(w, "ALL") == 0) {
        add_host(b, ".*", 2, 1);
        return 0;
    }
    for (int i = 0; i < q->nwords; i++)
        if (host_word(b, q->words[i], err) < 0)
            return -1;
    return 0;
}

/* ---- the ACL ---- */

static const struct {
    char opt;
    enum acl_type type;
} acl_opts[] = {{'u', ACL_USER},  {'g', ACL_GROUP}, {'a', ACL_ACCOUNT},
                {'c', ACL_CLASS}, {'q', ACL_QOS},   {'j', ACL_JOBATTR}};

static int build_acl(const struct setres_req *q, struct acl *acl, struct err *err)
{
    for (size_t i = 0; i < sizeof acl_opts / sizeof acl_opts[0]; i++) {
        const char *v = q->opt[(unsigned char)acl_opts[i].opt];
        struct err e;
        if (v && acl_add_list(acl, acl_opts[i].type, v, &e) < 0)
            return err_set(err, "setres: -%c: %s", acl_opts[i].opt, e.msg);
    }
    return 0;
}

/* ---- setres ---- */

static int build(const struct cmd_ctx *c, const struct setres_req *q, struct setres_build *b,
                 struct err *err)
{
    struct resv_spec *sp = &b->spec;
    *b = (struct setres_build){.acl = acl_create()};
    sp->res.procs = -1;
    if (setres_window(c, q, &sp->start, &sp->end, err) < 0 || parse_where(q, b, err) < 0)
        return -1;
    if (q->opt['r'] && parse_resdesc(q->opt['r'], &sp->res, err) < 0)
        return -1;
    if (q->opt['x'] && parse_flags(q->opt['x'], sp, err) < 0)
        return -1;
    if (q->opt['f'])
        parse_features(q->opt['f'], b);
    if (build_acl(q, b->acl, err) < 0)
        return -1;
    sp->name = q->opt['n'];
    sp->partition = q->opt['p'];
    sp->chargeaccount = q->opt['A'];
    sp->hosts = b->hosts;
    sp->nhosts = b->nhosts;
    sp->features = b->features;
    sp->nfeatures = b->nfeatures;
    sp->acl = b->acl;
    return 0;
}

static void build_free(struct setres_build *b)
{
    for (size_t i = 0; i < b->nhosts; i++)
        free(b->hosts[i].text);
    free(b->hosts);
    for (size_t i = 0; i < b->nfeatures; i++)
        free(b->features[i]);
    free(b->features);
    acl_destroy(b->acl);
}

/* The RES_EXP as typed, for messages. */
static void where_text(const struct setres_req *q, char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < q->nwords && len < n; i++)
        len += (size_t)snprintf(buf + len, n - len, "%s%s", i ? " " : "", q->words[i]);
}

/* Maui's message, with the engine's reason after it ("(2 of 4 found)",
 * "(no node matches 'x')"). */
static int placement_error(const char *where, const char *why, struct err *err)
{
    static const char pre[] = "cannot select requested tasks ";
    if (strncmp(why, pre, sizeof pre - 1) == 0)
        why += sizeof pre - 1;
    return err_set(err, "ERROR:    cannot select requested tasks for '%s' %s%s%s", where,
                   why[0] == '(' ? "" : "(", why, why[0] == '(' ? "" : ")");
}

static void setres_reply(const struct cmd_ctx *c, const struct cmd_args *a,
                         const struct resv_spec *spec, const struct resv *r, struct cmd_buf *out)
{
    if (a->json) {
        char *argv[] = {r->id, NULL};
        struct cmd_args show = {.name = "showres", .argc = 1, .argv = argv, .json = 1};
        cmd_showres(c, &show, out, NULL);
        return;
    }
    /* The processors too: with PROCS=ALL a task is a whole node, and "2
     * tasks" alone hid the 8 processors held (issue 28; Maui says tasks). */
    cmd_buf_printf(out, "reservation '%s' created on %zu node%s (%ld task%s, %lld processor%s)\n",
                   r->id, r->nnodes, r->nnodes == 1 ? "" : "s", r->tasks, r->tasks == 1 ? "" : "s",
                   r->procs, r->procs == 1 ? "" : "s");
    for (size_t k = 0; k < r->nnodes; k++) {
        long procs = (long)r->nodes[k].procs;
        long tasks = spec->res.procs > 0 ? procs / spec->res.procs : 1;
        cmd_buf_printf(out, "%s:%ld\n", sched_node(c->s, r->nodes[k].node)->name, tasks);
    }
}

/* ---- setres -m: change a reservation ---- */

/* -m's new window: -s moves the start (keeping the length unless -d or -e
 * say otherwise), -e or -d set the end; what is not given stays. */
static int modify_window(const struct cmd_ctx *c, const struct setres_req *q, const struct resv *r,
                         long *start, long *end, struct err *err)
{
    const char *s = q->opt['s'], *e = q->opt['e'], *d = q->opt['d'];
    long len;
    if (e && d)
        return err_usage(err, "setres: -d and -e both set the end; give one of them");
    *start = r->start; /* kept, even when it has begun */
    if (s && parse_time_exp(c, 's', s, start, err) < 0)
        return -1;
    if (s && *start < c->now)
        *start = c->now; /* a moved window begins now at the earliest */
    *end = r->end >= SCHED_NEVER ? SCHED_NEVER : *start + (r->end - r->start);
    if ((e && strcasecmp(e, "INFINITY") == 0) || (d && strcasecmp(d, "INFINITY") == 0))
        *end = SCHED_NEVER;
    else if (e && parse_time_exp(c, 'e', e, end, err) < 0)
        return -1;
    else if (d && parse_duration(d, &len) < 0)
        return err_set(err, "setres: bad duration '%s' for -d ([[[DD:]HH:]MM:]SS)", cmd_word(d));
    else if (d)
        *end = *start + len;
    if (*end <= c->now) /* as setres: a window over already is none */
        return err_set(err,
                       "ERROR:    cannot modify reservation '%s' (invalid timeframe: it "
                       "would end before now)",
                       cmd_word(r->id));
    return 0;
}

static int modify(const struct cmd_ctx *c, const struct cmd_args *a, const struct setres_req *q,
                  struct cmd_buf *out, struct err *err)
{
    static const char fixed[] = "nNrfpA";
    for (const char *o = fixed; *o; o++)
        if (q->opt[(unsigned char)*o])
            return err_set(err,
                           "setres -m: -%c cannot be changed (release the reservation and make "
                           "it again)",
                           *o);
    if (q->nwords)
        return err_usage(err, "setres -m: the nodes cannot be changed ('%s' is extra)",
                         cmd_word(q->words[0]));
    const char *id = q->opt['m'];
    const struct resv *r = sched_find_resv(c->s, id);
    if (!r)
        return err_set(err, "ERROR:    cannot locate reservation '%s'", cmd_word(id));
    if (r->kind == RESV_EXTERNAL)
        return err_set(err,
                       "ERROR:    cannot modify reservation '%s': the resource manager's "
                       "(change it there)",
                       cmd_word(id));
    if (r->kind != RESV_USER)
        return err_set(err,
                       "ERROR:    cannot modify reservation '%s': an instance of standing "
                       "reservation '%s' (change SRCFG[%s] instead)",
                       cmd_word(id), r->base, r->base);
    struct resv_change ch = {0};
    struct resv_spec flags = {0};
    struct acl *acl = NULL;
    int acl_given = 0;
    for (size_t i = 0; i < sizeof acl_opts / sizeof acl_opts[0]; i++)
        acl_given |= q->opt[(unsigned char)acl_opts[i].opt] != NULL;
    if (modify_window(c, q, r, &ch.start, &ch.end, err) < 0 ||
        (q->opt['x'] && parse_flags(q->opt['x'], &flags, err) < 0))
        return -1;
    if (flags.access == SRCFG_DEDICATED && r->access != SRCFG_DEDICATED)
        return err_set(err, "setres -m: DEDICATEDRESOURCE cannot be changed (release the "
                            "reservation and make it again)");
    if (acl_given && build_acl(q, acl = acl_create(), err) < 0) {
        acl_destroy(acl);
        return -1;
    }
    ch.acl = acl;
    ch.set_flags = q->opt['x'] != NULL;
    ch.flags = flags.flags;
    struct err e;
    int rc = sched_resv_modify(c->s, id, &ch, &e);
    acl_destroy(acl);
    if (rc < 0)
        return err_set(err, "ERROR:    cannot modify reservation '%s': %s", cmd_word(id), e.msg);
    if (a->json) {
        char *argv[] = {(char *)id, NULL};
        struct cmd_args show = {.name = "showres", .argc = 1, .argv = argv, .json = 1};
        cmd_showres(c, &show, out, NULL);
    } else {
        cmd_buf_printf(out, "reservation '%s' modified\n", id);
    }
    return 0;
}

int cmd_setres(const struct cmd_ctx *c, const struct cmd_args *a, struct cmd_buf *out,
               struct err *err)
{
    struct setres_req q;
    struct setres_build b = {0};
    int rc = req_parse(a, &q, err);
    if (rc == 0 && q.opt['m']) {
        rc = modify(c, a, &q, out, err);
        free(q.words);
        return rc;
    }
    if (rc == 0)
        rc = build(c, &q, &b, err);
    if (rc == 0) {
        struct err e;
        const struct resv *r = sched_resv_create(c->s, &b.spec, c->now, &e);
        char where[256];
        where_text(&q, where, sizeof where);
        if (r)
            setres_reply(c, a, &b.spec, r, out);
        else
            rc = placement_error(where, e.msg, err);
    }
    build_free(&b);
    free(q.words);
    return rc;
}

/* ---- releaseres ---- */

/* Appends to msg (at *len) why id cannot be released, with sep before it;
 * returns 0 when it can be: a reservation that setres could have made. */
static int release_refusal(const struct cmd_ctx *c, const char *id, const char *sep, char *msg,
                           size_t size, size_t *len)
{
    const struct resv *r = sched_find_resv(c->s, id);
    const char *w = cmd_word(id);
    if (r && r->kind != RESV_STANDING && r->kind != RESV_EXTERNAL)
        return 0;
    if (*len >= size)
        return 1;
    if (!r)
        *len +=
            (size_t)snprintf(msg + *len, size - *len, "%scannot locate reservation '%s'", sep, w);
    else if (r->kind == RESV_STANDING)
        *len += (size_t)snprintf(msg + *len, size - *len,
                                 "%scannot release '%s': an instance of a standing reservation "
                                 "(change its SRCFG)",
                                 sep, w);
    else
        *len += (size_t)snprintf(msg + *len, size - *len,
                                 "%scannot release '%s': the resource manager's (release it there)",
                                 sep, w);
    return 1;
}

/*
 * Every id can be released. Otherwise the error names every bad id with its
 * reason and says that none was released: releaseres is all or nothing, and
 * the good ids given beside a bad one must not look released (issue 30).
 */
static int release_check(const struct cmd_ctx *c, const struct cmd_args *a, struct err *err)
{
    if (a->argc == 0)
        return err_usage(err, "releaseres: missing reservation id (releaseres <id>...)");
    for (int i = 0; i < a->argc; i++) {
        const char *id = a->argv[i];
        if (id[0] == '-' && id[1] != '\0')
            return err_usage(err, "releaseres: unknown option '%s'", cmd_word(id));
    }
    char msg[ERR_MSG_MAX];
    size_t len = 0;
    int bad = 0;
    for (int i = 0; i < a->argc; i++)
        bad += release_refusal(c, a->argv[i], bad ? "; " : "", msg, sizeof msg, &len);
    if (!bad)
        return 0;
    if (a->argc == 1)
        return err_set(err, "ERROR:    %s", msg);
    return err_set(
        err, "ERROR:    %s (nothing released: releaseres releases all the ids given or none)", msg);
}

static int seen_before(const struct cmd_args *a, int i)
{
    for (int k = 0; k < i; k++)
        if (strcmp(a->argv[k], a->argv[i]) == 0)
            return 1;
    return 0;
}

int cmd_releaseres(const struct cmd_ctx *c, const struct cmd_args *a, struct cmd_buf *out,
                   struct err *err)
{
    if (release_check(c, a, err) < 0)
        return -1;
    json_t *list = a->json ? json_array() : NULL;
    for (int i = 0; i < a->argc; i++) {
        if (seen_before(a, i))
            continue;
        struct err e;
        if (sched_resv_release(c->s, a->argv[i], &e) < 0) {
            json_decref(list); /* checked above: only an engine fault gets here */
            return err_set(err, "releaseres: '%s': %s", cmd_word(a->argv[i]), e.msg);
        }
        if (list)
            json_array_append_new(list, cmd_jstr(a->argv[i]));
        else
            cmd_buf_printf(out, "released User reservation '%s'\n", a->argv[i]);
    }
    if (list)
        cmd_json_out(out, json_pack("{s:o}", "released", list));
    return 0;
}
