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
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sched_int.h"
#include "policy/limits.h"
#include "policy/prio.h"
#include "util/mem.h"

#define WHY_MAX 256

/* Mark j blocked; why (the reason) only when the walk formats reasons. */
static void set_blocked(struct sched *s, struct job *j, const char *why)
{
    if (!(j->flags & JOB_BLOCKED))
        s->el.nblocked_jobs++;
    j->flags |= JOB_BLOCKED;
    if (why && !(j->blocked && strcmp(j->blocked, why) == 0)) {
        free(j->blocked);
        j->blocked = xstrdup(why);
    }
}

static void clear_blocked(struct sched *s, struct job *j)
{
    if (j->flags & JOB_BLOCKED)
        s->el.nblocked_jobs--;
    j->flags &= ~(unsigned)JOB_BLOCKED;
    free(j->blocked);
    j->blocked = NULL;
}

/* A walk: the idle jobs in priority order — the whole queue (NULL entries
 * skipped), or one credential's jobs as policy/eset.c gives them. */
struct walk {
    struct job **v;
    size_t n;
    int whole; /* every idle job: every credential's idle usage starts at zero */
    long now;
    long wake;        /* eset: when time alone may first lift one of the refusals */
    int restarted;    /* some job's queue time restarted */
    int capped;       /* some job was refused by a fairshare cap */
    int stopped;      /* ... or stopped */
    int idle_bound;   /* whole: its order may decide what the idle limits admit (order_free) */
    int after_starts; /* whole: the walks after the iteration's starts (elig_final) */
    int reranked;     /* ... restarted a job's queue time so that it ranks elsewhere at the
                         next poll than where the iteration's sort put it (rank_holds) */
    int full;         /* eset: the credential runs as many jobs as the level's limit lets it */
    int has_from;     /* from is set: */
    long from;        /* where the queue time its turns restart counts from (walk_from) */
    /* eset: per level, the least PS and WC asked by the jobs refused only
     * for active PS or WC (what time runs down); -1 none. */
    double least[2][2];
};

/* The walk's job at position *i or after (NULL at the end). */
static struct job *walk_job(struct sched *s, const struct walk *w, size_t *i)
{
    if (!w->whole)
        return eset_at(s, *i);
    while (*i < w->n && !w->v[*i])
        (*i)++;
    return *i < w->n ? w->v[*i] : NULL;
}

/* Idle usage starts from zero for the credentials of the walk's jobs (a
 * component's jobs share the one credential limits count; walking only its
 * new jobs, from where the last walk at that level left it). */
static void walk_clear(struct sched *s, const struct walk *w, enum lim_level level)
{
    if (w->whole)
        limits_clear_kind(s->lim.limits, eset_kind(s), LIM_IDLE);
    else
        eset_idle_start(s, (int)level);
}

/* One job's turn in a walk; whether it was admitted. */
typedef int walk_fn(struct sched *s, struct walk *w, struct job *j, const struct prio_env *env);

/* j's queue time stops (JOBPRIOACCRUALPOLICY): from now on it counts from
 * the last walk, as if every walk set qtime_start (prio.c reads the flag). */
static void stop_qtime(struct sched *s, struct walk *w, struct job *j)
{
    if (!(j->flags & JOB_QSTOP)) {
        j->flags |= JOB_QSTOP;
        j->qstop_iter = s->stats.iterations;
        w->stopped = 1;
    }
}

/* Where a stopped job's queue time starts, seen by a walk (or a look) at
 * now: the last walk `walked` or the last RMPOLLINTERVAL instant before now,
 * whichever is later (prio_qstop_from: Maui's hard walk at every poll resets
 * it). */
static long qstop_from(const struct sched *s, long walked, long now)
{
    struct prio_env env = {.qstop = walked, .poll = s->pol.poll};
    return prio_qstop_from(&env, now);
}

/*
 * Whether j, whose queue time a walk after the iteration's starts restarts
 * from `from` (elig_final: the walk's instant), has at the next
 * RMPOLLINTERVAL instant the same priority as from where the iteration's
 * sort counted it: its own start if the walks before the starts stopped it
 * (a cap on a share of the whole turned it away, the starts made room
 * again), else the walk before them (it was stopped earlier). Under a
 * priority of queue time alone every other job keeps its rank (wake.c
 * watches the floor and the top); j, lower, may let the next poll's walk
 * admit under an idle limit a job the queue's order put behind it, so the
 * drivers poll then (issue 31, fid31q: the replay waited for the next
 * event; tests/data/property/cap-restart-rank).
 */
static __attribute__((noinline)) int rank_holds(struct sched *s, const struct job *j, long from,
                                                long now)
{
    if (!sched_order_is_static(s))
        return 1; /* the order moves anyway: every poll re-sorts (wake.c) */
    struct prio_env env;
    sched_prio_env(s, &env);
    long p = s->pol.poll > 0 ? s->pol.poll : 1;
    long t = now - ((now % p) + p) % p + p;
    struct job c = *j; /* j as the sort counted it, accruing */
    c.flags &= ~(unsigned)JOB_QSTOP;
    if (j->qstop_iter != s->stats.iterations)
        c.qtime_start = qstop_from(s, s->el.elig_prev, now);
    double sorted = prio_start(&s->pol.prio, &env, &c, t, NULL);
    c.qtime_start = from;
    return prio_start(&s->pol.prio, &env, &c, t, NULL) == sorted;
}

/* qstop_from for the jobs walk w restarts, the same for all of them (the
 * last walk and w's instant): computed at its first (issue 31: a group
 * below its MAXJOB restarts thousands in one walk). */
static long walk_from(const struct sched *s, struct walk *w)
{
    if (!w->has_from) {
        w->from = qstop_from(s, s->el.elig_walked, w->now);
        w->has_from = 1;
    }
    return w->from;
}

/* restart_qtime's work, for a stopped j: out of line, so that the walks'
 * turns, which mostly find the job accruing, keep their frame small (with
 * rank_holds inlined there, a KTH walk under a cap took 4 instructions more
 * a turn; rank_holds stays out of line here too). */
static __attribute__((noinline)) void restart_stopped(struct sched *s, struct walk *w,
                                                      struct job *j)
{
    long from = w ? walk_from(s, w) : qstop_from(s, s->el.elig_walked, s->pl.last_now);
    if (w && w->after_starts && !w->reranked && !rank_holds(s, j, from, w->now))
        w->reranked = 1;
    j->qtime_start = from;
    j->flags &= ~(unsigned)JOB_QSTOP;
    if (w)
        w->restarted = 1;
}

/* j's queue time accrues again, from the last walk or poll that stopped it
 * (as Maui's hard walk reset it at each). */
static void restart_qtime(struct sched *s, struct walk *w, struct job *j)
{
    if (j->flags & JOB_QSTOP)
        restart_stopped(s, w, j);
}

void elig_set_qtime(struct job *j, long t)
{
    j->qtime_start = t;
    j->flags &= ~(unsigned)JOB_QSTOP;
}

long elig_qtime(const struct sched *s, const struct job *j, long now)
{
    return j->flags & JOB_QSTOP ? qstop_from(s, s->el.elig_walked, now) : j->qtime_start;
}

/* Holds block a job with or without limits; FULLPOLICY stops its queue
 * time while held. Returns whether j is held. */
static int held(struct sched *s, struct walk *w, struct job *j, long now)
{
    if (j->deferred_until && j->deferred_until <= now) {
        /* A deferred job is held (Maui's defer hold): under FULLPOLICY its
         * queue time starts when the defer ends, not at the last iteration
         * that saw it (as for sched_release). */
        if (j->holds == 0 && !(j->flags & JOB_STARTDATE) &&
            s->pol.prio.accrual == ACCRUE_FULLPOLICY)
            elig_set_qtime(j, j->deferred_until);
        j->deferred_until = 0; /* DEFERTIME is over, or the start date came: eligible */
        j->flags &= ~(unsigned)JOB_STARTDATE;
        s->el.nheld -= !j->holds;
    }
    if (!j->holds && !j->deferred_until)
        return 0;
    if (j->deferred_until && (!s->el.next_undefer || j->deferred_until < s->el.next_undefer))
        s->el.next_undefer = j->deferred_until;
    set_blocked(s, j, NULL);
    j->flags &= ~(unsigned)JOB_HARDOK;
    if (s->pol.prio.accrual == ACCRUE_FULLPOLICY)
        stop_qtime(s, w, j);
    return 1;
}

void elig_unblock(struct sched *s, struct job *j)
{
    restart_qtime(s, NULL, j);
    clear_blocked(s, j);
    j->flags &= ~(unsigned)JOB_HARDOK;
}

static void rebuild_active(struct sched *s, const struct prio_env *env, long now)
{
    double req[LIM_NTYPES];
    if (!limits_any(s->lim.limits))
        return; /* fairshare caps alone: no limit reads the usage */
    if (s->el.eset && eset_run_down(s, now))
        return; /* time alone moved it since the last rebuild */
    limits_clear_kind(s->lim.limits, eset_kind(s), LIM_ACTIVE);
    eset_begin(s);
    long cross = AVAIL_NEVER;
    for (size_t i = 0; i < s->pl.running.n; i++) {
        const struct job *j = heap_at(&s->pl.running, i);
        long left = j->start + j->walltime - now;
        limits_request_for(s->lim.limits, j, left > 0 ? left : 0, env, req);
        limits_add_kind(s->lim.limits, j, eset_kind(s), LIM_ACTIVE, req, +1);
        if (left > 0 && !s->el.eset) /* its PS and WC run down (eset keeps its own rates) */
            limits_add_rate(s->lim.limits, j, -1, +1);
        eset_running(s, j, left);
        if (left > 0 && now + left < cross)
            cross = now + left;
    }
    if (s->el.eset)
        eset_rebuilt(s, now, cross);
}

/* Per-job limits (MAX.WCLIMIT, ...) depend on the job, the limits and the
 * cluster only: checked once per limits generation, unless words are
 * wanted. */
static int job_fits_limits(struct sched *s, struct job *j, const struct prio_env *env, char *why)
{
    if (why)
        return !limits_check_job(s->lim.limits, j, env, why, WHY_MAX);
    if (j->jobcheck_gen != s->lim.limits_gen) {
        j->jobcheck_ok = !limits_check_job(s->lim.limits, j, env, NULL, 0);
        j->jobcheck_gen = s->lim.limits_gen;
    }
    return j->jobcheck_ok;
}

/* refused_alone's bits: 1 << level, over an active or idle limit there;
 * 1 << (ALONE_ACTIVE + level), over an active one (checked first). */
#define ALONE_ACTIVE 2

/* Whether j's request alone goes over an active or idle limit at `level`
 * (usage taken as zero, which no usage is below): no walk admits it then,
 * whatever runs or waits, until the limits or the job change, and every
 * such change bumps the limits generation (a configuration, the cluster, a
 * QOS or walltime set). Such a job takes no idle usage and time never lifts
 * its refusal: a walk need not check it nor ask limits_lift, whose linear
 * run-down would name an instant usage never reaches (issue 31). */
static int refused_alone(struct sched *s, struct job *j, enum lim_level level,
                         const struct prio_env *env)
{
    if (j->alone_gen != s->lim.limits_gen) {
        double req[LIM_NTYPES];
        const struct limits *L = s->lim.limits;
        limits_request_for(L, j, j->walltime, env, req);
        j->alone_levels = 0;
        for (int l = LIM_SOFT; l <= LIM_HARD; l++) {
            if (limits_check_alone(L, j, LIM_ACTIVE, (enum lim_level)l, req, NULL, 0))
                j->alone_levels |= (1u | 1u << ALONE_ACTIVE) << l;
            else if (limits_check_alone(L, j, LIM_IDLE, (enum lim_level)l, req, NULL, 0))
                j->alone_levels |= 1u << l;
        }
        j->alone_gen = s->lim.limits_gen;
    }
    return (j->alone_levels >> level) & 1;
}

#define BOTH_LEVELS (1u << LIM_SOFT | 1u << LIM_HARD)

int elig_for_ever(const struct sched *s, const struct job *j)
{
    unsigned long gen = s->lim.limits_gen;
    return (j->alone_gen == gen && (j->alone_levels & BOTH_LEVELS) == BOTH_LEVELS) ||
           (j->jobcheck_gen == gen && !j->jobcheck_ok);
}

/*
 * The credential kind a walk's checks (and limits_lift) may read alone:
 * eset's, or under whole-queue walks limits_single_kind's (no limit of
 * another kind, no pair or system limit, no QOS override is set: that
 * kind's checks give every answer, and its slot's resolved limits and rates
 * are read in place, not looked up through every kind at each check).
 * Usage and rates stay kept for every kind (eset_kind: -1). Issue 31: the
 * checks were two thirds of a whole-queue walk.
 */
static int check_kind(const struct sched *s)
{
    return s->el.eset ? eset_kind(s) : limits_single_kind(s->lim.limits);
}

/* eset: time alone lifts active excess ps and wc (those types run down at
 * j's credential's rates; nothing else does, and no other excess reaches
 * here: limits_cut's when only PS or WC refuse, note_least's one type) at
 * the earliest then: note it. Two types, not a loop over every type with a
 * frame of rates (issue 31: a million calls). */
static void note_wait(struct walk *w, struct sched *s, const struct job *j, double ps, double wc)
{
    double rps, rwc, secs = 0;
    eset_rates(s, j, &rps, &rwc);
    if (ps > 0) {
        if (rps <= 0)
            return;
        secs = ps / rps;
    }
    if (wc > 0) {
        if (rwc <= 0)
            return;
        if (wc / rwc > secs)
            secs = wc / rwc;
    }
    /* The first whole second by which it is run down (usage and rates are
     * whole numbers): a wake-up for the drivers too (sched_next_wakeup),
     * which must not come a second early and find nothing changed. */
    secs = ceil(secs - 1e-9);
    long at =
        secs >= (double)(AVAIL_NEVER / 2) ? AVAIL_NEVER : w->now + (secs < 1 ? 1 : (long)secs);
    if (at < w->wake)
        w->wake = at;
}

/* The whole-queue walk: j, refused at `level` by its active limits alone
 * (its idle ones hold), may be admitted once time has run its credentials'
 * PS and WC down far enough (policy/limits.c, limits_lift): note when. */
static void note_lift(struct walk *w, struct sched *s, const struct job *j, enum lim_level level,
                      const double req[])
{
    if (w->wake <= w->now + 1)
        return; /* none can come sooner */
    long dt = limits_lift(s->lim.limits, j, check_kind(s), level, req);
    if (dt <= 0 || w->now + dt >= w->wake)
        return; /* never by time alone, or not sooner */
    if (!limits_check_fast(s->lim.limits, j, check_kind(s), LIM_IDLE, level, req)) /* it stays */
        w->wake = w->now + dt;
}

/* eset: j was refused at `level` for active limits `va` alone (idle ones
 * are fine): when those are only PS and WC, which time runs down, note its
 * request, the least of which bounds when time alone may admit any job. */
static void note_refusal(struct walk *w, unsigned va, enum lim_level level, const double req[])
{
    static const int types[2] = {LIM_PS, LIM_WC};
    if (va & ~(1u << LIM_PS | 1u << LIM_WC))
        return; /* over a limit time does not run down */
    for (int i = 0; i < 2; i++)
        if ((va & 1u << types[i]) && (w->least[level][i] < 0 || req[types[i]] < w->least[level][i]))
            w->least[level][i] = req[types[i]];
}

/* eset, after a walk at `level`: from the least refused requests, the
 * earliest time alone may admit one of those jobs (a lower bound: each
 * type's own; a job over both waits for both). */
static void note_least(struct sched *s, struct walk *w, enum lim_level level)
{
    const struct job *any = eset_rep(s);
    const double *least = w->least[level];
    if (least[0] >= 0)
        note_wait(w, s, any,
                  limits_excess_one(s->lim.limits, any, eset_kind(s), level, LIM_PS, least[0]), 0);
    if (least[1] >= 0)
        note_wait(w, s, any, 0,
                  limits_excess_one(s->lim.limits, any, eset_kind(s), level, LIM_WC, least[1]));
}

/* admit's checks past a full job count: out of line (admit). */
static __attribute__((noinline)) int admit_request(struct sched *s, struct walk *w, struct job *j,
                                                   enum lim_level level, const struct prio_env *env,
                                                   char *why)
{
    double req[LIM_NTYPES];
    size_t len = why ? WHY_MAX : 0;
    if (!job_fits_limits(s, j, env, why))
        return 0;
    /* fs_caps asked here too: a walk asks this of every job it reads, and the call
     * costs more than the question when there are no caps (eset's case). */
    if (s->fsh.fs_caps && fsacct_over_cap(s, j, why, len)) {
        if (w)
            w->capped = 1;
        return 0;
    }
    if (!limits_any(s->lim.limits))
        return 1; /* fairshare caps alone: nothing else to check, no idle usage to keep */
    if (!why && w && !s->el.eset && refused_alone(s, j, level, env))
        return 0;
    if (!why && w && w->full)
        return 0; /* over the job count, which note_refusal does not note */
    if (!why && w && s->el.eset) {
        unsigned va, vi;
        if (limits_admit_request(s->lim.limits, j, eset_kind(s), level, j->walltime, env, req, &va,
                                 &vi))
            return 1; /* its idle usage added */
        if (!vi)
            note_refusal(w, va, level, req); /* idle usage does not run down */
        return 0;
    }
    limits_request_for(s->lim.limits, j, j->walltime, env, req);
    if (why) {
        if (limits_check(s->lim.limits, j, LIM_ACTIVE, level, req, why, len) ||
            limits_check(s->lim.limits, j, LIM_IDLE, level, req, why, len))
            return 0;
    } else if (limits_check_fast(s->lim.limits, j, check_kind(s), LIM_ACTIVE, level, req)) {
        if (w)
            note_lift(w, s, j, level, req);
        return 0;
    } else if (limits_check_fast(s->lim.limits, j, check_kind(s), LIM_IDLE, level, req)) {
        if (w)
            w->idle_bound = 1;
        return 0;
    }
    limits_add_kind(s->lim.limits, j, eset_kind(s), LIM_IDLE, req, +1);
    return 1;
}

/* Whether j passes the per-job, active and idle limits at `level`; adds
 * its idle usage when it does. why (NULL: formatting every reason at every
 * iteration would cost more than the checks) gets the first violation. A
 * walk whose credential runs all the jobs its limit lets it (w->full)
 * refuses each job after its per-job limits, with no frame for a request:
 * after a start, a group at its MAXJOB refuses thousands so (issue 31). */
static int admit(struct sched *s, struct walk *w, struct job *j, enum lim_level level,
                 const struct prio_env *env, char *why)
{
    if (!why && w && w->full && !s->fsh.fs_caps && limits_any(s->lim.limits)) {
        (void)job_fits_limits(s, j, env, NULL); /* kept per limits generation, as below */
        return 0;
    }
    return admit_request(s, w, j, level, env, why);
}

/*
 * Whether the walk may stop reading its component's stopped jobs here: even
 * the least they ask, type by type, goes over a limit at `level` now
 * (policy/limits.c, limits_violations), so every one of them is refused, and
 * policy/eset.c keeps them as refused already. What time can lift (active
 * PS and WC alone) bounds when a walk may admit one of them.
 */
static int full_here(struct sched *s, struct walk *w, const struct job *j, enum lim_level level)
{
    double least[LIM_NTYPES], ex[LIM_NTYPES];
    if (w->whole || !eset_may_cut(s))
        return 0;
    if (!eset_unread_least(s, least))
        return 1; /* none left to read: the rest is the component's other jobs */
    int kind = eset_kind(s);
    unsigned va, vi;
    limits_cut(s->lim.limits, j, kind, level, least, &va, &vi, ex);
    if (!(va | vi))
        return 0;
    if (!vi && !(va & ~(1u << LIM_PS | 1u << LIM_WC)))
        note_wait(w, s, j, ex[LIM_PS], ex[LIM_WC]); /* limits_cut found them */
    return 1;
}

/*
 * After a whole-queue walk at `level` that refused no job for an idle
 * limit: whether its order decided nothing the idle limits admit, nor the
 * lift note_lift notes (issue 31: polls at RMPOLLINTERVAL only then,
 * policy/wake.c). The active limits split the jobs it may admit, whatever
 * the order (active usage is the running jobs'), into those they pass, all
 * admitted (their idle usage, now the walk's, fits at once, so each fits
 * wherever it stands), and those they refuse: if the idle limits also hold
 * each of these with all of the former, note_lift's idle check passes for
 * it wherever it stands. Until an event or the lift both sets stay (usage
 * only runs down; a lift is a wake-up). Jobs held or refused for ever aside;
 * the others the walk refused are asked (some were refused for their
 * per-job limits or a cap: asking them too is only stricter).
 */
static int order_free(struct sched *s, const struct prio_env *env, enum lim_level level)
{
    double req[LIM_NTYPES];
    for (size_t i = s->q.qhead; i < s->q.qlen; i++) {
        const struct job *j = s->q.queue[i];
        int refused =
            level == LIM_HARD ? !(j && (j->flags & JOB_HARDOK)) : j && (j->flags & JOB_BLOCKED);
        if (!j || !refused || j->holds || j->deferred_until || elig_for_ever(s, j))
            continue;
        limits_request_for(s->lim.limits, j, j->walltime, env, req);
        if (limits_check_fast(s->lim.limits, j, check_kind(s), LIM_IDLE, level, req))
            return 0;
    }
    return 1;
}

/* Whether the whole-queue walk may pass j by: refused for ever, and its
 * flags already what a turn would leave (blocked, not HARDOK, its queue
 * time stopped unless it always accrues), with nothing a turn notes (a
 * hold or deferral to look at, a fairshare cap to find): its turn would
 * change nothing (issue 31: such jobs pile up in the queue). */
static int settled(const struct sched *s, const struct job *j)
{
    unsigned f = j->flags;
    return !j->holds && !j->deferred_until && !s->fsh.fs_caps && (f & JOB_BLOCKED) &&
           !(f & JOB_HARDOK) && ((f & JOB_QSTOP) || s->pol.prio.accrual == ACCRUE_ALWAYS) &&
           elig_for_ever(s, j);
}

/*
 * Whether j, which the whole-queue walk passes by (settled), may wait out
 * of the queue (parked): its refusal in words does not hang on where it
 * stands in a walk — a per-job limit, or an active limit its request alone
 * goes over at both levels (limits_check reads the active limits first,
 * and those, unlike the idle usage a walk adds up, do not depend on the
 * jobs before it). Then nothing an iteration does reads it: it adds no idle
 * usage, the scan and the wake-ups pass blocked jobs by, and its words
 * (elig_reasons) come out the same wherever it is walked.
 */
static int parkable(const struct sched *s, const struct job *j)
{
    unsigned long gen = s->lim.limits_gen;
    const unsigned active = BOTH_LEVELS << ALONE_ACTIVE;
    return (j->jobcheck_gen == gen && !j->jobcheck_ok) ||
           (j->alone_gen == gen && (j->alone_levels & active) == active);
}

/* Park the walk's job at position i (the queue's entry): out of the queue,
 * into s->el.parked. RESERVATIONPOLICY HIGHEST's claim goes as the
 * iteration's keep_reservations would drop it (the job is blocked). */
static void park(struct sched *s, struct walk *w, size_t i, struct job *j)
{
    struct sched_elig *e = &s->el;
    if (!e->nparked) {
        e->park_gen = s->lim.limits_gen;
        e->park_accrual = (int)s->pol.prio.accrual;
    }
    e->parked = xgrow(e->parked, &e->capparked, e->nparked + 1, sizeof *e->parked);
    j->epos = e->nparked;
    e->parked[e->nparked++] = j;
    j->flags = (j->flags | JOB_PARKED) & ~(unsigned)JOB_HADRESV;
    w->v[i] = NULL;
    s->q.qidle--;
}

void elig_unpark_all(struct sched *s)
{
    struct sched_elig *e = &s->el;
    if (!e->nparked || e->eset)
        return;
    s->q.queue = xgrow(s->q.queue, &s->q.qcap, s->q.qlen + e->nparked, sizeof *s->q.queue);
    for (size_t k = 0; k < e->nparked; k++) {
        struct job *j = e->parked[k];
        j->flags &= ~(unsigned)JOB_PARKED;
        j->epos = SIZE_MAX;
        s->q.queue[s->q.qlen++] = j;
    }
    s->q.qidle += e->nparked;
    s->q.unsorted = 1; /* the next full pass sorts them in (a total order) */
    e->nparked = 0;
}

void elig_unpark_leave(struct sched *s, struct job *j)
{
    struct sched_elig *e = &s->el;
    struct job *last = e->parked[--e->nparked];
    e->parked[j->epos] = last;
    last->epos = j->epos;
    j->epos = SIZE_MAX;
    j->flags &= ~(unsigned)JOB_PARKED;
}

size_t elig_nparked(const struct sched *s)
{
    return s->el.eset ? 0 : s->el.nparked;
}

void elig_sync_parked(struct sched *s)
{
    struct sched_elig *e = &s->el;
    if (e->nparked && (e->park_gen != s->lim.limits_gen || e->elig_all || s->fsh.fs_caps ||
                       e->park_accrual != (int)s->pol.prio.accrual))
        elig_unpark_all(s);
    if (!e->eset)
        e->elig_all = 0;
}

/*
 * Run `one` over the walk's jobs. In a component, once its credential is
 * full at `level` every later job is refused: the jobs policy/eset.c keeps
 * as refused already are not read, only the others (eset_rest). Before
 * that, runs of its stopped jobs that every one goes over a limit are
 * jumped (eset_skip): their turns would refuse them and change nothing but
 * what note_refusal notes, which eset_skip notes for them.
 */
static void run_walk(struct sched *s, struct walk *w, const struct prio_env *env, walk_fn *one,
                     enum lim_level level)
{
    walk_clear(s, w, level);
    w->least[level][0] = w->least[level][1] = -1;
    size_t i = 0, end = 0;
    int cut = !w->whole && full_here(s, w, eset_rep(s), level);
    /* Every stopped job passes: eset_skip would jump none of them, and
     * full_here cut only once they are all read, as reading on does. */
    int pass = !cut && !w->whole && eset_all_pass(s, level);
    w->full = !w->whole && eset_job_full(s, level);
    struct job *j;
    while (!cut) {
        if (!w->whole && !pass)
            i = eset_skip(s, i, &end, level, w->least[level]);
        if (!(j = walk_job(s, w, &i)))
            break;
        if (w->whole && settled(s, j)) {
            if (parkable(s, j))
                park(s, w, i, j);
            i++;
            continue;
        }
        int admitted = one(s, w, j, env);
        i++;
        cut = admitted && !pass && full_here(s, w, j, level); /* only an admission fills a limit */
    }
    if (cut) {
        size_t n;
        struct job **rest = eset_rest(s, i, &n);
        end = 0;
        for (size_t k = 0; k < n; k++) {
            /* eset_skip_rest jumps only runs of stopped jobs: past its last
             * run, a job whose queue time accrues (most of them, after a
             * group's admissions) is its own answer */
            if ((k < end || (rest[k]->flags & JOB_INB)) &&
                (k = eset_skip_rest(s, rest, k, n, &end, level, w->least[level])) >= n)
                break;
            one(s, w, rest[k], env);
        }
    }
    if (!w->whole) {
        eset_idle_end(s, (int)level);
        note_least(s, w, level);
    } else if (!w->idle_bound && limits_idle_any(s->lim.limits)) {
        w->idle_bound = !order_free(s, env, level);
    }
}

/* j's turn in a walk that decides HARDOK at `level`: admitted, its queue
 * time accrues; refused, it stops (JOBPRIOACCRUALPOLICY). Held: neither. */
static int hard_turn(struct sched *s, struct walk *w, struct job *j, const struct prio_env *env,
                     enum lim_level level)
{
    if (held(s, w, j, w->now))
        return -1;
    if (admit(s, w, j, level, env, NULL)) {
        restart_qtime(s, w, j);                     /* first: no count is kept across its call */
        s->el.promoted += !(j->flags & JOB_HARDOK); /* the hard pass may start it now */
        j->flags |= JOB_HARDOK;
        return 1;
    }
    j->flags &= ~(unsigned)JOB_HARDOK;
    if (s->pol.prio.accrual != ACCRUE_ALWAYS)
        stop_qtime(s, w, j); /* queue time stops accruing while blocked */
    return 0;
}

static int hard_one(struct sched *s, struct walk *w, struct job *j, const struct prio_env *env)
{
    return hard_turn(s, w, j, env, LIM_HARD) == 1;
}

/* Both walks at once, when every soft limit equals its hard one. */
static int one_one(struct sched *s, struct walk *w, struct job *j, const struct prio_env *env)
{
    int r = hard_turn(s, w, j, env, LIM_SOFT);
    if (r == 1) {
        s->el.promoted += (j->flags & JOB_BLOCKED) != 0;
        clear_blocked(s, j);
    } else if (r == 0)
        set_blocked(s, j, NULL);
    return r == 1;
}

static int soft_one(struct sched *s, struct walk *w, struct job *j, const struct prio_env *env)
{
    if (j->holds || j->deferred_until)
        return 0; /* held or deferred: blocked by that, not by a limit */
    if (admit(s, w, j, LIM_SOFT, env, NULL)) {
        s->el.promoted += (j->flags & JOB_BLOCKED) != 0;
        clear_blocked(s, j);
        return 1;
    }
    set_blocked(s, j, NULL);
    return 0;
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
    limits_request_for(s->lim.limits, j, j->walltime, env, req);
    if (limits_check(s->lim.limits, j, LIM_ACTIVE, LIM_HARD, req, w, WHY_MAX) ||
        limits_check(s->lim.limits, j, LIM_IDLE, LIM_HARD, req, w, WHY_MAX))
        memcpy(why, w, WHY_MAX);
}

/* The soft walk over the whole queue with Maui's words for each refusal
 * (reasons 1), or for the jobs hard_reasons left without (2). */
static void soft_reasons(struct sched *s, struct walk *w, const struct prio_env *env, int reasons)
{
    char why[WHY_MAX];
    walk_clear(s, w, LIM_SOFT);
    for (size_t i = 0; i < w->n; i++) {
        struct job *j = w->v[i];
        if (!j || j->holds || j->deferred_until)
            continue;
        if (admit(s, NULL, j, LIM_SOFT, env, why)) {
            clear_blocked(s, j);
            continue;
        }
        if (!(j->flags & JOB_HARDOK)) {
            if (j->blocked && reasons == 2)
                continue; /* hard_reasons put the hard walk's words there */
            hard_reason(s, j, env, why);
        }
        set_blocked(s, j, why);
    }
}

/* The words of the hard walk, for the jobs it refused: against its own idle
 * usage (an idle limit such as MAXIJOB counts the jobs the hard walk
 * admitted, not those the soft walk did). Changes no flag. */
static void hard_reasons(struct sched *s, struct walk *w, const struct prio_env *env)
{
    char why[WHY_MAX];
    walk_clear(s, w, LIM_SOFT);
    for (size_t i = 0; i < w->n; i++) {
        struct job *j = w->v[i];
        if (!j || j->holds || j->deferred_until || (j->flags & JOB_HARDOK)) {
            if (j && (j->flags & JOB_HARDOK))
                admit(s, w, j, LIM_HARD, env, NULL); /* its idle usage, as the hard walk added */
            continue;
        }
        free(j->blocked);
        j->blocked = admit(s, NULL, j, LIM_HARD, env, why) ? NULL : xstrdup(why);
    }
}

/* Without limits, only holds can block: a walk over the queue only while
 * some job is held or blocked. */
static void holds_only(struct sched *s, long now)
{
    if (!s->el.nheld && !s->el.nblocked_jobs)
        return;
    struct walk w = {.now = now};
    for (size_t i = s->q.qhead; i < s->q.qlen; i++) {
        struct job *j = s->q.queue[i];
        if (j && !held(s, &w, j, now)) {
            restart_qtime(s, &w, j);
            clear_blocked(s, j);
            j->flags |= JOB_HARDOK;
        }
    }
}

int elig_active(const struct sched *s)
{
    return limits_any(s->lim.limits) || s->fsh.fs_caps;
}

/* The whole queue, as a walk. A queue that never held a job has no array
 * yet: NULL + 0 is undefined in C (clang's UBSan stops on it), so the walk
 * is then empty and points nowhere. */
static struct walk whole_queue(struct sched *s, long now)
{
    return (struct walk){.v = s->q.queue ? s->q.queue + s->q.qhead : NULL,
                         .n = s->q.qlen - s->q.qhead,
                         .whole = 1,
                         .now = now,
                         .wake = AVAIL_NEVER};
}

/* The iteration's walks over w: hard then soft, or one when they agree. */
static void walks(struct sched *s, struct walk *w, const struct prio_env *env)
{
    if (limits_soft_differs(s->lim.limits)) {
        run_walk(s, w, env, hard_one, LIM_HARD);
        run_walk(s, w, env, soft_one, LIM_SOFT);
    } else {
        run_walk(s, w, env, one_one, LIM_SOFT); /* soft and hard agree: one walk gives both */
    }
}

/* eset: walk the credentials whose answer can have changed, each in its
 * jobs' priority order (policy/eset.c). */
static void walk_components(struct sched *s, const struct prio_env *env, long now)
{
    for (size_t k = 0; eset_due(s, &k, now); k++) {
        eset_open(s, k, now, s->el.elig_walked);
        struct walk w = {.now = now, .wake = AVAIL_NEVER};
        walks(s, &w, env);
        eset_walked(s, now, w.wake, qstop_from(s, s->el.elig_walked, now), w.restarted, w.stopped);
    }
    eset_settle(s, now);
}

void elig_run(struct sched *s, long now)
{
    s->el.lift_at = AVAIL_NEVER;
    s->el.capped = 0;
    s->el.idle_free = 0;
    s->el.order_stale = 0;
    if (!elig_active(s)) {
        holds_only(s, now);
        s->el.elig_prev = s->el.elig_walked;
        s->el.elig_walked = now;
        return;
    }
    struct prio_env env;
    sched_prio_env(s, &env);
    rebuild_active(s, &env, now);
    if (s->el.eset) {
        walk_components(s, &env, now);
        s->el.lift_at = eset_lift(s);
    } else {
        struct walk w = whole_queue(s, now);
        walks(s, &w, &env);
        s->el.lift_at = w.wake;
        s->el.capped = w.capped;
        s->el.idle_free = !w.idle_bound;
    }
    s->el.elig_prev = s->el.elig_walked;
    s->el.elig_walked = now;
}

int elig_final(struct sched *s, long now)
{
    if (!elig_active(s))
        return 0;
    struct prio_env env;
    sched_prio_env(s, &env);
    s->el.promoted = 0;
    if (!s->el.eset) {
        rebuild_active(s, &env, now);
        struct walk w = whole_queue(s, now);
        w.after_starts = 1;
        walks(s, &w, &env);
        s->el.lift_at = w.wake;
        s->el.capped = w.capped;
        s->el.idle_free = !w.idle_bound;
        s->el.order_stale = w.reranked;
        return s->el.promoted > 0;
    }
    /* Active usage is elig_run's plus what elig_started added: the same as
     * rebuilt, at the same instant. Only the credentials a job of which
     * started: the others' answer is what elig_run left. */
    for (size_t k = 0; eset_started_due(s, &k); k++) {
        eset_open(s, k, now, s->el.elig_prev);
        struct walk w = {.now = now, .wake = AVAIL_NEVER};
        walks(s, &w, &env);
        eset_walked(s, now, w.wake, qstop_from(s, s->el.elig_prev, now), 1, 1);
    }
    eset_settle(s, now);
    s->el.lift_at = eset_lift(s);
    return s->el.promoted > 0;
}

void elig_reasons(struct sched *s)
{
    /* The parked jobs are walked at the queue's end: their words are the
     * same wherever they stand (parkable), and they add no idle usage. */
    elig_unpark_all(s);
    if (!elig_active(s))
        return;
    struct prio_env env;
    sched_prio_env(s, &env);
    rebuild_active(s, &env, s->pl.last_now);
    size_t n;
    struct job **v = s->el.eset ? (struct job **)eset_walk_order(s, &n) : NULL;
    struct walk w = v ? (struct walk){.v = v, .n = n, .whole = 1, .now = s->pl.last_now}
                      : whole_queue(s, s->pl.last_now);
    if (limits_soft_differs(s->lim.limits)) {
        hard_reasons(s, &w, &env);
        soft_reasons(s, &w, &env, 2); /* the soft walk's words for the others */
    } else {
        soft_reasons(s, &w, &env, 1); /* the same walk as the iteration's last, now with words */
    }
}

/* elig_may_start's check of j's request: out of line, so that the scan's
 * many refusals for a full job count (limits_count_full) take no frame for
 * the request and its environment. */
static __attribute__((noinline)) int may_start_request(struct sched *s, struct job *j,
                                                       enum lim_level level, char *why, size_t len)
{
    struct prio_env env;
    double req[LIM_NTYPES];
    int pe = limits_pe_any(s->lim.limits);
    if (pe)
        sched_prio_env(s, &env);
    limits_request_for(s->lim.limits, j, j->walltime, pe ? &env : NULL, req);
    return why ? !limits_check(s->lim.limits, j, LIM_ACTIVE, level, req, why, len)
               : !limits_check_fast(s->lim.limits, j, eset_kind(s), LIM_ACTIVE, level, req);
}

int elig_may_start(struct sched *s, struct job *j, enum lim_level level, char *why, size_t len)
{
    if (!elig_active(s))
        return 1;
    /* Jobs started in this pass count as committed work (policy/fs.c). The
     * caps and the environment (which only processor equivalents read) are
     * asked only when there are some: the scan asks this of every job it
     * reaches, thousands of one credential under MAXJOB (issue 31), most of
     * them once that credential runs all the jobs it may. */
    if (s->fsh.fs_caps && fsacct_over_cap(s, j, why, len))
        return 0;
    if (!why && limits_count_full(s->lim.limits, j, eset_kind(s), LIM_ACTIVE, level))
        return 0; /* the request's check would refuse it for the count */
    return may_start_request(s, j, level, why, len);
}

void elig_started(struct sched *s, struct job *j)
{
    elig_unblock(s, j);
    eset_remove(s, j, 1);
    eset_running(s, j, j->walltime);
    if (!limits_any(s->lim.limits))
        return;
    struct prio_env env;
    double req[LIM_NTYPES];
    sched_prio_env(s, &env);
    limits_request_for(s->lim.limits, j, j->walltime, &env, req);
    limits_add_kind(s->lim.limits, j, eset_kind(s), LIM_ACTIVE, req, +1);
    if (j->walltime > 0 && !s->el.eset)
        limits_add_rate(s->lim.limits, j, -1, +1);
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
    for (size_t i = 0; i < s->pl.running.n; i++) {
        const struct job *r = heap_at(&s->pl.running, i);
        long end = r->start + r->walltime;
        limits_request_for(s->lim.limits, r, end > now ? end - now : 0, env, req);
        limits_add_kind(s->lim.limits, r, eset_kind(s), LIM_ACTIVE, req, -sign);
        if (r->planned_end > t) {
            limits_request_for(s->lim.limits, r, end > t ? end - t : 0, env, req);
            limits_add_kind(s->lim.limits, r, eset_kind(s), LIM_ACTIVE, req, sign);
        }
    }
    for (int k = 0; k < s->pl.nresv; k++) {
        const struct job *r = s->pl.resv[k];
        long end = r->resv_start + r->walltime;
        if (r->resv_start <= t && t < end) {
            limits_request_for(s->lim.limits, r, end - t, env, req);
            limits_add_kind(s->lim.limits, r, eset_kind(s), LIM_ACTIVE, req, sign);
        }
    }
}

int elig_fits_at(struct sched *s, struct job *j, long t, long now)
{
    if (!limits_any(s->lim.limits) || t <= now)
        return 1;
    struct prio_env env;
    double req[LIM_NTYPES];
    sched_prio_env(s, &env);
    limits_request_for(s->lim.limits, j, j->walltime, &env, req);
    shift_usage(s, &env, now, t, +1);
    int ok = !limits_check(s->lim.limits, j, LIM_ACTIVE, LIM_SOFT, req, NULL, 0);
    shift_usage(s, &env, now, t, -1);
    return ok;
}

long elig_next_end(const struct sched *s, long t)
{
    long next = AVAIL_NEVER;
    for (size_t i = 0; i < s->pl.running.n; i++) {
        const struct job *r = heap_at(&s->pl.running, i);
        if (r->planned_end > t && r->planned_end < next)
            next = r->planned_end;
    }
    for (int k = 0; k < s->pl.nresv; k++) {
        long end = s->pl.resv[k]->resv_start + s->pl.resv[k]->walltime;
        if (end > t && end < next)
            next = end;
    }
    return next;
}
