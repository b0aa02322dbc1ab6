/*
 * Tests for Maui's daily views (issue 18): showstats -u/-g/-a/-c/-q,
 * showgrid, diagnose -j/-n/-u/-g/-a/-c/-q-less credential views and
 * checkjob -v, on one scenario, compared with golden files under
 * tests/data/cmd/ (MOKU_UPDATE_GOLDEN=1 rewrites them: check the diff by
 * eye), plus the JSON fields and the errors.
 *
 * The scenario (dates from 2024-01-01 00:00:00 UTC; commands at now = 1800),
 * that of t_cmdstats.c with groups, a fairshare target and limits:
 *   nodes n01 (4 procs, fast+ib), n02 (4 procs), n03 (2 procs, drained,
 *         partition debug): 8 processors up.
 *   USERCFG[alice] MAXJOB=4 PRIORITY=10; GROUPCFG[staff] MAXPROC=6;
 *   alice's fairshare target 25.
 *   t=0     1 (alice/staff, 2 procs, 1h) and 2 (bob/staff, 2 procs, 2h)
 *           start on n01, 3 (carol/lab, 4 procs, 30m) on n02; 5 (erin/lab,
 *           1 proc, 10m) waits.
 *   t=300   4 (dave/lab, 8 procs, 1h): only every processor holds it.
 *   t=1000  3 ends; 5 starts on n02 (queued 1000 s).
 *   t=1200  6 (frank/lab, 1 proc, 1h, feature fast) with a user hold.
 *   t=1500  5 ends, exit status 1.
 * Completed: 3 (4 procs, 30m limit, ran 1000 s, queued 0: XF 0.56) and 5
 * (1 proc, 10m, ran 500 s, queued 1000 s: XF 2.50).
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfg/cfg.h"
#include "cmd/cmd.h"
#include "engine/engine.h"
#include "policy/fs.h"
#include "test.h"

#define GOLDEN_DIR "tests/data/cmd/"
#define EPOCH 1704067200L /* Mon Jan  1 00:00:00 2024 UTC */
#define NOW 1800L

/* ---- helpers ---- */

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, len = 0;
    char *s = malloc(cap);
    size_t r;
    while ((r = fread(s + len, 1, cap - len - 1, f)) > 0) {
        len += r;
        if (cap - len < 2)
            s = realloc(s, cap *= 2);
    }
    s[len] = '\0';
    fclose(f);
    return s;
}

/* Compare got with tests/data/cmd/<name> (or write it, under
 * MOKU_UPDATE_GOLDEN=1). */
static int golden(const char *name, const char *got)
{
    char path[256];
    snprintf(path, sizeof path, GOLDEN_DIR "%s", name);
    const char *upd = getenv("MOKU_UPDATE_GOLDEN");
    if (upd && strcmp(upd, "1") == 0) {
        FILE *f = fopen(path, "wb");
        if (!f)
            return 0;
        fputs(got ? got : "", f);
        fclose(f);
        return 1;
    }
    char *want = read_file(path);
    if (!want) {
        fprintf(stderr, "%s: cannot read (run from the repository root)\n", path);
        return 0;
    }
    int ok = got && strcmp(got, want) == 0;
    if (!ok && got)
        fprintf(stderr, "%s differs; got:\n%s", path, got);
    free(want);
    return ok;
}

static void add_node(struct sched *s, struct node_spec spec)
{
    struct err e;
    int rc = sched_add_node(s, &spec, &e);
    if (rc < 0)
        fprintf(stderr, "node %s: %s\n", spec.name, e.msg);
    CHECK(rc == 0);
}

static struct job *submit(struct sched *s, struct job_spec spec)
{
    struct err e;
    if (!spec.procs_per_task)
        spec.procs_per_task = 1;
    struct job *j = sched_submit(s, &spec, &e);
    if (!j)
        fprintf(stderr, "submit %s: %s\n", spec.name, e.msg);
    CHECK(j != NULL);
    return j;
}

static const char *const config = "USERCFG[alice] MAXJOB=4 PRIORITY=10\n"
                                  "GROUPCFG[staff] MAXPROC=6\n"
                                  "CLASSCFG[batch] MAXJOB=10,12\n";

static struct sched *scenario(void)
{
    struct sched_policy pol;
    sched_policy_default(&pol);
    pol.nalloc = NALLOC_FIRSTAVAILABLE;
    struct sched *s = sched_create(&pol, NULL);
    struct cfg *cfg = cfg_create();
    struct err e = {{0}};
    CHECK(cfg_load_string(cfg, config, "maui.cfg", &e) == 0);
    CHECK(sched_creds_from_cfg(s, cfg, &e) == 0);
    CHECK(sched_limits_from_cfg(s, cfg, &e) == 0);
    cfg_destroy(cfg);
    fs_set_target(sched_fs(s), cred_get(sched_creds(s, CRED_USER), "alice"),
                  (struct fs_target){.value = 25, .mode = FS_MODE_TARGET});
    /* clang-format off */
    add_node(s, (struct node_spec){.name = "n01", .procs = 4, .mem = 4096, .features = "fast,ib"});
    add_node(s, (struct node_spec){.name = "n02", .procs = 4, .mem = 4096});
    add_node(s, (struct node_spec){.name = "n03", .procs = 2, .partition = "debug",
                                   .state = NODE_DRAINED});
    submit(s, (struct job_spec){.name = "1", .tasks = 2, .walltime = 3600, .submit = 0,
                                .user = "alice", .group = "staff", .class_ = "batch"});
    submit(s, (struct job_spec){.name = "2", .tasks = 2, .walltime = 7200, .submit = 0,
                                .user = "bob", .group = "staff", .class_ = "batch"});
    struct job *j3 = submit(s, (struct job_spec){.name = "3", .tasks = 4, .walltime = 1800,
                                                 .submit = 0, .user = "carol", .group = "lab"});
    struct job *j5 = submit(s, (struct job_spec){.name = "5", .tasks = 1, .walltime = 600,
                                                 .submit = 0, .user = "erin", .group = "lab"});
    sched_iterate(s, 0);
    submit(s, (struct job_spec){.name = "4", .tasks = 8, .walltime = 3600, .submit = 300,
                                .user = "dave", .group = "lab"});
    sched_iterate(s, 300);
    sched_job_ended(s, j3, 1000);
    sched_iterate(s, 1000);
    submit(s, (struct job_spec){.name = "6", .tasks = 1, .walltime = 3600, .submit = 1200,
                                .user = "frank", .group = "lab", .features = "fast",
                                .holds = HOLD_USER});
    sched_iterate(s, 1200);
    sched_job_ended(s, j5, 1500);
    j5->exit_status = 1;
    sched_iterate(s, 1500);
    /* clang-format on */
    return s;
}

static char *run_at(struct sched *s, long now, const char *line, struct err *e)
{
    struct cmd_ctx c = {.s = s, .now = now, .epoch_offset = EPOCH};
    char *out = NULL;
    int rc = cmd_run(&c, line, &out, e);
    if (rc < 0) {
        CHECK(out == NULL);
        return NULL;
    }
    CHECK(out != NULL && out[0] && out[strlen(out) - 1] == '\n');
    return out;
}

static void check_golden(struct sched *s, const char *line, const char *file)
{
    struct err e = {{0}};
    char *out = run_at(s, NOW, line, &e);
    if (!out)
        fprintf(stderr, "'%s' failed: %s\n", line, e.msg);
    CHECK(golden(file, out));
    free(out);
}

static void check_error(struct sched *s, const char *line, const char *msg)
{
    struct err e = {{0}};
    char *out = run_at(s, NOW, line, &e);
    CHECK(out == NULL);
    CHECK_HAS(e.msg, msg);
    free(out);
}

static json_t *run_json(struct sched *s, const char *line)
{
    struct err e = {{0}};
    char *out = run_at(s, NOW, line, &e);
    if (!out)
        fprintf(stderr, "'%s' failed: %s\n", line, e.msg);
    json_error_t je;
    json_t *root = out ? json_loads(out, 0, &je) : NULL;
    CHECK(root != NULL);
    free(out);
    return root;
}

/* The array element of arr whose "key" is the string val. */
static json_t *find_by(json_t *arr, const char *key, const char *val)
{
    size_t i;
    json_t *o;
    json_array_foreach(arr, i, o)
    {
        const char *v = json_string_value(json_object_get(o, key));
        if (v && strcmp(v, val) == 0)
            return o;
    }
    return NULL;
}

static double jnum(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    CHECK(json_is_number(v));
    return json_number_value(v);
}

/* ---- showstats -u ... ---- */

static void test_showstats_cred(void)
{
    struct sched *s = scenario();
    check_golden(s, "showstats -u", "showstats_u.txt");
    check_golden(s, "showstats -g", "showstats_g.txt");
    check_golden(s, "showstats -c batch", "showstats_c_batch.txt");
    check_golden(s, "showstats -q", "showstats_q.txt");
    check_golden(s, "showstats -a", "showstats_a.txt");
    json_t *root = run_json(s, "showstats -g --format=json");
    CHECK_STR(json_string_value(json_object_get(root, "type")), "group");
    json_t *lab = find_by(json_object_get(root, "credentials"), "name", "lab");
    CHECK(lab != NULL);
    CHECK_EQ(jnum(lab, "completed_jobs"), 2);
    CHECK(fabs(jnum(lab, "completed_pct") - 100.0) < 1e-9);
    /* 3: 4 x 1800 requested, 4 x 1000 run; 5: 1 x 600, 1 x 500 */
    CHECK(fabs(jnum(lab, "ph_requested") - 7800.0 / 3600.0) < 1e-9);
    CHECK(fabs(jnum(lab, "ph_dedicated") - 4500.0 / 3600.0) < 1e-9);
    CHECK(fabs(jnum(lab, "max_xfactor") - 2.5) < 1e-9);
    CHECK(fabs(jnum(lab, "avg_qtime_hours") - 500.0 / 3600.0) < 1e-9);
    json_t *staff = find_by(json_object_get(root, "credentials"), "name", "staff");
    CHECK(staff != NULL);
    CHECK_EQ(jnum(staff, "active_jobs"), 2);
    CHECK_EQ(jnum(staff, "active_procs"), 4);
    CHECK(json_is_null(json_object_get(staff, "avg_xfactor")));
    json_decref(root);
    root = run_json(s, "showstats -u alice --format=json");
    json_t *alice = find_by(json_object_get(root, "credentials"), "name", "alice");
    CHECK(alice && fabs(jnum(alice, "fs_target") - 25.0) < 1e-9);
    CHECK_EQ(json_array_size(json_object_get(root, "credentials")), 1);
    json_decref(root);
    check_error(s, "showstats -u nobody", "showstats: no user 'nobody'");
    check_error(s, "showstats -u alice bob", "showstats: -u takes one user ('bob' is extra)");
    check_error(s, "showstats -u -v", "showstats: -u takes no other option");
    check_error(s, "showstats -n", "showstats: option '-n' is not supported yet");
    sched_destroy(s);
}

/* ---- showgrid ---- */

static void test_showgrid(void)
{
    struct sched *s = scenario();
    check_golden(s, "showgrid AVGXFACTOR", "showgrid_avgxfactor.txt");
    check_golden(s, "showgrid JOBCOUNT", "showgrid_jobcount.txt");
    check_golden(s, "showgrid avgqtime", "showgrid_avgqtime.txt");
    check_golden(s, "showgrid PROCHOURS", "showgrid_prochours.txt");
    check_golden(s, "showgrid MAXXFACTOR", "showgrid_maxxfactor.txt");
    json_t *root = run_json(s, "showgrid JOBCOUNT --format=json");
    CHECK_EQ(json_integer_value(json_object_get(root, "total")), 2);
    /* 3: 4 procs, 30m limit -> row 4, column 32:00; 5: 1 proc, 10m -> row 1, column 32:00 */
    json_t *rows = json_object_get(root, "rows");
    CHECK_EQ(json_integer_value(json_array_get(json_array_get(rows, 1), 2)), 1);
    CHECK_EQ(json_integer_value(json_array_get(json_array_get(rows, 0), 2)), 1);
    CHECK(json_is_null(json_array_get(json_array_get(rows, 0), 0)));
    json_decref(root);
    check_error(s, "showgrid", "showgrid: missing statistic");
    check_error(s, "showgrid AVGBYPASS", "showgrid: unknown or unsupported statistic 'AVGBYPASS'");
    check_error(s, "showgrid JOBCOUNT AVGQTIME", "showgrid: one statistic at a time");
    sched_destroy(s);
}

/* ---- diagnose -j, -n, -u, -g, -a, -c ---- */

static void test_diagnose_views(void)
{
    struct sched *s = scenario();
    check_golden(s, "diagnose -j", "diagnose_j.txt");
    check_golden(s, "diagnose -n", "diagnose_n.txt");
    check_golden(s, "diagnose -u", "diagnose_u.txt");
    check_golden(s, "mdiag -g", "diagnose_g.txt");
    check_golden(s, "diagnose -c", "diagnose_c.txt");
    check_golden(s, "diagnose -a", "diagnose_a.txt");
    check_golden(s, "diagnose -j --format=json", "diagnose_j.json");
    json_t *root = run_json(s, "diagnose -u alice --format=json");
    json_t *alice = json_array_get(json_object_get(root, "credentials"), 0);
    CHECK_EQ(json_array_size(json_object_get(root, "credentials")), 1);
    CHECK_EQ(jnum(alice, "priority"), 10);
    CHECK_EQ(jnum(alice, "running_jobs"), 1);
    CHECK_EQ(jnum(alice, "running_procs"), 2);
    json_t *maxjob = json_object_get(json_object_get(alice, "limits"), "MAXJOB");
    CHECK_EQ(jnum(maxjob, "hard"), 4);
    CHECK(fabs(jnum(alice, "fs_target") - 25.0) < 1e-9);
    json_decref(root);
    root = run_json(s, "diagnose -n --format=json");
    json_t *n01 = find_by(json_object_get(root, "nodes"), "name", "n01");
    CHECK(n01 != NULL);
    CHECK_STR(json_string_value(json_object_get(n01, "state")), "Busy");
    CHECK_EQ(json_array_size(json_object_get(n01, "jobs")), 2);
    json_decref(root);
    struct err e = {{0}};
    char *late = run_at(s, 5000, "diagnose -j", &e); /* 1 (1h from 0) is past its limit */
    CHECK_HAS(late, "WARNING:  job '1' has exceeded its wallclock limit by 00:23:20");
    free(late);
    check_error(s, "diagnose -u nobody", "diagnose: no user 'nobody'");
    check_error(s, "diagnose -j 1", "diagnose: -j takes no argument ('1')");
    check_error(s, "diagnose -u alice bob", "diagnose: -u takes one name ('bob' is extra)");
    check_error(s, "diagnose -x", "diagnose: unknown option '-x'");
    check_error(s, "diagnose -j -n", "diagnose: -j and -n are exclusive");
    sched_destroy(s);
}

/* ---- checkjob -v ---- */

static void test_checkjob_verbose(void)
{
    struct sched *s = scenario();
    check_golden(s, "checkjob -v 6", "checkjob_v_6.txt");
    check_golden(s, "checkjob -v 4", "checkjob_v_4.txt");
    json_t *root = run_json(s, "checkjob -v 6 --format=json");
    json_t *rej = json_object_get(root, "rejections");
    CHECK_EQ(json_array_size(rej), 3);
    json_t *n01 = find_by(rej, "node", "n01");
    CHECK(n01 && strcmp(json_string_value(json_object_get(n01, "reason")), "State (Busy)") == 0);
    json_t *n02 = find_by(rej, "node", "n02");
    CHECK(n02 && strcmp(json_string_value(json_object_get(n02, "reason")), "Features") == 0);
    json_t *n03 = find_by(rej, "node", "n03");
    CHECK(n03 && strcmp(json_string_value(json_object_get(n03, "reason")), "State (Drained)") == 0);
    CHECK_EQ(jnum(root, "idle_procs"), 4);
    CHECK_EQ(jnum(root, "feasible_procs"), 0);
    json_decref(root);
    root = run_json(s, "checkjob -v 1 --format=json"); /* running: no node check */
    CHECK(json_is_null(json_object_get(root, "rejections")));
    json_decref(root);
    /* A reservation on n02 that job 4's user may not use. */
    struct cmd_ctx ctl = {.s = s, .now = NOW, .epoch_offset = EPOCH, .control = 1};
    char *out = NULL;
    struct err e = {{0}};
    CHECK(cmd_run(&ctl, "setres -u zed -d 1:00:00 n02", &out, &e) == 0);
    free(out);
    check_golden(s, "checkjob -v 4", "checkjob_v_4_reserved.txt");
    check_error(s, "checkjob -x 4", "checkjob: unknown option '-x'");
    sched_destroy(s);
}

int main(void)
{
    TEST_RUN(test_showstats_cred);
    TEST_RUN(test_showgrid);
    TEST_RUN(test_diagnose_views);
    TEST_RUN(test_checkjob_verbose);
    return TEST_DONE();
}
