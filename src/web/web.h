/*
 * web — the daemon's HTTP server: the web view's pages and their API
 * (docs/web.md), built on libmicrohttpd and run from the daemon's own poll
 * loop (no thread: every request is answered between two polls, as a
 * command on the Unix socket is).
 *
 * It knows nothing of the engine. What a request may see and do is the
 * daemon's: web hands it, with the session's uid and gid, to the host's
 * `request` callback, which answers it exactly as the same command from the
 * CLI. So the page and the commands cannot disagree, and no right exists
 * on the web that the kernel's identity does not give on the socket.
 *
 * Routes:
 *   GET  /login?token=T       a token from `moku web` for a session cookie
 *   GET  /, /app.js, ...      the page's files, compiled into moku (wasset)
 *   GET  /api/session         who, their admin level, the CSRF token
 *   GET  /api/CMD?arg=..      the JSON of a read command (showq, showres, ...)
 *   GET  /api/history         utilization and queue samples (host's)
 *   POST /api/run             {"cmd":..., "args":[...]}: any command, with the
 *                             X-CSRF-Token header
 *   POST /api/logout
 * Everything but /login and the login page needs a session.
 */
#ifndef MOKU_WEB_H
#define MOKU_WEB_H

#include <stddef.h>
#include <sys/types.h>

#include <jansson.h>

#include "util/err.h"

struct web;

/* What the daemon lends the server. */
struct web_host {
    void *ctx;
    /* One request of the socket's protocol ({"cmd":..., "args":[...]}) from
     * uid/gid: the daemon's reply object ({"ok","exit","output"}; caller
     * decrefs). */
    json_t *(*request)(void *ctx, uid_t uid, gid_t gid, const json_t *req);
    /* The utilization history (caller decrefs). */
    json_t *(*history)(void *ctx);
    /* The user's name, group name and ADMIN level for /api/session. */
    void (*who)(void *ctx, uid_t uid, gid_t gid, char *user, size_t nuser, char *group,
                size_t ngroup, int *admin);
    /* A line for the daemon's log (refused sessions, refused connections;
     * each kind at most once a minute). */
    void (*log)(void *ctx, const char *msg);
};

/* Whether the web view can listen on address:port: an IPv4 loopback
 * address (127.x.x.x) and a port. Anything else is refused: the sessions
 * are bound to the uid the kernel names for a connection's other end,
 * which it knows only when that end is on this machine. */
int web_check_address(const char *address, int port, struct err *err);

/* Listen on address:port (port 0: one the kernel picks; web_url tells which).
 * Errors: the address (web_check_address), the port taken, libmicrohttpd
 * failing. */
struct web *web_open(const char *address, int port, const struct web_host *host, struct err *err);
void web_close(struct web *w); /* NULL: no-op */

/* The descriptor to poll for input (libmicrohttpd's epoll descriptor), and
 * how long the poll may wait at most before web_run must be called (ms,
 * -1: no limit). */
int web_fd(const struct web *w);
long web_wait_ms(const struct web *w);
/* Serve whatever is ready; never blocks. */
void web_run(struct web *w);

/* "http://ADDRESS:PORT" (owned by w). */
const char *web_url(const struct web *w);

/* A login URL for uid/gid, good once for WSESS_TOKEN_SECONDS (caller
 * frees). Errors: no randomness. */
char *web_login_url(struct web *w, uid_t uid, gid_t gid, struct err *err);

/* Whether GET /api/CMD answers cmd (a command of the table that the web
 * offers and that changes nothing), and whether POST /api/run takes it
 * (one the web offers). From the command table (cmd/cmdtab.h). */
int web_api_reads(const char *cmd);
int web_api_runs(const char *cmd);
/* The body of POST /api/run: {"cmd": NAME, "args": [WORD...]}, NAME a
 * command the web view runs, and nothing else. The request (caller
 * decrefs), or NULL and *why (static text). */
json_t *web_run_request(const char *body, size_t len, const char **why);

#endif
