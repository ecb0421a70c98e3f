import type { FirstQuery } from "./first-query.js";
import type { PerfReport, PerfResult } from "./perf.js";
import type { Latency } from "./perf-measure.js";

/** The Markdown page of an `engram-bench perf` report: indexing and search tables, issue targets. */
export function perfMarkdown(report: PerfReport): string {
  const s = report.settings;
  const m = report.machine;
  const lines = [
    `# engram-bench perf — ${report.date.slice(0, 10)}`,
    "",
    `${m.cpuModel}, ${m.cpus} cores, ${Math.round(m.memoryMb / 1024)} GB, Node ${m.node}, ${m.platform}. ` +
      `Medians over ${runsText(report)}; synthetic workspace seed ${s.seed} ` +
      `(~15% Chinese files); ${s.queries.en} English + ${s.queries.zh} Chinese queries; ` +
      `fixed-cost embedder: feature hashing, ${s.dims} dims; query embedding excluded from latency.`,
    "",
    "## Indexing",
    "",
    "| store | chunks | files | cold sync, keyword only | × read+hash floor | cold sync, embedded | same, minus embedder time | re-sync, nothing changed | append to a file + sync it, p50 | `.engram/` keyword / embedded (× raw data) | peak RSS keyword / embedded |",
    "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
  ];
  for (const r of report.results) {
    const k = r.keyword;
    const v = r.vector;
    lines.push(
      row([
        r.store,
        chunksOf(r),
        k ? count(k.files) : "–",
        k ? `${rate(k.coldSync.chunksPerSecond)} chunks/s (${secs(k.coldSync.medianMs)})` : "–",
        k ? `×${(k.coldSync.medianMs / k.readHashFloorMs).toFixed(1)}` : "–",
        v ? `${rate(v.coldSync.chunksPerSecond)} chunks/s (${secs(v.coldSync.medianMs)})` : "–",
        v ? `${rate(v.coldSync.chunksPerSecondExEmbed)} chunks/s` : "–",
        k ? `${rate(k.resync.filesPerSecond)} files/s (${secs(k.resync.medianMs)})` : "–",
        k?.appendSync ? ms(k.appendSync.p50Ms) : "–",
        folderSizes(r, report),
        `${k ? mb(k.peakRssMb) : "–"} / ${v ? mb(v.peakRssMb) : "–"}`,
      ]),
    );
  }
  lines.push(
    "",
    "## Search latency, p50 / p95",
    "",
    "Through `Memory.search` (the path the CLI and agent tools use), default settings (6 results), " +
      "warm: as a long-lived process (`engram watch`, `mcp`, `ui`) searches, with core's in-memory " +
      "index in front of the store (`withMemoryIndex`, loaded before timing). " +
      "The last columns are that primitive query for the same pool (BM25 terms, k-NN " +
      "vector) measured in the same run: the floor engram's search sits on. A one-shot command " +
      "searches the store alone: see the first query in a new process below.",
    "",
    "| store | chunks | keyword | vector | hybrid (weighted) | hybrid (RRF) | store BM25 query | store vector query |",
    "|---|--:|--:|--:|--:|--:|--:|--:|",
  );
  for (const r of report.results) {
    const k = r.keyword?.search;
    const v = r.vector?.search;
    lines.push(
      row([
        r.store,
        chunksOf(r),
        lat(k?.keyword),
        lat(v?.vector),
        lat(v?.hybridWeighted),
        lat(v?.hybridRrf),
        lat(k?.storeText),
        lat(v?.storeVector),
      ]),
    );
  }
  lines.push(
    "",
    "## CPU time",
    "",
    "The same runs counted in CPU time of the measuring process (all its threads) instead of wall " +
      "time: what a machine with a free core would see. On a busy machine wall time is higher; a " +
      "store that works on several threads can use more CPU than wall time.",
    "",
    "| store | chunks | cold sync, keyword only | cold sync, embedded | re-sync, nothing changed | append + sync, p50 | keyword p50 | vector p50 | hybrid (weighted) p50 | hybrid (RRF) p50 |",
    "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
  );
  for (const r of report.results) {
    const k = r.keyword;
    const v = r.vector;
    lines.push(
      row([
        r.store,
        chunksOf(r),
        k ? `${rate(k.coldSync.chunksPerCpuSecond)} chunks/s` : "–",
        v ? `${rate(v.coldSync.chunksPerCpuSecond)} chunks/s` : "–",
        k ? `${rate(k.resync.filesPerCpuSecond)} files/s` : "–",
        k?.appendSync ? ms(k.appendSync.cpuP50Ms) : "–",
        k ? ms(k.search.keyword.cpuP50Ms) : "–",
        v ? ms(v.search.vector.cpuP50Ms) : "–",
        v ? ms(v.search.hybridWeighted.cpuP50Ms) : "–",
        v ? ms(v.search.hybridRrf.cpuP50Ms) : "–",
      ]),
    );
  }
  const first = report.results.filter((r) => r.keyword?.firstQuery || r.vector?.firstQuery);
  if (first.length) {
    lines.push(
      "",
      "## First query in a new process",
      "",
      "A fresh Node process opens the workspace (`createMemory`, as a CLI call does) and times its " +
        "first search, then its `close` (which writes the search's recall-log batch); the median " +
        "over several processes, each asking one query. Nothing of the " +
        "store is warm but the operating system's file cache. A long-lived process (`engram mcp`, " +
        "`ui`) opens with the in-memory index in front of the store and runs core's `warmUp` " +
        "(the index loaded, one keyword search run) before its first client search: " +
        "warm-up time / first search (wall). The last columns are the store's own query for " +
        "the same pool (BM25 terms, k-NN vector) as the first query of a new process, wall / " +
        "CPU: the engine's share of a one-shot search.",
      "",
      "| store | chunks | open / close | first keyword search (wall / CPU) | open / close | first vector search (wall / CPU) | long-lived: warm-up / first keyword | warm-up / first vector | store's first BM25 query | store's first vector query |",
      "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
    );
    const openClose = (q: FirstQuery) =>
      q.closeMs === undefined ? ms(q.openMs) : `${ms(q.openMs)} / ${ms(q.closeMs)}`;
    const warm = (q: FirstQuery | undefined) =>
      q?.warmUpMs === undefined ? "–" : `${ms(q.warmUpMs)} / ${ms(q.searchMs)}`;
    const search = (q: FirstQuery | undefined) =>
      q ? `${ms(q.searchMs)} / ${ms(q.searchCpuMs)}` : "–";
    for (const r of first) {
      const k = r.keyword?.firstQuery;
      const v = r.vector?.firstQuery;
      lines.push(
        row([
          r.store,
          chunksOf(r),
          k ? openClose(k) : "–",
          search(k),
          v ? openClose(v) : "–",
          search(v),
          warm(r.keyword?.firstQueryWarm),
          warm(r.vector?.firstQueryWarm),
          search(r.keyword?.firstStoreQuery),
          search(r.vector?.firstStoreQuery),
        ]),
      );
    }
  }
  const targets = sqliteTargets(report);
  if (targets.length) {
    lines.push(
      "",
      "## Targets (issue 7, SQLite)",
      "",
      "| target | measured (wall) | met | CPU time | met on CPU time |",
      "|---|--:|:-:|--:|:-:|",
    );
    const yes = (met: boolean) => (met ? "yes" : "**no**");
    for (const t of targets) {
      lines.push(row([t.label, t.measured, yes(t.met), t.cpuMeasured, yes(t.cpuMet)]));
    }
  }
  const problems = report.results.flatMap((r) =>
    r.errors.map(
      (e) =>
        `- ${r.store} @ ${count(r.targetChunks)} chunks, ${e.phase} phase: ${e.message.split("\n")[0]}`,
    ),
  );
  const skipped = report.skipped.map((s) => `- ${s.store}: skipped, ${s.reason}`);
  if (problems.length || skipped.length)
    lines.push("", "## Not measured", "", ...problems, ...skipped);
  lines.push(
    "",
    "Folder sizes are in MB of 10⁶ bytes, as is the raw data they are compared with: the " +
      "workspace's Markdown, plus 4 bytes per dimension of each chunk's vector when embedded. " +
      "Peak RSS is in MiB (2²⁰ bytes), as the operating system reports it.",
  );
  lines.push("", "![search latency against corpus size](perf-latency.svg)", "");
  return lines.join("\n");
}

/** One issue-7 speed target, checked against a report. */
export interface TargetCheck {
  label: string;
  /** The wall-time figure the target is judged on. */
  measured: string;
  met: boolean;
  /** The same figure in CPU time (peak RSS: the same number). */
  cpuMeasured: string;
  cpuMet: boolean;
}

/** The issue-7 speed targets that `report` has SQLite figures for. */
export function sqliteTargets(report: PerfReport): TargetCheck[] {
  const sqlite = report.results.filter((r) => r.store === "sqlite");
  const at = (size: number) => sqlite.find((r) => r.targetChunks === size);
  const checks: TargetCheck[] = [];
  for (const [size, limit] of [
    [10_000, 5],
    [100_000, 30],
  ] as const) {
    const hybrid = at(size)?.vector?.search.hybridWeighted;
    if (hybrid !== undefined) {
      checks.push({
        label: `hybrid search p50 ≤ ${limit} ms at ${count(size)} chunks`,
        measured: `${hybrid.p50Ms.toFixed(2)} ms`,
        met: hybrid.p50Ms <= limit,
        cpuMeasured: `${hybrid.cpuP50Ms.toFixed(2)} ms`,
        cpuMet: hybrid.cpuP50Ms <= limit,
      });
    }
  }
  for (const r of sqlite) {
    const k = r.keyword;
    if (!k) continue;
    checks.push({
      label: `re-sync of unchanged files ≥ 10,000 files/s (${count(k.files)} files)`,
      measured: `${rate(k.resync.filesPerSecond)} files/s`,
      met: k.resync.filesPerSecond >= 10_000,
      cpuMeasured: `${rate(k.resync.filesPerCpuSecond)} files/s`,
      cpuMet: k.resync.filesPerCpuSecond >= 10_000,
    });
    checks.push({
      label: `cold keyword-only sync ≥ 2,000 chunks/s (${count(k.chunks)} chunks)`,
      measured: `${rate(k.coldSync.chunksPerSecond)} chunks/s`,
      met: k.coldSync.chunksPerSecond >= 2_000,
      cpuMeasured: `${rate(k.coldSync.chunksPerCpuSecond)} chunks/s`,
      cpuMet: k.coldSync.chunksPerCpuSecond >= 2_000,
    });
  }
  const firstChecks = [
    ["keyword", 10_000, 5, "one-shot", at(10_000)?.keyword?.firstQuery],
    ["keyword", 10_000, 5, "long-lived, after warm-up", at(10_000)?.keyword?.firstQueryWarm],
    ["vector", 100_000, 100, "one-shot", at(100_000)?.vector?.firstQuery],
    ["vector", 100_000, 100, "long-lived, after warm-up", at(100_000)?.vector?.firstQueryWarm],
  ] as const;
  for (const [mode, chunks, limit, kind, first] of firstChecks) {
    if (!first) continue;
    checks.push({
      label: `first ${mode} search of a new process (${kind}) ≤ ${limit} ms at ${count(chunks)} chunks`,
      measured: ms(first.searchMs),
      met: first.searchMs <= limit,
      cpuMeasured: ms(first.searchCpuMs),
      cpuMet: first.searchCpuMs <= limit,
    });
  }
  const big = at(100_000);
  if (big?.keyword || big?.vector) {
    const peak = Math.max(big.keyword?.peakRssMb ?? 0, big.vector?.peakRssMb ?? 0);
    checks.push({
      label: "peak RSS ≤ 300 MB at 100,000 chunks",
      measured: mb(peak),
      met: peak <= 300,
      cpuMeasured: mb(peak),
      cpuMet: peak <= 300,
    });
  }
  return checks;
}

/**
 * The index folder's size after the keyword and the embedded phase, in MB (10⁶ bytes), each with
 * its ratio to the raw data: the corpus's Markdown bytes, plus `chunks × dims × 4` bytes of
 * float32 vectors for the embedded phase. (Until this was written the folder was printed in MiB
 * next to raw figures quoted in 10⁶ bytes, which read 4.9 % low.)
 */
export function folderSizes(r: PerfResult, report: PerfReport): string {
  const markdown = report.corpora.find((c) => c.targetChunks === r.targetChunks)?.bytes;
  const size = (bytes: number, raw: number) =>
    `${mb(bytes / 1e6)}${markdown ? ` (×${(bytes / raw).toFixed(2)})` : ""}`;
  const k = r.keyword;
  const v = r.vector;
  const markdownBytes = markdown ?? 0;
  return [
    k ? size(k.diskBytes, markdownBytes) : "–",
    v ? size(v.diskBytes, markdownBytes + v.chunks * v.dims * 4) : "–",
  ].join(" / ");
}

/** "3 runs", or per size when rows differ ("3 runs at 10,000 chunks, 1 run at 100,000"). */
function runsText(report: PerfReport): string {
  const bySize = new Map(report.results.map((r) => [r.targetChunks, r.runs]));
  const runs = (n: number) => `${n} run${n === 1 ? "" : "s"}`;
  const distinct = new Set(bySize.values());
  const setting = report.settings.runs;
  const fallback = typeof setting === "number" ? setting : (setting[0] ?? 3);
  if (distinct.size <= 1) return runs([...distinct][0] ?? fallback);
  return [...bySize].map(([size, n]) => `${runs(n)} at ${count(size)} chunks`).join(", ");
}

/** The chunk count a result measured (the target when neither phase ran), formatted. */
function chunksOf(r: PerfResult): string {
  return count(r.keyword?.chunks ?? r.vector?.chunks ?? r.targetChunks);
}

function row(cells: string[]): string {
  return `| ${cells.join(" | ")} |`;
}

function lat(l: Latency | undefined): string {
  return l ? `${ms(l.p50Ms)} / ${ms(l.p95Ms)}` : "–";
}

function ms(n: number): string {
  return n >= 100 ? `${Math.round(n)} ms` : n >= 10 ? `${n.toFixed(1)} ms` : `${n.toFixed(2)} ms`;
}

function secs(n: number): string {
  return n >= 1000 ? `${(n / 1000).toFixed(1)} s` : `${Math.round(n)} ms`;
}

function rate(n: number): string {
  return count(Math.round(n));
}

function count(n: number): string {
  return n.toLocaleString("en-US");
}

function mb(n: number): string {
  return `${n >= 10 ? Math.round(n) : n.toFixed(1)} MB`;
}
