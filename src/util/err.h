/*
 * err — moku's one error type.
 *
 * A fallible function returns 0 (or a pointer) on success and -1 (or NULL) on
 * failure, and fills an optional struct err with a message for the user.
 * err_set() returns -1 so that a failure is one line:
 *
 *     return err_set(err, "%s:%d: unknown value '%s'", file, line, val);
 *
 * Messages name what the user gave (file and line, option, request); they are
 * complete sentences without a trailing newline.
 */
#ifndef MOKU_ERR_H
#define MOKU_ERR_H

#define ERR_MSG_MAX 1024

struct err {
    char msg[ERR_MSG_MAX];
    /* Set by err_usage, cleared by err_set: the words of a request or
     * command line are wrong (an unknown option, a missing argument), as
     * opposed to the state (no such job). Commands exit 2 for these. */
    int usage;
};

/* Format a message into err (if err is not NULL). Always returns -1. */
int err_set(struct err *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The same, for a usage error: also sets err->usage. Always returns -1. */
int err_usage(struct err *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Clear err (if not NULL). */
void err_clear(struct err *err);

#endif
