/* t_srcfg — standing reservation definitions from maui.cfg text: the Admin
 * Guide's examples (7.1.5.2), each attribute form, the legacy SR* parameters
 * and every error (all or nothing). */
#include "policy/srcfg.h"

#include "test.h"

#include "cfg/cfg.h"

/* --------------------------------------------------------------- helpers */

static struct cfg *cfg_of(const char *text)
{
    struct cfg *cfg = cfg_create();
    struct err err = {{0}};
    if (cfg_load_string(cfg, text, "maui.cfg", &err) < 0) {
        fprintf(stderr, "    cfg: %s\n", err.msg);
        cfg_destroy(cfg);
        return NULL;
    }
    return cfg;
}

/* Load text; the definitions (NULL and *n = 0 on error, message printed). */
static struct srcfg_def *load(const char *text, size_t *n)
{
    struct cfg *cfg = cfg_of(text);
    struct srcfg_def *d = NULL;
    struct err err = {{0}};
    *n = 0;
    CHECK(cfg != NULL);
    if (cfg && srcfg_load(cfg, &d, n, &err) < 0)
        fprintf(stderr, "    srcfg: %s\n", err.msg);
    cfg_destroy(cfg);
    return d;
}

/* The error srcfg_load gives for text (static buffer); checks nothing came back. */
static const char *load_err(const char *text)
{
    static struct err err;
    struct cfg *cfg = cfg_of(text);
    struct srcfg_def *d = (struct srcfg_def *)&err; /* must be reset */
    size_t n = 99;
    CHECK(cfg != NULL);
    if (!cfg)
        return "";
    err_clear(&err);
    CHECK_EQ(srcfg_load(cfg, &d, &n, &err), -1);
    CHECK(d == NULL);
    CHECK_EQ(n, 0);
    cfg_destroy(cfg);
    return err.msg;
}

static const char *acl_text(const struct srcfg_def *d)
{
    static char buf[512];
    acl_format(d->acl, buf, sizeof buf);
    return buf;
}

#define MONFRI 0x3eu /* bits 1..5 */
#define H(x) ((x)*3600L)
#define D(x) ((x)*86400L)

/* ---------------------------------------------------- Admin Guide examples */

/* Example 1: Basic Business Hour Standing Reservation. */
static void test_guide_business_hours(void)
{
    size_t n;
    struct srcfg_def *d = load("SRCFG[interactive] TASKCOUNT=6 RESOURCES=PROCS:1,MEM:512\n"
                               "SRCFG[interactive] PERIOD=DAY DAYS=MON,TUE,WED,THU,FRI\n"
                               "SRCFG[interactive] STARTTIME=9:00:00 ENDTIME=17:00:00\n"
                               "SRCFG[interactive] CLASSLIST=interactive\n",
                               &n);
    CHECK_EQ(n, 1);
    if (!d)
        return;
    CHECK_STR(d->name, "interactive");
    CHECK_EQ(d->time.period, SRTIME_DAY);
    CHECK_EQ(d->time.days, MONFRI);
    CHECK_EQ(d->time.start, H(9));
    CHECK_EQ(d->time.end, H(17));
    CHECK_EQ(d->time.depth, 2);
    CHECK_EQ(d->taskcount, 6);
    CHECK_EQ(d->res.procs, 1);
    CHECK_EQ(d->res.mem, 512);
    CHECK_EQ(d->res.disk, 0);
    CHECK_EQ(d->res.swap, 0);
    CHECK_EQ(d->tpn, 0);
    CHECK_EQ(d->nhosts, 0);
    CHECK_EQ(d->floating, 1);
    CHECK_EQ(d->flags, 0);
    CHECK_EQ(d->access, SRCFG_SHARED);
    CHECK(d->owner == NULL);
    CHECK(d->partition == NULL);
    CHECK(d->chargeaccount == NULL);
    CHECK_EQ(d->ntriggers, 0);
    CHECK_STR(acl_text(d), "CLASS==interactive+");
    srcfg_free(d, n);
}

/* Example 2 (host constrained) and 3 (stacking with a debug reservation). */
static const char stacking[] = "SRCFG[interactive] DAYS=MON,TUE,WED,THU,FRI\n"
                               "SRCFG[interactive] PERIOD=DAY\n"
                               "SRCFG[interactive] STARTTIME=10:00:00 ENDTIME=15:00:00\n"
                               "SRCFG[interactive] RESOURCES=PROCS:2,MEM:256\n"
                               "SRCFG[interactive] HOSTLIST=node001,node002,node005,node020\n"
                               "SRCFG[interactive] TASKCOUNT=6\n"
                               "SRCFG[interactive] CLASSLIST=interactive\n"
                               "\n"
                               "SRCFG[debug]       HOSTLIST=node001,node002,node003,node004\n"
                               "SRCFG[debug]       USERLIST=helpdesk\n"
                               "SRCFG[debug]       GROUPLIST=operations,sysadmin\n"
                               "SRCFG[debug]       PERIOD=INFINITY\n";

static void test_guide_host_constrained_and_stacking(void)
{
    size_t n;
    struct srcfg_def *d = load(stacking, &n);
    CHECK_EQ(n, 2);
    if (n != 2)
        return;
    static const char *const ihosts[] = {"node001", "node002", "node005", "node020"};
    CHECK_STR(d[0].name, "interactive");
    CHECK_EQ(d[0].time.days, MONFRI);
    CHECK_EQ(d[0].time.start, H(10));
    CHECK_EQ(d[0].time.end, H(15));
    CHECK_EQ(d[0].res.procs, 2);
    CHECK_EQ(d[0].res.mem, 256);
    CHECK_EQ(d[0].taskcount, 6);
    CHECK_EQ(d[0].floating, 1); /* TASKCOUNT: floats within (then beyond) the host list */
    CHECK_EQ(d[0].nhosts, 4);
    for (size_t i = 0; i < 4 && i < d[0].nhosts; i++) {
        CHECK_STR(d[0].hosts[i].text, ihosts[i]);
        CHECK_EQ(d[0].hosts[i].regex, 0);
    }
    CHECK_STR(acl_text(&d[0]), "CLASS==interactive+");

    static const char *const dhosts[] = {"node001", "node002", "node003", "node004"};
    CHECK_STR(d[1].name, "debug");
    CHECK_EQ(d[1].time.period, SRTIME_INFINITY);
    CHECK_EQ(d[1].taskcount, 0);
    CHECK_EQ(d[1].floating, 0); /* every listed host */
    CHECK_EQ(d[1].res.procs, -1);
    CHECK_EQ(d[1].res.mem, 0);
    CHECK_EQ(d[1].nhosts, 4);
    for (size_t i = 0; i < 4 && i < d[1].nhosts; i++)
        CHECK_STR(d[1].hosts[i].text, dhosts[i]);
    CHECK_STR(acl_text(&d[1]), "USER==helpdesk+ GROUP==operations+:==sysadmin+");
    CHECK_EQ(d[1].access, SRCFG_SHARED); /* both may stack on node001/node002 */
    srcfg_free(d, n);
}

/* Example 4: Multiple ACL Types, in the Guide's own spelling of QOSLIST
 * (blank separated); its ACCCOUNTLIST is a misprint of ACCOUNTLIST. */
static void test_guide_multiple_acl_types(void)
{
    size_t n;
    struct srcfg_def *d = load("SRCFG[special] TASKCOUNT=32\n"
                               "SRCFG[special] PERIOD=WEEK\n"
                               "SRCFG[special] STARTTIME=1:08:00:00\n"
                               "SRCFG[special] ENDTIME=5:17:00:00\n"
                               "SRCFG[special] NODEFEATURES=largememory\n"
                               "SRCFG[special] TIMELIMIT=1:00:00*\n"
                               "SRCFG[special] QOSLIST=high low special-\n"
                               "SRCFG[special] ACCOUNTLIST=!projectX,!projectY\n",
                               &n);
    CHECK_EQ(n, 1);
    if (!d)
        return;
    CHECK_EQ(d->time.period, SRTIME_WEEK);
    CHECK_EQ(d->time.start, D(1) + H(8)); /* Monday 8:00 */
    CHECK_EQ(d->time.end, D(5) + H(17));  /* Friday 17:00 */
    CHECK_EQ(d->taskcount, 32);
    CHECK_EQ(d->res.procs, -1); /* 32 tasks = 32 nodes */
    CHECK_EQ(d->nfeatures, 1);
    if (d->nfeatures)
        CHECK_STR(d->features[0], "largememory");
    CHECK_STR(acl_text(d), "ACCT==!projectX+:==!projectY+ QOS==high+:==low+:==special- "
                           "DURATION<=1:00:00+*");
    srcfg_free(d, n);
}

/* Example 5: Limited Shared Access (the Guide's ACCTCFG is ACCOUNTCFG). */
static void test_guide_limited_shared_access(void)
{
    size_t n;
    struct srcfg_def *d = load("ACCTCFG[jupiter] PRIORITY=10000\n"
                               "SRCFG[jupiter] HOSTLIST=node0[1-9]\n"
                               "SRCFG[jupiter] PERIOD=INFINITY\n"
                               "SRCFG[jupiter] ACCOUNTLIST=jupiter,saturn-\n"
                               "SRCFG[jupiter] OWNER=ACCOUNT:jupiter\n"
                               "SRCFG[jupiter] FLAGS=OWNERPREEMPT\n"
                               "SRCFG[jupiter] PERIOD=INFINITY\n",
                               &n);
    CHECK_EQ(n, 1);
    if (!d)
        return;
    CHECK_EQ(d->time.period, SRTIME_INFINITY);
    CHECK_EQ(d->nhosts, 1);
    if (d->nhosts) {
        CHECK_STR(d->hosts[0].text, "node0[1-9]");
        CHECK_EQ(d->hosts[0].regex, 1);
    }
    CHECK_EQ(d->floating, 0);
    CHECK_EQ(d->owner_type, ACL_ACCOUNT);
    CHECK_STR(d->owner, "jupiter");
    CHECK_EQ(d->flags, SRCFG_OWNERPREEMPT);
    CHECK_STR(acl_text(d), "ACCT==jupiter+:==saturn-");
    srcfg_free(d, n);
    /* the account's priority is where the credential code reads it */
    struct cfg *cfg = cfg_of("ACCTCFG[jupiter] PRIORITY=10000\n");
    CHECK(cfg != NULL);
    if (cfg)
        CHECK_STR(cfg_obj_get(cfg_obj_find(cfg, "ACCOUNTCFG", "jupiter"), "PRIORITY", NULL),
                  "10000");
    cfg_destroy(cfg);
}

/* The SRCFG lines of the digest's §10 example and tests/data/cfg/basic.cfg. */
static void test_digest_example(void)
{
    size_t n;
    struct srcfg_def *d =
        load("SRCFG[test]           STARTTIME=8:00:00 ENDTIME=17:00:00 DAYS=MON,TUE,WED,THU,FRI\n"
             "SRCFG[test]           TASKCOUNT=20 TIMELIMIT=0:30:00 USERLIST=john,amy\n",
             &n);
    CHECK_EQ(n, 1);
    if (!d)
        return;
    CHECK_EQ(d->time.start, H(8));
    CHECK_EQ(d->time.end, H(17));
    CHECK_EQ(d->taskcount, 20);
    CHECK_STR(acl_text(d), "USER==john+:==amy+ DURATION<=0:30:00+");
    srcfg_free(d, n);
}

/* --------------------------------------------------------- attribute forms */

static const struct {
    const char *value;
    long procs, mem, disk, swap;
} res_rows[] = {
    {"PROCS:2;MEM:512", 2, 512, 0, 0}, {"PROCS=2,MEM=256", 2, 256, 0, 0}, /* the seed's spelling */
    {"PROCS:1,MEM:512", 1, 512, 0, 0}, {"procs:4+disk:100+swap:50", 4, 0, 100, 50},
    {"MEM:1024", -1, 1024, 0, 0}, /* procs stay "the whole node" */
    {"PROCS=-1", -1, 0, 0, 0},
};

static void test_resources_forms(void)
{
    for (size_t i = 0; i < sizeof res_rows / sizeof res_rows[0]; i++) {
        char text[256];
        size_t n;
        snprintf(text, sizeof text, "SRCFG[r] TASKCOUNT=1 RESOURCES=%s\n", res_rows[i].value);
        struct srcfg_def *d = load(text, &n);
        CHECK_EQ(n, 1);
        if (!d)
            continue;
        CHECK_EQ(d->res.procs, res_rows[i].procs);
        CHECK_EQ(d->res.mem, res_rows[i].mem);
        CHECK_EQ(d->res.disk, res_rows[i].disk);
        CHECK_EQ(d->res.swap, res_rows[i].swap);
        srcfg_free(d, n);
    }
}

static const struct {
    const char *attrs;
    unsigned flags;
    enum srcfg_access access;
} flag_rows[] = {
    {"FLAGS=BYNAME", SRCFG_BYNAME, SRCFG_SHARED},
    {"FLAGS=besteffort|byname", SRCFG_BESTEFFORT | SRCFG_BYNAME, SRCFG_SHARED},
    {"FLAGS=[BESTEFFORT][FORCE]", SRCFG_BESTEFFORT | SRCFG_FORCE, SRCFG_SHARED},
    {"ACCESS=DEDICATED", 0, SRCFG_DEDICATED},
    {"ACCESS=dedicated FLAGS=BYNAME", SRCFG_BYNAME, SRCFG_DEDICATED}, /* FLAGS keeps it */
    {"ACCESS=SHARED", 0, SRCFG_SHARED},
    {"FLAGS=DEDICATEDRESOURCE", 0, SRCFG_DEDICATED},
    {"OWNER=USER:john FLAGS=OWNERPREEMPT", SRCFG_OWNERPREEMPT, SRCFG_SHARED},
    /* the Guide's SRCFG table: "SINGLEUSE, BYNAME, OWNERPREEMPT, PREEMPTEE,
     * TIMEFLEX, or FORCE"; its flag list adds SPACEFLEX */
    {"FLAGS=SINGLEUSE,PREEMPTEE", SRCFG_SINGLEUSE | SRCFG_PREEMPTEE, SRCFG_SHARED},
    {"FLAGS=spaceflex", SRCFG_SPACEFLEX, SRCFG_SHARED},
};

static void test_flags_and_access(void)
{
    for (size_t i = 0; i < sizeof flag_rows / sizeof flag_rows[0]; i++) {
        char text[256];
        size_t n;
        snprintf(text, sizeof text, "SRCFG[f] TASKCOUNT=1 %s\n", flag_rows[i].attrs);
        struct srcfg_def *d = load(text, &n);
        CHECK_EQ(n, 1);
        if (!d)
            continue;
        CHECK_EQ(d->flags, flag_rows[i].flags);
        CHECK_EQ(d->access, flag_rows[i].access);
        srcfg_free(d, n);
    }
    /* Maui's flags that moku does not act on load, with a warning naming
     * the file and line; never ignored in silence, never refusing the file */
    static const char *const warned[] = {"TIMEFLEX", "ADVRES", "DEDICATEDNODE", "meta"};
    for (size_t i = 0; i < sizeof warned / sizeof *warned; i++) {
        char text[128], want[128];
        snprintf(text, sizeof text, "\nSRCFG[f] TASKCOUNT=1 FLAGS=BYNAME,%s\n", warned[i]);
        snprintf(want, sizeof want,
                 "maui.cfg:2: SRCFG[f] FLAGS: flag '%s' is not acted on: ", warned[i]);
        size_t n;
        struct srcfg_def *d = load(text, &n);
        CHECK_EQ(n, 1);
        if (!d)
            continue;
        CHECK_EQ(d->flags, SRCFG_BYNAME);
        CHECK(d->warnings != NULL);
        if (d->warnings)
            CHECK_HAS(d->warnings, want);
        srcfg_free(d, n);
    }
    size_t n0;
    struct srcfg_def *d0 = load("SRCFG[f] TASKCOUNT=1 FLAGS=BYNAME\n", &n0);
    CHECK(d0 && d0->warnings == NULL);
    srcfg_free(d0, n0);
    CHECK_STR(srcfg_flag_name(SRCFG_OWNERPREEMPT), "OWNERPREEMPT");
    /* a second, different STARTTIME would silently replace the first */
    CHECK_STR(load_err("SRCFG[x] TASKCOUNT=1 STARTTIME=1:00:00 ENDTIME=2:00:00\n"
                       "SRCFG[x] STARTTIME=3:00:00\n"),
              "maui.cfg:2: SRCFG[x] STARTTIME: given twice, '1:00:00' and '3:00:00' (first at "
              "maui.cfg:1)");
    /* PERIOD=INFINITY takes no days or times of day (they were ignored) */
    CHECK_STR(load_err("SRCFG[x] TASKCOUNT=1 PERIOD=INFINITY DAYS=MON\n"),
              "maui.cfg:1: SRCFG[x] DAYS: PERIOD=INFINITY is one window for ever: it takes no "
              "days or times of day");
    CHECK_HAS(load_err("SRCFG[x] TASKCOUNT=1 STARTTIME=8:00:00 PERIOD=INFINITY\n"),
              "SRCFG[x] STARTTIME: PERIOD=INFINITY");
    CHECK_STR(srcfg_flag_name(0x8000), "?");
}

static void test_other_attributes(void)
{
    size_t n;
    struct srcfg_def *d =
        load("SRCFG[o] TASKCOUNT=8 TPN=4 RESOURCES=PROCS:2;MEM:256 PARTITION=OLD\n"
             "SRCFG[o] PRIORITY=-5 CHARGEACCOUNT=jupiter IDLETIME=0:10:00 DEPTH=7\n"
             "SRCFG[o] NODEFEATURES=[wide][fddi] OWNER=group:staff JOBATTRLIST=PREEMPTEE\n"
             "SRCFG[o] HOSTLIST=ALL MAXTIME=2:00:00 TIMELIMIT=1:00:00\n",
             &n);
    CHECK_EQ(n, 1);
    if (!d)
        return;
    CHECK_EQ(d->tpn, 4);
    CHECK_STR(d->partition, "OLD");
    CHECK_EQ(d->priority, -5);
    CHECK_STR(d->chargeaccount, "jupiter");
    CHECK_EQ(d->idletime, 600);
    CHECK_EQ(d->time.depth, 7);
    CHECK_EQ(d->nfeatures, 2);
    if (d->nfeatures == 2) {
        CHECK_STR(d->features[0], "wide");
        CHECK_STR(d->features[1], "fddi");
    }
    CHECK_EQ(d->owner_type, ACL_GROUP);
    CHECK_STR(d->owner, "staff");
    CHECK_EQ(d->nhosts, 1);
    if (d->nhosts) {
        CHECK_STR(d->hosts[0].text, ".*");
        CHECK_EQ(d->hosts[0].regex, 1);
    }
    CHECK_STR(acl_text(d), "JATTR==PREEMPTEE+ DURATION<=1:00:00+:<=2:00:00+");
    srcfg_free(d, n);
}

static void test_triggers(void)
{
    size_t n;
    struct srcfg_def *d = load("SRCFG[fast] TASKCOUNT=1 TRIGGER=start+5:00:00:exec@/usr/local/"
                               "domail.pl\n"
                               "SRCFG[fast] TRIGGER=end;cancel TRIGGER=create+30;submit@job.sh\n"
                               "SRCFG[fast] TRIGGER=minload@0.5:cancel\n",
                               &n);
    CHECK_EQ(n, 1);
    if (!d)
        return;
    CHECK_EQ(d->ntriggers, 4);
    if (d->ntriggers == 4) {
        const struct srcfg_trigger *t = d->triggers;
        CHECK_EQ(t[0].event, SRCFG_EV_START);
        CHECK_EQ(t[0].offset, H(5));
        CHECK_EQ(t[0].action, SRCFG_ACT_EXEC);
        CHECK_STR(t[0].data, "/usr/local/domail.pl");
        CHECK_EQ(t[1].event, SRCFG_EV_END);
        CHECK_EQ(t[1].offset, 0);
        CHECK_EQ(t[1].action, SRCFG_ACT_CANCEL);
        CHECK(t[1].data == NULL);
        CHECK_EQ(t[2].event, SRCFG_EV_CREATE);
        CHECK_EQ(t[2].offset, 30);
        CHECK_EQ(t[2].action, SRCFG_ACT_SUBMIT);
        CHECK_STR(t[2].data, "job.sh");
        CHECK_EQ(t[3].event, SRCFG_EV_MINLOAD);
        CHECK_EQ(t[3].has_threshold, 1);
        CHECK(near(t[3].threshold, 0.5));
        CHECK_EQ(t[3].action, SRCFG_ACT_CANCEL);
    }
    srcfg_free(d, n);
}

static void test_empty(void)
{
    size_t n = 7;
    struct srcfg_def *d = load("NODECFG[n1] PROCS=2\n", &n);
    CHECK(d == NULL);
    CHECK_EQ(n, 0);
    srcfg_free(NULL, 0);
}

/* ------------------------------------------------------------------ legacy */

static void test_legacy_parameters(void)
{
    size_t n;
    struct srcfg_def *d = load("SRNAME[0]        interactive\n"
                               "SRDAYS[0]        MON TUE WED THU FRI\n"
                               "SRSTARTTIME[0]   9:00:00\n"
                               "SRENDTIME[0]     17:00:00\n"
                               "SRDEPTH[0]       3\n"
                               "SRTASKCOUNT[0]   6\n"
                               "SRRESOURCES[0]   PROCS=1;MEM=512\n"
                               "SRTPN[0]         2\n"
                               "SRFEATURES[0]    fast\n"
                               "SRPARTITION[0]   OLD\n"
                               "SRFLAGS[0]       BYNAME\n"
                               "SRACCESS[0]      DEDICATED\n"
                               "SRPRIORITY[0]    10\n"
                               "SRCHARGEACCOUNT[0] ops\n"
                               "SRIDLETIME[0]    0:05:00\n"
                               "SRCLASSLIST[0]   interactive\n"
                               "SRUSERLIST[0]    john amy\n"
                               "SRGROUPLIST[0]   staff\n"
                               "SRACCOUNTLIST[0] ops\n"
                               "SRQOSLIST[0]     high low-\n"
                               "SRMAXTIME[0]     1:00:00\n"
                               "SRTIMELOGIC[0]   AND\n"
                               "SRHOSTLIST[1]    node1 node2\n"
                               "SRPERIOD[1]      INFINITY\n",
                               &n);
    CHECK_EQ(n, 2);
    if (n != 2)
        return;
    CHECK_STR(d[0].name, "interactive"); /* SRNAME renames index 0 */
    CHECK_EQ(d[0].time.days, MONFRI);
    CHECK_EQ(d[0].time.start, H(9));
    CHECK_EQ(d[0].time.end, H(17));
    CHECK_EQ(d[0].time.depth, 3);
    CHECK_EQ(d[0].taskcount, 6);
    CHECK_EQ(d[0].res.procs, 1);
    CHECK_EQ(d[0].res.mem, 512);
    CHECK_EQ(d[0].tpn, 2);
    CHECK_EQ(d[0].nfeatures, 1);
    CHECK_STR(d[0].partition, "OLD");
    CHECK_EQ(d[0].flags, SRCFG_BYNAME);
    CHECK_EQ(d[0].access, SRCFG_DEDICATED);
    CHECK_EQ(d[0].priority, 10);
    CHECK_STR(d[0].chargeaccount, "ops");
    CHECK_EQ(d[0].idletime, 300);
    /* SRTIMELOGIC AND: the time limit is required (the Guide's TIMELIMIT=1:00:00*). */
    CHECK_STR(acl_text(&d[0]), "USER==john+:==amy+ GROUP==staff+ ACCT==ops+ CLASS==interactive+ "
                               "QOS==high+:==low- DURATION<=1:00:00+*");
    CHECK_STR(d[1].name, "1");
    CHECK_EQ(d[1].time.period, SRTIME_INFINITY);
    CHECK_EQ(d[1].nhosts, 2);
    CHECK_EQ(d[1].floating, 0);
    srcfg_free(d, n);
}

/* Legacy week offsets; legacy and SRCFG of one name merge, SRCFG winning. */
static void test_legacy_week_and_merge(void)
{
    size_t n;
    struct srcfg_def *d = load("SRWSTARTTIME[wk] 1:08:00:00\n"
                               "SRWENDTIME[wk]   5:17:00:00\n"
                               "SRTASKCOUNT[wk]  4\n"
                               "SRTASKCOUNT[test] 4\n"
                               "SRSTARTTIME[test] 8:00:00\n"
                               "SRCFG[test] TASKCOUNT=8 ENDTIME=12:00:00\n",
                               &n);
    CHECK_EQ(n, 2);
    if (n != 2)
        return;
    CHECK_STR(d[0].name, "test"); /* SRCFG objects first */
    CHECK_EQ(d[0].taskcount, 8);
    CHECK_EQ(d[0].time.start, H(8));
    CHECK_EQ(d[0].time.end, H(12));
    CHECK_STR(d[1].name, "wk");
    CHECK_EQ(d[1].time.period, SRTIME_WEEK); /* implied by the week offsets */
    CHECK_EQ(d[1].time.start, D(1) + H(8));
    CHECK_EQ(d[1].time.end, D(5) + H(17));
    srcfg_free(d, n);
}

/* ------------------------------------------------------------------ errors */

static const struct {
    const char *text, *msg;
} err_rows[] = {
    /* bad flag */
    {"SRCFG[a] TASKCOUNT=1\nSRCFG[a] FLAGS=BYNAME,FOO\n",
     "maui.cfg:2: SRCFG[a] FLAGS: unknown flag 'FOO' (expected BESTEFFORT,"},
    /* bad times */
    {"SRCFG[a] TASKCOUNT=1 STARTTIME=25:00:00\n",
     "maui.cfg:1: SRCFG[a] STARTTIME: STARTTIME '25:00:00' is not within the day"},
    {"SRCFG[a] TASKCOUNT=1 PERIOD=WEEK ENDTIME=8:00:00:00\n",
     "maui.cfg:1: SRCFG[a] ENDTIME: ENDTIME '8:00:00:00' is not within the week"},
    {"SRCFG[a] TASKCOUNT=1 DAYS=MON,FUNDAY\n", "maui.cfg:1: SRCFG[a] DAYS: DAYS 'MON,FUNDAY'"},
    {"SRCFG[a] TASKCOUNT=1 DEPTH=65\n", "maui.cfg:1: SRCFG[a] DEPTH: DEPTH '65' is not"},
    {"SRCFG[a] TASKCOUNT=1 WSTARTTIME=9:00:00:00\n",
     "maui.cfg:1: SRCFG[a] WSTARTTIME: STARTTIME '9:00:00:00' is not within the week"},
    /* bad regex */
    {"SRCFG[a] HOSTLIST=node1,node[1-\n",
     "maui.cfg:1: SRCFG[a] HOSTLIST: bad host expression 'node[1-'"},
    /* bad RESOURCES */
    {"SRCFG[a] TASKCOUNT=1 RESOURCES=PROCS:x\n",
     "maui.cfg:1: SRCFG[a] RESOURCES: 'PROCS:x': PROCS 'x' is not a positive integer or -1"},
    {"SRCFG[a] TASKCOUNT=1 RESOURCES=PROCS:0\n", "PROCS '0' is not a positive integer"},
    {"SRCFG[a] TASKCOUNT=1 RESOURCES=MEM:-1\n", "MEM '-1' is not an integer >= 0 (MB)"},
    {"SRCFG[a] TASKCOUNT=1 RESOURCES=GPU:1\n",
     "'GPU:1' is not <RES>:<N> with RES one of PROCS, MEM, DISK, SWAP"},
    {"SRCFG[a] TASKCOUNT=1 RESOURCES=MEM\n", "'MEM' is not <RES>:<N>"},
    {"SRCFG[a] TASKCOUNT=1 RESOURCES=PROCS:1;PROCS:2\n", "PROCS given twice"},
    {"SRCFG[a] TASKCOUNT=1 RESOURCES=;\n", "RESOURCES: ';' names no resource"},
    /* bad OWNER */
    {"SRCFG[a] TASKCOUNT=1 OWNER=john\n",
     "maui.cfg:1: SRCFG[a] OWNER: 'john' is not <TYPE>:<NAME> with TYPE one of USER,"},
    {"SRCFG[a] TASKCOUNT=1 OWNER=BOSS:john\n", "OWNER: 'BOSS:john' is not <TYPE>:<NAME>"},
    {"SRCFG[a] TASKCOUNT=1 OWNER=USER:\n", "OWNER: 'USER:' is not <TYPE>:<NAME>"},
    /* conflicting or missing attributes */
    {"SRCFG[a] TASKCOUNT=1 STARTTIME=8:00:00\nSRCFG[a] WSTARTTIME=1:08:00:00\n",
     "maui.cfg:2: SRCFG[a] WSTARTTIME: conflicts with STARTTIME"},
    {"SRCFG[a] TASKCOUNT=1 PERIOD=DAY WENDTIME=1:08:00:00\n",
     "SRCFG[a] WENDTIME: conflicts with PERIOD (week offsets need PERIOD=WEEK)"},
    {"SRCFG[a] TASKCOUNT=1 ACCESS=SHARED FLAGS=DEDICATEDRESOURCE\n",
     "SRCFG[a] ACCESS: conflicts with FLAGS=DEDICATEDRESOURCE"},
    {"SRCFG[a] TASKCOUNT=1 FLAGS=OWNERPREEMPT\n",
     "SRCFG[a] FLAGS: conflicts with OWNER (OWNERPREEMPT needs an OWNER"},
    {"SRCFG[a] TASKCOUNT=4 TPN=2\n", "SRCFG[a] TPN: conflicts with RESOURCES"},
    {"\nSRCFG[a] USERLIST=john PERIOD=DAY\n",
     "maui.cfg:2: SRCFG[a]: neither TASKCOUNT nor HOSTLIST given"},
    /* ACL values */
    {"SRCFG[a] TASKCOUNT=1 TIMELIMIT=soon\n", "maui.cfg:1: SRCFG[a] TIMELIMIT: "},
    {"SRCFG[a] TASKCOUNT=1 USERLIST=bob+-\n", "maui.cfg:1: SRCFG[a] USERLIST: "},
    {"SRCFG[a] TASKCOUNT=1 PROCLIMIT=4\n", "SRCFG[a] PROCLIMIT: not supported"},
    /* triggers */
    {"SRCFG[a] TASKCOUNT=1 TRIGGER=begin;cancel\n",
     "maui.cfg:1: SRCFG[a] TRIGGER: 'begin;cancel': unknown event 'begin'"},
    {"SRCFG[a] TASKCOUNT=1 TRIGGER=start;mail@x\n", "unknown action 'mail'"},
    {"SRCFG[a] TASKCOUNT=1 TRIGGER=start;exec\n", "'start;exec': exec needs @<COMMAND>"},
    {"SRCFG[a] TASKCOUNT=1 TRIGGER=end;cancel@x\n", "cancel takes no @<DATA>"},
    {"SRCFG[a] TASKCOUNT=1 TRIGGER=start+x;cancel\n", "offset 'x' is not a time"},
    {"SRCFG[a] TASKCOUNT=1 TRIGGER=start\n", "'start' is not <EVENT>[+<OFFSET>]"},
    {"SRCFG[a] TASKCOUNT=1 TRIGGER=minload@x;cancel\n", "threshold is not a number"},
    /* legacy parameters: named by parameter and index (cfg keeps no line) */
    {"SRSTARTTIME[0] 25:00:00\nSRTASKCOUNT[0] 2\n",
     "SRSTARTTIME[0]: STARTTIME '90000' is not within the day"},
    {"SRTASKCOUNT[0] 2\nSRRESOURCES[0] PROCS=2;CPU=1\n", "SRRESOURCES[0]: 'PROCS=2;CPU=1'"},
    {"SRTASKCOUNT[0] 2\nSRFLAGS[0] BYNAME BOGUS\n", "SRFLAGS[0]: unknown flag 'BOGUS'"},
    {"SRDAYS[0] MON\n", "standing reservation '0' (SR* parameters): neither TASKCOUNT"},
    {"SRTASKCOUNT[0] 1\nSRTASKCOUNT[1] 1\nSRNAME[0] x\nSRNAME[1] x\n",
     "SRNAME: reservations '0' and '1' are both named 'x'"},
    /* a good reservation before a bad one: nothing comes back */
    {"SRCFG[good] TASKCOUNT=1\nSRCFG[bad] TASKCOUNT=1 FLAGS=NOPE\n",
     "maui.cfg:2: SRCFG[bad] FLAGS: unknown flag 'NOPE'"},
};

static void test_errors(void)
{
    for (size_t i = 0; i < sizeof err_rows / sizeof err_rows[0]; i++)
        CHECK_HAS(load_err(err_rows[i].text), err_rows[i].msg);
}

int main(void)
{
    TEST_RUN(test_guide_business_hours);
    TEST_RUN(test_guide_host_constrained_and_stacking);
    TEST_RUN(test_guide_multiple_acl_types);
    TEST_RUN(test_guide_limited_shared_access);
    TEST_RUN(test_digest_example);
    TEST_RUN(test_resources_forms);
    TEST_RUN(test_flags_and_access);
    TEST_RUN(test_other_attributes);
    TEST_RUN(test_triggers);
    TEST_RUN(test_empty);
    TEST_RUN(test_legacy_parameters);
    TEST_RUN(test_legacy_week_and_merge);
    TEST_RUN(test_errors);
    return TEST_DONE();
}
