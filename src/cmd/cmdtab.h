/*
 * cmdtab — the one table of moku's commands: Maui's, Torque's and moku's
 * own. Each command is one entry (cmdtab.c): its name, the name a request
 * carries, the command layer's handler (what the simulator's --show and
 * --commands run), the daemon's handler (an operation the daemon's
 * dispatch maps to its function), who may run it, whether it changes
 * state, whether the web API offers it, and its help and man text.
 *
 * Every reader goes through this table and none keeps a list of its own:
 * the command layer's dispatch (cmd.c), the daemon's dispatch and rights
 * (daemon/dctl.c, drights.c), the web API's lists (web/web.c), --help,
 * the man pages, bash completion and the installed symlinks (cli/help.c,
 * tools/mkman.c). tests/unit/t_cmdtab.c asks each of them about every
 * entry, so a command cannot exist in one place and not another.
 *
 * Not the parsers: each handler reads its own words.
 */
#ifndef MOKU_CMDTAB_H
#define MOKU_CMDTAB_H

#include <stddef.h>

struct cmd_ctx;
struct cmd_args;
struct cmd_buf;
struct err;

/* The help's types keep their help_ prefix: cli/help.c prints them, and
 * the faces of moku that are not commands (moku serve, simulate, validate:
 * cli/help_tab.c) are described with them too. */

/* One option line: "-u USER" and what it does ('\n' breaks the text). */
struct help_opt {
    const char *flag;
    const char *text;
};

enum {
    HELP_CLIENT = 1, /* asks the daemon: --home and --format are its options too */
    HELP_NO_H = 2,   /* -h is one of the command's own options: only --help asks */
};

struct help_cmd {
    const char *name;            /* as typed: "showq", "moku serve" */
    int section;                 /* of its man page: 1, or 8 (moku serve) */
    unsigned flags;              /* HELP_* */
    const char *synopsis;        /* the words after the name; '\n' between forms */
    const char *summary;         /* one line, lower case: the man page's NAME */
    const char *desc;            /* a paragraph or more ("\n\n" between them) */
    const struct help_opt *opts; /* ends with a NULL flag; may be NULL */
};

/* The command layer's handler: reads the scheduler (or, for a command
 * that changes state, changes it when cmd_ctx.control allows). */
typedef int (*cmd_fn)(const struct cmd_ctx *, const struct cmd_args *, struct cmd_buf *,
                      struct err *);

/* What the daemon does with a request: which of its handlers answers. */
enum cmd_op {
    CMD_OP_NONE,     /* not a request the daemon answers */
    CMD_OP_LOOK,     /* the command layer's answer (showq, diagnose, ...) */
    CMD_OP_CHECKJOB, /* the command layer's, or the store's for an ended job */
    CMD_OP_CANCELJOB,
    CMD_OP_SETHOLD,
    CMD_OP_RELEASEHOLD,
    CMD_OP_SETSPRI,
    CMD_OP_SETQOS,
    CMD_OP_RUNJOB,
    CMD_OP_MJOBCTL,
    CMD_OP_SCHEDCTL,
    CMD_OP_RESETSTATS,
    CMD_OP_CHANGEPARAM,
    CMD_OP_RESCTL, /* setres, releaseres: the command layer's, saved */
    CMD_OP_SUBMIT,
    CMD_OP_WEBLOGIN,
    CMD_OP_QSTAT, /* Torque's faces (daemon/dtorque.c) */
    CMD_OP_PBSNODES,
    CMD_OP_QDEL,
    CMD_OP_QHOLD, /* qhold and qrls */
    CMD_OP_QALTER,
    CMD_OP_QSIG,
    CMD_OP_QRUN,
    CMD_OP_COUNT
};

/* Who may run a command (Maui's ADMIN1..3 levels; root and the daemon's
 * own user are ADMIN1). The daemon refuses ADMIN1, ADMIN2 and ADMIN3
 * commands before their handler runs; the others are checked by the
 * handler, job by job or reservation by reservation. */
enum cmd_right {
    CMD_RIGHT_ANYONE,  /* everyone */
    CMD_RIGHT_QUEUE,   /* the queue's summary to everyone; its detail (showq -r, -i) to
                          ADMIN1..3 */
    CMD_RIGHT_SEE_OWN, /* one's own jobs; any job for ADMIN1..3 (checkjob) */
    CMD_RIGHT_OWNER,   /* change one's own jobs; any job for ADMIN1 and ADMIN2 */
    CMD_RIGHT_CREATOR, /* ADMIN1 and ADMIN2; with RESCTLPOLICY ANY anyone, and one's own
                          reservations */
    CMD_RIGHT_ADMIN3,  /* ADMIN1, ADMIN2 and ADMIN3 */
    CMD_RIGHT_ADMIN2,  /* ADMIN1 and ADMIN2 */
    CMD_RIGHT_ADMIN1,  /* ADMIN1 alone */
};

enum {
    CMD_CHANGES = 1,     /* changes state: the daemon commits it before the reply, the web
                            takes it only by POST with the session's CSRF token, the
                            simulator only in --commands (cmd_ctx.control) */
    CMD_WEB = 2,         /* the web API offers it (GET /api/NAME only when it does not
                            change state; POST /api/run either way) */
    CMD_MESSAGES = 4,    /* the daemon's reply is lines of messages: --format=json makes
                            them {"messages": [...]} (not the command layer's JSON) */
    CMD_TORQUE = 8,      /* Torque's face on moku's commands: Torque's messages and exit
                            codes (daemon/dtorque.c) */
    CMD_OWN_REFUSAL = 16 /* the handler refuses in its own words (and order): the daemon's
                            dispatch does not check the right first */
};

struct cmd_def {
    struct help_cmd doc; /* name (doc.name), usage, one line, man text */
    const char *same_as; /* an alias (mdiag, msub): the entry whose handlers, right and
                            flags it has; NULL for a command of its own */
    const char *request; /* the "cmd" of its requests when not its name ("submit",
                            "weblogin"); NULL = the name */
    cmd_fn run;          /* the command layer's handler; NULL: the simulator does not
                            offer it */
    enum cmd_op op;      /* the daemon's handler */
    enum cmd_right right;
    unsigned flags; /* CMD_* */
};

/* The entries in the table's order (the help's); NULL past the end. */
const struct cmd_def *cmd_def_at(size_t i);
/* The entry named name (as typed: "showq", "mdiag", "moku web"), or NULL. */
const struct cmd_def *cmd_def_find(const char *name);
/* The entry a request's "cmd" names (its request name), or NULL. */
const struct cmd_def *cmd_def_request(const char *cmd);
/* The entry that carries d's handlers, right and flags: d itself, or the
 * one it is an alias of. */
const struct cmd_def *cmd_def_main(const struct cmd_def *d);
/* d's request name. */
const char *cmd_def_request_name(const struct cmd_def *d);
/* Whether word is one of d's options that takes its value as the next
 * word ("-N" of qalter: "-N NAME" in its table; "-a [ACCOUNT]", whose
 * value can only be attached, does not). */
int cmd_def_takes_value(const struct cmd_def *d, const char *word);
/* The commands the simulator's --show answers (a handler, no change of
 * state; aliases left out), for messages: "showq, checkjob, ... or
 * pbsnodes", into buf (n bytes, cut short if it must). */
void cmd_def_look_names(char *buf, size_t n);

#endif
