/*
 * dweb — the daemon's side of the web view: it starts the server (web/)
 * from maui.cfg's WEBPORT and WEBADDRESS, answers its requests as it
 * answers the socket's (dreq_answer, with the session's uid and gid), and
 * keeps the history the page charts. The server itself never reaches into
 * the daemon or the engine: it sees only these callbacks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cfg/cfg.h"
#include "daemon/daemon_int.h"
#include "daemon/dreq.h"
#include "daemon/drights.h"
#include "util/mem.h"
#include "web/web.h"

static json_t *host_request(void *ctx, uid_t uid, gid_t gid, const json_t *req)
{
    return dreq_answer(ctx, uid, gid, req);
}

static json_t *host_history(void *ctx)
{
    struct dmn *d = ctx;
    return dhist_json(&d->hist);
}

static void host_who(void *ctx, uid_t uid, gid_t gid, char *user, size_t nuser, char *group,
                     size_t ngroup, int *admin)
{
    struct peer p = {.uid = uid, .gid = gid};
    drights_peer(ctx, &p);
    snprintf(user, nuser, "%s", p.user);
    snprintf(group, ngroup, "%s", p.group);
    *admin = p.admin;
}

static void host_log(void *ctx, const char *msg)
{
    struct dmn *d = ctx;
    dlog(d->log, 0, "%s", msg);
}

static void hist_row(void *ctx, const long long v[STORE_HIST_COLS])
{
    struct dhist_sample s = {.time = (long)v[0],
                             .procs = v[1],
                             .busy = v[2],
                             .running = (long)v[3],
                             .idle = (long)v[4],
                             .blocked = (long)v[5]};
    dhist_add(ctx, &s);
}

/* The history the store kept: the page's charts go back past a restart. */
static void hist_restore(struct dmn *d)
{
    struct err e;
    if (store_hist_load(d->st, (long)time(NULL) - (long)DHIST_STEP * DHIST_SAMPLES, hist_row,
                        &d->hist, &e) < 0)
        dlog(d->log, 0, "the web view's history could not be read: %s", e.msg);
}

int dweb_open(struct dmn *d, struct err *err)
{
    if (!cfg_is_set(d->cfg, "WEBPORT", NULL))
        return 0;
    const char *addr = cfg_str(d->cfg, "WEBADDRESS", NULL);
    int port = (int)cfg_int(d->cfg, "WEBPORT", NULL);
    struct web_host host = {d, host_request, host_history, host_who, host_log};
    struct err e;
    if (!(d->web = web_open(addr ? addr : "127.0.0.1", port, &host, &e)))
        return err_set(err, "%s: %s", d->cfg_path, e.msg);
    dlog(d->log, 0, "web view at %s (moku web prints a login link)", web_url(d->web));
    hist_restore(d);
    return 0;
}

int dweb_check(const struct cfg *cfg, const char *path, struct err *err)
{
    if (!cfg_is_set(cfg, "WEBPORT", NULL))
        return 0;
    const char *addr = cfg_str(cfg, "WEBADDRESS", NULL);
    struct err e;
    if (web_check_address(addr ? addr : "127.0.0.1", (int)cfg_int(cfg, "WEBPORT", NULL), &e) < 0)
        return err_set(err, "%s: %s", path, e.msg);
    return 0;
}

/* Whether the running web view is the one maui.cfg asks for now (WEBPORT 0
 * is any port the kernel picked). */
static int as_configured(const struct dmn *d)
{
    int want = cfg_is_set(d->cfg, "WEBPORT", NULL);
    if (!want || !d->web)
        return !want && !d->web;
    const char *addr = cfg_str(d->cfg, "WEBADDRESS", NULL);
    long long port = cfg_int(d->cfg, "WEBPORT", NULL);
    char *prefix = xprintf("http://%s:", addr ? addr : "127.0.0.1");
    const char *have = web_url(d->web);
    size_t n = strlen(prefix);
    int same = strncmp(have, prefix, n) == 0 && (port == 0 || atoll(have + n) == port);
    free(prefix);
    return same;
}

char *dweb_changed(const struct dmn *d)
{
    if (as_configured(d))
        return NULL;
    return xprintf("WEBPORT and WEBADDRESS take effect at the next start: the web view is %s "
                   "until then",
                   d->web ? web_url(d->web) : "off");
}

void dweb_close(struct dmn *d)
{
    web_close(d->web);
    d->web = NULL;
    dhist_free(&d->hist);
}

void dweb_sample(struct dmn *d, long now)
{
    if (!d->web || !d->s || !dhist_due(&d->hist, now))
        return;
    struct dhist_sample s = {.time = now, .procs = sched_up_procs(d->s)};
    for (size_t i = 0; i < sched_nnodes(d->s); i++)
        s.busy += sched_node_used(d->s, i);
    s.running = (long)sched_nrunning(d->s);
    s.blocked = (long)sched_count_idle(d->s, 1);
    s.idle = (long)sched_count_idle(d->s, 0);
    dhist_add(&d->hist, &s);
    /* Kept in the store too, in a transaction of its own; a failure costs
     * only this sample, never the scheduling. */
    long long v[STORE_HIST_COLS] = {s.time, s.procs, s.busy, s.running, s.idle, s.blocked};
    struct err e;
    long before = now - (long)DHIST_STEP * DHIST_SAMPLES;
    if (store_begin(d->st, &e) < 0 || store_hist_put(d->st, v, before, &e) < 0 ||
        store_commit(d->st, &e) < 0) {
        if (store_in_transaction(d->st))
            store_rollback(d->st);
        dlog(d->log, 1, "a history sample was not saved: %s", e.msg);
    }
}
