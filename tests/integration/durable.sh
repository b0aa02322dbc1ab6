#!/bin/sh
# The daemon's state is safe (issue 14 items 1, 4, 5, 6), with the moku
# users run: one daemon per home (a second `moku serve`, foreground or
# --daemon, is refused before it opens the database, and the first one's
# acknowledged jobs survive a kill -9), a 0-byte moku.db refused unless
# --fresh, a repeated submission token answered once, and the state, log
# and spool private to the daemon's user (a second user cannot read them,
# yet submits and looks through the socket). Crash points are crash.sh's.
. tests/integration/lib.sh

MOKU=$(cd "$(dirname "$MOKU")" && pwd)/$(basename "$MOKU")
RAWSOCK=$(cd "$(dirname "${RAWSOCK:-build/tests/rawsock}")" && pwd)/rawsock
H=$TMP/home
mkdir -p "$H" "$TMP/work"
chmod 755 "$TMP" "$H" "$TMP/work"
printf 'RMPOLLINTERVAL 1\nNODECFG[n1] PROCS=4\nLOGLEVEL 1\n' >"$H/maui.cfg"
export MOKU_HOME="$H"
printf '#!/bin/sh\nsleep 30\n' >"$TMP/work/long.sh"
chmod 755 "$TMP/work/long.sh"
cd "$TMP/work" || exit 1

# The pids of the moku serve processes of home $1 (from their command lines,
# not from anything moku writes).
serving() {
    ps -e -o pid=,args= | awk -v h="$1" '{ s = $0 " " } index(s, " serve --home " h " ") { print $1 }'
}
daemon_pid() { serving "$H" | head -n 1; }
stop_all() {
    for p in $(serving "$H") $(serving "$TMP/h0"); do kill "$p" 2>/dev/null; done
    wait_for 10 none_serving
}
none_serving() { [ -z "$(serving "$H")$(serving "$TMP/h0")" ]; }
trap 'stop_all; lib_cleanup' EXIT
# Wait until the daemon answers.
answers() {
    i=0
    while [ $i -lt 50 ]; do
        timeout 5 "$MOKU" showq >/dev/null 2>&1 && return 0
        sleep 0.1
        i=$((i + 1))
    done
    return 1
}
total() { timeout 5 "$MOKU" showq | sed -n 's/^Total Jobs: \([0-9]*\).*/\1/p'; }

# ---- 1. a second moku serve ----
"$MOKU" serve --home "$H" --daemon >"$TMP/out" 2>"$TMP/err"
check "1: serve --daemon returns once it serves (exit 0)" sh -c "[ $? = 0 ] && [ -S '$H/moku.sock' ]"
first=$(daemon_pid)
for i in 1 2 3; do timeout 5 "$MOKU" submit long.sh >/dev/null; done
run serve --home "$H"
check "1: a second serve in the foreground is refused (exit 1)" [ "$rc" = 1 ]
check "... naming the daemon that serves the home" has_err "served already (moku serve, pid $first"
run serve --home "$H" --daemon
check "1: a second serve --daemon is refused too (exit 1, the reason on the terminal)" \
    sh -c "[ $rc = 1 ] && grep -q 'served already' '$TMP/err'"
check "... and the first daemon still holds the lock" [ "$(daemon_pid)" = "$first" ]
for i in 4 5 6; do timeout 5 "$MOKU" submit long.sh >"$TMP/id$i"; done
acked=$(cat "$TMP/id4" "$TMP/id5" "$TMP/id6" | tr '\n' ' ')
check "1: the first daemon goes on taking jobs (acknowledged 4, 5, 6)" [ "$acked" = "4 5 6 " ]
kill -9 "$first"
wait_for 10 none_serving
"$MOKU" serve --home "$H" --daemon 2>"$TMP/err"
answers
check "1: after kill -9 and a restart all 6 acknowledged jobs are there" [ "$(total)" = 6 ]
next=$(timeout 5 "$MOKU" submit long.sh)
check "... and the next id is 7, not an id given before" [ "$next" = 7 ]

# ---- 6. private state ----
mode() { stat -c %a "$1"; }
check "6: moku.db is 0600" [ "$(mode "$H/moku.db")" = 600 ]
check "6: its WAL is 0600" [ "$(mode "$H/moku.db-wal")" = 600 ]
check "6: the log is 0600, its directory 0700" \
    sh -c "[ $(mode "$H/log/maui.log") = 600 ] && [ $(mode "$H/log") = 700 ]"
check "6: the lock file is 0600" [ "$(mode "$H/moku.lock")" = 600 ]
check "6: the spool is 0711 (a job reaches its nodefile, no one lists it)" [ "$(mode "$H/spool")" = 711 ]
check "6: the socket stays open to all" [ "$(mode "$H/moku.sock")" = 666 ]
job=$(ls "$H/spool" | head -n 1)
check "6: a running job's start request (its environment) is 0600" [ "$(mode "$H/spool/$job/job.json")" = 600 ]
if [ "$(id -u)" = 0 ] && command -v useradd >/dev/null 2>&1 && command -v runuser >/dev/null 2>&1; then
    u=mokubob
    add_user "$u"
    cp "$MOKU" "$TMP/moku-client" && chmod 755 "$TMP/moku-client"
    as_bob() { runuser -u "$u" -- env MOKU_HOME="$H" timeout 5 "$@"; }
    check "6: another user cannot read moku.db" sh -c "! $(command -v runuser) -u $u -- cat '$H/moku.db' >/dev/null 2>&1"
    check "6: ... nor its WAL" sh -c "! $(command -v runuser) -u $u -- cat '$H/moku.db-wal' >/dev/null 2>&1"
    check "6: ... nor the log" sh -c "! $(command -v runuser) -u $u -- cat '$H/log/maui.log' >/dev/null 2>&1"
    check "6: ... nor a job's start request" sh -c "! $(command -v runuser) -u $u -- cat '$H/spool/$job/job.json' >/dev/null 2>&1"
    check "6: ... yet it looks at the queue through the socket" sh -c "$(command -v runuser) -u $u -- env MOKU_HOME='$H' '$TMP/moku-client' showq >/dev/null"
    mkdir -p "$TMP/bw" && chmod 777 "$TMP/bw"
    jb=$(cd "$TMP/bw" && printf 'echo hi\n' | as_bob "$TMP/moku-client" submit)
    check "6: ... and submits" [ -n "$jb" ]
else
    skip "the second-user checks need root, useradd and runuser"
fi

# A home from before: files 0644 become private at the next start.
stop_all
chmod 644 "$H/moku.db" "$H/log/maui.log"
"$MOKU" serve --home "$H" --daemon 2>"$TMP/err"
answers
check "6: a 0644 moku.db and log left by an older moku are made 0600 at start" \
    sh -c "[ $(mode "$H/moku.db") = 600 ] && [ $(mode "$H/log/maui.log") = 600 ]"

# ---- 4. a repeated submission token ----
tok=0123456789abcdef0123456789abcdef
req='{"cmd":"submit","token":"'$tok'","job":{"script":"sleep 30\n","name":"tok","cwd":"'$TMP/work'"}}'
"$RAWSOCK" "$H/moku.sock" frame "$req" >"$TMP/a1"
"$RAWSOCK" "$H/moku.sock" frame "$req" >"$TMP/a2"
before=$(total)
check "4: a submission sent twice with one token: the same answer twice" \
    sh -c "grep -q '\"output\"' '$TMP/a1' && cmp -s '$TMP/a1' '$TMP/a2'"
"$RAWSOCK" "$H/moku.sock" frame "$req" >"$TMP/a3"
check "4: ... and one job, not two (a third try changes nothing)" [ "$(total)" = "$before" ]
"$RAWSOCK" "$H/moku.sock" frame '{"cmd":"submit","token":"x","job":{"script":"echo\n","cwd":"/tmp"}}' >"$TMP/out"
check "4: a malformed token is refused, named" grep -q 'token' "$TMP/out"
"$RAWSOCK" "$H/moku.sock" frame '{"cmd":"showq","args":[],"token":"0123456789abcdef"}' >"$TMP/out"
check "4: a token on a command that does not take one is refused" grep -q 'unknown field' "$TMP/out"
stop_all
"$MOKU" serve --home "$H" --daemon 2>"$TMP/err"
answers
"$RAWSOCK" "$H/moku.sock" frame "$req" >"$TMP/a4"
check "4: the token is remembered across a restart" cmp -s "$TMP/a1" "$TMP/a4"

# ---- 5. a 0-byte database ----
stop_all
mkdir -p "$TMP/h0"
: >"$TMP/h0/moku.db"
run serve --home "$TMP/h0"
check "5: a 0-byte moku.db is refused (exit 1), saying what to do" \
    sh -c "[ $rc = 1 ] && grep -q '0 bytes' '$TMP/err' && grep -q -- '--fresh' '$TMP/err'"
check "... and left as it was, nothing listening" sh -c "[ ! -s '$TMP/h0/moku.db' ] && [ ! -S '$TMP/h0/moku.sock' ]"
run serve --home "$H" --fresh
check "5: --fresh on a home with state is refused: history is not thrown away by an option" \
    sh -c "[ $rc = 1 ] && grep -q 'move it aside' '$TMP/err'"
"$MOKU" serve --home "$TMP/h0" --fresh --daemon 2>"$TMP/err"
check "5: --fresh starts on the 0-byte file" sh -c "MOKU_HOME='$TMP/h0' timeout 5 '$MOKU' showq >/dev/null"
done_checks
