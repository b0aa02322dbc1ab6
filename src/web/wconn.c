/* wconn — see wconn.h. A flat array scanned whole: WCONN_SLOTS entries
 * per new connection is a few microseconds, far below the accept itself. */
#include "web/wconn.h"

#include <stdlib.h>
#include <string.h>

void wconn_init(struct wconn_table *t)
{
    memset(t, 0, sizeof *t);
    for (size_t i = 0; i < WCONN_SLOTS; i++)
        t->v[i].fd = -1;
}

static int counted(const struct wconn *c)
{
    return c->state != WCONN_FREE && c->state != WCONN_CLOSING;
}

size_t wconn_count(const struct wconn_table *t, uid_t uid)
{
    size_t n = 0;
    for (size_t i = 0; i < WCONN_SLOTS; i++)
        n += counted(&t->v[i]) && t->v[i].uid == uid;
    return n;
}

static size_t total(const struct wconn_table *t)
{
    size_t n = 0;
    for (size_t i = 0; i < WCONN_SLOTS; i++)
        n += counted(&t->v[i]);
    return n;
}

/* Whether a is a better connection to evict than b: one waiting for its
 * request (slow or idle) before one being answered, then the oldest. */
static int evict_before(const struct wconn *a, const struct wconn *b)
{
    if (!b)
        return 1;
    if ((a->deadline > 0) != (b->deadline > 0))
        return a->deadline > 0;
    return a->opened < b->opened;
}

static int by_uid(const void *a, const void *b)
{
    uid_t x = *(const uid_t *)a, y = *(const uid_t *)b;
    return x < y ? -1 : x > y;
}

/* The user holding the most counted connections (*n of them). */
static uid_t most_held(const struct wconn_table *t, size_t *n)
{
    uid_t uids[WCONN_SLOTS];
    size_t k = 0;
    for (size_t i = 0; i < WCONN_SLOTS; i++)
        if (counted(&t->v[i]))
            uids[k++] = t->v[i].uid;
    qsort(uids, k, sizeof uids[0], by_uid); /* runs of one uid: counted in one pass */
    uid_t most = 0;
    *n = 0;
    for (size_t i = 0, run = 0; i < k; i++) {
        run = i > 0 && uids[i] == uids[i - 1] ? run + 1 : 1;
        if (run > *n) {
            *n = run;
            most = uids[i];
        }
    }
    return most;
}

/* The connection to close for a newcomer of uid: one of the user holding
 * the most, if that user would still hold at least as many as uid then. */
static struct wconn *victim(struct wconn_table *t, uid_t uid)
{
    size_t nmost;
    uid_t most = most_held(t, &nmost);
    if (most == uid || nmost < wconn_count(t, uid) + 2)
        return NULL;
    struct wconn *best = NULL;
    for (size_t i = 0; i < WCONN_SLOTS; i++)
        if (counted(&t->v[i]) && t->v[i].uid == most && evict_before(&t->v[i], best))
            best = &t->v[i];
    return best;
}

struct wconn *wconn_admit(struct wconn_table *t, int fd, uid_t uid, double now,
                          struct wconn **evict)
{
    *evict = NULL;
    if (wconn_count(t, uid) >= WCONN_PER_UID)
        return NULL;
    struct wconn *gone = NULL;
    if (total(t) >= WCONN_MAX && !(gone = victim(t, uid)))
        return NULL;
    struct wconn *slot = NULL;
    for (size_t i = 0; i < WCONN_SLOTS && !slot; i++)
        if (t->v[i].state == WCONN_FREE)
            slot = &t->v[i];
    if (!slot)
        return NULL; /* every spare slot closing: the server has yet to close them */
    *evict = gone;
    *slot = (struct wconn){.state = WCONN_FRONT,
                           .fd = fd,
                           .uid = uid,
                           .opened = now,
                           .deadline = now + WCONN_FIRST_SECONDS};
    return slot;
}

void wconn_closing(struct wconn *c)
{
    c->state = WCONN_CLOSING;
    c->deadline = 0;
}

void wconn_release(struct wconn *c)
{
    *c = (struct wconn){.state = WCONN_FREE, .fd = -1};
}

struct wconn *wconn_handing(struct wconn_table *t, int fd)
{
    for (size_t i = 0; i < WCONN_SLOTS; i++)
        if (t->v[i].state == WCONN_HANDING && t->v[i].fd == fd)
            return &t->v[i];
    return NULL;
}

void wconn_whole(struct wconn *c)
{
    c->deadline = 0;
}

void wconn_answered(struct wconn *c, double now)
{
    if (c->state == WCONN_HTTP)
        c->deadline = now + WCONN_NEXT_SECONDS;
}

int wconn_late(const struct wconn *c, double now)
{
    return counted(c) && c->deadline > 0 && now >= c->deadline;
}

double wconn_next_deadline(const struct wconn_table *t)
{
    double next = 0;
    for (size_t i = 0; i < WCONN_SLOTS; i++) {
        const struct wconn *c = &t->v[i];
        if (counted(c) && c->deadline > 0 && (next == 0 || c->deadline < next))
            next = c->deadline;
    }
    return next;
}
