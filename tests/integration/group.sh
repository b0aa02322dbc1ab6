#!/bin/sh
# Group commit's failures (issue 31's group, isolated): four clients submit
# in one pass of the daemon's loop, so that their submissions share one
# commit, and that commit fails (MOKU_FAIL=store-commit@n, the crash-point
# build's failure of the n-th commit, as a full disk would fail it).
#   - A failure that passes: each member of the failed group is tried again
#     in its own commit, so every client gets its job (one member's failure
#     must not refuse the others'); after kill -9 and a restart every
#     acknowledged job is there, and each runs once.
#   - A failure that stays (every commit from the group's on): each client
#     is refused with the reason, and after a restart none of those jobs
#     exists (nothing unacknowledged is kept).
# With a long poll interval a fresh daemon commits twice at start-up and
# then not until a request comes: the group's is the 3rd commit. That the
# failure hit the group, not something else, is checked in the log.
. tests/integration/lib.sh

CRASH_POLL=30
. tests/integration/lib_crash.sh
state() { timeout 5 "$M" checkjob "$1" 2>/dev/null | sed -n 's/^State: //p'; }
all_done() {
    for id in "$@"; do
        i=0
        while [ "$(state "$id")" != Completed ] && [ $i -lt $((150 * TIME_SCALE)) ]; do
            sleep 0.1
            i=$((i + 1))
        done
        [ "$(state "$id")" = Completed ] || { echo "# job $id is $(state "$id")"; return 1; }
    done
}
ran_once() {
    for id in "$@"; do
        c=$(grep -c "^$id\$" "$RUNS")
        [ "$c" = 1 ] || { echo "# job $id ran $c times"; return 1; }
    done
    [ -z "$(sort "$RUNS" | uniq -d)" ] || { echo "# runs: $(tr '\n' ' ' <"$RUNS")"; return 1; }
}
# group: four clients in flight at once (the daemon stopped while they
# connect and send, so that its next pass reads them all: one group);
# their exit codes in $H/rcK, ids in $H/idK, errors in $H/errK.
group() {
    kill -STOP "$pid"
    clients=""
    for k in 1 2 3 4; do
        (MOKU_RETRY_SECONDS=0 timeout 30 "$M" submit -l walltime=60 -v RUNS="$RUNS" job.sh \
            >"$H/id$k" 2>"$H/err$k"; echo $? >"$H/rc$k") &
        clients="$clients $!"
    done
    i=0 # until the four wait on the listening socket (its Recv-Q), 5 s at most
    while [ $i -lt 50 ] && [ "$(ss -xlH src "$H/moku.sock" 2>/dev/null | awk '{ print $3 }')" != 4 ]; do
        sleep 0.1
        i=$((i + 1))
    done
    sleep 0.2 # their requests sent after the connect
    kill -CONT "$pid"
    # shellcheck disable=SC2086
    wait $clients
}

GROUPCOMMIT=3

# ---- a failure that passes ----
fresh_home once
serve MOKU_FAIL=store-commit@$GROUPCOMMIT
group
check "a group whose commit fails once: the failure hit the group" \
    grep -q 'a group of submissions could not be saved' "$H/log/maui.log"
check "... every client got its job's id (each tried again on its own)" \
    sh -c "cat '$H/rc1' '$H/rc2' '$H/rc3' '$H/rc4' | grep -qv '^0\$' && exit 1; cat '$H/id1' '$H/id2' '$H/id3' '$H/id4' | sort -n | tr '\n' ' ' | grep -qx '1 2 3 4 '"
cat "$H/err1" "$H/err2" "$H/err3" "$H/err4" | head -3 | sed 's/^/# /'
kill -9 "$pid"
wait "$pid" 2>/dev/null
pid=""
serve
check "... after kill -9 and a restart the four acknowledged jobs are there, not more" \
    sh -c "timeout 5 '$M' checkjob 4 >/dev/null 2>&1 && ! timeout 5 '$M' checkjob 5 >/dev/null 2>&1"
check "... and complete" all_done 1 2 3 4
check "... each having run once" ran_once 1 2 3 4
stop

# ---- a failure that stays ----
fresh_home stays
serve MOKU_FAIL=store-commit@$GROUPCOMMIT+
group
check "a group whose commits keep failing: every client is refused (non-zero exit)" \
    sh -c "! cat '$H/rc1' '$H/rc2' '$H/rc3' '$H/rc4' | grep -q '^0\$'"
check "... with the reason" sh -c "grep -l 'could not be saved' '$H/err1' '$H/err2' '$H/err3' '$H/err4' | wc -l | grep -qx 4"
stop
serve
none_of() { for id in 1 2 3 4; do ! timeout 5 "$M" checkjob "$id" >/dev/null 2>&1 || return 1; done; }
check "... after a restart none of the refused jobs exists" none_of
check "... and none ran" sh -c "[ ! -s '$RUNS' ]"
stop
done_checks
