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
    if (s->q.qlen && s->q.queue[s->q.qlen - 1] && s->q.queue[s->q.qlen - 1]->submit > j->submit)
        s->q.unsorted = 1;
    s->q.queue = xgrow(s->q.queue, &s->q.qcap, s->q.qlen + 1, sizeof *s->q.queue);
    s->q.queue[s->q.qlen++] = j;
    s->q.qidle++;
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
    iter_settle_bypass(s, j);
    if ((j->flags & JOB_PARKED) && !s->el.eset)
        elig_unpark_leave(s, j); /* out of the queue already (policy/elig.c) */
    for (size_t i = s->q.qhead; i < s->q.qlen && !(j->flags & JOB_PARKED); i++)
        if (s->q.queue[i] == j) {
            s->q.queue[i] = NULL;
            s->q.qidle--;
            break;
        }
    eset_remove(s, j, 0);
    if (j->flags & JOB_RESERVED)
        plan_unhold(s, j);
    j->resv_start = -1;
    j->flags &= ~(unsigned)(JOB_RESERVED | JOB_STARTDATE);
    if (j->holds || j->deferred_until)
        s->el.nheld--;
    if (j->sysprio_mode != SYSPRIO_NONE)
        s->el.nsysprio--;
    elig_unblock(s, j);
    s->pl.replan = 1;
}

/* j stops running at now: ended, or requeued (its run is over either way). */
void queue_stop(struct sched *s, struct job *j, long now)
{
    if (j->flags & JOB_PREEMPTED) {
        preempt_forget(s, j); /* suspended: it holds nothing */
    } else {
        plan_unrun(s, j, j->start, j->planned_end);
        heap_remove(&s->pl.running, j->heap_pos);
        eset_stopped(s, j);
        alloc_release(s, j);
        fsacct_ended(s, j, now);
    }
    queue_left(j);
    j->state = JOB_COMPLETED;
    j->end = now;
    s->pl.last_end = now;
    /* Processors came free: every waiting job deserves another look. */
    s->pl.replan = 1;
}

size_t sched_nidle(const struct sched *s)
{
    return s->q.qidle + eset_nparked(s) + elig_nparked(s);
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
    s->pl.replan = 1;
    s->el.elig_all = 1;
    return 0;
}

/* Add holds to idle job j (the caller checked them): it is counted as held
 * and eligibility looks at the queue again. */
void queue_hold(struct sched *s, struct job *j, unsigned holds)
{
    s->el.nheld += !j->holds && !j->deferred_until;
    j->holds |= holds;
    s->pl.replan = 1;
    s->el.elig_all = 1;
}
