/*
 * fs — fairshare: usage accounting per credential over time windows, the
 * decayed usage and share of each credential, FSTARGET parsing, the fairshare
 * priority delta and the cap checks (Maui's MFS.c / MStats.c, digest §4).
 *
 * It is not the priority function (policy/prio weighs the delta) nor the FS
 * data file reader/writer (a driver does the I/O and calls fs_set_window).
 * No I/O, no clock: `now` is always an argument.
 *
 * Usage is kept in FSDEPTH windows of FSINTERVAL seconds, aligned to
 * multiples of the interval since the epoch; slot 0 is the current window.
 *
 * Status: complete and unit-tested, but not yet wired into the scheduling
 * iteration (accrual, cred->fs_delta, caps), FS data files or diagnose -f;
 * that is the rest of the fairshare work.
 */
#ifndef MOKU_FS_H
#define MOKU_FS_H

#include "core/cred.h"
#include "util/err.h"

#define FS_MAX_DEPTH 24 /* Maui's cap on FSDEPTH */

enum fs_policy { FS_NONE, FS_DEDICATEDPS, FS_DEDICATEDPES, FS_UTILIZEDPS };
enum fs_mode {
    FS_MODE_NONE,
    FS_MODE_TARGET,
    FS_MODE_FLOOR,
    FS_MODE_CEILING,
    FS_MODE_CAP,
    FS_MODE_PCAP
};

struct fs_target {
    double value;      /* percent of total usage, or usage units for FS_MODE_CAP */
    enum fs_mode mode; /* FS_MODE_NONE: no target */
};

/* Parse FSTARGET text: "50" target, "10+" floor, "25-" ceiling, "1000^"
 * absolute cap, "20%" relative cap. Returns 0, or -1 with err on bad text
 * (empty, not a number, negative, not finite, trailing characters); *out is
 * left untouched on failure. */
int fs_target_parse(const char *s, struct fs_target *out, struct err *err);

struct fs;

/* A fairshare ledger. interval (FSINTERVAL, seconds) is taken as at least 1;
 * depth (FSDEPTH) is clamped to 1..FS_MAX_DEPTH; decay is FSDECAY; percent
 * is nonzero when FSPOLICY ended with '%'. Caller destroys. */
struct fs *fs_create(long interval, int depth, double decay, enum fs_policy policy, int percent);
/* Free f; NULL is a no-op. */
void fs_destroy(struct fs *f);

/* Add usage (proc-seconds or PE-seconds, computed by the caller) at time now
 * to the current window of each non-NULL creds[k] and to the total. First
 * rolls the windows up to now (see fs_roll). O(1) per credential except on a
 * window change. */
void fs_add(struct fs *f, long now, const struct cred *const creds[CRED_NKINDS], double usage);
/* Shift the windows up to the window holding now: one shift per elapsed
 * window, slot 0 newest and zero, windows past depth dropped. The first call
 * (or fs_add) only fixes the current window; a now earlier than the current
 * window changes nothing. */
void fs_roll(struct fs *f, long now);

/* Decayed usage: slot0 + sum_{i=1}^{depth-1} slot_i * decay^i. */
double fs_usage(const struct fs *f, const struct cred *c);
/* The same for the system total. */
double fs_total(const struct fs *f);
/* 100 * fs_usage / fs_total, 0 when the total is 0. */
double fs_percent(const struct fs *f, const struct cred *c);
/* Raw usage of window i (0 newest) of c; 0 when i is out of 0..depth-1. */
double fs_window(const struct fs *f, const struct cred *c, int i);
/* Raw usage of window i of the total. */
double fs_total_window(const struct fs *f, int i);
/* Start of the current window; 0 before the first fs_add / fs_roll. */
long fs_window_start(const struct fs *f);

/* Fairshare priority delta (digest §4.5): target - pct, or 1 - pct/target
 * with a percent policy; clamped by mode (floor >= 0, ceiling <= 0, caps 0).
 * 0 when policy is FS_NONE, t is NULL or has no target (mode NONE or value
 * <= 0), or the total usage is 0. */
double fs_delta(const struct fs *f, const struct cred *c, const struct fs_target *t);

/* 1 (blocked) when c's usage + request exceeds an absolute cap (^, usage
 * units) or, as a percentage of the total usage, a relative cap (%); 0
 * otherwise, for other modes, and for a relative cap while the total is 0. */
int fs_over_cap(const struct fs *f, const struct cred *c, const struct fs_target *t,
                double request);

/* Load one stored window (e.g. from an FS data file read by a driver): set
 * window i (0 newest) of c / of the total. Out-of-range i is ignored. */
void fs_set_window(struct fs *f, const struct cred *c, int i, double usage);
void fs_set_total_window(struct fs *f, int i, double usage);

#endif
