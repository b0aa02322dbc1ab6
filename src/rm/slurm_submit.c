/* slurm_submit — moku submit into Slurm, as the caller (slurm_int.h). */
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rm/slurm_int.h"
#include "util/mem.h"

/* ---- submissions through moku ---- */

/* moku's mark in a job's comment: "moku token=T moku-hold". The token
 * finds a submission again when the client retries (its first answer was
 * lost); the hold word is qsub -h, the user's hold as the job-submit plugin
 * keeps it (slurm_status.c reads it, and the older "hold"). */
static char *mark_of(const struct rm_submit *s)
{
    return xprintf("moku%s%s%s", s->token ? " token=" : "", s->token ? s->token : "",
                   s->hold ? " " SRM_USER_HOLD : "");
}

/* The job a submission with this token made already, or 0. */
static uint32_t submitted_before(struct slurm_rm *sr, const struct rm_submit *s)
{
    if (!s->token || !sr->jobs)
        return 0;
    char *word = xprintf("token=%s", s->token);
    uint32_t found = 0;
    for (uint32_t i = 0; i < sr->jobs->record_count && !found; i++) {
        const slurm_job_info_t *x = &sr->jobs->job_array[i];
        if (x->user_id == s->uid && x->comment && strncmp(x->comment, "moku", 4) == 0 &&
            srm_has_word(x->comment, word))
            found = x->job_id;
    }
    free(word);
    return found;
}

/* The script as Slurm takes it: its first line must be "#!"; -S names the
 * shell when the script has none. */
static char *script_of(const struct rm_submit *s)
{
    if (strncmp(s->script, "#!", 2) == 0)
        return xstrdup(s->script);
    return xprintf("#!%s\n%s", s->shell ? s->shell : "/bin/sh", s->script);
}

static uint16_t mail_of(const char *m)
{
    uint16_t t = 0;
    for (; m && *m; m++)
        t |= *m == 'a' ? MAIL_JOB_FAIL : *m == 'b' ? MAIL_JOB_BEGIN : *m == 'e' ? MAIL_JOB_END : 0;
    return t;
}

/* The environment Slurm gives the job: the client's -v/-V, and what a
 * login would set when they do not. */
static char **env_of(const struct rm_submit *s, uint32_t *n)
{
    struct passwd *pw = getpwuid(s->uid);
    const char *fallback[] = {"PATH=/usr/local/bin:/usr/bin:/bin", NULL, NULL};
    char *home = pw ? xprintf("HOME=%s", pw->pw_dir) : NULL;
    char *user = xprintf("USER=%s", s->user);
    fallback[1] = home;
    fallback[2] = user;
    char **env = xcalloc(s->nenv + 4, sizeof *env);
    *n = 0;
    for (size_t i = 0; i < s->nenv; i++)
        env[(*n)++] = xstrdup(s->env[i]);
    for (size_t f = 0; f < 3; f++) {
        if (!fallback[f])
            continue;
        size_t k = (size_t)(strchr(fallback[f], '=') - fallback[f]) + 1;
        int given = 0;
        for (size_t i = 0; i < s->nenv && !given; i++)
            given = strncmp(s->env[i], fallback[f], k) == 0;
        if (!given)
            env[(*n)++] = xstrdup(fallback[f]);
    }
    free(home);
    free(user);
    return env;
}

/* A job's output file for Slurm: the path given, Torque's default name in
 * the working directory when none, or in DIR for DIR/ (qsub -o DIR/);
 * %j is Slurm's job id; an array task's is Torque's <name>.o<array>-<index>
 * (%A the array's id, %a the task's index). Caller frees. */
static char *out_file(const char *path, const char *cwd, const char *name, char kind, int array)
{
    size_t n = path ? strlen(path) : 0;
    if (n && path[n - 1] != '/')
        return xstrdup(path);
    return xprintf("%s%s%s.%c%s", n ? path : cwd, n ? "" : "/", name, kind, array ? "%A-%a" : "%j");
}

/* A host list ("n1:2,n2:2") as Slurm's required nodes ("n1,n2") and the
 * processors on each: Slurm spreads tasks over required nodes itself, so
 * only the same count on every host (ntasks-per-node) is kept exactly. */
static int req_nodes_of(const char *hosts, char **list, int *n, int *per, struct err *err)
{
    *list = NULL, *n = 0, *per = 0;
    char *copy = xstrdup(hosts), *save = NULL;
    int rc = 0;
    for (char *it = strtok_r(copy, ",", &save); it && rc == 0; it = strtok_r(NULL, ",", &save)) {
        char *colon = strrchr(it, ':');
        int c = colon ? atoi(colon + 1) : 0;
        if (colon)
            *colon = '\0';
        if (c < 1 || (*per && c != *per)) {
            rc = err_set(err,
                         "Slurm cannot give the named hosts different processor counts "
                         "(nodes=%s): ask for the same ppn on each",
                         hosts);
            break;
        }
        *per = c;
        char *more = xprintf("%s%s%s", *list ? *list : "", *list ? "," : "", it);
        free(*list);
        *list = more;
        ++*n;
    }
    free(copy);
    if (rc < 0) {
        free(*list);
        *list = NULL;
    }
    return rc;
}

int srm_submit(void *ctx, const struct rm_submit *s, long *id, struct err *err)
{
    struct slurm_rm *sr = ctx;
    if (srm_ctld_up(sr, err) < 0)
        return -1;
    struct err re;
    if (s->token && srm_refresh(sr, &re) >= 0 && (*id = (long)submitted_before(sr, s)))
        return 0; /* sent again: the first submission's job */
    char *req = NULL;
    int nreq = 0, per = 0;
    if (s->hosts && req_nodes_of(s->hosts, &req, &nreq, &per, err) < 0)
        return -1;
    job_desc_msg_t d;
    slurm_init_job_desc_msg(&d);
    char *script = script_of(s), *mark = mark_of(s), *features = NULL;
    const char *name = s->name ? s->name : "STDIN";
    char *out = out_file(s->out_path, s->cwd, name, 'o', s->array != NULL);
    char *errp = s->join ? NULL : out_file(s->err_path, s->cwd, name, 'e', s->array != NULL);
    if (s->features) { /* "a,b": every one, which Slurm writes a&b */
        features = xstrdup(s->features);
        for (char *p = features; *p; p++)
            if (*p == ',')
                *p = '&';
    }
    d.name = (char *)name;
    d.script = script;
    d.work_dir = (char *)s->cwd;
    d.std_out = out;
    d.std_err = errp;
    d.user_id = s->uid;
    d.group_id = s->gid;
    d.account = (char *)s->account;
    d.partition = (char *)s->class_;
    d.qos = (char *)s->qos;
    d.features = features;
    d.comment = mark;
    d.array_inx = (char *)s->array; /* Torque's and PBS Pro's ranges are Slurm's syntax too */
    d.min_cpus = d.num_tasks = (uint32_t)s->tasks;
    if (s->nodes > 0) {
        d.min_nodes = d.max_nodes = (uint32_t)s->nodes;
        d.ntasks_per_node = (uint16_t)s->ppn;
    }
    if (req) { /* sbatch --nodelist with as many nodes, and the count on each */
        d.req_nodes = req;
        d.min_nodes = d.max_nodes = (uint32_t)nreq;
        d.ntasks_per_node = (uint16_t)per;
    }
    if (s->mem_mb > 0) /* per job: per processor here, as Slurm counts it */
        d.pn_min_memory = (uint64_t)((s->mem_mb + s->tasks - 1) / s->tasks) | MEM_PER_CPU;
    if (s->walltime > 0)
        d.time_limit = (uint32_t)((s->walltime + 59) / 60);
    if (s->start_after > 0)
        d.begin_time = (time_t)s->start_after;
    if (s->exclusive)
        d.shared = JOB_SHARED_NONE; /* sbatch --exclusive */
    if (s->rerunnable >= 0)
        d.requeue = (uint16_t)s->rerunnable;
    if (s->mail_events && strcmp(s->mail_events, "n") != 0) {
        d.mail_type = mail_of(s->mail_events);
        d.mail_user = (char *)s->mail_users;
    }
    uint32_t nenv;
    char **env = env_of(s, &nenv);
    d.environment = env;
    d.env_size = nenv;
    submit_response_msg_t *resp = NULL;
    int rc = slurm_submit_batch_job(&d, &resp);
    if (rc == SLURM_SUCCESS && resp)
        *id = (long)resp->job_id;
    else
        err_set(err, "Slurm refused the job: %s", srm_error());
    if (resp)
        slurm_free_submit_response_response_msg(resp);
    for (uint32_t i = 0; i < nenv; i++)
        free(env[i]);
    free(env);
    free(script);
    free(mark);
    free(features);
    free(req);
    free(out);
    free(errp);
    sr->stale = 1;
    return rc == SLURM_SUCCESS && resp ? 0 : -1;
}
