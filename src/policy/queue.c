/*
 * queue — the idle queue's transitions, shared by the façade (engine/) and
 * the policies that move jobs themselves (preemption requeues, failed
 * starts hold): a job joins the queue, leaves it, stops running (ended or
 * requeued) or is held, with the counts and plan flags that go with each.
 */
#include "policy/queue.h"

#include "core/sched_int.h"
#include "util/mem.h"

void queue_append(struct sched *s, struct job *j)
{
    /* Appending keeps submission order unless this job was submitted
     * earlier than the last one queued (a driver replaying unsorted input). */
    if (s->qlen && s->queue[s->qlen - 1] && s->queue[s->qlen - 1]->submit > j->submit)
        s->unsorted = 1;
    s->queue = xgrow(s->queue, &s->qcap, s->qlen + 1, sizeof *s->queue);
    s->queue[s->qlen++] = j;
    s->qidle++;
    eset_add(s, j);
}

/* Job j has ended (or was removed): its credentials' live counts drop. */
void queue_left(struct job *j)
{
    struct cred *const all[] = {j->user, j->group, j->account, j->class_, j->qos};
    for (size_t k = 0; k < 5; k++)
        all[k]->live--;
}

/* Take idle job j out of the queue's bookkeeping (it leaves the queue). */
void queue_leave(struct sched *s, struct job *j)
{
    for (size_t i = s->qhead; i < s->qlen && !eset_parked(s, j); i++)
        if (s->queue[i] == j) {
            s->queue[i] = NULL;
            s->qidle--;
            break;
        }
    eset_remove(s, j, 0);
    if (j->flags & JOB_RESERVED)
        plan_unhold(s, j);
    j->resv_start = -1;
    j->flags &= ~(unsigned)(JOB_RESERVED | JOB_STARTDATE);
    if (j->holds || j->deferred_until)
        s->nheld--;
    if (j->sysprio_mode != SYSPRIO_NONE)
        s->nsysprio--;
    elig_unblock(s, j);
    s->replan = 1;
}

/* j stops running at now: ended, or requeued (its run is over either way). */
void queue_stop(struct sched *s, struct job *j, long now)
{
    if (j->flags & JOB_PREEMPTED) {
        preempt_forget(s, j); /* suspended: it holds nothing */
    } else {
        plan_unrun(s, j, j->start, j->planned_end);
        heap_remove(&s->running, j->heap_pos);
        alloc_release(s, j);
        fsacct_ended(s, j, now);
    }
    queue_left(j);
    j->state = JOB_COMPLETED;
    j->end = now;
    s->last_end = now;
    /* Processors came free: every waiting job deserves another look. */
    s->replan = 1;
}

size_t sched_nidle(const struct sched *s)
{
    return s->qidle + eset_nparked(s);
}

/* Running job j goes back to the queue at now (requeued by the resource
 * manager, or preempted): -1, nothing done, when it is not running. */
int queue_requeue(struct sched *s, struct job *j, long now)
{
    if (j->state != JOB_RUNNING)
        return -1;
    queue_stop(s, j, now);
    j->state = JOB_IDLE;
    j->end = 0;
    j->start = 0;
    j->flags &= ~(unsigned)(JOB_BACKFILLED | JOB_SPVIOLATION | JOB_PREEMPTEE);
    elig_set_qtime(j, now); /* its queue time starts again */
    queue_append(s, j);
    s->replan = 1;
    s->elig_all = 1;
    return 0;
}

/* Add holds to idle job j (the caller checked them): it is counted as held
 * and eligibility looks at the queue again. */
void queue_hold(struct sched *s, struct job *j, unsigned holds)
{
    s->nheld += !j->holds && !j->deferred_until;
    j->holds |= holds;
    s->replan = 1;
    s->elig_all = 1;
}
