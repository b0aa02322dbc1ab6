#!/bin/sh
# Random differential replays inside one binary (issue 31): the speed work
# (the throttling eset's skip ranges, qorder's merged credential groups, the
# quick backfill scans, the node runs, the keyed heaps, the SWF reader,
# swfpack, obuf) must change no schedule. The old binaries are not here, so
# what is compared are the equivalences one binary holds:
#   - under throttling limits, the incremental walk and --full-walk (Maui's
#     whole-queue walk) give the same outputs: jobs CSV, SWF, Batsim, series
#     and the answers of timed commands (which look at priorities, fairshare,
#     backfill windows, start estimates);
#   - an iteration forced at every RMPOLLINTERVAL instant (--iterate-every)
#     gives the same jobs CSV (no wake-up missing).
# The cases (tests/tools/diffreplay.py, fixed seeds) are stretches of the
# bundled traces, synthetic traces (bursts, few users, groups and classes)
# and traces of odd but valid values (ids with leading zeros or past 2^31,
# decimals everywhere, statuses of every kind), under random combinations of
# backfill policy and depth, user/group/class limits (soft,hard), fairshare
# (floors, ceilings, caps), XFACTOR and credential priorities and node
# allocation. A differing case is kept under build/diffreplay-failures/.
# DIFF_N cases from DIFF_SEED (default 30 from 1).
. tests/integration/lib.sh

N=${DIFF_N:-30}
SEED=${DIFF_SEED:-1}
KEEP=${DIFF_KEEP:-build/diffreplay-failures}
# Each replay well within this many seconds on the 2-core machine under
# load; one that takes longer is reported, not skipped silently.
LIMIT=$((30 * ${TIME_SCALE:-1}))

python3 tests/tools/diffreplay.py --bin "$MOKU" --walks --wake --commands 0.5 --kinds slice,synth,weird \
    --max-jobs 300 --timeout "$LIMIT" -n "$N" --seed "$SEED" --keep "$KEEP" >"$TMP/out" 2>"$TMP/err"
rc=$?
check "diffreplay ran its $N cases (exit $rc: 0 same, 1 some differ)" \
    grep -q "^cases $N, " "$TMP/out"
differ=$(grep -v ': same$' "$TMP/out" | grep '^seed ')
check "every case: --full-walk and the default walk agree, and --iterate-every changes no schedule${differ:+
$differ}" [ -z "$differ" ]
[ -s "$TMP/err" ] && sed 's/^/# /' "$TMP/err"

# Differences diffreplay found between builds, minimised (tests/data/diffreplay/<name>/: case.cfg
# says what and which side is right), with what the right side shows.
D=tests/data/diffreplay
# idle NAME: the job ids of the IDLE JOBS section of the case's showq, in order.
idle() {
    # shellcheck disable=SC2046 # the case's cluster options, split into words
    "$MOKU" simulate $(cat "$D/$1/args" 2>/dev/null) --config "$D/$1/case.cfg" --commands "$D/$1/case.cmds" "$D/$1/case.swf" 2>&1 >/dev/null |
        awk '/IDLE JOBS/ { i = 1; next } /Idle Jobs/ { i = 0 }
             i && $3 == "Idle" { printf "%s%s", s, $1; s = " " } END { print "" }'
}
got=$(idle showq-order)
check "showq lists idle jobs in priority order, a job submitted behind the head that cannot start included ($got)" \
    [ "$got" = "63 65 62" ]
got=$(idle showq-order-xfactor)
check "... and with priorities that move (XFACTOR) and jobs submitted at one instant ($got)" \
    [ "$got" = "1146 1150 1149 1148" ]
# prio NAME: the job ids diagnose -p lists for the case, in order.
prio() {
    # shellcheck disable=SC2046 # the case's cluster options, split into words
    "$MOKU" simulate $(cat "$D/$1/args" 2>/dev/null) --config "$D/$1/case.cfg" --commands "$D/$1/case.cmds" "$D/$1/case.swf" 2>&1 >/dev/null |
        awk '/^Percent/ { i = 0 } i && NF { printf "%s%s", s, $1; s = " " } /Weights/ { i = 1 }
             END { print "" }'
}
got=$(prio diagnose-order-stale)
check "diagnose -p lists the queue in the order of its priorities now, not the order a poll kept ($got)" \
    [ "$got" = "441 443 436 444 464 463 465" ]
done_checks
