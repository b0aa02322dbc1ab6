/*
 * showres — the reservations the engine holds (struct resv: administrative
 * ones made by setres, and the instances of standing ones), as Maui's
 * showres, diagnose -r and checknode show them (digest §7.7, §7.4, §7.3).
 *
 * showres [-g] [-n] [-r] [-s] [-v] [id...]
 *   the table: `%-18s %5s %1c %11s %11s %11s %4d/%-4d %s` per reservation —
 *   id, type, state (`-`: not a job), start, end (both relative to now),
 *   duration, nodes/processors, start date; then `N reservations located`.
 *   -n  one line per reserved node and reservation, node-table order (Maui's
 *       showres -n): node, type, id, job state (N/A), tasks there, start
 *       (relative), duration, start date.
 *   -g  the reservation's nodes at the end of its line (grep-able).
 *   -v  dates with the year.
 *   -r, -s  accepted: relative times and the summary table are what moku
 *       prints anyway.
 * diagnose -r [id]: every reservation in detail (Maui's MResShowState
 * layout: a header row, then Flags, ACL, Owner, ... lines).
 * checknode: `  User '<id>'(x<procs here>)  <start> -> <end> (<duration>)`,
 * as Maui lists a node's reservations, after the node's job reservations.
 *
 * Where moku differs from Maui 3.3.1: showres lists no job reservations (a
 * running job's nodes, an idle job's priority reservation): showq, checkjob
 * and checknode show those. Reservations whose window has ended are not
 * shown. Standing instances have type User, as in Maui, with the flag
 * STANDINGRSV; DEDICATEDRESOURCE stands for ACCESS=DEDICATED.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd/cmd_int.h"
#include "policy/srcfg.h"
#include "util/mem.h"

/* Maui's type for administrative and standing reservations alike. */
#define RESV_TYPE "User"
/* Room for every flag name a reservation can carry. */
#define RESV_MAXFLAGS 40

struct showres_opts {
    int nodes, grep, verbose;
    const char **ids; /* only these (words of a->argv; owned array); none: all */
    int nids;
};

/* ---- facts about one reservation ---- */

static int resv_live(const struct cmd_ctx *c, const struct resv *r)
{
    return r->end > c->now;
}

static int resv_selected(const struct showres_opts *o, const struct resv *r)
{
    if (o->nids == 0)
        return 1;
    for (int i = 0; i < o->nids; i++)
        if (strcmp(o->ids[i], r->id) == 0)
            return 1;
    return 0;
}

static const char *node_name(const struct cmd_ctx *c, const struct resv *r, size_t k)
{
    return sched_node(c->s, r->nodes[k].node)->name;
}

/* Tasks of r on its node k. struct resv keeps processors per node; a task
 * is r->procs / r->tasks processors unless there is one task per node
 * (whole-node tasks, whatever their sizes). */
static long node_tasks(const struct resv *r, size_t k)
{
    if (r->tasks <= 0 || (size_t)r->tasks <= r->nnodes || r->procs % r->tasks != 0)
        return 1;
    long t = (long)(r->nodes[k].procs / (r->procs / r->tasks));
    return t > 0 ? t : 1;
}

/* The partition of r's nodes, "ALL" when they span several (or none). */
static const char *resv_partition(const struct cmd_ctx *c, const struct resv *r)
{
    const char *p = NULL;
    for (size_t k = 0; k < r->nnodes; k++) {
        const char *q = sched_node(c->s, r->nodes[k].node)->partition;
        if (!p)
            p = q;
        else if (strcmp(p, q) != 0)
            return "ALL";
    }
    return p ? p : "ALL";
}

/* r's flags by name: STANDINGRSV for a standing instance (Maui's internal
 * flag), the SRCFG_* bits, DEDICATEDRESOURCE for ACCESS=DEDICATED. */
static size_t resv_flags(const struct resv *r, const char *out[RESV_MAXFLAGS])
{
    size_t n = 0;
    if (r->kind == RESV_STANDING)
        out[n++] = "STANDINGRSV";
    if (r->kind == RESV_EXTERNAL)
        out[n++] = "RMRSV"; /* the resource manager's own */
    for (unsigned b = 0; b < 32; b++) {
        const char *name = srcfg_flag_name(1u << b);
        if ((r->flags & (1u << b)) && strcmp(name, "?") != 0)
            out[n++] = name;
    }
    if (r->access == SRCFG_DEDICATED)
        out[n++] = "DEDICATEDRESOURCE";
    return n;
}

/* The ACL as acl_format prints it. Caller frees. */
static char *acl_text(const struct acl *acl)
{
    int n = acl_format(acl, NULL, 0);
    char *s = xmalloc((size_t)(n > 0 ? n : 0) + 1);
    acl_format(acl, s, (size_t)(n > 0 ? n : 0) + 1);
    return s;
}

/* cmd_fmt_date, with the year after it when asked (showres -v). */
static void fmt_start(const struct cmd_ctx *c, long t, int year, char out[CMD_TIME_MAX])
{
    cmd_fmt_date(c, t, out);
    struct tm tm;
    if (year && cmd_clock_tm(cmd_epoch(c, t), &tm) == 0) {
        size_t n = strlen(out);
        snprintf(out + n, CMD_TIME_MAX - n, " %d", tm.tm_year + 1900);
    }
}

/* ---- showres: the table ---- */

static void node_list(struct cmd_buf *b, const struct cmd_ctx *c, const struct resv *r)
{
    for (size_t k = 0; k < r->nnodes; k++)
        cmd_buf_printf(b, "%s%s", k ? "," : "", node_name(c, r, k));
}

static void table_row(struct cmd_buf *b, const struct cmd_ctx *c, const struct showres_opts *o,
                      const struct resv *r)
{
    char s[CMD_TIME_MAX], e[CMD_TIME_MAX], d[CMD_TIME_MAX], date[CMD_TIME_MAX];
    cmd_fmt_duration(r->start - c->now, s);
    cmd_fmt_duration(r->end - c->now, e);
    cmd_fmt_duration(r->end - r->start, d);
    fmt_start(c, r->start, o->verbose, date);
    cmd_buf_printf(b, "%-18s %5s %1c %11s %11s %11s %4zu/%-4lld %s", r->id, RESV_TYPE, '-', s, e, d,
                   r->nnodes, r->procs, date);
    if (o->grep) {
        cmd_buf_puts(b, "  ");
        node_list(b, c, r);
    }
    cmd_buf_puts(b, "\n");
}

static void located(struct cmd_buf *b, size_t n)
{
    cmd_buf_printf(b, "%zu reservation%s located\n", n, n == 1 ? "" : "s");
}

static void table_text(struct cmd_buf *b, const struct cmd_ctx *c, const struct showres_opts *o)
{
    cmd_buf_puts(b, "Reservations\n\n");
    cmd_buf_printf(b, "%-18s %5s %1s %11s %11s %11s %4s/%-4s %s\n\n", "ReservationID", "Type", "S",
                   "Start", "End", "Duration", "N", "P", "StartTime");
    size_t shown = 0;
    for (size_t i = 0; i < sched_nresv(c->s); i++) {
        const struct resv *r = sched_resv_at(c->s, i);
        if (resv_live(c, r) && resv_selected(o, r)) {
            table_row(b, c, o, r);
            shown++;
        }
    }
    if (shown)
        cmd_buf_puts(b, "\n");
    located(b, shown);
}

/* ---- showres -n: one line per node and reservation ---- */

struct node_entry {
    unsigned node;
    size_t resv; /* index in sched_resv_at order */
    size_t k;    /* index in its nodes[] */
};

static int by_node(const void *a, const void *b)
{
    const struct node_entry *x = a, *y = b;
    if (x->node != y->node)
        return x->node < y->node ? -1 : 1;
    return x->resv < y->resv ? -1 : x->resv > y->resv;
}

/* The (node, reservation) pairs shown, node-table order; *nresv counts the
 * reservations they come from. Caller frees. */
static struct node_entry *node_entries(const struct cmd_ctx *c, const struct showres_opts *o,
                                       size_t *n, size_t *nresv)
{
    struct node_entry *v = NULL;
    size_t cap = 0;
    *n = *nresv = 0;
    for (size_t i = 0; i < sched_nresv(c->s); i++) {
        const struct resv *r = sched_resv_at(c->s, i);
        if (!resv_live(c, r) || !resv_selected(o, r))
            continue;
        (*nresv)++;
        for (size_t k = 0; k < r->nnodes; k++) {
            v = xgrow(v, &cap, *n + 1, sizeof *v);
            v[(*n)++] = (struct node_entry){.node = r->nodes[k].node, .resv = i, .k = k};
        }
    }
    if (*n > 1)
        qsort(v, *n, sizeof *v, by_node);
    return v;
}

static void nodes_text(struct cmd_buf *b, const struct cmd_ctx *c, const struct showres_opts *o)
{
    char now[CMD_TIME_MAX];
    fmt_start(c, c->now, o->verbose, now);
    cmd_buf_printf(b, "reservations on %s\n\n", now);
    cmd_buf_printf(b, "%-20s %4s %18s %10s %4s %11s %11s  %s\n\n", "NodeName", "Type",
                   "ReservationID", "JobState", "Task", "Start", "Duration", "StartTime");
    size_t n, nresv;
    struct node_entry *v = node_entries(c, o, &n, &nresv);
    for (size_t i = 0; i < n; i++) {
        const struct resv *r = sched_resv_at(c->s, v[i].resv);
        char s[CMD_TIME_MAX], d[CMD_TIME_MAX], date[CMD_TIME_MAX];
        cmd_fmt_duration(r->start - c->now, s);
        cmd_fmt_duration(r->end - r->start, d);
        fmt_start(c, r->start, o->verbose, date);
        cmd_buf_printf(b, "%-20s %4s %18s %10s %4ld %11s %11s  %s\n", node_name(c, r, v[i].k),
                       RESV_TYPE, r->id, "N/A", node_tasks(r, v[i].k), s, d, date);
    }
    if (n)
        cmd_buf_puts(b, "\n");
    located(b, nresv);
    free(v);
}

/* ---- showres JSON ---- */

static json_t *json_flags(const struct resv *r)
{
    const char *names[RESV_MAXFLAGS];
    size_t n = resv_flags(r, names);
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(a, json_string(names[i]));
    return a;
}

/* {"id", "type", "start", "end", "nodes", "procs", "flags", "acl"}. */
static json_t *json_resv(const struct cmd_ctx *c, const struct resv *r)
{
    json_t *nodes = json_array();
    for (size_t k = 0; k < r->nnodes; k++)
        json_array_append_new(nodes, cmd_jstr(node_name(c, r, k)));
    char *acl = acl_text(r->acl);
    json_t *o = json_pack("{s:o, s:s, s:I, s:I, s:o, s:I, s:o, s:o}", "id", cmd_jstr(r->id), "type",
                          RESV_TYPE, "start", (json_int_t)cmd_epoch(c, r->start), "end",
                          (json_int_t)cmd_epoch(c, r->end), "nodes", nodes, "procs",
                          (json_int_t)r->procs, "flags", json_flags(r), "acl", cmd_jstr(acl));
    free(acl);
    return o;
}

static void table_json(struct cmd_buf *b, const struct cmd_ctx *c, const struct showres_opts *o)
{
    json_t *a = json_array();
    for (size_t i = 0; i < sched_nresv(c->s); i++) {
        const struct resv *r = sched_resv_at(c->s, i);
        if (resv_live(c, r) && resv_selected(o, r))
            json_array_append_new(a, json_resv(c, r));
    }
    cmd_json_out(b, json_pack("{s:o}", "reservations", a));
}

/* {"nodes": [{"name", "reservations": [{"id", "type", "tasks", "procs",
 * "start", "end"}]}]}, node-table order. */
static void nodes_json(struct cmd_buf *b, const struct cmd_ctx *c, const struct showres_opts *o)
{
    size_t n, nresv;
    struct node_entry *v = node_entries(c, o, &n, &nresv);
    json_t *nodes = json_array(), *list = NULL;
    for (size_t i = 0; i < n; i++) {
        const struct resv *r = sched_resv_at(c->s, v[i].resv);
        if (i == 0 || v[i].node != v[i - 1].node) {
            list = json_array();
            json_array_append_new(nodes,
                                  json_pack("{s:o, s:o}", "name", cmd_jstr(node_name(c, r, v[i].k)),
                                            "reservations", list));
        }
        json_array_append_new(list, json_pack("{s:o, s:s, s:I, s:I, s:I, s:I}", "id",
                                              cmd_jstr(r->id), "type", RESV_TYPE, "tasks",
                                              (json_int_t)node_tasks(r, v[i].k), "procs",
                                              (json_int_t)r->nodes[v[i].k].procs, "start",
                                              (json_int_t)cmd_epoch(c, r->start), "end",
                                              (json_int_t)cmd_epoch(c, r->end)));
    }
    free(v);
    cmd_json_out(b, json_pack("{s:o}", "nodes", nodes));
}

/* ---- showres entry ---- */

static int showres_args(const struct cmd_ctx *c, const struct cmd_args *a, struct showres_opts *o,
                        struct err *err)
{
    *o = (struct showres_opts){.ids = xcalloc((size_t)a->argc + 1, sizeof *o->ids)};
    for (int i = 0; i < a->argc; i++) {
        const char *w = a->argv[i];
        if (w[0] != '-' || w[1] == '\0') {
            if (!sched_find_resv(c->s, w))
                return err_set(err, "showres: no reservation '%s'", cmd_word(w));
            o->ids[o->nids++] = w;
            continue;
        }
        for (const char *p = w + 1; *p; p++) {
            if (!strchr("gnrsv", *p))
                return err_usage(err, "showres: unknown option '%s' (-g, -n, -r, -s or -v)",
                                 cmd_word(w));
            o->nodes |= *p == 'n';
            o->grep |= *p == 'g';
            o->verbose |= *p == 'v';
        }
    }
    return 0;
}

int cmd_showres(const struct cmd_ctx *c, const struct cmd_args *a, struct cmd_buf *out,
                struct err *err)
{
    struct showres_opts o;
    int rc = showres_args(c, a, &o, err);
    if (rc == 0 && o.nodes && a->json)
        nodes_json(out, c, &o);
    else if (rc == 0 && o.nodes)
        nodes_text(out, c, &o);
    else if (rc == 0 && a->json)
        table_json(out, c, &o);
    else if (rc == 0)
        table_text(out, c, &o);
    free(o.ids);
    return rc;
}

/* ---- diagnose -r ---- */

static void diag_row(struct cmd_buf *b, const struct cmd_ctx *c, const struct resv *r)
{
    char s[CMD_TIME_MAX], e[CMD_TIME_MAX], d[CMD_TIME_MAX];
    cmd_fmt_duration(r->start - c->now, s);
    cmd_fmt_duration(r->end - c->now, e);
    cmd_fmt_duration(r->end - r->start, d);
    /* The partition cut to its column, as the layout has it (JSON: whole). */
    cmd_buf_printf(b, "%-26s %4s %3.3s %11s %11s %12s %4zu %4ld %4lld\n", r->id, RESV_TYPE,
                   resv_partition(c, r), s, e, d, r->nnodes, r->tasks, r->procs);
}

static void diag_tasks(struct cmd_buf *b, const struct resv *r)
{
    if (r->tasks_asked <= 0)
        cmd_buf_printf(b, "    Tasks: %ld (all matched hosts)\n", r->tasks);
    else
        cmd_buf_printf(b, "    Tasks: %ld of %ld asked%s\n", r->tasks, r->tasks_asked,
                       r->tasks < r->tasks_asked ? " (partial)" : "");
}

/* What running jobs hold of r's processors over its window: *mine, those
 * it admits (per node at most what it reserves: a stacked reservation
 * counts a job both admit, whichever one the job is charged to), *others,
 * those it does not admit and that its node has no spare processors for,
 * and *until, when the last of the latter is planned to end. */
struct occupancy {
    long long mine, others;
    long until;
};

static struct occupancy occupancy(const struct cmd_ctx *c, const struct resv *r)
{
    struct occupancy o = {0, 0, 0};
    for (size_t k = 0; k < r->nnodes; k++) {
        long long mine = 0, others = 0, spare;
        long until = 0;
        for (size_t i = 0; i < sched_njobs(c->s); i++) {
            const struct job *j = sched_job(c->s, i);
            if (!j)
                continue;
            long long p;
            if (j->state != JOB_RUNNING || j->planned_end <= r->start || j->start >= r->end ||
                (p = cmd_job_procs_on(j, r->nodes[k].node)) <= 0)
                continue;
            if (sched_resv_access(c->s, r, j, j->start) != ACL_NONE) {
                mine += p;
            } else {
                others += p;
                until = j->planned_end > until ? j->planned_end : until;
            }
        }
        spare = (long long)sched_node(c->s, r->nodes[k].node)->procs - r->nodes[k].procs;
        others = others > spare ? others - spare : 0;
        o.mine += mine < r->nodes[k].procs ? mine : r->nodes[k].procs;
        o.others += others < r->nodes[k].procs ? others : r->nodes[k].procs;
        if (others > 0 && until > o.until)
            o.until = until;
    }
    return o;
}

/* Processors per node, how many of them admitted jobs hold while the
 * reservation is active, and how many jobs it does not admit still hold
 * (a reservation placed on busy nodes: not yet whole). */
static void diag_nodes(struct cmd_buf *b, const struct cmd_ctx *c, const struct resv *r)
{
    struct occupancy o = occupancy(c, r);
    cmd_buf_puts(b, "    Nodes:");
    for (size_t k = 0; k < r->nnodes; k++)
        cmd_buf_printf(b, " %s:%u", node_name(c, r, k), r->nodes[k].procs);
    cmd_buf_puts(b, r->nnodes ? "\n" : " [NONE]\n");
    if (r->start <= c->now && r->procs > 0)
        cmd_buf_printf(b, "    Active Procs: %lld/%lld (%.2f%%)\n", o.mine, r->procs,
                       100.0 * (double)o.mine / (double)r->procs);
    if (o.others > 0) {
        char t[CMD_TIME_MAX];
        cmd_fmt_duration(o.until - c->now, t);
        cmd_buf_printf(b,
                       "    Not yet free: %lld/%lld procs held by jobs it does not admit, for %s\n",
                       o.others, r->procs, t);
    }
}

static void diag_detail(struct cmd_buf *b, const struct cmd_ctx *c, const struct resv *r)
{
    const char *flags[RESV_MAXFLAGS];
    size_t nf = resv_flags(r, flags);
    if (nf) {
        cmd_buf_puts(b, "    Flags:");
        for (size_t i = 0; i < nf; i++)
            cmd_buf_printf(b, " %s", flags[i]);
        cmd_buf_puts(b, "\n");
    }
    char *acl = acl_text(r->acl);
    cmd_buf_printf(b, "    ACL:   %s\n", acl[0] ? acl : "[NONE]");
    free(acl);
    if (r->owner)
        cmd_buf_printf(b, "    Owner: %s:%s\n", acl_type_name(r->owner_type), r->owner);
    if (r->chargeaccount)
        cmd_buf_printf(b, "    Accounting Creds:  Account:%s\n", r->chargeaccount);
    if (r->priority != 0)
        cmd_buf_printf(b, "    Priority: %ld\n", r->priority);
    diag_tasks(b, r);
    diag_nodes(b, c, r);
}

/* The reservation diagnose -r names (the word that is not an option), or
 * NULL for all; diagnose.c has checked that it exists. */
static const char *diag_id(const struct cmd_args *a)
{
    for (int i = 0; i < a->argc; i++)
        if (a->argv[i][0] != '-')
            return a->argv[i];
    return NULL;
}

static json_t *diag_json_resv(const struct cmd_ctx *c, const struct resv *r)
{
    json_t *o = json_resv(c, r), *nodes = json_array();
    for (size_t k = 0; k < r->nnodes; k++)
        json_array_append_new(
            nodes, json_pack("{s:o, s:I, s:I, s:I}", "name", cmd_jstr(node_name(c, r, k)), "procs",
                             (json_int_t)r->nodes[k].procs, "tasks", (json_int_t)node_tasks(r, k),
                             "used", (json_int_t)r->nodes[k].used));
    json_object_set_new(o, "nodes", nodes);
    json_object_set_new(o, "standing", json_boolean(r->kind == RESV_STANDING));
    json_object_set_new(o, "partition", cmd_jstr(resv_partition(c, r)));
    json_object_set_new(o, "tasks", json_integer(r->tasks));
    json_object_set_new(o, "tasks_asked", json_integer(r->tasks_asked));
    struct occupancy occ = occupancy(c, r);
    json_object_set_new(o, "active_procs", json_integer(r->start <= c->now ? occ.mine : 0));
    json_object_set_new(o, "held_by_others", json_integer(occ.others));
    json_object_set_new(o, "owner",
                        r->owner ? json_pack("{s:s, s:o}", "type", acl_type_name(r->owner_type),
                                             "name", cmd_jstr(r->owner))
                                 : json_null());
    json_object_set_new(o, "priority", json_integer(r->priority));
    json_object_set_new(o, "chargeaccount", cmd_jstr(r->chargeaccount));
    json_object_set_new(o, "created", json_integer(cmd_epoch(c, r->created)));
    return o;
}

/* Standing reservations whose current window placed nothing, and why (text
 * onto out, or a JSON array returned). */
static json_t *diag_wanting(const struct cmd_ctx *c, struct cmd_buf *out, int json)
{
    json_t *list = json ? json_array() : NULL;
    for (size_t i = 0; i < sched_nstanding(c->s); i++) {
        long windows;
        const char *why = sched_standing_wanting(c->s, i, &windows);
        const struct srcfg_def *d = sched_standing_at(c->s, i);
        if (!why)
            continue;
        if (list)
            json_array_append_new(list,
                                  json_pack("{s:o, s:o, s:o}", "name", cmd_jstr(d->name), "reason",
                                            cmd_jstr(why), "where", cmd_jstr(d->where)));
        else
            cmd_buf_printf(out, "%-26s wanting: %s\n    Defined: %s\n\n", d->name, why, d->where);
    }
    return list;
}

void cmd_diag_resv(const struct cmd_ctx *c, const struct cmd_args *a, struct cmd_buf *out)
{
    const char *id = diag_id(a);
    json_t *list = a->json ? json_array() : NULL;
    if (!a->json) {
        cmd_buf_puts(out, "Diagnosing Reservations\n");
        cmd_buf_printf(out, "%-26s %4s %3s %11s %11s %12s %4s %4s %4s\n", "ResID", "Type", "Par",
                       "StartTime", "EndTime", "Duration", "Node", "Task", "Proc");
        cmd_buf_printf(out, "%-26s %4s %3s %11s %11s %12s %4s %4s %4s\n", "-----", "----", "---",
                       "---------", "-------", "--------", "----", "----", "----");
    }
    for (size_t i = 0; i < sched_nresv(c->s); i++) {
        const struct resv *r = sched_resv_at(c->s, i);
        if (!resv_live(c, r) || (id && strcmp(id, r->id) != 0))
            continue;
        if (list) {
            json_array_append_new(list, diag_json_resv(c, r));
            continue;
        }
        diag_row(out, c, r);
        diag_detail(out, c, r);
        cmd_buf_puts(out, "\n");
    }
    json_t *wanting = id ? NULL : diag_wanting(c, out, a->json);
    if (list)
        cmd_json_out(out, json_pack("{s:o, s:o}", "reservations", list, "wanting",
                                    wanting ? wanting : json_array()));
}

/* ---- checknode ---- */

/* Index of node idx in r->nodes, or -1. */
static long resv_node_at(const struct resv *r, size_t idx)
{
    for (size_t k = 0; k < r->nnodes; k++)
        if (r->nodes[k].node == idx)
            return (long)k;
    return -1;
}

void cmd_node_resv_text(const struct cmd_ctx *c, size_t idx, struct cmd_buf *out)
{
    for (size_t i = 0; i < sched_nresv(c->s); i++) {
        const struct resv *r = sched_resv_at(c->s, i);
        long k = resv_node_at(r, idx);
        if (k < 0 || !resv_live(c, r))
            continue;
        char s[CMD_TIME_MAX], e[CMD_TIME_MAX], d[CMD_TIME_MAX];
        cmd_fmt_duration(r->start - c->now, s);
        cmd_fmt_duration(r->end - c->now, e);
        cmd_fmt_duration(r->end - r->start, d);
        cmd_buf_printf(out, "  %s '%s'(x%u)  %s -> %s (%s)\n", RESV_TYPE, r->id, r->nodes[k].procs,
                       s, e, d);
    }
}

json_t *cmd_node_resv_json(const struct cmd_ctx *c, size_t idx)
{
    json_t *a = json_array();
    for (size_t i = 0; i < sched_nresv(c->s); i++) {
        const struct resv *r = sched_resv_at(c->s, i);
        long k = resv_node_at(r, idx);
        if (k < 0 || !resv_live(c, r))
            continue;
        json_array_append_new(
            a, json_pack("{s:o, s:s, s:I, s:I, s:I, s:I}", "id", cmd_jstr(r->id), "type", RESV_TYPE,
                         "procs", (json_int_t)r->nodes[k].procs, "used",
                         (json_int_t)r->nodes[k].used, "start", (json_int_t)cmd_epoch(c, r->start),
                         "end", (json_int_t)cmd_epoch(c, r->end)));
    }
    return a;
}
