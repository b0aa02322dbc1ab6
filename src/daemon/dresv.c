/*
 * dresv — the daemon's administrative reservations: the store's copy of
 * the engine's RESV_USER reservations (setres), and who made each.
 *
 * The engine owns reservations; the daemon mirrors them. After anything
 * that may change them (setres, releaseres, an iteration, which expires
 * them), dresv_save compares the engine's list with d->resvs (what the
 * store holds) and writes the difference inside the caller's transaction;
 * dresv_settle then keeps it (committed) or puts the engine back as the
 * store still has it (not committed), so the two never disagree for long.
 *
 * The numbering of ids is kept too ("resv.next.<name>" in the store's
 * values): ids are never given again, even after a release and a restart
 * or reload (Maui's id counter is its checkpoint's).
 *
 * Standing reservations' instances are not stored: maui.cfg makes them
 * again. Nodes are stored by name; a restore maps them to the node table
 * of the day, dropping (with a log line) nodes that no longer exist and
 * capping processors that a node no longer has.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cfg/cfg.h"
#include "daemon/daemon_int.h"
#include "engine/engine.h"
#include "util/mem.h"

/* ---- d->resvs ---- */

static void dresv_clear(struct dresv *r)
{
    free(r->id);
    free(r->creator);
}

static void add_entry(struct dmn *d, const char *id, const char *creator, long uid)
{
    const struct resv *r = sched_find_resv(d->s, id);
    d->resvs = xgrow(d->resvs, &d->capresvs, d->nresvs + 1, sizeof *d->resvs);
    d->resvs[d->nresvs++] =
        (struct dresv){xstrdup(id), creator ? xstrdup(creator) : NULL, uid, r ? r->serial : 0};
}

const struct dresv *dresv_find(const struct dmn *d, const char *id)
{
    for (size_t i = 0; i < d->nresvs; i++)
        if (strcmp(d->resvs[i].id, id) == 0)
            return &d->resvs[i];
    return NULL;
}

void dresv_free(struct dmn *d)
{
    for (size_t i = 0; i < d->nresvs; i++)
        dresv_clear(&d->resvs[i]);
    free(d->resvs);
    d->resvs = NULL;
    d->nresvs = d->capresvs = 0;
}

/* ---- restoring: store -> engine ---- */

struct restore {
    struct dmn *d;
    long now;
    char *const *only; /* restore these ids alone (an undo), or NULL for all */
    size_t nonly;
};

static int wanted(const struct restore *rs, const char *id)
{
    if (!rs->only)
        return 1;
    for (size_t i = 0; i < rs->nonly; i++)
        if (strcmp(rs->only[i], id) == 0)
            return 1;
    return 0;
}

/* r's stored nodes as engine nodes (caller frees): dropped when the node
 * table no longer has them, capped at what the node has now. *changed says
 * whether anything was dropped or capped. */
static struct resv_node *map_nodes(struct dmn *d, const struct store_resv *r, size_t *n,
                                   int *changed)
{
    struct resv_node *v = xcalloc(r->nnodes + 1, sizeof *v);
    *n = 0;
    for (size_t k = 0; k < r->nnodes; k++) {
        long i = sched_find_node(d->s, r->nodes[k].name);
        if (i < 0) {
            dlog(d->log, 0, "reservation %s: node %s no longer exists; dropped from it", r->id,
                 r->nodes[k].name);
            *changed = 1;
            continue;
        }
        unsigned procs = r->nodes[k].procs, has = (unsigned)sched_node(d->s, (size_t)i)->procs;
        if (procs > has) {
            dlog(d->log, 0, "reservation %s: node %s has %u processors now, not %u", r->id,
                 r->nodes[k].name, has, procs);
            procs = has;
            *changed = 1;
        }
        if (procs)
            v[(*n)++] = (struct resv_node){(unsigned)i, procs, 0};
    }
    return v;
}

/* The engine's spec of a stored reservation; *acl is created (caller
 * destroys). Errors: an ACL or a value the engine would not take. */
static int spec_of(const struct store_resv *r, struct resv_spec *sp, struct acl **acl,
                   struct err *err)
{
    *acl = acl_create();
    if (*r->acl && acl_parse_setres(*acl, r->acl, err) < 0)
        return -1;
    if (r->access != SRCFG_SHARED && r->access != SRCFG_DEDICATED)
        return err_set(err, "unknown access %d", r->access);
    if (r->owner && r->owner_type >= ACL_NTYPES)
        return err_set(err, "unknown owner type %d", r->owner_type);
    *sp = (struct resv_spec){
        .start = r->start,
        .end = r->end,
        .tasks = r->tasks,
        .res = {.procs = -1},
        .flags = r->flags,
        .access = (enum srcfg_access)r->access,
        .owner = r->owner,
        .owner_type = (enum acl_type)r->owner_type,
        .priority = r->priority,
        .chargeaccount = r->chargeaccount,
        .acl = *acl,
    };
    return 0;
}

/* Rewrite r with the nodes it has now (some were dropped or capped). */
static void save_mapped(struct dmn *d, const struct store_resv *r, const struct resv_node *v,
                        size_t n)
{
    struct store_resv c = *r;
    c.nodes = xcalloc(n + 1, sizeof *c.nodes);
    c.nnodes = n;
    for (size_t k = 0; k < n; k++)
        c.nodes[k] =
            (struct store_resv_node){(char *)sched_node(d->s, v[k].node)->name, v[k].procs};
    struct err e;
    if (store_resv_put(d->st, &c, &e) < 0)
        dlog(d->log, 0, "error: %s", e.msg);
    free(c.nodes);
}

static void drop(struct dmn *d, int level, const char *id, const char *why)
{
    struct err e;
    dlog(d->log, level, "reservation %s %s; removed", id, why);
    if (store_resv_del(d->st, id, &e) < 0)
        dlog(d->log, 0, "error: %s", e.msg);
}

static int restore_one(void *ctx, const struct store_resv *r)
{
    struct restore *rs = ctx;
    struct dmn *d = rs->d;
    if (!wanted(rs, r->id))
        return 0;
    if (r->end <= rs->now) {
        drop(d, 1, r->id, "has ended");
        return 0;
    }
    int changed = 0;
    size_t n;
    struct resv_node *v = map_nodes(d, r, &n, &changed);
    struct resv_spec sp;
    struct acl *acl = NULL;
    struct err e;
    if (r->nnodes && !n) {
        drop(d, 0, r->id, "has none of its nodes any more");
    } else if (spec_of(r, &sp, &acl, &e) < 0 ||
               !sched_resv_restore(d->s, &sp, r->id, v, n, r->created, &e)) {
        /* Kept in the store for a person to look at; not in force. */
        dlog(d->log, 0, "error: reservation %s not restored: %s", r->id, e.msg);
    } else {
        add_entry(d, r->id, r->creator, r->creator_uid);
        if (changed)
            save_mapped(d, r, v, n);
    }
    acl_destroy(acl);
    free(v);
    return 0;
}

static int restore_some(struct dmn *d, char *const *only, size_t nonly, struct err *err)
{
    struct restore rs = {d, time(NULL), only, nonly};
    if (store_begin(d->st, err) < 0)
        return -1;
    if (store_resvs(d->st, restore_one, &rs, err) < 0) {
        store_rollback(d->st);
        return -1;
    }
    return store_commit(d->st, err);
}

/* The key of base's next id number in the store's values. */
#define NEXT_KEY "resv.next."

static int restore_number(void *ctx, const char *key, const char *value)
{
    struct dmn *d = ctx;
    char *end;
    long next = strtol(value, &end, 10);
    if (*end || end == value || next < 0)
        dlog(d->log, 0, "error: stored value %s='%s' is not a reservation number; ignored", key,
             value);
    else
        sched_resv_number_from(d->s, key + strlen(NEXT_KEY), next);
    return 0;
}

int dresv_restore(struct dmn *d, struct err *err)
{
    dresv_free(d);
    if (store_kv_each(d->st, NEXT_KEY, restore_number, d, err) < 0)
        return -1;
    return restore_some(d, NULL, 0, err);
}

/* After a new reservation: where base's numbering stands, stored. */
static int save_number(struct dmn *d, const char *id, struct err *err)
{
    const char *dot = strrchr(id, '.');
    if (!dot)
        return 0; /* not <base>.<n>: not numbered */
    char *base = xstrndup(id, (size_t)(dot - id)), *key = xprintf(NEXT_KEY "%s", base), v[32];
    snprintf(v, sizeof v, "%ld", sched_resv_next_number(d->s, base));
    int rc = store_kv_set(d->st, key, v, err);
    free(base);
    free(key);
    return rc;
}

/* ---- saving: engine -> store ---- */

/* The record of engine reservation r, made by `by` (NULL: unknown); the
 * strings are borrowed from r except acl and the node array (caller frees
 * those two). */
static void record_of(struct dmn *d, const struct resv *r, const struct peer *by,
                      struct store_resv *out)
{
    int len = acl_format(r->acl, NULL, 0);
    char *acl = xmalloc((size_t)len + 1);
    acl_format(r->acl, acl, (size_t)len + 1);
    *out = (struct store_resv){
        .id = r->id,
        .start = r->start,
        .end = r->end,
        .created = r->created,
        .flags = r->flags,
        .access = (int)r->access,
        .acl = acl,
        .owner = r->owner,
        .owner_type = (int)r->owner_type,
        .priority = r->priority,
        .chargeaccount = r->chargeaccount,
        .tasks = r->tasks_asked,
        .creator = by ? (char *)by->user : NULL,
        .creator_uid = by ? (long)by->uid : -1,
        .nodes = xcalloc(r->nnodes + 1, sizeof *out->nodes),
        .nnodes = r->nnodes,
    };
    for (size_t k = 0; k < r->nnodes; k++)
        out->nodes[k] = (struct store_resv_node){(char *)sched_node(d->s, r->nodes[k].node)->name,
                                                 r->nodes[k].procs};
}

static void change_add(char ***v, size_t *n, const char *id)
{
    *v = xrealloc(*v, (*n + 1) * sizeof **v);
    (*v)[(*n)++] = xstrdup(id);
}

/* Reservations the engine made since the last save: stored, made by `by`. */
static int save_new(struct dmn *d, const struct peer *by, struct dresv_change *c, struct err *err)
{
    for (size_t i = 0; i < sched_nresv(d->s); i++) {
        const struct resv *r = sched_resv_at(d->s, i);
        if (r->kind != RESV_USER || dresv_find(d, r->id))
            continue;
        struct store_resv rec;
        record_of(d, r, by, &rec);
        int rc = store_resv_put(d->st, &rec, err);
        free(rec.acl);
        free(rec.nodes);
        if (rc < 0 || save_number(d, r->id, err) < 0)
            return -1;
        add_entry(d, r->id, rec.creator, rec.creator_uid);
        change_add(&c->added, &c->nadded, r->id);
    }
    return 0;
}

/* Reservations the store holds and the engine no longer has (released,
 * expired): removed. */
static int save_gone(struct dmn *d, struct dresv_change *c, struct err *err)
{
    for (size_t i = 0; i < d->nresvs;) {
        const struct resv *r = sched_find_resv(d->s, d->resvs[i].id);
        if (r && r->kind == RESV_USER) {
            i++;
            continue;
        }
        if (store_resv_del(d->st, d->resvs[i].id, err) < 0)
            return -1;
        change_add(&c->removed, &c->nremoved, d->resvs[i].id);
        dresv_clear(&d->resvs[i]);
        d->resvs[i] = d->resvs[--d->nresvs];
    }
    return 0;
}

/* Reservations the engine changed in place (setres -m: a new object under
 * the old id): stored again, with their creator. */
static int save_modified(struct dmn *d, struct dresv_change *c, struct err *err)
{
    for (size_t i = 0; i < d->nresvs; i++) {
        struct dresv *e = &d->resvs[i];
        const struct resv *r = sched_find_resv(d->s, e->id);
        if (!r || r->kind != RESV_USER || r->serial == e->serial)
            continue;
        struct store_resv rec;
        record_of(d, r, NULL, &rec);
        rec.creator = e->creator;
        rec.creator_uid = e->uid;
        int rc = store_resv_del(d->st, e->id, err) < 0 ? -1 : store_resv_put(d->st, &rec, err);
        free(rec.acl);
        free(rec.nodes);
        if (rc < 0)
            return -1;
        e->serial = r->serial;
        change_add(&c->modified, &c->nmodified, e->id);
    }
    return 0;
}

int dresv_save(struct dmn *d, const struct peer *by, struct dresv_change *c, struct err *err)
{
    *c = (struct dresv_change){0};
    if (save_modified(d, c, err) < 0 || save_new(d, by, c, err) < 0 || save_gone(d, c, err) < 0)
        return -1;
    return 0;
}

static void remove_entry(struct dmn *d, const char *id)
{
    for (size_t i = 0; i < d->nresvs; i++)
        if (strcmp(d->resvs[i].id, id) == 0) {
            dresv_clear(&d->resvs[i]);
            d->resvs[i] = d->resvs[--d->nresvs];
            return;
        }
}

/* Ids taken out of the engine and the mirror, with a log line each. */
static void drop_ids(struct dmn *d, char *const *ids, size_t n, const char *what)
{
    for (size_t i = 0; i < n; i++) {
        sched_resv_release(d->s, ids[i], NULL);
        remove_entry(d, ids[i]);
        dlog(d->log, 0, "reservation %s %s", ids[i], what);
    }
}

/* Not committed: the engine goes back to what the store holds. New
 * reservations are released; removed ones come back from the store (unless
 * they have ended meanwhile). */
static void undo(struct dmn *d, const struct dresv_change *c)
{
    struct err e;
    drop_ids(d, c->added, c->nadded, "not kept (refused or not saved); released");
    /* Modified: back to the stored version (its entry goes and comes back),
     * with the removed ones. */
    drop_ids(d, c->modified, c->nmodified,
             "change not kept (refused or not saved); put back as stored");
    /* memcpy from a NULL list is undefined even for no bytes: copy by hand. */
    char **back = xcalloc(c->nremoved + c->nmodified + 1, sizeof *back);
    for (size_t i = 0; i < c->nremoved; i++)
        back[i] = c->removed[i];
    for (size_t i = 0; i < c->nmodified; i++)
        back[c->nremoved + i] = c->modified[i];
    if (c->nremoved + c->nmodified && restore_some(d, back, c->nremoved + c->nmodified, &e) < 0)
        dlog(d->log, 0, "error: reservations not restored after a failed save: %s", e.msg);
    free(back);
}

void dresv_settle(struct dmn *d, struct dresv_change *c, int committed)
{
    if (!committed)
        undo(d, c);
    for (size_t i = 0; i < c->nadded; i++)
        free(c->added[i]);
    for (size_t i = 0; i < c->nremoved; i++)
        free(c->removed[i]);
    for (size_t i = 0; i < c->nmodified; i++)
        free(c->modified[i]);
    free(c->added);
    free(c->removed);
    free(c->modified);
    *c = (struct dresv_change){0};
}

/* ---- RESCTLPOLICY ANY: what one ordinary user's reservations may hold ---- */

/* The longest reservation an ordinary user may make when no MAX.WCLIMIT
 * bounds their jobs: a day, a job's default walltime. */
#define USER_RESV_MAX_SECONDS 86400

/* Processors and nodes of the reservations user uid made that still stand
 * (the store's record of who made them), the new ones (c) excluded. */
static void user_resv_load(struct dmn *d, long uid, const struct dresv_change *c, long long *procs,
                           long *nodes)
{
    *procs = 0;
    *nodes = 0;
    for (size_t i = 0; i < d->nresvs; i++) {
        int is_new = 0;
        for (size_t k = 0; k < c->nadded; k++)
            is_new |= strcmp(c->added[k], d->resvs[i].id) == 0;
        for (size_t k = 0; k < c->nmodified; k++)
            is_new |= strcmp(c->modified[k], d->resvs[i].id) == 0;
        const struct resv *r = sched_find_resv(d->s, d->resvs[i].id);
        if (!is_new && r && d->resvs[i].uid == uid) {
            *procs += r->procs;
            *nodes += (long)r->nnodes;
        }
    }
}

/*
 * The reservation r by p, as a job of p's would be (Maui's RESLIMITPOLICY:
 * the creator's limits): its processors — with those of p's other
 * reservations — and its duration, as a job asking for them, within p's
 * HARD throttling limits (MAXPROC, MAXNODE, MAXPS, ...) and per-job limits
 * (MAX.WCLIMIT); and it must end: at most USER_RESV_MAX_SECONDS when no
 * MAX.WCLIMIT applies.
 */
static int over_own_limits(struct dmn *d, const struct peer *p, const struct resv *r,
                           long long others, long other_nodes, struct err *err)
{
    long len = r->end - r->start;
    long long procs = r->procs + others;
    struct job_spec spec = {.name = r->id,
                            .tasks = procs > INT_MAX ? INT_MAX : (int)procs,
                            .procs_per_task = 1,
                            .nodes = (int)(r->nnodes + (size_t)other_nodes),
                            .walltime = len > 0 ? len : 1,
                            .submit = r->start,
                            .user = p->user,
                            .group = p->group};
    struct err e;
    if (sched_job_fit(d->s, &spec, SCHED_FIT_LIMITS, &e) == SCHED_OVER_LIMIT)
        return err_set(err,
                       "setres: a reservation by %s is held to %s's own limits: %lld processors "
                       "(with %s's other reservations) for %ld s: as a job it %s",
                       p->user, p->user, procs, p->user, len, e.msg);
    /* Bounded by the limits when the same request lasting for ever would be
     * over one of them (MAX.WCLIMIT, MAXPS). */
    spec.walltime = LONG_MAX / 4;
    int bounded = sched_job_fit(d->s, &spec, SCHED_FIT_LIMITS, NULL) == SCHED_OVER_LIMIT;
    if (!bounded && len > USER_RESV_MAX_SECONDS)
        return err_set(err,
                       "setres: a reservation by %s (not an administrator) may last at most %d s "
                       "(give -d or -e; MAX.WCLIMIT would bound it instead); this one lasts %ld s",
                       p->user, USER_RESV_MAX_SECONDS, len);
    return 0;
}

/* The reservations user uid holds (the engine's objects, changes made). */
static size_t user_resvs(struct dmn *d, long uid, const struct resv ***out)
{
    size_t n = 0;
    *out = xcalloc(d->nresvs + 1, sizeof **out);
    for (size_t i = 0; i < d->nresvs; i++) {
        const struct resv *r = sched_find_resv(d->s, d->resvs[i].id);
        if (r && d->resvs[i].uid == uid)
            (*out)[n++] = r;
    }
    return n;
}

/* The most processors reservations v hold at one time: at each start, the
 * processors of those that have begun and not ended by then. */
static long long peak_procs(const struct resv *const *v, size_t n)
{
    long long peak = 0;
    for (size_t i = 0; i < n; i++) {
        long long at = 0;
        for (size_t k = 0; k < n; k++)
            if (v[k]->start <= v[i]->start && v[k]->end > v[i]->start)
                at += v[k]->procs;
        peak = at > peak ? at : peak;
    }
    return peak;
}

/* Processor-seconds reservations v hold within [from, to). */
static long long ps_within(const struct resv *const *v, size_t n, long from, long to)
{
    long long ps = 0;
    for (size_t i = 0; i < n; i++) {
        long a = v[i]->start > from ? v[i]->start : from;
        long b = v[i]->end < to ? v[i]->end : to;
        if (b > a)
            ps += v[i]->procs * (long long)(b - a);
    }
    return ps;
}

/*
 * The bounds of one user's reservations, so that chained reservations
 * (-s +23h, +46h, ... over ALL nodes, each within the one-day rule) cannot
 * hold the cluster for days (issue 28): how many at once, how many
 * processors at any time, how many processor-seconds within the horizon,
 * and none reaching past it.
 */
static int over_user_bounds(struct dmn *d, const struct peer *p, const struct resv *changed,
                            long now, struct err *err)
{
    long horizon = cfg_time(d->cfg, "USERRESHORIZON", NULL);
    long long cluster = sched_up_procs(d->s);
    long long maxn = cfg_int(d->cfg, "USERRESMAXCOUNT", NULL);
    long long maxp = cfg_share(d->cfg, "USERRESMAXPROCS", cluster);
    long long maxps = cfg_share(d->cfg, "USERRESMAXPS", cluster * (long long)horizon);
    if (changed->end - now > horizon)
        return err_set(err,
                       "setres: a reservation by %s must end within %ld s from now "
                       "(USERRESHORIZON); this one ends in %ld s",
                       p->user, horizon, changed->end - now);
    const struct resv **v;
    size_t n = user_resvs(d, (long)p->uid, &v);
    long long peak = peak_procs(v, n), ps = ps_within(v, n, now, now + horizon);
    free(v);
    if ((long long)n > maxn)
        return err_set(err,
                       "setres: %s may hold at most %lld reservations at once (USERRESMAXCOUNT); "
                       "with this one %s would hold %zu",
                       p->user, maxn, p->user, n);
    if (peak > maxp)
        return err_set(err,
                       "setres: %s's reservations may hold at most %lld processors at any time "
                       "(USERRESMAXPROCS %s of %lld); with this one they would hold %lld",
                       p->user, maxp, cfg_str(d->cfg, "USERRESMAXPROCS", NULL), cluster, peak);
    if (ps > maxps)
        return err_set(err,
                       "setres: %s's reservations may hold at most %lld processor-seconds "
                       "within the next %ld s (USERRESMAXPS %s); with this one they would hold "
                       "%lld",
                       p->user, maxps, horizon, cfg_str(d->cfg, "USERRESMAXPS", NULL), ps);
    return 0;
}

int dresv_user_refused(struct dmn *d, const struct peer *p, const struct dresv_change *c, long now,
                       struct err *err)
{
    long long others;
    long other_nodes;
    user_resv_load(d, (long)p->uid, c, &others, &other_nodes);
    for (size_t k = 0; k < c->nadded + c->nmodified; k++) {
        const char *id = k < c->nadded ? c->added[k] : c->modified[k - c->nadded];
        const struct resv *r = sched_find_resv(d->s, id);
        if (r && (over_own_limits(d, p, r, others, other_nodes, err) < 0 ||
                  over_user_bounds(d, p, r, now, err) < 0))
            return 1;
    }
    return 0;
}
