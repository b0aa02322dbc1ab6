/*
 * slurm_dl — libslurm loaded when the Slurm resource manager starts, so
 * that moku runs without Slurm installed (slurm_dl.c says how).
 */
#ifndef MOKU_RM_SLURM_DL_H
#define MOKU_RM_SLURM_DL_H

#include "util/err.h"

/* Load libslurm and every function the Slurm driver calls: 0, or -1 with
 * what is missing ("RMCFG TYPE=SLURM needs libslurm.so.38 ..."). Again
 * after a success: 0 at once. */
int slurm_dl_load(struct err *err);

#endif
