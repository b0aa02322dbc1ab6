/*
 * report — what a simulation measured, and its three outputs: the readable
 * report, one JSON object, and a CSV row per job.
 *
 * Metrics over the jobs that ran to their end (rejected and skipped jobs are
 * counted, not measured; a replay stopped early leaves out jobs still running):
 *   makespan     last end - first submit, seconds
 *   utilization  processor-seconds used / (processors x makespan)
 *   wait         start - submit
 *   bsld         bounded slowdown max(1, (wait + run) / max(run, 10 s))
 *   xfactor      Maui's expansion factor (wait + walltime) / walltime
 */
#ifndef MOKU_REPORT_H
#define MOKU_REPORT_H

#include <stdio.h>

#include "sim/sim.h"
#include "sim/workload.h"

struct report {
    size_t jobs, skipped, rejected;
    long makespan;
    double utilization;
    double avg_wait;
    long max_wait;
    double avg_bsld;
    double avg_xfactor;
    long backfilled;
    long iterations;
    double wall_seconds;
    long long procs; /* processors in the cluster */
    size_t nodes;
};

/* Compute the metrics from a finished replay. */
void report_compute(struct report *r, const struct workload *wl, const struct sim_outcome *out,
                    long long procs);

void report_print_text(FILE *f, const struct report *r, const char *trace, const char *policy);
void report_print_json(FILE *f, const struct report *r);
/* Returns 0, or -1 if writing failed. */
int report_write_jobs_csv(FILE *f, const struct workload *wl, const struct sim_outcome *out);

#endif
