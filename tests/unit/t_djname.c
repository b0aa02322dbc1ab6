/* t_djname — a job's name as the daemon writes it (src/daemon/darray.c,
 * djobs_name): a plain job's id is written by hand since issue 31 (snprintf
 * was 5 % of a restore), so it is held here to snprintf's answer for every
 * number of digits, signs, and every cut a short buffer makes. */
#include <limits.h>
#include <string.h>

#include "daemon/daemon_int.h"
#include "test.h"

static void test_plain_ids_as_snprintf(void)
{
    long ids[] = {0,     1,      9,           10,       99, 100, 1025,    4097,
                  99999, 100000, 1234567890L, LONG_MAX, -1, -42, LONG_MIN};
    for (size_t i = 0; i < sizeof ids / sizeof *ids; i++)
        for (size_t n = 0; n <= 32; n++) {
            struct store_job r = {0};
            r.id = ids[i];
            char got[32], want[32];
            memset(got, 'x', sizeof got);
            memset(want, 'x', sizeof want);
            djobs_name(&r, got, n);
            snprintf(want, n, "%ld", ids[i]);
            CHECK(memcmp(got, want, sizeof got) == 0);
        }
}

static void test_array_task(void)
{
    struct store_job r = {0};
    r.id = 77;
    r.array_id = 12;
    r.array_index = 3;
    char got[32];
    djobs_name(&r, got, sizeof got);
    CHECK_STR(got, "12[3]");
}

int main(void)
{
    TEST_RUN(test_plain_ids_as_snprintf);
    TEST_RUN(test_array_task);
    return TEST_DONE();
}
