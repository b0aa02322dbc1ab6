/*
 * serve — `moku serve`: set-up, the loop and the scheduling iteration.
 *
 * The loop waits (poll) for a request, a signal or the next timed
 * iteration. An iteration runs every RMPOLLINTERVAL, at once after a
 * submission, a job's end (SIGCHLD from its supervisor) or a command that
 * changed something, and at the engine's own wake-ups (sched_next_wakeup:
 * what time alone changes, such as a MAXPS sum falling under its limit) —
 * the rule `moku simulate` follows, so a replay predicts these starts. Requests are read whole
 * (framed, size-limited) from any number of connections without blocking the loop, answered one by
 * one, and the connection closed.
 *
 * An iteration, in one store transaction: ask the resource manager which
 * jobs ended, close any fairshare window that ended (saved to the store
 * and as an FS data file), then let the engine schedule (its starts go to
 * the resource manager through djobs_rm_start) and remove the
 * administrative reservations that expired from the store. Then the
 * TRIGGER commands the engine fired are started (dtrig.c). The engine's
 * preemptions (OWNERPREEMPT) go through dpreempt.c.
 */
#define _GNU_SOURCE /* accept4 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cfg/cfg.h"
#include "cmd/cmd.h"
#include "daemon/daemon.h"
#include "daemon/daemon_int.h"
#include "daemon/dconn.h"
#include "daemon/dreply.h"
#include "daemon/dreq.h"
#include "daemon/drights.h"
#include "policy/fs.h"
#include "stats/fsfile.h"
#include "util/crashpt.h"
#include "util/mem.h"
#include "web/web.h"
#include "wire/wire.h"

#define FS_CHECKPOINT 300 /* seconds between saves of the current fairshare window */
#define TOKEN_KEEP 86400  /* seconds a submission's token is remembered (store_token_get) */
#define TOKEN_PRUNE_EVERY 600

static int sig_fd = -1; /* write end of the self-pipe, for the handler */

static void on_signal(int sig)
{
    int saved = errno;
    unsigned char c = (unsigned char)sig;
    if (sig_fd >= 0 && write(sig_fd, &c, 1) < 0) {
        /* the pipe is full: the loop wakes anyway */
    }
    errno = saved;
}

static char *join(const char *dir, const char *name)
{
    if (name[0] == '/')
        return xstrdup(name);
    return xprintf("%s/%s", dir, name);
}

static struct cfg *serve_load_cfg(const struct dmn *d, struct err *err)
{
    struct cfg *cfg = cfg_create();
    if ((access(d->cfg_path, F_OK) == 0 && cfg_load_file(cfg, d->cfg_path, err) < 0) ||
        dweb_check(cfg, d->cfg_path, err) < 0) {
        cfg_destroy(cfg);
        return NULL;
    }
    return cfg;
}

/* The cluster: NODECFG lines (virtual nodes sharing this host), else the
 * nodes the resource manager reports. */
static int add_nodes(struct dmn *d, struct sched *s, struct err *err)
{
    if (sched_add_nodes_from_cfg(s, d->cfg, err) < 0)
        return -1;
    if (sched_nnodes(s) || !d->rm.ops->nodes)
        return 0;
    struct node_spec *specs;
    size_t n;
    if (d->rm.ops->nodes(d->rm.ctx, &specs, &n, err) < 0)
        return -1;
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++)
        rc = sched_add_node(s, &specs[i], err);
    free(specs);
    return rc;
}

/* A scheduler from d->cfg: policy, credentials, limits, nodes, standing
 * reservations (their instances are made at the first iteration, in the
 * daemon's local time zone: PERIOD=DAY windows follow the wall clock of
 * the machine). Administrative reservations come from the store
 * (dresv_restore), once the scheduler is d->s. d->s is not touched: the
 * new scheduler is passed to what fills it, so that a refused one leaves
 * the running one as it was. */
static struct sched *build_sched(struct dmn *d, struct err *err)
{
    struct sched_policy pol;
    if (sched_policy_from_cfg(d->cfg, &pol, err) < 0)
        return NULL;
    /* Slurm splits a job's tasks over the nodes moku gives it its own way:
     * the engine's split must be that one (docs/slurm.md). */
    pol.fill_in_order = d->rm.ops->intake != NULL;
    struct sched *s = sched_create(&pol, &(struct sched_rm){.start = djobs_rm_start,
                                                            .preempt = dpreempt_rm_preempt,
                                                            .resume = dpreempt_rm_resume,
                                                            .ctx = d});
    if (sched_creds_from_cfg(s, d->cfg, err) < 0 || sched_limits_from_cfg(s, d->cfg, err) < 0 ||
        add_nodes(d, s, err) < 0 || dtorque_nodes_restore(d, s, err) < 0 ||
        sched_standing_from_cfg(s, d->cfg, err) < 0) {
        sched_destroy(s);
        return NULL;
    }
    sched_set_zone(s, 1, 0);
    sched_set_dep_lookup(s, ddep_lookup, d);
    /* Each user's jobs are bounded by default (issue 28: one user once
     * queued 56,908); USERCFG[DEFAULT] MAXSUBMITJOBS=n in maui.cfg says
     * otherwise. */
    sched_default_maxsubmit(s, CRED_USER, DSPACE_USER_JOBS);
    return s;
}

/* ---- fairshare: the store holds the windows, STATDIR the FS files ---- */

static void fs_save_slot(struct dmn *d, int slot)
{
    struct fs *f = sched_fs(d->s);
    const struct fs_params *p = fs_params(f);
    if (p->policy == FS_NONE)
        return;
    long start = fs_window_start(f) + fs_epoch(f) - slot * p->interval;
    struct err e;
    int rc = 0;
    for (int k = 0; k < CRED_NKINDS && rc == 0; k++) {
        struct cred_table *t = sched_creds(d->s, (enum cred_kind)k);
        for (size_t i = 0; i < cred_count(t) && rc == 0; i++) {
            double u = fs_window(f, cred_at(t, i), slot);
            if (u > 0)
                rc = store_fs_put(d->st, fsfile_type_word(k), cred_at(t, i)->name, start, u, &e);
        }
    }
    if (rc == 0)
        rc = store_fs_put(d->st, fsfile_type_word(FSFILE_TOTAL), "TOTAL", start,
                          fs_total_window(f, slot), &e);
    if (rc < 0)
        dlog(d->log, 0, "warning: fairshare window not saved: %s", e.msg);
    if (rc == 0 && slot == 0) {
        char at[32];
        snprintf(at, sizeof at, "%ld", fs_now(f));
        if (store_kv_set(d->st, "fs_saved_at", at, &e) < 0)
            dlog(d->log, 0, "warning: fairshare checkpoint time not saved: %s", e.msg);
    }
    const char *dir = cfg_str(d->cfg, "STATDIR", NULL);
    char *path = join(d->home, dir ? dir : "stats");
    if (fsfile_save(path, d->s, slot, FSFILE_SYNC, &e) < 0)
        dlog(d->log, 0, "warning: %s", e.msg);
    free(path);
}

/* The FS files of windows past FSDEPTH are never read again: remove them,
 * so that a short FSINTERVAL does not fill STATDIR (the store keeps the
 * windows the daemon restarts from). */
static void fs_prune_files(struct dmn *d)
{
    const char *dir = cfg_str(d->cfg, "STATDIR", NULL);
    char *path = join(d->home, dir ? dir : "stats");
    struct err e;
    if (fsfile_prune(path, fsfile_oldest_kept(d->s), &e) < 0)
        dlog(d->log, 0, "warning: %s", e.msg);
    free(path);
}

struct fs_load {
    struct dmn *d;
    long current; /* epoch start of the current window */
};

static int fs_load_one(void *ctx, const char *kind, const char *name, long window, double usage)
{
    struct fs_load *l = ctx;
    struct fs *f = sched_fs(l->d->s);
    long interval = fs_params(f)->interval;
    if (window > l->current || (l->current - window) % interval)
        return 0;
    int slot = (int)((l->current - window) / interval);
    int type = fsfile_type_of(kind);
    if (type == FSFILE_TOTAL)
        fs_set_total_window(f, slot, usage);
    else if (type >= 0)
        fs_set_window(f, cred_get(sched_creds(l->d->s, (enum cred_kind)type), name), slot, usage);
    return 0;
}

/*
 * Load the fairshare windows. The ledger starts at the last checkpoint, not
 * at now: jobs found still running then accrue from the checkpoint on, and
 * jobs that ended since are charged from it (djobs_restore), so a crash
 * between checkpoints loses no usage.
 */
static void fs_restore(struct dmn *d, long now)
{
    struct fs *f = sched_fs(d->s);
    const struct fs_params *p = fs_params(f);
    d->fs_saved_at = now;
    if (p->policy == FS_NONE)
        return;
    char v[32];
    if (store_kv_get(d->st, "fs_saved_at", v, sizeof v, NULL) == 1 && atol(v) > 0 && atol(v) <= now)
        d->fs_saved_at = atol(v);
    fs_advance(f, d->fs_saved_at);
    struct fs_load l = {d, fs_window_start(f) + fs_epoch(f)};
    struct err e;
    if (store_fs_load(d->st, l.current - (long)p->depth * p->interval, fs_load_one, &l, &e) < 0)
        dlog(d->log, 0, "warning: fairshare history not loaded: %s", e.msg);
}

/* Close the fairshare windows that ended by now, saving each. */
static void fs_close(struct dmn *d, long now)
{
    struct fs *f = sched_fs(d->s);
    const struct fs_params *p = fs_params(f);
    if (p->policy == FS_NONE)
        return;
    long end;
    int closed = 0;
    while ((end = fs_window_start(f) + p->interval) <= now) {
        fs_advance(f, end);
        fs_save_slot(d, 1);
        closed = 1;
    }
    if (closed)
        fs_prune_files(d);
    if (now - d->last_fs_save >= FS_CHECKPOINT) {
        fs_advance(f, now);
        fs_save_slot(d, 0);
        d->last_fs_save = now;
    }
}

static double mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/*
 * An iteration whose transaction could not begin or commit: its changes are
 * not in the database, while the engine has made them (starts, ends,
 * expired reservations). The state is rebuilt from the database
 * (serve_recover), and the next iteration waits — a second, then twice as
 * long each time up to a minute — instead of retrying at once for ever (a
 * full disk stays full). Requests are answered meanwhile; changes they ask
 * for are refused while commits fail.
 */
static void iteration_failed(struct dmn *d, long now)
{
    if (d->fail_streak < 6)
        d->fail_streak++;
    d->want_iter = 0;
    d->next_iter = now + (1L << (d->fail_streak - 1));
    if (d->next_iter > now + 60)
        d->next_iter = now + 60;
    d->hold_until = d->next_iter;
    serve_recover(d);
}

static void serve_iterate(struct dmn *d)
{
    long now = time(NULL);
    double t0 = mono_ms();
    struct err e;
    dspace_group_done(d); /* jobs end here: the next submission counts them afresh */
    if (d->recover && serve_recover(d) < 0)
        return;
    if (store_begin(d->st, &e) < 0) {
        dlog(d->log, 0, "error: iteration skipped: %s", e.msg);
        iteration_failed(d, now);
        return;
    }
    int rm_ok = dintake_poll(d, now) == 0;
    djobs_poll(d, now);
    fs_close(d, now);
    if (now - d->last_prune >= TOKEN_PRUNE_EVERY) {
        /* A retry comes within a minute or so of its first try. */
        store_tokens_prune(d->st, now - TOKEN_KEEP, NULL);
        d->last_prune = now;
    }
    if (!d->paused && rm_ok && !dspace_full(d))
        sched_iterate(d->s, now);
    ddep_sync(d, now);
    if (rm_ok)
        dintake_push(d);
    struct dresv_change rc; /* the reservations that expired */
    if (dresv_save(d, NULL, &rc, &e) < 0)
        dlog(d->log, 0, "error: %s", e.msg);
    crashpt("iteration-before-commit");
    int committed = store_commit(d->st, &e) == 0;
    if (!committed) {
        dlog(d->log, 0, "error: the iteration's changes were not saved: %s", e.msg);
        dspace_commit_failed(d);
    } else
        djobs_forget(d);
    for (size_t i = 0; committed && i < rc.nremoved; i++)
        dlog(d->log, 1, "reservation %s expired", rc.removed[i]);
    dresv_settle(d, &rc, committed);
    dtrig_reap(d);
    dtrig_run(d);
    d->iterations++;
    dlog(d->log, 3, "iteration %ld: %.2f ms, %zu idle, %zu running", d->iterations, mono_ms() - t0,
         sched_nidle(d->s), sched_nrunning(d->s));
    if (!committed || d->recover) {
        iteration_failed(d, now);
        return;
    }
    d->fail_streak = 0;
    d->want_iter = 0;
    d->next_iter = now + d->interval;
    /* A reservation's start or end, or a trigger, before the next poll:
     * iterate then (one due now fires at the next iteration, at once).
     * Not while paused: nothing would move, and a due trigger would spin. */
    long ev = d->paused || dspace_full(d) ? LONG_MAX : sched_next_event(d->s, now, 1);
    int due = ev <= now;
    if (due)
        ev = d->due_now ? now + 1 : now; /* due twice in a row: once a second at most */
    d->due_now = due;
    if (ev < d->next_iter)
        d->next_iter = ev;
    /* What time alone changes (policy/wake.c). "Now" only right after an
     * iteration that started jobs under limits, so it cannot repeat for
     * ever; the simulator iterates at these very instants. */
    long wake = d->paused ? LONG_MAX : sched_next_wakeup(d->s, now);
    long poll = d->paused ? LONG_MAX : sched_next_poll(d->s, now);
    if (wake < d->next_iter)
        d->next_iter = wake;
    if (poll < d->next_iter)
        d->next_iter = poll;
}

/* ---- connections ---- */

/*
 * The reply as text. With raw (the request said "raw": true, as moku's own
 * client does) an "output" string leaves the JSON and follows it as it is,
 * after one newline: compact JSON holds no newline of its own, so the first
 * one ends it. A showq of 100,000 jobs is 8 MB of text, which escaping into
 * a JSON string and parsing out again cost more than making it (issue 31).
 * An output with a NUL byte in it stays in the JSON (it could not be split).
 */
static char *reply_text(json_t *reply, int raw)
{
    json_t *out = json_object_get(reply, "output");
    if (!raw || !json_is_string(out) || strlen(json_string_value(out)) != json_string_length(out))
        return json_dumps(reply, JSON_COMPACT);
    json_incref(out);
    json_object_del(reply, "output");
    char *head = json_dumps(reply, JSON_COMPACT);
    if (!head) {
        json_decref(out);
        return NULL;
    }
    size_t nh = strlen(head), no = json_string_length(out);
    char *text = xmalloc(nh + 1 + no + 1);
    memcpy(text, head, nh);
    text[nh] = '\n';
    memcpy(text + nh + 1, json_string_value(out), no + 1);
    free(head);
    json_decref(out);
    return text;
}

char *serve_reply(void *ctx, uid_t uid, gid_t gid, const char *body, size_t len)
{
    struct dmn *d = ctx;
    json_t *reply;
    json_error_t je;
    int raw = 0;
    json_t *req = d->st ? json_loadb(body, len, JSON_REJECT_DUPLICATES, &je) : NULL;
    if (!d->st) { /* a recovery failed in this pass (serve_settle): the daemon stops */
        reply = json_pack("{s:b, s:i, s:s}", "ok", 0, "exit", 1, "error",
                          "the daemon is stopping: its database could not be reopened (see its "
                          "log)");
    } else if (!req) {
        reply = json_pack("{s:b, s:i, s:s}", "ok", 0, "exit", 1, "error",
                          "bad request: not valid JSON");
    } else {
        /* "raw": true asks for the output after the JSON (reply_text); a
         * value not a boolean stays, and is refused as a field no command
         * reads. */
        json_t *r = json_is_object(req) ? json_object_get(req, "raw") : NULL;
        if (json_is_boolean(r)) {
            raw = json_is_true(r);
            json_object_del(req, "raw");
        }
        reply = dreq_answer(d, uid, gid, req);
        json_decref(req);
    }
    crashpt("request-before-reply");
    char *text = reply_text(reply, raw);
    json_decref(reply);
    return text;
}

/*
 * Group commit (dconn.h): the submissions of one pass of the loop share one
 * transaction and one fsync; each is answered once that commit is done.
 * Only local submissions join: they act on nothing outside the store (the
 * job starts at an iteration, after its record is durable). A request that
 * does not join is answered after the group is committed, so a change it
 * makes (a start, a cancel's signal) never rests on one not yet durable.
 */
static int serve_joins(void *ctx, uid_t uid, const char *body, size_t len)
{
    struct dmn *d = ctx;
    if (!d->st || d->rm.ops->submit || d->recover)
        return 0;
    int joins = dreq_is_submit(body, len);
    if (joins && !store_group_is_open(d->st) && store_group_open(d->st, NULL) < 0)
        return 0; /* a transaction is open (cannot be, between requests): on its own */
    return joins;
}

static char *serve_settle(void *ctx, int *alone)
{
    struct dmn *d = ctx;
    struct err e;
    if (!d->st) /* a recovery failed in this pass: nothing is open, the daemon stops */
        return NULL;
    int pending = store_group_pending(d->st);
    /* The group's tally (dspace.c) stays for the next group when the commit
     * succeeds: it is what the jobs are, and only an iteration or a request
     * outside a group changes them otherwise (both drop it). Counting it
     * afresh each group was a pass over every job per fsync (issue 31). */
    if (pending)
        crashpt("group-before-commit"); /* nothing of the group is durable: all retried */
    if (store_group_close(d->st, &e) == 0) {
        if (pending)
            crashpt("submit-committed"); /* all durable, none answered: retries find them */
        return NULL;
    }
    dlog(d->log, 0,
         "error: a group of submissions could not be saved (each is tried again on its "
         "own): %s",
         e.msg);
    dspace_group_done(d);    /* counted the jobs that were not saved */
    dspace_commit_failed(d); /* a full disk: the reserve makes room for the next try */
    /* The engine holds jobs the store does not: rebuilt from the last
     * commit now, so that each member, answered again in its own commit,
     * meets the state it would have met alone (an innocent submission is
     * not refused for another's failure). */
    *alone = serve_recover(d) == 0;
    json_t *r = dreply_err("submit: the change could not be saved: %s", e.msg);
    char *text = json_dumps(r, JSON_COMPACT);
    json_decref(r);
    return text;
}

/* SIGUSR1: the log file was moved away (logrotate): write a new one. */
static void reopen_log(struct dmn *d)
{
    struct err e;
    if (dlog_reopen(d->log, &e) < 0)
        dlog(d->log, 0, "warning: %s", e.msg);
    else
        dlog(d->log, 0, "log reopened");
}

static void drain_signals(struct dmn *d)
{
    unsigned char buf[64];
    ssize_t n;
    while ((n = read(d->sig[0], buf, sizeof buf)) > 0)
        for (ssize_t i = 0; i < n; i++) {
            if (buf[i] == SIGCHLD) {
                d->want_iter = 1; /* a supervisor ended: a job has ended */
                dtrig_reap(d);    /* or a trigger's command */
            } else if (buf[i] == SIGHUP) {
                d->reload = 1;
            } else if (buf[i] == SIGUSR1) {
                reopen_log(d);
            } else {
                d->stop = 1;
            }
        }
}

/* The log maui.cfg asks for (LOGDIR, LOGFILE, LOGLEVEL, LOGFILEMAXSIZE,
 * LOGFILEROLLDEPTH), opened. */
static struct dlog *log_of(const struct dmn *d, const struct cfg *cfg, struct err *err)
{
    if (d->log_sink != DLOG_FILE) /* syslog or the journal: no file */
        return dlog_open_system(d->log_sink, (int)cfg_int(cfg, "LOGLEVEL", NULL));
    const char *dir = cfg_str(cfg, "LOGDIR", NULL);
    char *logdir = join(d->home, dir ? dir : ".");
    mkdir(logdir, 0700);
    char *path = join(logdir, cfg_str(cfg, "LOGFILE", NULL));
    struct dlog *l = dlog_open(path, (int)cfg_int(cfg, "LOGLEVEL", NULL),
                               (long)cfg_int(cfg, "LOGFILEMAXSIZE", NULL),
                               (int)cfg_int(cfg, "LOGFILEROLLDEPTH", NULL), err);
    if (l)
        chmod(path, 0600); /* a log from before moku kept it private */
    free(path);
    free(logdir);
    return l;
}

/* Log line at level 0, and append it to *report when report is not NULL. */
static void tell(struct dmn *d, char **report, const char *line)
{
    dlog(d->log, 0, "%s", line);
    if (report) {
        char *more = xprintf("%s%s\n", *report ? *report : "", line);
        free(*report);
        *report = more;
    }
}

/* maui.cfg's warnings (unknown parameters and attributes: ignored, as the
 * simulator ignores them) and standing reservations that can reserve
 * nothing, one per line. Caller frees; NULL when there are none. */
static char *warnings(const struct dmn *d)
{
    char *out = NULL, *sr = sched_standing_warnings(d->s);
    for (size_t i = 0; i < cfg_nwarnings(d->cfg); i++) {
        char *more = xprintf("%s%s\n", out ? out : "", cfg_warning(d->cfg, i));
        free(out);
        out = more;
    }
    if (sr) {
        char *more = xprintf("%s%s", out ? out : "", sr);
        free(out);
        free(sr);
        out = more;
    }
    return out;
}

/* The warnings to the log, and onto *report (when not NULL), and to
 * stderr when told (a detached daemon's terminal is still there). */
static void log_warnings(struct dmn *d, char **report, int to_stderr)
{
    char *all = warnings(d);
    for (char *p = all, *nl; p && (nl = strchr(p, '\n')); p = nl + 1) {
        char *line = xprintf("warning: %.*s", (int)(nl - p), p);
        tell(d, report, line);
        if (to_stderr)
            fprintf(stderr, "moku serve: %s\n", line);
        free(line);
    }
    free(all);
}

/*
 * Replace the engine by s (built from d->cfg) and load into it what the
 * database holds: fairshare windows, administrative reservations, jobs
 * (running ones found again through the resource manager). Problems are
 * logged and told (report, may be NULL).
 */
static void restore_into(struct dmn *d, struct sched *s, char **report)
{
    struct err e;
    sched_destroy(d->s);
    djobs_free(d);
    dspace_group_done(d); /* the jobs are read again: counted afresh */
    d->s = s;
    d->rm_resync = 1; /* the resource manager's reservations, into the new engine */
    fs_restore(d, time(NULL));
    char *line = NULL;
    if (dresv_restore(d, &e) < 0)
        line = xprintf("error: administrative reservations not restored: %s", e.msg);
    if (line)
        tell(d, report, line);
    free(line);
    line = djobs_restore(d, &e) < 0 ? xprintf("error: jobs not restored: %s", e.msg) : NULL;
    if (line)
        tell(d, report, line);
    free(line);
}

int serve_recover(struct dmn *d)
{
    struct err e;
    d->recover = 0;
    dlog(d->log, 0, "recovering: the engine is rebuilt from the database (its last commit)");
    store_close(d->st); /* rolls back what is open; a broken connection goes with it */
    d->st = store_open(d->db_path, &e);
    struct sched *s = d->st ? build_sched(d, &e) : NULL;
    if (!s) {
        dlog(d->log, 0,
             "error: cannot recover, moku stops (exit 1; restart it once the cause "
             "is mended): %s",
             e.msg);
        d->stop = 1;
        d->exit_status = 1;
        return -1;
    }
    restore_into(d, s, NULL);
    return 0;
}

/*
 * Apply a new maui.cfg between iterations: a new engine with the same jobs
 * requires restoring them; the state is in the store, so rebuild from it.
 * Everything that can refuse the file — parsing, the policy, credentials,
 * limits, nodes, standing reservations, the new log — is built aside
 * first, so a refused file changes nothing.
 */
/* The RMCFG object with a TYPE, or NULL (the first: open_rm refuses two). */
static const struct cfg_obj *rm_obj(const struct cfg *cfg)
{
    for (size_t i = 0; i < cfg_nobjs(cfg); i++) {
        const struct cfg_obj *o = cfg_obj_at(cfg, i);
        if (strcmp(o->kind, "RMCFG") == 0 && cfg_obj_get(o, "TYPE", NULL))
            return o;
    }
    return NULL;
}

static int serve_reload(struct dmn *d, char **report, struct err *err)
{
    *report = NULL;
    struct err e;
    struct cfg *cfg = serve_load_cfg(d, &e);
    struct cfg *old_cfg = d->cfg;
    struct sched *s = NULL;
    struct dlog *log = NULL;
    if (cfg) {
        d->cfg = cfg;
        s = build_sched(d, &e);
        log = s ? log_of(d, cfg, &e) : NULL;
        d->cfg = old_cfg;
    }
    if (!log) {
        sched_destroy(s);
        cfg_destroy(cfg);
        dlog(d->log, 0, "reload refused, configuration kept: %s", e.msg);
        return err_set(err, "%s", e.msg);
    }
    d->cfg = cfg;
    drights_forget(d); /* the ADMIN lists may have changed */
    dlog_adopt(d->log, log);
    fs_save_slot(d, 0);
    crashpt("reload-before-restore"); /* the new engine built, nothing of the store in it */
    restore_into(d, s, report);       /* the old engine may borrow from the old cfg: first */
    crashpt("reload-restored");
    cfg_destroy(old_cfg);
    d->interval = cfg_time(d->cfg, "RMPOLLINTERVAL", NULL);
    dspace_open(d); /* a new DISKRESERVE */
    d->want_iter = 1;
    log_warnings(d, report, 0);
    char *line = xprintf("configuration reloaded from %s", d->cfg_path);
    tell(d, report, line);
    free(line);
    const struct cfg_obj *rm = rm_obj(d->cfg);
    const char *type = rm ? cfg_obj_get(rm, "TYPE", NULL) : "LOCAL";
    if (strcasecmp(type, d->rm.ops->name) != 0) {
        line = xprintf("RMCFG TYPE=%s takes effect at the next start: the resource manager is "
                       "%s until then",
                       type, d->rm.ops->name);
        tell(d, report, line);
        free(line);
    }
    if ((line = dweb_changed(d))) {
        tell(d, report, line);
        free(line);
    }
    return 0;
}

/* SIGHUP: the same, told to the log alone. */
static void reload(struct dmn *d)
{
    char *report;
    struct err e;
    d->reload = 0;
    serve_reload(d, &report, &e);
    free(report);
}

/* A requested iteration waits for a burst of requests to end — a pause of
 * ITER_QUIET_MS, at most ITER_BATCH_MS in all — so that requests are
 * answered first and one iteration then serves them all: a script that
 * submits a thousand jobs gets tens of iterations, not a thousand. */
#define ITER_BATCH_MS 50
#define ITER_QUIET_MS 5

static void loop(struct dmn *d)
{
    struct dconn_set conns = {0};
    int quiet = 1;
    double want_since = 0;
    struct pollfd *pfd = xcalloc(DCONN_MAX + 3, sizeof *pfd);
    size_t dropped = 0;
    while (!d->stop) {
        if (d->recover && serve_recover(d) < 0)
            break;
        if (d->reload)
            reload(d);
        dspace_check(d); /* before the iteration records anything */
        long now = time(NULL);
        if (now < d->hold_until)
            d->want_iter = 0; /* commits failed lately: iterations wait (iteration_failed) */
        if (d->want_iter && want_since == 0)
            want_since = mono_ms();
        if (now >= d->next_iter ||
            (d->want_iter && (quiet || mono_ms() - want_since >= ITER_BATCH_MS))) {
            serve_iterate(d);
            dweb_sample(d, time(NULL));
            want_since = 0;
            if (d->stop)
                break;
        }
        pfd[0] = (struct pollfd){.fd = d->lfd, .events = POLLIN};
        pfd[1] = (struct pollfd){.fd = d->sig[0], .events = POLLIN};
        /* The web view's descriptor, or none (poll skips a negative fd). */
        pfd[2] = (struct pollfd){.fd = d->web ? web_fd(d->web) : -1, .events = POLLIN};
        size_t npfd = dconn_pollfds(&conns, pfd + 3);
        long wait = (d->next_iter - time(NULL)) * 1000;
        if (wait < 0)
            wait = 0;
        if (d->want_iter)
            wait = ITER_QUIET_MS; /* an iteration is due: unless requests keep coming */
        if (npfd && wait > 1000)
            wait = 1000; /* to time out slow clients */
        long web_wait = d->web ? web_wait_ms(d->web) : -1;
        if (web_wait >= 0 && web_wait < wait)
            wait = web_wait;
        int ready = poll(pfd, (nfds_t)npfd + 3, (int)(wait > INT_MAX ? INT_MAX : wait));
        if (ready < 0 && errno != EINTR)
            break;
        quiet = ready <= 0;
        if (pfd[1].revents)
            drain_signals(d);
        if (d->web)
            web_run(d->web); /* its requests, and its connections' time-outs */
        /* New connections first: dconn_service tries them at once, so that
         * their submissions join this pass's group. */
        if (pfd[0].revents)
            dconn_accept(&conns, d->lfd, time(NULL));
        if (!quiet)
            dspace_check(d); /* before requests record anything */
        dconn_service(&conns, pfd + 3, npfd, time(NULL),
                      &(struct dconn_ops){serve_reply, serve_joins, serve_settle, d});
        if (conns.dropped > dropped) {
            dlog(d->log, 2, "%zu connections dropped by the limits so far", conns.dropped);
            dropped = conns.dropped;
        }
    }
    dconn_close_all(&conns);
    free(pfd);
}

/* ---- set-up ---- */

static int setup_signals(struct dmn *d, struct err *err)
{
    if (pipe(d->sig) < 0)
        return err_set(err, "pipe: %s", strerror(errno));
    for (int i = 0; i < 2; i++) {
        fcntl(d->sig[i], F_SETFL, O_NONBLOCK);
        fcntl(d->sig[i], F_SETFD, FD_CLOEXEC);
    }
    sig_fd = d->sig[1];
    struct sigaction sa = {.sa_handler = on_signal};
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    int sigs[] = {SIGCHLD, SIGTERM, SIGINT, SIGHUP, SIGUSR1};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        sigaction(sigs[i], &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    return 0;
}

static int open_log(struct dmn *d, struct err *err)
{
    d->log = log_of(d, d->cfg, err);
    return d->log ? 0 : -1;
}

/*
 * One daemon per home: an exclusive flock on HOME/moku.lock, taken by the
 * process that serves before it touches the database, and held (the open
 * descriptor) until it exits; the kernel drops it at any death. A second
 * `moku serve` is refused here, before it opens anything: SQLite's own
 * locks are per process, and a second connection that thinks itself alone
 * removes the WAL the first is committing into. The file holds the
 * holder's pid, for the message.
 */
static int lock_home(struct dmn *d, struct err *err)
{
    char *path = join(d->home, "moku.lock");
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) {
        err_set(err, "%s: %s", path, strerror(errno));
        free(path);
        return -1;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
        int e = errno;
        char buf[32] = "";
        ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
        buf[n > 0 ? n : 0] = '\0';
        buf[strcspn(buf, "\n")] = '\0';
        close(fd);
        if (e == EWOULDBLOCK)
            err_set(err,
                    "%s is served already (moku serve, pid %s, holds %s): stop it first "
                    "(schedctl -k)",
                    d->home, *buf ? buf : "?", path);
        else
            err_set(err, "%s: cannot lock: %s", path, strerror(e));
        free(path);
        return -1;
    }
    free(path);
    char pid[32];
    int len = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
    if (ftruncate(fd, 0) < 0 || pwrite(fd, pid, (size_t)len, 0) != len) {
        /* the pid is for the message only */
    }
    d->lockfd = fd;
    return 0;
}

/*
 * HOME/moku.pid: the serving process's id, for init scripts and
 * administrators (moku.lock holds it too, but a lock file is not where
 * tools look). Written after the lock is taken — only the daemon that
 * holds the home writes it — through a new file renamed into place, so a
 * reader never sees half of it; removed at exit (teardown). A failure is
 * not fatal: the lock, not this file, keeps one daemon per home.
 */
static void write_pidfile(struct dmn *d)
{
    char *path = join(d->home, "moku.pid"), *tmp = xprintf("%s.new", path);
    /* A new file, never one a link points to (a home others can write
     * must not make root write elsewhere); 0644: a pid is no secret. */
    unlink(tmp);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    char num[32];
    int len = snprintf(num, sizeof num, "%ld\n", (long)getpid());
    int ok = fd >= 0 && fchmod(fd, 0644) == 0 && write(fd, num, (size_t)len) == len;
    if (fd >= 0 && close(fd) != 0)
        ok = 0;
    if (ok && rename(tmp, path) == 0) {
        d->pid_path = path;
    } else {
        unlink(tmp);
        free(path);
    }
    free(tmp);
}

/*
 * A database file of 0 bytes is what a full disk, a bad copy or a truncation
 * leaves; SQLite would take it for a new database and the daemon would start
 * with no history, its job ids from 1 again. Refused unless the
 * administrator asks for a fresh start (--fresh), which in turn is refused
 * when the file holds anything: history is never thrown away by an option.
 */
static int check_db(const struct dmn *d, int fresh, struct err *err)
{
    struct stat sb;
    if (lstat(d->db_path, &sb) < 0) {
        if (errno == ENOENT)
            return 0; /* a new home */
        return err_set(err, "%s: %s", d->db_path, strerror(errno));
    }
    if (!S_ISREG(sb.st_mode))
        return err_set(err, "%s: not a regular file", d->db_path);
    if (sb.st_size == 0 && !fresh)
        return err_set(err,
                       "%s is empty (0 bytes): the daemon's state is gone (a full disk? a bad "
                       "copy?). Restore it from a backup, or start anew with `moku serve "
                       "--fresh` (job ids and history start over)",
                       d->db_path);
    if (sb.st_size > 0 && fresh)
        return err_set(err,
                       "--fresh: %s holds the daemon's state (%lld bytes); it is not thrown "
                       "away by an option: move it aside first",
                       d->db_path, (long long)sb.st_size);
    return 0;
}

/*
 * The database holds every job's script and environment: readable by the
 * daemon's user alone (administrators read them through the commands).
 * New files are so by the daemon's umask (077, daemon_serve); these are
 * files a moku before this one left 0644. SQLite gives its -wal and -shm
 * files the database's mode.
 */
static void private_state(const struct dmn *d)
{
    static const char *const suffix[] = {"", "-wal", "-shm"};
    for (size_t i = 0; i < sizeof suffix / sizeof suffix[0]; i++) {
        char *path = xprintf("%s%s", d->db_path, suffix[i]);
        chmod(path, 0600); /* ENOENT: not there yet */
        free(path);
    }
}

/* The resource manager maui.cfg names (RMCFG[name] TYPE=LOCAL, the
 * default, or TYPE=SLURM with CONFIGFILE=slurm.conf or SLURM_CONF). Read
 * at start-up only: a reload keeps it (serve_reload says so). */
static int open_rm(struct dmn *d, struct err *err)
{
    const struct cfg_obj *rm = NULL;
    for (size_t i = 0; i < cfg_nobjs(d->cfg); i++) {
        const struct cfg_obj *o = cfg_obj_at(d->cfg, i);
        if (strcmp(o->kind, "RMCFG") != 0 || !cfg_obj_get(o, "TYPE", NULL))
            continue;
        if (rm)
            return err_set(err,
                           "%s: RMCFG[%s] and RMCFG[%s]: moku drives one resource "
                           "manager",
                           d->cfg_path, rm->name, o->name);
        rm = o;
    }
    const char *type = rm ? cfg_obj_get(rm, "TYPE", NULL) : "LOCAL";
    if (strcasecmp(type, "SLURM") == 0) {
        for (size_t i = 0; i < cfg_nobjs(d->cfg); i++) {
            const struct cfg_obj *o = cfg_obj_at(d->cfg, i);
            if (strcmp(o->kind, "NODECFG") == 0 && strcmp(o->name, "DEFAULT") != 0)
                return err_set(err,
                               "%s: NODECFG[%s] with RMCFG[%s] TYPE=SLURM: the nodes "
                               "are Slurm's (docs/slurm.md)",
                               d->cfg_path, o->name, rm->name);
        }
        if (!(d->slurm = slurm_rm_open(cfg_obj_get(rm, "CONFIGFILE", NULL), err)))
            return -1;
        d->rm = (struct rm){&rm_slurm_ops, d->slurm};
        return 0;
    }
    if (strcasecmp(type, "LOCAL") != 0)
        return err_set(err,
                       "%s: RMCFG[%s] TYPE=%s: moku drives TYPE=LOCAL (this machine) or "
                       "TYPE=SLURM",
                       d->cfg_path, rm->name, type);
    if (!(d->local = local_create(d->spool, d->exe, err)))
        return -1;
    d->rm = (struct rm){&rm_local_ops, d->local};
    return 0;
}

/* One clock (issue 30): the commands' answers print dates in the daemon's
 * local time zone, as its log does, and the web view shows that zone. Said
 * once at the start, with the zone's name, so that a log read elsewhere
 * says which clock its times are on (each line carries the offset). */
static void log_clock(struct dmn *d)
{
    cmd_use_local_time(1);
    struct cmd_zone z;
    cmd_clock_zone(d->started, &z);
    dlog(d->log, 0, "clock: times are in %s (%s, UTC%c%02ld:%02ld; TZ chooses the zone)",
         z.name[0] ? z.name : "the local zone", z.abbrev, z.offset < 0 ? '-' : '+',
         labs(z.offset) / 3600, labs(z.offset) % 3600 / 60);
}

static int setup(struct dmn *d, const char *home, int fresh, struct err *err)
{
    if (mkdir(home, 0755) < 0 && errno != EEXIST)
        return err_set(err, "%s: cannot create: %s", home, strerror(errno));
    char *abs = realpath(home, NULL);
    if (!abs)
        return err_set(err, "%s: %s", home, strerror(errno));
    d->home = abs;
    d->loop = (struct dmn_loop){.reload = serve_reload};
    d->cfg_path = join(abs, "maui.cfg");
    d->db_path = join(abs, "moku.db");
    d->sock_path = join(abs, "moku.sock");
    d->spool = join(abs, "spool");
    d->exe = realpath("/proc/self/exe", NULL);
    if (!d->exe)
        return err_set(err, "/proc/self/exe: %s", strerror(errno));
    if (lock_home(d, err) < 0 || check_db(d, fresh, err) < 0)
        return -1;
    write_pidfile(d);
    private_state(d);
    if (!(d->cfg = serve_load_cfg(d, err)) || open_log(d, err) < 0)
        return -1;
    /* Before the database: on a full disk the reserve makes room to open it. */
    dspace_open(d);
    if (!(d->st = store_open(d->db_path, err)))
        return -1;
    if (open_rm(d, err) < 0)
        return -1;
    if (!(d->s = build_sched(d, err)))
        return -1;
    d->interval = cfg_time(d->cfg, "RMPOLLINTERVAL", NULL);
    char v[8];
    d->paused = store_kv_get(d->st, "paused", v, sizeof v, NULL) == 1 && strcmp(v, "1") == 0;
    d->started = time(NULL);
    log_clock(d);
    fs_restore(d, d->started);
    d->last_fs_save = d->started;
    /* Reservations before jobs: running jobs adopted inside one are charged
     * to it. */
    if (dresv_restore(d, err) < 0 || djobs_restore(d, err) < 0)
        return -1;
    /* A first checkpoint: the usage of the jobs this daemon starts is safe
     * from the start. */
    if (fs_params(sched_fs(d->s))->policy != FS_NONE && store_begin(d->st, NULL) == 0) {
        fs_save_slot(d, 0);
        store_commit(d->st, NULL);
    }
    if (setup_signals(d, err) < 0)
        return -1;
    if ((d->lfd = wire_listen(d->sock_path, err)) < 0)
        return -1;
    return dweb_open(d, err);
}

static void teardown(struct dmn *d)
{
    if (d->s && d->st) {
        fs_advance(sched_fs(d->s), time(NULL));
        fs_save_slot(d, 0);
    }
    if (d->lfd >= 0) {
        close(d->lfd);
        unlink(d->sock_path);
    }
    dweb_close(d);
    dspace_close(d);
    djobs_free(d);
    dresv_free(d);
    dtrig_free(d);
    sched_destroy(d->s);
    local_destroy(d->local);
    slurm_rm_close(d->slurm);
    store_close(d->st);
    dlog_close(d->log);
    cfg_destroy(d->cfg);
    free(d->home);
    free(d->cfg_path);
    free(d->db_path);
    free(d->sock_path);
    free(d->spool);
    free(d->exe);
    if (d->pid_path) /* before the lock goes: the next daemon writes its own */
        unlink(d->pid_path);
    free(d->pid_path);
    if (d->lockfd >= 0)
        close(d->lockfd); /* last: the next daemon may open the database now */
}

/*
 * Into the background, before anything is opened: the database, the lock,
 * the log and the socket belong to the process that serves (SQLite's locks
 * are per process: a connection opened before a fork is unlocked in the
 * child). The parent waits on a pipe until the child says it is serving
 * (exit 0) or ends (exit 1; the child has printed why on the terminal,
 * which is still its standard error). Returns in the child only.
 */
static int detach_early(int *ready)
{
    int p[2];
    if (pipe(p) < 0) {
        fprintf(stderr, "moku serve: cannot detach: pipe: %s\n", strerror(errno));
        exit(1);
    }
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "moku serve: cannot detach: fork: %s\n", strerror(errno));
        exit(1);
    }
    if (pid > 0) {
        close(p[1]);
        char c = 0;
        ssize_t n;
        while ((n = read(p[0], &c, 1)) < 0 && errno == EINTR)
            ;
        exit(n == 1 && c == '1' ? 0 : 1);
    }
    close(p[0]);
    fcntl(p[1], F_SETFD, FD_CLOEXEC); /* not for supervisors and triggers */
    setsid();
    *ready = p[1];
    return 0;
}

/* The child is serving: tell the parent, let go of the terminal. */
static void detached(int ready)
{
    if (write(ready, "1", 1) < 0) {
        /* the parent is gone: nothing to tell */
    }
    close(ready);
    int fd = open("/dev/null", O_RDWR);
    if (fd >= 0) {
        dup2(fd, 0);
        dup2(fd, 1);
        dup2(fd, 2);
        if (fd > 2)
            close(fd);
    }
}

int daemon_serve(const struct daemon_opts *o)
{
    struct dmn d = {.lfd = -1, .lockfd = -1, .sig = {-1, -1}, .log_sink = o->log};
    struct err e;
    int ready = -1;
    /* What the daemon creates — the database, the log, fairshare files,
     * spool files — is its own (spool and script directories that users
     * must reach are opened up explicitly). */
    umask(077);
    if (o->detach)
        detach_early(&ready);
    if (setup(&d, o->home, o->fresh, &e) < 0) {
        fprintf(stderr, "moku serve: %s\n", e.msg);
        char *status = xprintf("STATUS=%s", e.msg);
        dnotify(d.log, status);
        free(status);
        teardown(&d);
        return 1;
    }
    /* The journal sink writes to standard error already. */
    dlog_echo(d.log, !o->detach && o->log == DLOG_FILE);
    log_warnings(&d, NULL, o->detach);
    dlog(d.log, 0, "moku serving %s on %s (%zu nodes, %lld processors, %zu jobs restored)", d.home,
         d.sock_path, sched_nnodes(d.s), sched_up_procs(d.s), d.njobs);
    if (o->detach) {
        detached(ready);
        dlog_echo(d.log, 0);
    }
    /* systemd (Type=notify): the socket listens, the state is restored.
     * Nothing happens without NOTIFY_SOCKET (not under systemd). MAINPID:
     * with --daemon this process is the one that serves. */
    char *ready_msg = xprintf("READY=1\nMAINPID=%ld\nSTATUS=serving %s", (long)getpid(), d.home);
    dnotify(d.log, ready_msg);
    free(ready_msg);
    d.want_iter = 1;
    loop(&d);
    dnotify(d.log, "STOPPING=1");
    dlog(d.log, 0, "moku stopping");
    int status = d.exit_status;
    teardown(&d);
    return status;
}

struct dmn *serve_open(const char *home, int fresh, struct err *err)
{
    struct dmn *d = xcalloc(1, sizeof *d);
    *d = (struct dmn){.lfd = -1, .lockfd = -1, .sig = {-1, -1}};
    if (setup(d, home, fresh, err) < 0) {
        teardown(d);
        free(d);
        return NULL;
    }
    return d;
}

void serve_close(struct dmn *d)
{
    if (!d)
        return;
    teardown(d);
    free(d);
}
