/*
 * fit — whether a job could ever run on the scheduler's nodes
 * (sched_job_fit, sched.h): the size of the cluster, the shape of its nodes
 * (a task must fit on one node; a job with tasks per node needs that many
 * distinct nodes able to hold its share) and the throttling limits no
 * amount of waiting lifts (its request alone over a HARD limit, or over a
 * per-job limit), and the ACL of the reservation it names (ADVRES).
 *
 * The simulator's sched_submit refuses only the too-large: a replayed
 * workload keeps the rest and counts them as never started. The daemon
 * refuses whatever fails here, with the reason, rather than queue a job
 * that would wait for ever (showstart's "can never hold it").
 *
 * What it is not: a plan. Running jobs and reservations are not looked at
 * (they end); nodes that are down do not count (they are not there now).
 * Nothing in the scheduler changes: credentials the spec names that the
 * scheduler does not know are looked at as their DEFAULT objects.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sched_int.h"
#include "policy/fit.h"
#include "policy/limits.h"
#include "policy/resv.h"
#include "util/mem.h"

/* The job's required features, split as sched_submit splits them. */
struct feats {
    char *buf;
    char **v;
    size_t n, cap;
};

static void feats_parse(struct feats *f, const char *text)
{
    *f = (struct feats){.buf = xstrdup(text ? text : "")};
    char *save = NULL;
    for (char *w = strtok_r(f->buf, " \t,:[]", &save); w; w = strtok_r(NULL, " \t,:[]", &save)) {
        f->v = xgrow(f->v, &f->cap, f->n + 1, sizeof *f->v);
        f->v[f->n++] = w;
    }
}

static void feats_free(struct feats *f)
{
    free(f->buf);
    free(f->v);
}

/* Whether node n has every feature and is in the partition asked for. */
static int node_usable(const struct node *n, const struct job_spec *spec, const struct feats *f)
{
    for (size_t k = 0; k < f->n; k++)
        if (!node_has_feature(n, f->v[k]))
            return 0;
    return !spec->partition || strcmp(spec->partition, "ALL") == 0 ||
           strcmp(spec->partition, n->partition) == 0;
}

/* Memory the job needs on a node of mem MB beyond its tasks'. */
static long per_node_mem(const struct job_spec *spec, long mem)
{
    return spec->mem_per_node == JOB_MEM_WHOLE ? mem : spec->mem_per_node;
}

/* Tasks of the job a node of `cap` processors and `mem` MB (0: not known)
 * could hold on its own. */
static long node_tasks(const struct sched *s, const struct job_spec *spec, long cap, long mem)
{
    long ppt = spec->procs_per_task;
    long k = s->pol.naccess == NACCESS_SINGLETASK ? (cap >= ppt) : cap / ppt;
    if (mem > 0 && (spec->mem_per_task > 0 || spec->mem_per_node)) {
        long room = mem - per_node_mem(spec, mem);
        long m = room < spec->mem_per_task ? 0 : spec->mem_per_task ? room / spec->mem_per_task : k;
        k = m < k ? m : k;
    }
    if (spec->tpn)
        k = k >= spec->tpn ? spec->tpn : 0;
    return k;
}

/* " with its features" / " in partition P": what the nodes counted are. */
static void which_nodes(const struct job_spec *spec, const struct feats *f, char *buf, size_t n)
{
    int len = snprintf(buf, n, "%s", "");
    for (size_t k = 0; k < f->n && len >= 0 && (size_t)len < n; k++)
        len += snprintf(buf + len, n - (size_t)len, "%s%s", k ? "," : " with features ", f->v[k]);
    if (spec->partition && strcmp(spec->partition, "ALL") != 0 && len >= 0 && (size_t)len < n)
        snprintf(buf + len, n - (size_t)len, " in partition %s", spec->partition);
}

/* The up nodes the job may use: how many, the largest, and what they hold. */
struct shape {
    size_t usable;   /* up nodes with its features and partition */
    long largest;    /* processors of the largest of them */
    long most_mem;   /* memory of the one with the most, MB (0: none known) */
    int mem_unknown; /* one of them has no known memory (any request fits it) */
    long holding;    /* of them, nodes that can hold its tasks per node */
    long tasks_max;  /* tasks the one that holds most holds */
    long long tasks; /* tasks they could hold in all */
};

static void shape_of(const struct sched *s, const struct job_spec *spec, const struct feats *f,
                     unsigned what, struct shape *sh)
{
    long need = (spec->tpn ? spec->tpn : 1) * (long)spec->procs_per_task;
    *sh = (struct shape){0};
    for (size_t i = 0; i < s->nt.nnodes; i++) {
        /* Configured: as if every node were up (a resource manager's nodes
         * that are down now may come back). */
        long cap = (what & SCHED_FIT_CONFIGURED) ? s->nt.nodes[i].procs : s->nt.node_cap[i];
        long mem = (what & SCHED_FIT_CONFIGURED) ? s->nt.nodes[i].mem : s->nt.node_mem_cap[i];
        if (cap <= 0 || !node_usable(&s->nt.nodes[i], spec, f))
            continue;
        sh->usable++;
        sh->largest = cap > sh->largest ? cap : sh->largest;
        sh->most_mem = mem > sh->most_mem ? mem : sh->most_mem;
        sh->mem_unknown |= mem <= 0;
        long k = node_tasks(s, spec, cap, mem);
        sh->holding += cap >= need && k > 0;
        sh->tasks += k;
        sh->tasks_max = k > sh->tasks_max ? k : sh->tasks_max;
    }
}

/* The memory one task of the job (and its node's share) needs, over what
 * the largest node has: why no node holds one task. */
static int mem_too_big(const struct job_spec *spec, const struct shape *sh, const char *which,
                       struct err *err)
{
    if (sh->mem_unknown || sh->most_mem <= 0 || (!spec->mem_per_task && !spec->mem_per_node) ||
        spec->mem_per_node == JOB_MEM_WHOLE)
        return 0;
    long need = spec->mem_per_node + spec->mem_per_task * (spec->tpn > 1 ? spec->tpn : 1);
    if (need <= sh->most_mem)
        return 0;
    err_set(err, "needs %ld MB of memory on one node, the largest node%s has %ld MB", need, which,
            sh->most_mem);
    return 1;
}

static enum sched_fit fit_nodes(const struct sched *s, const struct job_spec *spec, unsigned what,
                                struct err *err)
{
    struct feats f;
    feats_parse(&f, spec->features);
    struct shape sh;
    shape_of(s, spec, &f, what, &sh);
    char which[160];
    which_nodes(spec, &f, which, sizeof which);
    feats_free(&f);
    long ppt = spec->procs_per_task;
    if (!sh.usable)
        err_set(err, "can use no node: no %snode%s", (what & SCHED_FIT_CONFIGURED) ? "" : "up ",
                which);
    else if (sh.largest < ppt)
        err_set(err, "needs %ld processors on one node, the largest node%s has %ld", ppt, which,
                sh.largest);
    else if (spec->tpn > 1 && s->pol.naccess == NACCESS_SINGLETASK)
        err_set(err, "needs %d tasks on each node, and NODEACCESSPOLICY SINGLETASK allows one",
                spec->tpn);
    else if (mem_too_big(spec, &sh, which, err))
        ;
    else if (spec->tpn && sh.holding * spec->tpn < spec->tasks)
        err_set(err, "needs %d distinct nodes of %ld processors, the cluster has %ld such node%s%s",
                spec->tasks / spec->tpn, spec->tpn * ppt, sh.holding, sh.holding == 1 ? "" : "s",
                which);
    else if (spec->max_nodes &&
             (long long)spec->max_nodes * (sh.tasks_max > 0 ? sh.tasks_max : 1) < spec->tasks)
        err_set(err, "asks for %d tasks of %ld processors on at most %d nodes, a node%s holds %ld",
                spec->tasks, ppt, spec->max_nodes, which, sh.tasks_max);
    else if (sh.tasks < spec->tasks && (spec->mem_per_task > 0 || spec->mem_per_node))
        err_set(err, "asks for %d tasks of %ld processors and %ld MB, the nodes%s can hold %lld",
                spec->tasks, ppt, spec->mem_per_task, which, sh.tasks);
    else if (sh.tasks < spec->tasks)
        err_set(err, "asks for %d tasks of %ld processors, the nodes%s can hold %lld", spec->tasks,
                ppt, which, sh.tasks);
    else
        return SCHED_FITS;
    return SCHED_NO_NODES;
}

/* The credential object `name` of kind k; one s does not know is looked at
 * as its DEFAULT object under that name (copied into *tmp). */
static struct cred *look(const struct sched *s, enum cred_kind k, const char *name,
                         struct cred *tmp)
{
    struct cred *c = name && *name ? cred_find(s->creds[k], name) : NULL;
    if (c)
        return c;
    *tmp = *cred_default(s->creds[k]);
    if (name && *name)
        tmp->name = (char *)name;
    return tmp;
}

/* The job spec asks for, as the limits see a job (name and request). */
static void limits_job(const struct sched *s, const struct job_spec *spec, struct job *j,
                       struct cred tmp[CRED_NKINDS])
{
    *j = (struct job){
        .name = (char *)(spec->name ? spec->name : ""),
        .partition = (char *)spec->partition,
        .user = look(s, CRED_USER, spec->user, &tmp[CRED_USER]),
        .group = look(s, CRED_GROUP, spec->group, &tmp[CRED_GROUP]),
        .account = look(s, CRED_ACCOUNT, spec->account, &tmp[CRED_ACCOUNT]),
        .class_ = look(s, CRED_CLASS, spec->class_, &tmp[CRED_CLASS]),
    };
    job_request_from_spec(j, spec);
    const struct cred *const c[4] = {j->user, j->group, j->account, j->class_};
    j->qos = look(s, CRED_QOS, sched_pick_qos(s, c, spec->qos), &tmp[CRED_QOS]);
}

static enum sched_fit fit_limits(const struct sched *s, const struct job_spec *spec,
                                 struct err *err)
{
    if (!limits_any(s->lim.limits))
        return SCHED_FITS;
    struct cred tmp[CRED_NKINDS];
    struct job j;
    limits_job(s, spec, &j, tmp);
    struct prio_env env;
    sched_prio_env(s, &env);
    double req[LIM_NTYPES];
    limits_request(&j, j.walltime, &env, req);
    char why[256];
    if (!limits_check_job(s->lim.limits, &j, &env, why, sizeof why) &&
        !limits_check_alone(s->lim.limits, &j, LIM_ACTIVE, LIM_HARD, req, why, sizeof why) &&
        !limits_check_alone(s->lim.limits, &j, LIM_IDLE, LIM_HARD, req, why, sizeof why))
        return SCHED_FITS;
    /* Maui's words name the job ("job 7 violates ..."); ours follow "the job". */
    char lead[96];
    snprintf(lead, sizeof lead, "job %s ", j.name);
    const char *text = strncmp(why, lead, strlen(lead)) == 0 ? why + strlen(lead) : why;
    err_set(err, "%s", text);
    return SCHED_OVER_LIMIT;
}

/* A job that names a reservation (ADVRES) runs only in it: one whose ACL
 * admits it at no start can never run. A name no reservation has is the
 * driver's business (the daemon refuses it before). */
static enum sched_fit fit_resv(const struct sched *s, const struct job_spec *spec, struct err *err)
{
    if (!spec->advres || !*spec->advres || !sched_resv_name_known(s, spec->advres))
        return SCHED_FITS;
    struct cred tmp[CRED_NKINDS];
    struct job j;
    limits_job(s, spec, &j, tmp);
    struct feats f;
    feats_parse(&f, spec->features);
    j.features = f.v;
    j.nfeatures = f.n;
    j.advres = (char *)spec->advres;
    if (spec->preemptee)
        j.flags |= JOB_ATTR_PREEMPTEE;
    char why[400];
    const char *refused = sched_job_advres_refused(s, &j, why, sizeof why);
    feats_free(&f);
    if (!refused)
        return SCHED_FITS;
    /* "it asks for ..." follows "the job" as "asks for ...". */
    err_set(err, "%s", strncmp(refused, "it ", 3) == 0 ? refused + 3 : refused);
    return SCHED_RESV_REFUSES;
}

enum sched_fit sched_job_fit(const struct sched *s, const struct job_spec *spec, unsigned what,
                             struct err *err)
{
    long long procs = (long long)spec->tasks * spec->procs_per_task;
    if ((what & SCHED_FIT_SIZE) && !(what & SCHED_FIT_CONFIGURED) && procs > s->nt.up_procs) {
        err_set(err, "asks for %lld processors, the cluster has %lld", procs, s->nt.up_procs);
        return SCHED_TOO_LARGE;
    }
    enum sched_fit r = SCHED_FITS;
    if (what & SCHED_FIT_NODES)
        r = fit_nodes(s, spec, what, err);
    if (r == SCHED_FITS && (what & SCHED_FIT_LIMITS))
        r = fit_limits(s, spec, err);
    if (r == SCHED_FITS && (what & SCHED_FIT_RESV))
        r = fit_resv(s, spec, err);
    return r;
}
