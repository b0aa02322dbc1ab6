#!/bin/sh
# moku simulate --until TIME --show "COMMAND": the replay stops after the
# iteration at TIME and the commands answer from that state.
. tests/integration/lib.sh
kth=data/KTH-SP2-1996-2.1-cln.norm.swf.gz

run simulate --until 700000 --show showq "$kth"
check "showq at 700000: Maui's sections" sh -c "[ $rc -eq 0 ] && grep -q '^ACTIVE JOBS' $TMP/out && grep -q '^IDLE JOBS' $TMP/out && grep -q '^BLOCKED JOBS' $TMP/out"
check "showq: the closing totals line" grep -q '^Total Jobs: 39   Active Jobs: 4   Idle Jobs: 35   Blocked Jobs: 0' "$TMP/out"
check "showq: processors active" grep -q '99 of  100 Processors Active (99.00%)' "$TMP/out"

run simulate --until 700000 --show "checkjob 162 --format=json" "$kth"
for key in id state user group account class qos procs walltime submit start priority bypass reason; do
    check "checkjob json has $key" grep -q "\"$key\":" "$TMP/out"
done
check "checkjob json: idle, not started, a reason" sh -c "grep -q '\"state\": \"Idle\"' $TMP/out && grep -q '\"start\": null' $TMP/out && grep -q 'insufficient idle processors' $TMP/out"

run simulate --until 700000 --show "diagnose -p --format=json" "$kth"
check "diagnose -p json: a job list with components and factors" sh -c "grep -q '\"jobs\"' $TMP/out && grep -q '\"components\"' $TMP/out && grep -q '\"queuetime\"' $TMP/out && grep -q '\"targetxfactor\"' $TMP/out"

printf 'XFACTORWEIGHT 10\n' >"$TMP/xf.cfg"
run simulate --config "$TMP/xf.cfg" --until 700000 --show "diagnose -p" "$kth"
check "diagnose -p text shows the XFactor weight" sh -c "[ $rc -eq 0 ] && grep -q 'XFctr' $TMP/out"

run simulate --until 700000 --show "checkjob 99999" "$kth"
check "checkjob of an unknown job: exit 1, named" sh -c "[ $rc -eq 1 ] && grep -q \"no job '99999'\" $TMP/err"
run simulate --until 700000 --show "frobnicate" "$kth"
check "an unknown command: exit 1" [ "$rc" -eq 1 ]
run simulate --until abc --show showq "$kth"
check "a bad --until: exit 2" [ "$rc" -eq 2 ]

run simulate --until 700000 --format json "$kth"
check "--until without --show: a report of the jobs ended by then" sh -c "[ $rc -eq 0 ] && ! grep -q '\"jobs\":27992' $TMP/out && grep -q '\"jobs\":' $TMP/out"
run simulate --until 700000 --show "showconfig" "$kth"
check "showconfig lists parameters" sh -c "grep -q 'BACKFILLPOLICY' $TMP/out && grep -q 'RESERVATIONDEPTH' $TMP/out"
