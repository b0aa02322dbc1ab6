/*
 * fs — fairshare usage windows, decayed shares, targets, delta and caps.
 *
 * Storage: per credential kind, an array indexed by cred->index (grown on
 * demand) of objects holding FS_MAX_DEPTH window slots, the target, and the
 * running jobs' accrual: `rate` (units per second of all running jobs) and
 * `rate_end` (the sum of rate x planned end, for the work still to come).
 * The system total ("TOTAL" / "sched" in Maui's FS files) is one more such
 * object. Slot 0 is the current window.
 *
 * Lazy accrual: an object's slot 0 holds usage up to its `last` time; the
 * rest, rate x (f->now - last), is added when read (live_w0) and folded in
 * when its rate changes or its window closes (settle).
 *
 * Where moku differs from Maui 3.3.1: Maui adds each poll's usage to the
 * window current at that poll, so usage straddling a boundary lands in the
 * new window and idle periods do not age usage (one shift per boundary the
 * server loop sees); moku splits usage exactly at boundaries and shifts once
 * per elapsed window. Caps count the work still due from running jobs (see
 * fs_over_cap), so starting many jobs at once cannot overrun a cap.
 */
#include "policy/fs.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/mem.h"

struct fs_obj {
    double w[FS_MAX_DEPTH];
    double rate;     /* units per second its running jobs accrue */
    double rate_end; /* sum of rate x planned end of those jobs */
    long last;       /* w[0] holds usage up to here */
    double hist;     /* sum of w[i] x decay^i for i = 1..depth-1: changes only
                        when windows shift or are loaded, so reading the
                        decayed usage is O(1) */
    struct fs_target target;
};

struct fs_kind {
    struct fs_obj *obj; /* indexed by cred->index */
    size_t n, cap;      /* n: objects covered (zeroed); cap: allocated */
};

struct fs {
    struct fs_params p;
    long epoch;
    int started;         /* window_start is set */
    long window_start;   /* start of slot 0's window, driver time */
    long now;            /* time of the last fs_advance */
    unsigned long edits; /* fs_edits: every change but time passing in a window */
    struct fs_kind kind[CRED_NKINDS];
    struct fs_obj total;
};

void fs_params_default(struct fs_params *p)
{
    *p = (struct fs_params){.policy = FS_NONE, .interval = 43200, .depth = 8, .decay = 1.0};
}

int fs_target_parse(const char *s, struct fs_target *out, struct err *err)
{
    if (!s || !*s)
        return err_set(err, "empty FSTARGET");
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno != 0 || !isfinite(v) || v < 0)
        return err_set(err, "bad FSTARGET '%s': expected a non-negative number", s);
    enum fs_mode mode = FS_MODE_TARGET;
    switch (*end) {
    case '\0':
        break;
    case '+':
        mode = FS_MODE_FLOOR;
        break;
    case '-':
        mode = FS_MODE_CEILING;
        break;
    case '^':
        mode = FS_MODE_CAP;
        break;
    case '%':
        mode = FS_MODE_PCAP;
        break;
    default:
        return err_set(err, "bad FSTARGET '%s': unknown mode '%c' (use +, -, ^ or %%)", s, *end);
    }
    if (*end && end[1])
        return err_set(err, "bad FSTARGET '%s': trailing characters after the mode", s);
    out->value = v;
    out->mode = mode;
    return 0;
}

void fs_target_format(const struct fs_target *t, char out[32])
{
    static const char mode_char[] = {
        [FS_MODE_NONE] = '\0',   [FS_MODE_TARGET] = '\0', [FS_MODE_FLOOR] = '+',
        [FS_MODE_CEILING] = '-', [FS_MODE_CAP] = '^',     [FS_MODE_PCAP] = '%'};
    if (!t || t->mode == FS_MODE_NONE) {
        out[0] = '\0';
        return;
    }
    int n = snprintf(out, 32, "%.2f", t->value);
    if (n > 0 && n < 31 && mode_char[t->mode]) {
        out[n] = mode_char[t->mode];
        out[n + 1] = '\0';
    }
}

struct fs *fs_create(const struct fs_params *p, long epoch)
{
    struct fs *f = xcalloc(1, sizeof *f);
    f->p = *p;
    if (f->p.interval < 1)
        f->p.interval = 1;
    if (f->p.depth < 1)
        f->p.depth = 1;
    if (f->p.depth > FS_MAX_DEPTH)
        f->p.depth = FS_MAX_DEPTH;
    f->epoch = epoch;
    return f;
}

void fs_destroy(struct fs *f)
{
    if (!f)
        return;
    for (int k = 0; k < CRED_NKINDS; k++)
        free(f->kind[k].obj);
    free(f);
}

const struct fs_params *fs_params(const struct fs *f)
{
    return &f->p;
}

void fs_set_epoch(struct fs *f, long epoch)
{
    if (!f->started)
        f->epoch = epoch;
}

long fs_epoch(const struct fs *f)
{
    return f->epoch;
}

/* The object of c, or NULL if c has never been touched (reads only). */
static const struct fs_obj *obj_find(const struct fs *f, const struct cred *c)
{
    if (!c || (unsigned)c->kind >= CRED_NKINDS)
        return NULL;
    const struct fs_kind *k = &f->kind[c->kind];
    return c->index < k->n ? &k->obj[c->index] : NULL;
}

/* c's kind's array grown (zeroed) to cover c. Not inlined: once per
 * credential, and obj_get is on every job's start and end. */
__attribute__((noinline)) static void obj_grow(struct fs *f, const struct cred *c)
{
    struct fs_kind *k = &f->kind[c->kind];
    k->obj = xgrow(k->obj, &k->cap, c->index + 1, sizeof *k->obj);
    for (size_t i = k->n; i <= c->index; i++)
        k->obj[i] = (struct fs_obj){.last = f->now};
    k->n = c->index + 1;
}

/* The object of c, growing its kind's array as needed. */
static inline struct fs_obj *obj_get(struct fs *f, const struct cred *c)
{
    struct fs_kind *k = &f->kind[c->kind];
    if (c->index >= k->n)
        obj_grow(f, c);
    return &k->obj[c->index];
}

void fs_set_target(struct fs *f, const struct cred *c, struct fs_target t)
{
    if (c && (unsigned)c->kind < CRED_NKINDS)
        obj_get(f, c)->target = t;
    f->edits++;
}

struct fs_target fs_own_target(const struct fs *f, const struct cred *c)
{
    const struct fs_obj *o = obj_find(f, c);
    return o ? o->target : (struct fs_target){0, FS_MODE_NONE};
}

/* fs_target_of for c, whose object (or NULL) is o. */
static struct fs_target target_of(const struct fs *f, const struct cred *c, const struct fs_obj *o)
{
    struct fs_target t = o ? o->target : (struct fs_target){0, FS_MODE_NONE};
    if (t.mode != FS_MODE_NONE || !c || (unsigned)c->kind >= CRED_NKINDS)
        return t;
    const struct fs_kind *k = &f->kind[c->kind];
    return k->n ? k->obj[0].target : t; /* index 0 is the kind's DEFAULT object */
}

struct fs_target fs_target_of(const struct fs *f, const struct cred *c)
{
    return target_of(f, c, obj_find(f, c));
}

void fs_set_total_target(struct fs *f, struct fs_target t)
{
    f->total.target = t;
}

struct fs_target fs_total_target(const struct fs *f)
{
    return f->total.target;
}

/* Fold the accrual up to t into slot 0 (t within the current window). */
static void settle(struct fs_obj *o, long t)
{
    if (o->rate > 0 && t > o->last)
        o->w[0] += o->rate * (double)(t - o->last);
    o->last = t;
}

static void rehist(const struct fs *f, struct fs_obj *o)
{
    double sum = 0, weight = 1;
    for (int i = 1; i < f->p.depth; i++) {
        weight *= f->p.decay;
        sum += o->w[i] * weight;
    }
    o->hist = sum;
}

/* Whether o's slots and decayed history are all +0 (bit for bit): shifted,
 * they stay so, and rehist's sum of +0 terms is +0 again. */
static int all_clear(const struct fs_obj *o)
{
    uint64_t bits = 0, b;
    for (int i = 0; i < FS_MAX_DEPTH; i++) {
        memcpy(&b, &o->w[i], sizeof b);
        bits |= b;
    }
    memcpy(&b, &o->hist, sizeof b);
    return (bits | b) == 0;
}

static void shift(const struct fs *f, struct fs_obj *o, long by)
{
    if (all_clear(o))
        return; /* a credential idle for the whole ledger: nothing moves */
    if (by >= FS_MAX_DEPTH) {
        memset(o->w, 0, sizeof o->w);
    } else {
        memmove(&o->w[by], &o->w[0], (size_t)(FS_MAX_DEPTH - by) * sizeof o->w[0]);
        memset(&o->w[0], 0, (size_t)by * sizeof o->w[0]);
    }
    rehist(f, o);
}

static void settle_obj(const struct fs *f, struct fs_obj *o, long t)
{
    (void)f;
    settle(o, t);
}

/* Apply fn(f, o, arg) to every object and the total. */
static void each_obj(struct fs *f, void (*fn)(const struct fs *, struct fs_obj *, long), long arg)
{
    for (int k = 0; k < CRED_NKINDS; k++)
        for (size_t i = 0; i < f->kind[k].n; i++)
            fn(f, &f->kind[k].obj[i], arg);
    fn(f, &f->total, arg);
}

/* Start of the window holding driver time t (floor to a multiple of the
 * interval on the epoch clock, also before the epoch). */
static long window_of(const struct fs *f, long t)
{
    long e = t + f->epoch, r = e % f->p.interval;
    return (r < 0 ? e - r - f->p.interval : e - r) - f->epoch;
}

/* Close the current window at its end and open the next. */
static void close_window(struct fs *f)
{
    long end = f->window_start + f->p.interval;
    each_obj(f, settle_obj, end);
    each_obj(f, shift, 1);
    f->window_start = end;
}

/* Forget everything before window `start`: every slot emptied, accrual
 * restarting at start. For a jump over more windows than the ledger keeps:
 * whatever accrued before start would be shifted out anyway. */
static void forget_obj(const struct fs *f, struct fs_obj *o, long start)
{
    memset(o->w, 0, sizeof o->w);
    o->last = start;
    rehist(f, o);
}

/* fs_advance once the ledger is behind now (or not started). Out of line:
 * most calls (each job's start and end, each iteration) find it at now. */
static __attribute__((noinline)) void advance(struct fs *f, long now)
{
    if (!f->started) {
        f->started = 1;
        f->edits++;
        f->window_start = window_of(f, now);
        f->now = now;
        each_obj(f, settle_obj, now); /* nothing accrues before the start */
        return;
    }
    long ws = window_of(f, now);
    f->edits += f->window_start < ws;
    /* Close windows one by one while jobs are accruing, so that their
     * usage lands in the window it belongs to; an idle stretch shifts at
     * once, and so does the part of a long stretch that falls out of the
     * ledger (a 1-second FSINTERVAL must not cost a step per second). */
    long keep = ws - (long)FS_MAX_DEPTH * f->p.interval;
    if (f->window_start < keep) {
        each_obj(f, forget_obj, keep);
        f->window_start = keep;
    }
    while (f->window_start < ws) {
        if (f->total.rate <= 0) {
            long by = (ws - f->window_start) / f->p.interval;
            each_obj(f, shift, by);
            each_obj(f, settle_obj, ws);
            f->window_start = ws;
            break;
        }
        close_window(f);
    }
    f->now = now;
}

void fs_advance(struct fs *f, long now)
{
    if (f->p.policy != FS_NONE && (!f->started || now > f->now))
        advance(f, now);
}

/* Take back what o accrued at rate from `from` to the ledger's now, window
 * by window: a job that ended at `from` but was counted on past it. */
static void take_back(struct fs *f, struct fs_obj *o, double rate, long from)
{
    long hi = f->now;
    int older = 0;
    for (int i = 0; i < FS_MAX_DEPTH && hi > from; i++) {
        long lo = f->window_start - (long)i * f->p.interval; /* window i's start */
        double back = rate * (double)(hi - (lo > from ? lo : from));
        o->w[i] = o->w[i] > back ? o->w[i] - back : 0;
        older |= i > 0;
        hi = lo;
    }
    if (older)
        rehist(f, o);
}

/* Change the accrual of o by d (and its planned-end sum by de); a job
 * ending at now, before the ledger's now, is taken back to now. */
static inline void change_obj(struct fs *f, struct fs_obj *o, double d, double de, long now)
{
    settle(o, f->now);
    double was = o->rate;
    o->rate += d;
    o->rate_end += de;
    if (o->rate < 1e-9) /* rounding: nothing runs any more */
        o->rate = o->rate_end = 0;
    if (d < 0 && now < f->now) /* never more than o accrued at */
        take_back(f, o, -d < was ? -d : was, now);
}

/*
 * Change the accrual of each credential and the total by sign x rate. A
 * stop may come after the ledger went past the job's end: the daemon hears
 * of an end at its next poll, and the store keeps the real end, which a
 * restart charges again (issue 26: the books across kill -9 must agree).
 * The ledger then takes back what the job accrued after its end.
 */
static void change_rate(struct fs *f, const struct cred *const creds[CRED_NKINDS], double rate,
                        long end, long now, int sign)
{
    if (f->p.policy == FS_NONE || !(rate > 0))
        return;
    fs_advance(f, now);
    f->edits++;
    double d = sign * rate, de = sign * rate * (double)end;
    for (int k = 0; k < CRED_NKINDS; k++) {
        const struct cred *c = creds ? creds[k] : NULL;
        if (c && (unsigned)c->kind < CRED_NKINDS)
            change_obj(f, obj_get(f, c), d, de, now);
    }
    change_obj(f, &f->total, d, de, now);
}

void fs_start(struct fs *f, const struct cred *const creds[CRED_NKINDS], double rate, long end,
              long now)
{
    change_rate(f, creds, rate, end, now, +1);
}

void fs_stop(struct fs *f, const struct cred *const creds[CRED_NKINDS], double rate, long end,
             long now)
{
    change_rate(f, creds, rate, end, now, -1);
}

void fs_add(struct fs *f, long now, const struct cred *const creds[CRED_NKINDS], double usage)
{
    if (f->p.policy == FS_NONE)
        return;
    fs_advance(f, now);
    f->edits++;
    for (int k = 0; k < CRED_NKINDS; k++) {
        const struct cred *c = creds ? creds[k] : NULL;
        if (c && (unsigned)c->kind < CRED_NKINDS)
            obj_get(f, c)->w[0] += usage;
    }
    f->total.w[0] += usage;
}

long fs_window_start(const struct fs *f)
{
    return f->started ? f->window_start : 0;
}

long fs_now(const struct fs *f)
{
    return f->now;
}

/* Slot i of o as of f->now: slot 0 with its accrual since o->last. */
static double slot(const struct fs *f, const struct fs_obj *o, int i)
{
    if (!o || i < 0 || i >= FS_MAX_DEPTH)
        return 0;
    double v = o->w[i];
    if (i == 0 && o->rate > 0 && f->now > o->last)
        v += o->rate * (double)(f->now - o->last);
    return v;
}

static double decayed(const struct fs *f, const struct fs_obj *o)
{
    return o ? slot(f, o, 0) + o->hist : 0;
}

double fs_usage(const struct fs *f, const struct cred *c)
{
    return decayed(f, obj_find(f, c));
}

double fs_total(const struct fs *f)
{
    return decayed(f, &f->total);
}

double fs_percent(const struct fs *f, const struct cred *c)
{
    double total = fs_total(f);
    return total > 0 ? 100.0 * fs_usage(f, c) / total : 0;
}

double fs_window(const struct fs *f, const struct cred *c, int i)
{
    return slot(f, obj_find(f, c), i);
}

double fs_total_window(const struct fs *f, int i)
{
    return slot(f, &f->total, i);
}

int fs_has_usage(const struct fs *f, const struct cred *c)
{
    const struct fs_obj *o = obj_find(f, c);
    if (!o)
        return 0;
    if (o->rate > 0)
        return 1;
    for (int i = 0; i < f->p.depth; i++)
        if (o->w[i] != 0)
            return 1;
    return 0;
}

/* Whether target t leaves the delta at 0 whatever the usage. */
static int still(const struct fs *f, struct fs_target t)
{
    /* Caps act on feasibility only: Maui forces the factor to 0. */
    return f->p.policy == FS_NONE || t.mode == FS_MODE_NONE || t.value <= 0 ||
           t.mode == FS_MODE_CAP || t.mode == FS_MODE_PCAP;
}

int fs_delta_still(const struct fs *f, const struct cred *c)
{
    return still(f, fs_target_of(f, c));
}

/* Asked for every credential of the queue at every iteration: c's object
 * and the total found once (fs_percent's arithmetic, the same bits). */
double fs_delta(const struct fs *f, const struct cred *c)
{
    const struct fs_obj *o = obj_find(f, c);
    struct fs_target t = target_of(f, c, o);
    if (still(f, t))
        return 0;
    double total = fs_total(f);
    if (total <= 0)
        return 0;
    double pct = 100.0 * decayed(f, o) / total;
    double d = f->p.percent ? 1.0 - pct / t.value : t.value - pct;
    if (t.mode == FS_MODE_FLOOR && d < 0)
        d = 0;
    if (t.mode == FS_MODE_CEILING && d > 0)
        d = 0;
    return d;
}

/* Work c's running jobs still have to do until their planned ends. */
static double committed(const struct fs *f, const struct fs_obj *o)
{
    if (!o || o->rate <= 0)
        return 0;
    double left = o->rate_end - o->rate * (double)f->now;
    return left > 0 ? left : 0;
}

int fs_over_cap(const struct fs *f, const struct cred *c, double request)
{
    struct fs_target t = fs_target_of(f, c);
    if (f->p.policy == FS_NONE || t.value <= 0)
        return 0;
    const struct fs_obj *o = obj_find(f, c);
    double use = decayed(f, o) + committed(f, o) + request;
    if (t.mode == FS_MODE_CAP)
        return use > t.value;
    if (t.mode == FS_MODE_PCAP) {
        /* Nothing delivered or due yet: no share to exceed (the first job
         * on an idle system would otherwise be 100 % of everything). */
        double sys = fs_total(f) + committed(f, &f->total);
        return sys > 0 && use / (sys + request) * 100.0 > t.value;
    }
    return 0;
}

void fs_set_window(struct fs *f, const struct cred *c, int i, double usage)
{
    if (!c || (unsigned)c->kind >= CRED_NKINDS || i < 0 || i >= FS_MAX_DEPTH)
        return;
    struct fs_obj *o = obj_get(f, c);
    if (i == 0)
        settle(o, f->now);
    o->w[i] = usage;
    rehist(f, o);
    f->edits++;
}

void fs_set_total_window(struct fs *f, int i, double usage)
{
    if (i < 0 || i >= FS_MAX_DEPTH)
        return;
    if (i == 0)
        settle(&f->total, f->now);
    f->total.w[i] = usage;
    rehist(f, &f->total);
    f->edits++;
}

double fs_total_rate(const struct fs *f)
{
    return f->total.rate;
}

unsigned long fs_edits(const struct fs *f)
{
    return f->edits;
}
