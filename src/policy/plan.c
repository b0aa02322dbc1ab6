/*
 * plan — availability by region: when can a job have its processors, once
 * reservations and node classes make nodes differ.
 *
 * A plain cluster is one pool of interchangeable processors, and the plan is
 * one profile of free processors over time (s->pl.avail; policy/avail.h). That
 * stays the fast path: one region, no reservation, shared node access
 * (s->pl.multi == 0), and every call below is one avail call.
 *
 * Otherwise nodes are grouped into regions: nodes with the same features and
 * partition (and size, under exclusive node access) covered by the same
 * reservations. Within a region processors are interchangeable again, so a
 * region keeps
 *   - `free`: processors that no job holds and no reservation reserves;
 *   - per covering reservation, `inner`: the processors it reserves there
 *     that its own jobs do not hold (zero outside its window).
 * A job sees in a region the free profile plus the inner profiles of the
 * reservations it may use; a reservation it may not use is simply not added.
 * Stacked reservations fall out of this: a node reserved twice is subtracted
 * twice from `free`, so only a job admitted by both gets it back.
 *
 * A job's tasks stay on their nodes for its whole run, so it fits at t when
 * the sum over regions of "the least it could have in that region over
 * [t, t + walltime)" covers its tasks — exact within a region (intervals on
 * interchangeable slots), conservative across regions. Nodes are named only
 * when a job starts (policy/alloc.c).
 *
 * Memory is a second count, as Maui plans it: a region whose nodes all
 * have a known memory keeps `mfree`, the MB no running job holds, over
 * time. A job that asks for memory fits where both counts hold it (its
 * memory per task for each task, its memory per node for each node its
 * tasks need at the densest); jobs that ask for none never look at it, so
 * a plan without memory requests costs what it did. Reservations keep
 * processors, not memory. Within a region memory is counted, not placed,
 * as processors are: memory free on different nodes may not make a task's,
 * and then the start waits (policy/alloc.c places exactly).
 *
 * A job that names its hosts (job_has_hostlist: Torque's nodes=n1:ppn=2+n2)
 * needs node-level counts there: every node some host list names is a
 * region of its own (its key says so), and such a job fits, and is held,
 * where each of its hosts' regions holds its count on that host. Without
 * host lists no node is named and the regions are what they were.
 *
 * Cost: a rebuild walks every node and running job (it happens when a
 * reservation or a node changes, not per iteration); a query walks the
 * breakpoints of the regions the job can use.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sched_int.h"
#include "policy/acl.h"
#include "policy/avail.h"
#include "util/mem.h"
#include "util/strmap.h"

/* Placement levels, best first (digest §6.4): reserved resources the job
 * has positive, then neutral affinity with, unreserved ones, negative. */
enum { LVL_POSITIVE, LVL_NEUTRAL, LVL_NONE, LVL_NEGATIVE, LVL_N };

void plan_init(struct sched *s)
{
    s->pl.regions = xcalloc(1, sizeof *s->pl.regions);
    s->pl.regions[0].free = s->pl.avail;
    s->pl.regions[0].maxprocs = INT_MAX; /* until the first rebuild knows the nodes */
    s->pl.nregions = 1;
}

static void free_regions(struct sched *s)
{
    for (size_t g = 0; g < s->pl.nregions; g++) {
        struct region *r = &s->pl.regions[g];
        if (r->free != s->pl.avail)
            avail_destroy(r->free);
        avail_destroy(r->mfree);
        for (size_t k = 0; k < r->nrv; k++)
            avail_destroy(r->rv[k].inner);
        free(r->rv);
        free(r->caps);
    }
    free(s->pl.regions);
    s->pl.regions = NULL;
    s->pl.nregions = 0;
}

void plan_destroy(struct sched *s)
{
    free_regions(s);
    free(s->pl.node_region);
    free(s->pl.node_rv_off);
    free(s->pl.node_rv);
    free(s->pl.named);
}

void plan_nodes_changed(struct sched *s)
{
    s->rs.resv_gen++; /* regions are rebuilt at the next full pass */
    s->nt.order_dirty = 1;
    s->pl.replan = 1;
}

void plan_name_hosts(struct sched *s, const struct job *j)
{
    for (size_t k = 0; k < j->nhosts; k++) {
        size_t i = j->hosts[k].node;
        if (i >= s->pl.nnamed) {
            s->pl.named = xrealloc(s->pl.named, s->nt.nnodes);
            memset(s->pl.named + s->pl.nnamed, 0, s->nt.nnodes - s->pl.nnamed);
            s->pl.nnamed = s->nt.nnodes;
        }
        if (!s->pl.named[i]) {
            s->pl.named[i] = 1;
            s->pl.nnamed_any++;
            plan_nodes_changed(s);
        }
    }
}

/* Whether node i is a region of its own (a host list names it). */
static int plan_named(const struct sched *s, size_t i)
{
    return i < s->pl.nnamed && s->pl.named[i];
}

/* Whether region g is one of j's hosts. Named nodes are regions of their
 * own, so the region is that node; before the rebuild that makes them so
 * (and on the one-region fast path) nothing is. */
static int region_is_host(const struct sched *s, const struct job *j, size_t g)
{
    const struct region *rg = &s->pl.regions[g];
    if (!s->pl.multi || rg->nnodes != 1 || !plan_named(s, rg->node))
        return 0;
    for (size_t k = 0; k < j->nhosts; k++)
        if (j->hosts[k].node == rg->node)
            return 1;
    return 0;
}

/* The region of j's k-th host, or SIZE_MAX before the rebuild that makes
 * it one. */
static size_t host_region(const struct sched *s, const struct job *j, size_t k)
{
    size_t i = j->hosts[k].node;
    if (!s->pl.multi || !plan_named(s, i) || i >= s->nt.nnodes)
        return SIZE_MAX;
    size_t g = s->pl.node_region[i];
    return s->pl.regions[g].nnodes == 1 ? g : SIZE_MAX;
}

/* ---------------------------------------------------------------- queries */

static long overlap(long a, long b, long c, long d)
{
    long lo = a > c ? a : c, hi = b < d ? b : d;
    return hi > lo ? hi - lo : 0;
}

/* plan_region_usable for a job that names a host, a feature, a partition
 * or a reservation: out of line, so that the plain job's answer saves and
 * restores no registers. */
static __attribute__((noinline)) int usable_named(const struct sched *s, const struct job *j,
                                                  size_t g)
{
    const struct region *rg = &s->pl.regions[g];
    const struct node *n = &s->nt.nodes[rg->node];
    if (job_has_hostlist(j) && !region_is_host(s, j, g))
        return 0;
    for (size_t f = 0; f < j->nfeatures; f++)
        if (!node_has_feature(n, j->features[f]))
            return 0;
    if (j->partition && strcmp(j->partition, "ALL") != 0 && strcmp(j->partition, n->partition))
        return 0;
    if (j->advres) {
        for (size_t k = 0; k < rg->nrv; k++)
            if (resv_access(s, rg->rv[k].r, j, rg->rv[k].r->start) != ACL_NONE)
                return 1;
        return 0; /* it may run only inside its reservation */
    }
    return 1;
}

int plan_region_usable(const struct sched *s, const struct job *j, size_t g)
{
    if (s->pl.regions[g].cap <= 0 && s->pl.multi)
        return 0;
    /* Most jobs name none: any region with processors will do. */
    if (!job_has_hostlist(j) && !j->nfeatures && !j->partition && !j->advres)
        return 1;
    return usable_named(s, j, g);
}

/* Which inner profiles of region g job j may add over [t, t + walltime):
 * bit k of *mask for rv k (regions have few reservations; beyond 64 the
 * rest count as refused). Returns the placement level. */
static int region_level(struct sched *s, const struct job *j, size_t g, long t, uint64_t *mask)
{
    struct region *rg = &s->pl.regions[g];
    if (rg->cj == j && rg->ct == t && rg->cw == j->walltime && rg->cgen == s->pl.plan_gen) {
        *mask = rg->cmask;
        return rg->clevel;
    }
    int level = LVL_NONE, refused = 0, any = 0;
    *mask = 0;
    for (size_t k = 0; k < rg->nrv && k < 64; k++) {
        const struct resv *r = rg->rv[k].r;
        if (!overlap(t, t + j->walltime, r->start, r->end))
            continue;
        enum acl_affinity a = j ? resv_access(s, r, j, t) : ACL_POSITIVE;
        if (a == ACL_NONE) {
            refused = 1;
            continue;
        }
        *mask |= (uint64_t)1 << k;
        int l = a == ACL_POSITIVE ? LVL_POSITIVE : a == ACL_NEUTRAL ? LVL_NEUTRAL : LVL_NEGATIVE;
        if (!any || l > level)
            level = l; /* stacked: the least favourable */
        any = 1;
    }
    rg->cj = j;
    rg->ct = t;
    rg->cw = j->walltime;
    rg->cgen = s->pl.plan_gen;
    rg->cmask = *mask;
    rg->clevel = refused || !any ? LVL_NONE : level;
    return rg->clevel;
}

enum acl_affinity plan_region_access(struct sched *s, const struct job *j, size_t g, long t)
{
    uint64_t mask;
    static const enum acl_affinity of[LVL_N] = {ACL_POSITIVE, ACL_NEUTRAL, ACL_NONE, ACL_NEGATIVE};
    return of[region_level(s, j, g, t, &mask)];
}

/* Processors region g offers at instant x: free plus the masked inners. */
static long long free_at(const struct avail *a, long x)
{
    return x <= avail_origin(a) ? avail_free_now(a) : avail_free_at(a, x);
}

static long long region_at(const struct region *rg, uint64_t mask, long x)
{
    long long v = free_at(rg->free, x);
    for (size_t k = 0; k < rg->nrv && k < 64; k++)
        if (mask >> k & 1)
            v += free_at(rg->rv[k].inner, x);
    return v;
}

static long region_next(const struct region *rg, uint64_t mask, long x)
{
    long next = avail_next_change(rg->free, x);
    for (size_t k = 0; k < rg->nrv && k < 64; k++)
        if (mask >> k & 1) {
            long n = avail_next_change(rg->rv[k].inner, x);
            if (n < next)
                next = n;
        }
    return next;
}

/* Least processors region g offers over [a, b). */
static long long region_min(const struct region *rg, uint64_t mask, long a, long b)
{
    const struct avail *ps[64];
    size_t n = 0;
    ps[n++] = rg->free;
    for (size_t k = 0; k < rg->nrv && k < 63; k++)
        if (mask >> k & 1)
            ps[n++] = rg->rv[k].inner;
    return avail_min_sum(ps, n, a, b);
}

/* Processors per node of region g (its nodes are alike under exclusive
 * access, which keys regions by size). */
static long node_procs(const struct sched *s, size_t g)
{
    return s->nt.nodes[s->pl.regions[g].node].procs;
}

/* Memory j needs on a node of region g beyond its tasks' (its --mem, or
 * the whole node's), and per task. */
static long node_share(const struct sched *s, const struct job *j, size_t g)
{
    return j->mem_per_node == JOB_MEM_WHOLE ? s->pl.regions[g].node_mem : j->mem_per_node;
}

/* Tasks of j a node of cap processors and mem MB holds (mem 0: not known). */
static long node_holds(const struct job *j, long cap, long mem, long share)
{
    long k = cap / j->procs_per_task;
    if (mem > 0 && job_wants_mem(j)) {
        long room = mem - (j->mem_per_node == JOB_MEM_WHOLE ? mem : share);
        long m = room < j->mem_per_task ? 0 : j->mem_per_task ? room / j->mem_per_task : k;
        k = m < k ? m : k;
    }
    return k;
}

/* Tasks of j the nodes of region g could hold were they all free: with
 * shared nodes the counts alone would put 3 tasks of 2 on two 3-processor
 * nodes (or two tasks of 800 MB on two nodes of 1000), a job that then
 * never starts while its reservation keeps others off. Only asked for
 * ppt > 1 or a memory request; cached per region for the last shape
 * (regions are rebuilt when nodes change). */
static long region_shape(struct sched *s, size_t g, const struct job *j)
{
    struct region *rg = &s->pl.regions[g];
    long ppt = j->procs_per_task, mpt = job_wants_mem(j) && rg->mfree ? j->mem_per_task : 0;
    long share = rg->mfree ? node_share(s, j, g) : 0;
    if (rg->shape_ppt != ppt || rg->shape_mpt != mpt + share * 1000003) {
        long n = 0;
        if (rg->caps && !mpt && !share) { /* the region's node sizes (count_caps) */
            for (size_t i = 0; i < rg->nnodes; i++)
                n += rg->caps[i] / ppt;
        } else {
            for (size_t i = 0; i < s->nt.nnodes; i++)
                if ((s->pl.nregions == 1 || s->pl.node_region[i] == g) && s->nt.node_cap[i] >= ppt)
                    n += node_holds(j, s->nt.node_cap[i], rg->mfree ? s->nt.node_mem_cap[i] : 0,
                                    share);
        }
        rg->shape_ppt = ppt;
        rg->shape_mpt = mpt + share * 1000003;
        rg->shape_tasks = n;
    }
    return rg->shape_tasks;
}

/* Whether region g's shape limits j (tasks of several processors, or of
 * memory, on nodes of their own). */
static int shaped(const struct sched *s, const struct job *j, size_t g)
{
    return j->procs_per_task > 1 || (job_wants_mem(j) && s->pl.regions[g].mfree);
}

/* Tasks of j a node of region g holds at the densest. */
static long per_node(const struct sched *s, const struct job *j, size_t g)
{
    if (j->tpn)
        return j->tpn;
    long np = s->pl.regions[g].maxprocs > 0 && s->pl.regions[g].maxprocs < INT_MAX
                  ? s->pl.regions[g].maxprocs
                  : s->nt.nodes[s->pl.regions[g].node].procs;
    long k = np / j->procs_per_task;
    return k > 0 ? k : 1;
}

/* Memory `tasks` tasks of j take in region g: theirs, and their nodes'
 * share at the densest (0 when memory is not planned there). */
static long long mem_for(const struct sched *s, const struct job *j, size_t g, long tasks)
{
    if (!s->pl.regions[g].mfree || !job_wants_mem(j) || tasks <= 0)
        return 0;
    long per = per_node(s, j, g);
    return (long long)tasks * j->mem_per_task +
           (long long)((tasks + per - 1) / per) * node_share(s, j, g);
}

/* Tasks of j `mem` free MB of region g can hold (LONG_MAX: not limited). */
static long mem_tasks(const struct sched *s, const struct job *j, size_t g, long long mem)
{
    if (!s->pl.regions[g].mfree || !job_wants_mem(j))
        return LONG_MAX;
    if (mem <= 0)
        return 0;
    long per = per_node(s, j, g);
    long long node = (long long)per * j->mem_per_task + node_share(s, j, g); /* a full node */
    if (node <= 0)
        return LONG_MAX;
    long long full = mem / node, rest = mem - full * node, extra = 0;
    if (rest > node_share(s, j, g) && j->mem_per_task > 0)
        extra = (rest - node_share(s, j, g)) / j->mem_per_task;
    long long t = full * per + (extra < per ? extra : per - 1);
    return t > LONG_MAX / 2 ? LONG_MAX / 2 : (long)t;
}

/* Nodes of region g with at least `need` processors up (all of them, as
 * far as is known, before the first rebuild has counted them). */
static long nodes_holding(const struct region *rg, long need)
{
    if (!rg->caps)
        return LONG_MAX / 2;
    size_t lo = 0, hi = rg->nnodes; /* first cap >= need */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (rg->caps[mid] < need)
            lo = mid + 1;
        else
            hi = mid;
    }
    return (long)(rg->nnodes - lo);
}

/* A job with tasks per node (j->tpn) takes them on whole nodes of its own:
 * `tasks` capped at what the region's nodes able to hold tpn tasks take,
 * in whole nodes. Counts, not places: processors free on different nodes
 * may still not make a node's share, and then the start waits
 * (policy/alloc.c says so, and the reservation goes later). */
static long tpn_cap(const struct sched *s, const struct job *j, size_t g, long tasks)
{
    long nodes = nodes_holding(&s->pl.regions[g], (long)j->tpn * j->procs_per_task);
    if (nodes < tasks / j->tpn) /* (no overflow: nodes is then small) */
        tasks = nodes * j->tpn;
    return tasks - tasks % j->tpn;
}

/* Tasks of j that `procs` free processors of region g can hold. */
static long tasks_in(struct sched *s, const struct job *j, size_t g, long long procs)
{
    if (procs <= 0 || s->pl.regions[g].maxprocs < j->procs_per_task)
        return 0; /* no node here can hold one task */
    long np = node_procs(s, g), ppt = j->procs_per_task, t;
    if (j->exclusive) { /* whole nodes, as under SINGLEJOB */
        long per = j->tpn ? (np / ppt >= j->tpn ? j->tpn : 0) : np / ppt;
        t = (long)(procs / np) * per;
        return shaped(s, j, g) && t > region_shape(s, g, j) ? region_shape(s, g, j) : t;
    }
    switch (s->pol.naccess) {
    case NACCESS_SINGLETASK:
        if (j->tpn > 1)
            return 0; /* one task a node */
        return np >= ppt ? (long)(procs / np) : 0;
    case NACCESS_SINGLEJOB:
        if (j->tpn)
            return np / ppt >= j->tpn ? (long)(procs / np) * j->tpn : 0;
        return np >= ppt ? (long)(procs / np) * (np / ppt) : 0;
    default:
        t = (long)(procs / ppt);
        if (j->tpn)
            return tpn_cap(s, j, g, t);
        if (shaped(s, j, g) && t > region_shape(s, g, j))
            t = region_shape(s, g, j);
        return t;
    }
}

/* Processors `tasks` tasks of j take in region g (whole nodes when node
 * access is exclusive). */
static long long procs_for(const struct sched *s, const struct job *j, size_t g, long tasks)
{
    long np = node_procs(s, g), ppt = j->procs_per_task;
    if (j->exclusive) {
        long per = j->tpn ? j->tpn : np / ppt;
        return per ? (long long)((tasks + per - 1) / per) * np : 0;
    }
    switch (s->pol.naccess) {
    case NACCESS_SINGLETASK:
        return (long long)tasks * np;
    case NACCESS_SINGLEJOB: {
        long per = j->tpn ? j->tpn : np / ppt;
        return per ? (long long)((tasks + per - 1) / per) * np : 0;
    }
    default:
        return (long long)tasks * ppt;
    }
}

/* The one-region fast path: whether the nodes can hold j's share of tasks
 * per node at all (no tasks per node: yes). */
static int plain_tpn_ok(const struct sched *s, const struct job *j)
{
    return !j->tpn || tpn_cap(s, j, 0, j->tasks) >= j->tasks;
}

void plan_forget(struct sched *s)
{
    for (size_t g = 0; g < s->pl.nregions; g++)
        s->pl.regions[g].cj = NULL;
}

/* Whether j's memory matters in region g's plan. */
static int mem_planned(const struct sched *s, const struct job *j, size_t g)
{
    return s->pl.regions[g].mfree && job_wants_mem(j);
}

/* Tasks of j region g holds over [t, t + walltime): its processors (free,
 * and in the reservations of mask) and its memory. */
static long region_tasks(struct sched *s, const struct job *j, size_t g, uint64_t mask, long t)
{
    long n = tasks_in(s, j, g, region_min(&s->pl.regions[g], mask, t, t + j->walltime));
    if (n > 0 && mem_planned(s, j, g)) {
        long m = mem_tasks(s, j, g, avail_min_free(s->pl.regions[g].mfree, t, t + j->walltime));
        n = m < n ? m : n;
    }
    return n;
}

/* The one-region fast path: what j takes of the processors and memory. */
static long long fast_procs(const struct sched *s, const struct job *j)
{
    return j->exclusive ? procs_for(s, j, 0, j->tasks) : job_procs(j);
}

static inline __attribute__((always_inline)) long long fast_mem(const struct sched *s,
                                                                const struct job *j)
{
    return mem_planned(s, j, 0) ? mem_for(s, j, 0, j->tasks) : 0;
}

/* The fast path: whether the nodes could hold j at all. Inlined, as
 * fast_mem: plan_fits asks both for every job the scan may start (HPC2N
 * EASY: 5.4 M and 1.7 M instructions fewer than as calls). */
static inline __attribute__((always_inline)) int fast_usable(struct sched *s, const struct job *j)
{
    return plan_region_usable(s, j, 0) && s->pl.regions[0].maxprocs >= j->procs_per_task &&
           !(shaped(s, j, 0) && j->tasks > region_shape(s, 0, j)) && plain_tpn_ok(s, j);
}

long plan_region_tasks(struct sched *s, const struct job *j, size_t g, long t)
{
    if (!s->pl.multi) {
        long n = tasks_in(s, j, 0, avail_min_free(s->pl.avail, t, t + j->walltime));
        if (n > 0 && mem_planned(s, j, 0)) {
            long m = mem_tasks(s, j, 0, avail_min_free(s->pl.regions[0].mfree, t, t + j->walltime));
            n = m < n ? m : n;
        }
        return n;
    }
    uint64_t mask;
    region_level(s, j, g, t, &mask);
    return region_tasks(s, j, g, mask, t);
}

/* A job with a host list fits where each of its hosts holds its count. */
static int hosts_fit(struct sched *s, const struct job *j, long t)
{
    for (size_t k = 0; k < j->nhosts; k++) {
        size_t g = host_region(s, j, k);
        uint64_t mask;
        if (g == SIZE_MAX || !plan_region_usable(s, j, g))
            return 0;
        region_level(s, j, g, t, &mask);
        if (region_tasks(s, j, g, mask, t) < (long)j->hosts[k].tasks)
            return 0;
    }
    return 1;
}

int plan_fits(struct sched *s, const struct job *j, long t)
{
    if (!s->pl.multi) {
        /* Most jobs of a long queue fail on the processors: those answers
         * first, before the nodes' questions (the same answer, sooner). */
        long long need = fast_procs(s, j);
        if (t <= avail_origin(s->pl.avail) && avail_free_now(s->pl.avail) < need)
            return 0;
        if (!avail_fits(s->pl.avail, t, t + j->walltime, need) || !fast_usable(s, j))
            return 0;
        long long mem = fast_mem(s, j);
        return !mem || avail_fits(s->pl.regions[0].mfree, t, t + j->walltime, mem);
    }
    if (job_has_hostlist(j))
        return hosts_fit(s, j, t);
    long left = j->tasks;
    for (size_t g = 0; g < s->pl.nregions && left > 0; g++) {
        if (!plan_region_usable(s, j, g))
            continue;
        uint64_t mask;
        region_level(s, j, g, t, &mask);
        left -= region_tasks(s, j, g, mask, t);
    }
    return left <= 0;
}

/* The first start after t at which a TIMELIMIT entry of a reservation
 * changes its answer for j: where j's overlap with the window falls to the
 * limit (start = end - limit, or start = start - walltime + limit). The
 * profiles do not change there, but what j may use does. */
static long next_admission(const struct sched *s, const struct job *j, long t)
{
    long next = AVAIL_NEVER;
    for (size_t i = 0; i < s->rs.nresvs; i++) {
        const struct resv *r = s->rs.resvs[i];
        for (size_t k = 0; k < acl_count(r->acl); k++) {
            const struct acl_entry *e = acl_entry(r->acl, k);
            if (e->type != ACL_DURATION)
                continue;
            long c1 = r->end - e->secs, c2 = r->start - j->walltime + e->secs;
            if (c1 > t && c1 < next)
                next = c1;
            if (c2 > t && c2 < next)
                next = c2;
        }
    }
    return next;
}

/* The fast path's earliest start: where processors and memory both hold
 * j, each count's earliest moving the other's search on. */
static long fast_earliest(struct sched *s, const struct job *j, long from)
{
    long long need = fast_procs(s, j), mem = fast_mem(s, j);
    long t = from;
    for (;;) {
        t = avail_earliest(s->pl.avail, t, j->walltime, need);
        if (t >= AVAIL_NEVER || !mem || avail_fits(s->pl.regions[0].mfree, t, t + j->walltime, mem))
            return t;
        long m = avail_earliest(s->pl.regions[0].mfree, t, j->walltime, mem);
        if (m >= AVAIL_NEVER)
            return AVAIL_NEVER;
        t = m > t ? m : t + 1;
    }
}

/*
 * A kept hold (policy/iter.c): j's priority reservation at `held`, left in
 * the profile while a pass looks for its new one, which is often the same.
 * The fast path answers for it as if it were released: one region, no
 * memory planned, the hold after now (free now is not its), and j short of
 * processors now (plan_fits' first answer, the same with or without it).
 */
int plan_kept_short(struct sched *s, const struct job *j, long held)
{
    return !s->pl.multi && !j->plan_mem && !fast_mem(s, j) && held > avail_origin(s->pl.avail) &&
           held < AVAIL_NEVER - j->walltime && avail_free_now(s->pl.avail) < fast_procs(s, j);
}

/* plan_earliest(s, j, from) as after plan_unhold of the kept hold at held
 * (plan_kept_short said yes): its processors walked as given back. */
long plan_earliest_kept(struct sched *s, const struct job *j, long from, long held)
{
    if (!fast_usable(s, j))
        return AVAIL_NEVER;
    return avail_earliest_plus(s->pl.avail, from, j->walltime, fast_procs(s, j), held,
                               held + j->walltime, j->plan_procs);
}

/* Whether plan_hold(s, j, t) would put back what the kept hold at held
 * takes (plan_unhold, then it: the same profile, point for point): then j
 * holds it again, at t, and the profile is not touched. */
int plan_rehold(struct sched *s, struct job *j, long held, long t)
{
    if (t != held || j->plan_procs != fast_procs(s, j))
        return 0;
    j->resv_start = t;
    return 1;
}

long plan_earliest(struct sched *s, const struct job *j, long from)
{
    if (!s->pl.multi)
        return fast_usable(s, j) ? fast_earliest(s, j, from) : AVAIL_NEVER;
    long t = from;
    /* A start whose end would reach "never" is no start: reservations
     * that never end (INFINITY) put their edges there. */
    while (t < AVAIL_NEVER - j->walltime) {
        if (plan_fits(s, j, t))
            return t;
        long next = plan_next_change(s, j, t);
        if (next <= t)
            break; /* no later change: what does not fit now never will */
        t = next;
    }
    return AVAIL_NEVER;
}

long plan_next_change(struct sched *s, const struct job *j, long t)
{
    long next = s->pl.multi ? next_admission(s, j, t) : avail_next_change(s->pl.avail, t);
    for (size_t g = 0; g < s->pl.nregions; g++) {
        if (!plan_region_usable(s, j, g))
            continue;
        long n = s->pl.multi ? region_next(&s->pl.regions[g], ~(uint64_t)0, t) : AVAIL_NEVER;
        if (mem_planned(s, j, g)) {
            long m = avail_next_change(s->pl.regions[g].mfree, t);
            n = m < n ? m : n;
        }
        if (n < next)
            next = n;
    }
    return next;
}

/* plan_free_now over regions: out of line, so that the one-pool answer,
 * which a scan asks of nearly every job it looks at, saves no registers
 * for this loop (HPC2N fairshare: 4.5 million questions, 27 instructions
 * each, 6 without the frame). */
static __attribute__((noinline)) long long free_now_regions(struct sched *s, const struct job *j)
{
    if (!j && s->pl.free_now_ok)
        return s->pl.free_now;
    long long sum = 0;
    for (size_t g = 0; g < s->pl.nregions; g++) {
        uint64_t mask = ~(uint64_t)0;
        if (j && !plan_region_usable(s, j, g))
            continue;
        if (j)
            region_level(s, j, g, avail_origin(s->pl.avail), &mask);
        long long v = region_at(&s->pl.regions[g], mask, avail_origin(s->pl.regions[g].free));
        sum += v > 0 ? v : 0;
    }
    if (!j) {
        s->pl.free_now = sum;
        s->pl.free_now_ok = 1;
    }
    return sum;
}

long long plan_free_now(struct sched *s, const struct job *j)
{
    if (!s->pl.multi)
        return avail_free_now(s->pl.avail);
    return free_now_regions(s, j);
}

/* ------------------------------------------------------------ holdings */

/* Apply one holding over [a, b): sign -1 takes, +1 gives back. A holding
 * in a reservation comes from its inner profile within its window and from
 * the free profile outside it. */
static void apply(struct sched *s, const struct plan_take *tk, long a, long b, int sign)
{
    struct region *rg = &s->pl.regions[tk->region];
    long long d = sign * tk->procs;
    s->pl.free_now_ok = 0;
    if (tk->mem && rg->mfree)
        avail_give(rg->mfree, a, b, sign * tk->mem);
    if (tk->rv < 0) {
        avail_give(rg->free, a, b, d);
        return;
    }
    const struct resv *r = rg->rv[tk->rv].r;
    long lo = a > r->start ? a : r->start, hi = b < r->end ? b : r->end;
    if (hi <= lo) {
        avail_give(rg->free, a, b, d);
        return;
    }
    avail_give(rg->rv[tk->rv].inner, lo, hi, d);
    avail_give(rg->free, a, lo, d);
    avail_give(rg->free, hi, b, d);
}

static void add_take(struct job *j, size_t *cap, uint32_t g, int32_t rv, long long procs,
                     long long mem)
{
    if (procs == 0 && mem == 0)
        return;
    for (size_t k = 0; k < j->ntakes; k++)
        if (j->takes[k].region == g && j->takes[k].rv == rv) {
            j->takes[k].procs += procs;
            j->takes[k].mem += mem;
            return;
        }
    j->takes = xgrow(j->takes, cap, j->ntakes + 1, sizeof *j->takes);
    j->takes[j->ntakes++] = (struct plan_take){g, rv, procs, mem};
}

static int32_t rv_index(const struct region *rg, const struct resv *r)
{
    for (size_t k = 0; k < rg->nrv; k++)
        if (rg->rv[k].r == r)
            return (int32_t)k;
    return -1;
}

/* A running job's holdings from its nodes: the reserved processors it uses
 * (its charges) from those reservations' inner profiles, the rest from the
 * free profile. */
static void takes_of_running(struct sched *s, struct job *j)
{
    size_t cap = 0;
    j->ntakes = 0;
    for (size_t k = 0; k < j->nslots; k++)
        for (unsigned i = j->slots[k].node; i < j->slots[k].node + j->slots[k].nnodes; i++)
            add_take(j, &cap, s->pl.node_region[i], -1, j->slots[k].procs,
                     s->pl.regions[s->pl.node_region[i]].mfree ? j->slots[k].mem : 0);
    for (size_t c = 0; c < j->ncharges; c++) {
        const struct resv_charge *ch = &j->charges[c];
        uint32_t g = s->pl.node_region[ch->r->nodes[ch->k].node];
        int32_t x = rv_index(&s->pl.regions[g], ch->r);
        if (x < 0)
            continue;
        add_take(j, &cap, g, x, ch->procs, 0);
        add_take(j, &cap, g, -1, -(long long)ch->procs, 0);
    }
}

/* The fast path: what running j holds, from its slots (a job the resource
 * manager widened holds more than it asked; one without slots what it asked). */
static void held(const struct sched *s, struct job *j)
{
    long long procs = 0, mem = 0;
    for (size_t k = 0; k < j->nslots; k++) {
        procs += (long long)j->slots[k].procs * j->slots[k].nnodes;
        mem += (long long)j->slots[k].mem * j->slots[k].nnodes;
    }
    j->plan_procs = j->nslots ? procs : job_procs(j);
    j->plan_mem = s->pl.regions[0].mfree ? mem : 0;
}

static void fast_take(struct sched *s, struct job *j, long from, long to, int sign)
{
    avail_give(s->pl.avail, from, to, sign * j->plan_procs);
    if (j->plan_mem)
        avail_give(s->pl.regions[0].mfree, from, to, sign * j->plan_mem);
}

void plan_run(struct sched *s, struct job *j, long from, long to)
{
    if (!s->pl.multi) {
        held(s, j);
        fast_take(s, j, from, to, -1);
        return;
    }
    if (!j->takes)
        takes_of_running(s, j);
    for (size_t k = 0; k < j->ntakes; k++)
        apply(s, &j->takes[k], from, to, -1);
}

void plan_unrun(struct sched *s, struct job *j, long from, long to)
{
    if (!s->pl.multi) {
        fast_take(s, j, from, to, +1);
        return;
    }
    for (size_t k = 0; k < j->ntakes; k++)
        apply(s, &j->takes[k], from, to, +1);
    free(j->takes);
    j->takes = NULL;
    j->ntakes = 0;
}

/* Hold `tasks` tasks of j in region g over [t, t + walltime): reserved
 * processors it may use first, then free ones. */
static void hold_in(struct sched *s, struct job *j, size_t *cap, size_t g, uint64_t mask, long t,
                    long tasks)
{
    struct region *rg = &s->pl.regions[g];
    long long left = procs_for(s, j, g, tasks);
    long b = t + j->walltime;
    for (size_t k = 0; k < rg->nrv && k < 64 && left > 0; k++) {
        if (!(mask >> k & 1))
            continue;
        const struct resv *r = rg->rv[k].r;
        long lo = t > r->start ? t : r->start, hi = b < r->end ? b : r->end;
        long long in = avail_min_free(rg->rv[k].inner, lo, hi);
        long long take = in < left ? in : left;
        if (take > 0) {
            add_take(j, cap, (uint32_t)g, (int32_t)k, take, 0);
            left -= take;
        }
    }
    add_take(j, cap, (uint32_t)g, -1, left, mem_for(s, j, g, tasks));
}

void plan_hold(struct sched *s, struct job *j, long t)
{
    j->resv_start = t;
    if (!s->pl.multi) {
        j->plan_procs = fast_procs(s, j);
        j->plan_mem = fast_mem(s, j);
        fast_take(s, j, t, t + j->walltime, -1);
        return;
    }
    size_t cap = 0;
    long left = j->tasks;
    j->ntakes = 0;
    for (size_t k = 0; k < j->nhosts; k++) { /* its hosts, its counts on each */
        size_t g = host_region(s, j, k);
        uint64_t mask;
        if (g == SIZE_MAX)
            continue; /* (plan_fits said no: held only where it fits) */
        region_level(s, j, g, t, &mask);
        hold_in(s, j, &cap, g, mask, t, j->hosts[k].tasks);
        left = 0;
    }
    for (int level = 0; level < LVL_N && left > 0; level++)
        for (size_t g = 0; g < s->pl.nregions && left > 0; g++) {
            uint64_t mask;
            if (!plan_region_usable(s, j, g) || region_level(s, j, g, t, &mask) != level)
                continue;
            long n = region_tasks(s, j, g, mask, t);
            if (n > left)
                n = left;
            if (n > 0)
                hold_in(s, j, &cap, g, mask, t, n);
            left -= n > 0 ? n : 0;
        }
    for (size_t k = 0; k < j->ntakes; k++)
        apply(s, &j->takes[k], t, t + j->walltime, -1);
}

void plan_unhold(struct sched *s, struct job *j)
{
    if (j->resv_start < 0)
        return;
    long t = j->resv_start;
    j->resv_start = -1;
    if (!s->pl.multi) {
        fast_take(s, j, t, t + j->walltime, +1);
        return;
    }
    for (size_t k = 0; k < j->ntakes; k++)
        apply(s, &j->takes[k], t, t + j->walltime, +1);
    free(j->takes);
    j->takes = NULL;
    j->ntakes = 0;
}

void plan_advance(struct sched *s, long now)
{
    s->pl.free_now_ok = 0;
    if (s->pl.multi)
        avail_advance(s->pl.avail, now); /* the clock: regions hold the counts */
    for (size_t g = 0; g < s->pl.nregions; g++) {
        avail_advance(s->pl.regions[g].free, now);
        if (s->pl.regions[g].mfree)
            avail_advance(s->pl.regions[g].mfree, now);
        for (size_t k = 0; k < s->pl.regions[g].nrv; k++)
            avail_advance(s->pl.regions[g].rv[k].inner, now);
    }
}

/* ------------------------------------------------------------- rebuild */

/* Per node, the reservations covering it (not yet ended), as lists. */
static void build_node_rv(struct sched *s, long now)
{
    free(s->pl.node_rv_off);
    free(s->pl.node_rv);
    s->pl.node_rv_off = xcalloc(s->nt.nnodes + 1, sizeof *s->pl.node_rv_off);
    size_t total = 0;
    for (size_t i = 0; i < s->rs.nresvs; i++)
        for (size_t k = 0; k < s->rs.resvs[i]->nnodes; k++)
            if (s->rs.resvs[i]->end > now) {
                s->pl.node_rv_off[s->rs.resvs[i]->nodes[k].node + 1]++;
                total++;
            }
    for (size_t n = 0; n < s->nt.nnodes; n++)
        s->pl.node_rv_off[n + 1] += s->pl.node_rv_off[n];
    s->pl.node_rv = xcalloc(total + 1, sizeof *s->pl.node_rv);
    size_t *fill = xcalloc(s->nt.nnodes + 1, sizeof *fill);
    for (size_t i = 0; i < s->rs.nresvs; i++)
        for (size_t k = 0; k < s->rs.resvs[i]->nnodes; k++) {
            struct resv *r = s->rs.resvs[i];
            unsigned n = r->nodes[k].node;
            if (r->end > now)
                s->pl.node_rv[s->pl.node_rv_off[n] + fill[n]++] = (struct node_rv){r, (unsigned)k};
        }
    free(fill);
}

/* The key of node i: what makes nodes alike for placement. */
static char *node_key(const struct sched *s, size_t i)
{
    const struct node *n = &s->nt.nodes[i];
    size_t cap = 0, len = 0;
    char *k = NULL;
    char part[64];
    int np = snprintf(part, sizeof part, "%s|%d|", n->partition,
                      s->pol.naccess == NACCESS_SHARED ? 0 : n->procs);
    k = xgrow(k, &cap, (size_t)np + 1, 1);
    memcpy(k, part, (size_t)np + 1);
    len = (size_t)np;
    for (size_t f = 0; f < n->nfeatures; f++) {
        size_t fl = strlen(n->features[f]);
        k = xgrow(k, &cap, len + fl + 2, 1);
        memcpy(k + len, n->features[f], fl);
        len += fl;
        k[len++] = ',';
        k[len] = '\0';
    }
    if (plan_named(s, i)) { /* a host list names it: a region of its own */
        char id[32];
        int il = snprintf(id, sizeof id, "|@%zu", i);
        k = xgrow(k, &cap, len + (size_t)il + 1, 1);
        memcpy(k + len, id, (size_t)il + 1);
        len += (size_t)il;
    }
    for (size_t e = s->pl.node_rv_off[i]; e < s->pl.node_rv_off[i + 1]; e++) {
        char id[32];
        int il = snprintf(id, sizeof id, "|%p", (void *)s->pl.node_rv[e].r);
        k = xgrow(k, &cap, len + (size_t)il + 1, 1);
        memcpy(k + len, id, (size_t)il + 1);
        len += (size_t)il;
    }
    return k;
}

static int cap_cmp(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return x < y ? -1 : x > y;
}

/* Each region's node sizes, ascending (nodes_holding). */
static void count_caps(struct sched *s)
{
    size_t *fill = xcalloc(s->pl.nregions + 1, sizeof *fill);
    for (size_t g = 0; g < s->pl.nregions; g++)
        s->pl.regions[g].caps = xcalloc(s->pl.regions[g].nnodes + 1, sizeof *s->pl.regions[g].caps);
    for (size_t i = 0; i < s->nt.nnodes; i++) {
        size_t g = s->pl.node_region[i];
        s->pl.regions[g].caps[fill[g]++] = s->nt.node_cap[i];
    }
    for (size_t g = 0; g < s->pl.nregions; g++)
        qsort(s->pl.regions[g].caps, s->pl.regions[g].nnodes, sizeof *s->pl.regions[g].caps,
              cap_cmp);
    free(fill);
}

static void assign_regions(struct sched *s)
{
    struct strmap seen;
    strmap_init(&seen);
    char **keys = xcalloc(s->nt.nnodes + 1, sizeof *keys);
    size_t cap = 0;
    s->pl.node_region = xrealloc(s->pl.node_region, (s->nt.nnodes + 1) * sizeof *s->pl.node_region);
    for (size_t i = 0; i < s->nt.nnodes; i++) {
        keys[i] = node_key(s, i);
        size_t g;
        if (!strmap_get(&seen, keys[i], &g)) {
            g = s->pl.nregions;
            strmap_put(&seen, keys[i], g);
            s->pl.regions = xgrow(s->pl.regions, &cap, g + 1, sizeof *s->pl.regions);
            s->pl.regions[g] = (struct region){.node = i};
            s->pl.nregions++;
        }
        s->pl.node_region[i] = (uint32_t)g;
        s->pl.regions[g].nnodes++;
        s->pl.regions[g].cap += s->nt.node_cap[i];
        s->pl.regions[g].mcap += s->nt.node_mem_cap[i];
        long *nm = &s->pl.regions[g].node_mem;
        if (s->nt.nodes[i].mem <= 0)
            *nm = -1; /* a node of unknown memory: memory is not planned here */
        else if (*nm >= 0 && s->nt.nodes[i].mem > *nm)
            *nm = s->nt.nodes[i].mem;
        if (s->nt.node_cap[i] > s->pl.regions[g].maxprocs)
            s->pl.regions[g].maxprocs = s->nt.node_cap[i];
    }
    strmap_free(&seen);
    count_caps(s);
    for (size_t i = 0; i < s->nt.nnodes; i++)
        free(keys[i]);
    free(keys);
    if (!s->pl.nregions) { /* no nodes yet: one empty region */
        s->pl.regions = xgrow(s->pl.regions, &cap, 1, sizeof *s->pl.regions);
        s->pl.regions[0] = (struct region){0};
        s->pl.nregions = 1;
    }
}

/* Each region's reservations and their inner profiles. */
static void reserve_regions(struct sched *s, long now)
{
    for (size_t i = 0; i < s->rs.nresvs; i++) {
        struct resv *r = s->rs.resvs[i];
        if (r->end <= now)
            continue;
        for (size_t k = 0; k < r->nnodes; k++) {
            unsigned n = r->nodes[k].node;
            struct region *rg = &s->pl.regions[s->pl.node_region[n]];
            int32_t x = rv_index(rg, r);
            if (x < 0) {
                rg->rv = xrealloc(rg->rv, (rg->nrv + 1) * sizeof *rg->rv);
                rg->rv[rg->nrv] = (struct region_rv){r, avail_create(0, now)};
                x = (int32_t)rg->nrv++;
            }
            /* Reserved processors of a node that is down are not there. */
            long long p = s->nt.node_cap[n] ? r->nodes[k].procs : 0;
            avail_give(rg->rv[x].inner, r->start, r->end, p);
            avail_take(rg->free, r->start, r->end, p);
        }
    }
}

void plan_rebuild(struct sched *s, long now)
{
    s->pl.free_now_ok = 0;
    free_regions(s);
    build_node_rv(s, now);
    assign_regions(s);
    s->pl.multi = s->pl.nregions > 1 || s->rs.nresvs > 0 || s->pol.naccess != NACCESS_SHARED ||
                  s->pl.nnamed_any > 0;
    avail_destroy(s->pl.avail);
    s->pl.avail = avail_create(s->pl.regions[0].cap, now);
    for (size_t g = 0; g < s->pl.nregions; g++)
        s->pl.regions[g].mfree =
            s->pl.regions[g].node_mem > 0 ? avail_create(s->pl.regions[g].mcap, now) : NULL;
    if (!s->pl.multi) {
        s->pl.regions[0].free = s->pl.avail;
    } else {
        /* s->pl.avail stays as the clock holder (its origin is "now"); the
         * regions hold the counts. */
        for (size_t g = 0; g < s->pl.nregions; g++)
            s->pl.regions[g].free = avail_create(s->pl.regions[g].cap, now);
        reserve_regions(s, now);
    }
    for (size_t i = 0; i < s->rs.nresvs; i++)
        for (size_t k = 0; k < s->rs.resvs[i]->nnodes; k++)
            s->rs.resvs[i]->nodes[k].used = 0;
    for (size_t h = 0; h < s->pl.running.n; h++) {
        struct job *j = heap_at(&s->pl.running, h);
        free(j->takes);
        j->takes = NULL;
        j->ntakes = 0;
        if (s->pl.multi)
            alloc_charge(s, j, now);
        else {
            free(j->charges);
            j->charges = NULL;
            j->ncharges = 0;
        }
        plan_run(s, j, now, j->planned_end);
    }
    s->rs.regions_gen = s->rs.resv_gen;
    resv_bury(s); /* nothing names the released ones any more */
}
