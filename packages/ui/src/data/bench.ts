import { readdir, readFile, stat } from "node:fs/promises";
import path from "node:path";

/** One bar of the benchmark chart: a store at a size, one search mode's median latency. */
export interface BenchBar {
  store: string;
  chunks: number;
  mode: "keyword" | "vector" | "hybrid";
  p50Ms: number;
}

/** What the health page shows of `bench/results`: the latest perf run's search latencies. */
export interface BenchSummary {
  dir: string;
  date: string | null;
  machine: string | null;
  bars: BenchBar[];
  /** Other result files found (shown as names). */
  files: string[];
}

/** Largest results file read (the perf JSON is ~50 KB). */
const MAX_BYTES = 5 * 1024 * 1024;

/**
 * The benchmark results in `dir` (`bench/results` of an engram checkout), or null when there are
 * none. Reads `perf-latest.json` as `engram-bench perf` writes it; anything it does not
 * recognise is left out rather than guessed.
 */
export async function readBench(dir: string | undefined): Promise<BenchSummary | null> {
  if (!dir) return null;
  const names = await readdir(dir).catch(() => null);
  if (!names) return null;
  const files = names.filter((n) => /\.(json|md|svg)$/.test(n)).sort();
  let perf: unknown = null;
  const latest = path.join(dir, "perf-latest.json");
  const info = await stat(latest).catch(() => null);
  if (info && info.size <= MAX_BYTES) {
    try {
      perf = JSON.parse(await readFile(latest, "utf8"));
    } catch {
      perf = null;
    }
  }
  const record = (v: unknown): Record<string, unknown> | null =>
    v !== null && typeof v === "object" ? (v as Record<string, unknown>) : null;
  const p = record(perf);
  const bars: BenchBar[] = [];
  for (const r of Array.isArray(p?.results) ? p.results : []) {
    const row = record(r);
    const store = row?.store;
    const chunks = row?.targetChunks;
    if (typeof store !== "string" || typeof chunks !== "number") continue;
    const p50 = (side: string, key: string) => {
      const v = record(record(record(row?.[side])?.search)?.[key])?.p50Ms;
      return typeof v === "number" ? v : null;
    };
    for (const [mode, side, key] of [
      ["keyword", "keyword", "keyword"],
      ["vector", "vector", "vector"],
      ["hybrid", "vector", "hybridWeighted"],
    ] as const) {
      const v = p50(side, key);
      if (v !== null) bars.push({ store, chunks, mode, p50Ms: v });
    }
  }
  const machine = record(p?.machine);
  return {
    dir,
    date: typeof p?.date === "string" ? p.date : null,
    machine:
      machine && typeof machine.cpuModel === "string"
        ? `${machine.cpuModel}, ${String(machine.cpus)} cores, Node ${String(machine.node)}`
        : null,
    bars,
    files,
  };
}
