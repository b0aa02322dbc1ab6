/*
 * qsub_inter — qsub -I's side of an interactive job: wait for the job to
 * start, take its terminal from the job's supervisor, relay the user's
 * terminal to it, say Torque's three lines ("qsub: waiting for job ID to
 * start", "qsub: job ID ready", "qsub: job ID completed").
 *
 * The supervisor (rm/local.h, LOCAL_F_TTY) listens on <spool>/<id>/tty.sock
 * once the job has started; qsub tries it while the job waits in the queue
 * and asks its caller, every QSUB_INTER_ASK_SECONDS, whether the job is
 * still coming (it may be cancelled, or end before qsub connects). SIGINT,
 * SIGTERM and SIGHUP while waiting end the wait, for the caller to cancel
 * the job (Torque's qsub asks whether to; moku cancels: a job nobody waits
 * for would hold its nodes for nothing).
 */
#ifndef MOKU_QSUB_INTER_H
#define MOKU_QSUB_INTER_H

#include <signal.h>
#include <stdio.h>

#include "util/err.h"

#define QSUB_INTER_ASK_SECONDS 2

/* The caller's answer: is job `id` still to start (queued, held, or just
 * started)? 1 yes, 0 no (why: its state, for the message), -1 cannot tell
 * now (the daemon restarting: keep waiting). */
typedef int (*qsub_inter_ask)(void *ctx, const char *id, char *why, size_t whylen);

/* What an interactive session ended with. */
enum {
    QSUB_INTER_GONE = -1,        /* the job ended without a shell (err says why) */
    QSUB_INTER_INTERRUPTED = -2, /* a signal ended the wait: cancel the job */
};

/* Wait for job `id` (Torque's full id, for the lines) whose supervisor
 * listens at `sock`, then relay `in` (raw when a terminal) and `out` to
 * its shell; the lines go to `msgs`. Returns the shell's exit status, or
 * one of the values above with err filled. SIGINT, SIGTERM and SIGHUP end
 * the wait (the caller may block them from its submission on, so that one
 * that came before the wait still ends it); during the relay they are
 * unblocked: their default action ends qsub, and the session with it. */
/* The signals that end the wait: SIGINT, SIGTERM, SIGHUP. */
void qsub_inter_stopset(sigset_t *stop);

int qsub_inter_run(const char *sock, const char *id, int in, int out, FILE *msgs,
                   qsub_inter_ask ask, void *ctx, struct err *err);

#endif
