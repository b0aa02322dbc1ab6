/* markup — see markup.h. */
#include "util/markup.h"

/* The reference for a character markup gives a meaning to; NULL if none. */
static const char *markup_ref(char c)
{
    switch (c) {
    case '&':
        return "&amp;";
    case '<':
        return "&lt;";
    case '>':
        return "&gt;";
    case '"':
        return "&quot;";
    case '\'':
        return "&#39;";
    default:
        return NULL;
    }
}

void markup_text(FILE *f, const char *s, int keep_newline)
{
    for (; s && *s; s++) {
        const char *ref = markup_ref(*s);
        if (ref)
            fputs(ref, f);
        else if ((unsigned char)*s >= 0x20 || *s == '\t' || (*s == '\n' && keep_newline))
            fputc(*s, f); /* other control characters are neither HTML nor XML */
    }
}
