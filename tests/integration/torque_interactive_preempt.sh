#!/bin/sh
# An interactive job is not rerunnable (issue 30 §3): Torque's qsub marks a
# qsub -I job so and its server refuses to requeue it, so Maui's REQUEUE
# preemption of it fails and it runs on. Here: a node lent by its owner
# (OWNERPREEMPT, PREEMPTPOLICY REQUEUE); a real user's qsub -I of account
# other holds it (on a terminal: Python's pty); the owner's job comes and
# is not given the node: the session goes on (the shell still answers, the
# job Running, never requeued), the daemon logs why; when the shell ends,
# the owner's job starts. A batch job of other in the same place is
# requeued (the rule is about interactive jobs only).
# Needs root (useradd, the daemon running jobs as another user).
. tests/integration/lib.sh

if [ "$(id -u)" != 0 ] || ! command -v useradd >/dev/null 2>&1 || ! command -v python3 >/dev/null 2>&1; then
    fail "qsub -I of an ordinary user needs root, useradd and python3"
    exit 1
fi
u=mokutip
add_user "$u"
. tests/integration/lib_torque.sh
chmod 755 "$TMP"
torque_serve 'RMPOLLINTERVAL 1\nLOGLEVEL 2\nNODECFG[n1] PROCS=2\nPREEMPTPOLICY REQUEUE\nSRCFG[own] PERIOD=INFINITY HOSTLIST=n1 ACCOUNTLIST=owner,other- OWNER=ACCOUNT:owner FLAGS=OWNERPREEMPT\n' qsub
torque_user_qsub
LOG=$H/log/maui.log

# drive.py: qsub -I -A other as $u on a new terminal; once the shell
# answers, prints "job ID" and "shell", then waits for $TMP/go, checks the
# shell still answers ("alive"), and ends the session (exit 0). Every wait
# is bounded.
cat >"$TMP/drive.py" <<'PY'
import os, pty, pwd, re, select, signal, sys, time
user, qsub, scale, go = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
pw = pwd.getpwnam(user)
sys.path.insert(0, os.environ["QSUB_PTY"])
from qsub_pty import Session
t = Session(pw, qsub, ["-I", "-A", "other", "-l", "procs=2,walltime=5:00"], scale)
pid, fd, expect = t.pid, t.fd, t.expect
m = expect(rb"qsub: waiting for job (\d+)\.\S+ to start", 30)
print("job", m.group(1).decode(), flush=True)
expect(rb"qsub: job \d+\.\S+ ready", 120)
os.write(fd, b"echo SH=$((40+2))\n")
expect(rb"SH=42", 60)
print("shell", flush=True)
end = time.monotonic() + 120 * scale
while not os.path.exists(go):
    if time.monotonic() > end:
        print("no go", flush=True)
        os.kill(pid, signal.SIGKILL)
        sys.exit(92)
    r, _, _ = select.select([fd], [], [], 0.1)
    if r:
        try:
            d = os.read(fd, 4096)
        except OSError:
            d = b""
        if not d:
            print("terminal closed while waiting for go", flush=True)
            sys.exit(93)
        t.buf += d
os.write(fd, b"echo ALIVE=$((50+5))\n")
expect(rb"ALIVE=55", 30)
print("alive", flush=True)
os.write(fd, b"exit 0\n")
expect(rb"qsub: job \d+\.\S+ completed", 60)
p, st = os.waitpid(pid, 0)
print("qsub exit", os.waitstatus_to_exitcode(st), flush=True)
PY
timeout $((300 * TIME_SCALE)) python3 "$TMP/drive.py" "$u" "$TMP/bin/qsub" "$TIME_SCALE" "$TMP/go" \
    >"$TMP/drive.out" 2>&1 &
dpid=$!
trap 'touch "$TMP/go"; kill $dpid 2>/dev/null; wait $dpid 2>/dev/null; kill $pid 2>/dev/null; wait $pid 2>/dev/null; lib_cleanup' EXIT
said() { grep -q "^$1\$" "$TMP/drive.out"; }
check "qsub -I of account other: its shell answers" wait_for 120 said shell
ji=$(sed -n 's/^job //p' "$TMP/drive.out")
check "... the job is Running" is "$ji" Running

# The owner's job comes: REQUEUE preemption of the interactive job is refused.
printf '#!/bin/sh\nsleep 1\n' >own.sh
t qsub -A owner -l procs=2,walltime=60 own.sh
jo=$(sed -n 's/^\([0-9]*\)\..*/\1/p' "$TMP/out")
refused() { grep -q "job $ji not preempted: an interactive job (qsub -I) is not rerunnable" "$LOG"; }
check "the owner's job: the daemon does not requeue the interactive job, and logs why" \
    wait_for 30 refused
check "... the interactive job is still Running, the owner's job Idle" \
    sh -c "[ '$(state "$ji")' = Running ] && [ '$(state "$jo")' = Idle ]"
check "... it was never requeued (no preempt event)" \
    sh -c "! grep -q 'job $ji preempted' '$LOG'"
touch "$TMP/go"
check "... its shell still answers, and the session ends as the user says (exit 0)" \
    wait_for 60 sh -c "grep -q '^alive\$' '$TMP/drive.out' && grep -q '^qsub exit 0\$' '$TMP/drive.out'"
wait $dpid
check "the interactive job is Completed" wait_for 20 is "$ji" Completed
check "... then the owner's job runs on the node" wait_for 30 is "$jo" Completed

# A batch job of other in the same place is requeued, as before.
printf '#!/bin/sh\nsleep 30\n' >long.sh
t qsub -A other -l procs=2,walltime=120 long.sh
jb=$(sed -n 's/^\([0-9]*\)\..*/\1/p' "$TMP/out")
check "a batch job of other runs" wait_for 30 is "$jb" Running
t qsub -A owner -l procs=2,walltime=60 own.sh
jo2=$(sed -n 's/^\([0-9]*\)\..*/\1/p' "$TMP/out")
requeued() { grep -q "job $jb preempted (requeue)" "$LOG"; }
check "... the owner's job requeues it (REQUEUE preemption)" wait_for 30 requeued
check "... and runs" wait_for 30 is "$jo2" Completed
t qdel "$jb"
sed 's/^/# /' "$TMP/drive.out"
done_checks
