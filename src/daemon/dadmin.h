/*
 * dadmin — the daemon's administrative commands (dadmin.c). Each takes the
 * command as typed and its words (without the name), returns the reply.
 */
#ifndef MOKU_DADMIN_H
#define MOKU_DADMIN_H

#include <jansson.h>

struct dmn;
struct peer;

/* schedctl -s | -r | -k | -R (ADMIN1: checked by the caller); -R reloads
 * now, through d->loop.reload, and the reply tells what happened. */
json_t *dadmin_schedctl(struct dmn *d, const struct peer *p, const char *cmd, int argc,
                        char **argv);
/* resetstats: the statistics start again now (ADMIN1), kept in the store. */
json_t *dadmin_resetstats(struct dmn *d, const struct peer *p, const char *cmd, int argc,
                          char **argv);
/* changeparam PARAM VALUE... (ADMIN1): dparam.c. */
json_t *dadmin_changeparam(struct dmn *d, const struct peer *p, const char *cmd, int argc,
                           char **argv);
/* setres ... / releaseres ID... (cmd says which): ADMIN1 and ADMIN2, or
 * anyone with RESCTLPOLICY ANY for their own reservations; committed. */
json_t *dadmin_resctl(struct dmn *d, const struct peer *p, const char *cmd, int argc, char **argv);
/* moku web's one-time login link for p, or why there is none. */
json_t *dadmin_weblogin(struct dmn *d, const struct peer *p);

#endif
