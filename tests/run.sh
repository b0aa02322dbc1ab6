#!/bin/sh
# Runs every unit-test program given as arguments, then every integration test
# (tests/integration/*.sh), and prints one closing line: "N passed, M failed".
# Each program prints lines "<name>: N passed, M failed"; an integration script
# counts as one test per "ok"/"not ok" line it prints (TAP-like).
passed=0
failed=0
log=$(mktemp)
for t in "$@"; do
    "$t" >"$log" 2>&1
    rc=$?
    cat "$log"
    line=$(grep -E '^[^ ]+: [0-9]+ passed, [0-9]+ failed$' "$log" | tail -n 1)
    if [ -z "$line" ]; then
        echo "$t: crashed or printed no summary (exit $rc)"
        failed=$((failed + 1))
        continue
    fi
    p=$(echo "$line" | sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed/\1/')
    f=$(echo "$line" | sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed/\2/')
    passed=$((passed + p))
    failed=$((failed + f))
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        echo "$t: exited $rc"
        failed=$((failed + 1))
    fi
done
for s in tests/integration/*.sh; do
    [ -f "$s" ] || continue
    sh "$s" >"$log" 2>&1
    cat "$log"
    p=$(grep -c '^ok ' "$log")
    f=$(grep -c '^not ok ' "$log")
    passed=$((passed + p))
    failed=$((failed + f))
done
rm -f "$log"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
