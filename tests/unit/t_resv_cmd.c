/*
 * Tests for the reservation commands (src/cmd/resctl.c, showres.c): setres
 * and its parsing (times, durations, RES_DESC, RES_EXP, flags, ACL),
 * releaseres, showres in its views, diagnose -r and checknode's reservation
 * lines, all through cmd_run on a scheduler built here.
 *
 * The scenario (dates from 2024-01-01 00:00:00 UTC, driver time 0 = EPOCH;
 * commands at now = 1200 unless a test says otherwise):
 *   nodes n01..n03 (4 procs, 4096M), n04 (4 procs, 2048M, feature fast,
 *   partition debug).
 *   t=0  job 1 (alice, 4 procs, 1h) starts on n01.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfg/cfg.h"
#include "cmd/cmd.h"
#include "engine/engine.h"
#include "test.h"

#define EPOCH 1704067200L /* Mon Jan  1 00:00:00 2024 UTC */
#define NOW 1200L

/* ---- helpers ---- */

static void add_node(struct sched *s, struct node_spec spec)
{
    struct err e;
    int rc = sched_add_node(s, &spec, &e);
    if (rc < 0)
        fprintf(stderr, "node %s: %s\n", spec.name, e.msg);
    CHECK(rc == 0);
}

static struct sched *scenario(void)
{
    struct sched_policy pol;
    sched_policy_default(&pol);
    pol.nalloc = NALLOC_FIRSTAVAILABLE; /* job 1 on n01 */
    struct sched *s = sched_create(&pol, NULL);
    sched_set_epoch(s, EPOCH);
    add_node(s, (struct node_spec){.name = "n01", .procs = 4, .mem = 4096, .state = NODE_UP});
    add_node(s, (struct node_spec){.name = "n02", .procs = 4, .mem = 4096, .state = NODE_UP});
    add_node(s, (struct node_spec){.name = "n03", .procs = 4, .mem = 4096, .state = NODE_UP});
    add_node(s, (struct node_spec){.name = "n04",
                                   .procs = 4,
                                   .mem = 2048,
                                   .state = NODE_UP,
                                   .features = "fast",
                                   .partition = "debug"});
    struct err e;
    struct job_spec js = {.name = "1",
                          .tasks = 4,
                          .procs_per_task = 1,
                          .walltime = 3600,
                          .submit = 0,
                          .user = "alice",
                          .group = "staff"};
    struct job *j = sched_submit(s, &js, &e);
    CHECK(j != NULL);
    sched_iterate(s, 0);
    CHECK(j && j->state == JOB_RUNNING && j->nslots == 1 && j->slots[0].node == 0);
    return s;
}

/* Run line at `now` (control commands allowed unless control is 0); the
 * answer (caller frees) or NULL with e set. */
static char *run_at(struct sched *s, long now, int control, const char *line, struct err *e)
{
    struct cmd_ctx c = {.s = s, .now = now, .epoch_offset = EPOCH, .control = control};
    char *out = (char *)"sentinel";
    int rc = cmd_run(&c, line, &out, e);
    if (rc < 0) {
        CHECK(out == NULL);
        return NULL;
    }
    CHECK(out != NULL);
    return out;
}

static char *run(struct sched *s, const char *line)
{
    struct err e = {{0}};
    char *out = run_at(s, NOW, 1, line, &e);
    if (!out)
        fprintf(stderr, "'%s' failed: %s\n", line, e.msg);
    CHECK(out != NULL);
    return out;
}

static void check_text(struct sched *s, const char *line, const char *want)
{
    char *out = run(s, line);
    CHECK_STR(out, want);
    free(out);
}

static void check_error(struct sched *s, const char *line, const char *msg)
{
    struct err e = {{0}};
    char *out = run_at(s, NOW, 1, line, &e);
    if (out)
        fprintf(stderr, "'%s' answered:\n%s", line, out);
    CHECK(out == NULL);
    CHECK_HAS(e.msg, msg);
    free(out);
}

static json_t *run_json(struct sched *s, const char *line)
{
    char *out = run(s, line);
    json_error_t je;
    json_t *root = out ? json_loads(out, 0, &je) : NULL;
    CHECK(root != NULL);
    free(out);
    return root;
}

static const char *jstr(json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

static long long jint(json_t *o, const char *key)
{
    return (long long)json_integer_value(json_object_get(o, key));
}

/* Create with line and return the reservation made (the newest). */
static const struct resv *setres(struct sched *s, const char *line)
{
    size_t before = sched_nresv(s);
    free(run(s, line));
    CHECK_EQ(sched_nresv(s), before + 1);
    return sched_nresv(s) > before ? sched_resv_at(s, sched_nresv(s) - 1) : NULL;
}

/* ---- setres: where ---- */

static void test_setres_hostlist(void)
{
    struct sched *s = scenario();
    check_text(s, "setres -u john -d 8:00:00 n02,n03",
               "reservation 'john.0' created on 2 nodes (2 tasks, 8 processors)\n"
               "n02:1\n"
               "n03:1\n");
    const struct resv *r = sched_find_resv(s, "john.0");
    CHECK(r && r->start == NOW && r->end == NOW + 8 * 3600);
    CHECK(r && r->procs == 8 && r->kind == RESV_USER);
    /* Words are hosts too; a name alone is one node. */
    check_text(s, "setres -n one n04",
               "reservation 'one.0' created on 1 node (1 task, 4 processors)\n"
               "n04:1\n");
    check_text(s, "setres -n two n01 n03",
               "reservation 'two.0' created on 2 nodes (2 tasks, 8 processors)\n"
               "n01:1\n"
               "n03:1\n");
    sched_destroy(s);
}

static void test_setres_regex_all(void)
{
    struct sched *s = scenario();
    const struct resv *r = setres(s, "setres -n maint n0[34]");
    CHECK(r && r->nnodes == 2 && r->nodes[0].node == 2 && r->nodes[1].node == 3);
    r = setres(s, "setres -n every ALL");
    CHECK(r && r->nnodes == 4 && r->procs == 16);
    check_error(s, "setres n0[",
                "ERROR:    cannot select requested tasks for 'n0[' (host expression 'n0[' is not");
    sched_destroy(s);
}

static void test_setres_tasks(void)
{
    struct sched *s = scenario();
    char *out = run(s, "setres -g staff -r PROCS=2 TASKS==3");
    CHECK_HAS(out, "reservation 'staff.0' created on ");
    CHECK_HAS(out, " (3 tasks, 6 processors)\n");
    free(out);
    const struct resv *r = sched_find_resv(s, "staff.0");
    CHECK(r && r->tasks == 3 && r->procs == 6);
    /* Resource descriptions in the other spellings Maui users write. */
    r = setres(s, "setres -n a -r PROCS:1;MEM:512 TASKS>=2");
    CHECK(r && r->tasks == 2 && r->procs == 2);
    r = setres(s, "setres -n b -r PROCS=1,MEM=256 TASKS==1");
    CHECK(r && r->tasks == 1 && r->procs == 1);
    /* Features pick the node. */
    check_text(s, "setres -n f -f fast TASKS==1",
               "reservation 'f.0' created on 1 node (1 task, 4 processors)\n"
               "n04:1\n");
    r = setres(s, "setres -n p -p debug -r PROCS=2 TASKS==1");
    CHECK(r && r->nnodes == 1 && r->nodes[0].node == 3);
    sched_destroy(s);
}

/* ---- setres: when ---- */

static void test_setres_relative(void)
{
    struct sched *s = scenario();
    const struct resv *r = setres(s, "setres -n a -s +1:00:00 -d 30:00 n02");
    /* "30:00" is 30 hours: two fields are HH:MM, as Maui reads them. */
    CHECK(r && r->start == NOW + 3600 && r->end == NOW + 3600 + 30 * 3600);
    r = setres(s, "setres -n b -s +1:30 -e +1:00:00:00 n02");
    CHECK(r && r->start == NOW + 90 * 60 && r->end == NOW + 86400);
    r = setres(s, "setres -n c n02");
    CHECK(r && r->start == NOW && r->end == NOW + 100000000L);
    /* INFINITY never ends (not 2140000000 s on, nor -e's default length) */
    r = setres(s, "setres -n d -d INFINITY n02");
    CHECK(r && r->start == NOW && r->end == SCHED_NEVER);
    r = setres(s, "setres -n e -s +600 -e INFINITY n02");
    CHECK(r && r->start == NOW + 600 && r->end == SCHED_NEVER);
    sched_destroy(s);
}

static void test_setres_absolute(void)
{
    struct sched *s = scenario();
    const struct resv *r = setres(s, "setres -n a -s 02:00:00 -e 03:00 n02");
    CHECK(r && r->start == 7200 && r->end == 10800);
    r = setres(s, "setres -n b -s 2_01/02 -d 1:00:00 n02");
    CHECK(r && r->start == 86400 + 7200 && r->end == 86400 + 10800);
    r = setres(s, "setres -n c -s 00:00:30_01/03/24 -d 10 n02");
    CHECK(r && r->start == 2 * 86400 + 30 && r->end == 2 * 86400 + 40);
    r = setres(s, "setres -n d -s _02/29/2024 -d 60 n02");
    CHECK(r && r->start == (31 + 28) * 86400L);
    /* A start in the past is now; an end there is an invalid timeframe. */
    r = setres(s, "setres -n e -s 00:10 -e 01:00 n02");
    CHECK(r && r->start == NOW && r->end == 3600);
    check_error(s, "setres -s 00:05 -e 00:10 n02", "cannot create reservation (invalid timeframe)");
    check_error(s, "setres -s +2:00:00 -e +1:00:00 n02",
                "cannot create reservation (invalid timeframe)");
    check_error(s, "setres -d 0 n02", "cannot create reservation (invalid timeframe)");
    sched_destroy(s);
}

/* Absolute times are read in the scheduler's zone. */
static void test_setres_zone(void)
{
    struct sched *s = scenario();
    sched_set_zone(s, 0, 3600); /* UTC+1: it is 01:20 there */
    const struct resv *r = setres(s, "setres -n a -s 02:00 -d 60 n02");
    CHECK(r && r->start == 3600);
    sched_set_zone(s, 0, -7200); /* UTC-2: Dec 31, 22:20 there */
    r = setres(s, "setres -n b -s 23:00 -d 60 n02");
    CHECK(r && r->start == 3600);
    sched_destroy(s);
}

static void test_setres_bad_times(void)
{
    struct sched *s = scenario();
    check_error(s, "setres -s 25:00 n02", "setres: bad time '25:00' for -s");
    check_error(s, "setres -s 12:61 n02", "setres: bad time '12:61' for -s");
    check_error(s, "setres -s 02:00_02/30 n02", "setres: bad time '02:00_02/30' for -s");
    check_error(s, "setres -s 02:00_13/01 n02", "setres: bad time");
    check_error(s, "setres -e tomorrow n02", "setres: bad time 'tomorrow' for -e");
    check_error(s, "setres -s 1:2:3:4 n02", "setres: bad time");
    check_error(s, "setres -s 10: n02", "setres: bad time");
    check_error(s, "setres -s +x n02", "setres: bad time '+x' for -s");
    check_error(s, "setres -d soon n02", "setres: bad duration 'soon' for -d");
    check_error(s, "setres -d 1:00 -e +3:00:00 n02", "setres: -d and -e both set the end");
    CHECK_EQ(sched_nresv(s), 0);
    sched_destroy(s);
}

/* ---- setres: who, flags ---- */

static void test_setres_acl(void)
{
    struct sched *s = scenario();
    const struct resv *r = setres(s, "setres -u john:mary -g staff -q high n02");
    CHECK(r && strcmp(r->id, "john.0") == 0);
    json_t *root = run_json(s, "showres --format=json john.0");
    json_t *o = json_array_get(json_object_get(root, "reservations"), 0);
    CHECK_STR(jstr(o, "acl"), "USER==john+:==mary+ GROUP==staff+ QOS==high+");
    json_decref(root);
    /* The first ACL entry names it: groups before accounts. */
    r = setres(s, "setres -a astro -g physics -c batch n02");
    CHECK(r && strcmp(r->id, "physics.0") == 0);
    r = setres(s, "setres -j PREEMPTEE n02");
    CHECK(r && strcmp(r->id, "PREEMPTEE.0") == 0);
    check_error(s, "setres -u john: n02", "setres: -u:");
    sched_destroy(s);
}

/* No ACL: a SYSTEM reservation, which no job may use. */
static void test_setres_system(void)
{
    struct sched *s = scenario();
    const struct resv *r = setres(s, "setres n02");
    CHECK(r && strcmp(r->id, "SYSTEM.0") == 0 && acl_count(r->acl) == 0);
    r = setres(s, "setres -A chargeme n03");
    CHECK(r && strcmp(r->id, "SYSTEM.1") == 0);
    CHECK(r && r->chargeaccount && strcmp(r->chargeaccount, "chargeme") == 0);
    json_t *root = run_json(s, "showres --format=json SYSTEM.0");
    CHECK_STR(jstr(json_array_get(json_object_get(root, "reservations"), 0), "acl"), "");
    json_decref(root);
    sched_destroy(s);
}

static void test_setres_flags(void)
{
    struct sched *s = scenario();
    const struct resv *r = setres(s, "setres -n f -x BYNAME:dedicatedresource,BESTEFFORT n02");
    CHECK(r && r->flags == (SRCFG_BYNAME | SRCFG_BESTEFFORT) && r->access == SRCFG_DEDICATED);
    json_t *root = run_json(s, "showres --format=json f.0");
    json_t *fl = json_object_get(json_array_get(json_object_get(root, "reservations"), 0), "flags");
    CHECK_EQ(json_array_size(fl), 3);
    CHECK_STR(json_string_value(json_array_get(fl, 0)), "BESTEFFORT");
    CHECK_STR(json_string_value(json_array_get(fl, 1)), "BYNAME");
    CHECK_STR(json_string_value(json_array_get(fl, 2)), "DEDICATEDRESOURCE");
    check_error(s, "setres -x BYNAME,TIMEFLEX n02",
                "setres: -x: flag 'TIMEFLEX' is not supported by moku (it would be ignored)");
    r = setres(s, "setres -n h -x SINGLEUSE,PREEMPTEE,SPACEFLEX n04");
    CHECK(r && r->flags == (SRCFG_SINGLEUSE | SRCFG_PREEMPTEE | SRCFG_SPACEFLEX));
    json_decref(root);
    r = setres(s, "setres -n g -x [NONE] n03");
    CHECK(r && r->flags == 0 && r->access == SRCFG_SHARED);
    check_error(s, "setres -x FAST n02", "setres: -x: unknown flag 'FAST'");
    check_error(s, "setres -x ? n02", "setres: -x: unknown flag '?'");
    sched_destroy(s);
}

/* ---- setres: errors ---- */

static void test_setres_errors(void)
{
    struct sched *s = scenario();
    check_error(s, "setres", "setres: missing resource expression");
    check_error(s, "setres -z n02", "setres: unknown option '-z'");
    check_error(s, "setres -u", "setres: -u needs a value");
    check_error(s, "setres -u a -u b n02", "setres: -u given twice");
    check_error(s, "setres -N set1 n02", "setres: -N (node sets) is not supported");
    check_error(s, "setres n99", "ERROR:    cannot select requested tasks for 'n99' (no node ");
    check_error(s, "setres TASKS==99", "ERROR:    cannot select requested tasks for 'TASKS==99' (");
    check_error(s, "setres TASKS==0", "setres: bad task count 'TASKS==0'");
    check_error(s, "setres TASKS=2", "setres: bad task count 'TASKS=2'");
    check_error(s, "setres TASKS==2x", "setres: bad task count");
    check_error(s, "setres TASKS=", "setres: bad task count 'TASKS='");
    check_error(s, "setres TASKS>", "setres: bad task count 'TASKS>'");
    check_error(s, "setres ALL n01", "setres: 'ALL' is the whole resource expression ('n01' is");
    check_error(s, "setres TASKS==1 n01", "('n01' is extra)");
    check_error(s, "setres -r FOO=1 n02", "setres: -r: unknown resource 'FOO'");
    check_error(s, "setres -r PROCS=0 n02", "setres: -r: bad value '0' for PROCS");
    check_error(s, "setres -r MEM=-5 n02", "setres: -r: bad value '-5' for MEM");
    check_error(s, "setres -r PROCS n02", "setres: -r: 'PROCS' is not NAME=VALUE");
    check_error(s, "setres -r ; n02", "setres: -r: empty resource description");
    check_error(s, "setres , n02", "setres: no host in ','");
    CHECK_EQ(sched_nresv(s), 0);
    /* Without control, setres and releaseres are refused. */
    struct err e = {{0}};
    char *out = run_at(s, NOW, 0, "setres n02", &e);
    CHECK(out == NULL);
    CHECK_HAS(e.msg, "setres: changes the scheduler's state");
    out = run_at(s, NOW, 0, "releaseres x.0", &e);
    CHECK(out == NULL);
    CHECK_HAS(e.msg, "releaseres: changes the scheduler's state");
    CHECK_EQ(sched_nresv(s), 0);
    sched_destroy(s);
}

static void test_setres_json(void)
{
    struct sched *s = scenario();
    json_t *root = run_json(s, "setres -u john n02 --format=json");
    json_t *o = json_array_get(json_object_get(root, "reservations"), 0);
    CHECK_STR(jstr(o, "id"), "john.0");
    CHECK_EQ(jint(o, "start"), EPOCH + NOW);
    json_decref(root);
    sched_destroy(s);
}

/* ---- releaseres ---- */

static void test_releaseres(void)
{
    struct sched *s = scenario();
    setres(s, "setres -u john n02");
    setres(s, "setres -u john n03");
    setres(s, "setres -n maint n04");
    check_text(s, "releaseres john.0 maint.0 john.0",
               "released User reservation 'john.0'\n"
               "released User reservation 'maint.0'\n");
    CHECK(!sched_find_resv(s, "john.0") && sched_find_resv(s, "john.1"));
    /* Numbers are not reused within a run. */
    const struct resv *r = setres(s, "setres -u john n02");
    CHECK(r && strcmp(r->id, "john.2") == 0);
    /* One unknown id: nothing is released. */
    check_error(s, "releaseres john.1 nope.0", "ERROR:    cannot locate reservation 'nope.0'");
    CHECK(sched_find_resv(s, "john.1") != NULL);
    /* ... and the error says so, naming every bad id (issue 30: not silently). */
    check_error(s, "releaseres nope.0 john.1 gone.3",
                "ERROR:    cannot locate reservation 'nope.0'; cannot locate reservation 'gone.3' "
                "(nothing released: releaseres releases all the ids given or none)");
    CHECK(sched_find_resv(s, "john.1") != NULL);
    check_error(s, "releaseres nope.0", "ERROR:    cannot locate reservation 'nope.0'");
    check_error(s, "releaseres", "releaseres: missing reservation id");
    check_error(s, "releaseres -a", "releaseres: unknown option '-a'");
    json_t *root = run_json(s, "releaseres john.1 --format=json");
    CHECK_STR(json_string_value(json_array_get(json_object_get(root, "released"), 0)), "john.1");
    json_decref(root);
    sched_destroy(s);
}

/* A standing reservation's instance: shown with STANDINGRSV, not released
 * by hand. */
static void test_standing(void)
{
    struct sched *s = scenario();
    struct cfg *cfg = cfg_create();
    struct err e = {{0}};
    CHECK(cfg_load_string(cfg, "SRCFG[night] HOSTLIST=n04 PERIOD=INFINITY USERLIST=bob\n",
                          "maui.cfg", &e) == 0);
    CHECK(sched_standing_from_cfg(s, cfg, &e) == 0);
    sched_iterate(s, NOW);
    CHECK_EQ(sched_nresv(s), 1);
    const struct resv *r = sched_nresv(s) ? sched_resv_at(s, 0) : NULL;
    CHECK(r && r->kind == RESV_STANDING);
    const char *id = r ? r->id : "?";
    char line[128];
    snprintf(line, sizeof line, "showres --format=json %s", id);
    json_t *root = run_json(s, line);
    json_t *o = json_array_get(json_object_get(root, "reservations"), 0);
    CHECK_STR(jstr(o, "type"), "User");
    CHECK_STR(json_string_value(json_array_get(json_object_get(o, "flags"), 0)), "STANDINGRSV");
    CHECK_STR(jstr(o, "acl"), "USER==bob+");
    json_decref(root);
    snprintf(line, sizeof line, "diagnose -r %s", id);
    char *out = run(s, line);
    CHECK_HAS(out, "    Flags: STANDINGRSV\n    ACL:   USER==bob+\n");
    free(out);
    snprintf(line, sizeof line, "releaseres %s", id);
    check_error(s, line, "(change its SRCFG)");
    CHECK_EQ(sched_nresv(s), 1);
    cfg_destroy(cfg);
    sched_destroy(s);
}

/* ---- showres ---- */

/* Two reservations: john.0 on n02,n03 from now for 8h, maint.0 on n04 from
 * +1h for 2h. */
static struct sched *two_resv(void)
{
    struct sched *s = scenario();
    setres(s, "setres -u john -d 8:00:00 n02,n03");
    setres(s, "setres -n maint -s +1:00:00 -d 2:00:00 n04");
    return s;
}

static void test_showres_text(void)
{
    struct sched *s = two_resv();
    check_text(s, "showres",
               "Reservations\n"
               "\n"
               "ReservationID       Type S       Start         End    Duration    N/P    "
               "StartTime\n"
               "\n"
               "john.0              User -    00:00:00     8:00:00     8:00:00    2/8    "
               "Mon Jan  1 00:20:00\n"
               "maint.0             User -     1:00:00     3:00:00     2:00:00    1/4    "
               "Mon Jan  1 01:20:00\n"
               "\n"
               "2 reservations located\n");
    /* Later, john.0 is under way: its start is in the past. */
    struct err e;
    char *out = run_at(s, NOW + 300, 1, "showres john.0", &e);
    CHECK_HAS(out, "john.0              User -   -00:05:00     7:55:00     8:00:00    2/8    "
                   "Mon Jan  1 00:20:00\n\n1 reservation located\n");
    free(out);
    out = run(s, "showres -g -v maint.0");
    CHECK_HAS(out, "    1/4    Mon Jan  1 01:20:00 2024  n04\n");
    free(out);
    out = run(s, "showres -r -s");
    CHECK_HAS(out, "2 reservations located\n");
    free(out);
    /* Ended reservations are not shown. */
    out = run_at(s, NOW + 4 * 3600, 1, "showres", &e);
    CHECK(out && !strstr(out, "maint.0") && strstr(out, "john.0"));
    free(out);
    sched_destroy(s);
}

static void test_showres_empty(void)
{
    struct sched *s = scenario();
    check_text(s, "showres",
               "Reservations\n"
               "\n"
               "ReservationID       Type S       Start         End    Duration    N/P    "
               "StartTime\n"
               "\n"
               "0 reservations located\n");
    json_t *root = run_json(s, "showres --format=json");
    CHECK_EQ(json_array_size(json_object_get(root, "reservations")), 0);
    json_decref(root);
    sched_destroy(s);
}

static void test_showres_json(void)
{
    static const char *const keys[] = {"id",    "type",  "start", "end",
                                       "nodes", "procs", "flags", "acl"};
    struct sched *s = two_resv();
    json_t *root = run_json(s, "showres --format=json");
    json_t *a = json_object_get(root, "reservations");
    CHECK_EQ(json_object_size(root), 1);
    CHECK_EQ(json_array_size(a), 2);
    json_t *o = json_array_get(a, 0);
    CHECK_EQ(json_object_size(o), 8);
    for (size_t i = 0; i < 8; i++)
        CHECK(json_object_get(o, keys[i]) != NULL);
    CHECK_STR(jstr(o, "id"), "john.0");
    CHECK_STR(jstr(o, "type"), "User");
    CHECK_EQ(jint(o, "start"), EPOCH + NOW);
    CHECK_EQ(jint(o, "end"), EPOCH + NOW + 8 * 3600);
    CHECK_EQ(jint(o, "procs"), 8);
    json_t *nodes = json_object_get(o, "nodes");
    CHECK_EQ(json_array_size(nodes), 2);
    CHECK_STR(json_string_value(json_array_get(nodes, 0)), "n02");
    CHECK_STR(json_string_value(json_array_get(nodes, 1)), "n03");
    CHECK_EQ(json_array_size(json_object_get(o, "flags")), 0);
    CHECK_STR(jstr(o, "acl"), "USER==john+");
    CHECK_STR(jstr(json_array_get(a, 1), "acl"), "");
    json_decref(root);
    sched_destroy(s);
}

static void test_showres_nodes(void)
{
    struct sched *s = two_resv();
    setres(s, "setres -n wide -s +2:00:00 -d 1:00:00 n03,n04");
    check_text(s, "showres -n",
               "reservations on Mon Jan  1 00:20:00\n"
               "\n"
               "NodeName             Type      ReservationID   JobState Task       Start    "
               "Duration  StartTime\n"
               "\n"
               "n02                  User             john.0        N/A    1    00:00:00     "
               "8:00:00  Mon Jan  1 00:20:00\n"
               "n03                  User             john.0        N/A    1    00:00:00     "
               "8:00:00  Mon Jan  1 00:20:00\n"
               "n03                  User             wide.0        N/A    1     2:00:00     "
               "1:00:00  Mon Jan  1 02:20:00\n"
               "n04                  User            maint.0        N/A    1     1:00:00     "
               "2:00:00  Mon Jan  1 01:20:00\n"
               "n04                  User             wide.0        N/A    1     2:00:00     "
               "1:00:00  Mon Jan  1 02:20:00\n"
               "\n"
               "3 reservations located\n");
    char *out = run(s, "showres -n wide.0");
    CHECK(out && !strstr(out, "john.0") && strstr(out, "1 reservation located\n"));
    free(out);
    json_t *root = run_json(s, "showres -n --format=json");
    json_t *nodes = json_object_get(root, "nodes");
    CHECK_EQ(json_array_size(nodes), 3);
    json_t *n03 = json_array_get(nodes, 1);
    CHECK_STR(jstr(n03, "name"), "n03");
    json_t *list = json_object_get(n03, "reservations");
    CHECK_EQ(json_array_size(list), 2);
    CHECK_STR(jstr(json_array_get(list, 0), "id"), "john.0");
    CHECK_EQ(jint(json_array_get(list, 0), "procs"), 4);
    CHECK_EQ(jint(json_array_get(list, 0), "tasks"), 1);
    CHECK_STR(jstr(json_array_get(list, 1), "id"), "wide.0");
    json_decref(root);
    /* Tasks per node with RESOURCES-sized tasks. */
    const struct resv *r = setres(s, "setres -n small -r PROCS=2 n02");
    CHECK(r && r->tasks == 2);
    out = run(s, "showres -n small.0");
    CHECK_HAS(out, "n02                  User            small.0        N/A    2 ");
    free(out);
    sched_destroy(s);
}

static void test_showres_errors(void)
{
    struct sched *s = two_resv();
    check_error(s, "showres nope.0", "showres: no reservation 'nope.0'");
    check_error(s, "showres -x", "showres: unknown option '-x'");
    check_error(s, "showres -nq", "showres: unknown option '-nq'");
    sched_destroy(s);
}

/* ---- diagnose -r ---- */

static void test_diagnose_r(void)
{
    struct sched *s = two_resv();
    setres(s, "setres -g staff -x BYNAME -A proj -r PROCS=2 TASKS==2");
    char *out = run(s, "diagnose -r");
    CHECK_HAS(out, "Diagnosing Reservations\n"
                   "ResID                      Type Par   StartTime     EndTime     Duration "
                   "Node Task Proc\n"
                   "-----                      ---- ---   ---------     -------     -------- "
                   "---- ---- ----\n"
                   "john.0                     User DEF    00:00:00     8:00:00      8:00:00    2 "
                   "   2    8\n"
                   "    ACL:   USER==john+\n"
                   "    Tasks: 2 of 2 asked\n"
                   "    Nodes: n02:4 n03:4\n"
                   "    Active Procs: 0/8 (0.00%)\n"
                   "\n"
                   "maint.0                    User deb     1:00:00     3:00:00      2:00:00    1 "
                   "   1    4\n"
                   "    ACL:   [NONE]\n"
                   "    Tasks: 1 of 1 asked\n"
                   "    Nodes: n04:4\n"
                   "\n");
    CHECK_HAS(out, "    Flags: BYNAME\n    ACL:   GROUP==staff+\n"
                   "    Accounting Creds:  Account:proj\n    Tasks: 2 of 2 asked\n");
    free(out);
    out = run(s, "diagnose -r maint.0");
    CHECK(out && strstr(out, "maint.0") && !strstr(out, "john.0"));
    free(out);
    json_t *root = run_json(s, "diagnose -r john.0 --format=json");
    json_t *a = json_object_get(root, "reservations");
    CHECK_EQ(json_array_size(a), 1);
    json_t *o = json_array_get(a, 0);
    CHECK_STR(jstr(o, "id"), "john.0");
    CHECK_EQ(jint(o, "tasks"), 2);
    CHECK_EQ(jint(o, "tasks_asked"), 2);
    CHECK_STR(jstr(o, "partition"), "DEFAULT");
    CHECK(json_is_false(json_object_get(o, "standing")));
    CHECK(json_is_null(json_object_get(o, "owner")));
    CHECK_EQ(jint(json_array_get(json_object_get(o, "nodes"), 0), "procs"), 4);
    CHECK_EQ(jint(o, "created"), EPOCH + NOW);
    json_decref(root);
    check_error(s, "diagnose -r nope.0", "diagnose: no reservation 'nope.0'");
    check_error(s, "diagnose -r john.0 maint.0", "diagnose: -r takes one reservation");
    check_error(s, "diagnose -p john.0", "diagnose: unexpected argument 'john.0'");
    check_error(s, "diagnose -r -p", "diagnose: -r and -p are exclusive");
    sched_destroy(s);
}

/* ---- checknode ---- */

static void test_checknode(void)
{
    struct sched *s = two_resv();
    setres(s, "setres -n hold -s +0:30:00 -e +1:00:00:00 n01");
    char *out = run(s, "checknode n01");
    CHECK_HAS(out, "\nReservations:\n"
                   "  Job '1'(x4)  -00:20:00 -> 00:40:00 (1:00:00)\n"
                   "  User 'hold.0'(x4)  00:30:00 -> 1:00:00:00 (23:30:00)\n"
                   "JobList:  1\n");
    free(out);
    /* A node with reservations and no job. */
    out = run(s, "checknode n03");
    CHECK_HAS(out, "\nReservations:\n"
                   "  User 'john.0'(x4)  00:00:00 -> 8:00:00 (8:00:00)\n");
    CHECK(out && !strstr(out, "JobList"));
    free(out);
    json_t *root = run_json(s, "checknode --format=json n03");
    json_t *a = json_object_get(json_object_get(root, "node"), "reservations");
    CHECK_EQ(json_array_size(a), 1);
    CHECK_STR(jstr(json_array_get(a, 0), "id"), "john.0");
    CHECK_STR(jstr(json_array_get(a, 0), "type"), "User");
    CHECK_EQ(jint(json_array_get(a, 0), "procs"), 4);
    CHECK_EQ(jint(json_array_get(a, 0), "end"), EPOCH + NOW + 8 * 3600);
    json_decref(root);
    root = run_json(s, "checknode --format=json n02");
    CHECK_EQ(json_array_size(json_object_get(json_object_get(root, "node"), "reservations")), 1);
    json_decref(root);
    sched_destroy(s);
}

/* Hostile words never crash and never leave a half-made reservation. */
static void test_fuzz(void)
{
    static const char *const words[] = {
        "-s", "-e", "-d",  "-r",  "-x",      "-u",  "-n",  "+",      "_",           ":",
        "::", "1:", "_1/", "ALL", "TASKS==", "n0[", "n01", "PROCS=", "99999999999", "-"};
    struct sched *s = scenario();
    unsigned seed = 7;
    for (int i = 0; i < 400; i++) {
        char line[256] = "setres";
        for (int k = 0; k < 4; k++) {
            seed = seed * 1103515245u + 12345u;
            strcat(line, " ");
            strcat(line, words[(seed >> 16) % (sizeof words / sizeof words[0])]);
        }
        struct err e;
        size_t before = sched_nresv(s);
        char *out = run_at(s, NOW, 1, line, &e);
        CHECK(out ? sched_nresv(s) == before + 1 : sched_nresv(s) == before);
        free(out);
    }
    sched_destroy(s);
}

int main(void)
{
    TEST_RUN(test_setres_hostlist);
    TEST_RUN(test_setres_regex_all);
    TEST_RUN(test_setres_tasks);
    TEST_RUN(test_setres_relative);
    TEST_RUN(test_setres_absolute);
    TEST_RUN(test_setres_zone);
    TEST_RUN(test_setres_bad_times);
    TEST_RUN(test_setres_acl);
    TEST_RUN(test_setres_system);
    TEST_RUN(test_setres_flags);
    TEST_RUN(test_setres_errors);
    TEST_RUN(test_setres_json);
    TEST_RUN(test_releaseres);
    TEST_RUN(test_standing);
    TEST_RUN(test_showres_text);
    TEST_RUN(test_showres_empty);
    TEST_RUN(test_showres_json);
    TEST_RUN(test_showres_nodes);
    TEST_RUN(test_showres_errors);
    TEST_RUN(test_diagnose_r);
    TEST_RUN(test_checknode);
    TEST_RUN(test_fuzz);
    return TEST_DONE();
}
