/*
 * moku — command-line entry point: which of moku's faces was asked for.
 *
 *   moku simulate [options] TRACE    replay a workload trace (cli/simulate.c)
 *   moku serve [--home DIR]          the daemon (daemon/)
 *   moku submit | qsub | msub        submit to the daemon (cli/client.c)
 *   moku COMMAND | showq | ...       ask the daemon (cli/client.c)
 *
 * Every face answers --help and --version from the help table (help.h)
 * without asking the daemon. Exit status: 0 success, 1 a run-time error,
 * 2 bad usage (one line on stderr, and a hint).
 */
#define _GNU_SOURCE /* close_range */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/client.h"
#include "cli/help.h"
#include "cli/simulate.h"
#include "cli/validate.h"
#include "daemon/daemon.h"
#include "moku_config.h" /* MOKU_HOME_DEFAULT */
#include "rm/local.h"

/* moku serve [--home DIR] [--daemon] [--fresh] [--log WHERE]: the home is
 * --home, else MOKU_HOME, else the compiled-in default. */
static int cmd_serve(int argc, char **argv)
{
    const struct help_cmd *h = help_find("moku serve");
    enum help_ask ask = help_asked(h, argc - 1, argv + 1);
    if (ask != HELP_NONE)
        return help_answer(h, ask);
    struct daemon_opts o = {.home = getenv("MOKU_HOME"), .log = DLOG_FILE};
    const char *log = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if ((strcmp(a, "--home") == 0 || strcmp(a, "--log") == 0) && i + 1 >= argc)
            return help_usage_error(h, "%s needs a value", a);
        if (strcmp(a, "--home") == 0)
            o.home = argv[++i];
        else if (strncmp(a, "--home=", 7) == 0)
            o.home = a + 7;
        else if (strcmp(a, "--log") == 0)
            log = argv[++i];
        else if (strncmp(a, "--log=", 6) == 0)
            log = a + 6;
        else if (strcmp(a, "--syslog") == 0)
            log = "syslog";
        else if (strcmp(a, "--daemon") == 0)
            o.detach = 1;
        else if (strcmp(a, "--fresh") == 0)
            o.fresh = 1;
        else
            return help_usage_error(h, "unknown option '%s'", a);
    }
    if (log && dlog_sink_of(log, &o.log) < 0)
        return help_usage_error(h, "--log: '%s' is not file, syslog or journal", log);
    if (!o.home || !*o.home)
        o.home = MOKU_HOME_DEFAULT;
    /* A daemon holds nothing of its starter's: an inherited descriptor (a
     * lock its shell took, a pipe a script waits on to close) would stay
     * held for the daemon's whole life. */
    close_range(3, ~0U, 0);
    return daemon_serve(&o);
}

/* The name this binary was called by (a symlink such as showq or qsub). */
static const char *called_as(const char *argv0)
{
    const char *slash = strrchr(argv0, '/');
    return slash ? slash + 1 : argv0;
}

/* The faces of moku that are not the daemon's clients, by name. */
static int subcommand(const char *name, int argc, char **argv)
{
    const struct help_cmd *h = help_find(name);
    enum help_ask ask = help_asked(h, argc - 1, argv + 1);
    if (ask != HELP_NONE)
        return help_answer(h, ask);
    if (strcmp(name, "moku simulate") == 0)
        return sim_main(argc, argv);
    if (strcmp(name, "moku validate") == 0)
        return validate_main(argc, argv);
    return cmd_serve(argc, argv);
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "_supervise") == 0)
        return local_supervise(argv[2]);
    const char *self = called_as(argv[0]);
    if (strcmp(self, "qsub") == 0 || strcmp(self, "msub") == 0)
        return client_submit(self, argc - 1, argv + 1);
    if (client_is_command(self))
        return client_run(self, argc - 1, argv + 1);
    const struct help_cmd *moku = help_find("moku");
    if (argc < 2)
        return help_usage_error(moku, "missing command");
    const char *w = argv[1];
    if (strcmp(w, "simulate") == 0 || strcmp(w, "validate") == 0 || strcmp(w, "serve") == 0) {
        char name[32];
        snprintf(name, sizeof name, "moku %s", w);
        return subcommand(name, argc - 1, argv + 1);
    }
    if (strcmp(w, "submit") == 0 || strcmp(w, "qsub") == 0 || strcmp(w, "msub") == 0)
        return client_submit(strcmp(w, "submit") == 0 ? "moku submit" : w, argc - 2, argv + 2);
    if (strcmp(w, "web") == 0)
        return client_web(argc - 2, argv + 2);
    if (client_is_command(w))
        return client_run(w, argc - 2, argv + 2);
    if (strcmp(w, "--version") == 0 || strcmp(w, "version") == 0)
        return help_answer(moku, HELP_VERSION);
    if (strcmp(w, "--help") == 0 || strcmp(w, "help") == 0 || strcmp(w, "-h") == 0) {
        const struct help_cmd *h = argc > 2 ? help_find(argv[2]) : NULL;
        if (!h && argc > 2) {
            char name[64];
            snprintf(name, sizeof name, "moku %s", argv[2]);
            h = help_find(name);
        }
        return help_answer(h ? h : moku, HELP_HELP);
    }
    return help_usage_error(moku, "unknown command '%s'", w);
}
