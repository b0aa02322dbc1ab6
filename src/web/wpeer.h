/*
 * wpeer — who holds the other end of a TCP connection made on this
 * machine: the uid the kernel keeps for the client's socket, asked through
 * its socket diagnostics (NETLINK_SOCK_DIAG, inet_diag), as identd-style
 * services have long done with /proc/net/tcp.
 *
 * Why: a browser sends a cookie for 127.0.0.1 to every port of 127.0.0.1,
 * so a cookie says nothing about who presents it; the kernel's record of
 * the client socket's owner does. The web view binds its sessions and
 * login links to that uid (docs/web.md).
 *
 * The client's socket is looked up by its exact four-tuple, and only a full
 * socket in a connected state, still open in some process, is believed:
 * the kernel reports uid 0 for a TIME_WAIT or half-open entry and for a
 * socket its process has closed, and its lookup can fall back to a
 * listening socket when the client's is gone. The uid is the one the
 * socket was made by (its inode's owner), whoever holds it since. Linux,
 * IPv4, loopback addresses only (the only connections whose other end
 * lives in this kernel).
 */
#ifndef MOKU_WPEER_H
#define MOKU_WPEER_H

#include <netinet/in.h>
#include <sys/types.h>

#include "util/err.h"

/* Whether a is in 127.0.0.0/8 (network byte order inside). */
int wpeer_loopback(const struct in_addr *a);

/* The uid owning the client end of the accepted connection fd (a TCP
 * socket of this process, peer on a loopback address). 0 and *uid, or -1
 * (err) when the kernel does not say: not a loopback IPv4 connection, the
 * client's socket gone or closing, netlink refused. */
int wpeer_uid(int fd, uid_t *uid, struct err *err);

/* The same for a client at client talking to server (both loopback). */
int wpeer_lookup(const struct sockaddr_in *client, const struct sockaddr_in *server, uid_t *uid,
                 struct err *err);

#endif
