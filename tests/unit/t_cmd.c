/*
 * Tests for the command layer (src/cmd): each command's text and JSON on a
 * small scenario, compared with golden files under tests/data/cmd/, the
 * diagnose -p layout with chosen weights, Maui's time formats, and hostile
 * input. Run from the repository root; MOKU_UPDATE_GOLDEN=1 rewrites the
 * golden files from the current output (check them by eye before keeping).
 *
 * The scenario: two 4-processor nodes, default policy (FIRSTFIT, one
 * reservation), dates from 2024-01-01 00:00:00 UTC.
 *   t=0     1 (4 procs, 1h) and 2 (2 procs, 2h) start.
 *   t=600   3 (3 tasks x 2 procs, 1h) submitted; t=900 4 (1 proc, 30m) and
 *           5 (1 proc, 3h); t=1200 6 (4 procs, 1h, nodes=1).
 *   t=1200  iteration: 3 cannot start and reserves 3600; 4 backfills (ends
 *           3000); 5 would fit but delay 3's reservation; 6 lacks processors.
 * Commands answer at now = 1500.
 *
 * The blocked variant (blocked_scenario) marks 5 and 6 blocked by hand after
 * the iteration, with Maui's policy messages, so that the commands' blocked
 * views do not depend on the engine's throttling.
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfg/cfg.h"
#include "cmd/cmd.h"
#include "cmd/cmd_int.h"
#include "engine/engine.h"
#include "policy/prio.h"
#include "test.h"

#define GOLDEN_DIR "tests/data/cmd/"
#define EPOCH 1704067200L /* Mon Jan  1 00:00:00 2024 UTC */
#define NOW 1500L

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

/* Report the first line where got and want differ. */
static void show_diff(const char *name, const char *got, const char *want)
{
    int line = 1;
    const char *g = got, *w = want;
    while (*g && *g == *w) {
        if (*g == '\n')
            line++;
        g++;
        w++;
    }
    const char *gl = g, *wl = w;
    while (gl > got && gl[-1] != '\n')
        gl--;
    while (wl > want && wl[-1] != '\n')
        wl--;
    fprintf(stderr, "%s: line %d differs\n  got:  %.*s\n  want: %.*s\n", name, line,
            (int)strcspn(gl, "\n"), gl, (int)strcspn(wl, "\n"), wl);
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
        show_diff(path, got, want);
    free(want);
    return ok;
}

static void add_node(struct sched *s, const char *name, int procs)
{
    struct node_spec spec = {.name = name, .procs = procs, .mem = 4096, .state = NODE_UP};
    CHECK(sched_add_node(s, &spec, NULL) == 0);
}

static void submit(struct sched *s, struct job_spec spec)
{
    struct err e;
    if (!spec.procs_per_task)
        spec.procs_per_task = 1;
    struct job *j = sched_submit(s, &spec, &e);
    if (!j)
        fprintf(stderr, "submit %s: %s\n", spec.name, e.msg);
    CHECK(j != NULL);
}

static struct sched *scenario(const struct sched_policy *pol)
{
    /* The goldens name the nodes jobs run on: table order. */
    struct sched_policy p = *pol;
    p.nalloc = NALLOC_FIRSTAVAILABLE;
    struct sched *s = sched_create(&p, NULL);
    add_node(s, "n01", 4);
    add_node(s, "n02", 4);
    /* clang-format off */
    submit(s, (struct job_spec){.name = "1", .tasks = 4, .walltime = 3600, .submit = 0,
                                .user = "alice", .group = "staff", .account = "astro",
                                .class_ = "batch"});
    submit(s, (struct job_spec){.name = "2", .tasks = 2, .walltime = 7200, .submit = 0,
                                .user = "bob", .group = "staff", .class_ = "batch"});
    sched_iterate(s, 0);
    submit(s, (struct job_spec){.name = "3", .tasks = 3, .procs_per_task = 2,
                                .mem_per_task = 1024, .walltime = 3600, .submit = 600,
                                .user = "carol", .group = "physics", .account = "astro",
                                .class_ = "batch"});
    submit(s, (struct job_spec){.name = "4", .tasks = 1, .walltime = 1800, .submit = 900,
                                .user = "dave", .group = "physics", .class_ = "short"});
    submit(s, (struct job_spec){.name = "5", .tasks = 1, .walltime = 10800, .submit = 900,
                                .user = "erin", .group = "staff", .class_ = "batch"});
    submit(s, (struct job_spec){.name = "6", .tasks = 4, .nodes = 1, .walltime = 3600,
                                .submit = 1200, .user = "frank", .group = "physics",
                                .class_ = "batch"});
    /* clang-format on */
    sched_iterate(s, 1200);
    return s;
}

static struct sched *default_scenario(void)
{
    struct sched_policy pol;
    sched_policy_default(&pol);
    return scenario(&pol);
}

#define WHY5 "job 5 violates idle HARD MAXIJOB limit of 1 for user erin (R: 1, U: 1)"
#define WHY6 "job 6 violates active SOFT MAXPROC limit of 4 for class batch (R: 4, U: 7)"

/* Mark idle job `name` blocked, as the engine would (s frees the text). */
static void block(struct sched *s, const char *name, const char *why)
{
    struct job *j = sched_find_job(s, name);
    CHECK(j && j->state == JOB_IDLE);
    if (!j)
        return;
    free(j->blocked);
    j->blocked = strdup(why);
    j->flags |= JOB_BLOCKED; /* as the engine marks a job it blocks */
}

static struct sched *blocked_scenario(void)
{
    struct sched *s = default_scenario();
    block(s, "5", WHY5);
    block(s, "6", WHY6);
    return s;
}

/* Run line; returns the answer (caller frees) or NULL with e set. */
static char *run(struct sched *s, const struct cfg *cfg, const char *line, struct err *e)
{
    struct cmd_ctx c = {.s = s, .cfg = cfg, .now = NOW, .epoch_offset = EPOCH};
    char *out = (char *)"sentinel";
    int rc = cmd_run(&c, line, &out, e);
    if (rc < 0) {
        CHECK(out == NULL);
        return NULL;
    }
    CHECK(rc == 0);
    CHECK(out != NULL);
    return out;
}

static void check_golden(struct sched *s, const char *line, const char *file)
{
    struct err e = {{0}};
    char *out = run(s, NULL, line, &e);
    if (!out)
        fprintf(stderr, "'%s' failed: %s\n", line, e.msg);
    CHECK(out != NULL);
    if (out) {
        CHECK(golden(file, out));
        CHECK(out[0] && out[strlen(out) - 1] == '\n');
    }
    free(out);
}

/* The error message of a command that must fail. */
static void check_error(struct sched *s, const char *line, const char *msg)
{
    struct err e = {{0}};
    char *out = run(s, NULL, line, &e);
    CHECK(out == NULL);
    CHECK_HAS(e.msg, msg);
    free(out);
}

/* ---- scenario sanity: what the goldens rely on ---- */

static void test_scenario(void)
{
    struct sched *s = default_scenario();
    CHECK_EQ(sched_nrunning(s), 3);
    CHECK_EQ(sched_nidle(s), 3);
    struct job *j3 = sched_find_job(s, "3"), *j4 = sched_find_job(s, "4");
    CHECK(j3 && j3->state == JOB_IDLE && j3->resv_start == 3600);
    CHECK(j3 && sched_job_wait(s, j3) == WAIT_RESERVED);
    CHECK(j4 && j4->state == JOB_RUNNING && (j4->flags & JOB_BACKFILLED));
    CHECK(sched_job_wait(s, sched_find_job(s, "5")) == WAIT_DELAYS);
    CHECK(sched_job_wait(s, sched_find_job(s, "6")) == WAIT_RESOURCES);
    sched_destroy(s);
}

/* ---- showq ---- */

static void test_showq(void)
{
    struct sched *s = default_scenario();
    check_golden(s, "showq", "showq.txt");
    check_golden(s, "showq -r", "showq_r.txt");
    check_golden(s, "showq -i", "showq_i.txt");
    check_golden(s, "showq -b", "showq_b.txt");
    check_golden(s, "showq --format=json", "showq.json");
    check_golden(s, "showq -i --format json", "showq_i.json");
    sched_destroy(s);
}

/* Blocked jobs leave IDLE JOBS for BLOCKED JOBS (state Idle, as Maui shows
 * a policy-blocked job), showq -b gives their reasons, -i only the eligible
 * jobs. */
static void test_showq_blocked(void)
{
    struct sched *s = blocked_scenario();
    CHECK_EQ(sched_count_idle(s, 0), 1);
    CHECK_EQ(sched_count_idle(s, 1), 2);
    check_golden(s, "showq", "showq_blocked.txt");
    check_golden(s, "showq -b", "showq_b_blocked.txt");
    check_golden(s, "showq -i", "showq_i_blocked.txt");
    check_golden(s, "showq --format=json", "showq_blocked.json");
    check_golden(s, "showq -b --format=json", "showq_b_blocked.json");
    struct err e;
    char *out = run(s, NULL, "showq", &e);
    CHECK_HAS(out, "\n1 Idle Job \n");
    CHECK_HAS(out, "Total Jobs: 6   Active Jobs: 3   Idle Jobs: 1   Blocked Jobs: 2\n");
    free(out);
    out = run(s, NULL, "showq -i", &e);
    CHECK(out && !strstr(out, "erin") && !strstr(out, "frank"));
    CHECK_HAS(out, "Jobs: 1  Total Backlog:  6.00 ProcHours  (0.75 Hours)");
    free(out);
    sched_destroy(s);
}

/* The JSON of the default view has exactly the agreed keys. */
static void check_keys(json_t *o, const char *const *keys, size_t n)
{
    CHECK(json_is_object(o));
    CHECK_EQ(json_object_size(o), n);
    for (size_t i = 0; i < n; i++)
        if (!json_object_get(o, keys[i])) {
            fprintf(stderr, "missing key '%s'\n", keys[i]);
            CHECK(0);
        }
}

static double cap_at(double v, double cap)
{
    return cap > 0 && v > cap ? cap : v;
}

/* The priority as the web view recomputes it from diagnose -p's JSON alone
 * (the table's "weights" and the job's factors, weights and system
 * priority): it must be the engine's. */
static double priority_from_json(json_t *weights, json_t *job)
{
    json_t *comps = json_object_get(weights, "components");
    json_t *facts = json_object_get(weights, "factors");
    json_t *jw = json_object_get(job, "weights"), *jf = json_object_get(job, "factors");
    double total = 0;
    const char *cname;
    json_t *c;
    json_object_foreach(comps, cname, c)
    {
        double cw = json_number_value(json_object_get(c, "weight")), sum = 0;
        if (strcmp(cname, "usage") == 0 || cw == 0)
            continue;
        const char *fname;
        json_t *f;
        json_object_foreach(facts, fname, f)
        {
            double w = json_number_value(json_object_get(jw, fname));
            if (strcmp(json_string_value(json_object_get(f, "component")), cname) != 0 || w == 0)
                continue;
            sum += w * cap_at(json_number_value(json_object_get(jf, fname)),
                              json_number_value(json_object_get(f, "cap")));
        }
        total += cw * cap_at(sum, json_number_value(json_object_get(c, "cap")));
    }
    double floor = json_number_value(json_object_get(weights, "floor"));
    double clip = json_number_value(json_object_get(weights, "clip"));
    total = total < floor ? floor : total > clip ? clip : total;
    json_t *sp = json_object_get(job, "sysprio");
    if (json_is_object(sp)) {
        double v = json_number_value(json_object_get(sp, "value"));
        total = strcmp(json_string_value(json_object_get(sp, "mode")), "absolute") == 0 ? clip + v
                                                                                        : total + v;
    }
    return total;
}

static void test_showq_json_shape(void)
{
    static const char *const root_keys[] = {"active", "idle", "blocked", "summary", "zone"};
    static const char *const active_keys[] = {"id",    "user",  "group",     "account",
                                              "class", "qos",   "state",     "procs",
                                              "name",  "nodes", "remaining", "start"};
    static const char *const idle_keys[] = {"id",    "user",    "group",     "account",
                                            "class", "qos",     "state",     "procs",
                                            "name",  "wclimit", "queuetime", "priority"};
    static const char *const blocked_keys[] = {"id",    "user",    "group",     "account",
                                               "class", "qos",     "state",     "procs",
                                               "name",  "wclimit", "queuetime", "reason"};
    static const char *const summary_keys[] = {"total", "active", "idle", "blocked"};
    struct sched *s = blocked_scenario();
    struct err e;
    char *out = run(s, NULL, "showq --format=json", &e);
    json_t *root = out ? json_loads(out, 0, NULL) : NULL;
    check_keys(root, root_keys, 5);
    /* A replay's clock: UTC. */
    CHECK_STR(json_string_value(json_object_get(json_object_get(root, "zone"), "name")), "UTC");
    json_t *a = json_object_get(root, "active"), *i = json_object_get(root, "idle"),
           *b = json_object_get(root, "blocked"), *sum = json_object_get(root, "summary");
    CHECK_EQ(json_array_size(a), 3);
    CHECK_EQ(json_array_size(i), 1);
    CHECK_EQ(json_array_size(b), 2);
    for (size_t k = 0; k < json_array_size(a); k++)
        check_keys(json_array_get(a, k), active_keys, 12);
    for (size_t k = 0; k < json_array_size(i); k++)
        check_keys(json_array_get(i, k), idle_keys, 12);
    for (size_t k = 0; k < json_array_size(b); k++)
        check_keys(json_array_get(b, k), blocked_keys, 12);
    check_keys(sum, summary_keys, 4);
    CHECK(json_integer_value(json_object_get(sum, "total")) == 6);
    CHECK(json_integer_value(json_object_get(sum, "active")) == 3);
    CHECK(json_integer_value(json_object_get(sum, "idle")) == 1);
    CHECK(json_integer_value(json_object_get(sum, "blocked")) == 2);
    json_t *b0 = json_array_get(b, 0);
    CHECK_STR(json_string_value(json_object_get(b0, "id")), "5");
    CHECK_STR(json_string_value(json_object_get(b0, "state")), "Idle");
    CHECK_STR(json_string_value(json_object_get(b0, "reason")), WHY5);
    CHECK(json_integer_value(json_object_get(b0, "procs")) == 1);
    CHECK(json_integer_value(json_object_get(b0, "wclimit")) == 10800);
    CHECK(json_integer_value(json_object_get(b0, "queuetime")) == EPOCH + 900);
    json_t *a0 = json_array_get(a, 0);
    CHECK_STR(json_string_value(json_object_get(a0, "id")), "4");
    CHECK(json_integer_value(json_object_get(a0, "remaining")) == 1500);
    CHECK(json_integer_value(json_object_get(a0, "start")) == EPOCH + 1200);
    CHECK(json_is_number(json_object_get(json_array_get(i, 0), "priority")));
    /* The nodes a running job holds (the web view's queue), each once; no
     * name without a driver that keeps one. */
    json_t *nodes = json_object_get(a0, "nodes");
    CHECK(json_is_array(nodes) && json_array_size(nodes) >= 1);
    struct job *j4 = sched_find_job(s, "4");
    CHECK(j4 && j4->nslots > 0);
    if (j4 && j4->nslots > 0)
        CHECK_STR(json_string_value(json_array_get(nodes, 0)),
                  sched_node(s, j4->slots[0].node)->name);
    CHECK(json_is_null(json_object_get(a0, "name")));
    json_decref(root);
    free(out);
    /* An ordinary user sees where their own jobs run, not others' (as qstat -n). */
    struct cmd_ctx c = {
        .s = s, .now = NOW, .epoch_offset = EPOCH, .ordinary = 1, .user = "nobody-here"};
    CHECK(cmd_run(&c, "showq --format=json", &out, &e) == 0);
    root = out ? json_loads(out, 0, NULL) : NULL;
    a0 = json_array_get(json_object_get(root, "active"), 0);
    CHECK(json_is_null(json_object_get(a0, "nodes")));
    json_decref(root);
    free(out);
    c.user = j4 ? j4->user->name : "";
    CHECK(cmd_run(&c, "showq --format=json", &out, &e) == 0);
    root = out ? json_loads(out, 0, NULL) : NULL;
    a0 = json_array_get(json_object_get(root, "active"), 0);
    CHECK(json_is_array(json_object_get(a0, "nodes")));
    json_decref(root);
    free(out);
    sched_destroy(s);
}

/* An empty cluster: every section empty, no division by zero. */
static void test_showq_empty(void)
{
    struct sched_policy pol;
    sched_policy_default(&pol);
    struct sched *s = sched_create(&pol, NULL);
    struct err e;
    char *out = run(s, NULL, "showq", &e);
    CHECK_HAS(out, "     0 Active Jobs       0 of    0 Processors Active (0.00%)\n");
    CHECK_HAS(out, "\n0 Idle Jobs\n");
    CHECK_HAS(out, "Total Jobs: 0   Active Jobs: 0   Idle Jobs: 0   Blocked Jobs: 0\n");
    free(out);
    out = run(s, NULL, "showq -i", &e);
    CHECK_HAS(out, "Jobs: 0  Total Backlog:  0.00 ProcHours  (0.00 Hours)");
    free(out);
    out = run(s, NULL, "showq -r", &e);
    CHECK_HAS(out, "  0 Jobs       0 of     0 Processors Active (0.00%)");
    free(out);
    sched_destroy(s);
}

/* ---- checkjob ---- */

static void test_checkjob(void)
{
    struct sched *s = default_scenario();
    check_golden(s, "checkjob 1", "checkjob_1.txt");
    check_golden(s, "checkjob 3", "checkjob_3.txt");
    check_golden(s, "checkjob 4", "checkjob_4.txt");
    check_golden(s, "checkjob 3 --format=json", "checkjob_3.json");
    check_golden(s, "checkjob --format=json 4", "checkjob_4.json");
    sched_destroy(s);
}

/* Every wait reason reaches the user in text and JSON. */
static void test_checkjob_reasons(void)
{
    struct sched *s = default_scenario();
    struct err e;
    char *out = run(s, NULL, "checkjob 5", &e);
    CHECK_HAS(out, "job cannot run  (starting now would delay a higher-priority reservation)\n");
    free(out);
    out = run(s, NULL, "checkjob 6", &e);
    CHECK_HAS(out, "job cannot run  (insufficient idle processors)\n");
    CHECK_HAS(out, "NodeCount: 1\n");
    free(out);
    out = run(s, NULL, "checkjob 3", &e);
    CHECK_HAS(out, "job cannot run  (reserved to start at Mon Jan  1 01:00:00)\n");
    free(out);
    out = run(s, NULL, "checkjob 1 --format=json", &e);
    json_t *o = out ? json_loads(out, 0, NULL) : NULL;
    CHECK(o && json_is_null(json_object_get(o, "reason")));
    CHECK(o && json_integer_value(json_object_get(o, "start")) == EPOCH);
    json_decref(o);
    free(out);
    out = run(s, NULL, "checkjob 6 --format=json", &e);
    o = out ? json_loads(out, 0, NULL) : NULL;
    CHECK(o && json_is_null(json_object_get(o, "start")));
    CHECK_STR(o ? json_string_value(json_object_get(o, "reason")) : NULL,
              "insufficient idle processors");
    json_decref(o);
    free(out);
    sched_destroy(s);

    /* BACKFILLPOLICY NONE: behind a waiting job nothing is considered. */
    struct sched_policy pol;
    sched_policy_default(&pol);
    pol.backfill = BF_NONE;
    s = scenario(&pol);
    out = run(s, NULL, "checkjob 4", &e);
    CHECK_HAS(out, "State: Idle\n");
    CHECK_HAS(out, "job cannot run  (a higher-priority job is waiting (BACKFILLPOLICY NONE))\n");
    free(out);
    sched_destroy(s);
}

/* A blocked job's reason is its blocked text, in text and JSON. */
static void test_checkjob_blocked(void)
{
    struct sched *s = blocked_scenario();
    check_golden(s, "checkjob 5", "checkjob_5_blocked.txt");
    check_golden(s, "checkjob 5 --format=json", "checkjob_5_blocked.json");
    struct err e;
    char *out = run(s, NULL, "checkjob 6", &e);
    CHECK_HAS(out, "job cannot run  (" WHY6 ")\n");
    CHECK(out && !strstr(out, "insufficient idle processors"));
    free(out);
    /* Not blocked: the plan's reason as before. */
    out = run(s, NULL, "checkjob 3", &e);
    CHECK_HAS(out, "job cannot run  (reserved to start at Mon Jan  1 01:00:00)\n");
    free(out);
    sched_destroy(s);
}

/* A job that ended is shown as Completed, with what it used. */
static void test_checkjob_completed(void)
{
    struct sched *s = default_scenario();
    struct job *j1 = sched_find_job(s, "1");
    sched_job_ended(s, j1, 1400);
    struct err e;
    char *out = run(s, NULL, "checkjob 1", &e);
    CHECK_HAS(out, "State: Completed\n");
    CHECK_HAS(out, "WallTime: 00:23:20 of 1:00:00\n");
    CHECK(out && !strstr(out, "job cannot run"));
    free(out);
    out = run(s, NULL, "checkjob 1 --format=json", &e);
    json_t *o = out ? json_loads(out, 0, NULL) : NULL;
    CHECK(o && json_integer_value(json_object_get(o, "end")) == EPOCH + 1400);
    CHECK(o && json_is_null(json_object_get(o, "reason")));
    json_decref(o);
    free(out);
    sched_destroy(s);
}

/* ---- diagnose -p ---- */

static void test_diagnose(void)
{
    struct sched *s = default_scenario();
    check_golden(s, "diagnose -p", "diagnose_p.txt");
    sched_destroy(s);
}

/* diagnose -p leaves blocked jobs out; -q lists them with their reasons. */
static void test_diagnose_blocked(void)
{
    struct sched *s = blocked_scenario();
    check_golden(s, "diagnose -p", "diagnose_p_blocked.txt");
    check_golden(s, "diagnose -q", "diagnose_q.txt");
    check_golden(s, "diagnose -q --format=json", "diagnose_q.json");
    struct err e;
    char *out = run(s, NULL, "diagnose -p --format=json", &e);
    json_t *root = out ? json_loads(out, 0, NULL) : NULL;
    json_t *jobs = json_object_get(root, "jobs");
    CHECK_EQ(json_array_size(jobs), 1);
    CHECK_STR(json_string_value(json_object_get(json_array_get(jobs, 0), "id")), "3");
    json_decref(root);
    free(out);
    out = run(s, NULL, "diagnose -q --format=json", &e);
    root = out ? json_loads(out, 0, NULL) : NULL;
    jobs = json_object_get(root, "jobs");
    CHECK_EQ(json_object_size(root), 1);
    CHECK_EQ(json_array_size(jobs), 2);
    for (size_t i = 0; i < json_array_size(jobs); i++)
        CHECK_EQ(json_object_size(json_array_get(jobs, i)), 2);
    CHECK_STR(json_string_value(json_object_get(json_array_get(jobs, 1), "id")), "6");
    CHECK_STR(json_string_value(json_object_get(json_array_get(jobs, 1), "reason")), WHY6);
    json_decref(root);
    free(out);

    /* A reason that does not name the job is printed after it, as Maui
     * prints its other findings; showq -b shows it whole. */
    block(s, "6", "exceeds available partition procs");
    out = run(s, NULL, "diagnose -q", &e);
    CHECK_HAS(out, "\njob 6                    exceeds available partition procs\n");
    free(out);
    out = run(s, NULL, "showq -b", &e);
    CHECK_HAS(out, "\n                 6     frank exceeds available partition procs\n");
    free(out);
    sched_destroy(s);

    /* Nothing blocked. */
    s = default_scenario();
    out = run(s, NULL, "diagnose -q", &e);
    CHECK_STR(out, "Diagnosing blocked jobs (policylevel SOFT  partition ALL)\n\n"
                   "no blocked jobs found\n");
    free(out);
    out = run(s, NULL, "diagnose -q --format=json", &e);
    CHECK_STR(out, "{\n  \"jobs\": []\n}\n");
    free(out);
    sched_destroy(s);
}

/* Only "job <its own name> " is taken off a reason. */
static void test_reason_tail(void)
{
    struct job j = {.name = "5"};
    CHECK_STR(cmd_reason_tail(&j, "job 5 violates x"), "violates x");
    CHECK_STR(cmd_reason_tail(&j, "job 55 violates x"), "job 55 violates x");
    CHECK_STR(cmd_reason_tail(&j, "job 5"), "job 5");
    CHECK_STR(cmd_reason_tail(&j, "job 5 "), "job 5 ");
    CHECK_STR(cmd_reason_tail(&j, "jobs 5 x"), "jobs 5 x");
    CHECK_STR(cmd_reason_tail(&j, ""), "");
}

/* The JSON carries exactly the engine's breakdown, in queue order. */
static void test_diagnose_json(void)
{
    static const char *const comps[] = {"cred", "fs", "attr", "serv", "targ", "res", "usage"};
    static const char *const facts[] = {"queuetime",
                                        "xfactor",
                                        "bypass",
                                        "spviolation",
                                        "user",
                                        "group",
                                        "account",
                                        "qos",
                                        "class",
                                        "fsuser",
                                        "fsgroup",
                                        "fsaccount",
                                        "fsqos",
                                        "fsclass",
                                        "node",
                                        "proc",
                                        "mem",
                                        "swap",
                                        "disk",
                                        "ps",
                                        "pe",
                                        "walltime",
                                        "targetqueuetime",
                                        "targetxfactor"};
    struct sched *s = default_scenario();
    struct err e;
    char *out = run(s, NULL, "diagnose -p --format=json", &e);
    json_t *root = out ? json_loads(out, 0, NULL) : NULL;
    json_t *jobs = json_object_get(root, "jobs");
    CHECK(json_is_array(jobs));
    CHECK_EQ(json_object_size(root), 2);
    CHECK(json_is_object(json_object_get(root, "weights")));
    size_t n;
    struct job *const *q = sched_queue(s, NOW, &n);
    CHECK_EQ(json_array_size(jobs), n);
    for (size_t i = 0; i < n && i < json_array_size(jobs); i++) {
        json_t *jo = json_array_get(jobs, i);
        struct prio_parts p;
        double prio = sched_job_priority(s, q[i], NOW, &p);
        CHECK_STR(json_string_value(json_object_get(jo, "id")), q[i]->name);
        CHECK(fabs(json_number_value(json_object_get(jo, "priority")) - prio) < 1e-9);
        json_t *jc = json_object_get(jo, "components"), *jf = json_object_get(jo, "factors");
        CHECK_EQ(json_object_size(jc), 7);
        CHECK_EQ(json_object_size(jf), 24);
        for (int c = 0; c < PRIO_NCOMP; c++) {
            json_t *v = json_object_get(jc, prio_comp_name((enum prio_comp)c));
            CHECK(json_is_number(v) && fabs(json_number_value(v) - p.comp[c]) < 1e-9);
        }
        for (size_t k = 0; k < sizeof comps / sizeof comps[0]; k++)
            CHECK(json_object_get(jc, comps[k]) != NULL);
        for (size_t k = 0; k < sizeof facts / sizeof facts[0]; k++) {
            json_t *v = json_object_get(jf, facts[k]);
            CHECK(json_is_number(v));
        }
        json_t *qt = json_object_get(jf, "queuetime");
        CHECK(fabs(json_number_value(qt) - p.factor[PF_QUEUETIME]) < 1e-9);
        json_t *pe = json_object_get(jf, "pe");
        CHECK(fabs(json_number_value(pe) - p.factor[PF_PE]) < 1e-9);
        CHECK(fabs(priority_from_json(json_object_get(root, "weights"), jo) - prio) < 1e-6);
    }
    CHECK(golden("diagnose_p.json", out));
    json_decref(root);
    free(out);
    sched_destroy(s);
}

/* The table's layout with several components, from chosen breakdowns (so it
 * does not depend on the priority function): columns only for weights in
 * use, CRED raw, the others weighted, shares, averages, the system-priority
 * mark. */
static void test_diagnose_layout(void)
{
    struct sched_policy pol;
    sched_policy_default(&pol);
    pol.prio.cweight[PRIO_CRED] = 10;
    pol.prio.fweight[PF_USER] = 2;
    pol.prio.fweight[PF_QOS] = 1;
    pol.prio.fweight[PF_XFACTOR] = 100;
    pol.prio.cweight[PRIO_RES] = 1;
    pol.prio.fweight[PF_PROC] = 5;
    pol.prio.fcap[PF_PROC] = 64;
    struct cred user = {.kind = CRED_USER, .name = "u"}, qos = {.kind = CRED_QOS, .name = "q"};
    struct job a = {.name = "job.a", .user = &user, .qos = &qos};
    struct job b = {.name = "a-rather-long-job-name",
                    .user = &user,
                    .qos = &qos,
                    .sysprio_mode = SYSPRIO_RELATIVE,
                    .sysprio = 5};
    struct cmd_prio_row rows[2] = {{.job = &a}, {.job = &b}};
    /* a: user prio 50, qos 0, 90 min queued, xfactor 1.5, 8 procs. */
    rows[0].parts.factor[PF_USER] = 50;
    rows[0].parts.factor[PF_QUEUETIME] = 90;
    rows[0].parts.factor[PF_XFACTOR] = 1.5;
    rows[0].parts.factor[PF_PROC] = 8;
    rows[0].parts.comp[PRIO_CRED] = 10 * 2 * 50;
    rows[0].parts.comp[PRIO_SERV] = 90 + 150;
    rows[0].parts.comp[PRIO_RES] = 40;
    rows[0].parts.total = 1000 + 240 + 40;
    /* b: 100 procs, capped at 64. */
    rows[1].parts.factor[PF_USER] = 50;
    rows[1].parts.factor[PF_QOS] = 3;
    rows[1].parts.factor[PF_QUEUETIME] = 10;
    rows[1].parts.factor[PF_XFACTOR] = 1.25;
    rows[1].parts.factor[PF_PROC] = 100;
    rows[1].parts.comp[PRIO_CRED] = 10 * (2 * 50 + 3);
    rows[1].parts.comp[PRIO_SERV] = 10 + 125;
    rows[1].parts.comp[PRIO_RES] = 320;
    rows[1].parts.total = 1030 + 135 + 320 + 5;
    struct cmd_buf b0 = {0};
    cmd_diag_text(&b0, &pol, 0, 0, rows, 2);
    char *text = cmd_buf_take(&b0);
    CHECK(golden("diagnose_layout.txt", text));
    free(text);

    /* No idle job. */
    cmd_diag_text(&b0, &pol, 0, 0, rows, 0);
    text = cmd_buf_take(&b0);
    CHECK_STR(text, "diagnosing job priority information (partition: ALL)\n\n"
                    "no idle jobs in queue\n");
    free(text);
}

/* The Percent Contribution line with factors of both signs (issue 30): each
 * job's make-up is of magnitudes, a component's share split among its factors
 * in proportion to theirs, so the line adds up to 100 and no factor shows
 * more than its component. Hand-computed:
 *   x: SERV = 500 - 300 = 200, RES = 40; base 240: SERV 83.33 (QT 83.33 x
 *      500/800 = 52.08, XF 31.25), RES 16.67.
 *   y: SERV = 100 - 200 = -100, RES = 100; base 200: SERV 50 (QT 16.67,
 *      XF 33.33), RES 50.
 *   averages: SERV 66.67 (QT 34.38, XF 32.29), RES 33.33 (33.33). */
static void test_diagnose_contribution_signs(void)
{
    struct sched_policy pol;
    sched_policy_default(&pol);
    pol.prio.cweight[PRIO_SERV] = 1;
    pol.prio.fweight[PF_QUEUETIME] = 1;
    pol.prio.fweight[PF_XFACTOR] = -100;
    pol.prio.cweight[PRIO_RES] = 1;
    pol.prio.fweight[PF_PROC] = 5;
    struct cred user = {.kind = CRED_USER, .name = "u"};
    struct job x = {.name = "x", .user = &user}, y = {.name = "y", .user = &user};
    struct cmd_prio_row rows[2] = {{.job = &x}, {.job = &y}};
    rows[0].parts.factor[PF_QUEUETIME] = 500;
    rows[0].parts.factor[PF_XFACTOR] = 3;
    rows[0].parts.factor[PF_PROC] = 8;
    rows[0].parts.comp[PRIO_SERV] = 200;
    rows[0].parts.comp[PRIO_RES] = 40;
    rows[0].parts.total = 240;
    rows[1].parts.factor[PF_QUEUETIME] = 100;
    rows[1].parts.factor[PF_XFACTOR] = 2;
    rows[1].parts.factor[PF_PROC] = 20;
    rows[1].parts.comp[PRIO_SERV] = -100;
    rows[1].parts.comp[PRIO_RES] = 100;
    rows[1].parts.total = 1;
    struct cmd_buf b0 = {0};
    cmd_diag_text(&b0, &pol, 0, 0, rows, 2);
    char *text = cmd_buf_take(&b0);
    /* The job rows keep the signs: the contributions, the share of y's SERV. */
    CHECK(strstr(text, "\nx                           240    83.3(500.0:-300.)  16.7( 40.0)\n") !=
          NULL);
    CHECK(strstr(text, "\ny                             1   -50.0(100.0:-200.)  50.0(100.0)\n") !=
          NULL);
    CHECK(strstr(text, "\nPercent Contribution   --------    66.7( 34.4: 32.3)  33.3( 33.3)\n") !=
          NULL);
    free(text);
}

/* ---- showconfig ---- */

static void test_showconfig(void)
{
    struct sched *s = default_scenario();
    struct cfg *cfg = cfg_create();
    struct err e;
    CHECK(cfg_load_string(cfg,
                          "BACKFILLPOLICY FIRSTFIT\nRESERVATIONDEPTH 2\n"
                          "NODECFG[n01] PROCS=4\n",
                          "t.cfg", &e) == 0);
    char *out = run(s, cfg, "showconfig", &e);
    char *want = cfg_show(cfg);
    CHECK_STR(out, want);
    free(want);
    free(out);
    out = run(s, cfg, "showconfig RESERVATIONDEPTH BACKFILLPOLICY", &e);
    CHECK_STR(out, "BACKFILLPOLICY                  FIRSTFIT\n"
                   "RESERVATIONDEPTH                2\n");
    free(out);
    out = run(s, cfg, "showconfig --format=json", &e);
    json_t *o = out ? json_loads(out, 0, NULL) : NULL;
    CHECK(json_is_object(o));
    CHECK_STR(json_string_value(json_object_get(o, "RESERVATIONDEPTH")), "2");
    CHECK_STR(json_string_value(json_object_get(o, "NODECFG[n01]")), "PROCS=4");
    CHECK(json_object_get(o, "BACKFILLPOLICY") != NULL);
    json_decref(o);
    free(out);
    /* No configuration: Maui's defaults. */
    out = run(s, NULL, "showconfig RESERVATIONDEPTH --format json", &e);
    o = out ? json_loads(out, 0, NULL) : NULL;
    CHECK_EQ(json_object_size(o), 1);
    CHECK(json_object_get(o, "RESERVATIONDEPTH") != NULL);
    json_decref(o);
    free(out);
    cfg_destroy(cfg);
    sched_destroy(s);
}

/* ---- formats ---- */

static void check_duration(long secs, const char *want)
{
    char buf[CMD_TIME_MAX];
    cmd_fmt_duration(secs, buf);
    CHECK_STR(buf, want);
}

static void test_durations(void)
{
    check_duration(0, "00:00:00");
    check_duration(59, "00:00:59");
    check_duration(1800, "00:30:00");
    check_duration(1000, "00:16:40");
    check_duration(3600, "1:00:00");
    check_duration(7199, "1:59:59");
    check_duration(36000, "10:00:00");
    check_duration(86399, "23:59:59");
    check_duration(86400, "1:00:00:00");
    check_duration(93600, "1:02:00:00");
    check_duration(8639999, "99:23:59:59");
    check_duration(8640000, "  INFINITY");
    check_duration(-25128, "-6:58:48");
    check_duration(-1800, "-00:30:00");
    check_duration(-43200, "-12:00:00");
    check_duration(-90000, "-1:01:00:00");
    check_duration(-863999, "-9:23:59:59");
    check_duration(-864000, " -INFINITY");
}

static void test_dates(void)
{
    char buf[CMD_TIME_MAX];
    struct cmd_ctx c = {.epoch_offset = 0};
    cmd_fmt_date(&c, 0, buf);
    CHECK_STR(buf, "Thu Jan  1 00:00:00");
    c.epoch_offset = EPOCH;
    cmd_fmt_date(&c, 3600 + 61, buf);
    CHECK_STR(buf, "Mon Jan  1 01:01:01");
    cmd_fmt_date(&c, 86400L * 40, buf);
    CHECK_STR(buf, "Sat Feb 10 00:00:00");
}

/* The formats are written digit by digit (issue 31: showq of 100,000
 * jobs); printf's own formats are the reference, over every branch. */
static void test_formats_as_printf(void)
{
    for (long secs = -900000; secs <= 8700000; secs += 337) {
        char got[CMD_TIME_MAX], want[CMD_TIME_MAX];
        cmd_fmt_duration(secs, got);
        long a = secs < 0 ? -secs : secs;
        long sec = a % 60, m = a / 60 % 60, hours = a / 3600, d = hours / 24, h = hours % 24;
        const char *sign = secs < 0 ? "-" : "";
        if (secs >= 8640000L)
            snprintf(want, sizeof want, "  INFINITY");
        else if (secs <= -864000L)
            snprintf(want, sizeof want, " -INFINITY");
        else if (d > 0)
            snprintf(want, sizeof want, "%s%ld:%02ld:%02ld:%02ld", sign, d, h, m, sec);
        else if (hours >= 10)
            snprintf(want, sizeof want, "%s%02ld:%02ld:%02ld", sign, h, m, sec);
        else if (hours >= 1)
            snprintf(want, sizeof want, "%s%ld:%02ld:%02ld", sign, h, m, sec);
        else
            snprintf(want, sizeof want, "%s00:%02ld:%02ld", sign, m, sec);
        CHECK_STR(got, want);
    }
    static const char *const wday[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
    static const char *const mon[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                      "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    struct cmd_ctx c = {.epoch_offset = 0};
    for (long t = 0; t < 86400L * 800; t += 86400 / 7 + 13) {
        char got[CMD_TIME_MAX], want[CMD_TIME_MAX];
        struct tm tm;
        cmd_fmt_date(&c, t, got);
        CHECK(cmd_clock_tm(t, &tm) == 0);
        snprintf(want, sizeof want, "%s %s %2d %02d:%02d:%02d", wday[tm.tm_wday], mon[tm.tm_mon],
                 tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
        CHECK_STR(got, want);
    }
    struct cmd_buf b = {0};
    const struct cmd_col cols[] = {{"ab", 5, 0}, {"cd", -4, 1}, {"toolong", 3, 2}, {"x", 0, 0}};
    cmd_buf_row(&b, cols, 4);
    cmd_buf_printf(&b, "|%300s|", "y"); /* longer than the room a printf first tries */
    char *text = cmd_buf_take(&b);
    char want[400];
    snprintf(want, sizeof want, "%5s %-4s  %3s%s\n|%300s|", "ab", "cd", "toolong", "x", "y");
    CHECK_STR(text, want);
    free(text);
}

/* ---- errors and hostile input ---- */

static void test_errors(void)
{
    struct sched *s = default_scenario();
    check_error(s, "", "empty command");
    check_error(s, " \t \n ", "empty command");
    check_error(s, "--format=json", "empty command");
    check_error(s, "frobnicate", "frobnicate: unknown command");
    check_error(s, "showq -x", "showq: unknown option '-x'");
    check_error(s, "showq -ri", "showq: unknown option '-ri'");
    check_error(s, "showq all", "showq: unexpected argument 'all'");
    check_error(s, "showq -r -i", "showq: -r, -i and -b are exclusive");
    check_error(s, "showq --format", "showq: --format needs a value");
    check_error(s, "showq --format=xml", "showq: unknown format 'xml'");
    check_error(s, "showq --format=", "showq: unknown format ''");
    check_error(s, "checkjob", "checkjob: missing job id");
    check_error(s, "checkjob --format=json", "checkjob: missing job id");
    check_error(s, "checkjob 42", "checkjob: no job '42'");
    check_error(s, "checkjob 1 2", "checkjob: one job at a time");
    check_error(s, "checkjob -z 1", "checkjob: unknown option '-z'");
    check_error(s, "diagnose", "diagnose: missing option");
    check_error(s, "diagnose -x", "diagnose: unknown option '-x'");
    check_error(s, "diagnose -p 3", "diagnose: unexpected argument '3'");
    check_error(s, "diagnose -q 3", "diagnose: unexpected argument '3'");
    check_error(s, "diagnose -p -q", "diagnose: -p and -q are exclusive");
    check_error(s, "diagnose -q -l soft", "diagnose: unknown option '-l'");
    check_error(s, "showconfig NOSUCHPARAM", "showconfig: unknown parameter 'NOSUCHPARAM'");
    check_error(s, "showconfig -v", "showconfig: unknown option '-v'");
    check_error(s, "SHOWQ", "SHOWQ: unknown command");

    struct err e;
    struct cmd_ctx c = {.s = s, .now = NOW};
    char *out = (char *)"sentinel";
    CHECK(cmd_run(&c, NULL, &out, &e) == -1);
    CHECK(out == NULL);
    CHECK_HAS(e.msg, "empty command");
    CHECK(cmd_run(&c, "showq", NULL, &e) == -1);  /* nowhere to answer */
    CHECK(cmd_run(&c, "showq", &out, NULL) == 0); /* err is optional */
    free(out);
    sched_destroy(s);
}

/* Usage errors (the words' shape: exit 2 in the daemon's clients) are told
 * from run-time ones (exit 1) by err.usage. */
static void check_class(struct sched *s, const char *line, int usage)
{
    struct err e = {0};
    e.usage = !usage; /* the command must set it either way */
    char *out = run(s, NULL, line, &e);
    CHECK(out == NULL);
    if (e.usage != usage)
        fprintf(stderr, "'%s': usage %d, not %d (%s)\n", line, e.usage, usage, e.msg);
    CHECK_EQ(e.usage, usage);
    free(out);
}

static void test_usage_class(void)
{
    struct sched *s = default_scenario();
    static const char *const usage[] = {
        "showq -x",           "showq all",  "showq -r -i",  "showq -u",       "showq --format",
        "showq --format=xml", "checkjob",   "checkjob 1 2", "checkjob -x 1",  "checknode",
        "checknode -x",       "diagnose",   "diagnose -x",  "diagnose -p -q", "showconfig -v",
        "showstats -x",       "showres -x", "showbf -x",    "showbf -d",      "showstart",
        "showstart -x 1",     "showgrid",   "showgrid -x",
    };
    static const char *const runtime[] = {
        "checkjob 42",    "checknode nosuch", "showconfig NOSUCHPARAM",
        "showres nosuch", "frobnicate",       "showgrid NOSUCHSTAT",
    };
    for (size_t i = 0; i < sizeof usage / sizeof usage[0]; i++)
        check_class(s, usage[i], 1);
    for (size_t i = 0; i < sizeof runtime / sizeof runtime[0]; i++)
        check_class(s, runtime[i], 0);
    sched_destroy(s);
}

/* Very long words are quoted clipped, never overflow anything. */
static void test_long_input(void)
{
    struct sched *s = default_scenario();
    size_t n = 200000;
    char *line = malloc(n + 32);
    memset(line, 'a', n);
    line[n] = '\0';
    struct err e;
    char *out = run(s, NULL, line, &e);
    CHECK(out == NULL);
    CHECK_HAS(e.msg, "...: unknown command");
    CHECK(strlen(e.msg) < 240); /* the clipped word and the list of commands */
    memcpy(line, "checkjob ", 9);
    out = run(s, NULL, line, &e);
    CHECK(out == NULL);
    CHECK_HAS(e.msg, "checkjob: no job 'aaaa");
    memset(line, 'a', 16);
    memcpy(line, "showq -", 7);
    out = run(s, NULL, line, &e);
    CHECK_HAS(e.msg, "showq: unknown option '-aaa");
    /* Many words. */
    for (size_t i = 0; i < n; i += 2) {
        line[i] = 'x';
        line[i + 1] = ' ';
    }
    memcpy(line, "showq ", 6);
    out = run(s, NULL, line, &e);
    CHECK_HAS(e.msg, "showq: unexpected argument 'x'");
    free(line);
    sched_destroy(s);
}

/* Names that are not UTF-8 still give valid JSON. */
static void test_json_encoding(void)
{
    struct sched *s = default_scenario();
    submit(s,
           (struct job_spec){
               .name = "caf\xe9", .tasks = 1, .walltime = 60, .submit = 1300, .user = "\xff\xfe"});
    struct err e;
    char *out = run(s, NULL, "checkjob caf\xe9 --format=json", &e);
    json_t *o = out ? json_loads(out, 0, NULL) : NULL;
    CHECK_STR(o ? json_string_value(json_object_get(o, "id")) : NULL, "caf?");
    CHECK_STR(o ? json_string_value(json_object_get(o, "user")) : NULL, "??");
    json_decref(o);
    free(out);
    const char *lines[] = {"showq --format=json", "showq -i --format=json",
                           "diagnose -p --format=json"};
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        out = run(s, NULL, lines[i], &e);
        o = out ? json_loads(out, 0, NULL) : NULL;
        CHECK(json_is_object(o));
        CHECK(out && strstr(out, "caf?"));
        json_decref(o);
        free(out);
    }
    /* A blocked job's name and reason. */
    block(s, "caf\xe9", "job caf\xe9 violates idle HARD MAXIJOB limit of 1 for user \xff\xfe");
    const char *blines[] = {"showq --format=json", "showq -b --format=json",
                            "diagnose -q --format=json", "checkjob caf\xe9 --format=json"};
    for (size_t i = 0; i < sizeof blines / sizeof blines[0]; i++) {
        out = run(s, NULL, blines[i], &e);
        o = out ? json_loads(out, 0, NULL) : NULL;
        CHECK(json_is_object(o));
        CHECK(out && strstr(out, "job caf? violates idle HARD MAXIJOB limit of 1 for user ??"));
        json_decref(o);
        free(out);
    }
    sched_destroy(s);
}

/* Random lines over the commands' vocabulary: each either answers with a
 * newline-terminated text or fails with a message, and never crashes. */
static void test_fuzz(void)
{
    static const char *const vocab[] = {"showq",
                                        "checkjob",
                                        "diagnose",
                                        "showconfig",
                                        "-r",
                                        "-i",
                                        "-b",
                                        "-p",
                                        "-q",
                                        "-x",
                                        "--format",
                                        "--format=json",
                                        "--format=text",
                                        "json",
                                        "text",
                                        "1",
                                        "3",
                                        "6",
                                        "42",
                                        "",
                                        "-",
                                        "--",
                                        "RESERVATIONDEPTH",
                                        "\t",
                                        "\xff\xfe",
                                        "%s%n%s",
                                        "checkjob\n3"};
    struct sched *s = blocked_scenario();
    unsigned seed = 12345;
    int ok = 0, failed = 0;
    for (int iter = 0; iter < 3000; iter++) {
        char line[512] = "";
        int words = (int)(seed % 5);
        for (int w = 0; w < words; w++) {
            seed = seed * 1103515245u + 12345u;
            const char *v = vocab[(seed >> 16) % (sizeof vocab / sizeof vocab[0])];
            strncat(line, v, sizeof line - strlen(line) - 2);
            strncat(line, " ", sizeof line - strlen(line) - 1);
        }
        seed = seed * 1103515245u + 12345u;
        struct err e = {{0}};
        char *out = run(s, NULL, line, &e);
        if (out) {
            ok++;
            CHECK(out[0] && out[strlen(out) - 1] == '\n');
        } else {
            failed++;
            CHECK(e.msg[0] != '\0');
        }
        free(out);
    }
    CHECK(ok > 0 && failed > 0);
    sched_destroy(s);
}

/* ---- Torque's views: qstat, pbsnodes (src/cmd/qstat.c) ---- */

/* The daemon's extra facts, as its record would give them. */
static int torque_extra(void *ctx, const struct job *j, struct cmd_job_extra *x)
{
    (void)ctx;
    *x = (struct cmd_job_extra){.name = strcmp(j->name, "3") == 0 ? "a_long_job_name_cut" : NULL,
                                .cwd = "/home/u",
                                .session = strcmp(j->name, "1") == 0 ? 4242 : 0};
    return 0;
}

static char *run_torque(struct sched *s, const char *line, struct err *e)
{
    struct cmd_ctx c = {
        .s = s, .now = NOW, .epoch_offset = EPOCH, .server = "srv", .job_extra = torque_extra};
    char *out = NULL;
    return cmd_run(&c, line, &out, e) < 0 ? NULL : out;
}

static void torque_golden(struct sched *s, const char *line, const char *file)
{
    struct err e = {{0}};
    char *out = run_torque(s, line, &e);
    if (!out)
        fprintf(stderr, "'%s' failed: %s\n", line, e.msg);
    CHECK(out != NULL);
    if (out)
        CHECK(golden(file, out));
    free(out);
}

/* Start (inclusive) and end of each run of dashes on a line. */
static int dash_columns(const char *line, int start[16], int end[16])
{
    int n = 0;
    for (int i = 0; line[i] && line[i] != '\n' && n < 16; i++)
        if (line[i] == '-' && (i == 0 || line[i - 1] == ' ')) {
            start[n] = i;
            while (line[i + 1] == '-')
                i++;
            end[n++] = i;
        }
    return n;
}

/* qsub -I: the driver's record says so; checkjob shows Maui's INTERACTIVE
 * flag, in text and JSON, for that job only. */
static int inter_extra(void *ctx, const struct job *j, struct cmd_job_extra *x)
{
    (void)ctx;
    *x = (struct cmd_job_extra){.interactive = strcmp(j->name, "1") == 0};
    return 0;
}

static void test_checkjob_interactive(void)
{
    struct sched *s = default_scenario();
    struct cmd_ctx c = {
        .s = s, .now = NOW, .epoch_offset = EPOCH, .server = "srv", .job_extra = inter_extra};
    struct err e = {{0}};
    char *out = NULL;
    CHECK(cmd_run(&c, "checkjob 1", &out, &e) == 0);
    CHECK(out && strstr(out, "\nFlags:       INTERACTIVE\n"));
    free(out);
    out = NULL;
    CHECK(cmd_run(&c, "checkjob --format=json 1", &out, &e) == 0);
    CHECK(out && strstr(out, "\"INTERACTIVE\""));
    free(out);
    out = NULL;
    CHECK(cmd_run(&c, "checkjob 2", &out, &e) == 0);
    CHECK(out && !strstr(out, "INTERACTIVE"));
    free(out);
    out = NULL;
    c.job_extra = NULL; /* no driver facts (the simulator): never interactive */
    CHECK(cmd_run(&c, "checkjob --format=json 1", &out, &e) == 0);
    CHECK(out && !strstr(out, "INTERACTIVE"));
    free(out);
    sched_destroy(s);
}

static void test_qstat(void)
{
    struct sched *s = default_scenario();
    torque_golden(s, "qstat", "qstat.txt");
    torque_golden(s, "qstat -a", "qstat_a.txt");
    torque_golden(s, "qstat -n", "qstat_n.txt");
    torque_golden(s, "qstat -f 1.srv 3", "qstat_f.txt");
    torque_golden(s, "qstat -u alice,carol", "qstat_u.txt");
    torque_golden(s, "qstat --format=json 1", "qstat_1.json");
    /* Torque 4's dashes under the alternative layout: 23 11 8 16 6 5 6 9 9 1 9. */
    struct err e = {{0}};
    char *out = run_torque(s, "qstat -a", &e);
    CHECK(out != NULL);
    if (out) {
        const char *dash = strstr(out, "\n---") + 1;
        int st[16], en[16], want[] = {23, 11, 8, 16, 6, 5, 6, 9, 9, 1, 9};
        CHECK(dash_columns(dash, st, en) == 11);
        for (int i = 0; i < 11; i++)
            CHECK(en[i] - st[i] + 1 == want[i]);
        /* Every value of a row ends at its column's end (right-aligned
         * numbers), or one before it for Torque's "-- ". */
        const char *row = strchr(dash, '\n') + 1;
        CHECK(strncmp(row, "1.srv ", 6) == 0);
        CHECK(row[en[4]] == '2' && row[en[4] - 3] == '4');    /* SessID 4242 */
        CHECK(row[en[5]] == ' ' && row[en[5] - 1] == '-');    /* NDS "-- " */
        CHECK(row[en[6]] == '4' && row[en[6] - 1] == ' ');    /* TSK 4 */
        CHECK(strncmp(row + en[8] - 7, "01:00:00", 8) == 0);  /* Req'd Time */
        CHECK(row[st[9]] == 'R');                             /* S */
        CHECK(strncmp(row + en[10] - 7, "00:25:00", 8) == 0); /* Elap Time */
        free(out);
    }
    check_error(s, "qstat 99.srv", "qstat: Unknown Job Id 99.srv");
    check_error(s, "qstat -z", "qstat: unknown option '-z'");
    sched_destroy(s);
}

static void test_pbsnodes(void)
{
    struct sched *s = default_scenario();
    torque_golden(s, "pbsnodes -a", "pbsnodes_a.txt");
    sched_node_set_state(s, 1, NODE_DRAINED, "disk broken");
    torque_golden(s, "pbsnodes n02", "pbsnodes_n02_offline.txt");
    struct err e = {{0}};
    char *out = run_torque(s, "pbsnodes -l", &e);
    CHECK(out && strcmp(out, "n02                  offline\n") == 0);
    free(out);
    check_error(s, "pbsnodes nX", "pbsnodes: Unknown node");
    sched_destroy(s);
}

static void test_torque_ids(void)
{
    char b[32];
    CHECK(strcmp(cmd_job_id("123.host", b, sizeof b), "123") == 0);
    CHECK(strcmp(cmd_job_id("123.host.example.org", b, sizeof b), "123") == 0);
    CHECK(strcmp(cmd_job_id("123", b, sizeof b), "123") == 0);
    CHECK(strcmp(cmd_job_id("n1.example", b, sizeof b), "n1.example") == 0);
    CHECK(strcmp(cmd_job_id("10.0.0.1", b, sizeof b), "10.0.0.1") == 0);
    CHECK(strcmp(cmd_job_id("12.", b, sizeof b), "12.") == 0);
    /* Torque's array ids: a task "12[3]" and the whole array "12[]". */
    CHECK(strcmp(cmd_job_id("12[3].host", b, sizeof b), "12[3]") == 0);
    CHECK(strcmp(cmd_job_id("12[].host.example.org", b, sizeof b), "12[]") == 0);
    CHECK(strcmp(cmd_job_id("12[3]", b, sizeof b), "12[3]") == 0);
    CHECK(strcmp(cmd_job_id("12[]", b, sizeof b), "12[]") == 0);
    CHECK(strcmp(cmd_job_id("12[x].host", b, sizeof b), "12[x].host") == 0);
    CHECK(strcmp(cmd_job_id("12[3.host", b, sizeof b), "12[3.host") == 0);
    CHECK(strcmp(cmd_job_id("12[3].1", b, sizeof b), "12[3].1") == 0);
    CHECK(strcmp(cmd_job_id("[3].host", b, sizeof b), "[3].host") == 0);
    char small[4];
    CHECK(strcmp(cmd_job_id("12[3].host", small, sizeof small), "12[3].host") == 0);
    struct sched *s = default_scenario();
    CHECK(cmd_find_job(s, "3.srv.example.org") == sched_find_job(s, "3"));
    CHECK(cmd_find_job(s, "99.srv") == NULL);
    struct err e = {{0}};
    char *out = run(s, NULL, "checkjob 3.srv", &e);
    CHECK(out && strstr(out, "checking job 3\n"));
    free(out);
    sched_destroy(s);
}

int main(void)
{
    TEST_RUN(test_scenario);
    TEST_RUN(test_showq);
    TEST_RUN(test_showq_blocked);
    TEST_RUN(test_showq_json_shape);
    TEST_RUN(test_showq_empty);
    TEST_RUN(test_checkjob);
    TEST_RUN(test_checkjob_reasons);
    TEST_RUN(test_checkjob_blocked);
    TEST_RUN(test_checkjob_completed);
    TEST_RUN(test_diagnose);
    TEST_RUN(test_diagnose_blocked);
    TEST_RUN(test_reason_tail);
    TEST_RUN(test_diagnose_json);
    TEST_RUN(test_diagnose_layout);
    TEST_RUN(test_diagnose_contribution_signs);
    TEST_RUN(test_showconfig);
    TEST_RUN(test_durations);
    TEST_RUN(test_dates);
    TEST_RUN(test_formats_as_printf);
    TEST_RUN(test_errors);
    TEST_RUN(test_usage_class);
    TEST_RUN(test_long_input);
    TEST_RUN(test_json_encoding);
    TEST_RUN(test_fuzz);
    TEST_RUN(test_qstat);
    TEST_RUN(test_checkjob_interactive);
    TEST_RUN(test_pbsnodes);
    TEST_RUN(test_torque_ids);
    return TEST_DONE();
}
