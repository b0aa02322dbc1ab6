/* dhist — see dhist.h. */
#include "daemon/dhist.h"

#include <stdlib.h>

#include "util/mem.h"

static const struct dhist_sample *last(const struct dhist *h)
{
    return h->n ? &h->v[(h->head + h->n - 1) % DHIST_SAMPLES] : NULL;
}

int dhist_due(const struct dhist *h, long now)
{
    const struct dhist_sample *l = last(h);
    return !l || now < l->time || now - l->time >= DHIST_STEP;
}

void dhist_add(struct dhist *h, const struct dhist_sample *s)
{
    const struct dhist_sample *l = last(h);
    if (!dhist_due(h, s->time))
        return;
    if (l && s->time < l->time)
        h->n = 0; /* the clock went back: the old samples no longer line up */
    if (!h->v)
        h->v = xcalloc(DHIST_SAMPLES, sizeof *h->v);
    if (h->n == DHIST_SAMPLES) {
        h->head = (h->head + 1) % DHIST_SAMPLES;
        h->n--;
    }
    h->v[(h->head + h->n) % DHIST_SAMPLES] = *s;
    h->n++;
}

json_t *dhist_json(const struct dhist *h)
{
    json_t *a = json_array();
    for (size_t i = 0; i < h->n; i++) {
        const struct dhist_sample *s = &h->v[(h->head + i) % DHIST_SAMPLES];
        json_array_append_new(a, json_pack("{s:I, s:I, s:I, s:I, s:I, s:I}", "time",
                                           (json_int_t)s->time, "procs", (json_int_t)s->procs,
                                           "busy", (json_int_t)s->busy, "running",
                                           (json_int_t)s->running, "idle", (json_int_t)s->idle,
                                           "blocked", (json_int_t)s->blocked));
    }
    return json_pack("{s:i, s:o}", "interval", DHIST_STEP, "samples", a);
}

void dhist_free(struct dhist *h)
{
    free(h->v);
    *h = (struct dhist){0};
}
