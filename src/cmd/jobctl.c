/*
 * jobctl — the job-control commands as the simulator's command script runs
 * them: canceljob, sethold, releasehold, setspri, setqos, runjob, with
 * Maui's options and the replies the daemon gives (src/daemon/dctl.c), so
 * that a user sees one behaviour in both.
 *
 * Not here: who may do what. The caller decides by setting cmd_ctx.control
 * (the simulator's script is the administrator); the daemon has its own
 * handlers, which check the requester and save every change.
 *
 * Where moku differs from the daemon: a command naming several jobs is all
 * or nothing (every job is checked before any is changed), and a failure is
 * an error naming the command ("canceljob: cannot locate job '7'") rather
 * than Maui's "ERROR:  ..." line in the reply.
 */
#include "cmd/cmd_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/mem.h"

/* ---- shared pieces ---- */

/* The reply: text lines as they are, or with --format=json the daemon's
 * {"messages": [one per line]}. */
static void reply(const struct cmd_args *a, struct cmd_buf *out, struct cmd_buf *text)
{
    char *t = cmd_buf_take(text);
    if (!a->json) {
        cmd_buf_puts(out, t);
        free(t);
        return;
    }
    json_t *lines = json_array();
    for (const char *p = t; *p;) {
        size_t n = strcspn(p, "\n");
        json_array_append_new(lines, json_stringn(p, n));
        p += n + (p[n] == '\n');
    }
    cmd_json_out(out, json_pack("{s:o}", "messages", lines));
    free(t);
}

/* The idle job named id, or NULL with err in Maui's words. */
static struct job *idle_job(const struct cmd_ctx *c, const struct cmd_args *a, const char *id,
                            struct err *err)
{
    struct job *j = sched_find_job(c->s, id);
    if (!j || j->state != JOB_IDLE) {
        err_set(err, "%s: cannot locate idle job '%s'", a->name, cmd_word(id));
        return NULL;
    }
    return j;
}

/* Whether argv[i] repeats an earlier word (a job named twice). */
static int repeated(const struct cmd_args *a, int i)
{
    for (int k = 0; k < i; k++)
        if (strcmp(a->argv[k], a->argv[i]) == 0)
            return 1;
    return 0;
}

/* ---- canceljob JOB... ---- */

/* Whether job id may be cancelled: idle, or running with a resource
 * manager to stop it. */
static int cancellable(const struct cmd_ctx *c, const struct cmd_args *a, int i, struct err *err)
{
    const char *id = a->argv[i];
    struct job *j = sched_find_job(c->s, id);
    if (!j || (j->state != JOB_IDLE && j->state != JOB_RUNNING))
        return err_set(err, "canceljob: cannot locate job '%s'", cmd_word(id));
    if (repeated(a, i))
        return err_set(err, "canceljob: job '%s' named twice", cmd_word(id));
    if (j->state == JOB_RUNNING && !c->cancel)
        return err_set(err, "canceljob: cannot cancel running job '%s' here (no resource manager)",
                       cmd_word(id));
    return 0;
}

int cmd_canceljob(const struct cmd_ctx *c, const struct cmd_args *a, struct cmd_buf *out,
                  struct err *err)
{
    if (a->argc < 1)
        return err_usage(err, "canceljob: missing job id (usage: canceljob JOB...)");
    for (int i = 0; i < a->argc; i++)
        if (cancellable(c, a, i, err) < 0)
            return -1;
    struct cmd_buf text = {0};
    for (int i = 0; i < a->argc; i++) {
        struct job *j = sched_find_job(c->s, a->argv[i]);
        /* An idle job leaves the queue here; a running one is ended by the
         * resource manager (the simulator ends it at once). */
        if (j->state == JOB_IDLE)
            sched_cancel(c->s, j, c->now, NULL);
        else if (c->cancel(c->cancel_ctx, j, c->now) < 0) {
            free(text.s); /* earlier jobs stay cancelled: a stopped job cannot restart */
            return err_set(err, "canceljob: cannot cancel job '%s'", cmd_word(a->argv[i]));
        }
        cmd_buf_printf(&text, "job '%s' cancelled\n", a->argv[i]);
    }
    reply(a, out, &text);
    return 0;
}

/* ---- sethold / releasehold ---- */

/* Maui's hold types (-h): user, system, batch, all, or their first letter. */
static int hold_type(const char *t, unsigned *h)
{
    static const struct {
        const char *name;
        unsigned holds;
    } types[] = {
        {"user", HOLD_USER},
        {"system", HOLD_SYSTEM},
        {"batch", HOLD_BATCH},
        {"all", HOLD_USER | HOLD_SYSTEM | HOLD_BATCH},
    };
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (strcmp(t, types[i].name) == 0 || (t[0] == types[i].name[0] && !t[1])) {
            *h = types[i].holds;
            return 0;
        }
    return -1;
}

/* The holds the options name (default user), and the index of the first
 * job; -1 on a bad option. sethold takes -b (batch), releasehold -a (all). */
static int hold_options(const struct cmd_args *a, int set, unsigned *holds, struct err *err)
{
    int i = 0;
    *holds = HOLD_USER;
    for (; i < a->argc && a->argv[i][0] == '-'; i++) {
        const char *o = a->argv[i];
        if (set && strcmp(o, "-b") == 0)
            *holds = HOLD_BATCH;
        else if (!set && strcmp(o, "-a") == 0)
            *holds = HOLD_USER | HOLD_SYSTEM | HOLD_BATCH;
        else if (strcmp(o, "-h") == 0) {
            if (i + 1 == a->argc)
                return err_usage(err, "%s: -h needs a hold type (user, system, batch or all)",
                                 a->name);
            if (hold_type(a->argv[++i], holds) < 0)
                return err_set(err, "%s: unknown hold type '%s' (user, system, batch or all)",
                               a->name, cmd_word(a->argv[i]));
        } else
            return err_usage(err, "%s: unknown option '%s'", a->name, cmd_word(o));
    }
    if (i == a->argc)
        return err_usage(err, "%s: missing job id", a->name);
    return i;
}

static int hold_cmd(const struct cmd_ctx *c, const struct cmd_args *a, struct cmd_buf *out, int set,
                    struct err *err)
{
    unsigned holds;
    int first = hold_options(a, set, &holds, err);
    if (first < 0)
        return -1;
    for (int i = first; i < a->argc; i++)
        if (!idle_job(c, a, a->argv[i], err))
            return -1;
    struct cmd_buf text = {0};
    for (int i = first; i < a->argc; i++) {
        struct job *j = sched_find_job(c->s, a->argv[i]);
        /* Cannot fail: the job is idle and holds is not empty. */
        if (set)
            sched_hold(c->s, j, holds, NULL);
        else
            sched_release(c->s, j, holds, c->now, NULL);
        cmd_buf_printf(&text, "holds modified for job %s\n", a->argv[i]);
    }
    reply(a, out, &text);
    return 0;
}

int cmd_sethold(const struct cmd_ctx *c, const struct cmd_args *a, struct cmd_buf *out,
                struct err *err)
{
    return hold_cmd(c, a, out, 1, err);
}

int cmd_releasehold(const struct cmd_ctx *c, const struct cmd_args *a, struct cmd_buf *out,
                    struct err *err)
{
    return hold_cmd(c, a, out, 0, err);
}

/* ---- setspri [-r] PRIORITY JOB ---- */

int cmd_setspri(const struct cmd_ctx *c, const struct cmd_args *a, struct cmd_buf *out,
                struct err *err)
{
    int rel = a->argc > 0 && strcmp(a->argv[0], "-r") == 0;
    if (a->argc - rel != 2)
        return err_usage(err, "setspri: usage: setspri [-r] PRIORITY JOB");
    const char *v = a->argv[rel];
    char *end;
    errno = 0;
    long prio = strtol(v, &end, 10);
    if (errno || end == v || *end)
        return err_set(err, "setspri: bad priority '%s'", cmd_word(v));
    struct job *j = idle_job(c, a, a->argv[rel + 1], err);
    if (!j)
        return -1;
    struct err e;
    /* -r adds to the job's priority (Maui's relative system priority);
     * without it the value replaces the priority, 0..1000. */
    if (sched_set_sysprio(c->s, j, rel ? SYSPRIO_RELATIVE : SYSPRIO_ABSOLUTE, prio, &e) < 0)
        return err_set(err, "setspri: %s", e.msg);
    struct cmd_buf text = {0};
    cmd_buf_puts(&text, "job system priority adjusted\n");
    reply(a, out, &text);
    return 0;
}

/* ---- setqos QOS JOB ---- */

int cmd_setqos(const struct cmd_ctx *c, const struct cmd_args *a, struct cmd_buf *out,
               struct err *err)
{
    if (a->argc != 2)
        return err_usage(err, "setqos: usage: setqos QOS JOB");
    struct job *j = idle_job(c, a, a->argv[1], err);
    if (!j)
        return -1;
    struct err e;
    /* As an administrator: any QOS, whatever the job's QLIST says. */
    if (sched_set_qos(c->s, j, a->argv[0], 0, &e) < 0)
        return err_set(err, "setqos: %s", e.msg);
    struct cmd_buf text = {0};
    cmd_buf_printf(&text, "job QOS adjusted to %s\n", cmd_word(a->argv[0]));
    reply(a, out, &text);
    return 0;
}

/* ---- runjob [-f] [-x] [-c] JOB ---- */

int cmd_runjob_args(int argc, char *const argv[], int *force, int *job, struct err *err)
{
    int i = 0;
    *force = 0;
    for (; i < argc && argv[i][0] == '-'; i++) {
        /* -x and -c: moku's runjob ignores policies and reservations anyway. */
        if (strcmp(argv[i], "-f") == 0)
            *force = 1;
        else if (strcmp(argv[i], "-x") != 0 && strcmp(argv[i], "-c") != 0)
            return err_usage(err, "runjob: unknown option '%s' (-f, -x or -c)", cmd_word(argv[i]));
    }
    if (i != argc - 1)
        return err_usage(err, "runjob: usage: runjob [-f] [-x] JOB");
    *job = i;
    return 0;
}

/* "user", "user and batch", ...: the holds named in h. */
static void hold_names(unsigned h, char *buf, size_t n)
{
    static const struct {
        unsigned bit;
        const char *name;
    } kinds[] = {{HOLD_USER, "user"}, {HOLD_SYSTEM, "system"}, {HOLD_BATCH, "batch"}};
    size_t len = 0;
    buf[0] = '\0';
    for (size_t k = 0; k < 3; k++)
        if ((h & kinds[k].bit) && len < n)
            len += (size_t)snprintf(buf + len, n - len, "%s%s", len ? " and " : "", kinds[k].name);
}

int cmd_runjob_start(struct sched *s, struct job *j, long now, int force, char **reply,
                     struct err *err)
{
    unsigned holds = j->holds;
    char names[32];
    hold_names(holds, names, sizeof names);
    const char *plural = holds & (holds - 1) ? "s" : "";
    if (holds && !force)
        return err_set(err,
                       "job '%s' has %s%s hold%s (release %s, or runjob -f to start it "
                       "anyway)",
                       j->name, *plural ? "" : "a ", names, plural, *plural ? "them" : "it");
    /* Forced: a running job cannot be held, so the holds go (Maui's runjob
     * -f overrides them); back again if it does not start. */
    if (holds)
        sched_release(s, j, holds, now, NULL);
    if (sched_runjob(s, j, now, err) < 0) {
        if (holds)
            sched_hold(s, j, holds, NULL);
        return -1;
    }
    if (holds)
        *reply = xprintf("job '%s' started on %lld procs (forced: its %s hold%s released)\n",
                         j->name, job_procs(j), names, holds & (holds - 1) ? "s were" : " was");
    else
        *reply = xprintf("job '%s' started on %lld procs\n", j->name, job_procs(j));
    return 0;
}

int cmd_runjob(const struct cmd_ctx *c, const struct cmd_args *a, struct cmd_buf *out,
               struct err *err)
{
    int force = 0, i = 0; /* set by cmd_runjob_args on success */
    if (cmd_runjob_args(a->argc, a->argv, &force, &i, err) < 0)
        return -1;
    struct job *j = idle_job(c, a, a->argv[i], err);
    if (!j)
        return -1;
    struct err e;
    char *line = NULL; /* set by cmd_runjob_start on success */
    if (cmd_runjob_start(c->s, j, c->now, force, &line, &e) < 0)
        return err_set(err, "runjob: %s", e.msg);
    struct cmd_buf text = {0};
    cmd_buf_puts(&text, line);
    free(line);
    reply(a, out, &text);
    return 0;
}
