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
run simulate --config "$TMP/own.cfg" --nodes 2 --ppn 4 --until 300 --show "checkjob 1" "$pre"
check "requeue: checkjob counts both starts (StartCount: 2)" has_out "StartCount: 2$"
printf 'PREEMPTPOLICY SUSPEND\n' >>"$TMP/own.cfg"
run simulate --config "$TMP/own.cfg" --nodes 2 --ppn 4 --jobs-out "$TMP/jobs.csv" "$pre"
check "suspend: the owner's job starts on arrival" [ "$(start 2)" = 100 ]
check "suspend: the other job resumed and ended 100 s late" \
    [ "$(start 1)" = 200 -a "$(end 1)" = 1100 -a "$(field 1 10)" = 1 -a "$(field 1 5)" = 0 ]
check "suspend: its first run is a segment of the CSV, on the same nodes" \
    [ "$(field 1 19)" = "0-100@$(field 1 18)" ]
run simulate --config "$TMP/own.cfg" --nodes 2 --ppn 4 --until 300 --show "checkjob 1" "$pre"
check "suspend: a resumption is not a start (StartCount: 1)" has_out "StartCount: 1$"

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
run simulate --config "$TMP/four.cfg" --commands "$TMP/stack.cmd" --quiet --until 100 --show "showres -n" "$TMP/one.swf"
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

# A standing reservation that can place nothing is not silent: a warning
# naming file and line, and diagnose -r lists it as wanting. (--until 100:
# the trace's first event, where the replay first iterates and makes the
# instances; a snapshot before it shows the state before any iteration.)
one="$TMP/one.swf"
for c in 'HOSTLIST=nx STARTTIME=01:00:00 ENDTIME=02:00:00|no node matches .nx.' \
         'TASKCOUNT=1 NODEFEATURES=gpu|no node has the features' \
         'TASKCOUNT=1 PARTITION=foo|no node has the features and partition' \
         'TASKCOUNT=1 STARTTIME=01:00:00 ENDTIME=01:00:00|STARTTIME equals ENDTIME' \
         'TASKCOUNT=1 RESOURCES=PROCS:4|no node has room for one task'; do
    attrs=${c%%|*} why=${c#*|}
    printf 'NODECFG[n1] PROCS=2\nSRCFG[m] %s\n' "$attrs" >"$TMP/want.cfg"
    run simulate --config "$TMP/want.cfg" --until 100 --show "diagnose -r" "$one"
    check "placing nothing ($attrs): a warning with file:line" \
        sh -c "[ $rc -eq 0 ] && grep -q 'warning: .*want.cfg:2: SRCFG\[m\]: .*$why.*reserves nothing' '$TMP/err'"
    check "placing nothing ($attrs): diagnose -r says it is wanting" \
        sh -c "grep -q '^m  *wanting: ' '$TMP/out' && grep -q 'Defined: .*want.cfg:2' '$TMP/out'"
done
# A DEDICATED one with no room: the other DEDICATED one holds the node.
printf 'NODECFG[n1] PROCS=2\nSRCFG[m] HOSTLIST=n1 ACCESS=DEDICATED\nSRCFG[k] TASKCOUNT=1 ACCESS=DEDICATED\n' \
    >"$TMP/ded.cfg"
run simulate --config "$TMP/ded.cfg" --until 100 --show "diagnose -r --format=json" "$one"
check "no room left by a DEDICATED reservation: diagnose -r (JSON) names k wanting" \
    sh -c "tr -d ' \n' <'$TMP/out' | grep -q '\"wanting\":\[{\"name\":\"k\",\"reason\":\"cannotselectrequestedtasks(0of1found)\"'"
run simulate --config "$TMP/ded.cfg" "$one"
check "no room left by a DEDICATED reservation: the replay warns how many windows went wanting" \
    has_err "ded.cfg:3: SRCFG\[k\]: [0-9]* windows placed nothing"
printf 'NODECFG[n1] PROCS=2\nSRCFG[m] HOSTLIST=n1 ACCESS=DEDICATED\nSRCFG[k] HOSTLIST=n1 ACCESS=DEDICATED\n' \
    >"$TMP/ded2.cfg"
run simulate --config "$TMP/ded2.cfg" --until 100 --show "showres -n" "$one"
check "two DEDICATED reservations of one host: the second does not stack" \
    sh -c "grep -q 'n1 .* m.0 ' '$TMP/out' && ! grep -q ' k.0 ' '$TMP/out' && grep -q 'SRCFG\[k\]' '$TMP/err'"

# A reservation made on a node a job it does not admit still runs on is not
# whole until the job ends; stacked reservations each count the jobs they
# admit.
printf 'NODECFG[n1] PROCS=1\n' >"$TMP/n1.cfg"
printf '; UnixStartTime: 1704067200\n1 0 -1 5000 1 -1 -1 1 5000 -1 1 1 1 -1 1 -1 -1 -1\n' >"$TMP/busy.swf"
printf '100 setres -d 1:00:00 -n mx n1\n' >"$TMP/busy.cmd"
run simulate --config "$TMP/n1.cfg" --commands "$TMP/busy.cmd" --quiet --until 200 --show "diagnose -r" "$TMP/busy.swf"
check "a reservation on a busy node: diagnose -r says what is not yet free, and for how long" \
    sh -c "grep -q 'Active Procs: 0/1' '$TMP/out' && grep -q 'Not yet free: 1/1 procs held by jobs it does not admit, for 1:20:00' '$TMP/out'"
printf '; UnixStartTime: 1704067200\n1 200 -1 1000 1 -1 -1 1 1000 -1 1 1 1 -1 1 -1 -1 -1\n' >"$TMP/u1.swf"
printf '100 setres -d 1:00:00 -n a -u 1 n1\n100 setres -d 1:00:00 -n b -u 1 n1\n' >"$TMP/stk.cmd"
run simulate --config "$TMP/n1.cfg" --commands "$TMP/stk.cmd" --quiet --until 300 --show "diagnose -r" "$TMP/u1.swf"
check "stacked reservations: each counts the job both admit as active" \
    [ "$(grep -c 'Active Procs: 1/1' "$TMP/out")" -eq 2 ]

# JOBATTRLIST=PREEMPTEE admits preemptible jobs (a QOS with QFLAGS=PREEMPTEE,
# or a job the Maui trace flags [PREEMPTEE]), and the trace's
# requested-reservation field (41) asks for a reservation as ADVRES does:
# bob's job 2 runs at once on n2, kept BYNAME for jobs that name it; his job
# 3 names none and waits for n1.
printf 'NODECFG[n%s] PROCS=1\n' 1 2 3 >"$TMP/attrs.cfg"
printf 'SRCFG[r] HOSTLIST=n2 USERLIST=bob FLAGS=BYNAME PERIOD=INFINITY\nSRCFG[p] HOSTLIST=n3 JOBATTRLIST=PREEMPTEE PERIOD=INFINITY\nQOSCFG[low] QFLAGS=PREEMPTEE\n' >>"$TMP/attrs.cfg"
run simulate --config "$TMP/attrs.cfg" --jobs-out "$TMP/jobs.csv" tests/data/resv/attrs.wtrace
t0=1704067200
check "trace reservation field: bob's job 2 starts at once on n2" \
    [ "$(start 2) $(field 2 18)" = "$((t0 + 10)) n2:1" ]
check "trace reservation field: bob's job 3 names none, waits for n1" [ "$(start 3)" = $((t0 + 1000)) ]
check "JOBATTRLIST=PREEMPTEE: a job of a PREEMPTEE QOS starts at once on n3" \
    [ "$(start 4) $(field 4 18)" = "$((t0 + 30)) n3:1" ]
check "JOBATTRLIST=PREEMPTEE: a job the trace flags PREEMPTEE runs on n3 after it" \
    [ "$(start 5) $(field 5 18)" = "$((t0 + 130)) n3:1" ]

# A job sent into a reservation whose ACL refuses it (issue 26 §6): r admits
# only alice, and bob's job 2 names it. checkjob says why it waits, and the
# jobs CSV gives that reason when the replay ends (the daemon refuses such a
# job at submission: daemon_resv.sh).
sed 's/SRCFG\[r\] HOSTLIST=n2 USERLIST=bob/SRCFG[r] HOSTLIST=n2 USERLIST=alice/' "$TMP/attrs.cfg" >"$TMP/refuse.cfg"
run simulate --config "$TMP/refuse.cfg" --until $((t0 + 20)) --show "checkjob 2" tests/data/resv/attrs.wtrace
check "checkjob: it asks for reservation 'r', whose ACL does not admit it" \
    has_out "it asks for reservation 'r', whose ACL does not admit it (USER==alice+)"
run simulate --config "$TMP/refuse.cfg" --jobs-out "$TMP/jobs.csv" tests/data/resv/attrs.wtrace
check "... never started, with that reason in the jobs CSV" \
    sh -c "grep '^2,' $TMP/jobs.csv | grep -qF \"never_started,\\\"it asks for reservation 'r', whose ACL does not admit it\""

# setres -d INFINITY and -e INFINITY never end (not 2140000000 s later, nor
# -e INFINITY the default length); a job they keep off never starts, and the
# replay ends at once.
printf 'NODECFG[n1] PROCS=1\n' >"$TMP/inf.cfg"
for w in '-d INFINITY' '-e INFINITY'; do
    printf '0 setres %s n1\n50 showres\n' "$w" >"$TMP/inf.cmd"
    run simulate --config "$TMP/inf.cfg" --commands "$TMP/inf.cmd" --jobs-out "$TMP/jobs.csv" \
        --resv-out "$TMP/resv.csv" "$one"
    check "setres $w: showres says it ends never" has_err "SYSTEM.0 .* INFINITY    INFINITY"
    check "setres $w: the job never starts" [ "$(field 1 16)" = never_started ]
    check "setres $w: --resv-out gives it no end" \
        [ "$(awk -F, '$1 == "SYSTEM.0" { print $5 }' "$TMP/resv.csv")" = "" ]
done

# SRCFG TIMELOGIC=AND is the SRCFG spelling of SRTIMELOGIC: TIMELIMIT
# entries become required; a value other than AND or OR is an error.
printf 'NODECFG[n1] PROCS=1\nSRCFG[x] HOSTLIST=n1 TIMELOGIC=AND TIMELIMIT=1:00:00 USERLIST=1\n' >"$TMP/tl.cfg"
run simulate --config "$TMP/tl.cfg" --until 100 --show "diagnose -r" "$one"
check "SRCFG TIMELOGIC=AND: known, and the time limit is required" \
    sh -c "[ $rc -eq 0 ] && ! grep -q TIMELOGIC '$TMP/err' && grep -q 'ACL: *USER==1+ DURATION<=1:00:00+\*' '$TMP/out'"
printf 'NODECFG[n1] PROCS=1\nSRCFG[x] HOSTLIST=n1 TIMELOGIC=MAYBE\n' >"$TMP/tl2.cfg"
run simulate --config "$TMP/tl2.cfg" "$one"
check "SRCFG TIMELOGIC=MAYBE: an error naming file and line" fails_with "tl2.cfg:2: .*TIMELOGIC"

# setres -m changes a reservation in place. One node, kept 0-1:00 by m.0;
# job 1 (user 1) arrives at 100 and would wait until 3600.
printf 'NODECFG[n1] PROCS=1\n' >"$TMP/m.cfg"
printf '; UnixStartTime: 1704067200\n1 100 -1 300 1 -1 -1 1 600 -1 1 1 1 -1 1 -1 -1 -1\n' >"$TMP/m.swf"
mrun() {
    printf '0 setres -d 1:00:00 -n m n1\n%s\n' "$1" >"$TMP/m.cmd"
    run simulate --config "$TMP/m.cfg" --commands "$TMP/m.cmd" --jobs-out "$TMP/jobs.csv" \
        --resv-out "$TMP/resv.csv" "$TMP/m.swf"
}
mrun '0 showq'
check "setres -m: without it the job waits for the end (3600)" [ "$(start 1)" = 3600 ]
mrun '50 setres -m m.0 -d 0:10:00'
check "setres -m -d 0:10:00: the reservation ends at 600, the job starts then" [ "$(start 1)" = 600 ]
check "... the replay says so" has_err "reservation 'm.0' modified"
mrun '50 setres -m m.0 -u 1'
check "setres -m -u 1: the job may use it, starts on arrival" [ "$(start 1)" = 100 ]
check "... --resv-out: the old form released at 50, the new made at 50" \
    sh -c "grep -q '^m.0,user,0,0,3600,50,' '$TMP/resv.csv' && grep -q '^m.0,user,50,0,3600,,n1:1,USER==1+,' '$TMP/resv.csv'"
mrun '50 setres -m m.0 -s +1:00:00'
check "setres -m -s: the window moves (its length kept), the job starts at once" [ "$(start 1)" = 100 ]
for bad in 'setres -m m.0 -n x|-n cannot be changed' 'setres -m m.0 n1|the nodes cannot be changed' \
           'setres -m nosuch.0 -d 100|cannot locate reservation' \
           'setres -m m.0 -x DEDICATEDRESOURCE|DEDICATEDRESOURCE cannot be changed' \
           'setres -m m.0 -d 0:00:30|would end before now'; do
    mrun "50 ${bad%%|*}"
    check "${bad%%|*}: refused (${bad#*|}), nothing changed" \
        sh -c "grep -q -- '${bad#*|}' '$TMP/err' && [ \"\$(awk -F, '\$1 == 1 { print \$3 }' '$TMP/jobs.csv')\" = 3600 ]"
done
# A DEDICATED reservation later on n1: m.0 may not grow into it.
printf '0 setres -s +2:00:00 -d 1:00:00 -n d -x DEDICATEDRESOURCE n1\n0 setres -d 1:00:00 -n m n1\n50 setres -m m.0 -d 2:30:00\n' >"$TMP/m.cmd"
run simulate --config "$TMP/m.cfg" --commands "$TMP/m.cmd" --jobs-out "$TMP/jobs.csv" "$TMP/m.swf"
check "setres -m into a DEDICATED reservation's window: refused, naming it" \
    has_err "cannot modify reservation 'm.0': reservation 'd.0' holds n1 over that window"
printf 'NODECFG[n1] PROCS=1\nSRCFG[s] HOSTLIST=n1 PERIOD=INFINITY\n' >"$TMP/ms.cfg"
printf '200 setres -m s.0 -d 100\n' >"$TMP/m.cmd"
run simulate --config "$TMP/ms.cfg" --commands "$TMP/m.cmd" "$TMP/m.swf"
check "setres -m of a standing reservation's instance: refused (change SRCFG)" has_err "change SRCFG\[s\] instead"

# The flags the Guide's reservation page lists (issue 26 §6): a maui.cfg
# copied from it loads; the flags moku acts on are taken, the others are a
# warning naming the file and line; the page's `QOSLIST=normal= high debug=
# low-` gives normal and debug neutral affinity, low negative.
printf 'SRCFG[acl] TASKCOUNT=1 PERIOD=INFINITY QOSLIST=normal= high debug= low-\nSRCFG[page] TASKCOUNT=1 PERIOD=INFINITY USERLIST=1 FLAGS=SINGLEUSE,BYNAME,PREEMPTEE,TIMEFLEX,SPACEFLEX\n' \
    >"$TMP/page.cfg"
run simulate --config "$TMP/page.cfg" --until 28800 --show "diagnose -r" "$day"
check "the page's flags: the configuration loads" [ "$rc" -eq 0 ]
check "... TIMEFLEX is a warning naming file and line" \
    has_err "page.cfg:2: SRCFG\[page\] FLAGS: flag 'TIMEFLEX' is not acted on"
check "... SINGLEUSE, BYNAME, PREEMPTEE, SPACEFLEX are taken" \
    has_out "Flags: STANDINGRSV BYNAME PREEMPTEE SPACEFLEX SINGLEUSE$"
check "... QOSLIST=normal= high debug= low-: neutral, positive, neutral, negative" \
    has_out "QOS==normal=:==high+:==debug=:==low-"
# SINGLEUSE in a replay: job 3 of user 3 uses the reservation (n1, 09:00-
# 17:00, user 3 only); when it ends, the instance goes and job 2 (user 2)
# takes the node at once instead of waiting for the window's end.
printf 'SRCFG[once] HOSTLIST=node1 STARTTIME=9:00:00 ENDTIME=17:00:00 USERLIST=3 FLAGS=SINGLEUSE\n' \
    >"$TMP/once.cfg"
run simulate --config "$TMP/once.cfg" --timezone UTC --jobs-out "$TMP/jobs.csv" "$day"
s3=$(start 3) e3=$(end 3) s2=$(start 2)
printf 'SRCFG[once] HOSTLIST=node1 STARTTIME=9:00:00 ENDTIME=17:00:00 USERLIST=3\n' >"$TMP/twice.cfg"
run simulate --config "$TMP/twice.cfg" --timezone UTC --jobs-out "$TMP/jobs.csv" "$day"
check "SINGLEUSE: job 3 uses the reservation, job 2 gets node1 when 3 ends ($s3-$e3, 2 at $s2; without the flag $(start 2))" \
    [ "$s2" = "$e3" -a "$(start 2)" != "$e3" ]
done_checks
