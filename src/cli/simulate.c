/*
 * simulate — `moku simulate`: its options, the runs they ask for (one per
 * configuration and compared value), the replays and their reports, the
 * chart. The engine (core/, policy/) and the simulator (sim/) do the work;
 * this file wires them together and prints.
 * Exit status: 0 success, 1 a run-time error (bad trace, bad config),
 * 2 bad usage.
 */
#include "cli/simulate.h"
#include "cli/help.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cfg/cfg.h"
#include "cmd/cmd.h"
#include "core/sched.h"
#include "policy/srcfg.h"
#include "sim/batsim.h"
#include "sim/html.h"
#include "sim/plot.h"
#include "sim/report.h"
#include "sim/resvlog.h"
#include "sim/sim.h"
#include "sim/simzone.h"
#include "sim/sim_script.h"
#include "sim/swfout.h"
#include "sim/workload.h"
#include "sim/workload_maui.h"
#include "stats/fsfile.h"
#include "trace/mtrace.h"
#include "trace/swf.h"
#include "util/mem.h"

#define MAX_SHOWS 64
#define MAX_CONFIGS 32 /* --config files */
#define MAX_SETS 64    /* --set lines */
#define MAX_VALUES 32  /* --compare values */
#define MAX_RUNS 64    /* configurations x values */

struct sim_opts {
    const char *configs[MAX_CONFIGS]; /* --config, each one run (none: Maui's defaults) */
    int nconfigs;
    const char *sets[MAX_SETS]; /* --set lines, applied to every run after its file */
    int nsets;
    char *compare[MAX_VALUES]; /* --compare PARAM=V1,V2: the lines "PARAM=Vi", owned */
    int ncompare;
    int classes;      /* --classes: per-class breakdowns in a one-run report */
    const char *plot;   /* --plot FILE.svg */
    const char *series; /* --series FILE.csv */
    const char *html;   /* --html FILE.html */
    const char *swf_out; /* --swf-out FILE.swf */
    const char *batsim_out; /* --batsim-out FILE.csv */
    const char *jobs_out;
    const char *resv_out; /* --resv-out */
    const char *trace;
    const char *resources; /* --resources, else SIMRESOURCETRACEFILE when set */
    const char *statdir;   /* --statdir, else STATDIR: FS data files */
    long long nodes, ppn, procs;
    int json;
    int strict;
    int full_walk; /* --full-walk: eligibility over the whole queue at every iteration */
    long long every; /* --iterate-every N: an iteration at every multiple of N s too */
    long until; /* SIM_FOREVER unless --until */
    const char *commands; /* --commands FILE: the timed command script */
    int quiet;            /* --quiet: log only the script's failing commands */
    const char *timezone; /* --timezone: the calendar of standing reservations */
    const char *shows[MAX_SHOWS];
    int nshows;
};

/* The usage text: the help table's (cli/help_tab.c). */
void sim_usage(FILE *f, int alone)
{
    (void)alone;
    help_print(f, help_find("moku simulate"));
}

static int parse_count(const char *opt, const char *val, long long *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(val, &end, 10);
    if (errno || end == val || *end || v < 1 || v > 100000000) {
        fprintf(stderr, "moku: %s needs a positive number, not '%s'\n", opt, val);
        return -1;
    }
    *out = v;
    return 0;
}

static int parse_until(const char *val, long *until)
{
    struct err e;
    if (cfg_parse_time(val, until, &e) < 0) {
        fprintf(stderr, "moku: --until: %s\n", e.msg);
        return -1;
    }
    return 0;
}

static int add_show(struct sim_opts *o, const char *cmd)
{
    if (o->nshows == MAX_SHOWS) {
        fprintf(stderr, "moku: at most %d --show options\n", MAX_SHOWS);
        return -1;
    }
    o->shows[o->nshows++] = cmd;
    return 0;
}

static int parse_format(const char *val, int *json)
{
    if (strcmp(val, "text") == 0 || strcmp(val, "json") == 0) {
        *json = strcmp(val, "json") == 0;
        return 0;
    }
    fprintf(stderr, "moku: --format takes text or json, not '%s'\n", val);
    return -1;
}

/* An output file's option: a name, given once. */
static int out_path(const char *opt, const char *val, const char **dst)
{
    if (!*val) {
        fprintf(stderr, "moku: %s needs a file name\n", opt);
        return -1;
    }
    if (*dst) {
        fprintf(stderr, "moku: give %s once\n", opt);
        return -1;
    }
    *dst = val;
    return 0;
}

static int add_config(struct sim_opts *o, const char *path)
{
    if (o->nconfigs == MAX_CONFIGS) {
        fprintf(stderr, "moku: at most %d --config options\n", MAX_CONFIGS);
        return -1;
    }
    o->configs[o->nconfigs++] = path;
    return 0;
}

/* A cfg message without the "--set:1: " that cfg_load_string puts first. */
static const char *override_msg(const char *msg)
{
    if (strncmp(msg, "--set:", 6) != 0)
        return msg;
    msg += 6 + strspn(msg + 6, "0123456789");
    return msg + strspn(msg, ": ");
}

/* Check an override on its own, as maui.cfg reads a line: a bad value and
 * an unknown parameter (only a warning in a file) are usage errors here. */
static int check_override(const char *opt, const char *line)
{
    const char *p = line + strspn(line, " \t");
    if (!*p || *p == '#' || strpbrk(line, "\r\n")) {
        fprintf(stderr, "moku: %s needs one maui.cfg line, PARAM=VALUE, not '%s'\n", opt, line);
        return -1;
    }
    struct cfg *cfg = cfg_create();
    struct err e;
    int rc = 0;
    if (cfg_load_string(cfg, line, "--set", &e) < 0) {
        fprintf(stderr, "moku: %s '%s': %s\n", opt, line, override_msg(e.msg));
        rc = -1;
    } else if (cfg_nwarnings(cfg)) {
        fprintf(stderr, "moku: %s '%s': %s\n", opt, line, override_msg(cfg_warning(cfg, 0)));
        rc = -1;
    }
    cfg_destroy(cfg);
    return rc;
}

static int add_set(struct sim_opts *o, const char *line)
{
    if (o->nsets == MAX_SETS) {
        fprintf(stderr, "moku: at most %d --set options\n", MAX_SETS);
        return -1;
    }
    if (check_override("--set", line) < 0)
        return -1;
    o->sets[o->nsets++] = line;
    return 0;
}

/* --compare PARAM=V1,V2,...: the lines PARAM=V1, PARAM=V2, ... */
static int parse_compare(struct sim_opts *o, const char *arg)
{
    size_t name = strcspn(arg, "= \t");
    if (o->ncompare) {
        fprintf(stderr, "moku: give --compare once\n");
        return -1;
    }
    if (name == 0 || arg[name] != '=') {
        fprintf(stderr, "moku: --compare needs PARAM=VALUE,VALUE,..., not '%s'\n", arg);
        return -1;
    }
    for (const char *v = arg + name + 1;; v++) {
        size_t len = strcspn(v, ",");
        if (len == 0) {
            fprintf(stderr, "moku: --compare: an empty value in '%s'\n", arg);
            return -1;
        }
        if (o->ncompare == MAX_VALUES) {
            fprintf(stderr, "moku: --compare takes at most %d values\n", MAX_VALUES);
            return -1;
        }
        char *line = xprintf("%.*s=%.*s", (int)name, arg, (int)len, v);
        o->compare[o->ncompare++] = line;
        if (check_override("--compare", line) < 0)
            return -1;
        v += len;
        if (!*v)
            return 0;
    }
}

static void sim_opts_free(struct sim_opts *o)
{
    for (int i = 0; i < o->ncompare; i++)
        free(o->compare[i]);
}

/* How many runs the options ask for: one per configuration and value. */
static int nruns(const struct sim_opts *o)
{
    return (o->nconfigs ? o->nconfigs : 1) * (o->ncompare ? o->ncompare : 1);
}

/* No two outputs in one file, and none over the trace (or the inputs). */
static int check_out_paths(const struct sim_opts *o)
{
    const char *const outs[] = {o->jobs_out, o->resv_out, o->plot, o->series,
                                o->html,     o->swf_out,  o->batsim_out};
    const char *const names[] = {"--jobs-out", "--resv-out", "--plot", "--series",
                                 "--html",     "--swf-out",  "--batsim-out"};
    size_t n = sizeof outs / sizeof *outs;
    for (size_t i = 0; i < n; i++) {
        if (!outs[i])
            continue;
        if (o->trace && strcmp(outs[i], o->trace) == 0) {
            fprintf(stderr, "moku: %s %s would overwrite the trace\n", names[i], outs[i]);
            return -1;
        }
        for (size_t j = i + 1; j < n; j++)
            if (outs[j] && strcmp(outs[i], outs[j]) == 0) {
                fprintf(stderr, "moku: %s and %s name the same file %s\n", names[i], names[j],
                        outs[i]);
                return -1;
            }
    }
    return 0;
}

static int check_sim_args(const struct sim_opts *o)
{
    if (o->resources && (o->procs || o->nodes)) {
        fprintf(stderr, "moku: give either --resources or --nodes/--ppn/--procs, not both\n");
        return -1;
    }
    if (o->procs && (o->nodes || o->ppn)) {
        fprintf(stderr, "moku: give either --procs or --nodes/--ppn, not both\n");
        return -1;
    }
    if (o->resv_out && (o->ncompare || o->nconfigs > 1)) {
        fprintf(stderr, "moku: --resv-out writes the reservations of one run: not with "
                        "several --config or --compare\n");
        return -1;
    }
    if (o->swf_out && (o->ncompare || o->nconfigs > 1)) {
        fprintf(stderr, "moku: --swf-out writes the schedule of one run: not with "
                        "several --config or --compare\n");
        return -1;
    }
    if (o->nshows && (o->series || o->html || o->plot || o->swf_out || o->batsim_out)) {
        fprintf(stderr, "moku: --show prints answers instead of the report: not with --plot, "
                        "--series, --html, --swf-out or --batsim-out\n");
        return -1;
    }
    if (check_out_paths(o) < 0)
        return -1;
    if (!o->nodes != !o->ppn) {
        fprintf(stderr, "moku: --nodes and --ppn go together\n");
        return -1;
    }
    if (nruns(o) > MAX_RUNS) {
        fprintf(stderr, "moku: at most %d runs (configurations x --compare values)\n", MAX_RUNS);
        return -1;
    }
    if (nruns(o) > 1 && o->nshows) {
        fprintf(stderr, "moku: --show answers from one run; give one configuration\n");
        return -1;
    }
    return 0;
}

static int parse_sim_args(int argc, char **argv, struct sim_opts *o)
{
    static const struct option longopts[] = {
        {"config", required_argument, NULL, 'c'}, {"nodes", required_argument, NULL, 'n'},
        {"ppn", required_argument, NULL, 'p'},    {"procs", required_argument, NULL, 'P'},
        {"jobs-out", required_argument, NULL, 'o'}, {"format", required_argument, NULL, 'f'},
        {"resv-out", required_argument, NULL, 'V'},
        {"strict", no_argument, NULL, 's'},       {"help", no_argument, NULL, 'h'},
        {"until", required_argument, NULL, 'u'},  {"show", required_argument, NULL, 'S'},
        {"resources", required_argument, NULL, 'R'}, {"statdir", required_argument, NULL, 'D'},
        {"commands", required_argument, NULL, 'C'}, {"quiet", no_argument, NULL, 'q'},
        {"timezone", required_argument, NULL, 'z'}, {"set", required_argument, NULL, 'e'},
        {"compare", required_argument, NULL, 'm'}, {"classes", no_argument, NULL, 'K'},
        {"plot", required_argument, NULL, 'L'},   {"full-walk", no_argument, NULL, 'W'},
        {"series", required_argument, NULL, 'T'}, {"html", required_argument, NULL, 'H'},
        {"swf-out", required_argument, NULL, 'O'}, {"batsim-out", required_argument, NULL, 'B'},
        {"iterate-every", required_argument, NULL, 'I'},
        {NULL, 0, NULL, 0},
    };
    int c, bad = 0;
    optind = 1;
    o->until = SIM_FOREVER;
    while ((c = getopt_long(argc, argv, "c:o:f:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'c': bad |= add_config(o, optarg); break;
        case 'e': bad |= add_set(o, optarg); break;
        case 'm': bad |= parse_compare(o, optarg); break;
        case 'K': o->classes = 1; break;
        case 'L': bad |= out_path("--plot", optarg, &o->plot); break;
        case 'T': bad |= out_path("--series", optarg, &o->series); break;
        case 'H': bad |= out_path("--html", optarg, &o->html); break;
        case 'O': bad |= out_path("--swf-out", optarg, &o->swf_out); break;
        case 'B': bad |= out_path("--batsim-out", optarg, &o->batsim_out); break;
        case 'o': bad |= out_path("--jobs-out", optarg, &o->jobs_out); break;
        case 'V': bad |= out_path("--resv-out", optarg, &o->resv_out); break;
        case 'n': bad |= parse_count("--nodes", optarg, &o->nodes); break;
        case 'p': bad |= parse_count("--ppn", optarg, &o->ppn); break;
        case 'P': bad |= parse_count("--procs", optarg, &o->procs); break;
        case 'f': bad |= parse_format(optarg, &o->json); break;
        case 's': o->strict = 1; break;
        case 'W': o->full_walk = 1; break;
        case 'I': bad |= parse_count("--iterate-every", optarg, &o->every); break;
        case 'u': bad |= parse_until(optarg, &o->until); break;
        case 'S': bad |= add_show(o, optarg); break;
        case 'R': o->resources = optarg; break;
        case 'D': o->statdir = optarg; break;
        case 'C': o->commands = optarg; break;
        case 'q': o->quiet = 1; break;
        case 'z': o->timezone = optarg; break;
        case 'h': sim_usage(stdout, 1); exit(0);
        default: bad = -1;
        }
    }
    if (bad)
        return -1;
    if (optind != argc - 1) {
        fprintf(stderr, "moku: simulate needs exactly one trace file\n");
        return -1;
    }
    o->trace = argv[optind];
    return check_sim_args(o);
}

static void add_uniform_nodes(struct sched *s, long long nodes, long long ppn)
{
    char name[32];
    int width = snprintf(NULL, 0, "%lld", nodes);
    for (long long i = 1; i <= nodes; i++) {
        snprintf(name, sizeof name, "node%0*lld", width, i);
        struct node_spec spec = {.name = name, .procs = (int)ppn, .state = NODE_UP};
        sched_add_node(s, &spec, NULL); /* generated names are unique */
    }
}

/* Nodes of a Maui resource trace. */
static int add_trace_nodes(struct sched *s, const char *path)
{
    struct wl_nodes nodes;
    struct err e;
    if (workload_nodes_from_resource_trace(path, &nodes, &e) < 0) {
        fprintf(stderr, "moku: %s\n", e.msg);
        return -1;
    }
    int rc = 0;
    for (size_t i = 0; i < nodes.n && rc == 0; i++)
        if (sched_add_node(s, &nodes.specs[i], &e) < 0) {
            fprintf(stderr, "moku: %s: %s\n", path, e.msg);
            rc = -1;
        }
    workload_nodes_free(&nodes);
    return rc;
}

/*
 * The cluster: NODECFG lines, else --nodes/--ppn or --procs, else a resource
 * trace (--resources or SIMRESOURCETRACEFILE), else the trace header
 * (MaxNodes nodes of MaxProcs/MaxNodes processors when that divides evenly,
 * else MaxProcs one-processor nodes).
 */
static int build_cluster(struct sched *s, const struct cfg *cfg, const char *cfgname,
                         const struct sim_opts *o, const struct workload *wl)
{
    struct err e;
    if (sched_add_nodes_from_cfg(s, cfg, &e) < 0) {
        fprintf(stderr, "moku: %s\n", e.msg);
        return -1;
    }
    if (sched_nnodes(s) && (o->procs || o->nodes || o->resources)) {
        fprintf(stderr, "moku: %s defines nodes (NODECFG); drop --nodes/--ppn/--procs/"
                        "--resources or the NODECFG lines\n", cfgname);
        return -1;
    }
    if (sched_nnodes(s))
        return 0;
    const char *rtrace = o->resources;
    if (!rtrace && !o->nodes && !o->procs && cfg_is_set(cfg, "SIMRESOURCETRACEFILE", NULL))
        rtrace = cfg_str(cfg, "SIMRESOURCETRACEFILE", NULL);
    if (rtrace)
        return add_trace_nodes(s, rtrace);
    if (o->nodes)
        add_uniform_nodes(s, o->nodes, o->ppn);
    else if (o->procs)
        add_uniform_nodes(s, o->procs, 1);
    else if (wl->max_nodes > 0 && wl->max_procs > 0 && wl->max_procs % wl->max_nodes == 0)
        add_uniform_nodes(s, wl->max_nodes, wl->max_procs / wl->max_nodes);
    else if (wl->max_procs > 0)
        add_uniform_nodes(s, wl->max_procs, 1);
    else {
        fprintf(stderr, "moku: no cluster: %s has no MaxProcs header; give NODECFG lines, "
                        "--nodes N --ppn P or --procs N\n", o->trace);
        return -1;
    }
    return 0;
}

static int load_swf(const struct sim_opts *o, struct workload *wl)
{
    struct err e;
    int rc = workload_read_swf(o->trace, o->strict, wl, &e);
    if (rc < 0)
        fprintf(stderr, "moku: %s\n", e.msg);
    return rc;
}

/* The workload, in whichever format the trace's content shows. */
static int load_workload(const struct sim_opts *o, struct workload *wl)
{
    struct err e;
    switch (mtrace_detect(o->trace, &e)) {
    case MTRACE_SWF:
        return load_swf(o, wl);
    case MTRACE_MAUI_WORKLOAD:
        if (workload_from_maui(o->trace, o->strict, wl, &e) == 0)
            return 0;
        break;
    case MTRACE_MAUI_RESOURCE:
        snprintf(e.msg, sizeof e.msg, "%s is a resource trace (nodes); give it with --resources",
                 o->trace);
        break;
    case MTRACE_ERROR:
        break;
    }
    fprintf(stderr, "moku: %s\n", e.msg);
    return -1;
}

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void progress_bar(void *ctx, size_t done, size_t total)
{
    (void)ctx;
    int width = 40, filled = total ? (int)((double)done / (double)total * width) : width;
    fprintf(stderr, "\r[%.*s%*s] %3d%%  %zu/%zu jobs", filled,
            "########################################", width - filled, "",
            total ? (int)(100.0 * (double)done / (double)total) : 100, done, total);
    if (done >= total)
        fprintf(stderr, "\r%*s\r", width + 40, "");
}

/* An output file (--jobs-out, --plot), or NULL after saying why. */
static FILE *open_out(const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f)
        fprintf(stderr, "moku: %s: cannot write: %s\n", path, strerror(errno));
    return f;
}

/* Close an output file; -1 after saying why if anything written was lost. */
static int close_out(FILE *f, const char *path)
{
    int bad = ferror(f);
    if (fclose(f) != 0 || bad) {
        fprintf(stderr, "moku: %s: write failed: %s\n", path, strerror(errno));
        return -1;
    }
    return 0;
}

static const char *backfill_name(enum bf_policy b)
{
    switch (b) {
    case BF_NONE: return "NONE";
    case BF_FIRSTFIT: return "FIRSTFIT";
    case BF_BESTFIT: return "BESTFIT";
    case BF_GREEDY: return "GREEDY";
    case BF_PREEMPT: return "PREEMPT";
    }
    return "?";
}

static void policy_text(const struct sched_policy *p, char *buf, size_t len)
{
    snprintf(buf, len, "BACKFILLPOLICY %s, RESERVATIONDEPTH %d, JOBMAXOVERRUN %ld",
             backfill_name(p->backfill), p->resdepth, p->overrun);
}

/* Answer every --show command from the state where the replay stopped. */
static int print_shows(struct sched *s, const struct cfg *cfg, const struct sim_opts *o,
                       const struct workload *wl)
{
    struct cmd_ctx ctx = {
        .s = s,
        .cfg = cfg,
        .now = o->until != SIM_FOREVER ? o->until : sched_last_iteration(s),
        .epoch_offset = wl->unix_start > 0 ? (long)wl->unix_start : 0,
    };
    int rc = 0;
    for (int i = 0; i < o->nshows; i++) {
        char *out = NULL;
        struct err e;
        if (cmd_run(&ctx, o->shows[i], &out, &e) < 0) {
            fprintf(stderr, "moku: --show \"%s\": %s\n", o->shows[i], e.msg);
            rc = -1;
            continue;
        }
        fputs(out, stdout);
        if (i + 1 < o->nshows)
            fputc('\n', stdout);
        free(out);
    }
    return rc;
}

static void warn(void *ctx, const char *msg)
{
    (void)ctx;
    fprintf(stderr, "moku: warning: %s\n", msg);
}

/* What the replay's callbacks need. */
struct replay_ctx {
    const char *statdir;        /* FS data files are written here (FSPOLICY set), else NULL */
    const char *script;         /* --commands FILE, for messages */
    int quiet;                  /* --quiet */
    int run;                    /* of a comparison, from 1, for messages; 0: the only run */
    struct plot_series *series; /* --plot: where the samples go, else NULL */
    struct resvlog *resvs;      /* --resv-out: the reservations seen, else NULL */
};

/* A fairshare window ended in simulated time: write its FS data file.
 * Failing to write is reported once, and the replay goes on. */
static void save_window(void *ctx, struct sched *s, int slot)
{
    const struct replay_ctx *r = ctx;
    static int failed;
    struct err e;
    if (!failed && fsfile_save(r->statdir, s, slot, FSFILE_NOSYNC, &e) < 0) {
        fprintf(stderr, "moku: warning: %s (no more FS data files are written)\n", e.msg);
        failed = 1;
    }
}

/* Fairshare: windows align on the trace's epoch clock; the last FSDEPTH
 * windows before the first event are read back from the FS data files. */
static const char *setup_fairshare(struct sched *s, const struct cfg *cfg,
                                   const struct sim_opts *o, const struct workload *wl)
{
    sched_set_epoch(s, wl->unix_start > 0 ? (long)wl->unix_start : 0);
    if (fs_params(sched_fs(s))->policy == FS_NONE)
        return NULL;
    const char *dir = o->statdir ? o->statdir : cfg_str(cfg, "STATDIR", NULL);
    if (wl->njobs) {
        fs_advance(sched_fs(s), wl->jobs[0].submit);
        fsfile_load(dir, s, warn, NULL);
    }
    return dir;
}

/* "moku: ", and the run's number in a comparison. */
static void log_prefix(const struct replay_ctx *r)
{
    if (r->run)
        fprintf(stderr, "moku: run %d: ", r->run);
    else
        fputs("moku: ", stderr);
}

/* A script command ran (--commands): the command, then its answer, on
 * standard error; a failure names the script's line. */
static void log_command(void *ctx, const struct sim_script_cmd *cmd, const char *out,
                        const char *err)
{
    const struct replay_ctx *r = ctx;
    if (r->quiet && !err)
        return;
    log_prefix(r);
    fprintf(stderr, "[%ld] %s\n", cmd->t, cmd->text);
    if (err)
        fprintf(stderr, "moku: %s:%ld: %s\n", r->script, cmd->line, err);
    else
        fputs(out, stderr);
}

/* A TRIGGER exec/submit action came due: a replay says so and runs nothing. */
static void log_trigger(void *ctx, const struct sched_fired *f)
{
    const struct replay_ctx *r = ctx;
    if (r->quiet)
        return;
    log_prefix(r);
    fprintf(stderr, "[%ld] reservation %s %s: trigger %s '%s' not run in a simulation\n",
            f->at, f->resv, f->event, f->submit ? "submit" : "exec", f->data);
}

/* Each line of text (which it frees) to stderr after prefix. */
static void print_lines(const char *prefix, char *text)
{
    for (char *p = text, *nl; p && *p; p = nl + 1) {
        nl = strchr(p, '\n');
        if (!nl)
            nl = p + strlen(p) - 1; /* the last line, unended */
        fprintf(stderr, "%s%.*s\n", prefix, (int)(nl - p + (*nl != '\n')), p);
    }
    free(text);
}

/* Standing reservations (SRCFG) and the calendar they follow: --timezone,
 * else the trace's TimeZoneString (a zone this machine does not know is
 * reported and UTC used), else UTC. */
static int setup_reservations(struct sched *s, const struct cfg *cfg, const struct sim_opts *o,
                              const struct workload *wl)
{
    struct simzone z;
    struct err e;
    if (simzone_parse(o->timezone ? o->timezone : wl->tz[0] ? wl->tz : NULL, &z, &e) < 0) {
        if (o->timezone) {
            fprintf(stderr, "moku: --timezone: %s\n", e.msg);
            return -1;
        }
        fprintf(stderr, "moku: %s: %s; standing reservations follow UTC\n", o->trace, e.msg);
        simzone_parse(NULL, &z, &e);
    }
    simzone_apply(&z);
    sched_set_zone(s, z.local, z.offset);
    if (sched_standing_from_cfg(s, cfg, &e) < 0) {
        fprintf(stderr, "moku: %s\n", e.msg);
        return -1;
    }
    print_lines("moku: warning: ", sched_standing_warnings(s));
    return 0;
}

/* Standing reservations that went wanting in the replay (no room left by
 * DEDICATED ones, nodes down): how many windows, and the last reason. */
static void report_wanting(const struct sched *s)
{
    for (size_t i = 0; i < sched_nstanding(s); i++) {
        long windows;
        const char *why = sched_standing_wanting(s, i, &windows);
        if (windows)
            fprintf(stderr, "moku: warning: %s: %ld window%s placed nothing%s%s\n",
                    sched_standing_at(s, i)->where, windows, windows == 1 ? "" : "s",
                    why ? ": " : "", why ? why : "");
    }
}

/* The output files, opened before the first replay so that a path that
 * cannot be written costs no replay; NULL when not asked for. */
struct outputs {
    FILE *jobs, *batsim, *swf, *plot, *series, *html;
};

/* Open each file asked for; on failure close those opened and return -1. */
static int open_outputs(const struct sim_opts *o, struct outputs *w)
{
    const char *paths[] = {o->nshows ? NULL : o->jobs_out, o->batsim_out, o->swf_out,
                           o->plot, o->series, o->html};
    FILE **files[] = {&w->jobs, &w->batsim, &w->swf, &w->plot, &w->series, &w->html};
    *w = (struct outputs){0};
    for (size_t i = 0; i < sizeof paths / sizeof *paths; i++) {
        if (paths[i] && !(*files[i] = open_out(paths[i]))) {
            for (size_t k = 0; k < i; k++)
                if (*files[k])
                    fclose(*files[k]);
            return -1;
        }
    }
    return 0;
}

/* Close them all; -1 after saying so when anything written was lost. */
static int close_outputs(const struct sim_opts *o, struct outputs *w)
{
    const char *paths[] = {o->jobs_out, o->batsim_out, o->swf_out, o->plot, o->series, o->html};
    FILE *files[] = {w->jobs, w->batsim, w->swf, w->plot, w->series, w->html};
    int rc = 0;
    for (size_t i = 0; i < sizeof paths / sizeof *paths; i++)
        if (files[i] && close_out(files[i], paths[i]) < 0)
            rc = -1;
    *w = (struct outputs){0};
    return rc;
}

/* One run of a comparison: the workload through one configuration. */
struct run {
    const char *config;                  /* --config FILE, NULL: Maui's defaults */
    const char *overrides[MAX_SETS + 1]; /* the --set lines, then the --compare line */
    size_t noverrides;
    int varied; /* the last override is this run's --compare value */
    struct cfg *cfg;
    struct sched_policy pol;
    char policy[256]; /* as the one-run report prints it */
    struct report report;
    struct plot_series series; /* --plot */
};

/* Each --config (or Maui's defaults) with each --compare value (or none). */
static size_t plan_runs(const struct sim_opts *o, struct run *runs)
{
    size_t n = 0;
    for (int c = 0; c < (o->nconfigs ? o->nconfigs : 1); c++)
        for (int v = 0; v < (o->ncompare ? o->ncompare : 1); v++) {
            struct run *r = &runs[n++];
            r->config = o->nconfigs ? o->configs[c] : NULL;
            for (int k = 0; k < o->nsets; k++)
                r->overrides[r->noverrides++] = o->sets[k];
            if (o->ncompare) {
                r->overrides[r->noverrides++] = o->compare[v];
                r->varied = 1;
            }
        }
    return n;
}

/* The run's configuration: its file, printing the file's warnings, then
 * the overrides in order, so they win. */
static int load_run_cfg(struct run *r)
{
    struct err e;
    r->cfg = cfg_create();
    if (r->config) {
        if (cfg_load_file(r->cfg, r->config, &e) < 0) {
            fprintf(stderr, "moku: %s\n", e.msg);
            return -1;
        }
        for (size_t i = 0; i < cfg_nwarnings(r->cfg); i++)
            fprintf(stderr, "moku: warning: %s\n", cfg_warning(r->cfg, i));
    }
    for (size_t k = 0; k < r->noverrides; k++)
        if (cfg_load_string(r->cfg, r->overrides[k], "--set", &e) < 0) {
            fprintf(stderr, "moku: --set '%s': %s\n", r->overrides[k], override_msg(e.msg));
            return -1;
        }
    return 0;
}

static int load_run_policy(struct run *r)
{
    struct err e;
    if (sched_policy_from_cfg(r->cfg, &r->pol, &e) < 0) {
        fprintf(stderr, "moku: %s: %s\n", r->config ? r->config : "configuration", e.msg);
        return -1;
    }
    policy_text(&r->pol, r->policy, sizeof r->policy);
    return 0;
}

/* The run's scheduler: credentials, limits, nodes and standing
 * reservations from its configuration. NULL after saying why. */
static struct sched *build_sched(const struct run *r, const struct sim_opts *o,
                                 const struct workload *wl)
{
    struct err e;
    struct sched *s = sched_create(&r->pol, NULL);
    sched_set_full_walk(s, o->full_walk);
    if (sched_creds_from_cfg(s, r->cfg, &e) < 0 || sched_limits_from_cfg(s, r->cfg, &e) < 0) {
        fprintf(stderr, "moku: %s\n", e.msg);
        sched_destroy(s);
        return NULL;
    }
    if (build_cluster(s, r->cfg, r->config ? r->config : "--set", o, wl) < 0 ||
        setup_reservations(s, r->cfg, o, wl) < 0) {
        sched_destroy(s);
        return NULL;
    }
    return s;
}

/* The outputs that need the state over time: --plot, --series, --html. */
static int wants_series(const struct sim_opts *o)
{
    return o->plot || o->series || o->html;
}

static void record_sample(void *ctx, const struct sim_sample *smp)
{
    const struct replay_ctx *r = ctx;
    plot_series_add(r->series, smp->now, smp->busy_procs, smp->up_procs, smp->idle, smp->running);
}

/* --plot: about PLOT_POINTS bins over the submissions up to --until (the
 * series widens them if the replay runs much longer). */
static void start_series(struct plot_series *p, const struct workload *wl, long until)
{
    long first = wl->njobs ? wl->jobs[0].submit : 0;
    long last = wl->njobs ? wl->jobs[wl->njobs - 1].submit : 0;
    plot_series_init(p, first, plot_bin_width(first, last < until ? last : until, PLOT_POINTS));
}

/* --swf-out: the schedule as SWF (one run). */
static int write_swf(FILE *f, const struct run *r, const struct sim_opts *o,
                     const struct workload *wl, const struct sim_outcome *out,
                     const struct sched *s)
{
    struct err e;
    struct swfout_info info = {.trace = o->trace,
                               .trace_is_swf = mtrace_detect(o->trace, &e) == MTRACE_SWF,
                               .config = r->config ? r->config : "defaults",
                               .policy = r->policy,
                               .nodes = (long long)sched_nnodes(s),
                               .procs = sched_up_procs(s),
                               .unix_start = wl->unix_start,
                               .tz = wl->tz};
    if (swfout_write(f, wl, out, &info, &e) < 0) {
        fprintf(stderr, "moku: --swf-out %s: %s\n", o->swf_out, e.msg);
        return -1;
    }
    return 0;
}

/* Replay run number idx (from 0) of n and measure it, or answer --show.
 * Only the only run writes FS data files: the runs of a comparison all
 * start from the same fairshare history. */
/* --resv-out: the reservations of each iteration (resvlog). */
static void note_resvs(void *ctx, const struct sched *s, long now)
{
    struct replay_ctx *rc = ctx;
    resvlog_note(rc->resvs, s, now);
}

static int replay_run(struct run *r, size_t idx, size_t n, const struct sim_opts *o,
                      const struct workload *wl, const struct sim_script *script,
                      const struct outputs *outs)
{
    FILE *jobs = outs->jobs;
    struct sched *s = build_sched(r, o, wl);
    if (!s)
        return -1;
    struct sim_outcome *out = xcalloc(wl->njobs ? wl->njobs : 1, sizeof *out);
    struct replay_ctx rctx = {.statdir = setup_fairshare(s, r->cfg, o, wl),
                              .script = o->commands,
                              .quiet = o->quiet,
                              .run = n > 1 ? (int)idx + 1 : 0,
                              .series = wants_series(o) ? &r->series : NULL};
    struct sim_hooks hooks = {
        /* The bar would garble the script's log on the same stream. */
        .progress = isatty(2) && !script ? progress_bar : NULL,
        .sample = wants_series(o) ? record_sample : NULL,
        .fs_window = rctx.statdir && n == 1 ? save_window : NULL,
        .script = script,
        .cfg = r->cfg,
        .epoch_offset = wl->unix_start > 0 ? (long)wl->unix_start : 0,
        .command = log_command,
        .trigger = log_trigger,
        .record_nodes = jobs || outs->batsim,
        .iterated = o->resv_out ? note_resvs : NULL,
        /* Commands (timed, or --show at the end) may ask about past jobs. */
        .forget_ended = !script && !o->nshows,
        .iterate_every = (long)o->every,
        .ctx = &rctx,
    };
    if (o->resv_out)
        rctx.resvs = resvlog_create();
    if (wants_series(o))
        start_series(&r->series, wl, o->until);
    double t0 = wall_now();
    sim_run(s, wl, out, o->until, &hooks);
    report_wanting(s);
    int rc = 0;
    if (o->nshows) {
        rc = print_shows(s, r->cfg, o, wl);
    } else {
        /* The replay's wall time: not the report's sorting. */
        r->report.wall_seconds = wall_now() - t0;
        report_compute(&r->report, wl, out, sched_up_procs(s), s);
        r->report.nodes = sched_nnodes(s);
        r->report.backfilled = sched_stats(s)->backfilled;
        r->report.iterations = sched_stats(s)->iterations;
    }
    if (jobs) /* with --show too: the schedule the answers come from */
        report_write_jobs_csv(jobs, wl, out, s, sched_last_iteration(s), n > 1 ? (int)idx + 1 : 0);
    if (outs->batsim)
        batsim_write_jobs(outs->batsim, wl, out, s, n > 1 ? (int)idx + 1 : 0);
    if (outs->swf && write_swf(outs->swf, r, o, wl, out, s) < 0)
        rc = -1;
    if (rctx.resvs) {
        FILE *f = open_out(o->resv_out);
        if (!f || resvlog_write(rctx.resvs, f) < 0 || close_out(f, o->resv_out) < 0)
            rc = -1;
        resvlog_destroy(rctx.resvs);
    }
    sim_outcomes_free(out, wl->njobs);
    free(out);
    sched_destroy(s);
    return rc;
}

static void print_reports(const struct run *runs, size_t n, const struct sim_opts *o)
{
    if (n == 1 && o->json) {
        report_print_json(stdout, &runs[0].report, o->classes);
    } else if (n == 1) {
        report_print_text(stdout, &runs[0].report, o->trace, runs[0].policy);
        if (o->classes)
            report_print_classes_text(stdout, &runs[0].report);
    } else {
        struct report_run *rr = xcalloc(n, sizeof *rr);
        for (size_t i = 0; i < n; i++)
            rr[i] = (struct report_run){.config = runs[i].config,
                                        .overrides = runs[i].overrides,
                                        .noverrides = runs[i].noverrides,
                                        .varied = runs[i].varied,
                                        .backfill = backfill_name(runs[i].pol.backfill),
                                        .resdepth = runs[i].pol.resdepth,
                                        .r = runs[i].report};
        if (o->json)
            report_print_runs_json(stdout, rr, n);
        else
            report_print_runs_text(stdout, o->trace, rr, n);
        free(rr);
    }
}

/* A chart line per run, named by its configuration and --compare value
 * (plot_lines_free frees them). */
static struct plot_line *plot_lines(const struct run *runs, size_t n)
{
    struct plot_line *lines = xcalloc(n, sizeof *lines);
    for (size_t i = 0; i < n; i++) {
        const struct run *r = &runs[i];
        lines[i].series = &r->series;
        lines[i].label = xprintf("%s%s%s", r->config ? r->config : "defaults", r->varied ? " " : "",
                                 r->varied ? r->overrides[r->noverrides - 1] : "");
    }
    return lines;
}

static void plot_lines_free(struct plot_line *lines, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free((char *)lines[i].label);
    free(lines);
}

/* A configuration file's text for the HTML report (caller frees), NULL when
 * it cannot be read; at most 1 MB of it. */
static char *read_text(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    size_t cap = 1 << 20;
    char *text = xmalloc(cap + 1);
    size_t len = fread(text, 1, cap, f);
    text[len] = 0;
    fclose(f);
    return text;
}

/* --html FILE: the page, a column (a line) per run. */
static void write_html(FILE *f, const struct run *runs, const struct plot_line *lines, size_t n,
                       const struct sim_opts *o)
{
    struct html_run *h = xcalloc(n, sizeof *h);
    for (size_t i = 0; i < n; i++)
        h[i] = (struct html_run){.label = lines[i].label,
                                 .config = runs[i].config,
                                 .config_text = runs[i].config ? read_text(runs[i].config) : NULL,
                                 .overrides = runs[i].overrides,
                                 .noverrides = runs[i].noverrides,
                                 .policy = runs[i].policy,
                                 .r = &runs[i].report,
                                 .series = &runs[i].series};
    html_write_report(f, o->trace, h, n);
    for (size_t i = 0; i < n; i++)
        free((char *)h[i].config_text);
    free(h);
}

/* --plot FILE.svg, --series FILE.csv, --html FILE: a line (rows, a
 * column) per run. Errors
 * surface when the files are closed. */
static void write_series(const struct run *runs, size_t n, const struct sim_opts *o,
                         const struct outputs *outs)
{
    struct plot_line *lines = plot_lines(runs, n);
    if (outs->plot) {
        char *title = xprintf("moku simulate: %s", o->trace);
        plot_write_svg(outs->plot, title, lines, n);
        free(title);
    }
    if (outs->series)
        plot_write_csv(outs->series, lines, n);
    if (outs->html)
        write_html(outs->html, runs, lines, n, o);
    plot_lines_free(lines, n);
}

/* Replay every run in turn, then report them. The --jobs-out file is
 * opened first, so a path that cannot be written costs no replay. */
static int replay_all(struct run *runs, size_t n, const struct sim_opts *o,
                      const struct workload *wl, const struct sim_script *script)
{
    struct outputs outs;
    if (open_outputs(o, &outs) < 0)
        return -1;
    int failed = 0;
    for (size_t i = 0; i < n && !failed; i++)
        failed = replay_run(&runs[i], i, n, o, wl, script, &outs) < 0;
    if (!failed)
        write_series(runs, n, o, &outs);
    /* A file that could not be written fails the command, but the report
     * of a finished replay is still worth printing. */
    int lost = close_outputs(o, &outs) < 0;
    if (failed)
        return -1;
    if (!o->nshows)
        print_reports(runs, n, o);
    return lost ? -1 : 0;
}

static void free_runs(struct run *runs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        cfg_destroy(runs[i].cfg);
        report_free(&runs[i].report);
        plot_series_free(&runs[i].series);
    }
    free(runs);
}

static int simulate(const struct sim_opts *o)
{
    struct run *runs = xcalloc(MAX_RUNS, sizeof *runs);
    size_t n = plan_runs(o, runs);
    struct workload wl = {0};
    struct sim_script *script = NULL;
    struct err e;
    int rc = 1;
    for (size_t i = 0; i < n; i++)
        if (load_run_cfg(&runs[i]) < 0)
            goto out;
    if (o->commands && !(script = sim_script_load(o->commands, &e))) {
        fprintf(stderr, "moku: %s\n", e.msg);
        goto out;
    }
    for (size_t i = 0; i < n; i++)
        if (load_run_policy(&runs[i]) < 0)
            goto out;
    double t0 = wall_now();
    if (load_workload(o, &wl) < 0)
        goto out;
    double read = wall_now() - t0;
    for (size_t i = 0; i < n; i++)
        runs[i].report.read_seconds = read;
    rc = replay_all(runs, n, o, &wl, script) < 0 ? 1 : 0;
out:
    sim_script_destroy(script);
    workload_free(&wl);
    free_runs(runs, n);
    return rc;
}

int sim_main(int argc, char **argv)
{
    struct sim_opts o = {0};
    int rc = 2;
    if (parse_sim_args(argc, argv, &o) < 0)
        help_hint(help_find("moku simulate")); /* the error is said already, one line */
    else
        rc = simulate(&o);
    sim_opts_free(&o);
    return rc;
}
