/* client — see client.h. */
#include "cli/client.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "cli/help.h"
#include "cmd/qsub.h"
#include "cmd/qsub_inter.h"
#include "moku_config.h" /* MOKU_HOME_DEFAULT */
#include "rm/local.h"    /* LOCAL_F_TTY: where an interactive job's supervisor listens */
#include "util/idname.h"
#include "util/mem.h"
#include "wire/wire.h"

extern char **environ;

/* How long one exchange with the daemon may take, unless MOKU_TIMEOUT says:
 * a stopped or hung daemon held commands 120 s before (issue 28). The
 * daemon answers in milliseconds (a showq of 100,000 jobs in under one
 * second), so this is only ever reached when it does not answer at all. */
#define DEFAULT_TIMEOUT_S 15
#define MAX_TIMEOUT_S 3600

/* The daemon's commands are the help table's HELP_CLIENT entries: a new
 * command is one entry of the command table (cmd/cmdtab.c). */
int client_is_command(const char *name)
{
    const struct help_cmd *h = help_find(name);
    return h && (h->flags & HELP_CLIENT);
}

/* Take --home DIR / --home=DIR out of argv; else MOKU_HOME; else the
 * compiled-in default (an installed moku's /var/spool/moku). */
static const char *find_home(int *argc, char **argv)
{
    const char *home = NULL;
    int w = 0;
    for (int i = 0; i < *argc; i++) {
        if (strcmp(argv[i], "--home") == 0 && i + 1 < *argc)
            home = argv[++i];
        else if (strncmp(argv[i], "--home=", 7) == 0)
            home = argv[i] + 7;
        else
            argv[w++] = argv[i];
    }
    *argc = w;
    if (!home || !*home)
        home = getenv("MOKU_HOME");
    return home && *home ? home : MOKU_HOME_DEFAULT;
}

static long ms_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* MOKU_TIMEOUT in milliseconds (seconds 1..MAX_TIMEOUT_S), else the
 * default; -1 with a message when it is set to something else. */
static int timeout_ms(const char *name)
{
    const char *v = getenv("MOKU_TIMEOUT");
    char *end;
    if (!v || !*v)
        return DEFAULT_TIMEOUT_S * 1000;
    long n = strtol(v, &end, 10);
    if (*end || n < 1 || n > MAX_TIMEOUT_S) {
        fprintf(stderr, "%s: MOKU_TIMEOUT '%s' is not a number of seconds from 1 to %d\n", name, v,
                MAX_TIMEOUT_S);
        return -1;
    }
    return (int)n * 1000;
}

/* One request, one reply, all within tmo ms: 0 and *reply (caller frees),
 * or < 0 with err (WIRE_TIMEOUT when the time ran out); *sent says whether
 * the whole request left (so the daemon may act on it). */
static int ask(const char *home, const char *text, int tmo, char **reply, int *sent,
               struct err *err)
{
    char *sock = xprintf("%s/moku.sock", home);
    long deadline = ms_now() + tmo;
    int fd = wire_connect(sock, tmo, err);
    free(sock);
    *sent = 0;
    if (fd < 0)
        return fd;
    size_t len = 0;
    long left = deadline - ms_now();
    int rc = wire_send(fd, text, strlen(text), left > 0 ? (int)left : 0, err);
    if (rc == 0) {
        *sent = 1;
        left = deadline - ms_now();
        rc = wire_recv(fd, reply, &len, WIRE_MAX_REPLY, left > 0 ? (int)left : 0, err);
        /* The user set MOKU_TIMEOUT for the whole exchange: name that, not
         * what was left of it when the wait for the answer began. */
        if (rc == WIRE_TIMEOUT)
            err_set(err, "no answer within %d ms", tmo);
    }
    close(fd);
    return rc;
}

/* How long a request with a token is tried again when its answer was lost
 * (the daemon stopped, or was killed, after it had the request): long
 * enough for a restart. MOKU_RETRY_SECONDS overrides it (0: no retry). */
static long retry_seconds(void)
{
    const char *v = getenv("MOKU_RETRY_SECONDS");
    char *end;
    long n = v && *v ? strtol(v, &end, 10) : -1;
    return n >= 0 && n <= 86400 && v && *end == '\0' ? n : 60;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}

/* No answer came: say why, and when the request had left, that what it
 * asked for may have been done; a submission's token lets the user find out
 * without making a second job. */
static void tell_no_answer(const char *name, const char *token, int sent, const struct err *e)
{
    fprintf(stderr, "%s: no answer from the daemon: %s\n", name, e->msg);
    if (sent && token)
        fprintf(stderr,
                "%s: the request was sent, so the job may have been made or not. To find out "
                "without making a second one, submit the same way again with --token %s: the "
                "daemon answers the job's id if it was made (once, never twice)\n",
                name, token);
    else if (sent)
        fprintf(stderr, "%s: the request was sent: whether it was carried out is not known\n",
                name);
}

/* The reply's text to stdout and stderr; its exit status. */
/* qsub prints a new job's id as Torque does, "12.server" (the server is
 * this host: the daemon is reached through a local socket; its short name,
 * as qstat shows ids), a job array's "12[].server". 1 when out was a bare
 * id and is printed so. */
static int torque_id(const char *out)
{
    size_t n = strspn(out, "0123456789");
    if (n && strncmp(out + n, "[]", 2) == 0)
        n += 2;
    if (n == 0 || strcmp(out + n, "\n") != 0)
        return 0;
    char host[256];
    printf("%.*s.%s\n", (int)n, out, idname_server(host, sizeof host));
    return 1;
}

static int print_reply(const char *name, char *buf)
{
    /* A reply to a "raw" request may carry its output after the JSON and a
     * newline (the daemon's reply_text): compact JSON has none of its own. */
    char *nl = strchr(buf, '\n');
    json_error_t je;
    json_t *reply = json_loadb(buf, nl ? (size_t)(nl - buf) : strlen(buf), 0, &je);
    if (!json_is_object(reply) || (nl && json_object_get(reply, "output"))) {
        json_decref(reply);
        fprintf(stderr, "%s: the daemon's answer is not valid\n", name);
        return 1;
    }
    const char *out = nl ? nl + 1 : json_string_value(json_object_get(reply, "output"));
    const char *error = json_string_value(json_object_get(reply, "error"));
    json_t *ex = json_object_get(reply, "exit");
    int status = json_is_integer(ex) ? (int)json_integer_value(ex) : 1;
    if (out && status == 0 && strcmp(name, "qsub") == 0 && torque_id(out))
        ; /* printed as Torque prints it */
    else if (out)
        fputs(out, stdout);
    if (error) {
        size_t n = strlen(error);
        /* The daemon names a refused submission "submit: "; qsub and msub
         * say their own name, as Torque's and Moab's do. */
        if (strncmp(error, "submit: ", 8) == 0 && strncmp(name, "moku", 4) != 0)
            fprintf(stderr, "%s: ", name), error += 8, n -= 8;
        fprintf(stderr, "%s%s", error, n && error[n - 1] == '\n' ? "" : "\n");
    }
    json_decref(reply);
    const struct help_cmd *h = help_find(name);
    if (status == 2 && h) /* a usage error the daemon's parser found */
        help_hint(h);
    return status;
}

/*
 * Send req (released); its reply in *buf (caller frees), 0, or an exit
 * status with the error told (*buf NULL). A request that
 * carries a token (a submission) is sent again, with the same token, when
 * it left and the daemon went away without answering (killed, restarting):
 * the daemon answers a repeated token with its first answer, so the job is
 * made once whether or not the first try got through. A daemon that has the
 * request and does not answer in time (stopped, hung) is not waited for
 * again: the user is told, with the token. A request that never left (no
 * daemon listening) is not retried: it fails at once.
 */
static int exchange_reply(const char *name, const char *home, json_t *req, char **buf)
{
    struct err e;
    int tmo = timeout_ms(name);
    *buf = NULL;
    if (!home || !*home || tmo < 0) {
        json_decref(req);
        if (tmo >= 0)
            fprintf(stderr, "%s: where is the daemon? set MOKU_HOME or pass --home DIR\n", name);
        return tmo < 0 ? 2 : 1;
    }
    const char *tok = json_string_value(json_object_get(req, "token"));
    char *token = tok ? xstrdup(tok) : NULL;
    char *text = json_dumps(req, JSON_COMPACT);
    json_decref(req);
    if (!text) {
        free(token);
        fprintf(stderr, "%s: the request could not be encoded\n", name);
        return 1;
    }
    int sent = 0, ever_sent = 0, told = 0;
    long wait = 100, deadline = (long)time(NULL) + retry_seconds();
    int rc;
    while ((rc = ask(home, text, tmo, buf, &sent, &e)) < 0) {
        ever_sent |= sent;
        if (!token || !ever_sent || rc == WIRE_TIMEOUT || (long)time(NULL) >= deadline)
            break;
        if (!told++)
            fprintf(stderr, "%s: no answer from the daemon (%s); trying again\n", name, e.msg);
        sleep_ms(wait);
        wait = wait < 2000 ? wait * 2 : 2000;
    }
    free(text);
    if (rc < 0)
        tell_no_answer(name, token, ever_sent | sent, &e);
    free(token);
    return rc < 0 ? 1 : 0;
}

/* Send req (released), print the reply; the exit status. */
static int exchange(const char *name, const char *home, json_t *req)
{
    char *buf;
    int rc = exchange_reply(name, home, req, &buf);
    if (rc != 0)
        return rc;
    int status = print_reply(name, buf);
    free(buf);
    return status;
}

/* A token for one request: 128 random bits from the kernel, in hex. */
static int new_token(char out[33])
{
    unsigned char r[16];
    size_t got = 0;
    while (got < sizeof r) {
        ssize_t n = getrandom(r + got, sizeof r - got, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        got += (size_t)n;
    }
    for (size_t i = 0; i < sizeof r; i++)
        snprintf(out + 2 * i, 3, "%02x", r[i]);
    return 0;
}

int client_run(const char *name, int argc, char **argv)
{
    const struct help_cmd *h = help_find(name);
    enum help_ask ask = h ? help_asked(h, argc, argv) : HELP_NONE;
    if (ask != HELP_NONE) /* answered here: never sent (canceljob --help cancels nothing) */
        return help_answer(h, ask);
    const char *home = find_home(&argc, argv);
    json_t *args = json_array();
    for (int i = 0; i < argc; i++)
        if (json_array_append_new(args, json_string(argv[i])) < 0) {
            json_decref(args);
            fprintf(stderr, "%s: argument %d is not valid UTF-8\n", name, i + 1);
            return 2;
        }
    /* "raw": the output comes after the JSON, not escaped into it. */
    json_t *req = json_pack("{s:s, s:o, s:b}", "cmd", name, "args", args, "raw", 1);
    return exchange(name, home, req);
}

int client_web(int argc, char **argv)
{
    const struct help_cmd *h = help_find("moku web");
    enum help_ask ask = help_asked(h, argc, argv);
    if (ask != HELP_NONE)
        return help_answer(h, ask);
    const char *home = find_home(&argc, argv);
    if (argc > 0)
        return help_usage_error(h, "unexpected argument '%s'", argv[0]);
    return exchange("moku web", home, json_pack("{s:s}", "cmd", "weblogin"));
}

/* The script: the named file, or stdin; at most one byte over the limit is
 * read, so that qsub_parse can say it is too large. */
static char *read_script(const char *name, const char *path, size_t *len)
{
    FILE *f = path ? fopen(path, "rb") : stdin;
    if (!f) {
        fprintf(stderr, "%s: %s: %s\n", name, path, strerror(errno));
        return NULL;
    }
    size_t cap = QSUB_MAX_SCRIPT + 2;
    char *buf = xmalloc(cap);
    *len = fread(buf, 1, cap - 1, f);
    int bad = ferror(f);
    if (path)
        fclose(f);
    if (bad) {
        fprintf(stderr, "%s: %s: cannot read\n", name, path ? path : "standard input");
        free(buf);
        return NULL;
    }
    buf[*len] = '\0';
    return buf;
}

/* Take --token T / --token=T out of argv into *token (NULL when absent):
 * the daemon's rule, 16 to 64 of [0-9A-Za-z_-]. -1 with a message when it
 * is malformed or has no value. */
static int find_token(const char *name, int *argc, char **argv, const char **token)
{
    int w = 0;
    *token = NULL;
    for (int i = 0; i < *argc; i++) {
        if (strcmp(argv[i], "--token") == 0 && i + 1 < *argc)
            *token = argv[++i];
        else if (strncmp(argv[i], "--token=", 8) == 0)
            *token = argv[i] + 8;
        else if (strcmp(argv[i], "--token") == 0)
            *token = "";
        else
            argv[w++] = argv[i];
    }
    *argc = w;
    size_t n = *token ? strlen(*token) : 0;
    if (*token && (n < 16 || n > 64 ||
                   strspn(*token, "0123456789abcdefghijklmnopqrstuvwxyz"
                                  "ABCDEFGHIJKLMNOPQRSTUVWXYZ_-") != n)) {
        fprintf(stderr, "%s: --token '%s': 16 to 64 letters, digits, '_' or '-' expected\n", name,
                *token);
        return -1;
    }
    return 0;
}

/* ---- qsub -I: the session after the submission (cmd/qsub_inter.h) ---- */

struct inter {
    const char *name, *home;
    char num[32]; /* the job's id as the daemon names it */
};

/* One request, its parsed reply (caller releases); NULL when the daemon
 * does not answer. */
static json_t *inter_request(const struct inter *in, json_t *req)
{
    char *text = json_dumps(req, JSON_COMPACT), *buf = NULL;
    json_decref(req);
    struct err e;
    int sent, tmo = timeout_ms(in->name);
    int rc =
        text ? ask(in->home, text, tmo > 0 ? tmo : DEFAULT_TIMEOUT_S * 1000, &buf, &sent, &e) : -1;
    free(text);
    json_t *reply = rc == 0 ? json_loads(buf, 0, NULL) : NULL;
    free(buf);
    return reply;
}

/* The state checkjob --format=json gives: a held job's name, or a live
 * job's at the top, an ended one's under "job". */
static const char *inter_state(json_t *job)
{
    json_t *o = json_object_get(job, "job");
    return json_string_value(json_object_get(o ? o : job, "state"));
}

/* qsub_inter_ask: is the job still to start? Its checkjob state says (an
 * ended or unknown job is not); a daemon that does not answer (restarting)
 * cannot tell. */
static int inter_ask(void *ctx, const char *id, char *why, size_t whylen)
{
    (void)id;
    const struct inter *in = ctx;
    json_t *reply = inter_request(
        in, json_pack("{s:s, s:[s,s]}", "cmd", "checkjob", "args", "--format=json", in->num));
    if (!reply)
        return -1;
    const char *out = json_string_value(json_object_get(reply, "output"));
    json_t *job = out ? json_loads(out, 0, NULL) : NULL;
    const char *state = inter_state(job);
    int coming = state && strcmp(state, "Completed") != 0 && strcmp(state, "Removed") != 0 &&
                 strcmp(state, "Vacated") != 0;
    if (!coming) {
        const char *error = json_string_value(json_object_get(reply, "error"));
        snprintf(why, whylen, "%s%s", state ? "its state is " : "",
                 state   ? state
                 : error ? error
                         : "the daemon does not know it");
        size_t n = strlen(why);
        if (n && why[n - 1] == '\n')
            why[n - 1] = '\0';
    }
    json_decref(job);
    json_decref(reply);
    return coming;
}

/* The wait was interrupted: nobody will use the job's terminal, so the job
 * goes (it would hold its nodes for nothing). */
static void inter_cancel(const struct inter *in)
{
    json_t *reply =
        inter_request(in, json_pack("{s:s, s:[s]}", "cmd", "canceljob", "args", in->num));
    if (!json_is_true(json_object_get(reply, "ok")))
        fprintf(stderr, "%s: job %s could not be cancelled: cancel it with canceljob %s\n",
                in->name, in->num, in->num);
    json_decref(reply);
}

/* The submission's reply (buf): an error is printed as any; a new job's id
 * starts the session, whose shell's status is qsub's. */
static int inter_session(const char *name, const char *home, char *buf)
{
    json_t *reply = json_loads(buf, 0, NULL);
    const char *out = json_string_value(json_object_get(reply, "output"));
    struct inter in = {.name = name, .home = home};
    size_t n = out ? strspn(out, "0123456789") : 0;
    if (!json_is_true(json_object_get(reply, "ok")) || n == 0 || n >= sizeof in.num ||
        strcmp(out + n, "\n") != 0) {
        json_decref(reply);
        return print_reply(name, buf);
    }
    memcpy(in.num, out, n);
    json_decref(reply);
    char host[256], *full = xprintf("%s.%s", in.num, idname_server(host, sizeof host));
    /* The daemon's spool is <home>/spool (daemon/serve.c), a job's
     * directory its id. */
    char *sock = xprintf("%s/spool/%s/%s", home, in.num, LOCAL_F_TTY);
    struct err e = {{0}};
    int rc = qsub_inter_run(sock, full, STDIN_FILENO, STDOUT_FILENO, stderr, inter_ask, &in, &e);
    if (rc < 0) {
        fprintf(stderr, "%s: %s\n", name, e.msg);
        if (rc == QSUB_INTER_INTERRUPTED)
            inter_cancel(&in);
        rc = 1;
    }
    free(sock);
    free(full);
    return rc;
}

int client_submit(const char *name, int argc, char **argv)
{
    const struct help_cmd *h = help_find(name);
    enum help_ask ask = h ? help_asked(h, argc, argv) : HELP_NONE;
    if (ask != HELP_NONE)
        return help_answer(h, ask);
    const char *home = find_home(&argc, argv), *given;
    if (find_token(name, &argc, argv, &given) < 0) {
        if (h)
            help_hint(h);
        return 2;
    }
    char **av = xcalloc((size_t)argc + 2, sizeof *av);
    av[0] = (char *)name;
    for (int i = 0; i < argc; i++)
        av[i + 1] = argv[i];
    struct err e;
    const char *path;
    int rc = 1;
    char *script = NULL, cwd[4096];
    size_t len = 0;
    struct qsub_req q;
    int inter = 0;
    if (qsub_script_arg(argc + 1, av, &path, &inter, &e) < 0) {
        fprintf(stderr, "%s\n", e.msg);
        if (e.usage && h)
            help_hint(h);
        rc = e.usage ? 2 : 1;
        goto out;
    }
    /* qsub -I with no script: stdin is the terminal the shell will use */
    if ((path || !inter) && !(script = read_script(name, path, &len)))
        goto out;
    if (!getcwd(cwd, sizeof cwd)) {
        fprintf(stderr, "%s: cannot tell the working directory: %s\n", name, strerror(errno));
        goto out;
    }
    if (qsub_parse(argc + 1, av, script, len, path, cwd, environ, (long)time(NULL), &q, &e) < 0) {
        fprintf(stderr, "%s\n", e.msg);
        goto out;
    }
    if (q.warnings)
        fputs(q.warnings, stderr);
    json_t *job = qsub_to_json(&q);
    qsub_free(&q);
    if (!job) {
        fprintf(stderr, "%s: the request could not be encoded\n", name);
        goto out;
    }
    char token[65];
    if (given)
        snprintf(token, sizeof token, "%s", given);
    else if (new_token(token) < 0) {
        json_decref(job);
        fprintf(stderr, "%s: no random bytes for the request token: %s\n", name, strerror(errno));
        goto out;
    }
    json_t *req = json_pack("{s:s, s:o, s:s}", "cmd", "submit", "job", job, "token", token);
    if (!inter) {
        rc = exchange(name, home, req);
        goto out;
    }
    /* A signal from here on must still cancel the job the submission makes:
     * held until qsub_inter_run's wait takes it. */
    sigset_t stop;
    qsub_inter_stopset(&stop);
    sigprocmask(SIG_BLOCK, &stop, NULL);
    char *buf;
    if ((rc = exchange_reply(name, home, req, &buf)) == 0)
        rc = inter_session(name, home, buf);
    free(buf);
out:
    free(script);
    free(av);
    return rc;
}
