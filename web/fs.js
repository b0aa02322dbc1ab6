/*
 * fs.js — the Fairshare page, from diagnose -f's JSON: per credential type,
 * each credential's usage per window (processor-hours, newest on the right),
 * its decayed usage, and its share against its target (floor, ceiling, cap
 * or percent cap: the "mode"), as SVG charts and a table. ADMIN1 may change
 * FSPOLICY, FSINTERVAL, FSDEPTH and FSDECAY (changeparam).
 */
"use strict";

const fsPage = {
  data: null,
  edited: new Set(), // parameters the user typed into: not overwritten by refreshes

  init() {
    const admin = moku.isAdmin([1]);
    document.getElementById("fs-form").hidden = !admin;
    document.getElementById("fs-fieldset").disabled = !admin;
    if (!admin) return;
    for (const i of document.querySelectorAll("#fs-form [data-param]")) {
      i.addEventListener("input", () => this.edited.add(i.dataset.param));
      i.addEventListener("change", () => this.edited.add(i.dataset.param));
    }
    document.getElementById("fs-apply").addEventListener("click", () => this.apply());
  },

  current() {
    const d = this.data;
    return {FSPOLICY: d.policy, FSINTERVAL: String(d.interval), FSDEPTH: String(d.depth), FSDECAY: String(d.decay)};
  },

  async apply() {
    const cur = this.current(), args = [];
    for (const i of document.querySelectorAll("#fs-form [data-param]")) {
      const v = i.value.trim();
      if (v && v !== cur[i.dataset.param]) args.push(i.dataset.param, v);
    }
    if (!args.length) {
      moku.showReply("changeparam", {ok: false, exit: null, http: 0, output: "nothing changed"});
      return;
    }
    const r = await moku.run("changeparam", args);
    if (r.ok) this.edited.clear();
  },

  async refresh() {
    const d = await moku.tryGet("diagnose", ["-f"]);
    const info = document.getElementById("fs-info");
    if (d.error) {
      info.textContent = "diagnose -f: " + d.error;
      return;
    }
    this.data = d;
    info.textContent = `FSPOLICY ${d.policy}, FSINTERVAL ${fmtDuration(d.interval)}, FSDEPTH ${d.depth}, FSDECAY ${d.decay}`;
    const cur = this.current();
    for (const i of document.querySelectorAll("#fs-form [data-param]")) if (!this.edited.has(i.dataset.param)) i.value = cur[i.dataset.param];
    this.charts();
    this.table();
  },

  decayed(c) {
    return c.windows.reduce((s, w, i) => s + w * Math.pow(this.data.decay, i), 0);
  },

  table() {
    const d = this.data;
    fillTable(document.getElementById("fs-table"),
      ["Type", "Name", "Share %", "Target", "Mode", "Decayed usage (proc-h)", ...d.credentials[0] ? d.credentials[0].windows.map((_, i) => "W" + i) : []],
      d.credentials.map((c) => ({attrs: {"data-cred": c.type + ":" + c.name}, cells: [c.type, c.name, fmtNum(c.usage),
        c.target === null ? "" : fmtNum(c.target), c.mode, fmtNum(this.decayed(c) / 3600),
        ...c.windows.map((w) => fmtNum(w / 3600))]})), "no credential has usage or a target");
  },

  charts() {
    const box = clear(document.getElementById("fs-charts"));
    const types = [...new Set(this.data.credentials.map((c) => c.type))];
    if (!types.length) box.appendChild(el("p", {class: "muted"}, "no usage recorded yet"));
    for (const t of types) {
      const creds = this.data.credentials.filter((c) => c.type === t);
      box.appendChild(el("h3", {}, t));
      const row = el("div", {class: "fs-row", "data-fstype": t});
      row.appendChild(this.windowChart(creds));
      row.appendChild(this.shareChart(creds));
      box.appendChild(row);
    }
  },

  /* Grouped bars: per credential, one bar per window (W0 newest, drawn rightmost). */
  windowChart(creds) {
    const depth = creds[0].windows.length, bw = depth > 12 ? 8 : 14, gap = 18, L = 50, T = 16, B = 34, H = 170;
    const W = Math.max(320, L + creds.length * (depth * bw + gap) + 10);
    const svg = svgEl("svg", {width: W, height: H, class: "fs-windows"});
    svg.appendChild(svgEl("rect", {x: 0, y: 0, width: W, height: H, class: "chart-bg"}));
    let max = 0;
    for (const c of creds) for (const w of c.windows) max = Math.max(max, w / 3600);
    // Distinct round ticks, however small the usage (a few processor-seconds is 0.001 proc-h).
    const yt = niceTicks(max > 0 ? max : 1, 2);
    max = yt.top;
    const y = (v) => T + (1 - v / max) * (H - T - B);
    const axis = svgEl("g", {class: "axis", "data-axis": "y"});
    for (const v of yt.ticks) {
      axis.appendChild(svgEl("line", {x1: L, x2: W, y1: y(v), y2: y(v), class: "grid"}));
      axis.appendChild(svgEl("text", {x: L - 4, y: y(v) + 4, "text-anchor": "end", class: "axis-text tick"}, yt.fmt(v)));
    }
    svg.appendChild(axis);
    svg.appendChild(svgEl("text", {x: 4, y: 11, class: "axis-text"}, "proc-hours per window (oldest … newest)"));
    creds.forEach((c, k) => {
      const gx = L + 4 + k * (depth * bw + gap);
      c.windows.forEach((w, i) => {
        const v = w / 3600, bx = gx + (depth - 1 - i) * bw;
        const r = svgEl("rect", {x: bx, y: y(v), width: bw - 1, height: Math.max(0, y(0) - y(v)), class: "fs-bar", "data-window": i});
        svg.appendChild(svgTitle(r, `${c.type} ${c.name}, window ${i} (${i === 0 ? "current" : i + " back"}): ${fmtNum(v)} proc-h, weight ${fmtNum(Math.pow(this.data.decay, i))}`));
      });
      svg.appendChild(svgEl("text", {x: gx, y: H - B + 14, class: "axis-text"}, c.name));
    });
    return svg;
  },

  /* Horizontal bars: each credential's share %, with its target as a marker. */
  shareChart(creds) {
    const L = 110, R = 80, T = 18, rowH = 22, W = 460, H = T + creds.length * rowH + 20;
    const svg = svgEl("svg", {width: W, height: H, class: "fs-share"});
    svg.appendChild(svgEl("rect", {x: 0, y: 0, width: W, height: H, class: "chart-bg"}));
    svg.appendChild(svgEl("text", {x: 4, y: 12, class: "axis-text"}, "share of the decayed total (%) vs target"));
    const x = (v) => L + (Math.max(0, Math.min(100, v)) / 100) * (W - L - R);
    const axis = svgEl("g", {class: "axis", "data-axis": "x"});
    for (const v of [0, 25, 50, 75, 100]) {
      axis.appendChild(svgEl("line", {x1: x(v), x2: x(v), y1: T, y2: H - 18, class: "grid"}));
      axis.appendChild(svgEl("text", {x: x(v), y: H - 6, "text-anchor": "middle", class: "axis-text tick"}, v));
    }
    svg.appendChild(axis);
    creds.forEach((c, i) => {
      const y = T + i * rowH;
      svg.appendChild(svgEl("text", {x: 4, y: y + 15, class: "axis-text"}, c.name));
      const bar = svgEl("rect", {x: L, y: y + 4, width: x(c.usage) - L, height: rowH - 8, class: "fs-share-bar"});
      svg.appendChild(svgTitle(bar, `${c.name}: ${fmtNum(c.usage)} %`));
      const pct = c.mode !== "cap" && c.target !== null;
      if (pct) {
        const m = svgEl("line", {x1: x(c.target), x2: x(c.target), y1: y + 1, y2: y + rowH - 1, class: "fs-target mode-" + c.mode});
        svg.appendChild(svgTitle(m, `${c.mode} ${fmtNum(c.target)} %`));
      }
      const label = c.target === null ? fmtNum(c.usage) + "%" :
        `${fmtNum(c.usage)}% / ${fmtNum(c.target)}${c.mode === "cap" ? "^" : "%"} ${c.mode}`;
      svg.appendChild(svgEl("text", {x: W - R + 4, y: y + 15, class: "axis-text"}, label));
    });
    return svg;
  },
};

moku.page("fs", fsPage);
