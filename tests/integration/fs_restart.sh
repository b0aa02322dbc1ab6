#!/bin/sh
# Fairshare usage across kill -9 when the running jobs did not start in the
# order of their ids: job 1 (held at first) starts after job 2. The
# restarted daemon adopts running jobs by id, and the ledger's clock only
# moves forward: adopted after job 1, job 2 used to accrue from job 1's
# start only, the seconds between the two starts lost. Usage readings are
# timed by the iterations that made them (as in daemon.sh): fresh_reading
# waits for the figure to change and bounds the iteration in [LO, HI].
. tests/integration/lib.sh

MOKU=$(cd "$(dirname "$MOKU")" && pwd)/$(basename "$MOKU")
H=$TMP/home
mkdir -p "$H" "$TMP/work"
chmod 755 "$TMP" "$H" "$TMP/work"
printf 'RMPOLLINTERVAL 1\nNODECFG[n1] PROCS=2\nLOGLEVEL 1\nFSPOLICY DEDICATEDPS\n' >"$H/maui.cfg"
export MOKU_HOME="$H"
pid=""
start_daemon() {
    "$MOKU" serve --home "$H" >>"$TMP/serve.log" 2>&1 &
    pid=$!
    i=0
    while [ $i -lt $((50 * TIME_SCALE)) ] && ! timeout 5 "$MOKU" showq >/dev/null 2>&1; do
        sleep 0.1
        i=$((i + 1))
    done
}
stop_daemon() {
    [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
    pid=""
}
trap 'stop_daemon; lib_cleanup' EXIT
state() { timeout 5 "$MOKU" checkjob "$1" 2>/dev/null | sed -n 's/^State: //p'; }
running() { [ "$(state "$1")" = Running ]; }
me=$(id -un)
fs_usage() {
    timeout 5 "$MOKU" diagnose -f --format=json | tr -d ' \n' |
        sed -n 's/.*"name":"'"$me"'","target":[^,]*,"mode":"[a-z]*","usage":[^,]*,"windows":\[\([0-9.e+]*\).*/\1/p'
}
now_s() { awk -v n="$(date +%s%N)" 'BEGIN { printf "%.3f", n / 1e9 }'; }
fresh_reading() {
    i=0
    old=""
    while [ -z "$old" ] && [ $i -lt $((100 * TIME_SCALE)) ]; do
        lo=$(now_s)
        old=$(fs_usage)
        [ -n "$old" ] || sleep 0.1
        i=$((i + 1))
    done
    while [ $i -lt $((100 * TIME_SCALE)) ]; do
        t=$(now_s)
        u=$(fs_usage)
        hi=$(now_s)
        if [ -n "$u" ] && [ "$u" != "$old" ]; then
            U=$u LO=$lo HI=$hi
            return 0
        fi
        [ -z "$u" ] || lo=$t
        sleep 0.1
        i=$((i + 1))
    done
    return 1
}

cd "$TMP/work" || exit 1
printf '#!/bin/sh\nsleep 60\n' >long.sh
chmod 755 long.sh
start_daemon
j1=$(timeout 5 "$MOKU" submit -h long.sh)
j2=$(timeout 5 "$MOKU" submit long.sh)
wait_for 10 running "$j2"
sleep 4 # job 2 runs alone for 4 s
timeout 5 "$MOKU" releasehold "$j1" >/dev/null
wait_for 10 running "$j1"
check "job $j1 (held) started after job $j2" running "$j1"
fresh_reading
u1=$U lo1=$LO hi1=$HI
kill -9 "$pid"
wait "$pid" 2>/dev/null
start_daemon
check "both jobs found running after kill -9 and a restart" sh -c "[ \"\$(timeout 5 '$MOKU' checkjob $j1 | sed -n 's/^State: //p')\" = Running ] && [ \"\$(timeout 5 '$MOKU' checkjob $j2 | sed -n 's/^State: //p')\" = Running ]"
fresh_reading
u2=$U lo2=$LO hi2=$HI
# Two processors busy: the usage grows 2 a second between the readings'
# iterations (the whole seconds: within 2 of the bounds).
check "fairshare usage of jobs adopted out of start order: none lost, none twice ($u1 made in [$lo1, $hi1], $u2 in [$lo2, $hi2])" \
    awk -v a="$u1" -v b="$u2" -v l1="$lo1" -v h1="$hi1" -v l2="$lo2" -v h2="$hi2" \
    'BEGIN { d = b - a; exit !(a != "" && b != "" && d > 2 * (l2 - h1) - 2 && d < 2 * (h2 - l1) + 2) }'
timeout 5 "$MOKU" canceljob "$j1" "$j2" >/dev/null
stop_daemon
