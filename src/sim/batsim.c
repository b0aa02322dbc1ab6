/* batsim — see batsim.h. */
#include "sim/batsim.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/cred.h"
#include "sim/report.h"
#include "util/mem.h"
#include "util/obuf.h"

/* For a span's few steps: GCC kept them out of line, each span paying a
 * call and its registers' saves. */
#define ALWAYS_INLINE __attribute__((always_inline))

/* A slot's nodes, first .. last. */
struct span {
    unsigned first, last;
};

static int cmp_span(const void *a, const void *b)
{
    unsigned x = ((const struct span *)a)->first, y = ((const struct span *)b)->first;
    return (x > y) - (x < y);
}

/* A metadata field made before, by the names it was made from (interned:
 * equal pointers, equal text; kept while the workload and the engine
 * are). at SIZE_MAX: an empty place of the table. */
struct field_memo {
    const char *names[CRED_NKINDS];
    size_t at, len; /* in the fields' text */
};

/* A time's digits but its last four, by its ten-thousands (NO_HI:
 * none, the time below 10^4 or none yet; no time's ten-thousands, as
 * times are below 2^63). */
#define NO_HI UINT64_MAX
struct time_memo {
    uint64_t hi;
    size_t len;
    char text[OBUF_LL_ROOM];
};

/* The bytes a row copies of the processors and requested time's text
 * (at most 21 + 1 + 13: WL_MAX_TIME). */
#define PW_COPY 48

/* What the rows share, so that a row allocates nothing: the file, the
 * next row, the spans' scratch, and the last metadata field written with
 * the names it was made from (interned: equal pointers, equal text). */
struct batsim {
    struct obuf *f;
    const struct workload *wl;
    int run;
    size_t next; /* the first job whose row is not written */
    struct span *v;
    size_t cap;
    struct obuf *m;                 /* the metadata, built */
    struct obuf *q;                 /* and as a CSV field */
    const char *names[CRED_NKINDS]; /* the names the field holds */
    int have;                       /* q holds a field */
    const char *field;              /* the field's bytes, in ftext */
    size_t flen;
    /* Every field made so far, by its names (open addressing, a power
     * of two places, at most half taken), their text one after another:
     * users' jobs interleave, and the names change every fifth row or so
     * (HPC2N), among a few hundred sets of them. */
    struct field_memo *memos;
    size_t nmemos, memo_cap;
    char *ftext;
    size_t ftext_len, ftext_cap;
    struct report_creds rc; /* the rows' credentials */
    /* The field's key when the job it was made for was forgotten by the
     * engine: its raw credential indices and its trace names. */
    int memo;
    unsigned short memo_raw[CRED_NKINDS];
    const struct wl_names *memo_nm;
    /* The last row's numeric id and its digits (id_len 0: none yet): the
     * next id is its successor most of the time, its last digit moved on. */
    uint64_t id;
    size_t id_len;
    char id_text[OBUF_LL_ROOM + 8];
    /* The last processors and requested time and their digits, "P,W"
     * (procs LLONG_MIN: none yet): a user asks for the same job after
     * job (the pair repeats six rows in ten on HPC2N). */
    long long procs;
    long wall;
    size_t pw_len;
    char pw_text[PW_COPY + 2 * OBUF_LL_ROOM];
    /* The digits above the last four of the last submit, start (of a
     * job that waited) and end times (time_at): the submit times climb,
     * the starts and ends stay near each other. */
    struct time_memo sub_memo, end_memo, start_memo;
    /* Each node index's digits made once (node_at): Curie's rows hold
     * five or six spans of five-digit indices each. */
    uint64_t *node_text;
    size_t node_cap;
};

/* Whether o's credentials are its raw indices alone: ended, forgotten by
 * the engine, none past SIM_CRED_WIDE (report_job_creds looks them up
 * from those). */
static int by_raw_indices(const struct sched *s, const struct sim_outcome *o)
{
    if (!s || o->end < 0 || sim_outcome_job(s, o))
        return 0;
    for (int k = 0; k < CRED_NKINDS; k++)
        if (o->cred[k] == SIM_CRED_WIDE)
            return 0;
    return 1;
}

/* The room one span of an interval set takes: " first-last". */
#define SPAN_ROOM (2 + 2 * OBUF_LL_ROOM)

/* The span that starts at v[*i] with those touching or overlapping it
 * (v sorted by first): its last node; *i moves past them. */
static unsigned merged(const struct span *v, size_t n, size_t *i)
{
    unsigned last = v[*i].last;
    size_t e = *i + 1;
    for (; e < n && v[e].first <= last + 1; e++)
        last = v[e].last > last ? v[e].last : last;
    *i = e;
    return last;
}

/* Node indices below this have their text kept (at most 7 digits, their
 * count in the word's top byte; a table of at most 8 MB). */
#define NODE_KEPT (1u << 20)

/* Node i's digits at p (OBUF_LL_ROOM bytes of room), made and kept in
 * r->node_text when i is below NODE_KEPT; returns the end. Out of line:
 * once per node. */
static __attribute__((noinline)) char *node_make(struct batsim *r, char *p, unsigned i)
{
    char *e = obuf_fmt_ull(p, i);
#ifdef OBUF_WORDS
    if (i < NODE_KEPT) {
        if (i >= r->node_cap) {
            size_t old = r->node_cap;
            r->node_text = xgrow(r->node_text, &r->node_cap, (size_t)i + 1, sizeof *r->node_text);
            memset(r->node_text + old, 0, (r->node_cap - old) * sizeof *r->node_text);
        }
        uint64_t t = 0;
        memcpy(&t, p, (size_t)(e - p)); /* little-endian: the digits in the low bytes */
        r->node_text[i] = t | (uint64_t)(e - p) << 56;
    }
#endif
    return e;
}

/* Node i's digits at p (OBUF_LL_ROOM bytes of room): its kept text (one
 * 8-byte store, the top byte past the digits scratch), else made. */
static inline ALWAYS_INLINE char *node_at(struct batsim *r, char *p, unsigned i)
{
    uint64_t t = i < r->node_cap ? r->node_text[i] : 0;
    if (!t)
        return node_make(r, p, i);
    memcpy(p, &t, 8);
    return p + (t >> 56);
}

/* "first" or "first-last" at p (SPAN_ROOM bytes), after a space unless
 * it is the set's first; returns the end. */
static inline ALWAYS_INLINE char *put_span(struct batsim *r, char *p, unsigned first, unsigned last,
                                           int sep)
{
    *p = ' ';
    p += sep;
    p = node_at(r, p, first);
    if (last != first) {
        *p++ = '-';
        p = node_at(r, p, last);
    }
    return p;
}

/* d's slots as spans in r->v, sorted by their first node: how many (a
 * slot of no node has none). */
static size_t spans(struct batsim *r, const struct sim_detail *d)
{
    size_t n = 0, sorted = 1;
    if (d && d->nslots > r->cap)
        r->v = xgrow(r->v, &r->cap, d->nslots, sizeof *r->v);
    struct span *v = r->v;
    for (size_t i = 0; d && i < d->nslots; i++)
        if (d->slots[i].nnodes) {
            v[n] = (struct span){d->slots[i].node, d->slots[i].node + d->slots[i].nnodes - 1};
            sorted &= n == 0 || v[n - 1].first <= v[n].first;
            n++;
        }
    if (!sorted)
        qsort(v, n, sizeof *v, cmp_span);
    return n;
}

/* The spans of d, sorted, at p (SPAN_ROOM bytes each); returns the end. */
static char *interval_set_sorted(char *p, struct batsim *r, const struct sim_detail *d)
{
    size_t n = spans(r, d);
    for (size_t i = 0; i < n;) {
        unsigned first = r->v[i].first;
        int sep = i > 0;
        unsigned last = merged(r->v, n, &i);
        p = put_span(r, p, first, last, sep);
    }
    return p;
}

/* The nodes of the job's last run as an interval set: "0-3 7". Built from
 * the slots (each a run of nodes), not node by node: Curie's jobs hold
 * thousands of nodes in a few slots. A reservation a span: a job may hold
 * too many for one. */
static void interval_set(struct obuf *f, struct batsim *r, const struct sim_detail *d)
{
    size_t n = spans(r, d);
    for (size_t i = 0; i < n;) {
        unsigned first = r->v[i].first;
        int sep = i > 0;
        unsigned last = merged(r->v, n, &i);
        obuf_commit(f, put_span(r, obuf_reserve(f, SPAN_ROOM), first, last, sep));
    }
}

/* The same at p, for a job of at most SLOTS_IN_PLACE slots (their
 * SPAN_ROOM each reserved: 50 KB at most). Slots in node order (nearly
 * all) are merged as they come, without the spans' copy; others are
 * sorted first. Curie's jobs of more than 8 slots (one in seven) hold a
 * hundred or so. */
#define SLOTS_IN_PLACE 1024
static char *interval_set_at(char *p, struct batsim *r, const struct sim_detail *d)
{
    if (!d)
        return p;
    const struct job_slot *s = d->slots;
    if (d->nslots == 1) /* most jobs: on HPC2N, 7 in 10 */
        return s->nnodes ? put_span(r, p, s->node, s->node + s->nnodes - 1, 0) : p;
    char *start = p;
    unsigned first = 0, last = 0, prev = 0;
    int open = 0; /* first-last: a span not written yet */
    for (unsigned i = 0; i < d->nslots; i++) {
        if (!s[i].nnodes)
            continue;
        unsigned a = s[i].node, b = a + s[i].nnodes - 1;
        if (open && a < prev) /* out of order: sorted, from the start */
            return interval_set_sorted(start, r, d);
        prev = a;
        if (open && a <= last + 1) { /* touching or overlapping */
            last = b > last ? b : last;
            continue;
        }
        if (open)
            p = put_span(r, p, first, last, p != start);
        first = a, last = b, open = 1;
    }
    return open ? put_span(r, p, first, last, p != start) : p;
}

/* Batsim's success and final state columns, each with its comma, with
 * their lengths (a row writes one). */
struct state {
    char text[32]; /* padded: a row copies all 32 bytes, no call for its length */
    size_t len;
};
#define STATE(s)                                                                                   \
    {                                                                                              \
        s, sizeof s - 1                                                                            \
    }
static const struct state rejected = STATE("0,REJECTED,"), killed = STATE("0,COMPLETED_KILLED,"),
                          walltime = STATE("0,COMPLETED_WALLTIME_REACHED,"),
                          success = STATE("1,COMPLETED_SUCCESSFULLY,");

/* Batsim's final state of a finished or rejected job, NULL for the others. */
static const struct state *batsim_state(const struct sim_outcome *o)
{
    if (o->rejected)
        return &rejected;
    if (o->end < 0)
        return NULL;
    return o->cancelled ? &killed : o->killed ? &walltime : &success;
}

/* A row's metadata field is copied in place this many bytes a move, when
 * it is at most FIELD_IN_PLACE long (longer: obuf_write). */
#define FIELD_CHUNK 64
#define FIELD_IN_PLACE 256

/* Where names' field is, or would go, in r's table (memo_cap > 0). */
static struct field_memo *memo_place(struct batsim *r, const char *const names[])
{
    uint64_t h = 0;
    for (int k = 0; k < CRED_NKINDS; k++)
        h = (h ^ (uintptr_t)names[k]) * 0x9E3779B97F4A7C15u;
    size_t i = (size_t)(h >> 32) & (r->memo_cap - 1);
    while (r->memos[i].at != SIZE_MAX &&
           memcmp(r->memos[i].names, names, sizeof r->memos[i].names) != 0)
        i = (i + 1) & (r->memo_cap - 1);
    return &r->memos[i];
}

/* r's table twice as large (64 places at first), its fields placed again. */
static void memo_grow(struct batsim *r)
{
    struct field_memo *old = r->memos;
    size_t n = r->memo_cap;
    r->memo_cap = n ? 2 * n : 64;
    r->memos = xmalloc(r->memo_cap * sizeof *r->memos);
    for (size_t i = 0; i < r->memo_cap; i++)
        r->memos[i].at = SIZE_MAX;
    for (size_t i = 0; i < n; i++)
        if (old[i].at != SIZE_MAX)
            *memo_place(r, old[i].names) = old[i];
    free(old);
}

/* The metadata field of names ("user=...;group=...", as a CSV field),
 * made once and kept: r->field and r->flen. */
static void field_of(struct batsim *r, const char *const names[])
{
    static const char *const keys[CRED_NKINDS] = {"user", "group", "account", "class", "qos"};
    if (2 * (r->nmemos + 1) > r->memo_cap)
        memo_grow(r);
    struct field_memo *m = memo_place(r, names);
    if (m->at == SIZE_MAX) {
        obuf_reset(r->m);
        for (int k = 0; k < CRED_NKINDS; k++) {
            if (k)
                obuf_putc(r->m, ';');
            obuf_puts(r->m, keys[k]);
            obuf_putc(r->m, '=');
            obuf_puts(r->m, names[k] ? names[k] : "");
        }
        obuf_reset(r->q);
        size_t len;
        report_csv_field(r->q, obuf_data(r->m, &len));
        const char *field = obuf_data(r->q, &len);
        /* FIELD_CHUNK bytes of room past it, cleared: a row copies its
         * field FIELD_CHUNK bytes at a time (field_at). */
        r->ftext = xgrow(r->ftext, &r->ftext_cap, r->ftext_len + len + FIELD_CHUNK, 1);
        memcpy(r->ftext + r->ftext_len, field, len);
        memset(r->ftext + r->ftext_len + len, 0, FIELD_CHUNK);
        memcpy(m->names, names, sizeof m->names);
        m->at = r->ftext_len;
        m->len = len;
        r->ftext_len += len;
        r->nmemos++;
    }
    r->field = r->ftext + m->at;
    r->flen = m->len;
}

/* The job's metadata field into r->field, r->flen: its credentials; a
 * job the engine never took (rejected) has the trace's names. Consecutive
 * jobs mostly share them (a user's jobs come in bursts): the field is
 * looked up again only when a name differs, and made only for names no
 * row had before (field_of). */
static void metadata(struct batsim *r, const struct wl_job *w, const struct sim_outcome *o)
{
    const struct wl_names *nm = wl_job_names(w);
    /* A forgotten job with the last one's raw indices and trace names has
     * its field (four rows in five on HPC2N): nothing looked up again.
     * The cheap comparisons first, the engine's record (a call) last; the
     * rest of by_raw_indices holds already: r->memo says the last job's
     * were raw (an engine, no index SIM_CRED_WIDE), and these equal them. */
    if (r->memo && nm == r->memo_nm && memcmp(o->cred, r->memo_raw, sizeof r->memo_raw) == 0 &&
        o->end >= 0 && !sim_outcome_job(r->rc.s, o))
        return;
    int raw = by_raw_indices(r->rc.s, o);
    const struct cred *c[CRED_NKINDS];
    report_job_creds(&r->rc, o, c);
    const char *trace_names[CRED_NKINDS] = {nm->user, nm->group, nm->account, nm->class_, nm->qos};
    const char *names[CRED_NKINDS];
    for (int k = 0; k < CRED_NKINDS; k++) /* no account is none, not DEFAULT */
        names[k] =
            c[k] ? (k != CRED_ACCOUNT || c[k]->index != 0 ? c[k]->name : NULL) : trace_names[k];
    if (!r->have || memcmp(names, r->names, sizeof names) != 0) {
        field_of(r, names);
        memcpy(r->names, names, sizeof names);
        r->have = 1;
    }
    r->memo = raw;
    memcpy(r->memo_raw, o->cred, sizeof r->memo_raw);
    r->memo_nm = nm;
}

/* Text at p (its room reserved). */
static char *text(char *p, const char *t, size_t n)
{
    memcpy(p, t, n);
    return p + n;
}

#define LIT(p, s) text(p, s, sizeof s - 1)

/* The six digits of v < 10^6 at p, leading zeros included (a fraction's
 * millionths): three pairs from obuf's fixed-point steps. */
static char *six_digits(char *p, uint32_t v)
{
#ifdef OBUF_WORDS
    uint64_t t = obuf_frac(v, OBUF_FRAC4);
    obuf_put_pair(p, t >> 32);
    p = obuf_put_next(p + 2, &t);
    return obuf_put_next(p, &t);
#else
    for (int k = 5; k >= 0; k--, v /= 10)
        p[k] = (char)('0' + v % 10);
    return p + 6;
#endif
}

/* A state's room (the longest fits), and the room of a row's fields from the profile to
 * the stretch: the processors and requested time's copy, 9 numbers, the stretch and their
 * commas. */
#define STATE_ROOM sizeof(((struct state *)0)->text)
_Static_assert(sizeof "0,COMPLETED_WALLTIME_REACHED," <= STATE_ROOM, "the longest state fits");
#define NUMS_ROOM                                                                                  \
    (sizeof ",w0,delay," + STATE_ROOM + PW_COPY + 9 * (OBUF_LL_ROOM + 1) + OBUF_FIXED_ROOM + 1)

/* The stretch, turnaround over execution time (execution 0: 1), as
 * "%.6f" writes it: a whole one (most: a job that did not wait) without
 * the division in floating point, and the others from the quotient of
 * turn * 10^6 by the time, rounded, when that is printf's rounding of the
 * double (below). */
static char *stretch(char *p, long turn, long exec)
{
    long d = exec > 0 ? exec : 1;
    if (turn == d) /* no wait: 1, without a 64-bit division (tens of cycles) */
        return LIT(p, "1.000000");
    if (turn >= 0 && turn % d == 0 && turn / d < 100000000) {
        p = obuf_fmt_ll(p, turn / d); /* exact: a double holds it */
        return LIT(p, ".000000");
    }
    /* turn / d is q + rem / d millionths. The double turn / d is within
     * a relative 2^-53 of it: off by at most turn * 10^6 * 2^-53 / d
     * millionths, below |d - 2 rem| / 2d (rem / d's distance from a half)
     * when turn * 10^6 < 2^52 and 2 rem != d. printf rounds that double's
     * millionths to the nearest, so the nearest to q + rem / d is it. */
    if (turn >= 0 && turn < 4000000000L) {
        unsigned long long m = (unsigned long long)turn * 1000000u, q = m / (unsigned long)d;
        unsigned long long twice = 2 * (m - q * (unsigned long)d);
        if (twice != (unsigned long long)d) {
            q += twice > (unsigned long long)d;
            unsigned long long whole = q / 1000000u;
            p = obuf_fmt_ull(p, whole);
            *p++ = '.';
            return six_digits(p, (uint32_t)(q - whole * 1000000u));
        }
    }
    return obuf_fmt_fixed(p, (double)turn / (double)d, 6);
}

/* A numeric id's digits at p (16 bytes of room): the last one's with its
 * last digit moved on when it is the successor and that digit is not a
 * 9 (nine in ten rows of a trace), else made. */
static inline ALWAYS_INLINE char *id_at(struct batsim *r, char *p, uint32_t id)
{
    char *t = r->id_text;
    if (id == r->id + 1 && r->id_len && t[r->id_len - 1] != '9')
        t[r->id_len - 1]++;
    else
        r->id_len = (size_t)(obuf_fmt_ull(t, id) - t); /* 10 digits at most */
    r->id = id;
    memcpy(p, t, 16);
    return p + r->id_len;
}

/* The processors and requested time, "P,W", at p (PW_COPY bytes of
 * room): the last row's text again when they are the same. */
static char *procs_wall_at(struct batsim *r, char *p, long long procs, long wall)
{
    char *t = r->pw_text;
    if (procs != r->procs || wall != r->wall) {
        char *e = obuf_fmt_ll(t, procs);
        *e++ = ',';
        r->pw_len = (size_t)(obuf_fmt_ll(e, wall) - t);
        r->procs = procs;
        r->wall = wall;
    }
    memcpy(p, t, PW_COPY);
    return p + r->pw_len;
}

/* A time's digits at p (OBUF_LL_ROOM bytes of room): when its
 * ten-thousands are the last one's in m (a trace's submit times climb a
 * few hundred seconds a job; ends stay within hours of each other), those
 * digits copied and two pairs made, not its nine or so digits. */
static inline ALWAYS_INLINE char *time_at(struct time_memo *m, char *p, long v)
{
    uint64_t hi = (uint64_t)v / 10000;
#ifdef OBUF_WORDS
    if (hi == m->hi) { /* v >= 10^4: NO_HI otherwise (below) */
        uint32_t lo = (uint32_t)((uint64_t)v - hi * 10000), top = lo / 100;
        memcpy(p, m->text, 16); /* 15 digits at most: v < 2^63 */
        p += m->len;
        obuf_put_pair(p, top);
        obuf_put_pair(p + 2, lo - 100 * top);
        return p + 4;
    }
#endif
    char *e = obuf_fmt_ll(p, v);
    m->len = v >= 10000 ? (size_t)(e - p) - 4 : 0;
    m->hi = v >= 10000 ? hi : NO_HI;
    memcpy(m->text, p, 16);
    return e;
}

/* The row's id at p, then room for `room` bytes in place (as
 * report_id_room). */
static inline ALWAYS_INLINE char *id_room(struct obuf *f, struct batsim *r,
                                          const struct workload *wl, const struct wl_job *w,
                                          size_t room)
{
    if (w->id < WL_ID_TEXT) /* a number, the common id */
        return id_at(r, obuf_reserve(f, 16 + room), w->id);
    return report_id_room_text(f, wl, w, room);
}

/* The fields from the start to the stretch of a job that did not wait
 * (two rows in three on HPC2N), each followed by a comma: the start is
 * the submit time (its digits at sub, sublen <= 10: a submit time is 32
 * bits), the wait 0, the turnaround the execution time (its digits
 * copied) and the stretch 1 when the execution took a second or more. */
static inline ALWAYS_INLINE char *no_wait(char *p, struct batsim *r, const char *sub, size_t sublen,
                                          long exec, long end)
{
    p = obuf_fmt_again(p, sub, sublen);
    *p++ = ',';
    char *ex = p;
    p = obuf_fmt_ll(p, exec);
    size_t exlen = (size_t)(p - ex);
    *p++ = ',';
    p = time_at(&r->end_memo, p, end);
    p = LIT(p, ",0,");
    p = exlen <= 16 ? obuf_fmt_again(p, ex, exlen) : obuf_fmt_ll(p, exec);
    if (exec > 0)
        return LIT(p, ",1.000000,");
    *p++ = ',';
    p = stretch(p, exec, exec);
    *p++ = ',';
    return p;
}

/* The fields from the profile to the stretch at p (NUMS_ROOM bytes),
 * each followed by a comma, the id's before them; returns the end. */
static char *numbers(char *p, struct batsim *r, const struct wl_job *w, const struct sim_outcome *o,
                     const struct state *state)
{
    p = LIT(p, ",w0,delay,");
    char *sub = p; /* the submit time's digits: the start's too when it did not wait */
    p = time_at(&r->sub_memo, p, w->submit);
    size_t sublen = (size_t)(p - sub);
    *p++ = ',';
    p = procs_wall_at(r, p, wl_job_procs(w), wl_job_walltime(w));
    *p++ = ',';
    memcpy(p, state->text, STATE_ROOM); /* the bytes past its length: scratch */
    p += state->len;
    if (o->rejected)
        return LIT(p, "-1,-1,-1,-1,-1,-1,");
    long exec = o->end - o->start, wait = o->start - w->submit;
    if (wait == 0)
        return no_wait(p, r, sub, sublen, exec, o->end);
    long turn = o->end - w->submit;
    p = time_at(&r->start_memo, p, o->start);
    *p++ = ',';
    p = obuf_fmt_ll(p, exec);
    *p++ = ',';
    p = time_at(&r->end_memo, p, o->end);
    *p++ = ',';
    p = obuf_fmt_ll(p, wait);
    *p++ = ',';
    p = obuf_fmt_ll(p, turn);
    *p++ = ',';
    p = stretch(p, turn, exec);
    *p++ = ',';
    return p;
}

/* r's metadata field at p (its length and FIELD_CHUNK more reserved),
 * FIELD_CHUNK bytes a move: the bytes past it are scratch. */
static char *field_at(char *p, const struct batsim *r)
{
    /* The first two moves without the loop's steps: a field is about
     * 70 bytes (HPC2N's "user=210;group=1;account=;class=DEFAULT;qos=DEFAULT"). */
    memcpy(p, r->field, FIELD_CHUNK);
    if (r->flen > FIELD_CHUNK) {
        memcpy(p + FIELD_CHUNK, r->field + FIELD_CHUNK, FIELD_CHUNK);
        for (size_t k = 2 * FIELD_CHUNK; k < r->flen; k += FIELD_CHUNK)
            memcpy(p + k, r->field + k, FIELD_CHUNK);
    }
    return p + r->flen;
}

/* The room of a row written in one reservation after its id: its
 * numbers, the energy, its field and the line's end, and SPAN_ROOM a
 * slot. */
#define ROW_ROOM_BUT_NODES (NUMS_ROOM + sizeof ",-1," + FIELD_IN_PLACE + FIELD_CHUNK + 1)

/* One job's row. Most in one reservation: the numbers formatted in place,
 * the nodes and the metadata field after them; a job on more slots, or a
 * longer field, a field at a time. */
static void row(struct obuf *f, struct batsim *r, const struct workload *wl, const struct wl_job *w,
                const struct sim_outcome *o, const struct state *state)
{
    metadata(r, w, o);
    const struct sim_detail *d = o->rejected ? NULL : o->more;
    size_t nslots = d ? d->nslots : 0;
    if (nslots <= SLOTS_IN_PLACE && r->flen <= FIELD_IN_PLACE) {
        char *p =
            numbers(id_room(f, r, wl, w, ROW_ROOM_BUT_NODES + nslots * SPAN_ROOM), r, w, o, state);
        p = field_at(LIT(interval_set_at(p, r, d), ",-1,"), r);
        *p++ = '\n';
        obuf_commit(f, p);
        return;
    }
    obuf_commit(f, numbers(id_room(f, r, wl, w, NUMS_ROOM), r, w, o, state));
    interval_set(f, r, d);
    obuf_write(f, ",-1,", 4);
    obuf_write(f, r->field, r->flen);
    obuf_putc(f, '\n');
}

struct batsim *batsim_open(struct obuf *f, const struct workload *wl, const struct sched *s,
                           int run)
{
    if (run <= 1)
        obuf_printf(f,
                    "%sjob_id,workload_name,profile,submission_time,requested_number_of_resources,"
                    "requested_time,success,final_state,starting_time,execution_time,"
                    "finish_time,waiting_time,turnaround_time,stretch,allocated_resources,"
                    "consumed_energy,metadata\n",
                    run == 1 ? "run," : "");
    struct batsim *r = xcalloc(1, sizeof *r);
    *r = (struct batsim){.f = f,
                         .wl = wl,
                         .run = run,
                         .m = obuf_mem(),
                         .q = obuf_mem(),
                         .rc = {.s = s},
                         .sub_memo = {.hi = NO_HI},
                         .end_memo = {.hi = NO_HI},
                         .start_memo = {.hi = NO_HI},
                         .procs = LLONG_MIN};
    return r;
}

void batsim_rows(struct batsim *r, const struct sim_outcome *out, size_t to)
{
    struct obuf *f = r->f;
    for (; r->next < to; r->next++) {
        const struct state *state = batsim_state(&out[r->next]);
        if (!state)
            continue;
        if (r->run >= 1) {
            obuf_ll(f, r->run);
            obuf_putc(f, ',');
        }
        row(f, r, r->wl, &r->wl->jobs[r->next], &out[r->next], state);
    }
}

int batsim_close(struct batsim *r, const struct sim_outcome *out)
{
    batsim_rows(r, out, r->wl->njobs);
    int rc = obuf_failed(r->f) ? -1 : 0;
    batsim_drop(r);
    return rc;
}

void batsim_drop(struct batsim *r)
{
    obuf_close(r->m, NULL);
    obuf_close(r->q, NULL);
    free(r->memos);
    free(r->ftext);
    free(r->v);
    free(r->node_text);
    free(r);
}

int batsim_write_jobs(struct obuf *f, const struct workload *wl, const struct sim_outcome *out,
                      const struct sched *s, int run)
{
    return batsim_close(batsim_open(f, wl, s, run), out);
}
