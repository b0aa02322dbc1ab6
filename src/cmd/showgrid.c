/*
 * showgrid STATISTIC — one statistic of the completed jobs as a matrix of
 * job size (processors) x requested walltime (digest §7.10; Maui's
 * MStatBuildGrid / showgrid): rows are processor classes, columns walltime
 * classes, with a TOTAL row and column.
 *
 *   Average XFactor Grid
 *
 *   [ PROCS ][   00:02:00 ][   00:08:00 ][   00:32:00 ][    2:08:00 ][ ... ][      TOTAL ]
 *   [     1 ][   -------- ][   -------- ][       2.50 ][   -------- ][ ... ][       2.50 ]
 *   ...
 *   [ TOTAL ][   -------- ][   -------- ][       1.53 ][ ...
 *
 * Cells are 10 wide (`[ %10s ]`, a duration up to `1:10:08:00`), values
 * `%.2f`, counts `%d`.
 *
 * Classes are Maui's default statistics bins: processors 1, 4, 16, 64, 256
 * (STATPROCMIN 1, STATPROCSTEPSIZE 4, STATPROCSTEPCOUNT 5) and walltimes
 * 2:00, 8:00, 32:00, 2:08:00, 8:32:00, 1:10:08:00 (STATTIMEMIN 120,
 * STATTIMESTEPSIZE 4, STATTIMESTEPCOUNT 6); moku's configuration has no
 * STAT* parameters. A job goes in the first class at least its size (its
 * walltime limit), the last class when it is larger than all.
 *
 * The jobs counted are showstats' completed jobs: started, ended at or after
 * the time statistics began (cmd_stats_completed). A cell with no job shows
 * `--------` (JSON null).
 *
 * Statistics: JOBCOUNT; AVGQTIME (hours); AVGXFACTOR and MAXXFACTOR
 * ((queue time + run time) / walltime limit); PROCHOURS or PHRUN
 * (processors x run time, hours); PHREQUEST (processors x walltime limit,
 * hours); WCACCURACY (mean run time / walltime limit, percent). Maui's
 * AVGBYPASS, MAXBYPASS, BFCOUNT, BFPHRUN, JOBEFFICIENCY, QOSDELIVERED are
 * refused (moku keeps no per-job bypass history after the end, nor CPU use).
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "cmd/cmd_int.h"

#define NPROC 5
#define NTIME 6

static const long proc_bins[NPROC] = {1, 4, 16, 64, 256};
static const long time_bins[NTIME] = {120, 480, 1920, 7680, 30720, 122880};

enum grid_stat { G_JOBCOUNT, G_AVGQTIME, G_AVGXFACTOR, G_MAXXFACTOR, G_PHRUN, G_PHREQ, G_WCACC };

static const struct {
    const char *name;
    enum grid_stat stat;
    const char *title;
} stats[] = {
    {"JOBCOUNT", G_JOBCOUNT, "Job Count"},
    {"AVGQTIME", G_AVGQTIME, "Average Queue Time (hours)"},
    {"AVGXFACTOR", G_AVGXFACTOR, "Average XFactor"},
    {"MAXXFACTOR", G_MAXXFACTOR, "Maximum XFactor"},
    {"PROCHOURS", G_PHRUN, "Processor Hours Run"},
    {"PHRUN", G_PHRUN, "Processor Hours Run"},
    {"PHREQUEST", G_PHREQ, "Processor Hours Requested"},
    {"WCACCURACY", G_WCACC, "Wallclock Accuracy (%)"},
};
#define NSTATS (sizeof stats / sizeof stats[0])

/* What one cell gathers. */
struct cell {
    long n;
    double qt, xf, xf_max, run_ps, req_ps, acc;
};

struct grid {
    struct cell c[NPROC + 1][NTIME + 1]; /* last row and column: totals */
};

static int bin(const long *bins, int n, long v)
{
    for (int i = 0; i < n; i++)
        if (v <= bins[i])
            return i;
    return n - 1;
}

static void cell_add(struct cell *c, const struct job *j)
{
    double run = (double)(j->end > j->start ? j->end - j->start : 0);
    double qt = (double)(j->start > j->submit ? j->start - j->submit : 0);
    double wc = (double)(j->walltime > 0 ? j->walltime : 1);
    double xf = (qt + run) / wc;
    c->n++;
    c->qt += qt;
    c->xf += xf;
    if (xf > c->xf_max)
        c->xf_max = xf;
    c->run_ps += (double)job_procs(j) * run;
    c->req_ps += (double)job_procs(j) * (double)j->walltime;
    c->acc += run / wc;
}

static void grid_fill(struct grid *g, const struct cmd_ctx *c)
{
    long since = cmd_stats_since(c);
    memset(g, 0, sizeof *g);
    for (size_t i = 0; i < sched_njobs(c->s); i++) {
        const struct job *j = sched_job(c->s, i);
        if (!j || !cmd_stats_completed(j, since))
            continue;
        int p = bin(proc_bins, NPROC, (long)job_procs(j));
        int t = bin(time_bins, NTIME, j->walltime);
        cell_add(&g->c[p][t], j);
        cell_add(&g->c[p][NTIME], j);
        cell_add(&g->c[NPROC][t], j);
        cell_add(&g->c[NPROC][NTIME], j);
    }
}

/* The statistic of a cell; 0 when it has no job (the caller shows none). */
static double value(const struct cell *c, enum grid_stat s)
{
    double n = c->n ? (double)c->n : 1.0;
    switch (s) {
    case G_JOBCOUNT:
        return (double)c->n;
    case G_AVGQTIME:
        return c->qt / n / 3600.0;
    case G_AVGXFACTOR:
        return c->xf / n;
    case G_MAXXFACTOR:
        return c->xf_max;
    case G_PHRUN:
        return c->run_ps / 3600.0;
    case G_PHREQ:
        return c->req_ps / 3600.0;
    case G_WCACC:
        return c->acc / n * 100.0;
    }
    return 0.0;
}

static void text_cell(struct cmd_buf *b, const struct cell *c, enum grid_stat s)
{
    if (!c->n)
        cmd_buf_printf(b, "[ %10s ]", "--------");
    else if (s == G_JOBCOUNT)
        cmd_buf_printf(b, "[ %10ld ]", c->n);
    else
        cmd_buf_printf(b, "[ %10.2f ]", value(c, s));
}

static void grid_text(struct cmd_buf *b, const struct grid *g, enum grid_stat s, const char *title)
{
    cmd_buf_printf(b, "%s Grid\n\n[ PROCS ]", title);
    for (int t = 0; t < NTIME; t++) {
        char d[CMD_TIME_MAX];
        cmd_fmt_duration(time_bins[t], d);
        cmd_buf_printf(b, "[ %10s ]", d);
    }
    cmd_buf_printf(b, "[ %10s ]\n", "TOTAL");
    for (int p = 0; p <= NPROC; p++) {
        if (p < NPROC)
            cmd_buf_printf(b, "[ %5ld ]", proc_bins[p]);
        else
            cmd_buf_puts(b, "[ TOTAL ]");
        for (int t = 0; t <= NTIME; t++)
            text_cell(b, &g->c[p][t], s);
        cmd_buf_puts(b, "\n");
    }
}

static json_t *json_cell(const struct cell *c, enum grid_stat s)
{
    if (!c->n)
        return json_null();
    if (s == G_JOBCOUNT)
        return json_integer(c->n);
    return json_real(value(c, s));
}

static void grid_json(struct cmd_buf *b, const struct grid *g, enum grid_stat s, const char *name)
{
    json_t *procs = json_array(), *times = json_array(), *rows = json_array();
    json_t *row_tot = json_array(), *col_tot = json_array();
    for (int p = 0; p < NPROC; p++)
        json_array_append_new(procs, json_integer(proc_bins[p]));
    for (int t = 0; t < NTIME; t++) {
        json_array_append_new(times, json_integer(time_bins[t]));
        json_array_append_new(col_tot, json_cell(&g->c[NPROC][t], s));
    }
    for (int p = 0; p < NPROC; p++) {
        json_t *r = json_array();
        for (int t = 0; t < NTIME; t++)
            json_array_append_new(r, json_cell(&g->c[p][t], s));
        json_array_append_new(rows, r);
        json_array_append_new(row_tot, json_cell(&g->c[p][NTIME], s));
    }
    json_t *o = json_object();
    json_object_set_new(o, "statistic", json_string(name));
    json_object_set_new(o, "procs", procs);
    json_object_set_new(o, "walltimes", times);
    json_object_set_new(o, "rows", rows);
    json_object_set_new(o, "row_totals", row_tot);
    json_object_set_new(o, "column_totals", col_tot);
    json_object_set_new(o, "total", json_cell(&g->c[NPROC][NTIME], s));
    cmd_json_out(b, o);
}

int cmd_showgrid(const struct cmd_ctx *c, const struct cmd_args *a, struct cmd_buf *out,
                 struct err *err)
{
    if (a->argc >= 1 && a->argv[0][0] == '-')
        return err_usage(err, "showgrid: unknown option '%s' (showgrid STATISTIC)",
                         cmd_word(a->argv[0]));
    if (a->argc != 1)
        return err_usage(err,
                         "showgrid: %s (showgrid JOBCOUNT|AVGQTIME|AVGXFACTOR|MAXXFACTOR|"
                         "PROCHOURS|PHREQUEST|WCACCURACY)",
                         a->argc ? "one statistic at a time" : "missing statistic");
    size_t i = 0;
    while (i < NSTATS && strcasecmp(stats[i].name, a->argv[0]) != 0)
        i++;
    if (i == NSTATS)
        return err_set(err,
                       "showgrid: unknown or unsupported statistic '%s' (JOBCOUNT, "
                       "AVGQTIME, AVGXFACTOR, MAXXFACTOR, PROCHOURS, PHRUN, PHREQUEST, "
                       "WCACCURACY)",
                       cmd_word(a->argv[0]));
    struct grid g; /* 42 cells, 2.4 kB */
    struct grid *gp = &g;
    grid_fill(gp, c);
    if (a->json)
        grid_json(out, gp, stats[i].stat, stats[i].name);
    else
        grid_text(out, gp, stats[i].stat, stats[i].title);
    return 0;
}
