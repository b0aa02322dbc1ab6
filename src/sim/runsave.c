/*
 * runsave — see runsave.h.
 *
 * The layout: a magic line, a fingerprint of the build's structures, then
 * length-prefixed strings and blocks. struct report and struct plot_series
 * go as their bytes with their pointers cleared; their owned arrays follow.
 */
#include "sim/runsave.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/mem.h"

#define RUNSAVE_MAGIC "moku runsave 1\n"
#define RUNSAVE_MAX_BLOCK ((uint64_t)1 << 40)

/* What must match between the writer and the reader. */
static uint64_t fingerprint(void)
{
    return (uint64_t)sizeof(struct report) << 40 ^ (uint64_t)sizeof(struct report_group) << 28 ^
           (uint64_t)sizeof(struct plot_series) << 16 ^ (uint64_t)sizeof(struct plot_bin) << 8 ^
           (uint64_t)sizeof(long) ^ (uint64_t)REPORT_NQUANT << 48;
}

static void put_block(FILE *f, const void *p, uint64_t n)
{
    fwrite(&n, sizeof n, 1, f);
    if (p && n)
        fwrite(p, 1, (size_t)n, f);
}

static void put_str(FILE *f, const char *s)
{
    if (s)
        put_block(f, s, strlen(s) + 1);
    else
        put_block(f, NULL, 0);
}

static void put_groups(FILE *f, const struct report_group *g, size_t n)
{
    uint64_t k = n;
    fwrite(&k, sizeof k, 1, f);
    for (size_t i = 0; i < n; i++) {
        struct report_group c = g[i];
        c.name = NULL;
        fwrite(&c, sizeof c, 1, f);
        put_str(f, g[i].name);
    }
}

int runsave_write(FILE *f, const struct runsave *s, struct err *err)
{
    uint64_t fp = fingerprint();
    int32_t kn[3] = {s->k, s->n, s->resdepth};
    fputs(RUNSAVE_MAGIC, f);
    fwrite(&fp, sizeof fp, 1, f);
    fwrite(kn, sizeof kn, 1, f);
    put_str(f, s->key);
    put_str(f, s->policy);
    put_str(f, s->backfill);
    struct report r = s->r;
    r.users = r.classes = NULL;
    fwrite(&r, sizeof r, 1, f);
    put_groups(f, s->r.users, s->r.nusers);
    put_groups(f, s->r.classes, s->r.nclasses);
    struct plot_series p = s->series;
    p.bins = NULL;
    fwrite(&p, sizeof p, 1, f);
    put_block(f, s->series.bins, s->series.n * sizeof *s->series.bins);
    put_block(f, s->jobs, s->jobs ? s->njobs : 0);
    fputc(s->jobs != NULL, f);
    put_block(f, s->batsim, s->batsim ? s->nbatsim : 0);
    fputc(s->batsim != NULL, f);
    if (fflush(f) != 0 || ferror(f))
        return err_set(err, "writing the run's results failed");
    return 0;
}

/* Reading: every read checked; the first failure sticks. */
struct rd {
    FILE *f;
    int bad;
};

static void get(struct rd *r, void *p, size_t n)
{
    if (!r->bad && n && fread(p, 1, n, r->f) != n)
        r->bad = 1;
}

static void *get_block(struct rd *r, uint64_t *len)
{
    uint64_t n = 0;
    get(r, &n, sizeof n);
    if (r->bad || n > RUNSAVE_MAX_BLOCK) {
        r->bad = 1;
        return NULL;
    }
    *len = n;
    if (!n)
        return NULL;
    char *p = xmalloc((size_t)n + 1);
    get(r, p, (size_t)n);
    p[n] = '\0';
    return p;
}

static char *get_str(struct rd *r)
{
    uint64_t n;
    char *s = get_block(r, &n);
    if (s && s[n - 1] != '\0')
        r->bad = 1;
    return s;
}

static struct report_group *get_groups(struct rd *r, size_t *n)
{
    uint64_t k = 0;
    get(r, &k, sizeof k);
    if (r->bad || k > 100000000) {
        r->bad = 1;
        *n = 0;
        return NULL;
    }
    struct report_group *g = xcalloc(k ? (size_t)k : 1, sizeof *g);
    for (size_t i = 0; i < k && !r->bad; i++) {
        get(r, &g[i], sizeof g[i]);
        g[i].name = NULL;
        g[i].name = get_str(r);
        if (!g[i].name)
            r->bad = 1;
    }
    *n = (size_t)k;
    return g;
}

int runsave_read(FILE *f, const char *path, struct runsave *s, struct err *err)
{
    char magic[sizeof RUNSAVE_MAGIC];
    struct rd r = {f, 0};
    memset(s, 0, sizeof *s);
    if (!fgets(magic, sizeof magic, f) || strcmp(magic, RUNSAVE_MAGIC) != 0)
        return err_set(err, "%s: not a run's results (moku simulate --save-run)", path);
    uint64_t fp = 0;
    int32_t kn[3] = {0};
    get(&r, &fp, sizeof fp);
    if (!r.bad && fp != fingerprint())
        return err_set(err,
                       "%s: written by another build of moku: merge with the moku that "
                       "made it",
                       path);
    get(&r, kn, sizeof kn);
    s->k = kn[0];
    s->n = kn[1];
    s->resdepth = kn[2];
    s->key = get_str(&r);
    s->policy = get_str(&r);
    s->backfill = get_str(&r);
    get(&r, &s->r, sizeof s->r);
    s->r.users = s->r.classes = NULL;
    s->r.nusers = s->r.nclasses = 0;
    s->r.users = get_groups(&r, &s->r.nusers);
    s->r.classes = get_groups(&r, &s->r.nclasses);
    get(&r, &s->series, sizeof s->series);
    s->series.bins = NULL;
    uint64_t nb = 0;
    s->series.bins = get_block(&r, &nb);
    if (!r.bad && nb != s->series.n * sizeof *s->series.bins)
        r.bad = 1;
    s->series.cap = s->series.n;
    uint64_t len = 0;
    s->jobs = get_block(&r, &len);
    s->njobs = (size_t)len;
    int have = fgetc(f);
    if (have == 1 && !s->jobs)
        s->jobs = xstrdup("");
    len = 0;
    s->batsim = get_block(&r, &len);
    s->nbatsim = (size_t)len;
    have = fgetc(f);
    if (have == EOF)
        r.bad = 1;
    if (have == 1 && !s->batsim)
        s->batsim = xstrdup("");
    if (!r.bad && (s->k < 0 || s->n < 1 || s->k >= s->n || !s->key))
        r.bad = 1;
    if (r.bad) {
        runsave_free(s);
        return err_set(err, "%s: cut short or damaged", path);
    }
    return 0;
}

void runsave_free(struct runsave *s)
{
    free(s->key);
    free(s->policy);
    free(s->backfill);
    report_free(&s->r);
    plot_series_free(&s->series);
    free(s->jobs);
    free(s->batsim);
    memset(s, 0, sizeof *s);
}
