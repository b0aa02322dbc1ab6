/*
 * mini_easy — the minimal textbook EASY loop moku's replay is measured
 * against (make bench, issue 16): a processor pool, a FIFO queue, the shadow
 * time and extra processors of the queue's head, backfilling in queue order.
 * No node model, no policy, no report beyond one line; shares no code with
 * moku.
 *
 *   mini_easy PROCS TRACE.swf[.gz]
 *
 * Prints the jobs started, the mean wait and the seconds spent reading and
 * replaying.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <zlib.h>

struct mjob {
    long submit, run, est, procs, start;
};

static struct mjob *jobs, **queue, **running;
static size_t njobs, qhead, qlen, nrun;
static long free_procs;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void read_trace(const char *path, long procs)
{
    gzFile f = gzopen(path, "rb");
    char line[1024];
    size_t cap = 0;
    if (!f || gzbuffer(f, 1 << 20) < 0) {
        perror(path);
        exit(2);
    }
    while (gzgets(f, line, sizeof line)) {
        long v[9];
        char *p = line;
        if (*p == ';' || *p == '\n')
            continue;
        for (int i = 0; i < 9; i++)
            v[i] = strtol(p, &p, 10);
        long np = v[7] > 0 ? v[7] : v[4], est = v[8] > 0 ? v[8] : v[3];
        if (v[3] < 0 || np <= 0 || np > procs)
            continue; /* not replayable here */
        if (njobs == cap)
            jobs = realloc(jobs, (cap = cap ? 2 * cap : 4096) * sizeof *jobs);
        jobs[njobs++] = (struct mjob){v[1], v[3], est > v[3] ? est : v[3], np, -1};
    }
    gzclose(f);
    queue = malloc(njobs * sizeof *queue);
    running = malloc(njobs * sizeof *running);
}

static void start(struct mjob *j, long now)
{
    j->start = now;
    free_procs -= j->procs;
    running[nrun++] = j;
}

/* One pass at `now`: the head while it fits, then backfill around its shadow. */
static void schedule(long now)
{
    while (qhead < qlen && queue[qhead]->procs <= free_procs)
        start(queue[qhead++], now);
    if (qhead == qlen)
        return;
    long need = queue[qhead]->procs - free_procs, shadow = 0, extra = 0, got = 0;
    while (got < need) { /* the shadow: running jobs by estimated end */
        long best = -1;
        for (size_t i = 0; i < nrun; i++) {
            long e = running[i]->start + running[i]->est;
            if (e > shadow && (best < 0 || e < best))
                best = e;
        }
        for (size_t i = 0; i < nrun; i++)
            if (running[i]->start + running[i]->est == best)
                got += running[i]->procs;
        shadow = best;
    }
    extra = got - need;
    for (size_t i = qhead + 1; i < qlen; i++) {
        struct mjob *j = queue[i];
        if (j->procs > free_procs || (now + j->est > shadow && j->procs > extra))
            continue;
        if (now + j->est > shadow)
            extra -= j->procs;
        start(j, now);
        for (size_t k = i; k + 1 < qlen; k++)
            queue[k] = queue[k + 1];
        qlen--, i--;
    }
}

int main(int argc, char **argv)
{
    if (argc != 3)
        return fprintf(stderr, "usage: mini_easy PROCS TRACE\n"), 2;
    double t0 = now_s();
    free_procs = atol(argv[1]);
    read_trace(argv[2], free_procs);
    double t1 = now_s();
    size_t next = 0;
    double wait = 0;
    while (next < njobs || nrun) {
        long now = next < njobs ? jobs[next].submit : -1;
        for (size_t i = 0; i < nrun; i++)
            if (now < 0 || running[i]->start + running[i]->run < now)
                now = running[i]->start + running[i]->run;
        for (size_t i = 0; i < nrun; i++)
            if (running[i]->start + running[i]->run == now) {
                free_procs += running[i]->procs;
                wait += (double)(running[i]->start - running[i]->submit);
                running[i--] = running[--nrun];
            }
        while (next < njobs && jobs[next].submit == now)
            queue[qlen++] = &jobs[next++];
        schedule(now);
    }
    printf("mini_easy: %zu jobs, mean wait %.1f s, read %.3f s, replay %.3f s\n", njobs,
           wait / (double)njobs, t1 - t0, now_s() - t1);
    return 0;
}
