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

#include "cmd/qsub.h"
#include "util/mem.h"
#include "wire/wire.h"

extern char **environ;

#define REPLY_TIMEOUT_MS 120000

static const char *const commands[] = {
    "showq",   "checkjob",    "diagnose", "showconfig", "canceljob", "sethold",
    "releasehold", "setspri", "setqos",   "runjob",     "schedctl",  "mjobctl", "checknode",
    "showstats", "showres", "setres", "releaseres", "showbf", "showstart", "changeparam",
    "qstat", "qdel", "qhold", "qrls", "qalter", "qsig", "qrun", "pbsnodes", "mdiag", "resetstats", "showgrid",
    NULL,
};

int client_is_command(const char *name)
{
    for (int i = 0; commands[i]; i++)
        if (strcmp(commands[i], name) == 0)
            return 1;
    return 0;
}

/* Take --home DIR / --home=DIR out of argv; else MOKU_HOME. NULL if none. */
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
    return home ? home : getenv("MOKU_HOME");
}

/* One request, one reply: 0 and *reply (caller frees), or -1 with err;
 * *sent says whether the request left (so the daemon may have acted on it). */
static int ask(const char *home, const char *text, char **reply, int *sent, struct err *err)
{
    char *sock = xprintf("%s/moku.sock", home);
    int fd = wire_connect(sock, err);
    free(sock);
    *sent = 0;
    if (fd < 0)
        return -1;
    size_t len = 0;
    int rc = wire_send(fd, text, strlen(text), err);
    if (rc == 0) {
        *sent = 1;
        rc = wire_recv(fd, reply, &len, WIRE_MAX_REPLY, REPLY_TIMEOUT_MS, err);
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

/*
 * Send req (released), print the reply; the exit status. A request that
 * carries a token (a submission) is sent again, with the same token, when
 * it left but no answer came back: the daemon answers a repeated token with
 * its first answer, so the job is made once whether or not the first try
 * got through. A request that never left (no daemon listening) is not
 * retried: it fails at once, as it always did.
 */
static int exchange(const char *name, const char *home, json_t *req)
{
    struct err e;
    if (!home || !*home) {
        json_decref(req);
        fprintf(stderr, "%s: where is the daemon? set MOKU_HOME or pass --home DIR\n", name);
        return 1;
    }
    int retry = json_object_get(req, "token") != NULL;
    char *text = json_dumps(req, JSON_COMPACT);
    json_decref(req);
    if (!text) {
        fprintf(stderr, "%s: the request could not be encoded\n", name);
        return 1;
    }
    char *buf = NULL;
    int sent = 0, ever_sent = 0, told = 0;
    long wait = 100, deadline = (long)time(NULL) + retry_seconds();
    int rc;
    while ((rc = ask(home, text, &buf, &sent, &e)) < 0) {
        ever_sent |= sent;
        if (!retry || !ever_sent || (long)time(NULL) >= deadline)
            break;
        if (!told++)
            fprintf(stderr, "%s: no answer from the daemon (%s); trying again\n", name, e.msg);
        sleep_ms(wait);
        wait = wait < 2000 ? wait * 2 : 2000;
    }
    free(text);
    if (rc < 0) {
        fprintf(stderr, "%s: no answer from the daemon: %s\n", name, e.msg);
        return 1;
    }
    json_error_t je;
    json_t *reply = json_loads(buf, 0, &je);
    free(buf);
    if (!json_is_object(reply)) {
        json_decref(reply);
        fprintf(stderr, "%s: the daemon's answer is not valid\n", name);
        return 1;
    }
    const char *out = json_string_value(json_object_get(reply, "output"));
    const char *error = json_string_value(json_object_get(reply, "error"));
    json_t *ex = json_object_get(reply, "exit");
    int status = json_is_integer(ex) ? (int)json_integer_value(ex) : 1;
    if (out)
        fputs(out, stdout);
    if (error) {
        size_t n = strlen(error);
        fprintf(stderr, "%s%s", error, n && error[n - 1] == '\n' ? "" : "\n");
    }
    json_decref(reply);
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
    const char *home = find_home(&argc, argv);
    json_t *args = json_array();
    for (int i = 0; i < argc; i++)
        if (json_array_append_new(args, json_string(argv[i])) < 0) {
            json_decref(args);
            fprintf(stderr, "%s: argument %d is not valid UTF-8\n", name, i + 1);
            return 2;
        }
    json_t *req = json_pack("{s:s, s:o}", "cmd", name, "args", args);
    return exchange(name, home, req);
}

int client_web(int argc, char **argv)
{
    const char *home = find_home(&argc, argv);
    if (argc > 0) {
        fprintf(stderr, "moku web: unexpected argument '%s' (usage: moku web [--home DIR])\n",
                argv[0]);
        return 2;
    }
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

int client_submit(const char *name, int argc, char **argv)
{
    const char *home = find_home(&argc, argv);
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
    if (qsub_script_arg(argc + 1, av, &path, &e) < 0) {
        fprintf(stderr, "%s\n", e.msg);
        goto out;
    }
    if (!(script = read_script(name, path, &len)))
        goto out;
    if (!getcwd(cwd, sizeof cwd)) {
        fprintf(stderr, "%s: cannot tell the working directory: %s\n", name, strerror(errno));
        goto out;
    }
    if (qsub_parse(argc + 1, av, script, len, path, cwd, environ, (long)time(NULL), &q, &e) <
        0) {
        fprintf(stderr, "%s\n", e.msg);
        goto out;
    }
    json_t *job = qsub_to_json(&q);
    qsub_free(&q);
    if (!job) {
        fprintf(stderr, "%s: the request could not be encoded\n", name);
        goto out;
    }
    char token[33];
    if (new_token(token) < 0) {
        json_decref(job);
        fprintf(stderr, "%s: no random bytes for the request token: %s\n", name, strerror(errno));
        goto out;
    }
    rc = exchange(name, home,
                  json_pack("{s:s, s:o, s:s}", "cmd", "submit", "job", job, "token", token));
out:
    free(script);
    free(av);
    return rc;
}
