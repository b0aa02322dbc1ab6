/*
 * val_submit — the validator's reading of the `submit` lines of a
 * --commands script (docs/simulation.md, "Timed commands"): the jobs they
 * add to a replay, as facts (val_int.h). Read apart from the simulator's
 * reader (sim/sim_submit.c), as the validator reads traces apart: only
 * what its checks need — id, submission, runtime, -W depend=, -t / -J,
 * --exit — and its `qalter -W depend=` lines.
 */
#include "validate/val_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cfg/cfg.h"
#include "util/arange.h"
#include "util/mem.h"

/* What a submit line says beyond its id and runtime. */
struct sub_opts {
    const char *depend, *array;
    unsigned slots;
    int failed;
};

static void add_fact(struct val_facts *f, const char *id, long t, long runtime,
                     const struct sub_opts *so)
{
    f->v = xgrow(f->v, &f->cap, f->n + 1, sizeof *f->v);
    f->v[f->n++] = (struct val_fact){
        .id = xstrdup(id),
        .submit = t,
        .procs = -1,
        .walltime = -1,
        .runtime = runtime,
        .depend = so->depend ? xstrdup(so->depend) : NULL,
        .array = so->array ? xstrdup(so->array) : NULL,
        .slots = so->slots,
        .failed = so->failed,
    };
}

/* One submit line's words after "submit": ID RUNTIME [OPTIONS]. */
static int submit_line(struct val_facts *f, const char *path, long no, long t, char **w, size_t n,
                       struct err *err)
{
    long runtime = 0;
    if (n < 2 || cfg_parse_time(w[1], &runtime, NULL) < 0)
        return err_set(err, "%s:%ld: submit: no id and runtime", path, no);
    struct sub_opts so = {0};
    const char *range = NULL;
    int pbs = 0;
    for (size_t i = 2; i + 1 < n; i++) {
        if (strcmp(w[i], "-W") == 0 && strncmp(w[i + 1], "depend=", 7) == 0)
            so.depend = w[i + 1] + 7;
        else if (strcmp(w[i], "--exit") == 0)
            so.failed = strtol(w[i + 1], NULL, 10) != 0;
        else if (strcmp(w[i], "-t") == 0 || strcmp(w[i], "-J") == 0)
            range = w[i + 1], pbs = w[i][1] == 'J';
    }
    if (!range) {
        add_fact(f, w[0], t, runtime, &so);
        return 0;
    }
    struct arange a;
    struct err e;
    if ((pbs ? arange_parse_pbs(range, ARANGE_LIMIT_MAX, &a, &e)
             : arange_parse_torque(range, ARANGE_LIMIT_MAX, &a, &e)) < 0)
        return err_set(err, "%s:%ld: %s", path, no, e.msg);
    so.array = w[0];
    so.slots = a.slots;
    for (size_t i = 0; i < a.n; i++) {
        char id[512];
        snprintf(id, sizeof id, "%s[%u]", w[0], a.idx[i]);
        add_fact(f, id, t, runtime, &so);
    }
    arange_free(&a);
    return 0;
}

/* One qalter line's words after "qalter": -W depend=LIST JOB. */
static int qalter_line(struct val_facts *f, const char *path, long no, long t, char **w, size_t n,
                       struct err *err)
{
    if (n != 3 || strcmp(w[0], "-W") != 0 || strncmp(w[1], "depend=", 7) != 0)
        return err_set(err, "%s:%ld: qalter: not qalter -W depend=LIST JOB", path, no);
    f->alters = xgrow(f->alters, &f->capalters, f->nalters + 1, sizeof *f->alters);
    f->alters[f->nalters++] =
        (struct val_alter){.id = xstrdup(w[2]), .depend = xstrdup(w[1] + 7), .t = t};
    return 0;
}

int val_submit_read(const char *path, struct val_facts *f, struct err *err)
{
    FILE *in = fopen(path, "r");
    if (!in)
        return err_set(err, "%s: %s", path, strerror(errno));
    char line[4096];
    long no = 0;
    int rc = 0;
    while (rc == 0 && fgets(line, sizeof line, in)) {
        no++;
        char *w[64];
        size_t n = val_words(line, w, 64);
        long t = 0;
        if (n < 2 || (strcmp(w[1], "submit") != 0 && strcmp(w[1], "qalter") != 0))
            continue;
        if (cfg_parse_time(w[0], &t, NULL) < 0)
            rc = err_set(err, "%s:%ld: '%s' is not a time", path, no, w[0]);
        else if (w[1][0] == 'q')
            rc = qalter_line(f, path, no, t, w + 2, n - 2, err);
        else
            rc = submit_line(f, path, no, t, w + 2, n - 2, err);
    }
    fclose(in);
    return rc;
}

int val_dep_nth(const char *depend, size_t k, struct val_dep *d)
{
    size_t at = 0;
    const char *p = depend;
    while (p && *p) {
        size_t len = strcspn(p, ",");
        size_t tl = strcspn(p, ":,");
        if (tl < sizeof d->type)
            memcpy(d->type, p, tl), d->type[tl] = '\0';
        else
            d->type[0] = '\0';
        const char *q = p + tl;
        while (q < p + len && *q == ':') {
            q++;
            size_t il = strcspn(q, ":,");
            if (at++ == k) {
                size_t cut = strcspn(q, ".:,"); /* "12.host" is job 12 */
                il = cut < il ? cut : il;
                snprintf(d->on, sizeof d->on, "%.*s", (int)il, q);
                return 1;
            }
            q += il;
        }
        p = p[len] ? p + len + 1 : NULL;
    }
    return 0;
}
