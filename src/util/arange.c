/*
 * arange — job array index ranges (qsub -t, -J) into sorted index lists.
 *
 * Both syntaxes end in an optional "%N" slot limit; the rest is a list of
 * pieces, each counted before it is expanded, so that "0-2000000000" is
 * refused by the bound without ever allocating for it. The indices are then
 * sorted and an index given twice is an error: Torque's own parser quietly
 * merges "1-5,3", but a list that names a task twice is a typing mistake
 * more often than a wish, and the array would silently be smaller than asked.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/arange.h"
#include "util/mem.h"

/* What the user wrote, for messages: at most 40 bytes, anything not
 * printable ASCII shown as '?', so a message is always one clean line. */
struct shown {
    char s[48];
};

static struct shown shown(const char *p, size_t n)
{
    struct shown r;
    size_t k = 0;
    for (; k < n && k < 40; k++)
        r.s[k] = (p[k] >= 0x20 && p[k] < 0x7f) ? p[k] : '?';
    if (k < n) {
        memcpy(r.s + k, "...", 3);
        k += 3;
    }
    r.s[k] = '\0';
    return r;
}

/* A decimal number of [p, end) into *v: digits only, at most
 * ARANGE_INDEX_MAX. Returns the first byte not used, NULL when there is no
 * number or it is too big. */
static const char *num(const char *p, const char *end, unsigned *v)
{
    unsigned long long x = 0;
    const char *q = p;
    while (q < end && isdigit((unsigned char)*q)) {
        x = x * 10 + (unsigned)(*q - '0');
        if (x > ARANGE_INDEX_MAX)
            return NULL;
        q++;
    }
    if (q == p)
        return NULL;
    *v = (unsigned)x;
    return q;
}

/* One piece: lo, hi, step. */
struct piece {
    unsigned lo, hi, step;
};

static size_t piece_count(const struct piece *pc)
{
    return (size_t)((pc->hi - pc->lo) / pc->step) + 1;
}

/* The "%N" at the end of s: *slots (0 when absent) and *body_len, the length
 * of what comes before it. */
static int split_slots(const char *s, size_t *body_len, unsigned *slots, struct err *err)
{
    const char *pct = strchr(s, '%');
    size_t len = strlen(s);
    *slots = 0;
    *body_len = len;
    if (!pct)
        return 0;
    const char *end = s + len;
    unsigned v;
    const char *q = num(pct + 1, end, &v);
    if (!q || q != end)
        return err_set(err, "bad slot limit '%s' in '%s' (want %%N, N a number of tasks)",
                       shown(pct, (size_t)(end - pct)).s, shown(s, len).s);
    if (v == 0)
        return err_set(err, "slot limit %%0 in '%s': at least one task must be able to run",
                       shown(s, len).s);
    *slots = v;
    *body_len = (size_t)(pct - s);
    return 0;
}

/* Parse [p, end) as "A", "A-B" or (with steps) "A-B:S" into *pc. */
static int parse_piece(const char *p, const char *end, int steps, struct piece *pc,
                       const char *whole, struct err *err)
{
    const char *q = num(p, end, &pc->lo);
    pc->hi = pc->lo;
    pc->step = 1;
    if (q && q < end && *q == '-')
        q = num(q + 1, end, &pc->hi);
    if (q && steps && q < end && *q == ':')
        q = num(q + 1, end, &pc->step);
    if (!q || q != end)
        return err_set(err, "bad array index '%s' in '%s' (want %s, with an optional %%N)",
                       shown(p, (size_t)(end - p)).s, shown(whole, strlen(whole)).s,
                       steps ? "A-B or A-B:STEP" : "N, N-M or a comma list of them");
    if (pc->hi < pc->lo)
        return err_set(err, "array range '%s' runs down (%u > %u)", shown(p, (size_t)(end - p)).s,
                       pc->lo, pc->hi);
    if (pc->step == 0)
        return err_set(err, "array range '%s': the step must be at least 1",
                       shown(p, (size_t)(end - p)).s);
    return 0;
}

static int cmp_unsigned(const void *a, const void *b)
{
    unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
    return (x > y) - (x < y);
}

/* The pieces' indices into a (total tasks: n), sorted; an index twice is an
 * error. */
static int expand(const struct piece *pcs, size_t npcs, size_t n, struct arange *a,
                  const char *whole, struct err *err)
{
    unsigned *idx = xmalloc(n * sizeof *idx);
    size_t k = 0;
    for (size_t i = 0; i < npcs; i++)
        for (unsigned long long x = pcs[i].lo; x <= pcs[i].hi; x += pcs[i].step)
            idx[k++] = (unsigned)x;
    qsort(idx, n, sizeof *idx, cmp_unsigned);
    for (size_t i = 1; i < n; i++) {
        if (idx[i] == idx[i - 1]) {
            unsigned dup = idx[i];
            free(idx);
            return err_set(err, "array index %u is given twice in '%s'", dup,
                           shown(whole, strlen(whole)).s);
        }
    }
    a->idx = idx;
    a->n = n;
    return 0;
}

/* The common part: the body of s (before "%N") as a comma list of pieces
 * (steps: PBS Pro's "A-B:S"; one piece only when !list). */
static int parse(const char *s, size_t max, int steps, int list, struct arange *a, struct err *err)
{
    memset(a, 0, sizeof *a);
    size_t body;
    unsigned slots;
    if (!s || !*s)
        return err_set(err, "empty array range");
    if (split_slots(s, &body, &slots, err) < 0)
        return -1;
    size_t npcs = 0, cap = 0, total = 0;
    struct piece *pcs = NULL;
    const char *p = s, *end = s + body;
    for (;;) {
        const char *comma = memchr(p, ',', (size_t)(end - p));
        const char *stop = (list && comma) ? comma : end;
        pcs = xgrow(pcs, &cap, npcs + 1, sizeof *pcs);
        if (parse_piece(p, stop, steps, &pcs[npcs], s, err) < 0)
            goto fail;
        total += piece_count(&pcs[npcs++]);
        if (total > max) {
            err_set(err, "'%s' asks for more than %zu tasks (MAXJOBARRAYSIZE %zu)",
                    shown(s, strlen(s)).s, max, max);
            goto fail;
        }
        if (stop == end)
            break;
        p = stop + 1;
    }
    if (expand(pcs, npcs, total, a, s, err) < 0)
        goto fail;
    free(pcs);
    a->slots = slots;
    return 0;
fail:
    free(pcs);
    return -1;
}

int arange_parse_torque(const char *s, size_t max, struct arange *a, struct err *err)
{
    return parse(s, max, 0, 1, a, err);
}

int arange_parse_pbs(const char *s, size_t max, struct arange *a, struct err *err)
{
    if (parse(s, max, 1, 0, a, err) < 0)
        return -1;
    /* PBS Pro refuses "-J 3" and "-J 3-3": an array has a range. Here the
     * parser has read one piece, so one task means lo == hi. */
    if (a->n < 2 && !strchr(s, '-')) {
        arange_free(a);
        return err_set(err, "bad array range '%s' (PBS Pro's -J wants A-B[:STEP][%%N])",
                       shown(s, strlen(s)).s);
    }
    if (a->n < 2) {
        arange_free(a);
        return err_set(err, "array range '%s' has one index (PBS Pro's -J wants A < B)",
                       shown(s, strlen(s)).s);
    }
    return 0;
}

char *arange_format(const struct arange *a)
{
    size_t cap = 32, len = 0;
    char *out = xmalloc(cap);
    out[0] = '\0';
    for (size_t i = 0; i < a->n;) {
        size_t j = i;
        while (j + 1 < a->n && a->idx[j + 1] == a->idx[j] + 1)
            j++;
        char piece[32];
        int k = j > i ? snprintf(piece, sizeof piece, "%s%u-%u", i ? "," : "", a->idx[i], a->idx[j])
                      : snprintf(piece, sizeof piece, "%s%u", i ? "," : "", a->idx[i]);
        out = xgrow(out, &cap, len + (size_t)k + 16, 1);
        memcpy(out + len, piece, (size_t)k + 1);
        len += (size_t)k;
        i = j + 1;
    }
    if (a->slots) {
        out = xgrow(out, &cap, len + 16, 1);
        snprintf(out + len, cap - len, "%%%u", a->slots);
    }
    return out;
}

int arange_has(const struct arange *a, unsigned x)
{
    return bsearch(&x, a->idx, a->n, sizeof *a->idx, cmp_unsigned) != NULL;
}

void arange_free(struct arange *a)
{
    if (!a)
        return;
    free(a->idx);
    memset(a, 0, sizeof *a);
}
