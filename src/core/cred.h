/*
 * cred — credentials: users, groups, accounts, classes and QOS.
 *
 * Each kind has a table of named objects, created on first use; the object
 * named "DEFAULT" of each kind always exists (Maui's fallback object). Jobs
 * point at their credential objects; the tables own them. Later modules hang
 * priorities, limits and fairshare usage on these objects.
 */
#ifndef MOKU_CRED_H
#define MOKU_CRED_H

#include <stddef.h>

enum cred_kind { CRED_USER, CRED_GROUP, CRED_ACCOUNT, CRED_CLASS, CRED_QOS, CRED_NKINDS };

/* QOS flags (QOSCFG QFLAGS), the ones the engine uses so far. */
#define QOS_NORESERVATION 0x1
#define QOS_NOBF 0x2
#define QOS_PREEMPTEE 0x4 /* its jobs carry the PREEMPTEE attribute (JOBATTRLIST) */

struct cred {
    enum cred_kind kind;
    char *name;
    size_t index;   /* position in its table, stable */
    long jobs;      /* jobs submitted under this credential */
    long live;      /* of those, the ones not ended (idle, held or running) */
    long maxsubmit; /* MAXSUBMITJOBS: live jobs it may have at most, 0 = no limit */

    long priority;        /* PRIORITY=; 0 = not set (Maui then uses the DEFAULT object's) */
    double fs_delta;      /* fairshare priority factor (target - usage, policy/fsacct.c) */
    unsigned long fs_gen; /* the iteration fs_delta was computed for */
    char *qdef;           /* QDEF: default QOS name, or NULL */
    char **qlist;         /* QLIST: QOS names this credential may use */
    size_t nqlist;
    long classweight; /* GROUPCFG CLASSWEIGHT (0 = not set) */

    /* QOS objects only (QOSCFG). */
    long qtweight, xfweight; /* added to QUEUETIMEWEIGHT / XFACTORWEIGHT */
    long qttarget;           /* QTTARGET seconds, 0 = none */
    double xftarget;         /* XFTARGET, 0 = none */
    unsigned qflags;         /* QOS_* */
};

struct cred_table;

/* A table for one kind, holding its DEFAULT object. Caller destroys. */
struct cred_table *cred_table_create(enum cred_kind kind);
void cred_table_destroy(struct cred_table *t);
/* The object named `name`, created if new; NULL or "" name gives DEFAULT. */
struct cred *cred_get(struct cred_table *t, const char *name);
/* The object named `name`, or NULL if none. */
struct cred *cred_find(const struct cred_table *t, const char *name);
/* The DEFAULT object (O(1)). */
struct cred *cred_default(const struct cred_table *t);
size_t cred_count(const struct cred_table *t);
struct cred *cred_at(const struct cred_table *t, size_t i);
/* Whether c's QLIST names qos. */
int cred_allows_qos(const struct cred *c, const char *qos);
/* "user", "group", "account", "class", "qos". */
const char *cred_kind_name(enum cred_kind k);

#endif
