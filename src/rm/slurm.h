/*
 * slurm — Slurm as the resource manager (RMCFG[name] TYPE=SLURM), through
 * libslurm: Slurm keeps the queue and runs the jobs, moku decides which
 * start and where (docs/slurm.md).
 *
 * Every job Slurm's users submit is created held (contrib/slurm/
 * job_submit.lua sets its priority to 0). moku reads the queue and the
 * nodes from slurmctld (only what changed since the last read), takes each
 * held job it has not seen as its own (rm_ops.intake), and starts one by
 * pinning it to the nodes the engine chose and releasing it, in one
 * update: ReqNodeList, NumNodes (tasks per node when even), priority
 * INFINITE; what Slurm then gave it is read back. A released job Slurm
 * keeps pending is held again, told by its reason: retried at once when
 * moku's picture was late, a failed start when the reason stays
 * (slurm_status.c); a pending job moku did not release (Slurm requeued it
 * by itself) is held again. Holds are mirrored both ways.
 *
 * libslurm's ABI changes with every Slurm release: only rm/slurm*.c
 * include <slurm/slurm.h> (through slurm_int.h), so another Slurm means
 * rebuilding moku, nothing more.
 */
#ifndef MOKU_RM_SLURM_H
#define MOKU_RM_SLURM_H

#include "rm/rm.h"
#include "util/err.h"

struct slurm_rm;

/* Connect: conf is slurm.conf's path (NULL: SLURM_CONF, else Slurm's
 * default). Errors name what to fix: slurmctld not answering, a Slurm
 * other than the one moku was built for, no job-submit plugin holding new
 * jobs. */
struct slurm_rm *slurm_rm_open(const char *conf, struct err *err);
void slurm_rm_close(struct slurm_rm *sr);

/* Seconds a released job may stay pending for a reason that passes before
 * its start is taken back and retried (Slurm schedules a release within
 * about a second). */
#define SLURM_START_GRACE 15

/* The resource-manager table (ctx: struct slurm_rm *). */
extern const struct rm_ops rm_slurm_ops;

#endif
