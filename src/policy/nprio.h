/*
 * nprio — node priority functions (NODEALLOCATIONPOLICY PRIORITY; digest §6.4,
 * Maui's MNodeGetPriority).
 *
 * `NODECFG[x|DEFAULT] PRIORITYF='<expr>'` gives each node a priority that the
 * PRIORITY allocation policy sorts by, highest first. This module parses that
 * text, evaluates it for one node and job, and prints it back normalised.
 * Without PRIORITYF the function is PRIORITY + 100*PREF + 100*RESAFFINITY.
 *
 * What it is not: it does not know nodes, jobs or reservations. The caller
 * fills an array of term values (enum nprio_var) for the node and job at
 * hand and asks for the sum; it also decides which NODECFG a node's function
 * comes from. No I/O.
 *
 * Terms (the caller's values; units are the node's, memory/disk/swap in MB):
 *   static:  CDISK CMEM CPROCS CSWAP  configured disk, memory, procs, swap
 *            PRIORITY                 NODECFG PRIORITY=<n>
 *            SPEED                    the node's relative speed
 *   dynamic: ADISK AMEM ASWAP APROCS  available disk, memory, swap, procs
 *            LOAD                     the node's load average
 *            JOBCOUNT                 jobs running on the node
 *            USAGE                    active / up time ratio, 0..1
 *            PREF                     1 if the node has a feature the job
 *                                     prefers, else 0
 *            RESAFFINITY              the job's reservation affinity on the
 *                                     node: 1 positive (or required), 0
 *                                     neutral or no reservation in the way,
 *                                     -1 negative (the ranking Maui's
 *                                     allocation passes use, digest §6.4)
 * A dynamic term depends on the moment or the job, so a function that uses
 * one must be evaluated per start; a static function can be cached per node.
 *
 * Syntax: a sum of terms joined by + and -; a term is a number, a variable
 * (any case), or a product of them in which at most one factor is not a
 * number: "SPEED + .01*AMEM - 10*JOBCOUNT", "AMEM*0.01", "10 JOBCOUNT" (a
 * number directly before a variable or '(' multiplies it), "2*(CMEM - AMEM)",
 * unary + and -. Blanks are free. Quotes around the whole text (' or ") are
 * dropped, as maui.cfg writes PRIORITYF='...'. Numbers are decimal
 * ([digits][.digits][e[+-]digits]), at most NPRIO_MAX_WEIGHT in magnitude, and
 * so is every weight after folding. The function is kept as one weight per
 * term plus a constant, so evaluation costs at most NPRIO_NVARS products
 * whatever the text's length.
 */
#ifndef MOKU_NPRIO_H
#define MOKU_NPRIO_H

#include <stddef.h>

#include "util/err.h"

/* The terms, static first (CDISK..SPEED), then dynamic (ADISK..RESAFFINITY). */
enum nprio_var {
    NPRIO_CDISK,
    NPRIO_CMEM,
    NPRIO_CPROCS,
    NPRIO_CSWAP,
    NPRIO_PRIORITY,
    NPRIO_SPEED,
    NPRIO_ADISK,
    NPRIO_AMEM,
    NPRIO_ASWAP,
    NPRIO_APROCS,
    NPRIO_LOAD,
    NPRIO_JOBCOUNT,
    NPRIO_USAGE,
    NPRIO_PREF,
    NPRIO_RESAFFINITY,
    NPRIO_NVARS
};

/* Parentheses and unary signs nest at most this deep. */
#define NPRIO_MAX_DEPTH 32
/* Largest magnitude of a number or a folded weight (exact in a double). */
#define NPRIO_MAX_WEIGHT 1e15

/* A parsed priority function. */
struct nprio;

/*
 * Parse text (grammar above) into *out; caller frees with nprio_free.
 * Errors: -1, *out untouched, and err reads "PRIORITYF: <what> at column N"
 * with N counted from 1 in text as given, e.g. "PRIORITYF: unknown term 'FOO'
 * at column 7". Refused: an empty text, an unknown term, a stray or missing
 * operator or parenthesis, a product of two variables, a number or weight
 * beyond NPRIO_MAX_WEIGHT (or not finite), nesting deeper than
 * NPRIO_MAX_DEPTH, an unbalanced quote, any other character.
 */
int nprio_parse(const char *text, struct nprio **out, struct err *err);

/* nprio_free(NULL) is a no-op. */
void nprio_free(struct nprio *p);

/* The default function, PRIORITY + 100*PREF + 100*RESAFFINITY. Caller frees. */
struct nprio *nprio_default(void);

/* The priority for these term values: constant + sum of weight * vars[v].
 * Terms of weight 0 are not read, so their values may be anything. */
double nprio_eval(const struct nprio *p, const double vars[NPRIO_NVARS]);

/* The weight of term v in p (0 when p does not use it). */
double nprio_weight(const struct nprio *p, enum nprio_var v);

/* 1 if p gives weight to a dynamic term (ADISK..RESAFFINITY), else 0. */
int nprio_is_dynamic(const struct nprio *p);

/*
 * p as text for showconfig/checknode: terms in enum order, then the constant,
 * weight 1 unwritten, e.g. "SPEED + 0.01*AMEM - 10*JOBCOUNT"; "0" when every
 * weight is 0. nprio_parse reads it back to the same function (weights
 * printed to 15 significant digits). Like snprintf: writes at most len bytes
 * including the NUL (buf may be NULL when len is 0) and returns the length
 * the whole text needs.
 */
int nprio_format(const struct nprio *p, char *buf, size_t len);

/* "CDISK", ..., "RESAFFINITY"; NULL for a value outside the enum. */
const char *nprio_var_name(enum nprio_var v);

#endif
