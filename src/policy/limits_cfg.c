/*
 * limits_cfg — the throttling limits of maui.cfg (digest §3.1, §10), read
 * into a struct lim_conf. Part of the limits module.
 *
 * Read, in Maui's load order (later wins): the legacy 3.0 parameters
 * (MAXJOBPERUSERCOUNT ..., into the DEFAULT objects), the SYSTEMMAX*
 * parameters, then every USERCFG/GROUPCFG/ACCOUNTCFG/CLASSCFG/QOSCFG/SYSCFG
 * attribute in file order, then the QOS flags (QFLAGS, legacy QOSFLAGS[q]).
 * cfg has already checked each value's syntax; what is refused here is what
 * cfg cannot know: indices and attributes that make no sense on an object.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cfg/cfg.h"
#include "policy/limits_int.h"
#include "util/mem.h"

/* ------------------------------------------------------------- the conf */

static void obj_free(struct lim_obj *o)
{
    for (int i = 0; i < LIM_NINNER; i++) {
        for (size_t n = 0; n < o->nnamed[i]; n++) {
            free(o->named[i][n]->name);
            free(o->named[i][n]);
        }
        free(o->named[i]);
        strmap_free(&o->byname[i]);
    }
    free(o->name);
}

static void obj_init(struct lim_obj *o, const char *name)
{
    memset(o, 0, sizeof *o);
    o->name = xstrdup(name);
    for (int i = 0; i < LIM_NINNER; i++)
        strmap_init(&o->byname[i]);
}

struct lim_conf *limits_conf_create(void)
{
    struct lim_conf *c = xcalloc(1, sizeof *c);
    for (int k = 0; k < CRED_NKINDS; k++)
        strmap_init(&c->byname[k]);
    obj_init(&c->sys, "ALL");
    return c;
}

void limits_conf_destroy(struct lim_conf *c)
{
    if (!c)
        return;
    for (int k = 0; k < CRED_NKINDS; k++) {
        for (size_t i = 0; i < c->nobjs[k]; i++) {
            obj_free(c->objs[k][i]);
            free(c->objs[k][i]);
        }
        free(c->objs[k]);
        strmap_free(&c->byname[k]);
    }
    obj_free(&c->sys);
    free(c);
}

const struct lim_obj *limits_conf_find(const struct lim_conf *c, enum cred_kind k, const char *name)
{
    size_t i;
    if (!name || !*name)
        name = "DEFAULT";
    return strmap_get(&c->byname[k], name, &i) ? c->objs[k][i] : NULL;
}

static struct lim_obj *obj_get(struct lim_conf *c, enum cred_kind k, const char *name)
{
    size_t i;
    if (!name || !*name)
        name = "DEFAULT";
    if (strmap_get(&c->byname[k], name, &i))
        return c->objs[k][i];
    struct lim_obj *o = xmalloc(sizeof *o);
    obj_init(o, name);
    c->objs[k] = xgrow(c->objs[k], &c->capobjs[k], c->nobjs[k] + 1, sizeof *c->objs[k]);
    c->objs[k][c->nobjs[k]] = o;
    strmap_put(&c->byname[k], o->name, c->nobjs[k]++);
    return o;
}

static struct lim_set *named_get(struct lim_obj *o, enum lim_inner in, const char *name)
{
    size_t i;
    if (strmap_get(&o->byname[in], name, &i))
        return &o->named[in][i]->set;
    struct lim_named *n = xcalloc(1, sizeof *n);
    n->name = xstrdup(name);
    o->named[in] = xgrow(o->named[in], &o->capnamed[in], o->nnamed[in] + 1, sizeof *o->named[in]);
    o->named[in][o->nnamed[in]] = n;
    strmap_put(&o->byname[in], n->name, o->nnamed[in]++);
    return &n->set;
}

/*
 * Store SOFT,HARD so that the soft limit is never looser than the hard one
 * (the scheduler passes a job at SOFT level first and must not start what
 * HARD refuses). As Maui's MCfgEnforceConstraints: a missing half takes the
 * other's value. Maui also raises a hard limit below the soft one to it;
 * moku refuses that when it is written (cfg_parse_limit: 72,000 is not
 * 72000), so here it can only come from a legacy SMAX/MAX pair. Beyond
 * Maui: an unlimited (-1) soft half under a positive hard one becomes the
 * hard value.
 */
static void set_val(struct lim_val *v, long long soft, long long hard)
{
    if (soft == 0)
        soft = hard;
    if (hard == 0)
        hard = soft;
    if (soft > 0 && hard > 0 && hard < soft)
        hard = soft;
    if (soft == -1 && hard > 0)
        soft = hard;
    v->soft = soft;
    v->hard = hard;
}

/* -------------------------------------------------------- error messages */

static int attr_err(const struct cfg_obj *o, const struct cfg_attr *a, const char *what,
                    struct err *err)
{
    const char *open = *o->name ? "[" : "", *close = *o->name ? "]" : "";
    const char *iopen = a->index ? "[" : "", *iclose = a->index ? "]" : "";
    return err_set(err, "%s:%d: %s%s%s%s %s%s%s%s: %s", a->file, a->line, o->kind, open, o->name,
                   close, a->name, iopen, a->index ? a->index : "", iclose, what);
}

/* --------------------------------------------------------- attribute names */

/* The usage limits: MAXJOB ... MAXIMEM; OMAX<x> is the QOS override of MAX<x>. */
static const struct {
    const char *name;
    enum lim_mode mode;
    enum lim_type type;
} usage_attrs[] = {
    {"MAXJOB", LIM_ACTIVE, LIM_JOB},   {"MAXIJOB", LIM_IDLE, LIM_JOB},
    {"MAXPROC", LIM_ACTIVE, LIM_PROC}, {"MAXIPROC", LIM_IDLE, LIM_PROC},
    {"MAXNODE", LIM_ACTIVE, LIM_NODE}, {"MAXINODE", LIM_IDLE, LIM_NODE},
    {"MAXPS", LIM_ACTIVE, LIM_PS},     {"MAXIPS", LIM_IDLE, LIM_PS},
    {"MAXPE", LIM_ACTIVE, LIM_PE},     {"MAXIPE", LIM_IDLE, LIM_PE},
    {"MAXWC", LIM_ACTIVE, LIM_WC},     {"MAXIWC", LIM_IDLE, LIM_WC},
    {"MAXMEM", LIM_ACTIVE, LIM_MEM},   {"MAXIMEM", LIM_IDLE, LIM_MEM},
};

/* QOS per-job overrides of the system limits. */
static const struct {
    const char *name;
    enum lim_type type;
} job_over_attrs[] = {
    {"OMAXJPROC", LIM_PROC}, {"OMAXJNODE", LIM_NODE}, {"OMAXJPS", LIM_PS},
    {"OMAXJPE", LIM_PE},     {"OMAXJWC", LIM_WC},
};

/* Per-user limits inside a class or QOS (active). */
static const struct {
    const char *name;
    enum lim_type type;
} peruser_attrs[] = {
    {"MAXJOBPERUSER", LIM_JOB}, {"MAXPROCPERUSER", LIM_PROC}, {"MAXNODEPERUSER", LIM_NODE}};

/* Per-job limits of any credential. */
static const struct {
    const char *name;
    enum lim_type type;
} perjob_attrs[] = {
    {"MAX.WCLIMIT", LIM_WC}, {"MAXPROCPERJOB", LIM_PROC}, {"MAXNODEPERJOB", LIM_NODE}};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static int usage_attr(const char *name, enum lim_mode *m, enum lim_type *t)
{
    for (size_t i = 0; i < NELEM(usage_attrs); i++) {
        if (strcmp(name, usage_attrs[i].name) == 0) {
            *m = usage_attrs[i].mode;
            *t = usage_attrs[i].type;
            return 1;
        }
    }
    return 0;
}

/* ------------------------------------------------------------ attributes */

/* Which kind an object line describes; -1 for SYSCFG, -2 for the others. */
static int kind_of(const char *kind)
{
    static const char *const names[CRED_NKINDS] = {"USERCFG", "GROUPCFG", "ACCOUNTCFG", "CLASSCFG",
                                                   "QOSCFG"};
    for (int k = 0; k < CRED_NKINDS; k++)
        if (strcmp(kind, names[k]) == 0)
            return k;
    return strcmp(kind, "SYSCFG") == 0 ? -1 : -2;
}

/* Whether objects of kind `outer` (-1: SYSCFG) may limit their `in`. */
static int pair_ok(int outer, enum lim_inner in)
{
    if (outer == CRED_GROUP)
        return in == LIM_IN_USER;
    return outer == CRED_ACCOUNT || outer == CRED_CLASS || outer == CRED_QOS;
}

/* USER, USER:<name>, GROUP or GROUP:<name>; *name NULL for the first form. */
static int parse_index(const char *idx, enum lim_inner *in, const char **name)
{
    size_t n = strcspn(idx, ":");
    if (n == 4 && strncasecmp(idx, "USER", 4) == 0)
        *in = LIM_IN_USER;
    else if (n == 5 && strncasecmp(idx, "GROUP", 5) == 0)
        *in = LIM_IN_GROUP;
    else
        return -1;
    *name = idx[n] == ':' ? idx + n + 1 : NULL;
    return *name && !**name ? -1 : 0;
}

static int parse_limit(const struct cfg_obj *co, const struct cfg_attr *a, enum lim_type t,
                       long long *soft, long long *hard, struct err *err)
{
    struct err e;
    if (cfg_parse_limit(a->value, t == LIM_WC, soft, hard, &e) < 0)
        return attr_err(co, a, e.msg, err);
    return 0;
}

/* MAXJOB[USER]=..., MAXJOB[GROUP:name]=...; index is a->index, or "USER"
 * for MAXJOBPERUSER=... */
static int set_pair(struct lim_conf *c, int kind, struct lim_obj *o, const struct cfg_obj *co,
                    const struct cfg_attr *a, const char *index, enum lim_mode m, enum lim_type t,
                    struct err *err)
{
    enum lim_inner in;
    const char *name;
    long long s, h;
    if (parse_index(index, &in, &name) < 0)
        return attr_err(
            co, a, "unsupported index (expected USER, USER:<name>, GROUP or GROUP:<name>)", err);
    if (!pair_ok(kind, in))
        return attr_err(co, a,
                        in == LIM_IN_USER ? "per-user limits apply within GROUPCFG, ACCOUNTCFG, "
                                            "CLASSCFG and QOSCFG only"
                                          : "per-group limits apply within ACCOUNTCFG, CLASSCFG "
                                            "and QOSCFG only",
                        err);
    if (parse_limit(co, a, t, &s, &h, err) < 0)
        return -1;
    struct lim_set *set = name ? named_get(o, in, name) : &o->inner[in];
    set_val(&set->v[m][t], s, h);
    c->pairs |= 1u << (kind * LIM_NINNER + in);
    return 0;
}

static int set_usage_attr(struct lim_conf *c, int kind, struct lim_obj *o, const struct cfg_obj *co,
                          const struct cfg_attr *a, struct err *err)
{
    enum lim_mode m;
    enum lim_type t;
    long long s, h;
    int over = a->name[0] == 'O';
    if (!usage_attr(a->name + over, &m, &t))
        return 0;
    if (over && kind != CRED_QOS)
        return attr_err(co, a, "override limits apply to QOSCFG only", err);
    if (a->index && over)
        return attr_err(co, a, "override limits take no index", err);
    if (a->index)
        return set_pair(c, kind, o, co, a, a->index, m, t, err) < 0 ? -1 : 1;
    if (parse_limit(co, a, t, &s, &h, err) < 0)
        return -1;
    set_val(over ? &o->over.v[m][t] : &o->own.v[m][t], s, h);
    return 1;
}

/* A per-job value: one number (the hard half of a limit), -1 unlimited. */
static int set_job_value(const struct cfg_obj *co, const struct cfg_attr *a, enum lim_type t,
                         long long *out, struct err *err)
{
    long long s, h;
    long v = 0;
    struct err e;
    if (a->index)
        return attr_err(co, a, "takes no index", err);
    if (t == LIM_WC && strcmp(a->name, "MAX.WCLIMIT") == 0) {
        if (cfg_parse_time(a->value, &v, &e) < 0)
            return attr_err(co, a, e.msg, err);
        h = v;
    } else if (parse_limit(co, a, t, &s, &h, err) < 0) {
        return -1;
    }
    if (h < -1)
        return attr_err(co, a, "invalid value (expected a positive limit, 0 or -1 = unlimited)",
                        err);
    *out = h;
    return 1;
}

static int set_other_attr(struct lim_conf *c, int kind, struct lim_obj *o, const struct cfg_obj *co,
                          const struct cfg_attr *a, struct err *err)
{
    for (size_t i = 0; i < NELEM(perjob_attrs); i++)
        if (strcmp(a->name, perjob_attrs[i].name) == 0)
            return set_job_value(co, a, perjob_attrs[i].type, &o->per_job[perjob_attrs[i].type],
                                 err);
    for (size_t i = 0; i < NELEM(job_over_attrs); i++) {
        if (strcmp(a->name, job_over_attrs[i].name) != 0)
            continue;
        if (kind != CRED_QOS)
            return attr_err(co, a, "override limits apply to QOSCFG only", err);
        return set_job_value(co, a, job_over_attrs[i].type, &o->over_job[job_over_attrs[i].type],
                             err);
    }
    for (size_t i = 0; i < NELEM(peruser_attrs); i++) {
        if (strcmp(a->name, peruser_attrs[i].name) != 0)
            continue;
        if (a->index)
            return attr_err(co, a, "takes no index", err);
        /* MAXJOBPERUSER=n is MAXJOB[USER]=n */
        if (set_pair(c, kind, o, co, a, "USER", LIM_ACTIVE, peruser_attrs[i].type, err) < 0)
            return -1;
        return 1;
    }
    return 0;
}

/* QOS flags (Maui matches their names as substrings of the QFLAGS value). */
static void apply_qflags(struct lim_obj *q, const char *text)
{
    static const struct {
        const char *flag;
        enum lim_mode mode;
        enum lim_type type;
    } peruser[] = {
        {"IGNJOBPERUSER", LIM_ACTIVE, LIM_JOB},     {"IGNPROCPERUSER", LIM_ACTIVE, LIM_PROC},
        {"IGNNODEPERUSER", LIM_ACTIVE, LIM_NODE},   {"IGNPSPERUSER", LIM_ACTIVE, LIM_PS},
        {"IGNJOBQUEUEDPERUSER", LIM_IDLE, LIM_JOB},
    };
    if (!text)
        return;
    for (size_t i = 0; i < NELEM(peruser); i++)
        if (strstr(text, peruser[i].flag))
            set_val(&q->over_user.v[peruser[i].mode][peruser[i].type], -1, -1);
    if (strstr(text, "IGNSYSMAXPROC"))
        q->over_job[LIM_PROC] = q->over_job[LIM_NODE] = -1;
    if (strstr(text, "IGNSYSMAXTIME"))
        q->over_job[LIM_WC] = -1;
    if (strstr(text, "IGNSYSMAXPS"))
        q->over_job[LIM_PS] = -1;
    if (strstr(text, "IGNALL"))
        q->ignall = 1;
}

static int load_attr(struct lim_conf *c, int kind, struct lim_obj *o, const struct cfg_obj *co,
                     const struct cfg_attr *a, struct err *err)
{
    int rc = set_usage_attr(c, kind, o, co, a, err);
    if (rc == 0)
        rc = set_other_attr(c, kind, o, co, a, err);
    if (rc == 0 && kind == CRED_QOS && strcmp(a->name, "QFLAGS") == 0)
        apply_qflags(o, a->value);
    return rc < 0 ? -1 : 0;
}

static int load_objects(struct lim_conf *c, const struct cfg *cfg, struct err *err)
{
    for (size_t i = 0; i < cfg_nobjs(cfg); i++) {
        const struct cfg_obj *co = cfg_obj_at(cfg, i);
        int kind = kind_of(co->kind);
        if (kind == -2)
            continue;
        struct lim_obj *o = kind == -1 ? &c->sys : obj_get(c, (enum cred_kind)kind, co->name);
        for (size_t n = 0; n < co->nattrs; n++)
            if (load_attr(c, kind, o, co, &co->attrs[n], err) < 0)
                return -1;
    }
    return 0;
}

/* ------------------------------------------------------------- parameters */

/*
 * The legacy 3.0 triples <X>PER<Y>: MAX<X>PER<Y>COUNT is the hard limit
 * (or SOFT,HARD), SMAX<X>PER<Y>COUNT the soft one, MAX<X>PER<Y>POLICY OFF
 * turns the pair off (when not given, a COUNT alone applies, as in Maui
 * 3.2's MSchedProcessOConfig). They set the DEFAULT object's limits.
 */
static const struct {
    const char *x, *y;
    enum cred_kind kind;
    enum lim_mode mode;
    enum lim_type type;
} legacy[] = {
    {"JOB", "USER", CRED_USER, LIM_ACTIVE, LIM_JOB},
    {"PROC", "USER", CRED_USER, LIM_ACTIVE, LIM_PROC},
    {"NODE", "USER", CRED_USER, LIM_ACTIVE, LIM_NODE},
    {"PE", "USER", CRED_USER, LIM_ACTIVE, LIM_PE},
    {"PROCSECOND", "USER", CRED_USER, LIM_ACTIVE, LIM_PS},
    {"JOBQUEUED", "USER", CRED_USER, LIM_IDLE, LIM_JOB},
    {"JOB", "GROUP", CRED_GROUP, LIM_ACTIVE, LIM_JOB},
    {"PROC", "GROUP", CRED_GROUP, LIM_ACTIVE, LIM_PROC},
    {"PROCSECOND", "GROUP", CRED_GROUP, LIM_ACTIVE, LIM_PS},
    {"JOBQUEUED", "GROUP", CRED_GROUP, LIM_IDLE, LIM_JOB},
    {"JOB", "ACCOUNT", CRED_ACCOUNT, LIM_ACTIVE, LIM_JOB},
    {"PROC", "ACCOUNT", CRED_ACCOUNT, LIM_ACTIVE, LIM_PROC},
    {"PROCSECOND", "ACCOUNT", CRED_ACCOUNT, LIM_ACTIVE, LIM_PS},
    {"JOBQUEUED", "ACCOUNT", CRED_ACCOUNT, LIM_IDLE, LIM_JOB},
};

static int legacy_limit(const struct cfg *cfg, const char *param, int time, long long *soft,
                        long long *hard, struct err *err)
{
    struct err e;
    const char *s = cfg_str(cfg, param, NULL);
    if (s && cfg_parse_limit(s, time, soft, hard, &e) < 0)
        return err_set(err, "%s: %s", param, e.msg);
    return 0;
}

static int load_legacy(struct lim_conf *c, const struct cfg *cfg, struct err *err)
{
    char policy[64], count[64], scount[64];
    for (size_t i = 0; i < NELEM(legacy); i++) {
        snprintf(policy, sizeof policy, "MAX%sPER%sPOLICY", legacy[i].x, legacy[i].y);
        snprintf(count, sizeof count, "MAX%sPER%sCOUNT", legacy[i].x, legacy[i].y);
        snprintf(scount, sizeof scount, "SMAX%sPER%sCOUNT", legacy[i].x, legacy[i].y);
        if (cfg_is_set(cfg, policy, NULL) && !cfg_bool(cfg, policy, NULL))
            continue;
        long long s = 0, h = 0;
        if (legacy_limit(cfg, count, 0, &s, &h, err) < 0)
            return -1;
        if (cfg_is_set(cfg, scount, NULL))
            s = cfg_int(cfg, scount, NULL);
        if (s || h)
            set_val(&obj_get(c, legacy[i].kind, NULL)->own.v[legacy[i].mode][legacy[i].type], s, h);
    }
    /* MAXPSPERUSER and MAXWCPERUSER: SOFT,HARD in one parameter. */
    static const struct {
        const char *name;
        enum lim_type type;
    } single[] = {{"MAXPSPERUSER", LIM_PS}, {"MAXWCPERUSER", LIM_WC}};
    for (size_t i = 0; i < NELEM(single); i++) {
        long long s = 0, h = 0;
        if (legacy_limit(cfg, single[i].name, single[i].type == LIM_WC, &s, &h, err) < 0)
            return -1;
        if (s || h)
            set_val(&obj_get(c, CRED_USER, NULL)->own.v[LIM_ACTIVE][single[i].type], s, h);
    }
    return 0;
}

/* SYSTEMMAXPROCPERJOB, SYSTEMMAXJOBWALLTIME, SYSTEMMAXPROCSECONDPERJOB: -1 (the
 * default) is no limit; SYSCFG's MAXPROCPERJOB/MAX.WCLIMIT, read later, win. */
static void load_system(struct lim_conf *c, const struct cfg *cfg)
{
    c->sys.per_job[LIM_PROC] = cfg_int(cfg, "SYSTEMMAXPROCPERJOB", NULL);
    c->sys.per_job[LIM_WC] = cfg_time(cfg, "SYSTEMMAXJOBWALLTIME", NULL);
    c->sys.per_job[LIM_PS] = cfg_int(cfg, "SYSTEMMAXPROCSECONDPERJOB", NULL);
}

static void load_legacy_qflags(struct lim_conf *c, const struct cfg *cfg)
{
    const char **idx;
    size_t n = cfg_indices(cfg, "QOSFLAGS", &idx);
    for (size_t i = 0; i < n; i++)
        apply_qflags(obj_get(c, CRED_QOS, idx[i]), cfg_str(cfg, "QOSFLAGS", idx[i]));
}

/* ------------------------------------------------------------- summaries */

static int set_any(const struct lim_set *s)
{
    for (int m = 0; m < LIM_NMODES; m++)
        for (int t = 0; t < LIM_NTYPES; t++)
            if (s->v[m][t].soft > 0 || s->v[m][t].hard > 0)
                return 1;
    return 0;
}

/* Whether o sets an idle limit anywhere (own, QOS override, pairs). */
static int obj_idle(const struct lim_obj *o)
{
    const struct lim_set *sets[] = {&o->own, &o->over, &o->over_user, &o->inner[0], &o->inner[1]};
    for (size_t i = 0; i < sizeof sets / sizeof *sets; i++)
        for (int t = 0; t < LIM_NTYPES; t++)
            if (sets[i]->v[LIM_IDLE][t].soft > 0 || sets[i]->v[LIM_IDLE][t].hard > 0)
                return 1;
    for (int in = 0; in < LIM_NINNER; in++)
        for (size_t n = 0; n < o->nnamed[in]; n++)
            for (int t = 0; t < LIM_NTYPES; t++)
                if (o->named[in][n]->set.v[LIM_IDLE][t].hard > 0)
                    return 1;
    return 0;
}

static int obj_any(const struct lim_obj *o)
{
    int any = set_any(&o->own) || set_any(&o->over);
    for (int t = 0; t < LIM_NTYPES; t++)
        any |= o->per_job[t] > 0 || o->over_job[t] > 0;
    for (int in = 0; in < LIM_NINNER; in++) {
        any |= set_any(&o->inner[in]);
        for (size_t n = 0; n < o->nnamed[in]; n++)
            any |= set_any(&o->named[in][n]->set);
    }
    return any;
}

static int set_differs(const struct lim_set *s)
{
    for (int m = 0; m < LIM_NMODES; m++)
        for (int t = 0; t < LIM_NTYPES; t++)
            if (s->v[m][t].soft != s->v[m][t].hard)
                return 1;
    return 0;
}

/* Whether any of o's limits has a soft value apart from its hard one: only
 * then do the soft and hard views of the queue differ. */
static int obj_differs(const struct lim_obj *o)
{
    int d = set_differs(&o->own) || set_differs(&o->over) || set_differs(&o->over_user);
    for (int in = 0; in < LIM_NINNER; in++) {
        d |= set_differs(&o->inner[in]);
        for (size_t n = 0; n < o->nnamed[in]; n++)
            d |= set_differs(&o->named[in][n]->set);
    }
    return d;
}

/* Whether a set names processor equivalents (any value, even unlimited). */
static int set_pe(const struct lim_set *s)
{
    for (int m = 0; m < LIM_NMODES; m++)
        if (s->v[m][LIM_PE].soft || s->v[m][LIM_PE].hard)
            return 1;
    return 0;
}

static int obj_pe(const struct lim_obj *o)
{
    int pe = set_pe(&o->own) || set_pe(&o->over) || set_pe(&o->over_user) || o->per_job[LIM_PE] ||
             o->over_job[LIM_PE];
    for (int in = 0; in < LIM_NINNER; in++) {
        pe |= set_pe(&o->inner[in]);
        for (size_t n = 0; n < o->nnamed[in]; n++)
            pe |= set_pe(&o->named[in][n]->set);
    }
    return pe;
}

static void summarize(struct lim_conf *c)
{
    c->any = obj_any(&c->sys);
    c->pe_any = obj_pe(&c->sys);
    c->soft_differs = obj_differs(&c->sys);
    c->idle_any = obj_idle(&c->sys);
    for (int k = 0; k < CRED_NKINDS; k++) {
        c->def[k] = limits_conf_find(c, (enum cred_kind)k, NULL);
        for (size_t i = 0; i < c->nobjs[k]; i++) {
            c->any |= obj_any(c->objs[k][i]);
            c->soft_differs |= obj_differs(c->objs[k][i]);
            c->idle_any |= obj_idle(c->objs[k][i]);
            c->pe_any |= obj_pe(c->objs[k][i]);
            c->ignall_any |= c->objs[k][i]->ignall;
        }
    }
}

int limits_conf_load(struct lim_conf *c, const struct cfg *cfg, struct err *err)
{
    if (load_legacy(c, cfg, err) < 0)
        return -1;
    load_system(c, cfg);
    if (load_objects(c, cfg, err) < 0)
        return -1;
    load_legacy_qflags(c, cfg);
    summarize(c);
    return 0;
}
