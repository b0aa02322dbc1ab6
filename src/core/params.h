/*
 * params — the types of the policy's parameters that struct sched holds by
 * value or in its interface (the priority function's weights and caps, the
 * fairshare's policy and windows, the throttling limits' kinds, a
 * reservation's access and flags) and what a priority is weighed against. In core so that
 * core/sched.h includes nothing above core (issue 29); the functions that
 * use them are policy/prio.h's and policy/fs.h's.
 */
#ifndef MOKU_PARAMS_H
#define MOKU_PARAMS_H

#include "core/cred.h"

/* A priority is clipped to +-PRIO_CLIP before the system priority. */
#define PRIO_CLIP 1e9

enum prio_comp {
    PRIO_SERV,
    PRIO_TARG,
    PRIO_CRED,
    PRIO_ATTR,
    PRIO_FS,
    PRIO_RES,
    PRIO_USAGE,
    PRIO_NCOMP
};

/* Subcomponent factors, grouped by component. */
/* clang-format off */
enum prio_factor {
    PF_QUEUETIME, PF_XFACTOR, PF_BYPASS, PF_SPVIOLATION,        /* SERV */
    PF_TARGETQUEUETIME, PF_TARGETXFACTOR,                       /* TARG */
    PF_USER, PF_GROUP, PF_ACCOUNT, PF_QOS, PF_CLASS,            /* CRED */
    PF_FSUSER, PF_FSGROUP, PF_FSACCOUNT, PF_FSQOS, PF_FSCLASS,  /* FS */
    PF_NODE, PF_PROC, PF_MEM, PF_SWAP, PF_DISK, PF_PS, PF_PE, PF_WALLTIME, /* RES */
    PF_CONSUMED, PF_REMAINING, PF_PERCENT, PF_EXECUTIONTIME,    /* USAGE (running jobs) */
    PF_NFACTORS
};
/* clang-format on */

enum prio_accrual { ACCRUE_ALWAYS, ACCRUE_QUEUEPOLICY, ACCRUE_FULLPOLICY };

/* The priority block of maui.cfg. */
struct prio_params {
    long cweight[PRIO_NCOMP];  /* SERVICEWEIGHT ... USAGEWEIGHT */
    double ccap[PRIO_NCOMP];   /* SERVICECAP ... (0 = none) */
    long fweight[PF_NFACTORS]; /* QUEUETIMEWEIGHT ... */
    double fcap[PF_NFACTORS];  /* QUEUETIMECAP ... (0 = none) */
    long xfminwclimit;         /* XFMINWCLIMIT, seconds */
    enum prio_accrual accrual; /* JOBPRIOACCRUALPOLICY */
    int reject_neg;            /* REJECTNEGPRIOJOBS */
    int enable_neg;            /* ENABLENEGJOBPRIORITY */
};

/* What a priority is weighed against. */
struct prio_env {
    long long procs;                          /* configured processors of the cluster */
    long long mem, swap, disk;                /* configured totals, MB (0 = unknown) */
    const struct cred *defaults[CRED_NKINDS]; /* the DEFAULT object of each kind */
    long qstop; /* the last eligibility walk: a JOB_QSTOP job's queue time starts there at
                   the earliest (prio_qstop_from) */
    long poll;  /* RMPOLLINTERVAL: ... or at the last poll instant */
};

/* A priority taken apart, for diagnose -p and checkjob. */
struct prio_parts {
    double factor[PF_NFACTORS]; /* raw subcomponent values, before any weight */
    double comp[PRIO_NCOMP];    /* what each component adds */
    double total;               /* the priority */
};

#define FS_MAX_DEPTH 24 /* Maui's cap on FSDEPTH */

enum fs_policy { FS_NONE, FS_DEDICATEDPS, FS_DEDICATEDPES, FS_UTILIZEDPS };
enum fs_mode {
    FS_MODE_NONE,
    FS_MODE_TARGET,
    FS_MODE_FLOOR,
    FS_MODE_CEILING,
    FS_MODE_CAP,
    FS_MODE_PCAP
};

struct fs_target {
    double value;      /* percent of total usage, or usage units for FS_MODE_CAP */
    enum fs_mode mode; /* FS_MODE_NONE: no target */
};

/* The fairshare parameters (FSPOLICY, FSINTERVAL, FSDEPTH, FSDECAY). */
struct fs_params {
    enum fs_policy policy; /* FS_NONE: no accounting, every delta 0 */
    int percent;           /* FSPOLICY ended with '%': delta = 1 - usage/target */
    long interval;         /* seconds, at least 1 */
    int depth;             /* 1..FS_MAX_DEPTH */
    double decay;          /* weight of each older window relative to the next */
};

/* What a limit counts; the Maui names are MAXJOB, MAXPROC, ... */
enum lim_type {
    LIM_JOB,  /* jobs */
    LIM_PROC, /* processors: tasks x procs per task */
    LIM_NODE, /* requested nodes (0 when the job gave none, as in Maui) */
    LIM_PS,   /* processor-seconds: procs x seconds */
    LIM_PE,   /* processor equivalents */
    LIM_WC,   /* seconds of walltime */
    LIM_MEM,  /* memory, MB: tasks x memory per task */
    LIM_NTYPES
};

/* Which usage: running jobs (MAXJOB ...) or eligible idle jobs (MAXIJOB ...). */
enum lim_mode { LIM_ACTIVE, LIM_IDLE, LIM_NMODES };

/* Which of a limit's two values: SOFT for the priority pass, HARD after. */
enum lim_level { LIM_SOFT, LIM_HARD };

/* ---- reservations: their access lists and standing definitions ---- */

/* What an entry matches. The config attribute and the display keyword are
 * USERLIST/USER, GROUPLIST/GROUP, ACCOUNTLIST/ACCT, CLASSLIST/CLASS,
 * QOSLIST/QOS, JOBATTRLIST/JATTR and TIMELIMIT/DURATION. */
enum acl_type {
    ACL_USER,
    ACL_GROUP,
    ACL_ACCOUNT,
    ACL_CLASS,
    ACL_QOS,
    ACL_JOBATTR,  /* a job attribute, e.g. PREEMPTEE */
    ACL_DURATION, /* matches a job whose duration is <= secs */
    ACL_NTYPES
};

/* The answer of a check; ACL_NONE means no access. Most favourable first
 * after NONE: POSITIVE (use the reserved resources first), NEUTRAL, NEGATIVE
 * (use them only when nothing else is free). */
enum acl_affinity { ACL_NONE, ACL_POSITIVE, ACL_NEUTRAL, ACL_NEGATIVE };

/* FLAGS (any case; separated by ',', '|', ':', '[', ']' or blanks). */
#define SRCFG_BESTEFFORT 0x001u
#define SRCFG_BYNAME 0x002u       /* only jobs that request the reservation by name */
#define SRCFG_OWNERPREEMPT 0x004u /* the owner's jobs may preempt others inside it */
#define SRCFG_PREEMPTEE                                                                            \
    0x008u /* a reservation of higher PRIORITY short of room may take its place */
#define SRCFG_SPACEFLEX 0x010u /* may move between hosts over time (off nodes that go down) */
#define SRCFG_SINGLEUSE 0x020u /* released when the first job that used it ends */
#define SRCFG_TIMEFLEX 0x040u
#define SRCFG_FORCE 0x080u
#define SRCFG_ADVRES 0x100u
#define SRCFG_DEDICATEDNODE 0x200u
#define SRCFG_META 0x400u
/* (DEDICATEDRESOURCE is accepted and sets access = SRCFG_DEDICATED.) */

enum srcfg_access {
    SRCFG_SHARED,   /* may overlap other (non-job) reservations: the default */
    SRCFG_DEDICATED /* other reservations block it */
};

/* Resources of one reserved task. procs -1 = every processor of the node (a
 * task is a whole node: the default); mem, disk, swap in MB, 0 = none asked. */
struct srcfg_res {
    long procs, mem, disk, swap;
};

#endif
