/*
 * svg.js — inline SVG drawing for the charts (no chart library): elements,
 * time axes and a step-line chart. Text goes in with textContent only.
 */
"use strict";

const SVGNS = "http://www.w3.org/2000/svg";

function svgEl(tag, attrs = {}, text) {
  const e = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== null && v !== undefined) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = String(text);
  return e;
}

/* A <title> child: the browser's tooltip. */
function svgTitle(e, text) {
  e.appendChild(svgEl("title", {}, text));
  return e;
}

/* Tick times between t0 and t1 (epoch s) at a round step giving about n
 * ticks, aligned to the daemon's clock (moku.zone: whole hours and days there). */
function timeTicks(t0, t1, n = 8) {
  const steps = [60, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400, 172800];
  const span = Math.max(1, t1 - t0);
  const step = steps.find((s) => span / s <= n) || 86400 * Math.ceil(span / 86400 / n);
  const tz = -moku.zone.offset; // align to the daemon's clock
  const out = [];
  for (let t = Math.ceil((t0 - tz) / step) * step + tz; t <= t1; t += step) out.push(t);
  return {ticks: out, step};
}

function tickLabel(t, step) {
  const c = clockParts(t);
  const p = (v) => String(v).padStart(2, "0");
  if (step >= 86400 || (c.h === 0 && c.mi === 0)) return p(c.mo) + "-" + p(c.d);
  return p(c.h) + ":" + p(c.mi);
}

/*
 * Value ticks for an axis from 0 to at least max: a round step (1, 2 or 5
 * times a power of ten) giving at most n intervals, so the labels are
 * distinct and printed with just the decimals the step needs (0, 0.5, 1 —
 * never 0.0, 0.0, 0). Returns {ticks, top, fmt}.
 */
function niceTicks(max, n = 4) {
  if (!(max > 0)) max = 1;
  const raw = max / n, p = Math.pow(10, Math.floor(Math.log10(raw)));
  const step = [1, 2, 5, 10].map((m) => m * p).find((s) => s >= raw * (1 - 1e-9));
  const count = Math.max(1, Math.ceil(max / step - 1e-9));
  const decimals = Math.max(0, -Math.floor(Math.log10(step) + 1e-9));
  const ticks = [];
  for (let i = 0; i <= count; i++) ticks.push(Number((i * step).toFixed(decimals)));
  return {ticks, top: ticks[ticks.length - 1], fmt: (v) => v.toFixed(decimals)};
}

/* Vertical grid lines and labels of a time axis inside svg at rows [top, bottom]. */
function drawTimeAxis(svg, t0, t1, x, top, bottom) {
  const {ticks, step} = timeTicks(t0, t1);
  const g = svgEl("g", {class: "axis", "data-axis": "x"});
  for (const t of ticks) {
    g.appendChild(svgEl("line", {x1: x(t), x2: x(t), y1: top, y2: bottom, class: "grid"}));
    g.appendChild(svgEl("text", {x: x(t), y: bottom + 14, "text-anchor": "middle", class: "tick"}, tickLabel(t, step)));
  }
  svg.appendChild(g);
}

/*
 * A step-line chart of series over time into container (cleared first).
 * series: [{name, cls, points: [[t, v], ...]}]; opts: {t0, t1, ymax, yfmt, height, id}.
 * A sample holds until the next one (the history has one at each change).
 */
function lineChart(container, series, opts) {
  clear(container);
  const W = Math.max(400, container.clientWidth || 800), H = opts.height || 220;
  const L = 48, R = 110, T = 10, B = 24;
  const svg = svgEl("svg", {width: W, height: H, viewBox: `0 0 ${W} ${H}`, role: "img", id: opts.id});
  svg.appendChild(svgEl("rect", {x: 0, y: 0, width: W, height: H, class: "chart-bg"}));
  const x = (t) => L + ((t - opts.t0) / Math.max(1, opts.t1 - opts.t0)) * (W - L - R);
  let ymax = opts.ymax;
  if (!ymax) {
    ymax = 1;
    for (const s of series) for (const [, v] of s.points) ymax = Math.max(ymax, v);
  }
  // Counts (processors, jobs): whole-number ticks, at least a step of 1.
  const yt = niceTicks(Math.max(ymax, 1), Math.min(4, Math.max(1, Math.ceil(ymax))));
  ymax = yt.top;
  const y = (v) => T + (1 - v / ymax) * (H - T - B);
  drawTimeAxis(svg, opts.t0, opts.t1, x, T, H - B);
  const ya = svgEl("g", {class: "axis", "data-axis": "y"});
  for (const v of yt.ticks) {
    ya.appendChild(svgEl("line", {x1: L, x2: W - R, y1: y(v), y2: y(v), class: "grid"}));
    ya.appendChild(svgEl("text", {x: L - 4, y: y(v) + 4, "text-anchor": "end", class: "tick"}, opts.yfmt ? opts.yfmt(v) : yt.fmt(v)));
  }
  svg.appendChild(ya);
  series.forEach((s, i) => {
    let d = "";
    let prev = null;
    for (const [t, v] of s.points) {
      const px = Math.max(L, Math.min(W - R, x(t))).toFixed(1), py = y(v).toFixed(1);
      if (prev === null) d += `M${px},${py}`;
      else d += `H${px}V${py}`;
      prev = v;
    }
    if (prev !== null) d += `H${(W - R).toFixed(1)}`;
    const path = svgEl("path", {d, class: "series " + s.cls, fill: "none", "data-series": s.name});
    svg.appendChild(svgTitle(path, s.name));
    svg.appendChild(svgEl("line", {x1: W - R + 8, x2: W - R + 24, y1: T + 10 + i * 16, y2: T + 10 + i * 16, class: "series " + s.cls}));
    svg.appendChild(svgEl("text", {x: W - R + 28, y: T + 14 + i * 16}, s.name));
  });
  if (!series.some((s) => s.points.length)) {
    svg.appendChild(svgEl("text", {x: W / 2, y: H / 2, "text-anchor": "middle", class: "muted"}, "no samples in this range"));
  }
  container.appendChild(svg);
  return svg;
}
