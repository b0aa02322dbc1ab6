/*
 * cfg_params — the table of every maui.cfg parameter moku knows.
 *
 * One row per parameter: documented name, Maui-source alias, type, default,
 * bounds, choices, flags and a help line. The parser, the accessors and
 * `showconfig` all read this table; nothing else lists parameter names.
 *
 * Defaults are Maui 3.3.1's source defaults (digest §§2, 4, 5, 6, 8, 10) except
 * where moku decided otherwise: JOBMAXOVERRUN 0 (the documented value) and the
 * priority weights (every component weight 1, QUEUETIMEWEIGHT 1, the other
 * subcomponent weights 0), which match the source in effect.
 */
#include <stddef.h>
#include <string.h>

#include "cfg/cfg.h"
#include "cfg/cfg_tab.h"
#include "util/arange.h"

#define BIG CFG_TAB_BIG
#define TINF ((double)CFG_TIME_INFINITY)

#define E(n, a, t, d, lo, hi, ch, fl, h)                                                           \
    {                                                                                              \
        n, a, t, d, lo, hi, ch, fl, h                                                              \
    }
#define INT(n, d, lo, hi, fl, h) E(n, NULL, CFG_INT, d, lo, hi, NULL, fl, h)
#define DBL(n, d, lo, hi, fl, h) E(n, NULL, CFG_DOUBLE, d, lo, hi, NULL, fl, h)
#define BOOL(n, d, fl, h) E(n, NULL, CFG_BOOL, d, 0, 1, NULL, fl, h)
#define TIME(n, d, lo, fl, h) E(n, NULL, CFG_TIME, d, lo, TINF, NULL, fl, h)
#define STR(n, d, fl, h) E(n, NULL, CFG_STRING, d, 0, 0, NULL, fl, h)
#define LIST(n, d, fl, h) E(n, NULL, CFG_LIST, d, 0, 0, NULL, fl, h)
#define ENUM(n, d, ch, fl, h) E(n, NULL, CFG_ENUM, d, 0, 0, ch, fl, h)
/* Priority weights are per partition integers and may be negative; caps are >= 0, 0 = none. */
#define WEIGHT(n, a, d, h) E(n, a, CFG_INT, d, -BIG, BIG, NULL, CFG_INDEXED, h)
#define CAP(n, a, h) E(n, a, CFG_DOUBLE, "0", 0, BIG, NULL, CFG_INDEXED, h)
/* Legacy 3.0 throttling triples: <X>PER<Y>POLICY, <X>PER<Y>COUNT (hard), S<X>PER<Y>COUNT (soft). */
#define THROTTLE(x, y)                                                                             \
    BOOL("MAX" x "PER" y "POLICY", "FALSE", CFG_LEGACY,                                            \
         "legacy: enable the per-" y " MAX" x " limit (DEFAULT credential)"),                      \
        STR("MAX" x "PER" y "COUNT", NULL, CFG_LEGACY | CFG_TAB_LIMIT,                             \
            "legacy: hard per-" y " MAX" x " limit, N or SOFT,HARD"),                              \
        INT("SMAX" x "PER" y "COUNT", NULL, -1, BIG, CFG_LEGACY,                                   \
            "legacy: soft per-" y " MAX" x " limit")
/* Legacy standing-reservation parameters are indexed by reservation name (use SRCFG). */
#define SRFL (CFG_INDEXED | CFG_LEGACY)

static const char *const c_servermode[] = {"NORMAL",     "TEST",    "SIMULATION",
                                           "SINGLESTEP", "PROFILE", NULL};
static const char *const c_backfill[] = {"FIRSTFIT", "BESTFIT", "GREEDY", "PREEMPT", "NONE", NULL};
static const char *const c_bfmetric[] = {"PROCS", "NODES",     "PROCSECONDS", "SECONDS",
                                         "PE",    "PESECONDS", NULL};
static const char *const c_bfprio[] = {"RANDOM", "DURATION", "HWDURATION", "NONE", NULL};
static const char *const c_respolicy[] = {"CURRENTHIGHEST", "HIGHEST", "NEVER", "DEFAULT", NULL};
static const char *const c_resthresh[] = {"NONE", "BYPASS", "QUEUETIME", "XFACTOR", NULL};
static const char *const c_fspolicy[] = {"DEDICATEDPS", "DEDICATEDPES", "UTILIZEDPS", "NONE", NULL};
static const char *const c_accrual[] = {"ALWAYS", "QUEUEPOLICY", "FULLPOLICY", NULL};
static const char *const c_nodealloc[] = {
    "FIRSTAVAILABLE", "LASTAVAILABLE", "MINRESOURCE", "CPULOAD", "PRIORITY",
    "FASTEST",        "MAXBALANCE",    "CONTIGUOUS",  "LOCAL",   "MINLOCAL",
    "MINGLOBAL",      "FIRSTSET",      NULL};
static const char *const c_nodeaccess[] = {"SHARED", "SINGLEJOB", "SINGLETASK", "SINGLEUSER", NULL};
static const char *const c_nodeload[] = {"ADJUSTSTATE", "ADJUSTPROCS", NULL};
static const char *const c_taskdist[] = {"DEFAULT", "LOCAL", "ARBGEO", "PACK", "ROUNDROBIN", NULL};
static const char *const c_nsetpolicy[] = {"ONEOF", "ANYOF", "FIRSTOF", "NONE", NULL};
static const char *const c_nsetattr[] = {"FEATURE", "MEMORY", "PROCSPEED", "NETWORK", NULL};
static const char *const c_nsetprio[] = {"BESTFIT", "WORSTFIT", "BESTRESOURCE", "MINLOSS", NULL};
static const char *const c_preempt[] = {"REQUEUE", "SUSPEND", "CHECKPOINT", NULL};
static const char *const c_resctl[] = {"ADMINONLY", "ANY", NULL};
static const char *const c_wcviol[] = {"CANCEL", "PREEMPT", NULL};
static const char *const c_display[] = {"NODECENTRIC", NULL};
static const char *const c_nodematch[] = {"EXACTNODE", "EXACTPROC", NULL};
static const char *const c_simsubmit[] = {"NORMAL", "CONSTANTJOBDEPTH", "CONSTANTPSDEPTH", NULL};
static const char *const c_simnodecfg[] = {"NORMAL", "UNIFORM", "PARTITIONED", NULL};
static const char *const c_simflags[] = {"IGNHOSTLIST", "IGNCLASS", "IGNQOS", "IGNMODE",
                                         "IGNFEATURES", "IGNFRAME", "IGNALL", NULL};
static const char *const c_simtime[] = {"NONE", "REAL", NULL};
static const char *const c_period[] = {"DAY", "WEEK", "INFINITY", NULL};
static const char *const c_sraccess[] = {"DEDICATED", "SHARED", NULL};
static const char *const c_timelogic[] = {"AND", "OR", NULL};
static const char *const c_rmauth[] = {"CHECKSUM", "PKI", "SECUREPORT", NULL};

static const struct cfg_param tab[] = {
    /* --- server, files, logging (digest §10) --- */
    STR("SERVERHOST", NULL, 0, "host the server runs on (the daemon requires it)"),
    INT("SERVERPORT", "40559", 1, 65535, 0, "port of the client command socket"),
    ENUM("SERVERMODE", "NORMAL", c_servermode, 0,
         "NORMAL, TEST (no RM changes), SIMULATION, SINGLESTEP or PROFILE"),
    STR("SERVERNAME", NULL, 0, "name of this scheduler (defaults to SERVERHOST)"),
    INT("STEPCOUNT", "60", 0, BIG, 0, "iterations run in SINGLESTEP mode"),
    INT("WEBPORT", NULL, 0, 65535, 0,
        "port of the web view (moku serve; 0 = one the kernel picks; unset = no web view)"),
    STR("WEBADDRESS", "127.0.0.1", 0, "IPv4 address the web view listens on"),
    TIME("RMPOLLINTERVAL", "60", 1, 0, "time between iterations (RM polls); the simulator's step"),
    STR("LOGFILE", "maui.log", 0, "log file, relative to LOGDIR"),
    STR("LOGDIR", "log/", 0, "directory of the log files"),
    INT("LOGLEVEL", "0", 0, 9, 0, "log verbosity, 0 (quiet) to 9"),
    LIST("LOGFACILITY", "fALL", 0, "event kinds to log (fCORE:fSCHED:...)"),
    INT("LOGFILEMAXSIZE", "1000000", 0, BIG, 0, "log size in bytes at which it is rolled"),
    INT("LOGFILEROLLDEPTH", "1", 0, BIG, 0, "number of rolled log files kept"),
    STR("STATDIR", "stats/", 0, "directory of the statistics files"),
    STR("MAILPROGRAM", "/usr/sbin/sendmail", 0,
        "program job mail (qsub -m, -M) is given to, as PROGRAM -t; NONE: no mail"),
    /* What keeps one user, or a full disk, from taking the daemon's state
     * (moku serve only; docs/daemon.md "Bounds and the disk reserve"). */
    INT("MAXJOBCOUNT", "100000", 0, BIG, 0,
        "jobs the daemon holds at most, queued or running (Slurm's MaxJobCount; 0: no cap)"),
    INT("MAXJOBARRAYSIZE", "10000", 1, ARANGE_LIMIT_MAX, 0,
        "tasks one job array may hold (qsub -t, -J; Torque's max_job_array_size)"),
    INT("MAXSUBMITBYTES", "67108864", 0, BIG, 0,
        "bytes of scripts and environments one user's queued and running jobs may hold (0: no "
        "cap)"),
    INT("DISKRESERVE", "16777216", 0, BIG, 0,
        "bytes kept in HOME/moku.reserve, freed when the disk is full so that cancels and ends "
        "are still recorded; under this much free space submissions are refused (0: none)"),
    STR("TOOLSDIR", "tools/", 0, "directory of helper programs"),
    STR("LOCKFILE", "maui.pid", 0, "file holding the server's pid"),
    STR("CHECKPOINTFILE", "maui.ck", 0, "checkpoint file"),
    TIME("CHECKPOINTINTERVAL", "300", 0, 0, "time between checkpoints"),
    TIME("CHECKPOINTEXPIRATIONTIME", "INFINITY", 0, 0,
         "age after which stale checkpoint data is purged"),
    LIST("ADMIN1", "loadl", 0, "users with full scheduler control (first = primary admin)"),
    LIST("ADMIN2", NULL, 0, "users who may change jobs and see everything"),
    LIST("ADMIN3", NULL, 0, "users who may run every informational command"),
    LIST("ADMINHOSTS", "ALL", 0, "hosts from which admin commands are accepted"),
    TIME("CLIENTTIMEOUT", "30", 0, 0, "how long client commands wait for the server"),
    INT("MAXSLEEPITERATION", "1", 0, BIG, 0, "iterations the server may sleep between polls"),
    TIME("NOTIFICATIONINTERVAL", "3600", 0, 0, "minimum time between repeated admin events"),
    STR("NOTIFICATIONPROGRAM", NULL, 0, "program run for admin notifications"),
    ENUM("DISPLAYFLAGS", NULL, c_display, CFG_MULTI, "flags of client command output"),
    STR("FEEDBACKPROGRAM", NULL, 0, "program run when each job completes"),
    STR("FEATURENODETYPEHEADER", NULL, 0, "node feature prefix that gives the node type"),
    STR("FEATUREPARTITIONHEADER", NULL, 0, "node feature prefix that gives the partition"),
    STR("FEATUREPROCSPEEDHEADER", NULL, 0, "node feature prefix that gives the proc speed"),
    LIST("DEFAULTCLASSLIST", "[DEFAULT:1]", 0, "classes of nodes whose RM reports none"),

    /* --- job handling (digest §1.7, §1.8, §10) --- */
    TIME("DEFERTIME", "3600", 0, 0, "how long a deferred job stays deferred"),
    INT("DEFERCOUNT", "24", 0, BIG, 0, "deferrals before a job gets a batch hold"),
    INT("DEFERSTARTCOUNT", "1", 0, BIG, 0, "failed starts before a job is deferred"),
    TIME("JOBMAXOVERRUN", "0", -1, 0,
         "time a job may exceed its wallclock limit before it is cancelled (-1: never)"),
    TIME("JOBMAXSTARTTIME", "-1", -1, 0, "time a job may stay Starting (-1: no limit)"),
    TIME("JOBAGGREGATIONTIME", "0", 0, 0, "minimum wait after a job event before scheduling"),
    TIME("NODEDOWNSTATEDELAYTIME", "3600", 0, 0,
         "how long down or drained nodes are assumed unavailable"),
    TIME("JOBSYNCTIME", "600", 0, 0, "time before a job's expected state yields to the RM's"),
    TIME("NODESYNCTIME", "600", 0, 0, "time before a node's expected state yields to the RM's"),
    TIME("JOBPURGETIME", "0", 0, 0, "how long a job the RM no longer reports is kept"),
    TIME("NODEPURGETIME", "INFINITY", 0, 0, "how long a node the RM no longer reports is kept"),
    INT("NODEPOLLFREQUENCY", "0", 0, BIG, 0, "iterations between node manager queries"),
    ENUM("PREEMPTPOLICY", "REQUEUE", c_preempt, 0, "how jobs are preempted"),
    ENUM("RESCTLPOLICY", "ADMINONLY", c_resctl, 0, "who may create admin reservations"),
    /* Under RESCTLPOLICY ANY, what one ordinary user's reservations may hold
     * (moku serve; docs/daemon.md). */
    INT("USERRESMAXCOUNT", "2", 0, BIG, 0,
        "reservations one user (not an administrator) may hold at once (0: none)"),
    STR("USERRESMAXPROCS", "50%", CFG_TAB_SHARE,
        "processors one user's reservations may hold at any time: N, or N% of the cluster's"),
    STR("USERRESMAXPS", "10%", CFG_TAB_SHARE,
        "processor-seconds of one user's reservations within USERRESHORIZON: N, or N% of the "
        "cluster's over it"),
    TIME("USERRESHORIZON", "604800", 1, 0,
         "how far ahead one user's reservations may reach (they end within it)"),
    ENUM("WCVIOLATIONACTION", "CANCEL", c_wcviol, 0,
         "action on a job past its wallclock limit (PREEMPT uses PREEMPTPOLICY)"),
    LIST("RESOURCELIMITPOLICY", NULL, 0,
         "RESOURCE:POLICY:ACTION[:TIME] ... for jobs exceeding requested resources"),
    BOOL("USEMACHINESPEED", "FALSE", 0, "scale job wallclock limits by node speed"),
    BOOL("ENABLEMULTINODEJOBS", "TRUE", CFG_INDEXED, "allow jobs to span nodes"),
    BOOL("ENABLEMULTIREQJOBS", "FALSE", CFG_INDEXED, "allow jobs with several resource requests"),
    ENUM("JOBNODEMATCHPOLICY", NULL, c_nodematch, CFG_MULTI | CFG_INDEXED,
         "extra node selection constraints: EXACTNODE, EXACTPROC"),
    TIME("SYSTEMDEFAULTJOBWALLTIME", "864000", 0, 0, "wallclock limit of jobs that give none"),

    /* --- throttling (digest §3.1) --- */
    INT("SYSTEMMAXPROCPERJOB", "-1", -1, BIG, CFG_INDEXED,
        "most processors one job may request (-1: no limit)"),
    TIME("SYSTEMMAXJOBWALLTIME", "-1", -1, CFG_INDEXED,
         "longest wallclock limit one job may request (-1: no limit)"),
    INT("SYSTEMMAXPROCSECONDPERJOB", "-1", -1, BIG, CFG_INDEXED,
        "most proc-seconds one job may request (-1: no limit)"),
    THROTTLE("JOB", "USER"),
    THROTTLE("PROC", "USER"),
    THROTTLE("NODE", "USER"),
    THROTTLE("PE", "USER"),
    THROTTLE("PROCSECOND", "USER"),
    THROTTLE("JOBQUEUED", "USER"),
    THROTTLE("JOB", "GROUP"),
    THROTTLE("PROC", "GROUP"),
    THROTTLE("PROCSECOND", "GROUP"),
    THROTTLE("JOBQUEUED", "GROUP"),
    THROTTLE("JOB", "ACCOUNT"),
    THROTTLE("PROC", "ACCOUNT"),
    THROTTLE("PROCSECOND", "ACCOUNT"),
    THROTTLE("JOBQUEUED", "ACCOUNT"),
    STR("MAXPSPERUSER", NULL, CFG_LEGACY | CFG_TAB_LIMIT,
        "legacy: per-user limit on outstanding proc-seconds, N or SOFT,HARD"),
    STR("MAXWCPERUSER", NULL, CFG_LEGACY | CFG_TAB_TLIMIT,
        "legacy: per-user limit on outstanding wallclock time, T or SOFT,HARD"),
    INT("MAXJOBPERITERATION", "-1", -1, BIG, 0, "most jobs started per iteration (-1: no limit)"),

    /* --- priority components (digest §2.2) --- */
    WEIGHT("SERVWEIGHT", "SERVICEWEIGHT", "1", "weight of the service component"),
    WEIGHT("TARGWEIGHT", "TARGETWEIGHT", "1", "weight of the target component"),
    WEIGHT("CREDWEIGHT", "DIRECTSPECWEIGHT", "1", "weight of the credential component"),
    WEIGHT("ATTRWEIGHT", NULL, "1", "weight of the attribute component (factor always 0)"),
    WEIGHT("FSWEIGHT", NULL, "1", "weight of the fairshare component"),
    WEIGHT("RESWEIGHT", NULL, "1", "weight of the resource component"),
    WEIGHT("USAGEWEIGHT", NULL, "1", "weight of the usage component (running jobs only)"),
    CAP("SERVCAP", "SERVICEWCAP", "cap on the service component (0: none)"),
    CAP("TARGCAP", "TARGETCAP", "cap on the target component (0: none)"),
    CAP("CREDCAP", NULL, "cap on the credential component (0: none)"),
    CAP("ATTRCAP", NULL, "cap on the attribute component (0: none)"),
    CAP("FSCAP", NULL, "cap on the fairshare component (0: none)"),
    CAP("RESCAP", NULL, "cap on the resource component (0: none)"),
    CAP("USAGECAP", NULL, "cap on the usage component (0: none)"),
    /* service */
    WEIGHT("QUEUETIMEWEIGHT", NULL, "1", "weight of queue time in minutes"),
    WEIGHT("XFACTORWEIGHT", NULL, "0", "weight of the expansion factor"),
    WEIGHT("SPVIOLATIONWEIGHT", NULL, "0", "weight of a soft policy violation"),
    WEIGHT("BYPASSWEIGHT", NULL, "0", "weight of the backfill bypass count"),
    CAP("QUEUETIMECAP", NULL, "cap on the queue time factor"),
    CAP("XFACTORCAP", NULL, "cap on the expansion factor"),
    CAP("SPVIOLATIONCAP", NULL, "cap on the soft policy violation factor"),
    CAP("BYPASSCAP", NULL, "cap on the bypass factor"),
    /* target */
    WEIGHT("TARGETQUEUETIMEWEIGHT", NULL, "0", "weight of closeness to the QOS queue time target"),
    WEIGHT("TARGETXFACTORWEIGHT", NULL, "0", "weight of closeness to the QOS xfactor target"),
    CAP("TARGETQUEUETIMECAP", NULL, "cap on the queue time target factor"),
    CAP("TARGETXFACTORCAP", NULL, "cap on the xfactor target factor"),
    /* credential */
    WEIGHT("USERWEIGHT", NULL, "0", "weight of the user's priority"),
    WEIGHT("GROUPWEIGHT", NULL, "0", "weight of the group's priority"),
    WEIGHT("ACCOUNTWEIGHT", NULL, "0", "weight of the account's priority"),
    WEIGHT("QOSWEIGHT", NULL, "0", "weight of the QOS priority"),
    WEIGHT("CLASSWEIGHT", NULL, "0", "weight of the class priority"),
    CAP("USERCAP", NULL, "cap on the user priority factor"),
    CAP("GROUPCAP", NULL, "cap on the group priority factor"),
    CAP("ACCOUNTCAP", NULL, "cap on the account priority factor"),
    CAP("QOSCAP", NULL, "cap on the QOS priority factor"),
    CAP("CLASSCAP", NULL, "cap on the class priority factor"),
    /* fairshare */
    WEIGHT("FSUSERWEIGHT", "UFSWEIGHT", "0", "weight of the user fairshare delta"),
    WEIGHT("FSGROUPWEIGHT", "GFSWEIGHT", "0", "weight of the group fairshare delta"),
    WEIGHT("FSACCOUNTWEIGHT", "AFSWEIGHT", "0", "weight of the account fairshare delta"),
    WEIGHT("FSQOSWEIGHT", NULL, "0", "weight of the QOS fairshare delta"),
    WEIGHT("FSCLASSWEIGHT", NULL, "0", "weight of the class fairshare delta"),
    CAP("FSUSERCAP", NULL, "cap on the user fairshare factor"),
    CAP("FSGROUPCAP", NULL, "cap on the group fairshare factor"),
    CAP("FSACCOUNTCAP", NULL, "cap on the account fairshare factor"),
    CAP("FSQOSCAP", NULL, "cap on the QOS fairshare factor"),
    CAP("FSCLASSCAP", NULL, "cap on the class fairshare factor"),
    /* resource */
    WEIGHT("NODEWEIGHT", NULL, "0", "weight of the requested node count"),
    WEIGHT("PROCWEIGHT", NULL, "0", "weight of the requested processors"),
    WEIGHT("MEMWEIGHT", NULL, "0", "weight of the requested memory (MB)"),
    WEIGHT("SWAPWEIGHT", NULL, "0", "weight of the requested swap (MB)"),
    WEIGHT("DISKWEIGHT", NULL, "0", "weight of the requested disk (MB)"),
    WEIGHT("PSWEIGHT", NULL, "0", "weight of the requested proc-seconds"),
    WEIGHT("PEWEIGHT", NULL, "0", "weight of the requested processor equivalents"),
    WEIGHT("WALLTIMEWEIGHT", NULL, "0", "weight of the requested wallclock limit (s)"),
    WEIGHT("UPROCWEIGHT", NULL, "0", "weight of the user's active procs (not summed, as Maui)"),
    WEIGHT("UJOBWEIGHT", NULL, "0", "weight of the user's active jobs (not summed, as Maui)"),
    CAP("NODECAP", NULL, "cap on the node factor"),
    CAP("PROCCAP", NULL, "cap on the processor factor"),
    CAP("MEMCAP", NULL, "cap on the memory factor"),
    CAP("SWAPCAP", NULL, "cap on the swap factor"),
    CAP("DISKCAP", NULL, "cap on the disk factor"),
    CAP("PSCAP", NULL, "cap on the proc-seconds factor"),
    CAP("PECAP", NULL, "cap on the processor equivalent factor"),
    CAP("WALLTIMECAP", NULL, "cap on the walltime factor"),
    /* usage (running jobs) */
    WEIGHT("CONSUMEDWEIGHT", "USAGECONSUMEDWEIGHT", "0", "weight of consumed proc-seconds"),
    WEIGHT("USAGEEXECUTIONTIMEWEIGHT", "EXECUTIONTIMEWEIGHT", "0", "weight of elapsed run time"),
    WEIGHT("REMAININGWEIGHT", "USAGEREMAININGWEIGHT", "0", "weight of remaining proc-seconds"),
    WEIGHT("PERCENTWEIGHT", "USAGEPERCENTWEIGHT", "0", "weight of the percent of run time used"),
    CAP("CONSUMEDCAP", NULL, "cap on the consumed factor"),
    CAP("USAGEEXECUTIONTIMECAP", "EXECUTIONTIMECAP", "cap on the execution time factor"),
    CAP("REMAININGCAP", NULL, "cap on the remaining factor"),
    CAP("PERCENTCAP", NULL, "cap on the percent factor"),
    /* other priority settings (digest §2.3, §2.5) */
    TIME("XFMINWCLIMIT", "120", -1, CFG_INDEXED,
         "smallest wallclock limit used in the expansion factor (-1: none)"),
    ENUM("JOBPRIOACCRUALPOLICY", "QUEUEPOLICY", c_accrual, CFG_INDEXED,
         "when queue-time priority accrues: ALWAYS, QUEUEPOLICY, FULLPOLICY"),
    BOOL("REJECTNEGPRIOJOBS", "FALSE", CFG_INDEXED, "never start jobs of negative priority"),
    BOOL("ENABLENEGJOBPRIORITY", "FALSE", CFG_INDEXED,
         "allow negative priorities (else the floor is 1)"),
    BOOL("USESYSTEMQUEUETIME", "FALSE", CFG_INDEXED,
         "legacy: queue time counts from eligibility (see JOBPRIOACCRUALPOLICY)"),
    /* legacy per-QOS parameters, indexed by QOS name (use QOSCFG) */
    INT("QOSPRIORITY", NULL, -BIG, BIG, CFG_INDEXED | CFG_LEGACY, "legacy: QOS priority"),
    INT("QOSQTWEIGHT", NULL, -BIG, BIG, CFG_INDEXED | CFG_LEGACY,
        "legacy: QOS addition to QUEUETIMEWEIGHT"),
    INT("QOSXFWEIGHT", NULL, -BIG, BIG, CFG_INDEXED | CFG_LEGACY,
        "legacy: QOS addition to XFACTORWEIGHT"),
    E("QOSQTTARGET", "QOSTARGETQT", CFG_TIME, NULL, 0, TINF, NULL, CFG_INDEXED | CFG_LEGACY,
      "legacy: QOS queue time target"),
    E("QOSXFTARGET", "QOSTARGETXF", CFG_DOUBLE, NULL, 0, BIG, NULL, CFG_INDEXED | CFG_LEGACY,
      "legacy: QOS expansion factor target"),
    LIST("QOSFLAGS", NULL, CFG_INDEXED | CFG_LEGACY, "legacy: QOS flags (IGNJOBPERUSER, ...)"),
    LIST("QOSFEATURES", NULL, CFG_INDEXED | CFG_LEGACY, "legacy: node features a QOS requires"),
    STR("QOSNAME", NULL, CFG_INDEXED | CFG_LEGACY, "legacy: QOS name (ignored, as in Maui)"),

    /* --- fairshare (digest §4.1) --- */
    E("FSPOLICY", NULL, CFG_ENUM, "NONE", 0, 0, c_fspolicy,
      CFG_INDEXED | CFG_TAB_BOOLENUM | CFG_TAB_PERCENT,
      "fairshare usage metric; a trailing % makes the delta percent-based"),
    TIME("FSINTERVAL", "43200", 1, CFG_INDEXED, "length of one fairshare window"),
    INT("FSDEPTH", "8", 0, 24, CFG_INDEXED, "number of fairshare windows kept"),
    DBL("FSDECAY", "1.0", 0, 1, CFG_INDEXED, "weight of each older window relative to the next"),
    STR("FSENFORCEMENT", NULL, CFG_LEGACY, "legacy: accepted and ignored, as in Maui 3.3.1"),
    STR("FSCONFIGFILE", "fs.cfg", CFG_LEGACY, "legacy: accepted and ignored, as in Maui 3.3.1"),
    BOOL("FSSECONDARYGROUPS", "FALSE", 0, "map secondary unix groups to fairshare groups"),
    BOOL("USEMACHINESPEEDFORFS", "FALSE", 0, "scale fairshare usage by node speed"),

    /* --- backfill and priority reservations (digest §5.1) --- */
    E("BACKFILLPOLICY", "BACKFILLTYPE", CFG_ENUM, "FIRSTFIT", 0, 0, c_backfill,
      CFG_INDEXED | CFG_TAB_BOOLENUM, "backfill algorithm (FALSE/OFF mean NONE)"),
    INT("BACKFILLDEPTH", "0", 0, BIG, CFG_INDEXED, "jobs considered per backfill window (0: all)"),
    ENUM("BACKFILLMETRIC", "PROCS", c_bfmetric, CFG_INDEXED, "what BESTFIT and GREEDY maximise"),
    INT("BACKFILLMAXSCHEDULES", "10000", 0, BIG, CFG_INDEXED, "GREEDY search limit"),
    INT("BACKFILLPROCFACTOR", "0", -BIG, BIG, CFG_INDEXED | CFG_LEGACY, "parsed, unused in Maui"),
    ENUM("BFPRIORITYPOLICY", "NONE", c_bfprio, CFG_INDEXED,
         "order of backfill jobs for PREEMPT backfill"),
    INT("BFCHUNKSIZE", "0", 0, BIG, CFG_INDEXED,
        "smallest job that may use chunked resources (0: off)"),
    TIME("BFCHUNKDURATION", "0", 0, CFG_INDEXED, "how long freed resources are held for chunks"),
    INT("RESERVATIONDEPTH", "1", 0, BIG, CFG_INDEXED,
        "priority reservations per QOS group (index = group number)"),
    LIST("RESERVATIONQOSLIST", "[ALL]", CFG_INDEXED,
         "QOS names of a reservation group (index = group number)"),
    ENUM("RESERVATIONPOLICY", "CURRENTHIGHEST", c_respolicy, CFG_INDEXED,
         "which jobs keep priority reservations"),
    ENUM("RESERVATIONTHRESHOLDTYPE", "NONE", c_resthresh, CFG_INDEXED,
         "measure a job must exceed to get a reservation"),
    INT("RESERVATIONTHRESHOLDVALUE", "0", -BIG, BIG, CFG_INDEXED,
        "threshold for RESERVATIONTHRESHOLDTYPE"),
    TIME("RESERVATIONRETRYTIME", "0", 0, CFG_INDEXED,
         "how long starts in a reservation are retried after RM failures"),
    INT("RESDEPTH", "24", 1, BIG, 0, "most reservations on one node"),

    /* --- standing reservations, legacy form (digest §6.2; use SRCFG) --- */
    TIME("SRSTARTTIME", NULL, 0, SRFL, "legacy SRCFG STARTTIME: daily start offset"),
    TIME("SRENDTIME", NULL, 0, SRFL, "legacy SRCFG ENDTIME: daily end offset"),
    TIME("SRWSTARTTIME", NULL, 0, SRFL, "legacy SRCFG WSTARTTIME: weekly start offset"),
    TIME("SRWENDTIME", NULL, 0, SRFL, "legacy SRCFG WENDTIME: weekly end offset"),
    LIST("SRDAYS", NULL, SRFL, "legacy SRCFG DAYS: weekdays or [ALL]"),
    INT("SRTASKCOUNT", NULL, 0, BIG, SRFL, "legacy SRCFG TASKCOUNT: tasks reserved"),
    LIST("SRHOSTLIST", NULL, SRFL, "legacy SRCFG HOSTLIST: candidate hosts"),
    LIST("SRUSERLIST", NULL, SRFL, "legacy SRCFG USERLIST: users granted access"),
    LIST("SRGROUPLIST", NULL, SRFL, "legacy SRCFG GROUPLIST: groups granted access"),
    LIST("SRACCOUNTLIST", NULL, SRFL, "legacy SRCFG ACCOUNTLIST: accounts granted access"),
    LIST("SRQOSLIST", NULL, SRFL, "legacy SRCFG QOSLIST: QOS granted access"),
    LIST("SRCLASSLIST", NULL, SRFL, "legacy SRCFG CLASSLIST: classes granted access"),
    STR("SRMAXTIME", NULL, SRFL, "legacy SRCFG MAXTIME: longest job overlap allowed"),
    INT("SRDEPTH", NULL, 0, BIG, SRFL, "legacy SRCFG DEPTH: periods kept reserved"),
    ENUM("SRPERIOD", NULL, c_period, SRFL, "legacy SRCFG PERIOD: DAY, WEEK or INFINITY"),
    STR("SRRESOURCES", NULL, SRFL, "legacy SRCFG RESOURCES: per-task PROCS=n;MEM=n;..."),
    INT("SRTPN", NULL, 0, BIG, SRFL, "legacy SRCFG TPN: tasks per node"),
    LIST("SRFEATURES", NULL, SRFL, "legacy SRCFG NODEFEATURES: required node features"),
    LIST("SRFLAGS", NULL, SRFL, "legacy SRCFG FLAGS: reservation flags"),
    STR("SRPARTITION", NULL, SRFL, "legacy SRCFG PARTITION"),
    INT("SRPRIORITY", NULL, -BIG, BIG, SRFL, "legacy SRCFG PRIORITY"),
    STR("SRCHARGEACCOUNT", NULL, SRFL, "legacy SRCFG CHARGEACCOUNT"),
    ENUM("SRACCESS", NULL, c_sraccess, SRFL, "legacy SRCFG ACCESS (only SHARED acts)"),
    TIME("SRIDLETIME", NULL, 0, SRFL, "legacy SRCFG IDLETIME"),
    ENUM("SRTIMELOGIC", NULL, c_timelogic, SRFL,
         "AND: TIMELIMIT and MAXTIME entries are required (SRCFG TIMELOGIC)"),
    INT("SRMINTASKS", NULL, 0, BIG, SRFL, "legacy: accepted and ignored"),
    INT("SRMAXTASKS", NULL, 0, BIG, SRFL, "legacy: accepted and ignored"),
    DBL("SRMINLOAD", NULL, 0, BIG, SRFL, "legacy: accepted and ignored"),
    STR("SRNAME", NULL, SRFL, "legacy: accepted and ignored"),

    /* --- node allocation and access (digest §6.4) --- */
    ENUM("NODEALLOCATIONPOLICY", "LASTAVAILABLE", c_nodealloc, CFG_INDEXED,
         "how nodes are chosen for a job"),
    ENUM("NODEACCESSPOLICY", "SHARED", c_nodeaccess, 0, "how jobs may share a node"),
    LIST("NODEAVAILABILITYPOLICY", "COMBINED", CFG_INDEXED,
         "POLICY[:RESOURCE] ...; COMBINED, DEDICATED or UTILIZED"),
    ENUM("NODELOADPOLICY", "ADJUSTSTATE", c_nodeload, CFG_INDEXED,
         "whether node load changes its state or its free procs"),
    DBL("NODEMAXLOAD", "0.0", 0, BIG, 0, "load at which a node counts as busy (0: none)"),
    BOOL("NODEALLOCMAXPS", "FALSE", 0, "with SINGLEJOB access, count PS usage as nodes x time"),
    ENUM("TASKDISTRIBUTIONPOLICY", "DEFAULT", c_taskdist, CFG_INDEXED,
         "how tasks map onto allocated nodes"),
    ENUM("NODESETPOLICY", NULL, c_nsetpolicy, CFG_INDEXED,
         "node set policy: ONEOF, ANYOF, FIRSTOF"),
    ENUM("NODESETATTRIBUTE", NULL, c_nsetattr, CFG_INDEXED, "node attribute that forms node sets"),
    LIST("NODESETLIST", NULL, CFG_INDEXED, "attribute values that form node sets"),
    TIME("NODESETDELAY", "0", 0, CFG_INDEXED, "how long a job may wait for a node set"),
    ENUM("NODESETPRIORITYTYPE", "MINLOSS", c_nsetprio, CFG_INDEXED,
         "how the best feasible node set is chosen"),
    DBL("NODESETTOLERANCE", "0.0", 0, BIG, CFG_INDEXED, "allowed proc speed spread in a node set"),

    /* --- simulation (digest §8.2) --- */
    STR("SIMWORKLOADTRACEFILE", "workload", 0, "workload trace file"),
    STR("SIMRESOURCETRACEFILE", "resource", 0, "resource (node) trace file"),
    ENUM("SIMJOBSUBMISSIONPOLICY", "CONSTANTJOBDEPTH", c_simsubmit, 0,
         "NORMAL (trace times) or keep a constant queue of jobs / proc-seconds"),
    INT("SIMINITIALQUEUEDEPTH", "16", 0, BIG, 0, "jobs (or proc-seconds) queued at start"),
    INT("SIMSTARTTIME", "0", 0, BIG, 0, "simulated clock start (epoch seconds; 0: from trace)"),
    INT("SIMSTOPITERATION", "-1", -1, BIG, 0, "iteration at which scheduling stops (-1: none)"),
    INT("SIMEXITITERATION", "-1", -1, BIG, 0, "iteration at which the simulation ends (-1: none)"),
    BOOL("SIMAUTOSHUTDOWN", "TRUE", 0, "end the simulation when no jobs remain"),
    DBL("SIMWCACCURACY", "0.0", 0, BIG, 0, "0: trace runtimes; else runtime = limit x accuracy"),
    DBL("SIMWCACCURACYCHANGE", "0.0", -BIG, BIG, 0, "shrink limits towards runtimes by this"),
    INT("SIMWCSCALINGPERCENT", "100", 0, BIG, 0, "scale limits and runtimes, in percent"),
    INT("SIMNODECOUNT", "0", 0, BIG, 0, "nodes loaded from the resource trace (0: all)"),
    ENUM("SIMNODECONFIGURATION", "NORMAL", c_simnodecfg, 0, "NORMAL, UNIFORM or PARTITIONED"),
    ENUM("SIMFLAGS", NULL, c_simflags, CFG_MULTI, "trace fields to ignore"),
    LIST("SIMDEFAULTJOBFLAGS", NULL, 0, "flags added to every trace job"),
    LIST("SIMIGNOREJOBFLAGS", "ALLOCLOCAL", 0, "flags removed from every trace job"),
    BOOL("SIMRANDOMIZEJOBSIZE", "FALSE", 0, "randomise trace job sizes"),
    BOOL("SIMSCALEJOBRUNTIME", "FALSE", 0, "scale runtimes by node speed"),
    TIME("SIMCHECKPOINTINTERVAL", "0", 0, 0, "simulated time between checkpoints"),
    DBL("SIMCOMRATE", "0.1", 0, BIG, 0, "communication rate of simulated jobs"),
    STR("SIMCOMTYPE", "ROUNDROBIN", 0, "communication pattern of simulated jobs"),
    DBL("COMINTRAFRAMECOST", "0.3", 0, BIG, 0, "simulated cost of intra-frame communication"),
    DBL("COMINTERFRAMECOST", "0.3", 0, BIG, 0, "simulated cost of inter-frame communication"),
    ENUM("SIMTIMEPOLICY", "NONE", c_simtime, 0, "REAL: the simulation follows the wall clock"),
    INT("SIMTIMERATIO", "0", 0, BIG, 0, "simulated time speedup over wall time (0: none)"),
    INT("SIMRMRANDOMDELAY", "0", 0, BIG, 0, "random delay added to simulated RM calls"),

    /* --- legacy resource-manager parameters (digest §9.1; index = RM name; use RMCFG) --- */
    STR("RMTYPE", "PBS", CFG_INDEXED | CFG_LEGACY, "legacy RMCFG TYPE"),
    E("RMHOST", "RMSERVER", CFG_STRING, NULL, 0, 0, NULL, CFG_INDEXED | CFG_LEGACY,
      "legacy RMCFG HOST"),
    INT("RMPORT", "0", 0, 65535, CFG_INDEXED | CFG_LEGACY, "legacy RMCFG PORT (0: type default)"),
    TIME("RMTIMEOUT", "9", 0, CFG_INDEXED | CFG_LEGACY, "legacy RMCFG TIMEOUT"),
    ENUM("RMAUTHTYPE", "CHECKSUM", c_rmauth, CFG_INDEXED | CFG_LEGACY, "legacy RMCFG AUTHTYPE"),
    INT("RMNMPORT", NULL, 0, 65535, CFG_INDEXED | CFG_LEGACY, "legacy RMCFG NMPORT"),
    STR("RMCONFIGFILE", NULL, CFG_INDEXED | CFG_LEGACY, "legacy RMCFG CONFIGFILE"),
};

/* Spellings beyond name and alias: older Maui names and the Admin Guide's examples. */
static const struct cfg_tab_alias extra[] = {
    {"SERVICETARGETWEIGHT", "SERVWEIGHT"},
    {"SERVICECAP", "SERVCAP"},
    {"MEMORYWEIGHT", "MEMWEIGHT"},
    {"SYSTEMMAXJOBPROC", "SYSTEMMAXPROCPERJOB"},
    {"SYSTEMMAXJOBPROCSECOND", "SYSTEMMAXPROCSECONDPERJOB"},
    {"SIMCPUSCALINGPERCENT", "SIMWCSCALINGPERCENT"},
    /* The backfill page names it for BESTFIT's metric; 3.3.1's source reads
     * only BACKFILLMETRIC (digest §5.1). */
    {"SCHEDULINGCRITERIA", "BACKFILLMETRIC"},
};

const struct cfg_param *cfg_params(size_t *n)
{
    *n = sizeof tab / sizeof tab[0];
    return tab;
}

const struct cfg_tab_alias *cfg_tab_aliases(size_t *n)
{
    *n = sizeof extra / sizeof extra[0];
    return extra;
}

const char *cfg_spelling_at(size_t i, const char **target)
{
    if (i >= sizeof extra / sizeof extra[0])
        return NULL;
    *target = extra[i].target;
    return extra[i].name;
}

/* A linear scan: cfg.c builds its own hash index for the parser; this is for
 * the occasional caller (commands, tests). */
const struct cfg_param *cfg_param_find(const char *name)
{
    size_t n = sizeof tab / sizeof tab[0];
    for (size_t i = 0; i < n; i++) {
        if (strcmp(tab[i].name, name) == 0 || (tab[i].alias && strcmp(tab[i].alias, name) == 0))
            return &tab[i];
    }
    for (size_t i = 0; i < sizeof extra / sizeof extra[0]; i++) {
        if (strcmp(extra[i].name, name) == 0)
            return cfg_param_find(extra[i].target);
    }
    return NULL;
}
