/*
 * qsub — a job submission: the `qsub` / `msub` / `moku submit` command line
 * and the script's `#PBS` / `#MSUB` directives turned into one validated
 * request, and that request to and from JSON (the client/daemon wire).
 *
 * What it is not: it reads no file, no environment variable and no clock.
 * The caller passes the script's text, the environment array, the client's
 * working directory and `now`. (Only -a reads the process's time zone, through
 * localtime_r/mktime, to interpret a local date as Torque does.)
 *
 * Options (Torque qsub / Moab msub; `-Nname` and `-N name` both work, flags
 * group as in `-hV`, `--` ends the options, options and the one operand may
 * come in any order):
 *   -N name   -A account   -q queue   -d dir   -o path   -e path
 *   -j oe|eo|n   -a [[[[CC]YY]MM]DD]hhmm[.SS]   -h   -V   -v VAR[=val],...
 *   -m abef|n   -M users   -r y|n   -S shell
 *   -l res=val[,res=val]...: nodes=N[:ppn=P][:feature]...[+...], procs=N,
 *      ncpus=N, select=[N:]ncpus=C[:mem=M][:mpiprocs=K][+...], place=,
 *      walltime=[[HH:]MM:]SS or seconds, mem=N[b|kb|mb|gb|tb], pmem=, qos=X,
 *      advres=X, naccesspolicy= (singlejob: exclusive), vmem=, pvmem= (the
 *      processes' address space), nice=N (-20..19); file read with a warning
 *   -W x=ITEM[;ITEM]...: QOS:X, ADVRES:X; -W group_list=G[@host] (one group)
 *   -p PRIO and -k KEEP (read, with a warning: moku has no meaning for them)
 *   -I: an interactive job (a given script's directives are read, its body
 *      is not sent: the job runs the user's login shell on qsub's terminal);
 *   -X (X11 forwarding) is refused with a clear message;
 *   any other option, resource, -W attribute or x= item is an error naming
 *   it. Warnings are lines in qsub_req.warnings, for the caller to print.
 *   -o/-e host:path is taken for this host (gethostname, the one call to
 *   the system besides -a's time zone) and refused for another.
 *
 * Directives: lines starting (column 1) with `#PBS` or `#MSUB` and white
 * space, before the first line that is neither blank nor a comment (a `#!`
 * first line is skipped), hold options split like a shell would with plain
 * '...' and "..." quoting; an unquoted word starting with '#' begins a
 * trailing comment. Directives apply first, the command line after them, so
 * the command line wins: single values are replaced, -l resources one by one
 * (nodes= and procs= each replace the whole processor request), -v variables
 * by name, -W x= items one by one.
 */
#ifndef MOKU_QSUB_H
#define MOKU_QSUB_H

#include <jansson.h>
#include <stddef.h>

#include "util/err.h"

/* Limits every request obeys, whether parsed or received as JSON. */
#define QSUB_MAX_SCRIPT (1L << 20)            /* bytes */
#define QSUB_MAX_COUNT 1000000                /* nodes, ppn, tasks */
#define QSUB_MAX_WALLTIME (10L * 365 * 86400) /* 10 years, seconds */
#define QSUB_MAX_MEM_MB (1L << 40)            /* 1 EiB */
#define QSUB_MIN_NICE (-20)                   /* -l nice: Torque's and setpriority's range */
#define QSUB_MAX_NICE 19
#define QSUB_MAX_NAME 64   /* job name, bytes */
#define QSUB_MAX_WORD 255  /* account, queue, qos, feature, ... */
#define QSUB_MAX_PATH 4095 /* bytes */
#define QSUB_MAX_FEATURES 64
#define QSUB_MAX_ENV 4096             /* variables */
#define QSUB_MAX_ENV_VALUE 65536      /* bytes of one value */
#define QSUB_MAX_ENV_BYTES (1L << 20) /* NAME=VALUE\n in all */
#define QSUB_MAX_EPOCH 253402300799L  /* 9999-12-31T23:59:59Z */

/* -j: which stream the other is merged into. */
enum qsub_join {
    QSUB_JOIN_NONE, /* separate files (-j n, the default) */
    QSUB_JOIN_OE,   /* stderr into the output file */
    QSUB_JOIN_EO,   /* stdout into the error file */
};

struct qsub_env {
    char *name;  /* [A-Za-z_][A-Za-z0-9_]*, at most QSUB_MAX_WORD bytes */
    char *value; /* UTF-8, no control characters but tab (the store keeps K=V lines) */
};

/*
 * A validated submission. Every string is owned by the request (qsub_free)
 * and is valid UTF-8; optional strings are NULL when not given. Names
 * (account, queue, qos, advres, features) are 1..QSUB_MAX_WORD bytes without
 * white space or control characters; the job name the same with at most
 * QSUB_MAX_NAME bytes and no '/'. Paths are absolute, lexically cleaned
 * ("." and ".." resolved without looking at the file system), without control
 * characters.
 */
struct qsub_req {
    char *name;          /* -N; default: the script's base name (sanitised), "STDIN" */
    char *account;       /* -A */
    char *group;         /* -W group_list=G: the group the job runs as and is charged to
                            (the daemon checks that the user is a member); NULL: the
                            user's login group */
    char *queue;         /* -q: the class */
    char *qos;           /* -l qos=X or -W x=QOS:X */
    char *advres;        /* -W x=ADVRES:X (or -l advres=X) */
    char *depend;        /* -W depend=type:id[:id][,type:id...] (engine/dep.h), as given */
    char *array;         /* -t: Torque's array range (util/arange.h), as given; NULL: none */
    char *array_pbs;     /* -J: PBS Pro's A-B[:STEP][%N], as given; at most one of the two */
    char *out_path;      /* -o, resolved against the client's cwd; NULL: the daemon's default */
    char *err_path;      /* -e, likewise */
    enum qsub_join join; /* -j */
    char *cwd;           /* -d (resolved against the client's cwd); default the client's cwd */
    long start_after;    /* -a: epoch seconds, 0 = none */
    int hold;            /* -h: submit with a user hold (0/1) */
    int exclusive;       /* its nodes are its own, whole (0/1): -l naccesspolicy=singlejob,
                            PBS Pro's place=...:excl */
    /* The processor request. nodes=N:ppn=P: nodes N, ppn P, tasks N*P;
     * procs=N: nodes 0, ppn 1, tasks N; neither: nodes 0, ppn 1, tasks 1.
     * Invariant: nodes == 0 ? ppn == 1 : tasks == nodes * ppn. */
    int nodes;            /* 0..QSUB_MAX_COUNT; 0 = no node count */
    int ppn;              /* 1..QSUB_MAX_COUNT */
    int tasks;            /* 1..QSUB_MAX_COUNT */
    char **features;      /* nodes=N:feat1:feat2, in order, duplicates dropped */
    size_t nfeatures;     /* at most QSUB_MAX_FEATURES */
    char *hosts;          /* nodes=n1:ppn=2+n2, -l host=n1: "n1:2,n2:1", each named host
                             and the processors the job gets there (one-processor tasks;
                             then nodes 0, ppn 1, tasks the sum); names distinct, at most
                             QSUB_MAX_PATH bytes; NULL = any nodes */
    long walltime;        /* -l walltime: 1..QSUB_MAX_WALLTIME seconds; 0 = not given */
    long mem_mb;          /* -l mem, per job, MB rounded up: 1..QSUB_MAX_MEM_MB; 0 = not given */
    long vmem_mb;         /* -l vmem / pvmem (the smaller): each of the job's processes'
                             address space limit (RLIMIT_AS), MB rounded up:
                             1..QSUB_MAX_MEM_MB; 0 = none */
    int nice;             /* -l nice: the job's processes' nice value, QSUB_MIN_NICE..
                             QSUB_MAX_NICE; 0 = not given (the daemon decides who may go
                             below 0) */
    struct qsub_env *env; /* -v / -V: one entry per name */
    size_t nenv;          /* at most QSUB_MAX_ENV, QSUB_MAX_ENV_BYTES in all */
    char *mail_events;    /* -m: letters of "abef", or "n" */
    char *mail_users;     /* -M: as given, a comma list of user or user@host (letters, digits,
                             ._%+=-; the host letters, digits, . and -), none starting with '-' */
    int rerunnable;       /* -r: 1 y, 0 n, -1 not given */
    char *shell;          /* -S: absolute path */
    char *script;         /* the script's text: 1..QSUB_MAX_SCRIPT bytes, UTF-8, not blank;
                             NULL exactly when interactive (the body is not run) */
    int interactive;      /* -I: the job is a shell on qsub's terminal, not a script (0/1);
                             never with an array (-t, -J) */
    char *warnings;       /* qsub_parse's notes for the user, one line each ("qsub: -k: ...
                             ignored"), or NULL; the client prints them on stderr. Not part
                             of the JSON request. */
};

/*
 * The script operand of a command line, so the caller knows what to read
 * before calling qsub_parse: *path is set to the operand (a pointer into argv)
 * or to NULL when there is none (read stdin, unless *interactive). Only the
 * syntax is checked (unknown options, missing arguments, -X, more than one
 * operand); errors read as qsub_parse's. *interactive (interactive may be
 * NULL) says whether the command line has -I: then, with no operand, there is
 * no script to read (qsub_parse gets script NULL). argv[0] names the command.
 */
int qsub_script_arg(int argc, char *const argv[], const char **path, int *interactive,
                    struct err *err);

/*
 * Parse a submission. argv[0] is the command's name as messages show it
 * ("qsub", "msub", "moku submit"); argv[1..] the options and at most one
 * operand (the script file, which the caller has read: its text is
 * script[0..script_len), which may hold NUL bytes, and then is refused;
 * NULL: none, which only an interactive job (-I) may be).
 * script_name is the file name shown in messages and the default job name,
 * or NULL for stdin ("STDIN"). cwd is the client's working directory
 * (absolute); envp the client's environment ("NAME=value" strings,
 * NULL-terminated, or NULL for none) for -V and -v VAR; now the current
 * epoch time for -a.
 *
 * On success returns 0 and fills *out (release with qsub_free). On error
 * returns -1, leaves *out untouched, and err names the option or the script
 * line: "qsub: -l: bad walltime 'abc' ...",
 * "job.sh:3: #PBS -l: bad walltime 'abc' ...", "job.sh:7: not valid UTF-8".
 */
int qsub_parse(int argc, char *const argv[], const char *script, size_t script_len,
               const char *script_name, const char *cwd, char *const envp[], long now,
               struct qsub_req *out, struct err *err);

/* Release what r owns and zero it; qsub_free(NULL) is a no-op. */
void qsub_free(struct qsub_req *r);

/*
 * Whether r obeys every rule above (types, ranges, lengths, characters, the
 * processor-request invariant). Returns 0, or -1 with err naming the field
 * as JSON does ("request: 'walltime': 0..315360000 expected, got -5").
 */
int qsub_check(const struct qsub_req *r, struct err *err);

/*
 * The request as a JSON object (new reference; caller json_decref()s). Keys:
 * name, account, queue, qos, advres, out_path, err_path, cwd, mail_events,
 * mail_users, shell, script (strings; NULL ones left out), join ("oe"/"eo",
 * left out when none), start_after, nodes, ppn, tasks, walltime, mem_mb
 * (integers), hold, interactive (booleans), rerunnable (boolean, left out when not given),
 * hosts (string, left out when NULL), features (array of strings, left out when empty), env (object
 * of strings, left out when empty). r must pass qsub_check (anything qsub_parse or qsub_from_json
 * made does); else NULL may be returned.
 */
json_t *qsub_to_json(const struct qsub_req *r);

/*
 * A request from untrusted JSON (the daemon's side of the wire). Every field
 * is checked again: j must be an object with only the keys above, each of
 * its type (a JSON null counts as absent); name and cwd are required, and
 * script unless interactive is true (and then refused), the rest default as qsub_parse leaves them;
 * then qsub_check. Never crashes on hostile input (NULL, wrong types, NUL bytes in keys or strings,
 * out-of-range numbers, nesting). On success fills *out (qsub_free); on error returns -1, *out
 * untouched, err "request: ..." naming the field.
 */
int qsub_from_json(const json_t *j, struct qsub_req *out, struct err *err);

/* A walltime as qsub -l walltime= reads it ([[HH:]MM:]SS, DD:HH:MM:SS or
 * seconds; 1 s to 10 years), for qalter. Errors say what was wrong. */
int qsub_walltime(const char *s, long *out, struct err *err);
/* Whether s is a job name qsub -N takes (not empty, no '/', no control
 * characters, at most QSUB_MAX_NAME bytes). Errors name what is wrong. */
int qsub_check_name(const char *s, struct err *err);

#endif
