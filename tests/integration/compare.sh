#!/bin/sh
# moku simulate with several configurations: the side-by-side report (text
# and JSON), --set and --compare, per-class breakdowns (--classes), the
# --jobs-out run column and the --plot SVG chart. The trace and the two
# policies live in tests/data/compare/.
. tests/integration/lib.sh
d=tests/data/compare
trace=$d/small.swf
easy=$d/easy.cfg
fcfs=$d/fcfs.cfg
# Whether python3 is here to check JSON and XML properly (a fresh Debian may lack it).
if command -v python3 >/dev/null 2>&1; then py=python3; else py=; skip "python3 absent: JSON, XML and HTML not parsed"; fi

# Two configurations side by side.
run simulate --config "$easy" --config "$fcfs" "$trace"
check "two configs: exit 0" [ "$rc" -eq 0 ]
check "two configs: the header counts the runs" has_out "^moku simulate: $trace, 2 runs$"
check "two configs: a column per file" grep -Eq '^  configuration +easy\.cfg +fcfs\.cfg$' "$TMP/out"
check "two configs: each run's policy" grep -Eq '^  backfill policy +FIRSTFIT +NONE$' "$TMP/out"
check "two configs: FIRSTFIT backfills, NONE does not" grep -Eq '^  jobs backfilled +2 +0$' "$TMP/out"
check "two configs: the same jobs in both" grep -Eq '^  jobs simulated +5 +5$' "$TMP/out"
check "two configs: waits differ" grep -Eq '^  average wait \(s\) +32\.0 +60\.0$' "$TMP/out"
for row in 'utilization (%)' 'maximum wait (s)' 'avg bounded slowdown' 'avg expansion factor' \
    'iterations' 'wall time (s)'; do
    check "two configs: a row '$row'" grep -q "^  $row " "$TMP/out"
done
check "two configs: the classes by size follow" grep -Eq '^  by job size \(processors\)$' "$TMP/out"
check "two configs: the classes by runtime follow" grep -Eq '^  by runtime$' "$TMP/out"
check "two configs: a class row per run" grep -Eq '^    1 +jobs +2 +2$' "$TMP/out"
check "two configs: no line ends with blanks" sh -c "! grep -q ' \$' $TMP/out"

# One configuration: the report as before, classes only when asked.
run simulate --config "$easy" "$trace"
check "one config: the one-run report" sh -c "[ $rc -eq 0 ] && grep -q '^  policy               BACKFILLPOLICY FIRSTFIT' $TMP/out"
check "one config: no classes unless asked" sh -c "! grep -q 'by job size' $TMP/out"
cp "$TMP/out" "$TMP/plain.txt"
run simulate --config "$easy" --classes "$trace"
check "--classes: the classes follow the summary" sh -c "grep -q '^  by job size (processors) *jobs *avg wait (s) *avg bsld\$' $TMP/out"
check "--classes: the summary is unchanged" sh -c "head -n \$(wc -l <$TMP/plain.txt) $TMP/out | grep -v 'wall time' >$TMP/a; grep -v 'wall time' $TMP/plain.txt | diff - $TMP/a >/dev/null"
check "--classes: runtime classes" grep -Eq '^    >=1d +1 +0\.0 +1\.000$' "$TMP/out"
run simulate --config "$easy" --format json "$trace"
check "one config json: no classes unless asked" sh -c "[ $rc -eq 0 ] && ! grep -q classes $TMP/out && ! grep -q runs $TMP/out"

# --classes in JSON: the classes of each kind add up to the jobs simulated.
run simulate --config "$easy" --classes --format json "$trace"
# (the per-user and per-class groups come before "classes": left out)
sed 's/"by_user":.*"classes"://' "$TMP/out" | grep -o '"jobs":[0-9]*' | cut -d: -f2 >"$TMP/counts"
check "--classes json: 1 total + 6 size + 5 runtime counts" [ "$(wc -l <"$TMP/counts")" -eq 12 ]
check "--classes json: size classes sum to the job count" \
    awk 'NR == 1 { t = $1 } NR >= 2 && NR <= 7 { s += $1 } END { exit !(t == 5 && s == t) }' "$TMP/counts"
check "--classes json: runtime classes sum to the job count" \
    awk 'NR == 1 { t = $1 } NR >= 8 { s += $1 } END { exit !(s == t) }' "$TMP/counts"
check "--classes json: the open-ended class" has_out '{"class":">=1d","min":86400,"max":null,"jobs":1,'

# JSON of several runs.
run simulate --config "$easy" --config "$fcfs" --set RESERVATIONDEPTH=2 --format json "$trace"
check "runs json: exit 0, one line" sh -c "[ $rc -eq 0 ] && [ \$(wc -l <$TMP/out) -eq 1 ]"
check "runs json: the first run names its file and overrides" \
    has_out "^{\"runs\":\[{\"config\":\"$easy\",\"overrides\":\[\"RESERVATIONDEPTH=2\"\],\"jobs\":5,"
check "runs json: the second run" has_out "},{\"config\":\"$fcfs\",\"overrides\":\[\"RESERVATIONDEPTH=2\"\],\"jobs\":5,"
check "runs json: classes in every run" [ "$(grep -o '"classes":' "$TMP/out" | wc -l)" -eq 2 ]
if [ -n "$py" ]; then
    check "runs json: parses, keys and class sums (python3)" $py -c '
import json, sys
d = json.load(open(sys.argv[1]))
keys = ["config", "overrides", "jobs", "skipped", "rejected", "never_started", "makespan", "utilization",
        "avg_wait", "max_wait", "avg_bsld", "avg_xfactor", "backfilled", "iterations",
        "wall_seconds", "read_seconds", "unfinished", "excluded", "bsld_tau", "wait_fairness",
        "percentiles", "by_user", "by_class", "classes", "pareto"]
assert list(d) == ["runs"] and len(d["runs"]) == 2
for r in d["runs"]:
    assert list(r) == keys, list(r)
    for kind in ("size", "runtime"):
        assert sum(c["jobs"] for c in r["classes"][kind]) == r["jobs"]
assert [r["backfilled"] for r in d["runs"]] == [2, 0]
for r in d["runs"]:
    for key in ("by_user", "by_class"):
        assert sum(g["jobs"] for g in r[key]) == r["jobs"]
    p = r["percentiles"]
    assert list(p) == ["wait", "bsld", "turnaround"]
    for v in p.values():
        assert list(v) == ["p50", "p95", "p99"] and v["p50"] <= v["p95"] <= v["p99"]
    assert p["wait"]["p99"] <= r["max_wait"]
' "$TMP/out"
fi

# --set: applies to every run, after its file, so it wins.
run simulate --config "$easy" --set BACKFILLPOLICY=NONE --format json "$trace"
check "--set overrides the file" sh -c "[ $rc -eq 0 ] && grep -q '\"backfilled\":0,' $TMP/out"
run simulate --set 'BACKFILLPOLICY NONE' "$trace"
check "--set without --config: the defaults plus the line" has_out 'BACKFILLPOLICY NONE, RESERVATIONDEPTH 1'
run simulate --config "$easy" --config "$fcfs" --set RESERVATIONDEPTH=3 "$trace"
check "--set with two configs: said once" has_out '^  every run: --set RESERVATIONDEPTH=3$'
check "--set with two configs: in every run" grep -Eq '^  reservation depth +3 +3$' "$TMP/out"

# --compare: a run per value.
run simulate --compare BACKFILLPOLICY=FIRSTFIT,NONE "$trace"
check "--compare: two runs" sh -c "[ $rc -eq 0 ] && grep -q ', 2 runs\$' $TMP/out"
check "--compare: a row for the parameter" grep -Eq '^  BACKFILLPOLICY +FIRSTFIT +NONE$' "$TMP/out"
check "--compare: the defaults" grep -Eq '^  configuration +defaults +defaults$' "$TMP/out"
run simulate --config "$easy" --config "$fcfs" --compare RESERVATIONDEPTH=1,4 --format json "$trace"
check "--compare x configs: four runs" [ "$(grep -o '"config":' "$TMP/out" | wc -l)" -eq 4 ]
check "--compare x configs: file by file, value by value" \
    has_out "\"config\":\"$fcfs\",\"overrides\":\[\"RESERVATIONDEPTH=4\"\]"

# Bad overrides are usage errors.
run simulate --set FOOBAR=1 "$trace"
check "--set unknown parameter: exit 2, named" sh -c "[ $rc -eq 2 ] && grep -q \"moku: --set 'FOOBAR=1': unknown parameter 'FOOBAR'\" $TMP/err"
run simulate --set RESERVATIONDEPTH=many "$trace"
check "--set bad value: exit 2, the parameter named" sh -c "[ $rc -eq 2 ] && grep -q -- \"--set 'RESERVATIONDEPTH=many'\" $TMP/err"
run simulate --set '' "$trace"
check "--set empty: exit 2" sh -c "[ $rc -eq 2 ] && grep -q -- '--set needs' $TMP/err"
run simulate --compare BACKFILLPOLICY "$trace"
check "--compare without values: exit 2" [ "$rc" -eq 2 ]
run simulate --compare BACKFILLPOLICY=NONE,,FIRSTFIT "$trace"
check "--compare empty value: exit 2" sh -c "[ $rc -eq 2 ] && grep -q 'empty value' $TMP/err"
run simulate --compare BACKFILLPOLICY=NONE,SOMETIMES "$trace"
check "--compare bad value: exit 2, named" sh -c "[ $rc -eq 2 ] && grep -q -- \"--compare 'BACKFILLPOLICY=SOMETIMES'\" $TMP/err"
run simulate --config "$easy" --config "$fcfs" --show showq "$trace"
check "--show with two runs: exit 2" sh -c "[ $rc -eq 2 ] && grep -q 'one run' $TMP/err"
printf 'RESERVATIONDEPTH lots\n' >"$TMP/bad.cfg"
run simulate --config "$easy" --config "$TMP/bad.cfg" "$trace"
check "a bad second config: exit 1, file:line, before any replay" \
    sh -c "[ $rc -eq 1 ] && grep -q 'bad.cfg:1:' $TMP/err && [ ! -s $TMP/out ]"

# --jobs-out with several runs: one file, a leading run column.
run simulate --config "$easy" --config "$fcfs" --jobs-out "$TMP/jobs.csv" "$trace"
check "jobs-out runs: header with run" sh -c "head -n 1 $TMP/jobs.csv | grep -qx 'run,job_id,submit,start,end,wait,procs,walltime,runtime,backfilled,preempted,user,group,account,class,qos,state,reason,nodes,segments'"
cut -d, -f1-11 "$TMP/jobs.csv" >"$TMP/jobs11.csv"
check "jobs-out runs: six rows per run (the rejected job too)" sh -c "[ \$(grep -c '^1,' $TMP/jobs.csv) -eq 6 ] && [ \$(grep -c '^2,' $TMP/jobs.csv) -eq 6 ]"
check "jobs-out runs: job 3 backfills in run 1" grep -qx '1,3,20,20,50,0,1,60,30,1,0' "$TMP/jobs11.csv"
check "jobs-out runs: job 3 waits in run 2" grep -qx '2,3,20,100,130,80,1,60,30,0,0' "$TMP/jobs11.csv"
run simulate --config "$easy" --jobs-out "$TMP/one.csv" "$trace"
check "jobs-out one run: no run column" sh -c "head -n 1 $TMP/one.csv | grep -q '^job_id,'"

# --commands in a comparison: each run's log says which run.
printf '25 showq -b\n' >"$TMP/cmds"
run simulate --config "$easy" --config "$fcfs" --commands "$TMP/cmds" "$trace"
check "commands in runs: logged per run" sh -c "[ $rc -eq 0 ] && grep -q '^moku: run 1: \[25\] showq -b' $TMP/err && grep -q '^moku: run 2: \[25\] showq -b' $TMP/err"

# --plot: an SVG chart, a line per run.
run simulate --config "$easy" --config "$fcfs" --plot "$TMP/chart.svg" "$trace"
svg=$TMP/chart.svg
check "--plot: exit 0, a non-empty file" sh -c "[ $rc -eq 0 ] && [ -s $svg ]"
check "--plot: the report still printed" has_out ', 2 runs$'
check "--plot: an XML declaration first" sh -c "head -n 1 $svg | grep -q '^<?xml version=\"1.0\"'"
check "--plot: the svg root element" grep -q '<svg xmlns="http://www.w3.org/2000/svg"' "$svg"
check "--plot: closed" sh -c "tail -n 1 $svg | grep -qx '</svg>'"
check "--plot: utilization and queue lines per run, each with its rolling mean" [ "$(grep -c '<polyline' "$svg")" -eq 8 ]
check "--plot: the second run dashed, in the chart and the legend" [ "$(grep -c 'stroke-dasharray="8 4"' "$svg")" -eq 3 ]
check "--plot: axes labelled" sh -c "grep -q 'utilization (%)' $svg && grep -q 'queue length (idle jobs)' $svg && grep -q 'time (days since the first submission)' $svg"
check "--plot: the legend names the configurations" sh -c "grep -q '>$easy</text>' $svg && grep -q '>$fcfs</text>' $svg"
if [ -n "$py" ]; then
    check "--plot: well-formed XML (python3)" $py -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' "$svg"
fi
run simulate --plot "$TMP/one.svg" --format json "$trace"
check "--plot one run: two lines and their means" sh -c "[ $rc -eq 0 ] && [ \$(grep -c '<polyline' $TMP/one.svg) -eq 4 ]"
run simulate --plot "$TMP/nodir/x.svg" "$trace"
check "--plot unwritable: exit 1, named" sh -c "[ $rc -eq 1 ] && grep -q 'nodir/x.svg' $TMP/err"

# Fairshare: the runs of a comparison all start from the same usage history
# (--fs-history) and none writes FS data files; --fs-out is for one run.
cat >"$TMP/fs.swf" <<'SWF'
; UnixStartTime: 1000000000
; MaxProcs: 2
1 0 0 500 2 -1 -1 2 600 -1 1 1 1 -1 1 -1 -1 -1
2 10 0 100 2 -1 -1 2 600 -1 1 1 1 -1 1 -1 -1 -1
3 20 0 100 2 -1 -1 2 600 -1 1 2 1 -1 1 -1 -1 -1
SWF
printf 'FSPOLICY DEDICATEDPS\nFSINTERVAL 1000\nFSWEIGHT 1\nFSUSERWEIGHT 10\nUSERCFG[DEFAULT] FSTARGET=50\n' >"$TMP/fs.cfg"
mkdir "$TMP/st"
run simulate --config "$TMP/fs.cfg" --compare FSDEPTH=2,4 --fs-history "$TMP/st" --jobs-out "$TMP/fs.csv" "$TMP/fs.swf"
check "fairshare runs: no FS data files written" sh -c "[ $rc -eq 0 ] && [ -z \"\$(ls $TMP/st)\" ]"
check "fairshare runs: user 2 goes first in both runs" sh -c "grep -q '^1,3,20,500,' $TMP/fs.csv && grep -q '^2,3,20,500,' $TMP/fs.csv"
check "fairshare runs: the report names the history of each" has_out "fairshare history .*0 windows from $TMP/st"
run simulate --config "$TMP/fs.cfg" --fs-out "$TMP/st" "$TMP/fs.swf"
check "fairshare, one run with --fs-out: FS data files written" sh -c "[ $rc -eq 0 ] && ls $TMP/st | grep -q '^FS\.'"

# A parameter and its index 0 are one setting (issue 13 §5): --set
# RESERVATIONDEPTH=4 overrides RESERVATIONDEPTH[0] 1 from the file, and the
# later of two lines wins whichever spelling it uses.
printf 'RESERVATIONDEPTH[0] 1\n' >"$TMP/rd0.cfg"
run simulate --config "$TMP/rd0.cfg" --set RESERVATIONDEPTH=4 "$trace"
check "--set RESERVATIONDEPTH=4 overrides RESERVATIONDEPTH[0] 1" has_out "RESERVATIONDEPTH 4,"
printf 'RESERVATIONDEPTH 4\nRESERVATIONDEPTH[0] 2\n' >"$TMP/rd1.cfg"
run simulate --config "$TMP/rd1.cfg" --until 0 --show showconfig "$trace"
check "RESERVATIONDEPTH 4 then RESERVATIONDEPTH[0] 2: one setting, 2" \
    sh -c "grep -q '^RESERVATIONDEPTH  *2\$' $TMP/out && ! grep -q 'RESERVATIONDEPTH\[0\]' $TMP/out"
done_checks
