/*
 * t_obuf — the buffered writer (util/obuf): integers and fixed-point
 * numbers exactly as printf writes them (negatives, LLONG_MIN, zero, -0,
 * ties rounded half to even, 300,000 random values against snprintf;
 * integers of every length, around every power of ten; below 10^8 two
 * digits a step, every value checked against a decimal counter; below
 * 10^16 eight digits at a time;
 * obuf_fmt_ll and obuf_fmt_ull in place, their inline digits included),
 * text larger than the buffer reaching the file whole, random appends
 * reaching it as a memory writer has them (the writes at multiples of
 * 64 KB while rows come), and a write that
 * fails (a full disk: /dev/full) reported with the file's name, or with the
 * name given to an open file (obuf_fdopen).
 */
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test.h"
#include "util/err.h"
#include "util/obuf.h"

/* What obuf wrote for one call, as a string (static). */
static const char *text_of(struct obuf *b)
{
    static char out[512];
    size_t len;
    const char *d = obuf_data(b, &len);
    snprintf(out, sizeof out, "%s", d);
    obuf_close(b, NULL);
    return out;
}

static const char *fixed(double v, int d)
{
    struct obuf *b = obuf_mem();
    obuf_fixed(b, v, d);
    return text_of(b);
}

static const char *ll(long long v)
{
    struct obuf *b = obuf_mem();
    obuf_ll(b, v);
    return text_of(b);
}

static int same_as_printf(double v, int d)
{
    char want[512];
    snprintf(want, sizeof want, "%.*f", d, v);
    const char *got = fixed(v, d);
    if (strcmp(got, want) != 0) {
        fprintf(stderr, "%%.%df of %.17g: obuf \"%s\", printf \"%s\"\n", d, v, got, want);
        return 0;
    }
    return 1;
}

static void test_integers(void)
{
    CHECK_STR(ll(0), "0");
    CHECK_STR(ll(-1), "-1");
    CHECK_STR(ll(7), "7");
    CHECK_STR(ll(-1234567890123LL), "-1234567890123");
    CHECK_STR(ll(LLONG_MAX), "9223372036854775807");
    CHECK_STR(ll(LLONG_MIN), "-9223372036854775808");
    CHECK_STR(ll(LONG_MIN), LONG_MIN == LLONG_MIN ? "-9223372036854775808" : "-2147483648");
    struct obuf *b = obuf_mem();
    obuf_ull(b, ULLONG_MAX);
    CHECK_STR(text_of(b), "18446744073709551615");
}

/* Appends one number as printf would to want (of room n); 0 when full. */
static int want_ll(char *want, size_t n, size_t *len, int neg, unsigned long long u)
{
    int k = neg ? snprintf(want + *len, n - *len, "-%llu,", u)
                : snprintf(want + *len, n - *len, "%llu,", u);
    if (k < 0 || (size_t)k >= n - *len)
        return 0;
    *len += (size_t)k;
    return 1;
}

/*
 * The digit count found before the digits are written in place: every power
 * of ten and its neighbours, both signs, and random values of every bit
 * length (a third negative), appended to one writer (in place while they fit, through the
 * slow path when the buffer must grow) and compared with snprintf's text.
 */
static void test_integer_lengths(void)
{
    static char want[1 << 20];
    size_t len = 0;
    struct obuf *b = obuf_mem();
    unsigned long long p = 1;
    for (int e = 0; e < 20; e++, p *= 10)
        for (unsigned long long d = 0; d < 3; d++)
            for (int neg = 0; neg < 2; neg++) {
                unsigned long long u = p - 1 + d;
                if (neg && (u == 0 || u > (unsigned long long)LLONG_MAX))
                    continue;
                neg ? obuf_ll(b, -(long long)u) : obuf_ull(b, u);
                obuf_putc(b, ',');
                CHECK(want_ll(want, sizeof want, &len, neg, u));
            }
    uint64_t x = 2463534242ULL;
    for (int i = 0; i < 20000; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        unsigned long long u = x >> (i % 64);
        int neg = i % 3 == 0 && u && u <= (unsigned long long)LLONG_MAX;
        neg ? obuf_ll(b, -(long long)u) : obuf_ull(b, u);
        obuf_putc(b, ',');
        CHECK(want_ll(want, sizeof want, &len, neg, u));
    }
    size_t got_len;
    const char *got = obuf_data(b, &got_len);
    CHECK_EQ(got_len, len);
    CHECK(memcmp(got, want, len) == 0);
    obuf_close(b, NULL);
}

/* Every value below 10^6 (the short ways: a pair, four digits, eight with
 * their leading zeros stripped) and every 997th below 10^9, one number a
 * writer's row, against snprintf. */
static void test_integer_values(void)
{
    struct obuf *b = obuf_mem();
    int bad = 0;
    for (unsigned long long u = 0; u < 1000000000ULL && bad < 5; u += u < 1000000 ? 1 : 997) {
        char want[24];
        size_t n;
        obuf_reset(b);
        obuf_ull(b, u);
        snprintf(want, sizeof want, "%llu", u);
        const char *got = obuf_data(b, &n);
        if (strcmp(got, want) != 0 && ++bad)
            fprintf(stderr, "%llu: obuf \"%s\"\n", u, got);
    }
    CHECK_EQ(bad, 0);
    obuf_close(b, NULL);
}

/* obuf_fmt_ll in place (the row writers' way; below 10^8 the header's
 * inline digits): around every power of ten, both signs, the edges of
 * its short ways (-1 .. 9, 10^8), the extremes, and 100,000 fixed-seed
 * random values of every bit length against snprintf; nothing written past
 * OBUF_LL_ROOM. */
/* Whether got..end is want, with nothing written past OBUF_LL_ROOM (got
 * was filled with 'x' before): said on stderr, under what, when not. */
static int fmt_matches(const char *what, const char *got, const char *end, const char *want)
{
    size_t n = (size_t)(end - got);
    if (n != strlen(want) || memcmp(got, want, n) != 0 || got[OBUF_LL_ROOM] != 'x') {
        fprintf(stderr, "%s %s: \"%.*s\"\n", what, want, (int)n, got);
        return 0;
    }
    return 1;
}

static int fmt_ll_ok(long long v)
{
    char got[OBUF_LL_ROOM + 8], want[32];
    memset(got, 'x', sizeof got);
    char *end = obuf_fmt_ll(got, v);
    snprintf(want, sizeof want, "%lld", v);
    return fmt_matches("obuf_fmt_ll", got, end, want);
}

/* obuf_fmt_ull the same way (the inline digits below 10^8 too). */
static int fmt_ull_ok(unsigned long long v)
{
    char got[OBUF_LL_ROOM + 8], want[32];
    memset(got, 'x', sizeof got);
    char *end = obuf_fmt_ull(got, v);
    snprintf(want, sizeof want, "%llu", v);
    return fmt_matches("obuf_fmt_ull", got, end, want);
}

static void test_fmt_ll(void)
{
    int bad = 0;
    /* unsigned: the step after 10^18 is past LLONG_MAX (UBSan) */
    unsigned long long p = 1;
    for (int e = 0; e < 19; e++, p *= 10)
        for (long long d = -2; d <= 2; d++) {
            long long v = (long long)p + d;
            bad += !fmt_ll_ok(v) + !fmt_ll_ok(-v) + !fmt_ull_ok((unsigned long long)v);
        }
    const long long edge[] = {LLONG_MIN, LLONG_MIN + 1, LLONG_MAX,    -10,         -2, -1, 0, 9, 10,
                              99999999,  100000000,     4294967295LL, 4294967296LL};
    for (size_t i = 0; i < sizeof edge / sizeof *edge; i++)
        bad += !fmt_ll_ok(edge[i]);
    bad +=
        !fmt_ull_ok(ULLONG_MAX) + !fmt_ull_ok(0) + !fmt_ull_ok(99999999) + !fmt_ull_ok(100000000);
    uint64_t x = 88172645463325252ULL;
    for (int i = 0; i < 100000; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        long long v = (long long)(x >> (i % 64));
        bad += !fmt_ll_ok(i % 4 == 0 ? -v : v) + !fmt_ull_ok(x >> (i % 64));
    }
    CHECK_EQ(bad, 0);
}

#ifdef OBUF_WORDS
/*
 * obuf_lead_digits (two digits a step from a fixed-point fraction) for
 * every value below 10^8, against a decimal counter counted up a digit at
 * a time (as printf's text, without a call a value: the whole range in
 * about a second); nothing written past the 8 bytes of room.
 */
static void test_lead_digits_all(void)
{
    char want[9] = "0", got[16];
    size_t n = 1;
    int bad = 0;
    for (uint32_t v = 0; v < 100000000u && bad < 5; v++) {
        memset(got, 'x', sizeof got);
        char *end = obuf_lead_digits(got, v);
        if ((size_t)(end - got) != n || memcmp(got, want, n) != 0 || got[8] != 'x') {
            fprintf(stderr, "obuf_lead_digits %s: \"%.*s\"\n", want, (int)(end - got), got);
            bad++;
        }
        size_t i = n; /* want + 1: the last 9s turn to 0s, a digit grows */
        while (i > 0 && want[i - 1] == '9')
            want[--i] = '0';
        if (i > 0) {
            want[i - 1]++;
        } else {
            memmove(want + 1, want, n++);
            want[0] = '1';
        }
    }
    CHECK_EQ(bad, 0);
    char w[16];
    snprintf(w, sizeof w, "%.*s", (int)n, want);
    CHECK_STR(w, "100000000"); /* the counter itself counted right */
}
#endif

/* A memory writer reused per row: emptied, not reallocated. */
static void test_reset(void)
{
    struct obuf *b = obuf_mem();
    obuf_puts(b, "first row");
    obuf_reset(b);
    obuf_putc(b, 'x');
    obuf_ll(b, -5);
    CHECK_STR(text_of(b), "x-5");
}

static void test_fixed_edges(void)
{
    CHECK_STR(fixed(0.0, 3), "0.000");
    CHECK_STR(fixed(-0.0, 3), "-0.000");
    CHECK_STR(fixed(1.0, 6), "1.000000"); /* whole numbers: no rounding to do */
    CHECK_STR(fixed(-7.0, 2), "-7.00");
    CHECK_STR(fixed(123456.0, 0), "123456");
    CHECK(same_as_printf(4503599627370495.0, 9)); /* 2^52 - 1 */
    CHECK(same_as_printf(-4503599627370495.0, 1));
    CHECK_STR(fixed(-0.0001, 3), "-0.000"); /* printf keeps the sign */
    CHECK_STR(fixed(0.125, 2), "0.12");     /* an exact tie: to even */
    CHECK_STR(fixed(0.375, 2), "0.38");
    CHECK_STR(fixed(2.5, 0), "2");
    CHECK_STR(fixed(3.5, 0), "4");
    CHECK_STR(fixed(-2.5, 0), "-2");
    CHECK_STR(fixed(1.005, 2), "1.00");    /* 1.005 is 1.00499999... in binary */
    CHECK_STR(fixed(0.9995, 3), "1.000");  /* 0.99950000000000005507... */
    CHECK_STR(fixed(9.9996, 3), "10.000"); /* a carry into the whole part */
    CHECK_STR(fixed(123456.0, 6), "123456.000000");
    CHECK_STR(fixed(5e-324, 6), "0.000000");
    static const double odd[] = {1e15, 1e300, -1e300, 4503599627370497.5, 1e-7, 0.5, 1.5};
    for (size_t i = 0; i < sizeof odd / sizeof *odd; i++)
        for (int d = 0; d <= 12; d++)
            CHECK(same_as_printf(odd[i], d));
    CHECK(same_as_printf(INFINITY, 3));
    CHECK(same_as_printf(-INFINITY, 3));
    CHECK(same_as_printf(NAN, 3));
}

/* Random doubles of every size, and ratios like the outputs' (a busy
 * count over a span), against snprintf. */
static void test_fixed_random(void)
{
    uint64_t x = 88172645463325252ULL;
    int bad = 0;
    for (int i = 0; i < 300000 && bad < 5; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        double v;
        if (i % 3 == 0) {
            uint64_t bits = x & 0x7fefffffffffffffULL; /* finite */
            memcpy(&v, &bits, sizeof v);
        } else if (i % 3 == 1) {
            v = (double)(x % 100000000) / (double)(1 + (x >> 40) % 86400);
        } else {
            v = (double)(int64_t)(x % 2000001) / 1000.0 - 1000.0; /* near ties of %.3f */
        }
        bad += !same_as_printf(v, (int)(x >> 60) % 8);
    }
    CHECK_EQ(bad, 0);
}

static void test_file(void)
{
    char path[] = "/tmp/t_obuf.XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    struct err e;
    struct obuf *b = obuf_open(path, &e);
    CHECK(b != NULL);
    size_t big = 3u << 20; /* more than the buffer, in one call and in pieces */
    char *blob = malloc(big);
    for (size_t i = 0; i < big; i++)
        blob[i] = (char)('a' + i % 26);
    obuf_write(b, blob, big);
    /* reservations past what a file writer holds before it writes (256 KB)
     * and up to the contract's 256 KB, between small writes */
    static const size_t res[] = {100, 70000, 3, 262144, 65536, 65537, 200000, 262144, 262143};
    size_t rbytes = 0;
    for (size_t k = 0; k < sizeof res / sizeof *res; k++) {
        obuf_write(b, blob, 1000);
        char *p = obuf_reserve(b, res[k]);
        memcpy(p, blob + 1000, res[k]);
        obuf_commit(b, p + res[k]);
        rbytes += 1000 + res[k];
    }
    for (int i = 0; i < 300000; i++) {
        obuf_ll(b, i);
        obuf_putc(b, '\n');
    }
    CHECK_EQ(obuf_close(b, &e), 0);
    FILE *f = fopen(path, "r");
    char *got = malloc(big);
    CHECK_EQ(fread(got, 1, big, f), big);
    CHECK(memcmp(got, blob, big) == 0);
    int rok = 1;
    for (size_t k = 0; k < sizeof res / sizeof *res; k++) {
        rok &= fread(got, 1, 1000 + res[k], f) == 1000 + res[k];
        rok &= memcmp(got, blob, 1000) == 0 && memcmp(got + 1000, blob + 1000, res[k]) == 0;
    }
    CHECK(rok);
    CHECK(rbytes > 0);
    char line[32];
    int ok = 1;
    for (int i = 0; i < 300000 && ok; i++)
        ok = fgets(line, sizeof line, f) && atoi(line) == i;
    CHECK(ok);
    CHECK(fgetc(f) == EOF);
    fclose(f);
    free(got);
    free(blob);
    unlink(path);
}

static void test_errors(void)
{
    struct err e;
    CHECK(obuf_open("/nonexistent-dir/x.csv", &e) == NULL);
    CHECK(strstr(e.msg, "/nonexistent-dir/x.csv: cannot write") != NULL);
    struct obuf *b = obuf_open("/dev/full", &e);
    if (!b) {
        TEST_SKIP("no /dev/full");
        return;
    }
    for (int i = 0; i < 100000; i++)
        obuf_puts(b, "a row that will not fit on a full disk\n");
    CHECK(obuf_failed(b));
    CHECK_EQ(obuf_close(b, &e), -1);
    CHECK_STR(e.msg, "/dev/full: write failed: No space left on device");
    /* A full disk found only at the last flush is still reported. */
    b = obuf_open("/dev/full", &e);
    obuf_puts(b, "x");
    CHECK(!obuf_failed(b));
    CHECK_EQ(obuf_close(b, &e), -1);
}

/* A file writer against a memory writer, the same random appends
 * (fixed seed): rows of every size below a row's room, reservations up to
 * the contract's 256 KB, writes past the block; the file's bytes are the
 * memory's. A row's append that writes (a row: below OBUF_TAIL's 4 KB)
 * leaves the file at a multiple of 64 KB, even after a write of a whole
 * buffer that did not (a large reservation's). */
static void test_file_random(void)
{
    char path[] = "/tmp/t_obuf_rand.XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    struct obuf *f = obuf_fdopen(fd, path), *m = obuf_mem();
    size_t most = 600000;
    char *blob = malloc(most);
    for (size_t i = 0; i < most; i++)
        blob[i] = (char)('a' + i % 23);
    srand(31);
    int aligned = 1, moves = 0;
    for (int i = 0; i < 20000; i++) {
        int kind = rand() % 100;
        size_t n = kind < 96   ? (size_t)(rand() % 1500)
                   : kind < 99 ? (size_t)(rand() % 262145)
                               : most;
        size_t from = (size_t)rand() % (most - n + 1);
        unsigned long long before = f->off;
        if (kind % 2 && n <= 262144) {
            char *p = obuf_reserve(f, n);
            memcpy(p, blob + from, n);
            obuf_commit(f, p + n);
        } else {
            obuf_write(f, blob + from, n);
        }
        if (kind < 96 && f->off != before) {
            aligned &= f->off % 262144 == 0;
            moves++;
        }
        obuf_write(m, blob + from, n);
    }
    CHECK(aligned);
    CHECK(moves > 50);
    CHECK_EQ(obuf_close(f, NULL), 0);
    size_t len;
    const char *want = obuf_data(m, &len);
    FILE *in = fopen(path, "r");
    char *got = malloc(len + 1);
    CHECK(in && fread(got, 1, len + 1, in) == len);
    CHECK(memcmp(got, want, len) == 0);
    if (in)
        fclose(in);
    free(got);
    free(blob);
    obuf_close(m, NULL);
    unlink(path);
}

/* The size of the file at fd so far. */
static long long file_size(int fd)
{
    struct stat st;
    return fstat(fd, &st) == 0 ? (long long)st.st_size : -1;
}

/* A file writer writes rows in whole pieces of 256 KB (a write's kernel
 * cost is mostly per call and per folio, not per byte): nothing reaches
 * the file before the first piece is full, then exactly that piece, and
 * the rest at the close. */
static void test_file_pieces(void)
{
    char path[] = "/tmp/t_obuf_piece.XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    int look = dup(fd);
    struct obuf *b = obuf_fdopen(fd, path);
    char row[100];
    memset(row, 'r', sizeof row);
    row[99] = '\n';
    for (int i = 0; i < 2000; i++) /* 200,000 bytes */
        obuf_write(b, row, sizeof row);
    CHECK_EQ(file_size(look), 0);
    for (int i = 0; i < 1000; i++) /* 300,000 */
        obuf_write(b, row, sizeof row);
    CHECK_EQ(file_size(look), 262144);
    CHECK_EQ(obuf_close(b, NULL), 0);
    CHECK_EQ(file_size(look), 300000);
    close(look);
    unlink(path);
}

/* obuf_fdopen: an open file written through, its errors under the name
 * given (a temporary's target), the descriptor closed with it. */
static void test_fdopen(void)
{
    struct err e;
    int fd = open("/dev/full", O_WRONLY);
    if (fd < 0) {
        TEST_SKIP("no /dev/full");
        return;
    }
    struct obuf *b = obuf_fdopen(fd, "target.csv");
    obuf_puts(b, "x");
    CHECK_EQ(obuf_close(b, &e), -1);
    CHECK_STR(e.msg, "target.csv: write failed: No space left on device");
    CHECK(fcntl(fd, F_GETFD) == -1);
    char path[] = "/tmp/t_obuf_fd.XXXXXX";
    fd = mkstemp(path);
    CHECK(fd >= 0);
    b = obuf_fdopen(fd, "other.csv");
    obuf_puts(b, "a,b\n");
    CHECK_EQ(obuf_close(b, &e), 0);
    FILE *f = fopen(path, "r");
    char line[16] = "";
    CHECK(f && fgets(line, sizeof line, f));
    CHECK_STR(line, "a,b\n");
    if (f)
        fclose(f);
    unlink(path);
}

int main(void)
{
    TEST_RUN(test_integers);
    TEST_RUN(test_integer_lengths);
    TEST_RUN(test_integer_values);
    TEST_RUN(test_fmt_ll);
#ifdef OBUF_WORDS
    TEST_RUN(test_lead_digits_all);
#endif
    TEST_RUN(test_reset);
    TEST_RUN(test_fixed_edges);
    TEST_RUN(test_fixed_random);
    TEST_RUN(test_file);
    TEST_RUN(test_file_random);
    TEST_RUN(test_file_pieces);
    TEST_RUN(test_errors);
    TEST_RUN(test_fdopen);
    return TEST_DONE();
}
