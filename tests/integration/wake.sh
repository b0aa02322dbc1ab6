#!/bin/sh
# No wake-up missing under the documents' policies (issue 26 §2): on the
# real KTH trace (its first 4,000 jobs), a replay with an iteration forced at
# every RMPOLLINTERVAL instant (`--iterate-every 60`, what a daemon polling
# its resource manager adds) gives the event-driven replay's schedule, job for
# job, under the throttling page's limits, the fairshare page's policy with
# caps, the priority page's XFACTOR, and the reservation page's business-hours
# standing reservation. A difference is something time alone changed that
# did not wake the replay (tests/integration/property.sh does the same over
# random cases); and the forced replay really iterates more.
. tests/integration/lib.sh

KTH=data/KTH-SP2-1996-2.1-cln.norm.swf.gz
gzip -dc "$KTH" | awk '/^;/ || n++ < 4000' >"$TMP/kth.swf"

conf() { printf '%b' "$2" >"$TMP/$1.cfg"; }
conf throttling 'USERCFG[DEFAULT] MAXIJOB=8 MAXJOB=72 MAXPS=72000,1080000\n'
conf fairshare 'FSPOLICY DEDICATEDPS\nFSINTERVAL 12:00:00\nFSDEPTH 8\nFSDECAY 0.8\nFSWEIGHT 10\nFSUSERWEIGHT 1\nUSERCFG[DEFAULT] FSTARGET=10\nUSERCFG[2] FSTARGET=5%\n'
conf xfactor 'XFACTORWEIGHT 10\nQUEUETIMEWEIGHT 1\n'
conf business 'SRCFG[interactive] TASKCOUNT=6 RESOURCES=PROCS:1\nSRCFG[interactive] PERIOD=DAY DAYS=MON,TUE,WED,THU,FRI STARTTIME=9:00:00 ENDTIME=17:00:00\nSRCFG[interactive] CLASSLIST=1\n'

for c in throttling fairshare xfactor business; do
    for m in event every; do
        a=""
        [ "$m" = every ] && a="--iterate-every 60"
        mkdir -p "$TMP/st-$c-$m"
        "$MOKU" simulate $a --config "$TMP/$c.cfg" --format json \
            --jobs-out "$TMP/$c-$m.csv" "$TMP/kth.swf" >"$TMP/$c-$m.json" 2>"$TMP/$c-$m.err"
        echo $? >"$TMP/$c-$m.rc"
    done
    it() { sed 's/.*"iterations":\([0-9]*\).*/\1/' "$TMP/$c-$1.json"; }
    if [ "$(cat "$TMP/$c-event.rc")$(cat "$TMP/$c-every.rc")" = 00 ] &&
        cmp -s "$TMP/$c-event.csv" "$TMP/$c-every.csv" && [ "$(it every)" -gt "$(it event)" ]; then
        ok "$c: the same schedule with an iteration at every RMPOLLINTERVAL instant ($(it event) iterations, $(it every) forced)"
    else
        fail "$c: the same schedule with an iteration at every RMPOLLINTERVAL instant"
        diff "$TMP/$c-event.csv" "$TMP/$c-every.csv" | sed -n '1,6s/^/# /p'
        sed -n '1,3s/^/# /p' "$TMP/$c-event.err" "$TMP/$c-every.err"
    fi
done
done_checks
