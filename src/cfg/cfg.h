/*
 * cfg — maui.cfg: the parameter table, the parser and the stored values.
 *
 * One table (cfg_params()) names every parameter moku knows: its type,
 * default, bounds and accepted values. It drives parsing, validation, the
 * defaults the engine reads and, later, `showconfig`. Object lines
 * (USERCFG[x], NODECFG[x], SRCFG[x], ...) are kept as accumulated attribute
 * lists, validated against a per-kind attribute table.
 *
 * What this module is not: it does not interpret values for the scheduler
 * (the engine reads them through the accessors below and builds its own
 * structures), and it never prints; warnings are collected for the caller.
 *
 * Syntax (Maui 3.3.1, digest §10): `#` comments, `\` line continuation,
 * `PARAM VALUE`, `PARAM=VALUE`, `PARAM[index] VALUE`, object lines
 * `KIND[name] ATTR=VAL [ATTR=VAL]...` (may be indented; repeated lines for the
 * same object accumulate). Parameter names are case-sensitive, as in Maui.
 * In an object line, words without '=' after a list attribute continue its
 * value, joined by one blank, as the Admin Guide writes `SRCFG[special]
 * QOSLIST=high low special-`; after any other attribute such a word is an
 * error. ACCTCFG is another spelling of ACCOUNTCFG: its objects are stored,
 * found and shown as ACCOUNTCFG.
 */
#ifndef MOKU_CFG_H
#define MOKU_CFG_H

#include <stddef.h>

#include "util/err.h"

enum cfg_type {
    CFG_INT,    /* integer within [min, max] */
    CFG_DOUBLE, /* real within [min, max] */
    CFG_BOOL,   /* TRUE/FALSE and Maui's spellings */
    CFG_TIME,   /* duration [[[DD:]HH:]MM:]SS, two fields = HH:MM, INFINITY; seconds */
    CFG_STRING, /* free text (the rest of the line) */
    CFG_LIST,   /* tokens separated by whitespace, ',' or ':' */
    CFG_ENUM,   /* one of choices[] (a list of them when CFG_MULTI is set) */
};

/* Flags of a parameter. */
#define CFG_INDEXED 0x1 /* accepts PARAM[index]; index names a partition, group, ... */
#define CFG_MULTI 0x2   /* CFG_ENUM: a list of choices */
#define CFG_LEGACY 0x4  /* parsed and stored for compatibility; see help */

struct cfg_param {
    const char *name;  /* the documented spelling */
    const char *alias; /* another accepted spelling (Maui source), or NULL */
    enum cfg_type type;
    const char *def;            /* default as text; NULL = no default (unset) */
    double min, max;            /* bounds for INT, DOUBLE, TIME */
    const char *const *choices; /* CFG_ENUM: NULL-terminated */
    unsigned flags;
    const char *help; /* one line: what it does */
};

/* The parameter table and its length. Static storage. */
const struct cfg_param *cfg_params(size_t *n);

/* Find a parameter by either spelling; NULL if unknown. */
const struct cfg_param *cfg_param_find(const char *name);

/*
 * The object kinds (NODECFG, USERCFG, ...) in table order, for documents
 * generated from the tables (maui.cfg(5)): the canonical name, NULL past the
 * end; *alias gets another accepted spelling or NULL.
 */
const char *cfg_kind_at(size_t i, const char **alias);
/*
 * Attribute j of that kind, in table order: its name, NULL past the end (at
 * once for the open kinds, RMCFG, AMCFG and CLIENTCFG, whose attributes
 * belong to their drivers); *aliases gets its other spellings joined by ", "
 * ("" when none) and *syntax the values it takes ("an integer >= 0", "one
 * of: Idle, Down, Drained"), both in the caller's buffers of n bytes.
 */
const char *cfg_kind_attr_at(const char *kind, size_t j, char *aliases, char *syntax, size_t n);

/* The extra spellings accepted for parameters (besides name and alias), in
 * table order: the spelling, NULL past the end; *target gets the name of the
 * parameter it stands for. */
const char *cfg_spelling_at(size_t i, const char **target);
/* One attribute of an object line: `ATTR=VALUE` or `ATTR[index]=VALUE`. */
struct cfg_attr {
    char *name;  /* upper case as written, e.g. "PROCS", "MAXJOB" */
    char *index; /* text between [] or NULL */
    char *value; /* text after '=' */
    const char *file;
    int line;
};

/* An object: every line `KIND[name] ...` for one (kind, name), accumulated. */
struct cfg_obj {
    char *kind; /* "NODECFG", "USERCFG", "SYSCFG" (name "" then), ... */
    char *name;
    struct cfg_attr *attrs;
    size_t nattrs;
};

struct cfg;

/* A configuration holding every default. Caller destroys. */
struct cfg *cfg_create(void);
/* cfg_destroy(NULL) is a no-op. */
void cfg_destroy(struct cfg *cfg);

/*
 * Parse a maui.cfg file (plain text) and apply it to cfg.
 * All or nothing: on any error (unreadable file, invalid value, malformed
 * line) cfg is left exactly as it was and err reads
 * "<file>:<line>: <what>", naming the accepted values where there is a
 * choice. Unknown parameters and unknown object attributes are not errors:
 * each adds a warning ("maui.cfg:12: unknown parameter 'FOO'") and is ignored.
 */
int cfg_load_file(struct cfg *cfg, const char *path, struct err *err);

/* Same, from a string; `name` stands for the file name in messages. */
int cfg_load_string(struct cfg *cfg, const char *text, const char *name, struct err *err);

/* Warnings collected so far (unknown names); strings owned by cfg. */
size_t cfg_nwarnings(const struct cfg *cfg);
const char *cfg_warning(const struct cfg *cfg, size_t i);

/*
 * Values. `index` is NULL for the plain parameter, or the text inside [] for
 * an indexed one; an index that was never set falls back to the plain value,
 * then to the default. Asking for a name that is not in the table, or with
 * the wrong type, is a programming error (assert).
 */
long long cfg_int(const struct cfg *cfg, const char *name, const char *index);
double cfg_double(const struct cfg *cfg, const char *name, const char *index);
int cfg_bool(const struct cfg *cfg, const char *name, const char *index);
long cfg_time(const struct cfg *cfg, const char *name, const char *index);
/* CFG_STRING, CFG_ENUM (single) and CFG_LIST (the text as given): NULL if unset. */
const char *cfg_str(const struct cfg *cfg, const char *name, const char *index);
/* A count-or-share parameter (USERRESMAXPROCS): N as is, N% of whole
 * (rounded down). */
long long cfg_share(const struct cfg *cfg, const char *name, long long whole);
/* Whether the parameter (at that index, NULL = plain) was set by a file. */
int cfg_is_set(const struct cfg *cfg, const char *name, const char *index);
/* The indices set for an indexed parameter, in file order; strings owned by cfg. */
size_t cfg_indices(const struct cfg *cfg, const char *name, const char ***out);

/* Objects, in order of first appearance. */
size_t cfg_nobjs(const struct cfg *cfg);
const struct cfg_obj *cfg_obj_at(const struct cfg *cfg, size_t i);
/* NULL if no line names that object. */
const struct cfg_obj *cfg_obj_find(const struct cfg *cfg, const char *kind, const char *name);
/* The last value given for attr (with that index, NULL = none), or NULL. */
const char *cfg_obj_get(const struct cfg_obj *obj, const char *attr, const char *index);

/*
 * The value parsers the table uses, for drivers and engine modules that
 * read the same syntax elsewhere (object attributes, commands).
 * Each returns 0 and stores the value, or -1 with a message (no file/line).
 */
int cfg_parse_time(const char *s, long *out, struct err *err);
int cfg_parse_bool(const char *s, int *out, struct err *err);
int cfg_parse_int(const char *s, long long min, long long max, long long *out, struct err *err);
int cfg_parse_double(const char *s, double min, double max, double *out, struct err *err);
/* A throttling limit `N` or `SOFT,HARD` (MAXJOB=4,8); N alone sets soft = hard = N; -1 means
 * unlimited. With `time` set each part is a time (MAXWC=1:00:00,2:00:00), else an integer. */
int cfg_parse_limit(const char *s, int time, long long *soft, long long *hard, struct err *err);

/* What `INFINITY` means in a CFG_TIME value, in seconds (Maui's MAX_MTIME). */
#define CFG_TIME_INFINITY 2140000000L

/* `showconfig`: every parameter with its current value, one per line
 * ("NAME  VALUE" and "NAME[index]  VALUE"), then the objects. Caller frees. */
char *cfg_show(const struct cfg *cfg);

#endif
