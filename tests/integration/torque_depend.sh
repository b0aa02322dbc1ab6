#!/bin/sh
# qsub -W depend= against the real daemon: a chain afterok/afternotok on a
# parent that succeeds and on one that fails, the dependency hold shown in
# checkjob and qstat -f (Hold_Types s, depend =), a job whose dependency can
# never be met removed with the reason, an unknown id and Torque's before*
# types refused, and the dependencies kept across a daemon restart while
# the parent still runs; qalter -W depend= replacing a queued job's
# dependencies (durable, checked as qsub's and for a cycle, refused on a
# running job); a parent purged from the daemon's memory judged by its
# record in the store.
. tests/integration/lib.sh

. tests/integration/lib_torque.sh
torque_serve 'RMPOLLINTERVAL 1\nNODECFG[n1] PROCS=4\nLOGLEVEL 3\n' qsub qstat qalter qrls
field() { timeout 5 "$TMP/bin/qstat" -f "$1" | sed -n "s/^    $2 = //p"; }
# sub ARGS: qsub; the job's number in $jid, qsub's exit in $rc.
sub() {
    t qsub "$@"
    jid=$(sed -n 's/^\([0-9]*\)\..*/\1/p' "$TMP/out")
}
printf '#!/bin/sh\nsleep 6\n' >long.sh
printf '#!/bin/sh\nexit 3\n' >fail.sh
printf '#!/bin/sh\nexit 0\n' >ok.sh

sub long.sh
ja=$jid
sub -W depend=afterok:$ja.$(hostname) ok.sh
jb=$jid
check "qsub -W depend=afterok:ID.host accepted" sh -c "[ $rc = 0 ] && [ -n '$jb' ]"
sub -W depend=afternotok:$ja ok.sh
jc=$jid
sub -W depend=afterany:$ja,afterok:$ja ok.sh
jd=$jid
check "two types, comma-separated, accepted" sh -c "[ $rc = 0 ] && [ -n '$jd' ]"
check "the dependent waits in a system hold" wait_for 5 is "$jb" SystemHold
check "checkjob shows what it waits for" sh -c "timeout 5 '$MOKU' checkjob $jb | grep -q '^Depend:  afterok:$ja (waiting)\$'"
check "qstat -f: Hold_Types s and depend" \
    sh -c "[ '$(field "$jb" Hold_Types)' = s ] && [ '$(field "$jb" depend)' = afterok:$ja ]"
check "... and a job with two types shows both" [ "$(field "$jd" depend)" = "afterany:$ja,afterok:$ja" ]

# qalter -W depend= on a queued job: replaced, checked as qsub's.
sub -W depend=afterok:$ja ok.sh
je=$jid
sub -W depend=afterok:$je ok.sh
jy=$jid
t qalter -W depend=afterany:$ja "$je.$HOST"
check "qalter -W depend=: replaced (exit 0, nothing printed)" \
    sh -c "[ $rc = 0 ] && [ ! -s $TMP/out ] && [ '$(field "$je" depend)' = afterany:$ja ]"
t qalter -W depend=afterok:$je "$je"
check "qalter: a job depending on itself is refused (156), its dependencies kept" \
    sh -c "[ $rc = 156 ] && grep -q 'qalter: illegal -W value depend=afterok:$je: job $je cannot depend on itself' $TMP/err && [ '$(field "$je" depend)' = afterany:$ja ]"
t qalter -W depend=afterok:99999 "$je"
check "qalter: an unknown job is refused" sh -c "[ $rc = 156 ] && grep -q 'job 99999 is not known' $TMP/err"
t qalter -W depend=afterok:$jy "$je"
check "qalter: a cycle ($jy waits for $je) is refused" \
    sh -c "[ $rc = 156 ] && grep -q 'dependency on job $jy makes a cycle' $TMP/err && [ '$(field "$je" depend)' = afterany:$ja ]"
t qalter -W depend=afterany:$jb "$ja"
check "qalter -W depend= on a running job: Request invalid for state (170)" \
    sh -c "[ $rc = 170 ] && grep -q 'qalter: Request invalid for state of job $ja' $TMP/err"
t qalter -W group_list=x "$je"
check "qalter: another -W attribute is refused" sh -c "[ $rc = 156 ] && grep -q 'alters depend= only' $TMP/err"
sub -W depend=afterok:$ja ok.sh
jr=$jid
t qalter -W depend=after:$ja "$jr"
check "qalter to a dependency met already (after: the parent runs): accepted" [ "$rc" = 0 ]
check "... released, it runs while the parent still runs" wait_for 5 is "$jr" Completed

# A restart while the parent runs: the dependencies come back from the store.
kill "$pid"
wait "$pid" 2>/dev/null
torque_start
check "after a restart the dependent still waits" is "$jb" SystemHold
check "... with its dependency" [ "$(field "$jb" depend)" = "afterok:$ja" ]
check "... and qalter's replacement too" [ "$(field "$je" depend)" = "afterany:$ja" ]

check "the parent ends well: afterok runs to its end" wait_for 20 is "$jb" Completed
check "... afterany too" wait_for 5 is "$jd" Completed
check "... and the job qalter gave afterany" wait_for 5 is "$je" Completed
check "... afternotok is removed, with the reason" \
    sh -c "[ '$(state "$jc")' = Removed ] && timeout 5 '$MOKU' checkjob $jc | grep -q 'dependency afternotok:$ja can never be satisfied: job $ja succeeded'"

# The parent held until its dependents are in: fail.sh ends at once, and
# an afterok on a job that already failed is refused (check 24), which
# under make asan's slower clients it once had.
sub -h fail.sh
jf=$jid
sub -W depend=afterok:$jf ok.sh
jg=$jid
sub -W depend=afternotok:$jf ok.sh
jn=$jid
t qrls "$jf"
check "a failed parent: afternotok runs" wait_for 20 is "$jn" Completed
check "... afterok is removed" wait_for 5 is "$jg" Removed

t qsub -W depend=afterok:$jf ok.sh
check "afterok on a job that already failed: refused" \
    sh -c "[ $rc != 0 ] && grep -q 'invalid job dependency: dependency afterok:$jf can never be satisfied' $TMP/err && [ ! -s $TMP/out ]"
t qsub -W depend=afterok:99999 ok.sh
check "an unknown job id: refused" sh -c "[ $rc != 0 ] && grep -q 'job 99999 is not known' $TMP/err"
t qsub -W depend=beforeok:$jf ok.sh
check "beforeok: refused as not supported" sh -c "[ $rc != 0 ] && grep -q 'not supported' $TMP/err"
t qsub -W depend=afterok ok.sh
check "a type without a job: refused" sh -c "[ $rc != 0 ] && grep -q 'names no job' $TMP/err"

# Parents purged from the daemon's memory: resetstats moves the history's
# start past their ends, so a restart loads neither; the store's records
# still judge them (by their recorded exit), instead of "not known".
# resetstats counts from its second on: the parents' ends must be before it.
t0=$(date +%s)
wait_for 3 sh -c "[ \$(date +%s) -gt $t0 ]"
timeout 10 "$MOKU" resetstats >/dev/null 2>&1
kill "$pid"
wait "$pid" 2>/dev/null
torque_start
# checkjob of a job the engine does not hold answers from the store, with
# no "Total Tasks:" line.
check "after resetstats and a restart, the ended parents are not in memory" \
    sh -c "timeout 5 '$MOKU' checkjob $ja | grep -q '^State: Completed' && ! timeout 5 '$MOKU' checkjob $ja | grep -q '^Total Tasks' && ! timeout 5 '$MOKU' checkjob $jf | grep -q '^Total Tasks'"
sub -W depend=afterok:$ja ok.sh
jp=$jid
check "afterok on a purged parent that succeeded: accepted" sh -c "[ $rc = 0 ] && [ -n '$jp' ]"
check "... and runs" wait_for 10 is "$jp" Completed
t qsub -W depend=afternotok:$ja ok.sh
check "afternotok on it: refused, it succeeded" \
    sh -c "[ $rc != 0 ] && grep -q 'dependency afternotok:$ja can never be satisfied: job $ja succeeded' $TMP/err"
sub -W depend=afternotok:$jf ok.sh
jq=$jid
check "afternotok on a purged parent that failed: accepted, runs" \
    sh -c "[ $rc = 0 ] && [ -n '$jq' ]"
check "... and runs" wait_for 10 is "$jq" Completed
t qsub -W depend=afterok:$jf ok.sh
check "afterok on it: refused, it failed" \
    sh -c "[ $rc != 0 ] && grep -q 'dependency afterok:$jf can never be satisfied: job $jf failed' $TMP/err"
done_checks
