/* slurm_intake — the queue as moku takes it in, and Slurm's reservations
 * (slurm_int.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rm/slurm_int.h"
#include "util/idname.h"
#include "util/mem.h"

/* word stands alone in text (between spaces or the ends). */
int srm_has_word(const char *text, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = text; p && (p = strstr(p, word)); p += n)
        if ((p == text || p[-1] == ' ') && (p[n] == '\0' || p[n] == ' '))
            return 1;
    return 0;
}

/* ---- dependencies ----
 * While a job is held, slurmctld does not evaluate its dependencies (its
 * scheduler skips held jobs): moku does, from the queue it reads. */

/* Whether dependency kind on job x stands: 1 satisfied, 0 not yet, -1
 * never. A job no longer in the queue (purged after MinJobAge) counts as
 * satisfied, as it ended long ago. */
static int dep_one(const slurm_job_info_t *x, const char *kind)
{
    if (!x)
        return 1;
    uint32_t base = x->job_state & JOB_STATE_BASE;
    int ended = base >= JOB_COMPLETE;
    int ok = base == JOB_COMPLETE && x->exit_code == 0;
    if (strcmp(kind, "after") == 0)
        return base != JOB_PENDING;
    if (strcmp(kind, "afterany") == 0)
        return ended;
    if (strcmp(kind, "afterok") == 0)
        return !ended ? 0 : ok ? 1 : -1;
    /* afternotok */
    return !ended ? 0 : ok ? -1 : 1;
}

/* "afterok:12(unfulfilled),afterany:13:14" (all) or with '?' (any). */
static enum rm_dep dep_state(struct slurm_rm *sr, const char *text)
{
    if (!text || !*text || strcmp(text, "(null)") == 0)
        return RM_DEP_NONE;
    int any = strchr(text, '?') != NULL;
    int sat = 0, wait = 0, never = 0;
    char *buf = xstrdup(text), *save = NULL;
    for (char *item = strtok_r(buf, any ? "?" : ",", &save); item;
         item = strtok_r(NULL, any ? "?" : ",", &save)) {
        char *paren = strchr(item, '(');
        if (paren)
            *paren = '\0';
        char *colon = strchr(item, ':');
        if (!colon) {
            free(buf);
            return RM_DEP_UNKNOWN;
        }
        *colon = '\0';
        const char *kind = item;
        if (strcmp(kind, "after") && strcmp(kind, "afterany") && strcmp(kind, "afterok") &&
            strcmp(kind, "afternotok")) {
            free(buf);
            return RM_DEP_UNKNOWN;
        }
        char *save2 = NULL;
        for (char *id = strtok_r(colon + 1, ":", &save2); id; id = strtok_r(NULL, ":", &save2)) {
            char *end;
            unsigned long v = strtoul(id, &end, 10);
            /* after:ID+minutes (a delay after the start) is read as after. */
            if (end == id || (*end && *end != '+')) {
                free(buf);
                return RM_DEP_UNKNOWN; /* an array task (12_3, 12_*) */
            }
            int r = dep_one(srm_find_job(sr, (uint32_t)v), kind);
            sat += r > 0;
            wait += r == 0;
            never += r < 0;
        }
    }
    free(buf);
    if (any)
        return sat ? RM_DEP_NONE : wait ? RM_DEP_WAIT : RM_DEP_NEVER;
    return never ? RM_DEP_NEVER : wait ? RM_DEP_WAIT : RM_DEP_NONE;
}

/* A job's required features for moku: its constraint ("a&b", "a,b": all of
 * them; an OR, "a|b", is kept as written and no node has it: the job waits,
 * blocked, saying so) and partition=P for its partition (one: a job that
 * may go to several is not restricted). Caller frees; NULL = none. */
static char *job_features(const slurm_job_info_t *x)
{
    char *out = xstrdup(x->features ? x->features : "");
    for (char *p = out; *p; p++)
        if (*p == '&')
            *p = ',';
    if (x->partition && *x->partition && !strchr(x->partition, ',')) {
        char *more = xprintf("%s%s" SRM_PART_FEATURE "%s", out, *out ? "," : "", x->partition);
        free(out);
        out = more;
    }
    if (!*out) {
        free(out);
        return NULL;
    }
    return out;
}

/* Slurm's "unset" values of a 16-bit field. */
static int set16(uint16_t v)
{
    return v != 0 && v != NO_VAL16 && v != INFINITE16;
}

/* Memory as Slurm books it (SelectTypeParameters CR_*_Memory; otherwise
 * none is booked): --mem-per-cpu for each of a task's processors, --mem
 * for each node, nothing asked (and no DefMemPerCPU) the whole node's. */
static void memory_of(const struct slurm_rm *sr, const slurm_job_info_t *x, struct rm_new_job *j)
{
    uint64_t m = x->pn_min_memory;
    if (!sr->mem_tracked)
        return;
    if (m == NO_VAL64 || m == 0)
        j->mem_per_node = -1; /* Slurm's all of the node */
    else if (m & MEM_PER_CPU)
        j->mem_per_task = (long)(m & ~MEM_PER_CPU) * j->cpus_per_task;
    else
        j->mem_per_node = (long)m;
}

/* Partition p of the last read, or NULL. */
static const partition_info_t *part_of(const struct slurm_rm *sr, const char *name)
{
    for (uint32_t i = 0; sr->parts && name && i < sr->parts->record_count; i++)
        if (sr->parts->partition_array[i].name &&
            strcmp(sr->parts->partition_array[i].name, name) == 0)
            return &sr->parts->partition_array[i];
    return NULL;
}

static void minutes_text(uint32_t m, char *buf, size_t n)
{
    if (m == INFINITE)
        snprintf(buf, n, "UNLIMITED");
    else
        snprintf(buf, n, "%u:%02u:00", m / 60, m % 60);
}

/* Why Slurm would not run x in its partition as it is now (its limits:
 * EnforcePartLimits=NO takes such a job and leaves it pending), into buf;
 * NULL when nothing does. A job of several partitions is Slurm's to fit. */
static const char *part_limit(const struct slurm_rm *sr, const slurm_job_info_t *x, char *buf,
                              size_t n)
{
    if (!x->partition || strchr(x->partition, ','))
        return NULL;
    const partition_info_t *p = part_of(sr, x->partition);
    if (!p)
        return NULL;
    char a[32], b[32];
    if (x->time_limit != NO_VAL && x->time_limit != INFINITE && p->max_time != INFINITE &&
        p->max_time != NO_VAL && x->time_limit > p->max_time) {
        minutes_text(p->max_time, a, sizeof a);
        minutes_text(x->time_limit, b, sizeof b);
        snprintf(buf, n,
                 "partition %s allows %s, the job asks for %s (PartitionTimeLimit); "
                 "shorten it (scontrol update JobId=%u TimeLimit=...)",
                 p->name, a, b, x->job_id);
    } else if (p->max_nodes != INFINITE && p->max_nodes != NO_VAL && x->num_nodes > p->max_nodes) {
        snprintf(buf, n, "partition %s allows %u nodes, the job asks for %u (PartitionNodeLimit)",
                 p->name, p->max_nodes, x->num_nodes);
    } else if (x->max_nodes > 0 && x->max_nodes != NO_VAL && p->min_nodes > x->max_nodes) {
        snprintf(buf, n,
                 "partition %s needs %u nodes at least, the job allows %u "
                 "(PartitionNodeLimit)",
                 p->name, p->min_nodes, x->max_nodes);
    } else if (!(p->state_up & PARTITION_SCHED)) {
        snprintf(buf, n, "partition %s is %s (%s)", p->name,
                 p->state_up == PARTITION_INACTIVE ? "INACTIVE" : "DOWN",
                 p->state_up == PARTITION_INACTIVE ? "PartitionInactive" : "PartitionDown");
    } else {
        return NULL;
    }
    return buf;
}

/* Nodes x may span at most: its own limit and its partition's MaxNodes. */
static int max_nodes_of(const struct slurm_rm *sr, const slurm_job_info_t *x)
{
    uint32_t m = x->max_nodes > 0 && x->max_nodes != NO_VAL ? x->max_nodes : 0;
    const partition_info_t *p = part_of(sr, x->partition);
    if (p && p->max_nodes != INFINITE && p->max_nodes != NO_VAL && (!m || p->max_nodes < m))
        m = p->max_nodes;
    return (int)m;
}

/* Whole nodes: --exclusive (or --exclusive=user, kept off others' jobs the
 * same way), a partition of OverSubscribe=EXCLUSIVE, select/linear. */
static int exclusive_of(const struct slurm_rm *sr, const slurm_job_info_t *x)
{
    const partition_info_t *p = part_of(sr, x->partition);
    return sr->whole_nodes || x->shared == JOB_SHARED_NONE || x->shared == JOB_SHARED_USER ||
           x->shared == JOB_SHARED_MCS || (p && (p->max_share & ~SHARED_FORCE) == 0);
}

static char **hosts_of(struct slurm_rm *sr, const char *list, size_t *n);

/* A job's required nodes as moku's host list ("n1:2,n2:2", caller frees),
 * when Slurm will put the same number of its tasks on each (one node, or
 * ntasks-per-node that many: sbatch --nodelist with -N and
 * --ntasks-per-node, as moku submits a host list); else NULL, and moku
 * places the job by its counts as before. */
static char *req_hosts(struct slurm_rm *sr, const slurm_job_info_t *x, int tasks, int tpn)
{
    if (!x->req_nodes || !*x->req_nodes)
        return NULL;
    size_t n;
    char **names = hosts_of(sr, x->req_nodes, &n), *out = NULL;
    if (n > 0 && (size_t)x->num_nodes == n && tasks % (int)n == 0 &&
        (n == 1 || tpn == tasks / (int)n))
        for (size_t i = 0; i < n; i++) {
            char *more =
                xprintf("%s%s%s:%d", out ? out : "", i ? "," : "", names[i], tasks / (int)n);
            free(out);
            out = more;
        }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return out;
}

static void new_job(struct slurm_rm *sr, const slurm_job_info_t *x, struct rm_new_job *j,
                    char *user, char *group, char *features, size_t n, char *why, size_t nwhy)
{
    int cpt = set16(x->cpus_per_task) ? x->cpus_per_task : 1;
    int tasks = x->num_tasks > 0 && x->num_tasks != NO_VAL ? (int)x->num_tasks
                                                           : (int)(x->num_cpus / (uint32_t)cpt);
    if (tasks < 1)
        tasks = 1;
    int tpn = set16(x->ntasks_per_node) && tasks % x->ntasks_per_node == 0 ? x->ntasks_per_node : 0;
    *j = (struct rm_new_job){
        .id = (long)x->job_id,
        .name = x->name,
        .user = idname_user(x->user_id, user, n),
        .group = idname_group(x->group_id, group, n),
        .uid = (long)x->user_id,
        .gid = (long)x->group_id,
        .account = x->account && *x->account ? x->account : NULL,
        .class_ = x->partition && *x->partition ? x->partition : NULL,
        .qos = x->qos && *x->qos && strcmp(x->qos, "normal") != 0 ? x->qos : NULL,
        .features = features,
        .tasks = tasks,
        .cpus_per_task = cpt,
        .tpn = tpn,
        .nodes = x->max_nodes > 0 && x->max_nodes == x->num_nodes ? (int)x->num_nodes : 0,
        .max_nodes = max_nodes_of(sr, x),
        .exclusive = exclusive_of(sr, x),
        .walltime =
            x->time_limit == INFINITE || x->time_limit == NO_VAL ? 0 : (long)x->time_limit * 60,
        .submit = (long)x->submit_time,
        .start_after = x->eligible_time > x->submit_time ? (long)x->eligible_time : 0,
        .holds = x->priority == 0 ? srm_holds_of(x) : 0,
        .release_asked = x->admin_comment && strcmp(x->admin_comment, SRM_ADMIN_RELEASE) == 0,
        .note = x->admin_comment && *x->admin_comment && strcmp(x->admin_comment, SRM_NO_NOTE)
                    ? x->admin_comment
                    : NULL,
        .blocked = part_limit(sr, x, why, nwhy),
        .array = x->array_job_id && x->array_task_id != NO_VAL ? (long)x->array_job_id : 0,
        .array_task = x->array_task_id,
        .array_slots = x->array_job_id && x->array_max_tasks != NO_VAL ? x->array_max_tasks : 0,
        .resv = x->resv_name && *x->resv_name ? x->resv_name : NULL,
        .dep = dep_state(sr, x->dependency),
        .dep_text = x->dependency && *x->dependency ? x->dependency : NULL,
        .hosts = req_hosts(sr, x, tasks, tpn), /* the caller frees it */
    };
    memory_of(sr, x, j);
}

/* Job arrays: Slurm keeps the tasks not yet split off as one pending
 * record ("0-99:2%4" in array_task_str). Any update of task A_i splits it
 * into a job of its own; holding each one (priority 0, as it is) does it,
 * and the next read of the queue has every task as a job, taken in as any
 * other. At most ARRAY_SPLIT_MAX tasks an iteration, so a huge array costs
 * a few iterations rather than one long one. */
#define ARRAY_SPLIT_MAX 256

static int split_task(struct slurm_rm *sr, uint32_t array, unsigned long task)
{
    char id[48];
    snprintf(id, sizeof id, "%u_%lu", array, task);
    job_desc_msg_t d;
    slurm_init_job_desc_msg(&d);
    d.job_id_str = id;
    d.priority = 0;
    d.alloc_sid = ALLOC_SID_USER_HOLD; /* moku's queue, not an administrator's hold */
    d.req_nodes = "";
    job_array_resp_msg_t *resp = NULL;
    int rc = slurm_update_job2(&d, &resp);
    if (resp)
        slurm_free_job_array_resp(resp);
    sr->stale = 1;
    return rc == SLURM_SUCCESS ? 0 : -1;
}

/* Split the tasks of "0-3,7,10-20:5%2"; returns how many were split. */
static size_t split_array(struct slurm_rm *sr, const slurm_job_info_t *x, size_t budget)
{
    char *text = xstrdup(x->array_task_str), *save = NULL;
    char *pct = strchr(text, '%');
    if (pct)
        *pct = '\0'; /* the limit of tasks running at once: Slurm's, not moku's */
    size_t done = 0;
    for (char *w = strtok_r(text, ",", &save); w && done < budget; w = strtok_r(NULL, ",", &save)) {
        unsigned long lo, hi, step = 1;
        char *end;
        lo = strtoul(w, &end, 10);
        hi = lo;
        if (*end == '-')
            hi = strtoul(end + 1, &end, 10);
        if (*end == ':')
            step = strtoul(end + 1, &end, 10);
        if (*end || step == 0 || hi < lo)
            break; /* not a form this knows: left held */
        int failed = 0;
        for (unsigned long t = lo; t <= hi && done < budget && !failed; t += step) {
            failed = split_task(sr, x->array_job_id, t) < 0;
            done += !failed;
        }
        if (failed)
            break; /* Slurm refuses: not one call per task, every iteration */
    }
    free(text);
    return done;
}

int srm_intake(void *ctx, long now, const struct rm_intake *in, struct err *err)
{
    struct slurm_rm *sr = ctx;
    (void)now;
    if (sr->detail > 0 && --sr->detail == 0)
        sr->detailed = 0; /* the check is over: the snapshot's allocations are not looked at */
    if (srm_refresh(sr, err) < 0)
        return -1;
    if (!sr->unread)
        return 0;
    sr->unread = 0;
    size_t budget = ARRAY_SPLIT_MAX;
    for (uint32_t i = 0; i < sr->jobs->record_count; i++) {
        const slurm_job_info_t *x = &sr->jobs->job_array[i];
        if ((x->job_state & JOB_STATE_BASE) != JOB_PENDING)
            continue;
        if (x->array_task_str && *x->array_task_str) {
            budget -= split_array(sr, x, budget); /* taken in at the next read */
            continue;
        }
        if (x->priority != 0 && srm_release_at(sr, x->job_id) < 0) {
            /* Released by nobody here: Slurm requeued it by itself. */
            struct err e;
            if (srm_hold(sr, x->job_id, &e) < 0)
                continue;
        }
        char user[64], group[64], why[256];
        char *features = job_features(x);
        struct rm_new_job j;
        new_job(sr, x, &j, user, group, features, sizeof user, why, sizeof why);
        in->seen(in->ctx, &j);
        free(features);
        free((char *)j.hosts);
    }
    return 1;
}

/* ---- Slurm's reservations ---- */

/* The node names of a hostlist ("n[1-3],n7"); *n set. ALL: every node. */
static char **hosts_of(struct slurm_rm *sr, const char *list, size_t *n)
{
    *n = 0;
    size_t cap = 0;
    char **out = NULL;
    if (list && strcmp(list, "ALL") == 0) {
        for (uint32_t i = 0; sr->nodes && i < sr->nodes->record_count; i++)
            if (sr->nodes->node_array[i].name) {
                out = xgrow(out, &cap, *n + 1, sizeof *out);
                out[(*n)++] = xstrdup(sr->nodes->node_array[i].name);
            }
        return out;
    }
    hostlist_t hl = list && *list ? slurm_hostlist_create(list) : NULL;
    char *h;
    while (hl && (h = slurm_hostlist_shift(hl))) {
        out = xgrow(out, &cap, *n + 1, sizeof *out);
        out[(*n)++] = xstrdup(h);
        free(h);
    }
    if (hl)
        slurm_hostlist_destroy(hl);
    return out;
}

int srm_resvs(void *ctx, long now, int all, void (*fn)(void *, const struct rm_resv *), void *fnctx,
              struct err *err)
{
    struct slurm_rm *sr = ctx;
    (void)now;
    if (srm_ctld_up(sr, err) < 0)
        return -1;
    reserve_info_msg_t *msg = NULL;
    time_t since = sr->resvs && !all ? sr->resvs->last_update : 0;
    if (slurm_load_reservations(since, &msg) != SLURM_SUCCESS) {
        if (slurm_get_errno() == SLURM_NO_CHANGE_IN_DATA)
            return 0;
        return err_set(err, "Slurm: cannot read the reservations: %s", srm_error());
    }
    if (sr->resvs)
        slurm_free_reservation_info_msg(sr->resvs);
    sr->resvs = msg;
    for (uint32_t i = 0; i < msg->record_count; i++) {
        const reserve_info_t *x = &msg->reservation_array[i];
        size_t n;
        char **hosts = hosts_of(sr, x->node_list, &n);
        struct rm_resv r = {
            .name = x->name,
            .start = (long)x->start_time,
            .end = (long)x->end_time,
            .nodes = (const char *const *)hosts,
            .nnodes = n,
            .users = x->users && *x->users ? x->users : NULL,
            .accounts = x->accounts && *x->accounts ? x->accounts : NULL,
            .groups = x->groups && *x->groups ? x->groups : NULL,
        };
        fn(fnctx, &r);
        for (size_t k = 0; k < n; k++)
            free(hosts[k]);
        free(hosts);
    }
    return 1;
}
