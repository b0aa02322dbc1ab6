/*
 * limits_int — what limits.c (usage and checks) and limits_cfg.c (reading
 * maui.cfg) share: the configured limits, before any usage. Not an API.
 */
#ifndef MOKU_LIMITS_INT_H
#define MOKU_LIMITS_INT_H

#include "core/cred.h"
#include "policy/limits.h"
#include "util/strmap.h"

/* One limit: 0 = not set, -1 = unlimited, > 0 the limit. Normalized on
 * entry so that a soft limit is never looser than its hard one. */
struct lim_val {
    long long soft, hard;
};

/* Every active and idle limit of one object. */
struct lim_set {
    struct lim_val v[LIM_NMODES][LIM_NTYPES];
};

/* The credential kinds a pair limit counts within an object: users, groups. */
enum lim_inner { LIM_IN_USER, LIM_IN_GROUP, LIM_NINNER };

/* MAXJOB[USER:name]=...: the limits of one named user (group) within an object. */
struct lim_named {
    char *name;
    struct lim_set set;
};

/* The limits one credential object (or SYSCFG) sets. */
struct lim_obj {
    char *name;
    struct lim_set own; /* MAXJOB=, MAXIJOB=, ... */
    /* Per-job limits: MAX.WCLIMIT (WC), MAXPROCPERJOB (PROC), MAXNODEPERJOB
     * (NODE); for SYSCFG also the SYSTEMMAX* parameters (PROC, WC, PS). */
    long long per_job[LIM_NTYPES];

    /* QOS objects only. */
    struct lim_set over;            /* OMAX*, OMAXI*: every credential of the QOS's jobs */
    struct lim_set over_user;       /* QFLAGS IGN*PERUSER: the user and the user pairs */
    long long over_job[LIM_NTYPES]; /* OMAXJ*, QFLAGS IGNSYSMAX*: system per-job limits */
    int ignall;                     /* QFLAGS IGNALL */

    /* Pair limits: users (groups) inside this object, MAXJOB[USER]= or
     * MAXJOBPERUSER= for each, MAXJOB[USER:name]= for one. */
    struct lim_set inner[LIM_NINNER];
    struct lim_named **named[LIM_NINNER];
    size_t nnamed[LIM_NINNER], capnamed[LIM_NINNER];
    struct strmap byname[LIM_NINNER]; /* name -> index in named */
};

/* A configuration's limits. */
struct lim_conf {
    struct lim_obj **objs[CRED_NKINDS]; /* configured objects of each kind */
    size_t nobjs[CRED_NKINDS], capobjs[CRED_NKINDS];
    struct strmap byname[CRED_NKINDS];      /* name -> index in objs */
    const struct lim_obj *def[CRED_NKINDS]; /* the DEFAULT object, or NULL */
    struct lim_obj sys;                     /* SYSCFG and SYSTEMMAX* (name "ALL") */
    /* Bit (outer * LIM_NINNER + inner) set when some object of kind outer
     * has a limit on its inner kind: only those pairs keep usage. */
    unsigned pairs;
    int any;          /* some limit is positive */
    int soft_differs; /* some limit's soft value differs from its hard one */
    int idle_any;     /* some idle limit (MAXIJOB, ...) is positive */
    int pe_any;       /* some limit is on processor equivalents (MAXPE, OMAXJPE, ...) */
    int ignall_any;   /* some QOS has QFLAGS IGNALL */
};

struct lim_conf *limits_conf_create(void);
void limits_conf_destroy(struct lim_conf *c);
/* The configured object of kind k named `name`, or NULL. */
const struct lim_obj *limits_conf_find(const struct lim_conf *c, enum cred_kind k,
                                       const char *name);
/* Read cfg into c (all of it, or -1 with err and c half-filled: destroy it). */
int limits_conf_load(struct lim_conf *c, const struct cfg *cfg, struct err *err);

#endif
