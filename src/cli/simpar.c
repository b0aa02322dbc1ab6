/*
 * simpar — the runs of a comparison on every processor: each run is
 * replayed by a worker process of its own (fork, after the workload is
 * read: the worker has it without reading it again, and one engine lives
 * in one process, so nothing is shared but the read-only workload). A
 * worker writes its results as a saved run (sim/runsave.h) into a file it
 * shares with the parent, its standard error into another and its
 * progress into a pipe; the parent takes the results in run order, so the
 * report, the per-job files and the log are those of one process running
 * the runs in turn.
 *
 * Processes rather than threads: a replay may call localtime, setenv (the
 * standing reservations' time zone) and the command layer, and a worker
 * that crashes takes only its run with it.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/simulate_int.h"
#include "sim/runsave.h"
#include "util/mem.h"

long simpar_workers(const struct sim_opts *o, size_t n)
{
    long w = o->workers > 0 ? o->workers : sysconf(_SC_NPROCESSORS_ONLN);
    if (w < 1)
        w = 1;
    return (size_t)w > n ? (long)n : w;
}

/* A file's whole content (caller frees); NULL and *len 0 when empty. */
static char *slurp(FILE *f, size_t *len)
{
    *len = 0;
    if (!f || fflush(f) != 0 || fseek(f, 0, SEEK_END) != 0)
        return NULL;
    long size = ftell(f);
    if (size <= 0 || fseek(f, 0, SEEK_SET) != 0)
        return NULL;
    char *p = xmalloc((size_t)size + 1);
    *len = fread(p, 1, (size_t)size, f);
    p[*len] = '\0';
    return p;
}

/* A memory writer's rows (caller frees); NULL when it was not asked for. */
static char *rows_of(struct obuf *b, size_t *len)
{
    *len = 0;
    if (!b)
        return NULL;
    const char *d = obuf_data(b, len);
    return xstrndup(d, *len);
}

int simpar_save_run(struct run *r, size_t idx, size_t n, const struct sim_opts *o,
                    const struct workload *wl, const struct sim_script *script, FILE *f)
{
    /* The rows go into the saved run, in memory until then. */
    struct outputs outs = {.jobs = o->jobs_out ? obuf_mem() : NULL,
                           .batsim = o->batsim_out ? obuf_mem() : NULL};
    int rc = 0;
    if (n == 1 && o->swf_out && !(outs.swf = sim_open_obuf(o->swf_out)))
        rc = -1;
    if (rc == 0)
        rc = sim_replay_run(r, idx, n, o, wl, script, &outs);
    if (outs.swf && sim_close_obuf(outs.swf) < 0)
        rc = -1;
    if (rc == 0) {
        struct runsave sv = {.key = o->key,
                             .k = (int)idx,
                             .n = (int)n,
                             .policy = r->policy,
                             .backfill = (char *)sim_backfill_name(r->pol.backfill),
                             .resdepth = r->pol.resdepth,
                             .r = r->report,
                             .series = r->series};
        sv.jobs = rows_of(outs.jobs, &sv.njobs);
        sv.batsim = rows_of(outs.batsim, &sv.nbatsim);
        struct err e;
        if (runsave_write(f, &sv, &e) < 0) {
            fprintf(stderr, "moku: %s\n", e.msg);
            rc = -1;
        }
        free(sv.jobs);
        free(sv.batsim);
    }
    obuf_close(outs.jobs, NULL);
    obuf_close(outs.batsim, NULL);
    return rc;
}

/* ------------------------------------------------------------ workers */

enum wstate { W_WAITING, W_RUNNING, W_DONE, W_FAILED };

struct worker {
    enum wstate state;
    pid_t pid;
    int pipe;     /* progress, read end; -1 closed */
    FILE *result; /* the saved run */
    FILE *log;    /* its standard error */
    size_t done, total;
};

struct pool {
    struct worker *w;
    size_t n, next, taken, running;
    int bar; /* a progress line on the terminal */
    struct run *runs;
    const struct sim_opts *o;
    const struct workload *wl;
    const struct sim_script *script;
};

/* The worker: replay run i, save it, leave without touching the parent's
 * stdio buffers (flushed before the fork). */
static void worker_main(struct pool *p, size_t i, int pipe_w)
{
    struct worker *w = &p->w[i];
    if (dup2(fileno(w->log), 2) < 0)
        _exit(1);
    p->runs[i].progress_fd = pipe_w;
    int rc = simpar_save_run(&p->runs[i], i, p->n, p->o, p->wl, p->script, w->result);
    fflush(w->result);
    fflush(stderr);
    _exit(rc < 0 ? 1 : 0);
}

static int start(struct pool *p, size_t i)
{
    struct worker *w = &p->w[i];
    int fds[2];
    w->result = tmpfile();
    w->log = tmpfile();
    if (!w->result || !w->log || pipe(fds) < 0) {
        fprintf(stderr, "moku: run %zu: cannot start a worker: %s\n", i + 1, strerror(errno));
        return -1;
    }
    fflush(NULL); /* nothing buffered is written twice */
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "moku: run %zu: cannot start a worker: %s\n", i + 1, strerror(errno));
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (pid == 0) {
        close(fds[0]);
        for (size_t k = 0; k < p->n; k++) /* the other workers' pipes are not ours */
            if (k != i && p->w[k].pipe >= 0)
                close(p->w[k].pipe);
        worker_main(p, i, fds[1]);
    }
    close(fds[1]);
    w->pid = pid;
    w->pipe = fds[0];
    w->state = W_RUNNING;
    p->running++;
    return 0;
}

/* The worker's pipe closed: it has ended; how? */
static void reap(struct pool *p, struct worker *w, size_t i)
{
    int status;
    close(w->pipe);
    w->pipe = -1;
    while (waitpid(w->pid, &status, 0) < 0 && errno == EINTR)
        ;
    w->state = WIFEXITED(status) && WEXITSTATUS(status) == 0 ? W_DONE : W_FAILED;
    if (WIFSIGNALED(status))
        fprintf(w->log, "moku: run %zu: the worker died (signal %d)\n", i + 1, WTERMSIG(status));
    p->running--;
}

/* Read what the running workers said: progress, or their end. */
static void poll_workers(struct pool *p)
{
    struct pollfd *fds = xcalloc(p->n, sizeof *fds);
    size_t *at = xcalloc(p->n, sizeof *at), nf = 0;
    for (size_t i = 0; i < p->n; i++)
        if (p->w[i].state == W_RUNNING) {
            fds[nf] = (struct pollfd){.fd = p->w[i].pipe, .events = POLLIN};
            at[nf++] = i;
        }
    if (poll(fds, nf, 250) > 0)
        for (size_t k = 0; k < nf; k++) {
            if (!(fds[k].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            struct worker *w = &p->w[at[k]];
            size_t msg[2];
            ssize_t got = read(w->pipe, msg, sizeof msg);
            if (got == (ssize_t)sizeof msg) {
                w->done = msg[0];
                w->total = msg[1];
            } else if (got <= 0 && !(got < 0 && errno == EINTR)) {
                reap(p, w, at[k]);
            }
        }
    free(fds);
    free(at);
}

static void clear_bar(const struct pool *p)
{
    if (p->bar)
        fprintf(stderr, "\r%*s\r", 78, "");
}

/* One line: the jobs submitted across all runs, and the runs done. */
static void draw_bar(const struct pool *p)
{
    if (!p->bar)
        return;
    double done = 0, total = 0;
    for (size_t i = 0; i < p->n; i++) {
        size_t t = p->w[i].total ? p->w[i].total : p->wl->njobs;
        total += (double)t;
        done += p->w[i].state >= W_DONE ? (double)t : (double)p->w[i].done;
    }
    int width = 30, filled = total > 0 ? (int)(done / total * width) : width;
    fprintf(stderr, "\r[%.*s%*s] %3d%%  %zu/%zu runs done, %zu running", filled,
            "##############################", width - filled, "",
            total > 0 ? (int)(100.0 * done / total) : 100, p->taken, p->n, p->running);
}

/* Take the finished runs in order: their logs to stderr, their results
 * into runs[], their rows to the outputs. -1 once a run has failed. */
static int take(struct pool *p, const struct outputs *outs)
{
    while (p->taken < p->n && p->w[p->taken].state >= W_DONE) {
        size_t i = p->taken;
        struct worker *w = &p->w[i];
        size_t len;
        char *log = slurp(w->log, &len);
        clear_bar(p);
        if (log)
            fwrite(log, 1, len, stderr);
        free(log);
        if (w->state == W_FAILED)
            return -1;
        struct runsave sv;
        struct err e;
        rewind(w->result);
        if (runsave_read(w->result, "a worker's results", &sv, &e) < 0) {
            fprintf(stderr, "moku: run %zu: %s\n", i + 1, e.msg);
            return -1;
        }
        report_free(&p->runs[i].report);
        p->runs[i].report = sv.r;
        plot_series_free(&p->runs[i].series);
        p->runs[i].series = sv.series;
        memset(&sv.r, 0, sizeof sv.r);
        memset(&sv.series, 0, sizeof sv.series);
        if (outs->jobs && sv.jobs)
            obuf_write(outs->jobs, sv.jobs, sv.njobs);
        if (outs->batsim && sv.batsim)
            obuf_write(outs->batsim, sv.batsim, sv.nbatsim);
        runsave_free(&sv);
        fclose(w->result);
        fclose(w->log);
        w->result = w->log = NULL;
        p->taken++;
    }
    return 0;
}

/* After a failure: end the workers still running (ours), and wait for them. */
static void stop_all(struct pool *p)
{
    for (size_t i = 0; i < p->n; i++) {
        struct worker *w = &p->w[i];
        if (w->state == W_RUNNING) {
            kill(w->pid, SIGTERM);
            close(w->pipe);
            while (waitpid(w->pid, NULL, 0) < 0 && errno == EINTR)
                ;
        }
        if (w->result)
            fclose(w->result);
        if (w->log)
            fclose(w->log);
    }
}

int simpar_replay(struct run *runs, size_t n, long workers, const struct sim_opts *o,
                  const struct workload *wl, const struct sim_script *script,
                  const struct outputs *outs)
{
    struct pool p = {
        .n = n, .runs = runs, .o = o, .wl = wl, .script = script, .bar = isatty(2) && !script};
    p.w = xcalloc(n, sizeof *p.w);
    for (size_t i = 0; i < n; i++)
        p.w[i].pipe = -1;
    int rc = 0;
    while (rc == 0 && p.taken < n) {
        while (rc == 0 && p.running < (size_t)workers && p.next < n)
            rc = start(&p, p.next++);
        if (rc == 0 && p.running)
            poll_workers(&p);
        if (rc == 0)
            rc = take(&p, outs);
        if (rc == 0)
            draw_bar(&p);
    }
    clear_bar(&p);
    if (rc < 0)
        stop_all(&p);
    free(p.w);
    return rc;
}
