/*
 * daemon — `moku serve`: the scheduler as a batch system on one machine.
 *
 * The engine, policies and command handlers are the simulator's; what the
 * daemon adds is the wall clock, a resource manager that runs real jobs
 * (rm/local), persistent state (store/, SQLite), the wire (wire/, a
 * Unix-domain socket) and who may do what (ADMIN1/2/3).
 *
 * HOME holds maui.cfg (optional: Maui's defaults without it), moku.db (the
 * state), the log (LOGFILE), spool/ (one directory per running job) and the
 * socket moku.sock.
 */
#ifndef MOKU_DAEMON_H
#define MOKU_DAEMON_H

/* Run the daemon in the foreground (detach: in the background, the caller
 * returning once the socket is listening). fresh: a 0-byte moku.db may be
 * started anew (else it is refused). Returns the process exit status. */
int daemon_serve(const char *home, int detach, int fresh);

#endif
