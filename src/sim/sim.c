/* sim — see sim.h. */
#include "sim/sim.h"
#include "policy/fs.h"
#include "sim/sim_int.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "engine/array.h"
#include "engine/dep.h"
#include "sim/sim_submit.h"
#include "util/heap.h"
#include "util/hostrange.h"
#include "util/mem.h"
#include "util/obuf.h"

/* One outcome a trace job, for the whole replay: its size is the replay's
 * memory (docs/simulation.md, "Memory"). */
_Static_assert(sizeof(struct sim_outcome) <= 40, "struct sim_outcome grew past 40 bytes");

#define DETAIL_BLOCK 4096

/* The outcome's detail, made on first use, from a block of them. */
static struct sim_detail *detail(struct sim *sim, struct sim_outcome *o)
{
    if (o->more)
        return o->more;
    if (sim->nspare)
        return o->more = sim->spare[--sim->nspare];
    if (!sim->details || sim->details_used == DETAIL_BLOCK) {
        sim->details = xcalloc(DETAIL_BLOCK, sizeof *sim->details);
        sim->details_used = 0;
    }
    o->more = &sim->details[sim->details_used];
    o->more->block = sim->details_used++ == 0 ? 1 : 2;
    return o->more;
}

/* The most slots a reused detail keeps room for (sim_detail.own): the
 * room of the jobs that ran, not of the largest job ever. */
#define OWN_SLOTS_KEPT 64
/* The least room a detail's own is made with: details are reused in any
 * order, and own made to a job's exact size was too small for the next
 * job given it, one malloc and free in three jobs of several slots
 * (HPC2N: 19,018 of 58,086); most such jobs hold a few slots. */
#define OWN_SLOTS_MIN 16
_Static_assert(OWN_SLOTS_MIN <= OWN_SLOTS_KEPT, "a detail's least room is not kept");

/* What only the per-job files wanted of a final outcome, written now: its
 * nodes and segments. A detail left holding nothing goes back to be
 * reused, unless it is its block's first (which frees the block). */
static void drop_final(struct sim *sim, struct sim_outcome *o)
{
    struct sim_detail *d = o->more;
    if (!d)
        return;
    d->slots = NULL;
    d->nslots = 0;
    if (d->segments) {
        free(d->segments);
        d->segments = NULL;
    }
    int kept = d->block == 2 && !d->reason && !d->wide_cred && !d->preempted && !d->resumed;
    if (!kept || d->own_cap > OWN_SLOTS_KEPT) { /* not reused, or a large job's room */
        free(d->own);
        d->own = NULL;
        d->own_cap = 0;
    }
    if (!kept)
        return; /* the rest is the report's */
    if (sim->nspare == sim->spare_cap)
        sim->spare = xgrow(sim->spare, &sim->spare_cap, sim->nspare + 1, sizeof *sim->spare);
    /* zero but for block, own's room and a stale `one`, read only through slots */
    sim->spare[sim->nspare++] = d;
    o->more = NULL;
}

/* Hand the outcomes that became final, in the workload's order, to the
 * hook (sim_hooks.final), then drop what it alone wanted of them. */
static void pass_final(struct sim *sim, const struct sim_hooks *h)
{
    if (sim->nfinal == sim->nfinal_passed || !h || !h->final || !sim->forget_ended)
        return; /* (most instants end nothing: no walk) */
    sim->nfinal_passed = sim->nfinal;
    size_t from = sim->settled, to = from;
    while (to < sim->wl->njobs && (sim->out[to].end >= 0 || sim->out[to].rejected))
        to++;
    if (to == from)
        return;
    h->final(h->ctx, sim->out, to);
    for (size_t i = from; i < to; i++)
        drop_final(sim, &sim->out[i]);
    sim->settled = to;
}

/* Keep the processors job j holds now as its last run's. */
static void record_slots(struct sim *sim, const struct job *j)
{
    if (!sim->record_nodes)
        return;
    struct sim_detail *d = detail(sim, &sim->out[j->tag]);
    d->slots = NULL;
    if (j->nslots == 1) {
        d->one = j->slots[0];
        d->slots = &d->one;
    } else if (j->nslots) {
        if (d->own_cap < j->nslots) { /* else the room a reused detail kept */
            size_t cap = j->nslots > OWN_SLOTS_MIN ? j->nslots : OWN_SLOTS_MIN;
            free(d->own);
            d->own = xmalloc(cap * sizeof *j->slots);
            d->own_cap = (unsigned)cap;
        }
        memcpy(d->own, j->slots, j->nslots * sizeof *j->slots);
        d->slots = d->own;
    }
    d->nslots = (unsigned)j->nslots;
}

/* The engine starts a job: through the resource-manager table, as the
 * daemon's would. */
static int rm_start(void *ctx, struct job *j, long now)
{
    struct sim *sim = ctx;
    struct run *r = runtab_get(&sim->runs, j->tag);
    r->job = j;
    struct rm_job *rj = &sim->start_req; /* (the rest stays zero: ops take it const) */
    rj->id = j->name;
    rj->walltime = j->walltime;
    rj->tag = j->tag;
    if (sim->rm.ops->start(sim->rm.ctx, rj, now, NULL) < 0) {
        runtab_put(&sim->runs, r); /* not running: nothing of it held */
        return -1;
    }
    sim->busy += wl_job_procs(&sim->wl->jobs[j->tag]);
    record_slots(sim, j);
    sim->progress = now;
    return 0;
}

/* A preempted job's run so far becomes one of its earlier segments. */
static void record_segment(struct sim *sim, const struct job *j, long now)
{
    struct sim_outcome *o = &sim->out[j->tag];
    if (!sim->record_nodes)
        return;
    struct sim_detail *d = detail(sim, o);
    struct obuf *f = obuf_mem();
    if (d->segments) {
        obuf_puts(f, d->segments);
        obuf_putc(f, ';');
    }
    obuf_ll(f, sim_run_start(o));
    obuf_putc(f, '-');
    obuf_ll(f, now);
    obuf_putc(f, '@');
    sim_format_slots(f, sim->s, NULL, d->slots, d->nslots);
    size_t len;
    const char *text = obuf_data(f, &len);
    free(d->segments);
    d->segments = xstrndup(text, len);
    obuf_close(f, NULL);
}

/* OWNERPREEMPT: the engine preempts a running job. Requeued, it will run
 * again from the start; suspended, its end waits until it is resumed. */
static int rm_preempt(void *ctx, struct job *j, enum preempt_policy how, long now)
{
    struct sim *sim = ctx;
    struct run *r = runtab_find(&sim->runs, j->tag);
    if (!r || r->job != j || r->pos == SIZE_MAX)
        return -1;
    heap_remove(&sim->ends, r->pos);
    record_segment(sim, j, now);
    r->left = r->end > now ? r->end - now : 0;
    sim->busy -= wl_job_procs(&sim->wl->jobs[j->tag]);
    detail(sim, &sim->out[j->tag])->preempted++;
    if (how == PREEMPT_REQUEUE) {
        sim->out[j->tag].start = -1;
        sim->out[j->tag].killed = 0;
    }
    return 0;
}

static int rm_resume(void *ctx, struct job *j, long now)
{
    struct sim *sim = ctx;
    struct run *r = runtab_find(&sim->runs, j->tag);
    if (!r || r->job != j || r->pos != SIZE_MAX)
        return -1;
    r->end = now + r->left;
    heap_push(&sim->ends, r, r->end, r->job->order);
    sim->busy += wl_job_procs(&sim->wl->jobs[j->tag]);
    struct sim_detail *d = detail(sim, &sim->out[j->tag]);
    d->run_start = now; /* its last run, on the same nodes */
    d->resumed = 1;
    sim->progress = now;
    return 0;
}

/* The jobs end_jobs ended, forgotten only once the jobs waiting for them
 * were judged: a forgotten parent is one the engine no longer knows. */
static void forget_ended(struct sim *sim, struct run **ended, size_t n, long now)
{
    sched_deps_update(sim->s, now); /* the iteration at now would: no change */
    for (size_t i = 0; i < n; i++)
        sched_job_forget(sim->s, ended[i]->job); /* sim_outcome_job: NULL from now */
}

/* An ended job's credentials, for when the engine has forgotten it. */
static void keep_creds(struct sim *sim, struct sim_outcome *o, const struct job *j)
{
    const struct cred *c[CRED_NKINDS] = {j->user, j->group, j->account, j->class_, j->qos};
    unsigned idx[CRED_NKINDS];
    int wide = 0;
    for (int k = 0; k < CRED_NKINDS; k++) {
        idx[k] = c[k] ? (unsigned)c[k]->index : 0;
        wide |= idx[k] >= SIM_CRED_WIDE;
        o->cred[k] = (unsigned short)(idx[k] >= SIM_CRED_WIDE ? SIM_CRED_WIDE : idx[k]);
    }
    if (wide) {
        struct sim_detail *d = detail(sim, o);
        if (!d->wide_cred)
            d->wide_cred = xmalloc(sizeof idx);
        memcpy(d->wide_cred, idx, sizeof idx);
    }
}

/* Torque's exit status for a job ended by SIGTERM (256 + 15): the daemon's
 * walltime kill and qdel (rm/supervise.c). */
#define SIM_EXIT_KILLED 271

/* The exit status job `tag` ends with, as the daemon's resource manager
 * reports it (dependencies judge it: afterok, afternotok): 271 (Torque's
 * SIGTERM) for a job killed at its walltime or cancelled while it ran;
 * else its script's (submit --exit), -1 (success) when none was given. */
static int exit_of(const struct sim *sim, const struct sim_outcome *o, size_t tag)
{
    if (o->killed || o->cancelled)
        return SIM_EXIT_KILLED;
    const struct wl_more *m = sim->wl->more ? sim->wl->more[tag] : NULL;
    return m ? m->exit_status : -1;
}

/* Whether a running job ends by now: end_jobs has something to do. */
static inline int ends_by(const struct sim *sim, long now)
{
    const struct run *r = heap_top(&sim->ends);
    return r && r->end <= now;
}

static void end_jobs(struct sim *sim, long now)
{
    /* The list is taken out of sim while it is used: a call made from
     * inside this one (a hook cancelling a running job) gets its own. */
    struct run *r, **ended = sim->ended;
    size_t nended = 0, cap = sim->ended_cap;
    sim->ended = NULL;
    sim->ended_cap = 0;
    while ((r = heap_top(&sim->ends)) && r->end <= now) {
        heap_pop(&sim->ends);
        struct job *j = r->job;
        struct sim_outcome *o = &sim->out[j->tag];
        o->backfilled = (j->flags & JOB_BACKFILLED) != 0;
        o->end = now;
        sim->nfinal++;
        sim->busy -= wl_job_procs(&sim->wl->jobs[j->tag]);
        j->exit_status = exit_of(sim, o, j->tag);
        sched_job_ended(sim->s, j, now);
        keep_creds(sim, o, j);
        if (nended == cap)
            ended = xrealloc(ended, (cap = cap ? 2 * cap : 16) * sizeof *ended);
        ended[nended++] = r;
    }
    if (nended && sim->forget_ended)
        forget_ended(sim, ended, nended, now);
    /* the resource manager holds them no more */
    for (size_t i = 0; i < nended; i++)
        runtab_put(&sim->runs, ended[i]);
    if (sim->ended) /* a nested call's, if any (rarely: no call for nothing) */
        free(sim->ended);
    sim->ended = ended;
    sim->ended_cap = cap;
}

/* An SWF job waiting for its preceding job (field 17) is held on afterany,
 * as the daemon holds a qsub -W depend=afterany job. A parent the engine no
 * longer knows was rejected, or ended and was forgotten: nothing to wait
 * for. The workload checked that the parent is queued before the job, so
 * sched_set_deps cannot refuse. */
static void hold_after(struct sim *sim, struct job *j, const char *parent)
{
    if (!sched_find_job(sim->s, parent))
        return;
    char text[64];
    snprintf(text, sizeof text, "afterany:%s", parent);
    struct err e;
    if (sched_set_deps(sim->s, j, text, &e) < 0)
        sched_job_note(sim->s, j, e.msg);
}

/* A job a script submitted (sim_submit.h): made its array's task and given
 * its dependencies as the daemon does (ddep.c). One the engine refuses
 * them for — a parent that was itself rejected, or one that can never
 * satisfy it already — is removed with the reason, as Torque deletes it. */
static void apply_more(struct sim *sim, struct job *j, const struct wl_more *m, long now)
{
    struct err e;
    if (m->array && sched_set_array(sim->s, j, m->array, m->index, m->slots, 1, &e) < 0)
        sched_job_note(sim->s, j, e.msg);
    if (m->depend && sched_set_deps(sim->s, j, m->depend, &e) < 0) {
        sched_job_note(sim->s, j, e.msg);
        sched_cancel(sim->s, j, now, NULL);
    }
}

/* The slot of sim.creds for names nm (a set is some 100 bytes from the
 * next in the workload's arena: the bits above the lowest four). */
static struct sim_creds *creds_slot(struct sim *sim, const struct wl_names *nm)
{
    return &sim->creds[((uintptr_t)nm >> 4 ^ (uintptr_t)nm >> 12) & (SIM_CREDS - 1)];
}

/* Submit every job whose submit time is now; return the next index.
 * (Inlined, as it was in one sim_run: a call an iteration cost HPC2N
 * some 5 million instructions.) */
static inline __attribute__((always_inline)) size_t submit_jobs(struct sim *sim, size_t next,
                                                                long now, size_t *rejected)
{
    for (; next < sim->wl->njobs && sim->wl->jobs[next].submit == now; next++) {
        const struct wl_job *w = &sim->wl->jobs[next];
        const struct wl_names *nm = wl_job_names(w);
        struct sim_creds *known = creds_slot(sim, nm);
        char id[WL_ID_LEN];
        struct job_spec spec = {
            .name = wl_job_id(sim->wl, w, id),
            .tasks = w->tasks,
            .procs_per_task = w->procs_per_task,
            .mem_per_task = nm->mem,
            .swap_per_task = nm->swap,
            .disk_per_task = nm->disk,
            .nodes = nm->nodes,
            .features = nm->features,
            .walltime = wl_job_walltime(w),
            .submit = w->submit,
            .user = nm->user,
            .group = nm->group,
            .account = nm->account,
            .class_ = nm->class_,
            .qos = nm->qos,
            .partition = nm->partition,
            .tag = next,
            .util = w->util,
            .util_known = w->util_known,
            .advres = nm->advres,
            .preemptee = w->preemptee,
            .tpn = nm->tpn,
            .creds = known->names == nm ? known->c : NULL,
        };
        struct err e;
        struct job *j = NULL;
        if (sched_submit_allowed(sim->s, &spec, &e) < 0 || !(j = sched_submit(sim->s, &spec, &e))) {
            sim->out[next].rejected = 1;
            sim->nfinal++;
            detail(sim, &sim->out[next])->reason = xstrdup(e.msg);
            (*rejected)++;
            continue;
        }
        sim->out[next].job = (uint32_t)j->order + 1;
        *known = (struct sim_creds){nm, {j->user, j->group, j->account, j->class_}};
        if (sim->wl->more && sim->wl->more[next] && sim->wl->more[next]->after)
            hold_after(sim, j, sim->wl->more[next]->after);
        else if (sim->wl->more && sim->wl->more[next])
            apply_more(sim, j, sim->wl->more[next], now);
    }
    return next;
}

/* canceljob of a running job (cmd_ctx.cancel): the simulated resource
 * manager stops it now and its end is reported at once, so the rest of the
 * instant sees its processors free and no end event is left for later. */
static int cancel_running(void *ctx, struct job *j, long now)
{
    struct sim *sim = ctx;
    if (sim->rm.ops->cancel(sim->rm.ctx, j->name, now, NULL) < 0)
        return -1;
    end_jobs(sim, now);
    return 0;
}

/* Run the script's commands due at now, telling the hook how each went. */
static void run_commands(struct sim *sim, long now, const struct sim_hooks *h)
{
    struct cmd_ctx c = {.s = sim->s,
                        .cfg = h->cfg,
                        .now = now,
                        .epoch_offset = h->epoch_offset,
                        .control = 1,
                        .cancel = cancel_running,
                        .cancel_ctx = sim};
    for (; sim->next_cmd < h->script->n && h->script->cmds[sim->next_cmd].t <= now;
         sim->next_cmd++) {
        const struct sim_script_cmd *cmd = &h->script->cmds[sim->next_cmd];
        if (sim_submit_is(cmd))
            continue; /* its job is the workload's, queued already */
        char *out = NULL;
        struct err e;
        int rc = sim_qalter_is(cmd) ? sim_qalter_run(sim->s, cmd, now, &e)
                                    : cmd_runv(&c, cmd->argc, cmd->argv, &out, &e);
        if (rc == 0 && !out)
            out = xstrdup(""); /* qalter: silent on success, as Torque's */
        if (h->command)
            h->command(h->ctx, cmd, rc == 0 ? out : NULL, rc == 0 ? NULL : e.msg);
        free(out);
    }
}

/* The next instant something outside the engine happens: a job's end, a
 * submission, a timed command. LONG_MAX when nothing is left. */
static long next_outside(const struct sim *sim, size_t next, const struct sim_hooks *h)
{
    long t = LONG_MAX;
    const struct run *r = heap_top(&sim->ends);
    if (r)
        t = r->end;
    if (next < sim->wl->njobs && sim->wl->jobs[next].submit < t)
        t = sim->wl->jobs[next].submit;
    if (h && h->script && sim->next_cmd < h->script->n && h->script->cmds[sim->next_cmd].t < t)
        t = h->script->cmds[sim->next_cmd].t;
    return t;
}

static long min_time(long a, long b)
{
    return a < b ? a : b;
}

/* --iterate-every: the next multiple of n after the last iteration, when
 * the replay would otherwise iterate later (at t) or end (t = LONG_MAX)
 * while jobs wait, within SIM_PERIODIC_SPAN of the last progress (as polls
 * and standing reservations are followed: a replay waiting years for a
 * far wake-up is not walked a minute at a time). */
static long forced_time(const struct sim *sim, long t, long n)
{
    if (n <= 0 || sim->last == LONG_MIN || !sched_nidle(sim->s) || sim->progress == LONG_MIN)
        return t;
    long f = sim->last - ((sim->last % n) + n) % n + n;
    if (f - sim->progress > SIM_PERIODIC_SPAN ||
        (t == LONG_MAX && sim->stalled >= SIM_IDLE_ITERATIONS))
        return t;
    return min_time(t, f);
}

/* The engine's polls (a priority order that moves with time: Maui
 * re-sorts at every RMPOLLINTERVAL), within SIM_PERIODIC_SPAN of the last
 * progress: they recur for ever while jobs wait, and are followed as long
 * as standing reservations are. LONG_MAX: none. */
static long next_poll(const struct sim *sim, int waiting)
{
    long p = waiting ? sched_next_poll(sim->s, sim->last) : SCHED_NEVER;
    if (p >= SCHED_NEVER || sim->progress == LONG_MIN || p - sim->progress > SIM_PERIODIC_SPAN)
        return LONG_MAX;
    return p;
}

/*
 * The next instant to iterate at, or LONG_MAX when the replay is over: no
 * event remains that can start a waiting job. While outside events remain,
 * reservation edges and triggers count too (for the plot and the triggers'
 * report; standing ones within SIM_PERIODIC_SPAN of the last progress), and
 * the engine's wake-ups and polls (what time alone changes, policy/wake.c:
 * the daemon iterates at the same instants). Without them, waiting jobs can
 * still be started by the engine's own wake-ups (sched_next_wakeup), which
 * are finite, and by standing reservations and polls, which recur for ever
 * and are followed only for SIM_PERIODIC_SPAN after the last progress.
 * *outside gets next_outside's answer, which the loop asks for too.
 */
static long next_time(const struct sim *sim, size_t next, const struct sim_hooks *h, long *outside)
{
    long t = *outside = next_outside(sim, next, h);
    int waiting = sched_nidle(sim->s) > 0;
    long poll = next_poll(sim, waiting);
    if (t != LONG_MAX) {
        /* Standing edges recur every day: followed from the first outside
         * event on, and for SIM_PERIODIC_SPAN after the last progress, then
         * skipped to the next outside event (a Maui trace on the epoch
         * clock once walked every day since 1970 before its first job). */
        long e = sched_next_event(sim->s, sim->last, 0);
        long es = sched_next_event(sim->s, sim->last, 1);
        if (sim->progress != LONG_MIN && es - sim->progress <= SIM_PERIODIC_SPAN)
            e = min_time(e, es);
        e = min_time(e, poll);
        return min_time(t, min_time(e, waiting ? sched_next_wakeup(sim->s, sim->last) : LONG_MAX));
    }
    if (!waiting || sim->stalled >= SIM_IDLE_ITERATIONS)
        return LONG_MAX;
    long w = sched_next_wakeup(sim->s, sim->last);
    if (w < SCHED_NEVER)
        return min_time(w, min_time(poll, sched_next_event(sim->s, sim->last, 1)));
    long p = sched_next_event(sim->s, sim->last, 1);
    if (p < SCHED_NEVER && p - sim->progress <= SIM_PERIODIC_SPAN)
        return min_time(p, poll);
    return poll;
}

/* Close every fairshare window that ends by now, before the events at now
 * are processed (jobs ending at now have accrued up to now, past those
 * boundaries). The ledger keeps the windows; a driver that wants FS data
 * files writes them from it (stats/fsfile.h). */
static void close_windows(struct sim *sim, long now)
{
    struct fs *f = sched_fs(sim->s);
    if (fs_params(f)->policy != FS_NONE)
        fs_advance(f, now);
}

/* Tell the hook what the iteration at now left. */
static void sample(const struct sim *sim, long now, const struct sim_hooks *hooks)
{
    if (!hooks || !hooks->sample)
        return;
    struct sim_sample smp = {.now = now,
                             .busy_procs = sim->busy,
                             .up_procs = sched_up_procs(sim->s),
                             .idle = sched_nidle(sim->s),
                             .running = sched_nrunning(sim->s)};
    hooks->sample(hooks->ctx, &smp);
}

/* Fired TRIGGER actions: reported, never run, in a replay. */
static void drain_triggers(struct sched *s, const struct sim_hooks *hooks)
{
    struct sched_fired f;
    while (sched_pop_fired(s, &f)) {
        if (hooks && hooks->trigger)
            hooks->trigger(hooks->ctx, &f);
        sched_fired_free(&f);
    }
}

/* The replay's state before its first event: its outcomes (out, or made
 * here as the workload grows when out is NULL) all pending. */
static struct sim *sim_begin(struct sched *s, const struct workload *wl, struct sim_outcome *out,
                             long until, const struct sim_hooks *hooks)
{
    struct sim *sim = xcalloc(1, sizeof *sim);
    /* Jobs waiting for others are judged by name (sched_find_job), and a
     * forgotten job drops the name index: forgetting would rebuild it at
     * every end, a cost quadratic in the trace. */
    *sim = (struct sim){.s = s,
                        .wl = wl,
                        .out = out,
                        .last = LONG_MIN,
                        .progress = LONG_MIN,
                        .record_nodes = hooks && hooks->record_nodes,
                        .forget_ended = hooks && hooks->forget_ended && !wl->ndeps,
                        .hooks = hooks,
                        .until = until,
                        .owns_out = out == NULL};
    sim->rm = (struct rm){&sim_rm_ops, sim};
    runtab_init(&sim->runs);
    heap_init(&sim->ends, offsetof(struct run, pos));
    sched_set_rm(s, &(struct sched_rm){
                        .start = rm_start, .preempt = rm_preempt, .resume = rm_resume, .ctx = sim});
    if (wl->njobs)
        fs_advance(sched_fs(s), wl->jobs[0].submit); /* no-op if the caller did */
    return sim;
}

/* An outcome, pending, for each job the workload gained. */
static void add_outcomes(struct sim *sim)
{
    size_t n = sim->wl->njobs;
    if (n <= sim->nout)
        return;
    if (sim->owns_out && n > sim->out_cap) {
        /* An eighth more, not twice: the room is held for the whole replay
         * (a large block's realloc is a remap, not a copy). */
        sim->out_cap = n + n / 8 + 1024;
        sim->out = xrealloc(sim->out, sim->out_cap * sizeof *sim->out);
    }
    for (size_t i = sim->nout; i < n; i++)
        sim->out[i] = (struct sim_outcome){.start = -1, .end = -1};
    sim->nout = n;
}

/* Run the replay's iterations before `limit` (LONG_MAX: to the end). */
static void sim_advance(struct sim *sim, long limit)
{
    const struct sim_hooks *hooks = sim->hooks;
    struct sched *s = sim->s;
    add_outcomes(sim);
    size_t next = sim->next, rejected = sim->rejected; /* (kept in registers) */
    long now, every = hooks ? hooks->iterate_every : 0, due, outside;
    while ((now = forced_time(sim, due = next_time(sim, next, hooks, &outside), every)) !=
               LONG_MAX &&
           now <= sim->until && now < limit) {
        close_windows(sim, now); /* (no end, submission or command moves) */
        if (outside <= now)
            sim->progress = now;
        if (ends_by(sim, now)) /* (most instants end nothing: no call) */
            end_jobs(sim, now);
        next = submit_jobs(sim, next, now, &rejected);
        pass_final(sim, hooks);
        if (hooks && hooks->script)
            run_commands(sim, now, hooks);
        sched_iterate(s, now);
        if (hooks && hooks->iterated)
            hooks->iterated(hooks->ctx, s, now);
        if (now == due) /* an iteration forced by --iterate-every is not the replay's own */
            sim->stalled = sim->progress == now ? 0 : sim->stalled + 1;
        drain_triggers(s, hooks);
        sample(sim, now, hooks);
        sim->last = now;
        if (hooks && hooks->progress && ++sim->tick % 4096 == 0)
            hooks->progress(hooks->ctx, next, sim->wl->njobs);
    }
    sim->next = next;
    sim->rejected = rejected;
}

/* After the last iteration: what `until` asks, and the engine given back.
 * Returns the number of rejected jobs. */
static size_t sim_end(struct sim *sim)
{
    const struct sim_hooks *hooks = sim->hooks;
    struct sched *s = sim->s;
    long until = sim->until;
    if (until != SIM_FOREVER && sim->last != until) {
        /* The state the full replay holds at `until` is the one its last
         * iteration before left: an iteration here, where the replay runs
         * none, could start jobs it starts later (issue 26). Time moves on
         * to `until` for what accrues by itself (fairshare usage, its
         * windows) and the samples only. */
        close_windows(sim, until);
        sched_accrue(s, until);
        sample(sim, until, hooks);
    }
    if (hooks && hooks->progress)
        hooks->progress(hooks->ctx, sim->wl->njobs, sim->wl->njobs);
    sched_set_rm(s, NULL);
    heap_free(&sim->ends);
    runtab_free(&sim->runs);
    free(sim->ended);
    for (size_t i = 0; i < sim->nspare; i++)
        free(sim->spare[i]->own); /* the room a spare detail kept */
    free(sim->spare);
    size_t rejected = sim->rejected;
    free(sim);
    return rejected;
}

size_t sim_run(struct sched *s, const struct workload *wl, struct sim_outcome *out, long until,
               const struct sim_hooks *hooks)
{
    struct sim *sim = sim_begin(s, wl, out, until, hooks);
    sim_advance(sim, LONG_MAX);
    return sim_end(sim);
}

struct sim_stream *sim_stream_begin(struct sched *s, const struct workload *wl,
                                    const struct sim_hooks *hooks)
{
    return (struct sim_stream *)sim_begin(s, wl, NULL, SIM_FOREVER, hooks);
}

void sim_stream_advance(struct sim_stream *st, int whole)
{
    struct sim *sim = (struct sim *)st;
    const struct workload *wl = sim->wl;
    /* Jobs submitted at the last known job's instant may still come. */
    if (whole)
        sim_advance(sim, LONG_MAX);
    else if (wl->njobs)
        sim_advance(sim, wl->jobs[wl->njobs - 1].submit);
}

size_t sim_stream_end(struct sim_stream *st, struct sim_outcome **out)
{
    struct sim *sim = (struct sim *)st;
    add_outcomes(sim);
    /* Give back the doubling slack: the report keeps them to the end. */
    *out = sim->nout ? xrealloc(sim->out, sim->nout * sizeof *sim->out) : sim->out;
    return sim_end(sim);
}

struct job *sim_outcome_job(const struct sched *s, const struct sim_outcome *o)
{
    return s && o->job ? sched_job(s, o->job - 1) : NULL;
}

void sim_outcomes_free(struct sim_outcome *out, size_t n)
{
    /* What each detail owns, and the details alone; a block's first detail
     * frees the block last, once no other detail of it is read. */
    for (size_t i = 0; out && i < n; i++) {
        struct sim_detail *d = out[i].more;
        if (!d)
            continue;
        free(d->reason);
        free(d->own);
        free(d->segments);
        free(d->wide_cred);
        if (d->block != 1)
            out[i].more = NULL;
        if (d->block == 0)
            free(d);
    }
    for (size_t i = 0; out && i < n; i++) {
        free(out[i].more); /* only blocks' first details are left */
        out[i].more = NULL;
    }
}

/* A node's name, measured once: its length, and that of the part before
 * its trailing digits (a range entry writes the prefix once). */
struct name_len {
    const char *name;
    unsigned len, prefix;
};

/* Room past the copied names: they are copied out 16 bytes at a time. */
#define NAMES_PAD 16

/*
 * A node as the nodes column reads it, all in one half of a cache line
 * (the table is aligned): its name, in place when every name fits in 16
 * bytes (short16), else where the table's text holds it; its length and
 * that of its part before the digits; the last node of the run of
 * numbered names from it. A job's entry reads two of them: in separate
 * arrays of names, ends and text (Curie's 93,312 nodes, 3 MB), the writer
 * thread missed the cache some five times an entry.
 */
struct node_rec {
    union {
        char in[NAMES_PAD];
        const char *at;
    } name;
    unsigned end, len, prefix, unused;
};
_Static_assert(sizeof(struct node_rec) == 32, "a node's record is half a cache line");

struct sim_noderuns {
    struct node_rec *node; /* 64-byte aligned */
    char *text; /* !short16: the names, one after the other, NAMES_PAD bytes after them */
    size_t n;
    int short16; /* every name at most NAMES_PAD bytes: in place, one copy of 16 each */
    size_t room; /* what one entry may take in place: two names, the rest */
};

static struct name_len name_len(const char *name)
{
    size_t len = strlen(name), at = len;
    while (at > 0 && name[at - 1] >= '0' && name[at - 1] <= '9')
        at--;
    return (struct name_len){name, (unsigned)len, (unsigned)at};
}

/* 1 when b's name is a's counted up by one (hostrange_next); the common
 * case, a short suffix whose last digit is not 9, without a call (Curie's
 * 93,312 nodes). */
static int name_follows(const struct name_len *a, const struct name_len *b)
{
    size_t n = a->len, nd = n - a->prefix;
    if (nd >= 1 && nd <= 9 && n == b->len && a->name[n - 1] != '9' &&
        !memchr(a->name, '[', a->prefix))
        return memcmp(a->name, b->name, n - 1) == 0 && b->name[n - 1] == a->name[n - 1] + 1;
    return hostrange_next(a->name, b->name);
}

struct sim_noderuns *sim_noderuns_create(const struct sched *s)
{
    struct sim_noderuns *r = xcalloc(1, sizeof *r);
    r->n = s ? sched_nnodes(s) : 0;
    struct name_len *names = xmalloc((r->n ? r->n : 1) * sizeof *names);
    struct node_rec *node = r->node = xcalloc_aligned(64, (r->n ? r->n : 1) * sizeof *node);
    size_t bytes = NAMES_PAD, longest = 0;
    for (size_t i = r->n; i-- > 0;) {
        names[i] = name_len(sched_node(s, (unsigned)i)->name);
        node[i].end =
            i + 1 < r->n && name_follows(&names[i], &names[i + 1]) ? node[i + 1].end : (unsigned)i;
        node[i].len = names[i].len;
        node[i].prefix = names[i].prefix;
        bytes += names[i].len;
        longest = names[i].len > longest ? names[i].len : longest;
    }
    r->short16 = longest <= NAMES_PAD;
    char *t = r->text = r->short16 ? NULL : xcalloc(1, bytes);
    for (size_t i = 0; i < r->n; i++) {
        if (r->short16) {
            memcpy(node[i].name.in, names[i].name, names[i].len);
            continue;
        }
        memcpy(t, names[i].name, names[i].len);
        node[i].name.at = t;
        t += names[i].len;
    }
    free(names);
    r->room = 2 * longest + 6 + OBUF_LL_ROOM + 3 * NAMES_PAD;
    return r;
}

void sim_noderuns_destroy(struct sim_noderuns *r)
{
    if (!r)
        return;
    free(r->node);
    free(r->text);
    free(r);
}

/* A run of nodes being written, names compared pair by pair: consecutive
 * in the node table, the same processors on each, numbered names
 * (util/hostrange.h). */
struct nodes_out {
    struct obuf *f;
    const struct sched *s;
    const char *sep;
    unsigned first, last, procs;
    int open;
};

/* The entry "name:procs" or "prefix[first-last]:procs", in place in one go. */
static void nodes_flush(struct nodes_out *w)
{
    if (!w->open)
        return;
    struct name_len la = name_len(sched_node(w->s, w->first)->name);
    struct name_len lb = w->first != w->last ? name_len(sched_node(w->s, w->last)->name) : la;
    char *p = obuf_reserve(w->f, 4 + la.len + lb.len + OBUF_LL_ROOM);
    if (*w->sep)
        *p++ = ' ';
    if (w->first == w->last) {
        memcpy(p, la.name, la.len);
        p += la.len;
    } else { /* b counts up from a: the same prefix (hostrange_next) */
        memcpy(p, la.name, la.prefix);
        p += la.prefix;
        *p++ = '[';
        memcpy(p, la.name + la.prefix, la.len - la.prefix);
        p += la.len - la.prefix;
        *p++ = '-';
        memcpy(p, lb.name + la.prefix, lb.len - la.prefix);
        p += lb.len - la.prefix;
        *p++ = ']';
    }
    *p++ = ':';
    obuf_commit(w->f, obuf_fmt_ll(p, w->procs)); /* the inline way for a digit */
    w->sep = " ";
    w->open = 0;
}

static void nodes_add(struct nodes_out *w, unsigned node, unsigned procs)
{
    if (w->open && node == w->last + 1 && procs == w->procs &&
        hostrange_next(sched_node(w->s, w->last)->name, sched_node(w->s, node)->name)) {
        w->last = node;
        return;
    }
    nodes_flush(w);
    *w = (struct nodes_out){w->f, w->s, w->sep, node, node, procs, 1};
}

/* n bytes of the table's copied names at t, 16 at a time without a call
 * (one copy when every name fits in 16: short16), writing up to 15 bytes
 * past them (room reserved; the text's padding, or the rest of the
 * node's record, is read). */
static inline __attribute__((always_inline)) char *put_table(char *p, const char *t, size_t n,
                                                             int short16)
{
    if (short16)
        memcpy(p, t, 16);
    else
        for (size_t i = 0; i < n; i += 16)
            memcpy(p + i, t + i, 16);
    return p + n;
}

/* The entry of the table's nodes first .. last (a run of numbered names
 * when they differ), procs each, at p (r->room bytes there), after a
 * space unless it is the first: where it ends. The names are read before
 * the first byte is written: a byte written may alias anything, and would
 * make the compiler load them again. */
static inline __attribute__((always_inline)) char *table_put(char *p, const struct node_rec *node,
                                                             unsigned first, unsigned last,
                                                             unsigned procs, int sep, int short16)
{
    const struct node_rec *a = &node[first], *b = &node[last];
    const char *an = short16 ? a->name.in : a->name.at, *bn = short16 ? b->name.in : b->name.at;
    unsigned alen = a->len, pre = a->prefix, blen = b->len;
    *p = ' ';
    p += sep;
    if (first == last) {
        p = put_table(p, an, alen, short16);
    } else { /* b counts up from a: the same prefix (hostrange_next) */
        p = put_table(p, an, pre, short16);
        *p++ = '[';
        p = put_table(p, an + pre, alen - pre, short16);
        *p++ = '-';
        p = put_table(p, bn + pre, blen - pre, short16);
        *p++ = ']';
    }
    *p++ = ':';
    return obuf_fmt_ull(p, procs);
}

/* table_put into f, its room reserved and the bytes taken. */
static inline __attribute__((always_inline)) void
table_entry(struct obuf *f, const struct node_rec *node, size_t room, unsigned first, unsigned last,
            unsigned procs, int sep, int short16)
{
    obuf_commit(f, table_put(obuf_reserve(f, room), node, first, last, procs, sep, short16));
}

/* The room table_slots_as reserves at once, for as many entries as it
 * holds: a job on thousands of runs (Curie) tests and takes f's room once
 * a batch, not once an entry, its end kept in a register between. Half
 * of a file writer's tail (obuf.c's OBUF_TAIL): a reservation past the
 * tail makes it write its block early and move the rest. Names so long
 * that one entry's room passes it go one at a time. */
#define TABLE_BATCH_BYTES 2048

/* sim_format_slots from the table alone (every slot's nodes in it): a run
 * of numbered names taken in one step (Curie's jobs hold thousands), an
 * entry written once it can grow no more. The table's fields in locals,
 * short16 a constant in each of table_slots' two copies. */
static inline __attribute__((always_inline)) void table_slots_as(struct obuf *f,
                                                                 const struct sim_noderuns *r,
                                                                 const struct job_slot *slots,
                                                                 size_t n, int short16)
{
    const struct node_rec *node = r->node;
    size_t room = r->room;
    unsigned first = 0, last = 0, procs = 0;
    int open = 0, sep = 0;
    size_t batch = room < TABLE_BATCH_BYTES ? TABLE_BATCH_BYTES / room : 1;
    char *p = obuf_reserve(f, batch * room), *lim = p + (batch - 1) * room;
    for (size_t i = 0; i < n; i++) {
        unsigned at = slots[i].node, end = at + slots[i].nnodes, sp = slots[i].procs;
        while (at < end) {
            /* else at continues the open entry: the name after its last */
            if (!open || at != last + 1 || sp != procs || node[last].end <= last) {
                if (open) {
                    p = table_put(p, node, first, last, procs, sep, short16);
                    sep = 1;
                    if (p > lim) { /* the batch's room is used: the next's */
                        obuf_commit(f, p);
                        p = obuf_reserve(f, batch * room);
                        lim = p + (batch - 1) * room;
                    }
                }
                open = 1;
                first = at;
                procs = sp;
            }
            last = node[at].end < end - 1 ? node[at].end : end - 1;
            at = last + 1;
        }
    }
    if (open)
        p = table_put(p, node, first, last, procs, sep, short16);
    obuf_commit(f, p);
}

static void table_slots(struct obuf *f, const struct sim_noderuns *r, const struct job_slot *slots,
                        size_t n)
{
    if (r->short16)
        table_slots_as(f, r, slots, n, 1);
    else
        table_slots_as(f, r, slots, n, 0);
}

/* 1 when every slot's nodes are in the table. */
static int in_table(const struct sim_noderuns *r, const struct job_slot *slots, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (slots[i].node > r->n || slots[i].nnodes > r->n - slots[i].node)
            return 0;
    return 1;
}

int sim_noderuns_holds(const struct sim_noderuns *r, const struct job_slot *slots, size_t n)
{
    return r && in_table(r, slots, n);
}

/* 1 when slot sl is one entry of the table: nodes of one run of numbered
 * names (or a single node), all with the same processors. */
static inline int one_entry(const struct sim_noderuns *r, const struct job_slot *sl)
{
    return sl->nnodes && r->node[sl->node].end >= sl->node + sl->nnodes - 1;
}

void sim_noderuns_format(struct obuf *f, const struct sim_noderuns *r, const struct job_slot *slots,
                         size_t n)
{
    /* The common job (seven rows in ten, HPC2N): one slot, one entry,
     * written straight, without table_slots' walk and its call. The same
     * entry table_slots_as makes: first is the slot's first node, last its
     * last, within the run. */
    if (n == 1 && one_entry(r, slots)) {
        unsigned last = slots->node + slots->nnodes - 1;
        if (r->short16)
            table_entry(f, r->node, r->room, slots->node, last, slots->procs, 0, 1);
        else
            table_entry(f, r->node, r->room, slots->node, last, slots->procs, 0, 0);
        return;
    }
    table_slots(f, r, slots, n);
}

void sim_format_slots(struct obuf *f, const struct sched *s, const struct sim_noderuns *runs,
                      const struct job_slot *slots, size_t n)
{
    if (runs && in_table(runs, slots, n)) {
        table_slots(f, runs, slots, n);
        return;
    }
    struct nodes_out w = {f, s, "", 0, 0, 0, 0};
    for (size_t i = 0; i < n; i++)
        for (unsigned k = 0; k < slots[i].nnodes; k++)
            nodes_add(&w, slots[i].node + k, slots[i].procs);
    nodes_flush(&w);
}

void sim_format_resv_nodes(struct obuf *f, const struct sched *s, const struct resv_node *nodes,
                           size_t n)
{
    struct nodes_out w = {f, s, "", 0, 0, 0, 0};
    for (size_t i = 0; i < n; i++)
        nodes_add(&w, nodes[i].node, nodes[i].procs);
    nodes_flush(&w);
}
