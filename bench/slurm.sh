#!/bin/sh
# make bench, moku on Slurm (issue 15 §7): a private cluster of four nodes
# of two processors (tests/slurm/cluster.sh) and 2,000 jobs pending in
# Slurm. Prints figures; judges nothing:
#   - the first iteration: the 2,000 taken in, decided, 8 starts issued;
#   - an iteration with the 2,000 pending when nothing changed (slurmctld
#     answers "no change": the poll costs what changed);
#   - from moku's decision (schedctl -r after a pause) to RUNNING in Slurm.
# Needs root and Slurm (scripts/deps.sh); skipped otherwise.
set -e
if [ "$(id -u)" != 0 ] || ! command -v slurmctld >/dev/null 2>&1; then
    echo "slurm bench: skipped (needs root and Slurm)"
    exit 0
fi
MOKU=$(pwd)/bin/moku
here=$(pwd)
tmp=$(mktemp -d)
B=$tmp/slurm
H=$tmp/h
trap 'MOKU_HOME="$H" "$MOKU" schedctl -k >/dev/null 2>&1 || true; sleep 0.5; sh "$here/tests/slurm/cluster.sh" down "$B"; rm -rf "$tmp"' EXIT
sh tests/slurm/cluster.sh up "$B" 4 2 >/dev/null
export SLURM_CONF="$B/etc/slurm.conf" MOKU_HOME="$H"
mkdir -p "$H"
printf 'RMCFG[s] TYPE=SLURM\nRMPOLLINTERVAL 1\nLOGLEVEL 3\n' >"$H/maui.cfg"
cd "$tmp"
now_ms() { date +%s%3N; }
t0=$(now_ms)
pids=""
for p in 1 2 3 4; do
    (i=0; while [ $i -lt 500 ]; do sbatch -Q -n 1 -t 1 --wrap 'sleep 30'; i=$((i + 1)); done) &
    pids="$pids $!"
done
wait $pids
t1=$(now_ms)
echo "slurm: 2000 sbatch submissions (held by the plugin) in $((t1 - t0)) ms"
"$MOKU" serve --home "$H" >"$tmp/serve.log" 2>&1 &
i=0
while [ $i -lt 100 ] && ! "$MOKU" showq >/dev/null 2>&1; do sleep 0.1; i=$((i + 1)); done
sleep 1
"$MOKU" schedctl -s >/dev/null
sleep 4
# Iterations logged as "iteration N: X ms, I idle, R running".
iters() { sed -n 's/.* iteration [0-9]*: \([0-9.]*\) ms, \([0-9]*\) idle, \([0-9]*\) running/\1 \2 \3/p' "$H/log/maui.log"; }
first=$(iters | head -1)
echo "slurm: the first iteration (2000 taken in, decided, starts issued): ${first%% *} ms; then $(echo "$first" | cut -d' ' -f2) idle, $(echo "$first" | cut -d' ' -f3) running"
quiet=$(iters | sed 1,2d | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
echo "slurm: an iteration with 1992 pending and nothing changed (scheduling paused: the poll and its transaction): $quiet ms (median)"
# Decision to RUNNING: one job waits while moku is paused, with room for it.
scancel -u root
sleep 3
j=$(sbatch --parsable -n 1 -t 1 --wrap 'sleep 5')
sleep 3
t0=$(now_ms)
"$MOKU" schedctl -r >/dev/null
i=0
while [ "$(squeue -h -j "$j" -o %T)" != RUNNING ] && [ $i -lt 1000 ]; do sleep 0.01; i=$((i + 1)); done
t1=$(now_ms)
echo "slurm: from schedctl -r to RUNNING in Slurm: $((t1 - t0)) ms (moku's iteration, one update, Slurm's scheduling pass)"
