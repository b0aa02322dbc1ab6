/*
 * trigger — the standing reservations' TRIGGERs that came due for the
 * driver to run (policy/trigger.c).
 */
#ifndef MOKU_POLICY_TRIGGER_H
#define MOKU_POLICY_TRIGGER_H

#include "core/sched.h"

/* A standing reservation's TRIGGER with an exec or submit action came due
 * (policy/trigger.c): the driver runs it, or says it cannot. */
struct sched_fired {
    char *resv;        /* the instance's id */
    const char *event; /* "create", "start", "end" */
    int submit;        /* action submit (data: a job script), else exec (data: a command) */
    char *data;
    long at;
};
/* Take the oldest fired trigger: 1 and *out filled (free with
 * sched_fired_free), or 0 when none is waiting. */
int sched_pop_fired(struct sched *s, struct sched_fired *out);
void sched_fired_free(struct sched_fired *f);

#endif
