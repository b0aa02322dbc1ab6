/*
 * t_swf — the SWF reader: header keywords, job lines, line endings, gzip,
 * and the errors that must name file and line. Small traces live in
 * tests/data/swf/; the real KTH trace is read too when it is present.
 */
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test.h"
#include "trace/swf.h"

#define DATA "tests/data/swf/"
#define KTH "data/KTH-SP2-1996-2.1-cln.norm.swf.gz" /* bundled; run from the checkout */

static int rec_equal(const struct swf_rec *a, const struct swf_rec *b)
{
    return a->id == b->id && a->submit == b->submit && a->wait == b->wait &&
           a->runtime == b->runtime && a->alloc == b->alloc && a->cpu == b->cpu &&
           a->mem_used == b->mem_used && a->req_procs == b->req_procs &&
           a->req_time == b->req_time && a->req_mem == b->req_mem && a->status == b->status &&
           a->user == b->user && a->group == b->group && a->app == b->app && a->queue == b->queue &&
           a->partition == b->partition && a->prev_job == b->prev_job && a->think == b->think &&
           a->line == b->line;
}

static void write_temp(char *path, const char *data, size_t len)
{
    write_temp_named(path, "t_swf", data, len);
}

/* Read a file that must fail: err names path:line, *out comes back empty. */
static void check_fails(const char *path, const char *want)
{
    struct swf_trace t;
    struct err err = {""};
    CHECK_EQ(swf_read(path, &t, &err), -1);
    CHECK(t.recs == NULL);
    CHECK_EQ(t.nrecs, 0);
    CHECK_HAS(err.msg, path);
    CHECK_HAS(err.msg, want);
}

/* Read one job line, given as text, from a temporary file. */
static int read_line_text(const char *text, struct swf_trace *t, struct err *err, char *path)
{
    write_temp(path, text, strlen(text));
    int rc = swf_read(path, t, err);
    unlink(path);
    return rc;
}

/* A one-line file whose line must fail with a message containing want. */
static void check_line_fails(const char *text, const char *want)
{
    char path[32];
    struct swf_trace t;
    struct err err = {""};
    CHECK_EQ(read_line_text(text, &t, &err, path), -1);
    CHECK(t.recs == NULL);
    CHECK_HAS(err.msg, path);
    CHECK_HAS(err.msg, ":1: ");
    CHECK_HAS(err.msg, want);
}

static void test_header(void)
{
    struct swf_trace t;
    struct err err = {""};
    CHECK_EQ(swf_read(DATA "normal.swf", &t, &err), 0);
    CHECK_EQ(t.hdr.unix_start, 843480031);
    CHECK_EQ(t.hdr.max_nodes, 64);
    CHECK_EQ(t.hdr.max_procs, 128);
    swf_free(&t);
}

/* No keywords, and notes whose values are not single integers: not errors. */
static void test_header_absent(void)
{
    struct swf_trace t;
    struct err err = {""};
    CHECK_EQ(swf_read(DATA "noheader.swf", &t, &err), 0);
    CHECK_STR(err.msg, "");
    CHECK_EQ(t.hdr.unix_start, -1);
    CHECK_EQ(t.hdr.max_nodes, 0);
    CHECK_EQ(t.hdr.max_procs, 0);
    CHECK_EQ(t.nrecs, 1);
    swf_free(&t);
}

/* Spaces and tabs, a blank line, a comment between jobs, extreme values. */
static void test_normal(void)
{
    struct swf_trace t;
    struct err err = {""};
    CHECK_EQ(swf_read(DATA "normal.swf", &t, &err), 0);
    CHECK_EQ(t.nrecs, 4);
    if (t.nrecs != 4)
        return;
    const struct swf_rec *r = t.recs;
    CHECK_EQ(r[0].id, 3);
    CHECK_EQ(r[0].wait, 10);
    CHECK_EQ(r[0].runtime, 100);
    CHECK_EQ(r[0].alloc, 4);
    CHECK(r[0].cpu == -1 && r[0].mem_used == -1 && r[0].req_mem == -1);
    CHECK_EQ(r[0].req_time, 120);
    CHECK_EQ(r[0].line, 9);
    CHECK_EQ(r[1].id, 4);
    CHECK_EQ(r[1].submit, 5);
    CHECK_EQ(r[1].status, 0);
    CHECK_EQ(r[1].user, 2);
    CHECK_EQ(r[1].line, 10);
    CHECK_EQ(r[2].id, 7);
    CHECK_EQ(r[2].runtime, -1);
    CHECK_EQ(r[2].req_procs, -1);
    CHECK_EQ(r[2].status, 5);
    CHECK(r[2].app == 7 && r[2].queue == 1 && r[2].partition == 2);
    CHECK(r[2].prev_job == 4 && r[2].think == 30);
    CHECK_EQ(r[2].line, 13);
    CHECK_EQ(r[3].submit, 1099511627776LL); /* 2^40 s, the largest time allowed */
    CHECK_EQ(r[3].wait, -1099511627776LL);
    CHECK(r[3].cpu == 25 && r[3].mem_used == 1024 && r[3].req_mem == 2048);
    CHECK_EQ(r[3].line, 14);
    swf_free(&t);
}

static void test_gzip_same_as_plain(void)
{
    struct swf_trace a, b;
    struct err err = {""};
    CHECK_EQ(swf_read(DATA "normal.swf", &a, &err), 0);
    CHECK_EQ(swf_read(DATA "normal.swf.gz", &b, &err), 0);
    CHECK_EQ(b.nrecs, a.nrecs);
    CHECK(memcmp(&a.hdr, &b.hdr, sizeof a.hdr) == 0);
    for (size_t i = 0; i < a.nrecs && i < b.nrecs; i++)
        CHECK(rec_equal(&a.recs[i], &b.recs[i]));
    swf_free(&a);
    swf_free(&b);
}

/* Fractions in fields 6, 7, 10; an integral "3600.0" in integer field 9. */
static void test_fractional(void)
{
    struct swf_trace t;
    struct err err = {""};
    CHECK_EQ(swf_read(DATA "fractional.swf", &t, &err), 0);
    CHECK_EQ(t.nrecs, 2);
    if (t.nrecs != 2)
        return;
    CHECK(t.recs[0].cpu == 552.21);
    CHECK_EQ(t.recs[0].req_time, 3600);
    CHECK(t.recs[1].mem_used == 1500.0);
    CHECK(t.recs[1].req_mem == 0.25);
    swf_free(&t);
}

static void test_crlf(void)
{
    struct swf_trace t;
    struct err err = {""};
    CHECK_EQ(swf_read(DATA "crlf.swf", &t, &err), 0);
    CHECK_EQ(t.hdr.unix_start, 100);
    CHECK_EQ(t.hdr.max_procs, 8);
    CHECK_EQ(t.nrecs, 2);
    if (t.nrecs != 2)
        return;
    CHECK_EQ(t.recs[0].think, -1);
    CHECK_EQ(t.recs[0].line, 4);
    CHECK_EQ(t.recs[1].id, 2);
    CHECK_EQ(t.recs[1].line, 5);
    swf_free(&t);
}

static void test_no_final_newline(void)
{
    struct swf_trace t;
    struct err err = {""};
    CHECK_EQ(swf_read(DATA "nofinalnl.swf", &t, &err), 0);
    CHECK_EQ(t.nrecs, 2);
    if (t.nrecs != 2)
        return;
    CHECK_EQ(t.recs[1].runtime, 20);
    CHECK_EQ(t.recs[1].think, -1);
    CHECK_EQ(t.recs[1].line, 3);
    swf_free(&t);
}

/* Lines far longer than any buffer guess: a long note, a padded job line. */
static void test_long_lines(void)
{
    size_t n = 300000;
    char *s = malloc(n + 200);
    size_t len = 0;
    len += (size_t)sprintf(s + len, "; Note: ");
    memset(s + len, 'x', 100000), len += 100000;
    len += (size_t)sprintf(s + len, "\n; MaxProcs: 42\n1 0 0 10 1");
    memset(s + len, ' ', 100000), len += 100000;
    len += (size_t)sprintf(s + len, "-1 -1 1 60 -1 1 1 1 -1 -1 -1 -1 77");
    char path[32];
    write_temp(path, s, len);
    free(s);
    struct swf_trace t;
    struct err err = {""};
    CHECK_EQ(swf_read(path, &t, &err), 0);
    CHECK_STR(err.msg, "");
    CHECK_EQ(t.hdr.max_procs, 42);
    CHECK_EQ(t.nrecs, 1);
    if (t.nrecs == 1) {
        CHECK_EQ(t.recs[0].think, 77);
        CHECK_EQ(t.recs[0].line, 3);
    }
    swf_free(&t);
    unlink(path);
}

static void test_empty_file(void)
{
    char path[32];
    write_temp(path, "", 0);
    struct swf_trace t;
    struct err err = {""};
    CHECK_EQ(swf_read(path, &t, &err), 0);
    CHECK_EQ(t.nrecs, 0);
    CHECK_EQ(t.hdr.unix_start, -1);
    swf_free(&t);
    unlink(path);
}

static void test_error_too_few_fields(void)
{
    check_fails(DATA "few.swf", DATA "few.swf:3: expected 18 fields, found 17");
}

static void test_error_too_many_fields(void)
{
    check_fails(DATA "many.swf", DATA "many.swf:4: expected 18 fields, found 19");
}

static void test_error_not_a_number(void)
{
    check_fails(DATA "nonnum.swf", DATA "nonnum.swf:2: field 4 (run time) is not a number: 'abc'");
    check_fails(DATA "nan.swf",
                DATA "nan.swf:2: field 6 (average CPU time) is not a number: 'nan'");
}

static void test_error_fraction_in_integer_field(void)
{
    check_fails(DATA "fracint.swf",
                DATA "fracint.swf:2: field 9 (requested time) is not an integer: '3600.5'");
}

static void test_error_overflow(void)
{
    check_fails(DATA "overflow.swf",
                DATA "overflow.swf:2: field 5 (allocated processors) is out of range");
}

/* Numbers just outside a field's range, and notation SWF does not use. */
static void test_error_edge_numbers(void)
{
    check_line_fails("1 -9223372036854775809 0 10 1 -1 -1 1 60 -1 1 1 1 -1 -1 -1 -1 -1\n",
                     "field 2 (submit time) is out of range: '-9223372036854775809'");
    /* Times past 2^40 s: the engine's "never" is 2^62 and sums must not wrap
     * (a submit time of 2^62 made a replay spin; INT64_MAX lost the job). */
    check_line_fails("1 4611686018427387904 0 10 1 -1 -1 1 60 -1 1 1 1 -1 -1 -1 -1 -1\n",
                     "field 2 (submit time) is out of range: '4611686018427387904'");
    check_line_fails("1 0 0 10 1 -1 -1 1 9223372036854775807 -1 1 1 1 -1 -1 -1 -1 -1\n",
                     "field 9 (requested time) is out of range");
    check_line_fails("1 1099511627777 0 10 1 -1 -1 1 60 -1 1 1 1 -1 -1 -1 -1 -1\n",
                     "field 2 (submit time) is out of range");
    check_line_fails("1 0 0 -1099511627777 1 -1 -1 1 60 -1 1 1 1 -1 -1 -1 -1 -1\n",
                     "field 4 (run time) is out of range");
    check_line_fails("1 0 0 10 1 1e999 -1 1 60 -1 1 1 1 -1 -1 -1 -1 -1\n",
                     "field 6 (average CPU time) is out of range");
    check_line_fails("1 0 0 10 1 -1 -1 1 60 -1 1 1 1 -1 -1 -1 -1 1e19\n",
                     "field 18 (think time) is out of range");
    check_line_fails("1 0 0 10 1 -1 -1 1 60 0x10 1 1 1 -1 -1 -1 -1 -1\n",
                     "field 10 (requested memory) is not a number: '0x10'");
    check_line_fails("1 0 0 10 1 -1 -1 1 60 -1 1 12abc 1 -1 -1 -1 -1 -1\n",
                     "field 12 (user id) is not a number: '12abc'");
    check_line_fails("- 0 0 10 1 -1 -1 1 60 -1 1 1 1 -1 -1 -1 -1 -1\n",
                     "field 1 (job number) is not a number: '-'");
    check_line_fails("1 0 0 10 1 -1 -1 1 60 -1 1 1 1 -1 -1 -1 -1 inf\n", "is not a number: 'inf'");
}

/* With a bad token and a wrong count, the count is what the user must fix. */
static void test_error_count_before_value(void)
{
    check_line_fails("1 0 0 abc 1 -1 -1 1 60 -1 1 1 1 -1 -1 -1 -1\n",
                     "expected 18 fields, found 17");
}

/* Notation that is unusual but means an integer is accepted. */
static void test_edge_numbers_accepted(void)
{
    char path[32];
    struct swf_trace t;
    struct err err = {""};
    CHECK_EQ(read_line_text("+1 -0 0 1e3 1 -1 -1 1 60 -1 1 1 1 -1 -1 -1 -9223372036854775808 -1",
                            &t, &err, path),
             0);
    CHECK_STR(err.msg, "");
    CHECK_EQ(t.nrecs, 1);
    if (t.nrecs == 1) {
        CHECK_EQ(t.recs[0].id, 1);
        CHECK_EQ(t.recs[0].submit, 0);
        CHECK_EQ(t.recs[0].runtime, 1000);
        CHECK_EQ(t.recs[0].prev_job, LLONG_MIN); /* not a time: the whole range */
    }
    swf_free(&t);
}

/* A NUL byte must not end the file early or go unnoticed. */
static void test_error_nul_byte(void)
{
    static const char text[] =
        "; MaxProcs: 8\n\0 binary\n1 0 0 10 1 -1 -1 1 60 -1 1 1 1 -1 -1 -1 -1 -1\n";
    char path[32];
    write_temp(path, text, sizeof text - 1);
    check_fails(path, ":2: the line holds a NUL byte");
    unlink(path);
}

static void test_error_missing_file(void)
{
    check_fails(DATA "no-such-file.swf", DATA "no-such-file.swf: cannot open");
}

/* A gzip file cut in the middle is an error, not a shorter trace. */
static void test_error_truncated_gzip(void)
{
    FILE *f = fopen(DATA "normal.swf.gz", "rb");
    CHECK(f != NULL);
    if (!f)
        return;
    char buf[4096];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    char path[32];
    write_temp(path, buf, n - 20);
    check_fails(path, "read error");
    unlink(path);
}

static void test_free_is_safe(void)
{
    struct swf_trace t = {0};
    swf_free(&t);
    swf_free(NULL);
    struct err err;
    CHECK_EQ(swf_read(DATA "normal.swf", &t, &err), 0);
    swf_free(&t);
    CHECK(t.recs == NULL);
    CHECK_EQ(t.nrecs, 0);
    swf_free(&t);
}

static void test_real_kth_trace(void)
{
    if (access(KTH, R_OK) != 0) {
        TEST_SKIP("%s not found (run from the repository root)", KTH);
        return;
    }
    struct swf_trace t;
    struct err err = {""};
    CHECK_EQ(swf_read(KTH, &t, &err), 0);
    CHECK_STR(err.msg, "");
    CHECK_EQ(t.nrecs, 27992);
    CHECK_EQ(t.hdr.max_procs, 100);
    CHECK_EQ(t.hdr.max_nodes, 100);
    CHECK_EQ(t.hdr.unix_start, 843480031);
    if (t.nrecs > 0) {
        CHECK_EQ(t.recs[0].id, 15);
        CHECK_EQ(t.recs[0].submit, 599850);
        CHECK_EQ(t.recs[0].req_time, 53940);
    }
    swf_free(&t);
}

/* A decimal token of up to `digits` digits, a point somewhere in it (or at
 * its end), a sign now and then: what traces hold and what lies around the
 * reader's 15-digit fast path. */
static void random_decimal(unsigned *seed, char *out, int digits)
{
    *seed = *seed * 1103515245u + 12345u;
    int n = 1 + (int)((*seed >> 8) % (unsigned)digits),
        dot = 1 + (int)((*seed >> 16) % (unsigned)n);
    char *o = out;
    if ((*seed >> 4) % 5 == 0)
        *o++ = (*seed >> 24) % 2 ? '-' : '+';
    for (int k = 0; k < n; k++) {
        *seed = *seed * 1103515245u + 12345u;
        if (k == dot)
            *o++ = '.';
        *o++ = (char)('0' + (*seed >> 16) % 10);
    }
    if (dot == n)
        *o++ = '.';
    *o = '\0';
}

/* Decimal tokens read to the very double strtod gives, in a real field (6,
 * average CPU time), and in an integer one (9, requested time) taken when
 * integral, refused otherwise. Fixed seed. */
static void test_decimals_as_strtod(void)
{
    unsigned seed = 4242;
    for (int i = 0; i < 3000; i++) {
        char tok[40], line[160], path[32];
        random_decimal(&seed, tok, i % 3 ? 16 : 22);
        double want = strtod(tok, NULL);
        struct swf_trace t;
        struct err err = {""};
        snprintf(line, sizeof line, "1 0 0 10 1 %s -1 1 100 -1 1 1 1 -1 -1 1 -1 -1\n", tok);
        CHECK_EQ(read_line_text(line, &t, &err, path), 0);
        CHECK(t.nrecs == 1 && memcmp(&t.recs[0].cpu, &want, sizeof want) == 0);
        swf_free(&t);
        snprintf(line, sizeof line, "1 0 0 10 1 -1 -1 1 %s -1 1 1 1 -1 -1 1 -1 -1\n", tok);
        int integral =
            want == (double)(long long)want && want < 1099511627776.0 && want > -1099511627776.0;
        CHECK_EQ(read_line_text(line, &t, &err, path), integral ? 0 : -1);
        CHECK(!integral || (t.nrecs == 1 && t.recs[0].req_time == (long long)want));
        swf_free(&t);
    }
}

/* A random integer token into tok: an optional sign, 1 to maxd digits
 * (leading zeros too); its value in *v. */
static void random_int(unsigned *seed, char *tok, int maxd, long long *v)
{
    *seed = *seed * 1103515245u + 12345u;
    unsigned r = *seed >> 8;
    char *o = tok;
    int neg = r % 5 == 0;
    if (neg)
        *o++ = '-';
    else if (r % 17 == 1)
        *o++ = '+';
    int n = 1 + (int)((r >> 4) % (unsigned)maxd);
    if (r % 3 == 0)
        n = 1 + (int)((r >> 9) % 2); /* most tokens of a trace are short */
    for (int i = 0; i < n; i++) {
        *seed = *seed * 1103515245u + 12345u;
        *o++ = (char)('0' + (*seed >> 16) % 10);
    }
    *o = '\0';
    *v = strtoll(tok, NULL, 10);
}

/* A record from a line's 18 integer fields, the integers read as numbers. */
static struct swf_rec rec_of(const long long v[18], long line)
{
    return (struct swf_rec){v[0],  v[1],  v[2],         v[3],  v[4],  (double)v[5], (double)v[6],
                            v[7],  v[8],  (double)v[9], v[10], v[11], v[12],        v[13],
                            v[14], v[15], v[16],        v[17], line};
}

/* The text, written to a file and read, gives exactly the records want. */
static void check_reads_as(const char *text, size_t len, const struct swf_rec *want, size_t n)
{
    char path[32];
    write_temp(path, text, len);
    struct swf_trace t;
    struct err err = {""};
    CHECK_EQ(swf_read(path, &t, &err), 0);
    unlink(path);
    CHECK_EQ(t.nrecs, n);
    for (size_t i = 0; i < t.nrecs && i < n; i++)
        if (!rec_equal(&t.recs[i], &want[i])) {
            CHECK(rec_equal(&t.recs[i], &want[i]));
            break;
        }
    swf_free(&t);
}

/*
 * Integer tokens of every length up to 18 digits (12 in the time fields,
 * whose bound is 2^40), signs, leading zeros, blanks of one to three spaces
 * or tabs and CR LF endings, 3,000 lines in one file so that tokens fall at
 * every place of the line buffer, the last just before its NUL: every field
 * read as strtoll reads it. The reader takes eight bytes at a time
 * (swf_digits). Fixed seed.
 */
static void test_integers_as_strtoll(void)
{
    enum { LINES = 3000 };
    static struct swf_rec want[LINES];
    static char text[LINES * 18 * 24];
    static const int time_field[18] = {[1] = 1, [2] = 1, [3] = 1, [8] = 1, [17] = 1};
    unsigned seed = 99;
    size_t len = 0;
    for (int i = 0; i < LINES; i++) {
        long long v[18];
        for (int f = 0; f < 18; f++) {
            char tok[32];
            random_int(&seed, tok, time_field[f] ? 12 : 18, &v[f]);
            int blanks = 1 + (int)(seed >> 27) % 3;
            for (int b = 0; b < blanks; b++)
                text[len++] = (seed >> (20 + b)) & 1 ? '\t' : ' ';
            len += (size_t)sprintf(text + len, "%s", tok);
        }
        len += (size_t)sprintf(text + len, "%s", i % 7 ? "\n" : "\r\n");
        want[i] = rec_of(v, i + 1);
    }
    check_reads_as(text, len, want, LINES);
}

/*
 * Tokens as a normalised trace writes them, one space apart with '\n' at
 * the end (the reader's fast path, swf_field_fast: up to 15 digits in one
 * or two eight-byte loads), of 1 to 17 digits so that both loads and the
 * fallback past them are taken, time fields within 2^40, the last line
 * without its newline: every field read as strtoll reads it. Then the
 * bounds of a time field with 13 digits, either side of 2^40. Fixed seed.
 */
static void test_single_spaced(void)
{
    enum { LINES = 3000 };
    static struct swf_rec want[LINES];
    static char text[LINES * 18 * 24];
    static const int time_field[18] = {[1] = 1, [2] = 1, [3] = 1, [8] = 1, [17] = 1};
    unsigned seed = 7;
    size_t len = 0;
    for (int i = 0; i < LINES; i++) {
        long long v[18];
        for (int f = 0; f < 18; f++) {
            char tok[32];
            random_int(&seed, tok, time_field[f] ? 13 : 17, &v[f]);
            if (time_field[f] && (v[f] > 1099511627776LL || v[f] < -1099511627776LL)) {
                v[f] %= 1099511627776LL;
                snprintf(tok, sizeof tok, "%lld", v[f]);
            }
            len += (size_t)sprintf(text + len, f ? " %s" : "%s", tok);
        }
        if (i < LINES - 1)
            text[len++] = '\n';
        want[i] = rec_of(v, i + 1);
    }
    check_reads_as(text, len, want, LINES);
    char path[32];
    struct swf_trace t;
    struct err err = {""};
    CHECK_EQ(read_line_text("1 1099511627776 0 -1099511627776 1 -1 -1 1 60 -1 1 1 1 -1 -1 -1 "
                            "123456789012345 -1\n",
                            &t, &err, path),
             0);
    CHECK(t.nrecs == 1 && t.recs[0].submit == 1099511627776LL &&
          t.recs[0].runtime == -1099511627776LL && t.recs[0].prev_job == 123456789012345LL);
    swf_free(&t);
    check_line_fails("1 0 0 10 1 -1 -1 1 60 -1 1 1 1 -1 -1 -1 -1 -1099511627777\n",
                     "field 18 (think time) is out of range: '-1099511627777'");
    check_line_fails("1 0 0 10 12345678x -1 -1 1 60 -1 1 1 1 -1 -1 -1 -1 -1\n",
                     "field 5 (allocated processors) is not a number: '12345678x'");
    check_line_fails("1 0 0 10 1 -1 -1 1 60 -1 1 1 1 -1 -1 -1 -1 7-\n",
                     "field 18 (think time) is not a number: '7-'");
}

/*
 * Lines with decimals among their integers, as HPC2N has them ("552.21" in
 * a real field, "3600.0" in an integer one), one space apart and at times
 * more or a tab, ending in '\n' or "\r\n": a decimal goes to swf_set_field,
 * and the token after it is read from past its blank (swf_field_fast's
 * again), the rest of the line too; every field as strtod or strtoll reads
 * it. Fixed seed.
 */
static void test_after_decimals(void)
{
    enum { LINES = 3000 };
    static struct swf_rec want[LINES];
    static char text[LINES * 18 * 40];
    static const int time_field[18] = {[1] = 1, [2] = 1, [3] = 1, [8] = 1, [17] = 1};
    static const int real_field[18] = {[5] = 1, [6] = 1, [9] = 1};
    static const size_t off[18] = {
        offsetof(struct swf_rec, id),       offsetof(struct swf_rec, submit),
        offsetof(struct swf_rec, wait),     offsetof(struct swf_rec, runtime),
        offsetof(struct swf_rec, alloc),    offsetof(struct swf_rec, cpu),
        offsetof(struct swf_rec, mem_used), offsetof(struct swf_rec, req_procs),
        offsetof(struct swf_rec, req_time), offsetof(struct swf_rec, req_mem),
        offsetof(struct swf_rec, status),   offsetof(struct swf_rec, user),
        offsetof(struct swf_rec, group),    offsetof(struct swf_rec, app),
        offsetof(struct swf_rec, queue),    offsetof(struct swf_rec, partition),
        offsetof(struct swf_rec, prev_job), offsetof(struct swf_rec, think),
    };
    unsigned seed = 31;
    size_t len = 0;
    for (int i = 0; i < LINES; i++) {
        struct swf_rec *w = &want[i];
        for (int f = 0; f < 18; f++) {
            char tok[48];
            long long v;
            seed = seed * 1103515245u + 12345u;
            unsigned r = seed >> 8;
            random_int(&seed, tok, time_field[f] ? 9 : 12, &v);
            if (r % 3 == 0) { /* a decimal: any in a real field, integral in another */
                size_t n = strlen(tok);
                tok[n++] = '.';
                for (unsigned k = 0; k < (real_field[f] ? r / 3 % 5 : r / 3 % 3); k++)
                    tok[n++] = real_field[f] ? (char)('0' + (r >> (k + 8)) % 10) : '0';
                tok[n] = '\0';
            }
            double d = strtod(tok, NULL);
            if (real_field[f])
                memcpy((char *)w + off[f], &d, sizeof d);
            else
                memcpy((char *)w + off[f], &(long long){(long long)d}, sizeof(long long));
            const char *blank = r % 11 == 0 ? "\t" : r % 13 == 0 ? "  " : " ";
            len += (size_t)sprintf(text + len, "%s%s", f ? blank : "", tok);
        }
        len += (size_t)sprintf(text + len, "%s", i % 5 ? "\n" : "\r\n");
        w->line = i + 1;
    }
    check_reads_as(text, len, want, LINES);
}

/* each() for test_pipeline: records must come in file order; it fails at
 * record fail_at (0: never). */
struct order {
    long n, fail_at;
    int in_order;
};

static int count_in_order(void *ctx, const struct swf_rec *rec, struct err *err)
{
    struct order *o = ctx;
    o->n++;
    o->in_order &= rec->line == o->n + 1 && rec->id == o->n; /* line 1 is a comment */
    if (o->n == o->fail_at)
        return err_set(err, "each() stops at record %ld", o->n);
    return 0;
}

/*
 * Lines are parsed in a thread of their own, records handed over in
 * batches (swf.c, swf_parse_piped): across many batches every record comes
 * to each() once, in file order; a bad line is reported after every record
 * before it went through each(); each()'s own error comes first and stops
 * the parser, whichever of the two lies earlier in the file.
 */
static void test_pipeline(void)
{
    enum { N = 10000, BAD = 9000 };
    size_t cap = (size_t)(N + 2) * 64, len = 0;
    char *text = malloc(cap), path[32];
    len += (size_t)snprintf(text + len, cap - len, "; UnixStartTime: 1000\n");
    for (int i = 1; i <= N; i++)
        len += (size_t)snprintf(text + len, cap - len,
                                i == BAD ? "%d 0 0 10 1 -1 -1 1 x -1 1 1 1 -1 -1 1 -1 -1\n"
                                         : "%d 0 0 10 1 -1 -1 1 100 -1 1 1 1 -1 -1 1 -1 -1\n",
                                i);
    len += (size_t)snprintf(text + len, cap - len, "; MaxProcs: 128\n");
    struct swf_header h;
    struct err err = {""};
    /* The bad line, after 8,999 records. */
    write_temp(path, text, len);
    struct order o = {0, 0, 1};
    CHECK_EQ(swf_scan(path, &h, count_in_order, &o, &err), -1);
    CHECK_EQ(o.n, BAD - 1);
    CHECK(o.in_order);
    CHECK_HAS(err.msg, ":9001: field 9");
    /* each() fails first, at record 5,000, the parser well ahead. */
    o = (struct order){0, 5000, 1};
    err = (struct err){""};
    CHECK_EQ(swf_scan(path, &h, count_in_order, &o, &err), -1);
    CHECK_EQ(o.n, 5000);
    CHECK_HAS(err.msg, "each() stops at record 5000");
    unlink(path);
    /* All good: every record, and the header from both ends of the file. */
    char *bad = strstr(text, "1 x -1");
    bad[2] = '7';
    write_temp(path, text, len);
    o = (struct order){0, 0, 1};
    CHECK_EQ(swf_scan(path, &h, count_in_order, &o, &err), 0);
    CHECK_EQ(o.n, N);
    CHECK(o.in_order);
    CHECK_EQ(h.unix_start, 1000);
    CHECK_EQ(h.max_procs, 128);
    unlink(path);
    free(text);
}

/* Each record's text, or that it has none, and its values summed. */
struct texts {
    long n, with_text, bad_text;
    long long sum;
};

static int note_text(void *ctx, const struct swf_rec *rec, struct err *err)
{
    (void)err;
    struct texts *t = ctx;
    char want[32];
    snprintf(want, sizeof want, "%lld 0 0 10 ", rec->id);
    t->n++;
    t->with_text += rec->text != NULL;
    t->bad_text += rec->text && strncmp(rec->text, want, strlen(want)) != 0;
    t->sum += rec->id + rec->req_time + rec->runtime;
    return 0;
}

/* swf_scan hands each record its line (across batches, the parser's copy);
 * swf_scan_values the same records without any. */
static void test_scan_values(void)
{
    enum { N = 5000 };
    size_t cap = (size_t)(N + 1) * 64, len = 0;
    char *text = malloc(cap), path[32];
    for (int i = 1; i <= N; i++)
        len += (size_t)snprintf(text + len, cap - len,
                                "%d 0 0 10 1 -1 -1 1 %d -1 1 1 1 -1 -1 1 -1 -1\n", i, 100 + i);
    write_temp(path, text, len);
    struct swf_header h;
    struct err err = {""};
    struct texts a = {0}, b = {0};
    CHECK_EQ(swf_scan(path, &h, note_text, &a, &err), 0);
    CHECK_EQ(swf_scan_values(path, &h, note_text, &b, &err), 0);
    CHECK_EQ(a.n, N);
    CHECK_EQ(a.with_text, N);
    CHECK_EQ(a.bad_text, 0);
    CHECK_EQ(b.n, N);
    CHECK_EQ(b.with_text, 0);
    CHECK_EQ(b.sum, a.sum);
    unlink(path);
    free(text);
}

/* Bad lines read by the reader that keeps texts (swf_scan: --swf-out's,
 * its own unrolled copy) and by the one without (swf_scan_values): the same
 * error, naming the file and line 2, after a good line 1. */
static void test_texts_reader_errors(void)
{
    static const char *const bad[] = {
        "2 0 0 10 1 -1 -1 1 100 -1 1 1 1 -1 -1 1 -1\n",      /* 17 fields */
        "2 0 0 10 1 -1 -1 1 100 -1 1 1 1 -1 -1 1 -1 -1 7\n", /* 19 fields */
        "2 0 0 10 1 -1 -1 x 100 -1 1 1 1 -1 -1 1 -1 -1\n",   /* not a number */
        "2 0 0 10 1 -1 -1 1.5 100 -1 1 1 1 -1 -1 1 -1 -1\n", /* a fraction */
        "2 0 0 99999999999999999999 1 -1 -1 1 100 -1 1 1 1 -1 -1 1 -1 -1\n",
        "2 0 0 10 1 -1 -1 1 100 -1 1 1 1 -1 -1 1 -1 -1x\n", /* junk at the end */
    };
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        char text[256], path[32];
        int n = snprintf(text, sizeof text, "1 0 0 10 1 -1 -1 1 100 -1 1 1 1 -1 -1 1 -1 -1\n%s",
                         bad[k]);
        write_temp(path, text, (size_t)n);
        struct swf_header h;
        struct err a = {""}, b = {""};
        struct texts ta = {0}, tb = {0};
        CHECK_EQ(swf_scan(path, &h, note_text, &ta, &a), -1);
        CHECK_EQ(swf_scan_values(path, &h, note_text, &tb, &b), -1);
        CHECK_HAS(a.msg, path);
        CHECK_HAS(a.msg, ":2: ");
        CHECK_STR(a.msg, b.msg);
        unlink(path);
    }
}

/* swf_scan_staged's two sides: prep()'s own count (the parser's thread
 * alone touches it) and what each() and batch() saw. */
struct staged {
    long prepped;                      /* prep()'s */
    long n, bad_out, batches, batched; /* each()'s and batch()'s */
    long stop_at;                      /* each() fails at this record (0: never) */
};

/* What prep() leaves for a record: its id, and how many records prep()
 * had seen before it (file order on the parser's side). */
struct staged_out {
    long long id;
    long seq;
};

static void staged_prep(void *ctx, const struct swf_rec *rec, void *out)
{
    struct staged *s = ctx;
    *(struct staged_out *)out = (struct staged_out){rec->id * 3, s->prepped++};
}

static int staged_each(void *ctx, const struct swf_rec *rec, void *out, struct err *err)
{
    struct staged *s = ctx;
    const struct staged_out *o = out;
    s->bad_out += o->id != rec->id * 3 || o->seq != s->n;
    if (++s->n == s->stop_at)
        return err_set(err, "each() stops at record %ld", s->n);
    return 0;
}

static void staged_batch(void *ctx, const struct swf_header *hdr)
{
    (void)hdr;
    struct staged *s = ctx;
    s->batches++;
    s->batched = s->n;
}

/* prep() runs once a record, in file order, and each() gets what it wrote
 * for that record, across many batches; batch() follows each batch; an
 * error of each() stops the scan, one of the file comes after every
 * record before it. */
static void test_staged(void)
{
    enum { N = 5000, BAD = 4500 };
    size_t cap = (size_t)(N + 1) * 64, len = 0;
    char *text = malloc(cap), path[32];
    for (int i = 1; i <= N; i++)
        len += (size_t)snprintf(text + len, cap - len,
                                i == BAD ? "%d 0 0 10 1 -1 -1 1 x -1 1 1 1 -1 -1 1 -1 -1\n"
                                         : "%d 0 0 10 1 -1 -1 1 100 -1 1 1 1 -1 -1 1 -1 -1\n",
                                i);
    write_temp(path, text, len);
    struct swf_header h;
    struct err err = {""};
    struct staged s = {0};
    struct swf_stages st = {staged_prep, sizeof(struct staged_out), staged_each, staged_batch, &s};
    CHECK_EQ(swf_scan_staged(path, &h, &st, false, &err), -1);
    CHECK_EQ(s.n, BAD - 1);
    CHECK_EQ(s.bad_out, 0);
    CHECK(s.batches > 2);
    CHECK_EQ(s.batched, BAD - 1);
    CHECK_HAS(err.msg, ":4500: field 9");
    s = (struct staged){.stop_at = 3000};
    CHECK_EQ(swf_scan_staged(path, &h, &st, false, &err), -1);
    CHECK_EQ(s.n, 3000);
    CHECK(s.prepped >= 3000);
    CHECK_EQ(s.bad_out, 0);
    CHECK_HAS(err.msg, "each() stops at record 3000");
    unlink(path);
    char *bad = strstr(text, "1 x -1");
    bad[2] = '7';
    write_temp(path, text, len);
    s = (struct staged){0};
    CHECK_EQ(swf_scan_staged(path, &h, &st, true, &err), 0);
    CHECK_EQ(s.n, N);
    CHECK_EQ(s.prepped, N);
    CHECK_EQ(s.bad_out, 0);
    CHECK_EQ(s.batched, N);
    unlink(path);
    free(text);
}

/* The reader's canon flag (swf_rec.canon): true only where the line's
 * text from its first field is the 18 tokens as swfpack_format writes them,
 * one space apart, then at most '\n' (swfpack then keeps it unchecked: a
 * wrong true changes --swf-out's bytes); and true for the plain lines of a
 * cleaned trace, fast tokens and decimals alike (a false costs only
 * swfpack's own check). Its dot00 flag (2 below): the same, but for whole
 * numbers of at most 13 digits written with ".00", which swfpack leaves
 * out unchecked. */
struct canon_seen {
    int canon[64];
    int n, texts;
};

static int note_canon(void *ctx, const struct swf_rec *r, struct err *err)
{
    (void)err;
    struct canon_seen *c = ctx;
    c->texts += r->text != NULL;
    if (c->n < 64)
        c->canon[c->n] = r->canon + 2 * (r->text && r->dot00);
    c->n++;
    return 0;
}

static void test_canon_flag(void)
{
    static const struct {
        const char *line;
        int canon;
    } cases[] = {
        {"1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18\n", 1},
        {"   1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18\n", 1}, /* text from field 1 */
        {"-1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1\n", 1},
        {"1 0 5 60 2 552.21 0.50 2 3600 9.05 1 3 4 -1 1 -1 -1 -1\n", 1},
        {"1 0 5 60 2 -5.25 -7 2 3600 -1 1 3 4 -1 1 -1 -1 -1\n", 1},
        {"-5 0 5 60 2 -1 -1 2 3600 -1 1 3 4 -1 1 -1 -1 -17\n", 1},
        {"1 0 5 60 2 12345678901234 -1 2 3600 -1 1 3 4 -1 1 -1 -1 -1\n", 1},
        {"1 0 5 123456789012 2 -1 -1 2 3600 -1 1 3 4 -1 1 -1 -1 -1\n", 1},
        {"1 0 5 60 2 -1 -1 2 3600 -1 1 3 4 -1 1 -1 -1 -1 \n", 0},  /* a space at the end */
        {"1 0 5 60 2 -1 -1 2 3600 -1 1 3 4 -1 1 -1 -1 -1\r\n", 0}, /* "\r\n" */
        {"1 0 5 60 2 -1 -1 2 3600 -1 1 3 4 -1 1 -1 -1 -1\t\n", 0},
        {"01 0 5 60 2 -1 -1 2 3600 -1 1 3 4 -1 1 -1 -1 -1\n", 0}, /* leading zeros */
        {"1 0 5 60 2 -1 -1 2 3600 -1 1 3 4 -1 1 -1 -1 007\n", 0},
        {"1 0 5 060 2 -1 -1 2 3600 -1 1 3 4 -1 1 -1 -1 -1\n", 0},
        {"1 0 5 60 2 -1 -1 2 0000000003600 -1 1 3 4 -1 1 -1 -1 -1\n", 0},
        {"1 0 -07 60 2 -1 -1 2 3600 -1 1 3 4 -1 1 -1 -1 -1\n", 0},
        {"-0 0 5 60 2 -1 -1 2 3600 -1 1 3 4 -1 1 -1 -1 -1\n", 0},
        {"+1 0 5 60 2 -1 -1 2 3600 -1 1 3 4 -1 1 -1 -1 -1\n", 0},
        {"1 0 5 60  2 -1 -1 2 3600 -1 1 3 4 -1 1 -1 -1 -1\n", 0}, /* two spaces */
        {"1 0 5 60\t2 -1 -1 2 3600 -1 1 3 4 -1 1 -1 -1 -1\n", 0},
        {"1 0 5 60 2 552.2 -1 2 3600 -1 1 3 4 -1 1 -1 -1 -1\n", 0},
        {"1 0 5 60 2 552.00 -1 2 3600 -1 1 3 4 -1 1 -1 -1 -1\n", 2},
        {"1 0 5 60 2 552.00 0.00 2 3600 -5.00 1 3 4 -1 1 -1 -1 -1\n", 2},
        {"1234567890123.00 0 5 60 2 9.05 1234567890123.00 2 3600 -1 1 3 4 -1 1 -1 -1 -1\n", 2},
        {"1 0 5 60 2 552.00 -1 2 3600 -1 1 3 4 -1 1 -1 -1 07\n", 0}, /* and a leading 0 */
        {"1 0 5 60 2 552.00 -1 2 3600 -1 1 3 4 -1 1 -1 -1  1\n", 0}, /* two spaces */
        {"1 0 5 60 2 552.00 -1 2 3600 -1 1 3 4 -1 1 -1 -1 1 \n", 0}, /* a space at the end */
        {"1 0 5 60 2 552.00 1.5 2 3600 -1 1 3 4 -1 1 -1 -1 1\n", 0},
        {"1 0 5 60 2 -0.00 -1 2 3600 -1 1 3 4 -1 1 -1 -1 -1\n", 0},
        {"1 0 5 60 2 00.00 -1 2 3600 -1 1 3 4 -1 1 -1 -1 -1\n", 0},
        {"1 0 5 60 2 552.000 -1 2 3600 -1 1 3 4 -1 1 -1 -1 -1\n", 0},
        {"12345678901234.00 0 5 60 2 -1 -1 2 3600 -1 1 3 4 -1 1 -1 -1 -1\n", 0}, /* 14 digits */
        {"1 0 5 60 2 -1 12345678901234.00 2 3600 -1 1 3 4 -1 1 -1 -1 -1\n", 0},
        {"1 0 5 60 2 552.210 -1 2 3600 -1 1 3 4 -1 1 -1 -1 -1\n", 0},
        {"1 0 5 60 2 -0.50 -1 2 3600 -1 1 3 4 -1 1 -1 -1 -1\n", 0},
        {"1 0 5 60 2 00.50 -1 2 3600 -1 1 3 4 -1 1 -1 -1 -1\n", 0},
        {"1 0 5 60 2 1e3 -1 2 3600 -1 1 3 4 -1 1 -1 -1 -1\n", 0},
        {"1 0 5 60 2 -1 -1 2 3600.0 -1 1 3 4 -1 1 -1 -1 -1\n", 0},
        {"1 0 5 60 2 -1 -1 2 3600.00 -1 1 3 4 -1 1 -1 -1 -1\n", 2},
        {"1 0 5 60 2 -1 -1 2 3600 -1 1 3 4 -1 1 -1 -1 1.00\n", 2},
        {"1 0 5 60 2 -1 -1 2 3600 -1 1 3 4 -1 1 -1 -1 -1", 1}, /* the last, no newline */
    };
    enum { N = sizeof cases / sizeof *cases };
    char text[N * 80];
    size_t len = 0;
    for (int i = 0; i < N; i++)
        len += (size_t)sprintf(text + len, "%s", cases[i].line);
    char path[32];
    write_temp(path, text, len);
    struct canon_seen seen = {{0}, 0, 0};
    struct swf_header h;
    struct err err = {""};
    CHECK_EQ(swf_scan(path, &h, note_canon, &seen, &err), 0);
    CHECK_EQ(seen.n, N);
    CHECK_EQ(seen.texts, N);
    for (int i = 0; i < N && i < seen.n; i++)
        if (seen.canon[i] != cases[i].canon) {
            fprintf(stderr, "canon %d, want %d: '%s'\n", seen.canon[i], cases[i].canon,
                    cases[i].line);
            CHECK(0);
        }
    /* without texts, never */
    seen = (struct canon_seen){{0}, 0, 0};
    CHECK_EQ(swf_scan_values(path, &h, note_canon, &seen, &err), 0);
    CHECK_EQ(seen.n, N);
    CHECK_EQ(seen.texts, 0);
    for (int i = 0; i < N && i < seen.n; i++)
        CHECK_EQ(seen.canon[i], 0);
    unlink(path);
}

int main(void)
{
    TEST_RUN(test_header);
    TEST_RUN(test_header_absent);
    TEST_RUN(test_normal);
    TEST_RUN(test_gzip_same_as_plain);
    TEST_RUN(test_fractional);
    TEST_RUN(test_crlf);
    TEST_RUN(test_no_final_newline);
    TEST_RUN(test_long_lines);
    TEST_RUN(test_empty_file);
    TEST_RUN(test_error_too_few_fields);
    TEST_RUN(test_error_too_many_fields);
    TEST_RUN(test_error_not_a_number);
    TEST_RUN(test_error_fraction_in_integer_field);
    TEST_RUN(test_error_overflow);
    TEST_RUN(test_error_edge_numbers);
    TEST_RUN(test_error_count_before_value);
    TEST_RUN(test_edge_numbers_accepted);
    TEST_RUN(test_error_nul_byte);
    TEST_RUN(test_error_missing_file);
    TEST_RUN(test_error_truncated_gzip);
    TEST_RUN(test_free_is_safe);
    TEST_RUN(test_real_kth_trace);
    TEST_RUN(test_decimals_as_strtod);
    TEST_RUN(test_integers_as_strtoll);
    TEST_RUN(test_single_spaced);
    TEST_RUN(test_after_decimals);
    TEST_RUN(test_pipeline);
    TEST_RUN(test_scan_values);
    TEST_RUN(test_texts_reader_errors);
    TEST_RUN(test_staged);
    TEST_RUN(test_canon_flag);
    return TEST_DONE();
}
