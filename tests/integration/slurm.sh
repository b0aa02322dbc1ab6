#!/bin/sh
# moku scheduling a real Slurm cluster (issue 15): a private cluster of four
# nodes on this machine (tests/slurm/cluster.sh: munged, slurmctld, four
# slurmd), moku serve with RMCFG TYPE=SLURM, jobs submitted with sbatch by
# two real users. Checked from Slurm's own records and the jobs' output:
# every job is held until moku releases it; USERCFG MAXJOB=1 runs each
# user's jobs one at a time while the two users run side by side; jobs run
# on the nodes moku chose; a user cannot release a job by hand; canceljob
# and scancel; kill -9 of moku with a job running and a restart; bad
# settings are clear errors. As root (useradd); skipped otherwise.
. tests/integration/lib.sh

if [ "$(id -u)" != 0 ] || ! command -v slurmctld >/dev/null 2>&1 || ! command -v useradd >/dev/null 2>&1; then
    skip "slurm: needs root, useradd and Slurm (scripts/deps.sh installs it)"
    done_checks
    exit 0
fi
. tests/integration/lib_slurm.sh
slurm_prepare
# A Slurm that does not hold new jobs: moku refuses to start, saying how.
if NO_HOLD_PLUGIN=1 sh tests/slurm/cluster.sh up "$B" 4 2 >"$TMP/up" 2>&1; then
    printf 'RMCFG[s] TYPE=SLURM CONFIGFILE=%s\n' "$B/etc/slurm.conf" >"$H/maui.cfg"
    "$MOKU" serve --home "$H" >"$TMP/err" 2>&1
    check "a Slurm without the job-submit plugin: refused at start-up, saying what to install" \
        sh -c "[ $? = 1 ] && grep -q 'no JobSubmitPlugins=lua' $TMP/err && grep -q 'contrib/slurm/job_submit.lua' $TMP/err"
    # The plugin named in slurm.conf, slurmctld not restarted since.
    echo "JobSubmitPlugins=lua" >>"$B/etc/slurm.conf"
    "$MOKU" serve --home "$H" >"$TMP/err" 2>&1
    check "... the plugin added to slurm.conf, slurmctld not restarted: refused, saying to restart it" \
        sh -c "[ $? = 1 ] && grep -q 'has JobSubmitPlugins=lua, but slurmctld runs without it' $TMP/err && grep -q 'restart slurmctld' $TMP/err"
else
    fail "slurm: a cluster without the plugin came up"
fi
sh tests/slurm/cluster.sh down "$B"
rm -rf "$B"
if ! sh tests/slurm/cluster.sh up "$B" 4 2 >"$TMP/up" 2>&1; then
    fail "slurm: the private cluster came up"
    cat "$TMP/up"
    done_checks
    exit 0
fi
ok "slurm: a private cluster of four nodes came up"
slurm_users mokusa mokusb
SUB_OUT=$TMP/out/%j.out
# A job that says where and when it ran.
cat >"$TMP/out/job.sh" <<'EOF'
#!/bin/sh
echo "$SLURMD_NODENAME $(date +%s.%N)"
sleep ${1:-2}
echo "end $(date +%s.%N)"
EOF
chmod 755 "$TMP/out/job.sh"
# cj JOB: moku's checkjob of it (nothing when moku has no such job).
cj() { timeout 5 "$MOKU" checkjob "$1" 2>/dev/null; }
# cj_has JOB PATTERN...: moku's checkjob of it has every pattern.
cj_has() {
    _j=$1
    shift
    cj "$_j" >"$TMP/cjw"
    for _p in "$@"; do grep -q -- "$_p" "$TMP/cjw" || return 1; done
}
showres_has() { timeout 5 "$MOKU" showres 2>/dev/null | grep -q "^$1"; }
logged() { grep -q -- "$1" "$H/log/maui.log"; }
start_moku() {
    "$MOKU" serve --home "$H" >>"$TMP/serve.log" 2>&1 &
    pid=$!
    t=0
    while [ $t -lt 50 ] && ! timeout 5 "$MOKU" showq >/dev/null 2>&1; do sleep 0.1; t=$((t + 1)); done
}

# Bad settings: clear errors at start-up.
printf 'RMCFG[s] TYPE=PBS\n' >"$H/maui.cfg"
"$MOKU" serve --home "$H" >"$TMP/err" 2>&1
check "RMCFG TYPE=PBS: refused at start-up, naming what moku drives" \
    sh -c "[ $? = 1 ] && grep -q 'RMCFG\[s\] TYPE=PBS: moku drives TYPE=LOCAL' $TMP/err"
printf 'RMCFG[s] TYPE=SLURM CONFIGFILE=%s/nowhere.conf\n' "$TMP" >"$H/maui.cfg"
"$MOKU" serve --home "$H" >"$TMP/err" 2>&1
check "RMCFG TYPE=SLURM with no slurm.conf: refused, naming it" \
    sh -c "[ $? = 1 ] && grep -q 'nowhere.conf: No such file' $TMP/err"
printf 'RMCFG[s] TYPE=SLURM\nNODECFG[n1] PROCS=2\n' >"$H/maui.cfg"
"$MOKU" serve --home "$H" >"$TMP/err" 2>&1
check "NODECFG with TYPE=SLURM: refused (the nodes are Slurm's)" \
    sh -c "[ $? = 1 ] && grep -q 'the nodes are Slurm' $TMP/err"

# Jobs are held before moku runs: nothing starts on its own.
a1=$(sub mokusa -n 1 -t 2 "$TMP/out/job.sh" 3)
a2=$(sub mokusa -n 1 -t 2 "$TMP/out/job.sh" 3)
b1=$(sub mokusb -n 2 -t 2 "$TMP/out/job.sh" 3)
b2=$(sub mokusb -n 1 -t 2 "$TMP/out/job.sh" 3)
held() { [ "$(state "$1")" = PENDING ] && scontrol -o show job "$1" | grep -q 'Priority=0 .*Reason=JobHeldUser'; }
all_held() { for j in $a1 $a2 $b1 $b2; do held "$j" || return 1; done; }
check "sbatch without moku: held (JobHeldUser, priority 0)" wait_for 10 all_held
as mokusa scontrol release "$a1" >"$TMP/err" 2>&1
check "... and its owner may not release it by hand" \
    sh -c "grep -qi 'denied' $TMP/err && [ '$(state "$a1")' = PENDING ]"

# LOGLEVEL 3: each iteration logged (iterated).
printf 'RMCFG[s] TYPE=SLURM\nRMPOLLINTERVAL 1\nLOGLEVEL 3\nUSERCFG[DEFAULT] MAXJOB=1\n' >"$H/maui.cfg"
start_moku
timeout 5 "$MOKU" showq >"$TMP/showq"
check "moku serve on Slurm: showq sees Slurm's 4 nodes and 8 processors" \
    grep -q 'of    8 Processors Active' "$TMP/showq"
timeout 5 "$MOKU" checkjob "$b1" >"$TMP/cj"
check "checkjob of an sbatch job: its user and processors from Slurm" \
    sh -c "grep -q 'Creds: *user:mokusb' $TMP/cj && grep -q '^Total Tasks: 2' $TMP/cj"
for j in $a1 $a2 $b1 $b2; do wait_state "$j" COMPLETED 300; done
check "all four jobs ran to completion" \
    sh -c "[ '$(state "$a1")$(state "$a2")$(state "$b1")$(state "$b2")' = COMPLETEDCOMPLETEDCOMPLETEDCOMPLETED ]"
# From the jobs' own output: start and end times.
t_start() { awk 'NR == 1 { print $2 }' "$TMP/out/$1.out"; }
t_end() { awk '/^end/ { print $2 }' "$TMP/out/$1.out"; }
before() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a <= b) }'; }
ok_pair=0
before "$(t_end "$a1")" "$(t_start "$a2")" && before "$(t_end "$b1")" "$(t_start "$b2")" && ok_pair=1
check "MAXJOB=1 per user: each user's jobs one at a time (from the jobs' output)" [ $ok_pair = 1 ]
side=0
before "$(t_start "$a1")" "$(t_end "$b1")" && before "$(t_start "$b1")" "$(t_end "$a1")" && side=1
check "... while the two users' first jobs ran side by side" [ $side = 1 ]
# On a failure here, what moku and Slurm said of these jobs.
first_jobs() {
    grep -E " job ($a1|$a2|$b1|$b2) " "$H/log/maui.log"
    for j in $a1 $a2 $b1 $b2; do
        echo "$j: $(scontrol -o show job "$j" | tr ' ' '\n' | grep -E '^(NodeList|StartTime|EndTime|Restarts)=' | tr '\n' ' ')"
        echo "$j.out: $(tr '\n' ' ' <"$TMP/out/$j.out" 2>&1)"
    done
}
[ $side = 1 ] || first_jobs | sed 's/^/# /'
# Where: Slurm's NodeList is moku's choice, and the job ran there.
mnode=$(sed -n "s/.* job $a2 started on \([^:,]*\):1\(:[0-9]*\)\{0,1\}\$/\1/p" "$H/log/maui.log")
placed() { [ -n "$mnode" ] && [ "$(field "$a2" NodeList)" = "$mnode" ] && [ "$(awk 'NR == 1 { print $1 }' "$TMP/out/$a2.out")" = "$mnode" ]; }
check "a job ran where moku placed it (its log, Slurm's NodeList, SLURMD_NODENAME)" placed
placed || first_jobs | sed 's/^/# /'
timeout 5 "$MOKU" checkjob "$a1" >"$TMP/cj"
check "moku recorded the end (checkjob: Completed)" grep -q '^State: Completed' "$TMP/cj"

# canceljob through moku: Slurm cancels it.
c1=$(sub mokusa -n 1 -t 2 "$TMP/out/job.sh" 60)
wait_state "$c1" RUNNING 100
timeout 5 "$MOKU" canceljob "$c1" >/dev/null
wait_state "$c1" CANCELLED 100
check "canceljob of a running job: cancelled in Slurm" [ "$(state "$c1")" = CANCELLED ]
# scancel of a queued (held) job: gone from moku's queue.
c2=$(sub mokusb -n 1 -t 2 "$TMP/out/job.sh" 30)
c3=$(sub mokusb -n 1 -t 2 "$TMP/out/job.sh" 30)
wait_state "$c2" RUNNING 100
wait_for 10 cj_has "$c3" '^State:' || fail "moku did not take in job $c3"
as mokusb scancel "$c3"
check "scancel of a job moku holds: removed from moku's queue" wait_for 10 cj_has "$c3" '^State: Removed'

# kill -9 of moku with a job running: the job is adopted after the restart
# and its end recorded once.
kill -9 "$pid"
wait "$pid" 2>/dev/null
pid=""
start_moku
timeout 5 "$MOKU" checkjob "$c2" >"$TMP/cj"
check "moku killed and restarted: the running job is adopted" grep -q '^State: Running' "$TMP/cj"
scancel "$c2"
wait_state "$c2" CANCELLED 100
check "... and its end recorded" wait_for 10 cj_has "$c2" '^State: \(Removed\|Completed\)'
iterated "$H/log/maui.log" 2 # a second record would come with a later iteration
n_end=$(grep -c "job $c2 ended" "$H/log/maui.log")
check "... once" [ "$n_end" = 1 ]

# Node states from Slurm, every iteration: a drained node takes no job, and
# checknode shows Slurm's state and reason.
scontrol update NodeName=n4 State=DRAIN Reason=moku-test-maint
check "scontrol drain: checknode shows Drained and Slurm's reason" \
    wait_for 10 sh -c "timeout 5 '$MOKU' checknode n4 >$TMP/cn && grep -q '^State: *Drained' $TMP/cn && grep -q '^Reason: moku-test-maint' $TMP/cn"
d1=$(sub mokusa -n 2 -t 2 "$TMP/out/job.sh" 1)
wait_state "$d1" COMPLETED 100
check "... and a job is placed elsewhere" sh -c "[ '$(field "$d1" NodeList)' != n4 ] && [ -n '$(field "$d1" NodeList)' ]"
scontrol update NodeName=n4 State=RESUME
check "... resumed: up again" \
    wait_for 10 sh -c "timeout 5 '$MOKU' checknode n4 >$TMP/cn && ! grep -q '^State: *Drained' $TMP/cn && ! grep -q '^Reason' $TMP/cn"

# A node's slurmd killed under a running job: Slurm marks the node down and
# requeues the job; moku holds it again and starts it on another node.
k1=$(sub mokusb -n 2 -t 5 "$TMP/out/job.sh" 40)
wait_state "$k1" RUNNING 100
kn=$(field "$k1" NodeList)
kill -9 "$(cat "$B/run/slurmd-$kn.pid")" 2>/dev/null
t=0
while [ $t -lt 900 ]; do
    nl=$(field "$k1" NodeList)
    [ "$(state "$k1")" = RUNNING ] && [ -n "$nl" ] && [ "$nl" != "$kn" ] && break
    sleep 0.1
    t=$((t + 1))
done
check "slurmd of $kn killed mid-job: the job runs again, elsewhere (was $kn, now $(field "$k1" NodeList))" \
    sh -c "[ '$(state "$k1")' = RUNNING ] && [ '$(field "$k1" NodeList)' != '$kn' ]"
timeout 5 "$MOKU" checknode "$kn" >"$TMP/cn"
check "... and checknode shows $kn Down" grep -q '^State: *Down' "$TMP/cn"
grep -q "job $k1 was never started\|job $k1 .*requeue" "$H/log/maui.log"
check "... moku logged the requeue" grep -q "job $k1" "$H/log/maui.log"
scancel "$k1"
sh tests/slurm/cluster.sh slurmd "$B" "$kn"
t=0
while [ $t -lt 200 ] && ! timeout 5 "$MOKU" checknode "$kn" | grep -q '^State: *Idle'; do
    sleep 0.1
    t=$((t + 1))
done
check "... its slurmd back: $kn is up again for moku" sh -c "timeout 5 '$MOKU' checknode $kn | grep -q '^State: *Idle'"

# A partition's limit moku reads before the start (short allows 1 minute,
# the job asks for 5): held by moku with Slurm's reason, no start tried;
# shortened in Slurm, it runs.
f1=$(sub mokusa -p short -n 1 -t 5 "$TMP/out/job.sh" 1)
t=0
while [ $t -lt 300 ] && ! timeout 5 "$MOKU" checkjob "$f1" 2>/dev/null | grep -q '^State: SystemHold'; do
    sleep 0.1
    t=$((t + 1))
done
timeout 5 "$MOKU" checkjob "$f1" >"$TMP/cj"
check "a job over its partition's MaxTime: held by moku, with Slurm's reason, before any start" \
    sh -c "grep -q '^State: SystemHold' $TMP/cj && grep -q 'partition short allows 0:01:00, the job asks for 0:05:00 (PartitionTimeLimit)' $TMP/cj"
scontrol update JobId="$f1" TimeLimit=1
wait_state "$f1" COMPLETED 200
check "... its time limit shortened in Slurm: it runs, and no start failed" \
    sh -c "[ '$(state "$f1")' = COMPLETED ] && ! grep -q 'job $f1: start' '$H/log/maui.log'"

# A start Slurm does not carry out for a limit moku does not model
# (partition cap's MaxCPUsPerNode=1, a task of two CPUs): held again at
# once, a failed start (DEFERTIME) with Slurm's reason in checkjob;
# releasehold -a lifts the deferral.
f2=$(sub mokusa -p cap -n 1 -c 2 -t 5 "$TMP/out/job.sh" 1)
t=0
while [ $t -lt 300 ] && ! timeout 5 "$MOKU" checkjob "$f2" 2>/dev/null | grep -q '^State: Deferred'; do
    sleep 0.1
    t=$((t + 1))
done
timeout 5 "$MOKU" checkjob "$f2" >"$TMP/cj"
check "a start Slurm does not carry out: deferred at once, with Slurm's reason in checkjob" \
    sh -c "grep -q '^State: Deferred' $TMP/cj && grep -q 'Slurm will not run it: BadConstraints' $TMP/cj"
check "... and held again in Slurm, the reason in its admin comment" \
    sh -c "scontrol -o show job $f2 | grep -q 'Priority=0 ' && scontrol -o show job $f2 | grep -q 'AdminComment=moku: Deferred until'"
n0=$(grep -c "job $f2 started on" "$H/log/maui.log")
timeout 5 "$MOKU" releasehold -a "$f2" >"$TMP/rh"
t=0
while [ $t -lt 100 ] && [ "$(grep -c "job $f2 started on" "$H/log/maui.log")" = "$n0" ]; do
    sleep 0.1
    t=$((t + 1))
done
check "... releasehold -a lifts the deferral: started again at once" \
    sh -c "grep -q 'holds modified' $TMP/rh && [ $(grep -c "job $f2 started on" "$H/log/maui.log") -gt $n0 ]"
scancel "$f2"

# slurmctld restarted (state kept): moku waits for it and goes on.
kill "$(cat "$B/run/slurmctld.pid")"
t=0
while [ -f "$B/run/slurmctld.pid" ] && [ $t -lt 100 ]; do sleep 0.1; t=$((t + 1)); done
wait_for 15 logged 'does not take connections' || fail "moku did not see slurmctld go"
check "slurmctld down: moku still answers at once" sh -c "timeout 1 '$MOKU' showq >/dev/null"
sh tests/slurm/cluster.sh slurmctld "$B"
wait_for 15 logged 'slurm answers again' || fail "moku did not see slurmctld come back"
r1=$(sub mokusb -n 1 -t 2 "$TMP/out/job.sh" 1)
wait_state "$r1" COMPLETED 200
check "... slurmctld back: a new job runs" [ "$(state "$r1")" = COMPLETED ]
check "... the outage was logged, once, and its end" \
    sh -c "[ \$(grep -c 'does not take connections' '$H/log/maui.log') = 1 ] && grep -q 'slurm answers again' '$H/log/maui.log'"

# Policy at a reload: a standing reservation keeps n1 for class (partition)
# short, and a user priority reorders the queue.
printf 'RMCFG[s] TYPE=SLURM\nRMPOLLINTERVAL 1\nLOGLEVEL 2\nSRCFG[keep] HOSTLIST=n1 CLASSLIST=short PERIOD=INFINITY\nCREDWEIGHT 1\nUSERWEIGHT 1\nUSERCFG[mokusb] PRIORITY=1000\n' >"$H/maui.cfg"
timeout 5 "$MOKU" schedctl -R >/dev/null
wait_for 10 showres_has keep. || fail "the standing reservation keep was not made"
s1=$(sub mokusa -n 2 -t 2 "$TMP/out/job.sh" 3)
s2=$(sub mokusa -n 2 -t 2 "$TMP/out/job.sh" 3)
s3=$(sub mokusa -n 2 -t 2 "$TMP/out/job.sh" 3)
s4=$(sub mokusa -n 2 -t 2 "$TMP/out/job.sh" 3)
for j in $s1 $s2 $s3 $s4; do wait_state "$j" COMPLETED 300; done
on_n1=""
for j in $s1 $s2 $s3 $s4; do [ "$(field "$j" NodeList)" = n1 ] && on_n1="$on_n1 $j"; done
check "a standing reservation for class short: no batch job ran on n1 (Slurm's NodeList)" \
    sh -c "[ -z '$on_n1' ] && [ '$(state "$s4")' = COMPLETED ]"
check "... so the fourth 2-processor job waited for one of the first three" \
    before "$(t_end "$s1")" "$(t_start "$s4")"
p1=$(sub mokusa -p short -n 2 -t 1 "$TMP/out/job.sh" 1)
wait_state "$p1" COMPLETED 200
check "... a job of class short may run there" [ "$(state "$p1")" = COMPLETED ]
# Three nodes outside the reservation: a 6-processor blocker, then mokusa's
# job, then mokusb's, which has the higher priority and runs first.
bl=$(sub mokusa -n 6 -t 2 "$TMP/out/job.sh" 3)
wait_state "$bl" RUNNING 100
x1=$(sub mokusa -n 6 -t 2 "$TMP/out/job.sh" 1)
# y1 later than x1 for moku too: once moku has x1.
wait_for 10 cj_has "$x1" '^State:' || fail "moku did not take in job $x1"
y1=$(sub mokusb -n 6 -t 2 "$TMP/out/job.sh" 1)
wait_state "$x1" COMPLETED 300
wait_state "$y1" COMPLETED 300
check "USERCFG PRIORITY: the later job of the higher-priority user ran first" \
    before "$(t_end "$y1")" "$(t_start "$x1")"

# OWNERPREEMPT with PREEMPTPOLICY REQUEUE: account other fills the cluster;
# a job of account owner, whose reservation lends n1, comes: other's job is
# requeued held in Slurm, the owner's runs, and other's runs again after.
printf 'RMCFG[s] TYPE=SLURM\nRMPOLLINTERVAL 1\nLOGLEVEL 2\nPREEMPTPOLICY REQUEUE\nSRCFG[own] PERIOD=INFINITY HOSTLIST=n1 ACCOUNTLIST=owner,other- OWNER=ACCOUNT:owner FLAGS=OWNERPREEMPT\n' >"$H/maui.cfg"
timeout 5 "$MOKU" schedctl -R >/dev/null
wait_for 10 showres_has own. || fail "the standing reservation own was not made"
o1=$(sub mokusa -A other -n 8 -t 2 "$TMP/out/job.sh" 20)
wait_state "$o1" RUNNING 100
w1=$(sub mokusb -A owner -n 2 -t 2 "$TMP/out/job.sh" 2)
wait_state "$w1" COMPLETED 300
check "OWNERPREEMPT: the owner's job ran (on n1)" \
    sh -c "[ '$(state "$w1")' = COMPLETED ] && [ '$(field "$w1" NodeList)' = n1 ]"
check "... other's job was requeued in Slurm (Restarts=1)" [ "$(field "$o1" Restarts)" = 1 ]
# A minute at most: with the other Slurm script running beside this one on a
# loaded machine, 30 s was once too short.
wait_state "$o1" RUNNING 600
check "... and runs again after it" [ "$(state "$o1")" = RUNNING ]
if [ "$(state "$o1")" != RUNNING ]; then
    echo "# $o1: $(scontrol -o show job "$o1" | tr ' ' '\n' | grep -E '^(JobState|Reason|Priority|Restarts|BeginTime)=' | tr '\n' ' ')"
    timeout 5 "$MOKU" checkjob -v "$o1" | sed 's/^/# /'
    grep -E "job ($o1|$w1)\b|iteration" "$H/log/maui.log" | tail -n 40 | sed 's/^/# /'
fi
grep -q "job $o1 preempted (requeue)" "$H/log/maui.log"
check "... moku logged the preemption" grep -q "job $o1 preempted (requeue)" "$H/log/maui.log"
scancel "$o1"

# A job array: each task is a job of moku's (split off in Slurm, held), and
# every one runs.
arr=$(sub mokusa --array=0-3 -n 1 -t 2 "$TMP/out/job.sh" 1)
t=0
while [ $t -lt 300 ] && [ "$(scontrol -o show job "$arr" 2>/dev/null | grep -c 'JobState=COMPLETED')" != 4 ]; do
    sleep 0.1
    t=$((t + 1))
done
ids=$(scontrol -o show job "$arr" 2>/dev/null | sed -n 's/^JobId=\([0-9]*\) .*JobState=COMPLETED.*/\1/p')
# ended: how many of them moku recorded as ended.
n_ended() {
    ended=0
    for i in $ids; do grep -q " job $i ended: exit 0 completed" "$H/log/maui.log" && ended=$((ended + 1)); done
    [ "$ended" = 4 ]
}
wait_for 10 n_ended
check "a job array of 4 tasks: each task a job of moku's, run to completion ($ended of 4)" [ "$ended" = 4 ]

# moku submit (qsub) under Slurm: the job goes into Slurm as the caller,
# held there for moku like any other, and runs; -h keeps it held in moku.
cp "$MOKU" "$TMP/moku-client" && chmod 755 "$TMP/moku-client"
printf 'RMCFG[s] TYPE=SLURM\nRMPOLLINTERVAL 1\nLOGLEVEL 3\n' >"$H/maui.cfg"
timeout 5 "$MOKU" schedctl -R >/dev/null
qs=$(cd "$TMP/out" && echo 'echo "on $SLURMD_NODENAME"' |
    runuser -u mokusa -- env MOKU_HOME="$H" timeout 10 "$TMP/moku-client" submit -N subtest -l walltime=60)
wait_state "$qs" COMPLETED 200
check "moku submit under Slurm: a Slurm job of the caller's, run to completion" \
    sh -c "[ '$(state "$qs")' = COMPLETED ] && scontrol -o show job $qs | grep -q 'UserId=mokusa('"
check "... its output in <cwd>/subtest.o<id>, the caller's own file" \
    sh -c "grep -q '^on n[1-4]' '$TMP/out/subtest.o$qs' && [ \$(stat -c %U '$TMP/out/subtest.o$qs') = mokusa ]"
qh=$(cd "$TMP/out" && echo 'true' |
    runuser -u mokusa -- env MOKU_HOME="$H" timeout 10 "$TMP/moku-client" submit -h -l walltime=60)
wait_for 10 cj_has "$qh" '^State: UserHold'
iterated "$H/log/maui.log" 2
check "moku submit -h: held by moku (UserHold), pending in Slurm" \
    sh -c "timeout 5 '$MOKU' checkjob $qh | grep -q '^State: UserHold' && [ '$(state "$qh")' = PENDING ]"
runuser -u mokusa -- env MOKU_HOME="$H" timeout 10 "$TMP/moku-client" releasehold "$qh" >/dev/null
wait_state "$qh" COMPLETED 200
check "... releasehold: it runs" [ "$(state "$qh")" = COMPLETED ]

# qsub -t under Slurm: the range goes to Slurm as --array (Torque's syntax
# is Slurm's), its %N is the array's throttle: never more than 2 tasks run;
# each task writes Torque's <name>.o<array>-<index>. Past MAXJOBARRAYSIZE
# (10000 by default) the daemon refuses the array.
qa=$(cd "$TMP/out" && printf 'echo "task $SLURM_ARRAY_TASK_ID"\nsleep 1\n' |
    runuser -u mokusa -- env MOKU_HOME="$H" timeout 10 "$TMP/moku-client" submit -N arr -t 1-4%2 -l walltime=60)
most=0
t=0
while [ $t -lt 600 ] && [ "$(scontrol -o show job "$qa" 2>/dev/null | grep -c 'JobState=COMPLETED')" != 4 ]; do
    now=$(scontrol -o show job "$qa" 2>/dev/null | grep -c 'JobState=RUNNING')
    [ "$now" -gt "$most" ] && most=$now
    sleep 0.1
    t=$((t + 1))
done
check "moku submit -t 1-4%2 under Slurm: 4 tasks ran, at most 2 at once ($most)" \
    sh -c "[ '$(scontrol -o show job "$qa" 2>/dev/null | grep -c 'JobState=COMPLETED')' = 4 ] && [ $most -le 2 ] && [ $most -ge 1 ]"
check "... each task wrote <name>.o<array>-<index>, with its index" \
    sh -c "for i in 1 2 3 4; do grep -qx \"task \$i\" '$TMP/out/arr.o$qa-'\$i || exit 1; done"
if ! sh -c "for i in 1 2 3 4; do grep -qx \"task \$i\" '$TMP/out/arr.o$qa-'\$i || exit 1; done"; then
    echo "# array $qa:"; scontrol -o show job "$qa" 2>&1 | sed 's/^/# /'; ls "$TMP/out" | sed 's/^/# /'
    grep -i "job $qa\|array" "$H/log/maui.log" | tail -20 | sed 's/^/# /'
fi
qbig=$(cd "$TMP/out" && echo true |
    runuser -u mokusa -- env MOKU_HOME="$H" timeout 10 "$TMP/moku-client" submit -t 1-10001 2>"$TMP/qbig.err")
check "moku submit -t 1-10001: refused by MAXJOBARRAYSIZE 10000, no job" \
    sh -c "[ -z '$qbig' ] && grep -q 'more than 10000 tasks (MAXJOBARRAYSIZE 10000)' $TMP/qbig.err"

# moku dies after Slurm took a submission, before answering: the client
# tries again with its token, and gets the same job (one job in Slurm).
CM=${CRASHMOKU:-build/crash/moku}
if [ -x "$CM" ]; then
    CM=$(cd "$(dirname "$CM")" && pwd)/$(basename "$CM")
    kill "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    MOKU_CRASH=rm-submitted "$CM" serve --home "$H" >>"$TMP/serve.log" 2>&1 &
    pid=$!
    t=0
    while [ $t -lt 50 ] && ! timeout 5 "$MOKU" showq >/dev/null 2>&1; do sleep 0.1; t=$((t + 1)); done
    (cd "$TMP/out" && echo 'true' | MOKU_RETRY_SECONDS=20 timeout 30 "$MOKU" submit -N tokentest -l walltime=60 >"$TMP/tid" 2>"$TMP/terr"; echo $? >"$TMP/trc") &
    client=$!
    t=0
    while [ $t -lt 100 ] && kill -0 "$pid" 2>/dev/null; do sleep 0.1; t=$((t + 1)); done
    check "rm-submitted: moku died after Slurm took the job, before answering" sh -c "! kill -0 $pid 2>/dev/null"
    wait "$pid" 2>/dev/null
    pid=""
    start_moku
    wait "$client"
    tid=$(cat "$TMP/tid")
    n_tok=$(squeue -h -n tokentest -o %i 2>/dev/null | wc -l)
    n_all=$(scontrol -o show job 2>/dev/null | grep -c 'JobName=tokentest ')
    check "... the client tried again and got the job's id, one job in Slurm ($n_all)" \
        sh -c "[ \"\$(cat '$TMP/trc')\" = 0 ] && [ -n '$tid' ] && [ '$n_all' = 1 ] && scontrol -o show job $tid | grep -q 'JobName=tokentest '"
else
    fail "rm-submitted: no crash build ($CM): run through make check"
fi

# A Slurm reservation made outside moku: its node is kept for the jobs that
# ask for it (sbatch --reservation) and that it admits; gone when Slurm
# deletes it.
scontrol create reservation ReservationName=mokutest Users=mokusb Nodes=n1 StartTime=now Duration=30 >/dev/null
check "a Slurm reservation: mirrored (showres: slurm-mokutest.0, RMRSV)" wait_for 10 showres_has 'slurm-mokutest.0 '
timeout 5 "$MOKU" releaseres slurm-mokutest.0 >"$TMP/err" 2>&1
check "... releaseres refuses it (Slurm's)" grep -q "resource manager's" "$TMP/err"
m1=$(sub mokusa -n 2 -t 2 "$TMP/out/job.sh" 2)
m2=$(sub mokusa -n 2 -t 2 "$TMP/out/job.sh" 2)
m3=$(sub mokusa -n 2 -t 2 "$TMP/out/job.sh" 2)
m4=$(sub mokusa -n 2 -t 2 "$TMP/out/job.sh" 2)
r1=$(sub mokusb --reservation=mokutest -n 2 -t 2 "$TMP/out/job.sh" 1)
for j in $m1 $m2 $m3 $m4 $r1; do wait_state "$j" COMPLETED 300; done
on_n1=""
for j in $m1 $m2 $m3 $m4; do [ "$(field "$j" NodeList)" = n1 ] && on_n1="$on_n1 $j"; done
check "... no job that did not ask for it ran on n1" sh -c "[ -z '$on_n1' ] && [ '$(state "$m4")' = COMPLETED ]"
check "... the job that asked for it ran there" \
    sh -c "[ '$(state "$r1")' = COMPLETED ] && [ '$(field "$r1" NodeList)' = n1 ]"
scontrol delete ReservationName=mokutest
no_mirror() { ! showres_has slurm-mokutest; }
check "... deleted in Slurm: gone from moku" wait_for 10 no_mirror

# Dependencies (Slurm does not evaluate them for held jobs: moku does): a
# job afterok another waits, held, and runs after it; afterok of a job that
# failed can never run, and says so.
da=$(sub mokusa -n 1 -t 2 "$TMP/out/job.sh" 3)
db=$(sub mokusa -n 1 -t 2 --dependency=afterok:"$da" "$TMP/out/job.sh" 1)
check "--dependency=afterok: held by moku while it waits, saying why" \
    wait_for 10 cj_has "$db" '^State: SystemHold' "dependency: waits for afterok:$da"
wait_state "$db" COMPLETED 300
check "... and runs after the job it depends on" \
    sh -c "[ '$(state "$db")' = COMPLETED ] && awk -v a='$(t_end "$da")' -v b='$(t_start "$db")' 'BEGIN { exit !(a <= b) }'"
printf '#!/bin/sh\nexit 3\n' >"$TMP/out/fail.sh"
chmod 755 "$TMP/out/fail.sh"
dc=$(sub mokusa -n 1 -t 2 "$TMP/out/fail.sh")
dd=$(sub mokusa -n 1 -t 2 --dependency=afterok:"$dc" "$TMP/out/job.sh" 1)
wait_state "$dc" FAILED 200
check "afterok of a job that failed: held, never satisfied, said so" \
    wait_for 10 cj_has "$dd" '^State: SystemHold' 'can never be satisfied'
check "... and pending in Slurm" [ "$(state "$dd")" = PENDING ]
scancel "$dd"

# OWNERPREEMPT with PREEMPTPOLICY SUSPEND: the other account's job is
# suspended in Slurm while the owner's runs, then resumed.
printf 'RMCFG[s] TYPE=SLURM\nRMPOLLINTERVAL 1\nLOGLEVEL 2\nPREEMPTPOLICY SUSPEND\nSRCFG[own] PERIOD=INFINITY HOSTLIST=n1 ACCOUNTLIST=owner,other- OWNER=ACCOUNT:owner FLAGS=OWNERPREEMPT\n' >"$H/maui.cfg"
timeout 5 "$MOKU" schedctl -R >/dev/null
wait_for 10 showres_has own. || fail "the standing reservation own was not made"
o2=$(sub mokusa -A other -n 8 -t 2 "$TMP/out/job.sh" 20)
wait_state "$o2" RUNNING 100
w2=$(sub mokusb -A owner -n 2 -t 2 "$TMP/out/job.sh" 3)
wait_state "$o2" SUSPENDED 200
check "PREEMPTPOLICY SUSPEND: the other account's job is suspended in Slurm" [ "$(state "$o2")" = SUSPENDED ]
wait_state "$w2" COMPLETED 300
wait_state "$o2" RUNNING 300
check "... the owner's job ran, and the suspended one is resumed after it" \
    sh -c "[ '$(state "$w2")' = COMPLETED ] && [ '$(state "$o2")' = RUNNING ]"
scancel "$o2"

# Partitions: a job of partition half (n1, n2) runs on its nodes only.
printf 'RMCFG[s] TYPE=SLURM\nRMPOLLINTERVAL 1\nLOGLEVEL 2\n' >"$H/maui.cfg"
timeout 5 "$MOKU" schedctl -R >/dev/null
h1=$(sub mokusa -p half -n 2 -t 2 "$TMP/out/job.sh" 2)
h2=$(sub mokusa -p half -n 2 -t 2 "$TMP/out/job.sh" 2)
h3=$(sub mokusa -p half -n 2 -t 2 "$TMP/out/job.sh" 2)
for j in $h1 $h2 $h3; do wait_state "$j" COMPLETED 300; done
out=""
for j in $h1 $h2 $h3; do case "$(field "$j" NodeList)" in n1 | n2) ;; *) out="$out $j:$(field "$j" NodeList)" ;; esac; done
check "partition half: its jobs ran on its nodes only (n1, n2)$out" \
    sh -c "[ -z '$out' ] && [ '$(state "$h3")' = COMPLETED ]"
timeout 5 "$MOKU" checknode n1 >"$TMP/cn"
check "... checknode shows the node's partitions as features" grep -q 'partition=half' "$TMP/cn"

# The resource manager is chosen at start-up: a reload that changes RMCFG
# says so, and moku goes on with Slurm.
printf 'RMPOLLINTERVAL 1\nLOGLEVEL 2\n' >"$H/maui.cfg"
timeout 5 "$MOKU" schedctl -R >"$TMP/reload" 2>&1
check "a reload without RMCFG TYPE=SLURM: said to take effect at the next start" \
    grep -q "RMCFG TYPE=LOCAL takes effect at the next start: the resource manager is slurm" "$TMP/reload"
e1=$(sub mokusa -n 1 -t 2 "$TMP/out/job.sh" 1)
wait_state "$e1" COMPLETED 200
check "... and Slurm's jobs still run" [ "$(state "$e1")" = COMPLETED ]

# Slurm's state wiped (StateSaveLocation emptied, a cold start): its ids
# begin again, and a new job
# under an id moku has had is not taken in, with an error naming it.
kill "$(cat "$B/run/slurmctld.pid")"
t=0
while [ -f "$B/run/slurmctld.pid" ] && [ $t -lt 100 ]; do sleep 0.1; t=$((t + 1)); done
rm -rf "$B/state" && mkdir -p "$B/state"
sh tests/slurm/cluster.sh slurmctld-cold "$B"
ctld_up() { scontrol ping 2>/dev/null | grep -q 'is UP'; }
wait_for 15 ctld_up || fail "slurmctld did not come back"
w1=$(sub mokusb -n 1 -t 2 "$TMP/out/job.sh" 1)
check "Slurm's ids begun again: job $w1 (an id moku had) not taken in, an error names it" \
    wait_for 15 logged "job $w1 of mokusb reuses the id of a job moku had"
scancel "$w1" 2>/dev/null
done_checks
