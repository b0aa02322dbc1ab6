/*
 * crashpt — crash and failure points for the crash tests, compiled only into
 * test builds (make builds build/crash/moku with -DMOKU_CRASHPOINTS; the
 * moku users run has neither the code nor the environment variables).
 *
 * A crash point is a named place between two steps that must each survive
 * a crash (after a commit, before a reply, ...). With
 * MOKU_CRASH=name[@n] in the environment the process kills itself with
 * SIGKILL the n-th time (default 1) it passes that point: the same as a
 * `kill -9` there, with no exit handlers and no flushing. A failure point
 * makes an operation fail as a full disk would: MOKU_FAIL=name@n fails the
 * n-th pass only (a passing fault), name@n+ the n-th and every later one (a
 * disk that stays full), name alone every pass.
 *
 * tests/integration/crash.sh lists the points it exercises; the names are
 * grep-able at their call sites.
 */
#ifndef MOKU_CRASHPT_H
#define MOKU_CRASHPT_H

#ifdef MOKU_CRASHPOINTS
/* Kill this process (SIGKILL) if MOKU_CRASH names this point and pass. */
void crashpt(const char *name);
/* 1 if MOKU_FAIL names this point and this pass (see above). */
int crashpt_fail(const char *name);
#else
static inline void crashpt(const char *name)
{
    (void)name;
}
static inline int crashpt_fail(const char *name)
{
    (void)name;
    return 0;
}
#endif

#endif
