/* dconn — see dconn.h. */
#define _GNU_SOURCE /* accept4 */
#include "daemon/dconn.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "util/mem.h"

/* ---- per-uid counts, for one pass ---- */

/* A small open-addressing table of the uids of the connections: how many
 * each holds, how many replies it has waiting, whether it was answered in
 * this pass. Built afresh each pass (at most DCONN_MAX connections). */
struct uidc {
    uid_t uid;
    int used, conns, writing, answered;
    size_t bytes; /* of the requests read this pass */
};

struct uidtab {
    struct uidc *v;
    size_t cap; /* a power of two, at least twice the entries */
};

static struct uidc *uid_slot(struct uidtab *t, uid_t uid)
{
    size_t i = ((size_t)uid * 2654435761u) & (t->cap - 1);
    while (t->v[i].used && t->v[i].uid != uid)
        i = (i + 1) & (t->cap - 1);
    if (!t->v[i].used)
        t->v[i] = (struct uidc){.uid = uid, .used = 1};
    return &t->v[i];
}

static void uid_count(const struct dconn_set *s, struct uidtab *t)
{
    t->cap = 16;
    while (t->cap < 2 * (s->n + 1))
        t->cap *= 2;
    t->v = xcalloc(t->cap, sizeof *t->v);
    for (size_t i = 0; i < s->n; i++) {
        struct uidc *u = uid_slot(t, s->v[i].uid);
        u->conns++;
        u->writing += s->v[i].out != NULL;
    }
}

/* ---- closing ---- */

static void drop_held_requests(struct dconn *c)
{
    for (size_t i = 0; i < c->nhreq; i++)
        free(c->hreq[i].text);
    c->nhreq = 0;
}

static void conn_close(struct dconn *c)
{
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
    wire_reader_reset(&c->r);
    free(c->out);
    c->out = NULL;
    c->held = 0;
    drop_held_requests(c);
    free(c->hreq);
    c->hreq = NULL;
    c->hreqcap = 0;
}

/* Drop the closed ones (fd -1), keeping the order of the rest. */
static void compact(struct dconn_set *s)
{
    size_t w = 0;
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i].fd >= 0)
            s->v[w++] = s->v[i];
    s->n = w;
}

/* ---- accepting ---- */

/* Room for one more when the daemon is full: the oldest connection still
 * waiting for its request goes. 0 when there is none to drop. */
static int make_room(struct dconn_set *s)
{
    size_t oldest = s->n;
    for (size_t i = 0; i < s->n; i++)
        if (!s->v[i].out && (oldest == s->n || s->v[i].since < s->v[oldest].since))
            oldest = i;
    if (oldest == s->n)
        return 0;
    conn_close(&s->v[oldest]);
    s->dropped++;
    compact(s);
    return 1;
}

static size_t conns_of(const struct dconn_set *s, uid_t uid)
{
    size_t n = 0;
    for (size_t i = 0; i < s->n; i++)
        n += s->v[i].uid == uid;
    return n;
}

void dconn_accept(struct dconn_set *s, int lfd, long now)
{
    for (;;) {
        int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0)
            return; /* EAGAIN: no more; EMFILE and others: the next pass tries again */
        /* wire_peer sets both on success; they are read only then */
        uid_t uid = (uid_t)-1;
        gid_t gid = (gid_t)-1;
        if (wire_peer(fd, &uid, &gid, NULL, NULL) < 0 || conns_of(s, uid) >= DCONN_PER_UID ||
            (s->n >= DCONN_MAX && !make_room(s))) {
            close(fd); /* the client sees the connection closed */
            s->dropped++;
            continue;
        }
        s->v = xgrow(s->v, &s->cap, s->n + 1, sizeof *s->v);
        s->v[s->n++] = (struct dconn){.fd = fd,
                                      .uid = uid,
                                      .gid = gid,
                                      .since = now,
                                      .r = {.max = WIRE_MAX_REQUEST},
                                      .fresh = 1};
    }
}

/* ---- polling ---- */

size_t dconn_pollfds(const struct dconn_set *s, struct pollfd *pfd)
{
    struct uidtab t;
    uid_count(s, &t);
    for (size_t i = 0; i < s->n; i++) {
        const struct dconn *c = &s->v[i];
        short ev = c->out                                              ? POLLOUT
                   : uid_slot(&t, c->uid)->writing < DCONN_OUT_PER_UID ? POLLIN
                                                                       : 0;
        pfd[i] = (struct pollfd){.fd = c->fd, .events = ev};
    }
    free(t.v);
    return s->n;
}

/* ---- writing ---- */

/* Send what the socket takes now. 1 when all is sent, 0 when some is left,
 * -1 when the client is gone. */
static int write_some(struct dconn *c)
{
    while (c->outoff < c->outlen) {
        ssize_t n =
            send(c->fd, c->out + c->outoff, c->outlen - c->outoff, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return 0;
        if (n <= 0)
            return -1;
        c->outoff += (size_t)n;
    }
    return 1;
}

/* The reply text as a frame (4-byte big-endian length, then the bytes),
 * after the replies c->out already holds (a batch is answered in order). */
static void add_reply(struct dconn *c, char *text, long now)
{
    size_t len = strlen(text);
    if (len > UINT32_MAX)
        len = 0; /* cannot be framed: an empty reply, which the client reports */
    if (!c->out)
        c->outlen = c->outoff = 0;
    c->out = xrealloc(c->out, c->outlen + len + 4);
    char *f = c->out + c->outlen;
    f[0] = (char)(len >> 24);
    f[1] = (char)(len >> 16);
    f[2] = (char)(len >> 8);
    f[3] = (char)len;
    memcpy(f + 4, text, len);
    c->outlen += len + 4;
    c->since = now;
    free(text);
}

/* ---- serving ---- */

/* The group's commit (asked also with no reply held: a group is never left
 * open behind a request that did not join): the held replies go out as
 * they are. When the group could not be made durable, each held request is
 * answered again on its own if settle allows it (so only a member that
 * fails by itself gets an error), else they all get settle's error. */
static void settle(struct dconn_set *s, const struct dconn_ops *ops, long now)
{
    if (!ops->settle)
        return;
    int alone = 0;
    char *fail = ops->settle(ops->ctx, &alone);
    for (size_t i = 0; i < s->n; i++) {
        struct dconn *c = &s->v[i];
        if (!c->held)
            continue;
        c->held = 0;
        if (fail) { /* the batch's replies, each again, in order */
            free(c->out);
            c->out = NULL;
            for (size_t k = 0; k < c->nhreq; k++) {
                struct dconn_req *q = &c->hreq[k];
                char *text = alone ? ops->answer(ops->ctx, c->uid, c->gid, q->text, q->len) : NULL;
                add_reply(c, text ? text : xstrdup(fail), now);
            }
        }
        drop_held_requests(c);
    }
    free(fail);
}

static void hold_request(struct dconn *c)
{
    c->hreq = xgrow(c->hreq, &c->hreqcap, c->nhreq + 1, sizeof *c->hreq);
    c->hreq[c->nhreq++] = (struct dconn_req){xstrndup(c->r.body, c->r.need), c->r.need};
}

/* May c's next request be read in this pass? While c has no reply, or all
 * its replies wait for the group (a batch of submissions), and its uid has
 * answers and bytes left. */
static int may_read(const struct dconn *c, const struct uidc *u)
{
    return !c->last && (!c->out || c->held) && u->answered < DCONN_ANSWERS_PER_UID &&
           u->bytes < DCONN_BYTES_PER_UID;
}

/* One connection that is reading, after poll said it has bytes: its
 * requests, as many as it sent and may_read allows. Returns how many were
 * answered (the replies being written, sent, or held for the group), or -1
 * to close. */
static int read_some(struct dconn_set *s, struct dconn *c, struct uidc *u, long now,
                     const struct dconn_ops *ops)
{
    int got = 0;
    while (may_read(c, u)) {
        struct err e;
        int rc = wire_reader_step(&c->r, c->fd, &e);
        if (rc < 0 && got == 0)
            return -1;
        if (rc < 0) { /* the end of a batch (EOF), or a bad frame after it */
            wire_reader_reset(&c->r);
            c->last = 1;
        }
        if (rc <= 0)
            break;
        int joins = ops->joins && ops->settle && ops->joins(ops->ctx, c->uid, c->r.body, c->r.need);
        if (!joins)
            settle(s, ops, now); /* what went before is durable before this acts */
        char *text = ops->answer(ops->ctx, c->uid, c->gid, c->r.body, c->r.need);
        if (text && joins) /* kept until the group is settled */
            hold_request(c);
        u->answered += joins ? 1 : DCONN_COST_OTHER;
        u->bytes += c->r.need;
        wire_reader_reset(&c->r);
        if (!text) { /* close without a reply: after the batch's replies */
            if (got == 0)
                return -1;
            c->last = 1;
            break;
        }
        u->writing += !c->out;
        add_reply(c, text, now);
        c->held = joins;
        got++;
    }
    return got;
}

/* Send what the socket takes of c's reply; close c when it is all sent, the
 * client is gone, or its time is up. */
static void write_or_close(struct dconn_set *s, struct dconn *c, short rev, int done, long now)
{
    if (!done && c->out && !c->held && (rev & (POLLOUT | POLLERR | POLLHUP))) {
        int w = write_some(c);
        if (w == 1 && !c->last) { /* kept for the client's next request */
            free(c->out);
            c->out = NULL;
            c->since = now;
            c->served = 1;
            return;
        }
        done = w != 0;
    }
    long limit = c->out ? DCONN_WRITE_SECONDS : DCONN_READ_SECONDS;
    if (!done && !c->held && now - c->since >= limit) {
        done = 1;
        /* One answered that asked nothing more is no client the limits
         * turned away. */
        s->dropped += !c->served || c->out || c->r.got > 0;
    }
    if (done)
        conn_close(c);
}

size_t dconn_service(struct dconn_set *s, const struct pollfd *pfd, size_t npfd, long now,
                     const struct dconn_ops *ops)
{
    struct uidtab t;
    uid_count(s, &t);
    size_t answered = 0;
    for (size_t i = 0; i < s->n; i++) {
        struct dconn *c = &s->v[i];
        short rev = c->fresh ? POLLIN : i < npfd && pfd[i].fd == c->fd ? pfd[i].revents : 0;
        c->fresh = 0;
        struct uidc *u = uid_slot(&t, c->uid);
        int done = 0;
        if (!c->out && (rev & POLLIN) && may_read(c, u)) {
            int rc = read_some(s, c, u, now, ops);
            answered += rc > 0 ? (size_t)rc : 0;
            done = rc < 0;
            if (rc > 0)
                rev |= POLLOUT; /* try at once: most replies fit the socket's buffer */
        } else if (!c->out && !(rev & POLLIN) && (rev & (POLLERR | POLLHUP | POLLNVAL))) {
            /* Gone with nothing left to read. One that hung up after
             * sending a whole request (a client that gave up on a stopped
             * daemon) is read at its turn, like any other: whether its
             * request is carried out must not depend on who else asked in
             * the same pass (its submission's token finds the result). */
            done = 1;
        }
        write_or_close(s, c, rev, done, now);
    }
    /* The group's replies, once it is durable (and those a request that did
     * not join released before it was answered). */
    if (answered) {
        settle(s, ops, now);
        for (size_t i = 0; i < s->n; i++)
            if (s->v[i].fd >= 0 && s->v[i].out && s->v[i].outoff == 0)
                write_or_close(s, &s->v[i], POLLOUT, 0, now);
    }
    free(t.v);
    compact(s);
    return answered;
}

void dconn_close_all(struct dconn_set *s)
{
    for (size_t i = 0; i < s->n; i++)
        conn_close(&s->v[i]);
    free(s->v);
    *s = (struct dconn_set){0};
}
