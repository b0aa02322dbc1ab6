/*
 * workload_maui — the simulator's workload and cluster from Maui's own
 * traces (trace/mtrace.h): a workload trace becomes the jobs to submit, a
 * resource trace the nodes to add. The SWF counterpart is sim/workload.h.
 *
 * Job conventions (Maui 3.3.1 semantics where Maui has them): id = field 1;
 * submit = field 9 (epoch seconds); start = the later of dispatch (10) and
 * start (11), as MTraceLoadWorkload takes it; runtime = completion (12) -
 * start; walltime = the first shape of field 6, or the runtime when that is
 * not positive, at least 1; tasks = the first shape of field 3;
 * procs_per_task = field 32 (1 when not positive); memory, disk and swap per
 * task = fields 33, 34, 35 in MB (0 when not positive); nodes = field 2 (0
 * when not positive); user 4, group 5, account 26, class 8 (first class
 * name), QOS 24 (requested), partition 31, features 20 (comma list). Values
 * Maui reads as "none" are NULL: "[NONE]" everywhere, account "0", QOS "0",
 * "-1" or "DEFAULT", partition "0", "DEFAULT" or "[DEFAULT]".
 *
 * A job that never ran (state NotRun, start time <= 0, completion before
 * start), has no tasks or a negative submit time cannot be replayed: it is
 * skipped and counted, or, in strict mode, is an error naming file and line.
 */
#ifndef MOKU_WORKLOAD_MAUI_H
#define MOKU_WORKLOAD_MAUI_H

#include <stddef.h>

#include "core/node.h"
#include "sim/workload.h"
#include "trace/mtrace.h"
#include "util/err.h"

/*
 * Build the workload from the Maui workload trace at path (plain or gzip).
 * strict: a job that would be skipped is an error instead.
 * Jobs come out sorted by submit time, then file order; the trace header
 * fields of *wl stay absent (max_nodes, max_procs 0, unix_start -1: Maui
 * traces hold absolute epoch times).
 * On error returns -1 with *wl empty; err reads "<path>:<line>: <what>".
 */
int workload_from_maui(const char *path, int strict, struct workload *wl, struct err *err);

/*
 * The nodes of a resource trace, ready for sched_add_node. specs[i] point
 * into trace, which the struct owns: keep it whole and free it with
 * workload_nodes_free.
 */
struct wl_nodes {
    struct node_spec *specs; /* in file order */
    size_t n;
    size_t skipped; /* NETWORK/HSM lines and nodes without processors */
    struct mtrace_resource trace;
};

/*
 * Read the resource trace at path into *out: name = field 4, procs 9,
 * memory 7, swap 6, disk 8 (MB, 0 when negative), features 15 (comma list);
 * AVAILABLE -> NODE_UP, DEFINED -> NODE_DOWN, DRAINED -> NODE_DRAINED;
 * partition NULL (DEFAULT). A node with no processors (Maui gives it state
 * None) is skipped and counted. A name defined twice is an error naming
 * both lines.
 * On success returns 0 (free *out with workload_nodes_free); on error
 * returns -1 with *out empty.
 */
int workload_nodes_from_resource_trace(const char *path, struct wl_nodes *out, struct err *err);

/* Free what workload_nodes_from_resource_trace filled; safe on a zeroed or
 * freed struct and on NULL. */
void workload_nodes_free(struct wl_nodes *nodes);

#endif
