/*
 * qsub_inter — qsub -I: wait for the job's terminal, relay it (see
 * qsub_inter.h; the terminal itself is rm/pty.h's).
 */
#define _GNU_SOURCE /* sigtimedwait with a timeout, SOCK_CLOEXEC */

#include "cmd/qsub_inter.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "rm/pty.h"

#define TRY_MS 200           /* between two tries of the supervisor's socket */
#define HAND_OVER_SECONDS 30 /* the supervisor's hand-over, once connected */

/* Connect to the supervisor and take the terminal: the master, with the
 * connection in *conn; -1 when no supervisor listens yet (or it refused). */
static int take_terminal(const char *sock, int *conn)
{
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    if (strlen(sock) >= sizeof a.sun_path)
        return -1;
    memcpy(a.sun_path, sock, strlen(sock) + 1);
    int c = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (c < 0)
        return -1;
    struct timeval tv = {.tv_sec = HAND_OVER_SECONDS};
    setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    int master = -1;
    char msg[16];
    if (connect(c, (struct sockaddr *)&a, sizeof a) < 0 ||
        pty_recv_fd(c, &master, msg, sizeof msg, NULL) <= 0 || master < 0) {
        close(c);
        return -1;
    }
    tv.tv_sec = 0; /* from now on the relay waits for it as long as the shell runs */
    setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    *conn = c;
    return master;
}

static double mono_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Wait until the terminal comes (its master, *conn set), the job is no
 * longer coming, or a signal of `stop` came (TRY_MS between tries). */
static int wait_terminal(const char *sock, const char *id, const sigset_t *stop, qsub_inter_ask ask,
                         void *ctx, int *conn, struct err *err)
{
    double next_ask = mono_now() + QSUB_INTER_ASK_SECONDS;
    for (;;) {
        int master = take_terminal(sock, conn);
        if (master >= 0)
            return master;
        if (mono_now() >= next_ask) {
            char why[256] = "";
            if (ask(ctx, id, why, sizeof why) == 0 && (master = take_terminal(sock, conn)) < 0) {
                err_set(err, "job %s ended without a shell%s%s", id, why[0] ? ": " : "", why);
                return QSUB_INTER_GONE;
            }
            if (master >= 0)
                return master;
            next_ask = mono_now() + QSUB_INTER_ASK_SECONDS;
        }
        struct timespec ts = {0, TRY_MS * 1000000L};
        int sig = sigtimedwait(stop, NULL, &ts);
        if (sig > 0) {
            err_set(err, "job %s: %s while waiting for it to start", id, strsignal(sig));
            return QSUB_INTER_INTERRUPTED;
        }
    }
}

/* The relay, with `in` raw when it is a terminal and restored after. */
static int relay(int in, int out, int master, int conn, struct err *err)
{
    struct termios saved;
    int raw = isatty(in) && pty_raw(in, &saved, NULL) == 0;
    int rc = pty_relay(in, out, master, conn, err);
    if (raw)
        pty_restore(in, &saved);
    return rc < 0 ? QSUB_INTER_GONE : rc;
}

void qsub_inter_stopset(sigset_t *stop)
{
    sigemptyset(stop);
    sigaddset(stop, SIGINT);
    sigaddset(stop, SIGTERM);
    sigaddset(stop, SIGHUP);
}

int qsub_inter_run(const char *sock, const char *id, int in, int out, FILE *msgs,
                   qsub_inter_ask ask, void *ctx, struct err *err)
{
    sigset_t stop;
    qsub_inter_stopset(&stop);
    sigprocmask(SIG_BLOCK, &stop, NULL);
    fprintf(msgs, "qsub: waiting for job %s to start\n", id);
    fflush(msgs);
    int conn = -1;
    int master = wait_terminal(sock, id, &stop, ask, ctx, &conn, err);
    sigprocmask(SIG_UNBLOCK, &stop, NULL);
    if (master < 0)
        return master;
    fprintf(msgs, "qsub: job %s ready\n\n", id);
    fflush(msgs);
    int rc = relay(in, out, master, conn, err);
    close(master);
    close(conn);
    fprintf(msgs, "\nqsub: job %s completed\n", id);
    fflush(msgs);
    return rc;
}
