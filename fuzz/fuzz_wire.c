/*
 * fuzz_wire — a request as the daemon receives it: the bytes go through a
 * socket into the wire decoder (wire_recv: the length frame), then through
 * the whole request handler (serve_reply: JSON, permissions, every
 * command, submissions into a real SQLite store), as root or as an ordinary
 * user (the first input byte says which). Jobs a request starts (runjob)
 * go to a resource manager that runs nothing. The daemon lives across
 * inputs, so that state one request leaves is what the next meets; every
 * 256 inputs it is closed and opened again on a new home.
 */
#define _XOPEN_SOURCE 700 /* nftw */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "daemon/daemon_int.h"
#include "fuzz.h"
#include "wire/wire.h"

/* ---- a resource manager that runs nothing ---- */

static int rm_ok(void *ctx, const char *id, long now, struct err *err)
{
    return 0;
}
static int rm_start(void *ctx, const struct rm_job *j, long now, struct err *err)
{
    return 0;
}
static int rm_status(void *ctx, const char *id, long now, struct rm_status *st, struct err *err)
{
    memset(st, 0, sizeof *st);
    st->state = RM_RUNNING;
    return 0;
}
static void rm_forget(void *ctx, const char *id)
{
}
static const struct rm_ops null_ops = {
    .name = "null",
    .start = rm_start,
    .status = rm_status,
    .cancel = rm_ok,
    .suspend = rm_ok,
    .resume = rm_ok,
    .requeue = rm_ok,
    .forget = rm_forget,
};

/* ---- the daemon ---- */

static char home[128];
static struct dmn *daemon_;

/* A daemon over home as moku serve sets it up (serve_open), its jobs
 * started through rm, which runs nothing. */
static struct dmn *test_open(const char *dir, const struct rm *rm, struct err *err)
{
    struct dmn *d = serve_open(dir, 0, err);
    if (d)
        d->rm = *rm;
    return d;
}

/* The reply text to one request from uid/gid (caller frees); a failed
 * commit rebuilds the engine now, as the loop would before its next turn. */
static char *test_answer(struct dmn *d, uid_t uid, gid_t gid, const char *body, size_t len)
{
    char *text = serve_reply(d, uid, gid, body, len);
    if (d->recover)
        serve_recover(d);
    return text;
}
static unsigned inputs;

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *f)
{
    return remove(path);
}

static void remove_home(void)
{
    if (home[0])
        nftw(home, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* At exit: the daemon closed, its home removed (no litter in TMPDIR). */
static void close_daemon(void)
{
    serve_close(daemon_);
    daemon_ = NULL;
    remove_home();
}

static void open_daemon(void)
{
    remove_home();
    if (!home[0])
        atexit(close_daemon);
    /* Under TMPDIR when the daemon's socket, HOME/moku.sock, fits a
     * sockaddr_un there (108 bytes), else under /tmp: a TMPDIR cut short
     * named a directory that is not there. */
    const char *dir = getenv("TMPDIR");
    if (!dir || strlen(dir) > 64)
        dir = "/tmp";
    snprintf(home, sizeof home, "%s/mokuwire.XXXXXX", dir);
    if (!mkdtemp(home))
        abort();
    char path[160];
    snprintf(path, sizeof path, "%s/maui.cfg", home);
    FILE *f = fopen(path, "w");
    if (!f)
        abort();
    fputs("NODECFG[n1] PROCS=2\nNODECFG[n2] PROCS=4 FEATURES=big\nADMIN1 root\n"
          "RESCTLPOLICY ANY\nUSERCFG[DEFAULT] MAXSUBMITJOBS=50 MAXJOB=4\n"
          "SRCFG[night] PERIOD=DAY STARTTIME=22:00:00 ENDTIME=06:00:00 HOSTLIST=n1 USERLIST=root\n"
          "LOGLEVEL 0\n",
          f);
    fclose(f);
    struct err e;
    struct rm rm = {&null_ops, NULL};
    if (!(daemon_ = test_open(home, &rm, &e))) {
        fprintf(stderr, "fuzz_wire: %s\n", e.msg);
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 65536)
        return 0;
    if (!daemon_ || inputs++ % 256 == 0) {
        serve_close(daemon_);
        open_daemon();
    }
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
        abort();
    int big = 1 << 20;
    setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &big, sizeof big);
    for (size_t off = 1; off < size;) {
        ssize_t n = write(sv[0], data + off, size - off);
        if (n <= 0)
            break;
        off += (size_t)n;
    }
    close(sv[0]);
    char *body = NULL;
    size_t len = 0;
    struct err e;
    if (wire_recv(sv[1], &body, &len, WIRE_MAX_REQUEST, 1000, &e) == 0) {
        uid_t uid = data[0] & 1 ? 65534 : 0;
        char *reply = test_answer(daemon_, uid, uid, body, len);
        if (getenv("FUZZ_VERBOSE")) /* reading a reproducer: what it got */
            fprintf(stderr, "uid %u: %.300s\n", (unsigned)uid, reply);
        free(reply);
    }
    free(body);
    close(sv[1]);
    return 0;
}
