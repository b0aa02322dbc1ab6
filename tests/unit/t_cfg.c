/*
 * t_cfg — tests of the maui.cfg parser: value syntax, the table, errors,
 * warnings, objects, all-or-nothing loading, showconfig, and every
 * data-driven case in tests/data/cfg (a NAME.cfg with its NAME.expect).
 *
 * .expect lines (blank lines and '#' comments ignored):
 *   error: <substring>             the load fails with a message containing it
 *   warning: <substring>           some warning contains it
 *   warnings == N / objects == N   counts
 *   NAME[index] = text             cfg_str() ("(null)" for NULL)
 *   NAME[index] == number          cfg_int/cfg_time/cfg_bool/cfg_double
 *   @KIND[name] ATTR[index] = text cfg_obj_get() ("@SYSCFG ATTR = ..." too)
 */
#include <dirent.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <time.h>

#include "cfg/cfg.h"
#include "test.h"
#include "util/mem.h"

#define DATA_DIR "tests/data/cfg"

/* Load text into a fresh cfg named maui.cfg; NULL (and err filled) on error. */
static struct cfg *load(const char *text, struct err *err)
{
    struct cfg *cfg = cfg_create();
    if (cfg_load_string(cfg, text, "maui.cfg", err) < 0) {
        cfg_destroy(cfg);
        return NULL;
    }
    return cfg;
}

/* The error message of loading text (which must fail). */
static const char *load_err(const char *text)
{
    static struct err err;
    err_clear(&err);
    struct cfg *cfg = cfg_create();
    int rc = cfg_load_string(cfg, text, "maui.cfg", &err);
    cfg_destroy(cfg);
    return rc < 0 ? err.msg : "(loaded)";
}

/* ----------------------------------------------------------------- table */

static void test_table(void)
{
    size_t n;
    const struct cfg_param *tab = cfg_params(&n);
    CHECK(n >= 250);
    for (size_t i = 0; i < n; i++) {
        const struct cfg_param *p = &tab[i];
        CHECK(p->help && *p->help);
        CHECK(cfg_param_find(p->name) == p);
        if (p->alias)
            CHECK(cfg_param_find(p->alias) == p);
        if (p->type == CFG_ENUM)
            CHECK(p->choices && p->choices[0]);
        for (size_t j = 0; j < i; j++)
            CHECK(strcmp(tab[j].name, p->name) != 0);
    }
    CHECK(cfg_param_find("NOSUCHPARAM") == NULL);
    CHECK(cfg_param_find("backfillpolicy") == NULL); /* names are case-sensitive */
    CHECK(cfg_param_find("SERVICETARGETWEIGHT") == cfg_param_find("SERVWEIGHT"));
    CHECK(cfg_param_find("RESERVATIONDEPTH")->flags & CFG_INDEXED);
    CHECK(cfg_param_find("BACKFILLPOLICY")->flags & CFG_INDEXED);
    CHECK(!(cfg_param_find("RMPOLLINTERVAL")->flags & CFG_INDEXED));
    CHECK(cfg_param_find("SRSTARTTIME")->flags & CFG_LEGACY);
}

static void test_defaults(void)
{
    struct cfg *cfg = cfg_create();
    CHECK_EQ(cfg_int(cfg, "QUEUETIMEWEIGHT", NULL), 1);
    CHECK_EQ(cfg_int(cfg, "SERVWEIGHT", NULL), 1);
    CHECK_EQ(cfg_int(cfg, "FSWEIGHT", NULL), 1);
    CHECK_EQ(cfg_int(cfg, "USAGEWEIGHT", NULL), 1);
    CHECK_EQ(cfg_int(cfg, "XFACTORWEIGHT", NULL), 0);
    CHECK_EQ(cfg_int(cfg, "FSUSERWEIGHT", NULL), 0);
    CHECK(cfg_double(cfg, "QUEUETIMECAP", NULL) == 0.0);
    CHECK_EQ(cfg_int(cfg, "RESERVATIONDEPTH", "0"), 1);
    CHECK_STR(cfg_str(cfg, "RESERVATIONQOSLIST", "0"), "[ALL]");
    CHECK_STR(cfg_str(cfg, "RESERVATIONPOLICY", NULL), "CURRENTHIGHEST");
    CHECK_STR(cfg_str(cfg, "BACKFILLPOLICY", NULL), "FIRSTFIT");
    CHECK_STR(cfg_str(cfg, "NODEALLOCATIONPOLICY", NULL), "LASTAVAILABLE");
    CHECK_EQ(cfg_time(cfg, "XFMINWCLIMIT", NULL), 120);
    CHECK_EQ(cfg_time(cfg, "FSINTERVAL", NULL), 43200);
    CHECK_EQ(cfg_int(cfg, "FSDEPTH", NULL), 8);
    CHECK(cfg_double(cfg, "FSDECAY", NULL) == 1.0);
    CHECK_STR(cfg_str(cfg, "FSPOLICY", NULL), "NONE");
    CHECK_STR(cfg_str(cfg, "STATDIR", NULL), "stats/");
    CHECK_EQ(cfg_time(cfg, "RMPOLLINTERVAL", NULL), 60);
    CHECK_EQ(cfg_int(cfg, "SERVERPORT", NULL), 40559);
    CHECK_EQ(cfg_bool(cfg, "REJECTNEGPRIOJOBS", NULL), 0);
    CHECK_EQ(cfg_bool(cfg, "ENABLENEGJOBPRIORITY", NULL), 0);
    CHECK_EQ(cfg_bool(cfg, "ENABLEMULTINODEJOBS", NULL), 1);
    CHECK_STR(cfg_str(cfg, "JOBPRIOACCRUALPOLICY", NULL), "QUEUEPOLICY");
    CHECK_EQ(cfg_time(cfg, "JOBMAXOVERRUN", NULL), 0);
    CHECK_EQ(cfg_time(cfg, "DEFERTIME", NULL), 3600);
    CHECK_EQ(cfg_time(cfg, "CHECKPOINTEXPIRATIONTIME", NULL), CFG_TIME_INFINITY);
    CHECK_EQ(cfg_int(cfg, "SYSTEMMAXPROCPERJOB", NULL), -1);
    CHECK(cfg_str(cfg, "SERVERHOST", NULL) == NULL);
    CHECK(!cfg_is_set(cfg, "SERVERPORT", NULL));
    CHECK_EQ(cfg_nobjs(cfg), 0);
    CHECK_EQ(cfg_nwarnings(cfg), 0);
    cfg_destroy(cfg);
    cfg_destroy(NULL);
}

/* ---------------------------------------------------------- value syntax */

static void test_time(void)
{
    static const struct {
        const char *s;
        long v;
    } ok[] = {
        {"90", 90},
        {"1:30", 5400},
        {"00:30", 1800},
        {"1:00:00", 3600},
        {"00:00:30", 30},
        {"2:00:00:00", 172800},
        {"1:02:03:04", 93784},
        {"INFINITY", CFG_TIME_INFINITY},
        {"-1", -1},
        {"0", 0},
        {"100:00:00", 360000},
    };
    static const char *const bad[] = {"abc", "1:",       ":30",  "1::2",  "1:2:3:4:5", "1.5",
                                      "",    "infinity", "1:-2", "+1:00", "1h"};
    struct err err;
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        long v = -99;
        CHECK_EQ(cfg_parse_time(ok[i].s, &v, &err), 0);
        CHECK_EQ(v, ok[i].v);
    }
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        long v;
        CHECK_EQ(cfg_parse_time(bad[i], &v, &err), -1);
        CHECK_HAS(err.msg, "invalid time");
    }
}

static void test_bool(void)
{
    static const char *const yes[] = {"1",  "true", "True", "TRUE", "on",
                                      "On", "ON",   "yes",  "Yes",  "YES"};
    static const char *const no[] = {"0",   "false", "False", "FALSE", "off",
                                     "Off", "OFF",   "no",    "No",    "NO"};
    struct err err;
    int b;
    for (size_t i = 0; i < 10; i++) {
        b = -1;
        CHECK_EQ(cfg_parse_bool(yes[i], &b, &err), 0);
        CHECK_EQ(b, 1);
        b = -1;
        CHECK_EQ(cfg_parse_bool(no[i], &b, &err), 0);
        CHECK_EQ(b, 0);
    }
    CHECK_EQ(cfg_parse_bool("tRUE", &b, &err), -1);
    CHECK_EQ(cfg_parse_bool("2", &b, &err), -1);
    CHECK_HAS(err.msg, "invalid boolean '2'");
}

static void test_numbers(void)
{
    struct err err;
    long long i;
    double d;
    CHECK_EQ(cfg_parse_int("42", 0, 100, &i, &err), 0);
    CHECK_EQ(i, 42);
    CHECK_EQ(cfg_parse_int("-7", -10, 10, &i, &err), 0);
    CHECK_EQ(i, -7);
    CHECK_EQ(cfg_parse_int("+7", 0, 10, &i, &err), 0);
    CHECK_EQ(cfg_parse_int("101", 0, 100, &i, &err), -1);
    CHECK_HAS(err.msg, "out of range (0..100)");
    CHECK_EQ(cfg_parse_int("4x", 0, 100, &i, &err), -1);
    CHECK_HAS(err.msg, "invalid integer '4x'");
    CHECK_EQ(cfg_parse_int("99999999999999999999", 0, 100, &i, &err), -1);
    CHECK_EQ(cfg_parse_double("0.80", 0, 1, &d, &err), 0);
    CHECK(fabs(d - 0.8) < 1e-12);
    CHECK_EQ(cfg_parse_double(".5", 0, 1, &d, &err), 0);
    CHECK_EQ(cfg_parse_double("1e-3", 0, 1, &d, &err), 0);
    CHECK_EQ(cfg_parse_double("1.5", 0, 1, &d, &err), -1);
    CHECK_HAS(err.msg, "out of range");
    CHECK_EQ(cfg_parse_double("nan", 0, 1, &d, &err), -1);
    CHECK_EQ(cfg_parse_double("0x10", 0, 100, &d, &err), -1);
    CHECK_EQ(cfg_parse_double("", 0, 100, &d, &err), -1);
}

static void test_limits(void)
{
    struct err err;
    long long s, h;
    CHECK_EQ(cfg_parse_limit("4,8", 0, &s, &h, &err), 0);
    CHECK_EQ(s, 4);
    CHECK_EQ(h, 8);
    CHECK_EQ(cfg_parse_limit("5", 0, &s, &h, &err), 0);
    CHECK_EQ(s, 5);
    CHECK_EQ(h, 5);
    CHECK_EQ(cfg_parse_limit("-1", 0, &s, &h, &err), 0);
    CHECK_EQ(h, -1);
    CHECK_EQ(cfg_parse_limit("1:00:00,2:00:00", 1, &s, &h, &err), 0);
    CHECK_EQ(s, 3600);
    CHECK_EQ(h, 7200);
    CHECK_EQ(cfg_parse_limit("3600", 1, &s, &h, &err), 0);
    CHECK_EQ(h, 3600);
    CHECK_EQ(cfg_parse_limit("1:00:00", 0, &s, &h, &err), -1);
    CHECK_EQ(cfg_parse_limit("4,", 0, &s, &h, &err), -1);
    CHECK_EQ(cfg_parse_limit("a,b", 0, &s, &h, &err), -1);
    CHECK_EQ(cfg_parse_limit("-2", 0, &s, &h, &err), -1);
    CHECK_HAS(err.msg, "invalid limit '-2'");
}

/* Counts or shares of a whole (USERRESMAXPROCS, USERRESMAXPS). */
static void test_shares(void)
{
    struct err err;
    struct cfg *cfg = load("", &err);
    CHECK(cfg != NULL);
    if (cfg) {
        CHECK_EQ(cfg_share(cfg, "USERRESMAXPROCS", 8), 4);   /* the default, 50% */
        CHECK_EQ(cfg_share(cfg, "USERRESMAXPS", 1000), 100); /* 10% */
        CHECK_EQ(cfg_share(cfg, "USERRESMAXPROCS", 1), 0);   /* rounded down */
        cfg_destroy(cfg);
    }
    cfg = load("USERRESMAXPROCS 12\nUSERRESMAXPS 12.5%\n", &err);
    CHECK(cfg != NULL);
    if (cfg) {
        CHECK_EQ(cfg_share(cfg, "USERRESMAXPROCS", 8), 12);
        CHECK_EQ(cfg_share(cfg, "USERRESMAXPS", 1000), 125);
        cfg_destroy(cfg);
    }
    const char *bad[] = {"150%", "-1", "-5%", "x", "%", "1.5", "4 5"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[64];
        snprintf(text, sizeof text, "USERRESMAXPROCS %s\n", bad[i]);
        CHECK_HAS(load_err(text), "maui.cfg:1: invalid value");
        CHECK_HAS(load_err(text), "a share N% from 0% to 100%");
    }
}

/* ------------------------------------------------------------- parameters */

static void test_values_from_file(void)
{
    struct err err;
    struct cfg *cfg = load("LOGLEVEL 7\n"
                           "FSDECAY 0.5\n"
                           "RMPOLLINTERVAL 1:30\n"
                           "USEMACHINESPEED ON\n"
                           "SERVERHOST head01.example.org\n"
                           "ADMIN1 maui root\n"
                           "NODEMAXLOAD 1.25\n",
                           &err);
    CHECK(cfg != NULL);
    if (!cfg)
        return;
    CHECK_EQ(cfg_int(cfg, "LOGLEVEL", NULL), 7);
    CHECK(cfg_double(cfg, "FSDECAY", NULL) == 0.5);
    CHECK_EQ(cfg_time(cfg, "RMPOLLINTERVAL", NULL), 5400);
    CHECK_STR(cfg_str(cfg, "RMPOLLINTERVAL", NULL), "1:30");
    CHECK_EQ(cfg_bool(cfg, "USEMACHINESPEED", NULL), 1);
    CHECK_STR(cfg_str(cfg, "SERVERHOST", NULL), "head01.example.org");
    CHECK_STR(cfg_str(cfg, "ADMIN1", NULL), "maui root");
    CHECK(cfg_double(cfg, "NODEMAXLOAD", NULL) == 1.25);
    CHECK(cfg_is_set(cfg, "LOGLEVEL", NULL));
    CHECK(!cfg_is_set(cfg, "LOGDIR", NULL));
    cfg_destroy(cfg);
}

static void test_enums(void)
{
    struct err err;
    struct cfg *cfg = load("BACKFILLPOLICY FALSE\nFSPOLICY UTILIZEDPS%\n", &err);
    CHECK(cfg != NULL);
    if (cfg) {
        CHECK_STR(cfg_str(cfg, "BACKFILLPOLICY", NULL), "NONE");
        CHECK_STR(cfg_str(cfg, "FSPOLICY", NULL), "UTILIZEDPS%");
        cfg_destroy(cfg);
    }
    CHECK_STR(load_err("LOGLEVEL 1\nLOGLEVEL 2\nBACKFILLPOLICY FOO\n"),
              "maui.cfg:3: invalid value 'FOO' for BACKFILLPOLICY "
              "(accepted: FIRSTFIT, BESTFIT, GREEDY, PREEMPT, NONE)");
    CHECK_HAS(load_err("BACKFILLPOLICY firstfit\n"), "invalid value 'firstfit'");
    CHECK_HAS(load_err("RESERVATIONPOLICY OFF\n"), "accepted: CURRENTHIGHEST, HIGHEST, NEVER");
    CHECK_HAS(load_err("FSPOLICY %\n"), "invalid value '%' for FSPOLICY");
    CHECK_HAS(load_err("SIMFLAGS IGNHOSTLIST,IGNNOTHING\n"), "accepted: IGNHOSTLIST");
}

static void test_errors(void)
{
    CHECK_STR(load_err("LOGLEVEL 1\nLOGLEVEL 1\nLOGLEVEL 1\nLOGLEVEL 1\nLOGLEVEL 1\n"
                       "LOGLEVEL 1\nRMPOLLINTERVAL abc\n"),
              "maui.cfg:7: invalid value 'abc' for RMPOLLINTERVAL "
              "(expected a time [[[DD:]HH:]MM:]SS)");
    CHECK_STR(load_err("\n\n\nFSDEPTH 5000\n"),
              "maui.cfg:4: value 5000 for FSDEPTH out of range (0..24)");
    CHECK_STR(load_err("JOBMAXOVERRUN -2\n"),
              "maui.cfg:1: value -2 for JOBMAXOVERRUN out of range (at least -1)");
    CHECK_STR(load_err("SERVERPORT 70000\n"),
              "maui.cfg:1: value 70000 for SERVERPORT out of range (1..65535)");
    CHECK_STR(load_err("FSDECAY 1.5\n"), "maui.cfg:1: value 1.5 for FSDECAY out of range (0..1)");
    CHECK_STR(load_err("\nLOGLEVEL[2] 3\n"), "maui.cfg:2: LOGLEVEL takes no index");
    CHECK_STR(load_err("\nBACKFILLPOLICY\n"), "maui.cfg:2: missing value for BACKFILLPOLICY");
    CHECK_STR(load_err("BACKFILLPOLICY   # nothing\n"),
              "maui.cfg:1: missing value for BACKFILLPOLICY");
    CHECK_STR(load_err("RESERVATIONDEPTH[] 2\n"), "maui.cfg:1: empty index for RESERVATIONDEPTH");
    CHECK_HAS(load_err("[foo] bar\n"), "maui.cfg:1: malformed line");
    CHECK_HAS(load_err("=5\n"), "maui.cfg:1: malformed line");
    CHECK_HAS(load_err("LOGLEVEL;3\n"), "maui.cfg:1: malformed line");
    CHECK_HAS(load_err("RESERVATIONDEPTH[0]x 2\n"), "maui.cfg:1: malformed line");
    CHECK_HAS(load_err("NODECFG PROCS=2\n"), "maui.cfg:1: missing name for NODECFG");
    CHECK_HAS(load_err("USERCFG[] MAXJOB=2\n"), "maui.cfg:1: missing name for USERCFG");
    CHECK_STR(load_err("NODECFG[n1] PROCS=-2\n"),
              "maui.cfg:1: invalid value '-2' for attribute PROCS of NODECFG[n1] "
              "(expected an integer >= 0)");
    CHECK_HAS(load_err("SYSCFG MAXWC=forever\n"),
              "invalid value 'forever' for attribute MAXWC of SYSCFG (expected a limit");
    CHECK_HAS(load_err("QOSCFG[hi] FSTARGET=10*\n"), "attribute FSTARGET of QOSCFG[hi]");
    CHECK_HAS(load_err("SRCFG[x] PERIOD=MONTH\n"), "expected one of: DAY, WEEK, INFINITY");
    CHECK_HAS(load_err("NODECFG[n1] =2\n"), "malformed attribute '=2'");
    CHECK_HAS(load_err("NODECFG[n1] PROCS[2\n"), "malformed attribute");
    CHECK_HAS(load_err("LOGFILE 'unclosed\n"), "maui.cfg:1: unterminated quote");
    CHECK_HAS(load_err("SERVERHOST it's\n"), "unterminated quote");
}

static void test_cannot_open(void)
{
    struct err err;
    struct cfg *cfg = cfg_create();
    CHECK_EQ(cfg_load_file(cfg, "no/such/maui.cfg", &err), -1);
    CHECK_STR(err.msg, "no/such/maui.cfg: cannot open: No such file or directory");
    CHECK_EQ(cfg_load_file(cfg, DATA_DIR, &err), -1); /* a directory: cannot read */
    CHECK_HAS(err.msg, DATA_DIR ": cannot");
    cfg_destroy(cfg);
}

static void test_warnings(void)
{
    struct err err;
    struct cfg *cfg = load("\n\n\n\n\n\n\n\n\n\n\nFOO 3\n"
                           "NODECFG[n1] PROCS=2 COLOUR=blue\n"
                           "FOO[x] 4\n",
                           &err);
    CHECK(cfg != NULL);
    if (!cfg)
        return;
    CHECK_EQ(cfg_nwarnings(cfg), 3);
    CHECK_STR(cfg_warning(cfg, 0), "maui.cfg:12: unknown parameter 'FOO'");
    CHECK_STR(cfg_warning(cfg, 1), "maui.cfg:13: unknown attribute 'COLOUR' for NODECFG");
    CHECK_STR(cfg_warning(cfg, 2), "maui.cfg:14: unknown parameter 'FOO'");
    CHECK(cfg_warning(cfg, 3) == NULL);
    CHECK(cfg_obj_get(cfg_obj_find(cfg, "NODECFG", "n1"), "COLOUR", NULL) == NULL);
    /* warnings of a later file add up */
    CHECK_EQ(cfg_load_string(cfg, "BAR 1\n", "other.cfg", &err), 0);
    CHECK_EQ(cfg_nwarnings(cfg), 4);
    CHECK_STR(cfg_warning(cfg, 3), "other.cfg:1: unknown parameter 'BAR'");
    cfg_destroy(cfg);
}

static void test_indexed(void)
{
    struct err err;
    struct cfg *cfg = load("RESERVATIONDEPTH[2] 5\n"
                           "RESERVATIONDEPTH[0] 4\n"
                           "RESERVATIONDEPTH[2] 6\n"
                           "XFACTORWEIGHT[p1] 3\n",
                           &err);
    CHECK(cfg != NULL);
    if (!cfg)
        return;
    /* PARAM[0] is PARAM (Maui's partition/group 0): one setting */
    CHECK_EQ(cfg_int(cfg, "RESERVATIONDEPTH", "0"), 4);
    CHECK_EQ(cfg_int(cfg, "RESERVATIONDEPTH", NULL), 4);
    CHECK_EQ(cfg_int(cfg, "RESERVATIONDEPTH", "2"), 6);
    CHECK_EQ(cfg_int(cfg, "RESERVATIONDEPTH", "1"), 4); /* no [1]: the plain value */
    CHECK(cfg_is_set(cfg, "RESERVATIONDEPTH", "0"));
    CHECK(cfg_is_set(cfg, "RESERVATIONDEPTH", NULL));
    CHECK(!cfg_is_set(cfg, "RESERVATIONDEPTH", "1"));
    const char **ix;
    CHECK_EQ(cfg_indices(cfg, "RESERVATIONDEPTH", &ix), 1);
    CHECK_STR(ix[0], "2");
    CHECK_EQ(cfg_indices(cfg, "BACKFILLDEPTH", &ix), 0);
    CHECK_EQ(cfg_load_string(cfg, "RESERVATIONDEPTH 9\n", "b.cfg", &err), 0);
    CHECK_EQ(cfg_int(cfg, "RESERVATIONDEPTH", "1"), 9); /* plain value now */
    CHECK_EQ(cfg_int(cfg, "RESERVATIONDEPTH", "0"), 9); /* the later line wins */
    /* legacy parameters are indexed by names: "0" is a name like any other */
    CHECK_EQ(cfg_load_string(cfg, "SRTASKCOUNT[0] 3\n", "c.cfg", &err), 0);
    CHECK_EQ(cfg_indices(cfg, "SRTASKCOUNT", &ix), 1);
    CHECK_EQ(cfg_int(cfg, "XFACTORWEIGHT", "p1"), 3);
    CHECK_EQ(cfg_int(cfg, "XFACTORWEIGHT", NULL), 0);
    cfg_destroy(cfg);
}

static void test_aliases(void)
{
    struct err err;
    struct cfg *cfg = load("SERVWEIGHT 5\nSERVICEWEIGHT 7\nUFSWEIGHT 2\n", &err);
    CHECK(cfg != NULL);
    if (!cfg)
        return;
    CHECK_EQ(cfg_int(cfg, "SERVWEIGHT", NULL), 7);
    CHECK_EQ(cfg_int(cfg, "SERVICEWEIGHT", NULL), 7);
    CHECK_EQ(cfg_int(cfg, "FSUSERWEIGHT", NULL), 2);
    CHECK_EQ(cfg_load_string(cfg, "SERVICEWEIGHT 1\nSERVWEIGHT 9\nSERVICETARGETWEIGHT 4\n", "b.cfg",
                             &err),
             0);
    CHECK_EQ(cfg_int(cfg, "SERVWEIGHT", NULL), 4);
    CHECK_EQ(cfg_nwarnings(cfg), 0);
    cfg_destroy(cfg);
}

static void test_last_wins(void)
{
    struct err err;
    struct cfg *cfg = load("LOGLEVEL 2\nBACKFILLPOLICY BESTFIT\nLOGLEVEL 5\n"
                           "BACKFILLPOLICY GREEDY\nADMIN1 a\nADMIN1 b c\n",
                           &err);
    CHECK(cfg != NULL);
    if (!cfg)
        return;
    CHECK_EQ(cfg_int(cfg, "LOGLEVEL", NULL), 5);
    CHECK_STR(cfg_str(cfg, "BACKFILLPOLICY", NULL), "GREEDY");
    CHECK_STR(cfg_str(cfg, "ADMIN1", NULL), "b c");
    cfg_destroy(cfg);
}

static void test_syntax(void)
{
    struct err err;
    struct cfg *cfg = load("LOGLEVEL=3\n"
                           "\tLOGDIR =  /tmp/log  \n"
                           "ADMIN2 a \\\n b \\\n c\n"
                           "RESERVATIONDEPTH[0]=2\n"
                           "LOGFILE x.log# no space before the comment\n"
                           "TOOLSDIR a=b\n"
                           "SERVERHOST 'a b'\n",
                           &err);
    CHECK(cfg != NULL);
    if (!cfg) {
        fprintf(stderr, "%s\n", err.msg);
        return;
    }
    CHECK_EQ(cfg_int(cfg, "LOGLEVEL", NULL), 3);
    CHECK_STR(cfg_str(cfg, "LOGDIR", NULL), "/tmp/log");
    CHECK_STR(cfg_str(cfg, "ADMIN2", NULL), "a b c");
    CHECK_EQ(cfg_int(cfg, "RESERVATIONDEPTH", "0"), 2);
    CHECK_STR(cfg_str(cfg, "LOGFILE", NULL), "x.log");
    CHECK_STR(cfg_str(cfg, "TOOLSDIR", NULL), "a=b"); /* only the first '=' is a blank */
    CHECK_STR(cfg_str(cfg, "SERVERHOST", NULL), "a b");
    /* a continued line reports errors at its first line */
    CHECK_HAS(load_err("LOGLEVEL 1\nLOGLEVEL \\\n x\n"), "maui.cfg:2: invalid value 'x'");
    /* lines after a continued one keep their numbers */
    CHECK_HAS(load_err("ADMIN1 a \\\n b\nLOGLEVEL x\n"), "maui.cfg:3:");
    /* a trailing '\' on the last line is harmless */
    cfg_destroy(cfg);
    cfg = load("LOGLEVEL 4 \\", &err);
    CHECK(cfg && cfg_int(cfg, "LOGLEVEL", NULL) == 4);
    cfg_destroy(cfg);
    cfg = load("", &err);
    CHECK(cfg != NULL);
    cfg_destroy(cfg);
}

/* -------------------------------------------------------------- objects */

static void test_objects(void)
{
    struct err err;
    struct cfg *cfg = load("NODECFG[n1] PROCS=2\n"
                           "    NODECFG[n2]\tPROCS=4 MEM=100\n"
                           "NODECFG[n1] MEMORY=512 FEATURES=a:b\n"
                           "NODECFG[n1] PROCS=3\n"
                           "CLASSCFG[batch] MAXJOB[USER]=5 MAXJOB=10\n"
                           "SYSCFG QDEF=normal\n"
                           "SYSCFG[x] PLIST=p1\n"
                           "NODECFG[empty]\n"
                           "RMCFG[pbs] TYPE=PBS host=lower\n",
                           &err);
    CHECK(cfg != NULL);
    if (!cfg)
        return;
    CHECK_EQ(cfg_nobjs(cfg), 6);
    const struct cfg_obj *n1 = cfg_obj_find(cfg, "NODECFG", "n1");
    CHECK(n1 && n1 == cfg_obj_at(cfg, 0));
    CHECK(cfg_obj_at(cfg, 6) == NULL);
    CHECK_EQ(n1->nattrs, 4);
    CHECK_STR(cfg_obj_get(n1, "PROCS", NULL), "3");
    CHECK_STR(cfg_obj_get(n1, "MEMORY", NULL), "512");
    CHECK_STR(cfg_obj_get(n1, "FEATURES", NULL), "a:b");
    CHECK_STR(n1->attrs[1].file, "maui.cfg");
    CHECK_EQ(n1->attrs[1].line, 3);
    const struct cfg_obj *n2 = cfg_obj_find(cfg, "NODECFG", "n2");
    CHECK_STR(cfg_obj_get(n2, "MEMORY", NULL), "100");
    CHECK_STR(cfg_obj_get(n2, "RCMEM", NULL), "100");
    CHECK_STR(n2->attrs[1].name, "MEMORY"); /* stored under the canonical name */
    const struct cfg_obj *batch = cfg_obj_find(cfg, "CLASSCFG", "batch");
    CHECK_STR(cfg_obj_get(batch, "MAXJOB", "USER"), "5");
    CHECK_STR(cfg_obj_get(batch, "MAXJOB", NULL), "10");
    CHECK(cfg_obj_get(batch, "MAXJOB", "GROUP") == NULL);
    const struct cfg_obj *sys = cfg_obj_find(cfg, "SYSCFG", "");
    CHECK(sys && sys == cfg_obj_find(cfg, "SYSCFG", NULL));
    CHECK_STR(sys->name, "");
    CHECK_STR(cfg_obj_get(sys, "PLIST", NULL), "p1");
    CHECK_STR(cfg_obj_get(sys, "QDEF", NULL), "normal");
    const struct cfg_obj *empty = cfg_obj_find(cfg, "NODECFG", "empty");
    CHECK(empty && empty->nattrs == 0);
    CHECK_STR(cfg_obj_get(cfg_obj_find(cfg, "RMCFG", "pbs"), "host", NULL), "lower");
    CHECK(cfg_obj_find(cfg, "NODECFG", "n9") == NULL);
    CHECK(cfg_obj_find(cfg, "USERCFG", "n1") == NULL);
    /* a second file adds to the same objects; pointers stay valid */
    CHECK_EQ(cfg_load_string(cfg, "NODECFG[n1] SPEED=1.5\nNODECFG[n4] PROCS=1\n", "more.cfg", &err),
             0);
    CHECK(cfg_obj_find(cfg, "NODECFG", "n1") == n1);
    CHECK_STR(cfg_obj_get(n1, "SPEED", NULL), "1.5");
    CHECK_STR(n1->attrs[n1->nattrs - 1].file, "more.cfg");
    CHECK_EQ(cfg_nobjs(cfg), 7);
    cfg_destroy(cfg);
}

/* Admin Guide 7.1.5.2: `SRCFG[special] QOSLIST=high low special-`. Words
 * without '=' after a list attribute continue its value. */
static void test_list_blanks(void)
{
    struct err err;
    struct cfg *cfg = load("SRCFG[special] QOSLIST=high low special-\n"
                           "SRCFG[s] USERLIST=a b GROUPLIST=g1 g2 PERIOD=DAY\n"
                           "NODECFG[n1] FEATURES=fast big PROCS=2\n"
                           "NODECFG[n2] FEATURES= a b\n"
                           "SRCFG[q] QOSLIST='high low' special- DAYS=Mon  Tue\n"
                           "SRCFG[c] HOSTLIST=node1 \\\n"
                           "    node2 TASKCOUNT=2\n"
                           "SRCFG[c] ACCOUNTLIST=x\n"
                           "SRCFG[n] QOSLIST=normal= high debug= low- PERIOD=DAY\n",
                           &err);
    CHECK(cfg != NULL);
    if (!cfg) {
        fprintf(stderr, "    %s\n", err.msg);
        return;
    }
    const struct cfg_obj *sp = cfg_obj_find(cfg, "SRCFG", "special");
    CHECK_STR(cfg_obj_get(sp, "QOSLIST", NULL), "high low special-");
    CHECK_EQ(sp->nattrs, 1);
    const struct cfg_obj *s1 = cfg_obj_find(cfg, "SRCFG", "s");
    CHECK_EQ(s1->nattrs, 3);
    CHECK_STR(cfg_obj_get(s1, "USERLIST", NULL), "a b");
    CHECK_STR(cfg_obj_get(s1, "GROUPLIST", NULL), "g1 g2");
    CHECK_STR(cfg_obj_get(s1, "PERIOD", NULL), "DAY");
    const struct cfg_obj *n1 = cfg_obj_find(cfg, "NODECFG", "n1");
    CHECK_STR(cfg_obj_get(n1, "FEATURES", NULL), "fast big");
    CHECK_STR(cfg_obj_get(n1, "PROCS", NULL), "2");
    CHECK_STR(cfg_obj_get(cfg_obj_find(cfg, "NODECFG", "n2"), "FEATURES", NULL), "a b");
    const struct cfg_obj *q = cfg_obj_find(cfg, "SRCFG", "q");
    CHECK_STR(cfg_obj_get(q, "QOSLIST", NULL), "high low special-");
    CHECK_STR(cfg_obj_get(q, "DAYS", NULL), "Mon Tue");
    const struct cfg_obj *c = cfg_obj_find(cfg, "SRCFG", "c");
    CHECK_STR(cfg_obj_get(c, "HOSTLIST", NULL), "node1 node2");
    CHECK_STR(cfg_obj_get(c, "TASKCOUNT", NULL), "2");
    CHECK_EQ(c->attrs[0].line, 6); /* a joined line counts from where it starts */
    CHECK_EQ(c->attrs[2].line, 8);
    /* The Guide's neutral affinity, `QOSLIST[0] normal= high debug= low-`:
     * "debug=" is an item, not an attribute named debug. */
    const struct cfg_obj *nq = cfg_obj_find(cfg, "SRCFG", "n");
    CHECK_STR(cfg_obj_get(nq, "QOSLIST", NULL), "normal= high debug= low-");
    CHECK_STR(cfg_obj_get(nq, "PERIOD", NULL), "DAY");
    /* showconfig quotes the value, and it reads back the same */
    char *shown = cfg_show(cfg);
    CHECK_HAS(shown, "SRCFG[special] QOSLIST='high low special-'\n");
    struct cfg *again = cfg_create();
    CHECK_EQ(cfg_load_string(again, strstr(shown, "SRCFG[special]"), "show", &err), 0);
    CHECK_STR(cfg_obj_get(cfg_obj_find(again, "SRCFG", "special"), "QOSLIST", NULL),
              "high low special-");
    cfg_destroy(again);
    free(shown);
    cfg_destroy(cfg);
}

/* A stray word after an attribute that takes no list is still an error,
 * with file and line, and the file changes nothing. */
static void test_list_blanks_errors(void)
{
    CHECK_STR(load_err("NODECFG[n1] PROCS=2 4\n"),
              "maui.cfg:1: malformed attribute '4' for NODECFG[n1] "
              "(expected ATTR=VALUE; PROCS is not a list)");
    CHECK_STR(load_err("\n\nSRCFG[x] PERIOD=DAY WEEK\n"),
              "maui.cfg:3: malformed attribute 'WEEK' for SRCFG[x] "
              "(expected ATTR=VALUE; PERIOD is not a list)");
    CHECK_STR(load_err("SRCFG[x] TIMELIMIT=1:00:00 2:00:00\n"),
              "maui.cfg:1: malformed attribute '2:00:00' for SRCFG[x] "
              "(expected ATTR=VALUE; TIMELIMIT is not a list)");
    CHECK_STR(load_err("CLASSCFG[b] MAXJOB[USER]=5 6\n"),
              "maui.cfg:1: malformed attribute '6' for CLASSCFG[b] "
              "(expected ATTR=VALUE; MAXJOB is not a list)");
    /* an unknown attribute (a warning alone) takes no items either */
    CHECK_STR(load_err("NODECFG[n1] COLOUR=blue green\n"),
              "maui.cfg:1: malformed attribute 'green' for NODECFG[n1] "
              "(expected ATTR=VALUE; COLOUR is not a list)");
    /* open kinds: no attribute is known to be a list */
    CHECK_HAS(load_err("RMCFG[pbs] TYPE=PBS extra\n"),
              "malformed attribute 'extra' for RMCFG[pbs]");
    /* a word with '=' is never a list item */
    CHECK_STR(load_err("SRCFG[x] QOSLIST=high ==low\n"),
              "maui.cfg:1: malformed attribute '==low' for SRCFG[x] (expected ATTR=VALUE)");
    /* the first word of a line has nothing to continue */
    CHECK_STR(load_err("SRCFG[x] high QOSLIST=low\n"),
              "maui.cfg:1: malformed attribute 'high' for SRCFG[x] (expected ATTR=VALUE)");
    /* all or nothing */
    struct err err;
    struct cfg *cfg = load("SRCFG[x] QOSLIST=a\n", &err);
    CHECK(cfg != NULL);
    if (!cfg)
        return;
    CHECK_EQ(cfg_load_string(cfg, "SRCFG[x] QOSLIST=b c\nSRCFG[y] PERIOD=DAY x\n", "bad.cfg", &err),
             -1);
    CHECK_HAS(err.msg, "bad.cfg:2: malformed attribute 'x' for SRCFG[y]");
    CHECK_STR(cfg_obj_get(cfg_obj_find(cfg, "SRCFG", "x"), "QOSLIST", NULL), "a");
    CHECK(cfg_obj_find(cfg, "SRCFG", "y") == NULL);
    cfg_destroy(cfg);
}

/* Admin Guide: `ACCTCFG[jupiter] PRIORITY=10000` is an ACCOUNTCFG object. */
static void test_acctcfg(void)
{
    struct err err;
    struct cfg *cfg = load("ACCTCFG[jupiter] PRIORITY=10000\n"
                           "ACCOUNTCFG[jupiter] MAXJOB=4\n"
                           "ACCTCFG[saturn] FSTARGET=10 COLOUR=red\n",
                           &err);
    CHECK(cfg != NULL);
    if (!cfg) {
        fprintf(stderr, "    %s\n", err.msg);
        return;
    }
    CHECK_EQ(cfg_nobjs(cfg), 2);
    const struct cfg_obj *j = cfg_obj_find(cfg, "ACCOUNTCFG", "jupiter");
    CHECK(j != NULL);
    if (!j) {
        cfg_destroy(cfg);
        return;
    }
    CHECK(cfg_obj_find(cfg, "ACCTCFG", "jupiter") == j);
    CHECK_STR(j->kind, "ACCOUNTCFG");
    CHECK_STR(cfg_obj_get(j, "PRIORITY", NULL), "10000");
    CHECK_STR(cfg_obj_get(j, "MAXJOB", NULL), "4");
    CHECK_STR(cfg_obj_get(cfg_obj_find(cfg, "ACCOUNTCFG", "saturn"), "FSTARGET", NULL), "10");
    CHECK_EQ(cfg_nwarnings(cfg), 1);
    CHECK_STR(cfg_warning(cfg, 0), "maui.cfg:3: unknown attribute 'COLOUR' for ACCOUNTCFG");
    char *shown = cfg_show(cfg);
    CHECK_HAS(shown, "ACCOUNTCFG[jupiter] PRIORITY=10000 MAXJOB=4\n");
    CHECK(strstr(shown, "ACCTCFG") == NULL);
    free(shown);
    cfg_destroy(cfg);
    /* the same checks as ACCOUNTCFG; messages name the spelling for a missing name */
    CHECK_STR(load_err("ACCTCFG[a] MAXJOB=x\n"),
              "maui.cfg:1: invalid value 'x' for attribute MAXJOB of ACCOUNTCFG[a] "
              "(expected a limit N or SOFT,HARD; integers, -1 = unlimited)");
    CHECK_HAS(load_err("ACCTCFG PRIORITY=1\n"), "maui.cfg:1: missing name for ACCTCFG");
    /* case matters, as for every kind: an unknown parameter */
    cfg = load("acctcfg[x] PRIORITY=1\n", &err);
    CHECK(cfg && cfg_nobjs(cfg) == 0 && cfg_nwarnings(cfg) == 1);
    CHECK(cfg && cfg_obj_find(cfg, "acctcfg", "x") == NULL);
    cfg_destroy(cfg);
}

/* ------------------------------------------------------- all or nothing */

static void test_atomic(void)
{
    struct err err;
    struct cfg *cfg = load("LOGLEVEL 2\nRESERVATIONDEPTH[0] 3\nNODECFG[n1] PROCS=2\nFOO 1\n", &err);
    CHECK(cfg != NULL);
    if (!cfg)
        return;
    char *before = cfg_show(cfg);
    int rc = cfg_load_string(cfg,
                             "LOGLEVEL 9\n"
                             "RESERVATIONDEPTH[0] 7\n"
                             "RESERVATIONDEPTH[5] 7\n"
                             "NODECFG[n1] PROCS=8\n"
                             "NODECFG[n2] PROCS=8\n"
                             "BAR 2\n"
                             "FSDEPTH 99\n",
                             "bad.cfg", &err);
    CHECK_EQ(rc, -1);
    CHECK_STR(err.msg, "bad.cfg:7: value 99 for FSDEPTH out of range (0..24)");
    CHECK_EQ(cfg_int(cfg, "LOGLEVEL", NULL), 2);
    CHECK_EQ(cfg_int(cfg, "RESERVATIONDEPTH", "0"), 3);
    CHECK(!cfg_is_set(cfg, "RESERVATIONDEPTH", "5"));
    CHECK_EQ(cfg_nobjs(cfg), 1);
    CHECK_STR(cfg_obj_get(cfg_obj_find(cfg, "NODECFG", "n1"), "PROCS", NULL), "2");
    CHECK_EQ(cfg_nwarnings(cfg), 1);
    char *after = cfg_show(cfg);
    CHECK_STR(after, before);
    free(before);
    free(after);
    /* an unreadable file changes nothing either */
    CHECK_EQ(cfg_load_file(cfg, "no/such/file", &err), -1);
    CHECK_EQ(cfg_int(cfg, "LOGLEVEL", NULL), 2);
    cfg_destroy(cfg);
}

/* --------------------------------------------------------------- show */

/* One showconfig line: the name padded to 30, two blanks, the value. */
static const char *show_line(char *buf, const char *name, const char *value)
{
    snprintf(buf, 128, "%-30s  %s\n", name, value);
    return buf;
}

static void test_show(void)
{
    struct err err;
    struct cfg *cfg = load("RESERVATIONDEPTH[0] 4\nBACKFILLPOLICY BESTFIT\n"
                           "NODECFG[n1] PROCS=2 MEM=512\n"
                           "NODECFG[n1] PRIORITYF='SPEED + 1' FEATURES=x\n"
                           "SYSCFG QDEF=hi\n"
                           "CLASSCFG[b] MAXJOB[USER]=5\n",
                           &err);
    CHECK(cfg != NULL);
    if (!cfg)
        return;
    char *s = cfg_show(cfg), line[256], two[512];
    CHECK_HAS(s, show_line(line, "QUEUETIMEWEIGHT", "1"));
    CHECK_HAS(s, show_line(line, "BACKFILLPOLICY", "BESTFIT"));
    snprintf(two, sizeof two, "%s%s", show_line(line, "RESERVATIONDEPTH", "4"),
             show_line(line + 128, "RESERVATIONQOSLIST", "[ALL]"));
    CHECK_HAS(s, two); /* RESERVATIONDEPTH[0] is RESERVATIONDEPTH: one line */
    CHECK_HAS(s, show_line(line, "SERVERHOST", "[NONE]"));
    CHECK_HAS(s, show_line(line, "RMPOLLINTERVAL", "60"));
    CHECK_HAS(s, "NODECFG[n1] PROCS=2 MEMORY=512 PRIORITYF='SPEED + 1' FEATURES=x\n");
    CHECK_HAS(s, "SYSCFG QDEF=hi\n");
    CHECK_HAS(s, "CLASSCFG[b] MAXJOB[USER]=5\n");
    /* table order: every parameter, in cfg_params() order */
    size_t n;
    const struct cfg_param *tab = cfg_params(&n);
    size_t len = strlen(s) + 2;
    char *nl = xmalloc(len);
    snprintf(nl, len, "\n%s", s);
    const char *at = nl;
    for (size_t i = 0; i < n && at; i++) {
        char key[128];
        snprintf(key, sizeof key, "\n%s ", tab[i].name);
        at = strstr(at, key);
        CHECK(at != NULL);
    }
    free(nl);
    /* the object lines read back to the same objects */
    const char *objs = strstr(s, "NODECFG[n1]");
    struct cfg *again = cfg_create();
    CHECK_EQ(cfg_load_string(again, objs, "show", &err), 0);
    char *s2 = cfg_show(again);
    CHECK_HAS(s2, "NODECFG[n1] PROCS=2 MEMORY=512 PRIORITYF='SPEED + 1' FEATURES=x\n");
    free(s2);
    cfg_destroy(again);
    free(s);
    cfg_destroy(cfg);
}

/* ------------------------------------------------------------ large files */

static void test_large_nodecfg(void)
{
    enum { NODES = 50000 };
    size_t cap = (size_t)NODES * 2 * 64, len = 0;
    char *text = xmalloc(cap);
    for (int i = 0; i < NODES; i++)
        len += (size_t)snprintf(text + len, cap - len, "NODECFG[node%05d] PROCS=%d MEM=1024\n", i,
                                1 + i % 8);
    for (int i = 0; i < NODES; i++)
        len +=
            (size_t)snprintf(text + len, cap - len, "NODECFG[node%05d] FEATURES=f%d\n", i, i % 3);
    clock_t t0 = clock();
    struct err err;
    struct cfg *cfg = load(text, &err);
    double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
    CHECK(cfg != NULL);
    if (cfg) {
        CHECK_EQ(cfg_nobjs(cfg), NODES);
        const struct cfg_obj *o = cfg_obj_find(cfg, "NODECFG", "node31337");
        CHECK(o && o->nattrs == 3);
        CHECK_STR(cfg_obj_get(o, "PROCS", NULL), "2");
        CHECK_STR(cfg_obj_get(o, "FEATURES", NULL), "f2"); /* 31337 % 3 */
        CHECK_STR(cfg_obj_at(cfg, NODES - 1)->name, "node49999");
    }
    CHECK(secs < 5.0); /* linear: well under a second in practice */
    cfg_destroy(cfg);
    free(text);
}

/* -------------------------------------------------------- data-driven */

static int case_failures;

static void fail(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void fail(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s:%d: ", file, line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    test_failed_checks++;
    case_failures++;
}

/* Split "NAME[index]" in place; index NULL without brackets. */
static void split_name(char *s, char **index)
{
    char *b = strchr(s, '[');
    size_t n = strlen(s);
    *index = NULL;
    if (b && s[n - 1] == ']') {
        s[n - 1] = '\0';
        *b = '\0';
        *index = b + 1;
    }
}

static int has_warning(const struct cfg *cfg, const char *sub)
{
    for (size_t i = 0; i < cfg_nwarnings(cfg); i++) {
        if (strstr(cfg_warning(cfg, i), sub))
            return 1;
    }
    return 0;
}

static void expect_number(const struct cfg *cfg, const char *where, int ln, char *name, double want)
{
    char *index;
    split_name(name, &index);
    const struct cfg_param *p = cfg_param_find(name);
    double got;
    if (!p)
        return fail(where, ln, "no parameter %s", name);
    switch (p->type) {
    case CFG_INT:
        got = (double)cfg_int(cfg, name, index);
        break;
    case CFG_TIME:
        got = (double)cfg_time(cfg, name, index);
        break;
    case CFG_BOOL:
        got = cfg_bool(cfg, name, index);
        break;
    case CFG_DOUBLE:
        got = cfg_double(cfg, name, index);
        break;
    default:
        return fail(where, ln, "%s is not numeric", name);
    }
    if (fabs(got - want) > 1e-9)
        fail(where, ln, "%s is %.10g, expected %.10g", name, got, want);
}

static void expect_text(const char *where, int ln, const char *what, const char *got,
                        const char *want)
{
    if (strcmp(want, "(null)") == 0 ? got != NULL : !got || strcmp(got, want) != 0)
        fail(where, ln, "%s is \"%s\", expected \"%s\"", what, got ? got : "(null)", want);
}

/* "@KIND[name] ATTR[index] = value" */
static void expect_attr(const struct cfg *cfg, const char *where, int ln, char *lhs,
                        const char *want)
{
    char *sp = strchr(lhs, ' ');
    if (!sp)
        return fail(where, ln, "bad object expectation");
    *sp = '\0';
    char *attr = sp + 1, *name, *aindex;
    split_name(lhs, &name);
    split_name(attr, &aindex);
    const struct cfg_obj *o = cfg_obj_find(cfg, lhs, name ? name : "");
    if (!o)
        return fail(where, ln, "no object %s[%s]", lhs, name ? name : "");
    expect_text(where, ln, attr, cfg_obj_get(o, attr, aindex), want);
}

static void expect_line(const struct cfg *cfg, const char *errmsg, const char *where, int ln,
                        char *s)
{
    char *eq;
    if (strncmp(s, "error: ", 7) == 0) {
        if (cfg || !strstr(errmsg, s + 7))
            fail(where, ln, "error is \"%s\", expected one containing \"%s\"",
                 cfg ? "(loaded)" : errmsg, s + 7);
    } else if (!cfg) {
        fail(where, ln, "load failed: %s", errmsg);
    } else if (strncmp(s, "warning: ", 9) == 0) {
        if (!has_warning(cfg, s + 9))
            fail(where, ln, "no warning contains \"%s\"", s + 9);
    } else if (strncmp(s, "warnings == ", 12) == 0) {
        if ((long)cfg_nwarnings(cfg) != atol(s + 12))
            fail(where, ln, "%zu warnings, expected %s", cfg_nwarnings(cfg), s + 12);
    } else if (strncmp(s, "objects == ", 11) == 0) {
        if ((long)cfg_nobjs(cfg) != atol(s + 11))
            fail(where, ln, "%zu objects, expected %s", cfg_nobjs(cfg), s + 11);
    } else if ((eq = strstr(s, " == "))) {
        *eq = '\0';
        expect_number(cfg, where, ln, s, atof(eq + 4));
    } else if ((eq = strstr(s, " = ")) && *s == '@') {
        *eq = '\0';
        expect_attr(cfg, where, ln, s + 1, eq + 3);
    } else if (eq) {
        *eq = '\0';
        char *index;
        split_name(s, &index);
        if (!cfg_param_find(s))
            return fail(where, ln, "no parameter %s", s);
        expect_text(where, ln, s, cfg_str(cfg, s, index), eq + 3);
    } else {
        fail(where, ln, "cannot read this expectation");
    }
}

static void run_case(const char *base)
{
    char path[512], expect[512], line[1024];
    snprintf(path, sizeof path, DATA_DIR "/%s.cfg", base);
    snprintf(expect, sizeof expect, DATA_DIR "/%s.expect", base);
    FILE *f = fopen(expect, "r");
    if (!f)
        return fail(expect, 0, "missing");
    struct err err;
    err_clear(&err);
    struct cfg *cfg = cfg_create();
    if (cfg_load_file(cfg, path, &err) < 0) {
        cfg_destroy(cfg);
        cfg = NULL;
    }
    /* messages name the file as given; the cases name it relative to DATA_DIR */
    const char *msg =
        strncmp(err.msg, DATA_DIR "/", sizeof DATA_DIR) == 0 ? err.msg + sizeof DATA_DIR : err.msg;
    for (int ln = 1; fgets(line, sizeof line, f); ln++) {
        line[strcspn(line, "\r\n")] = '\0';
        if (*line && *line != '#')
            expect_line(cfg, msg, expect, ln, line);
    }
    fclose(f);
    cfg_destroy(cfg);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void test_data_cases(void)
{
    DIR *d = opendir(DATA_DIR);
    CHECK(d != NULL);
    if (!d)
        return;
    char *names[512];
    size_t n = 0;
    for (struct dirent *e; (e = readdir(d)) && n < 512;) {
        size_t len = strlen(e->d_name);
        if (len > 4 && strcmp(e->d_name + len - 4, ".cfg") == 0)
            names[n++] = strndup(e->d_name, len - 4);
    }
    closedir(d);
    qsort(names, n, sizeof names[0], cmp_str);
    CHECK(n >= 30);
    for (size_t i = 0; i < n; i++) {
        case_failures = 0;
        run_case(names[i]);
        printf("  %s %s\n", case_failures ? "FAIL" : "ok  ", names[i]);
        free(names[i]);
    }
}

/* The enumerators documents are generated from (maui.cfg(5)): every kind
 * the reader takes, each attribute's spellings and value form, and the
 * extra parameter spellings, each of which the reader accepts. */
static void test_enumerators(void)
{
    const char *alias, *k;
    size_t nk = 0;
    int node = 0;
    for (; (k = cfg_kind_at(nk, &alias)); nk++) {
        char a[128], sx[128];
        for (size_t j = 0; cfg_kind_attr_at(k, j, a, sx, sizeof sx); j++)
            CHECK(sx[0] != '\0');
        if (strcmp(k, "NODECFG") == 0) {
            node = 1;
            CHECK_STR(cfg_kind_attr_at(k, 0, a, sx, sizeof sx), "PROCS");
            CHECK_STR(a, "RCPROC");
            CHECK_STR(sx, "an integer >= 0");
            CHECK_STR(cfg_kind_attr_at(k, 10, a, sx, sizeof sx), "STATE");
            CHECK_STR(sx, "one of: Idle, Down, Drained");
        }
        if (strcmp(k, "ACCOUNTCFG") == 0)
            CHECK_STR(alias, "ACCTCFG");
    }
    CHECK(node);
    CHECK_EQ(nk, 11);
    CHECK(cfg_kind_at(nk, &alias) == NULL);
    char a[64], sx[64];
    CHECK(cfg_kind_attr_at("RMCFG", 0, a, sx, sizeof sx) == NULL);
    CHECK(cfg_kind_attr_at("NOSUCHCFG", 0, a, sx, sizeof sx) == NULL);
    const char *target, *sp;
    size_t ns = 0;
    for (; (sp = cfg_spelling_at(ns, &target)); ns++)
        CHECK(cfg_param_find(sp) == cfg_param_find(target) && cfg_param_find(target));
    CHECK(ns > 0);
}

int main(void)
{
    TEST_RUN(test_table);
    TEST_RUN(test_defaults);
    TEST_RUN(test_time);
    TEST_RUN(test_bool);
    TEST_RUN(test_numbers);
    TEST_RUN(test_limits);
    TEST_RUN(test_shares);
    TEST_RUN(test_values_from_file);
    TEST_RUN(test_enums);
    TEST_RUN(test_errors);
    TEST_RUN(test_cannot_open);
    TEST_RUN(test_warnings);
    TEST_RUN(test_indexed);
    TEST_RUN(test_aliases);
    TEST_RUN(test_last_wins);
    TEST_RUN(test_syntax);
    TEST_RUN(test_objects);
    TEST_RUN(test_list_blanks);
    TEST_RUN(test_list_blanks_errors);
    TEST_RUN(test_acctcfg);
    TEST_RUN(test_atomic);
    TEST_RUN(test_show);
    TEST_RUN(test_large_nodecfg);
    TEST_RUN(test_data_cases);
    TEST_RUN(test_enumerators);
    return TEST_DONE();
}
