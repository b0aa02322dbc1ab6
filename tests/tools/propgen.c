/*
 * propgen — random small scheduling cases for the property tests (issue 13 §2).
 *
 *   propgen SEED OUTDIR
 *
 * writes one case into OUTDIR (which must exist):
 *
 *   case.cfg   a maui.cfg: nodes, backfill and reservation policies, node
 *              allocation and access, priorities, throttling limits,
 *              fairshare, standing reservations;
 *   case.swf   the workload: an SWF trace, or a Maui workload trace (VERSION
 *              230) when the case uses accounts, QOS, features or memory;
 *   case.cmds  timed administrator commands (moku simulate --commands);
 *   args       the cluster options to pass (--nodes/--ppn, --procs, or none
 *              when case.cfg has NODECFG lines).
 *
 * The same seed always writes the same case: the generator has its own PRNG
 * (splitmix64) and reads no clock. It shares no code with moku and knows only
 * what docs/ say moku accepts; a case moku refuses as bad input is a bug here
 * (or a moku bug, which is the point). The properties are checked by
 * tests/integration/property.sh: every replay ends, and its schedule passes
 * `moku validate`.
 *
 * Each case draws its own "profile" (how many jobs, how they arrive, how long
 * they run, which policies) so that a few hundred seeds reach corners that one
 * fixed distribution would not: everything at one instant, walltimes far
 * below or above the runtimes, jobs bigger than a node or than the cluster.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ PRNG */

static uint64_t rng_state;

static uint64_t rng_next(void)
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* Uniform in [lo, hi] (hi >= lo). */
static long rnd(long lo, long hi)
{
    if (hi <= lo)
        return lo;
    return lo + (long)(rng_next() % (uint64_t)(hi - lo + 1));
}

/* True with probability pct percent. */
static int chance(int pct)
{
    return rnd(0, 99) < pct;
}

#define PICK(arr) ((arr)[rnd(0, (long)(sizeof(arr) / sizeof((arr)[0])) - 1)])

/* ----------------------------------------------------------------- model */

#define MAXNODES 8
#define MAXJOBS 60
#define NFEAT 3

static const char *const features[NFEAT + 1] = {"fa", "fb", "fc", "fz"}; /* fz: on no node */

struct gnode {
    char name[16];
    int procs;
    long mem;      /* MB, 0 = not configured */
    unsigned feat; /* bit i: features[i] */
    int down;      /* STATE=Down or Drained */
    int part;      /* PARTITION=p<part>, 0 = none */
};

struct gjob {
    char id[16];
    long submit, runtime, walltime;        /* walltime -1: none given (SWF: the runtime) */
    long procs;                            /* processors asked for; 0: a record to skip */
    int ppt;                               /* Maui: processors per task */
    int nodes;                             /* Maui: node count asked, 0 = none */
    int user, group, account, class_, qos; /* indices; -1 = none */
    int feat;                              /* -1 or an index of features[] */
    int part;                              /* Maui: partition p<part> asked, 0 = none */
    long mem;                              /* Maui: MB per task, 0 = none */
    int skip;                              /* a record the simulator skips */
};

static struct {
    int maui;       /* Maui workload trace, else SWF */
    int harsh;      /* this case's profile: more of everything, tighter limits */
    long epoch;     /* Maui: trace clock at time 0; SWF: UnixStartTime (or 0) */
    int swf_header; /* SWF: write the UnixStartTime header */
    int nodecfg;    /* NODECFG lines, else --nodes/--ppn or --procs */
    int nnodes;
    struct gnode node[MAXNODES];
    long ptotal, pmax; /* processors up: in all, on the largest node */
    int has_mem, has_feat, has_part;
    int njobs;
    struct gjob job[MAXJOBS];
    long horizon; /* roughly when the last job could end, trace time */
    int nusers, ngroups, naccounts, nclasses, nqos;
    int preempt_sr; /* some standing reservation has OWNERPREEMPT */
} C;

/* Credential names. SWF carries users, groups and queues as numbers. */
static const char *user_name(int i)
{
    static char buf[8][16];
    static int k;
    char *b = buf[k++ % 8];
    snprintf(b, 16, C.maui ? "u%d" : "%d", i + 1);
    return b;
}

static const char *group_name(int i)
{
    static char buf[8][16];
    static int k;
    char *b = buf[k++ % 8];
    snprintf(b, 16, C.maui ? "g%d" : "%d", i + 1);
    return b;
}

static const char *class_name(int i)
{
    static char buf[8][16];
    static int k;
    char *b = buf[k++ % 8];
    snprintf(b, 16, C.maui ? "c%d" : "%d", i + 1);
    return b;
}

static const char *account_name(int i)
{
    static char buf[8][16];
    static int k;
    char *b = buf[k++ % 8];
    snprintf(b, 16, "a%d", i + 1);
    return b;
}

static const char *qos_name(int i)
{
    static char buf[8][16];
    static int k;
    char *b = buf[k++ % 8];
    snprintf(b, 16, "q%d", i + 1);
    return b;
}

/* ------------------------------------------------------------ output */

static FILE *out_open(const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        exit(2);
    }
    return f;
}

static void out_close(FILE *f)
{
    if (ferror(f) || fclose(f) != 0) {
        perror("propgen: write");
        exit(2);
    }
}

/* A time as maui.cfg writes it: seconds, or HH:MM:SS, or DD:HH:MM:SS. */
static const char *fmt_time(long t)
{
    static char buf[8][32];
    static int k;
    char *b = buf[k++ % 8];
    int form = (int)rnd(0, 2);
    if (t < 0 || form == 0)
        snprintf(b, 32, "%ld", t);
    else if (form == 1 || t < 86400)
        snprintf(b, 32, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
    else
        snprintf(b, 32, "%ld:%02ld:%02ld:%02ld", t / 86400, t / 3600 % 24, t / 60 % 60, t % 60);
    return b;
}

/* -------------------------------------------------------------- cluster */

static void gen_cluster(void)
{
    C.nnodes = (int)rnd(1, MAXNODES);
    int homog = chance(50);
    int ppn = (int)rnd(1, 8);
    C.has_mem = chance(25);
    C.has_feat = chance(30);
    C.has_part = chance(10);
    C.nodecfg = !homog || C.has_mem || C.has_feat || C.has_part || chance(40);
    C.ptotal = C.pmax = 0;
    for (int i = 0; i < C.nnodes; i++) {
        struct gnode *n = &C.node[i];
        snprintf(n->name, sizeof n->name, C.nodecfg ? "n%d" : "node%d", i + 1);
        n->procs = homog ? ppn : (int)rnd(1, 8);
        n->mem = C.has_mem ? 512 * rnd(1, 8) : 0;
        n->feat = C.has_feat ? (unsigned)rnd(0, (1 << NFEAT) - 1) : 0;
        n->down = C.nodecfg && C.nnodes > 1 && chance(5);
        n->part = C.has_part ? (int)rnd(1, 2) : 0;
        if (!n->down) {
            C.ptotal += n->procs;
            if (n->procs > C.pmax)
                C.pmax = n->procs;
        }
    }
    if (C.ptotal == 0) { /* keep one node up: a case of nothing is no test */
        C.node[0].down = 0;
        C.ptotal = C.pmax = C.node[0].procs;
    }
}

/* ----------------------------------------------------------------- jobs */

static long gen_runtime(long scale)
{
    if (chance(5))
        return 0;
    return rnd(1, 2 * scale);
}

static long gen_walltime(long runtime)
{
    static const long huge[] = {1000000L, 1000000000L, 2147483648L, 1099511627775L};
    int k = (int)rnd(0, 99);
    if (k < 45)
        return runtime + rnd(0, runtime + 60);
    if (k < 60)
        return runtime > 0 ? runtime : 1;
    if (k < 75) /* the job overruns: killed at walltime + JOBMAXOVERRUN */
        return runtime > 1 ? rnd(1, runtime - 1) : 1;
    if (k < 82)
        return PICK(huge);
    return -1;
}

static long gen_procs(void)
{
    int k = (int)rnd(0, 99);
    if (k < 55)
        return rnd(1, C.pmax);
    if (k < 80)
        return rnd(1, C.ptotal);
    if (k < 85)
        return C.ptotal;
    if (k < 92 && C.ptotal > C.pmax)
        return rnd(C.pmax + 1, C.ptotal); /* bigger than any node */
    if (k < 96)
        return rnd(C.ptotal + 1, 2 * C.ptotal + 3); /* bigger than the cluster */
    return 1;
}

static void gen_submits(void)
{
    int mode = (int)rnd(0, 3);
    static const long gaps[] = {1, 5, 60, 600, 3600};
    long gap = PICK(gaps), t = chance(20) ? rnd(0, 7200) : 0;
    for (int i = 0; i < C.njobs; i++) {
        C.job[i].submit = t;
        if (mode == 0)
            continue; /* everything at one instant */
        if (mode == 3 && chance(60))
            continue; /* bursts of equal submit times */
        t += rnd(0, 2 * gap);
    }
}

static void gen_job(int i, long scale)
{
    struct gjob *j = &C.job[i];
    snprintf(j->id, sizeof j->id, C.maui && chance(50) ? "j%d" : "%d", i + 1);
    j->runtime = gen_runtime(scale);
    j->walltime = gen_walltime(j->runtime);
    if (C.maui && j->walltime < 0)
        j->walltime = 0; /* Maui: <= 0 falls back to the runtime */
    j->procs = gen_procs();
    j->ppt = 1;
    if (C.maui && j->procs % 2 == 0 && chance(C.harsh ? 50 : 25))
        j->ppt = 2;
    if (C.maui && j->procs % 3 == 0 && chance(C.harsh ? 25 : 5))
        j->ppt = 3;
    j->nodes = C.maui && chance(15) ? (int)rnd(1, j->procs / j->ppt) : 0;
    j->user = (int)rnd(0, C.nusers - 1);
    j->group = chance(80) ? j->user % C.ngroups : (int)rnd(0, C.ngroups - 1);
    j->class_ = (int)rnd(0, C.nclasses - 1);
    j->account = C.maui && chance(80) ? (int)rnd(0, C.naccounts - 1) : -1;
    j->qos = C.maui && chance(60) ? (int)rnd(0, C.nqos) : -1; /* nqos: one no QOSCFG names */
    j->feat = C.maui && C.has_feat && chance(25) ? (int)rnd(0, NFEAT) : -1;
    if (C.maui && chance(3))
        j->feat = NFEAT; /* a feature no node has: never starts */
    j->mem = C.maui && C.has_mem && chance(25) ? 256 * rnd(1, 17) : 0;
    j->part = C.maui && C.has_part && chance(40) ? (int)rnd(1, 3) : 0; /* p3: on no node */
    j->skip = chance(3);
}

static void gen_jobs(void)
{
    int k = (int)rnd(0, 9);
    C.njobs = k < 4 ? (int)rnd(1, 10) : k < 8 ? (int)rnd(10, 30) : (int)rnd(30, MAXJOBS);
    static const long scales[] = {10, 300, 3600, 36000};
    long scale = PICK(scales);
    C.nusers = (int)rnd(1, 5);
    C.ngroups = (int)rnd(1, 3);
    C.nclasses = (int)rnd(1, 3);
    C.naccounts = (int)rnd(1, 3);
    C.nqos = (int)rnd(1, 3);
    gen_submits();
    C.horizon = 0;
    for (int i = 0; i < C.njobs; i++) {
        gen_job(i, scale);
        long end = C.job[i].submit + 2 * scale;
        if (end > C.horizon)
            C.horizon = end;
    }
}

static void write_swf(FILE *f)
{
    if (C.swf_header)
        fprintf(f, "; UnixStartTime: %ld\n", C.epoch);
    fprintf(f, "; MaxProcs: %ld\n", C.ptotal);
    for (int i = 0; i < C.njobs; i++) {
        const struct gjob *j = &C.job[i];
        long runtime = j->runtime, req = j->procs, alloc = -1;
        if (j->skip && chance(50))
            runtime = -1;
        else if (j->skip)
            req = -1;
        else if (chance(15)) /* requested processors absent: allocated ones count */
            alloc = req, req = -1;
        else if (chance(50))
            alloc = req;
        fprintf(f, "%s %ld -1 %ld %ld -1 -1 %ld %ld -1 1 %s %s -1 %s -1 -1 -1\n", j->id, j->submit,
                runtime, alloc, req, j->walltime, user_name(j->user), group_name(j->group),
                class_name(j->class_));
    }
}

static void write_maui(FILE *f)
{
    fprintf(f, "VERSION 230\n");
    for (int i = 0; i < C.njobs; i++) {
        const struct gjob *j = &C.job[i];
        long sub = C.epoch + j->submit, start = sub + rnd(0, 100);
        char feat[32] = "[NONE]", qos[32] = "[NONE]", acct[16] = "[NONE]", part[16] = "[NONE]";
        if (j->feat >= 0)
            snprintf(feat, sizeof feat, "[%s]", features[j->feat]);
        if (j->qos >= 0)
            snprintf(qos, sizeof qos, "%s", qos_name(j->qos));
        if (j->account >= 0)
            snprintf(acct, sizeof acct, "%s", account_name(j->account));
        if (j->part)
            snprintf(part, sizeof part, "p%d", j->part);
        fprintf(f,
                "%s %d %ld %s %s %ld %s [%s:1] %ld %ld %ld %ld [NONE] [NONE] [NONE] >= 0 >= 0 %s "
                "%ld %ld -1 %s [NONE] %s [NONE] [NONE] 0 0.0 %s %d %ld 0 0 0 0 [NONE] 0 "
                "[NONE] [NONE] [NONE] [NONE] [NONE]\n",
                j->id, j->nodes, j->procs / j->ppt, user_name(j->user), group_name(j->group),
                j->walltime, j->skip ? "NotRun" : "Completed", class_name(j->class_), sub, start,
                start, start + j->runtime, feat, sub, j->procs / j->ppt, qos, acct, part, j->ppt,
                j->mem);
    }
}

/* --------------------------------------------------------------- config */

static FILE *cfg;

static void line(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfprintf(cfg, fmt, ap);
    va_end(ap);
    fputc('\n', cfg);
}

static void gen_nodes_cfg(void)
{
    if (!C.nodecfg)
        return;
    if (chance(15))
        line("NODECFG[DEFAULT] PRIORITY=%d", (int)rnd(0, 10));
    for (int i = 0; i < C.nnodes; i++) {
        const struct gnode *n = &C.node[i];
        char extra[256] = "";
        size_t k = 0;
        if (n->mem)
            k += (size_t)snprintf(extra + k, sizeof extra - k, " MEMORY=%ld", n->mem);
        if (n->feat) {
            k += (size_t)snprintf(extra + k, sizeof extra - k, " FEATURES=");
            const char *sep = "";
            for (int b = 0; b < NFEAT; b++)
                if (n->feat & (1u << b)) {
                    k += (size_t)snprintf(extra + k, sizeof extra - k, "%s%s", sep, features[b]);
                    sep = ",";
                }
        }
        if (chance(20))
            k += (size_t)snprintf(extra + k, sizeof extra - k, " PRIORITY=%d", (int)rnd(-5, 20));
        if (chance(20))
            k += (size_t)snprintf(extra + k, sizeof extra - k, " SPEED=%.1f",
                                  (double)rnd(5, 20) / 10.0);
        if (n->part)
            k += (size_t)snprintf(extra + k, sizeof extra - k, " PARTITION=p%d", n->part);
        if (n->down)
            k += (size_t)snprintf(extra + k, sizeof extra - k, " STATE=%s",
                                  chance(50) ? "Down" : "Drained");
        line("NODECFG[%s] PROCS=%d%s", n->name, n->procs, extra);
    }
}

static void gen_policy_cfg(void)
{
    static const char *const bf[] = {"FIRSTFIT", "FIRSTFIT", "BESTFIT",
                                     "GREEDY",   "PREEMPT",  "NONE"};
    static const char *const metric[] = {"PROCS", "NODES", "PROCSECONDS", "SECONDS", "PE"};
    static const char *const bfprio[] = {"RANDOM", "DURATION", "HWDURATION", "NONE"};
    static const char *const respol[] = {"CURRENTHIGHEST", "HIGHEST", "NEVER"};
    static const char *const thresh[] = {"BYPASS", "QUEUETIME", "XFACTOR"};
    static const char *const alloc[] = {"FIRSTAVAILABLE", "LASTAVAILABLE", "MINRESOURCE", "CPULOAD",
                                        "PRIORITY",       "FASTEST",       "MAXBALANCE"};
    static const char *const access[] = {"SHARED", "SINGLEJOB", "SINGLETASK", "SINGLEUSER"};
    static const long depth[] = {0, 1, 1, 2, 3, 10, 1000000};
    const char *policy = PICK(bf);
    if (chance(90))
        line("BACKFILLPOLICY %s", policy);
    if (chance(20))
        line("BACKFILLDEPTH %d", (int)rnd(0, 5));
    if (chance(25))
        line("BACKFILLMETRIC %s", PICK(metric));
    if (chance(15))
        line("BACKFILLMAXSCHEDULES %d", (int)rnd(1, 50));
    if (chance(20))
        line("BFPRIORITYPOLICY %s", PICK(bfprio));
    if (chance(10)) {
        line("BFCHUNKSIZE %d", (int)rnd(1, (int)C.ptotal));
        line("BFCHUNKDURATION %s", fmt_time(rnd(0, 600)));
    }
    if (chance(70))
        line("RESERVATIONDEPTH %ld", PICK(depth));
    if (chance(15)) {
        line("RESERVATIONDEPTH[1] %ld", PICK(depth));
        line("RESERVATIONQOSLIST[1] %s", chance(50) ? "q1" : "q2,q3");
    }
    if (chance(40))
        line("RESERVATIONPOLICY %s", PICK(respol));
    if (chance(10)) {
        line("RESERVATIONTHRESHOLDTYPE %s", PICK(thresh));
        line("RESERVATIONTHRESHOLDVALUE %d", (int)rnd(0, 100));
    }
    if (chance(50))
        line("NODEALLOCATIONPOLICY %s", PICK(alloc));
    if (chance(35))
        line("NODEACCESSPOLICY %s", PICK(access));
    if (chance(40)) {
        static const char *const overrun[] = {"0", "-1", "60", "0:10:00", "1:00:00"};
        line("JOBMAXOVERRUN %s", PICK(overrun));
    }
    if (chance(20) || (C.preempt_sr && chance(50)))
        line("PREEMPTPOLICY %s", chance(50) ? "REQUEUE" : "SUSPEND");
}

/* A random credential object: KIND, its name (or DEFAULT). */
static void pick_cred(const char **kind, const char **name, int allow_sys)
{
    int k = (int)rnd(0, allow_sys ? 5 : 4);
    if (!C.maui && k == 2)
        k = 0; /* no accounts in SWF */
    int dflt = chance(35);
    switch (k) {
    case 0:
        *kind = "USERCFG";
        *name = dflt ? "DEFAULT" : user_name((int)rnd(0, C.nusers - 1));
        break;
    case 1:
        *kind = "GROUPCFG";
        *name = dflt ? "DEFAULT" : group_name((int)rnd(0, C.ngroups - 1));
        break;
    case 2:
        *kind = "ACCOUNTCFG";
        *name = dflt ? "DEFAULT" : account_name((int)rnd(0, C.naccounts - 1));
        break;
    case 3:
        *kind = "CLASSCFG";
        *name = dflt ? "DEFAULT" : class_name((int)rnd(0, C.nclasses - 1));
        break;
    case 4:
        *kind = "QOSCFG";
        *name = dflt ? "DEFAULT" : qos_name((int)rnd(0, C.nqos - 1));
        break;
    default:
        *kind = "SYSCFG";
        *name = NULL;
        break;
    }
}

static void cred_line(const char *kind, const char *name, const char *fmt, ...)
{
    va_list ap;
    if (name)
        fprintf(cfg, "%s[%s] ", kind, name);
    else
        fprintf(cfg, "%s ", kind);
    va_start(ap, fmt);
    vfprintf(cfg, fmt, ap);
    va_end(ap);
    fputc('\n', cfg);
}

static void gen_priority_cfg(void)
{
    if (chance(40))
        line("QUEUETIMEWEIGHT %d", (int)rnd(-2, 10));
    if (chance(30))
        line("XFACTORWEIGHT %d", (int)rnd(0, 1000));
    if (chance(10))
        line("XFMINWCLIMIT %s", chance(30) ? "-1" : fmt_time(rnd(0, 600)));
    if (chance(15))
        line("SERVWEIGHT %d", (int)rnd(0, 5));
    if (chance(15)) {
        line("RESWEIGHT %d", (int)rnd(1, 5));
        line("PROCWEIGHT %d", (int)rnd(-100, 100));
    }
    if (chance(10))
        line("BYPASSWEIGHT %d", (int)rnd(0, 100));
    if (chance(35)) {
        line("CREDWEIGHT %d", (int)rnd(1, 10));
        if (chance(70))
            line("USERWEIGHT %d", (int)rnd(1, 10));
        if (chance(50))
            line("GROUPWEIGHT %d", (int)rnd(1, 10));
        if (chance(50))
            line("CLASSWEIGHT %d", (int)rnd(1, 10));
        if (chance(50))
            line("QOSWEIGHT %d", (int)rnd(1, 10));
        if (C.maui && chance(50))
            line("ACCOUNTWEIGHT %d", (int)rnd(1, 10));
        for (int n = (int)rnd(1, 4); n > 0; n--) {
            const char *kind, *name;
            pick_cred(&kind, &name, 0);
            cred_line(kind, name, "PRIORITY=%d", (int)rnd(-1000, 10000));
        }
    }
    if (chance(10))
        line("%s TRUE", chance(50) ? "REJECTNEGPRIOJOBS" : "ENABLENEGJOBPRIORITY");
    if (chance(15)) {
        static const char *const accrual[] = {"ALWAYS", "QUEUEPOLICY", "FULLPOLICY"};
        line("JOBPRIOACCRUALPOLICY %s", PICK(accrual));
    }
    if (chance(15)) {
        const char *q = qos_name((int)rnd(0, C.nqos - 1));
        switch ((int)rnd(0, 3)) {
        case 0:
            line("QOSCFG[%s] QTWEIGHT=%d", q, (int)rnd(1, 5000));
            break;
        case 1:
            line("QOSCFG[%s] XFWEIGHT=%d", q, (int)rnd(1, 100));
            break;
        case 2:
            line("TARGWEIGHT 1");
            line("TARGETQUEUETIMEWEIGHT %d", (int)rnd(1, 10));
            line("QOSCFG[%s] QTTARGET=%s", q, fmt_time(rnd(60, 7200)));
            break;
        default:
            line("TARGWEIGHT 1");
            line("TARGETXFACTORWEIGHT %d", (int)rnd(1, 10));
            line("QOSCFG[%s] XFTARGET=%.1f", q, (double)rnd(11, 50) / 10.0);
            break;
        }
    }
}

/* QOS membership: without QLIST/QDEF any job may have any QOS it asks for. */
static void gen_qos_access(void)
{
    if (!chance(30))
        return;
    for (int n = (int)rnd(1, 3); n > 0; n--) {
        const char *kind, *name;
        pick_cred(&kind, &name, 0);
        if (strcmp(kind, "QOSCFG") == 0)
            continue;
        if (chance(50))
            cred_line(kind, name, "QDEF=%s", qos_name((int)rnd(0, C.nqos - 1)));
        else
            cred_line(kind, name, "QLIST=%s%s%s", qos_name(0), chance(50) ? ":" : ",",
                      qos_name((int)rnd(0, C.nqos - 1)));
    }
}

/* "N" or "SOFT,HARD" with SOFT <= HARD, sometimes unlimited; times as maui.cfg writes them. */
static void limit_value(char *buf, size_t size, long lo, long hi, int time)
{
    long h = rnd(lo, hi), s = rnd(lo, h);
    char hs[32], ss[32];
    snprintf(hs, sizeof hs, "%s", time ? fmt_time(h) : "");
    snprintf(ss, sizeof ss, "%s", time ? fmt_time(s) : "");
    if (!time) {
        snprintf(hs, sizeof hs, "%ld", h);
        snprintf(ss, sizeof ss, "%ld", s);
    }
    int k = (int)rnd(0, 9);
    if (k == 0)
        snprintf(buf, size, "-1");
    else if (k < 5)
        snprintf(buf, size, "%s", hs);
    else if (k < 9)
        snprintf(buf, size, "%s,%s", ss, hs);
    else
        snprintf(buf, size, "%s,-1", ss);
}

static void gen_limits_cfg(void)
{
    if (!chance(C.harsh ? 70 : 45))
        return;
    static const char *const attrs[] = {"MAXJOB",  "MAXPROC", "MAXPS", "MAXIJOB", "MAXIPROC",
                                        "MAXNODE", "MAXWC",   "MAXPE", "MAXIPS",  "MAXMEM"};
    long ps = C.ptotal * (C.harsh ? 600 : 3600);
    for (int n = (int)rnd(1, C.harsh ? 8 : 5); n > 0; n--) {
        const char *kind, *name, *a = PICK(attrs);
        char v[64];
        pick_cred(&kind, &name, 1);
        if (strcmp(a, "MAXPS") == 0 || strcmp(a, "MAXIPS") == 0)
            limit_value(v, sizeof v, 50, 2 * ps, 0);
        else if (strcmp(a, "MAXWC") == 0)
            limit_value(v, sizeof v, 60, 86400, 1);
        else if (strcmp(a, "MAXMEM") == 0)
            limit_value(v, sizeof v, 256, 8192, 0);
        else if (strcmp(a, "MAXPROC") == 0 || strcmp(a, "MAXIPROC") == 0 || strcmp(a, "MAXPE") == 0)
            limit_value(v, sizeof v, 1, C.ptotal + 2, 0);
        else
            limit_value(v, sizeof v, 1, 6, 0);
        cred_line(kind, name, "%s=%s", a, v);
    }
    if (chance(25)) { /* per-user (per-group) limits inside an object */
        static const char *const outer[] = {"CLASSCFG", "QOSCFG", "GROUPCFG"};
        const char *o = PICK(outer);
        const char *name = strcmp(o, "CLASSCFG") == 0 ? class_name((int)rnd(0, C.nclasses - 1))
                           : strcmp(o, "QOSCFG") == 0 ? qos_name((int)rnd(0, C.nqos - 1))
                                                      : group_name((int)rnd(0, C.ngroups - 1));
        if (chance(30))
            name = "DEFAULT";
        const char *who = chance(60) ? "USER" : "USER:";
        if (strcmp(o, "GROUPCFG") != 0 && chance(30))
            who = "GROUP";
        char idx[32];
        snprintf(idx, sizeof idx, "%s%s", who, strcmp(who, "USER:") == 0 ? user_name(0) : "");
        cred_line(o, name, "%s[%s]=%d", chance(50) ? "MAXJOB" : "MAXPROC", idx, (int)rnd(1, 4));
    }
    if (chance(20)) { /* per-job limits */
        const char *kind, *name;
        pick_cred(&kind, &name, 1);
        switch ((int)rnd(0, 2)) {
        case 0:
            cred_line(kind, name, "MAX.WCLIMIT=%s", fmt_time(rnd(60, 100000)));
            break;
        case 1:
            cred_line(kind, name, "MAXPROCPERJOB=%d", (int)rnd(1, (int)C.ptotal));
            break;
        default:
            cred_line(kind, name, "MAXNODEPERJOB=%d", (int)rnd(1, C.nnodes));
            break;
        }
    }
    if (chance(15)) { /* QOS overrides and flags */
        static const char *const flags[] = {"IGNJOBPERUSER",       "IGNPROCPERUSER", "IGNPSPERUSER",
                                            "IGNJOBQUEUEDPERUSER", "IGNSYSMAXPROC",  "IGNALL"};
        const char *q = chance(30) ? "DEFAULT" : qos_name((int)rnd(0, C.nqos - 1));
        if (chance(50))
            line("QOSCFG[%s] QFLAGS=%s", q, PICK(flags));
        else
            line("QOSCFG[%s] OMAXJOB=%d", q, (int)rnd(1, 5));
    }
    if (chance(8))
        line("MAXJOBPERUSERCOUNT %d", (int)rnd(1, 4));
}

static void gen_fairshare_cfg(void)
{
    if (!chance(30))
        return;
    static const char *const pol[] = {"DEDICATEDPS", "DEDICATEDPES", "UTILIZEDPS"};
    line("FSPOLICY %s%s", PICK(pol), chance(20) ? "%" : "");
    if (chance(80))
        line("FSINTERVAL %s", fmt_time(rnd(60, 43200)));
    if (chance(60))
        line("FSDEPTH %d", (int)rnd(1, 24));
    if (chance(40))
        line("FSDECAY %.2f", (double)rnd(0, 100) / 100.0);
    if (chance(60))
        line("FSWEIGHT %d", (int)rnd(1, 100));
    if (chance(60))
        line("FSUSERWEIGHT %d", (int)rnd(1, 10));
    if (chance(30))
        line("FSGROUPWEIGHT %d", (int)rnd(1, 10));
    if (chance(20))
        line("FSQOSWEIGHT %d", (int)rnd(1, 10));
    for (int n = (int)rnd(1, 4); n > 0; n--) {
        const char *kind, *name;
        pick_cred(&kind, &name, 0);
        switch ((int)rnd(0, 5)) {
        case 0:
            cred_line(kind, name, "FSTARGET=%d", (int)rnd(1, 100));
            break;
        case 1:
            cred_line(kind, name, "FSTARGET=%d+", (int)rnd(1, 100));
            break;
        case 2:
            cred_line(kind, name, "FSTARGET=%d-", (int)rnd(1, 100));
            break;
        case 3:
        case 4:
            cred_line(kind, name, "FSTARGET=%d%%", (int)rnd(1, 100));
            break;
        default:
            cred_line(kind, name, "FSTARGET=%ld^", rnd(100, C.ptotal * 20000));
            break;
        }
    }
}

/* An ACL list: one to three names with optional marks. */
static void acl_list(char *buf, size_t size, const char *(*name)(int), int count)
{
    static const char *const pre[] = {"", "", "", "!"};
    static const char *const post[] = {"", "", "", "*", "+", "-", "="};
    size_t k = 0;
    for (int n = (int)rnd(1, 3); n > 0 && k < size; n--) {
        const char *p = PICK(pre);
        k += (size_t)snprintf(buf + k, size - k, "%s%s%s%s", k ? "," : "", p,
                              name((int)rnd(0, count - 1)), *p ? "" : PICK(post));
    }
}

static void gen_sr(int idx)
{
    char name[16], v[256];
    snprintf(name, sizeof name, "sr%d", idx);
    /* Where: fixed hosts, or a floating task count. */
    if (chance(50)) {
        size_t k = 0;
        if (chance(15)) {
            snprintf(v, sizeof v, chance(50) ? "ALL" : C.nodecfg ? "n[12]" : "node[12]");
        } else {
            for (int i = 0; i < C.nnodes; i++)
                if (chance(40) || (k == 0 && i == C.nnodes - 1))
                    k +=
                        (size_t)snprintf(v + k, sizeof v - k, "%s%s", k ? "," : "", C.node[i].name);
        }
        line("SRCFG[%s] HOSTLIST=%s", name, v);
    } else {
        line("SRCFG[%s] TASKCOUNT=%d", name, (int)rnd(1, C.nnodes + 1));
        if (chance(40))
            line("SRCFG[%s] RESOURCES=PROCS:%d", name, (int)rnd(1, (int)C.pmax));
        if (C.has_feat && chance(30))
            line("SRCFG[%s] NODEFEATURES=%s", name, features[rnd(0, NFEAT - 1)]);
    }
    /* When. */
    switch ((int)rnd(0, 4)) {
    case 0:
        line("SRCFG[%s] PERIOD=INFINITY", name);
        break;
    case 1: { /* a daily window */
        long s = rnd(0, 23) * 3600 + rnd(0, 3) * 900, e = rnd(0, 24) * 3600;
        if (e == s)
            e = (s + 3600) % 86400;
        line("SRCFG[%s] STARTTIME=%s ENDTIME=%s", name, fmt_time(s), fmt_time(e));
        if (chance(40))
            line("SRCFG[%s] DAYS=%s", name, chance(50) ? "MON,TUE,WED,THU,FRI" : "Sun,Wed,Sat");
        break;
    }
    case 2: { /* a weekly window */
        long s = rnd(0, 6) * 86400 + rnd(0, 23) * 3600;
        long e = s + rnd(1, 48) * 3600;
        if (e > 7 * 86400)
            e = 7 * 86400;
        line("SRCFG[%s] PERIOD=WEEK STARTTIME=%ld:%02ld:00:00 ENDTIME=%ld:%02ld:00:00", name,
             s / 86400, s / 3600 % 24, e / 86400, e / 3600 % 24);
        break;
    }
    case 3:
        line("SRCFG[%s] PERIOD=DAY", name);
        break;
    default:
        break; /* the defaults: every day, all day */
    }
    if (chance(20))
        line("SRCFG[%s] DEPTH=%d", name, (int)rnd(1, 4));
    /* Who. */
    int owner = 0;
    if (chance(45)) {
        acl_list(v, sizeof v, user_name, C.nusers);
        line("SRCFG[%s] USERLIST=%s", name, v);
        owner = 1;
    }
    if (chance(25)) {
        acl_list(v, sizeof v, group_name, C.ngroups);
        line("SRCFG[%s] GROUPLIST=%s", name, v);
    }
    if (chance(20)) {
        acl_list(v, sizeof v, class_name, C.nclasses);
        line("SRCFG[%s] CLASSLIST=%s", name, v);
    }
    if (C.maui && chance(20)) {
        acl_list(v, sizeof v, account_name, C.naccounts);
        line("SRCFG[%s] ACCOUNTLIST=%s", name, v);
    }
    if (chance(15)) {
        acl_list(v, sizeof v, qos_name, C.nqos);
        line("SRCFG[%s] QOSLIST=%s", name, v);
    }
    if (chance(20))
        line("SRCFG[%s] TIMELIMIT=%s", name, fmt_time(rnd(60, 14400)));
    /* How. */
    char flags[128] = "";
    size_t k = 0;
    if (chance(15))
        k += (size_t)snprintf(flags + k, sizeof flags - k, "%sBESTEFFORT", k ? "," : "");
    if (chance(8))
        k += (size_t)snprintf(flags + k, sizeof flags - k, "%sBYNAME", k ? "," : "");
    if (chance(8))
        k += (size_t)snprintf(flags + k, sizeof flags - k, "%sFORCE", k ? "," : "");
    if (owner && chance(35)) {
        k += (size_t)snprintf(flags + k, sizeof flags - k, "%sOWNERPREEMPT", k ? "," : "");
        line("SRCFG[%s] OWNER=USER:%s", name, user_name((int)rnd(0, C.nusers - 1)));
        C.preempt_sr = 1;
    }
    if (k)
        line("SRCFG[%s] FLAGS=%s", name, flags);
    if (chance(25))
        line("SRCFG[%s] ACCESS=%s", name, chance(50) ? "DEDICATED" : "SHARED");
    if (chance(10))
        line("SRCFG[%s] PRIORITY=%d", name, (int)rnd(-10, 100));
}

static void gen_srs(void)
{
    if (!chance(C.harsh ? 50 : 30))
        return;
    for (int n = (int)rnd(1, C.harsh ? 4 : 3), i = 1; i <= n; i++)
        gen_sr(i);
}

/* ------------------------------------------------------------- commands */

struct gcmd {
    long t;
    char text[256];
};

static const char *any_job(void)
{
    static char buf[4][16];
    static int k;
    char *b = buf[k++ % 4];
    if (chance(5))
        snprintf(b, 16, "999");
    else
        snprintf(b, 16, "%s", C.job[rnd(0, C.njobs - 1)].id);
    return b;
}

static void gen_setres(char *b, size_t size, int *nres)
{
    size_t k = (size_t)snprintf(b, size, "setres");
    int acl = 0;
    if (chance(50))
        k += (size_t)snprintf(b + k, size - k, " -u %s", user_name((int)rnd(0, C.nusers - 1))),
            acl = 1;
    if (chance(25))
        k += (size_t)snprintf(b + k, size - k, " -g %s%s%s", group_name(0), chance(50) ? ":" : ",",
                              group_name((int)rnd(0, C.ngroups - 1))),
            acl = 1;
    if (chance(15))
        k += (size_t)snprintf(b + k, size - k, " -c %s", class_name((int)rnd(0, C.nclasses - 1))),
            acl = 1;
    if (C.maui && chance(15))
        k +=
            (size_t)snprintf(b + k, size - k, " -a %s", account_name((int)rnd(0, C.naccounts - 1))),
            acl = 1;
    if (chance(10))
        k += (size_t)snprintf(b + k, size - k, " -q %s", qos_name((int)rnd(0, C.nqos - 1))),
            acl = 1;
    (void)acl;
    k += (size_t)snprintf(b + k, size - k, " -n r%d", *nres);
    (*nres)++;
    if (chance(60))
        k += (size_t)snprintf(b + k, size - k, " -s +%ld", rnd(0, 7200));
    if (chance(80))
        k += (size_t)snprintf(b + k, size - k, " -d %ld", rnd(1, 4 * 3600));
    if (chance(15))
        k += (size_t)snprintf(b + k, size - k, " -x %s", chance(50) ? "BESTEFFORT" : "BYNAME");
    if (chance(20))
        k += (size_t)snprintf(b + k, size - k, " -r PROCS=%d", (int)rnd(1, (int)C.pmax));
    int where = (int)rnd(0, 3);
    if (where == 0) {
        snprintf(b + k, size - k, " ALL");
    } else if (where == 1) {
        snprintf(b + k, size - k, " TASKS==%d", (int)rnd(1, C.nnodes + 1));
    } else {
        k += (size_t)snprintf(b + k, size - k, " ");
        const char *sep = "";
        for (int i = 0, any = 0; i < C.nnodes; i++)
            if (chance(40) || (!any && i == C.nnodes - 1)) {
                k += (size_t)snprintf(b + k, size - k, "%s%s", sep, C.node[i].name);
                sep = ",", any = 1;
            }
    }
}

static void gen_command(struct gcmd *c, int *nres)
{
    static const char *const holds[] = {"user", "system", "batch", "all"};
    static const char *const looks[] = {"showq",       "showq -r",    "showq -i",    "showq -b",
                                        "showstats",   "showres",     "showres -n",  "showbf",
                                        "diagnose -p", "diagnose -q", "diagnose -f", "diagnose -r",
                                        "showconfig"};
    char *b = c->text;
    size_t size = sizeof c->text;
    switch ((int)rnd(0, 13)) {
    case 0:
    case 1:
        if (chance(50))
            snprintf(b, size, "sethold %s", any_job());
        else
            snprintf(b, size, "sethold -h %s %s", PICK(holds), any_job());
        break;
    case 2:
    case 3:
        if (chance(40))
            snprintf(b, size, "releasehold -a %s", any_job());
        else if (chance(50))
            snprintf(b, size, "releasehold %s", any_job());
        else
            snprintf(b, size, "releasehold -h %s %s", PICK(holds), any_job());
        break;
    case 4:
        if (chance(70))
            snprintf(b, size, "canceljob %s", any_job());
        else
            snprintf(b, size, "canceljob %s %s", any_job(), any_job());
        break;
    case 5:
        snprintf(b, size, "setspri %s%d %s", chance(40) ? "-r " : "", (int)rnd(0, 1000), any_job());
        break;
    case 6:
        snprintf(b, size, "setqos %s %s", qos_name((int)rnd(0, C.nqos - 1)), any_job());
        break;
    case 7:
        snprintf(b, size, "runjob %s%s", chance(30) ? "-f " : chance(20) ? "-x " : "", any_job());
        break;
    case 8:
    case 9:
        gen_setres(b, size, nres);
        break;
    case 10:
        snprintf(b, size, "releaseres r%d.0", *nres > 0 ? (int)rnd(0, *nres - 1) : 0);
        break;
    case 11:
        snprintf(b, size, "checkjob %s", any_job());
        break;
    case 12:
        if (chance(50))
            snprintf(b, size, "showstart %s", any_job());
        else
            snprintf(b, size, "checknode %s", C.node[rnd(0, C.nnodes - 1)].name);
        break;
    default:
        snprintf(b, size, "%s", PICK(looks));
        break;
    }
}

static void write_cmds(FILE *f)
{
    static struct gcmd cmds[40];
    int n = chance(C.harsh ? 10 : 40) ? 0 : (int)rnd(1, C.harsh ? 40 : 20), nres = 0;
    for (int i = 0; i < n; i++) {
        /* Often exactly at a submit time (a job's end is often there too). */
        if (chance(40))
            cmds[i].t = C.job[rnd(0, C.njobs - 1)].submit + (chance(50) ? 0 : rnd(0, 3));
        else
            cmds[i].t = rnd(0, C.horizon);
    }
    for (int i = 1; i < n; i++) /* insertion sort: times never decrease */
        for (int j = i; j > 0 && cmds[j - 1].t > cmds[j].t; j--) {
            long t = cmds[j].t;
            cmds[j].t = cmds[j - 1].t;
            cmds[j - 1].t = t;
        }
    fprintf(f, "# propgen timed commands\n");
    for (int i = 0; i < n; i++) {
        gen_command(&cmds[i], &nres);
        fprintf(f, "%ld %s\n", cmds[i].t + (C.maui ? C.epoch : 0), cmds[i].text);
    }
}

/* ----------------------------------------------------------------- main */

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: propgen SEED OUTDIR\n");
        return 2;
    }
    char *end;
    unsigned long long seed = strtoull(argv[1], &end, 10);
    if (*end || end == argv[1]) {
        fprintf(stderr, "propgen: bad seed '%s'\n", argv[1]);
        return 2;
    }
    rng_state = seed * 0x2545F4914F6CDD1DULL + 1;
    memset(&C, 0, sizeof C);
    C.harsh = chance(30);
    gen_cluster();
    C.maui = C.has_mem || C.has_feat || C.has_part || chance(40);
    static const long epochs[] = {0, 1704067200L, 1704067200L + 9 * 3600, 1704585600L + 1800};
    C.epoch = PICK(epochs);
    if (C.maui && C.epoch == 0)
        C.epoch = 1704067200L;
    C.swf_header = !C.maui && C.epoch != 0;
    gen_jobs();

    cfg = out_open(argv[2], "case.cfg");
    fprintf(cfg, "# propgen seed %llu\n", seed);
    gen_nodes_cfg();
    gen_srs(); /* before the policy: PREEMPTPOLICY follows OWNERPREEMPT */
    gen_policy_cfg();
    gen_priority_cfg();
    gen_qos_access();
    gen_limits_cfg();
    gen_fairshare_cfg();
    out_close(cfg);

    FILE *f = out_open(argv[2], "case.swf");
    if (C.maui)
        write_maui(f);
    else
        write_swf(f);
    out_close(f);

    f = out_open(argv[2], "case.cmds");
    write_cmds(f);
    out_close(f);

    f = out_open(argv[2], "args");
    if (!C.nodecfg) {
        int ppn = C.node[0].procs;
        if (ppn == 1 && chance(50))
            fprintf(f, "--procs %d\n", C.nnodes);
        else
            fprintf(f, "--nodes %d --ppn %d\n", C.nnodes, ppn);
    } else {
        fprintf(f, "\n");
    }
    out_close(f);
    return 0;
}
