/*
 * dreq — the daemon's requests, decoded and routed (dreq.c).
 */
#ifndef MOKU_DREQ_H
#define MOKU_DREQ_H

#include <sys/types.h>

#include <jansson.h>

struct dmn;

/* The reply to one request of the socket's protocol (parsed JSON) from
 * uid/gid, the web's too (caller decrefs). A handler that left its
 * transaction open is rolled back (logged) and the engine rebuilt. */
json_t *dreq_answer(struct dmn *d, uid_t uid, gid_t gid, const json_t *req);
/* Whether the daemon answers requests whose "cmd" is cmd: the command
 * table's, with a handler (dctl.c, dtorque.c, submit, weblogin). */
int dreq_answers(const char *cmd);
/* Whether the request text (body, len) is a submission (cmd "submit" and
 * its aliases): what joins a group commit (serve.c). */
int dreq_is_submit(const char *body, size_t len);

#endif
