#!/bin/sh
# The web view (issue 17): the daemon's HTTP server, its login through
# `moku web`, its API against the CLI, its rights and limits
# (tests/web/api.py), and the pages in a real browser (tests/web/browser.py,
# headless Chromium through Selenium) when they are installed. As root the
# ordinary user is a real one (useradd).
. tests/integration/lib.sh

PY=/usr/bin/python3
MOKU=$(cd "$(dirname "$MOKU")" && pwd)/$(basename "$MOKU")
RAWSOCK=$(cd "$(dirname "${RAWSOCK:-build/tests/rawsock}")" && pwd)/rawsock
H=$TMP/home
mkdir -p "$H"
chmod 755 "$TMP" "$H"

# Without WEBPORT there is no web view, and moku web says so.
printf 'RMPOLLINTERVAL 1\nNODECFG[n1] PROCS=4\n' >"$H/maui.cfg"
"$MOKU" serve --home "$H" >"$TMP/serve0.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; lib_cleanup' EXIT
i=0
while [ $i -lt 50 ] && ! MOKU_HOME=$H timeout 5 "$MOKU" showq >/dev/null 2>&1; do sleep 0.1; i=$((i + 1)); done
MOKU_HOME=$H run web
check "moku web without WEBPORT: exit 1, says to set it" sh -c "[ $rc = 1 ] && grep -q 'set WEBPORT' '$TMP/err'"
MOKU_HOME=$H run web extra
check "moku web with an argument: exit 2" [ "$rc" = 2 ]
# The request itself, with arguments: refused, not ignored (issue 28).
"$RAWSOCK" "$H/moku.sock" frame '{"cmd":"weblogin","args":["mokuweb"]}' >"$TMP/out"
check "weblogin with an argument on the socket: a usage error (exit 2), not ignored" \
    sh -c "grep -q '\"exit\": *2' '$TMP/out' && grep -q 'unexpected argument' '$TMP/out'"
MOKU_HOME=$H "$MOKU" schedctl -k >/dev/null
wait $pid

# A bad WEBADDRESS, and a port that is taken, stop the daemon with the reason.
printf 'WEBPORT 0\nWEBADDRESS not-an-address\n' >"$H/maui.cfg"
run serve --home "$H"
check "a bad WEBADDRESS: the daemon does not start, maui.cfg named" sh -c "[ $rc != 0 ] && grep -q 'maui.cfg: WEBADDRESS' '$TMP/err'"
# Not a loopback address: the kernel could not say who connects (issue 28).
printf 'WEBPORT 0\nWEBADDRESS 0.0.0.0\n' >"$H/maui.cfg"
run serve --home "$H"
check "WEBADDRESS 0.0.0.0: the daemon does not start, says loopback only" \
    sh -c "[ $rc != 0 ] && grep -q 'WEBADDRESS 0.0.0.0: not a loopback address' '$TMP/err'"
$PY -c 'import socket,time,sys; s=socket.socket(); s.bind(("127.0.0.1",0)); s.listen(); print(s.getsockname()[1], flush=True); time.sleep(30)' >"$TMP/port" &
blocker=$!
i=0
while [ $i -lt 50 ] && [ ! -s "$TMP/port" ]; do sleep 0.1; i=$((i + 1)); done
printf 'WEBPORT %s\n' "$(cat "$TMP/port")" >"$H/maui.cfg"
run serve --home "$H"
check "a WEBPORT that is taken: the daemon does not start and says so" sh -c "[ $rc != 0 ] && grep -q 'port is taken' '$TMP/err'"
kill $blocker 2>/dev/null
wait $blocker 2>/dev/null

# The real thing.
printf 'RMPOLLINTERVAL 1\nWEBPORT 0\nNODECFG[n1] PROCS=4\nNODECFG[n2] PROCS=4\nNODECFG[n3] PROCS=4\nQUEUETIMEWEIGHT 1\nXFACTORWEIGHT 0\n' >"$H/maui.cfg"
# In another zone than the browser's (the machine's): the page must show
# times on the daemon's clock, not the browser's (issue 30).
TZ=Asia/Kolkata "$MOKU" serve --home "$H" >"$TMP/serve.log" 2>&1 &
pid=$!
export MOKU_HOME="$H"
i=0
while [ $i -lt 50 ] && ! timeout 5 "$MOKU" showq >/dev/null 2>&1; do sleep 0.1; i=$((i + 1)); done
check "the log gives the web view's address" grep -q 'web view at http://127.0.0.1:' "$H/log/maui.log"
# From $TMP: a job's output files are made in the directory it was submitted from.
for k in 1 2 3 4 5; do
    (cd "$TMP" && echo 'sleep 600' | "$MOKU" submit -l nodes=1:ppn=4,walltime=$((k * 600)) >/dev/null)
done
user=
if [ "$(id -u)" = 0 ] && command -v useradd >/dev/null 2>&1 && command -v runuser >/dev/null 2>&1; then
    add_user mokuweb
    user=mokuweb
    cp "$MOKU" "$TMP/moku" && chmod 755 "$TMP/moku"
    MOKU=$TMP/moku
else
    skip "the ordinary user's checks need root, useradd and runuser"
fi
if [ -x "$PY" ]; then
    $PY tests/web/api.py --moku "$MOKU" --home "$H" ${user:+--user "$user"}
else
    fail "python3 is not installed (scripts/deps.sh installs it)"
fi
# changeparam cannot open the web view to the network, not even root's:
# the reload refuses what the next start would (issue 28).
cp "$H/maui.cfg" "$TMP/cfg.before"
"$MOKU" changeparam WEBADDRESS 0.0.0.0 >"$TMP/out" 2>&1
check "changeparam WEBADDRESS 0.0.0.0 is refused (not a loopback address)" grep -q 'not a loopback address' "$TMP/out"
check "... and maui.cfg is as it was" cmp -s "$H/maui.cfg" "$TMP/cfg.before"
if [ -x "$PY" ] && [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ] && [ -f tests/web/browser.py ]; then
    url=$("$MOKU" web)
    uurl=
    [ -n "$user" ] && uurl=$(runuser -u "$user" -- env MOKU_HOME="$H" "$MOKU" web)
    mkdir -p "$TMP/shots"
    $PY tests/web/browser.py --url "$url" ${uurl:+--user-url "$uurl"} ${user:+--user "$user"} --home "$H" --moku "$MOKU" --shots "$TMP/shots"
elif [ -f tests/web/browser.py ]; then
    fail "the browser tests need /usr/bin/chromium and chromedriver (scripts/deps.sh installs them)"
fi
for j in $("$MOKU" showq --format=json | $PY -c 'import json,sys; q = json.load(sys.stdin); print(" ".join(j["id"] for k in ("active", "idle", "blocked") for j in q[k]))'); do
    "$MOKU" canceljob "$j" >/dev/null 2>&1
done
"$MOKU" schedctl -k >/dev/null
wait $pid
# The browser's helpers of the user this test made end on their own, soon
# after the browser; lib_cleanup then deletes the user.
wait_for 10 sh -c '! pgrep -u mokuweb >/dev/null 2>&1'
done_checks
