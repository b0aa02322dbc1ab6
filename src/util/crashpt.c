/* crashpt — see crashpt.h. Empty unless built with -DMOKU_CRASHPOINTS. */
#include "util/crashpt.h"

#ifdef MOKU_CRASHPOINTS

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * Whether the environment variable var names point `name`, and on which
 * pass: "name" or "name@n". Each point counts its own passes; the counts
 * live in a small table (a test names one point at a time).
 */
static long pass_of(const char *var, const char *name, long *want)
{
    static struct {
        const char *name;
        long passes;
    } seen[16];
    const char *v = getenv(var);
    size_t n = strlen(name);
    if (!v || strncmp(v, name, n) != 0 || (v[n] != '\0' && v[n] != '@'))
        return 0;
    *want = v[n] == '@' ? strtol(v + n + 1, NULL, 10) : 1;
    for (size_t i = 0; i < sizeof seen / sizeof seen[0]; i++) {
        if (!seen[i].name)
            seen[i].name = name;
        if (strcmp(seen[i].name, name) == 0)
            return ++seen[i].passes;
    }
    return 0;
}

void crashpt(const char *name)
{
    long want = 1;
    if (pass_of("MOKU_CRASH", name, &want) == want)
        kill(getpid(), SIGKILL);
}

int crashpt_fail(const char *name)
{
    long want = 1, pass = pass_of("MOKU_FAIL", name, &want);
    return pass > 0 && pass >= want;
}

#else
/* ISO C wants a translation unit to declare something. */
typedef int crashpt_unused;
#endif
