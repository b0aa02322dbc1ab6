/*
 * acl — reservation access control lists; see acl.h.
 *
 * Sources for the semantics (Maui Admin Guide 7.1.5 "Managing Reservations",
 * mrsvctl/diagnose -r reference pages; digest §6.3):
 *  - Access lists of one reservation are OR-ed: "jobs submitted by either
 *    user helpdesk or any member of the groups operations or sysadmin can
 *    use the reserved resources" (Example 3).
 *  - Required lists (`*`, Maui 3.2.6+): "a job is only allowed to utilize a
 *    reservation if it meets all required ACL's and at least one
 *    non-required ACL (if specified)" (Example 4). The guide calls one
 *    attribute's list an "ACL", so moku reads "meets a required ACL" as
 *    "matches one of the required entries of that type": GROUPLIST=a*,b*
 *    means "group a or b". Maui 3.3.1 (digest §6.3) demands each required
 *    entry on its own, which makes such a list unusable by any job; the two
 *    readings agree whenever a type has one required entry, as in every
 *    documented example.
 *  - NOT (`!`): "if an object matches a NOT entry, the associated job is
 *    excluded from the reservation even if it meets other ACL requirements";
 *    an ACL made only of NOT entries is "satisfied by any object not
 *    explicitly listed". moku follows the document, Example 4 included: a
 *    list of only NOT entries (ACCOUNTLIST=!projectX) is met by every
 *    account it does not list, as an ordinary entry would be, so a job with
 *    account projectZ gets in even when the QOS list does not match. Maui
 *    3.3.1's code (digest §6.3) lets NOT entries only exclude, never grant
 *    when the ACL has ordinary entries (docs/reservations.md).
 *  - Affinity "is granted on a per access object basis ... and always
 *    defaults to positive"; `-` negative, `=` neutral. The guide does not
 *    say which wins when several entries match; moku takes the best of the
 *    matching ordinary entries (the job would get in through that one) and
 *    lets a required entry lower it (every required entry is needed), so
 *    QOSLIST=special- with TIMELIMIT=1:00:00* gives QOS special negative
 *    affinity, as Example 4 intends.
 *  - Empty ACL: "A default reservation, with no ACL, is termed a SYSTEM
 *    reservation. It blocks access to all jobs".
 *  - Stacking: "access is only granted to the logical AND of access lists
 *    across different standing reservations" (Example 3).
 * Modifiers `^` (exclusive) and `&` (Moab "must run here") are refused
 * rather than ignored, and so are conflicting marks (Moab keeps the last one
 * parsed): a config that says something moku would not do fails loudly.
 */
#include "policy/acl.h"

#include <assert.h>
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cfg/cfg.h"
#include "util/mem.h"
#include "util/sbuf.h"

struct acl {
    struct acl_entry *v; /* owned, names owned */
    size_t n, cap;
};

/* A growing batch of parsed entries, committed only when a call succeeds. */
struct batch {
    struct acl_entry *v;
    size_t n, cap;
};

static const char *const type_names[ACL_NTYPES] = {"USER", "GROUP", "ACCT",    "CLASS",
                                                   "QOS",  "JATTR", "DURATION"};
static const char *const attr_names[ACL_NTYPES] = {
    "USERLIST", "GROUPLIST", "ACCOUNTLIST", "CLASSLIST", "QOSLIST", "JOBATTRLIST", "TIMELIMIT"};

/* Longest piece of user text quoted in a message. */
#define QUOTE_MAX 80

/* ------------------------------------------------------------------ objects */

struct acl *acl_create(void)
{
    return xcalloc(1, sizeof(struct acl));
}

static void batch_free(struct acl_entry *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i].name);
    free(v);
}

void acl_destroy(struct acl *acl)
{
    if (!acl)
        return;
    batch_free(acl->v, acl->n);
    free(acl);
}

struct acl *acl_dup(const struct acl *acl)
{
    struct acl *c = acl_create();
    if (!acl || acl->n == 0)
        return c;
    c->v = xmalloc(acl->n * sizeof *c->v);
    c->n = c->cap = acl->n;
    for (size_t i = 0; i < acl->n; i++) {
        c->v[i] = acl->v[i];
        c->v[i].name = acl->v[i].name ? xstrdup(acl->v[i].name) : NULL;
    }
    return c;
}

size_t acl_count(const struct acl *acl)
{
    return acl ? acl->n : 0;
}

const struct acl_entry *acl_entry(const struct acl *acl, size_t i)
{
    assert(acl && i < acl->n);
    return &acl->v[i];
}

/* Move the batch into acl. Duplicates are kept: they change no answer, and
 * looking for them would make a long list quadratic. */
static void commit(struct acl *acl, struct batch *b)
{
    acl->v = xgrow(acl->v, &acl->cap, acl->n + b->n, sizeof *acl->v);
    if (b->n)
        memcpy(acl->v + acl->n, b->v, b->n * sizeof *b->v);
    acl->n += b->n;
    free(b->v);
    b->v = NULL;
    b->n = b->cap = 0;
}

/* ------------------------------------------------------------------ parsing */

/* err_set for a bad piece of text: "<label>: <what> in '<text>'". */
static int bad(struct err *err, const char *label, const char *what, const char *s, size_t n)
{
    int shown = n > QUOTE_MAX ? QUOTE_MAX : (int)n;
    return err_set(err, "%s: %s in '%.*s%s'", label, what, shown, s, n > QUOTE_MAX ? "..." : "");
}

static int is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Apply one modifier character to e; *naff counts affinity marks. */
static int apply_mod(char c, struct acl_entry *e, int *naff)
{
    switch (c) {
    case '!':
        e->deny = 1;
        return 0;
    case '*':
        e->required = 1;
        return 0;
    case '+':
        e->affinity = ACL_POSITIVE;
        break;
    case '=':
        e->affinity = ACL_NEUTRAL;
        break;
    case '-':
        e->affinity = ACL_NEGATIVE;
        break;
    default:
        return -1; /* '^', '&' */
    }
    (*naff)++;
    return 0;
}

/* Strip an optional comparison ("==" before names, "<=" before durations). */
static int strip_cmp(enum acl_type type, const char **s, size_t *n, const char *label,
                     const char *item, size_t ilen, struct err *err)
{
    const char *p = *s;
    if (*n >= 2 && p[1] == '=' && strchr("=<>!", p[0])) {
        char want = type == ACL_DURATION ? '<' : '=';
        if (p[0] != want)
            return bad(err, label,
                       type == ACL_DURATION ? "a duration only takes '<='"
                                            : "a name only takes '=='",
                       item, ilen);
        *s += 2, *n -= 2;
    } else if (*n >= 1 && (p[0] == '<' || p[0] == '>')) {
        return bad(err, label, "unsupported comparison", item, ilen);
    }
    return 0;
}

static int check_name(const char *s, size_t n)
{
    if (n == 5 && memcmp(s, "[ALL]", 5) == 0)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!isgraph((unsigned char)s[i]) || strchr("=<>!*^&+,:|[]", s[i]))
            return -1;
    return 0;
}

/* The value of one item, modifiers already stripped. */
static int parse_value(enum acl_type type, const char *s, size_t n, const char *label,
                       const char *item, size_t ilen, struct acl_entry *e, struct err *err)
{
    if (n == 0)
        return bad(err, label, type == ACL_DURATION ? "empty time" : "empty name", item, ilen);
    if (type != ACL_DURATION) {
        if (check_name(s, n) < 0)
            return bad(err, label, "invalid character", item, ilen);
        e->name = xstrndup(s, n);
        return 0;
    }
    char *t = xstrndup(s, n);
    long secs = 0;
    int rc = cfg_parse_time(t, &secs, NULL);
    free(t);
    if (rc < 0 || secs < 0)
        return bad(err, label, "invalid time (expected [[[DD:]HH:]MM:]SS or INFINITY)", item, ilen);
    e->secs = secs < CFG_TIME_INFINITY ? secs : CFG_TIME_INFINITY;
    return 0;
}

/* One item `[cmp][mods]value[mods]` (s[0..n) without blanks) into *e. */
static int parse_item(enum acl_type type, const char *s, size_t n, const char *label,
                      struct acl_entry *e, struct err *err)
{
    const char *item = s;
    size_t ilen = n;
    int naff = 0;
    memset(e, 0, sizeof *e);
    e->type = type;
    e->affinity = ACL_POSITIVE;
    if (strip_cmp(type, &s, &n, label, item, ilen, err) < 0)
        return -1;
    for (; n > 0 && strchr("!*^&", s[0]); s++, n--)
        if (apply_mod(s[0], e, &naff) < 0)
            return bad(err, label, "unsupported modifier", item, ilen);
    for (; n > 0 && strchr("+-=!*^&", s[n - 1]); n--)
        if (apply_mod(s[n - 1], e, &naff) < 0)
            return bad(err, label, "unsupported modifier", item, ilen);
    if (naff > 1)
        return bad(err, label, "more than one affinity mark", item, ilen);
    if (e->deny && e->required)
        return bad(err, label, "'!' and '*' together", item, ilen);
    return parse_value(type, s, n, label, item, ilen, e, err);
}

static int batch_item(struct batch *b, enum acl_type type, const char *s, size_t n,
                      const char *label, struct err *err)
{
    struct acl_entry e;
    if (parse_item(type, s, n, label, &e, err) < 0)
        return -1;
    b->v = xgrow(b->v, &b->cap, b->n + 1, sizeof *b->v);
    b->v[b->n++] = e;
    return 0;
}

/* What to do with each piece a split finds. */
struct piece_ctx {
    enum acl_type type; /* lists: the attribute's type */
    const char *label;  /* lists: the attribute's name */
    int (*fn)(struct batch *b, const struct piece_ctx *c, const char *s, size_t n, struct err *err);
};

/* Cut text into pieces separated by one of `seps` or by blanks alone (blanks
 * around a separator are ignored) and hand each to c->fn. An empty piece
 * (leading, doubled or trailing separator) or an empty text is an error. */
static int split(struct batch *b, const char *text, const char *seps, const struct piece_ctx *c,
                 struct err *err)
{
    const char *p = text;
    for (;;) {
        while (is_blank(*p))
            p++;
        if (*p == '\0' || strchr(seps, *p)) {
            if (*p == '\0' && b->n == 0) /* nothing but blanks */
                return err_set(err, "%s: empty list", c->label);
            return bad(err, c->label, "empty item", text, strlen(text));
        }
        const char *start = p;
        while (*p && !is_blank(*p) && !strchr(seps, *p))
            p++;
        if (c->fn(b, c, start, (size_t)(p - start), err) < 0)
            return -1;
        while (is_blank(*p))
            p++;
        if (*p == '\0')
            return 0;
        if (strchr(seps, *p))
            p++;
    }
}

static int list_piece(struct batch *b, const struct piece_ctx *c, const char *s, size_t n,
                      struct err *err)
{
    return batch_item(b, c->type, s, n, c->label, err);
}

int acl_add_list(struct acl *acl, enum acl_type type, const char *list, struct err *err)
{
    assert(acl && type < ACL_NTYPES);
    struct batch b = {0};
    struct piece_ctx c = {type, attr_names[type], list_piece};
    if (split(&b, list ? list : "", type == ACL_DURATION ? ",|" : ",:|", &c, err) < 0) {
        batch_free(b.v, b.n);
        return -1;
    }
    commit(acl, &b);
    return 0;
}

static int type_of_keyword(const char *s, size_t n, enum acl_type *out)
{
    static const struct {
        const char *word;
        enum acl_type type;
    } words[] = {
        {"USER", ACL_USER},       {"GROUP", ACL_GROUP},     {"ACCT", ACL_ACCOUNT},
        {"ACCOUNT", ACL_ACCOUNT}, {"CLASS", ACL_CLASS},     {"QOS", ACL_QOS},
        {"JATTR", ACL_JOBATTR},   {"JOBATTR", ACL_JOBATTR}, {"DURATION", ACL_DURATION},
    };
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (strlen(words[i].word) == n && strncasecmp(words[i].word, s, n) == 0)
            return *out = words[i].type, 0;
    return -1;
}

/* Where the item starting at s (clause end at `end`) ends. Names split at
 * every ':'; durations only at ':' followed by a comparison, since a time
 * holds ':' itself. */
static const char *item_end(enum acl_type type, const char *s, const char *end)
{
    for (const char *p = s; p < end; p++)
        if (*p == ':' && (type != ACL_DURATION || (p + 1 < end && strchr("<=", p[1]))))
            return p;
    return end;
}

/* One clause TYPE<op>item[:item]... occupying s[0..n). */
static int parse_clause(struct batch *b, const struct piece_ctx *c, const char *s, size_t n,
                        struct err *err)
{
    size_t k = 0;
    while (k < n && isalpha((unsigned char)s[k]))
        k++;
    enum acl_type type;
    if (k == 0 || type_of_keyword(s, k, &type) < 0)
        return bad(err, c->label,
                   "unknown type (expected USER, GROUP, ACCT, CLASS, QOS, JATTR or DURATION)", s,
                   n);
    char label[32];
    snprintf(label, sizeof label, "ACL %s", type_names[type]);
    const char *p = s + k, *end = s + n;
    if (end - p < 2 || p[1] != '=' || !strchr("=<>!", p[0]))
        return bad(err, label,
                   type == ACL_DURATION ? "expected '<=' after the type"
                                        : "expected '==' after the type",
                   s, n);
    for (;;) {
        const char *e = item_end(type, p, end);
        if (batch_item(b, type, p, (size_t)(e - p), label, err) < 0)
            return -1;
        if (e == end)
            return 0;
        p = e + 1;
    }
}

int acl_parse_setres(struct acl *acl, const char *text, struct err *err)
{
    assert(acl);
    struct batch b = {0};
    struct piece_ctx c = {ACL_USER, "ACL", parse_clause};
    if (split(&b, text ? text : "", ",", &c, err) < 0) {
        batch_free(b.v, b.n);
        return -1;
    }
    commit(acl, &b);
    return 0;
}

/* --------------------------------------------------------------- formatting */

static void put_time(struct sbuf *o, long secs)
{
    char t[48];
    if (secs >= CFG_TIME_INFINITY)
        snprintf(t, sizeof t, "INFINITY");
    else if (secs >= 86400)
        snprintf(t, sizeof t, "%ld:%02ld:%02ld:%02ld", secs / 86400, secs / 3600 % 24,
                 secs / 60 % 60, secs % 60);
    else
        snprintf(t, sizeof t, "%ld:%02ld:%02ld", secs / 3600, secs / 60 % 60, secs % 60);
    sbuf_put(o, t);
}

static void put_entry(struct sbuf *o, const struct acl_entry *e)
{
    static const char *const aff[] = {"", "+", "=", "-"};
    sbuf_put(o, e->type == ACL_DURATION ? "<=" : "==");
    if (e->deny)
        sbuf_put(o, "!");
    if (e->type == ACL_DURATION)
        put_time(o, e->secs);
    else
        sbuf_put(o, e->name);
    sbuf_put(o, aff[e->affinity]);
    if (e->required)
        sbuf_put(o, "*");
}

int acl_format(const struct acl *acl, char *buf, size_t len)
{
    struct sbuf o = {buf, len, 0};
    int groups = 0;
    for (int t = 0; t < ACL_NTYPES; t++) {
        int in_group = 0;
        for (size_t i = 0; i < acl_count(acl); i++) {
            if (acl->v[i].type != (enum acl_type)t)
                continue;
            if (!in_group) {
                sbuf_put(&o, groups++ ? " " : "");
                sbuf_put(&o, type_names[t]);
            } else {
                sbuf_put(&o, ":");
            }
            in_group = 1;
            put_entry(&o, &acl->v[i]);
        }
    }
    return sbuf_end(&o);
}

/* --------------------------------------------------------------- evaluation */

/* Higher is more favourable; NONE lowest. */
static int rank(enum acl_affinity a)
{
    static const int r[] = {0, 3, 2, 1};
    return r[a];
}

static enum acl_affinity better(enum acl_affinity a, enum acl_affinity b)
{
    return rank(a) >= rank(b) ? a : b;
}

static enum acl_affinity worse(enum acl_affinity a, enum acl_affinity b)
{
    return rank(a) <= rank(b) ? a : b;
}

static const char *cred_of(const struct acl_job *w, enum acl_type t)
{
    switch (t) {
    case ACL_USER:
        return w->user;
    case ACL_GROUP:
        return w->group;
    case ACL_ACCOUNT:
        return w->account;
    case ACL_CLASS:
        return w->class_;
    case ACL_QOS:
        return w->qos;
    default:
        return NULL;
    }
}

/* "[ALL]" matches any credential the job has (not a missing one). */
static int name_matches(const char *want, const char *have)
{
    return have && (strcmp(want, have) == 0 || strcmp(want, "[ALL]") == 0);
}

/* Whether name is one of the job flags JOBATTRLIST may name. */
static int job_flag_word(const char *name)
{
    static const char *const words[] = ACL_JOB_FLAGS;
    for (size_t i = 0; i < sizeof words / sizeof *words; i++)
        if (strcasecmp(name, words[i]) == 0)
            return 1;
    return 0;
}

static int entry_matches(const struct acl_entry *e, const struct acl_job *w)
{
    if (e->type == ACL_DURATION)
        return w->duration <= e->secs;
    if (e->type != ACL_JOBATTR)
        return name_matches(e->name, cred_of(w, e->type));
    /* JOBATTRLIST=PREEMPTEE admits jobs that may be preempted, not one that
     * merely asks for a node feature so named. */
    for (size_t i = 0; i < w->nattrs && !job_flag_word(e->name); i++)
        if (name_matches(e->name, w->attrs[i]))
            return 1;
    for (size_t i = 0; i < w->nflags; i++)
        if (strcasecmp(e->name, w->flags[i]) == 0)
            return 1;
    return 0;
}

enum acl_affinity acl_check(const struct acl *acl, const struct acl_job *who)
{
    assert(who);
    if (acl_count(acl) == 0)
        return ACL_NONE;               /* SYSTEM reservation */
    enum acl_affinity req[ACL_NTYPES]; /* best matching required entry per type */
    unsigned has_req = 0, deny_types = 0, grant_types = 0;
    int has_ord = 0;
    enum acl_affinity ord = ACL_NONE; /* best matching ordinary entry */
    for (int t = 0; t < ACL_NTYPES; t++)
        req[t] = ACL_NONE;
    for (size_t i = 0; i < acl->n; i++) {
        const struct acl_entry *e = &acl->v[i];
        int m = entry_matches(e, who);
        if (e->deny) {
            if (m)
                return ACL_NONE;
            deny_types |= 1u << e->type;
            continue;
        }
        grant_types |= 1u << e->type;
        if (e->required) {
            has_req |= 1u << e->type;
            if (m)
                req[e->type] = better(req[e->type], e->affinity);
        } else {
            has_ord = 1;
            if (m)
                ord = better(ord, e->affinity);
        }
    }
    /* A list of only NOT entries (ACCOUNTLIST=!projectX) is satisfied by
     * any object it does not list: the job, not excluded above, meets it,
     * with the default (positive) affinity unless an ordinary entry it also
     * matches says otherwise (QOSLIST=special- stays negative). */
    if (deny_types & ~grant_types) {
        has_ord = 1;
        if (ord == ACL_NONE)
            ord = ACL_POSITIVE;
    }
    enum acl_affinity res = has_ord ? ord : ACL_POSITIVE;
    for (int t = 0; t < ACL_NTYPES && res != ACL_NONE; t++)
        if (has_req & (1u << t))
            res = req[t] == ACL_NONE ? ACL_NONE : worse(res, req[t]);
    return res;
}

enum acl_affinity acl_check_all(const struct acl *const *acls, size_t n, const struct acl_job *who)
{
    if (n == 0)
        return ACL_NEUTRAL;
    enum acl_affinity res = ACL_POSITIVE;
    for (size_t i = 0; i < n; i++) {
        enum acl_affinity a = acl_check(acls[i], who);
        if (a == ACL_NONE)
            return ACL_NONE;
        res = worse(res, a);
    }
    return res;
}

/* ------------------------------------------------------------------- names */

const char *acl_type_name(enum acl_type t)
{
    return t < ACL_NTYPES ? type_names[t] : "?";
}

const char *acl_attr_name(enum acl_type t)
{
    return t < ACL_NTYPES ? attr_names[t] : "?";
}

int acl_attr_type(const char *attr, enum acl_type *out)
{
    for (int t = 0; attr && t < ACL_NTYPES; t++)
        if (strcasecmp(attr, attr_names[t]) == 0)
            return *out = (enum acl_type)t, 0;
    return -1;
}

const char *acl_affinity_name(enum acl_affinity a)
{
    static const char *const names[] = {"none", "positive", "neutral", "negative"};
    return (unsigned)a <= ACL_NEGATIVE ? names[a] : "?";
}
