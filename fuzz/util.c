/* fuzz/util.c — helpers the harnesses share (fuzz.h). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"

static char path[4096];

static void remove_file(void)
{
    unlink(path);
}

const char *fuzz_file(const uint8_t *data, size_t size)
{
    if (!path[0]) {
        const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
        /* Any TMPDIR (tests/run.sh gives each test a directory of its own):
         * one cut short named a directory that is not there. */
        if ((size_t)snprintf(path, sizeof path, "%s/mokufuzz.XXXXXX", dir) >= sizeof path)
            abort();
        int fd = mkstemp(path);
        if (fd < 0)
            abort();
        close(fd);
        atexit(remove_file);
    }
    FILE *f = fopen(path, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0)
        abort();
    return path;
}
