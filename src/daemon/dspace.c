/*
 * dspace — what the daemon's state may take of its disk (issue 28: one
 * user queued 56,908 held jobs in 23 s, and once the disk was full most
 * cancels failed).
 *
 * Bounds on what is queued, checked at each submission: MAXJOBCOUNT jobs in
 * all (Slurm's MaxJobCount), MAXSUBMITBYTES of scripts and environments per
 * user; the jobs per user are the engine's MAXSUBMITJOBS, which the daemon
 * gives a default (DSPACE_USER_JOBS) when maui.cfg sets none.
 *
 * The disk reserve: DISKRESERVE bytes allocated in HOME/moku.reserve while
 * there is room. Under DISKRESERVE free bytes no new job is taken (the
 * space left is for the jobs already acknowledged); when the file system is
 * all but full (or a commit failed for it), the reserve file is removed, so
 * that the changes that must not be lost — cancels, holds, releases, job
 * ends — can still be committed, and no job is started (a start writes
 * spool files and would fail) until there is room for the reserve again.
 * A reserve is a file rather than SQLite's own free pages because SQLite
 * writes the WAL, not the database file, when it commits, and the WAL grows
 * wherever the last checkpoint left it. Another writer on the same file
 * system can still take the space the reserve gave back; the reserve only
 * makes sure the daemon is not the one left without.
 */
#define _GNU_SOURCE /* posix_fallocate in fcntl.h */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "cfg/cfg.h"
#include "daemon/daemon_int.h"
#include "util/mem.h"

#define MIB (1024LL * 1024)

/* Under this many free bytes the reserve goes: a change needs a few WAL
 * frames (tens of kB), so it is given up before a commit can fail. */
static long long floor_bytes(const struct dspace *sp)
{
    return sp->want > 0 && sp->want / 4 < MIB ? sp->want / 4 : MIB;
}

static long long free_bytes(const char *dir)
{
    struct statvfs v;
    if (statvfs(dir, &v) < 0)
        return -1;
    return (long long)v.f_bavail * (long long)v.f_frsize;
}

/* Whether the reserve file is there with its blocks (not sparse). */
static int reserve_whole(const struct dspace *sp)
{
    struct stat st;
    return stat(sp->path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == sp->want &&
           (long long)st.st_blocks * 512 >= sp->want;
}

/* Allocate the reserve: a new file of `want` bytes renamed into place. */
static int make_reserve(struct dmn *d)
{
    struct dspace *sp = &d->space;
    char *tmp = xprintf("%s.tmp", sp->path);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    int e = fd < 0 ? errno : posix_fallocate(fd, 0, (off_t)sp->want);
    if (!e && fsync(fd) < 0)
        e = errno;
    if (fd >= 0 && close(fd) < 0 && !e)
        e = errno;
    if (!e && rename(tmp, sp->path) < 0)
        e = errno;
    if (e)
        unlink(tmp);
    free(tmp);
    if (e) {
        dlog(d->log, 0, "warning: %s: the disk reserve of %lld bytes could not be made: %s",
             sp->path, sp->want, strerror(e));
        return -1;
    }
    sp->held = 1;
    return 0;
}

static void release(struct dmn *d, const char *why)
{
    struct dspace *sp = &d->space;
    if (unlink(sp->path) < 0 && errno != ENOENT) {
        dlog(d->log, 0, "error: %s: cannot remove the disk reserve: %s", sp->path, strerror(errno));
        return;
    }
    sp->held = 0;
    dlog(d->log, 0,
         "error: the disk of %s is full (%s): its reserve of %lld bytes was released so that "
         "cancels, holds and job ends are still recorded; no job is taken or started until "
         "there is room for it again",
         d->home, why, sp->want);
}

void dspace_open(struct dmn *d)
{
    struct dspace *sp = &d->space;
    if (!sp->path)
        sp->path = xprintf("%s/moku.reserve", d->home);
    long long want = cfg_int(d->cfg, "DISKRESERVE", NULL);
    if (sp->held && want == sp->want)
        return;
    sp->want = want;
    sp->held = 0;
    if (want == 0) {
        unlink(sp->path); /* DISKRESERVE 0: no reserve */
    } else if (reserve_whole(sp)) {
        sp->held = 1; /* kept from before (a restart on a full disk finds it here) */
    } else {
        unlink(sp->path);
        long long avail = free_bytes(d->home);
        if (avail >= want + floor_bytes(sp))
            make_reserve(d);
        else
            dlog(d->log, 0, "warning: %s: %lld bytes free, too few for the disk reserve of %lld",
                 d->home, avail, want);
    }
    sp->avail = -1;
    dspace_check(d);
}

void dspace_check(struct dmn *d)
{
    struct dspace *sp = &d->space;
    long long avail = free_bytes(d->home);
    if (avail < 0)
        return; /* statvfs cannot fail on a directory we hold open files in */
    int was_low = sp->low;
    if (sp->held && avail < floor_bytes(sp)) {
        char why[64];
        snprintf(why, sizeof why, "%lld bytes free", avail);
        release(d, why);
        avail = free_bytes(d->home);
    } else if (!sp->held && sp->want > 0 && avail >= 2 * sp->want + floor_bytes(sp) &&
               make_reserve(d) == 0) {
        avail = free_bytes(d->home);
        dlog(d->log, 0,
             "the disk of %s has room again (%lld bytes free besides its reserve of "
             "%lld bytes, made again): jobs are taken and started",
             d->home, avail, sp->want);
    }
    sp->avail = avail;
    /* Without its reserve the daemon is on what the reserve gave back: that
     * is for the changes already acknowledged, not for new jobs. */
    sp->low = dspace_full(d) || avail < (sp->want > 0 ? sp->want : MIB);
    if (sp->low != was_low)
        dlog(d->log, 0,
             sp->low ? "warning: the disk of %s is nearly full (%lld bytes free): "
                       "new jobs are refused until there is room"
                     : "the disk of %s has room for new jobs again (%lld bytes free)",
             d->home, sp->avail);
}

void dspace_commit_failed(struct dmn *d)
{
    struct dspace *sp = &d->space;
    long long avail = free_bytes(d->home);
    if (sp->held && avail >= 0 && avail < sp->want) {
        char why[96];
        snprintf(why, sizeof why, "a commit failed with %lld bytes free", avail);
        release(d, why);
    }
}

int dspace_full(const struct dmn *d)
{
    return d->space.want > 0 && !d->space.held;
}

/* ---- the tally of live jobs, once per group ---- */

/* uid's slot, taken if new (*fresh then 1). */
static struct dspace_uid *tally_slot(struct dspace_tally *t, long uid, int *fresh)
{
    size_t i = ((size_t)uid * 2654435761u) & (t->cap - 1);
    while (t->v[i].used && t->v[i].uid != uid)
        i = (i + 1) & (t->cap - 1);
    *fresh = !t->v[i].used;
    t->v[i].used = 1;
    t->v[i].uid = uid;
    return &t->v[i];
}

static void tally_resize(struct dspace_tally *t, size_t cap)
{
    struct dspace_tally old = *t;
    t->cap = cap;
    t->v = xcalloc(cap, sizeof *t->v);
    t->uids = 0;
    for (size_t i = 0; i < old.cap; i++)
        if (old.v[i].used) {
            int fresh;
            tally_slot(t, old.v[i].uid, &fresh)->bytes = old.v[i].bytes;
            t->uids++;
        }
    free(old.v);
}

static void tally_add(struct dspace_tally *t, long uid, long long bytes)
{
    int fresh;
    tally_slot(t, uid, &fresh)->bytes += bytes;
    t->uids += fresh;
    if (2 * t->uids >= t->cap)
        tally_resize(t, 2 * t->cap);
}

/* One pass over the jobs: the live ones, and each uid's bytes. */
static void tally_count(struct dmn *d)
{
    struct dspace_tally *t = &d->space.tally;
    free(t->v);
    *t = (struct dspace_tally){.v = xcalloc(64, sizeof *t->v), .cap = 64};
    for (size_t i = 0; i < d->njobs; i++) {
        const struct djob *dj = d->jobs[i];
        if (dj->rec.state == SJ_COMPLETED || dj->rec.state == SJ_REMOVED)
            continue;
        t->live++;
        tally_add(t, dj->rec.uid, (long long)dj->bytes);
    }
}

/* uid's bytes, 0 for a uid with none. A look, not a slot taken: a slot
 * taken here was not counted in t->uids, so the table was never grown for
 * it, and as many new users as it had slots, submitting between two
 * recounts, filled it and left tally_slot searching for ever. */
static long long tally_bytes(const struct dspace_tally *t, long uid)
{
    size_t i = ((size_t)uid * 2654435761u) & (t->cap - 1);
    while (t->v[i].used && t->v[i].uid != uid)
        i = (i + 1) & (t->cap - 1);
    return t->v[i].used ? t->v[i].bytes : 0;
}

void dspace_submitted(struct dmn *d, uid_t uid, size_t bytes)
{
    struct dspace_tally *t = &d->space.tally;
    if (!t->v)
        return; /* none kept: the next submission counts afresh */
    t->live++;
    tally_add(t, (long)uid, (long long)bytes);
}

void dspace_group_done(struct dmn *d)
{
    free(d->space.tally.v);
    d->space.tally = (struct dspace_tally){0};
}

int dspace_submit_ok(struct dmn *d, uid_t uid, size_t bytes, size_t njobs, int local,
                     struct err *err)
{
    if (d->space.low)
        return err_set(err,
                       "the disk of the daemon's state is nearly full (%lld bytes free, "
                       "DISKRESERVE %lld): new jobs are refused until there is room (cancels, "
                       "holds and job ends are still recorded)",
                       d->space.avail, d->space.want);
    if (!local)
        return 0;
    long long maxjobs = cfg_int(d->cfg, "MAXJOBCOUNT", NULL);
    long long maxbytes = cfg_int(d->cfg, "MAXSUBMITBYTES", NULL);
    /* Counted once per group (dspace_submitted keeps it up until the group
     * is committed: nothing else changes jobs meanwhile), afresh for a
     * submission outside a group. */
    int grouped = store_group_is_open(d->st);
    if (!d->space.tally.v || !grouped)
        tally_count(d);
    struct dspace_tally *t = &d->space.tally;
    long long live = t->live, mine = tally_bytes(t, (long)uid);
    if (!grouped)
        dspace_group_done(d);
    if (maxjobs > 0 && live >= maxjobs)
        return err_set(err, "the daemon holds %lld jobs already (MAXJOBCOUNT %lld)", live, maxjobs);
    if (maxjobs > 0 && live + (long long)njobs > maxjobs)
        return err_set(err,
                       "the daemon holds %lld jobs, and %zu more would pass MAXJOBCOUNT %lld (an "
                       "array's tasks count as jobs)",
                       live, njobs, maxjobs);
    if (maxbytes > 0 && mine + (long long)bytes > maxbytes)
        return err_set(err,
                       "your queued and running jobs' scripts and environments would take %lld "
                       "bytes (MAXSUBMITBYTES %lld)",
                       mine + (long long)bytes, maxbytes);
    return 0;
}

void dspace_close(struct dmn *d)
{
    dspace_group_done(d);
    free(d->space.path);
    d->space.path = NULL;
}
