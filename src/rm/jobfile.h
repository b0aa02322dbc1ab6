/*
 * jobfile — a job's working directory and output files, opened as the job's
 * user so that no other user can aim them (issue 28): what Torque's MOM does
 * (cd to -d, create or truncate -o and -e), without its trust in names.
 *
 * Called by the supervisor's child after it has become the job's user; every
 * check is made on an open descriptor (fstat), never on a name looked at
 * before it is used, so nothing can be swapped in between.
 *
 * The rule, the kernel's protected_symlinks and protected_regular applied
 * whatever the sysctls say: in a sticky directory (/tmp, a shared scratch),
 * an entry owned by neither the job's user, root, nor the directory's owner
 * may have been put there by someone else ("planted"). So
 *   - a symbolic link met in the path of a directory is followed only when
 *     it is not planted;
 *   - the directory reached (the working directory, or the directory a job's
 *     file is written in) must not be planted in its own parent;
 *   - a job's output file is never opened through a symbolic link in its last
 *     component (O_NOFOLLOW), and an existing one is used only when it is
 *     the job's user's own regular file with one link (or a device or FIFO
 *     of the user or root: /dev/null), checked before it is truncated.
 * A refusal leaves the file untouched: never written, never truncated, never
 * read.
 */
#ifndef MOKU_JOBFILE_H
#define MOKU_JOBFILE_H

#include <stddef.h>
#include <sys/types.h>

/* Longest reason a refusal gives (its NUL included). */
#define JOBFILE_WHY_MAX 400

/* The directory `path` (absolute), as an O_PATH descriptor (fchdir and
 * openat take it), for a process running as uid. -1 with the reason in
 * why[JOBFILE_WHY_MAX] ("PATH: ..."): it does not exist or cannot be
 * reached, is not a directory, a planted link on the way, or is planted. */
int jobfile_open_dir(const char *path, uid_t uid, char *why);

/* The output file `path` (absolute) opened for writing and emptied, as
 * Torque's MOM does, for a process running as uid: created 0600 when new.
 * When path names a directory (Torque's `-o DIR`), the file is
 * DIR/dir_name (e.g. "job.o12") instead. -1 with the reason in
 * why[JOBFILE_WHY_MAX] (the file as it was: not written, not truncated). */
int jobfile_open_out(const char *path, const char *dir_name, uid_t uid, char *why);

/* The job's existing output file, for appending (Torque's walltime line):
 * the same rules, never created, never truncated; only a regular file.
 * O_NONBLOCK is left set. -1 when it cannot be used (why as above). */
int jobfile_open_append(const char *path, const char *dir_name, uid_t uid, char *why);

#endif
