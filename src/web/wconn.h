/*
 * wconn — the web view's open connections, each with the uid the kernel
 * named for its other end (wpeer), and the bounds that keep one user from
 * holding the web view for everyone else:
 *
 *   - a uid holds at most WCONN_PER_UID connections at once, from the
 *     moment it connects (before any login: the kernel names it then);
 *   - at most WCONN_MAX are open at once; when they are, a newcomer takes
 *     the place of a connection of the user holding the most, as long as
 *     that user keeps at least as many as the newcomer then has (fair
 *     eviction: the connections are shared out, never all one user's);
 *   - a request must arrive whole within WCONN_FIRST_SECONDS of the
 *     connection, or WCONN_NEXT_SECONDS of the previous answer on it: a
 *     connection that dribbles a request (slowloris) or idles is closed.
 *
 * It decides; the caller does the I/O (web, wfront). No clock: `now` is an
 * argument (monotonic seconds).
 */
#ifndef MOKU_WCONN_H
#define MOKU_WCONN_H

#include <stddef.h>
#include <sys/types.h>

#define WCONN_MAX 256    /* connections counted at once */
#define WCONN_PER_UID 16 /* of them one uid's (a browser opens 6 to a host) */
#define WCONN_SPARE 64   /* slots for connections being closed, beyond WCONN_MAX */
#define WCONN_SLOTS (WCONN_MAX + WCONN_SPARE)
#define WCONN_FIRST_SECONDS 5.0 /* the first request, whole, after the connection */
#define WCONN_NEXT_SECONDS 10.0 /* the next one after an answer (the page asks every 5 s) */

enum wconn_state {
    WCONN_FREE,
    WCONN_FRONT,   /* accepted; its request line is being looked at (wfront) */
    WCONN_HANDING, /* being handed to the HTTP server (its fd names it until bound) */
    WCONN_HTTP,    /* the HTTP server's */
    WCONN_CLOSING, /* shut down, counted no more; the server has yet to close it */
};

struct wconn {
    enum wconn_state state;
    int fd;
    uid_t uid;
    double opened;   /* when it was accepted */
    double deadline; /* its request must be whole by then; 0: it is being answered */
};

struct wconn_table {
    struct wconn v[WCONN_SLOTS];
};

/* An empty table (every slot free). */
void wconn_init(struct wconn_table *t);

/* A slot for a new connection fd of uid (state WCONN_FRONT, deadline now +
 * WCONN_FIRST_SECONDS), or NULL when it is refused: uid holds
 * WCONN_PER_UID already, or the table is full and no user holds more than
 * uid would. *evict: NULL, or a connection the caller must close now to
 * make room (still in its state: a WCONN_FRONT one the caller closes and
 * releases, a WCONN_HTTP one it shuts down and marks wconn_closing). */
struct wconn *wconn_admit(struct wconn_table *t, int fd, uid_t uid, double now,
                          struct wconn **evict);

/* Shut down, waiting for the server to close it: counted no more. */
void wconn_closing(struct wconn *c);

/* The slot back (free). */
void wconn_release(struct wconn *c);

/* The connection being handed over with fd (WCONN_HANDING), or NULL. */
struct wconn *wconn_handing(struct wconn_table *t, int fd);

/* Connections of uid counted now (not closing). */
size_t wconn_count(const struct wconn_table *t, uid_t uid);

/* Its request arrived whole: no deadline while it is answered. */
void wconn_whole(struct wconn *c);

/* Its answer went out: the next request must be whole within
 * WCONN_NEXT_SECONDS. */
void wconn_answered(struct wconn *c, double now);

/* Whether c's request is late at now. */
int wconn_late(const struct wconn *c, double now);

/* The earliest deadline of an open connection, or 0 when there is none. */
double wconn_next_deadline(const struct wconn_table *t);

#endif
