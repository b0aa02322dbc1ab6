#!/bin/sh
# Fairshare usage across kill -9 when the running jobs did not start in the
# order of their ids: job 1 (held at first) starts after job 2. The
# restarted daemon adopts running jobs by id, and the ledger's clock only
# moves forward: adopted after job 1, job 2 used to accrue from job 1's
# start only, the seconds between the two starts lost. Usage readings are
# compared by the time each is counted up to (fs_state's as_of), as in
# daemon.sh.
. tests/integration/lib.sh
. tests/integration/lib_torque.sh

torque_serve 'RMPOLLINTERVAL 1\nNODECFG[n1] PROCS=2\nLOGLEVEL 1\nFSPOLICY DEDICATEDPS\n'
running() { is "$1" Running; }
printf '#!/bin/sh\nsleep 60\n' >long.sh
chmod 755 long.sh
j1=$(timeout 5 "$MOKU" submit -h long.sh)
j2=$(timeout 5 "$MOKU" submit long.sh)
wait_for 10 running "$j2"
sleep 4 # job 2 runs alone for 4 s
timeout 5 "$MOKU" releasehold "$j1" >/dev/null
wait_for 10 running "$j1"
check "job $j1 (held) started after job $j2" running "$j1"
# A reading made with both running: its as_of after job 1's start.
both_running() { s1=$(fs_state) && [ -n "$s1" ] && [ "$s1" != "$s0" ]; }
s0=$(fs_state)
wait_for 10 both_running
kill -9 "$pid"
wait "$pid" 2>/dev/null
down=$(date +%s)
torque_start
check "both jobs found running after kill -9 and a restart" sh -c "[ \"\$(timeout 5 '$MOKU' checkjob $j1 | sed -n 's/^State: //p')\" = Running ] && [ \"\$(timeout 5 '$MOKU' checkjob $j2 | sed -n 's/^State: //p')\" = Running ]"
past_restart() { s2=$(fs_state) && [ -n "$s2" ] && [ "${s2%% *}" -gt "$down" ]; }
wait_for 10 past_restart
# Two processors busy: the usage grows exactly 2 a second between the two
# readings' as_of times, the restart included.
usage_exact() {
    echo "$s1 $s2" | awk '{ d = $4 - $2; w = 2 * ($3 - $1); exit !(d >= w - 0.5 && d <= w + 0.5) }'
}
check "fairshare usage of jobs adopted out of start order: none lost, none twice (as_of usage: $s1, then $s2)" \
    usage_exact
timeout 5 "$MOKU" canceljob "$j1" "$j2" >/dev/null
done_checks
