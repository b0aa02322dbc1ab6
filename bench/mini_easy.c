/*
 * mini_easy — the minimal textbook EASY loop moku's replay is measured
 * against (make bench, issue 16): a processor pool, a FIFO queue, the shadow
 * time and extra processors of the queue's head, backfilling in queue order.
 * No node model, no policy, no report beyond one line; shares no code with
 * moku.
 *
 *   mini_easy [--nodes] PROCS TRACE.swf[.gz]
 *
 * --nodes: PROCS one-processor nodes instead of a pool (CEA-Curie's
 * replay, issue 31): a start names the nodes it takes, the lowest free ones
 * found a 64-bit word at a time in a free bitmap and kept as runs, and an
 * end gives them back, the work any scheduler that places jobs must do.
 * The schedule is the pool's (on one-processor nodes any free ones will
 * do), so the mean wait printed must not change.
 *
 * Prints the jobs started, the mean wait and the seconds spent reading and
 * replaying.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

struct mjob {
    long submit, run, est, procs, start;
    size_t *runs, nruns; /* --nodes: [first, count) pairs of the nodes held */
};

static struct mjob *jobs, **queue, **running;
static size_t njobs, qhead, qlen, nrun;
static long free_procs;
static uint64_t *freemap;      /* --nodes: bit set = node free */
static size_t nwords, lowword; /* no free node below word lowword */

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

/* Record node run [a, a + n) for j, extending its last run when adjacent. */
static void add_run(struct mjob *j, size_t a, size_t n)
{
    if (j->nruns && j->runs[2 * j->nruns - 2] + j->runs[2 * j->nruns - 1] == a) {
        j->runs[2 * j->nruns - 1] += n;
        return;
    }
    if (!(j->nruns & (j->nruns - 1))) /* 0, 1, 2, 4, ...: grow */
        j->runs = realloc(j->runs, 2 * (j->nruns ? 2 * j->nruns : 1) * sizeof *j->runs);
    j->runs[2 * j->nruns] = a;
    j->runs[2 * j->nruns + 1] = n;
    j->nruns++;
}

/* The lowest free nodes for j, runs of free bits a word at a time. */
static void take_nodes(struct mjob *j)
{
    long need = j->procs;
    j->nruns = 0;
    while (lowword < nwords && !freemap[lowword])
        lowword++;
    for (size_t w = lowword; need > 0; w++) {
        uint64_t bits = freemap[w];
        while (bits && need > 0) {
            unsigned lo = (unsigned)__builtin_ctzll(bits);
            uint64_t rest = ~(bits >> lo);
            unsigned len = rest ? (unsigned)__builtin_ctzll(rest) : 64 - lo;
            if ((long)len > need)
                len = (unsigned)need;
            uint64_t mask = (len == 64 ? ~(uint64_t)0 : (((uint64_t)1 << len) - 1)) << lo;
            bits &= ~mask;
            freemap[w] &= ~mask;
            add_run(j, w * 64 + lo, len);
            need -= len;
        }
    }
}

static void give_nodes(struct mjob *j)
{
    for (size_t r = 0; r < j->nruns; r++)
        for (size_t i = j->runs[2 * r], e = i + j->runs[2 * r + 1]; i < e;) {
            size_t lo = i % 64, hi = e - (i - lo) < 64 ? e - (i - lo) : 64;
            uint64_t mask =
                (hi == 64 ? ~(uint64_t)0 : (((uint64_t)1 << hi) - 1)) & (~(uint64_t)0 << lo);
            freemap[i / 64] |= mask;
            i += hi - lo;
        }
    if (j->nruns && j->runs[0] / 64 < lowword)
        lowword = j->runs[0] / 64;
    free(j->runs);
    j->runs = NULL;
    j->nruns = 0;
}

static void start(struct mjob *j, long now)
{
    j->start = now;
    if (freemap)
        take_nodes(j);
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
    int nodes = argc == 4 && strcmp(argv[1], "--nodes") == 0;
    if (argc != 3 + nodes)
        return fprintf(stderr, "usage: mini_easy [--nodes] PROCS TRACE\n"), 2;
    argv += nodes;
    double t0 = now_s();
    free_procs = atol(argv[1]);
    if (free_procs <= 0)
        return fprintf(stderr, "mini_easy: %s: not a processor count\n", argv[1]), 2;
    read_trace(argv[2], free_procs);
    if (nodes) {
        nwords = ((size_t)free_procs + 63) / 64;
        freemap = calloc(nwords, sizeof *freemap);
        for (size_t i = 0; i < (size_t)free_procs; i++)
            freemap[i / 64] |= (uint64_t)1 << (i % 64);
    }
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
                if (freemap)
                    give_nodes(running[i]);
                wait += (double)(running[i]->start - running[i]->submit);
                running[i--] = running[--nrun];
            }
        while (next < njobs && jobs[next].submit == now)
            queue[qlen++] = &jobs[next++];
        schedule(now);
    }
    printf("mini_easy%s: %zu jobs, mean wait %.1f s, read %.3f s, replay %.3f s\n",
           nodes ? " --nodes" : "", njobs, wait / (double)njobs, t1 - t0, now_s() - t1);
    return 0;
}
