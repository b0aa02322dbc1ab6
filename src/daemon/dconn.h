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
 *   - A request must arrive whole within DCONN_READ_SECONDS of the accept
 *     (or of the last reply's being sent, on a connection kept open).
 *   - A reply is written from its own buffer as the client reads it
 *     (POLLOUT), never waited for; a client that has not read it within
 *     DCONN_WRITE_SECONDS is dropped. A uid has at most DCONN_OUT_PER_UID
 *     connections with replies waiting to be read; its further requests wait (unread) until
 *     one is taken, which bounds the memory one user can pin.
 *   - A connection may carry several requests (pipelining): it stays open
 *     after its replies until the client closes it (a one-request client
 *     closes once it has read its reply) or sends nothing for
 *     DCONN_READ_SECONDS. A client that sends several before it reads gets
 *     the replies in order, in one buffer. The next request of a
 *     connection is read only while all its earlier replies wait for the
 *     group's commit (submissions), so a batch of submissions joins one
 *     group; a request that does not join ends the connection's reading
 *     until its replies are sent.
 *   - Per pass of the loop each uid gets DCONN_ANSWERS_PER_UID units of
 *     answers: a submission that joins the group costs one, any other
 *     request DCONN_COST_OTHER (at most 4 of those a pass, as before
 *     pipelining), and no more requests of the uid are read in the pass
 *     once DCONN_BYTES_PER_UID bytes of them have been (a batch's requests
 *     are kept until its commit). A user who sends many
 *     requests at once gets them answered in turn with everyone else's,
 *     not before them, while a batch of cheap submissions still shares
 *     one commit.
 *   - Group commit: a request the daemon says joins the group (ops->joins)
 *     is answered, but its reply is held until ops->settle has made the
 *     group's changes durable — once per pass, or before the first request
 *     of the pass that does not join, so that requests with effects outside
 *     the store (starting a job) never act on changes not yet durable. If
 *     the group could not be made durable, every held reply is replaced by
 *     the error settle returns (or by its request's answer on its own).
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
#define DCONN_ANSWERS_PER_UID 64
#define DCONN_COST_OTHER (DCONN_ANSWERS_PER_UID / 4)
#define DCONN_BYTES_PER_UID (4u << 20)
#define DCONN_READ_SECONDS 5
#define DCONN_WRITE_SECONDS 10

/* A request whose reply is held, kept as it came. */
struct dconn_req {
    char *text; /* NUL-terminated */
    size_t len;
};

struct dconn {
    int fd;
    uid_t uid;
    gid_t gid;
    long since; /* when accepted, or when its reply was ready (epoch s) */
    struct wire_reader r;
    char *out; /* the framed replies (one, or a batch), NULL while reading */
    size_t outlen, outoff;
    int held;               /* all of out waits for the group's commit (ops->settle) */
    struct dconn_req *hreq; /* while held: the requests, to answer each again
                               on its own if the group cannot be made durable */
    size_t nhreq, hreqcap;
    int last;   /* read no more: close once out is sent */
    int served; /* has had a reply: an idle close is no drop */
    int fresh;  /* accepted since the last poll: read at once (most send at once) */
};

struct dconn_set {
    struct dconn *v; /* owned */
    size_t n, cap;
    size_t dropped; /* connections closed by the limits (for the log) */
};

/* The answer to one request from (uid, gid): a NUL-terminated reply text the
 * caller owns, or NULL to close without a reply. */
typedef char *dconn_answer_fn(void *ctx, uid_t uid, gid_t gid, const char *req, size_t len);

/* How the daemon answers. joins and settle may be NULL (no group commit).
 * joins: 1 when the request, about to be answered, joins the group (its
 * changes are made durable by settle, not by itself). settle: make the
 * group durable; NULL when it is (or nothing joined), else the reply text
 * (owned by the caller) for the requests of the group. When settle sets
 * *alone (its state is back at the last commit, as if the group had never
 * been), each request of the failed group is answered again on its own, in
 * its own commit: one member's failure is its own, not the others'; the
 * reply text is then only for a request answered with no reply at all. */
struct dconn_ops {
    dconn_answer_fn *answer;
    int (*joins)(void *ctx, uid_t uid, const char *req, size_t len);
    char *(*settle)(void *ctx, int *alone);
    void *ctx;
};

/* Accept every connection waiting on the listening socket lfd (non-blocking),
 * applying the caps. */
void dconn_accept(struct dconn_set *s, int lfd, long now);
/* Fill pfd[0..] with one entry per connection (POLLIN while it is read,
 * POLLOUT while its reply is written, no events while it waits its turn);
 * returns how many. pfd has room for s->n entries. */
size_t dconn_pollfds(const struct dconn_set *s, struct pollfd *pfd);
/* After poll: read, answer (at most DCONN_ANSWERS_PER_UID units per
 * uid), settle the group, write, and close what is done, broken or past its
 * time. pfd and npfd as dconn_pollfds filled and returned them; connections
 * dconn_accept added since are tried at once (their request is usually
 * there already: one pass answers it, not two). Returns the number of
 * requests answered. */
size_t dconn_service(struct dconn_set *s, const struct pollfd *pfd, size_t npfd, long now,
                     const struct dconn_ops *ops);
/* Close them all. */
void dconn_close_all(struct dconn_set *s);

#endif
