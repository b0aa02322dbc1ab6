/*
 * simulate_int — what moku simulate's files share: the options, one run of
 * a comparison, the output files (simulate.c), the parallel runner and the
 * runs saved apart (simpar.c). Not an API: only src/cli/sim*.c include it.
 */
#ifndef MOKU_SIMULATE_INT_H
#define MOKU_SIMULATE_INT_H

#include <stdio.h>

#include "engine/engine.h"
#include "sim/estimate.h"
#include "sim/plot.h"
#include "sim/report.h"
#include "sim/sim_script.h"
#include "sim/workload.h"
#include "util/obuf.h"

#define MAX_SHOWS 64
#define MAX_CONFIGS 32 /* --config files */
#define MAX_SETS 64    /* --set lines */
#define MAX_VALUES 32  /* --compare values */
#define MAX_GRID 2     /* --compare parameters: a grid of one or two */
#define MAX_RUNS 64    /* configurations x values */

struct sim_opts {
    const char *configs[MAX_CONFIGS]; /* --config, each one run (none: Maui's defaults) */
    int nconfigs;
    const char *sets[MAX_SETS]; /* --set lines, applied to every run after its file */
    int nsets;
    /* --compare PARAM=V1,V2 (given once or twice: a grid): the lines
     * "PARAM=Vi" of each parameter, owned */
    char *compare[MAX_GRID][MAX_VALUES];
    int ncompare[MAX_GRID];
    int ngrid;              /* --compare options given */
    int classes;            /* --classes: per-class breakdowns in a one-run report */
    const char *plot;       /* --plot FILE.svg */
    const char *series;     /* --series FILE.csv */
    const char *html;       /* --html FILE.html */
    const char *swf_out;    /* --swf-out FILE.swf (several runs: one file each, sim_swf_path) */
    const char *batsim_out; /* --batsim-out FILE.csv */
    const char *jobs_out;
    const char *resv_out; /* --resv-out */
    const char *trace;
    const char *resources;  /* --resources, else SIMRESOURCETRACEFILE when set */
    const char *fs_history; /* --fs-history DIR: fairshare history read before the replay */
    const char *fs_out;     /* --fs-out DIR: the replay's fairshare windows written after it */
    long long nodes, ppn, procs;
    int json;
    int strict;
    int no_swf_deps;      /* --no-swf-deps: SWF fields 17/18 not replayed */
    long long every;      /* --iterate-every N: an iteration at every multiple of N s too */
    int full_walk;        /* --full-walk: eligibility over the whole queue at every iteration */
    long until;           /* SIM_FOREVER unless --until */
    const char *commands; /* --commands FILE: the timed command script */
    int quiet;            /* --quiet: log only the script's failing commands */
    const char *timezone; /* --timezone: the calendar of standing reservations */
    const char *shows[MAX_SHOWS];
    int nshows;
    struct estimate estimates; /* --estimates MODEL */
    long warmup, cooldown;     /* --warmup, --cooldown: seconds, -1 none */
    double bsld_tau;           /* --bsld-tau, 0: the default 10 s */
    int recorded;              /* --recorded: the log's own schedule as a column */
    int plan;                  /* --plan: list the runs, replay nothing */
    long workers;              /* --jobs N: worker processes, 0: one per processor */
    int run_only;              /* --run K (from 1): replay only that run, 0: all */
    const char *save_run;      /* --save-run FILE: that run's results, not a report */
    char *key;                 /* the command line without --run, --save-run, --jobs
                                  (what the runs of one comparison share); owned */
    char *home_cfg;            /* a moku home's maui.cfg, its configuration when no
                                  --config is given; owned */
};

/* The output files, opened before the first replay so that a path that
 * cannot be written costs no replay; NULL when not asked for. */
struct outputs {
    struct obuf *jobs, *batsim, *swf, *series; /* util/obuf: large, hand-formatted */
    FILE *plot, *html;
};

/* One run of a comparison: the workload through one configuration. */
struct run {
    const char *config; /* --config FILE, NULL: Maui's defaults */
    /* the --set lines, then the --compare lines (one per grid parameter) */
    const char *overrides[MAX_SETS + MAX_GRID];
    size_t noverrides;
    int varied;   /* the last `varied` overrides are this run's --compare values */
    int recorded; /* the log's own schedule (--recorded): no replay, no policy */
    struct cfg *cfg;
    struct sched_policy pol;
    char policy[256]; /* as the one-run report prints it */
    struct report report;
    struct plot_series series; /* --plot */
    int progress_fd;           /* a worker process: where its progress goes (simpar.c); 0 none */
    int said;                  /* its set-up's warnings were said (by a streamed replay given
                                  up, simulate.c): not again */
};

/* simulate.c */

/* Replay run idx (from 0) of n and measure it, writing its rows of the
 * per-job outputs to outs (which may hold NULLs); -1 after saying why. */
int sim_replay_run(struct run *r, size_t idx, size_t n, const struct sim_opts *o,
                   const struct workload *wl, const struct sim_script *script,
                   const struct outputs *outs);
/* An output file, or NULL after saying why; closing one, -1 after saying
 * why when anything written was lost. */
FILE *sim_open_out(const char *path);
struct obuf *sim_open_obuf(const char *path);
int sim_close_obuf(struct obuf *b);
int sim_close_out(FILE *f, const char *path);
/* --swf-out's file for run idx (from 0) of n (caller frees): the name
 * itself for one run; else its "%d" replaced by idx + 1, or ".N" put before
 * its extension. */
char *sim_swf_path(const char *name, size_t idx, size_t n);
/* The BACKFILLPOLICY's name. */
const char *sim_backfill_name(enum bf_policy b);
/* The processors and nodes of run r's cluster; -1 after saying why. */
int sim_cluster_size(const struct run *r, const struct sim_opts *o, const struct workload *wl,
                     long long *procs, size_t *nodes);
/* Whether the options want the state over time (--plot, --series, --html),
 * and a series' start (bins over the submissions up to until). */
int sim_wants_series(const struct sim_opts *o);
void sim_start_series(struct plot_series *p, const struct workload *wl, long until);
/* A monotonic clock, seconds; the progress bar of one replay. */
double sim_wall_now(void);
void sim_progress_bar(void *ctx, size_t done, size_t total);

/* The runs the options ask for, planned into runs (MAX_RUNS): their
 * configuration files and override lines; their number. */
size_t sim_plan_runs(const struct sim_opts *o, struct run *runs);
/* Open the output files asked for (none of them when saving a run); close
 * them, -1 when anything written was lost. */
int sim_open_outputs(const struct sim_opts *o, struct outputs *w);
int sim_close_outputs(const struct sim_opts *o, struct outputs *w);
/* Free what sim_parse_key filled. */
void sim_free_key_opts(struct sim_opts *o, char **argv);
/* --merge --recorded: run r's configuration and the workload, read again. */
int sim_load_for_merge(const struct sim_opts *o, struct run *r, struct workload *wl);

/* simreport.c */

/* The report of the runs (one, or side by side), on stdout. */
void sim_print_reports(struct run *runs, size_t n, const struct sim_opts *o);
/* --plot, --series, --html: a line (rows, a column) per run; errors surface
 * when the files are closed. */
void sim_write_series(const struct run *runs, size_t n, const struct sim_opts *o,
                      const struct outputs *outs);
/* The recorded run: the log's own schedule measured as a replay is (its
 * report, its series when the options want one, and its rows of the jobs
 * CSV when jobs is not NULL). rec + 1 is the first replay (its cluster). */
void sim_recorded(struct run *rec, const struct sim_opts *o, const struct workload *wl,
                  struct obuf *jobs);
/* moku simulate --merge FILE...: the report of a comparison whose runs were
 * saved apart (--run K --save-run FILE); the exit status. */
int sim_merge(int nfiles, char **files);
/* Parse a comparison's key (sim_opts.key) back into options (simulate.c);
 * -1 after saying why. */
int sim_parse_key(const char *key, struct sim_opts *o, char ***argv_out);

/* simpar.c */

/* The number of worker processes for n runs: --jobs, else one per
 * processor, at most n. */
long simpar_workers(const struct sim_opts *o, size_t n);

/*
 * Replay the runs in worker processes (fork: each has the workload, builds
 * its own scheduler, writes its results back), `workers` at a time. Each
 * run's report and series land in runs[i] as if replayed here; its rows of
 * the jobs CSV and Batsim outputs are appended to outs in run order, and
 * what it wrote to standard error is copied there in run order, so the
 * outputs are byte for byte a sequential replay's. On a terminal a progress
 * line shows the jobs submitted across the runs. A run that fails stops
 * the rest (the others are ended) after the logs of those before it and its
 * own: -1.
 */
int simpar_replay(struct run *runs, size_t n, long workers, const struct sim_opts *o,
                  const struct workload *wl, const struct sim_script *script,
                  const struct outputs *outs);

/* Replay run idx of n and write its results to f (sim/runsave.h): the
 * worker's and --save-run's. -1 after saying why. */
int simpar_save_run(struct run *r, size_t idx, size_t n, const struct sim_opts *o,
                    const struct workload *wl, const struct sim_script *script, FILE *f);

#endif
