/*
 * djobctl — the daemon's job control commands (djobctl.c). Each takes the
 * command as typed and its words (without the name, --format taken out),
 * and returns the reply; a change is committed before it returns.
 */
#ifndef MOKU_DJOBCTL_H
#define MOKU_DJOBCTL_H

#include <jansson.h>

struct dmn;
struct peer;

/* canceljob JOB...: idle jobs removed, running ones ended by the resource
 * manager. The owner, ADMIN1 and ADMIN2. */
json_t *djobctl_canceljob(struct dmn *d, const struct peer *p, const char *cmd, int argc,
                          char **argv);
/* sethold [-b] [-h user|system|batch] JOB...; releasehold [-a] [-h TYPE]
 * JOB...: system and batch holds are ADMIN1's and ADMIN2's. */
json_t *djobctl_sethold(struct dmn *d, const struct peer *p, const char *cmd, int argc,
                        char **argv);
json_t *djobctl_releasehold(struct dmn *d, const struct peer *p, const char *cmd, int argc,
                            char **argv);
/* setspri [-r] PRIORITY JOB (ADMIN1, ADMIN2: checked by the caller). */
json_t *djobctl_setspri(struct dmn *d, const struct peer *p, const char *cmd, int argc,
                        char **argv);
/* setqos QOS JOB: the owner within its credentials' QOS, ADMIN1 and ADMIN2 any. */
json_t *djobctl_setqos(struct dmn *d, const struct peer *p, const char *cmd, int argc, char **argv);
/* runjob [-f] [-c] [-x] JOB (ADMIN1, ADMIN2: checked by the caller). */
json_t *djobctl_runjob(struct dmn *d, const struct peer *p, const char *cmd, int argc, char **argv);
/* mjobctl -s JOB | -r JOB: its usage first, then ADMIN1 and ADMIN2. */
json_t *djobctl_mjobctl(struct dmn *d, const struct peer *p, const char *cmd, int argc,
                        char **argv);

#endif
