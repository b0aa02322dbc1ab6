/* Unit tests for util/utf8: which code points are hidden, and their
 * escapes (issue 28: job names that turned other users' lines around). */
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "util/utf8.h"

static void test_hidden(void)
{
    static const unsigned long hidden[] = {
        0x01,   0x09,   0x1b,   0x7f,   0x85,   0x9f,   0xad,   0x061c, 0x200b, 0x200e,  0x200f,
        0x2028, 0x2029, 0x202a, 0x202e, 0x2066, 0x2069, 0x2060, 0xfeff, 0xfff9, 0xe0001, 0xe0041};
    for (size_t i = 0; i < sizeof hidden / sizeof hidden[0]; i++)
        CHECK(utf8_hidden(hidden[i]) || hidden[i] == 0x09);
    CHECK(!utf8_hidden('\t')); /* the caller's choice */
    static const unsigned long shown[] = {' ',    'a',    0xa0,   0xe9,   0x05d0,
                                          0x0627, 0x2027, 0x2030, 0x4e2d, 0x1f600};
    for (size_t i = 0; i < sizeof shown / sizeof shown[0]; i++)
        CHECK(!utf8_hidden(shown[i]));
}

static void test_plain(void)
{
    CHECK(utf8_plain("job-1"));
    CHECK(utf8_plain("caf\xc3\xa9 \xd7\xa9\xd7\x9c\xd7\x95\xd7\x9d")); /* Hebrew is text */
    CHECK(!utf8_plain("a\xe2\x80\xae"
                      "b"));
    CHECK(!utf8_plain("a\tb"));
    CHECK(!utf8_plain("a\xc3"));
    CHECK(!utf8_plain("\xed\xa0\x80")); /* a surrogate */
}

static void test_escape(void)
{
    char *e = utf8_escape("x\xe2\x80\xae"
                          "evil\xe2\x80\xa9");
    CHECK_STR(e, "x\\u{202E}evil\\u{2029}");
    free(e);
    e = utf8_escape("a\x1b[31m\tb\xff\xc3\xa9");
    CHECK_STR(e, "a\\u{001B}[31m\\u{0009}b\\xFF\xc3\xa9");
    free(e);
    e = utf8_escape("\xf3\xa0\x81\xbf"); /* U+E007F, a tag */
    CHECK_STR(e, "\\u{E007F}");
    CHECK(utf8_plain(e));
    free(e);
    CHECK(utf8_escape(NULL) == NULL);
}

int main(void)
{
    TEST_RUN(test_hidden);
    TEST_RUN(test_plain);
    TEST_RUN(test_escape);
    return TEST_DONE();
}
