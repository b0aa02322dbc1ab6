#!/bin/sh
# make bench (issue 31): what the outputs cost, and how the replay grows.
#
# 1. Outputs: HPC2N, and CEA-Curie on its 93,312 processors as one-processor
#    nodes (--procs 93312), EASY, each replayed without outputs and with
#    --jobs-out (then with every output: jobs CSV, Batsim, SWF, series); the
#    output's cost is the whole process's extra CPU time (user + system) as
#    a fraction of the replay's time. Target: at most 0.20. Each figure is
#    the least of REPEAT runs (5): the machine is shared, and other
#    processes stretch wall times far more than a process's own CPU time.
# 2. Growth: a synthetic trace of about a million jobs, HPC2N five times
#    over, each copy shifted after the last by the trace's span and 30 days
#    (job ids by 1,000,000), generated here and not kept. Target: the
#    replay's time per job within 20 % of HPC2N's own, peak memory within
#    100 MB.
#
# A benchmark, not a test: it prints figures and ratios and judges nothing.
# RUNSTAT: bench/runstat.c's binary (build/runstat).
set -e
RUNSTAT=${RUNSTAT:-build/runstat}
REPEAT=${REPEAT:-5}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'BACKFILLPOLICY FIRSTFIT\nRESERVATIONDEPTH[0] 1\n' >"$tmp/easy.cfg"
H=data/HPC2N-2002-2.1-cln.norm.swf.gz
C=data/CEA-Curie-2011-2.1-cln.norm.swf.gz

# best TRACE ARGS...: the least of REPEAT runs of each figure, as
# "cpu_s replay_s peak_MB jobs"
best() {
    t=$1
    shift
    i=0
    : >"$tmp/runs"
    while [ $i -lt "$REPEAT" ]; do
        "$RUNSTAT" bin/moku simulate --config "$tmp/easy.cfg" --format json "$@" "$t" \
            >"$tmp/out" 2>"$tmp/err"
        jobs=$(sed 's/^{"jobs":\([0-9]*\).*/\1/' "$tmp/out")
        sched=$(sed 's/.*"wall_seconds":\([0-9.]*\).*/\1/' "$tmp/out")
        cpu=$(sed -n 's/.*cpu_seconds=\([0-9.]*\).*/\1/p' "$tmp/err")
        kb=$(sed -n 's/.*peak_rss_kb=\([0-9]*\).*/\1/p' "$tmp/err")
        echo "$cpu $sched $kb $jobs" >>"$tmp/runs"
        i=$((i + 1))
    done
    awk 'NR == 1 || $1 < c { c = $1 } NR == 1 || $2 < r { r = $2 } NR == 1 || $3 < k { k = $3 }
         { j = $4 } END { printf "%s %s %.1f %s\n", c, r, k / 1024, j }' "$tmp/runs"
}

# outputs NAME TRACE [ARGS...]: the cost of --jobs-out and of every output
outputs() {
    name=$1 t=$2
    shift 2
    [ -f "$t" ] || { echo "$name: $t missing, outputs not measured"; return; }
    set -- $(best "$t" "$@") $(best "$t" "$@" --jobs-out "$tmp/jobs.csv") \
        $(best "$t" "$@" --jobs-out "$tmp/jobs.csv" --batsim-out "$tmp/batsim.csv" \
            --swf-out "$tmp/out.swf" --series "$tmp/series.csv")
    mb=$(du -m "$tmp/jobs.csv" | cut -f1)
    awk -v n="$name" -v w0="$1" -v r0="$2" -v w1="$5" -v w2="$9" -v mb="$mb" 'BEGIN {
        printf "%s outputs: CPU %.3f s without (replay %.3f s); --jobs-out (%d MB) %.3f s: %.2f of the replay; every output %.3f s: %.2f (target <= 0.20)\n",
            n, w0, r0, mb, w1, (w1 - w0) / r0, w2, (w2 - w0) / r0 }'
}
outputs HPC2N "$H"
outputs "Curie --procs 93312" "$C" --procs 93312

[ -f "$H" ] || { echo "growth: $H missing, not measured"; exit 0; }
gzip -dc "$H" | awk -v copies=5 -v gap=2592000 '
/^;/ { print; next }
{ job[n++] = $0; if ($2 > last) last = $2 }
END {
    for (k = 0; k < copies; k++)
        for (i = 0; i < n; i++) {
            split(job[i], f, " ")
            f[1] += k * 1000000
            f[2] += k * (last + gap)
            if (f[17] > 0)
                f[17] += k * 1000000
            line = f[1]
            for (j = 2; j <= 18; j++)
                line = line " " f[j]
            print line
        }
}' >"$tmp/million.swf"
set -- $(best "$H") $(best "$tmp/million.swf")
awk -v hr="$2" -v hmb="$3" -v hj="$4" -v mr="$6" -v mmb="$7" -v mj="$8" 'BEGIN {
    hu = 1e6 * hr / hj; mu = 1e6 * mr / mj
    printf "growth: HPC2N %d jobs, replay %.3f s, %.2f us a job, peak %.1f MB; HPC2N x5 %d jobs, replay %.3f s, %.2f us a job (%.2fx HPC2N'"'"'s, target <= 1.20), peak %.1f MB (target <= 100)\n",
        hj, hr, hu, hmb, mj, mr, mu, mu / hu, mmb }'
