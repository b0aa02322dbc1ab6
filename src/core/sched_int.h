/*
 * sched_int — the scheduler object's inside, shared by the engine's own
 * modules (core/, policy/, engine/); never included by a driver, which
 * includes engine/engine.h.
 */
#ifndef MOKU_SCHED_INT_H
#define MOKU_SCHED_INT_H

#include <stdint.h>

#include "core/never.h"
#include "core/sched.h"
#include "util/heap.h"
#include "util/pool.h"
#include "util/sort.h"
#include "util/strmap.h"

struct avail;      /* policy/avail.h: the plan holds its profiles by pointer */
struct limits;     /* policy/limits.h: the throttling limits, by pointer */
struct array_name; /* engine/array.c: an array's name, shared by its tasks */

/* Nodes alike for placement — same size, features and partition, covered by
 * the same reservations — share one availability profile (policy/plan.c;
 * ../shared/reference/availability.md: groups, not nodes). */
struct region_rv {
    struct resv *r;
    struct avail *inner; /* processors r reserves here that its own jobs do not hold */
};
struct region {
    struct avail *free; /* processors no job holds and no reservation reserves */
    long long cap;      /* up processors */
    size_t nnodes;
    size_t node;          /* one of its nodes: features, partition, size */
    int maxprocs;         /* processors of its largest node: no bigger task fits */
    int *caps;            /* its nodes' up processors, ascending, nnodes of them (jobs with
                             tasks per node count the nodes that can hold their share);
                             NULL until a rebuild has seen the nodes */
    struct region_rv *rv; /* the reservations covering its nodes */
    size_t nrv;
    /* The last access answer (policy/plan.c): for job cj starting at ct,
     * in plan cgen. ACL checks are the costly part of a query. */
    const struct job *cj;
    long ct, cw; /* start and walltime asked about (TIMELIMIT answers depend on both) */
    unsigned long cgen;
    uint64_t cmask;
    int clevel;
    /* Tasks of shape_ppt processors and shape_mpt MB its nodes hold when
     * all free (a task never spans nodes); shape_ppt 0: not yet asked
     * (policy/plan.c). */
    long shape_ppt, shape_mpt, shape_tasks;
    /* Memory (policy/plan.c): free MB over time, when every node of the
     * region has a known memory (else NULL: memory is not planned there),
     * and the memory of its largest node. */
    struct avail *mfree;
    long long mcap;
    long node_mem;
};
/* What a job holds in the plan in one region: from the free profile
 * (rv < 0) or from a reservation's inner profile (within its window). */
struct plan_take {
    uint32_t region;
    int32_t rv;
    long long procs;
    long long mem; /* MB, from the region's memory profile (rv < 0 only) */
};
/* Reserved processors a running job uses on one node of a reservation. */
struct resv_charge {
    struct resv *r;
    unsigned k; /* index in r->nodes */
    unsigned procs;
};
/* A reservation covering a node (per-node lists, built with the regions). */
struct node_rv {
    struct resv *r;
    unsigned k;
};

/* The idle queue: idle jobs in priority order (policy/queue.c moves jobs in
 * and out, policy/iter.c and eset.c sort it). Started or removed jobs leave
 * NULL holes that the next full pass compacts. */
struct sched_idleq {
    struct job **queue;
    size_t qlen, qcap;
    size_t qidle;            /* non-NULL entries */
    size_t qhead;            /* entries before qhead are all NULL */
    size_t qscanned;         /* entries [0, qscanned) were examined by the current plan */
    struct sort_buf sortbuf; /* kept between iterations: no allocation per sort */
    /* Recompute rule: set by policy/queue.c when a job is appended that was
     * submitted before the queue's tail, and by policy/eset.c when parked
     * jobs go back into the queue; cleared by policy/iter.c and eset.c once
     * they have sorted the queue. Guards the static order: even when
     * priority is submission order, the queue must be sorted again. */
    int unsorted;
    /* A full pass placing the queue as its scan reads it (policy/qorder.h):
     * while placing, entries [qplaced, qlen) are not placed yet; once done,
     * when loose, entries [qloose, qlen) are the jobs it did not read, in no
     * order and with stale priorities, until qorder_tighten. */
    struct qorder *ord;
    struct qgroup_set *qg;              /* order_holds' table, kept (policy/qgroup.h) */
    size_t qplaced, qloose, qloose_end; /* qloose_end: the queue's length then */
    int placing, loose;
};

/* Reservations (policy/resv.c), in creation order; standing reservations
 * (policy/srcfg.c) and their triggers (policy/trigger.c). */
struct sched_resvs {
    struct resv **resvs;
    size_t nresvs, capresvs;
    unsigned long resv_serial; /* the last struct resv's serial */
    /* Recompute rule: bumped by policy/resv.c when a reservation is made,
     * changed or released, by policy/plan.c when the nodes change, and by
     * engine/ when the epoch moves (standing reservations follow the
     * calendar); never cleared. regions_gen is set to it by policy/plan.c
     * when the regions are rebuilt: while they differ, policy/iter.c and
     * engine/ (runjob) rebuild the regions before they plan. */
    unsigned long resv_gen;
    struct resv **dead; /* released, still named by the regions until they are rebuilt */
    size_t ndead, capdead;
    unsigned long regions_gen; /* the resv_gen the regions were built for (resv_gen's rule) */
    struct resv_seq {
        char *base;
        long next;
    } * seqs; /* next id number per base */
    size_t nseqs, capseqs;
    struct srcfg_def *srdefs; /* standing reservations (policy/srcfg.h) */
    size_t nsrdefs;
    /* Per definition: why its last window could not be placed ("" when it
     * was), how many windows went wanting for reasons that may pass (not
     * counted when it can never place anything: never, -1 not yet known;
     * sched_standing_wanting). */
    struct sr_want {
        char why[160];
        long windows, last;
        int never;
    } * srwant;
    int zone_local;
    long zone_offset, epoch;
    long sr_next; /* standing reservations: next look at the calendar */
    /* Triggers waiting for their time, and exec/submit actions fired for
     * the driver (policy/trigger.c); instance windows a cancel action
     * ended, not to be made again. */
    struct trig {
        long at;
        char *resv;
        size_t def, k;
    } * trigs;
    size_t ntrigs, captrigs;
    struct sched_fired *fired;
    size_t nfired, capfired;
    struct sr_cancelled {
        size_t def;
        long window;
    } * sr_cancelled;
    size_t nsr_cancelled, capsr_cancelled;
    unsigned long sr_gen; /* resv_gen at that look */
    int resv_spent;       /* some reservation is spent (SINGLEUSE): release it */
    int sr_preempted;     /* a standing look released a PREEMPTEE reservation */
};

/* The node table and what placement keeps per node (policy/alloc.c,
 * policy/plan.c; engine/ adds nodes and changes their states). */
struct sched_nodes {
    struct node *nodes;
    size_t nnodes, capnodes;
    struct strmap nodes_byname; /* name -> index; keys are the nodes' own names */
    /* Per node, kept apart from struct node so that allocation walks small
     * dense arrays: node_cap[i] is procs when up, else 0; node_used[i] is
     * what running jobs hold. */
    int *node_cap, *node_used;
    /* Memory the same way, MB: node_mem_cap[i] is the node's memory when it
     * is up and known, else 0 (not counted: any job's memory fits), and
     * node_mem_used[i] what running jobs hold; node_excl[i]: an exclusive
     * job (job_spec.exclusive) runs there. Only jobs that ask for memory or
     * whole nodes look at them. */
    long *node_mem_cap, *node_mem_used;
    unsigned char *node_excl;
    uint64_t *freemap; /* bit i set: node i has processors free (used < cap) */
    /* Bit w set: freemap[w] is not 0, so that a walk passes 4,096 full
     * nodes a word (policy/alloc.c keeps it); freesum_words allocated. */
    uint64_t *freesum;
    size_t freesum_words;
    int maxcap; /* no node_cap has been above it (1: a free node is an empty one) */
    long long up_procs;
    /* Node allocation (policy/alloc.c): the order of NODEALLOCATIONPOLICY
     * over the node table, and per node the user of its jobs (SINGLEUSER;
     * meaningful only while node_jobs[i] > 0) and how many jobs run there. */
    uint32_t *node_order;
    /* Recompute rule: set by policy/plan.c when the nodes change; cleared by
     * policy/alloc.c when it sorts node_order again. Guards node_order. */
    int order_dirty;
    int prio_dynamic; /* some node's PRIORITYF uses a term that changes with use */
    struct cred **node_user;
    int *node_jobs;
    /* Slot arrays of jobs that stopped, kept for the next starts
     * (policy/alloc.c: each has room for SLOTS_SPARE_CAP slots): a replay
     * starts and ends jobs by the 100,000, and a malloc and a free each were
     * a third of placing one. At most as many as jobs ever ran at once;
     * engine/ frees them with the scheduler. */
    struct job_slot **slot_spare;
    size_t nslot_spare, capslot_spare;
};

/* Throttling limits (policy/limits.c) and MAXSUBMITJOBS (core/sched.c). */
struct sched_lim {
    struct limits *limits; /* throttling policies (policy/limits.c) */
    /* Recompute rule: bumped by engine/ when the limits are loaded, a node is
     * added or changes state (processor equivalents) and a job's QOS or
     * walltime changes (per-job limits); never cleared. Read by policy/elig.c
     * (a job's per-job check, j->jobcheck_gen) and policy/eset.c (its
     * per-credential answers): a stamp that differs means "check again". */
    unsigned long limits_gen;
    int maxsubmit_any; /* some credential ever had MAXSUBMITJOBS set (never cleared: a hint) */
    long maxsubmit_default[CRED_NKINDS]; /* a driver's default for DEFAULT objects without
                                            one (sched_default_maxsubmit), 0 = none */
};

/* Fairshare (policy/fs.c, policy/fsacct.c). */
struct sched_fair {
    struct fs *fs;                /* fairshare usage and targets (policy/fs.c) */
    int fs_caps;                  /* some credential has a fairshare cap (^ or %) */
    unsigned long fs_gen;         /* iterations that brought fairshare usage up to date */
    struct prio_setup *prio_kept; /* the priority batches' set-up (fsacct_batch_init) */
};

/* Eligibility (policy/elig.c, policy/eset.c): who is blocked, held or
 * deferred, and what the walks of the idle jobs found. */
struct sched_elig {
    size_t nblocked_jobs; /* idle jobs flagged JOB_BLOCKED */
    size_t nheld;         /* idle jobs with a hold or deferred */
    long next_undefer;    /* earliest end of a deferral (0 = none): re-plan then */
    /* Recompute rule: engine/'s sched_job_blocked sets it to plan_gen + 1
     * after filling the blocked jobs' reasons (policy/elig.c); a new full
     * pass (plan_gen moves) makes it stale. Guards the reasons' words, put
     * together only when asked, once per plan. */
    unsigned long reasons_gen;
    long nsysprio;    /* idle jobs with a system priority */
    long elig_walked; /* when eligibility was last walked: JOB_QSTOP jobs' queue time starts */
    long elig_prev;   /* ... and the walk before (the order an iteration's walks used) */
    long lift_at;     /* the last walk: when time alone first may lift one of its refusals
                         (running jobs' PS and WC running down); AVAIL_NEVER none */
    long again_at;    /* the walks after the starts of the iteration at last_now admitted
                         a job the walks before refused: iterate again then (last_now,
                         or the next poll after a preemption; wake.c) */
    long promoted;    /* jobs the walks admitted that were refused before */
    int capped;       /* the last walks refused some job for a fairshare cap */
    int idle_free;    /* the last whole-queue walks: the idle limits hold every job they may
                         admit at once, so no order of theirs changes what they decide */
    int promotion;    /* this iteration's last walks promoted a job */
    int order_stale;  /* the whole-queue walks after the last iteration's starts restarted
                         a job's queue time: it ranks elsewhere at the next poll than in the
                         queue's order (elig.c's rank_holds) */
    /* Recompute rule: set by engine/ (hold, release, QOS, walltime, sysprio,
     * submit with a start date, credentials loaded), policy/queue.c (requeue,
     * hold) and policy/iter.c (a deferral, a failed start) when something
     * changed that every credential's eligibility may depend on; cleared by
     * policy/eset.c once a walk has looked at every credential, or by
     * policy/elig.c once the parked jobs came back (whole-queue walks).
     * Guards eset's shortcut of walking only the credentials that changed,
     * and the parked jobs' stay out of the queue. */
    int elig_all;
    /* Whole-queue walks (no eset): the jobs refused for ever whose turn
     * would change nothing, out of the queue (JOB_PARKED, j->epos their
     * place here), so that an iteration does not sort, walk and scan them
     * (issue 31). Recompute rule: they come back to the queue when the
     * limits generation moves from park_gen, elig_all is set, eset turns on,
     * fairshare caps come or a command looks at the queue (policy/elig.c). */
    struct job **parked;
    size_t nparked, capparked;
    unsigned long park_gen;
    int park_accrual;  /* JOBPRIOACCRUALPOLICY when they were parked */
    int elig_full;     /* walk the whole queue at every iteration, as Maui (no eset) */
    struct eset *eset; /* idle jobs per credential, when limits allow (policy/eset.c) */
};

/* The plan (policy/iter.c, policy/plan.c, policy/backfill.c): running jobs,
 * the availability profiles and regions, and what the last full pass made
 * (valid while nothing but new submissions happened since). */
struct sched_plan {
    struct heap running; /* running jobs by planned end */
    struct avail *avail; /* free processors over time: running jobs and reservations */
    /* The plan made by the last full pass, valid while nothing but new
     * submissions happened since (see policy/iter.c). */
    /* Recompute rule: set wherever something changes what the plan may
     * decide — engine/ (submit with holds, nodes, hold, release, QOS,
     * walltime, sysprio, limits, a run forced), policy/queue.c (a job
     * leaves the queue, stops, is requeued or held), policy/resv.c (a
     * reservation made, changed or released), policy/preempt.c,
     * policy/plan.c, and policy/iter.c for what time alone changes (usage
     * running down, candidates chosen among, a reserved start come due);
     * cleared only by policy/iter.c when it starts a full pass. Guards the
     * incremental pass: while clear, an iteration plans only the jobs
     * submitted since, around the plan it kept. */
    int replan;
    int plan_blocked;       /* a job in the plan could not start (later starts are backfill) */
    int plan_stopped;       /* the plan stopped at a blocked job (BACKFILLPOLICY NONE), or at
                               one the resource manager cannot start yet (iter.c) */
    int nresv;              /* priority reservations held in the plan */
    unsigned long plan_gen; /* full passes made: stamps the jobs a plan examined */
    struct job **blocked;   /* jobs of this plan that could not start, in order (bypass), but
                               those a quick scan noted (their job records say so) */
    size_t nblocked, capblocked;
    /* The bypass clock (policy/iter.c): backfills counted so far. Each
     * quick scan's notes take a slot (bp[k], 0 < k <= bp_cur; bp[0]: no
     * note): the plan and the free processors it noted them under, and the
     * clock's reading when that plan ended. Slots from bp_first on are the
     * current plan's, whose end is not yet read. */
    long bp_clock;
    struct bp_slot *bp;
    size_t capbp;
    unsigned bp_cur, bp_first;
    struct job **resv; /* the jobs holding them */
    size_t capresv;
    int resgroup_n[SCHED_RESGROUPS]; /* reservations held per RESERVATIONDEPTH group */
    struct job **cand; /* backfill candidates of this pass (BESTFIT, GREEDY, PREEMPT) */
    size_t ncand, capcand;
    long bf_seen;     /* backfill candidates examined in this pass (BACKFILLDEPTH) */
    int bf_capped;    /* ... and BACKFILLDEPTH left some job out */
    int ncand_seen;   /* BESTFIT, GREEDY, PREEMPT chose among candidates in this pass */
    int chunk_hit;    /* chunking: a job of BFCHUNKSIZE or more could not start */
    long last_end;    /* when a job last ended (BFCHUNKDURATION counts from it) */
    int plan_partial; /* the scan stopped at qscanned with no processor free: the rest of
                         the plan is made when asked (sched_complete_plan) */
    int completing;   /* sched_complete_plan is running */
    long last_now;
    /* Regions (policy/plan.c). One region and no reservation: s->pl.avail is
     * its profile and planning is plain counting (multi = 0). */
    struct region *regions;
    size_t nregions;
    uint32_t *node_region;
    size_t *node_rv_off; /* node i's reservations: node_rv[node_rv_off[i] .. [i+1]) */
    struct node_rv *node_rv;
    /* Nodes some job's host list names (job_has_hostlist): each is a region
     * of its own, so that the plan counts it apart. Indexed by node, nnamed
     * long (nodes added later are not named); set at submission, never
     * cleared. */
    unsigned char *named;
    size_t nnamed, nnamed_any;
    int multi;
    long long free_now; /* plan_free_now(s, NULL), valid while free_now_ok */
    /* Recompute rule: cleared by policy/plan.c whenever the profiles change
     * (a job's take applied or removed, the plan advanced to a new now, the
     * regions rebuilt); set by plan_free_now when it recomputes free_now. */
    int free_now_ok;
    /* A full pass's kept hold (policy/iter.c): the job whose reservation at
     * kept_t is still in the profile though dropped, or NULL. */
    struct job *kept;
    long kept_t;
};

struct dep_past;

/* A slot of quick-scan notes (policy/iter.c). */
struct bp_slot {
    long end;          /* the bypass clock when its plan ended (or when noted) */
    long long free;    /* processors free now when noted: why its jobs wait */
    unsigned long gen; /* its plan */
};

struct sched {
    struct sched_policy pol;
    struct sched_rm rm;
    struct sched_stats stats;

    /* Every job not forgotten, by submission order (job.order): jobs[k] is
     * the job of order jobs_base + k, NULL once forgotten; owned. njobs is
     * the next order. A replay forgets the jobs that ended
     * (sched_job_forget) and the window moves past a forgotten prefix, so a
     * million-job trace keeps pointers for the jobs alive, not for all. */
    struct job **jobs;
    size_t njobs, capjobs;
    size_t jobs_base;    /* the order of jobs[0] */
    size_t jobs_head;    /* jobs[0, jobs_head) are known forgotten */
    struct pool jobpool; /* the jobs' records (a replay makes and drops them by the 100,000) */
    struct strmap jobs_byname; /* name -> order (last one wins), built lazily */
    size_t nindexed;           /* orders [0, nindexed) are in jobs_byname */
    struct cred_table *creds[CRED_NKINDS];
    int qdef_any;        /* some credential ever had a QDEF (never cleared: a hint that lets a
                            submission without a QOS skip the search for a default) */
    int cred_weights;    /* credentials weigh jobs apart: QOS weights/targets, CLASSWEIGHT */
    int order_static;    /* this iteration: priority order is submission order */
    int prio_static;     /* the priority parameters allow static order */
    long stopped_need;   /* ... the queue time stopped jobs need to reach their top, if a poll
                            interval or less, else 0 (policy/wake.c: wake_stopped_need) */
    long top_need;       /* ... the queue time any job needs to reach that top, AVAIL_NEVER
                            if never (policy/wake.c: wake_top_need) */
    struct prio_env env; /* cached for priorities (sched_prio_env) */
    /* Recompute rule: cleared by engine/ when a node is added or changes
     * state; set by core/sched.c's sched_prio_env when it recomputes env's
     * totals. Guards env: the cluster's totals, summed once per change. */
    int env_valid;

    /* Jobs suspended by OWNERPREEMPT, waiting for their nodes
     * (policy/preempt.c). */
    struct job **suspended;
    size_t nsuspended, capsuspended;

    /* The parts, each described at its struct above. */
    struct sched_nodes nt;       /* the node table */
    struct sched_idleq q;        /* the idle queue */
    struct sched_elig el;        /* eligibility: blocked, held, deferred; the walks */
    struct sched_lim lim;        /* throttling limits, MAXSUBMITJOBS */
    struct sched_fair fsh;       /* fairshare */
    struct sched_plan pl;        /* running jobs, profiles, regions, the last plan */
    struct sched_resvs rs;       /* reservations, standing ones, triggers */
    struct job **depheld;        /* the jobs held for their dependencies, at most (engine/dep.c): */
    size_t ndepheld, capdepheld; /* judged, not the whole queue */
    size_t ndepremoved;          /* jobs removed because a dependency never will be met */
    int (*dep_lookup)(void *ctx, const char *name, struct dep_past *p); /* engine/dep.h */
    void *dep_lookup_ctx;
    size_t nslotjobs;              /* array tasks held for a slot, at most (engine/array.c) */
    struct array_name *last_array; /* the array name made last, shared by the tasks that
                                      follow with that name (engine/array.c); one reference */
};

/* core/sched.c, the helpers every layer of the engine shares. Whether the
 * queue's priority order is submission order for good. */
int sched_order_is_static(const struct sched *s);
/* Close the queue's holes (started and parked jobs' NULLs). */
void sched_compact_queue(struct sched *s);
/* Why idle job j waits and the plan that found it (*gen): its record's
 * reason, or a later quick-scan note's, which its slot gives (the
 * processors free then against the job's: policy/iter.c). */
enum job_wait sched_wait_of(const struct sched *s, const struct job *j, unsigned long *gen);
/* The name of the QOS a job with credentials c (user, group, account,
 * class) asking for `want` gets (sched_submit's rule); NULL for DEFAULT.
 * Looks only: creates nothing. */
const char *sched_pick_qos(const struct sched *s, const struct cred *const c[4], const char *want);

/* engine/array.c: a task's array name (j->array) given back, freed with
 * the last task that shares it; the engine's own reference (last_array)
 * given back. */
void array_name_drop(char *name);
void array_names_free(struct sched *s);

/* policy/elig.c: which idle jobs are eligible (throttling limits,
 * fairshare caps, holds). Whether eligibility needs a walk of the queue at
 * every iteration: limits or fairshare caps are configured. */
int elig_active(const struct sched *s);
void elig_run(struct sched *s, long now);
/* Whether starting j now keeps its credentials within their active limits
 * at `level`; why gets the violation (len bytes). */
int elig_may_start(struct sched *s, struct job *j, enum lim_level level, char *why, size_t len);
/* j started: count it in active usage, drop its blocked state. */
void elig_started(struct sched *s, struct job *j);
/* Drop j's blocked state (it left the queue or became eligible). */
void elig_unblock(struct sched *s, struct job *j);
/*
 * Reservations and limits (Maui's MPolicyGetEStartTime): whether j, started
 * at t > now, keeps its credentials within their SOFT active limits, given
 * the running jobs still running then and the reservations this plan made;
 * and the next instant after t when that usage falls (a running job's
 * planned end or a reservation's end; AVAIL_NEVER if none).
 */
int elig_fits_at(struct sched *s, struct job *j, long t, long now);
long elig_next_end(const struct sched *s, long t);
/* Fill the blocked jobs' reasons, as the last iteration left the queue. */
void elig_reasons(struct sched *s);
/* After an iteration's starts, the walks again (hard and soft): which idle
 * jobs the limits now admit — whom the starts pushed over a hard limit stops
 * accruing queue time now, and lift_at says when time alone may admit whom
 * they pushed over MAXPS or MAXWC. Whether it admitted a job the walks
 * before the starts refused (a promotion: MAXIJOB). */
int elig_final(struct sched *s, long now);

/* Whole-queue walks: every parked job back into the queue (a command's
 * look, eset turning on); j, parked, leaves the parked list (it leaves the
 * queue). */
void elig_unpark_all(struct sched *s);
void elig_unpark_leave(struct sched *s, struct job *j);
/* At an iteration's start, before the queue is sorted: the parked jobs
 * come back when what kept them out may have changed — the limits (their
 * generation), a job's holds, deferral, QOS or walltime or the credentials
 * (elig_all, which this consumes while no eset reads it), the accrual
 * policy, fairshare caps (a parked job was passed by for having none). */
void elig_sync_parked(struct sched *s);
/* Idle jobs parked out of the queue by the whole-queue walks. */
size_t elig_nparked(const struct sched *s);

/* Whether j is refused for ever while the limits and j stay as they are:
 * its request alone goes over a limit at both levels, or over a per-job
 * limit (as the last walk under the current limits generation found). */
int elig_for_ever(const struct sched *s, const struct job *j);

/* j's queue time starts at t (it accrues); where it starts now. */
void elig_set_qtime(struct job *j, long t);
long elig_qtime(const struct sched *s, const struct job *j, long now);

/* policy/iter.c: the resource manager refused to start j (counted:
 * DEFERSTARTCOUNT failures defer it, DEFERCOUNT deferrals hold it). */
void iter_start_failed(struct sched *s, struct job *j, long now);

/* policy/queue.c: the queue's transitions (the façade checks, these do).
 * A job joins the queue; leaves it (started, cancelled, history); its
 * credentials' live counts drop (it left the system); a running job stops
 * (ended or requeued: it holds nothing afterwards); a running job is
 * requeued (-1 if not running); idle job j gets holds. */
void queue_append(struct sched *s, struct job *j);
void queue_leave(struct sched *s, struct job *j);
void queue_left(struct job *j);
void queue_stop(struct sched *s, struct job *j, long now);
int queue_requeue(struct sched *s, struct job *j, long now);
void queue_hold(struct sched *s, struct job *j, unsigned holds);

/* policy/eset.c: idle jobs credential by credential (see the file). */
void eset_sync(struct sched *s);
void eset_free(struct eset *e);
void eset_add(struct sched *s, struct job *j);
void eset_remove(struct sched *s, struct job *j, int started);
/* j's request or credentials change while it waits: out of its
 * credential's lists (eset_unlist, which says whether it was parked) and
 * back in (eset_relist). A job that was parked goes back to the scan's
 * queue, as an unparked one does; the next walk parks it again if it must
 * (eset_remove then eset_add left it in neither). */
int eset_unlist(struct sched *s, struct job *j);
void eset_relist(struct sched *s, struct job *j, int was_parked);
int eset_parked(const struct sched *s, const struct job *j);
/* The earliest instant, over the components with idle jobs, at which time
 * alone may lift a refusal of their last walks (AVAIL_NEVER: none). */
long eset_lift(const struct sched *s);
/* Whether some credential's first stopped job was submitted before one of
 * its jobs whose queue time accrues (they tie at the top of a priority of
 * queue time alone, and it goes first: wake.c's polls). */
int eset_stopped_before(const struct sched *s);
/* The first instant after now at which jobs whose queue time is stopped may
 * have the top of a priority of queue time alone (stopped_need of queue time
 * from now or from the last poll instant before), where they tie with the
 * jobs that got there first and go by submission (eset.c's wake_order,
 * wake.c's polls). AVAIL_NEVER when they never can. */
long eset_stopped_top(const struct sched *s, long now);
size_t eset_nparked(const struct sched *s);
/* Rebuilding active usage: rates start at zero, each running job adds. */
void eset_begin(struct sched *s);
void eset_running(struct sched *s, const struct job *j, long left);
/* Active usage was rebuilt at now from the running jobs; cross: the first
 * walltime end among them after now (AVAIL_NEVER: none). */
void eset_rebuilt(struct sched *s, long now, long cross);
/* Whether active usage at now is the last rebuild's less what time ran
 * down since (the same running jobs, none past its walltime, the same
 * limits, whole numbers): then it is moved on to now, and is as a rebuild
 * would make it. */
int eset_run_down(struct sched *s, long now);
/* j starts or stops running (or is suspended, or resumed): its
 * credential's active usage moves other than by time. */
void eset_moved(struct sched *s, const struct job *j);
/* The same for a start (iter_mark_running, after elig_started) and a stop
 * (queue_stop), which eset_run_down follows without a rebuild. */
void eset_started(struct sched *s, const struct job *j);
void eset_stopped(struct sched *s, const struct job *j);
/* The next component, from *k on, due for a walk at now (1), or none (0). */
int eset_due(struct sched *s, size_t *k, long now);
/* The next component, from *k on, a job of which started in this iteration. */
int eset_started_due(struct sched *s, size_t *k);
/* Walk component k: its jobs in priority order at now (JOB_QSTOP ones
 * counting queue time from qstop), read with eset_at(i) as far as needed. */
void eset_open(struct sched *s, size_t k, long now, long qstop);
struct job *eset_at(struct sched *s, size_t i);
/* Whether a walk may stop reading where an idle job limit is full. */
int eset_may_cut(const struct sched *s);
/* It does, after i jobs: the jobs it must still look at (valid until the
 * walk reads on: eset_at, eset_skip). */
struct job **eset_rest(struct sched *s, size_t i, size_t *n);
/* The least request, type by type, of the open component's stopped jobs
 * not read yet (0: none left). */
int eset_unread_least(struct sched *s, double least[LIM_NTYPES]);
/* Whether every stopped job of the open component passes its active limits
 * at `level`, and no idle limit is set there: no run of them can be jumped
 * (eset_skip) nor the walk cut before their end (elig.c's full_here). */
int eset_all_pass(struct sched *s, enum lim_level level);
/* Whether the open component's credential runs as many jobs as its active
 * job limit at `level` lets it: every turn refuses its job, noting nothing
 * (active usage does not move in a walk). */
int eset_job_full(struct sched *s, enum lim_level level);
/* A job of the open component. */
const struct job *eset_rep(const struct sched *s);
/* From position i of the walk (eset_at's), past the stopped jobs every one
 * of which the walk at `level` refuses, as its turns would, by their
 * requests alone: the position to go on from. least gets what their turns
 * would have noted (elig.c's note_refusal). *end: 0 at the walk's start. */
size_t eset_skip(struct sched *s, size_t i, size_t *end, enum lim_level level, double least[2]);
/* The same over v[i, n), the rest of a cut walk (eset_rest). */
size_t eset_skip_rest(struct sched *s, struct job *const *v, size_t i, size_t n, size_t *end,
                      enum lim_level level, double least[2]);
/* The open component was walked: remember what its answer depends on,
 * park and unpark its jobs. */
void eset_walked(struct sched *s, long now, long wake, long P, int restarted, int stopped);
/* The open component's idle usage for a walk at level `slot`: from zero, or
 * (only new jobs walked) where the last walk at that level ended; and where
 * this one ended. */
void eset_idle_start(struct sched *s, int slot);
void eset_idle_end(struct sched *s, int slot);
/* j's queue time restarted outside a walk (a release). */
void eset_touch(struct sched *s, struct job *j);
/* After the walks: parked jobs out of the queue, returning ones sorted in. */
void eset_settle(struct sched *s, long now);
/* Every idle job, parked too, in priority order (for the commands). */
struct job *const *eset_all(struct sched *s, size_t *n);
/* Every idle job, parked too, in the order of the last iteration's sort
 * (elig_reasons), in a buffer of its own; priorities left as eset_all's. */
struct job *const *eset_walk_order(struct sched *s, size_t *n);
/* The one kind limits count (limits_single_kind) while eset is on, else -1. */
int eset_kind(const struct sched *s);
/* j's credential's PS and WC run-down rates at this iteration. */
void eset_rates(const struct sched *s, const struct job *j, double *ps, double *wc);

/* policy/fsacct.c: fairshare in the engine. j started / ended: charge its
 * credentials from now on / no longer. */
void fsacct_started(struct sched *s, struct job *j, long now);
void fsacct_ended(struct sched *s, struct job *j, long now);
/* Start of an iteration: bring usage to now. */
void fsacct_iterate(struct sched *s, long now);
/* Before j's priority is computed: make its credentials' fs_delta current
 * (each credential once per iteration). */
void fsacct_job(struct sched *s, const struct job *j);
/* prio_batch_init for s's priorities in env, the batch making the deltas
 * of each combination of credentials current (fsacct_job) the first time
 * it meets it: a job's priority from it needs no fsacct_job first. */
struct prio_batch;
void fsacct_batch_init(struct sched *s, struct prio_batch *b, const struct prio_env *env);
/* After the credentials were configured (targets, priorities, weights): note
 * whether any credential has a cap, forget what the batches kept of them. */
void fsacct_note_caps(struct sched *s);
/* Whether starting j would take one of its credentials past a fairshare
 * cap; why (len bytes, may be NULL) gets Maui-style words. */
int fsacct_over_cap(struct sched *s, const struct job *j, char *why, size_t len);

/* policy/plan.c: the plan's availability, by region when reservations or
 * node classes make nodes differ (see the file's comment). */
void plan_init(struct sched *s);
void plan_destroy(struct sched *s);
/* Regions from the nodes and reservations (after a change); the running
 * jobs' holdings are re-derived. Priority reservations must be dropped. */
void plan_rebuild(struct sched *s, long now);
void plan_advance(struct sched *s, long now);
/* Nodes were added or changed state. */
void plan_nodes_changed(struct sched *s);
/* Job j's hosts become regions of their own at the next rebuild (a no-op
 * when they are already). */
void plan_name_hosts(struct sched *s, const struct job *j);
/* Whether j fits over [t, t + walltime) without touching what others hold
 * or reservations it may not use. */
int plan_fits(struct sched *s, const struct job *j, long t);
/* Earliest t >= from where j fits; AVAIL_NEVER if never. */
long plan_earliest(struct sched *s, const struct job *j, long from);
/* The first instant after t at which what j may use can change: a running
 * job's planned end, a reservation's edge, a TIMELIMIT admission in the
 * regions j may use; AVAIL_NEVER if none. */
long plan_next_change(struct sched *s, const struct job *j, long t);
/* Processors j could have now (for messages and the scan's early stop). */
long long plan_free_now(struct sched *s, const struct job *j);
/* A pass keeping j's hold at `held` in the profile while it looks for its
 * next (policy/iter.c): whether the one-region path answers for it; j's
 * earliest start as if it were released; whether holding j at t puts back
 * the same (then j holds it at t). */
int plan_kept_short(struct sched *s, const struct job *j, long held);
long plan_earliest_kept(struct sched *s, const struct job *j, long from, long held);
int plan_rehold(struct sched *s, struct job *j, long held, long t);
/* A priority reservation for j at t / its release. */
void plan_hold(struct sched *s, struct job *j, long t);
void plan_unhold(struct sched *s, struct job *j);
/* Running job j holds its nodes over [from, to) (after alloc) / no longer. */
void plan_run(struct sched *s, struct job *j, long from, long to);
void plan_unrun(struct sched *s, struct job *j, long from, long to);
/* Reservations j may use over [t, t + walltime): the best affinity it has
 * on the nodes of region g, ACL_NONE when one of them refuses it. */
enum acl_affinity plan_region_access(struct sched *s, const struct job *j, size_t g, long t);
/* Drop the per-region access answers (queries for a pseudo-job, whose
 * address may repeat with other credentials). */
void plan_forget(struct sched *s);
/* Tasks of j region g can hold over [t, t + walltime), by the counts. */
long plan_region_tasks(struct sched *s, const struct job *j, size_t g, long t);
/* Whether region g's nodes can run j at all (features, partition, size). */
int plan_region_usable(const struct sched *s, const struct job *j, size_t g);

/* policy/resv.c */
void resv_free(struct resv *r);
/* Free the released reservations (the regions no longer name them). */
void resv_bury(struct sched *s);
/* Standing reservations: create the instances now due, drop ended ones,
 * top up partial ones (start of an iteration). */
void resv_refresh(struct sched *s, long now);
/* Drop reservations that have ended. */
void resv_expire(struct sched *s, long now);
/* Whether j may use r if started at t (ACL, BYNAME, ADVRES). */
enum acl_affinity resv_access(const struct sched *s, const struct resv *r, const struct job *j,
                              long t);
/* policy/trigger.c */
void trig_created(struct sched *s, const struct resv *r, long now);
void trig_run(struct sched *s, long now);
long trig_next(const struct sched *s);
void trig_free_all(struct sched *s);
/* policy/resv.c: release a standing instance for good (a cancel trigger). */
void resv_cancel_instance(struct sched *s, const char *id);
/* Job j ends at now (not a requeue): a SINGLEUSE reservation it used while
 * the reservation was active is spent, released at the next iteration. */
void resv_job_done(struct sched *s, const struct job *j, long now);

/* policy/preempt.c. OWNERPREEMPT: for idle job j, which cannot start now,
 * preempt running jobs of others on the reservations j's credentials own
 * (flag OWNERPREEMPT) until j fits; 1 if it now fits. */
int preempt_for_owner(struct sched *s, struct job *j, long now);
/* Resume suspended preempted jobs whose nodes are free again. */
void preempt_resume(struct sched *s, long now);
/* A preempted (suspended) job ended or was cancelled: forget it. */
void preempt_forget(struct sched *s, struct job *j);

/* policy/iter.c, for policy/backfill.c: whether j may start now as far as
 * soft active limits go; start it now if it fits (1 if it started). */
int bf_may_start(struct sched *s, struct job *j);
int bf_start(struct sched *s, struct job *j, long now);
/* policy/backfill.c: BESTFIT, GREEDY or PREEMPT over the candidates (in
 * priority order; entries may be NULL). */
void backfill_run(struct sched *s, struct job **cand, size_t n, long now);
/* policy/preempt.c: BACKFILLPOLICY PREEMPT — preempt preemptible backfilled
 * jobs of lower priority until j fits; 1 if it now fits. */
int preempt_for_priority(struct sched *s, struct job *j, long now);

/* policy/iter.c: the scheduling iteration. */
/* Reservations or nodes changed: drop the plan's priority reservations and
 * rebuild the regions (before anything else looks at them). */
void iter_rebuild(struct sched *s, long now);
void iter_run(struct sched *s, long now);
/* policy/wake.c: whether a priority reservation's start fell in
 * (last iteration, now] — a start between job ends that is due (only
 * with reservations, as sched_next_wakeup counts them). */
int wake_reserved_due(const struct sched *s, long now);
/* Start idle job j now on free processors, ignoring policies and
 * reservations (runjob -x); 0 if it started. */
int iter_force_start(struct sched *s, struct job *j, long now);
/* j has its nodes and planned end: it runs from `from` on (usage, limits,
 * plan, running heap, statistics). */
void iter_mark_running(struct sched *s, struct job *j, long from);
/* Idle job j leaves the queue: what its quick-scan note owes, into its
 * bypass count, and why it waited, into j->wait (policy/iter.c). */
void iter_settle_bypass(struct sched *s, struct job *j);

/* policy/alloc.c: choose nodes for j from the free processors now; 0 on
 * success (j->slots filled, node counts updated), -1 if they do not suffice. */
int alloc_job(struct sched *s, struct job *j, long now);
/* Put j on exactly these processors (a job found running after a
 * restart); -1 if a slot names a node that does not exist. */
int alloc_exact(struct sched *s, struct job *j, const struct job_slot *slots, size_t n);
/* Give j's processors back to its nodes and free j->slots. */
void alloc_release(struct sched *s, struct job *j);
/* Charge running job j's processors to the reservations that admit it on
 * its nodes (a rebuild re-derives them). */
void alloc_charge(struct sched *s, struct job *j, long now);
/* Keep freemap in step with node i. */
void alloc_node_changed(struct sched *s, size_t i);

#endif
