/*
 * runsave — one replay's results in a file, so that the runs of a
 * comparison can be made apart and reported together: by the parallel
 * runner's worker processes (cli/simpar.c) and by a Slurm job array, one
 * run a task (`moku simulate ... --run K --save-run FILE`), merged by
 * `moku simulate --merge FILE...` (docs/simulation.md).
 *
 * A file holds the comparison it belongs to (its command line, as a key),
 * the run's number and the number of runs, the policy line, the report
 * (metrics, quantiles, groups), the series over time, and the run's rows
 * of the jobs CSV and Batsim outputs when those were asked. Numbers are
 * written as the machine holds them (doubles bit for bit, so a merged
 * report is the one a single process prints): the same moku build, on the
 * same kind of machine, writes and reads them; a file of another build is
 * refused, not misread.
 */
#ifndef MOKU_RUNSAVE_H
#define MOKU_RUNSAVE_H

#include <stdio.h>

#include "sim/plot.h"
#include "sim/report.h"
#include "util/err.h"

struct runsave {
    char *key;       /* the comparison's command line (what the runs share) */
    int k, n;        /* this run (from 0) of n */
    char *policy;    /* the one-line policy */
    char *backfill;  /* BACKFILLPOLICY's name */
    int resdepth;    /* RESERVATIONDEPTH */
    struct report r; /* owns its groups */
    struct plot_series series;
    char *jobs, *batsim; /* the run's rows of --jobs-out and --batsim-out, NULL: none */
    size_t njobs, nbatsim;
};

/*
 * Write s to f (jobs and batsim are byte strings of njobs and nbatsim bytes,
 * NULL for none). Returns 0, or -1 with err when writing failed.
 */
int runsave_write(FILE *f, const struct runsave *s, struct err *err);

/*
 * Read a file written by runsave_write into *s (runsave_free it). path
 * names the file in messages. -1 with err, *s empty, when it is not such a
 * file, was written by another build, or is cut short.
 */
int runsave_read(FILE *f, const char *path, struct runsave *s, struct err *err);

/* Free what runsave_read filled; safe on a zeroed struct. */
void runsave_free(struct runsave *s);

#endif
