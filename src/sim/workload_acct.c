/* workload_acct — see workload_acct.h. */
#include "sim/workload_acct.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/homelog.h"
#include "trace/sacct.h"
#include "trace/tacct.h"
#include "util/mem.h"
#include "util/strmap.h"

/* The home daemon's walltime when a job asked for none (daemon/djobs.c). */
#define HOME_DEFAULT_WALLTIME 86400L

/* One load: the workload, strictness, and the first strict error. */
struct acct_load {
    struct workload *wl;
    const char *path;
    int strict;
    struct err first; /* strict: the first job that cannot be replayed */
    int have_first;
    struct strmap ids; /* Torque: job ids seen */
};

/* A job the log holds but a replay cannot use: skipped and counted, or, in
 * strict mode, remembered as the error (the whole file is read first, so
 * that a syntax error later on wins). */
static void unusable(struct acct_load *ld, long line, const char *id, const char *why)
{
    ld->wl->skipped++;
    if (ld->strict && !ld->have_first) {
        err_set(&ld->first, "%s:%ld: job %s cannot be replayed: %s", ld->path, line, id, why);
        ld->have_first = 1;
    }
}

static long walltime_of(long long asked, long runtime)
{
    long w = asked > 0 ? (long)asked : runtime;
    return w > 0 ? w : 1;
}

/* The common part of a job from any log; its names interned. */
static struct wl_job job_base(struct workload *wl, const char *id, long line, long long submit,
                              long long start, long long end, const struct wl_names *names)
{
    struct wl_job j = {
        .names = workload_names(wl, names),
        .submit = (uint32_t)submit,
        .line = (int32_t)line,
        .procs_per_task = 1,
    };
    wl_job_set_runtime(&j, (long)(end - start));
    workload_set_id(wl, &j, id);
    return j;
}

/* Why the times of a job that ran cannot be replayed, or NULL. */
static const char *bad_times(long long submit, long long start, long long end)
{
    if (submit < 0)
        return "no submit time";
    if (end < 0)
        return "no end time";
    if (end < start)
        return "it ended before it started";
    return NULL;
}

/* ---------------------------------------------------------------- sacct */

static int sacct_job(void *ctx, const struct sacct_rec *r, struct err *err)
{
    struct acct_load *ld = ctx;
    struct workload *wl = ld->wl;
    if (sacct_state_unfinished(r->state)) {
        wl->skipped++;
        wl->unfinished++;
        return 0;
    }
    long long procs = r->ncpus >= 0 ? r->ncpus : r->reqcpus;
    if (r->start < 0 || r->ncpus == 0) { /* cancelled while pending, and the like */
        wl->skipped++;
        return 0;
    }
    const char *why = bad_times(r->submit, r->start, r->end);
    if (!why && procs <= 0)
        why = "no processors (NCPUS)";
    if (why) {
        unusable(ld, r->line, r->id, why);
        return 0;
    }
    long long walltime = walltime_of(r->timelimit, r->end - r->start);
    if (workload_check_job(ld->path, r->line, r->id, r->submit, r->end - r->start, walltime, procs,
                           1, err) < 0)
        return -1;
    struct wl_names nm = {.user = workload_intern(wl, r->user),
                          .group = workload_intern(wl, r->group),
                          .account = workload_intern(wl, r->account),
                          .class_ = workload_intern(wl, r->partition),
                          .qos = workload_intern(wl, r->qos),
                          .nodes = r->nnodes > 0 ? (int)r->nnodes : 0};
    if (r->reqmem_mb > 0) {
        double total = r->reqmem_per == 'c'   ? r->reqmem_mb * (double)procs
                       : r->reqmem_per == 'n' ? r->reqmem_mb * (double)(nm.nodes ? nm.nodes : 1)
                                              : r->reqmem_mb;
        nm.mem = (long)ceil(total / (double)procs);
    }
    struct wl_job j = job_base(wl, r->id, r->line, r->submit, r->start, r->end, &nm);
    wl_job_set_walltime(&j, (long)walltime);
    j.tasks = (int32_t)procs;
    workload_add_recorded(wl, &j, (long)r->start);
    return 0;
}

/* --------------------------------------------------------------- Torque */

static long long torque_procs(const struct tacct_rec *r)
{
    const long long v[] = {r->total_slots, r->exec_slots, r->req_procs, r->req_nodes_procs,
                           r->req_ncpus};
    for (size_t i = 0; i < sizeof v / sizeof *v; i++)
        if (v[i] > 0)
            return v[i];
    return -1;
}

static int torque_job(void *ctx, const struct tacct_rec *r, struct err *err)
{
    struct acct_load *ld = ctx;
    struct workload *wl = ld->wl;
    size_t first;
    if (strmap_get(&ld->ids, r->id, &first)) {
        char why[64];
        snprintf(why, sizeof why, "its exit was recorded already (line %zu)", first);
        unusable(ld, r->line, r->id, why);
        return 0;
    }
    strmap_put(&ld->ids, workload_keep(wl, r->id), (size_t)r->line);
    if (r->start <= 0) { /* deleted before it ran */
        wl->skipped++;
        return 0;
    }
    long long submit = r->qtime >= 0 ? r->qtime : r->ctime >= 0 ? r->ctime : r->etime;
    long long procs = torque_procs(r);
    const char *why = bad_times(submit, r->start, r->end);
    if (!why && procs <= 0)
        why = "no processors (exec_host, Resource_List)";
    if (why) {
        unusable(ld, r->line, r->id, why);
        return 0;
    }
    long long walltime = walltime_of(r->req_walltime, r->end - r->start);
    if (workload_check_job(ld->path, r->line, r->id, submit, r->end - r->start, walltime, procs, 1,
                           err) < 0)
        return -1;
    struct wl_names nm = {.user = workload_intern(wl, r->user),
                          .group = workload_intern(wl, r->group),
                          .account = workload_intern(wl, r->account),
                          .class_ = workload_intern(wl, r->queue),
                          .nodes = r->req_nodect > 0 ? (int)r->req_nodect : 0,
                          .mem = r->req_mem_mb > 0 ? (long)ceil(r->req_mem_mb / (double)procs) : 0};
    struct wl_job j = job_base(wl, r->id, r->line, submit, r->start, r->end, &nm);
    wl_job_set_walltime(&j, (long)walltime);
    j.tasks = (int32_t)procs;
    workload_add_recorded(wl, &j, (long)r->start);
    return 0;
}

/* ------------------------------------------------------------- the home */

static int home_job(void *ctx, const struct store_job *r, struct err *err)
{
    struct acct_load *ld = ctx;
    struct workload *wl = ld->wl;
    char id[32];
    snprintf(id, sizeof id, "%ld", r->id);
    if (r->start <= 0) { /* removed while queued */
        wl->skipped++;
        return 0;
    }
    const char *why = bad_times(r->submit, r->start, r->end);
    if (!why && r->tasks <= 0)
        why = "no processors";
    if (why) {
        unusable(ld, r->id, id, why);
        return 0;
    }
    /* As the daemon asks the engine (daemon/djobs.c): nodes=N:ppn=P is N
     * tasks of P processors, one task a node. */
    int ppn = r->ppn > 0 ? r->ppn : 1;
    int chunks = r->tasks / ppn > 0 ? r->tasks / ppn : 1;
    long long walltime = r->walltime > 0 ? r->walltime : HOME_DEFAULT_WALLTIME;
    if (workload_check_job(ld->path, r->id, id, r->submit, r->end - r->start, walltime, chunks, ppn,
                           err) < 0)
        return -1;
    struct wl_names nm = {.user = workload_intern(wl, r->user),
                          .group = workload_intern(wl, r->group),
                          .account = workload_intern(wl, r->account),
                          .class_ = workload_intern(wl, r->class_),
                          .qos = workload_intern(wl, r->qos),
                          .features = workload_intern(wl, r->features),
                          .advres = workload_intern(wl, r->advres),
                          .nodes = r->nodes > 0 ? r->nodes : 0,
                          .tpn = r->nodes > 0 ? 1 : 0,
                          .mem = r->mem_mb > 0 ? r->mem_mb / chunks : 0};
    struct wl_job j = job_base(wl, id, r->id, r->submit, r->start, r->end, &nm);
    wl_job_set_walltime(&j, (long)walltime);
    j.tasks = chunks;
    j.procs_per_task = (unsigned)ppn;
    workload_add_recorded(wl, &j, r->start);
    return 0;
}

/* ------------------------------------------------------------ together */

/* The end of every load: strict's error, or the workload sorted. */
static int finish(struct acct_load *ld, int rc, struct err *err)
{
    if (ld->ids.keys)
        strmap_free(&ld->ids);
    if (rc == 0 && ld->have_first) {
        if (err)
            *err = ld->first;
        rc = -1;
    }
    if (rc < 0) {
        workload_free(ld->wl);
        return -1;
    }
    workload_sort(ld->wl);
    return 0;
}

int workload_from_sacct(const char *path, int strict, struct workload *wl, struct err *err)
{
    struct acct_load ld = {.wl = wl, .path = path, .strict = strict};
    workload_init(wl);
    return finish(&ld, sacct_scan(path, NULL, sacct_job, &ld, err), err);
}

int workload_from_torque(const char *path, int strict, struct workload *wl, struct err *err)
{
    struct acct_load ld = {.wl = wl, .path = path, .strict = strict};
    workload_init(wl);
    strmap_init(&ld.ids);
    return finish(&ld, tacct_scan(path, NULL, torque_job, &ld, err), err);
}

int workload_from_home(const char *dir, int strict, struct workload *wl, struct err *err)
{
    char *db = homelog_db_path(dir);
    struct acct_load ld = {.wl = wl, .path = db, .strict = strict};
    struct homelog_info info = {0};
    workload_init(wl);
    int rc = finish(&ld, homelog_scan(dir, &info, home_job, &ld, err), err);
    if (rc == 0) {
        wl->unfinished += info.unfinished;
        wl->skipped += info.unfinished;
    }
    free(db);
    return rc;
}
