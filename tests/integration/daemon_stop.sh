#!/bin/sh
# Clients never hang (issue 28, item 5): with the daemon stopped (SIGSTOP),
# showq and submit give up after MOKU_TIMEOUT with a clear message (before:
# 120 s); the submission whose answer never came says so and prints its
# token; after SIGCONT the daemon acts on the request it had, and the
# submission sent again with --token answers that job's id: one job, not
# two. A connection queue filled while it is stopped does not hold a client
# either.
. tests/integration/lib.sh

MOKU=$(cd "$(dirname "$MOKU")" && pwd)/$(basename "$MOKU")
H=$TMP/home
W=$TMP/work
mkdir -p "$H" "$W"
printf 'RMPOLLINTERVAL 1\nNODECFG[n1] PROCS=2\n' >"$H/maui.cfg"
export MOKU_HOME="$H"
printf 'sleep 30\n' >"$W/job.sh"
cd "$W" || exit 1
pid=""
holders=""
cleanup() {
    [ -n "$pid" ] && kill -CONT "$pid" 2>/dev/null
    for p in $holders; do kill "$p" 2>/dev/null; done
    [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
    lib_cleanup
}
trap cleanup EXIT
# Started holding a descriptor of ours (as a lock or a pipe would be): the
# daemon must not keep it (a stray daemon once held make check's lock).
"$MOKU" serve --home "$H" >"$TMP/serve.log" 2>&1 7>"$TMP/held" &
pid=$!
i=0
while [ $i -lt 50 ] && ! timeout 5 "$MOKU" showq >/dev/null 2>&1; do
    sleep 0.1
    i=$((i + 1))
done
total() { timeout 5 "$MOKU" showq | sed -n 's/^Total Jobs: \([0-9]*\).*/\1/p'; }
timeout 5 "$MOKU" submit job.sh >/dev/null
check "the daemon takes a job" [ "$(total)" = 1 ]
check "the daemon keeps no descriptor its starter passed it" \
    sh -c "! ls -l /proc/$pid/fd | grep -q '$TMP/held'"

kill -STOP "$pid"
# A client given MOKU_TIMEOUT=2 ends within GIVEUP seconds: its 2 s, and
# whole seconds of date for starting it (TIME_SCALE's share: make asan's
# clients start slower), far below the 120 s of a client that hangs.
GIVEUP=$((2 + 2 * TIME_SCALE))
t0=$(date +%s)
MOKU_TIMEOUT=2 timeout 20 "$MOKU" showq >"$TMP/out" 2>"$TMP/err"
rc=$?
t1=$(date +%s)
check "a stopped daemon: showq gives up after MOKU_TIMEOUT (2 s), exit 1 (took $((t1 - t0)) s)" \
    sh -c "[ $rc = 1 ] && [ $((t1 - t0)) -le $GIVEUP ]"
check "... saying so" grep -q "showq: no answer from the daemon: no answer within 2000 ms" "$TMP/err"
t0=$(date +%s)
MOKU_TIMEOUT=2 timeout 20 "$MOKU" submit -N lost job.sh >"$TMP/out" 2>"$TMP/err"
rc=$?
t1=$(date +%s)
check "submit gives up too, exit 1, no id printed (took $((t1 - t0)) s)" \
    sh -c "[ $rc = 1 ] && [ $((t1 - t0)) -le $GIVEUP ] && [ ! -s '$TMP/out' ]"
check "... saying the job may have been made or not" grep -q "the job may have been made or not" "$TMP/err"
token=$(sed -n 's/.*again with --token \([0-9a-f]*\):.*/\1/p' "$TMP/err")
check "... with the token to submit again under ($token)" [ ${#token} = 32 ]
MOKU_TIMEOUT=1 timeout 20 "$MOKU" submit --token "$token" -N lost job.sh >"$TMP/out2" 2>"$TMP/err2"
check "... a second try while it is still stopped is told the same, with the same token" \
    grep -q -- "--token $token:" "$TMP/err2"
# Fill the daemon's queue of connections (128) with clients that wait: a
# client after them cannot even connect, and must not wait for ever.
i=0
while [ $i -lt 140 ]; do
    MOKU_TIMEOUT=60 "$MOKU" showq >/dev/null 2>&1 &
    holders="$holders $!"
    i=$((i + 1))
done
# Full: as many connections wait to be accepted as the socket's backlog
# (ss: Recv-Q and Send-Q of a listening socket).
queue_full() { ss -xlH src "$H/moku.sock" | awk '{ exit !($3 >= $4 && $4 > 0) }'; }
wait_for 10 queue_full || fail "the connection queue did not fill"
t0=$(date +%s)
MOKU_TIMEOUT=2 timeout 20 "$MOKU" showq >"$TMP/out" 2>"$TMP/err"
rc=$?
t1=$(date +%s)
check "with its connection queue full, a client gives up after MOKU_TIMEOUT too (took $((t1 - t0)) s)" \
    sh -c "[ $rc = 1 ] && [ $((t1 - t0)) -le $GIVEUP ]"
check "... saying the daemon took no connection" grep -q "took no connection within 2000 ms" "$TMP/err"
for p in $holders; do kill "$p" 2>/dev/null; done
holders=""

kill -CONT "$pid"
i=0
while [ $i -lt 50 ] && [ "$(total)" != 2 ]; do
    sleep 0.1
    i=$((i + 1))
done
check "after SIGCONT the daemon made the job it had been sent (once: 2 jobs)" [ "$(total)" = 2 ]
id=$(timeout 5 "$MOKU" submit --token "$token" -N lost job.sh 2>"$TMP/err")
check "submitting again with --token answers that job's id (2, got $id)" [ "$id" = 2 ]
check "... and makes no second job" [ "$(total)" = 2 ]
run submit --token short job.sh
check "a malformed --token is a usage error, exit 2" sh -c "[ $rc = 2 ] && grep -q -- \"--token 'short'\" '$TMP/err'"
MOKU_TIMEOUT=x timeout 5 "$MOKU" showq >/dev/null 2>"$TMP/err"
rc=$?
check "a malformed MOKU_TIMEOUT is refused, named (exit 2)" \
    sh -c "[ $rc = 2 ] && grep -q \"MOKU_TIMEOUT 'x'\" '$TMP/err'"
done_checks
