/*
 * sched — see sched.h. This file keeps the tables (nodes, jobs, credentials)
 * and the bookkeeping around job submission and completion; the scheduling
 * iteration itself lives in policy/iter.c, node choice in policy/alloc.c.
 */
#include "core/sched.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "core/sched_int.h"
#include "policy/fs.h"
#include "policy/nprio.h"
#include "util/mem.h"

static int running_less(const void *a, const void *b)
{
    const struct job *x = a, *y = b;
    return x->planned_end < y->planned_end;
}

static void running_setpos(void *e, size_t pos)
{
    ((struct job *)e)->heap_pos = pos;
}

void sched_set_rm(struct sched *s, const struct sched_rm *rm)
{
    if (rm)
        s->rm = *rm;
    else
        s->rm = (struct sched_rm){0};
}

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
    if (pol)
        s->pol = *pol;
    else
        sched_policy_default(&s->pol);
    if (rm)
        s->rm = *rm;
    s->prio_static = prio_order_is_submission(&s->pol.prio); /* the policy never changes */
    if (s->pol.nresgroups <= 1) {
        /* One group of every QOS: resdepth says how many (callers may set
         * just that field). */
        s->pol.nresgroups = 1;
        s->pol.resgroup[0].depth = s->pol.resdepth;
    }
    for (int k = 0; k < CRED_NKINDS; k++)
        s->creds[k] = cred_table_create(k);
    heap_init(&s->running, running_less, running_setpos);
    s->limits = limits_create();
    s->fs = fs_create(&s->pol.fs, 0);
    s->limits_gen = 1;
    strmap_init(&s->nodes_byname);
    strmap_init(&s->jobs_byname);
    s->avail = avail_create(0, LONG_MIN / 4);
    plan_init(s);
    s->last_now = LONG_MIN / 4;
    s->lift_at = AVAIL_NEVER;
    s->again_at = AVAIL_NEVER;
    s->replan = 1;
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

static void free_job(struct job *j)
{
    free(j->blocked);
    for (size_t i = 0; i < j->nfeatures; i++)
        free(j->features[i]);
    free(j->features);
    free(j->name);
    free(j->partition);
    free(j->slots);
    free(j->takes);
    free(j->charges);
    free(j->advres);
    free(j->message);
    free(j);
}

void sched_job_note(struct sched *s, struct job *j, const char *text)
{
    (void)s;
    free(j->message);
    j->message = text ? xstrdup(text) : NULL;
}

void sched_destroy(struct sched *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->nnodes; i++)
        free_node(&s->nodes[i]);
    free(s->nodes);
    strmap_free(&s->nodes_byname);
    free(s->freemap);
    free(s->node_cap);
    free(s->node_used);
    free(s->node_jobs);
    free(s->node_user);
    free(s->node_mem_cap);
    free(s->node_mem_used);
    free(s->node_excl);
    free(s->node_order);
    free(s->suspended);
    free(s->cand);
    trig_free_all(s);
    for (size_t i = 0; i < s->nresvs; i++)
        resv_free(s->resvs[i]);
    free(s->resvs);
    resv_bury(s);
    free(s->dead);
    for (size_t i = 0; i < s->nseqs; i++)
        free(s->seqs[i].base);
    free(s->seqs);
    srcfg_free(s->srdefs, s->nsrdefs);
    free(s->srwant);
    plan_destroy(s);
    for (size_t i = 0; i < s->njobs; i++)
        if (s->jobs[i])
            free_job(s->jobs[i]);
    free(s->jobs);
    strmap_free(&s->jobs_byname);
    for (int k = 0; k < CRED_NKINDS; k++)
        cred_table_destroy(s->creds[k]);
    free(s->queue);
    eset_free(s->eset);
    free(s->resv);
    free(s->blocked);
    heap_free(&s->running);
    avail_destroy(s->avail);
    limits_destroy(s->limits);
    fs_destroy(s->fs);
    sort_buf_free(&s->sortbuf);
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
    s->nodes = xgrow(s->nodes, &s->capnodes, s->nnodes + 1, sizeof *s->nodes);
    struct node *n = &s->nodes[s->nnodes];
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
        s->prio_dynamic = 1;
    parse_features(&n->features, &n->nfeatures, spec->features);
    /* The key is the node's own heap string, which stays put when the node
     * table is reallocated. */
    strmap_put(&s->nodes_byname, n->name, s->nnodes);
    size_t words = (s->nnodes + 64) / 64;
    s->freemap = xrealloc(s->freemap, words * sizeof *s->freemap);
    if (s->nnodes % 64 == 0)
        s->freemap[words - 1] = 0;
    s->node_cap = xrealloc(s->node_cap, s->capnodes * sizeof *s->node_cap);
    s->node_used = xrealloc(s->node_used, s->capnodes * sizeof *s->node_used);
    s->node_jobs = xrealloc(s->node_jobs, s->capnodes * sizeof *s->node_jobs);
    s->node_user = xrealloc(s->node_user, s->capnodes * sizeof *s->node_user);
    s->node_mem_cap = xrealloc(s->node_mem_cap, s->capnodes * sizeof *s->node_mem_cap);
    s->node_mem_used = xrealloc(s->node_mem_used, s->capnodes * sizeof *s->node_mem_used);
    s->node_excl = xrealloc(s->node_excl, s->capnodes * sizeof *s->node_excl);
    s->node_mem_used[s->nnodes] = 0;
    s->node_excl[s->nnodes] = 0;
    s->node_cap[s->nnodes] = n->state == NODE_UP ? n->procs : 0;
    s->node_used[s->nnodes] = 0;
    s->node_jobs[s->nnodes] = 0;
    s->node_user[s->nnodes] = NULL;
    s->nnodes++;
    if (n->state == NODE_UP) {
        s->up_procs += n->procs;
        avail_add_total(s->avail, n->procs);
    }
    alloc_node_changed(s, s->nnodes - 1);
    plan_nodes_changed(s);
    s->env_valid = 0;
    s->limits_gen++; /* processor equivalents depend on the cluster */
    s->replan = 1;
}

void sched_node_set_state(struct sched *s, size_t i, enum node_state st, const char *reason)
{
    struct node *n = &s->nodes[i];
    free(n->reason);
    n->reason = reason && *reason ? xstrdup(reason) : NULL;
    if (n->state == st)
        return;
    int was_up = n->state == NODE_UP, up = st == NODE_UP;
    n->state = st;
    if (was_up != up) {
        long long d = up ? n->procs : -n->procs;
        s->up_procs += d;
        avail_add_total(s->avail, d);
    }
    alloc_node_changed(s, i);
    plan_nodes_changed(s);
    s->env_valid = 0;
    s->limits_gen++; /* processor equivalents depend on the cluster */
    s->replan = 1;
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
    if (strmap_get(&s->nodes_byname, spec->name, NULL))
        return err_set(err, "node '%s' is defined twice", spec->name);
    append_node(s, spec);
    return 0;
}

size_t sched_nnodes(const struct sched *s)
{
    return s->nnodes;
}

const struct node *sched_node(const struct sched *s, size_t i)
{
    return i < s->nnodes ? &s->nodes[i] : NULL;
}

int sched_node_used(const struct sched *s, size_t i)
{
    return i < s->nnodes ? s->node_used[i] : 0;
}

long long sched_up_procs(const struct sched *s)
{
    return s->up_procs;
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
    if (!spec->any_size && sched_job_fit(s, spec, SCHED_FIT_SIZE, &e) != SCHED_FITS)
        return err_set(err, "job %s: %s", name, e.msg);
    return 0;
}

static void queue_append(struct sched *s, struct job *j)
{
    /* Appending keeps submission order unless this job was submitted
     * earlier than the last one queued (a driver replaying unsorted input). */
    if (s->qlen && s->queue[s->qlen - 1] && s->queue[s->qlen - 1]->submit > j->submit)
        s->unsorted = 1;
    s->queue = xgrow(s->queue, &s->qcap, s->qlen + 1, sizeof *s->queue);
    s->queue[s->qlen++] = j;
    s->qidle++;
    eset_add(s, j);
}

/* Whether any credential restricts QOS access (a QLIST anywhere). */
static int qos_restricted(const struct sched *s)
{
    for (int k = CRED_USER; k <= CRED_CLASS; k++)
        for (size_t i = 0; i < cred_count(s->creds[k]); i++)
            if (cred_at(s->creds[k], i)->nqlist)
                return 1;
    return 0;
}

static const char *default_qos(const struct sched *s, const struct cred *const c[4])
{
    for (int k = 0; k < 4; k++)
        if (c[k]->qdef)
            return c[k]->qdef;
    for (int k = CRED_USER; k <= CRED_CLASS; k++) {
        const struct cred *d = cred_default(s->creds[k]);
        if (d->qdef)
            return d->qdef;
    }
    return NULL; /* the DEFAULT QOS */
}

const char *sched_pick_qos(const struct sched *s, const struct cred *const c[4], const char *want)
{
    if (want && *want) {
        int ok = !qos_restricted(s);
        for (int k = 0; k < 4 && !ok; k++)
            ok = cred_allows_qos(c[k], want) || (c[k]->qdef && strcmp(c[k]->qdef, want) == 0);
        if (ok)
            return want;
    }
    return default_qos(s, c);
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
    s->replan = 1;
    s->elig_all = 1;
    s->limits_gen++; /* per-job limits depend on the QOS */
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
    s->replan = 1;
    s->elig_all = 1;
    s->limits_gen++; /* per-job limits (MAX.WCLIMIT) depend on it */
    return 0;
}

/* A requested start date works like a deferral that ends then (policy/elig.c
 * lifts it), shown as Idle with its own reason. */
static void wait_for_start_date(struct sched *s, struct job *j, long when)
{
    s->nheld += !j->holds;
    j->deferred_until = when;
    j->flags |= JOB_STARTDATE;
    if (!s->next_undefer || when < s->next_undefer)
        s->next_undefer = when;
    s->replan = 1;
    s->elig_all = 1;
}

/* The credential named (NULL: DEFAULT) as it is, or its DEFAULT object
 * when not known yet. */
static const struct cred *cred_or_default(const struct sched *s, enum cred_kind k,
                                          const char *name)
{
    const struct cred *c = name ? cred_find(s->creds[k], name) : NULL;
    return c ? c : cred_find(s->creds[k], "DEFAULT");
}

/* Whether one more job of credential `name` of kind k would be over its
 * MAXSUBMITJOBS (its own, else its DEFAULT object's): -1 with err. */
static int over_submit(const struct sched *s, enum cred_kind k, const char *name,
                       struct err *err)
{
    static const char *const kind[] = {"user", "group", "account", "class", "QOS"};
    const struct cred *c = cred_or_default(s, k, name);
    const struct cred *dflt = cred_find(s->creds[k], "DEFAULT");
    long limit = c && c->maxsubmit ? c->maxsubmit : dflt ? dflt->maxsubmit : 0;
    if (!limit)
        limit = s->maxsubmit_default[k];
    /* A name not known yet has no jobs, whatever its DEFAULT object has. */
    long live = c && name && strcmp(c->name, name) == 0 ? c->live : 0;
    if (limit > 0 && live >= limit)
        return err_set(err, "%s %s already has %ld job%s queued or running (MAXSUBMITJOBS %ld)",
                       kind[k], name ? name : "DEFAULT", live, live == 1 ? "" : "s", limit);
    return 0;
}

void sched_default_maxsubmit(struct sched *s, enum cred_kind k, long n)
{
    s->maxsubmit_default[k] = n > 0 ? n : 0;
    s->maxsubmit_any |= n > 0;
}

int sched_submit_allowed(const struct sched *s, const struct job_spec *spec, struct err *err)
{
    if (!s->maxsubmit_any)
        return 0; /* no MAXSUBMITJOBS anywhere: no name to look up per submission */
    const char *names[] = {spec->user, spec->group, spec->account, spec->class_};
    const struct cred *c[4];
    for (int k = 0; k < 4; k++) {
        if (over_submit(s, (enum cred_kind)k, names[k], err) < 0)
            return -1;
        c[k] = cred_or_default(s, (enum cred_kind)k, names[k]);
    }
    /* The QOS the job would get (sched_submit's rule). */
    const char *qos = sched_pick_qos(s, c, spec->qos);
    return over_submit(s, CRED_QOS, qos ? qos : "DEFAULT", err);
}

struct job *sched_submit(struct sched *s, const struct job_spec *spec, struct err *err)
{
    if (check_job_spec(s, spec, err) < 0)
        return NULL;
    struct job *j = xcalloc(1, sizeof *j);
    *j = (struct job){
        .name = xstrdup(spec->name ? spec->name : ""),
        .order = s->njobs,
        .submit = spec->submit,
        .qtime_start = spec->submit,
        .user = cred_get(s->creds[CRED_USER], spec->user),
        .group = cred_get(s->creds[CRED_GROUP], spec->group),
        .account = cred_get(s->creds[CRED_ACCOUNT], spec->account),
        .class_ = cred_get(s->creds[CRED_CLASS], spec->class_),
        .partition = spec->partition ? xstrdup(spec->partition) : NULL,
        .state = JOB_IDLE,
        .resv_start = -1,
        .heap_pos = SIZE_MAX,
        .epos = SIZE_MAX,
        .tag = spec->tag,
        .holds = spec->holds & (HOLD_USER | HOLD_SYSTEM | HOLD_BATCH),
        .util = !spec->util_known || !(spec->util >= 0) ? -1 : spec->util < 1 ? spec->util : 1,
        .exit_status = -1,
    };
    job_request_from_spec(j, spec);
    if (j->holds) {
        s->nheld++;
        s->replan = 1; /* the incremental scan does not look at holds */
    }
    if (spec->start_after > spec->submit)
        wait_for_start_date(s, j, spec->start_after);
    parse_features(&j->features, &j->nfeatures, spec->features);
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
    s->jobs = xgrow(s->jobs, &s->capjobs, s->njobs + 1, sizeof *s->jobs);
    s->jobs[s->njobs++] = j;
    queue_append(s, j);
    return j;
}

/* Job j has ended (or was removed): its credentials' live counts drop. */
static void left_system(struct job *j)
{
    struct cred *const all[] = {j->user, j->group, j->account, j->class_, j->qos};
    for (size_t k = 0; k < 5; k++)
        all[k]->live--;
}

/* Take idle job j out of the queue's bookkeeping (it leaves the queue). */
static void leave_queue(struct sched *s, struct job *j)
{
    for (size_t i = s->qhead; i < s->qlen && !eset_parked(s, j); i++)
        if (s->queue[i] == j) {
            s->queue[i] = NULL;
            s->qidle--;
            break;
        }
    eset_remove(s, j, 0);
    if (j->flags & JOB_RESERVED)
        plan_unhold(s, j);
    j->resv_start = -1;
    j->flags &= ~(unsigned)(JOB_RESERVED | JOB_STARTDATE);
    if (j->holds || j->deferred_until)
        s->nheld--;
    if (j->sysprio_mode != SYSPRIO_NONE)
        s->nsysprio--;
    elig_unblock(s, j);
    s->replan = 1;
}

struct job *sched_add_ended(struct sched *s, const struct job_spec *spec, long start, long end,
                            int removed, int exit_status, struct err *err)
{
    /* Checked like a submission, then taken out of the queue at once: the
     * job is history, it holds nothing and is never planned. */
    struct job *j = sched_submit(s, spec, err);
    if (!j)
        return NULL;
    leave_queue(s, j);
    left_system(j);
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
    leave_queue(s, j);
    left_system(j);
    j->state = JOB_REMOVED;
    j->end = now;
    return 0;
}

int sched_adopt(struct sched *s, struct job *j, long start, const struct job_slot *slots,
                size_t n, struct err *err)
{
    if (j->state != JOB_IDLE)
        return err_set(err, "job %s is not idle", j->name);
    if (alloc_exact(s, j, slots, n) < 0)
        return err_set(err, "job %s: its nodes are not in the node table", j->name);
    if (s->multi)
        alloc_charge(s, j, start > s->last_now ? start : s->last_now);
    leave_queue(s, j);
    long from = start > s->last_now ? start : s->last_now; /* the profile's past is gone */
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
        if (slots[k].nnodes == 0 || (size_t)slots[k].node + slots[k].nnodes > s->nnodes)
            return err_set(err, "job %s: its nodes are not in the node table", j->name);
    if (s->regions_gen != s->resv_gen)
        iter_rebuild(s, now); /* the regions name what the nodes are now */
    long from = now > s->last_now ? now : s->last_now;
    plan_unrun(s, j, j->start, j->planned_end);
    alloc_release(s, j);
    alloc_exact(s, j, slots, n); /* checked above: cannot fail */
    if (s->multi)
        alloc_charge(s, j, from);
    plan_run(s, j, from, j->planned_end > from ? j->planned_end : from + 1);
    s->replan = 1;
    return 0;
}

int sched_runjob(struct sched *s, struct job *j, long now, struct err *err)
{
    if (j->state != JOB_IDLE)
        return err_set(err, "job %s is not idle", j->name);
    if (s->regions_gen != s->resv_gen)
        iter_rebuild(s, now); /* a reservation released since the last iteration is gone */
    long long free_procs = 0;
    for (size_t i = 0; i < s->nnodes; i++)
        free_procs += s->node_cap[i] > s->node_used[i] ? s->node_cap[i] - s->node_used[i] : 0;
    if (free_procs < job_procs(j))
        return err_set(err, "job cannot run  (insufficient idle procs:  %lld needed  %lld available)",
                       job_procs(j), free_procs);
    /* Out of the queue first, as a start in an iteration takes it out. */
    leave_queue(s, j);
    if (iter_force_start(s, j, now) < 0) {
        queue_append(s, j); /* back as it was, counted again */
        s->nheld += j->holds || j->deferred_until;
        s->nsysprio += j->sysprio_mode != SYSPRIO_NONE;
        return err_set(err, "job '%s' cannot be started on %lld procs", j->name, job_procs(j));
    }
    return 0;
}

long sched_find_node(const struct sched *s, const char *name)
{
    size_t idx;
    return strmap_get(&s->nodes_byname, name, &idx) ? (long)idx : -1;
}

static void job_stops(struct sched *s, struct job *j, long now);

int sched_requeue(struct sched *s, struct job *j, long now, struct err *err)
{
    if (j->state != JOB_RUNNING)
        return err_set(err, "job %s is not running", j->name);
    job_stops(s, j, now);
    j->state = JOB_IDLE;
    j->end = 0;
    j->start = 0;
    j->flags &= ~(unsigned)(JOB_BACKFILLED | JOB_SPVIOLATION | JOB_PREEMPTEE);
    elig_set_qtime(j, now); /* its queue time starts again */
    queue_append(s, j);
    s->replan = 1;
    s->elig_all = 1;
    return 0;
}

/* j stops running at now: ended, or requeued (its run is over either way). */
static void job_stops(struct sched *s, struct job *j, long now)
{
    if (j->flags & JOB_PREEMPTED) {
        preempt_forget(s, j); /* suspended: it holds nothing */
    } else {
        plan_unrun(s, j, j->start, j->planned_end);
        heap_remove(&s->running, j->heap_pos);
        alloc_release(s, j);
        fsacct_ended(s, j, now);
    }
    left_system(j);
    j->state = JOB_COMPLETED;
    j->end = now;
    s->last_end = now;
    /* Processors came free: every waiting job deserves another look. */
    s->replan = 1;
}

void sched_job_ended(struct sched *s, struct job *j, long now)
{
    if (j->state != JOB_RUNNING)
        return;
    resv_job_done(s, j, now); /* before its charges go: SINGLEUSE reservations it used */
    job_stops(s, j, now);
}

long sched_kill_time(const struct sched *s, const struct job *j)
{
    if (s->pol.overrun < 0)
        return AVAIL_NEVER;
    return j->start + j->walltime + s->pol.overrun;
}

void sched_iterate(struct sched *s, long now)
{
    iter_run(s, now);
}

void sched_accrue(struct sched *s, long now)
{
    if (now > fs_now(s->fs))
        fsacct_iterate(s, now);
}

void sched_prio_env(const struct sched *s, struct prio_env *env)
{
    /* Totals change only with the node table: compute them once, not for
     * every job whose priority is asked for. */
    struct sched *m = (struct sched *)s;
    if (!m->env_valid) {
        m->env = (struct prio_env){0};
        for (size_t i = 0; i < s->nnodes; i++) {
            m->env.procs += s->nodes[i].procs;
            m->env.mem += s->nodes[i].mem;
            m->env.swap += s->nodes[i].swap;
            m->env.disk += s->nodes[i].disk;
        }
        for (int k = 0; k < CRED_NKINDS; k++)
            m->env.defaults[k] = cred_find(s->creds[k], "DEFAULT");
        m->env_valid = 1;
    }
    *env = m->env;
    env->qstop = s->elig_walked;
    env->poll = s->pol.poll;
}

void sched_set_full_walk(struct sched *s, int on)
{
    s->elig_full = on != 0;
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

struct job *const *sched_queue(const struct sched *s, size_t *n)
{
    /* Holes are compacted away on demand: commands see only live jobs. */
    struct sched *m = (struct sched *)s;
    size_t w = 0, scanned = 0;
    for (size_t r = m->qhead; r < m->qlen; r++) {
        if (r == m->qscanned)
            scanned = w; /* where the scan stopped, in the compacted queue */
        if (m->queue[r])
            m->queue[w++] = m->queue[r];
    }
    if (m->qscanned >= m->qlen)
        scanned = w;
    m->qlen = w;
    m->qhead = 0;
    m->qscanned = scanned;
    if (m->eset)
        return eset_all(m, n); /* parked jobs too, all in priority order */
    *n = w;
    return m->queue;
}

struct fs *sched_fs(const struct sched *s)
{
    return s->fs;
}

void sched_set_epoch(struct sched *s, long epoch)
{
    fs_set_epoch(s->fs, epoch);
    s->epoch = epoch;
    s->resv_gen++; /* standing reservations follow the calendar */
}

int sched_order_is_static(const struct sched *s)
{
    return s->prio_static && !s->cred_weights && !s->nsysprio;
}

int sched_hold(struct sched *s, struct job *j, unsigned holds, struct err *err)
{
    holds &= HOLD_USER | HOLD_SYSTEM | HOLD_BATCH;
    if (j->state != JOB_IDLE)
        return err_set(err, "job %s is not idle", j->name);
    if (!holds)
        return err_set(err, "no hold type given (user, system or batch)");
    s->nheld += !j->holds && !j->deferred_until;
    j->holds |= holds;
    s->replan = 1;
    s->elig_all = 1;
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
        if (!s->next_undefer || j->deferred_until < s->next_undefer)
            s->next_undefer = j->deferred_until;
    }
    s->nheld -= before && !j->holds && !j->deferred_until;
    /* FULLPOLICY: a held job's queue time is reset for as long as it is held
     * (Maui resets it at every iteration), so it starts again at the
     * release, not at the last iteration that saw the hold: a replay's
     * iterations are events, and a hold lifted hours after the last one would
     * otherwise count those hours (the "hold trick" the policy prevents). */
    if (before && !j->holds && s->pol.prio.accrual == ACCRUE_FULLPOLICY)
        elig_set_qtime(j, now);
    eset_touch(s, j);
    s->replan = 1;
    s->elig_all = 1;
    return 0;
}

int sched_set_sysprio(struct sched *s, struct job *j, enum job_sysprio mode, long value,
                      struct err *err)
{
    if (j->state != JOB_IDLE)
        return err_set(err, "job %s is not idle", j->name);
    if (mode == SYSPRIO_ABSOLUTE && (value < 0 || value > 1000))
        return err_set(err, "system priority %ld out of range (0..1000)", value);
    s->nsysprio += (mode != SYSPRIO_NONE) - (j->sysprio_mode != SYSPRIO_NONE);
    j->sysprio_mode = mode;
    j->sysprio = mode == SYSPRIO_NONE ? 0 : value;
    s->replan = 1;
    s->elig_all = 1;
    return 0;
}

int sched_limits_from_cfg(struct sched *s, const struct cfg *cfg, struct err *err)
{
    if (limits_load(s->limits, cfg, err) < 0)
        return -1;
    s->limits_gen++;
    s->replan = 1;
    return 0;
}

const char *sched_job_blocked(const struct sched *s, const struct job *j)
{
    if (j->state != JOB_IDLE || !(j->flags & JOB_BLOCKED))
        return NULL;
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
    if (m->reasons_gen != m->plan_gen + 1) {
        elig_reasons(m);
        m->reasons_gen = m->plan_gen + 1;
    }
    return j->blocked ? j->blocked : "blocked by policy";
}

const char *sched_job_listed_blocked(const struct sched *s, const struct job *j)
{
    if (j->state != JOB_IDLE)
        return NULL;
    if (j->wait == WAIT_REJECTED && j->wait_gen == s->plan_gen)
        return "negative priority (REJECTNEGPRIOJOBS)";
    if (!(j->flags & JOB_BLOCKED))
        return NULL;
    if ((j->flags & JOB_HARDOK) && !j->holds && !j->deferred_until)
        return NULL; /* over soft limits only */
    return sched_job_blocked(s, j);
}

size_t sched_count_idle(const struct sched *s, int blocked)
{
    size_t n = 0, len;
    struct job *const *q = sched_queue(s, &len);
    for (size_t i = 0; i < len; i++)
        if ((sched_job_listed_blocked(s, q[i]) != NULL) == (blocked != 0))
            n++;
    return n;
}

enum job_wait sched_job_wait(const struct sched *s, const struct job *j)
{
    if (j->state != JOB_IDLE)
        return WAIT_NONE;
    if (j->wait_gen == s->plan_gen && j->wait != WAIT_NONE)
        return j->wait;
    /* Not reached by the last plan: it stopped (strict order) or ran out of
     * processors before this job. */
    return s->plan_stopped ? WAIT_PRIORITY : WAIT_RESOURCES;
}

struct job *sched_find_job(const struct sched *s, const char *name)
{
    /* The name index is built on first use and brought up to date lazily:
     * only commands look jobs up by name, and a replay need not pay for it. */
    struct sched *m = (struct sched *)s;
    for (; m->nindexed < m->njobs; m->nindexed++)
        if (m->jobs[m->nindexed])
            strmap_put(&m->jobs_byname, m->jobs[m->nindexed]->name, m->nindexed);
    size_t i;
    return strmap_get(&s->jobs_byname, name, &i) ? s->jobs[i] : NULL;
}

long sched_last_iteration(const struct sched *s)
{
    return s->last_now;
}

size_t sched_njobs(const struct sched *s)
{
    return s->njobs;
}

struct job *sched_job(const struct sched *s, size_t i)
{
    return i < s->njobs ? s->jobs[i] : NULL;
}

int sched_job_forget(struct sched *s, struct job *j)
{
    if ((j->state != JOB_COMPLETED && j->state != JOB_REMOVED) || j->order >= s->njobs ||
        s->jobs[j->order] != j)
        return -1;
    s->jobs[j->order] = NULL;
    /* The name index borrows the job's name: drop it, it is rebuilt when a
     * command next looks a job up (a replay without commands never builds it). */
    if (j->order < s->nindexed) {
        strmap_free(&s->jobs_byname);
        strmap_init(&s->jobs_byname);
        s->nindexed = 0;
    }
    /* The regions' last access answer is keyed by the job's address, which
     * a new job may get. */
    for (size_t g = 0; g < s->nregions; g++)
        if (s->regions[g].cj == j)
            s->regions[g].cj = NULL;
    free_job(j);
    return 0;
}

size_t sched_nidle(const struct sched *s)
{
    return s->qidle + eset_nparked(s);
}

size_t sched_nrunning(const struct sched *s)
{
    return s->running.n;
}

struct cred_table *sched_creds(const struct sched *s, enum cred_kind kind)
{
    return kind < CRED_NKINDS ? s->creds[kind] : NULL;
}

const struct sched_policy *sched_policy(const struct sched *s)
{
    return &s->pol;
}

const struct limits *sched_limits(const struct sched *s)
{
    return s->limits;
}

const struct sched_stats *sched_stats(const struct sched *s)
{
    return &s->stats;
}
