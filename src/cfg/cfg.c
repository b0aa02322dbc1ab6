/*
 * cfg — reading maui.cfg into stored, validated values.
 *
 * A load runs in two steps so that a bad file changes nothing: the parser
 * checks every line and records what it would do in a `struct load`
 * (parameter settings, object lines, warnings); only when the whole file is
 * clean does commit() apply that record, which cannot fail. Parameter values
 * live in an array parallel to the table; objects are found through a hash of
 * (kind, name) so that a 100,000-line NODECFG file stays linear.
 *
 * Around it: cfg_lex.c cuts text into lines and tokens, cfg_attrs.c knows
 * value syntax and object attributes, cfg_params.c is the parameter table.
 *
 * What it is not: no #INCLUDE, no absolute dates in times, no `+=`/`-=`
 * relative attributes (they read as unknown attributes).
 */
#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfg/cfg.h"
#include "cfg/cfg_tab.h"
#include "util/err.h"
#include "util/mem.h"

/* ------------------------------------------------------------------ types */

/* One value of a parameter: the text the accessors return and its number. */
struct slot {
    char *text;  /* normalised text; NULL = no value (unset, no default) */
    long long i; /* CFG_INT, CFG_BOOL, CFG_TIME */
    double d;    /* CFG_DOUBLE */
};

/* Everything stored for one parameter of the table. */
struct pval {
    struct slot cur; /* the plain value: the default until a file sets it */
    int set;         /* cur came from a file */
    char **keys;     /* indices set, in order of first appearance */
    struct slot *at; /* at[i] is the value of keys[i] */
    size_t n, cap;
};

/* An object and the capacity of its attribute array. */
struct objrec {
    struct cfg_obj obj;
    size_t cap;
};

/* Open-addressing hash entry: key -> index + 1 (0 = empty). */
struct hent {
    const char *key;
    const char *key2; /* objects: the name; parameters: NULL */
    size_t idx;
};

struct hash {
    struct hent *v;
    size_t cap, n; /* cap is a power of two */
};

struct cfg {
    const struct cfg_param *tab;
    size_t ntab;
    struct pval *vals; /* parallel to tab */
    struct hash params;
    struct objrec **objs;
    size_t nobjs, capobjs;
    struct hash objidx;
    char **warns;
    size_t nwarns, capwarns;
    char **files; /* file names that struct cfg_attr.file points to */
    size_t nfiles, capfiles;
};

/* What one file would change; applied by commit() only if it all parsed. */
struct pset {
    size_t param;
    char *index;
    struct slot val;
};

struct pline {
    char *kind, *name;
    struct cfg_attr *attrs;
    size_t nattrs;
};

struct load {
    const struct cfg *cfg;
    const char *name; /* file name for messages */
    char *file;       /* owned copy that attrs point to; moves to cfg on commit */
    int line;
    struct err *err;
    struct pset *sets;
    size_t nsets, capsets;
    struct pline *lines;
    size_t nlines, caplines;
    char **warns;
    size_t nwarns, capwarns;
};

/* ------------------------------------------------------------ small tools */

/* ------------------------------------------------------------------- hash */

static uint64_t fnv(uint64_t h, const char *s)
{
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return (h ^ 0xff) * 1099511628211ULL;
}

static uint64_t hkey(const char *a, const char *b)
{
    uint64_t h = fnv(14695981039346656037ULL, a);
    return b ? fnv(h, b) : h;
}

static int hent_is(const struct hent *e, const char *a, const char *b)
{
    return strcmp(e->key, a) == 0 && (!b || strcmp(e->key2, b) == 0);
}

/* Index stored for (a, b), or SIZE_MAX. */
static size_t hash_get(const struct hash *h, const char *a, const char *b)
{
    if (!h->cap)
        return SIZE_MAX;
    for (size_t i = hkey(a, b) & (h->cap - 1);; i = (i + 1) & (h->cap - 1)) {
        const struct hent *e = &h->v[i];
        if (!e->idx)
            return SIZE_MAX;
        if (hent_is(e, a, b))
            return e->idx - 1;
    }
}

static void hash_put_raw(struct hash *h, struct hent e)
{
    size_t i = hkey(e.key, e.key2) & (h->cap - 1);
    while (h->v[i].idx)
        i = (i + 1) & (h->cap - 1);
    h->v[i] = e;
}

/* Add (a, b) -> idx; the keys are borrowed and must outlive the hash. */
static void hash_put(struct hash *h, const char *a, const char *b, size_t idx)
{
    if ((h->n + 1) * 2 > h->cap) {
        struct hash old = *h;
        h->cap = old.cap ? old.cap * 2 : 64;
        h->v = xcalloc(h->cap, sizeof *h->v);
        for (size_t i = 0; i < old.cap; i++) {
            if (old.v[i].idx)
                hash_put_raw(h, old.v[i]);
        }
        free(old.v);
    }
    hash_put_raw(h, (struct hent){a, b, idx + 1});
    h->n++;
}

/* -------------------------------------------------------- parameter values */

static const char *type_expect(enum cfg_type t)
{
    switch (t) {
    case CFG_INT:
        return "expected an integer";
    case CFG_DOUBLE:
        return "expected a number";
    case CFG_BOOL:
        return "expected a boolean: TRUE/FALSE, ON/OFF, YES/NO or 1/0";
    case CFG_TIME:
        return "expected a time [[[DD:]HH:]MM:]SS";
    default:
        return "expected a value";
    }
}

/* "accepted: A, B, C" for an enum's error message. */
static void enum_expect(const struct cfg_param *p, char *buf, size_t size)
{
    size_t len = (size_t)snprintf(buf, size, "accepted:");
    for (int i = 0; p->choices[i] && len < size; i++)
        len += (size_t)snprintf(buf + len, size - len, "%s %s", i ? "," : "", p->choices[i]);
}

static int is_choice(const struct cfg_param *p, const char *s)
{
    for (int i = 0; p->choices[i]; i++) {
        if (strcmp(p->choices[i], s) == 0)
            return 1;
    }
    return 0;
}

/*
 * A single enum value: exact match, plus the boolean spellings some Maui
 * parameters take (BACKFILLPOLICY OFF = NONE, FSPOLICY ON = DEDICATEDPS) and
 * FSPOLICY's trailing '%'. *out is the text to store.
 */
static int enum_value(const struct cfg_param *p, const char *tok, char **out)
{
    char buf[64];
    size_t n = strlen(tok);
    int pct = (p->flags & CFG_TAB_PERCENT) && n > 1 && tok[n - 1] == '%';
    if (n >= sizeof buf)
        return -1;
    memcpy(buf, tok, n + 1);
    if (pct)
        buf[n - 1] = '\0';
    const char *v = buf;
    int b = 0;
    if (!is_choice(p, v) && (p->flags & CFG_TAB_BOOLENUM) && cfg_tab_scan_bool(v, &b) == 0)
        v = b ? p->choices[0] : "NONE";
    if (!is_choice(p, v))
        return -1;
    *out = xprintf("%s%s", v, pct ? "%" : "");
    return 0;
}

/* Each element of a CFG_MULTI enum list must be a choice. */
static int multi_value(const struct cfg_param *p, const char *text)
{
    char *copy = xstrdup(text), *save = NULL;
    int rc = 0;
    for (char *t = strtok_r(copy, " ,:|", &save); t && rc == 0; t = strtok_r(NULL, " ,:|", &save))
        rc = is_choice(p, t) ? 0 : -1;
    free(copy);
    return rc;
}

static int scan_number(const struct cfg_param *p, const char *s, struct slot *out)
{
    long t = 0;
    switch (p->type) {
    case CFG_INT:
        return cfg_tab_scan_int(s, &out->i);
    case CFG_DOUBLE:
        return cfg_tab_scan_double(s, &out->d);
    case CFG_TIME:
        if (cfg_tab_scan_time(s, &t) < 0)
            return -1;
        out->i = t;
        return 0;
    default:
        return -1;
    }
}

static int in_range(const struct cfg_param *p, const struct slot *v)
{
    double x = p->type == CFG_DOUBLE ? v->d : (double)v->i;
    return x >= p->min && x <= p->max;
}

enum { V_OK = 0, V_INVALID = -1, V_RANGE = -2 };

/* Check a scalar (single-token) value of p. */
static int scalar_value(const struct cfg_param *p, const char *s, struct slot *out)
{
    int b = 0;
    switch (p->type) {
    case CFG_BOOL:
        if (cfg_tab_scan_bool(s, &b) < 0)
            return V_INVALID;
        out->i = b;
        out->text = xstrdup(b ? "TRUE" : "FALSE");
        return V_OK;
    case CFG_ENUM:
        return enum_value(p, s, &out->text) < 0 ? V_INVALID : V_OK;
    default:
        if (scan_number(p, s, out) < 0)
            return V_INVALID;
        if (!in_range(p, out))
            return V_RANGE;
        out->text = xstrdup(s);
        return V_OK;
    }
}

/*
 * Check the tokens of a value for p and fill *out (text owned by out).
 * Returns V_OK, V_INVALID or V_RANGE; `text` is the tokens joined by spaces.
 */
static int param_value(const struct cfg_param *p, const struct cfg_toks *t, const char *text,
                       struct slot *out)
{
    long long s, h;
    *out = (struct slot){0};
    if (p->type == CFG_LIST || p->type == CFG_STRING || (p->flags & CFG_MULTI)) {
        if ((p->flags & CFG_MULTI) && multi_value(p, text) < 0)
            return V_INVALID;
        if ((p->flags & (CFG_TAB_LIMIT | CFG_TAB_TLIMIT)) &&
            (t->n != 1 || cfg_tab_scan_limit(text, !!(p->flags & CFG_TAB_TLIMIT), &s, &h) < 0))
            return V_INVALID;
        double share = 0;
        int pct = 0;
        if ((p->flags & CFG_TAB_SHARE) && (t->n != 1 || cfg_tab_scan_share(text, &share, &pct) < 0))
            return V_INVALID;
        out->text = xstrdup(text);
        return V_OK;
    }
    if (t->n != 1)
        return V_INVALID;
    return scalar_value(p, t->v[0], out);
}

static void slot_free(struct slot *s)
{
    free(s->text);
    s->text = NULL;
}

/* --------------------------------------------------------------- parser */

/* The `NAME[index]` that starts a line. */
struct head {
    char *name;
    char *index; /* NULL without brackets */
};

static int name_char(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '.' || c == '-';
}

static int load_error(struct load *ld, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int load_error(struct load *ld, const char *fmt, ...)
{
    char what[ERR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return err_set(ld->err, "%s:%d: %s", ld->name, ld->line, what);
}

static void load_warn(struct load *ld, char *msg)
{
    ld->warns = xgrow(ld->warns, &ld->capwarns, ld->nwarns + 1, sizeof *ld->warns);
    ld->warns[ld->nwarns++] = msg;
}

/* Read NAME[index] at *s; the line is malformed unless a blank, '=' or the
 * end follows. */
static int parse_head(struct load *ld, const char **s, struct head *h)
{
    const char *p = *s, *start = p;
    *h = (struct head){0};
    if (!isalpha((unsigned char)*p))
        return load_error(ld, "malformed line '%.60s'", start);
    while (name_char(*p))
        p++;
    const char *end = p, *ix = NULL;
    if (*p == '[') {
        ix = ++p;
        while (*p && *p != ']')
            p++;
        if (!*p++)
            return load_error(ld, "malformed line '%.60s' (no closing ']')", start);
    }
    if (*p && *p != ' ' && *p != '=')
        return load_error(ld, "malformed line '%.60s'", start);
    h->name = xstrndup(start, (size_t)(end - start));
    h->index = ix ? xstrndup(ix, (size_t)(p - 1 - ix)) : NULL;
    *s = p;
    return 0;
}

static void num_text(const struct cfg_param *p, double x, char *buf, size_t size)
{
    if (p->type == CFG_DOUBLE)
        snprintf(buf, size, "%g", x);
    else
        snprintf(buf, size, "%.0f", x);
}

/* "0..24", "at least 1" (times run up to INFINITY), "at most 5". */
static void range_text(const struct cfg_param *p, char *buf, size_t size)
{
    char lo[64], hi[64];
    int top = p->max < CFG_TAB_BIG && !(p->type == CFG_TIME && p->max >= CFG_TIME_INFINITY);
    int bottom = p->min > -CFG_TAB_BIG;
    num_text(p, p->min, lo, sizeof lo);
    num_text(p, p->max, hi, sizeof hi);
    if (top && bottom)
        snprintf(buf, size, "%s..%s", lo, hi);
    else if (bottom)
        snprintf(buf, size, "at least %s", lo);
    else
        snprintf(buf, size, "at most %s", hi);
}

static int value_error(struct load *ld, const struct cfg_param *p, const char *as, int rc,
                       const char *text)
{
    char why[512];
    if (p->type == CFG_ENUM) {
        enum_expect(p, why, sizeof why);
    } else if (p->flags & (CFG_TAB_LIMIT | CFG_TAB_TLIMIT)) {
        snprintf(why, sizeof why, "expected a limit N or SOFT,HARD");
    } else if (p->flags & CFG_TAB_SHARE) {
        snprintf(why, sizeof why, "expected a number N >= 0 or a share N%% from 0%% to 100%%");
    } else if (rc == V_RANGE) {
        range_text(p, why, sizeof why);
        return load_error(ld, "value %s for %s out of range (%s)", text, as, why);
    } else {
        snprintf(why, sizeof why, "%s", type_expect(p->type));
    }
    return load_error(ld, "invalid value '%s' for %s (%s)", text, as, why);
}

/* A value the table accepts but that does not do what it seems to: a
 * warning naming the file and line, the setting still applies. */
static void param_advice(struct load *ld, const struct cfg_param *p, const char *as,
                         const struct slot *v)
{
    if (strcmp(p->name, "FSDEPTH") == 0 && v->i == 0)
        load_warn(ld, xprintf("%s:%d: %s 0 counts no fairshare window: moku counts the current "
                              "one (FSDEPTH 1)",
                              ld->name, ld->line, as));
}

/* FSTARGET values that cannot mean what they say (issue 26): a share over
 * 100 percent no credential reaches (a target or floor always raises
 * priority, a ceiling never lowers it, a relative cap never blocks), and a
 * cap of 0 blocks every job of the credential (0%: once anything has run). */
static char *obj_label(const struct pline *pl);

static void fstarget_advice(struct load *ld, const struct pline *pl, const char *value)
{
    size_t n = strlen(value);
    char mode = n && strchr("+-^%", value[n - 1]) ? value[n - 1] : 0;
    double x = strtod(value, NULL);
    char *label = obj_label(pl);
    if (mode == '^' && x == 0)
        load_warn(ld, xprintf("%s:%d: FSTARGET=%s of %s: a cap of 0 blocks every job of it",
                              ld->name, ld->line, value, label));
    else if (mode == '%' && x == 0)
        load_warn(ld, xprintf("%s:%d: FSTARGET=%s of %s: a cap of 0 %% blocks every job of it "
                              "once anything has run",
                              ld->name, ld->line, value, label));
    else if (mode != '^' && x > 100)
        load_warn(ld, xprintf("%s:%d: FSTARGET=%s of %s: over 100 percent, a share nothing "
                              "reaches",
                              ld->name, ld->line, value, label));
    free(label);
}

/* A parameter line after its head: check and record it. */
static int parse_param(struct load *ld, struct head *h, const char *s)
{
    size_t idx = hash_get(&ld->cfg->params, h->name, NULL);
    if (idx == SIZE_MAX) {
        load_warn(ld, xprintf("%s:%d: unknown parameter '%s'", ld->name, ld->line, h->name));
        return 0;
    }
    const struct cfg_param *p = &ld->cfg->tab[idx];
    if (h->index && !(p->flags & CFG_INDEXED))
        return load_error(ld, "%s takes no index", h->name);
    if (h->index && !*h->index)
        return load_error(ld, "empty index for %s", h->name);
    while (*s == ' ')
        s++;
    if (*s == '=') /* PARAM=VALUE: the first '=' reads as a blank */
        s++;
    struct cfg_toks t = {0};
    if (cfg_lex_split(s, &t) < 0)
        return cfg_lex_toks_free(&t), load_error(ld, "unterminated quote in value of %s", h->name);
    if (t.n == 0)
        return cfg_lex_toks_free(&t), load_error(ld, "missing value for %s", h->name);
    char *text = cfg_lex_join(&t);
    struct slot v;
    int rc = param_value(p, &t, text, &v);
    if (rc != V_OK)
        value_error(ld, p, h->name, rc, text);
    free(text);
    cfg_lex_toks_free(&t);
    if (rc != V_OK)
        return -1;
    param_advice(ld, p, h->name, &v);
    ld->sets = xgrow(ld->sets, &ld->capsets, ld->nsets + 1, sizeof *ld->sets);
    ld->sets[ld->nsets++] = (struct pset){idx, h->index, v};
    h->index = NULL; /* now owned by the set */
    return 0;
}

/* "NODECFG[n1]" or "SYSCFG", for messages. */
static char *obj_label(const struct pline *pl)
{
    return *pl->name ? xprintf("%s[%s]", pl->kind, pl->name) : xstrdup(pl->kind);
}

/* Split ATTR[index]=VALUE; -1 if tok is not of that shape. */
static int split_attr(const char *tok, struct cfg_attr *a)
{
    const char *p = tok;
    if (!isalpha((unsigned char)*p))
        return -1;
    while (name_char(*p))
        p++;
    const char *end = p, *ix = NULL;
    if (*p == '[') {
        ix = ++p;
        while (*p && *p != ']')
            p++;
        if (*p++ != ']')
            return -1;
    }
    if (*p != '=')
        return -1;
    a->name = xstrndup(tok, (size_t)(end - tok));
    a->index = ix ? xstrndup(ix, (size_t)(p - 1 - ix)) : NULL;
    a->value = xstrdup(p + 1);
    return 0;
}

static void attr_free(struct cfg_attr *a)
{
    free(a->name);
    free(a->index);
    free(a->value);
}

/*
 * Check one attribute of an object line. 1 = keep it (its name made
 * canonical), 0 = unknown (warned, drop it), -1 = error.
 */
static int check_attr(struct load *ld, const struct pline *pl, struct cfg_attr *a)
{
    int open;
    const struct cfg_attr_def *d = cfg_tab_attr(pl->kind, a->name, &open);
    if (open)
        return 1;
    if (!d) {
        load_warn(ld, xprintf("%s:%d: unknown attribute '%s' for %s", ld->name, ld->line, a->name,
                              pl->kind));
        return 0;
    }
    char expect[256];
    if (cfg_tab_check_attr(d, a->value, expect, sizeof expect) < 0) {
        char *label = obj_label(pl);
        load_error(ld, "invalid value '%s' for attribute %s of %s (expected %s)", a->value, a->name,
                   label, expect);
        free(label);
        return -1;
    }
    if (strcmp(a->name, d->name) != 0) {
        free(a->name);
        a->name = xstrdup(d->name);
    }
    if (strcmp(a->name, "FSTARGET") == 0)
        fstarget_advice(ld, pl, a->value);
    return 1;
}

static void pline_free(struct pline *pl)
{
    for (size_t i = 0; i < pl->nattrs; i++)
        attr_free(&pl->attrs[i]);
    free(pl->attrs);
    free(pl->kind);
    free(pl->name);
}

/* Whether attribute a of the line's kind takes a list (CFG_A_LIST), whose
 * items may then follow it after blanks. */
static int takes_list(const struct pline *pl, const struct cfg_attr *a)
{
    int open;
    const struct cfg_attr_def *d = cfg_tab_attr(pl->kind, a->name, &open);
    return d && d->type == CFG_A_LIST;
}

/*
 * Whether word w continues a list value: it holds no '=', or its only '=' is
 * its last character and what comes before is no attribute of the line's
 * kind — the Guide's neutral affinity, `QOSLIST[0] normal= high debug=
 * low-` (`PERIOD=` is still an attribute, empty).
 */
static int list_item(const struct pline *pl, const char *w)
{
    const char *eq = strchr(w, '=');
    if (!eq)
        return 1;
    if (eq == w || eq[1])
        return 0;
    char *name = xstrndup(w, (size_t)(eq - w));
    int open;
    int attr = cfg_tab_attr(pl->kind, name, &open) != NULL || open;
    free(name);
    return !attr;
}

/*
 * The Admin Guide writes list values with blanks, `SRCFG[special]
 * QOSLIST=high low special-`: the words after a list attribute that are
 * list items (list_item) continue its value, joined by one blank (the
 * consumers of list values split at blanks too). *i moves to the last word
 * taken. A word ATTR=VALUE is the next attribute, so `QOSLIST=high
 * PERIOD=DAY` still reads as two.
 */
static void take_list_items(const struct pline *pl, struct cfg_attr *a, const struct cfg_toks *t,
                            size_t *i)
{
    if (*i + 1 >= t->n || !list_item(pl, t->v[*i + 1]))
        return;
    struct cfg_sbuf b = {0};
    cfg_lex_putn(&b, a->value, strlen(a->value));
    while (*i + 1 < t->n && list_item(pl, t->v[*i + 1])) {
        const char *w = t->v[++*i];
        if (b.len)
            cfg_lex_putc(&b, ' ');
        cfg_lex_putn(&b, w, strlen(w));
    }
    free(a->value);
    a->value = b.s;
}

/* The error for word i of an object line that is not ATTR=VALUE. A word
 * without '=' after an attribute that takes no list is a stray value
 * (`NODECFG[n1] PROCS=2 4`): name the attribute it follows. */
static int bad_attr(struct load *ld, const struct pline *pl, const struct cfg_toks *t, size_t i)
{
    char *label = obj_label(pl);
    const char *w = t->v[i], *prev = i ? t->v[i - 1] : NULL;
    if (prev && !strchr(w, '='))
        load_error(ld, "malformed attribute '%s' for %s (expected ATTR=VALUE; %.*s is not a list)",
                   w, label, (int)strcspn(prev, "[="), prev);
    else
        load_error(ld, "malformed attribute '%s' for %s (expected ATTR=VALUE)", w, label);
    free(label);
    return -1;
}

static int parse_attrs(struct load *ld, struct pline *pl, const struct cfg_toks *t)
{
    pl->attrs = xcalloc(t->n ? t->n : 1, sizeof *pl->attrs);
    for (size_t i = 0; i < t->n; i++) {
        struct cfg_attr a = {0};
        if (split_attr(t->v[i], &a) < 0)
            return bad_attr(ld, pl, t, i);
        if (takes_list(pl, &a))
            take_list_items(pl, &a, t, &i);
        int rc = check_attr(ld, pl, &a);
        if (rc <= 0) {
            attr_free(&a);
            if (rc < 0)
                return -1;
            continue;
        }
        a.file = ld->file;
        a.line = ld->line;
        pl->attrs[pl->nattrs++] = a;
    }
    return 0;
}

/* An object line `KIND[name] ATTR=VAL ...` after its head; kind is the
 * canonical name of h->name (ACCOUNTCFG for ACCTCFG), under which the object
 * is stored so that every lookup finds it whichever spelling a line used. */
static int parse_object(struct load *ld, struct head *h, const char *kind, const char *s)
{
    int sys = strcmp(kind, "SYSCFG") == 0;
    if (!sys && (!h->index || !*h->index))
        return load_error(ld, "missing name for %s (expected %s[<name>] ATTR=VALUE ...)", h->name,
                          h->name);
    struct pline pl = {xstrdup(kind), sys ? xstrdup("") : h->index, NULL, 0};
    if (!sys)
        h->index = NULL; /* now owned by pl */
    struct cfg_toks t = {0};
    int rc = cfg_lex_split(s, &t);
    if (rc < 0)
        load_error(ld, "unterminated quote in %s line", pl.kind);
    else
        rc = parse_attrs(ld, &pl, &t);
    cfg_lex_toks_free(&t);
    if (rc < 0) {
        pline_free(&pl);
        return -1;
    }
    ld->lines = xgrow(ld->lines, &ld->caplines, ld->nlines + 1, sizeof *ld->lines);
    ld->lines[ld->nlines++] = pl;
    return 0;
}

static int parse_line(struct load *ld, const char *s)
{
    while (*s == ' ')
        s++;
    if (!*s)
        return 0;
    struct head h;
    if (parse_head(ld, &s, &h) < 0)
        return -1;
    const char *kind = cfg_tab_kind(h.name);
    int rc = kind ? parse_object(ld, &h, kind, s) : parse_param(ld, &h, s);
    free(h.name);
    free(h.index);
    return rc;
}

static void load_free(struct load *ld)
{
    for (size_t i = 0; i < ld->nsets; i++) {
        free(ld->sets[i].index);
        slot_free(&ld->sets[i].val);
    }
    free(ld->sets);
    for (size_t i = 0; i < ld->nlines; i++)
        pline_free(&ld->lines[i]);
    free(ld->lines);
    for (size_t i = 0; i < ld->nwarns; i++)
        free(ld->warns[i]);
    free(ld->warns);
    free(ld->file);
}

/* --------------------------------------------------------------- commit */

/* Whether index names the parameter itself: none, or "0" for a parameter
 * whose index is a partition or a group number (Maui's PARAM[0] is PARAM:
 * RESERVATIONDEPTH[0] 1 and RESERVATIONDEPTH 4 are one setting, the later
 * line winning). Legacy parameters are indexed by object names, where "0"
 * is a name like any other (SRTASKCOUNT[0]). */
static int plain_index(const struct cfg_param *p, const char *index)
{
    return !index || (!(p->flags & CFG_LEGACY) && strcmp(index, "0") == 0);
}

static void set_value(const struct cfg_param *p, struct pval *v, struct pset *ps)
{
    if (plain_index(p, ps->index)) {
        free(ps->index);
        ps->index = NULL;
        slot_free(&v->cur);
        v->cur = ps->val;
        v->set = 1;
        return;
    }
    for (size_t i = 0; i < v->n; i++) {
        if (strcmp(v->keys[i], ps->index) == 0) {
            slot_free(&v->at[i]);
            v->at[i] = ps->val;
            free(ps->index);
            return;
        }
    }
    size_t cap = v->cap;
    v->keys = xgrow(v->keys, &cap, v->n + 1, sizeof *v->keys);
    v->at = xgrow(v->at, &v->cap, v->n + 1, sizeof *v->at);
    v->keys[v->n] = ps->index;
    v->at[v->n++] = ps->val;
}

/* The object (kind, name), created if new; takes or frees kind and name. */
static struct objrec *obj_get(struct cfg *cfg, char *kind, char *name)
{
    size_t i = hash_get(&cfg->objidx, kind, name);
    if (i != SIZE_MAX) {
        free(kind);
        free(name);
        return cfg->objs[i];
    }
    struct objrec *o = xcalloc(1, sizeof *o);
    o->obj.kind = kind;
    o->obj.name = name;
    cfg->objs = xgrow(cfg->objs, &cfg->capobjs, cfg->nobjs + 1, sizeof *cfg->objs);
    cfg->objs[cfg->nobjs] = o;
    hash_put(&cfg->objidx, kind, name, cfg->nobjs++);
    return o;
}

static void obj_append(struct cfg *cfg, struct pline *pl)
{
    struct objrec *o = obj_get(cfg, pl->kind, pl->name);
    if (pl->nattrs) {
        o->obj.attrs =
            xgrow(o->obj.attrs, &o->cap, o->obj.nattrs + pl->nattrs, sizeof *o->obj.attrs);
        memcpy(o->obj.attrs + o->obj.nattrs, pl->attrs, pl->nattrs * sizeof *pl->attrs);
        o->obj.nattrs += pl->nattrs;
    }
    free(pl->attrs);
}

/* Apply a parsed file: cannot fail; empties ld. */
static void commit(struct cfg *cfg, struct load *ld)
{
    for (size_t i = 0; i < ld->nsets; i++)
        set_value(&cfg->tab[ld->sets[i].param], &cfg->vals[ld->sets[i].param], &ld->sets[i]);
    ld->nsets = 0;
    for (size_t i = 0; i < ld->nlines; i++)
        obj_append(cfg, &ld->lines[i]);
    ld->nlines = 0;
    for (size_t i = 0; i < ld->nwarns; i++) {
        cfg->warns = xgrow(cfg->warns, &cfg->capwarns, cfg->nwarns + 1, sizeof *cfg->warns);
        cfg->warns[cfg->nwarns++] = ld->warns[i];
    }
    ld->nwarns = 0;
    cfg->files = xgrow(cfg->files, &cfg->capfiles, cfg->nfiles + 1, sizeof *cfg->files);
    cfg->files[cfg->nfiles++] = ld->file;
    ld->file = NULL;
}

/* ------------------------------------------------------------- lifecycle */

/* Parse a table default; a default that does not parse is a table bug. */
static void set_default(const struct cfg_param *p, struct slot *out)
{
    *out = (struct slot){0};
    if (!p->def)
        return;
    struct cfg_toks t = {0};
    int rc = cfg_lex_split(p->def, &t);
    char *text = cfg_lex_join(&t);
    if (rc == 0)
        rc = param_value(p, &t, text, out);
    assert(rc == V_OK && "bad default in the cfg table");
    free(text);
    cfg_lex_toks_free(&t);
}

struct cfg *cfg_create(void)
{
    struct cfg *cfg = xcalloc(1, sizeof *cfg);
    cfg->tab = cfg_params(&cfg->ntab);
    cfg->vals = xcalloc(cfg->ntab, sizeof *cfg->vals);
    for (size_t i = 0; i < cfg->ntab; i++) {
        const struct cfg_param *p = &cfg->tab[i];
        set_default(p, &cfg->vals[i].cur);
        assert(hash_get(&cfg->params, p->name, NULL) == SIZE_MAX && "duplicate parameter");
        hash_put(&cfg->params, p->name, NULL, i);
        if (p->alias)
            hash_put(&cfg->params, p->alias, NULL, i);
    }
    size_t nx;
    const struct cfg_tab_alias *x = cfg_tab_aliases(&nx);
    for (size_t i = 0; i < nx; i++) {
        size_t target = hash_get(&cfg->params, x[i].target, NULL);
        assert(target != SIZE_MAX);
        hash_put(&cfg->params, x[i].name, NULL, target);
    }
    return cfg;
}

static void pval_free(struct pval *v)
{
    slot_free(&v->cur);
    for (size_t i = 0; i < v->n; i++) {
        free(v->keys[i]);
        slot_free(&v->at[i]);
    }
    free(v->keys);
    free(v->at);
}

static void objrec_free(struct objrec *o)
{
    for (size_t i = 0; i < o->obj.nattrs; i++)
        attr_free(&o->obj.attrs[i]);
    free(o->obj.attrs);
    free(o->obj.kind);
    free(o->obj.name);
    free(o);
}

void cfg_destroy(struct cfg *cfg)
{
    if (!cfg)
        return;
    for (size_t i = 0; i < cfg->ntab; i++)
        pval_free(&cfg->vals[i]);
    free(cfg->vals);
    free(cfg->params.v);
    for (size_t i = 0; i < cfg->nobjs; i++)
        objrec_free(cfg->objs[i]);
    free(cfg->objs);
    free(cfg->objidx.v);
    for (size_t i = 0; i < cfg->nwarns; i++)
        free(cfg->warns[i]);
    free(cfg->warns);
    for (size_t i = 0; i < cfg->nfiles; i++)
        free(cfg->files[i]);
    free(cfg->files);
    free(cfg);
}

/* ------------------------------------------------------------- loading */

int cfg_load_string(struct cfg *cfg, const char *text, const char *name, struct err *err)
{
    struct load ld = {.cfg = cfg, .name = name ? name : "(string)", .err = err};
    ld.file = xstrdup(ld.name);
    struct cfg_sbuf line = {0};
    const char *pos = text;
    int rc = 0, lineno = 0;
    for (;;) {
        ld.line = lineno + 1; /* a joined line reports where it starts */
        if (!cfg_lex_line(&pos, &lineno, &line) || (rc = parse_line(&ld, line.s)) < 0)
            break;
    }
    free(line.s);
    if (rc == 0)
        commit(cfg, &ld);
    load_free(&ld);
    return rc;
}

int cfg_load_file(struct cfg *cfg, const char *path, struct err *err)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return err_set(err, "%s: cannot open: %s", path, strerror(errno));
    size_t len;
    char *text = cfg_lex_read(f, &len);
    int bad = ferror(f);
    int saved = errno;
    fclose(f);
    if (bad) {
        free(text);
        return err_set(err, "%s: cannot read: %s", path, strerror(saved));
    }
    int rc = cfg_load_string(cfg, text, path, err);
    free(text);
    return rc;
}

size_t cfg_nwarnings(const struct cfg *cfg)
{
    return cfg->nwarns;
}

const char *cfg_warning(const struct cfg *cfg, size_t i)
{
    return i < cfg->nwarns ? cfg->warns[i] : NULL;
}

/* ------------------------------------------------------------- accessors */

static const struct pval *pval_of(const struct cfg *cfg, const char *name,
                                  const struct cfg_param **p)
{
    size_t i = hash_get(&cfg->params, name, NULL);
    assert(i != SIZE_MAX && "unknown cfg parameter");
    *p = &cfg->tab[i];
    return &cfg->vals[i];
}

/* The slot at index, else the plain value (which holds the default). */
static const struct slot *slot_of(const struct cfg_param *p, const struct pval *v,
                                  const char *index)
{
    if (!plain_index(p, index)) {
        for (size_t i = 0; i < v->n; i++) {
            if (strcmp(v->keys[i], index) == 0)
                return &v->at[i];
        }
    }
    return &v->cur;
}

static const struct slot *typed(const struct cfg *cfg, const char *name, const char *index,
                                enum cfg_type want)
{
    const struct cfg_param *p;
    const struct pval *v = pval_of(cfg, name, &p);
    assert(p->type == want && "cfg accessor of the wrong type");
    (void)want;
    return slot_of(p, v, index);
}

long long cfg_int(const struct cfg *cfg, const char *name, const char *index)
{
    return typed(cfg, name, index, CFG_INT)->i;
}

double cfg_double(const struct cfg *cfg, const char *name, const char *index)
{
    return typed(cfg, name, index, CFG_DOUBLE)->d;
}

int cfg_bool(const struct cfg *cfg, const char *name, const char *index)
{
    return (int)typed(cfg, name, index, CFG_BOOL)->i;
}

long cfg_time(const struct cfg *cfg, const char *name, const char *index)
{
    return (long)typed(cfg, name, index, CFG_TIME)->i;
}

/* Any type: the text as stored (the numbers' text as given). */
const char *cfg_str(const struct cfg *cfg, const char *name, const char *index)
{
    const struct cfg_param *p;
    const struct pval *v = pval_of(cfg, name, &p);
    return slot_of(p, v, index)->text;
}

long long cfg_share(const struct cfg *cfg, const char *name, long long whole)
{
    const struct cfg_param *p;
    const struct pval *v = pval_of(cfg, name, &p);
    assert(p->flags & CFG_TAB_SHARE);
    const char *text = slot_of(p, v, NULL)->text;
    double x = 0;
    int pct = 0;
    if (!text || cfg_tab_scan_share(text, &x, &pct) < 0)
        return 0; /* checked when loaded: an unset one without a default */
    return pct ? (long long)((double)whole * x / 100.0) : (long long)x;
}

int cfg_is_set(const struct cfg *cfg, const char *name, const char *index)
{
    const struct cfg_param *p;
    const struct pval *v = pval_of(cfg, name, &p);
    if (plain_index(p, index))
        return v->set;
    return slot_of(p, v, index) != &v->cur;
}

size_t cfg_indices(const struct cfg *cfg, const char *name, const char ***out)
{
    const struct cfg_param *p;
    const struct pval *v = pval_of(cfg, name, &p);
    *out = (const char **)v->keys;
    return v->n;
}

size_t cfg_nobjs(const struct cfg *cfg)
{
    return cfg->nobjs;
}

const struct cfg_obj *cfg_obj_at(const struct cfg *cfg, size_t i)
{
    return i < cfg->nobjs ? &cfg->objs[i]->obj : NULL;
}

const struct cfg_obj *cfg_obj_find(const struct cfg *cfg, const char *kind, const char *name)
{
    const char *canonical = cfg_tab_kind(kind); /* ACCTCFG is stored as ACCOUNTCFG */
    if (canonical)
        kind = canonical;
    if (strcmp(kind, "SYSCFG") == 0)
        name = ""; /* SYSCFG has one object, whatever name a line gave */
    size_t i = hash_get(&cfg->objidx, kind, name ? name : "");
    return i == SIZE_MAX ? NULL : &cfg->objs[i]->obj;
}

/* Attributes are stored under their canonical spelling (MEMORY for MEM=),
 * so a lookup by any spelling maps to it first. */
const char *cfg_obj_get(const struct cfg_obj *obj, const char *attr, const char *index)
{
    int open;
    const struct cfg_attr_def *d = cfg_tab_attr(obj->kind, attr, &open);
    if (d)
        attr = d->name;
    for (size_t i = obj->nattrs; i-- > 0;) {
        const struct cfg_attr *a = &obj->attrs[i];
        if (strcmp(a->name, attr) != 0)
            continue;
        if (index ? a->index && strcmp(a->index, index) == 0 : !a->index)
            return a->value;
    }
    return NULL;
}

/* ------------------------------------------------------------- showconfig */

static void show_param(struct cfg_sbuf *b, const struct cfg_param *p, const struct pval *v)
{
    cfg_lex_printf(b, "%-30s  %s\n", p->name, v->cur.text ? v->cur.text : "[NONE]");
    for (size_t i = 0; i < v->n; i++) {
        char *key = xprintf("%s[%s]", p->name, v->keys[i]);
        cfg_lex_printf(b, "%-30s  %s\n", key, v->at[i].text);
        free(key);
    }
}

/* An attribute value as it must be written to read back the same. */
static void show_value(struct cfg_sbuf *b, const char *v)
{
    if (*v && !strpbrk(v, " #'\"")) {
        cfg_lex_putn(b, v, strlen(v));
        return;
    }
    char q = strchr(v, '\'') ? '"' : '\'';
    cfg_lex_printf(b, "%c%s%c", q, v, q);
}

static void show_obj(struct cfg_sbuf *b, const struct cfg_obj *o)
{
    if (*o->name)
        cfg_lex_printf(b, "%s[%s]", o->kind, o->name);
    else
        cfg_lex_printf(b, "%s", o->kind);
    for (size_t i = 0; i < o->nattrs; i++) {
        const struct cfg_attr *a = &o->attrs[i];
        cfg_lex_printf(b, " %s", a->name);
        if (a->index)
            cfg_lex_printf(b, "[%s]", a->index);
        cfg_lex_putc(b, '=');
        show_value(b, a->value);
    }
    cfg_lex_putc(b, '\n');
}

char *cfg_show(const struct cfg *cfg)
{
    struct cfg_sbuf b = {0};
    cfg_lex_putn(&b, "", 0);
    for (size_t i = 0; i < cfg->ntab; i++)
        show_param(&b, &cfg->tab[i], &cfg->vals[i]);
    for (size_t i = 0; i < cfg->nobjs; i++)
        show_obj(&b, &cfg->objs[i]->obj);
    return b.s;
}
