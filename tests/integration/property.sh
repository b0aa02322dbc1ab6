#!/bin/sh
# Property tests (issue 13 §2): liveness and validity are properties, not
# examples. Random small cases (tests/tools/propgen.c: clusters, traces,
# configurations, timed commands), each from a fixed seed, must
#   - end: `moku simulate` exits 0 within PROP_TIMEOUT seconds;
#   - account for every record: jobs + skipped + rejected + never_started
#     (+ jobs cancelled before they started) = the trace's records, the JSON
#     report agrees with the jobs CSV, and no job is left running;
#   - be valid: `moku validate` finds nothing wrong with the schedule;
#   - under throttling limits, be the schedule of Maui's whole-queue walk:
#     `moku simulate --full-walk` gives the same jobs CSV (issue 16: the
#     incremental eligibility of policy/eset.c changes no decision).
# Saved cases replay the same way: every reproduction of issue 13 (the inputs
# of tests/data/sim/liveness/, listed in tests/data/property/issue13.list) and
# every defect found here (tests/data/property/<name>/: case.cfg, case.swf,
# case.cmds, args, and optionally expect, regular expressions the JSON report
# must match). Cases under tests/data/property/known-failing/ are not run.
#
# Environment: PROPGEN (the generator), PROP_N cases from seed PROP_SEED
# (default 300 from 1), PROP_TIMEOUT (10 s), PROP_KEEP (where failing cases
# are kept, default build/property-failures), PROP_SOAK=1 (make soak:
# progress lines, no saved cases).
. tests/integration/lib.sh
PROPGEN=${PROPGEN:-build/tests/propgen}
N=${PROP_N:-300}
FIRST=${PROP_SEED:-1}
LIMIT=${PROP_TIMEOUT:-$((10 * ${TIME_SCALE:-1}))}
KEEP=${PROP_KEEP:-build/property-failures}
SOAK=${PROP_SOAK:-0}
D=tests/data/property

# The accounting check: records of the trace, the JSON report and the jobs
# CSV must agree. Prints what disagrees and exits 1.
cat >"$TMP/account.awk" <<'EOF'
function csvsplit(s, f,    n, i, c, q, cur) {
    if (index(s, "\"") == 0)
        return split(s, f, ",")
    n = 0; cur = ""; q = 0
    for (i = 1; i <= length(s); i++) {
        c = substr(s, i, 1)
        if (q) {
            if (c != "\"") cur = cur c
            else if (substr(s, i + 1, 1) == "\"") { cur = cur c; i++ }
            else q = 0
        } else if (c == "\"") q = 1
        else if (c == ",") { f[++n] = cur; cur = "" }
        else cur = cur c
    }
    f[++n] = cur
    return n
}
function key(s, k,    m) {
    if (match(s, "\"" k "\":[0-9]+") == 0) { bad = bad "\n# the report has no " k; return -1 }
    return substr(s, RSTART + length(k) + 3, RLENGTH - length(k) - 3) + 0
}
FILENAME == trace {
    if ($0 ~ /^[ \t]*(;|#|$)/ || $1 == "VERSION") next
    records++
    next
}
FILENAME == json { js = js $0; next }
FILENAME == csv {
    if (FNR == 1) next
    row = pending == "" ? $0 : pending "\n" $0
    if (gsub(/"/, "\"", row) % 2) { pending = row; next } # a quoted line break
    pending = ""
    csvsplit(row, f)
    rows++
    st[f[16]]++
    if (f[16] == "cancelled" && f[3] == "") cidle++
    if (f[16] == "cancelled" && f[4] != "") cend++
    # A requeued job waiting at the end is "preempted" in the CSV and still
    # waiting (never_started) in the report; a suspended or running one is
    # a job the replay left unfinished.
    if (f[16] == "preempted" && f[3] == "") requeued++
    else if (f[16] == "running" || f[16] == "preempted") left = left " " f[1] "(" f[16] ")"
    next
}
END {
    jobs = key(js, "jobs"); skipped = key(js, "skipped"); rejected = key(js, "rejected")
    never = key(js, "never_started")
    if (left != "") bad = bad "\n# jobs not ended when the replay ended:" left
    if (rows + skipped != records)
        bad = bad sprintf("\n# %d CSV rows + %d skipped != %d records", rows, skipped, records)
    if (jobs != st["completed"] + st["killed"] + cend)
        bad = bad sprintf("\n# jobs %d != %d completed + %d killed + %d cancelled running", jobs,
                          st["completed"], st["killed"], cend)
    if (never != st["never_started"] + requeued)
        bad = bad sprintf("\n# never_started %d != %d CSV rows never_started + %d preempted and waiting",
                          never, st["never_started"], requeued)
    if (rejected != st["rejected"])
        bad = bad sprintf("\n# rejected %d != %d CSV rows rejected", rejected, st["rejected"])
    if (jobs + skipped + rejected + never + cidle != records)
        bad = bad sprintf("\n# jobs %d + skipped %d + rejected %d + never_started %d + cancelled idle %d != %d records",
                          jobs, skipped, rejected, never, cidle, records)
    if (bad != "") { print substr(bad, 2); exit 1 }
}
EOF

# Whether this moku validates (moku validate, simulate --resv-out), and
# whether it walks eligibility incrementally (simulate --full-walk).
if "$MOKU" validate --help >/dev/null 2>&1; then VALIDATE=1 vtext=", valid"; else VALIDATE=0 vtext=""; fi
FULLWALK=0
"$MOKU" simulate --help 2>/dev/null | grep -q -- --full-walk && FULLWALK=1
LIMITS_RE='MAX(I)?(JOB|PROC|NODE|PS|PE|WC|MEM)|MAXJOBPER|MAXPROCPER|MAXNODEPER'

# replay WORK ARGS CFG CMDS TRACE: one case; WORK is a scratch directory, CFG
# and CMDS may be "" (none). Sets stage (0 fine, 1 did not end or exit 0,
# 2 accounting, 3 invalid, 4 under limits not the whole-queue walk's
# schedule), why (what went wrong, "# " lines) and cmd (the command that
# failed).
replay() {
    w=$1 a=$2 c=${3:+--config $3} m=${4:+--commands $4 --quiet} t=$5
    r=""
    [ "$VALIDATE" = 1 ] && r="--resv-out $w/resv.csv"
    cmd="$MOKU simulate $a $c $m --format json --jobs-out $w/jobs.csv $r $t"
    timeout "$LIMIT" $cmd >"$w/out" 2>"$w/err"
    rc=$?
    stage=1
    if [ "$rc" -eq 124 ]; then
        why="# did not end within $LIMIT s"
        return
    elif [ "$rc" -ne 0 ]; then
        why=$(printf '# exit %s\n' "$rc"; sed -n '1,5s/^/# /p' "$w/err")
        return
    fi
    stage=2
    why=$(awk -v trace="$t" -v json="$w/out" -v csv="$w/jobs.csv" -f "$TMP/account.awk" \
        "$t" "$w/out" "$w/jobs.csv") || return
    stage=3
    if [ "$VALIDATE" = 1 ]; then
        m=${4:+--commands $4}
        cmd="$MOKU validate $a $c $m --reservations $w/resv.csv $t $w/jobs.csv"
        timeout "$LIMIT" $cmd >"$w/vout" 2>&1
        rc=$?
        if [ "$rc" -ne 0 ]; then
            why=$(printf '# exit %s\n' "$rc"; sed -n '1,8s/^/# /p' "$w/vout")
            return
        fi
    fi
    stage=0
    [ "$FULLWALK" = 1 ] && [ -n "$3" ] && grep -Eq "$LIMITS_RE" "$3" || return 0
    limited=$((limited + 1))
    m=${4:+--commands $4 --quiet}
    cmd="$MOKU simulate --full-walk $a $c $m --format json --jobs-out $w/full.csv $t"
    timeout "$LIMIT" $cmd >"$w/fout" 2>"$w/ferr"
    rc=$?
    if [ "$rc" -ne 0 ] || ! cmp -s "$w/jobs.csv" "$w/full.csv"; then
        stage=4
        why=$(printf '# --full-walk: exit %s, and the jobs CSVs differ:\n' "$rc"
            diff "$w/jobs.csv" "$w/full.csv" | sed -n '1,6s/^/# /p')
    fi
}

# Keep a failing random case for reproduction; print how to rerun it.
keep() {
    seed=$1
    mkdir -p "$KEEP"
    rm -rf "$KEEP/seed-$seed"
    cp -r "$TMP/case" "$KEEP/seed-$seed"
    echo "# seed $seed (kept in $KEEP/seed-$seed): $(echo "$cmd" | sed "s|$TMP/case|$KEEP/seed-$seed|g")"
    echo "$why"
}

# --- random cases --------------------------------------------------------

ended=0 accounted=0 valid=0 same=0 limited=0 nfail=0 failed=""
last=$((FIRST + N - 1))
seed=$FIRST
start=$(date +%s)
while [ "$seed" -le "$last" ]; do
    rm -rf "$TMP/case"
    mkdir "$TMP/case"
    if ! "$PROPGEN" "$seed" "$TMP/case"; then
        echo "# seed $seed: propgen failed"
        stage=1
    else
        replay "$TMP/case" "$(cat "$TMP/case/args")" "$TMP/case/case.cfg" "$TMP/case/case.cmds" \
            "$TMP/case/case.swf"
    fi
    [ "$stage" -eq 0 ] || [ "$stage" -gt 1 ] && ended=$((ended + 1))
    [ "$stage" -eq 0 ] || [ "$stage" -gt 2 ] && accounted=$((accounted + 1))
    [ "$stage" -eq 0 ] || [ "$stage" -eq 4 ] && valid=$((valid + 1))
    [ "$stage" -eq 0 ] && same=$((same + 1))
    if [ "$stage" -ne 0 ]; then
        nfail=$((nfail + 1))
        failed="$failed $seed"
        keep "$seed"
    fi
    if [ "$SOAK" = 1 ] && [ $(((seed - FIRST + 1) % 500)) -eq 0 ]; then
        echo "# soak: $((seed - FIRST + 1))/$N cases, $nfail failing, $(($(date +%s) - start)) s"
    fi
    seed=$((seed + 1))
done
what="random cases (seeds $FIRST-$last)"
check "$N $what end: exit 0 within $LIMIT s" [ "$ended" -eq "$N" ]
check "... and account for every record (jobs + skipped + rejected + never_started)" \
    [ "$accounted" -eq "$ended" ]
if [ "$VALIDATE" = 1 ]; then
    check "... and their schedules pass moku validate" [ "$valid" -eq "$accounted" ]
fi
if [ "$FULLWALK" = 1 ]; then
    check "... and the $limited with throttling limits have the whole-queue walk's schedule (--full-walk)" \
        test "$same" -eq "$valid" -a "$limited" -gt 0
fi
[ -n "$failed" ] && echo "# failing seeds:$failed"
[ "$SOAK" = 1 ] && exit 0

# --- saved cases ---------------------------------------------------------

# saved NAME ARGS CFG CMDS TRACE [EXPECT]: EXPECT holds extended regular
# expressions, one a line, that the JSON report must match, or with a
# leading "csv:" the jobs CSV (what the fix of a defect changed: a count, few
# iterations, a job's row).
saved() {
    rm -rf "$TMP/saved"
    mkdir "$TMP/saved"
    replay "$TMP/saved" "$2" "$3" "$4" "$5"
    if [ "$stage" -eq 0 ] && [ -n "${6:-}" ]; then
        while IFS= read -r re; do
            f=$TMP/saved/out
            case $re in csv:*) f=$TMP/saved/jobs.csv re=${re#csv:} ;; esac
            [ -z "$re" ] || grep -Eq -- "$re" "$f" && continue
            stage=4
            why=$(printf '# %s does not match %s:\n' "${f##*/}" "$re"; sed 's/^/# /' "$f")
            break
        done <"$6"
    fi
    if [ "$stage" -eq 0 ]; then
        ok "saved case $1: ends, accounts for every record$vtext${6:+, as expected}"
    else
        echo "# $cmd"
        echo "$why"
        fail "saved case $1: ends, accounts for every record$vtext${6:+, as expected}"
    fi
}

# Issue 13's reproductions, from tests/data/sim/liveness/ (- = none).
L=tests/data/sim/liveness
while IFS='|' read -r name args cfg cmds trace; do
    case $name in '#'* | '') continue ;; esac
    [ "$args" = - ] && args=""
    [ "$cfg" = - ] && cfg="" || cfg=$L/$cfg
    [ "$cmds" = - ] && cmds="" || cmds=$L/$cmds
    saved "$name" "$args" "$cfg" "$cmds" "$L/$trace"
done <"$D/issue13.list"

for dir in "$D"/*/; do
    dir=${dir%/}
    [ -d "$dir" ] && [ "$(basename "$dir")" != known-failing ] || continue
    cfg="" cmds=""
    [ -f "$dir/case.cfg" ] && cfg=$dir/case.cfg
    [ -f "$dir/case.cmds" ] && cmds=$dir/case.cmds
    expect=""
    [ -f "$dir/expect" ] && expect=$dir/expect
    saved "$(basename "$dir")" "$(cat "$dir/args" 2>/dev/null)" "$cfg" "$cmds" "$dir/case.swf" "$expect"
done
