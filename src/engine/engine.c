/*
 * engine — see engine.h. The scheduler's façade: creating and destroying
 * it, its nodes, and the job lifecycle — submit, cancel, adopt, run, end,
 * requeue, hold, release, the administrator's changes — each checked here
 * and carried out by calling down into policy/ (the queue, the plan,
 * eligibility, the iteration) and core/. Nothing below calls back up.
 */
#include "engine/engine.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "core/sched_int.h"
#include "engine/dep.h"
#include "policy/avail.h"
#include "policy/fs.h"
#include "policy/limits.h"
#include "policy/nprio.h"
#include "policy/prio.h"
#include "policy/qorder.h"
#include "policy/srcfg.h"
#include "policy/wake.h"
#include "util/mem.h"
#include "util/pool.h"

void sched_policy_default(struct sched_policy *pol)
{
    *pol = (struct sched_policy){
        .backfill = BF_FIRSTFIT,
        .resdepth = 1,
        .resgroup = {{1, ""}},
        .nresgroups = 1,
        .bfmaxschedules = 10000,
        .overrun = 0,
        .defertime = 3600,
        .defercount = 24,
        .deferstartcount = 1,
        .poll = 60,
        .nalloc = NALLOC_LASTAVAILABLE,
    };
    prio_params_default(&pol->prio);
    fs_params_default(&pol->fs);
}

struct sched *sched_create(const struct sched_policy *pol, const struct sched_rm *rm)
{
    struct sched *s = xcalloc(1, sizeof *s);
    pool_init(&s->jobpool, sizeof(struct job));
    s->pl.bp_first = 1; /* slot 0 is no quick-scan note (policy/iter.c) */
    if (pol)
        s->pol = *pol;
    else
        sched_policy_default(&s->pol);
    if (rm)
        s->rm = *rm;
    s->prio_static = prio_order_is_submission(&s->pol.prio); /* the policy never changes */
    s->stopped_need = wake_stopped_need(&s->pol);
    s->top_need = wake_top_need(&s->pol);
    if (s->pol.nresgroups <= 1) {
        /* One group of every QOS: resdepth says how many (callers may set
         * just that field). */
        s->pol.nresgroups = 1;
        s->pol.resgroup[0].depth = s->pol.resdepth;
    }
    for (int k = 0; k < CRED_NKINDS; k++)
        s->creds[k] = cred_table_create(k);
    /* Keyed by planned end alone (seq 0): equal ends leave in the heap's
     * own order, the order every schedule so far was made with. */
    heap_init(&s->pl.running, offsetof(struct job, heap_pos));
    s->lim.limits = limits_create();
    s->fsh.fs = fs_create(&s->pol.fs, 0);
    s->lim.limits_gen = 1;
    strmap_init(&s->nt.nodes_byname);
    strmap_init(&s->jobs_byname);
    s->pl.avail = avail_create(0, LONG_MIN / 4);
    plan_init(s);
    s->pl.last_now = LONG_MIN / 4;
    s->el.lift_at = AVAIL_NEVER;
    s->el.again_at = AVAIL_NEVER;
    s->pl.replan = 1;
    return s;
}

static void free_node(struct node *n)
{
    free(n->name);
    for (size_t i = 0; i < n->nfeatures; i++)
        free(n->features[i]);
    free(n->features);
    free(n->partition);
    nprio_free(n->priof);
    free(n->reason);
}

/* free(p) for a pointer that is mostly NULL: a replay forgets every job as
 * it ends, and nearly all own none of these (HPC2N: nine calls of free a
 * job, 18 million instructions, for nothing). */
static inline void free_owned(void *p)
{
    if (p)
        free(p);
}

static void free_job(struct sched *s, struct job *j)
{
    free_owned(j->blocked);
    for (size_t i = 0; i < j->nfeatures; i++)
        free(j->features[i]);
    free_owned(j->features);
    if (j->name != j->name_inline)
        free(j->name);
    free_owned(j->partition);
    free_owned(j->slots);
    free_owned(j->takes);
    free_owned(j->charges);
    free_owned(j->advres);
    free_owned(j->hosts);
    free_owned(j->message);
    if (j->deps)
        dep_free(j->deps, j->ndeps);
    array_name_drop(j->array);
    pool_give(&s->jobpool, j);
}

void sched_destroy(struct sched *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->nt.nnodes; i++)
        free_node(&s->nt.nodes[i]);
    free(s->nt.nodes);
    strmap_free(&s->nt.nodes_byname);
    free(s->nt.freemap);
    free(s->nt.freesum);
    free(s->nt.node_cap);
    free(s->nt.node_used);
    free(s->nt.node_jobs);
    free(s->nt.node_user);
    free(s->nt.node_mem_cap);
    free(s->nt.node_mem_used);
    free(s->nt.node_excl);
    free(s->nt.node_order);
    for (size_t i = 0; i < s->nt.nslot_spare; i++)
        free(s->nt.slot_spare[i]);
    free(s->nt.slot_spare);
    free(s->suspended);
    free(s->pl.cand);
    trig_free_all(s);
    for (size_t i = 0; i < s->rs.nresvs; i++)
        resv_free(s->rs.resvs[i]);
    free(s->rs.resvs);
    resv_bury(s);
    free(s->rs.dead);
    for (size_t i = 0; i < s->rs.nseqs; i++)
        free(s->rs.seqs[i].base);
    free(s->rs.seqs);
    srcfg_free(s->rs.srdefs, s->rs.nsrdefs);
    free(s->rs.srwant);
    plan_destroy(s);
    for (size_t i = 0; i < s->njobs - s->jobs_base; i++)
        if (s->jobs[i])
            free_job(s, s->jobs[i]);
    free(s->jobs);
    array_names_free(s);
    pool_free(&s->jobpool);
    free(s->depheld);
    strmap_free(&s->jobs_byname);
    for (int k = 0; k < CRED_NKINDS; k++)
        cred_table_destroy(s->creds[k]);
    free(s->q.queue);
    free(s->el.parked);
    eset_free(s->el.eset);
    free(s->pl.resv);
    free(s->pl.blocked);
    free(s->pl.bp);
    heap_free(&s->pl.running);
    avail_destroy(s->pl.avail);
    limits_destroy(s->lim.limits);
    fs_destroy(s->fsh.fs);
    sort_buf_free(&s->q.sortbuf);
    qorder_destroy(s->q.ord);
    free(s->q.qg);
    free(s->fsh.prio_kept);
    free(s);
}

/* Split a feature list ("a,b", "a:b", "a b" or "[a][b]") into owned strings. */
static void parse_features(char ***list, size_t *n, const char *text)
{
    size_t cap = 0;
    const char *p = text;
    while (p && *p) {
        p += strspn(p, " \t,:[]");
        size_t len = strcspn(p, " \t,:[]");
        if (!len)
            break;
        *list = xgrow(*list, &cap, *n + 1, sizeof **list);
        (*list)[(*n)++] = xstrndup(p, len);
        p += len;
    }
}

static void append_node(struct sched *s, const struct node_spec *spec)
{
    size_t had = s->nt.capnodes;
    s->nt.nodes = xgrow(s->nt.nodes, &s->nt.capnodes, s->nt.nnodes + 1, sizeof *s->nt.nodes);
    struct node *n = &s->nt.nodes[s->nt.nnodes];
    *n = (struct node){
        .name = xstrdup(spec->name),
        .procs = spec->procs,
        .mem = spec->mem,
        .swap = spec->swap,
        .disk = spec->disk,
        .partition = xstrdup(spec->partition ? spec->partition : "DEFAULT"),
        .state = spec->state,
        .speed = spec->speed > 0 ? spec->speed : 1,
        .priority = spec->priority,
    };
    if (spec->priorityf && nprio_parse(spec->priorityf, &n->priof, NULL) == 0 &&
        nprio_is_dynamic(n->priof))
        s->nt.prio_dynamic = 1;
    parse_features(&n->features, &n->nfeatures, spec->features);
    /* The key is the node's own heap string, which stays put when the node
     * table is reallocated. */
    strmap_put(&s->nt.nodes_byname, n->name, s->nt.nnodes);
    /* The free map grows a word every 64 nodes, the per-node arrays with the
     * table: eight reallocations for every node were 5 % of a burst's
     * replay on 100,000 nodes (bench/burst.sh, JOBS=10000). */
    if (s->nt.nnodes % 64 == 0) {
        size_t words = s->nt.nnodes / 64 + 1;
        s->nt.freemap = xrealloc(s->nt.freemap, words * sizeof *s->nt.freemap);
        s->nt.freemap[words - 1] = 0;
    }
    if (s->nt.capnodes != had) {
        size_t c = s->nt.capnodes;
        s->nt.node_cap = xrealloc(s->nt.node_cap, c * sizeof *s->nt.node_cap);
        s->nt.node_used = xrealloc(s->nt.node_used, c * sizeof *s->nt.node_used);
        s->nt.node_jobs = xrealloc(s->nt.node_jobs, c * sizeof *s->nt.node_jobs);
        s->nt.node_user = xrealloc(s->nt.node_user, c * sizeof *s->nt.node_user);
        s->nt.node_mem_cap = xrealloc(s->nt.node_mem_cap, c * sizeof *s->nt.node_mem_cap);
        s->nt.node_mem_used = xrealloc(s->nt.node_mem_used, c * sizeof *s->nt.node_mem_used);
        s->nt.node_excl = xrealloc(s->nt.node_excl, c * sizeof *s->nt.node_excl);
    }
    s->nt.node_mem_used[s->nt.nnodes] = 0;
    s->nt.node_excl[s->nt.nnodes] = 0;
    s->nt.node_cap[s->nt.nnodes] = n->state == NODE_UP ? n->procs : 0;
    s->nt.node_used[s->nt.nnodes] = 0;
    s->nt.node_jobs[s->nt.nnodes] = 0;
    s->nt.node_user[s->nt.nnodes] = NULL;
    s->nt.nnodes++;
    if (n->state == NODE_UP) {
        s->nt.up_procs += n->procs;
        avail_add_total(s->pl.avail, n->procs);
    }
    alloc_node_changed(s, s->nt.nnodes - 1);
    plan_nodes_changed(s);
    s->env_valid = 0;
    s->lim.limits_gen++; /* processor equivalents depend on the cluster */
    s->pl.replan = 1;
}

void sched_node_set_state(struct sched *s, size_t i, enum node_state st, const char *reason)
{
    struct node *n = &s->nt.nodes[i];
    free(n->reason);
    n->reason = reason && *reason ? xstrdup(reason) : NULL;
    if (n->state == st)
        return;
    int was_up = n->state == NODE_UP, up = st == NODE_UP;
    n->state = st;
    if (was_up != up) {
        long long d = up ? n->procs : -n->procs;
        s->nt.up_procs += d;
        avail_add_total(s->pl.avail, d);
    }
    alloc_node_changed(s, i);
    plan_nodes_changed(s);
    s->env_valid = 0;
    s->lim.limits_gen++; /* processor equivalents depend on the cluster */
    s->pl.replan = 1;
}

static int check_node_spec(const struct node_spec *spec, struct err *err)
{
    struct nprio *f;
    if (spec->priorityf) {
        if (nprio_parse(spec->priorityf, &f, err) < 0)
            return -1;
        nprio_free(f);
    }
    if (!spec->name || !*spec->name)
        return err_set(err, "node without a name");
    if (spec->procs < 1)
        return err_set(err, "node '%s': PROCS must be at least 1 (got %d)", spec->name,
                       spec->procs);
    if (spec->mem < 0 || spec->swap < 0 || spec->disk < 0)
        return err_set(err, "node '%s': memory, swap and disk must not be negative", spec->name);
    return 0;
}

int sched_add_node(struct sched *s, const struct node_spec *spec, struct err *err)
{
    if (check_node_spec(spec, err) < 0)
        return -1;
    if (strmap_get(&s->nt.nodes_byname, spec->name, NULL))
        return err_set(err, "node '%s' is defined twice", spec->name);
    append_node(s, spec);
    return 0;
}

/* One "node:tasks" item of a host list, checked against the node table. */
static int host_item(const struct sched *s, const struct job_spec *spec, char *it,
                     struct job_host *h, struct err *err)
{
    char *colon = strrchr(it, ':'), *end;
    if (!colon || colon == it)
        return err_set(err, "host list item '%s': expected node:tasks", it);
    *colon = '\0';
    long n = strtol(colon + 1, &end, 10);
    if (*end || end == colon + 1 || n < 1 || n > INT_MAX)
        return err_set(err, "host %s: bad task count '%s'", it, colon + 1);
    long i = sched_find_node(s, it);
    if (i < 0)
        return err_set(err, "no node named %s", it);
    if ((long long)n * spec->procs_per_task > s->nt.nodes[i].procs)
        return err_set(err, "node %s has %d processors, not the %lld asked of it", it,
                       s->nt.nodes[i].procs, (long long)n * spec->procs_per_task);
    char **feat = NULL;
    size_t nfeat = 0, missing = SIZE_MAX;
    parse_features(&feat, &nfeat, spec->features);
    for (size_t f = 0; f < nfeat; f++) {
        if (missing == SIZE_MAX && !node_has_feature(&s->nt.nodes[i], feat[f]))
            missing = f;
    }
    if (missing != SIZE_MAX)
        err_set(err, "node %s does not have feature %s", it, feat[missing]);
    for (size_t f = 0; f < nfeat; f++)
        free(feat[f]);
    free(feat);
    *h = (struct job_host){(unsigned)i, (unsigned)n};
    return missing == SIZE_MAX ? 0 : -1;
}

/* spec->hosts read into *out (n entries; out NULL: checked only). Every
 * node known and named once, holding its tasks; the counts sum to tasks. */
static int parse_hosts(const struct sched *s, const struct job_spec *spec, struct job_host **out,
                       size_t *n, struct err *err)
{
    char *copy = xstrdup(spec->hosts);
    struct job_host *v = NULL;
    size_t nv = 0, cap = 0;
    long long sum = 0;
    int rc = 0;
    for (char *it = copy, *next; it && rc == 0; it = next) {
        next = strchr(it, ',');
        if (next)
            *next++ = '\0';
        v = xgrow(v, &cap, nv + 1, sizeof *v);
        rc = host_item(s, spec, it, &v[nv], err);
        for (size_t k = 0; rc == 0 && k < nv; k++)
            if (v[k].node == v[nv].node)
                rc = err_set(err, "node %s named twice", it);
        if (rc == 0)
            sum += v[nv++].tasks;
    }
    if (rc == 0 && sum != spec->tasks)
        rc = err_set(err, "the hosts hold %lld tasks, the job has %d", sum, spec->tasks);
    if (rc == 0 && spec->tpn)
        rc = err_set(err, "a host list gives each node its own count: no tasks per node");
    free(copy);
    if (rc == 0 && out)
        *out = v, *n = nv;
    else
        free(v);
    return rc;
}

static int check_job_spec(const struct sched *s, const struct job_spec *spec, struct err *err)
{
    const char *name = spec->name ? spec->name : "?";
    if (spec->tasks < 1 || spec->procs_per_task < 1)
        return err_set(err, "job %s: asks for no processors", name);
    if (spec->walltime < 1)
        return err_set(err, "job %s: walltime must be at least 1 second", name);
    if (spec->mem_per_task < 0 || spec->swap_per_task < 0 || spec->disk_per_task < 0 ||
        spec->nodes < 0 || (spec->mem_per_node < 0 && spec->mem_per_node != JOB_MEM_WHOLE))
        return err_set(err, "job %s: negative memory, swap, disk or node count", name);
    if (spec->tpn < 0 || (spec->tpn > 0 && spec->tasks % spec->tpn))
        return err_set(err, "job %s: %d tasks are not a whole number of nodes of %d tasks", name,
                       spec->tasks, spec->tpn);
    struct err e;
    if (spec->hosts && parse_hosts(s, spec, NULL, NULL, &e) < 0)
        return err_set(err, "job %s: %s", name, e.msg);
    if (!spec->any_size && sched_job_fit(s, spec, SCHED_FIT_SIZE, &e) != SCHED_FITS)
        return err_set(err, "job %s: %s", name, e.msg);
    return 0;
}

static struct cred *assign_qos(struct sched *s, struct cred *const c[4], const char *want)
{
    const struct cred *const cc[4] = {c[0], c[1], c[2], c[3]};
    return cred_get(s->creds[CRED_QOS], sched_pick_qos(s, cc, want)); /* NULL: DEFAULT */
}

int sched_set_qos(struct sched *s, struct job *j, const char *qos, int check, struct err *err)
{
    if (j->state != JOB_IDLE)
        return err_set(err, "job %s is not idle", j->name);
    if (!qos || !*qos)
        return err_set(err, "no QOS named");
    struct cred *const c[4] = {j->user, j->group, j->account, j->class_};
    struct cred *q = check ? assign_qos(s, c, qos) : cred_get(s->creds[CRED_QOS], qos);
    if (strcmp(q->name, qos) != 0)
        return err_set(err, "job %s may not use QOS %s", j->name, qos);
    int parked = eset_unlist(s, j); /* its credential may be the one eligibility goes by */
    j->qos->jobs--;
    j->qos->live--;
    j->qos = q;
    q->jobs++;
    q->live++;
    eset_relist(s, j, parked);
    s->pl.replan = 1;
    s->el.elig_all = 1;
    s->lim.limits_gen++; /* per-job limits depend on the QOS */
    return 0;
}

int sched_set_walltime(struct sched *s, struct job *j, long walltime, struct err *err)
{
    if (j->state != JOB_IDLE)
        return err_set(err, "job %s is not idle", j->name);
    if (walltime < 1)
        return err_set(err, "job %s: walltime must be at least 1 second", j->name);
    int parked = eset_unlist(s, j); /* idle limits (MAXPS) count its walltime */
    j->walltime = walltime;
    eset_relist(s, j, parked);
    s->pl.replan = 1;
    s->el.elig_all = 1;
    s->lim.limits_gen++; /* per-job limits (MAX.WCLIMIT) depend on it */
    return 0;
}

/* A requested start date works like a deferral that ends then (policy/elig.c
 * lifts it), shown as Idle with its own reason. */
static void wait_for_start_date(struct sched *s, struct job *j, long when)
{
    s->el.nheld += !j->holds;
    j->deferred_until = when;
    j->flags |= JOB_STARTDATE;
    if (!s->el.next_undefer || when < s->el.next_undefer)
        s->el.next_undefer = when;
    s->pl.replan = 1;
    s->el.elig_all = 1;
}

/* The job's name, in the record itself when it fits (free_job knows). */
static void set_name(struct job *j, const char *name)
{
    size_t n = strlen(name);
    if (n < sizeof j->name_inline) {
        memcpy(j->name_inline, name, n + 1);
        j->name = j->name_inline;
    } else {
        j->name = xstrdup(name);
    }
}

struct job *sched_submit(struct sched *s, const struct job_spec *spec, struct err *err)
{
    if (check_job_spec(s, spec, err) < 0)
        return NULL;
    /* Every field is set here: zero, then what is not. */
    struct job *j = pool_take(&s->jobpool);
    memset(j, 0, sizeof *j);
    struct cred *const *c0 = spec->creds;
    j->order = s->njobs;
    j->submit = spec->submit;
    j->qtime_start = spec->submit;
    j->user = c0 ? c0[0] : cred_get(s->creds[CRED_USER], spec->user);
    j->group = c0 ? c0[1] : cred_get(s->creds[CRED_GROUP], spec->group);
    j->account = c0 ? c0[2] : cred_get(s->creds[CRED_ACCOUNT], spec->account);
    j->class_ = c0 ? c0[3] : cred_get(s->creds[CRED_CLASS], spec->class_);
    j->partition = spec->partition ? xstrdup(spec->partition) : NULL;
    j->state = JOB_IDLE;
    j->resv_start = -1;
    j->heap_pos = SIZE_MAX;
    j->epos = SIZE_MAX;
    j->tag = spec->tag;
    j->holds = spec->holds & (HOLD_USER | HOLD_SYSTEM | HOLD_BATCH);
    j->util = !spec->util_known || !(spec->util >= 0) ? -1 : spec->util < 1 ? spec->util : 1;
    j->exit_status = -1;
    set_name(j, spec->name ? spec->name : "");
    job_request_from_spec(j, spec);
    if (j->holds) {
        s->el.nheld++;
        s->pl.replan = 1; /* the incremental scan does not look at holds */
    }
    if (spec->start_after > spec->submit)
        wait_for_start_date(s, j, spec->start_after);
    if (spec->features) /* (a trace's jobs name none: no call) */
        parse_features(&j->features, &j->nfeatures, spec->features);
    if (spec->hosts) {
        parse_hosts(s, spec, &j->hosts, &j->nhosts, err); /* checked above */
        plan_name_hosts(s, j);
    }
    j->advres = spec->advres && *spec->advres ? xstrdup(spec->advres) : NULL;
    if (spec->preemptee)
        j->flags |= JOB_ATTR_PREEMPTEE;
    struct cred *const c[4] = {j->user, j->group, j->account, j->class_};
    j->qos = assign_qos(s, c, spec->qos);
    struct cred *const all[] = {j->user, j->group, j->account, j->class_, j->qos};
    for (size_t k = 0; k < 5; k++) {
        all[k]->jobs++;
        all[k]->live++;
    }
    s->jobs = xgrow(s->jobs, &s->capjobs, s->njobs - s->jobs_base + 1, sizeof *s->jobs);
    s->jobs[s->njobs++ - s->jobs_base] = j;
    queue_append(s, j);
    return j;
}

struct job *sched_add_ended(struct sched *s, const struct job_spec *spec, long start, long end,
                            int removed, int exit_status, struct err *err)
{
    /* Checked like a submission, then taken out of the queue at once: the
     * job is history, it holds nothing and is never planned. */
    struct job *j = sched_submit(s, spec, err);
    if (!j)
        return NULL;
    queue_leave(s, j);
    queue_left(j);
    j->state = removed ? JOB_REMOVED : JOB_COMPLETED;
    j->start = start;
    j->end = end;
    j->exit_status = exit_status;
    return j;
}

int sched_cancel(struct sched *s, struct job *j, long now, struct err *err)
{
    if (j->state != JOB_IDLE)
        return err_set(err, "job %s is not idle", j->name);
    queue_leave(s, j);
    queue_left(j);
    j->state = JOB_REMOVED;
    j->end = now;
    return 0;
}

int sched_adopt(struct sched *s, struct job *j, long start, const struct job_slot *slots, size_t n,
                struct err *err)
{
    if (j->state != JOB_IDLE)
        return err_set(err, "job %s is not idle", j->name);
    if (alloc_exact(s, j, slots, n) < 0)
        return err_set(err, "job %s: its nodes are not in the node table", j->name);
    if (s->pl.multi)
        alloc_charge(s, j, start > s->pl.last_now ? start : s->pl.last_now);
    queue_leave(s, j);
    long from = start > s->pl.last_now ? start : s->pl.last_now; /* the profile's past is gone */
    j->start = start;
    j->planned_end = start + j->walltime;
    if (j->planned_end <= from)
        j->planned_end = from + 1; /* overrunning: settle_time re-plans it */
    iter_mark_running(s, j, from);
    return 0;
}

int sched_job_reslot(struct sched *s, struct job *j, const struct job_slot *slots, size_t n,
                     long now, struct err *err)
{
    if (j->state != JOB_RUNNING || (j->flags & JOB_PREEMPTED))
        return err_set(err, "job %s is not running", j->name);
    for (size_t k = 0; k < n; k++)
        if (slots[k].nnodes == 0 || (size_t)slots[k].node + slots[k].nnodes > s->nt.nnodes)
            return err_set(err, "job %s: its nodes are not in the node table", j->name);
    if (s->rs.regions_gen != s->rs.resv_gen)
        iter_rebuild(s, now); /* the regions name what the nodes are now */
    long from = now > s->pl.last_now ? now : s->pl.last_now;
    plan_unrun(s, j, j->start, j->planned_end);
    alloc_release(s, j);
    alloc_exact(s, j, slots, n); /* checked above: cannot fail */
    if (s->pl.multi)
        alloc_charge(s, j, from);
    plan_run(s, j, from, j->planned_end > from ? j->planned_end : from + 1);
    s->pl.replan = 1;
    return 0;
}

int sched_runjob(struct sched *s, struct job *j, long now, struct err *err)
{
    if (j->state != JOB_IDLE)
        return err_set(err, "job %s is not idle", j->name);
    if (s->rs.regions_gen != s->rs.resv_gen)
        iter_rebuild(s, now); /* a reservation released since the last iteration is gone */
    long long free_procs = 0;
    for (size_t i = 0; i < s->nt.nnodes; i++)
        free_procs +=
            s->nt.node_cap[i] > s->nt.node_used[i] ? s->nt.node_cap[i] - s->nt.node_used[i] : 0;
    if (free_procs < job_procs(j))
        return err_set(err,
                       "job cannot run  (insufficient idle procs:  %lld needed  %lld available)",
                       job_procs(j), free_procs);
    /* Out of the queue first, as a start in an iteration takes it out. */
    queue_leave(s, j);
    if (iter_force_start(s, j, now) < 0) {
        queue_append(s, j); /* back as it was, counted again */
        s->el.nheld += j->holds || j->deferred_until;
        s->el.nsysprio += j->sysprio_mode != SYSPRIO_NONE;
        return err_set(err, "job '%s' cannot be started on %lld procs", j->name, job_procs(j));
    }
    return 0;
}

int sched_requeue(struct sched *s, struct job *j, long now, struct err *err)
{
    if (queue_requeue(s, j, now) < 0)
        return err_set(err, "job %s is not running", j->name);
    return 0;
}

void sched_job_ended(struct sched *s, struct job *j, long now)
{
    if (j->state != JOB_RUNNING)
        return;
    resv_job_done(s, j, now); /* before its charges go: SINGLEUSE reservations it used */
    queue_stop(s, j, now);
}

void sched_iterate(struct sched *s, long now)
{
    /* Dependencies met by this instant's ends first; then those met by this
     * iteration's starts (after), whose jobs may start in it too. Each
     * extra run releases a job, so the loop ends. */
    sched_deps_update(s, now);
    sched_array_update(s, now); /* ends and cancels since the last one free slots */
    iter_run(s, now);
    while (sched_deps_update(s, now))
        iter_run(s, now);
}

void sched_accrue(struct sched *s, long now)
{
    if (now > fs_now(s->fsh.fs))
        fsacct_iterate(s, now);
}

long sched_job_qtime(const struct sched *s, const struct job *j, long now)
{
    return elig_qtime(s, j, now);
}

double sched_job_priority(const struct sched *s, const struct job *j, long now,
                          struct prio_parts *parts)
{
    struct prio_env env;
    sched_prio_env(s, &env);
    if (j->state == JOB_RUNNING)
        return prio_run(&s->pol.prio, &env, j, now, parts);
    /* A cache refresh, not a change of state: its credentials' fairshare
     * deltas as of the last iteration. */
    fsacct_job((struct sched *)s, j);
    return prio_start(&s->pol.prio, &env, j, now, parts);
}

/* Holes are compacted away on demand: commands see only live jobs. The
 * queue's length after. */
static size_t queue_compact(struct sched *m)
{
    qorder_tighten(m, m->pl.last_now); /* the last pass's unread tail, in order */
    size_t w = 0, scanned = 0;
    for (size_t r = m->q.qhead; r < m->q.qlen; r++) {
        if (r == m->q.qscanned)
            scanned = w; /* where the scan stopped, in the compacted queue */
        if (m->q.queue[r])
            m->q.queue[w++] = m->q.queue[r];
    }
    if (m->q.qscanned >= m->q.qlen)
        scanned = w;
    m->q.qlen = w;
    m->q.qhead = 0;
    m->q.qscanned = scanned;
    return w;
}

struct job *const *sched_queue(const struct sched *s, long now, size_t *n)
{
    struct sched *m = (struct sched *)s;
    elig_unpark_all(m); /* the whole-queue walks' parked jobs, shown too */
    size_t w = queue_compact(m);
    if (m->el.eset)
        return eset_all(m, n); /* parked jobs too, all in priority order */
    *n = w;
    return qorder_look(m, now, w); /* the priorities commands show, at their time */
}

void sched_set_epoch(struct sched *s, long epoch)
{
    fs_set_epoch(s->fsh.fs, epoch);
    s->rs.epoch = epoch;
    s->rs.resv_gen++; /* standing reservations follow the calendar */
}

int sched_hold(struct sched *s, struct job *j, unsigned holds, struct err *err)
{
    holds &= HOLD_USER | HOLD_SYSTEM | HOLD_BATCH;
    if (j->state != JOB_IDLE)
        return err_set(err, "job %s is not idle", j->name);
    if (!holds)
        return err_set(err, "no hold type given (user, system or batch)");
    queue_hold(s, j, holds);
    return 0;
}

int sched_release(struct sched *s, struct job *j, unsigned holds, long now, struct err *err)
{
    if (j->state != JOB_IDLE)
        return err_set(err, "job %s is not idle", j->name);
    unsigned before = j->holds;
    j->holds &= ~holds;
    if ((holds & HOLD_DEFER) && j->deferred_until && !(j->flags & JOB_STARTDATE)) {
        /* Over now: the next eligibility walk ends it, as if DEFERTIME had
         * passed. */
        j->deferred_until = now > 0 ? now : 1;
        j->startcount = 0;
        if (!s->el.next_undefer || j->deferred_until < s->el.next_undefer)
            s->el.next_undefer = j->deferred_until;
    }
    s->el.nheld -= before && !j->holds && !j->deferred_until;
    /* FULLPOLICY: a held job's queue time is reset for as long as it is held
     * (Maui resets it at every iteration), so it starts again at the
     * release, not at the last iteration that saw the hold: a replay's
     * iterations are events, and a hold lifted hours after the last one would
     * otherwise count those hours (the "hold trick" the policy prevents). */
    if (before && !j->holds && s->pol.prio.accrual == ACCRUE_FULLPOLICY)
        elig_set_qtime(j, now);
    eset_touch(s, j);
    s->pl.replan = 1;
    s->el.elig_all = 1;
    return 0;
}

int sched_set_sysprio(struct sched *s, struct job *j, enum job_sysprio mode, long value,
                      struct err *err)
{
    if (j->state != JOB_IDLE)
        return err_set(err, "job %s is not idle", j->name);
    if (mode == SYSPRIO_ABSOLUTE && (value < 0 || value > 1000))
        return err_set(err, "system priority %ld out of range (0..1000)", value);
    s->el.nsysprio += (mode != SYSPRIO_NONE) - (j->sysprio_mode != SYSPRIO_NONE);
    j->sysprio_mode = mode;
    j->sysprio = mode == SYSPRIO_NONE ? 0 : value;
    s->pl.replan = 1;
    s->el.elig_all = 1;
    return 0;
}

int sched_limits_from_cfg(struct sched *s, const struct cfg *cfg, struct err *err)
{
    if (limits_load(s->lim.limits, cfg, err) < 0)
        return -1;
    s->lim.limits_gen++;
    s->pl.replan = 1;
    return 0;
}

const char *sched_job_blocked(const struct sched *s, const struct job *j)
{
    /* A hold blocks a job from the moment it is put on, before any
     * iteration has marked it (checkjob of a job just submitted with -h
     * said "insufficient idle processors" until the next one). */
    if (j->state != JOB_IDLE || (!(j->flags & JOB_BLOCKED) && !j->holds))
        return NULL;
    if (j->holds == HOLD_DEP)
        return "job has unsatisfied dependencies";
    if (j->holds == HOLD_SLOT)
        return "array slot limit: as many tasks of its array run as its %N allows";
    if (j->holds)
        return j->holds & HOLD_BATCH    ? "job has a batch hold"
               : j->holds & HOLD_SYSTEM ? "job has a system hold"
                                        : "job has a user hold";
    if (j->deferred_until && (j->flags & JOB_STARTDATE))
        return "job has not reached its requested start date";
    if (j->deferred_until)
        return "job is deferred: the resource manager could not start it";
    /* Reasons are put into words only when asked, once per plan. */
    struct sched *m = (struct sched *)s;
    if (m->el.reasons_gen != m->pl.plan_gen + 1) {
        elig_reasons(m);
        m->el.reasons_gen = m->pl.plan_gen + 1;
    }
    return j->blocked ? j->blocked : "blocked by policy";
}

const char *sched_job_listed_blocked(const struct sched *s, const struct job *j)
{
    if (j->state != JOB_IDLE)
        return NULL;
    if (j->wait == WAIT_REJECTED && j->wait_gen == s->pl.plan_gen)
        return "negative priority (REJECTNEGPRIOJOBS)";
    if (!(j->flags & JOB_BLOCKED) && !j->holds)
        return NULL;
    if ((j->flags & JOB_HARDOK) && !j->holds && !j->deferred_until)
        return NULL; /* over soft limits only */
    return sched_job_blocked(s, j);
}

size_t sched_count_idle(const struct sched *s, int blocked)
{
    size_t n = 0, len;
    elig_unpark_all((struct sched *)s); /* counted too */
    struct job *const *q = s->q.queue;  /* a count: in any order, no look's sort */
    if (s->el.eset)
        q = sched_queue(s, s->pl.last_now, &len); /* parked jobs too */
    else
        len = queue_compact((struct sched *)s);
    for (size_t i = 0; i < len; i++)
        if ((sched_job_listed_blocked(s, q[i]) != NULL) == (blocked != 0))
            n++;
    return n;
}

/* Move the job window past its forgotten prefix once that prefix is at
 * least half the window (and worth a move): each slot moves a bounded
 * number of times, so forgetting costs O(1) amortized. */
static void forget_prefix(struct sched *s)
{
    size_t n = s->njobs - s->jobs_base;
    while (s->jobs_head < n && !s->jobs[s->jobs_head])
        s->jobs_head++;
    if (s->jobs_head < 1024 || s->jobs_head * 2 < n)
        return;
    memmove(s->jobs, s->jobs + s->jobs_head, (n - s->jobs_head) * sizeof *s->jobs);
    s->jobs_base += s->jobs_head;
    s->jobs_head = 0;
}

int sched_job_forget(struct sched *s, struct job *j)
{
    if ((j->state != JOB_COMPLETED && j->state != JOB_REMOVED) || sched_job(s, j->order) != j)
        return -1;
    s->jobs[j->order - s->jobs_base] = NULL;
    forget_prefix(s);
    if (j->ndeps)
        dep_forget(s, j);
    /* The name index borrows the job's name: drop it, it is rebuilt when a
     * command next looks a job up (a replay without commands never builds it). */
    if (j->order < s->nindexed) {
        strmap_free(&s->jobs_byname);
        strmap_init(&s->jobs_byname);
        s->nindexed = 0;
    }
    /* The regions' last access answer is keyed by the job's address, which
     * a new job may get. */
    for (size_t g = 0; g < s->pl.nregions; g++)
        if (s->pl.regions[g].cj == j)
            s->pl.regions[g].cj = NULL;
    free_job(s, j);
    return 0;
}

int sched_start_undone(struct sched *s, struct job *j, long now, struct err *err)
{
    if (j->state != JOB_RUNNING)
        return err_set(err, "job %s is not running", j->name);
    fsacct_ended(s, j, j->start); /* a stop at its start: all it accrued goes back */
    return sched_requeue(s, j, now, err);
}

int sched_start_failed(struct sched *s, struct job *j, long now, struct err *err)
{
    if (sched_start_undone(s, j, now, err) < 0)
        return -1;
    iter_start_failed(s, j, now);
    return 0;
}
