/*
 * workload_acct — the simulator's workload from a site's own accounting:
 * Slurm's sacct output (trace/sacct.h), Torque's accounting log
 * (trace/tacct.h) and a moku home's history (trace/homelog.h). The
 * conventions (docs/simulation.md, "Accounting logs"):
 *
 *   job id      sacct JobID ("12", "12_3", "12+1"), Torque's job id, the
 *               home's job number
 *   submit      Submit; Torque qtime (else ctime, etime); the home's submit:
 *               epoch seconds, as in a Maui trace
 *   runtime     End - Start (what the job held its processors for)
 *   walltime    Timelimit, Resource_List.walltime, the home's walltime (its
 *               daemon's default, 1 day, when none was asked); else the
 *               runtime; at least 1 s
 *   processors  sacct NCPUS (ReqCPUS when there is no NCPUS column);
 *               Torque total_execution_slots, else the slots of exec_host,
 *               else Resource_List.procs, .nodes (N:ppn=P), .ncpus; the
 *               home's tasks (nodes=N:ppn=P: N tasks of P processors, each on
 *               its own node, as the daemon asks)
 *   nodes       NNodes, Resource_List.nodect, the home's node count
 *   memory      ReqMem (per job, CPU or node) and Resource_List.mem per job,
 *               shared among the tasks; the home's mem
 *   credentials user, group, account, class = the partition (sacct) or the
 *               queue (Torque, the home's class), QOS (sacct, the home)
 *   recorded    Start: the schedule the log holds (--recorded measures it)
 *
 * Counted, never replayed: job steps (sacct); jobs not finished when the
 * log was taken (sacct PENDING, RUNNING, SUSPENDED, REQUEUED, RESIZING; the
 * home's queued and running jobs): `unfinished`, part of `skipped`; jobs
 * that never ran (no start, sacct NCPUS 0: cancelled while pending): part
 * of `skipped`. Skipped, or under strict errors naming the file and line
 * (the home: its database and the job): a job with no processors, no
 * submit time, or an end before its start; in a Torque log an exit record
 * for a job id already seen.
 */
#ifndef MOKU_WORKLOAD_ACCT_H
#define MOKU_WORKLOAD_ACCT_H

#include "sim/workload.h"
#include "util/err.h"

/* Each loader: the workload from the file (the home: the directory) at
 * path, sorted by submit time then job id; on error -1 with *wl empty and
 * err "<path>:<line>: ...". max_nodes, max_procs stay 0 (the cluster comes
 * from maui.cfg or --nodes/--procs) and unix_start -1 (times are epoch). */
int workload_from_sacct(const char *path, int strict, struct workload *wl, struct err *err);
int workload_from_torque(const char *path, int strict, struct workload *wl, struct err *err);
int workload_from_home(const char *dir, int strict, struct workload *wl, struct err *err);

#endif
