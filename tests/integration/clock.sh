#!/bin/sh
# One clock (issue 30 §9): the daemon's answers (showq, checkjob), its log
# and its web API give the same instant the same wall-clock time, in the
# daemon's time zone (TZ), and say which zone that is. The daemon runs under
# TZ=Asia/Kolkata (UTC+05:30, no summer time: a half-hour offset that no
# rounding hides); the checks convert every figure back to the epoch.
. tests/integration/lib.sh

PY=/usr/bin/python3
MOKU=$(cd "$(dirname "$MOKU")" && pwd)/$(basename "$MOKU")
H=$TMP/home
mkdir -p "$H"
export MOKU_HOME="$H"
printf 'RMPOLLINTERVAL 1\nLOGLEVEL 1\nWEBPORT 0\nNODECFG[n1] PROCS=4\n' >"$H/maui.cfg"
TZ=Asia/Kolkata "$MOKU" serve --home "$H" >"$TMP/serve.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; lib_cleanup' EXIT
wait_for 10 sh -c "timeout 5 '$MOKU' showq >/dev/null 2>&1" || fail "the daemon did not answer within 10 s"

check "the log names the clock at the start: Asia/Kolkata, IST, UTC+05:30" \
    grep -q ' 0 clock: times are in Asia/Kolkata (IST, UTC+05:30; TZ chooses the zone)' "$H/log/maui.log"

# The client runs in UTC: what it prints is the daemon's clock, not its own.
(cd "$TMP" && echo 'sleep 300' | TZ=UTC timeout 5 "$MOKU" submit -N clocky -o /dev/null -e /dev/null) >"$TMP/id"
j=$(cat "$TMP/id")
check "a job is submitted ($j)" [ -n "$j" ]
started() { TZ=UTC timeout 5 "$MOKU" checkjob "$j" 2>/dev/null | grep -q '^StartTime:'; }
check "... and starts" wait_for 10 started
TZ=UTC timeout 5 "$MOKU" checkjob "$j" >"$TMP/checkjob"
TZ=UTC timeout 5 "$MOKU" showq >"$TMP/showq"
TZ=UTC timeout 5 "$MOKU" showq --format=json >"$TMP/showq.json"
wait_for 5 grep -q " 1 job $j started on " "$H/log/maui.log"

# The same start, four ways. Each is turned into epoch seconds here, with
# the zone each one says (or the daemon's, for Maui's zone-less layouts).
$PY - "$j" "$TMP/checkjob" "$TMP/showq" "$TMP/showq.json" "$H/log/maui.log" >"$TMP/cmp" 2>&1 <<'PY'
import calendar, datetime, json, re, sys
job, cj, sq, sj, log = sys.argv[1:]
IST = datetime.timezone(datetime.timedelta(hours=5, minutes=30))
q = json.load(open(sj))
start = [x for x in q["active"] if x["id"] == job][0]["start"]
year = datetime.datetime.fromtimestamp(start, IST).year
def maui(text):  # "Sat Nov 28 08:30:38", in the daemon's zone
    t = datetime.datetime.strptime("%d %s" % (year, text.strip()), "%Y %a %b %d %H:%M:%S")
    return int(t.replace(tzinfo=IST).timestamp())
ck = maui(re.search(r"^StartTime: (.*)$", open(cj).read(), re.M).group(1))
row = [l for l in open(sq) if l.split()[:1] == [job]][0]
sq_t = maui(" ".join(row.split()[-4:]))
m = [re.match(r"(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d) ([+-]\d{4}) 1 job %s started on " % job, l) for l in open(log)]
m = [x for x in m if x][0]
lg = int(datetime.datetime.strptime(m.group(1) + " " + m.group(2), "%Y-%m-%d %H:%M:%S %z").timestamp())
print("json %d (zone %s), checkjob %d, showq %d, log %d (%s)" % (start, q["zone"], ck, sq_t, lg, m.group(2)))
ok = ck == start == sq_t and abs(lg - start) <= 2 and m.group(2) == "+0530"
ok = ok and q["zone"] == {"name": "Asia/Kolkata", "abbrev": "IST", "offset": 19800}
sys.exit(0 if ok else 1)
PY
rc=$?; [ $rc = 0 ] || sed "s/^/# /" "$TMP/cmp" "$TMP/web" 2>/dev/null | tail -5
check "showq, checkjob, the log and showq's JSON give the job's start the same time, on the daemon's clock ($(head -1 "$TMP/cmp"))" [ $rc = 0 ]
# Torque's view: qstat -f's start_time is ctime()'s layout with the year,
# on the same clock as checkjob's StartTime.
cks=$(sed -n 's/^StartTime: *//p' "$TMP/checkjob")
qs=$(TZ=UTC timeout 5 "$MOKU" qstat -f "$j" | sed -n 's/^ *start_time = //p')
yr=$(TZ=Asia/Kolkata date +%Y)
check "qstat -f's start_time is checkjob's, with the year ('$qs', '$cks')" \
    sh -c "[ -n '$cks' ] && [ '$qs' = '$cks $yr' ]"

# The web API: the same JSON, with the zone the page shows times in.
url=$(timeout 5 "$MOKU" web)
$PY - "$url" "$j" "$TMP/showq.json" >"$TMP/web" 2>&1 <<'PY'
import http.cookiejar, json, sys, urllib.request
url, job, sj = sys.argv[1:]
op = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
op.open(url, timeout=10).read()
base = url.split("/login")[0]
api = json.loads(op.open(base + "/api/showq", timeout=10).read())
cli = json.load(open(sj))
a = [x for x in api["active"] if x["id"] == job][0]
c = [x for x in cli["active"] if x["id"] == job][0]
print("api start %d zone %s name %s nodes %s" % (a["start"], api["zone"], a["name"], a["nodes"]))
sys.exit(0 if a["start"] == c["start"] and api["zone"] == cli["zone"] and a["name"] == "clocky" and a["nodes"] == ["n1"] else 1)
PY
rc=$?; [ $rc = 0 ] || sed "s/^/# /" "$TMP/cmp" "$TMP/web" 2>/dev/null | tail -5
check "the web API gives the same start and zone, and the job's name and nodes ($(head -1 "$TMP/web"))" [ $rc = 0 ]

# TZ chooses the clock: UTC for a daemon started so.
timeout 5 "$MOKU" canceljob "$j" >/dev/null
timeout 5 "$MOKU" schedctl -k >/dev/null
wait $pid
TZ=UTC "$MOKU" serve --home "$H" >"$TMP/serve2.log" 2>&1 &
pid=$!
wait_for 10 sh -c "timeout 5 '$MOKU' showq >/dev/null 2>&1" || fail "the daemon did not answer within 10 s"
check "TZ=UTC: the log says UTC" grep -q ' 0 clock: times are in UTC (UTC, UTC+00:00' "$H/log/maui.log"
TZ=Asia/Kolkata timeout 5 "$MOKU" showq --format=json >"$TMP/showq2.json"
check "TZ=UTC: showq's JSON says UTC" grep -q '"abbrev": "UTC"' "$TMP/showq2.json"
timeout 5 "$MOKU" schedctl -k >/dev/null
wait $pid
done_checks
