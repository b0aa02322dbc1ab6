/*
 * t_rm — the resource-manager table (rm/rm.h) with its two implementations:
 * the local resource manager (a real job started, watched, cancelled
 * through the table) and the simulator's (status of a job it does not run,
 * a start for a job not in the workload, and the operations it does not
 * simulate refused with a message; its starts and ends are exercised by
 * every replay test).
 */
#include <pwd.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/engine.h"
#include "rm/local.h"
#include "rm/rm.h"
#include "sim/sim_int.h"
#include "test.h"

static const char *moku_bin(void)
{
    const char *m = getenv("MOKU");
    return m && *m ? m : "bin/moku";
}

static void test_local_table(void)
{
    char exe[4096];
    if (!realpath(moku_bin(), exe)) {
        TEST_SKIP("no moku binary at %s", moku_bin());
        return;
    }
    char dir[192];
    snprintf(dir, sizeof dir, "%s/t_rm.XXXXXX", test_tmpdir());
    CHECK(mkdtemp(dir) != NULL);
    chmod(dir, 0755);
    char spool[256], script[256];
    snprintf(spool, sizeof spool, "%s/spool", dir);
    snprintf(script, sizeof script, "%s/job.sh", dir);
    FILE *f = fopen(script, "w");
    fputs("#!/bin/sh\nsleep 30\n", f);
    fclose(f);
    chmod(script, 0755);
    struct err e;
    struct local *l = local_create(spool, exe, &e);
    CHECK(l != NULL);
    struct rm rm = {&rm_local_ops, l};
    CHECK_STR(rm.ops->name, "local");
    struct node_spec *nodes;
    size_t n;
    CHECK_EQ(rm.ops->nodes(rm.ctx, &nodes, &n, &e), 0);
    CHECK_EQ(n, 1);
    CHECK(nodes[0].procs >= 1);
    free(nodes);
    const char *hosts[] = {"h1"};
    struct passwd *pw = getpwuid(getuid());
    struct rm_job j = {.id = "7",
                       .user = pw ? pw->pw_name : "root",
                       .uid = getuid(),
                       .gid = getgid(),
                       .script = script,
                       .cwd = dir,
                       .hosts = hosts,
                       .nhosts = 1,
                       .walltime = 60};
    CHECK_EQ(rm.ops->start(rm.ctx, &j, 0, &e), 0);
    struct rm_status st;
    CHECK_EQ(rm.ops->status(rm.ctx, "7", 0, &st, &e), 0);
    CHECK_EQ(st.state, RM_RUNNING);
    CHECK_EQ(rm.ops->suspend(rm.ctx, "7", 0, &e), 0);
    CHECK_EQ(rm.ops->status(rm.ctx, "7", 0, &st, &e), 0);
    CHECK_EQ(st.state, RM_SUSPENDED);
    CHECK_EQ(rm.ops->resume(rm.ctx, "7", 0, &e), 0);
    CHECK_EQ(rm.ops->cancel(rm.ctx, "7", 0, &e), 0);
    for (int i = 0; i < 100; i++) {
        rm.ops->status(rm.ctx, "7", 0, &st, &e);
        if (st.state == RM_ENDED)
            break;
        usleep(50000);
    }
    CHECK_EQ(st.state, RM_ENDED);
    CHECK_STR(st.reason, "cancelled");
    rm.ops->forget(rm.ctx, "7");
    CHECK_EQ(rm.ops->status(rm.ctx, "7", 0, &st, &e), 0);
    CHECK_EQ(st.state, RM_UNKNOWN);
    CHECK_EQ(rm.ops->cancel(rm.ctx, "8", 0, &e), -1);
    local_destroy(l);
    unlink(script);
    rmdir(spool);
    rmdir(dir);
}

static void test_sim_table(void)
{
    struct sched *s = sched_create(NULL, NULL);
    struct node_spec ns = {.name = "n", .procs = 4, .state = NODE_UP};
    sched_add_node(s, &ns, NULL);
    struct wl_job wj = {
        .id = 1, .runtime_lo = 100, .walltime_lo = 50, .tasks = 1, .procs_per_task = 1};
    struct workload wl = {.jobs = &wj, .njobs = 1};
    struct sim_outcome out = {.start = -1, .end = -1};
    struct sim sim = {.s = s, .wl = &wl, .out = &out};
    runtab_init(&sim.runs);
    heap_init(&sim.ends, offsetof(struct run, pos));
    sim.rm = (struct rm){&sim_rm_ops, &sim};
    struct job_spec spec = {.name = "1", .tasks = 1, .procs_per_task = 1, .walltime = 50};
    struct job *j = sched_submit(s, &spec, NULL);
    runtab_get(&sim.runs, 0)->job = j; /* held, not in the ends heap */
    struct rm_job rj = {.id = "1", .tag = 0, .walltime = 50};
    struct err e;
    struct rm_status st;
    CHECK_EQ(sim.rm.ops->status(sim.rm.ctx, "1", 0, &st, &e), 0);
    CHECK_EQ(st.state, RM_UNKNOWN);
    CHECK_EQ(sim.rm.ops->suspend(sim.rm.ctx, "1", 0, &e), -1);
    CHECK_HAS(e.msg, "not simulated");
    rj.tag = 5;
    CHECK_EQ(sim.rm.ops->start(sim.rm.ctx, &rj, 0, &e), -1);
    CHECK_STR(sim.rm.ops->name, "simulator");
    CHECK(sim.rm.ops->nodes == NULL);
    heap_free(&sim.ends);
    runtab_free(&sim.runs);
    sched_destroy(s);
}

int main(void)
{
    TEST_RUN(test_local_table);
    TEST_RUN(test_sim_table);
    return TEST_DONE();
}
