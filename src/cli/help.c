/*
 * help — the table's three readers (help.h): --help text, man pages and
 * bash completion. The entries are the command table's (cmd/cmdtab.c) and
 * moku's faces' (help_tab.c).
 *
 * The Maui commands (HELP_CLIENT) share options that are the client's and
 * the command layer's, not the command's own: --format, --home, --help,
 * --version. They are added here, after each command's own lines.
 */
#include "cli/help.h"

#include <stdarg.h>
#include <string.h>

#include "moku_config.h" /* MOKU_HOME_DEFAULT */

static const struct help_opt client_opts[] = {
    {"--format json|text", "the answer as JSON, or as Maui's text (the default)"},
    {"--home DIR", "the daemon's home (default: MOKU_HOME, else " MOKU_HOME_DEFAULT ")"},
    {NULL, NULL},
};

static const struct help_opt help_opts[] = {
    {"--help, -h", "this help"},
    {"--version", "print moku's version"},
    {NULL, NULL},
};

static const struct help_opt help_opts_no_h[] = {
    {"--help", "this help"},
    {"--version", "print moku's version"},
    {NULL, NULL},
};

const struct help_cmd *help_find(const char *name)
{
    const struct help_cmd *c;
    for (size_t i = 0; (c = help_at(i)); i++)
        if (strcmp(c->name, name) == 0)
            return c;
    return NULL;
}

/* Whether the command's own table already ends with --help (the ones that
 * are not clients list it themselves, to place it among their options). */
static int lists_help(const struct help_cmd *c)
{
    for (const struct help_opt *o = c->opts; o && o->flag; o++)
        if (strncmp(o->flag, "--help", 6) == 0)
            return 1;
    return 0;
}

/* The groups of option lines of c, in order; NULL-terminated. */
static void option_groups(const struct help_cmd *c, const struct help_opt *g[4])
{
    int n = 0;
    if (c->opts)
        g[n++] = c->opts;
    if (c->flags & HELP_CLIENT)
        g[n++] = client_opts;
    if (!lists_help(c))
        g[n++] = c->flags & HELP_NO_H ? help_opts_no_h : help_opts;
    g[n] = NULL;
}

enum help_ask help_asked(const struct help_cmd *c, int argc, char *const argv[])
{
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0)
            break;
        if (strcmp(argv[i], "--help") == 0 ||
            (strcmp(argv[i], "-h") == 0 && !(c->flags & HELP_NO_H)))
            return HELP_HELP;
        if (strcmp(argv[i], "--version") == 0)
            return HELP_VERSION;
    }
    return HELP_NONE;
}

int help_answer(const struct help_cmd *c, enum help_ask ask)
{
    if (ask == HELP_VERSION)
        printf("moku %s\n", MOKU_VERSION);
    else
        help_print(stdout, c);
    return 0;
}

/* text with each line after the first indented by indent spaces. */
static void put_indented(FILE *f, const char *text, int indent)
{
    for (const char *p = text; *p; p++) {
        fputc(*p, f);
        if (*p == '\n')
            fprintf(f, "%*s", indent, "");
    }
}

/* Words of a paragraph, filled to width columns. */
static void put_filled(FILE *f, const char *text, int width)
{
    int col = 0;
    const char *p = text;
    while (*p) {
        if (p[0] == '\n' && p[1] == '\n') {
            fputs("\n\n", f);
            col = 0;
            p += 2;
            continue;
        }
        while (*p == ' ' || *p == '\n')
            p++;
        size_t n = strcspn(p, " \n");
        if (col && col + 1 + (int)n > width) {
            fputc('\n', f);
            col = 0;
        } else if (col) {
            fputc(' ', f);
            col++;
        }
        fwrite(p, 1, n, f);
        col += (int)n;
        p += n;
    }
    if (col)
        fputc('\n', f);
}

#define FLAG_COLUMN 22

/* moku's own help lists every command of the table, with its summary. */
static void put_commands(FILE *f)
{
    const struct help_cmd *c;
    fputs("\ncommands (each answers --help):\n", f);
    for (size_t i = 1; (c = help_at(i)); i++)
        fprintf(f, "  %-*s%s\n", FLAG_COLUMN - 2, c->name, c->summary);
}

void help_print(FILE *f, const struct help_cmd *c)
{
    const char *s = c->synopsis;
    for (int first = 1; first || *s; first = 0) {
        size_t n = strcspn(s, "\n");
        fprintf(f, "%s %s%s%.*s\n", first ? "usage:" : "      ", c->name, n ? " " : "", (int)n, s);
        s += n + (s[n] == '\n');
    }
    fputc('\n', f);
    put_filled(f, c->desc, 78);
    const struct help_opt *groups[4];
    option_groups(c, groups);
    fputs("\noptions:\n", f);
    for (int g = 0; groups[g]; g++)
        for (const struct help_opt *o = groups[g]; o->flag; o++) {
            int w = (int)strlen(o->flag);
            if (w + 2 < FLAG_COLUMN - 1)
                fprintf(f, "  %-*s", FLAG_COLUMN - 2, o->flag);
            else
                fprintf(f, "  %s\n%*s", o->flag, FLAG_COLUMN, "");
            put_indented(f, o->text, FLAG_COLUMN);
            fputc('\n', f);
        }
    if (strcmp(c->name, "moku") == 0)
        put_commands(f);
}

void help_hint(const struct help_cmd *c)
{
    fprintf(stderr, "try '%s --help'\n", c->name);
}

int help_usage_error(const struct help_cmd *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", c->name);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    help_hint(c);
    return 2;
}

/* ---- man pages ---- */

void help_man_name(const struct help_cmd *c, char *buf, size_t n)
{
    snprintf(buf, n, "%s.%d", c->name, c->section);
    for (char *p = buf; *p; p++)
        if (*p == ' ')
            *p = '-';
}

/* s as troff text: '-' and '\' escaped, a leading '.' or '\'' guarded. */
static void roff(FILE *f, const char *s, size_t n)
{
    for (size_t i = 0; i < n && s[i]; i++) {
        if ((i == 0 || s[i - 1] == '\n') && (s[i] == '.' || s[i] == '\''))
            fputs("\\&", f);
        if (s[i] == '-')
            fputs("\\-", f);
        else if (s[i] == '\\')
            fputs("\\e", f);
        else
            fputc(s[i], f);
    }
}

static void roff_str(FILE *f, const char *s)
{
    roff(f, s, strlen(s));
}

/* A paragraph of the table as troff: "\n\n" starts a new one, a single
 * '\n' is a space (troff fills). */
static void roff_para(FILE *f, const char *s)
{
    fputs(".PP\n", f);
    for (const char *p = s; *p;) {
        if (p[0] == '\n' && p[1] == '\n') {
            fputs("\n.PP\n", f);
            p += 2;
            continue;
        }
        size_t n = strcspn(p, "\n");
        roff(f, p, n);
        p += n;
        if (*p == '\n' && p[1] != '\n') {
            fputc('\n', f);
            p++;
        }
    }
    fputc('\n', f);
}

static void man_name(FILE *f, const char *name)
{
    for (const char *p = name; *p; p++)
        fputc(*p == ' ' ? '-' : *p, f);
}

void help_man(FILE *f, const struct help_cmd *c, const char *date)
{
    fputs(".\\\" Generated from moku's help table (src/cli/help_tab.c): do not edit.\n", f);
    fputs(".TH \"", f);
    for (const char *p = c->name; *p; p++)
        fputc(*p == ' ' ? '-' : (*p >= 'a' && *p <= 'z' ? *p - 'a' + 'A' : *p), f);
    fprintf(f, "\" \"%d\" \"%s\" \"moku %s\" \"%s\"\n", c->section, date, MOKU_VERSION,
            c->section == 8 ? "System Administration" : "User Commands");
    fputs(".SH NAME\n", f);
    man_name(f, c->name);
    fputs(" \\- ", f);
    roff_str(f, c->summary);
    fputs("\n.SH SYNOPSIS\n", f);
    const char *s = c->synopsis;
    for (int first = 1; first || *s; first = 0) {
        size_t n = strcspn(s, "\n");
        fprintf(f, "%s.B %s\n", first ? "" : ".br\n", c->name);
        if (n) {
            roff(f, s, n);
            fputc('\n', f);
        }
        s += n + (s[n] == '\n');
    }
    fputs(".SH DESCRIPTION\n", f);
    roff_para(f, c->desc);
    const struct help_opt *groups[4];
    option_groups(c, groups);
    fputs(".SH OPTIONS\n", f);
    for (int g = 0; groups[g]; g++)
        for (const struct help_opt *o = groups[g]; o->flag; o++) {
            fputs(".TP\n.B ", f);
            roff_str(f, o->flag);
            fputc('\n', f);
            for (const char *p = o->text; *p;) {
                size_t n = strcspn(p, "\n");
                roff(f, p, n);
                fputc('\n', f);
                p += n + (p[n] == '\n');
            }
        }
    fputs(".SH ENVIRONMENT\n.TP\n.B MOKU_HOME\nthe daemon's home when --home is not given "
          "(default: ",
          f);
    roff_str(f, MOKU_HOME_DEFAULT);
    fputs(")\n.TP\n.B MOKU_TIMEOUT\nhow long a command waits for the daemon, in seconds "
          "(1 to 3600, default 15)\n",
          f);
    fputs(".SH EXIT STATUS\n0 success, 1 a run-time error, 2 bad usage.\n.SH SEE ALSO\n", f);
    fputs(strcmp(c->name, "moku") == 0 ? ".BR moku\\-serve (8),\n.BR showq (1)\n"
                                       : ".BR moku (1),\n.BR moku\\-serve (8)\n",
          f);
}

/* ---- bash completion ---- */

/* The option words of a flag column: "--nodes N" -> "--nodes", "--help, -h"
 * -> "--help -h", "-j oe|eo|n" -> "-j". */
static void flag_words(FILE *f, const char *flag)
{
    const char *p = flag;
    while (*p) {
        size_t n = strcspn(p, " ,|=");
        if (n && p[0] == '-')
            fprintf(f, " %.*s", (int)n, p);
        p += n;
        p += strspn(p, " ,|=");
    }
}

void help_completion(FILE *f)
{
    const struct help_cmd *c;
    fputs("# bash completion for moku and its commands; generated from moku's help table\n"
          "# (src/cli/help_tab.c): do not edit.\n"
          "_moku_options()\n{\n    case \"$1\" in\n",
          f);
    for (size_t i = 0; (c = help_at(i)); i++) {
        fprintf(f, "    '%s') echo '", c->name);
        const struct help_opt *groups[4];
        option_groups(c, groups);
        for (int g = 0; groups[g]; g++)
            for (const struct help_opt *o = groups[g]; o->flag; o++)
                flag_words(f, o->flag);
        fputs("' ;;\n", f);
    }
    fputs("    esac\n}\n\n_moku()\n{\n"
          "    local cur=${COMP_WORDS[COMP_CWORD]} cmd=${COMP_WORDS[0]##*/}\n"
          "    if [ \"$cmd\" = moku ]; then\n"
          "        if [ \"$COMP_CWORD\" -eq 1 ]; then\n"
          "            COMPREPLY=($(compgen -W '",
          f);
    for (size_t i = 1; (c = help_at(i)); i++)
        fprintf(f, "%s%s", i > 1 ? " " : "",
                strncmp(c->name, "moku ", 5) == 0 ? c->name + 5 : c->name);
    fputs(" --help --version' -- \"$cur\"))\n"
          "            return\n"
          "        fi\n"
          "        cmd=${COMP_WORDS[1]}\n"
          "        case $cmd in serve|simulate|validate|submit|web) cmd=\"moku $cmd\" ;; esac\n"
          "    fi\n"
          "    if [[ $cur == -* ]]; then\n"
          "        COMPREPLY=($(compgen -W \"$(_moku_options \"$cmd\")\" -- \"$cur\"))\n"
          "    else\n"
          "        COMPREPLY=($(compgen -f -- \"$cur\"))\n"
          "    fi\n"
          "}\n\ncomplete -F _moku moku",
          f);
    for (size_t i = 0; (c = help_at(i)); i++)
        if (!strchr(c->name, ' ') && strcmp(c->name, "moku") != 0)
            fprintf(f, " %s", c->name);
    fputc('\n', f);
}
