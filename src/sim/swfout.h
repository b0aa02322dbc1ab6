/*
 * swfout — a replay's schedule as a Standard Workload Format file (moku
 * simulate --swf-out), so that the tools that read the Parallel Workloads
 * Archive's logs can read a simulated one, and moku can replay it again.
 *
 * The simulated fields are 3 (wait: start - submit), 4 (run time: end -
 * start), 5 (allocated processors) and 11 (status: 1 completed, 0 killed
 * at its limit, 5 cancelled, rejected or never started, -1 still running
 * when the replay stopped); a job that did not start has -1 in 3, 4 and 5.
 * The other fields are the trace's: an SWF trace's records, kept as they
 * were read (workload_read_swf's WL_KEEP_RECS), are written with their
 * other fields as they were (a record the replay skipped keeps its fields,
 * with -1 as its wait); a Maui workload
 * trace's jobs are numbered 1, 2, ... in submit order, and names that are
 * not numbers (users, groups, classes) numbered by first appearance, the
 * numbering given in header comments. Lines come in the trace's order.
 *
 * What it is not: a converter that keeps comments or unknown header lines
 * of the trace (the header is its own: provenance, the cluster, the epoch).
 */
#ifndef MOKU_SWFOUT_H
#define MOKU_SWFOUT_H

#include <stdio.h>

#include "sim/sim.h"
#include "sim/workload.h"
#include "util/err.h"
#include "util/obuf.h"

/* What the header says. Borrowed strings; NULL: not said. */
struct swfout_info {
    const char *trace;      /* the trace replayed (its path) */
    const char *config;     /* the configuration (file, or "defaults") */
    const char *policy;     /* one line on the policy */
    long long nodes, procs; /* the cluster: MaxNodes, MaxProcs */
    long long unix_start;   /* UnixStartTime, < 0: unknown */
    const char *tz;         /* TimeZoneString, "" or NULL: unknown */
};

/*
 * Write the file: header comments, then a line per trace record (wl->recs
 * when the workload kept them: an SWF trace's; else its jobs, as a Maui
 * trace's). out has wl->njobs entries (sim_run's). Returns 0, or -1 with err
 * set when writing failed.
 */
int swfout_write(struct obuf *f, const struct workload *wl, const struct sim_outcome *out,
                 const struct swfout_info *info, struct err *err);

#endif
