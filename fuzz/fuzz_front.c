/*
 * fuzz_front — the first bytes of a web view connection (web/wfront.c's
 * request-line check) and the escape of text shown to other users
 * (util/utf8.c), on any bytes:
 *   - a whole request line is HTTP only if a line end was seen;
 *   - the verdict never goes back: a prefix of anything not refused is not
 *     refused (the check waits for more only while it could still be HTTP);
 *   - an escaped text is plain: valid UTF-8 with nothing hidden in it.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "util/utf8.h"
#include "web/wfront.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *buf = (const char *)data;
    enum wfront_line l = wfront_line(buf, size);
    if (l == WFRONT_HTTP && !memchr(buf, '\n', size))
        abort();
    if (l != WFRONT_BAD && size > 0 && wfront_line(buf, size / 2) == WFRONT_BAD)
        abort();
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    char *shown = utf8_escape(text);
    if (!utf8_plain(shown))
        abort();
    free(shown);
    free(text);
    return 0;
}
