/*
 * Tests of jobfile: a job's directory and files opened as its user, never
 * through a planted link nor into another user's file (issue 28). The job's
 * user is the test's own uid; "another user's" entries are made with chown,
 * so those cases need root (make check runs as root; otherwise they are
 * reported as skipped). tests/integration/jobfiles.sh does the same with
 * real users and a real daemon.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rm/jobfile.h"
#include "test.h"

#define OTHER 4242 /* another user's uid (no account needed) */

static char base[64];
static uid_t me;

static void path_of(char *buf, const char *name)
{
    snprintf(buf, PATH_MAX, "%s/%s", base, name);
}

static void put(const char *name, const char *text, mode_t mode)
{
    char p[PATH_MAX];
    path_of(p, name);
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, mode);
    CHECK(fd >= 0);
    if (fd >= 0) {
        CHECK(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
        close(fd);
    }
    chmod(p, mode);
}

static const char *get(const char *name, char *buf, size_t len)
{
    char p[PATH_MAX];
    path_of(p, name);
    buf[0] = '\0';
    int fd = open(p, O_RDONLY);
    if (fd < 0)
        return NULL;
    ssize_t n = read(fd, buf, len - 1);
    close(fd);
    buf[n > 0 ? n : 0] = '\0';
    return buf;
}

static void mkdir_in(const char *name, mode_t mode)
{
    char p[PATH_MAX];
    path_of(p, name);
    CHECK(mkdir(p, mode) == 0);
    chmod(p, mode);
}

static int give(const char *name, uid_t uid)
{
    char p[PATH_MAX];
    path_of(p, name);
    return lchown(p, uid, (gid_t)-1);
}

static int open_out(const char *name, const char *dir_name, char *why)
{
    char p[PATH_MAX];
    path_of(p, name);
    return jobfile_open_out(p, dir_name, me, why);
}

/* A new file is created 0600; an existing one of the user's is emptied. */
static void test_own_files(void)
{
    char why[JOBFILE_WHY_MAX], buf[64], p[PATH_MAX];
    struct stat st;
    int fd = open_out("new.out", NULL, why);
    CHECK(fd >= 0);
    path_of(p, "new.out");
    CHECK(stat(p, &st) == 0 && (st.st_mode & 07777) == 0600 && st.st_uid == me);
    CHECK(write(fd, "x", 1) == 1);
    close(fd);
    put("old.out", "previous run\n", 0644);
    fd = open_out("old.out", NULL, why);
    CHECK(fd >= 0);
    close(fd);
    CHECK_STR(get("old.out", buf, sizeof buf), "");
    /* /dev/null is root's device: Torque's usual -o /dev/null. */
    fd = jobfile_open_out("/dev/null", NULL, me, why);
    CHECK(fd >= 0);
    if (fd >= 0)
        close(fd);
    /* Appending (the walltime line) keeps what is there. */
    put("app.out", "job output\n", 0600);
    path_of(p, "app.out");
    fd = jobfile_open_append(p, NULL, me, why);
    CHECK(fd >= 0 && write(fd, "=>> end\n", 8) == 8);
    if (fd >= 0)
        close(fd);
    CHECK_STR(get("app.out", buf, sizeof buf), "job output\n=>> end\n");
    CHECK(jobfile_open_append("/dev/null", NULL, me, why) < 0);
    CHECK_HAS(why, "not a regular file");
    path_of(p, "missing.out");
    CHECK(jobfile_open_append(p, NULL, me, why) < 0);
    CHECK(stat(p, &st) < 0); /* never created */
}

/* A symbolic link as the file is never followed: its target stays as it was. */
static void test_symlink_refused(void)
{
    char why[JOBFILE_WHY_MAX], buf[64], p[PATH_MAX], t[PATH_MAX];
    put("victim.txt", "precious\n", 0600);
    path_of(p, "link.out");
    path_of(t, "victim.txt");
    CHECK(symlink(t, p) == 0);
    CHECK(open_out("link.out", NULL, why) < 0);
    CHECK_HAS(why, "a symbolic link: a job's file is never written through one");
    CHECK_STR(get("victim.txt", buf, sizeof buf), "precious\n");
    /* A dangling one is not followed to create its target either. */
    path_of(p, "dangle.out");
    path_of(t, "created-through-link");
    CHECK(symlink(t, p) == 0);
    CHECK(open_out("dangle.out", NULL, why) < 0);
    CHECK(access(t, F_OK) < 0);
}

/* A file with a second name (a hard link another user made) is refused. */
static void test_hard_link_refused(void)
{
    char why[JOBFILE_WHY_MAX], buf[64], p[PATH_MAX], t[PATH_MAX];
    put("mine.txt", "keep\n", 0600);
    path_of(t, "mine.txt");
    path_of(p, "hard.out");
    CHECK(link(t, p) == 0);
    CHECK(open_out("hard.out", NULL, why) < 0);
    CHECK_HAS(why, "has 2 hard links");
    CHECK_HAS(why, "not truncated");
    CHECK_STR(get("mine.txt", buf, sizeof buf), "keep\n");
}

/* Another user's file, even one anyone may write, is not written, not
 * truncated (and never read). */
static void test_others_file_refused(void)
{
    char why[JOBFILE_WHY_MAX], buf[64];
    put("planted.out", "planter's\n", 0666);
    if (give("planted.out", OTHER) < 0) {
        printf("t_jobfile: skipped another user's file (chown needs root)\n");
        return;
    }
    CHECK(open_out("planted.out", NULL, why) < 0);
    CHECK_HAS(why, "exists and belongs to another user (uid 4242)");
    CHECK_STR(get("planted.out", buf, sizeof buf), "planter's\n");
}

/* Directories: a planted directory in a sticky one, a planted link on the
 * way, are refused; the user's own, root's, or one in a directory that is
 * not sticky are used. */
static void test_directories(void)
{
    char why[JOBFILE_WHY_MAX], p[PATH_MAX], t[PATH_MAX];
    mkdir_in("sticky", 01777);
    mkdir_in("sticky/mine", 0755);
    mkdir_in("plain", 0777);
    mkdir_in("plain/theirs", 0777);
    path_of(p, "sticky/mine");
    int fd = jobfile_open_dir(p, me, why);
    CHECK(fd >= 0);
    if (fd >= 0)
        close(fd);
    fd = jobfile_open_dir("/tmp", me, why); /* root's, sticky itself */
    CHECK(fd >= 0);
    if (fd >= 0)
        close(fd);
    path_of(p, "sticky/mine/x");
    CHECK(jobfile_open_dir(p, me, why) < 0);
    CHECK_HAS(why, "No such file or directory");
    if (give("plain/theirs", OTHER) < 0) {
        printf("t_jobfile: skipped other users' directories (chown needs root)\n");
        return;
    }
    mkdir_in("sticky/planted", 0777);
    give("sticky/planted", OTHER);
    path_of(p, "sticky/planted");
    CHECK(jobfile_open_dir(p, me, why) < 0);
    CHECK_HAS(why, "a directory of another user's (uid 4242) in a sticky directory: not used");
    /* ... also as the directory a file goes in: nothing is created there. */
    CHECK(open_out("sticky/planted/x.out", NULL, why) < 0);
    path_of(p, "sticky/planted/x.out");
    CHECK(access(p, F_OK) < 0);
    /* Not sticky: its owner is trusted with it, as the kernel's rule does. */
    path_of(p, "plain/theirs");
    fd = jobfile_open_dir(p, me, why);
    CHECK(fd >= 0);
    if (fd >= 0)
        close(fd);
    /* A link planted in the sticky directory, pointing to a directory of
     * the planter's: not followed, as the last name or on the way. */
    path_of(p, "sticky/work");
    path_of(t, "plain/theirs");
    CHECK(symlink(t, p) == 0);
    give("sticky/work", OTHER);
    CHECK(jobfile_open_dir(p, me, why) < 0);
    CHECK_HAS(why, "sticky/work: a symbolic link of another user's (uid 4242)");
    CHECK(open_out("sticky/work/x.out", NULL, why) < 0);
    path_of(p, "plain/theirs/x.out");
    CHECK(access(p, F_OK) < 0);
    /* The user's own link there is followed. */
    path_of(p, "sticky/mylink");
    path_of(t, "sticky/mine");
    CHECK(symlink(t, p) == 0);
    fd = jobfile_open_dir(p, me, why);
    CHECK(fd >= 0);
    if (fd >= 0)
        close(fd);
}

/* Torque's -o DIR: the file of the default name in it, by the same rules. */
static void test_output_directory(void)
{
    char why[JOBFILE_WHY_MAX], p[PATH_MAX], buf[64];
    struct stat st;
    mkdir_in("outdir", 0755);
    int fd = open_out("outdir", "job.o12", why);
    CHECK(fd >= 0);
    if (fd >= 0)
        close(fd);
    path_of(p, "outdir/job.o12");
    CHECK(stat(p, &st) == 0 && S_ISREG(st.st_mode));
    CHECK(open_out("outdir", NULL, why) < 0); /* no default name: a directory is an error */
    CHECK_HAS(why, "Is a directory");
    put("outdir/job.o13", "theirs\n", 0666);
    if (give("outdir/job.o13", OTHER) == 0) {
        CHECK(open_out("outdir", "job.o13", why) < 0);
        CHECK_HAS(why, "outdir/job.o13: exists and belongs to another user");
        CHECK_STR(get("outdir/job.o13", buf, sizeof buf), "theirs\n");
    }
}

int main(void)
{
    snprintf(base, sizeof base, "/tmp/t_jobfile_XXXXXX");
    if (!mkdtemp(base)) {
        perror("mkdtemp");
        return 1;
    }
    chmod(base, 0755);
    me = getuid();
    TEST_RUN(test_own_files);
    TEST_RUN(test_symlink_refused);
    TEST_RUN(test_hard_link_refused);
    TEST_RUN(test_others_file_refused);
    TEST_RUN(test_directories);
    TEST_RUN(test_output_directory);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
    if (system(cmd) != 0)
        fprintf(stderr, "t_jobfile: could not remove %s\n", base);
    return TEST_DONE();
}
