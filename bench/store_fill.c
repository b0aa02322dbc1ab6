/*
 * store_fill — writes N idle, held jobs straight into a daemon's database
 * (one transaction), so that `make bench` can measure the daemon's start-up
 * and memory with a large queue without submitting for minutes.
 *
 *   store_fill DB N USER UID GID
 */
#include <stdio.h>
#include <stdlib.h>

#include "core/job.h"
#include "store/store.h"

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: store_fill DB N USER UID GID\n");
        return 2;
    }
    struct err e;
    struct store *st = store_open(argv[1], &e);
    if (!st || store_begin(st, &e) < 0) {
        fprintf(stderr, "store_fill: %s\n", e.msg);
        return 1;
    }
    long n = atol(argv[2]);
    for (long i = 0; i < n; i++) {
        struct store_job j = {
            .user = argv[3],
            .group = argv[3],
            .uid = atol(argv[4]),
            .gid = atol(argv[5]),
            .tasks = 1,
            .ppn = 1,
            .walltime = 3600,
            .submit = 1700000000 + i,
            .holds = HOLD_USER,
            .state = SJ_IDLE,
            .exit_status = -1,
            .script = "/bin/true",
            .cwd = "/tmp",
        };
        if (store_job_add(st, &j, &e) < 0) {
            fprintf(stderr, "store_fill: %s\n", e.msg);
            return 1;
        }
    }
    if (store_commit(st, &e) < 0) {
        fprintf(stderr, "store_fill: %s\n", e.msg);
        return 1;
    }
    store_close(st);
    return 0;
}
