/*
 * showbf — the backfill windows: how many processors a job with given
 * credentials could start on now, and for how long (digest §7.5, §5.5;
 * Maui 3.3.1 OUserI.c ShowBackfillWindow). The windows come from the engine
 * (sched_backfill_windows, policy/bfwin.c) as the last iteration left the
 * plan: running jobs, priority reservations, and the reservations the asker
 * may not use.
 *
 * showbf [-A] [-a acct] [-c class] [-d duration] [-f feature] [-g group]
 *        [-n nodes] [-p partition] [-q qos] [-r procs] [-u user] [-v]
 *   text: `backfill window (user: '<u>' group: '<g>' partition: <p>) <date>`,
 *   a blank line, then one line per window, widest and shortest first:
 *   `%3d proc%s available for   %11s` or `... with no timelimit`, or
 *   `no procs available`. -d, -n and -r keep the windows at least that long,
 *   on at least that many nodes, with at least that many processors.
 *   -v adds each window's node count to its line.
 *   JSON: {"windows": [{"procs", "nodes", "duration" (seconds, null: no
 *   limit)}]}. Under BACKFILLPOLICY NONE, while a job waits, no window (no
 *   job may start before it): `no procs available (BACKFILLPOLICY NONE: job
 *   2 waits, and nothing starts before it)`, and in JSON "waiting": "2".
 *
 * With no credential given the windows are the asker's (user and group;
 * the daemon says who asks). With -A, or when nobody is known to ask (the
 * simulator), they are those of a job with DEFAULT credentials, shown as
 * 'ALL': reservations whose ACL names users, groups, ... do not count for
 * it. A window's node count is an upper
 * bound (nodes with room now for the asker, at most one per processor), not
 * Maui's node list. -m, -M (memory) and -S (SMP display) are refused: the
 * windows count processors only. One block for all partitions (Maui prints
 * one per partition when there are several).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfg/cfg.h"
#include "cmd/cmd_int.h"
#include "util/mem.h"

/* Options that take a value, and those that do not. */
#define SHOWBF_VALUED "acdfgnpqru"
#define SHOWBF_FLAGS "Av"

struct showbf_opts {
    const char *opt[128]; /* the value of each valued option given */
    int all, verbose;     /* -A, -v */
    struct job_spec who;  /* the asker's credentials, features, partition */
    long min_secs;        /* -d */
    long long min_procs;  /* -r */
    long long min_nodes;  /* -n */
};

/* ---- the command line ---- */

static int refused(char o, struct err *err)
{
    const char *what = "memory";
    if (o == 'M')
        what = "dedicated memory per processor";
    else if (o == 'S')
        what = "SMP mode";
    return err_set(err, "showbf: -%c (%s) is not supported: windows count processors only", o,
                   what);
}

/* A word of flags (-A, -v, -Av). */
static int flags_word(const char *w, struct showbf_opts *o, struct err *err)
{
    for (const char *p = w + 1; *p; p++) {
        if (!strchr(SHOWBF_FLAGS, *p))
            return err_usage(err, "showbf: unknown option '%s'", cmd_word(w));
        o->all |= *p == 'A';
        o->verbose |= *p == 'v';
    }
    return 0;
}

static int parse_words(const struct cmd_args *a, struct showbf_opts *o, struct err *err)
{
    for (int i = 0; i < a->argc; i++) {
        const char *w = a->argv[i];
        if (w[0] != '-' || w[1] == '\0')
            return err_usage(err, "showbf: unexpected argument '%s' (options only)", cmd_word(w));
        char c = w[1];
        if (strchr("mMS", c))
            return refused(c, err);
        if (!strchr(SHOWBF_VALUED, c)) {
            if (flags_word(w, o, err) < 0)
                return -1;
            continue;
        }
        if (o->opt[(unsigned char)c])
            return err_usage(err, "showbf: -%c given twice", c);
        if (!w[2] && i + 1 >= a->argc)
            return err_usage(err, "showbf: -%c needs a value", c);
        o->opt[(unsigned char)c] = w[2] ? w + 2 : a->argv[++i];
    }
    return 0;
}

static int parse_count(char opt, const char *v, long long *out, struct err *err)
{
    if (cfg_parse_int(v, 1, 100000000, out, NULL) < 0)
        return err_usage(err, "showbf: -%c needs a positive count, not '%s'", opt, cmd_word(v));
    return 0;
}

/* The minimums and the asker from the options given (c: who asks). */
static int parse_values(const struct cmd_ctx *c, struct showbf_opts *o, struct err *err)
{
    static const char creds[] = "ugacq";
    for (const char *p = creds; *p && o->all; p++)
        if (o->opt[(unsigned char)*p])
            return err_set(err,
                           "showbf: -A (all credentials) and -%c both say whose windows; "
                           "give one",
                           *p);
    const char *d = o->opt['d'];
    if (d && (cfg_parse_time(d, &o->min_secs, NULL) < 0 || o->min_secs < 0))
        return err_set(err, "showbf: bad duration '%s' for -d (seconds, HH:MM:SS or DD:HH:MM:SS)",
                       cmd_word(d));
    if (o->opt['r'] && parse_count('r', o->opt['r'], &o->min_procs, err) < 0)
        return -1;
    if (o->opt['n'] && parse_count('n', o->opt['n'], &o->min_nodes, err) < 0)
        return -1;
    int named = 0; /* a credential option was given */
    for (const char *p = "agcqu"; *p; p++)
        named |= o->opt[(unsigned char)*p] != NULL;
    int mine = !named && !o->all && c->user;
    o->who = (struct job_spec){.user = mine ? c->user : o->opt['u'],
                               .group = mine ? c->group : o->opt['g'],
                               .account = o->opt['a'],
                               .class_ = o->opt['c'],
                               .qos = o->opt['q'],
                               .features = o->opt['f'],
                               .partition = o->opt['p'],
                               .tasks = 1,
                               .procs_per_task = 1,
                               .walltime = 1};
    return 0;
}

/* ---- the windows ---- */

static int window_kept(const struct showbf_opts *o, const struct sched_window *w)
{
    if (w->procs < o->min_procs || w->nodes < o->min_nodes)
        return 0;
    return w->duration < 0 || w->duration >= o->min_secs;
}

/* The windows the options keep, in the engine's order. Caller frees.
 * Under BACKFILLPOLICY NONE, while a job waits, there is none: nothing may
 * start before it (the processors free now are not a window anybody may
 * use). */
static struct sched_window *windows(const struct cmd_ctx *c, const struct showbf_opts *o, size_t *n)
{
    *n = 0;
    if (sched_fcfs_head(c->s))
        return xcalloc(1, sizeof(struct sched_window));
    size_t max = 16;
    struct sched_window *v = xcalloc(max, sizeof *v);
    size_t all = sched_backfill_windows(c->s, &o->who, c->now, v, max);
    if (all > max) {
        free(v);
        max = all;
        v = xcalloc(max, sizeof *v);
        all = sched_backfill_windows(c->s, &o->who, c->now, v, max);
        if (all > max)
            all = max; /* the plan cannot change between the two calls; be safe */
    }
    *n = 0;
    for (size_t i = 0; i < all; i++)
        if (window_kept(o, &v[i]))
            v[(*n)++] = v[i];
    return v;
}

static const char *shown(const char *name)
{
    return name ? name : "ALL";
}

static void text_out(struct cmd_buf *b, const struct cmd_ctx *c, const struct showbf_opts *o,
                     const struct sched_window *v, size_t n)
{
    char date[CMD_TIME_MAX];
    cmd_fmt_date(c, c->now, date);
    cmd_buf_printf(b, "backfill window (user: '%s' group: '%s' partition: %s) %s\n\n",
                   shown(o->who.user), shown(o->who.group), shown(o->who.partition), date);
    const struct job *head = sched_fcfs_head(c->s);
    if (head)
        cmd_buf_printf(b,
                       "no procs available (BACKFILLPOLICY NONE: job %s waits, and nothing "
                       "starts before it)\n",
                       head->name);
    else if (n == 0)
        cmd_buf_puts(b, "no procs available\n");
    for (size_t i = 0; i < n; i++) {
        const char *s = v[i].procs == 1 ? "" : "s";
        if (v[i].duration < 0) {
            cmd_buf_printf(b, "%3lld proc%s available with no timelimit", v[i].procs, s);
        } else {
            char d[CMD_TIME_MAX];
            cmd_fmt_duration(v[i].duration, d);
            cmd_buf_printf(b, "%3lld proc%s available for   %11s", v[i].procs, s, d);
        }
        if (o->verbose)
            cmd_buf_printf(b, " (on up to %ld node%s)", v[i].nodes, v[i].nodes == 1 ? "" : "s");
        cmd_buf_puts(b, "\n");
    }
}

static void json_out(struct cmd_buf *b, const struct cmd_ctx *c, const struct sched_window *v,
                     size_t n)
{
    const struct job *head = sched_fcfs_head(c->s);
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(
            a, json_pack("{s:I, s:I, s:o}", "procs", (json_int_t)v[i].procs, "nodes",
                         (json_int_t)v[i].nodes, "duration",
                         v[i].duration < 0 ? json_null() : json_integer(v[i].duration)));
    json_t *root = json_pack("{s:o}", "windows", a);
    if (head) /* BACKFILLPOLICY NONE: the job nothing may pass */
        json_object_set_new(root, "waiting", cmd_jstr(head->name));
    cmd_json_out(b, root);
}

int cmd_showbf(const struct cmd_ctx *c, const struct cmd_args *a, struct cmd_buf *out,
               struct err *err)
{
    struct showbf_opts o = {0};
    if (parse_words(a, &o, err) < 0 || parse_values(c, &o, err) < 0)
        return -1;
    size_t n;
    struct sched_window *v = windows(c, &o, &n);
    if (a->json)
        json_out(out, c, v, n);
    else
        text_out(out, c, &o, v, n);
    free(v);
    return 0;
}
