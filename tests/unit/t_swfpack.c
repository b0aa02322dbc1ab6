/*
 * t_swfpack — SWF records kept as their canonical lines (trace/swfpack):
 * each record comes back, in order, as the line a simple model (snprintf)
 * writes from its values, with the right line number and field starts,
 * whether the pack kept the trace's own text (canonical) or formatted it
 * (any other spelling: blanks, tabs, '+', leading zeros, points, "\r\n",
 * exponents). 20,000 random lines (fixed seed) go through the real reader
 * (swf_scan), so that each record's text and values agree as they do in a
 * replay; then the extremes (no text: formatted), an empty and a trimmed
 * pack, the size of a trace's record (its line packed two bytes to one), and
 * the lines that cannot be packed ("inf").
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "test.h"
#include "trace/swfpack.h"

/* The model: each field in decimal, one space apart; a double that is a
 * whole number without a point, any other with two decimals. */
static size_t model_line(char *buf, size_t n, const struct swf_rec *r)
{
    const long long iv[] = {
        r->id,        r->submit,    r->wait,     r->runtime, r->alloc, 0,        0,
        r->req_procs, r->req_time,  0,           r->status,  r->user,  r->group, r->app,
        r->queue,     r->partition, r->prev_job, r->think};
    const double dv[] = {[5] = r->cpu, [6] = r->mem_used, [9] = r->req_mem};
    size_t len = 0;
    for (int i = 0; i < 18; i++) {
        const char *sep = i ? " " : "";
        if (i != 5 && i != 6 && i != 9)
            len += (size_t)snprintf(buf + len, n - len, "%s%lld", sep, iv[i]);
        else if (isfinite(dv[i]) && dv[i] == (double)(long long)dv[i])
            len += (size_t)snprintf(buf + len, n - len, "%s%lld", sep, (long long)dv[i]);
        else
            len += (size_t)snprintf(buf + len, n - len, "%s%.2f", sep, dv[i]);
    }
    return len;
}

/* Where field f (1-based) starts in the model's line. */
static size_t model_start(const char *line, int f)
{
    const char *p = line;
    for (int i = 1; i < f; i++)
        p = strchr(p, ' ') + 1;
    return (size_t)(p - line);
}

/* Line l as the model writes record r, its fields' starts and line number. */
static int line_same(const struct swfpack_line *l, const struct swf_rec *r)
{
    char want[2048];
    size_t n = model_line(want, sizeof want, r);
    int same = l->line == r->line && l->len == n && memcmp(l->text, want, n) == 0 &&
               l->f3 == model_start(want, 3) && l->f4 == model_start(want, 4) &&
               l->f6 == model_start(want, 6) && l->f11 == model_start(want, 11) &&
               l->f12 == model_start(want, 12);
    if (!same)
        fprintf(stderr, "line %ld: '%.*s' (%zu %zu %zu %zu %zu), want '%s'\n", l->line, (int)l->len,
                l->text, l->f3, l->f4, l->f6, l->f11, l->f12, want);
    return same;
}

/* Read the pack back: n records, each the model's line of its record. */
static int reads_back(const struct swfpack *p, const struct swf_rec *model, size_t n)
{
    struct swfpack_cursor c = {0};
    struct swfpack_line l;
    for (size_t i = 0; i < n; i++)
        if (swfpack_next(p, &c, &l) != 0 || !line_same(&l, &model[i])) {
            fprintf(stderr, "record %zu differs\n", i);
            return 0;
        }
    return swfpack_next(p, &c, &l) == -1 && p->n == n;
}

static void test_empty(void)
{
    struct swfpack p = {0};
    CHECK(reads_back(&p, NULL, 0));
    swfpack_trim(&p);
    swfpack_free(&p);
    swfpack_free(&p); /* freed twice: nothing */
}

static struct swf_rec all(long long v, double d, long line)
{
    return (struct swf_rec){v, v, v, v, v, d, d, v, v, d, v, v, v, v, v, v, v, v, line, NULL};
}

/* Records without text (a Maui trace's, or any): formatted. */
static void test_extremes(void)
{
    const long long ints[] = {0,         -1,          1,   63,        64,        -64,
                              -65,       127,         128, LLONG_MAX, LLONG_MIN, LLONG_MIN + 1,
                              1LL << 40, -(1LL << 53)};
    const double dbls[] = {0.0,    -0.0, -1.0,  0.5,          -2.75,
                           0x1p53, 1e13, -1e13, -0x1p62,      4.9e-324,
                           0.005,  1e10, 0.125, 123456.78125, 9007199254740991.0};
    size_t ni = sizeof ints / sizeof *ints, nd = sizeof dbls / sizeof *dbls, n = ni * nd;
    struct swf_rec *model = malloc(n * sizeof *model);
    struct swfpack p = {0};
    for (size_t i = 0; i < n; i++) {
        /* lines going back and forth by the largest steps too */
        long line = i % 2 ? LONG_MAX - (long)i : LONG_MIN + (long)i;
        model[i] = all(ints[i % ni], dbls[i / ni], line);
        swfpack_add(&p, &model[i]);
    }
    CHECK(reads_back(&p, model, n));
    swfpack_trim(&p);
    CHECK_EQ(p.len + 16, p.cap); /* the slack the last text's reading may touch */
    CHECK(reads_back(&p, model, n));
    swfpack_free(&p);
    free(model);
}

/* --------------------------------------------- lines through the reader */

/* A value as traces have them: mostly -1 or small, now and then large. */
static long long some_ll(int time)
{
    switch (rand() % 8) {
    case 0:
        return -1;
    case 1:
        return rand() % 10;
    case 2:
        return time ? rand() % 1000000000
                    : ((long long)rand() << 31 | rand()) * (rand() % 2 ? 1 : -1);
    default:
        return rand() % 100000;
    }
}

static double some_double(void)
{
    switch (rand() % 5) {
    case 0:
        return -1;
    case 1:
        return (double)(rand() % 100000) / 100.0; /* as a trace writes "552.21" */
    case 2:
        return (double)rand() * (double)rand() * 1e3; /* past 10^13 sometimes */
    case 3:
        return (double)(rand() % 100000) / 64.0;
    default:
        return (double)(rand() % 1000);
    }
}

/* Write v in one of the spellings the reader takes (mostly canonical). */
static int spell_ll(char *b, long long v)
{
    switch (rand() % 12) {
    case 0:
        return v >= 0 ? sprintf(b, "+%lld", v) : sprintf(b, "%lld", v);
    case 1:
        return v >= 0 ? sprintf(b, "0%lld", v) : sprintf(b, "-0%lld", -v);
    case 2:
        return llabs(v) < 1000000 ? sprintf(b, "%lld.00", v) : sprintf(b, "%lld", v);
    default:
        return sprintf(b, "%lld", v);
    }
}

static int spell_double(char *b, double v)
{
    switch (rand() % 10) {
    case 0:
        return sprintf(b, "%.3f", v);
    case 1:
        return sprintf(b, "%.1f", v);
    case 2:
        return sprintf(b, "%.6e", v);
    default:
        if (v == (double)(long long)v)
            return sprintf(b, "%lld", (long long)v);
        return sprintf(b, "%.2f", v);
    }
}

/* A blank between fields: mostly one space. */
static const char *some_blank(void)
{
    static const char *const blanks[] = {"  ", "\t", " \t"};
    return rand() % 20 ? " " : blanks[rand() % 3];
}

/* One random job line into b; its values as the text says them. */
static int random_line(char *b)
{
    int n = rand() % 30 ? 0 : sprintf(b, "%s", some_blank()); /* leading blanks */
    for (int i = 0; i < 18; i++) {
        if (i)
            n += sprintf(b + n, "%s", some_blank());
        if (i == 5 || i == 6 || i == 9)
            n += spell_double(b + n, some_double());
        else
            n += spell_ll(b + n, some_ll(i == 1 || i == 2 || i == 3 || i == 8 || i == 17));
    }
    static const char *const ends[] = {"\n", " \n", "\r\n", "\t\n"};
    return n + sprintf(b + n, "%s", rand() % 20 ? "\n" : ends[rand() % 4]);
}

/* The reader's records: each into the pack (with its text), and a copy
 * into the model (without). */
struct both {
    struct swfpack p;
    struct swf_rec *model;
    size_t n, cap;
    size_t canon, canon_wrong; /* records the reader said canonical; of them, not */
    size_t dot00, dot00_wrong; /* canonical but for ".00"; of them, not */
};

static int keep_both(void *ctx, const struct swf_rec *r, struct err *err)
{
    (void)err;
    struct both *b = ctx;
    /* The reader's canon flag, which the pack takes unchecked: its text,
     * but for the newline, is the model's line of its values. */
    if (r->canon) {
        char want[2048];
        size_t n = model_line(want, sizeof want, r), tn = strlen(r->text);
        tn -= tn && r->text[tn - 1] == '\n';
        b->canon++;
        if (tn != n || memcmp(r->text, want, n) != 0) {
            if (b->canon_wrong++ < 5)
                fprintf(stderr, "said canonical: '%.*s', want '%s'\n", (int)tn, r->text, want);
        }
    }
    /* and its dot00 flag: its text without its ".00" is the model's line */
    if (r->dot00) {
        char want[2048], got[2048];
        size_t n = model_line(want, sizeof want, r), gn = 0;
        for (const char *t = r->text; *t && *t != '\n'; t++) {
            got[gn++] = *t;
            if (*t == '.' && t[1] == '0' && t[2] == '0')
                gn--, t += 2;
        }
        b->dot00++;
        if (r->canon || gn != n || memcmp(got, want, n) != 0) {
            if (b->dot00_wrong++ < 5)
                fprintf(stderr, "said canonical but .00: '%s', want '%s'\n", r->text, want);
        }
    }
    swfpack_add(&b->p, r);
    if (b->n == b->cap) {
        b->cap = b->cap ? 2 * b->cap : 1024;
        b->model = realloc(b->model, b->cap * sizeof *b->model);
    }
    b->model[b->n] = *r;
    b->model[b->n++].text = NULL;
    return 0;
}

static void test_random_lines(void)
{
    enum { N = 20000 };
    srand(31);
    size_t cap = (size_t)N * 600, len = 0;
    char *text = malloc(cap);
    len += (size_t)sprintf(text, "; Version: 2.2\n");
    for (int i = 0; i < N; i++) {
        if (rand() % 50 == 0)
            len += (size_t)sprintf(text + len, "; a comment\n\n"); /* lines skipped */
        len += (size_t)random_line(text + len);
    }
    len -= text[len - 1] == '\n' && rand() % 2; /* the last line without its newline */
    char path[32];
    write_temp_named(path, "t_swfpack", text, len);
    struct both b = {{0}};
    struct swf_header h;
    struct err err = {""};
    CHECK_EQ(swf_scan(path, &h, keep_both, &b, &err), 0);
    unlink(path);
    CHECK_EQ(b.n, N);
    CHECK(reads_back(&b.p, b.model, b.n));
    CHECK_EQ(b.canon_wrong, 0);
    CHECK(b.canon >= 20); /* set (34 of these noisy lines are canonical) */
    /* the same records without their text: the same lines */
    struct swfpack q = {0};
    for (size_t i = 0; i < b.n; i++)
        swfpack_add(&q, &b.model[i]);
    CHECK(reads_back(&q, b.model, b.n));
    swfpack_free(&q);
    swfpack_free(&b.p);
    free(b.model);
    free(text);
}

/* Canonical lines whose first 11 fields pass 64 bytes, and lines longer
 * than 128: kept as read all the same. */
static void test_long_lines(void)
{
    char text[16384];
    size_t len = 0;
    for (int i = 0; i < 50; i++)
        len += (size_t)sprintf(text + len,
                               "%d 1099511627775 -1099511627775 1234567890 -123456789012345 "
                               "999999999999.99 -999999999999 123456789012 %d 0.01 -5 "
                               "9223372036854775807 -9223372036854775807 1 2 3 4 %d\n",
                               i, i * 1000, i);
    char path[32];
    write_temp_named(path, "t_swfpack", text, len);
    struct both b = {{0}};
    struct swf_header h;
    struct err err = {""};
    CHECK_EQ(swf_scan(path, &h, keep_both, &b, &err), 0);
    unlink(path);
    CHECK_EQ(b.n, 50);
    CHECK(reads_back(&b.p, b.model, b.n));
    CHECK_EQ(b.canon, 50); /* every one canonical, and the reader saw it */
    CHECK_EQ(b.canon_wrong, 0);
    swfpack_free(&b.p);
    free(b.model);
}

/* A record takes half its line, rounded up, and 6 bytes: its length (1),
 * where fields 3, 6, 11 and 12 start (4) and the line number's step (1,
 * the next line). */
static void test_size(void)
{
    struct swfpack p = {0};
    size_t want = 0;
    for (long i = 0; i < 1000; i++) {
        struct swf_rec r = {i + 1, i * 97, 1200, 35000, 2, 33000.5, -1, 2,  86400,  -1,
                            1,     12,     3,    -1,    1, -1,      -1, -1, i + 11, NULL};
        char line[2048];
        want += (model_line(line, sizeof line, &r) + 1) / 2 + 6;
        swfpack_add(&p, &r);
    }
    CHECK_EQ(p.len, want);
    swfpack_free(&p);
}

/* Lines that cannot be packed (a double that is not finite: "inf",
 * "-inf", "nan") are kept as they are, among packed ones of every length
 * to past 255 bytes (a length in more than one byte), odd and even. */
static void test_unpacked(void)
{
    enum { N = 400 };
    const double odd[] = {INFINITY, -INFINITY, NAN, 0.25};
    struct swf_rec *model = malloc(N * sizeof *model);
    struct swfpack p = {0};
    srand(311);
    for (long i = 0; i < N; i++) {
        long long big = i % 3 ? rand() % 1000 : (long long)rand() << 31 | rand();
        model[i] = all(i % 2 ? big : -big, odd[i % 4], i + 1);
        model[i].req_mem = (double)(rand() % 10000) / 100.0;
        model[i].id = i * (i % 7 == 0 ? 1000000007LL : 1);
        swfpack_add(&p, &model[i]);
    }
    CHECK(reads_back(&p, model, N));
    swfpack_trim(&p);
    CHECK(reads_back(&p, model, N));
    swfpack_free(&p);
    free(model);
}

/* ------------------------------------------ which texts are kept as read */

/* A token as the pack takes it as canonical: "0", or digits without a
 * leading zero after an optional '-' (not "-0"), either with a point and
 * two decimals that are not "00" ("-0.50" is not taken). */
static int model_token(const char *t, size_t n)
{
    size_t i = t[0] == '-';
    if (i >= n || t[i] < '0' || t[i] > '9' ||
        (t[i] == '0' && (i || (i + 1 < n && t[i + 1] != '.'))))
        return 0;
    while (i < n && t[i] >= '0' && t[i] <= '9')
        i++;
    if (i == n)
        return 1;
    return n - i == 3 && t[i] == '.' && t[i + 1] >= '0' && t[i + 1] <= '9' && t[i + 2] >= '0' &&
           t[i + 2] <= '9' && !(t[i + 1] == '0' && t[i + 2] == '0');
}

/* Whether the n bytes of a line are canonical tokens one space apart,
 * 12 fields at least. */
static int model_canonical(const char *t, size_t n)
{
    size_t start = 0, tokens = 0;
    for (size_t i = 0; i <= n; i++)
        if (i == n || t[i] == ' ') {
            if (!model_token(t + start, i - start))
                return 0;
            tokens++, start = i + 1;
        }
    return tokens >= 12;
}

/* A token: mostly canonical, of every length to 19 digits; now and then
 * one that is not, or that is only near it. */
static int some_token(char *b)
{
    static const char *const odd[] = {"00",    "01",   "-0",  "--1", "1-",    "1.0",   "1.000",
                                      "1.00",  "0.00", ".50", "1.",  "-0.50", "1.2.3", "+1",
                                      "1a",    "-",    ".",   "-.5", "5.5",   "0.05",  "-3.01",
                                      "10.10", "0.50", "-0",  "007", "9.99",  "-1.00", "1..2"};
    if (rand() % 25 == 0)
        return sprintf(b, "%s", odd[rand() % (int)(sizeof odd / sizeof *odd)]);
    long long v = rand() % 4 ? rand() % 1000 : (long long)rand() << 31 | rand();
    v = rand() % 3 ? v : -v;
    if (rand() % 6 == 0)
        return sprintf(b, "%lld.%02d", v, 1 + rand() % 99);
    return sprintf(b, "%lld", v);
}

/* Records whose text says other values than theirs: a text the pack
 * judges canonical comes back as it was, any other as the values'
 * line. Lines of 18 tokens from 40 bytes to past 300 (a length past 255
 * bytes too), so that the token that breaks a line falls anywhere, across
 * the 64-byte words the check works in too. */
static void test_kept_as_read(void)
{
    enum { N = 20000 };
    srand(3131);
    struct swfpack p = {0};
    struct swf_rec r = all(7, 0.5, 0);
    char(*text)[512] = malloc(N * sizeof *text);
    size_t *len = malloc(N * sizeof *len);
    int kept = 0;
    for (int i = 0; i < N; i++) {
        size_t n = 0;
        if (rand() % 100 == 0)
            text[i][n++] = ' ';                          /* a leading blank */
        int tokens = rand() % 50 ? 18 : 11 + rand() % 2; /* 11: one field short */
        for (int f = 0; f < tokens; f++) {
            if (f)
                n += (size_t)sprintf(text[i] + n, "%s", rand() % 200 ? " " : "  ");
            n += (size_t)some_token(text[i] + n);
        }
        if (rand() % 100 == 0)
            text[i][n++] = ' '; /* a trailing blank */
        len[i] = n;
        text[i][n] = '\n', text[i][n + 1] = 0;
        r.line = i + 1;
        r.text = text[i];
        swfpack_add(&p, &r);
        kept += model_canonical(text[i], n);
    }
    CHECK(kept > N / 4 && kept < N - N / 4); /* both kinds, many of each */
    r.text = NULL;
    char formatted[SWFPACK_LINE_ROOM];
    size_t flen = (size_t)(swfpack_format(formatted, &r) - formatted);
    struct swfpack_cursor c = {0};
    struct swfpack_line l;
    int wrong = 0;
    for (int i = 0; i < N && swfpack_next(&p, &c, &l) == 0; i++) {
        int want_text = model_canonical(text[i], len[i]);
        const char *want = want_text ? text[i] : formatted;
        size_t wlen = want_text ? len[i] : flen;
        if (l.len != wlen || memcmp(l.text, want, wlen) != 0) {
            if (wrong++ < 5)
                fprintf(stderr, "line %d: '%.*s' came back as '%.*s'\n", i + 1, (int)len[i],
                        text[i], (int)l.len, l.text);
        }
    }
    CHECK_EQ(wrong, 0);
    CHECK_EQ(p.n, (size_t)N);
    swfpack_free(&p);
    free(text);
    free(len);
}

/* A record the reader said canonical (r->canon) is kept as its text,
 * unchecked: the flag is what spares the check (here it lies, a leading
 * zero and two spaces, and the text comes back as it was). */
static void test_canon_taken(void)
{
    static const char text[] = "007 0 5 60 2 -1 -1 2 3600 -1 1 3 4 -1  1 -1 -1 -1\n";
    struct swf_rec r = all(7, -1, 3);
    r.text = text;
    r.canon = true;
    struct swfpack p = {0};
    swfpack_add(&p, &r);
    struct swfpack_cursor c = {0};
    struct swfpack_line l;
    CHECK_EQ(swfpack_next(&p, &c, &l), 0);
    CHECK_EQ(l.len, strlen(text) - 1);
    CHECK(memcmp(l.text, text, l.len) == 0);
    CHECK_EQ(l.line, 3);
    r.canon = false; /* checked: formatted */
    swfpack_add(&p, &r);
    CHECK_EQ(swfpack_next(&p, &c, &l), 0);
    CHECK(line_same(&l, &r));
    swfpack_free(&p);
}

/* A line of canonical tokens but that whole numbers (of at most 13
 * digits) are now and then written with ".00" ("978.00", as HPC2N's
 * field 6), and a line in ten with a leading zero too. */
static int dot00_line(char *b)
{
    int n = 0, lead0 = rand() % 10 == 0 ? rand() % 18 : -1;
    for (int i = 0; i < 18; i++) {
        const char *sep = i ? " " : "";
        int real = i == 5 || i == 6 || i == 9;
        double d = real ? some_double() : 0;
        d = fabs(d) < 1e13 ? d : -1; /* (past it: formatted, test_random_lines') */
        long long v = real ? 0 : some_ll(i == 1 || i == 2 || i == 3 || i == 8 || i == 17);
        if (real && d != (double)(long long)d)
            n += sprintf(b + n, "%s%.2f", sep, d);
        else if (real)
            v = (long long)d;
        if (real && d != (double)(long long)d)
            continue;
        if (i == lead0 && v >= 0)
            n += sprintf(b + n, "%s0%lld", sep, v);
        else if (rand() % 3 == 0 && llabs(v) < 10000000000000LL)
            n += sprintf(b + n, "%s%lld.00", sep, v);
        else
            n += sprintf(b + n, "%s%lld", sep, v);
    }
    return n + sprintf(b + n, "\n");
}

/* Lines the reader saw canonical but for their ".00" (swf_rec.dot00) are
 * kept as their text without them, unchecked, their fields' starts moved
 * back: each comes back as the model's line, starts and all. */
static void test_dot00_lines(void)
{
    enum { N = 5000 };
    srand(2200);
    size_t len = 0;
    char *text = malloc((size_t)N * 400);
    for (int i = 0; i < N; i++)
        len += (size_t)dot00_line(text + len);
    char path[32];
    write_temp_named(path, "t_swfpack", text, len);
    struct both b = {{0}};
    struct swf_header h;
    struct err err = {""};
    CHECK_EQ(swf_scan(path, &h, keep_both, &b, &err), 0);
    unlink(path);
    CHECK_EQ(b.n, N);
    CHECK_EQ(b.dot00_wrong, 0);
    CHECK(b.dot00 > N / 2);        /* most lines: one ".00" at least */
    CHECK(b.dot00 < N * 95 / 100); /* not those with a leading zero */
    CHECK(reads_back(&b.p, b.model, b.n));
    swfpack_free(&b.p);
    free(b.model);
    free(text);
}

int main(void)
{
    TEST_RUN(test_empty);
    TEST_RUN(test_extremes);
    TEST_RUN(test_random_lines);
    TEST_RUN(test_long_lines);
    TEST_RUN(test_size);
    TEST_RUN(test_unpacked);
    TEST_RUN(test_kept_as_read);
    TEST_RUN(test_canon_taken);
    TEST_RUN(test_dot00_lines);
    return TEST_DONE();
}
