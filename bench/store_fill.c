/*
 * store_fill — writes N idle, held jobs straight into a daemon's database
 * (one transaction), so that `make bench` can measure the daemon's start-up
 * and memory with a large queue without submitting for minutes. With
 * "arrays", the jobs are the tasks of arrays of 1,000 (qsub -t), each with
 * its script stored, as a local submission leaves them.
 *
 *   store_fill DB N USER UID GID [arrays]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/job.h"
#include "store/store.h"

int main(int argc, char **argv)
{
    int arrays = argc == 7 && strcmp(argv[6], "arrays") == 0;
    if (argc != 6 && !arrays) {
        fprintf(stderr, "usage: store_fill DB N USER UID GID [arrays]\n");
        return 2;
    }
    struct err e;
    struct store *st = store_open(argv[1], &e);
    if (!st || store_begin(st, &e) < 0) {
        fprintf(stderr, "store_fill: %s\n", e.msg);
        return 1;
    }
    long n = atol(argv[2]);
    long array = 0; /* the array being filled: its first task's id */
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
        if (arrays) {
            j.array_id = i % 1000 ? array : 0; /* a first task is its array's id, once it has one */
            j.array_index = (unsigned)(i % 1000);
        }
        int rc = store_job_add(st, &j, &e);
        if (rc == 0 && arrays && i % 1000 == 0) {
            array = j.array_id = j.id;
            rc = store_job_put(st, &j, &e);
        }
        if (rc < 0 || (arrays && store_script_put(st, j.id, "#!/bin/sh\ntrue\n", &e) < 0)) {
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
