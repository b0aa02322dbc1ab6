/*
 * Tests of pty: an interactive job's terminal opened for its user, a shell
 * attached to it in a session of its own, the master handed over a unix
 * socket with SCM_RIGHTS, the peer's uid, and the relay (input in, output
 * out, window size, the supervisor's status line). The shell is /bin/sh;
 * tests/integration/torque_interactive.sh does it through qsub -I.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rm/pty.h"
#include "test.h"

#define OTHER 4242 /* another user's uid (no account needed) */

/* Everything readable from fd until EIO or end, within 10 s. */
static size_t read_until_end(int fd, char *buf, size_t cap)
{
    size_t got = 0;
    struct pollfd p = {.fd = fd, .events = POLLIN};
    while (got < cap - 1 && poll(&p, 1, 10000) > 0) {
        ssize_t n = read(fd, buf + got, cap - 1 - got);
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    buf[got] = '\0';
    return got;
}

/* A child on the slave side running `cmd` under /bin/sh. */
static pid_t start_shell(int master, int slave, const char *cmd)
{
    pid_t pid = fork();
    if (pid == 0) {
        close(master);
        if (pty_attach(slave) < 0)
            _exit(120);
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(121);
    }
    close(slave);
    return pid;
}

static void test_open_owner(void)
{
    struct err err;
    int m, s;
    uid_t owner = geteuid() == 0 ? OTHER : geteuid();
    CHECK(pty_open(owner, &m, &s, &err) == 0);
    struct stat st;
    CHECK(fstat(s, &st) == 0);
    CHECK_EQ(st.st_uid, owner);
    CHECK_EQ(st.st_mode & 0777, 0620);
    CHECK(fcntl(m, F_GETFD) & FD_CLOEXEC);
    CHECK(fcntl(s, F_GETFD) & FD_CLOEXEC);
    CHECK(isatty(s));
    close(s);
    close(m);
}

/* The shell's terminal is its controlling one, with the master's window size,
 * and reaches it even after the master went through a socket. */
static void test_shell_through_socket(void)
{
    struct err err;
    int m, s, sv[2];
    CHECK(pty_open(geteuid(), &m, &s, &err) == 0);
    struct winsize ws = {.ws_row = 31, .ws_col = 101};
    CHECK(ioctl(m, TIOCSWINSZ, &ws) == 0);
    pid_t pid = start_shell(m, s,
                            "stty size; [ \"$(ps -o tty= -p $$)\" != '?' ] && echo ctty; "
                            "exit 7");
    CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0);
    CHECK(pty_send_fd(sv[0], m, "pty\n", 4, &err) == 0);
    close(m); /* the supervisor keeps no copy */
    int got = -1;
    char msg[16], out[512];
    CHECK_EQ(pty_recv_fd(sv[1], &got, msg, sizeof msg, &err), 4);
    CHECK_STR(msg, "pty\n");
    CHECK(got >= 0 && isatty(got));
    CHECK(got >= 0 && (fcntl(got, F_GETFD) & FD_CLOEXEC));
    read_until_end(got, out, sizeof out);
    CHECK(strstr(out, "31 101") != NULL);
    CHECK(strstr(out, "ctty") != NULL);
    int st;
    CHECK_EQ(waitpid(pid, &st, 0), pid);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 7);
    close(got);
    close(sv[0]);
    close(sv[1]);
}

static void test_recv_without_fd(void)
{
    struct err err;
    int sv[2], fd = 5;
    char msg[16];
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
    CHECK_EQ(write(sv[0], "no\n", 3), 3);
    CHECK_EQ(pty_recv_fd(sv[1], &fd, msg, sizeof msg, &err), 3);
    CHECK_EQ(fd, -1);
    close(sv[0]);
    CHECK_EQ(pty_recv_fd(sv[1], &fd, msg, sizeof msg, &err), 0);
    close(sv[1]);
}

static void test_peer_uid(void)
{
    struct err err;
    int sv[2];
    uid_t uid = (uid_t)-1;
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
    CHECK(pty_peer_uid(sv[0], &uid, &err) == 0);
    CHECK_EQ(uid, geteuid());
    close(sv[0]);
    close(sv[1]);
}

/* The relay: a line typed into `in` runs in the shell, its output reaches
 * `out`, and the status line ends it with the shell's status. */
static void test_relay(void)
{
    struct err err;
    int m, s, in[2], out[2], ctl[2];
    CHECK(pty_open(geteuid(), &m, &s, &err) == 0);
    CHECK(pipe(in) == 0 && pipe(out) == 0);
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, ctl) == 0);
    const char *typed = "echo relayed-$((6*7)); exit 3\n";
    CHECK_EQ(write(in[1], typed, strlen(typed)), (ssize_t)strlen(typed));
    close(in[1]);
    pid_t sup = fork(); /* the supervisor: starts the shell, reaps it, says its status */
    if (sup == 0) {
        int st;
        char line[32];
        pid_t pid = start_shell(m, s, "read line; eval \"$line\"");
        close(m);
        if (waitpid(pid, &st, 0) != pid)
            _exit(1);
        int n = snprintf(line, sizeof line, "exit %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : 255);
        _exit(write(ctl[1], line, (size_t)n) == n ? 0 : 1);
    }
    close(s);
    close(ctl[1]);
    int rc = pty_relay(in[0], out[1], m, ctl[0], &err);
    CHECK_EQ(rc, 3);
    close(out[1]);
    char text[1024];
    read_until_end(out[0], text, sizeof text);
    CHECK(strstr(text, "relayed-42") != NULL);
    int st;
    CHECK_EQ(waitpid(sup, &st, 0), sup);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    close(m);
    close(in[0]);
    close(out[0]);
    close(ctl[0]);
}

/* The supervisor gone without a word: an error, not a status. */
static void test_relay_no_status(void)
{
    struct err err;
    int m, s, ctl[2], out[2];
    CHECK(pty_open(geteuid(), &m, &s, &err) == 0);
    CHECK(pipe(out) == 0);
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, ctl) == 0);
    pid_t pid = start_shell(m, s, "exit 0");
    close(ctl[1]);
    CHECK_EQ(pty_relay(-1, out[1], m, ctl[0], &err), -1);
    CHECK(strstr(err.msg, "without") != NULL);
    int st;
    waitpid(pid, &st, 0);
    close(m);
    close(ctl[0]);
    close(out[0]);
    close(out[1]);
}

/* The socket qsub connects to: the owner's file, 0600; a connection of
 * another uid is refused, the owner's kept. */
static void test_listen_owner(void)
{
    if (geteuid() != 0) {
        TEST_SKIP("pty_listen for another user needs root");
        return;
    }
    struct err err;
    char dir[] = "/tmp/t_pty.XXXXXX", path[64];
    CHECK(mkdtemp(dir) != NULL);
    CHECK(chmod(dir, 0711) == 0);
    snprintf(path, sizeof path, "%s/tty.sock", dir);
    int lfd = pty_listen(path, OTHER, &err);
    CHECK(lfd >= 0);
    struct stat st;
    CHECK(lstat(path, &st) == 0 && S_ISSOCK(st.st_mode));
    CHECK_EQ(st.st_uid, OTHER);
    CHECK_EQ(st.st_mode & 0777, 0600);
    CHECK_EQ(pty_listen(path, OTHER, &err), -1); /* never over an old one */
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
    int mine = socket(AF_UNIX, SOCK_STREAM, 0); /* root may connect, but is not the owner */
    CHECK(connect(mine, (struct sockaddr *)&a, sizeof a) == 0);
    CHECK_EQ(pty_accept_owner(lfd, OTHER, &err), -1);
    CHECK(strstr(err.msg, "not the job's owner") != NULL);
    pid_t pid = fork();
    if (pid == 0) { /* the owner */
        int c = socket(AF_UNIX, SOCK_STREAM, 0);
        if (setgid(OTHER) < 0 || setuid(OTHER) < 0 || connect(c, (struct sockaddr *)&a, sizeof a))
            _exit(1);
        char b;
        _exit(read(c, &b, 1) == 1 && b == 'k' ? 0 : 2);
    }
    struct pollfd p = {.fd = lfd, .events = POLLIN};
    CHECK(poll(&p, 1, 10000) == 1);
    int c = pty_accept_owner(lfd, OTHER, &err);
    CHECK(c >= 0);
    CHECK(c >= 0 && write(c, "k", 1) == 1);
    int st2;
    CHECK_EQ(waitpid(pid, &st2, 0), pid);
    CHECK(WIFEXITED(st2) && WEXITSTATUS(st2) == 0);
    close(c);
    close(mine);
    close(lfd);
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    TEST_RUN(test_open_owner);
    TEST_RUN(test_shell_through_socket);
    TEST_RUN(test_recv_without_fd);
    TEST_RUN(test_peer_uid);
    TEST_RUN(test_listen_owner);
    TEST_RUN(test_relay);
    TEST_RUN(test_relay_no_status);
    return TEST_DONE();
}
