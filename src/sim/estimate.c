/* estimate — see estimate.h. */
#include "sim/estimate.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Walltimes stay far from the engine's "never" (2^62) and SWF's 2^40 bound. */
#define ESTIMATE_MAX ((double)((long)1 << 40))

static uint64_t splitmix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15u;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9u;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebu;
    return x ^ (x >> 31);
}

static uint64_t fnv1a(const char *s)
{
    uint64_t h = 14695981039346656037u;
    for (; s && *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211u;
    }
    return h;
}

static int number(const char *s, size_t n, double lo, double *out)
{
    char buf[64];
    if (n == 0 || n >= sizeof buf)
        return -1;
    memcpy(buf, s, n);
    buf[n] = '\0';
    char *end;
    errno = 0;
    double v = strtod(buf, &end);
    if (*end || errno || !isfinite(v) || v < lo || v > 1e6)
        return -1;
    *out = v;
    return 0;
}

int estimate_parse(const char *text, struct estimate *e, struct err *err)
{
    *e = (struct estimate){.kind = ESTIMATE_REQUEST, .seed = 1};
    if (strcmp(text, "request") == 0)
        return 0;
    if (strcmp(text, "exact") == 0) {
        e->kind = ESTIMATE_EXACT;
        return 0;
    }
    if (strncmp(text, "factor:", 7) == 0) {
        e->kind = ESTIMATE_FACTOR;
        if (number(text + 7, strlen(text + 7), 1, &e->f) == 0)
            return 0;
        return err_set(err, "--estimates factor:F needs a number F >= 1, not '%s'", text + 7);
    }
    if (strncmp(text, "fmodel:", 7) == 0) {
        const char *f = text + 7, *colon = strchr(f, ':');
        e->kind = ESTIMATE_FMODEL;
        if (number(f, colon ? (size_t)(colon - f) : strlen(f), 0, &e->f) < 0)
            return err_set(err, "--estimates fmodel:F[:SEED] needs a number F >= 0, not '%.*s'",
                           (int)(colon ? (size_t)(colon - f) : strlen(f)), f);
        if (colon) {
            char *end;
            errno = 0;
            unsigned long long s = strtoull(colon + 1, &end, 10);
            if (!colon[1] || *end || errno || colon[1] == '-')
                return err_set(err, "--estimates fmodel: the seed '%s' is not a whole number",
                               colon + 1);
            e->seed = s;
        }
        return 0;
    }
    return err_set(err, "--estimates takes request, exact, factor:F or fmodel:F[:SEED], not '%s'",
                   text);
}

long estimate_walltime(const struct estimate *e, long runtime, long request, const char *id)
{
    double r = (double)(runtime > 0 ? runtime : 0), w;
    switch (e->kind) {
    case ESTIMATE_EXACT:
        w = r;
        break;
    case ESTIMATE_FACTOR:
        w = ceil(r * e->f);
        break;
    case ESTIMATE_FMODEL: {
        double u = (double)(splitmix64(e->seed ^ fnv1a(id)) >> 11) * 0x1.0p-53;
        w = ceil(r * (1.0 + e->f * u));
        break;
    }
    default:
        return request;
    }
    if (w > ESTIMATE_MAX)
        w = ESTIMATE_MAX;
    return w >= 1 ? (long)w : 1;
}

void estimate_apply(const struct estimate *e, struct workload *wl)
{
    if (e->kind == ESTIMATE_REQUEST)
        return;
    for (size_t i = 0; i < wl->njobs; i++) {
        struct wl_job *j = &wl->jobs[i];
        /* at most ESTIMATE_MAX, 2^40: within WL_MAX_TIME */
        char id[WL_ID_LEN];
        wl_job_set_walltime(
            j, estimate_walltime(e, wl_job_runtime(j), wl_job_walltime(j), wl_job_id(wl, j, id)));
    }
}
