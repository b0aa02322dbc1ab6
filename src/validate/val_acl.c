/*
 * val_acl — whether a reservation's ACL admits a job, read from its text
 * (diagnose -r's form: `USER==john+:==bob GROUP==staff ACCT==!projX
 * DURATION<=1:00:00*`), decided from the Maui Admin Guide's words (7.1.5),
 * not from the engine's code:
 *   - entries are OR-ed: matching one ordinary entry admits;
 *   - required entries (`*`): one of each required kind must match;
 *   - NOT entries (`!`): matching one excludes; a kind listed only with NOT
 *     entries is met by anything it does not list (Example 4);
 *   - an empty ACL (a SYSTEM reservation) admits nobody;
 *   - JATTR entries (JOBATTRLIST) match the job's attributes: its requested
 *     features and the PREEMPTEE flag.
 * Affinity marks (+ - =) change preference, not admission: ignored here.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cfg/cfg.h"
#include "util/mem.h"
#include "validate/val_int.h"

enum kind { K_USER, K_GROUP, K_ACCT, K_CLASS, K_QOS, K_JATTR, K_DURATION, K_N };

static int kind_of(const char *w, size_t n)
{
    static const char *const names[K_N] = {"USER", "GROUP", "ACCT",    "CLASS",
                                           "QOS",  "JATTR", "DURATION"};
    for (int k = 0; k < K_N; k++)
        if (strlen(names[k]) == n && strncmp(w, names[k], n) == 0)
            return k;
    return -1;
}

static const char *cred(const struct val_creds *c, int k)
{
    const char *v[] = {c->user, c->group, c->account, c->class_, c->qos};
    return k < K_JATTR ? v[k] : NULL;
}

/* Whether the job has attribute a: one of its features, or PREEMPTEE. */
static int has_attr(const struct val_creds *c, const char *a)
{
    if (c->preemptee && strcasecmp(a, "PREEMPTEE") == 0)
        return 1;
    size_t n = strlen(a);
    for (const char *p = c->attrs; p && *p;) {
        size_t k = strcspn(p, ",");
        if ((k == n && strncmp(p, a, n) == 0) || (k && strcmp(a, "[ALL]") == 0))
            return 1;
        p += k + (p[k] == ',');
    }
    return 0;
}

/* What the entries say, kind by kind. */
struct tally {
    int ord, ord_match;      /* ordinary entries: any, and a match */
    unsigned req, req_match; /* kinds with required entries, and those matched */
    unsigned deny, grant;    /* kinds with NOT entries, and with others */
    int denied;
};

/* One entry `==name[mark][*]` (or `<=time[*]`) of kind k. */
static int entry(const char *e, size_t n, int k, const struct val_creds *c, long walltime,
                 struct tally *t, struct err *err)
{
    char *text = xstrndup(e, n);
    int required = n && text[n - 1] == '*';
    if (required)
        text[--n] = '\0';
    if (n && strchr("+-=", text[n - 1]))
        text[--n] = '\0'; /* affinity: preference only */
    int rc = 0, match = 0, deny = 0;
    const char *v = text + 2;
    if (strncmp(text, k == K_DURATION ? "<=" : "==", 2) != 0) {
        rc = err_set(err, "ACL entry '%s': expected %s", text, k == K_DURATION ? "<=" : "==");
    } else if (k == K_DURATION) {
        long secs = 0;
        struct err e2;
        if (cfg_parse_time(v, &secs, &e2) < 0)
            rc = err_set(err, "ACL entry '%s': %s", text, e2.msg);
        match = walltime <= secs;
    } else {
        deny = *v == '!';
        v += deny;
        const char *have = cred(c, k);
        match = k == K_JATTR ? has_attr(c, v)
                             : have && (strcmp(v, have) == 0 || strcmp(v, "[ALL]") == 0);
    }
    free(text);
    if (rc < 0)
        return -1;
    if (deny) {
        t->deny |= 1u << k;
        t->denied |= match;
    } else if (required) {
        t->grant |= 1u << k;
        t->req |= 1u << k;
        t->req_match |= (unsigned)match << k;
    } else {
        t->grant |= 1u << k;
        t->ord = 1;
        t->ord_match |= match;
    }
    return 0;
}

/* One group `KIND==a:==b`: its entries. */
static int group(const char *g, size_t n, const struct val_creds *c, long walltime, struct tally *t,
                 struct err *err)
{
    size_t kn = 0;
    while (kn < n && g[kn] != '=' && g[kn] != '<')
        kn++;
    int k = kind_of(g, kn);
    if (k < 0)
        return err_set(err,
                       "ACL: unknown kind '%.*s' (USER, GROUP, ACCT, CLASS, QOS, JATTR, DURATION)",
                       (int)kn, g);
    for (size_t i = kn; i < n;) {
        size_t j = i;
        while (j < n && g[j] != ':')
            j++;
        if (k == K_DURATION) /* a time holds ':' itself: the rest is one entry */
            j = n;
        if (entry(g + i, j - i, k, c, walltime, t, err) < 0)
            return -1;
        i = j + 1;
    }
    return 0;
}

int val_acl_admits(const char *acl, const struct val_creds *c, long walltime, struct err *err)
{
    struct tally t = {0};
    int any = 0;
    for (const char *p = acl; *p;) {
        while (*p == ' ')
            p++;
        size_t n = strcspn(p, " ");
        if (!n)
            break;
        if (group(p, n, c, walltime, &t, err) < 0)
            return -1;
        any = 1;
        p += n;
    }
    if (!any || t.denied)
        return 0;
    int ord_ok = t.ord ? t.ord_match : 1;
    if (t.deny & ~t.grant) /* a kind listed only by NOT entries: met */
        ord_ok = 1;
    return ord_ok && (t.req_match & t.req) == t.req;
}
