#!/bin/sh
# make bench: replay traces under EASY (RESERVATIONDEPTH 1, FIRSTFIT) and
# FCFS and print, per run, jobs, jobs per second, wall time and peak memory.
# Uses ../shared/traces when present, else the bundled KTH trace. A benchmark,
# not a test: it prints figures and judges nothing.
#
# Target (issue 2): HPC2N (202,876 jobs, 240 processors) under EASY in well
# under a second and under 200 MB on a 2-core machine.
set -e
RUNSTAT=build/runstat
SHARED=${SHARED:-../shared}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'BACKFILLPOLICY FIRSTFIT\nRESERVATIONDEPTH[0] 1\n' >"$tmp/easy.cfg"
printf 'BACKFILLPOLICY NONE\n' >"$tmp/fcfs.cfg"
printf 'BACKFILLPOLICY FIRSTFIT\nRESERVATIONDEPTH[0] 1000000\n' >"$tmp/cons.cfg"
printf 'USERCFG[DEFAULT] MAXIJOB=2 MAXJOB=1,2\n' >"$tmp/limits.cfg"
printf 'XFACTORWEIGHT 10\nQUEUETIMEWEIGHT 1\n' >"$tmp/xfactor.cfg"
# Fairshare: usage accrual, windows closing, FS files written, deltas in a
# priority re-sorted every iteration (FS data files go to a scratch STATDIR).
printf 'FSPOLICY DEDICATEDPS\nFSINTERVAL 12:00:00\nFSDEPTH 8\nFSDECAY 0.8\nFSWEIGHT 10\nFSUSERWEIGHT 1\nFSGROUPWEIGHT 1\nUSERCFG[DEFAULT] FSTARGET=5\nSTATDIR %s/stats\n' "$tmp" >"$tmp/fairshare.cfg"

traces=""
for t in HPC2N-2002-2.1-cln KTH-SP2-1996-2.1-cln NASA-iPSC-1993-3.1-cln \
    LLNL-Thunder-2007-1.1-cln SDSC-BLUE-2000-4.2-cln CEA-Curie-2011-2.1-cln; do
    [ -f "$SHARED/traces/$t.norm.swf.gz" ] && traces="$traces $SHARED/traces/$t.norm.swf.gz"
done
[ -n "$traces" ] || traces=data/KTH-SP2-1996-2.1-cln.norm.swf.gz

printf '%-28s %-8s %9s %12s %10s %10s %8s\n' trace policy jobs jobs/s wall_s sched_s peak_MB
bench_one() {
    "$RUNSTAT" bin/moku simulate --config "$tmp/$2.cfg" --format json "$1" >"$tmp/out" 2>"$tmp/err"
    jobs=$(sed 's/.*"jobs":\([0-9]*\).*/\1/' "$tmp/out")
    sched=$(sed 's/.*"wall_seconds":\([0-9.]*\).*/\1/' "$tmp/out")
    wall=$(sed -n 's/.*wall_seconds=\([0-9.]*\).*/\1/p' "$tmp/err")
    kb=$(sed -n 's/.*peak_rss_kb=\([0-9]*\).*/\1/p' "$tmp/err")
    awk -v t="$(basename "$1" .norm.swf.gz)" -v p="$2" -v j="$jobs" -v w="$wall" -v s="$sched" -v kb="$kb" \
        'BEGIN { printf "%-28s %-8s %9d %12.0f %10.3f %10.3f %8.1f\n", t, p, j, j / w, w, s, kb / 1024 }'
}
for t in $traces; do
    for pol in easy fcfs; do
        bench_one "$t" "$pol"
    done
done
# Conservative backfilling (a reservation for every waiting job), throttling
# limits (eligibility re-walked every iteration) and a dynamic priority
# (re-sorted every iteration) on the smaller traces.
for t in $traces; do
    case "$t" in *KTH* | *NASA*) for pol in cons limits xfactor; do bench_one "$t" $pol; done ;; esac
done
# Conservative backfilling on HPC2N (issue 8), and the other backfill
# policies on KTH.
printf 'BACKFILLPOLICY BESTFIT\nRESERVATIONDEPTH[0] 1\n' >"$tmp/bestfit.cfg"
printf 'BACKFILLPOLICY GREEDY\nRESERVATIONDEPTH[0] 1\n' >"$tmp/greedy.cfg"
printf 'BACKFILLPOLICY PREEMPT\n' >"$tmp/preempt.cfg"
for t in $traces; do
    case "$t" in *HPC2N*) bench_one "$t" cons ;; esac
    case "$t" in *KTH*) for pol in bestfit greedy preempt; do bench_one "$t" $pol; done ;; esac
done
for t in $traces; do
    case "$t" in *KTH* | *HPC2N* | *Curie*) bench_one "$t" fairshare ;; esac
done
echo "wall_s: whole process (read, replay, report); sched_s: the replay alone; peak_MB: max RSS"
