/*
 * pty — the terminal of an interactive job (qsub -I).
 *
 * Both ends of one design: the job's supervisor (root) opens a pseudo-terminal
 * for the job's user, starts the user's shell on its slave side in a session
 * of its own (the slave its controlling terminal), and hands the master to
 * the waiting qsub with SCM_RIGHTS over a unix socket whose peer it has
 * checked to be the job's owner (SO_PEERCRED). qsub relays its own terminal
 * (raw) to the master and back, forwards window-size changes, and learns the
 * shell's exit status from the supervisor on the same socket. The supervisor
 * keeps no copy of the master: when qsub goes, the last master closes and the
 * kernel hangs the shell up (SIGHUP), and the supervisor sees the socket close
 * and ends what is left of the job.
 *
 * Every function returns 0 (or a count) on success and -1 with err filled on
 * failure, leaving nothing open that it opened.
 */
#ifndef MOKU_PTY_H
#define MOKU_PTY_H

#include <stddef.h>
#include <sys/types.h>
#include <termios.h>

#include "util/err.h"

/* The status line the supervisor sends when the shell has ended:
 * "exit N\n", N the shell's exit status (128 + signal when killed). */
#define PTY_STATUS_MAX 64

/* Open a pseudo-terminal whose slave belongs to `owner` (mode 0620, group
 * tty when it exists, as login(1) leaves it), both descriptors close-on-exec,
 * the slave not yet anyone's controlling terminal. */
int pty_open(uid_t owner, int *master, int *slave, struct err *err);

/* In a freshly forked child: a new session, `slave` its controlling terminal
 * and its stdin, stdout and stderr; `slave` itself closed when it is not one
 * of 0..2. Returns -1 with errno set (the child reports it as it can). */
int pty_attach(int slave);

/* A unix socket listening at `path` (a new name: an old socket there is an
 * error), the file owned by `owner` and 0600 so that only that user (and
 * root) can connect; close-on-exec, non-blocking. */
int pty_listen(const char *path, uid_t owner, struct err *err);

/* Accept one connection on `lfd` and keep it only when its peer is `owner`:
 * the connection (close-on-exec), or -1 with err filled (no connection
 * waiting, or one of another user, closed). */
int pty_accept_owner(int lfd, uid_t owner, struct err *err);

/* The uid of the process at the other end of the unix socket `sock`. */
int pty_peer_uid(int sock, uid_t *uid, struct err *err);

/* Send `msg` (at least one byte) with the descriptor `fd` attached. */
int pty_send_fd(int sock, int fd, const char *msg, size_t len, struct err *err);

/* Receive a message of at most cap - 1 bytes (NUL-terminated) and the
 * descriptor sent with it (close-on-exec) into *fd, -1 when none came.
 * Returns the message's length; 0 is the peer's end. */
ssize_t pty_recv_fd(int sock, int *fd, char *msg, size_t cap, struct err *err);

/* Put the terminal `tty` in raw mode, its settings before that kept in
 * *saved for pty_restore. */
int pty_raw(int tty, struct termios *saved, struct err *err);
void pty_restore(int tty, const struct termios *saved);

/* Give `to` (a pty master) the window size of the terminal `from`; 0 when
 * `from` is no terminal (nothing to give). */
int pty_copy_winsize(int from, int to, struct err *err);

/* Relay until the shell has ended: bytes from `in` to `master`, from
 * `master` to `out`; SIGWINCH (blocked while it runs, read from a signalfd)
 * copies in's window size to the master; `ctl` (the supervisor's socket)
 * brings the status line. At in's end of file, `in` is no longer read (the
 * shell keeps its terminal). Returns the shell's exit status, or -1 with err
 * filled when the supervisor went without saying it. */
int pty_relay(int in, int out, int master, int ctl, struct err *err);

#endif
