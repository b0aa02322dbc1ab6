/*
 * fsacct — what running jobs charge to the fairshare ledger, as drivers may
 * ask it (policy/fsacct.c).
 */
#ifndef MOKU_POLICY_FSACCT_H
#define MOKU_POLICY_FSACCT_H

#include "core/sched.h"

/* Charge j's credentials the fairshare usage of running from `from` to `to`
 * (a job that ended while the daemon was down, after the last saved
 * fairshare checkpoint), into the current window. */
void sched_fs_charge(struct sched *s, const struct job *j, long from, long to);

#endif
