#!/bin/sh
# A site's own accounting as the workload (issue 32): sacct --parsable2
# output and Torque's accounting log, read from samples written after the
# formats' documentation (tests/data/acct/: steps, array tasks, het-job
# parts, Slurm's time formats, jobs pending or running at the end, a job
# cancelled while pending; Torque's exit records with both exec_host forms,
# quoted values, a job deleted before it ran), with --strict, file:line
# errors and round trips through --swf-out. Every replay here is validated
# (tests/tools/vsim), so moku validate reads these formats too.
. tests/integration/lib.sh
d=tests/data/acct
sacct=$d/slurm.sacct
torque=$d/torque.acct
jcol() { awk -F, -v id="$2" -v c="$3" 'NR > 1 && $1 == id { print $c }' "$1"; }

# ----------------------------------------------------------------- sacct
run simulate --procs 16 --jobs-out "$TMP/s.csv" "$sacct"
check "sacct: replayed, told apart by content" sh -c "[ $rc -eq 0 ] && grep -q '^moku simulate: $sacct' $TMP/out"
check "sacct: 8 jobs (steps ignored, array tasks and het-job parts are jobs)" has_out '^  jobs simulated       8$'
check "sacct: 4 skipped, 3 of them unfinished (PENDING, RUNNING, a pending array)" \
    has_out '^  jobs skipped         4   (trace records that cannot be replayed; 3 of them unfinished'
check "sacct: no step has a row" sh -c "! grep -q '^1001\.' $TMP/s.csv && [ \$(sed 1d $TMP/s.csv | wc -l) -eq 8 ]"
check "sacct: the array tasks and het-job parts" sh -c "grep -q '^1003_1,' $TMP/s.csv && grep -q '^1003_2,' $TMP/s.csv && grep -q '^1004+0,' $TMP/s.csv && grep -q '^1004+1,' $TMP/s.csv"
check "sacct: never-started (cancelled while pending) and unfinished jobs have no row" \
    sh -c "! grep -qE '^(1006|1007|1008|1009)' $TMP/s.csv"
check "sacct: submit is epoch seconds (2026-10-01T00:05:00 UTC)" [ "$(jcol "$TMP/s.csv" 1002 2)" = 1790813100 ]
check "sacct: Timelimit 02:00:00 is the walltime" [ "$(jcol "$TMP/s.csv" 1001 7)" = 7200 ]
check "sacct: Timelimit 1-00:00:00 is a day" [ "$(jcol "$TMP/s.csv" 1002 7)" = 86400 ]
check "sacct: UNLIMITED: the runtime stands in" [ "$(jcol "$TMP/s.csv" 1004+0 7)" = 3600 ]
check "sacct: Partition_Limit: the runtime stands in" [ "$(jcol "$TMP/s.csv" 1004+1 7)" = 1800 ]
check "sacct: runtime End - Start (a job cancelled while running ran 600 s)" [ "$(jcol "$TMP/s.csv" 1005 8)" = 600 ]
check "sacct: NCPUS are the processors" [ "$(jcol "$TMP/s.csv" 1002 6)" = 4 ]
check "sacct: the partition is the class, the QOS kept" sh -c "[ \"\$(awk -F, '\$1 == \"1003_1\" { print \$14 }' $TMP/s.csv)\" = short ] && [ \"\$(awk -F, '\$1 == \"1004+0\" { print \$15 }' $TMP/s.csv)\" = high ]"
check "sacct: user, group and account" grep -q '^1001,.*,alice,phys,proj1,batch,normal,' "$TMP/s.csv"
run simulate --procs 16 --format json "$sacct"
check "sacct json: unfinished 3" has_out '"skipped":4,.*"unfinished":3,'
run simulate --procs 16 --strict "$sacct"
check "sacct --strict: pending, running and never-started jobs are not errors" [ "$rc" -eq 0 ]

# The same accounting with epoch times (SLURM_TIME_FORMAT=%s): the same schedule.
sed 's/2026-10-01T00:00:00/1790812800/g; s/2026-10-01T00:00:10/1790812810/g' "$sacct" >"$TMP/epoch.sacct"
run simulate --procs 16 --jobs-out "$TMP/se.csv" "$TMP/epoch.sacct"
check "sacct: epoch seconds read as the dates they stand for" cmp -s "$TMP/s.csv" "$TMP/se.csv"

# Errors name the file, the line and the column; nothing half-read.
head -n 2 "$sacct" >"$TMP/bad.sacct"
echo '2001|eve|x|y|batch|normal|2026-10-01 00:00:00|Unknown|Unknown|01:00:00|1|1|1G|PENDING|0:0' >>"$TMP/bad.sacct"
run simulate --procs 16 "$TMP/bad.sacct"
check "sacct: a time not YYYY-MM-DDTHH:MM:SS: file:line:column, exit 1" sh -c "[ $rc -eq 1 ] && grep -q \"bad.sacct:3: column Submit: '2026-10-01 00:00:00' is not a time\" $TMP/err && [ ! -s $TMP/out ]"
head -n 2 "$sacct" >"$TMP/bad2.sacct"
echo '2002|eve|x|y|batch|normal|2026-10-01T00:00:00|2026-10-01T00:10:00|2026-10-01T00:05:00|01:00:00|1|1|1G|COMPLETED|0:0' >>"$TMP/bad2.sacct"
run simulate --procs 16 "$TMP/bad2.sacct"
check "sacct: a job that ended before it started is skipped" sh -c "[ $rc -eq 0 ] && grep -q '^  jobs skipped         1 ' $TMP/out"
run simulate --procs 16 --strict "$TMP/bad2.sacct"
check "sacct --strict: ... and an error naming file and line" sh -c "[ $rc -eq 1 ] && grep -q 'bad2.sacct:3: job 2002 cannot be replayed: it ended before it started' $TMP/err"
sed 1d "$sacct" >"$TMP/noheader.sacct"
run simulate --procs 16 "$TMP/noheader.sacct"
check "sacct -n output (no header): said so, exit 1" sh -c "[ $rc -eq 1 ] && grep -q 'noheader.sacct:1: sacct output without its header line' $TMP/err"
printf 'JobID|JobName|Submit|Start|End|State|NCPUS\n7|a|b|2026-10-01T00:00:00|2026-10-01T00:00:00|2026-10-01T00:00:01|COMPLETED|1\n' >"$TMP/pipe.sacct"
run simulate --procs 16 "$TMP/pipe.sacct"
check "sacct: a '|' inside a field: the count of fields named" sh -c "[ $rc -eq 1 ] && grep -q 'pipe.sacct:2: 8 fields where the header has 7' $TMP/err"

# Round trip: the replay as SWF, replayed again, starts the jobs at the same times.
run simulate --procs 16 --jobs-out "$TMP/a.csv" --swf-out "$TMP/s.swf" "$sacct"
run simulate --procs 16 --jobs-out "$TMP/b.csv" "$TMP/s.swf"
awk -F, 'NR > 1 { print $3 - $2, $4 - $2 }' "$TMP/a.csv" >"$TMP/a.t"
awk -F, 'NR > 1 { print $3 - $2, $4 - $2 }' "$TMP/b.csv" >"$TMP/b.t"
check "sacct round trip through --swf-out: the same waits and ends" sh -c "[ $rc -eq 0 ] && [ -s $TMP/a.t ] && cmp -s $TMP/a.t $TMP/b.t"
check "sacct round trip: the SWF's own schedule validates" sh -c "'$MOKU' validate --procs 16 '$TMP/s.swf' '$TMP/s.swf' >/dev/null"

# --recorded: the schedule sacct holds, measured beside the replay.
run simulate --procs 16 --recorded --jobs-out "$TMP/r.csv" "$sacct"
check "--recorded: a column of its own, first" sh -c "[ $rc -eq 0 ] && grep -Eq '^  configuration +recorded +defaults\$' $TMP/out"
check "--recorded: its average wait by hand ((10+0+3010+3010+0+2410+2410+0)/8 = 1356.25)" grep -Eq "^  average wait \(s\) +1356\.2 " "$TMP/out"
check "--recorded: its rows lead the jobs CSV" sh -c "head -n 2 $TMP/r.csv | tail -n 1 | grep -q '^recorded,1001,1790812800,1790812810,1790816410,10,4,'"
run simulate --procs 16 --recorded --series "$TMP/r-series.csv" "$sacct"
check "--recorded: its series rows first, run 'recorded', then run 1" sh -c "[ \"\$(cut -d, -f1 $TMP/r-series.csv | uniq | tr '\n' ' ')\" = 'run recorded 1 ' ]"

# ----------------------------------------------------------------- Torque
run simulate --procs 16 --jobs-out "$TMP/t.csv" "$torque"
check "torque: replayed, told apart by content" sh -c "[ $rc -eq 0 ] && grep -q '^  jobs simulated       5\$' $TMP/out"
check "torque: the job deleted before it ran is skipped" has_out '^  jobs skipped         1 '
check "torque: total_execution_slots" [ "$(jcol "$TMP/t.csv" 101.srv.example.org 6)" = 4 ]
check "torque: exec_host of single slots (n02/0+n02/1+n03/0+n03/1)" [ "$(jcol "$TMP/t.csv" 102.srv.example.org 6)" = 4 ]
check "torque: exec_host ranges (n04/0-2), an array task's id" [ "$(jcol "$TMP/t.csv" '103[1].srv.example.org' 6)" = 3 ]
check "torque: PBS Pro's host/0*2" [ "$(jcol "$TMP/t.csv" 104.srv.example.org 6)" = 2 ]
check "torque: Resource_List.ncpus when no host list" [ "$(jcol "$TMP/t.csv" 106.srv.example.org 6)" = 1 ]
check "torque: qtime is the submission, Resource_List.walltime the walltime" sh -c "[ \"\$(awk -F, '\$1 == \"102.srv.example.org\" { print \$2, \$7, \$8 }' $TMP/t.csv)\" = '1790812860 1800 1800' ]"
check "torque: a quoted value (account=\"proj x\")" grep -q '^104\.srv\.example\.org,.*,carol,bio,proj x,batch,' "$TMP/t.csv"
check "torque: the queue is the class" grep -q "^103\[1\]\.srv\.example\.org,.*,bob,chem,,short," "$TMP/t.csv"
{ cat "$torque"; grep ';E;101\.srv' "$torque"; } >"$TMP/dup.acct"
run simulate --procs 16 "$TMP/dup.acct"
check "torque: a second exit record of a job is skipped" sh -c "[ $rc -eq 0 ] && grep -q '^  jobs skipped         2 ' $TMP/out"
run simulate --procs 16 --strict "$TMP/dup.acct"
check "torque --strict: ... and an error naming its line and the first" sh -c "[ $rc -eq 1 ] && grep -q 'dup.acct:17: job 101.srv.example.org cannot be replayed: its exit was recorded already (line 13)' $TMP/err"
{ head -n 3 "$torque"; echo 'this line is not a record'; } >"$TMP/bad.acct"
run simulate --procs 16 "$TMP/bad.acct"
check "torque: a line that is not a record: file:line, exit 1" sh -c "[ $rc -eq 1 ] && grep -q 'bad.acct:4: not an accounting record' $TMP/err"
sed 's/exec_host=n05\/0\*2/exec_host=n05/' "$torque" >"$TMP/bad2.acct"
run simulate --procs 16 "$TMP/bad2.acct"
check "torque: a host list without slots: file:line and the key" sh -c "[ $rc -eq 1 ] && grep -q \"bad2.acct:11: exec_host='n05' is not a host list\" $TMP/err"
run simulate --procs 16 --jobs-out "$TMP/ta.csv" --swf-out "$TMP/t.swf" "$torque"
run simulate --procs 16 --jobs-out "$TMP/tb.csv" "$TMP/t.swf"
awk -F, 'NR > 1 { print $3 - $2, $4 - $2 }' "$TMP/ta.csv" >"$TMP/ta.t"
awk -F, 'NR > 1 { print $3 - $2, $4 - $2 }' "$TMP/tb.csv" >"$TMP/tb.t"
check "torque round trip through --swf-out: the same waits and ends" sh -c "[ $rc -eq 0 ] && [ -s $TMP/ta.t ] && cmp -s $TMP/ta.t $TMP/tb.t"

# ----------------------------------------------------------------- homes
mkdir "$TMP/emptyhome"
run simulate --procs 4 "$TMP/emptyhome"
check "a directory without a database: not a home, said so" sh -c "[ $rc -eq 1 ] && grep -q 'emptyhome/moku.db: .*not a moku home' $TMP/err"
done_checks
