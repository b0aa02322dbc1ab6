/* wfront — see wfront.h. */
#define _GNU_SOURCE /* accept4 */
#include "web/wfront.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "util/mem.h"
#include "web/wpeer.h"

#define WFRONT_LINE_MAX 8192  /* a request line longer than this is refused */
#define WFRONT_ACCEPTS 64     /* connections accepted per run: the rest wait for the next */
#define WFRONT_EVENTS 64      /* epoll events taken per run */
#define WFRONT_LOG_SECONDS 60 /* refusals are logged at most this often */

/* epoll data: the listening socket, the watched descriptor, or a slot
 * (its index + TAG_SLOT). */
enum { TAG_LISTEN = 0, TAG_WATCH = 1, TAG_SLOT = 2 };

struct wfront {
    int lfd, ep, port;
    struct wfront_host host;
    struct wconn_table conns;
    /* Refusals since the last log line, and the last one's reason. */
    unsigned long refused;
    char last_refusal[160];
    double logged;
};

static double mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- the request line ---- */

/* How far buf matches the literal lit from i: 1 all of it, 0 a prefix
 * (buf ends first), -1 not. *i moves past what matched. */
static int match(const char *buf, size_t n, size_t *i, const char *lit)
{
    for (; *lit; lit++, (*i)++) {
        if (*i == n)
            return 0;
        if (buf[*i] != *lit)
            return -1;
    }
    return 1;
}

enum wfront_line wfront_line(const char *buf, size_t n)
{
    size_t i = 0;
    while (i < n && i <= 16 && buf[i] >= 'A' && buf[i] <= 'Z') /* the method */
        i++;
    if (i == n && i <= 16)
        return WFRONT_MORE;
    if (i == 0 || i > 16 || buf[i] != ' ')
        return WFRONT_BAD;
    size_t t = ++i; /* the target: visible ASCII */
    while (i < n && (unsigned char)buf[i] > 0x20 && (unsigned char)buf[i] < 0x7f)
        i++;
    if (i == n)
        return WFRONT_MORE;
    if (i == t || buf[i] != ' ')
        return WFRONT_BAD;
    i++;
    int m = match(buf, n, &i, "HTTP/1.");
    if (m <= 0)
        return m == 0 ? WFRONT_MORE : WFRONT_BAD;
    if (i == n)
        return WFRONT_MORE;
    if (buf[i] != '0' && buf[i] != '1')
        return WFRONT_BAD;
    i++;
    if (i < n && buf[i] == '\r')
        i++;
    if (i == n)
        return WFRONT_MORE;
    return buf[i] == '\n' ? WFRONT_HTTP : WFRONT_BAD;
}

/* ---- answers of its own ---- */

static void refusal(struct wfront *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void refusal(struct wfront *f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->last_refusal, sizeof f->last_refusal, fmt, ap);
    va_end(ap);
    f->refused++;
}

static void log_refusals(struct wfront *f, double now)
{
    if (!f->refused || now - f->logged < WFRONT_LOG_SECONDS)
        return;
    char line[256];
    snprintf(line, sizeof line,
             "web: %lu connection%s refused in the last minute or so (the last: %s)", f->refused,
             f->refused == 1 ? "" : "s", f->last_refusal);
    f->host.log(f->host.ctx, line);
    f->refused = 0;
    f->logged = now;
}

/* Answer status and msg (JSON) on fd and close it. The request's bytes
 * still unread are read first (up to a limit): closing on unread bytes
 * makes the kernel send a reset, which can destroy the answer in flight. */
static void answer_close(int fd, unsigned status, const char *reason, const char *msg)
{
    char text[640];
    int body = (int)strlen(msg) + 13; /* {"error":"..."} and a newline */
    int len = snprintf(text, sizeof text,
                       "HTTP/1.1 %u %s\r\nContent-Type: application/json\r\n"
                       "Content-Length: %d\r\nConnection: close\r\nCache-Control: no-store\r\n"
                       "X-Content-Type-Options: nosniff\r\n\r\n{\"error\":\"%s\"}\n",
                       status, reason, body, msg);
    if (len > 0 && (size_t)len < sizeof text) {
        ssize_t sent = send(fd, text, (size_t)len, MSG_NOSIGNAL | MSG_DONTWAIT);
        (void)sent; /* a socket that takes not even this is closed all the same */
    }
    char sink[4096];
    for (int k = 0; k < 16 && recv(fd, sink, sizeof sink, MSG_DONTWAIT) > 0; k++)
        ;
    shutdown(fd, SHUT_WR);
    close(fd);
}

/* ---- connections in front ---- */

static void drop(struct wconn *c)
{
    close(c->fd); /* also leaves the epoll set */
    wconn_release(c);
}

static void refuse(struct wconn *c, unsigned status, const char *reason, const char *msg)
{
    answer_close(c->fd, status, reason, msg);
    wconn_release(c);
}

static void hand_over(struct wfront *f, struct wconn *c)
{
    struct sockaddr_in peer;
    socklen_t len = sizeof peer;
    if (getpeername(c->fd, (struct sockaddr *)&peer, &len) < 0) {
        drop(c);
        return;
    }
    epoll_ctl(f->ep, EPOLL_CTL_DEL, c->fd, NULL);
    c->state = WCONN_HANDING;
    if (f->host.handoff(f->host.ctx, c, &peer) < 0 && c->state == WCONN_HANDING)
        wconn_release(c); /* the server closed its fd */
}

/* Look at c's first bytes, where they lie. */
static void look(struct wfront *f, struct wconn *c)
{
    char buf[WFRONT_LINE_MAX];
    ssize_t n = recv(c->fd, buf, sizeof buf, MSG_PEEK | MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        return;
    if (n <= 0) {
        drop(c); /* gone before a request */
        return;
    }
    enum wfront_line l = wfront_line(buf, (size_t)n);
    if (l == WFRONT_HTTP)
        hand_over(f, c);
    else if (l == WFRONT_BAD)
        refuse(c, 400, "Bad Request", "not an HTTP/1 request");
    else if ((size_t)n == sizeof buf)
        refuse(c, 414, "URI Too Long", "the request line is too long");
}

/* Make room for a newcomer: close the connection wconn chose. */
static void evict(struct wconn *c)
{
    if (c->state == WCONN_FRONT) {
        refuse(c, 503, "Service Unavailable", "closed to make room for another user");
        return;
    }
    shutdown(c->fd, SHUT_RDWR); /* the server sees the end and closes it */
    wconn_closing(c);
}

static void admit(struct wfront *f, int fd, double now)
{
    uid_t uid = (uid_t)-1; /* set by wpeer_uid on success, read only then */
    struct err e;
    if (wpeer_uid(fd, &uid, &e) < 0) {
        refusal(f, "the kernel does not say whose it is: %s", e.msg);
        answer_close(fd, 403, "Forbidden", "the kernel does not say who holds this connection");
        return;
    }
    struct wconn *gone;
    struct wconn *c = wconn_admit(&f->conns, fd, uid, now, &gone);
    if (!c) {
        refusal(f, "uid %u over the bounds (%d of one user, %d in all)", (unsigned)uid,
                WCONN_PER_UID, WCONN_MAX);
        answer_close(fd, 429, "Too Many Requests", "too many connections from one user");
        return;
    }
    if (gone) {
        refusal(f, "uid %u's oldest connection closed for uid %u (fair share of %d)",
                (unsigned)gone->uid, (unsigned)uid, WCONN_MAX);
        evict(gone);
    }
    struct epoll_event ev = {.events = EPOLLIN | EPOLLRDHUP | EPOLLET,
                             .data.u64 = (uint64_t)(c - f->conns.v) + TAG_SLOT};
    if (epoll_ctl(f->ep, EPOLL_CTL_ADD, fd, &ev) < 0) {
        drop(c);
        return;
    }
    look(f, c); /* the request line may be there already */
}

static void accept_some(struct wfront *f, double now)
{
    for (int k = 0; k < WFRONT_ACCEPTS; k++) {
        int fd = accept4(f->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0)
            return; /* EAGAIN, or a connection reset before it was taken */
        admit(f, fd, now);
    }
}

static void deadlines(struct wfront *f, double now)
{
    for (size_t i = 0; i < WCONN_SLOTS; i++) {
        struct wconn *c = &f->conns.v[i];
        if (!wconn_late(c, now))
            continue;
        if (c->state == WCONN_FRONT) {
            refuse(c, 408, "Request Timeout", "the request did not come in time");
        } else if (c->state == WCONN_HTTP) {
            shutdown(c->fd, SHUT_RDWR);
            wconn_closing(c);
        }
    }
}

void wfront_run(struct wfront *f)
{
    double now = mono();
    struct epoll_event ev[WFRONT_EVENTS];
    int n = epoll_wait(f->ep, ev, WFRONT_EVENTS, 0);
    int accepting = 0;
    for (int i = 0; i < n; i++) {
        uint64_t tag = ev[i].data.u64;
        if (tag == TAG_LISTEN)
            accepting = 1;
        else if (tag >= TAG_SLOT && tag - TAG_SLOT < WCONN_SLOTS &&
                 f->conns.v[tag - TAG_SLOT].state == WCONN_FRONT)
            look(f, &f->conns.v[tag - TAG_SLOT]); /* looking again is harmless */
    }
    if (accepting)
        accept_some(f, now);
    deadlines(f, now);
    log_refusals(f, now);
}

/* ---- the socket ---- */

static int listen_on(const struct sockaddr_in *sa, struct err *err)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    int one = 1;
    if (fd < 0)
        return err_set(err, "socket: %s", strerror(errno));
    if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0 ||
        bind(fd, (const struct sockaddr *)sa, sizeof *sa) < 0 || listen(fd, 128) < 0) {
        char addr[INET_ADDRSTRLEN];
        inet_ntop(AF_INET, &sa->sin_addr, addr, sizeof addr);
        err_set(err, "cannot serve the web view on %s:%d (the port is taken, or not allowed: %s)",
                addr, ntohs(sa->sin_port), strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

int wfront_address(const char *address, int port, struct sockaddr_in *sa, struct err *err)
{
    *sa = (struct sockaddr_in){.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    if (inet_pton(AF_INET, address, &sa->sin_addr) != 1)
        return err_set(err, "WEBADDRESS %.64s: not an IPv4 address (such as 127.0.0.1)", address);
    if (!wpeer_loopback(&sa->sin_addr))
        return err_set(err,
                       "WEBADDRESS %.64s: not a loopback address (127.x.x.x): the web view "
                       "serves this machine only, where the kernel says who holds each "
                       "connection; from elsewhere, use an SSH tunnel (docs/web.md)",
                       address);
    if (port < 0 || port > 65535)
        return err_set(err, "WEBPORT %d: not a port (0 to 65535)", port);
    return 0;
}

struct wfront *wfront_open(const char *address, int port, const struct wfront_host *host,
                           struct err *err)
{
    struct sockaddr_in sa;
    if (wfront_address(address, port, &sa, err) < 0)
        return NULL;
    struct wfront *f = xcalloc(1, sizeof *f);
    f->host = *host;
    wconn_init(&f->conns);
    f->ep = epoll_create1(EPOLL_CLOEXEC);
    f->lfd = f->ep < 0 ? -1 : listen_on(&sa, err);
    struct epoll_event ev = {.events = EPOLLIN, .data.u64 = TAG_LISTEN};
    if (f->ep < 0)
        err_set(err, "epoll: %s", strerror(errno));
    else if (f->lfd >= 0 && epoll_ctl(f->ep, EPOLL_CTL_ADD, f->lfd, &ev) < 0)
        err_set(err, "epoll: %s", strerror(errno));
    else if (f->lfd >= 0) {
        socklen_t len = sizeof sa;
        getsockname(f->lfd, (struct sockaddr *)&sa, &len);
        f->port = ntohs(sa.sin_port);
        return f;
    }
    wfront_close(f);
    return NULL;
}

void wfront_close(struct wfront *f)
{
    if (!f)
        return;
    for (size_t i = 0; i < WCONN_SLOTS; i++)
        if (f->conns.v[i].state == WCONN_FRONT)
            drop(&f->conns.v[i]);
    if (f->lfd >= 0)
        close(f->lfd);
    if (f->ep >= 0)
        close(f->ep);
    free(f);
}

int wfront_port(const struct wfront *f)
{
    return f->port;
}

struct wconn_table *wfront_conns(struct wfront *f)
{
    return &f->conns;
}

int wfront_watch(struct wfront *f, int fd, struct err *err)
{
    struct epoll_event ev = {.events = EPOLLIN, .data.u64 = TAG_WATCH};
    if (epoll_ctl(f->ep, EPOLL_CTL_ADD, fd, &ev) < 0)
        return err_set(err, "epoll: %s", strerror(errno));
    return 0;
}

int wfront_fd(const struct wfront *f)
{
    return f->ep;
}

long wfront_wait_ms(const struct wfront *f)
{
    double next = wconn_next_deadline(&f->conns);
    if (next == 0)
        return -1;
    double ms = (next - mono()) * 1000.0;
    return ms <= 0 ? 0 : (long)ms + 1;
}
