import { fork } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { cpus, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { STORE_DRIVERS } from "@engram/cli";
import { EngramError } from "@engram/core";
import {
  type KeywordMeasures,
  type KeywordPhase,
  type PerfJob,
  readHashFloor,
  type VectorPhase,
} from "./perf-measure.js";
import { perfMarkdown } from "./report-perf.js";
import { perfLatencySvg } from "./svg-latency.js";
import {
  DEFAULT_SYNTH_SEED,
  type SynthSummary,
  synthQueries,
  writeSynthWorkspace,
} from "./synth.js";

/** Options of {@link benchPerf}. */
export interface PerfBenchOptions {
  /** Corpus sizes in chunks (default 10,000 and 100,000). */
  sizes?: readonly number[];
  /** Store drivers to measure (default sqlite, memory, lancedb; qdrant too when `QDRANT_URL` is set). */
  stores?: readonly string[];
  /**
   * Repetitions of each timed phase; medians are reported (default 3). A list gives one count per
   * entry of `sizes`, in the same order (e.g. `[3, 1]`: a 100k corpus takes minutes a run).
   */
  runs?: number | readonly number[];
  /** Folder for the JSON, Markdown and SVG results; nothing is written when absent. */
  out?: string;
  /** Dimensions of the fixed-cost embedder (default 384). */
  dims?: number;
  /** Seed of the synthetic workspace and query set. */
  seed?: number;
  env?: Readonly<Record<string, string | undefined>>;
  log?: (line: string) => void;
}

/** One store at one corpus size: both phases, or why it could not be measured. */
export interface PerfResult {
  store: string;
  targetChunks: number;
  /** Repetitions behind the medians of this row. */
  runs: number;
  keyword?: KeywordPhase;
  vector?: VectorPhase;
  /** Phases that failed, with the reason (e.g. out of memory, driver not installed). */
  errors: { phase: PerfJob["phase"]; message: string }[];
}

/** Everything `engram-bench perf` measured, as written to `perf-<date>.json`. */
export interface PerfReport {
  schema: 1;
  date: string;
  machine: { cpus: number; cpuModel: string; memoryMb: number; node: string; platform: string };
  settings: {
    sizes: number[];
    stores: string[];
    /** Repetitions per size, in `sizes` order (one number: the same for every size). */
    runs: number | number[];
    dims: number;
    seed: number;
    queries: { en: number; zh: number };
  };
  /** Stores asked for but not measured, with the reason. */
  skipped: { store: string; reason: string }[];
  corpora: (SynthSummary & { generateMs: number })[];
  results: PerfResult[];
}

/** Files {@link benchPerf} wrote. */
export interface PerfFiles {
  json: string;
  latest: string;
  markdown: string;
  svg: string;
}

const QUERY_COUNTS = { en: 40, zh: 10 };

/**
 * Measure indexing and search speed per store on deterministic synthetic workspaces: cold sync
 * without and with a fixed-cost embedder, unchanged re-sync, search p50/p95 per mode, on-disk
 * size and peak RSS. Each (store, size, phase) runs in a child process of its own, so peak RSS is
 * that store's alone (the reference time to read and hash the files is measured here, once per
 * size). Writes `perf-<date>.json`, `perf-latest.json`, `perf.md` and
 * `perf-latency.svg` to `out` when given.
 *
 * @throws EngramError `INVALID_ARGUMENT` for an unknown store or a bad size.
 */
export async function benchPerf(
  options: PerfBenchOptions = {},
): Promise<{ report: PerfReport; files?: PerfFiles }> {
  const log = options.log ?? (() => {});
  const env = options.env ?? process.env;
  const { sizes, runsOf } = sizesWithRuns(options.sizes ?? [10_000, 100_000], options.runs ?? 3);
  const runCounts = sizes.map(runsOf);
  const dims = options.dims ?? 384;
  const seed = options.seed ?? DEFAULT_SYNTH_SEED;
  const { stores, skipped } = chooseStores(options.stores, env);
  for (const size of sizes) {
    if (!Number.isInteger(size) || size < 1) {
      throw new EngramError(
        "INVALID_ARGUMENT",
        `corpus size must be a positive whole number of chunks, got ${size}`,
        {
          hint: "for example --sizes 10000,100000",
        },
      );
    }
  }
  const queries = synthQueries(QUERY_COUNTS, seed).map((q) => q.text);
  const report: PerfReport = {
    schema: 1,
    date: new Date().toISOString(),
    machine: {
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model ?? "unknown",
      memoryMb: Math.round(totalmem() / 2 ** 20),
      node: process.version,
      platform: `${process.platform}-${process.arch}`,
    },
    settings: {
      sizes,
      stores,
      runs: new Set(runCounts).size === 1 ? (runCounts[0] as number) : runCounts,
      dims,
      seed,
      queries: QUERY_COUNTS,
    },
    skipped,
    corpora: [],
    results: [],
  };
  for (const s of skipped) log(`skipping ${s.store}: ${s.reason}`);
  for (const size of sizes) {
    const runs = runsOf(size);
    const workspace = await mkdtemp(join(tmpdir(), `engram-perf-${size}-`));
    try {
      const start = performance.now();
      const corpus = writeSynthWorkspace(workspace, { chunks: size, seed });
      const generateMs = performance.now() - start;
      report.corpora.push({ ...corpus, generateMs });
      log(
        `${size} chunks: wrote ${corpus.files} files (${corpus.chunks} chunks) in ${Math.round(generateMs)} ms`,
      );
      const readHashFloorMs = await readHashFloor(workspace, runs);
      for (const store of stores) {
        const result: PerfResult = { store, targetChunks: size, runs, errors: [] };
        for (const phase of ["keyword", "vector"] as const) {
          log(`${store} @ ${size}: ${phase} phase…`);
          const answer = await runChild({ workspace, store, phase, runs, dims, queries });
          if ("error" in answer) {
            result.errors.push({ phase, message: answer.error });
            log(`${store} @ ${size}: ${phase} phase failed: ${answer.error.split("\n")[0]}`);
          } else if (phase === "keyword") {
            result.keyword = { ...(answer.result as KeywordMeasures), readHashFloorMs };
          } else {
            result.vector = answer.result as VectorPhase;
          }
        }
        report.results.push(result);
        // Long runs keep what they have measured so far.
        if (options.out) await writePerfResults(options.out, report);
      }
    } finally {
      await rm(workspace, { recursive: true, force: true });
    }
  }
  if (!options.out) return { report };
  return { report, files: await writePerfResults(options.out, report) };
}

/**
 * The sizes in ascending order, each with its repetitions: one count for all, or one per size in
 * the order given.
 * @throws EngramError `INVALID_ARGUMENT` when a list of counts does not match the sizes.
 */
export function sizesWithRuns(
  given: readonly number[],
  runs: number | readonly number[],
): { sizes: number[]; runsOf: (size: number) => number } {
  if (typeof runs !== "number" && runs.length !== given.length) {
    throw new EngramError(
      "INVALID_ARGUMENT",
      `${runs.length} run counts for ${given.length} corpus sizes`,
      { hint: "give one count for every size (--sizes 10000,100000 --runs 3,1), or one for all" },
    );
  }
  const bySize = new Map(
    given.map((size, i) => [
      size,
      Math.max(1, typeof runs === "number" ? runs : (runs[i] as number)),
    ]),
  );
  return {
    sizes: [...bySize.keys()].sort((a, b) => a - b),
    runsOf: (size) => bySize.get(size) ?? 1,
  };
}

/** Write the JSON (dated and latest), Markdown table and SVG chart of `report` into `out`. */
export async function writePerfResults(out: string, report: PerfReport): Promise<PerfFiles> {
  await mkdir(out, { recursive: true });
  const files: PerfFiles = {
    json: join(out, `perf-${report.date.slice(0, 10)}.json`),
    latest: join(out, "perf-latest.json"),
    markdown: join(out, "perf.md"),
    svg: join(out, "perf-latency.svg"),
  };
  const json = `${JSON.stringify(report, null, 2)}\n`;
  await writeFile(files.json, json);
  await writeFile(files.latest, json);
  await writeFile(files.markdown, perfMarkdown(report));
  await writeFile(files.svg, perfLatencySvg(report));
  return files;
}

function chooseStores(
  asked: readonly string[] | undefined,
  env: Readonly<Record<string, string | undefined>>,
): { stores: string[]; skipped: PerfReport["skipped"] } {
  const qdrant = STORE_DRIVERS.includes("qdrant");
  const wanted = asked ?? [
    "sqlite",
    "memory",
    "lancedb",
    ...(qdrant && env.QDRANT_URL ? ["qdrant"] : []),
  ];
  const stores: string[] = [];
  const skipped: PerfReport["skipped"] = [];
  for (const store of new Set(wanted)) {
    if (!STORE_DRIVERS.includes(store)) {
      throw new EngramError("INVALID_ARGUMENT", `unknown store "${store}"`, {
        hint: `use some of: ${STORE_DRIVERS.join(", ")} (e.g. --stores sqlite,memory)`,
      });
    }
    if (store === "qdrant" && !env.QDRANT_URL) {
      skipped.push({ store, reason: "QDRANT_URL is not set (Qdrant needs a running server)" });
    } else {
      stores.push(store);
    }
  }
  return { stores, skipped };
}

type ChildAnswer = { result: KeywordMeasures | VectorPhase } | { error: string };

/** Run one job in a fresh Node process (same flags as this one) and wait for its answer. */
function runChild(job: PerfJob): Promise<ChildAnswer> {
  return new Promise((resolve) => {
    const child = fork(new URL("./perf-worker.js", import.meta.url), [JSON.stringify(job)], {
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    let answer: ChildAnswer | undefined;
    child.on("message", (message) => {
      answer = message as ChildAnswer;
    });
    child.on("error", (error) => {
      answer ??= { error: error.message };
    });
    child.on("exit", (code, signal) => {
      resolve(
        answer ?? {
          error: `the measuring process exited with ${signal ?? `code ${code}`} before answering (out of memory?)`,
        },
      );
    });
  });
}
