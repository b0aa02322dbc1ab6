/*
 * eset — eligibility credential by credential. When every throttling limit
 * counts the usage of credentials of one kind (USERCFG limits alone, say:
 * limits_single_kind), the idle jobs of one credential never change another
 * credential's eligibility. The idle jobs are then kept per credential (a
 * "component"), and an iteration walks (policy/elig.c) only the components
 * whose answer can have changed since their last walk:
 *
 *   - a job of it was submitted, started, cancelled or requeued (dirty), or
 *     anything an administrator does to idle jobs or to the policy happened
 *     (s->el.elig_all: holds, priorities, QOS, a reload, a deferral's end);
 *   - its credential's active usage is not what the last walk's usage, run
 *     down by time, predicts: a job of it started or ended, or a running one
 *     passed its walltime (checked exactly, not by hooks);
 *   - time alone can lift a refusal from now on (wake): running jobs'
 *     remaining processor-seconds fall by at most `rate` per second, so a
 *     job over MAXPS by E cannot pass before E / rate seconds have gone;
 *   - its walk order can have moved with time (wake_order).
 * Anything else leaves the walk's inputs — the component's jobs, their
 * order, their credential's usage — as they were, so its answer too. An
 * iteration looks only at the components these events marked (eset.due)
 * and those whose wake-up has come (eset.wakes), not at every one, unless
 * something changed them all (a rebuild of active usage, elig_all). A
 * component that only received new submissions walks only them, from the
 * idle usage its last walk ended with (they sort after all its jobs).
 *
 * Jobs blocked at every level (JOB_BLOCKED, not JOB_HARDOK) are parked: out
 * of the scan's queue (s->q.queue), which then holds the jobs an iteration can
 * start, a few per credential under MAXIJOB, instead of the whole backlog;
 * it is sorted at every iteration, as the whole-queue walk orders it.
 *
 * Within a walk, runs of stopped jobs every one of which a limit refuses
 * are jumped (eset_skip: the tree over them keeps the least and greatest
 * request of any range). Between walks, active usage is moved on by time
 * and by the jobs that stopped running (eset_run_down) rather than rebuilt
 * from every running job, while that gives what a rebuild gives.
 *
 * Requires the static priority order (sched_order_is_static): otherwise
 * every priority moves at every iteration and the whole queue is walked, as
 * Maui does (eset off, elig.c's whole-queue walks). tests/integration/eset.sh
 * and the property tests compare the two job for job.
 */
#include <assert.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/sched_int.h"
#include "policy/limits.h"
#include "policy/prio.h"
#include "util/mem.h"
#include "util/sort.h"

/* A range of b: the least and the greatest request of its jobs, type by
 * type (a hole: +inf and -inf), and whether every one of them is plain:
 * a walk's turn can do nothing to it but refuse it by its request alone
 * (neither held nor deferred, within its per-job limits). */
struct seg_node {
    double lo[LIM_NTYPES], hi[LIM_NTYPES];
    int plain;
};

/*
 * A component's jobs are in two lists. a: jobs whose queue time accrues —
 * the few an iteration may start, new ones, held ones —, in no order,
 * sorted at each walk. b: jobs whose queue time is stopped (JOB_QSTOP at
 * the last walk): they all count it from the same instant, so their
 * priorities are equal and their order is submission order, which never
 * moves; NULL holes where jobs left. A walk takes them merged, in priority
 * order, and stops reading b where an idle job limit (MAXIJOB) is full:
 * every later job is refused then, and the unread b jobs were refused
 * already (blocked, parked), so only the a jobs left need the walk.
 */
struct eset_comp {
    struct job **a;
    size_t na, capa;
    struct job **b;
    size_t bh, nb, capb, bholes; /* b[bh, nb) is live, bholes NULLs in it */
    /* The least and greatest request of the b jobs in any range, type by
     * type: a segment tree over b's positions (leaves segcap..), valid
     * while seg_ok. */
    struct seg_node *seg;
    size_t segcap;
    /* The nodes allocated at seg: kept when b shrinks (seg_rebuild). */
    size_t segalloc;
    int seg_ok;  /* and then every leaf out of b[bh, nb) or of a hole is a hole */
    int dirty;   /* something changed its jobs since the last walk */
    size_t nnew; /* jobs submitted since, the last of a: they sort after every other */
    long maxsub; /* the latest submission among its jobs */
    size_t maxord;
    double idle_end[2][LIM_NTYPES]; /* idle usage at the end of its hard and soft walks */
    int started;                    /* a job of it started in this iteration */
    int moved;                      /* a job of its credential started or stopped running since
                                       its last walk (eset_moved) */
    int inrun;                      /* in eset.run */
    int listed;                     /* in eset.live */
    int odd;                        /* some b job is not blocked (the soft walk admitted a job the
                                       hard walk refused): its walks read b whole */
    long wake;                      /* from then on time alone may change its answer */
    long lift;                      /* ... of which: when time alone may lift a refusal (the rest is
                                       its walk order, which only a walk looks at) */
    long walked;                    /* when it was last walked (LONG_MIN: never) */
    double use[LIM_NTYPES];         /* its credential's active usage then */
    double rate[2];                 /* ... and how fast its PS and WC were running down */
    double cur[2];                  /* this iteration's rates */
    size_t hpos;                    /* in eset.wakes by wake (SIZE_MAX: not) */
    size_t lpos;                    /* in eset.lifts by lift (SIZE_MAX: not) */
    int marked;                     /* in eset.due */
};

/* The walk under way over one component: its jobs in priority order, read
 * as far as the walks need. */
struct eset_cur {
    size_t k;
    struct job **sa; /* a (append: its new jobs), sorted */
    size_t ia, nsa, capsa;
    size_t ib;        /* next unread b entry */
    double bprio;     /* the b jobs' priority */
    struct job **tmp; /* merged so far */
    size_t ntmp, captmp;
    size_t *apos; /* the places in tmp of its a jobs, rising: every other is a b job */
    size_t napos, capapos;
    struct job **rest; /* eset_rest: tmp from rest_from on, then the unread a jobs */
    size_t caprest, rest_from;
    int cut; /* a walk stopped reading b */
    /* The clean ranges of tmp, [jlo[r], jhi[r]) rising: b jobs a jump
     * appended that no walk has read since. Refused at their last walk and
     * jumped (eset_may_cut: every b job blocked and parked), they stay in b
     * as they were, so eset_walked passes them without a look (thousands). */
    size_t *jlo, *jhi;
    size_t nj, capjlo, capjhi;
    int rest_on;      /* a cut walk reads its rest (eset_rest): */
    size_t rest_next; /* ... every place of it from here on not jumped is read */
    size_t keep;      /* a jobs before this walk's (append: the old ones) */
    int floor;        /* some a job's priority is at its floor (1) */
    int append;       /* only the new jobs are walked, after the old ones' end state */
};

struct eset {
    enum cred_kind kind;
    unsigned long limits_gen;
    unsigned types;            /* the types the trees keep: limits_kind_types', and the job count */
    double least0[LIM_NTYPES]; /* eset_unread_least's start: +inf for those types, else 0 */
    struct eset_comp *c;       /* by credential index */
    size_t nc, capc;
    struct eset_cur cur;
    struct job **disp; /* every idle job, for the commands */
    size_t capdisp;
    struct job **walk; /* every idle job, for elig_reasons (eset_walk_order) */
    size_t capwalk;
    struct job **nb; /* eset_walked: jobs joining b */
    size_t capnb;
    struct job **seen; /* eset_walked: the read jobs it files (not stays_in_b) */
    size_t capseen;
    struct sort_buf sb;
    size_t nparked;
    /* The components that may have idle jobs, by index: every one that has
     * some is here (only comp_push gives a component a job), so that an
     * iteration looks at these and not at every credential (eset_settle
     * drops the empty ones). And the components a job of which started
     * since the last eset_started_due pass. */
    size_t *live, nlive, caplive;
    size_t *stl, nstl, capstl;
    /* The components an event since their last walk may have made due
     * (dirty, new jobs, moved; eset_mark), by index once a pass begins,
     * dnext the next to look at; those whose wake-up is to come, by wake
     * (heap seq: the index, which re-points the heap when e->c moves); and
     * whether every live component must be looked at (all_due: active
     * usage was rebuilt, every rate may have moved). */
    size_t *due, ndue, capdue, dnext;
    struct heap wakes;
    /* The components with idle jobs whose lift is to come, by lift: the
     * first is eset_lift's answer. */
    struct heap lifts;
    int all_due, scan; /* scan: this pass looks at every live component */
    int emptied;       /* some component lost its last idle job: eset_settle unlists it */
    int parked_some;   /* s->q.queue holds parked jobs: filter them out */
    int unparked_some; /* jobs came back to s->q.queue: sort it */
    /* Active usage as of act_at (elig.c rebuilds it, eset_run_down moves
     * it on): valid while act_ok, for limits generation act_gen, until
     * act_cross, the first walltime end of a running job after act_at; no
     * job started or stopped running since while !moved_any. run: the
     * components whose rates (cur) are not 0. */
    int act_ok, moved_any;
    unsigned long act_gen;
    long act_at, act_cross;
    size_t *run, nrun, caprun;
    /* Jobs that stopped running since act_at: what they held then, taken
     * off where a rebuild would have dropped them (at the next one). */
    struct eset_stop {
        size_t k;
        double req[LIM_NTYPES];
        double procs; /* its rates' share (0: no walltime left at act_at) */
    } * stops;
    size_t nstops, capstops;
};

/* Rates are kept for PS and WC, the usage types time runs down. */
enum { R_PS, R_WC };

static const struct cred *comp_cred(const struct eset *e, const struct job *j)
{
    switch (e->kind) {
    case CRED_GROUP:
        return j->group;
    case CRED_CLASS:
        return j->class_;
    case CRED_QOS:
        return j->qos;
    default:
        return j->user;
    }
}

/* comp_of's growth to component i (new ones dirty: walked at the next pass). */
static __attribute__((noinline)) void comp_grow(struct eset *e, size_t i)
{
    e->c = xgrow(e->c, &e->capc, i + 1, sizeof *e->c);
    for (size_t k = e->nc; k <= i; k++)
        e->c[k] = (struct eset_comp){.dirty = 1,
                                     .walked = LONG_MIN,
                                     .maxsub = LONG_MIN,
                                     .lift = AVAIL_NEVER,
                                     .hpos = SIZE_MAX,
                                     .lpos = SIZE_MAX};
    e->nc = i + 1;
    for (size_t h = 0; h < e->wakes.n; h++) /* e->c may have moved */
        e->wakes.v[h].elem = &e->c[e->wakes.v[h].seq];
    for (size_t h = 0; h < e->lifts.n; h++)
        e->lifts.v[h].elem = &e->c[e->lifts.v[h].seq];
}

/* Inline: every running job is counted through it at every rebuild. */
static inline struct eset_comp *comp_of(struct eset *e, const struct job *j)
{
    size_t i = comp_cred(e, j)->index;
    if (i >= e->nc)
        comp_grow(e, i);
    return &e->c[i];
}

static size_t comp_count(const struct eset_comp *c)
{
    return c->na + (c->nb - c->bh - c->bholes);
}

/* c goes into heap h under key (its position at *pos), or out (on 0). */
static void comp_file(struct eset *e, struct heap *h, struct eset_comp *c, size_t pos, long key,
                      int on)
{
    size_t k = (size_t)(c - e->c);
    if (!on) {
        if (pos != SIZE_MAX)
            heap_remove(h, pos);
    } else if (pos != SIZE_MAX) {
        heap_rekey(h, pos, key, k);
    } else {
        heap_push(h, c, key, k);
    }
}

/* c's lift counts for eset_lift while c has idle jobs. */
static void lift_file(struct eset *e, struct eset_comp *c)
{
    comp_file(e, &e->lifts, c, c->lpos, c->lift, c->lift != AVAIL_NEVER && comp_count(c));
}

/* Something happened to c that may make it due: eset_due looks at it. */
static void comp_mark(struct eset *e, struct eset_comp *c)
{
    if (!c->marked) {
        e->due = xgrow(e->due, &e->capdue, e->ndue + 1, sizeof *e->due);
        e->due[e->ndue++] = (size_t)(c - e->c);
        c->marked = 1;
    }
}

static void a_push(struct eset_comp *c, struct job *j)
{
    c->a = xgrow(c->a, &c->capa, c->na + 1, sizeof *c->a);
    j->epos = c->na;
    j->flags &= ~(unsigned)JOB_INB;
    c->a[c->na++] = j;
}

/* What j asks, as limits count it, at least: processor equivalents depend
 * on the cluster and are left at 0. */
static void least_of(const struct job *j, double v[LIM_NTYPES])
{
    limits_request(j, j->walltime, NULL, v);
    v[LIM_PE] = 0;
}

/* Types outside eset.types (m) are never read: no limit is on them.
 * Whether node i changed (seg_rebuild, which does not ask, gets a copy
 * without the comparisons). */
static inline __attribute__((always_inline)) int seg_pull(struct eset_comp *c, size_t i, unsigned m)
{
    const struct seg_node *l = &c->seg[2 * i], *r = &c->seg[2 * i + 1];
    struct seg_node *n = &c->seg[i];
    int plain = l->plain && r->plain, changed = n->plain != plain;
    for (; m; m &= m - 1) {
        int t = __builtin_ctz(m);
        double lo = l->lo[t] < r->lo[t] ? l->lo[t] : r->lo[t];
        double hi = l->hi[t] > r->hi[t] ? l->hi[t] : r->hi[t];
        changed |= (n->lo[t] != lo) | (n->hi[t] != hi);
        n->lo[t] = lo;
        n->hi[t] = hi;
    }
    n->plain = plain;
    return changed;
}

/* The leaf of job j (NULL: a hole). Holds, deferrals and per-job limits
 * change only with s->el.elig_all, after which the tree is rebuilt. */
static void seg_leaf(const struct sched *s, const struct job *j, struct seg_node *n)
{
    if (!j) {
        for (int t = 0; t < LIM_NTYPES; t++) {
            n->lo[t] = HUGE_VAL;
            n->hi[t] = -HUGE_VAL;
        }
        n->plain = 1;
        return;
    }
    least_of(j, n->lo);
    memcpy(n->hi, n->lo, sizeof n->hi);
    n->plain =
        !j->holds && !j->deferred_until && j->jobcheck_gen == s->lim.limits_gen && j->jobcheck_ok;
}

/* b[lo, hi) changed (jobs or holes). */
static void seg_set_range(const struct sched *s, struct eset_comp *c, size_t lo, size_t hi)
{
    if (!c->seg_ok || hi > c->segcap) {
        c->seg_ok = 0;
        return;
    }
    for (size_t i = lo; i < hi; i++)
        seg_leaf(s, c->b[i], &c->seg[c->segcap + i]);
    /* Up to the first level where no node changed: those above it are
     * what they were (a job leaving b seldom held its subtree's least or
     * greatest request far up). */
    int changed = 1;
    for (lo = (c->segcap + lo) / 2, hi = (c->segcap + hi - 1) / 2; lo >= 1 && changed;
         lo /= 2, hi /= 2) {
        changed = 0;
        for (size_t k = lo; k <= hi; k++)
            changed |= seg_pull(c, k, s->el.eset->types);
    }
}

static void seg_set(const struct sched *s, struct eset_comp *c, size_t i)
{
    seg_set_range(s, c, i, i + 1);
}

static void seg_rebuild(const struct sched *s, struct eset_comp *c)
{
    size_t cap = 1;
    while (cap < c->nb)
        cap *= 2;
    /* The nodes are kept when cap falls (b compacted) and the next rise
     * reuses them: b's size goes up and down by twos with every compaction,
     * and a fresh zeroed tree at each cost more than the rebuild itself.
     * Whatever a node held before is overwritten below for every type the
     * trees read (eset.types; seg_leaf writes them all). */
    if (2 * cap > c->segalloc) {
        free(c->seg);
        c->seg = xcalloc(2 * cap, sizeof *c->seg);
        c->segalloc = 2 * cap;
    }
    c->segcap = cap;
    for (size_t i = 0; i < cap; i++)
        seg_leaf(s, i < c->nb && i >= c->bh ? c->b[i] : NULL, &c->seg[cap + i]);
    for (size_t k = cap - 1; k >= 1; k--)
        (void)seg_pull(c, k, s->el.eset->types);
    c->seg_ok = 1;
}

/* Append j to b; the caller updates the tree. */
static void b_push(struct eset_comp *c, struct job *j)
{
    c->b = xgrow(c->b, &c->capb, c->nb + 1, sizeof *c->b);
    j->epos = c->nb;
    j->flags |= JOB_INB;
    c->b[c->nb++] = j;
}

/* j leaves b: a hole in its slot (positions stay; the caller files j). */
static void b_leave(const struct sched *s, struct eset_comp *c, struct job *j)
{
    c->b[j->epos] = NULL;
    seg_set(s, c, j->epos);
    c->bholes++;
}

/* The first place in the rising array v[0, n) holding k or more (n if none). */
static size_t rising_from(const size_t *v, size_t n, size_t k)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid] < k)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The first position of e->live whose component index is k or above. */
static size_t live_from(const struct eset *e, size_t k)
{
    return rising_from(e->live, e->nlive, k);
}

/* Component k joins e->live (kept in index order: walks go by index). */
static void live_add(struct eset *e, size_t k)
{
    if (e->c[k].listed)
        return;
    e->live = xgrow(e->live, &e->caplive, e->nlive + 1, sizeof *e->live);
    size_t at = live_from(e, k);
    memmove(e->live + at + 1, e->live + at, (e->nlive - at) * sizeof *e->live);
    e->live[at] = k;
    e->nlive++;
    e->c[k].listed = 1;
}

static void comp_push(struct eset *e, struct job *j)
{
    struct eset_comp *c = comp_of(e, j);
    live_add(e, (size_t)(c - e->c));
    comp_mark(e, c);
    a_push(c, j); /* its place is found at the next walk */
    lift_file(e, c);
    /* A new submission, later than every job of the component, with its
     * queue time from its submission: it sorts after all of them (their
     * queue time started no later, ties go by submission), so a walk can
     * go on from where the last one ended. */
    int last = j->submit >= c->maxsub && j->order > c->maxord && j->qtime_start == j->submit &&
               !(j->flags & JOB_QSTOP) && c->walked <= j->submit;
    if (last && !c->dirty)
        c->nnew++;
    else
        c->dirty = 1;
    if (j->submit > c->maxsub)
        c->maxsub = j->submit;
    if (j->order > c->maxord)
        c->maxord = j->order;
}

/* Any live job of c (they share the credential). */
static const struct job *comp_any(const struct eset_comp *c)
{
    if (c->na)
        return c->a[0];
    for (size_t i = c->bh; i < c->nb; i++)
        if (c->b[i])
            return c->b[i];
    return NULL;
}

static int by_submission(const void *x, const void *y)
{
    const struct job *a = *(const struct job *const *)x, *b = *(const struct job *const *)y;
    if (a->submit != b->submit)
        return a->submit < b->submit ? -1 : 1;
    return a->order < b->order ? -1 : (a->order > b->order);
}

/* The first live slot of b from i on, before hi (hi: none). Holes come in
 * long runs where a walk admitted many jobs: the tree, when it holds, finds
 * it past them (a hole's leaf counts no job). */
static size_t b_next_live(const struct eset_comp *c, size_t i, size_t hi)
{
    if (!c->seg_ok || c->segcap < c->nb) {
        while (i < hi && !c->b[i])
            i++;
        return i;
    }
    if (i >= hi || c->b[i])
        return i < hi ? i : hi;
    size_t k = c->segcap + i;
    for (;; k /= 2) { /* up to the first right sibling with a job */
        if (k == 1)
            return hi;
        if (!(k & 1) && c->seg[k + 1].lo[LIM_JOB] < HUGE_VAL)
            break;
    }
    for (k++; k < c->segcap;) /* down to its first job */
        k = c->seg[2 * k].lo[LIM_JOB] < HUGE_VAL ? 2 * k : 2 * k + 1;
    return k - c->segcap < hi ? k - c->segcap : hi;
}

/* The place of j (not in b) among b's live jobs: the first position of
 * b[bh, nb) from which every live job sorts after it. */
static size_t b_place(const struct eset_comp *c, const struct job *j)
{
    size_t last = c->nb; /* one past the last live job */
    while (last > c->bh && !c->b[last - 1])
        last--;
    if (last == c->bh || by_submission(&c->b[last - 1], &j) < 0)
        return last; /* after every one (a new submission: the common case) */
    size_t lo = c->bh, hi = last - 1;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2, m = b_next_live(c, mid, hi);
        if (m < hi && by_submission(&c->b[m], &j) < 0)
            lo = m + 1;
        else
            hi = mid; /* every live job of [mid, hi) sorts after j */
    }
    return lo;
}

/* Whether b's dead slots, the holes and the head passed (b[0, bh)), are
 * more than its live jobs. Counting the head matters: jobs mostly leave b
 * from the head, and b grows at its tail with every job filed, so without
 * it b and its tree grew with every job ever filed, not with the jobs in it
 * (quadratic memory on a queue that never drains). */
static int b_sparse(const struct eset_comp *c)
{
    return c->bh + 2 * c->bholes > c->nb - c->bh;
}

/* Drop b's holes (positions change: epos follows). */
static void b_compact(struct eset_comp *c)
{
    c->seg_ok = 0;
    size_t w = 0;
    for (size_t r = c->bh; r < c->nb; r++)
        if (c->b[r]) {
            c->b[w] = c->b[r];
            c->b[w]->epos = w;
            w++;
        }
    c->bh = 0;
    c->nb = w;
    c->bholes = 0;
}

/* Whether the policy lets eligibility go credential by credential. */
static int usable(const struct sched *s)
{
    return !s->el.elig_full && limits_any(s->lim.limits) && !s->fsh.fs_caps &&
           limits_single_kind(s->lim.limits) >= 0 && sched_order_is_static(s);
}

static void set_types(struct eset *e, unsigned types)
{
    e->types = types;
    for (int t = 0; t < LIM_NTYPES; t++) /* 0: no request is less (no limit reads it) */
        e->least0[t] = types >> t & 1 ? HUGE_VAL : 0;
}

static void turn_on(struct sched *s)
{
    struct eset *e = xcalloc(1, sizeof *e);
    heap_init(&e->wakes, offsetof(struct eset_comp, hpos));
    heap_init(&e->lifts, offsetof(struct eset_comp, lpos));
    e->kind = (enum cred_kind)limits_single_kind(s->lim.limits);
    e->limits_gen = s->lim.limits_gen;
    set_types(e, limits_kind_types(s->lim.limits, e->kind) | 1u << LIM_JOB);
    elig_unpark_all(s); /* the whole-queue walks' parked jobs: eset lists every idle job */
    s->el.eset = e;
    for (size_t i = s->q.qhead; i < s->q.qlen; i++)
        if (s->q.queue[i])
            comp_push(e, s->q.queue[i]);
}

static void unpark_to_queue(struct sched *s, struct job *j)
{
    j->epos = SIZE_MAX;
    j->flags &= ~(unsigned)JOB_INB;
    if (j->flags & JOB_PARKED) {
        j->flags &= ~(unsigned)JOB_PARKED;
        s->q.queue = xgrow(s->q.queue, &s->q.qcap, s->q.qlen + 1, sizeof *s->q.queue);
        s->q.queue[s->q.qlen++] = j;
        s->q.qidle++;
    }
}

/* Back to whole-queue walks: every parked job returns to the queue. */
static void turn_off(struct sched *s)
{
    struct eset *e = s->el.eset;
    for (size_t k = 0; k < e->nc; k++) {
        struct eset_comp *c = &e->c[k];
        for (size_t i = 0; i < c->na; i++)
            unpark_to_queue(s, c->a[i]);
        for (size_t i = c->bh; i < c->nb; i++)
            if (c->b[i])
                unpark_to_queue(s, c->b[i]);
    }
    s->q.unsorted = 1;
    s->el.eset = NULL;
    eset_free(e);
}

void eset_free(struct eset *e)
{
    if (!e)
        return;
    for (size_t k = 0; k < e->nc; k++) {
        free(e->c[k].a);
        free(e->c[k].b);
        free(e->c[k].seg);
    }
    free(e->c);
    free(e->live);
    free(e->stl);
    free(e->due);
    heap_free(&e->wakes);
    heap_free(&e->lifts);
    free(e->run);
    free(e->stops);
    free(e->cur.sa);
    free(e->cur.tmp);
    free(e->cur.apos);
    free(e->cur.rest);
    free(e->cur.jlo);
    free(e->cur.jhi);
    free(e->disp);
    free(e->walk);
    free(e->nb);
    free(e->seen);
    sort_buf_free(&e->sb);
    free(e);
}

void eset_sync(struct sched *s)
{
    elig_sync_parked(s); /* before the queue is sorted: they come back in order */
    int want = usable(s);
    if (s->el.eset &&
        (!want || (enum cred_kind)limits_single_kind(s->lim.limits) != s->el.eset->kind))
        turn_off(s);
    if (want && !s->el.eset)
        turn_on(s);
    struct eset *e = s->el.eset;
    if (e && e->limits_gen != s->lim.limits_gen) {
        e->limits_gen = s->lim.limits_gen;
        set_types(e, limits_kind_types(s->lim.limits, e->kind) | 1u << LIM_JOB);
        for (size_t k = 0; k < e->nc; k++)
            e->c[k].seg_ok = 0; /* built for the old types */
        s->el.elig_all = 1;
    }
}

void eset_add(struct sched *s, struct job *j)
{
    if (s->el.eset && j->epos == SIZE_MAX)
        comp_push(s->el.eset, j);
}

void eset_remove(struct sched *s, struct job *j, int started)
{
    struct eset *e = s->el.eset;
    if (!e || j->epos == SIZE_MAX)
        return;
    struct eset_comp *c = comp_of(e, j);
    if (j->flags & JOB_INB) {
        b_leave(s, c, j);
        if (b_sparse(c))
            b_compact(c);
    } else {
        struct job *last = c->a[--c->na];
        c->a[j->epos] = last;
        last->epos = j->epos;
    }
    j->epos = SIZE_MAX;
    j->flags &= ~(unsigned)JOB_INB;
    c->dirty = 1;
    comp_mark(e, c);
    e->emptied |= !comp_count(c);
    lift_file(e, c);
    if (started && !c->started) {
        e->stl = xgrow(e->stl, &e->capstl, e->nstl + 1, sizeof *e->stl);
        e->stl[e->nstl++] = (size_t)(c - e->c);
    }
    c->started |= started;
    if (j->flags & JOB_PARKED) {
        j->flags &= ~(unsigned)JOB_PARKED;
        e->nparked--;
    }
}

long eset_lift(const struct sched *s)
{
    const struct heap *h = &s->el.eset->lifts;
    return h->n ? h->v[0].key : AVAIL_NEVER;
}

int eset_unlist(struct sched *s, struct job *j)
{
    int parked = eset_parked(s, j);
    eset_remove(s, j, 0);
    return parked;
}

void eset_relist(struct sched *s, struct job *j, int was_parked)
{
    if (!s->el.eset)
        return;
    if (was_parked) {
        s->q.queue = xgrow(s->q.queue, &s->q.qcap, s->q.qlen + 1, sizeof *s->q.queue);
        s->q.queue[s->q.qlen++] = j;
        s->q.qidle++;
        s->el.eset->unparked_some = 1;
    }
    eset_add(s, j);
}

int eset_parked(const struct sched *s, const struct job *j)
{
    return s->el.eset && (j->flags & JOB_PARKED);
}

size_t eset_nparked(const struct sched *s)
{
    return s->el.eset ? s->el.eset->nparked : 0;
}

void eset_running(struct sched *s, const struct job *j, long left)
{
    struct eset *e = s->el.eset;
    if (!e || left <= 0)
        return;
    struct eset_comp *c = comp_of(e, j);
    if (!c->inrun) {
        e->run = xgrow(e->run, &e->caprun, e->nrun + 1, sizeof *e->run);
        e->run[e->nrun++] = (size_t)(c - e->c);
        c->inrun = 1;
    }
    c->cur[R_PS] += (double)job_procs(j);
    c->cur[R_WC] += 1;
}

void eset_begin(struct sched *s)
{
    struct eset *e = s->el.eset;
    if (!e)
        return;
    for (size_t i = 0; i < e->nrun; i++) { /* every component whose rates are not 0 */
        struct eset_comp *c = &e->c[e->run[i]];
        c->cur[R_PS] = c->cur[R_WC] = 0;
        c->inrun = 0;
    }
    e->nrun = 0;
}

void eset_rebuilt(struct sched *s, long now, long cross)
{
    struct eset *e = s->el.eset;
    e->act_ok = 1;
    e->moved_any = 0;
    e->act_gen = s->lim.limits_gen;
    e->act_at = now;
    e->act_cross = cross;
    e->nstops = 0;
    e->all_due = 1; /* every component's rates were counted anew */
}

/*
 * act_cross came: whether the jobs running now still all have walltime
 * left, act_cross moved to the first end among them. It was a job that has
 * ended since (most often at its walltime's end): what it held was taken off
 * exactly (e->stops), and a rebuild would drop it all the same. Jobs out of
 * walltime at act_at hold no PS or WC and run nothing down, as a rebuild
 * counts them; a job that started since ends after act_at.
 */
static int cross_moved(const struct sched *s, struct eset *e, long now)
{
    long cross = AVAIL_NEVER;
    for (size_t i = 0; i < s->pl.running.n; i++) {
        const struct job *j = heap_at(&s->pl.running, i);
        long end = j->start + j->walltime;
        if (end > e->act_at && end < cross)
            cross = end;
    }
    e->act_cross = cross;
    return now < cross;
}

int eset_run_down(struct sched *s, long now)
{
    struct eset *e = s->el.eset;
    if (!e->act_ok || e->moved_any || e->act_gen != s->lim.limits_gen || now < e->act_at ||
        limits_pe_any(s->lim.limits))
        return 0;
    if (now >= e->act_cross && !cross_moved(s, e, now))
        return 0;
    for (size_t i = 0; i < e->nstops; i++) { /* as a rebuild, without them */
        const struct eset_stop *x = &e->stops[i];
        limits_take(s->lim.limits, e->kind, x->k, x->req);
        e->c[x->k].cur[R_PS] -= x->procs;
        e->c[x->k].cur[R_WC] -= x->procs > 0;
    }
    e->nstops = 0;
    /* Components whose jobs with walltime left all stopped leave run (no
     * rebuild empties it now that walltime ends rarely cause one). */
    double dt = (double)(now - e->act_at);
    size_t n = 0;
    for (size_t i = 0; i < e->nrun; i++) {
        struct eset_comp *c = &e->c[e->run[i]];
        if (c->cur[R_PS] == 0 && c->cur[R_WC] == 0) {
            c->inrun = 0;
            continue;
        }
        if (dt > 0)
            limits_run_down(s->lim.limits, e->kind, e->run[i], c->cur[R_PS] * dt,
                            c->cur[R_WC] * dt);
        e->run[n++] = e->run[i];
    }
    e->nrun = n;
    e->act_at = now;
    return 1;
}

/* Whether the credential's active usage now is the last walk's, run down by
 * the time since at the rates it had: nothing of it started or ended. When
 * no job of it started or stopped running since (eset_moved), the rates
 * answer: they count the jobs with walltime left, and fall when one passes
 * it; else the same jobs give the walk's usage less rate x time, exactly
 * (active usage is rebuilt from the running jobs, whole numbers — unless
 * processor equivalents are counted, fractions summed in the running
 * jobs' order, which may move). */
static int usage_as_predicted(const struct sched *s, const struct eset_comp *c, long now)
{
    if (c->cur[R_PS] != c->rate[R_PS] || c->cur[R_WC] != c->rate[R_WC])
        return 0;
    if (!c->moved && !limits_pe_any(s->lim.limits))
        return 1;
    const double *u = limits_usage(s->lim.limits, comp_any(c), s->el.eset->kind, LIM_ACTIVE);
    double dt = (double)(now - c->walked);
    for (int t = 0; t < LIM_NTYPES; t++) {
        double want = c->use[t];
        if (t == LIM_PS)
            want -= c->rate[R_PS] * dt;
        else if (t == LIM_WC)
            want -= c->rate[R_WC] * dt;
        if (u[t] != want)
            return 0;
    }
    return 1;
}

/* A job of j's credential started or stopped running: its component is
 * marked for the next pass. */
static struct eset_comp *mark_moved(struct eset *e, const struct job *j)
{
    struct eset_comp *c = comp_of(e, j);
    c->moved = 1;
    comp_mark(e, c);
    return c;
}

void eset_moved(struct sched *s, const struct job *j)
{
    if (s->el.eset) {
        mark_moved(s->el.eset, j);
        s->el.eset->moved_any = 1;
    }
}

void eset_started(struct sched *s, const struct job *j)
{
    struct eset *e = s->el.eset;
    if (!e)
        return;
    mark_moved(e, j);
    /* elig_started added its whole walltime: what a rebuild at act_at
     * gives it if it started then. */
    if (j->start != e->act_at || j->walltime <= 0)
        e->moved_any = 1;
    else if (j->start + j->walltime < e->act_cross)
        e->act_cross = j->start + j->walltime;
}

void eset_stopped(struct sched *s, const struct job *j)
{
    struct eset *e = s->el.eset;
    if (!e)
        return;
    struct eset_comp *c = mark_moved(e, j);
    if (!e->act_ok || e->moved_any || limits_pe_any(s->lim.limits)) {
        e->moved_any = 1;
        return;
    }
    long left = j->start + j->walltime - e->act_at;
    e->stops = xgrow(e->stops, &e->capstops, e->nstops + 1, sizeof *e->stops);
    struct eset_stop *x = &e->stops[e->nstops++];
    x->k = (size_t)(c - e->c);
    limits_request_for(s->lim.limits, j, left > 0 ? left : 0, NULL, x->req);
    x->procs = left > 0 ? (double)job_procs(j) : 0;
}

/* Whether component c is due for a walk at now. */
static int comp_due(const struct sched *s, const struct eset_comp *c, long now)
{
    if (!comp_count(c))
        return 0; /* no idle job: nothing to decide */
    return c->dirty || c->nnew || s->el.elig_all || now >= c->wake ||
           !usage_as_predicted(s, c, now);
}

static int by_index(const void *x, const void *y)
{
    size_t a = *(const size_t *)x, b = *(const size_t *)y;
    return a < b ? -1 : a > b;
}

/*
 * A pass begins: the components to look at, by index. Unless every live
 * one must be looked at (scan), the marked ones and those whose wake-up
 * came: any other is not due — nothing happened to its jobs, its usage
 * runs down at the rates of its last walk (a rate moves only with a job
 * starting or stopping, marked, or at a rebuild, all_due), and its wake-up
 * is to come.
 */
static int due_begin(struct sched *s, long now)
{
    struct eset *e = s->el.eset;
    while (e->wakes.n && e->wakes.v[0].key <= now)
        comp_mark(e, heap_pop(&e->wakes));
    int scan = e->all_due || s->el.elig_all || limits_pe_any(s->lim.limits);
    e->all_due = 0;
    if (!scan && e->ndue > 1) /* (qsort's array must not be NULL, even empty) */
        qsort(e->due, e->ndue, sizeof *e->due, by_index);
    e->dnext = 0;
    return scan;
}

/* A pass ends: a component stays marked while an event's mark on it is
 * not cleared by a walk, and it has idle jobs (a new one marks it). */
static void due_end(struct eset *e)
{
    size_t n = 0;
    for (size_t i = 0; i < e->ndue; i++) {
        struct eset_comp *c = &e->c[e->due[i]];
        if ((c->dirty || c->nnew || c->moved) && comp_count(c))
            e->due[n++] = e->due[i];
        else
            c->marked = 0;
    }
    e->ndue = n;
}

int eset_due(struct sched *s, size_t *k, long now)
{
    struct eset *e = s->el.eset;
    if (*k == 0)
        e->scan = due_begin(s, now);
    if (e->scan) {
        for (size_t i = live_from(e, *k); i < e->nlive; i++)
            if (comp_due(s, &e->c[e->live[i]], now)) {
                *k = e->live[i];
                return 1;
            }
    } else {
        while (e->dnext < e->ndue) {
            size_t i = e->due[e->dnext++];
            if (i >= *k && comp_due(s, &e->c[i], now)) {
                *k = i;
                return 1;
            }
        }
    }
    due_end(e);
    return 0;
}

int eset_started_due(struct sched *s, size_t *k)
{
    struct eset *e = s->el.eset;
    if (*k == 0 && e->nstl > 1) /* a new pass: by index, as walks go */
        qsort(e->stl, e->nstl, sizeof *e->stl, by_index);
    for (size_t i = 0; i < e->nstl; i++) {
        struct eset_comp *c = &e->c[e->stl[i]];
        if (e->stl[i] < *k || !c->started)
            continue;
        c->started = 0;
        c->dirty = 1; /* its usage changed: walk it whole at the next iteration */
        comp_mark(e, c);
        if (comp_count(c)) {
            *k = e->stl[i];
            return 1;
        }
    }
    e->nstl = 0; /* every started flag is clear */
    return 0;
}

/* Whether component k's walk can go on from the last one's end: only new
 * submissions since, and nothing else that could change its answer. */
static int appending(const struct sched *s, const struct eset_comp *c, long now)
{
    return !c->dirty && c->nnew && !s->el.elig_all && now < c->wake &&
           usage_as_predicted(s, c, now);
}

/* j's priority in the order of this iteration's walks: one they stopped
 * still counts its own queue time (the whole-queue walk sorted it before). */
static double walk_priority(const struct sched *s, const struct prio_env *env, struct job *j,
                            long now)
{
    unsigned stopped_now = (j->flags & JOB_QSTOP) && j->qstop_iter == s->stats.iterations;
    j->flags &= ~(stopped_now ? (unsigned)JOB_QSTOP : 0u);
    double p = prio_start(&s->pol.prio, env, j, now, NULL);
    j->flags |= stopped_now ? (unsigned)JOB_QSTOP : 0u;
    return p;
}

/*
 * The last priority walk_priority computed, and where its job's queue time
 * counts from. Under the static order eset requires, a start priority is a
 * function of queue time alone (prio_order_is_submission: every other factor
 * weighs nothing; no QOS slope, no system priority), and of the class and
 * group under a group's CLASSWEIGHT: jobs that count from the same instant,
 * of the same class and group, have the same priority. Most do — the jobs one walk admitted, the
 * stopped ones —, so a component of thousands costs a few evaluations, not
 * thousands (issue 31: GROUPCFG MAXJOB=4).
 */
struct prio_memo {
    int ok;
    long from;
    const struct cred *class_, *group;
    double p;
};

/* walk_priority through memo m (one iteration's env and now). */
static double memo_priority(const struct sched *s, const struct prio_env *env, struct job *j,
                            long now, struct prio_memo *m)
{
    unsigned stopped_now = (j->flags & JOB_QSTOP) && j->qstop_iter == s->stats.iterations;
    long from = (j->flags & JOB_QSTOP) && !stopped_now ? prio_qstop_from(env, now) : j->qtime_start;
    if (m->ok && m->from == from && m->class_ == j->class_ && m->group == j->group &&
        j->sysprio_mode == SYSPRIO_NONE)
        return m->p;
    double p = walk_priority(s, env, j, now);
    *m = (struct prio_memo){j->sysprio_mode == SYSPRIO_NONE, from, j->class_, j->group, p};
    return p;
}

void eset_open(struct sched *s, size_t k, long now, long qstop)
{
    struct eset *e = s->el.eset;
    struct eset_cur *u = &e->cur;
    struct eset_comp *c = &e->c[k];
    struct prio_env env;
    sched_prio_env(s, &env);
    env.qstop = qstop;
    u->k = k;
    u->append = appending(s, c, now);
    u->keep = u->append ? c->na - c->nnew : 0;
    u->sa = xgrow(u->sa, &u->capsa, c->na ? c->na : 1, sizeof *u->sa);
    u->floor = 0;
    struct prio_memo m = {0};
    for (size_t i = u->keep; i < c->na; i++) {
        u->sa[i - u->keep] = c->a[i];
        c->a[i]->priority = memo_priority(s, &env, c->a[i], now, &m);
        u->floor |= c->a[i]->priority <= 1.0;
    }
    sort_ptrs((void **)u->sa, c->na - u->keep, prio_cmp, &e->sb);
    u->nsa = c->na - u->keep;
    u->ia = 0;
    u->ib = u->append ? c->nb : c->bh;
    u->ntmp = 0;
    u->napos = 0;
    u->cut = 0;
    u->nj = 0;
    u->rest_on = 0;
    u->bprio = 0;
    for (size_t i = c->bh; i < c->nb; i++)
        if (c->b[i]) {
            u->bprio = prio_start(&s->pol.prio, &env, c->b[i], now, NULL);
            break;
        }
}

/* tmp[lo, hi), b jobs a jump appended, joins the clean ranges (at their
 * end: jumps append). */
static void clean_add(struct eset_cur *u, size_t lo, size_t hi)
{
    if (lo >= hi)
        return;
    if (u->nj && u->jhi[u->nj - 1] == lo) {
        u->jhi[u->nj - 1] = hi;
        return;
    }
    u->jlo = xgrow(u->jlo, &u->capjlo, u->nj + 1, sizeof *u->jlo);
    u->jhi = xgrow(u->jhi, &u->capjhi, u->nj + 1, sizeof *u->jhi);
    u->jlo[u->nj] = lo;
    u->jhi[u->nj++] = hi;
}

/* A walk may have read tmp[lo, hi): out of the clean ranges (a range
 * around it splits in two). */
static void clean_drop(struct eset_cur *u, size_t lo, size_t hi)
{
    size_t r = rising_from(u->jhi, u->nj, lo + 1); /* the first ending past lo */
    if (lo >= hi || r == u->nj || u->jlo[r] >= hi)
        return;
    if (u->jlo[r] < lo && u->jhi[r] > hi) {
        u->jlo = xgrow(u->jlo, &u->capjlo, u->nj + 1, sizeof *u->jlo);
        u->jhi = xgrow(u->jhi, &u->capjhi, u->nj + 1, sizeof *u->jhi);
        memmove(u->jlo + r + 1, u->jlo + r, (u->nj - r) * sizeof *u->jlo);
        memmove(u->jhi + r + 1, u->jhi + r, (u->nj - r) * sizeof *u->jhi);
        u->nj++;
        u->jhi[r] = lo;
        u->jlo[r + 1] = hi;
        return;
    }
    if (u->jlo[r] < lo)
        u->jhi[r++] = lo;
    size_t d = r; /* [r, d) lie within [lo, hi) */
    while (d < u->nj && u->jhi[d] <= hi)
        d++;
    if (d < u->nj && u->jlo[d] < hi)
        u->jlo[d] = hi;
    memmove(u->jlo + r, u->jlo + d, (u->nj - d) * sizeof *u->jlo);
    memmove(u->jhi + r, u->jhi + d, (u->nj - d) * sizeof *u->jhi);
    u->nj -= d - r;
}

/* A cut walk's rest (tmp from rest_from on, then the unread a jobs) was
 * read up to its place k, or to its end (k SIZE_MAX): what eset_skip_rest
 * did not jump since rest_next, the part of it within tmp. */
static void rest_read(struct eset_cur *u, size_t k)
{
    if (!u->rest_on || u->rest_from >= u->ntmp || u->rest_next >= u->ntmp - u->rest_from)
        return;
    size_t left = u->ntmp - u->rest_from; /* the rest's places within tmp */
    clean_drop(u, u->rest_from + u->rest_next, u->rest_from + (k < left ? k : left));
}

/* Whether the b job y goes before the a job x (prio_cmp's order: priority,
 * then submission). */
static int b_first(const struct job *x, const struct job *y, double bprio)
{
    if (x->priority != bprio)
        return bprio > x->priority;
    return by_submission(&y, &x) < 0;
}

struct job *eset_at(struct sched *s, size_t i)
{
    struct eset *e = s->el.eset;
    struct eset_cur *u = &e->cur;
    struct eset_comp *c = &e->c[u->k];
    if (i < u->ntmp && u->nj) /* a walk reads a place a jump passed before */
        clean_drop(u, i, i + 1);
    while (u->ntmp <= i) {
        while (u->ib < c->nb && !c->b[u->ib])
            u->ib++;
        struct job *x = u->ia < u->nsa ? u->sa[u->ia] : NULL;
        struct job *y = u->ib < c->nb ? c->b[u->ib] : NULL;
        if (!x && !y)
            return NULL;
        struct job *j;
        if (y && (!x || b_first(x, y, u->bprio))) {
            /* b is read in order, once: a jump (eset_skip) moved ib past
             * what it passed, or the walk would read those again. */
            assert(!u->ntmp || !(u->tmp[u->ntmp - 1]->flags & JOB_INB) ||
                   u->tmp[u->ntmp - 1]->epos < y->epos);
            j = y;
            j->priority = u->bprio;
            u->ib++;
        } else {
            j = x;
            u->ia++;
            u->apos = xgrow(u->apos, &u->capapos, u->napos + 1, sizeof *u->apos);
            u->apos[u->napos++] = u->ntmp;
        }
        u->tmp = xgrow(u->tmp, &u->captmp, u->ntmp + 1, sizeof *u->tmp);
        u->tmp[u->ntmp++] = j;
    }
    return u->tmp[i];
}

int eset_may_cut(const struct sched *s)
{
    return !s->el.elig_all && !s->el.eset->c[s->el.eset->cur.k].odd;
}

struct job **eset_rest(struct sched *s, size_t i, size_t *n)
{
    struct eset *e = s->el.eset;
    struct eset_cur *u = &e->cur;
    u->cut = 1;
    u->rest_from = i;
    u->rest_on = 1;
    u->rest_next = 0;
    if (u->ia == u->nsa && u->tmp && i <= u->ntmp) { /* every a job read: tmp's tail, as it is */
        *n = u->ntmp - i;
        return u->tmp + i;
    }
    size_t m = (u->ntmp > i ? u->ntmp - i : 0) + (u->nsa - u->ia);
    u->rest = xgrow(u->rest, &u->caprest, m ? m : 1, sizeof *u->rest);
    size_t w = 0;
    for (size_t r = i; r < u->ntmp; r++)
        u->rest[w++] = u->tmp[r];
    for (size_t r = u->ia; r < u->nsa; r++)
        u->rest[w++] = u->sa[r];
    *n = w;
    return u->rest;
}

int eset_unread_least(struct sched *s, double least[LIM_NTYPES])
{
    struct eset_cur *u = &s->el.eset->cur;
    struct eset_comp *c = &s->el.eset->c[u->k];
    if (u->ib >= c->nb)
        return 0;
    if (!c->seg_ok || c->segcap < c->nb)
        seg_rebuild(s, c);
    unsigned m = s->el.eset->types;
    /* a copy, not a loop over the types: once per admission */
    memcpy(least, s->el.eset->least0, sizeof s->el.eset->least0);
    if (u->ib <= c->bh) { /* from the head on (a walk's start): the root, every other leaf a hole */
        for (unsigned b = m; b; b &= b - 1)
            least[__builtin_ctz(b)] = c->seg[1].lo[__builtin_ctz(b)];
        return least[LIM_JOB] < HUGE_VAL;
    }
    for (size_t lo = u->ib + c->segcap, hi = c->nb + c->segcap; lo < hi; lo /= 2, hi /= 2) {
        const double *v[2] = {lo & 1 ? c->seg[lo++].lo : NULL, hi & 1 ? c->seg[--hi].lo : NULL};
        for (int side = 0; side < 2; side++)
            for (unsigned b = v[side] ? m : 0; b; b &= b - 1) {
                int t = __builtin_ctz(b);
                if (v[side][t] < least[t])
                    least[t] = v[side][t];
            }
    }
    return least[LIM_JOB] < HUGE_VAL;
}

/* least[i] (note_refusal's: PS, WC; -1 none) gets v if it is lower. */
static void least_min(double least[2], int i, double v)
{
    if (least[i] < 0 || v < least[i])
        least[i] = v;
}

/* The types of mask m in mode `mode` that request v goes over. */
static unsigned room_over(const struct lim_room *r, int mode, const double v[LIM_NTYPES],
                          unsigned m)
{
    unsigned o = 0;
    for (; m; m &= m - 1) {
        int t = __builtin_ctz(m);
        o |= r->use[mode][t] + v[t] > r->cap[mode][t] ? 1u << t : 0u;
    }
    return o;
}

/*
 * Whether a walk refuses every job of range n at r's level (every one goes
 * over some limit), and then what its turns would have given note_refusal
 * (policy/elig.c), which least gets: nothing from a job over an idle limit
 * or over one time does not run down; else its PS and WC requests, for the
 * types it goes over. The least requests say which types every job goes
 * over, the greatest which none does; a range they leave mixed is judged
 * closer (0), down to single jobs, where nothing is mixed.
 */
static int seg_refused(const struct seg_node *n, const struct lim_room *r, double least[2])
{
    static const int types[2] = {LIM_PS, LIM_WC};
    const unsigned timed = 1u << LIM_PS | 1u << LIM_WC;
    unsigned A = r->set[LIM_ACTIVE], I = r->set[LIM_IDLE];
    if (!n->plain)
        return 0;
    unsigned all_a = room_over(r, LIM_ACTIVE, n->lo, A), all_i = room_over(r, LIM_IDLE, n->lo, I);
    if (!(all_a | all_i))
        return 0; /* some job may pass */
    if (all_i || (all_a & ~timed))
        return 1; /* every one refused, none noted */
    if (room_over(r, LIM_IDLE, n->hi, I) || room_over(r, LIM_ACTIVE, n->hi, A & ~timed))
        return 0; /* some noted, some not */
    double add[2] = {-1, -1};
    for (int i = 0; i < 2; i++) {
        unsigned bit = 1u << types[i];
        if (all_a & bit)
            add[i] = n->lo[types[i]];
        else if (room_over(r, LIM_ACTIVE, n->hi, A & bit))
            return 0; /* over it for some jobs only */
    }
    for (int i = 0; i < 2; i++)
        if (add[i] >= 0)
            least_min(least, i, add[i]);
    return 1;
}

/* The first position of b[lo, hi) (within node k, over [nlo, nhi), with
 * nlo <= lo < nhi) from which the walk must read jobs one by one: every
 * job before it is refused, and least has what their turns note. */
static size_t seg_skip(const struct eset_comp *c, size_t k, size_t nlo, size_t nhi, size_t lo,
                       size_t hi, const struct lim_room *r, double least[2])
{
    if (lo == nlo && hi >= nhi && seg_refused(&c->seg[k], r, least))
        return nhi;
    if (nhi - nlo == 1)
        return lo;
    size_t mid = nlo + (nhi - nlo) / 2;
    if (lo < mid) {
        size_t p = seg_skip(c, 2 * k, nlo, mid, lo, hi, r, least);
        if (p < mid || hi <= mid)
            return p;
        lo = mid;
    }
    return seg_skip(c, 2 * k + 1, mid, nhi, lo, hi, r, least);
}

/* The end of the run of refused b jobs from position `from` of b, before
 * `to` (least as seg_skip), or from when the walk cannot skip. */
static size_t skip_b(struct sched *s, size_t from, size_t to, enum lim_level level, double least[2])
{
    struct eset *e = s->el.eset;
    struct eset_comp *c = &e->c[e->cur.k];
    struct lim_room r;
    /* eset_may_cut's conditions: nothing was done to the idle jobs, and
     * every b job is blocked (refused at both levels at its last walk). */
    if (from >= to || !eset_may_cut(s) ||
        !limits_room(s->lim.limits, c->b[from], e->kind, level, &r))
        return from;
    if (!c->seg_ok || c->segcap < c->nb)
        seg_rebuild(s, c);
    return seg_skip(c, 1, 0, c->segcap, from, to, &r, least);
}

/* Where the run of b jobs in tmp from place t ends: at the next a job's
 * place (apos, by halving), or tmp's end. The jobs are not read: a jump
 * passes thousands. */
static size_t tmp_run_end(const struct eset_cur *u, size_t t)
{
    size_t lo = rising_from(u->apos, u->napos, t);
    return lo < u->napos ? u->apos[lo] : u->ntmp;
}

/* In v[i, n), v[k] tmp's place off + k while that is in tmp (the unread a
 * jobs follow), a run of b jobs (consecutive in b: a walk reads b in order)
 * from i: how far the walk may jump. *end caches where the run ends. */
static size_t skip_run(struct sched *s, struct job *const *v, size_t i, size_t n, size_t off,
                       size_t *end, enum lim_level level, double least[2])
{
    if (i >= *end)
        *end = i < n && (v[i]->flags & JOB_INB) ? tmp_run_end(&s->el.eset->cur, off + i) - off : i;
    if (*end <= i)
        return i;
    size_t to = skip_b(s, v[i]->epos, v[*end - 1]->epos + 1, level, least);
    /* The run's positions rise (b is read in order): the first at or past
     * `to` by halving, not job by job (a jump passes thousands). */
    size_t hi = *end;
    while (i < hi) {
        size_t mid = i + (hi - i) / 2;
        if (v[mid]->epos < to)
            i = mid + 1;
        else
            hi = mid;
    }
    return i;
}

/* Append the live jobs of v[0, n) (b jobs a walk jumps, thousands) to
 * tmp[nt..], at the b jobs' priority; tmp's new length. In locals: each
 * job's priority store could otherwise alias the walk's cursor and tmp. */
static size_t jump_b(struct job *const *v, size_t n, double bprio, struct job **tmp, size_t nt)
{
    for (size_t i = 0; i < n; i++) {
        struct job *j = v[i];
        if (j) {
            j->priority = bprio;
            tmp[nt++] = j;
        }
    }
    return nt;
}

size_t eset_skip(struct sched *s, size_t i, size_t *end, enum lim_level level, double least[2])
{
    struct eset_cur *u = &s->el.eset->cur;
    struct eset_comp *c = &s->el.eset->c[u->k];
    if (i < u->ntmp)
        return skip_run(s, u->tmp, i, u->ntmp, 0, end, level, least);
    while (u->ib < c->nb && !c->b[u->ib])
        u->ib++;
    /* Unread b jobs come next, all of them, if the next a job's priority is
     * below theirs; on a tie (both at the priority floor, say: new jobs and
     * stopped ones alike), those submitted before it. */
    size_t to = c->nb;
    if (u->ia < u->nsa && u->sa[u->ia]->priority >= u->bprio)
        to = u->sa[u->ia]->priority > u->bprio ? u->ib : b_place(c, u->sa[u->ia]);
    if (u->ib >= to)
        return i;
    to = skip_b(s, u->ib, to, level, least);
    u->tmp = xgrow(u->tmp, &u->captmp, u->ntmp + (to - u->ib) + 1, sizeof *u->tmp);
    size_t from = u->ntmp;
    u->ntmp = jump_b(c->b + u->ib, to - u->ib, u->bprio, u->tmp, u->ntmp);
    clean_add(u, from, u->ntmp);
    u->ib = to;
    return u->ntmp;
}

size_t eset_skip_rest(struct sched *s, struct job *const *v, size_t i, size_t n, size_t *end,
                      enum lim_level level, double least[2])
{
    struct eset_cur *u = &s->el.eset->cur;
    size_t to = skip_run(s, v, i, n, u->rest_from, end, level, least);
    if (u->nj && to > i) { /* [rest_next, i) was read, [i, to) jumped */
        rest_read(u, i);
        u->rest_next = to;
    }
    return to;
}

/* The greatest request of b (the tree's root) is within the active limits:
 * so is every one, and with no idle limit each turn admits its job
 * whatever the order (issue 31: a group below MAXJOB admits its thousands
 * of stopped jobs, which the walk then reads without asking the tree at
 * each). */
int eset_all_pass(struct sched *s, enum lim_level level)
{
    struct eset *e = s->el.eset;
    struct eset_comp *c = &e->c[e->cur.k];
    const struct job *any = comp_any(c);
    struct lim_room r;
    if (!any || !limits_room(s->lim.limits, any, e->kind, level, &r) || r.set[LIM_IDLE])
        return 0;
    if (!c->seg_ok || c->segcap < c->nb)
        seg_rebuild(s, c);
    return !room_over(&r, LIM_ACTIVE, c->seg[1].hi, r.set[LIM_ACTIVE]);
}

int eset_job_full(struct sched *s, enum lim_level level)
{
    struct eset *e = s->el.eset;
    const struct job *any = comp_any(&e->c[e->cur.k]);
    struct lim_room r;
    const double one[LIM_NTYPES] = {[LIM_JOB] = 1};
    return any && limits_room(s->lim.limits, any, e->kind, level, &r) &&
           room_over(&r, LIM_ACTIVE, one, r.set[LIM_ACTIVE] & 1u << LIM_JOB);
}

const struct job *eset_rep(const struct sched *s)
{
    return comp_any(&s->el.eset->c[s->el.eset->cur.k]);
}

/* Park j (blocked at every level) or bring it back to the queue. */
static void park(struct sched *s, struct job *j)
{
    struct eset *e = s->el.eset;
    int want = (j->flags & JOB_BLOCKED) && !(j->flags & JOB_HARDOK);
    if (want && !(j->flags & JOB_PARKED)) {
        /* RESERVATIONPOLICY HIGHEST: a blocked job loses its claim at this
         * iteration's keep_reservations; parked, it is not seen there. */
        j->flags = (j->flags | JOB_PARKED) & ~(unsigned)JOB_HADRESV;
        e->nparked++;
        e->parked_some = 1;
    } else if (!want && (j->flags & JOB_PARKED)) {
        j->flags &= ~(unsigned)JOB_PARKED;
        e->nparked--;
        s->q.queue = xgrow(s->q.queue, &s->q.qcap, s->q.qlen + 1, sizeof *s->q.queue);
        s->q.queue[s->q.qlen++] = j;
        s->q.qidle++;
        e->unparked_some = 1;
    }
}

/* How many jobs b_insert moves, at most, to free a slot at a new job's
 * place: past that, b is merged anew (and its tree rebuilt). */
#define B_SHIFT_MAX 64

static void b_set(struct eset_comp *c, size_t at, struct job *j)
{
    c->b[at] = j;
    j->epos = at;
    j->flags |= JOB_INB;
}

/*
 * Put j (not in b) at its place, in the free slot nearest to it — a hole,
 * the dead slot below the head, the end —, moving the jobs between by one
 * (their leaves of the tree with them). 0 when none is within B_SHIFT_MAX.
 */
static int b_insert(const struct sched *s, struct eset_comp *c, struct job *j)
{
    size_t p = b_place(c, j), l = p, r = p;
    if (p == c->nb) { /* after every job (a new submission) */
        b_push(c, j);
        seg_set(s, c, p);
        return 1;
    }
    while (r < c->nb && c->b[r] && r - p <= B_SHIFT_MAX)
        r++;
    while (l > c->bh && c->b[l - 1] && p - l <= B_SHIFT_MAX)
        l--;
    int lfree = l > c->bh ? !c->b[l - 1] : c->bh > 0, rfree = r == c->nb || !c->b[r];
    if (lfree && (!rfree || p - l <= r - p)) { /* b[l, p) down one, j at p - 1 */
        if (l - 1 < c->bh)
            c->bh--;
        else
            c->bholes--;
        for (size_t x = l - 1; x + 1 < p; x++)
            b_set(c, x, c->b[x + 1]);
        b_set(c, p - 1, j);
        seg_set_range(s, c, l - 1, p);
        return 1;
    }
    if (!rfree)
        return 0;
    if (r == c->nb) { /* b[p, nb) up one, into a new last slot */
        c->b = xgrow(c->b, &c->capb, c->nb + 1, sizeof *c->b);
        c->nb++;
    } else {
        c->bholes--;
    }
    for (size_t x = r; x > p; x--)
        b_set(c, x, c->b[x - 1]);
    b_set(c, p, j);
    seg_set_range(s, c, p, r + 1);
    return 1;
}

/* Merge the jobs f (sorted, not in b) into b: positions move, the tree is
 * rebuilt when next asked. */
static void b_merge(struct eset_comp *c, struct job **f, size_t nf)
{
    size_t nu = 0;
    for (size_t i = c->bh; i < c->nb; i++)
        if (c->b[i])
            c->b[nu++] = c->b[i];
    struct job **u = xmalloc((nu ? nu : 1) * sizeof *u);
    memcpy(u, c->b, nu * sizeof *u);
    c->nb = c->bh = c->bholes = 0;
    size_t i = 0, k = 0;
    while (i < nu || k < nf)
        b_push(c, k == nf || (i < nu && by_submission(&u[i], &f[k]) < 0) ? u[i++] : f[k++]);
    free(u);
    c->seg_ok = 0;
}

/*
 * File the walk's stopped jobs new to b, f (sorted), in b. The jobs of b
 * stay in their slots — a read job that left b (its queue time accrues
 * again) left a hole (b_leave) —, a job of f takes a free slot at its
 * place. Only those leaves of the tree change: moving the others (closing
 * the holes) would rewrite every one of them at every walk that admits a
 * job. When no slot is free at a new job's place, b is merged anew; when
 * holes are the most of it, compacted.
 */
static void refile_b(const struct sched *s, struct eset_comp *c, struct job **f, size_t nf)
{
    while (c->bh < c->nb && !c->b[c->bh]) { /* the head past its holes */
        c->bh++;
        c->bholes--;
    }
    for (size_t k = 0; k < nf; k++)
        if (!b_insert(s, c, f[k])) {
            b_merge(c, f + k, nf - k);
            return;
        }
    if (b_sparse(c))
        b_compact(c);
}

/*
 * When the component's walk order can next change with no event. Its
 * stopped jobs count queue time from the last walk, all alike: they keep
 * their places among themselves, and behind every other job whose priority
 * is above theirs by a constant — not behind one whose queue time started at
 * or after that walk, nor one at the priority floor (1, where ties go by
 * submission until it rises above). Walk again at the next iteration while
 * there are such jobs, or when this walk stopped or restarted some job's
 * queue time. The top flattens the order too (QUEUETIMECAP, SERVICECAP, the
 * clip): where it is no more than a poll interval of queue time away, the
 * stopped jobs reach it at the iterations that come late enough after the
 * last (eset_stopped_top), tie there with the jobs above them and go by
 * submission, so the first of them goes before those submitted after it
 * (an idle limit may admit it in their place: issue 31,
 * tests/data/property/top-tie-idle-slots).
 */
/* Whether c's first stopped job (b is in submission order) was submitted
 * before some job of a: at the top they tie and it goes first. */
static int b_before_a(const struct eset_comp *c)
{
    if (c->nb - c->bh - c->bholes == 0)
        return 0;
    const struct job *first = c->b[b_next_live(c, c->bh, c->nb)];
    for (size_t i = 0; i < c->na; i++)
        if (by_submission(&first, &c->a[i]) < 0)
            return 1;
    return 0;
}

long eset_stopped_top(const struct sched *s, long now)
{
    long need = s->stopped_need;
    if (!need || !sched_order_is_static(s))
        return AVAIL_NEVER;
    long poll = s->pol.poll;
    long t = now + need;
    if (poll > 0) {
        long r = ((t % poll) + poll) % poll; /* t - r: the last poll instant before t, or t */
        if (r && r < need)
            t += need - r;
    }
    return t;
}

int eset_stopped_before(const struct sched *s)
{
    const struct eset *e = s->el.eset;
    for (size_t k = 0; k < e->nc; k++)
        if (b_before_a(&e->c[k]))
            return 1;
    return 0;
}

/* Whether j's queue time accrues and it has not yet reached the top (it
 * reaches it need + 1 seconds after its queue-time start, a second early). */
static int a_young(const struct job *j, long need, long now)
{
    return !(j->flags & JOB_QSTOP) && j->qtime_start + need >= now;
}

/* Queue-time start, then submission: the order of jobs whose queue time
 * accrues below the top. */
static int by_qtime(const void *x, const void *y)
{
    const struct job *a = *(const struct job *const *)x, *b = *(const struct job *const *)y;
    if (a->qtime_start != b->qtime_start)
        return a->qtime_start < b->qtime_start ? -1 : 1;
    return by_submission(x, y);
}

/*
 * When c's jobs whose queue time accrues next tie at the top of a priority
 * of queue time alone out of their order below it (wake.c's top_ties_join
 * for one component): below it they go by queue-time start, which the
 * limits move (a job refused at a hard limit counts from when it was
 * admitted again), at it by submission, so a job submitted before one whose
 * queue time started earlier goes before it once it gets there too — and an
 * idle limit (MAXIJOB's soft walk) may admit it in that one's place (issue
 * 31, tests/data/property/top-tie-maxjob). AVAIL_NEVER when none will. Jobs
 * are sorted (scratch: e->nb, free once eset_walked filed b) only when one
 * is young and counts from after another.
 */
static long a_tops(struct sched *s, const struct eset_comp *c, long now)
{
    long need = s->top_need;
    if (need >= AVAIL_NEVER || c->na < 2)
        return AVAIL_NEVER;
    long qmin = LONG_MAX, ymax = LONG_MIN; /* the earliest start, the latest young one's */
    for (size_t i = 0; i < c->na; i++) {
        const struct job *j = c->a[i];
        if (j->flags & JOB_QSTOP)
            continue;
        qmin = j->qtime_start < qmin ? j->qtime_start : qmin;
        if (j->qtime_start + need >= now && j->qtime_start > ymax)
            ymax = j->qtime_start;
    }
    if (ymax <= qmin)
        return AVAIL_NEVER; /* the young ones tie among themselves and below the rest */
    struct eset *e = s->el.eset;
    e->nb = xgrow(e->nb, &e->capnb, c->na, sizeof *e->nb);
    size_t n = 0;
    for (size_t i = 0; i < c->na; i++)
        if (!(c->a[i]->flags & JOB_QSTOP))
            e->nb[n++] = c->a[i];
    sort_ptrs((void **)e->nb, n, by_qtime, &e->sb);
    const struct job *late = NULL; /* the latest submitted that counts from before e->nb[g] */
    for (size_t g = 0, h; g < n; g = h) {
        for (h = g; h < n && e->nb[h]->qtime_start == e->nb[g]->qtime_start; h++)
            if (late && a_young(e->nb[h], need, now) && by_submission(&e->nb[h], &late) < 0)
                return e->nb[h]->qtime_start + need; /* the earliest: they go by start */
        for (size_t i = g; i < h; i++)
            if (!late || by_submission(&late, &e->nb[i]) < 0)
                late = e->nb[i];
    }
    return AVAIL_NEVER;
}

static long wake_order(struct sched *s, const struct eset_comp *c, long P, int changed, int floor,
                       long now)
{
    if (changed || floor)
        return now;
    long tie = a_tops(s, c, now);
    if (c->nb - c->bh - c->bholes == 0)
        return tie;
    for (size_t i = 0; i < c->na; i++)
        if (c->a[i]->qtime_start >= P)
            return now;
    /* The stopped jobs counted from P had reached the top in this walk and
     * went ahead of newer jobs tied there; from the next walk on they count
     * from this one and fall below them until eset_stopped_top: the order
     * has moved already, so the next iteration walks it again, as the
     * whole-queue walk, which sorts at every one, would see it (issue 31,
     * tests/data/property/class-maxps-zero-run). */
    if (s->stopped_need && P + s->stopped_need <= now && b_before_a(c))
        return now;
    long top = eset_stopped_top(s, now);
    return top < tie && b_before_a(c) ? top : tie;
}

/*
 * Whether j is a b job the walk refused again, as most of those it reads or
 * jumps are: parked, blocked and in its slot, it stays so (eset_walked's
 * loop would do nothing to it). One test of the flags instead of park's
 * and the loop's several, for the many jobs a jump passes.
 */
static int stays_in_b(const struct sched *s, const struct job *j)
{
    const unsigned m = JOB_INB | JOB_QSTOP | JOB_BLOCKED | JOB_HARDOK | JOB_PARKED;
    return (j->flags & m) == (JOB_INB | JOB_QSTOP | JOB_BLOCKED | JOB_PARKED) &&
           j->qstop_iter != s->stats.iterations;
}

/* Whether j, which the walk saw, keeps the stopped jobs' queue time (from
 * the next walk on): it stays in b, or joins it. */
static int stays_stopped(const struct sched *s, const struct job *j)
{
    return (j->flags & JOB_QSTOP) && j->qstop_iter != s->stats.iterations;
}

/* File a job the walk saw (not stays_in_b) where it now belongs (its list,
 * the park, the queue); stopped jobs new to b go to e->nb. Whether it makes
 * the component odd (a b job not blocked). */
static int file_walked(struct sched *s, struct eset_comp *c, struct job *j, size_t *nf)
{
    park(s, j);
    /* A job this iteration stopped keeps its own queue time until the
     * iteration ends (its final walk orders it so): filed with the
     * stopped ones from the next walk on (a b job read stays in its slot). */
    if (stays_stopped(s, j)) {
        if (!(j->flags & JOB_INB))
            s->el.eset->nb[(*nf)++] = j;
        return !(j->flags & JOB_BLOCKED);
    }
    if (j->flags & JOB_INB)
        b_leave(s, c, j); /* its queue time accrues again */
    a_push(c, j);
    return 0;
}

void eset_walked(struct sched *s, long now, long wake, long P, int restarted, int stopped)
{
    struct eset *e = s->el.eset;
    struct eset_cur *u = &e->cur;
    struct eset_comp *c = &e->c[u->k];
    /* Every a job walked was seen (read, or in the rest), and the b jobs read. */
    size_t nf = 0, nproc = u->ntmp + (u->nsa - u->ia);
    e->nb = xgrow(e->nb, &e->capnb, nproc ? nproc : 1, sizeof *e->nb);
    c->na = u->keep; /* appending: the old a jobs stay */
    int odd = u->append ? c->odd : 0;
    /* The read jobs to file, in order, in one pass over tmp: most of them
     * (those a jump passed, thousands) stay in b as they were, and filing
     * one changes no other's flags. Jobs leaving b each rewrite their
     * leaf's way up the tree: when they are many (a group below MAXJOB
     * admitted them all), it is rebuilt when next asked instead, which
     * costs as many leaves once (a job that stays in b does not leave). */
    size_t leave = 0, nseen = 0;
    e->seen = xgrow(e->seen, &e->capseen, u->ntmp ? u->ntmp : 1, sizeof *e->seen);
    for (size_t g = 0, r = 0; g <= u->nj; g++) {
        size_t to = g < u->nj ? u->jlo[g] : u->ntmp; /* the next clean range, passed unread */
        for (; r < to; r++) {
            struct job *j = u->tmp[r];
            if (stays_in_b(s, j))
                continue;
            e->seen[nseen++] = j;
            leave += (j->flags & JOB_INB) && !stays_stopped(s, j);
        }
        if (g == u->nj)
            break;
#ifdef ESET_CHECK_CLEAN
        for (; r < u->jhi[g]; r++)
            assert(stays_in_b(s, u->tmp[r]));
#endif
        r = u->jhi[g];
    }
    if (leave * 8 > c->nb - c->bh - c->bholes)
        c->seg_ok = 0;
    for (size_t r = 0; r < nseen; r++)
        odd |= file_walked(s, c, e->seen[r], &nf);
    for (size_t r = u->ia; r < u->nsa; r++)
        odd |= file_walked(s, c, u->sa[r], &nf);
    sort_ptrs((void **)e->nb, nf, by_submission, &e->sb);
    refile_b(s, c, e->nb, nf);
    c->odd = odd;
    if (s->el.elig_all)
        c->seg_ok = 0; /* holds or per-job limits may have changed: seg_leaf's plain */
    /* New jobs that stopped stay where they were: after every other. */
    long w = wake_order(s, c, P, restarted || (stopped && !u->append), u->floor, now);
    if (w > wake)
        w = wake;
    c->wake = u->append && c->wake < w ? c->wake : w;
    c->lift = u->append && c->lift < wake ? c->lift : wake;
    c->walked = now;
    c->dirty = 0;
    c->moved = 0;
    c->nnew = 0;
    comp_file(e, &e->wakes, c, c->hpos, c->wake, c->wake != AVAIL_NEVER);
    lift_file(e, c);
    c->rate[R_PS] = c->cur[R_PS];
    c->rate[R_WC] = c->cur[R_WC];
    const struct job *any = comp_any(c);
    if (any)
        memcpy(c->use, limits_usage(s->lim.limits, any, e->kind, LIM_ACTIVE), sizeof c->use);
}

void eset_idle_start(struct sched *s, int slot)
{
    struct eset_cur *u = &s->el.eset->cur;
    const struct job *any = comp_any(&s->el.eset->c[u->k]);
    if (u->append)
        limits_set_usage(s->lim.limits, any, s->el.eset->kind, LIM_IDLE,
                         s->el.eset->c[u->k].idle_end[slot]);
    else
        limits_clear_job(s->lim.limits, any, LIM_IDLE);
}

void eset_idle_end(struct sched *s, int slot)
{
    struct eset_cur *u = &s->el.eset->cur;
    rest_read(u, SIZE_MAX); /* the rest was read on to its end */
    u->rest_on = 0;
    struct eset_comp *c = &s->el.eset->c[u->k];
    memcpy(c->idle_end[slot], limits_usage(s->lim.limits, comp_any(c), s->el.eset->kind, LIM_IDLE),
           sizeof c->idle_end[slot]);
}

/* Sort the queue by priority at now (its jobs' order never moves, but a job
 * back from the park must find its place). */
static void sort_queue(struct sched *s, long now)
{
    struct prio_env env;
    sched_prio_env(s, &env);
    sched_compact_queue(s);
    size_t w = s->q.qlen;
    /* The order the whole-queue walk would have: made before this
     * iteration's walks, so a job they stopped counts its own queue time. */
    struct prio_memo m = {0};
    for (size_t i = 0; i < w; i++)
        s->q.queue[i]->priority = memo_priority(s, &env, s->q.queue[i], now, &m);
    sort_ptrs((void **)s->q.queue, w, prio_cmp, &s->el.eset->sb);
}

/* Unlist the components that lost their last idle job (comp_push lists
 * one again). */
static void live_prune(struct eset *e)
{
    if (!e->emptied)
        return;
    size_t n = 0;
    for (size_t i = 0; i < e->nlive; i++) {
        struct eset_comp *c = &e->c[e->live[i]];
        if (comp_count(c))
            e->live[n++] = e->live[i];
        else
            c->listed = 0;
    }
    e->nlive = n;
    e->emptied = 0;
}

void eset_settle(struct sched *s, long now)
{
    struct eset *e = s->el.eset;
    live_prune(e);
    if (e->parked_some) {
        size_t w = 0;
        for (size_t r = s->q.qhead; r < s->q.qlen; r++)
            if (s->q.queue[r] && !(s->q.queue[r]->flags & JOB_PARKED))
                s->q.queue[w++] = s->q.queue[r];
        s->q.qlen = s->q.qidle = w;
        s->q.qhead = 0;
        e->parked_some = 0;
    }
    /* Sorted at every iteration, as the whole-queue walk does: the queue
     * holds the few jobs not parked, and their order may move with time (a
     * priority rising off its floor, a stopped queue time). */
    sort_queue(s, now);
    e->unparked_some = 0;
    s->q.unsorted = 0;
    s->el.elig_all = 0;
}

/* Every idle job, parked too, into *v (grown to fit); returns how many. */
static size_t gather_idle(struct sched *s, struct job ***v, size_t *cap)
{
    struct eset *e = s->el.eset;
    size_t m = 0, need = s->q.qidle + e->nparked;
    *v = xgrow(*v, cap, need ? need : 1, sizeof **v);
    for (size_t r = s->q.qhead; r < s->q.qlen; r++)
        if (s->q.queue[r])
            (*v)[m++] = s->q.queue[r];
    for (size_t k = 0; k < e->nc; k++) {
        const struct eset_comp *c = &e->c[k];
        for (size_t i = 0; i < c->na; i++)
            if (c->a[i]->flags & JOB_PARKED)
                (*v)[m++] = c->a[i];
        for (size_t i = c->bh; i < c->nb; i++)
            if (c->b[i] && (c->b[i]->flags & JOB_PARKED))
                (*v)[m++] = c->b[i];
    }
    return m;
}

/* The priorities the commands show, at the last iteration's instant. */
static void show_priorities(struct sched *s, struct job **v, size_t m)
{
    struct prio_env env;
    sched_prio_env(s, &env);
    for (size_t i = 0; i < m; i++)
        v[i]->priority = prio_start(&s->pol.prio, &env, v[i], s->pl.last_now, NULL);
}

struct job *const *eset_all(struct sched *s, size_t *n)
{
    struct eset *e = s->el.eset;
    size_t m = gather_idle(s, &e->disp, &e->capdisp);
    show_priorities(s, e->disp, m);
    sort_ptrs((void **)e->disp, m, prio_cmp, &e->sb);
    *n = m;
    return e->disp;
}

/*
 * In the order of the last iteration's sort, as the whole-queue walk keeps
 * its queue: jobs stopped before it count from the walk before it
 * (elig_prev), not from its own, and those it stopped their own queue time
 * (walk_priority). elig_reasons puts refusals into words in this order, and
 * an idle limit's words hang on the jobs before (issue 31,
 * tests/data/property/maxiproc-reason). A buffer of its own: a command
 * (showq) asks for words while it reads eset_all's list, which must not move
 * under it; and the priorities are left as the commands show them.
 */
struct job *const *eset_walk_order(struct sched *s, size_t *n)
{
    struct eset *e = s->el.eset;
    size_t m = gather_idle(s, &e->walk, &e->capwalk);
    struct prio_env env;
    sched_prio_env(s, &env);
    env.qstop = s->el.elig_prev;
    for (size_t i = 0; i < m; i++)
        e->walk[i]->priority = walk_priority(s, &env, e->walk[i], s->pl.last_now);
    sort_ptrs((void **)e->walk, m, prio_cmp, &e->sb);
    show_priorities(s, e->walk, m);
    *n = m;
    return e->walk;
}

void eset_touch(struct sched *s, struct job *j)
{
    struct eset *e = s->el.eset;
    if (!e || j->epos == SIZE_MAX || !(j->flags & JOB_INB) || (j->flags & JOB_QSTOP))
        return;
    /* Its queue time accrues again (a release): it belongs with the a jobs. */
    struct eset_comp *c = comp_of(e, j);
    b_leave(s, c, j);
    a_push(c, j);
    c->dirty = 1;
    comp_mark(e, c);
}

int eset_kind(const struct sched *s)
{
    return s->el.eset ? (int)s->el.eset->kind : -1;
}

void eset_rates(const struct sched *s, const struct job *j, double *ps, double *wc)
{
    const struct eset_comp *c = &s->el.eset->c[comp_cred(s->el.eset, j)->index];
    *ps = c->cur[R_PS];
    *wc = c->cur[R_WC];
}
