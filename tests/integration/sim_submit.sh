#!/bin/sh
# moku simulate --commands: the `submit` command (docs/simulation.md,
# "Timed commands") — jobs a script adds to a replay with qsub's options,
# dependencies (-W depend=) and arrays (-t, -J) among them. Data-driven:
# each tests/data/sim/submit/*.cmds is replayed on trace.swf (one
# 4-processor node); its "#want JOB START END STATE" lines are the jobs'
# outcomes ("-": never), "#reason JOB TEXT" a cancelled job's reason, and
# a bad_*.cmds's "#error LINE: TEXT" the refusal (exit 1, no replay).
# Through tests/run.sh every replay is also validated (tests/tools/vsim),
# and the validator is shown to catch a schedule that breaks them.
. tests/integration/lib.sh
dir=tests/data/sim/submit
trace=$dir/trace.swf

# col JOB N: field N of JOB's row of $TMP/jobs.csv ("-" when empty).
col() { awk -F, -v j="$1" -v c="$2" '$1 == j { print ($c == "" ? "-" : $c) }' "$TMP/jobs.csv"; }

for f in "$dir"/[!b]*.cmds; do
    name=$(basename "$f" .cmds)
    run simulate --jobs-out "$TMP/jobs.csv" --commands "$f" "$trace"
    check "$name: the replay runs (exit 0)" [ "$rc" -eq 0 ]
    grep '^#want ' "$f" >"$TMP/want"
    while read -r _ job start end state; do
        got="$(col "$job" 3) $(col "$job" 4) $(col "$job" 16)"
        check "$name: $job $start $end $state (got $got)" [ "$got" = "$start $end $state" ]
    done <"$TMP/want"
    grep '^#reason ' "$f" >"$TMP/want"
    while read -r _ job reason; do
        check "$name: $job's reason is '$reason'" \
            awk -F, -v j="$job" -v r="$reason" '$1 == j && index($0, r) { f = 1 } END { exit !f }' \
            "$TMP/jobs.csv"
    done <"$TMP/want"
done

# refused FILE WANT: exit 1, no report, and "moku: FILE:WANT" on stderr.
refused() { [ "$rc" -eq 1 ] && [ ! -s "$TMP/out" ] && grep -q -- "^moku: $1:$2" "$TMP/err"; }

for f in "$dir"/bad_*.cmds; do
    want=$(sed -n 's/^#error //p' "$f")
    run simulate --commands "$f" "$trace"
    check "$(basename "$f"): exit 1, no report, $f:$want" refused "$f" "$want"
done

run simulate --swf-out "$TMP/o.swf" --commands "$dir/chain.cmds" "$trace"
check "--swf-out with submissions: refused (exit 1), naming the first" \
    sh -c "[ $rc -eq 1 ] && grep -q 'swf-out: $dir/chain.cmds submits jobs (line 9)' '$TMP/err'"

# broken CMDS SED WHAT MESSAGE: CMDS's replay, its jobs table edited by SED
# into a schedule that breaks WHAT, is refused by validate with MESSAGE.
broken() {
    run simulate --jobs-out "$TMP/ok.csv" --commands "$dir/$1" "$trace"
    sed "$2" "$TMP/ok.csv" >"$TMP/bad.csv"
    run validate --commands "$dir/$1" "$trace" "$TMP/bad.csv"
    check "validate: $3" sh -c "[ $rc -eq 1 ] && grep -q '$4' '$TMP/out'"
}

# A qalter that fails at its time (the job runs) is reported with its
# line, in the daemon's words; the replay goes on (exit 0).
run simulate --commands "$dir/qalter.cmds" "$trace"
check "qalter of a running job: reported, the replay goes on" \
    sh -c "[ $rc -eq 0 ] && grep -q '^moku: $dir/qalter.cmds:18: qalter: Request invalid for state of job c' '$TMP/err'"
broken qalter.cmds 's/^d,10,450,460,/d,10,420,430,/' \
    'a dependency a qalter gave broken (d starts at 420, b ends at 450)' \
    'job d: starts at 420, which job b (completed, ran) does not allow (afterany)'
broken exit.cmds 's/^ok,20,,,,\([^,]*\),\([^,]*\),\([^,]*\),0,0,\([^,]*\),\([^,]*\),,\([^,]*\),\([^,]*\),cancelled,[^,]*,,/ok,20,400,450,380,\1,\2,\3,0,0,\4,\5,,\6,\7,completed,,node1:1,/' \
    'afterok on a job whose script failed (--exit 3) broken' \
    'job ok: starts at 400, which job f (completed, ran) does not allow (afterok)'

# While they wait: held for the dependency or the slot limit, and said so.
run simulate --until 100 --show "checkjob b" --show "showq -b" --commands "$dir/chain.cmds" "$trace"
check "checkjob: a job waiting for its dependency is on system hold, its dependency shown" \
    sh -c "grep -q '^State: SystemHold' '$TMP/out' && grep -q '^Depend:  afterok:a (waiting)' '$TMP/out'"
check "showq -b: blocked for its dependencies" \
    grep -q ' b .*job has unsatisfied dependencies' "$TMP/out"
run simulate --until 350 --show "checkjob arr[3]" --commands "$dir/array.cmds" "$trace"
check "checkjob: a task beyond the slot limit says so" grep -q 'array slot limit' "$TMP/out"

# The validator reads the submissions too: a schedule that starts b before
# a ends, runs nok although a succeeded, or three of arr's tasks at once
# is refused.
broken chain.cmds 's/^b,10,900,1200,/b,10,850,1150,/' \
    'afterok broken (b starts at 850, a ends at 900)' \
    'job b: starts at 850, which job a (completed, ran) does not allow (afterok)'
broken never.cmds 's/^nok,10,,,,\([^,]*\),\([^,]*\),\([^,]*\),0,0,\([^,]*\),\([^,]*\),,\([^,]*\),\([^,]*\),cancelled,[^,]*,,/nok,10,400,500,390,\1,\2,\3,0,0,\4,\5,,\6,\7,completed,,node1:1,/' \
    'afternotok broken (nok runs though a succeeded)' \
    'job nok: starts at 400, which job a (completed, ran) does not allow (afternotok)'
broken array.cmds 's/^arr\[3\],10,400,500,/arr[3],10,350,450,/' \
    'the slot limit broken (arr[3] starts at 350 with two running)' \
    'job arr\[3\]: starts at 350 with 3 tasks of array arr running, its slot limit is 2'
done_checks
