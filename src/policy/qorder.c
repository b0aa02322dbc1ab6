/*
 * qorder — see qorder.h. Used by iter.c's full pass (order_queue, scan).
 * The buffers live in the scheduler between passes (no allocation per
 * pass once they have grown to the queue).
 */
#include "policy/qorder.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/sched_int.h"
#include "policy/prio.h"
#include "util/mem.h"
#include "util/sort.h"

/* A slot of the credentials' hash. */
struct qorder_slot {
    size_t g;     /* a group */
    unsigned gen; /* the pass it is of: other than qorder's gen, empty */
};

/* Jobs o->jobs[from, the next run's from) read one after the other, all
 * of group g. */
struct qorder_run {
    size_t g, from;
};

/* An entry of what the last pass left (qorder_finish): n queue entries,
 * a credential group's jobs in priority order (grouped) or one job alone:
 * a run of one group's jobs the pass placed one after the other, or a
 * heap entry of its loose tail. */
struct qorder_tail {
    size_t n;
    size_t g; /* the group of its jobs in the pass that placed them, or QORDER_ALONE */
};

/* A job of a look (qorder_look) with its priority at the look's time. */
struct qorder_looked {
    double p;
    struct job *j;
};

int qorder_usable(const struct sched *s)
{
    return !s->order_static && !elig_active(s) && !s->el.eset && !s->el.nheld &&
           !s->el.nblocked_jobs && !s->pol.prio.reject_neg &&
           (s->pol.backfill == BF_FIRSTFIT || s->pol.backfill == BF_NONE) &&
           s->pol.respolicy != RP_HIGHEST && !(s->rm.preempt && s->rs.nresvs) && !s->pl.completing;
}

static int same_creds(const struct job *a, const struct job *b)
{
    return a->user == b->user && a->group == b->group && a->account == b->account &&
           a->class_ == b->class_ && a->qos == b->qos;
}

/* A run's credentials, held in split's locals: its jobs compared with them,
 * not with a job read again at each comparison. */
struct qo_creds {
    const struct cred *user, *group, *account, *class_, *qos;
};

static struct qo_creds creds_of(const struct job *j)
{
    return (struct qo_creds){j->user, j->group, j->account, j->class_, j->qos};
}

static int has_creds(const struct job *j, const struct qo_creds *c)
{
    return j->user == c->user && j->group == c->group && j->account == c->account &&
           j->class_ == c->class_ && j->qos == c->qos;
}

static size_t creds_hash(const struct job *j)
{
    uint64_t h = (uint64_t)(uintptr_t)j->user ^ (uint64_t)(uintptr_t)j->group >> 3 ^
                 (uint64_t)(uintptr_t)j->account >> 6 ^ (uint64_t)(uintptr_t)j->class_ >> 9 ^
                 (uint64_t)(uintptr_t)j->qos >> 12;
    return (size_t)((h * 0x9E3779B97F4A7C15ULL) >> 32);
}

static size_t new_group(struct qorder *o, struct job *j, int alone)
{
    o->g = xgrow(o->g, &o->capg, o->ng + 1, sizeof *o->g);
    o->g[o->ng] = (struct qorder_group){j, NULL, 0, 0, alone, 0, 0};
    return o->ng++;
}

/* A job whose priority depends on its own state (a system priority, a
 * stopped queue time), not on its credentials and queue time alone. */
static int own_state_matters(const struct job *j)
{
    return j->sysprio_mode != SYSPRIO_NONE || (j->flags & JOB_QSTOP);
}

/* j's group: its credentials' one, or one of its own when its own state
 * matters. */
static size_t group_of(struct qorder *o, struct job *j)
{
    if (own_state_matters(j))
        return new_group(o, j, 1);
    size_t i = creds_hash(j) & (o->nslot - 1);
    while (o->slot[i].gen == o->gen && !same_creds(o->g[o->slot[i].g].first, j))
        i = (i + 1) & (o->nslot - 1);
    if (o->slot[i].gen != o->gen)
        o->slot[i] = (struct qorder_slot){
            new_group(o, j, prio_batch_queue_time_only(&o->pb, j) <= 0), o->gen};
    return o->slot[i].g;
}

/* A new pass's table of nslot >= 2n slots, empty. */
static void clear_slots(struct qorder *o, size_t n)
{
    size_t want = 16;
    while (want < 2 * n)
        want *= 2;
    if (want > o->nslot || ++o->gen == 0) { /* grown, or the count wrapped */
        o->nslot = want > o->nslot ? want : o->nslot;
        o->slot = xgrow(o->slot, &o->capslot, o->nslot, sizeof *o->slot);
        memset(o->slot, 0, o->nslot * sizeof *o->slot);
        o->gen = 1;
    }
}

/* Within a group: the job waiting longest first, then submission order. */
static int by_qtime(const void *a, const void *b)
{
    const struct job *x = *(const struct job *const *)a;
    const struct job *y = *(const struct job *const *)b;
    if (x->qtime_start != y->qtime_start)
        return x->qtime_start < y->qtime_start ? -1 : 1;
    if (x->submit != y->submit)
        return x->submit < y->submit ? -1 : 1;
    return x->order < y->order ? -1 : (x->order > y->order);
}

/* prio_cmp's tie-break: submission order. */
static int by_submission(const struct job *x, const struct job *y)
{
    if (x->submit != y->submit)
        return x->submit < y->submit ? -1 : 1;
    return x->order < y->order ? -1 : (x->order > y->order);
}

/*
 * Group q's jobs in queue-time order. That is priority order when the
 * submissions are in order too: the priority never rises along it (+1
 * groups), and where it ties prio_cmp goes by submission. Otherwise (a
 * queue time moved: a requeue, an accrual policy) its jobs go alone.
 */
static void order_group(struct sched *s, struct qorder *o, struct qorder_group *q)
{
    struct job **v = o->jobs + q->next;
    size_t n = q->end - q->next;
    if (!q->unsorted) { /* split saw the queue-time and submission orders */
        q->alone |= q->resubmit;
        return;
    }
    sort_ptrs((void **)v, n, by_qtime, &s->q.sortbuf);
    for (size_t k = 1; k < n && !q->alone; k++)
        if (by_submission(v[k - 1], v[k]) > 0)
            q->alone = 1;
}

/* j read after t in queue order, both of one group: whether that order is
 * still the queue-time order (*unsorted, order_group's question), and the
 * submission order too (*resubmit). by_qtime's and by_submission's
 * answers; where queue times tie, one comparison of submissions (the one
 * both would make). */
static void follows(const struct job *t, const struct job *j, int *unsorted, int *resubmit)
{
    if (t->qtime_start != j->qtime_start) {
        if (t->qtime_start > j->qtime_start)
            *unsorted = 1;
        else if (by_submission(t, j) > 0)
            *resubmit = 1;
    } else if (by_submission(t, j) >= 0) {
        *unsorted = 1;
    }
}

/* j joins group q after its tail (q has jobs). */
static void join(struct qorder_group *q, struct job *j)
{
    follows(q->tail, j, &q->unsorted, &q->resubmit);
    q->tail = j;
    q->end++; /* a count until split's offsets */
}

/* The jobs from queue entry r on (holes skipped) that share the
 * credentials of group g (q, not alone) join it as a run, each with a
 * comparison of credentials, the flags and the tail in locals; they go to
 * o->jobs from *n on. The entry where the run ends. */
static size_t join_run(struct sched *s, struct qorder *o, struct qorder_group *q, size_t r,
                       size_t to, size_t *n)
{
    const struct qo_creds c = creds_of(q->first);
    struct job *t = q->tail;
    int unsorted = q->unsorted, resubmit = q->resubmit;
    size_t w = *n;
    for (; r < to; r++) {
        struct job *j = s->q.queue[r];
        if (!j)
            continue;
        if (!has_creds(j, &c) || own_state_matters(j))
            break;
        follows(t, j, &unsorted, &resubmit);
        o->jobs[w++] = j;
        t = j;
    }
    q->tail = t;
    q->end += w - *n;
    q->unsorted = unsorted;
    q->resubmit = resubmit;
    *n = w;
    return r;
}

static int before(const struct qorder_head *a, const struct qorder_head *b)
{
    return prio_before(a->j, b->j);
}

static void sift_down(struct qorder *o, size_t i)
{
    struct qorder_head *h = o->heap, x = h[i];
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= o->nheap)
            break;
        if (c + 1 < o->nheap && before(&h[c + 1], &h[c]))
            c++;
        if (!before(&h[c], &x))
            break;
        h[i] = h[c];
        i = c;
    }
    h[i] = x;
}

static void sift_up(struct qorder *o, size_t i)
{
    struct qorder_head *h = o->heap, x = h[i];
    while (i > 0 && before(&x, &h[(i - 1) / 2])) {
        h[i] = h[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h[i] = x;
}

static void push(struct qorder *o, struct job *j, size_t g)
{
    j->priority = prio_batch_start(&o->pb, j, o->now);
    o->heap[o->nheap] = (struct qorder_head){j, g};
    sift_up(o, o->nheap++);
}

/* The jobs of queue entries [r, to), holes skipped, each into its group
 * (a group's first job where its run starts, a run of one group's jobs
 * joined in one loop). *prev: the group of the last job; *contiguous
 * cleared when a group is met again after another. Returns to. */
static size_t split_range(struct sched *s, struct qorder *o, size_t r, size_t to, size_t *n,
                          size_t *prev, int *contiguous)
{
    while (r < to) {
        struct job *j = s->q.queue[r++];
        if (!j)
            continue;
        size_t g = group_of(o, j);
        struct qorder_group *q = &o->g[g];
        if (!q->end) { /* its first job: where its run starts, no tail to join */
            q->next = *n;
            q->tail = j;
            q->end = 1;
        } else {
            if (g != *prev) /* back to a group left before */
                *contiguous = 0;
            join(q, j);
        }
        *prev = g;
        o->run[o->nrun++] = (struct qorder_run){g, *n};
        o->jobs[(*n)++] = j;
        /* A user's jobs often follow each other: they join its group as a run. */
        if (!q->alone)
            r = join_run(s, o, q, r, to, n);
    }
    return to;
}

/* Whether the entries the last pass left (the jobs it placed, then its
 * loose tail) lie where they did, as they did: qorder_drop_tail was not
 * called since (the queue compacted or sorted, a job's credentials, queue
 * time or system priority changed, a pass that did not place the queue).
 * Their entries have only holes since (jobs started or gone; those before
 * the queue's head too), and the jobs appended since come after them. */
static int tail_kept(const struct sched *s, const struct qorder *o)
{
    return o->tail_ok && o->ntail && o->tail_to <= s->q.qlen && o->tail_from < o->tail_to;
}

/* A kept group's entry, queue entries [r, end), its jobs one run of
 * group g in priority order (each job's credentials, state and queue time
 * as the last pass checked them, in the order it sorted them): into the
 * group, holes skipped, without a look at each job; copied whole when the
 * queue has no hole from its head on (dense). The jobs' number. */
static size_t take_run(struct sched *s, struct qorder *o, size_t g, size_t r, size_t end, size_t *n,
                       int dense)
{
    struct qorder_group *q = &o->g[g];
    size_t w = *n;
    if (dense) {
        struct job **to = o->jobs + w, *const *from = s->q.queue + r;
        for (size_t i = 0; i < end - r; i++)
            to[i] = from[i];
        w += end - r;
    }
    for (; !dense && r < end; r++)
        if (s->q.queue[r])
            o->jobs[w++] = s->q.queue[r];
    q->tail = o->jobs[w - 1];
    q->end += w - *n;
    *n = w;
    return w;
}

/* The kept entries from queue entry r (tail_from) on, entry by entry
 * (those before the queue's head are holes, every entry from it on has
 * none when the count of waiting jobs says so: dense):
 * a group's entry joins its group as a run taken as it is (take_run), a
 * job alone, or an entry whose group is now taken job by job (the
 * weights moved), as split takes any job. Where the tail ends. */
static size_t take_tail(struct sched *s, struct qorder *o, size_t r, size_t *n, size_t *prev,
                        int *contiguous)
{
    int dense = s->q.qidle == s->q.qlen - s->q.qhead;
    for (size_t e = 0; e < o->ntail; e++) {
        size_t end = r + o->tail[e].n, k = r;
        while (k < end && !s->q.queue[k])
            k++;
        if (k == end) { /* every job of the entry gone */
            r = end;
            continue;
        }
        struct job *j = s->q.queue[k];
        size_t was = o->tail[e].g, g = QORDER_ALONE;
        if (was != QORDER_ALONE && !own_state_matters(j)) {
            /* Its jobs' credentials are the last pass's group's: one
             * look-up for all its entries. */
            if (o->was[was] == QORDER_ALONE)
                o->was[was] = group_of(o, j);
            g = o->was[was];
        }
        if (g == QORDER_ALONE || o->g[g].alone) {
            r = split_range(s, o, r, end, n, prev, contiguous);
            continue;
        }
        struct qorder_group *q = &o->g[g];
        size_t at = *n;
        if (!q->end) {
            q->next = at;
        } else {
            if (g != *prev)
                *contiguous = 0;
            follows(q->tail, j, &q->unsorted, &q->resubmit); /* the run's first job joins */
        }
        *prev = g;
        o->run[o->nrun++] = (struct qorder_run){g, at};
        take_run(s, o, g, k, end, n, dense);
        r = end;
    }
    return r;
}

/* No group of the last pass (o->nwas) met yet in this one. */
static void forget_groups(struct qorder *o)
{
    o->was = xgrow(o->was, &o->capwas, o->nwas ? o->nwas : 1, sizeof *o->was);
    for (size_t g = 0; g < o->nwas; g++)
        o->was[g] = QORDER_ALONE;
}

/* The queue's jobs, entries [qhead, qlen) with their holes, into their
 * groups in queue order within each (o->jobs), compacted as they are read:
 * every entry is written again as the pass places them (qorder_place,
 * qorder_finish), so the queue is not compacted first. Their number. */
static size_t split(struct sched *s, struct qorder *o)
{
    size_t from = s->q.qhead, to = s->q.qlen, n = 0;
    clear_slots(o, to - from);
    o->nwas = o->ng; /* the last pass's groups, which the kept entries name */
    o->ng = 0;
    o->jobs = xgrow(o->jobs, &o->capjobs, to - from, sizeof *o->jobs);
    o->run = xgrow(o->run, &o->caprun, to - from, sizeof *o->run);
    o->nrun = 0;
    size_t prev = QORDER_ALONE; /* the group of the last job */
    int contiguous = 1;         /* every group's jobs one run of the queue */
    size_t r = from;
    if (tail_kept(s, o)) {
        forget_groups(o);
        if (r < o->tail_from)
            r = split_range(s, o, r, o->tail_from, &n, &prev, &contiguous);
        r = take_tail(s, o, o->tail_from, &n, &prev, &contiguous); /* holes before from */
    }
    split_range(s, o, r < from ? from : r, to, &n, &prev, &contiguous);
    if (contiguous) { /* o->jobs as read, each group where its run is */
        for (size_t g = 0; g < o->ng; g++)
            o->g[g].end += o->g[g].next;
        return n;
    }
    size_t at = 0;
    for (size_t g = 0; g < o->ng; g++) {
        size_t c = o->g[g].end;
        o->g[g].next = o->g[g].end = at;
        at += c;
    }
    /* Through the queue's array, whose entries the pass writes again. */
    for (size_t k = 0; k < o->nrun; k++) {
        struct qorder_group *q = &o->g[o->run[k].g];
        size_t end = k + 1 < o->nrun ? o->run[k + 1].from : n;
        for (size_t i = o->run[k].from; i < end; i++)
            s->q.queue[q->end++] = o->jobs[i];
    }
    if (n > 0) /* an empty queue may have no array at all (NULL) */
        memcpy(o->jobs, s->q.queue, n * sizeof *o->jobs);
    return n;
}

void qorder_start(struct sched *s, long now)
{
    if (!s->q.ord)
        s->q.ord = xcalloc(1, sizeof *s->q.ord);
    struct qorder *o = s->q.ord;
    sched_prio_env(s, &o->env);
    fsacct_batch_init(s, &o->pb, &o->env);
    o->now = now;
    size_t n = split(s, o);
    o->tail_ok = 0; /* the queue is placed again */
    s->q.qhead = 0; /* the queue compacted (sched_compact_queue's result) */
    s->q.qlen = n;
    o->heap = xgrow(o->heap, &o->capheap, n, sizeof *o->heap);
    o->nheap = 0;
    for (size_t g = 0; g < o->ng; g++) {
        struct qorder_group *q = &o->g[g];
        order_group(s, o, q);
        if (!q->alone)
            push(o, o->jobs[q->next], g);
        else
            for (size_t k = q->next; k < q->end; k++)
                push(o, o->jobs[k], QORDER_ALONE);
    }
    s->q.placing = 1;
    s->q.qplaced = s->q.qhead;
    /* The entries the next split takes as they are: every job goes into
     * one, runs placed or the loose tail's (split read the last ones). */
    o->tail = xgrow(o->tail, &o->captail, n ? n : 1, sizeof *o->tail);
    o->ntail = 0;
    o->tail_from = s->q.qhead;
    o->seg_from = s->q.qhead;
    o->seg_g = o->nheap ? o->heap[0].g : QORDER_ALONE;
}

/*
 * The jobs placed since the open run began, [seg_from, qplaced), end it:
 * all of one group, placed one after the other (its next job stayed on top
 * of the heap), or a job alone. Called when the top's group may have
 * changed; a new run begins with the top.
 */
static void cut(struct sched *s, struct qorder *o)
{
    size_t at = s->q.qplaced;
    if (at > o->seg_from)
        o->tail[o->ntail++] = (struct qorder_tail){at - o->seg_from, o->seg_g};
    o->seg_from = at;
    o->seg_g = o->nheap ? o->heap[0].g : QORDER_ALONE;
}

/* The next job in priority order, its group's next taking its place. */
static struct job *take(struct qorder *o)
{
    struct qorder_head top = o->heap[0];
    struct qorder_group *q = top.g == QORDER_ALONE ? NULL : &o->g[top.g];
    if (q && ++q->next < q->end) {
        struct job *j = o->jobs[q->next];
        j->priority = prio_batch_start(&o->pb, j, o->now);
        o->heap[0] = (struct qorder_head){j, top.g};
    } else {
        o->heap[0] = o->heap[--o->nheap];
    }
    if (o->nheap)
        sift_down(o, 0);
    return top.j;
}

void qorder_sink_top(struct sched *s, size_t c)
{
    struct qorder *o = s->q.ord;
    struct qorder_head x = o->heap[0]; /* sift_down's first step, its comparisons made */
    o->heap[0] = o->heap[c];
    o->heap[c] = x;
    sift_down(o, c);
    cut(s, o); /* another group on top */
}

void qorder_place_upto(struct sched *s, size_t i)
{
    struct qorder *o = s->q.ord;
    while (s->q.qplaced <= i && o->nheap) {
        size_t g = o->heap[0].g;
        s->q.queue[s->q.qplaced++] = take(o);
        if (g == QORDER_ALONE || !o->nheap || o->heap[0].g != g)
            cut(s, o);
    }
}

void qorder_finish(struct sched *s)
{
    struct qorder *o = s->q.ord;
    cut(s, o); /* the last run placed */
    size_t w = s->q.qplaced;
    s->q.placing = 0;
    s->q.loose = o->nheap > 0;
    s->q.qloose = w; /* the heap's entries are kept: qorder_loose_entry */
    for (size_t h = 0; h < o->nheap; h++) {
        struct qorder_head *e = &o->heap[h];
        size_t at = w;
        if (e->g == QORDER_ALONE) {
            s->q.queue[w++] = e->j;
        } else {
            for (size_t k = o->g[e->g].next; k < o->g[e->g].end; k++)
                s->q.queue[w++] = o->jobs[k];
        }
        o->tail[o->ntail++] = (struct qorder_tail){w - at, e->g};
    }
    s->q.qloose_end = w;
    o->tail_to = w;
    o->tail_ok = 1;
}

void qorder_drop_tail(struct sched *s)
{
    if (s->q.ord)
        s->q.ord->tail_ok = 0;
}

size_t qorder_nloose(const struct sched *s)
{
    return s->q.loose ? s->q.ord->nheap : 0;
}

struct job *const *qorder_loose_entry(const struct sched *s, size_t k, size_t *n, int *grouped)
{
    const struct qorder *o = s->q.ord;
    const struct qorder_head *e = &o->heap[k];
    *grouped = e->g != QORDER_ALONE;
    if (!*grouped) {
        *n = 1;
        return &e->j;
    }
    *n = o->g[e->g].end - o->g[e->g].next;
    return o->jobs + o->g[e->g].next;
}

void qorder_tighten(struct sched *s, long now)
{
    qorder_drop_tail(s); /* sorted here */
    if (!s->q.loose)
        return;
    s->q.loose = 0;
    size_t from = s->q.qloose;
    if (s->q.qscanned < from && s->q.qscanned >= s->q.qhead)
        from = s->q.qscanned;
    struct prio_env env;
    struct prio_batch pb;
    sched_prio_env(s, &env);
    fsacct_batch_init(s, &pb, &env);
    size_t w = from; /* the range's holes go to its end */
    for (size_t i = from; i < s->q.qlen; i++) {
        struct job *j = s->q.queue[i];
        if (!j)
            continue;
        j->priority = prio_batch_start(&pb, j, now);
        s->q.queue[i] = NULL;
        s->q.queue[w++] = j;
    }
    sort_ptrs((void **)s->q.queue + from, w - from, prio_cmp, &s->q.sortbuf);
}

/* prio_cmp on a look's own priorities. */
static int by_look(const void *a, const void *b)
{
    const struct qorder_looked *x = a, *y = b;
    if (x->p != y->p)
        return x->p > y->p ? -1 : 1;
    return by_submission(x->j, y->j);
}

struct job *const *qorder_look(struct sched *s, long now, size_t n)
{
    if (!s->q.ord)
        s->q.ord = xcalloc(1, sizeof *s->q.ord);
    struct qorder *o = s->q.ord;
    o->look = xgrow(o->look, &o->caplook, n ? n : 1, sizeof *o->look);
    o->lookq = xgrow(o->lookq, &o->caplookq, n ? n : 1, sizeof *o->lookq);
    struct prio_env env;
    struct prio_batch pb;
    sched_prio_env(s, &env);
    fsacct_batch_init(s, &pb, &env);
    /* Not into j->priority: order_holds compares the next iteration's
     * priorities with the ones the scheduler last set, not a look's. */
    for (size_t i = 0; i < n; i++)
        o->look[i] =
            (struct qorder_looked){prio_batch_start(&pb, s->q.queue[i], now), s->q.queue[i]};
    qsort(o->look, n, sizeof *o->look, by_look); /* a total order: any sort gives it */
    for (size_t i = 0; i < n; i++)
        o->lookq[i] = o->look[i].j;
    return o->lookq;
}

void qorder_destroy(struct qorder *o)
{
    if (!o)
        return;
    free(o->look);
    free(o->lookq);
    free(o->jobs);
    free(o->run);
    free(o->g);
    free(o->slot);
    free(o->heap);
    free(o->tail);
    free(o->was);
    free(o);
}
