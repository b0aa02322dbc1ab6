/*
 * homelog — the history of a moku home (`moku serve --home DIR`): the jobs
 * its daemon took, as its database (DIR/moku.db, src/store) keeps them, for
 * `moku simulate DIR` to replay what the daemon ran.
 *
 * The database is opened read-only (a running daemon is not disturbed);
 * jobs come in id order, which is submission order. Jobs not ended yet
 * (queued, running, suspended) are counted, not handed out. Like the other
 * trace readers this layer only reads: what a record means for a replay is
 * sim/workload_acct.c's to decide.
 */
#ifndef MOKU_HOMELOG_H
#define MOKU_HOMELOG_H

#include <stddef.h>

#include "store/store.h"
#include "util/err.h"

/* Whether path is a directory (a home: moku.db is looked for in it). */
int homelog_is_dir(const char *path);

struct homelog_info {
    size_t unfinished; /* jobs queued, running or suspended */
};

/*
 * Every ended job of the home at dir (completed, or removed), in id order,
 * to each(ctx, job) (valid during the call only). Returns 0, or -1 with err
 * ("DIR/moku.db: ...") when there is no database, it cannot be read (a
 * schema of another moku version), or each returns non-zero.
 */
int homelog_scan(const char *dir, struct homelog_info *info,
                 int (*each)(void *ctx, const struct store_job *j, struct err *err), void *ctx,
                 struct err *err);

/* The path of the home's database (caller frees). */
char *homelog_db_path(const char *dir);

#endif
