#!/bin/sh
# No user can make the daemon unavailable to others (issue 14 item 8): one
# ordinary user holds 300 idle connections and three clients that ask for a
# large `showq --format=json` and never read the reply; meanwhile another
# user's showq must be answered at once, and jobs must go on starting. The
# strict figure (under 100 ms) is make bench's; here the bound is loose (2 s)
# so that a loaded CI machine does not fail it. Needs root (a real second
# user); skipped otherwise.
. tests/integration/lib.sh

if [ "$(id -u)" != 0 ] || ! command -v useradd >/dev/null 2>&1 || ! command -v runuser >/dev/null 2>&1; then
    skip "the denial-of-service test needs root, useradd and runuser"
    done_checks
    exit 0
fi
MOKU=$(cd "$(dirname "$MOKU")" && pwd)/$(basename "$MOKU")
RAWSOCK=$(cd "$(dirname "${RAWSOCK:-build/tests/rawsock}")" && pwd)/rawsock
H=$TMP/home
mkdir -p "$H" "$TMP/work"
chmod 755 "$TMP" "$H" "$TMP/work"
printf 'RMPOLLINTERVAL 1\nNODECFG[n1] PROCS=2\nLOGLEVEL 2\n' >"$H/maui.cfg"
export MOKU_HOME="$H"
u=mokudos
add_user "$u"
cp "$RAWSOCK" "$TMP/rawsock" && chmod 755 "$TMP/rawsock"
"$MOKU" serve --home "$H" >"$TMP/serve.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; lib_cleanup' EXIT
i=0
while [ $i -lt 50 ] && ! timeout 5 "$MOKU" showq >/dev/null 2>&1; do sleep 0.1; i=$((i + 1)); done
S=$H/moku.sock

# A long queue: showq --format=json is then about 600 kB, more than a
# socket's buffer holds.
# The jobs are held, so that the one submitted during the attack can start.
"$RAWSOCK" "$S" many 3000 '{"cmd":"submit","job":{"script":"sleep 100\n","name":"q","cwd":"/tmp","hold":true}}' >/dev/null
check "3,000 jobs queued" sh -c "timeout 5 '$MOKU' showq | grep -q 'Total Jobs: 3000 '"

as_u() { runuser -u "$u" -- "$@"; }
as_u "$TMP/rawsock" "$S" hold 300 12 >"$TMP/held" 2>/dev/null &
attack=$!
for k in 1 2 3; do
    as_u "$TMP/rawsock" "$S" noread 12 '{"cmd":"showq","args":["--format=json"]}' 2>/dev/null &
    attack="$attack $!"
done
# Under way: the idle connections opened (rawsock says how many then).
wait_for 10 test -s "$TMP/held"
check "the attack is under way ($(cat "$TMP/held") idle connections opened)" test -s "$TMP/held"

ms() { echo $(($(date +%s%N) / 1000000)); }
t0=$(ms)
timeout 10 "$MOKU" showq >"$TMP/out" 2>"$TMP/err"
rc=$?
t1=$(ms)
check "under attack, another user's showq is answered (exit 0)" [ "$rc" = 0 ]
check "... at once: $((t1 - t0)) ms (bound 2,000 ms; make bench prints the figure)" [ $((t1 - t0)) -lt 2000 ]
big=$(timeout 10 "$MOKU" showq --format=json | wc -c)
check "... a large reply too ($big bytes)" [ "$big" -gt 500000 ]
# Scheduling goes on: a job submitted now starts.
cd "$TMP/work" || exit 1
j=$(printf 'sleep 1\n' | timeout 5 "$MOKU" submit -l walltime=60)
i=0
while [ $i -lt 50 ] && ! timeout 5 "$MOKU" checkjob "$j" | grep -q '^State: Running\|^State: Completed'; do
    sleep 0.1
    i=$((i + 1))
done
check "... and jobs still start meanwhile (job $j)" sh -c "timeout 5 '$MOKU' checkjob $j | grep -q '^State: Running\|^State: Completed'"
check "the attacker's connections past its cap were dropped (logged)" grep -q 'connections dropped by the limits' "$H/log/maui.log"
# The attack ends (the attackers would give up after 12 s): the clients
# under runuser are ended (runuser alone would leave them).
# shellcheck disable=SC2046
for p in $attack; do kill $(ps -o pid= --ppid "$p") 2>/dev/null; done
for p in $attack; do wait "$p" 2>/dev/null; done
check "after the attack the attacker itself is served again" \
    wait_for 10 sh -c "runuser -u $u -- env MOKU_HOME=$H '$TMP/rawsock' '$S' frame '{\"cmd\":\"showq\",\"args\":[]}' | grep -q '\"ok\":true'"
done_checks
