/*
 * help — every command's usage, options and description, for `--help`,
 * the man pages (tools/mkman.c) and the bash completion, so that the three
 * never drift apart: the command table's entries (cmd/cmdtab.c) and moku's
 * faces (help_tab.c). A new command is one entry of the command table.
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

/* struct help_cmd, struct help_opt and HELP_CLIENT, HELP_NO_H are the
 * command table's (cmd/cmdtab.h): each command's help is in its entry. */
#include "cmd/cmdtab.h"

/* The entries, in order: moku, its faces (serve, simulate, validate),
 * then the command table's (submit, web, the Maui and Torque commands).
 * NULL past the end. */
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
