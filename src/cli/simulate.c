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
#include "cli/simulate_int.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cfg/cfg.h"
#include "cmd/cmd.h"
#include "engine/engine.h"
#include "policy/fs.h"
#include "policy/srcfg.h"
#include "sim/batsim.h"
#include "sim/estimate.h"
#include "sim/html.h"
#include "sim/plot.h"
#include "sim/report.h"
#include "sim/resvlog.h"
#include "sim/sim.h"
#include "sim/sim_script.h"
#include "sim/sim_submit.h"
#include "sim/simzone.h"
#include "sim/swfout.h"
#include "sim/workload.h"
#include "sim/workload_acct.h"
#include "sim/workload_maui.h"
#include "stats/fsfile.h"
#include "trace/homelog.h"
#include "trace/mtrace.h"
#include "trace/swf.h"
#include "trace/trace.h"
#include "util/mem.h"

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

static int parse_estimates(const char *val, struct estimate *e)
{
    struct err err;
    if (estimate_parse(val, e, &err) < 0) {
        fprintf(stderr, "moku: %s\n", err.msg);
        return -1;
    }
    return 0;
}

/* --warmup, --cooldown: a duration, as --until reads a time. */
static int parse_span(const char *opt, const char *val, long *out)
{
    struct err e;
    if (cfg_parse_time(val, out, &e) < 0 || *out < 0) {
        fprintf(stderr, "moku: %s needs a duration (seconds or [[DD:]HH:]MM:SS), not '%s'\n", opt,
                val);
        return -1;
    }
    return 0;
}

static int parse_tau(const char *val, double *tau)
{
    char *end;
    errno = 0;
    double v = strtod(val, &end);
    if (errno || end == val || *end || !(v > 0) || v > 1e9) {
        fprintf(stderr, "moku: --bsld-tau needs a number of seconds above 0, not '%s'\n", val);
        return -1;
    }
    *tau = v;
    return 0;
}

static int parse_small(const char *opt, const char *val, long max, long *out)
{
    long long v = 0;
    if (parse_count(opt, val, &v) < 0)
        return -1;
    if (v > max) {
        fprintf(stderr, "moku: %s takes at most %ld\n", opt, max);
        return -1;
    }
    *out = (long)v;
    return 0;
}

static int parse_run(const char *val, int *run)
{
    long k = 0;
    if (parse_small("--run", val, MAX_RUNS, &k) < 0)
        return -1;
    *run = (int)k;
    return 0;
}

/* Options that say how a comparison is run, not what it is: left out of
 * its key, so the runs of one comparison made apart have the same. */
static int run_option(const char *a, int *takes_value)
{
    static const char *const opts[] = {"--run", "--save-run", "--jobs"};
    for (size_t i = 0; i < sizeof opts / sizeof *opts; i++) {
        size_t n = strlen(opts[i]);
        if (strncmp(a, opts[i], n) == 0 && (a[n] == '\0' || a[n] == '=')) {
            *takes_value = a[n] == '\0';
            return 1;
        }
    }
    return 0;
}

/* The command line without the run options, its words joined by the unit
 * separator (caller frees): what `--merge` checks the runs share and
 * parses again. NULL after saying why. */
static char *comparison_key(int argc, char **argv)
{
    size_t len = 1;
    for (int i = 1; i < argc; i++) {
        if (strchr(argv[i], '\x1f')) {
            fprintf(stderr, "moku: an argument holds a control character (0x1f)\n");
            return NULL;
        }
        len += strlen(argv[i]) + 1;
    }
    char *key = xmalloc(len), *p = key;
    for (int i = 1; i < argc; i++) {
        int skip_next;
        if (strcmp(argv[i], "--") != 0 && run_option(argv[i], &skip_next)) {
            i += skip_next;
            continue;
        }
        p += sprintf(p, "%s%s", p == key ? "" : "\x1f", argv[i]);
    }
    *p = '\0';
    return key;
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

/* --compare PARAM=V1,V2,...: the lines PARAM=V1, PARAM=V2, ... Given twice,
 * a grid: every value of the first with every value of the second. */
static int parse_compare(struct sim_opts *o, const char *arg)
{
    size_t name = strcspn(arg, "= \t");
    if (o->ngrid == MAX_GRID) {
        fprintf(stderr, "moku: --compare takes a grid of one or two parameters: give it at "
                        "most twice\n");
        return -1;
    }
    if (name == 0 || arg[name] != '=') {
        fprintf(stderr, "moku: --compare needs PARAM=VALUE,VALUE,..., not '%s'\n", arg);
        return -1;
    }
    if (o->ngrid && strncmp(o->compare[0][0], arg, name + 1) == 0) {
        fprintf(stderr, "moku: --compare %.*s given twice: a grid needs two parameters\n",
                (int)name, arg);
        return -1;
    }
    int g = o->ngrid++;
    for (const char *v = arg + name + 1;; v++) {
        size_t len = strcspn(v, ",");
        if (len == 0) {
            fprintf(stderr, "moku: --compare: an empty value in '%s'\n", arg);
            return -1;
        }
        if (o->ncompare[g] == MAX_VALUES) {
            fprintf(stderr, "moku: --compare takes at most %d values\n", MAX_VALUES);
            return -1;
        }
        char *line = xprintf("%.*s=%.*s", (int)name, arg, (int)len, v);
        o->compare[g][o->ncompare[g]++] = line;
        if (check_override("--compare", line) < 0)
            return -1;
        v += len;
        if (!*v)
            return 0;
    }
}

static void sim_opts_free(struct sim_opts *o)
{
    for (int g = 0; g < o->ngrid; g++)
        for (int i = 0; i < o->ncompare[g]; i++)
            free(o->compare[g][i]);
    free(o->key);
    free(o->home_cfg);
}

/* Values of grid parameter g (1 when not given). */
static int nvalues(const struct sim_opts *o, int g)
{
    return g < o->ngrid ? o->ncompare[g] : 1;
}

/* How many runs the options ask for: one per configuration and value. */
static long nruns(const struct sim_opts *o)
{
    return (long)(o->nconfigs ? o->nconfigs : 1) * nvalues(o, 0) * nvalues(o, 1);
}

/* The directory path names an entry of, and the entry's name (*base). */
static int parent_stat(const char *path, struct stat *st, const char **base)
{
    const char *slash = strrchr(path, '/');
    *base = slash ? slash + 1 : path;
    char *dir = slash ? xstrndup(path, (size_t)(slash - path) + 1) : xstrdup(".");
    int rc = stat(dir, st);
    free(dir);
    return rc;
}

/* 1 when a and b name one regular file by other names ("x", "./x", a link
 * to it) or one file not made yet (the same name in one directory): the
 * streamed run's renames would keep only one of them, the in-place write
 * interleave them. Devices and pipes may be shared (/dev/stdout and
 * /dev/stderr on one terminal). */
static int same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    const char *ba, *bb;
    if (stat(a, &sa) == 0 && stat(b, &sb) == 0)
        return S_ISREG(sa.st_mode) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    if (stat(a, &sa) == 0 || stat(b, &sb) == 0 || parent_stat(a, &sa, &ba) < 0 ||
        parent_stat(b, &sb, &bb) < 0)
        return 0;
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino && strcmp(ba, bb) == 0;
}

/* An output file and the option that names it (for the message). */
struct out_path {
    char *path, *what;
};

/* The files the run writes: each output option's, and with several runs
 * --swf-out's file per run (sim_swf_path) instead of its FILE, which is
 * then only a pattern. Returns how many; caller frees each path and what. */
static size_t out_paths(const struct sim_opts *o, struct out_path *p)
{
    const char *const outs[] = {o->jobs_out, o->resv_out, o->plot,      o->series,
                                o->html,     o->swf_out,  o->batsim_out};
    const char *const names[] = {"--jobs-out", "--resv-out", "--plot",      "--series",
                                 "--html",     "--swf-out",  "--batsim-out"};
    size_t n = 0, runs = (size_t)nruns(o);
    for (size_t i = 0; i < sizeof outs / sizeof *outs; i++) {
        if (!outs[i])
            continue;
        if (outs[i] != o->swf_out || runs <= 1) {
            p[n++] = (struct out_path){xstrdup(outs[i]), xstrdup(names[i])};
            continue;
        }
        for (size_t k = 0; k < runs; k++)
            p[n++] = (struct out_path){sim_swf_path(o->swf_out, k, runs),
                                       xprintf("--swf-out (run %zu)", k + 1)};
    }
    return n;
}

/* No two outputs in one file, and none over the trace (or the inputs): a
 * comparison's per-run SWF files count as outputs of their own. */
static int check_out_paths(const struct sim_opts *o)
{
    struct out_path p[6 + MAX_RUNS]; /* the other outputs, and --swf-out's a run each */
    size_t n = out_paths(o, p);
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        if (o->trace && (strcmp(p[i].path, o->trace) == 0 || same_file(p[i].path, o->trace))) {
            fprintf(stderr, "moku: %s %s would overwrite the trace\n", p[i].what, p[i].path);
            rc = -1;
        }
        for (size_t j = i + 1; j < n && rc == 0; j++)
            if (strcmp(p[i].path, p[j].path) == 0 || same_file(p[i].path, p[j].path)) {
                fprintf(stderr, "moku: %s and %s name the same file %s\n", p[i].what, p[j].what,
                        p[i].path);
                rc = -1;
            }
    }
    for (size_t i = 0; i < n; i++) {
        free(p[i].path);
        free(p[i].what);
    }
    return rc;
}

/* --run, --save-run, --recorded, --warmup/--cooldown: what goes together. */
static int check_run_args(const struct sim_opts *o)
{
    if (!o->run_only != !o->save_run) {
        fprintf(stderr, "moku: --run K and --save-run FILE go together (a comparison's run K "
                        "saved for --merge)\n");
        return -1;
    }
    if (o->run_only > nruns(o)) {
        fprintf(stderr, "moku: --run %d: the comparison has %ld runs\n", o->run_only, nruns(o));
        return -1;
    }
    if (o->save_run && (o->nshows || o->resv_out)) {
        fprintf(stderr, "moku: --save-run keeps a run for a comparison's report: not with "
                        "--show or --resv-out\n");
        return -1;
    }
    if (o->recorded && (o->nshows || o->resv_out || o->run_only)) {
        fprintf(stderr, "moku: --recorded adds the log's schedule to the report: not with "
                        "--show, --resv-out or --run\n");
        return -1;
    }
    return 0;
}

/* Whether path is a directory (errno says why not, or is 0 when it is
 * something else). */
static int is_dir(const char *path)
{
    struct stat st;
    errno = 0;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
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
    if (o->resv_out && nruns(o) > 1) {
        fprintf(stderr, "moku: --resv-out writes the reservations of one run: not with "
                        "several --config or --compare\n");
        return -1;
    }
    if (o->fs_out && nruns(o) > 1) {
        fprintf(stderr, "moku: --fs-out writes the fairshare windows of one run: not with "
                        "several --config or --compare\n");
        return -1;
    }
    if (o->fs_history && !is_dir(o->fs_history)) {
        fprintf(stderr, "moku: --fs-history %s: %s\n", o->fs_history,
                errno ? strerror(errno) : "not a directory");
        return -1;
    }
    if (o->nshows && (o->series || o->html || o->plot || o->swf_out || o->batsim_out)) {
        fprintf(stderr, "moku: --show prints answers instead of the report: not with --plot, "
                        "--series, --html, --swf-out or --batsim-out\n");
        return -1;
    }
    if (nruns(o) > MAX_RUNS) {
        fprintf(stderr, "moku: at most %d runs (configurations x --compare values)\n", MAX_RUNS);
        return -1;
    }
    /* (Before the paths: check_out_paths holds a file per run.) */
    if (check_out_paths(o) < 0)
        return -1;
    if (!o->nodes != !o->ppn) {
        fprintf(stderr, "moku: --nodes and --ppn go together\n");
        return -1;
    }
    if (check_run_args(o) < 0)
        return -1;
    if (nruns(o) > 1 && o->nshows) {
        fprintf(stderr, "moku: --show answers from one run; give one configuration\n");
        return -1;
    }
    return 0;
}

/* --statdir read and wrote the same directory, so a second run of one
 * command read the first one's usage: say what replaced it. */
static int statdir_gone(void)
{
    fprintf(stderr, "moku: --statdir is gone: --fs-history DIR reads fairshare history, "
                    "--fs-out DIR writes the replay's windows\n");
    return -1;
}

static int parse_sim_args(int argc, char **argv, struct sim_opts *o)
{
    static const struct option longopts[] = {
        {"config", required_argument, NULL, 'c'},
        {"nodes", required_argument, NULL, 'n'},
        {"ppn", required_argument, NULL, 'p'},
        {"procs", required_argument, NULL, 'P'},
        {"jobs-out", required_argument, NULL, 'o'},
        {"format", required_argument, NULL, 'f'},
        {"resv-out", required_argument, NULL, 'V'},
        {"strict", no_argument, NULL, 's'},
        {"no-swf-deps", no_argument, NULL, 'X'},
        {"help", no_argument, NULL, 'h'},
        {"until", required_argument, NULL, 'u'},
        {"show", required_argument, NULL, 'S'},
        {"resources", required_argument, NULL, 'R'},
        {"statdir", required_argument, NULL, 'D'},
        {"fs-history", required_argument, NULL, 'F'},
        {"fs-out", required_argument, NULL, 'G'},
        {"commands", required_argument, NULL, 'C'},
        {"quiet", no_argument, NULL, 'q'},
        {"timezone", required_argument, NULL, 'z'},
        {"set", required_argument, NULL, 'e'},
        {"compare", required_argument, NULL, 'm'},
        {"classes", no_argument, NULL, 'K'},
        {"plot", required_argument, NULL, 'L'},
        {"full-walk", no_argument, NULL, 'W'},
        {"series", required_argument, NULL, 'T'},
        {"html", required_argument, NULL, 'H'},
        {"swf-out", required_argument, NULL, 'O'},
        {"batsim-out", required_argument, NULL, 'B'},
        {"estimates", required_argument, NULL, 'E'},
        {"warmup", required_argument, NULL, 'w'},
        {"cooldown", required_argument, NULL, 'k'},
        {"bsld-tau", required_argument, NULL, 'U'},
        {"jobs", required_argument, NULL, 'j'},
        {"recorded", no_argument, NULL, 'r'},
        {"run", required_argument, NULL, 'N'},
        {"save-run", required_argument, NULL, 'Y'},
        {"plan", no_argument, NULL, 'y'},
        {"iterate-every", required_argument, NULL, 'I'},
        {NULL, 0, NULL, 0},
    };
    int c, bad = 0;
    optind = 1;
    o->until = SIM_FOREVER;
    o->warmup = o->cooldown = -1;
    while ((c = getopt_long(argc, argv, "c:o:f:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'c':
            bad |= add_config(o, optarg);
            break;
        case 'e':
            bad |= add_set(o, optarg);
            break;
        case 'm':
            bad |= parse_compare(o, optarg);
            break;
        case 'K':
            o->classes = 1;
            break;
        case 'L':
            bad |= out_path("--plot", optarg, &o->plot);
            break;
        case 'T':
            bad |= out_path("--series", optarg, &o->series);
            break;
        case 'H':
            bad |= out_path("--html", optarg, &o->html);
            break;
        case 'O':
            bad |= out_path("--swf-out", optarg, &o->swf_out);
            break;
        case 'B':
            bad |= out_path("--batsim-out", optarg, &o->batsim_out);
            break;
        case 'o':
            bad |= out_path("--jobs-out", optarg, &o->jobs_out);
            break;
        case 'V':
            bad |= out_path("--resv-out", optarg, &o->resv_out);
            break;
        case 'n':
            bad |= parse_count("--nodes", optarg, &o->nodes);
            break;
        case 'p':
            bad |= parse_count("--ppn", optarg, &o->ppn);
            break;
        case 'P':
            bad |= parse_count("--procs", optarg, &o->procs);
            break;
        case 'f':
            bad |= parse_format(optarg, &o->json);
            break;
        case 's':
            o->strict = 1;
            break;
        case 'X':
            o->no_swf_deps = 1;
            break;
        case 'W':
            o->full_walk = 1;
            break;
        case 'I':
            bad |= parse_count("--iterate-every", optarg, &o->every);
            break;
        case 'u':
            bad |= parse_until(optarg, &o->until);
            break;
        case 'S':
            bad |= add_show(o, optarg);
            break;
        case 'R':
            o->resources = optarg;
            break;
        case 'D':
            bad |= statdir_gone();
            break;
        case 'F':
            o->fs_history = optarg;
            break;
        case 'G':
            o->fs_out = optarg;
            break;
        case 'C':
            o->commands = optarg;
            break;
        case 'q':
            o->quiet = 1;
            break;
        case 'z':
            o->timezone = optarg;
            break;
        case 'E':
            bad |= parse_estimates(optarg, &o->estimates);
            break;
        case 'w':
            bad |= parse_span("--warmup", optarg, &o->warmup);
            break;
        case 'k':
            bad |= parse_span("--cooldown", optarg, &o->cooldown);
            break;
        case 'U':
            bad |= parse_tau(optarg, &o->bsld_tau);
            break;
        case 'j':
            bad |= parse_small("--jobs", optarg, 1024, &o->workers);
            break;
        case 'r':
            o->recorded = 1;
            break;
        case 'y':
            o->plan = 1;
            break;
        case 'N':
            bad |= parse_run(optarg, &o->run_only);
            break;
        case 'Y':
            bad |= out_path("--save-run", optarg, &o->save_run);
            break;
        case 'h':
            sim_usage(stdout, 1);
            exit(0);
        default:
            bad = -1;
        }
    }
    if (bad)
        return -1;
    if (optind != argc - 1) {
        fprintf(stderr, "moku: simulate needs exactly one trace file\n");
        return -1;
    }
    o->trace = argv[optind];
    if (!(o->key = comparison_key(argc, argv)))
        return -1;
    /* A home replays under its own configuration unless another is given. */
    if (!o->nconfigs && homelog_is_dir(o->trace)) {
        char *db = homelog_db_path(o->trace);
        o->home_cfg = xprintf("%.*smaui.cfg", (int)(strlen(db) - strlen("moku.db")), db);
        free(db);
        if (access(o->home_cfg, F_OK) == 0)
            add_config(o, o->home_cfg);
    }
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
        fprintf(stderr,
                "moku: %s defines nodes (NODECFG); drop --nodes/--ppn/--procs/"
                "--resources or the NODECFG lines\n",
                cfgname);
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
        fprintf(stderr,
                "moku: no cluster: %s has no MaxProcs header; give NODECFG lines, "
                "--nodes N --ppn P or --procs N\n",
                o->trace);
        return -1;
    }
    return 0;
}

static int load_trace(const struct sim_opts *o, struct workload *wl);

/* What the options ask of an SWF trace's reader. */
static int swf_flags(const struct sim_opts *o)
{
    return (o->strict ? WL_STRICT : 0) | (o->recorded ? WL_RECORDED : 0) |
           (o->no_swf_deps ? WL_NO_DEPS : 0) | (o->swf_out ? WL_KEEP_RECS : 0);
}

static int load_swf(const struct sim_opts *o, struct workload *wl)
{
    struct err e;
    int rc = workload_read_swf(o->trace, swf_flags(o), wl, &e);
    if (rc < 0)
        fprintf(stderr, "moku: %s\n", e.msg);
    return rc;
}

/* The jobs the --commands script submits (sim_submit.h), added to the
 * trace's. */
static int add_script_jobs(const struct sim_opts *o, struct workload *wl)
{
    struct err e;
    struct sim_script *sc = sim_script_load(o->commands, &e);
    int rc = sc ? sim_submit_add(sc, o->commands, wl, &e) : -1;
    /* --swf-out of an SWF trace rewrites the trace's records, which the
     * script's jobs are not. */
    for (size_t i = 0; rc == 0 && o->swf_out && sc && i < sc->n; i++)
        if (sim_submit_is(&sc->cmds[i]))
            rc = err_set(&e,
                         "--swf-out: %s submits jobs (line %ld), which the trace's records "
                         "cannot hold; use --jobs-out",
                         o->commands, sc->cmds[i].line);
    sim_script_destroy(sc);
    if (rc < 0)
        fprintf(stderr, "moku: %s\n", e.msg);
    return rc;
}

/* The workload, in whichever format the trace's content shows, with the
 * jobs the --commands script submits. */
static int load_workload(const struct sim_opts *o, struct workload *wl)
{
    if (load_trace(o, wl) < 0)
        return -1;
    return o->commands ? add_script_jobs(o, wl) : 0;
}

/* The trace's workload, in whichever format its content shows. */
static int load_trace(const struct sim_opts *o, struct workload *wl)
{
    struct err e;
    int rc = -1;
    switch (trace_detect(o->trace, &e)) {
    case TRACE_SWF:
        return load_swf(o, wl);
    case TRACE_MAUI_WORKLOAD:
        rc = workload_from_maui(o->trace, o->strict, wl, &e);
        break;
    case TRACE_SACCT:
        rc = workload_from_sacct(o->trace, o->strict, wl, &e);
        break;
    case TRACE_TORQUE:
        rc = workload_from_torque(o->trace, o->strict, wl, &e);
        break;
    case TRACE_HOME:
        rc = workload_from_home(o->trace, o->strict, wl, &e);
        break;
    case TRACE_MAUI_RESOURCE:
        snprintf(e.msg, sizeof e.msg, "%s is a resource trace (nodes); give it with --resources",
                 o->trace);
        break;
    case TRACE_ERROR:
        break;
    }
    if (rc < 0)
        fprintf(stderr, "moku: %s\n", e.msg);
    return rc;
}

double sim_wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void sim_progress_bar(void *ctx, size_t done, size_t total)
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
FILE *sim_open_out(const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f)
        fprintf(stderr, "moku: %s: cannot write: %s\n", path, strerror(errno));
    return f;
}

/* A large output (the jobs CSV, Batsim, SWF, the series, the reservations
 * log) through the buffered writer, or NULL after saying why. */
struct obuf *sim_open_obuf(const char *path)
{
    struct err e;
    struct obuf *b = obuf_open(path, &e);
    if (!b)
        fprintf(stderr, "moku: %s\n", e.msg);
    return b;
}

/* Close it; -1 after saying why if anything written was lost. */
int sim_close_obuf(struct obuf *b)
{
    struct err e;
    if (obuf_close(b, &e) < 0) {
        fprintf(stderr, "moku: %s\n", e.msg);
        return -1;
    }
    return 0;
}

/* Close an output file; -1 after saying why if anything written was lost. */
int sim_close_out(FILE *f, const char *path)
{
    int bad = ferror(f);
    if (fclose(f) != 0 || bad) {
        fprintf(stderr, "moku: %s: write failed: %s\n", path, strerror(errno));
        return -1;
    }
    return 0;
}

const char *sim_backfill_name(enum bf_policy b)
{
    switch (b) {
    case BF_NONE:
        return "NONE";
    case BF_FIRSTFIT:
        return "FIRSTFIT";
    case BF_BESTFIT:
        return "BESTFIT";
    case BF_GREEDY:
        return "GREEDY";
    case BF_PREEMPT:
        return "PREEMPT";
    }
    return "?";
}

static void policy_text(const struct sched_policy *p, char *buf, size_t len)
{
    snprintf(buf, len, "BACKFILLPOLICY %s, RESERVATIONDEPTH %d, JOBMAXOVERRUN %ld",
             sim_backfill_name(p->backfill), p->resdepth, p->overrun);
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
    const char *script;          /* --commands FILE, for messages */
    int quiet;                   /* --quiet */
    int run;                     /* of a comparison, from 1, for messages; 0: the only run */
    struct plot_series *series;  /* --plot: where the samples go, else NULL */
    struct plot_log *log;        /* a streamed run's: the samples until the series begins */
    struct resvlog *resvs;       /* --resv-out: the reservations seen, else NULL */
    int progress_fd;             /* a worker's progress pipe (simpar.c), 0: none */
    struct report_jobs_csv *csv; /* --jobs-out's rows, written as jobs end, else NULL */
    struct batsim *batsim;       /* --batsim-out's, the same */
    struct fsfile_kept *fs_kept; /* --fs-out: the windows as the usage left them, else NULL */
    int fs_moved;                /* usage accrued since fs_kept was taken (or it never was) */
};

/* Outcomes that are final: their rows, now (sim_hooks.final). */
static void write_final(void *ctx, const struct sim_outcome *out, size_t to)
{
    const struct replay_ctx *r = ctx;
    if (r->csv)
        report_jobs_csv_rows(r->csv, out, to);
    if (r->batsim)
        batsim_rows(r->batsim, out, to);
}

/* A worker's progress, to the process that runs it (simpar.c reads it). */
static void pipe_progress(void *ctx, size_t done, size_t total)
{
    const struct replay_ctx *r = ctx;
    size_t msg[2] = {done, total};
    if (write(r->progress_fd, msg, sizeof msg) < 0) { /* the reader is gone: carry on */
    }
}

/* The fairshare history a run reads: --fs-history, else STATDIR when the
 * configuration sets it (a copied maui.cfg names the live scheduler's
 * files); NULL: none, and the replay starts from no usage, so that the same
 * command gives the same schedule wherever and however often it runs. */
static const char *fs_history_dir(const struct cfg *cfg, const struct sim_opts *o)
{
    if (o->fs_history)
        return o->fs_history;
    return cfg_is_set(cfg, "STATDIR", NULL) ? cfg_str(cfg, "STATDIR", NULL) : NULL;
}

/* Fairshare: windows align on the trace's epoch clock; the last FSDEPTH
 * windows before the first event are read from the history asked for, if
 * any (rep says how many). */
static void setup_fairshare(struct sched *s, const struct cfg *cfg, const struct sim_opts *o,
                            const struct workload *wl, struct report *rep, int quiet)
{
    sched_set_epoch(s, wl->unix_start > 0 ? (long)wl->unix_start : 0);
    const char *dir = fs_history_dir(cfg, o);
    if (fs_params(sched_fs(s))->policy == FS_NONE) {
        if (o->fs_history && !quiet)
            fprintf(stderr,
                    "moku: warning: --fs-history %s: FSPOLICY is NONE, no fairshare "
                    "history is read\n",
                    o->fs_history);
        return;
    }
    if (!dir)
        return;
    if (!o->fs_history && !is_dir(dir) && !quiet)
        fprintf(stderr, "moku: warning: STATDIR %s: %s: no fairshare history is read\n", dir,
                errno ? strerror(errno) : "not a directory");
    snprintf(rep->fs_history, sizeof rep->fs_history, "%s", dir);
    if (wl->njobs) {
        fs_advance(sched_fs(s), wl->jobs[0].submit);
        rep->fs_windows = fsfile_load(dir, s, quiet ? NULL : warn, NULL);
    }
}

/*
 * --fs-out: the ledger as the replay's usage left it. A replay whose jobs
 * never all start iterates on after its last job ended (polls, and the
 * windows' closes while one that counts holds usage) until no window that
 * counts holds any: its ledger at the stop is empty, and the history it
 * wrote was none. So the windows are taken when the running jobs' usage
 * stops (the last of them ended; at the first iteration too, for a history
 * loaded that no job adds to) and written at the end, unless jobs still
 * run then (--until): the ledger at the stop is the history. Called after
 * each iteration; a take costs a pass over the credentials per window.
 */
static void note_fs(struct replay_ctx *rc, const struct sched *s)
{
    if (fs_total_rate(sched_fs(s)) > 0)
        rc->fs_moved = 1;
    else if (rc->fs_moved) {
        fsfile_kept_take(rc->fs_kept, s);
        rc->fs_moved = 0;
    }
}

/* --fs-out DIR: the windows that count when the replay's usage stopped (or
 * at its stop, jobs still running), for a later replay's --fs-history
 * (older FS files in DIR are removed). */
static int write_fs_out(struct sched *s, const struct sim_opts *o, const struct replay_ctx *rc)
{
    if (!o->fs_out)
        return 0;
    if (fs_params(sched_fs(s))->policy == FS_NONE) {
        fprintf(stderr,
                "moku: warning: --fs-out %s: FSPOLICY is NONE, no fairshare windows "
                "to write\n",
                o->fs_out);
        return 0;
    }
    struct err e;
    int n = fs_total_rate(sched_fs(s)) > 0 || !rc->fs_kept->taken
                ? fsfile_save_kept(o->fs_out, s, FSFILE_NOSYNC, &e)
                : fsfile_kept_write(o->fs_out, rc->fs_kept, FSFILE_NOSYNC, &e);
    if (n < 0) {
        fprintf(stderr, "moku: --fs-out: %s\n", e.msg);
        return -1;
    }
    if (n == 0)
        fprintf(stderr,
                "moku: warning: --fs-out %s: no window that counts held usage, no FS file "
                "written\n",
                o->fs_out);
    return 0;
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
    fprintf(stderr, "[%ld] reservation %s %s: trigger %s '%s' not run in a simulation\n", f->at,
            f->resv, f->event, f->submit ? "submit" : "exec", f->data);
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
                              const struct workload *wl, int quiet)
{
    struct simzone z;
    struct err e;
    if (simzone_parse(o->timezone ? o->timezone : wl->tz[0] ? wl->tz : NULL, &z, &e) < 0) {
        if (o->timezone) {
            fprintf(stderr, "moku: --timezone: %s\n", e.msg);
            return -1;
        }
        if (!quiet)
            fprintf(stderr, "moku: %s: %s; standing reservations follow UTC\n", o->trace, e.msg);
        simzone_parse(NULL, &z, &e);
    }
    simzone_apply(&z);
    sched_set_zone(s, z.local, z.offset);
    if (sched_standing_from_cfg(s, cfg, &e) < 0) {
        fprintf(stderr, "moku: %s\n", e.msg);
        return -1;
    }
    if (!quiet)
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

/* Open each file asked for; on failure close those opened and return -1. */
int sim_open_outputs(const struct sim_opts *o, struct outputs *w)
{
    /* --save-run: the per-job rows go into the saved run, the rest is the
     * merge's; several runs: each writes its own --swf-out file */
    int saving = o->save_run != NULL;
    const char *big[] = {o->nshows || saving ? NULL : o->jobs_out, saving ? NULL : o->batsim_out,
                         nruns(o) == 1 ? o->swf_out : NULL, saving ? NULL : o->series};
    const char *small[] = {saving ? NULL : o->plot, saving ? NULL : o->html};
    struct obuf **bufs[] = {&w->jobs, &w->batsim, &w->swf, &w->series};
    FILE **files[] = {&w->plot, &w->html};
    *w = (struct outputs){0};
    for (size_t i = 0; i < sizeof big / sizeof *big; i++)
        if (big[i] && !(*bufs[i] = sim_open_obuf(big[i])))
            goto fail;
    for (size_t i = 0; i < sizeof small / sizeof *small; i++)
        if (small[i] && !(*files[i] = sim_open_out(small[i])))
            goto fail;
    return 0;
fail:
    for (size_t k = 0; k < sizeof bufs / sizeof *bufs; k++)
        obuf_close(*bufs[k], NULL);
    for (size_t k = 0; k < sizeof files / sizeof *files; k++)
        if (*files[k])
            fclose(*files[k]);
    *w = (struct outputs){0};
    return -1;
}

/* Close them all; -1 after saying so when anything written was lost. */
int sim_close_outputs(const struct sim_opts *o, struct outputs *w)
{
    struct obuf *bufs[] = {w->jobs, w->batsim, w->swf, w->series};
    const char *paths[] = {o->plot, o->html};
    FILE *files[] = {w->plot, w->html};
    int rc = 0;
    for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++)
        if (sim_close_obuf(bufs[i]) < 0)
            rc = -1;
    for (size_t i = 0; i < sizeof paths / sizeof *paths; i++)
        if (files[i] && sim_close_out(files[i], paths[i]) < 0)
            rc = -1;
    *w = (struct outputs){0};
    return rc;
}

/* Each --config (or Maui's defaults) with each --compare value (or none);
 * with two --compare options, each pair of values (the first varies
 * slowest). */
size_t sim_plan_runs(const struct sim_opts *o, struct run *runs)
{
    size_t n = 0;
    for (int c = 0; c < (o->nconfigs ? o->nconfigs : 1); c++)
        for (int v = 0; v < nvalues(o, 0); v++)
            for (int w = 0; w < nvalues(o, 1); w++) {
                struct run *r = &runs[n++];
                r->config = o->nconfigs ? o->configs[c] : NULL;
                for (int k = 0; k < o->nsets; k++)
                    r->overrides[r->noverrides++] = o->sets[k];
                const int at[MAX_GRID] = {v, w};
                for (int g = 0; g < o->ngrid; g++)
                    r->overrides[r->noverrides++] = o->compare[g][at[g]];
                r->varied = o->ngrid;
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
        setup_reservations(s, r->cfg, o, wl, r->said) < 0) {
        sched_destroy(s);
        return NULL;
    }
    return s;
}

int sim_cluster_size(const struct run *r, const struct sim_opts *o, const struct workload *wl,
                     long long *procs, size_t *nodes)
{
    struct sched *s = sched_create(&r->pol, NULL);
    int rc = build_cluster(s, r->cfg, r->config ? r->config : "--set", o, wl);
    *procs = sched_up_procs(s);
    *nodes = sched_nnodes(s);
    sched_destroy(s);
    return rc;
}

/* The outputs that need the state over time: --plot, --series, --html. */
int sim_wants_series(const struct sim_opts *o)
{
    return o->plot || o->series || o->html;
}

static void record_sample(void *ctx, const struct sim_sample *smp)
{
    const struct replay_ctx *r = ctx;
    if (r->log)
        plot_log_add(r->log, smp->now, smp->busy_procs, smp->up_procs, smp->idle, smp->running);
    else
        plot_series_add(r->series, smp->now, smp->busy_procs, smp->up_procs, smp->idle,
                        smp->running);
}

/* --plot: about PLOT_POINTS bins over the submissions up to --until (the
 * series widens them if the replay runs much longer). */
void sim_start_series(struct plot_series *p, const struct workload *wl, long until)
{
    long first = wl->njobs ? wl->jobs[0].submit : 0;
    long last = wl->njobs ? wl->jobs[wl->njobs - 1].submit : 0;
    plot_series_init(p, first, plot_bin_width(first, last < until ? last : until, PLOT_POINTS));
}

/* --swf-out: the schedule as SWF (one run). */
static int write_swf(struct obuf *f, const struct run *r, const struct sim_opts *o,
                     const struct workload *wl, const struct sim_outcome *out,
                     const struct sched *s)
{
    struct err e;
    struct swfout_info info = {.trace = o->trace,
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

char *sim_swf_path(const char *name, size_t idx, size_t n)
{
    const char *pct = strstr(name, "%d");
    if (n <= 1)
        return xstrdup(name);
    if (pct)
        return xprintf("%.*s%zu%s", (int)(pct - name), name, idx + 1, pct + 2);
    const char *slash = strrchr(name, '/'), *dot = strrchr(name, '.');
    if (!dot || (slash && dot < slash) || dot == (slash ? slash + 1 : name))
        return xprintf("%s.%zu", name, idx + 1);
    return xprintf("%.*s.%zu%s", (int)(dot - name), name, idx + 1, dot);
}

/* --swf-out of one run of several: its own file. */
static int write_run_swf(const struct run *r, size_t idx, size_t n, const struct sim_opts *o,
                         const struct workload *wl, const struct sim_outcome *out,
                         const struct sched *s)
{
    char *path = sim_swf_path(o->swf_out, idx, n);
    struct obuf *f = sim_open_obuf(path);
    int rc = f ? write_swf(f, r, o, wl, out, s) : -1;
    if (f && sim_close_obuf(f) < 0)
        rc = -1;
    free(path);
    return rc;
}

/* After each iteration: --resv-out's reservations (resvlog), --fs-out's
 * windows (note_fs). */
static void note_iteration(void *ctx, const struct sched *s, long now)
{
    struct replay_ctx *rc = ctx;
    if (rc->resvs)
        resvlog_note(rc->resvs, s, now);
    if (rc->fs_kept)
        note_fs(rc, s);
}

/* A run's number in the per-job files: 0 alone (no run column), else from 1;
 * --recorded puts the log's schedule beside even a lone run. */
static int run_number(const struct sim_opts *o, size_t idx, size_t n)
{
    return n > 1 || o->recorded ? (int)idx + 1 : 0;
}

/* One run's replay between its parts: the engine, the outcomes, what the
 * hooks write to. */
struct replay {
    struct sched *s;
    struct sim_outcome *out;
    struct replay_ctx rctx;
    struct sim_hooks hooks;
    double t0; /* when the replay began */
};

/* The run's engine and hooks, ready for sim_run (or a stream); -1 after
 * saying why. */
static int replay_begin(struct replay *p, struct run *r, size_t idx, size_t n,
                        const struct sim_opts *o, const struct workload *wl,
                        const struct sim_script *script, const struct outputs *outs)
{
    struct obuf *jobs = outs->jobs;
    *p = (struct replay){.s = build_sched(r, o, wl)};
    if (!p->s)
        return -1;
    setup_fairshare(p->s, r->cfg, o, wl, &r->report, r->said);
    p->rctx = (struct replay_ctx){.script = o->commands,
                                  .quiet = o->quiet,
                                  .run = n > 1 ? (int)idx + 1 : 0,
                                  .series = sim_wants_series(o) ? &r->series : NULL,
                                  .progress_fd = r->progress_fd,
                                  .fs_moved = 1};
    if (o->fs_out && fs_params(sched_fs(p->s))->policy != FS_NONE)
        p->rctx.fs_kept = xcalloc(1, sizeof *p->rctx.fs_kept);
    p->hooks = (struct sim_hooks){
        /* The bar would garble the script's log on the same stream. */
        .progress = r->progress_fd > 0     ? pipe_progress
                    : isatty(2) && !script ? sim_progress_bar
                                           : NULL,
        .sample = sim_wants_series(o) ? record_sample : NULL,
        .script = script,
        .cfg = r->cfg,
        .epoch_offset = wl->unix_start > 0 ? (long)wl->unix_start : 0,
        .command = log_command,
        .trigger = log_trigger,
        .record_nodes = jobs || outs->batsim,
        .iterated = o->resv_out || p->rctx.fs_kept ? note_iteration : NULL,
        /* Commands (timed, or --show at the end) may ask about past jobs. */
        .forget_ended = !script && !o->nshows,
        .final = jobs || outs->batsim ? write_final : NULL,
        .iterate_every = (long)o->every,
        .ctx = &p->rctx,
    };
    if (o->resv_out)
        p->rctx.resvs = resvlog_create();
    if (sim_wants_series(o))
        sim_start_series(&r->series, wl, o->until);
    if (jobs) /* with --show too: the schedule the answers come from */
        p->rctx.csv =
            report_jobs_csv_open(jobs, wl, p->s, run_number(o, idx, n), idx == 0 && !o->recorded);
    if (outs->batsim)
        p->rctx.batsim = batsim_open(outs->batsim, wl, p->s, n > 1 ? (int)idx + 1 : 0);
    p->t0 = sim_wall_now();
    return 0;
}

/* After the replay: the report or the --show answers, the files written
 * at the end, and the engine freed. */
static int replay_end(struct replay *p, struct run *r, size_t idx, size_t n,
                      const struct sim_opts *o, const struct workload *wl,
                      const struct outputs *outs)
{
    struct sched *s = p->s;
    struct sim_outcome *out = p->out;
    report_wanting(s);
    int rc = write_fs_out(s, o, &p->rctx);
    if (p->rctx.fs_kept) {
        fsfile_kept_free(p->rctx.fs_kept);
        free(p->rctx.fs_kept);
    }
    if (o->nshows) {
        if (r->report.fs_history[0])
            fprintf(stderr, "moku: fairshare history: %d window%s from %s\n", r->report.fs_windows,
                    r->report.fs_windows == 1 ? "" : "s", r->report.fs_history);
        if (print_shows(s, r->cfg, o, wl) < 0)
            rc = -1;
    } else {
        /* The replay's wall time: not the report's sorting. */
        r->report.wall_seconds = sim_wall_now() - p->t0;
        report_compute(&r->report, wl, out, sched_up_procs(s), s);
        r->report.nodes = sched_nnodes(s);
        r->report.backfilled = sched_stats(s)->backfilled;
        r->report.iterations = sched_stats(s)->iterations;
    }
    if (p->rctx.csv)
        report_jobs_csv_close(p->rctx.csv, out, sched_last_iteration(s));
    if (p->rctx.batsim)
        batsim_close(p->rctx.batsim, out);
    if (outs->swf && write_swf(outs->swf, r, o, wl, out, s) < 0)
        rc = -1;
    else if (!outs->swf && o->swf_out && n > 1 && write_run_swf(r, idx, n, o, wl, out, s) < 0)
        rc = -1;
    if (p->rctx.resvs) {
        struct obuf *f = sim_open_obuf(o->resv_out);
        if (!f || resvlog_write(p->rctx.resvs, f) < 0 || sim_close_obuf(f) < 0)
            rc = -1;
        resvlog_destroy(p->rctx.resvs);
    }
    sim_outcomes_free(out, wl->njobs);
    free(out);
    sched_destroy(s);
    return rc;
}

/* Replay run number idx (from 0) of n and measure it, or answer --show.
 * Every run reads the same fairshare history (if asked for) and none writes
 * what a later run reads unless --fs-out asks: a comparison's runs and a
 * single run of the same configuration give the same schedule. */
int sim_replay_run(struct run *r, size_t idx, size_t n, const struct sim_opts *o,
                   const struct workload *wl, const struct sim_script *script,
                   const struct outputs *outs)
{
    struct replay p;
    if (replay_begin(&p, r, idx, n, o, wl, script, outs) < 0)
        return -1;
    p.out = xcalloc(wl->njobs ? wl->njobs : 1, sizeof *p.out);
    sim_run(p.s, wl, p.out, o->until, &p.hooks);
    return replay_end(&p, r, idx, n, o, wl, outs);
}

/*
 * The streamed run's output files (--jobs-out, --batsim-out, --swf-out,
 * and --series, written at the end), written as the replay goes while a
 * bad line may still come: each goes to
 * a temporary beside its target (same directory) that is renamed over it
 * once the run has succeeded, and unlinked on any error (a bad line, a
 * write error, SIGINT, SIGTERM, SIGHUP, SIGXFSZ), the target left as it
 * was. Only a target that is a regular file of ours with one link,
 * writable (or none yet) is replaced so: a FIFO, a device, /dev/stdout (a
 * symbolic link), a file of several links or another owner keeps the
 * whole read first and is written in place, as before. The temporary is given the mode the
 * in-place write gave: an existing target's own (it was truncated in
 * place), else 0666 under the umask. Several are renamed all or none
 * (tmp_commit), the signals held meanwhile (tmp_block).
 */
#define TMP_NOUT 4
struct tmp_outs {
    struct outputs w;         /* on the temporaries */
    const char *to[TMP_NOUT]; /* the targets */
    char *tmp[TMP_NOUT];      /* the temporaries, NULL once renamed or gone */
    int guarded;              /* the signal handlers set (tmp_guard) */
};

/* The temporaries a signal must remove (the handler reads no more). The
 * signals: those that end a command, and SIGXFSZ, a temporary grown past
 * the file size limit (ulimit -f), which kills as it did the in-place
 * write, and would otherwise leave the temporary. */
static char *volatile tmp_live[TMP_NOUT];
static const int tmp_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGXFSZ};
static struct sigaction tmp_saved[sizeof tmp_signals / sizeof *tmp_signals];

static void tmp_on_signal(int sig)
{
    for (int i = 0; i < TMP_NOUT; i++)
        if (tmp_live[i])
            unlink(tmp_live[i]);
    signal(sig, SIG_DFL);
    raise(sig);
}

static void tmp_guard(int on)
{
    struct sigaction sa = {.sa_handler = tmp_on_signal};
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof tmp_signals / sizeof *tmp_signals; i++) {
        if (!on) {
            sigaction(tmp_signals[i], &tmp_saved[i], NULL);
            continue;
        }
        /* A signal ignored (nohup, a shell's background job) stays so. */
        sigaction(tmp_signals[i], NULL, &tmp_saved[i]);
        if (tmp_saved[i].sa_handler != SIG_IGN)
            sigaction(tmp_signals[i], &sa, NULL);
    }
}

/* 1 when path can be replaced by a renamed temporary; st its status
 * (st_nlink 0: none yet). */
static int replaceable(const char *path, struct stat *st)
{
    if (lstat(path, st) < 0) {
        *st = (struct stat){0};
        return errno == ENOENT;
    }
    return S_ISREG(st->st_mode) && st->st_nlink == 1 && st->st_uid == geteuid() &&
           access(path, W_OK) == 0;
}

/* A temporary beside path (*tmp) with the mode and group the in-place write
 * would leave; -1 when there can be none. Before any thread: the umask is
 * read by setting it. */
static int open_tmp(const char *path, const struct stat *st, char **tmp)
{
    *tmp = xprintf("%s.moku-XXXXXX", path);
    int fd = mkstemp(*tmp);
    if (fd < 0) {
        free(*tmp);
        *tmp = NULL;
        return -1;
    }
    mode_t mask = umask(0);
    umask(mask);
    mode_t mode = st->st_nlink ? st->st_mode & 07777 : 0666 & ~mask;
    if (fcntl(fd, F_SETFD, FD_CLOEXEC) < 0 || fchmod(fd, mode) < 0 ||
        (st->st_nlink && st->st_gid != getegid() && fchown(fd, (uid_t)-1, st->st_gid) < 0)) {
        close(fd);
        unlink(*tmp);
        free(*tmp);
        *tmp = NULL;
        return -1;
    }
    return fd;
}

/* The guarded signals blocked (*saved: the mask before), or the mask
 * restored: a temporary's creation and its naming to the handler, and the
 * renames of them all, are one step for a signal. */
static void tmp_block(int on, sigset_t *saved)
{
    sigset_t set;
    sigemptyset(&set);
    for (size_t i = 0; i < sizeof tmp_signals / sizeof *tmp_signals; i++)
        sigaddset(&set, tmp_signals[i]);
    if (on)
        pthread_sigmask(SIG_BLOCK, &set, saved);
    else
        pthread_sigmask(SIG_SETMASK, saved, NULL);
}

/* tmp's data on the disk: renamed over an old file, it must not leave an
 * empty or partial file in its place after a crash (the old or the new,
 * whole). A new target loses nothing old and is not synced (the in-place
 * write was not either). */
static int tmp_sync(const char *tmp)
{
    int fd = open(tmp, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int rc = fsync(fd);
    close(fd);
    return rc;
}

/* An old file kept while the other renames are to come: a second name
 * (path), a hard link or, where the file system has none, the file itself
 * moved aside (moved). */
struct tmp_old {
    char *path;
    int moved;
};

/* The old file at path kept under a fresh name beside it (old->path, a
 * name mkstemp made, no longer than a temporary's): a hard link to it, or
 * where links fail, the file itself moved aside (never over a file of
 * another: a link finding the name taken fails). */
static int keep_old(const char *path, struct tmp_old *old)
{
    old->path = xprintf("%s.moku-XXXXXX", path);
    int fd = mkstemp(old->path);
    if (fd >= 0) {
        close(fd);
        if (unlink(old->path) == 0 && link(path, old->path) == 0)
            return 0;
        old->moved = errno != EEXIST && rename(path, old->path) == 0;
        if (old->moved)
            return 0;
    }
    free(old->path);
    old->path = NULL;
    return -1;
}

/* Temporary i over its target, synced first when the target is an old
 * file, that old file kept in *old when keep (NULL path: nothing kept). */
static int tmp_replace(const struct tmp_outs *t, int i, int keep, struct tmp_old *old)
{
    struct stat st;
    *old = (struct tmp_old){0};
    if (lstat(t->to[i], &st) == 0) {
        if (!S_ISREG(st.st_mode)) { /* made something else meanwhile */
            errno = S_ISDIR(st.st_mode) ? EISDIR : EEXIST;
            return -1;
        }
        if (tmp_sync(t->tmp[i]) < 0)
            return -1;
        if (keep && keep_old(t->to[i], old) < 0)
            return -1;
    }
    if (rename(t->tmp[i], t->to[i]) == 0)
        return 0;
    int e = errno;
    if (old->path && (old->moved ? rename(old->path, t->to[i]) : unlink(old->path)) < 0)
        fprintf(stderr, "moku: %s: kept as %s: %s\n", t->to[i], old->path, strerror(errno));
    free(old->path);
    old->path = NULL;
    errno = e;
    return -1;
}

/* Target i, replaced, gets its old file back (old), or is removed where
 * there was none. */
static void tmp_undo(const struct tmp_outs *t, int i, const struct tmp_old *old)
{
    if ((old->path ? rename(old->path, t->to[i]) : unlink(t->to[i])) < 0)
        fprintf(stderr, "moku: %s: replaced, cannot be put back: %s\n", t->to[i], strerror(errno));
}

/* Rename every temporary over its target, all or none: the targets
 * replaced before a rename that fails are put back (tmp_undo). -1 after
 * saying why. */
static int tmp_commit(struct tmp_outs *t)
{
    struct tmp_old old[TMP_NOUT] = {{0}};
    int n = 0, failed = -1;
    for (int i = 0; i < TMP_NOUT; i++)
        n += t->tmp[i] != NULL;
    for (int i = 0; i < TMP_NOUT && failed < 0; i++) {
        if (!t->tmp[i])
            continue;
        if (tmp_replace(t, i, n > 1, &old[i]) < 0) {
            fprintf(stderr, "moku: %s: cannot write: %s\n", t->to[i], strerror(errno));
            failed = i;
            continue;
        }
        free(t->tmp[i]); /* renamed: nothing to unlink */
        t->tmp[i] = NULL;
        tmp_live[i] = NULL;
    }
    for (int i = 0; i < TMP_NOUT; i++) {
        if (failed >= 0 && i < failed && t->to[i])
            tmp_undo(t, i, &old[i]);
        else if (old[i].path)
            unlink(old[i].path);
        free(old[i].path);
    }
    return failed < 0 ? 0 : -1;
}

/* Close them; with keep, rename them over their targets (tmp_commit: -1
 * after saying why when anything written was lost, and then none is
 * renamed), else unlink them. A second call does nothing. */
static int tmp_outs_close(struct tmp_outs *t, int keep)
{
    struct obuf *bufs[TMP_NOUT] = {t->w.jobs, t->w.batsim, t->w.swf, t->w.series};
    int rc = 0;
    for (int i = 0; i < TMP_NOUT; i++)
        if (keep ? sim_close_obuf(bufs[i]) < 0 : obuf_close(bufs[i], NULL) < 0)
            rc = -1;
    sigset_t mask;
    tmp_block(1, &mask);
    if (keep && rc == 0)
        rc = tmp_commit(t);
    for (int i = 0; i < TMP_NOUT; i++) {
        if (!t->tmp[i])
            continue;
        unlink(t->tmp[i]);
        tmp_live[i] = NULL;
        free(t->tmp[i]);
    }
    if (t->guarded)
        tmp_guard(0);
    *t = (struct tmp_outs){0};
    tmp_block(0, &mask); /* a signal held back acts now, the files whole */
    return rc;
}

/* The outputs of a streamed run on temporaries; -1 (none open) when one
 * cannot be replaced so. */
static int tmp_outs_open(const struct sim_opts *o, struct tmp_outs *t)
{
    const char *to[TMP_NOUT] = {o->jobs_out, o->batsim_out, o->swf_out, o->series};
    struct obuf **bufs[TMP_NOUT] = {&t->w.jobs, &t->w.batsim, &t->w.swf, &t->w.series};
    struct stat st[TMP_NOUT];
    int any = 0;
    *t = (struct tmp_outs){0};
    for (int i = 0; i < TMP_NOUT; i++) {
        if (to[i] && !replaceable(to[i], &st[i]))
            return -1;
        any |= to[i] != NULL;
    }
    if (!any)
        return 0;
    sigset_t mask;
    tmp_block(1, &mask);
    tmp_guard(1);
    t->guarded = 1;
    for (int i = 0; i < TMP_NOUT; i++) {
        if (!to[i])
            continue;
        int fd = open_tmp(to[i], &st[i], &t->tmp[i]);
        if (fd < 0) {
            tmp_outs_close(t, 0);
            tmp_block(0, &mask);
            return -1;
        }
        tmp_live[i] = t->tmp[i];
        t->to[i] = to[i];
        *bufs[i] = obuf_fdopen(fd, to[i]);
    }
    tmp_block(0, &mask);
    return 0;
}

/*
 * Replaying while the trace is read. An SWF trace is handed over in
 * batches by the reader's thread (workload_read_swf_batched); once the
 * cluster is known, the one run replays as far as the jobs known allow
 * (sim_stream), so that reading and replaying take two cores at once. Only
 * where the outcome is the whole read's, byte for byte, and nothing is
 * written before the whole trace is known good (a bad line still ends the
 * command with its file:line and no output): one run, the files written
 * as the replay goes on temporaries (tmp_outs), nothing computed over the
 * whole trace first (--estimates, --warmup, --cooldown, the chart's and
 * the HTML page's span), no commands, no --until, no progress bar (its
 * total). --series is streamed: its bins' width comes from the span of the
 * submissions, so its samples are kept (plot_log) until the trace is
 * whole, then make the series as the whole read's replay makes it. Jobs
 * out of submission order, a
 * preceding job (SWF field 17: checked over the whole trace), or header
 * keywords that change after the cluster was built from them stop the
 * stream: the run is replayed from the start once the trace is whole.
 */
struct stream {
    struct run *r;
    const struct sim_opts *o;
    struct replay p;
    struct sim_stream *st; /* the replay, once begun */
    size_t checked;        /* jobs seen to be in submission order */
    int off;               /* given up: the replay waits for the whole trace */
    int failed;            /* the run could not be set up (said already) */
    struct workload hdr;   /* the header keywords the run was built from */
    struct tmp_outs outs;  /* the files written as the replay goes */
    struct plot_log log;   /* --series: the samples until the trace is whole */
};

static int streamable(const struct sim_opts *o, size_t n)
{
    return n == 1 && !o->save_run && !o->commands && !o->nshows && !o->recorded &&
           o->until == SIM_FOREVER && o->warmup < 0 && o->cooldown < 0 &&
           o->estimates.kind == ESTIMATE_REQUEST && !o->plot && !o->html && !isatty(2);
}

/* 1 when wl's header keywords are those the run was built from. */
static int same_header(const struct workload *a, const struct workload *b)
{
    return a->max_nodes == b->max_nodes && a->max_procs == b->max_procs &&
           a->unix_start == b->unix_start && strcmp(a->tz, b->tz) == 0;
}

/* Give the stream up: the engine, outcomes and files so far are dropped. */
static void stream_stop(struct stream *m)
{
    m->off = 1;
    if (m->p.rctx.csv) /* first: its writer thread ends before the files close */
        report_jobs_csv_drop(m->p.rctx.csv);
    m->p.rctx.csv = NULL;
    tmp_outs_close(&m->outs, 0);
    plot_log_free(&m->log);
    if (!m->st)
        return;
    sim_stream_end(m->st, &m->p.out);
    m->st = NULL;
    m->r->said = 1; /* the whole read's replay warns of nothing new */
    if (m->p.rctx.batsim)
        batsim_drop(m->p.rctx.batsim);
    resvlog_destroy(m->p.rctx.resvs);
    sim_outcomes_free(m->p.out, m->checked);
    free(m->p.out);
    sched_destroy(m->p.s);
    m->p = (struct replay){0};
}

/* A batch of jobs was read (workload_read_swf_batched): replay on. */
static void stream_batch(void *ctx, struct workload *wl, int in_order)
{
    struct stream *m = ctx;
    if (m->off)
        return;
    if (wl->more || !in_order) {
        stream_stop(m);
        return;
    }
    m->checked = wl->njobs;
    if (!m->st) {
        /* The cluster may come from MaxProcs: wait for it (else the whole
         * read says what is missing). */
        const struct sim_opts *o = m->o;
        if (!wl->njobs || !(o->nodes || o->procs || o->resources || wl->max_procs > 0))
            return;
        if (replay_begin(&m->p, m->r, 0, 1, o, wl, NULL, &m->outs.w) < 0) {
            m->off = m->failed = 1;
            return;
        }
        /* Its header keywords alone: the rest of wl (its strings and
         * names) is the reader's thread's until the read ends. */
        m->hdr = (struct workload){
            .max_nodes = wl->max_nodes, .max_procs = wl->max_procs, .unix_start = wl->unix_start};
        memcpy(m->hdr.tz, wl->tz, sizeof m->hdr.tz);
        if (o->series) /* the series begins once its span is known */
            m->p.rctx.log = &m->log;
        m->st = sim_stream_begin(m->p.s, wl, &m->p.hooks);
    }
    sim_stream_advance(m->st, 0);
}

/* The workload, replayed as it is read where the trace is SWF (m). */
static int load_streamed(const struct sim_opts *o, struct workload *wl, struct stream *m)
{
    struct err e;
    if (trace_detect(o->trace, &e) != TRACE_SWF)
        return load_workload(o, wl); /* (which says what the error is) */
    if (workload_read_swf_batched(o->trace, swf_flags(o), wl, stream_batch, m, &e) < 0) {
        fprintf(stderr, "moku: %s\n", e.msg);
        return -1;
    }
    return 0;
}

/* The streamed run to its end, its files in place and its report:
 * replay_all's, for one run. */
static int stream_finish(struct stream *m, const struct sim_opts *o, const struct workload *wl)
{
    sim_stream_advance(m->st, 1);
    sim_stream_end(m->st, &m->p.out);
    m->st = NULL;
    if (o->series) {
        plot_series_free(&m->r->series);
        sim_start_series(&m->r->series, wl, o->until);
        plot_log_replay(&m->log, &m->r->series);
        plot_log_free(&m->log);
    }
    int failed = replay_end(&m->p, m->r, 0, 1, o, wl, &m->outs.w) < 0;
    if (!failed)
        sim_write_series(m->r, 1, o, &m->outs.w);
    /* A file that could not be written fails the command, but the report
     * of a finished replay is still worth printing. */
    int lost = tmp_outs_close(&m->outs, !failed) < 0;
    if (failed)
        return -1;
    sim_print_reports(m->r, 1, o);
    return lost ? -1 : 0;
}

/* --swf-out with several runs: create each run's file now, so that a path
 * that cannot be written costs no replay (each run writes its own). */
static int touch_swf_paths(const struct sim_opts *o, size_t n)
{
    for (size_t i = 0; o->swf_out && n > 1 && i < n; i++) {
        if (o->run_only && i + 1 != (size_t)o->run_only)
            continue;
        char *path = sim_swf_path(o->swf_out, i, n);
        struct obuf *f = sim_open_obuf(path);
        int rc = f ? sim_close_obuf(f) : -1;
        free(path);
        if (rc < 0)
            return -1;
    }
    return 0;
}

/* Whether every run's cluster can be built (NODECFG, the options, a
 * resource trace or the trace's header), each error said: asked before the
 * output files are opened, which truncates those written in place, so that
 * a run that cannot begin leaves them as they were. */
static int clusters_buildable(const struct run *runs, size_t n, const struct sim_opts *o,
                              const struct workload *wl)
{
    for (size_t i = 0; i < n; i++) {
        long long procs;
        size_t nodes;
        if (sim_cluster_size(&runs[i], o, wl, &procs, &nodes) < 0)
            return -1;
    }
    return 0;
}

/* Replay every run, in turn or in worker processes (--jobs), then report
 * them. The output files are opened first, so a path that cannot be
 * written costs no replay. rec: the recorded schedule (--recorded) is
 * runs[-1]. */
static int replay_all(struct run *runs, size_t n, const struct sim_opts *o,
                      const struct workload *wl, const struct sim_script *script, int rec)
{
    struct outputs outs;
    if (clusters_buildable(runs, n, o, wl) < 0 || touch_swf_paths(o, n) < 0 ||
        sim_open_outputs(o, &outs) < 0)
        return -1;
    int failed = 0;
    long workers = simpar_workers(o, n);
    if (rec) /* first: its rows lead the jobs CSV */
        sim_recorded(&runs[-1], o, wl, outs.jobs);
    if (n > 1 && workers > 1)
        failed = simpar_replay(runs, n, workers, o, wl, script, &outs) < 0;
    else
        for (size_t i = 0; i < n && !failed; i++)
            failed = sim_replay_run(&runs[i], i, n, o, wl, script, &outs) < 0;
    if (!failed)
        sim_write_series(runs - rec, n + (size_t)rec, o, &outs);
    /* A file that could not be written fails the command, but the report
     * of a finished replay is still worth printing. */
    int lost = sim_close_outputs(o, &outs) < 0;
    if (failed)
        return -1;
    if (!o->nshows)
        sim_print_reports(runs - rec, n + (size_t)rec, o);
    return lost ? -1 : 0;
}

static void free_runs(struct run *runs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        cfg_destroy(runs[i].cfg);
        report_free(&runs[i].report);
        plot_series_free(&runs[i].series);
    }
}

/* --run K --save-run FILE: one run of the comparison, its results saved. */
static int save_one_run(struct run *runs, size_t n, const struct sim_opts *o,
                        const struct workload *wl, const struct sim_script *script)
{
    size_t k = (size_t)o->run_only - 1;
    FILE *f = sim_open_out(o->save_run);
    if (!f || touch_swf_paths(o, n) < 0) {
        if (f)
            fclose(f);
        return -1;
    }
    int rc = simpar_save_run(&runs[k], k, n, o, wl, script, f);
    if (sim_close_out(f, o->save_run) < 0)
        rc = -1;
    return rc;
}

/* What every run's report measures: the bounded slowdown's bound, and the
 * window of --warmup and --cooldown over the trace's submissions. -1 when
 * they leave nothing to measure. */
static int set_measures(struct run *runs, size_t n, const struct sim_opts *o,
                        const struct workload *wl)
{
    long lo = 0, hi = 0;
    int windowed = o->warmup >= 0 || o->cooldown >= 0;
    if (windowed && wl->njobs) {
        lo = wl->jobs[0].submit + (o->warmup > 0 ? o->warmup : 0);
        hi = wl->jobs[wl->njobs - 1].submit - (o->cooldown > 0 ? o->cooldown : 0);
        if (hi <= lo) {
            fprintf(stderr,
                    "moku: --warmup and --cooldown leave nothing to measure: the "
                    "submissions span %ld s\n",
                    (long)wl->jobs[wl->njobs - 1].submit - (long)wl->jobs[0].submit);
            return -1;
        }
    }
    for (size_t i = 0; i < n; i++) {
        runs[i].report.bsld_tau = o->bsld_tau;
        runs[i].report.windowed = windowed;
        runs[i].report.window_lo = lo;
        runs[i].report.window_hi = hi;
    }
    return 0;
}

/* --plan: a line per run, "K CONFIG VALUE...": its number (for --run), its
 * configuration and its --compare lines. */
static void print_plan(const struct run *runs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        printf("%zu %s", i + 1, runs[i].config ? runs[i].config : "defaults");
        for (int k = 0; k < runs[i].varied; k++)
            printf(" %s",
                   runs[i].overrides[runs[i].noverrides - (size_t)runs[i].varied + (size_t)k]);
        putchar('\n');
    }
}

static int simulate(const struct sim_opts *o)
{
    struct run *all = xcalloc(MAX_RUNS + 1, sizeof *all), *runs = all + 1;
    size_t n = sim_plan_runs(o, runs);
    if (o->plan) {
        print_plan(runs, n);
        free(all);
        return 0;
    }
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
    double t0 = sim_wall_now();
    struct stream m = {.r = runs, .o = o, .off = !streamable(o, n)};
    if (!m.off && tmp_outs_open(o, &m.outs) < 0)
        m.off = 1; /* an output written in place: after the whole read */
    if ((m.off ? load_workload(o, &wl) : load_streamed(o, &wl, &m)) < 0) {
        stream_stop(&m);
        goto out;
    }
    estimate_apply(&o->estimates, &wl);
    double read = sim_wall_now() - t0;
    all[0].recorded = 1;
    if (set_measures(all, n + 1, o, &wl) < 0)
        goto out;
    for (size_t i = 0; i <= n; i++)
        all[i].report.read_seconds = read;
    if (m.st && m.checked == wl.njobs && same_header(&m.hdr, &wl)) {
        /* The reader's buffers, freed amid the replay's memory, back to
         * the system: the report's peak would hold them too. */
        malloc_trim(0);
        rc = stream_finish(&m, o, &wl) < 0 ? 1 : 0;
        goto out;
    }
    stream_stop(&m);
    if (m.failed)
        goto out;
    if (m.r->said && !same_header(&m.hdr, &wl))
        m.r->said = 0; /* built from other keywords: its warnings may differ */
    if (o->recorded && !wl.rec_start) {
        fprintf(stderr, "moku: --recorded: %s records no schedule (no start times)\n", o->trace);
        goto out;
    }
    if (o->save_run)
        rc = save_one_run(runs, n, o, &wl, script) < 0 ? 1 : 0;
    else
        rc = replay_all(runs, n, o, &wl, script, o->recorded) < 0 ? 1 : 0;
out:
    sim_script_destroy(script);
    workload_free(&wl);
    free_runs(all, n + 1);
    free(all);
    return rc;
}

int sim_parse_key(const char *key, struct sim_opts *o, char ***argv_out)
{
    int argc = 1;
    for (const char *p = key; *p; p++)
        argc += *p == '\x1f';
    char **argv = xcalloc((size_t)argc + 2, sizeof *argv);
    argv[0] = xstrdup("simulate");
    const char *p = key;
    for (int i = 1; i <= argc; i++) {
        size_t len = strcspn(p, "\x1f");
        argv[i] = xstrndup(p, len);
        p += len + (p[len] != '\0');
    }
    *argv_out = argv;
    if (parse_sim_args(argc + 1, argv, o) < 0) {
        fprintf(stderr, "moku: --merge: the saved command line does not parse\n");
        return -1;
    }
    return 0;
}

void sim_free_key_opts(struct sim_opts *o, char **argv)
{
    sim_opts_free(o);
    for (size_t i = 0; argv && argv[i]; i++)
        free(argv[i]);
    free(argv);
}

int sim_load_for_merge(const struct sim_opts *o, struct run *r, struct workload *wl)
{
    if (load_run_cfg(r) < 0 || load_run_policy(r) < 0 || load_workload(o, wl) < 0)
        return -1;
    estimate_apply(&o->estimates, wl);
    return 0;
}

int sim_main(int argc, char **argv)
{
    struct sim_opts o = {0};
    int rc = 2;
    if (argc > 1 && strcmp(argv[1], "--merge") == 0)
        return sim_merge(argc - 2, argv + 2);
    if (parse_sim_args(argc, argv, &o) < 0)
        help_hint(help_find("moku simulate")); /* the error is said already, one line */
    else
        rc = simulate(&o);
    sim_opts_free(&o);
    return rc;
}
