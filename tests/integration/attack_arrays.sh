#!/bin/sh
# Job arrays and dependencies attacked by a hostile ordinary user (issue 30
# round's surfaces), a real daemon running as root and two real users
# (useradd): user B may not hold, release, cancel, signal or alter user A's
# tasks through "A[]" or "A[i]", nor make A's task depend on B's job; an
# array named 256 times in one request is expanded once (was: 256 times,
# one commit per copy of each task, the daemon deaf for hours with 5000
# tasks); array ranges past MAXJOBARRAYSIZE, a %0 slot limit, an index past
# Torque's int refused; an array refused half-way (MAXSUBMITJOBS) leaves no
# task, record or spool directory behind. Run under flock
# /tmp/moku-users.lock (fixed user names).
. tests/integration/lib.sh

if [ "$(id -u)" != 0 ] || ! command -v useradd >/dev/null 2>&1 || ! command -v runuser >/dev/null 2>&1; then
    echo "not ok 1 - attack_arrays.sh needs root, useradd and runuser (scripts/deps.sh)"
    done_checks
    exit 0
fi
. tests/integration/lib_torque.sh
ua=mokuatka
ub=mokuatkb
add_user "$ua"
add_user "$ub"
chmod 755 "$TMP"
torque_serve 'RMPOLLINTERVAL 1\nNODECFG[n1] PROCS=4\nLOGLEVEL 3\nUSERCFG[DEFAULT] MAXSUBMITJOBS=60\nUSERCFG[mokuatkb] MAXSUBMITJOBS=3000\n' qstat
chmod 755 "$H"
cp "$MOKU" "$TMP/moku-client" && chmod 755 "$TMP/moku-client"
mkdir -p "$TMP/ubin" && for c in qsub qstat qdel qhold qrls qsig qalter; do ln -s "$TMP/moku-client" "$TMP/ubin/$c"; done
W=$TMP/work
chmod 777 "$W"
# as USER CMD ARGS...: a Torque command as USER, in $W; $TMP/out, err, rc.
as() {
    _u=$1
    c=$2
    shift 2
    (cd "$W" && runuser -u "$_u" -- env MOKU_HOME="$H" timeout $((60 * TIME_SCALE)) "$TMP/ubin/$c" "$@") \
        >"$TMP/out" 2>"$TMP/err"
    rc=$?
}
printf '#!/bin/sh\nsleep 1\n' >"$W/j.sh"
chmod 755 "$W/j.sh"
holds() { timeout 5 "$MOKU" qstat -f "$1" | sed -n 's/^    Hold_Types = //p'; }
field() { timeout 5 "$MOKU" qstat -f "$1" | sed -n "s/^    $2 = //p"; }
njobs() { timeout 5 "$MOKU" showq | sed -n 's/^Total Jobs: \([0-9]*\) .*/\1/p'; }

# A's array of 40 tasks, held by A and after A's own held job (released,
# they still wait: nothing runs, nothing ends).
as "$ua" qsub -h j.sh
ja=$(sed -n 's/^\([0-9]*\)\..*/\1/p' "$TMP/out")
as "$ua" qsub -h -W depend=afterok:"$ja" -t 1-40 j.sh
a=$(sed -n 's/^\([0-9]*\)\[\]\..*/\1/p' "$TMP/out")
check "A: qsub -h -W depend=afterok:A's job -t 1-40 accepted" sh -c "[ $rc = 0 ] && [ -n '$a' ]"
as "$ub" qsub -h j.sh
jb=$(sed -n 's/^\([0-9]*\)\..*/\1/p' "$TMP/out")
check "B: a held job of B's own" sh -c "[ $rc = 0 ] && [ -n '$jb' ]"

# B against A's tasks, by the whole array and by one task.
for w in "$a[]" "$a[3]"; do
    as "$ub" qrls "$w"
    check "B: qrls $w refused (Unauthorized), A's user hold kept" \
        sh -c "[ $rc != 0 ] && grep -q 'Unauthorized' '$TMP/err' && [ '$(holds "$a[3]")' = us ]"
    as "$ub" qdel "$w"
    check "B: qdel $w refused, the task still there" \
        sh -c "[ $rc != 0 ] && grep -q 'Unauthorized' '$TMP/err' && [ '$(state "$a[3]")' = SystemHold ]"
    as "$ub" qhold -h u "$w"
    check "B: qhold $w refused" sh -c "[ $rc != 0 ] && grep -q 'Unauthorized' '$TMP/err'"
    as "$ub" qsig -s KILL "$w"
    check "B: qsig $w refused" sh -c "[ $rc != 0 ] && ! grep -q '^$' '$TMP/err'"
    as "$ub" qalter -N evil "$w"
    check "B: qalter -N $w refused, the name kept" \
        sh -c "[ $rc != 0 ] && [ '$(field "$a[3]" Job_Name)' = j.sh ]"
    as "$ub" qalter -W depend=afterok:"$jb" "$w"
    check "B: qalter -W depend=afterok:B's job $w refused (no stall of A's task by B)" \
        sh -c "[ $rc != 0 ] && [ '$(field "$a[3]" depend)' = afterok:$ja ]"
done
check "... all 40 of A's tasks still there, held by A alone" \
    sh -c "[ '$(njobs)' = 42 ] && [ '$(holds "$a[40]")' = us ]"

# Amplification: one request naming A's array 256 times.
words=$(i=0; while [ $i -lt 256 ]; do printf '%s[] ' "$a"; i=$((i + 1)); done)
# shellcheck disable=SC2086 # the 256 words
as "$ub" qdel $words
check "B: qdel of A[] named 256 times: one refusal a task (40), not 256 each" \
    sh -c "[ $rc != 0 ] && [ \$(grep -c Unauthorized '$TMP/err') = 40 ]"
# shellcheck disable=SC2086
as "$ua" qrls $words
check "A: qrls of A[] named 256 times: each task released once, no error" \
    sh -c "[ $rc = 0 ] && [ ! -s '$TMP/err' ] && [ '$(holds "$a[7]")' = s ]"
# shellcheck disable=SC2086
as "$ua" qhold $words
check "A: qhold of A[] named 256 times: each task held once" \
    sh -c "[ $rc = 0 ] && [ '$(holds "$a[7]")' = us ]"
check "... and the daemon answers at once after it" timeout 5 "$MOKU" showq

# Ranges a user may not ask for (qsub's check, then the daemon's own).
as "$ua" qsub -t 0-99999999 j.sh
check "qsub -t 0-99999999: refused past MAXJOBARRAYSIZE" \
    sh -c "[ $rc != 0 ] && grep -q 'more than' '$TMP/err'"
as "$ua" qsub -t 1-4%0 j.sh
check "qsub -t 1-4%0: refused" sh -c "[ $rc != 0 ] && grep -q '%0' '$TMP/err'"
as "$ua" qsub -t 1-2,4294967296 j.sh
check "qsub -t with an index past an int: refused" sh -c "[ $rc != 0 ] && [ -s '$TMP/err' ]"
printf '#PBS -t 1-10001\nsleep 1\n' >"$W/big.sh"
as "$ua" qsub big.sh
check "#PBS -t 1-10001 in the script: refused too" sh -c "[ $rc != 0 ] && grep -q 'MAXJOBARRAYSIZE' '$TMP/err'"

# Half-failed: A has 41 jobs, MAXSUBMITJOBS 60, an array of 30 is refused
# at its 20th task: nothing of it stays.
spool_before=$(ls "$H/spool" 2>/dev/null | wc -l)
as "$ua" qsub -h -t 1-30 j.sh
check "A: an array of 30 past MAXSUBMITJOBS 60 refused" \
    sh -c "[ $rc != 0 ] && grep -q 'MAXSUBMITJOBS' '$TMP/err'"
check "... no task of it left (still 42 jobs)" [ "$(njobs)" = 42 ]
check "... no spool directory left" [ "$(ls "$H/spool" 2>/dev/null | wc -l)" = "$spool_before" ]
torque_restart() {
    kill "$pid" && wait "$pid" 2>/dev/null
    torque_start
}
torque_restart
check "... nor after a restart (the store has none of it)" [ "$(njobs)" = 42 ]
as "$ua" qsub -h -t 1-19 j.sh
check "... and an array that fits is taken whole" sh -c "[ $rc = 0 ] && [ '$(njobs)' = 61 ]"

# The owner's qhold/qrls/qdel of a big array: one commit for all its tasks (was
# one each: 2000 fsyncs, 1-8 s here, the daemon deaf meanwhile). Told by
# what the daemon writes (/proc/PID/io wchar), which the machine's load does
# not change: a commit writes at least one 4 KiB page to the WAL, so one a
# task is 8 MB or more (42 MB measured); one for all, 0.3 MB.
as "$ub" qsub -h -W depend=afterok:"$jb" -t 1-2000 j.sh
big=$(sed -n 's/^\([0-9]*\)\[\]\..*/\1/p' "$TMP/out")
check "B: an array of 2000 tasks, held, after B's held job" sh -c "[ $rc = 0 ] && [ -n '$big' ]"
wchar() { sed -n 's/^wchar: //p' "/proc/$pid/io"; }
for c in qrls qhold; do
    t0=$(date +%s%N)
    w0=$(wchar)
    as "$ub" $c "$big[]"
    w=$(($(wchar) - w0))
    ms=$((($(date +%s%N) - t0) / 1000000))
    check "B: $c $big[] of 2000 tasks: one commit, not one a task ($w bytes written, $ms ms)" \
        sh -c "[ $rc = 0 ] && [ $w -lt $((2000 * 4096)) ]"
done
torque_restart
check "... and made durable: after a restart, every task has B's hold again" \
    sh -c "[ '$(holds "$big[1]")' = us ] && [ '$(holds "$big[2000]")' = us ]"
t0=$(date +%s%N)
w0=$(wchar)
as "$ub" qdel "$big[]"
w=$(($(wchar) - w0))
ms=$((($(date +%s%N) - t0) / 1000000))
# A cancel's savepoints write SQLite's statement journal (a temporary
# file, never synced): 50 MB either way, so told by the time here, one
# commit 0.3 s, one a task 5-10 s on this machine.
check "B: qdel $big[] of 2000 tasks: answered in under $((3 * TIME_SCALE)) s ($ms ms, $w bytes written)" \
    sh -c "[ $rc = 0 ] && [ $ms -lt $((3000 * TIME_SCALE)) ]"
torque_restart
check "... every task removed, after a restart too" \
    sh -c "[ '$(state "$big[1]")' = Removed ] && [ '$(state "$big[2000]")' = Removed ]"
done_checks
exit 0
