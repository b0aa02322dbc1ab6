/*
 * prio — job priority (Maui's MJobGetStartPriority and MJobGetRunPriority,
 * digest §2).
 *
 * Priority is a two-level weighted sum: seven components, each the capped,
 * weighted sum of its subcomponent factors, then weighted and capped again:
 *
 *     priority = sum_c CW[c] * min(CCAP[c], sum_f FW[f] * min(FCAP[f], F[f]))
 *
 * (a cap applies only when > 0). `factors` below are the raw F[f] values;
 * `components` the value each component adds to the priority (CW x capped
 * sum). Out of the box (SERVICEWEIGHT 1, QUEUETIMEWEIGHT 1, everything else
 * 0) priority is the queue time in minutes, at least 1.
 *
 * No I/O, no clock: `now` is an argument. What the function reads about the
 * cluster (configured totals for processor equivalents, DEFAULT credentials
 * for fallbacks) comes in a struct prio_env.
 */
#ifndef MOKU_PRIO_H
#define MOKU_PRIO_H

#include <stdint.h>

#include "core/cred.h"
#include "core/job.h"
#include "core/params.h" /* the priority's types */
#include "util/err.h"

struct cfg;

/*
 * Where the queue time of a job whose accrual is stopped (JOB_QSTOP,
 * JOBPRIOACCRUALPOLICY) starts, seen at now: the later of the last
 * eligibility walk (env->qstop) and the last instant before now that is a
 * multiple of RMPOLLINTERVAL (env->poll). Maui resets such a job's
 * SystemQueueTime at every iteration, and iterates at least every
 * RMPOLLINTERVAL; moku's iterations come at events, so the polls between
 * them are counted as if they had walked (docs/priority.md).
 */
long prio_qstop_from(const struct prio_env *env, long now);

void prio_params_default(struct prio_params *p);
/* Read the priority parameters (weights, caps, XFMINWCLIMIT, accrual,
 * negative-priority switches). Errors only for values the table accepts
 * but the priority function cannot use. */
int prio_params_from_cfg(const struct cfg *cfg, struct prio_params *p, struct err *err);

/* Start priority of idle job j at `now`; fills parts when not NULL. */
double prio_start(const struct prio_params *p, const struct prio_env *env, const struct job *j,
                  long now, struct prio_parts *parts);
/*
 * Start priorities of many jobs under the same parameters (the queue, at
 * every iteration): the weighted factors and components are found once, so
 * a job costs only what is weighted. The answer is prio_start's, bit for
 * bit. The parameters and env must not change while the batch is used, nor
 * the credentials (PRIORITY, fairshare delta, QOS and CLASSWEIGHT weights)
 * once a job holding them was asked for: what only the five credentials
 * decide is found once per combination of them and kept in the batch (an
 * HPC2N poll: about 3 combinations for 48 waiting jobs) — the CRED and FS
 * components, and the weight of each of the job's own factors.
 */
/* Direct-mapped by the user's number in its table (creds_slot): a batch's
 * own slots, and a kept set-up's, which outlive the batches and so see
 * every user of the replay (HPC2N: 257 users, 258 combinations). A
 * combination that takes its slot back from another is found anew
 * (HPC2N fairshare: 51,087 parts found anew at 64 kept slots, a hash of
 * the number; 257 at 256, the number itself). An empty slot's user key
 * is no credential's address (prio_no_part). */
#define PRIO_CREDSLOTS 64
#define PRIO_KEPTSLOTS 256
struct prio_credpart {
    const struct cred *key[CRED_NKINDS]; /* the job's five credentials */
    unsigned char f[PF_NFACTORS];        /* the job's own factors weighted under them */
    double w[PF_NFACTORS];               /* and their weights */
    unsigned char term[PRIO_NCOMP];      /* the components that add to the total, in order */
    double konst[PRIO_NCOMP];            /* a CRED or FS component's value (PRIO_KONST in term) */
    int nf, nterm;
    int fs_term;       /* the FS component is a kept term (its value may move), or -1 */
    int vary;          /* one own factor (nf 1): its component's term, else -1 */
    double pre;        /* the kept terms before `vary` added up, in order from +0 */
    int post1;         /* the one kept term after `vary`, its component; else -1 */
    double vcw, vccap; /* `vary`'s component's weight (not 0: weighted) and cap */
    unsigned long gen; /* the batch generation its FS value was found in */
    /* The FS component's factors weighted, in the order fill_part adds
     * them, and their weights (the configuration's): what a renewal adds
     * up again, without a look at the other factors. A factor whose
     * credential's delta stays 0 (the fresh hook's still) is left out:
     * adding a zero to a sum that started at +0 changes no bit. */
    unsigned char fsf[PF_FSCLASS - PF_FSUSER + 1];
    double fsw[PF_FSCLASS - PF_FSUSER + 1];
    int nfs;
    int qto; /* prio_batch_queue_time_only's answer for a job without own state */
};
/* What the caller keeps current lazily: fairshare deltas. `cred` makes c's
 * fs_delta current, called for each credential an FS factor weighs when a
 * batch first meets a combination of credentials and when it renews its
 * kept part (it may be asked again in a generation: cheap then). `still`,
 * asked when the part is found (NULL: never): whether c's delta is 0 and
 * stays 0 while the parts are kept (no fairshare target: a target set is a
 * prio_setup_forget), so that a renewal leaves it out. */
struct prio_fresh {
    void (*cred)(void *ctx, struct cred *c);
    int (*still)(void *ctx, const struct cred *c);
    void *ctx;
};
/* What a set of weights leaves to compute: the factors and components
 * weighted, each list in order (prio_batch_init finds it; a prio_setup
 * keeps it from batch to batch). */
struct prio_terms {
    unsigned char f[PF_NFACTORS];  /* the job's own start factors that may be weighted */
    unsigned char fc[PF_NFACTORS]; /* the credentials' ones (CRED and FS) */
    unsigned char c[PRIO_NCOMP];   /* the weighted components */
    int nf, nfc, nc;
    double floor; /* assembly's floor: 1, or -PRIO_CLIP when negatives are allowed */
};

struct prio_batch {
    const struct prio_params *p;
    const struct prio_env *env;
    struct prio_fresh fresh; /* none after prio_batch_init */
    struct prio_terms t;
    unsigned long gen;          /* what the fresh hook keeps current moved when this did */
    struct prio_credpart *slot; /* own, or a kept set-up's (prio_batch_init_kept) */
    size_t mask;                /* slot's count less 1 (a power of 2) */
    struct prio_credpart own[PRIO_CREDSLOTS];
};
void prio_batch_init(struct prio_batch *b, const struct prio_params *p, const struct prio_env *env);
/* The same, calling fresh.cred(fresh.ctx, c) for the credentials of the
 * FS factors weighted of the first job of each combination of credentials
 * it is asked for (again if its kept part was taken over by another
 * combination). */
void prio_batch_init_fresh(struct prio_batch *b, const struct prio_params *p,
                           const struct prio_env *env, struct prio_fresh fresh);
/*
 * prio_batch_init's set-up (the factors and components weighted), kept
 * with the parameters it was found from: found again only when they change
 * (a batch is made at every iteration; the weights seldom change). Zeroed
 * before its first use. The credentials' parts are kept too, from batch to
 * batch: what the five credentials decide moves between iterations only
 * through the fairshare deltas (the fresh hook's), so a part found in an
 * older generation has only its FS component found again (an HPC2N
 * fairshare replay: one combination or two asked for per iteration, each
 * costing a full part before).
 */
struct prio_setup {
    struct prio_params p;                     /* what the set-up and the parts were found from */
    const struct cred *defaults[CRED_NKINDS]; /* the env's DEFAULT objects (CRED fallbacks) */
    int fresh;                                /* whether the batches had a fresh hook */
    /* Set by the owner before the first use: the parameters at their
     * address and the env's DEFAULT objects never change (an engine's
     * policy and credential tables are fixed when it is created), so only
     * the address is compared, not the 584 bytes at every batch. */
    int frozen;
    const struct prio_params *at; /* the address the set-up was found from */
    struct prio_terms t;
    int valid;
    struct prio_credpart slot[PRIO_KEPTSLOTS];
};
/* prio_batch_init_fresh, the set-up copied from kept when kept was found
 * for p (and env's DEFAULT objects), else found and kept; the parts kept
 * are used by the batch. gen: the generation of what fresh keeps current
 * (fairshare deltas); it must move whenever those values may have. */
void prio_batch_init_kept(struct prio_batch *b, const struct prio_params *p,
                          const struct prio_env *env, struct prio_fresh fresh,
                          struct prio_setup *kept, unsigned long gen);
/* The credentials changed (a PRIORITY, a QOS or CLASSWEIGHT weight, a
 * fairshare target): the parts kept are found again. */
void prio_setup_forget(struct prio_setup *kept);
double prio_batch_start(struct prio_batch *b, const struct job *j, long now);

/* Run priority of running job j (USAGE component: CONSUMED, REMAINING,
 * PERCENT, EXECUTIONTIME), fills parts when not NULL. */
double prio_run(const struct prio_params *p, const struct prio_env *env, const struct job *j,
                long now, struct prio_parts *parts);

/*
 * Whether, among the idle jobs that share j's five credentials, the start
 * priority is a monotone function of the queue time alone: +1 when it never
 * falls as the queue time grows, -1 when it never rises; 0 when anything
 * else is weighted that differs from job to job (expansion factor, bypass,
 * resources, targets), j has a system priority or a stopped queue time, or
 * REJECTNEGPRIOJOBS is on (each job's sign matters). Every term but the
 * queue time's is then the same for the whole group, and the sums, caps,
 * floor and clip of the priority function are all monotone.
 */
int prio_queue_time_only(const struct prio_params *p, const struct job *j);
/* The same answer, looking only at the factors the batch found weighted
 * (asked for every credential group at every poll: policy/qgroup.c), or
 * read from the credentials' part kept for j's. */
int prio_batch_queue_time_only(const struct prio_batch *b, const struct job *j);

/* Whether a priority keeps the job out: REJECTNEGPRIOJOBS is on and the
 * priority is negative. */
int prio_rejects(const struct prio_params *p, double priority);

/*
 * Whether ordering by priority is, at every instant, the same as ordering by
 * submission (submit time, then submission sequence) — true when queue time
 * is the only factor with an effective weight (component x factor weight)
 * and SERVWEIGHT x QUEUETIMEWEIGHT >= 0. Then the queue never needs
 * re-sorting. What p cannot see is the caller's to check: per-QOS QTWEIGHT
 * and XFWEIGHT, GROUPCFG CLASSWEIGHT (replaces the class weight when
 * CREDWEIGHT is not 0), system priorities, and a qtime_start that the
 * accrual policy moved away from submission order.
 */
int prio_order_is_submission(const struct prio_params *p);

/* qsort comparator for struct job *: priority descending, then earlier
 * submit time, then earlier submission. */
int prio_cmp(const void *a, const void *b);
/* prio_cmp(&x, &y) < 0, inline: for a heap that compares at every step
 * (policy/qorder.c), without a call or the address of a local. */
static inline int prio_before(const struct job *x, const struct job *y)
{
    if (x->priority != y->priority)
        return x->priority > y->priority;
    if (x->submit != y->submit)
        return x->submit < y->submit;
    return x->order < y->order;
}

/* The weight factor f has for job j: FW[f], plus the QOS QTWEIGHT/XFWEIGHT
 * for queue time and expansion factor, or the group's CLASSWEIGHT in place
 * of the class weight. */
double prio_factor_weight(const struct prio_params *p, const struct job *j, enum prio_factor f);

/* Processor equivalents of j (Maui MJobGetPE): the cluster's processors
 * times the job's largest share of any configured resource (processors,
 * memory, disk, swap), per task; its processor count when env is NULL or
 * knows no processors. Used by the PE factor, MAXPE limits and DEDICATEDPES
 * fairshare. */
double prio_pe(const struct prio_env *env, const struct job *j);

/* maui.cfg's names: a component's weight or cap parameter (SERVWEIGHT,
 * SERVCAP, ...), a factor's stem (QUEUETIME: QUEUETIMEWEIGHT, QUEUETIMECAP). */
const char *prio_comp_param(enum prio_comp c, int cap);
const char *prio_factor_stem(enum prio_factor f);

/* Lower-case names used in JSON: "serv", "queuetime", ... */
const char *prio_comp_name(enum prio_comp c);
const char *prio_factor_name(enum prio_factor f);
/* The component factor f belongs to (PF_QUEUETIME -> PRIO_SERV, ...);
 * PRIO_NCOMP for an out-of-range f. */
enum prio_comp prio_factor_comp(enum prio_factor f);

#endif
