#!/bin/sh
# The moku binary from the outside: usage errors, bad input with file and
# line, the three outputs, cluster sources.
. tests/integration/lib.sh
kth=data/KTH-SP2-1996-2.1-cln.norm.swf.gz

# A small trace: 4 processors, one job too big, one unusable record.
cat >"$TMP/small.swf" <<'SWF'
; MaxNodes: 2
; MaxProcs: 4
1 0 0 100 3 -1 -1 3 100 -1 1 1 1 -1 1 -1 -1 -1
2 10 0 50 2 -1 -1 2 60 -1 1 2 1 -1 1 -1 -1 -1
3 20 0 10 1 -1 -1 -1 -1 -1 1 2 1 -1 1 -1 -1 -1
4 30 0 10 8 -1 -1 8 20 -1 1 3 1 -1 1 -1 -1 -1
5 40 0 -1 1 -1 -1 1 20 -1 0 3 1 -1 1 -1 -1 -1
SWF

run
check "no command: usage, exit 2" [ "$rc" -eq 2 ]
run frobnicate
check "unknown command: exit 2 and named" sh -c "[ $rc -eq 2 ] && grep -q frobnicate $TMP/err"
run simulate
check "simulate without a trace: exit 2" [ "$rc" -eq 2 ]
run simulate --format xml "$kth"
check "bad --format: exit 2 and the accepted values" sh -c "[ $rc -eq 2 ] && grep -q 'text or json' $TMP/err"
run simulate --procs abc "$kth"
check "bad --procs: exit 2" [ "$rc" -eq 2 ]
run simulate --nodes 4 "$kth"
check "--nodes without --ppn: exit 2" [ "$rc" -eq 2 ]
run simulate --bogus "$kth"
check "unknown option: exit 2" [ "$rc" -eq 2 ]
run simulate "$TMP/missing.swf"
check "missing trace: exit 1, names the file" sh -c "[ $rc -eq 1 ] && grep -q 'missing.swf' $TMP/err"

printf '1 0 0 100 4 -1 -1 4 100 -1 1 1 1 -1 1 -1 -1\n' >"$TMP/short.swf"
run simulate --procs 4 "$TMP/short.swf"
check "17-field line: exit 1, file:line" sh -c "[ $rc -eq 1 ] && grep -q 'short.swf:1:' $TMP/err"
printf '1 0 0 abc 4 -1 -1 4 100 -1 1 1 1 -1 1 -1 -1 -1\n' >"$TMP/text.swf"
run simulate --procs 4 "$TMP/text.swf"
check "non-numeric field: exit 1, file:line" sh -c "[ $rc -eq 1 ] && grep -q 'text.swf:1:' $TMP/err"

run simulate --format json --jobs-out "$TMP/jobs.csv" "$TMP/small.swf"
check "small trace runs" [ "$rc" -eq 0 ]
check "json: one job skipped" has_out '"skipped":1'
check "json: the job bigger than the cluster is rejected" has_out '"rejected":1'
check "json: three jobs simulated" has_out '"jobs":3'
for key in jobs skipped rejected makespan utilization avg_wait max_wait avg_bsld avg_xfactor \
    backfilled iterations wall_seconds read_seconds; do
    check "json has key $key" has_out "\"$key\":"
done
check "csv header" sh -c "head -n 1 $TMP/jobs.csv | grep -qx 'job_id,submit,start,end,wait,procs,walltime,runtime,backfilled,preempted,user,group,account,class,qos,state,reason,nodes,segments'"
check "csv: a row per job, the rejected one too" [ "$(wc -l <"$TMP/jobs.csv")" -eq 5 ]
cut -d, -f1-10,16 "$TMP/jobs.csv" >"$TMP/jobs10.csv"
check "csv: job 2 waits for job 1" grep -qx '2,10,100,150,90,2,60,50,0,0,completed' "$TMP/jobs10.csv"
check "csv: job 3 (no request) uses its runtime as walltime and backfills" grep -qx '3,20,20,30,0,1,10,10,1,0,completed' "$TMP/jobs10.csv"
check "no progress bar when stderr is not a terminal" [ ! -s "$TMP/err" ]

run simulate --strict "$TMP/small.swf"
check "--strict: unusable record is an error naming file and line" sh -c "[ $rc -eq 1 ] && grep -q 'small.swf:7:' $TMP/err"
# A line the format refuses comes first, even after an unusable record (the
# trace is read as a stream: the unusable record is only kept, not reported).
printf '; MaxProcs: 8\n1 0 0 100 2 -1 -1 2 200 -1 1 1 1 1 1 -1 -1 -1\n2 10 0 -1 2 -1 -1 2 200 -1 1 1 1 1 1 -1 -1 -1\n4 30 0 100 2 -1 -1 2 200\n' >"$TMP/order.swf"
run simulate --strict "$TMP/order.swf"
check "--strict: a bad line later in the file is reported before an unusable record" \
    sh -c "[ $rc -eq 1 ] && grep -q 'order.swf:4: expected 18 fields, found 9' $TMP/err && ! grep -q 'cannot be replayed' $TMP/err"

# A job record holds 32-bit task counts (issue 31: 48 bytes a job): a
# trace asking for more processors is an error naming the file and line.
run simulate tests/data/swf/wide_procs.swf
check "an SWF processor count too wide for a job record is an error with file:line" \
    sh -c "[ $rc -eq 1 ] && grep -q 'wide_procs.swf:3: processors (field 8, else 5) 4294967296 does not fit (at most 2147483647)' $TMP/err"
# ... and 32-bit submit times (issue 31: 40 bytes a job): a span of 2^32 - 1
# s replays, one past it is an error naming the file and line, never a
# time wrapped round.
run simulate tests/data/swf/wide_submit.swf
check "an SWF submit time past 32 bits is an error with file:line" \
    sh -c "[ $rc -eq 1 ] && grep -q 'wide_submit.swf:3: submit time (field 2) 4294967296 does not fit (at most 4294967295)' $TMP/err"
printf '; MaxProcs: 8\n1 0 0 100 2 -1 -1 2 200 -1 1 1 1 1 1 -1 -1 -1\n7 4294967295 0 100 2 -1 -1 2 200 -1 1 1 1 1 1 -1 -1 -1\n' \
    >"$TMP/long_span.swf"
run simulate --jobs-out "$TMP/long_span.csv" "$TMP/long_span.swf"
check "a trace spanning 2^32 - 1 s replays with its last submit time intact" \
    sh -c "[ $rc -eq 0 ] && grep -q '^7,4294967295,4294967295,4294967395,0,' $TMP/long_span.csv"

run simulate "$kth"
check "text report" sh -c "[ $rc -eq 0 ] && grep -q 'jobs simulated *27992' $TMP/out && grep -q 'utilization' $TMP/out"
check "text report: cluster from the header" has_out '100 nodes, 100 processors'

printf 'RMPOLLINTERVAL abc\n' >"$TMP/bad.cfg"
run simulate --config "$TMP/bad.cfg" "$kth"
check "invalid config value: exit 1, file:line" sh -c "[ $rc -eq 1 ] && grep -q 'bad.cfg:1:' $TMP/err"
printf 'BACKFILLPOLICY FIRSTFIT\nFOOBAR 1\n' >"$TMP/unknown.cfg"
run simulate --config "$TMP/unknown.cfg" --format json "$TMP/small.swf"
check "unknown parameter: a warning, the run goes on" sh -c "[ $rc -eq 0 ] && grep -q \"unknown.cfg:2: unknown parameter 'FOOBAR'\" $TMP/err"
printf 'PREEMPTPOLICY CHECKPOINT\n' >"$TMP/ckpt.cfg"
run simulate --config "$TMP/ckpt.cfg" "$TMP/small.swf"
check "a policy not implemented is refused, not replaced" sh -c "[ $rc -eq 1 ] && grep -q 'CHECKPOINT' $TMP/err"
printf 'BACKFILLPOLICY BESTFIT\n' >"$TMP/bestfit.cfg"
run simulate --config "$TMP/bestfit.cfg" "$TMP/small.swf"
check "BACKFILLPOLICY BESTFIT runs" [ "$rc" -eq 0 ]

printf 'NODECFG[a] PROCS=4\nNODECFG[b] PROCS=4\n' >"$TMP/nodes.cfg"
run simulate --config "$TMP/nodes.cfg" --format json "$TMP/small.swf"
check "NODECFG cluster: nothing rejected on 8 processors" sh -c "[ $rc -eq 0 ] && grep -q '\"rejected\":0' $TMP/out"
run simulate --config "$TMP/nodes.cfg" --procs 4 "$TMP/small.swf"
check "NODECFG and --procs together: an error" [ "$rc" -eq 1 ]
printf 'NODECFG[a] MEMORY=100\n' >"$TMP/noprocs.cfg"
run simulate --config "$TMP/noprocs.cfg" "$TMP/small.swf"
check "NODECFG without PROCS: an error naming the node" sh -c "[ $rc -eq 1 ] && grep -q 'NODECFG\[a\]' $TMP/err"

grep -v '^;' "$TMP/small.swf" >"$TMP/nohdr.swf"
run simulate "$TMP/nohdr.swf"
check "no header and no cluster: an error that says what to give" sh -c "[ $rc -eq 1 ] && grep -q -- '--procs' $TMP/err"
run simulate --nodes 2 --ppn 4 --format json "$TMP/nohdr.swf"
check "--nodes/--ppn cluster" sh -c "[ $rc -eq 0 ] && grep -q '\"rejected\":0' $TMP/out"

gzip -c "$TMP/small.swf" >"$TMP/small.swf.gz"
run simulate --format json "$TMP/small.swf.gz"
check "gzip trace gives the same result" has_out '"jobs":3'

# Equal submit times: the lower job id goes first, whatever the line order.
printf '10 0 0 100 4 -1 -1 4 100 -1 1 1 1 -1 1 -1 -1 -1\n3 5 0 50 4 -1 -1 4 60 -1 1 2 1 -1 1 -1 -1 -1\n2 5 0 50 4 -1 -1 4 60 -1 1 2 1 -1 1 -1 -1 -1\n' >"$TMP/tie.swf"
run simulate --procs 4 --format json --jobs-out "$TMP/tie.csv" "$TMP/tie.swf"
check "ties: job 2 before job 3 at the same submit time" sh -c "cut -d, -f1-10 $TMP/tie.csv >$TMP/tie10.csv && grep -qx '2,5,100,150,95,4,60,50,0,0' $TMP/tie10.csv && grep -qx '3,5,150,200,145,4,60,50,0,0' $TMP/tie10.csv"
done_checks
