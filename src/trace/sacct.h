/*
 * sacct — reader for Slurm's accounting as `sacct --parsable2` prints it
 * (`-P`: fields separated by '|', a header line naming them).
 *
 * The header decides which column is which (names as `sacct --helpformat`
 * gives them, any case; columns it does not use are passed over), so any
 * --format that has the columns below is read. Each job line comes back as
 * one record: times as epoch seconds, durations as seconds, memory as MB,
 * the state as a value, names as text. Job steps (JobID "12.batch",
 * "12.0", "12.extern") are not jobs: they are counted and passed over.
 * Array tasks ("12_3") and the parts of a heterogeneous job ("12+1") are
 * jobs of their own. Like swf and mtrace, this layer only reads: it does
 * not decide which jobs can be replayed (sim/workload_acct.c does).
 *
 * Formats (Slurm 22.05, sacct(1)):
 *   Submit, Start, End  YYYY-MM-DDTHH:MM:SS, read as UTC (run sacct with
 *                       TZ=UTC: local times jump at daylight-saving changes),
 *                       or epoch seconds (SLURM_TIME_FORMAT=%s);
 *                       "Unknown", "None" or empty: not known (-1)
 *   Timelimit           [DD-[HH:]]MM:SS; "UNLIMITED", "Partition_Limit" or
 *                       empty: none given (-1)
 *   ReqMem              a number, a unit K, M (the default), G, T or P
 *                       (powers of 1024), then "c" (per CPU) or "n" (per
 *                       node) as Slurm before 21.08 wrote it; without: per job
 *   State               COMPLETED, CANCELLED (also "CANCELLED by 1000"), ...
 *                       (sacct(1)'s JOB STATE CODES; a trailing '+' is dropped)
 *   ExitCode            code:signal
 * Errors name the file, the line and the column: a line with another number
 * of fields than the header (a '|' inside a field: leave JobName out of
 * --format), a value that is not of its column's format, a header without
 * JobID, Submit, Start, End, State, or NCPUS (AllocCPUS) and ReqCPUS both, a file
 * whose first line is a job line (sacct -n: no header to name the columns).
 */
#ifndef MOKU_SACCT_H
#define MOKU_SACCT_H

#include <stddef.h>

#include "util/err.h"

/* Slurm's job states (sacct(1), JOB STATE CODES). */
enum sacct_state {
    SACCT_COMPLETED,
    SACCT_FAILED,
    SACCT_TIMEOUT,
    SACCT_CANCELLED,
    SACCT_NODE_FAIL,
    SACCT_OUT_OF_MEMORY,
    SACCT_PREEMPTED,
    SACCT_BOOT_FAIL,
    SACCT_DEADLINE,
    SACCT_REVOKED,
    SACCT_PENDING,
    SACCT_RUNNING,
    SACCT_SUSPENDED,
    SACCT_REQUEUED,
    SACCT_RESIZING,
    SACCT_NSTATES
};

/* One job line. Strings are valid during the callback only; NULL = empty. */
struct sacct_rec {
    const char *id;                     /* JobID (else JobIDRaw) as written */
    const char *user, *group, *account; /* User, Group, Account */
    const char *partition, *qos;        /* Partition, QOS */
    long long submit, start, end;       /* epoch seconds; -1 unknown */
    long long timelimit;                /* seconds; -1 none given */
    long long ncpus;                    /* NCPUS (or AllocCPUS): allocated, 0 for a
                                           job that never ran; -1 empty or no column */
    long long reqcpus;                  /* ReqCPUS; -1 empty or no column */
    long long nnodes;                   /* NNodes; -1 empty or no column */
    double reqmem_mb;                   /* ReqMem in MB; -1 empty or no column */
    char reqmem_per;                    /* 'j' per job, 'c' per CPU, 'n' per node */
    enum sacct_state state;
    int exit_code, exit_signal; /* ExitCode; -1 when empty or no column */
    long line;                  /* in the file, from 1 */
};

/* What a whole file held besides its job lines. */
struct sacct_info {
    size_t steps; /* job-step lines passed over */
};

/* The name of a state as sacct prints it ("COMPLETED"). */
const char *sacct_state_name(enum sacct_state s);

/* Whether the state is one of a job that has not finished: pending,
 * running, suspended, requeued or resizing when the accounting was taken. */
int sacct_state_unfinished(enum sacct_state s);

/*
 * Whether text (one line, NUL-terminated) is a sacct --parsable2 header:
 * '|'-separated, its first field JobID or JobIDRaw (any case).
 */
int sacct_is_header(const char *line);

/*
 * Read the file at path (plain or gzip) record by record: each job line,
 * once whole and good, goes to each(ctx, rec). *info gets what else the
 * file held (may be NULL). Returns 0, or -1 with err "<path>:<line>: ..."
 * on a bad line or when each returns non-zero (each sets err then).
 */
int sacct_scan(const char *path, struct sacct_info *info,
               int (*each)(void *ctx, const struct sacct_rec *rec, struct err *err), void *ctx,
               struct err *err);

#endif
