/*
 * srcfg — standing reservation definitions from maui.cfg (see srcfg.h).
 *
 * Each reservation is read through a `struct src`: its SRCFG object (if any)
 * and its legacy index (if any). An attribute is looked up in the object
 * first, then in the legacy parameter of the same meaning (SRCFG wins, as in
 * Maui, which applies SRCFG after the plain parameters). Every value goes
 * through one parser per attribute; the record is built in a local and handed
 * over only when the whole configuration has been read.
 */
#include <ctype.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cfg/cfg.h"
#include "policy/srcfg.h"
#include "util/mem.h"

/* SRCFG attribute -> legacy parameter of the same meaning (NULL: SRCFG only). */
static const struct {
    const char *attr, *param;
} legacy_map[] = {
    {"PERIOD", "SRPERIOD"},
    {"DEPTH", "SRDEPTH"},
    {"DAYS", "SRDAYS"},
    {"STARTTIME", "SRSTARTTIME"},
    {"ENDTIME", "SRENDTIME"},
    {"WSTARTTIME", "SRWSTARTTIME"},
    {"WENDTIME", "SRWENDTIME"},
    {"TASKCOUNT", "SRTASKCOUNT"},
    {"RESOURCES", "SRRESOURCES"},
    {"TPN", "SRTPN"},
    {"HOSTLIST", "SRHOSTLIST"},
    {"NODEFEATURES", "SRFEATURES"},
    {"PARTITION", "SRPARTITION"},
    {"USERLIST", "SRUSERLIST"},
    {"GROUPLIST", "SRGROUPLIST"},
    {"ACCOUNTLIST", "SRACCOUNTLIST"},
    {"CLASSLIST", "SRCLASSLIST"},
    {"QOSLIST", "SRQOSLIST"},
    {"MAXTIME", "SRMAXTIME"},
    {"ACCESS", "SRACCESS"},
    {"FLAGS", "SRFLAGS"},
    {"PRIORITY", "SRPRIORITY"},
    {"CHARGEACCOUNT", "SRCHARGEACCOUNT"},
    {"IDLETIME", "SRIDLETIME"},
    {"TIMELOGIC", "SRTIMELOGIC"},
};
#define NLEGACY (sizeof legacy_map / sizeof legacy_map[0])

/* Where one reservation's attributes come from. */
struct src {
    const struct cfg *cfg;
    const char *name;          /* the reservation's name */
    const struct cfg_obj *obj; /* SRCFG[name], or NULL */
    const char *idx;           /* legacy index, or NULL */
    char num[NLEGACY][32];     /* legacy numbers printed back as text */
};

/* One looked-up value and where it was given. */
struct val {
    const char *s;             /* NULL: not given */
    const struct cfg_attr *at; /* from SRCFG: the attribute (file, line) */
    const char *param;         /* from a legacy parameter: its name */
};

static const char *legacy_param(const char *attr)
{
    for (size_t i = 0; i < NLEGACY; i++)
        if (strcmp(legacy_map[i].attr, attr) == 0)
            return legacy_map[i].param;
    return NULL;
}

static struct val get(struct src *s, const char *attr)
{
    struct val v = {NULL, NULL, NULL};
    for (size_t i = s->obj ? s->obj->nattrs : 0; i-- > 0;) {
        const struct cfg_attr *a = &s->obj->attrs[i];
        if (!a->index && strcmp(a->name, attr) == 0)
            return v.s = a->value, v.at = a, v;
    }
    const char *p = s->idx ? legacy_param(attr) : NULL;
    if (!p || !cfg_is_set(s->cfg, p, s->idx))
        return v;
    v.param = p;
    const struct cfg_param *cp = cfg_param_find(p);
    char *buf = s->num[0];
    for (size_t i = 0; i < NLEGACY; i++)
        if (legacy_map[i].param == p)
            buf = s->num[i];
    if (cp->type == CFG_INT)
        snprintf(buf, sizeof s->num[0], "%lld", cfg_int(s->cfg, p, s->idx));
    else if (cp->type == CFG_TIME)
        snprintf(buf, sizeof s->num[0], "%ld", cfg_time(s->cfg, p, s->idx));
    else
        buf = NULL;
    v.s = buf ? buf : cfg_str(s->cfg, p, s->idx);
    return v;
}

/* "file:line: SRCFG[name] ATTR: msg" or "SRATTR[idx]: msg" (cfg keeps no line
 * for plain parameters). */
static int val_error(const struct src *s, const struct val *v, const char *attr, const char *msg,
                     struct err *err)
{
    if (v->at)
        return err_set(err, "%s:%d: SRCFG[%s] %s: %s", v->at->file, v->at->line, s->name, attr,
                       msg);
    if (v->param)
        return err_set(err, "%s[%s]: %s", v->param, s->idx, msg);
    return err_set(err, "SRCFG[%s] %s: %s", s->name, attr, msg);
}

/* An error about the reservation as a whole, located at its first line. */
static int def_error(const struct src *s, const char *msg, struct err *err)
{
    if (s->obj && s->obj->nattrs)
        return err_set(err, "%s:%d: SRCFG[%s]: %s", s->obj->attrs[0].file, s->obj->attrs[0].line,
                       s->name, msg);
    return err_set(err, "standing reservation '%s' (SR* parameters): %s", s->name, msg);
}

/* Two attributes that cannot go together; located at the first. */
static int conflict(const struct src *s, const struct val *v, const char *attr, const char *other,
                    const char *why, struct err *err)
{
    char msg[256];
    snprintf(msg, sizeof msg, "conflicts with %s (%s)", other, why);
    return val_error(s, v, attr, msg, err);
}

/* The next token of a list at *p, separated by any of `sep`; NULL at the end.
 * Copies it into buf (truncated to size - 1). */
static const char *next_tok(const char **p, const char *sep, char *buf, size_t size)
{
    *p += strspn(*p, sep);
    size_t n = strcspn(*p, sep);
    if (!n)
        return NULL;
    snprintf(buf, size, "%.*s", (int)n, *p);
    *p += n;
    return buf;
}

static int get_long(struct src *s, const char *attr, long long min, long long max, long *out,
                    struct err *err)
{
    struct val v = get(s, attr);
    long long x = 0;
    struct err e;
    if (!v.s)
        return 0;
    if (cfg_parse_int(v.s, min, max, &x, &e) < 0)
        return val_error(s, &v, attr, e.msg, err);
    *out = (long)x;
    return 0;
}

/* ------------------------------------------------------------- timeframe */

/* PERIOD, DAYS, STARTTIME/ENDTIME or WSTARTTIME/WENDTIME, DEPTH. */
static int parse_time(struct src *s, struct srtime_spec *t, struct err *err)
{
    struct val per = get(s, "PERIOD"), days = get(s, "DAYS"), st = get(s, "STARTTIME");
    struct val en = get(s, "ENDTIME"), wst = get(s, "WSTARTTIME"), wen = get(s, "WENDTIME");
    struct val dep = get(s, "DEPTH");
    struct val *w = wst.s ? &wst : wen.s ? &wen : NULL;
    const char *period = per.s;
    if (w) {
        const char *wname = w == &wst ? "WSTARTTIME" : "WENDTIME";
        if (st.s || en.s)
            return conflict(s, w, wname, st.s ? "STARTTIME" : "ENDTIME",
                            "both set the window; give one pair", err);
        if (per.s && strcasecmp(per.s, "WEEK") != 0)
            return conflict(s, w, wname, "PERIOD", "week offsets need PERIOD=WEEK", err);
        period = "WEEK";
        st = wst;
        en = wen;
    }
    struct err e;
    if (srtime_parse(t, period, days.s, st.s, en.s, dep.s, &e) == 0)
        return 0;
    /* srtime names the attribute first; locate it. */
    struct {
        const char *word;
        struct val *v;
        const char *attr;
    } at[] = {{"PERIOD", &per, "PERIOD"},
              {"DAYS", &days, "DAYS"},
              {"STARTTIME", &st, st.param || (st.at && w) ? "WSTARTTIME" : "STARTTIME"},
              {"ENDTIME", &en, en.param || (en.at && w) ? "WENDTIME" : "ENDTIME"},
              {"DEPTH", &dep, "DEPTH"}};
    for (size_t i = 0; i < sizeof at / sizeof at[0]; i++)
        if (strncmp(e.msg, at[i].word, strlen(at[i].word)) == 0)
            return val_error(s, at[i].v, w ? at[i].attr : at[i].word, e.msg, err);
    return def_error(s, e.msg, err);
}

/* ------------------------------------------------------------- resources */

/*
 * RESOURCES: `PROCS:2;MEM:512` (Guide table), `PROCS:1,MEM:512` (Guide
 * examples), `PROCS=2,MEM=256`, `+` also separates (Maui). Names any case.
 */
static int parse_res(const char *text, struct srcfg_res *r, char *msg, size_t size)
{
    static const char *const names[] = {"PROCS", "MEM", "DISK", "SWAP"};
    long *field[] = {&r->procs, &r->mem, &r->disk, &r->swap};
    int seen[4] = {0};
    char tok[128];
    const char *p = text;
    *r = (struct srcfg_res){-1, 0, 0, 0};
    if (!next_tok(&(const char *){text}, ";,+ \t", tok, sizeof tok))
        return snprintf(msg, size, "'%s' names no resource", text), -1;
    while (next_tok(&p, ";,+ \t", tok, sizeof tok)) {
        size_t k = strcspn(tok, ":=");
        int i = 0;
        while (i < 4 && (strlen(names[i]) != k || strncasecmp(tok, names[i], k) != 0))
            i++;
        if (i == 4 || !tok[k])
            return snprintf(msg, size,
                            "'%s': '%s' is not <RES>:<N> with RES one of PROCS, MEM, DISK, SWAP",
                            text, tok),
                   -1;
        long long v = 0; /* set by cfg_parse_int on success, read only then */
        long long min = i == 0 ? -1 : 0;
        if (cfg_parse_int(tok + k + 1, min, 1000000000LL, &v, NULL) < 0 || (i == 0 && v == 0))
            return snprintf(msg, size, "'%s': %s '%s' is not %s", text, names[i], tok + k + 1,
                            i == 0 ? "a positive integer or -1 (the whole node)"
                                   : "an integer >= 0 (MB)"),
                   -1;
        if (seen[i]++)
            return snprintf(msg, size, "'%s': %s given twice", text, names[i]), -1;
        *field[i] = (long)v;
    }
    return 0;
}

/* A host regular expression is an item with a regex operator; '.' alone does
 * not count (host.domain.org is a name). */
static int is_regex(const char *s)
{
    return strpbrk(s, "[]*?+^$(){}|\\") != NULL;
}

static int parse_hosts(const char *text, struct srcfg_def *d, char *msg, size_t size)
{
    char tok[256];
    size_t cap = 0;
    for (const char *p = text; next_tok(&p, ", \t:", tok, sizeof tok);) {
        struct srcfg_host h = {NULL, is_regex(tok)};
        if (strcmp(tok, "ALL") == 0 || strcmp(tok, "[ALL]") == 0) {
            h.text = xstrdup(".*"); /* the Guide's default, every host */
            h.regex = 1;
        } else if (h.regex) {
            regex_t re;
            int rc = regcomp(&re, tok, REG_EXTENDED | REG_NOSUB);
            if (rc != 0) {
                char why[128];
                regerror(rc, &re, why, sizeof why);
                return snprintf(msg, size, "bad host expression '%s': %s", tok, why), -1;
            }
            regfree(&re);
        }
        if (!h.text)
            h.text = xstrdup(tok);
        d->hosts = xgrow(d->hosts, &cap, d->nhosts + 1, sizeof *d->hosts);
        d->hosts[d->nhosts++] = h;
    }
    if (!d->nhosts)
        return snprintf(msg, size, "'%s' names no host", text), -1;
    return 0;
}

static void parse_features(const char *text, struct srcfg_def *d)
{
    char tok[256];
    size_t cap = 0;
    for (const char *p = text; next_tok(&p, ", \t:|[]", tok, sizeof tok);) {
        d->features = xgrow(d->features, &cap, d->nfeatures + 1, sizeof *d->features);
        d->features[d->nfeatures++] = xstrdup(tok);
    }
}

static int parse_resources(struct src *s, struct srcfg_def *d, struct err *err)
{
    char msg[512];
    struct val v = get(s, "RESOURCES");
    d->res = (struct srcfg_res){-1, 0, 0, 0};
    if (v.s && parse_res(v.s, &d->res, msg, sizeof msg) < 0)
        return val_error(s, &v, "RESOURCES", msg, err);
    if (get_long(s, "TASKCOUNT", 0, 1000000000LL, &d->taskcount, err) < 0 ||
        get_long(s, "TPN", 0, 1000000000LL, &d->tpn, err) < 0)
        return -1;
    if ((v = get(s, "HOSTLIST")).s && parse_hosts(v.s, d, msg, sizeof msg) < 0)
        return val_error(s, &v, "HOSTLIST", msg, err);
    if ((v = get(s, "NODEFEATURES")).s)
        parse_features(v.s, d);
    if ((v = get(s, "PARTITION")).s && *v.s)
        d->partition = xstrdup(v.s);
    if (d->tpn > 1 && d->res.procs == -1 && (v = get(s, "TPN")).s)
        return conflict(s, &v, "TPN", "RESOURCES",
                        "a task without RESOURCES is a whole node, so one fits per node", err);
    if (!d->taskcount && !d->nhosts)
        return def_error(s, "neither TASKCOUNT nor HOSTLIST given: it would reserve nothing", err);
    d->floating = d->taskcount > 0;
    return 0;
}

/* --------------------------------------------------------- flags, owner */

static const struct {
    const char *name;
    unsigned bit;
} flag_names[] = {
    {"BESTEFFORT", SRCFG_BESTEFFORT},     {"BYNAME", SRCFG_BYNAME},
    {"OWNERPREEMPT", SRCFG_OWNERPREEMPT}, {"FORCE", SRCFG_FORCE},
    {"SINGLEUSE", SRCFG_SINGLEUSE},       {"PREEMPTEE", SRCFG_PREEMPTEE},
    {"SPACEFLEX", SRCFG_SPACEFLEX},
};
#define NFLAGS (sizeof flag_names / sizeof flag_names[0])

/* Maui's flags that moku does not act on, and why: a warning naming the
 * file and line, never a refusal of the whole file (a maui.cfg copied from
 * the Guide must load), never silence. */
static const struct {
    const char *name, *why;
} unsupported_flags[] = {
    {"TIMEFLEX", "moku never moves a reservation in time (Maui 3.3.1 moves only META ones)"},
    {"ADVRES", "a job flag in moku (qsub -W x=ADVRES:name), not a reservation's"},
    {"DEDICATEDNODE", "moku does not keep a node's other reservations off it; "
                      "ACCESS=DEDICATED keeps its processors to itself"},
    {"META", "moku has no meta-scheduler"},
};
#define NUNSUPPORTED (sizeof unsupported_flags / sizeof *unsupported_flags)

static const char *unsupported_why(const char *name)
{
    for (size_t i = 0; i < NUNSUPPORTED; i++)
        if (strcasecmp(name, unsupported_flags[i].name) == 0)
            return unsupported_flags[i].why;
    return NULL;
}

int srcfg_flag_unsupported(const char *name)
{
    return unsupported_why(name) != NULL;
}

const char *srcfg_flag_name(unsigned flag)
{
    for (size_t i = 0; i < NFLAGS; i++)
        if (flag_names[i].bit == flag)
            return flag_names[i].name;
    return "?";
}

/* FLAGS: sets *flags; *dedres when DEDICATEDRESOURCE is listed; a flag
 * moku does not act on adds a line to *warn ("<where> FLAGS: ..."). */
static int parse_flags(const struct src *s, const struct val *v, unsigned *flags, int *dedres,
                       char **warn, char *msg, size_t size)
{
    char tok[128];
    for (const char *p = v->s; next_tok(&p, ",|:[] \t", tok, sizeof tok);) {
        size_t i = 0;
        while (i < NFLAGS && strcasecmp(tok, flag_names[i].name) != 0)
            i++;
        if (i < NFLAGS) {
            *flags |= flag_names[i].bit;
        } else if (strcasecmp(tok, "DEDICATEDRESOURCE") == 0) {
            *dedres = 1;
        } else if (srcfg_flag_unsupported(tok)) {
            char why[256];
            struct err e;
            snprintf(why, sizeof why, "flag '%s' is not acted on: %s", tok, unsupported_why(tok));
            val_error(s, v, "FLAGS", why, &e);
            char *more = xprintf("%s%s\n", *warn ? *warn : "", e.msg);
            free(*warn);
            *warn = more;
        } else {
            int n = snprintf(msg, size, "unknown flag '%s' (expected", tok);
            for (i = 0; i < NFLAGS && (size_t)n < size; i++)
                n += snprintf(msg + n, size - (size_t)n, " %s,", flag_names[i].name);
            if ((size_t)n < size)
                snprintf(msg + n, size - (size_t)n, " DEDICATEDRESOURCE)");
            return -1;
        }
    }
    return 0;
}

/* OWNER=<TYPE>:<NAME>, TYPE one of USER GROUP ACCOUNT (ACCT) CLASS QOS. */
static int parse_owner(const char *text, struct srcfg_def *d)
{
    static const struct {
        const char *name;
        enum acl_type t;
    } types[] = {{"USER", ACL_USER},    {"GROUP", ACL_GROUP}, {"ACCOUNT", ACL_ACCOUNT},
                 {"ACCT", ACL_ACCOUNT}, {"CLASS", ACL_CLASS}, {"QOS", ACL_QOS}};
    const char *colon = strchr(text, ':');
    if (!colon || !colon[1] || strpbrk(colon + 1, ": \t,"))
        return -1;
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        size_t k = (size_t)(colon - text);
        if (strlen(types[i].name) == k && strncasecmp(text, types[i].name, k) == 0) {
            d->owner_type = types[i].t;
            d->owner = xstrdup(colon + 1);
            return 0;
        }
    }
    return -1;
}

static int parse_policy(struct src *s, struct srcfg_def *d, struct err *err)
{
    char msg[512];
    int dedres = 0;
    struct val fl = get(s, "FLAGS"), acc = get(s, "ACCESS"), v;
    if (fl.s && parse_flags(s, &fl, &d->flags, &dedres, &d->warnings, msg, sizeof msg) < 0)
        return val_error(s, &fl, "FLAGS", msg, err);
    d->access = dedres ? SRCFG_DEDICATED : SRCFG_SHARED;
    if (acc.s) {
        if (dedres && strcasecmp(acc.s, "SHARED") == 0)
            return conflict(s, &acc, "ACCESS", "FLAGS=DEDICATEDRESOURCE",
                            "one says shared, the other dedicated", err);
        if (strcasecmp(acc.s, "DEDICATED") == 0)
            d->access = SRCFG_DEDICATED;
        else if (strcasecmp(acc.s, "SHARED") != 0)
            return val_error(s, &acc, "ACCESS", "expected DEDICATED or SHARED", err);
    }
    if ((v = get(s, "OWNER")).s && parse_owner(v.s, d) < 0) {
        snprintf(msg, sizeof msg,
                 "'%s' is not <TYPE>:<NAME> with TYPE one of USER, GROUP, ACCOUNT, CLASS, QOS",
                 v.s);
        return val_error(s, &v, "OWNER", msg, err);
    }
    if ((d->flags & SRCFG_OWNERPREEMPT) && !d->owner)
        return conflict(s, &fl, "FLAGS", "OWNER",
                        "OWNERPREEMPT needs an OWNER whose jobs may preempt", err);
    if (get_long(s, "PRIORITY", -1000000000LL, 1000000000LL, &d->priority, err) < 0)
        return -1;
    if ((v = get(s, "CHARGEACCOUNT")).s && *v.s)
        d->chargeaccount = xstrdup(v.s);
    struct err e;
    if ((v = get(s, "IDLETIME")).s &&
        (cfg_parse_time(v.s, &d->idletime, &e) < 0 || d->idletime < 0))
        return val_error(s, &v, "IDLETIME", "expected a time [[[DD:]HH:]MM:]SS >= 0", err);
    return 0;
}

/* ------------------------------------------------------------------- ACL */

/* A duration list with every item marked required (SRTIMELOGIC AND). Caller frees. */
static char *all_required(const char *list)
{
    char *out = xmalloc(2 * strlen(list) + 2);
    size_t n = 0;
    for (const char *p = list; *p;) {
        size_t k = strcspn(p, ",|");
        memcpy(out + n, p, k);
        n += k;
        if (k && !memchr(p, '*', k))
            out[n++] = '*';
        p += k;
        if (*p)
            out[n++] = *p++;
    }
    out[n] = '\0';
    return out;
}

static int add_acl(struct src *s, struct acl *acl, enum acl_type t, const char *attr, int and,
                   struct err *err)
{
    struct val v = get(s, attr);
    struct err e;
    if (!v.s)
        return 0;
    char *list = and? all_required(v.s) : xstrdup(v.s);
    int rc = acl_add_list(acl, t, list, &e);
    free(list);
    return rc < 0 ? val_error(s, &v, attr, e.msg, err) : 0;
}

static int parse_acl(struct src *s, struct srcfg_def *d, struct err *err)
{
    struct val tl = get(s, "TIMELOGIC"), v;
    int and = tl.s && strcasecmp(tl.s, "AND") == 0;
    d->acl = acl_create();
    for (int t = 0; t < ACL_NTYPES; t++)
        if (add_acl(s, d->acl, (enum acl_type)t, acl_attr_name((enum acl_type)t),
                    t == ACL_DURATION && and, err) < 0)
            return -1;
    if (add_acl(s, d->acl, ACL_DURATION, "MAXTIME", and, err) < 0)
        return -1;
    const char *lim = (v = get(s, "PROCLIMIT")).s ? "PROCLIMIT" : "TASKLIMIT";
    if (v.s || (v = get(s, lim)).s)
        return val_error(s, &v, lim, "not supported: moku's reservation ACLs cannot test job size",
                         err);
    return 0;
}

/* -------------------------------------------------------------- triggers */

static int keyword(const char *s, size_t n, const char *const *words, int nwords)
{
    for (int i = 0; i < nwords; i++)
        if (strlen(words[i]) == n && strncasecmp(s, words[i], n) == 0)
            return i;
    return -1;
}

/* <event>[+<offset>][@<threshold>](;|:)<action>[@<data>] */
static int parse_trigger(const char *text, struct srcfg_trigger *tr, char *msg, size_t size)
{
    static const char *const events[] = {"create", "start", "end", "minload"};
    static const char *const actions[] = {"cancel", "exec", "submit"};
    const char *p = text;
    size_t n = strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ");
    int ev = keyword(p, n, events, 4);
    memset(tr, 0, sizeof *tr);
    if (ev < 0)
        return snprintf(msg, size,
                        "'%s': unknown event '%.*s' (expected create, start, end or "
                        "minload)",
                        text, (int)n, p),
               -1;
    tr->event = (enum srcfg_event)ev;
    p += n;
    if (*p == '+') { /* the offset holds ':' too; it ends at ';', '@' or ':' + letter */
        const char *q = ++p;
        while (*q && *q != ';' && *q != '@' && !(*q == ':' && isalpha((unsigned char)q[1])))
            q++;
        char buf[64];
        snprintf(buf, sizeof buf, "%.*s", (int)(q - p), p);
        if (q == p || cfg_parse_time(buf, &tr->offset, NULL) < 0 || tr->offset < 0)
            return snprintf(msg, size, "'%s': offset '%s' is not a time [[HH:]MM:]SS", text, buf),
                   -1;
        p = q;
    }
    if (*p == '@') {
        char *end;
        tr->threshold = strtod(++p, &end);
        if (end == p)
            return snprintf(msg, size, "'%s': threshold is not a number", text), -1;
        tr->has_threshold = 1;
        p = end;
    }
    if (*p != ';' && *p != ':')
        return snprintf(msg, size, "'%s' is not <EVENT>[+<OFFSET>][@<THRESHOLD>];<ACTION>[@<DATA>]",
                        text),
               -1;
    n = strcspn(++p, "@");
    int act = keyword(p, n, actions, 3);
    if (act < 0)
        return snprintf(msg, size, "'%s': unknown action '%.*s' (expected cancel, exec or submit)",
                        text, (int)n, p),
               -1;
    tr->action = (enum srcfg_action)act;
    p += n;
    if (act == SRCFG_ACT_CANCEL && *p)
        return snprintf(msg, size, "'%s': cancel takes no @<DATA>", text), -1;
    if (act != SRCFG_ACT_CANCEL && (*p != '@' || !p[1]))
        return snprintf(msg, size, "'%s': %s needs @<COMMAND>", text, actions[act]), -1;
    if (*p)
        tr->data = xstrdup(p + 1);
    return 0;
}

static int parse_triggers(struct src *s, struct srcfg_def *d, struct err *err)
{
    char msg[512];
    size_t cap = 0;
    for (size_t i = 0; s->obj && i < s->obj->nattrs; i++) {
        const struct cfg_attr *a = &s->obj->attrs[i];
        if (strcmp(a->name, "TRIGGER") != 0)
            continue;
        d->triggers = xgrow(d->triggers, &cap, d->ntriggers + 1, sizeof *d->triggers);
        if (parse_trigger(a->value, &d->triggers[d->ntriggers], msg, sizeof msg) < 0)
            return val_error(s, &(struct val){a->value, a, NULL}, "TRIGGER", msg, err);
        d->ntriggers++;
    }
    return 0;
}

/* ------------------------------------------------------------- the whole */

static void def_clear(struct srcfg_def *d)
{
    free(d->name);
    free(d->where);
    for (size_t i = 0; i < d->nhosts; i++)
        free(d->hosts[i].text);
    free(d->hosts);
    for (size_t i = 0; i < d->nfeatures; i++)
        free(d->features[i]);
    free(d->features);
    free(d->partition);
    free(d->owner);
    free(d->chargeaccount);
    free(d->warnings);
    acl_destroy(d->acl);
    for (size_t i = 0; i < d->ntriggers; i++)
        free(d->triggers[i].data);
    free(d->triggers);
}

void srcfg_free(struct srcfg_def *defs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        def_clear(&defs[i]);
    free(defs);
}

/* Attributes a standing reservation has one of: given twice with different
 * values (on one line or on two SRCFG[x] lines) the second would silently
 * replace the first. The same value twice is harmless (the Admin Guide's
 * own example repeats PERIOD=INFINITY). */
static const char *const single_attrs[] = {
    "PERIOD",  "DEPTH", "STARTTIME", "ENDTIME",   "WSTARTTIME", "WENDTIME",      "TASKCOUNT",
    "TPN",     "DAYS",  "RESOURCES", "PARTITION", "ACCESS",     "PRIORITY",      "TIMELIMIT",
    "MAXTIME", "OWNER", "TIMELOGIC", "IDLETIME",  "PROCLIMIT",  "CHARGEACCOUNT", "TASKLIMIT",
};

static int check_single(const struct src *s, struct err *err)
{
    for (size_t i = 0; s->obj && i < s->obj->nattrs; i++) {
        const struct cfg_attr *a = &s->obj->attrs[i];
        size_t k = 0, n = sizeof single_attrs / sizeof *single_attrs;
        while (k < n && strcmp(a->name, single_attrs[k]) != 0)
            k++;
        if (k == n || a->index)
            continue;
        for (size_t j = 0; j < i; j++) {
            const struct cfg_attr *b = &s->obj->attrs[j];
            if (!b->index && strcmp(b->name, a->name) == 0 && strcmp(b->value, a->value) != 0)
                return err_set(
                    err, "%s:%d: SRCFG[%s] %s: given twice, '%s' and '%s' (first at %s:%d)",
                    a->file, a->line, s->name, a->name, b->value, a->value, b->file, b->line);
        }
    }
    return 0;
}

/* PERIOD=INFINITY is one window from the start for ever: a time of day or
 * days would be ignored, so they are refused. */
static int check_infinity(struct src *s, const struct srcfg_def *d, struct err *err)
{
    if (d->time.period != SRTIME_INFINITY)
        return 0;
    static const char *const timed[] = {"DAYS", "STARTTIME", "ENDTIME", "WSTARTTIME", "WENDTIME"};
    for (size_t i = 0; i < sizeof timed / sizeof *timed; i++) {
        struct val v = get(s, timed[i]);
        if (v.s)
            return val_error(s, &v, timed[i],
                             "PERIOD=INFINITY is one window for ever: it takes no days or "
                             "times of day",
                             err);
    }
    return 0;
}

static int parse_def(struct src *s, struct srcfg_def *d, struct err *err)
{
    memset(d, 0, sizeof *d);
    d->name = xstrdup(s->name);
    d->where =
        s->obj && s->obj->nattrs
            ? xprintf("%s:%d: SRCFG[%s]", s->obj->attrs[0].file, s->obj->attrs[0].line, s->name)
            : xprintf("standing reservation '%s' (SR* parameters)", s->name);
    if (check_single(s, err) < 0 || parse_time(s, &d->time, err) < 0 ||
        check_infinity(s, d, err) < 0 || parse_resources(s, d, err) < 0 ||
        parse_policy(s, d, err) < 0 || parse_acl(s, d, err) < 0 || parse_triggers(s, d, err) < 0) {
        def_clear(d);
        memset(d, 0, sizeof *d);
        return -1;
    }
    return 0;
}

/* Legacy indices in order: numbers ascending (SRSTARTTIME[0], [1], ...), then names. */
static int index_cmp(const void *a, const void *b)
{
    const char *x = *(const char *const *)a, *y = *(const char *const *)b;
    int nx = x[strspn(x, "0123456789")] == '\0', ny = y[strspn(y, "0123456789")] == '\0';
    if (nx && ny && strlen(x) != strlen(y))
        return strlen(x) < strlen(y) ? -1 : 1;
    if (nx != ny)
        return nx ? -1 : 1;
    return strcmp(x, y);
}

/* The legacy indices, each once, in index_cmp order (SRNAME only renames, it
 * defines nothing). Array of borrowed strings; the caller frees the array. */
static size_t legacy_indices(const struct cfg *cfg, const char ***out)
{
    const char **all = NULL;
    size_t n = 0, cap = 0;
    for (size_t i = 0; i < NLEGACY; i++) {
        const char **ix;
        size_t k = cfg_indices(cfg, legacy_map[i].param, &ix);
        for (size_t j = 0; j < k; j++) {
            size_t m = 0;
            while (m < n && strcmp(all[m], ix[j]) != 0)
                m++;
            if (m == n) {
                all = xgrow(all, &cap, n + 1, sizeof *all);
                all[n++] = ix[j];
            }
        }
    }
    if (n)
        qsort(all, n, sizeof *all, index_cmp);
    *out = all;
    return n;
}

/* The name of legacy reservation idx: SRNAME[idx] if set (Maui 3.2), else idx. */
static const char *legacy_name(const struct cfg *cfg, const char *idx)
{
    const char *nm = cfg_is_set(cfg, "SRNAME", idx) ? cfg_str(cfg, "SRNAME", idx) : NULL;
    return nm && *nm ? nm : idx;
}

/* Pair SRCFG objects with legacy indices by name; fills srcs (grown). */
static int collect(const struct cfg *cfg, struct src **srcs, size_t *n, struct err *err)
{
    const char **ix;
    size_t nix = legacy_indices(cfg, &ix), cap = 0;
    char *used = xcalloc(nix ? nix : 1, 1);
    int rc = 0;
    for (size_t i = 0; i < nix && rc == 0; i++) {
        const char *nm = legacy_name(cfg, ix[i]);
        if (strpbrk(nm, " \t"))
            rc = err_set(err, "SRNAME[%s]: '%s' is not a reservation name", ix[i], nm);
        for (size_t j = 0; j < i && rc == 0; j++)
            if (strcmp(nm, legacy_name(cfg, ix[j])) == 0)
                rc = err_set(err, "SRNAME: reservations '%s' and '%s' are both named '%s'", ix[j],
                             ix[i], nm);
    }
    for (size_t i = 0; i < cfg_nobjs(cfg) && rc == 0; i++) {
        const struct cfg_obj *o = cfg_obj_at(cfg, i);
        if (strcmp(o->kind, "SRCFG") != 0)
            continue;
        *srcs = xgrow(*srcs, &cap, *n + 1, sizeof **srcs);
        struct src *s = &(*srcs)[(*n)++];
        memset(s, 0, sizeof *s);
        *s = (struct src){cfg, o->name, o, NULL, {{0}}};
        for (size_t j = 0; j < nix; j++)
            if (!used[j] && strcmp(legacy_name(cfg, ix[j]), o->name) == 0)
                s->idx = ix[j], used[j] = 1;
    }
    for (size_t j = 0; j < nix && rc == 0; j++) {
        if (used[j])
            continue;
        *srcs = xgrow(*srcs, &cap, *n + 1, sizeof **srcs);
        (*srcs)[(*n)++] = (struct src){cfg, legacy_name(cfg, ix[j]), NULL, ix[j], {{0}}};
    }
    free(used);
    free(ix);
    return rc;
}

int srcfg_load(const struct cfg *cfg, struct srcfg_def **defs, size_t *n, struct err *err)
{
    struct src *srcs = NULL;
    size_t ns = 0, nd = 0;
    *defs = NULL;
    *n = 0;
    if (collect(cfg, &srcs, &ns, err) < 0) {
        free(srcs);
        return -1;
    }
    struct srcfg_def *d = xcalloc(ns ? ns : 1, sizeof *d);
    for (; nd < ns; nd++) {
        if (parse_def(&srcs[nd], &d[nd], err) < 0) {
            srcfg_free(d, nd);
            free(srcs);
            return -1;
        }
    }
    free(srcs);
    if (!nd) {
        free(d);
        d = NULL;
    }
    *defs = d;
    *n = nd;
    return 0;
}
