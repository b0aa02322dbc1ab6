/* report — see report.h. */
#include "sim/report.h"

#include <math.h>

#define BSLD_TAU 10.0 /* seconds: the customary bound for very short jobs */

struct sums {
    long first_submit, last_end;
    double wait, bsld, xf, procsec;
    long max_wait;
    size_t n;
};

static void add_job(struct sums *m, const struct wl_job *w, const struct sim_outcome *o)
{
    long wait = o->start - w->submit;
    long run = o->end - o->start;
    double bsld = (double)(wait + run) / fmax((double)run, BSLD_TAU);
    if (m->n == 0 || w->submit < m->first_submit)
        m->first_submit = w->submit;
    if (m->n == 0 || o->end > m->last_end)
        m->last_end = o->end;
    m->wait += (double)wait;
    if (wait > m->max_wait)
        m->max_wait = wait;
    m->bsld += bsld < 1.0 ? 1.0 : bsld;
    m->xf += (double)(wait + w->walltime) / (double)w->walltime;
    m->procsec += (double)wl_job_procs(w) * (double)run;
    m->n++;
}

void report_compute(struct report *r, const struct workload *wl, const struct sim_outcome *out,
                    long long procs)
{
    struct sums m = {0};
    size_t rejected = 0;
    for (size_t i = 0; i < wl->njobs; i++) {
        if (out[i].rejected)
            rejected++;
        else if (out[i].end >= 0)
            add_job(&m, &wl->jobs[i], &out[i]);
    }
    r->jobs = m.n;
    r->skipped = wl->skipped;
    r->rejected = rejected;
    r->makespan = m.n ? m.last_end - m.first_submit : 0;
    r->utilization = r->makespan > 0 && procs > 0
                         ? m.procsec / ((double)procs * (double)r->makespan)
                         : 0.0;
    r->avg_wait = m.n ? m.wait / (double)m.n : 0.0;
    r->max_wait = m.max_wait;
    r->avg_bsld = m.n ? m.bsld / (double)m.n : 0.0;
    r->avg_xfactor = m.n ? m.xf / (double)m.n : 0.0;
    r->procs = procs;
}

/* "12d 03:04:05" for a duration in seconds. */
static void fmt_duration(char *buf, size_t len, double secs)
{
    long s = (long)llround(secs);
    long d = s / 86400;
    s %= 86400;
    if (d)
        snprintf(buf, len, "%ldd %02ld:%02ld:%02ld", d, s / 3600, s / 60 % 60, s % 60);
    else
        snprintf(buf, len, "%02ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
}

void report_print_text(FILE *f, const struct report *r, const char *trace, const char *policy)
{
    char mk[32], aw[32], mw[32];
    fmt_duration(mk, sizeof mk, (double)r->makespan);
    fmt_duration(aw, sizeof aw, r->avg_wait);
    fmt_duration(mw, sizeof mw, (double)r->max_wait);
    fprintf(f, "moku simulate: %s\n", trace);
    fprintf(f, "  cluster              %zu nodes, %lld processors\n", r->nodes, r->procs);
    fprintf(f, "  policy               %s\n\n", policy);
    fprintf(f, "  jobs simulated       %zu\n", r->jobs);
    fprintf(f, "  jobs skipped         %zu   (trace records that cannot be replayed)\n",
            r->skipped);
    fprintf(f, "  jobs rejected        %zu   (more processors than the cluster has)\n",
            r->rejected);
    fprintf(f, "  makespan             %ld s   (%s)\n", r->makespan, mk);
    fprintf(f, "  utilization          %.2f %%\n", 100.0 * r->utilization);
    fprintf(f, "  average wait         %.1f s   (%s)\n", r->avg_wait, aw);
    fprintf(f, "  maximum wait         %ld s   (%s)\n", r->max_wait, mw);
    fprintf(f, "  avg bounded slowdown %.3f   (tau = 10 s)\n", r->avg_bsld);
    fprintf(f, "  avg expansion factor %.3f   ((wait + walltime) / walltime)\n", r->avg_xfactor);
    fprintf(f, "  jobs backfilled      %ld\n", r->backfilled);
    fprintf(f, "  iterations           %ld\n", r->iterations);
    fprintf(f, "  wall time            %.3f s\n", r->wall_seconds);
}

void report_print_json(FILE *f, const struct report *r)
{
    fprintf(f,
            "{\"jobs\":%zu,\"skipped\":%zu,\"rejected\":%zu,\"makespan\":%ld,"
            "\"utilization\":%.6f,\"avg_wait\":%.3f,\"max_wait\":%ld,\"avg_bsld\":%.6f,"
            "\"avg_xfactor\":%.6f,\"backfilled\":%ld,\"iterations\":%ld,\"wall_seconds\":%.6f}\n",
            r->jobs, r->skipped, r->rejected, r->makespan, r->utilization, r->avg_wait,
            r->max_wait, r->avg_bsld, r->avg_xfactor, r->backfilled, r->iterations,
            r->wall_seconds);
}

int report_write_jobs_csv(FILE *f, const struct workload *wl, const struct sim_outcome *out)
{
    fprintf(f, "job_id,submit,start,end,wait,procs,walltime,runtime,backfilled,preempted\n");
    for (size_t i = 0; i < wl->njobs; i++) {
        const struct wl_job *w = &wl->jobs[i];
        const struct sim_outcome *o = &out[i];
        if (o->start < 0 || o->end < 0)
            continue; /* rejected, or not ended when the replay stopped */
        fprintf(f, "%s,%ld,%ld,%ld,%ld,%lld,%ld,%ld,%d,%d\n", w->id ? w->id : "", w->submit,
                o->start, o->end, o->start - w->submit, wl_job_procs(w), w->walltime,
                o->end - o->start, o->backfilled, o->preempted);
    }
    return ferror(f) ? -1 : 0;
}
