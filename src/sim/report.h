/*
 * report — what a simulation measured, and its outputs: the readable
 * report, one JSON object, a CSV row per job, and the side-by-side report
 * of several runs of one workload (moku simulate with several
 * configurations).
 *
 * Metrics over the jobs that ran to their end (rejected, skipped and
 * never-started jobs are counted, not measured; a replay stopped early
 * leaves out jobs still running):
 *   makespan     last end - first submit, seconds
 *   utilization  processor-seconds used / (processors x makespan); with a
 *                window, the processor-seconds inside it over its length
 * With a window (--warmup, --cooldown) only the jobs submitted inside it
 * are measured (the others are simulated and counted as excluded). The
 * bounded slowdown's bound tau is the report's (--bsld-tau, 10 s).
 *   wait         start - submit
 *   bsld         bounded slowdown max(1, (wait + run) / max(run, tau))
 *   fairness     Jain's index (sum w)^2 / (n sum w^2) of the users' average
 *                waits w (1 when every w is 0)
 *   xfactor      Maui's expansion factor (wait + walltime) / walltime
 * The same jobs are broken down by class: by the processors they asked for
 * (powers of 4: 1, 2-4, 5-16, 17-64, 65-256, >256) and by the time they ran
 * in the simulation (<10m, 10m-1h, 1h-4h, 4h-1d, >=1d), each class with its
 * job count, average wait and average bounded slowdown.
 */
#ifndef MOKU_REPORT_H
#define MOKU_REPORT_H

#include <stdio.h>

#include "sim/sim.h"
#include "sim/workload.h"
#include "util/obuf.h"

#define REPORT_NSIZE 6    /* job size classes, by processors */
#define REPORT_NRUNTIME 5 /* job length classes, by runtime */
#define REPORT_NQUANT 201 /* quantiles kept per distribution: q = i / 200 */

/* The distributions a report keeps quantiles of. */
enum report_dist { REPORT_WAIT, REPORT_BSLD, REPORT_TURNAROUND, REPORT_NDIST };

/* A class holds the values lo..hi; hi = -1: no upper bound. */
struct report_bound {
    const char *name; /* "2-4", "10m-1h", as printed and in JSON */
    long long lo, hi;
};

/* The class tables: REPORT_NSIZE and REPORT_NRUNTIME entries, static storage. */
const struct report_bound *report_size_bounds(void);
const struct report_bound *report_runtime_bounds(void);
/* The class of a job asking for procs processors (procs >= 1; less counts
 * as 1), and of one that ran runtime seconds (< 0 counts as 0). */
int report_size_class(long long procs);
int report_runtime_class(long runtime);

struct report_class {
    size_t jobs;
    double avg_wait, avg_bsld; /* 0 when the class has no jobs */
};

/* The jobs of one credential (a user, a class): their count, the
 * processor-seconds they used, and averages. */
struct report_group {
    char *name; /* owned */
    size_t jobs;
    double proc_seconds;
    double avg_wait, avg_bsld;
};

/*
 * A report owns its group lists (report_free); copying one by value shares
 * them, and only one copy may be freed.
 */
struct report {
    /* Set by the caller before report_compute (zero: the defaults). */
    double bsld_tau; /* the bounded slowdown's bound, seconds (0: 10 s) */
    int windowed;    /* measure only the jobs submitted in [window_lo, window_hi] */
    long window_lo, window_hi;

    size_t jobs, skipped, rejected;
    size_t unfinished;    /* of the skipped, jobs not finished when the log was taken */
    size_t excluded;      /* jobs that ran but were submitted outside the window */
    double wait_fairness; /* Jain's index of the users' average waits: 1 all equal,
                             1/n one user waits, the others not */
    size_t never_started; /* still waiting when the replay ended: no event left could start them */
    long makespan;
    double utilization;
    double avg_wait;
    long max_wait;
    double avg_bsld;
    double avg_xfactor;
    long backfilled;
    long iterations;
    double wall_seconds;
    double read_seconds; /* reading the trace, before the replay (the same for every run) */
    long long procs;     /* processors in the cluster */
    /* Fairshare history read before the replay (moku simulate --fs-history,
     * or STATDIR set in the configuration): its directory (borrowed) and the
     * windows read from it; fs_history "" when none was asked for. A copy,
     * not a pointer, so that a worker's or a job array's saved report
     * (sim/runsave.c) carries it. Not touched by report_compute. */
    char fs_history[4096];
    int fs_windows;
    size_t nodes;
    struct report_class by_size[REPORT_NSIZE];
    struct report_class by_runtime[REPORT_NRUNTIME];
    /* Nearest-rank quantiles of each distribution over the jobs measured:
     * quant[d][i] is the smallest value v with at least i/200 of the jobs
     * at or below v (quant[d][0] the minimum, [200] the maximum; all 0
     * without jobs). Wait and turnaround (wait + run) in seconds. */
    double quant[REPORT_NDIST][REPORT_NQUANT];
    /* The jobs measured by user and by class (the engine's names), most
     * processor-seconds first (then most jobs, then by name). */
    struct report_group *users, *classes;
    size_t nusers, nclasses;
};

/*
 * Compute the metrics (classes, quantiles and groups included) from a
 * finished replay. s is the scheduler the replay ran (its credential
 * tables name the jobs whose engine records were forgotten); NULL takes
 * the names from the workload (a job without one counts as "DEFAULT").
 * Frees what r held before. The quantiles are computed in a thread of
 * their own meanwhile, joined before it returns.
 */
void report_compute(struct report *r, const struct workload *wl, const struct sim_outcome *out,
                    long long procs, const struct sched *s);
/* Free the group lists (r itself is the caller's); r may be zeroed. */
void report_free(struct report *r);
/* The p-th percentile (0..100, whole or half) of distribution d. */
double report_percentile(const struct report *r, enum report_dist d, double p);
/* "wait", "bsld", "turnaround": the distribution's name in JSON. */
const char *report_dist_name(enum report_dist d);

void report_print_text(FILE *f, const struct report *r, const char *trace, const char *policy);
/* The per-class section of the one-run text report (moku simulate --classes),
 * printed after report_print_text: a blank line, then one table per kind of class. */
void report_print_classes_text(FILE *f, const struct report *r);
/* One JSON object and a newline: the metrics, "percentiles" (p50, p95, p99
 * of each distribution), "by_user" and "by_class" (every group); with
 * classes set it ends with a "classes" key. */
void report_print_json(FILE *f, const struct report *r, int classes);

/*
 * One run of several. Borrowed pointers; overrides are the configuration
 * lines applied after the file, in order: the --set lines, then the run's
 * own --compare lines ("PARAM=VALUE"), `varied` of them (0, 1 or 2: a grid).
 * A recorded run is the schedule the log itself holds (--recorded): no
 * policy, no overrides; it is shown first, unnumbered.
 */
struct report_run {
    const char *config; /* the --config file as given, NULL = Maui's defaults */
    const char *const *overrides;
    size_t noverrides;
    int varied;
    int recorded;
    int pareto;           /* set by report_pareto */
    const char *backfill; /* the BACKFILLPOLICY in effect */
    int resdepth;         /* the RESERVATIONDEPTH in effect */
    struct report r;
};

/* Mark the Pareto front: a run is on it (pareto = 1) when no other run is
 * as good on all of average wait, average bounded slowdown, utilization
 * and wait fairness (lower, lower, higher, higher), and better on one. */
void report_pareto(struct report_run *runs, size_t n);

/* The side-by-side text report: a column per run, a row per metric, the
 * per-class, per-user and per-class-of-job rows, then the front: a row
 * per run with the four measures, the front marked. */
void report_print_runs_text(FILE *f, const char *trace, const struct report_run *runs, size_t n);
/* {"recorded":{...},"runs":[{"config":...,"overrides":[...], the one-run keys,
 * "classes":{...},"pareto":true|false}, ...]} ("recorded" only with one). */
void report_print_runs_json(FILE *f, const struct report_run *runs, size_t n);

/*
 * A CSV row per workload job (docs/simulation.md has the columns):
 * when and where it ran, its credentials as the engine saw them, its final
 * state (completed, killed, cancelled, preempted, running, never_started,
 * rejected) and, for one that never ran, why. s is the scheduler the replay
 * left (its jobs are the outcomes' `job`), now the replay's last instant.
 * run 0: the one-run file. run >= 1: rows of run number `run` with a
 * leading "run" column, so the runs of a comparison append to one file in
 * turn. header: the header line first (the first run's rows, unless the
 * recorded schedule's came before). Fields are quoted as RFC 4180 says when
 * they hold a comma, a quote or a line break. Returns 0, or -1 if writing
 * failed.
 */
int report_write_jobs_csv(struct obuf *f, const struct workload *wl, const struct sim_outcome *out,
                          struct sched *s, long now, int run, int header);
/* The same a row at a time, as the replay goes: each row is written, in the
 * workload's order, once its outcome is final (sim_hooks.final), so that
 * neither the rows nor the nodes they name are kept for the replay's end.
 * open writes the header; rows writes those of the jobs before `to` not
 * written yet; close writes the rest (now: the replay's last instant, for
 * the reasons of jobs that never ran), frees c and returns as above.
 * The rows given to rows are copied (what a row names of the engine and
 * the outcome, made now) and formatted into f by a writer thread (rowq.h),
 * in blocks, or in place when it cannot start: f is the thread's until
 * close or drop returns. After a write failed, rows copies nothing more. */
struct report_jobs_csv;
struct report_jobs_csv *report_jobs_csv_open(struct obuf *f, const struct workload *wl,
                                             struct sched *s, int run, int header);
void report_jobs_csv_rows(struct report_jobs_csv *c, const struct sim_outcome *out, size_t to);
int report_jobs_csv_close(struct report_jobs_csv *c, const struct sim_outcome *out, long now);
/* Free it, the rows left unwritten (a replay given up): its writer thread
 * ended, so before f is closed. */
void report_jobs_csv_drop(struct report_jobs_csv *c);
/* The header (with the run column) and the rows of the schedule the log
 * recorded (moku simulate --recorded), run "recorded": its starts and ends,
 * the trace's names, state completed, running (not ended by --until) or
 * never_started (no start recorded); no nodes. */
int report_write_recorded_csv(struct obuf *f, const struct workload *wl,
                              const struct sim_outcome *out);

/* The job's final state as the jobs CSV's `state` column says it:
 * completed, killed, cancelled, preempted, running, never_started, rejected
 * (s: the scheduler that ran it, or NULL). */
const char *report_final_state(const struct sim_outcome *o, const struct sched *s);
/* A writer's lookup of its rows' credentials: s (may be NULL) and, for
 * the jobs it forgot, the last looked up (consecutive jobs mostly share
 * theirs: a user's jobs come in bursts). Zeroed but for s to start. */
struct report_creds {
    const struct sched *s;
    unsigned short raw[CRED_NKINDS];      /* the last forgotten job's sim_outcome.cred */
    int wide;                             /* raw has a SIM_CRED_WIDE: its indices differ */
    unsigned idx[CRED_NKINDS];            /* its indices */
    const struct cred *last[CRED_NKINDS]; /* and what they name in s */
    int have;                             /* last holds them */
};
/* The job's credentials (user, group, account, class, qos; NULL where
 * unknown): its engine record's, else, once it ended and its record was
 * forgotten, s's tables' (looked up when they differ from the last). */
void report_job_creds(struct report_creds *rc, const struct sim_outcome *o,
                      const struct cred *creds[CRED_NKINDS]);
/* One CSV field (NULL: empty), quoted when it must be (RFC 4180). */
void report_csv_field(struct obuf *f, const char *v);
/* A job's id as one (a number written straight, without its text). */
void report_id_field(struct obuf *f, const struct workload *wl, const struct wl_job *w);
/* The same, then room for `room` bytes in place (obuf_reserve): returns
 * where the row goes on, to be taken with obuf_commit. Inline: two rows
 * (the jobs CSV's, Batsim's) of every job begin with it; an id that is
 * text goes through report_id_room_text. */
char *report_id_room_text(struct obuf *f, const struct workload *wl, const struct wl_job *w,
                          size_t room);
static inline char *report_id_room(struct obuf *f, const struct workload *wl,
                                   const struct wl_job *w, size_t room)
{
    if (w->id < WL_ID_TEXT) /* a number, the common id: in place with what follows */
        return obuf_fmt_ll(obuf_reserve(f, OBUF_LL_ROOM + room), w->id);
    return report_id_room_text(f, wl, w, room);
}

#endif
