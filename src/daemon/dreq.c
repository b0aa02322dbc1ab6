/*
 * dreq — the daemon's requests, decoded: who sent one (drights_peer), its
 * fields read and checked (a missing or mistyped field is an error reply,
 * never a NULL passed on), its words normalized (--json, Torque's job ids),
 * --format taken out of the commands whose reply is messages, then routed
 * by the command table: submit (dsubmit.c), moku web's login (dadmin.c),
 * Torque's faces (dtorque.c) or moku's commands (dctl.c). The reply is
 * made JSON when JSON was asked for. The socket (serve.c) and the web view
 * (dweb.c) both answer through dreq_answer.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/cmdtab.h"
#include "daemon/dadmin.h"
#include "daemon/daemon_int.h"
#include "daemon/dctl.h"
#include "daemon/dreply.h"
#include "daemon/dreq.h"
#include "daemon/drights.h"
#include "daemon/dsubmit.h"
#include "util/mem.h"

#define MAX_ARGS 256
#define MAX_ARG_LEN 4096

/* ---- the request's fields ---- */

/*
 * Every field of a request is read through req_field: it is there when the
 * command needs it, of the type it must be, and nothing else is in the
 * request. So a missing or mistyped field is an error reply, never a NULL
 * passed on (a request without "args" once reached a memcpy as NULL).
 * A request is {"cmd": NAME, "args": [WORD...]}, or for submit
 * {"cmd": "submit", "job": {...}} (the job's own fields: cmd/qsub_json.c).
 */
static const json_t *req_field(const json_t *req, const char *key, json_type type, json_t **bad)
{
    static const char *const what[] = {
        [JSON_OBJECT] = "an object", [JSON_ARRAY] = "an array", [JSON_STRING] = "a string"};
    const json_t *v = json_object_get(req, key);
    if (!v)
        *bad = dreply_err("bad request: \"%s\" is missing", key);
    else if (json_typeof(v) != type)
        *bad = dreply_err("bad request: \"%s\" must be %s", key, what[type]);
    else
        return v;
    return NULL;
}

/* Only the fields the command reads: "cmd" and `field` (and "token",
 * checked by req_token where it is read). */
static int req_only(const json_t *req, const char *field, json_t **bad)
{
    const char *key;
    const json_t *v;
    json_object_foreach((json_t *)req, key, v)
    {
        if (strcmp(key, "cmd") != 0 && strcmp(key, field) != 0 &&
            !(strcmp(key, "token") == 0 && strcmp(field, "job") == 0)) {
            *bad = dreply_err("bad request: unknown field \"%.64s\" (a request has \"cmd\" and "
                              "\"%s\")",
                              key, field);
            return -1;
        }
    }
    return 0;
}

/* The request's optional "token" (store_token_get): 16 to 64 characters
 * of [0-9A-Za-z_-]. *token NULL when there is none. */
static int req_token(const json_t *req, const char **token, json_t **bad)
{
    *token = NULL;
    if (!json_object_get(req, "token"))
        return 0;
    const json_t *t = req_field(req, "token", JSON_STRING, bad);
    if (!t)
        return -1;
    const char *v = json_string_value(t);
    size_t n = strlen(v);
    if (n < 16 || n > 64 ||
        strspn(v, "0123456789abcdefghijklmnopqrstuvwxyz"
                  "ABCDEFGHIJKLMNOPQRSTUVWXYZ_-") != n ||
        n != json_string_length(t)) {
        *bad = dreply_err("bad request: \"token\" must be 16 to 64 letters, digits, '_' or '-'");
        return -1;
    }
    *token = v;
    return 0;
}

/* The request's "args": an array of at most MAX_ARGS short strings, as a
 * NULL-terminated argv (never NULL; caller frees the array, the strings
 * are the request's). */
static int req_args(const json_t *req, char ***argv, int *argc, json_t **bad)
{
    const json_t *a = req_field(req, "args", JSON_ARRAY, bad);
    if (!a)
        return -1;
    size_t n = json_array_size(a);
    if (n > MAX_ARGS) {
        *bad = dreply_err("bad request: \"args\" must be an array of at most %d strings", MAX_ARGS);
        return -1;
    }
    *argv = xcalloc(n + 1, sizeof **argv);
    for (size_t i = 0; i < n; i++) {
        json_t *s = json_array_get(a, i);
        if (!json_is_string(s) || json_string_length(s) > MAX_ARG_LEN ||
            strlen(json_string_value(s)) != json_string_length(s)) {
            *bad = dreply_err("bad request: argument %zu is not a short string", i + 1);
            free(*argv);
            return -1;
        }
        (*argv)[i] = (char *)json_string_value(s);
    }
    *argc = (int)n;
    return 0;
}

/* Take --format=json / --format json (or text) out of a control command's
 * words; -1 for another format. */
static int take_json(int *argc, char **argv, int *json)
{
    int w = 0;
    *json = 0;
    for (int i = 0; i < *argc; i++) {
        const char *v = NULL;
        if (strcmp(argv[i], "--format") == 0 && i + 1 < *argc)
            v = argv[++i];
        else if (strncmp(argv[i], "--format=", 9) == 0)
            v = argv[i] + 9;
        else {
            argv[w++] = argv[i];
            continue;
        }
        if (strcmp(v, "json") == 0)
            *json = 1;
        else if (strcmp(v, "text") != 0)
            return -1;
    }
    *argc = w;
    return 0;
}

/* A control command's text reply as JSON: {"messages": [one per line]}. */
static json_t *as_json(json_t *r)
{
    const char *out = json_string_value(json_object_get(r, "output"));
    if (!out)
        return r;
    json_t *lines = json_array();
    for (const char *p = out; *p;) {
        size_t n = strcspn(p, "\n");
        json_array_append_new(lines, json_stringn(p, n));
        p += n + (p[n] == '\n');
    }
    json_t *o = json_pack("{s:o}", "messages", lines);
    char *text = json_dumps(o, JSON_INDENT(2));
    json_decref(o);
    char *full = xprintf("%s\n", text ? text : "{}");
    json_object_set_new(r, "output", json_string(full));
    free(text);
    free(full);
    return r;
}

/* moku web: a one-time login link for the web view (dadmin.c). It takes
 * no arguments: one given is refused (exit 2), never ignored — it could
 * only be a mistake (another user's name, say). */
static json_t *weblogin(struct dmn *d, const struct peer *p, const json_t *req)
{
    json_t *bad = NULL;
    if (req_only(req, "args", &bad) < 0)
        return bad;
    const json_t *args = json_object_get(req, "args");
    if (args && !json_is_array(args))
        return dreply_usage("moku web: \"args\" must be an array");
    if (json_array_size(args) > 0) {
        const char *a = json_string_value(json_array_get(args, 0));
        return dreply_usage("moku web: unexpected argument '%.64s' (it takes none: the link is "
                            "for the user who runs it)",
                            a ? a : "?");
    }
    return dadmin_weblogin(d, p);
}

/* Whether the job id (moku's) names a job the daemon has or remembers. */
static int known_job(struct dmn *d, const char *id)
{
    return djobs_find(d, id) != NULL || drights_job_uid(d, id) >= 0;
}

/*
 * A request's words as every command takes them: `--json` is
 * `--format=json` (Slurm's spelling), and a Torque job id "123.host[.dom]"
 * is moku's "123" when 123 is a job the daemon knows (a word that only
 * looks like one, a host name, is left alone). *json says whether JSON
 * was asked for. The words replaced are copies (returned, freed with
 * free_args; argv's other words stay the request's).
 */
static char **normalize_args(struct dmn *d, int argc, char **argv, int *json)
{
    char **own = xcalloc((size_t)argc + 1, sizeof *own);
    *json = 0;
    for (int i = 0; i < argc; i++) {
        char id[32];
        const char *bare = cmd_job_id(argv[i], id, sizeof id);
        if (strcmp(argv[i], "--json") == 0)
            argv[i] = own[i] = xstrdup("--format=json");
        else if (bare != argv[i] && known_job(d, bare))
            argv[i] = own[i] = xstrdup(bare);
        if (strcmp(argv[i], "--format=json") == 0 ||
            (strcmp(argv[i], "--format") == 0 && i + 1 < argc && strcmp(argv[i + 1], "json") == 0))
            *json = 1;
    }
    return own;
}

static void free_tasks(char **tasks)
{
    for (size_t i = 0; tasks && tasks[i]; i++)
        free(tasks[i]);
    free(tasks);
}

static void free_args(char **own, int argc)
{
    for (int i = 0; own && i < argc; i++)
        free(own[i]);
    free(own);
}

/* With JSON asked for, a failure is JSON too, on standard output:
 * {"error": "message", "exit": N}, and the exit status N (never 0). */
static json_t *json_error(json_t *r)
{
    if (json_is_true(json_object_get(r, "ok")))
        return r;
    const char *msg = json_string_value(json_object_get(r, "error"));
    json_t *ex = json_object_get(r, "exit");
    int code = json_is_integer(ex) && json_integer_value(ex) != 0 ? (int)json_integer_value(ex) : 1;
    char *m = xstrdup(msg ? msg : "failed");
    size_t n = strlen(m);
    while (n && m[n - 1] == '\n')
        m[--n] = '\0';
    json_t *v = json_string(m);
    json_t *o = json_pack("{s:o, s:i}", "error", v ? v : json_string("(not UTF-8)"), "exit", code);
    char *text = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    char *full = xprintf("%s\n", text ? text : "{}");
    json_decref(o);
    free(text);
    free(m);
    json_decref(r);
    r = json_pack("{s:b, s:i, s:s}", "ok", 0, "exit", code, "output", full);
    free(full);
    return r;
}

static json_t *handle(struct dmn *d, const struct peer *p, const json_t *req)
{
    if (!json_is_object(req))
        return dreply_err("bad request: not a JSON object");
    json_t *bad = NULL;
    const json_t *c = req_field(req, "cmd", JSON_STRING, &bad);
    if (!c)
        return bad;
    const char *cmd = json_string_value(c);
    const struct cmd_def *def = cmd_def_request(cmd);
    if (def && def->op == CMD_OP_SUBMIT) {
        const json_t *job = req_field(req, "job", JSON_OBJECT, &bad);
        const char *token = NULL;
        if (!job || req_token(req, &token, &bad) < 0 || req_only(req, "job", &bad) < 0)
            return bad;
        dlog(d->log, 2, "request from %s: submit", p->user);
        return dsubmit_job(d, p, job, token);
    }
    if (def && def->op == CMD_OP_WEBLOGIN)
        return weblogin(d, p, req);
    if (!dreq_answers(cmd))
        return dreply_err("%.64s: unknown command", cmd);
    char **argv;
    int argc;
    if (req_only(req, "args", &bad) < 0 || req_args(req, &argv, &argc, &bad) < 0)
        return bad;
    dlog(d->log, 2, "request from %s: %.64s", p->user, cmd);
    int want_json = 0;
    /* "12[]": every task of array 12 (qstat shows the array itself) */
    char **tasks = def->op == CMD_OP_QSTAT ? NULL : darray_expand(d, def, &argc, &argv);
    char **own = normalize_args(d, argc, argv, &want_json);
    int nown = argc;
    int json = 0;
    if ((def->flags & CMD_MESSAGES) && take_json(&argc, argv, &json) < 0) {
        free_args(own, nown);
        free_tasks(tasks);
        free(argv);
        return dreply_usage("%.64s: --format takes json or text", cmd);
    }
    json_t *r = (def->flags & CMD_TORQUE) ? dtorque_run(d, p, def->op, cmd, argc, argv)
                                          : dctl_call(d, p, cmd, argc, argv);
    free_args(own, nown);
    free_tasks(tasks);
    free(argv);
    if (json)
        r = as_json(r);
    return want_json ? json_error(r) : r;
}

int dreq_answers(const char *cmd)
{
    const struct cmd_def *def = cmd_def_request(cmd);
    if (!def)
        return 0;
    if (def->flags & CMD_TORQUE)
        return dtorque_answers(def->op);
    return dctl_handles(def->op) || def->op == CMD_OP_SUBMIT || def->op == CMD_OP_WEBLOGIN;
}

int dreq_is_submit(const char *body, size_t len)
{
    json_t *req = json_loadb(body, len, JSON_REJECT_DUPLICATES, NULL);
    const char *cmd = json_string_value(json_object_get(req, "cmd"));
    const struct cmd_def *def = cmd ? cmd_def_request(cmd) : NULL;
    int submit = def && def->op == CMD_OP_SUBMIT;
    json_decref(req);
    return submit;
}

json_t *dreq_answer(struct dmn *d, uid_t uid, gid_t gid, const json_t *req)
{
    struct peer p = {.uid = uid, .gid = gid};
    drights_peer(d, &p);
    if (!store_group_is_open(d->st))
        dspace_group_done(d); /* a request on its own may change jobs: counted afresh */
    json_t *reply = handle(d, &p, req);
    if (store_in_transaction(d->st)) {
        /* A handler that returned without committing or rolling back would
         * make every later begin fail: the changes are dropped and the
         * engine, which may hold them, is rebuilt. */
        dlog(d->log, 0, "error: a request left its transaction open (a bug): rolled back");
        store_rollback(d->st);
        d->recover = 1;
    }
    return reply;
}
