/*
 * bfwin — what the plan offers a job that is not there yet: backfill
 * windows (showbf) and earliest starts (showstart), from the state the last
 * iteration left (its running jobs, priority reservations and reservations).
 *
 * A window is "this many processors free from now for this long" (digest
 * §5.5, Admin Guide "showbf"): as the horizon grows the processors free over
 * the whole of it can only fall, and each fall ends a window. The widest,
 * shortest window comes first; the last one, if processors stay free for
 * ever, has no time limit. Reservations count as Maui counts them: a window
 * for a user holds the reserved processors that user may use.
 *
 * The asker is a pseudo-job: 1-processor tasks with the credentials (and
 * features, partition) of a job_spec. It is a stack object, never queued.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sched_int.h"
#include "policy/avail.h"
#include "policy/bfwin.h"
#include "util/mem.h"

/* A pseudo-job for spec (credentials by name only: ACLs compare names). */
struct pseudo {
    struct job j;
    struct cred c[5];
    char *feat[16];
    char buf[256];
};

/* spec's features ("a,b", "a:b", "[a][b]"), at most 16, into p. */
static void pseudo_features(struct pseudo *p, const char *text)
{
    snprintf(p->buf, sizeof p->buf, "%s", text ? text : "");
    char *save = NULL;
    for (char *f = strtok_r(p->buf, " \t,:[]", &save); f && p->j.nfeatures < 16;
         f = strtok_r(NULL, " \t,:[]", &save))
        p->feat[p->j.nfeatures++] = f;
    p->j.features = p->feat;
}

static void pseudo_init(struct pseudo *p, const struct job_spec *spec, int tasks, long wall)
{
    static const char *const def = "DEFAULT";
    memset(p, 0, sizeof *p);
    const char *names[5] = {spec->user, spec->group, spec->account, spec->class_, spec->qos};
    for (int k = 0; k < 5; k++)
        p->c[k].name = (char *)(names[k] ? names[k] : def);
    p->j.name = (char *)"(pseudo)";
    p->j.tasks = tasks > 0 ? tasks : 1;
    p->j.procs_per_task = spec->procs_per_task > 0 ? spec->procs_per_task : 1;
    p->j.walltime = wall > 0 ? wall : 1;
    p->j.user = &p->c[0];
    p->j.group = &p->c[1];
    p->j.account = &p->c[2];
    p->j.class_ = &p->c[3];
    p->j.qos = &p->c[4];
    p->j.partition = (char *)spec->partition;
    p->j.advres = (char *)spec->advres;
    p->j.resv_start = -1;
    pseudo_features(p, spec->features);
}

/* Processors the pseudo-job could hold over [now, now + dur). */
static long long offered(struct sched *s, struct job *j, long now, long dur)
{
    j->walltime = dur;
    if (!s->pl.multi)
        return plan_region_usable(s, j, 0) ? avail_min_free(s->pl.avail, now, now + dur) : 0;
    long long sum = 0;
    for (size_t g = 0; g < s->pl.nregions; g++)
        if (plan_region_usable(s, j, g)) {
            long t = plan_region_tasks(s, j, g, now);
            sum += t > 0 ? t : 0;
        }
    return sum;
}

/* Instants after now at which something in the plan changes. */
static long next_change(const struct sched *s, long t)
{
    long next = avail_next_change(s->pl.avail, t);
    for (size_t g = 0; s->pl.multi && g < s->pl.nregions; g++) {
        long n = avail_next_change(s->pl.regions[g].free, t);
        next = n < next ? n : next;
        for (size_t k = 0; k < s->pl.regions[g].nrv; k++) {
            n = avail_next_change(s->pl.regions[g].rv[k].inner, t);
            next = n < next ? n : next;
        }
    }
    return next;
}

size_t sched_backfill_windows(struct sched *s, const struct job_spec *who, long now,
                              struct sched_window *out, size_t max)
{
    struct pseudo p;
    pseudo_init(&p, who, 1, 1);
    plan_forget(s);
    if (now < s->pl.last_now)
        now = s->pl.last_now;
    size_t n = 0;
    long long prev = offered(s, &p.j, now, 1);
    for (long t = next_change(s, now); prev > 0; t = next_change(s, t)) {
        long long here = t >= AVAIL_NEVER ? 0 : offered(s, &p.j, now, t - now + 1);
        if (here < prev || t >= AVAIL_NEVER) {
            if (n < max)
                out[n] = (struct sched_window){prev, 0, t >= AVAIL_NEVER ? -1 : t - now};
            n++;
            prev = here;
        }
        if (t >= AVAIL_NEVER)
            break;
    }
    /* Nodes: how many nodes have room now for the asker, at most one per
     * processor of the window (an upper bound: the counts do not name
     * nodes). */
    long nodes = 0;
    for (size_t i = 0; i < s->nt.nnodes; i++)
        if (s->nt.node_cap[i] > s->nt.node_used[i] &&
            plan_region_usable(s, &p.j, s->pl.multi ? s->pl.node_region[i] : 0))
            nodes++;
    for (size_t k = 0; k < n && k < max; k++)
        out[k].nodes = out[k].procs < nodes ? (long)out[k].procs : nodes;
    plan_forget(s);
    return n;
}

const struct job *sched_fcfs_head(const struct sched *s)
{
    if (s->pol.backfill != BF_NONE || !s->pl.plan_stopped)
        return NULL;
    for (size_t k = 0; k < s->pl.nblocked; k++)
        if (s->pl.blocked[k]->state == JOB_IDLE)
            return s->pl.blocked[k];
    return NULL;
}

long sched_earliest_start(struct sched *s, const struct job *j, long now)
{
    if (now < s->pl.last_now)
        now = s->pl.last_now;
    if (j->state != JOB_IDLE)
        return j->start;
    if (j->resv_start >= 0)
        return j->resv_start;
    return plan_earliest(s, j, now);
}

long sched_earliest_for(struct sched *s, const struct job_spec *spec, long now)
{
    struct pseudo p;
    pseudo_init(&p, spec, spec->tasks, spec->walltime);
    plan_forget(s);
    if (now < s->pl.last_now)
        now = s->pl.last_now;
    long t = plan_earliest(s, &p.j, now);
    plan_forget(s);
    return t;
}
