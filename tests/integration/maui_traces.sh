#!/bin/sh
# Maui's own traces through the binary: a workload trace (VERSION 230) told
# from SWF by content, a resource trace giving the nodes, errors with
# file:line.
. tests/integration/lib.sh

cat >"$TMP/w.trace" <<'TRACE'
VERSION 230
# id nodes tasks user group wclimit state class submit dispatch start end net arch os mcmp mem dcmp disk feat sqt tasksalloc tpn qos flags account exe rm bypass psutil part dprocs dmem ddisk dswap startdate enddate hosts rmname reqhosts res nodeset app reserved
j1 1 2 alice staff 1000 Completed [batch:1] 100 100 100 600 [NONE] [NONE] [NONE] >= 0 >= 0 [NONE] 100 2 -1 hi [NONE] proj [NONE] [NONE] 0 0.0 [NONE] 1 100 0 0 0 0 [NONE] [NONE] [NONE] [NONE] [NONE] [NONE] [NONE]
j2 1 5 bob staff 2000 Completed [batch:1] 200 300 300 1300 [NONE] [NONE] [NONE] >= 0 >= 0 [NONE] 200 4 -1 [NONE] [NONE] proj [NONE] [NONE] 0 0.0 [NONE] 1 0 0 0 0 0 [NONE] [NONE] [NONE] [NONE] [NONE] [NONE] [NONE]
j3 1 1 carol other 500 NotRun [batch:1] 300 0 0 0 [NONE] [NONE] [NONE] >= 0 >= 0 [NONE] 300 1 -1 [NONE] [NONE] [NONE] [NONE] [NONE] 0 0.0 [NONE] 1 0 0 0 0 0 [NONE] [NONE] [NONE] [NONE] [NONE] [NONE] [NONE]
TRACE
cat >"$TMP/r.trace" <<'TRACE'
VERSION 230
COMPUTENODE AVAILABLE 0 n1 PBS1 0 4096 0 4 -1 -1 1 LINUX x86 [fast] [batch:4] [NONE] [NONE] [NONE] [NONE] [NONE]
COMPUTENODE AVAILABLE 0 n2 PBS1 0 4096 0 2 -1 -1 1 LINUX x86 [NONE] [batch:2] [NONE] [NONE] [NONE] [NONE] [NONE]
COMPUTENODE DRAINED 0 n3 PBS1 0 4096 0 8 -1 -1 1 LINUX x86 [NONE] [batch:8] [NONE] [NONE] [NONE] [NONE] [NONE]
TRACE

run simulate --resources "$TMP/r.trace" --format json --jobs-out "$TMP/jobs.csv" "$TMP/w.trace"
check "Maui workload trace with a resource trace runs" [ "$rc" -eq 0 ]
check "the NotRun job is skipped" has_out '"skipped":1'
check "two jobs simulated" has_out '"jobs":2'
check "job j2 waits for j1 on 6 up processors (the drained node does not count)" \
    sh -c "cut -d, -f1-10 $TMP/jobs.csv | grep -qx 'j2,200,600,1600,400,5,2000,1000,0,0'"
run simulate --resources "$TMP/r.trace" "$TMP/w.trace"
check "text report names the cluster from the resource trace" has_out "3 nodes, 6 processors"

gzip -c "$TMP/w.trace" >"$TMP/w.trace.gz"
run simulate --resources "$TMP/r.trace" --format json "$TMP/w.trace.gz"
check "gzip Maui trace" has_out '"jobs":2'

printf 'SIMRESOURCETRACEFILE %s\n' "$TMP/r.trace" >"$TMP/sim.cfg"
run simulate --config "$TMP/sim.cfg" --format json "$TMP/w.trace"
check "SIMRESOURCETRACEFILE in maui.cfg gives the nodes" has_out '"jobs":2'

run simulate "$TMP/r.trace"
check "a resource trace as the workload is refused, with advice" sh -c "[ $rc -eq 1 ] && grep -q -- '--resources' $TMP/err"
run simulate --strict --resources "$TMP/r.trace" "$TMP/w.trace"
check "--strict: the NotRun job is an error naming file and line" sh -c "[ $rc -eq 1 ] && grep -q 'w.trace:5:' $TMP/err"

sed "s/^j2 1 5 bob/j2 1 x bob/" "$TMP/w.trace" >"$TMP/bad.trace"
run simulate --resources "$TMP/r.trace" "$TMP/bad.trace"
check "text in a numeric field: file:line" sh -c "[ $rc -eq 1 ] && grep -q 'bad.trace:4:' $TMP/err"
sed 's/^COMPUTENODE DRAINED/COMPUTENODE SLEEPING/' "$TMP/r.trace" >"$TMP/badr.trace"
run simulate --resources "$TMP/badr.trace" "$TMP/w.trace"
check "bad node state: file:line" sh -c "[ $rc -eq 1 ] && grep -q 'badr.trace:4:' $TMP/err"
run simulate --resources "$TMP/r.trace" --procs 4 "$TMP/w.trace"
check "--resources with --procs: a usage error" [ "$rc" -eq 2 ]
done_checks
