/*
 * textbook — an independent, deliberately plain implementation of the
 * reference schedulers defined in data/README.md, used by the
 * integration tests to check moku job for job on traces that have no
 * published reference schedule.
 *
 *   textbook easy|fcfs|cons PROCS < trace.swf > schedule.csv
 *
 * It shares no code with moku: a processor pool, a FIFO queue, the shadow
 * time and the extra processors computed from scratch at every pass; for
 * conservative backfilling (cons), a free-processor profile rebuilt from
 * scratch at every pass, every waiting job placed in it in queue order. Input
 * is a normalized SWF (every line replayable, sorted); output is
 * job_id,submit,start.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct tjob {
    long long id;
    long submit, run, est, start, end;
    long procs;
};

static struct tjob *jobs;
static size_t njobs;

static void read_trace(void)
{
    char line[4096];
    size_t cap = 0;
    while (fgets(line, sizeof line, stdin)) {
        long long f[18];
        char *p = line;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == ';' || *p == '\n' || !*p)
            continue;
        for (int i = 0; i < 18; i++)
            f[i] = (long long)strtod(p, &p);
        if (njobs == cap) {
            cap = cap ? 2 * cap : 1024;
            jobs = realloc(jobs, cap * sizeof *jobs);
        }
        long procs = (long)(f[7] > 0 ? f[7] : f[4]);
        long est = (long)(f[8] > 0 ? f[8] : f[3]);
        jobs[njobs++] = (struct tjob){f[0], (long)f[1], (long)f[3], est, -1, -1, procs};
    }
}

static int by_est_end(const void *a, const void *b)
{
    const struct tjob *x = *(struct tjob *const *)a, *y = *(struct tjob *const *)b;
    long ex = x->start + x->est, ey = y->start + y->est;
    return (ex > ey) - (ex < ey);
}

static struct tjob **running;
static size_t nrun;
static long free_procs;

static void start(struct tjob *j, long now)
{
    j->start = now;
    j->end = now + j->run;
    running[nrun++] = j;
    free_procs -= j->procs;
}

/* Shadow time and extra processors for the head job. */
static void shadow_of(const struct tjob *head, long *shadow, long *extra)
{
    qsort(running, nrun, sizeof *running, by_est_end);
    long avail = free_procs;
    size_t i = 0;
    while (avail < head->procs && i < nrun) {
        long t = running[i]->start + running[i]->est;
        while (i < nrun && running[i]->start + running[i]->est == t)
            avail += running[i++]->procs;
        *shadow = t;
    }
    *extra = avail - head->procs;
}

static void pass(struct tjob **queue, size_t *qn, long now, int easy)
{
    size_t h = 0;
    while (h < *qn && queue[h]->procs <= free_procs)
        start(queue[h++], now);
    memmove(queue, queue + h, (*qn - h) * sizeof *queue);
    *qn -= h;
    if (!easy || *qn == 0)
        return;
    long shadow = now, extra = 0;
    shadow_of(queue[0], &shadow, &extra);
    size_t w = 1;
    for (size_t k = 1; k < *qn; k++) {
        struct tjob *j = queue[k];
        int ends_before = now + j->est <= shadow;
        if (j->procs <= free_procs && (ends_before || j->procs <= extra)) {
            if (!ends_before)
                extra -= j->procs;
            start(j, now);
        } else {
            queue[w++] = j;
        }
    }
    *qn = w;
}

/*
 * Conservative backfilling. The profile is a step function of free
 * processors: segment i covers [pt[i], pt[i+1]) with pf[i] free, the last
 * one runs forever. It starts from the running jobs (each holding its
 * processors until start + requested time), then every waiting job, in
 * queue order, takes the earliest breakpoint from which pf >= its procs for
 * its whole request, and is subtracted from the profile there. Those placed
 * at now start.
 */
static long *pt, *pf;
static size_t np;

/* Index of the breakpoint at time t, inserted (splitting its segment) if
 * absent; t > pt[from]. */
static size_t breakpoint(long t, size_t from)
{
    size_t i = from + 1;
    while (i < np && pt[i] < t)
        i++;
    if (i < np && pt[i] == t)
        return i;
    memmove(pt + i + 1, pt + i, (np - i) * sizeof *pt);
    memmove(pf + i + 1, pf + i, (np - i) * sizeof *pf);
    pt[i] = t;
    pf[i] = pf[i - 1];
    np++;
    return i;
}

static void cons_pass(struct tjob **queue, size_t *qn, long now)
{
    qsort(running, nrun, sizeof *running, by_est_end);
    np = 0;
    pt[np] = now;
    pf[np++] = free_procs;
    for (size_t r = 0; r < nrun; r++) {
        long t = running[r]->start + running[r]->est;
        if (pt[np - 1] != t) {
            pt[np] = t;
            pf[np] = pf[np - 1];
            np++;
        }
        pf[np - 1] += running[r]->procs;
    }
    size_t w = 0;
    for (size_t k = 0; k < *qn; k++) {
        struct tjob *j = queue[k];
        /* Nothing free now in the plan: no later job can start now, and
         * the plan is redone at the next event, so placing them is moot. */
        if (pf[0] == 0) {
            queue[w++] = j;
            continue;
        }
        size_t i = 0, at = np;
        while (i < np) {
            if (pf[i] < j->procs) {
                i++;
                continue;
            }
            size_t e = i + 1;
            while (e < np && pt[e] < pt[i] + j->est && pf[e] >= j->procs)
                e++;
            if (e == np || pt[e] >= pt[i] + j->est) {
                at = i;
                break;
            }
            i = e + 1;
        }
        if (at == np) { /* more processors than the machine has: never */
            queue[w++] = j;
            continue;
        }
        long t = pt[at];
        size_t end = breakpoint(t + j->est, at);
        for (size_t s = at; s < end; s++)
            pf[s] -= j->procs;
        if (t == now)
            start(j, now);
        else
            queue[w++] = j;
    }
    *qn = w;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: textbook easy|fcfs|cons PROCS < trace.swf\n");
        return 2;
    }
    int easy = strcmp(argv[1], "easy") == 0;
    int cons = strcmp(argv[1], "cons") == 0;
    if (!easy && !cons && strcmp(argv[1], "fcfs") != 0) {
        fprintf(stderr, "textbook: unknown policy %s\n", argv[1]);
        return 2;
    }
    free_procs = atol(argv[2]);
    read_trace();
    running = malloc((njobs + 1) * sizeof *running);
    struct tjob **queue = malloc((njobs + 1) * sizeof *queue);
    /* Profile: now, plus at most one breakpoint per running or placed job
     * (a placement starts on an existing one); twice that, to be safe. */
    pt = malloc((2 * njobs + 2) * sizeof *pt);
    pf = malloc((2 * njobs + 2) * sizeof *pf);
    size_t qn = 0, next = 0;
    while (next < njobs || nrun || qn) {
        long now = next < njobs ? jobs[next].submit : -1;
        for (size_t i = 0; i < nrun; i++)
            if (now < 0 || running[i]->end < now)
                now = running[i]->end;
        for (size_t i = 0; i < nrun;)
            if (running[i]->end == now) {
                free_procs += running[i]->procs;
                running[i] = running[--nrun];
            } else {
                i++;
            }
        while (next < njobs && jobs[next].submit == now)
            queue[qn++] = &jobs[next++];
        if (cons)
            cons_pass(queue, &qn, now);
        else
            pass(queue, &qn, now, easy);
    }
    printf("job_id,submit,start\n");
    for (size_t i = 0; i < njobs; i++)
        printf("%lld,%ld,%ld\n", jobs[i].id, jobs[i].submit, jobs[i].start);
    free(pf);
    free(pt);
    free(queue);
    free(running);
    free(jobs);
    return 0;
}
