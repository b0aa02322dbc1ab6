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

#include "core/sched_int.h"
#include "policy/srcfg.h"
#include "policy/trigger.h"
#include "util/mem.h"

static const char *const event_names[] = {"create", "start", "end", "minload"};

void trig_free_all(struct sched *s)
{
    for (size_t i = 0; i < s->rs.ntrigs; i++)
        free(s->rs.trigs[i].resv);
    free(s->rs.trigs);
    for (size_t i = 0; i < s->rs.nfired; i++)
        sched_fired_free(&s->rs.fired[i]);
    free(s->rs.fired);
    free(s->rs.sr_cancelled);
}

void trig_created(struct sched *s, const struct resv *r, long now)
{
    if (r->sr < 0 || (size_t)r->sr >= s->rs.nsrdefs)
        return;
    const struct srcfg_def *d = &s->rs.srdefs[r->sr];
    for (size_t k = 0; k < d->ntriggers; k++) {
        const struct srcfg_trigger *t = &d->triggers[k];
        if (t->event == SRCFG_EV_MINLOAD)
            continue;
        long base = t->event == SRCFG_EV_CREATE  ? now
                    : t->event == SRCFG_EV_START ? r->start
                                                 : r->end;
        s->rs.trigs = xgrow(s->rs.trigs, &s->rs.captrigs, s->rs.ntrigs + 1, sizeof *s->rs.trigs);
        s->rs.trigs[s->rs.ntrigs++] =
            (struct trig){base + t->offset, xstrdup(r->id), (size_t)r->sr, k};
    }
}

static void fire(struct sched *s, const struct trig *tg, long now)
{
    const struct srcfg_trigger *t = &s->rs.srdefs[tg->def].triggers[tg->k];
    if (t->action == SRCFG_ACT_CANCEL) {
        resv_cancel_instance(s, tg->resv);
        return;
    }
    s->rs.fired = xgrow(s->rs.fired, &s->rs.capfired, s->rs.nfired + 1, sizeof *s->rs.fired);
    s->rs.fired[s->rs.nfired++] = (struct sched_fired){
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
    for (size_t i = 0; i < s->rs.ntrigs; i++) {
        struct trig *tg = &s->rs.trigs[i];
        /* Definitions were reloaded: their triggers went with them. */
        if (tg->def >= s->rs.nsrdefs || tg->k >= s->rs.srdefs[tg->def].ntriggers) {
            free(tg->resv);
            continue;
        }
        if (tg->at <= now) {
            fire(s, tg, now);
            free(tg->resv);
            continue;
        }
        s->rs.trigs[w++] = *tg;
    }
    s->rs.ntrigs = w;
}

long trig_next(const struct sched *s)
{
    long next = AVAIL_NEVER;
    for (size_t i = 0; i < s->rs.ntrigs; i++)
        if (s->rs.trigs[i].at < next)
            next = s->rs.trigs[i].at;
    return next;
}

int sched_pop_fired(struct sched *s, struct sched_fired *out)
{
    if (!s->rs.nfired)
        return 0;
    *out = s->rs.fired[0];
    memmove(&s->rs.fired[0], &s->rs.fired[1], (s->rs.nfired - 1) * sizeof *s->rs.fired);
    s->rs.nfired--;
    return 1;
}

void sched_fired_free(struct sched_fired *f)
{
    free(f->resv);
    free(f->data);
    f->resv = f->data = NULL;
}
