#!/bin/sh
# moku simulate --commands FILE: administrator commands at chosen instants
# of a replay (tests/data/sim/commands.swf: one 4-processor node; without
# commands 1 runs 0-1000, 2 1000-1500, 3 1500-2000, 4 2000-2100).
. tests/integration/lib.sh
trace=tests/data/sim/commands.swf

# start JOB / end JOB: the job's start or end in $TMP/jobs.csv ("" when it
# never ran).
start() { awk -F, -v j="$1" '$1 == j { print $3 }' "$TMP/jobs.csv"; }
end() { awk -F, -v j="$1" '$1 == j { print $4 }' "$TMP/jobs.csv"; }
# script LINE...: the command file, one argument a line.
script() { printf '%s\n' "$@" >"$TMP/cmds"; }
replay() { run simulate --jobs-out "$TMP/jobs.csv" --commands "$TMP/cmds" "$@" "$trace"; }

run simulate --jobs-out "$TMP/jobs.csv" "$trace"
check "without commands: 2 starts at 1000, 3 at 1500" \
    [ "$rc" -eq 0 -a "$(start 2)" = 1000 -a "$(start 3)" = 1500 ]

# ---- sethold / releasehold ----
script '# hold 2 until 20 minutes in' '50 sethold 2' '0:20:00 releasehold 2'
replay
check "sethold: exit 0, a report" sh -c "[ $rc -eq 0 ] && grep -q 'jobs simulated       4' $TMP/out"
check "sethold: 3 overtakes the held job at 1000" [ "$(start 3)" = 1000 ]
check "releasehold at 0:20:00 (1200): 2 starts when 3 ends, at 1500" [ "$(start 2)" = 1500 ]
check "each command and its reply on stderr" \
    sh -c "grep -q '^moku: \[50\] sethold 2\$' $TMP/err && grep -q '^moku: \[1200\] releasehold 2\$' $TMP/err && [ \$(grep -c '^holds modified for job 2\$' $TMP/err) -eq 2 ]"
replay --quiet
check "--quiet: successful commands are not logged" sh -c "[ $rc -eq 0 ] && [ ! -s $TMP/err ]"

script '50 sethold 2'
run simulate --until 100 --show "checkjob 2" --commands "$TMP/cmds" "$trace"
check "--show after a script: the job is on user hold" grep -q '^State: UserHold' "$TMP/out"

# ---- canceljob ----
script '50 canceljob 2' '00:05 canceljob 1'
replay
check "canceljob of an idle job: it never runs" sh -c "[ $rc -eq 0 ] && [ -z \"$(start 2)\" ]"
check "canceljob of a running job at 00:05 (HH:MM: 300 s, no trace event then): it ends at 300" [ "$(end 1)" = 300 ]
check "... and the next job starts at once" [ "$(start 3)" = 300 ]
check "... the rest follows" [ "$(start 4)" = 800 ]
check "the replies" sh -c "grep -q \"^job '2' cancelled\" $TMP/err && grep -q \"^job '1' cancelled\" $TMP/err"

# ---- runjob, setspri ----
script '300 canceljob 1' '300 runjob 4'
replay
check "runjob after a cancel at the same instant: 4 starts at 300" [ "$(start 4)" = 300 ]
check "runjob's reply" grep -q "^job '4' started on 1 procs" "$TMP/err"

script '50 setspri 1000 3'
replay
check "setspri: 3 goes before 2" [ "$(start 3)" = 1000 -a "$(start 2)" = 1500 ]

# ---- a failing command is reported, the replay goes on ----
script '100 canceljob 99' '200 sethold 1'
replay
check "failing commands: exit 0 and the report" sh -c "[ $rc -eq 0 ] && grep -q 'jobs simulated       4' $TMP/out"
check "a failure names the script's line" \
    sh -c "grep -q \"^moku: $TMP/cmds:1: canceljob: cannot locate job '99'\" $TMP/err && grep -q \"^moku: $TMP/cmds:2: sethold: cannot locate idle job '1'\" $TMP/err"
replay --quiet
check "--quiet still reports failures" sh -c "grep -q 'cmds:1: canceljob' $TMP/err && ! grep -q 'holds modified' $TMP/err"

# ---- errors in the script: FILE:LINE, exit 1, no replay ----
bad_script() {
    d=$1
    want=$2
    shift 2
    script "$@"
    replay
    check "$d" sh -c "[ $rc -eq 1 ] && [ ! -s $TMP/out ] && grep -q -- \"$want\" $TMP/err"
}
bad_script "a bad time" "cmds:2: bad time 'soon'" '# comment' 'soon showq'
bad_script "a negative time" "cmds:1: bad time '-5'" '-5 showq'
bad_script "INFINITY is no time" "cmds:1: bad time 'INFINITY'" 'INFINITY showq'
bad_script "five fields" "cmds:1: bad time '1:2:3:4:5'" '1:2:3:4:5 showq'
bad_script "a time and no command" "cmds:3: no command after the time" '10 showq' '' '20'
bad_script "an unknown command" "cmds:1: unknown command 'frobnicate'" '10 frobnicate 2'
bad_script "times out of order" "cmds:2: time 50 comes before the previous line's (100)" \
    '100 showq' '50 showq'
bad_script "an unterminated quote" "cmds:1: unterminated quote" "10 checkjob 'x"
run simulate --commands "$TMP/nonexistent" "$trace"
check "a missing script: exit 1, named" sh -c "[ $rc -eq 1 ] && grep -q 'nonexistent: cannot open' $TMP/err"

# ---- reservations: setres ALL (no ACL: a SYSTEM reservation) blocks the
# whole cluster until releaseres ----
script '0 setres -d 1:00:00 ALL' '700 releaseres SYSTEM.0'
replay
check "setres at 0: exit 0, no command failed" sh -c "[ $rc -eq 0 ] && ! grep -q 'cmds:[0-9]' $TMP/err"
check "setres ALL at 0: job 1 waits for the releaseres at 700" [ "$(start 1)" = 700 ]
check "setres and releaseres logged" \
    sh -c "grep -q '^moku: \[0\] setres' $TMP/err && grep -q '^moku: \[700\] releaseres' $TMP/err"

# docs/simulation.md's own example script, trailing comments and all (issue
# 13 §5: a trailing "# comment" was passed on as arguments).
awk '/^# TIME  COMMAND \[ARGS\]$/ { on = 1; next } on && /^```/ { exit } on' docs/simulation.md \
    >"$TMP/doc.cmds"
{
    echo "41 0 -1 5000 1 -1 -1 1 5000 -1 1 1 1 -1 1 -1 -1 -1"
    for j in 42 43 44 45; do echo "$j $((j - 32)) -1 100 1 -1 -1 1 100 -1 1 1 1 -1 1 -1 -1 -1"; done
} >"$TMP/doc.swf"
run simulate --procs 1 --commands "$TMP/doc.cmds" --jobs-out "$TMP/doc.csv" "$TMP/doc.swf"
check "the documented script: seven commands, every one ran" \
    sh -c "[ $rc -eq 0 ] && [ \$(wc -l <$TMP/doc.cmds) -eq 7 ] && ! grep -q 'doc.cmds:[0-9]*:' $TMP/err"
check "... its comments were not passed on (releasehold 42 at 1200 s)" \
    grep -q '^moku: \[1200\] releasehold 42$' "$TMP/err"
check "... jobs 44 and 45 were cancelled" \
    sh -c "grep -q '^44,.*,cancelled,' $TMP/doc.csv && grep -q '^45,.*,cancelled,' $TMP/doc.csv"

# RESERVATIONPOLICY HIGHEST keeps a reservation with the job that holds it
# (issue 26 §6): job 1 holds both processors until 1000; job 2 is reserved
# at 1000; at 500 `setspri` lifts job 3 above it. Under HIGHEST job 2 still
# starts at 1000, job 3 after it; under CURRENTHIGHEST job 3 takes them.
cat >"$TMP/hi.swf" <<'SWF'
; MaxProcs: 2
1 0 0 1000 2 -1 -1 2 1000 -1 1 1 1 -1 1 -1 -1 -1
2 10 0 100 2 -1 -1 2 100 -1 1 2 1 -1 1 -1 -1 -1
3 20 0 100 2 -1 -1 2 100 -1 1 3 1 -1 1 -1 -1 -1
SWF
printf '500 setspri 1000 3\n999 checkjob 2\n' >"$TMP/hi.cmds"
run simulate --set RESERVATIONPOLICY=HIGHEST --commands "$TMP/hi.cmds" --jobs-out "$TMP/hi.csv" "$TMP/hi.swf"
check "HIGHEST: the job holding the reservation starts at its time (1000), the lifted one after" \
    sh -c "grep -q '^2,10,1000,' $TMP/hi.csv && grep -q '^3,20,1100,' $TMP/hi.csv"
check "... and checkjob said so before" grep -q "^Reservation '2' (" "$TMP/err"
run simulate --set RESERVATIONPOLICY=CURRENTHIGHEST --commands "$TMP/hi.cmds" --jobs-out "$TMP/hi.csv" "$TMP/hi.swf"
check "CURRENTHIGHEST: the lifted job takes the processors at 1000" \
    sh -c "grep -q '^3,20,1000,' $TMP/hi.csv && grep -q '^2,10,1100,' $TMP/hi.csv"

# Priorities (issue 26 §6): `setspri -r` below zero floors at 1 with
# ENABLENEGJOBPRIORITY FALSE (the default), as the priority page says; and
# one priority shows one value in checkjob, diagnose -p and showq -i (at
# 640 s job 3's queue time is 10.67 minutes: 10, not 11 in one of them).
cat >"$TMP/pr.swf" <<'SWF'
; MaxProcs: 1
1 0 0 1000 1 -1 -1 1 1000 -1 1 1 1 -1 1 -1 -1 -1
2 0 0 100 1 -1 -1 1 100 -1 1 1 1 -1 1 -1 -1 -1
3 0 0 100 1 -1 -1 1 100 -1 1 1 1 -1 1 -1 -1 -1
SWF
printf '0 setspri -r -50 2\n640 checkjob 2\n640 checkjob 3\n640 diagnose -p\n640 showq -i\n' >"$TMP/pr.cmds"
run simulate --commands "$TMP/pr.cmds" "$TMP/pr.swf"
check "setspri -r -50: floored at 1 (StartPriority: 1)" grep -q "StartPriority:  1  SystemPriority:  -50" "$TMP/err"
check "... ENABLENEGJOBPRIORITY TRUE keeps it negative" sh -c "
    '$MOKU' simulate --set ENABLENEGJOBPRIORITY=TRUE --commands '$TMP/pr.cmds' '$TMP/pr.swf' 2>&1 |
    grep -q 'StartPriority:  -39  SystemPriority:  -50'"
check "one priority, one value: checkjob 10" grep -q "StartPriority:  10$" "$TMP/err"
check "... diagnose -p 10" grep -Eq '^3 +10 ' "$TMP/err"
check "... showq -i 10" grep -Eq '^ +3 +10 ' "$TMP/err"

# BACKFILLPOLICY NONE (issue 26 §6, as Maui 3.3.1 does it: no priority
# reservation, nothing passes the job that waits first). Job 1 holds 2 of 4
# processors until 1000; job 2 (4 processors) waits; job 3 (1 processor)
# may not pass it. showbf offers no window while job 2 waits (the 2 free
# processors are nobody's), checkjob says when job 2 starts.
cat >"$TMP/nb.swf" <<'SWF'
; MaxProcs: 4
1 0 0 1000 2 -1 -1 2 1000 -1 1 1 1 -1 1 -1 -1 -1
2 10 0 100 4 -1 -1 4 100 -1 1 2 1 -1 1 -1 -1 -1
3 20 0 100 1 -1 -1 1 100 -1 1 3 1 -1 1 -1 -1 -1
SWF
run simulate --set BACKFILLPOLICY=NONE --until 30 --show showbf --show "checkjob 2" --show "checkjob 3" "$TMP/nb.swf"
check "NONE: showbf offers no window while job 2 waits" \
    has_out "no procs available (BACKFILLPOLICY NONE: job 2 waits, and nothing starts before it)"
check "... checkjob 2: no reservation, but when it starts" \
    sh -c "grep -q '^Expected start in 00:16:10 (BACKFILLPOLICY NONE' $TMP/out && ! grep -q '^Reservation' $TMP/out"
check "... checkjob 3: a higher-priority job is waiting" has_out "a higher-priority job is waiting (BACKFILLPOLICY NONE)"
run simulate --set BACKFILLPOLICY=NONE --jobs-out "$TMP/nb.csv" "$TMP/nb.swf"
check "... and the schedule: 2 at 1000, 3 after it at 1100" \
    sh -c "grep -q '^2,10,1000,' $TMP/nb.csv && grep -q '^3,20,1100,' $TMP/nb.csv"
run simulate --until 30 --show showbf "$TMP/nb.swf"
check "FIRSTFIT: job 3 backfilled, 1 processor left until job 2's reservation" \
    has_out "1 proc available for      00:16:10"
# A job that can never start (a feature no node has) does not stop NONE's
# queue for ever: Maui defers it (MJobPReserve's check) and the rest go on.
printf 'NODECFG[n1] PROCS=1\nNODECFG[n2] PROCS=1\nBACKFILLPOLICY NONE\n' >"$TMP/nf.cfg"
run simulate --config "$TMP/nf.cfg" --jobs-out "$TMP/nf.csv" tests/data/sim/nofeature.wtrace
check "NONE: a job no node can ever hold does not keep the next one waiting" \
    sh -c "grep -q '^2,1704067210,1704067210,' $TMP/nf.csv && grep -q '^1,.*,never_started,the nodes it may use can never hold it' $TMP/nf.csv"
done_checks
