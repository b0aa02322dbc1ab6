/* Unit tests for web/wconn (the web view's connections: per-user and
 * total bounds, fair eviction, request deadlines) and web/wfront's
 * request-line check (issue 28). */
#include <string.h>

#include "test.h"
#include "web/wconn.h"
#include "web/wfront.h"

#define NOW 1000.0

static struct wconn_table T;

/* n connections of uid; how many were admitted. */
static int open_n(uid_t uid, int n, double now)
{
    static int fd = 100;
    int got = 0;
    for (int i = 0; i < n; i++) {
        struct wconn *gone;
        struct wconn *c = wconn_admit(&T, fd++, uid, now, &gone);
        CHECK(gone == NULL);
        if (c) {
            c->state = WCONN_HTTP;
            got++;
        }
    }
    return got;
}

/* One user holds at most WCONN_PER_UID, before any login; others are not
 * touched by it. */
static void test_per_uid(void)
{
    wconn_init(&T);
    CHECK_EQ(open_n(1000, 300, NOW), WCONN_PER_UID);
    CHECK_EQ(wconn_count(&T, 1000), WCONN_PER_UID);
    CHECK_EQ(open_n(1001, 3, NOW), 3);
    /* A closed one makes room again; one being closed no longer counts. */
    T.v[0].state = WCONN_CLOSING;
    CHECK_EQ(open_n(1000, 2, NOW), 1);
    wconn_release(&T.v[0]);
    CHECK_EQ(wconn_count(&T, 1000), WCONN_PER_UID);
}

/* At WCONN_MAX, a newcomer takes a connection of the user holding the
 * most, only while that user keeps at least as many as the newcomer then
 * has; the slow (waiting) ones go before those being answered. */
static void test_fair_eviction(void)
{
    wconn_init(&T);
    int users = WCONN_MAX / WCONN_PER_UID;
    for (int u = 0; u < users; u++)
        CHECK_EQ(open_n((uid_t)(2000 + u), WCONN_PER_UID, NOW + u), WCONN_PER_UID);
    /* Mark uid 2000's connections answered, but one. */
    struct wconn *waiting = NULL;
    for (size_t i = 0; i < WCONN_SLOTS; i++)
        if (T.v[i].state == WCONN_HTTP && T.v[i].uid == 2000) {
            if (!waiting)
                waiting = &T.v[i];
            else
                wconn_whole(&T.v[i]);
        }
    struct wconn *gone;
    struct wconn *c = wconn_admit(&T, 9, 3000, NOW + 50, &gone);
    CHECK(c != NULL && gone != NULL);
    CHECK(gone && gone->uid == 2000 && gone == waiting); /* ties: the first most; slow first */
    wconn_closing(gone);
    c->state = WCONN_HTTP;
    /* Newcomers keep coming: the table is shared out, never refused while
     * someone holds two more than them. */
    int admitted = 0;
    for (int k = 0; k < 200; k++) {
        c = wconn_admit(&T, 10 + k, 3000, NOW + 60, &gone);
        if (!c)
            break;
        admitted++;
        c->state = WCONN_HTTP;
        if (gone) {
            CHECK(gone->uid != 3000);
            wconn_release(gone);
        }
    }
    /* uid 3000 ends with as many as the others hold, at most its own cap. */
    size_t mine = wconn_count(&T, 3000), least = WCONN_PER_UID;
    for (int u = 0; u < users; u++)
        if (wconn_count(&T, (uid_t)(2000 + u)) < least)
            least = wconn_count(&T, (uid_t)(2000 + u));
    CHECK(mine <= WCONN_PER_UID);
    CHECK(mine >= least && mine <= least + 1);
    CHECK(admitted > 0);
}

/* The table full of one user is not possible (per-uid cap), but a full
 * table of equal shares refuses a user who already has a share. */
static void test_equal_shares_refuse(void)
{
    wconn_init(&T);
    int users = WCONN_MAX / WCONN_PER_UID;
    for (int u = 0; u < users; u++)
        open_n((uid_t)(4000 + u), WCONN_PER_UID, NOW);
    struct wconn *gone;
    CHECK(wconn_admit(&T, 5, 4000, NOW, &gone) == NULL); /* its own cap */
    CHECK(wconn_admit(&T, 5, 4001, NOW, &gone) == NULL);
    CHECK(wconn_admit(&T, 5, 5000, NOW, &gone) != NULL && gone != NULL); /* a newcomer: yes */
}

/* The first request within WCONN_FIRST_SECONDS, the next within
 * WCONN_NEXT_SECONDS of an answer; none while being answered. */
static void test_deadlines(void)
{
    wconn_init(&T);
    struct wconn *gone;
    struct wconn *c = wconn_admit(&T, 7, 1, NOW, &gone);
    CHECK(!wconn_late(c, NOW + WCONN_FIRST_SECONDS - 0.01));
    CHECK(wconn_late(c, NOW + WCONN_FIRST_SECONDS));
    CHECK(wconn_next_deadline(&T) == NOW + WCONN_FIRST_SECONDS);
    c->state = WCONN_HTTP;
    wconn_whole(c);
    CHECK(!wconn_late(c, NOW + 1e6));
    CHECK(wconn_next_deadline(&T) == 0);
    wconn_answered(c, NOW + 100);
    CHECK(!wconn_late(c, NOW + 100 + WCONN_NEXT_SECONDS - 0.01));
    CHECK(wconn_late(c, NOW + 100 + WCONN_NEXT_SECONDS));
    wconn_closing(c);
    CHECK(!wconn_late(c, NOW + 1e6));
    CHECK(wconn_handing(&T, 7) == NULL);
    c->state = WCONN_HANDING;
    CHECK(wconn_handing(&T, 7) == c);
}

static enum wfront_line line(const char *s)
{
    return wfront_line(s, strlen(s));
}

/* Only a request line of HTTP/1 goes on to the HTTP server; garbage and a
 * TLS handshake are known as such from their first bytes. */
static void test_request_line(void)
{
    CHECK(line("GET / HTTP/1.1\r\n") == WFRONT_HTTP);
    CHECK(line("POST /api/run?x=1 HTTP/1.0\n") == WFRONT_HTTP);
    CHECK(line("GET / HTTP/1.1\r\nHost: x\r\n") == WFRONT_HTTP);
    CHECK(line("") == WFRONT_MORE);
    CHECK(line("GE") == WFRONT_MORE);
    CHECK(line("GET /index") == WFRONT_MORE);
    CHECK(line("GET / HTT") == WFRONT_MORE);
    CHECK(line("GET / HTTP/1.1\r") == WFRONT_MORE);
    const char tls[] = {0x16, 0x03, 0x01, 0x02, 0x00, 0x01};
    CHECK(wfront_line(tls, sizeof tls) == WFRONT_BAD);
    CHECK(line("hello") == WFRONT_BAD);
    CHECK(line("get / HTTP/1.1\r\n") == WFRONT_BAD);
    CHECK(line("GET  / HTTP/1.1\r\n") == WFRONT_BAD);
    CHECK(line("GET /\r\n") == WFRONT_BAD); /* HTTP/0.9 */
    CHECK(line("GET / HTTP/2.0\r\n") == WFRONT_BAD);
    CHECK(line("PRI * HTTP/2.0\r\n") == WFRONT_BAD);
    CHECK(line("GET /\x01 HTTP/1.1\r\n") == WFRONT_BAD);
    CHECK(line("GET /\xc3\xa9 HTTP/1.1\r\n") == WFRONT_BAD);
    CHECK(line("GET / HTTP/1.1x\r\n") == WFRONT_BAD);
    CHECK(line("AAAAAAAAAAAAAAAAAAAAAAAAAAA") == WFRONT_BAD); /* no method is that long */
}

int main(void)
{
    TEST_RUN(test_per_uid);
    TEST_RUN(test_fair_eviction);
    TEST_RUN(test_equal_shares_refuse);
    TEST_RUN(test_deadlines);
    TEST_RUN(test_request_line);
    return TEST_DONE();
}
