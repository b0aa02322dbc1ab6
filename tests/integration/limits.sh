#!/bin/sh
# Throttling policies through the binary: the seed's MAXIJOB example,
# blocked jobs in showq / showq -b / checkjob / diagnose -q, the JSON
# shapes, per-job limits, and configuration errors.
. tests/integration/lib.sh

# 17 one-processor jobs of one user, one per second, on one processor.
: >"$TMP/w.swf"
i=1
while [ $i -le 17 ]; do
    echo "$i $i 0 100 1 -1 -1 1 100 -1 1 7 1 -1 1 -1 -1 -1" >>"$TMP/w.swf"
    i=$((i + 1))
done
printf 'USERCFG[DEFAULT] MAXIJOB=8\n' >"$TMP/maxijob.cfg"

run simulate --config "$TMP/maxijob.cfg" --procs 1 --until 20 --show showq "$TMP/w.swf"
check "MAXIJOB 8: 1 active, 8 idle, 8 blocked" grep -q '^Total Jobs: 17   Active Jobs: 1   Idle Jobs: 8   Blocked Jobs: 8' "$TMP/out"
run simulate --config "$TMP/maxijob.cfg" --procs 1 --until 101 --show showq "$TMP/w.swf"
check "after the first ends, the next blocked job becomes idle" grep -q '^Total Jobs: 16   Active Jobs: 1   Idle Jobs: 8   Blocked Jobs: 7' "$TMP/out"

run simulate --config "$TMP/maxijob.cfg" --procs 1 --until 20 --show "showq -b" "$TMP/w.swf"
check "showq -b: each blocked job with Maui's reason (HARD: one value is both, and the hard one keeps it out)" grep -q 'violates idle HARD MAXJOB limit of 8 for user 7' "$TMP/out"
run simulate --config "$TMP/maxijob.cfg" --procs 1 --until 20 --show "checkjob 17 --format=json" "$TMP/w.swf"
check "checkjob: a blocked job's reason" grep -q '"reason": "job 17 violates idle HARD MAXJOB limit of 8 for user 7' "$TMP/out"
run simulate --config "$TMP/maxijob.cfg" --procs 1 --until 20 --show "diagnose -q" "$TMP/w.swf"
check "diagnose -q lists the blocked jobs" sh -c "[ \$(grep -c '^job [0-9]* violates' $TMP/out) -eq 8 ]"

run simulate --config "$TMP/maxijob.cfg" --procs 1 --until 20 --show "showq --format=json" "$TMP/w.swf"
for key in active idle blocked summary total reason wclimit queuetime remaining priority; do
    check "showq json has $key" grep -q "\"$key\"" "$TMP/out"
done

run simulate --config "$TMP/maxijob.cfg" --procs 1 --format json "$TMP/w.swf"
check "the replay finishes every job in the end" has_out '"jobs":17'

printf 'CLASSCFG[DEFAULT] MAX.WCLIMIT=00:01:00\n' >"$TMP/wc.cfg"
run simulate --config "$TMP/wc.cfg" --procs 1 --until 5 --show "showq -b" "$TMP/w.swf"
check "a walltime over MAX.WCLIMIT is blocked for good" grep -q 'violates system HARD MAXWC limit of 60' "$TMP/out"

printf 'USERCFG[DEFAULT] MAXJOB=abc\n' >"$TMP/bad.cfg"
run simulate --config "$TMP/bad.cfg" --procs 1 "$TMP/w.swf"
check "a bad limit: exit 1, file:line" sh -c "[ $rc -eq 1 ] && grep -q 'bad.cfg:1:' $TMP/err"
printf 'USERCFG[DEFAULT] MAXJOB[USER]=2\n' >"$TMP/bad2.cfg"
run simulate --config "$TMP/bad2.cfg" --procs 1 "$TMP/w.swf"
check "a per-user limit on USERCFG: exit 1, named" sh -c "[ $rc -eq 1 ] && grep -q 'bad2.cfg:1:' $TMP/err"

# Limits that do not mean what they say are errors, not silently changed
# (issue 13 §4): 72,000 read as soft 72 / hard 0, soft above hard.
printf '# throttling\nUSERCFG[DEFAULT] MAXPS=72,000\n' >"$TMP/sep.cfg"
run simulate --config "$TMP/sep.cfg" --procs 1 "$TMP/w.swf"
check "MAXPS=72,000: exit 1, file:line, the separator named" \
    sh -c "[ $rc -eq 1 ] && grep -q 'sep.cfg:2: USERCFG\[DEFAULT\] MAXPS: limit .72,000.: the soft limit (first) is above the hard limit (second); for a thousands separator' $TMP/err"
printf 'GROUPCFG[staff] MAXJOB=8,4\n' >"$TMP/swap.cfg"
run simulate --config "$TMP/swap.cfg" --procs 1 "$TMP/w.swf"
check "MAXJOB=8,4 (soft above hard): exit 1, file:line" \
    sh -c "[ $rc -eq 1 ] && grep -q 'swap.cfg:1: GROUPCFG\[staff\] MAXJOB: limit .8,4.: the soft limit' $TMP/err"
printf 'USERCFG[DEFAULT] MAXWC=2:00:00,1:00:00\n' >"$TMP/swapwc.cfg"
run simulate --config "$TMP/swapwc.cfg" --procs 1 "$TMP/w.swf"
check "MAXWC=2:00:00,1:00:00: exit 1" sh -c "[ $rc -eq 1 ] && grep -q 'swapwc.cfg:1:' $TMP/err"
printf 'USERCFG[DEFAULT] MAXJOB=4,8 MAXPS=72000,1080000\n' >"$TMP/okpair.cfg"
run simulate --config "$TMP/okpair.cfg" --procs 1 --format json "$TMP/w.swf"
check "soft below hard is fine" [ "$rc" -eq 0 ]

# The document's names for the usage weights.
printf 'USAGECONSUMEDWEIGHT 3\nUSAGEREMAININGWEIGHT 2\n' >"$TMP/usage.cfg"
run simulate --config "$TMP/usage.cfg" --procs 1 --until 0 --show showconfig "$TMP/w.swf"
check "USAGECONSUMEDWEIGHT and USAGEREMAININGWEIGHT are read, no warning" \
    sh -c "grep -q '^CONSUMEDWEIGHT  *3\$' $TMP/out && grep -q '^REMAININGWEIGHT  *2\$' $TMP/out && ! grep -qi unknown $TMP/err"

# JOBPRIOACCRUALPOLICY FULLPOLICY: a held job accrues no queue time, with or
# without limits: released at 3000 after a hold from 20, it has 1 s of queue
# time at 3001 (it had the 48 minutes since the last iteration that saw it
# held, at 100: the "hold trick" the policy is there to stop).
printf 'JOBPRIOACCRUALPOLICY FULLPOLICY\nQUEUETIMEWEIGHT 1\n' >"$TMP/full.cfg"
printf '1 0 -1 100 1 -1 -1 1 100 -1 1 1 1 -1 1 -1 -1 -1\n2 0 -1 5000 1 -1 -1 1 6000 -1 1 1 1 -1 1 -1 -1 -1\n3 10 -1 100 1 -1 -1 1 100 -1 1 1 1 -1 1 -1 -1 -1\n' >"$TMP/full.swf"
printf '20 sethold 3\n3000 releasehold 3\n3001 checkjob 3\n' >"$TMP/full.cmds"
run simulate --procs 1 --config "$TMP/full.cfg" --commands "$TMP/full.cmds" "$TMP/full.swf"
check "FULLPOLICY: a job held until 3000 has 1 s of eligible queue time at 3001" \
    grep -q 'Eligible: 00:00:01)' "$TMP/err"
printf 'JOBPRIOACCRUALPOLICY FULLPOLICY\nQUEUETIMEWEIGHT 1\nUSERCFG[DEFAULT] MAXJOB=10\n' >"$TMP/full2.cfg"
run simulate --procs 1 --config "$TMP/full2.cfg" --commands "$TMP/full.cmds" "$TMP/full.swf"
check "... the same with a throttling limit set" grep -q 'Eligible: 00:00:01)' "$TMP/err"

# The throttling page: jobs over a SOFT limit only are IDLE (the hard pass
# may start them, and they count against the idle limits); those over a
# HARD or idle limit are BLOCKED. MAXJOB=1,16 with MAXIJOB=8, 17 jobs on one
# processor: 1 active, 8 idle, 8 blocked (was 1, 0, 16).
printf 'USERCFG[DEFAULT] MAXJOB=1,16 MAXIJOB=8\n' >"$TMP/page.cfg"
run simulate --config "$TMP/page.cfg" --procs 1 --until 20 --show showq "$TMP/w.swf"
check "MAXJOB=1,16 MAXIJOB=8: 1 active, 8 idle, 8 blocked, as the page shows" \
    grep -q '^Total Jobs: 17   Active Jobs: 1   Idle Jobs: 8   Blocked Jobs: 8' "$TMP/out"
run simulate --config "$TMP/page.cfg" --procs 1 --until 20 --show "showq -b" "$TMP/w.swf"
check "... the blocked ones over the idle HARD limit (MAXIJOB), named" \
    sh -c "[ \$(grep -c 'violates idle HARD MAXJOB limit of 8 for user 7' $TMP/out) -eq 8 ]"

# A single value is soft and hard at once: the reason says HARD.
printf 'USERCFG[DEFAULT] MAXPS=100\n' >"$TMP/ps.cfg"
printf '1 0 -1 200 1 -1 -1 1 200 -1 1 1 1 -1 1 -1 -1 -1\n' >"$TMP/ps.swf"
run simulate --config "$TMP/ps.cfg" --procs 4 --until 5 --show "showq -b" "$TMP/ps.swf"
check "MAXPS=100, a job of 200 processor-seconds: blocked by the HARD limit, so named" \
    grep -q 'violates active HARD MAXPS limit of 100 for user 1 (R: 200, U: 0)' "$TMP/out"

# REJECTNEGPRIOJOBS: a job of negative priority is listed BLOCKED, with why.
printf 'REJECTNEGPRIOJOBS TRUE\nENABLENEGJOBPRIORITY TRUE\nCREDWEIGHT 1\nUSERWEIGHT 1\nUSERCFG[7] PRIORITY=-100\n' >"$TMP/neg.cfg"
printf '1 0 -1 100 1 -1 -1 1 100 -1 1 7 1 -1 1 -1 -1 -1\n2 0 -1 100 1 -1 -1 1 100 -1 1 8 1 -1 1 -1 -1 -1\n' >"$TMP/neg.swf"
run simulate --config "$TMP/neg.cfg" --procs 4 --until 5 --show showq "$TMP/neg.swf"
check "REJECTNEGPRIOJOBS: the negative-priority job is listed blocked, not idle" \
    grep -q '^Total Jobs: 2   Active Jobs: 1   Idle Jobs: 0   Blocked Jobs: 1' "$TMP/out"
run simulate --config "$TMP/neg.cfg" --procs 4 --until 5 --show "showq -b" "$TMP/neg.swf"
check "... with the reason" grep -q 'negative priority (REJECTNEGPRIOJOBS)' "$TMP/out"

# showq's filters (the throttling page's own `showq -u`): only that user's,
# group's, account's or class's jobs; the processor summary stays the
# cluster's.
printf '1 0 -1 100 1 -1 -1 1 100 -1 1 7 1 -1 1 -1 -1 -1\n2 0 -1 100 1 -1 -1 1 100 -1 1 8 2 -1 1 -1 -1 -1\n3 0 -1 100 1 -1 -1 1 100 -1 1 8 2 -1 1 -1 -1 -1\n' >"$TMP/f.swf"
run simulate --procs 1 --until 5 --show "showq -u 8" "$TMP/f.swf"
check "showq -u 8: user 8's two jobs alone" grep -q '^Total Jobs: 2   Active Jobs: 0   Idle Jobs: 2   Blocked Jobs: 0' "$TMP/out"
run simulate --procs 1 --until 5 --show "showq -u 7" "$TMP/f.swf"
check "showq -u 7: user 7's running job, the cluster's processors" \
    sh -c "grep -q '^Total Jobs: 1   Active Jobs: 1' $TMP/out && grep -q '1 of    1 Processors Active' $TMP/out"
run simulate --procs 1 --until 5 --show "showq -g 2 -i" "$TMP/f.swf"
check "showq -g 2 -i: group 2's idle jobs in detail" sh -c "grep -Eq '^ +2\*? ' $TMP/out && grep -Eq '^ +3 ' $TMP/out && ! grep -Eq '^ +1 ' $TMP/out"
run simulate --procs 1 --until 5 --show "showq -u nobody" "$TMP/f.swf"
check "showq -u of a user with no jobs: an empty listing, not an error" grep -q '^Total Jobs: 0 ' "$TMP/out"
run simulate --procs 1 --until 5 --show "showq -u" "$TMP/f.swf"
check "showq -u without a name: an error naming it" grep -q 'showq: -u needs a name' "$TMP/err"

# MAXSUBMITJOBS (the throttling page's "72 jobs in total, running and
# idle"): a submission over it is refused, counted as rejected in a replay
# with the reason in the CSV; a job ending makes room again; each object on
# its own (user 8 is not user 7).
printf 'USERCFG[DEFAULT] MAXSUBMITJOBS=2\n' >"$TMP/sub.cfg"
{ for i in 1 2 3 4; do printf '%s 0 -1 100 1 -1 -1 1 100 -1 1 7 1 -1 1 -1 -1 -1\n' $i; done
  printf '5 0 -1 100 1 -1 -1 1 100 -1 1 8 1 -1 1 -1 -1 -1\n6 150 -1 100 1 -1 -1 1 100 -1 1 7 1 -1 1 -1 -1 -1\n'
} >"$TMP/sub.swf"
run simulate --config "$TMP/sub.cfg" --procs 1 --jobs-out "$TMP/sub.csv" "$TMP/sub.swf"
check "MAXSUBMITJOBS: two of user 7's four jobs are rejected" has_out "jobs rejected        2 "
check "MAXSUBMITJOBS: the CSV says why" \
    grep -q '^3,.*user 7 already has 2 jobs queued or running (MAXSUBMITJOBS 2)' "$TMP/sub.csv"
check "MAXSUBMITJOBS: user 8 is not held to user 7's count; job 6 comes after one ended" \
    sh -c "awk -F, '\$1 == 5 || \$1 == 6 { if (\$3 == \"\") bad = 1 } END { exit bad }' '$TMP/sub.csv'"
printf 'USERCFG[DEFAULT] MAXSUBMITJOBS=-1\n' >"$TMP/subbad.cfg"
run simulate --config "$TMP/subbad.cfg" --procs 1 "$TMP/sub.swf"
check "MAXSUBMITJOBS below 0: an error naming file and line" \
    sh -c "[ $rc -ne 0 ] && grep -q 'subbad.cfg:1' '$TMP/err'"

# A job without an account has no account for the limits (Maui):
# ACCOUNTCFG[DEFAULT] MAXJOB=1 keeps account proj to one job at a time, but
# does not pool the two project-less jobs into one account DEFAULT. Their
# CSV rows give no account.
printf 'ACCOUNTCFG[DEFAULT] MAXJOB=1\n' >"$TMP/acct.cfg"
run simulate --config "$TMP/acct.cfg" --procs 4 --jobs-out "$TMP/acct.csv" tests/data/sim/accounts.wtrace
check "ACCOUNTCFG[DEFAULT] MAXJOB=1: proj's second job waits for its first" \
    [ "$(awk -F, '$1 == 2 { print $3 - $2 }' "$TMP/acct.csv")" = 100 ]
check "ACCOUNTCFG[DEFAULT] MAXJOB=1: the two jobs without an account both start at once" \
    [ "$(awk -F, '($1 == 3 || $1 == 4) && $3 == $2' "$TMP/acct.csv" | wc -l)" = 2 ]
check "... and their rows give no account (proj's give proj)" \
    sh -c "awk -F, '\$1 == 3 && \$13 == \"\"' '$TMP/acct.csv' | grep -q . && awk -F, '\$1 == 1 && \$13 == \"proj\"' '$TMP/acct.csv' | grep -q ."

# Jobs refused for ever wait out of the queue under whole-queue walks
# (parked, policy/elig.c: fairshare orders the queue, limits of three
# kinds): 165 of tests/data/sim/parked's 400 jobs go over MAXPS or
# MAX.WCLIMIT by their request alone. Commands on parked jobs bring them
# back: setqos to an IGNALL QOS runs them, a hold and release, a cancel,
# runjob -f, setspri. Every way of looking at the replay must give one
# schedule: a showq every 1,000 s (a look brings every parked job back to
# the queue), an iteration at every RMPOLLINTERVAL (--iterate-every 60) and
# Maui's whole walk (--full-walk). Found by att31q's crafted cases (issue
# 31; no difference found, kept as a regression check).
P=tests/data/sim/parked
awk 'BEGIN { for (t = 500; t < 80000; t += 1000) print t, "showq" }' >"$TMP/looks"
sort -s -n -k1,1 "$P/commands" "$TMP/looks" >"$TMP/parked_looks.cmds"
pk() { # NAME ARGS...: the replay's jobs CSV in $TMP/parked_NAME.csv
    pkn=$1
    shift
    run simulate --procs 64 --config "$P/maui.cfg" --quiet --jobs-out "$TMP/parked_$pkn.csv" "$@" "$P/trace.swf"
}
pk plain --commands "$P/commands"
check "parked jobs: setqos to an IGNALL QOS runs them (2, 9, 41, 56 complete under hi)" \
    [ "$(grep -Ec '^(2|9|41|56),.*,hi,completed,' "$TMP/parked_plain.csv")" = 4 ]
check "... held and released, a job refused for ever is refused again in the same words" \
    grep -q '^12,.*,never_started,"job 12 violates system HARD MAXWC limit of 15000 for class 1' \
    "$TMP/parked_plain.csv"
check "... a cancelled parked job is cancelled, a forced one (runjob -f) runs at once" \
    sh -c "grep -q '^23,.*,cancelled,' '$TMP/parked_plain.csv' && grep -q '^31,4254,9000,' '$TMP/parked_plain.csv'"
pk looks --commands "$TMP/parked_looks.cmds"
check "... a showq every 1,000 s changes no job's schedule" cmp "$TMP/parked_plain.csv" "$TMP/parked_looks.csv"
pk every --commands "$P/commands" --iterate-every 60
check "... nor an iteration at every RMPOLLINTERVAL (--iterate-every 60)" \
    cmp "$TMP/parked_plain.csv" "$TMP/parked_every.csv"
pk full --commands "$P/commands" --full-walk
check "... and it is the whole-queue walk's (--full-walk)" cmp "$TMP/parked_plain.csv" "$TMP/parked_full.csv"
# What commands show of parked jobs (showq -b, checkjob, diagnose -q) is
# what they show under the whole walk, in the same words.
printf '30000 showq -b\n30000 checkjob 54\n30000 diagnose -q\n45000 showq\n' >"$TMP/views"
sort -s -n -k1,1 "$P/commands" "$TMP/views" >"$TMP/parked_views.cmds"
for w in "" --full-walk; do
    run simulate --procs 64 --config "$P/maui.cfg" --commands "$TMP/parked_views.cmds" $w "$P/trace.swf"
    cp "$TMP/err" "$TMP/views$w"
done
check "... and showq -b, checkjob and diagnose -q show them as the whole walk does" \
    sh -c "cmp '$TMP/views' '$TMP/views--full-walk' && grep -q 'job 54 violates active HARD MAXPS limit of 200000 for user 3' '$TMP/views'"
done_checks
