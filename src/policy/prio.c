/* prio — see prio.h. */
#include "policy/prio.h"

#include <string.h>

#include "cfg/cfg.h"

static const char *const comp_names[PRIO_NCOMP] = {"serv", "targ", "cred", "attr",
                                                   "fs",   "res",  "usage"};
static const char *const factor_names[PF_NFACTORS] = {
    "queuetime", "xfactor", "bypass", "spviolation", "targetqueuetime", "targetxfactor",
    "user", "group", "account", "qos", "class", "fsuser", "fsgroup", "fsaccount", "fsqos",
    "fsclass", "node", "proc", "mem", "swap", "disk", "ps", "pe", "walltime", "consumed",
    "remaining", "percent", "executiontime"};

const char *prio_comp_name(enum prio_comp c)
{
    return c < PRIO_NCOMP ? comp_names[c] : "?";
}

const char *prio_factor_name(enum prio_factor f)
{
    return f < PF_NFACTORS ? factor_names[f] : "?";
}

void prio_params_default(struct prio_params *p)
{
    memset(p, 0, sizeof *p);
    for (int c = 0; c < PRIO_NCOMP; c++)
        p->cweight[c] = 1;
    p->fweight[PF_QUEUETIME] = 1;
    p->xfminwclimit = 120;
    p->accrual = ACCRUE_QUEUEPOLICY;
}

int prio_params_from_cfg(const struct cfg *cfg, struct prio_params *p, struct err *err)
{
    (void)err;
    prio_params_default(p);
    p->cweight[PRIO_SERV] = (long)cfg_int(cfg, "SERVWEIGHT", NULL);
    p->fweight[PF_QUEUETIME] = (long)cfg_int(cfg, "QUEUETIMEWEIGHT", NULL);
    return 0;
}

double prio_start(const struct prio_params *p, const struct prio_env *env, const struct job *j,
                  long now, struct prio_parts *parts)
{
    (void)env;
    double minutes = now > j->qtime_start ? (double)(now - j->qtime_start) / 60.0 : 0.0;
    double v = (double)p->cweight[PRIO_SERV] * (double)p->fweight[PF_QUEUETIME] * minutes;
    if (v < 1.0)
        v = 1.0;
    if (parts) {
        memset(parts, 0, sizeof *parts);
        parts->factor[PF_QUEUETIME] = minutes;
        parts->comp[PRIO_SERV] = v;
        parts->total = v;
    }
    return v;
}

double prio_run(const struct prio_params *p, const struct prio_env *env, const struct job *j,
                long now, struct prio_parts *parts)
{
    return prio_start(p, env, j, now, parts);
}

int prio_order_is_submission(const struct prio_params *p)
{
    (void)p;
    return 1;
}

int prio_cmp(const void *a, const void *b)
{
    const struct job *x = *(const struct job *const *)a;
    const struct job *y = *(const struct job *const *)b;
    if (x->priority != y->priority)
        return x->priority > y->priority ? -1 : 1;
    if (x->submit != y->submit)
        return x->submit < y->submit ? -1 : 1;
    return x->order < y->order ? -1 : (x->order > y->order);
}
