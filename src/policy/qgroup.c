/*
 * qgroup — see qgroup.h. Used by iter.c's look at the order at a poll
 * (order_holds): below the last job the plan reserved, a waiting job
 * matters only if it now sorts before that one.
 */
#include "policy/qgroup.h"

#include <stdint.h>
#include <string.h>

#include "core/sched_int.h"

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
        *q = (struct qgroup){j, NULL, prio_batch_queue_time_only(pb, j), g->gen};
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
         * the group's credentials and best in locals. */
        struct qgroup *q = g->last;
        const struct job *f = q->first;
        struct job *best = q->best;
        for (i++; i < to; i++) {
            struct job *j = v[i];
            if (!j)
                continue;
            if (own_state_matters(j) || j->user != f->user || j->group != f->group ||
                j->account != f->account || j->class_ != f->class_ || j->qos != f->qos)
                break;
            if (q->dir > 0 ? j->qtime_start < best->qtime_start
                           : j->qtime_start > best->qtime_start)
                best = j;
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

/* The tie: every job of group q, one by one. None has a priority above
 * its best's, which equals last's: one submitted after last cannot sort
 * before it, and is not computed (it keeps its last priority). */
static int member_before(struct qgroup *q, struct sched *s, struct prio_batch *pb,
                         const struct job *last, size_t from, size_t to, long now)
{
    for (size_t i = from; i < to; i++) {
        struct job *j = s->q.queue[i];
        if (!j || own_state_matters(j) || !same_creds(j, q->first) || !submitted_before(j, last))
            continue;
        refresh(s, pb, j, now);
        if (prio_cmp(&last, &j) > 0)
            return 1;
    }
    return 0;
}

int qgroup_any_before(struct qgroup_set *g, struct sched *s, struct prio_batch *pb,
                      const struct job *last, size_t from, size_t to, long now)
{
    /* The slots in use, in slot order (the priorities refreshed before an
     * answer are the same as a walk of every slot's). */
    for (size_t w = 0; w < QGROUP_SLOTS / 64; w++)
        for (uint64_t m = g->used[w]; m; m &= m - 1) {
            struct qgroup *q = &g->slot[w * 64 + (size_t)__builtin_ctzll(m)];
            if (!q->best)
                continue;
            double p = refresh(s, pb, q->best, now);
            if (p > last->priority)
                return 1; /* it sorts first whatever the tie-breaks */
            if (p == last->priority && member_before(q, s, pb, last, from, to, now))
                return 1;
        }
    return 0;
}
