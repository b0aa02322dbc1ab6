#!/bin/sh
# moku simulate's publishable outputs (issue 17): percentiles and per-user
# figures in the JSON report, --series (the time series as CSV), --swf-out
# (the schedule as SWF, read back), --batsim-out (Batsim's jobs.csv) and
# --html (one self-contained page); each option's errors. Small traces and
# the bundled KTH trace (a tenth of a second a replay).
. tests/integration/lib.sh
d=tests/data/compare
small=$d/small.swf
easy=$d/easy.cfg
fcfs=$d/fcfs.cfg
kth=data/KTH-SP2-1996-2.1-cln.norm.swf.gz
if command -v python3 >/dev/null 2>&1; then py=python3; else py=; skip "python3 absent: JSON, XML and HTML not parsed"; fi
# jkey FILE KEY: the first number after "KEY": in a JSON file.
jkey() { grep -o "\"$2\":[-0-9.e+]*" "$1" | head -n 1 | cut -d: -f2; }
# A JSON report without its timings.
untimed() { sed 's/,"wall_seconds":[0-9.]*//; s/,"read_seconds":[0-9.]*//' "$1"; }

# ------------------------------------------------ percentiles, per user
run simulate --config "$easy" --format json "$small"
check "json: percentiles of wait, bsld and turnaround (nearest rank)" has_out \
    '"percentiles":{"wait":{"p50":0,"p95":90,"p99":90},"bsld":{"p50":1,"p95":1.025,"p99":1.025},"turnaround":{"p50":3690,"p95":90000,"p99":90000}}'
check "json: users by processor-seconds, with share and averages" has_out \
    '"by_user":\[{"name":"2","jobs":2,"proc_seconds":104400,"share":0.719851,"avg_wait":45.000,"avg_bsld":1.012500},{"name":"1","jobs":2,'
check "json: classes" has_out '"by_class":\[{"name":"1","jobs":5,"proc_seconds":145030,"share":1.000000,'
run simulate --config "$easy" "$small"
check "text: percentile lines" sh -c "grep -q '^  wait p50/p95/p99     0 / 90 / 90 s\$' $TMP/out && grep -q '^  bsld p50/p95/p99     1.000 / 1.025 / 1.025\$' $TMP/out"
run simulate --config "$easy" --classes "$small"
check "--classes text: top users and classes" sh -c "grep -q '^  by user (top 10 by processor-seconds)' $TMP/out && grep -Eq '^    2 +2 +45.0 +1.01[23]\$' $TMP/out && grep -q '^  by class' $TMP/out"
run simulate --format json "$kth"
cp "$TMP/out" "$TMP/kth.json"
if [ -n "$py" ]; then
    check "json (KTH): percentiles ordered, groups add up (python3)" $py -c '
import json, sys
r = json.load(open(sys.argv[1]))
for d in ("wait", "bsld", "turnaround"):
    p = r["percentiles"][d]
    assert p["p50"] <= p["p95"] <= p["p99"], (d, p)
assert r["percentiles"]["wait"]["p99"] <= r["max_wait"]
assert r["percentiles"]["bsld"]["p50"] >= 1
for k in ("by_user", "by_class"):
    assert sum(g["jobs"] for g in r[k]) == r["jobs"]
    assert abs(sum(g["share"] for g in r[k]) - 1) < 1e-3
    ps = [g["proc_seconds"] for g in r[k]]
    assert ps == sorted(ps, reverse=True)
# the jobs weighted by user give the average wait back
w = sum(g["avg_wait"] * g["jobs"] for g in r["by_user"]) / r["jobs"]
assert abs(w - r["avg_wait"]) < 0.01, (w, r["avg_wait"])
' "$TMP/kth.json"
fi

# ------------------------------------------------------------ --series
run simulate --format json --series "$TMP/s.csv" "$kth"
untimed "$TMP/out" >"$TMP/a"
untimed "$TMP/kth.json" >"$TMP/b"
check "--series: exit 0, the report unchanged" sh -c "[ $rc -eq 0 ] && cmp -s $TMP/a $TMP/b"
check "--series: the header" sh -c "head -n 1 $TMP/s.csv | grep -qx 'time,width,covered,utilization,busy_procs,up_procs,queued,running'"
check "--series: about a thousand rows, times increasing by the width" \
    awk -F, 'NR > 1 { if (NR > 2 && $1 != prev + $2) bad = 1; prev = $1; n++ } END { exit !(!bad && n >= 500 && n <= 4096) }' "$TMP/s.csv"
util=$(jkey "$TMP/out" utilization)
check "--series: its utilization, time-weighted, is the report's ($util)" \
    awk -F, -v u="$util" 'NR > 1 { b += $5 * $3; p += $6 * $3 } END { d = b / p - u; exit !(d < 1e-4 && d > -1e-4) }' "$TMP/s.csv"
check "--series: queued and running never negative, utilization within 0..1" \
    awk -F, 'NR > 1 && ($4 < 0 || $4 > 1 || $7 < 0 || $8 < 0) { bad = 1 } END { exit bad }' "$TMP/s.csv"
run simulate --config "$easy" --config "$fcfs" --series "$TMP/s2.csv" "$small"
check "--series, two runs: a leading run column, rows of both" sh -c "[ $rc -eq 0 ] && head -n 1 $TMP/s2.csv | grep -q '^run,time,' && grep -q '^1,' $TMP/s2.csv && grep -q '^2,' $TMP/s2.csv"

# ----------------------------------------------------------- --swf-out
run simulate --config "$easy" --format json --jobs-out "$TMP/j.csv" --swf-out "$TMP/o.swf" "$small"
check "--swf-out: exit 0" [ "$rc" -eq 0 ]
check "--swf-out: header comments (version, cluster, provenance)" sh -c "grep -q '^; Version: 2.2\$' $TMP/o.swf && grep -q '^; MaxProcs: 8\$' $TMP/o.swf && grep -q '^; MaxNodes: 8\$' $TMP/o.swf && grep -q '^; Conversion: moku simulate --swf-out, from $small\$' $TMP/o.swf"
check "--swf-out: a line of 18 fields per record" \
    awk '!/^;/ { n++; if (NF != 18) bad = 1 } END { exit !(n == 7 && !bad) }' "$TMP/o.swf"
check "--swf-out: waits are the simulated ones (job 2 waits 90, job 4 70)" sh -c "grep -q '^2 10 90 3600 4 ' $TMP/o.swf && grep -q '^4 30 70 20000 2 ' $TMP/o.swf"
check "--swf-out: the rejected job did not run (-1, status 5), the skipped record kept" sh -c "grep -q '^6 50 -1 -1 -1 -1 -1 16 10 -1 5 ' $TMP/o.swf && grep -q '^7 60 -1 -1 1 ' $TMP/o.swf"
check "--swf-out: wait = the jobs CSV's start - submit for every job" \
    awk 'NR == FNR { if (FNR > 1 && $3 != "") w[$1] = $3 - $2; next } !/^;/ && ($1 in w) { n++; if ($3 != w[$1]) bad = 1 } END { exit !(n == 5 && !bad) }' FS=, "$TMP/j.csv" FS=' ' "$TMP/o.swf"
cp "$TMP/out" "$TMP/first.json"
run simulate --config "$easy" --format json "$TMP/o.swf"
# (the rejected job did not run: its record comes back skipped, run time -1)
untimed "$TMP/out" | sed 's/"skipped":[0-9]*,"rejected":[0-9]*,//' >"$TMP/a"
untimed "$TMP/first.json" | sed 's/"skipped":[0-9]*,"rejected":[0-9]*,//' >"$TMP/b"
check "--swf-out: moku replays it, the same report" sh -c "[ $rc -eq 0 ] && cmp -s $TMP/a $TMP/b && grep -q '\"skipped\":2,\"rejected\":0,' $TMP/out"
run simulate --format json --swf-out "$TMP/kth.swf" "$kth"
untimed "$TMP/out" >"$TMP/a"
run simulate --strict --format json "$TMP/kth.swf"
untimed "$TMP/out" >"$TMP/b"
check "--swf-out (KTH): read back with --strict, the same schedule" sh -c "[ $rc -eq 0 ] && cmp -s $TMP/a $TMP/b"
check "--swf-out (KTH): the trace's epoch and zone kept" sh -c "grep -q '^; UnixStartTime: 843480031\$' $TMP/kth.swf && grep -q '^; TimeZoneString: Europe/Stockholm\$' $TMP/kth.swf"

# A Maui workload trace: jobs and names numbered, the names in the header,
# a hostile user name among them (for the HTML below).
cat >"$TMP/w.trace" <<'TRACE'
VERSION 230
j1 1 2 <script>alert(1)</script> staff 1000 Completed [batch:1] 100 100 100 600 [NONE] [NONE] [NONE] >= 0 >= 0 [NONE] 100 2 -1 [NONE] [NONE] proj [NONE] [NONE] 0 0.0 [NONE] 1 0 0 0 0 0 [NONE] [NONE] [NONE] [NONE] [NONE] [NONE] [NONE]
j2 1 5 bob&co staff 2000 Completed [batch:1] 200 300 300 1300 [NONE] [NONE] [NONE] >= 0 >= 0 [NONE] 200 4 -1 [NONE] [NONE] proj [NONE] [NONE] 0 0.0 [NONE] 1 0 0 0 0 0 [NONE] [NONE] [NONE] [NONE] [NONE] [NONE] [NONE]
TRACE
run simulate --procs 6 --format json --swf-out "$TMP/w.swf" "$TMP/w.trace"
check "--swf-out of a Maui trace: numbered jobs and names" sh -c "[ $rc -eq 0 ] && grep -q '^1 100 0 500 2 ' $TMP/w.swf && grep -q '^2 200 400 1000 5 ' $TMP/w.swf && grep -q '^; Note: user 2 is bob&co\$' $TMP/w.swf && grep -q '^; Queue: 1 batch\$' $TMP/w.swf"
untimed "$TMP/out" | sed 's/"by_user":.*//' >"$TMP/a"
run simulate --procs 6 --format json "$TMP/w.swf"
untimed "$TMP/out" | sed 's/"by_user":.*//' >"$TMP/b"
check "--swf-out of a Maui trace: read back, the same metrics" sh -c "[ $rc -eq 0 ] && cmp -s $TMP/a $TMP/b"

# -------------------------------------------------------- --batsim-out
run simulate --config "$easy" --format json --batsim-out "$TMP/b.csv" "$small"
check "--batsim-out: exit 0" [ "$rc" -eq 0 ]
check "--batsim-out: Batsim's header, exactly" sh -c "head -n 1 $TMP/b.csv | grep -qx 'job_id,workload_name,profile,submission_time,requested_number_of_resources,requested_time,success,final_state,starting_time,execution_time,finish_time,waiting_time,turnaround_time,stretch,allocated_resources,consumed_energy,metadata'"
check "--batsim-out: a row per finished or rejected job (5 + 1)" [ "$(sed 1d "$TMP/b.csv" | wc -l)" -eq 6 ]
check "--batsim-out: a finished job's times, stretch and nodes" grep -qx \
    '2,w0,delay,10,4,4000,1,COMPLETED_SUCCESSFULLY,100,3600,3700,90,3690,1.025000,4-7,-1,user=2;group=1;account=;class=1;qos=DEFAULT' "$TMP/b.csv"
check "--batsim-out: the rejected job" grep -q '^6,w0,delay,50,16,10,0,REJECTED,-1,' "$TMP/b.csv"
check "--batsim-out: waiting = starting - submission, turnaround = finishing - submission" \
    awk -F, 'NR > 1 && $8 != "REJECTED" { if ($12 != $9 - $4 || $13 != $11 - $4 || $10 != $11 - $9) bad = 1 } END { exit bad }' "$TMP/b.csv"
check "--batsim-out: as many nodes allocated as processors asked (one-processor nodes)" \
    awk -F, 'NR > 1 && $8 != "REJECTED" { n = 0; k = split($15, r, " "); for (i = 1; i <= k; i++) { if (split(r[i], ab, "-") == 2) n += ab[2] - ab[1] + 1; else n++ } if (n != $5) bad = 1 } END { exit bad }' "$TMP/b.csv"
printf 'JOBMAXOVERRUN 0\n' >"$TMP/kill.cfg"
cat >"$TMP/kill.swf" <<'SWF'
; MaxProcs: 4
1 0 0 500 1 -1 -1 1 100 -1 1 1 1 -1 1 -1 -1 -1
SWF
run simulate --config "$TMP/kill.cfg" --batsim-out "$TMP/k.csv" "$TMP/kill.swf"
check "--batsim-out: a job killed at its walltime" grep -q '^1,w0,delay,0,1,100,0,COMPLETED_WALLTIME_REACHED,0,100,100,0,100,' "$TMP/k.csv"
run simulate --format json --batsim-out "$TMP/kb.csv" "$kth"
check "--batsim-out (KTH): a row per job" [ "$(sed 1d "$TMP/kb.csv" | wc -l)" -eq "$(jkey "$TMP/out" jobs)" ]
run simulate --config "$easy" --config "$fcfs" --batsim-out "$TMP/b2.csv" "$small"
check "--batsim-out, two runs: run column, the header once, rows of each" sh -c "[ $rc -eq 0 ] && [ \$(grep -c job_id $TMP/b2.csv) -eq 1 ] && head -n 1 $TMP/b2.csv | grep -q '^run,job_id,' && [ \$(grep -c '^1,' $TMP/b2.csv) -eq 6 ] && [ \$(grep -c '^2,' $TMP/b2.csv) -eq 6 ]"

# --------------------------------------------------------------- --html
printf 'BACKFILLPOLICY NONE\n# a <b>comment</b> & "quotes" http-free\n' >"$TMP/fcfs<x>.cfg"
run simulate --config "$easy" --config "$TMP/fcfs<x>.cfg" --html "$TMP/r.html" "$kth"
h=$TMP/r.html
check "--html: exit 0, the text report still printed" sh -c "[ $rc -eq 0 ] && grep -q ', 2 runs\$' $TMP/out"
check "--html: a whole document" sh -c "head -n 1 $h | grep -qx '<!DOCTYPE html>' && tail -n 1 $h | grep -qx '</html>'"
check "--html: nothing fetched (no http:, https:, src=, <link, @import, url()" \
    sh -c "! grep -Eqi 'https?:|src=|<link|@import|url\\(' $h"
check "--html: the style and script are inline" sh -c "grep -q '^<style>' $h && grep -q '^<script>\$' $h"
check "--html: a column per run in the metrics" [ "$(grep -c '<th colspan="1" style="border-top' "$h")" -ge 2 ]
check "--html: time charts with a zoom, CDF charts" sh -c "[ \$(grep -c '<svg class=\"ts\"' $h) -eq 2 ] && grep -q 'id=\"zfrom\"' $h && grep -q 'wait (log scale)' $h && grep -q 'bounded slowdown (log scale)' $h"
check "--html: points and rolling means per run and chart (8 lines), 2 CDF lines a chart" \
    [ "$(grep -c 'vector-effect="non-scaling-stroke"' "$h")" -eq 8 ]
check "--html: percentiles, breakdowns, configuration" sh -c "grep -q 'wait p99' $h && grep -q 'bounded slowdown p95' $h && grep -q 'turnaround p50' $h && grep -q 'job size (processors)' $h && grep -q 'user (top 10 by use)' $h && grep -q 'id=\"config\"' $h"
check "--html: the config file name and text escaped" sh -c "grep -q 'fcfs&lt;x&gt;.cfg' $h && grep -q '# a &lt;b&gt;comment&lt;/b&gt; &amp; &quot;quotes&quot;' $h && ! grep -q '<b>comment' $h && ! grep -q 'fcfs<x>' $h"
check "--html: KTH's report stays small (under 400 KB)" [ "$(wc -c <"$h")" -lt 400000 ]
check "--html: the report's percentiles" grep -q "<td>wait p99</td><td>$($py -c 'import json,sys; print("%.0f" % json.load(open(sys.argv[1]))["percentiles"]["wait"]["p99"])' "$TMP/kth.json" 2>/dev/null || echo 71913)</td>" "$h"
run simulate --procs 6 --html "$TMP/w.html" "$TMP/w.trace"
check "--html: a hostile user name is escaped, never raw" sh -c "[ $rc -eq 0 ] && grep -q '&lt;script&gt;alert(1)&lt;/script&gt;' $TMP/w.html && ! grep -q '<script>alert' $TMP/w.html && grep -q 'bob&amp;co' $TMP/w.html"
check "--html: one script element only, the page's own" [ "$(grep -c '<script' "$TMP/w.html")" -eq 1 ]
if [ -n "$py" ]; then
    check "--html: parses as HTML, every tag closed (python3)" $py -c '
import sys
from html.parser import HTMLParser
void = {"meta", "input", "br", "line", "rect", "polyline"}
class P(HTMLParser):
    def __init__(s):
        super().__init__(); s.stack = []
    def handle_starttag(s, t, a):
        if t not in void: s.stack.append(t)
    def handle_startendtag(s, t, a): pass
    def handle_endtag(s, t):
        if t in void: return
        assert s.stack and s.stack[-1] == t, (t, s.stack[-3:])
        s.stack.pop()
p = P(); p.feed(open(sys.argv[1]).read()); p.close()
assert p.stack == [], p.stack
' "$h"
fi

# ------------------------------------------------------------- errors
for opt in --series --html --swf-out --batsim-out; do
    run simulate $opt "" "$small"
    check "$opt '': exit 2, named" sh -c "[ $rc -eq 2 ] && grep -q -- '$opt needs a file name' $TMP/err"
    run simulate $opt "$TMP/nodir/x" "$small"
    check "$opt unwritable: exit 1 before any report, the file named" sh -c "[ $rc -eq 1 ] && grep -q 'nodir/x: cannot write' $TMP/err && [ ! -s $TMP/out ]"
done
run simulate --swf-out "$small" "$small"
check "--swf-out over the trace: refused" sh -c "[ $rc -eq 2 ] && grep -q -- '--swf-out .* would overwrite the trace' $TMP/err"
run simulate --series "$TMP/x" --html "$TMP/x" "$small"
check "two outputs in one file: refused, both named" sh -c "[ $rc -eq 2 ] && grep -q -- '--series and --html name the same file' $TMP/err"
# One file by other names: the streamed run's renames kept only the last
# (the jobs CSV lost, exit 0), the whole read's in-place write interleaved.
run simulate --jobs-out "$TMP/x" --batsim-out "$TMP/./x" "$small"
check "two outputs in one new file by two names: refused" sh -c "[ $rc -eq 2 ] && grep -q -- '--jobs-out and --batsim-out name the same file' $TMP/err && [ ! -e $TMP/x ]"
echo old >"$TMP/y"
ln -s y "$TMP/ly"
run simulate --jobs-out "$TMP/y" --swf-out "$TMP/ly" "$small"
check "... an old file and a link to it: refused, the file kept" sh -c "[ $rc -eq 2 ] && grep -q -- '--jobs-out and --swf-out name the same file' $TMP/err && [ \"\$(cat $TMP/y)\" = old ]"
cp "$small" "$TMP/tr"
ln "$TMP/tr" "$TMP/trlink"
run simulate --jobs-out "$TMP/trlink" "$TMP/tr"
check "an output that is the trace by another name (a hard link): refused" sh -c "[ $rc -eq 2 ] && grep -q -- '--jobs-out .* would overwrite the trace' $TMP/err && cmp -s $TMP/tr $small"
run simulate --html "$TMP/a.html" --html "$TMP/b.html" "$small"
check "--html twice: refused" sh -c "[ $rc -eq 2 ] && grep -q -- 'give --html once' $TMP/err"
# A comparison's SWF file per run is an output too: another output, or the
# trace, under a run's name is refused (was: the jobs CSV and run 1's SWF
# interleaved in one file, exit 0).
run simulate --config "$easy" --config "$fcfs" --swf-out "$TMP/pr.swf" --jobs-out "$TMP/pr.1.swf" "$small"
check "--jobs-out on a run's --swf-out file: refused, nothing written" sh -c "[ $rc -eq 2 ] && grep -q -- '--jobs-out and --swf-out (run 1) name the same file .*pr.1.swf' $TMP/err && [ ! -e $TMP/pr.1.swf ] && [ ! -e $TMP/pr.2.swf ]"
run simulate --compare BACKFILLPOLICY=NONE,FIRSTFIT --swf-out "$TMP/pc%d.swf" --batsim-out "$TMP/./pc2.swf" "$small"
check "... by --compare and %d, another name of the file: refused" sh -c "[ $rc -eq 2 ] && grep -q -- '--swf-out (run 2) and --batsim-out name the same file' $TMP/err"
cp "$small" "$TMP/tr.2.swf"
run simulate --config "$easy" --config "$fcfs" --swf-out "$TMP/tr.swf" "$TMP/tr.2.swf"
check "... a run's file over the trace: refused, the trace kept" sh -c "[ $rc -eq 2 ] && grep -q -- '--swf-out (run 2) .*tr.2.swf would overwrite the trace' $TMP/err && cmp -s $TMP/tr.2.swf $small"
run simulate --swf-out "$TMP/one.swf" --jobs-out "$TMP/one.1.swf" "$small"
check "... one run: FILE itself, no run's name taken" sh -c "[ $rc -eq 0 ] && [ -s $TMP/one.swf ] && [ -s $TMP/one.1.swf ]"
# --swf-out with several runs: a file each, the run's number before the
# extension (or in place of %d); each replays to its own run's schedule.
run simulate --config "$easy" --config "$fcfs" --swf-out "$TMP/x.swf" --jobs-out "$TMP/xj.csv" "$small"
check "--swf-out with two runs: a file each" sh -c "[ $rc -eq 0 ] && [ -s $TMP/x.1.swf ] && [ -s $TMP/x.2.swf ] && [ ! -e $TMP/x.swf ]"
check "--swf-out with two runs: each names its configuration" sh -c "grep -q '^; Note: configuration $easy' $TMP/x.1.swf && grep -q '^; Note: configuration $fcfs' $TMP/x.2.swf"
for k in 1 2; do
    cfg=$easy
    [ "$k" = 2 ] && cfg=$fcfs
    run simulate --config "$cfg" --jobs-out "$TMP/back$k.csv" "$TMP/x.$k.swf"
    awk -F, -v k=$k 'NR > 1 && $1 == k && $4 != "" { print $2","$4","$5 }' "$TMP/xj.csv" | sort >"$TMP/want$k"
    awk -F, 'NR > 1 { print $1","$3","$4 }' "$TMP/back$k.csv" | sort >"$TMP/got$k"
    check "--swf-out with two runs: run $k's file replays to run $k's schedule" cmp -s "$TMP/want$k" "$TMP/got$k"
done
run simulate --compare RESERVATIONDEPTH=1,2 --swf-out "$TMP/d%d-sched.swf" "$small"
check "--swf-out with two runs: %d is the run's number" sh -c "[ $rc -eq 0 ] && [ -s $TMP/d1-sched.swf ] && [ -s $TMP/d2-sched.swf ]"
run simulate --show showq --html "$TMP/x.html" "$small"
check "--show with --html: refused" sh -c "[ $rc -eq 2 ] && grep -q -- '--show prints answers instead of the report' $TMP/err"
done_checks
