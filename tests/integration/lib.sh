# Helpers for the integration tests (sourced; POSIX sh). Each check prints
# "ok N - what" or "not ok N - what"; a check that cannot be made here
# prints "ok N # SKIP why" (skip). tests/run.sh counts them, bounds the
# script's time and looks for what it left behind (docs/testing.md).
n=0
MOKU=${MOKU:-bin/moku}
# Bounds on waiting are multiplied by TIME_SCALE (make asan: 6): a bound
# only says when a wait has become a hang, it is not a speed test.
TIME_SCALE=${TIME_SCALE:-1}
# Run from the checkout's root; scripts cd elsewhere later.
STRAYS=$(pwd)/tests/tools/strays.sh
TMP=$(mktemp -d)
USERS_MADE=""
trap lib_cleanup EXIT
# Ended from outside (tests/run.sh's time limit): clean up all the same.
trap 'exit 143' HUP INT TERM

ok() { n=$((n + 1)); echo "ok $n - $1"; }
fail() { n=$((n + 1)); echo "not ok $n - $1"; }
# skip WHY: a check that cannot be made on this machine, said so. Run as
# root, tests/run.sh counts it as a failure unless ALLOW_SKIP names the test.
skip() { n=$((n + 1)); echo "ok $n # SKIP $1"; }
# done_checks: the script's last line, and the line before an exit where a
# script ends early on purpose (nothing more can be checked here): it ran
# to its end. tests/run.sh fails a script that does not print it: an exit
# in the wrong place ends a script with status 0 and every check it printed
# passed, but the checks after that exit never ran.
done_checks() { echo "# done_checks: $n checks"; }
# check DESCRIPTION COMMAND...: passes when the command succeeds.
check() {
    d=$1
    shift
    if "$@"; then ok "$d"; else fail "$d"; fi
}
# Run moku, keeping stdout, stderr and the exit status.
run() {
    "$MOKU" "$@" >"$TMP/out" 2>"$TMP/err"
    rc=$?
}
has_out() { grep -q -- "$1" "$TMP/out"; }
has_err() { grep -q -- "$1" "$TMP/err"; }
# same_starts OURS.csv REF.csv: every reference job starts at the same time
# in ours (column 3 of both). Prints the count when they differ.
same_starts() {
    awk -F, 'NR == FNR { if (FNR > 1) { ref[$1] = $3; nref++ } next }
             FNR > 1 { n++; if (($1 in ref) && ref[$1] == $3) same++ }
             END { if (same != nref || n != nref) { print same + 0 " of " nref " match" > "/dev/stderr"; exit 1 } }' "$2" "$1"
}

# wait_for SECONDS COMMAND...: the command again every 0.1 s until it
# succeeds (status 0); status 1 once SECONDS (times TIME_SCALE) have passed
# without. What tests wait for is a condition, never a guessed time.
wait_for() {
    _wf_end=$(($(date +%s) + $1 * TIME_SCALE + 1))
    shift
    while ! "$@"; do
        [ "$(date +%s)" -lt "$_wf_end" ] || return 1
        sleep 0.1
    done
}
# iterations LOG: the scheduling iterations a daemon logged (LOGLEVEL 3
# logs each: "iteration N: ...").
iterations() { grep -c ' 3 iteration [0-9]*:' "$1" 2>/dev/null; }
# iterated LOG K: wait (bounded) until the daemon has logged K iterations
# more than now. "It did not happen" is checked once the scheduler has had
# its turns: K = 2 holds one whole iteration after a request just answered
# (the daemon does one thing at a time; the first may have begun before).
iterated() {
    _it_want=$(($(iterations "$1") + $2))
    _it_log=$1
    wait_for 30 _iterated_enough || fail "no $2 more iterations logged in $1 within 30 s"
}
_iterated_enough() { [ "$(iterations "$_it_log")" -ge "$_it_want" ]; }

# add_user NAME: a user for the test (useradd, no home), removed at the
# end by lib_cleanup even when the test fails half-way; one left by an earlier
# run is taken over and removed too.
add_user() {
    made_user "$1"
    id "$1" >/dev/null 2>&1 || useradd -M -s /bin/sh "$1" 2>/dev/null
}
# made_user NAME: a user this test makes (add_user, or a package's
# maintainer script), said before it is made: removed by lib_cleanup, and
# named in tests/run.sh's list of the run's users (MOKU_TEST_RUN's .made
# file beside the test's directory), so that a user made by a test of
# another lane running meanwhile is not put on this one.
made_user() {
    USERS_MADE="$USERS_MADE $1"
    [ -z "$MOKU_TEST_RUN" ] || echo "$1" >>"${MOKU_TEST_RUN%/}.made"
}
# lib_cleanup: what the test started and made, ended and removed, whatever
# happened: every process under $TMP (daemons, jobs' supervisors and their
# jobs, which outlive a daemon by design; tests/tools/strays.sh), then the
# users (userdel refuses a user with processes), then $TMP. Scripts with a
# trap or a cleanup of their own end it with lib_cleanup.
lib_cleanup() {
    sh "$STRAYS" -k "$TMP" >/dev/null
    for _u in $USERS_MADE; do
        # Killed processes may take a moment to be reaped.
        wait_for 5 _userdel "$_u"
    done
    USERS_MADE=""
    [ -n "$KEEP_TMP" ] || rm -rf "$TMP"
}
_userdel() { ! id "$1" >/dev/null 2>&1 || userdel "$1" 2>/dev/null; }

# daemon_home: the set-up of a test that runs `moku serve` as root for jobs
# of other users: MOKU made absolute (the jobs run in other directories), a
# home H and a work directory W those users can read, MOKU_HOME exported.
# stop_daemon ends the daemon whose pid is in $pid (a no-op without one).
daemon_home() {
    MOKU=$(cd "$(dirname "$MOKU")" && pwd)/$(basename "$MOKU")
    H=$TMP/home
    W=$TMP/work
    mkdir -p "$H" "$W"
    chmod 755 "$TMP" "$H" "$W"
    export MOKU_HOME="$H"
    pid=""
}
stop_daemon() {
    [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
    pid=""
}
# state JOB: the job's State: line in moku's checkjob ("" when unknown);
# wait_state JOB STATE [SECONDS]: until it is STATE (10 s by default).
# lib_slurm.sh defines its own (Slurm's state), after this.
state() { timeout 5 "$MOKU" checkjob "$1" 2>/dev/null | sed -n 's/^State: //p'; }
wait_state() {
    i=0
    while [ $i -lt $((${3:-10} * 10)) ]; do
        [ "$(state "$1")" = "$2" ] && return 0
        sleep 0.1
        i=$((i + 1))
    done
    echo "job $1 is $(state "$1"), not $2" >&2
    return 1
}

# fs_state: the calling user's fairshare usage in the current window
# (processor-seconds) and the time the daemon counted it up to, as
# "AS_OF USAGE" (diagnose -f --format=json): two readings compare by their
# as_of times, not by the test's clock, which a loaded machine stretches.
fs_state() {
    timeout 5 "$MOKU" diagnose -f --format=json | tr -d ' \n' | sed -n \
        's/.*"as_of":\([0-9]*\).*"name":"'"$(id -un)"'","target":[^,]*,"mode":"[a-z]*","usage":[^,]*,"windows":\[\([0-9.e+]*\).*/\1 \2/p'
}
