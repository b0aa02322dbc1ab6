/*
 * obuf — the buffered writer of the simulator's large outputs (the jobs
 * CSV, the series, the SWF and Batsim files, the reservations log).
 *
 * Text goes into a large buffer and leaves it with write(2) in big blocks;
 * integers and fixed-point numbers are formatted by hand, as printf would
 * write them (printf's format parsing cost more than the replay on large
 * traces). The first failed write (ENOSPC, EIO) is kept: what follows is
 * dropped and obuf_close() reports it with the file's name, so a short
 * file never goes unnoticed. A memory writer collects the bytes instead
 * (a worker's rows, tests).
 *
 * Not a general stdio: no reading, no seeking, one writer per file.
 */
#ifndef MOKU_OBUF_H
#define MOKU_OBUF_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct err;

/* Its fields are the module's own: they are here only so that the small
 * appends below can be inlined (a jobs CSV makes tens of millions). */
struct obuf {
    char *buf;
    size_t len, cap;
    unsigned long long off; /* a file writer's: buf[0]'s offset from where it began */
    int fd;                 /* -1: a memory writer */
    int error;              /* the first failed write's errno, 0: none */
    char *path;             /* for messages; NULL for memory */
};

/* Create (or truncate) the file at path for writing. NULL and err set to
 * "PATH: cannot write: REASON" when it cannot be opened. */
struct obuf *obuf_open(const char *path, struct err *err);

/* A writer into the open file fd (closed by obuf_close); its errors name
 * the file name (a temporary's target, say). */
struct obuf *obuf_fdopen(int fd, const char *name);

/* A writer into memory (never fails: out of memory aborts, as xmalloc). */
struct obuf *obuf_mem(void);

/* Append bytes, a string, a character. */
void obuf_write_slow(struct obuf *b, const void *p, size_t n);
static inline void obuf_write(struct obuf *b, const void *p, size_t n)
{
    if (n <= b->cap - b->len) {
        memcpy(b->buf + b->len, p, n);
        b->len += n;
    } else {
        obuf_write_slow(b, p, n);
    }
}

static inline void obuf_puts(struct obuf *b, const char *s)
{
    obuf_write(b, s, strlen(s));
}

static inline void obuf_putc(struct obuf *b, char c)
{
    if (b->len < b->cap)
        b->buf[b->len++] = c;
    else
        obuf_write_slow(b, &c, 1);
}

/* Append an integer in decimal, as printf's %lld / %llu. */
void obuf_ull(struct obuf *b, unsigned long long v);
void obuf_ll_any(struct obuf *b, long long v);
static inline void obuf_ll(struct obuf *b, long long v)
{
    /* A digit or SWF's -1 (flags, counts, unknown fields: most of an SWF
     * line, much of a CSV row) without the general path's call. */
    if (v >= -1 && v <= 9 && b->cap - b->len >= 2) {
        if (v < 0)
            b->buf[b->len++] = '-';
        b->buf[b->len++] = (char)('0' + (v < 0 ? 1 : v));
        return;
    }
    obuf_ll_any(b, v);
}

/*
 * Formatting in place, a row in one go: obuf_reserve(b, n) makes room for
 * n bytes (at most 256 KB) and returns where they start; the caller writes
 * there with the obuf_fmt_* functions (each needs its room past where it
 * starts, and may write scratch bytes past what it returns) and plain
 * stores, then obuf_commit(b, end) takes the bytes up to end. Nothing else
 * may touch b in between.
 */
#define OBUF_LL_ROOM 24     /* a number: sign, 20 digits, scratch */
#define OBUF_FIXED_ROOM 336 /* printf's "%.9f" of the largest double, and more */
char *obuf_reserve_slow(struct obuf *b, size_t n);
static inline char *obuf_reserve(struct obuf *b, size_t n)
{
    return n <= b->cap - b->len ? b->buf + b->len : obuf_reserve_slow(b, n);
}
static inline void obuf_commit(struct obuf *b, char *end)
{
    b->len = (size_t)(end - b->buf);
}

/*
 * Digits without printf (little-endian machines): each number below 10^8
 * (nearly every time, count and id the outputs hold) formatted where it is
 * used, two digits a step, without a call; the rest in obuf.c, eight
 * digits a machine word at a time.
 */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define OBUF_WORDS

/* "00" .. "99". */
extern const char obuf_pairs[201];

/*
 * The eight digits of v < 10^8, leading zeros included, as the bytes of a
 * little-endian word (the first digit in the low byte), all lanes at once
 * (SWAR): its two halves of four digits in two 32-bit lanes, divided by 100
 * in each, then their four pairs in four 16-bit lanes divided by 10. Each
 * division is a multiplication and a shift, exact in its range (x / 10^4
 * for x < 10^8, / 100 for < 10^4, / 10 for < 100); no table load. Checked
 * for all 10^8 values when this was written.
 */
static inline uint64_t obuf_eight_digits(uint32_t v)
{
    uint64_t x = v, hi = (x * 109951163) >> 40; /* v / 10^4 */
    uint64_t halves = hi | (x - hi * 10000) << 32;
    uint64_t top = ((halves * 10486) >> 20) & (0x7FULL << 32 | 0x7F); /* lanes / 100 */
    uint64_t pairs = (halves - 100 * top) << 16 | top;
    uint64_t tens = ((pairs * 103) >> 10) & 0x000F000F000F000FULL; /* lanes / 10 */
    return (tens | (pairs - 10 * tens) << 8) | 0x3030303030303030ULL;
}

/* The pair "00" .. "99" of k < 100 at p. */
static inline void obuf_put_pair(char *p, uint64_t k)
{
    memcpy(p, obuf_pairs + 2 * k, 2);
}

/*
 * v / 10^k as a fixed-point number with 32 fraction bits (its integer part,
 * v's first one or two digits, above them), for v < 10^(k + 2), k = 2, 4,
 * 6: v times 2^57 / 10^k rounded up (f), shifted to 32 fraction bits, plus
 * one unit. Its error is above zero (the unit covers the shift's
 * truncation) and below 2^-30 + 2^-32 < 10^-k, so each of the k / 2
 * multiplications of the fraction by 100 below puts the next pair exactly
 * in the integer part. Checked against the digits of every v < 10^8.
 */
#define OBUF_FRAC2 1441151880758559ULL /* 2^57 / 10^2, rounded up */
#define OBUF_FRAC4 14411518807586ULL   /* 2^57 / 10^4 */
#define OBUF_FRAC6 144115188076ULL     /* 2^57 / 10^6 */
static inline uint64_t obuf_frac(uint32_t v, uint64_t f)
{
    return ((uint64_t)v * f >> 25) + 1;
}

/* The integer part of t (one or two digits) at p; returns their end. */
static inline char *obuf_put_lead(char *p, uint64_t t)
{
    uint64_t lead = t >> 32;
    if (lead < 10) {
        *p = (char)('0' + lead);
        return p + 1;
    }
    obuf_put_pair(p, lead);
    return p + 2;
}

/* The next pair of t's fraction at p (t moves on to the rest). */
static inline char *obuf_put_next(char *p, uint64_t *t)
{
    *t = (uint64_t)(uint32_t)*t * 100;
    obuf_put_pair(p, *t >> 32);
    return p + 2;
}

/* The digits of v < 10^8 without leading zeros at p (8 bytes of room);
 * returns their end. Two digits a step from the table, left to right,
 * the length known from v's range (one comparison a pair of digits): no
 * word of eight digits to shift its leading zeros out of, and a short
 * number (a count, a time of day) takes few steps. Always inlined: GCC
 * kept it out of line, a call a number. */
static inline __attribute__((always_inline)) char *obuf_lead_digits(char *p, uint32_t v)
{
    uint64_t t;
    if (v < 100) {
        if (v < 10) {
            *p = (char)('0' + v);
            return p + 1;
        }
        obuf_put_pair(p, v);
        return p + 2;
    }
    if (v < 10000) {
        t = obuf_frac(v, OBUF_FRAC2);
        return obuf_put_next(obuf_put_lead(p, t), &t);
    }
    if (v < 1000000) {
        t = obuf_frac(v, OBUF_FRAC4);
        p = obuf_put_next(obuf_put_lead(p, t), &t);
        return obuf_put_next(p, &t);
    }
    t = obuf_frac(v, OBUF_FRAC6);
    p = obuf_put_next(obuf_put_lead(p, t), &t);
    p = obuf_put_next(p, &t);
    return obuf_put_next(p, &t);
}
#endif

/* v in decimal at p (OBUF_LL_ROOM bytes), as printf's %lld / %llu; returns
 * the end. Always inlined: a row's many numbers each paid a call's moves
 * and spills (a third of a number's cost) where GCC kept it out of line. */
char *obuf_fmt_ull_any(char *p, unsigned long long v);
char *obuf_fmt_ll_any(char *p, long long v);
static inline __attribute__((always_inline)) char *obuf_fmt_ull(char *p, unsigned long long v)
{
#ifdef OBUF_WORDS
    if (v < 100000000ULL) /* a node's index: Batsim's intervals */
        return obuf_lead_digits(p, (uint32_t)v);
#endif
    return obuf_fmt_ull_any(p, v);
}
static inline __attribute__((always_inline)) char *obuf_fmt_ll(char *p, long long v)
{
    if (v >= -1 && v <= 9) { /* a digit or SWF's -1, as obuf_ll */
        *p = '-';
        p += v < 0;
        *p++ = (char)('0' + (v < 0 ? 1 : v));
        return p;
    }
#ifdef OBUF_WORDS
    if ((unsigned long long)v < 100000000ULL) /* 10 .. 10^8 - 1 */
        return obuf_lead_digits(p, (uint32_t)v);
#endif
    return obuf_fmt_ll_any(p, v);
}

/* The len bytes (at most 16) written at from, again at p (16 bytes of
 * room; from readable 16 bytes on, within the same reservation): a number
 * a row holds already (its start, equal to its submit time when it did
 * not wait: most rows), without its digits made again. Loaded before
 * stored: the two may overlap. Returns the end. */
static inline char *obuf_fmt_again(char *p, const char *from, size_t len)
{
    char d[16];
    memcpy(d, from, 16);
    memcpy(p, d, 16);
    return p + len;
}

/* v as obuf_fixed writes it at p (OBUF_FIXED_ROOM bytes), decimals 0..9;
 * returns the end. */
char *obuf_fmt_fixed(char *p, double v, int decimals);

/* Append v as printf's "%.<decimals>f" writes it (the exact binary value
 * rounded half to even; "-0.000" for small negatives; inf, nan as printf). */
void obuf_fixed(struct obuf *b, double v, int decimals);

/* Append formatted text (for the rare, short parts: headers). */
void obuf_printf(struct obuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* 1 once a write has failed (nothing more is written). */
int obuf_failed(const struct obuf *b);

/* A memory writer's bytes so far (NUL-terminated, *len without it); the
 * writer still owns them. NULL for a file writer. */
const char *obuf_data(struct obuf *b, size_t *len);

/* Empty a memory writer, keeping its buffer (a scratch reused per row). */
void obuf_reset(struct obuf *b);

/* Flush, close and free b (NULL: nothing, 0). -1 and err set to
 * "PATH: write failed: REASON" when anything written was lost. */
int obuf_close(struct obuf *b, struct err *err);

#endif
