#!/bin/sh
# make bench (issue 31): a burst of JOBS jobs (50,000) submitted at once on
# 100,000 one-processor nodes (--procs 100000), EASY, moku's whole process
# against the minimal EASY loop (bench/mini_easy.c, which also scans the
# whole queue at each event). Target: at most 2x.
#
# The burst is generated here (not kept) from a fixed seed: sizes powers of
# two from 1 to 16,384, runtimes 1 to 61 minutes, estimates up to an hour
# over the runtime, 50 users. About 45 jobs run at a time, so the queue
# stays tens of thousands of jobs long for the whole replay and every
# event's pass reads all of it.
#
# Figures are CPU seconds (user + system), the least of REPEAT runs (3):
# the machine is shared, and other processes stretch wall times far more
# than a process's own CPU time. A benchmark, not a test: it prints figures
# and ratios and judges nothing.
# RUNSTAT: bench/runstat.c's binary; MINI: bench/mini_easy.c's; MOKU: the
# moku binary (bin/moku).
set -e
RUNSTAT=${RUNSTAT:-build/runstat}
MINI=${MINI:-build/mini_easy}
MOKU=${MOKU:-bin/moku}
REPEAT=${REPEAT:-3}
JOBS=${JOBS:-50000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'BACKFILLPOLICY FIRSTFIT\nRESERVATIONDEPTH[0] 1\n' >"$tmp/easy.cfg"
awk -v n="$JOBS" 'BEGIN {
    srand(31)
    print "; a burst of " n " jobs submitted at once (bench/burst.sh)"
    for (i = 1; i <= n; i++) {
        p = 2 ^ int(rand() * 15); r = 60 + int(rand() * 3600); e = r + int(rand() * 3600)
        printf "%d 0 -1 %d %d -1 -1 %d %d -1 1 %d 1 -1 1 -1 -1 -1\n", i, r, p, p, e, 1 + i % 50
    }
}' >"$tmp/burst.swf"

# least CMD...: the least CPU seconds of REPEAT runs of CMD
least() {
    i=0 best=
    while [ $i -lt "$REPEAT" ]; do
        "$RUNSTAT" "$@" >"$tmp/out" 2>"$tmp/err"
        cpu=$(sed -n 's/.*cpu_seconds=\([0-9.]*\).*/\1/p' "$tmp/err")
        best=$(awk -v b="$best" -v c="$cpu" 'BEGIN { print (b == "" || c < b) ? c : b }')
        i=$((i + 1))
    done
    echo "$best"
}
m=$(least "$MOKU" simulate --config "$tmp/easy.cfg" --procs 100000 --format json "$tmp/burst.swf")
started=$(sed 's/^{"jobs":\([0-9]*\).*/\1/' "$tmp/out")
mini=$(least "$MINI" 100000 "$tmp/burst.swf")
awk -v n="$JOBS" -v s="$started" -v m="$m" -v x="$mini" 'BEGIN {
    printf "burst: %d jobs at once on 100,000 nodes, EASY: moku CPU %.3f s (%d jobs), minimal loop %.3f s: %.1fx (target <= 2x)\n",
        n, m, s, x, m / x }'
