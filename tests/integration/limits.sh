#!/bin/sh
# Throttling policies through the binary: the seed's MAXIJOB example,
# blocked jobs in showq / showq -b / checkjob / diagnose -q, the JSON
# shapes, per-job limits, and configuration errors.
. tests/integration/lib.sh

# 17 one-processor jobs of one user, one per second, on one processor.
: >"$TMP/w.swf"
i=1
while [ $i -le 17 ]; do
    echo "$i $i 0 100 1 -1 -1 1 100 -1 1 7 1 -1 1 -1 -1 -1" >>"$TMP/w.swf"
    i=$((i + 1))
done
printf 'USERCFG[DEFAULT] MAXIJOB=8\n' >"$TMP/maxijob.cfg"

run simulate --config "$TMP/maxijob.cfg" --procs 1 --until 20 --show showq "$TMP/w.swf"
check "MAXIJOB 8: 1 active, 8 idle, 8 blocked" grep -q '^Total Jobs: 17   Active Jobs: 1   Idle Jobs: 8   Blocked Jobs: 8' "$TMP/out"
run simulate --config "$TMP/maxijob.cfg" --procs 1 --until 101 --show showq "$TMP/w.swf"
check "after the first ends, the next blocked job becomes idle" grep -q '^Total Jobs: 16   Active Jobs: 1   Idle Jobs: 8   Blocked Jobs: 7' "$TMP/out"

run simulate --config "$TMP/maxijob.cfg" --procs 1 --until 20 --show "showq -b" "$TMP/w.swf"
check "showq -b: each blocked job with Maui's reason" grep -q 'violates idle SOFT MAXJOB limit of 8 for user 7' "$TMP/out"
run simulate --config "$TMP/maxijob.cfg" --procs 1 --until 20 --show "checkjob 17 --format=json" "$TMP/w.swf"
check "checkjob: a blocked job's reason" grep -q '"reason": "job 17 violates idle SOFT MAXJOB limit of 8 for user 7' "$TMP/out"
run simulate --config "$TMP/maxijob.cfg" --procs 1 --until 20 --show "diagnose -q" "$TMP/w.swf"
check "diagnose -q lists the blocked jobs" sh -c "[ \$(grep -c '^job [0-9]* violates' $TMP/out) -eq 8 ]"

run simulate --config "$TMP/maxijob.cfg" --procs 1 --until 20 --show "showq --format=json" "$TMP/w.swf"
for key in active idle blocked summary total reason wclimit queuetime remaining priority; do
    check "showq json has $key" grep -q "\"$key\"" "$TMP/out"
done

run simulate --config "$TMP/maxijob.cfg" --procs 1 --format json "$TMP/w.swf"
check "the replay finishes every job in the end" has_out '"jobs":17'

printf 'CLASSCFG[DEFAULT] MAX.WCLIMIT=00:01:00\n' >"$TMP/wc.cfg"
run simulate --config "$TMP/wc.cfg" --procs 1 --until 5 --show "showq -b" "$TMP/w.swf"
check "a walltime over MAX.WCLIMIT is blocked for good" grep -q 'violates system HARD MAXWC limit of 60' "$TMP/out"

printf 'USERCFG[DEFAULT] MAXJOB=abc\n' >"$TMP/bad.cfg"
run simulate --config "$TMP/bad.cfg" --procs 1 "$TMP/w.swf"
check "a bad limit: exit 1, file:line" sh -c "[ $rc -eq 1 ] && grep -q 'bad.cfg:1:' $TMP/err"
printf 'USERCFG[DEFAULT] MAXJOB[USER]=2\n' >"$TMP/bad2.cfg"
run simulate --config "$TMP/bad2.cfg" --procs 1 "$TMP/w.swf"
check "a per-user limit on USERCFG: exit 1, named" sh -c "[ $rc -eq 1 ] && grep -q 'bad2.cfg:1:' $TMP/err"
