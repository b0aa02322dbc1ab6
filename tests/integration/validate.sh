#!/bin/sh
# moku validate (issue 13 §2): a real replay validates clean; schedules
# broken by hand — an overfull node, a start before submission, a start
# during a hold, a wrong end, a breached HARD MAXJOB, a job inside a
# reservation that refuses it — are each caught (exit 1, the job named);
# bad input is exit 2 with file:line.
. tests/integration/lib.sh
M=${MOKU_REAL:-$MOKU}
printf '1 0 -1 1000 2 -1 -1 2 1000 -1 1 2 2 -1 1 -1 -1 -1\n2 100 -1 500 1 -1 -1 1 500 -1 1 1 1 -1 1 -1 -1 -1\n3 500 -1 500 1 -1 -1 1 500 -1 1 1 1 -1 1 -1 -1 -1\n' >"$TMP/t.swf"
"$M" simulate --procs 2 --jobs-out "$TMP/j.csv" --resv-out "$TMP/r.csv" "$TMP/t.swf" >/dev/null 2>&1
"$M" validate --procs 2 --reservations "$TMP/r.csv" "$TMP/t.swf" "$TMP/j.csv" >"$TMP/out"
check "a replay validates clean (exit 0)" sh -c "[ $? = 0 ] && grep -q '3 jobs, 0 violations' $TMP/out"

# broken CSV-TEXT-IN-SED WHAT PATTERN [extra validate args]
broken() {
    sed "$2" "$TMP/j.csv" >"$TMP/b.csv"
    shift 2
    what=$1 pat=$2
    shift 2
    "$M" validate --procs 2 "$@" "$TMP/t.swf" "$TMP/b.csv" >"$TMP/out" 2>&1
    rc=$?
    check "$what: caught (exit 1)" sh -c "[ $rc = 1 ] && grep -q '$pat' $TMP/out"
}
# Job 3 ran 1000-1500 after job 1 (0-1000 on both processors): the 1000 showq bug
# of issue 13 made it run 500-1000.
x=x; broken x 's/^3,500,1000,1500,500,/3,500,500,1000,0,/' \
    "job 3 on processors job 1 holds (the issue's showq corruption)" 'job 3: at 500 node node. holds'
broken x 's/^2,100,1000,1500,900,/2,100,50,550,0,/' "a start before submission" 'job 2: starts at 50, before its submission at 100'
broken x 's/^2,100,1000,1500,/2,100,1000,1400,/' "a wrong end" 'job 2: ends at 1400'
printf '150 sethold 2\n' >"$TMP/c"
broken x 's/^x//' "a start during a hold" 'job 2: starts at 1000 while held' --commands "$TMP/c"
printf 'USERCFG[DEFAULT] MAXJOB=1\n' >"$TMP/l.cfg"
"$M" simulate --procs 4 --jobs-out "$TMP/j3.csv" "$TMP/t.swf" >/dev/null 2>&1
"$M" validate --procs 4 --config "$TMP/l.cfg" "$TMP/t.swf" "$TMP/j3.csv" >"$TMP/out" 2>&1
check "a breached HARD MAXJOB (the schedule made without the limit): caught" \
    grep -q 'over the HARD MAXJOB limit of 1 for user 1' "$TMP/out"
# A QOS's QFLAGS lift limits for its jobs (docs/limits.md): IGNALL every
# one, IGNJOBPERUSER the user's MAXJOB; a QOS without them lifts none. The
# validator called the starts of a parked job moved by setqos to an IGNALL
# QOS violations (att31q, issue 31: limits.sh's tests/data/sim/parked).
for f in IGNALL IGNJOBPERUSER,IGNPSPERUSER; do
    printf 'USERCFG[DEFAULT] MAXJOB=1 QDEF=q\nQOSCFG[q] QFLAGS=%s\n' "$f" >"$TMP/q.cfg"
    sed 's/,DEFAULT,\([a-z_]*\),/,q,\1,/' "$TMP/j3.csv" >"$TMP/j3q.csv"
    "$M" validate --procs 4 --config "$TMP/q.cfg" "$TMP/t.swf" "$TMP/j3q.csv" >"$TMP/out" 2>&1
    check "... and none when the jobs' QOS has QFLAGS=$f" sh -c "[ $? = 0 ] && grep -q ' 0 violations' $TMP/out"
done
printf 'USERCFG[DEFAULT] MAXJOB=1 QDEF=q\nQOSCFG[q] QFLAGS=IGNPROCPERUSER PRIORITY=1\n' >"$TMP/q.cfg"
"$M" validate --procs 4 --config "$TMP/q.cfg" "$TMP/t.swf" "$TMP/j3q.csv" >"$TMP/out" 2>&1
check "... but caught when its flags lift another limit" \
    grep -q 'over the HARD MAXJOB limit of 1 for user 1' "$TMP/out"
# The legacy QOSFLAGS[q] lines lift them as QFLAGS does (the scheduler reads
# both): the validator read QFLAGS alone and called a replay made under
# QOSFLAGS[q] IGNALL a breach of MAXJOB (att31r).
for f in IGNALL IGNJOBPERUSER; do
    printf 'USERCFG[DEFAULT] MAXJOB=1 QDEF=q\nQOSFLAGS[q] %s\n' "$f" >"$TMP/q.cfg"
    "$M" simulate --procs 4 --config "$TMP/q.cfg" --jobs-out "$TMP/jq.csv" "$TMP/t.swf" >/dev/null 2>&1
    "$M" validate --procs 4 --config "$TMP/q.cfg" "$TMP/t.swf" "$TMP/jq.csv" >"$TMP/out" 2>&1
    check "... and none in moku's replay under the legacy QOSFLAGS[q] $f (jobs 1 and 2 at once)" \
        sh -c "[ $? = 0 ] && grep -q ' 0 violations' $TMP/out && cmp -s '$TMP/jq.csv' '$TMP/j3q.csv'"
done
printf 'USERCFG[DEFAULT] MAXJOB=1 QDEF=q\nQOSFLAGS[other] IGNALL\nQOSFLAGS[q] IGNPROCPERUSER\n' >"$TMP/q.cfg"
"$M" validate --procs 4 --config "$TMP/q.cfg" "$TMP/t.swf" "$TMP/j3q.csv" >"$TMP/out" 2>&1
check "... but caught when QOSFLAGS lifts it for another QOS, or lifts another limit" \
    grep -q 'over the HARD MAXJOB limit of 1 for user 1' "$TMP/out"
printf 'id,type,created,start,end,released,nodes,acl,flags\nx.0,user,0,0,10000,,node1:1 node2:1,USER==9,\n' >"$TMP/r2.csv"
broken x 's/^x//' "a job in a reservation whose ACL refuses it" 'in reservation x.0' --reservations "$TMP/r2.csv"
printf 'id,type,created,start,end,released,nodes,acl,flags\nx.0,user,0,0,10000,,node1:1 node2:1,USER==1:==2,\n' >"$TMP/r3.csv"
"$M" validate --procs 2 --reservations "$TMP/r3.csv" "$TMP/t.swf" "$TMP/j.csv" >"$TMP/out" 2>&1
check "... and none when the ACL admits them" [ $? = 0 ]

printf 'job_id,submit\n1,0\n' >"$TMP/bad.csv"
"$M" validate --procs 2 "$TMP/t.swf" "$TMP/bad.csv" >"$TMP/out" 2>&1
check "a CSV without the required columns: exit 2, named" sh -c "[ $? = 2 ] && grep -q \"no column 'start'\" $TMP/out"
printf 'job_id,submit,start,end,procs,nodes\n1,0,0,10,2,nowhere:2\n' >"$TMP/bad.csv"
"$M" validate --procs 2 "$TMP/t.swf" "$TMP/bad.csv" >"$TMP/out" 2>&1
check "a node the cluster lacks: exit 2, file:line" sh -c "[ $? = 2 ] && grep -q 'bad.csv:2: nodes: node .nowhere. is not in the cluster' $TMP/out"
"$M" validate --bogus "$TMP/t.swf" "$TMP/j.csv" >"$TMP/out" 2>&1
check "an unknown option: exit 2" [ $? = 2 ]

# Node ranges (node[01-10]:1): what simulate writes for consecutive numbered
# nodes, read back node by node.
printf '1 0 -1 100 10 -1 -1 10 100 -1 1 1 1 -1 1 -1 -1 -1\n2 0 -1 100 2 -1 -1 2 100 -1 1 1 1 -1 1 -1 -1 -1\n' >"$TMP/g.swf"
"$M" simulate --procs 12 --jobs-out "$TMP/g.csv" "$TMP/g.swf" >/dev/null 2>&1
"$M" validate --procs 12 "$TMP/g.swf" "$TMP/g.csv" >"$TMP/out" 2>&1
check "node ranges: a 10-node job is one entry, and validates clean" \
    sh -c "grep -q '^1,.*,node\[03-12\]:1,' $TMP/g.csv && grep -q '2 jobs, 0 violations' $TMP/out"
sed 's/node\[01-02\]:1/node[02-03]:1/' "$TMP/g.csv" >"$TMP/g2.csv"
"$M" validate --procs 12 "$TMP/g.swf" "$TMP/g2.csv" >"$TMP/out" 2>&1
check "node ranges: two overlapping on node03: caught (exit 1)" \
    sh -c "[ $? = 1 ] && grep -q 'node node03 holds 2 processors, it has 1' $TMP/out"
sed 's/node\[01-02\]:1/node[11-13]:1/' "$TMP/g.csv" >"$TMP/g2.csv"
"$M" validate --procs 12 "$TMP/g.swf" "$TMP/g2.csv" >"$TMP/out" 2>&1
check "node ranges: one past the cluster: exit 2, named" \
    sh -c "[ $? = 2 ] && grep -q \"g2.csv:3: nodes: node 'node13' of 'node\[11-13\]' is not in the cluster\" $TMP/out"
printf 'NODECFG[n1] PROCS=1\nNODECFG[x] PROCS=1\nNODECFG[n2] PROCS=1\n' >"$TMP/gap.cfg"
printf 'job_id,submit,start,end,procs,nodes\n2,0,0,100,2,n[1-2]:1\n' >"$TMP/g3.csv"
"$M" validate --config "$TMP/gap.cfg" "$TMP/g.swf" "$TMP/g3.csv" >"$TMP/out" 2>&1
check "node ranges: ends that are not a run of the cluster's nodes: exit 2" \
    sh -c "[ $? = 2 ] && grep -q 'is not a run of the cluster' $TMP/out"

# --resources: the cluster of a Maui resource trace (as simulate takes it):
# a job on a node the trace has down is caught; the replay itself is valid.
printf 'COMPUTENODE AVAILABLE 0 up1 [NONE] 0 0 0 2 -1 -1 1 [NONE] [NONE] [NONE] [NONE] [NONE] [NONE] [NONE] [NONE] [NONE]\nCOMPUTENODE DEFINED 0 down1 [NONE] 0 0 0 2 -1 -1 1 [NONE] [NONE] [NONE] [NONE] [NONE] [NONE] [NONE] [NONE] [NONE]\n' >"$TMP/r.rtrace"
"$M" simulate --resources "$TMP/r.rtrace" --jobs-out "$TMP/jr.csv" "$TMP/t.swf" >/dev/null 2>&1
"$M" validate --resources "$TMP/r.rtrace" "$TMP/t.swf" "$TMP/jr.csv" >"$TMP/out" 2>&1
check "--resources: the replay on the trace's nodes validates clean" grep -q '3 jobs, 0 violations' "$TMP/out"
sed 's/up1:/down1:/' "$TMP/jr.csv" >"$TMP/jd.csv"
"$M" validate --resources "$TMP/r.rtrace" "$TMP/t.swf" "$TMP/jd.csv" >"$TMP/out" 2>&1
check "--resources: a job on a node the trace has down: caught (exit 1)" \
    sh -c "[ $? = 1 ] && grep -q 'runs on node down1, which is down or drained' '$TMP/out'"
"$M" validate --resources "$TMP/r.rtrace" --procs 2 "$TMP/t.swf" "$TMP/jr.csv" >"$TMP/out" 2>&1
check "--resources with --procs: a usage error (exit 2)" sh -c "[ $? = 2 ] && grep -q 'not both' '$TMP/out'"

# SWF field 17 (a preceding job, afterany): the replay that honours it
# validates clean; the same trace replayed without it (--no-swf-deps) has
# jobs starting before their preceding job ended: a planted violation,
# caught, and clean again when validate is told the replay ignored them.
D=tests/data/swf/deps.swf
"$M" simulate --jobs-out "$TMP/dep.csv" "$D" >/dev/null 2>&1
"$M" validate "$D" "$TMP/dep.csv" >"$TMP/out" 2>&1
check "SWF dependencies: the replay validates clean" sh -c "[ $? = 0 ] && grep -q '5 jobs, 0 violations' $TMP/out"
"$M" simulate --no-swf-deps --jobs-out "$TMP/nodep.csv" "$D" >/dev/null 2>&1
"$M" validate "$D" "$TMP/nodep.csv" >"$TMP/out" 2>&1
check "SWF dependencies: a job started before its preceding job ended: caught (exit 1)" \
    sh -c "[ $? = 1 ] && grep -q 'job 2: starts at 10, before job 1 it waits for (afterany) ends at 100' $TMP/out && grep -q '2 violations' $TMP/out"
"$M" validate --no-swf-deps "$D" "$TMP/nodep.csv" >"$TMP/out" 2>&1
check "SWF dependencies: validate --no-swf-deps checks none" grep -q '5 jobs, 0 violations' "$TMP/out"
# A preceding job that never starts (the replay stopped first): the job
# waiting for it must not start either.
printf 'job_id,submit,start,end,procs,nodes,state\n1,0,,,2,,never_started\n2,10,10,60,1,node1:1,completed\n' >"$TMP/dnever.csv"
"$M" validate --procs 4 "$D" "$TMP/dnever.csv" >"$TMP/out" 2>&1
check "SWF dependencies: a job started while its preceding job never ends: caught" \
    sh -c "[ $? = 1 ] && grep -q 'job 2: starts at 10, but job 1 it waits for (afterany) never ends' $TMP/out"
done_checks
