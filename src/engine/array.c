/*
 * array — see array.h. Job array tasks and their slot-limit hold.
 *
 * sched_array_update walks the jobs only while some task waits for a slot
 * (s->nslotjobs): it counts, per array, the tasks holding a slot, then
 * releases waiting ones in index order into what is free. A walk is O(jobs);
 * it runs once per iteration and only while such tasks exist.
 */
#include "engine/array.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/sched_int.h"
#include "engine/engine.h"
#include "util/mem.h"
#include "util/strmap.h"

int sched_array_in_slot(const struct job *j)
{
    return j->array && (j->state == JOB_IDLE || j->state == JOB_RUNNING) && !(j->holds & HOLD_SLOT);
}

/* An array's name, one copy for its tasks: tasks come in runs of one
 * array (a submission of an array, a restore in id order), so the name
 * made last is given to each task that follows with the same name, and
 * freed with the last that holds it. 100,000 restored tasks held a copy
 * each (3.2 MB, issue 31). */
struct array_name {
    size_t refs; /* the tasks holding it, and the engine while it is last_array */
    char name[];
};

static struct array_name *name_block(char *name)
{
    return (struct array_name *)(name - offsetof(struct array_name, name));
}

void array_name_drop(char *name)
{
    if (name && --name_block(name)->refs == 0)
        free(name_block(name));
}

void array_names_free(struct sched *s)
{
    if (s->last_array)
        array_name_drop(s->last_array->name);
    s->last_array = NULL;
}

/* The shared copy of name, one reference taken for the caller. */
static char *array_name_take(struct sched *s, const char *name)
{
    struct array_name *a = s->last_array;
    if (!a || strcmp(a->name, name) != 0) {
        array_names_free(s);
        size_t len = strlen(name) + 1;
        a = xmalloc(sizeof *a + len);
        a->refs = 1;
        memcpy(a->name, name, len);
        s->last_array = a;
    }
    a->refs++;
    return a->name;
}

int sched_set_array(struct sched *s, struct job *j, const char *array, unsigned index,
                    unsigned slots, int held, struct err *err)
{
    int ended = j->state != JOB_IDLE && j->state != JOB_RUNNING;
    if (j->array || (ended && held))
        return err_set(err,
                       "job %s: only a job that is not a task may become one, held only if queued",
                       j->name);
    if (!array || !*array)
        return err_set(err, "job %s: an array task needs its array's name", j->name);
    j->array = array_name_take(s, array);
    j->aindex = index;
    j->aslots = slots;
    if (slots && held && j->state == JOB_IDLE) {
        queue_hold(s, j, HOLD_SLOT);
        s->nslotjobs++;
    }
    return 0;
}

/* Waiting tasks by array, then index: the order slots are given in. */
static int by_array_index(const void *pa, const void *pb)
{
    const struct job *a = *(struct job *const *)pa, *b = *(struct job *const *)pb;
    int c = strcmp(a->array, b->array);
    if (c)
        return c;
    return (a->aindex > b->aindex) - (a->aindex < b->aindex);
}

/* sched_array_update's walk, out of line: its frame (a map on the stack,
 * guarded) is not paid at every iteration when no task waits. */
__attribute__((noinline)) static size_t slots_walk(struct sched *s, long now)
{
    struct strmap used; /* array name -> tasks holding a slot */
    strmap_init(&used);
    struct job **wait = xmalloc(s->nslotjobs * sizeof *wait);
    size_t nwait = 0;
    for (size_t i = 0; i < s->njobs - s->jobs_base; i++) {
        struct job *j = s->jobs[i];
        if (!j || !j->array || !j->aslots)
            continue;
        if (j->state == JOB_IDLE && (j->holds & HOLD_SLOT) && nwait < s->nslotjobs) {
            wait[nwait++] = j;
        } else if (sched_array_in_slot(j)) {
            size_t n = 0;
            strmap_get(&used, j->array, &n);
            strmap_put(&used, j->array, n + 1);
        }
    }
    qsort(wait, nwait, sizeof *wait, by_array_index);
    size_t released = 0;
    for (size_t i = 0; i < nwait; i++) {
        struct job *j = wait[i];
        size_t n = 0;
        strmap_get(&used, j->array, &n);
        if (n >= j->aslots)
            continue;
        strmap_put(&used, j->array, n + 1); /* the key is j's: alive past the walk */
        sched_release(s, j, HOLD_SLOT, now, NULL);
        released++;
    }
    s->nslotjobs = nwait - released;
    free(wait);
    strmap_free(&used);
    return released;
}

size_t sched_array_update(struct sched *s, long now)
{
    return s->nslotjobs ? slots_walk(s, now) : 0;
}
