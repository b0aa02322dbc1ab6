/*
 * slowlim — an independent, deliberately slow implementation of moku's
 * throttling limits, checked against the engine at every iteration of a
 * replay (issue 16).
 *
 *   slowlim [--skew N] maui.cfg trace.swf
 *
 * It replays the trace through moku's engine (the simulator, as `moku
 * simulate` does) and, after every scheduling iteration, works out from
 * scratch, without policy/limits.c or policy/eset.c, which waiting jobs the
 * limits admit, and compares job for job with what the engine decided:
 *
 *  - the hard walk at the iteration's start: active usage of the jobs
 *    running before the iteration, then the waiting jobs (those still
 *    waiting and those the iteration started) in priority order, each
 *    admitted when the active and idle HARD limits of its user, group and
 *    class hold with it, and counted in idle usage if admitted;
 *  - the walks after the iteration's starts, as showq lists the queue: the
 *    same with the running jobs of now and the jobs still waiting, with the
 *    SOFT limits (JOB_BLOCKED) and the HARD ones (JOB_HARDOK: a job the
 *    starts pushed over a hard limit is refused now);
 *  - every job the iteration started was admitted by one of the walks at
 *    its start, the hard one or the soft one (each counts its own idle
 *    usage, as Maui's two lists do: a job can be within its soft idle
 *    limit, behind jobs the soft walk refused, and over its hard one).
 *
 * The order is its own too: priority is the minutes of queue time (Maui's
 * default weights), at least 1, ties to the earlier submission; under
 * JOBPRIOACCRUALPOLICY QUEUEPOLICY (the default) a job a hard walk (before
 * or after the starts) refuses has its queue time start again then (Maui resets
 * SystemQueueTime), and, while the walks keep refusing it, at every
 * multiple of RMPOLLINTERVAL (60 s) since: Maui walks at every poll, moku
 * at events; under ALWAYS never.
 *
 * It reads the limits from the configuration itself: USERCFG, GROUPCFG and
 * CLASSCFG lines with MAXJOB, MAXIJOB, MAXPROC, MAXIPROC, MAXPS, MAXIPS
 * (N or SOFT,HARD; 0 unset, -1 unlimited, a soft half of 0 or -1 taking the
 * hard one; a named object's value, else DEFAULT's), and refuses (exit 2) any other parameter that
 * could change eligibility or order. Slow on purpose: every iteration walks every job.
 * --skew N raises every MAXIJOB this model reads by N: a self-test, the
 * comparison must then find differences.
 * Exit 0 when every iteration agreed, 1 otherwise (the first differences
 * are printed), 2 on a usage or input error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfg/cfg.h"
#include "engine/engine.h"
#include "sim/sim.h"
#include "sim/workload.h"

enum { K_USER, K_GROUP, K_CLASS, NKINDS };
enum { T_JOB, T_PROC, T_PS, NTYPES };
enum { ACTIVE, IDLE, NMODES };
enum { SOFT, HARD, NLEVELS };

/* One object's limits: lim[mode][type][level], 0 = not set, -1 unlimited. */
struct obj {
    char name[64];
    double lim[NMODES][NTYPES][NLEVELS];
};

static struct obj objs[NKINDS][4096];
static size_t nobjs[NKINDS];
static int accrue_always;
static double skew; /* --skew: added to every MAXIJOB read */

static const char *const kind_names[NKINDS] = {"USERCFG", "GROUPCFG", "CLASSCFG"};

static struct obj *obj_get(int k, const char *name, int make)
{
    for (size_t i = 0; i < nobjs[k]; i++)
        if (strcmp(objs[k][i].name, name) == 0)
            return &objs[k][i];
    if (!make || nobjs[k] == sizeof objs[k] / sizeof objs[k][0])
        return NULL;
    struct obj *o = &objs[k][nobjs[k]++];
    memset(o, 0, sizeof *o);
    snprintf(o->name, sizeof o->name, "%s", name);
    return o;
}

static void die_cfg(const char *path, int line, const char *what)
{
    fprintf(stderr, "slowlim: %s:%d: %s\n", path, line, what);
    exit(2);
}

/* "KEY=SOFT[,HARD]" on a *CFG line. */
static void read_attr(struct obj *o, char *tok, const char *path, int line)
{
    static const char *const keys[NMODES][NTYPES] = {{"MAXJOB", "MAXPROC", "MAXPS"},
                                                     {"MAXIJOB", "MAXIPROC", "MAXIPS"}};
    char *eq = strchr(tok, '=');
    if (!eq)
        die_cfg(path, line, "not KEY=VALUE");
    *eq = '\0';
    for (int m = 0; m < NMODES; m++)
        for (int t = 0; t < NTYPES; t++) {
            if (strcmp(tok, keys[m][t]) != 0)
                continue;
            char *comma = strchr(eq + 1, ',');
            double soft = atof(eq + 1), hard = comma ? atof(comma + 1) : soft;
            if ((soft == -1 || soft == 0) && comma) /* -1,N and 0,N: N for both */
                soft = hard;
            if (m == IDLE && t == T_JOB) {
                soft += soft > 0 ? skew : 0;
                hard += hard > 0 ? skew : 0;
            }
            o->lim[m][t][SOFT] = soft;
            o->lim[m][t][HARD] = hard;
            return;
        }
    die_cfg(path, line, "an attribute slowlim does not model");
}

static void read_config(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        perror(path);
        exit(2);
    }
    static const char *const ignored[] = {"BACKFILLPOLICY",    "RESERVATIONDEPTH",
                                          "RESERVATIONPOLICY", "NODEALLOCATIONPOLICY",
                                          "BACKFILLDEPTH",     NULL};
    char buf[4096];
    int line = 0;
    while (fgets(buf, sizeof buf, f)) {
        line++;
        char *s = buf + strspn(buf, " \t");
        if (*s == '#' || *s == '\n' || !*s)
            continue;
        char *tok = strtok(s, " \t\r\n");
        int k = -1;
        for (int i = 0; i < NKINDS; i++)
            if (strncmp(tok, kind_names[i], strlen(kind_names[i])) == 0 &&
                tok[strlen(kind_names[i])] == '[')
                k = i;
        if (k >= 0) {
            char *name = tok + strlen(kind_names[k]) + 1, *end = strchr(name, ']');
            if (!end)
                die_cfg(path, line, "no ']'");
            *end = '\0';
            struct obj *o = obj_get(k, name, 1);
            if (!o)
                die_cfg(path, line, "too many objects");
            while ((tok = strtok(NULL, " \t\r\n")))
                read_attr(o, tok, path, line);
            continue;
        }
        if (strcmp(tok, "JOBPRIOACCRUALPOLICY") == 0) {
            char *v = strtok(NULL, " \t\r\n");
            if (v && strcmp(v, "ALWAYS") == 0)
                accrue_always = 1;
            else if (!v || strcmp(v, "QUEUEPOLICY") != 0)
                die_cfg(path, line, "accrual policies other than ALWAYS and QUEUEPOLICY");
            continue;
        }
        int ok = 0;
        for (int i = 0; ignored[i]; i++)
            ok |= strncmp(tok, ignored[i], strlen(ignored[i])) == 0;
        if (!ok)
            die_cfg(path, line, "a parameter slowlim does not model");
    }
    fclose(f);
}

/* The limit of a job's object of kind k, by name: its own if set, else
 * DEFAULT's; 0 when none (unlimited). */
static double limit_of(int k, const char *name, int mode, int type, int level)
{
    const struct obj *o = obj_get(k, name, 0);
    double v = o ? o->lim[mode][type][level] : 0;
    if (v == 0 && (o = obj_get(k, "DEFAULT", 0)))
        v = o->lim[mode][type][level];
    return v > 0 ? v : 0;
}

/* ---- usage, rebuilt from scratch ---- */

/* Per kind, per object (the engine's credential index: only identity is
 * borrowed, the limits are looked up by name here): usage of each type. */
struct usage {
    double (*v[NKINDS])[NTYPES];
    size_t cap[NKINDS];
};

/* An object's limits, looked up by name once: lim[mode][type][level]. */
struct lims {
    int known;
    double lim[NMODES][NTYPES][NLEVELS];
};

static struct lims *lims_cache[NKINDS];
static size_t lims_cap[NKINDS];

static const struct cred *cred_of(const struct job *j, int k)
{
    return k == K_USER ? j->user : k == K_GROUP ? j->group : j->class_;
}

static double *use_of(struct usage *us, int k, size_t i)
{
    if (i >= us->cap[k]) {
        size_t cap = 2 * i + 64;
        us->v[k] = realloc(us->v[k], cap * sizeof *us->v[k]);
        memset(us->v[k] + us->cap[k], 0, (cap - us->cap[k]) * sizeof *us->v[k]);
        us->cap[k] = cap;
    }
    return us->v[k][i];
}

static void usage_clear(struct usage *us)
{
    for (int k = 0; k < NKINDS; k++)
        if (us->cap[k])
            memset(us->v[k], 0, us->cap[k] * sizeof *us->v[k]);
}

static const struct lims *lims_of(int k, const struct cred *c)
{
    size_t i = c->index;
    if (i >= lims_cap[k]) {
        size_t cap = 2 * i + 64;
        lims_cache[k] = realloc(lims_cache[k], cap * sizeof *lims_cache[k]);
        memset(lims_cache[k] + lims_cap[k], 0, (cap - lims_cap[k]) * sizeof *lims_cache[k]);
        lims_cap[k] = cap;
    }
    struct lims *l = &lims_cache[k][i];
    if (!l->known) {
        for (int m = 0; m < NMODES; m++)
            for (int t = 0; t < NTYPES; t++)
                for (int v = 0; v < NLEVELS; v++)
                    l->lim[m][t][v] = limit_of(k, c->name, m, t, v);
        l->known = 1;
    }
    return l;
}

static void request(const struct job *j, long seconds, double req[NTYPES])
{
    double procs = (double)j->tasks * (double)j->procs_per_task;
    req[T_JOB] = 1;
    req[T_PROC] = procs;
    req[T_PS] = procs * (double)(seconds > 0 ? seconds : 0);
}

static void usage_add(struct usage *us, const struct job *j, const double req[NTYPES])
{
    for (int k = 0; k < NKINDS; k++) {
        const struct cred *c = cred_of(j, k);
        if (!c)
            continue;
        double *v = use_of(us, k, c->index);
        for (int t = 0; t < NTYPES; t++)
            v[t] += req[t];
    }
}

/* Whether usage + req stays within j's limits of this mode and level. */
static int within(struct usage *us, const struct job *j, int mode, int level,
                  const double req[NTYPES])
{
    for (int k = 0; k < NKINDS; k++) {
        const struct cred *c = cred_of(j, k);
        if (!c)
            continue;
        const double *v = use_of(us, k, c->index);
        const struct lims *l = lims_of(k, c);
        for (int t = 0; t < NTYPES; t++) {
            double lim = l->lim[mode][t][level];
            if (lim > 0 && v[t] + req[t] > lim)
                return 0;
        }
    }
    return 1;
}

/* ---- the check, after every iteration ---- */

#define POLL 60 /* RMPOLLINTERVAL's default: the model refuses the parameter */

struct check {
    const struct workload *wl;
    long *sqt;         /* per workload job: when its queue time started */
    char *stopped;     /* per workload job: the last hard walk refused it */
    char *last;        /* per workload job: 0 unseen, 1 waiting, 2 started */
    size_t seen;       /* the engine's jobs [0, seen) are known */
    struct job **live; /* the known jobs not yet ended */
    size_t nlive, caplive;
    struct job **walk; /* the walks' jobs, in priority order (caplive of room) */
    struct usage active, idle;
    long iterations, compared, bad;
};

static long now_for_sort;
static const long *sqt_for_sort;

static double priority(const struct job *j)
{
    long q = now_for_sort - sqt_for_sort[j->tag];
    double p = q > 0 ? (double)q / 60.0 : 0.0;
    return p > 1.0 ? p : 1.0;
}

static int by_priority(const void *a, const void *b)
{
    const struct job *x = *(struct job *const *)a, *y = *(struct job *const *)b;
    double px = priority(x), py = priority(y);
    if (px != py)
        return px > py ? -1 : 1;
    if (x->submit != y->submit)
        return x->submit < y->submit ? -1 : 1;
    return (x->tag > y->tag) - (x->tag < y->tag);
}

static int waits(const struct job *j, long now)
{
    return j->state == JOB_IDLE && !j->holds && !(j->deferred_until > now);
}

static void differ(struct check *c, const struct job *j, long now, const char *what)
{
    if (c->bad++ < 10)
        fprintf(stderr, "slowlim: at %ld, job %s (user %s): %s\n", now, j->name, j->user->name,
                what);
}

/*
 * One walk over c->walk[0..n) in order at a level, against the active usage
 * in c->active: whom the active and idle limits admit, idle usage counting
 * only the admitted. started: whether the jobs the iteration started are
 * walked (the walks at its start) or not (the one after its starts).
 */
static char *walk(struct check *c, size_t n, int level, int started)
{
    char *ok = calloc(n ? n : 1, 1);
    usage_clear(&c->idle);
    for (size_t i = 0; i < n; i++) {
        struct job *j = c->walk[i];
        if (!started && j->state == JOB_RUNNING)
            continue;
        double req[NTYPES];
        request(j, j->walltime, req);
        if (within(&c->active, j, ACTIVE, level, req) && within(&c->idle, j, IDLE, level, req)) {
            ok[i] = 1;
            usage_add(&c->idle, j, req);
        }
    }
    return ok;
}

static void after_iteration(void *ctx, const struct sched *cs, long now)
{
    struct check *c = ctx;
    struct sched *s = (struct sched *)cs;
    /* The jobs not yet ended: those of the last call, and the new ones. */
    for (; c->seen < sched_njobs(s); c->seen++) {
        struct job *j = sched_job(s, c->seen);
        if (!j)
            continue;
        c->sqt[j->tag] = j->submit;
        if (c->nlive == c->caplive) {
            c->caplive = c->caplive ? 2 * c->caplive : 1024;
            c->live = realloc(c->live, c->caplive * sizeof *c->live);
            c->walk = realloc(c->walk, c->caplive * sizeof *c->walk);
        }
        c->live[c->nlive++] = j;
    }
    size_t n = 0, kept = 0;
    usage_clear(&c->active);
    for (size_t i = 0; i < c->nlive; i++) {
        struct job *j = c->live[i];
        if (j->state != JOB_IDLE && j->state != JOB_RUNNING)
            continue; /* ended: not looked at again */
        c->live[kept++] = j;
        int started_now = j->state == JOB_RUNNING && j->start == now && c->last[j->tag] != 2;
        if (j->state == JOB_RUNNING && !started_now) {
            double req[NTYPES];
            request(j, j->start + j->walltime - now, req);
            usage_add(&c->active, j, req);
        }
        if (waits(j, now) || started_now)
            c->walk[n++] = j;
    }
    c->nlive = kept;
    /* A job the hard walks keep refusing had its queue time reset at every
     * poll since the last iteration too: the last multiple of POLL before
     * now. */
    long poll = (now - 1) - (((now - 1) % POLL) + POLL) % POLL;
    for (size_t i = 0; i < n; i++) {
        long *q = &c->sqt[c->walk[i]->tag];
        if (c->stopped[c->walk[i]->tag] && *q < poll)
            *q = poll;
    }
    now_for_sort = now;
    sqt_for_sort = c->sqt;
    qsort(c->walk, n, sizeof *c->walk, by_priority);

    /* The iteration's two walks at its start, over every waiting job. */
    char *hardok = walk(c, n, HARD, 1);
    char *softok = walk(c, n, SOFT, 1);
    /* The soft walk after the starts: running now, waiting now. */
    for (size_t i = 0; i < n; i++) {
        struct job *j = c->walk[i];
        if (j->state == JOB_RUNNING) {
            double req[NTYPES];
            request(j, j->walltime, req);
            usage_add(&c->active, j, req);
        }
    }
    char *after = walk(c, n, SOFT, 0);
    char *after_hard = walk(c, n, HARD, 0);
    for (size_t i = 0; i < n; i++) {
        struct job *j = c->walk[i];
        if (j->state == JOB_RUNNING) {
            if (!hardok[i] && !softok[i])
                differ(c, j, now, "started, but neither walk admits it");
            continue;
        }
        c->compared++;
        if (after[i] != !(j->flags & JOB_BLOCKED))
            differ(c, j, now,
                   after[i] ? "eligible here, blocked by moku" : "blocked here, eligible in moku");
        if (after_hard[i] != !!(j->flags & JOB_HARDOK))
            differ(c, j, now,
                   after_hard[i] ? "within its hard limits here, not in moku"
                                 : "over a hard limit here, not in moku");
    }
    free(softok);
    free(after);
    /* Queue time starts again for the jobs a hard walk refused; it stays
     * stopped for those the last one refused. */
    for (size_t i = 0; i < n; i++) {
        if (accrue_always || c->walk[i]->state == JOB_RUNNING)
            continue;
        c->stopped[c->walk[i]->tag] = !after_hard[i];
        if (!hardok[i] || !after_hard[i])
            c->sqt[c->walk[i]->tag] = now;
    }
    free(hardok);
    free(after_hard);
    for (size_t i = 0; i < c->nlive; i++)
        c->last[c->live[i]->tag] = c->live[i]->state == JOB_IDLE ? 1 : 2;
    c->iterations++;
}

int main(int argc, char **argv)
{
    if (argc == 5 && strcmp(argv[1], "--skew") == 0) {
        skew = atof(argv[2]);
        argv += 2;
        argc -= 2;
    }
    if (argc != 3) {
        fprintf(stderr, "usage: slowlim [--skew N] maui.cfg trace.swf\n");
        return 2;
    }
    read_config(argv[1]);
    struct err e;
    struct cfg *cfg = cfg_create();
    struct sched_policy pol;
    struct workload wl;
    if (cfg_load_file(cfg, argv[1], &e) < 0 || sched_policy_from_cfg(cfg, &pol, &e) < 0 ||
        workload_read_swf(argv[2], 0, &wl, &e) < 0) {
        fprintf(stderr, "slowlim: %s\n", e.msg);
        return 2;
    }
    struct sched *s = sched_create(&pol, NULL);
    if (sched_creds_from_cfg(s, cfg, &e) < 0 || sched_limits_from_cfg(s, cfg, &e) < 0) {
        fprintf(stderr, "slowlim: %s\n", e.msg);
        return 2;
    }
    long long nodes = wl.max_nodes, ppn = 1;
    if (nodes > 0 && wl.max_procs > 0 && wl.max_procs % nodes == 0)
        ppn = wl.max_procs / nodes;
    else
        nodes = wl.max_procs;
    if (nodes <= 0) {
        fprintf(stderr, "slowlim: %s: no MaxProcs header\n", argv[2]);
        return 2;
    }
    for (long long i = 0; i < nodes; i++) {
        char name[32];
        snprintf(name, sizeof name, "n%lld", i);
        struct node_spec ns = {.name = name, .procs = (int)ppn, .state = NODE_UP};
        if (sched_add_node(s, &ns, &e) < 0) {
            fprintf(stderr, "slowlim: %s\n", e.msg);
            return 2;
        }
    }
    struct check c = {.wl = &wl,
                      .sqt = calloc(wl.njobs + 1, sizeof *c.sqt),
                      .stopped = calloc(wl.njobs + 1, 1),
                      .last = calloc(wl.njobs + 1, 1)};
    struct sim_outcome *out = calloc(wl.njobs + 1, sizeof *out);
    struct sim_hooks hooks = {.iterated = after_iteration, .ctx = &c};
    sim_run(s, &wl, out, SIM_FOREVER, &hooks);
    printf("slowlim: %zu jobs, %ld iterations, %ld waiting jobs compared, %ld differences\n",
           wl.njobs, c.iterations, c.compared, c.bad);
    sim_outcomes_free(out, wl.njobs);
    free(out);
    free(c.sqt);
    free(c.stopped);
    free(c.last);
    free(c.live);
    free(c.walk);
    for (int k = 0; k < NKINDS; k++) {
        free(c.active.v[k]);
        free(c.idle.v[k]);
        free(lims_cache[k]);
    }
    sched_destroy(s);
    cfg_destroy(cfg);
    workload_free(&wl);
    return c.bad ? 1 : 0;
}
