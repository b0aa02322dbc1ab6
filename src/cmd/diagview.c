/*
 * diagnose -j, -n, -u, -g, -a, -c — the job table, the node table and the
 * credential tables, each with the problems moku can see (Maui 3.3.1
 * MJobDiagnose / MNodeDiagnose / MUserShow-like credential diagnostics,
 * digest §7.4), in Maui's column style as far as moku has the data.
 *
 * -j: every job not ended, in submission order:
 *
 *   Name                   State Par     Proc QOS          WCLimit     User    Group  Account
 * QueuedTime Class    Features
 *
 *   1                    Running DEFAULT    2 DEFAULT      1:00:00    alice    staff  DEFAULT
 * 00:00:00 batch    [NONE] WARNING:  job '4' cannot run  (...)
 *
 *   Total Jobs: 5  Active Jobs: 2
 *
 * Problems, one `WARNING:  job '<id>' ...` line each after the job's row: a
 * blocked job's reason; an idle job no set of nodes it may use can hold; a
 * running job past its walltime; a running job on a node that is no longer
 * up; the driver's message (why a start failed).
 *
 * -n: every node, in the configuration's order: state, processors free of
 * configured (`free:total`), configured memory, disk and swap (MB), partition, the reservations
 * that hold processors on it and have not ended, features, the running jobs. Problems: jobs running
 * on a node that is down or drained, processors dedicated beyond the configured ones, the resource
 * manager's reason for a node down. A last line counts the nodes: `Total Nodes: N  (Active: a Idle:
 * i  Down: d)`, Down counting drained nodes too.
 *
 * -u, -g, -a, -c [NAME]: every credential object of the kind (DEFAULT
 * included), in the order moku created them: its PRIORITY, QDEF, QLIST,
 * fairshare target, its jobs now (idle, running, processors running) and
 * the throttling limits it sets itself (MAXJOB=soft,hard ..., idle ones as
 * MAXIJOB...). Then for a group its CLASSWEIGHT. Problems: a credential
 * over one of its own hard active limits, and blocked jobs it owns.
 *
 * Where moku differs from Maui: columns moku does not model (network,
 * opsys, arch, load, speed, flags, partition lists) are left out; limits
 * inherited from the DEFAULT object or set by a QOS are not repeated per
 * object (diagnose -u DEFAULT shows them).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd_int.h"
#include "policy/fs.h"
#include "policy/limits.h"
#include "util/mem.h"

/* ---- diagnose -j ---- */

static const char *job_par(const struct cmd_ctx *c, const struct job *j)
{
    if (j->state == JOB_RUNNING && j->nslots > 0) {
        const struct node *n = sched_node(c->s, j->slots[0].node);
        if (n)
            return n->partition;
    }
    return j->partition ? j->partition : "ALL";
}

static void features_text(char *out, size_t n, char *const *f, size_t nf)
{
    size_t len = 0;
    out[0] = '\0';
    for (size_t i = 0; i < nf && len + 3 < n; i++)
        len += (size_t)snprintf(out + len, n - len, "[%s]", f[i]);
    if (nf == 0)
        snprintf(out, n, "[NONE]");
}

/* The job's problems, one line each (Maui's WARNING lines). */
static void job_problems(const struct cmd_ctx *c, const struct job *j, json_t *arr,
                         struct cmd_buf *b)
{
    char buf[256], why[160];
    const char *p[4];
    int np = 0;
    if (j->state == JOB_IDLE) {
        const char *r = cmd_wait_reason(c, j, buf, sizeof buf);
        if (r && (sched_job_listed_blocked(c->s, j) || strstr(r, "can never hold") ||
                  sched_job_advres_refused(c->s, j, why, sizeof why)))
            p[np++] = r;
    } else if (j->state == JOB_RUNNING) {
        long over = c->now - (j->start + j->walltime);
        if (over > 0) {
            char d[CMD_TIME_MAX];
            cmd_fmt_duration(over, d);
            snprintf(why, sizeof why, "has exceeded its wallclock limit by %s", d);
            p[np++] = why;
        }
        for (size_t i = 0; i < j->nslots && np < 3; i++) {
            const struct node *n = sched_node(c->s, j->slots[i].node);
            if (n && n->state != NODE_UP) {
                snprintf(buf, sizeof buf, "runs on node %s, which is %s", n->name,
                         node_state_name(n->state));
                p[np++] = buf;
                break;
            }
        }
    }
    if (j->message)
        p[np++] = j->message;
    for (int i = 0; i < np; i++) {
        int reason = j->state == JOB_IDLE && p[i] != j->message;
        if (arr)
            json_array_append_new(arr, cmd_jstr(p[i]));
        else if (cmd_reason_tail(j, p[i]) != p[i])
            cmd_buf_printf(b, "WARNING:  %s\n", p[i]); /* Maui's policy message names the job */
        else if (reason)
            cmd_buf_printf(b, "WARNING:  job '%s' cannot run  (%s)\n", j->name, p[i]);
        else
            cmd_buf_printf(b, "WARNING:  job '%s' %s\n", j->name, p[i]);
    }
}

static void diag_jobs(const struct cmd_ctx *c, const struct cmd_args *a, struct cmd_buf *out)
{
    json_t *arr = a->json ? json_array() : NULL;
    long total = 0, active = 0;
    if (!arr)
        cmd_buf_printf(out, "%-18s %9s %-7s %4s %-8s %11s %8s %8s %8s %11s %-8s %s\n\n", "Name",
                       "State", "Par", "Proc", "QOS", "WCLimit", "User", "Group", "Account",
                       "QueuedTime", "Class", "Features");
    for (size_t i = 0; i < sched_njobs(c->s); i++) {
        const struct job *j = sched_job(c->s, i);
        if (!j || (j->state != JOB_IDLE && j->state != JOB_RUNNING))
            continue;
        total++;
        active += j->state == JOB_RUNNING;
        long queued = (j->state == JOB_RUNNING ? j->start : c->now) - j->submit;
        char wc[CMD_TIME_MAX], qt[CMD_TIME_MAX], feat[256];
        cmd_fmt_duration(j->walltime, wc);
        cmd_fmt_duration(queued > 0 ? queued : 0, qt);
        features_text(feat, sizeof feat, j->features, j->nfeatures);
        if (arr) {
            json_t *o = json_object();
            json_object_set_new(o, "id", cmd_jstr(j->name));
            json_object_set_new(o, "state", json_string(job_display_state(j)));
            json_object_set_new(o, "partition", cmd_jstr(job_par(c, j)));
            json_object_set_new(o, "procs", json_integer(job_procs(j)));
            json_object_set_new(o, "qos", cmd_jstr(j->qos->name));
            json_object_set_new(o, "walltime", json_integer(j->walltime));
            json_object_set_new(o, "user", cmd_jstr(j->user->name));
            json_object_set_new(o, "group", cmd_jstr(j->group->name));
            json_object_set_new(o, "account", cmd_jstr(j->account->name));
            json_object_set_new(o, "class", cmd_jstr(j->class_->name));
            json_object_set_new(o, "queued", json_integer(queued > 0 ? queued : 0));
            json_t *f = json_array();
            for (size_t k = 0; k < j->nfeatures; k++)
                json_array_append_new(f, cmd_jstr(j->features[k]));
            json_object_set_new(o, "features", f);
            json_t *pr = json_array();
            job_problems(c, j, pr, NULL);
            json_object_set_new(o, "problems", pr);
            json_array_append_new(arr, o);
            continue;
        }
        cmd_buf_printf(out, "%-18s %9s %-7.7s %4lld %-8.8s %11s %8.8s %8.8s %8.8s %11s %-8.8s %s\n",
                       j->name, job_display_state(j), job_par(c, j), job_procs(j), j->qos->name, wc,
                       j->user->name, j->group->name, j->account->name, qt, j->class_->name, feat);
        job_problems(c, j, NULL, out);
    }
    if (arr) {
        cmd_json_out(out, json_pack("{s:o}", "jobs", arr));
        return;
    }
    cmd_buf_printf(out, "\nTotal Jobs: %ld  Active Jobs: %ld\n", total, active);
}

/* ---- diagnose -n ---- */

/* Reservations holding processors on node idx that have not ended. */
static long node_resv(const struct cmd_ctx *c, size_t idx)
{
    long n = 0;
    for (size_t i = 0; i < sched_nresv(c->s); i++) {
        const struct resv *r = sched_resv_at(c->s, i);
        if (r->end <= c->now)
            continue;
        for (size_t k = 0; k < r->nnodes; k++)
            n += r->nodes[k].node == idx && r->nodes[k].procs > 0;
    }
    return n;
}

/* The running jobs on each node: comma-separated names. Caller frees each. */
static char **node_jobs(const struct cmd_ctx *c)
{
    size_t nn = sched_nnodes(c->s);
    char **list = xcalloc(nn ? nn : 1, sizeof *list);
    for (size_t i = 0; i < sched_njobs(c->s); i++) {
        const struct job *j = sched_job(c->s, i);
        if (!j || j->state != JOB_RUNNING)
            continue;
        for (size_t k = 0; k < j->nslots; k++)
            for (unsigned m = 0; m < j->slots[k].nnodes; m++) {
                size_t idx = j->slots[k].node + m;
                if (idx >= nn)
                    continue;
                char *old = list[idx];
                /* the same job on a node twice (two slots) is listed once */
                if (old && (strcmp(old, j->name) == 0 ||
                            (strlen(old) > strlen(j->name) &&
                             strcmp(old + strlen(old) - strlen(j->name) - 1, j->name) == 0 &&
                             old[strlen(old) - strlen(j->name) - 1] == ',')))
                    continue;
                list[idx] = old ? xprintf("%s,%s", old, j->name) : xstrdup(j->name);
                free(old);
            }
    }
    return list;
}

static const char *node_state_text(const struct node *n, int used)
{
    if (n->state != NODE_UP)
        return node_state_name(n->state);
    return used == 0 ? "Idle" : used >= n->procs ? "Busy" : "Running";
}

static void node_problems(const struct node *n, int used, const char *jobs, json_t *arr,
                          struct cmd_buf *b)
{
    char p[3][256];
    int np = 0;
    if (n->state != NODE_UP && jobs)
        snprintf(p[np++], sizeof p[0], "is %s with jobs running on it (%s)",
                 node_state_name(n->state), jobs);
    if (used > n->procs)
        snprintf(p[np++], sizeof p[0], "has %d processors dedicated, %d configured", used,
                 n->procs);
    if (n->state != NODE_UP && n->reason)
        snprintf(p[np++], sizeof p[0], "%s: %s", node_state_name(n->state), n->reason);
    for (int i = 0; i < np; i++) {
        if (arr)
            json_array_append_new(arr, cmd_jstr(p[i]));
        else
            cmd_buf_printf(b, "WARNING:  node '%s' %s\n", n->name, p[i]);
    }
}

static void diag_nodes(const struct cmd_ctx *c, const struct cmd_args *a, struct cmd_buf *out)
{
    json_t *arr = a->json ? json_array() : NULL;
    char **jobs = node_jobs(c);
    long active = 0, idle = 0, down = 0;
    size_t nn = sched_nnodes(c->s);
    if (!arr)
        cmd_buf_printf(out,
                       "diagnosing node table (%zu nodes)\n\n%-20s %8s %9s %8s %8s %8s %-8s "
                       "%3s %-16s %s\n\n",
                       nn, "Name", "State", "Procs", "Memory", "Disk", "Swap", "Par", "Res",
                       "Features", "Jobs");
    for (size_t i = 0; i < nn; i++) {
        const struct node *n = sched_node(c->s, i);
        int used = sched_node_used(c->s, i);
        int nfree = n->state == NODE_UP && used < n->procs ? n->procs - used : 0;
        const char *st = node_state_text(n, used);
        if (n->state != NODE_UP)
            down++;
        else if (used > 0)
            active++;
        else
            idle++;
        char feat[256];
        features_text(feat, sizeof feat, n->features, n->nfeatures);
        if (arr) {
            json_t *o = json_object();
            json_object_set_new(o, "name", cmd_jstr(n->name));
            json_object_set_new(o, "state", json_string(st));
            json_object_set_new(o, "procs", json_integer(n->procs));
            json_object_set_new(o, "procs_free", json_integer(nfree));
            json_object_set_new(o, "memory", json_integer(n->mem));
            json_object_set_new(o, "disk", json_integer(n->disk));
            json_object_set_new(o, "swap", json_integer(n->swap));
            json_object_set_new(o, "partition", cmd_jstr(n->partition));
            json_object_set_new(o, "reservations", json_integer(node_resv(c, i)));
            json_t *jl = json_array();
            for (char *p = jobs[i]; p && *p;) {
                size_t k = strcspn(p, ",");
                json_array_append_new(jl, json_stringn(p, k));
                p += k + (p[k] == ',');
            }
            json_object_set_new(o, "jobs", jl);
            json_t *pr = json_array();
            node_problems(n, used, jobs[i], pr, NULL);
            json_object_set_new(o, "problems", pr);
            json_array_append_new(arr, o);
        } else {
            cmd_buf_printf(out, "%-20s %8s %4d:%-4d %8ld %8ld %8ld %-8.8s %3ld %-16s %s\n", n->name,
                           st, nfree, n->procs, n->mem, n->disk, n->swap, n->partition,
                           node_resv(c, i), feat, jobs[i] ? jobs[i] : "[NONE]");
            node_problems(n, used, jobs[i], NULL, out);
        }
    }
    for (size_t i = 0; i < nn; i++)
        free(jobs[i]);
    free(jobs);
    if (arr) {
        cmd_json_out(out, json_pack("{s:o}", "nodes", arr));
        return;
    }
    cmd_buf_printf(out, "\nTotal Nodes: %zu  (Active: %ld  Idle: %ld  Down: %ld)\n", nn, active,
                   idle, down);
}

/* ---- diagnose -u, -g, -a, -c ---- */

struct creduse {
    long idle, running, blocked;
    long long procs;
};

/* The limits cr sets itself, "MAXJOB=4 MAXIPROC=2,4", into out; JSON too. */
static void limits_text(const struct sched *s, const struct cred *cr, char *out, size_t n,
                        json_t *obj)
{
    size_t len = 0;
    out[0] = '\0';
    for (int m = 0; m < LIM_NMODES; m++)
        for (int t = 0; t < LIM_NTYPES; t++) {
            long long soft, hard;
            if (!limits_configured(sched_limits(s), cr->kind, cr->name, (enum lim_mode)m,
                                   (enum lim_type)t, &soft, &hard))
                continue;
            const char *tn = limits_type_name((enum lim_type)t);
            char name[32];
            snprintf(name, sizeof name, "%s%s", m == LIM_IDLE ? "MAXI" : "MAX",
                     tn + 3); /* MAXJOB -> MAXIJOB */
            if (obj)
                json_object_set_new(
                    obj, name,
                    json_pack("{s:I, s:I}", "soft", (json_int_t)soft, "hard", (json_int_t)hard));
            if (len + 2 >= n)
                continue;
            if (soft != hard)
                len += (size_t)snprintf(out + len, n - len, "%s%s=%lld,%lld", len ? " " : "", name,
                                        soft, hard);
            else
                len +=
                    (size_t)snprintf(out + len, n - len, "%s%s=%lld", len ? " " : "", name, hard);
            if (len >= n)
                len = n - 1;
        }
    if (!out[0])
        snprintf(out, n, "[NONE]");
}

static void qlist_text(const struct cred *cr, char *out, size_t n)
{
    size_t len = 0;
    out[0] = '\0';
    for (size_t i = 0; i < cr->nqlist && len + 2 < n; i++) {
        len += (size_t)snprintf(out + len, n - len, "%s%s", i ? "," : "", cr->qlist[i]);
        if (len >= n)
            len = n - 1;
    }
    if (!out[0])
        snprintf(out, n, "[NONE]");
}

/* Over a hard active limit it sets itself (MAXJOB, MAXPROC): say so. */
static int over_limit(const struct sched *s, const struct cred *cr, const struct creduse *u,
                      char *why, size_t n)
{
    long long soft, hard;
    if (limits_configured(sched_limits(s), cr->kind, cr->name, LIM_ACTIVE, LIM_JOB, &soft, &hard) &&
        hard > 0 && u->running > hard) {
        snprintf(why, n, "runs %ld jobs, over its HARD MAXJOB limit of %lld", u->running, hard);
        return 1;
    }
    if (limits_configured(sched_limits(s), cr->kind, cr->name, LIM_ACTIVE, LIM_PROC, &soft,
                          &hard) &&
        hard > 0 && u->procs > hard) {
        snprintf(why, n, "runs %lld processors, over its HARD MAXPROC limit of %lld", u->procs,
                 hard);
        return 1;
    }
    return 0;
}

static void cred_row(const struct cmd_ctx *c, const struct cred *cr, const struct creduse *u,
                     json_t *arr, struct cmd_buf *out)
{
    char lim[512], ql[256], tgt[32] = "-----", why[160];
    struct fs_target t = fs_target_of(sched_fs(c->s), cr);
    if (t.mode != FS_MODE_NONE)
        fs_target_format(&t, tgt);
    qlist_text(cr, ql, sizeof ql);
    json_t *lo = arr ? json_object() : NULL;
    limits_text(c->s, cr, lim, sizeof lim, lo);
    int over = over_limit(c->s, cr, u, why, sizeof why);
    if (arr) {
        json_t *o = json_object();
        json_object_set_new(o, "name", cmd_jstr(cr->name));
        json_object_set_new(o, "priority", json_integer(cr->priority));
        json_object_set_new(o, "qdef", cmd_jstr(cr->qdef));
        json_t *q = json_array();
        for (size_t i = 0; i < cr->nqlist; i++)
            json_array_append_new(q, cmd_jstr(cr->qlist[i]));
        json_object_set_new(o, "qlist", q);
        json_object_set_new(o, "fs_target",
                            t.mode == FS_MODE_NONE ? json_null() : json_real(t.value));
        json_object_set_new(o, "idle_jobs", json_integer(u->idle));
        json_object_set_new(o, "blocked_jobs", json_integer(u->blocked));
        json_object_set_new(o, "running_jobs", json_integer(u->running));
        json_object_set_new(o, "running_procs", json_integer(u->procs));
        json_object_set_new(o, "limits", lo);
        if (cr->kind == CRED_GROUP)
            json_object_set_new(o, "classweight", json_integer(cr->classweight));
        if (cr->kind == CRED_QOS) {
            json_object_set_new(o, "qtweight", json_integer(cr->qtweight));
            json_object_set_new(o, "xfweight", json_integer(cr->xfweight));
        }
        json_t *pr = json_array();
        if (over)
            json_array_append_new(pr, cmd_jstr(why));
        if (u->blocked)
            json_array_append_new(pr, json_sprintf("has %ld blocked jobs", u->blocked));
        json_object_set_new(o, "problems", pr);
        json_array_append_new(arr, o);
        return;
    }
    cmd_buf_printf(out, "%-12.12s %8ld %-10.10s %-16.16s %7s %5ld %5ld %6lld  %s\n", cr->name,
                   cr->priority, cr->qdef ? cr->qdef : "[NONE]", ql, tgt, u->idle, u->running,
                   u->procs, lim);
    if (cr->kind == CRED_GROUP && cr->classweight)
        cmd_buf_printf(out, "  CLASSWEIGHT: %ld\n", cr->classweight);
    if (over)
        cmd_buf_printf(out, "WARNING:  %s '%s' %s\n", cred_kind_name(cr->kind), cr->name, why);
    if (u->blocked)
        cmd_buf_printf(out, "NOTE:  %s '%s' has %ld blocked job%s (diagnose -q)\n",
                       cred_kind_name(cr->kind), cr->name, u->blocked, u->blocked == 1 ? "" : "s");
}

static const char *kind_title(enum cred_kind k)
{
    return k == CRED_USER      ? "user"
           : k == CRED_GROUP   ? "group"
           : k == CRED_ACCOUNT ? "account"
                               : "class";
}

static void diag_creds(const struct cmd_ctx *c, const struct cmd_args *a, enum cred_kind k,
                       const char *id, struct cmd_buf *out)
{
    const struct cred_table *t = sched_creds(c->s, k);
    size_t n = t ? cred_count(t) : 0;
    struct creduse *u = xcalloc(n ? n : 1, sizeof *u);
    for (size_t i = 0; i < sched_njobs(c->s); i++) {
        const struct job *j = sched_job(c->s, i);
        const struct cred *cr = j ? job_cred(j, k) : NULL;
        if (!cr || cr->index >= n)
            continue;
        if (j->state == JOB_RUNNING) {
            u[cr->index].running++;
            u[cr->index].procs += job_procs(j);
        } else if (j->state == JOB_IDLE) {
            u[cr->index].idle++;
            u[cr->index].blocked += sched_job_listed_blocked(c->s, j) != NULL;
        }
    }
    json_t *arr = a->json ? json_array() : NULL;
    if (!arr)
        cmd_buf_printf(out,
                       "Displaying %s information...\n\n%-12s %8s %-10s %-16s %7s %5s %5s "
                       "%6s  %s\n\n",
                       kind_title(k), "Name", "Priority", "QDef", "QOSList", "FSTgt", "Idle", "Run",
                       "Procs", "Limits");
    for (size_t i = 0; i < n; i++) {
        const struct cred *cr = cred_at(t, i);
        if (id && strcmp(cr->name, id) != 0)
            continue;
        cred_row(c, cr, &u[cr->index], arr, out);
    }
    if (arr)
        cmd_json_out(out, json_pack("{s:s, s:o}", "type", cred_kind_name(k), "credentials", arr));
    free(u);
}

/* ---- entry ---- */

int cmd_diag_view(const struct cmd_ctx *c, const struct cmd_args *a, char mode, const char *id,
                  struct cmd_buf *out, struct err *err)
{
    if (mode == 'j' || mode == 'n') {
        if (id)
            return err_set(err, "diagnose: -%c takes no argument ('%s')", mode, cmd_word(id));
        if (mode == 'j')
            diag_jobs(c, a, out);
        else
            diag_nodes(c, a, out);
        return 0;
    }
    enum cred_kind k = mode == 'u'   ? CRED_USER
                       : mode == 'g' ? CRED_GROUP
                       : mode == 'a' ? CRED_ACCOUNT
                                     : CRED_CLASS;
    if (id && !cred_find(sched_creds(c->s, k), id))
        return err_set(err, "diagnose: no %s '%s'", cred_kind_name(k), cmd_word(id));
    diag_creds(c, a, k, id, out);
    return 0;
}
