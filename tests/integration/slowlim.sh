#!/bin/sh
# Throttling limits against an independent, slow implementation of them
# (issue 16, tests/tools/slowlim.c): at every iteration of a replay, which
# waiting jobs the limits admit at the hard walk, at the soft walk after the
# starts, and that every start was admitted, worked out from scratch and
# compared job for job with moku's engine (incremental by credential where
# the limits allow it, the whole queue otherwise).
#
# The throttling page's policy (USERCFG[DEFAULT] MAXIJOB=8 MAXJOB=72
# MAXPS=72000,1080000) on the whole bundled KTH trace and on the first
# 20,000 jobs of the bundled HPC2N; variations: tighter limits,
# group and class limits, a named user's override, two kinds at once (the
# whole-queue walk), queue time that always accrues. make slowcheck runs the
# page's policy on the whole of HPC2N.
. tests/integration/lib.sh

SLOWLIM=${SLOWLIM:-build/tests/slowlim}
KTH=data/KTH-SP2-1996-2.1-cln.norm.swf.gz
gzip -dc "$KTH" >"$TMP/kth.swf"
PAGE='USERCFG[DEFAULT] MAXIJOB=8 MAXJOB=72 MAXPS=72000,1080000'

# agrees NAME TRACE CFG-LINES...: no difference at any iteration. The runs
# go two at a time (two cores, one each); verdicts, after them, says how
# each went, in order.
k=0
agrees() {
    k=$((k + 1))
    name=$1 trace=$2
    shift 2
    printf '%s\n' "$@" >"$TMP/slow$k.cfg"
    echo "$name" >"$TMP/slow$k.name"
    (
        "$SLOWLIM" "$TMP/slow$k.cfg" "$trace" >"$TMP/slow$k.out" 2>"$TMP/slow$k.err"
        echo $? >"$TMP/slow$k.rc"
    ) &
    [ $((k % 2)) -ne 0 ] || wait
}
verdicts() {
    wait
    i=1
    while [ $i -le $k ]; do
        name=$(cat "$TMP/slow$i.name") rc=$(cat "$TMP/slow$i.rc")
        if [ "$rc" -eq 0 ] && grep -q ' 0 differences$' "$TMP/slow$i.out" && ! grep -q ' 0 waiting jobs compared' "$TMP/slow$i.out"; then
            ok "$name: moku's eligibility is the slow model's at every iteration ($(sed 's/^slowlim: //' "$TMP/slow$i.out"))"
        else
            fail "$name: moku's eligibility is the slow model's at every iteration (exit $rc)"
            cat "$TMP/slow$i.out" "$TMP/slow$i.err"
        fi
        i=$((i + 1))
    done
}

agrees "KTH, the throttling page" "$TMP/kth.swf" "$PAGE"
agrees "KTH, MAXIJOB=2 MAXJOB=1,2" "$TMP/kth.swf" 'USERCFG[DEFAULT] MAXIJOB=2 MAXJOB=1,2'
agrees "KTH, group limits" "$TMP/kth.swf" 'GROUPCFG[DEFAULT] MAXIJOB=4 MAXJOB=16 MAXPS=200000,2000000'
agrees "KTH, class limits with processors" "$TMP/kth.swf" 'CLASSCFG[DEFAULT] MAXIJOB=6 MAXPROC=40,80 MAXIPROC=64'
agrees "KTH, a named user lifted" "$TMP/kth.swf" "$PAGE" 'USERCFG[129] MAXIJOB=-1 MAXPS=-1 MAXJOB=100'
agrees "KTH, user and group limits (the whole-queue walk)" "$TMP/kth.swf" "$PAGE" \
    'GROUPCFG[DEFAULT] MAXIJOB=12 MAXPS=500000'
agrees "KTH, queue time always accrues" "$TMP/kth.swf" "$PAGE" 'JOBPRIOACCRUALPOLICY ALWAYS'
agrees "KTH, soft halves of 0 (0,N is N,N)" "$TMP/kth.swf" 'USERCFG[DEFAULT] MAXJOB=0,3 MAXIJOB=3' \
    'USERCFG[18] MAXIJOB=0,1'

H=data/HPC2N-2002-2.1-cln.norm.swf.gz
if [ -f "$H" ]; then
    gzip -dc "$H" | awk '/^;/ || n++ < 20000' >"$TMP/hpc2n.swf"
    agrees "HPC2N first 20,000 jobs, the throttling page" "$TMP/hpc2n.swf" "$PAGE"
else
    fail "no $H (it is part of the checkout)"
fi
verdicts

# The comparison can fail: with the model's MAXIJOB one higher than moku's,
# it finds differences and says so.
printf '%s\n' "$PAGE" >"$TMP/slow.cfg"
awk '/^;/ || n++ < 4000' "$TMP/kth.swf" >"$TMP/kth4k.swf"
"$SLOWLIM" --skew 1 "$TMP/slow.cfg" "$TMP/kth4k.swf" >"$TMP/slow.out" 2>"$TMP/slow.err"
rc=$?
check "a model one job off (--skew 1): differences found, exit 1" \
    sh -c "[ $rc -eq 1 ] && ! grep -q ' 0 differences' '$TMP/slow.out' && grep -q 'here, not in moku' '$TMP/slow.err'"
printf 'XFACTORWEIGHT 10\n' >"$TMP/slow.cfg"
"$SLOWLIM" "$TMP/slow.cfg" "$TMP/kth4k.swf" >"$TMP/slow.out" 2>"$TMP/slow.err"
rc=$?
check "a parameter the model does not cover: refused, exit 2, file:line" \
    sh -c "[ $rc -eq 2 ] && grep -q 'slow.cfg:1: a parameter slowlim does not model' '$TMP/slow.err'"
done_checks
