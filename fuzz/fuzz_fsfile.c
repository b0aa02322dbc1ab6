/* fuzz_fsfile — Maui's fairshare data files (stats/fsfile.c, FS.<epoch>). */
#include "fuzz.h"
#include "stats/fsfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fsfile_data d;
    struct err e;
    if (fsfile_read(fuzz_file(data, size), &d, &e) == 1)
        fsfile_free(&d);
    return 0;
}
