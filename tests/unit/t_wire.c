/*
 * t_wire — the client/daemon protocol: frames through a socket pair (small,
 * empty, a megabyte that grows the reader's buffer, one split into many
 * writes), an oversized announcement refused, a connection closed
 * mid-frame, and listen/connect/peer on a real socket path (a live socket
 * is not taken over, a stale one is replaced, no daemon is a clear error),
 * and every call bounded in time (connect, send, receive).
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "test.h"
#include "wire/wire.h"

/* Read one frame from fd with the incremental reader; its body (caller
 * frees) or NULL with e set. */
static char *read_frame(int fd, size_t max, size_t *len, struct err *e)
{
    struct wire_reader r = {.max = max};
    fcntl(fd, F_SETFL, O_NONBLOCK);
    int rc;
    while ((rc = wire_reader_step(&r, fd, e)) == 0)
        usleep(1000);
    if (rc < 0) {
        wire_reader_reset(&r);
        return NULL;
    }
    char *body = r.body;
    *len = r.need;
    r.body = NULL;
    return body;
}

static void test_frames(void)
{
    int sv[2];
    CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    struct err e;
    size_t len;
    CHECK_EQ(wire_send(sv[0], "{\"cmd\":\"showq\"}", 15, 1000, &e), 0);
    char *b = read_frame(sv[1], 1 << 20, &len, &e);
    CHECK(b && len == 15 && strcmp(b, "{\"cmd\":\"showq\"}") == 0);
    free(b);
    CHECK_EQ(wire_send(sv[0], "", 0, 1000, &e), 0);
    b = read_frame(sv[1], 1 << 20, &len, &e);
    CHECK(b && len == 0 && b[0] == '\0');
    free(b);
    /* A megabyte: the reader grows its buffer as the bytes come. */
    size_t big = 1 << 20;
    char *data = malloc(big);
    for (size_t i = 0; i < big; i++)
        data[i] = (char)('a' + i % 26);
    if (fork() == 0) {
        wire_send(sv[0], data, big, 5000, &e);
        _exit(0);
    }
    b = read_frame(sv[1], 4 << 20, &len, &e);
    CHECK(b && len == big && memcmp(b, data, big) == 0);
    wait(NULL);
    free(b);
    free(data);
    close(sv[0]);
    close(sv[1]);
}

static void test_hostile(void)
{
    int sv[2];
    struct err e;
    size_t len;
    CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    unsigned char huge[4] = {0x40, 0, 0, 0}; /* 1 GiB announced */
    CHECK_EQ(write(sv[0], huge, 4), 4);
    CHECK(read_frame(sv[1], 4 << 20, &len, &e) == NULL);
    CHECK_HAS(e.msg, "over the limit");
    close(sv[0]);
    close(sv[1]);
    CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    unsigned char part[7] = {0, 0, 0, 100, '{', '"', 'c'};
    CHECK_EQ(write(sv[0], part, 7), 7);
    close(sv[0]);
    CHECK(read_frame(sv[1], 4 << 20, &len, &e) == NULL);
    CHECK_HAS(e.msg, "closed before a whole message");
    close(sv[1]);
    /* wire_recv gives up after its timeout. */
    CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    char *buf;
    CHECK_EQ(wire_recv(sv[1], &buf, &len, 1024, 100, &e), WIRE_TIMEOUT);
    CHECK_HAS(e.msg, "no answer within 100 ms");
    /* ... and wire_send when the peer reads nothing (a stopped daemon): a
     * megabyte does not fit in the socket's buffer. */
    size_t big = 1 << 20;
    char *data = calloc(1, big);
    long t0 = (long)time(NULL);
    CHECK_EQ(wire_send(sv[0], data, big, 200, &e), WIRE_TIMEOUT);
    CHECK_HAS(e.msg, "took no more of the message within 200 ms");
    CHECK((long)time(NULL) - t0 < 3);
    free(data);
    close(sv[0]);
    close(sv[1]);
}

/* A daemon that takes no connection (stopped, its queue of connections
 * full): wire_connect gives up after its timeout instead of waiting for
 * ever (issue 28: a SIGSTOPped daemon held clients 120 s). */
static void test_connect_timeout(void)
{
    char dir[] = "/tmp/t_wire.XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[64];
    snprintf(path, sizeof path, "%s/s", dir);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
    int l = socket(AF_UNIX, SOCK_STREAM, 0);
    CHECK(l >= 0 && bind(l, (struct sockaddr *)&a, sizeof a) == 0 && listen(l, 0) == 0);
    struct err e;
    int c[4], n = 0, rc = 0;
    long t0 = (long)time(NULL);
    /* The queue takes one or two (the kernel's count is "more than the
     * backlog"); then connect must wait, and time out. */
    while (n < 4 && (rc = wire_connect(path, 200, &e)) >= 0)
        c[n++] = rc;
    CHECK_EQ(rc, WIRE_TIMEOUT);
    CHECK_HAS(e.msg, "took no connection within 200 ms");
    CHECK(n >= 1 && n < 4);
    CHECK((long)time(NULL) - t0 < 3);
    /* wire_listen does not take the socket of a daemon that is stopped. */
    CHECK_EQ(wire_listen(path, &e), -1);
    CHECK_HAS(e.msg, "already running");
    while (n > 0)
        close(c[--n]);
    close(l);
    unlink(path);
    rmdir(dir);
}

static void test_socket_path(void)
{
    char dir[] = "/tmp/t_wire.XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[256];
    snprintf(path, sizeof path, "%s/moku.sock", dir);
    struct err e;
    CHECK_EQ(wire_connect(path, 1000, &e), -1);
    CHECK_HAS(e.msg, "no moku daemon is running");
    int l = wire_listen(path, &e);
    CHECK(l >= 0);
    CHECK_EQ(wire_listen(path, &e), -1); /* a live one is not taken over */
    CHECK_HAS(e.msg, "already running");
    int c = wire_connect(path, 1000, &e);
    CHECK(c >= 0);
    int a = -1;
    for (int i = 0; i < 100 && a < 0; i++, usleep(1000))
        a = accept(l, NULL, NULL);
    CHECK(a >= 0);
    uid_t uid;
    gid_t gid;
    pid_t pid;
    CHECK_EQ(wire_peer(a, &uid, &gid, &pid, &e), 0);
    CHECK_EQ(uid, getuid());
    CHECK_EQ(pid, getpid());
    close(a);
    close(c);
    close(l); /* the socket file stays: stale */
    l = wire_listen(path, &e);
    CHECK(l >= 0); /* a stale one is replaced */
    close(l);
    unlink(path);
    char longpath[300];
    memset(longpath, 'x', sizeof longpath - 1);
    longpath[sizeof longpath - 1] = '\0';
    CHECK_EQ(wire_connect(longpath, 1000, &e), -1);
    CHECK_HAS(e.msg, "too long");
    rmdir(dir);
}

int main(void)
{
    TEST_RUN(test_frames);
    TEST_RUN(test_hostile);
    TEST_RUN(test_connect_timeout);
    TEST_RUN(test_socket_path);
    return TEST_DONE();
}
