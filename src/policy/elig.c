/*
 * elig — eligibility: which idle jobs an iteration may schedule (Maui's
 * MQueueSelectAllJobs and MQueueSelectJobs, digest §3.3-3.6).
 *
 * With throttling limits configured, every full pass first
 *   1. rebuilds active usage from the running jobs (a running job holds its
 *      processors times its REMAINING walltime of PS),
 *   2. walks the idle jobs in priority order twice, accumulating idle usage:
 *      once against HARD limits (may the job be scheduled at all, by the
 *      second backfill pass?) and once against SOFT limits (may it be
 *      scheduled by priority and the first backfill pass?). A job failing the
 *      soft walk is *blocked* and carries the reason in Maui's words; a job
 *      failing a per-job limit (MAX.WCLIMIT, ...) can never run.
 * Idle usage thus admits the highest-priority jobs first, and a blocked job
 * becomes eligible as soon as policy allows it. A job blocked at the hard
 * level stops accruing queue time unless JOBPRIOACCRUALPOLICY is ALWAYS.
 *
 * Without limits nothing here costs anything: elig_run returns at once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sched_int.h"
#include "policy/limits.h"
#include "util/mem.h"

#define WHY_MAX 256

/* Mark j blocked; why (the reason) only when the walk formats reasons. */
static void set_blocked(struct sched *s, struct job *j, const char *why)
{
    if (!(j->flags & JOB_BLOCKED))
        s->nblocked_jobs++;
    j->flags |= JOB_BLOCKED;
    if (why && !(j->blocked && strcmp(j->blocked, why) == 0)) {
        free(j->blocked);
        j->blocked = xstrdup(why);
    }
}

static void clear_blocked(struct sched *s, struct job *j)
{
    if (j->flags & JOB_BLOCKED)
        s->nblocked_jobs--;
    j->flags &= ~(unsigned)JOB_BLOCKED;
    free(j->blocked);
    j->blocked = NULL;
}

/* Holds block a job with or without limits; FULLPOLICY stops its queue
 * time while held. Returns whether j is held. */
static int held(struct sched *s, struct job *j, long now)
{
    if (j->deferred_until && j->deferred_until <= now) {
        /* A deferred job is held (Maui's defer hold): under FULLPOLICY its
         * queue time starts when the defer ends, not at the last iteration
         * that saw it (as for sched_release). */
        if (j->holds == 0 && !(j->flags & JOB_STARTDATE) && s->pol.prio.accrual == ACCRUE_FULLPOLICY)
            j->qtime_start = j->deferred_until;
        j->deferred_until = 0; /* DEFERTIME is over, or the start date came: eligible */
        j->flags &= ~(unsigned)JOB_STARTDATE;
        s->nheld -= !j->holds;
    }
    if (!j->holds && !j->deferred_until)
        return 0;
    if (j->deferred_until && (!s->next_undefer || j->deferred_until < s->next_undefer))
        s->next_undefer = j->deferred_until;
    set_blocked(s, j, NULL);
    j->flags &= ~(unsigned)JOB_HARDOK;
    if (s->pol.prio.accrual == ACCRUE_FULLPOLICY)
        j->qtime_start = now;
    return 1;
}

void elig_unblock(struct sched *s, struct job *j)
{
    clear_blocked(s, j);
    j->flags &= ~(unsigned)JOB_HARDOK;
}

static void rebuild_active(struct sched *s, const struct prio_env *env, long now)
{
    double req[LIM_NTYPES];
    limits_clear_usage(s->limits, LIM_ACTIVE);
    for (size_t i = 0; i < s->running.n; i++) {
        const struct job *j = s->running.v[i];
        long left = j->start + j->walltime - now;
        limits_request(j, left > 0 ? left : 0, env, req);
        limits_add(s->limits, j, LIM_ACTIVE, req, +1);
    }
}

/* Per-job limits (MAX.WCLIMIT, ...) depend on the job, the limits and the
 * cluster only: checked once per limits generation, unless words are
 * wanted. */
static int job_fits_limits(struct sched *s, struct job *j, const struct prio_env *env, char *why)
{
    if (why)
        return !limits_check_job(s->limits, j, env, why, WHY_MAX);
    if (j->jobcheck_gen != s->limits_gen) {
        j->jobcheck_ok = !limits_check_job(s->limits, j, env, NULL, 0);
        j->jobcheck_gen = s->limits_gen;
    }
    return j->jobcheck_ok;
}

/* Whether j passes the per-job, active and idle limits at `level`; adds
 * its idle usage when it does. why (NULL: formatting every reason at every
 * iteration would cost more than the checks) gets the first violation. */
static int admit(struct sched *s, struct job *j, enum lim_level level, const struct prio_env *env,
                 char *why)
{
    double req[LIM_NTYPES];
    size_t len = why ? WHY_MAX : 0;
    if (!job_fits_limits(s, j, env, why))
        return 0;
    if (fsacct_over_cap(s, j, why, len))
        return 0;
    limits_request(j, j->walltime, env, req);
    if (limits_check(s->limits, j, LIM_ACTIVE, level, req, why, len) ||
        limits_check(s->limits, j, LIM_IDLE, level, req, why, len))
        return 0;
    limits_add(s->limits, j, LIM_IDLE, req, +1);
    return 1;
}

static void hard_walk(struct sched *s, const struct prio_env *env, long now)
{
    limits_clear_usage(s->limits, LIM_IDLE);
    for (size_t i = s->qhead; i < s->qlen; i++) {
        struct job *j = s->queue[i];
        if (!j || held(s, j, now))
            continue;
        if (admit(s, j, LIM_HARD, env, NULL)) {
            j->flags |= JOB_HARDOK;
        } else {
            j->flags &= ~(unsigned)JOB_HARDOK;
            if (s->pol.prio.accrual != ACCRUE_ALWAYS)
                j->qtime_start = now; /* queue time stops accruing while blocked */
        }
    }
}

/* Both walks at once, when every soft limit equals its hard one. */
static void one_walk(struct sched *s, const struct prio_env *env, long now)
{
    limits_clear_usage(s->limits, LIM_IDLE);
    for (size_t i = s->qhead; i < s->qlen; i++) {
        struct job *j = s->queue[i];
        if (!j || held(s, j, now))
            continue;
        if (admit(s, j, LIM_SOFT, env, NULL)) {
            j->flags |= JOB_HARDOK;
            clear_blocked(s, j);
        } else {
            j->flags &= ~(unsigned)JOB_HARDOK;
            set_blocked(s, j, NULL);
            if (s->pol.prio.accrual != ACCRUE_ALWAYS)
                j->qtime_start = now;
        }
    }
}

/* The HARD limit a job the hard walk refused is over, in words, read
 * against the usage of the walk so far (nothing added): with one value for
 * both, the job is kept out by the hard limit, and the reason says so
 * ("violates active HARD MAXPS limit of 100", not SOFT). Leaves why as it is
 * when no hard limit is found. */
static void hard_reason(struct sched *s, struct job *j, const struct prio_env *env, char *why)
{
    char w[WHY_MAX];
    double req[LIM_NTYPES];
    if (!job_fits_limits(s, j, env, w) || fsacct_over_cap(s, j, w, WHY_MAX)) {
        memcpy(why, w, WHY_MAX);
        return;
    }
    limits_request(j, j->walltime, env, req);
    if (limits_check(s->limits, j, LIM_ACTIVE, LIM_HARD, req, w, WHY_MAX) ||
        limits_check(s->limits, j, LIM_IDLE, LIM_HARD, req, w, WHY_MAX))
        memcpy(why, w, WHY_MAX);
}

static void soft_walk(struct sched *s, const struct prio_env *env, int reasons)
{
    char why[WHY_MAX];
    limits_clear_usage(s->limits, LIM_IDLE);
    for (size_t i = s->qhead; i < s->qlen; i++) {
        struct job *j = s->queue[i];
        if (!j || j->holds || j->deferred_until)
            continue; /* held or deferred: blocked by that, not by a limit */
        if (admit(s, j, LIM_SOFT, env, reasons ? why : NULL)) {
            clear_blocked(s, j);
            continue;
        }
        if (reasons && !(j->flags & JOB_HARDOK)) {
            if (j->blocked && reasons == 2)
                continue; /* hard_reasons put the hard walk's words there */
            hard_reason(s, j, env, why);
        }
        set_blocked(s, j, reasons ? why : NULL);
    }
}

/* The words of the hard walk, for the jobs it refused: against its own idle
 * usage (an idle limit such as MAXIJOB counts the jobs the hard walk
 * admitted, not those the soft walk did). Changes no flag. */
static void hard_reasons(struct sched *s, const struct prio_env *env)
{
    char why[WHY_MAX];
    limits_clear_usage(s->limits, LIM_IDLE);
    for (size_t i = s->qhead; i < s->qlen; i++) {
        struct job *j = s->queue[i];
        if (!j || j->holds || j->deferred_until || (j->flags & JOB_HARDOK)) {
            if (j && (j->flags & JOB_HARDOK))
                admit(s, j, LIM_HARD, env, NULL); /* its idle usage, as the hard walk added */
            continue;
        }
        free(j->blocked);
        j->blocked = admit(s, j, LIM_HARD, env, why) ? NULL : xstrdup(why);
    }
}

/* Without limits, only holds can block: a walk over the queue only while
 * some job is held or blocked. */
static void holds_only(struct sched *s, long now)
{
    if (!s->nheld && !s->nblocked_jobs)
        return;
    for (size_t i = s->qhead; i < s->qlen; i++) {
        struct job *j = s->queue[i];
        if (j && !held(s, j, now)) {
            clear_blocked(s, j);
            j->flags |= JOB_HARDOK;
        }
    }
}

int elig_active(const struct sched *s)
{
    return limits_any(s->limits) || s->fs_caps;
}

void elig_run(struct sched *s, long now)
{
    if (!elig_active(s)) {
        holds_only(s, now);
        return;
    }
    struct prio_env env;
    sched_prio_env(s, &env);
    rebuild_active(s, &env, now);
    if (limits_soft_differs(s->limits)) {
        hard_walk(s, &env, now);
        soft_walk(s, &env, 0);
    } else {
        one_walk(s, &env, now); /* soft and hard agree: one walk gives both */
    }
}

void elig_final(struct sched *s, long now)
{
    if (!elig_active(s))
        return;
    struct prio_env env;
    sched_prio_env(s, &env);
    rebuild_active(s, &env, now);
    soft_walk(s, &env, 0);
}

void elig_reasons(struct sched *s)
{
    if (!elig_active(s))
        return;
    struct prio_env env;
    sched_prio_env(s, &env);
    rebuild_active(s, &env, s->last_now);
    if (limits_soft_differs(s->limits)) {
        hard_reasons(s, &env);
        soft_walk(s, &env, 2); /* the soft walk's words for the others */
    } else {
        soft_walk(s, &env, 1); /* the same walk as the iteration's last, now with words */
    }
}

int elig_may_start(struct sched *s, struct job *j, enum lim_level level, char *why, size_t len)
{
    if (!elig_active(s))
        return 1;
    /* Jobs started in this pass count as committed work (policy/fs.c). */
    if (fsacct_over_cap(s, j, why, len))
        return 0;
    struct prio_env env;
    double req[LIM_NTYPES];
    sched_prio_env(s, &env);
    limits_request(j, j->walltime, &env, req);
    return !limits_check(s->limits, j, LIM_ACTIVE, level, req, why, len);
}

void elig_started(struct sched *s, struct job *j)
{
    elig_unblock(s, j);
    if (!limits_any(s->limits))
        return;
    struct prio_env env;
    double req[LIM_NTYPES];
    sched_prio_env(s, &env);
    limits_request(j, j->walltime, &env, req);
    limits_add(s->limits, j, LIM_ACTIVE, req, +1);
}

/*
 * Move active usage from `now` to instant t (sign +1), or back (sign -1):
 * running jobs that will have ended by t drop out, the others hold only
 * their remaining processor-seconds from t, and the reservations this plan
 * made that cover t join in. Usage values are whole numbers, so the way
 * back restores them exactly.
 */
static void shift_usage(struct sched *s, const struct prio_env *env, long now, long t, int sign)
{
    double req[LIM_NTYPES];
    for (size_t i = 0; i < s->running.n; i++) {
        const struct job *r = s->running.v[i];
        long end = r->start + r->walltime;
        limits_request(r, end > now ? end - now : 0, env, req);
        limits_add(s->limits, r, LIM_ACTIVE, req, -sign);
        if (r->planned_end > t) {
            limits_request(r, end > t ? end - t : 0, env, req);
            limits_add(s->limits, r, LIM_ACTIVE, req, sign);
        }
    }
    for (int k = 0; k < s->nresv; k++) {
        const struct job *r = s->resv[k];
        long end = r->resv_start + r->walltime;
        if (r->resv_start <= t && t < end) {
            limits_request(r, end - t, env, req);
            limits_add(s->limits, r, LIM_ACTIVE, req, sign);
        }
    }
}

int elig_fits_at(struct sched *s, struct job *j, long t, long now)
{
    if (!limits_any(s->limits) || t <= now)
        return 1;
    struct prio_env env;
    double req[LIM_NTYPES];
    sched_prio_env(s, &env);
    limits_request(j, j->walltime, &env, req);
    shift_usage(s, &env, now, t, +1);
    int ok = !limits_check(s->limits, j, LIM_ACTIVE, LIM_SOFT, req, NULL, 0);
    shift_usage(s, &env, now, t, -1);
    return ok;
}

long elig_next_end(const struct sched *s, long t)
{
    long next = AVAIL_NEVER;
    for (size_t i = 0; i < s->running.n; i++) {
        const struct job *r = s->running.v[i];
        if (r->planned_end > t && r->planned_end < next)
            next = r->planned_end;
    }
    for (int k = 0; k < s->nresv; k++) {
        long end = s->resv[k]->resv_start + s->resv[k]->walltime;
        if (end > t && end < next)
            next = end;
    }
    return next;
}
