/*
 * qgroup — idle jobs grouped by their five credentials, for a look at the
 * queue's order that need not compute every job's priority.
 *
 * Within a group whose priority is a function of the queue time alone
 * (prio_queue_time_only: queue time and what the credentials decide are
 * all that is weighted), the order never moves with time: the job that has
 * waited longest is the group's highest (or lowest, under a negative
 * weight). So whether any job of the group sorts before a given job is
 * known from that one job's priority, unless it ties exactly; then the
 * group's jobs are looked at one by one. The answer is the same as
 * computing every job's priority; only the count of priorities computed
 * differs (an HPC2N poll: about 3 groups for 48 waiting jobs).
 *
 * A table serves one look at a time and is kept for the next (the
 * scheduler's): a generation count empties it, not a clear of every slot.
 * A group's slot keeps from look to look (at one plan, and from one plan
 * to the next) what its best job's priority was when last computed, and a
 * bound on how fast it can rise (qgroup_rise_bound): while that bound
 * stays below the job it is compared with, the best is not computed
 * again (one the plan noted blocked, not until a backfill counts it
 * bypassed: qgroup_settle). It holds at most QGROUP_MAX groups and leaves
 * a job it cannot group to the caller.
 */
#ifndef MOKU_POLICY_QGROUP_H
#define MOKU_POLICY_QGROUP_H

#include <stddef.h>
#include <stdint.h>

#include "core/job.h"
#include "policy/prio.h"

struct sched;

#define QGROUP_MAX 64
#define QGROUP_SLOTS 128 /* open addressing, at most half full */

/* What the best's priority was and how far it may have risen since
 * (qgroup_rise_bound), while the fairshare ledger saw nothing but time.
 * Kept from look to look, full passes between them too: it answers for
 * its job while that job is the same (its address, submission number and
 * queue time; its credentials and system priority by the rule at
 * qgroup_forget) and the ledger saw only time. */
struct qgroup_rise {
    const struct job *job; /* the best p0 is the priority of; NULL: none (never read through) */
    size_t order;          /* job's submission number and queue time at t0 */
    long qtime;
    unsigned long edits; /* the ledger's fs_edits at t0 */
    long t0;
    double p0;
    int bounded; /* slope and mag found, holding from t0 on (the terms' size at tb) */
    long tb;
    double slope, mag;
};

struct qgroup {
    struct job *first; /* its first job: the credentials */
    struct job *best;  /* the job that has waited longest (dir > 0) or least */
    int dir;           /* prio_queue_time_only of the group */
    unsigned gen;      /* the look it belongs to: other than the set's, an empty slot */
    struct qgroup_rise rise;
    /* A tie's walk (member_before) that found no job of the group
     * submitted before `none_last` (its submission number none_order) in
     * queue entries [none_from, none_to): kept for the next look of this
     * generation, which only adds jobs after them (iter.c's order_holds
     * keeps a table only while the queue before `to` is the same). */
    const struct job *none_last;
    size_t none_order, none_from, none_to;
};

/* What a look grouped, for a next look that only extends it (policy/
 * iter.c's order_holds, at the same plan): the jobs below `last` from queue
 * entries [from, to), every one of them grouped. Set by the caller. */
struct qgroup_kept {
    unsigned long plan_gen;
    const struct job *last;
    size_t from, to;
    int valid;        /* cleared by qgroup_init */
    size_t loose_end; /* the loose tail's end when it grouped one (s->q.qloose_end), or 0 */
};

/* A run of new jobs a look skipped (policy/iter.c's order_holds, while
 * the plan is deferred: qgroup_follows), for the next look at the same
 * plan: queue entries (at, end) all follow j0, the job at `at`, each the
 * one before (holes aside); tail is the last of them, dir the run's sign.
 * Whether one job follows another does not move with time, and between
 * two looks at one plan the queue before `end` stays as it is (any job
 * leaving it asks for a full pass); a change to a job's state or
 * credentials sets elig_all, for which qgroup_forget drops the run too. */
struct qgroup_chain {
    unsigned long plan_gen;
    const struct job *last, *j0; /* j0 NULL: none */
    struct job *tail;
    size_t at, end;
    int dir;
};

#define QGROUP_PENDING 8

struct qgroup_set {
    struct qgroup slot[QGROUP_SLOTS];
    int n;
    unsigned gen;
    /* The bests the last qgroup_any_before skipped that the plan noted
     * blocked: their priorities at pending_at are owed to bypass counting
     * (qgroup_settle). While `lazy`, every best it skipped (at most
     * QGROUP_PENDING), not yet sorted out: which of them the first
     * `pending_nblocked` of the plan's notes hold is asked only when a
     * backfill needs them (most polls' iterations backfill nothing). */
    struct job *pending[QGROUP_PENDING];
    int npending;
    int lazy;
    size_t pending_nblocked; /* s->pl.nblocked at the look */
    long pending_at;
    long pending_iter;                /* the iteration (stats.iterations) they are owed in */
    uint64_t used[QGROUP_SLOTS / 64]; /* the slots of this look: no walk of all of them */
    struct qgroup *last;              /* the group of the last job added (if of this look) */
    struct qgroup_kept kept;
    struct qgroup_chain chain;
};

/* Empty g for a new look (g zeroed before its first one). The slots'
 * rise records stay: a group met again at the same slot skips its best's
 * priority as at a look at the same plan. */
void qgroup_init(struct qgroup_set *g);

/*
 * Forget every rise record: their jobs' priority terms may have changed
 * other than with time. The records trust the rule that every change to a
 * waiting job's credentials or system priority, to a credential's
 * settings, and to a job's queue time (but a stopped one's restart: the
 * record checks the queue time itself) sets s->el.elig_all, which the
 * iteration that follows calls this for before any look (iter_run, as it
 * drops qorder's kept tail). The kept run of new jobs (g->chain) goes
 * too. No-op for g NULL.
 */
void qgroup_forget(struct qgroup_set *g);

/* Take idle job j into its group: 1 done, 0 when j cannot be grouped (its
 * priority depends on more than its queue time, or the table is full) and
 * the caller must look at it itself. */
int qgroup_add(struct qgroup_set *g, const struct prio_batch *pb, struct job *j);

/* qgroup_add for v[from, to), NULL entries skipped, up to the first job it
 * cannot group: that one's index (qgroup_add was asked), or to. A run of
 * one group's jobs costs a comparison of credentials each, no call. */
size_t qgroup_add_run(struct qgroup_set *g, const struct prio_batch *pb, struct job *const *v,
                      size_t from, size_t to);

/*
 * Whether some grouped job sorts before `last` (prio_cmp) at now, with
 * last->priority fresh. The jobs grouped were taken from queue positions
 * [from, to); those whose priority was computed have it refreshed
 * (j->priority), the others keep their last one. pb brings fairshare
 * deltas up to date (fsacct_batch_init). A group kept from the last look
 * whose best's priority cannot have risen to last's (its qgroup_rise) is
 * not computed, unless the plan noted its best blocked (bypass counting
 * reads its priority: it must be the one a computation would leave).
 */
int qgroup_any_before(struct qgroup_set *g, struct sched *s, struct prio_batch *pb,
                      const struct job *last, size_t from, size_t to, long now);

/* The last job qgroup_follows found in a run of one group's jobs (no own
 * state), and the group's sign (prio_batch_queue_time_only); zeroed for a
 * new look. */
struct qgroup_follow {
    const struct job *of;
    int dir;
};

/*
 * Whether b sorts after a (prio_cmp) at any instant, known without either
 * priority: the same five credentials, neither job's own state matters,
 * their priority a function of the queue time alone (prio_batch_queue_
 * time_only), b's queue time no longer than a's (or no shorter, under a
 * negative weight), and a submitted before b, which wins a tie. f keeps
 * the sign of a run of one group's jobs (found once a run: b of one call
 * is a of the next).
 */
int qgroup_follows(struct qgroup_follow *f, const struct prio_batch *pb, const struct job *a,
                   const struct job *b);

/* The slack of a rise's bound, relative to the size of the terms added:
 * far above what rounding can make of a few dozen operations (1e-14). */
#define QGROUP_SLACK 1e-9

/*
 * How fast idle job j's start priority can move with time from t0 on,
 * while the fairshare ledger sees nothing but time passing (fs_edits
 * stays the same from t0 to now, now >= t0), and the size of the terms it
 * adds up (mag: their size from t0 to now): for every t >= t0 in that
 * stretch, with up = slope (t - t0),
 *     |prio(t) - prio(t0)| <= up + QGROUP_SLACK (mag + up + 1)
 * for the priorities as computed (prio_start's bits; the slack takes in
 * their rounding, relative to the size of the terms). Only queue time and
 * what the credentials decide may be weighted: queue time moves by 1/60 a
 * second, a fairshare delta's percentage by at most 100 R (1 + |U|/T) / T
 * a second (U the credential's usage, T the total's, R the total's rate,
 * which no credential's exceeds; T at least its value at t0), each times
 * its factor's and component's weights; caps, the floor and the clip only
 * flatten. 1 and the two bounds, or 0 when it cannot be bounded so
 * (another factor weighted, a system priority or a stopped queue time, a
 * fairshare total of 0 at t0 that a running job makes grow: a jump).
 */
int qgroup_rise_bound(const struct sched *s, const struct prio_batch *pb, const struct job *j,
                      long t0, long now, double *slope, double *mag);

/*
 * The priorities of the bests the last qgroup_any_before skipped though
 * the plan noted them blocked, computed as it would have (at its time, in
 * the same iteration: the same fairshare deltas), for iter.c's bypass
 * counting, which compares them; then none are owed. A no-op when none
 * are, when they were owed in an earlier iteration, or g is NULL.
 */
void qgroup_settle(struct qgroup_set *g, struct sched *s);

#endif
