/* sim_script — see sim_script.h. */
#include "sim/sim_script.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "cfg/cfg.h"
#include "cmd/cmd.h"
#include "trace/lines.h"
#include "util/mem.h"

/*
 * A time: seconds, or [[[DD:]HH:]MM:]SS as --until, maui.cfg and setres -d
 * read it (two fields are HH:MM: one reading of `20:00` everywhere). Not
 * negative, not INFINITY. -1 if it is none of these.
 */
static int parse_time(const char *s, long *out)
{
    long t = 0;
    if (cfg_parse_time(s, &t, NULL) < 0 || t < 0 || t >= CFG_TIME_INFINITY)
        return -1;
    *out = t;
    return 0;
}

/* The next word at *p, quotes removed (caller frees), with *p moved past
 * it; NULL at the end of the line, or with *bad set on an unterminated
 * quote. */
static char *next_word(const char **p, int *bad)
{
    const char *s = *p;
    while (isspace((unsigned char)*s))
        s++;
    if (*s == '#')
        s += strlen(s); /* a word starting with '#' starts a comment */
    *p = s;
    if (!*s)
        return NULL;
    char *w = xmalloc(strlen(s) + 1), *o = w;
    char quote = 0;
    for (; *s && (quote || !isspace((unsigned char)*s)); s++) {
        if (quote && *s == quote)
            quote = 0;
        else if (!quote && (*s == '\'' || *s == '"'))
            quote = *s;
        else
            *o++ = *s;
    }
    *o = '\0';
    *p = s;
    if (quote) {
        *bad = 1;
        free(w);
        return NULL;
    }
    return w;
}

static void free_cmd(struct sim_script_cmd *c)
{
    for (int i = 0; i < c->argc; i++)
        free(c->argv[i]);
    free(c->argv);
    free(c->text);
}

/* The command's words from s on; -1 on an unterminated quote. */
static int split_words(const char *s, struct sim_script_cmd *c)
{
    size_t cap = 0;
    int bad = 0;
    char *w;
    while ((w = next_word(&s, &bad))) {
        c->argv = xgrow(c->argv, &cap, (size_t)c->argc + 2, sizeof *c->argv);
        c->argv[c->argc++] = w;
    }
    if (c->argv)
        c->argv[c->argc] = NULL;
    return bad ? -1 : 0;
}

/* Length of s up to a trailing comment (a word outside quotes starting with
 * '#'), trailing blanks left out. */
static size_t before_comment(const char *s)
{
    char quote = 0;
    size_t end = 0;
    for (size_t i = 0; s[i]; i++) {
        if (quote) {
            quote = s[i] == quote ? 0 : quote;
        } else if (s[i] == '\'' || s[i] == '"') {
            quote = s[i];
        } else if (s[i] == '#' && (i == 0 || isspace((unsigned char)s[i - 1]))) {
            break;
        }
        if (!isspace((unsigned char)s[i]))
            end = i + 1;
    }
    return end;
}

/* Check a parsed command against the file so far. */
static int check_cmd(const struct sim_script_cmd *c, long prev, const char *path, struct err *err)
{
    if (c->argc == 0)
        return err_set(err, "%s:%ld: no command after the time", path, c->line);
    if (!cmd_known(c->argv[0]) && strcmp(c->argv[0], "submit") != 0 &&
        strcmp(c->argv[0], "qalter") != 0) /* sim_submit.h */
        return err_set(err, "%s:%ld: unknown command '%.64s'", path, c->line, c->argv[0]);
    if (c->t < prev)
        return err_set(err,
                       "%s:%ld: time %ld comes before the previous line's (%ld); keep the "
                       "commands in time order",
                       path, c->line, c->t, prev);
    return 0;
}

/*
 * One line: 1 and *c filled for a command, 0 for a blank or comment line,
 * -1 with err. The line's newline is already gone.
 */
static int parse_line(const char *s, long line, long prev, const char *path,
                      struct sim_script_cmd *c, struct err *err)
{
    *c = (struct sim_script_cmd){.line = line};
    while (isspace((unsigned char)*s))
        s++;
    if (!*s || *s == '#')
        return 0;
    int bad = 0;
    char *when = next_word(&s, &bad);
    if (!when || parse_time(when, &c->t) < 0) {
        err_set(err,
                "%s:%ld: bad time '%.64s' (seconds since the trace's start, or "
                "[[DD:]HH:]MM:SS)",
                path, line, when ? when : s);
        free(when);
        return -1;
    }
    free(when);
    while (isspace((unsigned char)*s))
        s++;
    c->text = xstrndup(s, before_comment(s));
    int rc = split_words(s, c) < 0 ? err_set(err, "%s:%ld: unterminated quote", path, line)
                                   : check_cmd(c, prev, path, err);
    if (rc < 0) {
        free_cmd(c);
        return -1;
    }
    return 1;
}

/* l->buf without its line end and trailing blanks. */
static void chomp(struct lines *l)
{
    size_t n = strlen(l->buf);
    while (n > 0 && isspace((unsigned char)l->buf[n - 1]))
        l->buf[--n] = '\0';
}

struct sim_script *sim_script_load(const char *path, struct err *err)
{
    struct lines l;
    if (lines_open(&l, path, err) < 0)
        return NULL;
    struct sim_script *sc = xcalloc(1, sizeof *sc);
    size_t cap = 0;
    long prev = 0;
    int rc;
    while ((rc = lines_next(&l)) > 0) {
        struct sim_script_cmd c;
        chomp(&l);
        if ((rc = parse_line(l.buf, l.line, prev, path, &c, err)) < 0)
            break;
        if (rc == 0)
            continue;
        sc->cmds = xgrow(sc->cmds, &cap, sc->n + 1, sizeof *sc->cmds);
        sc->cmds[sc->n++] = c;
        prev = c.t;
    }
    lines_close(&l);
    if (rc < 0) {
        sim_script_destroy(sc);
        return NULL;
    }
    return sc;
}

void sim_script_destroy(struct sim_script *sc)
{
    if (!sc)
        return;
    for (size_t i = 0; i < sc->n; i++)
        free_cmd(&sc->cmds[i]);
    free(sc->cmds);
    free(sc);
}
