/*
 * mtrace — readers for Maui's own trace formats, version 230: the workload
 * trace (one job per line, 44 fields; also the format of Maui's daily
 * statistics files) and the resource trace (one COMPUTENODE line per node).
 * Also tells those two and SWF apart by their content.
 *
 * Like swf, this layer only reads: every well-formed line comes back with
 * its fields as values ("[NONE]" as NULL, numbers as numbers, bracket lists
 * unpacked), including jobs that never ran. What a record means for the
 * simulator (which jobs to skip, which start time counts) is decided by the
 * loader, sim/workload_maui.c.
 *
 * Files may be plain or gzip-compressed (recognised by content). '#' starts
 * a comment anywhere on a line, as in Maui. Errors name the file and line,
 * and the field by number and name; nothing is returned on error.
 */
#ifndef MOKU_MTRACE_H
#define MOKU_MTRACE_H

#include <stddef.h>

#include "util/err.h"

/* The only trace version Maui 3.3.1 reads and writes ("VERSION 230"). */
#define MTRACE_VERSION 230

enum mtrace_kind {
    MTRACE_ERROR = -1,    /* unreadable, or no line tells the format */
    MTRACE_SWF,           /* Standard Workload Format (trace/swf.h) */
    MTRACE_MAUI_WORKLOAD, /* Maui workload trace */
    MTRACE_MAUI_RESOURCE, /* Maui resource trace */
};

/*
 * Tell the format of the trace at path from its first lines: comments ('#'
 * for Maui, ';' for SWF) and blank lines are passed over; a "VERSION" line
 * means Maui; the first data line decides: COMPUTENODE (or another resource
 * type) = resource trace, 18 numeric fields = SWF, 43 or 44 fields (or any
 * line after a VERSION line) = workload trace. A file holding only a VERSION
 * line is an (empty) workload trace.
 * Returns MTRACE_ERROR with err set when the file cannot be read, holds no
 * data line, or its first data line fits no format ("<path>:<line>: ...").
 */
enum mtrace_kind mtrace_detect(const char *path, struct err *err);

/* The name of a kind ("SWF", "Maui workload", "Maui resource"). */
const char *mtrace_kind_name(enum mtrace_kind k);

/* Where the strings and lists of a trace live; private to mtrace.c. */
struct mtrace_arena;

/*
 * One workload-trace line. Strings belong to the trace (NULL = "[NONE]");
 * numbers are as written (Maui's defaults: -1 or 0 = not given). Comments
 * give the field number.
 */
struct mtrace_job {
    const char *id;          /* 1 job id, as text */
    int nodes;               /* 2 nodes requested */
    long tasks;              /* 3 tasks requested: the first of the shapes "n[,n2...]" */
    const char *user;        /* 4 */
    const char *group;       /* 5 */
    long walltime;           /* 6 wallclock limit, s: the first of the shapes */
    const char *state;       /* 7 Completed, Removed, NotRun, ... */
    const char *class_;      /* 8 the name of the first "[name:count]" */
    long submit;             /* 9 epoch s */
    long dispatch;           /* 10 */
    long start;              /* 11 */
    long completion;         /* 12 */
    const char *network;     /* 13 required network */
    const char *arch;        /* 14 required architecture */
    const char *opsys;       /* 15 required operating system */
    const char *mem_cmp;     /* 16 ">=", ... */
    long node_mem;           /* 17 required node memory, MB */
    const char *disk_cmp;    /* 18 */
    long node_disk;          /* 19 required node disk, MB */
    const char *features;    /* 20 "[a][b]" as "a,b" */
    long sys_queue_time;     /* 21 */
    int tasks_alloc;         /* 22 */
    int tasks_per_node;      /* 23 (-1 or 0 = none) */
    const char *qos;         /* 24 requested, of "req[:delivered]" */
    const char *qos_given;   /* 24 delivered, NULL if not written */
    const char *flags;       /* 25 as written: a number or "[FLAG][FLAG]" */
    const char *account;     /* 26 */
    const char *executable;  /* 27 */
    const char *rm_ext;      /* 28 resource-manager extension string */
    int bypass;              /* 29 */
    double ps_used;          /* 30 processor-seconds utilised */
    const char *partition;   /* 31 */
    int procs_per_task;      /* 32 dedicated processors per task */
    long mem, disk, swap;    /* 33, 34, 35 dedicated per task, MB */
    long start_date;         /* 36 earliest start */
    long end_date;           /* 37 deadline */
    const char *alloc_hosts; /* 38 "a:b:c"; NULL on a 43-field line (Maui drops it) */
    const char *rm;          /* 39 resource manager; NULL on a 43-field line */
    const char *req_hosts;   /* 40 */
    const char *reservation; /* 41 */
    const char *node_set;    /* 42 "ONEOF:PROCSPEED:350:450" */
    const char *app_sim;     /* 43 "name:data" */
    int nfields;             /* 43 or 44 */
    long line;               /* line number in the file (1-based) */
};

struct mtrace_workload {
    struct mtrace_job *jobs; /* in file order */
    size_t njobs;
    int version;                  /* MTRACE_VERSION */
    struct mtrace_arena *strings; /* owns every string of jobs */
};

/*
 * Read the workload trace at path. Each job line must have 43 or 44 fields
 * (a 43-field line lacks the reserved field 44). A "VERSION n" line other
 * than 230, a wrong field count, text where a number belongs, a "PBS="
 * task request (a PBS node spec, not supported) or a malformed "[...]" list
 * is an error "<path>:<line>: field <n> (<name>) ...".
 * On success fills *out (free with mtrace_workload_free) and returns 0; on
 * error returns -1 with *out empty.
 */
int mtrace_read_workload(const char *path, struct mtrace_workload *out, struct err *err);

/* Free what mtrace_read_workload filled; safe on a zeroed or freed trace. */
void mtrace_workload_free(struct mtrace_workload *w);

/* Field 2 of a COMPUTENODE line: the state the node starts in. */
enum mtrace_event {
    MTRACE_AVAILABLE, /* Idle: up */
    MTRACE_DEFINED,   /* Down */
    MTRACE_DRAINED,   /* Drained */
};

/* One "[name:count]" of a node's class list; count -1 when not written. */
struct mtrace_class {
    const char *name;
    int count;
};

/* One COMPUTENODE line. Strings belong to the trace (NULL = "[NONE]"). */
struct mtrace_node {
    enum mtrace_event event;            /* 2 */
    long event_time;                    /* 3 (Maui ignores it) */
    const char *name;                   /* 4 */
    const char *rm;                     /* 5 resource manager */
    long swap, mem, disk;               /* 6, 7, 8 MB ("512M", "2G" accepted) */
    int procs;                          /* 9 */
    int frame, slot, slots_used;        /* 10, 11, 12 (SP2 frames; -1 = none) */
    const char *opsys;                  /* 13 */
    const char *arch;                   /* 14 */
    const char *features;               /* 15 "[a][b]" as "a,b" */
    const struct mtrace_class *classes; /* 16 "[batch:2][fast:4]" */
    size_t nclasses;
    const char *networks;      /* 17 "[a][b]" as "a,b" */
    const char *speed_or_gres; /* 18 as written: relative speed in the
                                * 3.2 docs, a GRES list in 3.3.1 */
    long line;
};

struct mtrace_resource {
    struct mtrace_node *nodes; /* in file order */
    size_t nnodes;
    size_t skipped; /* NETWORK and HSM lines, which Maui 3.3.1 does not use for nodes */
    int version;    /* MTRACE_VERSION */
    struct mtrace_arena *strings;
};

/*
 * Read the resource trace at path. A COMPUTENODE line has exactly 21 fields
 * (separated by ';' instead of blanks when the line holds a ';', as Maui
 * allows); NETWORK and HSM lines are counted in skipped. An unknown
 * resource type, a wrong field count, an event other than AVAILABLE,
 * DEFINED or DRAINED, text where a number belongs or a malformed "[...]"
 * list is an error "<path>:<line>: ...".
 * On success fills *out (free with mtrace_resource_free) and returns 0; on
 * error returns -1 with *out empty.
 */
int mtrace_read_resource(const char *path, struct mtrace_resource *out, struct err *err);

/* Free what mtrace_read_resource filled; safe on a zeroed or freed trace. */
void mtrace_resource_free(struct mtrace_resource *r);

#endif
