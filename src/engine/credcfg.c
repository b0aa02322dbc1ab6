/*
 * credcfg — credentials from maui.cfg: USERCFG, GROUPCFG, ACCOUNTCFG,
 * CLASSCFG and QOSCFG objects (PRIORITY, QDEF, QLIST, GROUPCFG CLASSWEIGHT,
 * QOSCFG QTWEIGHT/XFWEIGHT/QTTARGET/XFTARGET/QFLAGS, FSTARGET on every kind
 * and on SYSCFG) and the legacy per-QOS parameters (QOSPRIORITY[q],
 * QOSQTWEIGHT[q], ...). Part of the engine module (prefix sched_). Limits on
 * the same objects are read by policy/limits_cfg.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfg/cfg.h"
#include "core/sched_int.h"
#include "engine/engine.h"
#include "policy/fs.h"
#include "util/mem.h"

static const struct {
    const char *kind;
    enum cred_kind ck;
} cred_kinds[] = {
    {"USERCFG", CRED_USER},   {"GROUPCFG", CRED_GROUP}, {"ACCOUNTCFG", CRED_ACCOUNT},
    {"CLASSCFG", CRED_CLASS}, {"QOSCFG", CRED_QOS},
};

/* Where an object's attribute was given, for messages. */
static int attr_error(const struct cfg_obj *o, const char *attr, const struct err *e,
                      struct err *err)
{
    for (size_t i = 0; i < o->nattrs; i++)
        if (strcmp(o->attrs[i].name, attr) == 0)
            return err_set(err, "%s:%d: %s[%s] %s: %s", o->attrs[i].file, o->attrs[i].line, o->kind,
                           o->name, attr, e->msg);
    return err_set(err, "%s[%s] %s: %s", o->kind, o->name, attr, e->msg);
}

static int get_long(const struct cfg_obj *o, const char *attr, long *out, struct err *err)
{
    struct err e;
    long long v = 0; /* set by cfg_parse_int on success, read only then */
    const char *s = cfg_obj_get(o, attr, NULL);
    if (!s)
        return 0;
    if (cfg_parse_int(s, -1000000000LL, 1000000000LL, &v, &e) < 0)
        return attr_error(o, attr, &e, err);
    *out = (long)v;
    return 0;
}

static int get_time(const struct cfg_obj *o, const char *attr, long *out, struct err *err)
{
    struct err e;
    const char *s = cfg_obj_get(o, attr, NULL);
    if (s && cfg_parse_time(s, out, &e) < 0)
        return attr_error(o, attr, &e, err);
    return 0;
}

static int get_double(const struct cfg_obj *o, const char *attr, double *out, struct err *err)
{
    struct err e;
    const char *s = cfg_obj_get(o, attr, NULL);
    if (s && cfg_parse_double(s, 0, 1e12, out, &e) < 0)
        return attr_error(o, attr, &e, err);
    return 0;
}

/* QLIST "a:b,c", with Maui's '&' (AND) and '^' (ONLY) markers dropped:
 * moku checks membership only. */
static void set_qlist(struct cred *c, const char *text)
{
    size_t cap = 0;
    for (const char *p = text; p && *p;) {
        p += strspn(p, " \t,:&^");
        size_t len = strcspn(p, " \t,:&^");
        if (!len)
            break;
        c->qlist = xgrow(c->qlist, &cap, c->nqlist + 1, sizeof *c->qlist);
        c->qlist[c->nqlist++] = xstrndup(p, len);
        p += len;
    }
}

static unsigned qos_flags(const char *text)
{
    unsigned f = 0;
    /* Maui matches QOS flag names as substrings of the QFLAGS value. */
    if (text && strstr(text, "NORESERVATION"))
        f |= QOS_NORESERVATION;
    if (text && strstr(text, "NOBF"))
        f |= QOS_NOBF;
    if (text && strstr(text, "PREEMPTEE"))
        f |= QOS_PREEMPTEE;
    return f;
}

/* Everything one object sets, parsed before anything is applied. */
struct credset {
    long priority, classweight, qtweight, xfweight, qttarget, maxsubmit;
    double xftarget;
    const char *qdef, *qlist, *qflags;
    struct fs_target fstarget; /* mode NONE: not given */
};

static int parse_obj(const struct cfg_obj *o, struct credset *cs, struct err *err)
{
    memset(cs, 0, sizeof *cs);
    if (get_long(o, "PRIORITY", &cs->priority, err) < 0 ||
        get_long(o, "CLASSWEIGHT", &cs->classweight, err) < 0 ||
        get_long(o, "QTWEIGHT", &cs->qtweight, err) < 0 ||
        get_long(o, "XFWEIGHT", &cs->xfweight, err) < 0 ||
        get_time(o, "QTTARGET", &cs->qttarget, err) < 0 ||
        get_long(o, "MAXSUBMITJOBS", &cs->maxsubmit, err) < 0 ||
        get_double(o, "XFTARGET", &cs->xftarget, err) < 0)
        return -1;
    struct err e;
    if (cs->maxsubmit < 0)
        return attr_error(o, "MAXSUBMITJOBS", &(struct err){"expected a job count >= 0"}, err);
    const char *fst = cfg_obj_get(o, "FSTARGET", NULL);
    if (fst && fs_target_parse(fst, &cs->fstarget, &e) < 0)
        return attr_error(o, "FSTARGET", &e, err);
    cs->qdef = cfg_obj_get(o, "QDEF", NULL);
    cs->qlist = cfg_obj_get(o, "QLIST", NULL);
    cs->qflags = cfg_obj_get(o, "QFLAGS", NULL);
    return 0;
}

static void apply_obj(struct sched *s, struct cred *c, const struct credset *cs)
{
    if (cs->fstarget.mode != FS_MODE_NONE)
        fs_set_target(s->fsh.fs, c, cs->fstarget);
    c->priority = cs->priority ? cs->priority : c->priority;
    c->classweight = cs->classweight ? cs->classweight : c->classweight;
    c->qtweight = cs->qtweight ? cs->qtweight : c->qtweight;
    c->xfweight = cs->xfweight ? cs->xfweight : c->xfweight;
    c->qttarget = cs->qttarget ? cs->qttarget : c->qttarget;
    c->maxsubmit = cs->maxsubmit ? cs->maxsubmit : c->maxsubmit;
    s->lim.maxsubmit_any |= c->maxsubmit > 0;
    c->xftarget = cs->xftarget > 0 ? cs->xftarget : c->xftarget;
    c->qflags |= qos_flags(cs->qflags);
    if (cs->qdef) {
        free(c->qdef);
        c->qdef = xstrdup(cs->qdef);
        s->qdef_any = 1;
    }
    if (cs->qlist)
        set_qlist(c, cs->qlist);
}

static int cred_kind_of(const char *kind, enum cred_kind *ck)
{
    for (size_t k = 0; k < sizeof cred_kinds / sizeof cred_kinds[0]; k++)
        if (strcmp(kind, cred_kinds[k].kind) == 0) {
            *ck = cred_kinds[k].ck;
            return 1;
        }
    return 0;
}

/* The legacy QOSPRIORITY[q] ... parameters, applied like QOSCFG[q]. */
static void apply_legacy_qos(struct sched *s, const struct cfg *cfg)
{
    const char **idx;
    size_t n = cfg_indices(cfg, "QOSPRIORITY", &idx);
    for (size_t i = 0; i < n; i++)
        cred_get(s->creds[CRED_QOS], idx[i])->priority = (long)cfg_int(cfg, "QOSPRIORITY", idx[i]);
    n = cfg_indices(cfg, "QOSQTWEIGHT", &idx);
    for (size_t i = 0; i < n; i++)
        cred_get(s->creds[CRED_QOS], idx[i])->qtweight = (long)cfg_int(cfg, "QOSQTWEIGHT", idx[i]);
    n = cfg_indices(cfg, "QOSXFWEIGHT", &idx);
    for (size_t i = 0; i < n; i++)
        cred_get(s->creds[CRED_QOS], idx[i])->xfweight = (long)cfg_int(cfg, "QOSXFWEIGHT", idx[i]);
    n = cfg_indices(cfg, "QOSQTTARGET", &idx);
    for (size_t i = 0; i < n; i++)
        cred_get(s->creds[CRED_QOS], idx[i])->qttarget = cfg_time(cfg, "QOSQTTARGET", idx[i]);
    n = cfg_indices(cfg, "QOSXFTARGET", &idx);
    for (size_t i = 0; i < n; i++)
        cred_get(s->creds[CRED_QOS], idx[i])->xftarget = cfg_double(cfg, "QOSXFTARGET", idx[i]);
    n = cfg_indices(cfg, "QOSFLAGS", &idx);
    for (size_t i = 0; i < n; i++)
        cred_get(s->creds[CRED_QOS], idx[i])->qflags |= qos_flags(cfg_str(cfg, "QOSFLAGS", idx[i]));
}

/* Whether some QOS changes the slope of queue time or expansion factor per
 * job: then priority order is no longer submission order. */
static void note_cred_weights(struct sched *s)
{
    s->cred_weights = 0;
    for (size_t i = 0; i < cred_count(s->creds[CRED_QOS]); i++) {
        const struct cred *q = cred_at(s->creds[CRED_QOS], i);
        if (q->qtweight || q->xfweight || q->qttarget || q->xftarget > 0)
            s->cred_weights = 1;
    }
}

int sched_creds_from_cfg(struct sched *s, const struct cfg *cfg, struct err *err)
{
    size_t n = cfg_nobjs(cfg);
    struct credset *sets = xcalloc(n ? n : 1, sizeof *sets);
    enum cred_kind ck;
    for (size_t i = 0; i < n; i++) {
        const struct cfg_obj *o = cfg_obj_at(cfg, i);
        int sys = strcmp(o->kind, "SYSCFG") == 0;
        if ((sys || cred_kind_of(o->kind, &ck)) && parse_obj(o, &sets[i], err) < 0) {
            free(sets);
            return -1; /* nothing applied yet */
        }
    }
    for (size_t i = 0; i < n; i++) {
        const struct cfg_obj *o = cfg_obj_at(cfg, i);
        if (cred_kind_of(o->kind, &ck))
            apply_obj(s, cred_get(s->creds[ck], o->name), &sets[i]);
        else if (strcmp(o->kind, "SYSCFG") == 0 && sets[i].fstarget.mode != FS_MODE_NONE)
            fs_set_total_target(s->fsh.fs, sets[i].fstarget); /* shown by diagnose -f */
    }
    free(sets);
    apply_legacy_qos(s, cfg);
    note_cred_weights(s);
    fsacct_note_caps(s);
    s->pl.replan = 1;
    s->el.elig_all = 1;
    return 0;
}
