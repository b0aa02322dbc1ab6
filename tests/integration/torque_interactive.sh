#!/bin/sh
# qsub -I end to end (issue 30 §3): a real user's qsub on a real terminal
# (Python's pty module drives it) against the real daemon and its local
# resource manager. qsub says Torque's lines, the user gets a login shell
# on the job's node as themselves with PBS_JOBID, the window size follows
# a resize, `exit 7` is qsub's status and the job's recorded exit; qsub
# killed while the shell runs ends the job; checkjob shows INTERACTIVE;
# qsub interrupted while its job waits cancels the job.
# Needs root (useradd, the daemon running jobs as another user).
. tests/integration/lib.sh

if [ "$(id -u)" != 0 ] || ! command -v useradd >/dev/null 2>&1 || ! command -v python3 >/dev/null 2>&1; then
    skip "qsub -I of an ordinary user needs root, useradd and python3"
    done_checks
    exit 0
fi
u=mokutia
add_user "$u"
. tests/integration/lib_torque.sh
chmod 755 "$TMP"
torque_serve 'RMPOLLINTERVAL 1\nNODECFG[n1] PROCS=2\nLOGLEVEL 3\n' qsub
torque_user_qsub

# drive.py MODE: qsub -I as $u on a new terminal; MODE exit (the session
# to its `exit 7`) or kill (qsub killed once the shell is there). Every wait
# is bounded; what the terminal showed goes to $TMP/tty.log.
cat >"$TMP/drive.py" <<'PY'
import fcntl, os, pty, pwd, re, select, signal, struct, sys, termios, time
mode, user, qsub, scale = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
pw = pwd.getpwnam(user)
sys.path.insert(0, os.environ["QSUB_PTY"])
from qsub_pty import Session
t = Session(pw, qsub, ["-I", "-l", "walltime=5:00"], scale, os.environ["TTYLOG"])
pid, fd, expect = t.pid, t.fd, t.expect
m = expect(rb"qsub: waiting for job (\d+)\.\S+ to start", 30)
jid = m.group(1).decode()
print("job", jid, flush=True)
expect(rb"qsub: job \d+\.\S+ ready", 120)
os.write(fd, b"id -un; echo JOB=$PBS_JOBID ENV=$PBS_ENVIRONMENT\n")
expect(rb"[\n ]" + user.encode() + rb"\r?\n", 60)  # after a prompt or not
m = expect(rb"JOB=(\S+) ENV=(\S+)", 30)
print("jobid", m.group(1).decode(), "env", m.group(2).decode(), flush=True)
if mode == "kill":
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    print("killed", flush=True)
    sys.exit(0)
fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 33, 111, 0, 0))
# qsub copies the size on SIGWINCH; ask until the shell sees it.
end = time.monotonic() + 30 * scale
while True:
    os.write(fd, b"stty size\n")
    m = expect(rb"[\n ](\d+) (\d+)\r?\n", 30)
    if m.group(1) == b"33" and m.group(2) == b"111":
        print("size 33 111", flush=True)
        break
    if time.monotonic() > end:
        print("size never followed: %s %s" % (m.group(1), m.group(2)))
        sys.exit(92)
    time.sleep(0.2)
os.write(fd, b"exit 7\n")
expect(rb"qsub: job \d+\.\S+ completed", 60)
end = time.monotonic() + 30 * scale
while True:
    p, st = os.waitpid(pid, os.WNOHANG)
    if p:
        break
    if time.monotonic() > end:
        os.kill(pid, signal.SIGKILL)
        print("qsub did not exit")
        sys.exit(93)
    try:
        os.read(fd, 4096)
    except OSError:
        pass
    time.sleep(0.1)
print("qsub exit", os.waitstatus_to_exitcode(st), flush=True)
PY
export TTYLOG="$TMP/tty.log"
drive() { timeout $((300 * TIME_SCALE)) python3 "$TMP/drive.py" "$1" "$u" "$TMP/bin/qsub" "$TIME_SCALE" >"$TMP/drive.out" 2>&1; }
said() { grep -q "^$1\$" "$TMP/drive.out"; }
exit_code() { timeout 5 "$MOKU" checkjob --format=json "$1" 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin).get("exit_status"))'; }

drive exit
rc=$?
jid=$(sed -n 's/^job //p' "$TMP/drive.out")
check "qsub -I: the session ran to its end (driver status $rc)" [ "$rc" = 0 ]
check "... qsub said it waits for the job and named it" [ -n "$jid" ]
check "... the shell is the user's, with the job's id and PBS_INTERACTIVE" \
    said "jobid $jid.* env PBS_INTERACTIVE"
check "... the window size follows a resize (stty size)" said "size 33 111"
check "... exit 7 is qsub's exit status" said "qsub exit 7"
recorded7() { [ "$(exit_code "$jid")" = 7 ]; }
check "... and the job's recorded exit" wait_for 20 recorded7
check "... the job is Completed" wait_for 10 is "$jid" Completed

drive kill
rc=$?
jk=$(sed -n 's/^job //p' "$TMP/drive.out")
check "a second session got its shell, then qsub was killed (driver status $rc)" \
    sh -c "[ $rc = 0 ] && grep -q '^killed\$' '$TMP/drive.out'"
check "checkjob of a qsub -I job shows the INTERACTIVE flag" \
    sh -c "timeout 5 '$MOKU' checkjob $jk | grep -q '^Flags: .*INTERACTIVE'"
check "qsub killed: the job ends (not Running)" wait_for 30 sh -c "s=\$(timeout 5 '$MOKU' checkjob $jk | sed -n 's/^State: //p'); [ \"\$s\" = Removed ] || [ \"\$s\" = Completed ]"

# SIGTERM while the job waits (held: it cannot start): qsub cancels it (SIGINT too,
# but a script's background command may have SIGINT ignored).
# The signal is sent once qsub says it waits (a loaded machine may take
# seconds to get there); qsub blocks it from its submission on anyway.
"$TMP/bin/qsub" -I -h </dev/null >"$TMP/out" 2>"$TMP/err" &
qpid=$!
waits() { grep -q '^qsub: waiting for job' "$TMP/err"; }
wait_for 20 waits
kill -TERM "$qpid"
ended() { ! kill -0 "$qpid" 2>/dev/null; }
wait_for 20 ended || kill -KILL "$qpid"
wait "$qpid"
rc=$?
jh=$(sed -n 's/^qsub: waiting for job \([0-9]*\)\..* to start$/\1/p' "$TMP/err")
check "qsub -I interrupted while its job waits: exit 1, saying so (stdin not read as a script)" \
    sh -c "[ $rc = 1 ] && [ -n '$jh' ] && grep -q 'Terminated while waiting for it to start' '$TMP/err'"
check "... and the job is cancelled" wait_for 10 is "$jh" Removed
[ -s "$TMP/drive.out" ] && sed 's/^/# /' "$TMP/drive.out"
done_checks
exit 0
