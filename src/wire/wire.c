/* wire — see wire.h. */
#define _GNU_SOURCE /* struct ucred (SO_PEERCRED) */
#include "wire/wire.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "util/mem.h"

static int fill_addr(const char *path, struct sockaddr_un *a, struct err *err)
{
    memset(a, 0, sizeof *a);
    a->sun_family = AF_UNIX;
    if (strlen(path) >= sizeof a->sun_path)
        return err_set(err, "%s: socket path too long (at most %zu bytes)", path,
                       sizeof a->sun_path - 1);
    strcpy(a->sun_path, path);
    return 0;
}

static long ms_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* Milliseconds left before deadline (-1: none), at least 0. */
static int ms_left(long deadline)
{
    if (deadline < 0)
        return -1;
    long left = deadline - ms_now();
    return left <= 0 ? 0 : left > INT32_MAX ? INT32_MAX : (int)left;
}

int wire_connect(const char *path, int timeout_ms, struct err *err)
{
    struct sockaddr_un a;
    if (fill_addr(path, &a, err) < 0)
        return -1;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return err_set(err, "socket: %s", strerror(errno));
    /* A Unix socket's connect waits for room in the listener's queue up to
     * the send timeout (the kernel's unix_stream_connect): a stopped daemon
     * whose queue is full must not hold the client for ever. */
    if (timeout_ms >= 0) {
        int ms = timeout_ms > 0 ? timeout_ms : 1;
        struct timeval tv = {.tv_sec = ms / 1000, .tv_usec = (ms % 1000) * 1000};
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    }
    if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0) {
        int e = errno;
        close(fd);
        if (e == ENOENT || e == ECONNREFUSED)
            return err_set(err, "no moku daemon is running (nothing answers on %s)", path);
        if (e == EAGAIN || e == EWOULDBLOCK) {
            err_set(err, "the daemon on %s took no connection within %d ms (stopped, or busy)",
                    path, timeout_ms);
            return WIRE_TIMEOUT;
        }
        return err_set(err, "%s: cannot connect: %s", path, strerror(e));
    }
    return fd;
}

int wire_listen(const char *path, struct err *err)
{
    struct sockaddr_un a;
    if (fill_addr(path, &a, err) < 0)
        return -1;
    struct err ignored;
    int probe = wire_connect(path, 1000, &ignored);
    if (probe >= 0 || probe == WIRE_TIMEOUT) { /* a stopped daemon is still one */
        if (probe >= 0)
            close(probe);
        return err_set(err, "a daemon is already running on %s", path);
    }
    unlink(path); /* a stale socket from a daemon that died */
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
        return err_set(err, "socket: %s", strerror(errno));
    if (bind(fd, (struct sockaddr *)&a, sizeof a) < 0 || chmod(path, 0666) < 0 ||
        listen(fd, 128) < 0) {
        int e = errno;
        close(fd);
        return err_set(err, "%s: cannot listen: %s", path, strerror(e));
    }
    return fd;
}

int wire_send(int fd, const char *buf, size_t len, int timeout_ms, struct err *err)
{
    if (len > UINT32_MAX)
        return err_set(err, "message too large (%zu bytes)", len);
    unsigned char hdr[4] = {(unsigned char)(len >> 24), (unsigned char)(len >> 16),
                            (unsigned char)(len >> 8), (unsigned char)len};
    const char *parts[2] = {(const char *)hdr, buf};
    size_t sizes[2] = {4, len};
    long deadline = timeout_ms >= 0 ? ms_now() + timeout_ms : -1;
    for (int p = 0; p < 2; p++) {
        size_t off = 0;
        while (off < sizes[p]) {
            ssize_t n = send(fd, parts[p] + off, sizes[p] - off, MSG_NOSIGNAL | MSG_DONTWAIT);
            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
                struct pollfd pf = {.fd = fd, .events = POLLOUT};
                int left = ms_left(deadline);
                if (left == 0 || (poll(&pf, 1, left) == 0 && ms_left(deadline) == 0)) {
                    err_set(err, "the peer took no more of the message within %d ms", timeout_ms);
                    return WIRE_TIMEOUT;
                }
                continue;
            }
            if (n <= 0)
                return err_set(err, "send: %s", n < 0 ? strerror(errno) : "connection closed");
            off += (size_t)n;
        }
    }
    return 0;
}

void wire_reader_reset(struct wire_reader *r)
{
    size_t max = r->max;
    free(r->body);
    memset(r, 0, sizeof *r);
    r->max = max;
}

int wire_reader_step(struct wire_reader *r, int fd, struct err *err)
{
    for (;;) {
        char *dst;
        size_t want;
        if (r->got < 4) {
            dst = (char *)r->hdr + r->got;
            want = 4 - r->got;
        } else {
            if (!r->body) {
                r->need = (size_t)r->hdr[0] << 24 | (size_t)r->hdr[1] << 16 |
                          (size_t)r->hdr[2] << 8 | r->hdr[3];
                if (r->need > r->max)
                    return err_set(err, "request of %zu bytes is over the limit of %zu", r->need,
                                   r->max);
                /* Memory follows the bytes that really arrive, not the
                 * length announced: a client that claims 4 MiB and sends
                 * nothing costs nothing. */
                r->cap = r->need + 1 < 65536 ? r->need + 1 : 65536;
                r->body = xmalloc(r->cap);
            }
            size_t have = r->got - 4;
            if (have == r->need) {
                if (r->cap < r->need + 1) /* room for the terminator */
                    r->body = xrealloc(r->body, r->need + 1);
                r->cap = r->need + 1;
                r->body[r->need] = '\0';
                return 1;
            }
            if (have == r->cap) {
                size_t cap = r->cap * 2 < r->need + 1 ? r->cap * 2 : r->need + 1;
                r->body = xrealloc(r->body, cap);
                r->cap = cap;
            }
            dst = r->body + have;
            want = (r->cap < r->need ? r->cap : r->need) - have;
        }
        ssize_t n = read(fd, dst, want);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return 0;
        if (n < 0)
            return err_set(err, "read: %s", strerror(errno));
        if (n == 0)
            return err_set(err, "connection closed before a whole message");
        r->got += (size_t)n;
    }
}

int wire_recv(int fd, char **buf, size_t *len, size_t max, int timeout_ms, struct err *err)
{
    struct wire_reader r = {.max = max};
    long deadline = timeout_ms >= 0 ? ms_now() + timeout_ms : -1;
    int flags = fcntl(fd, F_GETFL);
    if (flags >= 0 && !(flags & O_NONBLOCK))
        fcntl(fd, F_SETFL, flags | O_NONBLOCK);
    int rc;
    while ((rc = wire_reader_step(&r, fd, err)) == 0) {
        int left = ms_left(deadline);
        if (left == 0) {
            err_set(err, "no answer within %d ms", timeout_ms);
            rc = WIRE_TIMEOUT;
            break;
        }
        struct pollfd pf = {.fd = fd, .events = POLLIN};
        if (poll(&pf, 1, left) < 0 && errno != EINTR) {
            rc = err_set(err, "poll: %s", strerror(errno));
            break;
        }
    }
    if (flags >= 0 && !(flags & O_NONBLOCK))
        fcntl(fd, F_SETFL, flags);
    if (rc < 0) {
        free(r.body);
        return rc == WIRE_TIMEOUT ? WIRE_TIMEOUT : -1;
    }
    *buf = r.body;
    *len = r.need;
    return 0;
}

int wire_peer(int fd, uid_t *uid, gid_t *gid, pid_t *pid, struct err *err)
{
    struct ucred cr;
    socklen_t n = sizeof cr;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &n) < 0)
        return err_set(err, "SO_PEERCRED: %s", strerror(errno));
    *uid = cr.uid;
    *gid = cr.gid;
    if (pid)
        *pid = cr.pid;
    return 0;
}
