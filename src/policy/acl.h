/*
 * acl — reservation access control lists (digest §6.3; Admin Guide 7.1.5).
 *
 * An ACL is a list of entries. Each entry names one credential (user, group,
 * account, class, QOS), one job attribute, or a duration limit, and carries
 * modifiers: required `*`, NOT `!`, and an affinity `+` (positive, the
 * default), `=` (neutral) or `-` (negative: use the reservation only as a last
 * resort). This module parses the two texts Maui reads ACLs from, prints the
 * form showres/diagnose print, and answers "may this job use a reservation
 * with this ACL, and with what affinity".
 *
 * What it is not: it knows nothing of reservations, nodes or the engine's job
 * struct; the caller describes the job with plain strings (struct acl_job)
 * and passes the duration the job would overlap the reservation. No I/O.
 *
 * Access rules (acl_check; the reasons and sources are in acl.c):
 *   1. an empty ACL grants nothing (a SYSTEM reservation blocks every job);
 *   2. a job that matches a NOT entry is refused;
 *   3. for each type that has required entries, the job must match one of
 *      them (required lists are AND-ed with everything else);
 *   4. if the ACL has ordinary entries (neither NOT nor required), the job
 *      must match at least one of them, whatever its type (OR across types);
 *      an ACL without ordinary entries grants once rules 2 and 3 hold.
 */
#ifndef MOKU_ACL_H
#define MOKU_ACL_H

#include <stddef.h>

#include "core/params.h" /* acl_type, acl_affinity */
#include "util/err.h"

struct acl_entry {
    enum acl_type type;
    char *name;                 /* credential or attribute name; NULL for ACL_DURATION */
    long secs;                  /* ACL_DURATION: the limit in seconds (>= 0), else 0 */
    int required;               /* `*` */
    int deny;                   /* `!`: a matching job is refused */
    enum acl_affinity affinity; /* POSITIVE, NEUTRAL or NEGATIVE, never NONE */
};

/* The job asking for access. NULL strings match no entry of their type.
 * duration: seconds the job would overlap the reservation (or its walltime). */
struct acl_job {
    const char *user, *group, *account, *class_, *qos;
    const char *const *attrs; /* job attributes, nattrs of them */
    size_t nattrs;
    long duration;
    const char *const *flags; /* job flags (PREEMPTEE, ...): JOBATTRLIST matches these too; an
                                 entry naming a job flag (ACL_JOB_FLAGS) matches only them,
                                 never a feature of that name */
    size_t nflags;
};

/* The job flags a JOBATTRLIST entry may name (Maui's job attributes). */
#define ACL_JOB_FLAGS                                                                              \
    {                                                                                              \
        "PREEMPTEE"                                                                                \
    }

struct acl;

/* An empty ACL. Caller destroys; acl_destroy(NULL) is a no-op. */
struct acl *acl_create(void);
void acl_destroy(struct acl *acl);
/* A copy of acl (NULL gives an empty ACL). Caller destroys. */
struct acl *acl_dup(const struct acl *acl);

/*
 * Add the entries of one config attribute's value, e.g. USERLIST=bob,john*
 * (type ACL_USER, list "bob,john*") or TIMELIMIT=1:00:00* (ACL_DURATION).
 * Items are separated by ',', ':' or '|' (TIMELIMIT: ',' or '|', since times
 * hold ':') and may be surrounded by blanks; a run of blanks alone also
 * separates (the legacy `QOSLIST high low-` form). An item is
 *     [==|<=] [!|*]... value [+|-|=|!|*]...
 * ("==" optional before names, "<=" before durations; `!` and `*` on either
 * side; at most one affinity mark). A value is a name of printable ASCII
 * characters other than = < > ! * ^ & + , : | [ ], or "[ALL]" (matches any
 * job that has that credential); a duration is [[[DD:]HH:]MM:]SS, seconds,
 * or INFINITY (longer times are INFINITY). Duplicates are kept.
 * Errors (empty list or name, unknown or conflicting modifier, bad time,
 * odd character): -1 with a message naming the attribute and the bad item,
 * and nothing added.
 */
int acl_add_list(struct acl *acl, enum acl_type type, const char *list, struct err *err);

/*
 * Add the entries of an ACL string as mrsvctl -a takes it and as diagnose -r
 * and acl_format print it: clauses <TYPE><op><item>[:<op><item>]... separated
 * by ',' or blanks, e.g. "USER==john+:==mary-,GROUP==staff*" or
 * "QOS==high+ DURATION<=*1:00:00". TYPE is USER, GROUP, ACCT (or ACCOUNT),
 * CLASS, QOS, JATTR (or JOBATTR) or DURATION, any case; op is "==" ("<=" for
 * DURATION, which splits items only at ':' followed by "<=" or "=="); items
 * as for acl_add_list. Errors as for acl_add_list (all or nothing).
 */
int acl_parse_setres(struct acl *acl, const char *text, struct err *err);

size_t acl_count(const struct acl *acl);
/* Entry i (< acl_count), in the order added; owned by acl. */
const struct acl_entry *acl_entry(const struct acl *acl, size_t i);

/*
 * Print acl the way diagnose -r shows it, grouped by type in enum order,
 * entries in the order added: "USER==bob+:==!carl+ GROUP==staff+*
 * DURATION<=1:00:00+" (affinity mark always, then `*` if required; `!`
 * before the value). acl_parse_setres reads it back. An empty ACL prints "".
 * Like snprintf: writes at most len bytes including the NUL (buf may be NULL
 * when len is 0) and returns the length the whole text needs.
 */
int acl_format(const struct acl *acl, char *buf, size_t len);

/* Whether and how `who` may use a reservation with this ACL (rules above).
 * The affinity of an access is the best among the matching ordinary entries
 * (POSITIVE when there are none), lowered to the worst affinity among the
 * required entries that matched. */
enum acl_affinity acl_check(const struct acl *acl, const struct acl_job *who);

/* Stacked reservations: `who` must pass every one of the n ACLs; the answer is
 * the least favourable of their affinities, ACL_NONE if any refuses. n == 0
 * (no reservation in the way) answers ACL_NEUTRAL; ranking unreserved
 * resources against reserved ones is the caller's business. */
enum acl_affinity acl_check_all(const struct acl *const *acls, size_t n, const struct acl_job *who);

/* "USER", "GROUP", "ACCT", "CLASS", "QOS", "JATTR", "DURATION". */
const char *acl_type_name(enum acl_type t);
/* The config attribute of a type: "USERLIST", ..., "JOBATTRLIST", "TIMELIMIT". */
const char *acl_attr_name(enum acl_type t);
/* The type of a config attribute name (any case): 0, or -1 if it is not one. */
int acl_attr_type(const char *attr, enum acl_type *out);
/* "none", "positive", "neutral", "negative". */
const char *acl_affinity_name(enum acl_affinity a);

#endif
