/*
 * cmdrun — the dispatcher: split a command line into words, take out
 * `--format`, hand the rest to the command's handler (found in the command
 * table, cmdtab.c, which says too whether it changes state). It stands on
 * top of cmd/: it calls the table, the table the handlers, the handlers the
 * helpers of cmd.c, and nothing calls back up (issue 29).
 *
 * Handlers only read the scheduler; a failed command leaves nothing behind
 * (its partial output is freed).
 */
#include "cmd/cmd_int.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmdtab.h"
#include "util/mem.h"

/* ---- words and dispatch ---- */

struct words {
    char *text; /* the line, with NULs between the words */
    char **w;
    int n;
    char **own; /* cmd_runv: the copies of its words, freed with ws */
    int nown;
};

/* Split on white space (a plain shell split: no quoting). */
static void split_words(const char *line, struct words *ws)
{
    size_t cap = 0;
    ws->text = xstrdup(line);
    ws->w = NULL;
    ws->n = 0;
    ws->own = NULL;
    ws->nown = 0;
    char *p = ws->text;
    for (;;) {
        while (*p && isspace((unsigned char)*p))
            p++;
        if (!*p)
            break;
        ws->w = xgrow(ws->w, &cap, (size_t)ws->n + 2, sizeof *ws->w);
        ws->w[ws->n++] = p;
        while (*p && !isspace((unsigned char)*p))
            p++;
        if (*p)
            *p++ = '\0';
    }
    if (ws->w)
        ws->w[ws->n] = NULL;
}

static void free_words(struct words *ws)
{
    for (int i = 0; i < ws->nown; i++)
        free(ws->own[i]);
    free(ws->own);
    free(ws->text);
    free(ws->w);
}

/* The command's name: the first word that is not --format or its value. */
static const char *command_name(const struct words *ws)
{
    for (int i = 0; i < ws->n; i++) {
        if (strcmp(ws->w[i], "--format") == 0)
            i++;
        else if (strncmp(ws->w[i], "--format=", 9) != 0)
            return ws->w[i];
    }
    return NULL;
}

static int parse_format(const char *name, const char *val, int *json, struct err *err)
{
    if (strcmp(val, "json") == 0 || strcmp(val, "text") == 0) {
        *json = strcmp(val, "json") == 0;
        return 0;
    }
    return err_usage(err, "%.64s: unknown format '%s' (json or text)", name, cmd_word(val));
}

/* Take every --format out of ws, leaving the command and its own words. */
static int take_format(struct words *ws, const char *name, int *json, struct err *err)
{
    int w = 0;
    for (int i = 0; i < ws->n; i++) {
        const char *v = NULL;
        if (strcmp(ws->w[i], "--format") == 0) {
            if (i + 1 >= ws->n)
                return err_usage(err, "%.64s: --format needs a value (json or text)", name);
            v = ws->w[++i];
        } else if (strncmp(ws->w[i], "--format=", 9) == 0) {
            v = ws->w[i] + 9;
        } else {
            ws->w[w++] = ws->w[i];
            continue;
        }
        if (parse_format(name, v, json, err) < 0)
            return -1;
    }
    ws->n = w;
    if (ws->w)
        ws->w[w] = NULL;
    return 0;
}

/* The command layer's handler of name (an alias's is its command's), and
 * whether it changes the state: the command table (cmdtab.c). */
static cmd_fn find_command(const char *name, int *control)
{
    const struct cmd_def *d = cmd_def_main(cmd_def_find(name));
    if (!d || !d->run)
        return NULL;
    *control = (d->flags & CMD_CHANGES) != 0;
    return d->run;
}

int cmd_known(const char *name)
{
    int control;
    return name && find_command(name, &control) != NULL;
}

static int run_words(const struct cmd_ctx *c, struct words *wsp, char **out, struct err *err);

int cmd_run(const struct cmd_ctx *c, const char *line, char **out, struct err *err)
{
    if (out)
        *out = NULL;
    if (!c || !c->s || !out)
        return err_set(err, "command: no scheduler to ask");
    struct words ws;
    split_words(line ? line : "", &ws);
    return run_words(c, &ws, out, err);
}

int cmd_runv(const struct cmd_ctx *c, int argc, char *const argv[], char **out, struct err *err)
{
    if (out)
        *out = NULL;
    if (!c || !c->s || !out)
        return err_set(err, "command: no scheduler to ask");
    struct words ws = {.w = xcalloc((size_t)argc + 1, sizeof *ws.w),
                       .n = argc,
                       .own = xcalloc((size_t)argc + 1, sizeof *ws.own),
                       .nown = argc};
    for (int i = 0; i < argc; i++)
        ws.w[i] = ws.own[i] = xstrdup(argv[i]);
    return run_words(c, &ws, out, err);
}

/* Run the command in ws and free ws. */
static int run_words(const struct cmd_ctx *c, struct words *wsp, char **out, struct err *err)
{
    struct words ws = *wsp;
    const char *name = command_name(&ws);
    int json = 0, rc = -1;
    char names[256];
    cmd_def_look_names(names, sizeof names);
    if (!name) {
        rc = err_set(err, "empty command (%s)", names);
        goto done;
    }
    if (take_format(&ws, name, &json, err) < 0)
        goto done;
    int control = 0;
    cmd_fn fn = find_command(ws.w[0], &control);
    if (!fn) {
        rc = err_set(err, "%s: unknown command (%s)", cmd_word(name), names);
        goto done;
    }
    if (control && !c->control) {
        rc = err_set(err, "%s: changes the scheduler's state; not available here", ws.w[0]);
        goto done;
    }
    sched_complete_plan(c->s); /* the reservations an iteration left for later */
    struct cmd_args a = {.name = ws.w[0], .argc = ws.n - 1, .argv = ws.w + 1, .json = json};
    struct cmd_buf b = {0};
    rc = fn(c, &a, &b, err);
    if (rc < 0)
        free(b.s);
    else
        *out = cmd_buf_take(&b);
done:
    free_words(&ws);
    return rc;
}
