/*
 * trigger — the TRIGGER events of standing reservations (SRCFG TRIGGER=,
 * Admin Guide 7.1.5.2): when an instance is created, starts or ends (plus an
 * offset), cancel it or run a command.
 *
 * The engine keeps the timetable and does what it can do itself: `cancel`
 * releases the instance (and it is not made again for that window). It
 * runs nothing: `exec` and `submit` actions are handed to the driver
 * (sched_pop_fired), which runs them where that makes sense — the daemon —
 * and reports them otherwise — the simulator. The `minload` event needs
 * load readings moku does not have; it never fires (docs/reservations.md).
 */
#include <stdlib.h>
#include <string.h>

#include "policy/trigger.h"
#include "core/sched_int.h"
#include "util/mem.h"

static const char *const event_names[] = {"create", "start", "end", "minload"};

void trig_free_all(struct sched *s)
{
    for (size_t i = 0; i < s->ntrigs; i++)
        free(s->trigs[i].resv);
    free(s->trigs);
    for (size_t i = 0; i < s->nfired; i++)
        sched_fired_free(&s->fired[i]);
    free(s->fired);
    free(s->sr_cancelled);
}

void trig_created(struct sched *s, const struct resv *r, long now)
{
    if (r->sr < 0 || (size_t)r->sr >= s->nsrdefs)
        return;
    const struct srcfg_def *d = &s->srdefs[r->sr];
    for (size_t k = 0; k < d->ntriggers; k++) {
        const struct srcfg_trigger *t = &d->triggers[k];
        if (t->event == SRCFG_EV_MINLOAD)
            continue;
        long base = t->event == SRCFG_EV_CREATE ? now
                    : t->event == SRCFG_EV_START ? r->start
                                                 : r->end;
        s->trigs = xgrow(s->trigs, &s->captrigs, s->ntrigs + 1, sizeof *s->trigs);
        s->trigs[s->ntrigs++] = (struct trig){base + t->offset, xstrdup(r->id), (size_t)r->sr, k};
    }
}

static void fire(struct sched *s, const struct trig *tg, long now)
{
    const struct srcfg_trigger *t = &s->srdefs[tg->def].triggers[tg->k];
    if (t->action == SRCFG_ACT_CANCEL) {
        resv_cancel_instance(s, tg->resv);
        return;
    }
    s->fired = xgrow(s->fired, &s->capfired, s->nfired + 1, sizeof *s->fired);
    s->fired[s->nfired++] = (struct sched_fired){
        .resv = xstrdup(tg->resv),
        .event = event_names[t->event],
        .submit = t->action == SRCFG_ACT_SUBMIT,
        .data = xstrdup(t->data ? t->data : ""),
        .at = now,
    };
}

void trig_run(struct sched *s, long now)
{
    size_t w = 0;
    for (size_t i = 0; i < s->ntrigs; i++) {
        struct trig *tg = &s->trigs[i];
        /* Definitions were reloaded: their triggers went with them. */
        if (tg->def >= s->nsrdefs || tg->k >= s->srdefs[tg->def].ntriggers) {
            free(tg->resv);
            continue;
        }
        if (tg->at <= now) {
            fire(s, tg, now);
            free(tg->resv);
            continue;
        }
        s->trigs[w++] = *tg;
    }
    s->ntrigs = w;
}

long trig_next(const struct sched *s)
{
    long next = AVAIL_NEVER;
    for (size_t i = 0; i < s->ntrigs; i++)
        if (s->trigs[i].at < next)
            next = s->trigs[i].at;
    return next;
}

int sched_pop_fired(struct sched *s, struct sched_fired *out)
{
    if (!s->nfired)
        return 0;
    *out = s->fired[0];
    memmove(&s->fired[0], &s->fired[1], (s->nfired - 1) * sizeof *s->fired);
    s->nfired--;
    return 1;
}

void sched_fired_free(struct sched_fired *f)
{
    free(f->resv);
    free(f->data);
    f->resv = f->data = NULL;
}
