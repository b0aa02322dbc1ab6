#!/bin/sh
# The daemon as a batch system on one machine: moku serve on a temporary
# home, real short jobs through idle -> running -> completed, cancel, holds,
# a walltime kill, kill -9 in the middle of a burst of submissions and a
# restart with nothing lost, a second user denied what is not theirs,
# malformed and hostile requests, a bad reload refused, and clients
# without a daemon.
. tests/integration/lib.sh

MOKU=$(cd "$(dirname "$MOKU")" && pwd)/$(basename "$MOKU")
RAWSOCK=$(cd "$(dirname "${RAWSOCK:-build/tests/rawsock}")" && pwd)/rawsock
H=$TMP/home
mkdir -p "$H" "$TMP/work"
chmod 755 "$TMP" "$H" "$TMP/work"
# One virtual node of one processor: the second job must wait.
printf 'RMPOLLINTERVAL 1\nNODECFG[n1] PROCS=1\nLOGLEVEL 2\nFSPOLICY DEDICATEDPS\n' >"$H/maui.cfg"
export MOKU_HOME="$H"
pid=""

start_daemon() {
    "$MOKU" serve --home "$H" >>"$TMP/serve.log" 2>&1 &
    pid=$!
    i=0
    while [ $i -lt 50 ] && ! timeout 5 "$MOKU" showq >/dev/null 2>&1; do
        sleep 0.1
        i=$((i + 1))
    done
}
trap 'stop_daemon; lib_cleanup' EXIT

cat >"$TMP/work/gate.sh" <<SH
#!/bin/sh
# Runs until the test opens the gate.
while [ ! -f $TMP/work/go ]; do sleep 0.1; done
echo "job \$MOKU_JOBID (\$PBS_JOBID) on \$(cat \$PBS_NODEFILE) in \$(pwd)"
exit 3
SH
printf '#!/bin/sh\nsleep 30\n' >"$TMP/work/long.sh"
printf 'echo quick\n' >"$TMP/work/quick.sh"
chmod 755 "$TMP/work"/*.sh

run showq
check "no daemon: a clear message, not a hang" has_err "no moku daemon is running"
check "no daemon: exit 1" [ "$rc" = 1 ]

mkdir -p "$TMP/bad"
printf 'RMPOLLINTERVAL 1\nBACKFILLPOLICY SOMETIMES\n' >"$TMP/bad/maui.cfg"
run serve --home "$TMP/bad"
check "serve with a bad maui.cfg: exit 1, naming file and line" sh -c "[ $rc = 1 ] && grep -q 'maui.cfg:2' $TMP/err"
check "... and nothing listens" [ ! -S "$TMP/bad/moku.sock" ]
run serve --home "$TMP/bad" --bogus
check "serve with an unknown option: exit 2" sh -c "[ $rc = 2 ] && grep -q 'unknown option' $TMP/err"

start_daemon
check "the daemon answers" sh -c "timeout 5 '$MOKU' showq >/dev/null"

cd "$TMP/work" || exit 1
j1=$(timeout 5 "$MOKU" submit -N gate gate.sh)
check "submit prints the job id alone" [ "$j1" = 1 ]
j2=$(timeout 5 "$MOKU" submit quick.sh)
check "the running job is Running" wait_state "$j1" Running
check "the next job waits: Idle" wait_state "$j2" Idle
timeout 5 "$MOKU" showq >"$TMP/out"
check "showq lists the running job" grep -q "^$j1 .* Running " "$TMP/out"
timeout 5 "$MOKU" showq --format=json >"$TMP/out"
check "showq --format=json" grep -q '"state": "Idle"' "$TMP/out"
touch "$TMP/work/go"
check "the job completes" wait_state "$j1" Completed
check "its output names its ids (PBS_JOBID is Torque's id.server), node and directory" \
    grep -q "^job $j1 ($j1.$(hostname -s)) on n1 in $TMP/work\$" "$TMP/work/gate.o$j1"
check "the waiting job then runs and completes" wait_state "$j2" Completed
check "qsub -j-less default error file exists" [ -f "$TMP/work/quick.sh.e$j2" ]

# Cancel: a running job and an idle one behind it.
j3=$(timeout 5 "$MOKU" submit long.sh)
j4=$(timeout 5 "$MOKU" submit long.sh)
wait_state "$j3" Running
check "canceljob of an idle job" sh -c "timeout 5 '$MOKU' canceljob $j4 | grep -q \"job '$j4' cancelled\""
check "... it is Removed" wait_state "$j4" Removed
check "canceljob of a running job" sh -c "timeout 5 '$MOKU' canceljob $j3 | grep -q cancelled"
check "... its processes end and it is Removed" wait_state "$j3" Removed
j4b=$(timeout 5 "$MOKU" submit -h quick.sh)
timeout 5 "$MOKU" canceljob --format=json "$j4b" >"$TMP/out"
check "canceljob --format=json" grep -q "\"job '$j4b' cancelled\"" "$TMP/out"
run canceljob 999
check "canceljob of an unknown job: Maui's message, exit 1" sh -c "grep -q \"cannot locate job '999'\" $TMP/err && [ $rc = 1 ]"

# Holds.
j5=$(timeout 5 "$MOKU" submit -h quick.sh)
check "submit -h: UserHold" wait_state "$j5" UserHold
timeout 5 "$MOKU" releasehold "$j5" >/dev/null
check "releasehold: it runs to completion" wait_state "$j5" Completed
j6=$(timeout 5 "$MOKU" submit long.sh)
wait_state "$j6" Running >/dev/null
j7=$(timeout 5 "$MOKU" submit quick.sh)
timeout 5 "$MOKU" sethold "$j7" >/dev/null
check "sethold on an idle job" wait_state "$j7" UserHold
timeout 5 "$MOKU" canceljob "$j6" "$j7" >/dev/null

# Suspend and resume a running job (the processes stop and go on).
j12=$(timeout 5 "$MOKU" submit long.sh)
wait_state "$j12" Running >/dev/null
timeout 5 "$MOKU" mjobctl -s "$j12" >/dev/null
check "mjobctl -s: Suspended" wait_state "$j12" Suspended
# The supervisor writes job.pgid after it forks the job, which may be after
# the daemon has said Running (its pid file comes first) and Suspended (the
# marker, at once): on a loaded machine, wait for the file, not a guess.
wait_for 10 test -s "$H/spool/$j12/job.pgid"
pg=$(cat "$H/spool/$j12/job.pgid" 2>/dev/null)
# pg_states PGID: the state letters of the process group's processes.
pg_states() { ps -e -o pgid=,stat= | awk -v g="$1" '$1 == g { printf "%s", substr($2, 1, 1) }'; }
pg_stopped() { case $(pg_states "$1") in *T*) return 0 ;; esac; return 1; }
pg_running() { case $(pg_states "$1") in "" | *T*) return 1 ;; esac; }
check "... its processes are stopped" wait_for 5 pg_stopped "$pg"
timeout 5 "$MOKU" mjobctl -r "$j12" >/dev/null
check "mjobctl -r: Running again" wait_state "$j12" Running
check "... its processes run" wait_for 5 pg_running "$pg"
timeout 5 "$MOKU" canceljob "$j12" >/dev/null
wait_state "$j12" Removed >/dev/null

# Walltime: SIGTERM at the limit.
j8=$(timeout 5 "$MOKU" submit -l walltime=1 long.sh)
check "a job past its walltime is killed, and Removed (as Maui shows it)" wait_state "$j8" Removed 8
check "... checkjob says it exceeded its wallclock limit" \
    sh -c "timeout 5 '$MOKU' checkjob $j8 | grep -q 'job exceeded wallclock limit'"
check "... and its error file has Torque's line" \
    grep -q "^=>> PBS: job killed: walltime [0-9]* exceeded limit 1\$" "long.sh.e$j8"
# A job that made its error file a FIFO: the line is not written (it would
# block), and the job still ends at once (found by a review: the
# supervisor once waited forever, the job Running and uncancellable).
jf=$(printf 'rm -f fifo.err; mkfifo fifo.err; sleep 100\n' | timeout 5 "$MOKU" submit -e fifo.err -l walltime=1)
check "a walltime kill with the error file a FIFO: the job still ends, Removed" wait_state "$jf" Removed 12
rm -f fifo.err

# kill -9 in the middle of a burst of submissions; nothing acknowledged is lost.
: >"$TMP/ids"
(
    n=0
    while [ $n -lt 40 ]; do
        timeout 5 "$MOKU" submit quick.sh >>"$TMP/ids" 2>/dev/null
        n=$((n + 1))
    done
) &
burst=$!
# In the middle of it: once a few are acknowledged.
acked() { [ "$(wc -l <"$TMP/ids")" -ge "$1" ]; }
wait_for 10 acked 3
kill -9 "$pid"
wait "$pid" 2>/dev/null
pid=""
wait "$burst"
before=$(wc -l <"$TMP/ids")
start_daemon
lost=0
for id in $(cat "$TMP/ids"); do
    s=$(state "$id")
    [ -n "$s" ] || lost=$((lost + 1))
done
check "kill -9 during a burst: every acknowledged job ($before) is still there" [ "$lost" = 0 ]
last=$(tail -n 1 "$TMP/ids")
check "... and they all run to completion after the restart" wait_state "$last" Completed 30

check "a job that ended before the restart: checkjob gives its exit code" sh -c "timeout 5 '$MOKU' checkjob $j1 | grep -q 'Completion Code: 3'"

timeout 5 "$MOKU" showstats >"$TMP/out"
check "showstats after a restart counts the jobs completed before it" grep -Eq '^Successful/Completed Jobs: +[0-9]+/[1-9]' "$TMP/out"
timeout 5 "$MOKU" checknode n1 --format=json >"$TMP/out"
check "checknode n1 --format=json" grep -q '"name": "n1"' "$TMP/out"

# A job running while the daemon dies is found again, and its fairshare
# usage is neither lost nor stopped. With the one job of one processor
# running, usage grows by exactly the seconds between two answers' as_of
# times, the daemon's downtime included: time lost would show as usage
# short of that. (Compared with as_of, not the wall clock, so that a
# loaded machine's late answers do not count as lost time.)
j9=$(timeout 5 "$MOKU" submit long.sh)
wait_state "$j9" Running >/dev/null
state_moved() { s1=$(fs_state) && [ -n "$s1" ] && [ "$s1" != "$s0" ]; }
s0=$(fs_state)
wait_for 10 state_moved
kill -9 "$pid"
wait "$pid" 2>/dev/null
down=$(date +%s)
sleep 2 # the daemon down for 2 s: the time to be counted, not a wait
start_daemon
check "a running job survives a daemon restart" wait_state "$j9" Running
# An answer counted past the restart: its interval from s1 spans the downtime.
past_restart() { s2=$(fs_state) && [ -n "$s2" ] && [ "${s2%% *}" -gt $((down + 2)) ]; }
wait_for 10 past_restart
usage_exact() {
    echo "$s1 $s2" | awk '{ exit !($4 - $2 >= $3 - $1 - 0.5 && $4 - $2 <= $3 - $1 + 0.5) }'
}
check "fairshare usage survives kill -9 and counts the time the daemon was down (as_of usage: $s1, then $s2; down at $down)" \
    usage_exact
timeout 5 "$MOKU" canceljob "$j9" >/dev/null
check "... and can be cancelled afterwards" wait_state "$j9" Removed 8

# Malformed and hostile requests: errors, and the daemon keeps serving.
S="$H/moku.sock"
"$RAWSOCK" "$S" frame 'not json' >"$TMP/out"
check "not JSON: an error reply" grep -q '"bad request: not valid JSON"' "$TMP/out"
"$RAWSOCK" "$S" frame '{"cmd":"showq","args":"-r"}' >"$TMP/out"
check "args not an array: an error reply" grep -q 'must be an array' "$TMP/out"
"$RAWSOCK" "$S" frame '{"cmd":"rm -rf /"}' >"$TMP/out"
check "unknown command: an error reply" grep -q 'unknown command' "$TMP/out"
"$RAWSOCK" "$S" frame '{"cmd":"submit","job":{"script":"echo","name":"x","cwd":"relative"}}' >"$TMP/out"
check "a submit with a bad field is refused" grep -q '"ok":false' "$TMP/out"
# Pipelining: a batch on one connection is answered in order; the showq in
# the middle sees the two submissions before it (durable, committed before
# it acted) and not the one after it, which is read once the showq's reply
# is sent.
sub='{"cmd":"submit","job":{"name":"pipe","cwd":"/tmp","script":"true\n","tasks":1,"ppn":1,"nodes":0,"hold":true}}'
"$RAWSOCK" "$S" batch "$sub" "$sub" '{"cmd":"showq","args":[]}' "$sub" >"$TMP/out"
ids=$(sed -n 's/.*"output":"\([0-9]*\)\\n".*/\1/p' "$TMP/out" | tr '\n' ' ')
batch_ok() {
    [ $# = 3 ] && [ "$(wc -l <"$TMP/out")" = 4 ] && sed -n 3p "$TMP/out" | grep -qF "\\n$1 " &&
        sed -n 3p "$TMP/out" | grep -qF "\\n$2 " && ! sed -n 3p "$TMP/out" | grep -qF "\\n$3 "
}
check "a pipelined batch: replies in order, the showq between sees what came before it ($ids)" batch_ok $ids
for id in $ids; do timeout 5 "$MOKU" canceljob "$id" >/dev/null; done
"$RAWSOCK" "$S" garbage
"$RAWSOCK" "$S" huge
"$RAWSOCK" "$S" short
"$RAWSOCK" "$S" idle &
idle=$!
check "after garbage, oversized, short and idle connections it still answers" sh -c "timeout 5 '$MOKU' showq >/dev/null"
wait "$idle"

# Permissions: a second user may look, not touch.
if [ "$(id -u)" = 0 ] && command -v useradd >/dev/null 2>&1 && command -v runuser >/dev/null 2>&1; then
    u=mokutest
    add_user "$u"
    # The checkout may sit under a directory only root may enter (/root): the
    # second user runs a copy of the client.
    cp "$MOKU" "$TMP/moku-client" && chmod 755 "$TMP/moku-client"
    UMOKU="$TMP/moku-client"
    j10=$(timeout 5 "$MOKU" submit long.sh)
    as_user() { runuser -u "$u" -- env MOKU_HOME="$H" timeout 5 "$UMOKU" "$@"; }
    check "a second user may look at the queue" sh -c "$(command -v runuser) -u $u -- env MOKU_HOME=$H '$UMOKU' showq >/dev/null"
    as_user canceljob "$j10" >"$TMP/out" 2>&1
    check "... may not cancel another user's job" grep -q "not authorized to cancel job '$j10'" "$TMP/out"
    as_user schedctl -s >"$TMP/out" 2>&1
    check "... may not stop the scheduler" grep -q "not authorized" "$TMP/out"
    as_user setspri 100 "$j10" >"$TMP/out" 2>&1
    check "... may not set a system priority" grep -q "not authorized" "$TMP/out"
    timeout 5 "$MOKU" canceljob "$j10" >/dev/null
    printf '#!/bin/sh\nid -un\n' >"$TMP/work/who.sh"
    chmod 755 "$TMP/work/who.sh"
    mkdir -p "$TMP/uw" && chown "$u" "$TMP/uw"
    j11=$(cd "$TMP/uw" && runuser -u "$u" -- env MOKU_HOME="$H" timeout 5 "$UMOKU" submit "$TMP/work/who.sh")
    check "... a job the second user submits runs as that user" sh -c "i=0; while [ \$i -lt 50 ] && [ ! -s $TMP/uw/who.sh.o$j11 ]; do sleep 0.1; i=\$((i+1)); done; grep -qx $u $TMP/uw/who.sh.o$j11"
    as_user canceljob "$j11" >/dev/null 2>&1
    (cd "$TMP/uw" && runuser -u "$u" -- env MOKU_HOME="$H" timeout 5 "$UMOKU" submit -l nice=-5 "$TMP/work/who.sh") >"$TMP/out" 2>&1
    check "... may not ask for a nice value below 0 (-l nice=-5)" \
        sh -c "[ $? = 1 ] && grep -q 'nice=-5: only root or an ADMIN1 user may run a job below nice 0' $TMP/out"
else
    skip "the second-user tests need root, useradd and runuser"
fi

# Reload: a bad maui.cfg is refused and the running one kept.
cp "$H/maui.cfg" "$TMP/good.cfg"
printf 'RMPOLLINTERVAL banana\n' >>"$H/maui.cfg"
run schedctl -R
check "schedctl -R with a bad maui.cfg: refused with its error" sh -c "grep -q 'RMPOLLINTERVAL' $TMP/err && [ $rc = 1 ]"
cp "$TMP/good.cfg" "$H/maui.cfg"
check "... the daemon still serves" sh -c "timeout 5 '$MOKU' showq >/dev/null"
run schedctl -k
check "schedctl -k shuts the daemon down" sh -c "i=0; while [ \$i -lt 50 ] && kill -0 $pid 2>/dev/null; do sleep 0.1; i=\$((i+1)); done; ! kill -0 $pid 2>/dev/null"
pid=""
done_checks
