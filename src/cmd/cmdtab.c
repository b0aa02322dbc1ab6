/*
 * cmdtab — the table of moku's commands (cmdtab.h): one entry each, with
 * its help and man text. What the help says of a command is checked
 * against the command itself by tests/integration/help.sh; that every
 * reader knows every entry, by tests/unit/t_cmdtab.c.
 *
 * The order is the help's (moku help, the man pages, completion).
 */
#include "cmd/cmdtab.h"

#include <stdio.h>
#include <string.h>

#include "cmd/cmd_int.h"
#include "moku_config.h" /* generated: MOKU_HOME_DEFAULT (Makefile) */

/* qsub, msub and moku submit: Torque's options that moku reads. -h is
 * Torque's hold, so only --help asks for help. */
static const struct help_opt qsub_opts[] = {
    {"-a DATETIME", "not eligible before [[[[CC]YY]MM]DD]hhmm[.SS]"},
    {"-A ACCOUNT", "the account to charge"},
    {"-d DIR", "the working directory (default: the current one)"},
    {"-e PATH", "standard error's file (DIR/: <name>.e<id> in DIR; host:PATH for this host)"},
    {"-h", "submit with a user hold"},
    {"-I", "interactive: wait for the job, then your login shell on its node on this\n"
           "terminal; exit with the shell's status (a SCRIPT's #PBS lines are read, its\n"
           "body is not run; not under RMCFG TYPE=SLURM: use salloc)"},
    {"-j oe|eo|n", "join standard error into output (oe), or output into error (eo)"},
    {"-l LIST", "resources: walltime=[[HH:]MM:]SS, nodes=N[:ppn=P][:FEATURE][+...],\n"
                "nodes=HOST[:ppn=P][+HOST...] (on those hosts), host=HOST,\n"
                "procs=N, ncpus=N, mem=SIZE, pmem=SIZE, select=N:ncpus=C[:mem=SIZE],\n"
                "place=free|pack|scatter[:excl], naccesspolicy=singlejob,\n"
                "vmem=SIZE, pvmem=SIZE (each process's address space), nice=N\n"
                "(comma-separated); file is read with a warning"},
    {"-m EVENTS", "mail when the job aborts (a), begins (b), ends (e), or never (n)"},
    {"-M USERS", "whom to mail (comma-separated)"},
    {"-N NAME", "the job's name"},
    {"-o PATH", "standard output's file (DIR/: <name>.o<id> in DIR; host:PATH for this host)"},
    {"-p PRIORITY", "read (-1024..1023) with a warning: moku has no user priority"},
    {"-k KEEP", "read with a warning: the output is written in place"},
    {"-q CLASS", "the class (queue): DEFAULT or a CLASSCFG class"},
    {"-r y|n", "whether the job may be run again (requeued)"},
    {"-S SHELL", "the shell that runs the script"},
    {"-t RANGE[%N]", "a job array: tasks 1-100, 1,3,5-9, ...; %N: at most N at once\n"
                     "(a job a task, 12[1] ...; qsub prints 12[].host; under RMCFG\n"
                     "TYPE=SLURM, Slurm's --array; at most MAXJOBARRAYSIZE)"},
    {"-J A-B[:STEP][%N]", "a job array as PBS Pro writes it (as -t)"},
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
    {"-t", "a job array's tasks each on its line (else one line 12[].host)"},
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
    {"-W depend=LIST", "replace a queued job's dependencies (as qsub -W depend=)"},
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

static const struct cmd_def table[] = {
    {.doc = {"moku submit", 1, HELP_NO_H, "[options] [SCRIPT]",
             "submit a batch job to moku (as qsub)",
             "Submit SCRIPT (else standard input) as a job; print its id. #PBS and #MSUB lines "
             "at the head of the script give options too; the command line wins. " CLIENT_DESC_HOME,
             qsub_opts},
     .same_as = "qsub",
     .request = "submit"},
    {.doc = {"moku web", 1, 0, "[--home DIR]", "a one-time login link to moku's web view",
             "Ask the daemon for a one-time link that logs this user in to the web view "
             "(WEBPORT in maui.cfg). Open it within two minutes in a browser that runs as this "
             "user on this machine (or through ssh -L as this user): the session works only on "
             "connections the kernel says are this user's. " CLIENT_DESC_HOME,
             web_opts},
     .request = "weblogin",
     .op = CMD_OP_WEBLOGIN},
    {.doc = {"showq", 1, HELP_CLIENT, "[-r|-i|-b] [-u USER] [-g GROUP] [-a ACCOUNT] [-c CLASS]",
             "show the queue",
             "Show the jobs: running, idle (eligible, in priority order) and blocked, and the "
             "cluster's use. " CLIENT_DESC_HOME,
             showq_opts},
     .run = cmd_showq,
     .op = CMD_OP_LOOK,
     .right = CMD_RIGHT_QUEUE,
     .flags = CMD_WEB},
    {.doc = {"checkjob", 1, HELP_CLIENT, "[-v] JOB", "show a job in detail",
             "Show a job's state, credentials, requirements, times and, for an idle job, why it "
             "is not running. Jobs that ended before the daemon's last start come from its "
             "database. " CLIENT_DESC_HOME,
             checkjob_opts},
     .run = cmd_checkjob,
     .op = CMD_OP_CHECKJOB,
     .right = CMD_RIGHT_SEE_OWN,
     .flags = CMD_WEB},
    {.doc = {"checknode", 1, HELP_CLIENT, "NODE | ALL", "show a node in detail",
             "Show a node's state, processors, features, jobs and reservations; ALL: every "
             "node. " CLIENT_DESC_HOME,
             NULL},
     .run = cmd_checknode,
     .op = CMD_OP_LOOK,
     .right = CMD_RIGHT_ADMIN3,
     .flags = CMD_WEB},
    {.doc = {"showstats", 1, HELP_CLIENT, "[-u|-g|-a|-c|-q [ID]]",
             "show the scheduler's statistics",
             "Show the scheduler's statistics since its record began: jobs, processor-hours, "
             "utilization, wait and expansion factors; with an option, per "
             "credential. " CLIENT_DESC_HOME,
             showstats_opts},
     .run = cmd_showstats,
     .op = CMD_OP_LOOK,
     .right = CMD_RIGHT_ADMIN3,
     .flags = CMD_WEB},
    {.doc = {"showgrid", 1, HELP_CLIENT, "STATISTIC", "show a statistic by job size and duration",
             "Show a statistic of the completed jobs as a matrix of processor classes by walltime "
             "classes: JOBCOUNT, AVGQTIME, AVGXFACTOR, MAXXFACTOR, PROCHOURS (PHRUN), PHREQUEST or "
             "WCACCURACY. " CLIENT_DESC_HOME,
             NULL},
     .run = cmd_showgrid,
     .op = CMD_OP_LOOK,
     .right = CMD_RIGHT_ADMIN3},
    {.doc = {"showres", 1, HELP_CLIENT, "[-g] [-n] [-r] [-s] [-v] [ID...]", "show reservations",
             "Show the reservations (administrative, standing, and jobs' priority "
             "reservations). " CLIENT_DESC_HOME,
             showres_opts},
     .run = cmd_showres,
     .op = CMD_OP_LOOK,
     .right = CMD_RIGHT_ADMIN3,
     .flags = CMD_WEB},
    {.doc = {"setres", 1, HELP_CLIENT, "[options] ALL | TASKS==N | TASKS>=N | HOSTS...",
             "make an administrative reservation",
             "Reserve nodes: all of them, N tasks, or the hosts named (names, ','-lists or "
             "regular expressions). Lists are ':'-separated; -u -g -a -c -q -j make the ACL of "
             "those who may use it; none makes a SYSTEM reservation no job may use. ADMIN1 and "
             "ADMIN2, or anyone with RESCTLPOLICY ANY. " CLIENT_DESC_HOME,
             setres_opts},
     .run = cmd_setres,
     .op = CMD_OP_RESCTL,
     .right = CMD_RIGHT_CREATOR,
     .flags = CMD_CHANGES | CMD_WEB},
    {.doc = {"releaseres", 1, HELP_CLIENT, "ID...", "release administrative reservations",
             "Release the reservations named: all of them or none. " CLIENT_DESC_HOME, NULL},
     .run = cmd_releaseres,
     .op = CMD_OP_RESCTL,
     .right = CMD_RIGHT_CREATOR,
     .flags = CMD_CHANGES | CMD_WEB},
    {.doc = {"diagnose", 1, HELP_CLIENT, "-f | -p | -q | -r [ID] | -j | -n | -u|-g|-a|-c [NAME]",
             "diagnose the scheduler's decisions",
             "Show the facts behind the scheduler's decisions: fairshare, priorities, blocked "
             "jobs, reservations, jobs, nodes or credentials. " CLIENT_DESC_HOME,
             diagnose_opts},
     .run = cmd_diagnose,
     .op = CMD_OP_LOOK,
     .right = CMD_RIGHT_ADMIN3,
     .flags = CMD_WEB},
    {.doc = {"showconfig", 1, HELP_CLIENT, "[PARAM...]", "show the configuration in effect",
             "Show maui.cfg's parameters as the scheduler reads them, defaults included; with "
             "PARAM, only those. " CLIENT_DESC_HOME,
             NULL},
     .run = cmd_showconfig,
     .op = CMD_OP_LOOK,
     .right = CMD_RIGHT_ADMIN3,
     .flags = CMD_WEB},
    {.doc = {"canceljob", 1, HELP_CLIENT, "JOB...", "cancel jobs",
             "Cancel idle jobs, and end running ones. A job's owner, ADMIN1 and ADMIN2 "
             "may. " CLIENT_DESC_HOME,
             NULL},
     .run = cmd_canceljob,
     .op = CMD_OP_CANCELJOB,
     .right = CMD_RIGHT_OWNER,
     .flags = CMD_CHANGES | CMD_WEB | CMD_MESSAGES},
    {.doc = {"sethold", 1, HELP_CLIENT | HELP_NO_H, "[-b] [-h user|system|batch] JOB...",
             "put holds on idle jobs",
             "Hold idle jobs: they stay queued and are not started. A user hold by the owner or "
             "an administrator; system and batch holds by ADMIN1 and ADMIN2. " CLIENT_DESC_HOME,
             hold_opts},
     .run = cmd_sethold,
     .op = CMD_OP_SETHOLD,
     .right = CMD_RIGHT_OWNER,
     .flags = CMD_CHANGES | CMD_WEB | CMD_MESSAGES},
    {.doc = {"releasehold", 1, HELP_CLIENT | HELP_NO_H, "[-a] [-h user|system|batch|all] JOB...",
             "release holds of jobs",
             "Release holds (the user hold unless told otherwise). " CLIENT_DESC_HOME,
             release_opts},
     .run = cmd_releasehold,
     .op = CMD_OP_RELEASEHOLD,
     .right = CMD_RIGHT_OWNER,
     .flags = CMD_CHANGES | CMD_WEB | CMD_MESSAGES},
    {.doc = {"setspri", 1, HELP_CLIENT, "[-r] PRIORITY JOB", "set a job's system priority",
             "Set an idle job's system priority (ADMIN1, ADMIN2): absolute, which puts it ahead "
             "of the computed ones, or with -r added to it. " CLIENT_DESC_HOME,
             setspri_opts},
     .run = cmd_setspri,
     .op = CMD_OP_SETSPRI,
     .right = CMD_RIGHT_ADMIN2,
     .flags = CMD_CHANGES | CMD_WEB | CMD_MESSAGES},
    {.doc = {"setqos", 1, HELP_CLIENT, "QOS JOB", "set a job's QOS",
             "Change an idle job's QOS; its owner may choose among the QOS its credentials "
             "allow. " CLIENT_DESC_HOME,
             NULL},
     .run = cmd_setqos,
     .op = CMD_OP_SETQOS,
     .right = CMD_RIGHT_OWNER,
     .flags = CMD_CHANGES | CMD_WEB | CMD_MESSAGES},
    {.doc =
         {"runjob", 1, HELP_CLIENT, "[-f] [-c] [-x] JOB", "start a job now",
          "Start an idle job now on the processors free for it (ADMIN1, ADMIN2). " CLIENT_DESC_HOME,
          runjob_opts},
     .run = cmd_runjob,
     .op = CMD_OP_RUNJOB,
     .right = CMD_RIGHT_ADMIN2,
     .flags = CMD_CHANGES | CMD_WEB | CMD_MESSAGES},
    {.doc = {"schedctl", 1, HELP_CLIENT, "-s | -r | -k | -R", "control the scheduler",
             "Stop or resume scheduling, stop the daemon or reload maui.cfg "
             "(ADMIN1). " CLIENT_DESC_HOME,
             schedctl_opts},
     .op = CMD_OP_SCHEDCTL,
     .right = CMD_RIGHT_ADMIN1,
     .flags = CMD_CHANGES | CMD_WEB | CMD_MESSAGES},
    {.doc = {"mjobctl", 1, HELP_CLIENT, "-s JOB | -r JOB", "suspend or resume a job",
             "Suspend a running job, or resume a suspended one (ADMIN1, ADMIN2). " CLIENT_DESC_HOME,
             mjobctl_opts},
     .op = CMD_OP_MJOBCTL,
     .right = CMD_RIGHT_ADMIN2,
     .flags = CMD_CHANGES | CMD_WEB | CMD_MESSAGES | CMD_OWN_REFUSAL /* its usage first */},
    {.doc = {"showbf", 1, HELP_CLIENT, "[options]", "show backfill windows",
             "Show how many processors a job could start on now, and for how long: the asker's "
             "windows, or those of the credentials given. " CLIENT_DESC_HOME,
             showbf_opts},
     .run = cmd_showbf,
     .op = CMD_OP_LOOK,
     .flags = CMD_WEB},
    {.doc = {"showstart", 1, HELP_CLIENT, "JOB | PROCS@DURATION [options]",
             "show when a job could start",
             "Show when a queued job, or a hypothetical one of PROCS processors for DURATION, "
             "could start and end. " CLIENT_DESC_HOME,
             showstart_opts},
     .run = cmd_showstart,
     .op = CMD_OP_LOOK,
     .flags = CMD_WEB},
    {.doc = {"changeparam", 1, HELP_CLIENT, "PARAM VALUE [PARAM VALUE]...",
             "change maui.cfg parameters",
             "Write the parameters into maui.cfg and reload it (ADMIN1); a refused file changes "
             "nothing. " CLIENT_DESC_HOME,
             NULL},
     .op = CMD_OP_CHANGEPARAM,
     .right = CMD_RIGHT_ADMIN1,
     .flags = CMD_CHANGES | CMD_WEB | CMD_MESSAGES},
    {.doc = {"mdiag", 1, HELP_CLIENT, "-f | -p | -q | -r [ID] | -j | -n | -u|-g|-a|-c [NAME]",
             "diagnose the scheduler (Moab's name)", "The same as diagnose. " CLIENT_DESC_HOME,
             diagnose_opts},
     .same_as = "diagnose" /* Moab's name */},
    {.doc = {"resetstats", 1, HELP_CLIENT, "", "start the statistics again",
             "Start the statistics again from now (ADMIN1): showstats counts the jobs that end "
             "from then on. " CLIENT_DESC_HOME,
             NULL},
     .op = CMD_OP_RESETSTATS,
     .right = CMD_RIGHT_ADMIN1,
     .flags = CMD_CHANGES | CMD_MESSAGES},
    {.doc = {"qstat", 1, HELP_CLIENT,
             "[-a|-i|-r|-f] [-n [-1]] [-x] [-c] [-t] [-u USER] [JOB...]\n-Q|-q [QUEUE...]\n-B",
             "show jobs as Torque does",
             "Show the jobs in Torque's layouts. Job ids may be Torque's "
             "(123.host). " CLIENT_DESC_HOME,
             qstat_opts},
     .run = cmd_qstat,
     .op = CMD_OP_QSTAT,
     .flags = CMD_TORQUE},
    {.doc = {"qdel", 1, HELP_CLIENT, "[-W DELAY] [-p] JOB...", "delete jobs (as canceljob)",
             "Cancel the jobs; silent on success, Torque's messages and exit codes "
             "otherwise. " CLIENT_DESC_HOME,
             qdel_opts},
     .op = CMD_OP_QDEL,
     .right = CMD_RIGHT_OWNER,
     .flags = CMD_CHANGES | CMD_MESSAGES | CMD_TORQUE},
    {.doc = {"qhold", 1, HELP_CLIENT | HELP_NO_H, "[-h u|o|s] JOB...", "hold jobs (as sethold)",
             "Put holds on queued jobs. " CLIENT_DESC_HOME, qhold_opts},
     .op = CMD_OP_QHOLD,
     .right = CMD_RIGHT_OWNER,
     .flags = CMD_CHANGES | CMD_MESSAGES | CMD_TORQUE},
    {.doc = {"qrls", 1, HELP_CLIENT | HELP_NO_H, "[-h u|o|s] JOB...",
             "release holds (as releasehold)", "Release holds of jobs. " CLIENT_DESC_HOME,
             qhold_opts},
     .op = CMD_OP_QHOLD,
     .right = CMD_RIGHT_OWNER,
     .flags = CMD_CHANGES | CMD_MESSAGES | CMD_TORQUE},
    {.doc = {"qalter", 1, HELP_CLIENT,
             "[-l walltime=T] [-N NAME] [-p PRIORITY] [-W depend=LIST] JOB...",
             "change queued jobs",
             "Change a queued job's walltime, name, system priority or dependencies; committed "
             "before the "
             "reply. " CLIENT_DESC_HOME,
             qalter_opts},
     .op = CMD_OP_QALTER,
     .right = CMD_RIGHT_OWNER,
     .flags = CMD_CHANGES | CMD_MESSAGES | CMD_TORQUE},
    {.doc = {"qsig", 1, HELP_CLIENT, "-s suspend|resume JOB...", "suspend or resume jobs",
             "Suspend or resume running jobs (as mjobctl; ADMIN1, ADMIN2). " CLIENT_DESC_HOME,
             qsig_opts},
     .op = CMD_OP_QSIG,
     .right = CMD_RIGHT_ADMIN2,
     .flags = CMD_CHANGES | CMD_MESSAGES | CMD_TORQUE | CMD_OWN_REFUSAL /* job by job */},
    {.doc = {"qrun", 1, HELP_CLIENT, "JOB...", "start jobs now (as runjob)",
             "Start queued jobs now on free processors (ADMIN1, ADMIN2). " CLIENT_DESC_HOME, NULL},
     .op = CMD_OP_QRUN,
     .right = CMD_RIGHT_ADMIN2,
     .flags = CMD_CHANGES | CMD_MESSAGES | CMD_TORQUE | CMD_OWN_REFUSAL /* job by job */},
    {.doc = {"pbsnodes", 1, HELP_CLIENT, "[-a|-l|-x] [NODE...]\n-o [-N NOTE] NODE...\n-c NODE...",
             "show nodes, or take them offline, as Torque does",
             "Show the nodes in Torque's layout, or take nodes offline and back (kept across "
             "restarts). " CLIENT_DESC_HOME,
             pbsnodes_opts},
     .run = cmd_pbsnodes,
     .op = CMD_OP_PBSNODES,
     .flags = CMD_TORQUE /* -o, -c: ADMIN1 and ADMIN2, committed by its handler */},
    {.doc = {"qsub", 1, HELP_NO_H, "[options] [SCRIPT]", "submit a batch job to moku",
             "Submit SCRIPT (else standard input) as a job; print its id. #PBS lines at the head "
             "of the script give options too; the command line wins. " CLIENT_DESC_HOME,
             qsub_opts},
     .request = "submit",
     .op = CMD_OP_SUBMIT,
     .flags = CMD_CHANGES},
    {.doc = {"msub", 1, HELP_NO_H, "[options] [SCRIPT]", "submit a batch job to moku (as qsub)",
             "Submit SCRIPT (else standard input) as a job; print its id. #PBS and #MSUB lines at "
             "the head of the script give options too; the command line wins. " CLIENT_DESC_HOME,
             qsub_opts},
     .same_as = "qsub",
     .request = "submit"},
};

const struct cmd_def *cmd_def_at(size_t i)
{
    return i < sizeof table / sizeof table[0] ? &table[i] : NULL;
}

const struct cmd_def *cmd_def_find(const char *name)
{
    for (size_t i = 0; name && i < sizeof table / sizeof table[0]; i++)
        if (strcmp(table[i].doc.name, name) == 0)
            return &table[i];
    return NULL;
}

const char *cmd_def_request_name(const struct cmd_def *d)
{
    return d->request ? d->request : d->doc.name;
}

/* The first entry wins: qsub answers "submit" for itself, msub and moku
 * submit (the same request). */
const struct cmd_def *cmd_def_request(const char *cmd)
{
    for (size_t i = 0; cmd && i < sizeof table / sizeof table[0]; i++)
        if (strcmp(cmd_def_request_name(&table[i]), cmd) == 0)
            return cmd_def_main(&table[i]);
    return NULL;
}

const struct cmd_def *cmd_def_main(const struct cmd_def *d)
{
    const struct cmd_def *m = d && d->same_as ? cmd_def_find(d->same_as) : d;
    return m ? m : d;
}

int cmd_def_takes_value(const struct cmd_def *d, const char *word)
{
    if (!d || word[0] != '-' || !word[1] || word[1] == '-' || word[2])
        return 0;
    for (const struct help_opt *o = d->doc.opts; o && o->flag; o++)
        if (o->flag[0] == '-' && o->flag[1] == word[1] && o->flag[2] == ' ' && o->flag[3] != '[')
            return 1;
    return 0;
}

void cmd_def_look_names(char *buf, size_t n)
{
    size_t len = 0, count = 0, k = 0;
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        count += table[i].run && !table[i].same_as && !(table[i].flags & CMD_CHANGES);
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof table / sizeof table[0] && len < n; i++) {
        const struct cmd_def *d = &table[i];
        if (!d->run || d->same_as || (d->flags & CMD_CHANGES))
            continue;
        k++;
        const char *sep = k == 1 ? "" : k == count ? " or " : ", ";
        int w = snprintf(buf + len, n - len, "%s%s", sep, d->doc.name);
        len += w > 0 ? (size_t)w : 0;
    }
}
