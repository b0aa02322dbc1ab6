/*
 * moku — command-line entry point: which of moku's faces was asked for.
 *
 *   moku simulate [options] TRACE    replay a workload trace (cli/simulate.c)
 *   moku serve --home DIR            the daemon (daemon/)
 *   moku submit | qsub | msub        submit to the daemon (cli/client.c)
 *   moku COMMAND | showq | ...       ask the daemon (cli/client.c)
 *
 * Exit status: 0 success, 1 a run-time error, 2 bad usage.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/client.h"
#include "cli/simulate.h"
#include "cli/validate.h"
#include "daemon/daemon.h"
#include "rm/local.h"

#define MOKU_VERSION "0.1.0"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: moku serve --home DIR [--daemon] [--fresh]  run the scheduler daemon\n"
            "       moku submit [qsub options] [SCRIPT]   submit a job (also: qsub, msub)\n"
            "       moku COMMAND [ARGS] [--home DIR]      ask the daemon (MOKU_HOME): showq,\n"
            "                  checkjob, checknode, showstats, showgrid, diagnose, showconfig, canceljob,\n"
            "                  sethold, releasehold, setspri, setqos, runjob, schedctl,\n"
            "                  mjobctl -s|-r (suspend, resume), showres, setres, releaseres\n"
            "                  showbf, showstart, changeparam PARAM VALUE..., resetstats,\n"
            "                  mdiag (Moab's name for diagnose)\n"
            "                  Torque's: qstat, qdel, qhold, qrls, qalter, qsig, qrun, pbsnodes\n"
            "       moku web [--home DIR]                 a login link to the web view (WEBPORT)\n");
    sim_usage(f, 0);
}

/* moku serve --home DIR [--daemon] [--fresh] (or MOKU_HOME). */
static int cmd_serve(int argc, char **argv)
{
    const char *home = getenv("MOKU_HOME");
    int detach = 0, fresh = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--home") == 0 && i + 1 < argc)
            home = argv[++i];
        else if (strncmp(argv[i], "--home=", 7) == 0)
            home = argv[i] + 7;
        else if (strcmp(argv[i], "--daemon") == 0)
            detach = 1;
        else if (strcmp(argv[i], "--fresh") == 0)
            fresh = 1;
        else {
            fprintf(stderr, "moku serve: unknown option '%s'\n"
                            "usage: moku serve --home DIR [--daemon] [--fresh]\n", argv[i]);
            return 2;
        }
    }
    if (!home || !*home) {
        fprintf(stderr, "moku serve: give the daemon's home: --home DIR or MOKU_HOME\n");
        return 2;
    }
    return daemon_serve(home, detach, fresh);
}

/* The name this binary was called by (a symlink such as showq or qsub). */
static const char *called_as(const char *argv0)
{
    const char *slash = strrchr(argv0, '/');
    return slash ? slash + 1 : argv0;
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
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (strcmp(argv[1], "simulate") == 0)
        return sim_main(argc - 1, argv + 1);
    if (strcmp(argv[1], "validate") == 0)
        return validate_main(argc - 1, argv + 1);
    if (strcmp(argv[1], "serve") == 0)
        return cmd_serve(argc - 1, argv + 1);
    if (strcmp(argv[1], "submit") == 0 || strcmp(argv[1], "qsub") == 0 ||
        strcmp(argv[1], "msub") == 0)
        return client_submit(strcmp(argv[1], "submit") == 0 ? "moku submit" : argv[1], argc - 2,
                             argv + 2);
    if (strcmp(argv[1], "web") == 0)
        return client_web(argc - 2, argv + 2);
    if (client_is_command(argv[1]))
        return client_run(argv[1], argc - 2, argv + 2);
    if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "version") == 0) {
        printf("moku %s\n", MOKU_VERSION);
        return 0;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "help") == 0 ||
        strcmp(argv[1], "-h") == 0) {
        usage(stdout);
        return 0;
    }
    fprintf(stderr, "moku: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return 2;
}
