#!/bin/sh
# qsub as Torque's and PBS Pro's users and their client tools call it,
# against the real daemon: the job scripts such tools write (tests/data/pbs/)
# submitted and seen to run, 12.host printed, Torque's node groups and PBS
# Pro's select=/place= read into the request, an unknown queue and an
# unknown host refused with the reason, options moku cannot honour warned of on
# stderr, -l nice and vmem applied to the job's processes, -o DIR/ and
# -o host:path, and a walltime kill reported as 271.
. tests/integration/lib.sh

DATA=$(pwd)/tests/data/pbs
. tests/integration/lib_torque.sh
torque_serve 'RMPOLLINTERVAL 1\nNODECFG[n1] PROCS=2\nNODECFG[n2] PROCS=2\nCLASSCFG[batch] PRIORITY=10\nLOGLEVEL 3\n' \
    qsub qstat
is_running() { [ "$(state "$1")" = Running ]; }
ended() { case $(state "$1") in Completed | Removed) true ;; *) false ;; esac; }
field() { timeout 5 "$TMP/bin/qstat" -f "$1" | sed -n "s/^    $2 = //p"; }

# dask-jobqueue's PBSCluster header: select=, -o/-e a directory.
mkdir logs
t qsub "$DATA/dask_pbscluster.sh"
jd=$(sed -n 's/^\([0-9]*\)\..*/\1/p' "$TMP/out")
check "qsub prints Torque's id, 12.host" sh -c "[ $rc = 0 ] && grep -q '^[0-9][0-9]*\\.$HOST\$' $TMP/out"
check "... and nothing on stderr for a script it honours whole" [ ! -s "$TMP/err" ]
check "select=1:ncpus=2:mem=954MB is nodes=1:ppn=2 with 954 MB" \
    sh -c "[ '$(field "$jd" Resource_List.nodes)' = 1:ppn=2 ] && [ '$(field "$jd" Resource_List.mem)' = 954mb ]"
check "the dask worker's job runs to its end" wait_for 20 ended "$jd"
check "-o logs/ and -e logs/: Torque's names inside the directory; PBS_JOBID is qsub's 12.host" \
    sh -c "grep -q '^worker $jd\\.$HOST on ' logs/dask-worker.o$jd && [ -f logs/dask-worker.e$jd ]"

# Torque's node groups, pmem, -k (warned of).
t qsub "$DATA/torque_groups.sh"
jg=$(sed -n 's/^\([0-9]*\)\..*/\1/p' "$TMP/out")
check "nodes=1:ppn=1+1:ppn=1 accepted, -k warned of on stderr with its line" \
    sh -c "[ $rc = 0 ] && grep -q 'torque_groups.sh:6: #PBS -k: warning: oe' $TMP/err"
check "... read as nodes=2:ppn=1, pmem made the job's memory" \
    sh -c "[ '$(field "$jg" Resource_List.nodes)' = 2:ppn=1 ] && [ '$(field "$jg" Resource_List.mem)' = 200mb ]"
check "... it runs on two nodes" wait_for 20 ended "$jg"
check "... its node file names n1 and n2" grep -q '^n1 n2 $' "groups.o$jg"

# PBS Pro: select of two chunks, place=scatter, -o localhost:path.
mkdir out
t qsub "$DATA/pbspro_scatter.sh"
jp=$(sed -n 's/^\([0-9]*\)\..*/\1/p' "$TMP/out")
check "PBS Pro's select/place script accepted, nothing to warn of" \
    sh -c "[ $rc = 0 ] && [ ! -s $TMP/err ]"
check "... it runs" wait_for 20 ended "$jp"
check "... on two distinct nodes, its output at the local host:path" sh -c "head -1 out/scatter.txt | grep -qx 2"
check "... as the group -W group_list names" sh -c "sed -n 2p out/scatter.txt | grep -qx daemon"
t qsub -W group_list=nosuchgroup "$DATA/torque_groups.sh"
check "-W group_list of no group: refused" sh -c "[ $rc = 1 ] && grep -q 'group_list=nosuchgroup: no such group' $TMP/err"

# Groups of different sizes: the processors, with no per-node shape, said so.
t qsub -h -l nodes=1:ppn=2+1:ppn=1 "$DATA/torque_groups.sh"
jx=$(sed -n 's/^\([0-9]*\)\..*/\1/p' "$TMP/out")
check "nodes=1:ppn=2+1:ppn=1: 3 processors, with a warning" \
    sh -c "[ $rc = 0 ] && grep -q 'groups with different ppn are asked for as 3 processors' $TMP/err && timeout 5 '$MOKU' checkjob $jx | grep -q '^Total Tasks: 3\$'"

# Refusals: Torque's message and code for a queue the server lacks; unknown hosts.
t qsub -q nosuch "$DATA/torque_groups.sh"
check "qsub -q nosuch: Torque's 'Unknown queue', exit 170" \
    sh -c "[ $rc = 170 ] && grep -q '^qsub: submit error (Unknown queue MSG=requested queue not found: nosuch)\$' $TMP/err && [ ! -s $TMP/out ]"
t qsub -q batch -h "$DATA/torque_groups.sh"
check "qsub -q batch (a CLASSCFG class): accepted" sh -c "[ $rc = 0 ] && grep -q '\\.$HOST\$' $TMP/out"
t qsub -l nodes=n9:ppn=1 "$DATA/torque_groups.sh"
check "nodes=n9, a host the daemon does not have: refused, naming it" \
    sh -c "[ $rc != 0 ] && grep -q 'no node named n9' $TMP/err && [ ! -s $TMP/out ]"
t qsub -h -J 1-4 "$DATA/torque_groups.sh"
check "qsub -J (PBS Pro arrays): the tasks made, the array's id answered as Torque's N[].host" \
    sh -c "[ $rc = 0 ] && grep -q '^[0-9]*\[\]\.$HOST\$' $TMP/out"
t qsub -X -I "$DATA/torque_groups.sh"
check "qsub -X: refused by qsub, naming X11" \
    sh -c "[ $rc = 1 ] && grep -q '^qsub: -X: X11 forwarding is not supported' $TMP/err && [ ! -s $TMP/out ]"
t qsub -t 5-1 "$DATA/torque_groups.sh"
check "qsub -t 5-1: the range refused by qsub, naming it" \
    sh -c "[ $rc = 1 ] && grep -q \"array range '5-1' runs down\" $TMP/err"
run submit -q nosuch -- "$DATA/torque_groups.sh"
check "moku submit -q nosuch: refused too, in moku's words" \
    sh -c "[ $rc = 170 ] && grep -q '^submit: submit error (Unknown queue' $TMP/err"

# -l nice and vmem (and pvmem, the smaller of the two): the job's processes
# run at that nice value, their address space limited, as pbs_mom does it.
# Below nice 0 only root or ADMIN1 may go (daemon.sh: a user is refused).
printf '#!/bin/sh\nnice\nulimit -v\nulimit -Hv\n' >limits.sh
t qsub -l nice=6,vmem=1gb,pvmem=300mb -N lim limits.sh
jl=$(sed -n 's/^\([0-9]*\)\..*/\1/p' "$TMP/out")
check "qsub -l nice=6,vmem=1gb,pvmem=300mb: accepted with no warning" \
    sh -c "[ $rc = 0 ] && [ ! -s $TMP/err ]"
check "... the job ran at nice 6 with a 300 MB address space (soft and hard)" \
    sh -c "i=0; while [ \$i -lt 100 ] && [ ! -s lim.o$jl ]; do sleep 0.1; i=\$((i+1)); done; [ \"\$(tr '\n' ' ' <lim.o$jl)\" = '6 307200 307200 ' ]"
if [ "$(id -u)" = 0 ]; then
    t qsub -l nice=-3 -N limneg limits.sh
    jn=$(sed -n 's/^\([0-9]*\)\..*/\1/p' "$TMP/out")
    check "... root's job at nice -3" \
        sh -c "i=0; while [ \$i -lt 100 ] && [ ! -s limneg.o$jn ]; do sleep 0.1; i=\$((i+1)); done; [ \"\$(head -1 limneg.o$jn)\" = -3 ]"
else
    skip "a job below nice 0 needs the daemon to run as root"
fi

# A walltime kill: Torque's 271 (256 + SIGTERM) in qstat -f and checkjob.
jw=$(echo 'sleep 60' | timeout 5 "$MOKU" submit -l walltime=1)
check "a job past its walltime is killed" wait_for 30 ended "$jw"
check "... exit_status = 271 in qstat -f" [ "$(field "$jw" exit_status)" = 271 ]
check "... Completion Code: 271 in checkjob" sh -c "timeout 5 '$MOKU' checkjob $jw | grep -q 'Completion Code: 271'"

# naccesspolicy=singlejob: whole nodes of its own. One processor of a node
# busy, a two-node exclusive job waits (the free processors would hold it
# shared), and runs once the node is free.
ja=$(echo 'sleep 60' | timeout 5 "$MOKU" submit -l nodes=1:ppn=1)
wait_for 20 is_running "$ja"
jx=$(echo 'true' | timeout 5 "$MOKU" submit -l nodes=2:ppn=1,naccesspolicy=singlejob)
iterated "$H/log/maui.log" 2
check "naccesspolicy=singlejob: waits while a node is shared with another job" \
    [ "$(state "$jx")" = Idle ]
timeout 5 "$MOKU" canceljob "$ja" >/dev/null
check "... and runs once both nodes are free" wait_for 30 ended "$jx"
done_checks
