/* Unit tests for util/markup: the one rule for text in the simulator's HTML
 * report and SVG charts (issue 29: it was written twice, in sim/html.c and
 * sim/plot.c). */
#include <stdio.h>
#include <stdlib.h>

#include "test.h"
#include "util/markup.h"

/* What markup_text writes for s, as a string the caller frees. */
static char *marked(const char *s, int keep_newline)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    markup_text(f, s, keep_newline);
    fclose(f);
    return buf;
}

static void test_specials(void)
{
    char *m = marked("a<b>&\"c\"'d'", 0);
    CHECK_STR(m, "a&lt;b&gt;&amp;&quot;c&quot;&#39;d&#39;");
    free(m);
    m = marked("caf\xc3\xa9", 0); /* UTF-8 passes as it is */
    CHECK_STR(m, "caf\xc3\xa9");
    free(m);
}

static void test_controls(void)
{
    char *m = marked("a\tb\nc\x01\x1b[1m", 1);
    CHECK_STR(m, "a\tb\nc[1m");
    free(m);
    m = marked("a\tb\nc\x01", 0);
    CHECK_STR(m, "a\tbc");
    free(m);
    m = marked(NULL, 1);
    CHECK_STR(m, "");
    free(m);
}

int main(void)
{
    TEST_RUN(test_specials);
    TEST_RUN(test_controls);
    return TEST_DONE();
}
