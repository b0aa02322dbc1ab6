# Helpers for the integration tests (sourced; POSIX sh). Each check prints
# "ok N - what" or "not ok N - what"; tests/run.sh counts them.
n=0
MOKU=${MOKU:-bin/moku}
SHARED=${SHARED:-../shared}
TMP=$(mktemp -d)
trap '[ -n "$KEEP_TMP" ] || rm -rf "$TMP"' EXIT

ok() { n=$((n + 1)); echo "ok $n - $1"; }
fail() { n=$((n + 1)); echo "not ok $n - $1"; }
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
