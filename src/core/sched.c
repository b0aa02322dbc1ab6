/*
 * sched — see sched.h. The scheduler object's tables (nodes, jobs,
 * credentials) as every layer reads them, and the helpers policy/ shares:
 * the priority environment, the QOS a job gets, MAXSUBMITJOBS, the kill
 * time, the queue's compaction. Nothing here calls above core/: the job
 * lifecycle is engine/engine.c, the queue's transitions policy/queue.c.
 */
#include "core/sched.h"

#include <stdlib.h>
#include <string.h>

#include "core/sched_int.h"
#include "util/mem.h"

void sched_set_rm(struct sched *s, const struct sched_rm *rm)
{
    if (rm)
        s->rm = *rm;
    else
        s->rm = (struct sched_rm){0};
}

void sched_job_note(struct sched *s, struct job *j, const char *text)
{
    (void)s;
    free(j->message);
    j->message = text ? xstrdup(text) : NULL;
}

size_t sched_nnodes(const struct sched *s)
{
    return s->nt.nnodes;
}

const struct node *sched_node(const struct sched *s, size_t i)
{
    return i < s->nt.nnodes ? &s->nt.nodes[i] : NULL;
}

int sched_node_used(const struct sched *s, size_t i)
{
    return i < s->nt.nnodes ? s->nt.node_used[i] : 0;
}

long long sched_up_procs(const struct sched *s)
{
    return s->nt.up_procs;
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
    if (!s->qdef_any)
        return NULL; /* no QDEF anywhere: a replay's every submission (8 reads and 4 calls) */
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

/* The credential named (NULL: DEFAULT) as it is, or its DEFAULT object
 * when not known yet. */
static const struct cred *cred_or_default(const struct sched *s, enum cred_kind k, const char *name)
{
    const struct cred *c = name ? cred_find(s->creds[k], name) : NULL;
    return c ? c : cred_find(s->creds[k], "DEFAULT");
}

/* Whether one more job of credential `name` of kind k would be over its
 * MAXSUBMITJOBS (its own, else its DEFAULT object's): -1 with err. */
static int over_submit(const struct sched *s, enum cred_kind k, const char *name, struct err *err)
{
    static const char *const kind[] = {"user", "group", "account", "class", "QOS"};
    const struct cred *c = cred_or_default(s, k, name);
    const struct cred *dflt = cred_find(s->creds[k], "DEFAULT");
    long limit = c && c->maxsubmit ? c->maxsubmit : dflt ? dflt->maxsubmit : 0;
    if (!limit)
        limit = s->lim.maxsubmit_default[k];
    /* A name not known yet has no jobs, whatever its DEFAULT object has. */
    long live = c && name && strcmp(c->name, name) == 0 ? c->live : 0;
    if (limit > 0 && live >= limit)
        return err_set(err, "%s %s already has %ld job%s queued or running (MAXSUBMITJOBS %ld)",
                       kind[k], name ? name : "DEFAULT", live, live == 1 ? "" : "s", limit);
    return 0;
}

void sched_default_maxsubmit(struct sched *s, enum cred_kind k, long n)
{
    s->lim.maxsubmit_default[k] = n > 0 ? n : 0;
    s->lim.maxsubmit_any |= n > 0;
}

int sched_submit_allowed(const struct sched *s, const struct job_spec *spec, struct err *err)
{
    if (!s->lim.maxsubmit_any)
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

long sched_find_node(const struct sched *s, const char *name)
{
    size_t idx;
    return strmap_get(&s->nt.nodes_byname, name, &idx) ? (long)idx : -1;
}

long sched_kill_time(const struct sched *s, const struct job *j)
{
    if (s->pol.overrun < 0)
        return AVAIL_NEVER;
    return j->start + j->walltime + s->pol.overrun;
}

void sched_prio_env(const struct sched *s, struct prio_env *env)
{
    /* Totals change only with the node table: compute them once, not for
     * every job whose priority is asked for. */
    struct sched *m = (struct sched *)s;
    if (!m->env_valid) {
        m->env = (struct prio_env){0};
        for (size_t i = 0; i < s->nt.nnodes; i++) {
            m->env.procs += s->nt.nodes[i].procs;
            m->env.mem += s->nt.nodes[i].mem;
            m->env.swap += s->nt.nodes[i].swap;
            m->env.disk += s->nt.nodes[i].disk;
        }
        for (int k = 0; k < CRED_NKINDS; k++)
            m->env.defaults[k] = cred_find(s->creds[k], "DEFAULT");
        m->env_valid = 1;
    }
    *env = m->env;
    env->qstop = s->el.elig_walked;
    env->poll = s->pol.poll;
}

void sched_set_full_walk(struct sched *s, int on)
{
    s->el.elig_full = on != 0;
}

struct fs *sched_fs(const struct sched *s)
{
    return s->fsh.fs;
}

int sched_order_is_static(const struct sched *s)
{
    return s->prio_static && !s->cred_weights && !s->el.nsysprio;
}

enum job_wait sched_wait_of(const struct sched *s, const struct job *j, unsigned long *gen)
{
    const struct bp_slot *b = j->bp_slot ? &s->pl.bp[j->bp_slot] : NULL;
    if (b && b->gen >= j->wait_gen) {
        *gen = b->gen;
        return job_procs(j) > b->free ? WAIT_RESOURCES : WAIT_DELAYS;
    }
    *gen = j->wait_gen;
    return j->wait;
}

enum job_wait sched_job_wait(const struct sched *s, const struct job *j)
{
    if (j->state != JOB_IDLE)
        return WAIT_NONE;
    unsigned long gen;
    enum job_wait w = sched_wait_of(s, j, &gen);
    if (gen == s->pl.plan_gen && w != WAIT_NONE)
        return w;
    /* Not reached by the last plan: it stopped (strict order) or ran out of
     * processors before this job. */
    return s->pl.plan_stopped ? WAIT_PRIORITY : WAIT_RESOURCES;
}

struct job *sched_find_job(const struct sched *s, const char *name)
{
    /* The name index is built on first use and brought up to date lazily:
     * only commands look jobs up by name, and a replay need not pay for it. */
    struct sched *m = (struct sched *)s;
    if (m->nindexed < m->jobs_base)
        m->nindexed = m->jobs_base;
    for (; m->nindexed < m->njobs; m->nindexed++) {
        const struct job *j = m->jobs[m->nindexed - m->jobs_base];
        if (j)
            strmap_put(&m->jobs_byname, j->name, m->nindexed);
    }
    size_t i;
    return strmap_get(&s->jobs_byname, name, &i) ? sched_job(s, i) : NULL;
}

long sched_last_iteration(const struct sched *s)
{
    return s->pl.last_now;
}

size_t sched_njobs(const struct sched *s)
{
    return s->njobs;
}

struct job *sched_job(const struct sched *s, size_t i)
{
    return i >= s->jobs_base && i < s->njobs ? s->jobs[i - s->jobs_base] : NULL;
}

size_t sched_nrunning(const struct sched *s)
{
    return s->pl.running.n;
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
    return s->lim.limits;
}

const struct sched_stats *sched_stats(const struct sched *s)
{
    return &s->stats;
}

void sched_compact_queue(struct sched *s)
{
    size_t w = 0;
    for (size_t r = s->q.qhead; r < s->q.qlen; r++)
        if (s->q.queue[r])
            s->q.queue[w++] = s->q.queue[r];
    s->q.qlen = w;
    s->q.qhead = 0;
}
