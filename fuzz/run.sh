#!/bin/sh
# fuzz/run.sh DIR NAME... — run each libFuzzer harness DIR/fuzz_NAME for
# $FUZZ_SECONDS seconds (make fuzz). New inputs go to DIR/corpus/NAME, the
# saved corpus fuzz/corpus/NAME is read as seeds; a crash, leak or sanitizer
# report stops with its reproducer in DIR/crash-NAME-* (add it to
# fuzz/corpus/NAME once fixed: make check replays that directory).
dir=$1
shift
secs=${FUZZ_SECONDS:-60}
export TMPDIR=${TMPDIR:-/tmp}
status=0
for name in "$@"; do
    mkdir -p "$dir/corpus/$name" "fuzz/corpus/$name"
    echo "fuzz: $name for $secs s"
    if ! "$dir/fuzz_$name" -max_total_time="$secs" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
        -artifact_prefix="$dir/crash-$name-" -print_final_stats=1 \
        "$dir/corpus/$name" "fuzz/corpus/$name" >"$dir/$name.log" 2>&1; then
        echo "fuzz: $name FAILED (log: $dir/$name.log)"
        grep -m 5 -E 'ERROR|SUMMARY|Test unit written' "$dir/$name.log"
        status=1
        continue
    fi
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/$name.log")
    echo "fuzz: $name ok, ${runs:-?} executions, $(ls "$dir/corpus/$name" | wc -l) corpus inputs"
done
exit $status
