/* swfpack — see swfpack.h. */
#include "trace/swfpack.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/mem.h"

/* The most one record takes: 19 fields of at most 10 bytes, and the 8
 * bytes of each of its 3 doubles that are not whole numbers. */
#define REC_MAX (19 * 10 + 3 * 8)

/* Signed as unsigned with the sign in the low bit: -1 is 1, a byte. */
static inline unsigned long long zig(unsigned long long v)
{
    return (v << 1) ^ (0ULL - (v >> 63));
}

static inline unsigned long long unzig(unsigned long long z)
{
    return (z >> 1) ^ (0ULL - (z & 1));
}

static inline unsigned char *put_u(unsigned char *q, unsigned long long v)
{
    while (v >= 0x80) {
        *q++ = (unsigned char)(v | 0x80);
        v >>= 7;
    }
    *q++ = (unsigned char)v;
    return q;
}

static inline unsigned char *put_ll(unsigned char *q, long long v)
{
    return put_u(q, zig((unsigned long long)v));
}

/* The difference v - base, modulo 2^64 (no overflow whatever the two). */
static inline unsigned char *put_delta(unsigned char *q, long long v, long long base)
{
    return put_u(q, zig((unsigned long long)v - (unsigned long long)base));
}

/* A whole number (not -0, within 2^53, where every integer is a double)
 * as the integer shifted left, its low bit 0; else 1 and the 8 bytes. */
static inline unsigned char *put_double(unsigned char *q, double v)
{
    if (fabs(v) <= 0x1p53 && v == (double)(long long)v && !(v == 0 && signbit(v)))
        return put_u(q, zig((unsigned long long)(long long)v) << 1);
    *q++ = 1;
    memcpy(q, &v, sizeof v);
    return q + sizeof v;
}

void swfpack_add(struct swfpack *p, const struct swf_rec *r)
{
    if (p->cap - p->len < REC_MAX) {
        p->cap = p->cap ? 2 * p->cap : 1u << 16;
        p->buf = xrealloc(p->buf, p->cap);
    }
    unsigned char *q = p->buf + p->len;
    q = put_delta(q, r->line, p->last_line);
    q = put_delta(q, r->id, p->last_id);
    q = put_delta(q, r->submit, p->last_submit);
    q = put_ll(q, r->wait);
    q = put_ll(q, r->runtime);
    q = put_ll(q, r->alloc);
    q = put_double(q, r->cpu);
    q = put_double(q, r->mem_used);
    q = put_ll(q, r->req_procs);
    q = put_ll(q, r->req_time);
    q = put_double(q, r->req_mem);
    const long long rest[] = {r->status, r->user,      r->group,    r->app,
                              r->queue,  r->partition, r->prev_job, r->think};
    for (size_t i = 0; i < sizeof rest / sizeof *rest; i++)
        q = put_ll(q, rest[i]);
    p->len = (size_t)(q - p->buf);
    p->n++;
    p->last_line = r->line;
    p->last_id = r->id;
    p->last_submit = r->submit;
}

static const unsigned char *get_u_long(const unsigned char *q, unsigned long long *v)
{
    unsigned long long x = 0;
    for (unsigned shift = 0;; shift += 7) {
        unsigned char b = *q++;
        x |= (unsigned long long)(b & 0x7f) << shift;
        if (b < 0x80)
            break;
    }
    *v = x;
    return q;
}

/* Most fields of a trace take one or two bytes: those cases inline. */
static inline const unsigned char *get_u(const unsigned char *q, unsigned long long *v)
{
    if (q[0] < 0x80) {
        *v = q[0];
        return q + 1;
    }
    if (q[1] < 0x80) {
        *v = (q[0] & 0x7fu) | (unsigned)q[1] << 7;
        return q + 2;
    }
    return get_u_long(q, v);
}

static inline const unsigned char *get_ll(const unsigned char *q, long long *v)
{
    unsigned long long z;
    q = get_u(q, &z);
    *v = (long long)unzig(z);
    return q;
}

static inline const unsigned char *get_delta(const unsigned char *q, long long base, long long *v)
{
    unsigned long long z;
    q = get_u(q, &z);
    *v = (long long)((unsigned long long)base + unzig(z));
    return q;
}

static inline const unsigned char *get_double(const unsigned char *q, double *v)
{
    unsigned long long z;
    q = get_u(q, &z);
    if (z & 1) {
        memcpy(v, q, sizeof *v);
        return q + sizeof *v;
    }
    *v = (double)(long long)unzig(z >> 1);
    return q;
}

int swfpack_next(const struct swfpack *p, struct swfpack_cursor *c, struct swf_rec *r)
{
    if (c->pos >= p->len)
        return -1;
    const unsigned char *q = p->buf + c->pos;
    q = get_delta(q, c->line, &c->line);
    r->line = (long)c->line;
    q = get_delta(q, c->id, &r->id);
    q = get_delta(q, c->submit, &r->submit);
    q = get_ll(q, &r->wait);
    q = get_ll(q, &r->runtime);
    q = get_ll(q, &r->alloc);
    q = get_double(q, &r->cpu);
    q = get_double(q, &r->mem_used);
    q = get_ll(q, &r->req_procs);
    q = get_ll(q, &r->req_time);
    q = get_double(q, &r->req_mem);
    q = get_ll(q, &r->status);
    q = get_ll(q, &r->user);
    q = get_ll(q, &r->group);
    q = get_ll(q, &r->app);
    q = get_ll(q, &r->queue);
    q = get_ll(q, &r->partition);
    q = get_ll(q, &r->prev_job);
    q = get_ll(q, &r->think);
    c->pos = (size_t)(q - p->buf);
    c->id = r->id;
    c->submit = r->submit;
    return 0;
}

void swfpack_trim(struct swfpack *p)
{
    if (p->len && p->len < p->cap) {
        p->buf = xrealloc(p->buf, p->len);
        p->cap = p->len;
    }
}

void swfpack_free(struct swfpack *p)
{
    free(p->buf);
    memset(p, 0, sizeof *p);
}
