/* web — see web.h. */
#include "web/web.h"

#include <arpa/inet.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd/cmdtab.h"
#include "util/mem.h"
#include "web/wasset.h"
#include "web/wconn.h"
#include "web/wfront.h"
#include "web/wmhd.h"
#include "web/wsess.h"

#define WEB_BODY_MAX (64 * 1024) /* a POST body: a command line is far smaller */
#define WEB_CONN_SECONDS 15      /* a connection that moves no byte is closed after this */
#define WEB_RATE 10.0            /* API requests a second a user may make, sustained ... */
#define WEB_BURST 40.0           /* ... and at once */
#define WEB_RATE_USERS 64        /* users whose rate is tracked (the least recent goes) */
#define WEB_NOTE_SECONDS 60      /* a user's refused sessions are logged at most this often */
#define WEB_COOKIE "moku_session"

/* A user's request budget (a token bucket), and when their last refused
 * session was logged. */
struct rate {
    uid_t uid;
    double tokens;
    double at; /* monotonic seconds of the last refill */
    int used;
    double noted;   /* the last log line about them; 0: none yet */
    unsigned quiet; /* refusals not logged since */
};

struct web {
    struct MHD_Daemon *mhd;
    struct wfront *front; /* the listening socket and the connections' table */
    struct web_host host;
    struct wsess_table *sess;
    char url[160];
    char hosts[2][80]; /* Host headers accepted; "" = unused */
    struct rate rates[WEB_RATE_USERS];
    /* This pass (web_run): the users one of whose API requests was
     * answered, and the connections whose requests wait for the next. */
    uid_t served[WCONN_SLOTS];
    size_t nserved;
    struct MHD_Connection *parked[WCONN_SLOTS];
    size_t nparked;
};

/* One request being received: its POST body so far. */
struct wreq {
    char *body;
    size_t len;
    int answered; /* answered from its headers: a body is never read */
};

/* libmicrohttpd's functions, loaded by the first web_open (wmhd): the
 * library's own table, as global as the library itself. */
static const struct wmhd *M;

/* ---- time ---- */

static double mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* uid's entry of the rate table (the least recently used one goes). */
static struct rate *rate_of(struct web *w, uid_t uid, double now)
{
    struct rate *lru = &w->rates[0];
    for (size_t i = 0; i < WEB_RATE_USERS; i++) {
        if (w->rates[i].used && w->rates[i].uid == uid)
            return &w->rates[i];
        if (!w->rates[i].used || (lru->used && w->rates[i].at < lru->at))
            lru = &w->rates[i];
    }
    *lru = (struct rate){.uid = uid, .tokens = WEB_BURST, .at = now, .used = 1};
    return lru;
}

/* Whether uid may make one more API request now (WEB_RATE a second, bursts
 * of WEB_BURST): the web cannot make the daemon's one thread busy for
 * others beyond that. */
static int rate_ok(struct web *w, uid_t uid)
{
    double now = mono();
    struct rate *r = rate_of(w, uid, now);
    r->tokens += (now - r->at) * WEB_RATE;
    if (r->tokens > WEB_BURST)
        r->tokens = WEB_BURST;
    r->at = now;
    if (r->tokens < 1.0)
        return 0;
    r->tokens -= 1.0;
    return 1;
}

/* A line for the log about uid, at most one every WEB_NOTE_SECONDS (a
 * user who repeats a refused request cannot flood the log). */
static void note(struct web *w, uid_t uid, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void note(struct web *w, uid_t uid, const char *fmt, ...)
{
    double now = mono();
    struct rate *r = rate_of(w, uid, now);
    if (r->noted > 0 && now - r->noted < WEB_NOTE_SECONDS) {
        r->quiet++;
        return;
    }
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (r->quiet && len > 0 && (size_t)len < sizeof msg)
        snprintf(msg + len, sizeof msg - (size_t)len, " (and %u more like it since the last line)",
                 r->quiet);
    w->host.log(w->host.ctx, msg);
    r->noted = now;
    r->quiet = 0;
}

/* The connection's entry in the table: its uid, its deadline. Never NULL
 * for a connection wfront handed over (on_connection bound it). */
static struct wconn *conn_of(struct MHD_Connection *c)
{
    const union MHD_ConnectionInfo *info =
        M->get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info ? info->socket_context : NULL;
}

/* A connection wfront hands over: MHD takes it, and tells on_connection
 * at once (with no thread of its own, MHD_add_connection does). */
static int handoff(void *ctx, struct wconn *wc, const struct sockaddr_in *peer)
{
    struct web *w = ctx;
    return M->add_connection(w->mhd, wc->fd, (const struct sockaddr *)peer, sizeof *peer) == MHD_YES
               ? 0
               : -1;
}

static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
                          enum MHD_ConnectionNotificationCode toe)
{
    struct web *w = cls;
    if (toe == MHD_CONNECTION_NOTIFY_CLOSED) {
        if (*socket_context)
            wconn_release(*socket_context); /* MHD closes the fd after this */
        *socket_context = NULL;
        return;
    }
    const union MHD_ConnectionInfo *info =
        M->get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    struct wconn *wc = info ? wconn_handing(wfront_conns(w->front), info->connect_fd) : NULL;
    if (wc)
        wc->state = WCONN_HTTP;
    /* Never NULL: every connection comes through wfront, which MHD's
     * own connection limit (WCONN_SLOTS) never refuses before it. A
     * connection without one is served nothing but 403 (route). */
    *socket_context = wc;
}

/* Whether uid's API request may be answered in this pass: one per user per
 * pass of the daemon's loop, as dconn does on the socket, so that one
 * user's many connections are answered in turn with everyone else's (and
 * the scheduling's), not all before them. */
static int turn_ok(struct web *w, uid_t uid)
{
    for (size_t i = 0; i < w->nserved; i++)
        if (w->served[i] == uid)
            return 0;
    if (w->nserved < WCONN_SLOTS)
        w->served[w->nserved++] = uid;
    return 1;
}

/* Hold c's request until the next pass (web_run resumes it). */
static enum MHD_Result park(struct web *w, struct MHD_Connection *c)
{
    if (w->nparked == WCONN_SLOTS)
        return MHD_NO; /* never: a connection is parked once a pass */
    M->suspend_connection(c);
    w->parked[w->nparked++] = c;
    return MHD_YES;
}

/* ---- responses ---- */

static void secure_headers(struct MHD_Response *resp, int api)
{
    /* The page's own files only: no inline script, no other origin, not
     * framed (clickjacking). Inline style attributes are allowed: SVG
     * charts set them. */
    M->add_response_header(resp, "Content-Security-Policy",
                           "default-src 'none'; script-src 'self'; style-src 'self' "
                           "'unsafe-inline'; img-src 'self' data:; connect-src 'self'; "
                           "frame-ancestors 'none'; base-uri 'none'; form-action 'self'");
    M->add_response_header(resp, "X-Content-Type-Options", "nosniff");
    M->add_response_header(resp, "X-Frame-Options", "DENY");
    M->add_response_header(resp, "Referrer-Policy", "no-referrer");
    if (api)
        M->add_response_header(resp, "Cache-Control", "no-store");
}

static enum MHD_Result send_buf(struct MHD_Connection *c, unsigned status, const char *type,
                                const void *data, size_t len, int copy, int api)
{
    struct MHD_Response *resp = M->create_response_from_buffer(
        len, (void *)data, copy ? MHD_RESPMEM_MUST_COPY : MHD_RESPMEM_PERSISTENT);
    if (!resp)
        return MHD_NO;
    M->add_response_header(resp, "Content-Type", type);
    secure_headers(resp, api);
    enum MHD_Result r = M->queue_response(c, status, resp);
    M->destroy_response(resp);
    return r;
}

/* {"error": msg}, after which the connection is closed. */
static enum MHD_Result send_close(struct MHD_Connection *c, unsigned status, const char *msg)
{
    json_t *o = json_pack("{s:s}", "error", msg);
    char *text = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    struct MHD_Response *resp =
        text ? M->create_response_from_buffer(strlen(text), text, MHD_RESPMEM_MUST_FREE) : NULL;
    if (!resp) {
        free(text);
        return MHD_NO;
    }
    M->add_response_header(resp, "Content-Type", "application/json");
    M->add_response_header(resp, "Connection", "close");
    secure_headers(resp, 1);
    enum MHD_Result r = M->queue_response(c, status, resp);
    M->destroy_response(resp);
    return r;
}

static enum MHD_Result send_json(struct MHD_Connection *c, unsigned status, json_t *o)
{
    char *text = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    if (!text)
        return MHD_NO;
    enum MHD_Result r = send_buf(c, status, "application/json", text, strlen(text), 1, 1);
    free(text);
    return r;
}

static enum MHD_Result send_error(struct MHD_Connection *c, unsigned status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static enum MHD_Result send_error(struct MHD_Connection *c, unsigned status, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return send_json(c, status, json_pack("{s:s}", "error", msg));
}

static const char login_needed[] =
    "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>moku</title></head>"
    "<body><h1>moku</h1><p>You are not logged in, or your session has ended.</p>"
    "<p>Run <code>moku web</code> on the cluster as yourself: it prints a link, good once and for "
    "two minutes, that logs this browser in as you.</p></body></html>\n";

static const char login_elsewhere[] =
    "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>moku</title></head>"
    "<body><h1>moku</h1><p>This login link was opened from another site's page, which moku "
    "does not allow: that page could log you in as someone else.</p>"
    "<p>Paste the link into the address bar instead (it is still good).</p></body></html>\n";

static const char login_other[] =
    "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>moku</title></head>"
    "<body><h1>moku</h1><p>This login link belongs to another user: it works only in a browser "
    "that runs as the user who ran <code>moku web</code>.</p></body></html>\n";

static const char login_bad[] =
    "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>moku</title></head>"
    "<body><h1>moku</h1><p>This login link is unknown, already used or expired.</p>"
    "<p>Run <code>moku web</code> again for a new one.</p></body></html>\n";

/* ---- the session of a request ---- */

/* The session the request's cookie names, if the kernel says the
 * connection is its user's. Another uid's is refused and logged: the
 * cookie was read by someone else (a browser sends it to every local
 * port, another user's server among them). */
static int session_of(struct web *w, struct MHD_Connection *c, struct wsess *s)
{
    const char *id = M->lookup_connection_value(c, MHD_COOKIE_KIND, WEB_COOKIE);
    const struct wconn *wc = conn_of(c);
    if (!id || !wc)
        return 0;
    int found = wsess_find(w->sess, id, wc->uid, time(NULL), s);
    if (found == WSESS_OTHER_UID) {
        note(w, wc->uid,
             "web: a session of uid %u presented from a connection of uid %u: refused "
             "(its cookie was read by someone else)",
             (unsigned)s->uid, (unsigned)wc->uid);
        explicit_bzero(s, sizeof *s);
    }
    return found == WSESS_OK;
}

static int csrf_ok(struct MHD_Connection *c, const struct wsess *s)
{
    return wsess_same(M->lookup_connection_value(c, MHD_HEADER_KIND, "X-CSRF-Token"), s->csrf);
}

/* A Host header naming this server (DNS rebinding: another name resolving
 * to this address gets nothing). */
static int host_ok(const struct web *w, struct MHD_Connection *c)
{
    const char *h = M->lookup_connection_value(c, MHD_HEADER_KIND, "Host");
    for (size_t i = 0; h && i < 2; i++)
        if (w->hosts[i][0] && strcasecmp(h, w->hosts[i]) == 0)
            return 1;
    return 0;
}

/* ---- routes ---- */

static enum MHD_Result do_login(struct web *w, struct MHD_Connection *c)
{
    const char *token = M->lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "token");
    /* Login CSRF: another site's page could send the browser to a link of
     * its own user's. Browsers say where a navigation comes from; a link
     * pasted or opened from a terminal is "none". The token stays good. */
    const char *site = M->lookup_connection_value(c, MHD_HEADER_KIND, "Sec-Fetch-Site");
    if (site && strcmp(site, "none") != 0 && strcmp(site, "same-origin") != 0)
        return send_buf(c, 403, "text/html; charset=utf-8", login_elsewhere,
                        sizeof login_elsewhere - 1, 0, 1);
    const struct wconn *wc = conn_of(c);
    struct wsess s;
    struct err e;
    int got = token && wc ? wsess_login(w->sess, token, wc->uid, time(NULL), &s, &e) : 0;
    if (got < 0)
        return send_error(c, 500, "%s", e.msg);
    if (got == WSESS_OTHER_UID) {
        note(w, wc->uid, "web: a login link of uid %u opened from a connection of uid %u: refused",
             (unsigned)s.uid, (unsigned)wc->uid);
        return send_buf(c, 403, "text/html; charset=utf-8", login_other, sizeof login_other - 1, 0,
                        1);
    }
    if (got != WSESS_OK)
        return send_buf(c, 403, "text/html; charset=utf-8", login_bad, sizeof login_bad - 1, 0, 1);
    struct MHD_Response *resp = M->create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT);
    if (!resp)
        return MHD_NO;
    char cookie[160];
    snprintf(cookie, sizeof cookie, "%s=%s; Path=/; HttpOnly; SameSite=Strict; Max-Age=%d",
             WEB_COOKIE, s.id, WSESS_MAX_SECONDS);
    M->add_response_header(resp, "Set-Cookie", cookie);
    M->add_response_header(resp, "Location", "/");
    secure_headers(resp, 1);
    explicit_bzero(&s, sizeof s);
    explicit_bzero(cookie, sizeof cookie);
    enum MHD_Result r = M->queue_response(c, 303, resp);
    M->destroy_response(resp);
    return r;
}

static enum MHD_Result do_session(struct web *w, struct MHD_Connection *c, const struct wsess *s)
{
    char user[64], group[64];
    int admin = 0;
    w->host.who(w->host.ctx, s->uid, s->gid, user, sizeof user, group, sizeof group, &admin);
    long expires = s->created + WSESS_MAX_SECONDS;
    if (s->used + WSESS_IDLE_SECONDS < expires)
        expires = s->used + WSESS_IDLE_SECONDS;
    return send_json(c, 200,
                     json_pack("{s:s, s:s, s:I, s:I, s:i, s:s, s:I}", "user", user, "group", group,
                               "uid", (json_int_t)s->uid, "gid", (json_int_t)s->gid, "admin", admin,
                               "csrf", s->csrf, "expires", (json_int_t)expires));
}

/* The web API's commands are the command table's CMD_WEB entries under
 * their own names (not aliases: mdiag is diagnose's). GET /api/CMD: those
 * that only look. POST /api/run: those and the ones that change
 * something (the daemon decides who may). Not submit: a job's script and
 * environment come from the user's shell. */
static int web_offers(const char *cmd, int changes_too)
{
    const struct cmd_def *d = cmd_def_find(cmd);
    return d && !d->same_as && (d->flags & CMD_WEB) && (changes_too || !(d->flags & CMD_CHANGES));
}

int web_api_reads(const char *cmd)
{
    return web_offers(cmd, 0);
}

int web_api_runs(const char *cmd)
{
    return web_offers(cmd, 1);
}

/* The arg=... values of a query, in order; NULL when one holds a NUL byte
 * or is not UTF-8 (never dropped or cut short: the command would get other
 * arguments than the user gave). */
struct query_args {
    json_t *args;
    int bad;
};

static enum MHD_Result collect_arg(void *cls, enum MHD_ValueKind kind, const char *key,
                                   size_t key_size, const char *value, size_t value_size)
{
    struct query_args *qa = cls;
    if (!key || key_size != 3 || strcmp(key, "arg") != 0)
        return MHD_YES;
    json_t *v = json_stringn(value ? value : "", value ? value_size : 0);
    if (!v || (value && strlen(value) != value_size))
        qa->bad = 1;
    if (v)
        json_array_append_new(qa->args, v);
    return MHD_YES;
}

/* The daemon's reply to a request: its HTTP status. */
static unsigned reply_status(const json_t *reply)
{
    return json_is_true(json_object_get(reply, "ok")) ? 200 : 400;
}

/* A failed reply as the API gives it: {"ok": false, "exit": N, "error":
 * MESSAGE}, MESSAGE plain text. A command run with --format=json says
 * why it failed as JSON in its output ({"error": ..., "exit": ...}): that
 * object's message is taken out, not sent as a string that holds JSON.
 * Output that is not such an object stays "output". Takes reply. */
static json_t *failed_reply(json_t *reply)
{
    const char *out = json_string_value(json_object_get(reply, "output"));
    json_t *inner = out && !json_object_get(reply, "error") ? json_loads(out, 0, NULL) : NULL;
    const char *msg = json_string_value(json_object_get(inner, "error"));
    if (json_is_object(inner) && msg) {
        json_object_set(reply, "error", json_object_get(inner, "error"));
        json_object_del(reply, "output");
    }
    json_decref(inner);
    json_object_set_new(reply, "ok", json_false());
    return reply;
}

static enum MHD_Result do_read(struct web *w, struct MHD_Connection *c, const struct wsess *s,
                               const char *cmd)
{
    struct query_args qa = {json_array(), 0};
    json_t *args = qa.args;
    M->get_connection_values_n(c, MHD_GET_ARGUMENT_KIND, collect_arg, &qa);
    if (qa.bad) {
        json_decref(args);
        return send_error(c, 400, "an argument is not UTF-8 or holds a NUL byte");
    }
    json_array_append_new(args, json_string("--format=json"));
    json_t *req = json_pack("{s:s, s:o}", "cmd", cmd, "args", args);
    json_t *reply = w->host.request(w->host.ctx, s->uid, s->gid, req);
    json_decref(req);
    const char *out = json_string_value(json_object_get(reply, "output"));
    enum MHD_Result r;
    if (reply_status(reply) == 200 && out) {
        r = send_buf(c, 200, "application/json", out, strlen(out), 1, 1);
        json_decref(reply);
    } else {
        reply = failed_reply(reply);
        if (!json_object_get(reply, "error")) /* a command whose output is not JSON */
            json_object_set_new(reply, "error", json_string(out ? out : "failed"));
        json_object_del(reply, "output");
        r = send_json(c, 400, reply);
    }
    return r;
}

json_t *web_run_request(const char *body, size_t len, const char **why)
{
    json_error_t je;
    json_t *req = body ? json_loadb(body, len, JSON_REJECT_DUPLICATES, &je) : NULL;
    const char *cmd = json_string_value(json_object_get(req, "cmd"));
    json_t *args = json_object_get(req, "args");
    *why = NULL;
    if (!json_is_object(req))
        *why = "the body is not a JSON object";
    else if (!cmd || !web_api_runs(cmd))
        *why = "\"cmd\" is not a command the web view runs";
    else if (!json_is_array(args) || json_object_size(req) != 2)
        *why = "the body must be {\"cmd\": ..., \"args\": [...]} and nothing else";
    for (size_t i = 0; !*why && i < json_array_size(args); i++)
        if (!json_is_string(json_array_get(args, i)))
            *why = "\"args\" must be strings";
    if (*why) {
        json_decref(req);
        return NULL;
    }
    return req;
}

static enum MHD_Result do_run(struct web *w, struct MHD_Connection *c, const struct wsess *s,
                              const struct wreq *q)
{
    const char *why;
    json_t *req = web_run_request(q->body, q->len, &why);
    if (!req)
        return send_error(c, 400, "%s", why);
    json_t *reply = w->host.request(w->host.ctx, s->uid, s->gid, req);
    json_decref(req);
    unsigned status = reply_status(reply);
    return send_json(c, status, status == 200 ? reply : failed_reply(reply));
}

static enum MHD_Result do_logout(struct web *w, struct MHD_Connection *c, const struct wsess *s)
{
    wsess_logout(w->sess, s->id);
    struct MHD_Response *resp =
        M->create_response_from_buffer(2, (void *)"{}", MHD_RESPMEM_PERSISTENT);
    if (!resp)
        return MHD_NO;
    M->add_response_header(resp, "Set-Cookie",
                           WEB_COOKIE "=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0");
    M->add_response_header(resp, "Content-Type", "application/json");
    secure_headers(resp, 1);
    enum MHD_Result r = M->queue_response(c, 200, resp);
    M->destroy_response(resp);
    return r;
}

static enum MHD_Result do_asset(struct MHD_Connection *c, const char *url)
{
    const struct wasset *a = wasset_find(strcmp(url, "/") == 0 ? "/index.html" : url);
    if (!a)
        return send_error(c, 404, "not found");
    return send_buf(c, 200, a->type, a->data, a->len, 0, 0);
}

static enum MHD_Result do_api(struct web *w, struct MHD_Connection *c, const char *method,
                              const char *name, const struct wsess *s, const struct wreq *q)
{
    int get = strcmp(method, "GET") == 0, post = strcmp(method, "POST") == 0;
    if (!turn_ok(w, s->uid))
        return park(w, c);
    if (!rate_ok(w, s->uid))
        return send_error(c, 429, "too many requests: at most %.0f a second", WEB_RATE);
    if (get && strcmp(name, "session") == 0)
        return do_session(w, c, s);
    if (get && strcmp(name, "history") == 0)
        return send_json(c, 200, w->host.history(w->host.ctx));
    if (get && web_api_reads(name))
        return do_read(w, c, s, name);
    if (!post)
        return send_error(c, get ? 404 : 405, "no such request: %s /api/%.64s", method, name);
    /* Everything that changes something: the page's own token, which
     * another site's page cannot read, and a JSON body (a form cannot
     * send one without a CORS preflight that this server never grants). */
    if (!csrf_ok(c, s))
        return send_error(c, 403, "missing or wrong X-CSRF-Token");
    const char *type = M->lookup_connection_value(c, MHD_HEADER_KIND, "Content-Type");
    if (!type || strncasecmp(type, "application/json", 16) != 0)
        return send_error(c, 415, "the body must be application/json");
    if (strcmp(name, "logout") == 0)
        return do_logout(w, c, s);
    if (strcmp(name, "run") == 0)
        return do_run(w, c, s, q);
    return send_error(c, 404, "no such request: POST /api/%.64s", name);
}

static enum MHD_Result route(struct web *w, struct MHD_Connection *c, const char *url,
                             const char *method, const struct wreq *q)
{
    struct wconn *wc = conn_of(c);
    if (!wc)
        return send_close(c, 403, "the kernel did not say who holds this connection");
    wconn_whole(wc); /* it arrived whole in time: no deadline while it is answered */
    if (!host_ok(w, c))
        return send_error(c, 421, "this server does not answer for that Host");
    int get = strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0;
    /* GET only: a link checker's HEAD must not use the link up. */
    if (strcmp(method, "GET") == 0 && strcmp(url, "/login") == 0)
        return do_login(w, c);
    struct wsess s;
    int have = session_of(w, c, &s);
    enum MHD_Result r;
    if (strncmp(url, "/api/", 5) == 0)
        r = have ? do_api(w, c, method, url + 5, &s, q)
                 : send_error(c, 401, "no session: run `moku web` for a login link");
    else if (!get)
        r = send_error(c, 405, "method not allowed");
    else if (!have)
        r = send_buf(c, strcmp(url, "/") == 0 ? 200 : 401, "text/html; charset=utf-8", login_needed,
                     sizeof login_needed - 1, 0, 1);
    else
        r = do_asset(c, url);
    explicit_bzero(&s, sizeof s);
    return r;
}

/* Whether a request's body is worth reading: a POST to the API from a
 * session. Every other request is answered from its headers alone, so
 * that no one without a session makes the daemon read a body at all. */
static int wants_body(struct web *w, struct MHD_Connection *c, const char *url, const char *method)
{
    struct wsess s;
    if (strcmp(method, "POST") != 0 || strncmp(url, "/api/", 5) != 0 || !host_ok(w, c) ||
        !session_of(w, c, &s))
        return 0;
    explicit_bzero(&s, sizeof s);
    return 1;
}

/* Whether a request comes with a body. */
static int has_body(struct MHD_Connection *c)
{
    const char *n = M->lookup_connection_value(c, MHD_HEADER_KIND, "Content-Length");
    return (n && strtoul(n, NULL, 10) != 0) ||
           M->lookup_connection_value(c, MHD_HEADER_KIND, "Transfer-Encoding");
}

/* A body announced larger than WEB_BODY_MAX. */
static int announced_too_big(struct MHD_Connection *c)
{
    const char *n = M->lookup_connection_value(c, MHD_HEADER_KIND, "Content-Length");
    return n && (strlen(n) > 9 || strtoul(n, NULL, 10) > WEB_BODY_MAX);
}

/* libmicrohttpd calls this once with the headers, then for each piece of
 * the body, then once more with nothing left: answer then. A request with
 * a body not worth reading, or one announced too large, is answered at
 * once: libmicrohttpd then closes the connection without reading the body.
 * (Not every request: an answer from the headers alone ends keep-alive.) */
static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *upload,
                                  size_t *upload_size, void **req_cls)
{
    struct web *w = cls;
    struct wreq *q = *req_cls;
    if (!q) {
        *req_cls = q = xcalloc(1, sizeof *q);
        if (!has_body(c))
            return MHD_YES;
        q->answered = 1;
        if (conn_of(c))
            wconn_whole(conn_of(c)); /* answered from its headers */
        if (strcmp(method, "POST") != 0)
            return send_error(c, 400, "only a POST request has a body");
        if (!wants_body(w, c, url, method))
            return route(w, c, url, method, q); /* 401, 405, 421: none parks */
        if (announced_too_big(c))
            return send_error(c, 413, "the request is larger than %d bytes", WEB_BODY_MAX);
        q->answered = 0;
        return MHD_YES;
    }
    if (q->answered) {
        *upload_size = 0;
        return MHD_YES;
    }
    if (*upload_size) {
        /* A chunked body that goes on past the limit: the connection is
         * closed (a response cannot be queued in the middle of a body). */
        if (q->len + *upload_size > WEB_BODY_MAX)
            return MHD_NO;
        q->body = xrealloc(q->body, q->len + *upload_size + 1);
        memcpy(q->body + q->len, upload, *upload_size);
        q->len += *upload_size;
        *upload_size = 0;
        return MHD_YES;
    }
    return route(w, c, url, method, q); /* again if it was parked */
}

static void on_done(void *cls, struct MHD_Connection *c, void **req_cls,
                    enum MHD_RequestTerminationCode toe)
{
    struct wconn *wc = conn_of(c);
    if (wc)
        wconn_answered(wc, mono()); /* the next request, on this connection, in time */
    struct wreq *q = *req_cls;
    if (q)
        free(q->body);
    free(q);
    *req_cls = NULL;
}

/* ---- the server ---- */

static void set_names(struct web *w, const char *address, int port)
{
    snprintf(w->url, sizeof w->url, "http://%s:%d", address, port);
    snprintf(w->hosts[0], sizeof w->hosts[0], "%s:%d", address, port);
    snprintf(w->hosts[1], sizeof w->hosts[1], "localhost:%d", port);
}

static void front_log(void *ctx, const char *msg)
{
    struct web *w = ctx;
    w->host.log(w->host.ctx, msg);
}

int web_check_address(const char *address, int port, struct err *err)
{
    struct sockaddr_in sa;
    return wfront_address(address, port, &sa, err);
}

struct web *web_open(const char *address, int port, const struct web_host *host, struct err *err)
{
    struct sockaddr_in sa;
    if (wfront_address(address, port, &sa, err) < 0)
        return NULL;
    if (!M && !(M = wmhd_load(err)))
        return NULL;
    struct web *w = xcalloc(1, sizeof *w);
    w->host = *host;
    w->sess = wsess_create();
    /* MHD listens on nothing: wfront accepts, names the user, looks at the
     * request line and hands it over (MHD_add_connection). */
    w->mhd = M->start_daemon(MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_NO_LISTEN_SOCKET, 0,
                             NULL, NULL, on_request, w, MHD_OPTION_CONNECTION_LIMIT,
                             (unsigned)WCONN_SLOTS, MHD_OPTION_CONNECTION_TIMEOUT,
                             (unsigned)WEB_CONN_SECONDS, MHD_OPTION_NOTIFY_COMPLETED, on_done, w,
                             MHD_OPTION_NOTIFY_CONNECTION, on_connection, w, MHD_OPTION_END);
    const union MHD_DaemonInfo *info =
        w->mhd ? M->get_daemon_info(w->mhd, MHD_DAEMON_INFO_EPOLL_FD) : NULL;
    struct wfront_host fh = {w, handoff, front_log};
    if (!w->mhd || !info)
        err_set(err, "the web view's HTTP server (libmicrohttpd) did not start");
    else if ((w->front = wfront_open(address, port, &fh, err)) &&
             wfront_watch(w->front, info->epoll_fd, err) == 0) {
        set_names(w, address, wfront_port(w->front));
        return w;
    }
    web_close(w);
    return NULL;
}

void web_close(struct web *w)
{
    if (!w)
        return;
    for (size_t i = 0; i < w->nparked; i++)
        M->resume_connection(w->parked[i]); /* MHD stops no suspended one */
    if (w->mhd)
        M->stop_daemon(w->mhd); /* closes the connections handed to it (on_connection) */
    wfront_close(w->front);
    wsess_destroy(w->sess);
    free(w);
}

int web_fd(const struct web *w)
{
    return wfront_fd(w->front); /* MHD's own epoll descriptor is in it */
}

long web_wait_ms(const struct web *w)
{
    MHD_UNSIGNED_LONG_LONG ms;
    if (w->nparked)
        return 0; /* requests wait for the next pass */
    long wait = M->get_timeout(w->mhd, &ms) == MHD_YES ? (ms > 60000 ? 60000 : (long)ms) : -1;
    long front = wfront_wait_ms(w->front);
    return front >= 0 && (wait < 0 || front < wait) ? front : wait;
}

void web_run(struct web *w)
{
    w->nserved = 0;
    for (size_t i = 0; i < w->nparked; i++)
        M->resume_connection(w->parked[i]);
    w->nparked = 0;
    wfront_run(w->front); /* new connections, handed over; late ones shut */
    M->run(w->mhd);
}

const char *web_url(const struct web *w)
{
    return w->url;
}

char *web_login_url(struct web *w, uid_t uid, gid_t gid, struct err *err)
{
    char token[WSESS_ID_LEN + 1];
    if (wsess_token(w->sess, uid, gid, time(NULL), token, err) < 0)
        return NULL;
    char *url = xprintf("%s/login?token=%s", w->url, token);
    explicit_bzero(token, sizeof token);
    return url;
}
