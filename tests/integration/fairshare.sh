#!/bin/sh
# Fairshare through the binary: fairshare priority reorders the queue, FS
# data files are written on the trace's epoch clock (SWF UnixStartTime) when
# --fs-out asks and read back when --fs-history (or STATDIR in the
# configuration) asks, a corrupt file is reported with its name and line and
# skipped, diagnose -f in text and JSON, and a bad FSTARGET. Replays are
# hermetic (issue 26 §3): without those options nothing is read or written,
# so the same command gives the same schedule every time; old files are
# pruned beyond FSDEPTH.
. tests/integration/lib.sh

# Two processors. Job 1 (user 1) fills them 0..500; then user 1's job 2 and
# user 2's job 3 wait for them.
cat >"$TMP/w.swf" <<'SWF'
; UnixStartTime: 1000000000
; MaxProcs: 2
1 0 0 500 2 -1 -1 2 600 -1 1 1 1 -1 1 -1 -1 -1
2 10 0 100 2 -1 -1 2 600 -1 1 1 1 -1 1 -1 -1 -1
3 20 0 100 2 -1 -1 2 600 -1 1 2 1 -1 1 -1 -1 -1
SWF
cat >"$TMP/fs.cfg" <<'CFG'
FSPOLICY DEDICATEDPS
FSINTERVAL 1000
FSDEPTH 4
FSDECAY 0.5
FSWEIGHT 1
FSUSERWEIGHT 10
USERCFG[DEFAULT] FSTARGET=50
CFG

start_of() { awk -F, -v id="$1" '$1 == id { print $3 }' "$TMP/jobs.csv"; }

run simulate --jobs-out "$TMP/jobs.csv" "$TMP/w.swf"
check "without fairshare, job 2 (submitted first) starts at 500" [ "$(start_of 2)" = 500 ]

run simulate --config "$TMP/fs.cfg" --fs-out "$TMP/st" --jobs-out "$TMP/jobs.csv" "$TMP/w.swf"
check "the replay succeeds" [ "$rc" = 0 ]
check "user 2, under target, goes before user 1, over it" [ "$(start_of 3)" = 500 ]
check "... and user 1's job follows" [ "$(start_of 2)" = 600 ]
# Epoch 1000000000 is a multiple of FSINTERVAL: one window holds it all.
check "the window's FS data file is written" [ -f "$TMP/st/FS.1000000000" ]
check "its header names the interval" grep -q '^# FS Data File (Duration:   1000 seconds)' "$TMP/st/FS.1000000000"
check "user 1 used 2 x 500 + 2 x 100 processor-seconds" grep -Eq '^user +1 +1200\.000$' "$TMP/st/FS.1000000000"
check "the total is the sched line" grep -Eq '^sched +TOTAL +1400\.000$' "$TMP/st/FS.1000000000"

# History from the window before: user 2 used a lot. Now user 1 goes first.
mkdir -p "$TMP/hist"
printf '# an older window, as the Admin Guide spells it\nUser 2 100000.000\nTOTAL 100000.00\n' \
    >"$TMP/hist/FS.999999000"
run simulate --config "$TMP/fs.cfg" --fs-history "$TMP/hist" --jobs-out "$TMP/jobs.csv" "$TMP/w.swf"
check "history read back: user 1 now goes first" [ "$(start_of 2)" = 500 ]
check "... and user 2 after" [ "$(start_of 3)" = 600 ]
check "the report says the history was read" has_out "^  fairshare history    1 window from $TMP/hist\$"
run simulate --config "$TMP/fs.cfg" --fs-history "$TMP/hist" --format json "$TMP/w.swf"
check "... and so does the JSON" has_out "\"fs_history\":{\"dir\":\"$TMP/hist\",\"windows\":1}"

# A corrupt file is reported with its name and line, skipped, not fatal.
mkdir -p "$TMP/bad"
printf 'user 2 100000\nuser 3 lots\n' >"$TMP/bad/FS.999999000"
run simulate --config "$TMP/fs.cfg" --fs-history "$TMP/bad" --jobs-out "$TMP/jobs.csv" "$TMP/w.swf"
check "a corrupt FS file does not stop the replay" [ "$rc" = 0 ]
check "the warning names the file and line" has_err "FS.999999000:2:"
check "its records are not used" [ "$(start_of 3)" = 500 ]

run simulate --config "$TMP/fs.cfg" --until 450 --show "diagnose -f" "$TMP/w.swf"
check "diagnose -f: the policy" has_out '^FS Policy: DEDICATEDPS$'
check "diagnose -f: the depth, interval and decay" has_out '^Depth: 4 intervals   Interval Length: 00:16:40   Decay Rate: 0.50$'
check "diagnose -f: user 1 holds all the usage" grep -Eq '^1\* +100\.00  50\.00 +100\.00$' "$TMP/out"
run simulate --config "$TMP/fs.cfg" --until 450 --show "diagnose -f --format=json" "$TMP/w.swf"
check "diagnose -f json: usage of user 1 in its windows" grep -q '"usage": 100.0' "$TMP/out"
check "diagnose -f json: the window's raw usage" grep -q '900.0' "$TMP/out"

printf 'FSPOLICY DEDICATEDPS\nUSERCFG[x] FSTARGET=ten\n' >"$TMP/badt.cfg"
run simulate --config "$TMP/badt.cfg" "$TMP/w.swf"
check "a bad FSTARGET: exit 1" [ "$rc" = 1 ]
check "... naming file and line" has_err "badt.cfg:2"

# ---- Hermetic replays (issue 26 §3) ----
# Two processors. User 1's job 1 runs 0..100, then user 2's job 2 (1000 s)
# and user 1's job 3 wait. A replay from no history starts user 2's first
# (user 1 has used 200); one that read the usage an earlier replay wrote
# (user 2: 2000) would start user 1's first.
case $MOKU in /*) ;; *) MOKU=$PWD/$MOKU ;; esac
# Under tests/run.sh MOKU is tests/tools/vsim, which runs MOKU_REAL: that
# one must be found from another directory too.
case ${MOKU_REAL:-/} in /*) ;; *) MOKU_REAL=$PWD/$MOKU_REAL && export MOKU_REAL ;; esac
cat >"$TMP/h.swf" <<'SWF'
; UnixStartTime: 1000000000
; MaxProcs: 2
1 0 0 100 2 -1 -1 2 200 -1 1 1 1 -1 1 -1 -1 -1
2 10 0 1000 2 -1 -1 2 1000 -1 1 2 1 -1 1 -1 -1 -1
3 20 0 100 2 -1 -1 2 200 -1 1 1 1 -1 1 -1 -1 -1
SWF
printf 'FSPOLICY DEDICATEDPS\nFSINTERVAL 100000\nFSWEIGHT 1\nFSUSERWEIGHT 10\nUSERCFG[DEFAULT] FSTARGET=50\n' \
    >"$TMP/h.cfg"
mkdir "$TMP/here"
(
    cd "$TMP/here" || exit 1
    for i in 1 2 3; do
        "$MOKU" simulate --config ../h.cfg --jobs-out "j$i.csv" ../h.swf >"r$i.txt" 2>"e$i.txt"
    done
    "$MOKU" simulate --config ../h.cfg --until 50 --show "diagnose -f" ../h.swf >show.txt 2>&1
    "$MOKU" simulate --config ../h.cfg --jobs-out j4.csv ../h.swf >r4.txt 2>&1
)
h=$TMP/here
check "a replay from no history starts user 2's job first" grep -q '^2,10,100,' "$h/j1.csv"
check "three identical runs in one directory: one schedule" \
    sh -c "cmp -s $h/j1.csv $h/j2.csv && cmp -s $h/j1.csv $h/j3.csv"
check "... and one report (but the wall time)" \
    sh -c "grep -v 'wall time' $h/r1.txt >$h/a; grep -v 'wall time' $h/r3.txt >$h/b; cmp -s $h/a $h/b"
check "... which names no fairshare history" sh -c "! grep -q 'fairshare history' $h/r1.txt"
check "--until ... --show \"diagnose -f\" does not change the next replay" cmp -s "$h/j1.csv" "$h/j4.csv"
check "nothing was written in the directory" [ ! -e "$h/stats" ]

# --fs-out writes the windows; --fs-history reads them, on request only.
run simulate --config "$TMP/h.cfg" --fs-out "$TMP/hs" "$TMP/h.swf"
check "--fs-out: the window's file" grep -Eq '^user +2 +2000\.000$' "$TMP/hs/FS.1000000000"
run simulate --config "$TMP/h.cfg" --fs-history "$TMP/hs" --jobs-out "$TMP/hj.csv" "$TMP/h.swf"
check "--fs-history: user 2's usage counts, user 1's job goes first" grep -q '^3,20,100,' "$TMP/hj.csv"
check "... and the report says so" has_out "fairshare history    1 window from $TMP/hs"
# STATDIR set in the configuration is read (a copied maui.cfg names the live
# scheduler's files), never written.
cp "$TMP/h.cfg" "$TMP/hsd.cfg"
echo "STATDIR $TMP/hs" >>"$TMP/hsd.cfg"
before=$(ls -l --time-style=+%s.%N "$TMP/hs" | md5sum)
run simulate --config "$TMP/hsd.cfg" --jobs-out "$TMP/hj2.csv" "$TMP/h.swf"
check "STATDIR in the configuration: read" grep -q '^3,20,100,' "$TMP/hj2.csv"
check "... and not written" [ "$(ls -l --time-style=+%s.%N "$TMP/hs" | md5sum)" = "$before" ]
# --compare and single runs agree, history or not.
for hist in "" "--fs-history $TMP/hs"; do
    # shellcheck disable=SC2086
    run simulate --config "$TMP/h.cfg" $hist --compare FSUSERWEIGHT=10,0 --jobs-out "$TMP/cmp.csv" "$TMP/h.swf"
    k=0
    same=1
    for v in 10 0; do
        k=$((k + 1))
        # shellcheck disable=SC2086
        run simulate --config "$TMP/h.cfg" $hist --set FSUSERWEIGHT=$v --jobs-out "$TMP/one.csv" "$TMP/h.swf"
        awk -F, -v k=$k 'NR > 1 && $1 == k' "$TMP/cmp.csv" | cut -d, -f2- >"$TMP/cmpk.csv"
        tail -n +2 "$TMP/one.csv" >"$TMP/onek.csv"
        cmp -s "$TMP/cmpk.csv" "$TMP/onek.csv" || same=0
    done
    check "--compare equals single runs${hist:+ (with --fs-history)}" [ "$same" = 1 ]
done

# A 1-second FSINTERVAL: at most FSDEPTH files, older ones pruned; other
# files in the directory are left alone.
mkdir "$TMP/tiny"
for t in 999990000 999990001 999999999; do echo "user 9 1" >"$TMP/tiny/FS.$t"; done
echo "mine" >"$TMP/tiny/FS.notes"
run simulate --config "$TMP/h.cfg" --set FSINTERVAL=1 --set FSDEPTH=5 --fs-out "$TMP/tiny" "$TMP/h.swf"
check "FSINTERVAL 1: the replay succeeds" [ "$rc" = 0 ]
# The last job ends at 1200: windows 1196..1199 hold usage, 1200 none.
check "... leaving the windows that count (4 with usage of FSDEPTH 5)" \
    [ "$(ls "$TMP/tiny" | grep -c '^FS\.[0-9]*$')" = 4 ]
check "... the newest the last second of the replay" [ -f "$TMP/tiny/FS.1000001199" ]
check "... the old windows pruned, the other file kept" \
    sh -c "[ ! -e $TMP/tiny/FS.999990000 ] && [ ! -e $TMP/tiny/FS.999999999 ] && [ -f $TMP/tiny/FS.notes ]"

# A replay that ends with a job that never starts (over MAXPROC) iterates
# on after its last job ended, until no window that counts holds usage: the
# windows are those its usage left (was: none written, exit 0). User 1 uses
# 1000 in window 1000000000, user 2 400 in 1000001000; user 3's job waits.
cat >"$TMP/stuck.swf" <<'SWF'
; UnixStartTime: 1000000000
; MaxProcs: 8
1 0 0 500 2 -1 -1 2 600 -1 1 1 1 -1 1 -1 -1 -1
2 1500 0 200 2 -1 -1 2 600 -1 1 2 1 -1 1 -1 -1 -1
3 1600 0 100 4 -1 -1 4 600 -1 1 3 1 -1 1 -1 -1 -1
SWF
printf 'FSPOLICY DEDICATEDPS\nFSINTERVAL 1000\nFSDEPTH 3\nFSWEIGHT 1\nUSERCFG[DEFAULT] FSTARGET=10 MAXPROC=2\n' \
    >"$TMP/stuck.cfg"
mkdir "$TMP/stuck"
echo "user 9 1" >"$TMP/stuck/FS.999998000"
run simulate --config "$TMP/stuck.cfg" --fs-out "$TMP/stuck" "$TMP/stuck.swf"
check "a job never started: its replay still writes the windows its usage left" \
    sh -c "[ $rc -eq 0 ] && grep -q 'never started   1' $TMP/out &&
        grep -Eq '^user +1 +1000\.000\$' $TMP/stuck/FS.1000000000 &&
        grep -Eq '^user +2 +400\.000\$' $TMP/stuck/FS.1000001000 && [ ! -e $TMP/stuck/FS.999998000 ] &&
        [ \$(ls $TMP/stuck | wc -l) = 2 ]"
printf '; UnixStartTime: 1000002000\n; MaxProcs: 8\n1 0 0 10 1 -1 -1 1 60 -1 1 1 1 -1 1 -1 -1 -1\n' \
    >"$TMP/stuck_next.swf"
run simulate --config "$TMP/stuck.cfg" --fs-history "$TMP/stuck" "$TMP/stuck_next.swf"
check "... which the next trace's replay reads back" \
    sh -c "[ $rc -eq 0 ] && grep -q 'fairshare history    2 windows from $TMP/stuck' $TMP/out"
rm -rf "$TMP/stuck2"
run simulate --config "$TMP/stuck.cfg" --until 1600 --fs-out "$TMP/stuck2" "$TMP/stuck.swf"
check "... --until while job 2 runs: the ledger at the stop (user 2's 200 so far)" \
    grep -Eq '^user +2 +200\.000$' "$TMP/stuck2/FS.1000001000"
{ head -2 "$TMP/stuck.swf"; tail -1 "$TMP/stuck.swf"; } >"$TMP/stuck3.swf"
run simulate --config "$TMP/stuck.cfg" --fs-out "$TMP/stuck3" "$TMP/stuck3.swf"
check "... no usage at all: a warning, no file" \
    sh -c "[ $rc -eq 0 ] && grep -q -- '--fs-out $TMP/stuck3: no window that counts held usage, no FS file written' $TMP/err && [ ! -e $TMP/stuck3/FS.* ]"

# Usage errors.
run simulate --config "$TMP/h.cfg" --fs-out "$TMP/x" --compare FSDEPTH=2,4 "$TMP/h.swf"
check "--fs-out with several runs: exit 2" sh -c "[ $rc = 2 ] && grep -q 'fs-out writes the fairshare windows of one run' $TMP/err"
run simulate --config "$TMP/h.cfg" --fs-history "$TMP/nowhere" "$TMP/h.swf"
check "--fs-history of a missing directory: exit 2, named" sh -c "[ $rc = 2 ] && grep -q 'nowhere' $TMP/err"
run simulate --config "$TMP/h.cfg" --statdir "$TMP/hs" "$TMP/h.swf"
check "--statdir: exit 2, naming what replaced it" sh -c "[ $rc = 2 ] && grep -q -- '--fs-history DIR' $TMP/err"
run simulate --fs-history "$TMP/hs" "$TMP/h.swf"
check "--fs-history without FSPOLICY: a warning" has_err "FSPOLICY is NONE, no fairshare history is read"

# UTILIZEDPS (issue 26 §6): SWF field 6 (average CPU time) 0 is a job that
# used no CPU (the seed's /bin/sleep), charged nothing; -1 is unknown,
# charged its dedicated processors; 50 of 100 s is half its processors.
cat >"$TMP/u.swf" <<'SWF'
; UnixStartTime: 1000000000
; MaxProcs: 6
1 0 0 100 2 0 -1 2 200 -1 1 1 1 -1 1 -1 -1 -1
2 0 0 100 2 50 -1 2 200 -1 1 2 1 -1 1 -1 -1 -1
3 0 0 100 2 -1 -1 2 200 -1 1 3 1 -1 1 -1 -1 -1
SWF
run simulate --set FSPOLICY=UTILIZEDPS --set FSINTERVAL=100000 --fs-out "$TMP/util" "$TMP/u.swf"
check "UTILIZEDPS: a CPU time of 0 charges nothing" sh -c "[ -f $TMP/util/FS.1000000000 ] && ! grep -Eq '^user +1 ' $TMP/util/FS.1000000000"
check "... 50 of 100 s on 2 processors charges 100" grep -Eq '^user +2 +100\.000$' "$TMP/util/FS.1000000000"
check "... an unknown CPU time (-1) charges the dedicated 200" grep -Eq '^user +3 +200\.000$' "$TMP/util/FS.1000000000"
check "... the total is theirs" grep -Eq '^sched +TOTAL +300\.000$' "$TMP/util/FS.1000000000"
run simulate --swf-out "$TMP/u.out.swf" "$TMP/u.swf"
check "--swf-out keeps a CPU time of 0 (and -1 unknown)" \
    sh -c "awk '\$1 == 1 && \$6 == 0 { a = 1 } \$1 == 3 && \$6 == -1 { b = 1 } END { exit !(a && b) }' $TMP/u.out.swf"

# A poll between events where fairshare moves a job below the reservation
# holder above it (policy/qgroup.c answers for user 2's jobs from the one
# that waited longest): job 4 starts at the first poll after user 1's
# usage passes user 2's (8160), not when job 2 ends (23600). Without that
# look the poll keeps the old plan and job 4 waits for job 2's end.
cat >"$TMP/cross.cfg" <<'CFG'
FSPOLICY DEDICATEDPS
FSINTERVAL 1000000
FSDEPTH 1
FSWEIGHT 1
FSUSERWEIGHT 100
USERCFG[DEFAULT] FSTARGET=50
RMPOLLINTERVAL 60
CFG
run simulate --config "$TMP/cross.cfg" --jobs-out "$TMP/jobs.csv" tests/data/sim/fs_crossing.swf
check "a fairshare crossing at a poll starts the job that rose above the reservation (8160)" \
    [ "$rc.$(start_of 4).$(start_of 3)" = "0.8160.23600" ]
done_checks
