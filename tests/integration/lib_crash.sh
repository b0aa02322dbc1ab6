# The crash-point build's daemon for crash.sh and group.sh: sourced after
# lib.sh. Skips the script when there is no crash-point build (CRASHMOKU).
# Sets M (the build), a work directory with job.sh (it appends its id to
# RUNS when it starts, so that "ran twice" is seen, then sleeps JOB_SLEEP
# seconds), and the functions below. CRASH_POLL: the homes' RMPOLLINTERVAL.
CRASHMOKU=${CRASHMOKU:-build/crash/moku}
if [ ! -x "$CRASHMOKU" ]; then
    skip "no crash-point build ($CRASHMOKU; make check builds it)"
    done_checks
    exit 0
fi
M=$(cd "$(dirname "$CRASHMOKU")" && pwd)/$(basename "$CRASHMOKU")
mkdir -p "$TMP/work"
chmod 755 "$TMP" "$TMP/work"
cat >"$TMP/work/job.sh" <<SH
#!/bin/sh
echo "\$MOKU_JOBID" >>"\$RUNS"
sleep ${JOB_SLEEP:-0}
SH
chmod 755 "$TMP/work/job.sh"
cd "$TMP/work" || exit 1
pid=""

# fresh_home NAME: a new home, H set, its runs file empty.
fresh_home() {
    H=$TMP/$1
    mkdir -p "$H"
    printf 'RMPOLLINTERVAL %s\nNODECFG[n1] PROCS=2\nLOGLEVEL 1\n' "${CRASH_POLL:-1}" >"$H/maui.cfg"
    RUNS=$H/runs
    : >"$RUNS"
    export MOKU_HOME="$H" RUNS
}
# serve [VAR=VALUE]: the daemon of $H in the background, with that
# environment; waits until it answers (or has died trying).
serve() {
    env "$@" "$M" serve --home "$H" >>"$H/serve.out" 2>&1 &
    pid=$!
    i=0
    while [ $i -lt 50 ] && kill -0 "$pid" 2>/dev/null; do
        timeout 5 "$M" showq >/dev/null 2>&1 && return 0
        sleep 0.1
        i=$((i + 1))
    done
}
# died: wait (up to 10 s) for the daemon to have killed itself.
died() {
    i=0
    while [ $i -lt 100 ] && kill -0 "$pid" 2>/dev/null; do
        sleep 0.1
        i=$((i + 1))
    done
    ! kill -0 "$pid" 2>/dev/null
}
stop() {
    [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
    pid=""
}
trap 'stop; lib_cleanup' EXIT
