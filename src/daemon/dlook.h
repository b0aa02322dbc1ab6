/*
 * dlook — the daemon's read-only commands (dlook.c).
 */
#ifndef MOKU_DLOOK_H
#define MOKU_DLOOK_H

#include <jansson.h>

struct dmn;
struct peer;

/* The command layer's answer to cmd (as typed) and its words, for p (whose
 * name and group are showbf's defaults; an ordinary user sees Torque's
 * views as showq shows them). */
json_t *dlook_layer(struct dmn *d, const struct peer *p, const char *cmd, int argc, char **argv);
/* checkjob: a job the engine no longer holds is the store's; the others
 * the command layer's. */
json_t *dlook_checkjob(struct dmn *d, const struct peer *p, const char *cmd, int argc, char **argv);

#endif
