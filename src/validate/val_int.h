/*
 * val_int — what the validator's files share (val.c: reading and the
 * checks; val_csv.c: CSV rows; val_acl.c: reservation ACLs). Only
 * src/validate/ includes it.
 */
#ifndef MOKU_VAL_INT_H
#define MOKU_VAL_INT_H

#include <stdio.h>

#include "util/err.h"
#include "util/strmap.h"
#include "validate/val.h"

/* One CSV row: its fields (owned) and the line it starts on. */
struct val_row {
    char **f;
    size_t n;
    long line;
};

/* Read the next row of f (RFC 4180: quoted fields may hold commas, quotes
 * and line breaks). 1 and *r filled, 0 at the end, -1 with err
 * ("path:line: ..."). *line counts the lines read so far. */
int val_csv_row(FILE *f, const char *path, long *line, struct val_row *r, struct err *err);
void val_row_free(struct val_row *r);

/* A job's credentials, as an ACL sees them. NULL = none. */
struct val_creds {
    const char *user, *group, *account, *class_, *qos;
    const char *attrs; /* job attributes, comma-separated (the trace's features), or NULL */
    int preemptee;     /* the job has the PREEMPTEE attribute */
};

/*
 * Whether the reservation ACL text (diagnose -r's form, as
 * `simulate --resv-out` writes it: entries `KIND==VALUE` with an optional
 * affinity mark `+`, `-` or `=` after the value, `!` before it for "not",
 * separated by spaces; KIND one of USER, GROUP, ACCT, CLASS, QOS, and
 * DURATION<=time for TIMELIMIT, met when `inside` — the time the job would
 * spend in the reservation — is no longer) admits a job with those
 * credentials: 1 or 0. An empty ACL admits nobody.
 * -1 with err for text that is not such a list (a kind the validator does
 * not know, JATTR included, is an error: nothing is judged on what was not
 * understood).
 */
int val_acl_admits(const char *acl, const struct val_creds *c, long inside, struct err *err);

/* The schedule's format: moku's jobs CSV, an SWF file (simulate
 * --swf-out), Batsim's jobs.csv (simulate --batsim-out, or Batsim's). */
enum val_sched_kind { VAL_SCHED_CSV, VAL_SCHED_SWF, VAL_SCHED_BATSIM };

/* One job of an SWF or Batsim schedule (owned strings and nodes). */
struct val_srow {
    char *id;
    long line;
    long submit, start, end, procs, walltime; /* -1: not said / did not start or end */
    char *state; /* in the jobs CSV's words: completed, killed, cancelled, ... */
    long *nodes; /* Batsim: the node indices (0-based, the cluster's order) */
    size_t nnodes;
    char *cred[5]; /* user, group, account, class, qos as the file names them, or NULL
                      (SWF: fields 12, 13 and 15 as numbers; Batsim: its metadata) */
};

/* Which format the schedule at path is: from its first line (SWF: ';'
 * comments or a line of numbers; Batsim: its header), else the jobs CSV. */
enum val_sched_kind val_sched_kind(const char *path);
/* Read an SWF or Batsim schedule into rows; -1 with err ("path:line: ..."). */
int val_sched_read(const char *path, enum val_sched_kind k, struct val_srow **rows, size_t *n,
                   struct err *err);
void val_srows_free(struct val_srow *rows, size_t n);

/* What the trace says of a job; found by id. */
struct val_fact {
    char *id;
    long submit, procs, walltime, runtime; /* -1 = not said */
    char *attrs;                           /* requested features, comma-separated, or NULL */
    int preemptee;                         /* flagged PREEMPTEE */
    char *after;    /* SWF field 17: the job it waits for (afterany), NULL none */
    char *depend;   /* a script's submit: its -W depend= text, NULL none */
    char *array;    /* a script's array task: its array's id, NULL none */
    unsigned slots; /* ... and the array's %N slot limit, 0 none */
    int failed;     /* a script's submit --exit with a non-zero status: a completed run
                       is a failure for afterok and afternotok */
};

/* A script's `qalter -W depend=LIST JOB` (docs/simulation.md): from time
 * t on, JOB's dependencies are LIST. */
struct val_alter {
    char *id, *depend;
    long t;
};

struct val_facts {
    struct val_fact *v;
    size_t n, cap;
    struct val_alter *alters; /* in the script's order, hence time order */
    size_t nalters, capalters;
    int maui; /* a Maui trace: its submission times are not checked */
    long long hdr_nodes, hdr_procs;
    struct strmap by_id;
};

/*
 * Read the trace o->trace, whatever its format (SWF, Maui workload, sacct,
 * Torque accounting, a moku home: val_trace.c, with the simulator's
 * conventions as docs/simulation.md states them, implemented apart), with
 * the walltimes o->estimates gives. 0, or -1 with err.
 */
int val_trace_read(const struct val_opts *o, struct val_facts *f, struct err *err);
/* The jobs the --commands script o->commands submits (`TIME submit ID
 * RUNTIME [OPTIONS]`, docs/simulation.md), added to f as facts: submit
 * time, runtime, dependencies, array and slot limit (val_submit.c, read
 * apart from the simulator's reader). 0, or -1 with err. */
int val_submit_read(const char *path, struct val_facts *f, struct err *err);
/* The words of a command script's line (line is cut at '#' and split in
 * place on blanks), at most max of them: how many. */
size_t val_words(char *line, char **w, size_t max);
/* Fill *d with the job the dependency wants (d->type: "after", "afterok",
 * "afternotok", "afterany") from the k-th of depend; 0 when there is no
 * k-th. */
struct val_dep {
    char type[16];
    char on[256];
};
int val_dep_nth(const char *depend, size_t k, struct val_dep *d);
/* The id index (once read), a job's facts by id (NULL: not in the trace),
 * and freeing. */
void val_facts_index(struct val_facts *f);
const struct val_fact *val_fact_of(const struct val_facts *f, const char *id);
void val_facts_free(struct val_facts *f);

#endif
