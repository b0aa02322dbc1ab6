#!/bin/sh
# Issue 31's fast paths, held to the schedules they were measured against:
# the iteration scan's may_fit and wait_run (policy/iter.c) and the batch
# priorities' common path (prio_batch_start) under a dynamic priority
# (fairshare, expansion factor, fairshare caps); eset's run-down of active
# usage (cross_moved, eset_run_down) under the throttling page, also with
# jobs that overrun their walltime; the walk's priority memo and
# eset_all_pass under GROUPCFG MAXJOB=4, also with class priorities (the
# memo's key); the wake-up of a queue time restarted after the starts
# (rank_holds, order_stale) under a cap. Each replay's schedule (every
# job's start, end, state and nodes, digested) is the one
# tests/data/fastpath/expect records, written by main at f908217, whose
# schedules each path's merge had compared job for job with the binary
# before it. A schedule that moves for a reason (a fix) is written again
# with FASTPATH_REGEN=1, and the commit says why. Mutants tried (att31r):
# may_fit learning a refused job as 1 s long, eset_run_down not taking a
# stopped job's request off (eset.sh too), cross_moved counting from now
# (kth-overrun), the walk's priority memo without its class key
# (kth-groupclass), a stale batch part taken as current (t_prio too) fail
# here; rank_holds always holding, or order_moves ignoring order_stale,
# fails property.sh's saved case cap-restart-rank. Caught by nothing:
# wait_run noting a reserved job as it notes the others; prio_batch_start's
# fast path taking QSTOPped jobs (queue_seconds reads JOB_QSTOP: the same
# value); eset_all_pass under an idle limit (every job still goes through
# admit: only eset_skip and the cut are left out).
. tests/integration/lib.sh

E=tests/data/fastpath/expect
HPC2N=data/HPC2N-2002-2.1-cln.norm.swf.gz
KTH=data/KTH-SP2-1996-2.1-cln.norm.swf.gz
SDSC=data/SDSC-BLUE-2000-4.2-cln.norm.swf.gz

conf() { printf "$2" "$TMP" >"$TMP/$1.cfg"; }
FS='FSPOLICY DEDICATEDPS\nFSINTERVAL 12:00:00\nFSDEPTH 8\nFSDECAY 0.8\nFSWEIGHT 10\nFSUSERWEIGHT 1\n'
conf fairshare "${FS}FSGROUPWEIGHT 1\nUSERCFG[DEFAULT] FSTARGET=5\nSTATDIR %s/none\n"
conf fscap "${FS}USERCFG[DEFAULT] FSTARGET=20%%\nSTATDIR %s/none\n"
conf xfactor 'XFACTORWEIGHT 10\nQUEUETIMEWEIGHT 1\n'
conf throttle 'USERCFG[DEFAULT] MAXIJOB=8 MAXJOB=72 MAXPS=72000,1080000\n'
conf mixed "${FS}FSGROUPWEIGHT 1\nUSERCFG[DEFAULT] FSTARGET=5 MAXIJOB=3 MAXPS=500000\nRESERVATIONDEPTH[0] 3\nSTATDIR %s/none\n"
conf maxjob 'BACKFILLPOLICY FIRSTFIT\nRESERVATIONDEPTH[0] 1\nGROUPCFG[DEFAULT] MAXJOB=4\n'
conf maxijob 'BACKFILLPOLICY FIRSTFIT\nRESERVATIONDEPTH[0] 1\nGROUPCFG[DEFAULT] MAXJOB=4 MAXIJOB=2\n'
conf overrun 'USERCFG[DEFAULT] MAXIJOB=8 MAXJOB=72 MAXPS=72000,1080000\nJOBMAXOVERRUN 10:00:00\n'
conf highest "${FS}FSGROUPWEIGHT 1\nUSERCFG[DEFAULT] FSTARGET=5\nRESERVATIONPOLICY HIGHEST\nRESERVATIONDEPTH[0] 4\nSTATDIR %s/none\n"
conf groupclass 'GROUPCFG[DEFAULT] MAXJOB=4\nGROUPCFG[18] CLASSWEIGHT=10\nGROUPCFG[39] CLASSWEIGHT=10\nGROUPCFG[25] CLASSWEIGHT=10\nCLASSCFG[1] PRIORITY=1000\nCLASSCFG[3] PRIORITY=400\n'
conf classes 'CLASSWEIGHT 1\nCLASSCFG[1] PRIORITY=1000\nCLASSCFG[3] PRIORITY=400\nGROUPCFG[DEFAULT] MAXJOB=4\n'

# first N TRACE: the trace's first N jobs (0: all), in $TMP/t.swf; N+ with
# every third job's walltime cut to 0.6 of its runtime (overruns), Nc with
# the jobs' classes 1, 2, 3 in turn (a group's jobs of every class).
first() {
    gzip -dc "$2" | awk -v n="${1%[+c]}" -v how="${1#"${1%[+c]}"}" '/^;/ { print; next }
        n == 0 || k++ < n {
            if (how == "+" && k % 3 == 0 && $4 > 10) $9 = int($4 * 0.6)
            if (how == "c") $15 = 1 + k % 3
            print
        }' >"$TMP/t.swf"
}
# digest ARGS...: the replay's schedule, one line a job (job_id, start,
# end, state, nodes: found by the header's names), digested.
digest() {
    "$MOKU" simulate "$@" --quiet --jobs-out "$TMP/j.csv" "$TMP/t.swf" >"$TMP/out" 2>"$TMP/err" || return 1
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
             { print $c["job_id"], $c["start"], $c["end"], $c["state"], $c["nodes"] }' "$TMP/j.csv" |
        md5sum | cut -d' ' -f1
}
# record NAME DIGEST: DIGEST is NAME's in $E (FASTPATH_REGEN: written).
record() {
    if [ -n "$FASTPATH_REGEN" ]; then
        echo "$1 $2" >>"$TMP/expect"
        ok "$1: written ($2)"
        return
    fi
    want=$(sed -n "s/^$1 //p" "$E")
    if [ -n "$want" ] && [ "$2" = "$want" ]; then
        ok "$1: the schedule recorded ($want)"
    else
        fail "$1: the schedule recorded (${want:-none recorded}), not ${2:-a failed replay}"
        sed -n '1,3s/^/# /p' "$TMP/err"
    fi
}
# case NAME CFG JOBS TRACE [ARGS...]: the replay's digest is NAME's.
case_() {
    name=$1 cfg=$2
    first "$3" "$4"
    shift 4
    record "$name" "$(digest --config "$TMP/$cfg.cfg" "$@")"
}
# views NAME CFG T...: KTH's showq -i at each instant, and checkjob of each
# job it marks reserved (wait_run passes them by: they keep the wait the
# reservation gave them), digested: NAME's.
views() {
    name=$1 cfg=$2
    shift 2
    first 0 "$KTH"
    : >"$TMP/err"
    for t in "$@"; do
        "$MOKU" simulate --config "$TMP/$cfg.cfg" --until "$t" --show "showq -i" "$TMP/t.swf" >"$TMP/q" 2>"$TMP/err"
        set -- --until "$t"
        for j in $(awk '$1 ~ /^[0-9]+\*$/ { print substr($1, 1, length($1) - 1) }' "$TMP/q"); do
            set -- "$@" --show "checkjob $j"
        done
        cat "$TMP/q"
        "$MOKU" simulate --config "$TMP/$cfg.cfg" "$@" "$TMP/t.swf" 2>>"$TMP/err"
    done | md5sum | cut -d' ' -f1 >"$TMP/v"
    record "$name" "$(cat "$TMP/v")"
}

case_ hpc2n-fairshare fairshare 0 "$HPC2N"
case_ kth-fairshare fairshare 0 "$KTH"
case_ hpc2n-xfactor xfactor 0 "$HPC2N"
# Reservations kept from the last plan (HIGHEST): the jobs holding them
case_ kth-highest highest 0 "$KTH"
case_ kth-highest-every60 highest 0 "$KTH" --iterate-every 60
views kth-highest-views highest 2000000 5000000 9000000 16000000
case_ kth-fscap fscap 0 "$KTH"
case_ kth-fscap-every60 fscap 0 "$KTH" --iterate-every 60
case_ hpc2n-throttle throttle 0 "$HPC2N"
case_ kth-mixed mixed 0 "$KTH"
# Jobs past their walltime's end while they run (cross_moved: a rebuild)
case_ kth-overrun overrun 6000+ "$KTH"
case_ kth-overrun-full overrun 6000+ "$KTH" --full-walk
case_ hpc2n-maxjob4 maxjob 10000 "$HPC2N"
# ... with an idle limit too (eset_all_pass does not apply)
case_ hpc2n-maxijob maxijob 5000 "$HPC2N"
case_ hpc2n-maxijob-full maxijob 5000 "$HPC2N" --full-walk
case_ sdsc-classes classes 4000 "$SDSC"
case_ sdsc-classes-full classes 4000 "$SDSC" --full-walk
case_ kth-classes classes 6000c "$KTH"
case_ kth-classes-full classes 6000c "$KTH" --full-walk
# A group's CLASSWEIGHT keeps the order static (the eset walk and its
# memo, keyed on the class, serve it): KTH's three busiest groups
case_ kth-groupclass groupclass 6000c "$KTH"
case_ kth-groupclass-full groupclass 6000c "$KTH" --full-walk
[ -z "$FASTPATH_REGEN" ] || cp "$TMP/expect" "$E"
done_checks
