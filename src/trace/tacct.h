/*
 * tacct — reader for Torque's accounting log (server_priv/accounting/
 * YYYYMMDD, one file a day; concatenated, plain or gzip).
 *
 * A line is `MM/DD/YYYY HH:MM:SS;TYPE;JOBID;key=value key=value ...`. The
 * exit records (TYPE E) describe a job that ran: who (user, group,
 * account), where it queued (queue), when (ctime, qtime, etime, start, end:
 * epoch seconds), what it asked (Resource_List.walltime, .nodes, .procs,
 * .ncpus, .nodect, .mem) and what it used (resources_used.walltime, the
 * slots of exec_host, total_execution_slots). The other records (Q, S, D,
 * A, R, C, T, and PBS Pro's) are counted and passed over. A value may be
 * quoted ("..."), as PBS Pro writes values with blanks.
 *
 * This layer only reads: which processor count to trust, what to skip, is
 * the loader's (sim/workload_acct.c). Errors name the file and line: a line
 * that is not of that shape, a date that is not MM/DD/YYYY HH:MM:SS, a
 * value of a key moku uses that is not of its kind (a time, a count, a
 * size such as 4gb, an exec_host list), an unterminated quote.
 */
#ifndef MOKU_TACCT_H
#define MOKU_TACCT_H

#include <stddef.h>

#include "util/err.h"

/* One exit (E) record. Strings are valid during the callback only; NULL =
 * not in the record; numbers -1 when not in the record. */
struct tacct_rec {
    const char *id;                     /* "407.server.example.org", "12[3].server" */
    const char *user, *group, *account; /* user, group, account */
    const char *queue;                  /* queue */
    long long ctime, qtime, etime;      /* epoch seconds */
    long long start, end;               /* epoch seconds */
    long long req_walltime;             /* Resource_List.walltime, seconds */
    long long req_procs;                /* Resource_List.procs */
    long long req_ncpus;                /* Resource_List.ncpus */
    long long req_nodes_procs;          /* Resource_List.nodes: processors of the
                                           spec (2:ppn=4+1:ppn=2 is 10; a host name 1) */
    long long req_nodect;               /* Resource_List.nodect */
    double req_mem_mb;                  /* Resource_List.mem, MB */
    long long exec_slots;               /* slots listed by exec_host (n1/0-3+n2/0 is 5) */
    long long total_slots;              /* total_execution_slots */
    long long used_walltime;            /* resources_used.walltime, seconds */
    long long exit_status;              /* Exit_status (may be negative) */
    int has_exit;                       /* Exit_status was given */
    long line;
};

/* What a whole file held besides its exit records. */
struct tacct_info {
    size_t other; /* records of other types */
};

/* Whether line (NUL-terminated) is an accounting record:
 * "MM/DD/YYYY HH:MM:SS;X;..." */
int tacct_is_record(const char *line);

/*
 * Read the file at path record by record: each E record, once whole and
 * good, goes to each(ctx, rec). *info gets the count of the others (may be
 * NULL). Returns 0, or -1 with err "<path>:<line>: ..." on a bad line or
 * when each returns non-zero (each sets err then).
 */
int tacct_scan(const char *path, struct tacct_info *info,
               int (*each)(void *ctx, const struct tacct_rec *rec, struct err *err), void *ctx,
               struct err *err);

#endif
