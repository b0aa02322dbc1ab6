/* Unit tests for web/wpeer: the kernel names the uid holding the other
 * end of a loopback connection (issue 28). As root, the client's socket is
 * also made by a child that became another uid: the kernel's answer is the
 * socket maker's uid, whoever uses it afterwards. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test.h"
#include "web/wpeer.h"

/* A listening socket on 127.0.0.1 (port in *sa). */
static int listener(struct sockaddr_in *sa)
{
    int l = socket(AF_INET, SOCK_STREAM, 0);
    *sa = (struct sockaddr_in){.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof *sa;
    if (l < 0 || bind(l, (struct sockaddr *)sa, sizeof *sa) < 0 || listen(l, 4) < 0 ||
        getsockname(l, (struct sockaddr *)sa, &len) < 0)
        return -1;
    return l;
}

static int dial(const struct sockaddr_in *sa)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd >= 0 && connect(fd, (const struct sockaddr *)sa, sizeof *sa) < 0) {
        close(fd);
        return -1;
    }
    return fd;
}

static void test_own_uid(void)
{
    struct sockaddr_in sa;
    int l = listener(&sa);
    CHECK(l >= 0);
    int cl = dial(&sa);
    int srv = accept(l, NULL, NULL);
    CHECK(cl >= 0 && srv >= 0);
    uid_t uid = 12345;
    struct err e = {""};
    CHECK(wpeer_uid(srv, &uid, &e) == 0);
    CHECK_EQ(uid, geteuid());
    /* Half closed, still held: still its maker's. */
    shutdown(cl, SHUT_WR);
    uid = 12345;
    CHECK(wpeer_uid(srv, &uid, &e) == 0);
    CHECK_EQ(uid, geteuid());
    /* Closed by its process: the kernel would say uid 0 (an orphan, then
     * TIME_WAIT): refused, never taken for root. */
    close(cl);
    usleep(20000);
    uid = 12345;
    CHECK(wpeer_uid(srv, &uid, &e) < 0);
    CHECK_EQ(uid, 12345);
    close(srv);
    close(l);
}

/* A client socket made by uid 65534 is 65534's, though root holds it. */
static void test_other_uid(void)
{
    if (geteuid() != 0) {
        printf("t_wpeer: not root: the other-uid case is tested by tests/integration/web.sh\n");
        return;
    }
    struct sockaddr_in sa;
    int l = listener(&sa);
    int sv[2];
    CHECK(l >= 0 && socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
    pid_t pid = fork();
    if (pid == 0) {
        int fd = setgid(65534) == 0 && setuid(65534) == 0 ? dial(&sa) : -1;
        char ok = fd >= 0;
        if (write(sv[1], &ok, 1) != 1)
            _exit(1);
        char wait_for;
        if (read(sv[1], &wait_for, 1) < 0) /* keep the socket until the parent asked */
            _exit(1);
        _exit(0);
    }
    char ok = 0;
    CHECK(read(sv[0], &ok, 1) == 1 && ok);
    int srv = accept(l, NULL, NULL);
    uid_t uid = 0;
    struct err e = {""};
    CHECK(wpeer_uid(srv, &uid, &e) == 0);
    CHECK_EQ(uid, 65534);
    CHECK(write(sv[0], "x", 1) == 1);
    waitpid(pid, NULL, 0);
    close(srv);
    close(l);
    close(sv[0]);
    close(sv[1]);
}

static void test_not_loopback(void)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(1)};
    struct sockaddr_in b = a;
    inet_pton(AF_INET, "10.0.0.1", &a.sin_addr);
    inet_pton(AF_INET, "127.0.0.1", &b.sin_addr);
    uid_t uid;
    struct err e = {""};
    CHECK(wpeer_lookup(&a, &b, &uid, &e) < 0);
    CHECK_HAS(e.msg, "loopback");
    CHECK(wpeer_loopback(&b.sin_addr) && !wpeer_loopback(&a.sin_addr));
    /* A four-tuple nobody holds. */
    a = b;
    a.sin_port = htons(9);
    b.sin_port = htons(10);
    CHECK(wpeer_lookup(&a, &b, &uid, &e) < 0);
}

int main(void)
{
    TEST_RUN(test_own_uid);
    TEST_RUN(test_other_uid);
    TEST_RUN(test_not_loopback);
    return TEST_DONE();
}
