import type { PerfReport } from "./perf.js";

/** One line of a {@link lineChartSvg}. */
export interface ChartSeries {
  label: string;
  /** Any SVG colour. */
  color: string;
  dashed?: boolean;
  /** Points with x > 0 and y > 0 (both axes are logarithmic). */
  points: readonly { x: number; y: number }[];
}

/** Titles of a {@link lineChartSvg}. */
export interface ChartLabels {
  title: string;
  x: string;
  y: string;
}

const PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"];
const W = 720;
const H = 420;
const M = { top: 40, right: 190, bottom: 50, left: 70 };

/**
 * A self-contained SVG line chart with logarithmic axes, for latency against corpus size: one
 * polyline with point markers per series, a legend, and ticks at 1-2-5 steps. Points that are not
 * positive finite numbers are left out. Pure: the same input gives the same text.
 */
export function lineChartSvg(series: readonly ChartSeries[], labels: ChartLabels): string {
  const clean = series.map((s) => ({
    ...s,
    points: s.points.filter(
      (p) => p.x > 0 && p.y > 0 && Number.isFinite(p.x) && Number.isFinite(p.y),
    ),
  }));
  const all = clean.flatMap((s) => s.points);
  const xs = domain(all.map((p) => p.x));
  const ys = domain(all.map((p) => p.y));
  const pw = W - M.left - M.right;
  const ph = H - M.top - M.bottom;
  const sx = (x: number) => M.left + ((Math.log10(x) - xs[0]) / (xs[1] - xs[0])) * pw;
  const sy = (y: number) => M.top + ph - ((Math.log10(y) - ys[0]) / (ys[1] - ys[0])) * ph;
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`,
    `<rect width="${W}" height="${H}" fill="#ffffff"/>`,
    `<text x="${M.left}" y="24" font-size="15" font-weight="bold">${esc(labels.title)}</text>`,
    `<rect x="${M.left}" y="${M.top}" width="${pw}" height="${ph}" fill="none" stroke="#999"/>`,
  ];
  for (const t of ticks(ys)) {
    const y = n(sy(t));
    out.push(
      `<line x1="${M.left}" y1="${y}" x2="${M.left + pw}" y2="${y}" stroke="#eee"/>`,
      `<text x="${M.left - 6}" y="${y}" text-anchor="end" dominant-baseline="middle">${esc(fmt(t))}</text>`,
    );
  }
  for (const t of ticks(xs)) {
    const x = n(sx(t));
    out.push(
      `<line x1="${x}" y1="${M.top}" x2="${x}" y2="${M.top + ph}" stroke="#eee"/>`,
      `<text x="${x}" y="${M.top + ph + 16}" text-anchor="middle">${esc(fmt(t))}</text>`,
    );
  }
  out.push(
    `<text x="${M.left + pw / 2}" y="${H - 10}" text-anchor="middle">${esc(labels.x)}</text>`,
    `<text transform="translate(16 ${M.top + ph / 2}) rotate(-90)" text-anchor="middle">${esc(labels.y)}</text>`,
  );
  clean.forEach((s, i) => {
    const dash = s.dashed ? ` stroke-dasharray="6 4"` : "";
    if (s.points.length > 1) {
      const pts = s.points.map((p) => `${n(sx(p.x))},${n(sy(p.y))}`).join(" ");
      out.push(
        `<polyline points="${pts}" fill="none" stroke="${esc(s.color)}" stroke-width="2"${dash}/>`,
      );
    }
    for (const p of s.points) {
      out.push(
        `<circle cx="${n(sx(p.x))}" cy="${n(sy(p.y))}" r="3.5" fill="${esc(s.color)}"><title>${esc(`${s.label}: ${fmt(p.y)} at ${fmt(p.x)}`)}</title></circle>`,
      );
    }
    const ly = M.top + 10 + i * 20;
    const lx = M.left + pw + 16;
    out.push(
      `<line x1="${lx}" y1="${ly}" x2="${lx + 24}" y2="${ly}" stroke="${esc(s.color)}" stroke-width="2"${dash}/>`,
      `<text x="${lx + 30}" y="${ly}" dominant-baseline="middle">${esc(s.label)}</text>`,
    );
  });
  if (!all.length) {
    out.push(
      `<text x="${M.left + pw / 2}" y="${M.top + ph / 2}" text-anchor="middle">no data</text>`,
    );
  }
  out.push("</svg>", "");
  return out.join("\n");
}

/** The `perf-latency.svg` chart: hybrid (solid) and keyword (dashed) p50 per store against size. */
export function perfLatencySvg(report: PerfReport): string {
  const stores = [...new Set(report.results.map((r) => r.store))];
  const series: ChartSeries[] = [];
  stores.forEach((store, i) => {
    const color = PALETTE[i % PALETTE.length] as string;
    const rows = report.results.filter((r) => r.store === store);
    series.push({
      label: `${store} hybrid`,
      color,
      points: rows.flatMap((r) =>
        r.vector ? [{ x: r.vector.chunks, y: r.vector.search.hybridWeighted.p50Ms }] : [],
      ),
    });
    series.push({
      label: `${store} keyword`,
      color,
      dashed: true,
      points: rows.flatMap((r) =>
        r.keyword ? [{ x: r.keyword.chunks, y: r.keyword.search.keyword.p50Ms }] : [],
      ),
    });
  });
  return lineChartSvg(series, {
    title: `engram search latency p50 (${report.date.slice(0, 10)})`,
    x: "corpus size (chunks, log scale)",
    y: "p50 latency (ms, log scale)",
  });
}

/** log10 bounds around `values`, padded so single values and flat lines still get an axis. */
function domain(values: number[]): [number, number] {
  if (!values.length) return [0, 1];
  const lo = Math.log10(Math.min(...values));
  const hi = Math.log10(Math.max(...values));
  const pad = Math.max(0.1, (hi - lo) * 0.08);
  return [lo - pad, hi + pad];
}

/** 1-2-5 ticks inside a log10 domain (at most ~12). */
function ticks([lo, hi]: [number, number]): number[] {
  const steps = hi - lo > 3 ? [1] : [1, 2, 5];
  const out: number[] = [];
  for (let e = Math.floor(lo); e <= Math.ceil(hi); e++) {
    for (const s of steps) {
      const v = s * 10 ** e;
      const l = Math.log10(v);
      if (l >= lo && l <= hi) out.push(v);
    }
  }
  return out;
}

function fmt(v: number): string {
  if (v >= 1000) return `${Number((v / 1000).toPrecision(3))}k`;
  return String(Number(v.toPrecision(3)));
}

function n(v: number): string {
  return v.toFixed(1);
}

function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
