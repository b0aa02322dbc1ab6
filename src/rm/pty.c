/*
 * pty — an interactive job's terminal: opened by the supervisor for the
 * job's user, attached to the shell, handed to qsub, relayed by qsub (see
 * pty.h for the whole design).
 */
#define _GNU_SOURCE /* SO_PEERCRED, struct ucred, ptsname_r */

#include "rm/pty.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#define DRAIN_MS 200 /* what the shell wrote last, read after the supervisor's word */

int pty_open(uid_t owner, int *master, int *slave, struct err *err)
{
    char name[64];
    int m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (m < 0)
        return err_set(err, "cannot open a pseudo-terminal: %s", strerror(errno));
    if (grantpt(m) < 0 || unlockpt(m) < 0 || ptsname_r(m, name, sizeof name) != 0) {
        int e = errno;
        close(m);
        return err_set(err, "cannot prepare a pseudo-terminal: %s", strerror(e));
    }
    int s = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (s < 0) {
        int e = errno;
        close(m);
        return err_set(err, "%s: %s", name, strerror(e));
    }
    /* The user's own terminal, as login(1) leaves it: other users may only
     * write(1) to it through group tty, and nobody but the user reads it. */
    struct group *tty = getgrnam("tty");
    gid_t gid = tty ? tty->gr_gid : (gid_t)-1;
    if (fchown(s, owner, gid) < 0 || fchmod(s, 0620) < 0) {
        int e = errno;
        close(s);
        close(m);
        return err_set(err, "%s: cannot give it to uid %ld: %s", name, (long)owner, strerror(e));
    }
    *master = m;
    *slave = s;
    return 0;
}

int pty_attach(int slave)
{
    if (setsid() < 0 || ioctl(slave, TIOCSCTTY, 0) < 0)
        return -1;
    for (int fd = 0; fd < 3; fd++)
        if (dup2(slave, fd) < 0)
            return -1;
    if (slave > 2)
        close(slave);
    return 0;
}

int pty_peer_uid(int sock, uid_t *uid, struct err *err)
{
    struct ucred cr;
    socklen_t len = sizeof cr;
    if (getsockopt(sock, SOL_SOCKET, SO_PEERCRED, &cr, &len) < 0)
        return err_set(err, "cannot tell who is at the other end: %s", strerror(errno));
    *uid = cr.uid;
    return 0;
}

int pty_listen(const char *path, uid_t owner, struct err *err)
{
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof a.sun_path)
        return err_set(err, "%s: too long for a unix socket's name", path);
    memcpy(a.sun_path, path, strlen(path) + 1);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
        return err_set(err, "socket: %s", strerror(errno));
    /* Bound 0600 from the start (umask), then given to the owner: nobody
     * else can connect between the bind and the chown. */
    mode_t old = umask(0177);
    int rc = bind(fd, (struct sockaddr *)&a, sizeof a);
    umask(old);
    if (rc < 0 || chown(path, owner, (gid_t)-1) < 0 || listen(fd, 4) < 0) {
        int e = errno;
        close(fd);
        if (rc == 0)
            unlink(path);
        return err_set(err, "%s: %s", path, strerror(e));
    }
    return fd;
}

int pty_accept_owner(int lfd, uid_t owner, struct err *err)
{
    int c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
    if (c < 0)
        return err_set(err, "accept: %s", strerror(errno));
    uid_t uid = (uid_t)-1; /* no user: set by pty_peer_uid on success */
    if (pty_peer_uid(c, &uid, err) < 0) {
        close(c);
        return -1;
    }
    if (uid != owner) {
        close(c);
        return err_set(err, "a connection of uid %ld, not the job's owner (uid %ld): refused",
                       (long)uid, (long)owner);
    }
    return c;
}

int pty_send_fd(int sock, int fd, const char *msg, size_t len, struct err *err)
{
    union {
        char buf[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } u;
    struct iovec iov = {.iov_base = (void *)msg, .iov_len = len};
    struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
    memset(&u, 0, sizeof u);
    mh.msg_control = u.buf;
    mh.msg_controllen = sizeof u.buf;
    struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &fd, sizeof fd);
    ssize_t n;
    do
        n = sendmsg(sock, &mh, MSG_NOSIGNAL);
    while (n < 0 && errno == EINTR);
    if (n != (ssize_t)len)
        return err_set(err, "cannot hand the terminal over: %s",
                       n < 0 ? strerror(errno) : "short write");
    return 0;
}

ssize_t pty_recv_fd(int sock, int *fd, char *msg, size_t cap, struct err *err)
{
    union {
        char buf[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } u;
    struct iovec iov = {.iov_base = msg, .iov_len = cap - 1};
    struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
    mh.msg_control = u.buf;
    mh.msg_controllen = sizeof u.buf;
    *fd = -1;
    ssize_t n;
    do
        n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
    while (n < 0 && errno == EINTR);
    if (n < 0)
        return err_set(err, "cannot receive the terminal: %s", strerror(errno));
    msg[n] = '\0';
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
            c->cmsg_len == CMSG_LEN(sizeof(int)))
            memcpy(fd, CMSG_DATA(c), sizeof *fd);
    if (mh.msg_flags & MSG_CTRUNC) { /* more descriptors than one: not ours */
        if (*fd >= 0)
            close(*fd);
        *fd = -1;
        return err_set(err, "cannot receive the terminal: unexpected descriptors");
    }
    return n;
}

int pty_raw(int tty, struct termios *saved, struct err *err)
{
    struct termios t;
    if (tcgetattr(tty, saved) < 0)
        return err_set(err, "cannot read the terminal's settings: %s", strerror(errno));
    t = *saved;
    cfmakeraw(&t);
    if (tcsetattr(tty, TCSADRAIN, &t) < 0)
        return err_set(err, "cannot put the terminal in raw mode: %s", strerror(errno));
    return 0;
}

void pty_restore(int tty, const struct termios *saved)
{
    tcsetattr(tty, TCSADRAIN, saved);
}

int pty_copy_winsize(int from, int to, struct err *err)
{
    struct winsize ws;
    if (ioctl(from, TIOCGWINSZ, &ws) < 0)
        return 0;
    if (ioctl(to, TIOCSWINSZ, &ws) < 0)
        return err_set(err, "cannot set the window size: %s", strerror(errno));
    return 0;
}

/* All of buf to fd. A write to the master blocks only while the shell's
 * input queue is full, which the shell empties by reading. */
static int write_all(int fd, const char *buf, size_t len)
{
    while (len) {
        ssize_t n = write(fd, buf, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        buf += n;
        len -= (size_t)n;
    }
    return 0;
}

/* The relay's state: which ends are still open, the status line so far. */
struct relay {
    int in, out, master, ctl, sig;
    char line[PTY_STATUS_MAX];
    size_t nline;
    int status; /* -1 until the supervisor said it */
};

/* One read from the master to out; 0 once the shell's side is closed (EIO:
 * no process holds the slave any more). */
static int relay_master(struct relay *r)
{
    char buf[4096];
    ssize_t n = read(r->master, buf, sizeof buf);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return 1;
    if (n <= 0)
        return 0;
    write_all(r->out, buf, (size_t)n); /* a closed out (qsub's terminal gone) loses output only */
    return 1;
}

/* One read from in to the master; 0 at in's end. */
static int relay_in(struct relay *r)
{
    char buf[4096];
    ssize_t n = read(r->in, buf, sizeof buf);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return 1;
    if (n <= 0)
        return 0;
    return write_all(r->master, buf, (size_t)n) < 0 ? 0 : 1;
}

/* The supervisor's words: "exit N\n", then its end. 0 at its end. */
static int relay_ctl(struct relay *r)
{
    ssize_t n = read(r->ctl, r->line + r->nline, sizeof r->line - 1 - r->nline);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return 1;
    if (n <= 0)
        return 0;
    r->nline += (size_t)n;
    r->line[r->nline] = '\0';
    char *end;
    if (strchr(r->line, '\n') && strncmp(r->line, "exit ", 5) == 0) {
        long v = strtol(r->line + 5, &end, 10);
        if (*end == '\n' && v >= 0 && v < 1000)
            r->status = (int)v;
    }
    if (r->nline == sizeof r->line - 1) /* a line that long is none of ours */
        return 0;
    return 1;
}

static void relay_winch(struct relay *r)
{
    struct signalfd_siginfo si;
    while (read(r->sig, &si, sizeof si) == (ssize_t)sizeof si)
        pty_copy_winsize(r->in, r->master, NULL);
}

/* What the shell wrote before the supervisor's word came, up to DRAIN_MS. */
static void relay_drain(struct relay *r)
{
    struct pollfd p = {.fd = r->master, .events = POLLIN};
    while (r->master >= 0 && poll(&p, 1, DRAIN_MS) > 0 && relay_master(r))
        ;
}

int pty_relay(int in, int out, int master, int ctl, struct err *err)
{
    struct relay r = {.in = in, .out = out, .master = master, .ctl = ctl, .status = -1};
    sigset_t winch, old;
    sigemptyset(&winch);
    sigaddset(&winch, SIGWINCH);
    sigprocmask(SIG_BLOCK, &winch, &old);
    r.sig = signalfd(-1, &winch, SFD_CLOEXEC | SFD_NONBLOCK);
    pty_copy_winsize(in, master, NULL);
    while (r.ctl >= 0) {
        struct pollfd p[4] = {{.fd = r.in, .events = POLLIN},
                              {.fd = r.master, .events = POLLIN},
                              {.fd = r.ctl, .events = POLLIN},
                              {.fd = r.sig, .events = POLLIN}};
        if (poll(p, 4, -1) < 0 && errno != EINTR)
            break;
        if (p[3].revents)
            relay_winch(&r);
        if (p[1].revents && !relay_master(&r))
            r.master = -1; /* the shell is gone; its status comes on ctl */
        if (p[0].revents && !relay_in(&r))
            r.in = -1;
        if (p[2].revents && !relay_ctl(&r))
            r.ctl = -1;
    }
    relay_drain(&r);
    if (r.sig >= 0)
        close(r.sig);
    sigprocmask(SIG_SETMASK, &old, NULL);
    if (r.status < 0)
        return err_set(err, "the job's supervisor went without the shell's exit status");
    return r.status;
}
