/*
 * dsubmit — a submission (qsub, msub, moku submit): the job's fields read
 * (cmd/qsub_json.c), the disk and the user's limits checked (dspace.c),
 * then the job stored and queued in one transaction, or, under a resource
 * manager with its own queue (Slurm), submitted there as its user. A
 * submission that carries a token is answered once: a retry gets the first
 * answer (and job) again.
 */
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cfg/cfg.h"
#include "cmd/qsub.h"
#include "daemon/daemon_int.h"
#include "daemon/dreply.h"
#include "daemon/dsubmit.h"
#include "util/arange.h"
#include "util/crashpt.h"
#include "util/mem.h"

/* One more word at the end of a shape (store.h's words, space-separated). */
static void shape_add(char **shape, const char *word)
{
    char *more = xprintf("%s%s%s", *shape ? *shape : "", *shape ? " " : "", word);
    free(*shape);
    *shape = more;
}

/* The qsub request as a stored job record of peer p. */
static void record_of(const struct qsub_req *q, const struct peer *p, long now, struct store_job *r)
{
    *r = (struct store_job){
        .name = q->name ? xstrdup(q->name) : NULL,
        .user = xstrdup(p->user),
        .group = xstrdup(p->group),
        .uid = (long)p->uid,
        .gid = (long)p->gid,
        .account = q->account ? xstrdup(q->account) : NULL,
        .class_ = q->queue ? xstrdup(q->queue) : NULL,
        .qos = q->qos ? xstrdup(q->qos) : NULL,
        .tasks = q->tasks,
        .ppn = q->nodes ? q->ppn : 1,
        .nodes = q->nodes,
        .mem_mb = q->mem_mb,
        .walltime = q->walltime,
        .submit = now,
        .start_after = q->start_after,
        .holds = q->hold ? HOLD_USER : 0,
        .state = SJ_IDLE,
        .exit_status = -1,
        .cwd = xstrdup(q->cwd),
        .out_path = q->out_path ? xstrdup(q->out_path) : NULL,
        .err_path = q->err_path ? xstrdup(q->err_path) : NULL,
        .advres = q->advres ? xstrdup(q->advres) : NULL,
        .depend = q->depend ? xstrdup(q->depend) : NULL,
        .mail_events = q->mail_events ? xstrdup(q->mail_events) : NULL,
        .mail_users = q->mail_users ? xstrdup(q->mail_users) : NULL,
        .vmem_mb = q->vmem_mb,
        .nice = q->nice,
    };
    if (q->exclusive) /* the shape's words (store.h); tpn 1 keeps nodes=N:ppn=P's one a node */
        r->shape = xstrdup(q->nodes > 0 ? "tpn=1 exclusive" : "exclusive");
    if (q->interactive) /* a word of the shape (store.h), before hosts=, the last */
        shape_add(&r->shape, "interactive");
    if (q->hosts) { /* the last word (store.h): one-processor tasks, so many a host */
        char *more =
            xprintf("%s%shosts=%s", r->shape ? r->shape : "", r->shape ? " " : "", q->hosts);
        free(r->shape);
        r->shape = more;
    }
    for (size_t i = 0; i < q->nfeatures; i++) { /* the engine reads "a,b" */
        char *more =
            xprintf("%s%s%s", r->features ? r->features : "", i ? "," : "", q->features[i]);
        free(r->features);
        r->features = more;
    }
    size_t len = 0;
    for (size_t i = 0; i < q->nenv; i++)
        len += strlen(q->env[i].name) + strlen(q->env[i].value) + 2;
    if (len) {
        r->env = xmalloc(len + 1);
        size_t off = 0;
        for (size_t i = 0; i < q->nenv; i++)
            off += (size_t)sprintf(r->env + off, "%s=%s\n", q->env[i].name, q->env[i].value);
    }
}

/* -j oe / eo: both streams into one file, the -o (or -e) one. */
static void join_streams(const struct qsub_req *q, struct store_job *r)
{
    char id[48];
    darray_file_id(r, id, sizeof id); /* "12", or an array task's "12-3" */
    if (q->join == QSUB_JOIN_NONE)
        return;
    char **keep = q->join == QSUB_JOIN_OE ? &r->out_path : &r->err_path;
    char **drop = q->join == QSUB_JOIN_OE ? &r->err_path : &r->out_path;
    size_t n = *keep ? strlen(*keep) : 0;
    if (!*keep || (*keep)[n - 1] == '/') { /* none, or DIR/: Torque's name (in DIR) */
        char *file = xprintf("%s%s%s.%c%s", *keep ? *keep : r->cwd, *keep ? "" : "/",
                             r->name ? r->name : "STDIN", q->join == QSUB_JOIN_OE ? 'o' : 'e', id);
        free(*keep);
        *keep = file;
    }
    free(*drop);
    *drop = xstrdup(*keep);
}

/* The first answer to a submission with this token from p, or NULL (then
 * the submission is new). */
static json_t *answered_before(struct dmn *d, const struct peer *p, const char *token)
{
    char *text = NULL;
    struct err e;
    int known = token ? store_token_get(d->st, (long)p->uid, token, &text, &e) : 0;
    if (known < 0)
        return dreply_err("submit: the state database is unavailable: %s", e.msg);
    if (!known)
        return NULL;
    json_t *r = json_loads(text, 0, NULL);
    free(text);
    dlog(d->log, 1, "submission from %s sent again (token %s): its first answer repeated", p->user,
         token);
    return r ? r : dreply_err("submit: the stored answer to token %s is damaged", token);
}

/* Inside the submission's transaction: the answer r under p's token, so
 * that a retry gets it again. */
static int remember_answer(struct dmn *d, const struct peer *p, const char *token, long now,
                           const json_t *r, struct err *err)
{
    if (!token)
        return 0;
    char *text = json_dumps(r, JSON_COMPACT);
    int rc = text ? store_token_put(d->st, (long)p->uid, token, now, text, err)
                  : err_set(err, "the answer could not be encoded");
    free(text);
    return rc;
}

/* A job array (qsub -t, -J) within MAXJOBARRAYSIZE: its range as given,
 * or NULL with err. qsub checked the syntax against the most any
 * configuration allows; this daemon's bound may be lower. */
static const char *array_ok(const struct dmn *d, const struct qsub_req *q, struct err *err)
{
    const char *v = q->array ? q->array : q->array_pbs;
    long long max = cfg_int(d->cfg, "MAXJOBARRAYSIZE", NULL);
    struct arange a;
    int rc = q->array ? arange_parse_torque(v, (size_t)max, &a, err)
                      : arange_parse_pbs(v, (size_t)max, &a, err);
    if (rc < 0)
        return NULL;
    arange_free(&a);
    return v;
}

/* Under a resource manager with its own queue (Slurm): the job goes there,
 * as p; it is taken in at the next iteration (dintake.c) under the id
 * answered. A retry with the same token finds the first job. */
static json_t *submit_to_rm(struct dmn *d, const struct peer *p, const struct qsub_req *q,
                            const char *token)
{
    if (q->advres)
        return dreply_err("submit: ADVRES with RMCFG TYPE=%s is not supported yet",
                          d->rm.ops->name);
    if (q->depend) /* sbatch --dependency is what that resource manager's users give */
        return dreply_err("submit: -W depend= with RMCFG TYPE=%s is not supported yet",
                          d->rm.ops->name);
    struct err ae;
    const char *array = NULL;
    if ((q->array || q->array_pbs) && !(array = array_ok(d, q, &ae)))
        return dreply_err("submit: %s %s", q->array ? "-t" : "-J", ae.msg);
    if (q->vmem_mb || q->nice) /* Slurm's --nice is a scheduling factor, not a process's */
        return dreply_err("submit: -l %s with RMCFG TYPE=%s is not supported: that resource "
                          "manager has no per-job %s",
                          q->nice ? "nice" : "vmem", d->rm.ops->name,
                          q->nice ? "process nice value" : "address space limit");
    char *features = NULL;
    for (size_t i = 0; i < q->nfeatures; i++) {
        char *more = xprintf("%s%s%s", features ? features : "", i ? "," : "", q->features[i]);
        free(features);
        features = more;
    }
    char **env = xcalloc(q->nenv + 1, sizeof *env);
    for (size_t i = 0; i < q->nenv; i++)
        env[i] = xprintf("%s=%s", q->env[i].name, q->env[i].value);
    struct rm_submit s = {
        .user = p->user,
        .uid = p->uid,
        .gid = p->gid,
        .name = q->name,
        .script = q->script,
        .shell = q->shell,
        .cwd = q->cwd,
        .out_path = q->join == QSUB_JOIN_EO ? q->err_path : q->out_path,
        .err_path = q->join == QSUB_JOIN_NONE ? q->err_path : NULL,
        .join = q->join != QSUB_JOIN_NONE,
        .account = q->account,
        .class_ = q->queue,
        .qos = q->qos,
        .features = features,
        .hosts = q->hosts,
        .tasks = q->tasks,
        .nodes = q->nodes,
        .ppn = q->ppn,
        .mem_mb = q->mem_mb,
        .walltime = q->walltime,
        .start_after = q->start_after,
        .hold = q->hold,
        .exclusive = q->exclusive,
        .rerunnable = q->rerunnable,
        .mail_events = q->mail_events,
        .mail_users = q->mail_users,
        .env = (const char *const *)env,
        .nenv = q->nenv,
        .token = token,
        .array = array,
    };
    long id = 0;
    struct err e;
    int rc = d->rm.ops->submit(d->rm.ctx, &s, &id, &e);
    for (size_t i = 0; i < q->nenv; i++)
        free(env[i]);
    free(env);
    free(features);
    if (rc < 0)
        return dreply_err("submit: %s", e.msg);
    crashpt("rm-submitted"); /* the client tries again: its token finds this job */
    dlog(d->log, 1, "job %ld submitted to %s by %s", id, d->rm.ops->name, p->user);
    d->want_iter = 1; /* taken in soon */
    char text[32];
    snprintf(text, sizeof text, "%ld\n", id);
    return dreply_ok(text);
}

/* Whether a job may ask for class (qsub -q) on the local resource manager:
 * DEFAULT, or a class maui.cfg names (CLASSCFG[name]). Torque refuses a
 * queue its server does not have; so does moku, rather than make a class
 * no limit or priority of the configuration applies to. */
static int queue_known(const struct dmn *d, const char *class_)
{
    return strcmp(class_, "DEFAULT") == 0 || cfg_obj_find(d->cfg, "CLASSCFG", class_) != NULL;
}

/* qsub -W group_list=G: the job runs as group G and is charged to it, when
 * the user is a member (its login group, or listed in G's members; the
 * kernel's supplementary groups of the client are not on the wire, so the
 * group database is asked, as Torque's server does). *as is p with G. */
static int group_of(const struct peer *p, const char *name, struct peer *as, struct err *err)
{
    *as = *p;
    if (!name)
        return 0;
    char buf[16384];
    struct group gr, *g = NULL;
    if (getgrnam_r(name, &gr, buf, sizeof buf, &g) != 0 || !g)
        return err_set(err, "-W group_list=%s: no such group", name);
    int member = g->gr_gid == p->gid;
    for (char **m = g->gr_mem; m && *m && !member; m++)
        member = strcmp(*m, p->user) == 0;
    if (!member && p->uid != 0)
        return err_set(err, "-W group_list=%s: user %s is not a member of group %s", name, p->user,
                       name);
    as->gid = g->gr_gid;
    snprintf(as->group, sizeof as->group, "%s", g->gr_name);
    return 0;
}

/* Torque's refusal of an unknown queue: PBSE_UNKQUE (15018) modulo 256. */
#define EX_UNKQUE 170

static json_t *unknown_queue(const char *class_)
{
    return json_pack("{s:b, s:i, s:s++}", "ok", 0, "exit", EX_UNKQUE, "error",
                     "submit: submit error (Unknown queue MSG=requested queue not found: ", class_,
                     ")");
}

/* Cancel the engine jobs of tasks whose submission was not saved: the
 * engine must not run what the store does not know. */
static void drop_tasks(struct dmn *d, struct djob **made, size_t n, long now)
{
    for (size_t i = 0; i < n; i++) {
        sched_cancel(d->s, made[i]->j, now, NULL);
        made[i]->rec.state = SJ_REMOVED;
    }
}

/* The tasks of a job array (qsub -t, -J) on the local resource manager,
 * after the checks of an ordinary submission: one record and engine job a
 * task, ids consecutive, the first task's id naming the array, in the
 * request's one transaction, so that all are stored or none. Tasks beyond
 * a %N slot limit are stored waiting for a slot (HOLD_SLOT: darray.c). The
 * answer is Torque's "12[]". */
static json_t *submit_array(struct dmn *d, const struct peer *p, const struct qsub_req *q,
                            const char *token, size_t bytes)
{
    struct err e;
    struct arange a;
    const char *v = q->array ? q->array : q->array_pbs;
    long long max = cfg_int(d->cfg, "MAXJOBARRAYSIZE", NULL);
    if ((q->array ? arange_parse_torque(v, (size_t)max, &a, &e)
                  : arange_parse_pbs(v, (size_t)max, &a, &e)) < 0)
        return dreply_err("submit: %s %s", q->array ? "-t" : "-J", e.msg);
    /* One task was checked; each task is a job and keeps its own copy of
     * the script. */
    if (a.n > 1 && dspace_submit_ok(d, p->uid, bytes * a.n, a.n, 1, &e) < 0) {
        arange_free(&a);
        return dreply_err("submit: refused: %s", e.msg);
    }
    json_t *bad = dreply_begin(d);
    if (bad) {
        arange_free(&a);
        return bad;
    }
    long now = time(NULL);
    struct djob **made = xcalloc(a.n, sizeof *made);
    size_t n = 0;
    for (; n < a.n; n++) {
        struct store_job rec;
        record_of(q, p, now, &rec);
        rec.array_id = n ? made[0]->rec.array_id : DARRAY_FIRST;
        rec.array_index = a.idx[n];
        rec.array_slots = a.slots;
        if (a.slots)
            rec.holds |= HOLD_SLOT; /* until the engine gives it a slot (darray_apply) */
        struct djob *dj = djobs_add(d, &rec, q->script, &e);
        if (!dj) {
            store_job_free(&rec);
            break;
        }
        made[n] = dj;
        join_streams(q, &dj->rec);
        djrec_save(d, dj);
        store_event(d->st, now, dj->rec.id, "submit", p->user, NULL);
    }
    json_t *r = NULL;
    if (n < a.n) {
        r = dreply_err("submit: array task %u: %s", a.idx[n], e.msg);
    } else {
        char id[48];
        snprintf(id, sizeof id, "%ld[]\n", made[0]->rec.array_id);
        r = dreply_ok(id);
        if (remember_answer(d, p, token, now, r, &e) < 0) {
            json_decref(r);
            r = dreply_err("submit: %s", e.msg);
        }
    }
    if (!json_is_true(json_object_get(r, "ok"))) {
        store_rollback(d->st);
        drop_tasks(d, made, n, now);
    } else {
        r = dreply_commit(d, r);
        if (json_is_true(json_object_get(r, "ok"))) {
            for (size_t i = 0; i < n; i++)
                dspace_submitted(d, p->uid, bytes);
            if (!store_group_pending(d->st))
                crashpt("submit-committed");
            dlog(d->log, 1, "job array %ld[] (%zu tasks) submitted by %s", made[0]->rec.array_id, n,
                 p->user);
        } else {
            drop_tasks(d, made, n, now);
        }
    }
    free(made);
    arange_free(&a);
    return r;
}

json_t *dsubmit_job(struct dmn *d, const struct peer *client, const json_t *job, const char *token)
{
    struct qsub_req q;
    struct err e;
    json_t *again = answered_before(d, client, token);
    if (again)
        return again;
    if (qsub_from_json(job, &q, &e) < 0)
        return dreply_err("submit: %s", e.msg);
    struct peer as;
    const struct peer *p = &as; /* the client, in the group the job asks for */
    if (group_of(client, q.group, &as, &e) < 0) {
        qsub_free(&q);
        return dreply_err("submit: %s", e.msg);
    }
    if (q.nice < 0 && client->admin != 1 && client->uid != 0) {
        /* Below 0 a job's processes would take the CPU from everyone else's. */
        json_t *r = dreply_err("submit: nice=%d: only root or an ADMIN1 user may run a job "
                               "below nice 0",
                               q.nice);
        qsub_free(&q);
        return r;
    }
    if (q.interactive && d->rm.ops->submit) {
        /* Slurm's own tools give a terminal on an allocation; a relay
         * through this daemon and slurmd would be a second, weaker one. */
        qsub_free(&q);
        return dreply_err("submit: interactive jobs (qsub -I) are not run under RMCFG "
                          "TYPE=SLURM: use Slurm's salloc, or srun --pty $SHELL");
    }
    if (geteuid() != 0 && p->uid != geteuid()) {
        qsub_free(&q);
        return dreply_err("submit: this daemon runs as uid %ld and can run only that user's "
                          "jobs (start it as root to serve every user)",
                          (long)geteuid());
    }
    size_t bytes = q.script ? strlen(q.script) : 0; /* interactive: none */
    for (size_t i = 0; i < q.nenv; i++)
        bytes += strlen(q.env[i].name) + strlen(q.env[i].value) + 2; /* "K=V\n" */
    if (dspace_submit_ok(d, p->uid, bytes, 1, !d->rm.ops->submit, &e) < 0) {
        qsub_free(&q);
        return dreply_err("submit: refused: %s", e.msg);
    }
    if (d->rm.ops->submit) {
        json_t *r = submit_to_rm(d, p, &q, token);
        qsub_free(&q);
        return r;
    }
    if (q.queue && !queue_known(d, q.queue)) {
        json_t *no = unknown_queue(q.queue);
        qsub_free(&q);
        return no;
    }
    if (q.advres && !sched_resv_name_known(d->s, q.advres)) {
        json_t *no = dreply_err("submit: ADVRES:%s names no reservation", q.advres);
        qsub_free(&q);
        return no;
    }
    if (q.array || q.array_pbs) {
        json_t *r = submit_array(d, p, &q, token, bytes);
        qsub_free(&q);
        return r;
    }
    json_t *bad = dreply_begin(d);
    if (bad) {
        qsub_free(&q);
        return bad;
    }
    long now = time(NULL);
    struct store_job rec;
    record_of(&q, p, now, &rec);
    struct djob *dj = djobs_add(d, &rec, q.script, &e);
    if (!dj) {
        store_rollback(d->st);
        store_job_free(&rec);
        qsub_free(&q);
        return dreply_err("submit: %s", e.msg);
    }
    /* The row as inserted is the job's, unless -j names its file after the
     * id or the engine set a hold or priority of its own (a dependency):
     * writing it again was a tenth of a submission's time (issue 31). */
    join_streams(&q, &dj->rec);
    if (q.join != QSUB_JOIN_NONE || djrec_stale(d, dj))
        djrec_save(d, dj);
    store_event(d->st, now, dj->rec.id, "submit", p->user, NULL);
    qsub_free(&q);
    char id[32];
    snprintf(id, sizeof id, "%ld\n", dj->rec.id);
    json_t *r = dreply_ok(id);
    if (remember_answer(d, p, token, now, r, &e) < 0) {
        json_decref(r);
        store_rollback(d->st);
        sched_cancel(d->s, dj->j, now, NULL);
        dj->rec.state = SJ_REMOVED;
        return dreply_err("submit: %s", e.msg);
    }
    r = dreply_commit(d, r);
    if (json_is_true(json_object_get(r, "ok"))) {
        dspace_submitted(d, p->uid, bytes);
        if (!store_group_pending(d->st)) /* in a group: after the group's commit (serve.c) */
            crashpt("submit-committed"); /* a client with no answer tries again */
        dlog(d->log, 1, "job %ld submitted by %s", dj->rec.id, p->user);
    } else {
        /* Not saved: the engine must not run what the store does not know. */
        sched_cancel(d->s, dj->j, now, NULL);
        dj->rec.state = SJ_REMOVED;
    }
    return r;
}
