/*
 * local_ops — the local resource manager (rm/local.c) behind the
 * resource-manager table (rm/rm.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rm/local.h"
#include "rm/rm.h"
#include "util/mem.h"

static int lo_nodes(void *ctx, struct node_spec **out, size_t *n, struct err *err)
{
    (void)ctx;
    (void)err;
    static char host[256];
    int procs;
    long mem;
    local_host(&procs, &mem);
    if (gethostname(host, sizeof host - 1) != 0 || !host[0])
        strcpy(host, "localhost");
    *out = xcalloc(1, sizeof **out);
    **out = (struct node_spec){.name = host, .procs = procs, .mem = mem, .state = NODE_UP};
    *n = 1;
    return 0;
}

static int lo_start(void *ctx, const struct rm_job *j, long now, struct err *err)
{
    (void)now;
    struct local_job lj = {
        .id = j->id,
        .array_task = j->array_task,
        .name = j->name,
        .user = j->user,
        .uid = j->uid,
        .gid = j->gid,
        .script = j->script,
        .cwd = j->cwd,
        .out_path = j->out_path,
        .err_path = j->err_path,
        .env = j->env,
        .hosts = j->hosts,
        .nhosts = j->nhosts,
        .walltime = j->walltime,
        .vmem_mb = j->vmem_mb,
        .nice = j->nice,
        .interactive = j->interactive,
    };
    return local_start(ctx, &lj, err);
}

static int lo_status(void *ctx, const char *id, long now, struct rm_status *st, struct err *err)
{
    (void)now;
    struct local_status ls;
    if (local_poll(ctx, id, &ls, err) < 0)
        return -1;
    static const enum rm_state map[] = {
        [LOCAL_RUNNING] = RM_RUNNING, [LOCAL_SUSPENDED] = RM_SUSPENDED, [LOCAL_ENDED] = RM_ENDED,
        [LOCAL_LOST] = RM_LOST,       [LOCAL_UNKNOWN] = RM_UNKNOWN,     [LOCAL_NEVER] = RM_NEVER};
    *st = (struct rm_status){.state = map[ls.state], .exit_code = ls.exit_code, .end = ls.end};
    memcpy(st->reason, ls.reason, sizeof st->reason);
    st->reason[sizeof st->reason - 1] = '\0';
    snprintf(st->message, sizeof st->message, "%s", ls.message);
    /* The supervisor says "failed" only when the child could not start the
     * job's program (src/rm/supervise.c job_outcome). */
    st->never_ran = ls.state == LOCAL_ENDED && strcmp(ls.reason, "failed") == 0;
    return 0;
}

static int lo_cancel(void *ctx, const char *id, long now, struct err *err)
{
    (void)now;
    return local_cancel(ctx, id, err);
}

static int lo_suspend(void *ctx, const char *id, long now, struct err *err)
{
    (void)now;
    return local_suspend(ctx, id, err);
}

static int lo_resume(void *ctx, const char *id, long now, struct err *err)
{
    (void)now;
    return local_resume(ctx, id, err);
}

/* A local job cannot be checkpointed: requeue ends it; the driver queues
 * it again once its end is seen. */
static int lo_requeue(void *ctx, const char *id, long now, struct err *err)
{
    return lo_cancel(ctx, id, now, err);
}

static void lo_forget(void *ctx, const char *id)
{
    local_forget(ctx, id, NULL);
}

const struct rm_ops rm_local_ops = {
    .name = "local",
    .nodes = lo_nodes,
    .start = lo_start,
    .status = lo_status,
    .cancel = lo_cancel,
    .suspend = lo_suspend,
    .resume = lo_resume,
    .requeue = lo_requeue,
    .forget = lo_forget,
};
