/*
 * slurm_int — what the files of the Slurm resource manager share: its state
 * (the last reads of the queue, the nodes and the reservations), the calls
 * to slurmctld, and the three parts behind rm_slurm_ops:
 *
 *   slurm.c          connecting, the nodes, a job's start, cancel,
 *                    suspension and requeue
 *   slurm_status.c   a job's status: running (and where: Slurm's own
 *                    allocation read back), starting, a start Slurm did not
 *                    carry out and why, ended; holds mirrored both ways
 *   slurm_intake.c   the queue: held jobs taken in with their shape, holds
 *                    and partition limits, job arrays split, dependencies
 *                    evaluated; Slurm's reservations
 *   slurm_submit.c   moku submit into Slurm, as the caller
 *
 * Only these include <slurm/slurm.h> (libslurm's ABI changes with each
 * release: another Slurm means rebuilding moku).
 */
#ifndef MOKU_RM_SLURM_INT_H
#define MOKU_RM_SLURM_INT_H

#include <stdint.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include "rm/slurm.h"

/* A requeue of a job, first seen at `seen`: its restart count then. */
struct requeue {
    uint32_t id;
    uint16_t restarts;
    long seen;
};

/* A job moku released and has not yet seen running. */
struct release {
    uint32_t id;
    long at;
    uint16_t restarts; /* its restart count then: a higher one is a requeue */
};

/* A node's state as moku was last told it. */
struct known_node {
    char *name, *reason;
    enum node_state state;
    char *features; /* as moku has them: Slurm's, and partition=P for each partition */
};

/* One job of the snapshot, found by id. */
struct by_id {
    uint32_t id;
    size_t at;
};

struct slurm_rm {
    job_info_msg_t *jobs; /* the last snapshot of the queue, NULL before the first */
    struct by_id *index;  /* jobs by id, sorted */
    size_t nindex;
    node_info_msg_t *nodes;   /* the last read of the nodes */
    struct known_node *known; /* each node's state as last told, by name */
    size_t nknown, capknown;
    int unread; /* the snapshot has not been through intake yet */
    int stale;  /* a job was changed since the snapshot: read before a status */
    struct release *rel;
    size_t nrel, caprel;
    struct requeue *rq; /* requeues seen, each kept to the job's end (slurm_status.c) */
    size_t nrq, caprq;
    reserve_info_msg_t *resvs;   /* the last read of the reservations */
    partition_info_msg_t *parts; /* the last read of the partitions (their limits) */
    int mem_tracked;             /* memory is a consumable resource (SelectTypeParameters
                                    CR_*_Memory): jobs' memory is booked */
    int whole_nodes;             /* select/linear: every job gets whole nodes */
    int detail;                  /* iterations (intakes) to come whose reads of the queue bring
                                    each job's allocation (SHOW_DETAIL): moku's books are checked
                                    against Slurm's for every running job */
    int detailed;                /* the snapshot has the allocations */
    char *placed;                /* rm_status.placed's text, until the next status */
    char **ctld;                 /* slurmctld's addresses (SlurmctldHost), for srm_ctld_up */
    size_t nctld;
    unsigned ctld_port;
};

/* libslurm's last error, as text. */
const char *srm_error(void);
/* Whether slurmctld takes connections (0), else -1 with err: see slurm.c. */
int srm_ctld_up(const struct slurm_rm *sr, struct err *err);
/* Job id in the last read of the queue, or NULL. */
slurm_job_info_t *srm_find_job(const struct slurm_rm *sr, uint32_t id);
/* Read the queue again when it changed: 1 changed, 0 not, -1 error. */
int srm_refresh(struct slurm_rm *sr, struct err *err);
/* When moku released job id (its start), or -1 when it did not. */
long srm_release_at(const struct slurm_rm *sr, uint32_t id);
void srm_release_drop(struct slurm_rm *sr, uint32_t id);
/* Hold job id (priority 0, Slurm's user hold: moku's queue), clearing what
 * a start set. */
int srm_hold(struct slurm_rm *sr, uint32_t id, struct err *err);
/* The release record of job id, or NULL. */
struct release *srm_release_of(struct slurm_rm *sr, uint32_t id);
/* Parse a Slurm job id ("42"). */
int srm_parse_id(const char *id, uint32_t *out, struct err *err);
/* The word in a job's comment that is its user's hold (contrib/slurm/
 * job_submit.lua), what is left of a comment that was that word only
 * (Slurm cannot empty a comment), and the admin comment an administrator's
 * scontrol release becomes. */
#define SRM_USER_HOLD "moku-hold"
#define SRM_UNMARKED "moku-released"
#define SRM_ADMIN_RELEASE "moku-release"
/* The admin comment of a job moku has nothing to say of (Slurm cannot empty
 * one either). */
#define SRM_NO_NOTE "-"
/* RM_HOLD_USER, RM_HOLD_SYSTEM: the holds Slurm has on pending job x (its user's
 * mark, an administrator's JobHeldAdmin). */
unsigned srm_holds_of(const slurm_job_info_t *x);
/* Slurm's partitions as node features: "partition=P" on every node of P,
 * and a job of partition P requires it (a node may be in several). */
#define SRM_PART_FEATURE "partition="
/* word stands alone in text (between spaces or the ends). */
int srm_has_word(const char *text, const char *word);

/* slurm_intake.c: rm_ops intake and resvs. */
int srm_intake(void *ctx, long now, const struct rm_intake *in, struct err *err);
int srm_resvs(void *ctx, long now, int all, void (*fn)(void *, const struct rm_resv *), void *fnctx,
              struct err *err);
/* slurm_submit.c: rm_ops submit. */
int srm_submit(void *ctx, const struct rm_submit *s, long *id, struct err *err);
/* slurm_status.c: rm_ops status and hold_sync. */
int srm_status(void *ctx, const char *id, long now, struct rm_status *st, struct err *err);
int srm_hold_sync(void *ctx, const char *id, unsigned holds, const char *note, struct err *err);

#endif
