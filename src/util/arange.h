/*
 * arange — the task indices of a job array, as qsub writes them: Torque's
 * -t (a comma list of indices and ranges, "1-100", "1,3,5-9", with a "%N"
 * slot limit: at most N tasks running at once) and PBS Pro's -J ("A-B" or
 * "A-B:step", also with "%N"). Both parse into one form: the indices in
 * ascending order, each once, and the slot limit.
 *
 * It knows nothing of jobs: what a task is, and who enforces the slot limit,
 * is the engine's and the daemon's business. MAXJOBARRAYSIZE (Torque's
 * max_job_array_size) is the caller's: it passes the bound in.
 */
#ifndef MOKU_ARANGE_H
#define MOKU_ARANGE_H

#include <stddef.h>

#include "util/err.h"

/* The largest index a task may have (Torque keeps indices in an int). */
#define ARANGE_INDEX_MAX 2147483647u

/* The default of MAXJOBARRAYSIZE: what qsub checks before the daemon, which
 * knows the configured value, checks again. */
#define ARANGE_DEFAULT_MAX 10000
/* The most MAXJOBARRAYSIZE may be (what a request may ask for at all). */
#define ARANGE_LIMIT_MAX 1000000

struct arange {
    unsigned *idx;  /* n indices, ascending, distinct; owned */
    size_t n;       /* >= 1 */
    unsigned slots; /* the %N slot limit; 0: none */
};

/* Parse Torque's -t value s ("1-10", "0,3,7-9%2") into a; at most max tasks
 * (max >= 1). On error (empty, garbage, a range that runs down such as
 * "5-1", an index given twice, "%0", more than max tasks) fills err with a
 * message naming the value and leaves a empty. The caller frees with
 * arange_free. */
int arange_parse_torque(const char *s, size_t max, struct arange *a, struct err *err);

/* Parse PBS Pro's -J value s ("A-B", "A-B:step", each with an optional
 * "%N"): A < B, step >= 1, as PBS Pro asks; the same errors and ownership
 * as arange_parse_torque. */
int arange_parse_pbs(const char *s, size_t max, struct arange *a, struct err *err);

/* The indices and slot limit written back in Torque's form, runs of
 * consecutive indices as ranges ("1-3,5,7-9%2"): arange_parse_torque of it
 * gives a again. Caller frees. */
char *arange_format(const struct arange *a);

/* 1 when index x is one of a's. */
int arange_has(const struct arange *a, unsigned x);

/* Free a's indices and empty it; NULL or an empty a: nothing to do. */
void arange_free(struct arange *a);

#endif
