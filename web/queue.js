/*
 * queue.js — the Queue page (active, idle and blocked jobs, filters, the job
 * buttons) and the Nodes page.
 *
 * showq's JSON also gives each job's name (qsub -N) and a running job's
 * nodes (null for another user's job, to an ordinary user). The cancel
 * button asks first, naming the job and its owner, and says so when the job
 * is another user's (an administrator's button) or running.
 *
 * The tasks of a job array (ids "12[3]") in one state, for one reason, are
 * one row, "12[3-6]" with their count (issue 30: an array shown compactly);
 * its buttons act on those tasks.
 *
 * showq's JSON gives id, user, every credential, state, procs and times;
 * checkjob (fetched once per job and cached) only fills in what a daemon's
 * showq did not give. An ordinary user may checkjob only their own jobs:
 * other jobs show "?" there, and match only the "(all)" filter.
 */
"use strict";

moku.jobs = {
  info: new Map(), // id -> checkjob JSON, or {denied: true}
  pending: new Set(),

  /* Fetch checkjob for the ids not cached yet, at most limit of them, 6 at a time. */
  async fill(ids, limit = 60) {
    const todo = ids.filter((id) => !this.info.has(id) && !this.pending.has(id)).slice(0, limit);
    for (let i = 0; i < todo.length; i += 6) {
      await Promise.all(todo.slice(i, i + 6).map(async (id) => {
        this.pending.add(id);
        const r = await moku.tryGet("checkjob", [id]);
        this.pending.delete(id);
        this.info.set(id, r.error ? {denied: true, error: r.error} : r);
      }));
    }
  },

  /* A fresh checkjob (the reason and the planned start change). */
  async fresh(id) {
    const r = await moku.tryGet("checkjob", [id]);
    if (!r.error) this.info.set(id, r);
    return r;
  },

  field(id, f, job) {
    if (job && job[f] !== undefined && job[f] !== null) return String(job[f]);
    const i = this.info.get(id);
    if (!i) return "…";
    if (i.denied) return "?";
    return i[f] === undefined || i[f] === null ? "" : String(i[f]);
  },
};

const FILTERS = ["user", "group", "account", "class", "qos"];

const queuePage = {
  filter: {user: "", group: "", account: "", class: "", qos: ""},
  last: null,

  init() {
    for (const f of FILTERS) {
      document.getElementById("f-" + f).addEventListener("change", (e) => {
        this.filter[f] = e.target.value;
        this.render();
      });
    }
    document.getElementById("f-clear").addEventListener("click", () => {
      for (const f of FILTERS) this.filter[f] = "";
      this.render();
    });
  },

  async refresh() {
    // diagnose -q is ADMIN1..3's: an ordinary user's blocked jobs carry their reason in showq.
    const [q, dq] = await Promise.all([moku.get("showq"),
      moku.isAdmin([1, 2, 3]) ? moku.tryGet("diagnose", ["-q"]) : Promise.resolve({error: "n/a"})]);
    moku.setZone(q.zone);
    const all = [...q.active, ...q.idle, ...q.blocked];
    this.last = {q, reasons: new Map()};
    if (!dq.error) for (const j of dq.jobs || []) this.last.reasons.set(String(j.id), j.reason);
    this.render();
    // showq gives every credential; checkjob only for a job it did not (one an
    // ordinary user may not checkjob would only be refused).
    const lacking = all.filter((j) => FILTERS.some((f) => !(f in j)));
    if (lacking.length) {
      await moku.jobs.fill(lacking.map((j) => String(j.id)));
      this.render();
    }
  },

  matches(j) {
    return FILTERS.every((f) => !this.filter[f] || moku.jobs.field(String(j.id), f, j) === this.filter[f]);
  },

  /* The options of each filter: every value seen, the chosen one kept even when gone. */
  renderFilters(all) {
    for (const f of FILTERS) {
      const sel = document.getElementById("f-" + f);
      const vals = new Set(all.map((j) => moku.jobs.field(String(j.id), f, j)).filter((v) => v && v !== "…" && v !== "?"));
      if (this.filter[f]) vals.add(this.filter[f]);
      const opts = ["", ...[...vals].sort()];
      const same = sel.options.length === opts.length && opts.every((v, i) => sel.options[i].value === v);
      if (!same) {
        clear(sel);
        for (const v of opts) sel.appendChild(el("option", {value: v}, v || "(all)"));
      }
      sel.value = this.filter[f];
    }
  },

  buttons(j) {
    const s = moku.session;
    const mine = j.user === s.user || moku.isAdmin([1, 2]);
    if (!mine) return "";
    const id = String(j.id), ids = j.ids || [id];
    const b = (act, cmd, label, onclick) => el("button", {type: "button", class: "small", "data-action": act, "data-job": id,
      onclick: onclick || (() => moku.run(cmd, ids))}, label);
    const out = [b("cancel", "canceljob", "cancel", () => this.cancel(j))];
    if (j.state === "Idle") out.push(b("hold", "sethold", "hold"));
    if (/Hold/.test(j.state)) out.push(b("release", "releasehold", "release"));
    return el("span", {class: "actions"}, out);
  },

  /* canceljob after the user said yes to a question naming the job and its owner. */
  async cancel(j) {
    const id = String(j.id), s = moku.session, running = j.state !== "Idle" && !/Hold|Deferred/.test(j.state);
    const what = (j.ids ? `the ${j.ids.length} tasks ${id} of array ${j.array}` : "job " + id) +
      (j.name ? " (" + j.name + ")" : "") + " of user " + j.user;
    let warn = "";
    if (j.user !== s.user)
      warn = running ? `This is ${j.user}'s running job, not yours: cancelling it kills its processes` +
        (j.nodes && j.nodes.length ? " on " + j.nodes.join(", ") : "") + "." : `This is ${j.user}'s job, not yours.`;
    else if (running)
      warn = "It is running: cancelling it kills its processes.";
    if (await moku.confirm("Cancel " + what + "?", "Cancel job " + id, warn)) await moku.run("canceljob", j.ids || [id]);
  },

  creds(j) {
    const id = String(j.id);
    return ["group", "account", "class", "qos"].map((f) => moku.jobs.field(id, f, j));
  },

  render() {
    if (!this.last) return;
    const {q, reasons} = this.last;
    const all = [...q.active, ...q.idle, ...q.blocked];
    this.renderFilters(all);
    const now = moku.now();
    const row = (j, cells) => ({attrs: {"data-job": j.id, "data-state": j.state, "data-user": j.user},
      cells: [j.ids ? el("td", {class: "array", title: j.ids.join(" ")}, `${j.id} (${j.ids.length} tasks)`) : j.id,
        ...cells.slice(1)]});
    const name = (j) => el("td", {class: "name", title: j.name || ""}, j.name || "");
    const nodes = (j) => el("td", {class: "nodes", title: j.nodes ? j.nodes.join(" ") : "not shown to you"},
      j.nodes ? compactNodes(j.nodes) : "");
    fillTable(document.getElementById("q-active"),
      ["Job", "Name", "User", "Group", "Account", "Class", "QOS", "State", "Procs", "Nodes", "Elapsed", "Remaining", "Start", ""],
      foldArrays(q.active.filter((j) => this.matches(j))).map((j) => row(j, [j.id, name(j), j.user, ...this.creds(j), j.state, j.procs,
        nodes(j), el("td", {class: "elapsed"}, fmtDuration(Math.max(0, now - j.start))),
        fmtDuration(j.remaining), timeCell(j.start), this.buttons(j)])), "no active jobs");
    fillTable(document.getElementById("q-idle"),
      ["Job", "Name", "User", "Group", "Account", "Class", "QOS", "State", "Procs", "WCLimit", "Queued", "Priority", ""],
      foldArrays(q.idle.filter((j) => this.matches(j))).map((j) => row(j, [j.id, name(j), j.user, ...this.creds(j), j.state, j.procs,
        fmtDuration(j.wclimit), fmtDuration(now - j.queuetime), fmtNum(j.priority), this.buttons(j)])), "no idle jobs");
    fillTable(document.getElementById("q-blocked"),
      ["Job", "Name", "User", "Group", "Account", "Class", "QOS", "State", "Procs", "WCLimit", "Reason", ""],
      foldArrays(q.blocked.filter((j) => this.matches(j))).map((j) => {
        const id = String(j.id), info = moku.jobs.info.get(id);
        const reason = j.reason || reasons.get(id) || (info && !info.denied ? info.reason : "") || "";
        return row(j, [j.id, name(j), j.user, ...this.creds(j), j.state, j.procs, fmtDuration(j.wclimit),
          el("td", {class: "reason"}, reason), this.buttons(j)]);
      }), "no blocked jobs");
    const s = q.summary || {};
    document.getElementById("q-summary").textContent =
      `${s.total} jobs: ${s.active} active, ${s.idle} idle, ${s.blocked} blocked`;
  },
};
moku.page("queue", queuePage);

/* The tasks of an array ("12[3]") that share a state, a user and a reason
 * as one row at the first one's place: {...first, id: "12[3-6]", array:
 * "12", ids: [each task's id]}. Other jobs, and a task alone, as they are. */
function foldArrays(list) {
  const groups = new Map(), out = [];
  for (const j of list) {
    const m = /^(\d+)\[(\d+)\]$/.exec(String(j.id));
    const key = m && [m[1], j.state, j.user, j.reason || ""].join("\u0000");
    const g = key && groups.get(key);
    if (g) {
      g.tasks.push(j);
      continue;
    }
    const ng = {job: j, array: m && m[1], tasks: [j]};
    if (key) groups.set(key, ng);
    out.push(ng);
  }
  return out.map((g) => {
    if (g.tasks.length < 2) return g.job;
    const idx = g.tasks.map((t) => Number(/\[(\d+)\]$/.exec(String(t.id))[1])).sort((a, b) => a - b);
    return {...g.job, id: `${g.array}[${indexRanges(idx)}]`, array: g.array, ids: g.tasks.map((t) => String(t.id))};
  });
}

/* Sorted indices as Torque writes a range: "1-4,7". */
function indexRanges(idx) {
  const parts = [];
  for (let i = 0; i < idx.length; i++) {
    let k = i;
    while (k + 1 < idx.length && idx[k + 1] === idx[k] + 1) k++;
    parts.push(k > i ? `${idx[i]}-${idx[k]}` : String(idx[i]));
    i = k;
  }
  return parts.join(",");
}

/* Node names, at most four, then how many more (the cell's tooltip lists them all). */
function compactNodes(list) {
  return list.length <= 4 ? list.join(",") : list.slice(0, 4).join(",") + ` +${list.length - 4} more`;
}

/* ---- Nodes ---- */

moku.nodes = {
  /* checknode ALL, or null with the reason when refused. */
  async load() {
    const r = await moku.tryGet("checknode", ["ALL"]);
    return r.error ? {nodes: null, error: r.error} : {nodes: r.nodes || []};
  },
};

moku.page("nodes", {
  async refresh() {
    const {nodes, error} = await moku.nodes.load();
    const note = document.getElementById("nodes-note");
    note.textContent = error ? "checknode: " + error : "";
    const res = (n) => (n.reservations || []).map((r) => (typeof r === "string" ? r : r.id + (r.procs ? `(x${r.procs})` : ""))).join(" ");
    fillTable(document.getElementById("nodes-table"),
      ["Node", "State", "Procs", "Free", "Features", "Partition", "Jobs", "Reservations"],
      (nodes || []).map((n) => ({attrs: {"data-node": n.name, "data-state": n.state}, cells: [
        n.name, el("td", {class: "state-" + String(n.state).toLowerCase()}, n.state), n.procs, n.procs_free,
        (n.features || []).join(","), n.partition,
        (n.jobs || []).map((j) => j.id + "(" + j.procs + ")").join(" "), res(n)]})),
      error ? "not available" : "no nodes");
  },
});
