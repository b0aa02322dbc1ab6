#!/bin/sh
# A replay without commands frees each job's engine record when it ends
# (sched_job_forget, issue 16: memory grows with the queue, not the trace);
# with commands (--commands, --show) it keeps them, since a command may ask
# about a past job. Freeing must change nothing: the jobs CSV (starts,
# nodes, credentials, states) of a replay that frees is the same as that of
# the same replay keeping every record, under EASY, the throttling page's
# limits, fairshare, and a Maui workload trace with accounts and classes.
# The memory figures themselves are make bench's (bench/run.sh).
. tests/integration/lib.sh

KTH=data/KTH-SP2-1996-2.1-cln.norm.swf.gz
gzip -dc "$KTH" | awk '/^;/ || n++ < 6000' >"$TMP/kth.swf"
printf 'BACKFILLPOLICY FIRSTFIT\nRESERVATIONDEPTH[0] 1\n' >"$TMP/easy.cfg"
printf 'USERCFG[DEFAULT] MAXIJOB=8 MAXJOB=72 MAXPS=72000,1080000\n' >"$TMP/throttle.cfg"
printf 'FSPOLICY DEDICATEDPS\nFSINTERVAL 12:00:00\nFSDEPTH 4\nFSWEIGHT 10\nFSUSERWEIGHT 1\nUSERCFG[DEFAULT] FSTARGET=5\n' \
    >"$TMP/fs.cfg"

# kept NAME CFG TRACE [ARGS]: the CSV of a replay that frees what ended
# equals the CSV of the same replay keeping every job (a timed command that
# changes nothing).
kept() {
    name=$1 cfg=$2 trace=$3
    shift 3
    "$MOKU" simulate --config "$cfg" --jobs-out "$TMP/free.csv" \
        "$@" "$trace" >"$TMP/free.out" 2>"$TMP/free.err"
    rc1=$?
    "$MOKU" simulate --config "$cfg" --jobs-out "$TMP/keep.csv" \
        --commands "$TMP/noop.cmds" --quiet "$@" "$trace" >"$TMP/keep.out" 2>"$TMP/keep.err"
    rc2=$?
    if [ $rc1 -eq 0 ] && [ $rc2 -eq 0 ] && [ -s "$TMP/free.csv" ] && cmp -s "$TMP/free.csv" "$TMP/keep.csv"; then
        ok "$name: freeing ended jobs changes no row of the jobs CSV"
    else
        fail "$name: freeing ended jobs changes no row of the jobs CSV (exit $rc1/$rc2)"
        diff "$TMP/free.csv" "$TMP/keep.csv" | head -5
        cat "$TMP/free.err" "$TMP/keep.err"
    fi
}

# At the first submission: the command adds no iteration of its own.
awk '!/^;/ { print $2, "showq"; exit }' "$TMP/kth.swf" >"$TMP/noop.cmds"
kept "KTH EASY" "$TMP/easy.cfg" "$TMP/kth.swf"
kept "KTH throttling page" "$TMP/throttle.cfg" "$TMP/kth.swf"
kept "KTH fairshare" "$TMP/fs.cfg" "$TMP/kth.swf"
kept "KTH EASY, stopped mid-trace" "$TMP/easy.cfg" "$TMP/kth.swf" --until 3000000
kept "Maui workload trace, accounts" "$TMP/easy.cfg" tests/data/sim/accounts.wtrace --procs 16

# The report too: the JSON figures of a replay that frees are those of one
# that keeps every job.
"$MOKU" simulate --config "$TMP/throttle.cfg" --format json "$TMP/kth.swf" >"$TMP/a.json"
"$MOKU" simulate --config "$TMP/throttle.cfg" --format json --commands "$TMP/noop.cmds" --quiet \
    "$TMP/kth.swf" >"$TMP/b.json"
# (Timings aside: wall_seconds, read_seconds.)
untimed() { sed 's/,"wall_seconds":[0-9.]*//; s/,"read_seconds":[0-9.]*//' "$1"; }
untimed "$TMP/a.json" >"$TMP/a.untimed"
untimed "$TMP/b.json" >"$TMP/b.untimed"
check "throttling page: the same report with and without records kept" \
    sh -c "[ -s '$TMP/a.json' ] && grep -q '\"jobs\":' '$TMP/a.untimed' && cmp -s '$TMP/a.untimed' '$TMP/b.untimed'"

# A queue that never drains keeps a bounded eligibility set: HPC2N's first
# 8,000 jobs under a per-group MAXJOB of 4 leave thousands waiting for
# months, and each walk files the stopped jobs again at the tail of their
# component. The component's slots passed at its head were never reclaimed
# (only holes inside were), so its array and its segment tree grew with
# every job ever filed: 465 MB of peak RSS here, 8 GB and out of memory on
# 30,000 jobs. Now about 10 MB (the bound leaves room for ASan's shadow).
HPC2N=data/HPC2N-2002-2.1-cln.norm.swf.gz
gzip -dc "$HPC2N" | awk '/^;/ || n++ < 8000' >"$TMP/h8k.swf"
printf 'GROUPCFG[DEFAULT] MAXJOB=4\n' >"$TMP/gmaxjob.cfg"
rss=$(python3 -c '
import resource, subprocess, sys
rc = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss if rc == 0 else -1)
' "$MOKU" simulate --config "$TMP/gmaxjob.cfg" --format json "$TMP/h8k.swf")
echo "# peak RSS ${rss} KB"
check "a queue that never drains: peak memory bounded by the queue, not by the walks (${rss} KB < 150 MB)" \
    sh -c "[ '$rss' -gt 0 ] && [ '$rss' -lt 153600 ]"
done_checks
