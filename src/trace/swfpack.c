/* swfpack — see swfpack.h. */
#include "trace/swfpack.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "util/mem.h"

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

/* ------------------------------------------------------- canonical lines */

/* A double field: whole numbers without a point, as the archive writes them. */
static char *dfield(char *p, double v)
{
    *p++ = ' ';
    if (v == (double)(long long)v)
        return obuf_fmt_ll(p, (long long)v);
    return obuf_fmt_fixed(p, v, 2);
}

/* Integer fields, each after a space. */
static char *ifields(char *p, const long long *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        *p++ = ' ';
        p = obuf_fmt_ll(p, v[i]);
    }
    return p;
}

char *swfpack_format(char *p, const struct swf_rec *r)
{
    p = obuf_fmt_ll(p, r->id);
    const long long first[] = {r->submit, r->wait, r->runtime, r->alloc};
    p = ifields(p, first, 4);
    p = dfield(p, r->cpu);
    p = dfield(p, r->mem_used);
    const long long req[] = {r->req_procs, r->req_time};
    p = ifields(p, req, 2);
    p = dfield(p, r->req_mem);
    const long long rest[] = {r->status, r->user,      r->group,    r->app,
                              r->queue,  r->partition, r->prev_job, r->think};
    return ifields(p, rest, 8);
}

/* The longest line kept as it was read: longer ones are formatted (a
 * canonical one is at most 18 tokens of 20 bytes). */
#define TEXT_MAX 400

/* Room for a record's text as it is made (a space after it, 16 more read
 * or packed), and for a record in the pack (its length's bytes, its text,
 * its line's step). */
_Static_assert(TEXT_MAX + 16 <= SWFPACK_LINE_ROOM,
               "a text kept as read fits a formatted one's room");
#define TEXT_ROOM SWFPACK_TEXT_ROOM
#define REC_ROOM (11 + TEXT_ROOM + 10)

/* Which kept start the field after space i (1-based) is, or -1. */
static const signed char after_space[12] = {-1, -1, 0, 1, -1, 2, -1, -1, -1, -1, 3, 4};

/* Where fields 3, 4, 6, 11 and 12 start in the n bytes of a line at t
 * whose fields are one space apart: 0 when it has fewer than 12. */
static int starts(const char *t, size_t n, size_t at[5])
{
    const char *p = t;
    for (unsigned i = 1; i < 12; i++) {
        const char *sp = memchr(p, ' ', n - (size_t)(p - t));
        if (!sp)
            return 0;
        p = sp + 1;
        if (after_space[i] >= 0)
            at[after_space[i]] = (size_t)(p - t);
    }
    return 1;
}

/* A canonical line's bytes are digits, spaces, '-' and '.': each is kept
 * as a nibble, two to a byte (the first in the low half), which halves
 * what a trace's records hold (HPC2N: 17 MB of fresh pages to 8 with
 * --swf-out). The nibble is the byte's low half ('0' .. '9': 0 .. 9, '-':
 * 13, '.': 14), but a space's, 0 as '0''s, is 15: made with two
 * operations, where a table of values took seven. */
enum { NIB_SPACE = 15, NIB_MINUS = '-' & 0x0F, NIB_POINT = '.' & 0x0F };

#if defined(__SSE2__)
/* A 16-byte chunk x as nibbles at q (8 bytes), sp its spaces (0xFF where
 * the byte is one); another byte than a digit, '-' or '.' has a nibble
 * that is not meaningful. */
static inline void pack16(unsigned char *q, __m128i x, __m128i sp)
{
    __m128i v = _mm_and_si128(_mm_or_si128(x, sp), _mm_set1_epi8(0x0F));
    /* each 16-bit lane: its first byte's nibble low, its second's high */
    __m128i w = _mm_and_si128(_mm_or_si128(v, _mm_srli_epi16(v, 4)), _mm_set1_epi16(0x00FF));
    _mm_storel_epi64((__m128i *)(void *)q, _mm_packus_epi16(w, w));
}

/* Whether each byte of x is a digit (0xFF) or not (0), from d = x - '0'. */
static inline __m128i digits16(__m128i d)
{
    return _mm_cmpeq_epi8(_mm_min_epu8(d, _mm_set1_epi8(9)), d);
}

/* The bytes of each kind among 64, a bit a byte (bit i: byte i). */
struct kinds {
    uint64_t space, minus, point, digit, zero;
    uint64_t lead; /* a token's leading 0 */
};

/* A line's chunks of 16 bytes, at most (and four to a 64-bit word). */
#define CHUNKS ((TEXT_MAX + 1 + 63) / 64 * 4)

/* Each kind's bits, a 16-bit mask a chunk: space, minus, point, digit, zero. */
struct chunk_masks {
    uint16_t m[5][CHUNKS];
};

/* The kinds of the n bytes at t (those to the next multiple of 16
 * readable) into c, 16 at a time, each chunk packed to q as it goes (8
 * bytes a chunk: the bytes packed, if the line is canonical). The bits
 * past n, to the end of their word, are not meaningful (nor set: bad
 * bytes and spaces are counted below n only, and the checks look back,
 * never on). */
static inline __attribute__((always_inline)) void kinds_pack(struct chunk_masks *c, const char *t,
                                                             size_t n, unsigned char *q)
{
    for (unsigned i = 0; 16 * i < n; i++) {
        __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(t + 16 * i));
        __m128i d = _mm_sub_epi8(x, _mm_set1_epi8('0')); /* a digit: 0 .. 9 */
        __m128i dig = digits16(d);
        __m128i sp = _mm_cmpeq_epi8(x, _mm_set1_epi8(' '));
        __m128i mi = _mm_cmpeq_epi8(x, _mm_set1_epi8('-'));
        __m128i pt = _mm_cmpeq_epi8(x, _mm_set1_epi8('.'));
        c->m[0][i] = (uint16_t)_mm_movemask_epi8(sp);
        c->m[1][i] = (uint16_t)_mm_movemask_epi8(mi);
        c->m[2][i] = (uint16_t)_mm_movemask_epi8(pt);
        c->m[3][i] = (uint16_t)_mm_movemask_epi8(dig);
        c->m[4][i] = (uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_set1_epi8('0')));
        pack16(q + 8 * i, x, sp);
    }
}

/* Kind k's bits for the 64 bytes of word w (little-endian, as every SSE2
 * machine is: chunk i's mask lands at bit 16 * i). */
static inline uint64_t word_bits(const struct chunk_masks *c, int k, size_t w)
{
    uint64_t v;
    memcpy(&v, &c->m[k][4 * w], sizeof v);
    return v;
}

/* The bits of word w that are among the n bytes. */
static inline uint64_t word_valid(size_t n, size_t w)
{
    return n - 64 * w >= 64 ? ~0ULL : (1ULL << (n - 64 * w)) - 1;
}

/* The kinds of word w; space_before: whether the byte before it is a
 * space (or the line's start). */
static inline struct kinds word_kinds(const struct chunk_masks *c, size_t w, uint64_t space_before)
{
    struct kinds k = {word_bits(c, 0, w), word_bits(c, 1, w), word_bits(c, 2, w),
                      word_bits(c, 3, w), word_bits(c, 4, w), 0};
    k.lead = k.zero & (k.space << 1 | space_before);
    return k;
}

/* x's bits k bytes on (the bytes before them from the 64 before, last). */
static inline uint64_t on(uint64_t x, uint64_t last, unsigned k)
{
    return x << k | last >> (64 - k);
}

/* The bytes of k that break a canonical token, from each byte and its
 * neighbours before it (last: the 64 bytes before). */
static inline __attribute__((always_inline)) uint64_t bad_bytes(const struct kinds *k,
                                                                const struct kinds *last)
{
    uint64_t space1 = on(k->space, last->space, 1), point1 = on(k->point, last->point, 1);
    uint64_t point2 = on(k->point, last->point, 2);
    uint64_t bad = ~(k->space | k->minus | k->point | k->digit);
    bad |= k->space & space1;                                     /* an empty token */
    bad |= k->minus & ~space1;                                    /* '-' within one */
    bad |= on(k->minus, last->minus, 1) & ~(k->digit & ~k->zero); /* "-0", "--", "-." */
    bad |= k->digit & on(k->lead, last->lead, 1);                 /* a leading zero */
    bad |= k->point & ~on(k->digit, last->digit, 1);              /* no digit before '.' */
    bad |= (point1 | point2) & ~k->digit;                         /* two decimals, */
    bad |= on(k->point, last->point, 3) & ~k->space;              /* then the token's end */
    bad |= point2 & k->zero & on(k->zero, last->zero, 1);         /* ".00": a whole number */
    return bad;
}

/* The bits set in x (without popcnt, which the build does not assume:
 * __builtin_popcountll was a call to libgcc's __popcountdi2). */
static inline unsigned count64(uint64_t x)
{
    x -= (x >> 1) & 0x5555555555555555ULL;
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
    return (unsigned)((x * 0x0101010101010101ULL) >> 56);
}

/* Word w of the n bytes' kinds in c: its bad bytes; *last (the word
 * before's kinds) becomes its own. */
static inline __attribute__((always_inline)) uint64_t
check_word(const struct chunk_masks *c, size_t w, size_t n, struct kinds *last)
{
    struct kinds k = word_kinds(c, w, last->space >> 63);
    uint64_t bad = bad_bytes(&k, last) & word_valid(n, w);
    *last = k;
    return bad;
}

/* Whether the n bytes classed in c (the last a space: the end of the
 * last token) hold 12 tokens: 12 spaces, the first 64 bytes' (all a
 * trace's line needs) counted first. (11 were taken before, the end's
 * among them: a text of 11 tokens, which the reader never gives, was kept
 * with its field 12 "starting" past its end.) */
static int enough_spaces(const struct chunk_masks *c, size_t n)
{
    unsigned spaces = count64(word_bits(c, 0, 0) & word_valid(n, 0));
    for (size_t w = 1; spaces < 12 && 64 * w < n; w++)
        spaces += count64(word_bits(c, 0, w) & word_valid(n, w));
    return spaces >= 12;
}

/*
 * Whether the n bytes at t (a space at t[n - 1]; readable, and spaces, to
 * the next multiple of 16) are canonical tokens one space apart: each 0,
 * or digits without a leading zero after an optional '-', or either with
 * a point and two decimals that are not both 0 ("-0.50" is not taken: it
 * is formatted), 12 at least (as the reader's lines have 18, with no
 * other blank between them). They are
 * packed at q as they are checked (to the next multiple of 8 past
 * (n + 1) / 2 bytes): what the pack keeps when they are canonical. The
 * bytes are classed in one pass, then checked 64 at a time.
 */
static int canonical_text(const char *t, size_t n, unsigned char *q)
{
    struct chunk_masks c;
    kinds_pack(&c, t, n, q);
    /* The first word apart, after a constant "before" (the line starts a
     * token), which its checks fold; the rest after the word before. */
    struct kinds last = {.space = 1ULL << 63};
    uint64_t bad = check_word(&c, 0, n, &last);
    if (n > 64) /* a trace's line (HPC2N: about 70 bytes): straight on */
        bad |= check_word(&c, 1, n, &last);
    for (size_t w = 2; 64 * w < n; w++)
        bad |= check_word(&c, w, n, &last);
    return !bad && enough_spaces(&c, n);
}
#endif

static void pack_text(unsigned char *q, const char *t, size_t n);

/* A text shorter than this has its length in one byte (LEN_LONG, below). */
#define SHORT_MAX 255

/*
 * The length of r's line copied to t (TEXT_ROOM bytes) and packed at q
 * (as the pack keeps it: (length + 1) / 2 bytes, and scratch to the next
 * multiple of 8 past them) when it is canonical already (r->canon: the
 * reader says so, which is taken unchecked; else checked here); else 0 (q's
 * bytes scratch). A double field's value is checked too: a whole one
 * below 2^53 is the integer its token reads, and one with two decimals
 * below 10^13 comes back from "%.2f" as its token (the parser's double is
 * the nearest to it, within 0.002).
 */
static size_t canonical(const struct swf_rec *r, char *t, unsigned char *q)
{
#ifdef __SSE2__
    if (!r->text)
        return 0;
    /* (the reader's canon covers the doubles' size too; a short canonical
     * one does not come here: swfpack_add) */
    if (!r->canon && !(fabs(r->cpu) < 1e13 && fabs(r->mem_used) < 1e13 && fabs(r->req_mem) < 1e13))
        return 0;
    size_t n = strlen(r->text);
    n -= n && r->text[n - 1] == '\n';
    if (!n || n > TEXT_MAX)
        return 0;
    memcpy(t, r->text, n);  /* a long one's: add_other packs it from t */
    memset(t + n, ' ', 16); /* the end of the last token; spaces packed past it */
    if (r->canon) {
        pack_text(q, t, n + 1);
        return n;
    }
    return canonical_text(t, n + 1, q) ? n : 0;
#else
    (void)r, (void)t, (void)q; /* formatted: the check reads 16 bytes at a time */
    return 0;
#endif
}

/* ------------------------------------------------------ the text, packed */

#if defined(__SSE2__)
/* The n bytes at t (packable; readable, and spaces, to the next multiple
 * of 16) as nibbles at q, 16 bytes to 8; writes to the next multiple of 8. */
static void pack_text(unsigned char *q, const char *t, size_t n)
{
    for (size_t i = 0; i < n; i += 16) {
        __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(t + i));
        pack16(q + i / 2, x, _mm_cmpeq_epi8(x, _mm_set1_epi8(' ')));
    }
}

/* The n bytes packed at q (readable to the next multiple of 8) to t,
 * which has room to the next multiple of 16. */
static void unpack_text(char *t, const unsigned char *q, size_t n)
{
    const __m128i low = _mm_set1_epi8(0x0F);
    for (size_t i = 0; i < n; i += 16) {
        __m128i b = _mm_loadl_epi64((const __m128i *)(const void *)(q + i / 2));
        __m128i v =
            _mm_unpacklo_epi8(_mm_and_si128(b, low), _mm_and_si128(_mm_srli_epi16(b, 4), low));
        /* '0' + v; the others' ('-', '.', 15: a space) 0x10 less; a space's low half 0 */
        __m128i sp = _mm_cmpeq_epi8(v, _mm_set1_epi8(NIB_SPACE));
        __m128i c = _mm_or_si128(v, _mm_set1_epi8('0'));
        c = _mm_sub_epi8(c,
                         _mm_and_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8(9)), _mm_set1_epi8(0x10)));
        c = _mm_andnot_si128(_mm_and_si128(sp, _mm_set1_epi8(0x0F)), c);
        _mm_storeu_si128((__m128i *)(void *)(t + i), c);
    }
}
#else
static unsigned nibble_of(char c)
{
    return c == ' ' ? NIB_SPACE : (unsigned)c & 0x0F;
}

static void pack_text(unsigned char *q, const char *t, size_t n)
{
    for (size_t i = 0; i < n; i += 2)
        q[i / 2] = (unsigned char)(nibble_of(t[i]) | (i + 1 < n ? nibble_of(t[i + 1]) : 0) << 4);
}

static void unpack_text(char *t, const unsigned char *q, size_t n)
{
    static const char chars[16] = "0123456789xxx-. "; /* 10 .. 12: unused */
    for (size_t i = 0; i < n; i++)
        t[i] = chars[(q[i / 2] >> (4 * (i % 2))) & 0x0F];
}
#endif

/* ---------------------------------------------------------------- records */

/* A record: its text's length, then its text, then its line's difference
 * from the record before (a variable-length integer, 7 bits a byte). The
 * length is one byte below LEN_LONG for a packed text (nearly every one),
 * followed by where fields 3, 6, 11 and 12 start (a byte each: the reader
 * knows them as it parses, and the writer then neither looks for spaces
 * nor counts them; 4 bytes a record); else LEN_LONG and length * 2 + 1 for
 * a text kept as it is (one with other bytes: "inf"), or length * 2 for a
 * long packed one, whose fields' starts are found again when it is read. */
#define LEN_LONG SHORT_MAX
#define NSTARTS 4

/* Room past a record's bytes: the unpacking reads 8 bytes at a time. */
#define SLACK 16

/* The starts of a short text's fields 3, 6, 11, 12 at q, from the n bytes
 * at t (a line of 18 fields: canonical, or formatted). */
static void put_starts(unsigned char *q, const char *t, size_t n)
{
    size_t at[5] = {0};
    starts(t, n, at);
    q[0] = (unsigned char)at[0], q[1] = (unsigned char)at[2];
    q[2] = (unsigned char)at[3], q[3] = (unsigned char)at[4];
}

/* A record's length and text at q but for a short canonical one's: the
 * canonical text of len bytes at t (spaces past it), a long one; else
 * (len 0) r's line formatted, packed when it can be, else kept as it is.
 * Returns the end. */
static unsigned char *add_other(unsigned char *q, const struct swf_rec *r, char *t, size_t len)
{
    int packed = 1;
    if (!len) { /* not canonical, or no text: formatted */
        len = (size_t)(swfpack_format(t, r) - t);
        /* digits, spaces, '-' and '.' but for a double that is not finite */
        packed = isfinite(r->cpu) && isfinite(r->mem_used) && isfinite(r->req_mem);
        memset(t + len, ' ', 16); /* what is packed past the end: spaces */
    }
    if (packed && len < LEN_LONG) {
        *q++ = (unsigned char)len;
        put_starts(q, t, len);
        q += NSTARTS;
    } else {
        *q++ = LEN_LONG, q = put_u(q, (unsigned long long)len * 2 + !packed);
    }
    if (packed) {
        pack_text(q, t, len);
        return q + (len + 1) / 2;
    }
    memcpy(q, t, len);
    return q + len;
}

/* A record's bytes at q but for a short line the reader saw canonical:
 * its text checked (and packed as it is, where a short one's goes: after
 * its length's and its starts' bytes), else formatted. Returns the end.
 * Out of line: its buffer costs the common record a stack frame. */
static __attribute__((noinline)) unsigned char *add_checked(unsigned char *q,
                                                            const struct swf_rec *r)
{
    char text[TEXT_ROOM];
    size_t len = canonical(r, text, q + 1 + NSTARTS);
    if (len && len < LEN_LONG) {
        *q++ = (unsigned char)len;
        put_starts(q, text, len);
        return q + NSTARTS + (len + 1) / 2;
    }
    return add_other(q, r, text, len);
}

/* A short record's bytes at q for a line the reader saw canonical but for
 * whole numbers written with ".00" (r->dot00): its text without them,
 * whose fields' starts move 3 bytes back for each left out before them.
 * A canonical token's point is followed by two decimals that are not both
 * 0, so every ".00" in the text is such a number's. Returns the end.
 * (Formatted from the values, as before, these lines cost about 1,500
 * instructions each; HPC2N has 7,539.) */
static __attribute__((noinline)) unsigned char *add_dot00(unsigned char *q, const struct swf_rec *r)
{
    char t[TEXT_ROOM];
    unsigned char at[NSTARTS];
    memcpy(at, r->at, NSTARTS);
    const char *s = r->text, *end = s + r->text_len;
    size_t n = 0;
    for (const char *dot; (dot = memchr(s, '.', (size_t)(end - s))) != NULL; s = dot + 1) {
        memcpy(t + n, s, (size_t)(dot - s));
        n += (size_t)(dot - s);
        if (dot[1] == '0' && dot[2] == '0') {
            for (int k = 0; k < NSTARTS; k++) /* (at: already moved back, as n) */
                at[k] = (unsigned char)(at[k] - 3 * (at[k] > n));
            dot += 2;
        } else {
            t[n++] = '.';
        }
    }
    memcpy(t + n, s, (size_t)(end - s));
    n += (size_t)(end - s);
    memset(t + n, ' ', 16); /* what is packed past the end: spaces */
    *q++ = (unsigned char)n;
    memcpy(q, at, NSTARTS);
    pack_text(q + NSTARTS, t, n);
    return q + NSTARTS + (n + 1) / 2;
}

void swfpack_add(struct swfpack *p, const struct swf_rec *r)
{
    if (p->cap - p->len < REC_ROOM + SLACK) {
        p->cap = p->cap ? 2 * p->cap : 1u << 16;
        p->buf = xrealloc(p->buf, p->cap);
    }
    unsigned char *q = p->buf + p->len;
    size_t n = r->text_len;
    if (r->text && r->canon && n && n < SHORT_MAX) {
        /* The reader saw it canonical as it parsed it: packed unchecked,
         * straight from the reader's line (readable 16 bytes on: what is
         * packed past its end is scratch, never read back), whose length
         * and fields' starts the reader knows. */
        *q = (unsigned char)n;
        memcpy(q + 1, r->at, NSTARTS);
        pack_text(q + 1 + NSTARTS, r->text, n);
        q += 1 + NSTARTS + (n + 1) / 2;
    } else if (r->text && r->dot00 && n && n < SHORT_MAX) {
        q = add_dot00(q, r);
    } else {
        q = add_checked(q, r);
    }
    q = put_u(q, zig((unsigned long long)r->line - (unsigned long long)p->last_line));
    p->len = (size_t)(q - p->buf);
    p->n++;
    p->last_line = r->line;
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

/* A long or unpacked record's text at q (len bytes) to c's, with where
 * its fields start, found by a search; returns the end of its bytes. */
static const unsigned char *read_long(const unsigned char *q, struct swfpack_cursor *c,
                                      struct swfpack_line *l)
{
    unsigned long long v;
    q = get_u_long(q, &v);
    size_t len = (size_t)(v / 2);
    if (v % 2 == 0) {
        unpack_text(c->text, q, len);
        q += (len + 1) / 2;
    } else {
        memcpy(c->text, q, len);
        q += len;
    }
    l->len = len;
    size_t at[5];
    starts(c->text, len, at);
    l->f3 = at[0], l->f4 = at[1], l->f6 = at[2], l->f11 = at[3], l->f12 = at[4];
    return q;
}

int swfpack_next(const struct swfpack *p, struct swfpack_cursor *c, struct swfpack_line *l)
{
    if (c->pos >= p->len)
        return -1;
    const unsigned char *q = p->buf + c->pos;
    size_t len = *q++;
    l->text = c->text;
    if (len != LEN_LONG) {
        l->len = len;
        l->f3 = q[0], l->f6 = q[1], l->f11 = q[2], l->f12 = q[3];
        unpack_text(c->text, q + NSTARTS, len);
        q += NSTARTS + (len + 1) / 2;
        /* field 4 after field 3, a few digits (skipped_line's) */
        const char *f4 = c->text + l->f3;
        while (*f4 != ' ')
            f4++;
        l->f4 = (size_t)(f4 - c->text) + 1;
    } else {
        q = read_long(q, c, l);
    }
    unsigned long long z;
    if (*q < 0x80) /* the common step: the next line */
        z = *q++;
    else
        q = get_u_long(q, &z);
    c->line = (long)((unsigned long long)c->line + unzig(z));
    l->line = c->line;
    c->pos = (size_t)(q - p->buf);
    return 0;
}

void swfpack_trim(struct swfpack *p)
{
    if (p->len && p->len + SLACK < p->cap) {
        p->buf = xrealloc(p->buf, p->len + SLACK);
        p->cap = p->len + SLACK;
    }
}

void swfpack_free(struct swfpack *p)
{
    free(p->buf);
    memset(p, 0, sizeof *p);
}
