#!/bin/sh
# Crash tests (issue 14): moku serve is killed (SIGKILL, by itself) at named
# points of submissions, starts, ends, reservations and commits, then
# restarted, and nothing acknowledged may be lost and no job may run twice.
# Failure points make commits fail as a full disk would: the daemon must
# recover, or wait, never spin. The points exist only in the test build
# (CRASHMOKU, made by make check from the same sources with
# -DMOKU_CRASHPOINTS; src/util/crashpt.h): MOKU_CRASH=point[@n] and
# MOKU_FAIL=point[@n[+]] in the daemon's environment.
#
# Every job here appends its id to runs when it starts, so that "ran twice"
# is seen, and finishes in a moment.
. tests/integration/lib.sh

JOB_SLEEP=0.2
. tests/integration/lib_crash.sh
state() { timeout 5 "$M" checkjob "$1" 2>/dev/null | sed -n 's/^State: //p'; }
# all_done IDS...: each Completed within 15 s.
all_done() {
    for id in "$@"; do
        i=0
        while [ "$(state "$id")" != Completed ] && [ $i -lt 150 ]; do
            sleep 0.1
            i=$((i + 1))
        done
        [ "$(state "$id")" = Completed ] || { echo "# job $id is $(state "$id")"; return 1; }
    done
}
# ran_once IDS...: each id in runs exactly once, and no job there twice
# (jobs whose submission was not acknowledged may be there: the daemon died
# after committing them, before answering).
ran_once() {
    for id in "$@"; do
        c=$(grep -c "^$id\$" "$RUNS")
        [ "$c" = 1 ] || { echo "# job $id ran $c times"; return 1; }
    done
    [ -z "$(sort "$RUNS" | uniq -d)" ] || { echo "# runs: $(tr '\n' ' ' <"$RUNS")"; return 1; }
}
exit_ok() { timeout 5 "$M" checkjob "$1" | grep -q 'Completion Code: 0'; }

# ---- the steps of a start (item 2) and of an end ----
# (end-recorded: the end is known to the engine, not yet committed.)
for point in start-spool-made start-files-written start-committed start-launched end-recorded; do
    fresh_home "$point"
    serve MOKU_CRASH="$point"
    j=$(timeout 5 "$M" submit -l walltime=60 -v RUNS="$RUNS" -N c job.sh)
    check "$point: the daemon died there" died
    serve
    check "$point: after the restart job $j completes" all_done "$j"
    check "$point: ... having run once, not lost, not twice" ran_once "$j"
    check "$point: ... with its own exit code" exit_ok "$j"
    stop
done

# ---- fairshare across a start the daemon never carried out ----
# Died after committing a start, before launching it: the job did not run in
# the seconds until the restart finds that out, so the usage fairshare counts
# is that of its one real run (job.sh: a fraction of a second), and another
# kill -9 gives the same (a restart rebuilds the books from the store, which
# holds a job's real runs only). Found by daemon.sh's kill -9 check failing
# under load: a start cut short by its kill had counted the downtime.
fresh_home fsundone
printf 'FSPOLICY DEDICATEDPS\n' >>"$H/maui.cfg"
# The user's fairshare usage in seconds; 0 when diagnose -f answers and
# lists none (a run of a fraction of a second may count none), nothing when
# diagnose does not answer, which the checks below refuse.
usage() {
    timeout 5 "$M" diagnose -f --format=json 2>/dev/null | grep -q '"as_of"' || return 0
    v=$(MOKU=$M fs_state | awk '{ print $2 + 0 }')
    echo "${v:-0}"
}
serve MOKU_CRASH=start-committed
j=$(timeout 5 "$M" submit -l walltime=60 -v RUNS="$RUNS" -N c job.sh)
check "fairshare, start-committed: the daemon died there" died
sleep 4 # seconds the job does not run
serve
check "... after the restart job $j completes" all_done "$j"
check "... having run once" ran_once "$j"
u1=$(usage)
check "... the usage counted is its real run's, not the 4 s it was down ($u1 s)" \
    awk -v u="$u1" 'BEGIN { exit !(u != "" && u < 3) }'
kill -9 "$pid"
wait "$pid" 2>/dev/null
serve
u2=$(usage)
check "... and the same after another kill -9 ($u1 s, then $u2 s)" \
    awk -v a="$u1" -v b="$u2" 'BEGIN { exit !(a != "" && b != "" && a - b < 0.01 && b - a < 0.01) }'
stop

# ---- after the commit of a submission, before the answer (item 4) ----
fresh_home reply
serve MOKU_CRASH=submit-committed
(MOKU_RETRY_SECONDS=20 timeout 30 "$M" submit -l walltime=60 -v RUNS="$RUNS" job.sh >"$H/id" 2>"$H/err"; echo $? >"$H/rc") &
client=$!
check "submit-committed: the daemon died after the commit, before answering" died
serve
wait "$client"
check "submit-committed: the client tried again and got the job's id (exit 0)" \
    sh -c "[ \"\$(cat '$H/rc')\" = 0 ] && [ \"\$(cat '$H/id')\" = 1 ]"
check "... having said it was trying again" grep -q 'trying again' "$H/err"
# (By job ids, not showq's total: the job may have run and ended by now.)
check "... one job, not two" sh -c "timeout 5 '$M' checkjob 1 >/dev/null && ! timeout 5 '$M' checkjob 2 >/dev/null 2>&1"
check "... which completes" all_done 1
check "... having run once" ran_once 1
stop

# ---- a group of submissions (group commit, issue 31) ----
# Submissions that arrive together share one commit and are answered after
# it. The daemon dies after that commit, before any answer
# (submit-committed), or before it (group-before-commit): each client tries
# again with its token and gets one job, each job runs once, and there are
# exactly as many jobs as clients.
for point in submit-committed group-before-commit; do
    fresh_home "group-$point"
    serve MOKU_CRASH="$point"
    # Stopped while the four connect and send: its next pass reads them all.
    kill -STOP "$pid"
    clients=""
    for k in 1 2 3 4; do
        (MOKU_RETRY_SECONDS=20 timeout 30 "$M" submit -l walltime=60 -v RUNS="$RUNS" job.sh >"$H/id$k" 2>"$H/err$k"; echo $? >"$H/rc$k") &
        clients="$clients $!"
    done
    i=0 # until the four wait on the listening socket (its Recv-Q), 5 s at most
    while [ $i -lt 50 ] && [ "$(ss -xlH src "$H/moku.sock" 2>/dev/null | awk '{ print $3 }')" != 4 ]; do
        sleep 0.1
        i=$((i + 1))
    done
    sleep 0.2 # their requests sent after the connect
    kill -CONT "$pid"
    check "group $point: the daemon died" died
    serve
    wait $clients
    check "... with the four in flight (each client tried again)" \
        sh -c "[ \$(grep -l 'trying again' '$H/err1' '$H/err2' '$H/err3' '$H/err4' | wc -l) = 4 ]"
    check "group $point: every client got its job's id (exit 0)" \
        sh -c "cat '$H/rc1' '$H/rc2' '$H/rc3' '$H/rc4' | grep -qv '^0\$' && exit 1; cat '$H/id1' '$H/id2' '$H/id3' '$H/id4' | sort -n | tr '\n' ' ' | grep -qx '1 2 3 4 '"
    check "... four jobs, not more" sh -c "timeout 5 '$M' checkjob 4 >/dev/null && ! timeout 5 '$M' checkjob 5 >/dev/null 2>&1"
    check "... which complete" all_done 1 2 3 4
    check "... each having run once" ran_once 1 2 3 4
    stop
done

# ---- after each commit in turn: submissions, starts, ends, a reservation ----
# The n-th commit of this script's life is followed by a crash (the first
# four are the daemon's start-up: not asked here); whatever
# was acknowledged before must be there after the restart, and every job
# must run exactly once.
for nth in 5 6 7 8 9 10 11 12 13 14; do
    fresh_home "commit$nth"
    serve MOKU_CRASH="store-after-commit@$nth"
    ids=""
    for k in 1 2 3 4; do
        kill -0 "$pid" 2>/dev/null || break
        id=$(MOKU_RETRY_SECONDS=0 timeout 5 "$M" submit -l walltime=60 -v RUNS="$RUNS" job.sh 2>/dev/null) &&
            ids="$ids $id"
    done
    resv=""
    if kill -0 "$pid" 2>/dev/null; then
        out=$(timeout 5 "$M" setres -n keep -s +1:00:00 -d 1:00:00 n1 2>/dev/null) &&
            resv=$(echo "$out" | sed -n "s/^reservation '\([^']*\)' created.*/\1/p")
    fi
    # Let the jobs start and end: one of those commits may be the n-th.
    i=0
    while [ $i -lt 30 ] && kill -0 "$pid" 2>/dev/null; do sleep 0.1; i=$((i + 1)); done
    check "commit $nth: the daemon died there (after${ids:- no} acknowledged submission${ids:+s})" died
    stop
    serve
    # shellcheck disable=SC2086
    check "commit $nth: every acknowledged job (${ids# }) completes after the restart" all_done $ids
    # shellcheck disable=SC2086
    check "commit $nth: ... each ran exactly once" ran_once $ids
    if [ -n "$resv" ]; then
        check "commit $nth: the acknowledged reservation $resv is there" \
            sh -c "timeout 5 '$M' showres | grep -q '^$resv '"
    fi
    stop
done

# ---- reloads, and a reservation changed (setres -m) ----
# A crash in the middle of schedctl -R (the new engine built, the store not
# yet read into it; or read, the reply not sent) and one after a setres -m
# was acknowledged: after the restart every acknowledged job runs once and
# the reservation is there, as last acknowledged.
for point in reload-before-restore reload-restored; do
    fresh_home "reload-${point%@*}"
    serve MOKU_CRASH="$point"
    ids=""
    for k in 1 2; do
        id=$(MOKU_RETRY_SECONDS=0 timeout 5 "$M" submit -h -l walltime=60 -v RUNS="$RUNS" job.sh 2>/dev/null) &&
            ids="$ids $id"
    done
    out=$(timeout 5 "$M" setres -n keep -s +1:00:00 -d 1:00:00 n1 2>/dev/null)
    resv=$(echo "$out" | sed -n "s/^reservation '\([^']*\)' created.*/\1/p")
    mod=""
    timeout 5 "$M" setres -m "$resv" -d 2:00:00 2>/dev/null | grep -q modified && mod=1
    printf 'RMPOLLINTERVAL 1\nNODECFG[n1] PROCS=2\nLOGLEVEL 1\nRESERVATIONDEPTH 2\n' >"$H/maui.cfg"
    timeout 5 "$M" schedctl -R >/dev/null 2>&1
    check "$point: the daemon died there" died
    stop
    serve
    # shellcheck disable=SC2086
    for id in $ids; do timeout 5 "$M" releasehold "$id" >/dev/null 2>&1; done
    # shellcheck disable=SC2086
    check "$point: the acknowledged held jobs (${ids# }) complete once released" all_done $ids
    # shellcheck disable=SC2086
    check "$point: ... each ran exactly once" ran_once $ids
    timeout 5 "$M" diagnose -r "$resv" >"$TMP/out" 2>&1
    check "$point: the reservation $resv is there, as setres -m left it (2 hours)" \
        sh -c "[ -n '$resv' ] && [ '$mod' = 1 ] && grep -q '^$resv .* 2:00:00 ' '$TMP/out'"
    check "$point: the reloaded configuration is in force after the restart" \
        sh -c "timeout 5 '$M' showconfig | grep -q '^RESERVATIONDEPTH.* 2'"
    stop
done

# ---- failed commits (item 3) ----
fresh_home failonce
# The 3rd commit fails once (a passing fault): the daemon rebuilds its
# state from the database and goes on.
serve MOKU_FAIL=store-commit@3
ids=""
for k in 1 2 3 4; do
    id=$(timeout 5 "$M" submit -l walltime=60 -v RUNS="$RUNS" job.sh 2>/dev/null) && ids="$ids $id"
done
# shellcheck disable=SC2086
check "a commit that fails once: the jobs acknowledged (${ids# }) complete" all_done $ids
# shellcheck disable=SC2086
check "... each ran once" ran_once $ids
check "... the daemon said it recovered" grep -q 'recovering' "$H/log/maui.log"
stop

fresh_home failstays
# From the 2nd begin on every transaction fails (a disk that stays full):
# no spinning, reads answered, changes refused with the reason.
serve MOKU_FAIL=store-begin@2+
timeout 5 "$M" submit job.sh >/dev/null 2>"$H/err1"
# Once two iterations have failed (the second a second after the first when
# they back off), count them: spinning, there would be hundreds by then.
t0=$(date +%s%N)
nskipped() { grep -c 'iteration skipped' "$H/log/maui.log"; }
two_failed() { [ "$(nskipped)" -ge 2 ]; }
wait_for 10 two_failed
skipped=$(nskipped)
ms=$((($(date +%s%N) - t0) / 1000000))
check "a disk that stays full: iterations back off, not ~200 a second ($skipped in $ms ms)" \
    sh -c "[ $skipped -ge 2 ] && [ $skipped -le 5 ]"
check "... the daemon still answers showq" sh -c "timeout 5 '$M' showq >/dev/null"
timeout 5 "$M" submit job.sh >"$H/out" 2>"$H/err"
check "... a submission is refused with the reason" grep -q 'unavailable\|could not be saved' "$H/err"
check "... and the daemon is still there" kill -0 "$pid"
stop
done_checks
