/* crashpt — see crashpt.h. Empty unless built with -DMOKU_CRASHPOINTS. */
#include "util/crashpt.h"

#ifdef MOKU_CRASHPOINTS

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * Whether the environment variable var names point `name` ("name",
 * "name@n" or "name@n+"): the pass number this is (0 when not named), the
 * pass wanted (*want, 0 = every one) and whether later ones count too
 * (*later). Each point counts its own passes, in a small table (a test
 * names one point at a time).
 */
static long pass_of(const char *var, const char *name, long *want, int *later)
{
    static struct {
        const char *name;
        long passes;
    } seen[16];
    const char *v = getenv(var);
    size_t n = strlen(name);
    if (!v || strncmp(v, name, n) != 0 || (v[n] != '\0' && v[n] != '@'))
        return 0;
    char *end = NULL;
    *want = v[n] == '@' ? strtol(v + n + 1, &end, 10) : 0;
    *later = end && *end == '+';
    for (size_t i = 0; i < sizeof seen / sizeof seen[0]; i++) {
        if (!seen[i].name)
            seen[i].name = name;
        if (strcmp(seen[i].name, name) == 0)
            return ++seen[i].passes;
    }
    return 0;
}

static int hit(const char *var, const char *name)
{
    long want = 0;
    int later = 0;
    long pass = pass_of(var, name, &want, &later);
    return pass > 0 && (want == 0 || pass == want || (later && pass > want));
}

void crashpt(const char *name)
{
    if (hit("MOKU_CRASH", name))
        kill(getpid(), SIGKILL);
}

int crashpt_fail(const char *name)
{
    return hit("MOKU_FAIL", name);
}

#else
/* ISO C wants a translation unit to declare something. */
typedef int crashpt_unused;
#endif
