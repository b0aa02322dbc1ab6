/*
 * checkjob -v — for an idle job, why each node cannot take it now (Maui
 * 3.3.1 checkjob -v's per-node rejections, MJobSelectMNL / MReqGetFNL's
 * reasons), from the engine's public face only: the node table
 * (sched_node, sched_node_used) and the reservations (sched_resv_at,
 * sched_resv_access); never the policy's internals.
 *
 * Per node, the first reason that applies, in Maui's order:
 *   State (Down|Drained|Busy)  not up, or every processor dedicated
 *   Partition (<name>)         the job asks for another partition
 *   Features                   a feature the job asks for is missing
 *   Procs (<n> of <m>)         fewer processors than one task needs,
 *                              free (n) or configured (m)
 *   Reserved (<id>)            free processors are held by a reservation
 *                              active now that the job may not use
 * A node with none is feasible; its free processors (less those held by
 * reservations it may not use) count as available.
 *
 * Text (after checkjob's lines):
 *
 *   Node Availability (idle procs: 4  feasible procs: 4)
 *
 *   Node n01 rejected: State (Busy)
 *   Node n03 rejected: State (Drained)
 *
 *   Rejection Reasons: [State     :    2]
 *
 * Where moku differs from Maui: Maui lists reasons per partition and counts
 * tasks; moku looks at every node once and counts processors. Node
 * classes, network, opsys and memory are not checked (moku does not place
 * by them). Priority reservations of other jobs are not tied to nodes in
 * moku and do not show here; the job's wait reason tells about them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd_int.h"
#include "policy/acl.h"

enum reject { RJ_NONE, RJ_STATE, RJ_PARTITION, RJ_FEATURES, RJ_PROCS, RJ_RESERVED, RJ_N };

static const char *const reject_names[RJ_N] = {"",         "State", "Partition",
                                               "Features", "Procs", "Reserved"};

/* Processors of node idx held, and not used, by reservations active now
 * that j may not use; *id names the first. */
static long long reserved_off(const struct cmd_ctx *c, const struct job *j, size_t idx,
                              const char **id)
{
    long long held = 0;
    *id = NULL;
    for (size_t i = 0; i < sched_nresv(c->s); i++) {
        const struct resv *r = sched_resv_at(c->s, i);
        if (r->start > c->now || r->end <= c->now)
            continue;
        for (size_t k = 0; k < r->nnodes; k++) {
            const struct resv_node *rn = &r->nodes[k];
            if (rn->node != idx || rn->procs <= rn->used)
                continue;
            if (sched_resv_access(c->s, r, j, c->now) != ACL_NONE)
                continue;
            held += rn->procs - rn->used;
            if (!*id)
                *id = r->id;
        }
    }
    return held;
}

static int has_features(const struct job *j, const struct node *n)
{
    for (size_t i = 0; i < j->nfeatures; i++)
        if (!node_has_feature(n, j->features[i]))
            return 0;
    return 1;
}

/* Why node idx cannot take a task of j now (RJ_NONE: it can), the detail
 * in why; *avail the processors j could use there. */
static enum reject node_reject(const struct cmd_ctx *c, const struct job *j, size_t idx, char *why,
                               size_t n, long long *avail)
{
    const struct node *nd = sched_node(c->s, idx);
    int used = sched_node_used(c->s, idx);
    long long nfree = nd->procs > used ? nd->procs - used : 0;
    *avail = 0;
    why[0] = '\0';
    if (nd->state != NODE_UP || nfree == 0) {
        snprintf(why, n, "%s", nd->state != NODE_UP ? node_state_name(nd->state) : "Busy");
        return RJ_STATE;
    }
    if (j->partition && strcmp(j->partition, nd->partition) != 0) {
        snprintf(why, n, "%s", nd->partition);
        return RJ_PARTITION;
    }
    if (!has_features(j, nd))
        return RJ_FEATURES;
    if (nfree < j->procs_per_task) {
        snprintf(why, n, "%lld of %d", nfree, j->procs_per_task);
        return RJ_PROCS;
    }
    const char *id;
    long long off = reserved_off(c, j, idx, &id);
    if (nfree - off < j->procs_per_task) {
        snprintf(why, n, "%s", id ? id : "?");
        return RJ_RESERVED;
    }
    *avail = nfree - off;
    return RJ_NONE;
}

void cmd_checkjob_nodes(const struct cmd_ctx *c, const struct job *j, struct cmd_buf *out,
                        json_t *obj)
{
    long counts[RJ_N] = {0};
    long long idle = 0, feasible = 0;
    json_t *arr = obj ? json_array() : NULL;
    struct cmd_buf lines = {0};
    for (size_t i = 0; i < sched_nnodes(c->s); i++) {
        const struct node *nd = sched_node(c->s, i);
        int used = sched_node_used(c->s, i);
        if (nd->state == NODE_UP && nd->procs > used)
            idle += nd->procs - used;
        char why[128];
        long long avail;
        enum reject r = node_reject(c, j, i, why, sizeof why, &avail);
        feasible += avail;
        if (r == RJ_NONE)
            continue;
        counts[r]++;
        char text[192];
        if (why[0])
            snprintf(text, sizeof text, "%s (%s)", reject_names[r], why);
        else
            snprintf(text, sizeof text, "%s", reject_names[r]);
        if (arr)
            json_array_append_new(
                arr, json_pack("{s:o, s:o}", "node", cmd_jstr(nd->name), "reason", cmd_jstr(text)));
        else
            cmd_buf_printf(&lines, "Node %s rejected: %s\n", nd->name, text);
    }
    if (arr) {
        json_object_set_new(obj, "rejections", arr);
        json_object_set_new(obj, "idle_procs", json_integer(idle));
        json_object_set_new(obj, "feasible_procs", json_integer(feasible));
        return;
    }
    cmd_buf_printf(out, "\nNode Availability (idle procs: %lld  feasible procs: %lld)\n", idle,
                   feasible);
    if (lines.len) {
        cmd_buf_puts(out, "\n");
        cmd_buf_puts(out, lines.s);
        cmd_buf_puts(out, "\nRejection Reasons:");
        for (int r = 1; r < RJ_N; r++)
            if (counts[r])
                cmd_buf_printf(out, " [%-10s:%5ld]", reject_names[r], counts[r]);
        cmd_buf_puts(out, "\n");
    }
    free(cmd_buf_take(&lines));
}
