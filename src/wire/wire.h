/*
 * wire — the client/daemon protocol on a Unix-domain stream socket.
 *
 * A message is a frame: 4 bytes of length (big-endian, unsigned), then
 * that many bytes of JSON text. The client sends a request frame, the
 * daemon answers with one reply frame. A connection stays open for more
 * until the client closes it: moku's commands send one request and close;
 * a client may also send a batch before reading (pipelining) and gets the
 * replies in order (src/daemon/dconn.h). Requests are small and bounded
 * (WIRE_MAX_REQUEST, a job script included); replies may be large (showq
 * of a big queue).
 *
 * Who is asking is never taken from the request: the daemon asks the kernel
 * (SO_PEERCRED) for the peer's uid, gid and pid.
 *
 *   request: {"cmd": "showq", "args": ["-r", "--format=json"]}
 *            {"cmd": "submit", "job": {...qsub request...}}
 *   reply:   {"ok": true, "exit": 0, "output": "..."}
 *            {"ok": false, "exit": 1, "error": "canceljob: no job '42'"}
 *
 * A request with "raw": true (moku's own client sends it) is answered with
 * the output after the JSON instead of inside it: the compact JSON without
 * "output", one newline, then the output's bytes as they are (compact JSON
 * holds no newline, so the first one ends it). A big showq is then neither
 * escaped by the daemon nor parsed by the client (issue 31).
 */
#ifndef MOKU_WIRE_H
#define MOKU_WIRE_H

#include <stddef.h>
#include <sys/types.h>

#include "util/err.h"

#define WIRE_MAX_REQUEST (4u << 20) /* 4 MiB: a 1 MiB script, escaped */
#define WIRE_MAX_REPLY (512u << 20) /* 512 MiB */

/* Listen on path (mode 0666: anyone may ask, the kernel says who). A stale
 * socket file nobody answers on is replaced; a live one is an error ("a
 * daemon is already running on <path>"). Returns the fd or -1. */
int wire_listen(const char *path, struct err *err);
/* What the calls below return when their time ran out (also < 0, with
 * err), so that a caller can tell "no answer in time" (the peer may still
 * act on what it has) from "the peer went away". */
#define WIRE_TIMEOUT (-2)

/* Connect to path, waiting at most timeout_ms (-1: no limit) for a daemon
 * whose queue of connections is full (a stopped one); later sends on the
 * descriptor are bounded by the same time. -1 with a clear message when no
 * daemon listens, WIRE_TIMEOUT when none took the connection in time. */
int wire_connect(const char *path, int timeout_ms, struct err *err);

/* Send one frame, waiting at most timeout_ms in all (-1: no limit) for the
 * peer to take it (EINTR retried; no SIGPIPE). WIRE_TIMEOUT when it did not:
 * then only part of the frame may have left, which the peer never acts on. */
int wire_send(int fd, const char *buf, size_t len, int timeout_ms, struct err *err);
/* Receive one frame of at most max bytes, waiting at most timeout_ms in
 * all (-1: no limit). *buf is NUL-terminated, caller frees. Errors: peer
 * closed early, frame too large (-1); WIRE_TIMEOUT. */
int wire_recv(int fd, char **buf, size_t *len, size_t max, int timeout_ms, struct err *err);

/* The peer's credentials from the kernel. */
int wire_peer(int fd, uid_t *uid, gid_t *gid, pid_t *pid, struct err *err);

/* Incremental frame reader for a daemon that serves many connections from
 * one poll loop: feed it what read() returns. */
struct wire_reader {
    unsigned char hdr[4];
    size_t got;  /* bytes of header + body received */
    size_t need; /* body length, once the header is in */
    char *body;
    size_t cap; /* bytes allocated for body (grows as bytes arrive) */
    size_t max;
};
/* Read what is available on fd (non-blocking). Returns 1 when a whole frame
 * is in r->body (NUL-terminated, length r->need; take it and reset), 0 when
 * more is needed, -1 with err on EOF before a frame, an oversized frame or
 * a read error. */
int wire_reader_step(struct wire_reader *r, int fd, struct err *err);
void wire_reader_reset(struct wire_reader *r);

#endif
