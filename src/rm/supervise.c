/*
 * supervise — the supervisor of one job (`moku _supervise <spooldir>`, see
 * local.h): reads the request local_start wrote (job.json), starts the job as
 * its user, forwards cancel/suspend/resume, enforces the walltime, and
 * writes the status file when the job's process exits.
 *
 * One process, one loop: signals are blocked and read from a signalfd, the
 * walltime and the kill deadline are poll timeouts, so nothing runs in a
 * signal handler. Its stdout and stderr are supervisor.log.
 */
#define _GNU_SOURCE /* close_range, initgroups */

#include "rm/jobfile.h"
#include "rm/local.h"
#include "rm/pty.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <jansson.h>
#include <limits.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/idname.h"
#include "util/mem.h"

#define DEFAULT_GRACE 5
#define FAILED_EXIT 127
#define INTER_CONNECT_SECONDS 60 /* qsub -I's time to connect once its job started */
#define WALLTIME_LINE_SECONDS 5  /* the walltime line's writer, at most (tell_walltime_kill) */

/* The request, borrowed from the parsed job.json (root). */
struct sv_job {
    json_t *root;
    const char *id, *name, *user, *script, *cwd, *out, *err, *env;
    const char *array_task; /* an array task's "A[i]", or NULL (local.h) */
    json_int_t uid, gid, walltime, grace;
    json_int_t vmem_mb, nice; /* 0: none (a job.json of an older moku has neither) */
    int interactive;          /* qsub -I: the user's shell on a terminal, no script */
    json_t *hosts;
};

/* A NULL-terminated "K=V" array; a later K replaces an earlier one. */
struct envv {
    char **v;
    size_t n, cap;
};

struct sv {
    char dir[PATH_MAX];
    struct sv_job job;
    int sfd;                     /* signalfd */
    pid_t pid;                   /* the job's process, leader of its process group */
    int errpipe;                 /* read end: the child's message when it could not start the job */
    const char *reason;          /* completed, walltime, cancelled, failed */
    char message[LOCAL_MSG_MAX]; /* why the job could not start ("" = no reason known) */
    int terminating, suspended, done;
    double wall_end;   /* monotonic time of the walltime SIGTERM */
    double kill_at;    /* monotonic time of the SIGKILL, 0 = none */
    double susp_since; /* monotonic time of the suspension */
    long wall_used;    /* walltime used when the walltime kill began (seconds) */
    int wstatus;       /* the job's wait status, once done */
    int lfd, conn;     /* qsub -I: the listening socket, qsub's connection; -1 none */
    int slave;         /* qsub -I: the terminal's slave side, for the child */
};

static void sv_log(const struct sv *sv, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void sv_log(const struct sv *sv, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "moku _supervise %s: %s\n", sv->job.id ? sv->job.id : sv->dir, msg);
}

/* Log why the job could not start, and keep the first such reason for the
 * status file (the daemon shows it in checkjob). */
static void sv_fail(struct sv *sv, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void sv_fail(struct sv *sv, const char *fmt, ...)
{
    char msg[LOCAL_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    sv_log(sv, "%s", msg);
    if (!sv->message[0])
        snprintf(sv->message, sizeof sv->message, "%s", msg);
}

static double mono_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Write <dir>/<name> atomically (temporary file, fsync, rename). The
 * temporary file is written over, not emptied first, so that one made
 * ahead (prealloc_status) needs no new blocks: a job's end is recorded on
 * a full disk. */
static int write_atomic(const struct sv *sv, const char *name, const char *text)
{
    char tmp[PATH_MAX + 32], path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/%s", sv->dir, name);
    snprintf(tmp, sizeof tmp, "%s/%s.tmp", sv->dir, name);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) {
        sv_log(sv, "%s: cannot create: %s", tmp, strerror(errno));
        return -1;
    }
    size_t len = strlen(text), done = 0;
    while (done < len) {
        ssize_t w = write(fd, text + done, len - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            break;
        done += (size_t)w;
    }
    int ok = done == len && ftruncate(fd, (off_t)len) == 0 && fsync(fd) == 0;
    if (close(fd) < 0 || !ok || rename(tmp, path) < 0) {
        sv_log(sv, "%s: cannot write: %s", path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
}

/* The status file's blocks, taken while there is room (as the job starts):
 * written over at the end (write_atomic), so that the job's end is
 * recorded even when the disk has filled meanwhile (issue 28; the daemon
 * gives up its own reserve then, daemon/dspace.c). Not synced: the space
 * is the file system's to count at the write, and the status is synced
 * when written. Best effort. */
static void prealloc_status(const struct sv *sv)
{
    char tmp[PATH_MAX + 32], zeros[LOCAL_MSG_MAX + 256] = {0};
    snprintf(tmp, sizeof tmp, "%s/%s.tmp", sv->dir, LOCAL_F_STATUS);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0 || write(fd, zeros, sizeof zeros) != (ssize_t)sizeof zeros)
        sv_log(sv, "%s: cannot make room for the status file: %s", tmp, strerror(errno));
    if (fd >= 0)
        close(fd);
}

/* ---- job.json ---- */

static int load_job(struct sv *sv)
{
    char path[PATH_MAX + 16];
    json_error_t je;
    struct sv_job *j = &sv->job;
    snprintf(path, sizeof path, "%s/%s", sv->dir, LOCAL_F_JOB);
    j->root = json_load_file(path, 0, &je);
    if (!j->root) {
        sv_log(sv, "%s:%d: %s", path, je.line, je.text);
        return -1;
    }
    json_t *env;
    if (json_unpack_ex(
            j->root, &je, 0,
            "{s:s, s:s, s:s, s:I, s:I, s:s, s:s, s:s, s:s, s:o, s:o, s:I, s:I, s?I, s?I, s?b, s?s}",
            "id", &j->id, "name", &j->name, "user", &j->user, "uid", &j->uid, "gid", &j->gid,
            "script", &j->script, "cwd", &j->cwd, "out_path", &j->out, "err_path", &j->err, "env",
            &env, "hosts", &j->hosts, "walltime", &j->walltime, "grace", &j->grace, "vmem_mb",
            &j->vmem_mb, "nice", &j->nice, "interactive", &j->interactive, "array_task",
            &j->array_task) < 0) {
        sv_log(sv, "%s: %s", path, je.text);
        j->id = NULL;
        return -1;
    }
    j->env = json_string_value(env); /* NULL for null */
    if (!json_is_array(j->hosts) || json_array_size(j->hosts) == 0) {
        sv_log(sv, "%s: no hosts", path);
        return -1;
    }
    if (j->grace <= 0)
        j->grace = DEFAULT_GRACE;
    return 0;
}

/* ---- the job's environment ---- */

static void env_put(struct envv *e, char *kv)
{
    size_t klen = strcspn(kv, "=");
    for (size_t i = 0; i < e->n; i++)
        if (strncmp(e->v[i], kv, klen + 1) == 0) {
            free(e->v[i]);
            e->v[i] = kv;
            return;
        }
    e->v = xgrow(e->v, &e->cap, e->n + 2, sizeof *e->v);
    e->v[e->n++] = kv;
    e->v[e->n] = NULL;
}

static void env_set(struct envv *e, const char *key, const char *val)
{
    size_t len = strlen(key) + strlen(val) + 2;
    char *kv = xmalloc(len);
    snprintf(kv, len, "%s=%s", key, val);
    env_put(e, kv);
}

static void env_free(struct envv *e)
{
    for (size_t i = 0; i < e->n; i++)
        free(e->v[i]);
    free(e->v);
}

/* The job's "K=V\n" lines (malformed ones were refused by local_start). */
static void env_extra(struct envv *e, const char *lines)
{
    for (const char *p = lines; p && *p;) {
        size_t n = strcspn(p, "\n");
        const char *eq = memchr(p, '=', n);
        if (eq && eq != p)
            env_put(e, xstrndup(p, n));
        p += n + (p[n] ? 1 : 0);
    }
}

/* The distinct hosts in nodefile order, separated by spaces; their number
 * in *nnodes. Caller frees. */
static char *distinct_hosts(json_t *hosts, size_t *nnodes)
{
    size_t len = 0, cap = 0;
    char *list = NULL;
    *nnodes = 0;
    for (size_t i = 0; i < json_array_size(hosts); i++) {
        const char *h = json_string_value(json_array_get(hosts, i));
        size_t k = 0, hl = h ? strlen(h) : 0;
        for (; h && k < i; k++) {
            const char *o = json_string_value(json_array_get(hosts, k));
            if (o && strcmp(o, h) == 0)
                break;
        }
        if (!h || k < i)
            continue;
        list = xgrow(list, &cap, len + hl + 2, 1);
        if (len)
            list[len++] = ' ';
        memcpy(list + len, h, hl);
        len += hl;
        (*nnodes)++;
    }
    list = xgrow(list, &cap, len + 1, 1);
    list[len] = '\0';
    return list;
}

/* Torque's full job id, "12.server", into buf: the server is this host
 * (the daemon that started the job runs here), by its short name, as qsub
 * prints the id and qstat shows it. */
static const char *torque_jobid(const char *id, char *buf, size_t n)
{
    char host[256];
    snprintf(buf, n, "%s.%s", id, idname_server(host, sizeof host));
    return buf;
}

/* The environment of local.h: base, then the job's own lines, then the
 * MOKU_/PBS_ variables, which the job's lines cannot override. */
static void build_env(const struct sv *sv, const struct passwd *pw, struct envv *e)
{
    const struct sv_job *j = &sv->job;
    char path[PATH_MAX + 16], num[32], tid[512];
    size_t nnodes;
    env_set(e, "HOME", pw && pw->pw_dir && *pw->pw_dir ? pw->pw_dir : j->cwd);
    env_set(e, "USER", j->user);
    env_set(e, "LOGNAME", j->user);
    env_set(e, "SHELL", pw && pw->pw_shell && *pw->pw_shell ? pw->pw_shell : "/bin/sh");
    env_set(e, "PATH", "/usr/local/bin:/usr/bin:/bin");
    env_extra(e, j->env);
    env_set(e, "MOKU_JOBID", j->id);
    env_set(e, "PBS_JOBID", torque_jobid(j->array_task ? j->array_task : j->id, tid, sizeof tid));
    if (j->array_task) { /* "A[i]", checked by local_start */
        char *open = strchr(j->array_task, '[');
        snprintf(num, sizeof num, "%.*s", (int)strcspn(open + 1, "]"), open + 1);
        env_set(e, "PBS_ARRAYID", num);
        env_set(e, "SLURM_ARRAY_TASK_ID", num);
        snprintf(num, sizeof num, "%.*s", (int)(open - j->array_task), j->array_task);
        env_set(e, "SLURM_ARRAY_JOB_ID", num);
    }
    env_set(e, "PBS_JOBNAME", j->name);
    snprintf(path, sizeof path, "%s/%s", sv->dir, LOCAL_F_NODEFILE);
    env_set(e, "PBS_NODEFILE", path);
    env_set(e, "PBS_O_WORKDIR", j->cwd);
    char *nodes = distinct_hosts(j->hosts, &nnodes);
    snprintf(num, sizeof num, "%zu", nnodes);
    env_set(e, "PBS_NUM_NODES", num);
    snprintf(num, sizeof num, "%zu", json_array_size(j->hosts));
    env_set(e, "PBS_NP", num);
    env_set(e, "MOKU_NODES", nodes);
    free(nodes);
}

/* ---- the job's process (after fork) ---- */

/* How far the child got, for child_fail: where the user may be told. */
enum child_stage {
    STAGE_NONE, /* no error file to tell: still the daemon's identity (no file of the
                   user's is touched), or the error file itself cannot be opened */
    STAGE_USER, /* the job's user now, its error file not open yet: open it to tell */
    STAGE_OPEN, /* stderr is the job's error file */
};

/* The name of a job file in a directory (Torque's -o DIR, or the default
 * <cwd>/<name>.o<id>): kind 'o' or 'e', 'o' when both streams share one
 * file. Returns buf[NAME_MAX + 1]. */
static const char *job_file_name(const struct sv_job *j, char kind, char *buf)
{
    size_t n = strlen(j->out);
    if (strcmp(j->out, j->err) == 0 && n && j->out[n - 1] != '/')
        kind = 'o'; /* one file for both (a directory named without '/': -j oe) */
    char fid[64];
    const char *id = local_file_id(j->id, j->array_task, fid, sizeof fid);
    snprintf(buf, NAME_MAX + 1, "%s.%c%s", j->name, kind, id ? id : j->id);
    return buf;
}

/* Report why the job could not start: to the supervisor (the pipe), and to
 * the job's error file when it can be written as the user (Torque leaves the
 * reason there too); then end the child. The supervisor is single-threaded,
 * so stdio is safe in its forked child. */
static void child_fail(const struct sv_job *j, int pipefd, enum child_stage stage, const char *fmt,
                       ...) __attribute__((format(printf, 4, 5), noreturn));

static void child_fail(const struct sv_job *j, int pipefd, enum child_stage stage, const char *fmt,
                       ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(msg, sizeof msg - 1, fmt, ap);
    va_end(ap);
    size_t len = n < 0 ? 0 : (size_t)n < sizeof msg - 1 ? (size_t)n : sizeof msg - 2;
    msg[len++] = '\n';
    int errfd = stage == STAGE_OPEN ? 2 : -1;
    char why[JOBFILE_WHY_MAX], dir_name[NAME_MAX + 1];
    if (stage == STAGE_USER)
        errfd = jobfile_open_out(j->err, job_file_name(j, 'e', dir_name), (uid_t)getuid(), why);
    if (write(pipefd, msg, len) < 0)
        _exit(FAILED_EXIT);
    if (errfd >= 0 && (write(errfd, "moku: ", 6) < 0 || write(errfd, msg, len) < 0))
        _exit(FAILED_EXIT);
    _exit(FAILED_EXIT);
}

/* Become the job's user: root drops to uid/gid (and the user's groups); any
 * other daemon user must be the job's user already. */
static void child_identity(const struct sv_job *j, int pipefd)
{
    uid_t uid = (uid_t)j->uid;
    gid_t gid = (gid_t)j->gid;
    if (geteuid() != 0) {
        if (getuid() != uid)
            child_fail(j, pipefd, STAGE_NONE, "job %s: running as uid %ld, cannot run as uid %ld",
                       j->id, (long)getuid(), (long)uid);
        return;
    }
    if (uid == 0 && strcmp(j->user, "root") != 0)
        child_fail(j, pipefd, STAGE_NONE, "job %s: uid 0 for user '%s': refusing to run it as root",
                   j->id, j->user);
    if (initgroups(j->user, gid) < 0)
        child_fail(j, pipefd, STAGE_NONE, "job %s: initgroups(%s): %s", j->id, j->user,
                   strerror(errno));
    if (setgid(gid) < 0)
        child_fail(j, pipefd, STAGE_NONE, "job %s: setgid(%ld): %s", j->id, (long)gid,
                   strerror(errno));
    if (setuid(uid) < 0)
        child_fail(j, pipefd, STAGE_NONE, "job %s: setuid(%ld): %s", j->id, (long)uid,
                   strerror(errno));
    if (uid != 0 && (setuid(0) == 0 || geteuid() == 0))
        child_fail(j, pipefd, STAGE_NONE, "job %s: could not drop root privileges", j->id);
}

/* The job's nice value (Torque's -l nice), set while still root: below 0
 * only root may go, and the daemon lets only root and ADMIN1 ask for it. */
static void child_nice(const struct sv_job *j, int pipefd)
{
    if (j->nice && setpriority(PRIO_PROCESS, 0, (int)j->nice) < 0)
        child_fail(j, pipefd, STAGE_NONE, "job %s: cannot run at nice %ld: %s", j->id,
                   (long)j->nice, strerror(errno));
}

/* The address space limit of each of the job's processes (Torque's -l vmem
 * and pvmem, which pbs_mom sets as RLIMIT_AS), soft and hard, so the job
 * cannot raise it. Set last before the exec: the supervisor's own child
 * must still open the job's files under its usual limit. */
static void child_vmem(const struct sv_job *j, int pipefd)
{
    if (j->vmem_mb <= 0)
        return;
    struct rlimit rl;
    rlim_t want = (rlim_t)j->vmem_mb * 1024 * 1024;
    if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_max != RLIM_INFINITY && rl.rlim_max < want)
        want = rl.rlim_max; /* never above the daemon's own hard limit */
    rl.rlim_cur = rl.rlim_max = want;
    if (setrlimit(RLIMIT_AS, &rl) < 0)
        child_fail(j, pipefd, STAGE_OPEN, "job %s: cannot limit its address space to %ld MB: %s",
                   j->id, (long)j->vmem_mb, strerror(errno));
}

/* stdout and stderr to the job's files, opened as the user and emptied
 * (Torque truncates them), never through a link nor into another user's
 * file (jobfile.h). The same path twice (-j oe) is opened once. */
static void child_output(const struct sv_job *j, int pipefd)
{
    char why[JOBFILE_WHY_MAX], name[NAME_MAX + 1];
    uid_t uid = getuid();
    int out = jobfile_open_out(j->out, job_file_name(j, 'o', name), uid, why);
    if (out < 0)
        child_fail(j, pipefd, STAGE_USER, "job %s: %s: cannot open the output file: %s", j->id,
                   j->out, why);
    /* The same path is one file for both streams (one offset, no
     * overwriting), unless it is a directory: -o DIR -e DIR are Torque's
     * two files inside it. Both are just opened and still empty, so the
     * second open's emptying loses nothing; the inodes tell. */
    int errfd = jobfile_open_out(j->err, job_file_name(j, 'e', name), uid, why);
    if (errfd < 0)
        child_fail(j, pipefd, STAGE_NONE, "job %s: %s: cannot open the error file: %s", j->id,
                   j->err, why);
    struct stat so, se;
    if (errfd != out && fstat(out, &so) == 0 && fstat(errfd, &se) == 0 && so.st_dev == se.st_dev &&
        so.st_ino == se.st_ino) {
        close(errfd);
        errfd = out;
    }
    if (dup2(out, 1) < 0 || dup2(errfd, 2) < 0)
        child_fail(j, pipefd, STAGE_NONE, "job %s: dup2: %s", j->id, strerror(errno));
}

/* Into the working directory (-d, else the submitter's), as the user:
 * through no planted link, and not a planted directory (jobfile.h), since
 * the script writes there by relative names. */
static void child_cwd(const struct sv_job *j, int pipefd)
{
    char why[JOBFILE_WHY_MAX];
    int fd = jobfile_open_dir(j->cwd, getuid(), why);
    if (fd < 0)
        child_fail(j, pipefd, STAGE_USER, "job %s: %s: cannot enter the working directory: %s",
                   j->id, j->cwd, why);
    if (fchdir(fd) < 0)
        child_fail(j, pipefd, STAGE_USER, "job %s: %s: cannot enter the working directory: %s",
                   j->id, j->cwd, strerror(errno));
    close(fd);
}

/* execve the script: directly when it starts with "#!" and the user may
 * execute it, else `/bin/sh <script>`. */
static void child_exec(const struct sv_job *j, char **env, int pipefd)
{
    char head[2] = {0};
    int fd = open(j->script, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        child_fail(j, pipefd, STAGE_OPEN, "job %s: %s: cannot read the script: %s", j->id,
                   j->script, strerror(errno));
    ssize_t n = read(fd, head, sizeof head);
    close(fd);
    if (n == 2 && head[0] == '#' && head[1] == '!' && access(j->script, X_OK) == 0) {
        char *const argv[] = {(char *)j->script, NULL};
        execve(j->script, argv, env);
    } else {
        char *const argv[] = {"sh", (char *)j->script, NULL};
        execve("/bin/sh", argv, env);
    }
    child_fail(j, pipefd, STAGE_OPEN, "job %s: cannot execute %s: %s", j->id, j->script,
               strerror(errno));
}

/* qsub -I: the user's login shell ("-bash" in argv[0], as login(1) and
 * Torque's MOM start it) on the terminal, a session of its own; the
 * terminal is stdin, stdout and stderr, no output file is opened. */
static void child_shell(const struct sv *sv, char **env, int pipefd)
{
    const struct sv_job *j = &sv->job;
    const char *shell = "/bin/sh";
    for (char **e = env; *e; e++)
        if (strncmp(*e, "SHELL=", 6) == 0 && (*e)[6] == '/')
            shell = *e + 6;
    const char *base = strrchr(shell, '/') + 1;
    char arg0[NAME_MAX + 2];
    snprintf(arg0, sizeof arg0, "-%s", base);
    if (pty_attach(sv->slave) < 0)
        child_fail(j, pipefd, STAGE_NONE, "job %s: cannot attach the terminal: %s", j->id,
                   strerror(errno));
    char *const argv[] = {arg0, NULL};
    execve(shell, argv, env);
    child_fail(j, pipefd, STAGE_OPEN, "job %s: cannot execute %s: %s", j->id, shell,
               strerror(errno));
}

static void child_main(const struct sv *sv, char **env, int pipefd)
{
    struct sigaction sa = {.sa_handler = SIG_DFL};
    sigset_t none;
    if (!sv->job.interactive) /* an interactive shell's setsid makes its group */
        setpgid(0, 0);
    for (int sig = 1; sig < 65; sig++)
        sigaction(sig, &sa, NULL); /* fails harmlessly for SIGKILL, SIGSTOP, unknown */
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    close_range(3, ~0U, CLOSE_RANGE_CLOEXEC); /* nothing of ours leaks into the job (an
                                                 interactive shell's terminal: as 0..2) */
    umask(022); /* the daemon's own 077 is for its state: a job gets the usual one (its
                   output files are still created 0600, as Torque's are) */
    child_nice(&sv->job, pipefd);
    child_identity(&sv->job, pipefd);
    child_cwd(&sv->job, pipefd);
    if (sv->job.interactive) {
        child_vmem(&sv->job, pipefd);
        child_shell(sv, env, pipefd);
    }
    child_output(&sv->job, pipefd);
    child_vmem(&sv->job, pipefd);
    child_exec(&sv->job, env, pipefd);
}

/* ---- the supervisor's side ---- */

/* The user's passwd entry: required when dropping root (initgroups needs the
 * name and it must match the uid), optional otherwise (HOME, SHELL). */
static int lookup_user(struct sv *sv, struct passwd **pw)
{
    *pw = getpwnam(sv->job.user);
    if (geteuid() != 0)
        return 0;
    if (!*pw || (*pw)->pw_uid != (uid_t)sv->job.uid) {
        sv_fail(sv, "job %s: user '%s' %s uid %ld", sv->job.id, sv->job.user,
                *pw ? "does not have" : "unknown; wanted", (long)sv->job.uid);
        return -1;
    }
    return 0;
}

/* ---- qsub -I: the terminal handed to the waiting qsub ---- */

static void terminate(struct sv *sv, const char *reason);

static void inter_close(int master, int slave)
{
    if (master >= 0)
        close(master);
    if (slave >= 0)
        close(slave);
}

/* Wait for the job owner's qsub on <spooldir>/tty.sock, at most
 * INTER_CONNECT_SECONDS (nor past the walltime): the job's nodes are held
 * meanwhile, so a qsub gone while the job waited in the queue costs little.
 * A cancel ends the wait. Nothing of the job runs yet (sv->pid is 0, so
 * nothing may be signalled). 0 with sv->conn set, or -1 with the reason. */
static int inter_wait(struct sv *sv)
{
    char path[PATH_MAX + 16];
    struct err err;
    snprintf(path, sizeof path, "%s/%s", sv->dir, LOCAL_F_TTY);
    sv->lfd = pty_listen(path, (uid_t)sv->job.uid, &err);
    if (sv->lfd < 0) {
        sv_fail(sv, "job %s: %s", sv->job.id, err.msg);
        sv->reason = "failed";
        return -1;
    }
    sv_log(sv, "waiting for qsub -I on %s", path);
    long wait = sv->job.walltime < INTER_CONNECT_SECONDS ? sv->job.walltime : INTER_CONNECT_SECONDS;
    double end = mono_now() + (double)wait;
    while (sv->conn < 0) {
        double left = end - mono_now();
        if (left <= 0) {
            sv_fail(sv, "job %s: no qsub -I connected within %ld s of the start", sv->job.id, wait);
            sv->reason = "failed";
            break;
        }
        struct pollfd p[2] = {{.fd = sv->sfd, .events = POLLIN}, {.fd = sv->lfd, .events = POLLIN}};
        if (poll(p, 2, (int)(left * 1000.0) + 1) < 0 && errno != EINTR)
            break;
        struct signalfd_siginfo si;
        while (read(sv->sfd, &si, sizeof si) == (ssize_t)sizeof si)
            if (si.ssi_signo == SIGTERM || si.ssi_signo == SIGINT) {
                sv_fail(sv, "job %s: cancelled before qsub -I connected", sv->job.id);
                sv->reason = "cancelled";
                end = 0;
            }
        if (end > 0 && p[1].revents) {
            sv->conn = pty_accept_owner(sv->lfd, (uid_t)sv->job.uid, &err);
            if (sv->conn < 0)
                sv_log(sv, "%s", err.msg);
        }
        if (end == 0)
            break;
    }
    close(sv->lfd); /* one qsub per job: no one else connects after it */
    sv->lfd = -1;
    unlink(path);
    return sv->conn >= 0 ? 0 : -1;
}

/* The shell started: the master to qsub, no copy kept here (qsub's end
 * hangs the shell up). */
static int inter_hand_over(struct sv *sv, int master)
{
    struct err err;
    close(sv->slave);
    sv->slave = -1;
    int rc = pty_send_fd(sv->conn, master, "pty\n", 4, &err);
    close(master);
    if (rc < 0)
        sv_log(sv, "job %s: %s", sv->job.id, err.msg);
    return rc;
}

/* qsub's connection readable: qsub sends nothing, so this is its end
 * (killed, its terminal lost): the job ends as a cancelled one. */
static void inter_check_conn(struct sv *sv)
{
    char b;
    ssize_t n = recv(sv->conn, &b, 1, MSG_DONTWAIT);
    if (n > 0 || (n < 0 && (errno == EAGAIN || errno == EINTR)))
        return;
    sv_log(sv, "qsub -I went away: ending the job");
    close(sv->conn);
    sv->conn = -1;
    terminate(sv, "cancelled");
}

/* The shell's status to qsub, then its end. */
static void inter_end(struct sv *sv, int code)
{
    if (sv->conn < 0)
        return;
    char line[PTY_STATUS_MAX];
    int n = snprintf(line, sizeof line, "exit %d\n", code);
    if (send(sv->conn, line, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT) != n)
        sv_log(sv, "qsub -I did not take the exit status: %s", strerror(errno));
    close(sv->conn);
    sv->conn = -1;
}

static int start_job(struct sv *sv)
{
    struct passwd *pw;
    struct envv env = {0};
    int p[2];
    char num[32];
    if (lookup_user(sv, &pw) < 0)
        return -1;
    build_env(sv, pw, &env);
    if (sv->job.interactive)
        env_set(&env, "PBS_ENVIRONMENT", "PBS_INTERACTIVE");
    int master = -1;
    struct err err;
    if (sv->job.interactive && pty_open((uid_t)sv->job.uid, &master, &sv->slave, &err) < 0) {
        sv_fail(sv, "job %s: %s", sv->job.id, err.msg);
        env_free(&env);
        return -1;
    }
    if (pipe2(p, O_CLOEXEC | O_NONBLOCK) < 0) { /* never blocks the supervisor */
        sv_fail(sv, "job %s: pipe: %s", sv->job.id, strerror(errno));
        env_free(&env);
        inter_close(master, sv->slave);
        return -1;
    }
    sv->pid = fork();
    if (sv->pid == 0)
        child_main(sv, env.v, p[1]);
    int e = errno;
    close(p[1]);
    env_free(&env);
    if (sv->pid < 0) {
        close(p[0]);
        sv_fail(sv, "job %s: fork: %s", sv->job.id, strerror(e));
        return -1;
    }
    if (!sv->job.interactive)
        setpgid(sv->pid, sv->pid); /* also here: signals may be sent before the child runs */
    sv->errpipe = p[0];
    if (sv->job.interactive && inter_hand_over(sv, master) < 0)
        terminate(sv, "cancelled");
    sv->wall_end = mono_now() + (double)sv->job.walltime;
    snprintf(num, sizeof num, "%ld\n", (long)sv->pid);
    write_atomic(sv, LOCAL_F_PGID, num); /* informational: failure is logged only */
    return 0;
}

/* SIGTERM (and SIGCONT, so a stopped job can act on it) to the job's group;
 * SIGKILL after the grace. The first reason sticks. */
static void terminate(struct sv *sv, const char *reason)
{
    if (sv->terminating)
        return;
    sv->terminating = 1;
    sv->reason = reason;
    sv_log(sv, "%s: SIGTERM to the job, SIGKILL in %lld s", reason, (long long)sv->job.grace);
    kill(-sv->pid, SIGTERM);
    kill(-sv->pid, SIGCONT);
    sv->kill_at = mono_now() + (double)sv->job.grace;
}

/* Suspended time does not count against the walltime. */
static void suspend(struct sv *sv, int stop)
{
    double now = mono_now();
    if (stop && !sv->suspended && !sv->terminating) {
        kill(-sv->pid, SIGSTOP);
        sv->suspended = 1;
        sv->susp_since = now;
    } else if (!stop) {
        kill(-sv->pid, SIGCONT);
        if (sv->suspended)
            sv->wall_end += now - sv->susp_since;
        sv->suspended = 0;
    }
}

static void read_signals(struct sv *sv)
{
    struct signalfd_siginfo si;
    while (read(sv->sfd, &si, sizeof si) == (ssize_t)sizeof si) {
        switch (si.ssi_signo) {
        case SIGTERM:
        case SIGINT:
            terminate(sv, "cancelled");
            break;
        case SIGUSR1:
            suspend(sv, 1);
            break;
        case SIGUSR2:
            suspend(sv, 0);
            break;
        default:
            break; /* SIGCHLD: reaped below */
        }
    }
}

static void check_timers(struct sv *sv)
{
    double now = mono_now();
    if (!sv->terminating && !sv->suspended && now >= sv->wall_end) {
        sv->wall_used = (long)(sv->job.walltime + (now - sv->wall_end) + 0.5);
        terminate(sv, "walltime");
    }
    if (sv->kill_at > 0 && now >= sv->kill_at) {
        sv_log(sv, "grace period over: SIGKILL to the job");
        kill(-sv->pid, SIGKILL);
        sv->kill_at = 0;
    }
}

/* Milliseconds until the next deadline, -1 for none. */
static int next_timeout(const struct sv *sv)
{
    double next = -1, now = mono_now();
    if (!sv->terminating && !sv->suspended)
        next = sv->wall_end;
    if (sv->kill_at > 0 && (next < 0 || sv->kill_at < next))
        next = sv->kill_at;
    if (next < 0)
        return -1;
    double ms = (next - now) * 1000.0 + 1.0;
    return ms <= 0 ? 0 : ms > INT_MAX ? INT_MAX : (int)ms;
}

static void reap_job(struct sv *sv)
{
    pid_t r;
    do
        r = waitpid(sv->pid, &sv->wstatus, WNOHANG);
    while (r < 0 && errno == EINTR);
    if (r == sv->pid)
        sv->done = 1;
    else if (r < 0 && errno == ECHILD) { /* cannot happen: we are its parent */
        sv_log(sv, "lost the job's process");
        sv->wstatus = FAILED_EXIT << 8;
        sv->done = 1;
    }
}

/* An interactive shell puts each of its jobs (`sleep 100 &`) in a process
 * group of its own, but all stay in its session (the shell is its leader,
 * session id = its pid): SIGKILL to every process of that session still
 * there, read from /proc (a process that made a session of its own escapes,
 * as one that leaves a batch job's group does). */
static void kill_session(pid_t sid)
{
    DIR *d = opendir("/proc");
    struct dirent *e;
    while (d && (e = readdir(d))) {
        char path[64], buf[512];
        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        snprintf(path, sizeof path, "/proc/%.20s/stat", e->d_name);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            continue;
        ssize_t n = read(fd, buf, sizeof buf - 1);
        close(fd);
        buf[n > 0 ? n : 0] = '\0';
        char *rp = strrchr(buf, ')'); /* the name may hold anything: fields follow its end */
        int ppid, pgrp, sess;
        char state;
        if (rp && sscanf(rp + 1, " %c %d %d %d", &state, &ppid, &pgrp, &sess) == 4 && sess == sid)
            kill((pid_t)atol(e->d_name), SIGKILL);
    }
    if (d)
        closedir(d);
}

static void run_job(struct sv *sv)
{
    while (!sv->done) {
        struct pollfd pfd[2] = {{.fd = sv->sfd, .events = POLLIN},
                                {.fd = sv->conn, .events = POLLIN}};
        if (poll(pfd, 2, next_timeout(sv)) < 0 && errno != EINTR) {
            sv_log(sv, "poll: %s", strerror(errno));
            struct timespec ts = {0, 100000000L};
            nanosleep(&ts, NULL);
        }
        read_signals(sv);
        if (pfd[1].revents)
            inter_check_conn(sv);
        check_timers(sv);
        reap_job(sv);
    }
    kill(-sv->pid, SIGKILL); /* what is left of the job's group: its allocation ended */
    if (sv->job.interactive)
        kill_session(sv->pid);
}

/* The walltime line's writer, in the child, as the job's user: append to
 * the error file only if it is the user's own regular file, reached as the
 * job's files are (jobfile_open_append; a FIFO the job left there would
 * block the open: O_NONBLOCK makes that fail at once instead), with
 * the signals the supervisor blocks unblocked and an alarm, so that a hung
 * file system cannot keep it. */
static void write_walltime_line(const struct sv *sv, const char *line, int n)
{
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    alarm(WALLTIME_LINE_SECONDS);
    child_identity(&sv->job, -1); /* on failure it ends the child */
    char why[JOBFILE_WHY_MAX], name[NAME_MAX + 1];
    int fd = jobfile_open_append(sv->job.err, job_file_name(&sv->job, 'e', name), getuid(), why);
    if (fd < 0 || n <= 0 || write(fd, line, (size_t)n) != n)
        _exit(1);
    _exit(0);
}

/*
 * After a walltime kill, Torque's line at the end of the job's error file
 * ("=>> PBS: job killed: walltime 65 exceeded limit 60"), which users grep
 * for. Written by a child that becomes the job's user first (as the job
 * did), so that the supervisor never writes a user's file as root; the
 * file is appended to, never created (the job had it open). Best effort,
 * and bounded: a child that has not finished within WALLTIME_LINE_SECONDS
 * is killed, so the job's end (the status file) is never held up by it.
 */
static void tell_walltime_kill(const struct sv *sv)
{
    char line[128];
    int n = snprintf(line, sizeof line, "=>> PBS: job killed: walltime %ld exceeded limit %lld\n",
                     sv->wall_used, (long long)sv->job.walltime);
    pid_t pid = fork();
    if (pid == 0)
        write_walltime_line(sv, line, n);
    if (pid < 0) {
        sv_log(sv, "fork for the walltime line: %s", strerror(errno));
        return;
    }
    int st = 0;
    pid_t got = 0;
    for (int tick = 0; tick < WALLTIME_LINE_SECONDS * 20 && got == 0; tick++) {
        got = waitpid(pid, &st, WNOHANG);
        if (got == 0) {
            struct timespec ts = {0, 50000000L};
            nanosleep(&ts, NULL);
        } else if (got < 0 && errno == EINTR) {
            got = 0;
        }
    }
    int ok = got > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0;
    if (got == 0) {
        kill(pid, SIGKILL);
        while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
            ;
    }
    if (!ok)
        sv_log(sv, "%s: the walltime line could not be written", sv->job.err);
}

/* The exit code, and "failed" when the child said it could not start the
 * job (its message, in the pipe, goes to the log and the status file). */
static int job_outcome(struct sv *sv)
{
    char msg[1024];
    ssize_t n = read(sv->errpipe, msg, sizeof msg - 1);
    close(sv->errpipe);
    if (n > 0) {
        msg[n] = '\0';
        msg[strcspn(msg, "\n")] = '\0';
        sv_fail(sv, "%s", msg);
        sv->reason = "failed";
    }
    if (WIFEXITED(sv->wstatus))
        return WEXITSTATUS(sv->wstatus);
    /* Torque's MOM reports a job its signal ended as 256 + the signal
     * (271: SIGTERM, the walltime kill and qdel; 265: SIGKILL after the
     * grace), apart from any exit code a script can give (0..255). */
    return WIFSIGNALED(sv->wstatus) ? 256 + WTERMSIG(sv->wstatus) : FAILED_EXIT;
}

static int write_status(struct sv *sv, int code)
{
    char text[128 + LOCAL_MSG_MAX];
    int n = snprintf(text, sizeof text, "exit %d\nend %ld\nreason %s\n", code, (long)time(NULL),
                     sv->reason);
    if (sv->message[0] && n > 0 && (size_t)n < sizeof text) {
        /* One line: the message's own control characters (none are
         * expected; paths may hold anything) become blanks. */
        for (char *c = sv->message; *c; c++)
            if ((unsigned char)*c < 0x20 || *c == 0x7f)
                *c = ' ';
        snprintf(text + n, sizeof text - (size_t)n, "message %s\n", sv->message);
    }
    sv_log(sv, "job ended: exit %d, %s", code, sv->reason);
    return write_atomic(sv, LOCAL_F_STATUS, text);
}

/* Block the signals the loop reads, before anyone can send them (the pid
 * file is written after this). */
static int setup_signals(struct sv *sv)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGUSR1);
    sigaddset(&set, SIGUSR2);
    sigaddset(&set, SIGCHLD);
    signal(SIGPIPE, SIG_IGN);
    signal(SIGHUP, SIG_IGN);
    if (sigprocmask(SIG_BLOCK, &set, NULL) < 0 ||
        (sv->sfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC)) < 0) {
        sv_log(sv, "signalfd: %s", strerror(errno));
        return -1;
    }
    return 0;
}

int local_supervise(const char *spooldir)
{
    struct sv sv = {
        .sfd = -1, .errpipe = -1, .reason = "completed", .lfd = -1, .conn = -1, .slave = -1};
    char num[32];
    setsid(); /* its own session: the daemon's end or terminal is not ours */
    if (!realpath(spooldir, sv.dir)) {
        snprintf(sv.dir, sizeof sv.dir, "%s", spooldir);
        sv_log(&sv, "%s: %s", spooldir, strerror(errno));
        return 1;
    }
    if (chdir("/") < 0 || setup_signals(&sv) < 0 || load_job(&sv) < 0) {
        json_decref(sv.job.root);
        return 1;
    }
    snprintf(num, sizeof num, "%ld\n", (long)getpid());
    int rc = 1;
    if (write_atomic(&sv, LOCAL_F_PID, num) == 0) {
        int code = FAILED_EXIT;
        if (sv.job.interactive && inter_wait(&sv) < 0) {
            /* no qsub came, or the job was cancelled first: reason, message set */
        } else if (start_job(&sv) == 0) {
            prealloc_status(&sv);
            run_job(&sv);
            code = job_outcome(&sv);
            if (strcmp(sv.reason, "walltime") == 0)
                tell_walltime_kill(&sv);
        } else {
            sv.reason = "failed";
        }
        inter_end(&sv, code);
        rc = write_status(&sv, code) == 0 ? 0 : 1;
    }
    close(sv.sfd);
    json_decref(sv.job.root);
    return rc;
}
