/*
 * engine_cfg — from maui.cfg to the engine: the scheduling policy and the
 * NODECFG node table. Part of the engine module (prefix sched_); kept apart
 * so that engine.c stays about the lifecycle, not about parameter names.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfg/cfg.h"
#include "engine/engine.h"
#include "policy/fs.h"
#include "policy/nprio.h"
#include "policy/prio.h"

static int choice(const char *v, const char *const *names, int dflt)
{
    for (int k = 0; v && names[k]; k++)
        if (strcmp(v, names[k]) == 0)
            return k;
    return dflt;
}

static int backfill_from_cfg(const struct cfg *cfg, struct sched_policy *pol, struct err *err)
{
    static const char *const bf[] = {"NONE", "FIRSTFIT", "BESTFIT", "GREEDY", "PREEMPT", NULL};
    static const char *const metric[] = {"PROCS", "NODES",     "PROCSECONDS", "SECONDS",
                                         "PE",    "PESECONDS", NULL};
    static const char *const prio[] = {"RANDOM", "DURATION", "HWDURATION", "NONE", NULL};
    const char *v = cfg_str(cfg, "BACKFILLPOLICY", NULL);
    pol->backfill = (enum bf_policy)choice(v, bf, BF_FIRSTFIT);
    if (v && strcmp(v, bf[pol->backfill]) != 0)
        return err_set(err,
                       "BACKFILLPOLICY %s is not one moku knows (FIRSTFIT, BESTFIT, GREEDY, "
                       "PREEMPT or NONE)",
                       v);
    pol->bfdepth = (int)cfg_int(cfg, "BACKFILLDEPTH", NULL);
    pol->bfmetric = (enum bf_metric)choice(cfg_str(cfg, "BACKFILLMETRIC", NULL), metric, BFM_PROCS);
    pol->bfmaxschedules = (long)cfg_int(cfg, "BACKFILLMAXSCHEDULES", NULL);
    pol->bfprio = (enum bf_prio)choice(cfg_str(cfg, "BFPRIORITYPOLICY", NULL), prio, BFP_NONE);
    pol->bfchunksize = (long)cfg_int(cfg, "BFCHUNKSIZE", NULL);
    pol->bfchunkduration = cfg_time(cfg, "BFCHUNKDURATION", NULL);
    return 0;
}

static int nodes_policy_from_cfg(const struct cfg *cfg, struct sched_policy *pol, struct err *err)
{
    static const char *const alloc[] = {"FIRSTAVAILABLE", "LASTAVAILABLE", "MINRESOURCE", "CPULOAD",
                                        "PRIORITY",       "FASTEST",       "MAXBALANCE",  NULL};
    static const char *const access[] = {"SHARED", "SINGLEJOB", "SINGLETASK", "SINGLEUSER", NULL};
    const char *na = cfg_str(cfg, "NODEALLOCATIONPOLICY", NULL);
    const char *ac = cfg_str(cfg, "NODEACCESSPOLICY", NULL);
    const char *pp = cfg_str(cfg, "PREEMPTPOLICY", NULL);
    pol->nalloc = NALLOC_LASTAVAILABLE; /* Maui's default */
    for (int k = 0; na && alloc[k]; k++)
        if (strcmp(na, alloc[k]) == 0)
            pol->nalloc = (enum node_alloc)k;
    if (na && strcmp(na, alloc[pol->nalloc]) != 0)
        return err_set(err,
                       "NODEALLOCATIONPOLICY %s is not implemented (use FIRSTAVAILABLE, "
                       "LASTAVAILABLE, MINRESOURCE, CPULOAD, PRIORITY, FASTEST or MAXBALANCE)",
                       na);
    pol->naccess = NACCESS_SHARED;
    for (int k = 0; ac && access[k]; k++)
        if (strcmp(ac, access[k]) == 0)
            pol->naccess = (enum node_access)k;
    pol->preempt = PREEMPT_REQUEUE;
    if (pp && strcmp(pp, "SUSPEND") == 0)
        pol->preempt = PREEMPT_SUSPEND;
    else if (pp && strcmp(pp, "REQUEUE") != 0)
        return err_set(err, "PREEMPTPOLICY %s is not implemented (use REQUEUE or SUSPEND)", pp);
    return 0;
}

/* RESERVATIONDEPTH[i] / RESERVATIONQOSLIST[i]: groups 0..7, by index. */
static int resgroups_from_cfg(const struct cfg *cfg, struct sched_policy *pol, struct err *err)
{
    const char **idx;
    size_t n = cfg_indices(cfg, "RESERVATIONDEPTH", &idx);
    pol->nresgroups = 1;
    pol->resgroup[0] = (struct sched_resgroup){(int)cfg_int(cfg, "RESERVATIONDEPTH", "0"), ""};
    for (size_t k = 0; k < n; k++) {
        char *end;
        long i = strtol(idx[k], &end, 10);
        if (*end || i < 0 || i >= SCHED_RESGROUPS)
            return err_set(err, "RESERVATIONDEPTH[%s]: the index must be 0 to %d", idx[k],
                           SCHED_RESGROUPS - 1);
        if (i >= pol->nresgroups)
            pol->nresgroups = (int)i + 1;
    }
    pol->resdepth = 0;
    for (int i = 0; i < pol->nresgroups; i++) {
        char ix[16];
        snprintf(ix, sizeof ix, "%d", i);
        long long d = cfg_is_set(cfg, "RESERVATIONDEPTH", ix) || i == 0
                          ? cfg_int(cfg, "RESERVATIONDEPTH", ix)
                          : 0;
        if (d > 1000000)
            d = 1000000; /* "every job": more than any queue will hold */
        const char *q =
            cfg_is_set(cfg, "RESERVATIONQOSLIST", ix) ? cfg_str(cfg, "RESERVATIONQOSLIST", ix) : "";
        if (strlen(q) >= sizeof pol->resgroup[i].qos)
            return err_set(err, "RESERVATIONQOSLIST[%d]: the list is too long", i);
        pol->resgroup[i].depth = (int)d;
        snprintf(pol->resgroup[i].qos, sizeof pol->resgroup[i].qos, "%s", q);
        pol->resdepth += (int)d;
    }
    return 0;
}

static int reservations_from_cfg(const struct cfg *cfg, struct sched_policy *pol, struct err *err)
{
    static const char *const rp[] = {"CURRENTHIGHEST", "HIGHEST", "NEVER", NULL};
    static const char *const th[] = {"NONE", "BYPASS", "QUEUETIME", "XFACTOR", NULL};
    if (resgroups_from_cfg(cfg, pol, err) < 0)
        return -1;
    const char *v = cfg_str(cfg, "RESERVATIONPOLICY", NULL);
    pol->respolicy = (enum res_policy)choice(v, rp, RP_CURRENTHIGHEST); /* DEFAULT too */
    if (pol->respolicy == RP_NEVER)
        pol->resdepth = 0;
    pol->resthresh =
        (enum res_threshold)choice(cfg_str(cfg, "RESERVATIONTHRESHOLDTYPE", NULL), th, RT_NONE);
    pol->resthreshvalue = (long)cfg_int(cfg, "RESERVATIONTHRESHOLDVALUE", NULL);
    return 0;
}

/* FSPOLICY (normalised by the parser: a choice, "NONE", maybe with a
 * trailing '%'), FSINTERVAL, FSDEPTH, FSDECAY. */
static void fs_from_cfg(const struct cfg *cfg, struct fs_params *p)
{
    static const struct {
        const char *name;
        enum fs_policy policy;
    } names[] = {{"DEDICATEDPS", FS_DEDICATEDPS},
                 {"DEDICATEDPES", FS_DEDICATEDPES},
                 {"UTILIZEDPS", FS_UTILIZEDPS}};
    const char *v = cfg_str(cfg, "FSPOLICY", NULL);
    fs_params_default(p);
    size_t n = v ? strlen(v) : 0;
    p->percent = n > 1 && v[n - 1] == '%';
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (v && strncmp(v, names[i].name, n - (size_t)p->percent) == 0 &&
            strlen(names[i].name) == n - (size_t)p->percent)
            p->policy = names[i].policy;
    p->interval = cfg_time(cfg, "FSINTERVAL", NULL);
    p->depth = (int)cfg_int(cfg, "FSDEPTH", NULL);
    p->decay = cfg_double(cfg, "FSDECAY", NULL);
}

int sched_policy_from_cfg(const struct cfg *cfg, struct sched_policy *pol, struct err *err)
{
    struct sched_policy p;
    sched_policy_default(&p);
    if (backfill_from_cfg(cfg, &p, err) < 0 || reservations_from_cfg(cfg, &p, err) < 0 ||
        nodes_policy_from_cfg(cfg, &p, err) < 0)
        return -1;
    p.overrun = cfg_time(cfg, "JOBMAXOVERRUN", NULL);
    p.defertime = cfg_time(cfg, "DEFERTIME", NULL);
    p.defercount = (int)cfg_int(cfg, "DEFERCOUNT", NULL);
    p.deferstartcount = (int)cfg_int(cfg, "DEFERSTARTCOUNT", NULL);
    p.poll = cfg_time(cfg, "RMPOLLINTERVAL", NULL);
    if (prio_params_from_cfg(cfg, &p.prio, err) < 0)
        return -1;
    fs_from_cfg(cfg, &p.fs);
    *pol = p;
    return 0;
}

/* Where an object's attributes were given, for messages. */
static void obj_where(const struct cfg_obj *o, char *buf, size_t len)
{
    if (o->nattrs)
        snprintf(buf, len, "%s:%d: NODECFG[%s]", o->attrs[0].file, o->attrs[0].line, o->name);
    else
        snprintf(buf, len, "NODECFG[%s]", o->name);
}

/* The attribute of node o, else of NODECFG[DEFAULT]. */
static const char *node_attr(const struct cfg_obj *o, const struct cfg_obj *def, const char *a)
{
    const char *v = cfg_obj_get(o, a, NULL);
    return v || !def ? v : cfg_obj_get(def, a, NULL);
}

static int long_attr(const struct cfg_obj *o, const struct cfg_obj *def, const char *a,
                     long long max, long long *out, struct err *err)
{
    char where[256];
    struct err e;
    const char *v = node_attr(o, def, a);
    *out = 0;
    if (!v)
        return 0;
    if (cfg_parse_int(v, 0, max, out, &e) < 0) {
        obj_where(o, where, sizeof where);
        return err_set(err, "%s: %s: %s", where, a, e.msg);
    }
    return 0;
}

/* SPEED (or PROCSPEED, in MHz, taken relative to 1000) and PRIORITY: what
 * NODEALLOCATIONPOLICY FASTEST, MAXBALANCE and PRIORITY order by. */
static int node_order_attrs(const struct cfg_obj *o, const struct cfg_obj *def,
                            struct node_spec *spec, struct err *err)
{
    char where[256];
    const char *sp = node_attr(o, def, "SPEED"), *ps = node_attr(o, def, "PROCSPEED");
    long long prio;
    if (long_attr(o, def, "PROCSPEED", 1 << 30, &prio, err) < 0)
        return -1;
    spec->speed = ps ? (double)prio / 1000.0 : 1.0;
    if (sp) {
        char *end;
        double v = strtod(sp, &end);
        if (*end || !(v > 0) || v > 1e6) {
            obj_where(o, where, sizeof where);
            return err_set(err, "%s: SPEED '%s' is not a positive number", where, sp);
        }
        spec->speed = v;
    }
    const char *pr = node_attr(o, def, "PRIORITY");
    struct err e;
    if (pr && cfg_parse_int(pr, -(1LL << 40), 1LL << 40, &prio, &e) < 0) {
        obj_where(o, where, sizeof where);
        return err_set(err, "%s: PRIORITY: %s", where, e.msg);
    }
    spec->priority = pr ? (long)prio : 0;
    spec->priorityf = node_attr(o, def, "PRIORITYF");
    struct nprio *f;
    if (spec->priorityf) {
        if (nprio_parse(spec->priorityf, &f, &e) < 0) {
            obj_where(o, where, sizeof where);
            return err_set(err, "%s: %s", where, e.msg);
        }
        nprio_free(f);
    }
    return 0;
}

static int node_from_obj(const struct cfg_obj *o, const struct cfg_obj *def, struct node_spec *spec,
                         struct err *err)
{
    char where[256];
    long long procs, mem, swap, disk;
    if (long_attr(o, def, "PROCS", 1 << 30, &procs, err) < 0 ||
        long_attr(o, def, "MEMORY", 1LL << 40, &mem, err) < 0 ||
        long_attr(o, def, "SWAP", 1LL << 40, &swap, err) < 0 ||
        long_attr(o, def, "DISK", 1LL << 40, &disk, err) < 0)
        return -1;
    obj_where(o, where, sizeof where);
    if (procs < 1)
        return err_set(err, "%s: PROCS=<n> (at least 1) is needed to define a node", where);
    *spec = (struct node_spec){
        .name = o->name,
        .procs = (int)procs,
        .mem = (long)mem,
        .swap = (long)swap,
        .disk = (long)disk,
        .features = node_attr(o, def, "FEATURES"),
        .partition = node_attr(o, def, "PARTITION"),
        .state = NODE_UP,
    };
    const char *st = node_attr(o, def, "STATE");
    if (st && node_state_parse(st, &spec->state) < 0)
        return err_set(err, "%s: unknown STATE '%s' (accepted: Idle, Down, Drained)", where, st);
    return node_order_attrs(o, def, spec, err);
}

int sched_add_nodes_from_cfg(struct sched *s, const struct cfg *cfg, struct err *err)
{
    const struct cfg_obj *def = cfg_obj_find(cfg, "NODECFG", "DEFAULT");
    size_t n = cfg_nobjs(cfg);
    struct node_spec spec;
    /* Validate everything first: no node is added unless all are good. */
    for (size_t i = 0; i < n; i++) {
        const struct cfg_obj *o = cfg_obj_at(cfg, i);
        if (strcmp(o->kind, "NODECFG") == 0 && o != def && node_from_obj(o, def, &spec, err) < 0)
            return -1;
    }
    for (size_t i = 0; i < n; i++) {
        const struct cfg_obj *o = cfg_obj_at(cfg, i);
        if (strcmp(o->kind, "NODECFG") != 0 || o == def)
            continue;
        node_from_obj(o, def, &spec, err);
        if (sched_add_node(s, &spec, err) < 0)
            return -1; /* names are unique per cfg object, so this cannot happen */
    }
    return 0;
}
