/*
 * showq — the queue (digest §7.1; Maui 3.3.1 omclient.c MCShowQ, MCShowRun,
 * MCShowIdle, MCShowBlocked). Without options: ACTIVE JOBS (running, earliest
 * end first), IDLE JOBS (the eligible idle jobs in priority order), BLOCKED
 * JOBS (idle jobs the engine holds back, sched_job_listed_blocked, shown as Maui
 * shows policy-blocked jobs: state Idle) and the closing totals. -r: running
 * detail; -i: eligible idle detail with priority, XFactor and `*` after a
 * job holding a reservation; -b: blocked jobs with their reason; -u USER,
 * -g GROUP, -a ACCOUNT, -c CLASS: only those jobs (any view); -p PARTITION:
 * the jobs running on its nodes and the idle ones that ask for it (or for
 * no partition).
 *
 * Where moku differs: -r shows no efficiency (`------`, moku does not
 * measure utilisation); priorities are computed at the command's `now`, like
 * diagnose -p, rather than kept from the last iteration.
 */
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd_int.h"
#include "util/mem.h"

enum showq_mode { SHOWQ_ALL, SHOWQ_RUNNING, SHOWQ_IDLE, SHOWQ_BLOCKED };

/* Maui's filters (-u, -g, -a, -c): only the jobs of that user, group,
 * account or class are listed and counted; the processor and node
 * summary stays the cluster's. NULL = no filter. */
struct showq_filter {
    const char *user, *group, *account, *class_;
    const char *partition; /* -p: running jobs on its nodes, idle jobs that ask for it or
                              for none */
    const struct sched *s;
};

/* What the views need: the running jobs in end order, the idle queue in
 * priority order split into eligible and blocked jobs, the cluster's use. */
struct showq {
    const struct cmd_ctx *c;
    struct job **active;
    size_t nactive;
    struct job **idle; /* eligible */
    size_t nidle;
    struct job **blocked;
    size_t nblocked;
    struct cmd_usage use;
};

static int by_end(const void *a, const void *b)
{
    const struct job *x = *(const struct job *const *)a;
    const struct job *y = *(const struct job *const *)b;
    long ex = x->start + x->walltime, ey = y->start + y->walltime;
    if (ex != ey)
        return ex < ey ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

static int cred_is(const struct cred *c, const char *name)
{
    return !name || (c && strcmp(c->name, name) == 0);
}

static int in_partition(const struct showq_filter *f, const struct job *j)
{
    if (!f->partition)
        return 1;
    if (j->state == JOB_RUNNING && j->nslots > 0)
        return strcmp(sched_node(f->s, j->slots[0].node)->partition, f->partition) == 0;
    return !j->partition || strcmp(j->partition, f->partition) == 0;
}

static int shown(const struct showq_filter *f, const struct job *j)
{
    return in_partition(f, j) && cred_is(j->user, f->user) && cred_is(j->group, f->group) &&
           cred_is(j->account, f->account) && cred_is(j->class_, f->class_);
}

static void showq_gather(const struct cmd_ctx *c, const struct showq_filter *f, struct showq *q)
{
    *q = (struct showq){.c = c};
    size_t cap = 0;
    for (size_t i = 0; i < sched_njobs(c->s); i++) {
        struct job *j = sched_job(c->s, i);
        if (!j || j->state != JOB_RUNNING || !shown(f, j))
            continue;
        q->active = xgrow(q->active, &cap, q->nactive + 1, sizeof *q->active);
        q->active[q->nactive++] = j;
    }
    if (q->nactive > 1)
        qsort(q->active, q->nactive, sizeof *q->active, by_end);
    size_t n;
    struct job *const *queue = sched_queue(c->s, c->now, &n);
    q->idle = xcalloc(n ? n : 1, sizeof *q->idle);
    q->blocked = xcalloc(n ? n : 1, sizeof *q->blocked);
    for (size_t i = 0; i < n; i++) {
        if (!shown(f, queue[i]))
            continue;
        if (sched_job_listed_blocked(c->s, queue[i]))
            q->blocked[q->nblocked++] = queue[i];
        else
            q->idle[q->nidle++] = queue[i];
    }
    cmd_usage(c->s, &q->use);
}

static void showq_free(struct showq *q)
{
    free(q->active);
    free(q->idle);
    free(q->blocked);
}

static double pct(double part, double whole)
{
    return whole > 0 ? part / whole * 100.0 : 0.0;
}

static long remaining(const struct showq *q, const struct job *j)
{
    return j->walltime - (q->c->now - j->start);
}

/* The node a running job's first task is on (Maui's master host), or NULL. */
static const struct node *master_node(const struct showq *q, const struct job *j)
{
    if (!j->slots || j->nslots == 0)
        return NULL;
    return sched_node(q->c->s, j->slots[0].node);
}

static double idle_xfactor(const struct showq *q, const struct job *j)
{
    double wc = j->walltime > 0 ? (double)j->walltime : 1.0;
    return ((double)(q->c->now - sched_job_qtime(q->c->s, j, q->c->now)) + wc) / wc;
}

static double run_xfactor(const struct job *j)
{
    double wc = j->walltime > 0 ? (double)j->walltime : 1.0;
    return ((double)(j->start - j->submit) + wc) / wc;
}

static double backlog_seconds(const struct showq *q)
{
    double ps = 0.0;
    for (size_t i = 0; i < q->nidle; i++)
        ps += (double)q->idle[i]->walltime * (double)job_procs(q->idle[i]);
    return ps;
}

/* ---- text: the default view ---- */

static void text_header(struct cmd_buf *b, const char *title, const char *t1, const char *t2)
{
    cmd_buf_printf(b, "%s\n", title);
    cmd_buf_printf(b, "%-18s %8s %10s %5s %11s %20s\n\n", "JOBNAME", "USERNAME", "STATE", "PROC",
                   t1, t2);
}

static void text_row(struct cmd_buf *b, const struct showq *q, const struct job *j, long dur,
                     long date)
{
    char d[CMD_TIME_MAX], t[CMD_TIME_MAX];
    cmd_fmt_duration(dur, d);
    cmd_fmt_date(q->c, date, t);
    /* "%-18s %8s %10s %5lld %11s  %19s\n" in one pass: showq prints one
     * for each job, and printf's parsing was most of showq's time with
     * 100,000 jobs (issue 31). */
    char procs[24];
    snprintf(procs, sizeof procs, "%lld", job_procs(j));
    const struct cmd_col cols[] = {
        {j->name, -18, 0},
        {j->user->name, 8, 1},
        {job_display_state(j), 10, 1},
        {procs, 5, 1},
        {d, 11, 1},
        {t, 19, 2},
    };
    cmd_buf_row(b, cols, sizeof cols / sizeof cols[0]);
}

static void text_active(struct cmd_buf *b, const struct showq *q)
{
    text_header(b, "ACTIVE JOBS--------------------", "REMAINING", "STARTTIME");
    for (size_t i = 0; i < q->nactive; i++)
        text_row(b, q, q->active[i], remaining(q, q->active[i]), q->active[i]->start);
    char count[64];
    snprintf(count, sizeof count, "%zu Active Job%c   ", q->nactive, q->nactive == 1 ? ' ' : 's');
    const struct cmd_usage *u = &q->use;
    cmd_buf_printf(b, "\n%21s %4lld of %4lld Processors Active (%.2f%%)\n", count, u->busy_procs,
                   u->up_procs, pct((double)u->busy_procs, (double)u->up_procs));
    if (u->up_nodes > 0 && u->up_procs != u->up_nodes)
        cmd_buf_printf(b, "%21s %4ld of %4ld Nodes Active      (%.2f%%)\n", " ", u->busy_nodes,
                       u->up_nodes, pct((double)u->busy_nodes, (double)u->up_nodes));
}

static void text_all(struct cmd_buf *b, const struct showq *q)
{
    text_active(b, q);
    cmd_buf_puts(b, "\n");
    text_header(b, "IDLE JOBS----------------------", "WCLIMIT", "QUEUETIME");
    for (size_t i = 0; i < q->nidle; i++)
        text_row(b, q, q->idle[i], q->idle[i]->walltime, q->idle[i]->submit);
    cmd_buf_printf(b, "\n%zu Idle Job%c\n\n", q->nidle, q->nidle == 1 ? ' ' : 's');
    /* Maui 3.3.1 closes the blocked list with the totals alone: no
     * "N Blocked Jobs" line (that is Moab's lowercase layout). */
    text_header(b, "BLOCKED JOBS----------------", "WCLIMIT", "QUEUETIME");
    for (size_t i = 0; i < q->nblocked; i++)
        text_row(b, q, q->blocked[i], q->blocked[i]->walltime, q->blocked[i]->submit);
    cmd_buf_printf(b, "\nTotal Jobs: %zu   Active Jobs: %zu   Idle Jobs: %zu   Blocked Jobs: %zu\n",
                   q->nactive + q->nidle + q->nblocked, q->nactive, q->nidle, q->nblocked);
}

/* ---- text: -r, -i, -b ---- */

/* Maui's marker after a running job's name: `_` over a soft limit, `+`
 * backfilled (moku has no preemption, so never `*` or `-`). */
static char run_marker(const struct job *j)
{
    if (j->flags & JOB_SPVIOLATION)
        return '_';
    return (j->flags & JOB_BACKFILLED) ? '+' : ' ';
}

static void text_running(struct cmd_buf *b, const struct showq *q)
{
    cmd_buf_printf(b, "%18s%c %1s%s %3s %6s %8s %2s %9s %8s %8s %5s %s%11s  %19s\n\n", "JobName",
                   ' ', "S", "", "Par", "Effic", "XFactor", "Q", "User", "Group", "MHost", "Procs",
                   "", "Remaining", "StartTime");
    for (size_t i = 0; i < q->nactive; i++) {
        const struct job *j = q->active[i];
        const struct node *n = master_node(q, j);
        char d[CMD_TIME_MAX], t[CMD_TIME_MAX];
        cmd_fmt_duration(remaining(q, j), d);
        cmd_fmt_date(q->c, j->start, t);
        cmd_buf_printf(b, "%18s%c %c%s %3.3s %6s %8.1f %2.2s %9s %8s %8s %5lld %s%11s  %19s\n",
                       j->name, run_marker(j), 'R', "", n ? n->partition : "-", "------",
                       run_xfactor(j), j->qos->name, j->user->name, j->group->name,
                       n ? n->name : "-", job_procs(j), "", d, t);
    }
    const struct cmd_usage *u = &q->use;
    cmd_buf_printf(b, "\n%3zu Jobs   %5lld of %5lld Processors Active (%.2f%%)\n", q->nactive,
                   u->busy_procs, u->up_procs, pct((double)u->busy_procs, (double)u->up_procs));
}

static void text_idle(struct cmd_buf *b, const struct showq *q)
{
    cmd_buf_printf(b, "%18s %11s %8s %2s %9s %8s %6s %s%11s %9s %20s\n\n", "JobName", "Priority",
                   "XFactor", "Q", "User", "Group", "Procs", "", "WCLimit", "Class",
                   "SystemQueueTime");
    for (size_t i = 0; i < q->nidle; i++) {
        const struct job *j = q->idle[i];
        char d[CMD_TIME_MAX], t[CMD_TIME_MAX];
        cmd_fmt_duration(j->walltime, d);
        cmd_fmt_date(q->c, sched_job_qtime(q->c->s, j, q->c->now), t);
        long prio = cmd_prio_shown(sched_job_priority(q->c->s, j, q->c->now, NULL));
        cmd_buf_printf(b, "%18s%c%11ld %8.1f %2.2s %9s %8s %6lld%s%12s %9s %20s\n", j->name,
                       cmd_job_reserved(j) ? '*' : ' ', prio, idle_xfactor(q, j), j->qos->name,
                       j->user->name, j->group->name, job_procs(j), "", d, j->class_->name, t);
    }
    double ps = backlog_seconds(q);
    cmd_buf_printf(b, "\nJobs: %zu  Total Backlog:  %.2f ProcHours  (%.2f Hours)\n", q->nidle,
                   ps / 3600.0, q->use.up_procs > 0 ? ps / 3600.0 / (double)q->use.up_procs : 0.0);
}

static void text_blocked(struct cmd_buf *b, const struct showq *q)
{
    cmd_buf_printf(b, "%18s %9s %20s\n\n", "JobName", "User", "Reason");
    for (size_t i = 0; i < q->nblocked; i++) {
        const struct job *j = q->blocked[i];
        const char *why = sched_job_listed_blocked(q->c->s, j);
        cmd_buf_printf(b, "%18s %9s %s\n", j->name, j->user->name, cmd_reason_tail(j, why));
    }
}

/* ---- JSON ---- */

/* The keys every job of a section has; -r and -i add their detail columns. */
static json_t *json_job_base(const struct showq *q, const struct job *j)
{
    /* Every credential: what the web view's queue filters on; and the
     * job's name (qsub -N), which the driver keeps (null: none). */
    struct cmd_job_extra x = {0};
    if (q->c->job_extra)
        q->c->job_extra(q->c->job_extra_ctx, j, &x);
    json_t *o = json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:s, s:I}", "id", cmd_jstr(j->name),
                          "user", cmd_jstr(j->user->name), "group", cmd_jstr(j->group->name),
                          "account", cmd_jstr(j->account ? j->account->name : NULL), "class",
                          cmd_jstr(j->class_->name), "qos", cmd_jstr(j->qos->name), "state",
                          job_display_state(j), "procs", (json_int_t)job_procs(j));
    json_object_set_new(o, "name", cmd_jstr(x.name));
    return o;
}

/* The nodes a running job holds, each once in node order; null where the
 * caller may not see them (an ordinary user, another user's job: as qstat
 * -n, only showq -r's ADMIN3 and up see where others' jobs run). */
static json_t *json_job_nodes(const struct showq *q, const struct job *j)
{
    const struct cmd_ctx *c = q->c;
    if (c->ordinary && (!c->user || strcmp(c->user, j->user->name) != 0))
        return json_null();
    json_t *a = json_array();
    long last = -1;
    for (size_t i = 0; i < j->nslots; i++)
        for (unsigned k = 0; k < j->slots[i].nnodes; k++) {
            long n = (long)j->slots[i].node + k;
            if (n != last) /* runs are in node order: a repeat follows its first */
                json_array_append_new(a, cmd_jstr(sched_node(c->s, (unsigned)n)->name));
            last = n;
        }
    return a;
}

static json_t *json_active_job(const struct showq *q, const struct job *j, int detail)
{
    json_t *o = json_job_base(q, j);
    json_object_set_new(o, "nodes", json_job_nodes(q, j));
    json_object_set_new(o, "remaining", json_integer(remaining(q, j)));
    json_object_set_new(o, "start", json_integer(cmd_epoch(q->c, j->start)));
    if (!detail)
        return o;
    const struct node *n = master_node(q, j);
    json_object_set_new(o, "partition", cmd_jstr(n ? n->partition : NULL));
    json_object_set_new(o, "master_host", cmd_jstr(n ? n->name : NULL));
    json_object_set_new(o, "xfactor", json_real(run_xfactor(j)));
    json_object_set_new(o, "backfilled", json_boolean(j->flags & JOB_BACKFILLED));
    return o;
}

/* An idle job, eligible or blocked: QUEUETIME is the submission, as in the
 * text. */
static json_t *json_queued_job(const struct showq *q, const struct job *j)
{
    json_t *o = json_job_base(q, j);
    json_object_set_new(o, "wclimit", json_integer(j->walltime));
    json_object_set_new(o, "queuetime", json_integer(cmd_epoch(q->c, j->submit)));
    return o;
}

static json_t *json_idle_job(const struct showq *q, const struct job *j, int detail)
{
    json_t *o = json_queued_job(q, j);
    json_object_set_new(o, "priority", json_real(sched_job_priority(q->c->s, j, q->c->now, NULL)));
    if (!detail)
        return o;
    int resv = cmd_job_reserved(j);
    json_object_set_new(o, "xfactor", json_real(idle_xfactor(q, j)));
    json_object_set_new(o, "system_queuetime",
                        json_integer(cmd_epoch(q->c, sched_job_qtime(q->c->s, j, q->c->now))));
    json_object_set_new(o, "reserved", json_boolean(resv));
    json_object_set_new(o, "reservation_start",
                        resv ? json_integer(cmd_epoch(q->c, j->resv_start)) : json_null());
    return o;
}

static json_t *json_blocked_job(const struct showq *q, const struct job *j)
{
    json_t *o = json_queued_job(q, j);
    json_object_set_new(o, "reason", cmd_jstr(sched_job_listed_blocked(q->c->s, j)));
    return o;
}

static json_t *json_summary(const struct showq *q)
{
    return json_pack("{s:I, s:I, s:I, s:I}", "total",
                     (json_int_t)(q->nactive + q->nidle + q->nblocked), "active",
                     (json_int_t)q->nactive, "idle", (json_int_t)q->nidle, "blocked",
                     (json_int_t)q->nblocked);
}

static void json_view(struct cmd_buf *b, const struct showq *q, enum showq_mode mode)
{
    json_t *root = json_object();
    if (mode == SHOWQ_ALL || mode == SHOWQ_RUNNING) {
        json_t *a = json_array();
        for (size_t i = 0; i < q->nactive; i++)
            json_array_append_new(a, json_active_job(q, q->active[i], mode == SHOWQ_RUNNING));
        json_object_set_new(root, "active", a);
    }
    if (mode == SHOWQ_ALL || mode == SHOWQ_IDLE) {
        json_t *a = json_array();
        for (size_t i = 0; i < q->nidle; i++)
            json_array_append_new(a, json_idle_job(q, q->idle[i], mode == SHOWQ_IDLE));
        json_object_set_new(root, "idle", a);
    }
    if (mode == SHOWQ_ALL || mode == SHOWQ_BLOCKED) {
        json_t *a = json_array();
        for (size_t i = 0; i < q->nblocked; i++)
            json_array_append_new(a, json_blocked_job(q, q->blocked[i]));
        json_object_set_new(root, "blocked", a);
    }
    json_object_set_new(root, "summary", json_summary(q));
    /* The clock the text prints dates on: the web view shows times on it. */
    struct cmd_zone z;
    cmd_clock_zone(cmd_epoch(q->c, q->c->now), &z);
    json_object_set_new(root, "zone",
                        json_pack("{s:o, s:o, s:I}", "name", cmd_jstr(z.name[0] ? z.name : NULL),
                                  "abbrev", cmd_jstr(z.abbrev), "offset", (json_int_t)z.offset));
    cmd_json_out(b, root);
}

/* ---- entry ---- */

/* The value of filter option w (-u, -g, -a, -c) at a->argv[*i + 1]. */
static int take_filter(const struct cmd_args *a, int *i, const char **slot, struct err *err)
{
    const char *w = a->argv[*i];
    if (*i + 1 >= a->argc || a->argv[*i + 1][0] == '-')
        return err_usage(err, "showq: %s needs a name", w);
    if (*slot)
        return err_usage(err, "showq: %s given twice", w);
    *slot = a->argv[++*i];
    return 0;
}

static int parse_mode(const struct cmd_args *a, enum showq_mode *mode, struct showq_filter *f,
                      struct err *err)
{
    *mode = SHOWQ_ALL;
    *f = (struct showq_filter){0};
    for (int i = 0; i < a->argc; i++) {
        const char *w = a->argv[i];
        enum showq_mode m;
        const char **slot = strcmp(w, "-u") == 0   ? &f->user
                            : strcmp(w, "-g") == 0 ? &f->group
                            : strcmp(w, "-a") == 0 ? &f->account
                            : strcmp(w, "-c") == 0 ? &f->class_
                            : strcmp(w, "-p") == 0 ? &f->partition
                                                   : NULL;
        if (slot) {
            if (take_filter(a, &i, slot, err) < 0)
                return -1;
            continue;
        }
        if (strcmp(w, "-r") == 0)
            m = SHOWQ_RUNNING;
        else if (strcmp(w, "-i") == 0)
            m = SHOWQ_IDLE;
        else if (strcmp(w, "-b") == 0)
            m = SHOWQ_BLOCKED;
        else if (w[0] == '-')
            return err_usage(err,
                             "showq: unknown option '%s' (-r, -i, -b; -u USER, -g GROUP, "
                             "-a ACCOUNT, -c CLASS)",
                             cmd_word(w));
        else
            return err_usage(err, "showq: unexpected argument '%s'", cmd_word(w));
        if (*mode != SHOWQ_ALL && *mode != m)
            return err_usage(err, "showq: -r, -i and -b are exclusive");
        *mode = m;
    }
    return 0;
}

int cmd_showq(const struct cmd_ctx *c, const struct cmd_args *a, struct cmd_buf *out,
              struct err *err)
{
    enum showq_mode mode;
    struct showq_filter f;
    if (parse_mode(a, &mode, &f, err) < 0)
        return -1;
    f.s = c->s;
    struct showq q;
    showq_gather(c, &f, &q);
    if (a->json)
        json_view(out, &q, mode);
    else if (mode == SHOWQ_RUNNING)
        text_running(out, &q);
    else if (mode == SHOWQ_IDLE)
        text_idle(out, &q);
    else if (mode == SHOWQ_BLOCKED)
        text_blocked(out, &q);
    else
        text_all(out, &q);
    showq_free(&q);
    return 0;
}
