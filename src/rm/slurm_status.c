/* slurm_status — a job's status as Slurm has it, and its holds mirrored
 * both ways (slurm_int.h).
 *
 * A start is one update (slurm.c); what follows is read here. Running: the
 * first time moku sees it so, Slurm's own allocation is read back (CPUs
 * and memory on each node, `scontrol -d show job`'s) and given to the
 * daemon, which books it if it differs from what the engine chose (Slurm
 * splits tasks its own way over the nodes it is given, gives an exclusive
 * job whole nodes, memory by its defaults). Still pending: why, in Slurm's
 * words. A reason that says moku's picture was late or wrong (Resources,
 * a node gone down) or that Slurm has not scheduled yet is given a grace;
 * then the job is held again and started at the next iteration, and the
 * whole queue is read with its allocations to put the books right. A
 * reason that will not go away by itself (a partition or QOS limit, bad
 * constraints) ends the start at once as a failed start (DEFERTIME). A
 * hold its user or an administrator put on it since, or a requeue after it
 * ran, is what it is, not a failed start.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "rm/slurm_int.h"
#include "util/mem.h"

/* Exported by libslurm, not declared in its header (22.05). */
extern char *slurm_job_reason_string(enum job_state_reason inx);
extern char *slurm_job_state_string(uint32_t inx);
extern void slurm_xfree_ptr(void *ptr);

/* Seconds a released job may wait with Reason=Resources before moku calls
 * its books wrong: Slurm's scheduling pass runs within a second or so. */
#define SLURM_RESOURCES_GRACE 4

/* Seconds a requeued job stays running in moku's books after its old run's
 * cleanup ended. slurmd revokes the old run's credential when it ends it,
 * and refuses every launch of the job whose credential dates from that
 * second or before (Slurm itself makes a requeued job wait two minutes for
 * this): started again in the same second, it fails at once in Slurm
 * (FAILED, exit 1). The revocation is over by the time the job leaves
 * COMPLETING, so a start from the next whole second on is safe; 2 for the
 * daemon's clock read at the iteration's start. */
#define SLURM_REQUEUE_SETTLE 2

static int has_word(const char *text, const char *word)
{
    return text && srm_has_word(text, word);
}

unsigned srm_holds_of(const slurm_job_info_t *x)
{
    unsigned h = 0;
    /* The user's mark (the plugin's), and the hold of a moku submit -h
     * before the mark existed ("moku token=T hold"). */
    if (has_word(x->comment, SRM_USER_HOLD) ||
        (x->comment && strncmp(x->comment, "moku ", 5) == 0 && has_word(x->comment, "hold")))
        h |= RM_HOLD_USER;
    if (x->priority == 0 && x->state_reason == WAIT_HELD)
        h |= RM_HOLD_SYSTEM;
    return h;
}

/* Reasons a released job may wait for a while: Slurm has not scheduled it
 * yet, or moku's picture of the nodes was late or wrong. */
static int passing(uint16_t reason)
{
    switch (reason) {
    case WAIT_NO_REASON:
    case WAIT_PRIORITY:
    case WAIT_RESOURCES:
    case WAIT_TIME:
    case WAIT_NODE_NOT_AVAIL:
    case WAIT_LICENSES:
    case WAIT_RESERVATION:
    case WAIT_FRONT_END:
    case WAIT_CLEANING:
    case WAIT_PROLOG:
    case WAIT_POWER_NOT_AVAIL:
    case WAIT_POWER_RESERVED:
        return 1;
    default:
        return 0;
    }
}

static const char *reason_of(const slurm_job_info_t *x)
{
    return slurm_job_reason_string((enum job_state_reason)x->state_reason);
}

/* ---- where Slurm runs a job ---- */

/* Memory on each node from slurm_sprint_job_info's detail lines
 * ("Nodes=n[1-2] CPU_IDs=0-3 Mem=1000 GRES="): libslurm has no call for it. */
static long mem_on(const char *detail, const char *host)
{
    for (const char *p = detail; p && (p = strstr(p, "Nodes=")); p++) {
        const char *end = strpbrk(p + 6, " \n");
        const char *mem = strstr(p, " Mem=");
        const char *eol = strchr(p, '\n');
        if (!end || !mem || (eol && mem > eol) || p[-1] != ' ')
            continue;
        char *list = xstrndup(p + 6, (size_t)(end - p - 6));
        hostlist_t hl = slurm_hostlist_create(list);
        int hit = hl && slurm_hostlist_find(hl, host) >= 0;
        if (hl)
            slurm_hostlist_destroy(hl);
        free(list);
        if (hit)
            return strtol(mem + 5, NULL, 10);
    }
    return 0;
}

/* "node:procs:mem,..." from x's allocation (x read with SHOW_DETAIL), into
 * sr->placed; NULL when it has none. */
static const char *placed_of(struct slurm_rm *sr, const slurm_job_info_t *x)
{
    free(sr->placed);
    sr->placed = NULL;
    if (!x->job_resrcs || !x->nodes || !*x->nodes)
        return NULL;
    char *detail = slurm_sprint_job_info((slurm_job_info_t *)x, 0);
    hostlist_t hl = slurm_hostlist_create(x->nodes);
    size_t cap = 0, len = 0;
    char *h;
    while (hl && (h = slurm_hostlist_shift(hl))) {
        int cpus = slurm_job_cpus_allocated_on_node(x->job_resrcs, h);
        long mem = sr->mem_tracked ? mem_on(detail, h) : 0;
        size_t add = strlen(h) + 48;
        sr->placed = xgrow(sr->placed, &cap, len + add, 1);
        len += (size_t)snprintf(sr->placed + len, add, "%s%s:%d", len ? "," : "", h,
                                cpus > 0 ? cpus : 0);
        if (mem > 0)
            len += (size_t)snprintf(sr->placed + len, add, ":%ld", mem);
        free(h);
    }
    if (hl)
        slurm_hostlist_destroy(hl);
    slurm_xfree_ptr(detail);
    return sr->placed;
}

/* The allocation of job id, read alone (a start just carried out). */
static const char *placed_now(struct slurm_rm *sr, uint32_t id)
{
    job_info_msg_t *msg = NULL;
    struct err e;
    if (srm_ctld_up(sr, &e) < 0 || slurm_load_job(&msg, id, SHOW_DETAIL) != SLURM_SUCCESS)
        return NULL;
    const char *p = msg->record_count ? placed_of(sr, &msg->job_array[0]) : NULL;
    slurm_free_job_info_msg(msg);
    return p;
}

/* ---- a start not (yet) carried out ---- */

/* Whether x is held (priority 0) as a hold: its user's, an administrator's,
 * moku's queue; not Slurm's own priority 0 of a job it found BadConstraints,
 * which Slurm releases at the next update of the job. */
static int held_so(const slurm_job_info_t *x)
{
    return x->priority == 0 && (x->state_reason == WAIT_HELD || x->state_reason == WAIT_HELD_USER);
}

/* Whether job id runs in Slurm after all, read alone after moku held it:
 * Slurm may have started it between the snapshot that showed it pending
 * and the hold (a hold does not stop a running job). Then it is reported
 * running where it runs, so that moku's books never show nothing for a
 * job Slurm runs. */
static int ran_after_all(struct slurm_rm *sr, uint32_t id, struct rm_status *st)
{
    job_info_msg_t *msg = NULL;
    if (slurm_load_job(&msg, id, SHOW_DETAIL) != SLURM_SUCCESS)
        return 0;
    const slurm_job_info_t *x = msg->record_count ? &msg->job_array[0] : NULL;
    uint32_t base = x ? x->job_state & JOB_STATE_BASE : JOB_PENDING;
    int ran = base == JOB_RUNNING || base == JOB_SUSPENDED;
    if (ran) {
        memset(st, 0, sizeof *st);
        st->state = base == JOB_RUNNING ? RM_RUNNING : RM_SUSPENDED;
        st->placed = placed_of(sr, x); /* in sr->placed: outlives msg */
    }
    slurm_free_job_info_msg(msg);
    return ran;
}

/* The start of x is over without a run: held again (unless held already),
 * the release forgotten -- unless Slurm started it meanwhile. */
static void start_over(struct slurm_rm *sr, const slurm_job_info_t *x, struct rm_status *st)
{
    struct err e;
    int hold = !held_so(x);
    if (hold && srm_hold(sr, x->job_id, &e) < 0)
        snprintf(st->message, sizeof st->message, "%.500s", e.msg);
    srm_release_drop(sr, x->job_id);
    /* After the hold, Slurm either runs it already or will not start it. */
    if (hold && ran_after_all(sr, x->job_id, st))
        return;
    st->state = RM_NEVER;
}

/* A pending job moku released at rel->at. */
static void released_pending(struct slurm_rm *sr, const slurm_job_info_t *x,
                             const struct release *rel, long now, struct rm_status *st)
{
    long waited = now - rel->at;
    const char *why = reason_of(x);
    const char *desc = x->state_desc && *x->state_desc ? x->state_desc : NULL;
    int held = held_so(x);
    if (x->restart_cnt > rel->restarts) { /* it ran, and Slurm requeued it */
        snprintf(st->message, sizeof st->message, "requeued by Slurm (%s)", why);
        st->ran = 1;
    } else if (held) { /* held since: by its user, an administrator, or someone's uhold */
        st->holds = srm_holds_of(x);
        snprintf(st->message, sizeof st->message, "held in Slurm %s before it started",
                 st->holds & RM_HOLD_SYSTEM ? "by an administrator"
                 : st->holds                ? "by its user"
                                            : "again");
        st->retry = !st->holds; /* not a hold moku reads: started again, but not for ever */
    } else if (!passing(x->state_reason)) {
        /* (Slurm holds a job it finds BadConstraints itself: priority 0.) */
        snprintf(st->message, sizeof st->message,
                 "Slurm will not run it: %s%s%s (a limit moku does not model; it stays "
                 "deferred for DEFERTIME)",
                 why, desc ? ": " : "", desc ? desc : "");
        st->failed_start = 1;
    } else if ((x->state_reason == WAIT_RESOURCES && waited >= SLURM_RESOURCES_GRACE) ||
               waited >= SLURM_START_GRACE) {
        snprintf(st->message, sizeof st->message,
                 "Slurm did not run it within %ld s (%s): moku's books are read again from "
                 "Slurm, and it is started at the next iteration",
                 waited, why);
        sr->detail = 2; /* this iteration's reads and the next's check every running
                           job's allocation */
        st->retry = 1;
    } else {
        st->state = RM_RUNNING; /* starting: Slurm schedules it within a second or so */
        st->starting = 1;
        return;
    }
    start_over(sr, x, st);
}

/* Whether x, pending after a requeue, is still in the seconds after it
 * (SLURM_REQUEUE_SETTLE): a requeue not seen before starts them now. */
static int requeue_settling(struct slurm_rm *sr, const slurm_job_info_t *x, long now)
{
    struct requeue *q = NULL;
    for (size_t i = 0; i < sr->nrq && !q; i++)
        if (sr->rq[i].id == x->job_id)
            q = &sr->rq[i];
    if (!q) {
        sr->rq = xgrow(sr->rq, &sr->caprq, sr->nrq + 1, sizeof *sr->rq);
        q = &sr->rq[sr->nrq++];
        q->id = x->job_id;
        q->restarts = 0;
    }
    if (q->restarts != x->restart_cnt) {
        q->restarts = x->restart_cnt;
        q->seen = now;
    }
    return now < q->seen + SLURM_REQUEUE_SETTLE;
}

static void requeue_drop(struct slurm_rm *sr, uint32_t id)
{
    for (size_t i = 0; i < sr->nrq; i++)
        if (sr->rq[i].id == id) {
            sr->rq[i] = sr->rq[--sr->nrq];
            return;
        }
}

/* A pending job moku has not released (or released before it restarted). */
static void pending_status(struct slurm_rm *sr, const slurm_job_info_t *x, long now,
                           struct rm_status *st)
{
    struct release *rel = srm_release_of(sr, x->job_id);
    if (rel) {
        released_pending(sr, x, rel, now, st);
        return;
    }
    const char *reason = reason_of(x);
    if (x->restart_cnt > 0) {
        snprintf(st->message, sizeof st->message, "requeued by Slurm (%s)", reason);
        st->ran = 1;
    } else
        snprintf(st->message, sizeof st->message, "not started by Slurm before moku restarted");
    st->holds = x->priority == 0 ? srm_holds_of(x) : 0;
    start_over(sr, x, st);
}

static const char *end_reason(uint32_t base)
{
    switch (base) {
    case JOB_TIMEOUT:
        return "walltime";
    case JOB_CANCELLED:
        return "cancelled";
    case JOB_COMPLETE:
        return "completed";
    default:
        return "failed";
    }
}

static void ended_status(const slurm_job_info_t *x, uint32_t base, struct rm_status *st)
{
    st->state = RM_ENDED;
    st->end = (long)x->end_time;
    /* A wait status: the exit code, or 128 + the signal that ended it. */
    st->exit_code =
        WIFSIGNALED(x->exit_code) ? 128 + WTERMSIG(x->exit_code) : WEXITSTATUS(x->exit_code);
    snprintf(st->reason, sizeof st->reason, "%s", end_reason(base));
    /* The job's program never ran: Slurm could not launch it (its output
     * file, its working directory: FAILED, reason JobLaunchFailure, exit
     * 0:53) or its nodes never booted. Removed, not Completed, as the
     * local resource manager reports a failed start (issue 30). */
    st->never_ran = x->state_reason == FAIL_LAUNCH || base == JOB_BOOT_FAIL;
    if (base == JOB_NODE_FAIL || base == JOB_BOOT_FAIL || base == JOB_OOM || base == JOB_DEADLINE ||
        base == JOB_PREEMPTED)
        snprintf(st->message, sizeof st->message, "Slurm ended it: %s",
                 slurm_job_state_string(x->job_state));
}

int srm_status(void *ctx, const char *id, long now, struct rm_status *st, struct err *err)
{
    struct slurm_rm *sr = ctx;
    uint32_t n = 0; /* set by srm_parse_id on success, read only then */
    if (srm_parse_id(id, &n, err) < 0)
        return -1;
    memset(st, 0, sizeof *st);
    struct err re;
    if (sr->stale || (sr->detail && !sr->detailed)) { /* once: unreachable or unchanged, the
                                                         snapshot will do */
        sr->stale = 0;
        srm_refresh(sr, &re);
    }
    const slurm_job_info_t *x = srm_find_job(sr, n);
    if (!x) {
        st->state = RM_UNKNOWN;
        return 0;
    }
    uint32_t base = x->job_state & JOB_STATE_BASE;
    if (base != JOB_RUNNING && base != JOB_SUSPENDED && (x->job_state & JOB_COMPLETING)) {
        /* Ended or requeued, but its nodes are Slurm's until its epilog is
         * done, its exit code final only then, and a requeued job's begin
         * time set only then (2 minutes on: a start before would wait that
         * long): running still, for moku's books. */
        st->state = RM_RUNNING;
    } else if (base == JOB_PENDING && x->restart_cnt > 0 && requeue_settling(sr, x, now)) {
        st->state = RM_RUNNING; /* requeued a moment ago: see SLURM_REQUEUE_SETTLE */
    } else if (base == JOB_PENDING) {
        pending_status(sr, x, now, st);
    } else if (base == JOB_RUNNING || base == JOB_SUSPENDED) {
        st->state = base == JOB_RUNNING ? RM_RUNNING : RM_SUSPENDED;
        /* Where it runs: read once after its start, or from a snapshot read
         * with every allocation (moku's books were found wrong). */
        if (srm_release_of(sr, n)) {
            st->placed = placed_now(sr, n);
            srm_release_drop(sr, n);
        } else if (sr->detailed) {
            st->placed = placed_of(sr, x);
        }
    } else {
        srm_release_drop(sr, n);
        requeue_drop(sr, n);
        ended_status(x, base, st);
    }
    return 0;
}

/* ---- holds, moku's side into Slurm ---- */

/* The comment with the user's mark, or without it (caller frees). */
static char *marked(const char *comment, int mark)
{
    size_t cap = 0, len = 0;
    char *out = NULL;
    char *copy = xstrdup(comment ? comment : ""), *save = NULL;
    int ours = strncmp(copy, "moku ", 5) == 0; /* moku submit's: its older hold word too */
    for (char *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
        if (strcmp(w, SRM_USER_HOLD) == 0 || strcmp(w, SRM_UNMARKED) == 0 ||
            (ours && strcmp(w, "hold") == 0))
            continue;
        out = xgrow(out, &cap, len + strlen(w) + 2, 1);
        len += (size_t)sprintf(out + len, "%s%s", len ? " " : "", w);
    }
    free(copy);
    const char *tail = mark ? SRM_USER_HOLD : len ? "" : SRM_UNMARKED;
    out = xgrow(out, &cap, len + strlen(tail) + 2, 1);
    sprintf(out + len, "%s%s", len && *tail ? " " : "", tail);
    return out;
}

int srm_hold_sync(void *ctx, const char *id, unsigned holds, const char *note, struct err *err)
{
    struct slurm_rm *sr = ctx;
    uint32_t n = 0; /* set by srm_parse_id on success, read only then */
    if (srm_parse_id(id, &n, err) < 0)
        return -1;
    const slurm_job_info_t *x = srm_find_job(sr, n);
    if (!x || (x->job_state & JOB_STATE_BASE) != JOB_PENDING)
        return 0; /* gone, or running: nothing to mirror */
    unsigned have = srm_holds_of(x);
    int user = (holds & RM_HOLD_USER) != 0, admin = (holds & (RM_HOLD_SYSTEM | RM_HOLD_BATCH)) != 0;
    const char *want_note = note ? note : SRM_NO_NOTE;
    const char *had_note = x->admin_comment && *x->admin_comment ? x->admin_comment : SRM_NO_NOTE;
    int note_differs = strcmp(want_note, had_note) != 0;
    int user_differs = user != ((have & RM_HOLD_USER) != 0);
    int admin_differs = admin != ((have & RM_HOLD_SYSTEM) != 0) || !held_so(x);
    if (!user_differs && !admin_differs && !note_differs)
        return 0;
    if (srm_ctld_up(sr, err) < 0)
        return -1;
    job_desc_msg_t d;
    slurm_init_job_desc_msg(&d);
    d.job_id = n;
    d.req_nodes = ""; /* the plugin's sign that the update is moku's */
    char *comment = user_differs ? marked(x->comment, user) : NULL;
    d.comment = comment;
    /* Held in every update, as moku's queue or an administrator's hold: an
     * update without a priority would release a job Slurm holds for bad
     * constraints. */
    d.priority = 0;
    d.alloc_sid = admin ? ALLOC_SID_ADMIN_HOLD : ALLOC_SID_USER_HOLD;
    if (note_differs)
        d.admin_comment = (char *)want_note;
    int rc = slurm_update_job(&d);
    free(comment);
    if (rc != SLURM_SUCCESS)
        return err_set(err, "Slurm: cannot mirror the holds of job %u: %s", n, srm_error());
    sr->stale = 1;
    return 0;
}
