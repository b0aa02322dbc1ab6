/*
 * local — the daemon's side of the local resource manager (see local.h):
 * each job's spool directory, starting its supervisor, and reading where a
 * job stands from the files the supervisor leaves there. The supervisor
 * itself (the process that runs the job) is supervise.c.
 *
 * Nothing here keeps state about a job in memory but the pids of the
 * supervisors to reap: the spool directory is the truth, so a restarted
 * daemon sees the same jobs.
 */
#define _GNU_SOURCE /* close_range */

#include "rm/local.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/crashpt.h"
#include "util/mem.h"

#define DIR_MODE 0711
#define START_TIMEOUT_MS 5000
#define DEFAULT_GRACE 5
/* Room left in a path after the spool directory: "/<id>/<file>.tmp". */
#define PATH_ROOM (LOCAL_ID_MAX + 64)
/* A path of a file in a job's spool directory dir[PATH_MAX]. */
#define FILE_PATH_MAX (PATH_MAX + 32)

struct local {
    char *spool; /* absolute */
    char *exe;   /* absolute */
    pid_t *kids; /* supervisors started here and not yet reaped */
    size_t nkids, capkids;
};

/* ---- small helpers ---- */

static int valid_id(const char *id)
{
    size_t n = id ? strlen(id) : 0;
    if (n == 0 || n > LOCAL_ID_MAX || strstr(id, ".."))
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = id[i];
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == '-'))
            return 0;
    }
    return strcmp(id, ".") != 0;
}

static int check_id(const char *id, struct err *err)
{
    if (valid_id(id))
        return 0;
    return err_set(err, "invalid job id '%s' (wanted 1 to %d of A-Z a-z 0-9 . _ -, no '..')",
                   id ? id : "(null)", LOCAL_ID_MAX);
}

/* <spool>/<id>[/<file>] into buf (PATH_MAX). Cannot truncate: local_create
 * leaves PATH_ROOM and ids are checked. */
static void spool_path(const struct local *l, const char *id, const char *file, char *buf)
{
    if (file)
        snprintf(buf, PATH_MAX, "%s/%s/%s", l->spool, id, file);
    else
        snprintf(buf, PATH_MAX, "%s/%s", l->spool, id);
}

/* Read up to len-1 bytes of path into buf, NUL-terminated. Returns the
 * length, or -1 with errno. */
static ssize_t read_small(const char *path, char *buf, size_t len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t n = 0;
    while (n + 1 < len) {
        ssize_t r = read(fd, buf + n, len - 1 - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            if (r < 0) {
                int e = errno;
                close(fd);
                errno = e;
                return -1;
            }
            break;
        }
        n += (size_t)r;
    }
    close(fd);
    buf[n] = '\0';
    return (ssize_t)n;
}

/* Create path (it must not exist) with data and exactly `mode`. */
static int write_new(const char *path, const char *data, size_t len, mode_t mode, struct err *err)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
    if (fd < 0)
        return err_set(err, "%s: cannot create: %s", path, strerror(errno));
    size_t done = 0;
    while (done < len) {
        ssize_t w = write(fd, data + done, len - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0) {
            int e = errno;
            close(fd);
            return err_set(err, "%s: write failed: %s", path, strerror(e));
        }
        done += (size_t)w;
    }
    if (fchmod(fd, mode) < 0 || close(fd) < 0) /* fchmod: the umask must not narrow it */
        return err_set(err, "%s: write failed: %s", path, strerror(errno));
    return 0;
}

/* The pid in <dir>/supervisor.pid, or 0 when absent or unreadable. */
static pid_t read_pid_file(const char *dir, const char *file)
{
    char path[FILE_PATH_MAX], buf[32], *end;
    snprintf(path, sizeof path, "%s/%s", dir, file);
    if (read_small(path, buf, sizeof buf) <= 0)
        return 0;
    errno = 0;
    long v = strtol(buf, &end, 10);
    if (errno || end == buf || (*end && *end != '\n') || v <= 1 || v > INT_MAX)
        return 0;
    return (pid_t)v;
}

/* Whether pid is the supervisor of spool directory dir: alive and its
 * command line `<exe> _supervise <dir>` (guards against a reused pid). A
 * zombie has an empty command line, so it does not count. */
static int supervisor_alive(pid_t pid, const char *dir)
{
    if (pid <= 1 || (kill(pid, 0) < 0 && errno != EPERM))
        return 0;
    char path[64], buf[PATH_MAX + 256];
    snprintf(path, sizeof path, "/proc/%ld/cmdline", (long)pid);
    ssize_t n = read_small(path, buf, sizeof buf);
    if (n <= 0)
        return 0;
    const char *arg1 = memchr(buf, '\0', (size_t)n);
    if (!arg1 || ++arg1 >= buf + n || strcmp(arg1, "_supervise") != 0)
        return 0;
    const char *arg2 = arg1 + strlen(arg1) + 1;
    return arg2 < buf + n && strcmp(arg2, dir) == 0;
}

/*
 * Whether a supervisor of dir is alive though it has not written its pid
 * file yet (it writes it before it starts the job). Only asked when there is
 * no pid file: a start cut short by the daemon's death leaves a spool
 * directory with no supervisor, and the job, which never ran, must be
 * started again rather than called lost; one still coming up must be left
 * to come up. The supervisor is found by its command line.
 */
static int supervisor_coming(const char *dir)
{
    DIR *proc = opendir("/proc");
    if (!proc)
        return 1; /* cannot tell: not "never started" (it could then run twice) */
    int found = 0;
    struct dirent *e;
    while (!found && (e = readdir(proc))) {
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        if (*end == '\0' && pid > 1 && supervisor_alive((pid_t)pid, dir))
            found = 1;
    }
    closedir(proc);
    return found;
}

/* ---- supervisors as children ---- */

static void kids_add(struct local *l, pid_t pid)
{
    l->kids = xgrow(l->kids, &l->capkids, l->nkids + 1, sizeof *l->kids);
    l->kids[l->nkids++] = pid;
}

/* Reap pid if it is a supervisor we started and it has exited. Only those:
 * a pid read from a file may since belong to another child of the daemon,
 * whose exit status is not ours to take. (After a real daemon restart the
 * old supervisors are init's children, and init reaps them.) */
static void reap_pid(struct local *l, pid_t pid)
{
    int st;
    pid_t r;
    for (size_t i = 0; i < l->nkids; i++) {
        if (l->kids[i] != pid)
            continue;
        do
            r = waitpid(pid, &st, WNOHANG);
        while (r < 0 && errno == EINTR);
        if (r != 0) /* ended (or already reaped: SIGCHLD ignored) */
            l->kids[i] = l->kids[--l->nkids];
        return;
    }
}

void local_reap(struct local *l)
{
    for (size_t i = l->nkids; i-- > 0;)
        reap_pid(l, l->kids[i]);
}

/* ---- create / destroy ---- */

struct local *local_create(const char *spool, const char *exe, struct err *err)
{
    if (mkdir(spool, DIR_MODE) == 0)
        chmod(spool, DIR_MODE); /* the umask must not narrow it; an existing one is left alone */
    else if (errno != EEXIST) {
        err_set(err, "%s: cannot create the spool directory: %s", spool, strerror(errno));
        return NULL;
    }
    char *rs = realpath(spool, NULL), *rx = NULL;
    struct stat sb;
    if (!rs || stat(rs, &sb) < 0 || !S_ISDIR(sb.st_mode)) {
        err_set(err, "%s: not a usable spool directory: %s", spool,
                rs ? "not a directory" : strerror(errno));
        goto fail;
    }
    if (strlen(rs) >= PATH_MAX - PATH_ROOM) {
        err_set(err, "%s: spool directory path too long", spool);
        goto fail;
    }
    rx = realpath(exe, NULL);
    if (!rx || access(rx, X_OK) < 0) {
        err_set(err, "%s: cannot run the supervisor binary: %s", exe, strerror(errno));
        goto fail;
    }
    struct local *l = xcalloc(1, sizeof *l);
    l->spool = xstrdup(rs);
    l->exe = xstrdup(rx);
    free(rs);
    free(rx);
    return l;
fail:
    free(rs);
    free(rx);
    return NULL;
}

/* The supervisors keep running: jobs outlive the daemon. */
void local_destroy(struct local *l)
{
    if (!l)
        return;
    free(l->spool);
    free(l->exe);
    free(l->kids);
    free(l);
}

/* ---- local_start: checking the request ---- */

static int absolute(const char *p)
{
    return p && p[0] == '/';
}

static int check_env(const char *env, struct err *err)
{
    for (const char *p = env; p && *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        const char *eq = memchr(p, '=', n);
        if (n && (!eq || eq == p))
            return err_set(err, "environment line '%.*s' is not NAME=VALUE", (int)n, p);
        p += n + (nl ? 1 : 0);
    }
    return 0;
}

static int check_hosts(const struct local_job *j, struct err *err)
{
    if (j->nhosts == 0 || !j->hosts)
        return err_set(err, "no hosts");
    for (size_t i = 0; i < j->nhosts; i++) {
        const char *h = j->hosts[i];
        if (!h || !*h || strpbrk(h, " \t\r\n"))
            return err_set(err, "invalid host name '%s'", h ? h : "(null)");
    }
    return 0;
}

/* Whether the daemon may run a job as j's user. */
const char *local_file_id(const char *id, const char *array_task, char *buf, size_t n)
{
    if (!array_task)
        return id;
    size_t a = strspn(array_task, "0123456789");
    size_t i = a ? strspn(array_task + a + 1, "0123456789") : 0;
    if (!a || !i || array_task[a] != '[' || strcmp(array_task + a + 1 + i, "]") != 0 ||
        a + i + 2 > n)
        return NULL;
    snprintf(buf, n, "%.*s-%.*s", (int)a, array_task, (int)i, array_task + a + 1);
    return buf;
}

static int check_identity(const struct local_job *j, struct err *err)
{
    if (!j->user || !*j->user)
        return err_set(err, "no user");
    if (geteuid() == 0) {
        if (j->uid == 0 && strcmp(j->user, "root") != 0)
            return err_set(err, "uid 0 given for user '%s'; refusing to run it as root", j->user);
        return 0;
    }
    if (getuid() != j->uid)
        return err_set(err,
                       "the daemon runs as uid %ld and can only run its own jobs, not "
                       "uid %ld's (run it as root)",
                       (long)getuid(), (long)j->uid);
    return 0;
}

static int check_job(const struct local_job *j, struct err *err)
{
    struct err e;
    if (check_id(j->id, err) < 0)
        return -1;
    char fid[LOCAL_ID_MAX + 1];
    if (j->array_task && !local_file_id(j->id, j->array_task, fid, sizeof fid))
        return err_set(err, "job %s: invalid array task id '%s' (wanted A[i], digits)", j->id,
                       j->array_task);
    if (check_identity(j, &e) < 0 || check_hosts(j, &e) < 0 || check_env(j->env, &e) < 0)
        return err_set(err, "job %s: %s", j->id, e.msg);
    if (j->name && (!*j->name || strchr(j->name, '/')))
        return err_set(err, "job %s: invalid job name '%s' (empty or with '/')", j->id, j->name);
    if (!absolute(j->script) || !absolute(j->cwd))
        return err_set(err, "job %s: script and working directory must be absolute paths", j->id);
    if ((j->out_path && !absolute(j->out_path)) || (j->err_path && !absolute(j->err_path)))
        return err_set(err, "job %s: output and error paths must be absolute", j->id);
    if (j->walltime <= 0 || j->grace < 0)
        return err_set(err, "job %s: walltime must be > 0 and grace >= 0", j->id);
    if (j->nice < -20 || j->nice > 19 || j->vmem_mb < 0 || j->vmem_mb > (1L << 40))
        return err_set(err, "job %s: nice must be -20..19 and vmem 0..2^40 MB", j->id);
    return 0;
}

/* ---- local_start: the spool files ---- */

/* Torque's default output name: <cwd>/<name>.o<id>. Caller frees. */
static char *default_output(const struct local_job *j, const char *name, char kind)
{
    size_t n = strlen(j->cwd);
    const char *sep = n && j->cwd[n - 1] == '/' ? "" : "/";
    char fid[LOCAL_ID_MAX + 1];
    const char *id = local_file_id(j->id, j->array_task, fid, sizeof fid); /* checked */
    size_t len = n + strlen(name) + strlen(id) + 8;
    char *p = xmalloc(len);
    snprintf(p, len, "%s%s%s.%c%s", j->cwd, sep, name, kind, id);
    return p;
}

static json_t *job_json(const struct local_job *j)
{
    const char *name = j->name ? j->name : j->id;
    char *out = j->out_path ? xstrdup(j->out_path) : default_output(j, name, 'o');
    char *errp = j->err_path ? xstrdup(j->err_path) : default_output(j, name, 'e');
    json_t *hosts = json_array();
    for (size_t i = 0; i < j->nhosts; i++)
        json_array_append_new(hosts, json_string(j->hosts[i]));
    json_t *o = json_object();
    json_object_set_new(o, "id", json_string(j->id));
    json_object_set_new(o, "name", json_string(name));
    json_object_set_new(o, "user", json_string(j->user));
    json_object_set_new(o, "uid", json_integer((json_int_t)j->uid));
    json_object_set_new(o, "gid", json_integer((json_int_t)j->gid));
    json_object_set_new(o, "script", json_string(j->script));
    json_object_set_new(o, "cwd", json_string(j->cwd));
    json_object_set_new(o, "out_path", json_string(out));
    json_object_set_new(o, "err_path", json_string(errp));
    json_object_set_new(o, "env", j->env ? json_string(j->env) : json_null());
    json_object_set_new(o, "hosts", hosts);
    json_object_set_new(o, "walltime", json_integer(j->walltime));
    json_object_set_new(o, "grace", json_integer(j->grace ? j->grace : DEFAULT_GRACE));
    json_object_set_new(o, "vmem_mb", json_integer(j->vmem_mb));
    json_object_set_new(o, "nice", json_integer(j->nice));
    json_object_set_new(o, "interactive", json_boolean(j->interactive));
    if (j->array_task)
        json_object_set_new(o, "array_task", json_string(j->array_task));
    free(out);
    free(errp);
    /* json_string() refuses invalid UTF-8 (NULL), and the key goes missing. */
    if (json_object_size(o) != 16u + (j->array_task != NULL) ||
        json_array_size(hosts) != j->nhosts) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static int write_spool_files(const char *dir, const struct local_job *j, struct err *err)
{
    char path[FILE_PATH_MAX];
    json_t *o = job_json(j);
    char *text = o ? json_dumps(o, JSON_INDENT(2) | JSON_SORT_KEYS) : NULL;
    json_decref(o);
    if (!text)
        return err_set(err, "job %s: a string of the request is not valid UTF-8", j->id);
    snprintf(path, sizeof path, "%s/%s", dir, LOCAL_F_JOB);
    int rc = write_new(path, text, strlen(text), 0600, err);
    free(text);
    if (rc < 0)
        return -1;
    size_t len = 0, cap = 0;
    char *nodes = NULL;
    for (size_t i = 0; i < j->nhosts; i++) {
        size_t n = strlen(j->hosts[i]);
        nodes = xgrow(nodes, &cap, len + n + 2, 1);
        memcpy(nodes + len, j->hosts[i], n);
        len += n;
        nodes[len++] = '\n';
    }
    snprintf(path, sizeof path, "%s/%s", dir, LOCAL_F_NODEFILE);
    rc = write_new(path, nodes, len, 0644, err);
    free(nodes);
    return rc;
}

/* Remove a job's spool directory: the files we know, then the directory. */
static int remove_spool(const char *dir, struct err *err)
{
    static const char *const files[] = {
        LOCAL_F_JOB,       LOCAL_F_NODEFILE,    LOCAL_F_PID,    LOCAL_F_PID ".tmp",
        LOCAL_F_PGID,      LOCAL_F_PGID ".tmp", LOCAL_F_STATUS, LOCAL_F_STATUS ".tmp",
        LOCAL_F_SUSPENDED, LOCAL_F_LOG,         LOCAL_F_TTY,
    };
    char path[FILE_PATH_MAX];
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        if (unlink(path) < 0 && errno != ENOENT)
            return err_set(err, "%s: cannot remove: %s", path, strerror(errno));
    }
    if (rmdir(dir) < 0 && errno != ENOENT)
        return err_set(err, "%s: cannot remove: %s%s", dir, strerror(errno),
                       errno == ENOTEMPTY ? " (files moku did not write are left in it)" : "");
    return 0;
}

/* ---- local_start: the supervisor ---- */

/* Format a non-negative number into buf (async-signal-safe). */
static size_t fmt_num(char *buf, long v)
{
    char tmp[24];
    size_t n = 0, k = 0;
    do
        tmp[n++] = (char)('0' + v % 10);
    while ((v /= 10) > 0 && n < sizeof tmp);
    while (n)
        buf[k++] = tmp[--n];
    return k;
}

/* The forked child: stdin /dev/null, stdout and stderr the log, no other
 * descriptor, default signals, a minimal environment; exec the supervisor.
 * Only async-signal-safe calls: the daemon may have threads (SQLite). */
static void exec_supervisor(const char *exe, const char *dir, int nullfd, int logfd,
                            const char *fail_msg, size_t fail_len)
{
    static char *const envp[] = {"PATH=/usr/local/bin:/usr/bin:/bin", NULL};
    char *const argv[] = {(char *)exe, "_supervise", (char *)dir, NULL};
    struct sigaction sa = {.sa_handler = SIG_DFL};
    sigset_t none;
    if (dup2(nullfd, 0) < 0 || dup2(logfd, 1) < 0 || dup2(logfd, 2) < 0)
        _exit(127);
    if (close_range(3, ~0U, 0) < 0)
        for (int fd = 3; fd < 1024; fd++)
            close(fd);
    for (int sig = 1; sig < 65; sig++)
        sigaction(sig, &sa, NULL); /* fails harmlessly for SIGKILL, SIGSTOP, unknown */
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    execve(exe, argv, envp);
    char num[24];
    size_t n = fmt_num(num, errno);
    if (write(2, fail_msg, fail_len) < 0 || write(2, num, n) < 0 || write(2, ")\n", 2) < 0)
        _exit(127);
    _exit(127);
}

static pid_t spawn_supervisor(const struct local *l, const char *dir, struct err *err)
{
    char path[FILE_PATH_MAX], msg[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", dir, LOCAL_F_LOG);
    int logfd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0600);
    if (logfd < 0)
        return err_set(err, "%s: cannot create: %s", path, strerror(errno));
    int nullfd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (nullfd < 0) {
        close(logfd);
        return err_set(err, "/dev/null: %s", strerror(errno));
    }
    snprintf(msg, sizeof msg, "cannot execute %s (errno ", l->exe);
    size_t mlen = strlen(msg); /* before fork: strlen is not on the async-signal-safe list */
    pid_t pid = fork();
    if (pid == 0)
        exec_supervisor(l->exe, dir, nullfd, logfd, msg, mlen);
    int e = errno;
    close(logfd);
    close(nullfd);
    if (pid < 0)
        return err_set(err, "cannot fork the supervisor: %s", strerror(e));
    return pid;
}

/* supervisor.log, on one line, for an error message. */
static void log_excerpt(const char *dir, char *buf, size_t len)
{
    char path[FILE_PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, LOCAL_F_LOG);
    ssize_t n = read_small(path, buf, len);
    if (n <= 0) {
        snprintf(buf, len, "(%s is empty)", LOCAL_F_LOG);
        return;
    }
    while (n > 0 && buf[n - 1] == '\n')
        buf[--n] = '\0';
    for (ssize_t i = 0; i < n; i++)
        if (buf[i] == '\n')
            buf[i] = ';';
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}

/* Whether child pid has exited (reaping it). Copes with a daemon that
 * ignores SIGCHLD (children reaped by the kernel: ECHILD). */
static int child_exited(pid_t pid, int *status)
{
    pid_t r;
    do
        r = waitpid(pid, status, WNOHANG);
    while (r < 0 && errno == EINTR);
    if (r == pid)
        return 1;
    if (r < 0 && errno == ECHILD && kill(pid, 0) < 0 && errno == ESRCH) {
        *status = -1;
        return 1;
    }
    return 0;
}

/* Kill a supervisor that did not start in time, and a job it may have
 * started right then. */
static void kill_supervisor(pid_t pid, const char *dir)
{
    int st;
    kill(pid, SIGKILL);
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    pid_t pgid = read_pid_file(dir, LOCAL_F_PGID);
    if (pgid > 1)
        kill(-pgid, SIGKILL);
}

/* Wait until the supervisor has written its pid file (0, *reaped set when it
 * has already ended too) or has failed (-1, reaped or killed). */
static int await_supervisor(const char *id, const char *dir, pid_t pid, int *reaped,
                            struct err *err)
{
    char log[600];
    int status = 0;
    long waited = 0, step = 1;
    for (;;) {
        *reaped = child_exited(pid, &status);
        if (read_pid_file(dir, LOCAL_F_PID) == pid)
            return 0;
        if (*reaped)
            break;
        if (waited >= START_TIMEOUT_MS) {
            kill_supervisor(pid, dir);
            log_excerpt(dir, log, sizeof log);
            return err_set(err, "job %s: the supervisor did not start within %d s: %s", id,
                           START_TIMEOUT_MS / 1000, log);
        }
        sleep_ms(step);
        waited += step;
        step = step < 20 ? step * 2 : 20;
    }
    log_excerpt(dir, log, sizeof log);
    if (status >= 0 && WIFEXITED(status))
        return err_set(err, "job %s: the supervisor exited with status %d: %s", id,
                       WEXITSTATUS(status), log);
    if (status >= 0 && WIFSIGNALED(status))
        return err_set(err, "job %s: the supervisor was killed by signal %d: %s", id,
                       WTERMSIG(status), log);
    return err_set(err, "job %s: the supervisor ended: %s", id, log);
}

int local_start(struct local *l, const struct local_job *j, struct err *err)
{
    char dir[PATH_MAX];
    if (check_job(j, err) < 0)
        return -1;
    spool_path(l, j->id, NULL, dir);
    if (mkdir(dir, DIR_MODE) < 0) {
        if (errno == EEXIST)
            return err_set(err, "job %s: %s exists already", j->id, dir);
        return err_set(err, "job %s: cannot create %s: %s", j->id, dir, strerror(errno));
    }
    struct err e;
    pid_t pid = -1;
    int reaped = 0, rc = -1;
    crashpt("start-spool-made");
    if (chmod(dir, DIR_MODE) < 0) /* the umask must not narrow it */
        err_set(err, "job %s: %s: %s", j->id, dir, strerror(errno));
    else if (write_spool_files(dir, j, err) == 0 && (crashpt("start-files-written"), 1) &&
             (pid = spawn_supervisor(l, dir, err)) > 0)
        rc = await_supervisor(j->id, dir, pid, &reaped, err);
    if (rc < 0) {
        remove_spool(dir, &e); /* best effort: the first error is the one to report */
        return -1;
    }
    if (!reaped)
        kids_add(l, pid);
    return 0;
}

/* ---- poll ---- */

/* "message <text>\n" at the end of a status file (absent before moku
 * kept one: that is not an error). */
static int parse_message(const char *text, struct local_status *st)
{
    st->message[0] = '\0';
    if (!*text)
        return 0;
    if (strncmp(text, "message ", 8) != 0)
        return -1;
    text += 8;
    size_t n = strcspn(text, "\n");
    if (text[n] != '\n' || text[n + 1] != '\0' || n >= sizeof st->message)
        return -1;
    memcpy(st->message, text, n);
    st->message[n] = '\0';
    return 0;
}

/* Parse "exit N\nend N\nreason R\n[message M\n]". */
static int parse_status(const char *text, struct local_status *st)
{
    char reason[32];
    int n = 0;
    if (sscanf(text, "exit %d\nend %ld\nreason %31s\n%n", &st->exit_code, &st->end, reason, &n) !=
            3 ||
        n == 0 || parse_message(text + n, st) < 0)
        return -1;
    static const char *const ok[] = {"completed", "walltime", "cancelled", "failed"};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
        if (strcmp(reason, ok[i]) == 0) {
            snprintf(st->reason, sizeof st->reason, "%s", ok[i]);
            return 0;
        }
    return -1;
}

/* 1 and *st filled when the status file is there, 0 when it is not, -1 on
 * error. */
static int read_status(const char *dir, struct local_status *st, struct err *err)
{
    char path[FILE_PATH_MAX], buf[256 + LOCAL_MSG_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, LOCAL_F_STATUS);
    ssize_t n = read_small(path, buf, sizeof buf);
    if (n < 0 && errno == ENOENT)
        return 0;
    if (n < 0)
        return err_set(err, "%s: %s", path, strerror(errno));
    if (parse_status(buf, st) < 0)
        return err_set(err, "%s: malformed status file", path);
    st->state = LOCAL_ENDED;
    return 1;
}

static int file_exists(const char *dir, const char *file)
{
    char path[FILE_PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    return access(path, F_OK) == 0;
}

int local_poll(struct local *l, const char *id, struct local_status *st, struct err *err)
{
    char dir[PATH_MAX];
    if (check_id(id, err) < 0)
        return -1;
    memset(st, 0, sizeof *st);
    spool_path(l, id, NULL, dir);
    pid_t pid = read_pid_file(dir, LOCAL_F_PID);
    if (pid > 0)
        reap_pid(l, pid); /* before the liveness check: a zombie is not alive */
    int rc = read_status(dir, st, err);
    if (rc != 0)
        return rc < 0 ? -1 : 0;
    if (pid > 0 && supervisor_alive(pid, dir)) {
        st->state = file_exists(dir, LOCAL_F_SUSPENDED) ? LOCAL_SUSPENDED : LOCAL_RUNNING;
        return 0;
    }
    /* The supervisor may have written the status and exited since. */
    rc = read_status(dir, st, err);
    if (rc != 0)
        return rc < 0 ? -1 : 0;
    struct stat sb;
    if (stat(dir, &sb) < 0 && errno == ENOENT)
        st->state = LOCAL_UNKNOWN;
    else if (pid > 0)
        st->state = LOCAL_LOST; /* its supervisor ran: the job may have run */
    else
        st->state = supervisor_coming(dir) ? LOCAL_RUNNING : LOCAL_NEVER;
    return 0;
}

/* ---- signals ---- */

static const char *state_name(enum local_state s)
{
    switch (s) {
    case LOCAL_RUNNING:
        return "running";
    case LOCAL_SUSPENDED:
        return "suspended";
    case LOCAL_ENDED:
        return "ended";
    case LOCAL_LOST:
        return "lost (no supervisor, no status)";
    case LOCAL_UNKNOWN:
        return "unknown here";
    case LOCAL_NEVER:
        return "never started";
    }
    return "?";
}

/* The pid of job id's supervisor while its job runs, else 0 (reaping it if
 * it is our child and has ended). Once the status file is written the job
 * has ended, even if the supervisor is still on its way out (it writes the
 * status last, but exiting takes a moment — long under a sanitizer). */
static pid_t live_supervisor(struct local *l, const char *id, char *dir)
{
    spool_path(l, id, NULL, dir);
    if (file_exists(dir, LOCAL_F_STATUS))
        return 0;
    pid_t pid = read_pid_file(dir, LOCAL_F_PID);
    if (pid > 0)
        reap_pid(l, pid);
    return pid > 0 && supervisor_alive(pid, dir) ? pid : 0;
}

/* Send sig to job id's supervisor, when it is alive. */
static int signal_supervisor(struct local *l, const char *id, int sig, struct err *err)
{
    char dir[PATH_MAX];
    struct local_status st;
    if (check_id(id, err) < 0)
        return -1;
    pid_t pid = live_supervisor(l, id, dir);
    if (!pid) {
        if (local_poll(l, id, &st, err) < 0)
            return -1;
        return err_set(err, "job %s is not running: %s", id, state_name(st.state));
    }
    if (kill(pid, sig) < 0)
        return err_set(err, "job %s: cannot signal its supervisor (pid %ld): %s", id, (long)pid,
                       strerror(errno));
    return 0;
}

int local_cancel(struct local *l, const char *id, struct err *err)
{
    return signal_supervisor(l, id, SIGTERM, err);
}

/* The marker is written before the signal, so that local_poll says
 * SUSPENDED as soon as this returns; the supervisor stops the job a moment
 * later. */
int local_suspend(struct local *l, const char *id, struct err *err)
{
    char path[FILE_PATH_MAX];
    if (check_id(id, err) < 0)
        return -1;
    spool_path(l, id, LOCAL_F_SUSPENDED, path);
    int existed = access(path, F_OK) == 0;
    if (!existed && write_new(path, "", 0, 0644, err) < 0)
        return -1;
    if (signal_supervisor(l, id, SIGUSR1, err) < 0) {
        if (!existed)
            unlink(path);
        return -1;
    }
    return 0;
}

int local_resume(struct local *l, const char *id, struct err *err)
{
    char path[FILE_PATH_MAX];
    if (signal_supervisor(l, id, SIGUSR2, err) < 0)
        return -1;
    spool_path(l, id, LOCAL_F_SUSPENDED, path);
    if (unlink(path) < 0 && errno != ENOENT)
        return err_set(err, "%s: cannot remove: %s", path, strerror(errno));
    return 0;
}

/* ---- forget, host ---- */

/* Not through local_poll: a malformed status file must not keep a job from
 * being forgotten. */
int local_forget(struct local *l, const char *id, struct err *err)
{
    char dir[PATH_MAX];
    struct stat sb;
    if (check_id(id, err) < 0)
        return -1;
    if (live_supervisor(l, id, dir))
        return err_set(err, "job %s is still running; cancel it first", id);
    if (stat(dir, &sb) < 0 && errno == ENOENT)
        return 0;
    return remove_spool(dir, err);
}

void local_host(int *procs, long *mem_mb)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    *procs = n > 0 ? (int)n : 1;
    *mem_mb = pages > 0 && page > 0 ? (long)((long long)pages * page / (1024 * 1024)) : 0;
}
