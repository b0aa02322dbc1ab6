/* prio — see prio.h. */
#include "policy/prio.h"

double prio_start(const struct sched_policy *pol, const struct job *j, long now)
{
    double minutes = now > j->submit ? (double)(now - j->submit) / 60.0 : 0.0;
    double p = (double)pol->service_weight * (double)pol->queuetime_weight * minutes;
    /* Maui clamps priorities below 1 to 1 unless negative priorities are
     * enabled (digest §2.7). */
    return p < 1.0 ? 1.0 : p;
}

int prio_order_is_submission(const struct sched_policy *pol)
{
    /* With a non-negative weight the queue-time factor can only favour
     * earlier submissions; with a negative one every value clamps to 1 and
     * the tie-breakers (submission order) decide. Either way: submission
     * order. */
    (void)pol;
    return 1;
}

int prio_cmp(const void *a, const void *b)
{
    const struct job *x = *(const struct job *const *)a;
    const struct job *y = *(const struct job *const *)b;
    if (x->priority != y->priority)
        return x->priority > y->priority ? -1 : 1;
    if (x->submit != y->submit)
        return x->submit < y->submit ? -1 : 1;
    return x->order < y->order ? -1 : (x->order > y->order);
}
