#!/bin/sh
# moku serve tells the truth (issue 14, items 10-20): schedctl -R answers
# what happened to the file; unknown parameters are warned about; a job that
# could not start says why (error file, checkjob, after a restart); a job
# that can never run is refused; LOGFILE/LOGLEVEL on reload and the log
# reopened on SIGUSR1; nodes=N:ppn=P on N distinct nodes; job names without
# '/'; runjob and holds; reservation ids never given again; requests missing
# a field; job mail through a fake sendmail (MAILPROGRAM).
. tests/integration/lib.sh

MOKU=$(cd "$(dirname "$MOKU")" && pwd)/$(basename "$MOKU")
RAWSOCK=$(cd "$(dirname "${RAWSOCK:-build/tests/rawsock}")" && pwd)/rawsock
H=$TMP/home
W=$TMP/work
mkdir -p "$H" "$W" "$TMP/mail"
chmod 755 "$TMP" "$H" "$W"
export MOKU_HOME="$H"
pid=""

# A sendmail stand-in: each message, with its arguments, into a file.
cat >"$TMP/fakemail" <<SH
#!/bin/sh
f=\$(mktemp "$TMP/mail/m.XXXXXX")
echo "ARGS: \$*" >"\$f"
cat >>"\$f"
SH
chmod 755 "$TMP/fakemail"

# Two nodes of four processors, the second with a feature.
base_cfg() {
    printf 'RMPOLLINTERVAL 1\nNODECFG[n1] PROCS=4\nNODECFG[n2] PROCS=4 FEATURES=bigmem\nLOGLEVEL 2\n'
    printf 'MAILPROGRAM %s\n' "$TMP/fakemail"
}
base_cfg >"$H/maui.cfg"
echo 'BACKFILPOLICY NONE' >>"$H/maui.cfg"

start_daemon() {
    "$MOKU" serve --home "$H" >>"$TMP/serve.log" 2>&1 &
    pid=$!
    i=0
    while [ $i -lt 50 ] && ! timeout 5 "$MOKU" showq >/dev/null 2>&1; do
        sleep 0.1
        i=$((i + 1))
    done
}
trap 'stop_daemon; lib_cleanup' EXIT

# sub ARGS...: submit from the work directory; the id on stdout, rc in $rc.
sub() {
    (cd "$W" && timeout 5 "$MOKU" submit "$@") >"$TMP/out" 2>"$TMP/err"
    rc=$?
}
# client CMD ARGS...: a command, out/err/rc kept.
client() { run "$@"; }
mails() { ls "$TMP/mail" | wc -l; }

printf '#!/bin/sh\ncat $PBS_NODEFILE\necho nodes=$PBS_NUM_NODES\n' >"$W/nf.sh"
printf '#!/bin/sh\nsleep 30\n' >"$W/long.sh"
printf 'echo quick\n' >"$W/quick.sh"
chmod 755 "$W"/*.sh

# ---- 11: unknown parameters at start-up ----
start_daemon
check "11: an unknown parameter at start-up is told on the terminal (foreground)" \
    grep -q "warning: .*maui.cfg:6: unknown parameter 'BACKFILPOLICY'" "$TMP/serve.log"
check "11: ... and in the log" grep -q "warning: .*unknown parameter 'BACKFILPOLICY'" "$H/log/maui.log"

# ---- 10: schedctl -R tells the real outcome ----
for bad in 'SRCFG[x] FLAGS=BOGUS TASKCOUNT=1' 'SRCFG[x] STARTTIME=25:00:00 TASKCOUNT=1' \
    'SRCFG[x] DAYS=FOO TASKCOUNT=1'; do
    { base_cfg; echo "$bad"; } >"$H/maui.cfg"
    client schedctl -R
    check "10: schedctl -R with '$bad': refused, exit 1, naming maui.cfg:6" \
        sh -c "[ $rc = 1 ] && grep -q 'not reloaded' $TMP/err && grep -q 'maui.cfg:6' $TMP/err"
done
{ base_cfg; echo 'QUEUTIMEWEIGHT 1'; } >"$H/maui.cfg"
client schedctl -R
check "10: a good file: reloaded, exit 0, and it says so" \
    sh -c "[ $rc = 0 ] && grep -q 'configuration reloaded from' $TMP/out"
check "11: ... with its unknown parameter in the reply" \
    grep -q "warning: .*maui.cfg:6: unknown parameter 'QUEUTIMEWEIGHT'" "$TMP/out"
{ base_cfg; echo 'SRCFG[x] DAYS=FOO TASKCOUNT=1'; } >"$H/maui.cfg"
kill -HUP "$pid"
check "10: SIGHUP with a bad file: the log says it was refused, and why" \
    wait_for 10 sh -c "grep 'reload refused' $H/log/maui.log | tail -n 1 | grep -q 'maui.cfg:6'"
base_cfg >"$H/maui.cfg"
client schedctl -R

# ---- 14: LOGFILE and LOGLEVEL on reload; SIGUSR1 reopens ----
{ base_cfg | sed 's/^LOGLEVEL 2/LOGLEVEL 3/'; echo 'LOGFILE other.log'; } >"$H/maui.cfg"
client schedctl -R
check "14: schedctl -R applies LOGFILE: the new file gets the log" \
    wait_for 10 grep -q "configuration reloaded" "$H/log/other.log"
check "14: ... and LOGLEVEL 3 (iteration times)" wait_for 10 grep -q " 3 iteration " "$H/log/other.log"
mv "$H/log/other.log" "$H/log/other.log.1"
kill -USR1 "$pid"
check "14: SIGUSR1 reopens the log for logrotate" wait_for 10 grep -q "log reopened" "$H/log/other.log"
check "14: ... and the daemon is still there" kill -0 "$pid"
kill -0 "$pid" 2>/dev/null || start_daemon # (SIGUSR1 used to kill it: go on with the rest)
# LOGLEVEL 3 for 15 (iterated); 13 goes back to base_cfg.
base_cfg | sed 's/^LOGLEVEL 2/LOGLEVEL 3/' >"$H/maui.cfg"
client schedctl -R

# ---- 15: nodes=N:ppn=P is N distinct nodes ----
sub -l nodes=2:ppn=1,walltime=30 nf.sh
j=$(cat "$TMP/out")
wait_state "$j" Completed >/dev/null
check "15: nodes=2:ppn=1 runs on two nodes" sh -c "[ \"\$(grep '^n[0-9]' $W/nf.sh.o$j | sort -u | wc -l)\" = 2 ] && grep -q nodes=2 $W/nf.sh.o$j"
sub -l nodes=2:ppn=2,walltime=30 nf.sh
j=$(cat "$TMP/out")
wait_state "$j" Completed >/dev/null
check "15: nodes=2:ppn=2: two processors on each of two nodes" \
    sh -c "[ \"\$(grep '^n[0-9]' $W/nf.sh.o$j | sort | uniq -c | awk '{print \$1}' | tr '\n' ' ')\" = '2 2 ' ]"
sub -l nodes=1:ppn=3,walltime=30 long.sh
ja=$(cat "$TMP/out")
sub -l nodes=2:ppn=2,walltime=30 long.sh
jb=$(cat "$TMP/out")
wait_state "$ja" Running >/dev/null
iterated "$H/log/maui.log" 2
check "15: a job that would need a node's share where only 1 is left waits" \
    sh -c "[ \"\$(timeout 5 '$MOKU' checkjob $jb | sed -n 's/^State: //p')\" = Idle ]"
timeout 5 "$MOKU" canceljob "$ja" >/dev/null
check "15: ... and runs once a node's share is free" wait_state "$jb" Running
timeout 5 "$MOKU" checkjob "$jb" >"$TMP/out"
check "15: checkjob shows the node count and tasks per node" \
    sh -c "grep -q '^TasksPerNode: 1' $TMP/out && grep -q '^NodeCount: 2' $TMP/out && grep -q '\[n1:1\]\[n2:1\]' $TMP/out"
timeout 5 "$MOKU" canceljob "$jb" >/dev/null
wait_state "$jb" Removed >/dev/null
sub -l nodes=1:ppn=2:bigmem,walltime=30 nf.sh
j=$(cat "$TMP/out")
wait_state "$j" Completed >/dev/null
check "15: nodes=1:ppn=2:bigmem runs on the node with the feature" \
    sh -c "[ \"\$(grep '^n[0-9]' $W/nf.sh.o$j | tr '\n' ' ')\" = 'n2 n2 ' ]"

# ---- 13: a job that can never run is refused ----
before=$(timeout 5 "$MOKU" showq | sed -n 's/^Total Jobs: \([0-9]*\).*/\1/p')
sub -l nodes=1:ppn=6 quick.sh
check "13: nodes=1:ppn=6 on 4-processor nodes: refused with the reason" \
    sh -c "[ $rc = 1 ] && grep -q 'could never run here: the job needs 6 processors on one node, the largest node has 4' $TMP/err"
sub -l nodes=3 quick.sh
check "13: nodes=3 on two nodes: refused" sh -c "[ $rc = 1 ] && grep -q 'needs 3 distinct nodes' $TMP/err"
sub -l nodes=2:bigmem quick.sh
check "13: nodes=2:bigmem with one such node: refused" \
    sh -c "[ $rc = 1 ] && grep -q 'the cluster has 1 such node with features bigmem' $TMP/err"
sub -l nodes=1:gpu quick.sh
check "13: a feature no node has: refused" sh -c "[ $rc = 1 ] && grep -q 'no up node with features gpu' $TMP/err"
{ base_cfg; echo 'USERCFG[DEFAULT] MAXPROC=2'; } >"$H/maui.cfg"
client schedctl -R
sub -l procs=3 quick.sh
check "13: over a hard limit no waiting lifts: refused, the limit named" \
    sh -c "[ $rc = 1 ] && grep -q 'violates active HARD MAXPROC limit of 2' $TMP/err"
base_cfg >"$H/maui.cfg"
client schedctl -R
after=$(timeout 5 "$MOKU" showq | sed -n 's/^Total Jobs: \([0-9]*\).*/\1/p')
check "13: ... and none of them was queued" [ "$before" = "$after" ]

# ---- MAXSUBMITJOBS (issue 13 §4): the next submission refused, with why ----
live=$(timeout 5 "$MOKU" showq | sed -n 's/^Total Jobs: \([0-9]*\).*/\1/p')
{ base_cfg; echo "USERCFG[DEFAULT] MAXSUBMITJOBS=$((live + 2))"; } >"$H/maui.cfg"
client schedctl -R
sub -h quick.sh
h1=$(cat "$TMP/out")
sub -h quick.sh
rc2=$rc h2=$(cat "$TMP/out")
sub -h quick.sh
check "MAXSUBMITJOBS: two more held jobs queued, the third refused with the limit named" \
    sh -c "[ $rc2 = 0 ] && [ $rc = 1 ] && grep -q 'already has $((live + 2)) jobs queued or running (MAXSUBMITJOBS $((live + 2)))' $TMP/err"
client canceljob "$h1"
sub -h quick.sh
check "MAXSUBMITJOBS: a cancelled job makes room for the next" [ "$rc" = 0 ]
h3=$(cat "$TMP/out")
client canceljob "$h3"
client canceljob "$h2"
base_cfg >"$H/maui.cfg"
client schedctl -R

# ---- 12: a job that could not start says why; 20: abort mail by default ----
m0=$(mails)
sub -o /nonexistent/dir/x.out quick.sh
j12=$(cat "$TMP/out")
check "12: an output file that cannot be created: the job ends, Removed (it never ran: not Completed)" wait_state "$j12" Removed
check "12: ... the reason is in its error file" \
    grep -q "moku: job $j12: /nonexistent/dir/x.out: cannot open the output file" "$W/quick.sh.e$j12"
timeout 5 "$MOKU" checkjob "$j12" >"$TMP/out"
check "12: ... and in checkjob's Messages" \
    grep -q "^Messages:  could not start: job $j12: /nonexistent/dir/x.out: cannot open the output file" "$TMP/out"
sub -d /nonexistent/wd quick.sh
j12b=$(cat "$TMP/out")
wait_state "$j12b" Removed >/dev/null
check "12: a working directory that cannot be entered: said in checkjob" \
    sh -c "timeout 5 '$MOKU' checkjob $j12b | grep -q '^Messages: .*/nonexistent/wd: cannot enter the working directory'"
check "12: the spool directory is gone" wait_for 5 test ! -d "$H/spool/$j12"
check "20: without -m, a job aborted gets mail (Torque's default -m a)" \
    sh -c "[ \$(ls $TMP/mail | wc -l) -ge $((m0 + 2)) ] && grep -l 'Aborted by the batch system' $TMP/mail/* | xargs grep -q 'Job Id:    $j12\$'"
sub -m n -o /nonexistent/dir/y.out quick.sh
jn=$(cat "$TMP/out")
wait_state "$jn" Removed >/dev/null
# Mail is decided, and logged, as the job ends: by now it would be.
check "20: -m n: no mail" sh -c "! grep -q 'job $jn mail' $H/log/maui.log && ! grep -q 'Job Id:    $jn\$' $TMP/mail/*"

# ---- 12 as an ordinary user: -o /etc/x ----
if [ "$(id -u)" = 0 ] && command -v useradd >/dev/null 2>&1 && command -v runuser >/dev/null 2>&1; then
    u=mokutruth
    add_user "$u"
    cp "$MOKU" "$TMP/moku-client" && chmod 755 "$TMP/moku-client"
    mkdir -p "$TMP/uw" && chown "$u" "$TMP/uw"
    cp "$W/quick.sh" "$TMP/uw/quick.sh" && chown "$u" "$TMP/uw/quick.sh"
    m0=$(mails)
    ju=$(cd "$TMP/uw" && runuser -u "$u" -- env MOKU_HOME="$H" timeout 5 "$TMP/moku-client" submit -o /etc/x quick.sh)
    wait_state "$ju" Removed >/dev/null
    check "12: a user's -o /etc/x: the reason in the user's error file" \
        grep -q "moku: job $ju: /etc/x: cannot open the output file: Permission denied" "$TMP/uw/quick.sh.e$ju"
    check "12: ... and in checkjob" sh -c "timeout 5 '$MOKU' checkjob $ju | grep -q '^Messages:  could not start: .*/etc/x: .*Permission denied'"
    check "12: /etc/x was not created" [ ! -e /etc/x ]
    check "20: the abort mail goes to the job's owner" \
        sh -c "grep -l 'Job Id:    $ju\$' $TMP/mail/* | xargs grep -q '^To: $u\$'"
else
    skip "the second-user tests need root, useradd and runuser"
fi

# ---- 16: job names with '/' ----
sub -N ../../etc/x quick.sh
check "16: qsub -N ../../etc/x: refused by the client" sh -c "[ $rc = 1 ] && grep -q \"contains '/'\" $TMP/err"
"$RAWSOCK" "$H/moku.sock" frame '{"cmd":"submit","job":{"script":"echo","name":"a/b","cwd":"/tmp"}}' >"$TMP/out"
check "16: ... and by the daemon" sh -c "grep -q '\"ok\":false' $TMP/out && grep -q \"contains '/'\" $TMP/out"

# ---- 17: runjob and holds ----
sub -h quick.sh
jh=$(cat "$TMP/out")
wait_state "$jh" UserHold >/dev/null
client runjob "$jh"
check "17: runjob of a held job: refused, the hold named" \
    sh -c "[ $rc = 1 ] && grep -q \"job '$jh' has a user hold\" $TMP/err"
check "17: ... it stays held" wait_state "$jh" UserHold
client runjob -f "$jh"
check "17: runjob -f starts it, and says the hold was released" \
    sh -c "[ $rc = 0 ] && grep -q 'forced: its user hold was released' $TMP/out"
check "17: ... it runs" wait_state "$jh" Completed
client runjob -z "$jh"
check "17: runjob -z: an unknown option, a usage error (exit 2)" sh -c "[ $rc = 2 ] && grep -q \"unknown option '-z'\" $TMP/err"

# ---- 18: reservation ids are never given again ----
client setres -n keep n1
check "18: setres -n keep: keep.0" grep -q "reservation 'keep.0' created" "$TMP/out"
client releaseres keep.0
client schedctl -R
client setres -n keep n1
check "18: after a release and a reload: keep.1, not keep.0 again" grep -q "reservation 'keep.1' created" "$TMP/out"
client releaseres keep.1
stop_daemon
start_daemon
client setres -n keep n1
check "18: ... and after a restart: keep.2" grep -q "reservation 'keep.2' created" "$TMP/out"
client releaseres keep.2

# ---- 12 after a restart: the reason was kept ----
check "12: after a restart checkjob still gives the reason" \
    sh -c "timeout 5 '$MOKU' checkjob $j12 | grep -q '^Messages:  could not start: .*cannot open the output file'"
check "12: ... and it is still Removed (from the store)" wait_state "$j12" Removed

# ---- 19: a request missing a field ----
S="$H/moku.sock"
"$RAWSOCK" "$S" frame '{"cmd":"setres"}' >"$TMP/out"
check "19: setres without \"args\": a clear error" grep -q '"args\\" is missing' "$TMP/out"
"$RAWSOCK" "$S" frame '{"cmd":"submit"}' >"$TMP/out"
check "19: submit without \"job\": a clear error" grep -q '"job\\" is missing' "$TMP/out"
"$RAWSOCK" "$S" frame '{"cmd":"showq","args":[],"user":"root"}' >"$TMP/out"
check "19: a field no command reads: refused" grep -q 'unknown field' "$TMP/out"
"$RAWSOCK" "$S" frame '{"cmd":7,"args":[]}' >"$TMP/out"
check "19: a field of the wrong type: refused" grep -q '"cmd\\" must be a string' "$TMP/out"
check "19: ... the daemon keeps serving" sh -c "timeout 5 '$MOKU' showq >/dev/null"

# ---- 19b: "raw": the output after the JSON and a newline, unescaped ----
"$RAWSOCK" "$S" frame '{"cmd":"showq","args":[],"raw":true}' >"$TMP/out"
check "19b: raw: the first line is the reply without its output" \
    sh -c "head -n 1 '$TMP/out' | grep -q '^{\"ok\":true,\"exit\":0}\$'"
check "19b: ... the output follows as showq prints it" \
    sh -c "sed -n 2p '$TMP/out' | grep -q '^ACTIVE JOBS' && grep -q '^Total Jobs: ' '$TMP/out'"
"$RAWSOCK" "$S" frame '{"cmd":"showq","args":[],"raw":false}' >"$TMP/out"
check "19b: raw false: the output inside the JSON" \
    sh -c "[ \$(wc -l <'$TMP/out') -le 1 ] && grep -q '\"output\": *\"ACTIVE JOBS' '$TMP/out'"
"$RAWSOCK" "$S" frame '{"cmd":"showq","args":[],"raw":"yes"}' >"$TMP/out"
check "19b: raw not a boolean: refused" grep -q 'unknown field \\"raw\\"' "$TMP/out"
"$RAWSOCK" "$S" frame '{"cmd":"showq","args":["-x"],"raw":true}' >"$TMP/out"
check "19b: raw, an error: the error stays in the JSON" \
    sh -c "[ \$(wc -l <'$TMP/out') -le 1 ] && grep -q '\"error\": *\"showq: unknown option' '$TMP/out'"

# ---- 20: mail at begin and end, to -M's list ----
m0=$(mails)
sub -m abe -M alice@example.org,bob quick.sh
jm=$(cat "$TMP/out")
wait_state "$jm" Completed >/dev/null
check "20: -m abe: mail at the start and at the end" \
    wait_for 5 sh -c "[ \$(grep -l 'Job Id:    $jm\$' $TMP/mail/* | wc -l) = 2 ]"
f=$(grep -l "Job Id:    $jm\$" "$TMP/mail"/* | head -n 1)
check "20: ... given to MAILPROGRAM -t, To: the -M list" \
    sh -c "grep -q '^ARGS: -t\$' $f && grep -q '^To: alice@example.org,bob\$' $f"
check "20: ... the end one with the exit status" \
    sh -c "grep -l 'Job Id:    $jm\$' $TMP/mail/* | xargs grep -q '^Exit_status=0\$'"
sub -M '-oQ/tmp/x' quick.sh
check "20: an -M address that could be read as an option: refused" sh -c "[ $rc = 1 ] && grep -q 'bad mail address' $TMP/err"

client schedctl -k
pid=""
done_checks
