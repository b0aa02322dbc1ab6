/* obuf — see obuf.h. */
#include "util/obuf.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "util/err.h"
#include "util/mem.h"

/* A file writer's block: a piece (OBUF_FLUSH) and a reservation of up to
 * 256 KB past it (obuf_reserve's contract). Mapped, its pages touched
 * only as they are used: a writer whose rows never reserve much touches
 * the piece and its tail, some 260 KB. */
#define OBUF_BLOCK (1u << 19)

/* What a file writer holds before it writes, short of a reservation
 * that needs more of the block. It writes whole pieces of OBUF_FLUSH
 * bytes at offsets that are multiples of it (from where the writer
 * began): a page cache with large folios (ext4 under Linux 6.18 here)
 * then takes each write in one, not in pieces of two (22.4 MB to a fresh
 * ext4 file 64 KB a write, least CPU of 8: 4.1-4.5 ms aligned, 5.6-6.3 ms
 * at offsets 100 or 4,096 bytes off). Elsewhere it costs a move of under
 * 4 KB a write.
 * 256 KB, not 64 KB: the kernel's part of a write is mostly per call and
 * per folio (a folio is at most what one write gives), not per byte.
 * HPC2N's jobs CSV (21.4 MB), the thread CPU time inside write(2), five
 * runs each (an LD_PRELOAD shim timing each call with
 * CLOCK_THREAD_CPUTIME_ID): 342 writes 6.4-10.9 ms (median 8.1), 86
 * writes 4.9-9.2 ms (median 5.8); a 22.4 MB file written alone, least of
 * 12: 4.9 ms -> 4.1 ms. The whole process's CPU, 15 alternated runs:
 * median 0.206 s -> 0.204 s, least 0.201 s both: the writer's cache
 * misses that 64 KB saved in callgrind's model of a 1 MB cache (349,000
 * -> 96,000) do not show on this machine, whose cores have 1 MB of L2
 * each. 1 MB pieces (22 writes) took 5.3 ms: not enough more for four
 * times the memory. */
#define OBUF_FLUSH (1u << 18)

/* The bytes past OBUF_FLUSH a file writer takes before it writes (its
 * cap is their sum): a row's room, moved to the buffer's front after the
 * whole piece is written. */
#define OBUF_TAIL 4096

/* A file writer's block, mapped by itself: through malloc, freeing it
 * would make glibc consolidate the replay's many small free chunks (3 %
 * of a jobs CSV's time on HPC2N). */
static char *block_alloc(void)
{
    void *p = mmap(NULL, OBUF_BLOCK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        abort(); /* out of memory: as xmalloc does (util/mem.h) */
    return p;
}

struct obuf *obuf_open(const char *path, struct err *err)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0) {
        err_set(err, "%s: cannot write: %s", path, strerror(errno));
        return NULL;
    }
    return obuf_fdopen(fd, path);
}

struct obuf *obuf_fdopen(int fd, const char *name)
{
    struct obuf *b = xcalloc(1, sizeof *b);
    b->cap = OBUF_FLUSH + OBUF_TAIL;
    b->buf = block_alloc();
    b->fd = fd;
    b->path = xstrdup(name);
    return b;
}

struct obuf *obuf_mem(void)
{
    struct obuf *b = xcalloc(1, sizeof *b);
    b->cap = 4096;
    b->buf = xmalloc(b->cap);
    b->fd = -1;
    return b;
}

/* The first n buffered bytes to the file (the rest moved to the front);
 * a failure is kept, not retried. */
static void write_out(struct obuf *b, size_t n)
{
    size_t done = 0;
    while (!b->error && done < n) {
        ssize_t k = write(b->fd, b->buf + done, n - done);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            b->error = k < 0 ? errno : EIO;
        else
            done += (size_t)k;
    }
    memmove(b->buf, b->buf + n, b->len - n);
    b->len -= n;
    b->off += n;
}

/* Everything buffered to the file. */
static void flush(struct obuf *b)
{
    write_out(b, b->len);
}

/* The buffered bytes up to the file's last multiple of OBUF_FLUSH in
 * them to the file, the rest kept. */
static void flush_whole(struct obuf *b)
{
    unsigned long long end = (b->off + b->len) / OBUF_FLUSH * OBUF_FLUSH;
    if (end > b->off)
        write_out(b, (size_t)(end - b->off));
}

/* Room for n more bytes at buf + len (n <= OBUF_BLOCK for a file). */
static void room(struct obuf *b, size_t n)
{
    if (b->len + n <= b->cap)
        return;
    if (b->fd >= 0) {
        flush_whole(b);
        if (b->len + n > OBUF_BLOCK) /* the rest and a large reservation: all of it written */
            flush(b);
        /* a large reservation: the block */
        b->cap = b->len + n <= OBUF_FLUSH + OBUF_TAIL ? OBUF_FLUSH + OBUF_TAIL : OBUF_BLOCK;
        return;
    }
    while (b->len + n > b->cap)
        b->cap *= 2;
    b->buf = xrealloc(b->buf, b->cap);
}

void obuf_write_slow(struct obuf *b, const void *p, size_t n)
{
    const char *s = p;
    while (n > 0) {
        size_t part = b->fd >= 0 && n > OBUF_BLOCK ? OBUF_BLOCK : n;
        room(b, part);
        memcpy(b->buf + b->len, s, part);
        b->len += part;
        s += part;
        n -= part;
    }
}

/* "00" .. "99": two digits per division (obuf.h's word digits too). */
const char obuf_pairs[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

/* The digits of v, right-aligned before end; returns where they start. */
static inline char *digits(char *end, unsigned long long v)
{
    while (v >= 100) {
        unsigned k = (unsigned)(v % 100) * 2;
        v /= 100;
        *--end = obuf_pairs[k + 1];
        *--end = obuf_pairs[k];
    }
    if (v >= 10) {
        *--end = obuf_pairs[v * 2 + 1];
        *--end = obuf_pairs[v * 2];
    } else {
        *--end = (char)('0' + v);
    }
    return end;
}

/* 10^0 .. 10^19, every power of ten an unsigned long long holds. */
static const unsigned long long pow10_all[20] = {
    1ULL,
    10ULL,
    100ULL,
    1000ULL,
    10000ULL,
    100000ULL,
    1000000ULL,
    10000000ULL,
    100000000ULL,
    1000000000ULL,
    10000000000ULL,
    100000000000ULL,
    1000000000000ULL,
    10000000000000ULL,
    100000000000000ULL,
    1000000000000000ULL,
    10000000000000000ULL,
    100000000000000000ULL,
    1000000000000000000ULL,
    10000000000000000000ULL,
};

/* How many decimal digits v has: log10 from its bit length (bits * 1233 /
 * 4096 is log10(2^bits) rounded down, never more than one digit short),
 * then one comparison. */
static size_t ndigits(unsigned long long v)
{
    unsigned t = ((unsigned)(64 - __builtin_clzll(v | 1)) * 1233) >> 12;
    return t + (v >= pow10_all[t]) + (v == 0);
}

/* Sign and digits through a scratch array: the buffer is full (or a
 * memory writer must grow). Kept apart so that the common path below has
 * no array on its stack (no stack-protector check a number). */
__attribute__((noinline)) static void put_number_copied(struct obuf *b, int neg,
                                                        unsigned long long u)
{
    char t[24], *end = t + sizeof t, *p = digits(end, u);
    if (neg)
        *--p = '-';
    obuf_write(b, p, (size_t)(end - p));
}

#ifdef OBUF_WORDS
#define E8 100000000ULL

/* The digits of u < 10^16 at p, whole words at a time (the 8 bytes past
 * them are scratch); returns their end. */
static inline char *words_digits(char *p, unsigned long long u)
{
    if (u < E8)
        return obuf_lead_digits(p, (uint32_t)u);
    p = obuf_lead_digits(p, (uint32_t)(u / E8));
    uint64_t w = obuf_eight_digits((uint32_t)(u % E8));
    memcpy(p, &w, 8);
    return p + 8;
}
#endif

/*
 * Sign and digits at p, which has OBUF_LL_ROOM bytes: formatted in place
 * (a jobs CSV has ten numbers a row, and a copy from a scratch array, a
 * memcpy call each, cost as much as the digits). Below 10^16 (every time
 * and count these outputs hold), eight digits at a time; else right to
 * left, their length known first.
 */
static char *fmt_number(char *p, int neg, unsigned long long u)
{
    *p = '-'; /* kept only when negative: overwritten otherwise */
    p += neg;
#ifdef E8
    if (u < E8 * E8)
        return words_digits(p, u);
#endif
    size_t n = ndigits(u);
    digits(p + n, u);
    return p + n;
}

static void put_number(struct obuf *b, int neg, unsigned long long u)
{
    if (b->cap - b->len >= OBUF_LL_ROOM)
        obuf_commit(b, fmt_number(b->buf + b->len, neg, u));
    else
        put_number_copied(b, neg, u);
}

void obuf_ull(struct obuf *b, unsigned long long v)
{
    put_number(b, 0, v);
}

void obuf_ll_any(struct obuf *b, long long v)
{
    /* negated as unsigned: LLONG_MIN has no positive long long */
    put_number(b, v < 0, v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v);
}

char *obuf_fmt_ull_any(char *p, unsigned long long v)
{
    return fmt_number(p, 0, v);
}

char *obuf_fmt_ll_any(char *p, long long v)
{
    return fmt_number(p, v < 0, v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v);
}

char *obuf_reserve_slow(struct obuf *b, size_t n)
{
    room(b, n);
    return b->buf + b->len;
}

static const unsigned long long pow10_tab[] = {1ULL,         10ULL,        100ULL,     1000ULL,
                                               10000ULL,     100000ULL,    1000000ULL, 10000000ULL,
                                               100000000ULL, 1000000000ULL};
#define FIXED_MAX_DECIMALS 9

/* |v| * 10^d rounded half to even, exactly: |v| is mant / 2^k, so the
 * product is an integer over a power of two (in 128 bits: mant < 2^53,
 * 10^9 < 2^30). The caller keeps the result below 2^63. mant and k are
 * read from the double's bits (frexp and ldexp calls cost more than the
 * rest). */
static unsigned long long scaled_round(double a, int d)
{
    uint64_t bits;
    memcpy(&bits, &a, sizeof bits);
    int bexp = (int)(bits >> 52) & 0x7ff; /* a >= 0: no sign bit */
    unsigned long long mant = bits & ((1ULL << 52) - 1);
    if (bexp) /* normal: the implicit leading bit */
        mant |= 1ULL << 52;
    /* a = mant / 2^k; k >= 1 since a < 2^52 (subnormals: 2^-1074 units) */
    int k = 1075 - (bexp ? bexp : 1);
    unsigned __int128 x = (unsigned __int128)mant * pow10_tab[d];
    if (k >= 127) /* below 2^-73: x < 2^83 is under half of 2^k */
        return 0;
    unsigned long long q = (unsigned long long)(x >> k);
    unsigned __int128 rem = x & ((((unsigned __int128)1) << k) - 1), half = ((unsigned __int128)1)
                                                                            << (k - 1);
    if (rem > half || (rem == half && (q & 1)))
        q++;
    return q;
}

char *obuf_fmt_fixed(char *p, double v, int decimals)
{
    /* Beyond the exact 64-bit path (huge, inf, nan): printf itself, which
     * these outputs never reach in practice. */
    if (!isfinite(v) || fabs(v) >= 9e18 / (double)pow10_tab[decimals] || fabs(v) >= 0x1p52) {
        int n = snprintf(p, OBUF_FIXED_ROOM, "%.*f", decimals, v);
        return p + (n < 0 ? 0 : n < OBUF_FIXED_ROOM ? n : OBUF_FIXED_ROOM - 1);
    }
    *p = '-';                        /* printf keeps the sign of what rounds to zero */
    if (v == (double)(long long)v) { /* whole (a stretch of 1): no rounding */
        p = fmt_number(p, signbit(v) != 0, (unsigned long long)fabs(v));
        if (decimals > 0) {
            *p++ = '.';
            memset(p, '0', (size_t)decimals);
            p += decimals;
        }
        return p;
    }
    unsigned long long q = scaled_round(fabs(v), decimals), pw = pow10_tab[decimals];
    p = fmt_number(p, signbit(v) != 0, q / pw);
    if (decimals > 0) {
        *p++ = '.';
        unsigned long long frac = q % pw;
#ifdef OBUF_WORDS
        if (decimals <= 8) { /* frac < 10^8: the last `decimals` of its eight digits */
            uint64_t w = obuf_eight_digits((uint32_t)frac) >> (8 * (8 - decimals));
            memcpy(p, &w, 8); /* past the digits: scratch, inside OBUF_FIXED_ROOM */
            return p + decimals;
        }
#endif
        for (int i = decimals; i-- > 0; frac /= 10)
            p[i] = (char)('0' + frac % 10);
        p += decimals;
    }
    return p;
}

void obuf_fixed(struct obuf *b, double v, int decimals)
{
    if (decimals < 0 || decimals > FIXED_MAX_DECIMALS) {
        obuf_printf(b, "%.*f", decimals, v);
        return;
    }
    obuf_commit(b, obuf_fmt_fixed(obuf_reserve(b, OBUF_FIXED_ROOM), v, decimals));
}

void obuf_printf(struct obuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char small[256];
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof small) {
        obuf_write(b, small, (size_t)n);
        return;
    }
    char *big = xmalloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    obuf_write(b, big, (size_t)n);
    free(big);
}

int obuf_failed(const struct obuf *b)
{
    return b->error != 0;
}

const char *obuf_data(struct obuf *b, size_t *len)
{
    if (b->fd >= 0)
        return NULL;
    room(b, 1);
    b->buf[b->len] = '\0';
    *len = b->len;
    return b->buf;
}

void obuf_reset(struct obuf *b)
{
    if (b->fd < 0)
        b->len = 0;
}

int obuf_close(struct obuf *b, struct err *err)
{
    if (!b)
        return 0;
    int rc = 0;
    if (b->fd >= 0) {
        flush(b);
        if (close(b->fd) != 0 && !b->error)
            b->error = errno;
        if (b->error)
            rc = err_set(err, "%s: write failed: %s", b->path, strerror(b->error));
    }
    if (b->fd >= 0)
        munmap(b->buf, OBUF_BLOCK);
    else
        free(b->buf);
    free(b->path);
    free(b);
    return rc;
}
