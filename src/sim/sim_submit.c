/* sim_submit — see sim_submit.h. */
#include "sim/sim_submit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfg/cfg.h"
#include "cmd/qsub.h"
#include "core/job.h"
#include "core/sched.h"
#include "engine/dep.h"
#include "util/arange.h"
#include "util/mem.h"
#include "util/strmap.h"

/* The user of a submit line without -u. */
#define SUBMIT_USER "script"

int sim_submit_is(const struct sim_script_cmd *cmd)
{
    return cmd->argc > 0 && strcmp(cmd->argv[0], "submit") == 0;
}

/* What a submit line says, read. */
struct submit {
    const char *id;
    long runtime;
    const char *user;
    int exit_status; /* --exit STATUS, -1 none */
    struct qsub_req req;
};

/* The largest --exit: Torque's statuses are a script's 0..255 and 256 + a
 * signal's number. */
#define SUBMIT_EXIT_MAX 512

/*
 * The qsub options given that a replay has no meaning for: the first one's
 * name, or NULL. Refused rather than ignored, so a script never believes a
 * job was replayed with something it was not.
 */
static const char *unreplayed(const struct qsub_req *r)
{
    if (r->hosts)
        return "a host list (nodes=HOST, -l host=)";
    if (r->exclusive)
        return "exclusive nodes (naccesspolicy=singlejob, place=excl)";
    if (r->start_after)
        return "-a";
    if (r->hold)
        return "-h (use the sethold command)";
    if (r->interactive)
        return "-I";
    if (r->out_path || r->err_path || r->join != QSUB_JOIN_NONE)
        return "-o, -e, -j";
    if (r->mail_events || r->mail_users)
        return "-m, -M";
    if (r->nenv)
        return "-v, -V";
    if (r->shell || r->rerunnable >= 0 || r->nice || r->vmem_mb || strcmp(r->cwd, "/") != 0)
        return "-S, -r, -d, -l nice, vmem";
    if (r->warnings)
        return "-p, -k, -l file";
    return NULL;
}

/* An id the replay can name the job by: not empty, none of the characters
 * that split a dependency or name a task or a host. */
static int good_id(const char *id)
{
    return *id && strcspn(id, ".:,[]% \t") == strlen(id) && strlen(id) <= QSUB_MAX_WORD;
}

/* --exit's value: 0..SUBMIT_EXIT_MAX into *st; -1 for none or another word. */
static int read_exit(const char *w, int *st)
{
    char *end;
    long v = w ? strtol(w, &end, 10) : -1;
    if (!w || end == w || *end || w[0] == '-' || w[0] == '+' || v > SUBMIT_EXIT_MAX)
        return -1;
    *st = (int)v;
    return 0;
}

/* Read cmd's words into *sb; -1 with err (the line's). */
static int read_submit(const struct sim_script_cmd *cmd, const char *path, const struct strmap *ids,
                       struct submit *sb, struct err *err)
{
    if (cmd->argc < 3)
        return err_set(err,
                       "%s:%ld: submit needs an id and a runtime: submit ID RUNTIME "
                       "[-u USER] [--exit STATUS] [QSUB-OPTIONS]",
                       path, cmd->line);
    size_t at;
    sb->id = cmd->argv[1];
    if (!good_id(sb->id))
        return err_set(err,
                       "%s:%ld: submit: bad job id '%.64s' (no '.', ':', ',', '[', ']', "
                       "'%%' or blanks)",
                       path, cmd->line, sb->id);
    if (strmap_get(ids, sb->id, &at))
        return err_set(err,
                       "%s:%ld: submit: job id '%.64s' is taken (by the trace or an "
                       "earlier line)",
                       path, cmd->line, sb->id);
    if (cfg_parse_time(cmd->argv[2], &sb->runtime, NULL) < 0 || sb->runtime < 0 ||
        sb->runtime >= CFG_TIME_INFINITY)
        return err_set(err, "%s:%ld: submit: bad runtime '%.64s' (seconds, or [[DD:]HH:]MM:SS)",
                       path, cmd->line, cmd->argv[2]);
    char **qargv = xcalloc((size_t)cmd->argc, sizeof *qargv);
    int qargc = 0;
    qargv[qargc++] = "submit";
    sb->user = SUBMIT_USER;
    sb->exit_status = -1;
    for (int i = 3; i < cmd->argc; i++) {
        if (strcmp(cmd->argv[i], "--exit") == 0) {
            if (read_exit(i + 1 < cmd->argc ? cmd->argv[++i] : NULL, &sb->exit_status) < 0) {
                free(qargv);
                return err_set(err, "%s:%ld: submit: --exit needs a status, 0 to %d", path,
                               cmd->line, SUBMIT_EXIT_MAX);
            }
        } else if (strcmp(cmd->argv[i], "-u") != 0) {
            qargv[qargc++] = cmd->argv[i];
        } else if (i + 1 < cmd->argc && cmd->argv[i + 1][0] && cmd->argv[i + 1][0] != '-') {
            sb->user = cmd->argv[++i];
        } else {
            free(qargv);
            return err_set(err, "%s:%ld: submit: -u needs a user name", path, cmd->line);
        }
    }
    struct err e;
    int rc = qsub_parse(qargc, qargv, "true\n", 5, "submit", "/", NULL, 0, &sb->req, &e);
    free(qargv);
    if (rc < 0)
        return err_set(err, "%s:%ld: %s", path, cmd->line, e.msg);
    const char *no = unreplayed(&sb->req);
    if (no) {
        qsub_free(&sb->req);
        return err_set(err, "%s:%ld: submit: %s has no meaning in a replay", path, cmd->line, no);
    }
    return 0;
}

/* The features "a,b" as the engine reads them, interned. */
static const char *features_of(struct workload *wl, const struct qsub_req *r)
{
    if (!r->nfeatures)
        return NULL;
    size_t len = 1;
    for (size_t i = 0; i < r->nfeatures; i++)
        len += strlen(r->features[i]) + 1;
    char *buf = xmalloc(len), *o = buf;
    for (size_t i = 0; i < r->nfeatures; i++)
        o += sprintf(o, "%s%s", i ? "," : "", r->features[i]);
    const char *f = workload_intern(wl, buf);
    free(buf);
    return f;
}

static int chunks_of(const struct qsub_req *r)
{
    return r->tasks / r->ppn > 0 ? r->tasks / r->ppn : 1;
}

static long walltime_of(const struct submit *sb)
{
    return sb->req.walltime ? sb->req.walltime : sb->runtime > 0 ? sb->runtime : 1;
}

/* The job of sb, as the daemon reads a request (djobs.c's spec_of):
 * nodes=N:ppn=P is N one-node tasks of P processors, procs=N N
 * one-processor tasks anywhere. workload_check_job passed. */
static struct wl_job job_of(struct workload *wl, const struct submit *sb, long t, long line)
{
    const struct qsub_req *r = &sb->req;
    int chunks = chunks_of(r);
    struct wl_names nm = {
        .user = workload_intern(wl, sb->user),
        .group = workload_intern(wl, r->group),
        .account = workload_intern(wl, r->account),
        .class_ = workload_intern(wl, r->queue),
        .qos = workload_intern(wl, r->qos),
        .features = features_of(wl, r),
        .advres = workload_intern(wl, r->advres),
        .nodes = r->nodes,
        .tpn = r->nodes > 0 ? 1 : 0,
        .mem = r->mem_mb > 0 ? r->mem_mb / chunks : 0,
    };
    struct wl_job j = {
        .names = workload_names(wl, &nm),
        .submit = (uint32_t)t,
        .tasks = chunks,
        .procs_per_task = (unsigned)r->ppn,
        .line = (int32_t)line,
    };
    wl_job_set_runtime(&j, sb->runtime);
    wl_job_set_walltime(&j, walltime_of(sb));
    return j;
}

/* Add sb's job, or its array's tasks, to wl and their ids to ids. */
static int add_jobs(struct workload *wl, struct strmap *ids, const struct submit *sb,
                    const struct sim_script_cmd *cmd, const char *path, struct err *err)
{
    if (workload_check_job(path, cmd->line, sb->id, cmd->t, sb->runtime, walltime_of(sb),
                           chunks_of(&sb->req), sb->req.ppn, err) < 0)
        return -1;
    struct wl_job j = job_of(wl, sb, cmd->t, cmd->line);
    struct wl_more m = {
        .depend = workload_keep(wl, sb->req.depend), .exit_status = sb->exit_status, .script = 1};
    const char *id = workload_keep(wl, sb->id);
    strmap_put(ids, id, 0);
    const char *range = sb->req.array ? sb->req.array : sb->req.array_pbs;
    if (!range) {
        workload_set_id(wl, &j, id);
        workload_add_more(wl, &j, &m);
        return 0;
    }
    struct arange a;
    struct err e;
    if ((sb->req.array ? arange_parse_torque(range, ARANGE_DEFAULT_MAX, &a, &e)
                       : arange_parse_pbs(range, ARANGE_DEFAULT_MAX, &a, &e)) < 0)
        return err_set(err, "%s:%ld: submit: %s", path, cmd->line, e.msg);
    m.array = id;
    m.slots = a.slots;
    for (size_t i = 0; i < a.n; i++) {
        char task[QSUB_MAX_WORD + 16];
        snprintf(task, sizeof task, "%s[%u]", id, a.idx[i]);
        const char *kept = workload_keep(wl, task);
        workload_set_id(wl, &j, kept);
        m.index = a.idx[i];
        strmap_put(ids, kept, 0);
        workload_add_more(wl, &j, &m);
    }
    arange_free(&a);
    return 0;
}

/* Every dependency of the sorted jobs names a job queued before its own:
 * the engine judges it when the job is queued, and a later one would be
 * unknown then (this also rules out a cycle). */
static int check_deps(const struct workload *wl, const char *path, struct err *err)
{
    struct strmap pos;
    strmap_init(&pos);
    char(*text)[WL_ID_LEN] = xmalloc(wl->njobs * sizeof *text); /* the map borrows its keys */
    int rc = 0;
    for (size_t i = 0; i < wl->njobs && rc == 0; i++) {
        const struct wl_job *j = &wl->jobs[i];
        const struct wl_more *m = wl->more ? wl->more[i] : NULL;
        struct job_dep *d = NULL;
        size_t n = 0, at;
        if (m && m->depend && dep_parse(m->depend, &d, &n, err) < 0)
            rc = -1; /* qsub_parse checked it: not reached */
        for (size_t k = 0; k < n && rc == 0; k++) {
            if (strmap_get(&pos, d[k].on, &at))
                continue;
            size_t len = strlen(d[k].on);
            const char *what =
                len > 2 && strcmp(d[k].on + len - 2, "[]") == 0
                    ? "is a whole array (name its tasks, ID[INDEX])"
                    : "is not a job queued before this one (a later one: "
                      "jobs of one instant queue in the script's order; itself; or none "
                      "of the replay's)";
            rc = err_set(err, "%s:%ld: submit: dependency on job %s: %s %s", path, (long)j->line,
                         d[k].on, d[k].on, what);
        }
        dep_free(d, n);
        const char *id = wl_job_id(wl, j, text[i]);
        if (id && !strmap_get(&pos, id, &at))
            strmap_put(&pos, id, i);
    }
    strmap_free(&pos);
    free(text);
    return rc;
}

int sim_qalter_is(const struct sim_script_cmd *cmd)
{
    return cmd->argc > 0 && strcmp(cmd->argv[0], "qalter") == 0;
}

/* The dependencies of a qalter line: argv[2] after "depend=". */
static const char *qalter_depend(const struct sim_script_cmd *cmd)
{
    return cmd->argv[2] + strlen("depend=");
}

/* A qalter line's shape, its job and the jobs its dependencies name
 * (every one a job of the replay, ids; not a whole array); -1 with err. */
static int check_qalter(const struct sim_script_cmd *cmd, const char *path,
                        const struct strmap *ids, struct err *err)
{
    size_t at;
    if (cmd->argc != 4 || strcmp(cmd->argv[1], "-W") != 0 ||
        strncmp(cmd->argv[2], "depend=", 7) != 0)
        return err_set(err,
                       "%s:%ld: qalter: a replay alters dependencies only: qalter -W "
                       "depend=LIST JOB",
                       path, cmd->line);
    if (!strmap_get(ids, cmd->argv[3], &at))
        return err_set(err,
                       "%s:%ld: qalter: no job '%.64s' in the replay (the trace's or a submit's)",
                       path, cmd->line, cmd->argv[3]);
    struct job_dep *d = NULL;
    size_t n = 0;
    struct err e;
    if (dep_parse(qalter_depend(cmd), &d, &n, &e) < 0)
        return err_set(err, "%s:%ld: qalter: illegal -W value %.64s: %s", path, cmd->line,
                       cmd->argv[2], e.msg);
    int rc = 0;
    for (size_t k = 0; k < n && rc == 0; k++)
        if (!strmap_get(ids, d[k].on, &at))
            rc =
                err_set(err, "%s:%ld: qalter: dependency on job %s: no such job in the replay%s",
                        path, cmd->line, d[k].on,
                        strstr(d[k].on, "[]") ? " (a whole array: name its tasks, ID[INDEX])" : "");
    dep_free(d, n);
    return rc;
}

int sim_qalter_run(struct sched *s, const struct sim_script_cmd *cmd, long now, struct err *err)
{
    struct job *j = sched_find_job(s, cmd->argv[3]);
    struct err e;
    if (!j)
        return err_set(err, "qalter: Unknown Job Id %s (not queued yet, or rejected)",
                       cmd->argv[3]);
    if (j->state != JOB_IDLE)
        return err_set(err, "qalter: Request invalid for state of job %s", cmd->argv[3]);
    if (sched_replace_deps(s, j, qalter_depend(cmd), now, &e) < 0)
        return err_set(err, "qalter: illegal -W value %.64s: %s", cmd->argv[2], e.msg);
    return 0;
}

int sim_submit_add(const struct sim_script *sc, const char *path, struct workload *wl,
                   struct err *err)
{
    struct strmap ids;
    strmap_init(&ids);
    char(*text)[WL_ID_LEN] = xmalloc((wl->njobs + 1) * sizeof *text); /* the map borrows keys */
    for (size_t i = 0; i < wl->njobs; i++) {
        const char *id = wl_job_id(wl, &wl->jobs[i], text[i]);
        if (id)
            strmap_put(&ids, id, 0);
    }
    int rc = 0, any = 0;
    for (size_t i = 0; i < sc->n && rc == 0; i++) {
        const struct sim_script_cmd *cmd = &sc->cmds[i];
        if (!sim_submit_is(cmd))
            continue;
        struct submit sb = {0};
        rc = read_submit(cmd, path, &ids, &sb, err);
        if (rc == 0) {
            rc = add_jobs(wl, &ids, &sb, cmd, path, err);
            qsub_free(&sb.req);
            any = 1;
        }
    }
    /* qalter names jobs of any submit line, earlier or later (one not
     * queued yet at its time is its failure, reported then). */
    for (size_t i = 0; i < sc->n && rc == 0; i++)
        if (sim_qalter_is(&sc->cmds[i]))
            rc = check_qalter(&sc->cmds[i], path, &ids, err);
    strmap_free(&ids);
    free(text);
    if (rc < 0 || !any)
        return rc;
    workload_sort(wl);
    return check_deps(wl, path, err);
}
