/*
 * app.js — the core of moku's web pages: the session, the API calls, the tabs
 * (an ordinary user gets only those whose commands they may use), the live
 * refresh, the command reply box, the confirmation dialog and the daemon's
 * clock every time is shown on. Each page (queue.js, resv.js, fs.js, prio.js,
 * history.js) registers itself with moku.page(name, {...}).
 *
 * Every value that comes from the daemon reaches the page through textContent
 * or an attribute, never innerHTML. State the user set (filters, sliders, the
 * timeline's zoom) lives in the page objects and survives each refresh.
 */
"use strict";

const moku = {
  session: null,       // {user, group, admin, csrf, expires}
  pages: {},           // name -> {refresh(), init()}
  current: null,
  refreshMs: 5000,
  timer: null,
  busy: false,
};

/* An API error: the HTTP status and the daemon's message. */
class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

/* GET /api/<cmd>?arg=...; resolves to the parsed JSON, rejects with ApiError. */
moku.get = async function (cmd, args = []) {
  const q = args.map((a) => "arg=" + encodeURIComponent(a)).join("&");
  const r = await fetch("/api/" + cmd + (q ? "?" + q : ""), {credentials: "same-origin", cache: "no-store"});
  let body = null;
  try { body = await r.json(); } catch (e) { body = null; }
  if (r.status === 401) moku.loggedOut();
  if (!r.ok) throw new ApiError(r.status, moku.errorText(r.status, body));
  if (body === null) throw new ApiError(r.status, "the daemon's answer could not be read (HTTP " + r.status + ")");
  return body;
};

/* A failed request in words: the daemon's message (text, never its JSON), or what the status means. */
moku.errorText = function (status, body) {
  const msg = body && typeof body.error === "string" ? body.error.trim() : "";
  if (msg) return msg;
  if (status === 403) return "not available to you";
  if (status === 429) return "too many requests: wait a moment";
  if (status === 401) return "not logged in";
  return "the daemon answered HTTP " + status;
};

/* The same, but a failure is returned as {error, status} instead of thrown. */
moku.tryGet = async function (cmd, args = []) {
  try {
    return await moku.get(cmd, args);
  } catch (e) {
    return {error: e.message, status: e.status || 0};
  }
};

/* POST /api/run {cmd, args}; shows the daemon's reply and resolves to it. */
moku.run = async function (cmd, args) {
  const shown = [cmd].concat(args).join(" ");
  let reply;
  try {
    const r = await fetch("/api/run", {
      method: "POST",
      credentials: "same-origin",
      headers: {"Content-Type": "application/json", "X-CSRF-Token": moku.session ? moku.session.csrf : ""},
      body: JSON.stringify({cmd, args}),
    });
    let body = {};
    try { body = await r.json(); } catch (e) { body = {}; }
    reply = {
      http: r.status,
      ok: r.ok && body.ok === true,
      exit: body.exit === undefined ? null : body.exit,
      output: typeof body.output === "string" ? body.output : moku.errorText(r.status, body),
    };
  } catch (e) {
    reply = {http: 0, ok: false, exit: null, output: "no answer: " + e.message};
  }
  moku.showReply(shown, reply);
  moku.refreshSoon();
  return reply;
};

/* The reply box (#reply): the command, ok/failed with exit and HTTP status, its output. */
moku.showReply = function (shown, reply) {
  const box = document.getElementById("reply");
  box.hidden = false;
  box.dataset.ok = reply.ok ? "1" : "0";
  box.dataset.http = String(reply.http);
  box.dataset.cmd = shown;
  moku.replySeq = (moku.replySeq || 0) + 1;
  box.dataset.seq = String(moku.replySeq);
  document.getElementById("reply-cmd").textContent = shown;
  document.getElementById("reply-status").textContent =
    (reply.ok ? "ok" : "failed") + (reply.exit !== null ? " (exit " + reply.exit + ")" : "") +
    " HTTP " + reply.http;
  document.getElementById("reply-text").textContent = reply.output;
};

/* ---- small DOM helpers: text only ---- */

/* el("td", {class: "x", "data-job": id}, "text" | node | [..]) */
function el(tag, attrs = {}, content) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") e.className = v;
    else if (k === "onclick") e.addEventListener("click", v);
    else e.setAttribute(k, v === true ? "" : String(v));
  }
  append(e, content);
  return e;
}

function append(e, content) {
  if (content === undefined || content === null) return;
  if (Array.isArray(content)) content.forEach((c) => append(e, c));
  else if (content instanceof Node) e.appendChild(content);
  else e.appendChild(document.createTextNode(String(content)));
}

function clear(e) {
  while (e.firstChild) e.removeChild(e.firstChild);
  return e;
}

/* A table from a header list and rows of cells; a row may be {attrs, cells}. */
function fillTable(table, head, rows, empty = "none") {
  clear(table);
  const thead = el("thead", {}, el("tr", {}, head.map((h) => el("th", {}, h))));
  const tbody = el("tbody");
  for (const r of rows) {
    const row = Array.isArray(r) ? {attrs: {}, cells: r} : r;
    tbody.appendChild(el("tr", row.attrs, row.cells.map((c) => (c instanceof Node && c.tagName === "TD" ? c : el("td", {}, c)))));
  }
  if (!rows.length) tbody.appendChild(el("tr", {class: "empty"}, el("td", {colspan: head.length}, empty)));
  table.appendChild(thead);
  table.appendChild(tbody);
}

/* ---- formatting ---- */

function fmtDuration(s) {
  if (s === null || s === undefined) return "";
  const neg = s < 0;
  s = Math.abs(Math.round(s));
  const d = Math.floor(s / 86400), h = Math.floor((s % 86400) / 3600), m = Math.floor((s % 3600) / 60), x = s % 60;
  const hms = [h, m, x].map((v) => String(v).padStart(2, "0")).join(":");
  return (neg ? "-" : "") + (d ? d + ":" + hms : hms);
}

/*
 * The daemon's clock (showq's JSON "zone": its IANA name, abbreviation and
 * offset): every time the page prints is on it, as the commands and the log
 * print them, whatever the browser's own zone. Without an IANA name the
 * offset is used as it was when last asked.
 */
moku.zone = {name: "UTC", abbrev: "UTC", offset: 0};
moku.setZone = function (z) {
  if (!z || (moku.zoneSet && z.name === moku.zone.name && z.abbrev === moku.zone.abbrev && z.offset === moku.zone.offset)) return;
  moku.zoneSet = true;
  moku.zone = z;
  moku.zoneFmt = null;
  if (z.name) {
    try {
      moku.zoneFmt = new Intl.DateTimeFormat("en-CA", {timeZone: z.name, hourCycle: "h23", year: "numeric",
        month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", second: "2-digit"});
    } catch (e) { moku.zoneFmt = null; } // a name this browser does not know: the offset
  }
  const off = Math.abs(z.offset), sign = z.offset < 0 ? "-" : "+";
  const hhmm = String(Math.floor(off / 3600)).padStart(2, "0") + ":" + String(Math.floor((off % 3600) / 60)).padStart(2, "0");
  const zone = document.getElementById("zone");
  zone.textContent = "times in " + (z.abbrev || "") + (z.name && z.name !== z.abbrev ? " (" + z.name + ")" : "") + ", UTC" + sign + hhmm;
  zone.dataset.zone = z.name || "";
  zone.dataset.abbrev = z.abbrev || "";
  zone.dataset.offset = String(z.offset);
};

/* epoch as {y, mo, d, h, mi, s} on the daemon's clock. */
function clockParts(epoch) {
  if (moku.zoneFmt) {
    const o = {};
    for (const p of moku.zoneFmt.formatToParts(new Date(epoch * 1000))) o[p.type] = Number(p.value);
    return {y: o.year, mo: o.month, d: o.day, h: o.hour % 24, mi: o.minute, s: o.second};
  }
  const t = new Date((epoch + moku.zone.offset) * 1000);
  return {y: t.getUTCFullYear(), mo: t.getUTCMonth() + 1, d: t.getUTCDate(), h: t.getUTCHours(), mi: t.getUTCMinutes(), s: t.getUTCSeconds()};
}

function fmtTime(epoch) {
  if (!epoch) return "";
  const c = clockParts(epoch);
  const p = (v) => String(v).padStart(2, "0");
  return `${c.y}-${p(c.mo)}-${p(c.d)} ${p(c.h)}:${p(c.mi)}:${p(c.s)}`;
}

/* The same with the zone's abbreviation: for tooltips and texts that stand alone. */
function fmtTimeZ(epoch) {
  return epoch ? fmtTime(epoch) + " " + (moku.zone.abbrev || moku.zone.name) : "";
}

/* A table cell with a time, the zone in its tooltip and the epoch in data-epoch. */
function timeCell(epoch) {
  return el("td", {class: "time", title: fmtTimeZ(epoch), "data-epoch": epoch || ""}, fmtTime(epoch));
}

function fmtNum(v, digits = 2) {
  if (v === null || v === undefined || Number.isNaN(v)) return "";
  if (Math.abs(v) >= 1e6 || (Math.abs(v) < 1e-3 && v !== 0)) return v.toExponential(digits);
  return Number.isInteger(v) ? String(v) : v.toFixed(digits);
}

moku.now = () => Math.floor(Date.now() / 1000);
moku.isAdmin = (levels) => !!moku.session && levels.includes(moku.session.admin);

/* Whether the session may use tab b: a tab marked data-admin only for ADMIN1..3
 * (its commands refuse anyone else), so an ordinary user never sees it nor polls it. */
moku.allowed = (b) => !b.hasAttribute("data-admin") || moku.isAdmin([1, 2, 3]);

/*
 * Ask before doing something that cannot be undone: a dialog in the page
 * (#confirm) with the question, an optional warning and the action's name.
 * Resolves to true only when the action's button is pressed.
 */
moku.confirm = function (text, action, warn) {
  const dlg = document.getElementById("confirm");
  document.getElementById("confirm-text").textContent = text;
  const w = document.getElementById("confirm-warn");
  w.textContent = warn || "";
  w.hidden = !warn;
  document.getElementById("confirm-yes").textContent = action;
  dlg.returnValue = "";
  return new Promise((resolve) => {
    dlg.addEventListener("close", () => resolve(dlg.returnValue === "yes"), {once: true});
    dlg.showModal();
  });
};

/* ---- pages, tabs and the refresh loop ---- */

moku.page = function (name, obj) {
  moku.pages[name] = obj;
};

moku.show = function (name) {
  const tabOf = (n) => document.querySelector('#tabs [data-tab="' + n + '"]');
  if (!moku.pages[name] || !tabOf(name) || !moku.allowed(tabOf(name))) name = "queue";
  moku.current = name;
  for (const b of document.querySelectorAll("#tabs [data-tab]")) {
    const on = b.dataset.tab === name;
    b.classList.toggle("active", on);
    b.setAttribute("aria-selected", on ? "true" : "false");
  }
  for (const p of document.querySelectorAll("main .page")) p.hidden = p.dataset.page !== name;
  if (location.hash !== "#" + name) history.replaceState(null, "", "#" + name);
  moku.refreshNow();
};

moku.refreshNow = async function () {
  if (!moku.session || !moku.current) return;
  if (moku.busy) { moku.again = true; return; }
  moku.busy = true;
  const page = moku.pages[moku.current];
  const status = document.getElementById("status");
  try {
    await page.refresh();
    status.textContent = "updated " + fmtTimeZ(moku.now());
    status.dataset.updated = String(Date.now());
  } catch (e) {
    status.textContent = "refresh failed: " + e.message;
  } finally {
    moku.busy = false;
    document.body.setAttribute("data-loaded-" + moku.current, String(Date.now()));
    if (moku.again) { moku.again = false; moku.refreshNow(); }
  }
};

moku.refreshSoon = function () {
  setTimeout(moku.refreshNow, 300);
};

moku.loggedOut = function () {
  moku.session = null;
  document.getElementById("login-needed").hidden = false;
  document.getElementById("main").hidden = true;
  document.getElementById("logout").hidden = true;
  document.getElementById("who").textContent = "";
};

moku.start = async function () {
  let s;
  try {
    s = await moku.get("session");
  } catch (e) {
    if (e.status !== 401) document.getElementById("login-needed").textContent = "cannot reach the daemon: " + e.message;
    moku.loggedOut();
    return;
  }
  moku.session = s;
  const q = await moku.tryGet("showq"); // the daemon's clock, before any time is shown
  if (!q.error) moku.setZone(q.zone);
  const who = document.getElementById("who");
  who.textContent = s.user + (s.admin ? " (ADMIN" + s.admin + ")" : "");
  who.dataset.user = s.user;
  who.dataset.admin = String(s.admin);
  document.getElementById("login-needed").hidden = true;
  document.getElementById("main").hidden = false;
  document.getElementById("logout").hidden = false;
  for (const b of document.querySelectorAll("#tabs [data-tab]")) b.hidden = !moku.allowed(b);
  for (const p of Object.values(moku.pages)) if (p.init) p.init();
  for (const b of document.querySelectorAll("#tabs [data-tab]")) b.addEventListener("click", () => moku.show(b.dataset.tab));
  moku.show((location.hash || "#queue").slice(1));
  moku.timer = setInterval(() => { if (!document.hidden) moku.refreshNow(); }, moku.refreshMs);
};

document.addEventListener("DOMContentLoaded", () => {
  document.getElementById("reply-close").addEventListener("click", () => { document.getElementById("reply").hidden = true; });
  document.getElementById("logout").addEventListener("click", async () => {
    await fetch("/api/logout", {method: "POST", credentials: "same-origin",
      headers: {"Content-Type": "application/json", "X-CSRF-Token": moku.session ? moku.session.csrf : ""}, body: "{}"});
    clearInterval(moku.timer);
    moku.loggedOut();
  });
  moku.start();
});
