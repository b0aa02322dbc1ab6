/*
 * wsess — the web view's login tokens and sessions: who a browser is.
 *
 * The kernel decides who a user is; the web server never asks for a
 * password. A user who runs `moku web` is named by SO_PEERCRED on the
 * daemon's socket and gets a one-time login token bound to their uid and
 * gid. The browser trades the token for a session (wsess_login): a random
 * id it keeps in an HttpOnly cookie, and a CSRF token the page sends back
 * with every request that changes something.
 *
 * A token and a session are good only from a connection the kernel says
 * is their uid's (the caller names the connection's uid; web asks wpeer):
 * a browser sends its cookie for 127.0.0.1 to any local port, so another
 * user's server can read it, but can never use it.
 *
 *   - A token is good once, for WSESS_TOKEN_SECONDS.
 *   - A session ends WSESS_IDLE_SECONDS after its last use, or
 *     WSESS_MAX_SECONDS after the login, whichever comes first, or at logout.
 *   - A uid holds at most WSESS_PER_UID sessions and tokens each (the oldest
 *     goes), the whole table WSESS_MAX (the oldest goes): one user cannot
 *     fill the table for others.
 *   - Ids and tokens are 32 random bytes (getrandom), written as hex, and
 *     compared in constant time.
 *
 * No I/O but getrandom; `now` is an argument (epoch seconds).
 */
#ifndef MOKU_WSESS_H
#define MOKU_WSESS_H

#include <stddef.h>
#include <sys/types.h>

#include "util/err.h"

#define WSESS_TOKEN_SECONDS 120
#define WSESS_IDLE_SECONDS 3600
#define WSESS_MAX_SECONDS (12 * 3600)
#define WSESS_PER_UID 16
#define WSESS_MAX 1024
#define WSESS_ID_LEN 64 /* hex characters of an id, a token or a CSRF token */

struct wsess_table;

/* A session as the caller sees it (a copy). */
struct wsess {
    char id[WSESS_ID_LEN + 1];
    char csrf[WSESS_ID_LEN + 1];
    uid_t uid;
    gid_t gid;
    long created, used;
};

struct wsess_table *wsess_create(void);
void wsess_destroy(struct wsess_table *t); /* NULL: no-op */

/* A new one-time login token for uid/gid, written to token (hex, NUL
 * ended). Errors: no randomness. */
int wsess_token(struct wsess_table *t, uid_t uid, gid_t gid, long now, char token[WSESS_ID_LEN + 1],
                struct err *err);

/* What wsess_login and wsess_find found. */
enum wsess_found {
    WSESS_NONE = 0,      /* unknown, used, expired or ended */
    WSESS_OK = 1,        /* good, for the uid that asked */
    WSESS_OTHER_UID = 2, /* good, but another uid's */
};

/* Trade a token for a new session (copied to *out), on a connection of
 * uid. WSESS_OK; WSESS_NONE when the token is unknown, used or expired;
 * WSESS_OTHER_UID when it was issued to another uid (it stays good for its
 * own; only out->uid is set, to its owner) — nothing changes but for
 * WSESS_OK. -1 (err) when no randomness. */
int wsess_login(struct wsess_table *t, const char *token, uid_t uid, long now, struct wsess *out,
                struct err *err);

/* The live session with this id, presented on a connection of uid:
 * WSESS_OK (copied to *out, its last use set to now), WSESS_NONE (unknown,
 * expired or ended), or WSESS_OTHER_UID (another uid's: untouched, only
 * out->uid set, to its owner). */
int wsess_find(struct wsess_table *t, const char *id, uid_t uid, long now, struct wsess *out);

/* End the session with this id; 1 if there was one. */
int wsess_logout(struct wsess_table *t, const char *id);

/* Whether two tokens are equal, in time that does not depend on where they
 * differ. NULL never matches. */
int wsess_same(const char *a, const char *b);

/* How many sessions and unused tokens are held (after dropping expired
 * ones at now). */
size_t wsess_count(struct wsess_table *t, long now);

#endif
