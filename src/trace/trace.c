/* trace — see trace.h. */
#include "trace/trace.h"

#include <string.h>
#include <sys/stat.h>

#include "trace/homelog.h"
#include "trace/lines.h"
#include "trace/mtrace.h"
#include "trace/sacct.h"
#include "trace/tacct.h"

/* A '|'-separated line whose first field is a job id: sacct -n output. */
static int headerless_sacct(const char *s)
{
    size_t id = strspn(s, "0123456789");
    return id > 0 && (s[id] == '|' || s[id] == '_' || s[id] == '+') && strchr(s, '|');
}

/* What the first line that is not blank says: a kind, or -2 to ask mtrace. */
static int first_line_kind(const char *path, struct err *err)
{
    struct lines in = {0};
    if (lines_open_head(&in, path, err) < 0)
        return TRACE_ERROR;
    int rc, kind = -2;
    while ((rc = lines_next(&in)) > 0) {
        const char *s = in.buf + strspn(in.buf, " \t\r\n");
        if (!*s)
            continue;
        if (sacct_is_header(s))
            kind = TRACE_SACCT;
        else if (tacct_is_record(s))
            kind = TRACE_TORQUE;
        else if (headerless_sacct(s))
            kind = err_set(err,
                           "%s:%ld: sacct output without its header line (sacct -n): run "
                           "sacct without -n so the columns are named",
                           path, in.line);
        break;
    }
    if (rc < 0)
        kind = TRACE_ERROR;
    lines_close(&in);
    return kind;
}

/* Whether path is a pipe (or socket): a trace is read more than once (its
 * format, then its records), and each reading of a pipe would get another
 * part of it (the detection's short reads ended mid-line and named a field
 * count of no line of the trace); one without a writer would block. */
static int is_pipe(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode));
}

enum trace_kind trace_detect(const char *path, struct err *err)
{
    if (homelog_is_dir(path))
        return TRACE_HOME;
    if (is_pipe(path)) {
        err_set(err,
                "%s: a pipe: a trace is read more than once (its format, then its records); "
                "give a file (gzip is read as it is)",
                path);
        return TRACE_ERROR;
    }
    int k = first_line_kind(path, err);
    if (k != -2)
        return (enum trace_kind)k;
    switch (mtrace_detect(path, err)) {
    case MTRACE_SWF:
        return TRACE_SWF;
    case MTRACE_MAUI_WORKLOAD:
        return TRACE_MAUI_WORKLOAD;
    case MTRACE_MAUI_RESOURCE:
        return TRACE_MAUI_RESOURCE;
    case MTRACE_ERROR:
        break;
    }
    return TRACE_ERROR;
}

const char *trace_kind_name(enum trace_kind k)
{
    switch (k) {
    case TRACE_SWF:
        return "SWF";
    case TRACE_MAUI_WORKLOAD:
        return "Maui workload";
    case TRACE_MAUI_RESOURCE:
        return "Maui resource";
    case TRACE_SACCT:
        return "sacct";
    case TRACE_TORQUE:
        return "Torque accounting";
    case TRACE_HOME:
        return "moku home";
    case TRACE_ERROR:
        break;
    }
    return "unknown";
}

int trace_kind_has_jobs(enum trace_kind k)
{
    return k != TRACE_ERROR && k != TRACE_MAUI_RESOURCE;
}
