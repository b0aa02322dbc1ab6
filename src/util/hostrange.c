/* hostrange — see hostrange.h. */
#include "util/hostrange.h"

#include <stdio.h>
#include <string.h>

#define MAX_DIGITS 18 /* a suffix fits an unsigned long long with room to count up */

/* Where the decimal suffix of s starts (strlen(s) when it has none). */
static size_t suffix_at(const char *s, size_t len)
{
    size_t i = len;
    while (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9')
        i--;
    return i;
}

static unsigned long long digits_value(const char *s, size_t n)
{
    unsigned long long x = 0;
    for (size_t i = 0; i < n; i++)
        x = x * 10 + (unsigned long long)(s[i] - '0');
    return x;
}

/* The width a suffix keeps: its length when it has a leading zero. */
static int pad_width(const char *d, size_t n)
{
    return n > 1 && d[0] == '0' ? (int)n : 0;
}

/* The suffix of a counted up by one, into want (MAX_DIGITS + 2 bytes): the
 * digits incremented in place keep a padded suffix's width (its leading
 * zero absorbs any carry) and grow an unpadded one by a digit, as printf
 * "%0*llu" of the value plus one writes it. By hand: the simulator asks
 * this for every node of every job it writes. */
static void count_up(const char *d, size_t nd, char *want)
{
    memcpy(want + 1, d, nd);
    want[nd + 1] = '\0';
    size_t i = nd;
    while (i > 0 && want[i] == '9')
        want[i--] = '0';
    if (i > 0) {
        want[i]++;
        memmove(want, want + 1, nd + 1);
    } else {
        want[0] = '1'; /* 99 -> 100 */
    }
}

int hostrange_next(const char *a, const char *b)
{
    size_t la = strlen(a), at = suffix_at(a, la), nd = la - at;
    if (nd == 0 || nd > MAX_DIGITS || memchr(a, '[', at) || strncmp(a, b, at) != 0)
        return 0;
    char want[MAX_DIGITS + 2];
    count_up(a + at, nd, want);
    return strcmp(b + at, want) == 0;
}

int hostrange_parse(const char *word, struct hostrange *r)
{
    const char *open = strchr(word, '['), *dash, *close;
    if (!open || !(dash = strchr(open, '-')) || !(close = strchr(dash, ']')) || close[1])
        return 0;
    size_t nlo = (size_t)(dash - open - 1), nhi = (size_t)(close - dash - 1);
    if (nlo == 0 || nhi == 0 || nlo > MAX_DIGITS || nhi > MAX_DIGITS ||
        strspn(open + 1, "0123456789") != nlo || strspn(dash + 1, "0123456789") != nhi)
        return 0;
    r->plen = (size_t)(open - word);
    r->lo = digits_value(open + 1, nlo);
    r->hi = digits_value(dash + 1, nhi);
    r->width = pad_width(open + 1, nlo);
    return r->lo <= r->hi;
}

int hostrange_name(const char *word, const struct hostrange *r, unsigned long long x, char *buf,
                   size_t n)
{
    int k = snprintf(buf, n, "%.*s%0*llu", (int)r->plen, word, r->width, x);
    return k < 0 || (size_t)k >= n ? -1 : 0;
}
