#!/bin/sh
# The example configurations an administrator installs
# (share/doc/moku/examples) are ones moku takes as they are:
# maui.cfg.local starts a daemon with the local resource manager that runs
# a job; maui.cfg.slurm starts a daemon driving a private Slurm cluster
# (tests/slurm/cluster.sh; its CONFIGFILE pointed there), which sees the
# cluster's nodes; maui.cfg (the simulator's) replays a trace. None of them
# draws a warning from the configuration reader. As root for the Slurm part.
. tests/integration/lib.sh

MOKU=$(cd "$(dirname "$MOKU")" && pwd)/$(basename "$MOKU")
chmod 755 "$TMP"
pid=""
B=$TMP/slurm
stop_all() {
    [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
    [ -d "$B" ] && sh tests/slurm/cluster.sh down "$B" 2>/dev/null
}
trap 'stop_all; lib_cleanup' EXIT
answers() { timeout 5 "$MOKU" showq --home "$1" >/dev/null 2>&1; }
# start HOME: moku serve there in the background, until it answers.
start() {
    "$MOKU" serve --home "$1" >"$TMP/serve.log" 2>&1 &
    pid=$!
    wait_for 10 answers "$1"
}
stop() {
    timeout 5 "$MOKU" schedctl -k --home "$1" >/dev/null 2>&1
    wait "$pid" 2>/dev/null
    pid=""
}
no_warnings() { ! grep -Eiq 'unknown|warning' "$1"; }

# The simulator's example.
printf '1 0 0 60 1 -1 -1 1 120 -1 1 1 1 1 1 -1 -1 -1\n' >"$TMP/one.swf"
"$MOKU" simulate --procs 4 --config examples/maui.cfg "$TMP/one.swf" >"$TMP/out" 2>"$TMP/err"
check "examples/maui.cfg: the simulator replays with it, no warning" sh -c "[ $? -eq 0 ] && [ ! -s '$TMP/err' ]"

# One machine.
H=$TMP/local
mkdir -p "$H" "$TMP/jobs"
cp examples/maui.cfg.local "$H/maui.cfg"
check "examples/maui.cfg.local: moku serve starts with it" start "$H"
check "... and logs no warning about it" no_warnings "$H/log/maui.log"
timeout 5 "$MOKU" showconfig --home "$H" RMPOLLINTERVAL JOBMAXOVERRUN >"$TMP/out" 2>&1
check "... its values in effect (showconfig)" sh -c "grep -q 'RMPOLLINTERVAL *0:30' '$TMP/out' && grep -q 'JOBMAXOVERRUN *0:05:00' '$TMP/out'"
[ $? -eq 0 ] || cat "$TMP/out"
timeout 5 "$MOKU" checknode --home "$H" n2 >"$TMP/out" 2>&1
check "... its virtual nodes (checknode n2)" grep -q 'n2' "$TMP/out"
echo 'echo example ran' | (cd "$TMP/jobs" && timeout 5 "$MOKU" submit --home "$H" -q short -l walltime=1:00 -o "$TMP/jobs/out") >"$TMP/id" 2>&1
check "... a job submitted to its class short" grep -Eq '^[0-9]+' "$TMP/id"
[ $? -eq 0 ] || cat "$TMP/id"
ran() { grep -q 'example ran' "$TMP/jobs/out" 2>/dev/null; }
check "... runs" wait_for 20 ran
stop "$H"

# A Slurm cluster.
if [ "$(id -u)" != 0 ] || ! command -v slurmctld >/dev/null 2>&1; then
    fail "examples/maui.cfg.slurm: needs root and Slurm (scripts/deps.sh installs it)"
    done_checks
    exit 0
fi
if ! sh tests/slurm/cluster.sh up "$B" 4 2 >"$TMP/up" 2>&1; then
    fail "examples/maui.cfg.slurm: the private Slurm cluster came up"
    cat "$TMP/up"
    done_checks
    exit 0
fi
H=$TMP/slurmhome
mkdir -p "$H"
sed "s|CONFIGFILE=/etc/slurm/slurm.conf|CONFIGFILE=$B/etc/slurm.conf|" examples/maui.cfg.slurm >"$H/maui.cfg"
check "examples/maui.cfg.slurm names slurm.conf (CONFIGFILE) as the test replaces it" grep -q "CONFIGFILE=$B/" "$H/maui.cfg"
check "examples/maui.cfg.slurm: moku serve starts with it on a Slurm cluster" start "$H"
[ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null && cat "$TMP/serve.log"
check "... and logs no warning about it" no_warnings "$H/log/maui.log"
timeout 5 "$MOKU" checknode --home "$H" ALL >"$TMP/out" 2>&1
check "... the nodes are Slurm's (checknode ALL: n1..n4)" sh -c "grep -q n1 '$TMP/out' && grep -q n4 '$TMP/out'"
# Its standing reservation is on weekdays: whether showres lists an instance
# depends on today; the configuration in effect has it whatever the day.
timeout 5 "$MOKU" showconfig --home "$H" >"$TMP/out" 2>&1
check "... its QOS and standing reservation in effect (showconfig)" \
    sh -c "grep -q 'QOSCFG\[high\] PRIORITY=1000' '$TMP/out' && grep -q 'SRCFG\[short\].*TASKCOUNT=8' '$TMP/out'"
stop "$H"
done_checks
