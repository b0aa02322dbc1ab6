/*
 * sub_bench — the daemon's own submission rate, without the cost of a
 * client process per job: N submissions from P processes at once (P
 * connections open together: what portals or workflow engines submitting
 * through the socket would see), each connection carrying a batch of B
 * requests (default 1: one connection per submission). A batch is sent
 * whole before its replies are read, as a client that pipelines would
 * (wire.h); every reply is read before the next batch of its process, so
 * each submission is durable when counted.
 *
 *   sub_bench SOCKET N [P [B]]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "wire/wire.h"

/* n submissions, in batches of b, one batch after another: 0, or 1 after
 * saying why. */
static int submit_n(const char *sock, long n, long b)
{
    const char *req = "{\"cmd\":\"submit\",\"job\":{\"name\":\"bench\",\"cwd\":\"/tmp\","
                      "\"script\":\"true\\n\",\"tasks\":1,\"ppn\":1,\"nodes\":0}}";
    for (long i = 0; i < n; i += b) {
        long k = n - i < b ? n - i : b;
        struct err e;
        int fd = wire_connect(sock, 10000, &e);
        if (fd < 0) {
            fprintf(stderr, "sub_bench: %s\n", e.msg);
            return 1;
        }
        for (long j = 0; j < k; j++)
            if (wire_send(fd, req, strlen(req), 10000, &e) < 0) {
                fprintf(stderr, "sub_bench: %s\n", e.msg);
                return 1;
            }
        for (long j = 0; j < k; j++) {
            char *buf;
            size_t len;
            if (wire_recv(fd, &buf, &len, 1 << 20, 10000, &e) < 0) {
                fprintf(stderr, "sub_bench: %s\n", e.msg);
                return 1;
            }
            if (!strstr(buf, "\"ok\":true")) {
                fprintf(stderr, "sub_bench: %s\n", buf);
                return 1;
            }
            free(buf);
        }
        close(fd);
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 3 || argc > 5) {
        fprintf(stderr, "usage: sub_bench SOCKET N [P [B]]\n");
        return 2;
    }
    long n = atol(argv[2]), p = argc >= 4 ? atol(argv[3]) : 1, b = argc == 5 ? atol(argv[4]) : 1;
    if (n < 1 || p < 1 || p > 64 || b < 1 || b > 64) {
        fprintf(stderr, "sub_bench: N >= 1, 1 <= P <= 64 and 1 <= B <= 64\n");
        return 2;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (long k = 0; k < p; k++) {
        pid_t pid = fork();
        if (pid < 0) {
            perror("sub_bench: fork");
            return 1;
        }
        if (pid == 0)
            _exit(submit_n(argv[1], n / p + (k < n % p), b));
    }
    int failed = 0, status;
    while (wait(&status) > 0)
        failed |= !WIFEXITED(status) || WEXITSTATUS(status) != 0;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (failed)
        return 1;
    double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    printf("daemon: %ld submissions over the socket, %ld connections at once, %ld a connection: "
           "%.2f s, %.0f/s\n",
           n, p, b, s, (double)n / s);
    return 0;
}
