/*
 * t_lines — the line reader under the trace parsers: lines of any length,
 * line endings, and the errors (truncated gzip, NUL byte, missing file) that
 * must name file and line. Files are written to /tmp and removed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <zlib.h>

#include "test.h"
#include "trace/lines.h"

static void write_temp(char *path, const char *data, size_t len)
{
    write_temp_named(path, "t_lines", data, len);
}

/* Lines around and far past the first buffer size (1024) come back whole. */
static void test_long_lines(void)
{
    static const size_t lens[] = {1, 1022, 1023, 1024, 1025, 2047, 2048, 100000, 0, 3};
    enum { N = sizeof lens / sizeof lens[0] };
    size_t total = 0;
    for (int i = 0; i < N; i++)
        total += lens[i] + 1;
    char *text = malloc(total), *p = text;
    for (int i = 0; i < N; i++) {
        memset(p, 'a' + i, lens[i]);
        p[lens[i]] = '\n';
        p += lens[i] + 1;
    }
    char path[32];
    write_temp(path, text, total);
    free(text);

    struct lines l;
    CHECK_EQ(lines_open(&l, path, NULL), 0);
    for (int i = 0; i < N; i++) {
        CHECK_EQ(lines_next(&l), 1);
        CHECK_EQ(l.line, i + 1);
        CHECK_EQ(strlen(l.buf), lens[i] + 1);
        CHECK(l.buf[0] == (lens[i] ? 'a' + i : '\n'));
        CHECK(l.buf[lens[i] / 2] == (lens[i] ? 'a' + i : '\n'));
    }
    CHECK_EQ(lines_next(&l), 0);
    lines_close(&l);
    unlink(path);
}

/* "\r\n" is kept for the parsers (whose blanks include '\r'); a last line
 * without a newline still counts. */
static void test_crlf_and_no_final_newline(void)
{
    static const char text[] = "one\r\n\r\ntwo";
    char path[32];
    write_temp(path, text, sizeof text - 1);
    struct lines l;
    CHECK_EQ(lines_open(&l, path, NULL), 0);
    CHECK_EQ(lines_next(&l), 1);
    CHECK_STR(l.buf, "one\r\n");
    CHECK_EQ(lines_next(&l), 1);
    CHECK_STR(l.buf, "\r\n");
    CHECK_EQ(lines_next(&l), 1);
    CHECK_STR(l.buf, "two");
    CHECK_EQ(l.line, 3);
    CHECK_EQ(lines_next(&l), 0);
    lines_close(&l);
    unlink(path);
}

static void test_empty_file(void)
{
    char path[32];
    write_temp(path, "", 0);
    struct lines l;
    CHECK_EQ(lines_open(&l, path, NULL), 0);
    CHECK_EQ(lines_next(&l), 0);
    lines_close(&l);
    lines_close(&l); /* twice is fine */
    unlink(path);
}

/* Write numbered lines through zlib as a gzip file, then keep only its first
 * half: the stream ends mid-line and without its trailer. */
static void write_cut_gzip(char *path)
{
    char tmp[32];
    write_temp(tmp, "", 0);
    gzFile gz = gzopen(tmp, "wb");
    CHECK(gz != NULL);
    if (!gz)
        return;
    for (int i = 1; i <= 5000; i++)
        gzprintf(gz, "line %d of a gzip file that will be cut short\n", i * 7919 % 100003);
    gzclose(gz);

    FILE *f = fopen(tmp, "rb");
    char buf[64 * 1024];
    size_t n = f ? fread(buf, 1, sizeof buf, f) : 0;
    if (f)
        fclose(f);
    unlink(tmp);
    CHECK(n > 100 && n < sizeof buf);
    write_temp(path, buf, n / 2);
}

/* A cut gzip stream, opened by open, is a read error naming file and line
 * once, and the partial last line never comes back as a line. */
static void truncated_gzip(int (*open)(struct lines *, const char *, struct err *))
{
    char path[32];
    write_cut_gzip(path);
    struct err err = {{0}};
    struct lines l;
    CHECK_EQ(open(&l, path, &err), 0);
    int rc;
    long good = 0;
    while ((rc = lines_next(&l)) > 0) {
        CHECK(l.buf[strlen(l.buf) - 1] == '\n');
        good++;
    }
    CHECK_EQ(rc, -1);
    CHECK(good > 0 && good < 5000);
    char want[128];
    snprintf(want, sizeof want, "%s:%ld: read error: ", path, good + 1);
    CHECK(strncmp(err.msg, want, strlen(want)) == 0);
    CHECK(strstr(err.msg + strlen(want), path) == NULL); /* zlib's own prefix is gone */
    lines_close(&l);
    unlink(path);
}

/* The same in lines_open's large blocks and lines_open_head's small ones. */
static void test_truncated_gzip(void)
{
    truncated_gzip(lines_open);
    truncated_gzip(lines_open_head);
}

/* A NUL byte must not end the file early or go unnoticed. */
static void test_nul_byte(void)
{
    static const char text[] = "first\nab\0cd\nlast\n";
    char path[32];
    write_temp(path, text, sizeof text - 1);
    struct err err = {{0}};
    struct lines l;
    CHECK_EQ(lines_open(&l, path, &err), 0);
    CHECK_EQ(lines_next(&l), 1);
    CHECK_EQ(lines_next(&l), -1);
    char want[128];
    snprintf(want, sizeof want, "%s:2: the line holds a NUL byte: not a text file", path);
    CHECK_STR(err.msg, want);
    lines_close(&l);
    unlink(path);
}

/* A failed open leaves the reader closed. */
static void test_missing_file(void)
{
    struct err err = {{0}};
    struct lines l;
    CHECK_EQ(lines_open(&l, "/tmp/t_lines-no-such-file", &err), -1);
    CHECK_STR(err.msg, "/tmp/t_lines-no-such-file: cannot open: No such file or directory");
    CHECK(l.gz == NULL && l.buf == NULL);
    lines_close(&l);
}

/* Line lengths of the block test (1-based): crossing the reader's 256 KB
 * blocks, one of them 600,000 bytes, line 4 ending exactly at 3 x 256 KB. */
static size_t block_line_len(int i)
{
    if (i == 3)
        return 600000;
    if (i == 4) {
        size_t before = 0;
        for (int k = 1; k < 4; k++)
            before += block_line_len(k) + 1;
        return 3 * 262144 - before - 1;
    }
    return (size_t)(i * 37 % 301);
}

/* Lines whose bytes span the blocks the reading thread fills (sizes in
 * lines.c) come back whole and in order, plain and gzip, in lines_open's
 * large blocks and lines_open_head's small ones; a NUL byte past the first
 * block is still found, on its line. */
static void test_across_blocks(void)
{
    enum { N = 40 };
    size_t total = 0;
    for (int i = 1; i <= N; i++)
        total += block_line_len(i) + 1;
    char *text = malloc(total), *p = text;
    for (int i = 1; i <= N; i++) {
        memset(p, 'a' + i % 26, block_line_len(i));
        p[block_line_len(i)] = '\n';
        p += block_line_len(i) + 1;
    }
    char path[32], gzpath[40];
    write_temp(path, text, total);
    snprintf(gzpath, sizeof gzpath, "%s.gz", path);
    gzFile gz = gzopen(gzpath, "wb");
    CHECK(gz != NULL && gzwrite(gz, text, (unsigned)total) == (int)total);
    if (gz)
        gzclose(gz);
    for (int pass = 0; pass < 4; pass++) {
        struct lines l;
        const char *file = pass % 2 ? gzpath : path;
        CHECK_EQ((pass < 2 ? lines_open : lines_open_head)(&l, file, NULL), 0);
        for (int i = 1; i <= N; i++) {
            CHECK_EQ(lines_next(&l), 1);
            CHECK_EQ(strlen(l.buf), block_line_len(i) + 1);
            CHECK(l.buf[block_line_len(i)] == '\n');
            CHECK(block_line_len(i) == 0 || l.buf[block_line_len(i) - 1] == 'a' + i % 26);
        }
        CHECK_EQ(lines_next(&l), 0);
        lines_close(&l);
    }
    /* A NUL byte on line 5, beyond the first block. */
    size_t at = 0;
    for (int i = 1; i < 5; i++)
        at += block_line_len(i) + 1;
    text[at + 2] = '\0';
    write_temp(path, text, total);
    struct err err = {{0}};
    struct lines l;
    CHECK_EQ(lines_open(&l, path, &err), 0);
    int rc;
    while ((rc = lines_next(&l)) > 0)
        ;
    CHECK_EQ(rc, -1);
    CHECK_EQ(l.line, 5);
    CHECK(strstr(err.msg, ":5: the line holds a NUL byte") != NULL);
    lines_close(&l);
    free(text);
    unlink(path);
    unlink(gzpath);
}

/* The line a NUL byte at pos falls on in text. */
static long nul_line(const char *text, size_t pos)
{
    long line = 1;
    for (size_t i = 0; i < pos; i++)
        line += text[i] == '\n';
    return line;
}

/*
 * One NUL byte anywhere in a file of many blocks (lines.c looks for it
 * once a block, not once a line): at a block's first or last byte, a
 * line's first or last, its newline's place, random places (fixed seed);
 * plain and gzip, large blocks and lines_open_head's small ones. Every
 * line before it comes back whole, and the error names its line.
 */
static void test_nul_anywhere(void)
{
    enum { SIZE = 600 * 1024 };
    char *text = malloc(SIZE);
    unsigned seed = 5;
    for (size_t i = 0; i < SIZE; i++) {
        seed = seed * 1103515245u + 12345u;
        text[i] = (seed >> 16) % 61 == 0 ? '\n' : (char)('a' + (seed >> 16) % 26);
    }
    text[SIZE - 1] = '\n';
    size_t at[] = {0,      1,        16383,    16384, 16385, 262143, 262144,
                   262145, SIZE - 2, SIZE - 1, 0,     0,     0,      0};
    for (size_t k = 10; k < sizeof at / sizeof at[0]; k++) {
        seed = seed * 1103515245u + 12345u;
        at[k] = (seed >> 4) % SIZE;
    }
    for (size_t k = 0; k < sizeof at / sizeof at[0]; k++) {
        char saved = text[at[k]];
        text[at[k]] = '\0';
        long want = nul_line(text, at[k]);
        char path[32], gzpath[40];
        write_temp(path, text, SIZE);
        snprintf(gzpath, sizeof gzpath, "%s.gz", path);
        gzFile gz = gzopen(gzpath, "wb");
        CHECK(gz != NULL && gzwrite(gz, text, SIZE) == SIZE);
        if (gz)
            gzclose(gz);
        for (int pass = 0; pass < 4; pass++) {
            struct err err = {{0}};
            struct lines l;
            CHECK_EQ((pass < 2 ? lines_open : lines_open_head)(&l, pass % 2 ? gzpath : path, &err),
                     0);
            int rc;
            size_t off = 0, whole = 1;
            while ((rc = lines_next(&l)) > 0) {
                size_t n = strlen(l.buf);
                whole &= memcmp(l.buf, text + off, n) == 0;
                off += n;
            }
            CHECK_EQ(rc, -1);
            CHECK(whole);
            CHECK_EQ(l.line, want);
            CHECK(strstr(err.msg, "the line holds a NUL byte") != NULL);
            lines_close(&l);
        }
        unlink(path);
        unlink(gzpath);
        text[at[k]] = saved;
    }
    free(text);
}

/* Closing after one line of a file many blocks long (a parser that stopped
 * at an error) ends the reading thread: no hang, nothing left. */
static void test_close_early(void)
{
    char path[32];
    write_temp(path, "", 0);
    char gzpath[40];
    snprintf(gzpath, sizeof gzpath, "%s.gz", path);
    gzFile gz = gzopen(gzpath, "wb");
    CHECK(gz != NULL);
    if (!gz)
        return;
    for (int i = 0; i < 200000; i++)
        gzprintf(gz, "%d 0 0 10 1 -1 -1 1 10 -1 1 1 1 -1 1 -1 -1 -1\n", i);
    gzclose(gz);
    for (int k = 0; k < 20; k++) {
        struct lines l;
        CHECK_EQ(lines_open(&l, gzpath, NULL), 0);
        CHECK_EQ(lines_next(&l), 1);
        CHECK(strncmp(l.buf, "0 0 0", 5) == 0);
        lines_close(&l);
        lines_close(&l); /* twice: a no-op */
    }
    unlink(path);
    unlink(gzpath);
}

int main(void)
{
    TEST_RUN(test_long_lines);
    TEST_RUN(test_crlf_and_no_final_newline);
    TEST_RUN(test_empty_file);
    TEST_RUN(test_truncated_gzip);
    TEST_RUN(test_nul_byte);
    TEST_RUN(test_missing_file);
    TEST_RUN(test_across_blocks);
    TEST_RUN(test_nul_anywhere);
    TEST_RUN(test_close_early);
    return TEST_DONE();
}
