/*
 * fuzz/replay.c — a harness without libFuzzer: runs LLVMFuzzerTestOneInput
 * on every file named (directories: every file in them, in name order), so
 * that `make check` replays the saved corpus with the ordinary compiler. A
 * crash, an abort or a sanitizer report fails the run; it prints how many
 * inputs it ran.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return -1;
    }
    size_t cap = 4096, n = 0, got;
    uint8_t *buf = malloc(cap);
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap)
            buf = realloc(buf, cap *= 2);
    }
    fclose(f);
    if (!buf)
        abort();
    LLVMFuzzerTestOneInput(buf, n);
    free(buf);
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static long run_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) {
        perror(dir);
        return -1;
    }
    char **names = NULL;
    size_t n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        names = realloc(names, (n + 1) * sizeof *names);
        names[n] = malloc(strlen(dir) + strlen(e->d_name) + 2);
        sprintf(names[n++], "%s/%s", dir, e->d_name);
    }
    closedir(d);
    qsort(names, n, sizeof *names, by_name);
    long ran = 0;
    for (size_t i = 0; i < n; i++) {
        if (run_file(names[i]) == 0)
            ran++;
        free(names[i]);
    }
    free(names);
    return ran;
}

int main(int argc, char **argv)
{
    long ran = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) < 0) {
            perror(argv[i]);
            return 1;
        }
        long r = S_ISDIR(st.st_mode) ? run_dir(argv[i]) : run_file(argv[i]) == 0;
        if (r < 0)
            return 1;
        ran += r;
    }
    printf("%s: %ld inputs\n", argv[0], ran);
    return 0;
}
