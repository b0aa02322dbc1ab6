/*
 * mkman — the man pages and the bash completion, generated so that they
 * never drift from what moku says and reads.
 *
 *   mkman man BIN DIR [DATE]   DIR/<page> for moku and every command: what
 *                              `BIN --help` lists, each page from the
 *                              command's own `--help` text, plus the
 *                              hand-written sections of man/extra/<page>
 *                              (EXAMPLES, FILES, ...); maui.cfg.5 from the
 *                              configuration reader's tables (cfg_params,
 *                              cfg_kind_at)
 *   mkman completion FILE      the bash completion script (the help table)
 *   mkman links                the names installed as symlinks to moku (one a
 *                              line): the command table's one-word names
 *
 * The pages are read from the binary's output rather than from the table's
 * structures: whatever table holds the help text, --help prints it, and a
 * page is exactly what the command answers. DATE (YYYY-MM-DD) dates the
 * pages: default SOURCE_DATE_EPOCH's day, else today (UTC). The extra
 * sections are looked up in MKMAN_EXTRA (default man/extra).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cfg/cfg.h"
#include "cli/help.h"
#include "cmd/cmdtab.h"
#include "moku_config.h"

#define MAXLINES 512
#define MAXCMDS 128

static void today(char out[16])
{
    const char *sde = getenv("SOURCE_DATE_EPOCH");
    time_t t = sde && *sde ? (time_t)strtoll(sde, NULL, 10) : time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(out, 16, "%Y-%m-%d", &tm);
}

/* ---- troff text ---- */

/* s[0..n) as troff text: '-' and '\' escaped, a leading '.' or '\'' guarded. */
static void roff_n(FILE *f, const char *s, size_t n)
{
    for (size_t i = 0; i < n && s[i]; i++) {
        if (i == 0 && (s[i] == '.' || s[i] == '\''))
            fputs("\\&", f);
        if (s[i] == '-')
            fputs("\\-", f);
        else if (s[i] == '\\')
            fputs("\\e", f);
        else
            fputc(s[i], f);
    }
}

static void roff(FILE *f, const char *s)
{
    roff_n(f, s, strlen(s));
}

/* A page's name as its file and cross references have it: "moku serve" ->
 * "moku-serve". */
static void page_name(const char *cmd, char *buf, size_t n)
{
    snprintf(buf, n, "%s", cmd);
    for (char *p = buf; *p; p++)
        if (*p == ' ')
            *p = '-';
}

/* The daemon is the administrator's (section 8); the rest are commands. */
static int page_section(const char *cmd)
{
    return strcmp(cmd, "moku serve") == 0 ? 8 : 1;
}

/* ---- reading --help ---- */

/* The lines BIN [SUB] --help prints, newlines cut; count in *n. */
static char **help_lines(const char *bin, const char *cmd, size_t *n)
{
    char line[4096];
    /* "moku serve" runs as BIN serve, "showq" as BIN showq, "moku" as BIN. */
    const char *sub = strncmp(cmd, "moku", 4) == 0 ? cmd + 4 + (cmd[4] == ' ') : cmd;
    snprintf(line, sizeof line, "'%s' %s --help", bin, sub);
    FILE *p = popen(line, "r");
    if (!p) {
        perror(line);
        return NULL;
    }
    char **v = calloc(MAXLINES, sizeof *v);
    *n = 0;
    while (v && fgets(line, sizeof line, p) && *n < MAXLINES) {
        line[strcspn(line, "\n")] = '\0';
        v[(*n)++] = strdup(line);
    }
    if (pclose(p) != 0 || !v || *n == 0 || strncmp(v[0], "usage: ", 7) != 0) {
        fprintf(stderr, "mkman: '%s %s --help' did not print its usage\n", bin, sub);
        return NULL;
    }
    return v;
}

static int blank(const char *s)
{
    return s[strspn(s, " ")] == '\0';
}

/* A heading of --help: "options:", "commands (each answers --help):". */
static int heading(const char *s)
{
    size_t n = strlen(s);
    return n > 1 && s[n - 1] == ':' && s[0] != ' ';
}

/* An item line "  FLAG  TEXT": the flag's length (up to two blanks), 0 if
 * the line is no item. */
static size_t item_flag(const char *s)
{
    if (strncmp(s, "  ", 2) != 0 || s[2] == ' ')
        return 0;
    const char *gap = strstr(s + 2, "  ");
    return gap ? (size_t)(gap - (s + 2)) : strlen(s + 2);
}

/* The items under a heading as .TP paragraphs: a continuation line (more
 * than two leading blanks) goes on the item's text. In the commands list,
 * each name refers to its page. */
static size_t put_items(FILE *f, char **v, size_t i, size_t n, int refs)
{
    while (i < n && !blank(v[i]) && !heading(v[i])) {
        size_t fl = item_flag(v[i]);
        if (fl) {
            char name[128];
            snprintf(name, sizeof name, "%.*s", (int)fl, v[i] + 2);
            fputs(".TP\n", f);
            if (refs) {
                char page[128];
                page_name(name, page, sizeof page);
                fputs(".BR ", f);
                roff(f, page);
                fprintf(f, " (%d)\n", page_section(name));
            } else {
                fputs(".B ", f);
                roff(f, name);
                fputc('\n', f);
            }
            const char *text = v[i] + 2 + fl;
            text += strspn(text, " ");
            if (*text) {
                roff(f, text);
                fputc('\n', f);
            }
        } else {
            roff(f, v[i] + strspn(v[i], " "));
            fputc('\n', f);
        }
        i++;
    }
    return i;
}

/* ---- a command's page ---- */

/* The file's content, or NULL when there is none. */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    char *s = NULL;
    size_t len = 0, cap = 0;
    char buf[4096];
    size_t got;
    while ((got = fread(buf, 1, sizeof buf, f)) > 0) {
        if (len + got + 1 > cap) {
            cap = (len + got + 1) * 2;
            char *t = realloc(s, cap);
            if (!t) {
                free(s);
                fclose(f);
                return NULL;
            }
            s = t;
        }
        memcpy(s + len, buf, got);
        len += got;
    }
    fclose(f);
    if (!s)
        s = calloc(1, 1);
    else
        s[len] = '\0';
    return s;
}

static void put_th(FILE *f, const char *title, int section, const char *date)
{
    fputs(".TH \"", f);
    for (const char *p = title; *p; p++)
        fputc(toupper((unsigned char)*p), f);
    fprintf(f, "\" \"%d\" \"%s\" \"moku %s\" \"%s\"\n", section, date, MOKU_VERSION,
            section == 8   ? "System Administration"
            : section == 5 ? "File Formats"
                           : "User Commands");
}

/* The synopsis forms: "usage: NAME WORDS" and the lines under it. */
static size_t put_synopsis(FILE *f, char **v, size_t n, const char *cmd)
{
    size_t cl = strlen(cmd), i = 0;
    fputs(".SH SYNOPSIS\n", f);
    for (; i < n && !blank(v[i]); i++) {
        const char *s = i == 0 ? v[i] + 7 : v[i] + strspn(v[i], " ");
        if (strncmp(s, cmd, cl) == 0 && (s[cl] == ' ' || !s[cl]))
            s += cl + (s[cl] == ' ');
        fprintf(f, "%s.B %s\n", i ? ".br\n" : "", cmd);
        if (*s) {
            roff(f, s);
            fputc('\n', f);
        }
    }
    return i;
}

/* The rest of --help: the description's paragraphs up to the first heading,
 * then each heading as a section (OPTIONS, COMMANDS). */
static void put_body(FILE *f, char **v, size_t i, size_t n)
{
    fputs(".SH DESCRIPTION\n", f);
    int para = 0;
    while (i < n) {
        if (blank(v[i])) {
            para = 0;
            i++;
        } else if (heading(v[i])) {
            char title[128];
            size_t k = 0;
            for (const char *p = v[i]; *p && *p != ':' && *p != '(' && k + 1 < sizeof title; p++)
                title[k++] = (char)toupper((unsigned char)*p);
            while (k > 0 && title[k - 1] == ' ')
                k--;
            title[k] = '\0';
            fprintf(f, ".SH %s\n", title);
            i = put_items(f, v, i + 1, n, strncmp(v[i], "commands", 8) == 0);
        } else {
            if (!para)
                fputs(".PP\n", f);
            para = 1;
            roff(f, v[i]);
            fputc('\n', f);
            i++;
        }
    }
}

/* The closing sections. ENVIRONMENT for the commands that ask a daemon
 * (their --help has --home), unless the page's own sections say it. */
static void put_common(FILE *f, const char *cmd, const char *extra, int client)
{
    if (client && !strstr(extra, ".SH ENVIRONMENT")) {
        fputs(".SH ENVIRONMENT\n.TP\n.B MOKU_HOME\nthe daemon's home when \\-\\-home is not "
              "given (default: ",
              f);
        roff(f, MOKU_HOME_DEFAULT);
        fputs(")\n.TP\n.B MOKU_TIMEOUT\nhow long a command waits for the daemon, in seconds "
              "(1 to 3600, default 15)\n",
              f);
    }
    if (!strstr(extra, ".SH EXIT STATUS"))
        fputs(".SH EXIT STATUS\n0 success, 1 a run\\-time error, 2 bad usage.\n", f);
    fputs(".SH SEE ALSO\n", f);
    if (strcmp(cmd, "moku") != 0)
        fputs(".BR moku (1),\n", f);
    if (strcmp(cmd, "moku serve") != 0)
        fputs(".BR moku\\-serve (8),\n", f);
    fputs(".BR maui.cfg (5)\n.PP\nThe documents under ", f);
    roff(f, MOKU_DOCDIR);
    fputs(".\n", f);
}

static int write_page(const char *bin, const char *dir, const char *extradir, const char *cmd,
                      const char *summary, const char *date)
{
    size_t n;
    char **v = help_lines(bin, cmd, &n);
    if (!v)
        return 1;
    char page[128], path[4096];
    page_name(cmd, page, sizeof page);
    int sec = page_section(cmd);
    snprintf(path, sizeof path, "%s/%s.%d", extradir, page, sec);
    char *extra = slurp(path);
    if (!extra) {
        fprintf(stderr, "mkman: %s: no such file: every page has its examples there\n", path);
        return 1;
    }
    snprintf(path, sizeof path, "%s/%s.%d", dir, page, sec);
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        return 1;
    }
    fprintf(f,
            ".\\\" Generated by tools/mkman from '%s --help' and man/extra/%s.%d: do not edit.\n",
            cmd, page, sec);
    put_th(f, page, sec, date);
    fputs(".SH NAME\n", f);
    roff(f, page);
    fputs(" \\- ", f);
    roff(f, summary);
    fputc('\n', f);
    size_t i = put_synopsis(f, v, n, cmd);
    put_body(f, v, i, n);
    fputs(extra, f);
    int client = 0;
    for (size_t k = 0; k < n; k++)
        client |= strncmp(v[k], "  --home ", 9) == 0;
    put_common(f, cmd, extra, client);
    free(extra);
    for (size_t k = 0; k < n; k++)
        free(v[k]);
    free(v);
    if (fclose(f) != 0) {
        perror(path);
        return 1;
    }
    return 0;
}

/* Every page: moku's, then each command `BIN --help` lists with its summary. */
static int write_pages(const char *bin, const char *dir, const char *date)
{
    const char *extradir = getenv("MKMAN_EXTRA");
    if (!extradir || !*extradir)
        extradir = "man/extra";
    size_t n;
    char **v = help_lines(bin, "moku", &n);
    if (!v)
        return 1;
    int rc = write_page(bin, dir, extradir, "moku", "Maui-compatible batch scheduler and simulator",
                        date);
    size_t i = 0, cmds = 0;
    while (i < n && strncmp(v[i], "commands", 8) != 0)
        i++;
    for (i++; i < n && !blank(v[i]) && rc == 0; i++) {
        size_t fl = item_flag(v[i]);
        if (!fl)
            continue;
        char cmd[128];
        snprintf(cmd, sizeof cmd, "%.*s", (int)fl, v[i] + 2);
        const char *summary = v[i] + 2 + fl;
        summary += strspn(summary, " ");
        rc = write_page(bin, dir, extradir, cmd, summary, date);
        cmds++;
    }
    if (rc == 0 && cmds == 0) {
        fprintf(stderr, "mkman: '%s --help' lists no commands\n", bin);
        rc = 1;
    }
    for (size_t k = 0; k < n; k++)
        free(v[k]);
    free(v);
    return rc;
}

/* ---- maui.cfg(5), from the configuration reader's tables ---- */

/* A bound as maui.cfg writes it: huge ones mean "no bound". */
static int bounded(double v)
{
    return v > -9e14 && v < 9e14;
}

/* What values a parameter takes. */
static void put_values(FILE *f, const struct cfg_param *p)
{
    switch (p->type) {
    case CFG_INT:
    case CFG_DOUBLE:
        fputs(p->type == CFG_INT ? "An integer" : "A number", f);
        if (bounded(p->min) && bounded(p->max))
            fprintf(f, " from %g to %g", p->min, p->max);
        else if (bounded(p->min))
            fprintf(f, " of at least %g", p->min);
        else if (bounded(p->max))
            fprintf(f, " of at most %g", p->max);
        break;
    case CFG_BOOL:
        fputs("TRUE or FALSE (also ON/OFF, YES/NO, 1/0)", f);
        break;
    case CFG_TIME:
        fputs("A time [[[DD:]HH:]MM:]SS or INFINITY", f);
        if (p->min > 0)
            fprintf(f, ", at least %g s", p->min);
        break;
    case CFG_STRING:
        fputs("Text", f);
        break;
    case CFG_LIST:
        fputs("A list of words (separated by blanks, commas or colons)", f);
        break;
    case CFG_ENUM:
        fputs(p->flags & CFG_MULTI ? "A list of: " : "One of: ", f);
        for (int i = 0; p->choices[i]; i++) {
            fputs(i ? ", " : "", f);
            roff(f, p->choices[i]);
        }
        break;
    }
    fputs("; default: ", f);
    if (p->def)
        roff(f, p->def);
    else
        fputs("unset", f);
    fputs(".\n", f);
}

static void put_params(FILE *f)
{
    size_t n;
    const struct cfg_param *t = cfg_params(&n);
    fputs(".SH PARAMETERS\n", f);
    for (size_t i = 0; i < n; i++) {
        const struct cfg_param *p = &t[i];
        fputs(".TP\n.B ", f);
        roff(f, p->name);
        fputs(p->flags & CFG_INDEXED ? "\\fR[\\fIindex\\fR]\\fP\n" : "\n", f);
        char first = (char)toupper((unsigned char)p->help[0]);
        fputc(first == '.' ? ' ' : first, f);
        roff(f, p->help + 1);
        fputs(".\n.br\n", f);
        put_values(f, p);
        if (p->alias) {
            fputs(".br\nAlso spelt ", f);
            roff(f, p->alias);
            fputs(" (Maui's source).\n", f);
        }
        const char *target, *s;
        for (size_t k = 0; (s = cfg_spelling_at(k, &target)); k++)
            if (strcmp(target, p->name) == 0) {
                fputs(".br\nAlso spelt ", f);
                roff(f, s);
                fputs(".\n", f);
            }
        if (p->flags & CFG_LEGACY)
            fputs(".br\nLegacy (Maui 3.0): read and stored for compatibility.\n", f);
    }
}

/* How many attributes kind has (its table's length). */
static size_t kind_nattrs(const char *kind)
{
    char a[256], sx[256];
    size_t n = 0;
    while (cfg_kind_attr_at(kind, n, a, sx, sizeof sx))
        n++;
    return n;
}

/* The earlier kind whose attributes are the first ones of kind's, the
 * longest such (USERCFG for CLASSCFG: the credential attributes), else NULL;
 * *shared gets their count. */
static const char *kind_base(size_t i, const char *kind, size_t *shared)
{
    const char *best = NULL, *k, *alias;
    *shared = 0;
    for (size_t e = 0; e < i && (k = cfg_kind_at(e, &alias)); e++) {
        size_t n = kind_nattrs(k), j = 0;
        char a1[256], a2[256], sx[256];
        for (; j < n; j++) {
            const char *mine = cfg_kind_attr_at(kind, j, a2, sx, sizeof sx);
            if (!mine || strcmp(cfg_kind_attr_at(k, j, a1, sx, sizeof sx), mine) != 0)
                break;
        }
        if (n > 0 && j == n && n > *shared) {
            best = k;
            *shared = n;
        }
    }
    return best;
}

static void put_kinds(FILE *f)
{
    fputs(".SH OBJECT LINES\nEach kind below takes the attributes listed, as\n"
          ".IR KIND [ name ]\n.IR ATTR = VALUE \" ...\";\nan unknown attribute is a warning "
          "and is ignored.\n",
          f);
    const char *kind, *alias;
    for (size_t i = 0; (kind = cfg_kind_at(i, &alias)); i++) {
        fputs(".SS ", f);
        roff(f, kind);
        if (alias) {
            fputs(" (also ", f);
            roff(f, alias);
            fputc(')', f);
        }
        fputc('\n', f);
        char aliases[256], syntax[256];
        size_t j = 0;
        const char *base = kind_base(i, kind, &j);
        const char *a = cfg_kind_attr_at(kind, j, aliases, syntax, sizeof syntax);
        if (base) {
            fputs("The attributes of ", f);
            roff(f, base);
            fputs(a ? ", and these:\n" : ".\n", f);
        } else if (!a)
            fputs("Its attributes belong to the driver it configures; see DRIVERS below.\n", f);
        for (; a; a = cfg_kind_attr_at(kind, ++j, aliases, syntax, sizeof syntax)) {
            fputs(".TP\n.B ", f);
            roff(f, a);
            fputc('\n', f);
            char c0 = (char)toupper((unsigned char)syntax[0]);
            fputc(c0, f);
            roff(f, syntax + 1);
            if (*aliases) {
                fputs("; also spelt ", f);
                roff(f, aliases);
            }
            fputs(".\n", f);
        }
    }
}

static int write_cfg_page(const char *dir, const char *date)
{
    const char *extradir = getenv("MKMAN_EXTRA");
    if (!extradir || !*extradir)
        extradir = "man/extra";
    char path[4096];
    snprintf(path, sizeof path, "%s/maui.cfg.5", extradir);
    char *extra = slurp(path);
    const char *mark = ".\\\" @TABLES@\n";
    char *at = extra ? strstr(extra, mark) : NULL;
    if (!at) {
        fprintf(stderr, "mkman: %s: missing, or without its '%s' line\n", path, ".\\\" @TABLES@");
        free(extra);
        return 1;
    }
    snprintf(path, sizeof path, "%s/maui.cfg.5", dir);
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        free(extra);
        return 1;
    }
    fputs(".\\\" Generated by tools/mkman from the configuration reader's tables (src/cfg) and\n"
          ".\\\" man/extra/maui.cfg.5: do not edit.\n",
          f);
    put_th(f, "maui.cfg", 5, date);
    fwrite(extra, 1, (size_t)(at - extra), f);
    put_params(f);
    put_kinds(f);
    fputs(at + strlen(mark), f);
    free(extra);
    if (fclose(f) != 0) {
        perror(path);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if ((argc == 4 || argc == 5) && strcmp(argv[1], "man") == 0) {
        char date[16];
        today(date);
        const char *d = argc > 4 ? argv[4] : date;
        if (write_pages(argv[2], argv[3], d) || write_cfg_page(argv[3], d))
            return 1;
        return 0;
    }
    if (argc == 3 && strcmp(argv[1], "completion") == 0) {
        FILE *f = fopen(argv[2], "w");
        if (!f) {
            perror(argv[2]);
            return 1;
        }
        help_completion(f);
        return fclose(f) != 0;
    }
    if (argc == 2 && strcmp(argv[1], "links") == 0) {
        for (size_t i = 0; cmd_def_at(i); i++)
            if (!strchr(cmd_def_at(i)->doc.name, ' '))
                printf("%s\n", cmd_def_at(i)->doc.name);
        return fflush(stdout) != 0;
    }
    fprintf(stderr, "usage: mkman man BIN DIR [DATE] | mkman completion FILE | mkman links\n");
    return 2;
}
