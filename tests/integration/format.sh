#!/bin/sh
# The sources keep the layout .clang-format describes (issue 29 §7: no rule
# the code does not follow). `make format` applies it; this check names
# every C file that strays from it. The file list is the Makefile's
# FORMAT_FILES.
. tests/integration/lib.sh

if ! command -v clang-format >/dev/null 2>&1; then
    fail "format: clang-format is not installed (scripts/deps.sh installs it)"
    done_checks
    exit 0
fi
files=$(ls src/*/*.c src/*/*.h tests/unit/*.c tests/unit/*.h fuzz/*.c fuzz/*.h bench/*.c \
    tools/*.c tests/tools/*.c 2>/dev/null)
bad=""
for f in $files; do
    clang-format "$f" | cmp -s - "$f" || bad="$bad $f"
done
check "every C source ($(echo "$files" | wc -l) files) is as clang-format lays it out${bad:+ (not:$bad; make format)}" \
    [ -z "$bad" ]
# The check itself: a file put out of layout is seen.
cp src/util/mem.c "$TMP/mem.c"
sed -i 's/^{$/ {/' "$TMP/mem.c"
check "... and a file out of layout is seen" sh -c "! clang-format --style=file:$(pwd)/.clang-format '$TMP/mem.c' | cmp -s - '$TMP/mem.c'"
done_checks
