/*
 * help_tab — the table of every command's help (help.h). What each entry
 * says is checked against the command itself by tests/integration/help.sh
 * (every option printed here is one the command accepts).
 */
#include "cli/help.h"
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
                        "setres, releaseres and the --show commands; each command\n"
                        "and its answer are written to standard error"},
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
    {"--help, -h", "this help"},
    {"--version", "print moku's version"},
    {NULL, NULL},
};

/* qsub, msub and moku submit: Torque's options that moku reads. -h is
 * Torque's hold, so only --help asks for help. */
static const struct help_opt qsub_opts[] = {
    {"-a DATETIME", "not eligible before [[[[CC]YY]MM]DD]hhmm[.SS]"},
    {"-A ACCOUNT", "the account to charge"},
    {"-d DIR", "the working directory (default: the current one)"},
    {"-e PATH", "standard error's file (DIR/: <name>.e<id> in DIR; host:PATH for this host)"},
    {"-h", "submit with a user hold"},
    {"-j oe|eo|n", "join standard error into output (oe), or output into error (eo)"},
    {"-l LIST", "resources: walltime=[[HH:]MM:]SS, nodes=N[:ppn=P][:FEATURE][+...],\n"
                "procs=N, ncpus=N, mem=SIZE, pmem=SIZE, select=N:ncpus=C[:mem=SIZE],\n"
                "place=free|pack|scatter[:excl], naccesspolicy=singlejob\n"
                "(comma-separated); vmem, nice and file are read with a warning"},
    {"-m EVENTS", "mail when the job aborts (a), begins (b), ends (e), or never (n)"},
    {"-M USERS", "whom to mail (comma-separated)"},
    {"-N NAME", "the job's name"},
    {"-o PATH", "standard output's file (DIR/: <name>.o<id> in DIR; host:PATH for this host)"},
    {"-p PRIORITY", "read (-1024..1023) with a warning: moku has no user priority"},
    {"-k KEEP", "read with a warning: the output is written in place"},
    {"-q CLASS", "the class (queue): DEFAULT or a CLASSCFG class"},
    {"-r y|n", "whether the job may be run again (requeued)"},
    {"-S SHELL", "the shell that runs the script"},
    {"-v VAR[=VALUE],...", "variables for the job's environment"},
    {"-V", "export the whole current environment to the job"},
    {"-W x=QOS:NAME|ADVRES:ID", "the QOS, or the reservation to run in"},
    {"-W group_list=GROUP", "run the job as GROUP (one of yours)"},
    {"--token TOKEN", "submit under the token a submission that got no answer printed:\n"
                      "the job made under it, if any, else a new one (never two)"},
    {"--home DIR", "the daemon's home (default: MOKU_HOME, else " MOKU_HOME_DEFAULT ")"},
    {"--help", "this help"},
    {"--version", "print moku's version"},
    {NULL, NULL},
};

static const struct help_opt web_opts[] = {
    {"--home DIR", "the daemon's home (default: MOKU_HOME, else " MOKU_HOME_DEFAULT ")"},
    {NULL, NULL},
};

static const struct help_opt showq_opts[] = {
    {"-r", "running jobs only"},
    {"-i", "idle (eligible) jobs only, with their priorities"},
    {"-b", "blocked jobs only"},
    {"-u USER", "only this user's jobs"},
    {"-g GROUP", "only this group's jobs"},
    {"-a ACCOUNT", "only this account's jobs"},
    {"-c CLASS", "only this class's jobs"},
    {"-p PARTITION", "only the jobs running in this partition"},
    {NULL, NULL},
};

static const struct help_opt showres_opts[] = {
    {"-n", "per node: the reservations on each node"},
    {"-g", "grep-friendly: one line per reservation"},
    {"-r", "reservations and their details"},
    {"-s", "standing reservations"},
    {"-v", "verbose"},
    {NULL, NULL},
};

static const struct help_opt setres_opts[] = {
    {"-a ACCOUNTS", "accounts that may use it (':'-separated)"},
    {"-A ACCOUNT", "the account charged for it"},
    {"-c CLASSES", "classes that may use it"},
    {"-d DURATION", "how long: [[[DD:]HH:]MM:]SS or INFINITY"},
    {"-e TIME", "when it ends: +[[[DD:]HH:]MM:]SS or HH[:MM[:SS]][_MO[/DD[/YY]]]"},
    {"-f FEATURES", "only nodes with these features"},
    {"-g GROUPS", "groups that may use it"},
    {"-j JOBATTRS", "job attributes that may use it"},
    {"-m", "modify the reservation named by -n instead of creating one"},
    {"-n NAME", "its name"},
    {"-p PARTITION", "the partition"},
    {"-q QOS", "QOS that may use it"},
    {"-r RESDESC", "per task: PROCS=N;MEM=MB;DISK=MB;SWAP=MB"},
    {"-s TIME", "when it starts (default: now), as -e"},
    {"-u USERS", "users that may use it"},
    {"-x FLAGS", "flags of SRCFG FLAGS (BYNAME, ...), DEDICATEDRESOURCE"},
    {NULL, NULL},
};

static const struct help_opt diagnose_opts[] = {
    {"-f", "fairshare: the parameters and each credential's usage per window"},
    {"-p", "priority: each idle job's priority and its components"},
    {"-q", "blocked jobs and why"},
    {"-r [ID]", "reservations (one, or all)"},
    {"-j", "jobs: state, processors, credentials, and any problem"},
    {"-n", "nodes: processors, memory, reservations, jobs, and any problem"},
    {"-u [USER]", "users: priority, QOS, fairshare target, jobs and limits"},
    {"-g [GROUP]", "groups, the same"},
    {"-a [ACCOUNT]", "accounts, the same"},
    {"-c [CLASS]", "classes, the same"},
    {NULL, NULL},
};

static const struct help_opt checkjob_opts[] = {
    {"-v", "verbose: for an idle job, why each node cannot run it now"},
    {NULL, NULL},
};

static const struct help_opt showstats_opts[] = {
    {"-u [USER]", "per user: active and completed jobs, processor-hours, xfactors"},
    {"-g [GROUP]", "per group"},
    {"-a [ACCOUNT]", "per account"},
    {"-c [CLASS]", "per class"},
    {"-q [QOS]", "per QOS"},
    {NULL, NULL},
};

static const struct help_opt showbf_opts[] = {
    {"-A", "the windows of any job (DEFAULT credentials), not the asker's"},
    {"-a ACCOUNT", "as a job of this account"},
    {"-c CLASS", "as a job of this class"},
    {"-d DURATION", "windows at least this long"},
    {"-f FEATURE", "on nodes with this feature"},
    {"-g GROUP", "as a job of this group"},
    {"-n NODES", "windows on at least this many nodes"},
    {"-p PARTITION", "in this partition"},
    {"-q QOS", "as a job of this QOS"},
    {"-r PROCS", "windows with at least this many processors"},
    {"-u USER", "as a job of this user"},
    {"-v", "each window's node count too"},
    {NULL, NULL},
};

static const struct help_opt showstart_opts[] = {
    {"-u USER", "the hypothetical job's user"},
    {"-g GROUP", "its group"},
    {"-a ACCOUNT", "its account"},
    {"-c CLASS", "its class"},
    {"-q QOS", "its QOS"},
    {"-p PARTITION", "its partition"},
    {"-f FEATURES", "the node features it needs"},
    {NULL, NULL},
};

static const struct help_opt hold_opts[] = {
    {"-b", "a batch hold (ADMIN1, ADMIN2)"},
    {"-h TYPE", "the hold: user (the default), system or batch"},
    {NULL, NULL},
};

static const struct help_opt release_opts[] = {
    {"-a", "every hold"},
    {"-h TYPE", "the hold: user (the default), system, batch or all"},
    {NULL, NULL},
};

static const struct help_opt setspri_opts[] = {
    {"-r", "relative: add PRIORITY to the job's system priority"},
    {NULL, NULL},
};

static const struct help_opt runjob_opts[] = {
    {"-f", "force: start a job that has holds (released first)"},
    {"-c", "accepted; changes nothing (moku's runjob ignores policies anyway)"},
    {"-x", "accepted; changes nothing (moku's runjob ignores reservations anyway)"},
    {NULL, NULL},
};

static const struct help_opt schedctl_opts[] = {
    {"-s", "stop scheduling (jobs keep running; requests are answered)"},
    {"-r", "resume scheduling"},
    {"-k", "stop the daemon (running jobs keep running)"},
    {"-R", "reload maui.cfg now, and say what changed"},
    {NULL, NULL},
};

static const struct help_opt mjobctl_opts[] = {
    {"-s JOB", "suspend a running job"},
    {"-r JOB", "resume a suspended job"},
    {NULL, NULL},
};

static const struct help_opt qstat_opts[] = {
    {"-a", "Torque's alternative layout (nodes, tasks, memory, times)"},
    {"-f", "every attribute of the jobs (Job Id: blocks)"},
    {"-n", "with -a: the nodes each job runs on"},
    {"-1", "with -n: the nodes on the job's line; with -f: no wrapping (moku never wraps)"},
    {"-r", "running and suspended jobs only (the alternative layout)"},
    {"-i", "queued, held and waiting jobs only (the alternative layout)"},
    {"-u USER[,USER]", "only these users' jobs (the alternative layout)"},
    {"-x", "Torque's XML of the full view (also with -f)"},
    {"-c", "also the jobs that ended since the statistics began"},
    {"-t", "job arrays expanded (moku has none: the plain listing)"},
    {"-Q [QUEUE...]", "Torque's queue table, a class a queue"},
    {"-q [QUEUE...]", "Torque's queue limits table"},
    {"-B", "Torque's server line"},
    {"--json", "JSON (also --format=json)"},
    {NULL, NULL},
};

static const struct help_opt qdel_opts[] = {
    {"-W DELAY", "accepted (Torque's delay before SIGKILL); moku's cancel is its own"},
    {"-p", "accepted (Torque's purge); the job is removed either way"},
    {NULL, NULL},
};

static const struct help_opt qhold_opts[] = {
    {"-h u|o|s", "the hold: user (the default), operator (moku's batch) or system"},
    {NULL, NULL},
};

static const struct help_opt qalter_opts[] = {
    {"-l walltime=T", "a queued job's walltime (its owner within their limits)"},
    {"-N NAME", "the job's name"},
    {"-p PRIORITY", "its system priority 0..1000 (ADMIN1, ADMIN2)"},
    {NULL, NULL},
};

static const struct help_opt qsig_opts[] = {
    {"-s SIGNAL", "suspend or resume (other signals are refused)"},
    {NULL, NULL},
};

static const struct help_opt pbsnodes_opts[] = {
    {"-a", "every node (the default)"},
    {"-l", "the nodes that are offline or down"},
    {"-x", "Torque's XML of the node blocks"},
    {"-o", "take the nodes offline: no new job starts there (ADMIN1, ADMIN2)"},
    {"-c", "clear offline (ADMIN1, ADMIN2)"},
    {"-N NOTE", "with -o: a note kept with the node"},
    {NULL, NULL},
};

#define CLIENT_DESC_HOME                                                                           \
    "The daemon is found through --home DIR, else MOKU_HOME, else " MOKU_HOME_DEFAULT "."

static const struct help_cmd table[] = {
    {"moku", 1, 0,
     "COMMAND [ARGS]\n--help | --version",
     "a Maui-compatible batch scheduler and its simulator",
     "moku is a clean-room batch scheduler that reads Maui's maui.cfg and answers Maui's "
     "commands. Its faces: moku serve (the daemon), moku simulate (replay a workload "
     "trace), moku validate (check a replayed schedule), moku submit (also qsub, msub), "
     "moku web (a login link to the web view), and the Maui commands, which are the "
     "same binary under their own names (showq, checkjob, ...) or moku COMMAND.\n\n"
     "Every command answers --help and --version. Exit status: 0 success, 1 a run-time "
     "error, 2 bad usage.",
     moku_opts},
    {"moku serve", 8, 0,
     "[--home DIR] [--daemon] [--fresh] [--log file|syslog|journal]",
     "the moku scheduler daemon",
     "Serve HOME: read HOME/maui.cfg, keep the state in HOME/moku.db, listen on "
     "HOME/moku.sock, log to maui.log (LOGDIR, LOGFILE) and write HOME/moku.pid. One "
     "daemon per home (HOME/moku.lock). Without --daemon it stays in the foreground and "
     "tells a service manager (systemd, Type=notify) when it is ready. SIGHUP reloads "
     "maui.cfg, SIGUSR1 reopens the log, SIGTERM stops it.",
     serve_opts},
    {"moku simulate", 1, 0,
     "[options] TRACE",
     "replay a workload trace through the scheduler",
     "Replay a workload through the scheduler: an SWF trace, Maui's own workload trace "
     "(VERSION 230), Slurm's accounting (sacct -a -P with a header), Torque's accounting "
     "log, plain or gzip, told apart by content; or a moku home, the jobs its daemon ran "
     "(under the home's maui.cfg unless --config is given).",
     sim_opts},
    {"moku validate", 1, 0,
     "[--nodes N --ppn P | --procs N | --resources FILE] [--config FILE]\n"
     "[--set 'PARAM VALUE']... [--commands FILE] [--reservations RESV.csv]\n"
     "[--estimates MODEL] TRACE SCHEDULE",
     "check that a replayed schedule could have happened",
     "Check that the schedule in SCHEDULE (moku simulate --jobs-out, or another "
     "simulator's in that format; or moku's --swf-out or --batsim-out) could have "
     "happened: node capacity at every instant, "
     "starts after submission and outside holds, ends at min(runtime, walltime + "
     "JOBMAXOVERRUN), the trace's facts, HARD MAXJOB, MAXPROC and MAXPS limits at every "
     "start, reservations' ACLs. Exit status: 0 valid, 1 violations (one line each), 2 "
     "bad input.",
     validate_opts},
    {"moku submit", 1, HELP_NO_H, "[options] [SCRIPT]",
     "submit a batch job to moku (as qsub)",
     "Submit SCRIPT (else standard input) as a job; print its id. #PBS and #MSUB lines "
     "at the head of the script give options too; the command line wins. " CLIENT_DESC_HOME,
     qsub_opts},
    {"moku web", 1, 0, "[--home DIR]",
     "a one-time login link to moku's web view",
     "Ask the daemon for a one-time link that logs this user in to the web view "
     "(WEBPORT in maui.cfg). Open it within two minutes in a browser that runs as this "
     "user on this machine (or through ssh -L as this user): the session works only on "
     "connections the kernel says are this user's. " CLIENT_DESC_HOME,
     web_opts},
    {"showq", 1, HELP_CLIENT, "[-r|-i|-b] [-u USER] [-g GROUP] [-a ACCOUNT] [-c CLASS]",
     "show the queue",
     "Show the jobs: running, idle (eligible, in priority order) and blocked, and the "
     "cluster's use. " CLIENT_DESC_HOME,
     showq_opts},
    {"checkjob", 1, HELP_CLIENT, "[-v] JOB",
     "show a job in detail",
     "Show a job's state, credentials, requirements, times and, for an idle job, why it "
     "is not running. Jobs that ended before the daemon's last start come from its "
     "database. " CLIENT_DESC_HOME,
     checkjob_opts},
    {"checknode", 1, HELP_CLIENT, "NODE | ALL", "show a node in detail",
     "Show a node's state, processors, features, jobs and reservations; ALL: every "
     "node. " CLIENT_DESC_HOME,
     NULL},
    {"showstats", 1, HELP_CLIENT, "[-u|-g|-a|-c|-q [ID]]", "show the scheduler's statistics",
     "Show the scheduler's statistics since its record began: jobs, processor-hours, "
     "utilization, wait and expansion factors; with an option, per credential. "
     CLIENT_DESC_HOME,
     showstats_opts},
    {"showgrid", 1, HELP_CLIENT, "STATISTIC", "show a statistic by job size and duration",
     "Show a statistic of the completed jobs as a matrix of processor classes by walltime "
     "classes: JOBCOUNT, AVGQTIME, AVGXFACTOR, MAXXFACTOR, PROCHOURS (PHRUN), PHREQUEST or "
     "WCACCURACY. " CLIENT_DESC_HOME,
     NULL},
    {"showres", 1, HELP_CLIENT, "[-g] [-n] [-r] [-s] [-v] [ID...]", "show reservations",
     "Show the reservations (administrative, standing, and jobs' priority "
     "reservations). " CLIENT_DESC_HOME,
     showres_opts},
    {"setres", 1, HELP_CLIENT, "[options] ALL | TASKS==N | TASKS>=N | HOSTS...",
     "make an administrative reservation",
     "Reserve nodes: all of them, N tasks, or the hosts named (names, ','-lists or "
     "regular expressions). Lists are ':'-separated; -u -g -a -c -q -j make the ACL of "
     "those who may use it; none makes a SYSTEM reservation no job may use. ADMIN1 and "
     "ADMIN2, or anyone with RESCTLPOLICY ANY. " CLIENT_DESC_HOME,
     setres_opts},
    {"releaseres", 1, HELP_CLIENT, "ID...", "release administrative reservations",
     "Release the reservations named: all of them or none. " CLIENT_DESC_HOME, NULL},
    {"diagnose", 1, HELP_CLIENT, "-f | -p | -q | -r [ID] | -j | -n | -u|-g|-a|-c [NAME]",
     "diagnose the scheduler's decisions",
     "Show the facts behind the scheduler's decisions: fairshare, priorities, blocked "
     "jobs, reservations, jobs, nodes or credentials. " CLIENT_DESC_HOME,
     diagnose_opts},
    {"showconfig", 1, HELP_CLIENT, "[PARAM...]", "show the configuration in effect",
     "Show maui.cfg's parameters as the scheduler reads them, defaults included; with "
     "PARAM, only those. " CLIENT_DESC_HOME,
     NULL},
    {"canceljob", 1, HELP_CLIENT, "JOB...", "cancel jobs",
     "Cancel idle jobs, and end running ones. A job's owner, ADMIN1 and ADMIN2 may. "
     CLIENT_DESC_HOME,
     NULL},
    {"sethold", 1, HELP_CLIENT | HELP_NO_H, "[-b] [-h user|system|batch] JOB...",
     "put holds on idle jobs",
     "Hold idle jobs: they stay queued and are not started. A user hold by the owner or "
     "an administrator; system and batch holds by ADMIN1 and ADMIN2. " CLIENT_DESC_HOME,
     hold_opts},
    {"releasehold", 1, HELP_CLIENT | HELP_NO_H, "[-a] [-h user|system|batch|all] JOB...",
     "release holds of jobs",
     "Release holds (the user hold unless told otherwise). " CLIENT_DESC_HOME, release_opts},
    {"setspri", 1, HELP_CLIENT, "[-r] PRIORITY JOB", "set a job's system priority",
     "Set an idle job's system priority (ADMIN1, ADMIN2): absolute, which puts it ahead "
     "of the computed ones, or with -r added to it. " CLIENT_DESC_HOME,
     setspri_opts},
    {"setqos", 1, HELP_CLIENT, "QOS JOB", "set a job's QOS",
     "Change an idle job's QOS; its owner may choose among the QOS its credentials "
     "allow. " CLIENT_DESC_HOME,
     NULL},
    {"runjob", 1, HELP_CLIENT, "[-f] [-c] [-x] JOB", "start a job now",
     "Start an idle job now on the processors free for it (ADMIN1, ADMIN2). "
     CLIENT_DESC_HOME,
     runjob_opts},
    {"schedctl", 1, HELP_CLIENT, "-s | -r | -k | -R", "control the scheduler",
     "Stop or resume scheduling, stop the daemon or reload maui.cfg (ADMIN1). "
     CLIENT_DESC_HOME,
     schedctl_opts},
    {"mjobctl", 1, HELP_CLIENT, "-s JOB | -r JOB", "suspend or resume a job",
     "Suspend a running job, or resume a suspended one (ADMIN1, ADMIN2). "
     CLIENT_DESC_HOME,
     mjobctl_opts},
    {"showbf", 1, HELP_CLIENT, "[options]", "show backfill windows",
     "Show how many processors a job could start on now, and for how long: the asker's "
     "windows, or those of the credentials given. " CLIENT_DESC_HOME,
     showbf_opts},
    {"showstart", 1, HELP_CLIENT, "JOB | PROCS@DURATION [options]",
     "show when a job could start",
     "Show when a queued job, or a hypothetical one of PROCS processors for DURATION, "
     "could start and end. " CLIENT_DESC_HOME,
     showstart_opts},
    {"changeparam", 1, HELP_CLIENT, "PARAM VALUE [PARAM VALUE]...",
     "change maui.cfg parameters",
     "Write the parameters into maui.cfg and reload it (ADMIN1); a refused file changes "
     "nothing. " CLIENT_DESC_HOME,
     NULL},
    {"mdiag", 1, HELP_CLIENT, "-f | -p | -q | -r [ID] | -j | -n | -u|-g|-a|-c [NAME]",
     "diagnose the scheduler (Moab's name)",
     "The same as diagnose. " CLIENT_DESC_HOME, diagnose_opts},
    {"resetstats", 1, HELP_CLIENT, "", "start the statistics again",
     "Start the statistics again from now (ADMIN1): showstats counts the jobs that end "
     "from then on. " CLIENT_DESC_HOME,
     NULL},
    {"qstat", 1, HELP_CLIENT, "[-a|-i|-r|-f] [-n [-1]] [-x] [-c] [-t] [-u USER] [JOB...]\n-Q|-q [QUEUE...]\n-B",
     "show jobs as Torque does",
     "Show the jobs in Torque's layouts. Job ids may be Torque's (123.host). "
     CLIENT_DESC_HOME,
     qstat_opts},
    {"qdel", 1, HELP_CLIENT, "[-W DELAY] [-p] JOB...", "delete jobs (as canceljob)",
     "Cancel the jobs; silent on success, Torque's messages and exit codes otherwise. "
     CLIENT_DESC_HOME,
     qdel_opts},
    {"qhold", 1, HELP_CLIENT | HELP_NO_H, "[-h u|o|s] JOB...", "hold jobs (as sethold)",
     "Put holds on queued jobs. " CLIENT_DESC_HOME, qhold_opts},
    {"qrls", 1, HELP_CLIENT | HELP_NO_H, "[-h u|o|s] JOB...", "release holds (as releasehold)",
     "Release holds of jobs. " CLIENT_DESC_HOME, qhold_opts},
    {"qalter", 1, HELP_CLIENT, "[-l walltime=T] [-N NAME] [-p PRIORITY] JOB...",
     "change queued jobs",
     "Change a queued job's walltime, name or system priority; committed before the "
     "reply. " CLIENT_DESC_HOME,
     qalter_opts},
    {"qsig", 1, HELP_CLIENT, "-s suspend|resume JOB...", "suspend or resume jobs",
     "Suspend or resume running jobs (as mjobctl; ADMIN1, ADMIN2). " CLIENT_DESC_HOME,
     qsig_opts},
    {"qrun", 1, HELP_CLIENT, "JOB...", "start jobs now (as runjob)",
     "Start queued jobs now on free processors (ADMIN1, ADMIN2). " CLIENT_DESC_HOME, NULL},
    {"pbsnodes", 1, HELP_CLIENT, "[-a|-l|-x] [NODE...]\n-o [-N NOTE] NODE...\n-c NODE...",
     "show nodes, or take them offline, as Torque does",
     "Show the nodes in Torque's layout, or take nodes offline and back (kept across "
     "restarts). " CLIENT_DESC_HOME,
     pbsnodes_opts},
    {"qsub", 1, HELP_NO_H, "[options] [SCRIPT]", "submit a batch job to moku",
     "Submit SCRIPT (else standard input) as a job; print its id. #PBS lines at the head "
     "of the script give options too; the command line wins. " CLIENT_DESC_HOME,
     qsub_opts},
    {"msub", 1, HELP_NO_H, "[options] [SCRIPT]", "submit a batch job to moku (as qsub)",
     "Submit SCRIPT (else standard input) as a job; print its id. #PBS and #MSUB lines at "
     "the head of the script give options too; the command line wins. " CLIENT_DESC_HOME,
     qsub_opts},
};

const struct help_cmd *help_at(size_t i)
{
    return i < sizeof table / sizeof table[0] ? &table[i] : NULL;
}
