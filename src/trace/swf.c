/*
 * swf — see swf.h.
 *
 * One pass over the file, line by line through trace/lines (zlib: plain or
 * gzip, recognised by content). Each job line is converted in one pass, field
 * by field, straight into the record array: a hand-written decimal-integer
 * loop takes nearly every token, and only the others (HPC2N's "552.21",
 * "3600.0", junk) go to strtod. Real traces have hundreds of thousands of
 * lines of 18 fields, and with sscanf or a split-then-convert pass reading
 * them took several times longer than decompressing them.
 *
 * This layer only reads: it keeps every well-formed line, including negative
 * runtimes and lines without processors, and leaves skipping to the loader.
 */
#include "trace/swf.h"

#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "trace/lines.h"
#include "util/handoff.h"
#include "util/mem.h"

#define SWF_NFIELDS 18
#define SWF_TOKEN_SHOWN 64 /* at most this much of a bad token goes into a message */
/* Times and durations past ±2^40 s (some 34,800 years) are errors: the engine
 * adds times to durations and keeps 2^62 as "never", so a time near that
 * would wrap or become "never" (a job that vanishes, a replay that never
 * ends). */
#define SWF_TIME_MAX ((long long)1 << 40)

/* The 18 fields in file order (field number = index + 1) and where each goes. */
static const struct swf_field {
    const char *name;
    size_t off;
    bool real; /* stored as double, fractions allowed */
    bool time; /* seconds: at most SWF_TIME_MAX */
} swf_fields[SWF_NFIELDS] = {
    {"job number", offsetof(struct swf_rec, id), false, false},
    {"submit time", offsetof(struct swf_rec, submit), false, true},
    {"wait time", offsetof(struct swf_rec, wait), false, true},
    {"run time", offsetof(struct swf_rec, runtime), false, true},
    {"allocated processors", offsetof(struct swf_rec, alloc), false, false},
    {"average CPU time", offsetof(struct swf_rec, cpu), true, false},
    {"used memory", offsetof(struct swf_rec, mem_used), true, false},
    {"requested processors", offsetof(struct swf_rec, req_procs), false, false},
    {"requested time", offsetof(struct swf_rec, req_time), false, true},
    {"requested memory", offsetof(struct swf_rec, req_mem), true, false},
    {"status", offsetof(struct swf_rec, status), false, false},
    {"user id", offsetof(struct swf_rec, user), false, false},
    {"group id", offsetof(struct swf_rec, group), false, false},
    {"executable number", offsetof(struct swf_rec, app), false, false},
    {"queue number", offsetof(struct swf_rec, queue), false, false},
    {"partition number", offsetof(struct swf_rec, partition), false, false},
    {"preceding job number", offsetof(struct swf_rec, prev_job), false, false},
    {"think time", offsetof(struct swf_rec, think), false, true},
};

/* The header keywords moku keeps; every other keyword is ignored. */
static const struct swf_keyword {
    const char *name;
    size_t off;
} swf_keywords[] = {
    {"UnixStartTime", offsetof(struct swf_header, unix_start)},
    {"MaxNodes", offsetof(struct swf_header, max_nodes)},
    {"MaxProcs", offsetof(struct swf_header, max_procs)},
};

/* What became of converting one token. */
enum swf_num {
    SWF_NUM_OK,
    SWF_NUM_BAD,   /* not a number */
    SWF_NUM_RANGE, /* a number too large for its field */
    SWF_NUM_FRAC,  /* a fraction in an integer field */
};

/* The state of one swf_read: the trace is built here and handed out only
 * when the whole file has been read. */
struct swf_reader {
    struct lines in; /* the file, its current line and line number, err */
    struct swf_header hdr;
    int (*each)(void *ctx, const struct swf_rec *rec, struct err *err); /* a good line's */
    void *ctx;
    bool texts;                  /* records carry their lines' text (swf_scan), else NULL */
    const struct swf_stages *st; /* the caller's work on the records */
    /* Where the next line's record is converted: the place each() keeps it
     * at (the pipe's batch, so it is not copied there), or NULL for a
     * record of swf_parse_job's own. */
    struct swf_rec *slot;
};

static bool swf_is_blank(char c)
{
    /* ' ' and \t \n \v \f \r, which are contiguous in ASCII. */
    return c == ' ' || (c >= '\t' && c <= '\r');
}

static bool swf_is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static char *swf_skip_blanks(char *s)
{
    while (swf_is_blank(*s))
        s++;
    return s;
}

static size_t swf_token_len(const char *s)
{
    size_t n = 0;
    while (s[n] && !swf_is_blank(s[n]))
        n++;
    return n;
}

static int swf_count_fields(const char *s)
{
    int n = 0;
    for (;;) {
        while (swf_is_blank(*s))
            s++;
        if (!*s)
            return n;
        n++;
        s += swf_token_len(s);
    }
}

/* The value of the digits [s, e) with its sign, or -1 when out of range. */
static int swf_digits_checked(const char *s, const char *e, bool neg, unsigned long long *out)
{
    unsigned long long lim =
        neg ? (unsigned long long)LLONG_MAX + 1 : (unsigned long long)LLONG_MAX;
    unsigned long long v = 0;
    for (; s < e; s++) {
        unsigned d = (unsigned)(*s - '0');
        if (v > (lim - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

/*
 * The value of the k digits (1 <= k <= 8) whose values 0-9 are the low k
 * bytes of d, the first digit lowest (as a little-endian load reads text):
 * shifted up so that the bytes below them are leading zeros, then combined
 * in three multiplications, pairs, fours, eights (the known SWAR
 * conversion, as in fast_float's parse_eight_digits_unrolled).
 */
static inline unsigned long long swf_eight_digits(uint64_t d, unsigned k)
{
    uint64_t v = d << (64 - 8 * k);
    v = (v * 10) + (v >> 8);
    v = (((v & 0x000000FF000000FFu) * 0x000F424000000064u) +
         (((v >> 16) & 0x000000FF000000FFu) * 0x0000271000000001u)) >>
        32;
    return v;
}

/* swf_eight_digits for k <= 4 digits in 32 bits: two steps, pairs then
 * the four, and no 64-bit constants (most tokens of a trace are this
 * short: "-1", "1", "30"). */
static inline unsigned swf_four_digits(uint32_t d, unsigned k)
{
    uint32_t v = d << (32 - 8 * k);
    v = (v * 10) + (v >> 8);
    return ((v & 0x00FF00FFu) * 0x00640001u) >> 16;
}

/*
 * The digits at s: their value, *end past them. On a little-endian machine
 * eight bytes at a time (l->buf keeps LINES_PAD bytes past its NUL, so the
 * load never leaves it): one subtraction makes every byte its digit's value,
 * and the first byte that is not 0-9 ends the run; a token of a trace has a
 * few digits, and this costs what one digit did in a loop of byte tests.
 */
static inline unsigned long long swf_digits(const char *s, const char **end)
{
    const char *p = s;
    unsigned long long v = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t x;
    memcpy(&x, s, sizeof x);
    uint64_t d = x - 0x3030303030303030u;
    /* A byte's high bit: not a digit (below '0' it wrapped past 0x80, above
     * '9' adding 0x76 carried it there). A borrow or carry crosses only into
     * bytes after the first non-digit, which are not read. */
    uint64_t nd = (d | (d + 0x7676767676767676u)) & 0x8080808080808080u;
    unsigned k = nd ? (unsigned)__builtin_ctzll(nd) / 8 : 8;
    if (k == 0) {
        *end = s;
        return 0;
    }
    v = swf_eight_digits(d, k);
    p += k;
    if (k < 8) {
        *end = p;
        return v;
    }
#endif
    while (swf_is_digit(*p))
        v = v * 10 + (unsigned)(*p++ - '0');
    *end = p;
    return v;
}

/*
 * Read the decimal integer (optional sign, digits) at s; *end gets the first
 * character after the digits, and the caller decides whether that ends the
 * token. Nearly every token of a trace is such an integer, hence our own
 * reading rather than strtoll (base and locale handling, errno) or sscanf,
 * and no overflow check on the way: 18 digits always fit, longer runs are
 * checked again on their own. Inlined: it runs for every field of every
 * line, and the call cost a fifth of the reader's own work.
 */
__attribute__((always_inline)) static inline enum swf_num swf_parse_int(char *s, char **end,
                                                                        long long *out)
{
    bool neg = *s == '-';
    if (*s == '-' || *s == '+')
        s++;
    const char *p;
    unsigned long long v = swf_digits(s, &p);
    *end = (char *)p;
    if (p == s)
        return SWF_NUM_BAD;
    if (__builtin_expect(p - s > 18, 0) && swf_digits_checked(s, p, neg, &v) != 0)
        return SWF_NUM_RANGE;
    /* -(LLONG_MAX + 1) cannot be negated as a long long; build it from v - 1. */
    *out = !neg ? (long long)v : v == 0 ? 0 : -(long long)(v - 1) - 1;
    return SWF_NUM_OK;
}

/* Convert a whole NUL-terminated token in decimal notation ("552.21", "1e3"). */
static enum swf_num swf_parse_real(const char *s, double *out)
{
    /* strtod alone would also take "inf", "nan" and hexadecimal: not SWF.
     * Its decimal point follows LC_NUMERIC, which moku leaves at "C". */
    if (!*s || s[strspn(s, "0123456789+-.eE")] != '\0')
        return SWF_NUM_BAD;
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end)
        return SWF_NUM_BAD;
    if (!isfinite(v))
        return SWF_NUM_RANGE;
    *out = v;
    return SWF_NUM_OK;
}

/* A decimal value for an integer field: fine when integral ("3600.0"). */
static enum swf_num swf_real_to_int(double v, long long *out)
{
    if (!(v >= -9223372036854775808.0 && v < 9223372036854775808.0))
        return SWF_NUM_RANGE;
    if (v != (double)(long long)v)
        return SWF_NUM_FRAC;
    *out = (long long)v;
    return SWF_NUM_OK;
}

/*
 * Convert the token [tok, end) that is not a plain integer in range: a
 * decimal, an over-long integer or junk. The token is NUL-terminated for the
 * while, so strtod can read it; the line is left as it was, for messages.
 */
/* (Always inlined, as GCC did on its own before swf_parse_job_texts was a
 * second caller: called instead, they cost every replay.) */
__attribute__((always_inline)) static inline enum swf_num
swf_convert_slow(char *tok, char *end, bool real, long long *iv, double *dv)
{
    char *e;
    /* strtod would round an integer just past LLONG_MIN into range. */
    if (!real && swf_parse_int(tok, &e, iv) == SWF_NUM_RANGE && e == end)
        return SWF_NUM_RANGE;
    char c = *end;
    *end = '\0';
    enum swf_num st = swf_parse_real(tok, dv);
    *end = c;
    if (st == SWF_NUM_OK && !real)
        st = swf_real_to_int(*dv, iv);
    return st;
}

/*
 * The token at tok, whose integer part ends at dot, as a decimal ("552.21",
 * "3600.0", "5."): true with *out and *end (past the token) when it has at
 * most 15 digits in all, false for anything else (left to strtod). Such a
 * value is M / 10^k with M < 2^53 and 10^k exact in a double, and IEEE
 * division rounds the quotient correctly, as strtod does: the same double,
 * at a fraction of strtod's cost (HPC2N has 45,000 such tokens).
 */
__attribute__((always_inline)) static inline bool
swf_parse_decimal(const char *tok, const char *dot, double *out, char **end)
{
    static const double pow10[16] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                     1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
    if (*dot != '.')
        return false;
    const char *d = tok + (*tok == '-' || *tok == '+'); /* swf_parse_int read digits [d, dot) */
    unsigned long long m = 0;
    for (const char *p = d; p < dot; p++)
        m = m * 10 + (unsigned)(*p - '0');
    const char *p = dot + 1;
    int k = 0;
    while (swf_is_digit(*p) && k <= 15) {
        m = m * 10 + (unsigned)(*p++ - '0');
        k++;
    }
    if ((dot - d) + k > 15 || !(*p == '\0' || swf_is_blank(*p)))
        return false;
    double v = (double)m / pow10[k];
    *out = *tok == '-' ? -v : v;
    *end = (char *)p;
    return true;
}

/* Convert the token of field i (0-based) at *sp into rec; *sp moves past it.
 * Inlined into swf_parse_job's unrolled loop, where i is a constant: the
 * field's kind and place fold away (a table look-up per field was a fifth of
 * the reader's work). */
__attribute__((always_inline)) static inline enum swf_num swf_set_field(int i, char **sp,
                                                                        struct swf_rec *rec)
{
    const struct swf_field *f = &swf_fields[i];
    char *tok = *sp, *end;
    long long iv = 0;
    double dv = 0;
    enum swf_num st = swf_parse_int(tok, &end, &iv);
    if (st == SWF_NUM_OK && (*end == '\0' || swf_is_blank(*end))) {
        dv = (double)iv;
    } else if (st == SWF_NUM_OK && swf_parse_decimal(tok, end, &dv, &end)) {
        if (!f->real)
            st = swf_real_to_int(dv, &iv);
    } else {
        end = tok + swf_token_len(tok);
        st = swf_convert_slow(tok, end, f->real, &iv, &dv);
    }
    *sp = end;
    if (st == SWF_NUM_OK && f->time && (iv > SWF_TIME_MAX || iv < -SWF_TIME_MAX))
        st = SWF_NUM_RANGE;
    if (st == SWF_NUM_OK && f->real)
        *(double *)((char *)rec + f->off) = dv;
    else if (st == SWF_NUM_OK)
        *(long long *)((char *)rec + f->off) = iv;
    return st;
}

/*
 * The token at *sp as a normalised trace writes nearly all of them: 1 to 15
 * digits, or "-1", and one ' ' or '\n' after, all found in one or two
 * eight-byte loads (swf_digits' test) with no byte-by-byte skip of the
 * blank or look at the byte after it. True with the value in rec and *sp
 * past the blank; false for any other token (a decimal, a sign other than
 * "-1"'s, a tab, the end of the line, junk), which swf_set_field then
 * reads from *sp exactly as before, errors included. The values are
 * swf_parse_int's: up to 7 digits never leave a time field's range, more
 * are checked. "-1", SWF's unknown and a third of a trace's tokens, is
 * known from its four bytes alone; no bundled trace has another negative
 * number.
 */
__attribute__((always_inline)) static inline bool swf_field_fast(int i, char **sp,
                                                                 struct swf_rec *rec)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    const struct swf_field *f = &swf_fields[i];
    const char *t = *sp;
    uint32_t w; /* "-1" and its blank: SWF's unknown, a third of a trace's tokens */
    memcpy(&w, t, sizeof w);
    char c = (char)(w >> 16);
    if ((w & 0xFFFF) == ('-' | '1' << 8) && (c == ' ' || c == '\n')) {
        if (f->real)
            *(double *)((char *)rec + f->off) = -1;
        else
            *(long long *)((char *)rec + f->off) = -1;
        *sp = (char *)t + 3;
        return true;
    }
    uint64_t x; /* within l->buf: the token's digits come before its NUL (LINES_PAD) */
    memcpy(&x, t, sizeof x);
    uint64_t d = x - 0x3030303030303030u;
    uint64_t nd = (d | (d + 0x7676767676767676u)) & 0x8080808080808080u;
    unsigned k = nd ? (unsigned)__builtin_ctzll(nd) / 8 : 8;
    unsigned long long v;
    if (k == 0)
        return false;
    if (k <= 4) {
        v = swf_four_digits((uint32_t)d, k);
    } else if (k < 8) {
        v = swf_eight_digits(d, k);
    } else { /* eight digits and more: the next eight bytes */
        memcpy(&x, t + 8, sizeof x);
        uint64_t d2 = x - 0x3030303030303030u;
        uint64_t nd2 = (d2 | (d2 + 0x7676767676767676u)) & 0x8080808080808080u;
        unsigned k2 = nd2 ? (unsigned)__builtin_ctzll(nd2) / 8 : 8;
        if (k2 == 8)
            return false;
        static const unsigned long long pow10[8] = {1,     10,     100,     1000,
                                                    10000, 100000, 1000000, 10000000};
        v = swf_eight_digits(d, 8) * pow10[k2] + (k2 ? swf_eight_digits(d2, k2) : 0);
        if (f->time && v > (unsigned long long)SWF_TIME_MAX)
            return false;
        t += 8;
        k = k2;
    }
    c = (char)(x >> (8 * k)); /* the byte after the digits */
    if (c != ' ' && c != '\n')
        return false;
    long long iv = (long long)v;
    if (f->real)
        *(double *)((char *)rec + f->off) = (double)iv;
    else
        *(long long *)((char *)rec + f->off) = iv;
    *sp = (char *)t + k + 1;
    return true;
#else
    (void)i, (void)sp, (void)rec;
    return false;
#endif
}

/*
 * The job line in r->in.buf is wrong at field i, token tok. A wrong field count
 * is reported first, whatever field failed: it is what makes the other
 * fields meaningless.
 */
static int swf_job_error(struct swf_reader *r, int i, const char *tok, enum swf_num st)
{
    static const char *const what[] = {
        [SWF_NUM_BAD] = "is not a number",
        [SWF_NUM_RANGE] = "is out of range",
        [SWF_NUM_FRAC] = "is not an integer",
    };
    int n = swf_count_fields(r->in.buf);
    if (n != SWF_NFIELDS || !tok)
        return err_set(r->in.err, "%s:%ld: expected %d fields, found %d", r->in.path, r->in.line,
                       SWF_NFIELDS, n);
    size_t len = swf_token_len(tok);
    return err_set(r->in.err, "%s:%ld: field %d (%s) %s: '%.*s'", r->in.path, r->in.line, i + 1,
                   swf_fields[i].name, what[st], len > SWF_TOKEN_SHOWN ? SWF_TOKEN_SHOWN : (int)len,
                   tok);
}

/*
 * Whether the token [t, e), which swf_set_field took for a field (real: a
 * double one), is as swfpack_format writes its value: digits without a
 * leading zero after an optional '-' (not "-0"), a double one's with a
 * point and two decimals that are not both 0 after at most 13 digits (so
 * that "%.2f" gives them back; a whole one of at most 13 digits too).
 * Stricter than swfpack's own check where that is simpler: a token this
 * refuses is checked there again. SWF_TOK_CANON when it is; SWF_TOK_DOT00
 * when it is such digits, at most 13, then ".00" (in any field: "978.00",
 * HPC2N's 7,539 lines), whose value is the digits' (swf_parse_decimal's
 * division is exact) and whose canonical token is the digits alone;
 * SWF_TOK_OTHER else.
 */
enum swf_tok { SWF_TOK_OTHER, SWF_TOK_CANON, SWF_TOK_DOT00 };

static enum swf_tok swf_canon_token(const char *t, const char *e, bool real)
{
    if (*t == '-' && ++t < e && *t == '0')
        return SWF_TOK_OTHER;
    const char *d = t;
    while (t < e && swf_is_digit(*t))
        t++;
    size_t nd = (size_t)(t - d);
    if (nd == 0 || (nd > 1 && *d == '0'))
        return SWF_TOK_OTHER;
    if (t == e)
        return !real || nd <= 13 ? SWF_TOK_CANON : SWF_TOK_OTHER;
    if (nd > 13 || e - t != 3 || t[0] != '.' || !swf_is_digit(t[1]) || !swf_is_digit(t[2]))
        return SWF_TOK_OTHER;
    if (t[1] == '0' && t[2] == '0')
        return SWF_TOK_DOT00;
    return real ? SWF_TOK_CANON : SWF_TOK_OTHER;
}

/* Field i's token where swf_field_fast declined it, from *sp (blanks before
 * it skipped) into rec, *sp moved just past it: its first byte, or NULL
 * with the error set. Both readers' slow step, always inlined into their
 * unrolled loops. */
__attribute__((always_inline)) static inline char *swf_field_slow(struct swf_reader *r, int i,
                                                                  char **sp, struct swf_rec *rec)
{
    char *s = swf_skip_blanks(*sp);
    if (!*s) {
        swf_job_error(r, i, NULL, SWF_NUM_BAD);
        return NULL;
    }
    char *tok = s;
    enum swf_num st = swf_set_field(i, &s, rec);
    if (st != SWF_NUM_OK) {
        swf_job_error(r, i, tok, st);
        return NULL;
    }
    *sp = s;
    return tok;
}

/*
 * Field i of a job line from *sp into rec, *sp moved past it and its blank,
 * noting whether its token and the blank before it are as a canonical line
 * has them (*lead0: a fast token with a leading zero; *canon: the others,
 * a ".00" one taken, which *dot00 notes): 0, or -1 with the error set
 * (swf_parse_job_texts' step).
 */
__attribute__((always_inline)) static inline int swf_job_field(struct swf_reader *r, int i,
                                                               char **sp, struct swf_rec *rec,
                                                               bool *lead0, bool *canon,
                                                               bool *dot00)
{
    char *before = *sp;
    if (swf_field_fast(i, sp, rec)) {
        /* a leading zero ("007"): formatted as 7. (Here, not in
         * swf_field_fast: there, even as dead code, it cost every replay
         * 30 instructions a line.) */
        *lead0 |= before[0] == '0' && swf_is_digit(before[1]);
        return 0;
    }
    char *s = before;
    char *tok = swf_field_slow(r, i, &s, rec);
    if (!tok)
        return -1;
    /* one blank before it (the one after the token before), one after */
    enum swf_tok k = before == tok && (*s == ' ' || *s == '\n' || *s == '\0')
                         ? swf_canon_token(tok, s, swf_fields[i].real)
                         : SWF_TOK_OTHER;
    *canon = *canon && k != SWF_TOK_OTHER;
    *dot00 |= k == SWF_TOK_DOT00;
    if (swf_is_blank(*s)) /* past it, as swf_parse_job */
        s++;
    *sp = s;
    return 0;
}

/*
 * Convert a job line, s at its first field, into a record in one pass over
 * the line (there is no separate split) and hand it on once the whole line
 * is good. This is the reader without texts, which every replay runs, kept
 * as it was: swf_parse_job_texts is the other.
 */
static int swf_parse_job(struct swf_reader *r, char *s)
{
    struct swf_rec own;
    struct swf_rec *rec = r->slot ? r->slot : &own; /* a bad line's is never handed on */
#pragma GCC unroll 18
    for (int i = 0; i < SWF_NFIELDS; i++) {
        if (swf_field_fast(i, &s, rec))
            continue;
        char *tok = swf_field_slow(r, i, &s, rec);
        if (!tok)
            return -1;
        /* Past the token's blank, where swf_field_fast leaves s: the next
         * token is its own again (from the blank, every later field of a
         * line with a decimal took this slow way, HPC2N's 45,000). */
        if (swf_is_blank(*s))
            s++;
    }
    if (*swf_skip_blanks(s))
        return swf_job_error(r, SWF_NFIELDS, NULL, SWF_NUM_BAD);
    rec->line = r->in.line;
    rec->text = NULL;
    rec->canon = false;
    return r->each(r->ctx, rec, r->in.err) ? -1 : 0;
}

/*
 * swf_parse_job with the line's text (--swf-out keeps it), which also
 * finds whether the text is canonical (rec->canon), so that swfpack need
 * not read it again to know. Its own unrolled copy: the bookkeeping in
 * swf_parse_job cost every replay (HPC2N: 29 instructions a line, even
 * where it was dead code), and a rolled copy cost --swf-out 200 a line.
 */
__attribute__((noinline)) static int swf_parse_job_texts(struct swf_reader *r, char *s)
{
    struct swf_rec own;
    struct swf_rec *rec = r->slot ? r->slot : &own; /* a bad line's is never handed on */
    const char *first = s;
    bool lead0 = false; /* a fast token with a leading zero */
    bool canon = true;  /* the slow tokens and the blanks */
    bool dot00 = false; /* a slow token, canonical but for its ".00" */
#pragma GCC unroll 18
    for (int i = 0; i < SWF_NFIELDS; i++) {
        /* where the fields a replay replaces start (i a constant: one store
         * each), true of a canonical line, whose blanks are single spaces */
        if (i == 2 || i == 5 || i == 10 || i == 11)
            rec->at[i == 2 ? 0 : i == 5 ? 1 : i == 10 ? 2 : 3] = (unsigned char)(s - first);
        if (swf_job_field(r, i, &s, rec, &lead0, &canon, &dot00) != 0)
            return -1;
    }
    if (*swf_skip_blanks(s))
        return swf_job_error(r, SWF_NFIELDS, NULL, SWF_NUM_BAD);
    rec->line = r->in.line;
    rec->text = first;
    /* The line ends with its last token, or that token's newline (not a space). */
    canon = canon && !lead0 && *s == '\0' && (s[-1] == '\n' || !swf_is_blank(s[-1]));
    rec->canon = canon & !dot00; /* (no branch: dot00 is rare, canon not) */
    rec->dot00 = canon & dot00;
    rec->text_len = (size_t)(s - first) - (s[-1] == '\n'); /* (s past the first token) */
    return r->each(r->ctx, rec, r->in.err) ? -1 : 0;
}

/*
 * A comment, s just past its ';'. "; Keyword: value" sets a header field when
 * the keyword is one moku keeps and the value is exactly one integer; anything
 * else is free text (notes quote filters like "job<=14") and is ignored, never
 * an error. Keywords match without regard to case and may appear anywhere in
 * the file; a repeated keyword keeps its last value.
 */
/* TimeZoneString: kept when it reads like a zone name (letters, digits,
 * '/', '_', '-', '+'); it later becomes TZ, so nothing else gets through. */
static void swf_parse_tz(struct swf_header *h, const char *v)
{
    size_t n = strlen(v);
    while (n && swf_is_blank(v[n - 1]))
        n--;
    if (!n || n >= sizeof h->tz)
        return;
    for (size_t i = 0; i < n; i++) {
        char c = v[i];
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || swf_is_digit(c) || c == '/' ||
              c == '_' || c == '-' || c == '+'))
            return;
    }
    memcpy(h->tz, v, n);
    h->tz[n] = '\0';
}

static void swf_parse_comment(struct swf_header *h, char *s)
{
    s = swf_skip_blanks(s);
    char *key = s;
    while ((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z'))
        s++;
    size_t klen = (size_t)(s - key);
    s = swf_skip_blanks(s);
    if (klen == 0 || *s != ':')
        return;
    if (klen == 14 && strncasecmp(key, "TimeZoneString", 14) == 0) {
        swf_parse_tz(h, swf_skip_blanks(s + 1));
        return;
    }
    long long v = 0;
    char *end;
    if (swf_parse_int(swf_skip_blanks(s + 1), &end, &v) != SWF_NUM_OK || *swf_skip_blanks(end))
        return;
    for (size_t i = 0; i < sizeof swf_keywords / sizeof swf_keywords[0]; i++) {
        const struct swf_keyword *k = &swf_keywords[i];
        if (strlen(k->name) == klen && strncasecmp(key, k->name, klen) == 0)
            *(long long *)((char *)h + k->off) = v;
    }
}

static int swf_parse_lines(struct swf_reader *r)
{
    int rc;
    while ((rc = lines_next(&r->in)) > 0) {
        char *s = swf_skip_blanks(r->in.buf);
        if (*s == ';')
            swf_parse_comment(&r->hdr, s + 1);
        else if (*s && (r->texts ? swf_parse_job_texts(r, s) : swf_parse_job(r, s)) != 0)
            return -1;
    }
    return rc;
}

/*
 * Parsing in a thread of its own. Reading a big trace is three stages:
 * inflating (trace/lines' thread), cutting and converting lines, and the
 * caller's each(), which builds its records. The caller's thread did the
 * last two, twice the work of the first, and the replay waited for it: a
 * thread of its own converts lines into batches of records while the
 * caller's thread hands them to each() in file order.
 *
 * What the caller sees does not change: records in order, each() on the
 * caller's thread, and the first error in file order: a bad line is
 * reported once every record before it went through each(), and an error
 * of each() stops the parser. The caller's prep() (swf_stages) runs on the
 * parser's thread as each record is converted, its output kept beside the
 * record in the batch.
 */
/* Records handed over at a time, and batches in flight (the parser runs
 * this far ahead): small, as a replay overlapped with the read holds them
 * beside its own memory (4 x 1,024 raised HPC2N's peak). A replay is
 * slower than the parser, which finds the ring full: it is woken when
 * SWF_REFILL batches are free (util/handoff), once per 1,536 records
 * instead of once per 512 with 2 x 512. (8 x 256 woke it as seldom but
 * called the caller's batch() twice as often, which costs a replay.) */
#define SWF_BATCH 512
#define SWF_NBATCH 4
#define SWF_REFILL 3

struct swf_pipe {
    struct swf_reader r; /* the parser's: its each() fills batches */
    struct err perr;     /* the parser's errors (lines' too), kept apart from the caller's */
    pthread_t thread;
    struct handoff ho; /* batch[] is its ring */
    struct swf_rec *batch[SWF_NBATCH];
    size_t len[SWF_NBATCH];
    /* Each record's text (swf_rec.text points into the line, which is gone
     * by the time the caller's each() runs): copied into its batch's
     * arena, at off[][i] (SIZE_MAX: none) while the arena may still move. */
    char *text[SWF_NBATCH];
    size_t tcap[SWF_NBATCH], tused;
    size_t *off[SWF_NBATCH];
    struct swf_header hdr[SWF_NBATCH]; /* the header when each batch was handed over */
    char *out[SWF_NBATCH];             /* prep()'s output, st->size bytes a record */
    size_t tail, fill; /* the parser's: the batch it fills (handoff_fill_slot), records in it */
    int rc;            /* swf_parse_lines' result, once the parser finished */
};

/* Hand the batch being filled over (empty only at the end): its records,
 * their texts, which now point into its arena (it no longer moves), and
 * the header as it is now. */
static void swf_pipe_hand(struct swf_pipe *p)
{
    size_t t = p->tail;
    struct swf_rec *b = p->batch[t];
    for (size_t i = 0; p->r.texts && i < p->fill; i++)
        b[i].text = p->off[t][i] == SIZE_MAX ? NULL : p->text[t] + p->off[t][i];
    p->tused = 0;
    p->hdr[t] = p->r.hdr;
    p->len[t] = p->fill;
    p->fill = 0;
    handoff_put(&p->ho);
    p->tail = handoff_fill_slot(&p->ho);
}

/* The parser's each(): the record, converted in place in the batch being
 * filled (p->r.slot), is counted there, and the next one goes after it. A
 * full batch is handed over, and the parser waits for room; -1 when the
 * caller stopped. */
static int swf_pipe_push(void *ctx, const struct swf_rec *rec, struct err *err)
{
    (void)err;
    struct swf_pipe *p = ctx;
    size_t t = p->tail, off = SIZE_MAX;
    if (rec->text && !p->r.st->prep_texts) {
        size_t n = strlen(rec->text) + 1;
        p->text[t] = xgrow(p->text[t], &p->tcap[t], p->tused + n, 1);
        memcpy(p->text[t] + p->tused, rec->text, n);
        off = p->tused;
        p->tused += n;
    }
    p->off[t][p->fill] = off;
    if (p->r.st->prep)
        p->r.st->prep(p->r.st->ctx, rec, p->out[t] + p->fill * p->r.st->size);
    int rc = 0;
    if (++p->fill == SWF_BATCH) {
        swf_pipe_hand(p);
        rc = handoff_room(&p->ho);
    }
    p->r.slot = &p->batch[p->tail][p->fill];
    return rc;
}

static void *swf_pipe_parse(void *arg)
{
    struct swf_pipe *p = arg;
    p->rc = swf_parse_lines(&p->r);
    if (p->fill > 0) /* the last, partial batch */
        swf_pipe_hand(p);
    handoff_finish(&p->ho); /* after rc: the caller reads it then */
    return NULL;
}

/* The next full batch (giving back the one before), prep()'s output for
 * it and the header as it was then, or 0 records when the parser has
 * finished and all were taken. */
static size_t swf_pipe_take(struct swf_pipe *p, const struct swf_rec **recs, char **out,
                            const struct swf_header **hdr)
{
    size_t h;
    if (!handoff_take(&p->ho, &h))
        return 0;
    *recs = p->batch[h];
    *out = p->out[h];
    *hdr = &p->hdr[h];
    return p->len[h];
}

/* The caller's side: every record through each(), in order; then the
 * parser's own result. */
static int swf_pipe_drain(struct swf_pipe *p, const struct swf_stages *st, struct err *err)
{
    const struct swf_rec *recs = NULL;
    char *out = NULL;
    const struct swf_header *hdr = NULL;
    for (size_t n; (n = swf_pipe_take(p, &recs, &out, &hdr)) > 0;) {
        for (size_t i = 0; i < n; i++)
            if (st->each(st->ctx, &recs[i], out + i * st->size, err) != 0)
                return -1;
        if (st->batch)
            st->batch(st->ctx, hdr);
    }
    if (p->rc != 0 && err)
        *err = p->perr;
    return p->rc != 0 ? -1 : 0;
}

/* The stages in turn on one thread (none to parse in): prep() into out,
 * then each(). */
struct swf_inline {
    const struct swf_stages *st;
    void *out;
};

static int swf_inline_each(void *ctx, const struct swf_rec *rec, struct err *err)
{
    struct swf_inline *in = ctx;
    if (in->st->prep)
        in->st->prep(in->st->ctx, rec, in->out);
    return in->st->each(in->st->ctx, rec, in->out, err);
}

/* Parse r's file in a thread while the caller's thread runs each(); when
 * no thread can be started, here. */
static int swf_parse_piped(struct swf_reader *r, struct err *err)
{
    size_t size = r->st->size ? r->st->size : 1;
    struct swf_pipe *p = xcalloc(1, sizeof *p);
    p->r = *r;
    p->r.in.err = &p->perr;
    p->r.each = swf_pipe_push;
    p->r.ctx = p;
    for (int i = 0; i < SWF_NBATCH; i++) {
        p->batch[i] = xmalloc(SWF_BATCH * sizeof *p->batch[i]);
        p->off[i] = xmalloc(SWF_BATCH * sizeof *p->off[i]);
        p->out[i] = xmalloc(SWF_BATCH * size);
    }
    p->r.slot = &p->batch[0][0];
    handoff_init(&p->ho, SWF_NBATCH, SWF_REFILL);
    int rc;
    if (pthread_create(&p->thread, NULL, swf_pipe_parse, p) != 0) {
        struct swf_inline in = {r->st, xmalloc(size)};
        r->each = swf_inline_each;
        r->ctx = &in;
        rc = swf_parse_lines(r);
        free(in.out);
    } else {
        rc = swf_pipe_drain(p, r->st, err);
        handoff_stop(&p->ho); /* (after an error of each(): the parser need not go on) */
        pthread_join(p->thread, NULL);
        r->in = p->r.in;
        r->in.err = err;
        r->hdr = p->r.hdr;
    }
    handoff_destroy(&p->ho);
    for (int i = 0; i < SWF_NBATCH; i++) {
        free(p->batch[i]);
        free(p->off[i]);
        free(p->text[i]);
        free(p->out[i]);
    }
    free(p);
    return rc;
}

int swf_scan_staged(const char *path, struct swf_header *hdr, const struct swf_stages *st,
                    bool texts, struct err *err)
{
    struct swf_reader r = {.texts = texts, .st = st};
    r.hdr.unix_start = -1;
    if (lines_open(&r.in, path, err) < 0)
        return -1;
    int rc = swf_parse_piped(&r, err);
    lines_close(&r.in);
    if (rc != 0)
        return -1;
    *hdr = r.hdr;
    return 0;
}

/* swf_scan's each(), as the one stage on the caller's thread. */
struct swf_plain {
    int (*each)(void *ctx, const struct swf_rec *rec, struct err *err);
    void *ctx;
};

static int swf_plain_each(void *ctx, const struct swf_rec *rec, void *out, struct err *err)
{
    (void)out;
    const struct swf_plain *p = ctx;
    return p->each(p->ctx, rec, err);
}

/* swf_scan, with the records' texts or without (none copied for the
 * caller's thread: most readers want only the values). */
static int scan(const char *path, struct swf_header *hdr,
                int (*each)(void *ctx, const struct swf_rec *rec, struct err *err), void *ctx,
                bool texts, struct err *err)
{
    struct swf_plain p = {each, ctx};
    return swf_scan_staged(path, hdr, &(struct swf_stages){.each = swf_plain_each, .ctx = &p},
                           texts, err);
}

int swf_scan(const char *path, struct swf_header *hdr,
             int (*each)(void *ctx, const struct swf_rec *rec, struct err *err), void *ctx,
             struct err *err)
{
    return scan(path, hdr, each, ctx, true, err);
}

int swf_scan_values(const char *path, struct swf_header *hdr,
                    int (*each)(void *ctx, const struct swf_rec *rec, struct err *err), void *ctx,
                    struct err *err)
{
    return scan(path, hdr, each, ctx, false, err);
}

/* swf_read's records, growing as they come. */
struct swf_keep {
    struct swf_trace *t;
    size_t cap;
};

static int swf_keep_rec(void *ctx, const struct swf_rec *rec, struct err *err)
{
    (void)err;
    struct swf_keep *k = ctx;
    k->t->recs = xgrow(k->t->recs, &k->cap, k->t->nrecs + 1, sizeof *k->t->recs);
    k->t->recs[k->t->nrecs] = *rec;
    k->t->recs[k->t->nrecs].canon = false;
    k->t->recs[k->t->nrecs].dot00 = false;
    k->t->recs[k->t->nrecs++].text = NULL; /* the line is gone after the call */
    return 0;
}

int swf_read(const char *path, struct swf_trace *out, struct err *err)
{
    struct swf_trace t = {0};
    struct swf_keep k = {&t, 0};
    memset(out, 0, sizeof *out);
    if (swf_scan_values(path, &t.hdr, swf_keep_rec, &k, err) < 0) {
        free(t.recs);
        return -1;
    }
    /* Give back the doubling slack: a big trace holds tens of MB of records. */
    if (t.nrecs > 0)
        t.recs = xrealloc(t.recs, t.nrecs * sizeof *t.recs);
    *out = t;
    return 0;
}

void swf_free(struct swf_trace *t)
{
    if (!t)
        return;
    free(t->recs);
    t->recs = NULL;
    t->nrecs = 0;
}
