#!/bin/sh
# Reservations in a replay: a business-hours standing reservation with a
# time limit, the trace's time zone, OWNERPREEMPT (requeue and suspend),
# triggers, and configuration errors.
. tests/integration/lib.sh
day=tests/data/resv/day.swf
pre=tests/data/resv/preempt.swf

start() { awk -F, -v j="$1" '$1 == j { print $3 }' "$TMP/jobs.csv"; }
end() { awk -F, -v j="$1" '$1 == j { print $4 }' "$TMP/jobs.csv"; }
# fails_with PATTERN: the last run failed and said PATTERN on stderr.
fails_with() { [ "$rc" -ne 0 ] && has_err "$1"; }
field() { awk -F, -v j="$1" -v f="$2" '$1 == j { print $f }' "$TMP/jobs.csv"; }

# One of the two nodes is kept 9:00-17:00 for jobs that overlap the window
# by an hour at most. Three jobs arrive at 08:00 UTC: two of 3 hours, one of
# 1.5 hours. Without the reservation 1 and 2 start at once, 3 at 11:00.
printf 'SRCFG[short] TASKCOUNT=1 STARTTIME=9:00:00 ENDTIME=17:00:00 TIMELIMIT=1:00:00\n' \
    >"$TMP/day.cfg"
run simulate --jobs-out "$TMP/jobs.csv" "$day"
check "no reservation: 1 and 2 at 08:00, 3 at 11:00" \
    [ "$(start 1)" = 28800 -a "$(start 2)" = 28800 -a "$(start 3)" = 39600 ]

# UTC: 3 overlaps 09:00-17:00 by half an hour and takes the reserved node at
# once; 2 (two hours inside) waits for 1's node at 11:00.
run simulate --config "$TMP/day.cfg" --timezone UTC --jobs-out "$TMP/jobs.csv" "$day"
check "UTC: the replay runs" [ "$rc" -eq 0 ]
check "UTC: 1 at once, 3 in the reserved node at once, 2 at 11:00" \
    [ "$(start 1)" = 28800 -a "$(start 3)" = 28800 -a "$(start 2)" = 39600 ]

# The trace's zone, Europe/Stockholm (UTC+1 in January): the window is
# 08:00-16:00 UTC, so 3 would overlap it by 1.5 hours: it waits for the
# unreserved node too, after 2.
run simulate --config "$TMP/day.cfg" --jobs-out "$TMP/jobs.csv" "$day"
check "trace zone: 1 at once, 2 at 11:00, 3 at 14:00" \
    [ "$(start 1)" = 28800 -a "$(start 2)" = 39600 -a "$(start 3)" = 50400 ]
run simulate --config "$TMP/day.cfg" --until 28800 --show "showres" "$day"
check "trace zone: tomorrow's window opens at 08:00 UTC" has_out "Tue Jan  2 08:00:00"
run simulate --config "$TMP/day.cfg" --timezone +05:30 --until 28800 --show "showres" "$day"
check "fixed zone +05:30: tomorrow's window opens at 03:30 UTC" has_out "Tue Jan  2 03:30:00"

# ---- OWNERPREEMPT: user 1 owns both nodes, user 2 may use them (-) ----
printf 'SRCFG[own] PERIOD=INFINITY TASKCOUNT=2 USERLIST=1,2- OWNER=USER:1 FLAGS=OWNERPREEMPT\n' \
    >"$TMP/own.cfg"
run simulate --config "$TMP/own.cfg" --nodes 2 --ppn 4 --jobs-out "$TMP/jobs.csv" "$pre"
check "requeue: the owner's job starts on arrival" [ "$(start 2)" = 100 ]
check "requeue: the other job ran again from the start after it" \
    [ "$(start 1)" = 200 -a "$(end 1)" = 1200 -a "$(field 1 10)" = 1 ]
printf 'PREEMPTPOLICY SUSPEND\n' >>"$TMP/own.cfg"
run simulate --config "$TMP/own.cfg" --nodes 2 --ppn 4 --jobs-out "$TMP/jobs.csv" "$pre"
check "suspend: the owner's job starts on arrival" [ "$(start 2)" = 100 ]
check "suspend: the other job resumed and ended 100 s late" \
    [ "$(start 1)" = 200 -a "$(end 1)" = 1100 -a "$(field 1 10)" = 1 -a "$(field 1 5)" = 0 ]
check "suspend: its first run is a segment of the CSV, on the same nodes" \
    [ "$(field 1 19)" = "0-100@$(field 1 18)" ]

# ---- triggers: reported, not run ----
printf 'SRCFG[t] TASKCOUNT=1 STARTTIME=9:00:00 ENDTIME=10:00:00 TRIGGER=start;exec@/bin/notify\n' \
    >"$TMP/trig.cfg"
run simulate --config "$TMP/trig.cfg" --timezone UTC "$day"
check "trigger: an exec action is reported, not run" \
    has_err "\[32400\] reservation t.0 start: trigger exec '/bin/notify' not run"

# ---- errors ----
printf 'SRCFG[bad] TASKCOUNT=1 PERIOD=FORTNIGHT\n' >"$TMP/bad.cfg"
run simulate --config "$TMP/bad.cfg" "$day"
check "a bad SRCFG stops the run, naming file and line" fails_with "bad.cfg:1"
run simulate --config "$TMP/day.cfg" --timezone Mars/Olympus "$day"
check "an unknown zone is refused" fails_with "time zone 'Mars/Olympus'"
printf 'NODEALLOCATIONPOLICY CONTIGUOUS\n' >"$TMP/na.cfg"
run simulate --config "$TMP/na.cfg" "$day"
check "an unimplemented NODEALLOCATIONPOLICY is refused" fails_with "CONTIGUOUS"
printf 'NODECFG[n1] PROCS=2 PRIORITYF=SPEED+FOO\nNODEALLOCATIONPOLICY PRIORITY\n' >"$TMP/pf.cfg"
run simulate --config "$TMP/pf.cfg" "$day"
check "a bad PRIORITYF names file, line and node" fails_with "pf.cfg:1: NODECFG\[n1\]"
printf 'NODECFG[n1] PROCS=2 SPEED=fast\n' >"$TMP/sp.cfg"
run simulate --config "$TMP/sp.cfg" "$day"
check "a bad SPEED names file, line and node" fails_with "sp.cfg:1: invalid value .fast. for attribute SPEED of NODECFG"
printf 'RESERVATIONDEPTH[9] 2\n' >"$TMP/rd.cfg"
run simulate --config "$TMP/rd.cfg" "$day"
check "a RESERVATIONDEPTH group past 7 is refused" fails_with "RESERVATIONDEPTH\[9\]"

# Issue 13 §3: a floating reservation does not stack while free nodes
# exist. An administrative reservation on n1,n2 of four 2-processor nodes,
# then a user's of two whole nodes: it takes n3,n4.
printf 'NODECFG[n%s] PROCS=2\n' 1 2 3 4 >"$TMP/four.cfg"
printf '; UnixStartTime: 1704067200\n1 100 -1 600 1 -1 -1 1 3600 -1 1 1 1 -1 1 -1 -1 -1\n' >"$TMP/one.swf"
printf '0 setres -d 4:00:00 -n maint n1,n2\n0 setres -d 4:00:00 -u 7 TASKS==2\n' >"$TMP/stack.cmd"
run simulate --config "$TMP/four.cfg" --commands "$TMP/stack.cmd" --quiet --until 60 --show "showres -n" "$TMP/one.swf"
check "stacking: the user's floating reservation avoids the reserved nodes" \
    sh -c "grep -q 'n3 .* 7.0 ' '$TMP/out' && grep -q 'n4 .* 7.0 ' '$TMP/out' &&
           ! grep -q 'n[12] .* 7.0 ' '$TMP/out'"
# Two standing reservations of one task each, for different users.
{ printf 'NODECFG[n%s] PROCS=2\n' 1 2
  printf 'SRCFG[a] TASKCOUNT=1 PERIOD=INFINITY USERLIST=7\nSRCFG[b] TASKCOUNT=1 PERIOD=INFINITY USERLIST=8\n'
} >"$TMP/two.cfg"
run simulate --config "$TMP/two.cfg" --show "showres -n" "$TMP/one.swf"
check "stacking: two one-task standing reservations land on different nodes" \
    sh -c "grep -q 'n1 .* a.0 ' '$TMP/out' && grep -q 'n2 .* b.0 ' '$TMP/out'"
