#!/bin/sh
# A restart restores the queue lean (issue 31): each queued job's script
# and environment (qsub -v) stay in the store until the job starts. What
# the commands show is the same before and after the restart; a lean
# record saved (qalter, qrls) keeps the stored script and environment; and
# the job, started after two restarts, runs its script with its -v
# variables.
. tests/integration/lib.sh

MOKU=$(cd "$(dirname "$MOKU")" && pwd)/$(basename "$MOKU")
H=$TMP/home
mkdir -p "$H" "$TMP/work"
printf 'RMPOLLINTERVAL 1\nNODECFG[n1] PROCS=1\n' >"$H/maui.cfg"
export MOKU_HOME="$H"
pid=""
up() { timeout 5 "$MOKU" showq >/dev/null 2>&1; }
start_daemon() {
    "$MOKU" serve --home "$H" >>"$TMP/serve.log" 2>&1 &
    pid=$!
    wait_for 20 up
}
trap 'stop_daemon; lib_cleanup' EXIT
# The views of job $j whose text must not change across a restart (the
# lines that count time are left out, and the priority, which grows with
# the time queued).
views() {
    {
        timeout 5 "$MOKU" qstat -f "$j" | grep -v '^    Priority = '
        timeout 5 "$MOKU" checkjob -v "$j" | grep -v -e 'Time Queued' -e 'StartPriority'
        timeout 5 "$MOKU" qstat -a "$j"
    } >"$1" 2>&1
}

start_daemon
cd "$TMP/work" || exit 1
printf '#!/bin/sh\necho "FOO=$FOO BAR=$BAR" >"%s/ran"\n' "$TMP/work" >job.sh
j=$(timeout 5 "$MOKU" submit -h -N lean -l walltime=60 -v FOO=one,BAR="two words" job.sh)
check "a held job with -v variables is queued" [ -n "$j" ]
views "$TMP/before"
stop_daemon
start_daemon
views "$TMP/after"
diff "$TMP/before" "$TMP/after" >&2
check "qstat -f, checkjob -v and qstat -a say the same after a restart" cmp -s "$TMP/before" "$TMP/after"
# The restored job's script and environment still count (MAXSUBMITBYTES),
# read with the lean rows: a limit 5 bytes above its script alone leaves no
# room for a 10-byte one.
printf 'RMPOLLINTERVAL 1\nNODECFG[n1] PROCS=1\nMAXSUBMITBYTES %d\n' $(($(wc -c <job.sh) + 5)) >"$H/maui.cfg"
timeout 10 "$MOKU" schedctl -R >/dev/null
printf 'sleep 1 # 10\n' | head -c 10 >small.sh
k=$(timeout 5 "$MOKU" submit -h small.sh 2>"$TMP/err")
check "MAXSUBMITBYTES counts the restored job's script and environment" \
    sh -c "[ -z '$k' ] && grep -q MAXSUBMITBYTES '$TMP/err'"
printf 'RMPOLLINTERVAL 1\nNODECFG[n1] PROCS=1\n' >"$H/maui.cfg"
timeout 10 "$MOKU" schedctl -R >/dev/null
timeout 5 "$MOKU" qalter -N lean2 "$j"
check "qalter of the restored (lean) job" sh -c "timeout 5 '$MOKU' qstat -a $j | grep -q lean2"
stop_daemon
start_daemon
check "... kept across another restart" sh -c "timeout 5 '$MOKU' qstat -a $j | grep -q lean2"
timeout 5 "$MOKU" qrls "$j"
ran() { [ -s "$TMP/work/ran" ]; }
wait_for 30 ran
check "the job runs its stored script with its -v variables, after two restores and a save" \
    grep -qx 'FOO=one BAR=two words' "$TMP/work/ran"
done_checks
