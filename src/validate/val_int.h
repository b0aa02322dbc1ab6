/*
 * val_int — what the validator's files share (val.c: reading and the
 * checks; val_csv.c: CSV rows; val_acl.c: reservation ACLs). Only
 * src/validate/ includes it.
 */
#ifndef MOKU_VAL_INT_H
#define MOKU_VAL_INT_H

#include <stdio.h>

#include "util/err.h"

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

#endif
