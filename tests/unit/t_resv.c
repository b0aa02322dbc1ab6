/*
 * t_resv — reservations through the engine (core/sched.h; policy/resv.c,
 * plan.c, alloc.c): the Admin Guide's standing-reservation examples run as
 * small clusters with jobs, instances rolling with the calendar, partial
 * instances topped up, every ACL form deciding where a job lands, admin
 * reservations (setres) and their errors, each NODEALLOCATIONPOLICY and
 * NODEACCESSPOLICY with known answers, and EASY schedules that a reservation
 * admitting everyone must leave unchanged.
 *
 * Worlds are built from maui.cfg text (cfg_load_string, then the policy,
 * NODECFG nodes, credentials and SRCFG). The calendar is UTC and driver time
 * 0 is EPOCH, Monday 2024-01-01 00:00:00 UTC, so H(10) is Monday 10:00 and
 * D(5) + H(10) Saturday 10:00. Jobs are written "<name> <tasks>x<procs>
 * [wall=2h] [user=bob] [class=interactive] ..." (job()), one hour unless
 * told, and are submitted at the instant of the iteration that follows.
 *
 * The five tests at the end each caught an engine bug when they were
 * written (described where each is defined); they guard the fixes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfg/cfg.h"
#include "cmd/cmd.h"
#include "engine/engine.h"
#include "policy/srcfg.h"
#include "sim/sim.h"
#include "test.h"

#define EPOCH 1704067200L /* Mon Jan  1 00:00:00 2024 UTC */
#define M(x) ((x)*60L)
#define H(x) ((x)*3600L)
#define D(x) ((x)*86400L)

/* ---------------------------------------------------------------- helpers */

/* A scheduler from maui.cfg text: policy, nodes, credentials, standing
 * reservations; UTC calendar from EPOCH. NULL (and a failed check) if the
 * text is refused. */
static struct sched *world(const char *text)
{
    struct cfg *cfg = cfg_create();
    struct err err = {{0}};
    struct sched_policy pol;
    struct sched *s = NULL;
    if (cfg_load_string(cfg, text, "maui.cfg", &err) < 0 ||
        sched_policy_from_cfg(cfg, &pol, &err) < 0)
        goto fail;
    s = sched_create(&pol, NULL);
    sched_set_zone(s, 0, 0);
    sched_set_epoch(s, EPOCH);
    if (sched_add_nodes_from_cfg(s, cfg, &err) < 0 || sched_creds_from_cfg(s, cfg, &err) < 0 ||
        sched_standing_from_cfg(s, cfg, &err) < 0)
        goto fail;
    cfg_destroy(cfg);
    return s;
fail:
    fprintf(stderr, "    world: %s\n", err.msg);
    CHECK(!"the configuration is accepted");
    sched_destroy(s);
    cfg_destroy(cfg);
    return NULL;
}

/* Replace s's standing reservations by those of text. */
static void load_standing(struct sched *s, const char *text)
{
    struct cfg *cfg = cfg_create();
    struct err err = {{0}};
    int ok = cfg_load_string(cfg, text, "maui.cfg", &err) == 0 &&
             sched_standing_from_cfg(s, cfg, &err) == 0;
    if (!ok)
        fprintf(stderr, "    standing: %s\n", err.msg);
    CHECK(ok);
    cfg_destroy(cfg);
}

/* Submit js at now (defaults: 1 task of 1 processor, one hour). */
static struct job *submit(struct sched *s, long now, struct job_spec js)
{
    struct err err = {{0}};
    if (!js.tasks)
        js.tasks = 1;
    if (!js.procs_per_task)
        js.procs_per_task = 1;
    if (!js.walltime)
        js.walltime = H(1);
    js.submit = now;
    struct job *j = sched_submit(s, &js, &err);
    if (!j)
        fprintf(stderr, "    submit %s: %s\n", js.name ? js.name : "?", err.msg);
    CHECK(j != NULL);
    return j;
}

/* Seconds of "90", "30m", "2h", "3d". */
static long secs(const char *v)
{
    char *end;
    long n = strtol(v, &end, 10);
    return *end == 'm' ? M(n) : *end == 'h' ? H(n) : *end == 'd' ? D(n) : n;
}

/*
 * Submit at now the job desc describes: "<name> <tasks>x<procs per task>"
 * then any of wall=<secs|Nm|Nh|Nd>, user=, group=, account=, class=, qos=,
 * features= (one hour and DEFAULT credentials unless given), e.g.
 * "i1 6x1 wall=2h user=bob class=interactive".
 */
static struct job *job(struct sched *s, long now, const char *desc)
{
    char copy[256], *save = NULL;
    snprintf(copy, sizeof copy, "%s", desc);
    struct job_spec js = {.name = strtok_r(copy, " ", &save)};
    const char *shape = strtok_r(NULL, " ", &save);
    if (!js.name || !shape || sscanf(shape, "%dx%d", &js.tasks, &js.procs_per_task) != 2) {
        fprintf(stderr, "    bad job description '%s'\n", desc);
        CHECK(!"job description");
        return NULL;
    }
    for (char *kv; (kv = strtok_r(NULL, " ", &save));) {
        char *v = strchr(kv, '=');
        if (v)
            *v++ = '\0';
        if (v && strcmp(kv, "wall") == 0)
            js.walltime = secs(v);
        else if (v && strcmp(kv, "user") == 0)
            js.user = v;
        else if (v && strcmp(kv, "group") == 0)
            js.group = v;
        else if (v && strcmp(kv, "account") == 0)
            js.account = v;
        else if (v && strcmp(kv, "class") == 0)
            js.class_ = v;
        else if (v && strcmp(kv, "qos") == 0)
            js.qos = v;
        else if (v && strcmp(kv, "features") == 0)
            js.features = v;
        else {
            fprintf(stderr, "    bad job attribute '%s' in '%s'\n", kv, desc);
            CHECK(!"job attribute");
        }
    }
    return submit(s, now, js);
}

static int running(const struct job *j)
{
    return j && j->state == JOB_RUNNING;
}

static int idle(const struct job *j)
{
    return j && j->state == JOB_IDLE;
}

/* End a running job at now. */
static void finish(struct sched *s, struct job *j, long now)
{
    CHECK(running(j));
    if (running(j))
        sched_job_ended(s, j, now);
}

/* A few rotating buffers, so that one CHECK may call two helpers. */
static char *buf(void)
{
    static char bufs[4][512];
    static int k;
    k = (k + 1) % 4;
    bufs[k][0] = '\0';
    return bufs[k];
}

static void cat(char *b, const char *word)
{
    size_t len = strlen(b);
    snprintf(b + len, 512 - len, "%s%s", len ? "," : "", word);
}

/* The nodes a running job holds, in node-table order: "n1,n2"; "-" when it
 * is not running. */
static const char *where(const struct sched *s, const struct job *j)
{
    char *b = buf();
    if (!running(j))
        return "-";
    for (size_t k = 0; k < j->nslots; k++)
        for (unsigned i = 0; i < j->slots[k].nnodes; i++)
            cat(b, sched_node(s, j->slots[k].node + i)->name);
    return b;
}

/* Processors job j holds on the node named name. */
static long procs_on(const struct sched *s, const struct job *j, const char *name)
{
    long n = 0, node = sched_find_node(s, name);
    for (size_t k = 0; running(j) && k < j->nslots; k++)
        if (node >= j->slots[k].node && node < (long)(j->slots[k].node + j->slots[k].nnodes))
            n += j->slots[k].procs;
    return n;
}

/* The nodes of reservation id: "n1,n2"; "(none)" when there is no such
 * reservation. */
static const char *rnodes(const struct sched *s, const char *id)
{
    const struct resv *r = sched_find_resv(s, id);
    char *b = buf();
    if (!r)
        return "(none)";
    for (size_t k = 0; k < r->nnodes; k++)
        cat(b, sched_node(s, r->nodes[k].node)->name);
    return b;
}

/* Every reservation id, in creation order: "a.0,a.1". */
static const char *ids(const struct sched *s)
{
    char *b = buf();
    for (size_t i = 0; i < sched_nresv(s); i++)
        cat(b, sched_resv_at(s, i)->id);
    return b;
}

static long rstart(const struct sched *s, const char *id)
{
    const struct resv *r = sched_find_resv(s, id);
    return r ? r->start : -1;
}

static long rend(const struct sched *s, const char *id)
{
    const struct resv *r = sched_find_resv(s, id);
    return r ? r->end : -1;
}

/* Affinity of job j with reservation id if started at t (ACL_NONE when no
 * such reservation). */
static enum acl_affinity affinity(const struct sched *s, const char *id, const struct job *j,
                                  long t)
{
    const struct resv *r = sched_find_resv(s, id);
    CHECK(r != NULL);
    CHECK(j != NULL);
    return r && j ? sched_resv_access(s, r, j, t) : ACL_NONE;
}

/* NODECFG lines for nodes prefix<first>..prefix<last> (printf format for
 * the number, e.g. "lm%02d"), each with attrs; appended to b (len bytes). */
static void nodes_cfg(char *b, size_t len, const char *fmt, int first, int last, const char *attrs)
{
    for (int i = first; i <= last; i++) {
        char name[32];
        snprintf(name, sizeof name, fmt, i);
        size_t used = strlen(b);
        snprintf(b + used, len - used, "NODECFG[%s] %s\n", name, attrs);
    }
}

/* ------------------------------------------- the Admin Guide's examples */

/*
 * Example 1, business hours: 6 one-processor tasks (MEM:512) Monday to
 * Friday 9:00-17:00 for class interactive. Four 2-processor nodes: the
 * tasks take n1..n3 (two per node), n4 stays open.
 */
static const char business[] = "NODEALLOCATIONPOLICY FIRSTAVAILABLE\n"
                               "NODECFG[n1] PROCS=2 MEMORY=1024\n"
                               "NODECFG[n2] PROCS=2 MEMORY=1024\n"
                               "NODECFG[n3] PROCS=2 MEMORY=1024\n"
                               "NODECFG[n4] PROCS=2 MEMORY=1024\n"
                               "SRCFG[interactive] TASKCOUNT=6 RESOURCES=PROCS:1,MEM:512\n"
                               "SRCFG[interactive] PERIOD=DAY DAYS=MON,TUE,WED,THU,FRI\n"
                               "SRCFG[interactive] STARTTIME=9:00:00 ENDTIME=17:00:00\n"
                               "SRCFG[interactive] CLASSLIST=interactive\n";

static void test_guide_business_hours(void)
{
    struct sched *s = world(business);
    if (!s)
        return;
    sched_iterate(s, 0); /* Monday 00:00: Monday's and Tuesday's instances (DEPTH 2) */
    CHECK_STR(ids(s), "interactive.0,interactive.1");
    CHECK_EQ(rstart(s, "interactive.0"), H(9));
    CHECK_EQ(rend(s, "interactive.0"), H(17));
    CHECK_EQ(rstart(s, "interactive.1"), D(1) + H(9));
    CHECK_STR(rnodes(s, "interactive.0"), "n1,n2,n3");
    const struct resv *r = sched_find_resv(s, "interactive.0");
    if (r) {
        CHECK_EQ(r->tasks, 6);
        CHECK_EQ(r->tasks_asked, 6);
        CHECK_EQ(r->procs, 6);
        CHECK_EQ(r->kind, RESV_STANDING);
    }

    /* Monday 10:00: the interactive job runs inside; batch jobs get n4 only. */
    struct job *i1 = job(s, H(10), "i1 6x1 class=interactive");
    struct job *b1 = job(s, H(10), "b1 2x1 class=batch");
    struct job *b2 = job(s, H(10), "b2 4x1 class=batch");
    sched_iterate(s, H(10));
    CHECK_STR(where(s, i1), "n1,n2,n3");
    CHECK_STR(where(s, b1), "n4");
    CHECK(idle(b2));
    CHECK_EQ(affinity(s, "interactive.0", i1, H(10)), ACL_POSITIVE);
    CHECK_EQ(affinity(s, "interactive.0", b2, H(10)), ACL_NONE);
    if (b2)
        CHECK_EQ(b2->resv_start, H(17)); /* when the window closes */
    finish(s, i1, H(11));
    finish(s, b1, H(11));
    sched_iterate(s, H(11));
    CHECK(idle(b2)); /* the reserved processors are idle, still not its own */
    sched_iterate(s, H(17));
    CHECK_STR(where(s, b2), "n1,n2");
    finish(s, b2, H(18));

    /* Monday 20:00: a 14-hour batch job would run into Tuesday's window and
     * waits for its end; a 1-hour one runs on the whole cluster. */
    struct job *b4 = job(s, H(20), "b4 8x1 wall=14h class=batch");
    struct job *b3 = job(s, H(20), "b3 8x1 class=batch");
    sched_iterate(s, H(20));
    CHECK(idle(b4));
    if (b4)
        CHECK_EQ(b4->resv_start, D(1) + H(17));
    CHECK_STR(where(s, b3), "n1,n2,n3,n4");
    CHECK(b3 && (b3->flags & JOB_BACKFILLED));
    sched_destroy(s);

    /* The weekend has no instance; Sunday brings Monday's. */
    s = world(business);
    if (!s)
        return;
    sched_iterate(s, D(5) + H(10)); /* Saturday 10:00 */
    CHECK_EQ(sched_nresv(s), 0);
    struct job *w = job(s, D(5) + H(10), "w 8x1 class=batch");
    sched_iterate(s, D(5) + H(10));
    CHECK(running(w));
    finish(s, w, D(5) + H(11));
    sched_iterate(s, D(6) + H(10)); /* Sunday 10:00 */
    CHECK_STR(ids(s), "interactive.0");
    CHECK_EQ(rstart(s, "interactive.0"), D(7) + H(9));
    sched_destroy(s);
}

/*
 * Example 2, host constrained: 6 tasks of PROCS:2 (whole 2-processor nodes)
 * Monday to Friday 10:00-15:00, the HOSTLIST nodes first, then the others
 * with the least memory (node003 has more, so node004 and node006 come
 * next).
 */
static const char host_nodes[] = "NODEALLOCATIONPOLICY FIRSTAVAILABLE\n"
                                 "NODECFG[node001] PROCS=2 MEMORY=512\n"
                                 "NODECFG[node002] PROCS=2 MEMORY=512\n"
                                 "NODECFG[node003] PROCS=2 MEMORY=2048\n"
                                 "NODECFG[node004] PROCS=2 MEMORY=512\n"
                                 "NODECFG[node005] PROCS=2 MEMORY=512\n"
                                 "NODECFG[node006] PROCS=2 MEMORY=512\n"
                                 "NODECFG[node007] PROCS=2 MEMORY=512\n"
                                 "NODECFG[node020] PROCS=2 MEMORY=512\n";

static const char host_interactive[] =
    "SRCFG[interactive] DAYS=MON,TUE,WED,THU,FRI\n"
    "SRCFG[interactive] PERIOD=DAY\n"
    "SRCFG[interactive] STARTTIME=10:00:00 ENDTIME=15:00:00\n"
    "SRCFG[interactive] RESOURCES=PROCS:2,MEM:256\n"
    "SRCFG[interactive] HOSTLIST=node001,node002,node005,node020\n"
    "SRCFG[interactive] TASKCOUNT=6\n"
    "SRCFG[interactive] CLASSLIST=interactive\n";

static void test_guide_host_constrained(void)
{
    char text[2048];
    snprintf(text, sizeof text, "%s%s", host_nodes, host_interactive);
    struct sched *s = world(text);
    if (!s)
        return;
    sched_iterate(s, 0);
    CHECK_STR(ids(s), "interactive.0,interactive.1");
    CHECK_STR(rnodes(s, "interactive.0"), "node001,node002,node004,node005,node006,node020");
    CHECK_EQ(rstart(s, "interactive.0"), H(10));
    CHECK_EQ(rend(s, "interactive.0"), H(15));
    const struct resv *r = sched_find_resv(s, "interactive.0");
    if (r) {
        CHECK_EQ(r->tasks, 6);
        CHECK_EQ(r->procs, 12);
    }
    /* An interactive job takes reserved nodes first, in allocation order;
     * a batch job gets the two unreserved nodes. */
    struct job *i = job(s, H(11), "i 2x2 class=interactive");
    struct job *b = job(s, H(11), "b 3x2 class=batch");
    sched_iterate(s, H(11));
    CHECK_STR(where(s, i), "node001,node002");
    CHECK(idle(b)); /* node003 and node007 only: 2 of its 3 tasks */
    if (b)
        CHECK_EQ(b->resv_start, H(15));
    sched_destroy(s);
}

/*
 * Example 3, stacking: debug (PERIOD=INFINITY, HOSTLIST node001..node004,
 * user helpdesk or group operations/sysadmin) under the host-constrained
 * interactive reservation, which again takes node001, node002, node005,
 * node020 and then node003, node004 (all nodes alike here). A job on
 * node001..node004 between 10:00 and 15:00 must be admitted by both.
 */
static const char stack_nodes[] = "NODEALLOCATIONPOLICY FIRSTAVAILABLE\n"
                                  "NODECFG[node001] PROCS=2 MEMORY=512\n"
                                  "NODECFG[node002] PROCS=2 MEMORY=512\n"
                                  "NODECFG[node003] PROCS=2 MEMORY=512\n"
                                  "NODECFG[node004] PROCS=2 MEMORY=512\n"
                                  "NODECFG[node005] PROCS=2 MEMORY=512\n"
                                  "NODECFG[node006] PROCS=2 MEMORY=512\n"
                                  "NODECFG[node020] PROCS=2 MEMORY=512\n";

static const char stack_debug[] = "SRCFG[debug]       HOSTLIST=node001,node002,node003,node004\n"
                                  "SRCFG[debug]       USERLIST=helpdesk\n"
                                  "SRCFG[debug]       GROUPLIST=operations,sysadmin\n"
                                  "SRCFG[debug]       PERIOD=INFINITY\n";

static void test_guide_stacking(void)
{
    char text[2048];
    snprintf(text, sizeof text, "%s%s\n%s", stack_nodes, host_interactive, stack_debug);
    struct sched *s = world(text);
    if (!s)
        return;
    sched_iterate(s, 0);
    CHECK_STR(ids(s), "interactive.0,interactive.1,debug.0");
    CHECK_STR(rnodes(s, "interactive.0"), "node001,node002,node003,node004,node005,node020");
    CHECK_STR(rnodes(s, "debug.0"), "node001,node002,node003,node004");
    CHECK_EQ(rstart(s, "debug.0"), 0);
    CHECK_EQ(rend(s, "debug.0"), SCHED_NEVER); /* never (not Maui's MAX_MTIME, 2037) */

    struct job *bob = job(s, H(11), "bob 2x2 user=bob class=interactive");
    struct job *help = job(s, H(11), "help 4x2 user=helpdesk class=interactive");
    struct job *hb = job(s, H(11), "hb 1x2 user=helpdesk class=batch");
    struct job *bob2 = job(s, H(11), "bob2 1x2 user=bob class=interactive");
    sched_iterate(s, H(11));
    /* bob: interactive admits, debug refuses: node005 and node020 only. */
    CHECK_EQ(affinity(s, "interactive.0", bob, H(11)), ACL_POSITIVE);
    CHECK_EQ(affinity(s, "debug.0", bob, H(11)), ACL_NONE);
    CHECK_STR(where(s, bob), "node005,node020");
    /* helpdesk in class interactive passes both: node001..node004. */
    CHECK_STR(where(s, help), "node001,node002,node003,node004");
    /* helpdesk in class batch: the interactive window refuses it. */
    CHECK_STR(where(s, hb), "node006");
    CHECK(idle(bob2)); /* nothing it may use is left */
    finish(s, bob, H(12));
    finish(s, help, H(12));
    finish(s, hb, H(12));
    sched_iterate(s, H(12));
    CHECK_STR(where(s, bob2), "node005");
    finish(s, bob2, H(13));

    /* After 15:00 only debug remains on node001..node004: group operations
     * gets them first (positive affinity), bob gets them last. */
    struct job *op = job(s, H(16), "op 2x2 user=ann group=operations class=batch");
    struct job *bob3 = job(s, H(16), "bob3 4x2 user=bob class=batch");
    sched_iterate(s, H(16));
    CHECK_STR(where(s, op), "node001,node002");
    CHECK(idle(bob3)); /* node005, node006, node020: 3 of its 4 tasks */
    sched_destroy(s);
}

/*
 * Example 4, multiple ACL types: 32 whole nodes with feature largememory
 * from Monday 8:00 to Friday 17:00 (PERIOD=WEEK); jobs of QOS high or low,
 * QOS special with negative affinity, never accounts projectX/projectY, and
 * only jobs overlapping the reservation by at most an hour (TIMELIMIT
 * required). The cluster: lm01..lm32 (largememory) and p1..p4, 2 processors
 * each.
 */
static void test_guide_multiple_acl_types(void)
{
    static char text[8192];
    snprintf(text, sizeof text, "NODEALLOCATIONPOLICY FIRSTAVAILABLE\n");
    nodes_cfg(text, sizeof text, "lm%02d", 1, 32, "PROCS=2 FEATURES=largememory");
    nodes_cfg(text, sizeof text, "p%d", 1, 4, "PROCS=2");
    size_t used = strlen(text);
    snprintf(text + used, sizeof text - used,
             "SRCFG[special] TASKCOUNT=32\n"
             "SRCFG[special] PERIOD=WEEK\n"
             "SRCFG[special] STARTTIME=1:08:00:00\n"
             "SRCFG[special] ENDTIME=5:17:00:00\n"
             "SRCFG[special] NODEFEATURES=largememory\n"
             "SRCFG[special] TIMELIMIT=1:00:00*\n"
             "SRCFG[special] QOSLIST=high low special-\n"
             "SRCFG[special] ACCOUNTLIST=!projectX,!projectY\n");
    struct sched *s = world(text);
    if (!s)
        return;
    sched_iterate(s, 0);
    CHECK_STR(ids(s), "special.0,special.1");
    CHECK_EQ(rstart(s, "special.0"), H(8));
    CHECK_EQ(rend(s, "special.0"), D(4) + H(17));
    CHECK_EQ(rstart(s, "special.1"), D(7) + H(8));
    const struct resv *r = sched_find_resv(s, "special.0");
    if (r) {
        CHECK_EQ(r->tasks, 32);
        CHECK_EQ(r->nnodes, 32);
        CHECK_EQ(sched_node(s, r->nodes[0].node)->name[0], 'l');
        CHECK_EQ(sched_node(s, r->nodes[31].node)->name[0], 'l');
    }
    long t = H(10);
    struct job *a = job(s, t, "a 4x1 qos=high");
    struct job *c = job(s, t, "c 1x2 qos=high account=projectX");
    struct job *d = job(s, t, "d 2x1 qos=special");
    struct job *e = job(s, t, "e 12x1 qos=special");
    struct job *b = job(s, t, "b 10x1 wall=2h qos=high");
    struct job *f = job(s, t, "f 1x1 qos=normal");
    sched_iterate(s, t);
    /* QOS high, one hour: admitted, positive: reserved nodes first. */
    CHECK_EQ(affinity(s, "special.0", a, t), ACL_POSITIVE);
    CHECK_STR(where(s, a), "lm01,lm02");
    /* Account projectX is refused whatever its QOS. */
    CHECK_EQ(affinity(s, "special.0", c, t), ACL_NONE);
    CHECK_STR(where(s, c), "p1");
    /* QOS special: negative affinity, unreserved nodes first, reserved last. */
    CHECK_EQ(affinity(s, "special.0", d, t), ACL_NEGATIVE);
    CHECK_STR(where(s, d), "p2");
    CHECK_STR(where(s, e), "lm03,lm04,lm05,lm06,p3,p4");
    CHECK_EQ(procs_on(s, e, "p3") + procs_on(s, e, "p4"), 4);
    /* A QOS the list does not name, with an account ACCOUNTLIST=!projectX,!projectY
     * does not exclude: admitted, as the guide's Example 4 says ("satisfied by any
     * account not listed"; Maui 3.3.1's code refused it). */
    CHECK_EQ(affinity(s, "special.0", f, t), ACL_POSITIVE);
    CHECK(!idle(f));
    /* Two hours of QOS high overlap the window by more than the required
     * hour: refused, so 10 processors are out of reach... */
    CHECK_EQ(affinity(s, "special.0", b, t), ACL_NONE);
    CHECK(idle(b));
    CHECK(b && b->resv_start > t); /* see test_duration_earliest for when */
    /* ...unless it overlaps by one hour only: started Friday 16:00. */
    CHECK_EQ(affinity(s, "special.0", b, D(4) + H(16)), ACL_POSITIVE);
    CHECK_EQ(affinity(s, "special.0", b, D(4) + H(15)), ACL_NONE);
    sched_destroy(s);
}

/*
 * Example 5, limited shared access: node01..node09 (a regex) forever for
 * account jupiter, account saturn with negative affinity; node10 and node11
 * are open. OWNERPREEMPT and OWNER are read; preemption is tested elsewhere.
 */
static void test_guide_limited_shared_access(void)
{
    /* The same levels under two allocation orders: a (jupiter), b and d
     * (saturn), c (another account). */
    static const struct {
        const char *policy, *a, *b, *d;
    } rows[] = {
        {"FIRSTAVAILABLE", "node01", "node10,node11", "node02"},
        {"LASTAVAILABLE", "node09", "node10,node11", "node08"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        static char text[4096];
        snprintf(text, sizeof text, "NODEALLOCATIONPOLICY %s\n", rows[i].policy);
        nodes_cfg(text, sizeof text, "node%02d", 1, 11, "PROCS=2");
        size_t used = strlen(text);
        snprintf(text + used, sizeof text - used,
                 "ACCTCFG[jupiter] PRIORITY=10000\n"
                 "SRCFG[jupiter] HOSTLIST=node0[1-9]\n"
                 "SRCFG[jupiter] PERIOD=INFINITY\n"
                 "SRCFG[jupiter] ACCOUNTLIST=jupiter,saturn-\n"
                 "SRCFG[jupiter] OWNER=ACCOUNT:jupiter\n"
                 "SRCFG[jupiter] FLAGS=OWNERPREEMPT\n"
                 "SRCFG[jupiter] PERIOD=INFINITY\n");
        struct sched *s = world(text);
        if (!s)
            return;
        sched_iterate(s, 0);
        CHECK_STR(ids(s), "jupiter.0");
        CHECK_STR(rnodes(s, "jupiter.0"),
                  "node01,node02,node03,node04,node05,node06,node07,node08,node09");
        const struct resv *r = sched_find_resv(s, "jupiter.0");
        if (r) {
            CHECK_EQ(r->flags, SRCFG_OWNERPREEMPT);
            CHECK_STR(r->owner, "jupiter");
            CHECK_EQ(r->owner_type, ACL_ACCOUNT);
            CHECK_EQ(r->tasks, 9);
            CHECK_EQ(r->tasks_asked, 9);
            CHECK_EQ(r->procs, 18);
        }
        struct job *a = job(s, M(1), "a 2x1 account=jupiter");
        struct job *b = job(s, M(1), "b 2x2 account=saturn");
        struct job *c = job(s, M(1), "c 1x1 account=mars");
        struct job *d = job(s, M(1), "d 1x2 account=saturn");
        sched_iterate(s, M(1));
        CHECK_EQ(affinity(s, "jupiter.0", a, M(1)), ACL_POSITIVE);
        CHECK_EQ(affinity(s, "jupiter.0", b, M(1)), ACL_NEGATIVE);
        CHECK_EQ(affinity(s, "jupiter.0", c, M(1)), ACL_NONE);
        CHECK_STR(where(s, a), rows[i].a); /* reserved, positive: first */
        CHECK_STR(where(s, b), rows[i].b); /* negative: unreserved first */
        CHECK(idle(c));                    /* refused, and the open nodes are taken */
        CHECK_STR(where(s, d), rows[i].d); /* reserved, as the last resort */
        sched_destroy(s);
    }
}

/* ------------------------------------------------------- instance rolling */

static void test_day_rolling(void)
{
    struct sched *s = world("NODECFG[n1] PROCS=1\n"
                            "NODECFG[n2] PROCS=1\n"
                            "SRCFG[roll] TASKCOUNT=1 PERIOD=DAY DEPTH=3 USERLIST=bob\n");
    if (!s)
        return;
    sched_iterate(s, H(12)); /* Monday noon: today (from now on), Tuesday, Wednesday */
    CHECK_STR(ids(s), "roll.0,roll.1,roll.2");
    CHECK_EQ(rstart(s, "roll.0"), H(12)); /* the current instance starts now */
    CHECK_EQ(rend(s, "roll.0"), D(1));
    CHECK_EQ(rstart(s, "roll.1"), D(1));
    CHECK_EQ(rend(s, "roll.2"), D(3));
    CHECK_STR(rnodes(s, "roll.0"), "n1");
    sched_iterate(s, D(1) - 60); /* 23:59: nothing changes */
    CHECK_STR(ids(s), "roll.0,roll.1,roll.2");
    sched_iterate(s, D(1) + 60); /* 00:01: Monday's went, Thursday's came */
    CHECK_STR(ids(s), "roll.1,roll.2,roll.3");
    CHECK_EQ(rstart(s, "roll.3"), D(3));
    CHECK_EQ(rend(s, "roll.3"), D(4));
    sched_iterate(s, D(3) + H(5)); /* two days skipped: Thursday, Friday, Saturday */
    CHECK_STR(ids(s), "roll.3,roll.4,roll.5");
    CHECK_EQ(rstart(s, "roll.5"), D(5));
    sched_destroy(s);

    /* DAYS with DEPTH: periods are counted, not instances. Thursday 0:00
     * with DEPTH 3 sees Thursday, Friday, Saturday: two working days. */
    s = world("NODECFG[n1] PROCS=1\n"
              "SRCFG[w] TASKCOUNT=1 DAYS=MON,TUE,WED,THU,FRI DEPTH=3\n"
              "SRCFG[w] STARTTIME=9:00:00 ENDTIME=17:00:00\n");
    if (!s)
        return;
    sched_iterate(s, D(3));
    CHECK_STR(ids(s), "w.0,w.1");
    CHECK_EQ(rstart(s, "w.1"), D(4) + H(9));
    sched_iterate(s, D(4) + H(18)); /* Friday evening: Friday's is over, none next */
    CHECK_EQ(sched_nresv(s), 0);
    sched_iterate(s, D(6) + 1); /* Sunday: Monday's and Tuesday's */
    CHECK_STR(ids(s), "w.2,w.3");
    CHECK_EQ(rstart(s, "w.2"), D(7) + H(9));
    CHECK_EQ(rstart(s, "w.3"), D(8) + H(9));
    sched_destroy(s);
}

static void test_week_period(void)
{
    struct sched *s = world("NODECFG[n1] PROCS=1\n"
                            "SRCFG[wk] TASKCOUNT=1 PERIOD=WEEK\n"
                            "SRCFG[wk] STARTTIME=1:08:00:00 ENDTIME=5:17:00:00\n");
    if (!s)
        return;
    sched_iterate(s, 0); /* Monday: this week's and next week's (DEPTH 2) */
    CHECK_STR(ids(s), "wk.0,wk.1");
    CHECK_EQ(rstart(s, "wk.0"), H(8));       /* Monday 8:00 */
    CHECK_EQ(rend(s, "wk.0"), D(4) + H(17)); /* Friday 17:00 */
    CHECK_EQ(rstart(s, "wk.1"), D(7) + H(8));
    sched_iterate(s, D(5) + H(12)); /* Saturday: this week's is over */
    CHECK_STR(ids(s), "wk.1");
    sched_iterate(s, D(6) + 60); /* Sunday 00:01: a new week, one more */
    CHECK_STR(ids(s), "wk.1,wk.2");
    CHECK_EQ(rstart(s, "wk.2"), D(14) + H(8));
    CHECK_EQ(rend(s, "wk.2"), D(18) + H(17));
    sched_destroy(s);
}

/* ENDTIME before STARTTIME: a window into the next morning (moku's
 * extension, srtime.h); while last night's still runs, tonight's is listed
 * too. Non-floating: n2 whatever the night. */
static void test_overnight(void)
{
    struct sched *s = world("NODECFG[n1] PROCS=1\n"
                            "NODECFG[n2] PROCS=1\n"
                            "SRCFG[night] HOSTLIST=n2 STARTTIME=22:00:00 ENDTIME=6:00:00 "
                            "DEPTH=1\n");
    if (!s)
        return;
    sched_iterate(s, H(12));
    CHECK_STR(ids(s), "night.0");
    CHECK_EQ(rstart(s, "night.0"), H(22));
    CHECK_EQ(rend(s, "night.0"), D(1) + H(6));
    CHECK_STR(rnodes(s, "night.0"), "n2");
    sched_iterate(s, D(1) + H(3)); /* Tuesday 3:00 */
    CHECK_STR(ids(s), "night.0,night.1");
    CHECK_EQ(rstart(s, "night.1"), D(1) + H(22));
    sched_iterate(s, D(3)); /* Thursday 0:00: Wednesday night's (from now) and Thursday's */
    CHECK_STR(ids(s), "night.2,night.3");
    CHECK_EQ(rstart(s, "night.2"), D(3));
    CHECK_EQ(rend(s, "night.2"), D(3) + H(6));
    CHECK_EQ(rstart(s, "night.3"), D(3) + H(22));
    sched_destroy(s);
}

/* PERIOD=INFINITY: one instance from the first iteration on, for ever. */
static void test_infinity(void)
{
    struct sched *s = world("NODECFG[n1] PROCS=1\n"
                            "SRCFG[inf] TASKCOUNT=1 PERIOD=INFINITY\n");
    if (!s)
        return;
    sched_iterate(s, H(12));
    CHECK_STR(ids(s), "inf.0");
    CHECK_EQ(rstart(s, "inf.0"), H(12));
    CHECK_EQ(rend(s, "inf.0"), SCHED_NEVER); /* never ends, not in 2037 */
    CHECK_STR(rnodes(s, "inf.0"), "n1");
    sched_destroy(s);
}

/* ------------------------------------------------------ partial, top-ups */

/* An instance that finds fewer tasks than asked is partial, and is topped
 * up once what stood in its way is gone: here a DEDICATED admin
 * reservation on n1 and n2, released at 1:00. */
static void test_partial_topped_up(void)
{
    struct sched *s = world("NODEALLOCATIONPOLICY FIRSTAVAILABLE\n"
                            "NODECFG[n1] PROCS=2\n"
                            "NODECFG[n2] PROCS=2\n"
                            "NODECFG[n3] PROCS=2\n"
                            "NODECFG[n4] PROCS=2\n"
                            "SRCFG[p] TASKCOUNT=4 DEPTH=1 USERLIST=bob\n");
    if (!s)
        return;
    struct err err = {{0}};
    const struct srcfg_host hosts[] = {{(char *)"n1", 0}, {(char *)"n2", 0}};
    struct resv_spec sp = {.name = "admin",
                           .start = 0,
                           .end = D(10),
                           .hosts = hosts,
                           .nhosts = 2,
                           .res = {.procs = -1},
                           .access = SRCFG_DEDICATED};
    CHECK(sched_resv_create(s, &sp, 0, &err) != NULL);
    sched_iterate(s, 0);
    CHECK_STR(ids(s), "admin.0,p.0");
    CHECK_STR(rnodes(s, "p.0"), "n3,n4");
    const struct resv *r = sched_find_resv(s, "p.0");
    if (r) {
        CHECK_EQ(r->tasks, 2);
        CHECK_EQ(r->tasks_asked, 4);
    }
    struct job *j = job(s, M(10), "j 8x1 user=bob");
    sched_iterate(s, M(10));
    CHECK(idle(j));          /* admin.0 admits nobody */
    sched_iterate(s, M(20)); /* nothing changed: no new try */
    CHECK_EQ(sched_find_resv(s, "p.0") ? sched_find_resv(s, "p.0")->tasks : -1, 2);
    CHECK_EQ(sched_resv_release(s, "admin.0", &err), 0);
    sched_iterate(s, H(1));
    CHECK_STR(ids(s), "p.0");
    CHECK_STR(rnodes(s, "p.0"), "n1,n2,n3,n4");
    r = sched_find_resv(s, "p.0");
    if (r) {
        CHECK_EQ(r->tasks, 4);
        CHECK_EQ(r->procs, 8);
    }
    CHECK_STR(where(s, j), "n1,n2,n3,n4");
    sched_destroy(s);

    /* Too few suitable nodes: partial; a node added later tops it up. */
    s = world("NODECFG[g1] PROCS=2 FEATURES=gpu\n"
              "NODECFG[g2] PROCS=2 FEATURES=gpu\n"
              "NODECFG[c1] PROCS=2\n"
              "SRCFG[g] TASKCOUNT=6 NODEFEATURES=gpu DEPTH=1\n");
    if (!s)
        return;
    sched_iterate(s, 0);
    CHECK_STR(rnodes(s, "g.0"), "g1,g2");
    r = sched_find_resv(s, "g.0");
    if (r) {
        CHECK_EQ(r->tasks, 2);
        CHECK_EQ(r->tasks_asked, 6);
    }
    struct node_spec ns = {.name = "g3", .procs = 2, .features = "gpu", .state = NODE_UP};
    CHECK_EQ(sched_add_node(s, &ns, &err), 0);
    sched_iterate(s, 60);
    CHECK_STR(rnodes(s, "g.0"), "g1,g2,g3");
    r = sched_find_resv(s, "g.0");
    CHECK(r && r->tasks == 3);
    sched_destroy(s);
}

/* Floating instances go where nothing runs; non-floating ones take their
 * listed nodes whatever runs there, and the job keeps running. */
static void test_floating_and_fixed(void)
{
    struct sched *s = world("NODEALLOCATIONPOLICY FIRSTAVAILABLE\n"
                            "NODECFG[n1] PROCS=2\n"
                            "NODECFG[n2] PROCS=2\n"
                            "NODECFG[n3] PROCS=2\n");
    if (!s)
        return;
    struct job *bob = job(s, 0, "bob 1x2 wall=2d user=bob");
    sched_iterate(s, 0);
    CHECK_STR(where(s, bob), "n1");
    load_standing(s, "SRCFG[float] TASKCOUNT=1 DEPTH=1 USERLIST=alice\n"
                     "SRCFG[fixed] HOSTLIST=n1 DEPTH=1 USERLIST=carl\n");
    sched_iterate(s, 60);
    CHECK_STR(ids(s), "float.0,fixed.0");
    CHECK_STR(rnodes(s, "float.0"), "n2");
    CHECK_STR(rnodes(s, "fixed.0"), "n1");
    CHECK(running(bob));
    /* dan takes the open n3 for long; alice's job goes to n2; carl's n1 is
     * busy with bob (D(2)), so carl waits for alice's day to end. */
    struct job *dan = job(s, 120, "dan 1x2 wall=3d user=dan");
    struct job *carl = job(s, 120, "carl 1x2 user=carl");
    struct job *alice = job(s, 120, "alice 1x2 user=alice");
    sched_iterate(s, 120);
    CHECK_STR(where(s, dan), "n3");
    CHECK(idle(carl));
    if (carl)
        CHECK_EQ(carl->resv_start, D(1)); /* n2 when alice's day is over, before bob ends */
    CHECK_STR(where(s, alice), "n2");
    finish(s, bob, H(1));
    sched_iterate(s, H(1));
    CHECK_STR(where(s, carl), "n1");
    sched_destroy(s);
}

/* ---------------------------------------------------------------- ACLs */

/*
 * Every ACL form, one row each: a reservation r.0 holds n1 forever with the
 * given ACL attributes; n2 is open (both nodes: 2 processors, feature big,
 * since a job's features, which JOBATTRLIST matches, are also node features
 * it requires). A 2-processor job of the row lands on n1 when its affinity is positive or
 * neutral (reserved before unreserved), on n2 when it is refused or
 * negative (unreserved before negative); a 4-processor one starts only
 * when admitted.
 */
static const struct {
    const char *acl;
    const char *who; /* the job's attributes, as job() reads them */
    enum acl_affinity want;
} acl_rows[] = {
    {"USERLIST=bob", "user=bob", ACL_POSITIVE},
    {"USERLIST=bob", "user=carl", ACL_NONE},
    {"USERLIST=bob,carl", "user=carl", ACL_POSITIVE},
    {"GROUPLIST=staff", "group=staff", ACL_POSITIVE},
    {"GROUPLIST=staff", "group=other", ACL_NONE},
    {"ACCOUNTLIST=proj", "account=proj", ACL_POSITIVE},
    {"CLASSLIST=fast", "class=fast", ACL_POSITIVE},
    {"QOSLIST=high", "qos=high", ACL_POSITIVE},
    {"QOSLIST=high", "qos=low", ACL_NONE},
    {"JOBATTRLIST=big", "features=big", ACL_POSITIVE},
    {"JOBATTRLIST=big", "user=bob", ACL_NONE},
    /* any ordinary entry grants, whatever its type (OR across types) */
    {"USERLIST=bob GROUPLIST=staff", "user=carl group=staff", ACL_POSITIVE},
    /* duration: the job's overlap with the (endless) reservation */
    {"TIMELIMIT=1:00:00", "wall=1h", ACL_POSITIVE},
    {"TIMELIMIT=1:00:00", "wall=3601", ACL_NONE},
    {"USERLIST=bob TIMELIMIT=1:00:00", "user=bob wall=2h", ACL_POSITIVE},
    /* required: AND-ed with everything else */
    {"USERLIST=bob TIMELIMIT=1:00:00*", "user=bob wall=2h", ACL_NONE},
    {"USERLIST=bob GROUPLIST=staff*", "user=bob group=staff", ACL_POSITIVE},
    {"USERLIST=bob GROUPLIST=staff*", "user=bob group=other", ACL_NONE},
    {"USERLIST=bob GROUPLIST=staff*", "user=carl group=staff", ACL_NONE},
    {"GROUPLIST=staff*", "user=carl group=staff", ACL_POSITIVE},
    {"CLASSLIST=fast* QOSLIST=high*", "class=fast qos=high", ACL_POSITIVE},
    {"CLASSLIST=fast* QOSLIST=high*", "class=fast qos=low", ACL_NONE},
    /* NOT */
    {"USERLIST=!carl GROUPLIST=staff", "user=carl group=staff", ACL_NONE},
    {"USERLIST=!carl GROUPLIST=staff", "user=bob group=staff", ACL_POSITIVE},
    {"USERLIST=!carl", "user=bob", ACL_POSITIVE},
    {"ACCOUNTLIST=!projectX QOSLIST=high", "account=projectX qos=high", ACL_NONE},
    /* affinities */
    {"USERLIST=bob-", "user=bob", ACL_NEGATIVE},
    {"USERLIST=bob=", "user=bob", ACL_NEUTRAL},
    {"USERLIST=bob+", "user=bob", ACL_POSITIVE},
    {"USERLIST=bob- GROUPLIST=staff", "user=bob group=staff", ACL_POSITIVE},
    {"USERLIST=bob GROUPLIST=staff-*", "user=bob group=staff", ACL_NEGATIVE},
    {"QOSLIST=high low special-", "qos=low", ACL_POSITIVE},
    {"QOSLIST=high low special-", "qos=special", ACL_NEGATIVE},
    /* [ALL]: any job that has the credential */
    {"USERLIST=[ALL]", "user=anyone", ACL_POSITIVE},
    /* no ACL at all: a SYSTEM reservation */
    {"", "user=root", ACL_NONE},
};

static void test_acl_forms(void)
{
    static const char *const lands[] = {
        [ACL_NONE] = "n2", [ACL_POSITIVE] = "n1", [ACL_NEUTRAL] = "n1", [ACL_NEGATIVE] = "n2"};
    for (size_t i = 0; i < sizeof acl_rows / sizeof acl_rows[0]; i++) {
        char text[512];
        snprintf(text, sizeof text,
                 "NODEALLOCATIONPOLICY FIRSTAVAILABLE\n"
                 "NODECFG[DEFAULT] FEATURES=big\n"
                 "NODECFG[n1] PROCS=2\n"
                 "NODECFG[n2] PROCS=2\n"
                 "SRCFG[r] HOSTLIST=n1 PERIOD=INFINITY %s\n",
                 acl_rows[i].acl);
        struct sched *s = world(text);
        if (!s)
            continue;
        sched_iterate(s, 0);
        char desc[128];
        snprintf(desc, sizeof desc, "a 2x1 %s", acl_rows[i].who);
        struct job *a = job(s, 10, desc);
        sched_iterate(s, 10);
        enum acl_affinity got = a ? affinity(s, "r.0", a, 10) : ACL_NONE;
        const char *at = where(s, a);
        finish(s, a, 20);
        snprintf(desc, sizeof desc, "b 4x1 %s", acl_rows[i].who);
        struct job *b = job(s, 20, desc);
        sched_iterate(s, 20);
        int ran = running(b);
        if (got != acl_rows[i].want || strcmp(at, lands[acl_rows[i].want]) != 0 ||
            ran != (acl_rows[i].want != ACL_NONE)) {
            fprintf(stderr, "    row %zu '%s': affinity %s (want %s), on %s, 4 procs %s\n", i,
                    acl_rows[i].acl, acl_affinity_name(got), acl_affinity_name(acl_rows[i].want),
                    at, ran ? "ran" : "waited");
            CHECK(!"ACL row as expected");
        }
        sched_destroy(s);
    }
}

/* A duration entry counts only the part of the job inside the window:
 * admin reservation on n1 from 1:00 to 3:00 with TIMELIMIT one hour. */
static void test_acl_duration_overlap(void)
{
    struct sched *s = world("NODEALLOCATIONPOLICY FIRSTAVAILABLE\n"
                            "NODECFG[n1] PROCS=2\n");
    if (!s)
        return;
    struct err err = {{0}};
    struct acl *acl = acl_create();
    CHECK_EQ(acl_add_list(acl, ACL_DURATION, "1:00:00", &err), 0);
    const struct srcfg_host n1[] = {{(char *)"n1", 0}};
    struct resv_spec sp = {.name = "win",
                           .start = H(1),
                           .end = H(3),
                           .hosts = n1,
                           .nhosts = 1,
                           .res = {.procs = -1},
                           .acl = acl};
    CHECK(sched_resv_create(s, &sp, 0, &err) != NULL);
    acl_destroy(acl); /* copied */
    struct job *j = job(s, 0, "j 2x1 wall=2h");
    CHECK_EQ(affinity(s, "win.0", j, 0), ACL_POSITIVE);    /* 1:00 inside */
    CHECK_EQ(affinity(s, "win.0", j, M(30)), ACL_NONE);    /* 1:30 inside */
    CHECK_EQ(affinity(s, "win.0", j, H(2)), ACL_POSITIVE); /* 1:00 inside */
    CHECK_EQ(affinity(s, "win.0", j, H(3)), ACL_POSITIVE); /* after: 0 inside */
    sched_iterate(s, 0);
    CHECK_STR(where(s, j), "n1"); /* overlaps one hour: admitted */
    sched_destroy(s);
}

/*
 * "In whatever shape they need": reserved tasks are processors, not job
 * shapes. The cluster's node size bounds a job's task, nothing else does:
 *  - 6 whole-node tasks on 2-processor nodes n1..n6 (12 processors) serve a
 *    10x1 job next to a 1x2 one, or one 6x2 job; a 2x4 job has tasks no
 *    node can hold and is out (see test_task_larger_than_nodes);
 *  - 3 whole-node tasks on 4-processor nodes (12 processors) serve a 10x1
 *    job, a 3x4 job, or a 2x4 and a 4x1 side by side;
 *  - RESOURCES=PROCS:1 TASKCOUNT=6 on 2-processor nodes is 6 processors on
 *    three nodes, serving a 3x2 job as well as a 6x1 one.
 * n7 is open; carl (refused) holds it so that bob's jobs must fit inside.
 */
static void test_any_shape(void)
{
    static const struct {
        int ppn;
        const char *srcfg;
        struct {
            int tasks, ppt;
        } jobs[3];
        const char *nodes; /* reserved nodes */
        const char *carl;  /* the first open node */
    } rows[] = {
        {2, "TASKCOUNT=6", {{10, 1}, {1, 2}, {0, 0}}, "n1,n2,n3,n4,n5,n6", "n7"},
        {2, "TASKCOUNT=6", {{6, 2}, {0, 0}, {0, 0}}, "n1,n2,n3,n4,n5,n6", "n7"},
        {2, "TASKCOUNT=6", {{12, 1}, {0, 0}, {0, 0}}, "n1,n2,n3,n4,n5,n6", "n7"},
        {4, "TASKCOUNT=3", {{10, 1}, {0, 0}, {0, 0}}, "n1,n2,n3", "n4"},
        {4, "TASKCOUNT=3", {{3, 4}, {0, 0}, {0, 0}}, "n1,n2,n3", "n4"},
        {4, "TASKCOUNT=3", {{2, 4}, {4, 1}, {0, 0}}, "n1,n2,n3", "n4"},
        {2, "TASKCOUNT=6 RESOURCES=PROCS:1", {{3, 2}, {0, 0}, {0, 0}}, "n1,n2,n3", "n4"},
        {2, "TASKCOUNT=6 RESOURCES=PROCS:1", {{6, 1}, {0, 0}, {0, 0}}, "n1,n2,n3", "n4"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char text[1024] = "NODEALLOCATIONPOLICY FIRSTAVAILABLE\n";
        char attrs[32];
        snprintf(attrs, sizeof attrs, "PROCS=%d", rows[i].ppn);
        nodes_cfg(text, sizeof text, "n%d", 1, 7, attrs);
        size_t used = strlen(text);
        snprintf(text + used, sizeof text - used, "SRCFG[shape] %s PERIOD=INFINITY USERLIST=bob\n",
                 rows[i].srcfg);
        struct sched *s = world(text);
        if (!s)
            continue;
        sched_iterate(s, 0);
        CHECK_STR(rnodes(s, "shape.0"), rows[i].nodes);
        struct job *carl = submit(
            s, 10,
            (struct job_spec){.name = "carl", .procs_per_task = rows[i].ppn, .user = "carl"});
        struct job *js[3] = {0};
        long procs = 0;
        for (int k = 0; k < 3 && rows[i].jobs[k].tasks; k++) {
            char name[16];
            snprintf(name, sizeof name, "b%d", k);
            js[k] = submit(s, 10,
                           (struct job_spec){.name = name,
                                             .tasks = rows[i].jobs[k].tasks,
                                             .procs_per_task = rows[i].jobs[k].ppt,
                                             .user = "bob"});
            procs += (long)rows[i].jobs[k].tasks * rows[i].jobs[k].ppt;
        }
        sched_iterate(s, 10);
        CHECK_STR(where(s, carl), rows[i].carl);
        /* every processor of bob's jobs on the reserved nodes */
        long inside = 0;
        for (int k = 0; k < 3 && rows[i].jobs[k].tasks; k++) {
            if (!running(js[k]))
                fprintf(stderr, "    row %zu: job %dx%d did not start\n", i, rows[i].jobs[k].tasks,
                        rows[i].jobs[k].ppt);
            CHECK(running(js[k]));
            const struct resv *r = sched_find_resv(s, "shape.0");
            for (size_t n = 0; r && n < r->nnodes; n++)
                inside += procs_on(s, js[k], sched_node(s, r->nodes[n].node)->name);
        }
        CHECK_EQ(inside, procs);
        sched_destroy(s);
    }
}

/* ------------------------------------------------- admin reservations */

static const char four_nodes[] = "NODEALLOCATIONPOLICY FIRSTAVAILABLE\n"
                                 "NODECFG[n1] PROCS=2 MEMORY=1024\n"
                                 "NODECFG[n2] PROCS=2 MEMORY=1024\n"
                                 "NODECFG[n3] PROCS=2 MEMORY=1024\n"
                                 "NODECFG[n4] PROCS=2 MEMORY=1024\n";

/* A reservation of `tasks` whole nodes (0: hosts) over [start, end). */
static struct resv_spec whole(const char *name, long from, long to, long tasks)
{
    return (struct resv_spec){
        .name = name, .start = from, .end = to, .tasks = tasks, .res = {.procs = -1}};
}

/* SYSTEM: no ACL, every job is blocked until it is released. */
static void test_system_blocks_everyone(void)
{
    struct sched *s = world(four_nodes);
    if (!s)
        return;
    struct err err = {{0}};
    struct resv_spec sp = whole(NULL, 0, H(2), 4);
    const struct resv *r = sched_resv_create(s, &sp, 0, &err);
    CHECK(r != NULL);
    if (r) {
        CHECK_STR(r->id, "SYSTEM.0");
        CHECK_EQ(r->kind, RESV_USER);
        CHECK_EQ(acl_count(r->acl), 0);
    }
    CHECK_STR(rnodes(s, "SYSTEM.0"), "n1,n2,n3,n4");
    struct job *root = job(s, 0, "root 1x1 wall=10m user=root");
    struct job *big = job(s, 0, "big 8x1");
    sched_iterate(s, 0);
    CHECK(idle(root));
    CHECK(idle(big));
    CHECK_EQ(affinity(s, "SYSTEM.0", root, 0), ACL_NONE);
    if (root)
        CHECK_EQ(root->resv_start, H(2)); /* would wait for its end */
    sched_iterate(s, M(30));
    CHECK(idle(root));
    CHECK_EQ(sched_resv_release(s, "SYSTEM.0", &err), 0);
    CHECK_EQ(sched_nresv(s), 0);
    sched_iterate(s, H(1));
    CHECK(running(root));
    CHECK(idle(big)); /* 7 processors left for an 8-processor job */
    CHECK_EQ(sched_resv_release(s, "SYSTEM.0", &err), -1);
    CHECK_HAS(err.msg, "cannot locate reservation 'SYSTEM.0'");
    sched_destroy(s);
}

/* A job may not run into a future reservation it is not admitted to: it
 * waits for the end, or fits before the start, or goes elsewhere. */
static void test_future_window(void)
{
    struct sched *s = world(four_nodes);
    if (!s)
        return;
    struct err err = {{0}};
    struct resv_spec sp = whole("maint", H(1), H(3), 4);
    CHECK(sched_resv_create(s, &sp, 0, &err) != NULL);
    struct job *j1 = job(s, 0, "j1 1x1 wall=2h");
    struct job *j2 = job(s, 0, "j2 6x1 wall=30m");
    struct job *j3 = job(s, 0, "j3 2x1 wall=1h"); /* ends as it starts */
    sched_iterate(s, 0);
    CHECK(idle(j1));
    if (j1)
        CHECK_EQ(j1->resv_start, H(3));
    CHECK(running(j2));
    CHECK(running(j3));
    finish(s, j2, M(30));
    finish(s, j3, H(1));
    sched_iterate(s, H(1));
    sched_iterate(s, H(3));
    CHECK(running(j1));
    finish(s, j1, H(4));
    sched_destroy(s);

    /* A job the window admits runs through it. */
    s = world(four_nodes);
    if (!s)
        return;
    struct acl *ops = acl_create();
    CHECK_EQ(acl_add_list(ops, ACL_USER, "ops", &err), 0);
    sp = whole("maint", H(1), H(3), 4);
    sp.acl = ops;
    CHECK(sched_resv_create(s, &sp, 0, &err) != NULL);
    acl_destroy(ops);
    struct job *o = job(s, 0, "o 8x1 wall=2h user=ops");
    struct job *x = job(s, 0, "x 1x1 wall=2h");
    sched_iterate(s, 0);
    CHECK(running(o));
    CHECK(idle(x));
    sched_destroy(s);

    /* The window on n1 only: a 2-hour job goes to n2 now. */
    s = world(four_nodes);
    if (!s)
        return;
    const struct srcfg_host n1[] = {{(char *)"n1", 0}};
    sp = whole("maint", H(1), H(3), 0);
    sp.hosts = n1;
    sp.nhosts = 1;
    CHECK(sched_resv_create(s, &sp, 0, &err) != NULL);
    struct job *j4 = job(s, 0, "j4 2x1 wall=2h");
    sched_iterate(s, 0);
    CHECK_STR(where(s, j4), "n2");
    sched_destroy(s);
}

/* Ids: <base>.<n> per base from 0, never reused; the base is the name,
 * else the first ACL entry's name, else SYSTEM. */
static void test_ids(void)
{
    struct sched *s = world(four_nodes);
    if (!s)
        return;
    struct err err = {{0}};
    struct acl *john = acl_create();
    CHECK_EQ(acl_add_list(john, ACL_USER, "john,amy", &err), 0);
    struct resv_spec sp = whole("maint", H(1), H(2), 1);
    const struct resv *r = sched_resv_create(s, &sp, 0, &err);
    CHECK(r && strcmp(r->id, "maint.0") == 0 && strcmp(r->base, "maint") == 0);
    r = sched_resv_create(s, &sp, 0, &err);
    CHECK(r && strcmp(r->id, "maint.1") == 0);
    sp = whole(NULL, H(1), H(2), 1);
    sp.acl = john;
    r = sched_resv_create(s, &sp, 0, &err);
    CHECK(r && strcmp(r->id, "john.0") == 0);
    sp.acl = NULL;
    r = sched_resv_create(s, &sp, 0, &err);
    CHECK(r && strcmp(r->id, "SYSTEM.0") == 0);
    r = sched_resv_create(s, &sp, 0, &err);
    CHECK(r && strcmp(r->id, "SYSTEM.1") == 0);
    CHECK_EQ(sched_resv_release(s, "maint.1", &err), 0);
    sp = whole("maint", H(1), H(2), 1);
    r = sched_resv_create(s, &sp, 0, &err);
    CHECK(r && strcmp(r->id, "maint.2") == 0); /* not reused */
    CHECK_STR(ids(s), "maint.0,john.0,SYSTEM.0,SYSTEM.1,maint.2");
    /* A failed creation uses no number. */
    sp = whole("maint", H(1), H(2), 9);
    CHECK(sched_resv_create(s, &sp, 0, &err) == NULL);
    sp.tasks = 1;
    r = sched_resv_create(s, &sp, 0, &err);
    CHECK(r && strcmp(r->id, "maint.3") == 0);
    acl_destroy(john);
    /* A standing instance is not released by id. */
    load_standing(s, "SRCFG[sr] TASKCOUNT=1 PERIOD=INFINITY\n");
    sched_iterate(s, 0);
    CHECK(sched_find_resv(s, "sr.0") != NULL);
    CHECK_EQ(sched_resv_release(s, "sr.0", &err), -1);
    CHECK_HAS(err.msg, "standing reservation 'sr'");
    CHECK(sched_find_resv(s, "sr.0") != NULL);
    sched_destroy(s);
}

/* Errors: nothing is created, the message says why. */
static void test_create_errors(void)
{
    static const struct srcfg_host nosuch[] = {{(char *)"nosuch", 0}};
    static const struct srcfg_host badre[] = {{(char *)"n[", 1}};
    static const struct srcfg_host nore[] = {{(char *)"m[0-9]", 1}};
    static const struct srcfg_host part[] = {{(char *)"n", 1}}; /* whole names only */
    static char *const gpu[] = {(char *)"gpu"};
    static const struct {
        struct resv_spec sp;
        long now;
        const char *msg;
    } rows[] = {
        {{.start = H(2), .end = H(1), .tasks = 1, .res = {-1, 0, 0, 0}}, 0, "invalid timeframe"},
        {{.start = H(1), .end = H(1), .tasks = 1, .res = {-1, 0, 0, 0}}, 0, "invalid timeframe"},
        {{.start = 0, .end = H(1), .tasks = 1, .res = {-1, 0, 0, 0}}, H(2), "invalid timeframe"},
        {{.start = 0, .end = H(1), .res = {-1, 0, 0, 0}}, 0, "no tasks and no hosts"},
        {{.start = 0, .end = H(1), .tasks = -1, .res = {-1, 0, 0, 0}}, 0, "no tasks"},
        {{.start = 0, .end = H(1), .hosts = nosuch, .nhosts = 1, .res = {-1, 0, 0, 0}},
         0,
         "no node matches 'nosuch'"},
        {{.start = 0, .end = H(1), .hosts = badre, .nhosts = 1, .res = {-1, 0, 0, 0}},
         0,
         "not a valid regular expression"},
        {{.start = 0, .end = H(1), .hosts = nore, .nhosts = 1, .res = {-1, 0, 0, 0}},
         0,
         "no node matches 'm[0-9]'"},
        {{.start = 0, .end = H(1), .hosts = part, .nhosts = 1, .res = {-1, 0, 0, 0}},
         0,
         "no node matches 'n'"},
        {{.start = 0, .end = H(1), .tasks = 5, .res = {-1, 0, 0, 0}},
         0,
         "cannot select requested tasks (4 of 5 found)"},
        {{.start = 0, .end = H(1), .tasks = 9, .res = {1, 0, 0, 0}},
         0,
         "cannot select requested tasks (8 of 9 found)"},
        {{.start = 0, .end = H(1), .tasks = 1, .res = {-1, 2048, 0, 0}},
         0,
         "cannot select requested tasks (0 of 1 found)"},
        {{.start = 0,
          .end = H(1),
          .tasks = 1,
          .res = {-1, 0, 0, 0},
          .features = gpu,
          .nfeatures = 1},
         0,
         "cannot select requested tasks (0 of 1 found)"},
        {{.start = 0, .end = H(1), .tasks = 1, .res = {-1, 0, 0, 0}, .partition = "other"},
         0,
         "cannot select requested tasks (0 of 1 found)"},
    };
    struct sched *s = world(four_nodes);
    if (!s)
        return;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct err err = {{0}};
        const struct resv *r = sched_resv_create(s, &rows[i].sp, rows[i].now, &err);
        if (r || !strstr(err.msg, rows[i].msg))
            fprintf(stderr, "    row %zu: %s, '%s' (want '%s')\n", i, r ? "created" : "refused",
                    err.msg, rows[i].msg);
        CHECK(r == NULL);
        CHECK_HAS(err.msg, rows[i].msg);
        CHECK_EQ(sched_nresv(s), 0);
    }
    /* BESTEFFORT takes what there is. */
    struct err err = {{0}};
    struct resv_spec sp = whole("best", 0, H(1), 5);
    sp.flags = SRCFG_BESTEFFORT;
    const struct resv *r = sched_resv_create(s, &sp, 0, &err);
    CHECK(r && r->tasks == 4 && r->tasks_asked == 5);
    sched_destroy(s);
}

/* Where tasks go: TPN, RESOURCES, NODEFEATURES, PARTITION, host names and
 * regexes. One reservation per row on a fresh cluster. */
static void test_placement(void)
{
    static const char cluster[] = "NODECFG[a1] PROCS=4 MEMORY=4096 FEATURES=fast\n"
                                  "NODECFG[a2] PROCS=4 MEMORY=2048 FEATURES=fast\n"
                                  "NODECFG[b1] PROCS=2 MEMORY=1024 PARTITION=small\n"
                                  "NODECFG[b2] PROCS=2 MEMORY=1024 PARTITION=small\n"
                                  "NODECFG[c1] PROCS=8 MEMORY=8192\n"
                                  "NODECFG[d1] PROCS=2 MEMORY=512 STATE=Down\n";
    static const struct srcfg_host a_re[] = {{(char *)"a[0-9]", 1}};
    static const struct srcfg_host d1[] = {{(char *)"d1", 0}};
    static const struct srcfg_host c1_b2[] = {{(char *)"c1", 0}, {(char *)"b2", 0}};
    static char *const fast[] = {(char *)"fast"};
    static const struct {
        struct resv_spec sp;
        const char *nodes;
        long tasks, procs;
    } rows[] = {
        /* whole nodes, least memory first (d1 is down: never floated onto) */
        {{.tasks = 2, .res = {-1, 0, 0, 0}}, "b1,b2", 2, 4},
        {{.tasks = 3, .res = {-1, 0, 0, 0}}, "a2,b1,b2", 3, 8},
        /* PROCS:2 tasks pack: b1 and b2 take one each, then a2 two */
        {{.tasks = 4, .res = {2, 0, 0, 0}}, "a2,b1,b2", 4, 8},
        /* MEM per task: only nodes with enough memory */
        {{.tasks = 1, .res = {1, 4096, 0, 0}}, "a1", 1, 1},
        /* TPN: 4 tasks per node of 1 processor: a2 and a1 */
        {{.tasks = 8, .tpn = 4, .res = {1, 0, 0, 0}}, "a1,a2", 8, 8},
        /* features and partition */
        {{.tasks = 2, .res = {-1, 0, 0, 0}, .features = fast, .nfeatures = 1}, "a1,a2", 2, 8},
        {{.tasks = 1, .res = {-1, 0, 0, 0}, .partition = "small"}, "b1", 1, 2},
        {{.tasks = 5, .res = {-1, 0, 0, 0}, .partition = "ALL"}, "a1,a2,b1,b2,c1", 5, 20},
        {{.tasks = 6, .res = {-1, 0, 0, 0}, .flags = SRCFG_BESTEFFORT}, "a1,a2,b1,b2,c1", 5, 20},
        /* host list first, then the rest; regexes match whole names */
        {{.tasks = 3, .res = {-1, 0, 0, 0}, .hosts = c1_b2, .nhosts = 2}, "b1,b2,c1", 3, 12},
        {{.hosts = c1_b2, .nhosts = 2, .res = {-1, 0, 0, 0}}, "b2,c1", 2, 10},
        {{.hosts = a_re, .nhosts = 1, .res = {-1, 0, 0, 0}}, "a1,a2", 2, 8},
        /* non-floating with RESOURCES: as many tasks as each node holds */
        {{.hosts = a_re, .nhosts = 1, .res = {2, 0, 0, 0}}, "a1,a2", 4, 8},
        /* a listed node is reserved whatever its state */
        {{.hosts = d1, .nhosts = 1, .res = {-1, 0, 0, 0}}, "d1", 1, 2},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct sched *s = world(cluster);
        if (!s)
            continue;
        struct err err = {{0}};
        struct resv_spec sp = rows[i].sp;
        sp.name = "r";
        sp.start = 0;
        sp.end = H(1);
        const struct resv *r = sched_resv_create(s, &sp, 0, &err);
        if (!r)
            fprintf(stderr, "    row %zu: %s\n", i, err.msg);
        CHECK(r != NULL);
        const char *got = rnodes(s, "r.0");
        if (strcmp(got, rows[i].nodes) != 0 ||
            (r && (r->tasks != rows[i].tasks || r->procs != rows[i].procs)))
            fprintf(stderr, "    row %zu: on %s, %ld tasks, %lld procs (want %s, %ld, %ld)\n", i,
                    got, r ? r->tasks : -1, r ? r->procs : -1, rows[i].nodes, rows[i].tasks,
                    rows[i].procs);
        CHECK_STR(got, rows[i].nodes);
        CHECK(r && r->tasks == rows[i].tasks && r->procs == rows[i].procs);
        sched_destroy(s);
    }
}

/* DEDICATED keeps other reservations off its nodes and stays off theirs;
 * FORCE and host lists without a task count go where they are told. */
static void test_dedicated_and_force(void)
{
    struct sched *s = world(four_nodes);
    if (!s)
        return;
    struct err err = {{0}};
    const struct srcfg_host n12[] = {{(char *)"n1", 0}, {(char *)"n2", 0}};
    const struct srcfg_host n1[] = {{(char *)"n1", 0}};
    struct resv_spec sp = whole("ded", 0, H(10), 0);
    sp.hosts = n12;
    sp.nhosts = 2;
    sp.access = SRCFG_DEDICATED;
    CHECK(sched_resv_create(s, &sp, 0, &err) != NULL);
    /* four shared tasks overlapping it: only n3 and n4 are left */
    sp = whole("sh", H(1), H(2), 4);
    CHECK(sched_resv_create(s, &sp, 0, &err) == NULL);
    CHECK_HAS(err.msg, "2 of 4 found");
    sp.tasks = 2;
    CHECK(sched_resv_create(s, &sp, 0, &err) != NULL);
    CHECK_STR(rnodes(s, "sh.0"), "n3,n4");
    /* FORCE overrides */
    sp = whole("force", H(1), H(2), 4);
    sp.flags = SRCFG_FORCE;
    CHECK(sched_resv_create(s, &sp, 0, &err) != NULL);
    CHECK_STR(rnodes(s, "force.0"), "n1,n2,n3,n4");
    /* a new DEDICATED one avoids every overlapping reservation */
    sp = whole("ded2", H(1), H(2), 1);
    sp.access = SRCFG_DEDICATED;
    CHECK(sched_resv_create(s, &sp, 0, &err) == NULL);
    CHECK_HAS(err.msg, "0 of 1 found");
    /* ...but not those at other times */
    sp = whole("ded3", H(10), H(11), 4);
    sp.access = SRCFG_DEDICATED;
    CHECK(sched_resv_create(s, &sp, 0, &err) != NULL);
    CHECK_STR(rnodes(s, "ded3.0"), "n1,n2,n3,n4");
    /* a host list is taken as it is, except where a DEDICATED one holds
     * the node over the window; FORCE overrides that too */
    sp = whole("fixed", H(1), H(2), 0);
    sp.hosts = n1;
    sp.nhosts = 1;
    CHECK(sched_resv_create(s, &sp, 0, &err) == NULL);
    CHECK_HAS(err.msg, "DEDICATED reservations hold every listed node");
    sp.flags = SRCFG_FORCE;
    CHECK(sched_resv_create(s, &sp, 0, &err) != NULL);
    CHECK_STR(rnodes(s, "fixed.0"), "n1");
    sp = whole("later", H(10), H(11), 0);
    sp.hosts = n1;
    sp.nhosts = 1;
    CHECK(sched_resv_create(s, &sp, 0, &err) == NULL); /* ded3 holds n1 then */
    sp = whole("after", H(11), H(12), 0);
    sp.hosts = n1;
    sp.nhosts = 1;
    CHECK(sched_resv_create(s, &sp, 0, &err) != NULL);
    CHECK_STR(rnodes(s, "after.0"), "n1");
    sched_destroy(s);

    /* A DEDICATED standing reservation avoids an admin one; SHARED stacks. */
    s = world(four_nodes);
    if (!s)
        return;
    sp = whole("adm", 0, D(1), 2);
    CHECK(sched_resv_create(s, &sp, 0, &err) != NULL);
    CHECK_STR(rnodes(s, "adm.0"), "n1,n2");
    load_standing(s, "SRCFG[d] TASKCOUNT=2 PERIOD=INFINITY ACCESS=DEDICATED\n"
                     "SRCFG[sh] TASKCOUNT=2 PERIOD=INFINITY\n");
    sched_iterate(s, 0);
    CHECK_STR(rnodes(s, "d.0"), "n3,n4");
    CHECK_STR(rnodes(s, "sh.0"), "n1,n2");
    sched_destroy(s);
}

/* Stacked admin reservations on n1: a job needs both ACLs. */
static void test_stacked_admin(void)
{
    struct sched *s = world(four_nodes);
    if (!s)
        return;
    struct err err = {{0}};
    const struct srcfg_host n1[] = {{(char *)"n1", 0}};
    struct acl *users = acl_create(), *groups = acl_create();
    CHECK_EQ(acl_add_list(users, ACL_USER, "bob", &err), 0);
    CHECK_EQ(acl_add_list(groups, ACL_GROUP, "staff", &err), 0);
    struct resv_spec sp = whole("u", 0, D(1), 0);
    sp.hosts = n1;
    sp.nhosts = 1;
    sp.acl = users;
    CHECK(sched_resv_create(s, &sp, 0, &err) != NULL);
    sp.name = "g";
    sp.acl = groups;
    CHECK(sched_resv_create(s, &sp, 0, &err) != NULL);
    acl_destroy(users);
    acl_destroy(groups);
    struct job *both = job(s, 0, "both 2x1 user=bob group=staff");
    struct job *one = job(s, 0, "one 8x1 user=bob group=other");
    sched_iterate(s, 0);
    CHECK_STR(where(s, both), "n1");
    CHECK(idle(one)); /* n2..n4 only: 6 of its 8 */
    sched_destroy(s);

    /* Positive in one, negative in the other: negative, the least
     * favourable; so n1 comes last. */
    s = world(four_nodes);
    if (!s)
        return;
    users = acl_create();
    groups = acl_create();
    CHECK_EQ(acl_add_list(users, ACL_USER, "bob+", &err), 0);
    CHECK_EQ(acl_add_list(groups, ACL_GROUP, "staff-", &err), 0);
    sp = whole("u", 0, D(1), 0);
    sp.hosts = n1;
    sp.nhosts = 1;
    sp.acl = users;
    CHECK(sched_resv_create(s, &sp, 0, &err) != NULL);
    sp.name = "g";
    sp.acl = groups;
    CHECK(sched_resv_create(s, &sp, 0, &err) != NULL);
    acl_destroy(users);
    acl_destroy(groups);
    struct job *j1 = job(s, 0, "j1 6x1 user=bob group=staff");
    struct job *j2 = job(s, 0, "j2 2x1 user=bob group=staff");
    sched_iterate(s, 0);
    CHECK_STR(where(s, j1), "n2,n3,n4");
    CHECK_STR(where(s, j2), "n1");
    sched_destroy(s);
}

/* Releasing a reservation a job runs in: the job goes on, its processors
 * stay taken, and what the reservation kept is open again. A reservation
 * whose start is past is taken from now. */
static void test_release_under_a_job(void)
{
    struct sched *s = world(four_nodes);
    if (!s)
        return;
    struct err err = {{0}};
    struct acl *bob = acl_create();
    CHECK_EQ(acl_add_list(bob, ACL_USER, "bob", &err), 0);
    struct resv_spec sp = whole("b", 0, D(1), 2);
    sp.acl = bob;
    CHECK(sched_resv_create(s, &sp, H(1), &err) != NULL); /* begun an hour ago */
    acl_destroy(bob);
    CHECK_STR(rnodes(s, "b.0"), "n1,n2");
    struct job *j = job(s, H(1), "j 1x2 user=bob");
    struct job *c = job(s, H(1), "c 6x1 user=carl");
    sched_iterate(s, H(1));
    CHECK_STR(where(s, j), "n1");
    CHECK(idle(c)); /* n3, n4 and nothing of b.0: 4 of 6 */
    CHECK_EQ(sched_resv_release(s, "b.0", &err), 0);
    sched_iterate(s, H(1) + 10);
    CHECK(running(j));
    CHECK_STR(where(s, c), "n2,n3,n4");
    CHECK_EQ(sched_node_used(s, 0), 2);
    finish(s, j, H(2));
    finish(s, c, H(2));
    sched_iterate(s, H(2));
    for (size_t i = 0; i < sched_nnodes(s); i++)
        CHECK_EQ(sched_node_used(s, i), 0);
    sched_destroy(s);
}

/* Released between iterations, while a job inside it runs: the job ends,
 * commands look and a job is forced to start before the next iteration —
 * nothing may still point at the released reservation (it is freed when
 * the regions are rebuilt). Under `make asan` a use after free fails. */
static void test_release_between_iterations(void)
{
    struct sched *s = world(four_nodes);
    if (!s)
        return;
    struct err err = {{0}};
    struct acl *bob = acl_create();
    CHECK_EQ(acl_add_list(bob, ACL_USER, "bob", &err), 0);
    struct resv_spec sp = whole("b", 0, D(1), 2);
    sp.acl = bob;
    CHECK(sched_resv_create(s, &sp, 0, &err) != NULL);
    acl_destroy(bob);
    struct job *j = job(s, 0, "j 1x2 user=bob");
    struct job *w = job(s, 0, "w 8x1 user=carl");
    sched_iterate(s, 0);
    CHECK(running(j) && idle(w));
    CHECK_EQ(sched_resv_release(s, "b.0", &err), 0);
    finish(s, j, 10); /* its holdings name the released reservation's region */
    struct cmd_ctx c = {.s = s, .now = 10};
    char *out = NULL;
    CHECK_EQ(cmd_run(&c, "checknode n1", &out, &err), 0);
    free(out);
    CHECK_EQ(cmd_run(&c, "showbf", &out, &err), 0);
    free(out);
    CHECK_EQ(sched_runjob(s, w, 10, &err), 0);
    sched_iterate(s, 20);
    CHECK(running(w));
    CHECK_EQ(sched_nresv(s), 0);
    sched_destroy(s);
}

/* ---------------------------------------------------- node allocation */

/*
 * Four different nodes; where a 1-task job lands under each
 * NODEALLOCATIONPOLICY, on the idle cluster and after a first job:
 *   a: 4 procs, 4096 MB, speed 1.0, priority 1
 *   b: 2 procs, 1024 MB, speed 2.0, priority 5
 *   c: 8 procs, 2048 MB, speed 0.5, priority 3
 *   d: 2 procs, 1024 MB, speed 1.5, priority -1
 */
static void test_allocation_policies(void)
{
    static const char nodes[] = "NODECFG[a] PROCS=4 MEMORY=4096 SPEED=1.0 PRIORITY=1\n"
                                "NODECFG[b] PROCS=2 MEMORY=1024 SPEED=2.0 PRIORITY=5\n"
                                "NODECFG[c] PROCS=8 MEMORY=2048 SPEED=0.5 PRIORITY=3\n"
                                "NODECFG[d] PROCS=2 MEMORY=1024 SPEED=1.5 PRIORITY=-1\n";
    static const struct {
        const char *policy;
        const char *alone;  /* a 1-task job on the idle cluster */
        int first_tasks;    /* a first job of this many tasks... */
        const char *first;  /* ...goes there */
        const char *second; /* and a 1-task job after it */
    } rows[] = {
        {"FIRSTAVAILABLE", "a", 4, "a", "b"}, /* table order */
        {"LASTAVAILABLE", "d", 2, "d", "c"},  /* table order from the end */
        {"MINRESOURCE", "b", 2, "b", "d"},    /* least memory, then fewest procs */
        {"CPULOAD", "c", 7, "c", "a"},        /* most idle processors */
        {"PRIORITY", "b", 2, "b", "c"},       /* highest NODECFG PRIORITY */
        {"FASTEST", "b", 2, "b", "d"},        /* highest SPEED */
        {"MAXBALANCE", "c", 8, "c", "a"},     /* slowest speed group that holds the job */
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char text[1024];
        snprintf(text, sizeof text, "NODEALLOCATIONPOLICY %s\n%s", rows[i].policy, nodes);
        struct sched *s = world(text);
        if (!s)
            continue;
        struct job *alone = job(s, 0, "alone 1x1");
        sched_iterate(s, 0);
        const char *got_alone = where(s, alone);
        finish(s, alone, 1);
        struct job *first = submit(
            s, 1,
            (struct job_spec){.name = "first", .tasks = rows[i].first_tasks, .walltime = H(5)});
        sched_iterate(s, 1);
        struct job *second = job(s, 2, "second 1x1");
        sched_iterate(s, 2);
        const char *got_first = where(s, first), *got_second = where(s, second);
        if (strcmp(got_alone, rows[i].alone) || strcmp(got_first, rows[i].first) ||
            strcmp(got_second, rows[i].second))
            fprintf(stderr, "    %s: alone on %s, first on %s, second on %s (want %s, %s, %s)\n",
                    rows[i].policy, got_alone, got_first, got_second, rows[i].alone, rows[i].first,
                    rows[i].second);
        CHECK_STR(got_alone, rows[i].alone);
        CHECK_STR(got_first, rows[i].first);
        CHECK_STR(got_second, rows[i].second);
        sched_destroy(s);
    }
}

/* MAXBALANCE keeps a job on one speed: 3 tasks fit the slow group (c);
 * with c busy, a (speed 1.0) holds them; 6 tasks with 4 left on c spill
 * over in speed order. */
static void test_maxbalance_groups(void)
{
    struct sched *s = world("NODEALLOCATIONPOLICY MAXBALANCE\n"
                            "NODECFG[a] PROCS=4 SPEED=1.0\n"
                            "NODECFG[b] PROCS=4 SPEED=2.0\n"
                            "NODECFG[c] PROCS=4 SPEED=0.5\n");
    if (!s)
        return;
    struct job *j1 = job(s, 0, "1 3x1");
    sched_iterate(s, 0);
    CHECK_STR(where(s, j1), "c");
    struct job *j2 = job(s, 1, "2 3x1");
    sched_iterate(s, 1);
    CHECK_STR(where(s, j2), "a"); /* c has 1 left: a holds all three */
    struct job *j3 = job(s, 2, "3 4x1");
    sched_iterate(s, 2);
    CHECK_STR(where(s, j3), "b");
    sched_destroy(s);
}

/* NODEACCESSPOLICY: SINGLEJOB, SINGLETASK, SINGLEUSER on two 4-processor
 * nodes. */
static void test_access_policies(void)
{
    static const char two[] = "NODEALLOCATIONPOLICY FIRSTAVAILABLE\n"
                              "NODECFG[n1] PROCS=4\n"
                              "NODECFG[n2] PROCS=4\n";
    char text[256];
    snprintf(text, sizeof text, "NODEACCESSPOLICY SINGLEJOB\n%s", two);
    struct sched *s = world(text);
    if (s) {
        struct job *a = job(s, 0, "a 1x1 user=alice");
        struct job *b = job(s, 0, "b 1x1 user=alice");
        struct job *c = job(s, 0, "c 1x1 user=alice");
        sched_iterate(s, 0);
        CHECK_STR(where(s, a), "n1");
        CHECK_STR(where(s, b), "n2"); /* never next to a */
        CHECK(idle(c));               /* 6 idle processors, no idle node */
        finish(s, a, 10);
        sched_iterate(s, 10);
        CHECK_STR(where(s, c), "n1");
        finish(s, b, 20);
        finish(s, c, 20);
        struct job *d = job(s, 20, "d 3x1");
        sched_iterate(s, 20);
        CHECK_STR(where(s, d), "n1"); /* its own tasks may share */
        sched_destroy(s);
    }

    snprintf(text, sizeof text, "NODEACCESSPOLICY SINGLETASK\n%s", two);
    s = world(text);
    if (s) {
        struct job *a = job(s, 0, "a 2x1");
        struct job *b = job(s, 0, "b 1x1");
        sched_iterate(s, 0);
        CHECK_STR(where(s, a), "n1,n2"); /* one task per node */
        CHECK(idle(b));
        sched_destroy(s);
    }

    snprintf(text, sizeof text, "NODEACCESSPOLICY SINGLEUSER\n%s", two);
    s = world(text);
    if (s) {
        struct job *a1 = job(s, 0, "a1 1x1 user=alice");
        struct job *b1 = job(s, 0, "b1 1x1 user=bob");
        struct job *a2 = job(s, 0, "a2 1x1 user=alice");
        struct job *c1 = job(s, 0, "c1 1x1 user=carl");
        struct job *a3 = job(s, 0, "a3 2x1 user=alice");
        sched_iterate(s, 0);
        CHECK_STR(where(s, a1), "n1");
        CHECK_STR(where(s, b1), "n2"); /* not next to alice */
        CHECK_STR(where(s, a2), "n1"); /* next to alice's own job */
        CHECK(idle(c1));
        CHECK_STR(where(s, a3), "n1");
        CHECK_EQ(sched_node_used(s, 0), 4);
        finish(s, b1, 10);
        sched_iterate(s, 10);
        CHECK_STR(where(s, c1), "n2");
        sched_destroy(s);
    }
}

/* ------------------------------------------------------ KTH-style sanity */

/* {submit, runtime, walltime, procs}: t_sched's "backfill that would
 * delay" on ten 1-processor nodes. Known starts: 0, 100, 200, 3, 4. */
static const struct {
    long submit, runtime, walltime, procs;
} easy_rows[] = {
    {0, 100, 100, 6}, {1, 100, 100, 8}, {2, 200, 200, 3}, {3, 50, 50, 3}, {4, 500, 500, 1},
};
static const long easy_starts[] = {0, 100, 200, 3, 4};

static void replay(struct sched *s, struct sim_outcome *out)
{
    static struct wl_job jobs[5];
    for (size_t i = 0; i < 5; i++)
        jobs[i] = (struct wl_job){.id = (uint32_t)i + 1,
                                  .submit = easy_rows[i].submit,
                                  .runtime_lo = easy_rows[i].runtime,
                                  .walltime_lo = easy_rows[i].walltime,
                                  .tasks = easy_rows[i].procs,
                                  .procs_per_task = 1,
                                  .line = (long)i + 1};
    struct workload wl = {.jobs = jobs, .njobs = 5};
    CHECK_EQ(sim_run(s, &wl, out, SIM_FOREVER, NULL), 0);
}

static void test_no_reservation_no_change(void)
{
    static const char *const extra[] = {
        "",                                                         /* nothing */
        "SRCFG[all] TASKCOUNT=10 PERIOD=INFINITY USERLIST=[ALL]\n", /* admits every job */
        "SRCFG[later] TASKCOUNT=10 PERIOD=DAY DAYS=SAT\n",          /* Saturday, long after */
        "SRCFG[half] HOSTLIST=n0[0-4] PERIOD=INFINITY USERLIST=DEFAULT\n",
    };
    for (size_t i = 0; i < sizeof extra / sizeof extra[0]; i++) {
        char text[2048] = "";
        nodes_cfg(text, sizeof text, "n%02d", 0, 9, "PROCS=1");
        size_t used = strlen(text);
        snprintf(text + used, sizeof text - used, "%s", extra[i]);
        struct sched *s = world(text);
        if (!s)
            continue;
        struct sim_outcome out[5];
        replay(s, out);
        for (size_t k = 0; k < 5; k++)
            if (out[k].start != easy_starts[k]) {
                fprintf(stderr, "    case %zu: job %zu started at %ld, want %ld\n", i, k + 1,
                        out[k].start, easy_starts[k]);
                CHECK(!"EASY starts unchanged");
            }
        CHECK(out[3].backfilled && out[4].backfilled && !out[1].backfilled);
        sched_destroy(s);
    }
    /* A SYSTEM reservation long after the trace, made beforehand. */
    char text[2048] = "";
    nodes_cfg(text, sizeof text, "n%02d", 0, 9, "PROCS=1");
    struct sched *s = world(text);
    if (!s)
        return;
    struct err err = {{0}};
    struct resv_spec sp = whole(NULL, D(5), D(6), 10);
    CHECK(sched_resv_create(s, &sp, 0, &err) != NULL);
    struct sim_outcome out[5];
    replay(s, out);
    for (size_t k = 0; k < 5; k++)
        CHECK_EQ(out[k].start, easy_starts[k]);
    sched_destroy(s);
}

/* ------------------------------------------------------ regressions (each caught an engine bug) */

/*
 * Was a bug (policy/plan.c, plan_fits: tasks_in under NODEACCESSPOLICY SHARED, and
 * avail_fits on the plain path): free processors are divided by the job's
 * processors per task (or just counted) without asking whether one node
 * can hold a task. A 2x4 job on 2-processor nodes can never run, yet
 * plan_fits says it fits now; alloc_job then fails, try_start returns 0,
 * and reserve() holds a priority reservation *now* (plan_earliest returns
 * now), keeping 8 of the 12 processors from the jobs behind it at every
 * iteration. The same holds for a job split over processors left here and
 * there on several nodes. Maui finds no feasible node for it
 * (MJobSelectMNL) and reserves nothing. Expected: the 6x1 job behind it
 * starts, with or without a reservation on the nodes.
 */
static void test_task_larger_than_nodes(void)
{
    static const char *const extra[] = {"", "SRCFG[shape] TASKCOUNT=6 DEPTH=1 USERLIST=bob\n"};
    for (size_t i = 0; i < 2; i++) {
        char text[512] = "NODEALLOCATIONPOLICY FIRSTAVAILABLE\n";
        nodes_cfg(text, sizeof text, "n%d", 1, 6, "PROCS=2");
        size_t used = strlen(text);
        snprintf(text + used, sizeof text - used, "%s", extra[i]);
        struct sched *s = world(text);
        if (!s)
            return;
        sched_iterate(s, 0);
        struct job *big = job(s, 10, "big 2x4 user=bob");
        struct job *next = job(s, 10, "next 6x1 user=bob");
        sched_iterate(s, 10);
        CHECK(idle(big));
        CHECK(running(next));
        if (big)
            CHECK_EQ(big->resv_start, -1); /* nothing to hold: it can never run here */
        sched_destroy(s);
    }
}

/*
 * Was a bug (policy/resv.c, refresh_def/instance, with policy/srtime.c's INFINITY
 * window): srtime_instances() gives PERIOD=INFINITY the window [now,
 * FOREVER), so its start moves with every call, while refresh_def() finds
 * an existing instance by its window start (instance(s, di, w.start -
 * epoch), compared with r->sr_window). The INFINITY instance is never found
 * again: each later look at the calendar (every quarter hour, or whenever
 * reservations change) creates one more instance, inf.1, inf.2, ... on the
 * same or other nodes, and a partial INFINITY instance is never topped up
 * (a new, complete one is created beside it instead). Expected: one
 * instance for ever (Maui: INFINITY has only depth index 0), topped up in
 * place.
 */
static void test_infinity_one_instance(void)
{
    struct sched *s = world("NODECFG[n1] PROCS=1\n"
                            "NODECFG[n2] PROCS=1\n"
                            "SRCFG[inf] TASKCOUNT=1 PERIOD=INFINITY\n");
    if (!s)
        return;
    sched_iterate(s, H(12));
    CHECK_STR(ids(s), "inf.0");
    sched_iterate(s, H(13));
    CHECK_STR(ids(s), "inf.0");
    sched_iterate(s, D(3));
    CHECK_STR(ids(s), "inf.0");
    sched_destroy(s);

    /* The partial case: admin.0 (DEDICATED) keeps n1, n2 from p.0 until it
     * is released. */
    s = world("NODECFG[n1] PROCS=2\nNODECFG[n2] PROCS=2\n"
              "NODECFG[n3] PROCS=2\nNODECFG[n4] PROCS=2\n"
              "SRCFG[p] TASKCOUNT=4 PERIOD=INFINITY USERLIST=bob\n");
    if (!s)
        return;
    struct err err = {{0}};
    const struct srcfg_host hosts[] = {{(char *)"n1", 0}, {(char *)"n2", 0}};
    struct resv_spec sp = {.name = "admin",
                           .start = 0,
                           .end = D(10),
                           .hosts = hosts,
                           .nhosts = 2,
                           .res = {.procs = -1},
                           .access = SRCFG_DEDICATED};
    CHECK(sched_resv_create(s, &sp, 0, &err) != NULL);
    sched_iterate(s, 0);
    CHECK_STR(rnodes(s, "p.0"), "n3,n4");
    CHECK_EQ(sched_resv_release(s, "admin.0", &err), 0);
    sched_iterate(s, H(1));
    CHECK_STR(ids(s), "p.0");
    CHECK_STR(rnodes(s, "p.0"), "n1,n2,n3,n4");
    sched_destroy(s);
}

/*
 * Was a bug (policy/resv.c, sched_standing_from_cfg with resv_refresh's quarter
 * hour gate): sched_standing_from_cfg() replaces the definitions and says
 * "the next iteration makes the new ones", but it bumps resv_gen only by
 * removing old instances. When the old definitions had no instance (here a
 * Saturday-only one, on a Monday), resv_gen, nresvs and sr_next are
 * unchanged, so resv_refresh() returns early (now < sr_next && sr_gen ==
 * resv_gen) and the new reservation appears only at the next quarter hour
 * of the calendar. Expected: now.0 exists after the next iteration (e.g.
 * bump resv_gen or reset sr_next when the definitions change).
 */
static void test_reload_standing(void)
{
    struct sched *s = world("NODECFG[n1] PROCS=1\n"
                            "SRCFG[sat] TASKCOUNT=1 DAYS=SAT DEPTH=1\n");
    if (!s)
        return;
    sched_iterate(s, 0);
    CHECK_EQ(sched_nresv(s), 0);
    load_standing(s, "SRCFG[now] TASKCOUNT=1 DEPTH=1\n");
    sched_iterate(s, 60);
    CHECK_STR(ids(s), "now.0");
    sched_destroy(s);
}

/*
 * Was a bug (policy/resv.c, tasks_on): a reservation task's size counts only its
 * processors. RESOURCES=PROCS:1;MEM:4096 (Maui: DRes per task, every
 * resource counted, MNodeGetTC) should put one task on a 4096 MB node and
 * two on an 8192 MB one; tasks_on() packs room/procs tasks on a node once
 * node_suits() found memory for a single task, so both tasks land on a1
 * (4 processors, 4096 MB), reserving 8192 MB of a 4096 MB node. Expected:
 * a1 and c1, one task each (a1 has the least memory, so it comes first).
 */
static void test_task_memory(void)
{
    struct sched *s = world("NODECFG[a1] PROCS=4 MEMORY=4096\n"
                            "NODECFG[c1] PROCS=8 MEMORY=8192\n");
    if (!s)
        return;
    struct err err = {{0}};
    struct resv_spec sp = {
        .name = "r", .start = 0, .end = H(1), .tasks = 2, .res = {.procs = 1, .mem = 4096}};
    const struct resv *r = sched_resv_create(s, &sp, 0, &err);
    CHECK(r != NULL);
    CHECK_STR(rnodes(s, "r.0"), "a1,c1");
    CHECK(r && r->tasks == 2 && r->procs == 2);
    sched_destroy(s);
}

/*
 * Was a minor bug (policy/plan.c, plan_earliest): the instants it tries are the
 * breakpoints of the regions' profiles, but whether a job may use a
 * reservation also changes with the start time when the ACL has a duration
 * entry: the overlap shrinks as the start nears r->end. special.0 (Guide
 * example 4, required TIMELIMIT one hour, until Friday 17:00) admits a
 * 2-hour QOS high job from Friday 16:00; with the 8 open processors too few
 * for its 10, that is its earliest start, but no profile changes then and
 * the priority reservation lands at 17:00. Expected: resv_start Friday
 * 16:00 (try r->end - limit for each duration entry as a candidate).
 */
static void test_duration_earliest(void)
{
    static char text[8192];
    snprintf(text, sizeof text, "NODEALLOCATIONPOLICY FIRSTAVAILABLE\n");
    nodes_cfg(text, sizeof text, "lm%02d", 1, 32, "PROCS=2 FEATURES=largememory");
    nodes_cfg(text, sizeof text, "p%d", 1, 4, "PROCS=2");
    size_t used = strlen(text);
    snprintf(text + used, sizeof text - used,
             "SRCFG[special] TASKCOUNT=32 PERIOD=WEEK\n"
             "SRCFG[special] STARTTIME=1:08:00:00\n"
             "SRCFG[special] ENDTIME=5:17:00:00\n"
             "SRCFG[special] NODEFEATURES=largememory\n"
             "SRCFG[special] TIMELIMIT=1:00:00*\n"
             "SRCFG[special] QOSLIST=high low special-\n");
    struct sched *s = world(text);
    if (!s)
        return;
    sched_iterate(s, 0);
    struct job *b = job(s, H(10), "b 10x1 wall=2h qos=high");
    sched_iterate(s, H(10));
    CHECK(idle(b));
    if (b)
        CHECK_EQ(b->resv_start, D(4) + H(16));
    sched_destroy(s);
}

/* ------------------------------------------------ reservation flags */

/*
 * SINGLEUSE (Admin Guide 7.1.5.2): the first job to use the reserved
 * resources ends, and the reservation goes; the standing instance is not
 * made again for that window (tomorrow's is).
 */
static void test_singleuse(void)
{
    struct sched *s = world("NODEALLOCATIONPOLICY FIRSTAVAILABLE\n"
                            "NODECFG[n1] PROCS=2\n"
                            "NODECFG[n2] PROCS=2\n"
                            "SRCFG[once] HOSTLIST=n1 DEPTH=2 USERLIST=bob FLAGS=SINGLEUSE\n");
    if (!s)
        return;
    sched_iterate(s, 0);
    CHECK_STR(ids(s), "once.0,once.1");
    struct job *a = job(s, M(1), "a 1x2 user=bob");
    sched_iterate(s, M(1));
    CHECK_STR(where(s, a), "n1");
    struct job *b = job(s, M(2), "b 1x2 user=bob");
    sched_iterate(s, M(2));
    CHECK_STR(where(s, b), "n2");
    finish(s, b, M(30)); /* ran outside it: the reservation stays */
    sched_iterate(s, M(30));
    CHECK_STR(ids(s), "once.0,once.1");
    finish(s, a, H(1)); /* used it: today's instance goes, for good */
    sched_iterate(s, H(1));
    CHECK_STR(ids(s), "once.1");
    sched_iterate(s, H(2));
    CHECK_STR(ids(s), "once.1");
    /* Requeued is not ended: the reservation stays. */
    struct job *c = job(s, D(1) + M(1), "c 1x2 user=bob");
    sched_iterate(s, D(1) + M(1));
    CHECK_STR(where(s, c), "n1");
    struct err err = {{0}};
    CHECK_EQ(sched_requeue(s, c, D(1) + M(5), &err), 0);
    sched_iterate(s, D(1) + M(6));
    CHECK(sched_find_resv(s, "once.1") != NULL);
    sched_destroy(s);
}

/*
 * PREEMPTEE: a DEDICATED standing reservation of higher PRIORITY short of
 * tasks takes the place of a PREEMPTEE one of lower PRIORITY, which is made
 * again with what is left; one without the flag, or of higher PRIORITY,
 * keeps its nodes.
 */
static void test_preemptee(void)
{
    static const char nodes[] = "NODEALLOCATIONPOLICY FIRSTAVAILABLE\n"
                                "NODECFG[n1] PROCS=2\n"
                                "NODECFG[n2] PROCS=2\n"
                                "NODECFG[n3] PROCS=2\n";
    char text[1024];
    snprintf(text, sizeof text, "%s%s", nodes,
             "SRCFG[low] TASKCOUNT=2 DEPTH=1 ACCESS=DEDICATED PRIORITY=1 FLAGS=PREEMPTEE "
             "USERLIST=a\n"
             "SRCFG[high] TASKCOUNT=2 DEPTH=1 ACCESS=DEDICATED PRIORITY=5 USERLIST=b\n");
    struct sched *s = world(text);
    if (!s)
        return;
    sched_iterate(s, 0);
    /* low took two nodes first; high, short of one task, takes the place of
     * low, which is made again with what is left. */
    const struct resv *hi = NULL, *lo = NULL;
    for (size_t i = 0; i < sched_nresv(s); i++) {
        const struct resv *r = sched_resv_at(s, i);
        if (strcmp(r->base, "low") == 0)
            lo = r;
        else
            hi = r;
    }
    CHECK(hi && hi->tasks == 2);
    CHECK(lo && lo->tasks == 1);
    sched_destroy(s);

    /* Without PREEMPTEE (or with a higher PRIORITY) nothing is taken. */
    const char *keep[] = {"SRCFG[low] TASKCOUNT=2 DEPTH=1 ACCESS=DEDICATED PRIORITY=1 USERLIST=a\n",
                          "SRCFG[low] TASKCOUNT=2 DEPTH=1 ACCESS=DEDICATED PRIORITY=9 "
                          "FLAGS=PREEMPTEE USERLIST=a\n"};
    for (int k = 0; k < 2; k++) {
        snprintf(text, sizeof text,
                 "%s%sSRCFG[high] TASKCOUNT=2 DEPTH=1 ACCESS=DEDICATED PRIORITY=5 USERLIST=b\n",
                 nodes, keep[k]);
        s = world(text);
        if (!s)
            return;
        sched_iterate(s, 0);
        CHECK_STR(ids(s), "low.0,high.0");
        const struct resv *h = sched_find_resv(s, "high.0");
        CHECK(h && h->tasks == 1);
        sched_destroy(s);
    }
}

/*
 * SPACEFLEX: a host list takes only its nodes that are up; an instance that
 * has not begun moves off a node that goes down. Without the flag both
 * stay ("these exact nodes, no matter what").
 */
static void test_spaceflex(void)
{
    struct sched *s = world("NODEALLOCATIONPOLICY FIRSTAVAILABLE\n"
                            "NODECFG[n1] PROCS=2\n"
                            "NODECFG[n2] PROCS=2 STATE=Down\n"
                            "NODECFG[n3] PROCS=2\n"
                            "NODECFG[n4] PROCS=2\n"
                            "NODECFG[n5] PROCS=2\n"
                            "SRCFG[fix] HOSTLIST=n1,n2 DEPTH=1\n"
                            "SRCFG[flex] HOSTLIST=n1,n2 DEPTH=1 FLAGS=SPACEFLEX\n"
                            "SRCFG[later] TASKCOUNT=1 STARTTIME=12:00:00 ENDTIME=14:00:00 "
                            "DEPTH=1 FLAGS=SPACEFLEX\n"
                            "SRCFG[stay] TASKCOUNT=1 STARTTIME=12:00:00 ENDTIME=14:00:00 "
                            "DEPTH=1\n");
    if (!s)
        return;
    sched_iterate(s, 0);
    CHECK_STR(rnodes(s, "fix.0"), "n1,n2");
    CHECK_STR(rnodes(s, "flex.0"), "n1");
    const char *later = rnodes(s, "later.0"), *stay = rnodes(s, "stay.0");
    CHECK(strcmp(later, stay) != 0);
    char was_later[32], was_stay[32];
    snprintf(was_later, sizeof was_later, "%s", later);
    snprintf(was_stay, sizeof was_stay, "%s", stay);
    sched_node_set_state(s, (size_t)sched_find_node(s, was_later), NODE_DOWN, "test");
    sched_node_set_state(s, (size_t)sched_find_node(s, was_stay), NODE_DOWN, "test");
    sched_iterate(s, H(1));
    later = rnodes(s, "later.0");
    CHECK(strcmp(later, was_later) != 0 && strcmp(later, was_stay) != 0); /* moved, up */
    CHECK(sched_node(s, (size_t)sched_find_node(s, later))->state == NODE_UP);
    CHECK_STR(rnodes(s, "stay.0"), was_stay); /* without the flag it stays */
    CHECK_STR(rnodes(s, "flex.0"), "n1");     /* begun: it stays */
    sched_destroy(s);
}

int main(int argc, char **argv)
{
    TEST_RUN(test_guide_business_hours);
    TEST_RUN(test_guide_host_constrained);
    TEST_RUN(test_guide_stacking);
    TEST_RUN(test_guide_multiple_acl_types);
    TEST_RUN(test_guide_limited_shared_access);
    TEST_RUN(test_day_rolling);
    TEST_RUN(test_week_period);
    TEST_RUN(test_overnight);
    TEST_RUN(test_infinity);
    TEST_RUN(test_partial_topped_up);
    TEST_RUN(test_floating_and_fixed);
    TEST_RUN(test_acl_forms);
    TEST_RUN(test_acl_duration_overlap);
    TEST_RUN(test_any_shape);
    TEST_RUN(test_system_blocks_everyone);
    TEST_RUN(test_future_window);
    TEST_RUN(test_ids);
    TEST_RUN(test_create_errors);
    TEST_RUN(test_placement);
    TEST_RUN(test_dedicated_and_force);
    TEST_RUN(test_stacked_admin);
    TEST_RUN(test_release_under_a_job);
    TEST_RUN(test_release_between_iterations);
    TEST_RUN(test_allocation_policies);
    TEST_RUN(test_maxbalance_groups);
    TEST_RUN(test_access_policies);
    TEST_RUN(test_no_reservation_no_change);
    /* Each of these caught a bug (see where each is defined). */
    TEST_RUN(test_infinity_one_instance);
    TEST_RUN(test_reload_standing);
    TEST_RUN(test_task_memory);
    TEST_RUN(test_task_larger_than_nodes);
    TEST_RUN(test_duration_earliest);
    TEST_RUN(test_singleuse);
    TEST_RUN(test_preemptee);
    TEST_RUN(test_spaceflex);
    return TEST_DONE();
}
