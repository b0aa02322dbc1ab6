/*
 * resv.js — the Reservations page: a timeline (inline SVG, rows = nodes,
 * x = now .. now + N hours) of administrative reservations, standing
 * reservation instances (flag STANDINGRSV), running jobs until their planned
 * ends (now + remaining) and idle jobs' priority reservations (checkjob's
 * "reservation" window; showres does not list those, and their nodes are not
 * known, so each gets a lane of its own under the nodes). ADMIN1/ADMIN2 get a
 * form for setres, setres -m and releaseres.
 */
"use strict";

const resvPage = {
  hours: 12,
  data: null,
  formFilled: false,

  init() {
    const sel = document.getElementById("tl-hours");
    const steps = [...sel.options].map((o) => Number(o.value));
    sel.addEventListener("change", () => { this.hours = Number(sel.value); this.draw(); });
    const zoom = (d) => {
      const i = Math.max(0, Math.min(steps.length - 1, steps.indexOf(this.hours) + d));
      this.hours = steps[i];
      sel.value = String(this.hours);
      this.draw();
    };
    document.getElementById("tl-zoom-in").addEventListener("click", () => zoom(-1));
    document.getElementById("tl-zoom-out").addEventListener("click", () => zoom(1));
    window.addEventListener("resize", () => this.draw());
    this.initForm();
  },

  initForm() {
    const form = document.getElementById("resv-form");
    const admin = moku.isAdmin([1, 2]);
    form.hidden = !admin;
    document.getElementById("resv-fieldset").disabled = !admin;
    if (!admin) return;
    for (const i of form.querySelectorAll("input, select")) i.addEventListener("input", () => this.preview());
    document.getElementById("rf-id").addEventListener("change", () => this.pick(document.getElementById("rf-id").value));
    document.getElementById("rf-create").addEventListener("click", () => this.send("create"));
    document.getElementById("rf-modify").addEventListener("click", () => this.send("modify"));
    document.getElementById("rf-release").addEventListener("click", () => this.send("release"));
    this.preview();
  },

  val(id) {
    return document.getElementById(id).value.trim();
  },

  /* The command the form describes: [cmd, args]. */
  command(kind) {
    const id = this.val("rf-id");
    if (kind === "release") return ["releaseres", [id]];
    const a = [];
    const opt = (flag, field) => { const v = this.val(field); if (v) a.push(flag, v); };
    if (kind === "modify") a.push("-m", id);
    if (kind === "create") opt("-n", "rf-name");
    opt("-u", "rf-users");
    opt("-g", "rf-groups");
    opt("-a", "rf-accounts");
    opt("-x", "rf-flags");
    opt("-s", "rf-start");
    opt("-d", "rf-duration");
    if (kind === "create") a.push(...this.val("rf-nodes").split(/\s+/).filter(Boolean));
    return ["setres", a];
  },

  preview() {
    const id = this.val("rf-id");
    const [cmd, args] = this.command(id ? "modify" : "create");
    document.getElementById("rf-preview").textContent = [cmd, ...args].join(" ");
    document.getElementById("rf-modify").disabled = !id;
    document.getElementById("rf-release").disabled = !id;
    document.getElementById("rf-create").disabled = !!id;
    document.getElementById("rf-nodes").disabled = !!id;
    document.getElementById("rf-name").disabled = !!id;
  },

  /* Fill the form from an existing reservation (to modify or release it). */
  pick(id) {
    const sel = document.getElementById("rf-id");
    const r = this.data && (this.data.resv || []).find((x) => x.id === id);
    sel.value = r ? id : "";
    if (r) {
      const acl = (t) => (r.acl.match(new RegExp("\\b" + t + "==([^ ]+)", "g")) || [])
        .map((m) => m.split("==")[1].replace(/[+=-]$/, "")).join(":");
      document.getElementById("rf-users").value = acl("USER");
      document.getElementById("rf-groups").value = acl("GROUP");
      document.getElementById("rf-accounts").value = acl("ACCOUNT");
      document.getElementById("rf-nodes").value = r.nodes.join(",");
      document.getElementById("rf-flags").value = "";
      document.getElementById("rf-start").value = "";
      document.getElementById("rf-duration").value = "";
    }
    this.preview();
  },

  async send(kind) {
    const [cmd, args] = this.command(kind);
    const r = await moku.run(cmd, args);
    if (r.ok && kind !== "modify") {
      document.getElementById("rf-id").value = "";
      this.preview();
    }
  },

  async refresh() {
    const [q, nodes, res] = await Promise.all([moku.get("showq"), moku.nodes.load(), moku.tryGet("showres")]);
    moku.setZone(q.zone);
    const idle = q.idle.slice(0, 30).map((j) => String(j.id));
    const plans = await Promise.all(idle.map((id) => moku.jobs.fresh(id)));
    this.data = {
      now: moku.now(), q, nodes: nodes.nodes, nodeError: nodes.error,
      resv: res.error ? null : res.reservations, resvError: res.error,
      plans: plans.filter((p) => !p.error && p.reservation && p.reservation.start),
    };
    const notes = [];
    if (nodes.error) notes.push("nodes: " + nodes.error);
    if (res.error) notes.push("reservations: " + res.error);
    document.getElementById("tl-note").textContent = notes.join("; ");
    this.fillIds();
    this.table();
    this.draw();
  },

  fillIds() {
    const sel = document.getElementById("rf-id");
    const keep = sel.value;
    const ids = (this.data.resv || []).filter((r) => !(r.flags || []).includes("STANDINGRSV")).map((r) => r.id);
    const want = ["", ...ids];
    if (sel.options.length !== want.length || want.some((v, i) => sel.options[i].value !== v)) {
      clear(sel);
      for (const id of want) sel.appendChild(el("option", {value: id}, id || "(new)"));
    }
    sel.value = ids.includes(keep) ? keep : "";
    if (keep && !ids.includes(keep)) this.preview();
  },

  table() {
    fillTable(document.getElementById("resv-table"), ["Id", "Kind", "Start", "End", "Duration", "Nodes", "Procs", "ACL", "Flags"],
      (this.data.resv || []).map((r) => ({attrs: {"data-resv": r.id}, cells: [r.id, kindOf(r), timeCell(r.start),
        timeCell(r.end), fmtDuration(r.end - r.start), r.nodes.join(","), r.procs, r.acl || "[NONE]", (r.flags || []).join(",")]})),
      this.data.resvError ? "not available: " + this.data.resvError : "no reservations");
  },

  /* The lanes: one per node, then one per planned job start. */
  lanes() {
    const d = this.data, lanes = [], byNode = new Map();
    const names = d.nodes ? d.nodes.map((n) => n.name) : [];
    for (const r of d.resv || []) for (const n of r.nodes) if (!names.includes(n)) names.push(n);
    for (const n of names) { const l = {label: n, node: n, bars: []}; lanes.push(l); byNode.set(n, l); }
    for (const r of d.resv || []) for (const n of r.nodes) {
      byNode.get(n).bars.push({cls: kindOf(r) === "standing" ? "resv-standing" : "resv-admin", start: r.start, end: r.end,
        label: r.id, title: `${r.id} (${kindOf(r)}) ${fmtTime(r.start)} – ${fmtTimeZ(r.end)} ${r.acl || "[NONE]"}`, resv: r.id});
    }
    const active = new Map(d.q.active.map((j) => [String(j.id), j]));
    const placed = new Set();
    for (const n of d.nodes || []) for (const jn of n.jobs || []) {
      const j = active.get(String(jn.id));
      if (!j) continue;
      placed.add(String(j.id));
      byNode.get(n.name).bars.push(jobBar(j, d.now, jn.procs));
    }
    const unplaced = d.q.active.filter((j) => !placed.has(String(j.id)));
    if (unplaced.length) lanes.push({label: "running (nodes not shown)", bars: unplaced.map((j) => jobBar(j, d.now, j.procs)), sep: true});
    d.plans.forEach((p, i) => lanes.push({label: "job " + p.id + " planned", sep: i === 0, bars: [{cls: "job-planned",
      start: p.reservation.start, end: p.reservation.end, label: p.id, job: p.id,
      title: `job ${p.id} (${p.user}) priority reservation ${fmtTime(p.reservation.start)} – ${fmtTimeZ(p.reservation.end)}`}]}));
    return lanes;
  },

  draw() {
    if (!this.data) return;
    const box = document.getElementById("timeline");
    clear(box);
    const t0 = moku.now(), t1 = t0 + this.hours * 3600;
    const lanes = this.lanes().map((l) => stackLane(l, t0, t1));
    const rows = lanes.reduce((n, l) => n + l.rows, 0);
    const W = Math.max(500, box.clientWidth || 900), L = 150, R = 12, T = 8, rowH = 24, H = T + rows * rowH + 26;
    const svg = svgEl("svg", {width: W, height: H, viewBox: `0 0 ${W} ${H}`, id: "timeline-svg", "data-hours": this.hours});
    svg.appendChild(svgEl("rect", {x: 0, y: 0, width: W, height: H, class: "chart-bg"}));
    const x = (t) => L + ((Math.max(t0, Math.min(t1, t)) - t0) / (t1 - t0)) * (W - L - R);
    drawTimeAxis(svg, t0, t1, x, T, H - 26);
    let y = T;
    for (const lane of lanes) {
      if (lane.sep) svg.appendChild(svgEl("line", {x1: 0, x2: W, y1: y, y2: y, class: "sep"}));
      svg.appendChild(svgEl("text", {x: 6, y: y + 16, class: "lane-label"}, lane.label));
      svg.appendChild(svgEl("line", {x1: L, x2: W - R, y1: y + lane.rows * rowH, y2: y + lane.rows * rowH, class: "lane"}));
      for (const b of lane.bars) {
        const by = y + b.row * rowH, bx = x(b.start), bw = Math.max(2, x(b.end) - bx);
        const g = svgEl("g", {class: "bar " + b.cls, "data-resv": b.resv, "data-job": b.job, "data-node": lane.node,
          "data-row": b.row});
        g.appendChild(svgEl("rect", {x: bx, y: by + 3, width: bw, height: rowH - 6, rx: 3}));
        const label = fitLabel(b.label, bw - 8);
        if (label) g.appendChild(svgEl("text", {x: bx + 4, y: by + 16}, label));
        svgTitle(g, b.title);
        if (b.resv && moku.isAdmin([1, 2])) g.addEventListener("click", () => this.pick(b.resv));
        svg.appendChild(g);
      }
      y += lane.rows * rowH;
    }
    svg.appendChild(svgEl("line", {x1: L, x2: L, y1: T, y2: H - 26, class: "now"}));
    if (!lanes.length) svg.appendChild(svgEl("text", {x: W / 2, y: T + 20, "text-anchor": "middle"}, "nothing to show"));
    box.appendChild(svg);
  },
};

/*
 * A lane's bars in the window [t0, t1), each given a row of the lane so that
 * bars that overlap in time sit one above the other, and no bar hides
 * another's label (the first row whose last bar has ended). lane.rows: how
 * many rows the lane needs (at least one).
 */
function stackLane(lane, t0, t1) {
  const bars = lane.bars.filter((b) => b.end > t0 && b.start < t1)
    .sort((a, b) => a.start - b.start || b.end - a.end);
  const ends = [];
  for (const b of bars) {
    let r = ends.findIndex((e) => e <= b.start);
    if (r < 0) { r = ends.length; ends.push(0); }
    ends[r] = b.end;
    b.row = r;
  }
  return {...lane, bars, rows: Math.max(1, ends.length)};
}

/* label cut to about px pixels of 11px text (an ellipsis where cut); "" when not even a few letters fit. */
function fitLabel(label, px) {
  const n = Math.floor(px / 6.5);
  if (n < 3) return "";
  return label.length <= n ? label : label.slice(0, n - 1) + "…";
}

function kindOf(r) {
  return (r.flags || []).includes("STANDINGRSV") ? "standing" : "administrative";
}

function jobBar(j, now, procs) {
  const end = now + (j.remaining || 0);
  return {cls: "job-running", start: j.start || now, end, label: String(j.id), job: String(j.id),
    title: `job ${j.id} (${j.user}) ${procs} procs, running until ${fmtTimeZ(end)}`};
}

moku.page("resv", resvPage);
