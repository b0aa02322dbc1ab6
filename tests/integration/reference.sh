#!/bin/sh
# moku against reference schedules, job for job:
#  - the bundled KTH SP2 references (EASY, FCFS, conservative) on 100 processors;
#  - the five other bundled traces (data/) against the independent textbook
#    implementation (tests/tools/textbook.c) under EASY, FCFS and (but on
#    Curie) conservative backfilling, on the cluster the trace header
#    describes.
. tests/integration/lib.sh
TEXTBOOK=${TEXTBOOK:-build/tests/textbook}
printf 'BACKFILLPOLICY FIRSTFIT\nRESERVATIONDEPTH[0] 1\n' >"$TMP/easy.cfg"
printf 'BACKFILLPOLICY NONE\n' >"$TMP/fcfs.cfg"
printf 'BACKFILLPOLICY FIRSTFIT\nRESERVATIONDEPTH[0] 1000000\n' >"$TMP/cons.cfg"

kth=data/KTH-SP2-1996-2.1-cln.norm.swf.gz
for pol in easy fcfs cons; do
    zcat "data/KTH-SP2-1996-2.1-cln_$pol.ref.csv.gz" >"$TMP/ref.csv"
    run simulate --config "$TMP/$pol.cfg" --procs 100 --jobs-out "$TMP/ours.csv" --format json "$kth"
    check "KTH $pol: moku runs" [ "$rc" -eq 0 ]
    check "KTH $pol: every job starts as in the reference schedule" same_starts "$TMP/ours.csv" "$TMP/ref.csv"
done

for t in HPC2N-2002-2.1-cln NASA-iPSC-1993-3.1-cln LLNL-Thunder-2007-1.1-cln \
    SDSC-BLUE-2000-4.2-cln CEA-Curie-2011-2.1-cln; do
    f="data/$t.norm.swf.gz"
    if [ ! -f "$f" ]; then
        fail "$t: $f not found (it is part of the checkout)"
        continue
    fi
    procs=$(zcat "$f" | awk '/^; *MaxProcs:/ { print $3; exit }')
    # Conservative re-plans every waiting job at every event: textbook cons
    # takes ~20 s on Curie (93,312 processors, long queues), and moku as
    # long, so Curie is left out; the others take at most a few seconds.
    pols="easy fcfs cons"
    [ "$t" = CEA-Curie-2011-2.1-cln ] && pols="easy fcfs"
    # The trace's policies side by side (the machine has two cores; each
    # replay is one), then their checks in order.
    for pol in $pols; do
        (
            zcat "$f" | "$TEXTBOOK" "$pol" "$procs" >"$TMP/$pol.ref.csv"
            "$MOKU" simulate --config "$TMP/$pol.cfg" --jobs-out "$TMP/$pol.ours.csv" --format json "$f" \
                >"$TMP/$pol.out" 2>"$TMP/$pol.err"
            echo $? >"$TMP/$pol.rc"
        ) &
    done
    wait
    for pol in $pols; do
        check "$t $pol: moku runs" [ "$(cat "$TMP/$pol.rc")" -eq 0 ]
        check "$t $pol: every job starts as in textbook $pol" same_starts "$TMP/$pol.ours.csv" "$TMP/$pol.ref.csv"
    done
done
done_checks
