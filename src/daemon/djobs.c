/*
 * djobs — the daemon's jobs: each stored record (store/) paired with its
 * engine job, the resource manager's side of a start (rm/local), the ends
 * the resource manager reports, and the restore after a restart.
 * Preemption (OWNERPREEMPT) is dpreempt.c's.
 *
 * A job's engine name is its id in decimal; its engine tag indexes
 * d->jobs. Job records change only inside the caller's transaction (one per
 * iteration or request), so what the engine did and what the store says
 * commit together.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "daemon/daemon_int.h"
#include "engine/array.h"
#include "engine/engine.h"
#include "policy/fs.h"
#include "util/crashpt.h"
#include "util/mem.h"

/* Walltime of a job that asked for none. */
#define DEFAULT_WALLTIME 86400L

struct djob *djobs_find(struct dmn *d, const char *id)
{
    struct job *j = sched_find_job(d->s, id);
    return j && j->tag < d->njobs ? d->jobs[j->tag] : NULL;
}

/* Why dj failed to start or was ended (NULL: nothing to say): kept in its
 * record (saved by the caller) and shown by checkjob as Messages. */
static void set_message(struct dmn *d, struct djob *dj, const char *text)
{
    free(dj->rec.message);
    dj->rec.message = text ? xstrdup(text) : NULL;
    if (dj->j)
        sched_job_note(d->s, dj->j, text);
}

/* The words of a record's shape (store.h) into spec; unknown ones are
 * skipped (a later moku's). */
static void shape_of(const char *shape, struct job_spec *spec)
{
    spec->tpn = 0;
    char *copy = xstrdup(shape), *save = NULL;
    for (char *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
        long v = strchr(w, '=') ? strtol(strchr(w, '=') + 1, NULL, 10) : 0;
        if (strncmp(w, "tpn=", 4) == 0 && v > 0 && spec->tasks % v == 0)
            spec->tpn = (int)v;
        else if (strncmp(w, "mem_task=", 9) == 0 && v >= 0)
            spec->mem_per_task = v;
        else if (strncmp(w, "mem_node=", 9) == 0 && (v >= 0 || v == JOB_MEM_WHOLE))
            spec->mem_per_node = v;
        else if (strcmp(w, "exclusive") == 0)
            spec->exclusive = 1;
        else if (strncmp(w, "max_nodes=", 10) == 0 && v > 0)
            spec->max_nodes = (int)v;
        else if (strncmp(w, "hosts=", 6) == 0 && !strchr(shape + (w - copy), ' '))
            spec->hosts = shape + (w - copy) + 6; /* the last word: to the end of shape */
    }
    if (spec->hosts)
        spec->tpn = 0; /* the host list gives each node its count */
    free(copy);
}

int djobs_interactive(const struct store_job *r)
{
    if (!r->shape)
        return 0;
    char *copy = xstrdup(r->shape), *save = NULL;
    int yes = 0;
    for (char *w = strtok_r(copy, " ", &save); w && !yes; w = strtok_r(NULL, " ", &save))
        yes = strcmp(w, "interactive") == 0;
    free(copy);
    return yes;
}

/* The engine's request for a stored record. Torque's nodes=N:ppn=P is N
 * distinct nodes with P processors each: N tasks of P processors, one task
 * a node (tpn 1); procs=N is N one-processor tasks anywhere. A resource
 * manager's job (Slurm's) says its shape in rec->shape. */
static void spec_of(const struct store_job *r, char *name, size_t len, size_t tag,
                    struct job_spec *spec)
{
    djobs_name(r, name, len);
    int ppn = r->ppn > 0 ? r->ppn : 1;
    int chunks = r->tasks / ppn > 0 ? r->tasks / ppn : 1;
    *spec = (struct job_spec){
        .name = name,
        .tasks = chunks,
        .procs_per_task = ppn,
        .mem_per_task = r->mem_mb > 0 ? r->mem_mb / chunks : 0,
        .nodes = r->nodes,
        .tpn = r->nodes > 0 ? 1 : 0,
        .features = r->features,
        .walltime = r->walltime > 0 ? r->walltime : DEFAULT_WALLTIME,
        .submit = r->submit,
        .user = r->user,
        .group = r->group,
        .account = r->account,
        .class_ = r->class_,
        .qos = r->qos,
        .tag = tag,
        .holds = r->holds & ~(unsigned)HOLD_SLOT, /* the engine's array.c sets it again */
        .start_after = r->start_after,
        .advres = r->advres,
    };
    if (r->shape)
        shape_of(r->shape, spec);
}

/* The one copy of name (taken: freed when there is one already) that the
 * records point to; NULL stays NULL. */
static char *name_of(struct dmn *d, char *name)
{
    if (!name)
        return NULL;
    if (!d->names.nslots)
        strmap_init(&d->names);
    const char *have = strmap_key(&d->names, name);
    if (have) {
        free(name);
        return (char *)have; /* the map's key is d->name_v's string */
    }
    d->name_v = xgrow(d->name_v, &d->capnames, d->nnames + 1, sizeof *d->name_v);
    d->name_v[d->nnames] = name;
    strmap_put(&d->names, name, d->nnames++);
    return name;
}

/* Queue rec in the engine under a new djob; NULL with err if the engine
 * refuses it (malformed, larger than the cluster). On success the djob
 * has rec's strings (its user, group and directory made d->names'). */
static struct djob *enqueue(struct dmn *d, const struct store_job *rec, struct err *err)
{
    char name[32];
    struct job_spec spec;
    spec_of(rec, name, sizeof name, d->njobs, &spec);
    /* The resource manager has the job: it stays, whatever is down now. */
    spec.any_size = d->rm.ops->intake != NULL;
    struct job *j = sched_submit(d->s, &spec, err);
    if (!j)
        return NULL;
    struct djob *dj = xcalloc(1, sizeof *dj);
    dj->rec = *rec;
    dj->rec.user = name_of(d, rec->user);
    dj->rec.group = name_of(d, rec->group);
    dj->rec.cwd = name_of(d, rec->cwd);
    dj->j = j;
    j->bypass = rec->bypass;
    if (rec->message)
        sched_job_note(d->s, j, rec->message);
    if (rec->sysprio_mode != SYSPRIO_NONE)
        sched_set_sysprio(d->s, j, (enum job_sysprio)rec->sysprio_mode, rec->sysprio, NULL);
    d->jobs = xgrow(d->jobs, &d->capjobs, d->njobs + 1, sizeof *d->jobs);
    d->jobs[d->njobs++] = dj;
    darray_apply(d, dj);
    ddep_apply(d, dj);
    return dj;
}

/* Write the job's script (kept in the store) where its user can run it:
 * 0700, owned by the user when the daemon is root. Not synced: the store
 * has it, and a lost file is written again at the next start. */
static char *write_script(struct dmn *d, const struct store_job *rec, struct err *err)
{
    char *text;
    if (store_script_get(d->st, rec->id, &text, err) <= 0) {
        if (!err->msg[0])
            err_set(err, "job %ld: no script stored", rec->id);
        return NULL;
    }
    char *dir = xprintf("%s/scripts", d->home);
    if (mkdir(dir, 0711) == 0)
        chmod(dir, 0711); /* past the daemon's umask 077: users reach their own script */
    char *path = xprintf("%s/%ld", dir, rec->id);
    free(dir);
    unlink(path); /* a leftover, maybe not ours to write into */
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0700);
    size_t len = strlen(text);
    int ok = fd >= 0 && write(fd, text, len) == (ssize_t)len;
    free(text);
    if (ok && geteuid() == 0)
        ok = fchown(fd, (uid_t)rec->uid, (gid_t)rec->gid) == 0;
    if (fd >= 0 && close(fd) != 0)
        ok = 0;
    if (!ok) {
        err_set(err, "%s: cannot write the job script: %s", path, strerror(errno));
        unlink(path);
        free(path);
        return NULL;
    }
    return path;
}

struct djob *djobs_add(struct dmn *d, struct store_job *rec, const char *script, struct err *err)
{
    char name[32];
    struct job_spec spec;
    struct err e;
    rec->id = 0;
    spec_of(rec, name, sizeof name, 0, &spec);
    spec.name = ""; /* no id yet: the reason must not name one */
    if (sched_job_fit(d->s, &spec, SCHED_FIT_ALL, &e) != SCHED_FITS) {
        err_set(err, "refused, it could never run here: the job %s", e.msg);
        return NULL;
    }
    if (sched_submit_allowed(d->s, &spec, &e) < 0) {
        err_set(err, "refused: %s", e.msg);
        return NULL;
    }
    if (ddep_check(d, rec->depend, err) < 0)
        return NULL;
    if (store_job_add(d->st, rec, err) < 0 ||
        (script && store_script_put(d->st, rec->id, script, err) < 0) ||
        darray_first_task(d, rec, err) < 0)
        return NULL;
    size_t bytes = (script ? strlen(script) : 0) + (rec->env ? strlen(rec->env) : 0);
    struct djob *dj = enqueue(d, rec, err);
    if (!dj)
        return NULL;
    dj->bytes = bytes;
    memset(rec, 0, sizeof *rec); /* the djob owns the strings now */
    return dj;
}

struct djob *djobs_adopt(struct dmn *d, struct store_job *rec, struct err *err)
{
    char name[32];
    struct job_spec spec;
    struct err e;
    spec_of(rec, name, sizeof name, 0, &spec);
    /* Not refused for the nodes now up, nor a HARD limit it exceeds alone:
     * a node down now may be back, and the job waits, blocked, with the
     * reason in checkjob. Refused when no node as configured could hold its
     * shape (a task's processors or memory, its tasks per node), whatever
     * its features and partition (those the job-submit plugin and Slurm
     * judge; an OR of features moku cannot read waits, blocked). */
    struct job_spec shape = spec;
    shape.features = NULL;
    shape.partition = NULL;
    if (sched_job_fit(d->s, &shape, SCHED_FIT_NODES | SCHED_FIT_CONFIGURED, &e) != SCHED_FITS) {
        err_set(err, "it could never run here: the job %s", e.msg);
        return NULL;
    }
    if (sched_submit_allowed(d->s, &spec, &e) < 0) {
        err_set(err, "%s", e.msg);
        return NULL;
    }
    if (store_job_add_as(d->st, rec, err) < 0)
        return NULL;
    struct djob *dj = enqueue(d, rec, err);
    if (!dj)
        return NULL;
    memset(rec, 0, sizeof *rec);
    return dj;
}

static int slot_order(const void *a, const void *b)
{
    const struct job_slot *x = a, *y = b;
    return (x->node > y->node) - (x->node < y->node);
}

/* "n1:2,n2:4" (host:processors) or "n1:2:800,..." (and MB of memory) into
 * engine slots, in node order. */
static int parse_hosts(struct dmn *d, const char *hosts, struct job_slot **out, size_t *n)
{
    size_t cap = 0;
    *out = NULL;
    *n = 0;
    char *copy = xstrdup(hosts ? hosts : ""), *save = NULL;
    int rc = 0;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *colon = strchr(tok, ':'), *end = NULL;
        long procs = colon ? strtol(colon + 1, &end, 10) : 0, mem = 0;
        if (end && *end == ':')
            mem = strtol(end + 1, &end, 10);
        if (colon)
            *colon = '\0';
        long idx = sched_find_node(d->s, tok);
        if (idx < 0 || procs <= 0 || mem < 0 || (end && *end)) {
            rc = -1;
            break;
        }
        *out = xgrow(*out, &cap, *n + 1, sizeof **out);
        (*out)[(*n)++] = (struct job_slot){(unsigned)idx, 1, (unsigned)procs, (unsigned)mem};
    }
    free(copy);
    if (*n > 1)
        qsort(*out, *n, sizeof **out, slot_order);
    return rc;
}

/* A running job adopted at a restart accrues fairshare usage from the
 * ledger's clock on, and that clock only moves forward: adopted after a job
 * that started later (jobs come back in id order, not start order), it
 * would lose the seconds in between. They are charged here: from its start
 * (or the checkpoint the ledger was restored from, if later) to the
 * ledger's clock. */
static void charge_adopted(struct dmn *d, struct djob *dj, long start)
{
    long from = start > d->fs_saved_at ? start : d->fs_saved_at;
    long at = fs_now(sched_fs(d->s));
    if (at > from)
        sched_fs_charge(d->s, dj->j, from, at);
}
/* Copy the strings of a record the store is about to free. */
static void own_strings(struct store_job *rec)
{
    char **strs[] = {&rec->name,     &rec->user,     &rec->group,       &rec->account,
                     &rec->class_,   &rec->qos,      &rec->hosts,       &rec->script,
                     &rec->cwd,      &rec->out_path, &rec->err_path,    &rec->advres,
                     &rec->env,      &rec->message,  &rec->mail_events, &rec->mail_users,
                     &rec->features, &rec->shape,    &rec->depend};
    for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++)
        *strs[i] = *strs[i] ? xstrdup(*strs[i]) : NULL;
}

/* Takes r whole (store_jobs_active_lean): its strings become the djob's,
 * not copied once more for each of 100,000 jobs, and its script and
 * environment are read only when it starts (bytes: their size, for
 * MAXSUBMITBYTES). */
static int restore_one(void *ctx, struct store_job *r, long long bytes)
{
    struct dmn *d = ctx;
    struct store_job rec = *r;
    memset(r, 0, sizeof *r);
    struct err e;
    struct djob *dj = enqueue(d, &rec, &e);
    if (!dj) {
        dlog(d->log, 0, "job %ld cannot be restored: %s", rec.id, e.msg);
        store_job_free(&rec);
        return 0;
    }
    dj->lean = 1;
    dj->bytes = (size_t)bytes;
    if (rec.state == SJ_SUSPENDED && dpreempt_restore(d, dj, time(NULL)))
        return 0; /* queued again */
    if (rec.state == SJ_SUSPENDED)
        dj->j->flags |= JOB_SUSPENDED;
    if (rec.state == SJ_RUNNING || rec.state == SJ_SUSPENDED) {
        struct job_slot *slots;
        size_t n = 0;
        if (parse_hosts(d, rec.hosts, &slots, &n) < 0 ||
            sched_adopt(d->s, dj->j, rec.start, slots, n, &e) < 0)
            dlog(d->log, 0,
                 "job %ld runs on nodes this configuration lacks (%s); it is "
                 "watched but not counted",
                 rec.id, rec.hosts ? rec.hosts : "");
        else if (rec.state == SJ_RUNNING)
            charge_adopted(d, dj, rec.start);
        free(slots);
    }
    return 0;
}

/* Ended jobs, newest first from the store, kept to be added oldest first. */
struct history {
    struct store_job *recs;
    size_t n, cap;
};

static int collect_ended(void *ctx, const struct store_job *r)
{
    struct history *h = ctx;
    h->recs = xgrow(h->recs, &h->cap, h->n + 1, sizeof *h->recs);
    h->recs[h->n] = *r;
    own_strings(&h->recs[h->n]);
    h->n++;
    return 0;
}

/* The jobs that ended since the statistics began (at most HISTORY_MAX), as
 * history in the engine: checkjob and showstats see them after a restart. */
#define HISTORY_MAX 100000

static void restore_history(struct dmn *d, long since)
{
    struct history h = {0};
    struct err e;
    if (store_jobs_ended(d->st, since, HISTORY_MAX, collect_ended, &h, &e) < 0)
        dlog(d->log, 0, "warning: job history not loaded: %s", e.msg);
    for (size_t i = h.n; i-- > 0;) {
        struct store_job *r = &h.recs[i];
        char name[32];
        struct job_spec spec;
        spec_of(r, name, sizeof name, d->njobs, &spec);
        spec.holds = 0;
        spec.start_after = 0;
        struct job *j = sched_add_ended(d->s, &spec, r->start, r->end, r->state == SJ_REMOVED,
                                        r->exit_status, NULL);
        if (!j) {
            store_job_free(r);
            continue;
        }
        /* Ended after the last fairshare checkpoint: its usage since then
         * was never saved. */
        if (r->start > 0 && r->end > d->fs_saved_at)
            sched_fs_charge(d->s, j, r->start > d->fs_saved_at ? r->start : d->fs_saved_at, r->end);
        if (r->message)
            sched_job_note(d->s, j, r->message);
        struct djob *dj = xcalloc(1, sizeof *dj);
        dj->rec = *r;
        dj->rec.user = name_of(d, r->user);
        dj->rec.group = name_of(d, r->group);
        dj->rec.cwd = name_of(d, r->cwd);
        dj->j = j;
        darray_apply(d, dj); /* an ended task is still its array's: qstat folds it */
        d->jobs = xgrow(d->jobs, &d->capjobs, d->njobs + 1, sizeof *d->jobs);
        d->jobs[d->njobs++] = dj;
    }
    free(h.recs);
}

int djobs_restore(struct dmn *d, struct err *err)
{
    char v[32];
    long since = d->started;
    if (store_kv_get(d->st, "stats_since", v, sizeof v, NULL) == 1)
        since = atol(v);
    else
        store_kv_set(d->st, "stats_since", (snprintf(v, sizeof v, "%ld", since), v), NULL);
    d->stats_since = since;
    restore_history(d, since);
    if (store_jobs_active_lean(d->st, restore_one, d, err) < 0)
        return -1;
    struct err e;
    if (store_scripts_prune(d->st, &e) < 0) /* ended jobs' scripts a moku before this kept */
        dlog(d->log, 0, "warning: %s", e.msg);
    return 0;
}

/* The host list of j: one nodefile line per processor, and "n:p,..." */
static char **host_lines(struct dmn *d, const struct job *j, size_t *n, char **hosts)
{
    size_t cap = 0, hcap = 0, hlen = 0;
    char **lines = NULL;
    *n = 0;
    *hosts = NULL;
    for (size_t k = 0; k < j->nslots; k++)
        for (unsigned i = 0; i < j->slots[k].nnodes; i++) {
            const char *name = sched_node(d->s, j->slots[k].node + i)->name;
            for (unsigned p = 0; p < j->slots[k].procs; p++) {
                lines = xgrow(lines, &cap, *n + 1, sizeof *lines);
                lines[(*n)++] = (char *)name;
            }
            size_t add = strlen(name) + 32;
            *hosts = xgrow(*hosts, &hcap, hlen + add, 1);
            hlen += (size_t)snprintf(*hosts + hlen, add, "%s%s:%u", hlen ? "," : "", name,
                                     j->slots[k].procs);
            if (j->slots[k].mem) /* memory booked: kept, so that a restart books it again */
                hlen += (size_t)snprintf(*hosts + hlen, add, ":%u", j->slots[k].mem);
        }
    return lines;
}

int djobs_rm_start(void *ctx, struct job *j, long now)
{
    struct dmn *d = ctx;
    struct djob *dj = d->jobs[j->tag];
    struct err e = {{0}};
    int old = dpreempt_clear_old_run(d, dj, now);
    if (old != 0)
        return old; /* its preempted run still holds its spool directory: later, or failed */
    if (djrec_warm(d, dj, &e) < 0) {
        dlog(d->log, 0, "job %s could not start: %s", j->name, e.msg);
        return -1;
    }
    int inter = djobs_interactive(&dj->rec);
    /* The resource manager has the scripts of its own jobs; an interactive
     * job has none (the user's shell runs on qsub's terminal). */
    if (!d->rm.ops->intake && !inter) {
        char *script = write_script(d, &dj->rec, &e);
        if (!script) {
            dlog(d->log, 0, "job %s could not start: %s", j->name, e.msg);
            return -1;
        }
        free(dj->rec.script);
        dj->rec.script = script;
    }
    size_t n;
    char *hosts, rid[32], task[48];
    char **lines = host_lines(d, j, &n, &hosts);
    snprintf(rid, sizeof rid, "%ld", dj->rec.id); /* its spool's name: a task's own id too */
    djobs_name(&dj->rec, task, sizeof task);
    struct rm_job rj = {
        .id = rid,
        .array_task = dj->rec.array_id > 0 ? task : NULL,
        .name = dj->rec.name,
        .user = dj->rec.user,
        .uid = (uid_t)dj->rec.uid,
        .gid = (gid_t)dj->rec.gid,
        /* local_job's contract: an interactive job's script is an absolute
         * path, never opened */
        .script = inter ? "/dev/null" : dj->rec.script,
        .interactive = inter,
        .cwd = dj->rec.cwd,
        .out_path = dj->rec.out_path,
        .err_path = dj->rec.err_path,
        .env = dj->rec.env,
        .hosts = (const char *const *)lines,
        .nhosts = n,
        .tasks = j->tasks,
        .procs_per_task = j->procs_per_task,
        .walltime = j->walltime,
        .vmem_mb = dj->rec.vmem_mb,
        .nice = dj->rec.nice,
        .tag = j->tag,
    };
    /* The start is made durable before the job is launched: a daemon that
     * dies in between finds a RUNNING record with no spool directory and
     * queues the job again (djobs_poll). The other order would leave a
     * running job the store calls idle, started a second time. */
    free(dj->rec.hosts);
    dj->rec.hosts = hosts;
    dj->rec.state = SJ_RUNNING;
    dj->rec.start = now;
    djrec_save(d, dj);
    store_event(d->st, now, dj->rec.id, "start", hosts, NULL);
    if (store_commit(d->st, &e) < 0 || store_begin(d->st, &e) < 0) {
        dlog(d->log, 0, "error: job %s not started: %s", j->name, e.msg);
        djrec_commit_failed(d);
        store_begin(d->st, NULL);
        free(lines);
        return -1;
    }
    crashpt("start-committed");
    int rc = d->rm.ops->start(d->rm.ctx, &rj, now, &e);
    crashpt("start-launched");
    free(lines);
    if (rc < 0) {
        dlog(d->log, 0, "job %s could not start: %s", j->name, e.msg);
        dj->rec.state = SJ_IDLE;
        dj->rec.start = 0;
        free(dj->rec.hosts);
        dj->rec.hosts = NULL;
        char *why = xprintf("the last start failed: %s", e.msg);
        set_message(d, dj, why);
        free(why);
        djrec_save(d, dj);
        store_event(d->st, now, dj->rec.id, "startfail", e.msg, NULL);
        return -1;
    }
    if (dj->rec.message) { /* an earlier failed start: this one went well */
        set_message(d, dj, NULL);
        djrec_save(d, dj);
    }
    /* A resource manager with a queue of its own (Slurm) runs it a moment
     * later: Starting until it says Running. */
    if (d->rm.ops->intake)
        j->flags |= JOB_STARTING;
    dlog(d->log, 1, "job %s started on %s", j->name, dj->rec.hosts);
    dmail_job(d, dj, DMAIL_BEGIN, NULL);
    return 0;
}

/* What to tell of an end the job did not choose: its start failed (the
 * supervisor's reason), its walltime ran out, it was lost. Caller frees;
 * NULL for an ordinary end. */
static char *end_message(const struct djob *dj, const struct rm_status *st)
{
    if (st->state == RM_NEVER)
        return xstrdup("never started: its start was cut short (the daemon stopped during it)");
    if (st->state != RM_ENDED)
        return xstrdup("lost: the resource manager has neither its supervisor nor its exit "
                       "status (the machine restarted?)");
    if (strcmp(st->reason, "failed") == 0)
        return xprintf("could not start: %s",
                       st->message[0] ? st->message : "the supervisor gave no reason");
    if (strcmp(st->reason, "walltime") == 0) /* Maui's words, which users search for */
        return xprintf("job exceeded wallclock limit: killed after %ld s, its walltime is %ld s",
                       (st->end > 0 ? st->end : dj->rec.end) - dj->rec.start,
                       dj->j ? dj->j->walltime : dj->rec.walltime);
    return NULL;
}

/* The resource manager says dj ended (or is gone): record it, tell the
 * engine, clean its spool. */
static void ended(struct dmn *d, struct djob *dj, const struct rm_status *st, long now)
{
    dj->rec.exit_status = st->state == RM_ENDED ? st->exit_code : -1;
    dj->rec.end = st->state == RM_ENDED && st->end > 0 ? st->end : now;
    /* Killed at its walltime by the resource manager: Removed, as Maui
     * shows a job it removed for exceeding its wallclock limit. A job whose
     * program never ran (its start failed) did not complete either: Removed
     * (issue 30). */
    int removed = strcmp(st->reason, "cancelled") == 0 || strcmp(st->reason, "walltime") == 0 ||
                  (st->state == RM_ENDED && st->never_ran);
    if (dj->rec.state != SJ_REMOVED)
        dj->rec.state = removed ? SJ_REMOVED : SJ_COMPLETED;
    if (dj->j && dj->j->state == JOB_RUNNING) {
        /* At its real end: fairshare charges it no further (it may have
         * ended while the daemon was down). */
        sched_job_ended(d->s, dj->j, dj->rec.end < now ? dj->rec.end : now);
        dj->j->exit_status = dj->rec.exit_status;
        if (dj->rec.state == SJ_REMOVED)
            dj->j->state = JOB_REMOVED; /* cancelled while running: shown as Removed */
    }
    dpreempt_ended(d, dj);
    char *why = end_message(dj, st);
    if (why)
        set_message(d, dj, why);
    djrec_save(d, dj);
    char text[64];
    snprintf(text, sizeof text, "exit %d %s", dj->rec.exit_status,
             st->state == RM_ENDED ? st->reason : "lost");
    store_event(d->st, now, dj->rec.id, "end", text, NULL);
    dlog(d->log, 1, "job %ld ended: %s%s%s", dj->rec.id, text, why ? ": " : "", why ? why : "");
    dmail_job(d, dj, why ? DMAIL_ABORT : DMAIL_END, why);
    free(why);
    crashpt("end-recorded"); /* not committed yet: the spool still tells the end */
    /* Its spool goes once the end is committed (djobs_forget): a daemon
     * dying before that finds the status file again. */
    d->forget = xgrow(d->forget, &d->capforget, d->nforget + 1, sizeof *d->forget);
    d->forget[d->nforget++] = dj->rec.id;
}

void djobs_forget(struct dmn *d)
{
    for (size_t i = 0; i < d->nforget; i++) {
        char id[32];
        snprintf(id, sizeof id, "%ld", d->forget[i]);
        d->rm.ops->forget(d->rm.ctx, id);
        char *path = xprintf("%s/scripts/%ld", d->home, d->forget[i]);
        unlink(path);
        free(path);
    }
    d->nforget = 0;
}

/* A job the store says started but the resource manager never saw, or saw
 * only the beginning of (the daemon died between the two, or in the middle
 * of the start): it waits again, what is left of the start removed. The
 * start intent is the committed Running record; this is its reconciliation. */
/* Starts in a row the resource manager may leave undone for a reason that
 * should pass (moku's picture was late) before the next is a failed start:
 * a reason misread as passing must not make a start every iteration. */
#define RETRY_MAX 3

static void never_started(struct dmn *d, struct djob *dj, const struct rm_status *st, long now)
{
    char id[32];
    snprintf(id, sizeof id, "%ld", dj->rec.id);
    d->rm.ops->forget(d->rm.ctx, id);
    dj->retries = st->retry ? dj->retries + 1 : 0;
    int failed = st->failed_start || dj->retries >= RETRY_MAX;
    if (dj->retries >= RETRY_MAX)
        dj->retries = 0;
    if (dj->j && dj->j->state == JOB_RUNNING) {
        dj->j->flags &= ~(unsigned)JOB_STARTING;
        if (failed)
            sched_start_failed(d->s, dj->j, now, NULL);
        else if (st->ran)
            sched_requeue(d->s, dj->j, now, NULL);
        else
            sched_start_undone(d->s, dj->j, now, NULL);
        /* Usage taken back: a fairshare checkpoint in this iteration's
         * commit (fs_close, after this poll), or a restart would count
         * again what the last checkpoint held of it. */
        if (!st->ran)
            d->last_fs_save = 0;
        /* Held there since its start (its user, an administrator): held here. */
        if (st->holds && dj->j->state == JOB_IDLE) {
            sched_hold(d->s, dj->j, st->holds, NULL);
            dj->rm_holds = st->holds & (HOLD_USER | HOLD_SYSTEM);
        }
    }
    dj->rec.state = SJ_IDLE;
    dj->rec.start = 0;
    free(dj->rec.hosts);
    dj->rec.hosts = NULL;
    const char *why = st->message[0] ? st->message : "never started";
    if (st->message[0])
        set_message(d, dj, st->message);
    djrec_save(d, dj);
    store_event(d->st, now, dj->rec.id, failed ? "startfail" : "requeue", why, NULL);
    if (!st->message[0])
        dlog(d->log, 0, "job %ld was never started by the resource manager: queued again",
             dj->rec.id);
    else if (failed)
        dlog(d->log, 0, "job %ld: start failed: %s", dj->rec.id, st->message);
    else if (st->retry)
        dlog(d->log, 0, "job %ld: start not carried out, started again: %s", dj->rec.id,
             st->message);
    else
        dlog(d->log, 0, "job %ld requeued: %s", dj->rec.id, st->message);
}

/* Where the resource manager runs dj, when it told it (st->placed): booked
 * as it is, if the engine's choice differs (Slurm's own split of the tasks,
 * whole nodes, its memory defaults). */
static int same_slots(const struct job_slot *a, size_t na, const struct job_slot *b, size_t nb)
{
    if (na != nb)
        return 0;
    for (size_t k = 0; k < na; k++)
        if (a[k].node != b[k].node || a[k].procs != b[k].procs || a[k].mem != b[k].mem)
            return 0;
    return 1;
}

static void placed(struct dmn *d, struct djob *dj, const struct rm_status *st, long now)
{
    if (!st->placed || !dj->j || dj->j->state != JOB_RUNNING)
        return;
    struct job_slot *slots, *had;
    size_t n, nhad;
    struct err e;
    int ok = parse_hosts(d, st->placed, &slots, &n) == 0 && n > 0;
    int same =
        ok && parse_hosts(d, dj->rec.hosts, &had, &nhad) == 0 && same_slots(slots, n, had, nhad);
    if (ok && !same)
        free(had);
    if (same) {
        free(had);
        free(slots);
        return;
    }
    if (!ok || sched_job_reslot(d->s, dj->j, slots, n, now, &e) < 0) {
        dlog(d->log, 0, "job %ld runs on %s, which moku cannot book: %s", dj->rec.id, st->placed,
             n ? e.msg : "nodes it does not have");
        free(slots);
        return;
    }
    free(slots);
    dlog(d->log, 1, "job %ld runs on %s in %s (moku chose %s): booked as it runs", dj->rec.id,
         st->placed, d->rm.ops->name, dj->rec.hosts ? dj->rec.hosts : "-");
    free(dj->rec.hosts);
    dj->rec.hosts = xstrdup(st->placed);
    djrec_save(d, dj);
    store_event(d->st, now, dj->rec.id, "placed", st->placed, NULL);
}

void djobs_poll(struct dmn *d, long now)
{
    for (size_t i = 0; i < d->njobs; i++) {
        struct djob *dj = d->jobs[i];
        if (dj->draining) { /* queued again: that end is its preempted run's */
            dpreempt_drain(d, dj, now);
            continue;
        }
        if (dj->rec.state != SJ_RUNNING && dj->rec.state != SJ_SUSPENDED &&
            !(dj->rec.state == SJ_REMOVED && dj->rec.start && !dj->rec.end))
            continue;
        char id[32];
        struct rm_status st;
        struct err e;
        snprintf(id, sizeof id, "%ld", dj->rec.id);
        if (d->rm.ops->status(d->rm.ctx, id, now, &st, &e) < 0) {
            dlog(d->log, 0, "job %s: %s", id, e.msg);
            continue;
        }
        if (st.state == RM_RUNNING && dj->j && dj->j->state == JOB_RUNNING) {
            if (st.starting) {
                dj->j->flags |= JOB_STARTING;
            } else {
                dj->j->flags &= ~(unsigned)JOB_STARTING;
                dj->retries = 0;
            }
            placed(d, dj, &st, now);
        }
        if ((st.state == RM_UNKNOWN || st.state == RM_NEVER) && dj->rec.state == SJ_RUNNING)
            never_started(d, dj, &st, now);
        else if (st.state == RM_ENDED || st.state == RM_LOST || st.state == RM_UNKNOWN ||
                 st.state == RM_NEVER)
            ended(d, dj, &st, now);
    }
}

void djobs_free(struct dmn *d)
{
    for (size_t i = 0; i < d->njobs; i++) {
        struct store_job *r = &d->jobs[i]->rec;
        r->user = r->group = r->cwd = NULL; /* d->names' */
        store_job_free(&d->jobs[i]->rec);
        free(d->jobs[i]->rm_note);
        free(d->jobs[i]);
    }
    free(d->jobs);
    d->jobs = NULL;
    d->njobs = d->capjobs = 0;
    for (size_t i = 0; i < d->nnames; i++)
        free(d->name_v[i]);
    free(d->name_v);
    d->name_v = NULL;
    d->nnames = d->capnames = 0;
    if (d->names.nslots)
        strmap_free(&d->names);
    memset(&d->names, 0, sizeof d->names);
    free(d->forget);
    d->forget = NULL;
    d->nforget = d->capforget = 0;
}
