import type { MemoryStatus } from "@engram/core";
import type { BenchBar, BenchSummary } from "../data/bench.js";
import { formatAge, formatBytes, type Html, html, type PageContext } from "./html.js";

/** `engram status` as a page, and the benchmark chart where `bench/results` exist. */
export function healthView(
  _page: PageContext,
  status: MemoryStatus,
  bench: BenchSummary | null,
): Html {
  const now = Date.now();
  const last = status.lastSync;
  const watcher = status.watcher;
  return html`<h1>Health</h1>
${status.degraded ? html`<p class="notice-line">Search is keyword-only: ${status.degradedReason}</p>` : html`<p class="ok-line">Hybrid search is up.</p>`}
${status.warnings.map((w) => html`<p class="notice-line">${w}</p>`)}
<div class="cards">
  <section class="card"><h2>Index</h2><dl>
    <dt>store</dt><dd>${status.store.kind}</dd>
    <dt>files</dt><dd>${status.store.files}</dd>
    <dt>chunks</dt><dd>${status.store.chunks}</dd>
    <dt>vectors</dt><dd>${status.store.vectors}</dd>
    ${status.store.bytes !== undefined ? html`<dt>size</dt><dd>${formatBytes(status.store.bytes)}</dd>` : ""}
    <dt>owed vectors</dt><dd>${status.vectorsPending} file(s)</dd>
    <dt>analyzer</dt><dd><code>${status.index.analyzer ?? "—"}</code></dd>
    ${status.index.rebuildNeeded.length ? html`<dt>rebuild</dt><dd>${status.index.rebuildNeeded.join("; ")}</dd>` : ""}
  </dl></section>
  <section class="card"><h2>Sync</h2><dl>
    <dt>last sync</dt><dd>${last ? html`${last.finishedAt} <span class="muted">(${formatAge(now - (status.lastSyncAgeMs ?? 0), now)})</span>` : "never"}</dd>
    ${last ? html`<dt>last result</dt><dd>${last.added} added, ${last.updated} updated, ${last.removed} removed, ${last.chunks} chunks in ${Math.round(last.durationMs)} ms</dd>` : ""}
    <dt>pending</dt><dd>${status.pending.changed} changed, ${status.pending.removed} removed${status.pending.deferred ? `, ${status.pending.deferred} deferred` : ""}</dd>
    ${status.pending.paths.length ? html`<dt></dt><dd class="muted">${status.pending.paths.slice(0, 10).join(", ")}${status.pending.paths.length > 10 ? " …" : ""}</dd>` : ""}
    <dt>watcher</dt><dd>${watcher.state}${
      watcher.state !== "not running"
        ? html` <span class="muted">(pid ${watcher.heartbeat.pid}, heartbeat ${formatAge(Date.parse(watcher.heartbeat.beatAt), now)}${
            watcher.heartbeat.lastError
              ? `, last error: ${watcher.heartbeat.lastError.message}`
              : ""
          })</span>`
        : ""
    }</dd>
  </dl></section>
  <section class="card"><h2>Embedding</h2><dl>
    <dt>index provider</dt><dd>${status.index.embedding ? `${status.index.embedding.provider}/${status.index.embedding.model} (${status.index.embedding.dims} dims)` : "none (keyword only)"}</dd>
    ${status.providers.map(
      (
        p,
      ) => html`<dt>${p.primary ? "primary" : "fallback"}</dt><dd>${p.identity.provider}/${p.identity.model}
        <span class="circuit circuit-${p.circuit.state}">${p.circuit.state}</span>
        <span class="muted">${p.stats.requests ?? 0} requests${p.circuit.lastError ? `, last error: ${p.circuit.lastError}` : ""}</span></dd>`,
    )}
    ${status.providerNotes.map((n) => html`<dt></dt><dd class="muted">${n}</dd>`)}
    <dt>cache</dt><dd>${
      status.cache
        ? html`${status.cache.entries} / ${status.cache.maxEntries} entries, hit rate ${
            status.cache.hitRate === null ? "—" : `${(status.cache.hitRate * 100).toFixed(1)}%`
          }`
        : "off"
    }</dd>
  </dl></section>
</div>
${bench ? benchSection(bench) : ""}`;
}

function benchSection(bench: BenchSummary): Html {
  return html`<section class="bench"><h2>Benchmarks <small>${bench.dir}</small></h2>
${bench.date ? html`<p class="muted">engram-bench perf, ${bench.date}${bench.machine ? ` · ${bench.machine}` : ""}</p>` : ""}
${bench.bars.length ? latencyChart(bench.bars) : html`<p class="muted">No perf results to chart.</p>`}
<p class="muted">Result files: ${bench.files.join(", ")}</p>
</section>`;
}

/** Search latency p50 per store and size, one bar per mode, on a log scale (an inline SVG). */
export function latencyChart(bars: BenchBar[]): Html {
  const rows = [...new Set(bars.map((b) => `${b.store} ${b.chunks}`))];
  const modes = ["keyword", "vector", "hybrid"] as const;
  const barH = 10;
  const rowH = modes.length * barH + 12;
  const left = 130;
  const width = 560;
  const max = Math.max(...bars.map((b) => b.p50Ms), 1);
  const min = 0.1;
  const x = (ms: number) =>
    ((Math.log10(Math.max(ms, min)) - Math.log10(min)) / (Math.log10(max) - Math.log10(min))) *
    (width - left - 60);
  const height = rows.length * rowH + 30;
  return html`<svg class="chart" viewBox="0 0 ${width} ${height}" role="img" aria-label="search latency p50 per store and size">
${rows.map((row, i) => {
  const y = 10 + i * rowH;
  const [store, chunks] = row.split(" ");
  return html`<text x="${left - 8}" y="${y + rowH / 2}" text-anchor="end" class="label">${store} ${Number(chunks).toLocaleString("en")}</text>
  ${modes.map((mode, j) => {
    const bar = bars.find((b) => `${b.store} ${b.chunks}` === row && b.mode === mode);
    if (!bar) return html``;
    const w = Math.max(1, x(bar.p50Ms));
    return html`<rect x="${left}" y="${y + j * barH}" width="${w.toFixed(1)}" height="${barH - 2}" class="bar bar-${mode}"><title>${mode} p50 ${bar.p50Ms.toFixed(2)} ms</title></rect>
    <text x="${(left + w + 4).toFixed(1)}" y="${y + j * barH + barH - 3}" class="value">${bar.p50Ms < 10 ? bar.p50Ms.toFixed(2) : bar.p50Ms.toFixed(0)} ms</text>`;
  })}`;
})}
<text x="${left}" y="${height - 6}" class="legend"><tspan class="lg-keyword">■ keyword</tspan> <tspan class="lg-vector">■ vector</tspan> <tspan class="lg-hybrid">■ hybrid</tspan> · p50, log scale</text>
</svg>`;
}
