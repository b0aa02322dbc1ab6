/*
 * sim — the simulator driver: replays a workload through the engine in
 * simulated time.
 *
 * Semantics (what the reference schedules assume): at each distinct event
 * time, first every job that ends then completes, then every job submitted
 * then is queued, then one scheduling iteration runs. A job ends at
 * start + runtime, or at its kill time (start + walltime + JOBMAXOVERRUN)
 * if that comes first. Timed commands (sim_hooks.script) run at their
 * instants between the submissions and the iteration. The simulator plays the resource manager: it
 * "starts" a job when the engine asks and reports its end when the time
 * comes. It reads no clock except for the optional progress callback.
 */
#ifndef MOKU_SIM_H
#define MOKU_SIM_H

#include <limits.h>
#include <stddef.h>

#include "core/sched.h"
#include "sim/sim_script.h"
#include "sim/workload.h"

struct cfg;

/* What happened to one workload job (same index as workload.jobs). */
struct sim_outcome {
    long start, end; /* -1 if it has not started / not ended */
    int backfilled;
    int rejected; /* refused at submission (more processors than the cluster) */
    int killed;   /* ended at its kill time, before its runtime */
    int preempted; /* times it was preempted for a reservation's owner (OWNERPREEMPT) */
};

/* The cluster's state as one scheduling iteration left it. */
struct sim_sample {
    long now;             /* the iteration's time */
    long long busy_procs; /* processors the running jobs asked for (wl_job_procs) */
    long long up_procs;   /* processors of the nodes that are up (sched_up_procs) */
    size_t idle;          /* jobs in the queue (sched_nidle) */
    size_t running;       /* jobs running (sched_nrunning) */
};

/* What the driver's caller wants to hear about during a replay (any
 * member may be NULL). */
struct sim_hooks {
    /* Called now and then with jobs submitted so far. */
    void (*progress)(void *ctx, size_t done, size_t total);
    /* Called after every scheduling iteration (the state holds until the
     * next one): O(1), so the caller decides what to keep (plots). */
    void (*sample)(void *ctx, const struct sim_sample *smp);
    /* Fairshare (FSPOLICY set): a usage window ended, slot 1 of the ledger
     * (sched_fs) holds it; called once per window, in time order, as
     * simulated time passes its end. At the end of the replay it is called
     * once more with slot 0, the current window so far. This is where FS
     * data files are written (stats/fsfile.h). */
    void (*fs_window)(void *ctx, struct sched *s, int slot);
    /* Timed commands (moku simulate --commands), or NULL. Each runs through
     * the command layer (cmd_runv) as the administrator, control commands
     * allowed, at its time: after that instant's ends and submissions,
     * before its iteration. The replay wakes at each command's time even
     * when no job event falls on it; commands after `until` do not run.
     * canceljob of a running job ends it at once (its end is that instant).
     * cfg is what showconfig shows (may be NULL); epoch_offset is added to
     * times printed as dates, as for --show. */
    const struct sim_script *script;
    const struct cfg *cfg;
    long epoch_offset;
    /* Called after each command with its answer, or with err when it failed
     * (the replay goes on); the other is NULL. */
    void (*command)(void *ctx, const struct sim_script_cmd *cmd, const char *out, const char *err);
    /* A standing reservation's TRIGGER exec or submit action came due: a
     * replay runs nothing, it only tells (NULL: dropped silently). */
    void (*trigger)(void *ctx, const struct sched_fired *f);
    void *ctx;
};

/* Replay to the end of the workload. */
#define SIM_FOREVER LONG_MAX

/*
 * Replay wl through s (which holds the nodes and the policy; its
 * resource-manager callbacks are replaced for the run). out has wl->njobs
 * entries. With until < SIM_FOREVER the replay stops after the scheduling
 * iteration at time `until` (one is run at that instant even when no event
 * falls on it); jobs still running then keep end = -1. Returns the number of
 * rejected jobs. Fairshare windows close on the epoch clock set with
 * sched_set_epoch; the ledger starts at the first event's time unless the
 * caller advanced it already (to load FS data files first).
 */
size_t sim_run(struct sched *s, const struct workload *wl, struct sim_outcome *out, long until,
               const struct sim_hooks *hooks);

#endif
