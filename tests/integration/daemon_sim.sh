#!/bin/sh
# The simulator predicts the live scheduler (issue 26 §1): one small workload
# run through `moku serve` (short jobs, virtual nodes from NODECFG, the local
# resource manager) and through `moku simulate` (the same jobs as a trace,
# with the submit times and run times the daemon saw) starts the same jobs in
# the same order on the same nodes, at the same times to within a second.
#
# RMPOLLINTERVAL is a minute, so that the daemon's own polls catch nothing in
# the half minute the workload runs: what time alone changes must wake both
# by the engine's rule (policy/wake.c).
#   - a blocker holds all 8 processors for 3 s; behind it wait j1 (2
#     processors, walltime 12 s, runs 10 s) and j2 (4 processors, walltime
#     2 s) of class 1 (MAXPS=24: j1 alone holds 24 processor-seconds), and
#     c1..c4 of class 2 (MAXIJOB=2);
#   - when the blocker ends, j1, c1 and c2 start; c3 and c4 are promoted by
#     those starts and start at the same instant (MAXIJOB);
#   - j1's remaining processor-seconds fall to 16 four seconds later: j2
#     starts then, six seconds before j1 ends (MAXPS).
# Scheduling is stopped (schedctl -s) while the jobs are submitted and
# resumed (schedctl -r) once all are queued, and the replay submits them all
# at that instant: the schedule does not hang on how fast the clients run (a
# slow client once made c1..c4 arrive a second apart, the last one's start
# fell in the second j2 started, and the daemon's 1-second race between a
# job's end and an iteration decided the nodes).
. tests/integration/lib.sh
. tests/integration/lib_dsim.sh
dsim_serve <<'EOF'
CLASSCFG[1] MAXPS=24
CLASSCFG[2] MAXIJOB=2
CLASSCFG[3]
EOF
timeout 5 "$MOKU" schedctl -s >/dev/null 2>&1 || fail "schedctl -s refused"

# name procs walltime seconds class: submit `sleep seconds`; the id is kept.
ids=""
sub() {
    printf 'sleep %s\n' "$4" >"$W/$1.sh"
    j=$(cd "$W" && timeout 5 "$MOKU" submit -N "$1" -q "$5" -l "procs=$2,walltime=$3" "$1.sh")
    ids="$ids $1=$j"
}
sub blocker 8 10 3 3
sub j1 2 12 10 1
sub j2 4 2 1 1
for c in c1 c2 c3 c4; do sub "$c" 1 5 1 2; done
timeout 5 "$MOKU" schedctl -r >/dev/null 2>&1 || fail "schedctl -r refused"

# Every job completed within 60 s (j1 ends near 13 s).
done_all() {
    for p in $ids; do
        timeout 5 "$MOKU" checkjob "${p#*=}" 2>/dev/null | grep -q '^State: Completed' || return 1
    done
}
i=0
while [ $i -lt 600 ] && ! done_all; do
    sleep 0.1
    i=$((i + 1))
done
check "the daemon ran the 7 jobs to their end" done_all

# What the daemon did, per job: name, submit and start (epoch), end, nodes
# (from its log line "job N started on n1:2 ...").
: >"$TMP/daemon.txt"
for p in $ids; do
    name=${p%%=*} j=${p#*=}
    timeout 5 "$MOKU" checkjob --format=json "$j" >"$TMP/cj.json" 2>/dev/null
    get() { sed -n "s/.*\"$1\": *\([0-9]*\).*/\1/p" "$TMP/cj.json" | head -n 1; }
    nodes=$(sed -n "s/.*job $j started on \(.*\)\$/\1/p" "$H/log/maui.log" | tail -n 1)
    echo "$name $(get submit) $(get start) $(get end) $nodes" >>"$TMP/daemon.txt"
done
stop_daemon
# Scheduling resumed when the blocker started.
t0=$(awk '$1 == "blocker" { print $3 }' "$TMP/daemon.txt")

# The same jobs as an SWF trace: all submitted when scheduling resumed, run
# time as the daemon saw it;
# the job number is the order of submission, the queue number the class.
awk '{
    split("8 2 4 1 1 1 1", procs, " "); split("10 12 2 5 5 5 5", wall, " ")
    split("3 1 1 2 2 2 2", cls, " ")
    printf "%d 0 -1 %d %d -1 -1 %d %d -1 1 0 0 -1 %d -1 -1 -1\n", NR, $4 - $3,
        procs[NR], procs[NR], wall[NR], cls[NR]
}' "$TMP/daemon.txt" >"$TMP/w.swf"
grep -v '^LOGLEVEL' "$H/maui.cfg" >"$TMP/sim.cfg"
"$MOKU" simulate --config "$TMP/sim.cfg" --jobs-out "$TMP/sim.csv" "$TMP/w.swf" >"$TMP/sim.out" 2>&1
check "moku simulate replays the same jobs" grep -q 'jobs simulated *7' "$TMP/sim.out"

# Side by side, a line per job in submission order: name, start in the
# daemon and in the replay (seconds from the resumption), nodes in
# each (the replay's host ranges written out: n[1-2]:4 is n1:4,n2:4).
awk -F, -v t0="$t0" '
function expand(s,    out, e, n, i, m, pre, lo, hi, k, procs) {
    out = ""
    n = split(s, e, " ")
    for (i = 1; i <= n; i++) {
        if (match(e[i], /\[[0-9]+-[0-9]+\]/)) {
            pre = substr(e[i], 1, RSTART - 1)
            split(substr(e[i], RSTART + 1, RLENGTH - 2), m, "-")
            procs = substr(e[i], RSTART + RLENGTH)
            for (k = m[1]; k <= m[2]; k++)
                out = out (out == "" ? "" : ",") pre k procs
        } else
            out = out (out == "" ? "" : ",") e[i]
    }
    return out
}
NR == FNR { if (FNR > 1) { s[$1] = $3; n[$1] = expand($18) } next }
{ split($0, f, " "); d = $0; sub(/^[^ ]+ [^ ]+ [^ ]+ [^ ]+ /, "", d)
  printf "%s %d %d %s %s\n", f[1], f[3] - t0, s[FNR], d, n[FNR] }' \
    "$TMP/sim.csv" "$TMP/daemon.txt" >"$TMP/side.txt"
sed 's/^/# /' "$TMP/side.txt"
order() { awk -v c="$1" '{ print $c, NR, $1 }' "$TMP/side.txt" | sort -n -k1 -k2 | cut -d' ' -f3 | tr '\n' ' '; }
check "the same order of starts" [ "$(order 2)" = "$(order 3)" ]
check "the same start times, to within a second" \
    awk '{ d = $2 - $3; if (d < -1 || d > 1) exit 1 }' "$TMP/side.txt"
check "the same nodes" awk '$4 != $5 { exit 1 }' "$TMP/side.txt"

# What the rule is for: the wake-ups happened in the daemon, a minute before
# its next poll.
start_of() { awk -v n="$1" '$1 == n { print $3 }' "$TMP/daemon.txt"; }
end_of() { awk -v n="$1" '$1 == n { print $4 }' "$TMP/daemon.txt"; }
# (The daemon's iteration after its own starts runs at once, but its clock
# may pass a second boundary in between: within a second, a minute before
# the next poll.)
check "MAXIJOB: c3 and c4, promoted by c1's and c2's starts, started with them (within a second)" \
    sh -c "[ $(start_of c3) -le $(($(start_of c1) + 1)) ] && [ $(start_of c4) -le $(($(start_of c1) + 1)) ]"
check "MAXPS: j2 started when j1's remaining processor-seconds allowed it (4 s in), before j1 ended" \
    sh -c "[ $(start_of j2) -eq \$(($(start_of j1) + 4)) ] && [ $(start_of j2) -lt $(end_of j1) ]"
done_checks
