/*
 * estimate — models of users' runtime estimates (moku simulate
 * --estimates): what each job tells the scheduler as its walltime, in
 * place of the log's request. The schedule depends on these estimates
 * through backfilling and reservations; comparing models shows how much.
 *
 *   request       the log's requested time (the default; a job without one
 *                 asks its runtime)
 *   exact         the runtime: a perfect estimate (at least 1 s)
 *   factor:F      ceil(runtime x F), F >= 1: every estimate F times too long
 *                 (Zotkin and Keleher's R*F)
 *   fmodel:F[:S]  ceil(runtime x (1 + F x u)), u uniform in [0, 1) drawn
 *                 for each job from the seed S (default 1) and its id: Mu'alem
 *                 and Feitelson's f-model, F >= 0. u is the top 53 bits of
 *                 splitmix64(S xor FNV-1a-64(job id)) over 2^53, so a job
 *                 draws the same u in every run, whatever the others do
 *
 * A job killed at its walltime in the log keeps its runtime: under exact it
 * runs that long. What it is not: a model of the requests' coarse values
 * (users ask for round hours); the log's requests have those.
 */
#ifndef MOKU_ESTIMATE_H
#define MOKU_ESTIMATE_H

#include <stdint.h>

#include "sim/workload.h"
#include "util/err.h"

enum estimate_kind { ESTIMATE_REQUEST, ESTIMATE_EXACT, ESTIMATE_FACTOR, ESTIMATE_FMODEL };

struct estimate {
    enum estimate_kind kind;
    double f;      /* factor:F, fmodel:F */
    uint64_t seed; /* fmodel */
};

/* Parse "request", "exact", "factor:F", "fmodel:F[:SEED]"; -1 with err. */
int estimate_parse(const char *text, struct estimate *e, struct err *err);
/* The walltime a job with this runtime, request and id gets (>= 1). */
long estimate_walltime(const struct estimate *e, long runtime, long request, const char *id);
/* Apply to every job of the workload. */
void estimate_apply(const struct estimate *e, struct workload *wl);

#endif
