/*
 * limits — Maui's throttling policies (digest §3): how much a credential may
 * have running (active limits) or waiting as eligible (idle limits) at one
 * time, and what one job may ask at all (per-job limits).
 *
 * A struct limits holds every limit of a configuration (USERCFG, GROUPCFG,
 * ACCOUNTCFG, CLASSCFG, QOSCFG and SYSCFG limits, the QOS override limits
 * and flags, the per-user limits inside a class, QOS, group or account, the
 * SYSTEMMAX* parameters and the legacy MAX*PER*COUNT parameters) and the
 * usage the caller adds to it: per credential object (indexed by
 * cred->index), per (class, user)-like pair, and for the whole system.
 *
 * What this module is not: it does not decide when to check or in which
 * order jobs are added; the scheduling iteration does (digest §3.3-3.6:
 * rebuild active usage from the running jobs, accumulate idle usage in
 * priority order, check SOFT then HARD). No I/O, no clock.
 *
 * Resolution (digest §3.2), for each credential object O of a job and each
 * limit: the job's QOS override if set, else O's own limit, else the limit
 * of the DEFAULT object of O's kind; usage is always O's own. 0 means not
 * set, -1 unlimited (so -1 on a named object lifts a DEFAULT limit). A job
 * violates a limit when limit > 0 and usage + request > limit.
 *
 * One struct limits serves one set of credential tables: it remembers
 * credential objects by their index.
 */
#ifndef MOKU_LIMITS_H
#define MOKU_LIMITS_H

#include <stddef.h>

#include "core/cred.h"
#include "core/params.h" /* the limits' kinds */
#include "util/err.h"

struct cfg;
struct job;
struct prio_env;

struct limits;

/* No limits, no usage. Caller destroys; limits_destroy(NULL) is a no-op. */
struct limits *limits_create(void);
void limits_destroy(struct limits *L);

/*
 * Read every limit of cfg into L, replacing the limits it had, and forget
 * all usage (which pairs keep usage depends on the limits; the caller
 * rebuilds usage, as every iteration does anyway). All or nothing: on error L is unchanged and err
 * reads
 * "<file>:<line>: <KIND>[<name>] <ATTR>: <what>" (or names the parameter).
 * Errors are the forms cfg accepts but limits cannot use: an index other
 * than USER, USER:<name>, GROUP, GROUP:<name> on a limit, a per-user limit
 * on USERCFG or SYSCFG, a per-job limit below -1.
 */
int limits_load(struct limits *L, const struct cfg *cfg, struct err *err);

/* Whether any limit is configured (a positive soft or hard value anywhere):
 * when not, the engine can skip every call below. */
int limits_any(const struct limits *L);

/* Whether some limit has a soft value apart from its hard one: when not,
 * SOFT and HARD checks always agree and one of them can be skipped. */
int limits_soft_differs(const struct limits *L);

/* Whether some idle limit (MAXIJOB, MAXIPROC, ...) is configured: only then
 * does the order of an eligibility walk decide which jobs it admits. */
int limits_idle_any(const struct limits *L);

/*
 * What job j asks, per type: 1 job, its processors, its requested nodes,
 * procs x seconds, its processor equivalents, seconds, tasks x memory per
 * task. `seconds` is the walltime for an idle job and the REMAINING
 * walltime for a running one (a running job holds procs x remaining time of
 * PS usage). env gives the configured totals for processor equivalents;
 * NULL (or no processors) makes PE the processor count.
 */
void limits_request(const struct job *j, long seconds, const struct prio_env *env,
                    double req[LIM_NTYPES]);
/* The same for the checks and usage of L: processor equivalents (which
 * cost a division per resource) only when some limit of L is on them, 0
 * otherwise (nothing reads them then). */
void limits_request_for(const struct limits *L, const struct job *j, long seconds,
                        const struct prio_env *env, double req[LIM_NTYPES]);

/* Forget every credential's, pair's and the system's usage in `mode`. */
void limits_clear_usage(struct limits *L, enum lim_mode mode);

/* As limits_clear_usage, for the credentials of kind `kind` only (what
 * limits_single_kind gave: no other usage is read then, and eset's walks
 * add to that kind alone); kind < 0: all. Clears everything while rates are
 * kept (limits_add_rate). */
void limits_clear_kind(struct limits *L, int kind, enum lim_mode mode);

/*
 * Add (sign +1) or remove (sign -1) req, as limits_request gave it for j,
 * to the `mode` usage of each of j's credentials, of the pairs some limit
 * watches (user in class, ...) and of the system. Tables grow as needed.
 */
void limits_add(struct limits *L, const struct job *j, enum lim_mode mode,
                const double req[LIM_NTYPES], int sign);

/* As limits_add, to j's credential of kind `kind` only (what
 * limits_single_kind gave: the only usage checked then), and only the
 * types some limit of that credential sets, and PS and WC (the others stay
 * 0: nothing compares them); kind < 0: all. */
void limits_add_kind(struct limits *L, const struct job *j, int kind, enum lim_mode mode,
                     const double req[LIM_NTYPES], int sign);

/*
 * 0 when j may add req to the `mode` usage at `level`; else 1, with the
 * first violated limit in `why` (when not NULL; truncated to len), in
 * Maui's words:
 *   "job 12 violates active SOFT MAXPS limit of 72000 for user alice (R: 28800, U: 69896)"
 * R is the request, U the usage before the job. Order: user, group,
 * account, class, QOS, the pairs ("for user alice in class batch"), then
 * the system ("for par ALL"); within each, the lim_type order. Does not
 * allocate.
 */
int limits_check(const struct limits *L, const struct job *j, enum lim_mode mode,
                 enum lim_level level, const double req[LIM_NTYPES], char *why, size_t len);

/*
 * As limits_check, with every usage taken as zero: whether j's request alone
 * goes over a `mode` limit at `level` — at HARD, a job no amount of waiting
 * lets run (a 2-processor job under MAXPROC=1). U in `why` is 0.
 */
int limits_check_alone(const struct limits *L, const struct job *j, enum lim_mode mode,
                       enum lim_level level, const double req[LIM_NTYPES], char *why, size_t len);

/*
 * The per-job limits, which no amount of waiting lifts: MAX.WCLIMIT,
 * MAXPROCPERJOB and MAXNODEPERJOB of any of j's credentials (DEFAULT
 * object as fallback), and the system's SYSTEMMAXPROCPERJOB,
 * SYSTEMMAXJOBWALLTIME, SYSTEMMAXPROCSECONDPERJOB (or SYSCFG MAXPROCPERJOB,
 * MAXNODEPERJOB, MAX.WCLIMIT), which the job's QOS may replace (OMAXJPROC,
 * OMAXJNODE, OMAXJPS, OMAXJPE, OMAXJWC) or lift (QFLAGS IGNSYSMAXPROC,
 * IGNSYSMAXTIME, IGNSYSMAXPS). QFLAGS IGNALL lifts everything. The request
 * is the job's whole walltime (env as for limits_request). 0 ok; else 1
 * and `why`, as "job 7 violates system HARD MAXWC limit of 432000 for
 * class batch (R: 432001, U: 0)".
 */
int limits_check_job(const struct limits *L, const struct job *j, const struct prio_env *env,
                     char *why, size_t len);

/* limits_check without words; kind >= 0 (what limits_single_kind gave)
 * checks that kind's credential only, which is then all there is to check. */
int limits_check_fast(const struct limits *L, const struct job *j, int kind, enum lim_mode mode,
                      enum lim_level level, const double req[LIM_NTYPES]);

/* Whether limits_check_fast(kind >= 0) refuses j, whatever it asks, for its
 * credential's job count alone (MAXJOB, MAXIJOB): its slot is bound, j is
 * not exempt and holds as many jobs in `mode` as `level` lets it. 0 says
 * nothing (ask limits_check_fast). Costs no request: the scan asks it of
 * every job of a credential at its MAXJOB (issue 31). */
int limits_count_full(const struct limits *L, const struct job *j, int kind, enum lim_mode mode,
                      enum lim_level level);

/* As limits_check_fast: the types (bit 1 << t) whose limits j's request
 * goes over; 0 when none. */
unsigned limits_violations(const struct limits *L, const struct job *j, int kind,
                           enum lim_mode mode, enum lim_level level, const double req[LIM_NTYPES]);

/* limits_violations in both modes at once: *active and *idle. */
void limits_violations2(const struct limits *L, const struct job *j, int kind, enum lim_level level,
                        const double req[LIM_NTYPES], unsigned *active, unsigned *idle);

/* limits_violations2, and when the only violations are active PS or WC
 * (what time runs down) limits_excess of the active limits into excess
 * (else excess is left as it is): an eset walk's cut asks both of the
 * least request it has left, through one look-up of the slot (issue 31). */
void limits_cut(const struct limits *L, const struct job *j, int kind, enum lim_level level,
                const double req[LIM_NTYPES], unsigned *active, unsigned *idle,
                double excess[LIM_NTYPES]);

/* limits_violations2 at `level` (kind as there) and, when it finds none
 * (returns 1), limits_add_kind of req to the idle usage, through one look-up
 * of the credential's slot: an eset walk's admission (issue 31: a group
 * below its MAXJOB admits thousands). */
int limits_admit_kind(struct limits *L, const struct job *j, int kind, enum lim_level level,
                      const double req[LIM_NTYPES], unsigned *active, unsigned *idle);

/* limits_admit_kind of j's request for `seconds` (limits_request_for),
 * which req gets, through one look-up of the slot: when the slot is bound
 * and keeps no type past jobs, processors, PS and WC (all its checks and
 * usage then read), req has those alone and 0 for the others (issue 31: an
 * eset walk asks this of every job it reads, and notes PS and WC of the
 * jobs it refuses). */
int limits_admit_request(struct limits *L, const struct job *j, int kind, enum lim_level level,
                         long seconds, const struct prio_env *env, double req[LIM_NTYPES],
                         unsigned *active, unsigned *idle);

/* What a walk needs to judge many requests of one credential at once
 * against its bound limits at one level: per mode, the types set (bit
 * 1 << t), each limit plus the tolerance, and the usage (live). cap and
 * use point into the credential's slot (valid until limits_load, or a new
 * credential's first sight grows the slots): a copy of the limits
 * cost more than the question at each of a walk's million asks (issue 31). */
struct lim_room {
    unsigned set[LIM_NMODES];
    const double *cap[LIM_NMODES];
    const double *use[LIM_NMODES];
};

/* Fill r for j's credential of kind `kind` (limits_single_kind's answer):
 * then limits_violations2 refuses in mode m exactly the types t of set[m]
 * with use[m][t] + req[t] > cap[m][t], for any job of that credential.
 * 0 when that does not hold for every job alike (no bound slot, a QOS with
 * IGNALL) or a limit is on processor equivalents (which depend on the
 * cluster, not on the job alone). */
/* The types some usage limit of a credential of kind `kind` is on (bit
 * 1 << t), own or DEFAULT, in either mode and at either level: when that
 * kind is the only one limits count (limits_single_kind), no check reads
 * a request's other types. */
unsigned limits_kind_types(const struct limits *L, int kind);

/* Whether some limit is on processor equivalents: requests then count them
 * (limits_request_for), fractions whose sums depend on their order. */
int limits_pe_any(const struct limits *L);

/* Take ps processor-seconds and wc seconds off the active usage of the
 * credential of kind `kind` and index `index` (time running its jobs down). */
void limits_run_down(struct limits *L, int kind, size_t index, double ps, double wc);
/* Take request req off the same (a job that stopped running). */
void limits_take(struct limits *L, int kind, size_t index, const double req[LIM_NTYPES]);

int limits_room(const struct limits *L, const struct job *j, int kind, enum lim_level level,
                struct lim_room *r);

/*
 * As limits_check_fast, but looking at every limit: excess[t] gets, per
 * type, the most by which usage + req goes over a `mode` limit at `level`
 * (0 where none is exceeded). What an eligibility walk needs to know whether
 * time alone (running jobs' remaining processor-seconds running down) can
 * lift a refusal, and when at the earliest.
 */
void limits_excess(const struct limits *L, const struct job *j, int kind, enum lim_mode mode,
                   enum lim_level level, const double req[LIM_NTYPES], double excess[LIM_NTYPES]);

/* limits_excess's excess[t] of the active limits for a request of x of type
 * t alone (every other type 0), through one look-up of kind's slot without
 * a frame: an eset walk's end asks it of the least PS and WC it refused
 * (issue 31). */
double limits_excess_one(const struct limits *L, const struct job *j, int kind,
                         enum lim_level level, enum lim_type t, double x);

/*
 * Active usage runs down with time alone: a running job holds processors x
 * remaining seconds of PS and remaining seconds of WC. limits_add_rate adds
 * (sign +1) or removes job j, running with walltime left, to how fast the
 * usage of each of its credentials (kind < 0), of the pairs and of the
 * system — or of its credential of kind `kind` only — runs down: its
 * processors per second of PS, one second per second of WC. Cleared with
 * the active usage (limits_clear_usage).
 */
void limits_add_rate(struct limits *L, const struct job *j, int kind, int sign);

/*
 * How many seconds from now time alone takes to bring j's active check at
 * `level` within every limit, req being what it asks (kind as for
 * limits_check_fast): 0 when it passes now; -1 when time alone never lifts
 * it (a limit other than MAXPS or MAXWC is exceeded, or nothing of what
 * exceeds one runs down). Exact while no running job passes its walltime
 * (its usage then stops running down: an earlier answer, never a later one).
 */
long limits_lift(const struct limits *L, const struct job *j, int kind, enum lim_level level,
                 const double req[LIM_NTYPES]);

/*
 * Whether j's credentials are full at `level` (kind as for
 * limits_check_fast): even the least request (one job, one processor, one
 * second) goes over a limit, so every job of theirs is refused, whatever it
 * asks. 2: an idle limit is full (only an event changes that); 1: an active
 * one, and excess[t] says by how much per type (what time may run down); 0:
 * not full, or j is exempt.
 */
int limits_full(const struct limits *L, const struct job *j, int kind, enum lim_level level,
                double excess[LIM_NTYPES]);

/* The `mode` usage of j's credential of kind k (zeros if none is kept). */
const double *limits_usage(const struct limits *L, const struct job *j, enum cred_kind k,
                           enum lim_mode mode);

/* Set the `mode` usage of j's credential of kind k (as limits_usage gave it). */
void limits_set_usage(struct limits *L, const struct job *j, enum cred_kind k, enum lim_mode mode,
                      const double use[LIM_NTYPES]);

/* Forget the `mode` usage of j's credentials (not of pairs, not the system's). */
void limits_clear_job(struct limits *L, const struct job *j, enum lim_mode mode);

/*
 * When every active and idle limit counts the usage of credentials of one
 * kind only (no pair, system or QOS override limit; USERCFG limits alone,
 * say), that kind: jobs of different credentials of it never affect each
 * other's eligibility, and each credential's jobs can be walked apart. -1
 * when limits of several kinds, or of pairs, the system or a QOS override,
 * tie them together (or the kind is accounts, which jobs may lack).
 */
int limits_single_kind(const struct limits *L);

/* The `mode` limit of type t that credential `name` of kind k sets itself
 * (USERCFG[name] MAXJOB=4,8: its own object; not the DEFAULT object's, QOS
 * overrides or pair limits): 1 with *soft and *hard (-1 unlimited), or 0
 * when it sets none. For commands (diagnose -u). */
int limits_configured(const struct limits *L, enum cred_kind k, const char *name, enum lim_mode m,
                      enum lim_type t, long long *soft, long long *hard);

/* "MAXJOB", "MAXPROC", ... (the active spelling; idle is said by the mode). */
const char *limits_type_name(enum lim_type t);

#endif
