/*
 * fsacct — the engine's side of fairshare (digest §4.3-4.5): what a running
 * job charges to its credentials, the per-iteration refresh of the
 * credentials' fairshare deltas that the priority function weighs, and the
 * caps that block a job (feasibility-based fairshare).
 *
 * The ledger itself (windows, decay, targets) is policy/fs.c; this file
 * decides the rate a job accrues at:
 *   DEDICATEDPS   its dedicated processors,
 *   DEDICATEDPES  its processor equivalents (prio_pe),
 *   UTILIZEDPS    its processors times the fraction it keeps busy, when the
 *                 resource manager or the trace knows it (job->util >= 0: a
 *                 job that used no CPU charges nothing); else its
 *                 dedicated processors.
 * The rate is fixed when the job starts and charged until it ends, so usage
 * is exact to the second without any per-iteration work per job.
 */
#include <stdio.h>

#include "core/sched_int.h"
#include "policy/fs.h"
#include "policy/fsacct.h"
#include "policy/prio.h"
#include "util/mem.h"

static void job_creds(const struct job *j, const struct cred *c[CRED_NKINDS])
{
    c[CRED_USER] = j->user;
    c[CRED_GROUP] = j->group;
    c[CRED_ACCOUNT] = j->account;
    c[CRED_CLASS] = j->class_;
    c[CRED_QOS] = j->qos;
}

/* Usage units per second j accrues while it runs. */
static double job_rate(struct sched *s, const struct job *j)
{
    const struct fs_params *p = fs_params(s->fsh.fs);
    double procs = (double)job_procs(j);
    if (p->policy == FS_DEDICATEDPES) {
        struct prio_env env;
        sched_prio_env(s, &env);
        return prio_pe(&env, j);
    }
    if (p->policy == FS_UTILIZEDPS && j->util >= 0)
        return procs * j->util;
    return procs;
}

void fsacct_started(struct sched *s, struct job *j, long now)
{
    if (fs_params(s->fsh.fs)->policy == FS_NONE)
        return;
    const struct cred *c[CRED_NKINDS];
    job_creds(j, c);
    j->fs_rate = job_rate(s, j);
    fs_start(s->fsh.fs, c, j->fs_rate, j->start + j->walltime, now);
}

void fsacct_ended(struct sched *s, struct job *j, long now)
{
    if (j->fs_rate <= 0)
        return;
    const struct cred *c[CRED_NKINDS];
    job_creds(j, c);
    fs_stop(s->fsh.fs, c, j->fs_rate, j->start + j->walltime, now);
    j->fs_rate = 0;
}

void sched_fs_charge(struct sched *s, const struct job *j, long from, long to)
{
    if (fs_params(s->fsh.fs)->policy == FS_NONE || to <= from)
        return;
    const struct cred *c[CRED_NKINDS];
    job_creds(j, c);
    fs_add(s->fsh.fs, fs_now(s->fsh.fs), c, job_rate(s, j) * (double)(to - from));
}

void fsacct_iterate(struct sched *s, long now)
{
    if (fs_params(s->fsh.fs)->policy == FS_NONE)
        return;
    fs_advance(s->fsh.fs, now);
    s->fsh.fs_gen++;
}

/* Deltas move with every second of usage, so they are refreshed once per
 * iteration — but only for the credentials of jobs whose priority is asked
 * for, not for every user the cluster has ever seen. Its caller looked at
 * the weight of c's fairshare factor. */
static void refresh(struct sched *s, struct cred *c)
{
    if (c && c->fs_gen != s->fsh.fs_gen) {
        c->fs_delta = fs_delta(s->fsh.fs, c);
        c->fs_gen = s->fsh.fs_gen;
    }
}

/* j's credentials whose fairshare factor is weighted, made current (the
 * FS component weighted, a fairshare policy: the caller looked). Called
 * for every queued job at every iteration: straight-line code. */
static void refresh_job(struct sched *s, const struct job *j)
{
    const long *w = s->pol.prio.fweight;
    if (w[PF_FSUSER])
        refresh(s, j->user);
    if (w[PF_FSGROUP])
        refresh(s, j->group);
    if (w[PF_FSACCOUNT])
        refresh(s, j->account);
    if (w[PF_FSCLASS])
        refresh(s, j->class_);
    if (w[PF_FSQOS])
        refresh(s, j->qos);
}

void fsacct_job(struct sched *s, const struct job *j)
{
    if (!s->pol.prio.cweight[PRIO_FS] || fs_params(s->fsh.fs)->policy == FS_NONE)
        return;
    refresh_job(s, j);
}

/* A batch's hooks, set only when fsacct_job would look (fsacct_batch_init):
 * not its test again. A batch asks for the credentials its FS factors
 * weigh, so the weights need no look either. */
static void fresh_cred(void *ctx, struct cred *c)
{
    refresh(ctx, c);
}

/* A credential without a target (nor its DEFAULT object) or with a cap:
 * its delta is 0 until the credentials are configured again, which makes
 * the batches' kept parts go (fsacct_note_caps). */
static int still_cred(void *ctx, const struct cred *c)
{
    const struct sched *s = ctx;
    return fs_delta_still(s->fsh.fs, c);
}

void fsacct_batch_init(struct sched *s, struct prio_batch *b, const struct prio_env *env)
{
    struct prio_fresh fresh = {NULL, NULL, NULL};
    if (s->pol.prio.cweight[PRIO_FS] && fs_params(s->fsh.fs)->policy != FS_NONE)
        fresh = (struct prio_fresh){fresh_cred, still_cred, s};
    if (!s->fsh.prio_kept) {
        s->fsh.prio_kept = xcalloc(1, sizeof *s->fsh.prio_kept);
        /* s->pol is fixed at sched_create (a reload builds a new engine),
         * the DEFAULT objects with the credential tables. */
        s->fsh.prio_kept->frozen = 1;
    }
    /* The deltas move only at a new iteration (fsacct_iterate, refresh). */
    prio_batch_init_kept(b, &s->pol.prio, env, fresh, s->fsh.prio_kept, s->fsh.fs_gen);
}

void fsacct_note_caps(struct sched *s)
{
    /* The credentials were configured: what the batches kept of them goes. */
    if (s->fsh.prio_kept)
        prio_setup_forget(s->fsh.prio_kept);
    s->fsh.fs_caps = 0;
    if (fs_params(s->fsh.fs)->policy == FS_NONE)
        return;
    for (int k = 0; k < CRED_NKINDS; k++)
        for (size_t i = 0; i < cred_count(s->creds[k]); i++) {
            enum fs_mode m = fs_own_target(s->fsh.fs, cred_at(s->creds[k], i)).mode;
            if (m == FS_MODE_CAP || m == FS_MODE_PCAP)
                s->fsh.fs_caps = 1;
        }
}

int fsacct_over_cap(struct sched *s, const struct job *j, char *why, size_t len)
{
    if (!s->fsh.fs_caps)
        return 0;
    const struct cred *c[CRED_NKINDS];
    job_creds(j, c);
    double request = job_rate(s, j) * (double)j->walltime;
    for (int k = 0; k < CRED_NKINDS; k++) {
        if (!c[k] || !fs_over_cap(s->fsh.fs, c[k], request))
            continue;
        if (why && len) {
            struct fs_target t = fs_target_of(s->fsh.fs, c[k]);
            char cap[32];
            fs_target_format(&t, cap);
            double use =
                t.mode == FS_MODE_PCAP ? fs_percent(s->fsh.fs, c[k]) : fs_usage(s->fsh.fs, c[k]);
            snprintf(why, len, "job %s violates fairshare cap of %s for %s %s (U: %.2f%s, R: %.0f)",
                     j->name, cap, cred_kind_name((enum cred_kind)k), c[k]->name, use,
                     t.mode == FS_MODE_PCAP ? "%" : "", request);
        }
        return 1;
    }
    return 0;
}
