#!/bin/sh
# Runs every unit-test program given as arguments, then every integration
# test (tests/integration/*.sh; SCRIPTS="a.sh b.sh" picks some), and prints
# what failed, what was skipped and why, the ten slowest tests, and one
# closing line: "N passed, M failed, K skipped" (docs/testing.md).
#
# Each test runs
#   - under a time limit (limit_of, times TIME_SCALE): past it the test has
#     hung; it fails, named, its process group is killed, the run goes on;
#   - in a directory of its own (TMPDIR) and with MOKU_TEST_RUN naming it in
#     its environment, so that whatever it leaves running is found after it
#     (tests/tools/strays.sh: by command line, working directory or
#     environment, and their descendants): a failure, named, and killed;
#   - watched for the users it leaves (/etc/passwd before and after) and the
#     files it writes into the checkout: failures, named.
# The run ends by checking that no process and no user of its tests is left.
# Counting: a program prints "<name>: N passed, M failed" and "# SKIP why"
# for a part it skipped; a script one "ok"/"not ok" line per check and
# "ok N # SKIP why" for a check it skipped, and "# done_checks" at its end
# (a script without it stopped early: a failure). A skip is counted apart, with
# its reason; run as root — where README's set-up (scripts/deps.sh) runs —
# it is a failure unless ALLOW_SKIP names the test (ALLOW_SKIP="slurm web").
passed=0
failed=0
skipped=0
ntest=0
here=$(pwd)
STRAYS=$here/tests/tools/strays.sh
SCALE=${TIME_SCALE:-1}
RUN=$(mktemp -d "${TMPDIR:-/tmp}/moku-run.XXXXXX")
# Tests run jobs as other users: their directories must be reachable.
chmod 755 "$RUN"
log=$RUN/.log
# What failed and what was skipped, repeated above the closing line: CI
# shows only the output's tail.
recap=$RUN/.recap
skips=$RUN/.skips
times=$RUN/.times
: >"$recap"
: >"$skips"
: >"$times"
trap 'sh "$STRAYS" -k "$RUN" "MOKU_TEST_RUN=$RUN/" >/dev/null; rm -rf "$RUN"' EXIT
trap 'exit 130' HUP INT TERM
root=""
[ "$(id -u)" = 0 ] && root=1
# users: the names in /etc/passwd, sorted.
users() { cut -d: -f1 /etc/passwd | sort; }
users >"$RUN/.users00"

# limit_of TEST: its time limit in seconds before TIME_SCALE (TEST_LIMIT
# sets one for all); about three times what it takes on the 2-core machine
# under load (the slowest, listed at the end, keep these honest).
limit_of() {
    case ${1##*/} in
    property.sh | slurm.sh | slurm_shape.sh | reference.sh | web.sh) echo 400 ;;
    eset.sh | slowlim.sh | liveness.sh | daemon.sh | daemon_truth.sh | daemon_resv.sh) echo 240 ;;
    t_*) echo 120 ;;
    *) echo 180 ;;
    esac
}

# note FAILURE: one failure, said now and in the recap.
note() {
    echo "not ok - $1"
    echo "$1" >>"$recap"
    failed=$((failed + 1))
}
# skips_of NAME FILE: the skip lines of a test's output ("why" each), each
# counted apart, or as a failure when run as root and not allowed.
skips_of() {
    short=${1##*/}
    short=${short%.sh}
    sed -n 's/^ok [0-9]* # SKIP //p; s/^# SKIP //p' "$2" >"$RUN/.why$LANE"
    while IFS= read -r why; do
        case " $ALLOW_SKIP " in *" $short "*) allowed=1 ;; *) allowed="" ;; esac
        if [ -n "$root" ] && [ -z "$allowed" ]; then
            note "$1: skipped as root, where README's set-up runs: $why (ALLOW_SKIP=$short allows it)"
        else
            echo "$1: $why" >>"$skips"
            skipped=$((skipped + 1))
        fi
    done <"$RUN/.why$LANE"
}
# run_test NAME COMMAND...: runs one test, bounded and watched; its output
# in $log, its exit status in $rc; what it left behind is a failure.
run_test() {
    name=$1
    shift
    # Numbered, not named: paths under it stay short (a socket's path has
    # 108 bytes; reports cut long paths).
    ntest=$((ntest + 1))
    dir=$RUN/$LANE$ntest
    mkdir -p "$dir"
    chmod 755 "$dir"
    limit=$((${TEST_LIMIT:-$(limit_of "$name")} * SCALE))
    users >"$RUN/.users0$LANE"
    # Backdated: a file's time is the kernel's coarse clock, and a test
    # that writes at once could otherwise share the stamp's tick and not be
    # newer (a file found twice is named once, below).
    touch -d "@$(($(date +%s) - 2))" "$RUN/.stamp$LANE"
    echo "$name" >"$RUN/.now$LANE"
    t0=$(date +%s%N)
    # timeout puts the test in a process group of its own and kills the
    # group: TERM at the limit, KILL 10 s later.
    MOKU_TEST_RUN=$dir/ TMPDIR=$dir timeout -k 10 "$limit" "$@" <"/dev/null" >"$log" 2>&1
    rc=$?
    t1=$(date +%s%N)
    secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", (b - a) / 1e9 }')
    echo "$secs $name" >>"$times"
    cat "$log"
    echo "# $name: $secs s"
    # Ended by timeout (124, or 137 after SIGKILL): at the limit, not before
    # (a script may end on a status of 124 of its own).
    if [ "$rc" -ne 0 ] && [ $(((t1 - t0) / 1000000000)) -ge "$limit" ]; then
        note "$name: timed out after $limit s (a hang: its process group was killed)"
        hung=1
    else
        hung=""
    fi
    # Whatever it started and left running (a daemon, a job, a slurmd).
    if left=$(sh "$STRAYS" -k "$dir" "MOKU_TEST_RUN=$dir/"); then :; else
        [ -n "$hung" ] || note "$name: left processes running (killed now): $(echo "$left" | head -n 5 | tr '\n' ';')"
    fi
    users >"$RUN/.users1$LANE"
    # Not removed here: on a shared machine the user may be another run's
    # (docs/testing.md). Lane b's tests make none, and are not asked. A
    # user is put on the test that said it made it (made_user in lib.sh:
    # $dir.made); one no test said it made, on a test whose script names
    # it (a bare useradd). Lanes a and s run at once: a user another
    # lane's test made meanwhile is that test's, even when this script
    # names it too (deb.sh's user moku).
    if [ "$LANE" != b ]; then
        for u in $(comm -13 "$RUN/.users0$LANE" "$RUN/.users1$LANE"); do
            if grep -qxF -- "$u" "$dir.made" 2>/dev/null; then
                note "$name: left user $u behind"
            elif ! cat "$RUN"/*.made 2>/dev/null | grep -qxF -- "$u" &&
                grep -qw -- "$u" "$name" 2>/dev/null; then
                note "$name: left user $u behind"
            fi
        done
    fi
    rm -f "$RUN/.now$LANE"
    # Files written into the checkout (tests write into their TMPDIR). With
    # lanes at once, the file may be another lane's test's, running
    # meanwhile: it is named too; the failure is counted once.
    for f in $(find . \( -path ./build -o -path ./bin -o -path ./.git \) -prune -o \
        -type f -newer "$RUN/.stamp$LANE" -print); do
        git ls-files --error-unmatch "$f" >/dev/null 2>&1 && continue
        grep -qxF -- "$f" "$RUN/.written" 2>/dev/null && continue
        echo "$f" >>"$RUN/.written"
        others=$(cat "$RUN"/.now? 2>/dev/null | tr '\n' ' ')
        note "$name: wrote $f into the checkout (it belongs in its temporary directory)${others:+; or ${others% }, running at the same time}"
    done
    rm -rf "$dir"
}

for t in "$@"; do
    run_test "$t" "$t"
    skips_of "$t" "$log"
    line=$(grep -E '^[^ ]+: [0-9]+ passed, [0-9]+ failed$' "$log" | tail -n 1)
    grep -E 'check failed' "$log" | sed "s|^|$t: |" >>"$recap"
    if [ -z "$line" ]; then
        [ -n "$hung" ] || note "$t: crashed or printed no summary (exit $rc)"
        continue
    fi
    p=$(echo "$line" | sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed/\1/')
    f=$(echo "$line" | sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed/\2/')
    passed=$((passed + p))
    failed=$((failed + f))
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && [ -z "$hung" ]; then
        note "$t: exited $rc"
    fi
done
# Replays go through tests/tools/vsim, which validates each (moku validate);
# scripts that run the daemon get the binary itself (they copy it for other
# users, and a wrapper would not do).
VSIM_LOG=$RUN/.vsim
export VSIM_LOG MOKU_REAL="$MOKU"
vsim=$here/tests/tools/vsim
# runs_daemon SCRIPT: whether it, or a lib_*.sh it sources, starts the daemon.
runs_daemon() {
    grep -q 'serve --home\|MOKU" serve' "$1" && return 0
    for l in $(sed -n 's|^\. tests/integration/\(lib_[a-z_]*\.sh\)$|\1|p' "$1"); do
        grep -q 'serve --home\|MOKU" serve' "$here/tests/integration/$l" && return 0
    done
    return 1
}
# run_script SCRIPT: one integration script, counted.
run_script() {
    s=$1
    if runs_daemon "$s"; then
        run_test "$s" sh "$s"
    else
        run_test "$s" env MOKU="$vsim" sh "$s"
    fi
    skips_of "$s" "$log"
    # The shell stopping the script (an error of its own: "SCRIPT: LINE:
    # Illegal number", a syntax error) is a failure, whatever it printed
    # before: the checks after that line never ran (att31q).
    if grep -q "^$s: [0-9]*: " "$log"; then
        echo "not ok - the shell stopped $s: $(grep -m 1 "^$s: [0-9]*: " "$log")" >>"$log"
        echo "not ok - the shell stopped $s: $(grep -m 1 "^$s: [0-9]*: " "$log")"
    fi
    # A script that did not reach its end (no "# done_checks" from lib.sh's
    # done_checks, its last line): an exit in the wrong place, status 0 and
    # every check printed passed, but those after it never ran.
    if ! grep -q '^# done_checks' "$log" && [ -z "$hung" ]; then
        echo "not ok - $s did not reach its end (no done_checks: an exit before it)" >>"$log"
        echo "not ok - $s did not reach its end (no done_checks: an exit before it)"
    fi
    grep '^not ok ' "$log" | sed "s|^|$s: |" >>"$recap"
    p=$(grep '^ok ' "$log" | grep -vc '^ok [0-9]* # SKIP')
    f=$(grep -c '^not ok ' "$log")
    passed=$((passed + p))
    failed=$((failed + f))
    [ "$p" -gt 0 ] || [ "$f" -gt 0 ] || [ -n "$hung" ] || grep -q '^ok [0-9]* # SKIP' "$log" ||
        note "$s: printed no check (exit $rc)"
}
# Four lanes at once, so that the two cores are used: lane b takes the
# scripts that only replay (no daemon, no user, no Slurm: CPU-bound, and
# timing-free), lanes s and t the Slurm scripts (mostly waiting on Slurm,
# so two at a time: each its own private cluster and users of its own
# names), lane a the rest, one at a time (they make users and run daemons:
# docs/testing.md). LANES=1: one.
lane_a=""
lane_b=""
lane_s=""
for s in ${SCRIPTS:-tests/integration/*.sh}; do
    case $s in */*) ;; *) s=tests/integration/$s ;; esac
    [ -f "$s" ] || continue
    case $s in */lib.sh | */lib_*.sh) continue ;; esac
    if [ "${LANES:-3}" = 1 ]; then
        lane_a="$lane_a $s"
    elif ! grep -q 'serve\|add_user\|useradd\|slurm\|web\|run\.sh' "$s"; then
        lane_b="$lane_b $s"
    else
        case ${s##*/} in
        slurm*.sh) lane_s="$lane_s $s" ;;
        *) lane_a="$lane_a $s" ;;
        esac
    fi
done
# claim SCRIPT: whether this lane is the one to run a script (mkdir is
# atomic): lane b runs its list in order, and lane a, once its own list is
# done, takes what is left of it from the end; lanes s and t take the Slurm
# scripts from one list, each the next one unclaimed.
claim() { mkdir "$RUN/.claim_$(echo "$1" | tr / _)" 2>/dev/null; }
# The Slurm scripts, longest first (slurm_shape.sh, then slurm_array.sh and
# slurm.sh: reverse order of their names), so that the two lanes end close
# together.
lane_s=$(echo $lane_s | tr ' ' '\n' | sort -r | tr '\n' ' ')
# lane NAME SCRIPTS...: in the background, its output and counts in $RUN.
lane() {
    (
        LANE=$1 log=$RUN/.log$1 passed=0 failed=0 skipped=0 ntest=0
        l=$1
        shift
        for s in "$@"; do
            [ "$l" = a ] || claim "$s" || continue
            run_script "$s"
        done
        echo "$passed $failed $skipped" >"$RUN/.count$LANE"
    ) >"$RUN/.out$1" 2>&1 &
}
# Lane b's longest scripts first (the slowest of a full run, listed at its
# end, say which), the rest after them in order: lane a, once its own list
# is done, takes the short ones from the end, and the two lanes end close
# together rather than on one long replay.
long_b=""
short_b=""
for s in $lane_b; do
    case ${s##*/} in
    property.sh | eset.sh | slowlim.sh | reference.sh) long_b="$long_b $s" ;;
    *) short_b="$short_b $s" ;;
    esac
done
lane_b="$long_b$short_b"
lane b $lane_b
laneb=$!
lane s $lane_s
lanes=$!
lane t $lane_s
lanet=$!
LANE=a
for s in $lane_a; do run_script "$s"; done
for s in $(echo $lane_b | tr ' ' '\n' | tac); do
    claim "$s" && run_script "$s"
done
wait $laneb
wait $lanes
wait $lanet
for l in s t b; do
    cat "$RUN/.out$l"
    read -r p f k <"$RUN/.count$l" || { p=0 f=1 k=0; echo "$RUN/.count$l: lane $l gave no count" >>"$recap"; }
    passed=$((passed + p))
    failed=$((failed + f))
    skipped=$((skipped + k))
done
# Every replay an integration test made, validated.
bad=$(grep -c '^moku simulate' "$VSIM_LOG" 2>/dev/null)
nval=$(grep -c . "$VSIM_LOG.skipped" 2>/dev/null)
if [ "${bad:-0}" -gt 0 ]; then
    note "$bad integration replays failed moku validate:"
    cat "$VSIM_LOG"
    failed=$((failed + bad - 1))
elif [ "${nval:-0}" -gt 0 ]; then
    note "$nval integration replays could not be validated:"
    cat "$VSIM_LOG.skipped"
else
    echo "ok - every integration replay passed moku validate"
    passed=$((passed + 1))
fi
# Nothing the run started may outlive it: no user its tests made (each
# test's were counted after it), no process.
users >"$RUN/.users1"
left=$(comm -13 "$RUN/.users00" "$RUN/.users1" | tr '\n' ' ')
if [ -z "$left" ]; then
    echo "ok - no user of the run's tests is left"
    passed=$((passed + 1))
else
    note "users of the run's tests were left: $left"
fi
if left=$(sh "$STRAYS" -k "$RUN" "MOKU_TEST_RUN=$RUN/"); then
    echo "ok - no process of the run's tests is left"
    passed=$((passed + 1))
else
    note "processes of the run's tests were left (killed now): $(echo "$left" | head -n 5 | tr '\n' ';')"
fi
if [ -s "$recap" ]; then
    echo "failures:"
    sed 's/^/  /' "$recap"
fi
if [ -s "$skips" ]; then
    echo "skipped:"
    sed 's/^/  /' "$skips"
fi
echo "slowest tests (seconds):"
sort -rn "$times" | head -n 10 | awk '{ printf "  %6.1f  %s\n", $1, $2 }'
awk '{ s += $1 } END { printf "  %6.1f  in all, %d tests\n", s, NR }' "$times"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
