/*
 * cfg_tab.h — private to src/cfg: what the tables know beyond cfg.h.
 *
 * cfg_params.c holds the parameter table (public through cfg_params()) plus a
 * few extra spellings; cfg_attrs.c holds the value scanners and the
 * per-kind attribute tables of object lines (NODECFG[x] PROCS=4 ...);
 * cfg_lex.c cuts the text into logical lines and tokens. Only src/cfg uses
 * this header.
 */
#ifndef MOKU_CFG_TAB_H
#define MOKU_CFG_TAB_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include "cfg/cfg.h"

/*
 * Private flag bits of cfg_param.flags (the public ones are 0x1..0x4).
 * They only change how a value is checked; the stored text stays what the
 * accessors document.
 */
#define CFG_TAB_BOOLENUM                                                                           \
    0x100                     /* ENUM also takes a boolean: true -> choices[0], false -> "NONE"    \
                               */
#define CFG_TAB_PERCENT 0x200 /* ENUM value may end in '%', which is kept (FSPOLICY) */
#define CFG_TAB_LIMIT 0x400   /* STRING holding a limit `N` or `SOFT,HARD` (legacy *COUNT) */
#define CFG_TAB_TLIMIT 0x800  /* the same with times (MAXWCPERUSER) */
#define CFG_TAB_SHARE                                                                              \
    0x1000 /* STRING holding a count N >= 0 or a share N% (0..100) of a                            \
              whole the reader knows (USERRESMAXPROCS): cfg_share */

/* "No bound" for INT and DOUBLE parameters and attributes (exact in a double). */
#define CFG_TAB_BIG 9e15

/* --------------------------------------------------------- cfg_params.c */

/* A spelling accepted besides a parameter's name and alias (a third one). */
struct cfg_tab_alias {
    const char *name;   /* the extra spelling */
    const char *target; /* the table name it stands for */
};
const struct cfg_tab_alias *cfg_tab_aliases(size_t *n);

/* ------------------------------------------------------------ cfg_lex.c */

/* A growable string; s is NUL-terminated once anything was put. */
struct cfg_sbuf {
    char *s;
    size_t len, cap;
};
void cfg_lex_putn(struct cfg_sbuf *b, const char *s, size_t n);
void cfg_lex_putc(struct cfg_sbuf *b, char c);
void cfg_lex_printf(struct cfg_sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cfg_lex_vprintf(struct cfg_sbuf *b, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));

/* Tokens of a value; each owned. */
struct cfg_toks {
    char **v;
    size_t n, cap;
};
void cfg_lex_toks_free(struct cfg_toks *t);

/*
 * Read the logical line at *pos into b: comment cut at '#', control
 * characters made blanks, trailing blanks dropped, lines ending in ''
 * joined. *line counts the physical lines read. 0 at the end of the text.
 */
int cfg_lex_line(const char **pos, int *line, struct cfg_sbuf *b);
/* Split s at blanks into t, honouring quotes (removed); -1 on an unclosed quote. */
int cfg_lex_split(const char *s, struct cfg_toks *t);
/* The tokens joined by single blanks. Caller frees. */
char *cfg_lex_join(const struct cfg_toks *t);
/* The whole of f, NUL bytes made blanks (so they cannot end the text). Caller frees. */
char *cfg_lex_read(FILE *f, size_t *len);

/* ---------------------------------------------------------- cfg_attrs.c */

/* Scanners: 0 and the value, or -1 when s is not of that syntax (no message). */
int cfg_tab_scan_int(const char *s, long long *out);
int cfg_tab_scan_double(const char *s, double *out);
int cfg_tab_scan_bool(const char *s, int *out);
int cfg_tab_scan_time(const char *s, long *out);
int cfg_tab_scan_limit(const char *s, int time, long long *soft, long long *hard);
/* N (>= 0) or N% (0 <= N <= 100, decimals allowed): *v and whether a share. */
int cfg_tab_scan_share(const char *s, double *v, int *percent);

/* The canonical name of an object kind ("NODECFG", "USERCFG", ...; "ACCOUNTCFG"
 * for its alias "ACCTCFG"), or NULL if word names none. Static storage. */
const char *cfg_tab_kind(const char *word);

enum cfg_atype {
    CFG_A_INT,
    CFG_A_DOUBLE,
    CFG_A_BOOL,
    CFG_A_TIME,
    CFG_A_STRING,
    CFG_A_LIST,
    CFG_A_LIMIT,    /* N or SOFT,HARD integers */
    CFG_A_TLIMIT,   /* N or SOFT,HARD, each a time (MAXWC) */
    CFG_A_ENUM,     /* one of choices, case-insensitive */
    CFG_A_FSTARGET, /* a number, optionally followed by one of + - ^ % */
};

/* One known attribute of an object kind. */
struct cfg_attr_def {
    const char *name;     /* canonical spelling, stored in struct cfg_attr */
    const char *alias[3]; /* other spellings; unused slots NULL */
    enum cfg_atype type;
    double min, max;            /* CFG_A_INT, CFG_A_DOUBLE */
    const char *const *choices; /* CFG_A_ENUM: NULL-terminated */
};

/*
 * The definition of attr (any spelling) for kind, or NULL when unknown.
 * *open is set to 1 when the kind takes any attribute unchecked (RMCFG,
 * AMCFG, CLIENTCFG), else 0.
 */
const struct cfg_attr_def *cfg_tab_attr(const char *kind, const char *attr, int *open);

/*
 * Check value against def. 0 when valid; else -1 and `expect` holds the
 * accepted form ("an integer >= 0", "one of: Idle, Down, Drained", ...).
 */
int cfg_tab_check_attr(const struct cfg_attr_def *def, const char *value, char *expect,
                       size_t size);

#endif
