/*
 * dconn — the daemon's client connections, served from its one poll loop
 * without ever blocking it: no client, however slow or hostile, holds up
 * the scheduling or another user's request.
 *
 *   - Who connects is read from the kernel (SO_PEERCRED) at accept time.
 *   - Each uid may hold DCONN_PER_UID connections at once (a new one past
 *     that is closed at once); the whole daemon DCONN_MAX. When the whole
 *     is full, the oldest connection that has not sent a whole request is
 *     closed to make room: idle connections cannot lock others out.
 *   - A request must arrive whole within DCONN_READ_SECONDS of the accept.
 *   - A reply is written from its own buffer as the client reads it
 *     (POLLOUT), never waited for; a client that has not read it within
 *     DCONN_WRITE_SECONDS is dropped. A uid has at most DCONN_OUT_PER_UID
 *     replies waiting to be read; its further requests wait (unread) until
 *     one is taken, which bounds the memory one user can pin.
 *   - At most one request per uid is answered per pass of the loop, so a
 *     user who sends many requests at once gets them answered in turn with
 *     everyone else's, not before them.
 *
 * The daemon gives dconn_service a function that turns one request into
 * one reply (the caller owns the text it returns; dconn frames and sends
 * it).
 */
#ifndef MOKU_DCONN_H
#define MOKU_DCONN_H

#include <poll.h>
#include <stddef.h>
#include <sys/types.h>

#include "wire/wire.h"

#define DCONN_MAX 1024
#define DCONN_PER_UID 32
#define DCONN_OUT_PER_UID 4
#define DCONN_READ_SECONDS 5
#define DCONN_WRITE_SECONDS 10

struct dconn {
    int fd;
    uid_t uid;
    gid_t gid;
    long since; /* when accepted, or when its reply was ready (epoch s) */
    struct wire_reader r;
    char *out; /* the framed reply, NULL while reading */
    size_t outlen, outoff;
};

struct dconn_set {
    struct dconn *v; /* owned */
    size_t n, cap;
    size_t dropped; /* connections closed by the limits (for the log) */
};

/* The answer to one request from (uid, gid): a NUL-terminated reply text the
 * caller owns, or NULL to close without a reply. */
typedef char *dconn_answer_fn(void *ctx, uid_t uid, gid_t gid, const char *req, size_t len);

/* Accept every connection waiting on the listening socket lfd (non-blocking),
 * applying the caps. */
void dconn_accept(struct dconn_set *s, int lfd, long now);
/* Fill pfd[0..] with one entry per connection (POLLIN while it is read,
 * POLLOUT while its reply is written, no events while it waits its turn);
 * returns how many. pfd has room for s->n entries. */
size_t dconn_pollfds(const struct dconn_set *s, struct pollfd *pfd);
/* After poll: read, answer (at most one request per uid), write, and close
 * what is done, broken or past its time. pfd and npfd as dconn_pollfds
 * filled and returned them, with no dconn_accept in between. Returns the
 * number of requests answered. */
size_t dconn_service(struct dconn_set *s, const struct pollfd *pfd, size_t npfd, long now,
                     dconn_answer_fn *answer, void *ctx);
/* Close them all. */
void dconn_close_all(struct dconn_set *s);

#endif
