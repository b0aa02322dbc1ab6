/*
 * client — the Maui commands as clients of `moku serve`: the request is
 * sent over the daemon's socket (wire/), the reply printed. The daemon is
 * found through --home DIR or MOKU_HOME (its socket is DIR/moku.sock).
 *
 * No call waits for ever: connecting, sending and the answer together take
 * at most MOKU_TIMEOUT seconds (default 15), so a stopped or hung daemon
 * gives "no answer from the daemon" instead of a command that hangs. A
 * submission carries a token; when its request left but no answer came,
 * the client says that the job may or may not have been made and prints
 * the token: `qsub --token TOKEN ...` sends the submission again under it,
 * and the daemon answers a token it has seen with the first job's id.
 */
#ifndef MOKU_CLIENT_H
#define MOKU_CLIENT_H

/* Whether name is a command the daemon answers (showq, canceljob, ...). */
int client_is_command(const char *name);
/* Run command `name` with its arguments (argv[0] is the first argument,
 * not the command) against the daemon; returns the exit status. */
int client_run(const char *name, int argc, char **argv);
/* `moku submit` / qsub / msub: parse the options and script, submit,
 * print the job id. --token TOKEN (16 to 64 of [0-9A-Za-z_-]) submits under
 * that token instead of a new one. */
int client_submit(const char *name, int argc, char **argv);

/* moku web [--home DIR]: ask the daemon for a one-time login link to its
 * web view, bound to this user (the kernel tells the daemon who), and print
 * it. Exit status as client_run's. */
int client_web(int argc, char **argv);

#endif
