/* fuzz_swf — the SWF reader (trace/swf.c) on any bytes, plain or gzip. */
#include "fuzz.h"
#include "trace/swf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct swf_trace t;
    struct err e;
    if (swf_read(fuzz_file(data, size), &t, &e) == 0)
        swf_free(&t);
    return 0;
}
