#!/usr/bin/python3
"""The web view's HTTP API against a running daemon (tests/integration/web.sh).

Usage: api.py --moku BIN --home DIR [--user NAME]
Logs in through `moku web` (as root, ADMIN1, and when --user is given as
that ordinary user too, with runuser) and checks sessions, CSRF, the Host
check, the JSON against the CLI's, rights, limits and changeparam. Prints
"ok N - ..." / "not ok N - ..." lines.
"""
import argparse
import http.client
import json
import os
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


class Client:
    """One browser: its cookie jar is the session cookie alone."""

    def __init__(self, base):
        u = urllib.parse.urlsplit(base)
        self.host, self.port = u.hostname, u.port
        self.cookie = None
        self.csrf = None

    def req(self, method, path, body=None, headers=None, host=None):
        c = http.client.HTTPConnection(self.host, self.port, timeout=20)
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


def raw(port, text, wait=5):
    """Send text on a new connection; the socket and what came back within
    wait seconds (up to the first answer's status line)."""
    s = socket.create_connection(("127.0.0.1", port), timeout=wait)
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


def login_as(user=None):
    rc, out, err = cli(["web"], user=user, home=A.home)
    url = out.strip()
    c = Client(url[:url.index("/login")] if "/login" in url else "http://127.0.0.1:1")
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
        rc, uurl, user = login_as(A.user)
        st, _ = user.login(uurl)
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
        conns = [raw(user.port, "GET /api/session HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nCookie: %s\r\n\r\n"
                     % (user.port, user.cookie)) for _ in range(17)]
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
