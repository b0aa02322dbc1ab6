#!/bin/sh
# The daemon's own history as a workload (issue 32): a small live run of
# moku serve (two virtual nodes of two processors, jobs that queue behind
# each other, one backfilled), then `moku simulate HOME` replays what the
# daemon ran under the same maui.cfg: every job starts when the daemon
# started it. Then a what-if beside what happened (--recorded), the
# replay validated, and a home the simulator cannot read.
. tests/integration/lib.sh

daemon_home
printf 'RMPOLLINTERVAL 1\nNODECFG[n1] PROCS=2\nNODECFG[n2] PROCS=2\n' >"$H/maui.cfg"
trap 'stop_daemon; lib_cleanup' EXIT
"$MOKU" serve --home "$H" >>"$TMP/serve.log" 2>&1 &
pid=$!
i=0
while [ $i -lt 50 ] && ! timeout 5 "$MOKU" showq >/dev/null 2>&1; do
    sleep 0.1
    i=$((i + 1))
done

cd "$TMP/work" || exit 1
for s in 2 3 4 5 7; do printf 'sleep %s\n' "$s" >"s$s.sh"; done
chmod 755 s2.sh s3.sh s4.sh s5.sh s7.sh
sub() { timeout 5 "$MOKU" submit "$@" 2>>"$TMP/submit.err"; }
# The recorded times are whole seconds, and the daemon sees an end at its
# next poll (later on a loaded machine), so two events closer than that
# could be seen by the daemon in either order while the replay takes ends
# first: a schedule that hinges on such a tie is not the replay's to
# predict. This one has none: every submission is in before the first end
# (a loaded machine takes about two seconds for the six), every later
# event is one end alone, three seconds or more from the next, and no
# walltime is a tie with a reservation's start. j1 ends while j6 (the
# backfilled one) runs: nothing can start then. j6's end starts j2 (all
# four processors); j2's starts j3 and j4; j5 waits for j4's.
j1=$(sub -l procs=2,walltime=60 s4.sh)
j2=$(sub -l procs=4,walltime=60 s3.sh)
j3=$(sub -l procs=1,walltime=120 s2.sh)
j4=$(sub -l nodes=2:ppn=1,walltime=30 s5.sh)
j5=$(sub -l procs=3,walltime=10 s2.sh)
j6=$(sub -l procs=1,walltime=10 s7.sh)
check "six jobs submitted" sh -c "[ -n '$j1' ] && [ -n '$j6' ]"
# Wait (at most 90 s) until the queue is empty and nothing runs.
i=0
while [ $i -lt 900 ]; do
    timeout 5 "$MOKU" showq >"$TMP/q" 2>/dev/null && grep -q '^Total Jobs: 0 ' "$TMP/q" && break
    sleep 0.1
    i=$((i + 1))
done
check "the daemon ran them all" grep -q '^Total Jobs: 0 ' "$TMP/q"
stop_daemon
cd - >/dev/null || exit 1

# The replay: the home's own maui.cfg; the recorded schedule beside it.
run simulate --recorded --jobs-out "$TMP/h.csv" "$H"
check "simulate HOME: six jobs, the home's configuration" sh -c "[ $rc -eq 0 ] && grep -Eq '^  configuration +recorded +maui\.cfg\$' $TMP/out && grep -Eq '^  jobs simulated +6 +6\$' $TMP/out"
# The stored end is the job's own (its supervisor's); the daemon starts the
# next job when it sees the end, at once when the machine is quiet, a
# second or so later when it is loaded (make check, other tests), and the
# replay starts it at the end itself. So: the same jobs in the same order,
# and every start the daemon's, or earlier by at most that reaction (4 s
# over the chain j6, j2, j4, j5); on a quiet machine all six are exact.
awk -F, '$1 == "recorded" { print $2, $4, $5 }' "$TMP/h.csv" | sort >"$TMP/rec"
awk -F, '$1 == "1" { print $2, $4, $5 }' "$TMP/h.csv" | sort >"$TMP/sim"
sort -n -k 2 -k 1 "$TMP/rec" | cut -d' ' -f1 >"$TMP/rec.order"
sort -n -k 2 -k 1 "$TMP/sim" | cut -d' ' -f1 >"$TMP/sim.order"
check "the replay starts the jobs in the daemon's order" sh -c "[ \$(wc -l <$TMP/rec) -eq 6 ] && cmp -s $TMP/rec.order $TMP/sim.order"
check "... each when the daemon did (or up to its reaction to an end earlier)" \
    awk 'NR == FNR { rec[$1] = $2; next } { d = rec[$1] - $2; if (d < 0 || d > 4) bad = 1 } END { exit bad }' "$TMP/rec" "$TMP/sim"
exact=$(awk 'NR == FNR { rec[$1] = $2; next } rec[$1] == $2 { n++ } END { print n + 0 }' "$TMP/rec" "$TMP/sim")
echo "# $exact of 6 starts exact; the submissions spanned $(awk -F, '$1 == "recorded" { if (!n++ || $3 < lo) lo = $3; if ($3 > hi) hi = $3 } END { print hi - lo }' "$TMP/h.csv") s"
check "some job waited (the run was not trivial)" sh -c "awk -F, '\$1 == \"recorded\" && \$6 > 0' $TMP/h.csv | grep -q ."
awk -F, 'NR == 1 || $1 == "1"' "$TMP/h.csv" >"$TMP/run1.csv"
run validate --config "$H/maui.cfg" "$H" "$TMP/run1.csv"
check "the replay of the home validates" sh -c "[ $rc -eq 0 ] && grep -q 'run1.csv: 6 jobs, 0 violations' $TMP/out"

# What if: first come, first served, beside what happened.
run simulate --recorded --set BACKFILLPOLICY=NONE --format json "$H"
check "a what-if beside the recorded schedule (JSON)" sh -c "[ $rc -eq 0 ] && grep -q '^{\"recorded\":{\"config\":\"recorded\",' $TMP/out && grep -q '\"runs\":\[{\"config\":\"$H/maui.cfg\",\"overrides\":\[\"BACKFILLPOLICY=NONE\"\]' $TMP/out"
run simulate --strict "$H"
check "--strict: nothing in the history it cannot use" [ "$rc" -eq 0 ]
cp "$H/maui.cfg" "$TMP/other.cfg"
run simulate --config "$TMP/other.cfg" "$H"
check "--config wins over the home's maui.cfg" sh -c "[ $rc -eq 0 ] && grep -q 'policy *BACKFILLPOLICY FIRSTFIT' $TMP/out"
mkdir "$TMP/broken"
printf 'not a database, not even close\n' >"$TMP/broken/moku.db"
run simulate --procs 4 "$TMP/broken"
check "a home whose database is not one: said, exit 1" sh -c "[ $rc -eq 1 ] && grep -q 'broken/moku.db' $TMP/err"
done_checks
