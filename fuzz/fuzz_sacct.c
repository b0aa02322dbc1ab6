/* fuzz_sacct — the sacct --parsable2 reader (trace/sacct.c) on any bytes. */
#include "fuzz.h"
#include "trace/sacct.h"

static int each(void *ctx, const struct sacct_rec *rec, struct err *err)
{
    (void)err;
    /* touch what the loader reads */
    *(long long *)ctx += rec->submit + rec->start + rec->end + rec->timelimit + rec->ncpus +
                         (rec->id ? rec->id[0] : 0);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct err e;
    struct sacct_info info;
    long long sum = 0;
    sacct_scan(fuzz_file(data, size), &info, each, &sum, &e);
    return 0;
}
