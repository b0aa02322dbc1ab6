/* fuzz_home — a moku home's history (trace/homelog.c, through the store's
 * read-only connection) when its moku.db holds any bytes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "trace/homelog.h"

static int each(void *ctx, const struct store_job *j, struct err *err)
{
    (void)err;
    *(long *)ctx += j->start + j->end + j->tasks + (j->user ? j->user[0] : 0);
    return 0;
}

static char home[4096];

static void remove_dir(void)
{
    rmdir(home);
}

/* The home: a directory of our own beside the file fuzz_file writes. */
static const char *home_dir(void)
{
    if (!home[0]) {
        const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
        /* Any TMPDIR: one cut short named a directory that is not there. */
        if ((size_t)snprintf(home, sizeof home, "%s/mokufuzzhome.XXXXXX", tmp) >= sizeof home)
            abort();
        if (!mkdtemp(home))
            abort();
        atexit(remove_dir);
    }
    return home;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *dir = home_dir();
    char db[4200], side[4210];
    snprintf(db, sizeof db, "%s/moku.db", dir);
    for (int k = 0; k < 2; k++) { /* no WAL left from the input before */
        snprintf(side, sizeof side, "%s%s", db, k ? "-shm" : "-wal");
        unlink(side);
    }
    if (rename(fuzz_file(data, size), db) < 0)
        abort();
    struct err e;
    struct homelog_info info;
    long sum = 0;
    homelog_scan(dir, &info, each, &sum, &e);
    for (int k = 0; k < 2; k++) {
        snprintf(side, sizeof side, "%s%s", db, k ? "-shm" : "-wal");
        unlink(side);
    }
    unlink(db);
    return 0;
}
