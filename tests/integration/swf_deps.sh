#!/bin/sh
# SWF fields 17/18 replayed (issue 30 §2): a job naming a preceding job is
# held until that job ends (afterany), as the daemon holds a qsub -W
# depend=afterany job; --no-swf-deps replays the trace without them; a
# preceding job that is not in the trace, or not queued before the job
# (later, itself, a cycle), is an error naming the file and line.
. tests/integration/lib.sh

D=tests/data/swf

# failed RC TEXT: the last run exited with RC and said TEXT on stderr.
failed() { [ "$rc" = "$1" ] && has_err "$2"; }

# starts CSV: "id:start" of every job, one line.
starts() { awk -F, 'NR > 1 { printf "%s%s:%s", sep, $1, $3; sep = " " } END { print "" }' "$1"; }

run simulate --jobs-out "$TMP/deps.csv" "$D/deps.swf"
check "a trace with fields 17/18 replays" [ "$rc" = 0 ]
got=$(starts "$TMP/deps.csv")
# 2 waits for 1 (ends at 100), 3 for 2 (ends at 150); 4 waits for nothing;
# 6 waits for 5, a record that cannot be replayed: for nothing.
check "each job waits for its preceding job to end ($got)" \
    [ "$got" = "1:0 2:100 3:150 4:20 6:40" ]

run simulate --no-swf-deps --jobs-out "$TMP/nodeps.csv" "$D/deps.swf"
got=$(starts "$TMP/nodeps.csv")
check "--no-swf-deps: no job waits for another ($got)" \
    [ "$rc.$got" = "0.1:0 2:10 3:20 4:30 6:40" ]

run simulate "$D/deps_unknown.swf"
check "a preceding job not in the trace is an error naming file and line" \
    failed 1 "deps_unknown.swf:3: field 17 (preceding job number): job 9 is not in the trace"

run simulate "$D/deps_later.swf"
check "a preceding job queued after the job is an error naming file and line" \
    failed 1 "deps_later.swf:2: field 17 (preceding job number): job 2 is not queued before"

run simulate --no-swf-deps "$D/deps_later.swf"
check "--no-swf-deps replays a trace whose fields 17/18 are inconsistent" [ "$rc" = 0 ]

# A cycle: 1 waits for 2, 2 for 1.
printf '; MaxProcs: 4\n1 0 0 10 1 -1 -1 1 20 -1 1 1 1 -1 -1 -1 2 0\n2 0 0 10 1 -1 -1 1 20 -1 1 1 1 -1 -1 -1 1 0\n' >"$TMP/cycle.swf"
run simulate "$TMP/cycle.swf"
check "a cycle is an error naming the line" failed 1 "cycle.swf:2: field 17"

# Itself.
printf '; MaxProcs: 4\n1 0 0 10 1 -1 -1 1 20 -1 1 1 1 -1 -1 -1 1 0\n' >"$TMP/self.swf"
run simulate "$TMP/self.swf"
check "a job waiting for itself is an error" failed 1 "self.swf:2: field 17"

# A chain of 200 jobs, each waiting for the one before: run one after the
# other on a cluster with room for all of them at once.
awk 'BEGIN { print "; MaxProcs: 64"; for (i = 1; i <= 200; i++) printf "%d %d 0 5 1 -1 -1 1 10 -1 1 1 1 -1 -1 -1 %d 0\n", i, i, (i > 1 ? i - 1 : -1) }' >"$TMP/chain.swf"
run simulate --jobs-out "$TMP/chain.csv" "$TMP/chain.swf"
in_chain() {
    [ "$rc" = 0 ] && awk -F, 'NR > 1 { n++; if ($3 != 1 + 5 * ($1 - 1)) bad++ } END { exit bad > 0 || n != 200 }' "$TMP/chain.csv"
}
check "a chain of 200 runs one job after the other" in_chain
done_checks
