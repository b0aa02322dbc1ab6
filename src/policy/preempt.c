/*
 * preempt — OWNERPREEMPT: a reservation's owner takes its resources back.
 *
 * A reservation flagged OWNERPREEMPT may be shared: jobs its ACL admits run
 * on its nodes while the owner does not need them (the Admin Guide's
 * "limited shared access" example: account jupiter owns node01..09, saturn
 * may use them as a last resort). When a job of the owner cannot start, the
 * engine preempts running jobs of others on those nodes, most recently
 * started first (they lose the least work), until it fits:
 *   - PREEMPTPOLICY REQUEUE: the resource manager stops the job and it goes
 *     back to the queue (queue_requeue), to start again from the beginning;
 *   - PREEMPTPOLICY SUSPEND: the resource manager stops it where it is; its
 *     processors go to the owner's job and it waits, suspended, for its own
 *     nodes to be free again, then resumes with the walltime it had left.
 * Only jobs on the reservation's nodes are touched, and never another job
 * of the owner. The driver does the stopping (sched_rm.preempt); without
 * that callback nothing is preempted.
 */
#include <stdlib.h>
#include <string.h>

#include "core/sched_int.h"
#include "policy/prio.h"
#include "util/mem.h"

static const struct cred *owner_cred(const struct resv *r, const struct job *j)
{
    switch (r->owner_type) {
    case ACL_USER:
        return j->user;
    case ACL_GROUP:
        return j->group;
    case ACL_ACCOUNT:
        return j->account;
    case ACL_CLASS:
        return j->class_;
    case ACL_QOS:
        return j->qos;
    default:
        return NULL;
    }
}

static int owns(const struct resv *r, const struct job *j)
{
    const struct cred *c = r->owner ? owner_cred(r, j) : NULL;
    return c && strcmp(c->name, r->owner) == 0;
}

/* Whether running job v holds a processor on one of r's nodes. */
static int on_nodes(const struct resv *r, const struct job *v)
{
    for (size_t k = 0; k < v->nslots; k++) {
        unsigned lo = v->slots[k].node, hi = lo + v->slots[k].nnodes;
        size_t a = 0, b = r->nnodes; /* first reserved node >= lo */
        while (a < b) {
            size_t m = a + (b - a) / 2;
            if (r->nodes[m].node < lo)
                a = m + 1;
            else
                b = m;
        }
        if (a < r->nnodes && r->nodes[a].node < hi)
            return 1;
    }
    return 0;
}

static int later_start_first(const void *a, const void *b)
{
    const struct job *x = *(const struct job *const *)a, *y = *(const struct job *const *)b;
    if (x->start != y->start)
        return x->start > y->start ? -1 : 1;
    return x->order > y->order ? -1 : x->order < y->order;
}

static void suspend(struct sched *s, struct job *v, long now)
{
    plan_unrun(s, v, now, v->planned_end);
    heap_remove(&s->pl.running, v->heap_pos);
    eset_moved(s, v);
    size_t n = v->nslots;
    struct job_slot *keep = xcalloc(n + 1, sizeof *keep);
    memcpy(keep, v->slots, n * sizeof *keep);
    alloc_release(s, v); /* its processors go to the preemptor */
    v->slots = keep;
    v->nslots = n;
    fsacct_ended(s, v, now);
    v->susp_left = v->planned_end > now ? v->planned_end - now : 1;
    v->flags |= JOB_SUSPENDED | JOB_PREEMPTED;
    s->suspended = xgrow(s->suspended, &s->capsuspended, s->nsuspended + 1, sizeof *s->suspended);
    s->suspended[s->nsuspended++] = v;
}

static int preempt_one(struct sched *s, struct job *v, long now)
{
    if (s->rm.preempt(s->rm.ctx, v, s->pol.preempt, now) < 0)
        return -1;
    v->preempted_iter = s->stats.iterations;
    if (s->pol.preempt == PREEMPT_SUSPEND)
        suspend(s, v, now);
    else
        queue_requeue(s, v, now);
    s->stats.preempted++;
    s->pl.replan = 1;
    return 0;
}

/*
 * How many of v[0..n), taken in order, must give their processors back for
 * j to fit now: a dry run on the plan (their holdings given back, then taken
 * again, as suspend() and resume() do). 0 when j fits already, and when even
 * all of them would not make room (processors j may not use, in a
 * reservation that refuses it or on nodes without its features): a job
 * preempted for nothing resumes, or starts again, only to be preempted at
 * the next iteration, for ever.
 */
static size_t victims_needed(struct sched *s, struct job *j, struct job **v, size_t n, long now)
{
    size_t k = 0;
    int fits;
    while (!(fits = plan_fits(s, j, now)) && k < n) {
        plan_unrun(s, v[k], now, v[k]->planned_end);
        k++;
    }
    for (size_t i = k; i-- > 0;)
        plan_run(s, v[i], now, v[i]->planned_end);
    return fits ? k : 0;
}

/* Preempt others' jobs on r's nodes for j, as many as it takes for j to
 * fit, and none when that would not be enough. */
static void preempt_in(struct sched *s, const struct resv *r, struct job *j, long now)
{
    struct job **v = xcalloc(s->pl.running.n + 1, sizeof *v);
    size_t n = 0;
    for (size_t h = 0; h < s->pl.running.n; h++) {
        struct job *x = heap_at(&s->pl.running, h);
        if (!owns(r, x) && on_nodes(r, x))
            v[n++] = x;
    }
    qsort(v, n, sizeof *v, later_start_first);
    n = victims_needed(s, j, v, n, now);
    for (size_t k = 0; k < n; k++)
        preempt_one(s, v[k], now);
    free(v);
}

/*
 * A job preempted in this iteration preempts nothing in it (it may start
 * again where it fits). Owners of two stacked reservations otherwise took
 * the nodes from each other's jobs for ever within one iteration: each
 * requeued job came back to the scan and preempted the one that had
 * preempted it. They now take turns, one per iteration.
 */
static int preempted_now(const struct sched *s, const struct job *j)
{
    return j->preempted_iter == s->stats.iterations;
}

int preempt_for_owner(struct sched *s, struct job *j, long now)
{
    if (!s->rm.preempt || preempted_now(s, j))
        return 0;
    int tried = 0;
    for (size_t i = 0; i < s->rs.nresvs && !plan_fits(s, j, now); i++) {
        const struct resv *r = s->rs.resvs[i];
        if (!(r->flags & SRCFG_OWNERPREEMPT) || r->start > now || r->end <= now || !owns(r, j) ||
            resv_access(s, r, j, now) == ACL_NONE)
            continue;
        preempt_in(s, r, j, now);
        tried = 1;
    }
    return tried && plan_fits(s, j, now);
}

/* BACKFILLPOLICY PREEMPT: backfilled jobs are preemptible by any job of
 * higher priority that cannot start. Lowest priority first, then the most
 * recently started. */
static int lower_first(const void *a, const void *b)
{
    const struct job *x = *(const struct job *const *)a, *y = *(const struct job *const *)b;
    if (x->priority != y->priority)
        return x->priority < y->priority ? -1 : 1;
    return later_start_first(a, b);
}

int preempt_for_priority(struct sched *s, struct job *j, long now)
{
    if (!s->rm.preempt || preempted_now(s, j))
        return 0;
    struct job **v = xcalloc(s->pl.running.n + 1, sizeof *v);
    size_t n = 0;
    for (size_t h = 0; h < s->pl.running.n; h++) {
        struct job *x = heap_at(&s->pl.running, h);
        const struct job *jx[2] = {j, x};
        if ((x->flags & JOB_PREEMPTEE) && prio_cmp(&jx[0], &jx[1]) < 0) /* j comes first */
            v[n++] = x;
    }
    /* Preempt only when it lets j run, never for nothing: counting the
     * victims' processors is not enough, j may be unable to use them. */
    qsort(v, n, sizeof *v, lower_first);
    n = victims_needed(s, j, v, n, now);
    for (size_t k = 0; k < n; k++)
        preempt_one(s, v[k], now);
    free(v);
    return plan_fits(s, j, now);
}

/* Whether v's nodes have room for it again. */
static int nodes_free(const struct sched *s, const struct job *v)
{
    for (size_t k = 0; k < v->nslots; k++)
        for (unsigned i = v->slots[k].node; i < v->slots[k].node + v->slots[k].nnodes; i++)
            if (s->nt.node_cap[i] - s->nt.node_used[i] < (int)v->slots[k].procs)
                return 0;
    return 1;
}

static void resume(struct sched *s, struct job *v, long now)
{
    size_t n = v->nslots;
    struct job_slot *slots = v->slots;
    v->slots = NULL;
    v->nslots = 0;
    alloc_exact(s, v, slots, n);
    free(slots);
    v->planned_end = now + v->susp_left;
    if (s->pl.multi)
        alloc_charge(s, v, now);
    plan_run(s, v, now, v->planned_end);
    heap_push(&s->pl.running, v, v->planned_end, 0);
    eset_moved(s, v);
    fsacct_started(s, v, now);
    v->flags &= ~(unsigned)(JOB_SUSPENDED | JOB_PREEMPTED);
    if (s->rm.resume)
        s->rm.resume(s->rm.ctx, v, now);
    s->pl.replan = 1;
}

void preempt_resume(struct sched *s, long now)
{
    size_t w = 0;
    for (size_t k = 0; k < s->nsuspended; k++) {
        struct job *v = s->suspended[k];
        if (nodes_free(s, v))
            resume(s, v, now);
        else
            s->suspended[w++] = v;
    }
    s->nsuspended = w;
}

void preempt_forget(struct sched *s, struct job *j)
{
    size_t w = 0;
    for (size_t k = 0; k < s->nsuspended; k++)
        if (s->suspended[k] != j)
            s->suspended[w++] = s->suspended[k];
    s->nsuspended = w;
    free(j->slots);
    j->slots = NULL;
    j->nslots = 0;
    j->flags &= ~(unsigned)(JOB_SUSPENDED | JOB_PREEMPTED);
}
