#!/bin/sh
# qsub -I attacked (issue 30 round's surfaces): user A's interactive job
# against a hostile user B on the same machine, a real daemon running as
# root, two real users (useradd), A's qsub on a real terminal (Python's pty).
# B, trying the supervisor's socket (<spool>/<id>/tty.sock) every few
# milliseconds from before the job starts until A's shell runs, never gets
# a connection, let alone the terminal; A's shell carries none of the
# daemon's (root's) environment; an absurd window size reaches the shell
# without harm; qsub killed mid-session leaves no process of A's behind,
# not even ones that ignore SIGHUP and SIGTERM (nohup, trap ''). Run under
# flock /tmp/moku-users.lock (fixed user names).
. tests/integration/lib.sh

if [ "$(id -u)" != 0 ] || ! command -v useradd >/dev/null 2>&1 || ! command -v python3 >/dev/null 2>&1; then
    echo "not ok 1 - attack_interactive.sh needs root, useradd and python3 (scripts/deps.sh)"
    done_checks
    exit 0
fi
ua=mokuatia
ub=mokuatib
add_user "$ua"
add_user "$ub"
. tests/integration/lib_torque.sh
chmod 755 "$TMP"
# Something of root's the job's shell must not see.
export MOKU_ATK_SECRET=root-only
torque_serve 'RMPOLLINTERVAL 1\nNODECFG[n1] PROCS=2\nLOGLEVEL 3\n' qsub
unset MOKU_ATK_SECRET
torque_user_qsub

cat >"$TMP/attack.py" <<'PY'
import errno, fcntl, os, pty, pwd, re, select, signal, socket, struct, subprocess, sys, termios, time
ua, ub, qsub, moku, home, tmp, scale = sys.argv[1:7] + [int(sys.argv[7])]
pa, pb = pwd.getpwnam(ua), pwd.getpwnam(ub)
sys.path.insert(0, os.environ["QSUB_PTY"])
from qsub_pty import Session, become
t = Session(pa, qsub, ["-I", "-h", "-l", "walltime=5:00"], scale, os.path.join(tmp, "tty.log"))
pid, fd, expect = t.pid, t.fd, t.expect
jid = expect(rb"qsub: waiting for job (\d+)\.\S+ to start", 30).group(1).decode()
print("job", jid, flush=True)
# B's prober: from before the job starts (it is held) until told to stop.
stop = os.path.join(tmp, "stop")
out = os.path.join(tmp, "probe.out")
open(out, "w").close()
os.chown(out, pb.pw_uid, pb.pw_gid)  # B's to write ($TMP is root's)
probe = os.fork()
if probe == 0:
    become(pb)
    path = "%s/spool/%s/tty.sock" % (home, jid)
    seen = {}
    end = time.monotonic() + 120 * scale
    while not os.path.exists(stop) and time.monotonic() < end:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect(path)
            s.settimeout(2)
            try:
                msg, anc, _, _ = s.recvmsg(16, socket.CMSG_SPACE(4))
                what = "connected-" + ("terminal" if anc else "nothing")
            except OSError:
                what = "connected-nothing"
        except OSError as e:
            what = errno.errorcode.get(e.errno, str(e.errno))
        finally:
            s.close()
        seen[what] = seen.get(what, 0) + 1
        time.sleep(0.005)
    with open(out, "w") as f:
        for k in sorted(seen):
            f.write("%s %d\n" % (k, seen[k]))
    os._exit(0)
time.sleep(0.5 * scale)  # the prober runs before the job can start
subprocess.run([moku, "releasehold", jid], stdout=subprocess.DEVNULL, timeout=30 * scale)
expect(rb"qsub: job \d+\.\S+ ready", 120)
os.write(fd, b"echo SECRET=[$MOKU_ATK_SECRET] HOME=[$HOME] U=[$(id -un)]\n")
m = expect(rb"SECRET=\[([^]$]*)\] HOME=\[([^]$]*)\] U=\[([^]$]*)\]", 60)
print("secret [%s] home [%s] user [%s]" % tuple(g.decode() for g in m.groups()), flush=True)
fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 65535, 65535, 65535, 65535))
os.write(fd, b"stty size; echo ALIVE=$((6*7))\n")
expect(rb"ALIVE=42", 60)
print("alive after the window size", flush=True)
os.write(fd, b"(trap '' HUP TERM INT; exec sleep 611) & nohup sleep 612 >/dev/null 2>&1 & echo STARTED=$((1+1))\n")
expect(rb"STARTED=2", 60)
print("started", flush=True)
open(stop, "w").close()
os.waitpid(probe, 0)
os.kill(pid, signal.SIGKILL)
os.waitpid(pid, 0)
print("killed", flush=True)
PY
timeout $((300 * TIME_SCALE)) python3 "$TMP/attack.py" "$ua" "$ub" "$TMP/bin/qsub" "$MOKU" "$H" "$TMP" \
    "$TIME_SCALE" >"$TMP/drive.out" 2>&1
rc=$?
said() { grep -q "^$1\$" "$TMP/drive.out"; }
jid=$(sed -n 's/^job //p' "$TMP/drive.out")
check "A's qsub -I: the session ran as the driver wanted (status $rc)" [ "$rc" = 0 ]
check "... B's prober tried the socket, and it was there to try (EACCES)" \
    grep -q '^EACCES [1-9]' "$TMP/probe.out"
check "... B never connected to A's terminal's socket" \
    sh -c "! grep -q '^connected' '$TMP/probe.out'"
check "... A's shell has none of root's environment, A's own HOME and name" \
    said "secret \\[\\] home \\[$(getent passwd "$ua" | cut -d: -f6)\\] user \\[$ua\\]"
check "... a 65535x65535 window size harmed nothing" said "alive after the window size"
check "... processes ignoring SIGHUP and SIGTERM started, then qsub killed" \
    sh -c "grep -q '^started\$' '$TMP/drive.out' && grep -q '^killed\$' '$TMP/drive.out'"
ended() {
    s=$(state "$jid")
    [ "$s" = Removed ] || [ "$s" = Completed ]
}
check "qsub killed: A's job ends" wait_for 60 ended
none_left() { ! pgrep -u "$ua" >/dev/null; }
check "... and no process of A's is left (nohup, trap '' HUP TERM)" wait_for 30 none_left
check "... the socket is gone" [ ! -e "$H/spool/$jid/tty.sock" ]
sed 's/^/# /' "$TMP/drive.out" "$TMP/probe.out" 2>/dev/null
done_checks
exit 0
