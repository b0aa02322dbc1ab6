#!/usr/bin/env python3
"""diffreplay: random differential replays (issue 31).

    python3 tests/tools/diffreplay.py [options]

Each case, from a fixed seed, is a workload and a maui.cfg:
  slice  a random stretch (200-5000 jobs) of a bundled trace (data/*.norm.swf.gz),
  synth  a synthetic SWF trace (few users, groups and classes, bursts),
  prop   a case of tests/tools/propgen (cluster, trace, configuration, commands),
with a random combination of the policies issue 31's speed work touched:
backfill policy and depth, throttling limits (user, group, class; soft,hard),
fairshare (policy, weights, targets, floors, ceilings, caps), dynamic priority
(XFACTORWEIGHT, QUEUETIMEWEIGHT, credential priorities), the cluster's shape.

Every case is replayed by each binary of --bin (the first is the reference)
writing --jobs-out, --swf-out, --batsim-out, --series and the JSON report
(its timings removed), and the files are compared byte for byte. With
--walks, each binary's default walk is also compared with --full-walk
whenever the case has throttling limits (for the last binary of --bin, the one
under test), and with --wake the jobs CSV with an iteration forced at every
RMPOLLINTERVAL (--iterate-every). A case that differs is kept under
--keep (case.cfg, case.swf, case.cmds, args, what differed) and named on
standard output; the exit status is 1 when any case differed.
"""
import argparse
import gzip
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

TRACES = ["KTH-SP2-1996-2.1-cln", "HPC2N-2002-2.1-cln", "NASA-iPSC-1993-3.1-cln",
          "SDSC-BLUE-2000-4.2-cln", "LLNL-Thunder-2007-1.1-cln", "CEA-Curie-2011-2.1-cln"]
OUTPUTS = ["jobs.csv", "sched.swf", "batsim.csv", "series.csv", "report.json", "commands.txt"]
_trace_cache = {}
MAX_JOBS = 5000  # --max-jobs
COMMANDS = 0.0  # --commands: the share of cases with timed commands
FOCUS = None  # --focus: caps, fswin, bypass or capidle (focus_lines)


def load_trace(data, name):
    """The trace's header lines and job lines (read once)."""
    if name not in _trace_cache:
        head, jobs = [], []
        with gzip.open(os.path.join(data, name + ".norm.swf.gz"), "rt") as f:
            for line in f:
                (head if line.startswith(";") else jobs).append(line)
        maxprocs = 0
        for h in head:
            m = re.match(r";\s*MaxProcs:\s*(\d+)", h)
            if m:
                maxprocs = int(m.group(1))
        _trace_cache[name] = (head, jobs, maxprocs)
    return _trace_cache[name]


def slice_case(r, data, case):
    """A random stretch of a bundled trace; returns the cluster's processors."""
    names = [t for t in TRACES if os.path.exists(os.path.join(data, t + ".norm.swf.gz"))]
    name = r.choice(names)
    head, jobs, maxprocs = load_trace(data, name)
    n = r.randint(200, min(5000, MAX_JOBS))
    start = r.randint(0, max(0, len(jobs) - n))
    with open(os.path.join(case, "case.swf"), "w") as f:
        f.writelines(head)
        f.writelines(jobs[start:start + n])
    biggest = max(int(l.split()[7]) if int(l.split()[7]) > 0 else int(l.split()[4])
                  for l in jobs[start:start + n])
    procs = maxprocs
    args = []
    shape = r.random()
    if shape < 0.25 and biggest > 0:
        # a smaller cluster: more waiting, more limits biting
        procs = max(biggest, int(maxprocs * r.uniform(0.3, 0.9)))
        args = ["--procs", str(procs)]
    elif shape < 0.45:
        ppn = r.choice([2, 4, 8, 16, 32])
        nodes = max(1, (maxprocs + ppn - 1) // ppn)
        procs = nodes * ppn
        args = ["--nodes", str(nodes), "--ppn", str(ppn)]
    return name, procs, args


def synth_case(r, case):
    """A synthetic SWF trace: bursts of jobs of few users, groups and classes."""
    procs = r.choice([8, 16, 32, 64, 100, 128])
    n = r.randint(200, min(3000, MAX_JOBS))
    users = r.randint(1, 30)
    groups = r.randint(1, 6)
    classes = r.randint(1, 4)
    t = 0
    lines = ["; MaxProcs: %d\n" % procs, "; MaxNodes: %d\n" % procs]
    ugroup = {u: r.randint(1, groups) for u in range(1, users + 1)}
    for i in range(1, n + 1):
        if r.random() < 0.3:
            t += 0  # a burst: the same submit time
        else:
            t += int(r.expovariate(1.0 / r.choice([5, 60, 600])))
        p = min(procs, r.choice([1, 1, 2, 4, 8, r.randint(1, procs)]))
        run = r.choice([0, 1, r.randint(1, 120), r.randint(60, 7200), r.randint(600, 86400)])
        req = max(1, int(run * r.choice([1, 1.5, 3, 10]))) if r.random() < 0.9 else max(1, run // 2)
        u = r.randint(1, users)
        q = r.randint(1, classes)
        lines.append("%d %d -1 %d %d -1 -1 %d %d -1 1 %d %d -1 %d -1 -1 -1\n"
                     % (i, t, run, p, p, req, u, ugroup[u], q))
    with open(os.path.join(case, "case.swf"), "w") as f:
        f.writelines(lines)
    args = []
    if r.random() < 0.3:
        ppn = r.choice([2, 4])
        args = ["--nodes", str(procs // ppn), "--ppn", str(ppn)]
    return "synth", procs, args


def odd_int(r, v):
    """v written as SWF allows but traces rarely do: "0012", "+12", "12.0", "12."."""
    form = r.random()
    if form < 0.85 or v < 0:
        return str(v)
    return r.choice(["0%d" % v, "+%d" % v, "%d.0" % v, "%d." % v, "%d.000" % v])


def odd_real(r):
    """A value for a real field (CPU time, memory): decimals of every length."""
    return r.choice(["-1", "0", "-0.0", "1.5", "1e3", "0.001", "62.00", "3.14159265358979",
                     "123456789012.345", "0.1234567890123456", "99999999999999999",
                     str(r.randint(0, 10 ** r.randint(1, 12))),
                     "%.*f" % (r.randint(0, 17), r.uniform(0, 10 ** r.randint(0, 9)))])


def weird_case(r, case):
    """An SWF trace of odd but valid values: ids with gaps, leading zeros and
    past 2^31, decimals in every numeric field, unknown (-1) fields, statuses
    of every kind, submit times out of order, huge users and groups."""
    procs = r.choice([4, 16, 64])
    n = r.randint(50, min(800, MAX_JOBS))
    lines = ["; MaxProcs: %d\n" % procs]
    jid = r.choice([1, 2147483600, 4294967200, 10 ** 12])
    t = r.choice([0, 1000000, 2 ** 31 - 100000])
    users = [r.choice([r.randint(1, 9), r.randint(1, 2 ** 31 - 1), -1]) for _ in range(r.randint(1, 8))]
    for _ in range(n):
        jid += r.choice([1, 1, 1, 2, 1000])
        t += r.choice([0, 0, 1, 7, 300, -5 if r.random() < 0.05 else 0])
        t = max(0, t)
        run = r.choice([-1, 0, 1, r.randint(1, 5000)])
        p = r.choice([-1, 1, r.randint(1, procs)])
        preq = r.choice([-1, p, r.randint(1, procs)])
        if p < 1 and preq < 1:
            preq = 1
        req = r.choice([-1, max(0, run), r.randint(1, 10000)])
        f = [odd_int(r, jid), odd_int(r, t), odd_int(r, r.choice([-1, r.randint(0, 999)])),
             odd_int(r, run), odd_int(r, p), odd_real(r), odd_real(r), odd_int(r, preq),
             odd_int(r, req), odd_real(r), str(r.choice([-1, 0, 1, 1, 1, 5])),
             str(r.choice(users)), str(r.choice([-1, 1, 2, 70000])), str(r.choice([-1, 3])),
             str(r.choice([-1, 1, 2, 3])), str(r.choice([-1, 1])), "-1", "-1"]
        lines.append(" ".join(f) + "\n")
    with open(os.path.join(case, "case.swf"), "w") as fh:
        fh.writelines(lines)
    return "weird", procs, []


def limit_value(r, scale):
    """N or SOFT,HARD (soft <= hard), scale the order of the value."""
    hard = max(1, int(scale * r.choice([0.05, 0.2, 0.5, 1, 2])))
    if r.random() < 0.35:
        soft = max(1, int(hard * r.uniform(0.2, 1.0)))
        return "%d,%d" % (soft, hard)
    return str(hard)


def limits_lines(r, procs, users):
    """Throttling limits on credentials: DEFAULT and a few named ones."""
    lines = []
    scales = {"MAXJOB": 8, "MAXIJOB": 4, "MAXPROC": max(2, procs // 2),
              "MAXPS": max(2, procs // 2) * 36000, "MAXIPROC": max(2, procs // 2)}
    for cred in ["USERCFG", "GROUPCFG", "CLASSCFG"]:
        if r.random() < 0.5:
            continue
        names = ["DEFAULT"] + ([str(u) for u in r.sample(users, min(2, len(users)))]
                               if r.random() < 0.3 else [])
        for name in names:
            kinds = r.sample(sorted(scales), r.randint(1, 3))
            words = ["%s=%s" % (k, limit_value(r, scales[k])) for k in kinds]
            lines.append("%s[%s] %s" % (cred, name, " ".join(words)))
    if r.random() < 0.1:
        lines.append("SYSCFG MAXJOB=%s" % limit_value(r, 30))
    return lines


def fairshare_lines(r, users):
    pol = r.choice(["DEDICATEDPS", "DEDICATEDPES", "UTILIZEDPS", "DEDICATEDPS%"])
    lines = ["FSPOLICY " + pol,
             "FSINTERVAL " + r.choice(["1:00:00", "6:00:00", "12:00:00", "24:00:00"]),
             "FSDEPTH %d" % r.randint(1, 8),
             "FSDECAY %s" % r.choice(["1.0", "0.8", "0.5"]),
             "FSWEIGHT %d" % r.choice([1, 10, 100])]
    for w in ["FSUSERWEIGHT", "FSGROUPWEIGHT", "FSCLASSWEIGHT"]:
        if r.random() < 0.6:
            lines.append("%s %d" % (w, r.choice([1, 2, 10])))
    if r.random() < 0.2:
        lines.append("FSCAP %d" % r.choice([100, 1000]))
    for cred in ["USERCFG", "GROUPCFG", "CLASSCFG"]:
        if r.random() < 0.5:
            continue
        names = ["DEFAULT"] + ([str(u) for u in r.sample(users, min(2, len(users)))]
                               if r.random() < 0.4 else [])
        for name in names:
            mode = r.choice(["", "", "+", "-", "%", "^"])
            if mode == "^":
                val = str(r.choice([3600000, 36000000]))
            else:
                val = str(r.choice([5, 10, 20, 50]))
            lines.append("%s[%s] FSTARGET=%s%s" % (cred, name, val, mode))
    return lines


def priority_lines(r, users):
    lines = []
    if r.random() < 0.5:
        lines.append("XFACTORWEIGHT %d" % r.choice([1, 10, 100]))
    if r.random() < 0.5:
        lines.append("QUEUETIMEWEIGHT %d" % r.choice([0, 1, 2, 10]))
    if r.random() < 0.2:
        lines.append("XFACTORCAP %d" % r.choice([10, 100]))
    if r.random() < 0.25:
        lines.append("CREDWEIGHT 1")
        lines.append("USERWEIGHT %d" % r.choice([1, 10]))
        for u in r.sample(users, min(3, len(users))):
            lines.append("USERCFG[%s] PRIORITY=%d" % (u, r.choice([-100, 10, 1000])))
    if r.random() < 0.15:
        lines.append("PROCWEIGHT %d" % r.choice([-1, 1, 10]))
    if r.random() < 0.15:
        # the bypass count (how often backfill passed a job) as priority
        lines.append("BYPASSWEIGHT %d" % r.choice([1, 10, 1000]))
    if r.random() < 0.1:
        lines.append("RESERVATIONTHRESHOLDTYPE " + r.choice(["BYPASS", "QUEUETIME", "XFACTOR"]))
        lines.append("RESERVATIONTHRESHOLDVALUE %d" % r.choice([1, 2, 5, 3600]))
    return lines


def config_lines(r, procs, users):
    lines = []
    if r.random() < 0.9:
        lines.append("BACKFILLPOLICY " + r.choice(["FIRSTFIT", "BESTFIT", "GREEDY", "NONE"]))
    if r.random() < 0.8:
        lines.append("RESERVATIONDEPTH[0] %d" % r.choice([0, 1, 1, 2, 5, 1000000]))
    if r.random() < 0.25:
        lines.append("NODEALLOCATIONPOLICY " + r.choice(
            ["FIRSTAVAILABLE", "LASTAVAILABLE", "MINRESOURCE", "CPULOAD", "PRIORITY", "MAXBALANCE"]))
    if r.random() < 0.15:
        lines.append("NODEACCESSPOLICY " + r.choice(["SHARED", "SINGLEJOB", "SINGLEUSER", "SINGLETASK"]))
    if r.random() < 0.15:
        lines.append("RESERVATIONPOLICY " + r.choice(["CURRENTHIGHEST", "HIGHEST", "NEVER"]))
    if r.random() < 0.1:
        lines.append("BACKFILLDEPTH %d" % r.choice([1, 5, 50]))
    if r.random() < 0.1:
        lines.append("BFPRIORITYPOLICY " + r.choice(["RANDOM", "DURATION", "HWDURATION"]))
    if r.random() < 0.1:
        lines.append("JOBMAXOVERRUN %s" % r.choice(["-1", "60", "0"]))
    has_limits = r.random() < 0.55
    if has_limits:
        lines += limits_lines(r, procs, users)
    if r.random() < 0.45:
        lines += fairshare_lines(r, users)
    lines += priority_lines(r, users)
    r.shuffle(lines)
    return lines


def focus_lines(r, focus, procs, users):
    """--focus: the parts of the configuration where the replay's wake-ups
    and bypass counts were last in question (fid31n), drawn more often and
    in the shapes that exercise them, with throttling limits in most cases
    (they move queue-time starts: JOBPRIOACCRUALPOLICY)."""
    lines = []
    if r.random() < 0.8:
        lines += limits_lines(r, procs, users) or ["USERCFG[DEFAULT] MAXIJOB=%d" % r.choice([1, 2, 4])]
    if r.random() < 0.3:
        lines.append("JOBPRIOACCRUALPOLICY " + r.choice(["QUEUEPOLICY", "FULLPOLICY", "ALWAYS"]))
    lines.append("BACKFILLPOLICY " + r.choice(["FIRSTFIT", "FIRSTFIT", "NONE", "BESTFIT"]))
    if r.random() < 0.6:
        lines.append("RESERVATIONDEPTH[0] %d" % r.choice([0, 1, 2, 5]))
    if focus == "caps":
        # priorities of queue time alone that tie at a cap (QUEUETIMECAP,
        # SERVICECAP) or at the floor, or with other factors capped
        lines.append("QUEUETIMEWEIGHT %d" % r.choice([1, 10, 100, 1000]))
        cap = r.choice(["QUEUETIMECAP %d" % r.choice([1, 5, 10, 60, 600]),
                        "SERVICECAP %d" % r.choice([10, 100, 1000, 10000])])
        lines.append(cap)
        if r.random() < 0.3:
            lines.append("SERVICEWEIGHT %d" % r.choice([1, 2]))
        if r.random() < 0.3:
            lines.append("XFACTORWEIGHT %d" % r.choice([1, 10]))
            lines.append("XFACTORCAP %d" % r.choice([2, 10]))
    elif focus == "fswin":
        # short fairshare windows, caps of a share of the whole or absolute,
        # decay: window closes between events, on empty ledgers too
        lines += ["FSPOLICY " + r.choice(["DEDICATEDPS", "DEDICATEDPES", "UTILIZEDPS"]),
                  "FSINTERVAL " + r.choice(["0:05:00", "0:10:00", "0:30:00", "1:00:00"]),
                  "FSDEPTH %d" % r.randint(1, 4),
                  "FSDECAY %s" % r.choice(["1.0", "0.8", "0.5", "0.1"])]
        if r.random() < 0.3:
            lines.append("FSWEIGHT %d" % r.choice([1, 10]))
            lines.append("FSUSERWEIGHT 1")
        for cred in r.sample(["USERCFG", "GROUPCFG", "CLASSCFG"], r.randint(1, 2)):
            mode = r.choice(["%", "%", "^"])
            val = r.choice([5, 10, 30, 50]) if mode == "%" else r.choice([36000, 360000, 3600000])
            name = r.choice(["DEFAULT", "DEFAULT", str(r.choice(users))])
            lines.append("%s[%s] FSTARGET=%s%s" % (cred, name, val, mode))
        if r.random() < 0.2:
            lines.append("JOBMAXOVERRUN %s" % r.choice(["60", "0"]))
    elif focus == "capidle":
        # a fairshare cap (of a share of the whole, or absolute) with idle
        # limits and MAXJOB, soft,hard pairs among them, queue time accruing
        # by policy: a pass's starts move a cap, the walks after them restart
        # queue times and the queue's order is the next sort's no more (fid31q)
        lines.append("JOBPRIOACCRUALPOLICY " + r.choice(["FULLPOLICY", "FULLPOLICY", "QUEUEPOLICY"]))
        lines += ["FSPOLICY " + r.choice(["DEDICATEDPS", "DEDICATEDPES"]),
                  "FSINTERVAL " + r.choice(["0:05:00", "0:10:00", "1:00:00"]),
                  "FSDEPTH %d" % r.randint(1, 3),
                  "FSDECAY %s" % r.choice(["1.0", "0.5", "0.1"])]
        cred = r.choice(["USERCFG", "USERCFG", "GROUPCFG"])
        words = ["FSTARGET=" + (r.choice(["30%", "50%", "50%", "70%"]) if r.random() < 0.8
                                else "%d^" % r.choice([360000, 3600000]))]
        words.append("MAXIJOB=%s" % limit_value(r, 4) if r.random() < 0.7
                     else "MAXIPROC=%s" % limit_value(r, max(2, procs // 2)))
        if r.random() < 0.4:
            words.append("MAXJOB=%s" % limit_value(r, 4))
        lines.append("%s[DEFAULT] %s" % (cred, " ".join(words)))
    else:
        # bypass counts: as priority, as a reservation threshold, with
        # BACKFILLDEPTH cutting passes short
        if r.random() < 0.7:
            lines.append("BYPASSWEIGHT %d" % r.choice([1, 10, 1000]))
            if r.random() < 0.3:
                lines.append("BYPASSCAP %d" % r.choice([1, 3, 10]))
        if r.random() < 0.5:
            lines.append("RESERVATIONTHRESHOLDTYPE BYPASS")
            lines.append("RESERVATIONTHRESHOLDVALUE %d" % r.choice([0, 1, 2, 5]))
            lines.append("RESERVATIONPOLICY " + r.choice(["CURRENTHIGHEST", "HIGHEST"]))
        if r.random() < 0.5:
            lines.append("BACKFILLDEPTH %d" % r.choice([1, 2, 5, 50]))
    r.shuffle(lines)
    return lines


def commands(r, case):
    """Timed administrator commands at random instants of the trace, on its
    jobs: some change the queue (holds, system priorities, cancellations,
    forced starts), others only look (and show priorities, fairshare,
    backfill windows, start estimates), which a lazily ordered queue must
    answer as a fully sorted one would."""
    ids, times = [], []
    with open(os.path.join(case, "case.swf")) as f:
        for line in f:
            if not line.startswith(";"):
                w = line.split()
                ids.append(w[0])
                times.append(float(w[1]))
    lo, hi = int(min(times)), int(max(times))
    lines = []
    for _ in range(r.randint(5, 40)):
        t = r.randint(lo, hi + 3600)
        # a job submitted by then, mostly one of the last few (still queued)
        known = [k for k, x in enumerate(times) if x <= t] or [0]
        j = ids[known[-1 - min(len(known) - 1, int(r.expovariate(0.1)))]]
        verb = r.choice(["sethold %s", "releasehold %s", "setspri %d %%s" % r.randint(1, 1000),
                         "canceljob %s", "runjob %s", "showq", "showq -i", "showq -b",
                         "checkjob %s", "diagnose -p", "diagnose -f", "showbf", "showstart %s",
                         "diagnose -q", "showstats -u"])
        lines.append((t, verb.replace("%s", j) if "%s" in verb else verb))
    lines.sort(key=lambda x: x[0])
    with open(os.path.join(case, "case.cmds"), "w") as f:
        f.write("".join("%d %s\n" % l for l in lines))


def trace_users(case):
    users = set()
    with open(os.path.join(case, "case.swf")) as f:
        for line in f:
            if not line.startswith(";"):
                w = line.split()
                if len(w) > 11:
                    users.add(w[11])
    return sorted(users) or ["1"]


def make_case(seed, data, propgen, kinds, case):
    r = random.Random(seed)
    kind = r.choice(kinds)
    if kind == "prop":
        subprocess.run([propgen, str(seed), case], check=True)
        with open(os.path.join(case, "args")) as f:
            args = f.read().split()
        return "prop", args
    if kind == "slice":
        name, procs, args = slice_case(r, data, case)
    elif kind == "weird":
        name, procs, args = weird_case(r, case)
    else:
        name, procs, args = synth_case(r, case)
    if FOCUS:
        lines = focus_lines(r, FOCUS, procs, trace_users(case))
    else:
        lines = config_lines(r, procs, trace_users(case))
    with open(os.path.join(case, "case.cfg"), "w") as f:
        f.write("".join(l + "\n" for l in lines))
    if kind != "weird" and r.random() < COMMANDS:
        commands(r, case)
    else:
        open(os.path.join(case, "case.cmds"), "w").close()
    if r.random() < 0.1:
        # a comparison: a run a value, outputs with a run column or a file a run
        param, values = r.choice([("BACKFILLPOLICY", "FIRSTFIT,BESTFIT,GREEDY"),
                                  ("RESERVATIONDEPTH[0]", "1,4"), ("XFACTORWEIGHT", "0,10"),
                                  ("NODEALLOCATIONPOLICY", "FIRSTAVAILABLE,LASTAVAILABLE")])
        args = args + ["--compare", "%s=%s" % (param, values), "--jobs", str(r.randint(1, 2))]
    if r.random() < 0.15:
        args = args + ["--classes"]
    with open(os.path.join(case, "args"), "w") as f:
        f.write(" ".join(args) + "\n")
    return name, args


def has_limits(case):
    with open(os.path.join(case, "case.cfg")) as f:
        return re.search(r"MAX[A-Z]*=", f.read()) is not None


def strip_report(path):
    """The JSON report without what changes from run to run (timings, memory)."""
    try:
        with open(path) as f:
            rep = json.load(f)
    except (OSError, ValueError):
        return
    def clean(o):
        if isinstance(o, dict):
            return {k: clean(v) for k, v in o.items()
                    if not re.search(r"seconds|rss|memory|wall|cpu", k)}
        if isinstance(o, list):
            return [clean(v) for v in o]
        return o
    with open(path, "w") as f:
        json.dump(clean(rep), f, sort_keys=True, indent=0)


def replay(binary, case, args, out, extra, timeout):
    os.makedirs(out, exist_ok=True)
    cmd = [binary, "simulate"] + args + extra + [
        "--config", os.path.join(case, "case.cfg"), "--format", "json",
        "--jobs-out", os.path.join(out, "jobs.csv"),
        "--swf-out", os.path.join(out, "sched.swf"),
        "--batsim-out", os.path.join(out, "batsim.csv"),
        "--series", os.path.join(out, "series.csv")]
    if os.path.getsize(os.path.join(case, "case.cmds")) > 0:
        cmd += ["--commands", os.path.join(case, "case.cmds")]
    cmd.append(os.path.join(case, "case.swf"))
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout"
    with open(os.path.join(out, "report.json"), "wb") as f:
        f.write(p.stdout)
    with open(os.path.join(out, "commands.txt"), "wb") as f:
        f.write(p.stderr)
    strip_report(os.path.join(out, "report.json"))
    return p.returncode


def out_files(a, b):
    """The outputs to compare: the usual ones and whatever else either run
    wrote (a comparison's files a run)."""
    return sorted(set(OUTPUTS) | set(os.listdir(a)) | set(os.listdir(b)))


# What the commands answer that changed on purpose since issue 31's speed
# work began (4ced2f5), none of it a schedule: checkjob's completion code of
# a job that ended (job arrays, 2b5e2b6), showconfig's MAXJOBARRAYSIZE
# (7b98448). Left out of the commands' answers before comparing binaries.
KNOWN = [(re.compile(rb"  Completion Code: -?\d+"), b""),
         (re.compile(rb"(?m)^MAXJOBARRAYSIZE .*\n"), b"")]


def same(a, b, f, known=False):
    pa, pb = os.path.join(a, f), os.path.join(b, f)
    if not os.path.exists(pa) and not os.path.exists(pb):
        return True
    if not os.path.exists(pa) or not os.path.exists(pb):
        return False
    with open(pa, "rb") as x, open(pb, "rb") as y:
        ta, tb = x.read(), y.read()
    if known and f == "commands.txt":
        for pat, rep in KNOWN:
            ta, tb = pat.sub(rep, ta), pat.sub(rep, tb)
    return ta == tb


def poll_period(jobs_csv):
    """The forced iterations' period for --iterate-every: a multiple of
    RMPOLLINTERVAL (60 s; the cases never set it) giving at most some 20,000
    over the replay's span, as tests/integration/property.sh picks it."""
    lo = hi = None
    with open(jobs_csv) as f:
        next(f, None)
        for row in f:
            w = row.split(",")
            if len(w) < 4 or not w[1]:
                continue
            sub = int(w[1])
            lo = sub if lo is None else min(lo, sub)
            for v in w[2:4]:
                if v and (hi is None or int(v) > hi):
                    hi = int(v)
    if lo is None:
        return 60
    hi = max(hi if hi is not None else lo, lo)
    return 60 * ((hi - lo) // (60 * 20000) + 1)


def never_started_masked(path):
    """The jobs CSV with the reason of jobs that never started left out (a
    replay forced to go on longer may end on another plan)."""
    with open(path) as f:
        return [re.sub(r",never_started,.*,,$", ",never_started,,,", l.rstrip("\n")) for l in f]


def run_case(seed, opts, work):
    case = os.path.join(work, "case")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(case)
    name, args = make_case(seed, opts.data, opts.propgen, opts.kinds, case)
    diffs = []
    status = {}
    outs = {}
    for i, b in enumerate(opts.bin):
        outs[i] = os.path.join(work, "out%d" % i)
        status[i] = replay(b, case, args, outs[i], [], opts.timeout)
    if "timeout" in status.values():
        return name, ["skipped: a replay took over %d s" % opts.timeout], case
    if status[0] != 0:
        return name, ["skipped: reference exit %s" % status[0]], case
    for i in range(1, len(opts.bin)):
        if status[i] != status[0]:
            diffs.append("bin%d exit %s, bin0 exit %s" % (i, status[i], status[0]))
            continue
        for f in out_files(outs[0], outs[i]):
            if f in ("report.json", "commands.txt") and opts.no_report:
                continue
            if not same(outs[0], outs[i], f, known=True):
                diffs.append("bin%d %s" % (i, f))
    # the in-binary equivalences: on the last binary, or --self's
    last = len(opts.bin) - 1
    if opts.self:
        last += 1
        outs[last] = os.path.join(work, "outself")
        status[last] = replay(opts.self, case, args, outs[last], [], opts.timeout)
    selfbin = opts.self or opts.bin[last]
    if opts.walks and has_limits(case):
        for i, b in [(last, selfbin)]:
            full = os.path.join(work, "full%d" % i)
            st = replay(b, case, args, full, ["--full-walk"], opts.timeout)
            if st == "timeout":
                continue
            if st != status[i]:
                diffs.append("bin%d --full-walk exit %s, default %s" % (i, st, status[i]))
                continue
            for f in out_files(outs[i], full):
                if f != "report.json" and not same(outs[i], full, f):
                    diffs.append("bin%d --full-walk %s" % (i, f))
    if opts.wake and "--compare" not in args:
        for i, b in [(last, selfbin)]:
            every = os.path.join(work, "every%d" % i)
            n = poll_period(os.path.join(outs[i], "jobs.csv"))
            st = replay(b, case, args, every, ["--iterate-every", str(n)], opts.timeout)
            if st == "timeout":
                continue
            if st != status[i]:
                diffs.append("bin%d --iterate-every %d exit %s, default %s" % (i, n, st, status[i]))
            elif (never_started_masked(os.path.join(outs[i], "jobs.csv"))
                  != never_started_masked(os.path.join(every, "jobs.csv"))):
                diffs.append("bin%d --iterate-every %d jobs.csv" % (i, n))
    if opts.quick_twin and "--compare" not in args and quick_may(case):
        # a quick scan's bypass notes against the full path's: BACKFILLDEPTH
        # past any queue turns the quick scan off and cuts nothing short
        twin = os.path.join(work, "twin")
        os.makedirs(twin)
        for f in ("case.swf", "case.cmds"):
            shutil.copy(os.path.join(case, f), twin)
        with open(os.path.join(case, "case.cfg")) as f, open(os.path.join(twin, "case.cfg"), "w") as g:
            g.write(f.read() + "BACKFILLDEPTH 100000000\n")
        quick = os.path.join(work, "quick")
        st = replay(selfbin, twin, args, quick, [], opts.timeout)
        if st != "timeout":
            with open(os.path.join(quick, "commands.txt"), "rb") as f:
                text = f.read().replace(b"/twin/case.cmds", b"/case/case.cmds")  # in errors
            with open(os.path.join(quick, "commands.txt"), "wb") as f:
                f.write(text)
            for f in ("jobs.csv", "commands.txt"):
                if not same(outs[last], quick, f):
                    diffs.append("bin%d BACKFILLDEPTH 100000000 %s" % (last, f))
    return name, diffs, case


def quick_may(case):
    """Whether the case may take iter.c's quick scan (its BACKFILLDEPTH twin
    then checks the quick scan's bypass counts): FIRSTFIT, no BACKFILLDEPTH."""
    with open(os.path.join(case, "case.cfg")) as f:
        text = f.read()
    return ("BACKFILLDEPTH" not in text and
            re.search(r"BACKFILLPOLICY +(BESTFIT|GREEDY|NONE|PREEMPT)", text) is None)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", action="append", required=True,
                    help="a moku binary (repeat; the first is the reference)")
    ap.add_argument("--seed", type=int, default=1, help="first seed")
    ap.add_argument("-n", type=int, default=100, help="cases")
    ap.add_argument("--kinds", default="slice,synth,prop")
    ap.add_argument("--data", default="data")
    ap.add_argument("--propgen", default="build/tests/propgen")
    ap.add_argument("--walks", action="store_true", help="compare --full-walk too")
    ap.add_argument("--self", help="the binary whose --full-walk and --iterate-every are checked "
                    "(default: the last of --bin)")
    ap.add_argument("--commands", type=float, default=0.0,
                    help="the share of slice and synth cases given timed commands (their answers compared)")
    ap.add_argument("--wake", action="store_true",
                    help="compare --iterate-every (a poll at every RMPOLLINTERVAL) too")
    ap.add_argument("--no-report", action="store_true", help="do not compare the JSON report")
    ap.add_argument("--max-jobs", type=int, default=5000,
                    help="at most this many jobs a case (at least 200)")
    ap.add_argument("--timeout", type=int, default=20, help="seconds a replay may take (else the case is skipped)")
    ap.add_argument("--keep", default="build/diffreplay")
    ap.add_argument("--focus", choices=["caps", "fswin", "bypass", "capidle"],
                    help="slice and synth cases' configurations drawn from one part only (focus_lines)")
    ap.add_argument("--quick-twin", action="store_true",
                    help="compare the jobs CSV and the commands' answers with BACKFILLDEPTH past any "
                    "queue (no quick scan: its bypass notes against the full path's) too")
    opts = ap.parse_args()
    opts.kinds = opts.kinds.split(",")
    global MAX_JOBS, COMMANDS, FOCUS
    MAX_JOBS = max(200, opts.max_jobs)
    COMMANDS = opts.commands
    FOCUS = opts.focus
    work = tempfile.mkdtemp(prefix="diffreplay.")
    bad = skipped = 0
    try:
        for seed in range(opts.seed, opts.seed + opts.n):
            t0 = time.time()
            name, diffs, case = run_case(seed, opts, work)
            real = [d for d in diffs if not d.startswith("skipped")]
            skipped += len(diffs) > len(real)
            print("seed %d %s %s (%.1f s): %s" % (seed, name, " ".join(open(os.path.join(case, "args")).read().split()),
                                                   time.time() - t0, "; ".join(diffs) if diffs else "same"),
                  flush=True)
            if real:
                bad += 1
                dest = os.path.join(opts.keep, "seed-%d" % seed)
                shutil.rmtree(dest, ignore_errors=True)
                shutil.copytree(work, dest)
                with open(os.path.join(dest, "diffs"), "w") as f:
                    f.write("\n".join(real) + "\n")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("cases %d, differing %d, skipped %d" % (opts.n, bad, skipped))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
