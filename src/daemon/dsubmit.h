/*
 * dsubmit — a job's submission to the daemon (dsubmit.c).
 */
#ifndef MOKU_DSUBMIT_H
#define MOKU_DSUBMIT_H

#include <jansson.h>

struct dmn;
struct peer;

/* Submit job (the request's "job": cmd/qsub_json.c's fields) as p's, under
 * token (NULL = none; a token answered before gets that answer again). The
 * reply's output is the job's id and a newline; committed before it
 * returns. */
json_t *dsubmit_job(struct dmn *d, const struct peer *p, const json_t *job, const char *token);

#endif
