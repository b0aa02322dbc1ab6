/* validate — see validate.h. */
#include "cli/validate.h"
#include "cli/help.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/mem.h"
#include "validate/val.h"

static void usage(FILE *f)
{
    help_print(f, help_find("moku validate"));
}

static int count(const char *opt, const char *s, long long *out)
{
    char *end;
    long long v = strtoll(s, &end, 10);
    if (*s == '\0' || *end || v <= 0 || v > 10000000) {
        fprintf(stderr, "moku validate: %s: '%s' is not a count (1..10000000)\n", opt, s);
        return -1;
    }
    *out = v;
    return 0;
}

int validate_main(int argc, char **argv)
{
    struct val_opts o = {0};
    const char **sets = xcalloc((size_t)argc + 1, sizeof *sets);
    static const struct option longs[] = {
        {"nodes", required_argument, NULL, 'n'},        {"ppn", required_argument, NULL, 'p'},
        {"procs", required_argument, NULL, 'P'},        {"config", required_argument, NULL, 'c'},
        {"set", required_argument, NULL, 's'},          {"commands", required_argument, NULL, 'C'},
        {"reservations", required_argument, NULL, 'r'}, {"help", no_argument, NULL, 'h'},
        {"resources", required_argument, NULL, 'R'},    {"estimates", required_argument, NULL, 'E'},
        {"no-swf-deps", no_argument, NULL, 'X'},        {NULL, 0, NULL, 0}};
    int c, bad = 0;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":", longs, NULL)) != -1) {
        switch (c) {
        case 'n':
            bad |= count("--nodes", optarg, &o.nodes) < 0;
            break;
        case 'p':
            bad |= count("--ppn", optarg, &o.ppn) < 0;
            break;
        case 'P':
            bad |= count("--procs", optarg, &o.procs) < 0;
            break;
        case 'c':
            o.config = optarg;
            break;
        case 's':
            sets[o.nsets++] = optarg;
            break;
        case 'C':
            o.commands = optarg;
            break;
        case 'r':
            o.resvs = optarg;
            break;
        case 'R':
            o.resources = optarg;
            break;
        case 'E':
            o.estimates = optarg;
            break;
        case 'X':
            o.no_swf_deps = 1;
            break;
        case 'h':
            usage(stdout);
            free(sets);
            return 0;
        case ':':
            fprintf(stderr, "moku validate: %s needs a value\n", argv[optind - 1]);
            bad = 1;
            break;
        default:
            fprintf(stderr, "moku validate: unknown option '%s'\n", argv[optind - 1]);
            bad = 1;
        }
    }
    if (!bad && (o.nodes != 0) != (o.ppn != 0)) {
        fprintf(stderr, "moku validate: --nodes and --ppn go together\n");
        bad = 1;
    }
    if (!bad && o.resources && (o.procs || o.nodes)) {
        fprintf(stderr, "moku validate: give either --resources or --procs/--nodes, not both\n");
        bad = 1;
    }
    if (!bad && o.procs && o.nodes) {
        fprintf(stderr, "moku validate: give either --procs or --nodes/--ppn, not both\n");
        bad = 1;
    }
    if (!bad && argc - optind != 2) {
        fprintf(stderr, "moku validate: give the trace and the jobs CSV\n");
        bad = 1;
    }
    if (bad) {
        help_hint(help_find("moku validate"));
        free(sets);
        return 2;
    }
    o.sets = sets;
    o.trace = argv[optind];
    o.jobs = argv[optind + 1];
    struct err e;
    int rc = val_run(&o, stdout, &e);
    free(sets);
    if (rc < 0) {
        fprintf(stderr, "moku validate: %s\n", e.msg);
        return 2;
    }
    return rc;
}
