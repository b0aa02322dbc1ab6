/* job — see job.h. */
#include "core/job.h"

void job_request_from_spec(struct job *j, const struct job_spec *spec)
{
    j->tasks = spec->tasks;
    j->procs_per_task = spec->procs_per_task;
    j->mem_per_task = spec->mem_per_task;
    j->mem_per_node = spec->mem_per_node;
    j->exclusive = spec->exclusive != 0;
    j->max_nodes = spec->max_nodes > 0 ? spec->max_nodes : 0;
    j->swap_per_task = spec->swap_per_task;
    j->disk_per_task = spec->disk_per_task;
    j->nodes = spec->nodes;
    j->tpn = spec->tpn;
    j->walltime = spec->walltime;
}

int job_wants_mem(const struct job *j)
{
    return j->mem_per_task > 0 || j->mem_per_node != 0;
}

long job_node_mem(const struct job *j, long node_mem, long tasks)
{
    if (node_mem <= 0 || !job_wants_mem(j))
        return 0;
    long per_node = j->mem_per_node == JOB_MEM_WHOLE ? node_mem : j->mem_per_node;
    return per_node + tasks * j->mem_per_task;
}

const char *job_state_name(enum job_state s)
{
    switch (s) {
    case JOB_IDLE:
        return "Idle";
    case JOB_RUNNING:
        return "Running";
    case JOB_COMPLETED:
        return "Completed";
    case JOB_REMOVED:
        return "Removed";
    }
    return "Unknown";
}

const char *job_display_state(const struct job *j)
{
    if (j->state == JOB_IDLE && j->holds) {
        if (j->holds & HOLD_BATCH)
            return "BatchHold";
        if (j->holds & (HOLD_SYSTEM | HOLD_DEP | HOLD_SLOT))
            return "SystemHold";
        return "UserHold";
    }
    if (j->state == JOB_IDLE && j->deferred_until && !(j->flags & JOB_STARTDATE))
        return "Deferred";
    if (j->state == JOB_RUNNING && (j->flags & JOB_SUSPENDED))
        return "Suspended";
    if (j->state == JOB_RUNNING && (j->flags & JOB_STARTING))
        return "Starting"; /* Maui's state between the start and the RM's word */
    return job_state_name(j->state);
}

const struct cred *job_cred(const struct job *j, enum cred_kind k)
{
    switch (k) {
    case CRED_USER:
        return j->user;
    case CRED_GROUP:
        return j->group;
    case CRED_ACCOUNT:
        return j->account;
    case CRED_CLASS:
        return j->class_;
    default:
        return j->qos;
    }
}
