#!/bin/sh
# Snapshots are the replay (issue 26 §4): `moku simulate --until T` stops in
# the state the full replay holds at T — after its last iteration at or
# before T, with no iteration of its own at T — so its jobs CSV agrees with
# the full replay's: a job the full replay started by T started at the same
# time on the same nodes, one it ended by T ended then, and no other started
# or ended. A property over random T (UNTIL_SEED, UNTIL_N) on the real KTH
# trace under the throttling page's policy and under a priority that moves
# with time (XFACTOR), and the issue's MAXPS example between its events.
. tests/integration/lib.sh

SEED=${UNTIL_SEED:-26}
N=${UNTIL_N:-8}
KTH=data/KTH-SP2-1996-2.1-cln.norm.swf.gz
gzip -dc "$KTH" >"$TMP/kth-all.swf"
awk '/^;/ || n++ < 6000' "$TMP/kth-all.swf" >"$TMP/kth.swf"
printf 'USERCFG[DEFAULT] MAXIJOB=8 MAXJOB=72 MAXPS=72000,1080000\n' >"$TMP/page.cfg"
printf 'XFACTORWEIGHT 10\nQUEUETIMEWEIGHT 1\n' >"$TMP/xfactor.cfg"

# agrees SNAP.csv FULL.csv T: prints what disagrees, exits 1 if anything.
cat >"$TMP/agree.awk" <<'EOF'
BEGIN { FS = "," }
FNR == 1 { next }
NR == FNR { start[$1] = $3; end[$1] = $4; nodes[$1] = $18; next }
{
    id = $1
    if (!(id in start)) { bad = bad "\n# job " id ": not in the full replay"; next }
    want_s = start[id] != "" && start[id] + 0 <= t ? start[id] : ""
    want_e = end[id] != "" && end[id] + 0 <= t ? end[id] : ""
    if ($3 != want_s) bad = bad sprintf("\n# job %s: start %s at T, %s in the full replay", id, $3, start[id])
    else if ($4 != want_e) bad = bad sprintf("\n# job %s: end %s at T, %s in the full replay", id, $4, end[id])
    else if ($3 != "" && $18 != nodes[id]) bad = bad sprintf("\n# job %s: nodes %s at T, %s in the full replay", id, $18, nodes[id])
    if (length(bad) > 600) exit 1
}
END { if (bad != "") { print substr(bad, 2); exit 1 } }
EOF

# snapshots NAME CFG TRACE [OPTIONS...]: the full replay, then N snapshots:
# half at random T between the first submission and the last event of the
# full replay, half a second before the start of a random job (where an
# iteration the replay does not run would start it early).
snapshots() {
    name=$1 cfg=$2 trace=$3
    shift 3
    "$MOKU" simulate "$@" --config "$cfg" --jobs-out "$TMP/full.csv" "$trace" >/dev/null 2>"$TMP/err"
    times=$(awk -F, -v n="${COUNT:-$N}" -v seed="$SEED" '
        NR > 1 { if (!seen || $2 + 0 < lo) lo = $2 + 0
                 seen = 1
                 if ($4 + 0 > hi) hi = $4 + 0
                 if ($3 != "" && $3 + 0 > $2 + 0) s[ns++] = $3 - 1 }
        END { srand(seed)
              for (i = 0; i < n; i++)
                  printf "%d ", i % 2 || !ns ? lo + int(rand() * (hi - lo)) : s[int(rand() * ns)] }' \
        "$TMP/full.csv")
    bad=""
    for t in ${FIXED:-} $times; do
        "$MOKU" simulate "$@" --config "$cfg" --until "$t" --jobs-out "$TMP/snap.csv" "$trace" \
            >/dev/null 2>&1
        if ! awk -v t="$t" -f "$TMP/agree.awk" "$TMP/full.csv" "$TMP/snap.csv" >"$TMP/why"; then
            bad="$bad $t"
            sed "s/^/# T=$t: /" "$TMP/why"
        fi
    done
    check "$name: at ${FIXED:+$FIXED and }${COUNT:-$N} random T (seed $SEED) the snapshot is the full replay's state at T${bad:+ (not at:$bad)}" \
        [ -z "$bad" ]
}
# The whole of KTH under the page, also at 816,515 s: job 328 may start at
# 816,514 (its user's MAXPS sum has run down), and the next event is 3,026 s
# later; a snapshot that iterated at T started it there, the replay (before
# issue 26) only at that event.
FIXED=816515 COUNT=3
snapshots "KTH, the throttling page" "$TMP/page.cfg" "$TMP/kth-all.swf"
FIXED="" COUNT=""
snapshots "KTH, first 6,000 jobs, the throttling page" "$TMP/page.cfg" "$TMP/kth.swf"
snapshots "KTH, first 6,000 jobs, XFACTOR (a priority that moves with time)" "$TMP/xfactor.cfg" "$TMP/kth.swf"

# The issue's case: MAXPS=72000, a 2-processor job with 36,000 s left, an
# 8-processor one-hour job, free processors; its events are 0, 14,400 (the
# sum falls under the limit), 18,000, 20,000. At T = 15,000 the job has run
# since 14,400; at T = 10,000 it still waits: no iteration at T starts it.
P=tests/data/property/wake-maxps
run simulate $(cat $P/args) --config $P/case.cfg --until 15000 --jobs-out "$TMP/snap.csv" $P/case.swf
check "MAXPS example, T = 15,000: job 2 has run since 14,400" grep -q '^2,0,14400,,' "$TMP/snap.csv"
run simulate $(cat $P/args) --config $P/case.cfg --until 10000 --show showq $P/case.swf
check "MAXPS example, T = 10,000: job 2 waits, job 1 alone runs" \
    grep -q '^Total Jobs: 2   Active Jobs: 1   Idle Jobs: 0   Blocked Jobs: 1' "$TMP/out"
snapshots "MAXPS example" $P/case.cfg $P/case.swf $(cat $P/args)
done_checks
