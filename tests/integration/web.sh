#!/bin/sh
# The web view (issue 17): the daemon's HTTP server, its login through
# `moku web`, its API against the CLI, its rights and limits
# (tests/web/api.py), and the pages in a real browser (tests/web/browser.py,
# headless Chromium through Selenium) when they are installed. As root the
# ordinary user is a real one (useradd).
. tests/integration/lib.sh

PY=/usr/bin/python3
MOKU=$(cd "$(dirname "$MOKU")" && pwd)/$(basename "$MOKU")
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
MOKU_HOME=$H "$MOKU" schedctl -k >/dev/null
wait $pid

# A bad WEBADDRESS, and a port that is taken, stop the daemon with the reason.
printf 'WEBPORT 0\nWEBADDRESS not-an-address\n' >"$H/maui.cfg"
run serve --home "$H"
check "a bad WEBADDRESS: the daemon does not start, maui.cfg named" sh -c "[ $rc != 0 ] && grep -q 'maui.cfg: WEBADDRESS' '$TMP/err'"
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
"$MOKU" serve --home "$H" >"$TMP/serve.log" 2>&1 &
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
if [ -x "$PY" ] && [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ] && [ -f tests/web/browser.py ]; then
    url=$("$MOKU" web)
    uurl=
    [ -n "$user" ] && uurl=$(runuser -u "$user" -- env MOKU_HOME="$H" "$MOKU" web)
    mkdir -p "$TMP/shots"
    $PY tests/web/browser.py --url "$url" ${uurl:+--user-url "$uurl"} --home "$H" --moku "$MOKU" --shots "$TMP/shots"
elif [ -f tests/web/browser.py ]; then
    fail "the browser tests need /usr/bin/chromium and chromedriver (scripts/deps.sh installs them)"
fi
"$MOKU" schedctl -k >/dev/null
wait $pid
