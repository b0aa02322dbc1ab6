/*
 * sim_int — the simulator's state, shared by sim.c (the event loop) and
 * sim_rm.c (the simulated resource manager behind the rm/rm.h table).
 */
#ifndef MOKU_SIM_INT_H
#define MOKU_SIM_INT_H

#include "rm/rm.h"
#include "sim/runtab.h"
#include "sim/sim.h"
#include "util/heap.h"

/* Entries of sim.creds: a power of two. */
#define SIM_CREDS 256

struct sim {
    struct sched *s;
    struct sim_detail *details; /* the block details are taken from (detail()) */
    size_t details_used;
    struct sim_detail **spare; /* details given back (drop_final), reused first */
    size_t nspare, spare_cap;
    size_t settled;       /* the outcomes before it are final and handed over (pass_final) */
    size_t nfinal;        /* outcomes made final so far (ended or rejected) */
    size_t nfinal_passed; /* nfinal when pass_final last looked: only a new final one moves it */
    const struct workload *wl;
    struct sim_outcome *out;
    struct heap ends;   /* running jobs by the time they will end */
    struct runtab runs; /* the jobs the simulated resource manager holds */
    struct rm rm;       /* sim_rm_ops over this */
    /* rm_start's request, zero (sim_begin) but for the id, walltime and tag
     * each start sets: a literal zeroed its 150 bytes a start. */
    struct rm_job start_req;
    size_t next_cmd;    /* the first timed command not yet run */
    long last;          /* time of the last iteration */
    long long busy;     /* processors the running jobs asked for (sim_sample) */
    long progress;      /* last instant something happened outside the engine or a job
                           started (standing reservations are followed this long) */
    long stalled;       /* iterations in a row without progress */
    int record_nodes;   /* sim_hooks.record_nodes */
    int forget_ended;   /* sim_hooks.forget_ended */
    struct run **ended; /* end_jobs' list, kept between calls: no malloc per event */
    size_t ended_cap;
    /* The loop's place between calls of sim_stream_advance (sim_run makes
     * one call): */
    const struct sim_hooks *hooks;
    long until;
    size_t next;     /* the first job not yet submitted */
    size_t rejected; /* jobs refused at submission */
    size_t tick;     /* iterations, for the progress hook */
    size_t nout;     /* outcomes made (the jobs known when last advanced) */
    size_t out_cap;  /* owns_out: out's room */
    int owns_out;    /* out grows here with the workload (sim_stream_begin) */
    /* The credentials of the last job submitted with each names (the
     * workload's, interned: one pointer a set), by the pointer's bits:
     * a trace has few sets, each used again and again (job_spec.creds). */
    struct sim_creds {
        const struct wl_names *names;
        struct cred *c[4];
    } creds[SIM_CREDS];
};

/* The simulated resource manager (ctx: struct sim *): a started job ends at
 * start + its trace runtime, or at its kill time if that comes first;
 * cancel and requeue end it now; suspend and resume are not simulated. */
extern const struct rm_ops sim_rm_ops;

#endif
