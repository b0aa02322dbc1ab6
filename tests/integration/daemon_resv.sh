#!/bin/sh
# Reservations in the daemon: a SYSTEM reservation (no ACL) on the only node
# keeps a job waiting until it is released; a reservation for a user lets
# that user's job run inside it; reservations survive kill -9 and a reload,
# expire, and lose nodes that are no longer configured; standing
# reservations come from maui.cfg; a second user is refused setres unless
# RESCTLPOLICY ANY, and then may release only their own; TRIGGER exec
# actions run.
. tests/integration/lib.sh

MOKU=$(cd "$(dirname "$MOKU")" && pwd)/$(basename "$MOKU")
H=$TMP/home
mkdir -p "$H" "$TMP/work"
chmod 755 "$TMP" "$H" "$TMP/work"
# One virtual node of one processor; LOGLEVEL 3 logs each iteration (iterated).
CFG='RMPOLLINTERVAL 1\nNODECFG[n1] PROCS=1\nLOGLEVEL 3\n'
# Under RESCTLPOLICY ANY a user's reservations hold at most half the
# cluster's processors by default (USERRESMAXPROCS 50%): n1 is half of it.
CFG2='RMPOLLINTERVAL 1\nNODECFG[n1] PROCS=1\nNODECFG[n2] PROCS=1\nLOGLEVEL 3\n'
printf "$CFG" >"$H/maui.cfg"
export MOKU_HOME="$H"
LOG=$H/log/maui.log
pid=""

start_daemon() {
    "$MOKU" serve --home "$H" >>"$TMP/serve.log" 2>&1 &
    pid=$!
    i=0
    while [ $i -lt 50 ] && ! timeout 5 "$MOKU" showq >/dev/null 2>&1; do
        sleep 0.1
        i=$((i + 1))
    done
}
# kill -9, then start again.
crash_restart() {
    kill -9 "$pid"
    wait "$pid" 2>/dev/null
    pid=""
    start_daemon
}
trap 'stop_daemon; lib_cleanup' EXIT

# showres_has ID: showres lists reservation ID.
showres_has() { timeout 5 "$MOKU" showres | grep -q "^$1 "; }
# created: the id in setres's reply (on stdin).
created() { sed -n "s/^reservation '\([^']*\)' created.*/\1/p"; }

printf 'echo quick\n' >"$TMP/work/quick.sh"
chmod 755 "$TMP/work/quick.sh"
cd "$TMP/work" || exit 1
me=$(id -un)

start_daemon

# A SYSTEM reservation blocks every job.
sys=$(timeout 5 "$MOKU" setres n1 | created)
check "setres n1: a SYSTEM reservation" [ "$sys" = SYSTEM.0 ]
check "showres lists it" showres_has "$sys"
j1=$(timeout 5 "$MOKU" submit quick.sh)
iterated "$LOG" 2
check "a job submitted under it stays Idle" [ "$(state "$j1")" = Idle ]
timeout 5 "$MOKU" showq >"$TMP/out"
check "... showq shows it idle" grep -q "^$j1 .* Idle " "$TMP/out"
timeout 5 "$MOKU" checkjob "$j1" >"$TMP/out"
check "... checkjob says why it cannot run" grep -q "^job cannot run" "$TMP/out"
timeout 5 "$MOKU" diagnose -r >"$TMP/out"
check "diagnose -r shows it without an ACL" sh -c "grep -q '^$sys ' $TMP/out && grep -q 'ACL: *\[NONE\]' $TMP/out"

# It survives kill -9.
crash_restart
check "after kill -9 and a restart showres lists the same id" showres_has "$sys"
iterated "$LOG" 2
check "... and the job still waits" [ "$(state "$j1")" = Idle ]

run releaseres "$sys"
check "releaseres: Maui's message" has_out "released User reservation '$sys'"
check "... the job then runs to completion" wait_state "$j1" Completed
crash_restart
check "a released reservation does not come back after a restart" sh -c "! timeout 5 '$MOKU' showres | grep -q '^$sys '"
run releaseres "$sys"
check "releaseres of an unknown id: an error, exit 1" sh -c "[ $rc = 1 ] && grep -q 'cannot locate reservation' $TMP/err"

# A reservation for this user: the user's jobs run inside it.
mine=$(timeout 5 "$MOKU" setres -u "$me" -d 1:00:00 n1 | created)
check "setres -u $me: named after the user" [ "$mine" = "$me.0" ]
j2=$(timeout 5 "$MOKU" submit quick.sh)
check "... $me's job runs inside it" wait_state "$j2" Completed
j3=$(timeout 5 "$MOKU" submit -W x=ADVRES:"$mine" quick.sh)
check "a job asking for it (-W x=ADVRES:$mine) runs in it" wait_state "$j3" Completed
run submit -W x=ADVRES:nosuch quick.sh
check "a job asking for a reservation that does not exist is refused at submission" \
    sh -c "[ $rc -ne 0 ] && grep -q 'ADVRES:nosuch names no reservation' $TMP/err && [ ! -s $TMP/out ]"
# One whose ACL refuses the job at any start: refused at submission, with
# the reason (issue 26 §6), rather than waiting for ever.
other=$(timeout 5 "$MOKU" setres -u someoneelse -d 1:00:00 n1 | created)
run submit -W x=ADVRES:"$other" quick.sh
check "a job asking for a reservation whose ACL refuses it is refused at submission" \
    sh -c "[ $rc -ne 0 ] && grep -q \"asks for reservation '$other', whose ACL does not admit it (USER==someoneelse+)\" $TMP/err && [ ! -s $TMP/out ]"
timeout 5 "$MOKU" releaseres "$other" >/dev/null
timeout 5 "$MOKU" showres --format=json >"$TMP/out"
check "showres --format=json" grep -q "\"$mine\"" "$TMP/out"

# Expiry: one that ends while the daemon runs, one while it is down.
short=$(timeout 5 "$MOKU" setres -n short -d 1 n1 | created)
check "setres -d 1 (a short one)" [ "$short" = short.0 ]
i=0
while [ $i -lt 50 ] && showres_has "$short"; do sleep 0.1; i=$((i + 1)); done
check "... it expires" sh -c "! timeout 5 '$MOKU' showres | grep -q '^$short '"
check "... logged" grep -q "reservation $short expired" "$LOG"
t_gone=$(date +%s)
gone=$(timeout 5 "$MOKU" setres -n gone -d 2 n1 | created)
kill -9 "$pid"
wait "$pid" 2>/dev/null
# Down until its end (2 s after it was made) has passed.
past() { [ "$(date +%s)" -gt "$1" ]; }
wait_for 10 past $((t_gone + 2))
start_daemon
check "one that ended while the daemon was down is gone after the restart" sh -c "! timeout 5 '$MOKU' showres | grep -q '^$gone '"
check "... logged" grep -q "reservation $gone has ended; removed" "$LOG"
check "... the others are back" showres_has "$mine"
check "... and the one that expired earlier was removed from the store then" sh -c "! grep -q 'reservation $short has ended' $LOG"

# Reload: admin reservations carried over; a standing one appears.
printf "${CFG}SRCFG[night] PERIOD=INFINITY HOSTLIST=n1 USERLIST=$me\n" >"$H/maui.cfg"
run schedctl -R
check "schedctl -R with an SRCFG" [ "$rc" = 0 ]
i=0
while [ $i -lt 50 ] && ! showres_has night.0; do sleep 0.1; i=$((i + 1)); done
check "a standing reservation from maui.cfg shows in showres" showres_has night.0
check "... and the admin reservation is still there after the reload" showres_has "$mine"
run releaseres night.0
check "releaseres of a standing reservation's instance is refused" sh -c "[ $rc = 1 ] && grep -q 'standing' $TMP/err"
crash_restart
i=0
while [ $i -lt 50 ] && ! showres_has night.0; do sleep 0.1; i=$((i + 1)); done
check "after a restart the standing reservation is made again" showres_has night.0

# A bad SRCFG is a start-up error naming file and line.
mkdir -p "$TMP/bad"
printf 'RMPOLLINTERVAL 1\nNODECFG[n1] PROCS=1\nSRCFG[x] PERIOD=FORTNIGHT\n' >"$TMP/bad/maui.cfg"
run serve --home "$TMP/bad"
check "serve with a bad SRCFG: exit 1, naming maui.cfg:3" sh -c "[ $rc = 1 ] && grep -q 'maui.cfg:3' $TMP/err"

# A node that is no longer configured is dropped from a reservation.
printf 'RMPOLLINTERVAL 1\nNODECFG[n1] PROCS=1\nNODECFG[n2] PROCS=2\nLOGLEVEL 2\n' >"$H/maui.cfg"
crash_restart
two=$(timeout 5 "$MOKU" setres -n two -d 1:00:00 n1,n2 | created)
check "setres on two nodes" [ "$two" = two.0 ]
printf "$CFG" >"$H/maui.cfg"
crash_restart
timeout 5 "$MOKU" diagnose -r >"$TMP/out"
check "n2 gone from maui.cfg: the reservation keeps n1" sh -c "grep -A4 '^$two ' $TMP/out | grep -q 'Nodes: n1:1\$'"
check "... with a log line naming the node" grep -q "reservation $two: node n2 no longer exists" "$LOG"

# setres -m changes a reservation in place: window and ACL, stored before
# the reply (it survives kill -9), logged.
run setres -m "$two" -d 2:00:00 -u "$me"
check "setres -m: Maui-style reply" has_out "reservation '$two' modified"
timeout 5 "$MOKU" diagnose -r "$two" >"$TMP/out"
check "... the new ACL and length show" sh -c "grep -q 'USER==$me' $TMP/out && grep -q '^$two .* 2:00:00 ' $TMP/out"
crash_restart
timeout 5 "$MOKU" diagnose -r "$two" >"$TMP/out"
check "... kept across kill -9" sh -c "grep -q 'USER==$me' $TMP/out && grep -q '^$two .* 2:00:00 ' $TMP/out"
check "... logged" grep -q "reservation $two modified by $me" "$LOG"
run setres -m "$two" -n other
check "setres -m -n: refused, the name cannot change" sh -c "[ $rc = 1 ] && grep -q 'cannot be changed' $TMP/err"
run setres -m nosuch.0 -d 100
check "setres -m of an unknown id: refused" sh -c "[ $rc = 1 ] && grep -q 'cannot locate reservation' $TMP/err"
timeout 5 "$MOKU" releaseres "$two" >/dev/null

# Permissions: a second user.
if [ "$(id -u)" = 0 ] && command -v useradd >/dev/null 2>&1 && command -v runuser >/dev/null 2>&1; then
    u=mokutest
    add_user "$u"
    cp "$MOKU" "$TMP/moku-client" && chmod 755 "$TMP/moku-client"
    as_user() { runuser -u "$u" -- env MOKU_HOME="$H" timeout 5 "$TMP/moku-client" "$@"; }
    as_user setres -d 100 n1 >"$TMP/out" 2>&1
    check "a second user is refused setres" grep -q "not authorized" "$TMP/out"
    as_user showres >"$TMP/out" 2>&1
    check "... may not list the reservations (showres is for ADMIN1..3, as in Maui)" grep -q "not authorized" "$TMP/out"
    as_user releaseres "$mine" >"$TMP/out" 2>&1
    check "... may not release one" grep -q "not authorized" "$TMP/out"
    printf "${CFG2}RESCTLPOLICY ANY\n" >"$H/maui.cfg"
    timeout 5 "$MOKU" schedctl -R >/dev/null
    theirs=$(as_user setres -d 1:00:00 -u "$u" n1 | created)
    check "RESCTLPOLICY ANY: the second user may setres" [ "$theirs" = "$u.0" ]
    as_user releaseres "$mine" >"$TMP/out" 2>&1
    check "... may not release another user's reservation" grep -q "not authorized to release reservation '$mine'" "$TMP/out"
    as_user setres -m "$mine" -d 100 >"$TMP/out" 2>&1
    check "... may not modify another user's reservation" grep -q "not authorized to modify reservation '$mine'" "$TMP/out"
    as_user setres -m "$theirs" -d 2:00:00:00 >"$TMP/out" 2>&1
    check "... may modify their own, held to the same bounds (two days: refused)" grep -q "may last at most 86400 s" "$TMP/out"
    as_user setres -m "$theirs" -d 0:30:00 >"$TMP/out" 2>&1
    check "... and within them: modified" grep -q "reservation '$theirs' modified" "$TMP/out"
    crash_restart
    as_user releaseres "$theirs" >"$TMP/out" 2>&1
    check "... may release their own, its creator remembered across a restart" grep -q "released User reservation '$theirs'" "$TMP/out"
    # A user's reservation is held to the user's own limits and must end
    # (issue 14 item 9: any user could reserve everything for years).
    as_user setres -u "$u" n1 >"$TMP/out" 2>&1
    check "RESCTLPOLICY ANY: a user's reservation with no duration (about 3 years) is refused" \
        grep -q "may last at most 86400 s" "$TMP/out"
    as_user setres -d 2:00:00:00 -u "$u" n1 >"$TMP/out" 2>&1
    check "... and one of two days" grep -q "may last at most 86400 s" "$TMP/out"
    printf "${CFG2}RESCTLPOLICY ANY\nUSERCFG[DEFAULT] MAXPS=3600\nUSERRESMAXPROCS 100%%\n" >"$H/maui.cfg"
    timeout 5 "$MOKU" schedctl -R >/dev/null
    as_user setres -d 2:00:00 -u "$u" n1 >"$TMP/out" 2>&1
    check "... over the user's MAXPS (7,200 processor-seconds against 3,600): refused, the limit named" \
        grep -q "MAXPS limit of 3600" "$TMP/out"
    check "... and not made" sh -c "! timeout 5 '$MOKU' showres | grep -q '^$u\.'"
    r1=$(as_user setres -d 0:30:00 -u "$u" n1 | created)
    r2=$(as_user setres -d 0:30:00 -u "$u" n1 | created)
    check "... within it: made ($r1, $r2)" sh -c "[ -n '$r1' ] && [ -n '$r2' ]"
    as_user setres -d 0:30:00 -u "$u" n1 >"$TMP/out" 2>&1
    check "... a third counts the user's other reservations: refused" grep -q "MAXPS limit of 3600" "$TMP/out"
    timeout 5 "$MOKU" setres -d 3:00:00 n1 >"$TMP/out" 2>&1
    check "... an administrator is not held to it" grep -q "created" "$TMP/out"
    for x in "$r1" "$r2" $(sed -n "s/^reservation '\([^']*\)' created.*/\1/p" "$TMP/out"); do
        timeout 5 "$MOKU" releaseres "$x" >/dev/null
    done
    # Chained reservations over ALL nodes, each within the one-day rule
    # (issue 28: -s +23h, +46h, ... held the cluster for days): bounded by
    # USERRESMAXPROCS, USERRESMAXCOUNT, USERRESMAXPS and USERRESHORIZON.
    CFG4='RMPOLLINTERVAL 1\nNODECFG[n1] PROCS=4\nNODECFG[n2] PROCS=4\nLOGLEVEL 2\nRESCTLPOLICY ANY\n'
    reload_with() {
        printf "$CFG4$1" >"$H/maui.cfg"
        timeout 5 "$MOKU" schedctl -R >/dev/null
    }
    reload_with ''
    as_user setres -d 23:00:00 -u "$u" ALL >"$TMP/out" 2>&1
    check "RESCTLPOLICY ANY: by default a user may not reserve ALL nodes (USERRESMAXPROCS 50%)" \
        grep -q "setres: $u's reservations may hold at most 4 processors at any time (USERRESMAXPROCS 50% of 8); with this one they would hold 8" "$TMP/out"
    reload_with 'USERRESMAXPROCS 100%%\nUSERRESMAXPS 50%%\n'
    as_user setres -d 23:00:00 -u "$u" ALL >"$TMP/out" 2>&1
    c0=$(created <"$TMP/out")
    check "... allowed ALL: the reply counts tasks and processors (2 tasks, 8 processors)" \
        grep -q "^reservation '$c0' created on 2 nodes (2 tasks, 8 processors)" "$TMP/out"
    c1=$(as_user setres -s +23:00:00 -d 23:00:00 -u "$u" ALL | created)
    check "... a second one chained after it (+23 h): made ($c1)" [ -n "$c1" ]
    as_user setres -s +1:22:00:00 -d 23:00:00 -u "$u" ALL >"$TMP/out" 2>&1
    check "... a third (+46 h): refused, two at once (USERRESMAXCOUNT 2)" \
        grep -q "setres: $u may hold at most 2 reservations at once (USERRESMAXCOUNT); with this one $u would hold 3" "$TMP/out"
    check "... and not made" sh -c "[ \$(timeout 5 '$MOKU' showres | grep -c '^$u\.') = 2 ]"
    reload_with 'USERRESMAXPROCS 100%%\nUSERRESMAXPS 50%%\nUSERRESMAXCOUNT 10\n'
    c2=$(as_user setres -s +1:22:00:00 -d 23:00:00 -u "$u" ALL | created)
    check "... with USERRESMAXCOUNT 10, a third (69 h of the whole cluster, of 84 allowed): made" [ -n "$c2" ]
    as_user setres -s +2:21:00:00 -d 23:00:00 -u "$u" ALL >"$TMP/out" 2>&1
    check "... a fourth (92 h): refused past USERRESMAXPS (50% of a week of 8 processors)" \
        grep -q "setres: $u's reservations may hold at most 2419200 processor-seconds within the next 604800 s (USERRESMAXPS 50%); with this one they would hold 26[0-9]*$" "$TMP/out"
    reload_with 'USERRESMAXPROCS 100%%\nUSERRESMAXPS 100%%\nUSERRESMAXCOUNT 10\n'
    as_user setres -s +6:12:00:00 -d 23:00:00 -u "$u" n1 >"$TMP/out" 2>&1
    check "... one ending past USERRESHORIZON (a week): refused" \
        grep -q "setres: a reservation by $u must end within 604800 s from now (USERRESHORIZON)" "$TMP/out"
    as_user setres -m "$c2" -s +5:00:00:00 >"$TMP/out" 2>&1
    check "... nor moved there with setres -m (-s +5 d: ends after 6 d of 7, allowed; +6:12 d: not)" \
        sh -c "grep -q 'modified' '$TMP/out' && ! $(command -v runuser) -u $u -- env MOKU_HOME='$H' timeout 5 '$TMP/moku-client' setres -m '$c2' -s +6:12:00:00 >/dev/null 2>&1"
    timeout 5 "$MOKU" setres -s +2:21:00:00 -d 23:00:00 ALL >"$TMP/out" 2>&1
    check "... an administrator is not held to these bounds" grep -q "created on 2 nodes" "$TMP/out"
    for x in "$c0" "$c1" "$c2" $(created <"$TMP/out"); do
        timeout 5 "$MOKU" releaseres "$x" >/dev/null
    done
    printf "${CFG2}RESCTLPOLICY ANY\n" >"$H/maui.cfg"
    timeout 5 "$MOKU" schedctl -R >/dev/null
    # ADVRES asks for a reservation; its ACL still decides (issue 13 §3: any
    # user could run in a SYSTEM reservation by naming it).
    sysr=$(timeout 5 "$MOKU" setres -d 0:05:00 n1 | created)
    mkdir -p "$TMP/uwork" && chown "$u" "$TMP/uwork"
    cp "$TMP/work/quick.sh" "$TMP/uwork/" && chmod 755 "$TMP/uwork/quick.sh"
    ju=$(cd "$TMP/uwork" && as_user submit -W x=ADVRES:"$sysr" quick.sh 2>"$TMP/uerr")
    check "an ordinary user asking for the SYSTEM reservation $sysr by name is refused (the ACL admits nobody)" \
        sh -c "[ -z '$ju' ] && grep -q 'whose ACL does not admit it (none: it admits no job)' $TMP/uerr"
    timeout 5 "$MOKU" releaseres "$sysr" >/dev/null
else
    skip "the second-user tests need root, useradd and runuser"
fi

# TRIGGER actions of a standing reservation: exec runs a command with the
# reservation's id and the event in its environment; submit is not supported.
cat >"$TMP/work/trig.sh" <<SH
#!/bin/sh
echo "\$MOKU_RESERVATION \$MOKU_EVENT \$MOKU_HOME \$(pwd)" >>$TMP/work/trig.out
SH
chmod 755 "$TMP/work/trig.sh"
printf "${CFG}SRCFG[t] PERIOD=INFINITY HOSTLIST=n1 USERLIST=nobody TRIGGER=create;exec@$TMP/work/trig.sh TRIGGER=create;exec@/bin/false TRIGGER=start;submit@job.sh\n" >"$H/maui.cfg"
run schedctl -R
check "schedctl -R with an SRCFG with triggers" [ "$rc" = 0 ]
i=0
while [ $i -lt 50 ] && ! [ -s "$TMP/work/trig.out" ]; do sleep 0.1; i=$((i + 1)); done
check "TRIGGER=create;exec@...: the command runs with MOKU_RESERVATION and MOKU_EVENT" \
    grep -q "^t.0 create $H $H\$" "$TMP/work/trig.out"
# Both triggers' ends logged (the daemon logs each as it reaps it), not the
# failing one's alone: trig.sh may end after /bin/false on a loaded
# machine, and until it is reaped its end is not logged and it is a zombie.
reaped_both() {
    grep -q "t.0 create trigger: pid [0-9]* exited with status 0" "$LOG" &&
        grep -q "t.0 create trigger: pid [0-9]* exited with status 1" "$LOG"
}
wait_for 5 reaped_both
check "... its exit status is logged" grep -q "t.0 create trigger: pid [0-9]* exited with status 0" "$LOG"
check "... a failing one's too" grep -q "t.0 create trigger: pid [0-9]* exited with status 1" "$LOG"
check "TRIGGER=start;submit@...: logged as not supported" grep -q "t.0 start trigger: submit@job.sh: trigger submit action not supported" "$LOG"
check "the daemon reaped them: no zombie children" sh -c "! ps -o stat= --ppid $pid | grep -q Z"
check "... and still serves" sh -c "timeout 5 '$MOKU' showq >/dev/null"

run schedctl -k
check "schedctl -k" [ "$rc" = 0 ]
i=0
while [ $i -lt 50 ] && kill -0 "$pid" 2>/dev/null; do sleep 0.1; i=$((i + 1)); done
pid=""
done_checks
