#!/bin/sh
# The policy lab (issue 32): a --compare grid and its Pareto front checked
# by hand; comparisons in worker processes byte for byte a sequential
# run's; runs saved apart (--run/--save-run) and merged; runtime-estimate
# models, warm-up and cool-down, the bounded slowdown's tau, per-user rows;
# moku validate reading moku's SWF and Batsim outputs; Batsim's column names.
. tests/integration/lib.sh
front=tests/data/lab/front.swf
small=tests/data/compare/small.swf
# KTH's first 6,000 jobs: enough queueing to tell runs apart, quick to replay.
kth=$TMP/kth6000.swf
gzip -dc data/KTH-SP2-1996-2.1-cln.norm.swf.gz | awk '/^;/ || ++n <= 6000' >"$kth"
if command -v python3 >/dev/null 2>&1; then py=python3; else py=; fi
# The report without what measures wall time (it differs from run to run).
untimed() { grep -v 'wall time' "$1" | sed 's/"wall_seconds":[0-9.]*//g; s/"read_seconds":[0-9.]*//g; s/reading the trace [0-9.]* s/reading the trace/'; }

# --------------------------------------------------- the grid, by hand
# front.swf on 4 processors: job 1 (2 procs, 100 s) at 0, job 2 (4 procs,
# 100 s) at 1, job 3 (2 procs, 150 s, user 2) at 2, job 4 (2 procs, 10 s,
# user 2) at 3. Without backfill every job waits its turn: waits 0, 99, 198,
# 197. FIRSTFIT with a reservation for job 2 backfills job 4 only (job 3
# would delay job 2): 0, 99, 198, 0. FIRSTFIT without reservations
# backfills job 3 at once and job 2 waits for it: 0, 151, 0, 97.
#   run      avg wait  avg bsld (tau 10)                  util         fairness (Jain, users' waits)
#   NONE     123.5     (1+1.99+2.32+20.7)/4 = 6.5025       920/1400      (49.5+197.5)^2/(2(49.5^2+197.5^2)) = 0.736
#   FF, 0    62.0      (1+2.51+1+10.7)/4 = 3.8025          920/1008      (75.5+48.5)^2/(2(75.5^2+48.5^2)) = 0.955
#   FF, 1    74.25     (1+1.99+2.32+1)/4 = 1.5775          920/1400      (49.5+99)^2/(2(49.5^2+99^2)) = 0.900
# FIRSTFIT at depth 1 beats NONE on all four (equal utilization, the rest
# better); FIRSTFIT at 0 and at 1 do not beat each other: the front is the
# two FIRSTFIT runs.
run simulate --compare BACKFILLPOLICY=NONE,FIRSTFIT --compare RESERVATIONDEPTH=0,1 "$front"
check "grid: four runs, a row per parameter" sh -c "[ $rc -eq 0 ] && grep -q ', 4 runs\$' $TMP/out && grep -Eq '^  BACKFILLPOLICY +NONE +NONE +FIRSTFIT +FIRSTFIT\$' $TMP/out && grep -Eq '^  RESERVATIONDEPTH +0 +1 +0 +1\$' $TMP/out"
check "grid: the waits, by hand" grep -Eq '^  average wait \(s\) +123\.5 +123\.5 +62\.0 +74\.2$' "$TMP/out"
check "grid: the bounded slowdowns, by hand" grep -Eq '^  avg bounded slowdown +6\.502 +6\.502 +3\.802 +1\.578$' "$TMP/out"
check "grid: the utilizations, by hand" grep -Eq '^  utilization \(%\) +65\.71 +65\.71 +91\.27 +65\.71$' "$TMP/out"
check "grid: the fairness of waits, by hand" grep -Eq '^  wait fairness +0\.736 +0\.736 +0\.955 +0\.900$' "$TMP/out"
check "grid: NONE is beaten, both FIRSTFIT runs are on the front" sh -c "
    grep -Eq '^  1 +defaults +NONE +0 +123\.5 +6\.502 +65\.71 +0\.736\$' $TMP/out &&
    grep -Eq '^  2 +defaults +NONE +1 +123\.5 +6\.502 +65\.71 +0\.736\$' $TMP/out &&
    grep -Eq '^  3 +defaults +FIRSTFIT +0 +62\.0 +3\.802 +91\.27 +0\.955 +\*\$' $TMP/out &&
    grep -Eq '^  4 +defaults +FIRSTFIT +1 +74\.2 +1\.578 +65\.71 +0\.900 +\*\$' $TMP/out"
check "grid: per-user rows (user 2's waits in each run)" sh -c "grep -A 2 -E '^    2 +jobs +2 +2 +2 +2\$' $TMP/out | grep -Eq 'avg wait \(s\) +197\.5 +197\.5 +48\.5 +99\.0\$'"
run simulate --compare BACKFILLPOLICY=NONE,FIRSTFIT --compare RESERVATIONDEPTH=0,1 --format json "$front"
if [ -n "$py" ]; then
    check "grid json: pareto false, false, true, true; fairness and overrides" $py -c '
import json, sys
d = json.load(open(sys.argv[1]))
runs = d["runs"]
assert [r["pareto"] for r in runs] == [False, False, True, True], [r["pareto"] for r in runs]
assert [round(r["wait_fairness"], 3) for r in runs] == [0.736, 0.736, 0.955, 0.9]
assert runs[2]["overrides"] == ["BACKFILLPOLICY=FIRSTFIT", "RESERVATIONDEPTH=0"]
' "$TMP/out"
else
    check "grid json: pareto flags" sh -c "[ \$(grep -o '\"pareto\":true' $TMP/out | wc -l) -eq 2 ] && [ \$(grep -o '\"pareto\":false' $TMP/out | wc -l) -eq 2 ]"
fi
run simulate --compare BACKFILLPOLICY=NONE,FIRSTFIT --compare RESERVATIONDEPTH=0,1 --html "$TMP/g.html" "$front"
check "grid html: the front's table marks the two FIRSTFIT runs" sh -c "[ $rc -eq 0 ] && grep -q 'id=\"front\"' $TMP/g.html && [ \$(grep -o '&#9733;</td></tr>' $TMP/g.html | wc -l) -eq 2 ]"
run simulate --compare BACKFILLPOLICY=NONE,FIRSTFIT --compare BACKFILLPOLICY=BESTFIT "$front"
check "grid: one parameter twice is refused" sh -c "[ $rc -eq 2 ] && grep -q 'a grid needs two parameters' $TMP/err"
run simulate --compare A=1 --compare B=1 --compare C=1 "$front"
check "grid: three parameters are refused" sh -c "[ $rc -eq 2 ] && grep -q 'at most twice' $TMP/err"

# ---------------------------------------------- worker processes, merged
# The same comparison with one worker and with three: the report, the jobs
# CSV, the Batsim rows, the series and the HTML page byte for byte the same
# (wall times aside); so is the log of a --commands script, run by run.
printf '3600 showq -b\n' >"$TMP/cmds"
for j in 1 3; do
    run simulate --compare RESERVATIONDEPTH=1,2,4,8 --set 'USERCFG[DEFAULT] MAXPROC=64' \
        --jobs "$j" --jobs-out "$TMP/j$j.csv" --batsim-out "$TMP/b$j.csv" --series "$TMP/s$j.csv" \
        --html "$TMP/h$j.html" --plot "$TMP/p$j.svg" --commands "$TMP/cmds" "$kth"
    untimed "$TMP/out" >"$TMP/o$j.txt"
    cp "$TMP/err" "$TMP/e$j.txt"
done
check "--jobs 3: exit 0, four runs" sh -c "[ $rc -eq 0 ] && grep -q ', 4 runs\$' $TMP/o3.txt"
for f in o j b s h p e; do
    ext=csv
    case $f in o | e) ext=txt ;; h) ext=html ;; p) ext=svg ;; esac
    check "--jobs 3 gives --jobs 1's $f file, byte for byte" cmp -s "$TMP/${f}1.$ext" "$TMP/${f}3.$ext"
done
check "--jobs: the log of each run, in run order" sh -c "grep -n '^moku: run [0-9]: \[3600\] showq -b' $TMP/e3.txt | cut -d: -f3 | tr -d ' ' | tr '\n' ' ' | grep -qx 'run1 run2 run3 run4 '"
run simulate --compare RESERVATIONDEPTH=1,2 --jobs 2 --format json "$kth"
untimed "$TMP/out" >"$TMP/jp.json"
run simulate --compare RESERVATIONDEPTH=1,2 --jobs 1 --format json "$kth"
untimed "$TMP/out" >"$TMP/js.json"
check "--jobs 2 in JSON: the same report" cmp -s "$TMP/jp.json" "$TMP/js.json"
# A run that fails (its nodes and --nodes conflict): the runs before it
# report as in turn, the command fails the same way.
printf 'NODECFG[a] PROCS=4\n' >"$TMP/nodes.cfg"
for j in 1 2; do
    run simulate --config tests/data/compare/easy.cfg --config "$TMP/nodes.cfg" --nodes 2 --ppn 4 --jobs "$j" "$small"
    echo "$rc" >>"$TMP/e$j.fail"
    cat "$TMP/err" >>"$TMP/e$j.fail"
done
check "a failing run: the same exit and messages with workers" sh -c "cmp -s $TMP/e1.fail $TMP/e2.fail && grep -q '^1\$' $TMP/e2.fail && grep -q 'defines nodes (NODECFG)' $TMP/e2.fail"
run simulate --jobs 0 "$small"
check "--jobs 0 is refused" [ "$rc" -eq 2 ]
# On a terminal, a progress line of the runs; the report is unchanged.
if command -v script >/dev/null 2>&1; then
    script -qc "'$MOKU' simulate --compare RESERVATIONDEPTH=1,2 --jobs 2 --format json '$kth' >'$TMP/tty.json'" \
        "$TMP/typescript" >/dev/null 2>&1
    untimed "$TMP/tty.json" >"$TMP/tty.untimed"
    check "--jobs on a terminal: a progress line, the same report" sh -c "grep -q 'runs done' $TMP/typescript && cmp -s $TMP/tty.untimed $TMP/js.json"
else
    fail "--jobs on a terminal: script(1) is missing (bsdutils)"
fi

# A comparison as a job array: each run saved apart, merged into the same report.
for k in 2 4 1 3; do
    "$MOKU" simulate --compare RESERVATIONDEPTH=1,2,4,8 --set 'USERCFG[DEFAULT] MAXPROC=64' \
        --jobs-out "$TMP/jm.csv" --batsim-out "$TMP/bm.csv" --series "$TMP/sm.csv" \
        --html "$TMP/hm.html" --plot "$TMP/pm.svg" --commands "$TMP/cmds" \
        --run "$k" --save-run "$TMP/run$k.save" "$kth" >"$TMP/out$k" 2>"$TMP/err$k"
done
check "--save-run: nothing printed, no report file written" sh -c "[ ! -s $TMP/out1 ] && [ ! -e $TMP/jm.csv ] && [ ! -e $TMP/hm.html ] && [ -s $TMP/run3.save ]"
run simulate --merge "$TMP/run3.save" "$TMP/run1.save" "$TMP/run4.save" "$TMP/run2.save"
untimed "$TMP/out" >"$TMP/om.txt"
check "--merge: exit 0, the report of the whole comparison" sh -c "[ $rc -eq 0 ] && cmp -s $TMP/o1.txt $TMP/om.txt"
for f in j b s h p; do
    ext=csv
    case $f in h) ext=html ;; p) ext=svg ;; esac
    check "--merge writes the $f file of the single command" cmp -s "$TMP/${f}1.$ext" "$TMP/${f}m.$ext"
done
run simulate --merge "$TMP/run1.save" "$TMP/run2.save" "$TMP/run3.save"
check "--merge: a run missing" sh -c "[ $rc -eq 1 ] && grep -q 'the comparison has 4 runs, 3 files given' $TMP/err"
run simulate --merge "$TMP/run1.save" "$TMP/run1.save" "$TMP/run3.save" "$TMP/run4.save"
check "--merge: a run twice" sh -c "[ $rc -eq 1 ] && grep -q 'are both run 1' $TMP/err"
"$MOKU" simulate --compare RESERVATIONDEPTH=1,2,4,9 --run 4 --save-run "$TMP/other.save" "$small" >/dev/null 2>&1
run simulate --merge "$TMP/run1.save" "$TMP/run2.save" "$TMP/run3.save" "$TMP/other.save"
check "--merge: a run of another comparison" sh -c "[ $rc -eq 1 ] && grep -q 'other.save is a run of another comparison' $TMP/err"
head -c 200 "$TMP/run2.save" >"$TMP/cut.save"
run simulate --merge "$TMP/run1.save" "$TMP/cut.save" "$TMP/run3.save" "$TMP/run4.save"
check "--merge: a file cut short" sh -c "[ $rc -eq 1 ] && grep -q 'cut.save: cut short or damaged' $TMP/err"
run simulate --merge "$front"
check "--merge: not a saved run" sh -c "[ $rc -eq 1 ] && grep -q 'not a run.s results' $TMP/err"
run simulate --run 2 "$small"
check "--run without --save-run: refused" sh -c "[ $rc -eq 2 ] && grep -q 'go together' $TMP/err"
run simulate --compare RESERVATIONDEPTH=1,2 --run 3 --save-run "$TMP/x.save" "$small"
check "--run past the last run: refused" sh -c "[ $rc -eq 2 ] && grep -q 'the comparison has 2 runs' $TMP/err"

# ------------------------------------------------------------ estimates
run simulate --estimates exact --jobs-out "$TMP/ex.csv" "$kth"
check "--estimates exact: every walltime is the runtime (at least 1 s)" sh -c "[ $rc -eq 0 ] && awk -F, 'NR > 1 && \$7 != (\$8 > 0 ? \$8 : 1) { bad = 1 } END { exit bad }' $TMP/ex.csv"
check "--estimates exact: no job killed" sh -c "! grep -q ',killed,' $TMP/ex.csv"
run simulate --estimates factor:2 --jobs-out "$TMP/f2.csv" "$small"
check "--estimates factor:2: twice the runtime" sh -c "[ $rc -eq 0 ] && grep -q '^3,20,.*,1,60,30,' $TMP/f2.csv && grep -q '^2,10,.*,4,7200,3600,' $TMP/f2.csv"
run simulate --estimates fmodel:1:7 --jobs-out "$TMP/fm1.csv" "$kth"
run simulate --estimates fmodel:1:7 --jobs-out "$TMP/fm2.csv" "$kth"
check "--estimates fmodel:1: runtime <= estimate <= 2 runtime" sh -c "awk -F, 'NR > 1 && \$8 > 0 && (\$7 < \$8 || \$7 > 2 * \$8) { bad = 1 } END { exit bad }' $TMP/fm1.csv"
check "--estimates fmodel: the same seed, the same estimates" cmp -s "$TMP/fm1.csv" "$TMP/fm2.csv"
run simulate --estimates fmodel:1:8 --jobs-out "$TMP/fm3.csv" "$kth"
check "--estimates fmodel: another seed, other estimates" sh -c "! cmp -s $TMP/fm1.csv $TMP/fm3.csv"
run validate --estimates fmodel:1:7 "$kth" "$TMP/fm1.csv"
check "validate --estimates: the modelled walltimes are the trace's facts" [ "$rc" -eq 0 ]
run validate "$kth" "$TMP/fm1.csv"
check "validate without it: the walltimes differ from the requests" sh -c "[ $rc -eq 1 ] && grep -q 'walltime .*, the trace asks' $TMP/out"
run simulate --estimates guess "$small"
check "--estimates: an unknown model is a usage error" sh -c "[ $rc -eq 2 ] && grep -q 'request, exact, factor:F or fmodel:F' $TMP/err"
run simulate --compare RESERVATIONDEPTH=1,2 --estimates exact --jobs 2 --format json "$kth"
check "--estimates with workers: each run replays the modelled walltimes" sh -c "[ $rc -eq 0 ] && grep -q '\"runs\"' $TMP/out"

# ------------------------------------------- warm-up, cool-down, tau
run simulate --config tests/data/compare/easy.cfg --warmup 2 "$front"
check "--warmup 2: jobs 1 and 2 simulated, not measured" sh -c "[ $rc -eq 0 ] && grep -q '^  jobs simulated       2\$' $TMP/out && grep -q '^  jobs excluded        2 ' $TMP/out"
check "--warmup 2: utilization inside [2, 3] (job 1's 2 of 4 processors)" grep -q '^  utilization          50.00 %   (inside the measured window)' "$TMP/out"
run simulate --config tests/data/compare/easy.cfg --cooldown 1 "$front"
check "--cooldown 1: job 4 (submitted at 3) not measured" sh -c "[ $rc -eq 0 ] && grep -q '^  jobs simulated       3\$' $TMP/out && grep -q '^  jobs excluded        1 ' $TMP/out"
run simulate --warmup 2 --cooldown 2 "$front"
check "--warmup and --cooldown leaving nothing: said, exit 1" sh -c "[ $rc -eq 1 ] && grep -q 'leave nothing to measure' $TMP/err"
run simulate --warmup soon "$front"
check "--warmup: not a duration, exit 2" [ "$rc" -eq 2 ]
run simulate --set BACKFILLPOLICY=NONE --bsld-tau 100 "$front"
check "--bsld-tau 100: (1 + 1.99 + 2.32 + 2.07) / 4 by hand" sh -c "[ $rc -eq 0 ] && grep -q '^  avg bounded slowdown 1.845   (tau = 100 s)' $TMP/out"
run simulate --bsld-tau 0 "$front"
check "--bsld-tau 0: refused" [ "$rc" -eq 2 ]

# ------------------------------------- validate reads SWF and Batsim
run simulate --config tests/data/compare/easy.cfg --swf-out "$TMP/o.swf" --batsim-out "$TMP/o.csv" "$small"
run validate --config tests/data/compare/easy.cfg "$small" "$TMP/o.swf"
check "validate: moku's SWF output is a schedule" sh -c "[ $rc -eq 0 ] && grep -q 'o.swf: 7 jobs, 0 violations' $TMP/out && grep -q 'not checked: nodes (an SWF schedule names none)' $TMP/out"
run validate --config tests/data/compare/easy.cfg "$small" "$TMP/o.csv"
check "validate: moku's Batsim output is a schedule" sh -c "[ $rc -eq 0 ] && grep -q 'o.csv: 6 jobs, 0 violations' $TMP/out"
# job 2 (4 processors) moved to start at its submission, while job 1 holds 6 of 8
sed 's/^2 10 90 3600 4 /2 10 0 3600 4 /' "$TMP/o.swf" >"$TMP/bad.swf"
run validate --config tests/data/compare/easy.cfg "$small" "$TMP/bad.swf"
check "validate: a broken SWF schedule: processors over the cluster" sh -c "[ $rc -eq 1 ] && grep -q 'job 2: at 10 the jobs running hold 10 processors, the cluster has 8' $TMP/out"
awk -F, 'BEGIN { OFS = "," } $1 == 5 { $15 = "0-3" } { print }' "$TMP/o.csv" >"$TMP/bad.csv"
run validate --config tests/data/compare/easy.cfg "$small" "$TMP/bad.csv"
check "validate: a broken Batsim schedule: nodes held twice" sh -c "[ $rc -eq 1 ] && grep -q 'node node.* holds 2 processors, it has 1' $TMP/out"
awk -F, 'BEGIN { OFS = "," } $1 == 5 { $15 = "9" } { print }' "$TMP/o.csv" >"$TMP/bad2.csv"
run validate --config tests/data/compare/easy.cfg "$small" "$TMP/bad2.csv"
check "validate: a Batsim node the cluster lacks: file:line" sh -c "[ $rc -eq 2 ] && grep -q 'bad2.csv:.*allocated_resources: node 9, the cluster has 8' $TMP/err"

# --------------------------------------- Batsim's 17 column names
# As Batsim's documentation (docs/output-jobs.rst) names them.
printf '%s\n' job_id workload_name profile submission_time requested_number_of_resources \
    requested_time success final_state starting_time execution_time finish_time waiting_time \
    turnaround_time stretch consumed_energy allocated_resources metadata | sort >"$TMP/names"
head -n 1 "$TMP/o.csv" | tr ',' '\n' | sort >"$TMP/ours"
check "--batsim-out: the 17 columns Batsim's documentation names, finish_time included" cmp -s "$TMP/names" "$TMP/ours"
done_checks
