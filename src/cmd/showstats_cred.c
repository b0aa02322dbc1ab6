/*
 * showstats -u|-g|-a|-c|-q [ID] — statistics per credential (digest §7.10,
 * Maui 3.3.1 MCShowStats' credential tables): for each user (group,
 * account, class, QOS) what it has running now and what its completed jobs
 * had, in Maui's columns:
 *
 *   statistics initialized Mon Jan  1 00:00:00
 *
 *             |------ Active ------|------------------------------ Completed
 * -------------------------------| user       Jobs Procs ProcHours Jobs      %   PHReq      % PHDed
 * %  FSTgt  AvgXF  MaxXF  AvgQH  Effic  WCAcc alice         1     2      0.50    0   0.00    0.00
 * 0.00    0.00   0.00  -----   0.00   0.00   0.00  -----   0.00
 *
 * Like showstats, everything is computed from the scheduler's jobs at the
 * command's `now` (the daemon keeps every job that ended since the
 * statistics began; a replay without commands forgets ended jobs, but then
 * nobody asks):
 * - Active: the credential's running jobs, their processors, and the
 *   processor-hours they have had so far (processors x time since start).
 * - Completed: jobs completed since the statistics began (started, then
 *   ended; removed jobs are not counted), their share of all completed jobs;
 *   PHReq processors x walltime limit, PHDed processors x run time, each
 *   with its share of all completed jobs'; FSTgt the fairshare target that
 *   applies (`-----` without one); AvgXF/MaxXF (queue time + run time) /
 *   walltime limit; AvgQH the mean queue time in hours; WCAcc the mean of
 *   run time / walltime limit in percent.
 * - Effic is always `-----`: moku does not measure CPU use.
 * Rows: credentials with a running or counted completed job, in the order
 * they were first seen; with ID, that credential alone (a row of zeros when
 * it has nothing to count). Maui's DEFAULT objects show like the others
 * when jobs ran under them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd_int.h"
#include "policy/fs.h"
#include "util/mem.h"

struct credstat {
    long active, active_procs;
    double active_ps;
    long done;
    double req_ps, ded_ps;
    double xf_sum, xf_max, qt_sum, acc_sum;
};

struct credview {
    const struct cmd_ctx *c;
    enum cred_kind kind;
    const struct cred_table *t;
    long since;
    struct credstat *st; /* per cred index */
    size_t n;
    struct credstat all; /* every completed job, for the shares */
};

static double dmax(double a, double b)
{
    return a > b ? a : b;
}

static void add_completed(struct credstat *s, const struct job *j)
{
    double run = (double)(j->end > j->start ? j->end - j->start : 0);
    double qt = (double)(j->start > j->submit ? j->start - j->submit : 0);
    double wc = (double)(j->walltime > 0 ? j->walltime : 1);
    double procs = (double)job_procs(j);
    s->done++;
    s->req_ps += procs * (double)j->walltime;
    s->ded_ps += procs * run;
    s->xf_sum += (qt + run) / wc;
    s->xf_max = dmax(s->xf_max, (qt + run) / wc);
    s->qt_sum += qt;
    s->acc_sum += run / wc;
}

static void view_init(struct credview *v, const struct cmd_ctx *c, enum cred_kind k)
{
    *v = (struct credview){
        .c = c, .kind = k, .t = sched_creds(c->s, k), .since = cmd_stats_since(c)};
    v->n = v->t ? cred_count(v->t) : 0;
    v->st = xcalloc(v->n ? v->n : 1, sizeof *v->st);
    for (size_t i = 0; i < sched_njobs(c->s); i++) {
        const struct job *j = sched_job(c->s, i);
        if (!j)
            continue;
        const struct cred *cr = job_cred(j, k);
        if (!cr || cr->index >= v->n)
            continue;
        struct credstat *s = &v->st[cr->index];
        if (j->state == JOB_RUNNING) {
            s->active++;
            s->active_procs += (long)job_procs(j);
            s->active_ps +=
                (double)job_procs(j) * (double)(c->now > j->start ? c->now - j->start : 0);
        } else if (cmd_stats_completed(j, v->since)) {
            add_completed(s, j);
            add_completed(&v->all, j);
        }
    }
}

static double pct(double part, double whole)
{
    return whole > 0 ? part * 100.0 / whole : 0.0;
}

static double avg(double sum, long n)
{
    return n > 0 ? sum / (double)n : 0.0;
}

/* The fairshare target that applies to cr, or mode NONE. */
static struct fs_target target(const struct credview *v, const struct cred *cr)
{
    return fs_target_of(sched_fs(v->c->s), cr);
}

/* ---- text ---- */

/* "|--- label ---|" over width characters between the bars. */
static void banner_part(struct cmd_buf *b, int width, const char *label)
{
    int n = (int)strlen(label) + 2;
    int left = (width - n) / 2, right = width - n - left;
    cmd_buf_puts(b, "|");
    for (int i = 0; i < left; i++)
        cmd_buf_puts(b, "-");
    cmd_buf_printf(b, " %s ", label);
    for (int i = 0; i < right; i++)
        cmd_buf_puts(b, "-");
}

#define ACTIVE_W 20    /* " %4s %5s %9s" less the leading blank */
#define COMPLETED_W 82 /* the completed columns less the leading blank */

static void text_head(struct cmd_buf *b, const struct credview *v)
{
    char date[CMD_TIME_MAX];
    cmd_fmt_date(v->c, v->since, date);
    cmd_buf_printf(b, "statistics initialized %s\n\n", date);
    cmd_buf_printf(b, "%-10s", "");
    banner_part(b, ACTIVE_W, "Active");
    banner_part(b, COMPLETED_W, "Completed");
    cmd_buf_puts(b, "|\n");
    cmd_buf_printf(b, "%-10.10s %4s %5s %9s %4s %6s %7s %6s %7s %6s %6s %6s %6s %6s %6s %6s\n",
                   cred_kind_name(v->kind), "Jobs", "Procs", "ProcHours", "Jobs", "%", "PHReq", "%",
                   "PHDed", "%", "FSTgt", "AvgXF", "MaxXF", "AvgQH", "Effic", "WCAcc");
}

static void text_row(struct cmd_buf *b, const struct credview *v, const struct cred *cr)
{
    const struct credstat *s = &v->st[cr->index];
    struct fs_target t = target(v, cr);
    char tgt[32] = "-----";
    if (t.mode != FS_MODE_NONE)
        snprintf(tgt, sizeof tgt, "%6.2f", t.value);
    cmd_buf_printf(b,
                   "%-10.10s %4ld %5ld %9.2f %4ld %6.2f %7.2f %6.2f %7.2f %6.2f %6s %6.2f %6.2f "
                   "%6.2f %6s %6.2f\n",
                   cr->name, s->active, s->active_procs, s->active_ps / 3600.0, s->done,
                   pct((double)s->done, (double)v->all.done), s->req_ps / 3600.0,
                   pct(s->req_ps, v->all.req_ps), s->ded_ps / 3600.0, pct(s->ded_ps, v->all.ded_ps),
                   tgt, avg(s->xf_sum, s->done), s->xf_max, avg(s->qt_sum, s->done) / 3600.0,
                   "-----", avg(s->acc_sum, s->done) * 100.0);
}

/* ---- JSON ---- */

static json_t *jnum(int has, double x)
{
    return has ? json_real(x) : json_null();
}

static json_t *json_row(const struct credview *v, const struct cred *cr)
{
    const struct credstat *s = &v->st[cr->index];
    struct fs_target t = target(v, cr);
    int d = s->done > 0;
    json_t *o = json_object();
    json_object_set_new(o, "name", cmd_jstr(cr->name));
    json_object_set_new(o, "active_jobs", json_integer(s->active));
    json_object_set_new(o, "active_procs", json_integer(s->active_procs));
    json_object_set_new(o, "active_proc_hours", json_real(s->active_ps / 3600.0));
    json_object_set_new(o, "completed_jobs", json_integer(s->done));
    json_object_set_new(o, "completed_pct", json_real(pct((double)s->done, (double)v->all.done)));
    json_object_set_new(o, "ph_requested", json_real(s->req_ps / 3600.0));
    json_object_set_new(o, "ph_requested_pct", json_real(pct(s->req_ps, v->all.req_ps)));
    json_object_set_new(o, "ph_dedicated", json_real(s->ded_ps / 3600.0));
    json_object_set_new(o, "ph_dedicated_pct", json_real(pct(s->ded_ps, v->all.ded_ps)));
    json_object_set_new(o, "fs_target", t.mode == FS_MODE_NONE ? json_null() : json_real(t.value));
    json_object_set_new(o, "avg_xfactor", jnum(d, avg(s->xf_sum, s->done)));
    json_object_set_new(o, "max_xfactor", jnum(d, s->xf_max));
    json_object_set_new(o, "avg_qtime_hours", jnum(d, avg(s->qt_sum, s->done) / 3600.0));
    json_object_set_new(o, "efficiency", json_null());
    json_object_set_new(o, "wallclock_accuracy", jnum(d, avg(s->acc_sum, s->done) * 100.0));
    return o;
}

/* ---- entry ---- */

static int listed(const struct credview *v, const struct cred *cr, const char *id)
{
    if (id)
        return strcmp(cr->name, id) == 0;
    const struct credstat *s = &v->st[cr->index];
    return s->active > 0 || s->done > 0;
}

static enum cred_kind kind_of(char opt)
{
    switch (opt) {
    case 'u':
        return CRED_USER;
    case 'g':
        return CRED_GROUP;
    case 'a':
        return CRED_ACCOUNT;
    case 'c':
        return CRED_CLASS;
    default:
        return CRED_QOS;
    }
}

int cmd_showstats_cred(const struct cmd_ctx *c, const struct cmd_args *a, struct cmd_buf *out,
                       struct err *err)
{
    enum cred_kind k = kind_of(a->argv[0][1]);
    const char *id = NULL;
    for (int i = 1; i < a->argc; i++) {
        const char *w = a->argv[i];
        if (w[0] == '-')
            return err_set(err, "showstats: %s takes no other option ('%s')", a->argv[0],
                           cmd_word(w));
        if (id)
            return err_set(err, "showstats: %s takes one %s ('%s' is extra)", a->argv[0],
                           cred_kind_name(k), cmd_word(w));
        id = w;
    }
    if (id && !cred_find(sched_creds(c->s, k), id))
        return err_set(err, "showstats: no %s '%s'", cred_kind_name(k), cmd_word(id));
    struct credview v;
    view_init(&v, c, k);
    json_t *rows = a->json ? json_array() : NULL;
    if (!a->json)
        text_head(out, &v);
    for (size_t i = 0; i < v.n; i++) {
        const struct cred *cr = cred_at(v.t, i);
        if (!listed(&v, cr, id))
            continue;
        if (rows)
            json_array_append_new(rows, json_row(&v, cr));
        else
            text_row(out, &v, cr);
    }
    if (rows) {
        json_t *root = json_object();
        json_object_set_new(root, "initialized", json_integer(cmd_epoch(c, v.since)));
        json_object_set_new(root, "type", json_string(cred_kind_name(k)));
        json_object_set_new(root, "credentials", rows);
        cmd_json_out(out, root);
    }
    free(v.st);
    return 0;
}
