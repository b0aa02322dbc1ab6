#!/bin/sh
# The simulator predicts the live scheduler for Torque's arrays and
# dependencies too (issue 30): one workload submitted with qsub to a real
# `moku serve` (local resource manager, jobs that sleep, run as a real
# user) and written as a --commands script (`submit`, `qalter`) for `moku
# simulate` starts the same jobs in the same order at the same times (to
# within a second, the daemon's reaction), and removes the same ones.
#
# Two nodes of 4 processors, all of them busy from the start;
# RMPOLLINTERVAL a minute, so that what happens must happen by the
# engine's rules at job ends, not at a poll:
#   - long (4 processors, 14 s); p (succeeds) and f (exit 3), 6 s each;
#     arr, -t 1-4%2, 4 s each: two tasks at a time (arr[3] and arr[4] at 4 s);
#   - alt waits for long (afterok), then qalter makes it wait for f
#     (afterany); ok (afterok:p), nok (afternotok:f), any (afterany:f,p),
#     3 s each, are released when f and p end (6 s), okf (afterok:f) is
#     removed then, with the reason; the two processors f and p free go to
#     the first two in queue order, alt and ok; nok and any wait for arr's
#     (8 s); q waits for arr[4] (afterok), then for a processor (9 s).
# Scheduling is stopped (schedctl -s) while the workload is submitted and
# resumed (schedctl -r) once all of it is queued: every job is there at the
# first iteration, however slowly the clients run (under the sanitizers a
# qsub takes a second: ok, submitted after f had ended, started a second
# after alt), and the replay submits everything at that instant.
# Root, useradd and runuser are needed (tests/run.sh runs it under the
# users lock: the user's name is fixed).
. tests/integration/lib.sh
. tests/integration/lib_dsim.sh
if [ "$(id -u)" != 0 ] || ! command -v useradd >/dev/null 2>&1 || ! command -v runuser >/dev/null 2>&1; then
    fail "daemon_sim_arrays.sh needs root, useradd and runuser (the jobs run as a real user)"
    exit 1
fi
mkdir -p "$TMP/bin"
u=mokudsa
add_user "$u"
chown "$u" "$W"
# The checkout may sit under a directory only root may enter: the user runs
# a copy of the client, by Torque's names.
cp "$MOKU" "$TMP/moku-client" && chmod 755 "$TMP/moku-client"
for c in qsub qalter; do ln -s "$TMP/moku-client" "$TMP/bin/$c"; done
dsim_serve </dev/null
timeout 5 "$MOKU" schedctl -s >"$TMP/out" 2>&1
check "schedctl -s stops scheduling while the workload is submitted" [ $? = 0 ]

# The user's Torque command CMD ARGS... in the work directory.
as_user() {
    c=$1
    shift
    (cd "$W" && runuser -u "$u" -- env MOKU_HOME="$H" timeout 10 "$TMP/bin/$c" "$@")
}
# The job's number in qsub's answer "12.host" / "12[].host".
num() { sed -n 's/^\([0-9]*\).*/\1/p'; }
script() { printf '#!/bin/sh\nsleep %s\nexit %s\n' "$2" "$3" >"$W/$1.sh" && chmod 644 "$W/$1.sh"; }

# name seconds exit procs [qsub options]: submit; the script's line in
# $TMP/cmds (names for the daemon's ids, DEPEND as the sim names them) and
# the id in $TMP/ids.
: >"$TMP/ids"
: >"$TMP/lines"
sub() {
    name=$1 secs=$2 ex=$3 procs=$4
    shift 4
    script "$name" "$secs" "$ex"
    j=$(as_user qsub -N "$name" -l "procs=$procs,walltime=60" "$@" "$name.sh" 2>"$TMP/qsub.err" | num)
    [ -n "$j" ] || fail "qsub of $name: $(cat "$TMP/qsub.err")"
    echo "$name $j" >>"$TMP/ids"
    # The sim's line, its time the instant scheduling resumes (filled in later):
    # the daemon's ids in dependencies become names.
    opts=$(echo "$*" | sed -f "$TMP/names.sed")
    echo "@$name submit $name $secs --exit $ex -u $u -l procs=$procs,walltime=60 $opts" >>"$TMP/lines"
    make_sed
}
# A sed script turning a daemon id in a dependency (:12, :12[3]) into its
# name (:arr[3]).
make_sed() {
    awk '{ printf "s/:%s\\>/:%s/g\n", $2, $1 }' "$TMP/ids" >"$TMP/names.sed"
}
id_of() { awk -v n="$1" '$1 == n { print $2 }' "$TMP/ids"; }
make_sed

sub long 14 0 4
sub f 6 3 1
sub p 6 0 1
sub alt 3 0 1 -W "depend=afterok:$(id_of long)"
as_user qalter -W "depend=afterany:$(id_of f)" "$(id_of alt)" >"$TMP/out" 2>&1
rc=$?
echo "@ qalter -W depend=afterany:f alt" >>"$TMP/lines"
check "qalter -W depend= of alt accepted" [ "$rc" = 0 ]
sub ok 3 0 1 -W "depend=afterok:$(id_of p)"
sub nok 3 0 1 -W "depend=afternotok:$(id_of f)"
sub okf 3 0 1 -W "depend=afterok:$(id_of f)"
sub any 3 0 1 -W "depend=afterany:$(id_of f):$(id_of p)"
sub arr 4 0 1 -t 1-4%2
arr=$(id_of arr)
sub q 1 0 1 -W "depend=afterok:$arr[4]"
timeout 5 "$MOKU" schedctl -r >"$TMP/out" 2>&1
rc=$?
check "schedctl -r resumes scheduling with the whole workload queued" [ "$rc" = 0 ]

# The daemon's jobs, tasks included, as "name id".
awk -v a="$arr" '$1 != "arr" { print } END { for (i = 1; i <= 4; i++) printf "arr[%d] %s[%d]\n", i, a, i }' \
    "$TMP/ids" >"$TMP/jobs"
ended() {
    while read -r _ j; do
        timeout 5 "$MOKU" checkjob "$j" 2>/dev/null | grep -q '^State: \(Completed\|Removed\)' || return 1
    done <"$TMP/jobs"
}
check "the daemon ended every job within 120 s" wait_for 120 ended

# What the daemon did, per job: name, submit, start (0: never), state.
: >"$TMP/daemon.txt"
while read -r name j; do
    timeout 5 "$MOKU" checkjob --format=json "$j" >"$TMP/cj.json" 2>/dev/null
    get() { sed -n "s/.*\"$1\": *\"\{0,1\}\([0-9A-Za-z]*\).*/\1/p" "$TMP/cj.json" | head -n 1; }
    echo "$name $(get submit) $(get start) $(get state)" >>"$TMP/daemon.txt"
done <"$TMP/jobs"
stop_daemon
sed 's/^/# daemon: /' "$TMP/daemon.txt"

# The same workload for the simulator: trace seconds from 100 s before
# scheduling resumed (when long started), when every line is due (the
# trace's one job, 1 processor for 1 s at 0, ends long before).
t0=$(awk '$1 == "long" { print $3 - 100 }' "$TMP/daemon.txt")
printf '1 0 -1 1 1 -1 -1 1 1 -1 1 0 0 -1 1 -1 -1 -1\n' >"$TMP/w.swf"
awk '{ $1 = 100; print }' "$TMP/lines" >"$TMP/w.cmds"
sed 's/^/# sim: /' "$TMP/w.cmds"
grep -v '^LOGLEVEL' "$H/maui.cfg" >"$TMP/sim.cfg"
"$MOKU" simulate --config "$TMP/sim.cfg" --jobs-out "$TMP/sim.csv" --commands "$TMP/w.cmds" \
    "$TMP/w.swf" >"$TMP/sim.out" 2>"$TMP/sim.err"
check "moku simulate replays the script (exit 0, no failed command)" \
    sh -c "[ $? = 0 ] && ! grep -q '^moku: $TMP/w.cmds:' '$TMP/sim.err'"

# Side by side: name, start in the daemon and in the replay (seconds from
# t0; -1 never), ran or not in each.
awk -F, -v t0="$t0" '
NR == FNR { if (FNR > 1) { s[$1] = $3 == "" ? -1 : $3; st[$1] = $16 } next }
{ split($0, f, " "); d = f[3] ~ /^[0-9]+$/ && f[3] > 0 ? f[3] - t0 : -1
  printf "%s %d %d %s %s\n", f[1], d, (f[1] in s) ? s[f[1]] : -2, f[4], st[f[1]] }' \
    "$TMP/sim.csv" "$TMP/daemon.txt" >"$TMP/side.txt"
sed 's/^/# /' "$TMP/side.txt"
check "every job of the 13 is in the replay" awk '$3 == -2 { exit 1 } END { exit NR != 13 }' "$TMP/side.txt"
check "the same jobs never ran (removed in both)" awk '($2 < 0) != ($3 < 0) { exit 1 }' "$TMP/side.txt"
check "okf removed by both (afterok on f, which failed)" \
    awk '$1 == "okf" { f = 1; if ($2 >= 0 || $3 >= 0 || $4 != "Removed" || $5 != "cancelled") exit 1 } END { exit !f }' \
    "$TMP/side.txt"
order() { awk -v c="$1" '$c >= 0 { print $c, NR, $1 }' "$TMP/side.txt" | sort -n -k1 -k2 | cut -d' ' -f3 | tr '\n' ' '; }
# Jobs that start within a second of each other may come in either order:
# compare the order of starts at least two seconds apart.
check "the same start times, to within a second" \
    awk '{ d = $2 - $3; if (d < -1 || d > 1) exit 1 }' "$TMP/side.txt"
check "the same order of starts, job for job" \
    awk '$2 >= 0 { for (i in s) if ((s[i] - $2 >= 2 && r[i] < $3) || ($2 - s[i] >= 2 && $3 < r[i])) exit 1
                   s[$1] = $2; r[$1] = $3 }' "$TMP/side.txt"
start_of() { awk -v n="$1" -v c="$2" '$1 == n { print $c }' "$TMP/side.txt"; }
check "the slot limit: arr[3] starts when arr[1] ends (4 s later), in both" \
    sh -c "[ $(start_of 'arr[3]' 3) -eq \$(($(start_of 'arr[1]' 3) + 4)) ] && [ $(start_of 'arr[3]' 2) -ge \$(($(start_of 'arr[1]' 2) + 3)) ]"
check "qalter: alt started when f ended (6 s), not after long (14 s), in both" \
    sh -c "[ $(start_of alt 3) -eq \$(($(start_of f 3) + 6)) ] && [ $(start_of alt 2) -lt \$(($(start_of long 2) + 13)) ]"
check "the processors f and p freed went to alt and ok; nok and any started later, in both" \
    sh -c "[ $(start_of ok 3) -eq $(start_of alt 3) ] && [ $(start_of nok 3) -gt $(start_of ok 3) ] &&
           [ $(start_of any 3) -gt $(start_of ok 3) ] && [ $(start_of nok 2) -gt $(start_of alt 2) ] &&
           [ $(start_of any 2) -gt $(start_of alt 2) ]"
check "q started after arr[4] ended, in both" \
    sh -c "[ $(start_of q 3) -ge \$(($(start_of 'arr[4]' 3) + 4)) ] && [ $(start_of q 2) -ge \$(($(start_of 'arr[4]' 2) + 3)) ]"
done_checks
