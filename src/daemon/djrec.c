/*
 * djrec — a job's record in the store: written from the daemon's job
 * (djrec_save), a record restored lean completed (djrec_warm), and what a
 * failed commit of the iteration means for the records
 * (djrec_commit_failed). A leaf under djobs.c, dpreempt.c and the
 * commands, so that none of them calls another back to save a job.
 */
#include "daemon/daemon_int.h"

void djrec_save(struct dmn *d, struct djob *dj)
{
    struct err e;
    if (dj->j) {
        dj->rec.holds = dj->j->holds;
        dj->rec.sysprio_mode = (int)dj->j->sysprio_mode;
        dj->rec.sysprio = dj->j->sysprio;
        dj->rec.bypass = sched_job_bypass(d->s, dj->j);
        dj->rec.defercount = dj->j->defercount;
    }
    if ((dj->lean ? store_job_put_lean : store_job_put)(d->st, &dj->rec, &e) < 0)
        dlog(d->log, 0, "error: %s", e.msg);
    /* An ended job's script is not needed again (it is only read to run
     * the job): its bytes go, so that what a user can keep in the store is
     * what MAXSUBMITBYTES bounds, not all they ever submitted. */
    if ((dj->rec.state == SJ_COMPLETED || dj->rec.state == SJ_REMOVED) && dj->bytes &&
        store_script_del(d->st, dj->rec.id, &e) == 0)
        dj->bytes = 0;
}

int djrec_warm(struct dmn *d, struct djob *dj, struct err *err)
{
    if (!dj->lean)
        return 0;
    struct store_job full;
    int found = store_job_get(d->st, dj->rec.id, &full, err);
    if (found <= 0) {
        if (found == 0)
            err_set(err, "job %ld: no longer in the store", dj->rec.id);
        return -1;
    }
    dj->rec.script = full.script; /* the lean record's are NULL */
    dj->rec.env = full.env;
    full.script = full.env = NULL;
    store_job_free(&full);
    dj->lean = 0;
    return 0;
}

int djrec_stale(const struct dmn *d, const struct djob *dj)
{
    const struct job *j = dj->j;
    return j && (dj->rec.holds != j->holds || dj->rec.sysprio_mode != (int)j->sysprio_mode ||
                 dj->rec.sysprio != j->sysprio || dj->rec.bypass != sched_job_bypass(d->s, j) ||
                 dj->rec.defercount != j->defercount);
}

void djrec_commit_failed(struct dmn *d)
{
    d->nforget = 0; /* their ends are not committed: their spool stays */
    d->recover = 1;
}
