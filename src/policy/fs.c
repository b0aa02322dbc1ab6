/*
 * fs — fairshare usage windows, decayed shares, targets, delta and caps.
 *
 * Storage: per credential kind, an array indexed by cred->index (grown on
 * demand) of FS_MAX_DEPTH-slot windows, plus the system total's windows
 * ("TOTAL" / "sched" in Maui's FS files). Slot 0 is the current window.
 *
 * Where moku differs from Maui 3.3.1: Maui shifts all 24 slots whatever
 * FSDEPTH is; moku keeps only `depth` slots (the others never count in the
 * decayed usage, which sums slots 0..depth-1), so windows past depth are
 * dropped. Maui rolls once per boundary crossing seen by the server loop;
 * moku shifts as many windows as have elapsed, so idle periods age usage.
 */
#include "policy/fs.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/mem.h"

struct fs_slots {
    double w[FS_MAX_DEPTH];
};

struct fs_kind {
    struct fs_slots *obj; /* indexed by cred->index */
    size_t n, cap;        /* n: objects covered (zeroed); cap: allocated */
};

struct fs {
    long interval;
    int depth;
    double decay;
    enum fs_policy policy;
    int percent;
    int started;       /* window_start is set */
    long window_start; /* start of slot 0's window */
    struct fs_kind kind[CRED_NKINDS];
    struct fs_slots total;
};

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

struct fs *fs_create(long interval, int depth, double decay, enum fs_policy policy, int percent)
{
    struct fs *f = xcalloc(1, sizeof *f);
    f->interval = interval < 1 ? 1 : interval;
    f->depth = depth < 1 ? 1 : depth > FS_MAX_DEPTH ? FS_MAX_DEPTH : depth;
    f->decay = decay;
    f->policy = policy;
    f->percent = percent != 0;
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

/* The slots of c, or NULL if c has never had usage (reads only). */
static const struct fs_slots *slots_find(const struct fs *f, const struct cred *c)
{
    if (!c || (unsigned)c->kind >= CRED_NKINDS)
        return NULL;
    const struct fs_kind *k = &f->kind[c->kind];
    return c->index < k->n ? &k->obj[c->index] : NULL;
}

/* The slots of c, growing its kind's array (zeroed) as needed. */
static struct fs_slots *slots_get(struct fs *f, const struct cred *c)
{
    struct fs_kind *k = &f->kind[c->kind];
    if (c->index >= k->n) {
        k->obj = xgrow(k->obj, &k->cap, c->index + 1, sizeof *k->obj);
        memset(&k->obj[k->n], 0, (c->index + 1 - k->n) * sizeof *k->obj);
        k->n = c->index + 1;
    }
    return &k->obj[c->index];
}

/* Start of the window holding t: floor to a multiple of interval (also for
 * times before the epoch). */
static long window_of(long interval, long t)
{
    long r = t % interval;
    return r < 0 ? t - r - interval : t - r;
}

static void shift(struct fs_slots *s, int depth, long by)
{
    if (by >= depth) {
        memset(s->w, 0, sizeof s->w);
        return;
    }
    memmove(&s->w[by], &s->w[0], (size_t)(depth - by) * sizeof s->w[0]);
    memset(&s->w[0], 0, (size_t)by * sizeof s->w[0]);
}

void fs_roll(struct fs *f, long now)
{
    long ws = window_of(f->interval, now);
    if (!f->started) {
        f->started = 1;
        f->window_start = ws;
        return;
    }
    if (ws <= f->window_start)
        return;
    long by = (ws - f->window_start) / f->interval;
    for (int k = 0; k < CRED_NKINDS; k++)
        for (size_t i = 0; i < f->kind[k].n; i++)
            shift(&f->kind[k].obj[i], f->depth, by);
    shift(&f->total, f->depth, by);
    f->window_start = ws;
}

void fs_add(struct fs *f, long now, const struct cred *const creds[CRED_NKINDS], double usage)
{
    fs_roll(f, now);
    for (int k = 0; k < CRED_NKINDS; k++) {
        const struct cred *c = creds ? creds[k] : NULL;
        if (c && (unsigned)c->kind < CRED_NKINDS)
            slots_get(f, c)->w[0] += usage;
    }
    f->total.w[0] += usage;
}

static double decayed(const struct fs *f, const struct fs_slots *s)
{
    if (!s)
        return 0;
    double sum = s->w[0], weight = 1;
    for (int i = 1; i < f->depth; i++) {
        weight *= f->decay;
        sum += s->w[i] * weight;
    }
    return sum;
}

double fs_usage(const struct fs *f, const struct cred *c)
{
    return decayed(f, slots_find(f, c));
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
    const struct fs_slots *s = slots_find(f, c);
    return s && i >= 0 && i < f->depth ? s->w[i] : 0;
}

double fs_total_window(const struct fs *f, int i)
{
    return i >= 0 && i < f->depth ? f->total.w[i] : 0;
}

long fs_window_start(const struct fs *f)
{
    return f->started ? f->window_start : 0;
}

double fs_delta(const struct fs *f, const struct cred *c, const struct fs_target *t)
{
    if (f->policy == FS_NONE || !t || t->mode == FS_MODE_NONE || t->value <= 0)
        return 0;
    if (t->mode == FS_MODE_CAP || t->mode == FS_MODE_PCAP)
        return 0; /* caps act on feasibility only; Maui forces the factor to 0 */
    if (fs_total(f) <= 0)
        return 0;
    double pct = fs_percent(f, c);
    double d = f->percent ? 1.0 - pct / t->value : t->value - pct;
    if (t->mode == FS_MODE_FLOOR && d < 0)
        d = 0;
    if (t->mode == FS_MODE_CEILING && d > 0)
        d = 0;
    return d;
}

int fs_over_cap(const struct fs *f, const struct cred *c, const struct fs_target *t, double request)
{
    if (!t || t->value <= 0)
        return 0;
    double use = fs_usage(f, c) + request;
    if (t->mode == FS_MODE_CAP)
        return use > t->value;
    if (t->mode == FS_MODE_PCAP) {
        double total = fs_total(f);
        return total > 0 && use / total * 100.0 > t->value;
    }
    return 0;
}

void fs_set_window(struct fs *f, const struct cred *c, int i, double usage)
{
    if (!c || (unsigned)c->kind >= CRED_NKINDS || i < 0 || i >= f->depth)
        return;
    slots_get(f, c)->w[i] = usage;
}

void fs_set_total_window(struct fs *f, int i, double usage)
{
    if (i >= 0 && i < f->depth)
        f->total.w[i] = usage;
}
