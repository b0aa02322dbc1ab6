/* t_dconn — the daemon's connections (src/daemon/dconn.c) on a real Unix
 * socket: the per-uid cap, replies written as the client reads them (a
 * client that does not read holds up nothing), a uid's share of answers per
 * pass, group commit, pipelined batches, and the read deadline. All clients are this process's uid.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "daemon/dconn.h"
#include "test.h"
#include "util/mem.h"
#include "wire/wire.h"

static char sock_path[108];

static int listen_tmp(void)
{
    struct err e;
    snprintf(sock_path, sizeof sock_path, "/tmp/t_dconn.%ld.sock", (long)getpid());
    unlink(sock_path);
    int fd = wire_listen(sock_path, &e);
    CHECK(fd >= 0);
    return fd;
}

static int dial(void)
{
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    snprintf(a.sun_path, sizeof a.sun_path, "%s", sock_path);
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    CHECK(fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) == 0);
    return fd;
}

static void send_frame(int fd, const char *text)
{
    struct err e;
    CHECK_EQ(wire_send(fd, text, strlen(text), 1000, &e), 0);
}

/* The answer: "big" gets 4 MB (more than a socket buffer holds), anything
 * else itself back. Counts calls. */
static int answers;
static char *echo(void *ctx, uid_t uid, gid_t gid, const char *req, size_t len)
{
    (void)ctx, (void)uid, (void)gid;
    answers++;
    if (strcmp(req, "big") == 0) {
        char *t = xmalloc(4u << 20);
        memset(t, 'x', (4u << 20) - 1);
        t[(4u << 20) - 1] = '\0';
        return t;
    }
    return xstrndup(req, len);
}

/* One pass of the loop, as serve.c runs it; returns the answers given. */
static size_t pass(struct dconn_set *s, int lfd, long now)
{
    struct pollfd pfd[DCONN_MAX + 1];
    pfd[0] = (struct pollfd){.fd = lfd, .events = POLLIN};
    size_t n = dconn_pollfds(s, pfd + 1);
    poll(pfd, n + 1, 50);
    size_t a = dconn_service(s, pfd + 1, n, now, &(struct dconn_ops){.answer = echo});
    if (pfd[0].revents)
        dconn_accept(s, lfd, now);
    return a;
}

static void test_per_uid_cap(void)
{
    int lfd = listen_tmp();
    struct dconn_set s = {0};
    int fds[DCONN_PER_UID + 5];
    for (int i = 0; i < DCONN_PER_UID + 5; i++)
        fds[i] = dial();
    for (int k = 0; k < 5; k++)
        pass(&s, lfd, 100);
    CHECK_EQ(s.n, DCONN_PER_UID);
    CHECK(s.dropped >= 5);
    for (int i = 0; i < DCONN_PER_UID + 5; i++)
        close(fds[i]);
    for (int k = 0; k < 3; k++)
        pass(&s, lfd, 100);
    CHECK_EQ(s.n, 0); /* closed by their clients: gone */
    dconn_close_all(&s);
    close(lfd);
    unlink(sock_path);
}

static void test_non_reader_holds_nothing(void)
{
    int lfd = listen_tmp();
    struct dconn_set s = {0};
    int slow = dial();
    send_frame(slow, "big"); /* never read */
    answers = 0;
    for (int k = 0; k < 4 && answers < 1; k++)
        pass(&s, lfd, 100);
    CHECK_EQ(answers, 1);
    /* Another client is answered while the 4 MB reply waits to be read. */
    int fast = dial();
    send_frame(fast, "hello");
    char *reply = NULL;
    size_t len = 0;
    struct err e;
    for (int k = 0; k < 6; k++)
        pass(&s, lfd, 101);
    CHECK_EQ(wire_recv(fast, &reply, &len, 1 << 20, 1000, &e), 0);
    CHECK_STR(reply, "hello");
    free(reply);
    close(fast);
    /* Past the write deadline the non-reader is dropped. */
    pass(&s, lfd, 100 + DCONN_WRITE_SECONDS + 1);
    CHECK_EQ(s.n, 0);
    close(slow);
    dconn_close_all(&s);
    close(lfd);
    unlink(sock_path);
}

/* Requests that do not join a group cost DCONN_COST_OTHER: four a pass
 * for a uid, as before pipelining. */
static void test_answers_per_uid_per_pass(void)
{
    int lfd = listen_tmp();
    struct dconn_set s = {0};
    enum { PER = DCONN_ANSWERS_PER_UID / DCONN_COST_OTHER, N = PER + 2 };
    int fds[N];
    for (int i = 0; i < N; i++)
        fds[i] = dial();
    pass(&s, lfd, 100); /* accepted */
    for (int i = 0; i < N; i++)
        send_frame(fds[i], "x");
    usleep(20000);
    answers = 0;
    CHECK_EQ(pass(&s, lfd, 100), PER);
    CHECK_EQ(pass(&s, lfd, 100), 2);
    CHECK_EQ(answers, N);
    for (int i = 0; i < N; i++)
        close(fds[i]);
    dconn_close_all(&s);
    close(lfd);
    unlink(sock_path);
}

/* Group commit: "g..." requests join the group. Their replies are held
 * until settle, which runs once at the end of the pass, or before a request
 * that does not join; a failed settle replaces every held reply. */
static int settles, settle_fails;
static char seen[64];      /* the first letters of the requests answered */
static char at_settle[64]; /* seen, when settle first ran */
static char *echo_seen(void *ctx, uid_t uid, gid_t gid, const char *req, size_t len)
{
    size_t n = strlen(seen);
    if (n + 1 < sizeof seen)
        seen[n] = req[0], seen[n + 1] = '\0';
    return echo(ctx, uid, gid, req, len);
}
static int joins_g(void *ctx, uid_t uid, const char *req, size_t len)
{
    return req[0] == 'g';
}
static int settle_alone;
static char *settle_g(void *ctx, int *alone)
{
    *alone = settle_alone;
    if (++settles == 1)
        memcpy(at_settle, seen, sizeof seen);
    return settle_fails ? xstrdup("failed") : NULL;
}

static size_t gpass(struct dconn_set *s, int lfd, long now)
{
    struct pollfd pfd[DCONN_MAX + 1];
    pfd[0] = (struct pollfd){.fd = lfd, .events = POLLIN};
    size_t n = dconn_pollfds(s, pfd + 1);
    poll(pfd, n + 1, 50);
    if (pfd[0].revents)
        dconn_accept(s, lfd, now);
    return dconn_service(s, pfd + 1, n, now,
                         &(struct dconn_ops){echo_seen, joins_g, settle_g, NULL});
}

static void test_group_held_until_settled(void)
{
    int lfd = listen_tmp();
    struct dconn_set s = {0};
    int fds[3];
    for (int i = 0; i < 3; i++)
        fds[i] = dial();
    gpass(&s, lfd, 100); /* accepted (and tried at once: nothing sent yet) */
    send_frame(fds[0], "g1");
    send_frame(fds[1], "g2");
    send_frame(fds[2], "x");
    usleep(20000);
    settles = 0;
    seen[0] = '\0';
    CHECK_EQ(gpass(&s, lfd, 100), 3);
    /* Before "x" was answered (the two g's held until then), and at the
     * end of the pass. */
    CHECK_EQ(settles, 2);
    CHECK_STR(at_settle, "gg");
    char *reply = NULL;
    size_t len = 0;
    struct err e;
    for (int i = 0; i < 3; i++) {
        CHECK_EQ(wire_recv(fds[i], &reply, &len, 1 << 20, 1000, &e), 0);
        CHECK_STR(reply, i == 0 ? "g1" : i == 1 ? "g2" : "x");
        free(reply);
        close(fds[i]);
    }
    /* A failed group: its replies are the failure; a fresh connection's
     * request is answered in the pass that accepts it. */
    settle_fails = 1;
    int a = dial(), b = dial();
    send_frame(a, "g3");
    send_frame(b, "g4");
    usleep(20000);
    settles = 0;
    CHECK_EQ(gpass(&s, lfd, 100), 2);
    CHECK_EQ(settles, 1);
    CHECK_EQ(wire_recv(a, &reply, &len, 1 << 20, 1000, &e), 0);
    CHECK_STR(reply, "failed");
    free(reply);
    CHECK_EQ(wire_recv(b, &reply, &len, 1 << 20, 1000, &e), 0);
    CHECK_STR(reply, "failed");
    free(reply);
    close(a);
    close(b);
    /* A failed group that may be answered again (settle set alone): each
     * request is answered a second time on its own, and that answer is its
     * reply, not the group's failure. */
    settle_alone = 1;
    a = dial(), b = dial();
    send_frame(a, "g5");
    send_frame(b, "g6");
    usleep(20000);
    seen[0] = '\0';
    CHECK_EQ(gpass(&s, lfd, 100), 2);
    CHECK_STR(seen, "gggg"); /* in the group, then each alone */
    CHECK_EQ(wire_recv(a, &reply, &len, 1 << 20, 1000, &e), 0);
    CHECK_STR(reply, "g5");
    free(reply);
    CHECK_EQ(wire_recv(b, &reply, &len, 1 << 20, 1000, &e), 0);
    CHECK_STR(reply, "g6");
    free(reply);
    settle_fails = settle_alone = 0;
    close(a);
    close(b);
    for (int k = 0; k < 3; k++)
        gpass(&s, lfd, 100);
    CHECK_EQ(s.n, 0);
    dconn_close_all(&s);
    close(lfd);
    unlink(sock_path);
}

static void recv_is(int fd, const char *want)
{
    char *reply = NULL;
    size_t len = 0;
    struct err e;
    CHECK_EQ(wire_recv(fd, &reply, &len, 1 << 20, 1000, &e), 0);
    CHECK_STR(reply ? reply : "(none)", want);
    free(reply);
}

/* Pipelining: one connection's batch of submissions joins one group, its
 * replies come in order and only after the commit; a request that does
 * not join settles the group first and ends the connection's reading for
 * the pass; the connection stays open for more until the client closes
 * it; a failed group answers each of the batch again, in order. */
static void test_pipelined_batch(void)
{
    int lfd = listen_tmp();
    struct dconn_set s = {0};
    int fd = dial();
    gpass(&s, lfd, 100); /* accepted */
    const char *batch[] = {"g1", "g2", "g3", "x4", "g5", "g6"};
    for (int i = 0; i < 6; i++)
        send_frame(fd, batch[i]);
    usleep(20000);
    settles = 0;
    seen[0] = '\0';
    CHECK_EQ(gpass(&s, lfd, 100), 4); /* up to x4: its reply ends the pass's reading */
    CHECK_STR(at_settle, "ggg");      /* settled before x4 was answered */
    CHECK_EQ(settles, 2);
    for (int i = 0; i < 4; i++)
        recv_is(fd, batch[i]);
    settles = 0;
    for (int k = 0; k < 4 && strlen(seen) < 6; k++)
        gpass(&s, lfd, 100);
    CHECK_STR(seen, "gggxgg");
    CHECK_EQ(settles, 1); /* g5 and g6: one group */
    recv_is(fd, "g5");
    recv_is(fd, "g6");
    CHECK_EQ(s.n, 1); /* still open: the client may ask more */
    send_frame(fd, "g7");
    usleep(20000);
    CHECK_EQ(gpass(&s, lfd, 101), 1);
    recv_is(fd, "g7");
    /* More than a uid's answers a pass: the rest waits for the next. */
    enum { MANY = DCONN_ANSWERS_PER_UID + 3 };
    for (int i = 0; i < MANY; i++)
        send_frame(fd, "g");
    usleep(20000);
    settles = 0;
    CHECK_EQ(gpass(&s, lfd, 102), DCONN_ANSWERS_PER_UID);
    CHECK_EQ(settles, 1);
    for (int i = 0; i < DCONN_ANSWERS_PER_UID; i++)
        recv_is(fd, "g");
    CHECK_EQ(gpass(&s, lfd, 102), 3);
    for (int i = 0; i < 3; i++)
        recv_is(fd, "g");
    /* A failed group answered again alone: each of the batch, in order. */
    settle_fails = settle_alone = 1;
    send_frame(fd, "ga");
    send_frame(fd, "gb");
    usleep(20000);
    seen[0] = '\0';
    CHECK_EQ(gpass(&s, lfd, 103), 2);
    CHECK_STR(seen, "gggg");
    recv_is(fd, "ga");
    recv_is(fd, "gb");
    /* ... or each gets the group's failure. */
    settle_alone = 0;
    send_frame(fd, "gc");
    send_frame(fd, "gd");
    usleep(20000);
    CHECK_EQ(gpass(&s, lfd, 103), 2);
    recv_is(fd, "failed");
    recv_is(fd, "failed");
    settle_fails = 0;
    /* A batch sent and then the write side shut: all answered, then closed. */
    send_frame(fd, "g8");
    send_frame(fd, "g9");
    shutdown(fd, SHUT_WR);
    usleep(20000);
    CHECK_EQ(gpass(&s, lfd, 104), 2);
    recv_is(fd, "g8");
    recv_is(fd, "g9");
    char b;
    CHECK_EQ(recv(fd, &b, 1, 0), 0); /* closed by the daemon */
    CHECK_EQ(s.n, 0);
    close(fd);
    /* An idle kept connection goes at the read deadline, not as a drop. */
    fd = dial();
    gpass(&s, lfd, 200);
    send_frame(fd, "g");
    usleep(20000);
    CHECK_EQ(gpass(&s, lfd, 200), 1);
    recv_is(fd, "g");
    size_t dropped = s.dropped;
    gpass(&s, lfd, 200 + DCONN_READ_SECONDS);
    CHECK_EQ(s.n, 0);
    CHECK_EQ(s.dropped, dropped);
    close(fd);
    dconn_close_all(&s);
    close(lfd);
    unlink(sock_path);
}

static void test_read_deadline(void)
{
    int lfd = listen_tmp();
    struct dconn_set s = {0};
    int fd = dial();
    pass(&s, lfd, 100);
    CHECK_EQ(s.n, 1);
    pass(&s, lfd, 100 + DCONN_READ_SECONDS - 1);
    CHECK_EQ(s.n, 1);
    pass(&s, lfd, 100 + DCONN_READ_SECONDS);
    CHECK_EQ(s.n, 0); /* sent nothing in time */
    close(fd);
    dconn_close_all(&s);
    close(lfd);
    unlink(sock_path);
}

int main(void)
{
    TEST_RUN(test_per_uid_cap);
    TEST_RUN(test_non_reader_holds_nothing);
    TEST_RUN(test_answers_per_uid_per_pass);
    TEST_RUN(test_group_held_until_settled);
    TEST_RUN(test_pipelined_batch);
    TEST_RUN(test_read_deadline);
    return TEST_DONE();
}
