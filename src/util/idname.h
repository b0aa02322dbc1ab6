/*
 * idname — the names of numeric user and group ids, as the system's user
 * database gives them (getpwuid, getgrgid), or the number in decimal when it
 * has none: what the daemon calls a client the kernel names, and what the
 * Slurm driver calls a job's owner. Not for the engine (it reads no system
 * database).
 */
#ifndef MOKU_IDNAME_H
#define MOKU_IDNAME_H

#include <stddef.h>
#include <sys/types.h>

/* The name of uid (or of gid) into buf (n bytes, truncated); returns buf. */
const char *idname_user(uid_t uid, char *buf, size_t n);
const char *idname_group(gid_t gid, char *buf, size_t n);
/* This host's short name (up to its first dot; "localhost" when it has
 * none) into buf: the server part of Torque's job ids, "12.server", as
 * qsub prints them, qstat shows them and jobs see them; returns buf. */
const char *idname_server(char *buf, size_t n);

#endif
