#!/usr/bin/python3
"""The web pages in a real browser (headless Chromium through Selenium).

    /usr/bin/python3 tests/web/browser.py --url ADMIN_LOGIN_URL --user-url USER_LOGIN_URL \
        --user NAME --home DIR --moku bin/moku [--job ID] [--shots DIR]

ADMIN_LOGIN_URL and USER_LOGIN_URL are the one-time URLs `moku web` prints for
an ADMIN1 and for the ordinary user NAME of the daemon serving DIR. The
user's part runs in a Chromium of that user's own (chromedriver started
through runuser): the daemon binds a session to the uid the kernel names
for each connection, so a browser of root's could not use NAME's link. The checks
print "ok N - what" / "not ok N - what" as tests/integration/lib.sh does (so
tests/run.sh can count them); the exit status is 1 when any failed (a
browser that cannot be started is a failed check).

What it checks: the login; a queued job on the Queue page; on the Priorities
page, a weight moved by its slider and number box re-ranks the queue as the
priority formula (src/policy/prio.c, recomputed here from the CLI's
`diagnose -p --format=json`) predicts, Apply (changeparam) makes the daemon's
own order the one the page showed, and the weight is put back; a reservation
made from the timeline's form is listed by the CLI's showres, drawn on the
timeline, then released from the form; a POST without the CSRF header is
refused (403); the ordinary user gets no reservation form, a disabled Apply,
and a forced setres or changeparam from the page's JS is refused; every tab,
screenshotted, is not blank. Issue 30: the queue shows each job's name,
a running job's nodes and elapsed time; the cancel button asks first in the
page, naming the job and its owner (Keep leaves the job, the confirmation
cancels it), and says so for another user's running job; times are on the
daemon's clock, whose zone the header shows (the daemon runs under another
zone than the browser); chart axes never repeat a label; overlapping bars of
the timeline sit in rows of their own; the ordinary user does not get the
tabs of commands they may not use, and the page asks the daemon nothing it
refuses them. Needs python3-selenium, chromium and
chromium-driver (Debian packages); PIL is used when present, else the PNG is
decoded here with zlib.
"""
import argparse
import json
import os
import re
import struct
import subprocess
import sys
import time
import zlib

TABS = ["queue", "nodes", "resv", "fs", "prio", "util"]
USER_HIDDEN = ["nodes", "resv", "fs", "prio"]  # checknode, showres, diagnose: ADMIN1..3's


class Checks:
    """TAP-like lines, numbered as tests/integration/lib.sh numbers them."""

    def __init__(self):
        self.n = 0
        self.failed = 0

    def check(self, cond, what, detail=""):
        self.n += 1
        if cond:
            print("ok %d - %s" % (self.n, what), flush=True)
        else:
            self.failed += 1
            print("not ok %d - %s%s" % (self.n, what, (": " + detail) if detail else ""), flush=True)
        return cond


T = Checks()
ARGS = None
SUBMITTED = []  # jobs the test submitted, cancelled at the end


# ---- the CLI, for cross-checks ----

def cli(*args):
    env = dict(os.environ, MOKU_HOME=ARGS.home)
    p = subprocess.run([ARGS.moku] + list(args), env=env, capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout + p.stderr


def cli_json(*args):
    rc, out = cli(*(list(args) + ["--format=json"]))
    if rc:
        raise RuntimeError("%s: %s" % (" ".join(args), out.strip()))
    return json.loads(out)


# ---- the priority formula (docs/priority.md; the page's prio.js does the same) ----

def whatif(job, w, slider):
    """Priority of job (diagnose -p JSON) with the weights in slider {param: value} changed."""
    val = lambda p, conf: slider.get(p, conf)
    sums = {c: 0.0 for c in w["components"]}
    for f, fw in w["factors"].items():
        raw = (job.get("factors") or {}).get(f)
        if raw is None:
            continue
        jw = (job.get("weights") or {}).get(f, fw["weight"])
        wf = jw - fw["weight"] + val(fw["param"], fw["weight"])
        comp = w["components"][fw["component"]]
        cw = val(comp["param"], comp["weight"])
        F = min(fw["cap"], raw) if fw["cap"] > 0 else raw
        if wf != 0 and cw != 0:
            sums[fw["component"]] += wf * F
    total = 0.0
    for c, cc in w["components"].items():
        cw = val(cc["param"], cc["weight"])
        s = min(cc["cap"], sums[c]) if cc["cap"] > 0 else sums[c]
        if c != "usage" and cw != 0:
            total += cw * s
    total = max(total, w["floor"])
    total = min(total, w["clip"])
    if w["floor"] < 0:
        total = max(total, -w["clip"])
    sp = job.get("sysprio")
    if sp:
        total = w["clip"] + sp["value"] if sp["mode"] == "absolute" else total + sp["value"]
    return total


def submit_times():
    """Job id -> submit (or queue) time, for breaking ties as the engine does."""
    q = cli_json("showq")
    return {str(j["id"]): j.get("submit", j.get("queuetime", 0)) for j in q["idle"] + q["blocked"] + q["active"]}


def order(jobs, prio, submit):
    """Ids by priority descending, then earlier submit time, then lower id."""
    def key(j):
        jid = str(j["id"])
        return (-prio(j), submit.get(jid, 0), int(jid) if jid.isdigit() else 0, jid)
    return [str(j["id"]) for j in sorted(jobs, key=key)]


def robust(jobs, prio):
    """Whether neighbours in the order are apart by more than a few minutes of queue time."""
    ps = sorted((prio(j) for j in jobs), reverse=True)
    return all(a - b > 30 for a, b in zip(ps, ps[1:]))


def pick_weight(diag):
    """A factor weight (param, value) that ranks the idle jobs apart, preferably differently from now."""
    w, jobs = diag["weights"], diag["jobs"]
    submit = submit_times()
    now = order(jobs, lambda j: j["priority"], submit)
    best = None
    for f in ["proc", "walltime", "ps", "pe", "node", "xfactor", "queuetime"]:
        fw = w["factors"].get(f)
        if not fw or w["components"][fw["component"]]["weight"] == 0:
            continue
        for v in [1000, -1000, 100000, 10, 1, -10, -1]:
            v = fw["weight"] + v
            sl = {fw["param"]: v}
            pr = lambda j, sl=sl: whatif(j, w, sl)
            if not robust(jobs, pr) or min(pr(j) for j in jobs) <= w["floor"]:
                continue
            cand = (fw["param"], v, order(jobs, pr, submit))
            if cand[2] != now:
                return cand
            best = best or cand
    return best


# ---- PNG: is a screenshot blank? ----

def png_colours(path, limit=64):
    """Distinct colours in a PNG (counting stops at limit)."""
    try:
        from PIL import Image  # python3-pil, when installed
        im = Image.open(path).convert("RGB")
        cols = im.getcolors(maxcolors=1 << 24)
        return min(limit, len(cols or []))
    except ImportError:
        pass
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, hdr = 8, b"", None
    while pos < len(data):
        ln, typ = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + ln]
        if typ == b"IHDR":
            hdr = struct.unpack(">IIBBBBB", body)
        elif typ == b"IDAT":
            idat += body
        pos += 12 + ln
    w, h, depth, ctype, _, _, interlace = hdr
    if depth != 8 or ctype not in (2, 6) or interlace:
        raise RuntimeError("unexpected PNG format %s" % (hdr,))
    bpp = 3 if ctype == 2 else 4
    raw, stride = zlib.decompress(idat), w * bpp
    prev, seen, i = bytearray(stride), set(), 0
    for _ in range(h):
        ft, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b, c = prev[x], prev[x - bpp] if x >= bpp else 0
            if ft == 1:
                line[x] = (line[x] + a) & 255
            elif ft == 2:
                line[x] = (line[x] + b) & 255
            elif ft == 3:
                line[x] = (line[x] + ((a + b) >> 1)) & 255
            elif ft == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        prev = line
        for x in range(0, stride, bpp * 7):  # a sample of the row is enough
            seen.add(bytes(line[x:x + 3]))
        if len(seen) >= limit:
            break
    return len(seen)


# ---- the browser ----

def as_user(user):
    """A chromedriver that runs as user (a wrapper through runuser), and a
    profile directory of theirs: (driver path, profile)."""
    import pwd
    import tempfile
    pw = pwd.getpwnam(user)
    top = tempfile.mkdtemp(prefix="moku-browser-")
    os.chmod(top, 0o755)
    home = os.path.join(top, "home")
    os.mkdir(home, 0o700)
    os.chown(home, pw.pw_uid, pw.pw_gid)
    wrapper = os.path.join(top, "chromedriver")
    with open(wrapper, "w") as f:
        f.write("#!/bin/sh\nexec runuser -u %s -- env HOME=%s TMPDIR=%s %s \"$@\"\n"
                % (user, home, home, ARGS.chromedriver))
    os.chmod(wrapper, 0o755)
    return wrapper, top, os.path.join(home, "profile")


def browser(user=None):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    o = webdriver.ChromeOptions()
    o.binary_location = ARGS.chromium
    driver = ARGS.chromedriver
    if user:
        driver, top, profile = as_user(user)
        CLEANUP.append(top)
        o.add_argument("--user-data-dir=" + profile)
    for a in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,1000",
              "--disable-extensions", "--no-first-run"]:
        o.add_argument(a)
    o.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    d = webdriver.Chrome(service=Service(driver), options=o)
    d.set_script_timeout(30)
    return d


CLEANUP = []


def wait(cond, timeout=20, step=0.25):
    """cond() until it returns something true, or None after timeout seconds."""
    end = time.time() + timeout
    while True:
        try:
            v = cond()
            if v:
                return v
        except Exception:
            pass
        if time.time() > end:
            return None
        time.sleep(step)


def css(d, sel):
    from selenium.webdriver.common.by import By
    return d.find_elements(By.CSS_SELECTOR, sel)


def click(d, sel, timeout=10):
    """Scroll to and click the first element matching sel. The queue page
    redraws its rows on every refresh, so an element found a moment ago can
    be stale by the click: find it again and retry until timeout."""
    def go():
        b = css(d, sel)
        if not b:
            return None
        d.execute_script("arguments[0].scrollIntoView({block: 'center'})", b[0])
        b[0].click()
        return True
    return wait(go, timeout)


def tab(d, name):
    css(d, "#tab-" + name)[0].click()
    return wait(lambda: d.execute_script("return document.body.getAttribute('data-loaded-' + arguments[0])", name))


def fetch(d, method, path, body=None, csrf=True):
    """fetch() from the page's JS context: {status, body}. csrf: send the session's token."""
    return d.execute_async_script("""
        const [method, path, body, csrf, done] = arguments;
        (async () => {
          const h = {"Content-Type": "application/json"};
          if (csrf) {
            const s = await (await fetch("/api/session", {credentials: "same-origin"})).json();
            h["X-CSRF-Token"] = s.csrf;
          }
          const r = await fetch(path, {method, credentials: "same-origin", headers: h,
                                       body: body === null ? undefined : JSON.stringify(body)});
          done({status: r.status, body: await r.text()});
        })().catch((e) => done({status: -1, body: String(e)}));
    """, method, path, body, csrf)


def reply(d, cmd_prefix, since):
    """The #reply box once it shows a reply to cmd_prefix newer than since: (ok, text)."""
    def got():
        r = css(d, "#reply")[0]
        if r.is_displayed() and (r.get_attribute("data-cmd") or "").startswith(cmd_prefix) \
                and r.get_attribute("data-seq") != since:
            return r
    r = wait(got, 30)
    if not r:
        return None, ""
    return r.get_attribute("data-ok") == "1", css(d, "#reply-text")[0].text


def reply_seq(d):
    r = css(d, "#reply")
    return r[0].get_attribute("data-seq") if r else None


def login(d, url):
    d.delete_all_cookies()
    d.get(url)
    who = wait(lambda: css(d, "#who")[0].get_attribute("data-user"), 20)
    return who, css(d, "#who")[0].get_attribute("data-admin") if who else None


def shoot(d, name):
    """A screenshot once the page is drawn (not blank), or the last one after 10 s."""
    path = os.path.join(ARGS.shots, name + ".png")

    def drawn():
        d.save_screenshot(path)
        return png_colours(path) > 8
    wait(drawn, timeout=10, step=0.1)
    n = png_colours(path)
    T.check(n > 8, "%s: the screenshot is not blank (%d+ colours, %s)" % (name, n, path))


# ---- the checks ----

def admin_part(d):
    who, level = login(d, ARGS.url)
    T.check(who and level == "1", "admin login through the one-time URL (user %s, ADMIN%s)" % (who, level))
    if not who:
        return
    SUBMITTED.extend(ensure_idle())
    job = ARGS.job
    if not job:
        q = cli_json("showq")
        jobs = q["active"] + q["idle"] + q["blocked"]
        job = str(jobs[0]["id"]) if jobs else None
    T.check(job is not None, "a job is queued for the test (%s)" % job)
    if job:
        tab(d, "queue")
        T.check(wait(lambda: css(d, '#page-queue tr[data-job="%s"]' % job)), "queue page lists job %s" % job)
    shoot(d, "admin-queue")
    prio_part(d)
    resv_part(d)
    columns_part(d)
    array_part(d)
    clock_part(d)
    axes_part(d)
    cancel_part(d)
    fs_part(d)
    r = fetch(d, "POST", "/api/run", {"cmd": "releaseres", "args": ["no-such.0"]}, csrf=False)
    T.check(r["status"] == 403, "POST /api/run without X-CSRF-Token is refused (HTTP %s)" % r["status"], r["body"][:200])
    r = fetch(d, "POST", "/api/run", {"cmd": "releaseres", "args": ["no-such.0"]}, csrf=True)
    T.check(r["status"] == 400 and '"ok":false' in r["body"].replace(" ", ""),
            "with the token the same POST reaches the daemon (HTTP %s, its error)" % r["status"], r["body"][:200])
    for t in TABS:
        if t != "queue":
            T.check(tab(d, t), "tab %s loads" % t)
            shoot(d, "admin-" + t)


def diag_p(d):
    """diagnose -p's JSON from the CLI; from the page's API when the CLI's has no weights yet."""
    x = cli_json("diagnose", "-p")
    if "weights" not in x and d is not None:
        r = fetch(d, "GET", "/api/diagnose?arg=-p", None, csrf=False)
        if r["status"] == 200:
            print("# the CLI's diagnose -p has no \"weights\": using /api/diagnose?arg=-p", flush=True)
            x = json.loads(r["body"])
    return x


def ensure_idle():
    """At least two idle jobs of different shapes to rank: submit them when the queue has fewer.

    Returns the ids submitted (cancelled at the end). The first job asks for every processor,
    so that, on an idle cluster, it runs and the two after it wait."""
    q = cli_json("showq")
    if len(q["idle"]) >= 2:
        return []
    total = cli_json("showstats").get("total_procs") or 1
    ids = []
    work = os.path.join(ARGS.shots, "jobs")
    os.makedirs(work, exist_ok=True)
    for res in ["procs=%d,walltime=1:00:00" % total, "procs=%d,walltime=1:00:00" % total,
                "procs=1,walltime=2:00:00"]:
        env = dict(os.environ, MOKU_HOME=ARGS.home)
        p = subprocess.run([ARGS.moku, "submit", "-l", res, "-o", "/dev/null", "-e", "/dev/null"], input="sleep 3600\n",
                           env=env, capture_output=True, text=True, cwd=work, timeout=60)
        if p.returncode == 0:
            ids.append(p.stdout.strip())
    wait(lambda: len(cli_json("showq")["idle"]) >= 2 and len(cli_json("diagnose", "-p")["jobs"]) >= 2, 20)
    print("# submitted jobs %s to have idle jobs to rank" % " ".join(ids), flush=True)
    return ids


def prio_part(d):
    diag = diag_p(d)
    if not T.check("weights" in diag, "diagnose -p --format=json has \"weights\""):
        return
    if len(diag["jobs"]) < 2:
        T.check(False, "at least two idle jobs to rank (found %d)" % len(diag["jobs"]))
        return
    pick = pick_weight(diag)
    if not T.check(pick, "a weight that ranks the idle jobs apart"):
        return
    param, value, _ = pick
    conf = next(x["weight"] for x in list(diag["weights"]["factors"].values()) + list(diag["weights"]["components"].values())
                if x["param"] == param)
    tab(d, "prio")
    from selenium.webdriver.common.keys import Keys
    rng = wait(lambda: css(d, 'input[type=range][data-param="%s"]' % param))
    box = wait(lambda: css(d, 'input[data-param-box="%s"]' % param))
    if not T.check(rng and box, "priorities page has a slider and a number box for %s" % param):
        return
    rng, box = rng[0], box[0]
    d.execute_script("arguments[0].scrollIntoView({block: 'center'})", rng)
    rng.send_keys(Keys.ARROW_RIGHT)
    T.check(wait(lambda: box.get_attribute("value") == str(conf + 1), 5),
            "moving the %s slider moves its number box (%s -> %s)" % (param, conf, box.get_attribute("value")))
    box.clear()
    box.send_keys(str(value))
    page_order = wait(lambda: (css(d, "#prio-order")[0].get_attribute("data-order") or "").split(",")
                      if css(d, '#prio-table tr[data-job]') else None)
    diag = diag_p(d)
    want = order(diag["jobs"], lambda j: whatif(j, diag["weights"], {param: value}), submit_times())
    T.check(page_order == want, "with %s %s the page's what-if order is the formula's" % (param, value),
            "page %s, formula %s" % (page_order, want))
    apply_btn = css(d, "#prio-apply")[0]
    if not T.check(apply_btn.is_enabled(), "Apply is enabled for ADMIN1"):
        return
    seq = reply_seq(d)
    apply_btn.click()
    ok, text = reply(d, "changeparam", seq)
    T.check(ok, "Apply: changeparam %s %s is applied" % (param, value), text)
    diag = wait(lambda: (lambda x: x if next(f for f in list(x["weights"]["factors"].values()) +
                                               list(x["weights"]["components"].values())
                                               if f["param"] == param)["weight"] == value else None)(diag_p(d)), 20)
    if T.check(diag, "the CLI's diagnose -p shows %s %s" % (param, value)):
        cli_order = order(diag["jobs"], lambda j: j["priority"], submit_times())
        T.check(cli_order == page_order, "the daemon's order after Apply is the one the page showed",
                "CLI %s, page %s" % (cli_order, page_order))
    r = fetch(d, "POST", "/api/run", {"cmd": "changeparam", "args": [param, str(conf)]})
    T.check(r["status"] == 200, "%s put back to %s" % (param, conf), r["body"][:300])
    css(d, "#prio-reset")[0].click()


def resv_part(d):
    tab(d, "nodes")
    node = wait(lambda: css(d, "#nodes-table tr[data-node]")[0].get_attribute("data-node"))
    T.check(node, "nodes page lists the nodes (%s first)" % node)
    tab(d, "resv")
    form = css(d, "#resv-form")
    if not T.check(form and form[0].is_displayed() and css(d, "#resv-fieldset")[0].is_enabled(),
                   "ADMIN1 sees the reservation form"):
        return
    fill = {"rf-nodes": node or "ALL", "rf-start": "+2:00:00", "rf-duration": "00:30:00", "rf-name": "webtest"}
    for k, v in fill.items():
        e = css(d, "#" + k)[0]
        e.clear()
        e.send_keys(v)
    seq = reply_seq(d)
    css(d, "#rf-create")[0].click()
    ok, text = reply(d, "setres", seq)
    m = re.search(r"reservation '([^']+)' created", text)
    if not T.check(ok and m, "setres from the form is answered 'created'", text):
        return
    rid = m.group(1)
    ids = [r["id"] for r in cli_json("showres")["reservations"]]
    T.check(rid in ids, "the CLI's showres lists %s" % rid, str(ids))
    T.check(wait(lambda: css(d, '#timeline-svg g[data-resv="%s"]' % rid)), "the timeline draws %s" % rid)
    shoot(d, "admin-resv-created")
    from selenium.webdriver.support.ui import Select
    wait(lambda: [o for o in css(d, "#rf-id option") if o.get_attribute("value") == rid])
    Select(css(d, "#rf-id")[0]).select_by_value(rid)
    seq = reply_seq(d)
    css(d, "#rf-release")[0].click()
    ok, text = reply(d, "releaseres", seq)
    ids = [r["id"] for r in cli_json("showres")["reservations"]]
    T.check(ok and rid not in ids, "releaseres from the form removes %s" % rid, text)


# ---- issue 30: the queue's columns, the clock, the axes, the cancel confirmation ----

def submit(res, name=None, user=None):
    """A job of user (root when None) as the CLI submits it; its id, or None."""
    work = os.path.join(ARGS.shots, "jobs")
    os.makedirs(work, exist_ok=True)
    os.chmod(ARGS.shots, 0o755)
    os.chmod(work, 0o777)
    cmd = [ARGS.moku, "submit", "-l", res, "-o", "/dev/null", "-e", "/dev/null"] + (["-N", name] if name else [])
    if user:
        cmd = ["runuser", "-u", user, "--", "env", "MOKU_HOME=" + ARGS.home] + cmd
    p = subprocess.run(cmd, input="sleep 3600\n", env=dict(os.environ, MOKU_HOME=ARGS.home),
                       capture_output=True, text=True, cwd=work, timeout=60)
    if p.returncode:
        print("# submit %s: %s" % (" ".join(cmd), (p.stdout + p.stderr).strip()), flush=True)
        return None
    jid = p.stdout.strip()
    SUBMITTED.append(jid)
    return jid


def cell_texts(d, table, job):
    """{column header: cell text} of job's row in table (#q-active, #q-idle, #q-blocked)."""
    return d.execute_script("""
        const [table, job] = arguments;
        const t = document.getElementById(table);
        const row = t && t.querySelector('tr[data-job="' + job + '"]');
        if (!row) return null;
        const heads = [...t.querySelectorAll("thead th")].map((h) => h.textContent);
        const out = {};
        [...row.children].forEach((c, i) => { out[heads[i] || ("#" + i)] = c.textContent; });
        return out;""", table, job)


def columns_part(d):
    named = submit("procs=1,walltime=1:00:00", name="web-named")
    tab(d, "queue")
    q = cli_json("showq")
    run = q["active"][0] if q["active"] else None
    if not T.check(run is not None, "a running job for the queue's columns"):
        return
    row = wait(lambda: cell_texts(d, "q-active", run["id"]))
    T.check(row and row.get("Nodes") == ",".join(run["nodes"]) and row["Nodes"],
            "the queue shows running job %s's nodes as showq's JSON gives them (%s)" % (run["id"], run["nodes"]), str(row))
    el = re.match(r"^(?:(\d+):)?(\d\d):(\d\d):(\d\d)$", (row or {}).get("Elapsed", ""))
    secs = (int(el.group(1) or 0) * 86400 + int(el.group(2)) * 3600 + int(el.group(3)) * 60 + int(el.group(4))) if el else -1
    T.check(el and abs(secs - (time.time() - run["start"])) < 30,
            "... and its elapsed time (%s, started %d s ago)" % ((row or {}).get("Elapsed"), time.time() - run["start"]), str(row))
    if named:
        where = lambda: [t for t in ("q-idle", "q-blocked", "q-active") if cell_texts(d, t, named)]
        t = wait(where)
        row = cell_texts(d, t[0], named) if t else None
        T.check(row and row.get("Name") == "web-named", "the queue shows job %s's name (qsub -N web-named)" % named, str(row))


def array_part(d):
    """An array's held tasks are one row "A[1-4] (4 tasks)"; its cancel asks
    naming the tasks and cancels all four."""
    work = os.path.join(ARGS.shots, "jobs")
    os.makedirs(work, exist_ok=True)
    p = subprocess.run([ARGS.moku, "submit", "-h", "-t", "1-4", "-N", "web-array", "-l", "procs=1,walltime=1:00:00"],
                       input="sleep 3600\n", env=dict(os.environ, MOKU_HOME=ARGS.home),
                       capture_output=True, text=True, cwd=work, timeout=60)
    m = re.match(r"^(\d+)\[\]", p.stdout.strip())
    if not T.check(p.returncode == 0 and m, "an array of four held tasks (qsub -h -t 1-4)", p.stdout + p.stderr):
        return
    a = m.group(1)
    SUBMITTED.append(a + "[]")
    tab(d, "queue")
    fold = "%s[1-4]" % a
    where = lambda: [t for t in ("q-idle", "q-blocked", "q-active") if cell_texts(d, t, fold)]
    t = wait(where)
    row = cell_texts(d, t[0], fold) if t else None
    single = d.execute_script("return !!document.querySelector('#page-queue tr[data-job=\"' + arguments[0] + '\"]')",
                              a + "[1]")
    T.check(row and row.get("Job") == fold + " (4 tasks)" and not single,
            "the queue shows the array's four held tasks as one row %s (4 tasks)" % fold, str(row))
    sel = 'button[data-action="cancel"][data-job="%s"]' % fold
    if not T.check(wait(lambda: css(d, sel)), "the folded row has a cancel button"):
        return
    seq = reply_seq(d)
    click(d, sel)
    dlg = confirm_dialog(d)
    T.check(dlg and ("the 4 tasks %s of array %s (web-array) of user root" % (fold, a)) in dlg[0],
            "its cancel asks first, naming the four tasks and the array (%s)" % (dlg,))
    if dlg:
        css(d, "#confirm-yes")[0].click()
        ok, text = reply(d, "canceljob", seq)
        ids = lambda: [str(j["id"]) for k in ("active", "idle", "blocked") for j in cli_json("showq")[k]]
        gone = wait(lambda: not [i for i in ids() if i.startswith(a + "[")], 10)
        T.check(ok and gone, "confirmed: every task of array %s is cancelled" % a, text)


def clock_part(d):
    """The page's times are on the daemon's clock, which the header names."""
    q = cli_json("showq")
    z = q.get("zone") or {}
    zone = css(d, "#zone")[0]
    T.check(zone.get_attribute("data-abbrev") == z.get("abbrev") and z.get("abbrev") and
            (z.get("abbrev") or "?") in zone.text,
            "the header shows the daemon's zone (%s: %r)" % (z, zone.text))
    browser_tz = d.execute_script("return Intl.DateTimeFormat().resolvedOptions().timeZone")
    print("# the daemon's zone %s, the browser's %s" % (z.get("name"), browser_tz), flush=True)
    if not q["active"]:
        return
    run = q["active"][0]
    import datetime
    try:
        from zoneinfo import ZoneInfo
        tz = ZoneInfo(z["name"])
    except Exception:
        tz = datetime.timezone(datetime.timedelta(seconds=z.get("offset", 0)))
    want = datetime.datetime.fromtimestamp(run["start"], tz)
    rc, text = cli("checkjob", run["id"])
    m = re.search(r"^StartTime: (.*)$", text, re.M)
    T.check(m and m.group(1).strip() == want.strftime("%a %b %e %H:%M:%S"),
            "checkjob's StartTime is on the daemon's clock (%s)" % (m.group(1) if m else text[:100]))
    row = wait(lambda: cell_texts(d, "q-active", run["id"]))
    T.check(row and row.get("Start") == want.strftime("%Y-%m-%d %H:%M:%S"),
            "the queue's Start of job %s is the same instant on the same clock (%s, want %s)"
            % (run["id"], (row or {}).get("Start"), want.strftime("%Y-%m-%d %H:%M:%S")))
    title = d.execute_script("const c = document.querySelector('#q-active tr[data-job=\"' + arguments[0] + '\"] td.time');"
                             "return c ? c.title : null", run["id"])
    T.check(title and title.endswith(" " + z.get("abbrev", "?")), "... and its tooltip names the zone (%s)" % title)


def axes_part(d):
    """No chart axis repeats a label; overlapping timeline bars get rows of their own."""
    tab(d, "util")
    for b in ("hist-1h", "hist-7d"):
        css(d, "#" + b)[0].click()
        for svg in ("hist-util-svg", "hist-queue-svg"):
            for axis in ("x", "y"):
                labels = d.execute_script("return [...document.querySelectorAll('#%s g[data-axis=%s] text')]"
                                          ".map((t) => t.textContent)" % (svg, axis))
                T.check(labels and len(labels) == len(set(labels)),
                        "%s, %s axis of %s: no label repeats (%s)" % (b, axis, svg, labels))
    labels = d.execute_script("""
        const ticks = [];
        for (const max of [0.0004, 0.001, 0.05, 1, 3, 12, 250, 7e6]) ticks.push(niceTicks(max, 2).ticks.map(
          (v, i, a) => niceTicks(max, 2).fmt(v)));
        return ticks;""")
    T.check(all(len(t) == len(set(t)) and len(t) >= 2 for t in labels),
            "value ticks are distinct for small and large ranges (%s)" % labels)
    # Two reservations over the same window on the same node: two rows, both labels drawn.
    q = cli_json("showq")
    node = None
    nodes = cli_json("checknode", "ALL").get("nodes", [])
    node = nodes[-1]["name"] if nodes else None
    made = []
    for name in ("overlap-a", "overlap-b"):
        rc, out = cli("setres", "-n", name, "-s", "+1:00:00", "-d", "1:00:00", "-x", "BYNAME", node or "ALL")
        m = re.search(r"reservation '([^']+)' created", out)
        if m:
            made.append(m.group(1))
    if not T.check(len(made) == 2, "two overlapping reservations on %s for the timeline (%s)" % (node, made)):
        for rid in made:
            cli("releaseres", rid)
        return
    tab(d, "resv")
    rows = wait(lambda: d.execute_script("""
        return arguments[0].map((id) => {
          const g = document.querySelector('#timeline-svg g[data-resv="' + id + '"][data-node="' + arguments[1] + '"]');
          return g ? [g.dataset.row, g.querySelector("text") ? g.querySelector("text").textContent : ""] : null;
        });""", made, node) if d.execute_script(
        "return !!document.querySelector('#timeline-svg g[data-resv=\"' + arguments[0] + '\"]')", made[1]) else None)
    T.check(rows and all(rows) and rows[0][0] != rows[1][0] and all(r[1] for r in rows),
            "overlapping reservations sit in rows of their own, each with its label (%s)" % rows)
    shoot(d, "admin-resv-overlap")
    for rid in made:
        cli("releaseres", rid)


def fs_part(d):
    """Fairshare on: the class view lists the DEFAULT class (the jobs without a class), as diagnose -f does."""
    r = fetch(d, "POST", "/api/run", {"cmd": "changeparam", "args": ["FSPOLICY", "DEDICATEDPS"]})
    if not T.check(r["status"] == 200, "FSPOLICY DEDICATEDPS from the page", r["body"][:200]):
        return
    try:
        listed = wait(lambda: [c for c in cli_json("diagnose", "-f")["credentials"]
                               if c["type"] == "class" and c["name"] == "DEFAULT"], 20)
        T.check(listed, "diagnose -f lists the DEFAULT class, which the running jobs are in")
        tab(d, "fs")
        row = wait(lambda: css(d, '#fs-table tr[data-cred="class:DEFAULT"]') and
                   d.execute_script("return [...document.querySelectorAll('#fs-charts [data-fstype=\"class\"] text')]"
                                    ".some((t) => t.textContent === 'DEFAULT')"), 20)
        T.check(row, "the page's class view shows the DEFAULT class, in the table and the charts")
        shoot(d, "admin-fs-default-class")
    finally:
        fetch(d, "POST", "/api/run", {"cmd": "changeparam", "args": ["FSPOLICY", "NONE"]})


def confirm_dialog(d):
    """The open confirmation: (text, warning) or None."""
    def opened():
        dl = css(d, "dialog#confirm")
        return dl and dl[0].get_attribute("open") is not None and dl[0]
    if not wait(opened, 10):
        return None
    return css(d, "#confirm-text")[0].text, css(d, "#confirm-warn")[0].text


def cancel_part(d):
    """Cancel asks first: Keep leaves the job; the confirmation cancels it."""
    own = submit("procs=1,walltime=1:00:00", name="web-cancel")
    if not T.check(own, "a job of root's to cancel from the page"):
        return
    tab(d, "queue")
    sel = 'button[data-action="cancel"][data-job="%s"]' % own
    if not T.check(wait(lambda: css(d, sel)), "job %s has a cancel button" % own):
        return
    seq = reply_seq(d)
    click(d, sel)
    dlg = confirm_dialog(d)
    T.check(dlg and ("job %s (web-cancel) of user root" % own) in dlg[0],
            "cancel asks first, naming the job and its owner (%s)" % (dlg,))
    shoot(d, "admin-cancel-confirm")
    if dlg:
        css(d, "#confirm-no")[0].click()
        time.sleep(1.5)
        ids = [j["id"] for k in ("active", "idle", "blocked") for j in cli_json("showq")[k]]
        T.check(own in ids and reply_seq(d) == seq and not css(d, "dialog#confirm[open]"),
                "Keep it: the dialog closes and job %s is still queued" % own)
        click(d, sel)
        if confirm_dialog(d):
            css(d, "#confirm-yes")[0].click()
        ok, text = reply(d, "canceljob", seq)
        gone = wait(lambda: own not in [j["id"] for k in ("active", "idle", "blocked") for j in cli_json("showq")[k]], 10)
        T.check(ok and gone, "confirmed: canceljob %s is sent and the job is gone" % own, text)
    # Another user's running job: the admin's confirmation says so.
    if not ARGS.user:
        T.check(False, "another user's running job needs --user (web.sh runs as root)")
        return
    theirs = submit("procs=1,walltime=1:00:00", name="web-theirs", user=ARGS.user)
    if not T.check(theirs, "a job of %s's" % ARGS.user):
        return
    cli("setspri", "1000", theirs)
    q = cli_json("showq")
    victim = [j["id"] for j in q["active"] if j["user"] != ARGS.user]
    if victim:
        cli("canceljob", victim[0])  # a node frees; the job of highest priority, theirs, starts there
    running = wait(lambda: [j for j in cli_json("showq")["active"] if j["id"] == theirs], 30)
    if not T.check(running, "%s's job %s runs" % (ARGS.user, theirs)):
        return
    sel = '#q-active button[data-action="cancel"][data-job="%s"]' % theirs
    btn = wait(lambda: css(d, sel) if cell_texts(d, "q-active", theirs) else None, 20)
    if not T.check(btn, "the admin gets a cancel button on %s's running job" % ARGS.user):
        return
    seq = reply_seq(d)
    click(d, sel)
    dlg = confirm_dialog(d)
    T.check(dlg and ("of user %s" % ARGS.user) in dlg[0] and
            ("This is %s's running job, not yours" % ARGS.user) in dlg[1] and running[0]["nodes"][0] in dlg[1],
            "for another user's running job the confirmation says whose it is, that it runs, and where (%s)" % (dlg,))
    shoot(d, "admin-cancel-theirs")
    if dlg:
        css(d, "#confirm-yes")[0].click()
        ok, text = reply(d, "canceljob", seq)
        T.check(ok, "... and confirmed, it is cancelled", text)


def user_part(d):
    who, level = login(d, ARGS.user_url)
    T.check(who and level == "0", "ordinary user's login (user %s, admin %s)" % (who, level))
    if not who:
        return
    # Tabs whose commands an ordinary user may not use are not shown (issue 30).
    hidden = [t for t in TABS if not css(d, "#tab-" + t)[0].is_displayed()]
    T.check(hidden == USER_HIDDEN, "the ordinary user does not get the tabs %s (hidden: %s)" % (USER_HIDDEN, hidden))
    d.execute_script("location.hash = '#resv'; moku.show('resv')")
    T.check(wait(lambda: css(d, "#page-queue")[0].is_displayed(), 5) and not css(d, "#page-resv")[0].is_displayed(),
            "asked for the Reservations page, the ordinary user gets the queue")
    form = css(d, "#resv-form")
    absent = not form or not form[0].is_displayed() or not css(d, "#resv-fieldset")[0].is_enabled()
    T.check(absent, "the ordinary user gets no reservation form")
    r = fetch(d, "POST", "/api/run", {"cmd": "setres", "args": ["-d", "00:10:00", "ALL"]})
    T.check(r["status"] in (400, 403) and "not authorized" in r["body"],
            "a forced setres from the user's page is refused (HTTP %s)" % r["status"], r["body"][:300])
    r = fetch(d, "POST", "/api/run", {"cmd": "changeparam", "args": ["QUEUETIMEWEIGHT", "7"]})
    T.check(r["status"] in (400, 403) and "not authorized" in r["body"],
            "a forced changeparam from the user's page is refused (HTTP %s)" % r["status"], r["body"][:300])
    d.get_log("browser")  # what came before
    for t in TABS:
        if t not in USER_HIDDEN:
            T.check(tab(d, t), "user: tab %s loads" % t)
            shoot(d, "user-" + t)
    time.sleep(6)  # a refresh of the page's own (every 5 s)
    refused = [e["message"] for e in d.get_log("browser") if "status of 40" in e.get("message", "")]
    T.check(not refused, "the page asks the daemon nothing it refuses the ordinary user", "; ".join(refused[:3]))
    shown = d.execute_script("return [document.getElementById('status').textContent,"
                             " ...[...document.querySelectorAll('main p, td')].map((e) => e.textContent)]")
    raw = [x for x in shown if re.search(r'[{]\s*"', x or "")]
    T.check(not raw, "no raw JSON error on the page", "; ".join(raw[:3]))
    r = fetch(d, "POST", "/api/logout", {})
    s = fetch(d, "GET", "/api/session", None, csrf=False)
    T.check(r["status"] == 200 and s["status"] == 401, "logout ends the session (then /api/session is %s)" % s["status"])


def main():
    global ARGS
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--url", required=True, help="one-time login URL of an ADMIN1 (from moku web)")
    ap.add_argument("--user-url", required=True, help="one-time login URL of an ordinary user")
    ap.add_argument("--user", required=True, help="that user's name: their part runs in their own browser")
    ap.add_argument("--home", required=True, help="the daemon's home (MOKU_HOME for the CLI)")
    ap.add_argument("--moku", required=True, help="the moku binary")
    ap.add_argument("--job", help="a queued job's id (default: the first job of showq)")
    ap.add_argument("--shots", default="web-shots", help="where screenshots go")
    ap.add_argument("--chromium", default="/usr/bin/chromium")
    ap.add_argument("--chromedriver", default="/usr/bin/chromedriver")
    ARGS = ap.parse_args()
    ARGS.moku = os.path.abspath(ARGS.moku)
    os.makedirs(ARGS.shots, exist_ok=True)
    drivers = []
    try:
        for part, user in ((admin_part, None), (user_part, ARGS.user)):
            try:
                d = browser(user)
            except Exception as e:
                T.check(False, "headless Chromium starts%s" % (" as " + user if user else ""), str(e))
                continue
            drivers.append(d)
            try:
                part(d)
            except Exception as e:  # a broken part fails, the others still run
                T.check(False, "%s ran to its end" % part.__name__, "%s: %s" % (type(e).__name__, e))
            logs = [e for e in d.get_log("browser") if e.get("level") == "SEVERE"
                    and "status of 40" not in e.get("message", "")]
            T.check(not logs, "%s: no JavaScript errors in the console" % part.__name__,
                    "; ".join(e["message"] for e in logs[:3]))
    finally:
        for d in drivers:
            d.quit()
        if SUBMITTED:
            cli("canceljob", *SUBMITTED)
        import shutil
        for top in CLEANUP:
            shutil.rmtree(top, ignore_errors=True)
    print("browser.py: %d passed, %d failed" % (T.n - T.failed, T.failed))
    return 1 if T.failed else 0


if __name__ == "__main__":
    sys.exit(main())
