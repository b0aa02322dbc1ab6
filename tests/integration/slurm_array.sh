#!/bin/sh
# A comparison as a Slurm job array (issue 32, docs/simulation.md): on a
# private Slurm cluster on this machine (tests/slurm/cluster.sh, without
# moku's job-submit plugin: Slurm schedules these jobs itself),
# contrib/slurm/simulate-array.sh submits one task per run of a grid and a
# merge job after them; the merged report and files are the single
# command's, byte for byte (wall times aside). Skipped, saying so, without
# root or Slurm.
. tests/integration/lib.sh

if [ "$(id -u)" != 0 ] || ! command -v slurmctld >/dev/null 2>&1 || ! command -v sbatch >/dev/null 2>&1; then
    skip "slurm array: needs root and Slurm (scripts/deps.sh installs it)"
    done_checks
    exit 0
fi
# The real binary: the Slurm jobs run it (vsim validates replays of this shell).
real=${MOKU_REAL:-$MOKU}
real=$(cd "$(dirname "$real")" && pwd)/$(basename "$real")
chmod 755 "$TMP"
B=$TMP/slurm
trap 'sh tests/slurm/cluster.sh down "$B" 2>/dev/null; lib_cleanup' EXIT
if ! NO_HOLD_PLUGIN=1 sh tests/slurm/cluster.sh up "$B" 2 2 >"$TMP/up" 2>&1; then
    fail "slurm array: the private cluster came up"
    cat "$TMP/up"
    done_checks
    exit 0
fi
export SLURM_CONF="$B/etc/slurm.conf"
untimed() { grep -v 'wall time' "$1"; }
front=$(pwd)/tests/data/lab/front.swf
work=$TMP/work
mkdir -p "$work"
cd "$work" || exit 1
set -- --compare BACKFILLPOLICY=NONE,FIRSTFIT --compare RESERVATIONDEPTH=0,1 \
    --jobs-out jobs.csv --html page.html "$front"
MOKU=$real sh "$OLDPWD/contrib/slurm/simulate-array.sh" "$TMP/array" "$@" >"$TMP/submitted" 2>&1
check "simulate-array.sh: an array of four runs and a merge job submitted" \
    grep -q 'job array [0-9]* (4 tasks)' "$TMP/submitted"
# Wait (at most 60 s) for the merge job's report and its end (it writes
# the jobs CSV and the page too): nothing left in Slurm's queue.
merged() { [ -s "$TMP/array/report.txt" ] && [ -z "$(squeue -h 2>/dev/null)" ]; }
wait_for 60 merged
check "the merge job wrote the report" grep -q ', 4 runs$' "$TMP/array/report.txt"
check "each task saved its run" sh -c "ls $TMP/array/run-1.save $TMP/array/run-2.save $TMP/array/run-3.save $TMP/array/run-4.save >/dev/null"
untimed "$TMP/array/report.txt" >"$TMP/merged.txt"
mv jobs.csv "$TMP/array-jobs.csv"
mv page.html "$TMP/array-page.html"
"$real" simulate "$@" >"$TMP/single.out" 2>"$TMP/single.err"
untimed "$TMP/single.out" >"$TMP/single.txt"
# Not two empty files: a failed merge and a failed single run would agree.
check "the merged report is the single command's" \
    sh -c "grep -q ', 4 runs\$' $TMP/single.txt && cmp -s $TMP/merged.txt $TMP/single.txt"
check "... and so are its jobs CSV and HTML page" sh -c "cmp -s $TMP/array-jobs.csv jobs.csv && cmp -s $TMP/array-page.html page.html"
check "the front of the grid, as lab.sh checks it by hand" \
    sh -c "grep -Eq '^  3 +defaults +FIRSTFIT +0 .* \*\$' $TMP/merged.txt && grep -Eq '^  4 +defaults +FIRSTFIT +1 .* \*\$' $TMP/merged.txt && ! grep -Eq '^  [12] .* \*\$' $TMP/merged.txt"
cd "$OLDPWD" || exit 1
done_checks
