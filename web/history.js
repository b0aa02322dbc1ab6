/*
 * history.js — the Utilization page: busy processors (and the total) and the
 * queue length (running, idle, blocked jobs) over the last hour, 6 hours,
 * day or week, from /api/history (one sample a minute and at each change).
 */
"use strict";

moku.page("util", {
  range: 6 * 3600,
  data: null,

  init() {
    for (const b of document.querySelectorAll("#hist-range [data-range]")) {
      b.addEventListener("click", () => { this.range = Number(b.dataset.range); this.draw(); });
    }
    window.addEventListener("resize", () => { if (moku.current === "util") this.draw(); });
  },

  async refresh() {
    this.data = await moku.get("history");
    this.draw();
  },

  draw() {
    for (const b of document.querySelectorAll("#hist-range [data-range]")) b.classList.toggle("active", Number(b.dataset.range) === this.range);
    if (!this.data) return;
    const t1 = moku.now(), t0 = t1 - this.range;
    const all = this.data.samples || [];
    // The last sample before the range still holds at its start.
    let first = 0;
    while (first < all.length && all[first].time < t0) first++;
    const s = all.slice(Math.max(0, first - 1)).map((x) => ({...x, time: Math.max(t0, x.time)}));
    const pts = (f) => s.map((x) => [x.time, f(x)]);
    const procs = s.reduce((m, x) => Math.max(m, x.procs || 0), 0);
    lineChart(document.getElementById("hist-util"), [
      {name: "busy procs", cls: "s-busy", points: pts((x) => x.busy)},
      {name: "procs", cls: "s-procs", points: pts((x) => x.procs)},
    ], {t0, t1, ymax: procs || 0, id: "hist-util-svg"});
    lineChart(document.getElementById("hist-queue"), [
      {name: "running", cls: "s-running", points: pts((x) => x.running)},
      {name: "idle", cls: "s-idle", points: pts((x) => x.idle)},
      {name: "blocked", cls: "s-blocked", points: pts((x) => x.blocked)},
    ], {t0, t1, id: "hist-queue-svg"});
    const inRange = all.length - first;
    const busy = s.length ? s[s.length - 1] : null;
    document.getElementById("hist-note").textContent = `${inRange} samples in range` +
      (busy && busy.procs ? `; now ${busy.busy}/${busy.procs} procs busy (${fmtNum((100 * busy.busy) / busy.procs, 1)}%)` : "");
  },
});
