#!/bin/sh
# make bench (issue 31): what the outputs cost, and how the replay grows.
#
# 1. Outputs: HPC2N, and CEA-Curie on its 93,312 processors as one-processor
#    nodes (--procs 93312), EASY, each replayed without outputs, with each
#    output on its own (--jobs-out, --batsim-out, --swf-out, --series), and
#    with every output; an output's cost is the whole process's extra CPU
#    time (user + system) as a fraction of the replay's time. Target: at
#    most 0.20 for each output (every output's line is extra information).
#    The six runs take turns, REPEAT rounds (5) of one each, and each
#    figure is the least of its runs: the machine is shared, other
#    processes stretch a run's CPU time too (caches, frequency), and a busy
#    spell then falls on the six alike rather than on one. The rounds' own
#    ratios are printed beside it (the least, the median and the most of
#    each round's extra over the same round's run without outputs: how
#    far one round's figure can be trusted).
#    Every run writes new files: the last run's are removed first (outside
#    the measured process). Before, the first round wrote new files and
#    the others replaced them, which costs the temporary's fsync and the
#    old file's removal (about 3 ms of the process's CPU for HPC2N's
#    22 MB jobs CSV): the least of five then picked either. With
#    REPLACE=1 every round replaces the files of a run before it (one
#    unmeasured run of each kind first).
#    The system time's share of the extra apart: the kernel's copy of the
#    files, which no change to the writers removes. The kernel splits a
#    run's CPU time (exact) into user and system by sampling its ticks
#    (CONFIG_TICK_CPU_ACCOUNTING, 4 ms at 250 Hz): a run's system time is
#    a few ticks, so the least of five runs of each figure said little
#    (it took the run without outputs' least, often 0, against another
#    run's). It is now the mean over the rounds of each round's difference
#    (sampling errors average out; the trace's reading, in every run, is
#    taken away within each round).
#    The replay's time is a wall time, which a loaded machine stretches
#    (the ratio shrinks): the extra CPU over the whole run's CPU without
#    outputs is printed too, a ratio of two CPU times (about 0.7 of the
#    first on a quiet machine). With INSTR=1 and valgrind at hand, also
#    each output's instructions a job (callgrind's count of the whole
#    process, one run each: the figure the machine's load does not move;
#    minutes on Curie).
#    PARTS (default "hpc2n curie growth") picks the parts to run.
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

# once TRACE ARGS...: one run, as "cpu_s replay_s peak_kB jobs sys_s"
once() {
    t=$1
    shift
    "$RUNSTAT" bin/moku simulate --config "$tmp/easy.cfg" --format json "$@" "$t" \
        >"$tmp/out" 2>"$tmp/err"
    jobs=$(sed 's/^{"jobs":\([0-9]*\).*/\1/' "$tmp/out")
    sched=$(sed 's/.*"wall_seconds":\([0-9.]*\).*/\1/' "$tmp/out")
    cpu=$(sed -n 's/.*cpu_seconds=\([0-9.]*\).*/\1/p' "$tmp/err")
    sys=$(sed -n 's/.*sys_seconds=\([0-9.]*\).*/\1/p' "$tmp/err")
    kb=$(sed -n 's/.*peak_rss_kb=\([0-9]*\).*/\1/p' "$tmp/err")
    echo "$cpu $sched $kb $jobs ${sys:-0}"
}

# least FILE: the least of each figure of FILE's runs, as
# "cpu_s replay_s peak_MB jobs sys_s"
least() {
    awk 'NR == 1 || $1 < c { c = $1 } NR == 1 || $2 < r { r = $2 } NR == 1 || $3 < k { k = $3 }
         NR == 1 || $5 < s { s = $5 } { j = $4 }
         END { printf "%s %s %.1f %s %s\n", c, r, k / 1024, j, s }' "$1"
}

# best TRACE ARGS...: the least of REPEAT runs of each figure
best() {
    i=0
    : >"$tmp/runs"
    while [ $i -lt "$REPEAT" ]; do
        once "$@" >>"$tmp/runs"
        i=$((i + 1))
    done
    least "$tmp/runs"
}

# instr TRACE ARGS...: the instructions of one run (callgrind)
instr() {
    t=$1
    shift
    valgrind --tool=callgrind --callgrind-out-file=/dev/null bin/moku simulate \
        --config "$tmp/easy.cfg" --format json "$@" "$t" 2>&1 >/dev/null |
        sed -n 's/.*refs: *\([0-9,]*\).*/\1/p' | tr -d ,
}

# args KIND: the options of one output kind (none: no output)
args() {
    case $1 in
    jobs) echo "--jobs-out $tmp/jobs.csv" ;;
    batsim) echo "--batsim-out $tmp/batsim.csv" ;;
    swf) echo "--swf-out $tmp/out.swf" ;;
    series) echo "--series $tmp/series.csv" ;;
    every) echo "$(args jobs) $(args batsim) $(args swf) $(args series)" ;;
    esac
}

# paths KIND: its files
paths() {
    args "$1" | tr ' ' '\n' | grep -v '^--'
}

# fresh KIND: the files of KIND removed (a new file each run), unless
# REPLACE=1 (each run replaces the last run's)
fresh() {
    [ "${REPLACE:-0}" = 1 ] || rm -f $(paths "$1")
}

# label KIND: how a line names it
label() {
    case $1 in
    every) echo "every output" ;;
    *) args "$1" | cut -d ' ' -f 1 ;;
    esac
}

# files KIND: its files' size in MB
files() {
    du -k $(paths "$1") | awk '{ k += $1 } END { printf "%.1f", k / 1024 }'
}

# Each output on its own (the issue's target is per output), then every
# output together (what they cost at once, beside them).
KINDS="jobs batsim swf series every"

# outputs NAME TRACE [ARGS...]: the cost of each output and of every
# output, the runs (none, then each kind) in turn, REPEAT rounds
outputs() {
    name=$1 t=$2
    shift 2
    extra=$* # no blanks in them
    [ -f "$t" ] || { echo "$name: $t missing, outputs not measured"; return; }
    : >"$tmp/none"
    for k in $KINDS; do : >"$tmp/$k"; done
    if [ "${REPLACE:-0}" = 1 ]; then
        for k in $KINDS; do once "$t" $extra $(args $k) >/dev/null; done
    fi
    i=0
    while [ $i -lt "$REPEAT" ]; do
        once "$t" $extra >>"$tmp/none"
        for k in $KINDS; do
            fresh $k
            once "$t" $extra $(args $k) >>"$tmp/$k"
        done
        i=$((i + 1))
    done
    set -- $(least "$tmp/none")
    w0=$1 r0=$2 jobs=$4
    printf '%s outputs: CPU %.3f s without (replay %.3f s); each output'"'"'s extra CPU as a fraction of the replay (target <= 0.20):\n' \
        "$name" "$w0" "$r0"
    for k in $KINDS; do
        set -- $(least "$tmp/$k")
        # each round's own ratio (over the least replay time: its wall
        # time is the noisiest figure): the least, the median and the
        # most of them; and the mean of the rounds' system times' extra
        spread=$(paste -d ' ' "$tmp/none" "$tmp/$k" | awk -v r0="$r0" '
            { a[NR] = ($6 - $1) / r0; s += ($10 - $5) / r0 }
            END {
                # an insertion sort: a few rounds
                for (i = 2; i <= NR; i++)
                    for (j = i; j > 1 && a[j - 1] > a[j]; j--) { x = a[j]; a[j] = a[j - 1]; a[j - 1] = x }
                m = NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2
                printf "%.2f %.2f %.2f %.2f", a[1], m, a[NR], s / NR }')
        awk -v n="$name" -v l="$(label $k)" -v mb="$(files $k)" -v w0="$w0" -v r0="$r0" \
            -v w1="$1" -v sp="$spread" 'BEGIN {
            split(sp, q, " ")
            printf "%s %s (%s MB): %.3f s, %.2f of the replay (rounds %.2f-%.2f, median %.2f; system %.2f, mean of the rounds; %.2f of the CPU without)\n",
                n, l, mb, w1, (w1 - w0) / r0, q[1], q[3], q[2], q[4], (w1 - w0) / w0 }'
    done
    if [ "${INSTR:-0}" = 1 ] && command -v valgrind >/dev/null; then
        i0=$(instr "$t" $extra)
        line="$name outputs: instructions $((i0 / 1000000)) M without; a job:"
        sep=
        for k in $KINDS; do
            i1=$(instr "$t" $extra $(args $k))
            line="$line$sep $(label $k) $(((i1 - i0) / jobs))"
            sep=,
        done
        echo "$line"
    fi
}
PARTS=${PARTS:-hpc2n curie growth}
part() {
    case " $PARTS " in *" $1 "*) return 0 ;; esac
    return 1
}
! part hpc2n || outputs HPC2N "$H"
! part curie || outputs "Curie --procs 93312" "$C" --procs 93312

part growth || exit 0
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
# five figures each (least): cpu_s replay_s peak_MB jobs sys_s
set -- $(best "$H") $(best "$tmp/million.swf")
awk -v hr="$2" -v hmb="$3" -v hj="$4" -v mr="$7" -v mmb="$8" -v mj="$9" 'BEGIN {
    hu = 1e6 * hr / hj; mu = 1e6 * mr / mj
    printf "growth: HPC2N %d jobs, replay %.3f s, %.2f us a job, peak %.1f MB; HPC2N x5 %d jobs, replay %.3f s, %.2f us a job (%.2fx HPC2N'"'"'s, target <= 1.20), peak %.1f MB (target <= 100)\n",
        hj, hr, hu, hmb, mj, mr, mu, mu / hu, mmb }'
