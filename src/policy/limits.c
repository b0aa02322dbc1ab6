/*
 * limits — see limits.h. This file keeps the usage and answers the checks;
 * limits_cfg.c reads the configuration.
 *
 * Usage lives in three places: a slot per credential object (an array per
 * kind indexed by cred->index, grown by limits_add), a hash table of
 * (outer, inner) pairs such as (class batch, user alice) for the pair kinds
 * some limit watches, and one system total. A slot also remembers the
 * object's configured limits the first time limits_add sees it, so a check
 * costs one array access per credential; a credential never added is looked
 * up by name (a hash, still no allocation).
 *
 * Where moku differs from Maui 3.3.1 (which parsed these and ignored them):
 * SYSCFG active and idle limits, MAXMEM/MAXIMEM, MAXWC/MAXPS given as times
 * or large integers, pair limits of every kind (not only class x user), and
 * the QOS flags IGN*PERUSER reach the user (and user pairs) only, where
 * Maui's override record lifted that limit for every credential.
 */
#include "policy/limits.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/job.h"
#include "policy/limits_int.h"
#include "policy/prio.h"
#include "util/mem.h"

/* How fast time alone runs an object's active usage down, per second, while
 * no running job reaches its walltime: the processors (PS) and the jobs (WC)
 * of its running jobs that still have walltime left. */
enum { LIM_RATE_PS, LIM_RATE_WC, LIM_NRATES };

/* Usage of one credential object. */
struct lim_slot {
    const struct lim_obj *obj; /* its configured limits, once bound */
    int bound;
    double use[LIM_NMODES][LIM_NTYPES];
    double rate[LIM_NRATES];
    /* Its limits resolved (own, else DEFAULT; no QOS override), for
     * limits_check_fast when one kind is all there is (0 = none). */
    long long lim[LIM_NMODES][2][LIM_NTYPES];
    /* (double)lim + LIM_EPS, what the checks compare usage and request
     * with: found once, not at each of a walk's checks (issue 31). */
    double cap[LIM_NMODES][2][LIM_NTYPES];
    unsigned set[LIM_NMODES][2]; /* the types of lim that are set (> 0), a bit each */
    /* The types limits_add_kind keeps: those set at any level or mode,
     * and PS and WC, which policy/eset.c reads to see time run them down. */
    unsigned kept;
};

/* Usage of one pair: kind 1 + (outer * LIM_NINNER + inner), 0 = empty slot. */
struct lim_pslot {
    unsigned kind;
    size_t a, b; /* outer and inner credential index */
    double use[LIM_NMODES][LIM_NTYPES];
    double rate[LIM_NRATES];
};

struct limits {
    struct lim_conf *conf;
    struct lim_slot *slots[CRED_NKINDS];
    size_t nslots[CRED_NKINDS], capslots[CRED_NKINDS];
    struct lim_pslot *pairs; /* open addressing, power-of-two size */
    size_t npairs, cappairs;
    double sys[LIM_NMODES][LIM_NTYPES];
    double sys_rate[LIM_NRATES];
    int rates;   /* some rate was added since the active usage was last cleared */
    int single;  /* limits_single_kind's answer for conf (eset asks at every iteration) */
    int per_job; /* some per-job limit is positive (else limits_check_job passes every job) */
};

static int single_kind(const struct lim_conf *c);

/* Whether c has a positive per-job limit: a credential's (MAXWCLIMIT, ...),
 * the system's, or a QOS's override of the system's. */
static int per_job_any(const struct lim_conf *c)
{
    for (int t = 0; t < LIM_NTYPES; t++) {
        if (c->sys.per_job[t] > 0)
            return 1;
        for (int k = 0; k < CRED_NKINDS; k++) {
            const struct lim_obj *d = c->def[k];
            if (d && (d->per_job[t] > 0 || d->over_job[t] > 0))
                return 1;
            for (size_t i = 0; i < c->nobjs[k]; i++)
                if (c->objs[k][i]->per_job[t] > 0 || c->objs[k][i]->over_job[t] > 0)
                    return 1;
        }
    }
    return 0;
}

static const double no_usage[LIM_NTYPES];
static const double no_rate[LIM_NRATES];

/* Usage may drift by rounding as fractional PE comes and goes. */
#define LIM_EPS 1e-6

static const char *const type_names[LIM_NTYPES] = {"MAXJOB", "MAXPROC", "MAXNODE", "MAXPS",
                                                   "MAXPE",  "MAXWC",   "MAXMEM"};
/* Maui's words for the credential types in messages. */
static const char *const kind_words[CRED_NKINDS] = {"user", "group", "acct", "class", "qos"};
static const enum cred_kind inner_kind[LIM_NINNER] = {CRED_USER, CRED_GROUP};

const char *limits_type_name(enum lim_type t)
{
    return t < LIM_NTYPES ? type_names[t] : "?";
}

int limits_configured(const struct limits *L, enum cred_kind k, const char *name, enum lim_mode m,
                      enum lim_type t, long long *soft, long long *hard)
{
    const struct lim_obj *o = L && name ? limits_conf_find(L->conf, k, name) : NULL;
    if (!o || m >= LIM_NMODES || t >= LIM_NTYPES || !o->own.v[m][t].hard)
        return 0;
    *soft = o->own.v[m][t].soft;
    *hard = o->own.v[m][t].hard;
    return 1;
}

struct limits *limits_create(void)
{
    struct limits *L = xcalloc(1, sizeof *L);
    L->conf = limits_conf_create();
    L->single = single_kind(L->conf);
    L->per_job = per_job_any(L->conf);
    return L;
}

void limits_destroy(struct limits *L)
{
    if (!L)
        return;
    limits_conf_destroy(L->conf);
    for (int k = 0; k < CRED_NKINDS; k++)
        free(L->slots[k]);
    free(L->pairs);
    free(L);
}

int limits_load(struct limits *L, const struct cfg *cfg, struct err *err)
{
    struct lim_conf *c = limits_conf_create();
    if (limits_conf_load(c, cfg, err) < 0) {
        limits_conf_destroy(c);
        return -1;
    }
    limits_conf_destroy(L->conf);
    L->conf = c;
    L->single = single_kind(c);
    L->per_job = per_job_any(c);
    /* The slots pointed into the old configuration, and the pairs followed
     * its limits: start over. */
    for (int k = 0; k < CRED_NKINDS; k++)
        L->nslots[k] = 0;
    if (L->pairs) /* memset(NULL, 0, 0) is undefined all the same */
        memset(L->pairs, 0, L->cappairs * sizeof *L->pairs);
    L->npairs = 0;
    memset(L->sys, 0, sizeof L->sys);
    memset(L->sys_rate, 0, sizeof L->sys_rate);
    return 0;
}

int limits_any(const struct limits *L)
{
    return L->conf->any;
}

int limits_soft_differs(const struct limits *L)
{
    return L->conf->soft_differs;
}

int limits_idle_any(const struct limits *L)
{
    return L->conf->idle_any;
}

/* ---------------------------------------------------------------- requests */

/* The types every request has at hand: a job, its processors and time. */
#define REQ_CHEAP (1u << LIM_JOB | 1u << LIM_PROC | 1u << LIM_PS | 1u << LIM_WC)

/* request's REQ_CHEAP types; the others 0. */
static inline void request_cheap(const struct job *j, long seconds, double req[LIM_NTYPES])
{
    double procs = (double)job_procs(j);
    double secs = seconds > 0 ? (double)seconds : 0.0;
    req[LIM_JOB] = 1;
    req[LIM_PROC] = procs;
    req[LIM_NODE] = 0;
    req[LIM_PS] = procs * secs;
    req[LIM_PE] = 0;
    req[LIM_WC] = secs;
    req[LIM_MEM] = 0;
}

static void request(const struct job *j, long seconds, const struct prio_env *env, int pe,
                    double req[LIM_NTYPES])
{
    request_cheap(j, seconds, req);
    req[LIM_NODE] = j->nodes > 0 ? j->nodes : 0;
    req[LIM_PE] = pe ? prio_pe(env, j) : 0;
    req[LIM_MEM] = (double)j->tasks * (double)(j->mem_per_task > 0 ? j->mem_per_task : 0);
}

void limits_request(const struct job *j, long seconds, const struct prio_env *env,
                    double req[LIM_NTYPES])
{
    request(j, seconds, env, 1, req);
}

void limits_request_for(const struct limits *L, const struct job *j, long seconds,
                        const struct prio_env *env, double req[LIM_NTYPES])
{
    request(j, seconds, env, L->conf->pe_any, req);
}

/* ------------------------------------------------------------------- usage */

/* The job's credential of kind k that limits count, or NULL. A job without
 * an account (the engine files it under DEFAULT) has no account for the
 * limits, as in Maui: ACCOUNTCFG[DEFAULT] limits each named account on its
 * own, and does not pool every project-less job into one. */
static const struct cred *limit_cred(const struct job *j, enum cred_kind k)
{
    switch (k) {
    case CRED_USER:
        return j->user;
    case CRED_GROUP:
        return j->group;
    case CRED_ACCOUNT:
        return j->account->index == 0 ? NULL : j->account;
    case CRED_CLASS:
        return j->class_;
    default:
        return j->qos;
    }
}

/* The configured limits of credential c (NULL: none of its own). */
static const struct lim_obj *obj_of(const struct limits *L, enum cred_kind k, const struct cred *c)
{
    if (c->index < L->nslots[k] && L->slots[k][c->index].bound)
        return L->slots[k][c->index].obj;
    return limits_conf_find(L->conf, k, c->name);
}

static const double *slot_use(const struct limits *L, enum cred_kind k, const struct cred *c,
                              enum lim_mode m)
{
    return c->index < L->nslots[k] ? L->slots[k][c->index].use[m] : no_usage;
}

static const double *slot_rate(const struct limits *L, enum cred_kind k, const struct cred *c)
{
    return c->index < L->nslots[k] ? L->slots[k][c->index].rate : no_rate;
}

static long long own_or_default(const struct limits *L, enum cred_kind k, const struct lim_obj *own,
                                enum lim_mode m, enum lim_level lv, enum lim_type t)
{
    const struct lim_val *v = own && own->own.v[m][t].hard ? &own->own.v[m][t] : NULL;
    if (!v && L->conf->def[k] && L->conf->def[k]->own.v[m][t].hard)
        v = &L->conf->def[k]->own.v[m][t];
    return !v ? 0 : lv == LIM_SOFT ? v->soft : v->hard;
}

/* Fill s->lim: what cred_limit answers for it when no QOS overrides. */
static void resolve(const struct limits *L, enum cred_kind k, struct lim_slot *s)
{
    s->kept = 1u << LIM_PS | 1u << LIM_WC;
    for (int m = 0; m < LIM_NMODES; m++)
        for (int lv = 0; lv < 2; lv++) {
            s->set[m][lv] = 0;
            for (int t = 0; t < LIM_NTYPES; t++) {
                s->lim[m][lv][t] = own_or_default(L, k, s->obj, (enum lim_mode)m,
                                                  (enum lim_level)lv, (enum lim_type)t);
                s->cap[m][lv][t] = (double)s->lim[m][lv][t] + LIM_EPS;
                s->set[m][lv] |= s->lim[m][lv][t] > 0 ? 1u << t : 0u;
            }
            s->kept |= s->set[m][lv];
        }
}

/* slot_get's first sight of a credential: the table grown, the slot bound. */
static __attribute__((noinline)) struct lim_slot *slot_bind(struct limits *L, enum cred_kind k,
                                                            const struct cred *c)
{
    if (c->index >= L->nslots[k]) {
        L->slots[k] = xgrow(L->slots[k], &L->capslots[k], c->index + 1, sizeof *L->slots[k]);
        memset(L->slots[k] + L->nslots[k], 0, (c->index + 1 - L->nslots[k]) * sizeof *L->slots[k]);
        L->nslots[k] = c->index + 1;
    }
    struct lim_slot *s = &L->slots[k][c->index];
    if (!s->bound) {
        s->obj = limits_conf_find(L->conf, k, c->name);
        s->bound = 1;
        resolve(L, k, s);
    }
    return s;
}

/* Inline: every running job's usage goes through it at every rebuild. */
static inline struct lim_slot *slot_get(struct limits *L, enum cred_kind k, const struct cred *c)
{
    if (c->index < L->nslots[k] && L->slots[k][c->index].bound)
        return &L->slots[k][c->index];
    return slot_bind(L, k, c);
}

static size_t pair_hash(unsigned kind, size_t a, size_t b)
{
    uint64_t h = (uint64_t)a * 0x9E3779B97F4A7C15ULL;
    h ^= ((uint64_t)b + 0x632BE59BD9B4E019ULL) * 0xC2B2AE3D27D4EB4FULL;
    h ^= kind;
    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9ULL;
    h ^= h >> 29;
    return (size_t)h;
}

static const struct lim_pslot *pair_find(const struct limits *L, unsigned kind, size_t a, size_t b)
{
    if (!L->cappairs)
        return NULL;
    size_t mask = L->cappairs - 1;
    for (size_t i = pair_hash(kind, a, b) & mask;; i = (i + 1) & mask) {
        const struct lim_pslot *p = &L->pairs[i];
        if (!p->kind)
            return NULL;
        if (p->kind == kind && p->a == a && p->b == b)
            return p;
    }
}

static struct lim_pslot *pair_slot(struct lim_pslot *tab, size_t cap, unsigned kind, size_t a,
                                   size_t b)
{
    size_t mask = cap - 1;
    size_t i = pair_hash(kind, a, b) & mask;
    while (tab[i].kind && !(tab[i].kind == kind && tab[i].a == a && tab[i].b == b))
        i = (i + 1) & mask;
    return &tab[i];
}

/* The usage of a pair, created when new; the table stays at most half full. */
static struct lim_pslot *pair_get(struct limits *L, unsigned kind, size_t a, size_t b)
{
    if (2 * (L->npairs + 1) > L->cappairs) {
        size_t cap = L->cappairs ? 2 * L->cappairs : 64;
        struct lim_pslot *tab = xcalloc(cap, sizeof *tab);
        for (size_t i = 0; i < L->cappairs; i++)
            if (L->pairs[i].kind)
                *pair_slot(tab, cap, L->pairs[i].kind, L->pairs[i].a, L->pairs[i].b) = L->pairs[i];
        free(L->pairs);
        L->pairs = tab;
        L->cappairs = cap;
    }
    struct lim_pslot *p = pair_slot(L->pairs, L->cappairs, kind, a, b);
    if (!p->kind) {
        p->kind = kind;
        p->a = a;
        p->b = b;
        L->npairs++;
    }
    return p;
}

void limits_clear_usage(struct limits *L, enum lim_mode mode)
{
    int active = mode == LIM_ACTIVE && L->rates; /* the rates go with active usage */
    if (mode == LIM_ACTIVE)
        L->rates = 0;
    for (int k = 0; k < CRED_NKINDS; k++)
        for (size_t i = 0; i < L->nslots[k]; i++) {
            memset(L->slots[k][i].use[mode], 0, sizeof L->slots[k][i].use[mode]);
            if (active)
                memset(L->slots[k][i].rate, 0, sizeof L->slots[k][i].rate);
        }
    for (size_t i = 0; i < L->cappairs; i++) {
        memset(L->pairs[i].use[mode], 0, sizeof L->pairs[i].use[mode]);
        if (active)
            memset(L->pairs[i].rate, 0, sizeof L->pairs[i].rate);
    }
    memset(L->sys[mode], 0, sizeof L->sys[mode]);
    if (active)
        memset(L->sys_rate, 0, sizeof L->sys_rate);
}

void limits_clear_kind(struct limits *L, int kind, enum lim_mode mode)
{
    if (kind < 0 || (mode == LIM_ACTIVE && L->rates)) {
        limits_clear_usage(L, mode); /* the rates too (left from walks before eset) */
        return;
    }
    for (size_t i = 0; i < L->nslots[kind]; i++)
        memset(L->slots[kind][i].use[mode], 0, sizeof L->slots[kind][i].use[mode]);
}

static void add_into(double *use, const double *req, int sign, int n)
{
    for (int t = 0; t < n; t++) {
        use[t] += sign * req[t];
        if (use[t] < LIM_EPS && use[t] > -LIM_EPS)
            use[t] = 0; /* what rounding left of a removed job */
    }
}

/* limits_add_kind's work on one slot: the types it keeps. */
static inline void slot_add(struct lim_slot *sl, enum lim_mode mode, const double req[LIM_NTYPES],
                            int sign)
{
    double *use = sl->use[mode];
    for (unsigned m = sl->kept; m; m &= m - 1) {
        int t = __builtin_ctz(m);
        use[t] += sign * req[t];
        if (use[t] < LIM_EPS && use[t] > -LIM_EPS)
            use[t] = 0; /* what rounding left of a removed job */
    }
}

void limits_add_kind(struct limits *L, const struct job *j, int kind, enum lim_mode mode,
                     const double req[LIM_NTYPES], int sign)
{
    const struct cred *c = kind >= 0 ? limit_cred(j, (enum cred_kind)kind) : NULL;
    if (kind < 0) {
        limits_add(L, j, mode, req, sign);
    } else if (c) {
        /* One kind is all limits count (limits_single_kind): a type no limit
         * of the slot sets is never compared, so it is not kept (it stays 0). */
        slot_add(slot_get(L, (enum cred_kind)kind, c), mode, req, sign);
    }
}

void limits_add(struct limits *L, const struct job *j, enum lim_mode mode,
                const double req[LIM_NTYPES], int sign)
{
    for (int k = 0; k < CRED_NKINDS; k++) {
        const struct cred *c = limit_cred(j, (enum cred_kind)k);
        if (c)
            add_into(slot_get(L, (enum cred_kind)k, c)->use[mode], req, sign, LIM_NTYPES);
    }
    for (int k = 0; k < CRED_NKINDS; k++) {
        for (int in = 0; in < LIM_NINNER; in++) {
            unsigned bit = (unsigned)(k * LIM_NINNER + in);
            const struct cred *o = limit_cred(j, (enum cred_kind)k);
            const struct cred *u = limit_cred(j, inner_kind[in]);
            if ((L->conf->pairs >> bit & 1) && o && u)
                add_into(pair_get(L, bit + 1, o->index, u->index)->use[mode], req, sign,
                         LIM_NTYPES);
        }
    }
    add_into(L->sys[mode], req, sign, LIM_NTYPES);
}

void limits_add_rate(struct limits *L, const struct job *j, int kind, int sign)
{
    double r[LIM_NRATES] = {[LIM_RATE_PS] = (double)job_procs(j), [LIM_RATE_WC] = 1};
    L->rates = 1;
    for (int k = 0; k < CRED_NKINDS; k++) {
        const struct cred *c = limit_cred(j, (enum cred_kind)k);
        if (c && (kind < 0 || kind == k))
            add_into(slot_get(L, (enum cred_kind)k, c)->rate, r, sign, LIM_NRATES);
    }
    if (kind >= 0)
        return; /* one kind is all there is to check (limits_single_kind) */
    for (int k = 0; k < CRED_NKINDS; k++) {
        for (int in = 0; in < LIM_NINNER; in++) {
            unsigned bit = (unsigned)(k * LIM_NINNER + in);
            const struct cred *o = limit_cred(j, (enum cred_kind)k);
            const struct cred *u = limit_cred(j, inner_kind[in]);
            if ((L->conf->pairs >> bit & 1) && o && u)
                add_into(pair_get(L, bit + 1, o->index, u->index)->rate, r, sign, LIM_NRATES);
        }
    }
    add_into(L->sys_rate, r, sign, LIM_NRATES);
}

const double *limits_usage(const struct limits *L, const struct job *j, enum cred_kind k,
                           enum lim_mode mode)
{
    const struct cred *c = limit_cred(j, k);
    return c ? slot_use(L, k, c, mode) : no_usage;
}

void limits_set_usage(struct limits *L, const struct job *j, enum cred_kind k, enum lim_mode mode,
                      const double use[LIM_NTYPES])
{
    const struct cred *c = limit_cred(j, k);
    if (c)
        memcpy(slot_get(L, k, c)->use[mode], use, sizeof(double) * LIM_NTYPES);
}

void limits_clear_job(struct limits *L, const struct job *j, enum lim_mode mode)
{
    for (int k = 0; k < CRED_NKINDS; k++) {
        const struct cred *c = limit_cred(j, (enum cred_kind)k);
        if (c && c->index < L->nslots[k])
            memset(L->slots[k][c->index].use[mode], 0, sizeof L->slots[k][c->index].use[mode]);
    }
}

/* Whether set s limits anything (a value set, even unlimited). */
static int set_used(const struct lim_set *s)
{
    for (int m = 0; m < LIM_NMODES; m++)
        for (int t = 0; t < LIM_NTYPES; t++)
            if (s->v[m][t].hard || s->v[m][t].soft)
                return 1;
    return 0;
}

int limits_single_kind(const struct limits *L)
{
    return L->single;
}

static int single_kind(const struct lim_conf *c)
{
    if (c->pairs || set_used(&c->sys.own))
        return -1;
    int kind = -1;
    for (int k = 0; k < CRED_NKINDS; k++) {
        for (size_t i = 0; i < c->nobjs[k]; i++) {
            const struct lim_obj *o = c->objs[k][i];
            if (set_used(&o->over) || set_used(&o->over_user))
                return -1; /* a QOS's override reaches every kind */
            if (!set_used(&o->own))
                continue;
            if (kind >= 0 && kind != k)
                return -1;
            kind = k;
        }
    }
    if (kind == CRED_ACCOUNT)
        return -1; /* jobs without an account have none for the limits */
    return kind < 0 ? CRED_USER : kind;
}

/* ------------------------------------------------------------------ checks */

/* limits_lift's answer so far: the most seconds any violated limit needs
 * before time alone lifts it, or never. */
struct lift {
    long secs;
    int never;
};

/* Usage over `limit` by `excess` > 0, of type t, running down at rate[]:
 * how long until it is within (the first whole second: usage, requests and
 * rates are whole numbers of processor-seconds, seconds, processors). */
static void lift_note(struct lift *lf, enum lim_type t, double excess, const double *rate)
{
    double r = t == LIM_PS ? rate[LIM_RATE_PS] : t == LIM_WC ? rate[LIM_RATE_WC] : 0;
    if (r <= 0) {
        lf->never = 1; /* not a type time runs down, or nothing of it is running down */
        return;
    }
    double secs = ceil(excess / r - 1e-9);
    long s = secs < 1 ? 1 : secs > (double)(LONG_MAX / 4) ? LONG_MAX / 4 : (long)secs;
    if (s > lf->secs)
        lf->secs = s;
}

/* One check: what it asks and where the answer goes. */
struct chk {
    const struct job *j;
    enum lim_mode mode; /* LIM_NMODES for the per-job ("system") limits */
    enum lim_level level;
    const double *req;
    char *why;
    size_t len;
    int alone;         /* usage counts as zero (limits_check_alone) */
    double *excess;    /* limits_excess: every violation's excess, none stops the check */
    struct lift *lift; /* limits_lift: every violation's time to lift, none stops it */
};

static long long level_of(const struct chk *x, const struct lim_val *v)
{
    return !v ? 0 : x->level == LIM_SOFT ? v->soft : v->hard;
}

static const struct lim_val *pick(const struct lim_set *s, const struct chk *x, enum lim_type t)
{
    return s && s->v[x->mode][t].hard ? &s->v[x->mode][t] : NULL;
}

/*
 * Whether usage + request goes over the limit (0 = none); when it does, say
 * so for `kind name` ("user alice", "par ALL"), with `in okind oname` for a
 * pair ("user alice in class batch").
 */
static int violates(const struct chk *x, enum lim_type t, long long limit, double usage,
                    const double *rate, const char *kind, const char *name, const char *okind,
                    const char *oname)
{
    if (x->alone)
        usage = 0;
    if (limit <= 0 || usage + x->req[t] <= (double)limit + LIM_EPS)
        return 0;
    if (x->lift) { /* the check goes on unless this one never lifts */
        lift_note(x->lift, t, usage + x->req[t] - (double)limit, rate ? rate : no_rate);
        return x->lift->never;
    }
    if (x->excess) {
        double e = usage + x->req[t] - (double)limit;
        if (e > x->excess[t])
            x->excess[t] = e;
        return 0;
    }
    if (x->why && x->len) {
        static const char *const modes[] = {"active", "idle", "system"};
        snprintf(x->why, x->len,
                 "job %s violates %s %s %s limit of %lld for %s %s%s%s%s%s (R: %lld, U: %lld)",
                 x->j->name ? x->j->name : "?", modes[x->mode],
                 x->level == LIM_SOFT ? "SOFT" : "HARD", type_names[t], limit, kind, name,
                 okind ? " in " : "", okind ? okind : "", okind ? " " : "", okind ? oname : "",
                 llround(x->req[t]), llround(usage));
    }
    return 1;
}

/* A credential's limit: the QOS override, else its own, else its DEFAULT's. */
static long long cred_limit(const struct limits *L, const struct chk *x, enum cred_kind k,
                            const struct lim_obj *own, const struct lim_obj *qos, enum lim_type t)
{
    const struct lim_val *v = NULL;
    if (qos && k == CRED_USER)
        v = pick(&qos->over_user, x, t);
    if (!v && qos)
        v = pick(&qos->over, x, t);
    if (!v && own)
        v = pick(&own->own, x, t);
    if (!v && L->conf->def[k])
        v = pick(&L->conf->def[k]->own, x, t);
    return level_of(x, v);
}

static int check_kind(const struct limits *L, const struct chk *x, const struct lim_obj *qos,
                      enum cred_kind k)
{
    const struct cred *c = limit_cred(x->j, k);
    if (!c)
        return 0;
    const struct lim_obj *own = obj_of(L, k, c);
    const double *use = slot_use(L, k, c, x->mode);
    for (int t = 0; t < LIM_NTYPES; t++) {
        long long lim = cred_limit(L, x, k, own, qos, (enum lim_type)t);
        if (violates(x, (enum lim_type)t, lim, use[t], slot_rate(L, k, c), kind_words[k], c->name,
                     NULL, NULL))
            return 1;
    }
    return 0;
}

static int check_creds(const struct limits *L, const struct chk *x, const struct lim_obj *qos)
{
    for (int k = 0; k < CRED_NKINDS; k++)
        if (check_kind(L, x, qos, (enum cred_kind)k))
            return 1;
    return 0;
}

/* The limit outer object o sets on its member `name`: MAXJOB[USER:name], else MAXJOB[USER]. */
static const struct lim_val *pair_pick(const struct lim_obj *o, enum lim_inner in, const char *name,
                                       const struct chk *x, enum lim_type t)
{
    size_t i;
    const struct lim_val *v = NULL;
    if (!o)
        return NULL;
    if (o->nnamed[in] && strmap_get(&o->byname[in], name, &i))
        v = pick(&o->named[in][i]->set, x, t);
    return v ? v : pick(&o->inner[in], x, t);
}

static int check_pair(const struct limits *L, const struct chk *x, const struct lim_obj *qos,
                      enum cred_kind k, enum lim_inner in)
{
    const struct cred *o = limit_cred(x->j, k), *u = limit_cred(x->j, inner_kind[in]);
    if (!o || !u)
        return 0;
    const struct lim_obj *own = obj_of(L, k, o);
    unsigned kind = (unsigned)(k * LIM_NINNER + in) + 1;
    const struct lim_pslot *p = pair_find(L, kind, o->index, u->index);
    const double *use = p ? p->use[x->mode] : no_usage;
    for (int t = 0; t < LIM_NTYPES; t++) {
        const struct lim_val *v = NULL;
        if (qos && in == LIM_IN_USER)
            v = pick(&qos->over_user, x, (enum lim_type)t);
        if (!v)
            v = pair_pick(own, in, u->name, x, (enum lim_type)t);
        if (!v)
            v = pair_pick(L->conf->def[k], in, u->name, x, (enum lim_type)t);
        if (violates(x, (enum lim_type)t, level_of(x, v), use[t], p ? p->rate : no_rate,
                     kind_words[inner_kind[in]], u->name, kind_words[k], o->name))
            return 1;
    }
    return 0;
}

static int check_pairs(const struct limits *L, const struct chk *x, const struct lim_obj *qos)
{
    for (int k = 0; k < CRED_NKINDS; k++)
        for (int in = 0; in < LIM_NINNER; in++)
            if ((L->conf->pairs >> (k * LIM_NINNER + in) & 1) &&
                check_pair(L, x, qos, (enum cred_kind)k, (enum lim_inner)in))
                return 1;
    return 0;
}

static int check_system(const struct limits *L, const struct chk *x)
{
    const struct lim_obj *s = &L->conf->sys;
    for (int t = 0; t < LIM_NTYPES; t++)
        if (violates(x, (enum lim_type)t, level_of(x, pick(&s->own, x, (enum lim_type)t)),
                     L->sys[x->mode][t], L->sys_rate, "par", s->name, NULL, NULL))
            return 1;
    return 0;
}

static const struct lim_obj *job_qos(const struct limits *L, const struct job *j)
{
    return j->qos ? obj_of(L, CRED_QOS, j->qos) : NULL;
}

/* Whether no limit can apply to j: none configured, or its QOS has IGNALL.
 * Clears why and gives the job's QOS limits object. */
static int exempt(const struct limits *L, const struct job *j, const struct lim_obj **qos,
                  char *why, size_t len)
{
    if (why && len)
        why[0] = '\0';
    if (!L->conf->any)
        return 1;
    *qos = job_qos(L, j);
    return *qos && (*qos)->ignall;
}

/* exempt, for the checks of one bound slot (limits_single_kind), which
 * read no QOS override: the job's QOS is looked up (by name, unless some
 * limit bound its slot) only when some QOS has IGNALL at all. */
static int exempt_by_qos(const struct limits *L, const struct job *j)
{
    const struct lim_obj *qos = job_qos(L, j);
    return qos && qos->ignall;
}

/* Inline: a walk asks it of every job it reads (limits_violations2), and
 * without IGNALL anywhere the answer is two loads. */
static inline int exempt_fast(const struct limits *L, const struct job *j)
{
    if (!L->conf->any)
        return 1;
    return L->conf->ignall_any && exempt_by_qos(L, j);
}

int limits_check(const struct limits *L, const struct job *j, enum lim_mode mode,
                 enum lim_level level, const double req[LIM_NTYPES], char *why, size_t len)
{
    const struct lim_obj *qos = NULL;
    if (exempt(L, j, &qos, why, len))
        return 0;
    struct chk x = {j, mode, level, req, why, len, 0, NULL, NULL};
    return check_creds(L, &x, qos) || check_pairs(L, &x, qos) || check_system(L, &x);
}

/* Every check of j in `mode` at `level` into x: all kinds, pairs and the
 * system, or (kind >= 0, limits_single_kind's answer) that kind alone. */
static int check_all(const struct limits *L, struct chk *x, const struct lim_obj *qos, int kind)
{
    if (kind >= 0)
        return check_kind(L, x, qos, (enum cred_kind)kind);
    if (x->excess) { /* nothing stops at a violation: every limit is looked at */
        check_creds(L, x, qos);
        check_pairs(L, x, qos);
        check_system(L, x);
        return 0;
    }
    return check_creds(L, x, qos) || check_pairs(L, x, qos) || check_system(L, x);
}

/* The bound slot of j's credential of kind k, or NULL. */
static const struct lim_slot *bound_slot(const struct limits *L, const struct job *j, int k)
{
    const struct cred *c = limit_cred(j, (enum cred_kind)k);
    if (!c || c->index >= L->nslots[k] || !L->slots[k][c->index].bound)
        return NULL;
    return &L->slots[k][c->index];
}

int limits_check_fast(const struct limits *L, const struct job *j, int kind, enum lim_mode mode,
                      enum lim_level level, const double req[LIM_NTYPES])
{
    const struct lim_obj *qos = NULL;
    const struct lim_slot *sl = kind >= 0 ? bound_slot(L, j, kind) : NULL;
    if (sl ? exempt_fast(L, j) : exempt(L, j, &qos, NULL, 0))
        return 0;
    if (sl) { /* one kind: its resolved limits are all there is */
        const double *cap = sl->cap[mode][level];
        const double *use = sl->use[mode];
        for (unsigned m = sl->set[mode][level]; m; m &= m - 1) {
            int t = __builtin_ctz(m);
            if (use[t] + req[t] > cap[t])
                return 1;
        }
        return 0;
    }
    struct chk x = {j, mode, level, req, NULL, 0, 0, NULL, NULL};
    return check_all(L, &x, qos, kind);
}

int limits_count_full(const struct limits *L, const struct job *j, int kind, enum lim_mode mode,
                      enum lim_level level)
{
    const struct lim_slot *sl = kind >= 0 ? bound_slot(L, j, kind) : NULL;
    if (!sl || !(sl->set[mode][level] & 1u << LIM_JOB) || exempt_fast(L, j))
        return 0;
    return sl->use[mode][LIM_JOB] + 1 > sl->cap[mode][level][LIM_JOB]; /* every job asks one */
}

/* The types one bound slot's limits at `level` in `mode` refuse. */
static unsigned slot_violations(const struct lim_slot *sl, enum lim_mode mode, enum lim_level level,
                                const double req[LIM_NTYPES])
{
    const double *cap = sl->cap[mode][level];
    const double *use = sl->use[mode];
    unsigned v = 0;
    /* Only the types set: a walk asks this of every job it reads. */
    for (unsigned m = sl->set[mode][level]; m; m &= m - 1) {
        int t = __builtin_ctz(m);
        if (use[t] + req[t] > cap[t])
            v |= 1u << t;
    }
    return v;
}

unsigned limits_violations(const struct limits *L, const struct job *j, int kind,
                           enum lim_mode mode, enum lim_level level, const double req[LIM_NTYPES])
{
    const struct lim_slot *sl = kind >= 0 ? bound_slot(L, j, kind) : NULL;
    if (sl ? exempt_fast(L, j) : !L->conf->any)
        return 0; /* (limits_excess looks at the QOS otherwise) */
    if (sl)
        return slot_violations(sl, mode, level, req);
    unsigned v = 0;
    double ex[LIM_NTYPES];
    limits_excess(L, j, kind, mode, level, req, ex);
    for (int t = 0; t < LIM_NTYPES; t++)
        if (ex[t] > 0)
            v |= 1u << t;
    return v;
}

/* limits_violations2's answer through a bound slot sl. */
static inline void slot_violations2(const struct limits *L, const struct lim_slot *sl,
                                    const struct job *j, enum lim_level level,
                                    const double req[LIM_NTYPES], unsigned *active, unsigned *idle)
{
    if (exempt_fast(L, j)) {
        *active = *idle = 0;
        return;
    }
    /* both modes in one place: a walk asks this of every job it reads */
    const double *ca = sl->cap[LIM_ACTIVE][level], *ci = sl->cap[LIM_IDLE][level];
    const double *ua = sl->use[LIM_ACTIVE], *ui = sl->use[LIM_IDLE];
    unsigned va = 0, vi = 0;
    for (unsigned m = sl->set[LIM_ACTIVE][level]; m; m &= m - 1) {
        int t = __builtin_ctz(m);
        va |= ua[t] + req[t] > ca[t] ? 1u << t : 0u;
    }
    for (unsigned m = sl->set[LIM_IDLE][level]; m; m &= m - 1) {
        int t = __builtin_ctz(m);
        vi |= ui[t] + req[t] > ci[t] ? 1u << t : 0u;
    }
    *active = va;
    *idle = vi;
}

void limits_violations2(const struct limits *L, const struct job *j, int kind, enum lim_level level,
                        const double req[LIM_NTYPES], unsigned *active, unsigned *idle)
{
    const struct lim_slot *sl = kind >= 0 ? bound_slot(L, j, kind) : NULL;
    if (!sl) {
        *active = limits_violations(L, j, kind, LIM_ACTIVE, level, req);
        *idle = limits_violations(L, j, kind, LIM_IDLE, level, req);
    } else {
        slot_violations2(L, sl, j, level, req, active, idle);
    }
}

/* The types time runs down (PS, WC): over those alone, a refusal lifts. */
#define TIMED (1u << LIM_PS | 1u << LIM_WC)

void limits_cut(const struct limits *L, const struct job *j, int kind, enum lim_level level,
                const double req[LIM_NTYPES], unsigned *active, unsigned *idle,
                double excess[LIM_NTYPES])
{
    const struct lim_slot *sl = kind >= 0 ? bound_slot(L, j, kind) : NULL;
    if (!sl) {
        limits_violations2(L, j, kind, level, req, active, idle);
        if (!*idle && *active && !(*active & ~TIMED))
            limits_excess(L, j, kind, LIM_ACTIVE, level, req, excess);
        return;
    }
    slot_violations2(L, sl, j, level, req, active, idle);
    if (*idle || !*active || (*active & ~TIMED))
        return;
    /* limits_excess's slot path: exempt_fast said no (there are violations) */
    const long long *lim = sl->lim[LIM_ACTIVE][level];
    const double *use = sl->use[LIM_ACTIVE];
    for (int t = 0; t < LIM_NTYPES; t++)
        excess[t] = 0;
    for (unsigned m = sl->set[LIM_ACTIVE][level]; m; m &= m - 1) {
        int t = __builtin_ctz(m);
        double e = use[t] + req[t] - (double)lim[t];
        if (e > LIM_EPS)
            excess[t] = e;
    }
}

int limits_admit_kind(struct limits *L, const struct job *j, int kind, enum lim_level level,
                      const double req[LIM_NTYPES], unsigned *active, unsigned *idle)
{
    const struct lim_slot *bound = kind >= 0 ? bound_slot(L, j, kind) : NULL;
    if (!bound) {
        limits_violations2(L, j, kind, level, req, active, idle);
        if (*active | *idle)
            return 0;
        limits_add_kind(L, j, kind, LIM_IDLE, req, +1);
        return 1;
    }
    slot_violations2(L, bound, j, level, req, active, idle);
    if (*active | *idle)
        return 0;
    slot_add((struct lim_slot *)bound, LIM_IDLE, req, +1); /* slot_get's; L is not const here */
    return 1;
}

int limits_admit_request(struct limits *L, const struct job *j, int kind, enum lim_level level,
                         long seconds, const struct prio_env *env, double req[LIM_NTYPES],
                         unsigned *active, unsigned *idle)
{
    const struct lim_slot *sl = kind >= 0 ? bound_slot(L, j, kind) : NULL;
    if (sl && !(sl->kept & ~REQ_CHEAP))
        request_cheap(j, seconds, req); /* nodes and memory (a branch and two
                                           conversions each): nothing reads them */
    else
        limits_request_for(L, j, seconds, env, req);
    if (!sl)
        return limits_admit_kind(L, j, kind, level, req, active, idle);
    slot_violations2(L, sl, j, level, req, active, idle);
    if (*active | *idle)
        return 0;
    slot_add((struct lim_slot *)sl, LIM_IDLE, req, +1); /* as limits_admit_kind */
    return 1;
}

/* use less x, what rounding leaves of zero made zero (as slot_add). */
static inline double take_one(double use, double x)
{
    use -= x;
    return use < LIM_EPS && use > -LIM_EPS ? 0 : use;
}

/* limits_take of a request of PS and WC alone, without building it: every
 * iteration runs each credential with running jobs down (issue 31: 2.8 M
 * calls on HPC2N under the throttling page). A bound slot keeps PS and WC
 * (resolve), an unbound one nothing; the other types would lose 0, which
 * leaves them as they are (slot_add never stores a value within LIM_EPS of
 * zero but zero). */
void limits_run_down(struct limits *L, int kind, size_t index, double ps, double wc)
{
    if (kind < 0 || index >= L->nslots[kind] || !L->slots[kind][index].kept)
        return;
    double *use = L->slots[kind][index].use[LIM_ACTIVE];
    use[LIM_PS] = take_one(use[LIM_PS], ps);
    use[LIM_WC] = take_one(use[LIM_WC], wc);
}

void limits_take(struct limits *L, int kind, size_t index, const double req[LIM_NTYPES])
{
    if (kind < 0 || index >= L->nslots[kind])
        return;
    struct lim_slot *sl = &L->slots[kind][index];
    for (unsigned m = sl->kept; m; m &= m - 1) { /* as limits_add_kind keeps them */
        int t = __builtin_ctz(m);
        sl->use[LIM_ACTIVE][t] -= req[t];
        if (sl->use[LIM_ACTIVE][t] < LIM_EPS && sl->use[LIM_ACTIVE][t] > -LIM_EPS)
            sl->use[LIM_ACTIVE][t] = 0;
    }
}

unsigned limits_kind_types(const struct limits *L, int kind)
{
    unsigned m = 0;
    for (size_t i = 0; kind >= 0 && i < L->conf->nobjs[kind]; i++)
        for (int mode = 0; mode < LIM_NMODES; mode++)
            for (int t = 0; t < LIM_NTYPES; t++)
                m |= L->conf->objs[kind][i]->own.v[mode][t].hard ? 1u << t : 0u;
    const struct lim_obj *d = kind >= 0 ? L->conf->def[kind] : NULL;
    for (int mode = 0; d && mode < LIM_NMODES; mode++)
        for (int t = 0; t < LIM_NTYPES; t++)
            m |= d->own.v[mode][t].hard ? 1u << t : 0u;
    return m;
}

int limits_pe_any(const struct limits *L)
{
    return L->conf->pe_any;
}

int limits_room(const struct limits *L, const struct job *j, int kind, enum lim_level level,
                struct lim_room *r)
{
    const struct lim_slot *sl = kind >= 0 ? bound_slot(L, j, kind) : NULL;
    if (!sl || !L->conf->any || L->conf->ignall_any)
        return 0;
    for (int m = 0; m < LIM_NMODES; m++) {
        r->set[m] = sl->set[m][level];
        if (r->set[m] & 1u << LIM_PE)
            return 0;
        r->use[m] = sl->use[m];
        r->cap[m] = sl->cap[m][level];
    }
    return 1;
}

void limits_excess(const struct limits *L, const struct job *j, int kind, enum lim_mode mode,
                   enum lim_level level, const double req[LIM_NTYPES], double excess[LIM_NTYPES])
{
    const struct lim_obj *qos = NULL;
    for (int t = 0; t < LIM_NTYPES; t++)
        excess[t] = 0;
    const struct lim_slot *sl = kind >= 0 ? bound_slot(L, j, kind) : NULL;
    if (sl ? exempt_fast(L, j) : exempt(L, j, &qos, NULL, 0))
        return;
    if (sl) { /* only the types set (lim > 0): a walk's cut asks this often */
        const long long *lim = sl->lim[mode][level];
        const double *use = sl->use[mode];
        for (unsigned m = sl->set[mode][level]; m; m &= m - 1) {
            int t = __builtin_ctz(m);
            double e = use[t] + req[t] - (double)lim[t];
            if (e > LIM_EPS)
                excess[t] = e;
        }
        return;
    }
    struct chk x = {j, mode, level, req, NULL, 0, 0, excess, NULL};
    check_all(L, &x, qos, kind);
}

double limits_excess_one(const struct limits *L, const struct job *j, int kind,
                         enum lim_level level, enum lim_type t, double x)
{
    const struct lim_slot *sl = kind >= 0 ? bound_slot(L, j, kind) : NULL;
    if (!sl) {
        double req[LIM_NTYPES] = {0}, ex[LIM_NTYPES];
        req[t] = x;
        limits_excess(L, j, kind, LIM_ACTIVE, level, req, ex);
        return ex[t];
    }
    if (!(sl->set[LIM_ACTIVE][level] & 1u << t) || exempt_fast(L, j))
        return 0;
    double e = sl->use[LIM_ACTIVE][t] + x - (double)sl->lim[LIM_ACTIVE][level][t];
    return e > LIM_EPS ? e : 0; /* as limits_excess */
}

long limits_lift(const struct limits *L, const struct job *j, int kind, enum lim_level level,
                 const double req[LIM_NTYPES])
{
    const struct lim_obj *qos = NULL;
    const struct lim_slot *sl = kind >= 0 ? bound_slot(L, j, kind) : NULL;
    if (sl ? exempt_fast(L, j) : exempt(L, j, &qos, NULL, 0))
        return 0;
    struct lift lf = {0, 0};
    if (sl) {
        const long long *lim = sl->lim[LIM_ACTIVE][level];
        const double *use = sl->use[LIM_ACTIVE];
        for (int t = 0; t < LIM_NTYPES; t++) {
            double e = use[t] + req[t] - (double)lim[t];
            if (lim[t] > 0 && e > LIM_EPS)
                lift_note(&lf, (enum lim_type)t, e, sl->rate);
            if (lf.never)
                break;
        }
    } else {
        struct chk x = {j, LIM_ACTIVE, level, req, NULL, 0, 0, NULL, &lf};
        check_all(L, &x, qos, kind);
    }
    return lf.never ? -1 : lf.secs;
}

/* Less than any job asks: every request is at least this, type by type
 * (a processor, a second, a job; processor equivalents may be fractional). */
static const double least[LIM_NTYPES] = {[LIM_JOB] = 1, [LIM_PROC] = 1, [LIM_PS] = 1, [LIM_WC] = 1};

int limits_full(const struct limits *L, const struct job *j, int kind, enum lim_level level,
                double excess[LIM_NTYPES])
{
    if (limits_check_fast(L, j, kind, LIM_IDLE, level, least)) {
        for (int t = 0; t < LIM_NTYPES; t++)
            excess[t] = 0;
        return 2;
    }
    if (!limits_check_fast(L, j, kind, LIM_ACTIVE, level, least))
        return 0;
    limits_excess(L, j, kind, LIM_ACTIVE, level, least, excess);
    return 1;
}

int limits_check_alone(const struct limits *L, const struct job *j, enum lim_mode mode,
                       enum lim_level level, const double req[LIM_NTYPES], char *why, size_t len)
{
    const struct lim_obj *qos = NULL;
    if (exempt(L, j, &qos, why, len))
        return 0;
    struct chk x = {j, mode, level, req, why, len, 1, NULL, NULL};
    return check_creds(L, &x, qos) || check_pairs(L, &x, qos) || check_system(L, &x);
}

/* ---------------------------------------------------------- per-job limits */

/* A credential's per-job limit: its own, else its DEFAULT object's. */
static long long job_limit(const struct lim_obj *own, const struct lim_obj *def, enum lim_type t)
{
    if (own && own->per_job[t])
        return own->per_job[t];
    return def ? def->per_job[t] : 0;
}

int limits_check_job(const struct limits *L, const struct job *j, const struct prio_env *env,
                     char *why, size_t len)
{
    const struct lim_obj *qos = NULL;
    if (exempt(L, j, &qos, why, len) || !L->per_job)
        return 0; /* a limit of 0 or below is none */
    double req[LIM_NTYPES];
    limits_request(j, j->walltime, env, req);
    struct chk x = {j, LIM_NMODES, LIM_HARD, req, why, len, 0, NULL, NULL};
    for (int k = 0; k < CRED_NKINDS; k++) {
        const struct cred *c = limit_cred(j, (enum cred_kind)k);
        if (!c)
            continue;
        const struct lim_obj *own = obj_of(L, (enum cred_kind)k, c);
        for (int t = 0; t < LIM_NTYPES; t++)
            if (violates(&x, (enum lim_type)t, job_limit(own, L->conf->def[k], (enum lim_type)t),
                         0.0, NULL, kind_words[k], c->name, NULL, NULL))
                return 1;
    }
    const struct lim_obj *s = &L->conf->sys;
    for (int t = 0; t < LIM_NTYPES; t++) {
        long long lim = qos && qos->over_job[t] ? qos->over_job[t] : s->per_job[t];
        if (violates(&x, (enum lim_type)t, lim, 0.0, NULL, "par", s->name, NULL, NULL))
            return 1;
    }
    return 0;
}
