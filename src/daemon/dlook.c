/*
 * dlook — the daemon's read-only commands: the command layer's answers
 * (showq, checkjob, checknode, diagnose, ...; Torque's qstat and pbsnodes
 * views) over the daemon's scheduler, with what the store keeps of a job
 * beyond the engine (its name, paths), and checkjob of a job that ended
 * before the daemon's last restart, from the store. Who may look was
 * checked by dctl.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "daemon/daemon_int.h"
#include "daemon/dlook.h"
#include "daemon/dreply.h"
#include "daemon/drights.h"
#include "util/idname.h"
#include "util/mem.h"

static const char *const sj_names[] = {[SJ_IDLE] = "Idle",
                                       [SJ_RUNNING] = "Running",
                                       [SJ_SUSPENDED] = "Suspended",
                                       [SJ_COMPLETED] = "Completed",
                                       [SJ_REMOVED] = "Removed"};

static void date_text(long t, char out[32])
{
    struct tm tm; /* the daemon's one clock (docs/commands.md, "The clock") */
    if (cmd_clock_tm(t, &tm) < 0)
        memset(&tm, 0, sizeof tm);
    strftime(out, 32, "%a %b %e %H:%M:%S", &tm);
}

/* checkjob of a job the engine no longer holds (ended before the last
 * restart): what the store remembers. */
static json_t *checkjob_stored(struct dmn *d, const char *id, int json)
{
    char *end;
    long n = strtol(id, &end, 10);
    struct store_job r;
    struct err e;
    int found = *id && !*end && n > 0 ? store_job_get(d->st, n, &r, &e) : 0;
    if (found < 0)
        return dreply_err("checkjob: %s", e.msg);
    if (found == 0)
        return NULL;
    json_t *reply;
    const char *state = (unsigned)r.state <= SJ_REMOVED ? sj_names[r.state] : "Unknown";
    if (json) {
        json_t *o = json_pack("{s:s, s:s, s:s?, s:s?, s:s?, s:s?, s:s?, s:I, s:I}", "id", id,
                              "state", state, "user", r.user, "group", r.group, "account",
                              r.account, "class", r.class_, "qos", r.qos, "walltime",
                              (json_int_t)r.walltime, "submit", (json_int_t)r.submit);
        json_object_set_new(o, "start", r.start ? json_integer(r.start) : json_null());
        json_object_set_new(o, "end", r.end ? json_integer(r.end) : json_null());
        json_object_set_new(o, "exit_status",
                            r.exit_status >= 0 ? json_integer(r.exit_status) : json_null());
        json_t *m = r.message ? json_string(r.message) : NULL; /* NULL too if not UTF-8 */
        json_object_set_new(o, "message", m ? m : json_null());
        char *text = json_dumps(json_pack("{s:o}", "job", o), JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        reply = dreply_ok(text);
        free(text);
    } else {
        char sub[32], st[32], en[32], *text;
        date_text(r.submit, sub);
        date_text(r.start, st);
        date_text(r.end, en);
        text = xprintf("checking job %s\n\nState: %s\nCreds:  user:%s  group:%s  account:%s  "
                       "class:%s  qos:%s\nSubmitTime: %s\n%s%s%s%s",
                       id, state, r.user ? r.user : "-", r.group ? r.group : "-",
                       r.account ? r.account : "DEFAULT", r.class_ ? r.class_ : "DEFAULT",
                       r.qos ? r.qos : "DEFAULT", sub, r.start ? "StartTime: " : "",
                       r.start ? st : "", r.start ? "\n" : "", r.end ? "CompletionTime: " : "");
        char *full = r.end ? xprintf("%s%s  Completion Code: %d\n%s%s%s", text, en, r.exit_status,
                                     r.message ? "Messages:  " : "", r.message ? r.message : "",
                                     r.message ? "\n" : "")
                           : xstrdup(text);
        reply = dreply_ok(full);
        free(text);
        free(full);
    }
    store_job_free(&r);
    return reply;
}

/* What the store keeps of a job that the engine does not: qstat's name,
 * paths and session (cmd_ctx.job_extra). */
static int job_extra(void *ctx, const struct job *j, struct cmd_job_extra *x)
{
    struct dmn *d = ctx;
    if (j->tag >= d->njobs || d->jobs[j->tag]->j != j)
        return -1;
    const struct store_job *r = &d->jobs[j->tag]->rec;
    *x = (struct cmd_job_extra){.name = r->name,
                                .out_path = r->out_path,
                                .err_path = r->err_path,
                                .cwd = r->cwd,
                                .mem_mb = r->mem_mb,
                                .interactive = djobs_interactive(r)};
    return 0;
}

static json_t *do_look(struct dmn *d, const struct peer *p, int argc, char **argv)
{
    char server[256];
    idname_server(server, sizeof server);
    struct cmd_ctx ctx = {.s = d->s,
                          .cfg = d->cfg,
                          .now = time(NULL),
                          .epoch_offset = 0,
                          .stats_since = d->stats_since,
                          .user = p->user,
                          .group = p->group,
                          .ordinary = !(p->admin >= 1 && p->admin <= 3),
                          .server = server,
                          .job_extra = job_extra,
                          .job_extra_ctx = d};
    char *out = NULL;
    struct err e;
    if (cmd_runv(&ctx, argc, argv, &out, &e) < 0)
        return dreply_fail(&e);
    json_t *r = dreply_ok(out);
    free(out);
    return r;
}

static json_t *checkjob_from_store(struct dmn *d, int argc, char **argv)
{
    int json;
    const char *id = drights_checkjob_id(argc, argv, &json);
    if (!id || sched_find_job(d->s, id))
        return NULL;
    return checkjob_stored(d, id, json);
}

/* The command layer's own (showq, checknode, diagnose, ...; qstat and
 * pbsnodes for Torque's faces): cmd and its words. */
json_t *dlook_layer(struct dmn *d, const struct peer *p, const char *cmd, int argc, char **argv)
{
    char **full = xcalloc((size_t)argc + 2, sizeof *full);
    full[0] = (char *)cmd;
    for (int i = 0; i < argc; i++)
        full[i + 1] = argv[i];
    json_t *r = do_look(d, p, argc + 1, full);
    free(full);
    return r;
}

/* checkjob: a job that ended before the daemon's last restart is the
 * store's; the others the command layer's. */
json_t *dlook_checkjob(struct dmn *d, const struct peer *p, const char *cmd, int argc, char **argv)
{
    json_t *r = checkjob_from_store(d, argc, argv);
    return r ? r : dlook_layer(d, p, cmd, argc, argv);
}
