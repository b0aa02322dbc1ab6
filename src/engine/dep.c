/*
 * dep — see dep.h. Job dependencies: parsing Torque's depend= value,
 * judging each dependency against the job it names, and the HOLD_DEP hold
 * that keeps a waiting job out of the schedule.
 */
#include "engine/dep.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sched_int.h"
#include "engine/engine.h"
#include "util/mem.h"

static const char *const dep_names[] = {"after", "afterok", "afternotok", "afterany"};

const char *dep_type_name(enum dep_type t)
{
    return dep_names[t];
}

void dep_free(struct job_dep *deps, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(deps[i].on);
    free(deps);
}

/* The type named by [p, p+len), or -1. Torque's other types are named in
 * the caller's refusal. */
static int dep_type_of(const char *p, size_t len)
{
    for (int t = 0; t < 4; t++)
        if (strlen(dep_names[t]) == len && strncmp(p, dep_names[t], len) == 0)
            return t;
    return -1;
}

static int dep_add(struct job_dep **deps, size_t *n, enum dep_type t, const char *id, size_t len)
{
    size_t cut = strcspn(id, "."); /* "12.host" is job 12 */
    if (cut < len)
        len = cut;
    if (len == 0)
        return -1;
    *deps = xrealloc(*deps, (*n + 1) * sizeof **deps);
    (*deps)[(*n)++] = (struct job_dep){.type = t, .on = xstrndup(id, len)};
    return 0;
}

/* One "type:id[:id...]" of [p, p+len) appended to deps. */
static int dep_parse_one(const char *p, size_t len, struct job_dep **deps, size_t *n,
                         struct err *err)
{
    size_t tl = 0;
    while (tl < len && p[tl] != ':')
        tl++;
    int t = dep_type_of(p, tl);
    if (t < 0) {
        if (tl >= 6 && (strncmp(p, "before", 6) == 0 || strncmp(p, "sync", 4) == 0))
            return err_set(err,
                           "dependency type '%.*s' is not supported by moku (only after, "
                           "afterok, afternotok, afterany)",
                           (int)tl, p);
        return err_set(err, "unknown dependency type '%.*s' in '%.*s'", (int)tl, p, (int)len, p);
    }
    if (tl == len)
        return err_set(err, "dependency '%.*s' names no job", (int)len, p);
    size_t i = tl + 1;
    while (i <= len) {
        size_t e = i;
        while (e < len && p[e] != ':')
            e++;
        if (dep_add(deps, n, (enum dep_type)t, p + i, e - i) < 0)
            return err_set(err, "empty job id in dependency '%.*s'", (int)len, p);
        i = e + 1;
    }
    return 0;
}

int dep_parse(const char *text, struct job_dep **deps, size_t *n, struct err *err)
{
    struct job_dep *d = NULL;
    size_t nd = 0;
    const char *p = text;
    if (!*p) {
        return err_set(err, "empty dependency list");
    }
    for (;;) {
        size_t len = strcspn(p, ",");
        if (len == 0 || dep_parse_one(p, len, &d, &nd, err) < 0) {
            if (len == 0)
                err_set(err, "empty dependency in '%s'", text);
            dep_free(d, nd);
            return -1;
        }
        if (!p[len])
            break;
        p += len + 1;
    }
    *deps = d;
    *n = nd;
    return 0;
}

size_t dep_text(const struct job_dep *deps, size_t n, char *buf, size_t len)
{
    size_t used = 0;
    int prev = -1;
    if (len)
        buf[0] = 0;
    for (size_t i = 0; i < n; i++) {
        if (deps[i].met)
            continue;
        char *at = used < len ? buf + used : NULL;
        size_t room = used < len ? len - used : 0;
        int w = (int)deps[i].type == prev ? snprintf(at, room, ":%s", deps[i].on)
                                          : snprintf(at, room, "%s%s:%s", prev < 0 ? "" : ",",
                                                     dep_type_name(deps[i].type), deps[i].on);
        used += (size_t)w;
        prev = (int)deps[i].type;
    }
    return used;
}

/* Where dependency d stands against job o (NULL: not known, or purged
 * before it was judged): 1 met, 0 not yet, -1 never; why (-1) in *why. */
static int dep_judge(const struct job_dep *d, const struct job *o, const char **why)
{
    if (!o) {
        *why = "is not known";
        return -1;
    }
    int ended = o->state == JOB_COMPLETED || o->state == JOB_REMOVED;
    int ok = o->state == JOB_COMPLETED && o->exit_status <= 0; /* -1: no failure recorded */
    switch (d->type) {
    case DEP_AFTER:
        if (o->state == JOB_RUNNING || (ended && o->start > 0))
            return 1;
        *why = "ended without starting";
        return ended ? -1 : 0;
    case DEP_AFTEROK:
        *why = o->state == JOB_REMOVED ? "was removed" : "failed";
        return !ended ? 0 : ok ? 1 : -1;
    case DEP_AFTERNOTOK:
        *why = "succeeded";
        return !ended ? 0 : ok ? -1 : 1;
    case DEP_AFTERANY:
        return ended;
    }
    return 0;
}

void sched_set_dep_lookup(struct sched *s,
                          int (*fn)(void *ctx, const char *name, struct dep_past *p), void *ctx)
{
    s->dep_lookup = fn;
    s->dep_lookup_ctx = ctx;
}

/* The job named `on`: the scheduler's, else the driver's memory of it as a
 * job in *past (NULL: unknown). */
static const struct job *dep_other(const struct sched *s, const char *on, struct job *past)
{
    const struct job *o = sched_find_job(s, on);
    struct dep_past p;
    if (o || !s->dep_lookup || s->dep_lookup(s->dep_lookup_ctx, on, &p) != 1)
        return o;
    *past = (struct job){.state = p.removed ? JOB_REMOVED : JOB_COMPLETED,
                         .start = p.start,
                         .exit_status = p.exit_status};
    return past;
}

/* Judge j's dependencies: 1 all met, 0 some wait, -1 one never will (its
 * reason in msg). Met ones are marked so for good. */
static int dep_judge_all(const struct sched *s, struct job *j, char *msg, size_t len)
{
    int all = 1;
    for (size_t i = 0; i < j->ndeps; i++) {
        struct job_dep *d = &j->deps[i];
        if (d->met)
            continue;
        const char *why = NULL;
        struct job past;
        int r = dep_judge(d, dep_other(s, d->on, &past), &why);
        if (r < 0) {
            snprintf(msg, len, "dependency %s:%s can never be satisfied: job %s %s",
                     dep_type_name(d->type), d->on, d->on, why);
            return -1;
        }
        d->met = r == 1;
        all &= r == 1;
    }
    return all;
}

int sched_set_deps(struct sched *s, struct job *j, const char *text, struct err *err)
{
    if (j->state != JOB_IDLE || j->ndeps)
        return err_set(err, "job %s: dependencies can be given only to an idle job without any",
                       j->name);
    struct job_dep *d;
    size_t n;
    if (dep_parse(text, &d, &n, err) < 0)
        return -1;
    for (size_t i = 0; i < n; i++)
        if (strcmp(d[i].on, j->name) == 0) {
            dep_free(d, n);
            return err_set(err, "job %s cannot depend on itself", j->name);
        }
    j->deps = d;
    j->ndeps = n;
    char msg[256];
    int r = dep_judge_all(s, j, msg, sizeof msg);
    if (r < 0) {
        j->deps = NULL;
        j->ndeps = 0;
        dep_free(d, n);
        return err_set(err, "job %s: %s", j->name, msg);
    }
    if (r == 0) {
        queue_hold(s, j, HOLD_DEP);
        s->depheld = xgrow(s->depheld, &s->capdepheld, s->ndepheld + 1, sizeof *s->depheld);
        s->depheld[s->ndepheld++] = j;
    }
    return 0;
}

/* Whether job `from` waits, through the unmet dependencies of the jobs it
 * names and theirs, for job `target`: a walk of the dependency graph,
 * each job looked at once. */
static int dep_reaches(const struct sched *s, const struct job *from, const struct job *target)
{
    const struct job **todo = NULL, **seen = NULL;
    size_t ntodo = 0, nseen = 0, captodo = 0, capseen = 0;
    int found = 0;
    todo = xgrow(todo, &captodo, 1, sizeof *todo);
    todo[ntodo++] = from;
    while (ntodo && !found) {
        const struct job *j = todo[--ntodo];
        size_t k = 0;
        while (k < nseen && seen[k] != j)
            k++;
        if (k < nseen)
            continue;
        seen = xgrow(seen, &capseen, nseen + 1, sizeof *seen);
        seen[nseen++] = j;
        for (size_t i = 0; i < j->ndeps && !found; i++) {
            const struct job *o = j->deps[i].met ? NULL : sched_find_job(s, j->deps[i].on);
            found = o == target;
            if (o && !found) {
                todo = xgrow(todo, &captodo, ntodo + 1, sizeof *todo);
                todo[ntodo++] = o;
            }
        }
    }
    free(todo);
    free(seen);
    return found;
}

int sched_replace_deps(struct sched *s, struct job *j, const char *text, long now, struct err *err)
{
    if (j->state != JOB_IDLE)
        return err_set(err, "job %s: dependencies can be changed only while it is queued", j->name);
    struct job_dep *d;
    size_t n;
    if (dep_parse(text, &d, &n, err) < 0)
        return -1;
    struct job probe = {.name = j->name, .deps = d, .ndeps = n};
    char msg[256];
    int r = 0;
    for (size_t i = 0; i < n && r == 0; i++) {
        const struct job *o = sched_find_job(s, d[i].on);
        if (o == j)
            r = err_set(err, "job %s cannot depend on itself", j->name);
        else if (o && dep_reaches(s, o, j))
            r = err_set(err, "job %s: dependency on job %s makes a cycle (job %s waits for job %s)",
                        j->name, d[i].on, d[i].on, j->name);
    }
    if (r == 0 && (r = dep_judge_all(s, &probe, msg, sizeof msg)) < 0)
        err_set(err, "job %s: %s", j->name, msg);
    if (r < 0) {
        dep_free(d, n);
        return -1;
    }
    dep_forget(s, j);
    dep_free(j->deps, j->ndeps);
    j->deps = d;
    j->ndeps = n;
    if (r == 0) {
        if (!(j->holds & HOLD_DEP))
            queue_hold(s, j, HOLD_DEP);
        s->depheld = xgrow(s->depheld, &s->capdepheld, s->ndepheld + 1, sizeof *s->depheld);
        s->depheld[s->ndepheld++] = j;
    } else if (j->holds & HOLD_DEP) {
        sched_release(s, j, HOLD_DEP, now, NULL);
    }
    return 0;
}

int sched_deps_check(struct sched *s, const char *text, struct err *err)
{
    struct job_dep *d;
    size_t n;
    if (dep_parse(text, &d, &n, err) < 0)
        return -1;
    struct job probe = {.name = "", .deps = d, .ndeps = n};
    char msg[256];
    int r = dep_judge_all(s, &probe, msg, sizeof msg);
    dep_free(d, n);
    return r < 0 ? err_set(err, "%s", msg) : 0;
}

void dep_forget(struct sched *s, const struct job *j)
{
    for (size_t i = 0; i < s->ndepheld; i++)
        if (s->depheld[i] == j) {
            memmove(s->depheld + i, s->depheld + i + 1, (s->ndepheld - i - 1) * sizeof *s->depheld);
            s->ndepheld--;
            return;
        }
}

size_t sched_deps_removed(const struct sched *s)
{
    return s->ndepremoved;
}

/* sched_deps_update's walk, out of line: its frame (a message buffer,
 * guarded) is not paid at every iteration when no job waits. */
__attribute__((noinline)) static size_t deps_walk(struct sched *s, long now)
{
    size_t released = 0, waiting = 0;
    for (size_t i = 0; i < s->ndepheld; i++) {
        struct job *j = s->depheld[i];
        if (j->state != JOB_IDLE || !(j->holds & HOLD_DEP))
            continue; /* cancelled, or released by hand: no longer waits */
        char msg[256];
        int r = dep_judge_all(s, j, msg, sizeof msg);
        if (r > 0) {
            sched_release(s, j, HOLD_DEP, now, NULL);
            released++;
        } else if (r < 0) {
            sched_job_note(s, j, msg);
            sched_release(s, j, HOLD_DEP, now, NULL);
            sched_cancel(s, j, now, NULL);
            s->ndepremoved++;
        } else {
            s->depheld[waiting++] = j; /* in submission order still */
        }
    }
    s->ndepheld = waiting;
    return released;
}

size_t sched_deps_update(struct sched *s, long now)
{
    return s->ndepheld ? deps_walk(s, now) : 0;
}
