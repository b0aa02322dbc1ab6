/*
 * Tests of the local resource manager: real jobs, run by real supervisors
 * (`$MOKU _supervise`, MOKU as `make check` sets it, else bin/moku from the
 * repository's root, where the tests run; skipped when it is not built).
 * Sleeps are short: the whole program takes a few seconds.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rm/local.h"
#include "rm/pty.h"
#include "test.h"

/* The moku binary, the supervisor: $MOKU or bin/moku. */
static const char *moku_bin(void)
{
    const char *m = getenv("MOKU");
    return m && *m ? m : "bin/moku";
}
#define MOKU_BIN moku_bin()

/* A scratch tree: <base>/spool (the spool), <base>/work (job cwd, scripts),
 * base 0711 and work 0777 so a job running as another user gets there. */
struct fx {
    char base[160], spool[192], work[192];
    char user[64];
    struct local *l;
};

static int fx_open(struct fx *f)
{
    struct err e;
    memset(f, 0, sizeof *f);
    snprintf(f->base, sizeof f->base, "%s/t_local_XXXXXX", test_tmpdir());
    if (!mkdtemp(f->base))
        return -1;
    chmod(f->base, 0711);
    snprintf(f->spool, sizeof f->spool, "%s/spool", f->base);
    snprintf(f->work, sizeof f->work, "%s/work", f->base);
    mkdir(f->work, 0777);
    chmod(f->work, 0777);
    struct passwd *pw = getpwuid(getuid());
    snprintf(f->user, sizeof f->user, "%s", pw ? pw->pw_name : "root");
    f->l = local_create(f->spool, MOKU_BIN, &e);
    if (!f->l)
        fprintf(stderr, "local_create: %s\n", e.msg);
    CHECK(f->l != NULL);
    return f->l ? 0 : -1;
}

/* Remove the scratch tree: a few levels of files we made. */
static void rm_tree(const char *path)
{
    char *const argv[] = {"rm", "-rf", (char *)path, NULL};
    pid_t pid = fork();
    if (pid == 0) {
        execv("/bin/rm", argv);
        _exit(127);
    }
    int st;
    if (pid > 0)
        waitpid(pid, &st, 0);
}

static void fx_close(struct fx *f)
{
    local_destroy(f->l);
    rm_tree(f->base);
}

/* Write <work>/<name> with text and mode; its path into path. */
static void fx_script(const struct fx *f, const char *name, const char *text, mode_t mode,
                      char *path, size_t len)
{
    snprintf(path, len, "%s/%s", f->work, name);
    FILE *fp = fopen(path, "w");
    CHECK(fp != NULL);
    if (!fp)
        return;
    fputs(text, fp);
    fclose(fp);
    chmod(path, mode);
}

/* A job of the test's own user running script in work. */
static struct local_job fx_job(const struct fx *f, const char *id, const char *script)
{
    static const char *const one[] = {"localhost"};
    struct local_job j = {
        .id = id,
        .user = f->user,
        .uid = getuid(),
        .gid = getgid(),
        .script = script,
        .cwd = f->work,
        .hosts = one,
        .nhosts = 1,
        .walltime = 60,
        .grace = 1,
    };
    return j;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Poll until the job is no longer running (or timeout seconds). */
static void wait_end(struct local *l, const char *id, double timeout, struct local_status *st)
{
    struct err e;
    double t0 = now_s();
    for (;;) {
        if (local_poll(l, id, st, &e) < 0) {
            fprintf(stderr, "local_poll: %s\n", e.msg);
            CHECK(0);
            return;
        }
        if ((st->state != LOCAL_RUNNING && st->state != LOCAL_SUSPENDED) || now_s() - t0 > timeout)
            return;
        sleep_ms(20);
    }
}

/* Whole file into buf ("" when unreadable). */
static const char *slurp(const char *path, char *buf, size_t len)
{
    buf[0] = '\0';
    FILE *fp = fopen(path, "r");
    if (!fp)
        return buf;
    size_t n = fread(buf, 1, len - 1, fp);
    buf[n] = '\0';
    fclose(fp);
    return buf;
}

static int start_ok(struct fx *f, const struct local_job *j)
{
    struct err e;
    int rc = local_start(f->l, j, &e);
    if (rc < 0)
        fprintf(stderr, "local_start %s: %s\n", j->id, e.msg);
    CHECK_EQ(rc, 0);
    return rc;
}

/* The state letters of the processes of group pgid (at most len - 1 of
 * them), read from /proc. */
static void group_states(long pgid, char *out, size_t len)
{
    size_t n = 0;
    DIR *d = opendir("/proc");
    struct dirent *de;
    while (d && (de = readdir(d)) && n + 1 < len) {
        char path[64], buf[512];
        long pgrp = 0;
        char st = 0;
        if (de->d_name[0] < '1' || de->d_name[0] > '9')
            continue;
        snprintf(path, sizeof path, "/proc/%.20s/stat", de->d_name);
        const char *p = strrchr(slurp(path, buf, sizeof buf), ')');
        if (p && sscanf(p, ") %c %*d %ld", &st, &pgrp) == 2 && pgrp == pgid)
            out[n++] = st;
    }
    if (d)
        closedir(d);
    out[n] = '\0';
}

/* The job's state, from its process group (job.pgid): '?' before it has
 * one, 'T' once stopped, else 'R'. Stopped: a process of the group is
 * stopped (T) and none runs or sleeps (R, S). Not the leader's letter
 * alone: a job stopped while its shell was forking a command (dash forks
 * with vfork) has the child stopped (T) and the shell waiting for it in the
 * kernel (D) until SIGCONT; the leader never shows T, and the check failed
 * about once in 50 runs under load (the job was stopped all the same). */
static char job_state(const struct fx *f, const char *id)
{
    char path[256], buf[512], st[64];
    snprintf(path, sizeof path, "%s/%s/%s", f->spool, id, LOCAL_F_PGID);
    long pgid = atol(slurp(path, buf, sizeof buf));
    if (pgid <= 1)
        return '?';
    group_states(pgid, st, sizeof st);
    if (!st[0])
        return '?';
    return strchr(st, 'T') && !strpbrk(st, "RS") ? 'T' : 'R';
}

/* Wait until the job's state letter is (or is not, want_not) c. */
/* Thirty seconds: the job is the supervisor's child, forked under make
 * check's load (a fixed count of short polls failed there, and ten seconds once with six
 * other builds beside it). */
static int wait_state(const struct fx *f, const char *id, char c, int want_not)
{
    for (double end = now_s() + 30; now_s() < end;) {
        char s = job_state(f, id);
        if (want_not ? (s != c && s != '?') : s == c)
            return 1;
        sleep_ms(20);
    }
    return 0;
}

/* ---- tests ---- */

static void test_basic_job(void)
{
    struct fx f;
    if (fx_open(&f) < 0)
        return;
    char script[256], path[256], buf[4096], expect[1024], host[256];
    if (gethostname(host, sizeof host) < 0 || !*host)
        snprintf(host, sizeof host, "localhost");
    host[sizeof host - 1] = '\0';
    host[strcspn(host, ".")] = '\0'; /* PBS_JOBID is Torque's "id.server" */
    fx_script(&f, "job.sh",
              "echo out-line\n"
              "echo err-line >&2\n"
              "echo \"JOBID=$PBS_JOBID MOKU=$MOKU_JOBID NAME=$PBS_JOBNAME\"\n"
              "echo \"WORKDIR=$PBS_O_WORKDIR\"\n"
              "echo \"PWD=$(pwd)\"\n"
              "echo \"NODES=$MOKU_NODES NP=$PBS_NP NN=$PBS_NUM_NODES\"\n"
              "echo \"FOO=$FOO USER=$USER LEAK=${T_LOCAL_LEAK:-none}\"\n"
              "cat \"$PBS_NODEFILE\"\n"
              "exit 3\n",
              0644, script, sizeof script);
    static const char *const hosts[] = {"nodeA", "nodeA", "nodeB"};
    struct local_job j = fx_job(&f, "job1", script);
    j.hosts = hosts;
    j.nhosts = 3;
    j.env = "FOO=bar baz\nPBS_JOBID=forged\n";
    setenv("T_LOCAL_LEAK", "yes", 1);
    struct local_status st;
    struct err e;
    CHECK_EQ(local_poll(f.l, "job1", &st, &e), 0);
    CHECK_EQ(st.state, LOCAL_UNKNOWN);
    if (start_ok(&f, &j) == 0) {
        wait_end(f.l, "job1", 15, &st);
        CHECK_EQ(st.state, LOCAL_ENDED);
        CHECK_EQ(st.exit_code, 3);
        CHECK_STR(st.reason, "completed");
        CHECK(labs(st.end - (long)time(NULL)) < 10);
        snprintf(path, sizeof path, "%s/job1.ojob1", f.work); /* default: <cwd>/<name>.o<id> */
        snprintf(expect, sizeof expect,
                 "out-line\nJOBID=job1.%s MOKU=job1 NAME=job1\nWORKDIR=%s\nPWD=%s\n"
                 "NODES=nodeA nodeB NP=3 NN=2\nFOO=bar baz USER=%s LEAK=none\n"
                 "nodeA\nnodeA\nnodeB\n",
                 host, f.work, f.work, f.user);
        CHECK_STR(slurp(path, buf, sizeof buf), expect);
        struct stat sb;
        CHECK(stat(path, &sb) == 0 && (sb.st_mode & 0777) == 0600);
        snprintf(path, sizeof path, "%s/job1.ejob1", f.work);
        CHECK_STR(slurp(path, buf, sizeof buf), "err-line\n");
        CHECK(local_cancel(f.l, "job1", &e) < 0);
        CHECK_HAS(e.msg, "not running");
        CHECK_EQ(local_forget(f.l, "job1", &e), 0);
        CHECK_EQ(local_poll(f.l, "job1", &st, &e), 0);
        CHECK_EQ(st.state, LOCAL_UNKNOWN);
        CHECK_EQ(local_forget(f.l, "job1", &e), 0); /* again: nothing to do */
    }
    unsetenv("T_LOCAL_LEAK");
    fx_close(&f);
}

/* A job array's task: Torque's PBS_JOBID "A[i].host", PBS_ARRAYID and
 * Slurm's names, output files <name>.oA-i; a malformed task id refused. */
static void test_array_task(void)
{
    struct fx f;
    if (fx_open(&f) < 0)
        return;
    char script[256], path[256], buf[1024], expect[512], host[256], fid[32];
    if (gethostname(host, sizeof host) < 0 || !*host)
        snprintf(host, sizeof host, "localhost");
    host[sizeof host - 1] = '\0';
    host[strcspn(host, ".")] = '\0';
    CHECK_STR(local_file_id("13", "12[3]", fid, sizeof fid), "12-3");
    CHECK_STR(local_file_id("13", NULL, fid, sizeof fid), "13");
    CHECK(local_file_id("13", "12[]", fid, sizeof fid) == NULL);
    CHECK(local_file_id("13", "x[3]", fid, sizeof fid) == NULL);
    CHECK(local_file_id("13", "12[3]x", fid, sizeof fid) == NULL);
    fx_script(&f, "arr.sh",
              "echo \"$PBS_JOBID $PBS_ARRAYID $SLURM_ARRAY_TASK_ID $SLURM_ARRAY_JOB_ID "
              "$MOKU_JOBID\"\n",
              0644, script, sizeof script);
    struct local_job j = fx_job(&f, "13", script);
    j.name = "arr";
    j.array_task = "12[3]";
    j.env = "PBS_ARRAYID=forged\n";
    struct local_status st;
    struct err e;
    if (start_ok(&f, &j) == 0) {
        wait_end(f.l, "13", 15, &st);
        CHECK_EQ(st.state, LOCAL_ENDED);
        snprintf(path, sizeof path, "%s/arr.o12-3", f.work);
        snprintf(expect, sizeof expect, "12[3].%s 3 3 12 13\n", host);
        CHECK_STR(slurp(path, buf, sizeof buf), expect);
        snprintf(path, sizeof path, "%s/arr.e12-3", f.work);
        CHECK(access(path, F_OK) == 0);
        CHECK_EQ(local_forget(f.l, "13", &e), 0);
    }
    j = fx_job(&f, "14", script);
    j.array_task = "12[";
    CHECK_EQ(local_start(f.l, &j, &e), -1);
    CHECK_HAS(e.msg, "invalid array task id");
    fx_close(&f);
}

/* "#!" and executable: exec'd directly (here by cat, which prints the
 * script); "#!" but not executable, or no "#!": through /bin/sh. Also
 * given output paths, joined (-j oe). */
static void test_shebang(void)
{
    struct fx f;
    if (fx_open(&f) < 0)
        return;
    char s1[256], s2[256], out[256], buf[1024];
    struct local_status st;
    fx_script(&f, "cat.sh", "#!/bin/cat\nhello\n", 0755, s1, sizeof s1);
    fx_script(&f, "sh.sh", "#!/bin/cat\necho via-sh >&2\n", 0644, s2, sizeof s2);
    snprintf(out, sizeof out, "%s/joined.out", f.work);
    struct local_job j = fx_job(&f, "direct", s1);
    j.out_path = out;
    j.err_path = out;
    if (start_ok(&f, &j) == 0) {
        wait_end(f.l, "direct", 15, &st);
        CHECK_EQ(st.exit_code, 0);
        CHECK_STR(slurp(out, buf, sizeof buf), "#!/bin/cat\nhello\n");
    }
    j = fx_job(&f, "viash", s2);
    j.out_path = out;
    j.err_path = out;
    if (start_ok(&f, &j) == 0) {
        wait_end(f.l, "viash", 15, &st);
        CHECK_EQ(st.exit_code, 0);
        CHECK_STR(slurp(out, buf, sizeof buf), "via-sh\n");
    }
    fx_close(&f);
}

static void test_walltime(void)
{
    struct fx f;
    if (fx_open(&f) < 0)
        return;
    char script[256];
    struct local_status st;
    fx_script(&f, "long.sh", "sleep 30\n", 0644, script, sizeof script);
    struct local_job j = fx_job(&f, "wall", script);
    j.walltime = 1;
    double t0 = now_s();
    if (start_ok(&f, &j) == 0) {
        wait_end(f.l, "wall", 15, &st);
        CHECK_EQ(st.state, LOCAL_ENDED);
        CHECK_STR(st.reason, "walltime");
        CHECK(st.exit_code == 256 + SIGTERM || st.exit_code == 256 + SIGKILL);
        CHECK(now_s() - t0 < 10); /* about 2 s; room for a loaded machine */
    }
    fx_close(&f);
}

/* A job that ignores SIGTERM is killed after the grace. */
static void test_cancel(void)
{
    struct fx f;
    if (fx_open(&f) < 0)
        return;
    char s1[256], s2[256];
    struct local_status st;
    struct err e;
    fx_script(&f, "long.sh", "sleep 30\n", 0644, s1, sizeof s1);
    fx_script(&f, "stubborn.sh", "trap '' TERM\nsleep 30\n", 0644, s2, sizeof s2);
    struct local_job j = fx_job(&f, "c1", s1);
    if (start_ok(&f, &j) == 0) {
        sleep_ms(100);
        CHECK_EQ(local_poll(f.l, "c1", &st, &e), 0);
        CHECK_EQ(st.state, LOCAL_RUNNING);
        CHECK_EQ(local_forget(f.l, "c1", &e), -1);
        CHECK_EQ(local_cancel(f.l, "c1", &e), 0);
        wait_end(f.l, "c1", 15, &st);
        CHECK_EQ(st.state, LOCAL_ENDED);
        CHECK_STR(st.reason, "cancelled");
        CHECK_EQ(st.exit_code, 256 + SIGTERM);
    }
    j = fx_job(&f, "c2", s2);
    double t0 = now_s();
    if (start_ok(&f, &j) == 0) {
        sleep_ms(100);
        CHECK_EQ(local_cancel(f.l, "c2", &e), 0);
        wait_end(f.l, "c2", 15, &st);
        CHECK_STR(st.reason, "cancelled");
        CHECK_EQ(st.exit_code, 256 + SIGKILL);
        CHECK(now_s() - t0 >= 1 && now_s() - t0 < 10); /* the grace, then SIGKILL; room for load */
    }
    fx_close(&f);
}

static void test_suspend_resume(void)
{
    struct fx f;
    if (fx_open(&f) < 0)
        return;
    char script[256];
    struct local_status st;
    struct err e;
    fx_script(&f, "long.sh", "sleep 30\n", 0644, script, sizeof script);
    struct local_job j = fx_job(&f, "s1", script);
    if (start_ok(&f, &j) == 0) {
        CHECK(wait_state(&f, "s1", 'T', 1)); /* started */
        CHECK_EQ(local_suspend(f.l, "s1", &e), 0);
        CHECK(wait_state(&f, "s1", 'T', 0));
        CHECK_EQ(local_poll(f.l, "s1", &st, &e), 0);
        CHECK_EQ(st.state, LOCAL_SUSPENDED);
        CHECK_EQ(local_resume(f.l, "s1", &e), 0);
        CHECK(wait_state(&f, "s1", 'T', 1));
        CHECK_EQ(local_poll(f.l, "s1", &st, &e), 0);
        CHECK_EQ(st.state, LOCAL_RUNNING);
        /* Cancelling a suspended job still ends it at SIGTERM. */
        CHECK_EQ(local_suspend(f.l, "s1", &e), 0);
        CHECK(wait_state(&f, "s1", 'T', 0));
        CHECK_EQ(local_cancel(f.l, "s1", &e), 0);
        wait_end(f.l, "s1", 15, &st);
        CHECK_STR(st.reason, "cancelled");
        CHECK_EQ(st.exit_code, 256 + SIGTERM);
        CHECK(local_suspend(f.l, "s1", &e) < 0);
    }
    fx_close(&f);
}

/* The walltime clock stops while the job is suspended: walltime 1 s,
 * suspended for the first 1.5 s, ends by walltime at about 2.5 s. */
static void test_walltime_suspended(void)
{
    struct fx f;
    if (fx_open(&f) < 0)
        return;
    char script[256];
    struct local_status st;
    struct err e;
    fx_script(&f, "long.sh", "sleep 30\n", 0644, script, sizeof script);
    struct local_job j = fx_job(&f, "ws", script);
    j.walltime = 1;
    double t0 = now_s();
    if (start_ok(&f, &j) == 0) {
        CHECK_EQ(local_suspend(f.l, "ws", &e), 0);
        sleep_ms(1500);
        CHECK_EQ(local_poll(f.l, "ws", &st, &e), 0);
        CHECK_EQ(st.state, LOCAL_SUSPENDED);
        CHECK_EQ(local_resume(f.l, "ws", &e), 0);
        wait_end(f.l, "ws", 15, &st);
        CHECK_STR(st.reason, "walltime");
        /* The lower bound is the point (the clock stood still for 1.5 s);
         * the upper one only says it ended, with room for a loaded machine. */
        CHECK(now_s() - t0 >= 2.2 && now_s() - t0 < 15);
    }
    fx_close(&f);
}

/* The daemon goes away (struct local destroyed) and comes back. */
static void test_restart(void)
{
    struct fx f;
    if (fx_open(&f) < 0)
        return;
    char script[256];
    struct local_status st;
    struct err e;
    fx_script(&f, "job.sh", "sleep 0.5\nexit 5\n", 0644, script, sizeof script);
    struct local_job j = fx_job(&f, "r1", script);
    if (start_ok(&f, &j) == 0) {
        local_destroy(f.l);
        f.l = local_create(f.spool, MOKU_BIN, &e);
        CHECK(f.l != NULL);
        if (!f.l) {
            rm_tree(f.base);
            return;
        }
        CHECK_EQ(local_poll(f.l, "r1", &st, &e), 0);
        CHECK_EQ(st.state, LOCAL_RUNNING);
        wait_end(f.l, "r1", 15, &st);
        CHECK_EQ(st.state, LOCAL_ENDED);
        CHECK_EQ(st.exit_code, 5);
        CHECK_STR(st.reason, "completed");
    }
    fx_close(&f);
}

static void test_invalid(void)
{
    struct fx f;
    if (fx_open(&f) < 0)
        return;
    char script[256], longid[80], path[256];
    struct local_status st;
    struct err e;
    fx_script(&f, "job.sh", "exit 0\n", 0644, script, sizeof script);
    memset(longid, 'x', 65);
    longid[65] = '\0';
    const char *bad[] = {"", ".", "..", "a..b", "a/b", "x y", "../etc", longid};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct local_job j = fx_job(&f, bad[i], script);
        CHECK_EQ(local_start(f.l, &j, &e), -1);
        CHECK_HAS(e.msg, "invalid job id");
        CHECK_EQ(local_poll(f.l, bad[i], &st, &e), -1);
    }
    struct local_job j = fx_job(&f, "ok.1_A-2", script);
    j.cwd = "relative";
    CHECK_EQ(local_start(f.l, &j, &e), -1);
    j = fx_job(&f, "ok.1_A-2", script);
    j.walltime = 0;
    CHECK_EQ(local_start(f.l, &j, &e), -1);
    j = fx_job(&f, "ok.1_A-2", script);
    j.nice = 20;
    CHECK_EQ(local_start(f.l, &j, &e), -1);
    CHECK_HAS(e.msg, "nice");
    j = fx_job(&f, "ok.1_A-2", script);
    j.vmem_mb = -1;
    CHECK_EQ(local_start(f.l, &j, &e), -1);
    j = fx_job(&f, "ok.1_A-2", script);
    j.env = "NOEQUALS\n";
    CHECK_EQ(local_start(f.l, &j, &e), -1);
    CHECK_HAS(e.msg, "NOEQUALS");
    j = fx_job(&f, "ok.1_A-2", script);
    j.env = "BAD=\xff\n";
    CHECK_EQ(local_start(f.l, &j, &e), -1);
    CHECK_HAS(e.msg, "UTF-8");
    if (geteuid() != 0) { /* a daemon not running as root runs only its own jobs */
        j = fx_job(&f, "ok.1_A-2", script);
        j.uid = getuid() + 1;
        CHECK_EQ(local_start(f.l, &j, &e), -1);
        CHECK_HAS(e.msg, "run it as root");
    }
    j = fx_job(&f, "ok.1_A-2", script);
    if (start_ok(&f, &j) == 0) {
        CHECK_EQ(local_start(f.l, &j, &e), -1); /* the same id twice */
        CHECK_HAS(e.msg, "exists");
        wait_end(f.l, "ok.1_A-2", 15, &st);
        CHECK_EQ(st.state, LOCAL_ENDED);
    }
    /* A malformed status file is an error naming it. */
    snprintf(path, sizeof path, "%s/ok.1_A-2/%s", f.spool, LOCAL_F_STATUS);
    FILE *fp = fopen(path, "w");
    if (fp) {
        fputs("exit x\n", fp);
        fclose(fp);
    }
    CHECK_EQ(local_poll(f.l, "ok.1_A-2", &st, &e), -1);
    CHECK_HAS(e.msg, "malformed");
    CHECK_EQ(local_forget(f.l, "ok.1_A-2", &e), 0);
    fx_close(&f);
}

/* Problems met as the user end the job at once ("failed", 127). */
static void test_bad_cwd(void)
{
    struct fx f;
    if (fx_open(&f) < 0)
        return;
    char script[256], path[256], buf[2048];
    struct local_status st;
    fx_script(&f, "job.sh", "exit 0\n", 0644, script, sizeof script);
    struct local_job j = fx_job(&f, "bad", script);
    j.cwd = "/nonexistent/moku-dir";
    double t0 = now_s();
    if (start_ok(&f, &j) == 0) {
        wait_end(f.l, "bad", 15, &st);
        CHECK_EQ(st.state, LOCAL_ENDED);
        CHECK_STR(st.reason, "failed");
        CHECK_EQ(st.exit_code, 127);
        CHECK(now_s() - t0 < 5); /* no grace waited (it is 1 s); room for load */
        snprintf(path, sizeof path, "%s/bad/%s", f.spool, LOCAL_F_LOG);
        CHECK_HAS(slurp(path, buf, sizeof buf), "/nonexistent/moku-dir");
        /* The reason is in the status too, for the daemon to keep. */
        CHECK_HAS(st.message, "/nonexistent/moku-dir: cannot enter the working directory");
    }
    /* An output file that cannot be created: the reason goes to the error
     * file, which can. */
    char errf[256];
    snprintf(errf, sizeof errf, "%s/out.err", f.work);
    j = fx_job(&f, "out", script);
    j.out_path = "/nonexistent/moku-dir/x.out";
    j.err_path = errf;
    if (start_ok(&f, &j) == 0) {
        wait_end(f.l, "out", 15, &st);
        CHECK_STR(st.reason, "failed");
        CHECK_HAS(st.message, "job out: /nonexistent/moku-dir/x.out: cannot open the output file");
        CHECK_HAS(slurp(errf, buf, sizeof buf), "moku: job out: /nonexistent/moku-dir/x.out: "
                                                "cannot open the output file");
    }
    /* A script that is not there: the message reaches the error file too. */
    char errp[256];
    snprintf(errp, sizeof errp, "%s/missing.err", f.work);
    j = fx_job(&f, "missing", "/nonexistent/script.sh");
    j.err_path = errp;
    if (start_ok(&f, &j) == 0) {
        wait_end(f.l, "missing", 15, &st);
        CHECK_STR(st.reason, "failed");
        CHECK_EQ(st.exit_code, 127);
        CHECK_HAS(slurp(errp, buf, sizeof buf), "/nonexistent/script.sh");
    }
    fx_close(&f);
}

/* A supervisor that fails to start: the error carries its log, the spool
 * directory is gone. /bin/true plays a supervisor that exits at once. */
static void test_supervisor_fails(void)
{
    char base[] = "/tmp/t_local_XXXXXX", spool[64], dir[96];
    struct err e;
    if (!mkdtemp(base))
        return;
    snprintf(spool, sizeof spool, "%s/spool", base);
    struct local *l = local_create(spool, "/bin/true", &e);
    CHECK(l != NULL);
    static const char *const one[] = {"localhost"};
    struct local_job j = {
        .id = "j",
        .user = "x",
        .uid = getuid(),
        .gid = getgid(),
        .script = "/bin/true",
        .cwd = "/",
        .hosts = one,
        .nhosts = 1,
        .walltime = 10,
    };
    struct passwd *pw = getpwuid(getuid());
    j.user = pw ? pw->pw_name : "root";
    if (l) {
        CHECK_EQ(local_start(l, &j, &e), -1);
        CHECK_HAS(e.msg, "supervisor exited with status 0");
        snprintf(dir, sizeof dir, "%s/j", spool);
        CHECK(access(dir, F_OK) < 0);
    }
    local_destroy(l);
    CHECK(local_create(spool, "/nonexistent/moku", &e) == NULL);
    rm_tree(base);
}

/* As root: the job runs as its user (nobody), who can read its nodefile
 * and whose output files it creates; uid 0 for a user not root is refused. */
/* Torque's -l nice and vmem: the job's processes run at that nice value,
 * with their address space limited (soft and hard) to vmem. */
static void test_limits(void)
{
    struct fx f;
    if (fx_open(&f) < 0)
        return;
    char script[256], path[256], buf[256], expect[128];
    struct local_status st;
    fx_script(&f, "lim.sh", "nice\nulimit -v\nulimit -Hv\n", 0644, script, sizeof script);
    errno = 0;
    int base = getpriority(PRIO_PROCESS, 0);
    int want = base >= 15 ? 19 : 15; /* raising one's own nice value needs no privilege */
    struct local_job j = fx_job(&f, "lim", script);
    j.nice = want;
    j.vmem_mb = 300;
    if (start_ok(&f, &j) == 0) {
        wait_end(f.l, "lim", 15, &st);
        CHECK_EQ(st.exit_code, 0);
        snprintf(path, sizeof path, "%s/lim.olim", f.work);
        snprintf(expect, sizeof expect, "%d\n%d\n%d\n", want, 300 * 1024, 300 * 1024);
        CHECK_STR(slurp(path, buf, sizeof buf), expect);
    }
    fx_close(&f);
}

static void test_run_as_user(void)
{
    struct passwd *pw = getpwnam("nobody");
    if (geteuid() != 0 || !pw) {
        TEST_SKIP("test_run_as_user needs root and user nobody");
        return;
    }
    struct fx f;
    if (fx_open(&f) < 0)
        return;
    char script[256], path[256], buf[1024], expect[128];
    struct local_status st;
    struct err e;
    fx_script(&f, "id.sh", "id -u\ncat \"$PBS_NODEFILE\"\necho \"$USER $HOME\"\n", 0644, script,
              sizeof script);
    struct local_job j = fx_job(&f, "u1", script);
    j.user = "nobody";
    j.uid = pw->pw_uid;
    j.gid = pw->pw_gid;
    if (start_ok(&f, &j) == 0) {
        wait_end(f.l, "u1", 15, &st);
        CHECK_EQ(st.exit_code, 0);
        snprintf(path, sizeof path, "%s/u1.ou1", f.work);
        snprintf(expect, sizeof expect, "%ld\nlocalhost\nnobody %s\n", (long)pw->pw_uid,
                 pw->pw_dir);
        CHECK_STR(slurp(path, buf, sizeof buf), expect);
        struct stat sb;
        CHECK(stat(path, &sb) == 0 && sb.st_uid == pw->pw_uid);
    }
    j = fx_job(&f, "u2", script);
    j.user = "nobody";
    j.uid = 0;
    CHECK_EQ(local_start(f.l, &j, &e), -1);
    CHECK_HAS(e.msg, "uid 0");
    fx_close(&f);
}

static void test_host(void)
{
    int procs = 0;
    long mem = 0;
    local_host(&procs, &mem);
    CHECK(procs >= 1);
    CHECK(mem > 0);
}

/* qsub's end of an interactive job: connect to <spooldir>/tty.sock within
 * 10 s, receive the terminal. -1 when it does not come. */
static int inter_connect(const struct fx *f, const char *id, int *conn)
{
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    char path[512];
    snprintf(path, sizeof path, "%s/%s/%s", f->spool, id, LOCAL_F_TTY);
    if (strlen(path) >= sizeof a.sun_path)
        return -1;
    memcpy(a.sun_path, path, strlen(path) + 1);
    double t0 = now_s();
    while (now_s() - t0 < 10) {
        int c = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (connect(c, (struct sockaddr *)&a, sizeof a) == 0) {
            struct err e;
            char msg[16];
            int master = -1;
            if (pty_recv_fd(c, &master, msg, sizeof msg, &e) > 0 && master >= 0) {
                *conn = c;
                return master;
            }
            close(c);
            return -1;
        }
        close(c);
        sleep_ms(20);
    }
    return -1;
}

/* qsub -I through the supervisor: the user's shell on a terminal with the
 * job's environment, its status as the job's, relayed by pty_relay; qsub's
 * end cancels the job; no qsub at all, or a cancel while waiting, ends it
 * with a reason. */
static void test_interactive(void)
{
    struct fx f;
    if (fx_open(&f) < 0)
        return;
    struct local_status st;
    struct err e;
    struct local_job j = fx_job(&f, "i1", "/nonexistent");
    j.interactive = 1;
    j.env = "SHELL=/bin/sh\n";
    int conn = -1, in[2], out[2];
    if (start_ok(&f, &j) == 0) {
        int master = inter_connect(&f, "i1", &conn);
        CHECK(master >= 0);
        CHECK(pipe(in) == 0 && pipe(out) == 0);
        const char *typed = "echo \"env:$PBS_ENVIRONMENT:$PBS_JOBID\"; tty -s && echo on-tty; "
                            "set -m; sleep 371 & echo \"bg:$!\"; exit 5\n";
        CHECK_EQ(write(in[1], typed, strlen(typed)), (ssize_t)strlen(typed));
        close(in[1]);
        if (master >= 0) {
            CHECK_EQ(pty_relay(in[0], out[1], master, conn, &e), 5);
            close(master);
            close(conn);
        }
        close(out[1]);
        char text[2048] = "";
        ssize_t n = read(out[0], text, sizeof text - 1);
        text[n > 0 ? n : 0] = '\0';
        CHECK(strstr(text, "env:PBS_INTERACTIVE:i1") != NULL);
        CHECK(strstr(text, "on-tty") != NULL);
        /* The shell's job in a group of its own: killed with the session. */
        const char *bg = strstr(text, "bg:");
        while (bg && (bg[3] < '1' || bg[3] > '9')) /* the typed line's echo first */
            bg = strstr(bg + 3, "bg:");
        long bgpid = bg ? atol(bg + 3) : 0;
        CHECK(bgpid > 0);
        double t0 = now_s();
        while (bgpid > 0 && kill((pid_t)bgpid, 0) == 0 && now_s() - t0 < 5)
            sleep_ms(20);
        CHECK(bgpid > 0 && kill((pid_t)bgpid, 0) < 0);
        close(in[0]);
        close(out[0]);
        wait_end(f.l, "i1", 15, &st);
        CHECK_EQ(st.state, LOCAL_ENDED);
        CHECK_EQ(st.exit_code, 5);
        CHECK_STR(st.reason, "completed");
    }
    /* qsub killed: its connection closes, the shell is hung up, the job ends. */
    j = fx_job(&f, "i2", "/nonexistent");
    j.interactive = 1;
    j.env = "SHELL=/bin/sh\n";
    if (start_ok(&f, &j) == 0) {
        int master = inter_connect(&f, "i2", &conn);
        CHECK(master >= 0);
        if (master >= 0) {
            close(master);
            close(conn);
        }
        wait_end(f.l, "i2", 15, &st);
        CHECK_EQ(st.state, LOCAL_ENDED);
        CHECK(strcmp(st.reason, "cancelled") == 0 || strcmp(st.reason, "completed") == 0);
    }
    /* Cancelled while waiting for qsub: ended, with the reason. */
    j = fx_job(&f, "i3", "/nonexistent");
    j.interactive = 1;
    if (start_ok(&f, &j) == 0) {
        char sock[256];
        snprintf(sock, sizeof sock, "%s/i3/%s", f.spool, LOCAL_F_TTY);
        double t0 = now_s();
        while (access(sock, F_OK) != 0 && now_s() - t0 < 5)
            sleep_ms(20);
        CHECK_EQ(local_cancel(f.l, "i3", &e), 0);
        wait_end(f.l, "i3", 15, &st);
        CHECK_EQ(st.state, LOCAL_ENDED);
        CHECK_STR(st.reason, "cancelled");
        CHECK(strstr(st.message, "before qsub -I connected") != NULL);
        CHECK(access(sock, F_OK) != 0);
    }
    fx_close(&f);
}

/* As another user (nobody): root's connection is refused (not the owner),
 * the owner's gets a shell running as the user on the user's terminal. */
static void test_interactive_as_user(void)
{
    struct passwd *pw = getpwnam("nobody");
    if (geteuid() != 0 || !pw) {
        TEST_SKIP("test_interactive_as_user needs root and user nobody");
        return;
    }
    struct fx f;
    if (fx_open(&f) < 0)
        return;
    struct local_status st;
    struct local_job j = fx_job(&f, "iu", "/nonexistent");
    j.interactive = 1;
    j.user = "nobody";
    j.uid = pw->pw_uid;
    j.gid = pw->pw_gid;
    j.env = "SHELL=/bin/sh\n"; /* nobody's own is nologin */
    int conn = -1, out[2];
    CHECK(pipe(out) == 0);
    if (start_ok(&f, &j) == 0) {
        CHECK_EQ(inter_connect(&f, "iu", &conn), -1); /* root is not the job's owner */
        pid_t q = fork();
        if (q == 0) { /* the owner's qsub */
            int in[2];
            struct err e;
            const char *typed = "id -un; stat -c %U \"$(tty)\"; exit 9\n";
            if (setgid(pw->pw_gid) < 0 || setuid(pw->pw_uid) < 0 || pipe(in) < 0 ||
                write(in[1], typed, strlen(typed)) < 0)
                _exit(100);
            close(in[1]);
            int master = inter_connect(&f, "iu", &conn);
            if (master < 0)
                _exit(101);
            _exit(pty_relay(in[0], out[1], master, conn, &e));
        }
        close(out[1]);
        char text[2048] = "";
        size_t got = 0;
        ssize_t n;
        while (got < sizeof text - 1 && (n = read(out[0], text + got, sizeof text - 1 - got)) > 0)
            got += (size_t)n;
        text[got] = '\0';
        int qs;
        CHECK_EQ(waitpid(q, &qs, 0), q);
        CHECK(WIFEXITED(qs) && WEXITSTATUS(qs) == 9);
        CHECK(strstr(text, "nobody\r\nnobody") != NULL);
        wait_end(f.l, "iu", 15, &st);
        CHECK_EQ(st.state, LOCAL_ENDED);
        CHECK_EQ(st.exit_code, 9);
        char log[256], buf[4096];
        snprintf(log, sizeof log, "%s/iu/%s", f.spool, LOCAL_F_LOG);
        CHECK_HAS(slurp(log, buf, sizeof buf), "not the job's owner");
    } else {
        close(out[1]);
    }
    close(out[0]);
    fx_close(&f);
}

int main(void)
{
    if (access(MOKU_BIN, X_OK) < 0) {
        TEST_SKIP("the job tests: %s not built (run make from the repository root)", MOKU_BIN);
        TEST_RUN(test_host);
        return TEST_DONE();
    }
    TEST_RUN(test_basic_job);
    TEST_RUN(test_array_task);
    TEST_RUN(test_shebang);
    TEST_RUN(test_walltime);
    TEST_RUN(test_cancel);
    TEST_RUN(test_suspend_resume);
    TEST_RUN(test_walltime_suspended);
    TEST_RUN(test_restart);
    TEST_RUN(test_invalid);
    TEST_RUN(test_bad_cwd);
    TEST_RUN(test_supervisor_fails);
    TEST_RUN(test_run_as_user);
    TEST_RUN(test_limits);
    TEST_RUN(test_host);
    TEST_RUN(test_interactive);
    TEST_RUN(test_interactive_as_user);
    return TEST_DONE();
}
