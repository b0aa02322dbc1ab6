/*
 * jobfile — a job's working directory and output files, opened as its user
 * without trusting names another user may have made (see jobfile.h).
 *
 * Directories are walked one name at a time from "/" with openat and
 * O_NOFOLLOW, so that every symbolic link in the path as given is seen and
 * judged before it is followed (the kernel follows what its target names).
 * Files are opened without O_TRUNC, judged on the descriptor (fstat), and
 * only then emptied: a file that is refused has not been changed.
 */
#define _GNU_SOURCE /* O_PATH */

#include "rm/jobfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int say(char *why, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int say(char *why, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, JOBFILE_WHY_MAX, fmt, ap);
    va_end(ap);
    return -1;
}

/* Whether entry st of directory dir may have been put there by another user:
 * the kernel's rule for sticky directories (protected_symlinks,
 * protected_regular), which holds whatever the sysctls say. */
static int planted(const struct stat *st, const struct stat *dir, uid_t uid)
{
    return (dir->st_mode & S_ISVTX) && st->st_uid != uid && st->st_uid != 0 &&
           st->st_uid != dir->st_uid;
}

/* From directory cur, the directory named by the n bytes at name (a part of
 * path, which is shown up to it): a directory, or a symbolic link that is
 * not planted, followed. */
static int step(int cur, const char *path, const char *name, size_t n, uid_t uid, char *why)
{
    char comp[NAME_MAX + 1];
    int shown = (int)(name - path + (ptrdiff_t)n);
    struct stat dst, lst;
    if (n > NAME_MAX)
        return say(why, "%.*s: %s", shown, path, strerror(ENAMETOOLONG));
    memcpy(comp, name, n);
    comp[n] = '\0';
    int l = openat(cur, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
    if (l < 0)
        return say(why, "%.*s: %s", shown, path, strerror(errno));
    if (fstat(cur, &dst) < 0 || fstat(l, &lst) < 0) {
        int e = errno;
        close(l);
        return say(why, "%.*s: %s", shown, path, strerror(e));
    }
    if (S_ISDIR(lst.st_mode))
        return l;
    close(l);
    if (!S_ISLNK(lst.st_mode))
        return say(why, "%.*s: not a directory", shown, path);
    if (planted(&lst, &dst, uid))
        return say(why,
                   "%.*s: a symbolic link of another user's (uid %ld) in a sticky directory: "
                   "not followed",
                   shown, path, (long)lst.st_uid);
    int next = openat(cur, comp, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (next < 0)
        return say(why, "%.*s: %s", shown, path, strerror(errno));
    return next;
}

/* The directory reached must not be planted in the directory that really
 * holds it (after the links followed). */
static int check_reached(int fd, const char *path, uid_t uid, char *why)
{
    struct stat st, pst;
    int par = openat(fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (par < 0 || fstat(fd, &st) < 0 || fstat(par, &pst) < 0) {
        int e = errno;
        if (par >= 0)
            close(par);
        return say(why, "%s: %s", path, strerror(e));
    }
    close(par);
    if (planted(&st, &pst, uid))
        return say(why,
                   "%s: a directory of another user's (uid %ld) in a sticky directory: not used "
                   "(it may have been put there for this job)",
                   path, (long)st.st_uid);
    return 0;
}

int jobfile_open_dir(const char *path, uid_t uid, char *why)
{
    if (path[0] != '/')
        return say(why, "%s: not an absolute path", path);
    int cur = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (cur < 0)
        return say(why, "/: %s", strerror(errno));
    for (const char *p = path;;) {
        while (*p == '/')
            p++;
        size_t n = strcspn(p, "/");
        if (n == 0)
            break;
        int next = step(cur, path, p, n, uid, why);
        close(cur);
        if (next < 0)
            return -1;
        cur = next;
        p += n;
    }
    if (check_reached(cur, path, uid, why) < 0) {
        close(cur);
        return -1;
    }
    return cur;
}

/* What is wrong with the file just opened (st) for the job, or NULL. */
static const char *file_fault(const struct stat *st, uid_t uid, int append, char *buf, size_t len)
{
    if (S_ISREG(st->st_mode)) {
        if (st->st_uid != uid)
            snprintf(buf, len, "exists and belongs to another user (uid %ld)", (long)st->st_uid);
        else if (st->st_nlink != 1)
            snprintf(buf, len, "has %lu hard links (another of its names may not be the job's)",
                     (unsigned long)st->st_nlink);
        else
            return NULL;
        return buf;
    }
    if (append)
        return "not a regular file";
    if (S_ISCHR(st->st_mode) && (st->st_uid == uid || st->st_uid == 0))
        return NULL; /* /dev/null */
    if (S_ISFIFO(st->st_mode) && st->st_uid == uid)
        return NULL;
    snprintf(buf, len, "a %s of uid %ld", S_ISCHR(st->st_mode) ? "device" : "special file",
             (long)st->st_uid);
    return buf;
}

/* Why openat failed, for a file named shown (NULL: the path asked for,
 * which the caller names); -2 for a directory, which the caller may take as
 * Torque's -o DIR. */
static int open_failed(int e, int dfd, const char *name, const char *shown, uid_t uid, char *why)
{
    char msg[JOBFILE_WHY_MAX - 64];
    struct stat st;
    /* A link in a sticky directory may give EACCES before ELOOP (O_CREAT
     * looks at its target): what is there says which. */
    int there = (e == ELOOP || e == EACCES) && fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
    if (there && S_ISLNK(st.st_mode))
        snprintf(msg, sizeof msg, "a symbolic link: a job's file is never written through one");
    else if (e == ENXIO)
        snprintf(msg, sizeof msg, "a FIFO that no one reads");
    else if (there && st.st_uid != uid)
        snprintf(msg, sizeof msg, "exists and belongs to another user (uid %ld): not used",
                 (long)st.st_uid);
    else
        snprintf(msg, sizeof msg, "%s", strerror(e));
    say(why, "%s%s%s", shown ? shown : "", shown ? ": " : "", msg);
    return e == EISDIR ? -2 : -1;
}

/* Open name in directory dfd (shown as shown, see open_failed): see
 * jobfile_open_out. */
static int open_in(int dfd, const char *name, const char *shown, uid_t uid, int append, char *why)
{
    char buf[128];
    struct stat st;
    int flags = O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
    int fd = openat(dfd, name, flags | (append ? O_APPEND : O_CREAT), 0600);
    if (fd < 0)
        return open_failed(errno, dfd, name, shown, uid, why);
    const char *bad =
        fstat(fd, &st) < 0 ? strerror(errno) : file_fault(&st, uid, append, buf, sizeof buf);
    if (!bad && !append &&
        ((S_ISREG(st.st_mode) && ftruncate(fd, 0) < 0) ||
         fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) < 0))
        bad = strerror(errno);
    if (bad) {
        close(fd);
        return say(why, "%s%s%s: not used, not written, not truncated", shown ? shown : "",
                   shown ? ": " : "", bad);
    }
    return fd;
}

/* path split at its last '/' into its directory (dir[PATH_MAX]) and name. */
static int split(const char *path, char *dir, const char **name, char *why)
{
    const char *slash = strrchr(path, '/');
    if (path[0] != '/' || !slash[1])
        return say(why, "%s: not an absolute path of a file", path);
    size_t n = slash == path ? 1 : (size_t)(slash - path);
    if (n >= PATH_MAX)
        return say(why, "%s: %s", path, strerror(ENAMETOOLONG));
    memcpy(dir, path, n);
    dir[n] = '\0';
    *name = slash + 1;
    return 0;
}

static int open_file(const char *path, const char *dir_name, uid_t uid, int append, char *why)
{
    char dir[PATH_MAX], shown[PATH_MAX + NAME_MAX + 2];
    const char *name = NULL;
    size_t n = strlen(path);
    int dfd, fd = -2;
    if (n > 1 && path[n - 1] == '/' && dir_name) {
        /* DIR/: a directory by its name, the file in it below */
    } else {
        if (split(path, dir, &name, why) < 0)
            return -1;
        if ((dfd = jobfile_open_dir(dir, uid, why)) < 0)
            return -1;
        fd = open_in(dfd, name, NULL, uid, append, why);
        close(dfd);
        if (fd != -2 || !dir_name)
            return fd < 0 ? -1 : fd;
    }
    /* Torque's -o DIR: the file of the default name in it. */
    if ((dfd = jobfile_open_dir(path, uid, why)) < 0)
        return -1;
    snprintf(shown, sizeof shown, "%s%s%s", path, path[n - 1] == '/' ? "" : "/", dir_name);
    fd = open_in(dfd, dir_name, shown, uid, append, why);
    close(dfd);
    return fd < 0 ? -1 : fd;
}

int jobfile_open_out(const char *path, const char *dir_name, uid_t uid, char *why)
{
    return open_file(path, dir_name, uid, 0, why);
}

int jobfile_open_append(const char *path, const char *dir_name, uid_t uid, char *why)
{
    return open_file(path, dir_name, uid, 1, why);
}
