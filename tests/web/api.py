#!/usr/bin/python3
"""The web view's HTTP API against a running daemon (tests/integration/web.sh).

Usage: api.py --moku BIN --home DIR [--user NAME]
Logs in through `moku web` (as root, ADMIN1, and when --user is given as
that ordinary user too, with runuser) and checks sessions, CSRF, the Host
check, the JSON against the CLI's, rights, limits and changeparam. Prints
"ok N - ..." / "not ok N - ..." lines.

The daemon binds a session to the uid the kernel names for a connection's
other end: the uid that made the client socket. So the user's requests go
over sockets made by a child that became the user (connect_as), and the
attacks of issue 28 are played by such children: a server of the user's
that a browser of root's visits, a replayed cookie, a flood.
"""
import argparse
import http.client
import json
import os
import pwd
import select
import socket
import subprocess
import sys
import time
import urllib.parse

n = 0
failed = 0


def check(what, cond):
    global n, failed
    n += 1
    if not cond:
        failed += 1
    print(("ok" if cond else "not ok") + " %d - %s" % (n, what), flush=True)


def until(fn, secs=5):
    """fn() again every 0.1 s until it is true (returned), or secs (times
    TIME_SCALE) have passed (its last value): a wait for a condition, not a
    guessed time."""
    end = time.time() + secs * int(os.environ.get("TIME_SCALE", "1"))
    while True:
        got = fn()
        if got or time.time() >= end:
            return got
        time.sleep(0.1)


def cli(args, user=None, home=None):
    cmd = [A.moku] + args
    if user:
        cmd = ["runuser", "-u", user, "--", "env", "MOKU_HOME=" + home] + cmd
    env = dict(os.environ, MOKU_HOME=home or A.home)
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=30)
    return p.returncode, p.stdout, p.stderr


def become(user):
    """In a child: become user (their uid, gid, no other groups)."""
    pw = pwd.getpwnam(user)
    os.setgroups([])
    os.setgid(pw.pw_gid)
    os.setuid(pw.pw_uid)


def spawn_as(user, fn):
    """Start fn() in a child that became user: (pid, pipe) for collect."""
    rd, wr = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.close(rd)
            become(user)
            out = json.dumps(fn()).encode()
            os.write(wr, out)
            code = 0
        except BaseException as e:  # reported by the parent as a failed check
            os.write(wr, json.dumps({"exception": repr(e)}).encode())
        finally:
            os._exit(code)
    os.close(wr)
    return pid, rd


def collect(child):
    """What the child of spawn_as returned (JSON), once it ended."""
    pid, rd = child
    data = b""
    while True:
        d = os.read(rd, 65536)
        if not d:
            break
        data += d
    os.close(rd)
    os.waitpid(pid, 0)
    try:
        return json.loads(data)
    except ValueError:
        return {"exception": "no answer from the child"}


def connect_as(port, user=None, timeout=20):
    """A socket connected to 127.0.0.1:port, made by user (None: this
    process). The child that makes it passes it back (SCM_RIGHTS): the
    kernel keeps the socket's maker as its owner, whoever holds it since."""
    if not user:
        return socket.create_connection(("127.0.0.1", port), timeout=timeout)
    a, b = socket.socketpair()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            a.close()
            become(user)
            s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
            socket.send_fds(b, [b"s"], [s.fileno()])
            code = 0
        finally:
            os._exit(code)
    b.close()
    try:
        _, fds, _, _ = socket.recv_fds(a, 1, 1)
    finally:
        a.close()
        os.waitpid(pid, 0)
    if not fds:
        raise OSError("no connection made as %s" % user)
    s = socket.socket(fileno=fds[0])
    s.settimeout(timeout)
    return s


class Client:
    """One browser: its cookie jar is the session cookie alone; its
    connections are made by user (None: root, this process)."""

    def __init__(self, base, user=None):
        u = urllib.parse.urlsplit(base)
        self.host, self.port = u.hostname, u.port
        self.user = user
        self.cookie = None
        self.csrf = None

    def req(self, method, path, body=None, headers=None, host=None):
        c = http.client.HTTPConnection(self.host, self.port, timeout=20)
        c.sock = connect_as(self.port, self.user)
        h = dict(headers or {})
        if self.cookie:
            h["Cookie"] = self.cookie
        if host:
            c.putrequest(method, path, skip_host=True)
            c.putheader("Host", host)
            for k, v in h.items():
                c.putheader(k, v)
            data = body.encode() if isinstance(body, str) else body
            if data is not None:
                c.putheader("Content-Length", str(len(data)))
            c.endheaders(data)
        else:
            c.request(method, path, body=body, headers=h)
        r = c.getresponse()
        data = r.read()
        c.close()
        return r.status, dict((k.lower(), v) for k, v in r.getheaders()), data

    def login(self, url):
        path = url[url.index("/login"):]
        st, hdr, _ = self.req("GET", path)
        cookie = hdr.get("set-cookie", "")
        if st == 303 and cookie:
            self.cookie = cookie.split(";")[0]
        return st, cookie

    def get_json(self, path):
        st, _, data = self.req("GET", path)
        try:
            return st, json.loads(data)
        except ValueError:
            return st, None

    def run(self, cmd, args, csrf=True, ctype="application/json", body=None):
        h = {"Content-Type": ctype}
        if csrf:
            h["X-CSRF-Token"] = self.csrf if csrf is True else csrf
        if body is None:
            body = json.dumps({"cmd": cmd, "args": args})
        st, _, data = self.req("POST", "/api/run", body=body, headers=h)
        try:
            return st, json.loads(data)
        except ValueError:
            return st, None


def raw(port, text, wait=5, user=None):
    """Send text on a new connection (made by user); the socket and what
    came back within wait seconds (up to the first answer's status line)."""
    s = connect_as(port, user, timeout=wait)
    s.sendall(text.encode() if isinstance(text, str) else text)
    got = b""
    try:
        while b"\r\n" not in got:
            d = s.recv(4096)
            if not d:
                break
            got += d
    except OSError:
        pass
    return s, got


def status_of(got):
    return int(got[9:12]) if got.startswith(b"HTTP/1.1 ") else 0


def hostile(admin, base):
    """What the security review (web-attack) found, kept found."""
    host = "Host: 127.0.0.1:%d\r\n" % admin.port
    rc, url, c = login_as()
    path = url[url.index("/login"):]
    st, _, _ = c.req("GET", path, headers={"Sec-Fetch-Site": "cross-site"})
    check("a login link opened from another site's page is refused (login CSRF; 403: %d)" % st, st == 403)
    st, _, _ = c.req("HEAD", path)
    check("HEAD of a login link logs nobody in (%d)" % st, st != 303)
    st, cookie = c.login(url)
    check("and the link is still good when pasted (%d)" % st, st == 303 and cookie)
    st, data = admin.get_json("/api/showq?arg=%ff")
    check("an argument that is not UTF-8 is refused, not dropped (400: %d)" % st, st == 400)
    st, data = admin.get_json("/api/showq?arg=-v%00x")
    check("an argument with a NUL byte is refused, not cut short (400: %d)" % st, st == 400)
    t = time.time()
    s, got = raw(admin.port, "POST /api/run HTTP/1.1\r\n" + host + "Content-Type: application/json\r\n"
                 "Content-Length: 100000000\r\n\r\n")
    s.close()
    check("a POST without a session is answered before its body is read (%d in %.1f s)" % (status_of(got), time.time() - t),
          status_of(got) == 401 and time.time() - t < 3)
    s, got = raw(admin.port, "POST /api/run HTTP/1.1\r\n" + host + "Cookie: %s\r\nX-CSRF-Token: %s\r\n"
                 "Content-Type: application/json\r\nContent-Length: 100000000\r\n\r\n" % (admin.cookie, admin.csrf))
    s.close()
    check("a body announced over 64 KB is refused before it is sent (413: %d)" % status_of(got), status_of(got) == 413)
    s = socket.create_connection(("127.0.0.1", admin.port), timeout=5)
    s.sendall(("POST /api/run HTTP/1.1\r\n" + host + "Cookie: %s\r\nX-CSRF-Token: %s\r\n"
               "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n" % (admin.cookie, admin.csrf)).encode())
    closed = False
    try:
        for _ in range(40):
            s.sendall(b"1000\r\n" + b"x" * 4096 + b"\r\n")
            time.sleep(0.01)
    except OSError:
        closed = True
    if not closed:
        try:
            s.settimeout(3)
            closed = s.recv(100) == b""
        except socket.timeout:
            closed = False  # still reading it
        except OSError:
            closed = True
    s.close()
    check("a chunked body that goes on past 64 KB closes the connection", closed)
    # Not HTTP: answered at once, closed (issue 28: a TLS handshake was held 10 s in silence).
    for what, data in (("a TLS handshake", b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + bytes(range(40))),
                       ("garbage", b"\x00\x01hello there\r\n\r\n"), ("HTTP/2's preface", b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")):
        t = time.time()
        s, got = raw(admin.port, data)
        try:
            s.settimeout(2)
            rest = s.recv(4096)
            while rest:
                rest = s.recv(4096)
            closed = True
        except OSError:
            closed = False
        s.close()
        dt = time.time() - t
        check("%s on the web port: 400 and closed at once (%d, %.2f s)" % (what, status_of(got), dt),
              status_of(got) == 400 and closed and dt < 1.5)
    # Slow: a request line not whole, and headers dribbled, are cut off.
    t = time.time()
    part = connect_as(admin.port, timeout=10)
    part.sendall(b"GE")
    slow = connect_as(admin.port, timeout=10)
    slow.sendall(("GET /api/session HTTP/1.1\r\n" + host).encode())
    ends = {}
    while len(ends) < 2 and time.time() - t < 9:
        for name, s in (("part", part), ("slow", slow)):
            if name in ends:
                continue
            r, _, _ = select.select([s], [], [], 0.2)
            if r:
                try:
                    d = s.recv(4096)
                except OSError:
                    d = b""
                ends[name] = (status_of(d), round(time.time() - t, 1))
            elif name == "slow":
                try:
                    s.sendall(b"X-Slow: 1\r\n")
                except OSError:
                    ends[name] = (0, round(time.time() - t, 1))
    part.close()
    slow.close()
    check("a request line not whole in 5 s: 408 (%s)" % (ends.get("part"),),
          ends.get("part", (0, 99))[0] == 408 and 4.5 <= ends["part"][1] < 7)
    check("headers dribbled (slowloris): closed in 5 s (%s)" % (ends.get("slow"),),
          "slow" in ends and 4.5 <= ends["slow"][1] < 7)


def log_has(text):
    """Whether the daemon's log has a line with text (within 3 s)."""
    path = os.path.join(A.home, "log", "maui.log")
    end = time.time() + 3
    while True:
        with open(path, errors="replace") as f:
            if any(text in line for line in f):
                return True
        if time.time() > end:
            return False
        time.sleep(0.1)


def log_count(text):
    """How many lines of the daemon's log have text."""
    with open(os.path.join(A.home, "log", "maui.log"), errors="replace") as f:
        return sum(text in line for line in f)


def http_get(port, path, cookie=None, headers=None):
    """One GET on a socket of this process: (status, body)."""
    h = "GET %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nConnection: close\r\n" % (path, port)
    if cookie:
        h += "Cookie: %s\r\n" % cookie
    for k, v in (headers or {}).items():
        h += "%s: %s\r\n" % (k, v)
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.sendall((h + "\r\n").encode())
    data = b""
    while True:
        d = s.recv(65536)
        if not d:
            break
        data += d
    s.close()
    return status_of(data), data.split(b"\r\n\r\n", 1)[-1]


def evil_server(moku_port, job):
    """Issue 28's first attack, played by the user (in a child that became
    them): a web server on another local port, which a browser logged in
    to moku visits, sending it moku's cookie (a browser sends a 127.0.0.1
    cookie to every port of 127.0.0.1); with it, read the CSRF token and
    cancel the victim's job. What the user got: JSON."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    os.write(EVIL_PORT[1], b"%d\n" % srv.getsockname()[1])
    srv.settimeout(20)
    c, _ = srv.accept()
    c.settimeout(10)
    req = b""
    while b"\r\n\r\n" not in req:
        d = c.recv(4096)
        if not d:
            break
        req += d
    c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello")
    c.close()
    cookie = [l.split(b":", 1)[1].strip().decode() for l in req.split(b"\r\n") if l.lower().startswith(b"cookie:")]
    if not cookie:
        return {"cookie": None}
    st, body = http_get(moku_port, "/api/session", cookie[0])
    out = {"cookie": cookie[0], "session": st}
    try:
        csrf = json.loads(body).get("csrf", "x")
    except ValueError:
        csrf = "x"
    body = json.dumps({"cmd": "canceljob", "args": [job]})
    s = socket.create_connection(("127.0.0.1", moku_port), timeout=10)
    s.sendall(("POST /api/run HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nCookie: %s\r\nX-CSRF-Token: %s\r\n"
               "Content-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s"
               % (moku_port, cookie[0], csrf, len(body), body)).encode())
    data = b""
    while True:
        d = s.recv(65536)
        if not d:
            break
        data += d
    out["cancel"] = status_of(data)
    return out


EVIL_PORT = None


def stolen_cookie(admin, base):
    """A session and a login link are good only from their own uid's
    connections (issue 28): the attack itself, then replays both ways."""
    global EVIL_PORT
    uid = pwd.getpwnam(A.user).pw_uid
    rc, out, _ = cli(["showq", "--format=json"])
    q = json.loads(out)
    job = (q["active"] + q["idle"])[0]["id"]
    EVIL_PORT = os.pipe()
    child = spawn_as(A.user, lambda: evil_server(admin.port, job))
    os.close(EVIL_PORT[1])
    port = int(os.read(EVIL_PORT[0], 32).decode().strip() or 0)
    os.close(EVIL_PORT[0])
    # root's browser visits the user's page, its moku cookie along.
    st, _ = http_get(port, "/", admin.cookie)
    got = collect(child)
    check("the user's server got root's cookie, as a browser sends it (%s)" % got.get("exception", "yes"),
          got.get("cookie") == admin.cookie)
    check("root's cookie presented by the user's connection: no session (401: %s)" % got.get("session"),
          got.get("session") == 401)
    check("and no cancel of root's job with it (401: %s)" % got.get("cancel"), got.get("cancel") == 401)
    rc, out, _ = cli(["checkjob", job])
    check("root's job %s is still there, not cancelled" % job, rc == 0 and "Cancel" not in out)
    check("the daemon logged the refused session",
          log_has("a session of uid 0 presented from a connection of uid %d: refused" % uid))
    st, sess = admin.get_json("/api/session")
    check("root's own connection still has its session (%d)" % st, st == 200 and sess["user"] == "root")

    # The user's link, opened by root's browser: refused, and still good for the user.
    rc, uurl, user = login_as(A.user)
    st, _ = Client(base).login(uurl)
    check("the user's login link opened from root's connection is refused (403: %d)" % st, st == 403)
    check("and logged", log_has("a login link of uid %d opened from a connection of uid 0: refused" % uid))
    st, cookie = user.login(uurl)
    check("the link is still good from the user's own connection (303: %d)" % st, st == 303 and cookie)
    # root's link, opened by the user: refused, still good for root.
    rc, aurl, _ = login_as()
    st, _ = Client(base, A.user).login(aurl)
    check("root's login link opened from the user's connection is refused (403: %d)" % st, st == 403)
    st, _ = Client(base).login(aurl)
    check("and still good for root (303: %d)" % st, st == 303)
    # The user's cookie, replayed from root's connection: a session is its user's alone.
    thief = Client(base)
    thief.cookie = user.cookie
    st, _ = thief.get_json("/api/session")
    check("the user's cookie presented by root's connection: no session (401: %d)" % st, st == 401)
    st, sess = user.get_json("/api/session")
    check("its owner's connection is accepted (200: %d)" % st, st == 200 and sess["user"] == A.user)
    return user


def flood(port, n=300, secs=9.0):
    """n slow connections from one user (in a child that became them), each
    sending a request line and then a header line a second (slowloris);
    what became of them: refused (a 429, or closed within a second of its
    connect), held (open longer), still open at the end, when the last held
    one was closed (seconds from the start)."""
    t0 = time.time()
    live, born, failed = {}, {}, 0
    for _ in range(n):
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=3)
            born[s] = time.time()
            s.sendall(b"GET /api/session HTTP/1.1\r\n")
            live[s] = b""
        except OSError:
            failed += 1
    refused, held, last_close, tick = 0, 0, 0.0, time.time()
    while live and time.time() - t0 < secs:
        ready, _, _ = select.select(list(live), [], [], 0.2)
        for s in ready:
            try:
                d = s.recv(4096)
            except OSError:
                d = b""
            if d:
                live[s] += d
                continue
            if live[s].startswith(b"HTTP/1.1 429") or time.time() - born[s] < 1:
                refused += 1
            else:
                held += 1
                last_close = time.time() - t0
            del live[s]
            s.close()
        if time.time() - tick >= 1:
            tick = time.time()
            for s in list(live):
                try:
                    s.sendall(b"X-Slow: 1\r\n")
                except OSError:
                    pass
    return {"refused": refused, "failed": failed, "held": held, "open": len(live),
            "last_close": round(last_close, 1)}


def login_as(user=None):
    rc, out, err = cli(["web"], user=user, home=A.home)
    url = out.strip()
    c = Client(url[:url.index("/login")] if "/login" in url else "http://127.0.0.1:1", user)
    return rc, url, c


def main():
    rc, url, admin = login_as()
    check("moku web prints a login link (exit %d: %s)" % (rc, url), rc == 0 and "/login?token=" in url)
    base = url[:url.index("/login")]

    anon = Client(base)
    st, _, body = anon.req("GET", "/")
    check("without a session / is the page that says to run moku web", st == 200 and b"moku web" in body and b"<script" not in body)
    st, _, _ = anon.req("GET", "/app.js")
    check("without a session the page's files are refused (401: %d)" % st, st == 401)
    st, data = anon.get_json("/api/showq")
    check("without a session /api/showq is refused (401: %d)" % st, st == 401 and "error" in (data or {}))
    st, _, _ = anon.req("GET", "/login?token=" + "0" * 64)
    check("an unknown token logs nobody in (403: %d)" % st, st == 403)
    st, _, _ = anon.req("POST", "/api/run", body="{}", headers={"Content-Type": "application/json"})
    check("POST without a session is refused (401: %d)" % st, st == 401)

    st, cookie = admin.login(url)
    check("the link logs in: 303 and a cookie", st == 303 and cookie.startswith("moku_session="))
    check("the cookie is HttpOnly and SameSite=Strict", "HttpOnly" in cookie and "SameSite=Strict" in cookie)
    st2, _ = Client(base).login(url)
    check("the link works once (second use: %d)" % st2, st2 == 403)

    st, hdr, body = admin.req("GET", "/")
    check("with the session / is the page", st == 200 and b"app.js" in body)
    csp = hdr.get("content-security-policy", "")
    check("the page forbids inline script, other origins and framing (CSP)", "script-src 'self'" in csp and "frame-ancestors 'none'" in csp and "default-src 'none'" in csp)
    check("nosniff and no referrer", hdr.get("x-content-type-options") == "nosniff" and hdr.get("referrer-policy") == "no-referrer")
    web_dir = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "web")
    for name in sorted(os.listdir(web_dir)):
        st, hdr, body = admin.req("GET", "/" + name)
        with open(os.path.join(web_dir, name), "rb") as f:
            want = f.read()
        check("web/%s is served by moku itself, whole (%d)" % (name, st), st == 200 and body == want)
    st, _, _ = admin.req("GET", "/../maui.cfg")
    check("nothing else is (%d)" % st, st in (400, 404))
    st, sess = admin.get_json("/api/session")
    check("the session is root's, ADMIN1", st == 200 and sess["user"] == "root" and sess["admin"] == 1 and len(sess["csrf"]) == 64)
    admin.csrf = sess["csrf"]

    # The JSON is the CLI's.
    st, web_q = admin.get_json("/api/showq")
    rc, out, _ = cli(["showq", "--format=json"])
    cli_q = json.loads(out)
    ids = lambda q: {k: [j["id"] for j in q[k]] for k in ("active", "idle", "blocked")}
    check("/api/showq lists what showq --format=json lists", st == 200 and ids(web_q) == ids(cli_q) and web_q["summary"] == cli_q["summary"])
    st, web_n = admin.get_json("/api/checknode?arg=ALL")
    rc, out, _ = cli(["checknode", "ALL", "--format=json"])
    check("/api/checknode?arg=ALL is checknode ALL --format=json", st == 200 and web_n == json.loads(out))
    st, web_p = admin.get_json("/api/diagnose?arg=-p")
    check("/api/diagnose?arg=-p has the weights", st == 200 and "weights" in web_p and "jobs" in web_p)
    st, data = admin.get_json("/api/checkjob?arg=nosuchjob")
    check("a command's error is a 400 with its message (%d %s)" % (st, data), st == 400 and "nosuchjob" in data.get("error", ""))
    check("as a JSON object whose error is plain text, not JSON in a string (%s)" % data,
          data.get("error", "").startswith("checkjob: ") and data.get("exit") == 1 and data.get("ok") is False)
    st, data = admin.run("checkjob", ["nosuchjob", "--format=json"])
    check("and so from /api/run (%d %s)" % (st, data),
          st == 400 and data.get("error", "").startswith("checkjob: ") and "output" not in data)
    st, data = admin.get_json("/api/submit")
    check("GET of a command that is not a read one is 404 (%d)" % st, st == 404)
    st, hist = admin.get_json("/api/history")
    check("/api/history has samples", st == 200 and hist["interval"] == 60 and len(hist["samples"]) >= 1 and "busy" in hist["samples"][0])

    # What changes state needs the page's CSRF token and a JSON body.
    st, data = admin.run("schedctl", ["-s"], csrf=False)
    check("POST without X-CSRF-Token is refused (403: %d)" % st, st == 403)
    st, data = admin.run("schedctl", ["-s"], csrf="f" * 64)
    check("POST with a wrong X-CSRF-Token is refused (403: %d)" % st, st == 403)
    st, data = admin.run("schedctl", ["-s"], ctype="text/plain")
    check("POST as text/plain (a form) is refused (415: %d)" % st, st == 415)
    st, data = admin.run("submit", [])
    check("submit is not run from the web (400: %d)" % st, st == 400)
    st, data = admin.run("x", [], body='{"cmd":"showq","args":["x"],"more":1}')
    check("a body with other fields is refused (400: %d)" % st, st == 400)
    st, data = admin.run("x", [], body='{"cmd":"showq","args":[1]}')
    check("args must be strings (400: %d)" % st, st == 400)
    st, data = admin.run("x", [], body="x" * (70 * 1024))
    check("a body over 64 KB is refused (413: %d)" % st, st == 413)
    st, _, _ = admin.req("GET", "/api/session", host="evil.example:%d" % admin.port)
    check("another Host name gets nothing (DNS rebinding; 421: %d)" % st, st == 421)
    hostile(admin, base)

    # setres from the web as ADMIN1, seen by showres.
    st, data = admin.run("setres", ["-d", "0:30:00", "-s", "+1:00:00", "n1"])
    check("ADMIN1 creates a reservation from the web (%d %s)" % (st, data), st == 200 and data["ok"])
    rc, out, _ = cli(["showres", "--format=json"])
    rid = [r["id"] for r in json.loads(out)["reservations"] if r["nodes"] == ["n1"] and r["type"] == "User"]
    check("showres lists it", len(rid) >= 1)

    # changeparam: written, reloaded, refused cleanly.
    cfg = os.path.join(A.home, "maui.cfg")
    st, data = admin.run("changeparam", ["QUEUETIMEWEIGHT", "7", "XFACTORWEIGHT", "3"])
    check("changeparam applies (%d %s)" % (st, data), st == 200 and "reloaded" in data.get("output", ""))
    rc, out, _ = cli(["diagnose", "-p", "--format=json"])
    w = json.loads(out)["weights"]["factors"]
    check("diagnose -p shows the new weights", w["queuetime"]["weight"] == 7 and w["xfactor"]["weight"] == 3)
    before = open(cfg).read()
    check("maui.cfg keeps them", "QUEUETIMEWEIGHT 7" in before and "XFACTORWEIGHT 3" in before)
    st, data = admin.run("changeparam", ["QUEUETIMEWEIGHT", "seven"])
    check("a bad value is the reload's refusal, with the line (%d %s)" % (st, data), st == 400 and "maui.cfg:" in data.get("error", ""))
    check("and maui.cfg is as it was", open(cfg).read() == before)
    st, data = admin.run("changeparam", ["QUEUETIMEWEIGHT", "1\nADMIN1 mallory"])
    check("a value with a newline is refused", st == 400 and open(cfg).read() == before)
    st, data = admin.run("changeparam", ["LOGLEVEL", "1 \\"])
    check("a value ending in a backslash (it would join the next line) is refused", st == 400 and open(cfg).read() == before)
    st, data = admin.run("changeparam", ["NOSUCHPARAM", "1"])
    check("an unknown parameter is refused", st == 400 and "NOSUCHPARAM" in data.get("error", ""))

    if A.user:
        user = stolen_cookie(admin, base)
        st, s2 = user.get_json("/api/session")
        check("%s logs in with their own link, as an ordinary user" % A.user, st == 200 and s2["user"] == A.user and s2["admin"] == 0)
        user.csrf = s2["csrf"]
        st, data = user.run("setres", ["-d", "0:30:00", "n1"])
        check("an ordinary user may not create a reservation (%d %s)" % (st, data), st == 400 and "not authorized" in data.get("error", "") + data.get("output", ""))
        st, data = user.run("changeparam", ["QUEUETIMEWEIGHT", "1"])
        check("nor change a parameter", st == 400 and "not authorized" in data.get("error", ""))
        st, data = user.run("releaseres", rid[:1])
        check("nor release root's reservation", st == 400 and "not authorized" in data.get("error", "") + data.get("output", ""))
        st, data = user.get_json("/api/diagnose?arg=-p")
        check("nor read what Maui shows administrators only (%d)" % st, st == 400 and "not authorized" in (data or {}).get("error", ""))
        st, data = user.run("schedctl", ["-s"], csrf=admin.csrf)
        check("root's CSRF token is no good in another session (403: %d)" % st, st == 403)
        # At most 16 connections carry one user's requests: no more replies
        # left unread to pin the daemon's memory (web-attack).
        time.sleep(0.3)  # the user's earlier connections, closed, are the daemon's no more
        conns = [raw(user.port, "GET /api/session HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nCookie: %s\r\n\r\n"
                     % (user.port, user.cookie), user=A.user) for _ in range(17)]
        codes = [status_of(got) for _, got in conns]
        check("one user's 17th connection is refused (429; %s)" % codes, codes[:16] == [200] * 16 and codes[16] == 429)
        st, _ = admin.get_json("/api/session")
        check("while another user is served (%d)" % st, st == 200)
        for s, _ in conns:
            s.close()
        st = until(lambda: user.get_json("/api/session")[0] == 200 and 200) or user.get_json("/api/session")[0]
        check("and the user again once they are closed (%d)" % st, st == 200)
        # The rate limit: one user's flood is theirs alone.
        codes = [user.req("GET", "/api/showq")[0] for _ in range(80)]
        check("a flood of one user's requests meets 429 (%d of 80)" % codes.count(429), codes.count(429) > 0)
        st, _ = admin.get_json("/api/showq")
        check("while another user is still served (%d)" % st, st == 200)
        # 300 slow connections of one user: 16 held, the rest refused at
        # once, the 16 closed when their request is not whole in 5 s;
        # root is served all along (issue 28).
        child = spawn_as(A.user, lambda: flood(user.port))
        time.sleep(1.5)
        times = []
        for _ in range(5):
            t = time.time()
            st, _ = admin.get_json("/api/session")
            times.append((st, round(time.time() - t, 2)))
            time.sleep(0.5)
        got = collect(child)
        check("during one user's 300 slow connections root is served at once (%s)" % times,
              all(st == 200 and dt < 2 for st, dt in times))
        check("of the 300, at most 16 held and the rest refused at once (%s)" % got,
              got.get("held", 99) <= 16 and got.get("refused", 0) + got.get("held", 0) == 300)
        check("the held ones closed within 7 s, their requests not whole (%s)" % got,
              got.get("open", 1) == 0 and 0 < got.get("last_close", 99) < 7)
        nlines = log_count("refused in the last minute")
        check("the refusals are logged, once a minute, not once each (%d lines)" % nlines, 1 <= nlines <= 2)
        # Once the budget has refilled (a 429 is a request not taken).
        logout = lambda: user.req("POST", "/api/logout", body="{}",
                                  headers={"Content-Type": "application/json", "X-CSRF-Token": user.csrf})[0]
        st = until(lambda: (lambda c: c if c != 429 else 0)(logout()), 10) or 429
        check("logout (%d)" % st, st == 200)
        st, _ = user.get_json("/api/session")
        check("after logout the cookie is worth nothing (401: %d)" % st, st == 401)

    print("# %d checks, %d failed" % (n, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--moku", required=True)
    p.add_argument("--home", required=True)
    p.add_argument("--user")
    A = p.parse_args()
    sys.exit(main())
