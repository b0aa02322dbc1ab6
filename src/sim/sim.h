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
#include <stdint.h>
#include <stdio.h>

#include "engine/engine.h"
#include "sim/sim_script.h"
#include "sim/workload.h"

struct cfg;

/* What only some outcomes have (owned by the outcome; NULL when none): a
 * rejection's reason, and where the job ran when the caller asked for it. */
struct sim_detail {
    char *reason;           /* rejected: why */
    struct job_slot *slots; /* the last run's processors (sim_hooks.record_nodes): */
    struct job_slot one;    /* &one when there is one (no allocation per job) */
    unsigned nslots;
    unsigned own_cap;     /* own's room, in slots */
    struct job_slot *own; /* slots when there are several: kept when the detail is
                             reused (no allocation per job), unless large */
    /* Where it lives: 0 allocated alone; made by sim_run, in blocks (a
     * jobs CSV wants one per job, and a malloc each cost the replay): 1
     * the first of its block, which frees the block, 2 the others. */
    unsigned char block;
    unsigned char resumed; /* its last run began at run_start, not at its start */
    char *segments;        /* earlier runs of a preempted job, "start-end@nodes" joined
                              by ';' (sim_hooks.record_nodes) */
    long run_start;        /* when resumed: when */
    unsigned *wide_cred;   /* its credentials' indices when one is past SIM_CRED_WIDE
                              (sim_outcome.cred), NULL otherwise */
    int preempted;         /* times it was preempted for a reservation's owner (OWNERPREEMPT;
                              sim_outcome_preempted) */
};

/* sim_outcome.cred: the index is in the detail's wide_cred. */
#define SIM_CRED_WIDE 0xFFFFu

/* What happened to one workload job (same index as workload.jobs). One per
 * job of the trace, so kept small (40 bytes): what few jobs have is in
 * `more`. */
struct sim_outcome {
    long start, end; /* -1 if it has not started / not ended; a requeued job's
                        start is its restart, a resumed one keeps its first
                        (its last run's start: sim_run_start) */
    struct sim_detail *more;
    /* The engine's job (sim_outcome_job): 1 + its place in the engine's
     * submission order (sched_job), 0 if rejected. Not a pointer: 4 bytes,
     * and a forgotten job (sim_hooks.forget_ended) is NULL in the engine's
     * list already. 32 bits: a workload holds at most 2^31 lines. */
    uint32_t job;
    /* ended: its credentials (cred->index, per kind; sim_outcome_cred).
     * 16 bits each: a trace rarely has more than a few thousand users, and
     * an index past that is kept in the detail (SIM_CRED_WIDE). */
    unsigned short cred[CRED_NKINDS];
    unsigned char backfilled : 1;
    unsigned char rejected : 1;  /* refused at submission (more processors than the cluster) */
    unsigned char killed : 1;    /* ended at its kill time, before its runtime */
    unsigned char cancelled : 1; /* ended by canceljob while running */
};

/* The start of its last run: its start, or when it was last resumed.
 * (Inline, as the next ones: an output asks each for every job.) */
static inline long sim_run_start(const struct sim_outcome *o)
{
    return o->more && o->more->resumed ? o->more->run_start : o->start;
}
/* Its engine job in s (borrowed: valid while s lives), NULL if rejected,
 * forgotten when it ended (sim_hooks.forget_ended), or s is NULL. */
struct job *sim_outcome_job(const struct sched *s, const struct sim_outcome *o);
/* Times it was preempted for a reservation's owner (OWNERPREEMPT). */
static inline int sim_outcome_preempted(const struct sim_outcome *o)
{
    return o->more ? o->more->preempted : 0;
}
/* An ended job's credential index of kind k (cred->index). */
static inline unsigned sim_outcome_cred(const struct sim_outcome *o, enum cred_kind k)
{
    if (o->cred[k] == SIM_CRED_WIDE && o->more && o->more->wide_cred)
        return o->more->wide_cred[k];
    return o->cred[k];
}

/* Free what the outcomes own (not the array). */
void sim_outcomes_free(struct sim_outcome *out, size_t n);

/* Which node names count up from which (util/hostrange.h), found once for
 * the many jobs of an output: for each node, the last of the run of
 * numbered names that starts there. s may be NULL (no nodes). */
struct sim_noderuns;
struct sim_noderuns *sim_noderuns_create(const struct sched *s);
void sim_noderuns_destroy(struct sim_noderuns *r);

/* Write a run's processors as "name:procs" entries separated by spaces,
 * node names from s; consecutive numbered nodes with the same processors as
 * one range entry, "node[001-128]:1" (util/hostrange.h). runs: s's table
 * (sim_noderuns_create), or NULL to compare the names pair by pair (as
 * slots with nodes added after the table are). */
struct obuf;
void sim_format_slots(struct obuf *f, const struct sched *s, const struct sim_noderuns *runs,
                      const struct job_slot *slots, size_t n);
/* 1 when every slot's nodes are in r's table: sim_format_slots writes
 * them from r alone, without s (another thread may, while s changes). */
int sim_noderuns_holds(const struct sim_noderuns *r, const struct job_slot *slots, size_t n);
/* sim_format_slots for slots r holds (sim_noderuns_holds said 1), from r
 * alone: the check is not made again (a jobs CSV's writer thread, for
 * slots its producer checked). */
void sim_noderuns_format(struct obuf *f, const struct sim_noderuns *r, const struct job_slot *slots,
                         size_t n);
/* The same for a reservation's nodes. */
struct resv_node;
void sim_format_resv_nodes(struct obuf *f, const struct sched *s, const struct resv_node *nodes,
                           size_t n);

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
    /* Keep where each job ran (sim_outcome.slots, .segments): the per-job
     * CSV wants it; plain reports do not pay for it. */
    int record_nodes;
    /* Called after each scheduling iteration (NULL: not). */
    void (*iterated)(void *ctx, const struct sched *s, long now);
    /* Free each job's engine record when it ends (sched_job_forget): for a
     * replay that asks the engine nothing about past jobs (no commands, no
     * --show), so memory grows with the queue, not the trace. The outcome
     * keeps what the report needs (cred, and job = NULL). */
    int forget_ended;
    /* With forget_ended: called when the outcomes of the jobs before `to`
     * (the workload's order) are final, each rejected or ended, so that
     * per-job files are written as the replay goes (NULL: not). What only
     * they want of those outcomes (record_nodes' slots and segments) is
     * dropped after the call, and the details reused: memory grows with
     * the jobs that end out of order, not with the trace. */
    void (*final)(void *ctx, const struct sim_outcome *out, size_t to);
    /* > 0: an iteration at every multiple of this many seconds too (the
     * trace's clock), besides the events, while jobs wait — and after the
     * events have run out, for as long as standing reservations would be
     * followed. A test of the wake-ups (simulate --iterate-every): where
     * they are complete the schedule is the same. */
    long iterate_every;
    void *ctx;
};

/* Replay to the end of the workload. */
#define SIM_FOREVER LONG_MAX

/* With nothing left to happen but standing reservations (which recur for
 * ever), the replay follows them this long after the last progress (a
 * submission, an end, a command, a start) and then ends: their pattern
 * repeats at least weekly, so a week and a day without a start means no
 * start is coming. */
#define SIM_PERIODIC_SPAN (8 * 86400L)
/* Iterations in a row with no progress at which a replay stops whatever is
 * still due (a last guard: wake-ups that each move time forward but never
 * let a job start). */
#define SIM_IDLE_ITERATIONS 100000

/*
 * Replay wl through s (which holds the nodes and the policy; its
 * resource-manager callbacks are replaced for the run). out has wl->njobs
 * entries. The replay ends when no event that remains (a submission, a
 * job's end, a timed command, a reservation's edge, a deferral's end, a
 * reserved start, a fairshare window while usage remains) can start a
 * waiting job; jobs still waiting then are left idle in s (start = -1).
 * With until < SIM_FOREVER the replay stops after its last scheduling
 * iteration at or before `until` — none is added at that instant: s is
 * what the full replay's state is at `until` — with the fairshare windows
 * that ended by then closed; jobs still running keep end = -1. Returns the number of
 * rejected jobs. Fairshare windows close on the epoch clock set with
 * sched_set_epoch; the ledger starts at the first event's time unless the
 * caller advanced it already (to load FS data files first).
 */
size_t sim_run(struct sched *s, const struct workload *wl, struct sim_outcome *out, long until,
               const struct sim_hooks *hooks);

/*
 * sim_run while the workload is still read (to the end, no `until`): the
 * replay runs as far as the jobs known allow, so reading and replaying
 * overlap. wl grows between the calls (its jobs array may move), in
 * submission order as workload_sort leaves it, with wl->ndeps and what
 * the cluster was built from fixed; begin once it holds a job. advance
 * runs every iteration before the last known job's submit time (a job
 * read later may be submitted at that instant too), or with `whole`, once
 * the workload is complete, to the end. end returns the rejected count and
 * the outcomes, one per job (the caller frees them, sim_outcomes_free and
 * free). The schedule is sim_run's on the whole workload.
 */
struct sim_stream;
struct sim_stream *sim_stream_begin(struct sched *s, const struct workload *wl,
                                    const struct sim_hooks *hooks);
void sim_stream_advance(struct sim_stream *st, int whole);
size_t sim_stream_end(struct sim_stream *st, struct sim_outcome **out);

#endif
