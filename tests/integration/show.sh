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

# showbf and showstart answer from the plan where the replay stopped: job 159
# holds the priority reservation (checkjob: reserved to start at 18:18:04).
run simulate --until 700000 --show showbf "$kth"
check "showbf: Maui's header and a window line" sh -c "[ $rc -eq 0 ] && grep -q \"^backfill window (user: 'ALL' group: 'ALL' partition: ALL) Tue Oct  1 14:27:11\" $TMP/out && grep -Eq '^ *[0-9]+ procs? available (for |with no timelimit)' $TMP/out"
run simulate --until 700000 --show "showbf -r 1000" "$kth"
check "showbf -r beyond the cluster: no procs available" sh -c "[ $rc -eq 0 ] && grep -q '^no procs available$' $TMP/out"
run simulate --until 700000 --show "showbf --format=json" "$kth"
check "showbf json: windows with procs, nodes and duration" sh -c "grep -q '\"windows\"' $TMP/out && grep -q '\"procs\":' $TMP/out && grep -q '\"nodes\":' $TMP/out && grep -q '\"duration\":' $TMP/out"
run simulate --until 700000 --show "showstart 159" "$kth"
check "showstart of the reserved job: its reservation's start" sh -c "[ $rc -eq 0 ] && grep -q '^job 159 requires 72 procs for 4:00:00$' $TMP/out && grep -q '^Earliest start in          3:50:53 on Tue Oct  1 18:18:04$' $TMP/out && grep -q '^Best Partition: DEFAULT$' $TMP/out"
run simulate --until 700000 --show "showstart 162 --format=json" "$kth"
check "showstart json: the next job starts when the reservation ends" sh -c "grep -q '\"job\": \"162\"' $TMP/out && grep -q '\"start\": 844208284' $TMP/out && grep -q '\"completion\": 844222684' $TMP/out"
run simulate --until 700000 --show "showstart 8@1:00:00" "$kth"
check "showstart procs@duration: an earliest start" sh -c "[ $rc -eq 0 ] && grep -q '^job 8@1:00:00 requires 8 procs for 1:00:00$' $TMP/out && grep -q '^Earliest completion in' $TMP/out"
run simulate --until 700000 --show "showstart 99999" "$kth"
check "showstart of an unknown job: exit 1, named" sh -c "[ $rc -eq 1 ] && grep -q \"showstart: no job '99999'\" $TMP/err"
run simulate --until 700000 --show "showbf -m 100" "$kth"
check "showbf -m: refused, not ignored" sh -c "[ $rc -eq 1 ] && grep -q 'showbf: -m (memory) is not supported' $TMP/err"
done_checks
