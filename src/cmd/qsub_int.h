/*
 * qsub_int — what qsub.c (the parser: command line and directives) and
 * qsub_json.c (the field table: qsub_check, qsub_to_json, qsub_from_json)
 * share: the text checks both apply to a request's strings and variables,
 * and a request's defaults. All defined in qsub.c. Not an API: qsub.h is.
 */
#ifndef MOKU_QSUB_INT_H
#define MOKU_QSUB_INT_H

#include <stddef.h>

#include "cmd/qsub.h"
#include "util/err.h"

/* A printable, bounded copy of user text for messages: a hostile value must
 * not reach a terminal raw (control bytes and non-ASCII show as '?'; longer
 * text is cut and ends in "..."). The struct is a temporary that lives to the
 * end of the full expression (C11 6.2.4p8), so
 * `err_set(err, "'%s'", qsub_shown(s).s)` is sound. */
struct qsub_shown {
    char s[72];
};
struct qsub_shown qsub_shown(const char *s);

/* The kinds of string a request holds. */
enum qsub_sclass {
    QSUB_S_NAME,
    QSUB_S_WORD,
    QSUB_S_PATH,
    QSUB_S_MAIL,
    QSUB_S_MAILTO,
    QSUB_S_SCRIPT,
    QSUB_S_DEPEND,   /* a depend= value (engine/dep.h) */
    QSUB_S_HOSTS,    /* a host list: name:count[,name:count]... (qsub_req.hosts) */
    QSUB_S_ARRAY,    /* -t: Torque's array range (util/arange.h) */
    QSUB_S_ARRAY_PBS /* -J: PBS Pro's array range */
};

/* The processors of a valid host list (QSUB_S_HOSTS) in all. */
long long qsub_hosts_procs(const char *hosts);

/* Whether s is a valid string of class c (the rules of struct qsub_req in
 * qsub.h): 0, or -1 with err holding a message without prefix. */
int qsub_check_str(enum qsub_sclass c, const char *s, struct err *err);

/* qsub_array.c: whether s is a job array range, Torque's -t (pbs 0) or PBS
 * Pro's -J (pbs 1), of at most ARANGE_LIMIT_MAX tasks (the daemon applies
 * its MAXJOBARRAYSIZE): 0, or -1 with err. */
int qsub_check_array(int pbs, const char *s, struct err *err);
/* qsub_array.c: -t (pbs 0) or -J (pbs 1) value v into r, checked; it
 * replaces any range given before: 0, or -1 with err (r unchanged). */
int qsub_opt_array(struct qsub_req *r, int pbs, const char *v, struct err *err);

/* Whether s[0..n) is a variable name: [A-Za-z_][A-Za-z0-9_]* of at most
 * QSUB_MAX_WORD bytes (1 or 0). */
int qsub_env_name_ok(const char *s, size_t n);

/* Whether v is a usable value for variable `name` (at most
 * QSUB_MAX_ENV_VALUE bytes, UTF-8, no control characters but tab): 0, or -1
 * with err (may be NULL) naming the variable. */
int qsub_check_env_value(const char *name, const char *v, struct err *err);

/* r as an empty request: every field absent or zero, but ppn 1, tasks 1 and
 * rerunnable -1 (not given). Owns nothing yet; qsub_free releases it later. */
void qsub_req_init(struct qsub_req *r);

#endif
