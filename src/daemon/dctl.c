/*
 * dctl — the daemon's dispatch of moku's commands: a command of the table
 * (cmd/cmdtab.h) by name, its right checked (drights.c), then its handler,
 * found by the table's operation: the read-only commands (dlook.c), job
 * control (djobctl.c), the administrative commands (dadmin.c). It calls
 * down into those parts only; requests are decoded above it (dreq.c), and
 * Torque's faces (dtorque.c) call it for the commands they wear.
 */
#include "daemon/dctl.h"

#include "cmd/cmdtab.h"
#include "daemon/dadmin.h"
#include "daemon/daemon_int.h"
#include "daemon/djobctl.h"
#include "daemon/dlook.h"
#include "daemon/drights.h"

typedef json_t *(*dctl_fn)(struct dmn *d, const struct peer *p, const char *cmd, int argc,
                           char **argv);

/* The daemon's handler of each operation of the command table that takes
 * words. Torque's faces are dtorque.c's; submit and weblogin read other
 * fields of the request (dreq.c). */
static const dctl_fn handlers[CMD_OP_COUNT] = {
    [CMD_OP_LOOK] = dlook_layer,
    [CMD_OP_CHECKJOB] = dlook_checkjob,
    [CMD_OP_CANCELJOB] = djobctl_canceljob,
    [CMD_OP_SETHOLD] = djobctl_sethold,
    [CMD_OP_RELEASEHOLD] = djobctl_releasehold,
    [CMD_OP_SETSPRI] = djobctl_setspri,
    [CMD_OP_SETQOS] = djobctl_setqos,
    [CMD_OP_RUNJOB] = djobctl_runjob,
    [CMD_OP_MJOBCTL] = djobctl_mjobctl,
    [CMD_OP_SCHEDCTL] = dadmin_schedctl,
    [CMD_OP_RESETSTATS] = dadmin_resetstats,
    [CMD_OP_CHANGEPARAM] = dadmin_changeparam,
    [CMD_OP_RESCTL] = dadmin_resctl,
};

int dctl_handles(enum cmd_op op)
{
    return op > CMD_OP_NONE && op < CMD_OP_COUNT && handlers[op] != NULL;
}

json_t *dctl_call(struct dmn *d, const struct peer *p, const char *cmd, int argc, char **argv)
{
    const struct cmd_def *def = cmd_def_request(cmd);
    json_t *r = def ? drights_refused(d, p, def, cmd, argc, argv) : NULL;
    if (r)
        return r; /* not for this user */
    /* A Torque name here is the face's own question to the command layer
     * (dtorque.c's qstat and pbsnodes); an unknown name is the command
     * layer's to refuse. */
    if (!def || (def->flags & CMD_TORQUE) || !handlers[def->op])
        return dlook_layer(d, p, cmd, argc, argv);
    return handlers[def->op](d, p, cmd, argc, argv);
}
