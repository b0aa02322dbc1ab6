/*
 * wfront — the web view's front door: its listening socket, and each
 * connection until its first request line is known to be HTTP.
 *
 * libmicrohttpd reads whatever comes and waits, up to its time-out, for a
 * line end that garbage or a TLS handshake never sends; and it cannot say
 * who connects. So the web view accepts connections itself:
 *   - the kernel names the uid at the other end (wpeer); a connection it
 *     cannot name is refused (403), and wconn's bounds apply from there on
 *     (429 past them);
 *   - the first request line is looked at where it lies (MSG_PEEK: nothing
 *     is consumed): anything but `METHOD TARGET HTTP/1.x` gets 400 and is
 *     closed at once, a line not whole in time gets 408;
 *   - a good one is handed to the HTTP server (the host's handoff), which
 *     reads the request from its first byte.
 * It also enforces the deadlines of the connections the server holds: a
 * late one is shut down, and the server, seeing its end, closes it.
 *
 * Refusals are counted and logged at most once a minute (a flood of
 * connections must not become a flood of log lines).
 */
#ifndef MOKU_WFRONT_H
#define MOKU_WFRONT_H

#include <netinet/in.h>
#include <stddef.h>

#include "util/err.h"
#include "web/wconn.h"

struct wfront;

struct wfront_host {
    void *ctx;
    /* Hand c (WCONN_HANDING) over: its fd is the callee's from now on,
     * closed by it even when it fails. The callee marks c WCONN_HTTP when
     * it takes it and releases it (wconn_release) when it closes it. 0, or
     * -1 when it could not take it (wfront releases c then). */
    int (*handoff)(void *ctx, struct wconn *c, const struct sockaddr_in *peer);
    /* A line for the daemon's log. */
    void (*log)(void *ctx, const char *msg);
};

/* address:port as a socket address. Errors: not an IPv4 address, not a
 * loopback one (the kernel can say who holds a connection only when both
 * ends are on this machine), not a port. */
int wfront_address(const char *address, int port, struct sockaddr_in *sa, struct err *err);

/* Listen on address:port (an IPv4 loopback address; port 0: one the kernel
 * picks, wfront_port says which). Errors: not a loopback address, the port
 * taken, no epoll. */
struct wfront *wfront_open(const char *address, int port, const struct wfront_host *host,
                           struct err *err);
/* Closes the listening socket and the connections not handed over. NULL:
 * no-op. */
void wfront_close(struct wfront *f);

int wfront_port(const struct wfront *f);
struct wconn_table *wfront_conns(struct wfront *f);

/* Another descriptor whose input wakes the daemon's poll through
 * wfront_fd (the HTTP server's own epoll descriptor). */
int wfront_watch(struct wfront *f, int fd, struct err *err);

/* The descriptor to poll for input, and how long the poll may wait at
 * most before wfront_run (ms; -1: no limit). */
int wfront_fd(const struct wfront *f);
long wfront_wait_ms(const struct wfront *f);

/* Accept, look at request lines, hand over, enforce deadlines; never
 * blocks. */
void wfront_run(struct wfront *f);

/* What the first bytes of a connection are. */
enum wfront_line {
    WFRONT_MORE, /* so far a request line: wait for the rest */
    WFRONT_HTTP, /* a whole request line: METHOD SP TARGET SP HTTP/1.x CRLF */
    WFRONT_BAD,  /* not HTTP (garbage, a TLS handshake, HTTP/0.9, HTTP/2) */
};
enum wfront_line wfront_line(const char *buf, size_t n);

#endif
