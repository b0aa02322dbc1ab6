/*
 * resv — administrative and standing reservations (digest §6; Admin Guide
 * 7.1): a window of time, processors on named nodes, and an access control
 * list saying which jobs may use them.
 *
 * A reservation is made of tasks; a task is a set of processors (and memory,
 * disk, swap) on one node — by default the whole node. Once placed, a
 * reservation is simply "r->nodes[k].procs processors of node
 * r->nodes[k].node over [start, end)". Jobs the ACL admits may use those
 * processors in whatever shape they need; jobs it does not admit see them
 * as taken. A reservation without ACL entries (a SYSTEM reservation) admits
 * no job at all.
 *
 * The engine owns reservations (sched_resv_create, sched_standing_from_cfg);
 * everything else reads them through the accessors below.
 */
#ifndef MOKU_RESV_H
#define MOKU_RESV_H

#include <stddef.h>

#include "core/params.h"

struct acl;        /* policy/acl.h */
struct srcfg_host; /* policy/srcfg.h */

enum resv_kind {
    RESV_USER,     /* setres (Maui's "User" type) */
    RESV_STANDING, /* an instance of an SRCFG standing reservation */
    RESV_EXTERNAL, /* the resource manager's own (a Slurm reservation): mirrored by the
                      driver, changed only there */
};

/* Flags: the SRCFG_* bits of core/params.h (BESTEFFORT, BYNAME,
 * OWNERPREEMPT, PREEMPTEE, SPACEFLEX, SINGLEUSE, TIMEFLEX, FORCE, ADVRES,
 * DEDICATEDNODE, META). */

/* What a reservation asks for; copied by sched_resv_create. */
struct resv_spec {
    const char *name; /* base of the id; NULL: the first ACL entry's name, else "SYSTEM" */
    long start, end;  /* [start, end); end > start */
    /* Tasks: tasks > 0 reserves that many (anywhere suitable, HOSTLIST
     * nodes first — "floating"); tasks == 0 reserves every node hosts
     * match, one task per node or as many RESOURCES-sized tasks as fit
     * ("non-floating"). At least one of tasks and hosts is given. */
    long tasks;
    long tpn;                       /* tasks per node, 0 = any */
    struct srcfg_res res;           /* one task; procs -1 = a whole node */
    const struct srcfg_host *hosts; /* names or regular expressions (whole name) */
    size_t nhosts;
    char *const *features; /* every one required of a node */
    size_t nfeatures;
    const char *partition; /* NULL or "ALL": any */
    unsigned flags;        /* SRCFG_* */
    enum srcfg_access access;
    const char *owner; /* NULL = none; owner_type says which credential */
    enum acl_type owner_type;
    long priority;
    const char *chargeaccount;
    const struct acl *acl; /* copied; NULL = empty: no job may use it */
};

/* Processors reserved on one node, and how many of them jobs the
 * reservation admits hold now. */
struct resv_node {
    unsigned node; /* index in the scheduler's node table */
    unsigned procs;
    unsigned used;
};

struct resv {
    char *id; /* "<base>.<n>" */
    char *base;
    enum resv_kind kind;
    long start, end;
    long created;
    unsigned flags;
    enum srcfg_access access;
    struct acl *acl; /* never NULL */
    char *owner;     /* NULL = none */
    enum acl_type owner_type;
    long priority;
    char *chargeaccount;
    long tasks_asked;        /* tasks it should hold (0 = every matched host) */
    long tasks;              /* tasks it holds: fewer than asked = a partial reservation */
    long long procs;         /* processors reserved, all nodes */
    struct resv_node *nodes; /* in node-table order */
    size_t nnodes;
    long sr;                 /* RESV_STANDING: index of its SRCFG definition, else -1 */
    long sr_window;          /* RESV_STANDING: start of its period's window (it may begin later) */
    unsigned long topup_gen; /* engine: reservations generation of the last top-up try */
    int spent;               /* engine: SINGLEUSE, and a job that used it ended: it goes at
                                the next iteration */
    unsigned long serial;    /* engine: a number no other reservation object had before
                                (a modified reservation is a new object under its old id) */
};

#endif
