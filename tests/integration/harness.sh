#!/bin/sh
# tests/run.sh itself (issue 29), on the small tests of tests/data/harness
# in a run of its own: a hung test fails, named, its processes are killed
# and the run goes on; a process, a user or a file a test leaves behind is
# a failure, named (processes are killed); a script that stops before its
# end (no done_checks) is a failure, named; a skip is counted apart with its reason,
# and as root (where README's set-up runs) is a failure unless ALLOW_SKIP
# names the test; the closing line counts the three; the slowest are listed.
. tests/integration/lib.sh

F=tests/data/harness
trap lib_cleanup EXIT
root=""
[ "$(id -u)" = 0 ] && root=1
scripts="$F/hang.sh $F/fine.sh $F/leaves.sh $F/skips.sh $F/writes.sh $F/early.sh"
if [ -n "$root" ]; then
    scripts="$scripts $F/user.sh $F/made.sh"
    # user.sh's and made.sh's, removed by lib_cleanup
    for u in mokuharness mokuharnessb mokuharnessc; do made_user "$u"; done
fi
# The inner run works in a checkout of its own, $TMP/co (run.sh, its tools
# and the harness's tests, in git's index): writes.sh's file lands there,
# not in the checkout the outer run watches while other tests run.
CO=$TMP/co
mkdir -p "$CO/tests/tools" "$CO/$F"
cp tests/run.sh "$CO/tests/" && cp tests/tools/strays.sh tests/tools/vsim "$CO/tests/tools/" &&
    cp "$F"/*.sh "$CO/$F/" && (cd "$CO" && git init -q && git add -A) ||
    { echo "not ok - the harness's checkout could not be made in $CO"; exit 1; }
# inner ARGS...: tests/run.sh on the harness's tests, in one lane (a file
# written is then named against the one test running), its directories
# under $TMP, a limit of 3 s; output in $TMP/run, status in rc.
inner() {
    (cd "$CO" && env TMPDIR="$TMP" TEST_LIMIT=3 TIME_SCALE=1 LANES=1 MOKU="${MOKU_REAL:-$MOKU}" "$@" \
        sh tests/run.sh >"$TMP/run" 2>&1)
    rc=$?
}
t0=$(date +%s)
inner SCRIPTS="$scripts" ALLOW_SKIP=
t1=$(date +%s)
has() { grep -q -- "$1" "$TMP/run"; }

check "a run with failures exits 1" [ "$rc" = 1 ]
check "a hung test fails, named, with its limit" has "^not ok - $F/hang.sh: timed out after 3 s"
check "... what it printed before counts" has '^ok 1 - before the hang$'
check "... the run goes on to the next test" has '^ok 1 - fine$'
check "... at once: the limit ends it, not the hang ($((t1 - t0)) s)" [ $((t1 - t0)) -lt 60 ]
check "a process a test leaves is a failure, named" \
    has "^not ok - $F/leaves.sh: left processes running (killed now): [0-9]* [^ ]* *sleep 300"
check "... it is killed, and so is the hung test's: nothing of the run's tests is left" \
    sh "$STRAYS" "$TMP" "MOKU_TEST_RUN=$TMP/"
check "... which the run checks last" has '^ok - no process of the run.s tests is left$'
check "a file a test writes into the checkout is a failure, named" \
    has "^not ok - $F/writes.sh: wrote ./harness-stray.out into the checkout"
check "a script that exits 0 before its end (no done_checks) fails, named" \
    has "^not ok - $F/early.sh did not reach its end (no done_checks: an exit before it)\$"
check "... what it printed before counts" has '^ok 1 - before the exit$'
check "the slowest tests are listed, the hung one first" \
    sh -c "sed -n '/^slowest tests/{n;p;}' '$TMP/run' | grep -q ' $F/hang.sh\$'"
if [ -n "$root" ]; then
    check "as root a skip is a failure, with its reason and how to allow it" \
        has "^not ok - $F/skips.sh: skipped as root, where README's set-up runs: no widget on this machine (ALLOW_SKIP=skips allows it)$"
    check "a user a test leaves is a failure, named" has "^not ok - $F/user.sh: left user mokuharness behind$"
    check "... and the run's end says so too" has "^not ok - users of the run's tests were left: mokuharness mokuharnessb mokuharnessc $"
    check "a user a test said it made (made_user) is put on it, named or not" \
        has "^not ok - $F/made.sh: left user mokuharnessc behind$"
    check "... one another lane's test said it made is not, though the script names it" \
        sh -c "! grep -q 'made.sh: left user mokuharnessb' '$TMP/run'"
    check "the closing line: passed, failed, skipped" has '^10 passed, 8 failed, 0 skipped$'
else
    check "a skip is counted apart, with its reason" has "^  $F/skips.sh: no widget on this machine$"
    check "the closing line: passed, failed, skipped" has '^9 passed, 4 failed, 1 skipped$'
fi

rm -f "$CO/harness-stray.out"
# ALLOW_SKIP: the skip is allowed, counted apart; nothing failed.
inner SCRIPTS="$F/skips.sh" ALLOW_SKIP="other skips"
check "ALLOW_SKIP naming the test: its skip is counted apart, with its reason" \
    sh -c "[ $rc = 0 ] && grep -q '^  $F/skips.sh: no widget on this machine\$' '$TMP/run' && grep -q '^4 passed, 0 failed, 1 skipped\$' '$TMP/run'"
done_checks
