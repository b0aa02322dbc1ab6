/*
 * prio — Maui's job priority function (MPriority.c:MJobGetStartPriority and
 * MJob.c:MJobGetRunPriority, digest §2). See prio.h for the formula.
 *
 * One pass over the factors per job, no allocation: each weighted factor is
 * computed, capped and added to its component's sum; the components are
 * weighted, capped and added; the total is clamped and clipped as Maui's
 * final assembly does (§2.7). Factors without weight are not computed unless
 * the caller asks for the parts (diagnose -p, checkjob). The reading of
 * maui.cfg lives in prio_cfg.c.
 *
 * Where moku deliberately differs from Maui 3.3.1 (docs/priority.md):
 *   - TARGETQUEUETIME measures the distance between the QOS target and the
 *     job's queue *duration*; Maui subtracted the absolute queue-start
 *     timestamp and so always saturated at 1e8;
 *   - the run-priority usage sum keeps all four terms (a comma operator left
 *     only EXECUTIONTIME in Maui), PERCENT is used / walltime;
 *   - the priority is kept as a double (Maui truncated to long, then sorted
 *     ties in no particular order; moku's order is one of Maui's orders);
 *   - RES UPROC/UJOB are not factors (Maui computed them, never summed them).
 */
#include "policy/prio.h"

#include <limits.h>
#include <stdint.h>
#include <string.h>

/* Maui's MAX_PRIO_VAL: priorities are clipped to +-1e9 before any system priority. */
/* Distance floor of the target factors: (1e-4)^-2 = 1e8 once a target is reached. */
#define PRIO_TARGET_EPS 0.0001

static const char *const comp_names[PRIO_NCOMP] = {"serv", "targ", "cred", "attr",
                                                   "fs",   "res",  "usage"};
static const char *const factor_names[PF_NFACTORS] = {
    "queuetime",     "xfactor", "bypass",       "spviolation", "targetqueuetime",
    "targetxfactor", "user",    "group",        "account",     "qos",
    "class",         "fsuser",  "fsgroup",      "fsaccount",   "fsqos",
    "fsclass",       "node",    "proc",         "mem",         "swap",
    "disk",          "ps",      "pe",           "walltime",    "consumed",
    "remaining",     "percent", "executiontime"};

/* The component of each factor, in enum order; ATTR has none. */
/* clang-format off */
static const unsigned char factor_comp[PF_NFACTORS] = {
    PRIO_SERV, PRIO_SERV, PRIO_SERV, PRIO_SERV,                         /* QT XF BP SPV */
    PRIO_TARG, PRIO_TARG,                                               /* TQT TXF */
    PRIO_CRED, PRIO_CRED, PRIO_CRED, PRIO_CRED, PRIO_CRED,              /* U G A Q C */
    PRIO_FS, PRIO_FS, PRIO_FS, PRIO_FS, PRIO_FS,                        /* FS U G A Q C */
    PRIO_RES, PRIO_RES, PRIO_RES, PRIO_RES, PRIO_RES, PRIO_RES, PRIO_RES, PRIO_RES, /* RES */
    PRIO_USAGE, PRIO_USAGE, PRIO_USAGE, PRIO_USAGE,                     /* USAGE */
};
/* clang-format on */

const char *prio_comp_name(enum prio_comp c)
{
    return c < PRIO_NCOMP ? comp_names[c] : "?";
}

const char *prio_factor_name(enum prio_factor f)
{
    return f < PF_NFACTORS ? factor_names[f] : "?";
}

enum prio_comp prio_factor_comp(enum prio_factor f)
{
    return f < PF_NFACTORS ? (enum prio_comp)factor_comp[f] : PRIO_NCOMP;
}

void prio_params_default(struct prio_params *p)
{
    memset(p, 0, sizeof *p);
    for (int c = 0; c < PRIO_NCOMP; c++)
        p->cweight[c] = 1;
    p->fweight[PF_QUEUETIME] = 1;
    p->xfminwclimit = 120;
    p->accrual = ACCRUE_QUEUEPOLICY;
}

static double dmax(double a, double b)
{
    return a > b ? a : b;
}

/* An upper cap, applied only when positive (Maui has no lower caps). */
static double capped(double v, double cap)
{
    return cap > 0 && v > cap ? cap : v;
}

/* What one priority is computed from. `running` selects the run priority's
 * USAGE factors (0 for the start priority, as in Maui). */
struct eval {
    const struct prio_params *p;
    const struct prio_env *env;
    const struct job *j;
    long now;
    int running;
};

long prio_qstop_from(const struct prio_env *env, long now)
{
    long from = env->qstop;
    if (env->poll > 0 && now > LONG_MIN / 2) {
        long t = now - 1;
        long g = t - ((t % env->poll) + env->poll) % env->poll; /* t floored to the grid */
        if (g > from)
            from = g;
    }
    return from;
}

/* Seconds of queue time: since qtime_start, which the engine moves according
 * to JOBPRIOACCRUALPOLICY. A start in the future counts as no queue time. */
static inline double queue_seconds(const struct eval *e)
{
    long from = e->j->flags & JOB_QSTOP ? prio_qstop_from(e->env, e->now) : e->j->qtime_start;
    return e->now > from ? (double)(e->now - from) : 0.0;
}

/* ((queued + walltime) / max(XFMINWCLIMIT, walltime)), i.e. 1 + queued / walltime
 * for a walltime above the minimum. */
static double xfactor(const struct eval *e)
{
    double wc = (double)e->j->walltime;
    double div = dmax((double)e->p->xfminwclimit, wc);
    return (queue_seconds(e) + wc) / (div > 0 ? div : 1.0);
}

/* 1/d^2 of the distance left to a target, saturating at 1e8 when reached.
 * TARGETQUEUETIME measures the queue duration (Maui: the absolute timestamp). */
static double target_closeness(double distance)
{
    double d = dmax(PRIO_TARGET_EPS, distance);
    return 1.0 / (d * d);
}

static double target_qt(const struct eval *e)
{
    const struct cred *q = e->j->qos;
    if (!q || q->qttarget <= 0)
        return 0.0;
    return target_closeness((double)q->qttarget - queue_seconds(e));
}

static double target_xf(const struct eval *e)
{
    const struct cred *q = e->j->qos;
    if (!q || q->xftarget <= 0)
        return 0.0;
    return target_closeness(q->xftarget - xfactor(e));
}

/* A credential's PRIORITY, or the DEFAULT object's when it has none. The QOS
 * has no such fallback in Maui. */
static double cred_priority(const struct eval *e, const struct cred *c, enum cred_kind k)
{
    long v = c ? c->priority : 0;
    if (v == 0 && k != CRED_QOS && e->env->defaults[k])
        v = e->env->defaults[k]->priority;
    return (double)v;
}

static double fs_delta(const struct cred *c)
{
    return c ? c->fs_delta : 0.0;
}

/* A per-task amount over a cluster total, when both are known. */
static double share(long per_task, long long total)
{
    return per_task > 0 && total > 0 ? (double)per_task / (double)total : 0.0;
}

/*
 * Processor equivalents (MJob.c:MJobGetPE): the cluster's processors times
 * the job's largest share of any configured resource, per task. With only
 * processors known it is the job's processor count.
 */
double prio_pe(const struct prio_env *env, const struct job *j)
{
    if (!env || env->procs <= 0)
        return (double)job_procs(j);
    double r = (double)j->procs_per_task / (double)env->procs;
    r = dmax(r, share(j->mem_per_task, env->mem));
    r = dmax(r, share(j->disk_per_task, env->disk));
    r = dmax(r, share(j->swap_per_task, env->swap));
    return (double)env->procs * (double)j->tasks * r;
}

/* Seconds a running job has run. */
static double used_seconds(const struct eval *e)
{
    return e->now > e->j->start ? (double)(e->now - e->j->start) : 0.0;
}

/* USAGE (running jobs only). An overrunning job has nothing remaining
 * rather than a negative amount; PERCENT is of the walltime. */
static double usage_factor(const struct eval *e, int f)
{
    if (!e->running)
        return 0.0;
    double used = used_seconds(e);
    double wc = (double)e->j->walltime;
    switch (f) {
    case PF_CONSUMED:
        return (double)job_procs(e->j) * used;
    case PF_REMAINING:
        return (double)job_procs(e->j) * dmax(0.0, wc - used);
    case PF_PERCENT:
        return wc > 0 ? 100.0 * used / wc : 0.0;
    default:
        return used; /* PF_EXECUTIONTIME */
    }
}

/*
 * The raw value F[f] of every start-priority factor (digest §2.2 table), as
 * one list that both the diagnostic path (every factor, by index) and the
 * fast path (only weighted factors, straight-line code) expand; `e` and `j`
 * are in scope where it is expanded.
 */
#define PRIO_START_FACTORS(X)                                                                      \
    X(PF_QUEUETIME, queue_seconds(e) / 60.0)                                                       \
    X(PF_XFACTOR, xfactor(e))                                                                      \
    X(PF_BYPASS, (double)j->bypass)                                                                \
    X(PF_SPVIOLATION, (j->flags & JOB_SPVIOLATION) ? 1.0 : 0.0)                                    \
    X(PF_TARGETQUEUETIME, target_qt(e))                                                            \
    X(PF_TARGETXFACTOR, target_xf(e))                                                              \
    X(PF_USER, cred_priority(e, j->user, CRED_USER))                                               \
    X(PF_GROUP, cred_priority(e, j->group, CRED_GROUP))                                            \
    X(PF_ACCOUNT, cred_priority(e, j->account, CRED_ACCOUNT))                                      \
    X(PF_QOS, cred_priority(e, j->qos, CRED_QOS))                                                  \
    X(PF_CLASS, cred_priority(e, j->class_, CRED_CLASS))                                           \
    X(PF_FSUSER, fs_delta(j->user))                                                                \
    X(PF_FSGROUP, fs_delta(j->group))                                                              \
    X(PF_FSACCOUNT, fs_delta(j->account))                                                          \
    X(PF_FSQOS, fs_delta(j->qos))                                                                  \
    X(PF_FSCLASS, fs_delta(j->class_))                                                             \
    X(PF_NODE, (double)j->nodes)                                                                   \
    X(PF_PROC, (double)job_procs(j))                                                               \
    X(PF_MEM, (double)j->mem_per_task * j->tasks)                                                  \
    X(PF_SWAP, (double)j->swap_per_task * j->tasks)                                                \
    X(PF_DISK, (double)j->disk_per_task * j->tasks)                                                \
    X(PF_PS, (double)job_procs(j) * (double)j->walltime)                                           \
    X(PF_PE, prio_pe(e->env, j))                                                                   \
    X(PF_WALLTIME, (double)j->walltime)

/* The raw value F[f] of any factor. */
static double factor_value(const struct eval *e, int f)
{
    const struct job *j = e->j;
#define PRIO_CASE(f, value)                                                                        \
    case f:                                                                                        \
        return value;
    switch (f) {
        PRIO_START_FACTORS(PRIO_CASE)
    default:
        return usage_factor(e, f);
    }
#undef PRIO_CASE
}

/* The weight a factor has for job j: the QOS adds to the queue-time and
 * xfactor weights, the group's CLASSWEIGHT replaces the class weight. */
double prio_factor_weight(const struct prio_params *p, const struct job *j, enum prio_factor f)
{
    double w = (double)p->fweight[f];
    if (f == PF_QUEUETIME && j->qos)
        w += (double)j->qos->qtweight;
    else if (f == PF_XFACTOR && j->qos)
        w += (double)j->qos->xfweight;
    else if (f == PF_CLASS && j->group && j->group->classweight > 0)
        w = (double)j->group->classweight;
    return w;
}

/* Factors whose weight may depend on the job (prio_factor_weight). */
static int job_weighted(int f)
{
    return f == PF_QUEUETIME || f == PF_XFACTOR || f == PF_CLASS;
}

static double factor_weight(const struct eval *e, int f)
{
    return prio_factor_weight(e->p, e->j, (enum prio_factor)f);
}

/* sum[c] += FW[f] x min(FCAP[f], F[f]), for a weighted factor of a weighted component. */
static void add_term(const struct prio_params *p, int f, double w, double value, double *sum)
{
    int c = factor_comp[f];
    if (w != 0.0 && p->cweight[c] != 0)
        sum[c] += w * capped(value, p->fcap[f]);
}

/*
 * The component sums of factors [from, to), storing every raw value in
 * `factors` (for diagnostics: diagnose -p, checkjob).
 */
static void sum_all(const struct eval *e, int from, int to, double *factors, double *sum)
{
    for (int f = from; f < to; f++) {
        factors[f] = factor_value(e, f);
        add_term(e->p, f, factor_weight(e, f), factors[f], sum);
    }
}

/* The weight of start factor f for the job: those of the job-weighted
 * factors found once (wqt, wxf, wcl must be in scope). */
#define PRIO_WEIGHT(f)                                                                             \
    ((f) == PF_QUEUETIME ? wqt                                                                     \
     : (f) == PF_XFACTOR ? wxf                                                                     \
     : (f) == PF_CLASS   ? wcl                                                                     \
                         : (double)p->fweight[f])
#define PRIO_ADD(f, value)                                                                         \
    if (PRIO_WEIGHT(f) != 0.0)                                                                     \
        add_term(p, f, PRIO_WEIGHT(f), value, sum);
#define PRIO_ADD_JOB(f, value)                                                                     \
    if (job_weighted(f)) {                                                                         \
        PRIO_ADD(f, value)                                                                         \
    }

/* sum_weighted's answer when some factor of the same weight for every job
 * is weighted: every start factor looked at. Out of line, so that the
 * common case does not load every weight for it. */
static __attribute__((noinline)) void sum_every(const struct eval *e, double *sum)
{
    const struct job *j = e->j;
    const struct prio_params *p = e->p;
    double wqt = factor_weight(e, PF_QUEUETIME);
    double wxf = factor_weight(e, PF_XFACTOR);
    double wcl = factor_weight(e, PF_CLASS);
    PRIO_START_FACTORS(PRIO_ADD)
}

/* Some start factor whose weight is the same for every job is weighted. */
static int fixed_weighted(const struct prio_params *p)
{
#define PRIO_FIXED(f, value) | (job_weighted(f) ? 0 : p->fweight[f])
    return (0 PRIO_START_FACTORS(PRIO_FIXED)) != 0; /* straight-line ORs (no loop) */
#undef PRIO_FIXED
}

/*
 * The same sums for the start factors when nobody looks at the parts: a
 * factor is computed only when weighted, in straight-line code, so that the
 * common configurations cost a few operations per job (the queue is
 * re-prioritised every iteration). Most configurations weigh none of the
 * factors whose weight is the same for every job: one pass over their
 * weights tells, instead of a test of each (issue 31); the same terms are
 * added, in the same order, either way.
 */
static void sum_weighted(const struct eval *e, double *sum)
{
    if (fixed_weighted(e->p)) {
        sum_every(e, sum);
        return;
    }
    const struct job *j = e->j;
    const struct prio_params *p = e->p;
    double wqt = factor_weight(e, PF_QUEUETIME);
    double wxf = factor_weight(e, PF_XFACTOR);
    double wcl = factor_weight(e, PF_CLASS);
    PRIO_START_FACTORS(PRIO_ADD_JOB)
}
#undef PRIO_ADD_JOB
#undef PRIO_ADD
#undef PRIO_WEIGHT

/* CW[c] x min(CCAP[c], sum[c]). */
static double weigh(const struct prio_params *p, int c, double sum)
{
    return p->cweight[c] ? (double)p->cweight[c] * capped(sum, p->ccap[c]) : 0.0;
}

/* Final assembly (§2.7): floor at 1 unless negatives are wanted, clip at
 * +-1e9, then the administrator's system priority. A relative one (setspri
 * -r) is floored too: "unless REJECTNEGPRIOJOBS or ENABLENEGJOBPRIORITY is
 * TRUE" no priority is below 1 (Maui 3.3.1 adds it after its floor, so
 * `setspri -r -50` gave -49 with negative priorities disabled). */
static inline double assemble(const struct prio_params *p, const struct job *j, double v)
{
    int floor1 = !p->reject_neg && !p->enable_neg;
    if (floor1)
        v = dmax(v, 1.0);
    else
        v = dmax(v, -PRIO_CLIP);
    if (v > PRIO_CLIP)
        v = PRIO_CLIP;
    if (j->sysprio_mode == SYSPRIO_ABSOLUTE)
        v = PRIO_CLIP + (double)j->sysprio;
    else if (j->sysprio_mode == SYSPRIO_RELATIVE)
        v += (double)j->sysprio;
    if (floor1)
        v = dmax(v, 1.0);
    return v;
}

/* assemble for a batch's job, its floor found with the set-up: without a
 * system priority, the floor and the clip alone (the floor again after the
 * clip leaves v as it is: dmax(v, floor) is never NaN, so within
 * [1, PRIO_CLIP] when floored at 1). */
static inline double batch_assemble(const struct prio_batch *b, const struct job *j, double v)
{
    if (j->sysprio_mode != SYSPRIO_NONE)
        return assemble(b->p, j, v);
    v = dmax(v, b->t.floor);
    return v > PRIO_CLIP ? PRIO_CLIP : v;
}

/* start_priority with its parts: every factor computed. Out of line (a
 * command's question), so that the replay's own stays small. */
static __attribute__((noinline)) double start_parts(const struct eval *e, struct prio_parts *parts)
{
    double sum[PRIO_NCOMP] = {0}, total = 0.0;
    memset(parts, 0, sizeof *parts);
    sum_all(e, 0, PF_CONSUMED, parts->factor, sum);
    for (int c = 0; c < PRIO_USAGE; c++) {
        double v = weigh(e->p, c, sum[c]);
        parts->comp[c] = v;
        total += v;
    }
    total = assemble(e->p, e->j, total);
    parts->total = total;
    return total;
}

/* The start priority; fills parts when not NULL. USAGE is 0 for it. */
static double start_priority(const struct eval *e, struct prio_parts *parts)
{
    if (parts)
        return start_parts(e, parts);
    double sum[PRIO_NCOMP] = {0}, total = 0.0;
    sum_weighted(e, sum);
    for (int c = 0; c < PRIO_USAGE; c++)
        total += weigh(e->p, c, sum[c]);
    return assemble(e->p, e->j, total);
}

double prio_start(const struct prio_params *p, const struct prio_env *env, const struct job *j,
                  long now, struct prio_parts *parts)
{
    struct eval e = {p, env, j, now, 0};
    return start_priority(&e, parts);
}

/* The components that only the job's five credentials decide: their
 * factors' values (credential PRIORITY, fairshare delta) and weights (the
 * group's CLASSWEIGHT) come from the credentials alone. */
static int cred_comp(int c)
{
    return c == PRIO_CRED || c == PRIO_FS;
}

/* An empty slot's user key: the address of no credential, so that no job's
 * credentials match it (a job may have none: all NULL). */
static const struct cred prio_no_part;

/* Slots [0, n) emptied. */
static void empty_slots(struct prio_credpart *slot, size_t n)
{
    for (size_t i = 0; i < n; i++)
        slot[i].key[CRED_USER] = &prio_no_part;
}

/* The set-up alone (the factors and components weighted): b's slots are
 * the caller's. */
static void batch_terms(struct prio_batch *b, const struct prio_params *p,
                        const struct prio_env *env)
{
    b->p = p;
    b->env = env;
    b->fresh = (struct prio_fresh){NULL, NULL, NULL};
    b->t.nf = b->t.nfc = b->t.nc = 0;
    b->t.floor = !p->reject_neg && !p->enable_neg ? 1.0 : -PRIO_CLIP; /* assemble's */
    b->gen = 0;
    for (int f = 0; f < PF_CONSUMED; f++) {
        if (p->cweight[factor_comp[f]] == 0 || (p->fweight[f] == 0 && !job_weighted(f)))
            continue;
        if (cred_comp(factor_comp[f]))
            b->t.fc[b->t.nfc++] = (unsigned char)f;
        else
            b->t.f[b->t.nf++] = (unsigned char)f;
    }
    for (int c = 0; c < PRIO_USAGE; c++)
        if (p->cweight[c] != 0)
            b->t.c[b->t.nc++] = (unsigned char)c;
}

void prio_batch_init(struct prio_batch *b, const struct prio_params *p, const struct prio_env *env)
{
    batch_terms(b, p, env);
    b->slot = b->own;
    b->mask = PRIO_CREDSLOTS - 1;
    empty_slots(b->own, PRIO_CREDSLOTS);
}

void prio_batch_init_fresh(struct prio_batch *b, const struct prio_params *p,
                           const struct prio_env *env, struct prio_fresh fresh)
{
    prio_batch_init(b, p, env);
    b->fresh = fresh;
}

/* Whether kept was found for p and env: all the set-up and the parts read
 * of them. */
static int setup_holds(const struct prio_setup *kept, const struct prio_params *p,
                       const struct prio_env *env, int fresh)
{
    if (!kept->valid || kept->fresh != fresh)
        return 0;
    if (kept->frozen)
        return kept->at == p;
    return !memcmp(&kept->p, p, sizeof *p) &&
           !memcmp(kept->defaults, env->defaults, sizeof kept->defaults);
}

void prio_setup_forget(struct prio_setup *kept)
{
    empty_slots(kept->slot, PRIO_KEPTSLOTS);
}

void prio_batch_init_kept(struct prio_batch *b, const struct prio_params *p,
                          const struct prio_env *env, struct prio_fresh fresh,
                          struct prio_setup *kept, unsigned long gen)
{
    int hook = fresh.cred != NULL;
    if (setup_holds(kept, p, env, hook)) {
        b->p = p;
        b->env = env;
        b->t = kept->t;
    } else {
        batch_terms(b, p, env);
        memcpy(&kept->p, p, sizeof *p);
        memcpy(kept->defaults, env->defaults, sizeof kept->defaults);
        kept->at = p;
        kept->fresh = hook;
        kept->t = b->t;
        kept->valid = 1;
        prio_setup_forget(kept);
    }
    b->fresh = fresh;
    b->gen = gen;
    b->slot = kept->slot;
    b->mask = PRIO_KEPTSLOTS - 1;
}

/* sum[factor's component] += weight x capped value, for the factors fs[0..n). */
static void sum_batch(const struct eval *e, const unsigned char *fs, int n, double *sum)
{
    for (int i = 0; i < n; i++) {
        int f = fs[i];
        double w = job_weighted(f) ? factor_weight(e, f) : (double)e->p->fweight[f];
        if (w != 0.0)
            sum[factor_comp[f]] += w * capped(factor_value(e, f), e->p->fcap[f]);
    }
}

/* The slot of a combination in b: the user's number in its table, which
 * tells most combinations apart (all five are compared). A number, not an
 * address: which combinations share a slot (and so how many parts are
 * found again) stays the same from build to build and run to run; one
 * load, where the group's and account's would cost every priority more
 * than the few misses they save. The number itself, not a hash of it:
 * users numbered one after the other take slots one after the other, and
 * only users mask + 1 apart share one. */
static size_t creds_slot(const struct prio_batch *b, const struct job *j)
{
    size_t h = j->user ? j->user->index + 1 : 0;
    return h & b->mask;
}

#define PRIO_KONST 0x80 /* in a term: the component's value is kept (konst) */

/* What e's credentials alone decide, found once (the same additions in the
 * same order as for a whole priority): the weights of the job's own
 * factors, skipping those weighing 0 under these credentials, and the
 * terms of the total. A term that is a constant 0 is left out: the total
 * starts at +0 and adding a zero to it changes no bit. */
static void fill_part(const struct prio_batch *b, const struct eval *e, unsigned moves,
                      struct prio_credpart *g)
{
    double sum[PRIO_NCOMP] = {0};
    int varies[PRIO_NCOMP] = {0};
    sum_batch(e, b->t.fc, b->t.nfc, sum);
    g->nf = g->nterm = g->nfs = 0;
    for (int i = 0; i < b->t.nfc; i++) {
        int f = b->t.fc[i];
        if (factor_comp[f] == PRIO_FS && b->p->fweight[f] != 0 && (moves >> (f - PF_FSUSER) & 1)) {
            g->fsf[g->nfs] = (unsigned char)f;
            g->fsw[g->nfs++] = (double)b->p->fweight[f];
        }
    }
    for (int i = 0; i < b->t.nf; i++) {
        int f = b->t.f[i];
        double w = job_weighted(f) ? factor_weight(e, f) : (double)b->p->fweight[f];
        if (w == 0.0)
            continue;
        g->f[g->nf] = (unsigned char)f;
        g->w[g->nf++] = w;
        varies[factor_comp[f]] = 1;
    }
    g->fs_term = -1;
    for (int i = 0; i < b->t.nc; i++) {
        int c = b->t.c[i];
        if (varies[c]) {
            g->term[g->nterm++] = (unsigned char)c;
            continue;
        }
        double v = weigh(b->p, c, sum[c]);
        /* FS stays a term even at 0 (its value moves: fs_refresh); adding
         * a zero changes no bit of a total that started at +0. */
        if (c == PRIO_FS)
            g->fs_term = g->nterm;
        if (v != 0.0 || c == PRIO_FS) {
            g->konst[c] = v;
            g->term[g->nterm++] = (unsigned char)(c | PRIO_KONST);
        }
    }
}

/* g's one varying term and what the kept terms before it add up to (the
 * same additions prio_batch_start's loop makes before it). */
static void note_vary(const struct prio_params *p, struct prio_credpart *g)
{
    g->vary = -1;
    if (g->nf != 1)
        return;
    double pre = 0.0;
    for (int i = 0; i < g->nterm; i++) {
        if (!(g->term[i] & PRIO_KONST)) {
            g->vary = i;
            g->pre = pre;
            g->post1 = i + 2 == g->nterm ? g->term[i + 1] & ~PRIO_KONST : -1;
            g->vcw = (double)p->cweight[g->term[i]];
            g->vccap = p->ccap[g->term[i]];
            return;
        }
        pre += g->konst[g->term[i] & ~PRIO_KONST];
    }
}

/* The credential whose fairshare delta FS factor f reads for j
 * (factor_value's). */
static inline struct cred *fs_cred(const struct job *j, int f)
{
    switch (f) {
    case PF_FSUSER:
        return j->user;
    case PF_FSGROUP:
        return j->group;
    case PF_FSACCOUNT:
        return j->account;
    case PF_FSQOS:
        return j->qos;
    default:
        return j->class_;
    }
}

/* j's credentials of the FS factors weighted made current (the fresh
 * hook), before a part is found: a bit per factor, 1 << (f - PF_FSUSER),
 * whose delta may move (all without a hook; none for no credential, whose
 * delta is a constant 0). */
static unsigned fresh_fs(const struct prio_batch *b, const struct job *j)
{
    if (!b->fresh.cred)
        return ~0u;
    unsigned moves = 0;
    for (int i = 0; i < b->t.nfc; i++) {
        int f = b->t.fc[i];
        struct cred *c = fs_cred(j, f);
        if (factor_comp[f] != PRIO_FS || b->p->fweight[f] == 0 || !c)
            continue;
        b->fresh.cred(b->fresh.ctx, c);
        if (!b->fresh.still || !b->fresh.still(b->fresh.ctx, c))
            moves |= 1u << (f - PF_FSUSER);
    }
    return moves;
}

/* g's FS component found again for j's credentials' deltas, each made
 * current first (the fresh hook): the same additions as fill_part's
 * (sum_batch adds a component's factors in fc's order, the FS factors
 * alone into the FS sum, skipping a weight of 0; an FS factor's weight is
 * the configuration's, noted in g; the zeros fresh_fs left out add
 * nothing). Only the kept terms before `vary` move with it (note_vary's
 * pre): the rest of what note_vary found is the credentials'. */
static void fs_refresh(const struct prio_batch *b, const struct job *j, struct prio_credpart *g)
{
    double sum = 0.0;
    for (int i = 0; i < g->nfs; i++) {
        int f = g->fsf[i];
        struct cred *c = fs_cred(j, f);
        if (b->fresh.cred) /* c is not NULL: fresh_fs left it in */
            b->fresh.cred(b->fresh.ctx, c);
        sum += g->fsw[i] * capped(fs_delta(c), b->p->fcap[f]);
    }
    g->konst[PRIO_FS] = weigh(b->p, PRIO_FS, sum);
    if (g->vary > g->fs_term)
        note_vary(b->p, g);
}

static int creds_queue_time_only(const struct prio_batch *b, const struct job *j);

/* e's credentials' part: found in the batch when a job with the same
 * credentials was asked for, else found now and kept. */
/* Slot i taken by e's job's credentials, made current first (the fresh
 * hook). Not inlined: a miss is about one priority in three, and its frame
 * would weigh on every hit's. */
__attribute__((noinline)) static const struct prio_credpart *
new_part(struct prio_batch *b, const struct job *j, long now, size_t i)
{
    struct eval e = {b->p, b->env, j, now, 0};
    struct prio_credpart *g = &b->slot[i];
    unsigned moves = fresh_fs(b, j);
    g->key[CRED_USER] = j->user;
    g->key[CRED_GROUP] = j->group;
    g->key[CRED_ACCOUNT] = j->account;
    g->key[CRED_CLASS] = j->class_;
    g->key[CRED_QOS] = j->qos;
    fill_part(b, &e, moves, g);
    note_vary(b->p, g);
    g->qto = creds_queue_time_only(b, j);
    g->gen = b->gen;
    return g;
}

/* Kept part g from an older generation: its FS component found again from
 * the deltas made current (fs_refresh). Inlined in other_start, its one
 * caller, which saves the registers already (HPC2N fairshare: its own
 * frame cost about 19 instructions of a renewal's 77). */
static inline const struct prio_credpart *renew_part(struct prio_batch *b, const struct job *j,
                                                     struct prio_credpart *g)
{
    if (g->fs_term >= 0)
        fs_refresh(b, j, g);
    g->gen = b->gen;
    return g;
}

/* The slot's part when it is kept for j's credentials (of any
 * generation), else NULL: its key compared field by field (asked for every
 * priority: no call, no copy). */
static inline struct prio_credpart *kept_part(const struct prio_batch *b, const struct job *j)
{
    struct prio_credpart *g = &b->slot[creds_slot(b, j)];
    if (g->key[CRED_USER] == j->user && g->key[CRED_GROUP] == j->group &&
        g->key[CRED_ACCOUNT] == j->account && g->key[CRED_CLASS] == j->class_ &&
        g->key[CRED_QOS] == j->qos)
        return g;
    return NULL;
}

/*
 * sum_weighted and start_priority's sum over the factors and components
 * that are weighted, in the same order: the same additions of the same
 * terms, so the same bits (a skipped factor or component would have added
 * nothing). What the credentials decide comes from their part.
 */
/* Factor f's raw value for j at now, any factor but queue time. Not
 * inlined: its eval in memory would weigh on one_factor's frame. */
__attribute__((noinline)) static double own_value(const struct prio_batch *b, const struct job *j,
                                                  long now, int f)
{
    const struct eval e = {b->p, b->env, j, now, 0};
    return factor_value(&e, f);
}

/* prio_batch_start for a part with one own factor (g->vary, most
 * configurations: queue time) whose raw value is v: the kept terms before
 * it come added up, the ones after it are added one by one, as the loop
 * would. Always inlined: the common path calls nothing. */
static inline __attribute__((always_inline)) double
one_total(const struct prio_batch *b, const struct job *j, const struct prio_credpart *g, double v)
{
    double sum = 0.0;
    sum += g->w[0] * capped(v, b->p->fcap[g->f[0]]);
    double total = g->pre + g->vcw * capped(sum, g->vccap); /* weigh's */
    if (g->post1 >= 0) /* one kept term after it (often FS): no loop */
        total += g->konst[g->post1];
    else
        for (int i = g->vary + 1; i < g->nterm; i++)
            total += g->konst[g->term[i] & ~PRIO_KONST];
    return batch_assemble(b, j, total);
}

/* one_total with the factor's value for j at now. */
static double one_factor(const struct prio_batch *b, const struct job *j, long now,
                         const struct prio_credpart *g)
{
    int f = g->f[0];
    const struct eval e = {b->p, b->env, j, now, 0};
    double v = f == PF_QUEUETIME ? queue_seconds(&e) / 60.0 : own_value(b, j, now, f);
    return one_total(b, j, g, v);
}

/* prio_batch_start for any other part: the job's own factors summed by
 * component. Not inlined: its sums' array would weigh on one_factor's. */
__attribute__((noinline)) static double many_factors(const struct prio_batch *b,
                                                     const struct job *j, long now,
                                                     const struct prio_credpart *g)
{
    const struct eval ev = {b->p, b->env, j, now, 0}, *e = &ev;
    double sum[PRIO_NCOMP] = {0}, total = 0.0;
    for (int i = 0; i < g->nf; i++) {
        int f = g->f[i];
        /* Queue time, the factor every configuration weighs, without the switch. */
        double v = f == PF_QUEUETIME ? queue_seconds(e) / 60.0 : factor_value(e, f);
        sum[factor_comp[f]] += g->w[i] * capped(v, b->p->fcap[f]);
    }
    for (int i = 0; i < g->nterm; i++) {
        int t = g->term[i], c = t & ~PRIO_KONST;
        total += t & PRIO_KONST ? g->konst[c] : weigh(b->p, c, sum[c]);
    }
    return batch_assemble(b, j, total);
}

/* prio_batch_start for every job but a current part's with queue time its
 * one own factor, not QSTOPped: g is the kept part or NULL. */
__attribute__((noinline)) static double other_start(struct prio_batch *b, const struct job *j,
                                                    long now, struct prio_credpart *g)
{
    const struct prio_credpart *c;
    if (!g)
        c = new_part(b, j, now, creds_slot(b, j));
    else
        c = g->gen == b->gen ? g : renew_part(b, j, g);
    return c->vary >= 0 ? one_factor(b, j, now, c) : many_factors(b, j, now, c);
}

double prio_batch_start(struct prio_batch *b, const struct job *j, long now)
{
    /* The calls are given j and now, not an eval: no struct in memory
     * (nor a stack canary) on the common path. That path (most priorities
     * of a pass) calls nothing, so no register is saved for it: the rest
     * goes through other_start as a tail call. */
    struct prio_credpart *g = kept_part(b, j);
    if (g && g->gen == b->gen && g->vary >= 0 && g->f[0] == PF_QUEUETIME &&
        !(j->flags & JOB_QSTOP)) {
        const struct eval e = {b->p, b->env, j, now, 0};
        return one_total(b, j, g, queue_seconds(&e) / 60.0);
    }
    return other_start(b, j, now, g);
}

/*
 * Maui: StartPriority + PreemptPrioMargin (0) + USAGEWEIGHT x usage. The
 * sum is not clamped or clipped again, so a system priority survives.
 */
double prio_run(const struct prio_params *p, const struct prio_env *env, const struct job *j,
                long now, struct prio_parts *parts)
{
    struct eval e = {p, env, j, now, 1};
    double total = start_priority(&e, parts);
    double sum[PRIO_NCOMP] = {0};
    double usage_f[PF_NFACTORS];
    sum_all(&e, PF_CONSUMED, PF_NFACTORS, parts ? parts->factor : usage_f, sum);
    double usage = weigh(p, PRIO_USAGE, sum[PRIO_USAGE]);
    total += usage;
    if (parts) {
        parts->comp[PRIO_USAGE] = usage;
        parts->total = total;
    }
    return total;
}

int prio_queue_time_only(const struct prio_params *p, const struct job *j)
{
    if (p->reject_neg || j->sysprio_mode != SYSPRIO_NONE || (j->flags & JOB_QSTOP))
        return 0;
    for (int f = 0; f < PF_CONSUMED; f++) {
        if (p->cweight[factor_comp[f]] == 0 || prio_factor_weight(p, j, (enum prio_factor)f) == 0.0)
            continue;
        /* Queue time, and what the credentials alone decide. */
        if (f != PF_QUEUETIME && (f < PF_USER || f > PF_FSCLASS))
            return 0;
    }
    double w = prio_factor_weight(p, j, PF_QUEUETIME) * (double)p->cweight[PRIO_SERV];
    return w < 0 ? -1 : 1;
}

/* A factor prio_batch_init left out has CW 0, or FW 0 and a weight that
 * cannot depend on the job: prio_queue_time_only skips it too. The
 * credentials' factors (b->t.fc) are allowed: they need no look. For a job
 * without own state (a system priority, a stopped queue time): its weights
 * are its QOS's and group's (prio_factor_weight), so the answer is its
 * credentials', kept in their part. */
static int creds_queue_time_only(const struct prio_batch *b, const struct job *j)
{
    const struct prio_params *p = b->p;
    for (int i = 0; i < b->t.nf; i++) {
        int f = b->t.f[i];
        if (prio_factor_weight(p, j, (enum prio_factor)f) == 0.0)
            continue;
        if (f != PF_QUEUETIME && (f < PF_USER || f > PF_FSCLASS))
            return 0;
    }
    double w = prio_factor_weight(p, j, PF_QUEUETIME) * (double)p->cweight[PRIO_SERV];
    return w < 0 ? -1 : 1;
}

int prio_batch_queue_time_only(const struct prio_batch *b, const struct job *j)
{
    if (b->p->reject_neg || j->sysprio_mode != SYSPRIO_NONE || (j->flags & JOB_QSTOP))
        return 0;
    const struct prio_credpart *g = kept_part(b, j);
    return g ? g->qto : creds_queue_time_only(b, j);
}

int prio_rejects(const struct prio_params *p, double priority)
{
    return p->reject_neg && priority < 0;
}

/*
 * With queue time the only weighted factor, priority is a non-decreasing
 * function of queue time (caps, the floor at 1 and the clip only flatten
 * it, and ties fall back to submission order in prio_cmp). USAGE is left
 * out: it never applies to queued jobs.
 */
int prio_order_is_submission(const struct prio_params *p)
{
    long cs = p->cweight[PRIO_SERV], qt = p->fweight[PF_QUEUETIME];
    if ((cs < 0 && qt > 0) || (cs > 0 && qt < 0))
        return 0;
    for (int f = 0; f < PF_CONSUMED; f++) {
        if (f == PF_QUEUETIME)
            continue;
        if (p->fweight[f] != 0 && p->cweight[factor_comp[f]] != 0)
            return 0;
    }
    return 1;
}

int prio_cmp(const void *a, const void *b)
{
    const struct job *x = *(const struct job *const *)a;
    const struct job *y = *(const struct job *const *)b;
    if (x->priority != y->priority)
        return x->priority > y->priority ? -1 : 1;
    if (x->submit != y->submit)
        return x->submit < y->submit ? -1 : 1;
    return x->order < y->order ? -1 : (x->order > y->order);
}
