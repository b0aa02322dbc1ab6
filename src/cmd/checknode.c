/*
 * checknode — one node in detail (digest §7.3; Maui 3.3.1 MNode.c
 * MNodeShowState): its state, configured and dedicated resources, features,
 * partition, and the jobs running on it, each with its processors there and
 * its time window relative to now (Maui lists them as the node's job
 * reservations, then a JobList line).
 *
 * State: Down or Drained as configured; an up node is Idle with no
 * processor dedicated, Busy with all of them, Running in between (Maui's
 * node states from its dedicated resources).
 *
 * Where moku differs: moku does not model what the other lines of Maui's
 * checknode show, so they are left out rather than filled with inventions:
 * the time in the current state (`(in current state for ...)`), the expected
 * state, utilised resources and load (no measurement of use), opsys, arch,
 * speed, network, resource manager, classes, node limits, the total/up/active
 * times and alerts. The reservations listed are the running jobs' own, then
 * the administrative and standing reservations on the node (showres.c).
 * `(xN)` is processors on this node (Maui: tasks there).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd_int.h"
#include "util/mem.h"

/* A running job's share of the node. */
struct node_job {
    const struct job *j;
    long long procs;
};

/* What both layouts print. */
struct nodeview {
    const struct cmd_ctx *c;
    size_t idx;
    const struct node *n;
    int used;              /* processors dedicated to running jobs */
    long long ded_mem;     /* MB dedicated to those jobs' tasks on this node */
    long long ded_swap;    /* MB */
    long long ded_disk;    /* MB */
    struct node_job *jobs; /* in job-table (submission) order; owned */
    size_t njobs;
};

/* Job j holds p processors and mem MB of v's node (mem 0: not booked). */
static void view_add_job(struct nodeview *v, size_t *cap, const struct job *j, long long p,
                         long long mem)
{
    v->jobs = xgrow(v->jobs, cap, v->njobs + 1, sizeof *v->jobs);
    v->jobs[v->njobs++] = (struct node_job){.j = j, .procs = p};
    /* Memory, swap and disk are asked per task: a task's share follows
     * its processors here, unless the node books the job's memory (as
     * placed, or as the resource manager gave it). */
    long long tasks = p / (j->procs_per_task > 0 ? j->procs_per_task : 1);
    v->ded_mem += mem > 0 ? mem : tasks * j->mem_per_task;
    v->ded_swap += tasks * j->swap_per_task;
    v->ded_disk += tasks * j->disk_per_task;
}

static void view_init(struct nodeview *v, const struct cmd_ctx *c, size_t idx)
{
    *v = (struct nodeview){
        .c = c, .idx = idx, .n = sched_node(c->s, idx), .used = sched_node_used(c->s, idx)};
}

/* The view of one node: a pass over the jobs. */
static void view_one(struct nodeview *v, const struct cmd_ctx *c, size_t idx)
{
    size_t cap = 0;
    view_init(v, c, idx);
    for (size_t i = 0; i < sched_njobs(c->s); i++) {
        const struct job *j = sched_job(c->s, i);
        long long p = j && j->state == JOB_RUNNING ? cmd_job_procs_on(j, idx) : 0;
        if (p > 0)
            view_add_job(v, &cap, j, p, cmd_job_mem_on(j, idx));
    }
}

/* The views of every node (checknode ALL): one pass over the jobs and
 * their slots, not one per node. Caller frees each view's jobs and the
 * array. */
static struct nodeview *view_all(const struct cmd_ctx *c, size_t *n)
{
    *n = sched_nnodes(c->s);
    struct nodeview *v = xcalloc(*n ? *n : 1, sizeof *v);
    size_t *cap = xcalloc(*n ? *n : 1, sizeof *cap);
    for (size_t k = 0; k < *n; k++)
        view_init(&v[k], c, k);
    for (size_t i = 0; i < sched_njobs(c->s); i++) {
        const struct job *j = sched_job(c->s, i);
        if (!j || j->state != JOB_RUNNING)
            continue;
        for (size_t k = 0; k < j->nslots; k++) {
            const struct job_slot *sl = &j->slots[k];
            for (size_t x = sl->node; x < sl->node + sl->nnodes && x < *n; x++)
                view_add_job(&v[x], &cap[x], j, sl->procs, sl->mem);
        }
    }
    free(cap);
    return v;
}

static const char *view_state(const struct nodeview *v)
{
    if (v->n->state != NODE_UP)
        return node_state_name(v->n->state); /* Down, Drained */
    if (v->used <= 0)
        return "Idle";
    return v->used >= v->n->procs ? "Busy" : "Running";
}

/* Processors a job could still get here: none on a node that is not up. */
static long long view_free(const struct nodeview *v)
{
    if (v->n->state != NODE_UP || v->used >= v->n->procs)
        return 0;
    return v->n->procs - v->used;
}

/* ---- text ---- */

static void text_features(struct cmd_buf *b, const struct node *n)
{
    if (n->nfeatures == 0) {
        cmd_buf_puts(b, "[NONE]");
        return;
    }
    for (size_t i = 0; i < n->nfeatures; i++)
        cmd_buf_printf(b, "[%s]", n->features[i]);
}

/* Configured resources show every kind, dedicated ones only those in use
 * (`[NONE]` when nothing is), as Maui prints its resource strings. */
static void text_resources(struct cmd_buf *b, const struct nodeview *v)
{
    const struct node *n = v->n;
    cmd_buf_printf(b, "Configured Resources: PROCS: %d  MEM: %ldM  SWAP: %ldM  DISK: %ldM\n",
                   n->procs, n->mem, n->swap, n->disk);
    cmd_buf_puts(b, "Dedicated  Resources:");
    if (v->used <= 0 && v->ded_mem <= 0 && v->ded_swap <= 0 && v->ded_disk <= 0) {
        cmd_buf_puts(b, " [NONE]\n");
        return;
    }
    cmd_buf_printf(b, " PROCS: %d", v->used);
    if (v->ded_mem > 0)
        cmd_buf_printf(b, "  MEM: %lldM", v->ded_mem);
    if (v->ded_swap > 0)
        cmd_buf_printf(b, "  SWAP: %lldM", v->ded_swap);
    if (v->ded_disk > 0)
        cmd_buf_printf(b, "  DISK: %lldM", v->ded_disk);
    cmd_buf_puts(b, "\n");
}

/* Each running job as Maui lists a job reservation on the node:
 * `Job '<id>'(x<procs>)  <start> -> <end> (<duration>)`, times relative to
 * now; then the node's other reservations (cmd_node_resv_text); then
 * `JobList:  a,b`. Nothing when there is neither. */
static void text_jobs(struct cmd_buf *b, const struct nodeview *v)
{
    struct cmd_buf resv = {0};
    cmd_node_resv_text(v->c, v->idx, &resv);
    if (v->njobs > 0 || resv.len > 0)
        cmd_buf_puts(b, "\nReservations:\n");
    for (size_t i = 0; i < v->njobs; i++) {
        const struct job *j = v->jobs[i].j;
        char s[CMD_TIME_MAX], e[CMD_TIME_MAX], d[CMD_TIME_MAX];
        cmd_fmt_duration(j->start - v->c->now, s);
        cmd_fmt_duration(j->start + j->walltime - v->c->now, e);
        cmd_fmt_duration(j->walltime, d);
        cmd_buf_printf(b, "  Job '%s'(x%lld)  %s -> %s (%s)\n", j->name, v->jobs[i].procs, s, e, d);
    }
    if (resv.len > 0)
        cmd_buf_puts(b, resv.s);
    free(resv.s);
    if (v->njobs == 0)
        return;
    cmd_buf_puts(b, "JobList:  ");
    for (size_t i = 0; i < v->njobs; i++)
        cmd_buf_printf(b, "%s%s", i ? "," : "", v->jobs[i].j->name);
    cmd_buf_puts(b, "\n");
}

static void text_node(struct cmd_buf *b, const struct nodeview *v)
{
    cmd_buf_printf(b, "checking node %s\n\n", v->n->name);
    cmd_buf_printf(b, "State:  %8s\n", view_state(v));
    if (v->n->reason)
        cmd_buf_printf(b, "Reason: %s\n", v->n->reason);
    text_resources(b, v);
    cmd_buf_puts(b, "Features:   ");
    text_features(b, v->n);
    cmd_buf_printf(b, "\nPartition:  %s\n", v->n->partition);
    text_jobs(b, v);
}

/* ---- JSON ---- */

static json_t *json_node_obj(const struct nodeview *v)
{
    const struct node *n = v->n;
    json_t *feat = json_array();
    for (size_t i = 0; i < n->nfeatures; i++)
        json_array_append_new(feat, cmd_jstr(n->features[i]));
    json_t *jobs = json_array();
    for (size_t i = 0; i < v->njobs; i++)
        json_array_append_new(jobs, json_pack("{s:o, s:I}", "id", cmd_jstr(v->jobs[i].j->name),
                                              "procs", (json_int_t)v->jobs[i].procs));
    json_t *o = json_pack("{s:o, s:s, s:i, s:I}", "name", cmd_jstr(n->name), "state", view_state(v),
                          "procs", n->procs, "procs_free", (json_int_t)view_free(v));
    json_object_set_new(o, "memory", json_integer(n->mem));
    json_object_set_new(o, "swap", json_integer(n->swap));
    json_object_set_new(o, "disk", json_integer(n->disk));
    json_object_set_new(o, "features", feat);
    json_object_set_new(o, "partition", cmd_jstr(n->partition));
    if (n->reason)
        json_object_set_new(o, "reason", cmd_jstr(n->reason));
    json_object_set_new(o, "jobs", jobs);
    json_object_set_new(o, "reservations", cmd_node_resv_json(v->c, v->idx));
    return o;
}

/* checknode ALL: every node, in the order of the configuration. */
static void checknode_all(const struct cmd_ctx *c, const struct cmd_args *a, struct cmd_buf *out)
{
    size_t n;
    struct nodeview *v = view_all(c, &n);
    json_t *nodes = a->json ? json_array() : NULL;
    for (size_t k = 0; k < n; k++) {
        if (nodes)
            json_array_append_new(nodes, json_node_obj(&v[k]));
        else {
            if (k)
                cmd_buf_puts(out, "\n");
            text_node(out, &v[k]);
        }
        free(v[k].jobs);
    }
    if (nodes)
        cmd_json_out(out, json_pack("{s:o}", "nodes", nodes));
    free(v);
}

/* ---- entry ---- */

int cmd_checknode(const struct cmd_ctx *c, const struct cmd_args *a, struct cmd_buf *out,
                  struct err *err)
{
    const char *name = NULL;
    for (int i = 0; i < a->argc; i++) {
        const char *w = a->argv[i];
        if (w[0] == '-' && w[1] != '\0')
            return err_usage(err, "checknode: unknown option '%s'", cmd_word(w));
        if (name)
            return err_usage(err, "checknode: one node at a time ('%s' is extra)", cmd_word(w));
        name = w;
    }
    if (!name)
        return err_usage(err, "checknode: missing node name (checknode <node> or checknode ALL)");
    long idx = sched_find_node(c->s, name);
    if (idx < 0 && strcmp(name, "ALL") == 0) {
        checknode_all(c, a, out);
        return 0;
    }
    if (idx < 0)
        return err_set(err, "checknode: no node '%s'", cmd_word(name));
    struct nodeview v;
    view_one(&v, c, (size_t)idx);
    if (a->json)
        cmd_json_out(out, json_pack("{s:o}", "node", json_node_obj(&v)));
    else
        text_node(out, &v);
    free(v.jobs);
    return 0;
}
