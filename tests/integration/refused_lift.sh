#!/bin/sh
# A job refused for ever by a limit its request alone goes over (issue 31,
# mix31k: the whole-queue walk passes it by, cached per limits generation)
# runs once the daemon changes what refused it: its walltime (qalter -l),
# its QOS (setqos) or the limits (a reloaded maui.cfg). The daemon refuses
# such a job at submission, so each one is made so after it is queued: held
# at submission, then the limit lowered or the job changed, then released.
. tests/integration/lib.sh

MOKU=$(cd "$(dirname "$MOKU")" && pwd)/$(basename "$MOKU")
H=$TMP/home
mkdir -p "$H" "$TMP/work"
export MOKU_HOME="$H"
# cfg MAXPS: the configuration, the user's MAXPS as given (LOGLEVEL 3 logs each
# iteration: iterated).
cfg() {
    printf 'RMPOLLINTERVAL 1\nLOGLEVEL 3\nNODECFG[n1] PROCS=2\nQOSCFG[small] MAXPS=100\nQOSCFG[big] PRIORITY=1\n' >"$H/maui.cfg"
    printf 'USERCFG[DEFAULT] QLIST=big,small QDEF=big MAXPS=%s\n' "$1" >>"$H/maui.cfg"
}
cfg 1000
pid=""
up() { timeout 5 "$MOKU" showq >/dev/null 2>&1; }
stop_daemon() {
    [ -n "$pid" ] || return 0
    timeout 5 "$MOKU" schedctl -k >/dev/null 2>&1
    wait "$pid" 2>/dev/null
    pid=""
}
trap 'stop_daemon; lib_cleanup' EXIT
"$MOKU" serve --home "$H" >>"$TMP/serve.log" 2>&1 &
pid=$!
wait_for 20 up
cd "$TMP/work" || exit 1
# refused JOB: checkjob names the hard limit that keeps it from running.
refused() { timeout 5 "$MOKU" checkjob "$1" 2>&1 | grep -q 'violates active HARD MAXPS limit'; }
# done_ JOB: it ran and ended.
done_() { timeout 5 "$MOKU" checkjob "$1" 2>&1 | grep -q 'State: Completed'; }
reload() { timeout 5 "$MOKU" schedctl -R >/dev/null 2>&1; }

# qalter: the walltime brought under the limit.
a=$(echo true | timeout 5 "$MOKU" submit -h -l walltime=200)
cfg 100
reload
timeout 5 "$MOKU" qrls "$a"
check "a job whose walltime alone goes over MAXPS (lowered by a reload) is refused" \
    wait_for 10 refused "$a"
timeout 5 "$MOKU" qalter -l walltime=50 "$a"
check "... and runs once qalter brings its walltime under the limit" wait_for 20 done_ "$a"

# setqos: out of the QOS whose limit refuses it.
cfg 1000
reload
b=$(echo true | timeout 5 "$MOKU" submit -h -l walltime=200 -W x=QOS:big)
timeout 5 "$MOKU" setqos small "$b" >/dev/null
timeout 5 "$MOKU" qrls "$b"
check "a job moved to a QOS whose MAXPS its request alone goes over is refused" \
    wait_for 10 refused "$b"
timeout 5 "$MOKU" setqos big "$b" >/dev/null
check "... and runs once setqos moves it back" wait_for 20 done_ "$b"

# reload: the limit raised again.
c=$(echo true | timeout 5 "$MOKU" submit -h -l walltime=200)
cfg 100
reload
timeout 5 "$MOKU" qrls "$c"
check "a job refused for ever by a reloaded MAXPS stays refused" wait_for 10 refused "$c"
iterated "$H/log/maui.log" 2
check "... across iterations" refused "$c"
# Under whole-queue walks (limits of two kinds here: USERCFG and QOSCFG) such
# a job waits out of the queue after its second walk (parked, issue 31): still
# listed blocked by showq and counted by showstats, and a hold and release
# bring it back to be walked, refused again in the same words.
blocked_listed() { timeout 5 "$MOKU" showq -b 2>&1 | grep -q "^ *$1 .*MAXPS"; }
check "... listed blocked by showq -b while parked" blocked_listed "$c"
timeout 5 "$MOKU" qhold "$c" >/dev/null
timeout 5 "$MOKU" qrls "$c" >/dev/null
iterated "$H/log/maui.log" 2
check "... refused again after a hold and release" refused "$c"
check "... and listed blocked" blocked_listed "$c"
cfg 1000
reload
check "... and runs once a reload raises the limit" wait_for 20 done_ "$c"
stop_daemon
done_checks
