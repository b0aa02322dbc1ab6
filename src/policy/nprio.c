/*
 * nprio — node priority functions; see nprio.h.
 *
 * The parser is a recursive descent over the text that folds as it goes:
 * every sub-expression is a linear form (a constant and one weight per
 * term), so "2*(CMEM - AMEM) + 1" becomes {c 1, CMEM 2, AMEM -2} and the
 * text is not kept. That is what makes evaluation cheap (the PRIORITY policy
 * evaluates the function for every feasible node of every start) and the
 * printed form canonical.
 *
 * Where moku differs from Maui 3.3.1 (digest §6.4): Maui reads PRIORITYF as
 * a plain list of [weight*]TERM items and ignores what it does not
 * understand. moku also takes parentheses, unary signs and a weight after
 * its term ("AMEM*0.01"), and refuses anything else with the column it
 * stopped at, since a silently dropped term changes every allocation.
 * Products of two terms are refused: the function stays a weighted sum, as
 * Maui documents it.
 *
 * Hostile text: the recursion is bounded by NPRIO_MAX_DEPTH (parentheses and
 * unary signs), every number and folded weight is bounded by
 * NPRIO_MAX_WEIGHT (so no inf or NaN can be produced; "inf" and "nan" read
 * as unknown terms), the work is linear in the text, and messages quote at
 * most QUOTE_MAX characters of it.
 */
#include "policy/nprio.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/mem.h"
#include "util/sbuf.h"

struct nprio {
    double w[NPRIO_NVARS]; /* weight of each term; 0 = unused */
    double c;              /* the constant */
};

static const char *const var_names[NPRIO_NVARS] = {
    "CDISK", "CMEM",   "CPROCS", "CSWAP",    "PRIORITY", "SPEED", "ADISK",       "AMEM",
    "ASWAP", "APROCS", "LOAD",   "JOBCOUNT", "USAGE",    "PREF",  "RESAFFINITY",
};

/* Longest piece of user text quoted in a message. */
#define QUOTE_MAX 40
/* Longest number literal read (more digits add nothing a weight needs). */
#define NUMBER_MAX 64

/* ------------------------------------------------------------ linear forms */

/* A folded sub-expression: c + sum of w[v] * v. Same layout as struct nprio. */
struct lin {
    double w[NPRIO_NVARS];
    double c;
};

static int lin_is_const(const struct lin *a)
{
    for (int v = 0; v < NPRIO_NVARS; v++) {
        if (a->w[v] != 0)
            return 0;
    }
    return 1;
}

/* Whether every weight and the constant are within NPRIO_MAX_WEIGHT (false
 * for NaN as well). */
static int lin_in_range(const struct lin *a)
{
    if (!(fabs(a->c) <= NPRIO_MAX_WEIGHT))
        return 0;
    for (int v = 0; v < NPRIO_NVARS; v++) {
        if (!(fabs(a->w[v]) <= NPRIO_MAX_WEIGHT))
            return 0;
    }
    return 1;
}

/* a += sign * b */
static void lin_add(struct lin *a, const struct lin *b, double sign)
{
    a->c += sign * b->c;
    for (int v = 0; v < NPRIO_NVARS; v++)
        a->w[v] += sign * b->w[v];
}

static void lin_scale(struct lin *a, double k)
{
    a->c *= k;
    for (int v = 0; v < NPRIO_NVARS; v++)
        a->w[v] *= k;
}

/* --------------------------------------------------------------- the parser */

struct parser {
    const char *text; /* as given: columns count from here */
    const char *p;    /* next character */
    const char *end;  /* end of the expression (before a closing quote) */
    int depth;        /* open parentheses and unary signs */
    struct err *err;
};

static size_t column(const struct parser *ps, const char *at)
{
    return (size_t)(at - ps->text) + 1;
}

static void skip_blanks(struct parser *ps)
{
    while (ps->p < ps->end && isspace((unsigned char)*ps->p))
        ps->p++;
}

/* The next character, or '\0' at the end of the expression. */
static char peek(struct parser *ps)
{
    skip_blanks(ps);
    return ps->p < ps->end ? *ps->p : '\0';
}

static int is_name_start(char c)
{
    return isalpha((unsigned char)c) != 0;
}

static int is_name_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

static int is_number_start(struct parser *ps)
{
    const char *p = ps->p;
    return isdigit((unsigned char)*p) ||
           (*p == '.' && p + 1 < ps->end && isdigit((unsigned char)p[1]));
}

/* "unexpected <what is at p> at column N (expected <expected>)" */
static int unexpected(struct parser *ps, const char *expected)
{
    char what[32];
    const char *at = ps->p;
    unsigned char c = at < ps->end ? (unsigned char)*at : 0;
    if (!c)
        snprintf(what, sizeof what, "end of text");
    else if (isprint(c))
        snprintf(what, sizeof what, "'%c'", c);
    else
        snprintf(what, sizeof what, "byte 0x%02x", c);
    return err_set(ps->err, "PRIORITYF: unexpected %s at column %zu (expected %s)", what,
                   column(ps, at), expected);
}

/* A word of the text for a message: at most QUOTE_MAX characters, "..." after. */
static int quote_len(size_t n)
{
    return (int)(n > QUOTE_MAX ? QUOTE_MAX : n);
}

static const char *quote_more(size_t n)
{
    return n > QUOTE_MAX ? "..." : "";
}

static const char *skip_digits(const struct parser *ps, const char *q)
{
    while (q < ps->end && isdigit((unsigned char)*q))
        q++;
    return q;
}

/* [digits][.digits][e[+-]digits] into *x. The scan is ours and strtod only
 * converts it, so strtod's hex, "inf" and "nan" forms never get in. */
static int parse_number(struct parser *ps, double *x)
{
    const char *s = ps->p, *q = skip_digits(ps, s);
    if (q < ps->end && *q == '.')
        q = skip_digits(ps, q + 1);
    if (q < ps->end && (*q == 'e' || *q == 'E')) {
        const char *e = q + 1;
        if (e < ps->end && (*e == '+' || *e == '-'))
            e++;
        if (e < ps->end && isdigit((unsigned char)*e))
            q = skip_digits(ps, e); /* else the 'e' is not ours: "2e" reads 2 * e */
    }
    size_t n = (size_t)(q - s);
    if (n >= NUMBER_MAX)
        return err_set(ps->err, "PRIORITYF: number '%.*s...' too long at column %zu", QUOTE_MAX, s,
                       column(ps, s));
    char buf[NUMBER_MAX];
    memcpy(buf, s, n);
    buf[n] = '\0';
    double v = strtod(buf, NULL);
    if (!(fabs(v) <= NPRIO_MAX_WEIGHT))
        return err_set(ps->err, "PRIORITYF: number '%s' out of range at column %zu (at most %g)",
                       buf, column(ps, s), NPRIO_MAX_WEIGHT);
    ps->p = q;
    *x = v;
    return 0;
}

/* A term name (any case) as the linear form 1*VAR. */
static int parse_var(struct parser *ps, struct lin *out)
{
    const char *s = ps->p, *q = s;
    while (q < ps->end && is_name_char(*q))
        q++;
    size_t n = (size_t)(q - s);
    for (int v = 0; v < NPRIO_NVARS; v++) {
        if (strlen(var_names[v]) == n && strncasecmp(var_names[v], s, n) == 0) {
            *out = (struct lin){{0}, 0};
            out->w[v] = 1;
            ps->p = q;
            return 0;
        }
    }
    return err_set(ps->err, "PRIORITYF: unknown term '%.*s%s' at column %zu", quote_len(n), s,
                   quote_more(n), column(ps, s));
}

static int parse_sum(struct parser *ps, struct lin *out);

/* One level deeper (a parenthesis or a unary sign at `at`), or an error. */
static int enter(struct parser *ps, const char *at)
{
    if (++ps->depth > NPRIO_MAX_DEPTH)
        return err_set(ps->err, "PRIORITYF: nested deeper than %d levels at column %zu",
                       NPRIO_MAX_DEPTH, column(ps, at));
    return 0;
}

/* '(' sum ')' */
static int parse_group(struct parser *ps, struct lin *out)
{
    const char *open = ps->p++;
    if (enter(ps, open) < 0 || parse_sum(ps, out) < 0)
        return -1;
    if (peek(ps) != ')')
        return err_set(ps->err, "PRIORITYF: '(' at column %zu is not closed", column(ps, open));
    ps->p++;
    ps->depth--;
    return 0;
}

/*
 * factor := ('+' | '-') factor | number | term | '(' sum ')'.
 * *number tells whether it ended in a number literal, after which a term or
 * '(' multiplies without '*' ("10 JOBCOUNT").
 */
static int parse_factor(struct parser *ps, struct lin *out, int *number)
{
    char c = peek(ps);
    const char *at = ps->p;
    *number = 0;
    if (c == '+' || c == '-') {
        ps->p++;
        if (enter(ps, at) < 0 || parse_factor(ps, out, number) < 0)
            return -1;
        ps->depth--;
        if (c == '-')
            lin_scale(out, -1);
        return 0;
    }
    if (c == '(')
        return parse_group(ps, out);
    if (is_name_start(c))
        return parse_var(ps, out);
    if (c && is_number_start(ps)) {
        *out = (struct lin){{0}, 0};
        *number = 1;
        return parse_number(ps, &out->c);
    }
    return unexpected(ps, "a number, a term or '('");
}

/* a *= b, unless both hold terms. `at` is where b starts, for the message. */
static int multiply(struct parser *ps, struct lin *a, const struct lin *b, const char *at)
{
    if (!lin_is_const(a) && !lin_is_const(b))
        return err_set(ps->err,
                       "PRIORITYF: product of two terms at column %zu (a weight must be a number)",
                       column(ps, at));
    if (lin_is_const(a)) {
        double k = a->c;
        *a = *b;
        lin_scale(a, k);
    } else {
        lin_scale(a, b->c);
    }
    if (!lin_in_range(a))
        return err_set(ps->err, "PRIORITYF: weight out of range at column %zu (at most %g)",
                       column(ps, at), NPRIO_MAX_WEIGHT);
    return 0;
}

/* product := factor { ['*'] factor }, the '*' optional after a number. */
static int parse_product(struct parser *ps, struct lin *out)
{
    int number = 0;
    if (parse_factor(ps, out, &number) < 0)
        return -1;
    for (;;) {
        char c = peek(ps);
        if (c == '*')
            ps->p++;
        else if (!(number && (c == '(' || is_name_start(c))))
            return 0;
        struct lin b;
        skip_blanks(ps);
        const char *at = ps->p;
        if (parse_factor(ps, &b, &number) < 0 || multiply(ps, out, &b, at) < 0)
            return -1;
    }
}

/* sum := product { ('+' | '-') product } */
static int parse_sum(struct parser *ps, struct lin *out)
{
    if (parse_product(ps, out) < 0)
        return -1;
    for (;;) {
        char c = peek(ps);
        if (c != '+' && c != '-')
            return 0;
        const char *op = ps->p++;
        struct lin b;
        if (parse_product(ps, &b) < 0)
            return -1;
        lin_add(out, &b, c == '-' ? -1 : 1);
        if (!lin_in_range(out))
            return err_set(ps->err, "PRIORITYF: weight out of range at column %zu (at most %g)",
                           column(ps, op), NPRIO_MAX_WEIGHT);
    }
}

/* What follows a complete expression, if anything, as an error. */
static int trailing(struct parser *ps)
{
    char c = peek(ps);
    if (!c)
        return 0;
    if (c == ')')
        return err_set(ps->err, "PRIORITYF: ')' at column %zu has no '('", column(ps, ps->p));
    if (is_name_start(c) || is_number_start(ps)) {
        const char *q = ps->p;
        while (q < ps->end && (is_name_char(*q) || *q == '.'))
            q++;
        size_t n = (size_t)(q - ps->p);
        return err_set(ps->err, "PRIORITYF: missing operator before '%.*s%s' at column %zu",
                       quote_len(n), ps->p, quote_more(n), column(ps, ps->p));
    }
    return unexpected(ps, "an operator");
}

/* Set [ps->p, ps->end) to text without blanks around it and without one pair
 * of enclosing quotes. */
static int strip(struct parser *ps, const char *text)
{
    const char *s = text, *e = text + strlen(text);
    while (s < e && isspace((unsigned char)*s))
        s++;
    while (e > s && isspace((unsigned char)e[-1]))
        e--;
    if (s < e && (*s == '\'' || *s == '"')) {
        if (e - s < 2 || e[-1] != *s)
            return err_set(ps->err, "PRIORITYF: unbalanced quote at column %zu", column(ps, s));
        s++;
        e--;
    }
    ps->p = s;
    ps->end = e;
    return 0;
}

int nprio_parse(const char *text, struct nprio **out, struct err *err)
{
    struct parser ps = {text, text, text, 0, err};
    struct lin f;
    if (strip(&ps, text) < 0)
        return -1;
    if (!peek(&ps))
        return err_set(err, "PRIORITYF: empty expression");
    if (parse_sum(&ps, &f) < 0 || trailing(&ps) < 0)
        return -1;
    struct nprio *p = xmalloc(sizeof *p);
    for (int v = 0; v < NPRIO_NVARS; v++)
        p->w[v] = f.w[v] == 0 ? 0 : f.w[v]; /* no -0: it would print as "-0" */
    p->c = f.c == 0 ? 0 : f.c;
    *out = p;
    return 0;
}

/* ------------------------------------------------------------------ the rest */

void nprio_free(struct nprio *p)
{
    free(p);
}

/* Maui's MNodeGetPriority without PRIORITYF: N.Priority + 100*JobPref +
 * 100*ResAffinity. */
struct nprio *nprio_default(void)
{
    struct nprio *p = xcalloc(1, sizeof *p);
    p->w[NPRIO_PRIORITY] = 1;
    p->w[NPRIO_PREF] = 100;
    p->w[NPRIO_RESAFFINITY] = 100;
    return p;
}

double nprio_eval(const struct nprio *p, const double vars[NPRIO_NVARS])
{
    double sum = p->c;
    for (int v = 0; v < NPRIO_NVARS; v++) {
        if (p->w[v] != 0)
            sum += p->w[v] * vars[v];
    }
    return sum;
}

double nprio_weight(const struct nprio *p, enum nprio_var v)
{
    return (unsigned)v < NPRIO_NVARS ? p->w[v] : 0;
}

int nprio_is_dynamic(const struct nprio *p)
{
    for (int v = NPRIO_ADISK; v < NPRIO_NVARS; v++) {
        if (p->w[v] != 0)
            return 1;
    }
    return 0;
}

/* One signed item: "-x" first, " + x" / " - x" after; weight 1 unwritten
 * before a name. name NULL: the constant. */
static void put_item(struct sbuf *o, double w, const char *name)
{
    char num[64];
    double m = fabs(w);
    if (o->pos == 0)
        sbuf_put(o, w < 0 ? "-" : "");
    else
        sbuf_put(o, w < 0 ? " - " : " + ");
    if (name && m == 1) {
        sbuf_put(o, name);
        return;
    }
    snprintf(num, sizeof num, "%.15g", m);
    sbuf_put(o, num);
    if (name) {
        sbuf_put(o, "*");
        sbuf_put(o, name);
    }
}

int nprio_format(const struct nprio *p, char *buf, size_t len)
{
    struct sbuf o = {buf, len, 0};
    for (int v = 0; v < NPRIO_NVARS; v++) {
        if (p->w[v] != 0)
            put_item(&o, p->w[v], var_names[v]);
    }
    if (p->c != 0 || o.pos == 0)
        put_item(&o, p->c, NULL);
    return sbuf_end(&o);
}

const char *nprio_var_name(enum nprio_var v)
{
    return (unsigned)v < NPRIO_NVARS ? var_names[v] : NULL;
}
