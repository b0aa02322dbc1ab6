#!/bin/sh
# Every replay ends (issue 13 §1): inputs on which a waiting job can never
# start, or can start only at an instant that is no job event, each from
# tests/data/sim/liveness/. Each replay runs under `timeout`; before the
# fix every one of them spun for ever. Jobs still waiting are reported
# (never_started, a CSV row with the reason), and a job whose reserved start
# is no event starts then. Also: a read-only timed command at a job's end
# must not change the schedule.
. tests/integration/lib.sh
D=tests/data/sim/liveness

# sim NAME ARGS...: replay with the jobs CSV in $TMP/NAME.csv and the JSON
# report in $TMP/out; rc is 124 when it did not end within $LIMIT seconds
# (20; the whole KTH trace gets 120, as it takes 5 s here and 20 s under
# the sanitizers: a bound on a hang, not a speed test). TIME_SCALE
# multiplies the bounds (make asan sets it: sanitized binaries, validated too).
S=${TIME_SCALE:-1}
LIMIT=$((20 * S))
sim() {
    name=$1
    shift
    timeout $LIMIT "$MOKU" simulate "$@" --format json --jobs-out "$TMP/$name.csv" >"$TMP/out" 2>"$TMP/err"
    rc=$?
}
# row NAME JOB: the CSV row of job JOB.
row() { grep "^$2," "$TMP/$1.csv"; }

sim maxps --procs 4 --config $D/maxps.cfg $D/one.swf
check "a job over MAXPS alone: the replay ends" [ "$rc" -eq 0 ]
check "... it is counted as never started" has_out '"never_started":1'
check "... its row says so, with the limit" sh -c "grep -q '^1,0,,,,1,200,200,0,0,1,1,,1,DEFAULT,never_started,\"job 1 violates .*MAXPS limit of 100' $TMP/maxps.csv"

sim maxproc --procs 4 --config $D/maxproc.cfg $D/two.swf
check "a 2-processor job under MAXPROC=1: ends, never started" sh -c "[ $rc -eq 0 ] && grep -q '\"never_started\":1' $TMP/out && grep -q 'MAXPROC limit of 1' $TMP/maxproc.csv"

sim wclimit --procs 4 --config $D/wclimit.cfg $D/long.swf
check "walltime over MAX.WCLIMIT 5 days: ends, never started, MAXWC named" sh -c "[ $rc -eq 0 ] && grep -q 'never_started,.*MAXWC limit of 432000' $TMP/wclimit.csv"

sim hold --procs 4 --commands $D/hold.cmds $D/one.swf
check "a job held by a timed command and never released: ends" [ "$rc" -eq 0 ]
check "... never started, the hold named" sh -c "grep -q 'never_started,job has a user hold,' $TMP/hold.csv"

sim feature --procs 2 $D/feature.wtrace
check "a feature no node has: ends, never started, the feature named" sh -c "[ $rc -eq 0 ] && grep -q 'never_started,the nodes it may use can never hold it (features: bigmem)' $TMP/feature.csv"

sim fs5 --procs 4 --config $D/fs5.cfg $D/fs5.swf
check "five jobs under an FSTARGET cap (DEDICATEDPS, 1 h windows, depth 2): ends" [ "$rc" -eq 0 ]
check "... every job ran" has_out '"jobs":5,"skipped":0,"rejected":0,"never_started":0'

if [ -f data/KTH-SP2-1996-2.1-cln.norm.swf.gz ]; then
    LIMIT=$((120 * S))
    sim kth --config $D/fstarget.cfg data/KTH-SP2-1996-2.1-cln.norm.swf.gz
    LIMIT=$((20 * S))
    check "README's FSTARGET=5% on the bundled KTH trace: the replay ends" [ "$rc" -eq 0 ]
    check "... and accounts for every job" has_out '"jobs":27992,"skipped":0,"rejected":0,"never_started":0'
else
    fail "no data/KTH-SP2-1996-2.1-cln.norm.swf.gz (it is part of the checkout)"
fi

sim sr --config $D/sr.cfg $D/sr.swf
check "the last job waits on a standing reservation: starts at its end (02:00)" sh -c "[ $rc -eq 0 ] && grep -q '^1,1800,7200,7800,5400,' $TMP/sr.csv"

sim timelimit --config $D/timelimit.cfg $D/timelimit.swf
check "a reserved start at 04:00 that is no job event: starts at 04:00" sh -c "[ $rc -eq 0 ] && grep -q '^2,1800,14400,21600,12600,' $TMP/timelimit.csv"
timeout $LIMIT "$MOKU" simulate --config $D/timelimit.cfg --until 3600 --show "checkjob 2" $D/timelimit.swf >"$TMP/out" 2>&1
check "... which is what checkjob promised" has_out 'reserved to start at Mon Jan  1 04:00:00'

sim showq --procs 2 --commands $D/showq.cmds $D/showq.swf
check "showq at a job's end leaves the schedule alone (job 3 runs 1000-1500)" sh -c "grep -q '^3,500,1000,1500,500,' $TMP/showq.csv"
sim plain --procs 2 $D/showq.swf
check "... the same schedule as without the command" sh -c "cut -d, -f1-5 $TMP/showq.csv >$TMP/a; cut -d, -f1-5 $TMP/plain.csv >$TMP/b; cmp -s $TMP/a $TMP/b"

sim bigsubmit --procs 4 $D/bigsubmit.swf
check "a submit time of 2^62: exit 1 naming the file, line and field" sh -c "[ $rc -eq 1 ] && grep -q 'bigsubmit.swf:1: field 2 (submit time) is out of range' $TMP/err"
sim bigreq --procs 4 $D/bigreq.swf
check "a requested time of INT64_MAX: exit 1 naming the field" sh -c "[ $rc -eq 1 ] && grep -q 'bigreq.swf:1: field 9 (requested time) is out of range' $TMP/err"

# The CSV: every job a row, the nodes it got.
sim nodes --nodes 2 --ppn 2 $D/showq.swf
check "the CSV header names every column" sh -c "head -1 $TMP/nodes.csv | grep -qx 'job_id,submit,start,end,wait,procs,walltime,runtime,backfilled,preempted,user,group,account,class,qos,state,reason,nodes,segments'"
check "a job's row has its credentials, state and nodes" sh -c "grep -Eq '^1,0,0,1000,0,2,1000,1000,0,0,2,2,,1,DEFAULT,completed,,node[12]:2,$' $TMP/nodes.csv"
done_checks
