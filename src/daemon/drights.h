/*
 * drights — who may do what in the daemon (drights.c).
 */
#ifndef MOKU_DRIGHTS_H
#define MOKU_DRIGHTS_H

#include <jansson.h>

#include "cmd/cmdtab.h"

struct dmn;
struct peer;
struct djob;

/* Fill p's names and admin level from its uid/gid and ADMIN1..3. */
void drights_peer(struct dmn *d, struct peer *p);
/* Forget who the clients were (drights_peer's cache): a reload's new ADMIN
 * lists apply to the next request. */
void drights_forget(struct dmn *d);
/* May p change dj? Its owner, ADMIN1 and ADMIN2. */
int drights_may_change(const struct peer *p, const struct djob *dj);
/* The right of command def (cmd as typed, its words argv) for p, before its
 * handler runs: NULL when p may run it, else the refusal (caller's). Not
 * checked here: CMD_OWN_REFUSAL commands, and the rights that depend on
 * the job or reservation (CMD_RIGHT_OWNER, CMD_RIGHT_CREATOR). */
json_t *drights_refused(struct dmn *d, const struct peer *p, const struct cmd_def *def,
                        const char *cmd, int argc, char **argv);
/* The job checkjob's words name (its first operand), and whether JSON is
 * asked for; NULL when none. */
const char *drights_checkjob_id(int argc, char **argv, int *json);
/* The uid that owns job id (queued, running or ended), -1 if none is known. */
long drights_job_uid(struct dmn *d, const char *id);

#endif
