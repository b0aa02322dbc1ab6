/*
 * test.h — the unit-test harness: a handful of macros, no framework.
 *
 * A test program defines `static void test_xxx(void)` functions and a main()
 * that runs them with TEST_RUN(test_xxx) and ends with `return TEST_DONE();`.
 * Each CHECK that fails prints file:line and the expression; a test passes
 * when none of its checks failed. TEST_DONE prints "<prog>: N passed, M failed"
 * which tests/run.sh adds up.
 */
#ifndef MOKU_TEST_H
#define MOKU_TEST_H

#include <stdio.h>
#include <string.h>

static int test_failed_checks;
static int test_passed, test_failed;
static const char *test_name;

#define CHECK(expr)                                                                                \
    do {                                                                                           \
        if (!(expr)) {                                                                             \
            test_failed_checks++;                                                                  \
            fprintf(stderr, "%s:%d: %s: check failed: %s\n", __FILE__, __LINE__, test_name,       \
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
                    test_name, #a, sa_ ? sa_ : "(null)", sb_ ? sb_ : "(null)");                   \
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
