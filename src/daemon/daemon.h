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
 * socket moku.sock, and moku.pid (the serving process's id, while it
 * serves).
 */
#ifndef MOKU_DAEMON_H
#define MOKU_DAEMON_H

#include "daemon/dlog.h"

struct daemon_opts {
    const char *home;
    int detach;         /* in the background, the caller returning once serving */
    int fresh;          /* a 0-byte moku.db may be started anew (else refused) */
    enum dlog_sink log; /* maui.log (DLOG_FILE), syslog or the journal */
};

/* Run the daemon in the foreground, or detached. Under systemd (Type=notify,
 * NOTIFY_SOCKET set) it says READY=1 once it serves and STOPPING=1 when it
 * stops. Returns the process exit status. */
int daemon_serve(const struct daemon_opts *o);

#endif
