/* fuzz_tacct — Torque's accounting log reader (trace/tacct.c) on any bytes. */
#include "fuzz.h"
#include "trace/tacct.h"

static int each(void *ctx, const struct tacct_rec *rec, struct err *err)
{
    (void)err;
    *(long long *)ctx += rec->start + rec->end + rec->exec_slots + rec->req_nodes_procs +
                         (long long)rec->req_mem_mb + (rec->id ? rec->id[0] : 0) +
                         (rec->user ? rec->user[0] : 0);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct err e;
    struct tacct_info info;
    long long sum = 0;
    tacct_scan(fuzz_file(data, size), &info, each, &sum, &e);
    return 0;
}
