/*
 * sim_submit — the `submit` lines of a --commands script (sim_script.h):
 * jobs the script adds to the replay, with qsub's options, so that a
 * replay can hold Torque's dependencies (-W depend=) and arrays (-t, -J).
 *
 *   TIME submit ID RUNTIME [-u USER] [--exit STATUS] [QSUB-OPTIONS]
 *
 * ID names the job as the replay names a trace's (a dependency and every
 * command refer to it so); an array's tasks are ID[INDEX]. RUNTIME is how
 * long the job really runs, in the script's time syntax. -u is the user
 * (Torque's -u, the user the job runs as; default "script"). --exit is the
 * status the job's script ends with (0..512, default 0: success), which
 * afterok and afternotok judge as the daemon's. The rest are
 * qsub's options (cmd/qsub.h) that mean something to a replay: -l nodes=,
 * procs=, ppn, walltime (default: the runtime), mem, features, qos,
 * advres; -A, -q, -W group_list=, -W x=QOS:/ADVRES:, -W depend=, -t, -J.
 * Any other (output paths, mail, -h, -a, a host list, ...) is refused
 * rather than ignored.
 *
 * The jobs become the workload's (workload_add_more), in submission order
 * with the trace's: a job submitted at TIME is queued before the commands
 * at TIME run, as a trace's job is.
 */
#ifndef MOKU_SIM_SUBMIT_H
#define MOKU_SIM_SUBMIT_H

#include "sim/sim_script.h"
#include "sim/workload.h"
#include "util/err.h"

/* 1 when cmd is a submit line. */
int sim_submit_is(const struct sim_script_cmd *cmd);

/*
 *   TIME qalter -W depend=LIST JOB
 *
 * Torque's qalter of a job's dependencies, as the daemon does it
 * (sched_replace_deps): the idle job's dependencies become LIST, judged at
 * once. sim_submit_add checks the lines' shape, that JOB and every job
 * LIST names are the replay's, before the replay; sim_qalter_run runs one
 * at its time: errors (the job not queued yet, not idle, a dependency that
 * can never be met, a cycle) in the daemon's words, nothing changed.
 */
int sim_qalter_is(const struct sim_script_cmd *cmd);
struct sched;
int sim_qalter_run(struct sched *s, const struct sim_script_cmd *cmd, long now, struct err *err);

/*
 * Add the submit lines of sc (read from path) to wl, whose trace jobs are
 * loaded already, and sort it again. Errors, as "<path>:<line>: ...": a bad
 * ID (empty, one a job of the trace or an earlier line has, or with '.',
 * ':', ',', '[', ']' or blanks), a bad RUNTIME, an option qsub refuses or
 * the replay has no meaning for, a dependency on a job that is not queued
 * before this one (later, itself, unknown) or on a whole array; a qalter
 * line that is not `qalter -W depend=LIST JOB` or names a job the replay
 * does not hold. wl may
 * hold some of the jobs then: the caller frees it.
 */
int sim_submit_add(const struct sim_script *sc, const char *path, struct workload *wl,
                   struct err *err);

#endif
