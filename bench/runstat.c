/*
 * runstat — run a command, then print its wall time, peak memory and CPU time:
 *   runstat CMD [ARG...]
 *   -> "wall_seconds=<s> peak_rss_kb=<kb> status=<n> cpu_seconds=<user+system s>
 *       sys_seconds=<system s>" on stderr
 * so that `make bench` needs nothing beyond a C compiler (no /usr/bin/time).
 * The CPU time is what a benchmark on a shared machine compares: other
 * processes stretch the wall time, much less the command's own CPU time.
 * The system part alone is printed too: writing a large file costs the
 * kernel's copy of it, which no change to the command's own code removes.
 */
#include <stdio.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: runstat CMD [ARG...]\n");
        return 2;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pid = fork();
    if (pid < 0) {
        perror("runstat: fork");
        return 2;
    }
    if (pid == 0) {
        execvp(argv[1], argv + 1);
        perror("runstat: exec");
        _exit(127);
    }
    int status;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) < 0) {
        perror("runstat: wait4");
        return 2;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double wall = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    double cpu = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
                 (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
    double sys = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
    fprintf(stderr,
            "wall_seconds=%.3f peak_rss_kb=%ld status=%d cpu_seconds=%.3f sys_seconds=%.3f\n", wall,
            ru.ru_maxrss, code, cpu, sys);
    return code;
}
