/*
 * fuzz_cfg — maui.cfg text through the parser and its application to a
 * scheduler: policy, credentials, limits, nodes, standing reservations (and
 * their warnings), then three jobs through two iterations, as a replay
 * would. Errors are the expected outcome of most inputs; the harness looks
 * for crashes, leaks and undefined behaviour.
 */
#include <stdlib.h>
#include <string.h>

#include "cfg/cfg.h"
#include "engine/engine.h"
#include "fuzz.h"

static void run_jobs(struct sched *s)
{
    static const char *const users[] = {"alice", "bob", NULL};
    for (int i = 0; i < 3; i++) {
        char name[8] = {(char)('1' + i), 0};
        struct job_spec js = {.name = name,
                              .tasks = 1 + i,
                              .procs_per_task = 1,
                              .walltime = 600 * (i + 1),
                              .submit = 10 * i,
                              .user = users[i % 3],
                              .account = i == 1 ? "proj" : NULL};
        struct err e;
        if (sched_submit_allowed(s, &js, &e) == 0)
            sched_submit(s, &js, &e);
    }
    sched_iterate(s, 20);
    sched_iterate(s, 3600);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = '\0';
    struct cfg *cfg = cfg_create();
    struct err e;
    struct sched_policy pol;
    if (cfg_load_string(cfg, text, "maui.cfg", &e) == 0 &&
        sched_policy_from_cfg(cfg, &pol, &e) == 0) {
        struct sched *s = sched_create(&pol, NULL);
        sched_set_zone(s, 0, 0);
        if (sched_creds_from_cfg(s, cfg, &e) == 0 && sched_limits_from_cfg(s, cfg, &e) == 0 &&
            sched_add_nodes_from_cfg(s, cfg, &e) == 0 && sched_standing_from_cfg(s, cfg, &e) == 0) {
            free(sched_standing_warnings(s));
            if (sched_nnodes(s) > 0 && sched_nnodes(s) <= 4096)
                run_jobs(s);
        }
        sched_destroy(s);
    }
    cfg_destroy(cfg);
    free(text);
    return 0;
}
