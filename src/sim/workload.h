/*
 * workload — turns a trace's raw records into the jobs a simulation submits.
 *
 * This is where the trace conventions live (swf-format.md, "decide
 * explicitly"): processors = requested (field 8) when positive, else
 * allocated (field 5); walltime = requested time (field 9) when positive,
 * else the runtime; user, group, queue (as class) and partition keep their
 * numbers as names. A record with no processors, a negative runtime or a
 * negative submit time cannot be replayed: it is skipped and counted, or,
 * in strict mode, is an error naming the file and line. Jobs come out sorted
 * by submit time, then job id, then file line.
 */
#ifndef MOKU_WORKLOAD_H
#define MOKU_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>

#include "trace/swf.h"
#include "trace/swfpack.h"
#include "util/err.h"
#include "util/strmap.h"

/* A job's credentials and requests beyond its size. Interned: one copy per
 * distinct combination in the workload, shared by every job that has it (a
 * trace's jobs come from a few hundred users and classes and ask for a few
 * shapes), so a job carries one pointer, not eight strings and five
 * numbers. Strings are interned in the workload (NULL = none). */
struct wl_names {
    const char *user, *group, *account, *class_, *qos, *partition, *features;
    const char *advres;   /* the reservation it asks for (a Maui trace's field 41), or NULL */
    long mem, swap, disk; /* MB per task, 0 = none */
    int nodes;            /* requested node count, 0 = none */
    unsigned short tpn;   /* tasks per node, exact (job_spec.tpn), 0 = any */
};

/* The largest run time and walltime a job record holds, seconds (41 bits:
 * 69,000 years, past the 2^40 an SWF trace may hold), and the largest task
 * count and line (two billion), and processors per task: the readers
 * refuse a record past them with its file and line (workload_check_job). */
#define WL_MAX_TIME ((1L << 41) - 1)
#define WL_MAX32 2147483647L
#define WL_MAX_PPT 4095

/* wl_job.id: WL_NO_ID when the job has none; below WL_ID_TEXT, a number
 * whose decimal text is the id (a trace's ids are numbers nearly always,
 * and a number costs no text); else WL_ID_TEXT plus the index of its text
 * in workload.idtext. */
#define WL_NO_ID UINT32_MAX
#define WL_ID_TEXT 0x80000000u
/* Bytes of a buffer wl_job_id writes a numeric id into. */
#define WL_ID_LEN 12
/* The largest submit time a job record holds (32 bits, the year 2106 as a
 * Unix time): the readers refuse a record past it with its file and line. */
#define WL_MAX_SUBMIT 4294967295LL

/* One job of the trace, as compact as the replay allows: there is one per
 * trace line for the whole replay (40 bytes). What few jobs have (memory,
 * node counts, the job it waits for, an id that is not a number) is
 * elsewhere: memory and nodes in its interned names, the preceding job in
 * the workload's `more`, a text id in its idtext. Its run time and walltime
 * are split in two (wl_job_runtime, wl_job_set_runtime); its id is read
 * with wl_job_id and set with workload_set_id. */
struct wl_job {
    const struct wl_names *names; /* NULL: none given (wl_job_names) */
    uint32_t id;                  /* a number, a text id's index or WL_NO_ID (above) */
    uint32_t submit;              /* seconds, within 0..WL_MAX_SUBMIT (workload_check_job) */
    uint32_t runtime_lo;          /* what the job will really run, seconds (>= 0): low bits */
    uint32_t walltime_lo;         /* its limit, seconds (>= 1): low bits */
    int32_t tasks;
    int32_t line;
    float util;               /* fraction of its processors it kept busy (SWF average CPU
                                 time / runtime), when util_known */
    unsigned runtime_hi : 9;  /* bits 32 to 40 of the run time */
    unsigned walltime_hi : 9; /* and of the walltime */
    unsigned procs_per_task : 12;
    unsigned util_known : 1; /* the trace recorded the CPU time (SWF: not -1); a job
                                that used none has util 0 */
    unsigned preemptee : 1;  /* flagged PREEMPTEE (a Maui trace's field 25) */
};

/* A job's run time and walltime, seconds. */
static inline long wl_job_runtime(const struct wl_job *w)
{
    return (long)w->runtime_hi << 32 | (long)w->runtime_lo;
}
static inline long wl_job_walltime(const struct wl_job *w)
{
    return (long)w->walltime_hi << 32 | (long)w->walltime_lo;
}
/* Set them: v within 0..WL_MAX_TIME (workload_check_job). */
static inline void wl_job_set_runtime(struct wl_job *w, long v)
{
    w->runtime_lo = (uint32_t)v;
    w->runtime_hi = (unsigned)(v >> 32) & 0x1ff;
}
static inline void wl_job_set_walltime(struct wl_job *w, long v)
{
    w->walltime_lo = (uint32_t)v;
    w->walltime_hi = (unsigned)(v >> 32) & 0x1ff;
}

/* What a job has beyond its record, kept for the few jobs that have any: a
 * trace job's preceding job, a --commands script's submission's
 * (sim_submit.h) dependencies and place in an array. */
struct wl_more {
    const char *after;    /* the id of the job this one waits for, afterany (SWF field 17),
                             NULL none */
    const char *depend;   /* qsub -W depend= text (engine/dep.h), NULL none */
    const char *array;    /* a task: its array's name (the submit's id), NULL none */
    unsigned index;       /* a task: its index */
    unsigned slots;       /* a task: its array's %N slot limit, 0 none */
    int exit_status;      /* the status its script ends with (submit --exit), -1 none given:
                             success, as a job that runs to its end */
    unsigned char script; /* a --commands script's submission (queued in the script's order
                             at its instant), not a trace's job with a preceding job */
};

struct workload {
    struct wl_job *jobs;
    size_t njobs, cap;
    size_t skipped;                    /* records that cannot be replayed */
    size_t ndeps;                      /* jobs waiting for another (wl_more.after) */
    size_t unfinished;                 /* of those, jobs still queued or running when the log was
                                          taken (accounting logs: sacct, Torque, a moku home) */
    long *rec_start;                   /* the start the log recorded for each job (parallel to
                                          jobs; -1 none), NULL when the format records none */
    const struct wl_more **more;       /* parallel to jobs, NULL when no job has any (each
                                          NULL for a job with none) */
    long long max_nodes, max_procs;    /* trace header, 0 if absent */
    long long unix_start;              /* trace header, -1 if absent */
    char tz[64];                       /* SWF TimeZoneString, "" if absent */
    struct strmap strings;             /* interned strings -> their copy */
    char **blocks;                     /* the arena holding every string and wl_names */
    size_t nblocks, capblocks, used;   /* bytes used of the last block */
    const struct wl_names **names;     /* the interned wl_names: open addressing, */
    size_t nnames, capnames;           /* capnames a power of two (0: none yet) */
    const struct wl_names *last_names; /* workload_names' last answer: a trace's
                                          neighbours often share theirs */
    const char **numnames;             /* numbered names (SWF users, groups, queues) by */
    size_t capnum;                     /* value, when small: interned already */
    const char **idtext;               /* the ids that are not numbers (wl_job.id) */
    size_t nidtext, capidtext;
    struct swfpack *recs; /* an SWF trace's every record as read, in file order
                             (WL_KEEP_RECS: --swf-out), else NULL */
};

/* A job's id as text, NULL when it has none: its text id, or its number
 * written into buf (WL_ID_LEN bytes). */
const char *wl_job_id(const struct workload *wl, const struct wl_job *w, char *buf);
/* Set j's id to id (NULL: none): a number when id is one's decimal text
 * below WL_ID_TEXT, else a copy of the text in wl. */
void workload_set_id(struct workload *wl, struct wl_job *j, const char *id);
/* Processors a workload job asks for. */
long long wl_job_procs(const struct wl_job *w);
/* Its names; every one NULL when it has none. */
const struct wl_names *wl_job_names(const struct wl_job *w);
/* An empty workload, ready for workload_add / workload_intern. */
void workload_init(struct workload *wl);
/* The workload's own copy of s (one per distinct string); NULL stays NULL. */
const char *workload_intern(struct workload *wl, const char *s);
/* A copy of s in the workload, not shared (for strings that are unique
 * anyway, such as job ids: no hashing). NULL stays NULL. */
const char *workload_keep(struct workload *wl, const char *s);
/* The workload's shared copy of n, whose strings are interned already
 * (workload_intern: equal names are the same pointers). */
const struct wl_names *workload_names(struct workload *wl, const struct wl_names *n);
/* 0 when v is within 0..max; else -1 with err "PATH:LINE: WHAT V does not
 * fit (at most MAX)", the file and line of the record. */
int workload_check_fit(long long v, long long max, const char *path, long line, const char *what,
                       struct err *err);
/* 0 when a job's submit time (WL_MAX_SUBMIT), run time, walltime
 * (WL_MAX_TIME), tasks, line (WL_MAX32) and processors per task
 * (WL_MAX_PPT) fit its record; else -1 with err "PATH:LINE: job ID: WHAT V
 * does not fit (at most MAX)". */
int workload_check_job(const char *path, long line, const char *id, long long submit,
                       long long runtime, long long walltime, long long tasks, long long ppt,
                       struct err *err);
/* Append a job (its strings and names must be the workload's already). */
void workload_add(struct workload *wl, const struct wl_job *job);
/* The same with the start the log recorded for it (-1: none): the first
 * such call keeps a recorded start for every job (rec_start). */
void workload_add_recorded(struct workload *wl, const struct wl_job *job, long start);
/* The same with what a scripted submission adds (copied into the
 * workload; its strings must be the workload's already): the first such
 * call keeps a `more` for every job. */
void workload_add_more(struct workload *wl, const struct wl_job *job, const struct wl_more *more);
/* Sort the jobs by submit time, then job id, then file line, when they are not;
 * at one instant a --commands script's submissions (those with more) come
 * after the trace's, in the script's order, an array's tasks by index. */
void workload_sort(struct workload *wl);
/* 1 when jobs from .. njobs - 1 are in workload_sort's order, each after
 * the one before it (from 0: all of them); workload_sort leaves such jobs
 * where they are. */
int workload_in_order(const struct workload *wl, size_t from);

/*
 * Build the workload from the SWF trace at path, record by record (the raw
 * records are not kept unless asked: a trace's memory is its compact jobs).
 * flags: WL_STRICT, a record that would be skipped is an error instead
 * (after the file's syntax, which is checked first); WL_RECORDED, keep the
 * start the log recorded for each job (rec_start; else NULL); WL_KEEP_RECS,
 * keep every record, skipped ones too, as it was read (recs, its canonical
 * line and 13 bytes a record; else NULL). On error returns -1 with *wl empty and err naming
 * the file and line.
 */
enum { WL_STRICT = 1, WL_RECORDED = 2, WL_NO_DEPS = 4, WL_KEEP_RECS = 8 };
int workload_read_swf(const char *path, int flags, struct workload *wl, struct err *err);
/* The same, calling batch(ctx, wl, in_order) while the file is still read, each time
 * a batch of records went in: wl holds the jobs so far in file order (not
 * sorted, not trimmed; the jobs array moves as it grows) and the header
 * keywords the reader had then (max_nodes, max_procs, unix_start, tz),
 * which a keyword further on may still change. Never called when the
 * reader has no thread of its own. in_order: the jobs so far are in
 * submission order, as workload_in_order(wl, 0) would say. */
int workload_read_swf_batched(const char *path, int flags, struct workload *wl,
                              void (*batch)(void *ctx, struct workload *wl, int in_order),
                              void *ctx, struct err *err);
void workload_free(struct workload *wl);

#endif
