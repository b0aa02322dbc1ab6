/*
 * fs — fairshare: usage accounting per credential over time windows, the
 * decayed usage and share of each credential, FSTARGET parsing, targets, the
 * fairshare priority delta and the cap checks (Maui's MFS.c / MStats.c,
 * digest §4).
 *
 * It is not the priority function (policy/prio weighs the delta) nor the FS
 * data file reader/writer (stats/fsfile; a driver does the I/O and calls
 * fs_set_window). No I/O, no clock: `now` is always an argument.
 *
 * Times. `now` is the driver's time; window boundaries are aligned to
 * multiples of FSINTERVAL on the epoch clock, epoch + now, so a simulation
 * whose trace starts at UnixStartTime rolls its windows when a real
 * scheduler would have (digest §4.4).
 *
 * Accounting is by rates, not by polling: a running job adds `rate` usage
 * units per second (its dedicated processors, or processor equivalents) to
 * its credentials and to the total from fs_start until fs_stop. Usage is
 * therefore exact to the second and split exactly at window boundaries, and
 * an iteration costs nothing per running job. Slot 0 is the current window;
 * FS_MAX_DEPTH slots are kept (FSDEPTH of them count in the decayed usage).
 */
#ifndef MOKU_FS_H
#define MOKU_FS_H

#include "core/cred.h"
#include "core/params.h" /* the fairshare's types */
#include "util/err.h"

/* Maui's defaults: no policy, 12-hour windows, depth 8, decay 1.0. */
void fs_params_default(struct fs_params *p);

/* Parse FSTARGET text: "50" target, "10+" floor, "25-" ceiling, "1000^"
 * absolute cap, "20%" relative cap. Returns 0, or -1 with err on bad text
 * (empty, not a number, negative, not finite, trailing characters); *out is
 * left untouched on failure. */
int fs_target_parse(const char *s, struct fs_target *out, struct err *err);
/* FSTARGET as Maui shows it: "%.2f" and the mode character ("+", "-", "^",
 * "%", or nothing). out must hold 32 bytes. "" when there is no target. */
void fs_target_format(const struct fs_target *t, char out[32]);

struct fs;

/* A fairshare ledger (interval and depth are clamped into range). epoch is
 * the epoch time of driver time 0. Caller destroys. */
struct fs *fs_create(const struct fs_params *p, long epoch);
/* Free f; NULL is a no-op. */
void fs_destroy(struct fs *f);
const struct fs_params *fs_params(const struct fs *f);
/* Set the epoch time of driver time 0 (only before any accounting). */
void fs_set_epoch(struct fs *f, long epoch);
long fs_epoch(const struct fs *f);

/* Targets. A credential without its own target (mode NONE) uses the
 * DEFAULT object's of its kind (cred index 0), as Maui does. */
void fs_set_target(struct fs *f, const struct cred *c, struct fs_target t);
/* c's own target (mode NONE if none). */
struct fs_target fs_own_target(const struct fs *f, const struct cred *c);
/* The target that applies to c: its own, else its DEFAULT object's. */
struct fs_target fs_target_of(const struct fs *f, const struct cred *c);
/* SYSCFG FSTARGET: shown by diagnose -f, not used in priorities. */
void fs_set_total_target(struct fs *f, struct fs_target t);
struct fs_target fs_total_target(const struct fs *f);

/*
 * Running jobs. From now on, each non-NULL creds[k] and the total accrue
 * `rate` units per second (rate >= 0); the job is planned to end at `end`
 * (start + walltime), which the cap checks use for the work still to come.
 * fs_stop takes the same arguments (same rate and end) when it ends. Both
 * first bring the ledger to now (fs_advance). No-ops with policy FS_NONE.
 */
void fs_start(struct fs *f, const struct cred *const creds[CRED_NKINDS], double rate, long end,
              long now);
void fs_stop(struct fs *f, const struct cred *const creds[CRED_NKINDS], double rate, long end,
             long now);

/*
 * Bring the ledger to now: every window that ended at or before now is
 * closed (running jobs' usage split exactly at the boundary) and the slots
 * shift, one per elapsed window. The first call only fixes the current
 * window. A now earlier than the last one changes nothing. Costs
 * O(credentials) per window boundary crossed, O(1) otherwise.
 */
void fs_advance(struct fs *f, long now);
/* Add usage at now to the current window of each non-NULL creds[k] and of
 * the total (after fs_advance(f, now)). */
void fs_add(struct fs *f, long now, const struct cred *const creds[CRED_NKINDS], double usage);

/* Start of the current window in driver time (its epoch time is that plus
 * fs_epoch); 0 before the first fs_advance. */
long fs_window_start(const struct fs *f);
/* The time of the last fs_advance (usage is counted up to it). */
long fs_now(const struct fs *f);

/* Decayed usage up to fs_now: slot0 + sum_{i=1}^{depth-1} slot_i * decay^i. */
double fs_usage(const struct fs *f, const struct cred *c);
/* The same for the system total. */
double fs_total(const struct fs *f);
/* 100 * fs_usage / fs_total, 0 when the total is 0. */
double fs_percent(const struct fs *f, const struct cred *c);
/* Raw usage of window i (0 newest, up to fs_now) of c; 0 when i is out of
 * 0..FS_MAX_DEPTH-1. */
double fs_window(const struct fs *f, const struct cred *c, int i);
/* Raw usage of window i of the total. */
double fs_total_window(const struct fs *f, int i);
/* Whether c has usage in the windows that count (0..FSDEPTH-1) or runs a
 * job now. */
int fs_has_usage(const struct fs *f, const struct cred *c);

/* Fairshare priority delta (digest §4.5) with c's target (fs_target_of):
 * target - pct, or 1 - pct/target with a percent policy; clamped by mode
 * (floor >= 0, ceiling <= 0, caps 0). 0 when the policy is FS_NONE, there is
 * no target (mode NONE or value <= 0), or the total usage is 0. */
double fs_delta(const struct fs *f, const struct cred *c);
/* Whether fs_delta of c is 0 whatever the usage (policy FS_NONE, no
 * target, a cap), until a target is set again (fs_set_target). */
int fs_delta_still(const struct fs *f, const struct cred *c);

/*
 * Feasibility-based fairshare: 1 when a job asking for `request` usage units
 * (its rate times its walltime) would take c past its cap — an absolute cap
 * (^) when usage + committed + request > cap, a relative cap (%) when that
 * sum is more than cap percent of the total's usage + committed + request;
 * committed is the work c's running jobs still have until their planned
 * ends. 0 for other modes, without a cap, with policy FS_NONE, and for a
 * relative cap while the system has neither usage nor committed work.
 */
int fs_over_cap(const struct fs *f, const struct cred *c, double request);

/* Load one stored window (e.g. from an FS data file read by a driver): set
 * window i (0 newest) of c / of the total. Out-of-range i is ignored. */
void fs_set_window(struct fs *f, const struct cred *c, int i, double usage);
void fs_set_total_window(struct fs *f, int i, double usage);

/* Usage units per second the running jobs add to the total (and to no
 * credential more than that). */
double fs_total_rate(const struct fs *f);
/* A count that moves with every change to the ledger but time passing
 * within a window (a rate, a target, a window closing, usage added or
 * loaded): while it stays, each usage and the total grow linearly at
 * their rates. */
unsigned long fs_edits(const struct fs *f);

#endif
