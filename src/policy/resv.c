/*
 * resv — reservations in the engine: making them (choosing their nodes),
 * naming them, releasing them, who may use them, and keeping the instances
 * of standing reservations (SRCFG) DEPTH periods ahead.
 *
 * Where a reservation goes (digest §6.2, §6.4):
 *  - a host list without a task count reserves every listed node, whatever
 *    runs there and whatever else reserves it (Maui places these with
 *    FORCE);
 *  - a task count "floats": the tasks go on nodes with the required features
 *    and partition, the host list's nodes first, idle nodes before busy
 *    ones, nodes with the least memory first (Maui places standing
 *    reservations with MINRESOURCE), skipping nodes where a conflicting
 *    reservation overlaps the window — one that is DEDICATED, or any when
 *    the new one is DEDICATED. Running jobs do not stop a reservation: they
 *    end by their walltime and the reservation's window begins.
 * A standing reservation that found fewer tasks than asked is partial; it is
 * topped up at a later iteration when reservations or nodes have changed
 * (nothing else can change where it fits).
 *
 * Flags (Admin Guide 7.1.5.1.4, digest §6.2):
 *  - SINGLEUSE: released when the first job that used it (ran on its
 *    processors while it was active) ends; a standing instance is not made
 *    again for that window (Maui 3.3.1 releases it when a job that named it
 *    ends; the Guide says "the first job to use the reserved resources");
 *  - PREEMPTEE: a floating standing instance of higher PRIORITY that is
 *    short of tasks takes its place — it is released, lowest PRIORITY first,
 *    and the instance placed again (Maui's MResPreempt in MSRRefresh); a
 *    standing one is made again with what is left;
 *  - SPACEFLEX: "allowed to move from host to host over time": a host list
 *    without a task count takes only its nodes that are up, and an instance
 *    that has not begun moves off nodes that went down (placed again, kept
 *    when it holds at least as many processors on nodes that are up).
 *
 * Ids are <base>.<n>, n counting from 0 per base and never reused while the
 * scheduler lives (Maui 3.3.1 also starts at 0, but reuses numbers).
 */
#include <limits.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sched_int.h"
#include "policy/resv.h"
#include "policy/srcfg.h"
#include "util/mem.h"

void resv_free(struct resv *r)
{
    if (!r)
        return;
    free(r->id);
    free(r->base);
    acl_destroy(r->acl);
    free(r->owner);
    free(r->chargeaccount);
    free(r->nodes);
    free(r);
}

/* ---------------------------------------------------------------- access */

static int names_resv(const struct resv *r, const char *name)
{
    return strcmp(r->id, name) == 0 || strcmp(r->base, name) == 0;
}

static long overlap(long a, long b, long c, long d)
{
    long lo = a > c ? a : c, hi = b < d ? b : d;
    return hi > lo ? hi - lo : 0;
}

/* Job j as an ACL sees it, overlapping a reservation by `duration`
 * seconds. Maui's job attributes: PREEMPTEE when the job may be preempted
 * (its QOS says so, the trace flagged it, or it was backfilled under
 * BACKFILLPOLICY PREEMPT). */
static struct acl_job acl_job_of(const struct job *j, long duration)
{
    static const char *const preemptee[] = {"PREEMPTEE"};
    int is_preemptee =
        (j->flags & (JOB_PREEMPTEE | JOB_ATTR_PREEMPTEE)) || (j->qos->qflags & QOS_PREEMPTEE);
    return (struct acl_job){
        .flags = preemptee,
        .nflags = is_preemptee ? 1 : 0,
        .user = j->user->name,
        .group = j->group->name,
        .account = j->account->name,
        .class_ = j->class_->name,
        .qos = j->qos->name,
        .attrs = (const char *const *)j->features,
        .nattrs = j->nfeatures,
        .duration = duration,
    };
}

enum acl_affinity resv_access(const struct sched *s, const struct resv *r, const struct job *j,
                              long t)
{
    (void)s;
    /* ADVRES asks for a reservation; its ACL still decides (a job may not
     * name its way into another's or a SYSTEM reservation). A job that
     * asks for one by name uses no other, and a BYNAME reservation serves
     * only jobs that name it. */
    int named = j->advres && names_resv(r, j->advres);
    if (j->advres && !named)
        return ACL_NONE;
    if ((r->flags & SRCFG_BYNAME) && !named)
        return ACL_NONE;
    struct acl_job who = acl_job_of(j, overlap(t, t + j->walltime, r->start, r->end));
    enum acl_affinity a = acl_check(r->acl, &who);
    return named && a != ACL_NONE ? ACL_POSITIVE : a;
}

const char *sched_job_advres_refused(const struct sched *s, const struct job *j, char *buf,
                                     size_t n)
{
    if (!j->advres)
        return NULL;
    /* The most any start could give: a second of overlap (duration entries
     * are upper bounds). */
    struct acl_job who = acl_job_of(j, 1);
    const struct acl *acl = NULL;
    for (size_t i = 0; i < s->rs.nresvs; i++)
        if (names_resv(s->rs.resvs[i], j->advres)) {
            if (acl_check(s->rs.resvs[i]->acl, &who) != ACL_NONE)
                return NULL;
            acl = s->rs.resvs[i]->acl;
        }
    for (size_t i = 0; i < s->rs.nsrdefs; i++)
        if (strcmp(s->rs.srdefs[i].name, j->advres) == 0) {
            if (acl_check(s->rs.srdefs[i].acl, &who) != ACL_NONE)
                return NULL;
            acl = s->rs.srdefs[i].acl;
        }
    if (!acl) {
        snprintf(buf, n, "it asks for reservation '%s', which does not exist", j->advres);
        return buf;
    }
    char text[256];
    if (acl_count(acl) == 0)
        snprintf(text, sizeof text, "none: it admits no job");
    else
        acl_format(acl, text, sizeof text);
    snprintf(buf, n, "it asks for reservation '%s', whose ACL does not admit it (%s)", j->advres,
             text);
    return buf;
}

int sched_resv_name_known(const struct sched *s, const char *name)
{
    for (size_t i = 0; i < s->rs.nresvs; i++)
        if (names_resv(s->rs.resvs[i], name))
            return 1;
    for (size_t i = 0; i < s->rs.nsrdefs; i++)
        if (strcmp(s->rs.srdefs[i].name, name) == 0)
            return 1; /* a standing reservation between its instances */
    return 0;
}

enum acl_affinity sched_resv_access(const struct sched *s, const struct resv *r,
                                    const struct job *j, long start)
{
    return resv_access(s, r, j, start);
}

/* ------------------------------------------------------------ placement */

/* Whether existing reservation e keeps new one n (with `access`) off a
 * node over [start, end). Instances of one standing reservation never
 * overlap, and FORCE overrides. */
static int conflicts(const struct resv *e, enum srcfg_access access, unsigned flags, long start,
                     long end)
{
    if (flags & SRCFG_FORCE)
        return 0;
    if (!overlap(start, end, e->start, e->end))
        return 0;
    return e->access == SRCFG_DEDICATED || access == SRCFG_DEDICATED;
}

/* Processors of node n other reservations leave to a new one. */
static long node_room(const struct sched *s, size_t n, const struct resv_spec *sp)
{
    long room = s->nt.nodes[n].procs;
    for (size_t i = 0; i < s->rs.nresvs; i++) {
        const struct resv *e = s->rs.resvs[i];
        if (!conflicts(e, sp->access, sp->flags, sp->start, sp->end))
            continue;
        for (size_t k = 0; k < e->nnodes; k++)
            if (e->nodes[k].node == n)
                room -= e->nodes[k].procs;
    }
    return room;
}

static int host_matches(const struct srcfg_host *h, const regex_t *re, const char *name)
{
    if (!h->regex)
        return strcmp(h->text, name) == 0;
    regmatch_t m;
    return regexec(re, name, 1, &m, 0) == 0 && m.rm_so == 0 && name[m.rm_eo] == '\0';
}

struct place {
    struct sched *s;
    const struct resv_spec *sp;
    regex_t *re;  /* compiled host regexes (NULL entries for names) */
    char *listed; /* per node: matches the host list */
    struct resv_node *got;
    size_t ngot, cap;
    long tasks; /* tasks placed */
};

static int compile_hosts(struct place *p, struct err *err)
{
    const struct resv_spec *sp = p->sp;
    p->re = xcalloc(sp->nhosts + 1, sizeof *p->re);
    for (size_t h = 0; h < sp->nhosts; h++)
        if (sp->hosts[h].regex && regcomp(&p->re[h], sp->hosts[h].text, REG_EXTENDED) != 0) {
            for (size_t k = 0; k < h; k++)
                if (sp->hosts[k].regex)
                    regfree(&p->re[k]);
            free(p->re);
            p->re = NULL;
            return err_set(err, "host expression '%s' is not a valid regular expression",
                           sp->hosts[h].text);
        }
    return 0;
}

static void free_hosts(struct place *p)
{
    for (size_t h = 0; p->re && h < p->sp->nhosts; h++)
        if (p->sp->hosts[h].regex)
            regfree(&p->re[h]);
    free(p->re);
    free(p->listed);
}

/* Mark the nodes the host list names; -1 if an item matches none. */
static int mark_listed(struct place *p, struct err *err)
{
    const struct resv_spec *sp = p->sp;
    struct sched *s = p->s;
    p->listed = xcalloc(s->nt.nnodes + 1, 1);
    for (size_t h = 0; h < sp->nhosts; h++) {
        int any = 0;
        if (!sp->hosts[h].regex) {
            long i = sched_find_node(s, sp->hosts[h].text);
            if (i >= 0)
                p->listed[i] = any = 1;
        } else {
            for (size_t i = 0; i < s->nt.nnodes; i++)
                if (host_matches(&sp->hosts[h], &p->re[h], s->nt.nodes[i].name))
                    p->listed[i] = any = 1;
        }
        if (!any)
            return err_set(err, "no node matches '%s'", sp->hosts[h].text);
    }
    return 0;
}

static int node_suits(const struct sched *s, size_t i, const struct resv_spec *sp)
{
    const struct node *n = &s->nt.nodes[i];
    for (size_t f = 0; f < sp->nfeatures; f++)
        if (!node_has_feature(n, sp->features[f]))
            return 0;
    if (sp->partition && strcmp(sp->partition, "ALL") && strcmp(sp->partition, n->partition))
        return 0;
    if (sp->res.mem > 0 && n->mem > 0 && n->mem < sp->res.mem)
        return 0;
    return 1;
}

/* How many tasks of `per` a node's `have` holds (no limit when the task
 * asks none or the node's amount is unknown). */
static long fit_by(long have, long per, long fit)
{
    if (per <= 0 || have <= 0)
        return fit;
    return have / per < fit ? have / per : fit;
}

/* Tasks that fit in `room` processors of node i, at most `left`: every
 * resource of a task counts (Maui's task is processors, memory, disk and
 * swap together). */
static long tasks_on(const struct sched *s, size_t i, const struct resv_spec *sp, long room,
                     long left)
{
    const struct node *n = &s->nt.nodes[i];
    long fit =
        sp->res.procs < 0 ? (room >= n->procs ? 1 : 0) : (sp->res.procs ? room / sp->res.procs : 1);
    fit = fit_by(n->mem, sp->res.mem, fit);
    fit = fit_by(n->disk, sp->res.disk, fit);
    fit = fit_by(n->swap, sp->res.swap, fit);
    if (sp->tpn > 0) {
        if (fit < sp->tpn && fit < left)
            return 0;
        fit = sp->tpn;
    }
    return fit < left ? fit : left;
}

static void take_node(struct place *p, size_t i, long tasks)
{
    const struct resv_spec *sp = p->sp;
    long procs = sp->res.procs < 0 ? p->s->nt.nodes[i].procs * tasks : sp->res.procs * tasks;
    if (procs > p->s->nt.nodes[i].procs)
        procs = p->s->nt.nodes[i].procs;
    p->got = xgrow(p->got, &p->cap, p->ngot + 1, sizeof *p->got);
    p->got[p->ngot++] = (struct resv_node){(unsigned)i, (unsigned)procs, 0};
    p->tasks += tasks;
}

/* Non-floating: every listed node, as many tasks as it holds, but none
 * that a DEDICATED reservation (this one or another) fills over the
 * window; with SPACEFLEX only the nodes that are up. */
static void place_listed(struct place *p)
{
    int flex = (p->sp->flags & SRCFG_SPACEFLEX) != 0;
    for (size_t i = 0; i < p->s->nt.nnodes; i++)
        if (p->listed[i] && (!flex || p->s->nt.nodes[i].state == NODE_UP)) {
            long room = node_room(p->s, i, p->sp);
            long t = tasks_on(p->s, i, p->sp, room, 1L << 30);
            if (t > 0 || room >= p->s->nt.nodes[i].procs)
                take_node(p, i, t > 0 ? t : 1);
        }
}

/* Candidate order for floating tasks: listed first, then nodes no other
 * reservation holds over the window (the Guide: a reservation does not
 * stack unless it has to), then idle, least memory, table order. */
static const struct sched *order_s;
static const char *order_listed;
static const char *order_stacked;
static int cand_cmp(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    const struct sched *s = order_s;
    int lx = order_listed ? order_listed[x] : 0, ly = order_listed ? order_listed[y] : 0;
    if (lx != ly)
        return ly - lx;
    if (order_stacked[x] != order_stacked[y])
        return order_stacked[x] - order_stacked[y];
    int bx = s->nt.node_used[x] > 0, by = s->nt.node_used[y] > 0;
    if (bx != by)
        return bx - by;
    if (s->nt.nodes[x].mem != s->nt.nodes[y].mem)
        return s->nt.nodes[x].mem < s->nt.nodes[y].mem ? -1 : 1;
    return x < y ? -1 : 1;
}

/* Per node: 1 when a reservation overlapping sp's window holds it. */
static char *stacked_nodes(const struct sched *s, const struct resv_spec *sp)
{
    char *st = xcalloc(s->nt.nnodes + 1, 1);
    for (size_t i = 0; i < s->rs.nresvs; i++) {
        const struct resv *e = s->rs.resvs[i];
        if (overlap(sp->start, sp->end, e->start, e->end))
            for (size_t k = 0; k < e->nnodes; k++)
                st[e->nodes[k].node] = 1;
    }
    return st;
}

static void place_floating(struct place *p)
{
    struct sched *s = p->s;
    const struct resv_spec *sp = p->sp;
    size_t *cand = xcalloc(s->nt.nnodes + 1, sizeof *cand), n = 0;
    for (size_t i = 0; i < s->nt.nnodes; i++)
        if (s->nt.nodes[i].state == NODE_UP && node_suits(s, i, sp))
            cand[n++] = i;
    char *stacked = stacked_nodes(s, sp);
    order_s = s;
    order_listed = p->listed;
    order_stacked = stacked;
    qsort(cand, n, sizeof *cand, cand_cmp);
    free(stacked);
    for (size_t c = 0; c < n && p->tasks < sp->tasks; c++) {
        long t = tasks_on(s, cand[c], sp, node_room(s, cand[c], sp), sp->tasks - p->tasks);
        if (t > 0)
            take_node(p, cand[c], t);
    }
    free(cand);
}

static int node_cmp(const void *a, const void *b)
{
    const struct resv_node *x = a, *y = b;
    return x->node < y->node ? -1 : x->node > y->node;
}

/* Choose the nodes of sp. Partial placement is an error unless allowed. */
static int place(struct sched *s, const struct resv_spec *sp, int partial_ok, struct place *p,
                 struct err *err)
{
    *p = (struct place){.s = s, .sp = sp};
    if (compile_hosts(p, err) < 0)
        return -1;
    if (mark_listed(p, err) < 0) {
        free_hosts(p);
        return -1;
    }
    if (sp->tasks > 0)
        place_floating(p);
    else
        place_listed(p);
    free_hosts(p);
    if (!p->ngot && sp->tasks == 0)
        return err_set(err, (sp->flags & SRCFG_SPACEFLEX)
                                ? "every listed node is down or held by DEDICATED reservations"
                                : "DEDICATED reservations hold every listed node");
    if (!p->ngot || (sp->tasks > 0 && p->tasks < sp->tasks && !partial_ok)) {
        free(p->got);
        return err_set(err, "cannot select requested tasks (%ld of %ld found)", p->tasks,
                       sp->tasks);
    }
    qsort(p->got, p->ngot, sizeof *p->got, node_cmp);
    return 0;
}

/* ----------------------------------------------------------------- ids */

static long next_number(struct sched *s, const char *base)
{
    for (size_t i = 0; i < s->rs.nseqs; i++)
        if (strcmp(s->rs.seqs[i].base, base) == 0)
            return s->rs.seqs[i].next++;
    s->rs.seqs = xgrow(s->rs.seqs, &s->rs.capseqs, s->rs.nseqs + 1, sizeof *s->rs.seqs);
    s->rs.seqs[s->rs.nseqs++] = (struct resv_seq){xstrdup(base), 1};
    return 0;
}

/* A restored id <base>.<n>: later numbers for base start above n. */
static void note_number(struct sched *s, const char *base, long n)
{
    for (size_t i = 0; i < s->rs.nseqs; i++)
        if (strcmp(s->rs.seqs[i].base, base) == 0) {
            if (s->rs.seqs[i].next <= n)
                s->rs.seqs[i].next = n + 1;
            return;
        }
    s->rs.seqs = xgrow(s->rs.seqs, &s->rs.capseqs, s->rs.nseqs + 1, sizeof *s->rs.seqs);
    s->rs.seqs[s->rs.nseqs++] = (struct resv_seq){xstrdup(base), n + 1};
}

long sched_resv_next_number(const struct sched *s, const char *base)
{
    for (size_t i = 0; i < s->rs.nseqs; i++)
        if (strcmp(s->rs.seqs[i].base, base) == 0)
            return s->rs.seqs[i].next;
    return 0;
}

void sched_resv_number_from(struct sched *s, const char *base, long next)
{
    if (next > 0)
        note_number(s, base, next - 1);
}

static const char *base_of(const struct resv_spec *sp)
{
    if (sp->name && *sp->name)
        return sp->name;
    if (sp->acl && acl_count(sp->acl) && acl_entry(sp->acl, 0)->name)
        return acl_entry(sp->acl, 0)->name;
    return "SYSTEM";
}

/* ------------------------------------------------------------ lifecycle */

static struct resv *new_resv(const struct resv_spec *sp, const char *base, long now)
{
    struct resv *r = xcalloc(1, sizeof *r);
    *r = (struct resv){
        .base = xstrdup(base),
        .kind = RESV_USER,
        .start = sp->start,
        .end = sp->end,
        .created = now,
        .flags = sp->flags,
        .access = sp->access,
        .acl = acl_dup(sp->acl),
        .owner = sp->owner ? xstrdup(sp->owner) : NULL,
        .owner_type = sp->owner_type,
        .priority = sp->priority,
        .chargeaccount = sp->chargeaccount ? xstrdup(sp->chargeaccount) : NULL,
        .tasks_asked = sp->tasks,
        .sr = -1,
    };
    return r;
}

static void set_nodes(struct resv *r, struct resv_node *nodes, size_t n, long tasks)
{
    free(r->nodes);
    r->nodes = nodes;
    r->nnodes = n;
    r->tasks = tasks;
    r->procs = 0;
    for (size_t k = 0; k < n; k++)
        r->procs += r->nodes[k].procs;
}

static void add_resv(struct sched *s, struct resv *r)
{
    r->serial = ++s->rs.resv_serial;
    s->rs.resvs = xgrow(s->rs.resvs, &s->rs.capresvs, s->rs.nresvs + 1, sizeof *s->rs.resvs);
    s->rs.resvs[s->rs.nresvs++] = r;
    s->rs.resv_gen++;
    s->pl.replan = 1;
}

static int check_window(const struct resv_spec *sp, long now, struct err *err)
{
    if (sp->end <= sp->start || sp->end <= now)
        return err_set(err, "invalid timeframe (end must follow start and now)");
    if (sp->tasks < 0 || (sp->tasks == 0 && sp->nhosts == 0))
        return err_set(err, "no tasks and no hosts requested");
    return 0;
}

static struct resv *create(struct sched *s, const struct resv_spec *sp, long now, int partial_ok,
                           struct err *err)
{
    if (check_window(sp, now, err) < 0)
        return NULL;
    struct place p;
    if (place(s, sp, partial_ok || (sp->flags & SRCFG_BESTEFFORT), &p, err) < 0)
        return NULL;
    const char *base = base_of(sp);
    struct resv *r = new_resv(sp, base, now);
    r->id = xprintf("%s.%ld", base, next_number(s, base));
    set_nodes(r, p.got, p.ngot, p.tasks);
    if (sp->tasks == 0)
        r->tasks_asked = p.tasks;
    add_resv(s, r);
    return r;
}

struct resv *sched_resv_create(struct sched *s, const struct resv_spec *spec, long now,
                               struct err *err)
{
    return create(s, spec, now, 0, err);
}

struct resv *sched_resv_restore(struct sched *s, const struct resv_spec *spec, const char *id,
                                const struct resv_node *nodes, size_t nnodes, long created,
                                struct err *err)
{
    const char *dot = id ? strrchr(id, '.') : NULL;
    char *end;
    long n = dot ? strtol(dot + 1, &end, 10) : -1;
    if (!dot || dot == id || n < 0 || *end)
        return err_set(err, "reservation id '%s' is not <name>.<number>", id ? id : ""), NULL;
    if (sched_find_resv(s, id))
        return err_set(err, "reservation '%s' exists already", id), NULL;
    for (size_t k = 0; k < nnodes; k++)
        if (nodes[k].node >= s->nt.nnodes)
            return err_set(err, "reservation '%s': node %u is not in the node table", id,
                           nodes[k].node),
                   NULL;
    char *base = xstrndup(id, (size_t)(dot - id));
    struct resv *r = new_resv(spec, base, created);
    r->id = xstrdup(id);
    note_number(s, base, n);
    free(base);
    struct resv_node *copy = xcalloc(nnodes + 1, sizeof *copy);
    long tasks = 0;
    for (size_t k = 0; k < nnodes; k++) {
        copy[k] = (struct resv_node){nodes[k].node, nodes[k].procs, 0};
        tasks++;
    }
    set_nodes(r, copy, nnodes, spec->tasks > 0 ? spec->tasks : tasks);
    add_resv(s, r);
    return r;
}

struct resv *sched_resv_external(struct sched *s, const struct resv_spec *spec, const char *id,
                                 const struct resv_node *nodes, size_t nnodes, long now,
                                 struct err *err)
{
    struct resv *r = sched_resv_restore(s, spec, id, nodes, nnodes, now, err);
    if (r)
        r->kind = RESV_EXTERNAL;
    return r;
}

/* Drop running jobs' charges against r (it is going away). */
static void uncharge_all(struct sched *s, const struct resv *r)
{
    for (size_t h = 0; h < s->pl.running.n; h++) {
        struct job *j = heap_at(&s->pl.running, h);
        size_t w = 0;
        for (size_t c = 0; c < j->ncharges; c++)
            if (j->charges[c].r != r)
                j->charges[w++] = j->charges[c];
        j->ncharges = w;
    }
}

/* Take reservation i out of the list. It is freed only when the regions,
 * which still name it, are rebuilt (plan_rebuild, at the next iteration):
 * a release between iterations leaves nothing dangling. */
static void remove_at(struct sched *s, size_t i)
{
    struct resv *r = s->rs.resvs[i];
    uncharge_all(s, r);
    memmove(&s->rs.resvs[i], &s->rs.resvs[i + 1], (s->rs.nresvs - i - 1) * sizeof *s->rs.resvs);
    s->rs.nresvs--;
    s->rs.dead = xgrow(s->rs.dead, &s->rs.capdead, s->rs.ndead + 1, sizeof *s->rs.dead);
    s->rs.dead[s->rs.ndead++] = r;
    s->rs.resv_gen++;
    s->pl.replan = 1;
}

void resv_bury(struct sched *s)
{
    for (size_t i = 0; i < s->rs.ndead; i++)
        resv_free(s->rs.dead[i]);
    s->rs.ndead = 0;
}

int sched_resv_drop_external(struct sched *s, const char *id)
{
    for (size_t i = 0; i < s->rs.nresvs; i++)
        if (s->rs.resvs[i]->kind == RESV_EXTERNAL && strcmp(s->rs.resvs[i]->id, id) == 0) {
            remove_at(s, i);
            return 0;
        }
    return -1;
}

int sched_resv_release(struct sched *s, const char *id, struct err *err)
{
    for (size_t i = 0; i < s->rs.nresvs; i++)
        if (strcmp(s->rs.resvs[i]->id, id) == 0) {
            if (s->rs.resvs[i]->kind == RESV_STANDING)
                return err_set(err,
                               "reservation '%s' is an instance of standing reservation "
                               "'%s' (change SRCFG[%s] instead)",
                               id, s->rs.resvs[i]->base, s->rs.resvs[i]->base);
            if (s->rs.resvs[i]->kind == RESV_EXTERNAL)
                return err_set(err,
                               "reservation '%s' is the resource manager's (change it "
                               "there)",
                               id);
            remove_at(s, i);
            return 0;
        }
    return err_set(err, "cannot locate reservation '%s'", id);
}

/* Whether another reservation than r, over [start, end), keeps r (with
 * access and flags) off one of r's nodes; names it and the node. */
static int modify_conflict(const struct sched *s, const struct resv *r, enum srcfg_access access,
                           unsigned flags, long start, long end, struct err *err)
{
    for (size_t i = 0; i < s->rs.nresvs; i++) {
        const struct resv *e = s->rs.resvs[i];
        if (e == r || !conflicts(e, access, flags, start, end))
            continue;
        for (size_t k = 0; k < r->nnodes; k++)
            for (size_t m = 0; m < e->nnodes; m++)
                if (e->nodes[m].node == r->nodes[k].node)
                    return err_set(err, "reservation '%s' holds %s over that window", e->id,
                                   s->nt.nodes[e->nodes[m].node].name);
    }
    return 0;
}

int sched_resv_modify(struct sched *s, const char *id, const struct resv_change *ch,
                      struct err *err)
{
    size_t i = 0;
    while (i < s->rs.nresvs && strcmp(s->rs.resvs[i]->id, id) != 0)
        i++;
    if (i == s->rs.nresvs)
        return err_set(err, "cannot locate reservation '%s'", id);
    struct resv *r = s->rs.resvs[i];
    if (r->kind == RESV_EXTERNAL)
        return err_set(err, "reservation '%s' is the resource manager's (change it there)", id);
    if (r->kind != RESV_USER)
        return err_set(err,
                       "reservation '%s' is an instance of standing reservation '%s' "
                       "(change SRCFG[%s] instead)",
                       id, r->base, r->base);
    unsigned flags = ch->set_flags ? ch->flags : r->flags;
    if (ch->end <= ch->start)
        return err_set(err, "cannot modify reservation (invalid timeframe)");
    if (modify_conflict(s, r, r->access, flags, ch->start, ch->end, err) < 0)
        return -1;
    /* A new object under the old id, on the same nodes: what plans and
     * charges were made against the old one is made again (resv_gen). */
    struct resv_spec sp = {
        .start = ch->start,
        .end = ch->end,
        .tasks = r->tasks_asked,
        .flags = flags,
        .access = r->access,
        .owner = r->owner,
        .owner_type = r->owner_type,
        .priority = r->priority,
        .chargeaccount = r->chargeaccount,
        .acl = ch->acl ? ch->acl : r->acl,
    };
    struct resv *nr = new_resv(&sp, r->base, r->created);
    nr->id = xstrdup(r->id);
    struct resv_node *copy = xcalloc(r->nnodes + 1, sizeof *copy);
    for (size_t k = 0; k < r->nnodes; k++)
        copy[k] = (struct resv_node){r->nodes[k].node, r->nodes[k].procs, 0};
    set_nodes(nr, copy, r->nnodes, r->tasks);
    remove_at(s, i); /* r goes to the dead list: sp's strings stay valid */
    add_resv(s, nr);
    return 0;
}

size_t sched_nresv(const struct sched *s)
{
    return s->rs.nresvs;
}

const struct resv *sched_resv_at(const struct sched *s, size_t i)
{
    return i < s->rs.nresvs ? s->rs.resvs[i] : NULL;
}

const struct resv *sched_find_resv(const struct sched *s, const char *id)
{
    for (size_t i = 0; i < s->rs.nresvs; i++)
        if (strcmp(s->rs.resvs[i]->id, id) == 0)
            return s->rs.resvs[i];
    return NULL;
}

void resv_expire(struct sched *s, long now)
{
    for (size_t i = s->rs.nresvs; i-- > 0;)
        if (s->rs.resvs[i]->end <= now)
            remove_at(s, i);
}

/* -------------------------------------------------------------- standing */

void sched_set_zone(struct sched *s, int local, long offset)
{
    s->rs.zone_local = local;
    s->rs.zone_offset = offset;
    s->rs.resv_gen++;
}

void sched_get_zone(const struct sched *s, int *local, long *offset)
{
    *local = s->rs.zone_local;
    *offset = s->rs.zone_offset;
}

long sched_epoch(const struct sched *s)
{
    return s->rs.epoch;
}

int sched_standing_from_cfg(struct sched *s, const struct cfg *cfg, struct err *err)
{
    struct srcfg_def *defs;
    size_t n;
    if (srcfg_load(cfg, &defs, &n, err) < 0)
        return -1;
    srcfg_free(s->rs.srdefs, s->rs.nsrdefs);
    s->rs.srdefs = defs;
    s->rs.nsrdefs = n;
    free(s->rs.srwant);
    s->rs.srwant = xcalloc(n ? n : 1, sizeof *s->rs.srwant);
    for (size_t i = 0; i < n; i++)
        s->rs.srwant[i] = (struct sr_want){.last = LONG_MIN, .never = -1};
    /* Instances of the old definitions go; the next iteration makes the
     * new ones. */
    for (size_t i = s->rs.nresvs; i-- > 0;)
        if (s->rs.resvs[i]->kind == RESV_STANDING)
            remove_at(s, i);
    s->rs.nsr_cancelled = 0;  /* new definitions: every window is theirs again */
    s->rs.sr_next = LONG_MIN; /* look at the calendar at the next iteration */
    s->rs.resv_gen++;
    s->pl.replan = 1;
    return 0;
}

static void spec_of_def(const struct srcfg_def *d, struct resv_spec *sp);
static long preemptee_for(const struct sched *s, const struct resv *r, const struct resv_spec *sp);
static void take_room(struct sched *s, struct resv *r, size_t di, long now);

/* Whether some node, in any state, can hold a task of sp. */
static int some_node_holds(const struct sched *s, const struct resv_spec *sp)
{
    for (size_t i = 0; i < s->nt.nnodes; i++)
        if (node_suits(s, i, sp) && tasks_on(s, i, sp, s->nt.nodes[i].procs, 1) > 0)
            return 1;
    return 0;
}

/* Why definition d can place nothing whatever happens, into buf ("" when
 * it can). */
static void never_placed(const struct sched *s, const struct srcfg_def *d, char *buf, size_t size)
{
    struct resv_spec sp;
    struct place p = {.s = (struct sched *)s};
    struct err e;
    buf[0] = '\0';
    spec_of_def(d, &sp);
    p.sp = &sp;
    if (d->time.period != SRTIME_INFINITY && d->time.start == d->time.end) {
        snprintf(buf, size, "STARTTIME equals ENDTIME: every window is empty");
    } else if (compile_hosts(&p, &e) < 0) {
        snprintf(buf, size, "HOSTLIST: %.150s", e.msg);
    } else {
        if (mark_listed(&p, &e) < 0)
            snprintf(buf, size, "HOSTLIST: %.150s", e.msg);
        else if (d->floating && !some_node_holds(s, &sp))
            snprintf(buf, size, "no node has %s",
                     d->nfeatures || d->partition ? "the features and partition asked"
                                                  : "room for one task");
        free_hosts(&p);
    }
}

char *sched_standing_warnings(const struct sched *s)
{
    char *out = NULL, why[200];
    for (size_t i = 0; i < s->rs.nsrdefs; i++) {
        if (s->rs.srdefs[i].warnings) {
            char *more = xprintf("%s%s", out ? out : "", s->rs.srdefs[i].warnings);
            free(out);
            out = more;
        }
        never_placed(s, &s->rs.srdefs[i], why, sizeof why);
        if (!why[0])
            continue;
        char *more =
            xprintf("%s%s: %s: it reserves nothing\n", out ? out : "", s->rs.srdefs[i].where, why);
        free(out);
        out = more;
    }
    return out;
}

size_t sched_nstanding(const struct sched *s)
{
    return s->rs.nsrdefs;
}

const struct srcfg_def *sched_standing_at(const struct sched *s, size_t i)
{
    return &s->rs.srdefs[i];
}

const char *sched_standing_wanting(const struct sched *s, size_t i, long *windows)
{
    const struct srtime_spec *t = &s->rs.srdefs[i].time;
    if (windows)
        *windows = s->rs.srwant[i].windows;
    if (t->period != SRTIME_INFINITY && t->start == t->end) /* srtime makes no window */
        return "STARTTIME equals ENDTIME: every window is empty";
    return s->rs.srwant[i].why[0] ? s->rs.srwant[i].why : NULL;
}

static void spec_of_def(const struct srcfg_def *d, struct resv_spec *sp)
{
    *sp = (struct resv_spec){
        .name = d->name,
        .tasks = d->floating ? d->taskcount : 0,
        .tpn = d->tpn,
        .res = d->res,
        .hosts = d->hosts,
        .nhosts = d->nhosts,
        .features = d->features,
        .nfeatures = d->nfeatures,
        .partition = d->partition,
        .flags = d->flags,
        .access = d->access,
        .owner = d->owner,
        .owner_type = d->owner_type,
        .priority = d->priority,
        .chargeaccount = d->chargeaccount,
        .acl = d->acl,
    };
}

/* The instance of definition di whose window starts at wstart, if any. An
 * INFINITY reservation has one window, which srtime reports from "now" on:
 * any instance of it is that one. */
static struct resv *instance(struct sched *s, size_t di, long wstart)
{
    int forever = s->rs.srdefs[di].time.period == SRTIME_INFINITY;
    for (size_t i = 0; i < s->rs.nresvs; i++)
        if (s->rs.resvs[i]->kind == RESV_STANDING && s->rs.resvs[i]->sr == (long)di &&
            (forever || s->rs.resvs[i]->sr_window == wstart))
            return s->rs.resvs[i];
    return NULL;
}

static void make_instance(struct sched *s, size_t di, const struct srtime_window *w, long now)
{
    struct resv_spec sp;
    struct err err;
    spec_of_def(&s->rs.srdefs[di], &sp);
    sp.start = w->start - s->rs.epoch;
    sp.end = w->end - s->rs.epoch;
    /* PERIOD=INFINITY never ends: not at Maui's MAX_MTIME (2037 on the
     * epoch clock), which would plan jobs no node can ever hold to start
     * then, and wake a replay at every standing edge until then. */
    if (s->rs.srdefs[di].time.period == SRTIME_INFINITY)
        sp.end = SCHED_NEVER;
    if (sp.start < now)
        sp.start = now; /* Maui starts the current instance now */
    if (sp.end <= sp.start)
        return;
    struct resv *r = create(s, &sp, now, 1, &err);
    long i;
    /* No room at all: PREEMPTEE reservations in the way give theirs. */
    while (!r && sp.tasks > 0 && (i = preemptee_for(s, NULL, &sp)) >= 0) {
        remove_at(s, (size_t)i);
        s->rs.sr_preempted = 1;
        r = create(s, &sp, now, 1, &err);
    }
    struct sr_want *want = &s->rs.srwant[di];
    if (!r) { /* no node suits it now: tried again when nodes or reservations change */
        snprintf(want->why, sizeof want->why, "%.159s", err.msg);
        if (want->never < 0) {
            char why[200];
            never_placed(s, &s->rs.srdefs[di], why, sizeof why);
            want->never = why[0] != '\0';
        }
        if (w->start > want->last && !want->never) /* windows come in time order */
            want->windows++;
        if (w->start > want->last)
            want->last = w->start;
        return;
    }
    want->why[0] = '\0';
    r->kind = RESV_STANDING;
    r->sr = (long)di;
    r->sr_window = w->start - s->rs.epoch;
    r->topup_gen = s->rs.resv_gen;
    trig_created(s, r, now);
    if (r->tasks < r->tasks_asked)
        take_room(s, r, di, now);
}

static int cancelled(const struct sched *s, size_t di, long window)
{
    for (size_t i = 0; i < s->rs.nsr_cancelled; i++)
        if (s->rs.sr_cancelled[i].def == di && s->rs.sr_cancelled[i].window == window)
            return 1;
    return 0;
}

void resv_cancel_instance(struct sched *s, const char *id)
{
    for (size_t i = 0; i < s->rs.nresvs; i++)
        if (strcmp(s->rs.resvs[i]->id, id) == 0) {
            struct resv *r = s->rs.resvs[i];
            if (r->kind == RESV_STANDING) {
                /* INFINITY has one window, whatever srtime calls its start. */
                long window = s->rs.srdefs[r->sr].time.period == SRTIME_INFINITY ? 0 : r->sr_window;
                s->rs.sr_cancelled = xgrow(s->rs.sr_cancelled, &s->rs.capsr_cancelled,
                                           s->rs.nsr_cancelled + 1, sizeof *s->rs.sr_cancelled);
                s->rs.sr_cancelled[s->rs.nsr_cancelled++] =
                    (struct sr_cancelled){(size_t)r->sr, window};
            }
            remove_at(s, i);
            return;
        }
}

/* Processors r holds on nodes that are up. */
static long long up_procs(const struct sched *s, const struct resv *r)
{
    long long n = 0;
    for (size_t k = 0; k < r->nnodes; k++)
        if (s->nt.nodes[r->nodes[k].node].state == NODE_UP)
            n += r->nodes[k].procs;
    return n;
}

/*
 * Place instance r (of definition di) again and keep the new placement when
 * it is better: more tasks (a partial instance topped up), or, with flex
 * (SPACEFLEX moving off nodes that went down), at least as many processors
 * on nodes that are up. Returns 1 when r moved.
 */
static int place_again(struct sched *s, struct resv *r, size_t di, long now, int flex)
{
    r->topup_gen = s->rs.resv_gen;
    struct resv_spec sp;
    spec_of_def(&s->rs.srdefs[di], &sp);
    sp.start = r->start > now ? r->start : now;
    sp.end = r->end;
    /* Its own nodes must not count against it. */
    unsigned long gen = s->rs.resv_gen;
    struct resv_node *mine = r->nodes;
    size_t nmine = r->nnodes;
    r->nodes = NULL;
    r->nnodes = 0;
    struct place p;
    struct err err;
    int placed = place(s, &sp, 1, &p, &err) == 0;
    r->nodes = mine;
    r->nnodes = nmine;
    long long got = 0;
    for (size_t k = 0; placed && k < p.ngot; k++)
        got += p.got[k].procs;
    int better = placed && (p.tasks > r->tasks || (flex && got >= up_procs(s, r)));
    if (!better) {
        if (placed)
            free(p.got);
        return 0;
    }
    uncharge_all(s, r);
    set_nodes(r, p.got, p.ngot, p.tasks);
    s->rs.resv_gen = gen + 1;
    r->topup_gen = s->rs.resv_gen;
    s->pl.replan = 1;
    return 1;
}

/* A partial instance: place it again, keep the better placement. */
static void top_up(struct sched *s, struct resv *r, size_t di, long now)
{
    place_again(s, r, di, now, 0);
}

/* A SPACEFLEX instance that has not begun and holds a node that is not up
 * any more: move it. */
static int flex_due(const struct sched *s, const struct resv *r, long now)
{
    return (r->flags & SRCFG_SPACEFLEX) && r->start > now && up_procs(s, r) < r->procs;
}

/* Whether e holds a node, up, that sp could use. */
static int holds_usable(const struct sched *s, const struct resv *e, const struct resv_spec *sp)
{
    for (size_t k = 0; k < e->nnodes; k++) {
        unsigned n = e->nodes[k].node;
        if (s->nt.nodes[n].state == NODE_UP && node_suits(s, n, sp))
            return 1;
    }
    return 0;
}

/* PREEMPTEE: the reservation a floating instance r (sp) short of tasks may
 * take the place of — flagged PREEMPTEE, of lower PRIORITY, keeping r off
 * a node r could use over r's window; the lowest PRIORITY first. -1: none. */
static long preemptee_for(const struct sched *s, const struct resv *r, const struct resv_spec *sp)
{
    long best = -1;
    for (size_t i = 0; i < s->rs.nresvs; i++) {
        const struct resv *e = s->rs.resvs[i];
        if (e == r || !(e->flags & SRCFG_PREEMPTEE) || e->priority >= sp->priority ||
            e->kind == RESV_EXTERNAL || !conflicts(e, sp->access, sp->flags, sp->start, sp->end) ||
            !holds_usable(s, e, sp))
            continue;
        if (best < 0 || e->priority < s->rs.resvs[best]->priority)
            best = (long)i;
    }
    return best;
}

/* Instance r of definition di is short of tasks: release the PREEMPTEE
 * reservations in its way, one at a time, placing it again after each,
 * until it is whole or none is left. A standing instance released is made
 * again with what is left (it is not cancelled); an administrative one is
 * gone, as in Maui. */
static void take_room(struct sched *s, struct resv *r, size_t di, long now)
{
    struct resv_spec sp;
    spec_of_def(&s->rs.srdefs[di], &sp);
    sp.start = r->start > now ? r->start : now;
    sp.end = r->end;
    long i;
    while (sp.tasks > 0 && r->tasks < r->tasks_asked && (i = preemptee_for(s, r, &sp)) >= 0) {
        remove_at(s, (size_t)i);
        s->rs.sr_preempted = 1;
        place_again(s, r, di, now, 0);
    }
}

static void refresh_def(struct sched *s, size_t di, long now)
{
    struct srtime_window w[SRTIME_WINDOWS_MAX];
    struct srtime_zone zone = {s->rs.zone_local, s->rs.zone_offset};
    size_t n =
        srtime_instances(&s->rs.srdefs[di].time, &zone, now + s->rs.epoch, w, SRTIME_WINDOWS_MAX);
    if (n > SRTIME_WINDOWS_MAX)
        n = SRTIME_WINDOWS_MAX;
    for (size_t k = 0; k < n; k++) {
        long window = w[k].start - s->rs.epoch;
        struct resv *r = instance(s, di, window);
        int forever = s->rs.srdefs[di].time.period == SRTIME_INFINITY;
        if (!r) {
            if (!cancelled(s, di, forever ? 0 : window))
                make_instance(s, di, &w[k], now);
        } else if (r->topup_gen != s->rs.resv_gen) {
            if (r->tasks < r->tasks_asked) {
                top_up(s, r, di, now);
                take_room(s, r, di, now);
            } else if (flex_due(s, r, now)) {
                place_again(s, r, di, now, 1);
            }
        }
    }
}

/* Standing instances change only when the calendar moves on (a day or
 * week begins: every zone's midnight falls on a quarter hour of UTC), an
 * instance ends, or reservations and nodes change (a partial one may be
 * topped up, a missing one placed). */
#define SR_QUANTUM 900

static long next_quarter(const struct sched *s, long now)
{
    long e = now + s->rs.epoch;
    long q = (e / SR_QUANTUM + 1) * SR_QUANTUM;
    return q - s->rs.epoch;
}

/* SINGLEUSE reservations a job used and ended: released; a standing
 * instance is not made again for its window. */
static void release_spent(struct sched *s)
{
    s->rs.resv_spent = 0;
    for (size_t i = s->rs.nresvs; i-- > 0;)
        if (s->rs.resvs[i]->spent)
            resv_cancel_instance(s, s->rs.resvs[i]->id);
}

void resv_job_done(struct sched *s, const struct job *j, long now)
{
    for (size_t c = 0; c < j->ncharges; c++) {
        struct resv *r = j->charges[c].r;
        if ((r->flags & SRCFG_SINGLEUSE) && now > r->start && j->start < r->end) {
            r->spent = 1;
            s->rs.resv_spent = 1;
        }
    }
}

void resv_refresh(struct sched *s, long now)
{
    size_t before = s->rs.nresvs;
    if (s->rs.ntrigs)
        trig_run(s, now); /* before expiry: an end trigger may name an instance ending now */
    if (s->rs.resv_spent)
        release_spent(s);
    resv_expire(s, now);
    if (!s->rs.nsrdefs ||
        (now < s->rs.sr_next && s->rs.sr_gen == s->rs.resv_gen && s->rs.nresvs == before))
        return;
    /* A reservation released for a higher one (PREEMPTEE) is made again
     * with what is left, in the same look: another pass. Each pass releases
     * only reservations of lower PRIORITY than one placed, so it ends. */
    for (size_t pass = 0; pass <= s->rs.nsrdefs; pass++) {
        s->rs.sr_preempted = 0;
        for (size_t di = 0; di < s->rs.nsrdefs; di++)
            refresh_def(s, di, now);
        if (!s->rs.sr_preempted)
            break;
    }
    s->rs.sr_next = next_quarter(s, now);
    s->rs.sr_gen = s->rs.resv_gen;
}

/* Not inlined: its frame (a zone on the stack, guarded) is what the quick
 * answer avoids. */
__attribute__((noinline)) static long next_event(const struct sched *s, long now, int standing);

long sched_next_event(const struct sched *s, long now, int standing)
{
    /* The drivers ask at every event: with no reservation, standing
     * definition, trigger or chunking (plain EASY) the answer is at hand. */
    if (!s->rs.nresvs && !s->rs.nsrdefs && (!standing || !s->rs.ntrigs) && s->pol.bfchunksize <= 0)
        return AVAIL_NEVER;
    return next_event(s, now, standing);
}

static long next_event(const struct sched *s, long now, int standing)
{
    /* Instances due later are made at the first iteration after their
     * calendar moment, before anything is decided then: that moment (a new
     * period, where a new window comes in sight) is an event with the
     * standing ones, so that the instance is placed on what is free then,
     * whenever the next job event comes. */
    long next = standing ? trig_next(s) : AVAIL_NEVER;
    struct srtime_zone zone = {s->rs.zone_local, s->rs.zone_offset};
    for (size_t d = 0; standing && d < s->rs.nsrdefs; d++) {
        long p = srtime_next_period(&s->rs.srdefs[d].time, &zone, now + s->rs.epoch) - s->rs.epoch;
        if (p > now && p < next)
            next = p;
    }
    /* Chunking holds small jobs back until BFCHUNKDURATION after an end. */
    long chunk_end = s->pl.last_end + s->pol.bfchunkduration;
    if (s->pol.bfchunksize > 0 && chunk_end > now && chunk_end < next)
        next = chunk_end;
    for (size_t i = 0; i < s->rs.nresvs; i++) {
        const struct resv *r = s->rs.resvs[i];
        if (r->kind == RESV_STANDING && !standing)
            continue;
        if (r->start > now && r->start < next)
            next = r->start;
        if (r->end > now && r->end < next)
            next = r->end;
    }
    return next;
}
