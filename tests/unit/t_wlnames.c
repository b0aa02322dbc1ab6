/*
 * t_wlnames — the names of a trace's jobs (workload_read_swf): user, group
 * and queue numbers become interned names, one wl_names per triple, which
 * the loader remembers by number (a memo of places that triples share):
 * every job's names read as its numbers, -1 as none, and two jobs share a
 * pointer exactly when their triples are equal. Fixed seed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/workload.h"
#include "test.h"

enum { LINES = 4000 };

/* A random number of a field: -1 (none) now and then, a large one (past
 * workload.c's table of small numbers) now and then, else one of n. */
static long long pick(unsigned *seed, unsigned n)
{
    *seed = *seed * 1103515245u + 12345u;
    unsigned r = *seed >> 8;
    if (r % 23 == 0)
        return -1;
    if (r % 31 == 0)
        return 65536 + (r >> 5) % 3;
    return (r >> 5) % n;
}

/* The name a number must have: its digits, or none for -1. */
static int name_is(const char *name, long long v)
{
    char buf[24];
    if (v < 0)
        return name == NULL;
    snprintf(buf, sizeof buf, "%lld", v);
    return name && strcmp(name, buf) == 0;
}

static void test_names_by_number(void)
{
    static long long num[LINES][3];
    static char text[LINES * 96];
    unsigned seed = 31;
    size_t len = 0;
    for (int i = 0; i < LINES; i++) {
        for (int f = 0; f < 3; f++)
            num[i][f] = pick(&seed, f == 0 ? 300 : f == 1 ? 6 : 4);
        len +=
            (size_t)sprintf(text + len, "%d %d 0 10 1 -1 -1 1 60 -1 1 %lld %lld -1 %lld -1 -1 -1\n",
                            i + 1, i, num[i][0], num[i][1], num[i][2]);
    }
    char path[32];
    write_temp_named(path, "t_wlnames", text, len);
    struct workload wl; /* workload_read_swf initialises it */
    struct err err = {""};
    CHECK_EQ(workload_read_swf(path, 0, &wl, &err), 0);
    unlink(path);
    CHECK_STR(err.msg, "");
    CHECK_EQ(wl.njobs, LINES);
    static const struct wl_names *of[LINES];
    int bad = 0;
    for (size_t j = 0; j < wl.njobs && j < LINES; j++) {
        long i = wl.jobs[j].line - 1;
        const struct wl_names *n = wl.jobs[j].names;
        of[i] = n;
        int none = num[i][0] < 0 && num[i][1] < 0 && num[i][2] < 0;
        if (none ? n != NULL
                 : !n || !name_is(n->user, num[i][0]) || !name_is(n->group, num[i][1]) ||
                       !name_is(n->class_, num[i][2]))
            bad++;
    }
    CHECK_EQ(bad, 0);
    /* Equal triples, one pointer; other triples, others. */
    int shared = 0;
    for (int i = 0; i < LINES; i += 7)
        for (int k = i + 1; k < LINES; k++) {
            int same = memcmp(num[i], num[k], sizeof num[i]) == 0;
            if (same != (of[i] == of[k]))
                shared++;
        }
    CHECK_EQ(shared, 0);
    workload_free(&wl);
}

int main(void)
{
    TEST_RUN(test_names_by_number);
    return TEST_DONE();
}
