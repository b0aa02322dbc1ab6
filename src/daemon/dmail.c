/*
 * dmail — job mail (qsub -m, -M), as Torque sends it: when a job begins
 * (b), ends (e), is aborted by the batch system (a: its start failed, it was
 * killed at its walltime or lost) or ends with a non-zero exit status (f).
 * Without -m a job gets mail when it is aborted (Torque's default, "a");
 * -m n sends none. The recipients are -M's list, else the job's owner (a
 * local address).
 *
 * The mail goes through the local sendmail interface: MAILPROGRAM (default
 * /usr/sbin/sendmail; NONE sends nothing) is executed directly, with the
 * argument -t (recipients from the To: header) and the message on its
 * standard input, as the daemon's user, with stdout and stderr on
 * /dev/null. No shell and no command line built from the job: the
 * addresses were checked at submission (cmd/qsub.c: letters, digits and
 * ._%+=- around one '@', no blank or control character), so a header
 * cannot be forged. The daemon never waits for it; it is reaped with the
 * trigger commands (dtrig_watch) and its exit status logged.
 */
#define _GNU_SOURCE /* close_range, pipe2 */

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cfg/cfg.h"
#include "daemon/daemon_int.h"
#include "util/mem.h"

/* Torque's default when -m is not given: mail when the job is aborted. */
#define DMAIL_DEFAULT "a"

static const char *const event_letter = "bea"; /* indexed by enum dmail_event */

/* Whether the job's -m letters ask for mail at ev (f: an end with a
 * non-zero exit status). */
static int wanted(const struct djob *dj, enum dmail_event ev)
{
    const char *m = dj->rec.mail_events ? dj->rec.mail_events : DMAIL_DEFAULT;
    if (strchr(m, 'n'))
        return 0;
    if (strchr(m, event_letter[ev]))
        return 1;
    if (ev == DMAIL_ABORT && strchr(m, 'e'))
        return 1; /* an abort is an end too */
    return ev != DMAIL_BEGIN && strchr(m, 'f') && dj->rec.exit_status != 0;
}

/* The message: headers, a blank line, the body. Caller frees. */
static char *compose(const struct djob *dj, enum dmail_event ev, const char *detail)
{
    static const char *const what[] = {"Begun execution", "Execution terminated",
                                       "Aborted by the batch system"};
    const struct store_job *r = &dj->rec;
    char status[64] = "";
    if (ev != DMAIL_BEGIN && r->exit_status >= 0)
        snprintf(status, sizeof status, "Exit_status=%d\n", r->exit_status);
    return xprintf("To: %s\n"
                   "Subject: moku job %ld (%s): %s\n"
                   "Auto-Submitted: auto-generated\n"
                   "\n"
                   "Job Id:    %ld\n"
                   "Job Name:  %s\n"
                   "Owner:     %s\n"
                   "Exec host: %s\n"
                   "%s\n"
                   "%s%s%s",
                   r->mail_users ? r->mail_users : r->user, r->id, r->name ? r->name : "STDIN",
                   what[ev], r->id, r->name ? r->name : "STDIN", r->user,
                   r->hosts ? r->hosts : "(none)", what[ev], status, detail ? detail : "",
                   detail ? "\n" : "");
}

/* The forked child: only async-signal-safe calls (the daemon may have
 * threads: SQLite). */
static void mail_child(const char *prog, int in, int nullfd)
{
    static char *const envp[] = {"PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin", NULL};
    char *const argv[] = {(char *)prog, "-t", NULL};
    struct sigaction sa = {.sa_handler = SIG_DFL};
    sigset_t none;
    setpgid(0, 0);
    if (dup2(in, 0) < 0 || dup2(nullfd, 1) < 0 || dup2(nullfd, 2) < 0)
        _exit(127);
    if (close_range(3, ~0U, 0) < 0)
        for (int fd = 3; fd < 1024; fd++)
            close(fd);
    for (int sig = 1; sig < 65; sig++)
        sigaction(sig, &sa, NULL);
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    if (chdir("/") < 0)
        _exit(127);
    execve(prog, argv, envp);
    _exit(127);
}

/* Start prog with text on its standard input; its pid, or -1 with err. The
 * text is written whole before this returns: it is far smaller than a pipe
 * holds, so the write cannot wait for the child. */
static pid_t spawn(const char *prog, const char *text, struct err *err)
{
    int p[2];
    int nullfd = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (nullfd < 0)
        return err_set(err, "/dev/null: %s", strerror(errno));
    if (pipe2(p, O_CLOEXEC) < 0) {
        close(nullfd);
        return err_set(err, "pipe: %s", strerror(errno));
    }
    fcntl(p[1], F_SETFL, O_NONBLOCK);
    pid_t pid = fork();
    if (pid == 0)
        mail_child(prog, p[0], nullfd);
    int e = errno;
    close(p[0]);
    close(nullfd);
    if (pid < 0) {
        close(p[1]);
        return err_set(err, "cannot fork: %s", strerror(e));
    }
    size_t len = strlen(text);
    ssize_t w = write(p[1], text, len);
    close(p[1]);
    if (w != (ssize_t)len)
        err_set(err, "the message was cut (%zd of %zu bytes written)", w, len);
    return pid;
}

void dmail_job(struct dmn *d, const struct djob *dj, enum dmail_event ev, const char *detail)
{
    if (!wanted(dj, ev))
        return;
    const char *prog = cfg_str(d->cfg, "MAILPROGRAM", NULL);
    int asked = dj->rec.mail_events != NULL; /* not Torque's default alone */
    if (!prog || strcasecmp(prog, "NONE") == 0)
        return;
    if (prog[0] != '/' || access(prog, X_OK) < 0) {
        dlog(d->log, asked ? 1 : 2, "job %ld: mail not sent: MAILPROGRAM %s: %s", dj->rec.id, prog,
             prog[0] != '/' ? "not an absolute path" : strerror(errno));
        return;
    }
    char *text = compose(dj, ev, detail);
    struct err e = {{0}};
    pid_t pid = spawn(prog, text, &e);
    free(text);
    if (pid < 0) {
        dlog(d->log, 0, "job %ld: mail not sent: %s", dj->rec.id, e.msg);
        return;
    }
    if (e.msg[0])
        dlog(d->log, 0, "job %ld: mail: %s", dj->rec.id, e.msg);
    char *what = xprintf("job %ld mail (%c) to %s", dj->rec.id, event_letter[ev],
                         dj->rec.mail_users ? dj->rec.mail_users : dj->rec.user);
    dlog(d->log, 1, "%s: %s -t (pid %ld)", what, prog, (long)pid);
    dtrig_watch(d, pid, what);
}
