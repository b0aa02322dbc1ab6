/* Unit tests for web/wsess: login tokens and sessions of the web view. */
#include <string.h>

#include "test.h"
#include "web/wsess.h"

#define T0 1700000000L

static void test_token_once(void)
{
    struct wsess_table *t = wsess_create();
    char tok[WSESS_ID_LEN + 1];
    struct wsess s, again;
    CHECK(wsess_token(t, 1000, 100, T0, tok, NULL) == 0);
    CHECK_EQ(strlen(tok), WSESS_ID_LEN);
    CHECK(wsess_login(t, tok, 1000, T0 + 1, &s, NULL) == 1);
    CHECK_EQ(s.uid, 1000);
    CHECK_EQ(s.gid, 100);
    CHECK(strcmp(s.id, tok) != 0 && strcmp(s.csrf, s.id) != 0);
    CHECK(wsess_login(t, tok, 1000, T0 + 2, &again, NULL) == 0); /* once */
    CHECK(wsess_find(t, s.id, 1000, T0 + 3, &again) == 1);
    CHECK_EQ(again.uid, 1000);
    CHECK_STR(again.csrf, s.csrf);
    /* A token is not a session, nor a session a token. */
    CHECK(wsess_find(t, tok, 1000, T0 + 3, &again) == 0);
    CHECK(wsess_login(t, s.id, 1000, T0 + 3, &again, NULL) == 0);
    wsess_destroy(t);
}

static void test_expiry(void)
{
    struct wsess_table *t = wsess_create();
    char tok[WSESS_ID_LEN + 1];
    struct wsess s, f;
    wsess_token(t, 1, 1, T0, tok, NULL);
    CHECK(wsess_login(t, tok, 1, T0 + WSESS_TOKEN_SECONDS, &s, NULL) == 0); /* too late */
    wsess_token(t, 1, 1, T0, tok, NULL);
    CHECK(wsess_login(t, tok, 1, T0 + WSESS_TOKEN_SECONDS - 1, &s, NULL) == 1);
    long t1 = T0 + WSESS_TOKEN_SECONDS - 1;
    /* Idle: each use moves the end on, up to the hard end. */
    CHECK(wsess_find(t, s.id, 1, t1 + WSESS_IDLE_SECONDS - 1, &f) == 1);
    long last = t1 + WSESS_IDLE_SECONDS - 1;
    while (last + WSESS_IDLE_SECONDS - 1 < t1 + WSESS_MAX_SECONDS) {
        last += WSESS_IDLE_SECONDS - 1;
        CHECK(wsess_find(t, s.id, 1, last, &f) == 1);
    }
    CHECK(wsess_find(t, s.id, 1, t1 + WSESS_MAX_SECONDS, &f) == 0); /* the hard end */
    /* And idle too long. */
    wsess_token(t, 2, 2, T0, tok, NULL);
    CHECK(wsess_login(t, tok, 2, T0, &s, NULL) == 1);
    CHECK(wsess_find(t, s.id, 2, T0 + WSESS_IDLE_SECONDS, &f) == 0);
    CHECK(wsess_find(t, s.id, 2, T0 + 1, &f) == 0); /* gone for good */
    wsess_destroy(t);
}

static void test_logout(void)
{
    struct wsess_table *t = wsess_create();
    char tok[WSESS_ID_LEN + 1];
    struct wsess s, f;
    wsess_token(t, 5, 5, T0, tok, NULL);
    CHECK(wsess_login(t, tok, 5, T0, &s, NULL) == 1);
    CHECK(wsess_logout(t, s.id) == 1);
    CHECK(wsess_find(t, s.id, 5, T0, &f) == 0);
    CHECK(wsess_logout(t, s.id) == 0);
    CHECK(wsess_logout(t, "nonsense") == 0);
    wsess_destroy(t);
}

/* One user's tokens and sessions cannot push out another's. */
static void test_per_uid_cap(void)
{
    struct wsess_table *t = wsess_create();
    char tok[WSESS_ID_LEN + 1];
    struct wsess victim, s, f;
    wsess_token(t, 7, 7, T0, tok, NULL);
    CHECK(wsess_login(t, tok, 7, T0, &victim, NULL) == 1);
    char first[WSESS_ID_LEN + 1];
    wsess_token(t, 9, 9, T0 + 1, first, NULL);
    for (int i = 0; i < 3 * WSESS_MAX; i++)
        CHECK(wsess_token(t, 9, 9, T0 + 2 + i / 100, tok, NULL) == 0);
    CHECK(wsess_count(t, T0 + 100) <= WSESS_PER_UID + 1);
    CHECK(wsess_find(t, victim.id, 7, T0 + 100, &f) == 1);
    CHECK(wsess_login(t, first, 9, T0 + 100, &s, NULL) == 0); /* the oldest of uid 9 went */
    CHECK(wsess_login(t, tok, 9, T0 + 100, &s, NULL) == 1);   /* the newest is good */
    wsess_destroy(t);
}

/* A full table drops its oldest entry. */
static void test_table_full(void)
{
    struct wsess_table *t = wsess_create();
    char tok[WSESS_ID_LEN + 1], first[WSESS_ID_LEN + 1];
    wsess_token(t, 0, 0, T0, first, NULL);
    for (uid_t u = 1; u <= WSESS_MAX; u++)
        CHECK(wsess_token(t, u, u, T0 + 1, tok, NULL) == 0);
    CHECK_EQ(wsess_count(t, T0 + 2), WSESS_MAX);
    struct wsess s;
    CHECK(wsess_login(t, first, 0, T0 + 2, &s, NULL) == 0);
    CHECK(wsess_login(t, tok, WSESS_MAX, T0 + 2, &s, NULL) == 1);
    wsess_destroy(t);
}

/* A token and a session are good only on a connection of their own uid
 * (issue 28: a cookie read by another user's local server). The owner's
 * use still works afterwards; a thief neither uses nor spoils them. */
static void test_bound_to_uid(void)
{
    struct wsess_table *t = wsess_create();
    char tok[WSESS_ID_LEN + 1];
    struct wsess s, f;
    wsess_token(t, 1000, 100, T0, tok, NULL);
    CHECK(wsess_login(t, tok, 1001, T0, &s, NULL) == WSESS_OTHER_UID);
    CHECK_EQ(s.uid, 1000);
    CHECK(s.id[0] == '\0' && s.csrf[0] == '\0');
    CHECK(wsess_login(t, tok, 0, T0, &s, NULL) == WSESS_OTHER_UID); /* root's connection too */
    CHECK(wsess_login(t, tok, 1000, T0 + 1, &s, NULL) == WSESS_OK); /* still good for its own */
    struct wsess mine = s;
    CHECK(wsess_find(t, mine.id, 1001, T0 + 2, &f) == WSESS_OTHER_UID);
    CHECK_EQ(f.uid, 1000);
    CHECK(f.csrf[0] == '\0'); /* the CSRF token is not handed out */
    CHECK(wsess_find(t, mine.id, 1000, T0 + 3, &f) == WSESS_OK);
    CHECK_STR(f.csrf, mine.csrf);
    /* A thief's use does not keep the session alive. */
    for (long k = 1; k < 10; k++)
        wsess_find(t, mine.id, 1001, T0 + 3 + k * (WSESS_IDLE_SECONDS / 10), &f);
    CHECK(wsess_find(t, mine.id, 1000, T0 + 3 + WSESS_IDLE_SECONDS, &f) == WSESS_NONE);
    wsess_destroy(t);
}

static void test_same(void)
{
    char a[WSESS_ID_LEN + 1], b[WSESS_ID_LEN + 1];
    memset(a, 'a', WSESS_ID_LEN);
    a[WSESS_ID_LEN] = '\0';
    memcpy(b, a, sizeof a);
    CHECK(wsess_same(a, b));
    b[WSESS_ID_LEN - 1] = 'b';
    CHECK(!wsess_same(a, b));
    CHECK(!wsess_same(a, NULL));
    CHECK(!wsess_same(NULL, NULL));
    CHECK(!wsess_same("", ""));
    CHECK(!wsess_same("abc", "abc")); /* only whole tokens */
    wsess_destroy(NULL);
}

int main(void)
{
    TEST_RUN(test_token_once);
    TEST_RUN(test_expiry);
    TEST_RUN(test_logout);
    TEST_RUN(test_per_uid_cap);
    TEST_RUN(test_table_full);
    TEST_RUN(test_bound_to_uid);
    TEST_RUN(test_same);
    return TEST_DONE();
}
