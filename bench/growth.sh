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
#    ratios are printed as a range beside it (how far one round's figure
#    can be trusted), and the system time's share of the extra apart (the
#    kernel's copy of the files, which no change to the writers removes).
#    The replay's time is a wall time, which a loaded machine stretches
#    (the ratio shrinks): the extra CPU over the whole run's CPU without
#    outputs is printed too, a ratio of two CPU times (about 0.7 of the
#    first on a quiet machine). With INSTR=1 and valgrind at hand, also
#    each output's instructions a job (callgrind's count of the whole
#    process, one run each: the figure the machine's load does not move;
#    minutes on Curie).
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

# label KIND: how a line names it
label() {
    case $1 in
    every) echo "every output" ;;
    *) args "$1" | cut -d ' ' -f 1 ;;
    esac
}

# files KIND: its files' size in MB
files() {
    du -k $(args "$1" | tr ' ' '\n' | grep -v '^--') | awk '{ k += $1 } END { printf "%.1f", k / 1024 }'
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
    i=0
    while [ $i -lt "$REPEAT" ]; do
        once "$t" $extra >>"$tmp/none"
        for k in $KINDS; do
            once "$t" $extra $(args $k) >>"$tmp/$k"
        done
        i=$((i + 1))
    done
    set -- $(least "$tmp/none")
    w0=$1 r0=$2 s0=$5 jobs=$4
    printf '%s outputs: CPU %.3f s without (replay %.3f s); each output'"'"'s extra CPU as a fraction of the replay (target <= 0.20):\n' \
        "$name" "$w0" "$r0"
    for k in $KINDS; do
        set -- $(least "$tmp/$k")
        # each round's own ratio (over the least replay time: its wall
        # time is the noisiest figure): the least and the most of them
        spread=$(paste -d ' ' "$tmp/none" "$tmp/$k" | awk -v r0="$r0" '
            { a = ($6 - $1) / r0; if (NR == 1 || a < a0) a0 = a; if (NR == 1 || a > a1) a1 = a }
            END { printf "%.2f %.2f", a0, a1 }')
        awk -v n="$name" -v l="$(label $k)" -v mb="$(files $k)" -v w0="$w0" -v r0="$r0" -v s0="$s0" \
            -v w1="$1" -v s1="$5" -v sp="$spread" 'BEGIN {
            split(sp, q, " ")
            printf "%s %s (%s MB): %.3f s, %.2f of the replay (rounds %.2f-%.2f; system %.2f; %.2f of the CPU without)\n",
                n, l, mb, w1, (w1 - w0) / r0, q[1], q[2], (s1 - s0) / r0, (w1 - w0) / w0 }'
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
# five figures each (least): cpu_s replay_s peak_MB jobs sys_s
set -- $(best "$H") $(best "$tmp/million.swf")
awk -v hr="$2" -v hmb="$3" -v hj="$4" -v mr="$7" -v mmb="$8" -v mj="$9" 'BEGIN {
    hu = 1e6 * hr / hj; mu = 1e6 * mr / mj
    printf "growth: HPC2N %d jobs, replay %.3f s, %.2f us a job, peak %.1f MB; HPC2N x5 %d jobs, replay %.3f s, %.2f us a job (%.2fx HPC2N'"'"'s, target <= 1.20), peak %.1f MB (target <= 100)\n",
        hj, hr, hu, hmb, mj, mr, mu, mu / hu, mmb }'
