/* val — see val.h. Reading the inputs, then one check per function. */
#include "validate/val.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cfg/cfg.h"
#include "trace/mtrace.h"
#include "util/hostrange.h"
#include "util/mem.h"
#include "util/strmap.h"
#include "validate/val_int.h"

#define NEVER LONG_MAX /* the end of a job still running */

struct node {
    char *name;
    long procs;
    int down;   /* a resource trace has it down or drained: no job may run there */
    size_t run; /* the first node of its run of numbered names (util/hostrange.h) */
};

/* Processors on count nodes from node on (a range entry, node[1-4]:2, is
 * one place). */
struct place {
    size_t node, count;
    long procs;
};
struct stint {
    long start, end;
    struct place *p;
    size_t np;
};

struct job {
    char *id;
    long line;
    long submit, start, end; /* start/end -1: none */
    long procs, walltime, runtime;
    char *state;
    struct val_creds c;
    char *cred[5];
    struct stint *runs; /* segments, then the last run */
    size_t nruns;
    long held_from; /* hold intervals from the commands: see holds */
};

struct hold {
    long from, to; /* [from, to) */
};

/* What the commands did to one job. */
struct jobcmd {
    char *id;
    struct hold *h;
    size_t nh;
    long forced;    /* runjob time, -1 = none: exempt from limits, holds, reservations */
    long cancelled; /* the last canceljob time, -1 = none */
    long *cancels;  /* every canceljob time (one may have failed) */
    size_t ncancels;
};

struct resv {
    char *id, *acl, *flags;
    long created, start, end; /* end: the release when it came first */
    struct place *p;
    size_t np;
};

struct val {
    const struct val_opts *o;
    FILE *out;
    struct cfg *cfg;
    struct node *nodes;
    size_t nnodes, capnodes;
    struct strmap node_ids; /* name -> index */
    struct job *jobs;
    size_t njobs, capjobs;
    struct jobcmd *cmds;
    size_t ncmds, capcmds;
    struct resv *resvs;
    size_t nresvs, capresvs;
    long overrun;
    int dedicated; /* NODEACCESSPOLICY gives jobs whole nodes: more processors than asked */
    int suspend;   /* PREEMPTPOLICY SUSPEND: a preempted job keeps its place until resumed */
    enum val_sched_kind sched; /* the schedule's format */
    int pool;                  /* an SWF or Batsim schedule: no processors per node (val_sched.c) */
    size_t violations;
};

static void violation(struct val *v, const struct job *j, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void violation(struct val *v, const struct job *j, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(v->out, "%s:%ld: job %s: ", v->o->jobs, j->line, j->id);
    vfprintf(v->out, fmt, ap);
    fputc('\n', v->out);
    va_end(ap);
    v->violations++;
}

static void note(struct val *v, const char *what)
{
    fprintf(v->out, "not checked: %s\n", what);
}

/* ---- numbers ---- */

static int num(const char *s, long *out)
{
    char *end;
    if (!s || !*s)
        return 0;
    long long x = strtoll(s, &end, 10);
    if (*end || x < LONG_MIN / 2 || x > LONG_MAX / 2)
        return -1;
    *out = (long)x;
    return 1;
}

/* ---- the cluster ---- */

static void add_node(struct val *v, const char *name, long procs)
{
    v->nodes = xgrow(v->nodes, &v->capnodes, v->nnodes + 1, sizeof *v->nodes);
    v->nodes[v->nnodes++] = (struct node){xstrdup(name), procs, 0, 0};
}

/* The name index, once the cluster is made (names live in v->nodes). */
static void index_nodes(struct val *v)
{
    strmap_init(&v->node_ids);
    for (size_t i = 0; i < v->nnodes; i++) {
        strmap_put(&v->node_ids, v->nodes[i].name, i);
        v->nodes[i].run = i > 0 && hostrange_next(v->nodes[i - 1].name, v->nodes[i].name)
                              ? v->nodes[i - 1].run
                              : i;
    }
}

static void uniform(struct val *v, long long n, long long ppn)
{
    int width = snprintf(NULL, 0, "%lld", n);
    char name[40];
    for (long long i = 1; i <= n; i++) {
        snprintf(name, sizeof name, "node%0*lld", width, i);
        add_node(v, name, (long)ppn);
    }
}

/* NODECFG lines, else --nodes/--ppn or --procs, else the trace header:
 * as `moku simulate` builds it (docs/simulation.md). */
/* The nodes of a Maui resource trace, as the simulator takes them: a node
 * of no processors is never schedulable (left out), one defined but not
 * available, or drained, holds no job. */
static int resource_nodes(struct val *v, const char *path, struct err *err)
{
    struct mtrace_resource t;
    struct err e;
    if (mtrace_read_resource(path, &t, &e) < 0)
        return err_set(err, "%s", e.msg);
    for (size_t i = 0; i < t.nnodes; i++)
        if (t.nodes[i].procs > 0) {
            add_node(v, t.nodes[i].name, t.nodes[i].procs);
            v->nodes[v->nnodes - 1].down = t.nodes[i].event != MTRACE_AVAILABLE;
        }
    mtrace_resource_free(&t);
    return v->nnodes ? 0 : err_set(err, "%s: no node with processors", path);
}

static int cluster(struct val *v, long long hdr_nodes, long long hdr_procs, struct err *err)
{
    for (size_t i = 0; i < cfg_nobjs(v->cfg); i++) {
        const struct cfg_obj *o = cfg_obj_at(v->cfg, i);
        if (strcmp(o->kind, "NODECFG") != 0 || strcmp(o->name, "DEFAULT") == 0)
            continue;
        long procs = 1;
        const char *p = cfg_obj_get(o, "PROCS", NULL);
        if (p && (num(p, &procs) != 1 || procs < 0))
            return err_set(err, "NODECFG[%s] PROCS: '%s' is not a count", o->name, p);
        add_node(v, o->name, procs);
    }
    if (v->nnodes)
        return 0;
    const char *rtrace = v->o->resources;
    if (!rtrace && !v->o->nodes && !v->o->procs && cfg_is_set(v->cfg, "SIMRESOURCETRACEFILE", NULL))
        rtrace = cfg_str(v->cfg, "SIMRESOURCETRACEFILE", NULL);
    if (rtrace)
        return resource_nodes(v, rtrace, err);
    if (v->o->nodes)
        uniform(v, v->o->nodes, v->o->ppn);
    else if (v->o->procs)
        uniform(v, v->o->procs, 1);
    else if (hdr_nodes > 0 && hdr_procs > 0 && hdr_procs % hdr_nodes == 0)
        uniform(v, hdr_nodes, hdr_procs / hdr_nodes);
    else if (hdr_procs > 0)
        uniform(v, hdr_procs, 1);
    else
        return err_set(err, "%s: no cluster: give NODECFG lines, --nodes N --ppn P or --procs N",
                       v->o->trace);
    return 0;
}

static long node_index(const struct val *v, const char *name)
{
    size_t i;
    return strmap_get(&v->node_ids, name, &i) ? (long)i : -1;
}

/* ---- the jobs CSV ---- */

static void job_free(struct job *j)
{
    free(j->id);
    free(j->state);
    for (int k = 0; k < 5; k++)
        free(j->cred[k]);
    for (size_t i = 0; i < j->nruns; i++)
        free(j->runs[i].p);
    free(j->runs);
}

enum col {
    C_ID,
    C_SUBMIT,
    C_START,
    C_END,
    C_PROCS,
    C_NODES,
    C_WALL,
    C_RUNTIME,
    C_STATE,
    C_SEGMENTS,
    C_USER,
    C_GROUP,
    C_ACCOUNT,
    C_CLASS,
    C_QOS,
    C_RUN,
    C_N
};
static const char *const col_names[C_N] = {
    "job_id", "submit",   "start", "end",   "procs",   "nodes", "walltime", "runtime",
    "state",  "segments", "user",  "group", "account", "class", "qos",      "run"};
#define C_REQUIRED 6 /* job_id .. nodes must be there */

/* The nodes a name or a range ("node[01-64]") stands for: first and
 * count; -1 with err when the cluster lacks one. A range must be a run of
 * the cluster's nodes in table order, as the simulator writes them. */
static int place_nodes(struct val *v, const char *w, size_t *first, size_t *count, struct err *err)
{
    long k = node_index(v, w);
    struct hostrange r;
    *count = 1;
    if (k >= 0 || !hostrange_parse(w, &r)) {
        *first = (size_t)k;
        return k >= 0 ? 0 : err_set(err, "node '%s' is not in the cluster", w);
    }
    char lo[256], hi[256];
    if (hostrange_name(w, &r, r.lo, lo, sizeof lo) < 0 ||
        hostrange_name(w, &r, r.hi, hi, sizeof hi) < 0)
        return err_set(err, "node range '%s' is too long", w);
    long a = node_index(v, lo), b = node_index(v, hi);
    if (a < 0 || b < 0)
        return err_set(err, "node '%s' of '%s' is not in the cluster", a < 0 ? lo : hi, w);
    if ((unsigned long long)(b - a) != r.hi - r.lo || v->nodes[a].run != v->nodes[b].run)
        return err_set(err, "node range '%s' is not a run of the cluster's nodes", w);
    *first = (size_t)a;
    *count = (size_t)(b - a) + 1;
    return 0;
}

/* "n1:2 n3:2 n[4-9]:1" into places; -1 with err for a node the cluster lacks
 * or a bad count. */
static int places(struct val *v, const char *text, struct place **out, size_t *n, struct err *err)
{
    *out = NULL;
    *n = 0;
    char *buf = xstrdup(text), *save = NULL;
    int rc = 0;
    size_t cap = 0;
    for (char *w = strtok_r(buf, " ", &save); w && rc == 0; w = strtok_r(NULL, " ", &save)) {
        char *colon = strrchr(w, ':');
        long procs;
        if (!colon || num(colon + 1, &procs) != 1 || procs <= 0) {
            rc = err_set(err, "'%s' is not name:processors", w);
            break;
        }
        *colon = '\0';
        size_t first, count;
        if ((rc = place_nodes(v, w, &first, &count, err)) < 0)
            break;
        *out = xgrow(*out, &cap, *n + 1, sizeof **out);
        (*out)[(*n)++] = (struct place){first, count, procs};
    }
    free(buf);
    return rc;
}

/* "start-end@nodes;..." (earlier runs of a preempted job). */
static int segments(struct val *v, struct job *j, const char *text, struct err *err)
{
    char *buf = xstrdup(text), *save = NULL;
    int rc = 0;
    for (char *w = strtok_r(buf, ";", &save); w && rc == 0; w = strtok_r(NULL, ";", &save)) {
        char *at = strchr(w, '@'), *dash = strchr(w, '-');
        struct stint st = {0};
        if (!at || !dash || dash > at) {
            rc = err_set(err, "segment '%s' is not start-end@nodes", w);
            break;
        }
        *at = *dash = '\0';
        if (num(w, &st.start) != 1 || num(dash + 1, &st.end) != 1) {
            rc = err_set(err, "segment times '%s-%s' are not numbers", w, dash + 1);
            break;
        }
        if ((rc = places(v, at + 1, &st.p, &st.np, err)) == 0) {
            j->runs = xrealloc(j->runs, (j->nruns + 1) * sizeof *j->runs);
            j->runs[j->nruns++] = st;
        }
    }
    free(buf);
    return rc;
}

static int job_of_row(struct val *v, const int *col, const struct val_row *r, struct job *j,
                      struct err *err)
{
    const char *f[C_N] = {0};
    for (int c = 0; c < C_N; c++)
        f[c] = col[c] >= 0 && (size_t)col[c] < r->n ? r->f[col[c]] : NULL;
    *j = (struct job){.id = xstrdup(f[C_ID] ? f[C_ID] : ""),
                      .line = r->line,
                      .start = -1,
                      .end = -1,
                      .walltime = -1,
                      .runtime = -1};
    j->state = xstrdup(f[C_STATE] ? f[C_STATE] : "");
    static const enum col names[5] = {C_USER, C_GROUP, C_ACCOUNT, C_CLASS, C_QOS};
    for (int k = 0; k < 5; k++)
        j->cred[k] = f[names[k]] && *f[names[k]] ? xstrdup(f[names[k]]) : NULL;
    j->c = (struct val_creds){j->cred[0], j->cred[1], j->cred[2], j->cred[3], j->cred[4], NULL, 0};
    const struct {
        enum col c;
        long *to;
    } nums[] = {{C_SUBMIT, &j->submit}, {C_START, &j->start},   {C_END, &j->end},
                {C_PROCS, &j->procs},   {C_WALL, &j->walltime}, {C_RUNTIME, &j->runtime}};
    for (size_t k = 0; k < sizeof nums / sizeof nums[0]; k++)
        if (num(f[nums[k].c], nums[k].to) < 0)
            return err_set(err, "%s:%ld: %s '%s' is not a number", v->o->jobs, r->line,
                           col_names[nums[k].c], f[nums[k].c]);
    struct err e;
    if (f[C_SEGMENTS] && *f[C_SEGMENTS] && segments(v, j, f[C_SEGMENTS], &e) < 0)
        return err_set(err, "%s:%ld: segments: %s", v->o->jobs, r->line, e.msg);
    if (j->start >= 0) {
        struct stint st = {j->start, j->end >= 0 ? j->end : NEVER, NULL, 0};
        if (places(v, f[C_NODES] ? f[C_NODES] : "", &st.p, &st.np, &e) < 0)
            return err_set(err, "%s:%ld: nodes: %s", v->o->jobs, r->line, e.msg);
        j->runs = xrealloc(j->runs, (j->nruns + 1) * sizeof *j->runs);
        j->runs[j->nruns++] = st;
    }
    return 0;
}

static int header(struct val *v, const struct val_row *r, int *col, struct err *err)
{
    for (int c = 0; c < C_N; c++) {
        col[c] = -1;
        for (size_t i = 0; i < r->n; i++)
            if (strcmp(r->f[i], col_names[c]) == 0)
                col[c] = (int)i;
        if (c < C_REQUIRED && col[c] < 0)
            return err_set(err,
                           "%s:1: no column '%s' (the header names the columns: see "
                           "docs/validate.md)",
                           v->o->jobs, col_names[c]);
    }
    return 0;
}

static int read_jobs(struct val *v, struct err *err)
{
    FILE *f = fopen(v->o->jobs, "r");
    if (!f)
        return err_set(err, "%s: %s", v->o->jobs, strerror(errno));
    long line = 0;
    struct val_row r;
    int col[C_N], rc = val_csv_row(f, v->o->jobs, &line, &r, err);
    if (rc == 0)
        rc = err_set(err, "%s: empty (no header)", v->o->jobs);
    if (rc > 0) {
        rc = header(v, &r, col, err);
        val_row_free(&r);
    }
    char *run = NULL;
    int got;
    while (rc == 0 && (got = val_csv_row(f, v->o->jobs, &line, &r, err)) != 0) {
        if (got < 0) {
            rc = -1;
            break;
        }
        const char *rv = col[C_RUN] >= 0 && (size_t)col[C_RUN] < r.n ? r.f[col[C_RUN]] : NULL;
        if (rv && run && strcmp(rv, run) != 0)
            rc = err_set(err,
                         "%s:%ld: rows of several runs (run %s and %s): validate one "
                         "run's rows at a time, with that run's configuration",
                         v->o->jobs, r.line, run, rv);
        if (rv && !run)
            run = xstrdup(rv);
        v->jobs = xgrow(v->jobs, &v->capjobs, v->njobs + 1, sizeof *v->jobs);
        if (rc == 0 && job_of_row(v, col, &r, &v->jobs[v->njobs], err) < 0) {
            job_free(&v->jobs[v->njobs]);
            rc = -1;
        }
        v->njobs += rc == 0;
        val_row_free(&r);
    }
    free(run);
    fclose(f);
    return rc < 0 ? -1 : 0;
}

/* A row of an SWF or Batsim schedule as a job: its run on the nodes Batsim
 * names, one processor counted on each (at least that much it held), or on
 * no node (SWF). */
static int job_of_srow(struct val *v, struct val_srow *r, struct err *err)
{
    struct job j = {.id = r->id,
                    .line = r->line,
                    .submit = r->submit,
                    .start = r->start,
                    .end = r->end,
                    .procs = r->procs,
                    .walltime = -1,
                    .runtime = -1,
                    .state = r->state};
    r->id = r->state = NULL;
    if (v->sched == VAL_SCHED_BATSIM)
        j.walltime = r->walltime; /* an SWF schedule's field 9 is the trace's request */
    memcpy(j.cred, r->cred, sizeof j.cred);
    memset(r->cred, 0, sizeof r->cred);
    j.c = (struct val_creds){j.cred[0], j.cred[1], j.cred[2], j.cred[3], j.cred[4], NULL, 0};
    if (j.start >= 0) {
        struct stint st = {j.start, j.end >= 0 ? j.end : NEVER, NULL, 0};
        st.p = xcalloc(r->nnodes + 1, sizeof *st.p);
        for (size_t k = 0; k < r->nnodes; k++) {
            if ((size_t)r->nodes[k] >= v->nnodes) {
                free(st.p);
                job_free(&j);
                return err_set(err,
                               "%s:%ld: allocated_resources: node %ld, the cluster has "
                               "%zu (0 to %zu)",
                               v->o->jobs, r->line, r->nodes[k], v->nnodes, v->nnodes - 1);
            }
            st.p[st.np++] = (struct place){(size_t)r->nodes[k], 1, 1};
        }
        j.runs = xmalloc(sizeof *j.runs);
        j.runs[0] = st;
        j.nruns = 1;
    }
    v->jobs = xgrow(v->jobs, &v->capjobs, v->njobs + 1, sizeof *v->jobs);
    v->jobs[v->njobs++] = j;
    return 0;
}

/* The schedule, in whichever format its first line shows. */
static int read_schedule(struct val *v, struct err *err)
{
    v->sched = val_sched_kind(v->o->jobs);
    if (v->sched == VAL_SCHED_CSV)
        return read_jobs(v, err);
    v->pool = 1;
    struct val_srow *rows;
    size_t n;
    if (val_sched_read(v->o->jobs, v->sched, &rows, &n, err) < 0)
        return -1;
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++)
        rc = job_of_srow(v, &rows[i], err);
    val_srows_free(rows, n);
    return rc;
}

/* What an SWF or Batsim schedule does not say, from the trace: the
 * runtime the job would run, and (SWF) its walltime. */
static void fill_from_trace(struct val *v, const struct val_facts *f)
{
    for (size_t i = 0; v->pool && i < v->njobs; i++) {
        struct job *j = &v->jobs[i];
        const struct val_fact *x = val_fact_of(f, j->id);
        if (!x)
            continue;
        j->runtime = x->runtime;
        if (j->walltime < 0)
            j->walltime = x->walltime;
    }
}

/* ---- the commands script ---- */

static struct jobcmd *cmd_of(struct val *v, const char *id)
{
    for (size_t i = 0; i < v->ncmds; i++)
        if (strcmp(v->cmds[i].id, id) == 0)
            return &v->cmds[i];
    v->cmds = xgrow(v->cmds, &v->capcmds, v->ncmds + 1, sizeof *v->cmds);
    v->cmds[v->ncmds] = (struct jobcmd){xstrdup(id), NULL, 0, -1, -1, NULL, 0};
    return &v->cmds[v->ncmds++];
}

/* One command line's effect on the jobs it names (words after the
 * command; options skipped, with -h's value). */
static void command(struct val *v, long t, const char *cmd, char **w, size_t n)
{
    int hold = strcmp(cmd, "sethold") == 0, release = strcmp(cmd, "releasehold") == 0;
    int run = strcmp(cmd, "runjob") == 0, cancel = strcmp(cmd, "canceljob") == 0;
    if (!hold && !release && !run && !cancel)
        return;
    for (size_t i = 0; i < n; i++) {
        if (w[i][0] == '-') {
            i += strcmp(w[i], "-h") == 0; /* -h TYPE */
            continue;
        }
        struct jobcmd *c = cmd_of(v, w[i]);
        if (hold && (!c->nh || c->h[c->nh - 1].to != NEVER)) {
            c->h = xrealloc(c->h, (c->nh + 1) * sizeof *c->h);
            c->h[c->nh++] = (struct hold){t, NEVER};
        } else if ((release || run) && c->nh && c->h[c->nh - 1].to == NEVER) {
            c->h[c->nh - 1].to = t;
        }
        if (run && c->forced < 0)
            c->forced = t;
        if (cancel) {
            c->cancelled = t;
            c->cancels = xrealloc(c->cancels, (c->ncancels + 1) * sizeof *c->cancels);
            c->cancels[c->ncancels++] = t;
        }
    }
}

size_t val_words(char *line, char **w, size_t max)
{
    char *hash = strchr(line, '#'), *save = NULL;
    if (hash)
        *hash = '\0';
    size_t n = 0;
    for (char *t = strtok_r(line, " \t\r\n", &save); t && n < max;
         t = strtok_r(NULL, " \t\r\n", &save))
        w[n++] = t;
    return n;
}

/* "TIME command args... [# comment]" lines (docs/simulation.md). */
static int read_commands(struct val *v, struct err *err)
{
    FILE *f = fopen(v->o->commands, "r");
    if (!f)
        return err_set(err, "%s: %s", v->o->commands, strerror(errno));
    char line[4096];
    long no = 0;
    while (fgets(line, sizeof line, f)) {
        no++;
        char *w[64];
        size_t n = val_words(line, w, 64);
        long t = 0;
        if (n == 0)
            continue;
        if (num(w[0], &t) != 1 && cfg_parse_time(w[0], &t, NULL) < 0) {
            fclose(f);
            return err_set(err, "%s:%ld: '%s' is not a time", v->o->commands, no, w[0]);
        }
        if (n > 1)
            command(v, t, w[1], w + 2, n - 2);
    }
    fclose(f);
    return 0;
}

static const struct jobcmd *cmds_of(const struct val *v, const char *id)
{
    for (size_t i = 0; i < v->ncmds; i++)
        if (strcmp(v->cmds[i].id, id) == 0)
            return &v->cmds[i];
    return NULL;
}

/* ---- the reservations CSV (simulate --resv-out) ---- */

static int read_resvs(struct val *v, struct err *err)
{
    const char *path = v->o->resvs;
    FILE *f = fopen(path, "r");
    if (!f)
        return err_set(err, "%s: %s", path, strerror(errno));
    enum { R_ID, R_CREATED, R_START, R_END, R_RELEASED, R_NODES, R_ACL, R_FLAGS, R_N };
    static const char *const want[R_N] = {"id",       "created", "start", "end",
                                          "released", "nodes",   "acl",   "flags"};
    int col[R_N];
    long line = 0;
    struct val_row r;
    int rc = val_csv_row(f, path, &line, &r, err);
    if (rc == 0)
        rc = err_set(err, "%s: empty (no header)", path);
    for (int c = 0; rc > 0 && c < R_N; c++) {
        col[c] = -1;
        for (size_t i = 0; i < r.n; i++)
            if (strcmp(r.f[i], want[c]) == 0)
                col[c] = (int)i;
        if (col[c] < 0)
            rc = err_set(err, "%s:1: no column '%s'", path, want[c]);
    }
    if (rc > 0) {
        val_row_free(&r);
        rc = 0;
    } else if (rc < 0 && r.f) {
        val_row_free(&r);
    }
    while (rc == 0 && (rc = val_csv_row(f, path, &line, &r, err)) > 0) {
        const char *g[R_N];
        for (int c = 0; c < R_N; c++)
            g[c] = (size_t)col[c] < r.n ? r.f[col[c]] : "";
        struct resv x = {
            xstrdup(g[R_ID]), xstrdup(g[R_ACL]), xstrdup(g[R_FLAGS]), 0, 0, NEVER, NULL, 0};
        long released = NEVER;
        struct err e;
        if (num(g[R_CREATED], &x.created) != 1 || num(g[R_START], &x.start) != 1 ||
            num(g[R_END], &x.end) < 0 || num(g[R_RELEASED], &released) < 0)
            rc = err_set(err, "%s:%ld: created/start/end/released are not times", path, r.line);
        else if (places(v, g[R_NODES], &x.p, &x.np, &e) < 0)
            rc = err_set(err, "%s:%ld: nodes: %s", path, r.line, e.msg);
        if (released < x.end)
            x.end = released;
        v->resvs = xgrow(v->resvs, &v->capresvs, v->nresvs + 1, sizeof *v->resvs);
        v->resvs[v->nresvs++] = x;
        val_row_free(&r);
        rc = rc < 0 ? -1 : 0;
    }
    fclose(f);
    return rc < 0 ? -1 : 0;
}

/* ---- checks: the trace's facts ---- */

static void check_facts(struct val *v, const struct val_facts *f)
{
    for (size_t i = 0; i < v->njobs; i++) {
        const struct job *j = &v->jobs[i];
        const struct val_fact *x = val_fact_of(f, j->id);
        if (!x) {
            violation(v, j, "not in the trace %s", v->o->trace);
            continue;
        }
        if (x->submit >= 0 && x->submit != j->submit)
            violation(v, j, "submitted at %ld, the trace says %ld", j->submit, x->submit);
        if (x->procs > 0 && x->procs != j->procs)
            violation(v, j, "%ld processors, the trace asks %ld", j->procs, x->procs);
        if (x->walltime > 0 && j->walltime >= 0 && x->walltime != j->walltime)
            violation(v, j, "walltime %ld, the trace asks %ld", j->walltime, x->walltime);
        if (x->runtime >= 0 && j->runtime >= 0 && x->runtime != j->runtime)
            violation(v, j, "runtime %ld, the trace says %ld", j->runtime, x->runtime);
    }
    if (f->maui)
        note(v, "submission times against a Maui trace (its epoch times are shifted by the "
                "replay)");
}

/* ---- checks: starts, holds, placement, ends ---- */

/* Whether job j is held at t: a sethold takes only on an idle job, already
 * submitted (commands at an instant run after its submissions, before its
 * iteration); one that names a job not there, running or suspended fails. */
static int idle_at(const struct val *v, const struct job *j, long t)
{
    if (t < j->submit)
        return 0;
    if (v->suspend && j->nruns) /* suspended between its runs: not idle */
        return t < j->runs[0].start || t >= j->runs[j->nruns - 1].end;
    for (size_t r = 0; r < j->nruns; r++)
        if (j->runs[r].start <= t && t < j->runs[r].end)
            return 0;
    return 1;
}

static int held_at(const struct val *v, const struct jobcmd *c, const struct job *j, long t)
{
    for (size_t k = 0; c && k < c->nh; k++)
        if (idle_at(v, j, c->h[k].from) && c->h[k].from <= t && t < c->h[k].to)
            return 1;
    return 0;
}

/* A Batsim run: the nodes it names must hold its processors between them. */
static void pool_start(struct val *v, const struct job *j, const struct stint *s)
{
    long have = 0;
    for (size_t k = 0; k < s->np; k++)
        have += v->nodes[s->p[k].node].procs;
    if (v->sched == VAL_SCHED_BATSIM && have < j->procs)
        violation(v, j, "runs from %ld on nodes of %ld processors in all, asked for %ld", s->start,
                  have, j->procs);
}

static void check_starts(struct val *v)
{
    for (size_t i = 0; i < v->njobs; i++) {
        const struct job *j = &v->jobs[i];
        const struct jobcmd *c = cmds_of(v, j->id);
        for (size_t r = 0; r < j->nruns; r++) {
            const struct stint *s = &j->runs[r];
            long sum = 0;
            for (size_t k = 0; k < s->np; k++)
                sum += s->p[k].procs * (long)s->p[k].count;
            if (s->start < j->submit)
                violation(v, j, "starts at %ld, before its submission at %ld", s->start, j->submit);
            if (held_at(v, c, j, s->start) && !(c && c->forced == s->start))
                violation(v, j, "starts at %ld while held (sethold in %s)", s->start,
                          v->o->commands);
            if (v->pool)
                pool_start(v, j, s);
            else if (sum != j->procs && !(v->dedicated && sum > j->procs))
                violation(v, j, "runs on %ld processors from %ld, asked for %ld%s", sum, s->start,
                          j->procs, v->dedicated ? " (or whole nodes)" : "");
            if (s->end != NEVER && s->end < s->start)
                violation(v, j, "ends at %ld, before its start at %ld", s->end, s->start);
        }
        if (j->start >= 0 && j->nruns == 0)
            violation(v, j, "started but has no nodes");
    }
}

/* When job p, the one a job waits for, has ended as the schedule says:
 * its last run's end (NEVER: still running); one that never started ended
 * when it was rejected or cancelled (afterany is then met at once), and
 * never when it still waits. */
static long ended_at(const struct job *p)
{
    if (p->nruns)
        return p->runs[p->nruns - 1].end;
    return p->state && strcmp(p->state, "never_started") == 0 ? NEVER : LONG_MIN;
}

/* at: each job's id to its place in v->jobs. */
static void index_jobs(const struct val *v, struct strmap *at)
{
    strmap_init(at);
    for (size_t i = 0; i < v->njobs; i++)
        strmap_put(at, v->jobs[i].id, i);
}

/* SWF field 17 (docs/simulation.md): a job waiting for a preceding job
 * (afterany) starts only once that job has ended. A preceding job absent
 * from the schedule never ran there (a record the replay skips). */
static void check_deps(struct val *v, const struct val_facts *f)
{
    struct strmap at;
    index_jobs(v, &at);
    for (size_t i = 0; i < v->njobs; i++) {
        const struct job *j = &v->jobs[i];
        const struct val_fact *x = val_fact_of(f, j->id);
        size_t k;
        if (!x || !x->after || !j->nruns || !strmap_get(&at, x->after, &k))
            continue;
        long end = ended_at(&v->jobs[k]);
        if (j->runs[0].start < end) {
            if (end == NEVER)
                violation(v, j, "starts at %ld, but job %s it waits for (afterany) never ends",
                          j->runs[0].start, x->after);
            else
                violation(v, j, "starts at %ld, before job %s it waits for (afterany) ends at %ld",
                          j->runs[0].start, x->after, end);
        }
    }
    strmap_free(&at);
}

/* Whether parent p's outcome lets a job waiting on it with dependency type
 * `type` start at t (docs/daemon.md: after, its start; afterok, ended
 * completed with exit status 0 — px, its facts, may say it failed
 * (submit --exit) —; afternotok, ended otherwise; afterany, ended). */
static int dep_allows(const char *type, const struct job *p, const struct val_fact *px, long t)
{
    long end = ended_at(p);
    int done = p->state && strcmp(p->state, "completed") == 0 && !(px && px->failed);
    if (strcmp(type, "after") == 0)
        return p->nruns && p->runs[0].start <= t;
    if (end == NEVER || t < end)
        return 0;
    if (strcmp(type, "afterok") == 0)
        return done;
    if (strcmp(type, "afternotok") == 0)
        return !done;
    return 1;
}

/* The dependencies job id (its facts x, NULL none) has when it starts at
 * `start`: its submit's -W depend=, or the last qalter before then that
 * found it queued (the simulator runs a qalter before the iteration of its
 * instant); NULL none. */
static const char *deps_at(const struct val_facts *f, const struct val_fact *x, const char *id,
                           long start)
{
    const char *text = x ? x->depend : NULL;
    for (size_t i = 0; i < f->nalters; i++)
        if (strcmp(f->alters[i].id, id) == 0 && f->alters[i].t <= start &&
            (!x || f->alters[i].t >= x->submit))
            text = f->alters[i].depend;
    return text;
}

/* A script's submit with -W depend= (docs/simulation.md), or a job a
 * qalter gave some: each of its runs starts only when every job they name
 * allows it. */
static void check_script_deps(struct val *v, const struct val_facts *f)
{
    struct strmap at;
    index_jobs(v, &at);
    for (size_t i = 0; i < v->njobs; i++) {
        const struct job *j = &v->jobs[i];
        const struct val_fact *x = val_fact_of(f, j->id);
        const char *deps = j->nruns ? deps_at(f, x, j->id, j->runs[0].start) : NULL;
        struct val_dep d;
        size_t k;
        for (size_t n = 0; deps && val_dep_nth(deps, n, &d); n++) {
            if (!strmap_get(&at, d.on, &k))
                violation(v, j, "runs, but job %s it waits for (%s) is not in the schedule", d.on,
                          d.type);
            else if (!dep_allows(d.type, &v->jobs[k], val_fact_of(f, d.on), j->runs[0].start))
                violation(v, j, "starts at %ld, which job %s (%s, %s) does not allow (%s)",
                          j->runs[0].start, d.on, v->jobs[k].state ? v->jobs[k].state : "?",
                          v->jobs[k].nruns ? "ran" : "never ran", d.type);
        }
    }
    strmap_free(&at);
}

/* An array's %N slot limit: at no start of one of its tasks do more than
 * N of them run. */
static void check_slots(struct val *v, const struct val_facts *f)
{
    for (size_t i = 0; i < v->njobs; i++) {
        const struct val_fact *x = val_fact_of(f, v->jobs[i].id);
        if (!x || !x->array || !x->slots)
            continue;
        for (size_t r = 0; r < v->jobs[i].nruns; r++) {
            long t = v->jobs[i].runs[r].start;
            unsigned running = 0;
            for (size_t o = 0; o < v->njobs; o++) {
                const struct val_fact *y = val_fact_of(f, v->jobs[o].id);
                if (!y || !y->array || strcmp(y->array, x->array) != 0)
                    continue;
                for (size_t q = 0; q < v->jobs[o].nruns; q++)
                    running += v->jobs[o].runs[q].start <= t && t < v->jobs[o].runs[q].end;
            }
            if (running > x->slots)
                violation(v, &v->jobs[i],
                          "starts at %ld with %u tasks of array %s running, its "
                          "slot limit is %u",
                          t, running, x->array, x->slots);
        }
    }
}

static void check_ends(struct val *v)
{
    int class_overrun = 0;
    for (size_t i = 0; i < cfg_nobjs(v->cfg); i++) {
        const struct cfg_obj *o = cfg_obj_at(v->cfg, i);
        class_overrun |= cfg_obj_get(o, "OVERRUN", NULL) != NULL;
    }
    if (class_overrun)
        note(v, "end times of jobs killed at their walltime (a credential's OVERRUN)");
    for (size_t i = 0; i < v->njobs; i++) {
        const struct job *j = &v->jobs[i];
        if (j->start < 0 || j->end < 0 || j->nruns > 1 || j->runtime < 0 || j->walltime < 0)
            continue; /* not ended, preempted (earlier runs), or not said */
        long limit = j->walltime + v->overrun;
        long ran = j->runtime < limit ? j->runtime : limit;
        const struct jobcmd *c = cmds_of(v, j->id);
        if (strcmp(j->state, "cancelled") == 0) {
            int at_cancel = j->end == j->start + ran;
            for (size_t k = 0; c && k < c->ncancels; k++)
                at_cancel |= c->cancels[k] == j->end;
            if (c && c->ncancels && !at_cancel)
                violation(v, j, "cancelled (canceljob at %ld), yet ended at %ld", c->cancelled,
                          j->end);
            continue;
        }
        if (strcmp(j->state, "preempted") == 0 || (class_overrun && j->runtime > limit))
            continue;
        if (j->end != j->start + ran)
            violation(v, j,
                      "ends at %ld; it started at %ld and runs min(runtime %ld, walltime %ld + "
                      "overrun %ld) = %ld s, so ends at %ld",
                      j->end, j->start, j->runtime, j->walltime, v->overrun, ran, j->start + ran);
        else if (strcmp(j->state, "completed") == 0 && j->runtime > limit)
            violation(v, j, "state completed, but it ran into its walltime limit (killed)");
        else if (strcmp(j->state, "killed") == 0 && j->runtime <= limit)
            violation(v, j, "state killed, but its runtime fits its walltime");
    }
}

/* ---- checks: capacity, a sweep over starts and ends ---- */

struct ev {
    long t;
    long delta; /* processors on each node: + at a start, - at an end */
    size_t node, job;
    size_t count; /* nodes from node on (a place) */
};

static int ev_cmp(const void *a, const void *b)
{
    const struct ev *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return (x->delta > 0) - (y->delta > 0); /* ends first: a node freed and taken at t */
}

static void check_capacity(struct val *v)
{
    struct ev *e = NULL;
    size_t n = 0, cap = 0;
    for (size_t i = 0; i < v->njobs; i++)
        for (size_t r = 0; r < v->jobs[i].nruns; r++) {
            const struct stint *s = &v->jobs[i].runs[r];
            for (size_t k = 0; k < s->np && s->end != s->start; k++) {
                e = xgrow(e, &cap, n + 2, sizeof *e);
                const struct place *p = &s->p[k];
                e[n++] = (struct ev){s->start, p->procs, p->node, i, p->count};
                if (s->end != NEVER)
                    e[n++] = (struct ev){s->end, -p->procs, p->node, i, p->count};
            }
        }
    if (n > 1)
        qsort(e, n, sizeof *e, ev_cmp);
    long *used = xcalloc(v->nnodes + 1, sizeof *used);
    char *told = xcalloc(v->njobs + 1, 1);
    for (size_t i = 0; i < n; i++)
        for (size_t x = e[i].node; x < e[i].node + e[i].count; x++) {
            used[x] += e[i].delta;
            const struct node *nd = &v->nodes[x];
            if (e[i].delta > 0 && nd->down && !told[e[i].job]) {
                told[e[i].job] = 1;
                violation(v, &v->jobs[e[i].job], "at %ld runs on node %s, which is down or drained",
                          e[i].t, nd->name);
            }
            if (e[i].delta > 0 && used[x] > nd->procs && !told[e[i].job]) {
                told[e[i].job] = 1;
                violation(v, &v->jobs[e[i].job], "at %ld node %s holds %ld processors, it has %ld",
                          e[i].t, nd->name, used[x], nd->procs);
            }
        }
    free(told);
    free(used);
    free(e);
}

/* An SWF or Batsim schedule: at every instant the jobs running hold no more
 * processors than the cluster's nodes that are up. */
static void check_pool(struct val *v)
{
    long total = 0;
    for (size_t i = 0; i < v->nnodes; i++)
        total += v->nodes[i].down ? 0 : v->nodes[i].procs;
    struct ev *e = NULL;
    size_t n = 0, cap = 0;
    for (size_t i = 0; i < v->njobs; i++)
        for (size_t r = 0; r < v->jobs[i].nruns; r++) {
            const struct stint *s = &v->jobs[i].runs[r];
            if (s->end == s->start)
                continue;
            e = xgrow(e, &cap, n + 2, sizeof *e);
            e[n++] = (struct ev){s->start, v->jobs[i].procs, 0, i, 0};
            if (s->end != NEVER)
                e[n++] = (struct ev){s->end, -v->jobs[i].procs, 0, i, 0};
        }
    if (n > 1)
        qsort(e, n, sizeof *e, ev_cmp);
    long used = 0;
    for (size_t i = 0; i < n; i++) {
        used += e[i].delta;
        if (e[i].delta > 0 && used > total)
            violation(v, &v->jobs[e[i].job],
                      "at %ld the jobs running hold %ld processors, the "
                      "cluster has %ld",
                      e[i].t, used, total);
    }
    free(e);
    note(v, v->sched == VAL_SCHED_SWF
                ? "nodes (an SWF schedule names none): the processors of the whole cluster "
                  "instead"
                : "processors on each node (Batsim's jobs.csv names the nodes, not the "
                  "processors on them): one on each named node, and the whole cluster's");
}

/* ---- checks: HARD throttling limits at every start ---- */

static const char *const kinds[5] = {"USERCFG", "GROUPCFG", "ACCOUNTCFG", "CLASSCFG", "QOSCFG"};
static const char *const kind_words[5] = {"user", "group", "account", "class", "qos"};
enum { L_JOB, L_PROC, L_PS, L_N };
static const char *const lim_attrs[L_N] = {"MAXJOB", "MAXPROC", "MAXPS"};

/* The HARD value of attr for object (kind, name), else its DEFAULT's; 0 =
 * no limit. */
static long long hard_limit(const struct val *v, int kind, const char *name, int attr)
{
    const char *names[2] = {name, "DEFAULT"};
    for (int k = 0; k < 2; k++) {
        const struct cfg_obj *o = cfg_obj_find(v->cfg, kinds[kind], names[k]);
        const char *t = o ? cfg_obj_get(o, lim_attrs[attr], NULL) : NULL;
        long long soft, hard;
        if (t && cfg_parse_limit(t, 0, &soft, &hard, NULL) == 0)
            return hard > 0 ? hard : 0;
    }
    return 0;
}

/* Limits the validator does not model, said once each. */
static void limit_notes(struct val *v)
{
    const struct cfg_param *params;
    size_t np = 0;
    params = cfg_params(&np);
    for (size_t i = 0; i < np; i++) {
        const char *name = params[i].name;
        if ((strncmp(name, "MAX", 3) == 0 || strncmp(name, "SMAX", 4) == 0) &&
            strstr(name, "PER") && cfg_is_set(v->cfg, name, NULL)) {
            char what[160];
            snprintf(what, sizeof what, "the Maui 3.0 limit %s", name);
            note(v, what);
        }
    }
    static const char *const not_checked[] = {
        "MAXIJOB", "MAXIPROC", "MAXNODE",  "MAXINODE", "MAXIPS",   "MAXWC",  "MAXIWC", "MAXMEM",
        "MAXIMEM", "OMAXJOB",  "OMAXPROC", "OMAXPS",   "OMAXNODE", "OMAXWC", NULL};
    for (size_t i = 0; i < cfg_nobjs(v->cfg); i++) {
        const struct cfg_obj *o = cfg_obj_at(v->cfg, i);
        for (size_t a = 0; a < o->nattrs; a++) {
            const struct cfg_attr *at = &o->attrs[a];
            int skip = 0;
            for (int k = 0; not_checked[k]; k++)
                skip |= strcmp(at->name, not_checked[k]) == 0;
            for (int k = 0; k < L_N; k++)
                skip |= strcmp(at->name, lim_attrs[k]) == 0 &&
                        (at->index || strcmp(o->kind, "SYSCFG") == 0);
            if (skip) {
                char what[200];
                snprintf(what, sizeof what, "%s[%s] %s%s%s%s (%s:%d)", o->kind, o->name, at->name,
                         at->index ? "[" : "", at->index ? at->index : "", at->index ? "]" : "",
                         at->file, at->line);
                note(v, what);
            }
        }
    }
}

struct jev {
    long t;
    int start;
    size_t job;
    int zero; /* a start whose run lasts no time */
};

/* At one instant: ends, then runs of no length (they start and end before
 * the others start: a replay ends a job of no runtime in the instant it
 * starts), then starts. */
static int jev_rank(const struct jev *e)
{
    return !e->start ? 0 : e->zero ? 1 : 2;
}

static int jev_cmp(const void *a, const void *b)
{
    const struct jev *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return jev_rank(x) - jev_rank(y);
}

/* Whether QOS qos carries flag: in QOSCFG[qos]'s QFLAGS or in the legacy
 * QOSFLAGS[qos], which the scheduler reads both of (limits_cfg.c, credcfg.c);
 * names matched as substrings, as it does. */
static int qos_has(const struct cfg *cfg, const char *qos, const char *flag)
{
    if (!qos)
        return 0;
    const struct cfg_obj *q = cfg_obj_find(cfg, "QOSCFG", qos);
    const char *f = q ? cfg_obj_get(q, "QFLAGS", NULL) : NULL;
    if (f && strstr(f, flag))
        return 1;
    const char **idx;
    size_t n = cfg_indices(cfg, "QOSFLAGS", &idx);
    for (size_t i = 0; i < n; i++)
        if (strcmp(idx[i], qos) == 0 && (f = cfg_str(cfg, "QOSFLAGS", idx[i])) && strstr(f, flag))
            return 1;
    return 0;
}

/* Whether j's QOS lifts limit attr of its kind-th credential for it: IGNALL
 * lifts every one, IGNJOBPERUSER, IGNPROCPERUSER and IGNPSPERUSER the user's
 * (docs/limits.md). */
static int qos_lifts(const struct val *v, const struct job *j, int kind, int attr)
{
    static const char *const per_user[L_N] = {"IGNJOBPERUSER", "IGNPROCPERUSER", "IGNPSPERUSER"};
    return qos_has(v->cfg, j->cred[4], "IGNALL") ||
           (kind == 0 && qos_has(v->cfg, j->cred[4], per_user[attr]));
}

/* Job j starts at t while the jobs run[0..nrun) run: each of its
 * credentials' hard limits (the others' usage counts whatever their QOS). */
static void limits_at(struct val *v, const struct job *j, long t, const size_t *run, size_t nrun)
{
    for (int k = 0; k < 5; k++) {
        const char *name = j->cred[k];
        if (!name)
            continue;
        long long lim[L_N], use[L_N] = {1, j->procs, (long long)j->procs * j->walltime};
        int any = 0;
        for (int a = 0; a < L_N; a++)
            any |= (lim[a] = qos_lifts(v, j, k, a) ? 0 : hard_limit(v, k, name, a)) > 0;
        if (!any)
            continue;
        for (size_t i = 0; i < nrun; i++) {
            const struct job *r = &v->jobs[run[i]];
            if (!r->cred[k] || strcmp(r->cred[k], name) != 0)
                continue;
            long left = r->start + r->walltime - t;
            use[L_JOB]++;
            use[L_PROC] += r->procs;
            use[L_PS] += (long long)r->procs * (left > 0 ? left : 0);
        }
        for (int a = 0; a < L_N; a++)
            if (lim[a] > 0 && use[a] > lim[a])
                violation(v, j,
                          "starts at %ld over the HARD %s limit of %lld for %s %s (%lld with it)",
                          t, lim_attrs[a], lim[a], kind_words[k], name, use[a]);
    }
}

static void check_limits(struct val *v)
{
    limit_notes(v);
    struct jev *e = NULL;
    size_t n = 0, cap = 0;
    for (size_t i = 0; i < v->njobs; i++)
        for (size_t r = 0; r < v->jobs[i].nruns; r++) {
            const struct stint *s = &v->jobs[i].runs[r];
            e = xgrow(e, &cap, n + 2, sizeof *e);
            e[n++] = (struct jev){s->start, 1, i, s->end == s->start};
            if (s->end != NEVER && s->end != s->start)
                e[n++] = (struct jev){s->end, 0, i, 0};
        }
    if (n > 1)
        qsort(e, n, sizeof *e, jev_cmp);
    size_t *run = xcalloc(v->njobs + 1, sizeof *run), nrun = 0;
    for (size_t i = 0; i < n; i++) {
        const struct job *j = &v->jobs[e[i].job];
        if (!e[i].start) {
            for (size_t k = 0; k < nrun; k++)
                if (run[k] == e[i].job) {
                    run[k] = run[--nrun];
                    break;
                }
            continue;
        }
        const struct jobcmd *c = cmds_of(v, j->id);
        if (!(c && c->forced == e[i].t)) /* runjob: limits ignored, as asked */
            limits_at(v, j, e[i].t, run, nrun);
        if (!e[i].zero) /* a run of no length holds nothing after its start */
            run[nrun++] = e[i].job;
    }
    free(run);
    free(e);
}

/* ---- checks: reservations ---- */

/* Processors job j holds on node n in stint st (0 if none). */
static long procs_on(const struct stint *st, size_t n)
{
    long p = 0;
    for (size_t k = 0; k < st->np; k++)
        if (st->p[k].node <= n && n < st->p[k].node + st->p[k].count)
            p += st->p[k].procs;
    return p;
}

/*
 * On node n, reservation r holds rp processors over [r->start, r->end).
 * The jobs it does not admit may use the rest of the node, never more: a
 * sweep over their runs within the window. A job already there when the
 * reservation was made (setres on busy nodes does not evict it; a job
 * resumed after a suspension was there since its first run) does not
 * count, nor does a runjob start (it ignores reservations, as asked).
 */
/* The runs on one node: (job, run) pairs. */
struct onnode {
    size_t *job, *run;
    size_t n, cap, cap2;
};

static int resv_node(struct val *v, const struct resv *r, size_t n, long rp,
                     const struct onnode *on, struct err *err)
{
    struct ev *e = NULL;
    size_t ne = 0, cap = 0;
    for (size_t x = 0; x < on->n; x++) {
        size_t i = on->job[x];
        const struct job *j = &v->jobs[i];
        const struct jobcmd *c = cmds_of(v, j->id);
        {
            const struct stint *st = &j->runs[on->run[x]];
            long p = procs_on(st, n), since = v->suspend ? j->runs[0].start : st->start;
            /* Judged by its walltime, as the scheduler plans: running over it
             * (JOBMAXOVERRUN) is allowed, into a reservation too. */
            long end = st->end;
            if (j->walltime > 0 && st->start + j->walltime < end)
                end = st->start + j->walltime;
            if (!p || (c && c->forced == st->start) || r->created > since || r->start >= end ||
                r->end <= st->start)
                continue;
            struct err e2;
            /* TIMELIMIT (DURATION<=) weighs the time the job would spend in
             * the reservation, by its walltime (docs/reservations.md). */
            long to = st->start + j->walltime < r->end ? st->start + j->walltime : r->end;
            long in = to - (st->start > r->start ? st->start : r->start);
            int ok = val_acl_admits(r->acl, &j->c, in, &e2);
            if (ok < 0) {
                free(e);
                return err_set(err, "%s: reservation %s: %s", v->o->resvs, r->id, e2.msg);
            }
            if (ok)
                continue;
            e = xgrow(e, &cap, ne + 2, sizeof *e);
            e[ne++] = (struct ev){st->start > r->start ? st->start : r->start, p, n, i, 1};
            e[ne++] = (struct ev){end < r->end ? end : r->end, -p, n, i, 1};
        }
    }
    if (ne > 1)
        qsort(e, ne, sizeof *e, ev_cmp);
    long used = 0, room = v->nodes[n].procs - rp;
    for (size_t i = 0; i < ne; i++) {
        used += e[i].delta;
        if (e[i].delta > 0 && used > room)
            violation(v, &v->jobs[e[i].job],
                      "runs from %ld on %s in reservation %s (%ld-%ld, %ld of its %ld "
                      "processors, ACL '%s'), which does not admit it",
                      e[i].t, v->nodes[n].name, r->id, r->start, r->end, rp, v->nodes[n].procs,
                      r->acl);
    }
    free(e);
    return 0;
}

static int check_resvs(struct val *v, struct err *err)
{
    /* The runs on each node a reservation holds (only those: a cluster of
     * 100,000 nodes without reservations costs nothing here). */
    struct onnode *on = xcalloc(v->nnodes + 1, sizeof *on);
    char *held = xcalloc(v->nnodes + 1, 1);
    for (size_t k = 0; k < v->nresvs; k++)
        for (size_t p = 0; p < v->resvs[k].np; p++)
            for (size_t c = 0; c < v->resvs[k].p[p].count; c++)
                held[v->resvs[k].p[p].node + c] = 1;
    for (size_t i = 0; i < v->njobs && v->nresvs; i++)
        for (size_t r = 0; r < v->jobs[i].nruns; r++) {
            const struct stint *st = &v->jobs[i].runs[r];
            for (size_t k = 0; k < st->np; k++)
                for (size_t x = st->p[k].node; x < st->p[k].node + st->p[k].count; x++) {
                    struct onnode *o = &on[x];
                    if (!held[x] || (o->n && o->job[o->n - 1] == i && o->run[o->n - 1] == r))
                        continue; /* not reserved, or the node twice in one run */
                    o->job = xgrow(o->job, &o->cap, o->n + 1, sizeof *o->job);
                    o->run = xgrow(o->run, &o->cap2, o->n + 1, sizeof *o->run);
                    o->job[o->n] = i;
                    o->run[o->n++] = r;
                }
        }
    int rc = 0;
    for (size_t k = 0; k < v->nresvs && rc == 0; k++) {
        const struct resv *r = &v->resvs[k];
        for (size_t p = 0; p < r->np && rc == 0; p++)
            for (size_t c = 0; c < r->p[p].count && rc == 0; c++) {
                size_t x = r->p[p].node + c;
                rc = resv_node(v, r, x, r->p[p].procs, &on[x], err);
            }
    }
    for (size_t i = 0; i < v->nnodes; i++) {
        free(on[i].job);
        free(on[i].run);
    }
    free(held);
    free(on);
    return rc;
}

/* ---- the whole ---- */

static void val_free(struct val *v)
{
    for (size_t i = 0; i < v->nnodes; i++)
        free(v->nodes[i].name);
    free(v->nodes);
    strmap_free(&v->node_ids);
    for (size_t i = 0; i < v->njobs; i++)
        job_free(&v->jobs[i]);
    free(v->jobs);
    for (size_t i = 0; i < v->ncmds; i++) {
        free(v->cmds[i].id);
        free(v->cmds[i].h);
        free(v->cmds[i].cancels);
    }
    free(v->cmds);
    for (size_t i = 0; i < v->nresvs; i++) {
        free(v->resvs[i].id);
        free(v->resvs[i].acl);
        free(v->resvs[i].flags);
        free(v->resvs[i].p);
    }
    free(v->resvs);
    cfg_destroy(v->cfg);
}

static int load_cfg(struct val *v, struct err *err)
{
    v->cfg = cfg_create();
    if (v->o->config && cfg_load_file(v->cfg, v->o->config, err) < 0)
        return -1;
    for (size_t i = 0; i < v->o->nsets; i++)
        if (cfg_load_string(v->cfg, v->o->sets[i], "--set", err) < 0)
            return -1;
    const char *access = cfg_str(v->cfg, "NODEACCESSPOLICY", NULL);
    v->dedicated = access && strcmp(access, "SHARED") != 0;
    v->overrun = cfg_time(v->cfg, "JOBMAXOVERRUN", NULL);
    if (v->overrun < 0)
        v->overrun = LONG_MAX / 4; /* -1: jobs are never killed for running over */
    const char *pp = cfg_str(v->cfg, "PREEMPTPOLICY", NULL);
    v->suspend = pp && strcmp(pp, "SUSPEND") == 0;
    return 0;
}

static int load_all(struct val *v, struct val_facts *f, struct err *err)
{
    if (load_cfg(v, err) < 0 || val_trace_read(v->o, f, err) < 0)
        return -1;
    if (v->o->commands && val_submit_read(v->o->commands, f, err) < 0)
        return -1;
    val_facts_index(f);
    if (cluster(v, f->hdr_nodes, f->hdr_procs, err) < 0)
        return -1;
    index_nodes(v);
    if (read_schedule(v, err) < 0)
        return -1;
    fill_from_trace(v, f);
    if (v->o->commands && read_commands(v, err) < 0)
        return -1;
    return v->o->resvs ? read_resvs(v, err) : 0;
}

/* Each job's attributes, for JOBATTRLIST: the trace's features and
 * PREEMPTEE flag, PREEMPTEE from its QOS's flags, and under BACKFILLPOLICY
 * PREEMPT (where the scheduler marks backfilled jobs PREEMPTEE, which the
 * CSV does not tell) every job may carry it. */
static void attach_attrs(struct val *v, const struct val_facts *f)
{
    const char *bf = cfg_str(v->cfg, "BACKFILLPOLICY", NULL);
    int any = bf && strcmp(bf, "PREEMPT") == 0;
    for (size_t i = 0; i < v->njobs; i++) {
        struct job *j = &v->jobs[i];
        const struct val_fact *x = val_fact_of(f, j->id);
        j->c.attrs = x ? x->attrs : NULL;
        j->c.preemptee = any || (x && x->preemptee) || qos_has(v->cfg, j->c.qos, "PREEMPTEE");
    }
}

int val_run(const struct val_opts *o, FILE *out, struct err *err)
{
    struct val v = {.o = o, .out = out};
    struct val_facts f = {0};
    int rc = load_all(&v, &f, err);
    if (rc == 0) {
        check_facts(&v, &f);
        attach_attrs(&v, &f);
        check_starts(&v);
        if (!o->no_swf_deps)
            check_deps(&v, &f);
        check_script_deps(&v, &f);
        check_slots(&v, &f);
        check_ends(&v);
        check_capacity(&v);
        if (v.pool)
            check_pool(&v);
        check_limits(&v);
        if (v.pool && o->resvs)
            rc = err_set(err, "--reservations: an SWF or Batsim schedule does not say which "
                              "processors of a node a job held; give the jobs CSV "
                              "(simulate --jobs-out)");
        else if (!o->resvs)
            note(&v, "reservations (give --reservations, from simulate --resv-out)");
        else
            rc = check_resvs(&v, err);
    }
    if (rc == 0)
        fprintf(out, "%s: %zu jobs, %zu violation%s\n", o->jobs, v.njobs, v.violations,
                v.violations == 1 ? "" : "s");
    size_t bad = v.violations;
    val_facts_free(&f);
    val_free(&v);
    return rc < 0 ? -1 : bad > 0;
}
