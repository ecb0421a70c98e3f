import { createHash } from "node:crypto";
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { storeFromConfig } from "@engram/cli";
import {
  createMemory,
  type Embedder,
  type FusionMethod,
  INDEX_DIR,
  loadConfig,
  type Memory,
  type MemoryStore,
  type SearchMode,
} from "@engram/core";
import { folderBytes, type MemoryIndexedStore, withMemoryIndexFactory } from "@engram/core/driver";
import { scanWorkspace } from "@engram/core/internal";
import { createHashingEmbedder } from "@engram/core/testing";
import { type FirstQuery, firstQueries } from "./first-query.js";
import { type MeteredEmbedder, meteredEmbedder } from "./perf-embedder.js";
import { median, percentile, timed } from "./stats.js";

/** One measurement job, run in a child process of its own (see `perf-worker.ts`). */
export interface PerfJob {
  workspace: string;
  store: string;
  /** `keyword`: no embedder; `vector`: the fixed-cost embedder, vector and hybrid search. */
  phase: "keyword" | "vector";
  runs: number;
  /** Dimensions of the fixed-cost (hashing) embedder. */
  dims: number;
  queries: readonly string[];
}

/**
 * p50 and p95 of one kind of query, in ms (each the median over runs): wall-clock time, and the
 * CPU time this process used (all its threads), which other load on the machine does not inflate.
 */
export interface Latency {
  p50Ms: number;
  p95Ms: number;
  cpuP50Ms: number;
  cpuP95Ms: number;
}

/** A cold sync, timed to the point its data is on disk (`sync` then `close`). */
export interface ColdSync {
  /** Median of `sync + close` over runs. */
  medianMs: number;
  runsMs: number[];
  /** Median time of `close` alone (stores that persist on close pay here). */
  closeMs: number;
  /** Median CPU time of `sync + close` (all threads of the process). */
  cpuMs: number;
  chunksPerSecond: number;
  /** Chunks per second of CPU time: throughput on an otherwise idle core. */
  chunksPerCpuSecond: number;
}

/** What the keyword phase measured: no embedding provider, BM25 only. */
export interface KeywordPhase {
  files: number;
  chunks: number;
  /** Reading and hashing every file once: the floor any sync pays. */
  readHashFloorMs: number;
  coldSync: ColdSync;
  resync: {
    medianMs: number;
    runsMs: number[];
    cpuMs: number;
    filesPerSecond: number;
    filesPerCpuSecond: number;
  };
  /**
   * A line appended to one file, then `sync({ paths: [file] })`, as after an agent's memory write
   * (optional: results written before it was measured lack it).
   */
  appendSync?: Latency;
  search: { keyword: Latency; storeText: Latency };
  /** A keyword query as the first search of a new process (optional: older results lack it). */
  firstQuery?: FirstQuery;
  /** The same in a long-lived process, after core's `warmUp` (optional: older results lack it). */
  firstQueryWarm?: FirstQuery;
  /**
   * The store's own query for the same pool as the first query of a new process: the engine's
   * share of it (optional: older results lack it).
   */
  firstStoreQuery?: FirstQuery;
  diskBytes: number;
  peakRssMb: number;
}

/** What the vector phase measured: the fixed-cost embedder, vector and hybrid search. */
export interface VectorPhase {
  chunks: number;
  dims: number;
  coldSync: ColdSync & {
    /** Median time spent inside the embedder during a cold sync. */
    embedMs: number;
    /** Chunks per second of the sync time not spent embedding: engram's and the store's share. */
    chunksPerSecondExEmbed: number;
  };
  search: {
    vector: Latency;
    hybridWeighted: Latency;
    hybridRrf: Latency;
    storeVector: Latency;
  };
  /** A vector query as the first search of a new process (optional: older results lack it). */
  firstQuery?: FirstQuery;
  /** The same in a long-lived process, after core's `warmUp` (optional: older results lack it). */
  firstQueryWarm?: FirstQuery;
  /**
   * The store's own query for the same pool as the first query of a new process: the engine's
   * share of it (optional: older results lack it).
   */
  firstStoreQuery?: FirstQuery;
  diskBytes: number;
  peakRssMb: number;
}

/** What a keyword phase's child process measures: all of {@link KeywordPhase} but the floor. */
export type KeywordMeasures = Omit<KeywordPhase, "readHashFloorMs">;

/** Run `job` in this process and return what it measured. */
export async function runPerfJob(job: PerfJob): Promise<KeywordMeasures | VectorPhase> {
  return job.phase === "keyword" ? measureKeyword(job) : measureVector(job);
}

/**
 * Reading and hashing every file of `workspace` once, in ms (median of `runs` passes): the floor
 * any sync pays. Measured once per workspace in the parent process, so that the files' buffers
 * are not counted in a store's peak RSS (at 100k chunks they made it ~40 MB higher).
 */
export async function readHashFloor(workspace: string, runs: number): Promise<number> {
  const scanned = await scanWorkspace({ workspace });
  const floorRuns: number[] = [];
  for (let r = 0; r < Math.max(1, runs); r++) {
    floorRuns.push(
      await timed(async () => {
        for (const file of scanned.files) {
          createHash("sha256").update(readFileSync(file.absPath)).digest("hex");
        }
      }),
    );
  }
  return median(floorRuns);
}

async function measureKeyword(job: PerfJob): Promise<KeywordMeasures> {
  const runs = Math.max(1, job.runs);
  const { cold, chunks } = await coldSyncs(job, runs, () => null);
  // Scanned after the cold syncs, and only the count and the files appended to kept: a list of
  // every file (6.4 MB at 100k chunks) held through the syncs raised V8's heap limit, and so the
  // peak RSS counted as the store's, by ~40 MB.
  const { files, appendTo } = await appendTargets(job.workspace);
  const resyncRuns: number[] = [];
  const resyncCpu: number[] = [];
  for (let r = 0; r < runs; r++) {
    const memory = await open(job, null);
    try {
      const t = await measured(() => memory.sync());
      resyncRuns.push(t.wallMs);
      resyncCpu.push(t.cpuMs);
    } finally {
      await memory.close();
    }
  }
  const memory = await open(job, null);
  let search: KeywordPhase["search"];
  let appendSync: Latency;
  try {
    appendSync = await appendSyncs(memory, appendTo, runs);
    const pool = memory.config.search.maxResults * memory.config.search.candidateMultiplier;
    const terms = job.queries.map((q) => [...new Set(memory.analyzer.terms(q))]);
    search = {
      keyword: await latency(runs, job.queries, (q) => memory.search(q, { mode: "keyword" }), {
        store: memory.store,
      }),
      storeText: await latency(runs, terms, (t) => memory.store.searchText(t, pool), {
        store: memory.store,
      }),
    };
  } finally {
    await memory.close();
  }
  const { firstQuery, firstQueryWarm, firstStoreQuery } = await firstQueriesOf(job, "keyword");
  const resync = median(resyncRuns);
  const resyncCpuMs = median(resyncCpu);
  return {
    files,
    chunks,
    coldSync: cold,
    resync: {
      medianMs: resync,
      runsMs: resyncRuns,
      cpuMs: resyncCpuMs,
      filesPerSecond: files / (resync / 1000),
      filesPerCpuSecond: files / (resyncCpuMs / 1000),
    },
    appendSync,
    search,
    firstQuery,
    firstQueryWarm,
    firstStoreQuery,
    diskBytes: await folderBytes(join(job.workspace, INDEX_DIR)),
    peakRssMb: peakRssMb(),
  };
}

/** Files {@link appendSyncs} appends to (spread over the workspace). */
const APPEND_FILES = 20;

type AppendTarget = { path: string; absPath: string };

/** The number of files in `workspace`, and the {@link APPEND_FILES} files spread over it. */
async function appendTargets(
  workspace: string,
): Promise<{ files: number; appendTo: AppendTarget[] }> {
  const { files } = await scanWorkspace({ workspace });
  const step = Math.max(1, Math.floor(files.length / APPEND_FILES));
  const appendTo = files
    .filter((_, i) => i % step === 0)
    .slice(0, APPEND_FILES)
    .map(({ path, absPath }) => ({ path, absPath }));
  return { files: files.length, appendTo };
}

/**
 * Latency of the agent's write path: append a line to one file, then sync that path. Each of
 * `runs` passes appends to each of `picked`; the files are restored afterwards (and synced), so
 * later phases see the workspace as generated.
 */
async function appendSyncs(
  memory: Memory,
  picked: readonly AppendTarget[],
  runs: number,
): Promise<Latency> {
  const originals = picked.map((file) => readFileSync(file.absPath));
  try {
    return await latency(runs, picked, (file) => memory.sync({ paths: [file.path] }), {
      warm: false,
      before: (file, run) =>
        appendFileSync(
          file.absPath,
          `\n- appended note ${run}: reviewed the deployment 检查部署\n`,
        ),
    });
  } finally {
    for (const [i, file] of picked.entries()) writeFileSync(file.absPath, originals[i] as Buffer);
    await memory.sync({ paths: picked.map((file) => file.path) });
  }
}

async function measureVector(job: PerfJob): Promise<VectorPhase> {
  const runs = Math.max(1, job.runs);
  const hashing = createHashingEmbedder({ dims: job.dims });
  const embedRuns: number[] = [];
  let current: MeteredEmbedder | undefined;
  const { cold, chunks } = await coldSyncs(
    job,
    runs,
    () => {
      current = meteredEmbedder(hashing);
      return current;
    },
    () => embedRuns.push(current?.embedMs ?? 0),
  );
  const embedder = meteredEmbedder(hashing);
  await embedder.preEmbed(job.queries);
  const vectors = await Promise.all(job.queries.map((q) => hashing.embedQuery(q)));
  const memory = await open(job, embedder);
  let search: VectorPhase["search"];
  try {
    const pool = memory.config.search.maxResults * memory.config.search.candidateMultiplier;
    const run = (mode: SearchMode, fusion?: FusionMethod) => (q: string) =>
      memory.search(q, { mode, ...(fusion ? { fusion } : {}) });
    search = {
      vector: await latency(runs, job.queries, run("vector"), { store: memory.store }),
      hybridWeighted: await latency(runs, job.queries, run("hybrid", "weighted"), {
        store: memory.store,
      }),
      hybridRrf: await latency(runs, job.queries, run("hybrid", "rrf"), { store: memory.store }),
      storeVector: await latency(runs, vectors, (v) => memory.store.searchVector(v, pool), {
        store: memory.store,
      }),
    };
  } finally {
    await memory.close();
  }
  const { firstQuery, firstQueryWarm, firstStoreQuery } = await firstQueriesOf(job, "vector");
  const embedMs = median(embedRuns);
  return {
    chunks,
    dims: job.dims,
    coldSync: {
      ...cold,
      embedMs,
      chunksPerSecondExEmbed: chunks / (Math.max(1, cold.medianMs - embedMs) / 1000),
    },
    search,
    firstQuery,
    firstQueryWarm,
    firstStoreQuery,
    diskBytes: await folderBytes(join(job.workspace, INDEX_DIR)),
    peakRssMb: peakRssMb(),
  };
}

/**
 * `mode`'s first query in new processes: one-shot, long-lived after core's `warmUp`, and the
 * store's own query alone.
 */
async function firstQueriesOf(
  job: PerfJob,
  mode: SearchMode,
): Promise<{ firstQuery: FirstQuery; firstQueryWarm: FirstQuery; firstStoreQuery: FirstQuery }> {
  const base = { workspace: job.workspace, store: job.store, mode, dims: job.dims };
  const ask = (extra: { warm?: boolean; storeOnly?: boolean }) =>
    firstQueries({ ...base, ...extra }, job.queries, FIRST_QUERY_PROCESSES);
  return {
    firstQuery: await ask({}),
    firstQueryWarm: await ask({ warm: true }),
    firstStoreQuery: await ask({ storeOnly: true }),
  };
}

/** New processes whose first query is timed, per phase (medians are reported). */
const FIRST_QUERY_PROCESSES = 5;

/** `runs` cold syncs from an empty index, each timed through `close`. */
async function coldSyncs(
  job: PerfJob,
  runs: number,
  embedder: () => Embedder | null,
  afterRun: () => void = () => {},
): Promise<{ cold: ColdSync; chunks: number }> {
  const totals: number[] = [];
  const cpu: number[] = [];
  const closes: number[] = [];
  let chunks = 0;
  for (let r = 0; r < runs; r++) {
    await rm(join(job.workspace, INDEX_DIR), { recursive: true, force: true });
    const memory = await open(job, embedder());
    let sync = { wallMs: 0, cpuMs: 0 };
    let close = { wallMs: 0, cpuMs: 0 };
    try {
      sync = await measured(async () => {
        chunks = (await memory.sync())?.chunks ?? 0;
      });
    } finally {
      close = await measured(() => memory.close());
    }
    closes.push(close.wallMs);
    totals.push(sync.wallMs + close.wallMs);
    cpu.push(sync.cpuMs + close.cpuMs);
    afterRun();
  }
  const medianMs = median(totals);
  const cpuMs = median(cpu);
  return {
    cold: {
      medianMs,
      runsMs: totals,
      closeMs: median(closes),
      cpuMs,
      chunksPerSecond: chunks / (medianMs / 1000),
      chunksPerCpuSecond: chunks / (cpuMs / 1000),
    },
    chunks,
  };
}

/**
 * Open the workspace with `job.store` and `embedder` (null: keyword only), as a long-lived CLI
 * process (`engram watch`, `mcp`, `ui`) would: with core's in-memory index in front of the store
 * (`withMemoryIndex`). The warm search figures measure that; the first query of a new process
 * (`first-query.ts`) measures the store alone, as a one-shot command runs it.
 */
async function open(job: PerfJob, embedder: Embedder | null): Promise<Memory> {
  const config = await loadConfig(job.workspace);
  return createMemory({
    workspace: job.workspace,
    config,
    readConfigFile: false,
    store: withMemoryIndexFactory(await storeFromConfig(config, job.store)),
    embedder,
  });
}

/**
 * One untimed pass to warm caches (unless `warm` is false) and, with `store`, the wait for what it
 * loads in the background; then `runs` timed passes; p50/p95 are medians over runs. `before` runs,
 * untimed, before each timed call.
 */
async function latency<T>(
  runs: number,
  inputs: readonly T[],
  fn: (input: T) => Promise<unknown>,
  options: { warm?: boolean; store?: MemoryStore; before?: (input: T, run: number) => void } = {},
): Promise<Latency> {
  if (options.warm !== false) for (const input of inputs) await fn(input);
  await (options.store as Partial<MemoryIndexedStore> | undefined)?.indexReady?.();
  const stats = {
    p50: [] as number[],
    p95: [] as number[],
    cpu50: [] as number[],
    cpu95: [] as number[],
  };
  for (let r = 0; r < runs; r++) {
    const wall: number[] = [];
    const cpu: number[] = [];
    for (const input of inputs) {
      options.before?.(input, r);
      const t = await measured(() => fn(input));
      wall.push(t.wallMs);
      cpu.push(t.cpuMs);
    }
    stats.p50.push(median(wall));
    stats.p95.push(percentile(wall, 95));
    stats.cpu50.push(median(cpu));
    stats.cpu95.push(percentile(cpu, 95));
  }
  return {
    p50Ms: median(stats.p50),
    p95Ms: median(stats.p95),
    cpuP50Ms: median(stats.cpu50),
    cpuP95Ms: median(stats.cpu95),
  };
}

/** Wall-clock and CPU time (user + system, all threads of this process) taken by `fn`, in ms. */
async function measured(fn: () => Promise<unknown>): Promise<{ wallMs: number; cpuMs: number }> {
  const cpu = process.cpuUsage();
  const start = performance.now();
  await fn();
  const wallMs = performance.now() - start;
  const used = process.cpuUsage(cpu);
  return { wallMs, cpuMs: (used.user + used.system) / 1000 };
}

/** This process's peak resident set size so far, in MB. */
function peakRssMb(): number {
  return process.resourceUsage().maxRSS / 1024;
}
