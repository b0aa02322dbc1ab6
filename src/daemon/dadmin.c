/*
 * dadmin — the daemon's administrative commands: schedctl (stop, resume,
 * shut down, reload), resetstats, changeparam, setres and releaseres (the
 * command layer's, then the store made to match the engine's
 * reservations), and moku web's login link. The command's right was
 * checked by dctl.c; a reservation's creator is checked here. A reload is
 * the loop's to do: asked through d->loop (serve.c fills it in).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "cfg/cfg.h"
#include "cmd/cmd.h"
#include "daemon/dadmin.h"
#include "daemon/daemon_int.h"
#include "daemon/dreply.h"
#include "util/mem.h"
#include "web/web.h"

/* ---- schedctl -s | -r | -k | -R ---- */

json_t *dadmin_schedctl(struct dmn *d, const struct peer *p, const char *cmd, int argc, char **argv)
{
    if (argc != 1)
        return dreply_usage("schedctl: usage: schedctl -s|-r|-k|-R");
    if (strcmp(argv[0], "-s") == 0) {
        d->paused = 1;
        store_kv_set(d->st, "paused", "1", NULL);
        dlog(d->log, 0, "scheduling stopped by %s", p->user);
        return dreply_ok("scheduling will stop in 0 iterations\n");
    }
    if (strcmp(argv[0], "-r") == 0) {
        d->paused = 0;
        d->want_iter = 1;
        store_kv_set(d->st, "paused", "0", NULL);
        dlog(d->log, 0, "scheduling resumed by %s", p->user);
        return dreply_ok("scheduling will resume\n");
    }
    if (strcmp(argv[0], "-k") == 0) {
        d->stop = 1;
        dlog(d->log, 0, "shutdown requested by %s", p->user);
        return dreply_ok("moku will be shutdown immediately\n");
    }
    if (strcmp(argv[0], "-R") == 0) {
        /* Now, not later: the reply tells what happened, refusal included. */
        struct err e;
        char *report;
        dlog(d->log, 0, "reload requested by %s", p->user);
        if (d->loop.reload(d, &report, &e) < 0)
            return dreply_err("schedctl: the configuration was not reloaded (the running one is "
                              "kept): %s",
                              e.msg);
        json_t *r = dreply_ok(report);
        free(report);
        return r;
    }
    return dreply_usage("schedctl: unknown option '%.64s' (-s, -r, -k or -R)", argv[0]);
}

/* ---- setres, releaseres ---- */

/* RESCTLPOLICY ANY: any user may create reservations (and release their
 * own); ADMINONLY (the default): ADMIN1 and ADMIN2 alone. */
static int resctl_any(const struct dmn *d)
{
    const char *v = cfg_str(d->cfg, "RESCTLPOLICY", NULL);
    return v && strcasecmp(v, "ANY") == 0;
}

/* A user who is not an administrator may release only the reservations
 * they created: NULL, or the refusal. Ids the engine does not know, or
 * does not let anyone release, are left to the command's own message. */
static json_t *release_refused(struct dmn *d, const struct peer *p, int argc, char **argv)
{
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--format") == 0) {
            i++;
            continue;
        }
        const struct resv *r = sched_find_resv(d->s, argv[i]);
        if (!r || r->kind != RESV_USER)
            continue;
        const struct dresv *dr = dresv_find(d, argv[i]);
        if (!dr || dr->uid != (long)p->uid)
            return dreply_err("releaseres: user %s is not authorized to release reservation "
                              "'%.64s' (only its creator, ADMIN1 or ADMIN2)",
                              p->user, argv[i]);
    }
    return NULL;
}

/* setres -m ID by a user who is not an administrator: only the creator
 * may change it (as releaseres). NULL, or the refusal. */
static json_t *modify_refused(struct dmn *d, const struct peer *p, int argc, char **argv)
{
    for (int i = 0; i < argc; i++) {
        const char *id = strncmp(argv[i], "-m", 2) != 0 ? NULL
                         : argv[i][2]                   ? argv[i] + 2
                         : i + 1 < argc                 ? argv[i + 1]
                                                        : NULL;
        const struct resv *r = id ? sched_find_resv(d->s, id) : NULL;
        if (!r || r->kind != RESV_USER)
            continue;
        const struct dresv *dr = dresv_find(d, id);
        if (!dr || dr->uid != (long)p->uid)
            return dreply_err("setres: user %s is not authorized to modify reservation '%.64s' "
                              "(only its creator, ADMIN1 or ADMIN2)",
                              p->user, id);
    }
    return NULL;
}

/* Record what a setres or releaseres changed: in the event log (inside
 * the transaction), or in the daemon's log (once committed). */
static void resctl_note(struct dmn *d, const struct peer *p, const struct dresv_change *c,
                        int events)
{
    static const char *const event[] = {"setres", "releaseres", "setres -m"};
    static const char *const done[] = {"created", "released", "modified"};
    long now = time(NULL);
    for (int k = 0; k < 3; k++) {
        char *const *ids = k == 0 ? c->added : k == 1 ? c->removed : c->modified;
        size_t n = k == 0 ? c->nadded : k == 1 ? c->nremoved : c->nmodified;
        for (size_t i = 0; i < n; i++) {
            if (events)
                store_event(d->st, now, 0, event[k], ids[i], NULL);
            else
                dlog(d->log, 1, "reservation %s %s by %s", ids[i], done[k], p->user);
        }
    }
}

/*
 * setres ... / releaseres ID...: the command layer's (cmd/resctl.c) with
 * control set, then the store made to match the engine's reservations,
 * committed before the reply. The store is synchronized even when the
 * command failed, so that whatever the engine holds is what is saved.
 */
json_t *dadmin_resctl(struct dmn *d, const struct peer *p, const char *cmd, int argc, char **argv)
{
    int admin = p->admin >= 1 && p->admin <= 2, set = strcmp(cmd, "setres") == 0;
    if (!admin && !resctl_any(d))
        return dreply_err("%s: user %s is not authorized (ADMIN1 or ADMIN2, or RESCTLPOLICY ANY)",
                          cmd, p->user);
    json_t *r = admin ? NULL
                : set ? modify_refused(d, p, argc, argv)
                      : release_refused(d, p, argc, argv);
    if (r || (r = dreply_begin(d)))
        return r;
    char **full = xcalloc((size_t)argc + 2, sizeof *full);
    full[0] = (char *)cmd;
    memcpy(full + 1, argv, (size_t)argc * sizeof *argv);
    struct cmd_ctx ctx = {
        .s = d->s, .cfg = d->cfg, .now = time(NULL), .stats_since = d->stats_since, .control = 1};
    char *out = NULL;
    struct err e, se;
    int rc = cmd_runv(&ctx, argc + 1, full, &out, &e);
    free(full);
    struct dresv_change c;
    if (dresv_save(d, p, &c, &se) < 0 ||
        (!admin && set && dresv_user_refused(d, p, &c, ctx.now, &se))) {
        store_rollback(d->st);
        dresv_settle(d, &c, 0);
        free(out);
        if (strncmp(se.msg, "setres:", 7) == 0)
            return dreply_err("%s", se.msg);
        return dreply_err("%s: the change could not be saved: %s", cmd, se.msg);
    }
    resctl_note(d, p, &c, 1);
    int committed = store_commit(d->st, &se) == 0;
    if (committed)
        resctl_note(d, p, &c, 0);
    else
        d->recover = 1;
    dresv_settle(d, &c, committed);
    if (committed) {
        d->want_iter = 1;
        r = rc < 0 ? dreply_fail(&e) : dreply_ok(out);
    } else {
        r = dreply_err("%s: the change could not be saved: %s", cmd, se.msg);
    }
    free(out);
    return r;
}

/* resetstats: the statistics start again now (ADMIN1, as Maui's). The
 * start is kept in the store (stats_since), so a restart keeps it; showstats
 * counts only the jobs that ended since. */
json_t *dadmin_resetstats(struct dmn *d, const struct peer *p, const char *cmd, int argc,
                          char **argv)
{
    if (argc != 0)
        return dreply_usage("resetstats: unexpected argument '%.64s' (usage: resetstats)", argv[0]);
    json_t *bad = dreply_begin(d);
    if (bad)
        return bad;
    long now = time(NULL);
    char v[32];
    snprintf(v, sizeof v, "%ld", now);
    struct err e;
    if (store_kv_set(d->st, "stats_since", v, &e) < 0) {
        store_rollback(d->st);
        return dreply_err("resetstats: %s", e.msg);
    }
    store_event(d->st, now, 0, "resetstats", p->user, NULL);
    json_t *r = dreply_commit(d, dreply_ok("statistics reset\n"));
    if (json_is_true(json_object_get(r, "ok"))) {
        d->stats_since = now;
        dlog(d->log, 0, "statistics reset by %s", p->user);
    }
    return r;
}

/* changeparam PARAM VALUE...: ADMIN1 only (dparam.c). */
json_t *dadmin_changeparam(struct dmn *d, const struct peer *p, const char *cmd, int argc,
                           char **argv)
{
    char *report;
    struct err e;
    dlog(d->log, 0, "changeparam requested by %s", p->user);
    int owner = p->uid == 0 || p->uid == geteuid();
    if (dparam_change(d, p->user, owner, argc, argv, &report, &e) < 0)
        return dreply_fail(&e);
    json_t *r = dreply_ok(report);
    free(report);
    return r;
}

/* moku web: a one-time login link for the web view, bound to the caller
 * the kernel named (its request takes no arguments: dreq.c). */
json_t *dadmin_weblogin(struct dmn *d, const struct peer *p)
{
    if (!d->web)
        return dreply_err("moku web: the web view is off: set WEBPORT in %s and restart moku "
                          "serve",
                          d->cfg_path);
    struct err e;
    char *url = web_login_url(d->web, p->uid, p->gid, &e);
    if (!url)
        return dreply_err("moku web: %s", e.msg);
    dlog(d->log, 1, "web login link for %s", p->user);
    char *text = xprintf("%s\n", url);
    json_t *r = dreply_ok(text);
    free(text);
    free(url);
    return r;
}
