/*
 * val — the schedule validator (`moku validate`): reads a workload trace,
 * the configuration and a jobs CSV (moku's `simulate --jobs-out`, or another
 * simulator's in the same format, docs/validate.md) and checks that the
 * schedule it describes could have happened:
 *
 *   - no node holds more processors than it has, at any instant (last runs
 *     and earlier segments alike), on nodes the cluster has;
 *   - every start is at or after the job's submission, and outside the holds
 *     the --commands script put on it (sethold until releasehold or runjob);
 *   - every job that ran to its end ended at start + min(runtime, walltime +
 *     JOBMAXOVERRUN), its state saying which ("completed" or "killed");
 *   - the trace's facts (submission, processors, walltime, runtime) are the
 *     CSV's, and the processors on its nodes add up to its request;
 *   - HARD throttling limits (MAXJOB, MAXPROC, MAXPS of USERCFG, GROUPCFG,
 *     ACCOUNTCFG, CLASSCFG, QOSCFG, with DEFAULT) hold at every start;
 *   - no job runs on a reserved node whose reservation's ACL does not admit
 *     it (--reservations: `simulate --resv-out`).
 * What it cannot check is said once ("not checked: ..."), never skipped in
 * silence.
 *
 * It shares no code with the engine (src/core, src/policy) or the simulator
 * (src/sim): it reads the files with src/cfg and src/trace and decides
 * everything itself, so the engine's mistakes are not repeated here.
 */
#ifndef MOKU_VAL_H
#define MOKU_VAL_H

#include <stdio.h>

#include "util/err.h"

struct val_opts {
    const char *trace;       /* SWF, Maui workload, sacct, Torque accounting, a moku home */
    const char *jobs;        /* the jobs CSV */
    const char *config;      /* maui.cfg, or NULL */
    const char *const *sets; /* --set lines */
    size_t nsets;
    const char *commands;        /* the --commands script of the replay, or NULL */
    const char *resvs;           /* the reservations CSV, or NULL */
    long long nodes, ppn, procs; /* the cluster, as simulate's options (0 = not given) */
    const char *resources;       /* a Maui resource trace (simulate --resources), or NULL */
    const char *estimates;       /* simulate --estimates MODEL, or NULL (request) */
    int no_swf_deps;             /* simulate --no-swf-deps: SWF field 17 not checked */
};

/*
 * Validate. Violations are printed to out, one line each
 * ("JOBS.csv:LINE: job ID: ..."), then notes ("not checked: ...") and a
 * summary line. Returns 0 when the schedule is valid, 1 when some check
 * failed, -1 with err (file:line) when an input cannot be read.
 */
int val_run(const struct val_opts *o, FILE *out, struct err *err);

#endif
