/*
 * sub_bench — the daemon's own submission rate, without the cost of a
 * client process per job: N submissions, one connection each, from one
 * process (what a portal or a workflow engine submitting through the socket
 * would see).
 *
 *   sub_bench SOCKET N
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "wire/wire.h"

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: sub_bench SOCKET N\n");
        return 2;
    }
    long n = atol(argv[2]);
    const char *req = "{\"cmd\":\"submit\",\"job\":{\"name\":\"bench\",\"cwd\":\"/tmp\","
                      "\"script\":\"true\\n\",\"tasks\":1,\"ppn\":1,\"nodes\":0}}";
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (long i = 0; i < n; i++) {
        struct err e;
        char *buf;
        size_t len;
        int fd = wire_connect(argv[1], 10000, &e);
        if (fd < 0 || wire_send(fd, req, strlen(req), 10000, &e) < 0 ||
            wire_recv(fd, &buf, &len, 1 << 20, 10000, &e) < 0) {
            fprintf(stderr, "sub_bench: %s\n", e.msg);
            return 1;
        }
        if (!strstr(buf, "\"ok\":true")) {
            fprintf(stderr, "sub_bench: %s\n", buf);
            return 1;
        }
        free(buf);
        close(fd);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    printf("daemon: %ld submissions over the socket from one process: %.2f s, %.0f/s\n", n, s,
           (double)n / s);
    return 0;
}
