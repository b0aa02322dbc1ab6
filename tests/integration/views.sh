#!/bin/sh
# Maui's daily views against the real daemon and the simulator (issue 18):
# showstats -u/-g/-q, showgrid, diagnose -j/-n/-u/-c (and mdiag), checkjob -v,
# text and JSON. The caller owns the home, so it is ADMIN1.
. tests/integration/lib.sh

MOKU=$(cd "$(dirname "$MOKU")" && pwd)/$(basename "$MOKU")
kth=$(pwd)/data/KTH-SP2-1996-2.1-cln.norm.swf.gz
H=$TMP/home
mkdir -p "$H" "$TMP/work"
printf 'RMPOLLINTERVAL 1\nNODECFG[n1] PROCS=2\nNODECFG[n2] PROCS=2 FEATURES=big\n' >"$H/maui.cfg"
printf 'USERCFG[%s] MAXJOB=5\n' "$(id -un)" >>"$H/maui.cfg"
export MOKU_HOME="$H"
"$MOKU" serve --home "$H" >>"$TMP/serve.log" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; lib_cleanup' EXIT
i=0
while [ $i -lt 50 ] && ! timeout 5 "$MOKU" showq >/dev/null 2>&1; do sleep 0.1; i=$((i + 1)); done
cd "$TMP/work" || exit 1
me=$(id -un)
j1=$(echo 'true' | timeout 5 "$MOKU" submit -l walltime=10:00)
# j2 on n2 (the only big node), so that n1 is idle and rejects j3 for its
# features alone (on n1, n1 would be Busy first: which node j2 took once
# depended on when j1 ended).
j2=$(echo 'sleep 60' | timeout 5 "$MOKU" submit -l nodes=1:ppn=2:big,walltime=1:00:00)
j3=$(echo 'sleep 60' | timeout 5 "$MOKU" submit -h -l walltime=30:00,nodes=1:ppn=1:big)
# j1 ends at once; wait for its end to be reported.
i=0
while [ $i -lt 50 ] && ! timeout 5 "$MOKU" showstats -u --format=json 2>/dev/null | grep -q '"completed_jobs": 1'; do
    sleep 0.2
    i=$((i + 1))
done
q() { timeout 10 "$MOKU" "$@" >"$TMP/out" 2>"$TMP/err"; rc=$?; }

q showstats -u
check "showstats -u: the banner and the caller's row with a completed job" sh -c "grep -q '|------ Active ------|' $TMP/out && grep -q '^$me  *[0-9]  *[0-9]  *[0-9.]*  *1 100.00' $TMP/out"
q showstats -q --format=json
check "showstats -q --format=json: type qos" grep -q '"type": "qos"' "$TMP/out"
q showstats -u nobody_here
check "showstats -u of an unknown user: an error" sh -c "[ $rc != 0 ] && grep -q \"no user 'nobody_here'\" $TMP/err"
q showgrid JOBCOUNT
check "showgrid JOBCOUNT: the grid, one job in the total" sh -c "grep -q '^Job Count Grid' $TMP/out && grep -q '^\[ TOTAL \].*\[          1 \]\$' $TMP/out"
q showgrid AVGXFACTOR --format=json
check "showgrid --format=json" grep -q '"statistic": "AVGXFACTOR"' "$TMP/out"
q diagnose -j
check "diagnose -j: the jobs, the held one with its warning" sh -c "grep -q '^Name  *State' $TMP/out && grep -q \"^WARNING:  job '$j3' cannot run\" $TMP/out && grep -q '^Total Jobs: 2  Active Jobs: 1' $TMP/out"
q mdiag -n
check "mdiag -n: the node table and its total" sh -c "grep -q '^n2 .*\[big\]' $TMP/out && grep -q '^Total Nodes: 2' $TMP/out"
q diagnose -u "$me" --format=json
check "diagnose -u: the caller's MAXJOB" sh -c "grep -q '\"MAXJOB\"' $TMP/out && grep -q '\"running_jobs\": 1' $TMP/out"
q diagnose -c
check "diagnose -c: the class table" grep -q '^Displaying class information' "$TMP/out"
q checkjob -v "$j3"
check "checkjob -v: per-node rejections" sh -c "grep -q '^Node n1 rejected: Features' $TMP/out && grep -q '^Node n2 rejected: State (Busy)' $TMP/out && grep -q '^Rejection Reasons:' $TMP/out"
q checkjob -v "$j3" --format=json
check "checkjob -v --format=json: rejections" grep -q '"rejections"' "$TMP/out"
q showgrid NOPE
check "showgrid of an unknown statistic: an error" sh -c "[ $rc != 0 ] && grep -q 'unknown or unsupported statistic' $TMP/err"

# The simulator's --show runs the same views.
if [ -f "$kth" ]; then
    run simulate --until 700000 --show "showgrid JOBCOUNT" --show "showstats -g" --show "diagnose -n" --show "checkjob -v 162" "$kth"
    check "simulate --show: showgrid, showstats -g, diagnose -n, checkjob -v" sh -c "[ $rc = 0 ] && grep -q '^Job Count Grid' $TMP/out && grep -q 'Completed' $TMP/out && grep -q '^Total Nodes:' $TMP/out && grep -q '^Node node002 rejected: State (Busy)' $TMP/out"
else
    fail "no $kth (it is part of the checkout)"
fi
done_checks
