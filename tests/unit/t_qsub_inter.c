/*
 * Tests of qsub_inter: qsub -I's wait for the job's terminal and its relay,
 * against a stand-in for the job's supervisor (rm/pty.h's calls, as
 * rm/supervise.c makes them): the three Torque lines, the shell's status,
 * a job that ends before it starts, and a signal while waiting.
 * tests/unit/t_local.c drives the real supervisor.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmd/qsub_inter.h"
#include "rm/pty.h"
#include "test.h"

static char dir[64], sock[128];

/* The supervisor's part, in a child: listen, wait 300 ms (qsub tries in
 * vain meanwhile), take the owner's connection, start `cmd` under /bin/sh
 * on a terminal, hand the master over, say the status. */
static pid_t fake_supervisor(const char *cmd)
{
    pid_t pid = fork();
    if (pid != 0)
        return pid;
    struct timespec ts = {0, 300000000L};
    nanosleep(&ts, NULL);
    int lfd = pty_listen(sock, geteuid(), NULL);
    struct pollfd p = {.fd = lfd, .events = POLLIN};
    if (lfd < 0 || poll(&p, 1, 10000) != 1)
        _exit(1);
    int conn = pty_accept_owner(lfd, geteuid(), NULL), m, s;
    unlink(sock);
    if (conn < 0 || pty_open(geteuid(), &m, &s, NULL) < 0)
        _exit(2);
    pid_t sh = fork();
    if (sh == 0) {
        close(m);
        if (pty_attach(s) < 0)
            _exit(120);
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(121);
    }
    close(s);
    if (pty_send_fd(conn, m, "pty\n", 4, NULL) < 0)
        _exit(3);
    close(m);
    int st;
    char line[32];
    waitpid(sh, &st, 0);
    int n = snprintf(line, sizeof line, "exit %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : 255);
    _exit(write(conn, line, (size_t)n) == n ? 0 : 4);
}

static int asked;

static int still_coming(void *ctx, const char *id, char *why, size_t n)
{
    asked++;
    return 1;
}

static int gone(void *ctx, const char *id, char *why, size_t n)
{
    snprintf(why, n, "cancelled");
    return 0;
}

static int signalled(void *ctx, const char *id, char *why, size_t n)
{
    kill(getpid(), SIGTERM); /* blocked while qsub waits: taken by sigtimedwait */
    return 1;
}

static void test_session(void)
{
    struct err err;
    int in[2], out[2];
    CHECK(pipe(in) == 0 && pipe(out) == 0);
    const char *typed = "echo relayed-$((6*7)); exit 6\n";
    CHECK_EQ(write(in[1], typed, strlen(typed)), (ssize_t)strlen(typed));
    close(in[1]);
    pid_t sup = fake_supervisor("read line; eval \"$line\"");
    FILE *msgs = tmpfile();
    int rc = qsub_inter_run(sock, "12.host", in[0], out[1], msgs, still_coming, NULL, &err);
    CHECK_EQ(rc, 6);
    close(out[1]);
    char text[1024] = "", lines[512] = "";
    ssize_t n = read(out[0], text, sizeof text - 1);
    text[n > 0 ? n : 0] = '\0';
    CHECK(strstr(text, "relayed-42") != NULL);
    rewind(msgs);
    n = (ssize_t)fread(lines, 1, sizeof lines - 1, msgs);
    lines[n > 0 ? n : 0] = '\0';
    CHECK_STR(lines, "qsub: waiting for job 12.host to start\nqsub: job 12.host ready\n\n"
                     "\nqsub: job 12.host completed\n");
    int st;
    CHECK_EQ(waitpid(sup, &st, 0), sup);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    fclose(msgs);
    close(in[0]);
    close(out[0]);
}

static void test_gone(void)
{
    struct err err;
    FILE *msgs = tmpfile();
    CHECK_EQ(qsub_inter_run(sock, "13.host", 0, 1, msgs, gone, NULL, &err), QSUB_INTER_GONE);
    CHECK(strstr(err.msg, "job 13.host ended without a shell: cancelled") != NULL);
    fclose(msgs);
}

static void test_interrupted(void)
{
    struct err err;
    FILE *msgs = tmpfile();
    CHECK_EQ(qsub_inter_run(sock, "14.host", 0, 1, msgs, signalled, NULL, &err),
             QSUB_INTER_INTERRUPTED);
    CHECK(strstr(err.msg, "while waiting") != NULL);
    fclose(msgs);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    snprintf(dir, sizeof dir, "/tmp/t_qsub_inter.XXXXXX");
    if (!mkdtemp(dir))
        return 1;
    snprintf(sock, sizeof sock, "%s/tty.sock", dir);
    TEST_RUN(test_session);
    TEST_RUN(test_gone);
    TEST_RUN(test_interrupted);
    unlink(sock);
    rmdir(dir);
    return TEST_DONE();
}
