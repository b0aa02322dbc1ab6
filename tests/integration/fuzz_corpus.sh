#!/bin/sh
# The fuzz corpus as a regression test (issue 14): every saved input of
# fuzz/corpus/<name>/ — seeds and every reproducer the fuzzers found — runs
# through its harness built without libFuzzer (fuzz/replay.c). A crash or an
# abort fails. make fuzz is what finds new ones (fuzz/run.sh).
. tests/integration/lib.sh
# FUZZREPLAY: one or more directories of replay_NAME programs (make asan adds
# clang's, whose UBSan sees more than GCC's); each replays the whole corpus.
for R in ${FUZZREPLAY:-build/fuzz}; do
    for f in fuzz/fuzz_*.c; do
        name=${f#fuzz/fuzz_}
        name=${name%.c}
        n_in=$(ls "fuzz/corpus/$name" 2>/dev/null | wc -l)
        TMPDIR=$TMP "$R/replay_$name" "fuzz/corpus/$name" >"$TMP/out" 2>"$TMP/err"
        rc=$?
        [ $rc -eq 0 ] || sed -n '1,5p' "$TMP/err"
        check "fuzz corpus $name ($R): its $n_in inputs replay without a crash" \
            sh -c "[ $rc -eq 0 ] && [ $n_in -gt 0 ] && grep -q ': $n_in inputs' '$TMP/out'"
    done
done
done_checks
