/*
 * client — the Maui commands as clients of `moku serve`: the request is
 * sent over the daemon's socket (wire/), the reply printed. The daemon is
 * found through --home DIR or MOKU_HOME (its socket is DIR/moku.sock).
 */
#ifndef MOKU_CLIENT_H
#define MOKU_CLIENT_H

/* Whether name is a command the daemon answers (showq, canceljob, ...). */
int client_is_command(const char *name);
/* Run command `name` with its arguments (argv[0] is the first argument,
 * not the command) against the daemon; returns the exit status. */
int client_run(const char *name, int argc, char **argv);
/* `moku submit` / qsub / msub: parse the options and script, submit,
 * print the job id. */
int client_submit(const char *name, int argc, char **argv);

/* moku web [--home DIR]: ask the daemon for a one-time login link to its
 * web view, bound to this user (the kernel tells the daemon who), and print
 * it. Exit status as client_run's. */
int client_web(int argc, char **argv);

#endif
