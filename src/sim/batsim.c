/* batsim — see batsim.h. */
#include "sim/batsim.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/cred.h"
#include "sim/report.h"
#include "util/mem.h"
#include "util/obuf.h"

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

/* The nodes of the job's last run as an interval set: "0-3 7". Built from
 * the slots (each a run of nodes), not node by node: Curie's jobs hold
 * thousands of nodes in a few slots. */
static void interval_set(struct obuf *f, struct batsim *r, const struct sim_detail *d)
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
    for (size_t i = 0; i < n;) {
        unsigned last = v[i].last;
        size_t e = i + 1;
        for (; e < n && v[e].first <= last + 1; e++) /* touching or overlapping */
            last = v[e].last > last ? v[e].last : last;
        /* "first" or "first-last", in place (Curie's jobs: millions) */
        char *p = obuf_reserve(f, 2 + 2 * OBUF_LL_ROOM);
        *p = ' ';
        p += i > 0;
        p = obuf_fmt_ull(p, v[i].first);
        if (last != v[i].first) {
            *p++ = '-';
            p = obuf_fmt_ull(p, last);
        }
        obuf_commit(f, p);
        i = e;
    }
}

/* Batsim's final states, with their lengths (a row writes one). */
struct state {
    char text[32]; /* padded: a row copies all 32 bytes, no call for its length */
    size_t len;
};
#define STATE(s)                                                                                   \
    {                                                                                              \
        s, sizeof s - 1                                                                            \
    }
static const struct state rejected = STATE("REJECTED"), killed = STATE("COMPLETED_KILLED"),
                          walltime = STATE("COMPLETED_WALLTIME_REACHED"),
                          success = STATE("COMPLETED_SUCCESSFULLY");

/* Batsim's final state of a finished or rejected job, NULL for the others. */
static const struct state *batsim_state(const struct sim_outcome *o)
{
    if (o->rejected)
        return &rejected;
    if (o->end < 0)
        return NULL;
    return o->cancelled ? &killed : o->killed ? &walltime : &success;
}

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
        r->ftext = xgrow(r->ftext, &r->ftext_cap, r->ftext_len + len, 1);
        memcpy(r->ftext + r->ftext_len, field, len);
        memcpy(m->names, names, sizeof m->names);
        m->at = r->ftext_len;
        m->len = len;
        r->ftext_len += len;
        r->nmemos++;
    }
    r->field = r->ftext + m->at;
    r->flen = m->len;
}

/* The job's credentials; a job the engine never took (rejected) has the
 * trace's names. Consecutive jobs mostly share them (a user's jobs come in
 * bursts): the field is looked up again only when a name differs, and
 * made only for names no row had before (field_of). */
static void metadata(struct obuf *f, struct batsim *r, const struct wl_job *w,
                     const struct sim_outcome *o)
{
    const struct wl_names *nm = wl_job_names(w);
    /* A forgotten job with the last one's raw indices and trace names has
     * its field (four rows in five on HPC2N): nothing looked up again. */
    int raw = by_raw_indices(r->rc.s, o);
    if (raw && r->memo && nm == r->memo_nm &&
        memcmp(o->cred, r->memo_raw, sizeof r->memo_raw) == 0) {
        obuf_write(f, r->field, r->flen);
        return;
    }
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
    obuf_write(f, r->field, r->flen);
}

/* Numbers at p, each followed by a comma. Inlined, its loops unrolled:
 * a row has nine, and the call and the loop cost a fifth of each. */
static inline __attribute__((always_inline)) char *nums(char *p, const long long *v, size_t n)
{
#pragma GCC unroll 5
    for (size_t i = 0; i < n; i++) {
        p = obuf_fmt_ll(p, v[i]);
        *p++ = ',';
    }
    return p;
}

/* Text at p (its room reserved). */
static char *text(char *p, const char *t, size_t n)
{
    memcpy(p, t, n);
    return p + n;
}

#define LIT(p, s) text(p, s, sizeof s - 1)

/* A state's room (the longest fits), and the room of a row's fields from the profile to
 * the stretch: 9 numbers, the stretch and their commas. */
#define STATE_ROOM sizeof(((struct state *)0)->text)
_Static_assert(sizeof "COMPLETED_WALLTIME_REACHED" <= STATE_ROOM, "the longest state fits");
#define NUMS_ROOM (sizeof ",w0,delay," + STATE_ROOM + 9 * (OBUF_LL_ROOM + 1) + OBUF_FIXED_ROOM + 1)

/* The stretch, turnaround over execution time (execution 0: 1), as
 * "%.6f" writes it; a whole one (most: a job that did not wait) without
 * the division in floating point. */
static char *stretch(char *p, long turn, long exec)
{
    long d = exec > 0 ? exec : 1;
    if (turn == d) /* no wait: 1, without a 64-bit division (tens of cycles) */
        return LIT(p, "1.000000");
    if (turn >= 0 && turn % d == 0 && turn / d < 100000000) {
        p = obuf_fmt_ll(p, turn / d); /* exact: a double holds it */
        return LIT(p, ".000000");
    }
    return obuf_fmt_fixed(p, (double)turn / (double)d, 6);
}

/* One job's row; its numbers formatted in place in one go. */
static void row(struct obuf *f, struct batsim *r, const struct workload *wl, const struct wl_job *w,
                const struct sim_outcome *o, const struct state *state)
{
    char *p = report_id_room(f, wl, w, NUMS_ROOM);
    p = LIT(p, ",w0,delay,");
    char *sub = p; /* the submit time's digits: the start's too when it did not wait */
    p = obuf_fmt_ll(p, w->submit);
    size_t sublen = (size_t)(p - sub);
    *p++ = ',';
    const long long asked[] = {wl_job_procs(w), wl_job_walltime(w), state == &success};
    p = nums(p, asked, sizeof asked / sizeof *asked);
    memcpy(p, state->text, STATE_ROOM); /* the bytes past its length: scratch */
    p += state->len;
    *p++ = ',';
    if (o->rejected) {
        obuf_commit(f, LIT(p, "-1,-1,-1,-1,-1,-1,,-1,"));
    } else {
        long exec = o->end - o->start, wait = o->start - w->submit, turn = o->end - w->submit;
        /* No wait (two rows in three on HPC2N): the start is the submit
         * time, the turnaround the execution time, their digits copied. */
        int again = wait == 0 && sublen <= 16;
        p = again ? obuf_fmt_again(p, sub, sublen) : obuf_fmt_ll(p, o->start);
        *p++ = ',';
        char *ex = p;
        p = obuf_fmt_ll(p, exec);
        size_t exlen = (size_t)(p - ex);
        *p++ = ',';
        const long long got[] = {o->end, wait};
        p = nums(p, got, sizeof got / sizeof *got);
        p = again && exlen <= 16 ? obuf_fmt_again(p, ex, exlen) : obuf_fmt_ll(p, turn);
        *p++ = ',';
        p = stretch(p, turn, exec);
        *p++ = ',';
        obuf_commit(f, p);
        interval_set(f, r, o->more);
        obuf_puts(f, ",-1,");
    }
    metadata(f, r, w, o);
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
    *r = (struct batsim){
        .f = f, .wl = wl, .run = run, .m = obuf_mem(), .q = obuf_mem(), .rc = {.s = s}};
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
    free(r);
}

int batsim_write_jobs(struct obuf *f, const struct workload *wl, const struct sim_outcome *out,
                      const struct sched *s, int run)
{
    return batsim_close(batsim_open(f, wl, s, run), out);
}
