/*
 * dtrig — standing reservations' TRIGGER actions in the daemon (SRCFG
 * TRIGGER=<event>[+<offset>];<action>@<data>, Admin Guide 7.1.5.2). The
 * engine keeps the timetable, fires the triggers and does `cancel` itself
 * (policy/trigger.c); after each iteration the daemon takes what fired:
 *
 *   exec@CMD    `/bin/sh -c CMD`, as the daemon's user (maui.cfg is the
 *               administrator's file; Maui runs trigger actions as itself),
 *               in the home directory, in a process group of its own, with
 *               stdin, stdout and stderr on /dev/null and the environment
 *               PATH, HOME, MOKU_HOME (so that it can call moku commands),
 *               MOKU_RESERVATION (the instance's id) and MOKU_EVENT
 *               (create, start, end). The loop never waits for it: its end
 *               is reaped after a SIGCHLD (dtrig_reap) and logged with its
 *               exit status. A command still running when the daemon stops
 *               is left to finish.
 *   submit@F    not supported: logged. (Maui submits the file as a job; moku
 *               would have to decide whose job it is and where its output
 *               goes, and does not yet.)
 *
 * Reaping is by pid, never waitpid(-1): the job supervisors are children
 * of the daemon too, and theirs are rm/local's to reap.
 */
#define _GNU_SOURCE /* close_range */

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "daemon/daemon_int.h"
#include "util/mem.h"

#define TRIG_NENV 5

/* The forked child: only async-signal-safe calls (the daemon may have
 * threads: SQLite). */
static void trig_child(const char *dir, int nullfd, char *const argv[], char *const envp[])
{
    struct sigaction sa = {.sa_handler = SIG_DFL};
    sigset_t none;
    setpgid(0, 0);
    if (dup2(nullfd, 0) < 0 || dup2(nullfd, 1) < 0 || dup2(nullfd, 2) < 0)
        _exit(127);
    if (close_range(3, ~0U, 0) < 0)
        for (int fd = 3; fd < 1024; fd++)
            close(fd);
    for (int sig = 1; sig < 65; sig++)
        sigaction(sig, &sa, NULL); /* SIGPIPE was ignored; fails harmlessly for KILL, STOP */
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    if (chdir(dir) < 0 && chdir("/") < 0)
        _exit(127);
    execve("/bin/sh", argv, envp);
    _exit(127);
}

/* Start `/bin/sh -c f->data`; its pid, or -1 with err. */
static pid_t trig_spawn(struct dmn *d, const struct sched_fired *f, struct err *err)
{
    const char *home = getenv("HOME");
    char *envp[TRIG_NENV + 1] = {
        xprintf("PATH=/usr/local/bin:/usr/bin:/bin"),
        xprintf("HOME=%s", home && *home ? home : "/"),
        xprintf("MOKU_HOME=%s", d->home),
        xprintf("MOKU_RESERVATION=%s", f->resv),
        xprintf("MOKU_EVENT=%s", f->event),
        NULL,
    };
    char *const argv[] = {"sh", "-c", f->data, NULL};
    pid_t pid = -1;
    int nullfd = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (nullfd < 0)
        err_set(err, "/dev/null: %s", strerror(errno));
    else if ((pid = fork()) == 0)
        trig_child(d->home, nullfd, argv, envp);
    else if (pid < 0)
        err_set(err, "cannot fork: %s", strerror(errno));
    else
        setpgid(pid, pid); /* also here, against the race with the child; may fail once it
                              has exec'd, harmlessly */
    if (nullfd >= 0)
        close(nullfd);
    for (int i = 0; i < TRIG_NENV; i++)
        free(envp[i]);
    return pid;
}

static void trig_exec(struct dmn *d, const struct sched_fired *f)
{
    struct err e;
    char *what = xprintf("reservation %s %s trigger", f->resv, f->event);
    pid_t pid = trig_spawn(d, f, &e);
    if (pid < 0) {
        dlog(d->log, 0, "%s: exec@%s not run: %s", what, f->data, e.msg);
        free(what);
        return;
    }
    dlog(d->log, 1, "%s: exec@%s (pid %ld)", what, f->data, (long)pid);
    dtrig_watch(d, pid, what);
}

void dtrig_run(struct dmn *d)
{
    struct sched_fired f;
    while (sched_pop_fired(d->s, &f)) {
        if (f.submit)
            dlog(d->log, 0,
                 "reservation %s %s trigger: submit@%s: trigger submit action not "
                 "supported; nothing submitted",
                 f.resv, f.event, f.data);
        else
            trig_exec(d, &f);
        sched_fired_free(&f);
    }
}

void dtrig_watch(struct dmn *d, pid_t pid, char *what)
{
    d->tkids = xgrow(d->tkids, &d->captkids, d->ntkids + 1, sizeof *d->tkids);
    d->tkids[d->ntkids++] = (struct dtrig_kid){pid, what};
}

void dtrig_reap(struct dmn *d)
{
    for (size_t i = d->ntkids; i-- > 0;) {
        struct dtrig_kid *k = &d->tkids[i];
        int st = 0;
        pid_t r;
        do
            r = waitpid(k->pid, &st, WNOHANG);
        while (r < 0 && errno == EINTR);
        if (r == 0)
            continue; /* still running */
        if (r < 0)
            dlog(d->log, 0, "%s: pid %ld ended, status unknown (%s)", k->what, (long)k->pid,
                 strerror(errno));
        else if (WIFEXITED(st))
            dlog(d->log, WEXITSTATUS(st) ? 0 : 1, "%s: pid %ld exited with status %d", k->what,
                 (long)k->pid, WEXITSTATUS(st));
        else
            dlog(d->log, 0, "%s: pid %ld killed by signal %d", k->what, (long)k->pid,
                 WIFSIGNALED(st) ? WTERMSIG(st) : 0);
        free(k->what);
        *k = d->tkids[--d->ntkids];
    }
}

void dtrig_free(struct dmn *d)
{
    for (size_t i = 0; i < d->ntkids; i++)
        free(d->tkids[i].what);
    free(d->tkids);
    d->tkids = NULL;
    d->ntkids = d->captkids = 0;
}
