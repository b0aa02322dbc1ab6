/*
 * dtorque — Torque's everyday commands as thin faces on moku's own: qdel
 * (canceljob), qhold and qrls (sethold, releasehold), qrun (runjob), qsig -s
 * suspend|resume (mjobctl), qalter (walltime, name, priority, dependencies
 * of a queued job), pbsnodes -o|-c (a node offline or back), and qstat / pbsnodes as
 * views (cmd/qstat.c). Who may do what is moku's (dctl.c): the faces check
 * nothing of their own beyond what Torque refuses first, and every change
 * goes through the command it maps to, committed before the reply.
 *
 * Torque's words and exit codes, which scripts test: success prints
 * nothing; "qdel: Unknown Job Id 12.host" exits 153 (PBSE_UNKJOBID 15001
 * modulo 256), "Unauthorized Request" 159 (PBSE_PERM), "Request invalid
 * for state of job" 170 (PBSE_BADSTATE), a bad request 156 (PBSE_IVALREQ),
 * an unknown node 214 (PBSE_UNKNODE), a usage error 2. Several jobs: each
 * one's message, the exit code of the last failure.
 *
 * Node states set by pbsnodes are kept in the store (store_node_state, the
 * note under the key "node_note/<name>") and applied to every new engine
 * (dtorque_nodes_restore): a restart or a reload keeps a node offline.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/qsub.h"
#include "daemon/daemon_int.h"
#include "daemon/dctl.h"
#include "daemon/dreply.h"
#include "daemon/drights.h"
#include "util/idname.h"
#include "util/mem.h"

#define EX_UNKJOB 153
#define EX_IVALREQ 156
#define EX_PERM 159
#define EX_BADSTATE 170
#define EX_UNKQUE 170 /* PBSE_UNKQUE 15018 modulo 256 */
#define EX_UNKNODE 214
#define EX_SYSTEM 162 /* PBSE_SYSTEM 15010 modulo 256 */

/* A reply built job by job: the messages, and the last failure's code. */
struct treply {
    char *text;
    size_t len, cap;
    int exit;
};

static void t_fail(struct treply *r, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void t_fail(struct treply *r, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    r->text = xgrow(r->text, &r->cap, r->len + (size_t)n + 2, 1);
    va_start(ap, fmt);
    vsnprintf(r->text + r->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    r->len += (size_t)n;
    r->text[r->len++] = '\n';
    r->text[r->len] = '\0';
    r->exit = code;
}

static json_t *t_done(struct treply *r)
{
    json_t *o = r->exit ? json_pack("{s:b, s:i, s:s}", "ok", 0, "exit", r->exit, "error",
                                    r->text ? r->text : "")
                        : json_pack("{s:b, s:i, s:s}", "ok", 1, "exit", 0, "output", "");
    free(r->text);
    return o;
}

static json_t *t_one(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static json_t *t_one(int code, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    struct treply r = {0};
    t_fail(&r, code, "%s", msg);
    return t_done(&r);
}

/* The reply's error text, or "" (ok replies have none). */
static const char *reply_error(const json_t *r)
{
    const char *e = json_string_value(json_object_get(r, "error"));
    return e ? e : "";
}

static int reply_ok(const json_t *r)
{
    return json_is_true(json_object_get(r, "ok"));
}

static int is_admin12(const struct peer *p)
{
    return p->admin >= 1 && p->admin <= 2;
}

/* The job a word names (Torque id or moku's), when the daemon has it
 * queued or running; NULL otherwise (unknown, or ended: Torque forgets
 * those). */
static struct djob *active_job(struct dmn *d, const char *word)
{
    char id[32];
    struct djob *dj = djobs_find(d, cmd_job_id(word, id, sizeof id));
    if (!dj || dj->rec.state == SJ_COMPLETED ||
        (dj->rec.state == SJ_REMOVED && (!dj->rec.start || dj->rec.end)))
        return NULL;
    return dj;
}

/* A job word as Torque's messages show it: a bare id completed with the
 * server's name ("14" -> "14.host", as Torque's clients do), any other
 * word as the user gave it ("2.vm" keeps its suffix). */
static const char *t_id(const char *word, char *buf, size_t n)
{
    size_t digits = strspn(word, "0123456789");
    if (digits == 0 || word[digits] || digits > 20)
        return word;
    char host[256];
    snprintf(buf, n, "%s.%s", word, idname_server(host, sizeof host));
    return buf;
}

/* The job a word names (Torque id or moku's), queued, running or ended;
 * for a whole array ("12[]"), its first task. */
static struct djob *djobs_find_word(struct dmn *d, const char *word)
{
    char id[32];
    const char *bare = cmd_job_id(word, id, sizeof id);
    long array = darray_whole(bare);
    if (!array)
        return djobs_find(d, bare);
    struct djob **tasks = NULL, *first = NULL;
    if (darray_tasks(d, array, &tasks) > 0)
        first = tasks[0];
    free(tasks);
    return first;
}

/* Whether the daemon still shows job word (qstat -c) though it has ended. */
static int ended_job(struct dmn *d, const char *word)
{
    return djobs_find_word(d, word) && !active_job(d, word);
}

/* Run moku's command cmd on one job (its bare id), through dctl. */
static json_t *call1(struct dmn *d, const struct peer *p, const char *cmd, const char *opt1,
                     const char *opt2, const struct djob *dj)
{
    char id[48];
    djobs_name(&dj->rec, id, sizeof id); /* the engine's name: "12", a task's "12[3]" */
    char *argv[4];
    int argc = 0;
    if (opt1)
        argv[argc++] = (char *)opt1;
    if (opt2)
        argv[argc++] = (char *)opt2;
    argv[argc++] = id;
    argv[argc] = NULL;
    return dctl_call(d, p, cmd, argc, argv);
}

/* The moku reply r for Torque's job word w: nothing on success, else the
 * message (as "qdel: ..."), with the code that fits it. */
static void t_relay(struct treply *out, const char *tcmd, const char *w, json_t *r)
{
    if (!reply_ok(r)) {
        const char *e = reply_error(r);
        if (strstr(e, "not authorized"))
            t_fail(out, EX_PERM, "%s: Unauthorized Request  %s", tcmd, w);
        else if (strstr(e, "cannot locate"))
            t_fail(out, EX_BADSTATE, "%s: Request invalid for state of job %s", tcmd, w);
        else
            t_fail(out, EX_IVALREQ, "%s: %s: %.*s", tcmd, w, (int)strcspn(e, "\n"), e);
    }
    json_decref(r);
}

/* ---- qdel, qhold, qrls, qrun ---- */

/* One commit a job made "qhold 12[]" of 2000 tasks 2000 fsyncs (42 MB
 * written, the daemon deaf 1-8 s; qdel: 70 MB, 10 s; 5000 tasks, the most a
 * user may queue, passed qsub's own timeout). The jobs' commits join one
 * group instead, made durable once before the answer, as moku's own
 * canceljob and sethold of many jobs do in one transaction (a cancel's
 * signal included). 1 when this call opened the group. */
static int t_group_open(struct dmn *d)
{
    return !store_group_is_open(d->st) && store_group_open(d->st, NULL) == 0;
}

/* The answer *out for tcmd once the group (when opened) is durable; when
 * it cannot be, none of its changes is answered as made, and the engine,
 * which has them, is rebuilt from the store. */
static json_t *t_group_close(struct dmn *d, int opened, const char *tcmd, struct treply *out)
{
    struct err e;
    if (opened && store_group_close(d->st, &e) < 0) {
        free(out->text);
        dspace_commit_failed(d);
        d->recover = 1;
        return t_one(EX_SYSTEM, "%s: the changes could not be saved: %s", tcmd, e.msg);
    }
    return t_done(out);
}

static json_t *t_qdel(struct dmn *d, const struct peer *p, int argc, char **argv)
{
    int i = 0;
    for (; i < argc && argv[i][0] == '-'; i++)
        if (strcmp(argv[i], "-W") == 0 && i + 1 < argc)
            i++;                             /* -W delay: moku cancels at once */
        else if (strcmp(argv[i], "-p") != 0) /* purge: the same here */
            return t_one(2, "qdel: unknown option '%.64s' (usage: qdel [-W delay] [-p] JOB...)",
                         argv[i]);
    if (i == argc)
        return t_one(2, "usage: qdel [-W delay] [-p] JOB...");
    int grouped = t_group_open(d);
    struct treply out = {0};
    for (; i < argc; i++) {
        struct djob *dj = active_job(d, argv[i]);
        char shown[300];
        const char *w = t_id(argv[i], shown, sizeof shown);
        if (!dj && ended_job(d, argv[i]))
            t_fail(&out, EX_BADSTATE,
                   "qdel: Request invalid for state of job MSG=invalid state for job - COMPLETE "
                   "%s",
                   w);
        else if (!dj)
            t_fail(&out, EX_UNKJOB, "qdel: Unknown Job Id %s", w);
        else if (!drights_may_change(p, dj))
            t_fail(&out, EX_PERM, "qdel: Unauthorized Request  %s", argv[i]);
        else
            t_relay(&out, "qdel", argv[i], call1(d, p, "canceljob", NULL, NULL, dj));
    }
    return t_group_close(d, grouped, "qdel", &out);
}

/* Torque's hold letters: u user, o operator (moku's batch hold), s system;
 * n none (qrls of nothing). The moku names, in order, into types[]. */
static int hold_letters(const char *s, const char *types[3], int *n)
{
    *n = 0;
    for (; *s; s++) {
        if (*s == 'u')
            types[(*n)++] = "user";
        else if (*s == 'o')
            types[(*n)++] = "batch";
        else if (*s == 's')
            types[(*n)++] = "system";
        else if (*s != 'n')
            return -1;
        if (*n > 3)
            return -1;
    }
    return 0;
}

static json_t *t_hold(struct dmn *d, const struct peer *p, const char *tcmd, int argc, char **argv)
{
    int set = strcmp(tcmd, "qhold") == 0, i = 0, ntypes = 1;
    const char *types[3] = {"user"};
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (strcmp(argv[i], "-h") == 0 && i + 1 < argc) {
            if (hold_letters(argv[++i], types, &ntypes) < 0)
                return t_one(2, "%s: illegal -h value '%.16s' (u, o, s or n)", tcmd, argv[i]);
        } else
            return t_one(2, "%s: unknown option '%.64s' (usage: %s [-h u|o|s] JOB...)", tcmd,
                         argv[i], tcmd);
    }
    if (i == argc)
        return t_one(2, "usage: %s [-h u|o|s] JOB...", tcmd);
    int grouped = t_group_open(d);
    struct treply out = {0};
    for (; i < argc; i++) {
        struct djob *dj = active_job(d, argv[i]);
        if (!dj) {
            t_fail(&out, EX_UNKJOB, "%s: Unknown Job Id %s", tcmd, argv[i]);
            continue;
        }
        int other = ntypes > 0 && strcmp(types[ntypes - 1], "user") != 0;
        if (!drights_may_change(p, dj) || (other && !is_admin12(p))) {
            t_fail(&out, EX_PERM, "%s: Unauthorized Request  %s", tcmd, argv[i]);
            continue;
        }
        if (dj->rec.state != SJ_IDLE) {
            t_fail(&out, EX_BADSTATE, "%s: Request invalid for state of job %s", tcmd, argv[i]);
            continue;
        }
        for (int k = 0; k < ntypes; k++)
            t_relay(&out, tcmd, argv[i],
                    call1(d, p, set ? "sethold" : "releasehold", "-h", types[k], dj));
    }
    return t_group_close(d, grouped, tcmd, &out);
}

static json_t *t_qrun(struct dmn *d, const struct peer *p, int argc, char **argv)
{
    int i = 0;
    for (; i < argc && argv[i][0] == '-'; i++)
        if (strcmp(argv[i], "-H") == 0 && i + 1 < argc)
            return t_one(EX_IVALREQ, "qrun: -H (a host list) is not supported: moku places the "
                                     "job itself");
        else if (strcmp(argv[i], "-a") != 0)
            return t_one(2, "qrun: unknown option '%.64s' (usage: qrun JOB...)", argv[i]);
    if (i == argc)
        return t_one(2, "usage: qrun JOB...");
    struct treply out = {0};
    for (; i < argc; i++) {
        struct djob *dj = active_job(d, argv[i]);
        if (!dj)
            t_fail(&out, EX_UNKJOB, "qrun: Unknown Job Id %s", argv[i]);
        else if (!is_admin12(p))
            t_fail(&out, EX_PERM, "qrun: Unauthorized Request  %s", argv[i]);
        else if (dj->rec.state != SJ_IDLE)
            t_fail(&out, EX_BADSTATE, "qrun: Request invalid for state of job %s", argv[i]);
        else
            t_relay(&out, "qrun", argv[i], call1(d, p, "runjob", NULL, NULL, dj));
    }
    return t_done(&out);
}

/* ---- qsig ---- */

static json_t *t_qsig(struct dmn *d, const struct peer *p, int argc, char **argv)
{
    const char *sig = "SIGTERM";
    int i = 0;
    for (; i < argc && argv[i][0] == '-'; i++)
        if (strcmp(argv[i], "-s") == 0 && i + 1 < argc)
            sig = argv[++i];
        else
            return t_one(2, "qsig: unknown option '%.64s' (usage: qsig [-s SIGNAL] JOB...)",
                         argv[i]);
    if (i == argc)
        return t_one(2, "usage: qsig [-s SIGNAL] JOB...");
    int suspend = strcasecmp(sig, "suspend") == 0, resume = strcasecmp(sig, "resume") == 0;
    struct treply out = {0};
    for (; i < argc; i++) {
        struct djob *dj = active_job(d, argv[i]);
        if (!dj)
            t_fail(&out, EX_UNKJOB, "qsig: Unknown Job Id %s", argv[i]);
        else if (!suspend && !resume)
            /* The local resource manager's supervisor forwards cancel,
             * suspend and resume only; Slurm's would need scancel -s. */
            t_fail(&out, EX_IVALREQ,
                   "qsig: signal %.32s: moku delivers only suspend and resume "
                   "(qsig -s suspend|resume); to end job %s use qdel",
                   sig, argv[i]);
        else if (!is_admin12(p))
            t_fail(&out, EX_PERM, "qsig: Unauthorized Request  %s", argv[i]);
        else if (dj->rec.state != (suspend ? SJ_RUNNING : SJ_SUSPENDED))
            t_fail(&out, EX_BADSTATE, "qsig: Request invalid for state of job %s", argv[i]);
        else
            t_relay(&out, "qsig", argv[i], call1(d, p, "mjobctl", suspend ? "-s" : "-r", NULL, dj));
    }
    return t_done(&out);
}

/* ---- qalter ---- */

struct alter {
    long walltime; /* 0 = unchanged */
    const char *name;
    const char *prio;   /* -p, NULL = unchanged */
    const char *depend; /* -W depend=: the new dependencies, NULL = unchanged */
};

#define ALTER_USAGE "usage: qalter [-l walltime=T] [-N NAME] [-p PRIORITY] [-W depend=LIST] JOB..."

static int alter_args(int argc, char **argv, struct alter *a, int *first, json_t **bad)
{
    *a = (struct alter){0};
    int i = 0;
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (strcmp(argv[i], "-l") != 0 && strcmp(argv[i], "-N") != 0 &&
            strcmp(argv[i], "-p") != 0 && strcmp(argv[i], "-W") != 0) {
            *bad = t_one(2,
                         "qalter: unknown option '%.64s' (usage: qalter [-l walltime=T] "
                         "[-N NAME] [-p PRIORITY] [-W depend=LIST] JOB...)",
                         argv[i]);
            return -1;
        }
        if (i + 1 >= argc) {
            *bad = t_one(2, ALTER_USAGE);
            return -1;
        }
        const char *v = argv[++i];
        struct err e;
        if (strcmp(argv[i - 1], "-N") == 0) {
            /* The name qsub -N would take, no other: a '/' would make the
             * job's output path, and so its start, fail; control
             * characters would reach every user's terminal through qstat. */
            if (qsub_check_name(v, &e) < 0) {
                *bad = t_one(EX_IVALREQ, "qalter: illegal -N value: %s", e.msg);
                return -1;
            }
            a->name = v;
        } else if (strcmp(argv[i - 1], "-p") == 0) {
            a->prio = v;
        } else if (strcmp(argv[i - 1], "-W") == 0 && strncmp(v, "depend=", 7) == 0) {
            a->depend = v + 7;
        } else if (strcmp(argv[i - 1], "-W") == 0) {
            *bad = t_one(EX_IVALREQ, "qalter: -W %.64s: moku alters depend= only", v);
            return -1;
        } else if (strcmp(argv[i - 1], "-l") == 0 && strncmp(v, "walltime=", 9) == 0 &&
                   !strchr(v, ',')) {
            if (qsub_walltime(v + 9, &a->walltime, NULL) < 0) {
                *bad = t_one(EX_IVALREQ, "qalter: illegal -l value walltime=%.32s", v + 9);
                return -1;
            }
        } else {
            *bad = t_one(EX_IVALREQ,
                         "qalter: %.16s %.64s: moku alters walltime (-l walltime=), "
                         "the name (-N), the priority (-p) and the dependencies (-W depend=) only",
                         argv[i - 1], v);
            return -1;
        }
    }
    if (i == argc || (!a->walltime && !a->name && !a->prio && !a->depend)) {
        *bad = t_one(2, ALTER_USAGE);
        return -1;
    }
    *first = i;
    return 0;
}

/* Whether an ordinary user's job with walltime w would be over its
 * per-job limits (MAX.WCLIMIT ...): err says which. */
static int over_limits(struct dmn *d, const struct job *j, long w, struct err *err)
{
    struct job_spec spec = {.name = j->name,
                            .tasks = j->tasks,
                            .procs_per_task = j->procs_per_task,
                            .nodes = j->nodes,
                            .tpn = j->tpn,
                            .walltime = w,
                            .submit = j->submit,
                            .user = j->user->name,
                            .group = j->group->name,
                            .account = j->account->name,
                            .class_ = j->class_->name,
                            .qos = j->qos->name};
    return sched_job_fit(d->s, &spec, SCHED_FIT_LIMITS, err) == SCHED_OVER_LIMIT;
}

/* One job's changes, inside the request's transaction. */
static void alter_one(struct dmn *d, const struct peer *p, const struct alter *a, const char *w,
                      struct treply *out)
{
    struct djob *dj = active_job(d, w);
    struct err e;
    if (!dj)
        return t_fail(out, EX_UNKJOB, "qalter: Unknown Job Id %s", w);
    if (!drights_may_change(p, dj) || (a->prio && !is_admin12(p)))
        return t_fail(out, EX_PERM, "qalter: Unauthorized Request  %s", w);
    if ((a->walltime || a->prio || a->depend) && (dj->rec.state != SJ_IDLE || !dj->j))
        return t_fail(out, EX_BADSTATE, "qalter: Request invalid for state of job %s", w);
    if (a->walltime && !is_admin12(p) && over_limits(d, dj->j, a->walltime, &e))
        return t_fail(out, EX_PERM, "qalter: Unauthorized Request  %s (walltime %ld: the job %s)",
                      w, a->walltime, e.msg);
    /* Every check before the first change: -p's value, then the
     * dependencies (all or nothing), then what cannot fail. */
    char *end = NULL;
    long prio = a->prio ? strtol(a->prio, &end, 10) : 0;
    if (a->prio && (*end || end == a->prio || prio < 0 || prio > 1000))
        return t_fail(out, EX_IVALREQ,
                      "qalter: illegal -p value %.32s (0 to 1000, moku's "
                      "system priority)",
                      a->prio);
    if (a->depend && ddep_alter(d, dj, a->depend, &e) < 0)
        return t_fail(out, EX_IVALREQ, "qalter: illegal -W value depend=%.64s: %s", a->depend,
                      e.msg);
    if (a->prio)
        sched_set_sysprio(d->s, dj->j, SYSPRIO_ABSOLUTE, prio, NULL); /* idle, in range */
    if (a->walltime) {
        sched_set_walltime(d->s, dj->j, a->walltime, NULL); /* idle: cannot fail */
        dj->rec.walltime = a->walltime;
    }
    if (a->name) {
        free(dj->rec.name);
        dj->rec.name = xstrdup(a->name);
    }
    djrec_save(d, dj);
    char what[160];
    snprintf(what, sizeof what, "%s%ld%s%.64s%s%.16s%s%.64s", a->walltime ? "walltime=" : "",
             a->walltime, a->name ? " name=" : "", a->name ? a->name : "", a->prio ? " p=" : "",
             a->prio ? a->prio : "", a->depend ? " depend=" : "", a->depend ? a->depend : "");
    store_event(d->st, time(NULL), dj->rec.id, "alter", what, NULL);
    dlog(d->log, 1, "job %ld altered by %s: %s", dj->rec.id, p->user, what);
}

static json_t *t_qalter(struct dmn *d, const struct peer *p, int argc, char **argv)
{
    struct alter a;
    int i;
    json_t *bad = NULL;
    if (alter_args(argc, argv, &a, &i, &bad) < 0)
        return bad;
    if ((bad = dreply_begin(d)))
        return bad;
    struct treply out = {0};
    for (; i < argc; i++)
        alter_one(d, p, &a, argv[i], &out);
    return dreply_commit(d, t_done(&out));
}

/* ---- pbsnodes -o | -c ---- */

static void node_note_key(const char *node, char *key, size_t n)
{
    snprintf(key, n, "node_note/%s", node);
}

static json_t *t_nodes_set(struct dmn *d, const struct peer *p, int offline, const char *note,
                           int argc, char **argv)
{
    if (!is_admin12(p))
        return t_one(EX_PERM,
                     "pbsnodes: Unauthorized Request  (user %s is not authorized: "
                     "ADMIN1 or ADMIN2)",
                     p->user);
    if (d->rm.ops->node_states)
        return t_one(EX_IVALREQ,
                     "pbsnodes: the nodes' states are %s's: change them there "
                     "(scontrol update NodeName=... State=DRAIN|RESUME)",
                     d->rm.ops->name);
    if (argc == 0)
        return t_one(2, "usage: pbsnodes -o|-c [-N NOTE] NODE...");
    for (int i = 0; i < argc; i++)
        if (sched_find_node(d->s, argv[i]) < 0)
            return t_one(EX_UNKNODE,
                         "pbsnodes: Unknown node  MSG=cannot locate specified node "
                         "'%.64s'",
                         argv[i]);
    json_t *bad = dreply_begin(d);
    if (bad)
        return bad;
    char reason[256], key[128];
    snprintf(reason, sizeof reason, "%.200s", note && *note ? note : "offline (pbsnodes -o)");
    for (int i = 0; i < argc; i++) {
        node_note_key(argv[i], key, sizeof key);
        store_node_state(d->st, argv[i], offline ? "Drained" : NULL, NULL);
        store_kv_set(d->st, key, offline ? reason : NULL, NULL);
        sched_node_set_state(d->s, (size_t)sched_find_node(d->s, argv[i]),
                             offline ? NODE_DRAINED : NODE_UP, offline ? reason : NULL);
        store_event(d->st, time(NULL), 0, offline ? "offline" : "online", argv[i], NULL);
        dlog(d->log, 0, "node %s %s by %s", argv[i], offline ? "offline" : "back online", p->user);
    }
    /* The engine changed first: a failed commit rebuilds it from the store
     * (dreply_commit sets d->recover), which puts the old states back. */
    return dreply_commit(d, json_pack("{s:b, s:i, s:s}", "ok", 1, "exit", 0, "output", ""));
}

struct nodes_ctx {
    struct dmn *d;
    struct sched *s; /* being built */
};

static int restore_node(void *ctx, const char *node, const char *state)
{
    struct dmn *d = ((struct nodes_ctx *)ctx)->d;
    struct sched *s = ((struct nodes_ctx *)ctx)->s;
    enum node_state st;
    long i = sched_find_node(s, node);
    if (i < 0 || node_state_parse(state, &st) < 0) {
        dlog(d->log, 0, "warning: stored state '%s' of node %s ignored (%s)", state, node,
             i < 0 ? "no such node now" : "unknown state");
        return 0;
    }
    char key[128], note[256];
    node_note_key(node, key, sizeof key);
    int has = store_kv_get(d->st, key, note, sizeof note, NULL) == 1;
    sched_node_set_state(s, (size_t)i, st, has ? note : NULL);
    return 0;
}

int dtorque_nodes_restore(struct dmn *d, struct sched *s, struct err *err)
{
    struct nodes_ctx c = {d, s};
    return store_nodes(d->st, restore_node, &c, err) < 0 ? -1 : 0;
}

/* ---- the views ---- */

/*
 * qstat: everyone sees the summary (showq's rule); the full view of a job
 * is its owner's and the administrators' (checkjob's). An ordinary user's
 * `qstat -f` without jobs shows their own. Where another user's job runs
 * (-n), their ended jobs (-x) and, in pbsnodes, nodes' notes and other
 * users' jobs on nodes are the administrators' (checknode's): the command
 * layer leaves them out for an ordinary caller (cmd_ctx.ordinary, set by
 * dlook_layer).
 */
static json_t *t_qstat(struct dmn *d, const struct peer *p, int argc, char **argv)
{
    int full = 0, first = argc, summary = 0;
    for (int i = 0; i < argc; i++) {
        int opt = argv[i][0] == '-' && strncmp(argv[i], "--", 2) != 0;
        if (opt && (strchr(argv[i], 'f') || strchr(argv[i], 'x')))
            full = 1;
        if (opt && strpbrk(argv[i], "QqB"))
            summary = 1; /* the operands are queues or servers, not jobs */
        if (opt && strchr(argv[i], 'u'))
            i++;
        else if (argv[i][0] != '-' && first == argc)
            first = i;
    }
    char **av = xcalloc((size_t)argc + 3, sizeof *av);
    int n = 0, named = 0;
    struct treply miss = {0};
    for (int i = 0; i < argc; i++) {
        /* An unknown job is Torque's error line (exit 153); the others are
         * shown all the same, as Torque's qstat does job by job. */
        char shown[300];
        if (i >= first && argv[i][0] != '-' && !summary && !djobs_find_word(d, argv[i])) {
            t_fail(&miss, EX_UNKJOB, "qstat: Unknown Job Id %s",
                   t_id(argv[i], shown, sizeof shown));
            continue;
        }
        named += i >= first && argv[i][0] != '-';
        av[n++] = argv[i];
    }
    if (miss.exit && !named) {
        free(av);
        return t_done(&miss);
    }
    if (full && p->admin == 0) {
        for (int i = first; i < argc && !summary; i++) {
            if (argv[i][0] == '-')
                continue;
            struct djob *dj = djobs_find_word(d, argv[i]);
            if (dj && dj->rec.uid != (long)p->uid) {
                free(av);
                free(miss.text);
                return t_one(EX_PERM, "qstat: Unauthorized Request  %s", argv[i]);
            }
        }
        if (first == argc) {
            av[n++] = "-u";
            av[n++] = (char *)p->user;
        }
    }
    json_t *r = dctl_call(d, p, "qstat", n, av);
    free(av);
    if (!reply_ok(r) && strstr(reply_error(r), "Unknown Job Id"))
        json_object_set_new(r, "exit", json_integer(EX_UNKJOB));
    if (!reply_ok(r) && strstr(reply_error(r), "Unknown queue"))
        json_object_set_new(r, "exit", json_integer(EX_UNKQUE));
    if (miss.exit && reply_ok(r)) {
        json_object_set_new(r, "ok", json_false());
        json_object_set_new(r, "exit", json_integer(EX_UNKJOB));
        json_object_set_new(r, "error", json_string(miss.text));
    }
    free(miss.text);
    return r;
}

static json_t *t_pbsnodes(struct dmn *d, const struct peer *p, int argc, char **argv)
{
    int offline = -1;
    const char *note = NULL;
    int w = 0;
    char **rest = xcalloc((size_t)argc + 1, sizeof *rest);
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "-o") == 0)
            offline = 1;
        else if (strcmp(argv[i], "-c") == 0 || strcmp(argv[i], "-r") == 0)
            offline = 0;
        else if (strcmp(argv[i], "-N") == 0 && i + 1 < argc)
            note = argv[++i];
        else
            rest[w++] = argv[i];
    }
    json_t *r = offline >= 0 ? t_nodes_set(d, p, offline, note, w, rest)
                             : dctl_call(d, p, "pbsnodes", w, rest);
    free(rest);
    if (!reply_ok(r) && strstr(reply_error(r), "Unknown node"))
        json_object_set_new(r, "exit", json_integer(EX_UNKNODE));
    return r;
}

int dtorque_answers(enum cmd_op op)
{
    switch (op) {
    case CMD_OP_QSTAT:
    case CMD_OP_PBSNODES:
    case CMD_OP_QDEL:
    case CMD_OP_QHOLD:
    case CMD_OP_QRUN:
    case CMD_OP_QSIG:
    case CMD_OP_QALTER:
        return 1;
    default:
        return 0;
    }
}

json_t *dtorque_run(struct dmn *d, const struct peer *p, enum cmd_op op, const char *cmd, int argc,
                    char **argv)
{
    switch (op) {
    case CMD_OP_QSTAT:
        return t_qstat(d, p, argc, argv);
    case CMD_OP_PBSNODES:
        return t_pbsnodes(d, p, argc, argv);
    case CMD_OP_QDEL:
        return t_qdel(d, p, argc, argv);
    case CMD_OP_QHOLD: /* qhold and qrls */
        return t_hold(d, p, cmd, argc, argv);
    case CMD_OP_QRUN:
        return t_qrun(d, p, argc, argv);
    case CMD_OP_QSIG:
        return t_qsig(d, p, argc, argv);
    case CMD_OP_QALTER:
        return t_qalter(d, p, argc, argv);
    default:
        return t_one(EX_IVALREQ, "%s: not one of Torque's commands", cmd);
    }
}
