/* utf8 — see utf8.h. The table of format characters is Unicode 15's
 * category Cf, with Zl and Zp. */
#include "util/utf8.h"

#include <stdio.h>
#include <string.h>

#include "util/mem.h"

size_t utf8_seq(const unsigned char *s, size_t n, unsigned long *cp)
{
    unsigned char c = s[0];
    size_t len;
    unsigned long v, min;
    if (c < 0x80)
        return *cp = c, 1;
    if (c >= 0xc2 && c <= 0xdf)
        len = 2, v = c & 0x1f, min = 0x80;
    else if ((c & 0xf0) == 0xe0)
        len = 3, v = c & 0x0f, min = 0x800;
    else if (c >= 0xf0 && c <= 0xf4)
        len = 4, v = c & 0x07, min = 0x10000;
    else
        return 0;
    if (len > n)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        v = (v << 6) | (s[i] & 0x3f);
    }
    if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
        return 0;
    *cp = v;
    return len;
}

/* Format characters (Cf) and the separators (Zl, Zp), as ranges. */
static const unsigned long hidden[][2] = {
    {0x00ad, 0x00ad},   {0x0600, 0x0605},   {0x061c, 0x061c},   {0x06dd, 0x06dd},
    {0x070f, 0x070f},   {0x0890, 0x0891},   {0x08e2, 0x08e2},   {0x180e, 0x180e},
    {0x200b, 0x200f},   {0x2028, 0x202e},   {0x2060, 0x2064},   {0x2066, 0x206f},
    {0xfeff, 0xfeff},   {0xfff9, 0xfffb},   {0x110bd, 0x110bd}, {0x110cd, 0x110cd},
    {0x13430, 0x1343f}, {0x1bca0, 0x1bca3}, {0x1d173, 0x1d17a}, {0xe0001, 0xe0001},
    {0xe0020, 0xe007f},
};

int utf8_hidden(unsigned long cp)
{
    if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0))
        return cp != '\t';
    for (size_t i = 0; i < sizeof hidden / sizeof hidden[0]; i++)
        if (cp >= hidden[i][0] && cp <= hidden[i][1])
            return 1;
    return 0;
}

int utf8_plain(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t n = strlen(s);
    while (n) {
        unsigned long cp;
        size_t k = utf8_seq(p, n, &cp);
        if (!k || cp == '\t' || utf8_hidden(cp))
            return 0;
        p += k;
        n -= k;
    }
    return 1;
}

char *utf8_escape(const char *s)
{
    if (!s)
        return NULL;
    size_t n = strlen(s);
    char *out = xmalloc(n * 10 + 1), *o = out; /* "\u{10FFFF}" is 10 bytes for at least 1 */
    const unsigned char *p = (const unsigned char *)s;
    while (n) {
        unsigned long cp;
        size_t k = utf8_seq(p, n, &cp);
        if (!k)
            o += sprintf(o, "\\x%02X", *p), k = 1;
        else if (cp == '\t' || utf8_hidden(cp))
            o += sprintf(o, "\\u{%04lX}", cp);
        else
            memcpy(o, p, k), o += k;
        p += k;
        n -= k;
    }
    *o = '\0';
    return out;
}
