/*
 * dintake — jobs submitted to the resource manager itself: under Slurm,
 * sbatch/srun/salloc from any user. Each held job the daemon has not seen
 * is stored under Slurm's id (so checkjob 42 and squeue agree) and queued
 * with its shape (tasks, processors per task, tasks per node, memory,
 * exclusive nodes); one the policy refuses (no node could ever hold it,
 * MAXSUBMITJOBS) is cancelled in Slurm with the reason logged; a queued job
 * Slurm no longer has, or has ended (scancel of a held job), is removed
 * from the queue. The states of the nodes (down, drained, up again) come
 * the same way.
 *
 * Holds are one state: a hold put or lifted in Slurm (its user's, an
 * administrator's) is put or lifted in moku, and moku's holds and what it
 * says of a waiting job are written into Slurm's record (dintake_push).
 * Each side's change is told from the other's by what the record had when
 * last read or written (djob.rm_holds).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/resv.h"
#include "daemon/daemon_int.h"
#include "engine/engine.h"
#include "policy/acl.h"
#include "policy/srcfg.h"
#include "util/mem.h"

_Static_assert(HOLD_USER == RM_HOLD_USER && HOLD_SYSTEM == RM_HOLD_SYSTEM &&
                   HOLD_BATCH == RM_HOLD_BATCH,
               "the resource manager's hold bits are the engine's");

struct intake {
    struct dmn *d;
    long now;
};

/* The resource manager's reservation X is moku's <prefix>-X.0, and a job
 * that asks for X (sbatch --reservation=X) asks for <prefix>-X. */
#define RM_RESV_PREFIX "slurm"

static char *dup_or_null(const char *s)
{
    return s ? xstrdup(s) : NULL;
}

/* The shape words of the stored record (store.h); caller frees. Tasks per
 * node: its own, or those of a node count that divides its tasks. */
static char *shape_of(const struct rm_new_job *x)
{
    int tpn = x->tpn > 0                                 ? x->tpn
              : x->nodes > 0 && x->tasks % x->nodes == 0 ? x->tasks / x->nodes
                                                         : 0;
    int max_nodes = x->max_nodes;
    if (x->nodes > 0 && !tpn && (!max_nodes || x->nodes < max_nodes))
        max_nodes = x->nodes; /* tasks that do not divide: no more nodes than asked */
    return xprintf("tpn=%d mem_task=%ld mem_node=%ld%s max_nodes=%d%s%s", tpn, x->mem_per_task,
                   x->mem_per_node, x->exclusive ? " exclusive" : "", max_nodes,
                   x->hosts ? " hosts=" : "", x->hosts ? x->hosts : "");
}

/* The stored record of a held job. */
static void record_of(const struct rm_new_job *x, struct store_job *rec)
{
    int cpt = x->cpus_per_task > 0 ? x->cpus_per_task : 1;
    *rec = (struct store_job){
        .id = x->id,
        .name = dup_or_null(x->name),
        .user = xstrdup(x->user),
        .group = xstrdup(x->group),
        .uid = x->uid,
        .gid = x->gid,
        .account = dup_or_null(x->account),
        .class_ = dup_or_null(x->class_),
        .qos = dup_or_null(x->qos),
        .tasks = x->tasks * cpt,
        .ppn = cpt,
        .nodes = x->nodes,
        .walltime = x->walltime,
        .submit = x->submit,
        .start_after = x->start_after,
        .holds = x->holds & (HOLD_USER | HOLD_SYSTEM),
        .advres = x->resv ? xprintf("%s-%s", RM_RESV_PREFIX, x->resv) : NULL,
        .state = SJ_IDLE,
        .exit_status = -1,
        .features = dup_or_null(x->features),
        .shape = shape_of(x),
    };
}

/* ---- dependencies: a system hold of moku's while they wait ---- */

#define DEP_NOTE "dependency: "               /* the start of the message of a dependency hold */
#define LIMIT_NOTE "Slurm would not run it: " /* ... of a partition limit's */

static char *dep_message(const struct rm_new_job *x)
{
    const char *t = x->dep_text ? x->dep_text : "";
    switch (x->dep) {
    case RM_DEP_WAIT:
        return xprintf(DEP_NOTE "waits for %s", t);
    case RM_DEP_NEVER:
        return xprintf(DEP_NOTE "can never be satisfied (%s); cancel the job or releasehold it", t);
    case RM_DEP_UNKNOWN:
        return xprintf(DEP_NOTE "%s is not a kind moku evaluates; releasehold it when it may run",
                       t);
    default:
        return NULL;
    }
}

/* Whether the message of dj's system hold is one follow_dep set. */
static int dep_held(const struct djob *dj)
{
    const char *m = dj->rec.message;
    return (dj->j->holds & HOLD_SYSTEM) && m &&
           (strncmp(m, DEP_NOTE, strlen(DEP_NOTE)) == 0 ||
            strncmp(m, LIMIT_NOTE, strlen(LIMIT_NOTE)) == 0);
}

/* Why x cannot start as it is: its dependencies, a partition's limit;
 * NULL = nothing (caller frees). */
static char *wait_message(const struct rm_new_job *x)
{
    char *why = dep_message(x);
    if (!why && x->blocked)
        why = xprintf(LIMIT_NOTE "%s", x->blocked);
    return why;
}

/* A queued job whose dependencies or partition limits changed: held while
 * they keep it from running, released when they no longer do (only a hold
 * moku set for them). */
static void follow_dep(struct dmn *d, struct djob *dj, const struct rm_new_job *x, long now)
{
    if (dj->rec.state != SJ_IDLE || !dj->j || dj->j->state != JOB_IDLE)
        return;
    int ours = dep_held(dj);
    char *why = wait_message(x);
    if (why && !(dj->j->holds & HOLD_SYSTEM)) {
        sched_hold(d->s, dj->j, HOLD_SYSTEM, NULL);
        ours = 1;
    }
    if (!why && ours) {
        sched_release(d->s, dj->j, HOLD_SYSTEM, now, NULL);
        dlog(d->log, 1, "job %ld: %s", dj->rec.id,
             strncmp(dj->rec.message, DEP_NOTE, strlen(DEP_NOTE)) == 0
                 ? "its dependencies are satisfied"
                 : "Slurm's limits no longer keep it from running");
    }
    if (ours && (!why || !dj->rec.message || strcmp(why, dj->rec.message) != 0)) {
        free(dj->rec.message);
        dj->rec.message = why ? xstrdup(why) : NULL;
        sched_job_note(d->s, dj->j, why);
        djrec_save(d, dj);
    }
    free(why);
}

/* Another job under an id moku has had: the resource manager's ids began
 * again (Slurm's state was wiped). Not silent: the job stays held there,
 * for an administrator. */
static void reused_id(struct dmn *d, const struct rm_new_job *x, long had_submit)
{
    dlog(d->log, 0,
         "error: %s job %ld of %s reuses the id of a job moku had (submitted %ld, "
         "this one %ld): not taken in; were %s's job ids reset (FirstJobId)?",
         d->rm.ops->name, x->id, x->user, had_submit, x->submit, d->rm.ops->name);
}

/* A queued job's time limit changed in Slurm (scontrol update TimeLimit=):
 * planned with the new one. */
static void follow_walltime(struct dmn *d, struct djob *dj, const struct rm_new_job *x)
{
    if (dj->rec.state != SJ_IDLE || !dj->j || dj->j->state != JOB_IDLE || x->walltime <= 0 ||
        x->walltime == dj->rec.walltime)
        return;
    struct err e;
    if (sched_set_walltime(d->s, dj->j, x->walltime, &e) < 0)
        return;
    dlog(d->log, 1, "job %ld: its time limit is %ld s in %s now", dj->rec.id, x->walltime,
         d->rm.ops->name);
    dj->rec.walltime = x->walltime;
    djrec_save(d, dj);
}

/* ---- holds: Slurm's side into moku ---- */

/* What x's record has now, to tell the next change. */
static void remember(struct djob *dj, const struct rm_new_job *x)
{
    dj->rm_holds = x->holds & (HOLD_USER | HOLD_SYSTEM);
    free(dj->rm_note);
    dj->rm_note = x->note ? xstrdup(x->note) : NULL;
    dj->rm_synced = 1;
}

static const char *hold_word(unsigned h)
{
    return h & HOLD_USER ? "user" : "system";
}

/* Slurm changed x's holds since moku last read or wrote them: the same
 * change in moku (a hold moku set for dependencies or limits is followed
 * by follow_dep, not here). An administrator's release asked through the
 * plugin lifts moku's system hold. */
static void follow_holds(struct dmn *d, struct djob *dj, const struct rm_new_job *x, long now)
{
    if (dj->rec.state != SJ_IDLE || !dj->j || dj->j->state != JOB_IDLE)
        return;
    unsigned had = dj->rm_synced ? dj->rm_holds : dj->j->holds & (HOLD_USER | HOLD_SYSTEM);
    unsigned put = x->holds & ~had, lifted = had & ~x->holds;
    if (x->release_asked)
        lifted |= HOLD_SYSTEM | HOLD_BATCH;
    if (dep_held(dj))
        lifted &= ~HOLD_SYSTEM;
    put &= ~dj->j->holds;
    lifted &= dj->j->holds;
    if (put) {
        sched_hold(d->s, dj->j, put, NULL);
        dlog(d->log, 1, "job %ld: %s hold put in %s", dj->rec.id, hold_word(put), d->rm.ops->name);
    }
    if (lifted) {
        sched_release(d->s, dj->j, lifted, now, NULL);
        dlog(d->log, 1, "job %ld: %s hold released in %s", dj->rec.id, hold_word(lifted),
             d->rm.ops->name);
    }
    if (put || lifted) {
        store_event(d->st, now, dj->rec.id, put ? "hold" : "release", d->rm.ops->name, NULL);
        djrec_save(d, dj);
    }
    remember(dj, x);
}

/* A task of a Slurm array with a %N throttle: the engine's array task
 * (engine/array.h), so that moku starts no more of its tasks at once than
 * Slurm would run — a task Slurm keeps back (JobArrayTaskLimit) would
 * otherwise be a failed start, deferred for DEFERTIME. Given once, when
 * the job is taken in or found again after a restart. */
static void follow_array(struct dmn *d, struct djob *dj, const struct rm_new_job *x)
{
    if (!x->array || !x->array_slots || !dj->j || dj->j->array)
        return;
    char name[32];
    snprintf(name, sizeof name, "%ld", x->array);
    struct err e;
    int held = dj->j->state == JOB_IDLE; /* waits for a slot; a running one holds one */
    if (sched_set_array(d->s, dj->j, name, x->array_task, x->array_slots, held, &e) < 0)
        dlog(d->log, 0, "error: job %ld: %s", x->id, e.msg);
}

static void seen(void *ctx, const struct rm_new_job *x)
{
    struct intake *in = ctx;
    struct dmn *d = in->d;
    char id[32];
    snprintf(id, sizeof id, "%ld", x->id);
    struct djob *have = djobs_find(d, id);
    int ended = have && (have->rec.state == SJ_COMPLETED || have->rec.state == SJ_REMOVED);
    if (have && !ended) { /* ours (a requeue may give it a new submit time) */
        follow_holds(d, have, x, in->now);
        follow_dep(d, have, x, in->now);
        follow_walltime(d, have, x);
        follow_array(d, have, x);
        return;
    }
    if (have) {
        if (have->rec.submit != x->submit)
            reused_id(d, x, have->rec.submit);
        return;
    }
    struct store_job old;
    struct err e;
    int known = store_job_get(d->st, x->id, &old, &e);
    if (known == 1) {
        if (old.submit != x->submit)
            reused_id(d, x, old.submit);
        store_job_free(&old);
    }
    if (known != 0) {
        if (known < 0)
            dlog(d->log, 0, "error: job %s: %s", id, e.msg);
        return; /* ended here, or unreadable: not queued a second time */
    }
    struct store_job rec;
    record_of(x, &rec);
    if (!djobs_adopt(d, &rec, &e)) {
        dlog(d->log, 0, "%s job %s of %s refused: %s; cancelled there", d->rm.ops->name, id,
             x->user, e.msg);
        store_job_free(&rec);
        struct err ce;
        if (d->rm.ops->cancel(d->rm.ctx, id, in->now, &ce) < 0)
            dlog(d->log, 0, "error: %s", ce.msg);
        return;
    }
    store_event(d->st, in->now, x->id, "submit", x->user, NULL);
    dlog(d->log, 1, "job %s of %s taken in from %s", id, x->user, d->rm.ops->name);
    struct djob *dj = djobs_find(d, id);
    if (dj) {
        remember(dj, x);
        follow_dep(d, dj, x, in->now);
        follow_array(d, dj, x);
    }
}

/* ---- holds: moku's side into Slurm ---- */

/* What moku says of a queued job in the resource manager's record: its
 * holds and deferral, in checkjob's words; NULL for a job that only waits
 * its turn. Caller frees. */
static char *note_of(struct dmn *d, const struct djob *dj)
{
    const struct job *j = dj->j;
    const char *msg = dj->rec.message;
    if (j->holds || (j->deferred_until && !(j->flags & JOB_STARTDATE))) {
        char until[32] = "";
        if (!j->holds) {
            time_t t = (time_t)j->deferred_until;
            struct tm tm;
            strftime(until, sizeof until, " until %Y-%m-%dT%H:%M:%S", localtime_r(&t, &tm));
        }
        return xprintf("moku: %s%s%s%s", job_display_state(j), until, msg ? ": " : "",
                       msg ? msg : "");
    }
    (void)d;
    return NULL;
}

static int same_note(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

void dintake_push(struct dmn *d)
{
    if (!d->rm.ops->hold_sync)
        return;
    for (size_t i = 0; i < d->njobs; i++) {
        struct djob *dj = d->jobs[i];
        if (dj->rec.state != SJ_IDLE || !dj->j || dj->j->state != JOB_IDLE)
            continue;
        unsigned h = dj->j->holds;
        unsigned want = (h & HOLD_USER) | (h & (HOLD_SYSTEM | HOLD_BATCH) ? HOLD_SYSTEM : 0);
        char *note = note_of(d, dj);
        if (!dj->rm_synced || want != dj->rm_holds || !same_note(note, dj->rm_note)) {
            char id[32];
            struct err e;
            snprintf(id, sizeof id, "%ld", dj->rec.id);
            if (d->rm.ops->hold_sync(d->rm.ctx, id, h, note, &e) < 0) {
                dlog(d->log, 0, "error: %s", e.msg);
            } else {
                dj->rm_holds = want;
                free(dj->rm_note);
                dj->rm_note = note;
                note = NULL;
                dj->rm_synced = 1;
            }
        }
        free(note);
    }
}

/* Queued here, ended or gone there: cancelled outside moku. */
static void gone(struct dmn *d, struct djob *dj, long now)
{
    sched_cancel(d->s, dj->j, now, NULL);
    dj->rec.state = SJ_REMOVED;
    dj->rec.end = now;
    free(dj->rec.message);
    dj->rec.message = xprintf("cancelled in %s while queued", d->rm.ops->name);
    djrec_save(d, dj);
    store_event(d->st, now, dj->rec.id, "cancel", d->rm.ops->name, NULL);
    dlog(d->log, 1, "job %ld cancelled in %s while queued", dj->rec.id, d->rm.ops->name);
}

static void node_changed(void *ctx, const struct rm_node_state *n)
{
    struct dmn *d = ctx;
    long i = sched_find_node(d->s, n->name);
    if (i < 0) {
        dlog(d->log, 2,
             "%s node %s is not in moku's node table (schedctl -R reads the nodes "
             "again)",
             d->rm.ops->name, n->name);
        return;
    }
    sched_node_set_state(d->s, (size_t)i, n->state, n->reason);
    dlog(d->log, 1, "node %s is %s in %s%s%s", n->name, node_state_name(n->state), d->rm.ops->name,
         n->reason ? ": " : "", n->reason ? n->reason : "");
}

/* ---- the resource manager's reservations ---- */

/* One reservation as read, kept until the read is over. */
struct rresv {
    char *name, *users, *accounts, *groups;
    long start, end;
    char **nodes;
    size_t nnodes;
};

struct rresv_list {
    struct rresv *v;
    size_t n, cap;
};

static char *dup_or_null2(const char *s)
{
    return s ? xstrdup(s) : NULL;
}

static void keep_resv(void *ctx, const struct rm_resv *x)
{
    struct rresv_list *l = ctx;
    l->v = xgrow(l->v, &l->cap, l->n + 1, sizeof *l->v);
    struct rresv *r = &l->v[l->n++];
    *r = (struct rresv){xstrdup(x->name),
                        dup_or_null2(x->users),
                        dup_or_null2(x->accounts),
                        dup_or_null2(x->groups),
                        x->start,
                        x->end,
                        xcalloc(x->nnodes + 1, sizeof *r->nodes),
                        x->nnodes};
    for (size_t k = 0; k < x->nnodes; k++)
        r->nodes[k] = xstrdup(x->nodes[k]);
}

static void rresv_free(struct rresv_list *l)
{
    for (size_t i = 0; i < l->n; i++) {
        struct rresv *r = &l->v[i];
        free(r->name);
        free(r->users);
        free(r->accounts);
        free(r->groups);
        for (size_t k = 0; k < r->nnodes; k++)
            free(r->nodes[k]);
        free(r->nodes);
    }
    free(l->v);
}

/* Reservation X as moku's <prefix>-X.0: by name only, as in Slurm (its
 * nodes are for the jobs that ask for it and that its users, accounts and
 * groups admit), made now (jobs already on its nodes stay). */
static void mirror(struct dmn *d, const struct rresv *x, long now)
{
    if (x->end <= now)
        return;
    struct acl *acl = acl_create();
    struct err e = {{0}};
    if (!((!x->users || acl_add_list(acl, ACL_USER, x->users, &e) == 0) &&
          (!x->accounts || acl_add_list(acl, ACL_ACCOUNT, x->accounts, &e) == 0) &&
          (!x->groups || acl_add_list(acl, ACL_GROUP, x->groups, &e) == 0))) {
        /* Who may use it is not moku's to read ("-alice": all but alice):
         * its nodes are then for nobody, rather than for anybody. */
        dlog(d->log, 0, "%s reservation %s: %s; mirrored for no job", d->rm.ops->name, x->name,
             e.msg);
        acl_destroy(acl);
        acl = acl_create();
    }
    int ok = 1;
    struct resv_node *nodes = xcalloc(x->nnodes + 1, sizeof *nodes);
    size_t n = 0;
    for (size_t k = 0; k < x->nnodes; k++) {
        long i = sched_find_node(d->s, x->nodes[k]);
        if (i >= 0)
            nodes[n++] =
                (struct resv_node){(unsigned)i, (unsigned)sched_node(d->s, (size_t)i)->procs, 0};
    }
    char *id = xprintf("%s-%s.0", RM_RESV_PREFIX, x->name);
    struct resv_spec spec = {.start = x->start, .end = x->end, .flags = SRCFG_BYNAME, .acl = acl};
    if (ok && !n)
        ok = !err_set(&e, "none of its nodes is known");
    if (ok && !sched_resv_external(d->s, &spec, id, nodes, n, now, &e))
        ok = 0;
    if (ok)
        dlog(d->log, 2, "%s reservation %s mirrored as %s", d->rm.ops->name, x->name, id);
    else
        dlog(d->log, 0, "%s reservation %s not mirrored: %s", d->rm.ops->name, x->name, e.msg);
    free(id);
    free(nodes);
    acl_destroy(acl);
}

/* The resource manager's reservations, when they changed (or the engine is
 * new): the old mirrors dropped, the current ones made again. */
static int resvs_poll(struct dmn *d, long now, struct err *e)
{
    struct rresv_list l = {0};
    int rc = d->rm.ops->resvs(d->rm.ctx, now, d->rm_resync, keep_resv, &l, e);
    if (rc > 0) {
        d->rm_resync = 0;
        for (size_t i = sched_nresv(d->s); i-- > 0;) {
            const struct resv *r = sched_resv_at(d->s, i);
            if (r->kind == RESV_EXTERNAL) {
                char *id = xstrdup(r->id);
                sched_resv_drop_external(d->s, id);
                free(id);
            }
        }
        for (size_t i = 0; i < l.n; i++)
            mirror(d, &l.v[i], now);
    }
    rresv_free(&l);
    return rc < 0 ? -1 : 0;
}

/* The resource manager could not be read (-1): logged when that starts
 * and when it ends, not at every iteration of an outage. */
static int rm_read(struct dmn *d, int rc, const struct err *e)
{
    if (rc < 0 && !d->rm_down)
        dlog(d->log, 0, "error: %s (moku starts nothing until it answers)", e->msg);
    else if (rc >= 0 && d->rm_down)
        dlog(d->log, 0, "%s answers again", d->rm.ops->name);
    d->rm_down = rc < 0;
    return rc;
}

int dintake_poll(struct dmn *d, long now)
{
    struct err e;
    /* Node states first: a job is not started on a node that went down. */
    if (d->rm.ops->node_states &&
        rm_read(d, d->rm.ops->node_states(d->rm.ctx, now, node_changed, d, &e), &e) < 0)
        return -1;
    if (d->rm.ops->resvs && rm_read(d, resvs_poll(d, now, &e), &e) < 0)
        return -1;
    if (!d->rm.ops->intake)
        return 0;
    struct intake in = {d, now};
    struct rm_intake cb = {&in, seen};
    int changed = rm_read(d, d->rm.ops->intake(d->rm.ctx, now, &cb, &e), &e);
    if (changed <= 0)
        return changed;
    for (size_t i = 0; i < d->njobs; i++) {
        struct djob *dj = d->jobs[i];
        if (dj->rec.state != SJ_IDLE || !dj->j || dj->j->state != JOB_IDLE)
            continue;
        char id[32];
        struct rm_status st;
        snprintf(id, sizeof id, "%ld", dj->rec.id);
        if (d->rm.ops->status(d->rm.ctx, id, now, &st, &e) == 0 &&
            (st.state == RM_UNKNOWN || st.state == RM_ENDED))
            gone(d, dj, now);
    }
    return 0;
}
