/*
 * sim_script — the simulator's timed command script (moku simulate
 * --commands FILE): commands an administrator types at chosen instants of
 * a replay (sethold, canceljob, setres, showq, ...).
 *
 * One command per line: `TIME COMMAND [ARGS]`. TIME is the trace's clock,
 * seconds since its start, as a plain integer or `[[DD:]HH:]MM:SS` read as
 * --until reads it (two fields are HH:MM, as in maui.cfg). Words
 * are split on white space; '...' or "..." keep spaces inside a word (no
 * escapes). Blank lines and lines whose first non-blank character is `#`
 * are ignored. Times never decrease from one line to the next.
 *
 * This module only reads and checks the file; the simulator runs the
 * commands (sim.h, sim_hooks.script). `submit` lines are jobs, not
 * commands: sim_submit.h reads them into the workload; it also checks the
 * `qalter -W depend=` lines, which the simulator runs (sim_qalter_run).
 */
#ifndef MOKU_SIM_SCRIPT_H
#define MOKU_SIM_SCRIPT_H

#include <stddef.h>

#include "util/err.h"

struct sim_script_cmd {
    long t;     /* when it runs: trace seconds since the start */
    long line;  /* its line in the file, for messages */
    char *text; /* the command as written, time left out (for the log) */
    int argc;
    char **argv; /* its words, quotes removed; argv[argc] == NULL */
};

struct sim_script {
    struct sim_script_cmd *cmds; /* in file order, hence time order */
    size_t n;
};

/*
 * Read and check the script at path. Errors, as "<path>:<line>: ...": a
 * bad or negative time, a time before the previous line's, a line with a
 * time and no command, an unterminated quote, a command the command layer
 * does not know (cmd_known); also a file that cannot be read. Nothing is
 * returned on error. Caller destroys.
 */
struct sim_script *sim_script_load(const char *path, struct err *err);
/* Free sc; NULL is a no-op. */
void sim_script_destroy(struct sim_script *sc);

#endif
