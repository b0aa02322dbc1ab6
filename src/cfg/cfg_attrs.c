/*
 * cfg_attrs — value syntax and the attributes of object lines.
 *
 * The scanners here define what an integer, a number, a boolean, a time and
 * a limit look like in maui.cfg; the public cfg_parse_* wrap them with
 * messages. The attribute tables say, per object kind (NODECFG, USERCFG, ...),
 * which ATTR=VALUE pairs moku knows and how to check them. RMCFG, AMCFG and
 * CLIENTCFG are open: their attributes belong to the RM/AM drivers.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cfg/cfg.h"
#include "cfg/cfg_tab.h"

#define BIG CFG_TAB_BIG

/* ---------------------------------------------------------------- scanners */

int cfg_tab_scan_int(const char *s, long long *out)
{
    const char *p = s;
    if (*p == '+' || *p == '-')
        p++;
    if (*p < '0' || *p > '9')
        return -1;
    errno = 0;
    char *end;
    long long v = strtoll(s, &end, 10);
    if (errno == ERANGE || *end != '\0')
        return -1;
    *out = v;
    return 0;
}

int cfg_tab_scan_double(const char *s, double *out)
{
    /* strtod also takes hex, "inf" and "nan"; maui.cfg numbers are decimal. */
    if (!*s || strpbrk(s, "xXiInN"))
        return -1;
    errno = 0;
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end != '\0' || errno == ERANGE || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

/* Maui's MUBoolFromString spellings (its lower-case "on"/"On" only work by
 * accident in 3.3.1; moku takes them all). */
int cfg_tab_scan_bool(const char *s, int *out)
{
    static const char *const yes[] = {"1",  "true", "True", "TRUE", "on", "On",
                                      "ON", "yes",  "Yes",  "YES",  NULL};
    static const char *const no[] = {"0",   "false", "False", "FALSE", "off", "Off",
                                     "OFF", "no",    "No",    "NO",    NULL};
    for (int i = 0; yes[i]; i++) {
        if (strcmp(s, yes[i]) == 0)
            return *out = 1, 0;
    }
    for (int i = 0; no[i]; i++) {
        if (strcmp(s, no[i]) == 0)
            return *out = 0, 0;
    }
    return -1;
}

/* One field of a time: 1..9 digits (so the sum cannot overflow). */
static int scan_field(const char **p, long long *out)
{
    const char *s = *p;
    long long v = 0;
    int n = 0;
    while (*s >= '0' && *s <= '9') {
        if (++n > 9)
            return -1;
        v = v * 10 + (*s++ - '0');
    }
    if (n == 0)
        return -1;
    *p = s;
    *out = v;
    return 0;
}

/*
 * [[[DD:]HH:]MM:]SS as MUTimeFromString reads it: no ':' is seconds (a sign
 * allowed, for the -1 "no limit" values), and exactly two fields are HH:MM,
 * not MM:SS — `1:30` is 5400 s.
 */
int cfg_tab_scan_time(const char *s, long *out)
{
    if (strcmp(s, "INFINITY") == 0)
        return *out = CFG_TIME_INFINITY, 0;
    if (!strchr(s, ':')) {
        long long v = 0;
        if (cfg_tab_scan_int(s, &v) < 0 || v > CFG_TIME_INFINITY || v < -CFG_TIME_INFINITY)
            return -1;
        return *out = (long)v, 0;
    }
    long long f[4];
    int n = 0;
    const char *p = s;
    for (;;) {
        if (n == 4 || scan_field(&p, &f[n++]) < 0)
            return -1;
        if (*p == '\0')
            break;
        if (*p++ != ':')
            return -1;
    }
    static const long long unit2[] = {3600, 60};
    static const long long unit3[] = {3600, 60, 1};
    static const long long unit4[] = {86400, 3600, 60, 1};
    const long long *unit = n == 2 ? unit2 : n == 3 ? unit3 : unit4;
    long long v = 0;
    for (int i = 0; i < n; i++)
        v += f[i] * unit[i];
    *out = (long)v;
    return 0;
}

static int scan_limit_part(const char *s, int time, long long *out)
{
    if (!time)
        return cfg_tab_scan_int(s, out);
    long t = 0;
    if (cfg_tab_scan_time(s, &t) < 0)
        return -1;
    *out = t;
    return 0;
}

/* N or SOFT,HARD; each part >= -1 (-1 = unlimited). */
int cfg_tab_scan_limit(const char *s, int time, long long *soft, long long *hard)
{
    char buf[128];
    if (strlen(s) >= sizeof buf)
        return -1;
    strcpy(buf, s);
    char *comma = strchr(buf, ',');
    if (comma)
        *comma = '\0';
    long long a, b;
    if (scan_limit_part(buf, time, &a) < 0 || a < -1)
        return -1;
    b = a;
    if (comma && (scan_limit_part(comma + 1, time, &b) < 0 || b < -1))
        return -1;
    *soft = a;
    *hard = b;
    return 0;
}

int cfg_tab_scan_share(const char *s, double *v, int *percent)
{
    char buf[64];
    size_t n = strlen(s);
    *percent = n > 0 && s[n - 1] == '%';
    if (n >= sizeof buf || n < 1 + (size_t)*percent)
        return -1;
    memcpy(buf, s, n - (size_t)*percent);
    buf[n - (size_t)*percent] = '\0';
    if (*percent) {
        if (cfg_tab_scan_double(buf, v) < 0 || *v < 0 || *v > 100)
            return -1;
        return 0;
    }
    long long i = 0;
    if (cfg_tab_scan_int(buf, &i) < 0 || i < 0)
        return -1;
    *v = (double)i;
    return 0;
}

/* ---------------------------------------------------------- public parsers */

int cfg_parse_time(const char *s, long *out, struct err *err)
{
    if (cfg_tab_scan_time(s, out) < 0)
        return err_set(err, "invalid time '%s' (expected [[[DD:]HH:]MM:]SS or INFINITY)", s);
    return 0;
}

int cfg_parse_bool(const char *s, int *out, struct err *err)
{
    if (cfg_tab_scan_bool(s, out) < 0)
        return err_set(err, "invalid boolean '%s' (expected TRUE/FALSE, ON/OFF, YES/NO or 1/0)", s);
    return 0;
}

int cfg_parse_int(const char *s, long long min, long long max, long long *out, struct err *err)
{
    long long v = 0;
    if (cfg_tab_scan_int(s, &v) < 0)
        return err_set(err, "invalid integer '%s'", s);
    if (v < min || v > max)
        return err_set(err, "value %s out of range (%lld..%lld)", s, min, max);
    *out = v;
    return 0;
}

int cfg_parse_double(const char *s, double min, double max, double *out, struct err *err)
{
    double v = 0;
    if (cfg_tab_scan_double(s, &v) < 0)
        return err_set(err, "invalid number '%s'", s);
    if (v < min || v > max)
        return err_set(err, "value %s out of range (%g..%g)", s, min, max);
    *out = v;
    return 0;
}

int cfg_parse_limit(const char *s, int time, long long *soft, long long *hard, struct err *err)
{
    if (cfg_tab_scan_limit(s, time, soft, hard) < 0)
        return err_set(err, "invalid limit '%s' (expected N or SOFT,HARD%s; -1 = unlimited)", s,
                       time ? ", each [[[DD:]HH:]MM:]SS" : " integers");
    /* Maui raises a hard limit below the soft one to it, silently; a site
     * that wrote them the wrong way round, or wrote 72,000 for 72000, gets
     * a limit it did not mean. Say so instead. */
    const char *comma = strchr(s, ',');
    if (comma && *soft > 0 && *hard >= 0 && *hard < *soft) {
        size_t digits = strspn(comma + 1, "0123456789");
        return err_set(err, "limit '%s': the soft limit (first) is above the hard limit (second)%s",
                       s,
                       !time && digits == 3 && !comma[4] ? "; for a thousands separator write the "
                                                           "number without it"
                                                         : "");
    }
    return 0;
}

/* ---------------------------------------------------------- attribute tables */

#define A(n, t)                                                                                    \
    {                                                                                              \
        n, {NULL, NULL, NULL}, t, -BIG, BIG, NULL                                                  \
    }
#define AN(n, t)                                                                                   \
    {                                                                                              \
        n, {NULL, NULL, NULL}, t, 0, BIG, NULL                                                     \
    } /* non-negative */
#define AL(n, a1, a2, t)                                                                           \
    {                                                                                              \
        n, {a1, a2, NULL}, t, 0, BIG, NULL                                                         \
    }
#define AE(n, ch)                                                                                  \
    {                                                                                              \
        n, {NULL, NULL, NULL}, CFG_A_ENUM, 0, 0, ch                                                \
    }
#define END                                                                                        \
    {                                                                                              \
        NULL, {NULL, NULL, NULL}, CFG_A_STRING, 0, 0, NULL                                         \
    }

static const char *const ch_nstate[] = {"Idle", "Down", "Drained", NULL};
/* SRCFG TIMELOGIC (SRTIMELOGIC): AND makes TIMELIMIT/MAXTIME required. */
static const char *const ch_srtimelogic[] = {"AND", "OR", NULL};
static const char *const ch_access[] = {"SHARED", "SINGLEJOB", "SINGLETASK", "SINGLEUSER", NULL};
static const char *const ch_period[] = {"DAY", "WEEK", "INFINITY", NULL};
static const char *const ch_sraccess[] = {"DEDICATED", "SHARED", NULL};

/* NODECFG (MNodeAttr): resources in MB, RC* = configured, RA* = available. */
static const struct cfg_attr_def node_attrs[] = {
    AL("PROCS", "RCPROC", NULL, CFG_A_INT),
    AL("MEMORY", "MEM", "RCMEM", CFG_A_INT),
    AL("SWAP", "RCSWAP", NULL, CFG_A_INT),
    AL("DISK", "RCDISK", NULL, CFG_A_INT),
    AN("RAPROC", CFG_A_INT),
    AN("RAMEM", CFG_A_INT),
    AN("RASWAP", CFG_A_INT),
    AN("RADISK", CFG_A_INT),
    A("FEATURES", CFG_A_LIST),
    A("PARTITION", CFG_A_STRING),
    AE("STATE", ch_nstate),
    AE("ACCESS", ch_access),
    A("ARCH", CFG_A_STRING),
    A("OS", CFG_A_STRING),
    A("NETWORK", CFG_A_LIST),
    AN("MAXJOB", CFG_A_INT),
    AN("MAXJOBPERUSER", CFG_A_INT),
    AN("MAXLOAD", CFG_A_DOUBLE),
    AN("MAXPEPERJOB", CFG_A_INT),
    AN("MAXPROC", CFG_A_INT),
    A("PRIORITY", CFG_A_INT),
    A("PRIORITYF", CFG_A_STRING),
    AN("PROCSPEED", CFG_A_INT),
    AN("SPEED", CFG_A_DOUBLE),
    AN("SLOT", CFG_A_INT),
    AN("FRAME", CFG_A_INT),
    A("NODETYPE", CFG_A_STRING),
    END,
};

/* Every credential kind (MCredAttr) plus the throttling limits of digest §3.1. */
static const struct cfg_attr_def cred_attrs[] = {
    A("PRIORITY", CFG_A_INT),
    A("FSTARGET", CFG_A_FSTARGET),
    A("QLIST", CFG_A_STRING),
    A("QDEF", CFG_A_STRING),
    A("PLIST", CFG_A_STRING),
    A("PDEF", CFG_A_STRING),
    A("ALIST", CFG_A_STRING),
    A("ADEF", CFG_A_STRING),
    AL("JOBFLAGS", "FLAGS", NULL, CFG_A_LIST),
    AN("OVERRUN", CFG_A_TIME),
    AN("MAX.WCLIMIT", CFG_A_TIME),
    AN("DEFAULT.WCLIMIT", CFG_A_TIME),
    A("MAXNODEPERJOB", CFG_A_INT),
    A("MAXPROCPERJOB", CFG_A_INT),
    A("MAXJOB", CFG_A_LIMIT),
    A("MAXIJOB", CFG_A_LIMIT),
    AN("MAXSUBMITJOBS", CFG_A_INT),
    A("MAXPROC", CFG_A_LIMIT),
    A("MAXIPROC", CFG_A_LIMIT),
    A("MAXNODE", CFG_A_LIMIT),
    A("MAXINODE", CFG_A_LIMIT),
    A("MAXPS", CFG_A_LIMIT),
    A("MAXIPS", CFG_A_LIMIT),
    A("MAXPE", CFG_A_LIMIT),
    A("MAXIPE", CFG_A_LIMIT),
    A("MAXWC", CFG_A_TLIMIT),
    A("MAXIWC", CFG_A_TLIMIT),
    A("MAXMEM", CFG_A_LIMIT),
    A("MAXIMEM", CFG_A_LIMIT),
    A("MINPROC", CFG_A_LIMIT),
    A("OMAXJOB", CFG_A_LIMIT),
    A("OMAXIJOB", CFG_A_LIMIT),
    A("OMAXPROC", CFG_A_LIMIT),
    A("OMAXIPROC", CFG_A_LIMIT),
    A("OMAXJPROC", CFG_A_LIMIT),
    A("OMAXNODE", CFG_A_LIMIT),
    A("OMAXINODE", CFG_A_LIMIT),
    A("OMAXJNODE", CFG_A_LIMIT),
    A("OMAXPS", CFG_A_LIMIT),
    A("OMAXIPS", CFG_A_LIMIT),
    A("OMAXJPS", CFG_A_LIMIT),
    A("OMAXPE", CFG_A_LIMIT),
    A("OMAXIPE", CFG_A_LIMIT),
    A("OMAXJPE", CFG_A_LIMIT),
    A("OMAXWC", CFG_A_TLIMIT),
    A("OMAXIWC", CFG_A_TLIMIT),
    A("OMAXJWC", CFG_A_TLIMIT),
    A("OMAXMEM", CFG_A_LIMIT),
    A("OMAXIMEM", CFG_A_LIMIT),
    A("MAXJOBPERUSER", CFG_A_LIMIT),
    A("MAXPROCPERUSER", CFG_A_LIMIT),
    A("MAXNODEPERUSER", CFG_A_LIMIT),
    END,
};

static const struct cfg_attr_def qos_attrs[] = {
    A("QTWEIGHT", CFG_A_INT),     A("XFWEIGHT", CFG_A_INT), AN("QTTARGET", CFG_A_TIME),
    AN("XFTARGET", CFG_A_DOUBLE), A("QFLAGS", CFG_A_LIST),  END,
};

static const struct cfg_attr_def class_attrs[] = {
    A("DEFAULT.FEATURES", CFG_A_LIST),
    A("HOSTLIST", CFG_A_LIST),
    AE("NODEACCESSPOLICY", ch_access),
    AN("MAXPROCPERNODE", CFG_A_INT),
    A("STATE", CFG_A_STRING),
    AN("WCOVERRUN", CFG_A_TIME),
    A("OCNODE", CFG_A_STRING),
    AN("OCDPROCFACTOR", CFG_A_DOUBLE),
    END,
};

static const struct cfg_attr_def group_attrs[] = {
    A("CLASSWEIGHT", CFG_A_INT),
    END,
};

/* SRCFG (MSRProcessConfig, digest §6.2). TIMELIMIT/MAXTIME/PROCLIMIT/TASKLIMIT
 * are ACL entries that may carry '*' or comparison marks, so they stay text. */
static const struct cfg_attr_def sr_attrs[] = {
    AE("PERIOD", ch_period),
    AN("DEPTH", CFG_A_INT),
    A("DAYS", CFG_A_LIST),
    AN("STARTTIME", CFG_A_TIME),
    AN("ENDTIME", CFG_A_TIME),
    AN("WSTARTTIME", CFG_A_TIME),
    AN("WENDTIME", CFG_A_TIME),
    AN("TASKCOUNT", CFG_A_INT),
    A("RESOURCES", CFG_A_STRING),
    AN("TPN", CFG_A_INT),
    A("HOSTLIST", CFG_A_LIST),
    A("NODEFEATURES", CFG_A_LIST),
    A("PARTITION", CFG_A_STRING),
    A("USERLIST", CFG_A_LIST),
    A("GROUPLIST", CFG_A_LIST),
    A("ACCOUNTLIST", CFG_A_LIST),
    A("CLASSLIST", CFG_A_LIST),
    A("QOSLIST", CFG_A_LIST),
    A("JOBATTRLIST", CFG_A_LIST),
    A("TIMELIMIT", CFG_A_STRING),
    A("MAXTIME", CFG_A_STRING),
    A("PROCLIMIT", CFG_A_STRING),
    A("TASKLIMIT", CFG_A_STRING),
    AE("ACCESS", ch_sraccess),
    A("FLAGS", CFG_A_LIST),
    A("PRIORITY", CFG_A_INT),
    A("CHARGEACCOUNT", CFG_A_STRING),
    A("OWNER", CFG_A_STRING),
    AN("IDLETIME", CFG_A_TIME),
    AE("TIMELOGIC", ch_srtimelogic),
    A("TRIGGER", CFG_A_STRING),
    END,
};

/* Kinds and the tables they draw from; NULL tables = open kind. An alias is
 * another spelling of the same kind: the Admin Guide writes ACCTCFG in its
 * standing reservation examples, where the parameter table says ACCOUNTCFG. */
static const struct kind {
    const char *name;
    const char *alias; /* or NULL */
    const struct cfg_attr_def *tab[3];
} kinds[] = {
    {"USERCFG", NULL, {cred_attrs, NULL, NULL}},
    {"GROUPCFG", NULL, {cred_attrs, group_attrs, NULL}},
    {"ACCOUNTCFG", "ACCTCFG", {cred_attrs, NULL, NULL}},
    {"CLASSCFG", NULL, {cred_attrs, class_attrs, NULL}},
    {"QOSCFG", NULL, {cred_attrs, qos_attrs, NULL}},
    {"SYSCFG", NULL, {cred_attrs, NULL, NULL}},
    {"NODECFG", NULL, {node_attrs, NULL, NULL}},
    {"SRCFG", NULL, {sr_attrs, NULL, NULL}},
    {"RMCFG", NULL, {NULL, NULL, NULL}},
    {"AMCFG", NULL, {NULL, NULL, NULL}},
    {"CLIENTCFG", NULL, {NULL, NULL, NULL}},
};

static const struct kind *kind_find(const char *word)
{
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        const struct kind *k = &kinds[i];
        if (strcmp(k->name, word) == 0 || (k->alias && strcmp(k->alias, word) == 0))
            return k;
    }
    return NULL;
}

const char *cfg_tab_kind(const char *word)
{
    const struct kind *k = kind_find(word);
    return k ? k->name : NULL;
}

static int def_matches(const struct cfg_attr_def *d, const char *attr)
{
    if (strcmp(d->name, attr) == 0)
        return 1;
    for (int i = 0; i < 3 && d->alias[i]; i++) {
        if (strcmp(d->alias[i], attr) == 0)
            return 1;
    }
    return 0;
}

const struct cfg_attr_def *cfg_tab_attr(const char *kind, const char *attr, int *open)
{
    const struct kind *k = kind_find(kind);
    *open = k && !k->tab[0];
    if (!k)
        return NULL;
    for (int t = 0; t < 3 && k->tab[t]; t++) {
        for (const struct cfg_attr_def *d = k->tab[t]; d->name; d++) {
            if (def_matches(d, attr))
                return d;
        }
    }
    return NULL;
}

/* ---------------------------------------------------------- attribute checks */

static int check_enum(const struct cfg_attr_def *d, const char *v, char *expect, size_t size)
{
    for (int i = 0; d->choices[i]; i++) {
        if (strcasecmp(d->choices[i], v) == 0)
            return 0;
    }
    size_t len = (size_t)snprintf(expect, size, "one of:");
    for (int i = 0; d->choices[i] && len < size; i++)
        len += (size_t)snprintf(expect + len, size - len, "%s %s", i ? "," : "", d->choices[i]);
    return -1;
}

static int check_fstarget(const char *v)
{
    char buf[64];
    size_t n = strlen(v);
    if (n == 0 || n >= sizeof buf)
        return -1;
    strcpy(buf, v);
    if (strchr("+-^%", buf[n - 1]))
        buf[n - 1] = '\0';
    double d = 0;
    return cfg_tab_scan_double(buf, &d) < 0 || d < 0 ? -1 : 0;
}

static void expect_number(const struct cfg_attr_def *d, const char *what, char *expect, size_t size)
{
    if (d->min >= 0)
        snprintf(expect, size, "%s >= %g", what, d->min);
    else
        snprintf(expect, size, "%s", what);
}

int cfg_tab_check_attr(const struct cfg_attr_def *d, const char *v, char *expect, size_t size)
{
    long long i, s, h;
    double x = 0;
    long t;
    int b = 0;
    switch (d->type) {
    case CFG_A_INT:
        expect_number(d, "an integer", expect, size);
        return cfg_tab_scan_int(v, &i) < 0 || i < d->min || i > d->max ? -1 : 0;
    case CFG_A_DOUBLE:
        expect_number(d, "a number", expect, size);
        return cfg_tab_scan_double(v, &x) < 0 || x < d->min || x > d->max ? -1 : 0;
    case CFG_A_BOOL:
        snprintf(expect, size, "a boolean: TRUE/FALSE, ON/OFF, YES/NO or 1/0");
        return cfg_tab_scan_bool(v, &b);
    case CFG_A_TIME:
        snprintf(expect, size, "a time [[[DD:]HH:]MM:]SS%s", d->min >= 0 ? " >= 0" : "");
        return cfg_tab_scan_time(v, &t) < 0 || t < d->min ? -1 : 0;
    case CFG_A_LIMIT:
        snprintf(expect, size, "a limit N or SOFT,HARD; integers, -1 = unlimited");
        return cfg_tab_scan_limit(v, 0, &s, &h);
    case CFG_A_TLIMIT:
        snprintf(expect, size, "a limit N or SOFT,HARD; each [[[DD:]HH:]MM:]SS, -1 = unlimited");
        return cfg_tab_scan_limit(v, 1, &s, &h);
    case CFG_A_ENUM:
        return check_enum(d, v, expect, size);
    case CFG_A_FSTARGET:
        snprintf(expect, size, "a number >= 0, optionally followed by +, -, ^ or %%");
        return check_fstarget(v);
    case CFG_A_STRING:
    case CFG_A_LIST:
        break;
    }
    return 0;
}

/* ------------------------------------------------------- enumerating kinds */

const char *cfg_kind_at(size_t i, const char **alias)
{
    if (i >= sizeof kinds / sizeof kinds[0])
        return NULL;
    *alias = kinds[i].alias;
    return kinds[i].name;
}

/* The accepted form of d's values: cfg_tab_check_attr's message for a value
 * that fits no form (the empty text is refused by every checked type). */
static void attr_syntax(const struct cfg_attr_def *d, char *syntax, size_t n)
{
    static const char *const free_text[] = {
        [CFG_A_STRING] = "text", [CFG_A_LIST] = "a list of words"};
    if (d->type == CFG_A_STRING || d->type == CFG_A_LIST) {
        snprintf(syntax, n, "%s", free_text[d->type]);
        return;
    }
    syntax[0] = '\0';
    (void)cfg_tab_check_attr(d, "", syntax, n);
}

const char *cfg_kind_attr_at(const char *kind, size_t j, char *aliases, char *syntax, size_t n)
{
    const struct kind *k = kind_find(kind);
    if (!k)
        return NULL;
    for (int t = 0; t < 3 && k->tab[t]; t++) {
        for (const struct cfg_attr_def *d = k->tab[t]; d->name; d++) {
            if (j-- > 0)
                continue;
            size_t len = 0;
            aliases[0] = '\0';
            for (int a = 0; a < 3 && d->alias[a] && len < n; a++)
                len += (size_t)snprintf(aliases + len, n - len, "%s%s", a ? ", " : "", d->alias[a]);
            attr_syntax(d, syntax, n);
            return d->name;
        }
    }
    return NULL;
}
