/*
 * cfg_lex — the lexical layer of maui.cfg: logical lines and tokens.
 *
 * Maui's MCfgAdjustBuffer rules: '#' starts a comment to the end of the line
 * (even inside quotes, as in Maui), a '\' at the end of a line joins the next
 * one, and tabs and other control characters are blanks. Tokens are split at
 * blanks; '"' and '\'' quote a stretch so that PRIORITYF='SPEED + .01*AMEM'
 * stays one token. Also the growable string the rest of the module writes to.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfg/cfg_tab.h"
#include "util/mem.h"

void cfg_lex_putn(struct cfg_sbuf *b, const char *s, size_t n)
{
    b->s = xgrow(b->s, &b->cap, b->len + n + 1, 1);
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

void cfg_lex_putc(struct cfg_sbuf *b, char c)
{
    cfg_lex_putn(b, &c, 1);
}

/* Formats into a stack buffer first: the common short case needs one pass,
 * and no NULL destination (which sanitizer builds of GCC warn about). */
void cfg_lex_vprintf(struct cfg_sbuf *b, const char *fmt, va_list ap)
{
    char small[256];
    va_list again;
    va_copy(again, ap);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    if (n < 0)
        n = 0;
    if ((size_t)n < sizeof small) {
        cfg_lex_putn(b, small, (size_t)n);
    } else {
        b->s = xgrow(b->s, &b->cap, b->len + (size_t)n + 1, 1);
        vsnprintf(b->s + b->len, (size_t)n + 1, fmt, again);
        b->len += (size_t)n;
    }
    va_end(again);
}

void cfg_lex_printf(struct cfg_sbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cfg_lex_vprintf(b, fmt, ap);
    va_end(ap);
}

void cfg_lex_toks_free(struct cfg_toks *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->v[i]);
    free(t->v);
    t->v = NULL;
    t->n = t->cap = 0;
}

static void toks_push(struct cfg_toks *t, char *s)
{
    t->v = xgrow(t->v, &t->cap, t->n + 1, sizeof *t->v);
    t->v[t->n++] = s;
}

static int is_blank(char c)
{
    /* Maui turns tabs and other non-printables into spaces. */
    return c == ' ' || ((unsigned char)c < 0x20 && c != '\n');
}

/* Append one physical line at p to b, without its comment; returns the
 * start of the next line. */
static const char *physical_line(const char *p, struct cfg_sbuf *b)
{
    size_t start = b->len;
    int comment = 0;
    for (; *p && *p != '\n'; p++) {
        if (*p == '#')
            comment = 1;
        if (!comment)
            cfg_lex_putc(b, is_blank(*p) ? ' ' : *p);
    }
    while (b->len > start && b->s[b->len - 1] == ' ')
        b->s[--b->len] = '\0';
    return *p == '\n' ? p + 1 : p;
}

int cfg_lex_line(const char **pos, int *line, struct cfg_sbuf *b)
{
    const char *p = *pos;
    b->len = 0;
    cfg_lex_putn(b, "", 0);
    if (!*p)
        return 0;
    for (;;) {
        p = physical_line(p, b);
        (*line)++;
        if (b->len == 0 || b->s[b->len - 1] != '\\')
            break;
        /* continuation: drop the '\'; the next line follows a blank */
        b->s[b->len - 1] = ' ';
        if (!*p)
            break;
    }
    *pos = p;
    return 1;
}

int cfg_lex_split(const char *s, struct cfg_toks *t)
{
    struct cfg_sbuf tok = {0};
    while (*s) {
        while (*s == ' ')
            s++;
        if (!*s)
            break;
        tok.len = 0;
        cfg_lex_putn(&tok, "", 0);
        char q = 0;
        for (; *s && (q || *s != ' '); s++) {
            if (!q && (*s == '"' || *s == '\''))
                q = *s;
            else if (q && *s == q)
                q = 0;
            else
                cfg_lex_putc(&tok, *s);
        }
        if (q) {
            free(tok.s);
            return -1;
        }
        toks_push(t, xstrdup(tok.s));
    }
    free(tok.s);
    return 0;
}

char *cfg_lex_join(const struct cfg_toks *t)
{
    struct cfg_sbuf b = {0};
    cfg_lex_putn(&b, "", 0);
    for (size_t i = 0; i < t->n; i++) {
        if (i)
            cfg_lex_putc(&b, ' ');
        cfg_lex_putn(&b, t->v[i], strlen(t->v[i]));
    }
    return b.s;
}

char *cfg_lex_read(FILE *f, size_t *len)
{
    size_t cap = 0, n = 0;
    char *buf = NULL;
    for (;;) {
        buf = xgrow(buf, &cap, n + 65536 + 1, 1);
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0)
            break;
    }
    for (size_t i = 0; i < n; i++) {
        if (buf[i] == '\0')
            buf[i] = ' ';
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}
