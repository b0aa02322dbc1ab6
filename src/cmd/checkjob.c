/*
 * checkjob — one job in detail (digest §7.2; Maui 3.3.1 UserI.c UIJobShow):
 * state, credentials, walltime, submit and start times, the request, the
 * allocation, bypass count, reservation, PE and start priority, and for an
 * idle job why it is not running.
 *
 * Where moku differs: the closing analysis is one line, `job cannot run
 * (<reason>)`: for a blocked job Maui's policy message (sched_job_blocked,
 * "job 5 violates idle HARD MAXIJOB limit of 1 for user erin (R: 1, U: 1)"),
 * else the reason the last scheduling iteration recorded (sched_job_wait),
 * instead of Maui's partition-by-partition selection and node-by-node
 * feasibility check; lines
 * about things moku does not model (network, opsys, arch, executable) show
 * Maui's `[NONE]`; every credential is shown, DEFAULT included. `Messages:`
 * holds one note, the driver's (the daemon's: why the job's start failed).
 * -v adds, for an idle job, Maui's node-by-node check (cjnodes.c).
 */
#include <stdio.h>
#include <string.h>

#include "cmd/cmd_int.h"
#include "engine/dep.h"
#include "policy/prio.h"

/* Facts about the job that both layouts print. */
struct jobview {
    const struct cmd_ctx *c;
    const struct job *j;
    int started;           /* running or completed: has a start time */
    long queued, eligible; /* Time Queued Total and Eligible, seconds */
    long used;             /* walltime used */
    double priority;
    double pe;
    const char *reason; /* idle: why blocked or not running; else NULL */
    char reason_buf[512];
    long resv_start, resv_end; /* the job's reservation, resv_start < 0 if none */
    long fcfs_start; /* BACKFILLPOLICY NONE, the job nothing passes: when it starts; else -1 */
    int interactive; /* the driver says so (cmd_job_extra): qsub -I */
};

static long lmax(long a, long b)
{
    return a > b ? a : b;
}

static void view_times(struct jobview *v)
{
    const struct job *j = v->j;
    long now = v->c->now;
    /* Removed after it started (cancelled, or killed at its walltime): it
     * ran from its start to its end too. */
    int ran = j->state == JOB_REMOVED && j->start > 0 && j->end >= j->start;
    v->started = j->state == JOB_RUNNING || j->state == JOB_COMPLETED || ran;
    long until = v->started ? j->start : now;
    v->queued = lmax(0, until - j->submit);
    v->eligible = lmax(0, until - sched_job_qtime(v->c->s, j, until));
    if (j->state == JOB_RUNNING)
        v->used = lmax(0, now - j->start);
    else if (j->state == JOB_COMPLETED || ran)
        v->used = lmax(0, j->end - j->start);
    /* A running job holds its nodes as Maui's job reservation does; an idle
     * one may hold a priority reservation. */
    v->resv_start = -1;
    if (j->state == JOB_RUNNING) {
        v->resv_start = j->start;
        v->resv_end = j->start + j->walltime;
    } else if (cmd_job_reserved(j)) {
        v->resv_start = j->resv_start;
        v->resv_end = j->resv_start + j->walltime;
    }
}

static void view_init(struct jobview *v, const struct cmd_ctx *c, const struct job *j)
{
    *v = (struct jobview){.c = c, .j = j};
    struct cmd_job_extra x = {0};
    if (c->job_extra && c->job_extra(c->job_extra_ctx, j, &x) == 0)
        v->interactive = x.interactive;
    view_times(v);
    /* Processor equivalents come from the priority function's RES factor
     * (digest §2.6), whatever the weights. */
    struct prio_env env;
    struct prio_parts parts;
    sched_prio_env(c->s, &env);
    prio_start(&sched_policy(c->s)->prio, &env, j, c->now, &parts);
    v->pe = parts.factor[PF_PE];
    /* An idle job's priority is recomputed for display; a started one shows
     * the start priority it had when it started (Maui's J->StartPriority).
     * Recomputed rather than read from j->priority, which the engine leaves
     * stale when the order needs no priorities (queue time only). */
    if (j->state == JOB_IDLE)
        v->priority = sched_job_priority(c->s, j, c->now, NULL);
    else
        v->priority = prio_start(&sched_policy(c->s)->prio, &env, j, j->start, NULL);
    v->reason = cmd_wait_reason(c, j, v->reason_buf, sizeof v->reason_buf);
    /* Under BACKFILLPOLICY NONE no job holds a reservation (none is made:
     * nothing may pass the job that waits first), but the plan knows when
     * that job starts: say so, rather than nothing. */
    v->fcfs_start = -1;
    if (sched_fcfs_head(c->s) == j) {
        long t = sched_earliest_start(c->s, (struct job *)j, c->now);
        v->fcfs_start = t < SCHED_NEVER ? t : -1;
    }
}

static const struct node *first_node(const struct jobview *v)
{
    const struct job *j = v->j;
    return j->state == JOB_RUNNING && j->nslots > 0 ? sched_node(v->c->s, j->slots[0].node) : NULL;
}

/* ---- text ---- */

static void text_head(struct cmd_buf *b, const struct jobview *v)
{
    const struct job *j = v->j;
    char used[CMD_TIME_MAX], limit[CMD_TIME_MAX], sub[CMD_TIME_MAX];
    char queued[CMD_TIME_MAX], elig[CMD_TIME_MAX];
    cmd_fmt_duration(v->used, used);
    cmd_fmt_duration(j->walltime, limit);
    cmd_fmt_date(v->c, j->submit, sub);
    cmd_fmt_duration(v->queued, queued);
    cmd_fmt_duration(v->eligible, elig);
    cmd_buf_printf(b, "checking job %s\n\n", j->name);
    cmd_buf_printf(b, "State: %s\n", job_display_state(j));
    cmd_buf_printf(b, "Creds:  user:%s  group:%s  account:%s  class:%s  qos:%s\n", j->user->name,
                   j->group->name, j->account->name, j->class_->name, j->qos->name);
    cmd_buf_printf(b, "WallTime: %s of %s\n", used, limit);
    cmd_buf_printf(b, "SubmitTime: %s\n  (Time Queued  Total: %s  Eligible: %s)\n\n", sub, queued,
                   elig);
    if (j->state == JOB_RUNNING) {
        char st[CMD_TIME_MAX];
        cmd_fmt_date(v->c, j->start, st);
        cmd_buf_printf(b, "StartTime: %s\n", st);
    }
    if ((j->state == JOB_COMPLETED || j->state == JOB_REMOVED) && j->end > 0) {
        char en[CMD_TIME_MAX];
        cmd_fmt_date(v->c, j->end, en);
        cmd_buf_printf(b, "CompletionTime: %s", en);
        if (j->exit_status >= 0)
            cmd_buf_printf(b, "  Completion Code: %d", j->exit_status);
        cmd_buf_puts(b, "\n");
    }
    cmd_buf_printf(b, "Total Tasks: %d\n", j->tasks);
}

static void text_features(struct cmd_buf *b, const struct job *j)
{
    if (j->nfeatures == 0) {
        cmd_buf_puts(b, "[NONE]");
        return;
    }
    for (size_t i = 0; i < j->nfeatures; i++)
        cmd_buf_printf(b, "[%s]", j->features[i]);
}

/* Maui shows the dedicated resources line when a task is more than one
 * processor or asks for memory or disk (swap added here for completeness). */
static void text_dedicated(struct cmd_buf *b, const struct job *j)
{
    if (j->procs_per_task == 1 && j->mem_per_task <= 0 && j->disk_per_task <= 0 &&
        j->swap_per_task <= 0)
        return;
    cmd_buf_printf(b, "Dedicated Resources Per Task: PROCS: %d", j->procs_per_task);
    if (j->mem_per_task > 0)
        cmd_buf_printf(b, "  MEM: %ldM", j->mem_per_task);
    if (j->swap_per_task > 0)
        cmd_buf_printf(b, "  SWAP: %ldM", j->swap_per_task);
    if (j->disk_per_task > 0)
        cmd_buf_printf(b, "  DISK: %ldM", j->disk_per_task);
    cmd_buf_puts(b, "\n");
}

/* `[node:tasks]`, four to a line, as Maui lists an allocation. */
static void text_alloc(struct cmd_buf *b, const struct jobview *v)
{
    const struct job *j = v->j;
    if (j->state != JOB_RUNNING || j->nslots == 0)
        return;
    cmd_buf_puts(b, "Allocated Nodes:\n");
    size_t k = 0;
    for (size_t i = 0; i < j->nslots; i++) {
        const struct job_slot *sl = &j->slots[i];
        for (unsigned n = 0; n < sl->nnodes; n++, k++) {
            const struct node *nd = sched_node(v->c->s, sl->node + n);
            cmd_buf_printf(b, "[%.20s:%u]", nd ? nd->name : "?",
                           sl->procs / (unsigned)(j->procs_per_task > 0 ? j->procs_per_task : 1));
            if (k % 4 == 3)
                cmd_buf_puts(b, "\n");
        }
    }
    cmd_buf_puts(b, "\n");
}

static void text_req(struct cmd_buf *b, const struct jobview *v)
{
    const struct job *j = v->j;
    const struct node *n = first_node(v);
    const char *par = n ? n->partition : j->partition ? j->partition : "ALL";
    cmd_buf_printf(b, "\nReq[0]  TaskCount: %d  Partition: %s\n", j->tasks, par);
    cmd_buf_puts(b, "Network: [NONE]  Memory >= 0  Disk >= 0  Swap >= 0\n");
    cmd_buf_puts(b, "Opsys: [NONE]  Arch: [NONE]  Features: ");
    text_features(b, j);
    cmd_buf_puts(b, "\n");
    text_dedicated(b, j);
    if (j->tpn > 0)
        cmd_buf_printf(b, "TasksPerNode: %d\n", j->tpn);
    if (j->nodes > 0)
        cmd_buf_printf(b, "NodeCount: %d\n", j->nodes);
    if (job_has_hostlist(j)) { /* the hosts it asked for, [node:tasks] as an allocation */
        cmd_buf_puts(b, "HostList: ");
        for (size_t k = 0; k < j->nhosts; k++) {
            const struct node *nd = sched_node(v->c->s, j->hosts[k].node);
            cmd_buf_printf(b, "[%.20s:%u]", nd ? nd->name : "?", j->hosts[k].tasks);
        }
        cmd_buf_puts(b, "\n");
    }
    text_alloc(b, v);
    cmd_buf_puts(b, "\n\n");
}

static void text_tail(struct cmd_buf *b, const struct jobview *v)
{
    const struct job *j = v->j;
    cmd_buf_puts(b, "IWD: [NONE]  Executable:  [NONE]\n");
    cmd_buf_printf(b, "Bypass: %ld  StartCount: %d\n", j->bypass, j->nstarts);
    if (j->partition)
        cmd_buf_printf(b, "PartitionMask: [%s]\n", j->partition);
    else
        cmd_buf_puts(b, "PartitionMask: [ALL]\n");
    if ((j->flags & (JOB_BACKFILLED | JOB_SPVIOLATION)) || v->interactive) {
        cmd_buf_printf(b, "Flags:      %s%s%s\n\n", (j->flags & JOB_BACKFILLED) ? " BACKFILL" : "",
                       (j->flags & JOB_SPVIOLATION) ? " SPVIOLATION" : "",
                       v->interactive ? " INTERACTIVE" : "");
    }
    if (v->resv_start >= 0) {
        char s[CMD_TIME_MAX], e[CMD_TIME_MAX], d[CMD_TIME_MAX];
        cmd_fmt_duration(v->resv_start - v->c->now, s);
        cmd_fmt_duration(v->resv_end - v->c->now, e);
        cmd_fmt_duration(v->resv_end - v->resv_start, d);
        cmd_buf_printf(b, "Reservation '%s' (%s -> %s  Duration: %s)\n", j->name, s, e, d);
    }
    if (v->fcfs_start >= 0) {
        char s[CMD_TIME_MAX];
        cmd_fmt_duration(v->fcfs_start - v->c->now, s);
        cmd_buf_printf(b,
                       "Expected start in %s (BACKFILLPOLICY NONE: no reservation, nothing "
                       "starts before it)\n",
                       s);
    }
    char dep[512];
    if (j->ndeps && j->state == JOB_IDLE && dep_text(j->deps, j->ndeps, dep, sizeof dep) && dep[0])
        cmd_buf_printf(b, "Depend:  %s (waiting)\n", dep);
    if (j->message)
        cmd_buf_printf(b, "Messages:  %s\n", j->message);
    cmd_buf_printf(b, "PE:  %.2f  StartPriority:  %ld", v->pe, cmd_prio_shown(v->priority));
    if (j->sysprio_mode != SYSPRIO_NONE)
        cmd_buf_printf(b, "  SystemPriority:  %ld", j->sysprio);
    cmd_buf_puts(b, "\n");
    if (v->reason)
        cmd_buf_printf(b, "job cannot run  (%s)\n", v->reason);
}

/* ---- JSON ---- */

static json_t *json_flags(const struct jobview *v)
{
    const struct job *j = v->j;
    json_t *a = json_array();
    if (j->flags & JOB_BACKFILLED)
        json_array_append_new(a, json_string("BACKFILL"));
    if (j->flags & JOB_RESERVED)
        json_array_append_new(a, json_string("RESERVED"));
    if (j->flags & JOB_SPVIOLATION)
        json_array_append_new(a, json_string("SPVIOLATION"));
    if (v->interactive) /* Maui's flag for a job run on its submitter's terminal */
        json_array_append_new(a, json_string("INTERACTIVE"));
    return a;
}

static json_t *json_alloc(const struct jobview *v)
{
    const struct job *j = v->j;
    if (j->state != JOB_RUNNING)
        return json_null();
    json_t *a = json_array();
    for (size_t i = 0; i < j->nslots; i++) {
        const struct job_slot *sl = &j->slots[i];
        for (unsigned n = 0; n < sl->nnodes; n++) {
            const struct node *nd = sched_node(v->c->s, sl->node + n);
            json_array_append_new(a, json_pack("{s:o, s:i, s:i}", "node",
                                               cmd_jstr(nd ? nd->name : "?"), "procs",
                                               (int)sl->procs, "mem", (int)sl->mem));
        }
    }
    return a;
}

static json_t *json_job(const struct jobview *v)
{
    const struct job *j = v->j;
    const struct cmd_ctx *c = v->c;
    json_t *o = json_pack("{s:o, s:s, s:o, s:o, s:o, s:o, s:o}", "id", cmd_jstr(j->name), "state",
                          job_display_state(j), "user", cmd_jstr(j->user->name), "group",
                          cmd_jstr(j->group->name), "account", cmd_jstr(j->account->name), "class",
                          cmd_jstr(j->class_->name), "qos", cmd_jstr(j->qos->name));
    json_object_set_new(o, "procs", json_integer(job_procs(j)));
    json_object_set_new(o, "tasks", json_integer(j->tasks));
    json_object_set_new(o, "tasks_per_node", j->tpn > 0 ? json_integer(j->tpn) : json_null());
    json_object_set_new(o, "walltime", json_integer(j->walltime));
    json_object_set_new(o, "submit", json_integer(cmd_epoch(c, j->submit)));
    json_object_set_new(o, "start",
                        v->started ? json_integer(cmd_epoch(c, j->start)) : json_null());
    json_object_set_new(
        o, "end", j->state == JOB_COMPLETED ? json_integer(cmd_epoch(c, j->end)) : json_null());
    json_object_set_new(o, "exit_status",
                        j->exit_status >= 0 ? json_integer(j->exit_status) : json_null());
    json_object_set_new(o, "priority", json_real(v->priority));
    json_object_set_new(o, "bypass", json_integer(j->bypass));
    json_object_set_new(o, "start_count", json_integer(j->nstarts));
    json_object_set_new(o, "reason", cmd_jstr(v->reason));
    json_object_set_new(o, "message", cmd_jstr(j->message));
    json_object_set_new(o, "reservation",
                        v->resv_start >= 0 ? json_pack("{s:I, s:I}", "start",
                                                       (json_int_t)cmd_epoch(c, v->resv_start),
                                                       "end", (json_int_t)cmd_epoch(c, v->resv_end))
                                           : json_null());
    if (v->fcfs_start >= 0) /* BACKFILLPOLICY NONE: the job nothing passes */
        json_object_set_new(o, "expected_start", json_integer(cmd_epoch(c, v->fcfs_start)));
    json_object_set_new(o, "flags", json_flags(v));
    json_object_set_new(o, "pe", json_real(v->pe));
    json_object_set_new(o, "allocation", json_alloc(v));
    return o;
}

/* ---- entry ---- */

int cmd_checkjob(const struct cmd_ctx *c, const struct cmd_args *a, struct cmd_buf *out,
                 struct err *err)
{
    const char *id = NULL;
    int verbose = 0;
    for (int i = 0; i < a->argc; i++) {
        const char *w = a->argv[i];
        if (strcmp(w, "-v") == 0) {
            verbose = 1;
            continue;
        }
        if (w[0] == '-' && w[1] != '\0')
            return err_usage(err, "checkjob: unknown option '%s'", cmd_word(w));
        if (id)
            return err_usage(err, "checkjob: one job at a time ('%s' is extra)", cmd_word(w));
        id = w;
    }
    if (!id)
        return err_usage(err, "checkjob: missing job id (checkjob [-v] <id>)");
    const struct job *j = cmd_find_job(c->s, id);
    if (!j)
        return err_set(err, "checkjob: no job '%s'", cmd_word(id));
    struct jobview v;
    view_init(&v, c, j);
    if (a->json) {
        json_t *o = json_job(&v);
        if (verbose && j->state == JOB_IDLE)
            cmd_checkjob_nodes(c, j, NULL, o);
        else if (verbose)
            json_object_set_new(o, "rejections", json_null());
        cmd_json_out(out, o);
        return 0;
    }
    text_head(out, &v);
    text_req(out, &v);
    text_tail(out, &v);
    if (verbose && j->state == JOB_IDLE)
        cmd_checkjob_nodes(c, j, out, NULL);
    return 0;
}
