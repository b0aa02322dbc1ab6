/*
 * trace — which reader a trace wants, told from its content (never its
 * name): SWF, Maui's workload and resource traces (trace/mtrace.h),
 * Slurm's sacct --parsable2 output (trace/sacct.h), Torque's accounting
 * log (trace/tacct.h), or a moku home, a directory whose database holds
 * the daemon's history (trace/homelog.h).
 */
#ifndef MOKU_TRACE_H
#define MOKU_TRACE_H

#include "util/err.h"

enum trace_kind {
    TRACE_ERROR = -1,    /* unreadable, or no line tells the format */
    TRACE_SWF,           /* Standard Workload Format */
    TRACE_MAUI_WORKLOAD, /* Maui workload trace */
    TRACE_MAUI_RESOURCE, /* Maui resource trace (nodes, not jobs) */
    TRACE_SACCT,         /* sacct -P output with its header */
    TRACE_TORQUE,        /* Torque's accounting log */
    TRACE_HOME,          /* a moku home (a directory) */
};

/*
 * The kind of the trace at path: a directory is a home; else the first
 * line that is not blank decides — a sacct header (JobID|...), a Torque
 * record (MM/DD/YYYY HH:MM:SS;X;...), or what mtrace_detect makes of the
 * file. TRACE_ERROR with err ("<path>:<line>: ...") when it cannot be read
 * or fits no format (a '|'-separated job line first: sacct without its
 * header, said so).
 */
enum trace_kind trace_detect(const char *path, struct err *err);

/* "SWF", "Maui workload", "Maui resource", "sacct", "Torque accounting",
 * "moku home". */
const char *trace_kind_name(enum trace_kind k);

/* Whether the format holds one job's whole story (submit, start, end), so
 * that the schedule it recorded can be measured: every kind but a resource
 * trace. */
int trace_kind_has_jobs(enum trace_kind k);

#endif
