#!/bin/sh
# Runs every unit-test program given as arguments, then every integration test
# (tests/integration/*.sh), and prints one closing line: "N passed, M failed".
# Each program prints lines "<name>: N passed, M failed"; an integration script
# counts as one test per "ok"/"not ok" line it prints (TAP-like).
passed=0
failed=0
log=$(mktemp)
# What failed, repeated above the closing line: CI shows only the output's tail.
recap=$(mktemp)
for t in "$@"; do
    "$t" >"$log" 2>&1
    rc=$?
    cat "$log"
    grep -E 'check failed' "$log" | sed "s|^|$t: |" >>"$recap"
    line=$(grep -E '^[^ ]+: [0-9]+ passed, [0-9]+ failed$' "$log" | tail -n 1)
    if [ -z "$line" ]; then
        echo "$t: crashed or printed no summary (exit $rc)" | tee -a "$recap"
        failed=$((failed + 1))
        continue
    fi
    p=$(echo "$line" | sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed/\1/')
    f=$(echo "$line" | sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed/\2/')
    passed=$((passed + p))
    failed=$((failed + f))
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        echo "$t: exited $rc" | tee -a "$recap"
        failed=$((failed + 1))
    fi
done
# Replays go through tests/tools/vsim, which validates each (moku validate);
# scripts that run the daemon get the binary itself (they copy it for other
# users, and a wrapper would not do).
VSIM_LOG=$(mktemp)
export VSIM_LOG MOKU_REAL="$MOKU"
vsim=$(pwd)/tests/tools/vsim
for s in tests/integration/*.sh; do
    [ -f "$s" ] || continue
    if grep -q 'serve --home\|MOKU" serve' "$s"; then
        sh "$s" >"$log" 2>&1
    else
        MOKU="$vsim" sh "$s" >"$log" 2>&1
    fi
    cat "$log"
    grep '^not ok ' "$log" | sed "s|^|$s: |" >>"$recap"
    p=$(grep -c '^ok ' "$log")
    f=$(grep -c '^not ok ' "$log")
    passed=$((passed + p))
    failed=$((failed + f))
done
# Every replay an integration test made, validated.
bad=$(grep -c '^moku simulate' "$VSIM_LOG")
skipped=$(grep -c . "$VSIM_LOG.skipped" 2>/dev/null || echo 0)
if [ "$bad" -gt 0 ]; then
    echo "not ok - $bad integration replays failed moku validate:"
    cat "$VSIM_LOG"
    failed=$((failed + bad))
elif [ "$skipped" -gt 0 ]; then
    echo "not ok - $skipped integration replays could not be validated:"
    cat "$VSIM_LOG.skipped"
    failed=$((failed + 1))
else
    echo "ok - every integration replay passed moku validate"
    passed=$((passed + 1))
fi
if [ -s "$recap" ]; then
    echo "failures:"
    sed 's/^/  /' "$recap"
fi
rm -f "$log" "$recap" "$VSIM_LOG" "$VSIM_LOG.skipped"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
