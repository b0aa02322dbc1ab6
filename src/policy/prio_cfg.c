/*
 * prio_cfg — the priority block of maui.cfg, read into struct prio_params.
 *
 * Only the global (unindexed) values are read: Maui 3.3.1 computes every
 * priority with partition 0's weights (digest §2.2), so per-partition values
 * (QUEUETIMEWEIGHT[par]) are stored by cfg but have no effect. The names are
 * the table's canonical spellings; cfg resolves the aliases (SERVICEWEIGHT,
 * TARGETWEIGHT, SERVICEWCAP, UFSWEIGHT, ...).
 */
#include <stdio.h>
#include <string.h>

#include "cfg/cfg.h"
#include "policy/prio.h"

static const char *const comp_weight[PRIO_NCOMP] = {
    "SERVWEIGHT", "TARGWEIGHT", "CREDWEIGHT", "ATTRWEIGHT", "FSWEIGHT", "RESWEIGHT", "USAGEWEIGHT"};
static const char *const comp_cap[PRIO_NCOMP] = {"SERVCAP", "TARGCAP", "CREDCAP", "ATTRCAP",
                                                 "FSCAP",   "RESCAP",  "USAGECAP"};

/* Factor parameter stems: <stem>WEIGHT and <stem>CAP (canonical spellings). */
static const char *const factor_stem[PF_NFACTORS] = {
    [PF_QUEUETIME] = "QUEUETIME",
    [PF_XFACTOR] = "XFACTOR",
    [PF_BYPASS] = "BYPASS",
    [PF_SPVIOLATION] = "SPVIOLATION",
    [PF_TARGETQUEUETIME] = "TARGETQUEUETIME",
    [PF_TARGETXFACTOR] = "TARGETXFACTOR",
    [PF_USER] = "USER",
    [PF_GROUP] = "GROUP",
    [PF_ACCOUNT] = "ACCOUNT",
    [PF_QOS] = "QOS",
    [PF_CLASS] = "CLASS",
    [PF_FSUSER] = "FSUSER",
    [PF_FSGROUP] = "FSGROUP",
    [PF_FSACCOUNT] = "FSACCOUNT",
    [PF_FSQOS] = "FSQOS",
    [PF_FSCLASS] = "FSCLASS",
    [PF_NODE] = "NODE",
    [PF_PROC] = "PROC",
    [PF_MEM] = "MEM",
    [PF_SWAP] = "SWAP",
    [PF_DISK] = "DISK",
    [PF_PS] = "PS",
    [PF_PE] = "PE",
    [PF_WALLTIME] = "WALLTIME",
    [PF_CONSUMED] = "CONSUMED",
    [PF_REMAINING] = "REMAINING",
    [PF_PERCENT] = "PERCENT",
    [PF_EXECUTIONTIME] = "USAGEEXECUTIONTIME",
};

const char *prio_comp_param(enum prio_comp c, int cap)
{
    if (c >= PRIO_NCOMP)
        return "?";
    return cap ? comp_cap[c] : comp_weight[c];
}

const char *prio_factor_stem(enum prio_factor f)
{
    return f < PF_NFACTORS ? factor_stem[f] : "?";
}

static int accrual_from_text(const char *s, enum prio_accrual *out)
{
    static const struct {
        const char *name;
        enum prio_accrual v;
    } map[] = {{"ALWAYS", ACCRUE_ALWAYS},
               {"QUEUEPOLICY", ACCRUE_QUEUEPOLICY},
               {"FULLPOLICY", ACCRUE_FULLPOLICY}};
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
        if (strcmp(s, map[i].name) == 0) {
            *out = map[i].v;
            return 0;
        }
    }
    return -1;
}

int prio_params_from_cfg(const struct cfg *cfg, struct prio_params *p, struct err *err)
{
    struct prio_params q;
    char name[64];
    prio_params_default(&q);
    for (int c = 0; c < PRIO_NCOMP; c++) {
        q.cweight[c] = (long)cfg_int(cfg, comp_weight[c], NULL);
        q.ccap[c] = cfg_double(cfg, comp_cap[c], NULL);
    }
    for (int f = 0; f < PF_NFACTORS; f++) {
        snprintf(name, sizeof name, "%sWEIGHT", factor_stem[f]);
        q.fweight[f] = (long)cfg_int(cfg, name, NULL);
        snprintf(name, sizeof name, "%sCAP", factor_stem[f]);
        q.fcap[f] = cfg_double(cfg, name, NULL);
    }
    q.xfminwclimit = cfg_time(cfg, "XFMINWCLIMIT", NULL);
    const char *acc = cfg_str(cfg, "JOBPRIOACCRUALPOLICY", NULL);
    if (acc && accrual_from_text(acc, &q.accrual) < 0)
        return err_set(err, "JOBPRIOACCRUALPOLICY %s is not supported", acc);
    q.reject_neg = cfg_bool(cfg, "REJECTNEGPRIOJOBS", NULL);
    q.enable_neg = cfg_bool(cfg, "ENABLENEGJOBPRIORITY", NULL);
    *p = q;
    return 0;
}
