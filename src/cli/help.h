/*
 * help — every command's usage, options and description, in one table
 * (help.c), for `--help`, the man pages (tools/mkman.c) and the bash
 * completion, so that the three never drift apart. A new command is one
 * entry of the table.
 *
 * Not the parsers: each command reads its own words (the daemon's command
 * layer, cmd/, for the Maui commands). The table says what they accept;
 * tests/integration/help.sh checks every entry against its command.
 */
#ifndef MOKU_HELP_H
#define MOKU_HELP_H

#include <stddef.h>
#include <stdio.h>

#define MOKU_VERSION "0.1.0"

/* One option line: "-u USER" and what it does ('\n' breaks the text). */
struct help_opt {
    const char *flag;
    const char *text;
};

enum {
    HELP_CLIENT = 1, /* asks the daemon: --home and --format are its options too */
    HELP_NO_H = 2,   /* -h is one of the command's own options: only --help asks */
};

struct help_cmd {
    const char *name;     /* as typed: "showq", "moku serve" */
    int section;          /* of its man page: 1, or 8 (moku serve) */
    unsigned flags;       /* HELP_* */
    const char *synopsis; /* the words after the name; '\n' between forms */
    const char *summary;  /* one line, lower case: the man page's NAME */
    const char *desc;     /* a paragraph or more ("\n\n" between them) */
    const struct help_opt *opts; /* ends with a NULL flag; may be NULL */
};

/* The entries, in the table's order: moku, its subcommands, the Maui
 * commands. NULL past the end. */
const struct help_cmd *help_at(size_t i);
/* The entry for name ("showq", "moku serve"), or NULL. */
const struct help_cmd *help_find(const char *name);

enum help_ask { HELP_NONE, HELP_HELP, HELP_VERSION };
/* Whether the words ask for help (--help, or -h unless HELP_NO_H) or the
 * version (--version) instead of the command: any word before a "--". */
enum help_ask help_asked(const struct help_cmd *c, int argc, char *const argv[]);
/* Answer such a request on stdout: the usage and options, or "moku
 * 0.1.0". Returns the exit status, 0. */
int help_answer(const struct help_cmd *c, enum help_ask ask);
/* The usage and options, as --help prints them. */
void help_print(FILE *f, const struct help_cmd *c);
/* A usage error: "NAME: MESSAGE" and "try 'NAME --help'" on stderr.
 * Returns 2, the exit status of usage errors. */
int help_usage_error(const struct help_cmd *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* The hint alone ("try 'NAME --help'"), after a message printed elsewhere. */
void help_hint(const struct help_cmd *c);

/* The man page of c (troff -man), dated date ("2026-01-31"). */
void help_man(FILE *f, const struct help_cmd *c, const char *date);
/* The man page's file name: "showq.1", "moku-serve.8" (caller's buffer). */
void help_man_name(const struct help_cmd *c, char *buf, size_t n);
/* A bash completion script for every command of the table. */
void help_completion(FILE *f);

#endif
