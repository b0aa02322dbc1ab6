/* fuzz_mtrace — Maui's workload and resource trace readers (trace/mtrace.c);
 * the first byte chooses which, the rest is the file. */
#include "fuzz.h"
#include "trace/mtrace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const char *path = fuzz_file(data + 1, size - 1);
    struct err e;
    if (data[0] & 1) {
        struct mtrace_resource r;
        if (mtrace_read_resource(path, &r, &e) == 0)
            mtrace_resource_free(&r);
    } else {
        struct mtrace_workload w;
        if (mtrace_read_workload(path, &w, &e) == 0)
            mtrace_workload_free(&w);
    }
    return 0;
}
