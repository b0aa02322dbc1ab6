/* wsess — see wsess.h. A flat array: at most WSESS_MAX entries, each
 * lookup a scan. A thousand 64-byte compares is a few microseconds, far
 * below one HTTP request's cost, and keeps expiry and eviction simple. */
#include "web/wsess.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "util/mem.h"

enum wsess_kind { WS_FREE, WS_TOKEN, WS_SESSION };

struct entry {
    enum wsess_kind kind;
    struct wsess s; /* a token keeps its secret in s.id */
    long expires;   /* a token's end; a session's hard end (login + WSESS_MAX_SECONDS) */
};

struct wsess_table {
    struct entry v[WSESS_MAX];
};

struct wsess_table *wsess_create(void)
{
    return xcalloc(1, sizeof(struct wsess_table));
}

void wsess_destroy(struct wsess_table *t)
{
    if (t)
        explicit_bzero(t, sizeof *t); /* no secrets left in freed memory */
    free(t);
}

int wsess_same(const char *a, const char *b)
{
    if (!a || !b)
        return 0;
    size_t na = strlen(a), nb = strlen(b);
    if (na != WSESS_ID_LEN || nb != WSESS_ID_LEN)
        return 0;
    unsigned char diff = 0;
    for (size_t i = 0; i < WSESS_ID_LEN; i++)
        diff |= (unsigned char)(a[i] ^ b[i]);
    return diff == 0;
}

static int random_hex(char out[WSESS_ID_LEN + 1], struct err *err)
{
    unsigned char raw[WSESS_ID_LEN / 2];
    size_t got = 0;
    while (got < sizeof raw) {
        ssize_t n = getrandom(raw + got, sizeof raw - got, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return err_set(err, "getrandom: %s", strerror(errno));
        got += (size_t)n;
    }
    static const char hex[] = "0123456789abcdef";
    for (size_t i = 0; i < sizeof raw; i++) {
        out[2 * i] = hex[raw[i] >> 4];
        out[2 * i + 1] = hex[raw[i] & 15];
    }
    out[WSESS_ID_LEN] = '\0';
    explicit_bzero(raw, sizeof raw);
    return 0;
}

static int live(const struct entry *e, long now)
{
    if (e->kind == WS_TOKEN)
        return now < e->expires;
    if (e->kind == WS_SESSION)
        return now < e->expires && now < e->s.used + WSESS_IDLE_SECONDS;
    return 0;
}

static void drop(struct entry *e)
{
    explicit_bzero(e, sizeof *e); /* kind WS_FREE */
}

static void expire(struct wsess_table *t, long now)
{
    for (size_t i = 0; i < WSESS_MAX; i++)
        if (t->v[i].kind != WS_FREE && !live(&t->v[i], now))
            drop(&t->v[i]);
}

/* A free entry for uid: past WSESS_PER_UID of uid's own, its oldest goes;
 * when the table is full, the oldest of all. */
static struct entry *slot_for(struct wsess_table *t, uid_t uid, long now)
{
    expire(t, now);
    struct entry *free_e = NULL, *oldest_mine = NULL, *oldest = NULL;
    size_t mine = 0;
    for (size_t i = 0; i < WSESS_MAX; i++) {
        struct entry *e = &t->v[i];
        if (e->kind == WS_FREE) {
            if (!free_e)
                free_e = e;
            continue;
        }
        if (!oldest || e->s.created < oldest->s.created)
            oldest = e;
        if (e->s.uid == uid) {
            mine++;
            if (!oldest_mine || e->s.created < oldest_mine->s.created)
                oldest_mine = e;
        }
    }
    struct entry *e = mine >= WSESS_PER_UID ? oldest_mine : free_e ? free_e : oldest;
    drop(e);
    return e;
}

int wsess_token(struct wsess_table *t, uid_t uid, gid_t gid, long now, char token[WSESS_ID_LEN + 1],
                struct err *err)
{
    char id[WSESS_ID_LEN + 1];
    if (random_hex(id, err) < 0)
        return -1;
    struct entry *e = slot_for(t, uid, now);
    *e = (struct entry){.kind = WS_TOKEN,
                        .s = {.uid = uid, .gid = gid, .created = now, .used = now},
                        .expires = now + WSESS_TOKEN_SECONDS};
    memcpy(e->s.id, id, sizeof id);
    memcpy(token, id, sizeof id);
    explicit_bzero(id, sizeof id);
    return 0;
}

static struct entry *find(struct wsess_table *t, enum wsess_kind kind, const char *id, long now)
{
    struct entry *hit = NULL;
    /* Every entry compared, hit or not: the time says nothing of where. */
    for (size_t i = 0; i < WSESS_MAX; i++) {
        struct entry *e = &t->v[i];
        if (e->kind == kind && wsess_same(e->s.id, id) && !hit)
            hit = e;
    }
    if (hit && !live(hit, now)) {
        drop(hit);
        hit = NULL;
    }
    return hit;
}

/* The owner of e alone, for a caller who is not it. */
static int other_uid(const struct entry *e, struct wsess *out)
{
    *out = (struct wsess){.uid = e->s.uid};
    return WSESS_OTHER_UID;
}

int wsess_login(struct wsess_table *t, const char *token, uid_t uid, long now, struct wsess *out,
                struct err *err)
{
    struct entry *tok = find(t, WS_TOKEN, token, now);
    if (!tok)
        return WSESS_NONE;
    if (tok->s.uid != uid)
        return other_uid(tok, out); /* not used up: a thief cannot spoil it either */
    struct wsess s = {.uid = tok->s.uid, .gid = tok->s.gid, .created = now, .used = now};
    if (random_hex(s.id, err) < 0 || random_hex(s.csrf, err) < 0)
        return -1;
    drop(tok); /* once */
    struct entry *e = slot_for(t, s.uid, now);
    *e = (struct entry){.kind = WS_SESSION, .s = s, .expires = now + WSESS_MAX_SECONDS};
    *out = s;
    explicit_bzero(&s, sizeof s);
    return WSESS_OK;
}

int wsess_find(struct wsess_table *t, const char *id, uid_t uid, long now, struct wsess *out)
{
    struct entry *e = find(t, WS_SESSION, id, now);
    if (!e)
        return WSESS_NONE;
    if (e->s.uid != uid)
        return other_uid(e, out);
    e->s.used = now;
    *out = e->s;
    return WSESS_OK;
}

int wsess_logout(struct wsess_table *t, const char *id)
{
    struct entry *e = find(t, WS_SESSION, id, 0);
    if (!e)
        return 0;
    drop(e);
    return 1;
}

size_t wsess_count(struct wsess_table *t, long now)
{
    expire(t, now);
    size_t n = 0;
    for (size_t i = 0; i < WSESS_MAX; i++)
        n += t->v[i].kind != WS_FREE;
    return n;
}
