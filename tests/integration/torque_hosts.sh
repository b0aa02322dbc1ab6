#!/bin/sh
# qsub with host names against the real daemon: nodes=HOST:ppn=P runs on
# that host while others are free (checkjob's HostList and allocation,
# qstat -f's exec_host), a + group of hosts, a #PBS directive, PBS Pro's
# -l host=, an unknown host and a mix of counts and hosts refused with the
# reason, a job for a host that is down waiting with checkjob saying so,
# and a job waiting for its busy host kept across a daemon restart
# and run there.
. tests/integration/lib.sh

. tests/integration/lib_torque.sh
torque_serve 'RMPOLLINTERVAL 1\nNODECFG[n1] PROCS=4\nNODECFG[n2] PROCS=4\nNODECFG[n3] PROCS=4\nNODECFG[n4] PROCS=4\nNODECFG[n5] PROCS=4 STATE=Down\nLOGLEVEL 3\n' qsub qstat
field() { timeout 5 "$TMP/bin/qstat" -f "$1" | sed -n "s/^    $2 = //p"; }
sub() {
    t qsub "$@"
    jid=$(sed -n 's/^\([0-9]*\)\..*/\1/p' "$TMP/out")
}
printf '#!/bin/sh\nsleep 6\n' >long.sh
printf '#!/bin/sh\n#PBS -l nodes=n1:ppn=1+n4:ppn=2\nsleep 6\n' >plus.sh

sub -l nodes=n3:ppn=2 long.sh
ja=$jid
check "nodes=n3:ppn=2 accepted" sh -c "[ $rc = 0 ] && [ -n '$ja' ]"
check "... runs" wait_for 10 is "$ja" Running
check "... on n3 alone, 2 processors (exec_host)" [ "$(field "$ja" exec_host)" = "n3/0-1" ]
check "... checkjob: its host list and allocation" \
    sh -c "timeout 5 '$MOKU' checkjob $ja | grep -q '^HostList: \[n3:2\]\$' && timeout 5 '$MOKU' checkjob $ja | grep -q '^\[n3:2\]\$'"

sub plus.sh
jb=$jid
check "#PBS -l nodes=n1:ppn=1+n4:ppn=2 runs" wait_for 10 is "$jb" Running
check "... on n1 (1) and n4 (2)" [ "$(field "$jb" exec_host)" = "n1/0+n4/0-1" ]

sub -l host=n2 long.sh
jc=$jid
check "-l host=n2 runs" wait_for 10 is "$jc" Running
check "... on n2" [ "$(field "$jc" exec_host)" = "n2/0" ]

sub -l nodes=n5 long.sh
jdown=$jid
sleep 2 # iterations go by
check "a host that is down: accepted, the job waits" sh -c "[ $rc = 0 ] && [ '$(state "$jdown")' = Idle ]"
check "... checkjob says why" sh -c "timeout 5 '$MOKU' checkjob $jdown | grep -q 'host n5 it asks for is Down'"

t qsub -l nodes=n9:ppn=1 long.sh
check "an unknown host: refused with the reason" \
    sh -c "[ $rc != 0 ] && grep -q 'no node named n9' $TMP/err && [ ! -s $TMP/out ]"
t qsub -l nodes=2:ppn=4+n3:ppn=1 long.sh
check "counts and hosts mixed: refused with the reason" \
    sh -c "[ $rc != 0 ] && grep -q 'mixes node counts and host names' $TMP/err"
t qsub -l nodes=n3:ppn=5 long.sh
check "more processors than the host has: refused" \
    sh -c "[ $rc != 0 ] && grep -q 'node n3 has 4 processors' $TMP/err"

# n3 full: a job for n3 waits while n2 and n4 have room, and keeps its
# hosts across a restart.
sub -l nodes=n3:ppn=2 long.sh
jd=$jid
sub -l nodes=n3:ppn=3 long.sh
je=$jid
sleep 2 # iterations go by
check "a job for a full host waits, though others are free" is "$je" Idle
kill "$pid"
wait "$pid" 2>/dev/null
torque_start
check "after a restart it still asks for n3" \
    sh -c "timeout 5 '$MOKU' checkjob $je | grep -q '^HostList: \[n3:3\]\$'"
check "... and runs there once n3 has room" wait_for 30 is "$je" Running
check "... on n3 alone" [ "$(field "$je" exec_host)" = "n3/0-2" ]
done_checks
