/*
 * dreply — the daemon's replies and a request's transaction (dreply.c).
 */
#ifndef MOKU_DREPLY_H
#define MOKU_DREPLY_H

#include <stddef.h>

#include <jansson.h>

#include "util/err.h"

struct dmn;

/* {"ok": true, "exit": 0, "output": text}. */
json_t *dreply_ok(const char *text);
/* A refusal or failure: exit 1, "error" the message. */
json_t *dreply_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A usage error (unknown option, missing operand): exit 2, as a client's
 * own usage errors; the client adds a "try --help" hint. */
json_t *dreply_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A failure of the command layer: exit 2 for its usage errors (err_usage),
 * else 1. */
json_t *dreply_fail(const struct err *e);

/* A request's transaction: dreply_begin NULL when open (else the error
 * reply); dreply_commit returns ok, or an error reply when the commit
 * failed (ok is released; the engine is then rebuilt from the store, and
 * an iteration is wanted either way). */
json_t *dreply_begin(struct dmn *d);
json_t *dreply_commit(struct dmn *d, json_t *ok);

/* The text of a reply built line by line; failed: some line is an error. */
struct dreply_text {
    char *text;
    size_t len, cap;
    int failed;
};
void dreply_printf(struct dreply_text *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* The reply: ok with the text, or (failed) exit 1 with the text as the
 * error. Frees o's text. */
json_t *dreply_lines(struct dreply_text *o);

#endif
