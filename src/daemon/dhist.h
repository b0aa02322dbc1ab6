/*
 * dhist — the daemon's recent history for the web view: utilization and
 * queue length, one sample a minute (DHIST_STEP), the last DHIST_SAMPLES
 * of them (seven days). Kept in memory: a restart begins a new history.
 */
#ifndef MOKU_DHIST_H
#define MOKU_DHIST_H

#include <stddef.h>

#include <jansson.h>

#define DHIST_STEP 60
#define DHIST_SAMPLES (7 * 24 * 60)

struct dhist_sample {
    long time;
    long long procs, busy; /* processors up, and running jobs' */
    long running, idle, blocked;
};

struct dhist {
    struct dhist_sample *v; /* a ring of DHIST_SAMPLES, allocated at the first sample */
    size_t head, n;         /* the oldest, and how many */
};

/* Add s unless the last sample is less than DHIST_STEP old (a clock set
 * back starts again from s). */
void dhist_add(struct dhist *h, const struct dhist_sample *s);
/* Whether a sample taken at now would be kept (a pass over the nodes is
 * spared when not). */
int dhist_due(const struct dhist *h, long now);
/* {"interval": DHIST_STEP, "samples": [{time, procs, busy, running, idle,
 * blocked}...]}, oldest first (caller decrefs). */
json_t *dhist_json(const struct dhist *h);
void dhist_free(struct dhist *h);

#endif
