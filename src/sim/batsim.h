/*
 * batsim — a replay's jobs as Batsim's jobs.csv (moku simulate
 * --batsim-out), so the tools written for Batsim's output (evalys and the
 * like) read a moku replay. The columns, in Batsim's order:
 *
 *   job_id,workload_name,profile,submission_time,requested_number_of_resources,
 *   requested_time,success,final_state,starting_time,execution_time,
 *   finish_time,waiting_time,turnaround_time,stretch,allocated_resources,
 *   consumed_energy,metadata
 *
 * A row per job that finished or was rejected, as Batsim writes them (jobs
 * still waiting or running when the replay stopped have none; the report
 * counts them). Mapping (docs/simulation.md): workload_name "w0", profile
 * "delay" (a moku job runs its trace runtime), final_state
 * COMPLETED_SUCCESSFULLY (success 1), COMPLETED_WALLTIME_REACHED (killed
 * at its limit), COMPLETED_KILLED (canceljob) or REJECTED (times -1);
 * stretch turnaround / execution time (at least 1 s); allocated_resources
 * the node indices (0-based, in the cluster's order) as Batsim's interval
 * set "0-3 7"; consumed_energy -1 (not modelled); metadata the job's
 * credentials, "user=U;group=G;account=A;class=C;qos=Q".
 */
#ifndef MOKU_BATSIM_H
#define MOKU_BATSIM_H

#include <stdio.h>

#include "sim/sim.h"
#include "sim/workload.h"
#include "util/obuf.h"

/*
 * Write the rows of one replay; s is the scheduler it ran (credentials of
 * forgotten jobs), out its outcomes with their slots (sim_hooks.record_nodes).
 * run 0: the header, then the rows. run >= 1: as the jobs CSV does for a
 * comparison, a leading "run" column, the header with run 1 only. Returns
 * 0, or -1 if writing failed.
 */
int batsim_write_jobs(struct obuf *f, const struct workload *wl, const struct sim_outcome *out,
                      const struct sched *s, int run);

/* The same a row at a time, as the replay goes (report.h's jobs CSV has
 * the same three calls): open writes the header; rows writes those of the
 * jobs before `to` not written yet (their outcomes final: sim_hooks.final);
 * close writes the rest, frees r and returns as above. */
struct batsim;
struct batsim *batsim_open(struct obuf *f, const struct workload *wl, const struct sched *s,
                           int run);
void batsim_rows(struct batsim *r, const struct sim_outcome *out, size_t to);
int batsim_close(struct batsim *r, const struct sim_outcome *out);
/* Free it, the rows left unwritten (a replay given up). */
void batsim_drop(struct batsim *r);

#endif
