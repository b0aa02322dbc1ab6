#!/bin/sh
# make bench: replay traces under EASY (RESERVATIONDEPTH 1, FIRSTFIT) and
# FCFS and print, per run, jobs, jobs per second, wall time and peak memory.
# Replays the bundled traces (data/, from the Parallel Workloads Archive). A benchmark,
# not a test: it prints figures and judges nothing.
#
# Target (issue 2): HPC2N (202,876 jobs, 240 processors) under EASY in well
# under a second and under 200 MB on a 2-core machine. Issue 16: the
# throttling page's policy within 4x of plain EASY, and moku's whole process
# against a minimal EASY loop (MINI, bench/mini_easy.c), figures at the end.
set -e
RUNSTAT=build/runstat
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
    [ -f "data/$t.norm.swf.gz" ] && traces="$traces data/$t.norm.swf.gz"
done
[ -n "$traces" ] || traces=data/KTH-SP2-1996-2.1-cln.norm.swf.gz

printf '%-28s %-8s %9s %12s %10s %10s %8s\n' trace policy jobs jobs/s wall_s sched_s peak_MB
# Replays are hermetic (no FS files read or written unless asked): runs
# cannot see each other's fairshare usage.
bench_one() {
    "$RUNSTAT" bin/moku simulate ${FULL:-} --config "$tmp/$2.cfg" \
        --format json "$1" >"$tmp/out" 2>"$tmp/err"
    jobs=$(sed 's/^{"jobs":\([0-9]*\).*/\1/' "$tmp/out")
    sched=$(sed 's/.*"wall_seconds":\([0-9.]*\).*/\1/' "$tmp/out")
    wall=$(sed -n 's/.*wall_seconds=\([0-9.]*\).*/\1/p' "$tmp/err")
    kb=$(sed -n 's/.*peak_rss_kb=\([0-9]*\).*/\1/p' "$tmp/err")
    awk -v t="$(basename "$1" .norm.swf.gz)" -v p="$2" -v j="$jobs" -v w="$wall" -v s="$sched" -v kb="$kb" \
        'BEGIN { printf "%-28s %-8s %9d %12.0f %10.3f %10.3f %8.1f\n", t, p, j, j / w, w, s, kb / 1024 }'
}
# The wall time of one run of a command (runstat's figure).
wall_of() {
    "$RUNSTAT" "$@" >/dev/null 2>"$tmp/werr"
    sed -n 's/.*wall_seconds=\([0-9.]*\).*/\1/p' "$tmp/werr"
}
# The lesser of two figures, the first possibly empty.
least() {
    awk -v a="$1" -v b="$2" 'BEGIN { print (a == "" || b + 0 < a + 0) ? b : a }'
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
# Fairshare with caps: jobs blocked while their credential would pass its cap.
printf 'FSPOLICY DEDICATEDPS\nFSINTERVAL 12:00:00\nFSDEPTH 8\nFSDECAY 0.8\nFSWEIGHT 10\nFSUSERWEIGHT 1\nUSERCFG[DEFAULT] FSTARGET=20%%\nSTATDIR %s/stats\n' "$tmp" >"$tmp/fscap.cfg"
# The seed documents' throttling policy page (issue 16); "throttle-full"
# walks the whole queue at every iteration, as Maui does (--full-walk).
printf 'USERCFG[DEFAULT] MAXIJOB=8 MAXJOB=72 MAXPS=72000,1080000\n' >"$tmp/throttle.cfg"
cp "$tmp/throttle.cfg" "$tmp/throttle-full.cfg"
for t in $traces; do
    case "$t" in *KTH* | *HPC2N* | *Curie*) bench_one "$t" fairshare ;; esac
    case "$t" in *KTH* | *HPC2N*) bench_one "$t" fscap; bench_one "$t" throttle ;; esac
    case "$t" in *KTH*) FULL=--full-walk bench_one "$t" throttle-full ;; esac
done
echo "wall_s: whole process (read, replay, report); sched_s: the replay alone; peak_MB: max RSS"

# Issue 16: HPC2N under EASY, moku's whole process against a minimal textbook
# EASY loop on a processor pool (bench/mini_easy.c) in the same run; how the
# replay grows with the trace (its first 25 %, 50 %, 100 %); and the
# throttling page against plain EASY on the same trace.
H=data/HPC2N-2002-2.1-cln.norm.swf.gz
if [ -f "$H" ] && [ -n "$MINI" ]; then
    bench_one "$H" easy >"$tmp/line"
    cat "$tmp/line"
    set -- $(cat "$tmp/line")
    easy_wall=$5 easy_sched=$6 easy_mb=$7
    easy_read=$(sed 's/.*"read_seconds":\([0-9.]*\).*/\1/' "$tmp/out")
    "$RUNSTAT" "$MINI" 240 "$H" >"$tmp/mini" 2>"$tmp/minierr"
    mini_wall=$(sed -n 's/.*wall_seconds=\([0-9.]*\).*/\1/p' "$tmp/minierr")
    awk -v w="$easy_wall" -v s="$easy_sched" -v r="$easy_read" -v mb="$easy_mb" -v m="$mini_wall" -v ml="$(cat "$tmp/mini")" 'BEGIN {
        printf "HPC2N EASY: moku whole %.3f s (reading the trace %.3f s and the replay %.3f s, at once when streamed; peak %.1f MB); %s, whole %.3f s: ratio %.2f\n",
            w, r, s, mb, ml, m, w / m }'
    # Issue 31's ratios, each the least of 5 rounds that alternate the
    # runs compared: a single run on a shared 2-core machine swings by a
    # fifth, and the least of several is the run the machine disturbed
    # least. The jobs CSV is removed before each run (rewriting a file
    # costs an fsync that a fresh one does not).
    best_mini= best_easy= best_jobs= best_thr= best_fs=
    for round in 1 2 3 4 5; do
        w=$(wall_of "$MINI" 240 "$H"); best_mini=$(least "$best_mini" "$w")
        w=$(wall_of bin/moku simulate --config "$tmp/easy.cfg" --format json "$H"); best_easy=$(least "$best_easy" "$w")
        rm -f "$tmp/hpc2n.csv"
        w=$(wall_of bin/moku simulate --config "$tmp/easy.cfg" --jobs-out "$tmp/hpc2n.csv" --format json "$H")
        best_jobs=$(least "$best_jobs" "$w")
        w=$(wall_of bin/moku simulate --config "$tmp/throttle.cfg" --format json "$H"); best_thr=$(least "$best_thr" "$w")
        w=$(wall_of bin/moku simulate --config "$tmp/fairshare.cfg" --format json "$H"); best_fs=$(least "$best_fs" "$w")
    done
    rm -f "$tmp/hpc2n.csv"
    awk -v j="$best_jobs" -v e="$best_easy" -v m="$best_mini" -v t="$best_thr" -v f="$best_fs" 'BEGIN {
        printf "HPC2N least of 5 alternated rounds: mini_easy %.3f s, moku EASY %.3f s (%.2fx)\n", m, e, e / m
        printf "HPC2N EASY with --jobs-out: moku whole %.3f s, least of 5; mini_easy %.3f s: ratio %.2f (target <= 1.0x)\n", j, m, j / m
        printf "HPC2N throttling page: whole %.3f s, least of 5: %.2fx plain EASY (%.3f s; target <= 4x)\n", t, t / e, e
        printf "HPC2N fairshare: whole %.3f s, least of 5: %.2fx plain EASY (%.3f s; target <= 2x)\n", f, f / e, e }'
    gzip -dc "$H" >"$tmp/h.swf"
    total=$(grep -vc '^;' "$tmp/h.swf")
    for pct in 25 50 100; do
        awk -v n=$((total * pct / 100)) '/^;/ || k++ < n' "$tmp/h.swf" >"$tmp/hpc2n-$pct.swf"
        bench_one "$tmp/hpc2n-$pct.swf" easy >"$tmp/line"
        set -- $(cat "$tmp/line")
        printf 'HPC2N first %3d%%: %6d jobs, replay %.3f s, %.2f us a job\n' "$pct" "$3" "$6" \
            "$(awk -v s="$6" -v j="$3" 'BEGIN { print 1e6 * s / j }')"
    done
    # Issue 31: GROUPCFG[DEFAULT] MAXJOB=4 under EASY on HPC2N's first 10,000
    # jobs (a few groups submit most jobs and run four at a time: each start
    # or end of one touches all its waiting jobs; docs/simulation.md).
    printf 'BACKFILLPOLICY FIRSTFIT\nRESERVATIONDEPTH[0] 1\nGROUPCFG[DEFAULT] MAXJOB=4\n' >"$tmp/maxjob.cfg"
    awk '/^;/ || k++ < 10000' "$tmp/h.swf" >"$tmp/hpc2n-10k.swf"
    bench_one "$tmp/hpc2n-10k.swf" maxjob >"$tmp/line"
    set -- $(cat "$tmp/line")
    printf 'HPC2N first 10,000 jobs, GROUPCFG[DEFAULT] MAXJOB=4: whole %.3f s, replay %.3f s\n' "$5" "$6"
fi
# Issue 31: CEA-Curie under EASY on its 93,312 processors as one-processor
# nodes, moku's whole process writing the jobs CSV, against the minimal loop
# placing jobs on as many one-processor nodes (mini_easy --nodes). Both
# must find the same schedule: the mean waits are compared. Ratios of wall
# time and of CPU time (the machine may be shared).
C=data/CEA-Curie-2011-2.1-cln.norm.swf.gz
if [ -f "$C" ] && [ -n "$MINI" ]; then
    "$RUNSTAT" bin/moku simulate --procs 93312 --config "$tmp/easy.cfg" --jobs-out "$tmp/curie.csv" \
        --format json "$C" >"$tmp/out" 2>"$tmp/err"
    "$RUNSTAT" "$MINI" --nodes 93312 "$C" >"$tmp/mini" 2>"$tmp/minierr"
    rm -f "$tmp/curie.csv"
    awk -v o="$(cat "$tmp/out")" -v e="$(cat "$tmp/err")" -v m="$(cat "$tmp/mini")" -v me="$(cat "$tmp/minierr")" '
        function tail(s, key) { match(s, key "[\":=]*"); return substr(s, RSTART + RLENGTH) + 0 }
        BEGIN {
            w = tail(e, "wall_seconds"); c = tail(e, "cpu_seconds"); r = tail(o, "read_seconds")
            s = tail(o, "\"wall_seconds"); mb = tail(e, "peak_rss_kb") / 1024
            mw = tail(me, "wall_seconds"); mc = tail(me, "cpu_seconds")
            wait = tail(o, "avg_wait"); mwait = tail(m, "mean wait")
            printf "Curie EASY (--procs 93312, --jobs-out): moku whole %.3f s (cpu %.3f s; reading %.3f s, replay %.3f s; peak %.1f MB); %s, whole %.3f s (cpu %.3f s): ratio %.2f (cpu %.2f; target <= 1.5x)\n",
                w, c, r, s, mb, m, mw, mc, w / mw, c / mc
            if (sprintf("%.1f", wait) != sprintf("%.1f", mwait))
                printf "Curie EASY: SCHEDULES DIFFER: moku mean wait %.3f s, mini_easy %.1f s\n", wait, mwait
        }'
fi
