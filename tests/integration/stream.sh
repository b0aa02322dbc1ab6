#!/bin/sh
# The replay overlapped with reading the trace (issue 31): with no output
# file written as the replay goes, one run of an SWF trace replays while
# the reader's thread reads on (sim_stream). Its report is the whole read's
# byte for byte (a --jobs-out run reads the whole trace first: the same
# report), for a trace in order, gz or plain, and where streaming cannot be
# exact and the run is replayed from the start after the read: jobs out of
# submission order, a preceding job (field 17), header keywords that change
# after the jobs began, MaxProcs only after the jobs. A bad line, early or
# late, is still its file:line error, exit 1 and no report; a bad trace
# creates no output file and truncates none.
. tests/integration/lib.sh

KTH=data/KTH-SP2-1996-2.1-cln.norm.swf.gz
gzip -dc "$KTH" >"$TMP/all.swf"
# 6,000 jobs: several of the reader's batches (1,024 records each).
awk '/^;/ || n++ < 6000' "$TMP/all.swf" >"$TMP/kth.swf"
jobs() { grep -v '^;' "$TMP/kth.swf"; }
printf 'BACKFILLPOLICY FIRSTFIT\nRESERVATIONDEPTH[0] 1\n' >"$TMP/easy.cfg"

# report TRACE ARGS...: the JSON report without its timings, into $TMP/r.
report() {
    t=$1
    shift
    "$MOKU" simulate --config "$TMP/easy.cfg" --format json "$@" "$t" 2>"$TMP/err" |
        sed 's/"wall_seconds":[0-9.]*//; s/"read_seconds":[0-9.]*//' >"$TMP/r"
    rc=$?
}
# same TRACE ARGS...: the streamed report is the whole read's, and not empty.
same() {
    report "$@" --jobs-out "$TMP/whole.csv"
    cp "$TMP/r" "$TMP/whole.json"
    cp "$TMP/err" "$TMP/whole.err"
    report "$@"
    [ -s "$TMP/r" ] && cmp -s "$TMP/r" "$TMP/whole.json" && cmp -s "$TMP/err" "$TMP/whole.err"
}

check "in order, plain text: the streamed report is the whole read's" same "$TMP/kth.swf"
gzip -c "$TMP/kth.swf" >"$TMP/kth.swf.gz"
check "in order, gzip: the same" same "$TMP/kth.swf.gz"
# Submissions rounded to the hour: the reader's batches end inside runs of
# one instant (an iteration there before the rest of its jobs were read
# would show in the report: another iteration count, other waits).
{ echo '; MaxProcs: 100'; jobs | awk '{ $2 = int($2 / 3600) * 3600; print }'; } >"$TMP/hours.swf"
check "many jobs an instant: the same" same "$TMP/hours.swf"
check "--procs, --iterate-every: the same" same "$TMP/kth.swf" --procs 64 --iterate-every 900
printf 'USERCFG[DEFAULT] MAXIJOB=2 MAXJOB=8\nFSPOLICY DEDICATEDPS\nFSWEIGHT 10\nFSUSERWEIGHT 1\nUSERCFG[DEFAULT] FSTARGET=5\n' >>"$TMP/easy.cfg"
check "throttling and fairshare: the same" same "$TMP/kth.swf"
printf 'BACKFILLPOLICY FIRSTFIT\nRESERVATIONDEPTH[0] 1\n' >"$TMP/easy.cfg"

# Out of order: every 500th job moved to the end of the file.
{
    grep '^;' "$TMP/kth.swf"
    jobs | awk 'NR % 500'
    jobs | awk 'NR % 500 == 0'
} >"$TMP/shuffled.swf"
check "jobs out of submission order: replayed from the start, the same" same "$TMP/shuffled.swf"
# Given up, the stream's set-up warnings are not said again by the whole
# read's replay.
cp "$TMP/easy.cfg" "$TMP/easy.keep"
printf 'FSPOLICY DEDICATEDPS\nSTATDIR %s/none\n' "$TMP" >>"$TMP/easy.cfg"
report "$TMP/shuffled.swf"
check "out of order, a warning of the set-up: said once" [ "$(grep -c 'no fairshare history is read' "$TMP/err")" = 1 ]
check "... the same report" same "$TMP/shuffled.swf"
cp "$TMP/easy.keep" "$TMP/easy.cfg"
report "$TMP/shuffled.swf"
cp "$TMP/r" "$TMP/shuffled.json"
report "$TMP/kth.swf"
check "... and the sorted trace's report" cmp -s "$TMP/r" "$TMP/shuffled.json"

# MaxProcs changed after the jobs began: the cluster is the whole header's.
{
    echo '; MaxProcs: 50'
    jobs | sed -n '1,3000p'
    echo '; MaxProcs: 100'
    jobs | sed '1,3000d'
} >"$TMP/header.swf"
check "MaxProcs changed after 3,000 jobs: the same" same "$TMP/header.swf"
"$MOKU" simulate --config "$TMP/easy.cfg" "$TMP/header.swf" >"$TMP/text" 2>&1
check "... on 100 processors" grep -q 'cluster  *100 nodes, 100 processors' "$TMP/text"

# MaxProcs only at the end: the replay waits for it.
{
    jobs
    echo '; MaxProcs: 100'
} >"$TMP/late.swf"
check "MaxProcs after every job: the same" same "$TMP/late.swf"

# A preceding job (field 17) late in the trace: the whole read checks it.
jobs | awk 'NR == 4000 { $17 = prev } { prev = $1; print }' >"$TMP/deps.body"
{ echo '; MaxProcs: 100'; cat "$TMP/deps.body"; } >"$TMP/deps.swf"
check "a preceding job at job 4,000: the same" same "$TMP/deps.swf"

# Bad lines, early and late: the error, exit 1, no report.
for at in 30 5990; do
    { echo '; MaxProcs: 100'; jobs | awk -v at=$at 'NR == at { $5 = "x" } { print }'; } >"$TMP/bad.swf"
    line=$((at + 1))
    report "$TMP/bad.swf"
    check "a bad line at job $at: its file:line, exit 1, no report" \
        sh -c "[ ! -s '$TMP/r' ] && grep -q 'bad.swf:$line: ' '$TMP/err' && [ \$(wc -l <'$TMP/err') = 1 ]"
    "$MOKU" simulate --config "$TMP/easy.cfg" --format json "$TMP/bad.swf" >/dev/null 2>&1
    check "... exit 1" [ $? = 1 ]
    echo keep >"$TMP/kept.csv"
    rm -f "$TMP/new.csv"
    "$MOKU" simulate --config "$TMP/easy.cfg" --jobs-out "$TMP/new.csv" --batsim-out "$TMP/kept.csv" \
        "$TMP/bad.swf" >/dev/null 2>&1
    check "... no output file created, none truncated" \
        sh -c "[ ! -e '$TMP/new.csv' ] && [ \"\$(cat '$TMP/kept.csv')\" = keep ]"
done

# --strict: a record that cannot be replayed, late, is the error.
{ echo '; MaxProcs: 100'; jobs | awk 'NR == 5000 { $4 = -1 } { print }'; } >"$TMP/strict.swf"
report "$TMP/strict.swf" --strict
check "--strict, an unusable record late: the error, no report" \
    sh -c "[ ! -s '$TMP/r' ] && grep -q 'strict.swf:5001: job .* cannot be replayed' '$TMP/err'"
check "without --strict: the same as the whole read" same "$TMP/strict.swf"
