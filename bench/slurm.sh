#!/bin/sh
# make bench, moku on Slurm (issue 15 §7): a private cluster of four nodes
# of two processors (tests/slurm/cluster.sh) and 2,000 jobs pending in
# Slurm. Prints figures; judges nothing:
#   - the first iteration: the 2,000 taken in, decided, 8 starts issued;
#   - an iteration with the 2,000 pending when nothing changed (slurmctld
#     answers "no change": the poll costs what changed);
#   - from moku's decision (schedctl -r after a pause) to RUNNING in Slurm.
# Then (issue 27) the same 30 mixed jobs (sizes, tasks of several CPUs,
# memory, time limits; submitted over a minute) on four nodes of four CPUs
# and 1000 MB with memory booked, scheduled by Slurm's own sched/backfill
# and by moku EASY: makespan and average wait side by side, and moku's
# starts Slurm did not carry out (none expected). About seven minutes.
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
# (Each step of the clean-up may fail -- a cluster already down -- and must
# not stop the rest under set -e.)
trap 'MOKU_HOME="$H" "$MOKU" schedctl -k >/dev/null 2>&1 || true; MOKU_HOME="$tmp/h2" "$MOKU" schedctl -k >/dev/null 2>&1 || true; sleep 0.5; for c in "$B" "$tmp/s2" "$tmp/s3"; do [ -d "$c/run" ] && sh "$here/tests/slurm/cluster.sh" down "$c" >/dev/null 2>&1 || true; done; rm -rf "$tmp"' EXIT
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

# ---- the same 30 jobs under Slurm's sched/backfill and under moku EASY ----
MOKU_HOME="$H" "$MOKU" schedctl -k >/dev/null 2>&1 || true
sh "$here/tests/slurm/cluster.sh" down "$B" >/dev/null 2>&1
cd "$here"
# "delay cpus-options sleep limit-minutes", from a fixed seed.
awk 'BEGIN {
    srand(27)
    split("1 1 2 2 4 4 6 8 12 16", size, " ")
    for (i = 0; i < 30; i++) {
        n = size[1 + int(rand() * 10)]
        opt = rand() < 0.2 && n <= 4 ? "-n 1 -c " n : "-n " n
        m = rand()
        if (m < 0.3) opt = opt " --mem-per-cpu=" (50 * int(1 + rand() * 5))
        else if (m < 0.5) opt = opt " --mem=" (100 * int(2 + rand() * 7))
        s = int(5 + rand() * 25)
        printf "%.1f %s|%d|%d\n", rand() * 4, opt, s, 1
    }
}' >"$tmp/work"
# run BASE: submit the workload (one delay after another), wait for every
# job to end, print "makespan avgwait" from Slurm's own times.
run_work() {
    t0=$(date +%s)
    : >"$tmp/ids"
    while IFS='|' read -r head s lim; do
        sleep "${head%% *}"
        opts=${head#* }
        # shellcheck disable=SC2086
        (cd "$tmp" && sbatch --parsable -o /dev/null $opts -t "$lim" --wrap "sleep $s") >>"$tmp/ids"
    done <"$tmp/work"
    i=0
    while [ -n "$(squeue -h -o %i)" ] && [ $i -lt 9000 ]; do sleep 0.1; i=$((i + 1)); done
    for j in $(cat "$tmp/ids"); do
        scontrol -o show job "$j" | tr ' ' '\n' | sed -n 's/^\(SubmitTime\|StartTime\|EndTime\)=//p' |
            while read -r t; do date -d "$t" +%s; done | tr '\n' ' '
        echo
    done | awk '{ n++; w += $2 - $1; if (!f || $1 < f) f = $1; if ($3 > e) e = $3 }
                END { printf "%d %.1f\n", e - f, w / n }'
}
# Slurm by itself: sched/backfill deciding every second, no plugin.
NO_HOLD_PLUGIN=1 SCHEDULER=sched/backfill SCHED_PARAMS=batch_sched_delay=0,bf_interval=1 \
    sh "$here/tests/slurm/cluster.sh" up "$tmp/s2" 4 4 >/dev/null
export SLURM_CONF="$tmp/s2/etc/slurm.conf"
slurm_res=$(run_work)
sh "$here/tests/slurm/cluster.sh" down "$tmp/s2" >/dev/null 2>&1
# moku EASY (FIRSTFIT backfill, one reservation) on sched/builtin with the plugin.
sh "$here/tests/slurm/cluster.sh" up "$tmp/s3" 4 4 >/dev/null
export SLURM_CONF="$tmp/s3/etc/slurm.conf" MOKU_HOME="$tmp/h2"
mkdir -p "$tmp/h2"
printf 'RMCFG[s] TYPE=SLURM\nRMPOLLINTERVAL 1\nLOGLEVEL 2\nBACKFILLPOLICY FIRSTFIT\nRESERVATIONDEPTH 1\n' >"$tmp/h2/maui.cfg"
"$MOKU" serve --home "$tmp/h2" >"$tmp/serve2.log" 2>&1 &
i=0
while [ $i -lt 100 ] && ! "$MOKU" showq >/dev/null 2>&1; do sleep 0.1; i=$((i + 1)); done
moku_res=$(run_work)
failed=$(grep -c 'start failed\|start not carried out' "$tmp/h2/log/maui.log" || true)
"$MOKU" schedctl -k >/dev/null 2>&1
echo "slurm: 30 mixed jobs on 4 nodes of 4 CPUs and 1000 MB (memory booked):"
echo "slurm:   Slurm sched/backfill: makespan ${slurm_res%% *} s, average wait ${slurm_res#* } s"
echo "slurm:   moku EASY:            makespan ${moku_res%% *} s, average wait ${moku_res#* } s, starts Slurm did not carry out: $failed"
