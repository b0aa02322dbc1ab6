#!/bin/sh
# Torque's everyday commands against the real daemon: qstat's layouts
# (default, -a, -n, -f, -u, -x), qdel/qhold/qrls/qrun/qsig/qalter with
# Torque's exit codes, Torque job ids (123.host) taken everywhere,
# pbsnodes -o/-c kept across a restart, qalter committed before the reply
# (it survives a restart), the binary called by those names (argv[0]),
# and --json with errors as JSON objects.
. tests/integration/lib.sh

MOKU=$(cd "$(dirname "$MOKU")" && pwd)/$(basename "$MOKU")
H=$TMP/home
mkdir -p "$H" "$TMP/work" "$TMP/bin"
# LOGLEVEL 3 logs each iteration (iterated).
printf 'RMPOLLINTERVAL 1\nNODECFG[n1] PROCS=2\nNODECFG[n2] PROCS=2 FEATURES=big\nLOGLEVEL 3\n' >"$H/maui.cfg"
export MOKU_HOME="$H"
for c in qstat qdel qhold qrls qalter qsig qrun pbsnodes; do ln -s "$MOKU" "$TMP/bin/$c"; done
pid=""
start_daemon() {
    "$MOKU" serve --home "$H" >>"$TMP/serve.log" 2>&1 &
    pid=$!
    i=0
    while [ $i -lt 50 ] && ! timeout 5 "$MOKU" showq >/dev/null 2>&1; do sleep 0.1; i=$((i + 1)); done
}
trap 'stop_daemon; lib_cleanup' EXIT
# t CMD ARGS...: a Torque command by its own name; output in $TMP/out, err, rc.
t() {
    c=$1
    shift
    timeout 10 "$TMP/bin/$c" "$@" >"$TMP/out" 2>"$TMP/err"
    rc=$?
}
HOST=$(hostname | cut -d. -f1)

start_daemon
cd "$TMP/work" || exit 1
j1=$(echo 'sleep 60' | timeout 5 "$MOKU" submit -N first -l nodes=1:ppn=2,walltime=1:00:00)
j2=$(echo 'sleep 60' | timeout 5 "$MOKU" submit -h -l walltime=30:00)
j3=$(echo 'sleep 60' | timeout 5 "$MOKU" submit -l nodes=1:ppn=2,walltime=10:00,mem=2gb)
both_run() { [ "$(state "$j1")" = Running ] && [ "$(state "$j3")" = Running ]; }
wait_for 10 both_run

t qstat
check "qstat: Torque's header" sh -c "head -1 $TMP/out | grep -q '^Job ID                    Name             User            Time Use S Queue$'"
check "qstat: its dashes" grep -q '^------------------------- ---------------- --------------- -------- - -----$' "$TMP/out"
check "qstat: a running job, R, with the server in its id" grep -q "^$j1\\.$HOST  *first  .* R DEFAULT$" "$TMP/out"
check "qstat: a held job, H, Time Use 0" grep -q "^$j2\\.$HOST  *STDIN  .* 0 H DEFAULT$" "$TMP/out"

t qstat -a
check "qstat -a: server line and Torque 4's headers" sh -c "sed -n 2p $TMP/out | grep -q '^$HOST: \$' && grep -q '^Job ID                  Username    Queue    Jobname          SessID  NDS   TSK   Memory      Time    S   Time\$' $TMP/out"
check "qstat -a: the dashes of 23 11 8 16 6 5 6 9 9 1 9" grep -q '^----------------------- ----------- -------- ---------------- ------ ----- ------ --------- --------- - ---------$' "$TMP/out"
check "qstat -a: requested memory, walltime, state" grep -q "^$j3\\.$HOST .* 2gb  00:10:00 R  00:00:0" "$TMP/out"
check "qstat -a: a queued job's elapsed time is '-- '" grep -q "00:30:00 H       -- \$" "$TMP/out"

t qstat -n
check "qstat -n: the nodes under a running job" sh -c "grep -A1 '^$j1\\.' $TMP/out | grep -q '^   n[12]/0-1\$'"

t qstat -f "$j1.$HOST.example.org"
check "qstat -f with a long Torque id" sh -c "grep -q '^Job Id: $j1.$HOST\$' $TMP/out && grep -q '^    Job_Name = first\$' $TMP/out && grep -q '^    Resource_List.nodes = 1:ppn=2\$' $TMP/out && grep -q '^    job_state = R\$' $TMP/out"

t qstat 999."$HOST"
check "qstat of an unknown job: Torque's message, exit 153" sh -c "[ $rc = 153 ] && grep -q '^qstat: Unknown Job Id 999.$HOST\$' $TMP/err"

t qstat -u nosuchuser
check "qstat -u: only that user's jobs (none here)" sh -c "[ $rc = 0 ] && [ ! -s '$TMP/out' ]"

# qalter: committed before the reply, so a restart keeps it.
t qalter -l walltime=45:00 -N renamed "$j2.$HOST"
check "qalter: silent, exit 0" sh -c "[ $rc = 0 ] && [ ! -s $TMP/out ]"
stop_daemon
start_daemon
t qstat -a "$j2"
check "qalter's walltime and name survive a restart" grep -q "renamed .* 00:45:00 H" "$TMP/out"
t qalter -l walltime=10:00 "$j1"
check "qalter of a running job's walltime: bad state, 170" sh -c "[ $rc = 170 ] && grep -q 'Request invalid for state of job' $TMP/err"
t qalter -l mem=1gb "$j2"
check "qalter of another resource: refused, 156" [ "$rc" = 156 ]
# A name qsub -N would refuse (found by a review: a '/' made the job
# unable to start, control characters reached qstat's readers).
t qalter -N 'x/y' "$j2"
check "qalter -N with a '/': refused, 156, the name kept" sh -c "[ $rc = 156 ] && timeout 5 '$TMP/bin/qstat' -a $j2 | grep -q renamed"
t qalter -N "$(printf 'e\033[31mRED')" "$j1"
check "qalter -N with a control character: refused, 156" [ "$rc" = 156 ]

# qrls, qhold, qdel.
t qrls "$j2.$HOST"
check "qrls: released" sh -c "[ $rc = 0 ] && timeout 5 '$MOKU' qstat $j2 | grep -q ' Q DEFAULT\$'"
t qhold "$j2"
check "qhold: held again" sh -c "[ $rc = 0 ] && timeout 5 '$MOKU' checkjob $j2.$HOST | grep -q '^State: UserHold'"
t qdel 777."$HOST"
check "qdel of an unknown job: 'qdel: Unknown Job Id 777.host', exit 153" sh -c "[ $rc = 153 ] && grep -q '^qdel: Unknown Job Id 777.$HOST\$' $TMP/err"
t qdel "$j2.$HOST"
check "qdel: silent, exit 0" sh -c "[ $rc = 0 ] && [ ! -s $TMP/out ]"
t qstat
check "... gone from qstat" sh -c "! grep -q '^$j2\\.' $TMP/out"
t qstat -c
check "... and shown as C by qstat -c (PBS Pro's -x; Torque's -x is XML)" grep -q "^$j2\\.$HOST .* C DEFAULT$" "$TMP/out"
t qdel "$j2"
check "qdel of a removed job qstat -c still lists: Torque's invalid state, 170, the id completed with the server" \
    sh -c "[ $rc = 170 ] && grep -q '^qdel: Request invalid for state of job MSG=invalid state for job - COMPLETE $j2.$HOST\$' $TMP/err"

# qsig: suspend and resume; other signals refused clearly.
t qsig -s suspend "$j3.$HOST"
check "qsig -s suspend: S" sh -c "[ $rc = 0 ] && timeout 5 '$MOKU' qstat $j3 | grep -q ' S DEFAULT\$'"
t qsig -s resume "$j3"
check "qsig -s resume: R" sh -c "[ $rc = 0 ] && timeout 5 '$MOKU' qstat $j3 | grep -q ' R DEFAULT\$'"
t qsig -s SIGUSR1 "$j3"
check "qsig -s SIGUSR1: refused with a reason, 156" sh -c "[ $rc = 156 ] && grep -q 'only suspend and resume' $TMP/err"

# qrun: an idle job started now (scheduling stopped, so only qrun starts it).
timeout 5 "$MOKU" schedctl -s >/dev/null
t qdel "$j3"
j4=$(echo 'sleep 60' | timeout 5 "$MOKU" submit -l walltime=5:00)
iterated "$H/log/maui.log" 2
check "... the job waits while scheduling is stopped" sh -c "timeout 5 '$MOKU' qstat $j4 | grep -q ' Q DEFAULT\$'"
t qrun "$j4.$HOST"
check "qrun: it starts" sh -c "[ $rc = 0 ] && timeout 5 '$MOKU' qstat $j4 | grep -q ' R DEFAULT\$'"
timeout 5 "$MOKU" schedctl -r >/dev/null

# canceljob and checkjob take Torque ids too.
run checkjob "$j1.$HOST"
check "checkjob 12.host" has_out "^checking job $j1\$"

# pbsnodes: Torque's blocks; -o and -c kept in the store.
t pbsnodes -a
check "pbsnodes -a: a node block" sh -c "grep -q '^n2\$' $TMP/out && grep -q '^     state = ' $TMP/out && grep -q '^     np = 2\$' $TMP/out && grep -q '^     properties = big\$' $TMP/out && grep -q '^     ntype = cluster\$' $TMP/out"
t pbsnodes -o -N "fan broken" n2
check "pbsnodes -o: exit 0" [ "$rc" = 0 ]
stop_daemon
start_daemon
t pbsnodes -l
check "an offline node stays offline after a restart" grep -q '^n2  *offline$' "$TMP/out"
t pbsnodes n2
check "... with its note" grep -q '^     note = fan broken$' "$TMP/out"
t pbsnodes -c n2
t pbsnodes -l
check "pbsnodes -c: back online" [ ! -s "$TMP/out" ]
t pbsnodes -o nX
check "pbsnodes -o of an unknown node: refused" sh -c "[ $rc != 0 ] && grep -q 'Unknown node' $TMP/err"

# The moku name works as well as the symlink.
run qstat -a
check "moku qstat -a" has_out "^Job ID                  Username"

# --json everywhere; failures as JSON objects on stdout.
run showq --json
check "showq --json is JSON" sh -c "python3 -c 'import json,sys; json.load(open(\"$TMP/out\"))'"
run checkjob --json 4242
check "a failure with --json: {\"error\": ..., \"exit\": N} on stdout, exit N" \
    sh -c "[ $rc = 1 ] && python3 -c 'import json; o = json.load(open(\"$TMP/out\")); assert o[\"exit\"] == 1 and \"4242\" in o[\"error\"]'"
t qdel --json 4343
check "qdel --json of an unknown job: exit 153 in the object and the status" \
    sh -c "[ $rc = 153 ] && python3 -c 'import json; o = json.load(open(\"$TMP/out\")); assert o[\"exit\"] == 153'"
run qstat --format=json "$j1"
check "qstat --format=json" sh -c "python3 -c 'import json; o = json.load(open(\"$TMP/out\")); assert o[\"jobs\"][0][\"state\"] == \"R\"'"

# Maui's and Moab's names: mdiag, showq -p, resetstats (kept across a restart).
run mdiag -p
check "mdiag is diagnose" has_out "diagnosing job priority information"
run showq -p DEFAULT
check "showq -p PARTITION lists that partition's jobs" has_out "^$j1 "
run showq -p nosuch
check "showq -p of another partition lists none" has_out "Total Jobs: 0"
run resetstats
check "resetstats: ADMIN1 resets the statistics" has_out "^statistics reset$"
before=$(timeout 5 "$MOKU" showstats | sed -n 's/.*stats initialized on //p')
stop_daemon
start_daemon
after=$(timeout 5 "$MOKU" showstats | sed -n 's/.*stats initialized on //p')
check "... and the new start is kept across a restart" sh -c "[ -n '$before' ] && [ '$before' = '$after' ]"
done_checks
