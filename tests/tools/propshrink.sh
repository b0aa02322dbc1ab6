#!/bin/sh
# propshrink — minimise a failing property case (tests/integration/property.sh).
#
#   sh tests/tools/propshrink.sh DIR 'TEST'
#
# DIR holds a case (case.cfg, case.swf, case.cmds, args). TEST is a shell
# command run in a copy of the case, with $C the copy's directory; it exits 0
# while the failure still shows. Lines of case.cfg, case.cmds and case.swf are
# removed one at a time, then the jobs' numbers shrunk (runtimes, walltimes,
# processors, submit times halved), then words of configuration lines
# dropped, as long as TEST still passes, until nothing more goes.
# DIR is left as it was; the smallest case found is written to DIR.min.
#
# Example, a replay that does not end:
#   sh tests/tools/propshrink.sh build/property-failures/seed-220 \
#     'timeout 3 bin/moku simulate $(cat $C/args) --config $C/case.cfg \
#        --commands $C/case.cmds $C/case.swf >/dev/null 2>&1; [ $? -eq 124 ]'
set -u
dir=${1:?usage: propshrink.sh DIR TEST}
test=${2:?usage: propshrink.sh DIR TEST}
out=$dir.min
rm -rf "$out"
cp -r "$dir" "$out"
C=$(mktemp -d)
trap 'rm -rf "$C"' EXIT
export C

holds() {
    rm -rf "$C"/*
    cp "$out"/case.* "$out"/args "$C"/ 2>/dev/null
    [ -n "${1:-}" ] && cp "$1" "$C/$2"
    sh -c "$test" >/dev/null 2>&1
}

if ! holds; then
    echo "propshrink: the test does not hold on $dir" >&2
    exit 1
fi

# Try dropping each line of FILE in turn; keep every drop after which TEST holds.
shrink_lines() {
    f=$1
    [ -f "$out/$f" ] || return 1
    changed=1
    i=$(wc -l <"$out/$f")
    while [ "$i" -ge 1 ]; do
        sed "${i}d" "$out/$f" >"$C.try"
        if holds "$C.try" "$f"; then
            cp "$C.try" "$out/$f"
            changed=0
        fi
        i=$((i - 1))
    done
    return $changed
}

# Halve the numbers of job I: SWF runtime (4), processors (5, 8), requested
# time (9), submit (2); Maui tasks (3), walltime (6), runtime (completion 12
# moved towards start 11), submit (9, with dispatch and start).
shrink_fields() {
    f=case.swf
    # A Maui trace is told by its 43 or 44 fields (its VERSION line may be gone).
    if awk '$1 !~ /^[;#]/ && $1 != "VERSION" { exit !(NF >= 43) }' "$out/$f"; then
        ks="3 6 12 9" maui=1
    else
        ks="4 5 8 9 2" maui=0
    fi
    changed=1
    n=$(wc -l <"$out/$f")
    for i in $(seq 1 "$n"); do
        for k in $ks; do
            awk -v i="$i" -v k="$k" -v maui="$maui" '
                NR != i || $1 ~ /^;/ || $1 == "VERSION" { print; next }
                maui && k == 12 { if ($12 - $11 > 1) $12 = $11 + int(($12 - $11) / 2); print; next }
                maui && k == 9 { d = int($9 / 2); if ($9 > 1) { $9 -= d; $10 -= d; $11 -= d; $12 -= d } print; next }
                $k > 1 { $k = int($k / 2) } { print }' "$out/$f" >"$C.try"
            cmp -s "$C.try" "$out/$f" && continue
            if holds "$C.try" "$f"; then
                cp "$C.try" "$out/$f"
                changed=0
            fi
        done
    done
    return $changed
}

# Drop each ATTR=VALUE word of the configuration's lines in turn.
shrink_words() {
    f=case.cfg
    [ -f "$out/$f" ] || return 1
    changed=1
    n=$(wc -l <"$out/$f")
    for i in $(seq 1 "$n"); do
        w=$(sed -n "${i}p" "$out/$f" | awk '{ print NF }')
        while [ "${w:-0}" -gt 2 ]; do
            awk -v i="$i" -v w="$w" 'NR == i { $w = "" } { print }' "$out/$f" >"$C.try"
            if holds "$C.try" "$f"; then
                cp "$C.try" "$out/$f"
                changed=0
            fi
            w=$((w - 1))
        done
    done
    return $changed
}

while :; do
    more=1
    shrink_lines case.cmds && more=0
    shrink_lines case.cfg && more=0
    shrink_lines case.swf && more=0
    shrink_fields && more=0
    shrink_words && more=0
    [ "$more" -eq 1 ] && break
done
rm -f "$C.try"
echo "propshrink: $(cat "$out"/case.cfg "$out"/case.cmds "$out"/case.swf 2>/dev/null | wc -l) lines left in $out"
