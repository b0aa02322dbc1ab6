#!/bin/sh
# Fairshare through the binary: fairshare priority reorders the queue, FS
# data files are written per window on the trace's epoch clock (SWF
# UnixStartTime) and read back at the next start, a corrupt file is reported
# with its name and line and skipped, diagnose -f in text and JSON, and a
# bad FSTARGET.
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

run simulate --config "$TMP/fs.cfg" --statdir "$TMP/st" --jobs-out "$TMP/jobs.csv" "$TMP/w.swf"
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
run simulate --config "$TMP/fs.cfg" --statdir "$TMP/hist" --jobs-out "$TMP/jobs.csv" "$TMP/w.swf"
check "history read back: user 1 now goes first" [ "$(start_of 2)" = 500 ]
check "... and user 2 after" [ "$(start_of 3)" = 600 ]

# A corrupt file is reported with its name and line, skipped, not fatal.
mkdir -p "$TMP/bad"
printf 'user 2 100000\nuser 3 lots\n' >"$TMP/bad/FS.999999000"
run simulate --config "$TMP/fs.cfg" --statdir "$TMP/bad" --jobs-out "$TMP/jobs.csv" "$TMP/w.swf"
check "a corrupt FS file does not stop the replay" [ "$rc" = 0 ]
check "the warning names the file and line" has_err "FS.999999000:2:"
check "its records are not used" [ "$(start_of 3)" = 500 ]

run simulate --config "$TMP/fs.cfg" --statdir "$TMP/st2" --until 450 --show "diagnose -f" "$TMP/w.swf"
check "diagnose -f: the policy" has_out '^FS Policy: DEDICATEDPS$'
check "diagnose -f: the depth, interval and decay" has_out '^Depth: 4 intervals   Interval Length: 00:16:40   Decay Rate: 0.50$'
check "diagnose -f: user 1 holds all the usage" grep -Eq '^1\* +100\.00  50\.00 +100\.00$' "$TMP/out"
run simulate --config "$TMP/fs.cfg" --statdir "$TMP/st3" --until 450 --show "diagnose -f --format=json" "$TMP/w.swf"
check "diagnose -f json: usage of user 1 in its windows" grep -q '"usage": 100.0' "$TMP/out"
check "diagnose -f json: the window's raw usage" grep -q '900.0' "$TMP/out"

printf 'FSPOLICY DEDICATEDPS\nUSERCFG[x] FSTARGET=ten\n' >"$TMP/badt.cfg"
run simulate --config "$TMP/badt.cfg" "$TMP/w.swf"
check "a bad FSTARGET: exit 1" [ "$rc" = 1 ]
check "... naming file and line" has_err "badt.cfg:2"
