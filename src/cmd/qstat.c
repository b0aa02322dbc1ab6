/*
 * qstat, pbsnodes — Torque's everyday views of the same state showq and
 * checknode read, in Torque's layouts, so that scripts and hands that know
 * Torque (4.x to 6.x) keep working.
 *
 *   qstat [-a|-i|-r|-f] [-n [-1]] [-x] [-c] [-t] [-u USER...] [JOB...]
 *   qstat -Q|-q [QUEUE...], qstat -B
 *   pbsnodes [-a] [-l] [-x] [NODE...]
 *
 * The default layout ("Job ID  Name  User  Time Use  S  Queue"), the
 * alternative one of -a/-u/-n (Torque 4's widths: 23, 11, 8, 16, 6, 5, 6,
 * 9, 9, 1, 9, a missing value printed "-- " right-aligned, as Torque does),
 * -f's "Job Id:" blocks of "    attribute = value" lines, and pbsnodes -a's
 * node blocks. States: Q queued, H held, W waiting for its start date or
 * deferred, R running, S suspended, C completed or removed (shown with -c;
 * -x is Torque's XML of the -f view, element names as Torque's). -Q, -q and
 * -B are Torque's queue and server summaries, a class a queue.
 *
 * Where moku differs: "Time Use" (CPU time) is not measured: 0 for a job
 * that has not run, its elapsed walltime otherwise (the column is
 * labelled so that scripts still parse it). The queue is the job's class
 * (DEFAULT without -q). Session ids come from the driver (the job's process
 * group), "--" when unknown. pbsnodes shows no "status" line (moku does not
 * collect load or memory use from its nodes).
 *
 * Who sees what (c->ordinary): an ordinary user sees every job in the
 * queue, as showq shows it to them, but not where another user's job runs
 * (its exec_host, its session, its place in pbsnodes' jobs), not another
 * user's ended jobs (showq lists none), and no node's note (checknode is
 * the administrators'). Torque's own default is stricter still
 * (query_other_jobs false hides other users' jobs altogether).
 *
 * Job arrays (a task's name "12[3]"): without -t the default and -a
 * layouts show an array as Torque does, one line "12[].server" for its
 * tasks, with one state (R while any task runs, else Q, W, H, C in that
 * order); -t, -f and --json show every task. An operand "12[]" names the
 * array (its line, or its tasks with -t).
 *
 * A job's name and paths are shown with control and format characters
 * escaped (util/utf8.h): qsub refuses them now, but a name stored before,
 * or taken in from Slurm, must not turn other users' lines around.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd/cmd_int.h"
#include "engine/dep.h"
#include "util/mem.h"
#include "util/strmap.h"
#include "util/utf8.h"

/* ---- job ids ---- */

/* The length of an array suffix "[3]" or "[]" at the start of s (Torque's
 * task and whole-array ids), 0 when s does not start with one. */
static size_t array_suffix(const char *s)
{
    if (s[0] != '[')
        return 0;
    size_t digits = strspn(s + 1, "0123456789");
    return s[1 + digits] == ']' ? digits + 2 : 0;
}

const char *cmd_job_id(const char *word, char *out, size_t n)
{
    size_t digits = strspn(word, "0123456789");
    if (digits == 0)
        return word;
    size_t len = digits + array_suffix(word + digits); /* "12" or "12[3]" or "12[]" */
    if (word[len] != '.' || len >= n)
        return word;
    char c = word[len + 1];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')))
        return word;
    memcpy(out, word, len);
    out[len] = '\0';
    return out;
}

struct job *cmd_find_job(const struct sched *s, const char *word)
{
    struct job *j = sched_find_job(s, word);
    if (j)
        return j;
    char id[32];
    const char *bare = cmd_job_id(word, id, sizeof id);
    return bare != word ? sched_find_job(s, bare) : NULL;
}

/* ---- what a row shows ---- */

struct qrow {
    const struct job *j;
    struct cmd_job_extra x; /* its strings escaped where they need it */
    char *escaped[4];       /* the escaped copies x points to, owned (row_free) */
    char id[96];            /* "<id>.<server>" */
    char state;             /* Torque's letter */
    long elapsed;           /* walltime used, -1 = has not run */
    int placed;             /* where it runs may be shown to the caller */
};

/* Whether the caller may see where j runs and j once it ended: an
 * administrator (or the simulator) always, an ordinary user for their own
 * jobs (see the file's comment). */
static int own_or_admin(const struct cmd_ctx *c, const struct job *j)
{
    return !c->ordinary || (c->user && strcmp(j->user->name, c->user) == 0);
}

/* *s, or an escaped copy of it kept in r when it holds what a terminal
 * would act on (util/utf8.h). */
static void escape_field(struct qrow *r, const char **s, int k)
{
    if (*s && !utf8_plain(*s))
        *s = r->escaped[k] = utf8_escape(*s);
}

static void row_free(struct qrow *r)
{
    for (int k = 0; k < 4; k++)
        free(r->escaped[k]);
}

static char torque_state(const struct job *j)
{
    switch (j->state) {
    case JOB_IDLE:
        if (j->holds)
            return 'H';
        return j->deferred_until > 0 ? 'W' : 'Q';
    case JOB_RUNNING:
        return (j->flags & JOB_SUSPENDED) ? 'S' : 'R';
    case JOB_COMPLETED:
    case JOB_REMOVED:
        break;
    }
    return 'C';
}

static void row_init(const struct cmd_ctx *c, const struct job *j, struct qrow *r)
{
    *r = (struct qrow){
        .j = j, .state = torque_state(j), .elapsed = -1, .placed = own_or_admin(c, j)};
    if (c->job_extra)
        c->job_extra(c->job_extra_ctx, j, &r->x);
    escape_field(r, &r->x.name, 0);
    escape_field(r, &r->x.out_path, 1);
    escape_field(r, &r->x.err_path, 2);
    escape_field(r, &r->x.cwd, 3);
    if (!r->placed)
        r->x.session = 0;
    if (c->server)
        snprintf(r->id, sizeof r->id, "%s.%s", j->name, c->server);
    else
        snprintf(r->id, sizeof r->id, "%s", j->name);
    if (j->state == JOB_RUNNING)
        r->elapsed = c->now > j->start ? c->now - j->start : 0;
    else if ((j->state == JOB_COMPLETED || j->state == JOB_REMOVED) && j->start > 0)
        r->elapsed = j->end > j->start ? j->end - j->start : 0;
}

static const char *row_name(const struct qrow *r)
{
    return r->x.name && *r->x.name ? r->x.name : "STDIN";
}

/* HH:MM:SS with the hours unbounded, as Torque prints walltimes. */
static void hms(long secs, char out[CMD_TIME_MAX])
{
    if (secs < 0)
        secs = 0;
    snprintf(out, CMD_TIME_MAX, "%02ld:%02ld:%02ld", secs / 3600, secs / 60 % 60, secs % 60);
}

/* Torque's memory text: "2gb" when whole gigabytes, else "512mb". */
static void mem_text(long mb, char out[CMD_TIME_MAX])
{
    if (mb % 1024 == 0)
        snprintf(out, CMD_TIME_MAX, "%ldgb", mb / 1024);
    else
        snprintf(out, CMD_TIME_MAX, "%ldmb", mb);
}

static long job_mem_mb(const struct qrow *r)
{
    if (r->x.mem_mb > 0)
        return r->x.mem_mb;
    return r->j->mem_per_task > 0 ? r->j->mem_per_task * r->j->tasks : 0;
}

/* ---- node lists (-n, exec_host) ---- */

/* The first processor index job j holds on node idx: the processors of the
 * running jobs before it on that node (Torque numbers a node's cores). */
static long long first_core(const struct cmd_ctx *c, const struct job *j, size_t idx)
{
    long long before = 0;
    for (size_t i = 0; i < sched_njobs(c->s); i++) {
        const struct job *o = sched_job(c->s, i);
        if (o == j)
            break;
        if (o && o->state == JOB_RUNNING)
            before += cmd_job_procs_on(o, idx);
    }
    return before;
}

/* "n1/0-3+n2/0" (Torque 5's ranges) for a running job; "" otherwise. */
static void exec_host(const struct cmd_ctx *c, const struct job *j, struct cmd_buf *b)
{
    if (j->state != JOB_RUNNING)
        return;
    int first = 1;
    for (size_t i = 0; i < j->nslots; i++) {
        const struct job_slot *sl = &j->slots[i];
        for (unsigned n = 0; n < sl->nnodes; n++) {
            size_t idx = sl->node + n;
            const struct node *nd = sched_node(c->s, idx);
            long long lo = first_core(c, j, idx), hi = lo + sl->procs - 1;
            cmd_buf_printf(b, "%s%s/%lld", first ? "" : "+", nd ? nd->name : "?", lo);
            if (hi > lo)
                cmd_buf_printf(b, "-%lld", hi);
            first = 0;
        }
    }
}

/* ---- the layouts ---- */

static void default_head(struct cmd_buf *b)
{
    cmd_buf_puts(b,
                 "Job ID                    Name             User            Time Use S Queue\n"
                 "------------------------- ---------------- --------------- -------- - -----\n");
}

static void default_row(const struct qrow *r, struct cmd_buf *b)
{
    char used[CMD_TIME_MAX];
    if (r->elapsed < 0)
        snprintf(used, sizeof used, "0");
    else
        hms(r->elapsed, used);
    cmd_buf_printf(b, "%-25s %-16.16s %-15.15s %8.8s %c %s\n", r->id, row_name(r), r->j->user->name,
                   used, r->state, r->j->class_->name);
}

static void alt_head(const struct cmd_ctx *c, struct cmd_buf *b)
{
    cmd_buf_printf(b, "\n%s: \n", c->server ? c->server : "moku");
    cmd_buf_puts(b, "                                                                           "
                    "       Req'd       Req'd       Elap\n"
                    "Job ID                  Username    Queue    Jobname          SessID  NDS   "
                    "TSK   Memory      Time    S   Time\n"
                    "----------------------- ----------- -------- ---------------- ------ ----- "
                    "------ --------- --------- - ---------\n");
}

/* nodes: 0 none, 1 under the row (-n), 2 at its end (-n -1). */
static void alt_row(const struct cmd_ctx *c, const struct qrow *r, int nodes, struct cmd_buf *b)
{
    const struct job *j = r->j;
    char sess[32] = "-- ", nds[32] = "-- ", mem[CMD_TIME_MAX] = "-- ", req[CMD_TIME_MAX],
         elap[CMD_TIME_MAX] = "-- ";
    if (r->x.session > 0 && j->state == JOB_RUNNING)
        snprintf(sess, sizeof sess, "%ld", r->x.session);
    if (j->nodes > 0)
        snprintf(nds, sizeof nds, "%d", j->nodes);
    if (job_mem_mb(r) > 0)
        mem_text(job_mem_mb(r), mem);
    hms(j->walltime, req);
    if (r->elapsed >= 0)
        hms(r->elapsed, elap);
    cmd_buf_printf(b, "%-23.23s %-11.11s %-8.8s %-16.16s %6.6s %5.5s %6lld %9.9s %9.9s %c %9.9s",
                   r->id, j->user->name, j->class_->name, row_name(r), sess, nds, job_procs(j), mem,
                   req, r->state, elap);
    if (!nodes) {
        cmd_buf_puts(b, "\n");
        return;
    }
    struct cmd_buf h = {0};
    if (r->placed)
        exec_host(c, j, &h);
    cmd_buf_printf(b, nodes == 2 ? "   %s\n" : "\n   %s\n", h.s ? h.s : " --");
    free(h.s);
}

/* ctime()'s layout with the year, on the commands' clock (UTC, or the
 * daemon's zone): "Thu Jan  1 00:00:00 1970". */
static void full_date(const struct cmd_ctx *c, long t, char out[CMD_TIME_MAX])
{
    char d[CMD_TIME_MAX];
    cmd_fmt_date(c, t, d);
    struct tm tm;
    int year = cmd_clock_tm(cmd_epoch(c, t), &tm) == 0 ? tm.tm_year + 1900 : 1970;
    snprintf(out, CMD_TIME_MAX, "%.19s %d", d, year % 100000);
}

static const char *hold_types(const struct job *j, char out[8])
{
    size_t k = 0;
    if (j->holds & HOLD_USER)
        out[k++] = 'u';
    if (j->holds & HOLD_BATCH)
        out[k++] = 'o';
    if (j->holds & (HOLD_SYSTEM | HOLD_DEP |
                    HOLD_SLOT)) /* Torque's dependency and slot holds are system ones */
        out[k++] = 's';
    if (!k)
        out[k++] = 'n';
    out[k] = '\0';
    return out;
}

/* An output path, or Torque's default <cwd>/<name>.o<id> when none was
 * given (what the local resource manager writes). */
static void path_line(struct cmd_buf *b, const char *attr, const char *srv, const struct qrow *r,
                      const char *path, char kind)
{
    const struct job *j = r->j;
    if (path)
        cmd_buf_printf(b, "    %s = %s:%s\n", attr, srv, path);
    else if (j->array) /* an array task's file: <name>.o<array>-<index>, as Torque's */
        cmd_buf_printf(b, "    %s = %s:%s/%s.%c%s-%u\n", attr, srv, r->x.cwd, row_name(r), kind,
                       j->array, j->aindex);
    else
        cmd_buf_printf(b, "    %s = %s:%s/%s.%c%s\n", attr, srv, r->x.cwd, row_name(r), kind,
                       j->name);
}

static void full_job(const struct cmd_ctx *c, const struct qrow *r, struct cmd_buf *b)
{
    const struct job *j = r->j;
    const char *srv = c->server ? c->server : "moku";
    char t[CMD_TIME_MAX], holds[8];
    cmd_buf_printf(b, "Job Id: %s\n", r->id);
    cmd_buf_printf(b, "    Job_Name = %s\n", row_name(r));
    cmd_buf_printf(b, "    Job_Owner = %s@%s\n", j->user->name, srv);
    if (r->elapsed >= 0) {
        hms(r->elapsed, t);
        cmd_buf_printf(b, "    resources_used.walltime = %s\n", t);
    }
    cmd_buf_printf(b, "    job_state = %c\n", r->state);
    cmd_buf_printf(b, "    queue = %s\n", j->class_->name);
    cmd_buf_printf(b, "    server = %s\n", srv);
    if (strcmp(j->account->name, "DEFAULT") != 0)
        cmd_buf_printf(b, "    Account_Name = %s\n", j->account->name);
    full_date(c, j->submit, t);
    cmd_buf_printf(b, "    ctime = %s\n", t);
    if (r->x.err_path || r->x.cwd)
        path_line(b, "Error_Path", srv, r, r->x.err_path, 'e');
    if (j->state == JOB_RUNNING && r->placed) {
        struct cmd_buf h = {0};
        exec_host(c, j, &h);
        cmd_buf_printf(b, "    exec_host = %s\n", h.s ? h.s : "");
        free(h.s);
    }
    cmd_buf_printf(b, "    Hold_Types = %s\n", hold_types(j, holds));
    if (j->ndeps && j->state == JOB_IDLE) {
        char dep[512];
        if (dep_text(j->deps, j->ndeps, dep, sizeof dep) && dep[0])
            cmd_buf_printf(b, "    depend = %s\n", dep);
    }
    if (r->x.out_path || r->x.cwd)
        path_line(b, "Output_Path", srv, r, r->x.out_path, 'o');
    cmd_buf_printf(b, "    Priority = 0\n");
    full_date(c, j->submit, t);
    cmd_buf_printf(b, "    qtime = %s\n", t);
    cmd_buf_printf(b, "    Resource_List.nodect = %d\n", j->nodes > 0 ? j->nodes : 1);
    if (j->nodes > 0 && j->tpn > 0)
        cmd_buf_printf(b, "    Resource_List.nodes = %d:ppn=%d\n", j->nodes,
                       j->tpn * j->procs_per_task);
    else
        cmd_buf_printf(b, "    Resource_List.nodes = %lld\n", job_procs(j));
    if (job_mem_mb(r) > 0) {
        mem_text(job_mem_mb(r), t);
        cmd_buf_printf(b, "    Resource_List.mem = %s\n", t);
    }
    hms(j->walltime, t);
    cmd_buf_printf(b, "    Resource_List.walltime = %s\n", t);
    if (r->x.session > 0 && j->state == JOB_RUNNING)
        cmd_buf_printf(b, "    session_id = %ld\n", r->x.session);
    cmd_buf_printf(b, "    euser = %s\n", j->user->name);
    cmd_buf_printf(b, "    egroup = %s\n", j->group->name);
    if (r->x.cwd)
        cmd_buf_printf(b, "    init_work_dir = %s\n", r->x.cwd);
    if (j->start > 0 && j->state != JOB_IDLE) {
        full_date(c, j->start, t);
        cmd_buf_printf(b, "    start_time = %s\n", t);
    }
    if (j->state == JOB_COMPLETED || j->state == JOB_REMOVED) {
        if (j->exit_status >= 0)
            cmd_buf_printf(b, "    exit_status = %d\n", j->exit_status);
        full_date(c, j->end, t);
        cmd_buf_printf(b, "    comp_time = %s\n", t);
    }
    if (j->message)
        cmd_buf_printf(b, "    comment = %s\n", j->message);
    cmd_buf_puts(b, "\n");
}

static json_t *json_row(const struct cmd_ctx *c, const struct qrow *r)
{
    const struct job *j = r->j;
    char st[2] = {r->state, '\0'};
    json_t *o =
        json_pack("{s:o, s:o, s:o, s:o, s:o, s:s}", "id", cmd_jstr(r->id), "name",
                  cmd_jstr(row_name(r)), "user", cmd_jstr(j->user->name), "group",
                  cmd_jstr(j->group->name), "queue", cmd_jstr(j->class_->name), "state", st);
    json_object_set_new(o, "nodes", j->nodes > 0 ? json_integer(j->nodes) : json_null());
    json_object_set_new(o, "tasks", json_integer(job_procs(j)));
    json_object_set_new(o, "mem_mb", job_mem_mb(r) > 0 ? json_integer(job_mem_mb(r)) : json_null());
    json_object_set_new(o, "walltime", json_integer(j->walltime));
    json_object_set_new(o, "elapsed", r->elapsed >= 0 ? json_integer(r->elapsed) : json_null());
    json_object_set_new(o, "submit", json_integer(cmd_epoch(c, j->submit)));
    struct cmd_buf h = {0};
    if (r->placed)
        exec_host(c, j, &h);
    json_object_set_new(o, "exec_host", h.s ? cmd_jstr(h.s) : json_null());
    free(h.s);
    return o;
}

/* ---- qstat ---- */

enum qstat_view { QSTAT_DEFAULT, QSTAT_ALT, QSTAT_FULL };

/* What qstat shows: jobs, or Torque's queue (-Q, -q) or server (-B) summaries. */
enum qstat_what { QSTAT_JOBS, QSTAT_QUEUES, QSTAT_LIMITS, QSTAT_SERVER };

struct qstat_opts {
    enum qstat_view view;
    enum qstat_what what;
    int nodes, ended, xml, one_line;
    int tasks;         /* -t: a job array's tasks, each on its line */
    char only;         /* 'r' running or suspended, 'i' queued, held or waiting, 0 all */
    const char *users; /* -u: comma list, NULL = all */
    int first_id;      /* index of the first job operand, argc = none */
};

static int in_list(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; *p;) {
        size_t k = strcspn(p, ",");
        if (k == n && strncmp(p, name, n) == 0)
            return 1;
        p += k + (p[k] == ',');
    }
    return 0;
}

static int qstat_args(const struct cmd_args *a, struct qstat_opts *o, struct err *err)
{
    *o = (struct qstat_opts){.view = QSTAT_DEFAULT, .first_id = a->argc};
    int i = 0;
    for (; i < a->argc && a->argv[i][0] == '-' && a->argv[i][1]; i++) {
        for (const char *f = a->argv[i] + 1; *f; f++) {
            switch (*f) {
            case 'a':
                o->view = o->view == QSTAT_FULL ? QSTAT_FULL : QSTAT_ALT;
                break;
            case 'n':
                o->nodes = 1;
                o->view = o->view == QSTAT_FULL ? QSTAT_FULL : QSTAT_ALT;
                break;
            case 'r':
            case 'i':
                o->only = *f;
                o->view = o->view == QSTAT_FULL ? QSTAT_FULL : QSTAT_ALT;
                break;
            case 'f':
                o->view = QSTAT_FULL;
                break;
            case 'x':
                o->xml = 1;
                o->view = QSTAT_FULL;
                break;
            case 'c':
                o->ended = 1;
                break;
            case '1':
                o->one_line = 1;
                break; /* -f never wraps; -n: nodes on the row */
            case 't':
                o->tasks = 1;
                break;
            case 'Q':
                o->what = QSTAT_QUEUES;
                break;
            case 'q':
                o->what = QSTAT_LIMITS;
                break;
            case 'B':
                o->what = QSTAT_SERVER;
                break;
            case 'u':
                if (f[1] || i + 1 >= a->argc)
                    return err_usage(err, "qstat: -u needs a user list (qstat -u USER[,USER])");
                o->users = a->argv[++i];
                if (o->view == QSTAT_DEFAULT)
                    o->view = QSTAT_ALT;
                goto next;
            default:
                return err_usage(err,
                                 "qstat: unknown option '%s' (usage: qstat [-a|-i|-r|-f] "
                                 "[-n [-1]] [-x] [-c] [-t] [-u USER] [JOB...]; qstat -Q|-q|-B)",
                                 cmd_word(a->argv[i]));
            }
        }
    next:;
    }
    if (o->nodes && o->one_line)
        o->nodes = 2;
    o->first_id = i;
    return 0;
}

static int ended(const struct job *j)
{
    return j->state == JOB_COMPLETED || j->state == JOB_REMOVED;
}

static int listed(const struct cmd_ctx *c, const struct qstat_opts *o, const struct job *j)
{
    if (!j || (ended(j) && (!o->ended || !own_or_admin(c, j))))
        return 0;
    if (o->only == 'r' && j->state != JOB_RUNNING)
        return 0;
    if (o->only == 'i' && j->state != JOB_IDLE)
        return 0;
    return !o->users || in_list(o->users, j->user->name);
}

/* ---- Torque's XML (qstat -x, pbsnodes -x) ---- */

static void xml_text(struct cmd_buf *b, const char *s, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        switch (s[k]) {
        case '<':
            cmd_buf_puts(b, "&lt;");
            break;
        case '>':
            cmd_buf_puts(b, "&gt;");
            break;
        case '&':
            cmd_buf_puts(b, "&amp;");
            break;
        case '"':
            cmd_buf_puts(b, "&quot;");
            break;
        default:
            cmd_buf_printf(b, "%c", s[k]);
        }
    }
}

/* One "attr = value" line as <attr>value</attr>; "parent.child = value"
 * as <child> inside <parent>, the children of one parent together (Torque's
 * <Resource_List><nodes>...</nodes><walltime>...</walltime></Resource_List>):
 * every later line with the same parent is taken in at the first. */
static void xml_attrs(struct cmd_buf *b, char **lines, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (!lines[i])
            continue;
        char *eq = strstr(lines[i], " = "), *dot = strchr(lines[i], '.');
        if (!eq)
            continue;
        if (!dot || dot > eq) {
            cmd_buf_printf(b, "<%.*s>", (int)(eq - lines[i]), lines[i]);
            xml_text(b, eq + 3, strlen(eq + 3));
            cmd_buf_printf(b, "</%.*s>", (int)(eq - lines[i]), lines[i]);
            continue;
        }
        size_t plen = (size_t)(dot - lines[i]);
        cmd_buf_printf(b, "<%.*s>", (int)plen, lines[i]);
        for (size_t k = i; k < n; k++) {
            char *e2 = lines[k] ? strstr(lines[k], " = ") : NULL;
            if (!e2 || strncmp(lines[k], lines[i], plen + 1) != 0)
                continue;
            const char *child = lines[k] + plen + 1;
            cmd_buf_printf(b, "<%.*s>", (int)(e2 - child), child);
            xml_text(b, e2 + 3, strlen(e2 + 3));
            cmd_buf_printf(b, "</%.*s>", (int)(e2 - child), child);
            if (k != i)
                lines[k] = NULL;
        }
        cmd_buf_printf(b, "</%.*s>", (int)plen, lines[i]);
    }
}

/* Blocks of text (a header line, then indented "attr = value" lines, a
 * blank line between blocks) as Torque's XML: <Data><Elem><key>header
 * </key>attributes</Elem>...</Data>. head_prefix is taken off the header
 * line ("Job Id: "). */
static void xml_blocks(struct cmd_buf *out, const char *text, const char *elem, const char *key,
                       const char *head_prefix)
{
    char *copy = xstrdup(text ? text : ""), *save = NULL;
    char **lines = NULL;
    size_t n = 0, cap = 0;
    cmd_buf_puts(out, "<?xml version=\"1.0\"?>\n<Data>");
    int open = 0;
    for (char *l = strtok_r(copy, "\n", &save);; l = strtok_r(NULL, "\n", &save)) {
        if (!l || (l[0] != ' ' && open)) {
            xml_attrs(out, lines, n);
            cmd_buf_printf(out, "</%s>", elem);
            n = 0, open = 0;
        }
        if (!l)
            break;
        if (l[0] != ' ') {
            size_t k = strlen(head_prefix);
            const char *h = strncmp(l, head_prefix, k) == 0 ? l + k : l;
            cmd_buf_printf(out, "<%s><%s>", elem, key);
            xml_text(out, h, strlen(h));
            cmd_buf_printf(out, "</%s>", key);
            open = 1;
            continue;
        }
        lines = xgrow(lines, &cap, n + 1, sizeof *lines);
        lines[n++] = l + strspn(l, " ");
    }
    cmd_buf_puts(out, "</Data>\n");
    free(lines);
    free(copy);
}

/* ---- queues and server (-Q, -q, -B) ---- */

struct qcount {
    long tot, que, run, hld, wat;
};

static void count_job(const struct job *j, struct qcount *q)
{
    if (ended(j))
        return;
    q->tot++;
    char st = torque_state(j);
    q->que += st == 'Q';
    q->run += st == 'R' || st == 'S';
    q->hld += st == 'H';
    q->wat += st == 'W';
}

static struct qcount class_count(const struct cmd_ctx *c, const struct cred *cl)
{
    struct qcount q = {0};
    for (size_t i = 0; i < sched_njobs(c->s); i++) {
        const struct job *j = sched_job(c->s, i);
        if (j && (!cl || j->class_ == cl))
            count_job(j, &q);
    }
    return q;
}

/* The classes qstat -Q/-q lists: the operands (each must be a class), or every one. */
static int queue_list(const struct cmd_ctx *c, const struct cmd_args *a, int first,
                      const struct cred ***out, size_t *n, struct err *err)
{
    struct cred_table *t = sched_creds(c->s, CRED_CLASS);
    *n = 0;
    *out = NULL;
    size_t cap = 0;
    if (first < a->argc) {
        for (int i = first; i < a->argc; i++) {
            char name[256];
            snprintf(name, sizeof name, "%.*s", (int)strcspn(a->argv[i], "@"), a->argv[i]);
            const struct cred *cl = cred_find(t, name);
            if (!cl) {
                free(*out);
                return err_set(err, "qstat: Unknown queue %s", cmd_word(a->argv[i]));
            }
            *out = xgrow(*out, &cap, *n + 1, sizeof **out);
            (*out)[(*n)++] = cl;
        }
        return 0;
    }
    for (size_t i = 0; i < cred_count(t); i++) {
        *out = xgrow(*out, &cap, *n + 1, sizeof **out);
        (*out)[(*n)++] = cred_at(t, i);
    }
    return 0;
}

static void queues_view(const struct cmd_ctx *c, const struct cred **cls, size_t n,
                        struct cmd_buf *out)
{
    cmd_buf_puts(
        out, "Queue              Max   Tot   Ena   Str   Que   Run   Hld   Wat   Trn   Ext T\n"
             "----------------   ---   ---   ---   ---   ---   ---   ---   ---   ---   --- -\n");
    for (size_t i = 0; i < n; i++) {
        struct qcount q = class_count(c, cls[i]);
        cmd_buf_printf(out, "%-16.16s %5d %5ld   yes   yes %5ld %5ld %5ld %5ld %5d %5d E\n",
                       cls[i]->name, 0, q.tot, q.que, q.run, q.hld, q.wat, 0, 0);
    }
}

static void limits_view(const struct cmd_ctx *c, const struct cred **cls, size_t n,
                        struct cmd_buf *out)
{
    cmd_buf_printf(out, "\nserver: %s\n\n", c->server ? c->server : "moku");
    cmd_buf_puts(out, "Queue            Memory CPU Time Walltime Node  Run Que Lm  State\n"
                      "---------------- ------ -------- -------- ----  --- --- --  -----\n");
    long run = 0, que = 0;
    for (size_t i = 0; i < n; i++) {
        struct qcount q = class_count(c, cls[i]);
        cmd_buf_printf(out, "%-16.16s   --      --       --      --  %3ld %3ld --   E R\n",
                       cls[i]->name, q.run, q.que + q.hld + q.wat);
        run += q.run, que += q.que + q.hld + q.wat;
    }
    cmd_buf_printf(out,
                   "                                               ----- -----\n"
                   "                                               %5ld %5ld\n",
                   run, que);
}

static void server_view(const struct cmd_ctx *c, struct cmd_buf *out)
{
    struct qcount q = class_count(c, NULL);
    cmd_buf_puts(out,
                 "Server             Max   Tot   Que   Run   Hld   Wat   Trn   Ext Status\n"
                 "----------------   ---   ---   ---   ---   ---   ---   ---   --- ----------\n");
    cmd_buf_printf(out, "%-16.16s %5d %5ld %5ld %5ld %5ld %5ld %5d %5d Active\n",
                   c->server ? c->server : "moku", 0, q.tot, q.que, q.run, q.hld, q.wat, 0, 0);
}

static int summary(const struct cmd_ctx *c, const struct cmd_args *a, const struct qstat_opts *o,
                   struct cmd_buf *out, struct err *err)
{
    if (o->what == QSTAT_SERVER) {
        server_view(c, out);
        return 0;
    }
    const struct cred **cls;
    size_t n;
    if (queue_list(c, a, o->first_id, &cls, &n, err) < 0)
        return -1;
    if (o->what == QSTAT_QUEUES)
        queues_view(c, cls, n, out);
    else
        limits_view(c, cls, n, out);
    free(cls);
    return 0;
}

static void qstat_one(const struct cmd_ctx *c, const struct qstat_opts *o, const struct job *j,
                      int *n, json_t *arr, struct cmd_buf *out)
{
    struct qrow r;
    row_init(c, j, &r);
    if (arr) {
        json_array_append_new(arr, json_row(c, &r));
        row_free(&r);
        return;
    }
    if ((*n)++ == 0 && o->view == QSTAT_DEFAULT)
        default_head(out);
    if ((*n) == 1 && o->view == QSTAT_ALT)
        alt_head(c, out);
    if (o->view == QSTAT_DEFAULT)
        default_row(&r, out);
    else if (o->view == QSTAT_ALT)
        alt_row(c, &r, o->nodes, out);
    else
        full_job(c, &r, out);
    row_free(&r);
}

static int qstat_jobs(const struct cmd_ctx *c, const struct cmd_args *a,
                      const struct qstat_opts *op, struct cmd_buf *out, struct err *err);

/* ---- job arrays ---- */

/* The array a whole-array id names ("12[]", "12[].server": "12", into out
 * of n bytes), or NULL. */
static const char *whole_array(const char *word, char *out, size_t n)
{
    char id[64];
    const char *bare = cmd_job_id(word, id, sizeof id);
    size_t d = strspn(bare, "0123456789");
    if (!d || strcmp(bare + d, "[]") != 0 || d >= n)
        return NULL;
    memcpy(out, bare, d);
    out[d] = '\0';
    return out;
}

/* Whether j is a task named as Torque names them, "12[3]" in array "12"
 * (the local resource manager's; a Slurm task keeps Slurm's own id, which
 * no command takes as "<array>[]": it is shown as a job). */
static int torque_task(const struct job *j, const char *array)
{
    if (!j || !j->array || (array && strcmp(j->array, array) != 0))
        return 0;
    size_t n = strlen(j->array);
    return strncmp(j->name, j->array, n) == 0 && j->name[n] == '[';
}

/* Whether the tasks of arrays are shown one line each. */
static int task_lines(const struct qstat_opts *o, const json_t *arr)
{
    return o->tasks || arr || o->view == QSTAT_FULL;
}

/* One state for an array's tasks: R (or S) while any runs, else Q, W, H, C. */
static char array_state(const char *seen)
{
    static const char order[] = "RSQWHC";
    for (const char *s = order; *s; s++)
        if (strchr(seen, *s))
            return *s;
    return 'C';
}

/* Array `array`'s line: its first task's row, named "<array>[]", with the
 * state of all its tasks (those `all` or listed). 0 when it has none. */
static int array_line(const struct cmd_ctx *c, const struct qstat_opts *o, const char *array,
                      int all, int *n, struct cmd_buf *out)
{
    const struct job *first = NULL;
    char seen[8] = "";
    for (size_t i = 0; i < sched_njobs(c->s); i++) {
        const struct job *j = sched_job(c->s, i);
        if (!torque_task(j, array) || !(all || listed(c, o, j)))
            continue;
        first = first ? first : j;
        char st = torque_state(j);
        size_t k = strlen(seen);
        if (!strchr(seen, st) && k < sizeof seen - 1) {
            seen[k] = st;
            seen[k + 1] = '\0';
        }
    }
    if (!first)
        return 0;
    struct qrow r;
    row_init(c, first, &r);
    if (c->server)
        snprintf(r.id, sizeof r.id, "%s[].%s", array, c->server);
    else
        snprintf(r.id, sizeof r.id, "%s[]", array);
    r.state = array_state(seen);
    r.elapsed = -1;
    if ((*n)++ == 0)
        o->view == QSTAT_DEFAULT ? default_head(out) : alt_head(c, out);
    if (o->view == QSTAT_DEFAULT)
        default_row(&r, out);
    else
        alt_row(c, &r, o->nodes, out);
    row_free(&r);
    return 1;
}

/* Operand w, a whole array: its line, or (task_lines) its tasks. 0 when
 * the array has no task. */
static int array_operand(const struct cmd_ctx *c, const struct qstat_opts *o, const char *array,
                         int *n, json_t *arr, struct cmd_buf *out)
{
    if (!task_lines(o, arr))
        return array_line(c, o, array, 1, n, out);
    int any = 0;
    for (size_t i = 0; i < sched_njobs(c->s); i++) {
        const struct job *j = sched_job(c->s, i);
        if (torque_task(j, array) && (!ended(j) || own_or_admin(c, j))) {
            qstat_one(c, o, j, n, arr, out);
            any = 1;
        }
    }
    return any;
}

/* Whether array `array` has a task an operand may name. */
static int array_known(const struct cmd_ctx *c, const char *array)
{
    for (size_t i = 0; i < sched_njobs(c->s); i++) {
        const struct job *j = sched_job(c->s, i);
        if (torque_task(j, array) && (!ended(j) || own_or_admin(c, j)))
            return 1;
    }
    return 0;
}

int cmd_qstat(const struct cmd_ctx *c, const struct cmd_args *a, struct cmd_buf *out,
              struct err *err)
{
    struct qstat_opts o;
    if (qstat_args(a, &o, err) < 0)
        return -1;
    if (o.what != QSTAT_JOBS)
        return summary(c, a, &o, out, err);
    if (o.xml && !a->json) {
        struct cmd_buf text = {0};
        struct cmd_args plain = *a;
        int rc = qstat_jobs(c, &plain, &o, &text, err);
        if (rc == 0)
            xml_blocks(out, text.s, "Job", "Job_Id", "Job Id: ");
        free(text.s);
        return rc;
    }
    return qstat_jobs(c, a, &o, out, err);
}

static int qstat_jobs(const struct cmd_ctx *c, const struct cmd_args *a,
                      const struct qstat_opts *op, struct cmd_buf *out, struct err *err)
{
    struct qstat_opts o = *op;
    /* Named jobs first: one unknown is Torque's error (qstat exits 153);
     * another user's ended job is not the caller's to see (showq). */
    for (int i = o.first_id; i < a->argc; i++) {
        char array[32];
        if (whole_array(a->argv[i], array, sizeof array)) {
            if (!array_known(c, array))
                return err_set(err, "qstat: Unknown Job Id %s", cmd_word(a->argv[i]));
            continue;
        }
        const struct job *j = cmd_find_job(c->s, a->argv[i]);
        if (!j)
            return err_set(err, "qstat: Unknown Job Id %s", cmd_word(a->argv[i]));
        if (ended(j) && !own_or_admin(c, j))
            return err_set(err, "qstat: Unauthorized Request  %s (another user's ended job)",
                           cmd_word(a->argv[i]));
    }
    json_t *arr = a->json ? json_array() : NULL;
    int n = 0;
    if (o.first_id < a->argc) {
        for (int i = o.first_id; i < a->argc; i++) {
            char array[32];
            if (whole_array(a->argv[i], array, sizeof array))
                array_operand(c, &o, array, &n, arr, out);
            else
                qstat_one(c, &o, cmd_find_job(c->s, a->argv[i]), &n, arr, out);
        }
    } else {
        struct strmap shown; /* arrays whose line is out */
        strmap_init(&shown);
        for (size_t i = 0; i < sched_njobs(c->s); i++) {
            const struct job *j = sched_job(c->s, i);
            if (!listed(c, &o, j))
                continue;
            if (torque_task(j, NULL) && !task_lines(&o, arr)) {
                size_t v;
                if (!strmap_get(&shown, j->array, &v)) {
                    strmap_put(&shown, j->array, 1);
                    array_line(c, &o, j->array, 0, &n, out);
                }
                continue;
            }
            qstat_one(c, &o, j, &n, arr, out);
        }
        strmap_free(&shown);
    }
    if (arr)
        cmd_json_out(out, json_pack("{s:o}", "jobs", arr));
    return 0;
}

/* ---- pbsnodes ---- */

static const char *node_torque_state(const struct cmd_ctx *c, size_t i)
{
    const struct node *n = sched_node(c->s, i);
    if (n->state == NODE_DRAINED)
        return "offline";
    if (n->state == NODE_DOWN)
        return "down";
    return sched_node_used(c->s, i) >= n->procs ? "job-exclusive" : "free";
}

/* "0/5.srv, 1/5.srv, 2/7.srv": each used processor and its job (for an
 * ordinary user, their own jobs only: checknode's jobs are the
 * administrators'). */
static void node_jobs(const struct cmd_ctx *c, size_t idx, struct cmd_buf *b)
{
    long long core = 0;
    int shown = 0;
    for (size_t i = 0; i < sched_njobs(c->s); i++) {
        const struct job *j = sched_job(c->s, i);
        if (!j || j->state != JOB_RUNNING)
            continue;
        long long p = cmd_job_procs_on(j, idx);
        for (long long k = 0; k < p; k++, core++)
            if (own_or_admin(c, j))
                cmd_buf_printf(b, "%s%lld/%s%s%s", shown++ ? ", " : "", core, j->name,
                               c->server ? "." : "", c->server ? c->server : "");
    }
}

/* A node's note (pbsnodes -N, a drain's reason): the administrators'. */
static const char *node_note(const struct cmd_ctx *c, const struct node *n)
{
    return c->ordinary ? NULL : n->reason;
}

static void node_block(const struct cmd_ctx *c, size_t i, struct cmd_buf *out)
{
    const struct node *n = sched_node(c->s, i);
    cmd_buf_printf(out, "%s\n     state = %s\n     np = %d\n", n->name, node_torque_state(c, i),
                   n->procs);
    if (n->nfeatures) {
        cmd_buf_puts(out, "     properties = ");
        for (size_t k = 0; k < n->nfeatures; k++)
            cmd_buf_printf(out, "%s%s", k ? "," : "", n->features[k]);
        cmd_buf_puts(out, "\n");
    }
    cmd_buf_puts(out, "     ntype = cluster\n");
    struct cmd_buf jb = {0};
    node_jobs(c, i, &jb);
    if (jb.s)
        cmd_buf_printf(out, "     jobs = %s\n", jb.s);
    free(jb.s);
    if (node_note(c, n))
        cmd_buf_printf(out, "     note = %s\n", node_note(c, n));
    cmd_buf_puts(out, "\n");
}

static json_t *node_json(const struct cmd_ctx *c, size_t i)
{
    const struct node *n = sched_node(c->s, i);
    json_t *f = json_array();
    for (size_t k = 0; k < n->nfeatures; k++)
        json_array_append_new(f, cmd_jstr(n->features[k]));
    struct cmd_buf jb = {0};
    node_jobs(c, i, &jb);
    json_t *o = json_pack("{s:o, s:s, s:i, s:i, s:o, s:o, s:o}", "name", cmd_jstr(n->name), "state",
                          node_torque_state(c, i), "np", n->procs, "used", sched_node_used(c->s, i),
                          "properties", f, "jobs", jb.s ? cmd_jstr(jb.s) : json_null(), "note",
                          cmd_jstr(node_note(c, n)));
    free(jb.s);
    return o;
}

int cmd_pbsnodes(const struct cmd_ctx *c, const struct cmd_args *a, struct cmd_buf *out,
                 struct err *err)
{
    int list_down = 0, xml = 0, i = 0;
    for (; i < a->argc && a->argv[i][0] == '-'; i++) {
        if (strcmp(a->argv[i], "-a") == 0)
            continue;
        if (strcmp(a->argv[i], "-l") == 0)
            list_down = 1;
        else if (strcmp(a->argv[i], "-x") == 0)
            xml = 1;
        else
            return err_usage(err,
                             "pbsnodes: unknown option '%s' (pbsnodes [-a|-l|-x] [NODE...]; "
                             "-o and -c change nodes through the daemon)",
                             cmd_word(a->argv[i]));
    }
    if (xml && !list_down && !a->json) {
        struct cmd_args plain = *a;
        plain.argc = a->argc - i;
        plain.argv = a->argv + i;
        struct cmd_buf text = {0};
        int rc = cmd_pbsnodes(c, &plain, &text, err);
        if (rc == 0)
            xml_blocks(out, text.s, "Node", "name", "");
        free(text.s);
        return rc;
    }
    for (int k = i; k < a->argc; k++)
        if (sched_find_node(c->s, a->argv[k]) < 0)
            return err_set(err, "pbsnodes: Unknown node  MSG=cannot locate specified node '%s'",
                           cmd_word(a->argv[k]));
    json_t *arr = a->json ? json_array() : NULL;
    size_t n = i < a->argc ? (size_t)(a->argc - i) : sched_nnodes(c->s);
    for (size_t k = 0; k < n; k++) {
        size_t idx = i < a->argc ? (size_t)sched_find_node(c->s, a->argv[i + (int)k]) : k;
        const char *st = node_torque_state(c, idx);
        if (list_down && strcmp(st, "offline") != 0 && strcmp(st, "down") != 0)
            continue;
        if (arr)
            json_array_append_new(arr, node_json(c, idx));
        else if (list_down)
            cmd_buf_printf(out, "%-20s %s\n", sched_node(c->s, idx)->name, st);
        else
            node_block(c, idx, out);
    }
    if (arr)
        cmd_json_out(out, json_pack("{s:o}", "nodes", arr));
    return 0;
}
