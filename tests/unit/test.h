/*
 * test.h — the unit-test harness: a handful of macros, no framework.
 *
 * A test program defines `static void test_xxx(void)` functions and a main()
 * that runs them with TEST_RUN(test_xxx) and ends with `return TEST_DONE();`.
 * Each CHECK that fails prints file:line and the expression; a test passes
 * when none of its checks failed. TEST_DONE prints "<prog>: N passed, M failed"
 * which tests/run.sh adds up; TEST_SKIP says that a part could not run here
 * and why (tests/run.sh counts it apart, and as root as a failure).
 */
#ifndef MOKU_TEST_H
#define MOKU_TEST_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int test_failed_checks;
static int test_passed, test_failed;
static const char *test_name;

#define CHECK(expr)                                                                                \
    do {                                                                                           \
        if (!(expr)) {                                                                             \
            test_failed_checks++;                                                                  \
            fprintf(stderr, "%s:%d: %s: check failed: %s\n", __FILE__, __LINE__, test_name,        \
                    #expr);                                                                        \
        }                                                                                          \
    } while (0)

#define CHECK_EQ(a, b)                                                                             \
    do {                                                                                           \
        long long va_ = (long long)(a), vb_ = (long long)(b);                                      \
        if (va_ != vb_) {                                                                          \
            test_failed_checks++;                                                                  \
            fprintf(stderr, "%s:%d: %s: %s == %lld, expected %s == %lld\n", __FILE__, __LINE__,    \
                    test_name, #a, va_, #b, vb_);                                                  \
        }                                                                                          \
    } while (0)

#define CHECK_STR(a, b)                                                                            \
    do {                                                                                           \
        const char *sa_ = (a), *sb_ = (b);                                                         \
        if (!sa_ || !sb_ || strcmp(sa_, sb_) != 0) {                                               \
            test_failed_checks++;                                                                  \
            fprintf(stderr, "%s:%d: %s: %s is \"%s\", expected \"%s\"\n", __FILE__, __LINE__,      \
                    test_name, #a, sa_ ? sa_ : "(null)", sb_ ? sb_ : "(null)");                    \
        }                                                                                          \
    } while (0)

/* The string a contains the substring b. */
#define CHECK_HAS(a, b)                                                                            \
    do {                                                                                           \
        const char *sa_ = (a), *sb_ = (b);                                                         \
        if (!sa_ || !strstr(sa_, sb_)) {                                                           \
            test_failed_checks++;                                                                  \
            fprintf(stderr, "%s:%d: %s: \"%s\" does not contain \"%s\"\n", __FILE__, __LINE__,     \
                    test_name, sa_ ? sa_ : "(null)", sb_);                                         \
        }                                                                                          \
    } while (0)

/* Whether two doubles agree to 1e-9 relative (1e-9 absolute near zero);
 * says what they were when not. Use inside CHECK. */
static inline int near(double a, double b)
{
    double tol = 1e-9 * fmax(1.0, fmax(fabs(a), fabs(b)));
    if (fabs(a - b) <= tol)
        return 1;
    fprintf(stderr, "    near: %.12g vs %.12g\n", a, b);
    return 0;
}

/* Write len bytes to a new temporary file named after `prefix`; its name
 * goes into path (at least 32 bytes; prefix short). The caller unlinks it. */
static inline void write_temp_named(char *path, const char *prefix, const char *data, size_t len)
{
    snprintf(path, 32, "/tmp/%s_XXXXXX", prefix);
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd < 0)
        return;
    CHECK(write(fd, data, len) == (ssize_t)len);
    close(fd);
}

/* A part of the program that cannot run on this machine, said so: one line
 * "# SKIP <why>" that tests/run.sh counts (printf-style arguments). */
#define TEST_SKIP(...)                                                                             \
    do {                                                                                           \
        printf("# SKIP %s: ", __FILE__);                                                           \
        printf(__VA_ARGS__);                                                                       \
        printf("\n");                                                                              \
    } while (0)

/* Where scratch files go: $TMPDIR (tests/run.sh gives each test its own, and
 * finds there what a test left running), else /tmp. */
static inline const char *test_tmpdir(void)
{
    const char *t = getenv("TMPDIR");
    return t && *t ? t : "/tmp";
}

/* A random number of 1 to most digits (rand(): seed it first), for the
 * writers' digit formatting against snprintf. */
static inline long long test_digits(int most)
{
    int n = 1 + rand() % most;
    long long v = rand() % 10;
    for (int d = 1; d < n; d++)
        v = 10 * v + rand() % 10;
    return v;
}

#define TEST_RUN(fn)                                                                               \
    do {                                                                                           \
        test_name = #fn;                                                                           \
        test_failed_checks = 0;                                                                    \
        fn();                                                                                      \
        if (test_failed_checks)                                                                    \
            test_failed++;                                                                         \
        else                                                                                       \
            test_passed++;                                                                         \
    } while (0)

#define TEST_DONE()                                                                                \
    (printf("%s: %d passed, %d failed\n", __FILE__, test_passed, test_failed), test_failed ? 1 : 0)

#endif
