#!/bin/sh
# The simulator's large outputs (util/obuf): the jobs CSV, Batsim, SWF,
# the series and the reservations log, byte for byte as moku wrote them
# before they shared one buffered writer (issue 31). tests/data/outputs/
# holds the inputs and, in expected/, what main wrote before the change:
# one run with every output (node ranges, fractional SWF fields, a standing
# reservation); a comparison with --recorded (run columns, an SWF file per
# run), serial and in worker processes; a preempted job's segments; a Maui
# trace as SWF. And a full disk: an error naming the file, never a silent
# short file. OUTPUTS_REGEN=1 rewrites expected/ with $MOKU (only with a
# moku whose outputs are known good).
. tests/integration/lib.sh
dir=tests/data/outputs
exp=$dir/expected

# outputs DIR [MORE...]: every case's files into DIR; MORE: extra options
# for the comparison (--jobs N).
outputs() {
    o=$1
    shift
    "$MOKU" simulate --config $dir/easy.cfg --jobs-out $o/one.jobs.csv --batsim-out $o/one.batsim.csv \
        --swf-out $o/one.swf --series $o/one.series.csv --resv-out $o/one.resv.csv $dir/small.swf \
        >/dev/null || return 1
    "$MOKU" simulate --config $dir/easy.cfg --compare BACKFILLPOLICY=NONE,FIRSTFIT --recorded "$@" \
        --jobs-out $o/cmp.jobs.csv --batsim-out $o/cmp.batsim.csv --swf-out $o/cmp%d.swf \
        $dir/small.swf >/dev/null || return 1
    "$MOKU" simulate --config $dir/own.cfg --nodes 2 --ppn 4 --jobs-out $o/pre.jobs.csv \
        --batsim-out $o/pre.batsim.csv --swf-out $o/pre.swf tests/data/resv/preempt.swf >/dev/null ||
        return 1
    "$MOKU" simulate --nodes 4 --ppn 8 --jobs-out $o/maui.jobs.csv --batsim-out $o/maui.batsim.csv \
        --swf-out $o/maui.swf tests/data/mtrace/jobs.wtrace >/dev/null
}

if [ -n "$OUTPUTS_REGEN" ]; then
    rm -rf $exp && mkdir -p $exp && outputs $exp --jobs 1
    check "expected outputs rewritten with $MOKU" [ $? -eq 0 ]
    done_checks
    exit 0
fi

# same DIR: every expected file, and no other, byte for byte in DIR.
same() {
    [ "$(ls "$1" | sort)" = "$(ls $exp | sort)" ] || { echo "files differ: $(ls "$1")" >&2; return 1; }
    for f in $exp/*; do
        cmp "$f" "$1/$(basename "$f")" >&2 || return 1
    done
}
mkdir "$TMP/serial" "$TMP/workers"
check "every output: written" outputs "$TMP/serial" --jobs 1
check "every output: the same bytes as before the buffered writer" same "$TMP/serial"
check "worker processes: written" outputs "$TMP/workers" --jobs 2
check "worker processes: the same bytes" same "$TMP/workers"

# A full disk: the command fails, naming the file and why.
for opt in --jobs-out --batsim-out --swf-out --series --resv-out; do
    run simulate --config $dir/easy.cfg $opt /dev/full $dir/small.swf
    check "$opt on a full disk: exit 1, the file named" \
        sh -c "[ $rc -eq 1 ] && grep -q '^moku: /dev/full: write failed: No space left on device\$' $TMP/err"
done
# A path that cannot be opened costs no replay.
run simulate --config $dir/easy.cfg --jobs-out "$TMP/no/such/dir/jobs.csv" $dir/small.swf
check "--jobs-out in a missing directory: an error before the replay" \
    sh -c "[ $rc -ne 0 ] && grep -q 'jobs.csv: cannot write: No such file or directory' $TMP/err && [ ! -s $TMP/out ]"

# More than 65,534 users: an outcome keeps 16-bit credential indices and
# the rest in its detail (sim.h, SIM_CRED_WIDE); the jobs CSV still names
# each job's own user once the engine has forgotten the job.
awk 'BEGIN { for (i = 1; i <= 70000; i++)
    printf "%d %d -1 10 1 -1 -1 1 20 -1 1 %d %d -1 1 -1 -1 -1\n", i, i, i, i % 70 }' >"$TMP/wide.swf"
run simulate --nodes 4 --ppn 1 --jobs-out "$TMP/wide.csv" "$TMP/wide.swf"
check "70,000 users: each job's row names its own user and group" \
    sh -c "[ $rc -eq 0 ] && awk -F, 'NR > 1 && (\$11 != \$1 || \$12 != \$1 % 70) { bad++ } END { exit !(NR == 70001 && !bad) }' $TMP/wide.csv"

# An SWF job id of -1 (none): the trace reader gives the job no name, and
# every output names it so, an empty field, as Batsim's does and the
# commands show it (was 4294967295, the reader's marker, in the jobs CSV).
printf '1 0 0 100 1 -1 -1 1 200 -1 1 1 1 -1 1 -1 -1 -1\n-1 10 0 100 1 -1 -1 1 200 -1 1 2 1 -1 1 -1 -1 -1\n' \
    >"$TMP/noid.swf"
run simulate --procs 4 --jobs-out "$TMP/noid.csv" --batsim-out "$TMP/noid.batsim.csv" "$TMP/noid.swf"
check "an SWF id of -1: an empty job_id in the jobs CSV and in Batsim's" \
    sh -c "[ $rc -eq 0 ] && grep -q '^,10,10,110,0,1,' $TMP/noid.csv && grep -q '^,w0,delay,10,' $TMP/noid.batsim.csv &&
        ! grep -q 4294967295 $TMP/noid.csv"
run validate --procs 4 "$TMP/noid.swf" "$TMP/noid.csv"
check "... and moku validate finds that job by its empty name (was: not in the trace)" sh -c "[ $rc -eq 0 ] && grep -q '2 jobs, 0 violations' $TMP/out"

# A replay that cannot begin (no cluster: no MaxProcs header, no NODECFG,
# no --procs) leaves the output files written in place as they were (was:
# emptied, exit 1): the clusters are built before the outputs are opened.
printf '1 0 -1 10 1 -1 -1 1 100 -1 1 1 1 -1 1 -1 -1 -1\n' >"$TMP/nohdr.swf"
echo keep >"$TMP/kept.csv"
echo keep >"$TMP/kept.bat.csv"
run simulate --jobs-out "$TMP/kept.csv" --batsim-out "$TMP/kept.bat.csv" "$TMP/nohdr.swf"
check "no cluster: exit 1, said, and the old outputs kept" \
    sh -c "[ $rc -eq 1 ] && grep -q 'no cluster' $TMP/err && [ \"\$(cat $TMP/kept.csv $TMP/kept.bat.csv)\" = 'keep
keep' ]"
run simulate --set 'NODECFG[n1] PROCS=2' --procs 4 --jobs-out "$TMP/kept.csv" "$TMP/nohdr.swf"
check "NODECFG with --procs: exit 1, said, and the old jobs CSV kept" \
    sh -c "[ $rc -eq 1 ] && grep -q 'defines nodes' $TMP/err && [ \"\$(cat $TMP/kept.csv)\" = keep ]"
done_checks
