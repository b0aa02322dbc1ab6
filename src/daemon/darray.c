/*
 * darray — job arrays on the local resource manager (qsub -t, -J): each
 * task is a job of its own with its own consecutive id (the store's), the
 * array's id being its first task's. A task's engine name is Torque's task
 * id "12[3]" (so showq, checkjob and qstat name it as Torque does, and a
 * command finds it by that name); its record keeps the array's id, its
 * index and the %N slot limit, from which the engine's array task
 * (engine/array.h) is made again at every restore. "12[]" in a request
 * stands for every task of array 12 the daemon has (darray_expand).
 *
 * Slurm's arrays are Slurm's (dintake.c): their tasks keep Slurm's ids.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/cmdtab.h"
#include "daemon/daemon_int.h"
#include "engine/array.h"
#include "engine/engine.h"
#include "util/mem.h"

/* A job's name is written by hand: snprintf was 5 % of a 100,000-job
 * restore's instructions, and 10 % with array tasks (issue 31). dec_put
 * puts v in decimal before end (room for 21 characters), returning where
 * it starts. */
static char *dec_put(char *end, long v)
{
    unsigned long u = v < 0 ? 0UL - (unsigned long)v : (unsigned long)v;
    do
        *--end = (char)('0' + u % 10);
    while ((u /= 10) != 0);
    if (v < 0)
        *--end = '-';
    return end;
}

/* from[0, len) into buf, cut to n as snprintf. */
static void put_cut(const char *from, size_t len, char *buf, size_t n)
{
    if (n == 0)
        return;
    size_t k = len < n - 1 ? len : n - 1;
    memcpy(buf, from, k);
    buf[k] = '\0';
}

/* A plain job's name is its id in decimal. */
static void name_of_id(long id, char *buf, size_t n)
{
    char tmp[24];
    char *p = dec_put(tmp + sizeof tmp, id);
    put_cut(p, (size_t)(tmp + sizeof tmp - p), buf, n);
}

/* An array task is "A[i]" (its array's id, its index), a plain job its id. */
void djobs_name(const struct store_job *r, char *buf, size_t n)
{
    if (r->array_id <= 0) {
        name_of_id(r->id, buf, n);
        return;
    }
    char tmp[48];
    char *end = tmp + sizeof tmp;
    *--end = ']';
    char *p = dec_put(end, (long)r->array_index);
    *--p = '[';
    p = dec_put(p, r->array_id);
    put_cut(p, (size_t)(tmp + sizeof tmp - p), buf, n);
}

void darray_file_id(const struct store_job *r, char *buf, size_t n)
{
    if (r->array_id > 0)
        snprintf(buf, n, "%ld-%u", r->array_id, r->array_index);
    else
        snprintf(buf, n, "%ld", r->id);
}

struct djob *djobs_find_id(struct dmn *d, long id)
{
    char name[32];
    snprintf(name, sizeof name, "%ld", id);
    struct djob *dj = djobs_find(d, name);
    if (dj && dj->rec.id == id)
        return dj;
    /* An array task goes by "A[i]", not by its own id: looked for. */
    for (size_t i = 0; i < d->njobs; i++)
        if (d->jobs[i] && d->jobs[i]->rec.id == id && d->jobs[i]->rec.array_id > 0)
            return d->jobs[i];
    return NULL;
}

int darray_first_task(struct dmn *d, struct store_job *rec, struct err *err)
{
    if (rec->array_id != DARRAY_FIRST)
        return 0;
    rec->array_id = rec->id; /* known once stored: the array is named after it */
    return store_job_put(d->st, rec, err);
}

void darray_apply(struct dmn *d, struct djob *dj)
{
    const struct store_job *r = &dj->rec;
    if (r->array_id <= 0 || !dj->j)
        return;
    char array[32];
    struct err e;
    name_of_id(r->array_id, array, sizeof array);
    /* Held: waiting for a slot when last stored (or just submitted so);
     * else it held one, and holds it again. An ended task holds none. */
    int held = (r->holds & HOLD_SLOT) != 0 && dj->j->state == JOB_IDLE;
    if (sched_set_array(d->s, dj->j, array, r->array_index, r->array_slots, held, &e) < 0)
        dlog(d->log, 0, "job %ld: %s", r->id, e.msg);
}

/* The live tasks of array `array` (its id, as typed), in index order: the
 * djobs of d->jobs whose engine job is still there. */
static int by_index(const void *a, const void *b)
{
    const struct djob *x = *(struct djob *const *)a, *y = *(struct djob *const *)b;
    return (x->rec.array_index > y->rec.array_index) - (x->rec.array_index < y->rec.array_index);
}

size_t darray_tasks(struct dmn *d, long array, struct djob ***out)
{
    struct djob **v = NULL;
    size_t n = 0, cap = 0;
    for (size_t i = 0; i < d->njobs; i++) {
        struct djob *dj = d->jobs[i];
        if (!dj || dj->rec.array_id != array || !dj->j)
            continue;
        v = xgrow(v, &cap, n + 1, sizeof *v);
        v[n++] = dj;
    }
    if (n > 1)
        qsort(v, n, sizeof *v, by_index);
    *out = v;
    return n;
}

long darray_whole(const char *word)
{
    size_t digits = strspn(word, "0123456789");
    if (digits == 0 || digits > 18 || strcmp(word + digits, "[]") != 0)
        return 0;
    return strtol(word, NULL, 10);
}

/* Whether dj's job has not ended (what a whole-array word acts on first). */
static int live(const struct djob *dj)
{
    return dj->rec.state == SJ_IDLE || dj->rec.state == SJ_RUNNING || dj->rec.state == SJ_SUSPENDED;
}

/* The array whole-array word w names (its id), or 0. */
static long whole_of(const char *w)
{
    char bare[48];
    return darray_whole(cmd_job_id(w, bare, sizeof bare));
}

/* Whether `array` is one of the n of done. */
static int among(const long *done, size_t n, long array)
{
    for (size_t i = 0; i < n; i++)
        if (done[i] == array)
            return 1;
    return 0;
}

/* The names for the tasks of `array` appended to *out: those that have not
 * ended, or, when all have, every task the engine still shows (qstat -x,
 * checkjob of a finished array). 0 when the daemon has no such array. */
static size_t expand_array(struct dmn *d, long array, char ***out, size_t *n, size_t *cap)
{
    struct djob **tasks = NULL;
    size_t k = darray_tasks(d, array, &tasks), added = 0;
    size_t nlive = 0;
    for (size_t i = 0; i < k; i++)
        nlive += live(tasks[i]);
    for (size_t i = 0; i < k; i++) {
        if (nlive && !live(tasks[i]))
            continue;
        char name[48];
        djobs_name(&tasks[i]->rec, name, sizeof name);
        *out = xgrow(*out, cap, *n + 2, sizeof **out);
        (*out)[(*n)++] = xstrdup(name);
        added++;
    }
    free(tasks);
    return added;
}

char **darray_expand(struct dmn *d, const struct cmd_def *def, int *argc, char ***argv)
{
    char **words = NULL, **own = NULL;
    size_t n = 0, cap = 0, nown = 0, capown = 0;
    int changed = 0;
    long *done = xcalloc((size_t)*argc + 1, sizeof *done); /* the arrays expanded */
    size_t ndone = 0;
    int operands = 0; /* past "--": every word is a job */
    for (int i = 0; i < *argc; i++) {
        size_t before = n;
        /* An option's value is not a job: "qalter -N 12[] 13" names job 13
         * "12[]" (it renamed every task of 12). */
        int value = !operands && i > 0 && cmd_def_takes_value(def, (*argv)[i - 1]);
        operands |= strcmp((*argv)[i], "--") == 0;
        long array = value ? 0 : whole_of((*argv)[i]);
        /* An array named again ("12[] 12[]", "12[] 12[].host") adds no
         * task twice: 256 words of one array of 10000 tasks were 2.56
         * million ids, one commit each, the daemon deaf for hours. */
        if (array && among(done, ndone, array))
            continue;
        if (array && expand_array(d, array, &words, &n, &cap) > 0) {
            changed = 1;
            done[ndone++] = array;
            for (size_t k = before; k < n; k++) {
                own = xgrow(own, &capown, nown + 2, sizeof *own);
                own[nown++] = words[k];
            }
            continue;
        }
        words = xgrow(words, &cap, n + 2, sizeof *words);
        words[n++] = (*argv)[i];
    }
    free(done);
    if (!changed) {
        free(words);
        return NULL;
    }
    words[n] = NULL;
    own[nown] = NULL;
    free(*argv);
    *argv = words;
    *argc = (int)n;
    return own;
}
