/*
 * help_tab — the help of moku's faces that are not commands (moku, moku
 * serve, simulate, validate), and help_at, which walks them and then the
 * command table (cmd/cmdtab.c: every command's help is in its entry there).
 * What each entry says is checked against the command itself by
 * tests/integration/help.sh (every option printed is one it accepts).
 */
#include "cli/help.h"
#include "cmd/cmdtab.h"
#include "moku_config.h" /* generated: MOKU_HOME_DEFAULT (Makefile) */

static const struct help_opt moku_opts[] = {
    {"--help, -h", "this help"},
    {"--version", "print moku's version"},
    {NULL, NULL},
};

static const struct help_opt serve_opts[] = {
    {"--home DIR", "the daemon's home: maui.cfg, the database, the socket, the log\n"
                   "(default: MOKU_HOME, else " MOKU_HOME_DEFAULT ")"},
    {"--daemon", "detach into the background once serving"},
    {"--fresh", "start with an empty database when moku.db is there but empty"},
    {"--log WHERE", "where the log goes: file (maui.log in LOGDIR, the default),\n"
                    "syslog (the daemon facility) or journal (standard error,\n"
                    "with priority prefixes, for systemd's journal)"},
    {"--syslog", "the same as --log syslog"},
    {NULL, NULL},
};

static const struct help_opt sim_opts[] = {
    {"--config FILE", "maui.cfg to use (default: Maui's defaults); repeat it to\n"
                      "compare configurations: one run per file, the same trace,\n"
                      "the reports side by side"},
    {"--set PARAM=VALUE", "a maui.cfg line applied to every run after its file\n"
                          "(repeatable; later lines win)"},
    {"--compare PARAM=V1,V2,...", "one run per value (for each --config), after the --set lines;\n"
                                  "give it twice for a grid of two parameters (every pair);\n"
                                  "the report marks the Pareto front of wait, bounded\n"
                                  "slowdown, utilization and fairness of waits across users"},
    {"--jobs N", "replay the runs of a comparison in N worker processes at once\n"
                 "(default: one per processor); the report is the same"},
    {"--recorded", "measure the schedule the log itself recorded (its start\n"
                   "times) and show it beside the replays, first"},
    {"--estimates MODEL", "the walltimes the jobs ask: request (the log's, default),\n"
                          "exact (the runtime), factor:F (runtime x F), fmodel:F[:SEED]\n"
                          "(runtime x (1 + F u), u uniform, drawn per job)"},
    {"--warmup TIME", "measure only the jobs submitted TIME after the first\n"
                      "submission or later (the others are replayed, not measured)"},
    {"--cooldown TIME", "measure only the jobs submitted TIME before the last\n"
                        "submission or earlier"},
    {"--bsld-tau SECONDS", "the bound of the bounded slowdown (default 10)"},
    {"--plan", "list the runs the options make, a line each (number,\n"
               "configuration, --compare values), and replay nothing"},
    {"--run K", "with --save-run: replay only run K of the comparison"},
    {"--save-run FILE", "with --run: save that run's results for --merge (a Slurm\n"
                        "job array: one run a task)"},
    {"--merge FILE...", "(first, alone) the report of a comparison from its saved runs,\n"
                        "as the single command prints it"},
    {"--classes", "add wait and slowdown by job size and runtime to a one-run\n"
                  "report (a comparison always has them)"},
    {"--plot FILE.svg", "chart utilization and queue length over time, a line per run"},
    {"--series FILE.csv", "utilization, processors busy and up, jobs queued and running\n"
                          "over time: a row per bin (time-weighted averages)"},
    {"--html FILE.html", "one self-contained page: metrics a column per run, charts\n"
                         "over time (zoomable), wait and slowdown distributions,\n"
                         "breakdowns by size, runtime, user and class, configuration"},
    {"--swf-out FILE", "the simulated schedule as SWF: the trace's fields with the\n"
                       "simulated wait, run time and status (a comparison: a file a\n"
                       "run, FILE's %d or its extension taking the run's number)"},
    {"--batsim-out FILE", "the jobs as Batsim's jobs.csv (a comparison: a run column)"},
    {"--nodes N", "cluster of N nodes (with --ppn)"},
    {"--ppn P", "processors of each of the --nodes"},
    {"--procs N", "cluster of N one-processor nodes"},
    {"--resources FILE", "nodes from a Maui resource trace (also SIMRESOURCETRACEFILE)\n"
                         "(default cluster: NODECFG lines, else the options above,\n"
                         "else the trace's MaxNodes/MaxProcs)"},
    {"--jobs-out FILE", "write one CSV row per job (a comparison: a leading run column)"},
    {"--resv-out FILE", "write one CSV row per reservation instance (moku validate\n"
                        "--reservations reads it; one run only)"},
    {"--fs-history DIR", "read the last FSDEPTH fairshare windows (FS.<epoch> files)\n"
                         "from DIR before the replay (default: STATDIR when the\n"
                         "configuration sets it, else none: every replay starts\n"
                         "from no usage)"},
    {"--fs-out DIR", "write the replay's fairshare windows that count (FSDEPTH)\n"
                     "to DIR when it ends, removing older FS files there (one\n"
                     "run only)"},
    {"--format FMT", "report as text (default) or json"},
    {"--strict", "a trace record that cannot be replayed is an error (jobs\n"
                 "unfinished or never started in an accounting log are counted)"},
    {"--no-swf-deps", "ignore SWF fields 17 and 18 (preceding job, think time):\n"
                      "no job waits for another"},
    {"--full-walk", "under throttling limits, walk every idle job at every\n"
                    "iteration as Maui does, instead of only the credentials\n"
                    "whose eligibility can have changed (the same schedule,\n"
                    "slower: for comparison and timing)"},
    {"--iterate-every N", "iterate at every multiple of N seconds too, besides the\n"
                          "events and the engine's wake-ups, while jobs wait: a\n"
                          "test of the wake-ups (a schedule that changes shows one\n"
                          "missing; see docs/simulation.md)"},
    {"--until TIME", "stop at TIME (the trace's clock: seconds, or\n"
                     "[[DD:]HH:]MM:SS), in the state the replay's last\n"
                     "iteration at or before TIME left"},
    {"--show COMMAND", "print a command's answer when the replay stops, instead of\n"
                       "the report: showq [-r|-i|-b], checkjob ID, checknode NODE,\n"
                       "showstats [-u|-g|-a|-c|-q], showgrid STAT, showres [-n],\n"
                       "showbf, showstart ID|P@TIME, diagnose -p|-q|-f|-r|-j|-n|\n"
                       "-u|-g|-a|-c, showconfig; add --format=json for\n"
                       "JSON (repeatable)"},
    {"--commands FILE", "run administrator commands at chosen times of the replay:\n"
                        "lines of 'TIME COMMAND [ARGS]' (TIME in seconds since the\n"
                        "trace's start, or [[DD:]HH:]MM:SS), e.g. '3600 sethold 42';\n"
                        "canceljob, sethold, releasehold, setspri, setqos, runjob,\n"
                        "setres, releaseres and the --show commands; 'submit ID\n"
                        "RUNTIME [-u USER] [--exit STATUS] [QSUB-OPTIONS]' adds a\n"
                        "job, 'qalter -W depend=LIST JOB' changes its dependencies;\n"
                        "each command and its answer are written to standard error"},
    {"--quiet", "with --commands, write only the commands that fail"},
    {"--timezone ZONE", "the calendar of standing reservations (SRCFG): UTC, local,\n"
                        "+HH:MM, or a zone name such as Europe/Stockholm (default:\n"
                        "the trace's TimeZoneString, else UTC)"},
    {"--help, -h", "this help"},
    {"--version", "print moku's version"},
    {NULL, NULL},
};

static const struct help_opt validate_opts[] = {
    {"--nodes N", "cluster of N nodes (with --ppn), as moku simulate's"},
    {"--ppn P", "processors of each of the --nodes"},
    {"--procs N", "cluster of N one-processor nodes"},
    {"--resources FILE", "nodes from a Maui resource trace"},
    {"--config FILE", "the maui.cfg the schedule was made with"},
    {"--set 'PARAM VALUE'", "a maui.cfg line after the file (repeatable)"},
    {"--commands FILE", "the --commands script the replay ran"},
    {"--reservations FILE", "the reservations (moku simulate --resv-out) to check ACLs against"},
    {"--estimates MODEL", "the walltimes the replay gave the jobs (simulate --estimates)"},
    {"--no-swf-deps", "the replay ignored SWF fields 17/18 (simulate --no-swf-deps)"},
    {"--help, -h", "this help"},
    {"--version", "print moku's version"},
    {NULL, NULL},
};

static const struct help_cmd faces[] = {
    {"moku", 1, 0, "COMMAND [ARGS]\n--help | --version",
     "a Maui-compatible batch scheduler and its simulator",
     "moku is a clean-room batch scheduler that reads Maui's maui.cfg and answers Maui's "
     "commands. Its faces: moku serve (the daemon), moku simulate (replay a workload "
     "trace), moku validate (check a replayed schedule), moku submit (also qsub, msub), "
     "moku web (a login link to the web view), and the Maui commands, which are the "
     "same binary under their own names (showq, checkjob, ...) or moku COMMAND.\n\n"
     "Every command answers --help and --version. Exit status: 0 success, 1 a run-time "
     "error, 2 bad usage.",
     moku_opts},
    {"moku serve", 8, 0, "[--home DIR] [--daemon] [--fresh] [--log file|syslog|journal]",
     "the moku scheduler daemon",
     "Serve HOME: read HOME/maui.cfg, keep the state in HOME/moku.db, listen on "
     "HOME/moku.sock, log to maui.log (LOGDIR, LOGFILE) and write HOME/moku.pid. One "
     "daemon per home (HOME/moku.lock). Without --daemon it stays in the foreground and "
     "tells a service manager (systemd, Type=notify) when it is ready. SIGHUP reloads "
     "maui.cfg, SIGUSR1 reopens the log, SIGTERM stops it.",
     serve_opts},
    {"moku simulate", 1, 0, "[options] TRACE", "replay a workload trace through the scheduler",
     "Replay a workload through the scheduler: an SWF trace, Maui's own workload trace "
     "(VERSION 230), Slurm's accounting (sacct -a -P with a header), Torque's accounting "
     "log, plain or gzip, told apart by content; or a moku home, the jobs its daemon ran "
     "(under the home's maui.cfg unless --config is given).",
     sim_opts},
    {"moku validate", 1, 0,
     "[--nodes N --ppn P | --procs N | --resources FILE] [--config FILE]\n"
     "[--set 'PARAM VALUE']... [--commands FILE] [--reservations RESV.csv]\n"
     "[--estimates MODEL] [--no-swf-deps] TRACE SCHEDULE",
     "check that a replayed schedule could have happened",
     "Check that the schedule in SCHEDULE (moku simulate --jobs-out, or another "
     "simulator's in that format; or moku's --swf-out or --batsim-out) could have "
     "happened: node capacity at every instant, "
     "starts after submission, outside holds and after the preceding job of SWF field 17, ends at "
     "min(runtime, walltime + "
     "JOBMAXOVERRUN), the trace's facts, HARD MAXJOB, MAXPROC and MAXPS limits at every "
     "start, reservations' ACLs. Exit status: 0 valid, 1 violations (one line each), 2 "
     "bad input.",
     validate_opts},
};

/* moku's faces first, then its commands (cmd/cmdtab.c, which holds their
 * help with the rest of what each command is). */
const struct help_cmd *help_at(size_t i)
{
    size_t nfaces = sizeof faces / sizeof faces[0];
    if (i < nfaces)
        return &faces[i];
    const struct cmd_def *d = cmd_def_at(i - nfaces);
    return d ? &d->doc : NULL;
}
