#!/bin/sh
# make slowcheck: the throttling page's policy (USERCFG[DEFAULT] MAXIJOB=8
# MAXJOB=72 MAXPS=72000,1080000) on the whole of KTH and HPC2N, moku's
# eligibility compared at every iteration with the slow model of the limits
# (tests/tools/slowlim.c). Exit 1 at the first trace with a difference.
set -e
SLOWLIM=${1:-build/tests/slowlim}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'USERCFG[DEFAULT] MAXIJOB=8 MAXJOB=72 MAXPS=72000,1080000\n' >"$tmp/page.cfg"
for t in data/KTH-SP2-1996-2.1-cln.norm.swf.gz data/HPC2N-2002-2.1-cln.norm.swf.gz; do
    [ -f "$t" ] || { echo "slowcheck: no $t (it is part of the checkout)"; exit 1; }
    gzip -dc "$t" >"$tmp/trace.swf"
    printf '%s: ' "$(basename "$t" .norm.swf.gz)"
    "$SLOWLIM" "$tmp/page.cfg" "$tmp/trace.swf"
done
