/*
 * dctl — the daemon's dispatch of moku's commands (dctl.c).
 */
#ifndef MOKU_DCTL_H
#define MOKU_DCTL_H

#include <jansson.h>

#include "cmd/cmdtab.h"

struct dmn;
struct peer;

/* Run one of moku's commands (cmd as typed, args without the name) for p,
 * as a request would, after the request's checks: its right first, then
 * its handler; the reply (caller's). Torque's faces (dtorque.c) use it for
 * the commands they wear. */
json_t *dctl_call(struct dmn *d, const struct peer *p, const char *cmd, int argc, char **argv);
/* Whether op has a handler here. */
int dctl_handles(enum cmd_op op);

#endif
