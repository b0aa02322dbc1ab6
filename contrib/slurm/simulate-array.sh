#!/bin/sh
# simulate-array.sh — a moku simulate comparison as a Slurm job array: one
# run a task, then a merge job that prints the report the single command
# would (docs/simulation.md, "A comparison as a Slurm job array").
#
#   simulate-array.sh [-s 'SBATCH OPTIONS'] DIR SIMULATE-ARGUMENTS...
#
# DIR (made if need be) gets the batch scripts, each run's results
# (run-K.save) and log (run-K.log), and the report (report.txt, also the
# merge job's output). The arguments are moku simulate's, exactly as for
# the single command (--config, --set, --compare twice for a grid, --html,
# --jobs-out, ..., the trace); output files are written by the merge job,
# relative to the directory this script is run from, which the nodes must
# see (a shared file system), as they must see moku, the trace and the
# configuration files. -s passes options to both sbatch calls (a partition,
# an account, a time limit). Prints the two job ids. MOKU names the moku
# binary (default: moku in PATH).
set -e
sbopts=""
if [ "$1" = -s ]; then
    sbopts=$2
    shift 2
fi
if [ $# -lt 2 ]; then
    echo "usage: simulate-array.sh [-s 'SBATCH OPTIONS'] DIR SIMULATE-ARGUMENTS... TRACE" >&2
    exit 2
fi
dir=$1
shift
moku=${MOKU:-moku}
command -v "$moku" >/dev/null 2>&1 || { echo "simulate-array.sh: no $moku to run" >&2; exit 2; }
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
# How many runs: moku plans them without replaying anything.
n=$("$moku" simulate --plan "$@" | wc -l)
[ "$n" -ge 1 ] || { echo "simulate-array.sh: moku planned no run" >&2; exit 1; }

# The arguments, each single-quoted for the batch scripts.
quoted=""
for a in "$@"; do
    q=$(printf '%s' "$a" | sed "s/'/'\\\\''/g")
    quoted="$quoted '$q'"
done
moku_q="'$(printf '%s' "$moku" | sed "s/'/'\\\\''/g")'"

cat >"$dir/run.sh" <<EOF
#!/bin/sh
# One run of the comparison: Slurm's array index is the run's number.
exec $moku_q simulate$quoted --run "\$SLURM_ARRAY_TASK_ID" --save-run "$dir/run-\$SLURM_ARRAY_TASK_ID.save"
EOF
cat >"$dir/merge.sh" <<EOF
#!/bin/sh
# The report of the whole comparison, from the runs saved by the array.
set -e
files=""
k=1
while [ \$k -le $n ]; do files="\$files $dir/run-\$k.save"; k=\$((k + 1)); done
$moku_q simulate --merge \$files >"$dir/report.txt"
cat "$dir/report.txt"
EOF
chmod 755 "$dir/run.sh" "$dir/merge.sh"
# shellcheck disable=SC2086
array=$(sbatch --parsable $sbopts --job-name=moku-runs --array="1-$n" \
    --output="$dir/run-%a.log" "$dir/run.sh")
array=${array%%;*}
# shellcheck disable=SC2086
merge=$(sbatch --parsable $sbopts --job-name=moku-merge --dependency="afterok:$array" \
    --output="$dir/merge.log" "$dir/merge.sh")
echo "runs: job array $array ($n tasks); report: job $merge, into $dir/report.txt"
