"""qsub -I on a pseudo-terminal, for the interactive tests (torque_interactive.sh,
torque_interactive_preempt.sh, attack_interactive.sh): qsub runs as a user on a
new terminal, and the test waits for what the terminal shows, every wait bounded
(scaled by TIME_SCALE). A wait that times out kills qsub and exits 90; a
terminal that closes first exits 91."""
import os
import pty
import pwd
import re
import select
import signal
import sys
import time


def become(pw):
    """Drop root for the user pw (a pwd entry): no supplementary groups."""
    os.setgroups([])
    os.setgid(pw.pw_gid)
    os.setuid(pw.pw_uid)


class Session:
    """qsub (its path and arguments) run as user on a new terminal; what it
    shows is appended to log (a path) when one is given."""

    def __init__(self, user, qsub, args, scale, log=None):
        pw = user if isinstance(user, pwd.struct_passwd) else pwd.getpwnam(user)
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            become(pw)
            os.execv(qsub, ["qsub"] + list(args))
        self.scale = scale
        self.log = open(log, "ab") if log else None
        self.buf = b""

    def expect(self, pat, secs):
        """The first match of pat (bytes) within secs * scale seconds; what
        came before it is consumed."""
        end = time.monotonic() + secs * self.scale
        while True:
            m = re.search(pat, self.buf)
            if m:
                self.buf = self.buf[m.end():]
                return m
            left = end - time.monotonic()
            if left <= 0:
                print("timeout waiting for %r" % pat, flush=True)
                try:
                    os.kill(self.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                sys.exit(90)
            r, _, _ = select.select([self.fd], [], [], left)
            if r:
                try:
                    d = os.read(self.fd, 4096)
                except OSError:
                    d = b""
                if not d:
                    print("terminal closed waiting for %r" % pat, flush=True)
                    sys.exit(91)
                if self.log:
                    self.log.write(d)
                    self.log.flush()
                self.buf += d

    def write(self, data):
        os.write(self.fd, data)
