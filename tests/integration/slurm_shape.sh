#!/bin/sh
# moku on Slurm (issue 27): every start moku decides is one Slurm carries
# out, and Slurm's holds and cancels are moku's. A private cluster of four
# nodes of four CPUs and 1000 MB (tests/slurm/cluster.sh, memory booked:
# CR_Core_Memory, DefMemPerCPU 250), moku serve with RMCFG TYPE=SLURM, two
# real users. Each case checks Slurm's own records and that moku's log has
# no start Slurm did not carry out ("start failed", "start not carried out"):
#   uneven splits (-n 6, -n 6, -n 4 at once), moku's books as Slurm's;
#   four -n 1 --cpus-per-task=3 on four idle nodes at once;
#   jobs no node could hold refused at sbatch, saying why;
#   --exclusive beside a 12-CPU job: the fourth node, whole;
#   required nodes (sbatch -w, qsub nodes=n1+n3): there, books equal;
#   four --mem=800 on four 1000 MB nodes at once, a fifth waits;
#   canceljob of a queued job cancels it in Slurm;
#   a user's scontrol hold is moku's user hold, their release lets it run;
#   an administrator's hold is moku's system hold, and moku's holds show in
#   Slurm (JobHeldAdmin, the admin comment);
#   a requeue just after the start is a requeue, not a failed start;
#   canceljob and scancel of a running job end the same way (0:15);
#   a job Slurm could not launch is Removed in moku, not Completed;
#   a walltime kill shows the time the job ran in checkjob;
# then the property phase (tests/slurm/prop.sh): SLURM_PROP_N random mixed
# jobs (30; make soak: 200), every start carried out, moku's books Slurm's
# at every check.
# As root (useradd); the users' lock when run by hand.
. tests/integration/lib.sh

if [ "$(id -u)" != 0 ] || ! command -v slurmctld >/dev/null 2>&1 || ! command -v useradd >/dev/null 2>&1; then
    fail "slurm_shape: needs root, useradd and Slurm (scripts/deps.sh installs it)"
    done_checks
    exit 0
fi
. tests/integration/lib_slurm.sh
slurm_prepare
if ! sh tests/slurm/cluster.sh up "$B" 4 4 >"$TMP/up" 2>&1; then
    fail "slurm_shape: the private cluster came up"
    cat "$TMP/up"
    done_checks
    exit 0
fi
slurm_users mokusc mokusd
# all_running JOB...: every one RUNNING in Slurm at the same moment (10 s at most)
all_running() {
    t=0
    while [ $t -lt 100 ]; do
        r=1
        for j in "$@"; do [ "$(state "$j")" = RUNNING ] || r=0; done
        [ $r = 1 ] && return 0
        sleep 0.1
        t=$((t + 1))
    done
    return 1
}
# no_failed JOB...: moku's log has no start of theirs Slurm left undone
no_failed() {
    for j in "$@"; do
        grep -q " job $j: start failed\| job $j: start not carried out" "$H/log/maui.log" && return 1
    done
    return 0
}
# books JOB: "node cpus mem" lines, moku's (checkjob's JSON) then Slurm's
# (scontrol -d show job), sorted, each into a file; same when equal.
moku_books() {
    timeout 5 "$MOKU" checkjob --format=json "$1" | awk '
        /"allocation"/ { in_a = 1 }
        in_a && /"node"/ { gsub(/[",]/, "", $2); n = $2 }
        in_a && /"procs"/ { gsub(/,/, "", $2); p = $2 }
        in_a && /"mem"/ { gsub(/,/, "", $2); print n, p, $2 }' | sort
}
slurm_books() {
    scontrol -d show job "$1" | sed -n 's/^ *Nodes=\([^ ]*\) CPU_IDs=\([^ ]*\) Mem=\([0-9]*\).*/\1 \2 \3/p' |
        while read -r hl ids mem; do
            cpus=$(echo "$ids" | tr ',' '\n' | awk -F- '{ c += NF == 2 ? $2 - $1 + 1 : 1 } END { print c }')
            for h in $(scontrol show hostnames "$hl"); do echo "$h $cpus $mem"; done
        done | sort
}
same_books() {
    for j in "$@"; do
        [ "$(moku_books "$j")" = "$(slurm_books "$j")" ] || {
            echo "books of $j: moku $(moku_books "$j" | tr '\n' ';') slurm $(slurm_books "$j" | tr '\n' ';')" >&2
            return 1
        }
    done
}
start_moku() {
    "$MOKU" serve --home "$H" >>"$TMP/serve.log" 2>&1 &
    pid=$!
    t=0
    while [ $t -lt 50 ] && ! timeout 5 "$MOKU" showq >/dev/null 2>&1; do sleep 0.1; t=$((t + 1)); done
}
# pause; SUBMISSIONS; resume JOB...: scheduling stopped while they are made,
# so that one iteration decides them all (moku's own order, not the
# submission race); resumed once moku has taken every one in (10 s at most).
pause() { timeout 5 "$MOKU" schedctl -s >/dev/null; }
# knows JOB...: moku has every one (checkjob gives its state).
knows() {
    for j in "$@"; do timeout 5 "$MOKU" checkjob "$j" 2>/dev/null | grep -q '^State:' || return 1; done
}
resume() {
    wait_for 10 knows "$@" || echo "# moku did not take in all of $* within 10 s"
    timeout 5 "$MOKU" schedctl -r >/dev/null
}
# books_settle JOB...: until moku's books are Slurm's (a poll after the
# starts; 10 s at most): the check after it says whether they are.
books_settle() { wait_for 10 same_books "$@" 2>/dev/null; }
# shows JOB PATTERN: until moku's checkjob of the job has the pattern (10 s at most).
shows() { timeout 5 "$MOKU" checkjob "$1" 2>/dev/null | grep -q "$2"; }
# held_admin JOB: Slurm shows moku's hold (JobHeldAdmin, the admin comment).
held_admin() {
    scontrol -o show job "$1" | grep -q 'Reason=JobHeldAdmin' && scontrol -o show job "$1" | grep -q 'AdminComment=moku: BatchHold'
}
idle_all() { # wait until Slurm runs nothing (30 s at most)
    t=0
    while [ $t -lt 300 ] && [ -n "$(squeue -h -t R,CG -o %i)" ]; do sleep 0.1; t=$((t + 1)); done
}

# A job made impossible in Slurm before moku saw it (its memory raised
# past every node's by root): moku refuses it when it takes it in, and
# cancels it there, saying why.
z1=$(sub mokusc -n 1 -t 5 --wrap true)
scontrol update JobId="$z1" MinMemoryNode=1908

printf 'RMCFG[s] TYPE=SLURM\nRMPOLLINTERVAL 1\nLOGLEVEL 2\n' >"$H/maui.cfg"
start_moku
timeout 5 "$MOKU" showq >"$TMP/showq"
check "moku on a cluster of 4 nodes of 4 CPUs and 1000 MB: 16 processors" \
    grep -q 'of   16 Processors Active' "$TMP/showq"
wait_state "$z1" CANCELLED 50
check "a job no node could hold, taken in from Slurm: refused and cancelled there, saying why" \
    sh -c "[ '$(state "$z1")' = CANCELLED ] && grep -q 'job $z1 of mokusc refused: it could never run here: the job needs 1908 MB of memory on one node, the largest node has 1000 MB; cancelled there' '$H/log/maui.log'"

# Uneven splits: 6, 6 and 4 processors on 4 nodes of 4, at once. moku's
# split of each over its nodes is Slurm's, so that the next job fits.
pause
u1=$(sub mokusc -n 6 -t 5 --wrap 'sleep 6')
u2=$(sub mokusd -n 6 -t 5 --wrap 'sleep 6')
u3=$(sub mokusc -n 4 -t 5 --wrap 'sleep 6')
resume "$u1" "$u2" "$u3"
check "uneven splits (-n 6, -n 6, -n 4): all run at once" all_running "$u1" "$u2" "$u3"
books_settle "$u1" "$u2" "$u3"
check "... moku's books are Slurm's, node by node (CPUs and memory)" same_books "$u1" "$u2" "$u3"
check "... no start Slurm did not carry out" no_failed "$u1" "$u2" "$u3"
for j in $u1 $u2 $u3; do wait_state "$j" COMPLETED 200; done

# Four one-task jobs of three CPUs: a task's CPUs on one node, one node each.
pause
c1=$(sub mokusc -n 1 -c 3 -t 5 --wrap 'sleep 5')
c2=$(sub mokusc -n 1 -c 3 -t 5 --wrap 'sleep 5')
c3=$(sub mokusd -n 1 -c 3 -t 5 --wrap 'sleep 5')
c4=$(sub mokusd -n 1 -c 3 -t 5 --wrap 'sleep 5')
resume "$c1" "$c2" "$c3" "$c4"
check "four -n 1 --cpus-per-task=3 on four idle nodes: all run at once" all_running "$c1" "$c2" "$c3" "$c4"
nodes=$(for j in $c1 $c2 $c3 $c4; do field "$j" NodeList; done | sort -u | wc -l)
check "... each on a node of its own, 3 CPUs there ($nodes nodes)" \
    sh -c "[ $nodes = 4 ] && [ '$(field "$c1" NumCPUs)' = 3 ]"
timeout 5 "$MOKU" checkjob "$c1" >"$TMP/cj"
check "... checkjob: one task of 3 processors" \
    sh -c "grep -q '^Total Tasks: 1' $TMP/cj && grep -q 'Dedicated Resources Per Task: PROCS: 3' $TMP/cj"
check "... no start Slurm did not carry out" no_failed "$c1" "$c2" "$c3" "$c4"
for j in $c1 $c2 $c3 $c4; do wait_state "$j" COMPLETED 200; done

# Jobs no node could ever hold: refused at sbatch, saying why.
r1=$(sub mokusc -n 1 -c 8 -t 5 --wrap true)
check "--cpus-per-task=8 on nodes of 4: refused at sbatch, saying why" \
    sh -c "[ -z '$r1' ] && grep -q 'a task needs 8 CPUs on one node, the largest node of partition batch has 4' $TMP/sberr && grep -q 'Requested node configuration is not available' $TMP/sberr"
r2=$(sub mokusc -n 1 --mem=1908M -t 5 --wrap true)
check "--mem=1908M on nodes of 1000 MB: refused at sbatch" \
    sh -c "[ -z '$r2' ] && grep -q 'needs 1908 MB of memory on one node' $TMP/sberr"
r3=$(sub mokusc -n 17 -t 5 --wrap true)
check "-n 17 on 16 CPUs: refused at sbatch" \
    sh -c "[ -z '$r3' ] && grep -q 'asks for 17 tasks' $TMP/sberr"

# --exclusive beside a 12-CPU job: the fourth node, whole, for it alone.
pause
e1=$(sub mokusc -n 12 -t 5 --wrap 'sleep 8')
e2=$(sub mokusd -n 1 --exclusive -t 5 --wrap 'sleep 8')
e3=$(sub mokusd -n 1 -t 5 --wrap 'sleep 1')
resume "$e1" "$e2" "$e3"
check "--exclusive beside a 12-CPU job: both run at once" all_running "$e1" "$e2"
en=$(field "$e2" NodeList)
timeout 5 "$MOKU" checknode "$en" >"$TMP/cn"
check "... on a node of its own, whole: Slurm's 4 CPUs, moku's books the same" \
    sh -c "[ '$(field "$e2" NumCPUs)' = 4 ] && grep -q 'Dedicated  Resources: PROCS: 4' $TMP/cn"
sleep 1.5
check "... a third job waits (no CPU is free), not started and failed" \
    sh -c "[ '$(state "$e3")' = PENDING ] && timeout 5 '$MOKU' checkjob $e3 | grep -q '^State: Idle'"
check "... no start Slurm did not carry out" no_failed "$e1" "$e2" "$e3"
for j in $e1 $e2 $e3; do wait_state "$j" COMPLETED 300; done

# Required nodes (sbatch -w, and moku submit's nodes=HOST:ppn=P+..., which
# passes its hosts so): each job runs there though other nodes are free,
# moku's books Slurm's; a host list of different counts is refused.
cp "$MOKU" "$TMP/moku-client" && chmod 755 "$TMP/moku-client"
pause
w1=$(sub mokusc -w n3 -N 1 -n 2 -t 5 --wrap 'sleep 5')
w2=$(sub mokusd -w n2,n4 -N 2 --ntasks-per-node=2 -n 4 -t 5 --wrap 'sleep 5')
w3=$(cd "$TMP/out" && echo 'sleep 5' |
    runuser -u mokusc -- env MOKU_HOME="$H" timeout 10 "$TMP/moku-client" submit -l walltime=60,nodes=n1:ppn=1+n3:ppn=1)
resume "$w1" "$w2" "$w3"
check "sbatch -w n3 -n 2, -w n2,n4 --ntasks-per-node=2, qsub nodes=n1+n3: all run" \
    all_running "$w1" "$w2" "$w3"
check "... each on its hosts" \
    sh -c "[ '$(field "$w1" NodeList)' = n3 ] && [ '$(field "$w2" NodeList)' = 'n[2,4]' ] && [ '$(field "$w3" NodeList)' = 'n[1,3]' ]"
books_settle "$w1" "$w2" "$w3"
check "... moku's books are Slurm's" same_books "$w1" "$w2" "$w3"
check "... checkjob shows the host lists" \
    sh -c "timeout 5 '$MOKU' checkjob $w2 | grep -q '^HostList: \[n2:2\]\[n4:2\]' && timeout 5 '$MOKU' checkjob $w3 | grep -q '^HostList: \[n1:1\]\[n3:1\]'"
check "... no start Slurm did not carry out" no_failed "$w1" "$w2" "$w3"
(cd "$TMP/out" && echo true | runuser -u mokusc -- env MOKU_HOME="$H" timeout 10 "$TMP/moku-client" \
    submit -l walltime=60,nodes=n1:ppn=1+n3:ppn=2 >/dev/null 2>"$TMP/werr")
check "qsub nodes=n1:ppn=1+n3:ppn=2 under Slurm: refused, saying why" \
    grep -q 'Slurm cannot give the named hosts different processor counts' "$TMP/werr"
for j in $w1 $w2 $w3; do wait_state "$j" COMPLETED 200; done

# A walltime kill, running beside what follows (Slurm kills it at a
# minute): checkjob shows how long it ran, not 00:00:00.
wk=$(sub mokusd -n 1 -t 1 --mem=10 --wrap 'sleep 300')
wait_state "$wk" RUNNING 100

# Memory: four jobs of 800 MB on four nodes of 1000 MB (one beside the
# walltime job's 10 MB), at once; a fifth waits for memory, not CPUs.
pause
m1=$(sub mokusc -n 1 --mem=800 -t 5 --wrap 'sleep 6')
m2=$(sub mokusc -n 1 --mem=800 -t 5 --wrap 'sleep 6')
m3=$(sub mokusd -n 1 --mem=800 -t 5 --wrap 'sleep 6')
m4=$(sub mokusd -n 1 --mem=800 -t 5 --wrap 'sleep 6')
m5=$(sub mokusd -n 1 --mem=800 -t 5 --wrap 'sleep 1')
resume "$m1" "$m2" "$m3" "$m4" "$m5"
check "four --mem=800 on four nodes of 1000 MB: all run at once" all_running "$m1" "$m2" "$m3" "$m4"
mn=$(for j in $m1 $m2 $m3 $m4; do field "$j" NodeList; done | sort -u | wc -l)
sleep 1.5
check "... one a node ($mn nodes); a fifth waits, though 12 CPUs are free" \
    sh -c "[ $mn = 4 ] && [ '$(state "$m5")' = PENDING ] && timeout 5 '$MOKU' checkjob $m5 | grep -q '^State: Idle'"
check "... moku's books are Slurm's (memory too)" same_books "$m1" "$m2" "$m3" "$m4" "$wk"
wait_state "$m5" COMPLETED 300
fifth() { [ "$(state "$m5")" = COMPLETED ] && no_failed "$m1" "$m2" "$m3" "$m4" "$m5"; }
check "... the fifth runs when one ends; no start Slurm did not carry out" fifth

# Holds and cancels are one state. A full cluster keeps these queued.
idle_all
f1=$(sub mokusc -n 15 -t 5 --wrap 'sleep 30')
wait_state "$f1" RUNNING 100
q1=$(sub mokusc -n 4 -t 5 --wrap 'sleep 1')
q2=$(sub mokusc -n 4 -t 5 --wrap 'sleep 1')
q3=$(sub mokusd -n 4 -t 5 --wrap 'sleep 1')
q4=$(sub mokusd -n 4 -t 5 --wrap 'sleep 1')
wait_for 10 knows "$q1" "$q2" "$q3" "$q4"
timeout 5 "$MOKU" canceljob "$q1" >/dev/null
wait_state "$q1" CANCELLED 50
check "canceljob of a queued job: cancelled in Slurm" \
    sh -c "[ '$(state "$q1")' = CANCELLED ] && timeout 5 '$MOKU' checkjob $q1 | grep -q '^State: Removed'"
as mokusc scontrol hold "$q2"
wait_for 10 shows "$q2" '^State: UserHold'
timeout 5 "$MOKU" checkjob "$q2" >"$TMP/cj"
check "a user's scontrol hold: moku's user hold (checkjob: UserHold)" grep -q '^State: UserHold' "$TMP/cj"
as mokusd scontrol release "$q3" >"$TMP/err" 2>&1
check "... a user cannot release a job moku has not started" grep -qi 'denied' "$TMP/err"
scontrol hold "$q4"
wait_for 10 shows "$q4" '^State: SystemHold'
timeout 5 "$MOKU" checkjob "$q4" >"$TMP/cj"
check "an administrator's scontrol hold: moku's system hold" grep -q '^State: SystemHold' "$TMP/cj"
timeout 5 "$MOKU" sethold -b "$q3" >/dev/null
wait_for 10 held_admin "$q3"
check "moku's hold shows in Slurm: JobHeldAdmin, the admin comment says moku's state" held_admin "$q3"
scancel "$f1"
sleep 3
check "... with the cluster free, none of the held jobs starts" \
    sh -c "[ '$(state "$q2")$(state "$q3")$(state "$q4")' = PENDINGPENDINGPENDING ]"
as mokusc scontrol release "$q2"
wait_state "$q2" COMPLETED 200
check "... the user's own release: it runs" [ "$(state "$q2")" = COMPLETED ]
scontrol release "$q4"
wait_state "$q4" COMPLETED 200
check "... the administrator's release: it runs" [ "$(state "$q4")" = COMPLETED ]
timeout 5 "$MOKU" releasehold -a "$q3" >/dev/null
wait_state "$q3" COMPLETED 200
released() { [ "$(state "$q3")" = COMPLETED ] && no_failed "$q2" "$q3" "$q4"; }
check "... releasehold: it runs; no start Slurm did not carry out" released

# A requeue a second after the start is a requeue, whatever its timing.
rq=$(sub mokusc -n 2 -t 5 --wrap 'sleep 4')
wait_state "$rq" RUNNING 100
scontrol requeue "$rq"
t=0
while [ $t -lt 600 ] && [ "$(field "$rq" Restarts)" != 1 -o "$(state "$rq")" != COMPLETED ]; do
    sleep 0.1
    t=$((t + 1))
done
requeued() {
    [ "$(state "$rq")" = COMPLETED ] && [ "$(field "$rq" Restarts)" = 1 ] &&
        grep -q " job $rq requeued" "$H/log/maui.log" && no_failed "$rq"
}
check "scontrol requeue just after the start: it runs again (Restarts=1), a requeue, not a failed start" requeued
requeued || echo "# $rq: $(state "$rq") Restarts=$(field "$rq" Restarts); $(grep " job $rq " "$H/log/maui.log" | tr '\n' ';')"

# canceljob and scancel of a running job: the same end. The job execs its
# sleep: with a shell between, SIGTERM reaches the shell and its child at
# once, and whichever ends first decides Slurm's record (0:15, or the
# shell's 143:0 after its child's death) — for scancel as for moku's cancel
# (seen both ways in full runs). Without the shell both are 0:15.
k1=$(sub mokusc -n 1 -t 5 --wrap 'exec sleep 60')
k2=$(sub mokusc -n 1 -t 5 --wrap 'exec sleep 60')
all_running "$k1" "$k2"
sleep 1
timeout 5 "$MOKU" canceljob "$k1" >/dev/null
as mokusc scancel "$k2"
wait_state "$k1" CANCELLED 100
wait_state "$k2" CANCELLED 100
sleep 2
e_k1=$(sed -n "s/.* job $k1 ended: \(exit [0-9-]* [a-z]*\).*/\1/p" "$H/log/maui.log")
e_k2=$(sed -n "s/.* job $k2 ended: \(exit [0-9-]* [a-z]*\).*/\1/p" "$H/log/maui.log")
check "canceljob and scancel of a running job: Slurm's 0:15 both ($(field "$k1" ExitCode), $(field "$k2" ExitCode)), moku's 'exit 143 cancelled' both ('$e_k1', '$e_k2')" \
    sh -c "[ '$(field "$k1" ExitCode)' = 0:15 ] && [ '$(field "$k2" ExitCode)' = 0:15 ] && [ '$e_k1' = 'exit 143 cancelled' ] && [ '$e_k1' = '$e_k2' ]"

# A job Slurm could not launch (its output file's directory is missing:
# FAILED, reason JobLaunchFailure, 0:53) never ran: moku ends it Removed,
# as it does a failed start in the local resource manager, not Completed.
lf=$(sub mokusc -n 1 -t 5 -o /nonexistent-moku-test/out --wrap true)
wait_state "$lf" FAILED 200
removed() {
    t=0
    while [ $t -lt 100 ]; do
        timeout 5 "$MOKU" checkjob "$lf" 2>/dev/null | grep -q '^State: Removed' && return 0
        sleep 0.1
        t=$((t + 1))
    done
    return 1
}
check "a job Slurm could not launch ($(field "$lf" Reason)): checkjob shows it Removed, not Completed" removed

# The property phase (tests/slurm/prop.sh): random mixed jobs, every
# start carried out, the books Slurm's at every check; meanwhile the
# walltime job reaches its minute.
. tests/slurm/prop.sh
prop_run "${SLURM_PROP_N:-30}" "${SLURM_PROP_SEED:-1}" mokusc mokusd

# The walltime kill (a minute, then KillWait).
wait_state "$wk" TIMEOUT 900
sleep 2
timeout 5 "$MOKU" checkjob "$wk" >"$TMP/cj"
check "a walltime kill: checkjob's WallTime is the time it ran, not 00:00:00" \
    sh -c "grep -q '^WallTime: *00:0[01]:[0-9][0-9] of 00:01:00' $TMP/cj && ! grep -q '^WallTime: *00:00:00' $TMP/cj"
check "... and every start moku made in this run, Slurm carried out" \
    sh -c "! grep -q 'start failed\|start not carried out' '$H/log/maui.log'"
done_checks
