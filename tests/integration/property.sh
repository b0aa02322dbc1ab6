#!/bin/sh
# Property tests (issue 13 §2): liveness and validity are properties, not
# examples. Random small cases (tests/tools/propgen.c: clusters, traces,
# configurations, timed commands), each from a fixed seed, must
#   - end: `moku simulate` exits 0 within PROP_TIMEOUT seconds of CPU time;
#   - account for every record: jobs + skipped + rejected + never_started
#     (+ jobs cancelled before they started) = the trace's records, the JSON
#     report agrees with the jobs CSV, and no job is left running;
#   - be valid: `moku validate` finds nothing wrong with the schedule;
#   - under throttling limits, be the schedule of Maui's whole-queue walk:
#     `moku simulate --full-walk` gives the same jobs CSV (issue 16: the
#     incremental eligibility of policy/eset.c changes no decision);
#   - miss no wake-up: with an iteration forced at every multiple of
#     RMPOLLINTERVAL (`moku simulate --iterate-every`), as a daemon polling
#     would add, the jobs CSV is the same (issue 26 §2: what time alone
#     changes must wake the replay itself; a difference is a missing
#     wake-up, saved under tests/data/property/ once found).
# Saved cases replay the same way: every reproduction of issue 13 (the inputs
# of tests/data/sim/liveness/, listed in tests/data/property/issue13.list) and
# every defect found here (tests/data/property/<name>/: case.cfg, case.swf,
# case.cmds, args, and optionally expect, regular expressions the JSON report
# must match). Cases under tests/data/property/known-failing/ are not run.
#
# Environment: PROPGEN (the generator), PROP_N cases from seed PROP_SEED
# (default 300 from 1), PROP_TIMEOUT (10 s), PROP_KEEP (where failing cases
# are kept, default build/property-failures), PROP_SOAK=1 (make soak:
# progress lines, no saved cases), PROP_JOBS (2: how many replay at once).
. tests/integration/lib.sh
PROPGEN=${PROPGEN:-build/tests/propgen}
N=${PROP_N:-300}
FIRST=${PROP_SEED:-1}
LIMIT=${PROP_TIMEOUT:-$((10 * ${TIME_SCALE:-1}))}
# bounded CMD...: the command with LIMIT seconds of CPU time (ulimit -t:
# the kernel kills it past them, exit 137, or 152 on SIGXCPU) and six times
# as many of the clock (timeout: exit 124), so that a replay that loops is caught, and one that only waits
# for a core on a loaded machine (the workers below, the other lanes) is not.
bounded() { (ulimit -t "$LIMIT" && exec timeout "$((LIMIT * 6))" "$@"); }
# hung STATUS: whether it is one of bounded's.
hung() { [ "$1" -eq 124 ] || [ "$1" -eq 137 ] || [ "$1" -eq 152 ]; }
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
etext=""
"$MOKU" simulate --help 2>/dev/null | grep -q -- --iterate-every && etext=", no wake-up missing"
FULLWALK=0
"$MOKU" simulate --help 2>/dev/null | grep -q -- --full-walk && FULLWALK=1
EVERY=0
"$MOKU" simulate --help 2>/dev/null | grep -q -- --iterate-every && EVERY=1
LIMITS_RE='MAX(I)?(JOB|PROC|NODE|PS|PE|WC|MEM)|MAXJOBPER|MAXPROCPER|MAXNODEPER'

# every CFG CSV: the forced iterations' period, a multiple of the case's
# RMPOLLINTERVAL (60 s unless CFG sets it) — which keeps the queue time of
# jobs blocked at a hard limit as the event-driven replay counts it (from
# the last walk or poll instant, docs/priority.md) — large enough for at
# most some 20,000 over the replay's span (first submission to last start or
# end in its jobs CSV: a few random cases wait for years).
every() {
    awk -F, -v cfg="${1:-/dev/null}" 'FILENAME == cfg { if (toupper($1) ~ /^RMPOLLINTERVAL[ \t]/) { split($1, w, /[ \t]+/)
                             n = split(w[2], f, ":"); p = 0
                             for (i = 1; i <= n; i++) p = p * 60 + f[i] }
                         next }
             FNR > 1 && $2 != "" { if (!seen || $2 + 0 < lo) lo = $2 + 0
                                   seen = 1
                                   if ($3 + 0 > hi) hi = $3 + 0; if ($4 + 0 > hi) hi = $4 + 0 }
             END { if (p <= 0) p = 60; if (hi < lo) hi = lo
                   k = int((hi - lo) / (p * 20000)) + 1; print p * k }' \
        "${1:-/dev/null}" "$2"
}

# replay WORK ARGS CFG CMDS TRACE: one case; WORK is a scratch directory, CFG
# and CMDS may be "" (none). Sets stage (0 fine, 1 did not end or exit 0,
# 2 accounting, 3 invalid, 4 under limits not the whole-queue walk's
# schedule, 5 not the schedule with an iteration at every poll instant), why
# (what went wrong, "# " lines) and cmd (the command that failed).
replay() {
    w=$1 a=$2 c=${3:+--config $3} m=${4:+--commands $4 --quiet} t=$5
    r=""
    [ "$VALIDATE" = 1 ] && r="--resv-out $w/resv.csv"
    cmd="$MOKU simulate $a $c $m --format json --jobs-out $w/jobs.csv $r $t"
    bounded $cmd >"$w/out" 2>"$w/err"
    rc=$?
    stage=1
    if hung "$rc"; then
        why="# did not end within $LIMIT s of CPU time (exit $rc)"
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
        bounded $cmd >"$w/vout" 2>&1
        rc=$?
        if [ "$rc" -ne 0 ]; then
            why=$(printf '# exit %s\n' "$rc"; sed -n '1,8s/^/# /p' "$w/vout")
            return
        fi
    fi
    stage=0
    if [ "$EVERY" = 1 ]; then
        forced=$((forced + 1))
        mkdir -p "$w/stats-every"
        m=${4:+--commands $4 --quiet}
        cmd="$MOKU simulate --iterate-every $(every "$3" "$w/jobs.csv") $a $c $m --format json --jobs-out $w/every.csv $t"
        bounded $cmd >"$w/eout" 2>"$w/eerr"
        rc=$?
        # A job that never starts may say why differently: the forced
        # replay goes on a while after the events (its last plan differs).
        for f in jobs every; do
            sed 's/,never_started,.*,,$/,never_started,,,/' "$w/$f.csv" >"$w/$f.cmp"
        done
        if [ "$rc" -ne 0 ] || ! cmp -s "$w/jobs.cmp" "$w/every.cmp"; then
            stage=5
            why=$(printf '# --iterate-every: exit %s, and the jobs CSVs differ (a missing wake-up):\n' "$rc"
                diff "$w/jobs.csv" "$w/every.csv" | sed -n '1,6s/^/# /p')
            return
        fi
    fi
    [ "$FULLWALK" = 1 ] && [ -n "$3" ] && grep -Eq "$LIMITS_RE" "$3" || return 0
    limited=$((limited + 1))
    m=${4:+--commands $4 --quiet}
    cmd="$MOKU simulate --full-walk $a $c $m --format json --jobs-out $w/full.csv $t"
    bounded $cmd >"$w/fout" 2>"$w/ferr"
    rc=$?
    if [ "$rc" -ne 0 ] || ! cmp -s "$w/jobs.csv" "$w/full.csv"; then
        stage=4
        why=$(printf '# --full-walk: exit %s, and the jobs CSVs differ:\n' "$rc"
            diff "$w/jobs.csv" "$w/full.csv" | sed -n '1,6s/^/# /p')
    fi
}

# Keep a failing random case (in WORK) for reproduction; print how to rerun it.
keep() {
    seed=$1 w=$2
    mkdir -p "$KEEP"
    rm -rf "$KEEP/seed-$seed"
    cp -r "$w" "$KEEP/seed-$seed"
    echo "# seed $seed (kept in $KEEP/seed-$seed): $(echo "$cmd" | sed "s|$w|$KEEP/seed-$seed|g")"
    echo "$why"
}

# --- random cases --------------------------------------------------------

# cases K: the random cases of worker K of PROP_JOBS (every PROP_JOBS-th
# seed from FIRST + K), one after another, in $TMP/case$K; its counts on
# its last line, "ended accounted valid woken same limited forced nfail
# seeds..." (soak progress lines go to stderr, at once). The workers run at once: each case is small, most of its time
# the shell's and the processes', and the other core would sit idle.
cases() {
    ended=0 accounted=0 valid=0 same=0 limited=0 forced=0 woken=0 nfail=0 failed=""
    w=$TMP/case$1
    seed=$((FIRST + $1))
    while [ "$seed" -le "$last" ]; do
        rm -rf "$w"
        mkdir "$w"
        if ! "$PROPGEN" "$seed" "$w"; then
            echo "# seed $seed: propgen failed"
            stage=1
        else
            replay "$w" "$(cat "$w/args")" "$w/case.cfg" "$w/case.cmds" "$w/case.swf"
        fi
        [ "$stage" -eq 0 ] || [ "$stage" -gt 1 ] && ended=$((ended + 1))
        [ "$stage" -eq 0 ] || [ "$stage" -gt 2 ] && accounted=$((accounted + 1))
        [ "$stage" -eq 0 ] || [ "$stage" -ge 4 ] && valid=$((valid + 1))
        [ "$stage" -eq 0 ] || [ "$stage" -eq 4 ] && woken=$((woken + 1))
        [ "$stage" -eq 0 ] && same=$((same + 1))
        if [ "$stage" -ne 0 ]; then
            nfail=$((nfail + 1))
            failed="$failed $seed"
            keep "$seed" "$w"
        fi
        if [ "$SOAK" = 1 ] && [ $(((seed - FIRST + 1) % 500)) -eq 0 ]; then
            echo "# soak: about $((seed - FIRST + 1))/$N cases, $(($(date +%s) - start)) s" >&2
        fi
        seed=$((seed + NJOBS))
    done
    echo "$ended $accounted $valid $woken $same $limited $forced $nfail$failed"
}
NJOBS=${PROP_JOBS:-2}
last=$((FIRST + N - 1))
start=$(date +%s)
k=0
while [ "$k" -lt "$NJOBS" ]; do
    cases "$k" >"$TMP/worker$k" &
    k=$((k + 1))
done
wait
ended=0 accounted=0 valid=0 same=0 limited=0 forced=0 woken=0 nfail=0 failed=""
k=0
while [ "$k" -lt "$NJOBS" ]; do
    sed '$d' "$TMP/worker$k"
    # shellcheck disable=SC2046
    set -- $(tail -n 1 "$TMP/worker$k")
    if [ $# -lt 8 ]; then
        echo "# worker $k gave no counts: $*"
        nfail=$((nfail + 1))
    else
        ended=$((ended + $1)) accounted=$((accounted + $2)) valid=$((valid + $3)) woken=$((woken + $4))
        same=$((same + $5)) limited=$((limited + $6)) forced=$((forced + $7)) nfail=$((nfail + $8))
        shift 8
        failed="$failed${*:+ $*}"
    fi
    k=$((k + 1))
done
[ "$nfail" -eq 0 ] || echo "# $nfail failing cases"
what="random cases (seeds $FIRST-$last)"
check "$N $what end: exit 0 within $LIMIT s of CPU time" [ "$ended" -eq "$N" ]
check "... and account for every record (jobs + skipped + rejected + never_started)" \
    [ "$accounted" -eq "$ended" ]
if [ "$VALIDATE" = 1 ]; then
    check "... and their schedules pass moku validate" [ "$valid" -eq "$accounted" ]
fi
if [ "$EVERY" = 1 ]; then
    check "... and an iteration forced at every RMPOLLINTERVAL instant changes none of their schedules (--iterate-every: no wake-up missing)" \
        test "$woken" -eq "$valid" -a "$forced" -gt 0
fi
if [ "$FULLWALK" = 1 ]; then
    check "... and the $limited with throttling limits have the whole-queue walk's schedule (--full-walk)" \
        test "$same" -eq "$woken" -a "$limited" -gt 0
fi
[ -n "$failed" ] && echo "# failing seeds:$failed"
[ "$SOAK" = 1 ] && { done_checks; exit 0; }

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
        ok "saved case $1: ends, accounts for every record$vtext$etext${6:+, as expected}"
    else
        echo "# $cmd"
        echo "$why"
        fail "saved case $1: ends, accounts for every record$vtext$etext${6:+, as expected}"
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

# The known-failing cases are named in the output, so that not running them
# is never silent (each is a defect still open: docs/simulation.md).
for dir in "$D"/known-failing/*/; do
    [ -d "$dir" ] && echo "# known failing, not run: $(basename "$dir") ($dir)"
done

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
done_checks
