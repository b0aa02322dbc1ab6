/*
 * sim_rm — the simulator's resource manager behind the resource-manager
 * table (rm/rm.h). A job is found by its engine tag (the workload index)
 * when it starts, by its id afterwards. The event loop (sim.c) takes the
 * ends from the heap in time order; this table is how the driver starts,
 * asks about and stops jobs, as the daemon does with its own resource
 * manager.
 */
#include <stdint.h>
#include <string.h>

#include "engine/engine.h"
#include "sim/sim_int.h"

/* sim.c has made the job's run record (runtab_get) before calling this. */
static int sr_start(void *ctx, const struct rm_job *rj, long now, struct err *err)
{
    struct sim *sim = ctx;
    struct run *r = rj->tag < sim->wl->njobs ? runtab_find(&sim->runs, rj->tag) : NULL;
    if (!r || !r->job)
        return err_set(err, "job %s: not in the workload", rj->id);
    struct sim_outcome *o = &sim->out[rj->tag];
    long end = now + wl_job_runtime(&sim->wl->jobs[rj->tag]);
    long kill = sched_kill_time(sim->s, r->job);
    if (kill < end) {
        end = kill;
        o->killed = 1;
    }
    o->start = now; /* its last run's start too */
    if (o->more)
        o->more->resumed = 0;
    r->end = end;
    heap_push(&sim->ends, r, end, r->job->order);
    return 0;
}

/* The run of job id while the simulated RM has it, or NULL. */
static struct run *run_of(struct sim *sim, const char *id)
{
    struct job *j = sched_find_job(sim->s, id);
    if (!j || j->tag >= sim->wl->njobs)
        return NULL;
    struct run *r = runtab_find(&sim->runs, j->tag);
    return r && r->job == j && r->pos != SIZE_MAX ? r : NULL;
}

static int sr_status(void *ctx, const char *id, long now, struct rm_status *st, struct err *err)
{
    (void)err;
    struct sim *sim = ctx;
    struct run *r = run_of(sim, id);
    memset(st, 0, sizeof *st);
    if (!r) {
        st->state = RM_UNKNOWN;
        return 0;
    }
    st->state = r->end <= now ? RM_ENDED : RM_RUNNING;
    st->end = r->end;
    strcpy(st->reason, sim->out[r->job->tag].killed ? "walltime" : "completed");
    return 0;
}

/* End the job now: its end event moves to now (the loop reports it). */
static int sr_cancel(void *ctx, const char *id, long now, struct err *err)
{
    struct sim *sim = ctx;
    struct run *r = run_of(sim, id);
    if (!r)
        return err_set(err, "job %s is not running", id);
    if (now < r->end) {
        sim->out[r->job->tag].killed = 0; /* stopped before its kill time */
        sim->out[r->job->tag].cancelled = 1;
    }
    r->end = now;
    heap_rekey(&sim->ends, r->pos, now, r->job->order);
    return 0;
}

static int sr_unsupported(void *ctx, const char *id, long now, struct err *err)
{
    (void)ctx;
    (void)now;
    return err_set(err, "job %s: suspending and resuming are not simulated", id);
}

static void sr_forget(void *ctx, const char *id)
{
    (void)ctx;
    (void)id;
}

const struct rm_ops sim_rm_ops = {
    .name = "simulator",
    .nodes = NULL, /* the configuration, options or trace say */
    .start = sr_start,
    .status = sr_status,
    .cancel = sr_cancel,
    .suspend = sr_unsupported,
    .resume = sr_unsupported,
    .requeue = sr_cancel,
    .forget = sr_forget,
};
