/*
 * prio.js — the Priorities page: diagnose -p's table by component and
 * factor, a slider and a number box for every component and factor weight,
 * and a what-if ranking recomputed at once with src/policy/prio.c's formula:
 *
 *   w_f(job)   = job.weights[f] - configured W_f + slider W_f  (QOS additions kept)
 *   sum[c]     = Σ_{f in c, w_f != 0} w_f × (FCAP_f > 0 ? min(FCAP_f, F_f) : F_f)
 *   comp[c]    = CW_c × (CCAP_c > 0 ? min(CCAP_c, sum[c]) : sum[c])   (0 when CW_c = 0)
 *   total      = Σ_{c != usage} comp[c]; max(total, floor); min(total, clip);
 *                floor < 0: max(total, -clip); then sysprio absolute: clip + value,
 *                relative: total + value.
 *   order      = priority descending, then earlier submit time, then lower id.
 *
 * Apply (ADMIN1) sends changeparam with the weights that differ from the
 * configured ones; Reset puts the sliders back to the configured weights.
 */
"use strict";

const prioPage = {
  data: null,
  slider: {},       // param -> value the user chose (only params the user touched)
  allFactors: false,

  init() {
    document.getElementById("prio-apply").addEventListener("click", () => this.apply());
    document.getElementById("prio-reset").addEventListener("click", () => { this.slider = {}; this.sliders(true); this.rank(); });
    document.getElementById("prio-allfactors").addEventListener("change", (e) => { this.allFactors = e.target.checked; this.rank(); });
  },

  async refresh() {
    const [d, q] = await Promise.all([moku.tryGet("diagnose", ["-p"]), moku.tryGet("showq")]);
    const note = document.getElementById("prio-note");
    if (d.error) { note.textContent = "diagnose -p: " + d.error; return; }
    if (!d.weights) { note.textContent = "diagnose -p gives no \"weights\": this daemon is too old for the what-if"; return; }
    const queued = new Map();
    if (!q.error) for (const j of [...q.idle, ...q.blocked]) queued.set(String(j.id), j);
    this.data = {w: d.weights, jobs: d.jobs.map((j) => ({...j, id: String(j.id), queued: queued.get(String(j.id))}))};
    note.textContent = "";
    this.sliders(false);
    this.rank();
  },

  /* The configured weight of a param, and the what-if one. */
  configured(param) {
    const w = this.data.w;
    for (const c of Object.values(w.components)) if (c.param === param) return c.weight;
    for (const f of Object.values(w.factors)) if (f.param === param) return f.weight;
    return 0;
  },
  value(param) {
    return param in this.slider ? this.slider[param] : this.configured(param);
  },
  changed() {
    return Object.keys(this.slider).filter((p) => this.slider[p] !== this.configured(p));
  },

  /* Build the sliders once; afterwards only move the untouched ones to the configured values. */
  sliders(force) {
    const box = document.getElementById("prio-sliders");
    const w = this.data.w;
    if (!box.firstChild) {
      for (const [cname, c] of Object.entries(w.components)) {
        const grp = el("fieldset", {class: "comp", "data-component": cname}, el("legend", {}, cname.toUpperCase()));
        grp.appendChild(this.sliderRow(c.param, c.param, true));
        for (const [fname, f] of Object.entries(w.factors)) {
          if (f.component === cname) grp.appendChild(this.sliderRow(f.param, fname, false));
        }
        box.appendChild(grp);
      }
    }
    for (const row of box.querySelectorAll(".slider")) {
      const p = row.dataset.param;
      if (force || !(p in this.slider)) this.setRow(row, this.configured(p));
      row.classList.toggle("changed", this.value(p) !== this.configured(p));
      row.querySelector(".conf").textContent = "(" + this.configured(p) + ")";
      row.querySelector(".conf").title = "configured weight";
    }
  },

  sliderRow(param, label, isComp) {
    const v = this.configured(param);
    const row = el("div", {class: "slider" + (isComp ? " comp-slider" : ""), "data-param": param});
    const range = el("input", {type: "range", "data-param": param, "aria-label": param, step: 1});
    const num = el("input", {type: "number", "data-param-box": param, "aria-label": param + " value", step: 1});
    row.appendChild(el("label", {title: param}, label));
    row.appendChild(range);
    row.appendChild(num);
    row.appendChild(el("span", {class: "conf muted"}));
    const set = (val, from) => {
      if (val === "" || Number.isNaN(Number(val))) return;
      const n = Math.round(Number(val));
      this.slider[param] = n;
      this.setRow(row, n, from);
      row.classList.toggle("changed", n !== this.configured(param));
      this.rank();
    };
    range.addEventListener("input", () => set(range.value, range));
    num.addEventListener("input", () => set(num.value, num));
    this.setRow(row, v);
    return row;
  },

  /* Show value n in a row; the range grows to hold it (weights are unbounded integers). */
  setRow(row, n, from) {
    const range = row.querySelector("input[type=range]"), num = row.querySelector("input[type=number]");
    const lim = Math.max(10, Math.pow(10, Math.ceil(Math.log10(Math.abs(n) + 1))));
    if (Number(range.max) < lim || !range.max) { range.min = String(-lim); range.max = String(lim); }
    if (from !== range) range.value = String(n);
    if (from !== num) num.value = String(n);
  },

  /* The what-if priority and parts of one job under the slider weights. */
  whatIf(job) {
    const w = this.data.w, sums = {}, terms = {};
    for (const c of Object.keys(w.components)) sums[c] = 0;
    for (const [f, fw] of Object.entries(w.factors)) {
      const raw = job.factors ? job.factors[f] : undefined;
      if (raw === undefined || raw === null) continue;
      const jw = job.weights && job.weights[f] !== undefined ? job.weights[f] : fw.weight;
      /* A weight the job's own credentials replace (a group's CLASSWEIGHT)
       * does not move with the slider; one a QOS adds to does. */
      const fixed = Array.isArray(job.fixed) && job.fixed.includes(f);
      const wf = fixed ? jw : jw - fw.weight + this.value(fw.param);
      const cw = this.value(w.components[fw.component].param);
      const F = fw.cap > 0 ? Math.min(fw.cap, raw) : raw;
      terms[f] = {w: wf, v: raw};
      if (wf !== 0 && cw !== 0) sums[fw.component] += wf * F;
    }
    const comps = {};
    let total = 0;
    for (const [c, cc] of Object.entries(w.components)) {
      const cw = this.value(cc.param);
      const s = cc.cap > 0 ? Math.min(cc.cap, sums[c]) : sums[c];
      comps[c] = cw === 0 ? 0 : cw * s;
      if (c !== "usage") total += comps[c];
    }
    total = Math.max(total, w.floor);
    total = Math.min(total, w.clip);
    if (w.floor < 0) total = Math.max(total, -w.clip);
    if (job.sysprio) total = job.sysprio.mode === "absolute" ? w.clip + job.sysprio.value : total + job.sysprio.value;
    return {total, comps, terms};
  },

  /* Earlier submit time first, then the lower id. */
  tie(a, b) {
    const ta = a.submit || (a.queued && (a.queued.submit || a.queued.queuetime)) || 0;
    const tb = b.submit || (b.queued && (b.queued.submit || b.queued.queuetime)) || 0;
    if (ta !== tb) return ta - tb;
    return Number(a.id) - Number(b.id) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  },

  rank() {
    if (!this.data) return;
    const jobs = this.data.jobs.map((j) => ({...j, wi: this.whatIf(j)}));
    const oldOrder = [...jobs].sort((a, b) => b.priority - a.priority || this.tie(a, b));
    const newOrder = [...jobs].sort((a, b) => b.wi.total - a.wi.total || this.tie(a, b));
    const oldRank = new Map(oldOrder.map((j, i) => [j.id, i + 1]));
    const ol = clear(document.getElementById("prio-order"));
    ol.dataset.order = newOrder.map((j) => j.id).join(",");
    ol.dataset.oldOrder = oldOrder.map((j) => j.id).join(",");
    newOrder.forEach((j, i) => {
      const moved = oldRank.get(j.id) - (i + 1);
      ol.appendChild(el("li", {"data-job": j.id, "data-priority": j.wi.total, class: moved > 0 ? "up" : moved < 0 ? "down" : ""},
        `job ${j.id} (${j.queued ? j.queued.user : ""}) ${fmtNum(j.wi.total)}` + (moved ? ` — was #${oldRank.get(j.id)}` : "")));
    });
    this.table(newOrder, oldRank);
    const ch = this.changed();
    document.getElementById("prio-changed").textContent = ch.length ? "changed: " + ch.map((p) => `${p} ${this.configured(p)} → ${this.value(p)}`).join(", ") : "";
    document.getElementById("prio-apply").disabled = !(moku.isAdmin([1]) && ch.length);
    document.getElementById("prio-apply").title = moku.isAdmin([1]) ? "" : "ADMIN1 only";
  },

  table(order, oldRank) {
    const w = this.data.w;
    const comps = Object.keys(w.components);
    const facs = Object.entries(w.factors).filter(([f, fw]) => this.allFactors ||
      order.some((j) => j.wi.terms[f] && j.wi.terms[f].w !== 0 && this.value(w.components[fw.component].param) !== 0));
    const head = ["Rank", "Was", "Job", "User", "Priority (daemon)", "What-if",
      ...comps.map((c) => c.toUpperCase()), ...facs.map(([f, fw]) => f + " (" + fw.component + ")")];
    fillTable(document.getElementById("prio-table"), head, order.map((j, i) => ({
      attrs: {"data-job": j.id, "data-rank": i + 1, "data-old-rank": oldRank.get(j.id)},
      cells: [i + 1, oldRank.get(j.id), j.id, j.queued ? j.queued.user : "", fmtNum(j.priority), fmtNum(j.wi.total),
        ...comps.map((c) => el("td", {title: `daemon: ${fmtNum(j.components ? j.components[c] : null)}`}, fmtNum(j.wi.comps[c]))),
        ...facs.map(([f]) => { const t = j.wi.terms[f]; return t ? `${t.w} × ${fmtNum(t.v)}` : ""; })],
    })), "no idle jobs to rank");
  },

  async apply() {
    const ch = this.changed();
    if (!ch.length) return;
    const args = [];
    for (const p of ch) args.push(p, String(this.value(p)));
    const r = await moku.run("changeparam", args);
    if (r.ok) {
      // The configured weights are now these: forget the edits once the new ones are read.
      const d = await moku.tryGet("diagnose", ["-p"]);
      if (!d.error && d.weights) { this.data.w = d.weights; }
      for (const p of ch) if (this.slider[p] === this.configured(p)) delete this.slider[p];
      await this.refresh();
    }
  },
};

moku.page("prio", prioPage);
