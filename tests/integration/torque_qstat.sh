#!/bin/sh
# qstat and pbsnodes as polling scripts and Torque's clients read them,
# against the real daemon: several ids with unknown ones among them (each
# Torque's error line, the known jobs shown, exit 153), -r and -i, -n -1,
# -f -1, -t, the queue and server summaries (-Q, -q, -B), Torque's XML for
# -f -x and pbsnodes -x (read back by an XML parser), and qdel of an ended
# job that qstat -c still lists.
. tests/integration/lib.sh

. tests/integration/lib_torque.sh
torque_serve 'RMPOLLINTERVAL 1\nNODECFG[n1] PROCS=2\nNODECFG[n2] PROCS=2 FEATURES=big\nCLASSCFG[batch] PRIORITY=1\n' \
    qstat qdel pbsnodes
ja=$(echo 'sleep 60' | timeout 5 "$MOKU" submit -N spread -l nodes=2:ppn=1)
jb=$(echo 'sleep 60' | timeout 5 "$MOKU" submit -h -q batch -N held)
jc=$(echo 'true' | timeout 5 "$MOKU" submit -N quick)
wait_for 20 is "$ja" Running
wait_for 20 is "$jc" Completed

t qstat -a "$ja" "$jb" 999 "$jb.$HOST" 998."$HOST"
check "qstat -a with unknown ids: exit 153" [ "$rc" = 153 ]
check "... one Torque line per unknown id, a bare one completed with the server" \
    sh -c "[ \$(wc -l <$TMP/err) = 2 ] && grep -qx 'qstat: Unknown Job Id 999.$HOST' $TMP/err && grep -qx 'qstat: Unknown Job Id 998.$HOST' $TMP/err"
check "... and the known jobs shown all the same" \
    sh -c "grep -q '^$ja\\.$HOST .* R ' $TMP/out && [ \$(grep -c '^$jb\\.$HOST .* H ' $TMP/out) = 2 ]"
t qstat 999 998
check "only unknown ids: the lines, nothing on stdout, 153" \
    sh -c "[ $rc = 153 ] && [ ! -s $TMP/out ] && [ \$(wc -l <$TMP/err) = 2 ]"

t qstat -r
check "qstat -r: running jobs only, alternative layout" \
    sh -c "[ $rc = 0 ] && grep -q '^$ja\\.$HOST .* R ' $TMP/out && ! grep -q '^$jb\\.' $TMP/out && grep -q '^Job ID  *Username' $TMP/out"
t qstat -i
check "qstat -i: queued and held jobs only" \
    sh -c "[ $rc = 0 ] && grep -q '^$jb\\.$HOST .* H ' $TMP/out && ! grep -q '^$ja\\.' $TMP/out"
t qstat -n -1
check "qstat -n -1: the nodes at the end of the job's line" \
    grep -Eq "^$ja\\.$HOST .* R .*   n[12]/0\\+n[12]/0\$" "$TMP/out"
t qstat -f -1 "$ja"
check "qstat -f -1: the full view, one line an attribute" \
    sh -c "[ $rc = 0 ] && grep -q '^Job Id: $ja.$HOST\$' $TMP/out && grep -q '^    Resource_List.nodes = 2:ppn=1\$' $TMP/out"
t qstat -t
check "qstat -t (no arrays here): the plain listing" \
    sh -c "[ $rc = 0 ] && grep -q '^$ja\\.$HOST  *spread ' $TMP/out"

t qstat -Q
check "qstat -Q: Torque's queue table, a class a row with its counts" \
    sh -c "[ $rc = 0 ] && head -1 $TMP/out | grep -q '^Queue              Max   Tot   Ena   Str   Que   Run   Hld   Wat   Trn   Ext T\$' && grep -Eq '^batch  +0 +1 +yes +yes +0 +0 +1 +0 +0 +0 E\$' $TMP/out && grep -Eq '^DEFAULT +0 +1 +yes +yes +0 +1 +0 ' $TMP/out"
t qstat -Q nosuch
check "qstat -Q of an unknown queue: Torque's 'Unknown queue', 170" \
    sh -c "[ $rc = 170 ] && grep -q 'Unknown queue nosuch' $TMP/err"
t qstat -q
check "qstat -q: the server line and the limits table" \
    sh -c "[ $rc = 0 ] && grep -q '^server: $HOST\$' $TMP/out && grep -q '^Queue            Memory CPU Time Walltime Node  Run Que Lm  State\$' $TMP/out && grep -q '^batch ' $TMP/out"
t qstat -B
check "qstat -B: the server's line, Active" \
    sh -c "[ $rc = 0 ] && grep -Eq '^$HOST +0 +2 +0 +1 +1 +0 +0 +0 Active\$' $TMP/out"

# Torque's XML, read back by a parser: element names as Torque's.
t qstat -f -x "$ja"
check "qstat -f -x: XML with Torque's elements (Data/Job/Job_Id, Resource_List/nodes)" \
    python3 - "$TMP/out" "$ja.$HOST" <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
job = root.find("Job")
assert root.tag == "Data" and job.findtext("Job_Id") == sys.argv[2], ET.tostring(root)
assert job.findtext("job_state") == "R" and job.findtext("Job_Name") == "spread"
assert job.find("Resource_List").findtext("nodes") == "2:ppn=1"
assert len(job.findall("Resource_List")) == 1
PY
t qstat -x
check "qstat -x alone: every job as XML too" \
    sh -c "[ $rc = 0 ] && python3 -c 'import sys,xml.etree.ElementTree as E; r=E.parse(sys.argv[1]).getroot(); assert len(r.findall(\"Job\")) == 2' $TMP/out"
t pbsnodes -x
check "pbsnodes -x: Data/Node with name, state, np, properties" \
    python3 - "$TMP/out" <<'PY'
import sys, xml.etree.ElementTree as ET
nodes = {n.findtext("name"): n for n in ET.parse(sys.argv[1]).getroot().findall("Node")}
assert set(nodes) == {"n1", "n2"}, nodes
assert nodes["n2"].findtext("np") == "2" and nodes["n2"].findtext("properties") == "big"
assert nodes["n1"].findtext("state") in ("free", "job-exclusive")
PY

# qdel of an ended job qstat still lists.
t qstat -c "$jc"
check "qstat -c lists the ended job, C" grep -q "^$jc\\.$HOST .* C DEFAULT\$" "$TMP/out"
t qdel "$jc.$HOST"
check "qdel of it: Torque's invalid state, 170, the id as given" \
    sh -c "[ $rc = 170 ] && grep -qx 'qdel: Request invalid for state of job MSG=invalid state for job - COMPLETE $jc.$HOST' $TMP/err"
t qdel "$jb.vm"
check "qdel 12.vm (another server's name) keeps the suffix: done here as Torque takes 12.anything" [ "$rc" = 0 ]
t qdel 4242.vm
check "qdel 4242.vm of no job: the message keeps '.vm'" \
    sh -c "[ $rc = 153 ] && grep -qx 'qdel: Unknown Job Id 4242.vm' $TMP/err"
done_checks
