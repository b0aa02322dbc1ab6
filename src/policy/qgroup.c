/*
 * qgroup — see qgroup.h. Used by iter.c's look at the order at a poll
 * (order_holds): below the last job the plan reserved, a waiting job
 * matters only if it now sorts before that one.
 */
#include "policy/qgroup.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/sched_int.h"
#include "policy/fs.h"

void qgroup_init(struct qgroup_set *g)
{
    g->n = 0;
    g->kept.valid = 0;
    memset(g->used, 0, sizeof g->used);
    if (++g->gen == 0) { /* wrapped: slots of 2^32 looks ago would look current */
        memset(g->slot, 0, sizeof g->slot);
        g->gen = 1;
    }
}

static int in_use(const struct qgroup_set *g, const struct qgroup *q)
{
    return q->gen == g->gen;
}

static int same_creds(const struct job *a, const struct job *b)
{
    return a->user == b->user && a->group == b->group && a->account == b->account &&
           a->class_ == b->class_ && a->qos == b->qos;
}

/* From the user, group and account, which tell most groups apart (all five
 * are compared): one multiply, at every job of every poll. */
static size_t creds_hash(const struct job *j)
{
    uint64_t h = (uint64_t)(uintptr_t)j->user ^ (uint64_t)(uintptr_t)j->group >> 3 ^
                 (uint64_t)(uintptr_t)j->account >> 6;
    return (size_t)((h * 0x9E3779B97F4A7C15ULL) >> 57);
}

/* A job whose own state (not its credentials') ties its priority to more
 * than its queue time. */
static int own_state_matters(const struct job *j)
{
    return j->sysprio_mode != SYSPRIO_NONE || (j->flags & JOB_QSTOP);
}

/* j's group, created when new; NULL when the table is full. */
static struct qgroup *group_of(struct qgroup_set *g, const struct prio_batch *pb, struct job *j)
{
    size_t i = creds_hash(j) & (QGROUP_SLOTS - 1);
    while (in_use(g, &g->slot[i]) && !same_creds(g->slot[i].first, j))
        i = (i + 1) & (QGROUP_SLOTS - 1);
    struct qgroup *q = &g->slot[i];
    if (!in_use(g, q)) {
        if (g->n >= QGROUP_MAX)
            return NULL;
        g->n++;
        g->used[i / 64] |= (uint64_t)1 << (i % 64);
        /* Its rise record stays: it answers only for the job it names
         * (rise_of), whichever group held the slot. */
        q->first = j;
        q->best = NULL;
        q->none_last = NULL;
        q->dir = prio_batch_queue_time_only(pb, j);
        q->gen = g->gen;
    }
    return q;
}

/* Whether j has waited longer than the group's best so far (dir > 0), or
 * less (dir < 0): its queue time starts earlier (or later). */
static int better(const struct qgroup *q, const struct job *j)
{
    if (!q->best)
        return 1;
    return q->dir > 0 ? j->qtime_start < q->best->qtime_start
                      : j->qtime_start > q->best->qtime_start;
}

int qgroup_add(struct qgroup_set *g, const struct prio_batch *pb, struct job *j)
{
    if (own_state_matters(j))
        return 0;
    /* A user's jobs often follow each other: the last job's group. */
    struct qgroup *q = g->last && in_use(g, g->last) && same_creds(g->last->first, j)
                           ? g->last
                           : group_of(g, pb, j);
    if (!q || !q->dir)
        return 0;
    g->last = q;
    if (better(q, j))
        q->best = j;
    return 1;
}

size_t qgroup_add_run(struct qgroup_set *g, const struct prio_batch *pb, struct job *const *v,
                      size_t from, size_t to)
{
    size_t i = from;
    while (i < to) {
        if (!v[i]) {
            i++;
            continue;
        }
        if (!qgroup_add(g, pb, v[i]))
            return i;
        /* The jobs after it of the same group: qgroup_add's first case,
         * the group's credentials, best and its queue time in locals. */
        struct qgroup *q = g->last;
        const struct job *f = q->first;
        struct job *best = q->best;
        long bq = best->qtime_start;
        int dir = q->dir;
        for (i++; i < to; i++) {
            struct job *j = v[i];
            if (!j)
                continue;
            if (own_state_matters(j) || j->user != f->user || j->group != f->group ||
                j->account != f->account || j->class_ != f->class_ || j->qos != f->qos)
                break;
            if (dir > 0 ? j->qtime_start < bq : j->qtime_start > bq)
                best = j, bq = j->qtime_start;
        }
        q->best = best;
    }
    return to;
}

/* j's priority now, refreshed (pb brings the fairshare deltas up to date:
 * fsacct_batch_init). */
static double refresh(struct sched *s, struct prio_batch *pb, struct job *j, long now)
{
    j->priority = prio_batch_start(pb, j, now);
    return j->priority;
}

/* Whether j was submitted before last: what decides between equal
 * priorities (prio_cmp). */
static int submitted_before(const struct job *j, const struct job *last)
{
    return j->submit < last->submit || (j->submit == last->submit && j->order < last->order);
}

int qgroup_follows(struct qgroup_follow *f, const struct prio_batch *pb, const struct job *a,
                   const struct job *b)
{
    if (!a || own_state_matters(b) || !same_creds(a, b) || !submitted_before(a, b))
        return 0;
    if (f->of != a) { /* a starts a run: its state and its group's sign */
        if (own_state_matters(a))
            return 0;
        f->dir = prio_batch_queue_time_only(pb, a);
    }
    f->of = b; /* b's state and credentials checked: the same sign */
    if (f->dir > 0)
        return a->qtime_start <= b->qtime_start;
    return f->dir < 0 && a->qtime_start >= b->qtime_start;
}

/* The tie: every job of group q, one by one. None has a priority above
 * its best's, which equals last's: one submitted after last cannot sort
 * before it, and is not computed (it keeps its last priority). */
static int member_before(struct qgroup *q, struct sched *s, struct prio_batch *pb,
                         const struct job *last, size_t from, size_t to, long now)
{
    /* The last look of this generation walked [from, none_to) and found
     * none submitted before last: those entries are the same jobs (a look
     * keeps its table only over the same queue), whose credentials, state
     * and submission a poll does not change. A priority at the floor ties
     * at every poll of a plan (HPC2N fairshare: about a million steps). */
    size_t i = from;
    int none = 1;
    if (q->none_last == last && q->none_order == last->order && q->none_from == from &&
        q->none_to <= to)
        i = q->none_to;
    for (; i < to; i++) {
        struct job *j = s->q.queue[i];
        if (!j || own_state_matters(j) || !same_creds(j, q->first) || !submitted_before(j, last))
            continue;
        none = 0;
        refresh(s, pb, j, now);
        if (prio_cmp(&last, &j) > 0)
            return 1;
    }
    if (none) /* none in [from, to): what was kept, then the walk */
        q->none_last = last, q->none_order = last->order, q->none_from = from, q->none_to = to;
    return 0;
}

/* A credential's PRIORITY or its DEFAULT object's, whichever is larger:
 * a bound on what cred_priority (policy/prio.c) reads. */
static double cred_size(const struct prio_env *env, const struct cred *c, enum cred_kind k)
{
    double v = c ? fabs((double)c->priority) : 0.0;
    const struct cred *d = env->defaults[k];
    return d && fabs((double)d->priority) > v ? fabs((double)d->priority) : v;
}

/* The credential kind of a CRED or FS factor, i its place in either list
 * (USER, GROUP, ACCOUNT, QOS, CLASS: not cred_kind's order). */
static enum cred_kind factor_kind(int i)
{
    static const enum cred_kind k[] = {CRED_USER, CRED_GROUP, CRED_ACCOUNT, CRED_QOS, CRED_CLASS};
    return k[i];
}

static const struct cred *cred_of(const struct job *j, enum cred_kind k)
{
    const struct cred *c[CRED_NKINDS] = {j->user, j->group, j->account, j->class_, j->qos};
    return c[k];
}

/* The bounds of fairshare factor f's value, c's delta (fs_delta's
 * arithmetic) since t0, dt seconds ago, added to *slope and *mag; 0 when
 * it may jump. The ledger saw only time since t0: the total T and c's
 * usage U have grown linearly, at R and r <= R. */
static int fs_bound(const struct sched *s, const struct cred *c, double dt, double *slope,
                    double *mag)
{
    const struct fs *f = s->fsh.fs;
    if (!c || !s->pol.prio.cweight[PRIO_FS] || fs_params(f)->policy == FS_NONE) {
        *mag += c ? fabs(c->fs_delta) : 0.0; /* not refreshed (fsacct.c): it stays */
        return 1;
    }
    struct fs_target t = fs_target_of(f, c);
    if (t.mode == FS_MODE_NONE || t.mode == FS_MODE_CAP || t.mode == FS_MODE_PCAP || !(t.value > 0))
        return 1; /* 0 whatever the usage */
    double total = fs_total(f), rate = fabs(fs_total_rate(f));
    /* T at t0, less more than rounding can take from it. */
    double lo = total - rate * dt - 1e-9 * fabs(total);
    if (!(lo > 1e-6 * fabs(total)))
        return !(total > 0) && rate == 0; /* 0 and staying, or a jump from 0 */
    /* |U| / T since t0: at most ratio (then it moves towards r/R <= 1). */
    double ratio = fmax(1.0, (fabs(fs_usage(f, c)) + rate * dt) / lo) * (1 + 1e-6);
    double scale = fs_params(f)->percent ? 1.0 / t.value : 1.0;
    /* d(100 U/T)/dt = 100 (r T - R U) / T^2, at most 100 R (1 + |U|/T) / T. */
    *slope += 100.0 * rate * (1.0 + ratio) / lo * scale * (1 + 1e-6);
    *mag += t.value + 100.0 * ratio * scale + 1.0;
    return 1;
}

/* Factor f's bounds for j, added to *slope and *mag (weights aside); 0
 * when it cannot be bounded. */
static int factor_bound(const struct sched *s, const struct prio_env *env, const struct job *j,
                        int f, long now, double dt, double *slope, double *mag)
{
    if (f == PF_QUEUETIME) {
        *slope += 1.0 / 60.0;
        *mag += now > j->qtime_start ? (double)(now - j->qtime_start) / 60.0 : 0.0;
        return 1;
    }
    if (f >= PF_USER && f <= PF_CLASS) {
        enum cred_kind k = factor_kind(f - PF_USER);
        *mag += cred_size(env, cred_of(j, k), k);
        return 1;
    }
    if (f >= PF_FSUSER && f <= PF_FSCLASS)
        return fs_bound(s, cred_of(j, factor_kind(f - PF_FSUSER)), dt, slope, mag);
    return 0;
}

int qgroup_rise_bound(const struct sched *s, const struct prio_batch *pb, const struct job *j,
                      long t0, long now, double *slope, double *mag)
{
    const struct prio_params *p = pb->p;
    *slope = *mag = 0.0;
    if (own_state_matters(j) || now < t0)
        return 0;
    /* The factors the batch found weighted (the rest weigh 0 for every
     * job): the job's own, then the credentials'. */
    for (int i = 0; i < pb->t.nf + pb->t.nfc; i++) {
        int f = i < pb->t.nf ? pb->t.f[i] : pb->t.fc[i - pb->t.nf];
        double w = fabs((double)p->cweight[prio_factor_comp((enum prio_factor)f)] *
                        prio_factor_weight(p, j, (enum prio_factor)f));
        double fs = 0.0, fm = 0.0;
        if (w == 0.0)
            continue;
        if (!factor_bound(s, pb->env, j, f, now, (double)(now - t0), &fs, &fm))
            return 0;
        *slope += w * fs;
        *mag += w * fm;
    }
    return isfinite(*slope) && isfinite(*mag);
}

/* Whether j is one of the first n of the plan's jobs noted blocked (a
 * few: the full path's notes; n is their count at the look, as the scan
 * that follows it adds its own); a long list answers yes without a look. */
static int noted_blocked(const struct sched *s, size_t n, const struct job *j)
{
    if (n > 64)
        return 1;
    for (size_t k = 0; k < n; k++)
        if (s->pl.blocked[k] == j)
            return 1;
    return 0;
}

/* Keep only the pending bests the plan noted blocked (at the look), in
 * their order: what an eager look would have kept. */
static void sort_pending(struct qgroup_set *g, const struct sched *s)
{
    int n = 0;
    for (int k = 0; k < g->npending; k++)
        if (noted_blocked(s, g->pending_nblocked, g->pending[k]))
            g->pending[n++] = g->pending[k];
    g->npending = n;
    g->lazy = 0;
}

/* r's bounds, found at the first look that needs them (most records are
 * never asked: their group is not kept) and kept while the ledger sees
 * only time: found at tb, they hold from t0 on. */
static int bounded(struct qgroup_rise *r, const struct sched *s, const struct prio_batch *pb,
                   long now)
{
    if (r->bounded)
        return 1;
    r->bounded = qgroup_rise_bound(s, pb, r->job, r->t0, now, &r->slope, &r->mag);
    r->tb = now;
    return r->bounded;
}

void qgroup_forget(struct qgroup_set *g)
{
    if (!g)
        return;
    for (size_t i = 0; i < QGROUP_SLOTS; i++)
        g->slot[i].rise.job = NULL;
    g->chain.j0 = NULL;
}

/* Whether r describes j now: the same job (an address may be a new job's:
 * the submission number tells), its queue time unmoved, and the ledger saw
 * only time since. */
static int rise_of(const struct qgroup_rise *r, const struct job *j, unsigned long edits)
{
    return r->job == j && r->order == j->order && r->qtime == j->qtime_start && r->edits == edits;
}

/* Whether q's best, whose priority was last found at q->rise.t0, still
 * sorts after last at now without a look: the ledger saw only time since,
 * and the most it can have risen leaves it below last's, so no tie either.
 * A best the plan noted blocked is owed to bypass counting: g->pending. */
static int stays_below(struct qgroup_set *g, struct qgroup *q, const struct sched *s,
                       const struct prio_batch *pb, const struct job *last, long now)
{
    struct qgroup_rise *r = &q->rise;
    if (!rise_of(r, q->best, fs_edits(s->fsh.fs)) || now < r->t0 || !bounded(r, s, pb, now))
        return 0;
    /* mag held at tb: since, the terms grew by at most slope (now - tb). */
    double up = r->slope * (double)(now - r->t0);
    if (!(r->p0 + up + QGROUP_SLACK * (r->mag + up + 1.0) < last->priority))
        return 0;
    /* A poll skips about three bests, half of them noted blocked, and
     * most of its iterations backfill nothing: the look-up among the
     * plan's notes (HPC2N fairshare: 740,000 of them, 20 M instructions)
     * is left to qgroup_settle. Only a ninth skip sorts them out now, as
     * the list keeps eight blocked ones: past those, a blocked best is
     * computed at once (return 0), the same look as one that asks at
     * every skip. */
    if (g->lazy && g->npending == QGROUP_PENDING)
        sort_pending(g, s);
    if (!g->lazy && !noted_blocked(s, g->pending_nblocked, q->best))
        return 1;
    if (g->npending == QGROUP_PENDING)
        return 0;
    g->pending[g->npending++] = q->best;
    g->pending_at = now;
    g->pending_iter = s->stats.iterations;
    return 1;
}

/* q's best was found at p at now, below last's: what a later look needs
 * to skip it. Bounds found for the same job while the ledger saw only
 * time still hold (the terms' size moved on to now). */
static void note_rise(struct qgroup *q, const struct sched *s, double p, long now)
{
    struct qgroup_rise *r = &q->rise;
    unsigned long edits = fs_edits(s->fsh.fs);
    if (!rise_of(r, q->best, edits) || !r->bounded || now < r->tb)
        r->bounded = 0;
    else
        r->mag += r->slope * (double)(now - r->tb), r->tb = now;
    r->job = isfinite(p) ? q->best : NULL;
    r->order = q->best->order;
    r->qtime = q->best->qtime_start;
    r->edits = edits;
    r->t0 = now;
    r->p0 = p;
}

int qgroup_any_before(struct qgroup_set *g, struct sched *s, struct prio_batch *pb,
                      const struct job *last, size_t from, size_t to, long now)
{
    /* The slots in use, in slot order (the priorities refreshed before an
     * answer are the same as a walk of every slot's, but for the bests
     * skipped, whose priorities nothing reads before a full pass finds
     * them again, or qgroup_settle does). */
    g->npending = 0;
    g->lazy = 1;
    g->pending_nblocked = s->pl.nblocked;
    for (size_t w = 0; w < QGROUP_SLOTS / 64; w++)
        for (uint64_t m = g->used[w]; m; m &= m - 1) {
            struct qgroup *q = &g->slot[w * 64 + (size_t)__builtin_ctzll(m)];
            if (!q->best || stays_below(g, q, s, pb, last, now))
                continue;
            double p = refresh(s, pb, q->best, now);
            if (p > last->priority)
                return 1; /* it sorts first whatever the tie-breaks */
            if (p == last->priority && member_before(q, s, pb, last, from, to, now))
                return 1;
            note_rise(q, s, p, now);
        }
    return 0;
}

/* qgroup_settle once something is owed: sorted out (lazy), then
 * computed. Out of line: the drivers' start path inlines only the tests
 * before it (under plain EASY, g is NULL), as before the lazy list. */
__attribute__((noinline)) static void settle_owed(struct qgroup_set *g, struct sched *s)
{
    if (g->lazy)
        sort_pending(g, s);
    if (!g->npending)
        return;
    struct prio_env env;
    struct prio_batch pb;
    sched_prio_env(s, &env);
    fsacct_batch_init(s, &pb, &env);
    for (int k = 0; k < g->npending; k++)
        refresh(s, &pb, g->pending[k], g->pending_at);
    g->npending = 0;
}

void qgroup_settle(struct qgroup_set *g, struct sched *s)
{
    if (!g || !g->npending)
        return;
    if (g->pending_iter != s->stats.iterations) { /* owed to that iteration's backfills only */
        g->npending = 0;
        return;
    }
    settle_owed(g, s);
}
