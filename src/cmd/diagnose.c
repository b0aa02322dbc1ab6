/*
 * diagnose -p — the priority of every eligible idle job taken apart (digest
 * §7.4; Maui 3.3.1 UIDiagnosePriority and MJobGetStartPriority's display
 * modes), and diagnose -q — why each blocked job is blocked (Maui
 * MQueueDiagnose). This file also reads diagnose's options for diagnose -f,
 * fairshare, which lives in diagfs.c, and diagnose -r [id], reservations,
 * in showres.c, and the tables of diagview.c: -j jobs, -n nodes, -u, -g, -a,
 * -c credentials.
 *
 * -p text: one column per component in use (component weight and at least
 * one factor weight not 0), in Maui's order CRED, FS, ATTR, SERV, TARG, RES,
 * USAGE. Each cell is `<percent>(<sub>:<sub>...)`: the component's share of
 * the job's priority, then per factor in use the raw value for CRED (the
 * credential priorities) and the weighted contribution CW x FW x F for the
 * others. A Weights line heads the table, a Percent Contribution line of
 * averages closes it (of the jobs' make-up in magnitudes, row_shares). JSON: per job the priority,
 * the seven components and the raw factors. Like Maui (which analyses MUIQ, the eligible queue,
 * digest §1.4 step 7), blocked jobs are left out.
 *
 * -q text: `Diagnosing blocked jobs (policylevel SOFT  partition ALL)`, a
 * blank line, then per blocked job, in queue order, its reason: Maui's policy
 * message as is when it names the job (`job 5 violates idle HARD MAXIJOB
 * limit of 1 for user erin (R: 1, U: 1)`), else `job <name, 20 wide>
 * <reason>` as Maui prints its other findings. JSON: {"jobs": [{"id",
 * "reason"}]}.
 *
 * Where moku differs: a share is of the sum of the components' absolute
 * values, not of the priority, so that a system priority or the floor at 1
 * does not hide what the weights do; ATTR has no factors in moku and never
 * shows. With no blocked job -q says `no blocked jobs found` under its header
 * (Maui prints that line alone when the queue is empty, nothing when no job
 * is blocked). -q takes no policy level (-l): the engine decides once what
 * is blocked.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd_int.h"
#include "policy/prio.h"
#include "util/mem.h"

/* One table column: a component and the factors it is made of, in Maui's
 * display order, with Maui's 5-character labels. */
struct diag_col {
    enum prio_comp comp;
    const char *label;
    int nf;
    enum prio_factor f[8];
    const char *flabel[8];
};

/* clang-format off */
static const struct diag_col cols[] = {
    {PRIO_CRED, "Cred", 5, {PF_USER, PF_GROUP, PF_ACCOUNT, PF_QOS, PF_CLASS},
     {"User", "Group", "Accnt", "QOS", "Class"}},
    {PRIO_FS, "FS", 5, {PF_FSUSER, PF_FSGROUP, PF_FSACCOUNT, PF_FSQOS, PF_FSCLASS},
     {"User", "Group", "Accnt", "QOS", "Class"}},
    {PRIO_ATTR, "Attr", 0, {PF_QUEUETIME}, {""}},
    {PRIO_SERV, "Serv", 4, {PF_QUEUETIME, PF_XFACTOR, PF_SPVIOLATION, PF_BYPASS},
     {"QTime", "XFctr", "SPVio", "Bypas"}},
    {PRIO_TARG, "Targ", 2, {PF_TARGETQUEUETIME, PF_TARGETXFACTOR}, {"QTime", "XFctr"}},
    {PRIO_RES, "Res", 8,
     {PF_NODE, PF_PROC, PF_MEM, PF_SWAP, PF_DISK, PF_PS, PF_PE, PF_WALLTIME},
     {"Node", "Proc", "Mem", "Swap", "Disk", "PS", "PE", "WTime"}},
    {PRIO_USAGE, "Usage", 4, {PF_CONSUMED, PF_REMAINING, PF_PERCENT, PF_EXECUTIONTIME},
     {"Cons", "Rem", "Perc", "ETime"}},
};
/* clang-format on */
#define NCOLS (sizeof cols / sizeof cols[0])

/* Which columns and factors the table shows. */
struct diag_shape {
    const struct prio_params *p;
    int qos_qt, qos_xf; /* some QOS adds a queue-time / xfactor weight */
    int show[NCOLS];
    int fshow[NCOLS][8];
};

static int factor_used(const struct diag_shape *d, enum prio_factor f)
{
    if (d->p->fweight[f] != 0)
        return 1;
    return (f == PF_QUEUETIME && d->qos_qt) || (f == PF_XFACTOR && d->qos_xf);
}

static void shape_init(struct diag_shape *d, const struct prio_params *p, int qos_qt, int qos_xf)
{
    memset(d, 0, sizeof *d);
    d->p = p;
    d->qos_qt = qos_qt;
    d->qos_xf = qos_xf;
    for (size_t c = 0; c < NCOLS; c++) {
        if (p->cweight[cols[c].comp] == 0)
            continue;
        for (int k = 0; k < cols[c].nf; k++)
            if ((d->fshow[c][k] = factor_used(d, cols[c].f[k])))
                d->show[c] = 1;
    }
}

static double capped(double v, double cap)
{
    return cap > 0 && v > cap ? cap : v;
}

/* What factor f adds to job j's priority: CW x FW x min(FCAP, F). */
static double contribution(const struct prio_params *p, const struct cmd_prio_row *r,
                           enum prio_comp c, enum prio_factor f)
{
    return (double)p->cweight[c] * prio_factor_weight(p, r->job, f) *
           capped(r->parts.factor[f], p->fcap[f]);
}

static double share_base(const struct prio_parts *parts)
{
    double sum = 0.0;
    for (int c = 0; c < PRIO_NCOMP; c++)
        sum += fabs(parts->comp[c]);
    return sum;
}

static double percent(double v, double base)
{
    return base > 0 ? v / base * 100.0 : 0.0;
}

/* Maui prints a cell value with %3.1f and keeps its first five characters. */
static void cell(struct cmd_buf *b, double v)
{
    char t[64];
    snprintf(t, sizeof t, "%.1f", v);
    cmd_buf_printf(b, "%5.5s", t);
}

/* ---- table lines ---- */

static void line_header(struct cmd_buf *b, const struct diag_shape *d)
{
    cmd_buf_printf(b, "%-20s %10s%c ", "Job", "PRIORITY", '*');
    for (size_t c = 0; c < NCOLS; c++) {
        if (!d->show[c])
            continue;
        cmd_buf_printf(b, " %5s(", cols[c].label);
        const char *sep = "";
        for (int k = 0; k < cols[c].nf; k++)
            if (d->fshow[c][k]) {
                cmd_buf_printf(b, "%s%5s", sep, cols[c].flabel[k]);
                sep = ":";
            }
        cmd_buf_puts(b, ")");
    }
    cmd_buf_puts(b, "\n");
}

static void line_weights(struct cmd_buf *b, const struct diag_shape *d)
{
    cmd_buf_printf(b, "%20s %10s  ", "Weights", "--------");
    for (size_t c = 0; c < NCOLS; c++) {
        if (!d->show[c])
            continue;
        cmd_buf_printf(b, " %5ld(", d->p->cweight[cols[c].comp]);
        const char *sep = "";
        for (int k = 0; k < cols[c].nf; k++)
            if (d->fshow[c][k]) {
                cmd_buf_printf(b, "%s%5ld", sep, d->p->fweight[cols[c].f[k]]);
                sep = ":";
            }
        cmd_buf_puts(b, ")");
    }
    cmd_buf_puts(b, "\n");
}

/* A job's cell values: the component's share of the job's priority, then per
 * shown factor the raw value (CRED) or the contribution. */
static void row_values(const struct diag_shape *d, const struct cmd_prio_row *r, size_t c,
                       double *out)
{
    enum prio_comp comp = cols[c].comp;
    out[0] = percent(r->parts.comp[comp], share_base(&r->parts));
    for (int k = 0; k < cols[c].nf; k++) {
        enum prio_factor f = cols[c].f[k];
        out[1 + k] = comp == PRIO_CRED ? r->parts.factor[f] : contribution(d->p, r, comp, f);
    }
}

/*
 * A job's make-up for the Percent Contribution line: how much of the job's
 * priority each component and factor is, whichever way it pulls. The
 * component's share is its magnitude over the sum of the components'
 * magnitudes (so the shares add up to 100); the component's share is split
 * among its factors in proportion to their contributions' magnitudes (so
 * they add up to it). Signed shares would not: a queue-time factor of +500
 * and an xfactor of -300 make a component of 200, and signed, factor shares
 * of 250 % and -150 % (issue 30). The job rows keep the signs.
 */
static void row_shares(const struct diag_shape *d, const struct cmd_prio_row *r, size_t c,
                       double *out)
{
    enum prio_comp comp = cols[c].comp;
    double mag[8], fsum = 0.0;
    out[0] = percent(fabs(r->parts.comp[comp]), share_base(&r->parts));
    for (int k = 0; k < cols[c].nf; k++) {
        mag[k] = fabs(contribution(d->p, r, comp, cols[c].f[k]));
        fsum += mag[k];
    }
    for (int k = 0; k < cols[c].nf; k++)
        out[1 + k] = fsum > 0 ? out[0] * mag[k] / fsum : 0.0;
}

static void line_cells(struct cmd_buf *b, const struct diag_shape *d, const double (*v)[9])
{
    for (size_t c = 0; c < NCOLS; c++) {
        if (!d->show[c])
            continue;
        cmd_buf_puts(b, " ");
        cell(b, v[c][0]);
        cmd_buf_puts(b, "(");
        const char *sep = "";
        for (int k = 0; k < cols[c].nf; k++)
            if (d->fshow[c][k]) {
                cmd_buf_puts(b, sep);
                cell(b, v[c][1 + k]);
                sep = ":";
            }
        cmd_buf_puts(b, ")");
    }
    cmd_buf_puts(b, "\n");
}

static void line_job(struct cmd_buf *b, const struct diag_shape *d, const struct cmd_prio_row *r)
{
    double v[NCOLS][9];
    for (size_t c = 0; c < NCOLS; c++)
        row_values(d, r, c, v[c]);
    cmd_buf_printf(b, "%-20s %10ld%c ", r->job->name, cmd_prio_shown(r->parts.total),
                   r->job->sysprio_mode != SYSPRIO_NONE ? '*' : ' ');
    line_cells(b, d, (const double(*)[9])v);
}

static void line_averages(struct cmd_buf *b, const struct diag_shape *d,
                          const struct cmd_prio_row *rows, size_t n)
{
    double sum[NCOLS][9] = {{0}};
    for (size_t i = 0; i < n; i++)
        for (size_t c = 0; c < NCOLS; c++) {
            double v[9] = {0};
            row_shares(d, &rows[i], c, v);
            for (int k = 0; k < 9; k++)
                sum[c][k] += v[k] / (double)n;
        }
    cmd_buf_printf(b, "%-20s %10s  ", "Percent Contribution", "--------");
    line_cells(b, d, (const double(*)[9])sum);
}

void cmd_diag_text(struct cmd_buf *out, const struct sched_policy *pol, int qos_qt, int qos_xf,
                   const struct cmd_prio_row *rows, size_t n)
{
    cmd_buf_puts(out, "diagnosing job priority information (partition: ALL)\n\n");
    if (n == 0) {
        cmd_buf_puts(out, "no idle jobs in queue\n");
        return;
    }
    struct diag_shape d;
    shape_init(&d, &pol->prio, qos_qt, qos_xf);
    line_header(out, &d);
    line_weights(out, &d);
    cmd_buf_puts(out, "\n");
    for (size_t i = 0; i < n; i++)
        line_job(out, &d, &rows[i]);
    cmd_buf_puts(out, "\n");
    line_averages(out, &d, rows, n);
    cmd_buf_puts(out, "\n* indicates system prio set on job\n");
}

/* ---- JSON ---- */

static const enum prio_comp json_comps[] = {PRIO_CRED, PRIO_FS,  PRIO_ATTR, PRIO_SERV,
                                            PRIO_TARG, PRIO_RES, PRIO_USAGE};
static const enum prio_factor json_factors[] = {PF_QUEUETIME,
                                                PF_XFACTOR,
                                                PF_BYPASS,
                                                PF_SPVIOLATION,
                                                PF_USER,
                                                PF_GROUP,
                                                PF_ACCOUNT,
                                                PF_QOS,
                                                PF_CLASS,
                                                PF_FSUSER,
                                                PF_FSGROUP,
                                                PF_FSACCOUNT,
                                                PF_FSQOS,
                                                PF_FSCLASS,
                                                PF_NODE,
                                                PF_PROC,
                                                PF_MEM,
                                                PF_SWAP,
                                                PF_DISK,
                                                PF_PS,
                                                PF_PE,
                                                PF_WALLTIME,
                                                PF_TARGETQUEUETIME,
                                                PF_TARGETXFACTOR};

/* The weights each factor has for this job (a QOS or group can change
 * them) and its system priority: with the table's "weights", what a page
 * needs to recompute the priority under other weights. */
static json_t *json_row_weights(const struct sched_policy *pol, const struct job *j)
{
    json_t *w = json_object();
    for (size_t i = 0; i < sizeof json_factors / sizeof json_factors[0]; i++)
        json_object_set_new(w, prio_factor_name(json_factors[i]),
                            json_real(prio_factor_weight(&pol->prio, j, json_factors[i])));
    return w;
}

static json_t *json_sysprio(const struct job *j)
{
    if (j->sysprio_mode == SYSPRIO_NONE)
        return json_null();
    return json_pack("{s:s, s:I}", "mode",
                     j->sysprio_mode == SYSPRIO_ABSOLUTE ? "absolute" : "relative", "value",
                     (json_int_t)j->sysprio);
}

/* The configured weights and caps by maui.cfg name, and how the sum is
 * assembled: priority = clip(floor(sum_c CW x min(CCAP, sum_f FW x
 * min(FCAP, F)))) then the system priority (policy/prio.h). */
static json_t *json_weights(const struct sched_policy *pol)
{
    const struct prio_params *p = &pol->prio;
    json_t *comps = json_object(), *facts = json_object();
    for (size_t i = 0; i < sizeof json_comps / sizeof json_comps[0]; i++) {
        enum prio_comp c = json_comps[i];
        json_object_set_new(comps, prio_comp_name(c),
                            json_pack("{s:s, s:I, s:s, s:f}", "param", prio_comp_param(c, 0),
                                      "weight", (json_int_t)p->cweight[c], "cap_param",
                                      prio_comp_param(c, 1), "cap", p->ccap[c]));
    }
    for (size_t i = 0; i < sizeof json_factors / sizeof json_factors[0]; i++) {
        enum prio_factor f = json_factors[i];
        char wname[64], cname[64];
        snprintf(wname, sizeof wname, "%sWEIGHT", prio_factor_stem(f));
        snprintf(cname, sizeof cname, "%sCAP", prio_factor_stem(f));
        json_object_set_new(facts, prio_factor_name(f),
                            json_pack("{s:s, s:s, s:I, s:s, s:f}", "component",
                                      prio_comp_name(prio_factor_comp(f)), "param", wname, "weight",
                                      (json_int_t)p->fweight[f], "cap_param", cname, "cap",
                                      p->fcap[f]));
    }
    int neg = p->reject_neg || p->enable_neg;
    return json_pack("{s:o, s:o, s:f, s:f}", "components", comps, "factors", facts, "floor",
                     neg ? -PRIO_CLIP : 1.0, "clip", PRIO_CLIP);
}

static json_t *json_row(const struct sched_policy *pol, const struct cmd_prio_row *r)
{
    json_t *comps = json_object(), *facts = json_object();
    for (size_t i = 0; i < sizeof json_comps / sizeof json_comps[0]; i++)
        json_object_set_new(comps, prio_comp_name(json_comps[i]),
                            json_real(r->parts.comp[json_comps[i]]));
    for (size_t i = 0; i < sizeof json_factors / sizeof json_factors[0]; i++)
        json_object_set_new(facts, prio_factor_name(json_factors[i]),
                            json_real(r->parts.factor[json_factors[i]]));
    /* Factors whose weight for this job does not follow the configured one
     * (a group's CLASSWEIGHT replaces CLASSWEIGHT): a what-if keeps them. */
    json_t *fixed = json_array();
    if (r->job->group && r->job->group->classweight > 0)
        json_array_append_new(fixed, json_string(prio_factor_name(PF_CLASS)));
    return json_pack("{s:o, s:f, s:o, s:o, s:o, s:o, s:o}", "id", cmd_jstr(r->job->name),
                     "priority", r->parts.total, "components", comps, "factors", facts, "weights",
                     json_row_weights(pol, r->job), "fixed", fixed, "sysprio",
                     json_sysprio(r->job));
}

static void json_table(struct cmd_buf *out, const struct sched_policy *pol,
                       const struct cmd_prio_row *rows, size_t n)
{
    json_t *jobs = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(jobs, json_row(pol, &rows[i]));
    cmd_json_out(out, json_pack("{s:o, s:o}", "weights", json_weights(pol), "jobs", jobs));
}

/* ---- diagnose -q ---- */

static void blocked_text(struct cmd_buf *out, const struct cmd_ctx *c, struct job *const *q,
                         size_t n)
{
    cmd_buf_puts(out, "Diagnosing blocked jobs (policylevel SOFT  partition ALL)\n\n");
    size_t shown = 0;
    for (size_t i = 0; i < n; i++) {
        const char *why = sched_job_listed_blocked(c->s, q[i]);
        if (!why)
            continue;
        shown++;
        if (cmd_reason_tail(q[i], why) != why)
            cmd_buf_printf(out, "%s\n", why);
        else
            cmd_buf_printf(out, "job %-20s %s\n", q[i]->name, why);
    }
    if (shown == 0)
        cmd_buf_puts(out, "no blocked jobs found\n");
}

static void blocked_json(struct cmd_buf *out, const struct cmd_ctx *c, struct job *const *q,
                         size_t n)
{
    json_t *jobs = json_array();
    for (size_t i = 0; i < n; i++) {
        const char *why = sched_job_listed_blocked(c->s, q[i]);
        if (why)
            json_array_append_new(
                jobs, json_pack("{s:o, s:o}", "id", cmd_jstr(q[i]->name), "reason", cmd_jstr(why)));
    }
    cmd_json_out(out, json_pack("{s:o}", "jobs", jobs));
}

/* ---- entry ---- */

/* Whether some QOS adds a queue-time or xfactor weight (Maui then shows
 * those columns even with a global weight of 0). */
static void qos_weights(const struct sched *s, int *qt, int *xf)
{
    struct cred_table *t = sched_creds(s, CRED_QOS);
    *qt = *xf = 0;
    for (size_t i = 0; t && i < cred_count(t); i++) {
        const struct cred *q = cred_at(t, i);
        *qt |= q->qtweight != 0;
        *xf |= q->xfweight != 0;
    }
}

/* -r's optional reservation id: it must exist. */
static int check_resv_id(const struct cmd_ctx *c, const char *w, const char **id, struct err *err)
{
    if (*id)
        return err_usage(err, "diagnose: -r takes one reservation ('%s' is extra)", cmd_word(w));
    if (!sched_find_resv(c->s, w))
        return err_set(err, "diagnose: no reservation '%s'", cmd_word(w));
    *id = w;
    return 0;
}

/* The one mode asked for: 'f', 'p', 'q', 'r' (which may name a
 * reservation), or 'j', 'n', 'u', 'g', 'a', 'c' (diagview.c; the credential
 * ones may name a credential, in *arg). */
static int parse_args(const struct cmd_ctx *c, const struct cmd_args *a, char *mode,
                      const char **arg, struct err *err)
{
    const char *id = NULL;
    *mode = 0;
    *arg = NULL;
    for (int i = 0; i < a->argc; i++) {
        const char *w = a->argv[i];
        char m;
        if (w[0] != '-' && *mode == 'r') {
            if (check_resv_id(c, w, &id, err) < 0)
                return -1;
            continue;
        }
        if (w[0] != '-' && *mode && strchr("jnugac", *mode)) {
            if (*arg)
                return err_set(err, "diagnose: -%c takes one name ('%s' is extra)", *mode,
                               cmd_word(w));
            *arg = w;
            continue;
        }
        if (w[0] != '-')
            return err_usage(err, "diagnose: unexpected argument '%s'", cmd_word(w));
        if (w[1] == '\0' || w[2] != '\0' || !strchr("fpqrjnugac", w[1]))
            return err_usage(err,
                             "diagnose: unknown option '%s' (-a, -c, -f, -g, -j, -n, -p, -q, -r "
                             "or -u)",
                             cmd_word(w));
        m = w[1];
        if (*mode && *mode != m)
            return err_usage(err, "diagnose: -%c and -%c are exclusive", *mode, m);
        *mode = m;
    }
    if (!*mode)
        return err_usage(err, "diagnose: missing option (-f, fairshare, -p, priority, -q, "
                              "blocked jobs, -r, reservations, -j, jobs, -n, nodes, -u, -g, -a, "
                              "-c, credentials)");
    return 0;
}

static void diagnose_prio(const struct cmd_ctx *c, const struct cmd_args *a, struct cmd_buf *out,
                          struct job *const *q, size_t n)
{
    struct cmd_prio_row *rows = xcalloc(n ? n : 1, sizeof *rows);
    size_t nrows = 0;
    for (size_t i = 0; i < n; i++) {
        if (sched_job_listed_blocked(c->s, q[i]))
            continue;
        rows[nrows].job = q[i];
        sched_job_priority(c->s, q[i], c->now, &rows[nrows].parts);
        nrows++;
    }
    if (a->json) {
        json_table(out, sched_policy(c->s), rows, nrows);
    } else {
        int qt, xf;
        qos_weights(c->s, &qt, &xf);
        cmd_diag_text(out, sched_policy(c->s), qt, xf, rows, nrows);
    }
    free(rows);
}

int cmd_diagnose(const struct cmd_ctx *c, const struct cmd_args *a, struct cmd_buf *out,
                 struct err *err)
{
    char mode;
    const char *arg;
    if (parse_args(c, a, &mode, &arg, err) < 0)
        return -1;
    if (strchr("jnugac", mode))
        return cmd_diag_view(c, a, mode, arg, out, err);
    if (mode == 'f') {
        cmd_diag_fs(c, a, out);
        return 0;
    }
    if (mode == 'r') {
        cmd_diag_resv(c, a, out);
        return 0;
    }
    size_t n;
    struct job *const *q = sched_queue(c->s, c->now, &n);
    if (mode == 'p')
        diagnose_prio(c, a, out, q, n);
    else if (a->json)
        blocked_json(out, c, q, n);
    else
        blocked_text(out, c, q, n);
    return 0;
}
