import { fork } from "node:child_process";
import { storeFromConfig } from "@engram/cli";
import {
  createMemory,
  isEngramError,
  loadConfig,
  type MemoryStore,
  type SearchMode,
  warmUp,
} from "@engram/core";
import { withMemoryIndexFactory } from "@engram/core/driver";
import { createHashingEmbedder } from "@engram/core/testing";
import { meteredEmbedder } from "./perf-embedder.js";
import { median } from "./stats.js";

/** One first query, asked by a process that has just opened the workspace (as a CLI call does). */
export interface FirstQueryJob {
  workspace: string;
  store: string;
  mode: SearchMode;
  /** Dimensions of the fixed-cost embedder (vector mode). */
  dims: number;
  query: string;
  /**
   * Open as a long-lived process does (`engram mcp`, `ui`): the in-memory index in front of the
   * store, and core's `warmUp` run before the first search.
   */
  warm?: boolean;
  /**
   * Time the store's own query instead of `Memory.search`: the `searchText` or `searchVector` call
   * the search makes (terms, pool and filter as it asks them), recorded by letting the search run
   * against a store that answers nothing, then made once for real. What a one-shot search sits
   * on: the engine's cost in a new process.
   */
  storeOnly?: boolean;
}

/** What one fresh process measured. */
export interface FirstQueryRun {
  /** `createMemory` (config, store open): what the process pays before it can search. */
  openMs: number;
  /** The first `Memory.search` of the process: wall-clock time. */
  searchMs: number;
  /** The same search in CPU time of the process (all its threads). */
  searchCpuMs: number;
  /** `warmUp` before the search (warm jobs only). */
  warmUpMs?: number;
  /**
   * `Memory.close` after the search: what a one-shot command pays before it exits (the search's
   * recall-log batch, the store's close).
   */
  closeMs: number;
}

/** Medians over several fresh processes, each asking one query once. */
export interface FirstQuery {
  processes: number;
  openMs: number;
  searchMs: number;
  searchCpuMs: number;
  /** Warm jobs: `warmUp` before the search. */
  warmUpMs?: number;
  /** `Memory.close` after the search (absent in reports from before it was measured). */
  closeMs?: number;
}

/**
 * Open the workspace in this process and time its first search (the query's embedding is made
 * before the clock starts: provider latency is not engram's).
 */
export async function measureFirstQuery(job: FirstQueryJob): Promise<FirstQueryRun> {
  const embedder =
    job.mode === "keyword" ? null : meteredEmbedder(createHashingEmbedder({ dims: job.dims }));
  await embedder?.preEmbed([job.query]);
  const opened = performance.now();
  const config = await loadConfig(job.workspace);
  const factory = await storeFromConfig(config, job.store);
  const recorder = job.storeOnly ? new StoreCallRecorder() : undefined;
  const memory = await createMemory({
    workspace: job.workspace,
    config,
    readConfigFile: false,
    store: job.warm
      ? withMemoryIndexFactory(factory)
      : recorder
        ? async (context) => recorder.wrap(await factory(context))
        : factory,
    embedder,
  });
  const openMs = performance.now() - opened;
  let measured: Omit<FirstQueryRun, "closeMs">;
  try {
    const warmUpMs = job.warm ? (await warmUp(memory)).ms : undefined;
    const ask = recorder
      ? await recorder.record(() => memory.search(job.query, { mode: job.mode }))
      : () => memory.search(job.query, { mode: job.mode });
    const cpu = process.cpuUsage();
    const start = performance.now();
    await ask();
    const searchMs = performance.now() - start;
    const used = process.cpuUsage(cpu);
    measured = {
      openMs,
      searchMs,
      searchCpuMs: (used.user + used.system) / 1000,
      ...(warmUpMs === undefined ? {} : { warmUpMs }),
    };
  } catch (error) {
    await memory.close();
    throw error;
  }
  const closing = performance.now();
  await memory.close();
  return { ...measured, closeMs: performance.now() - closing };
}

/**
 * Records the store search a `Memory.search` makes, answering it with no hits so the store does no
 * work (see {@link FirstQueryJob.storeOnly}).
 */
class StoreCallRecorder {
  #recording = false;
  #call: (() => Promise<unknown>) | undefined;

  /** `store`, with its two searches recorded instead of run while {@link record} runs. */
  wrap(store: MemoryStore): MemoryStore {
    return new Proxy(store, {
      get: (target, name) => {
        const value = Reflect.get(target, name, target);
        if (typeof value !== "function") return value;
        if (name !== "searchText" && name !== "searchVector") return value.bind(target);
        return (...args: unknown[]) => {
          if (!this.#recording) return value.apply(target, args);
          this.#call ??= () => value.apply(target, args);
          return Promise.resolve([]);
        };
      },
    });
  }

  /** Run `search`, and return its first store search, to be made for real. */
  async record(search: () => Promise<unknown>): Promise<() => Promise<unknown>> {
    this.#recording = true;
    try {
      await search();
    } finally {
      this.#recording = false;
    }
    if (!this.#call) throw new Error("the search asked the store nothing");
    return this.#call;
  }
}

/**
 * The first query of `processes` fresh Node processes (one query each, taken in turn from
 * `queries`): what a one-shot `engram search` or a new MCP server pays before anything is warm.
 */
export async function firstQueries(
  base: Omit<FirstQueryJob, "query">,
  queries: readonly string[],
  processes: number,
): Promise<FirstQuery> {
  const runs: FirstQueryRun[] = [];
  for (let i = 0; i < processes; i++) {
    const query = queries[i % queries.length] as string;
    runs.push(await inChild({ ...base, query }));
  }
  const warmUps = runs.flatMap((r) => (r.warmUpMs === undefined ? [] : [r.warmUpMs]));
  return {
    processes,
    openMs: median(runs.map((r) => r.openMs)),
    searchMs: median(runs.map((r) => r.searchMs)),
    searchCpuMs: median(runs.map((r) => r.searchCpuMs)),
    closeMs: median(runs.map((r) => r.closeMs)),
    ...(warmUps.length ? { warmUpMs: median(warmUps) } : {}),
  };
}

function inChild(job: FirstQueryJob): Promise<FirstQueryRun> {
  return new Promise((resolve, reject) => {
    const child = fork(new URL("./first-query-worker.js", import.meta.url), [JSON.stringify(job)], {
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    let answer: { result?: FirstQueryRun; error?: string } | undefined;
    child.on("message", (message) => {
      answer = message as typeof answer;
    });
    child.on("error", reject);
    child.on("exit", (code) => {
      if (answer?.result) resolve(answer.result);
      else reject(new Error(answer?.error ?? `the first-query process exited with code ${code}`));
    });
  });
}

/** The child's side: run the job from argv and answer over IPC. */
export async function firstQueryWorker(): Promise<void> {
  let message: object;
  try {
    message = { result: await measureFirstQuery(JSON.parse(process.argv[2] ?? "")) };
  } catch (error) {
    message = {
      error: isEngramError(error)
        ? `${error.code}: ${error.message}`
        : error instanceof Error
          ? (error.stack ?? error.message)
          : String(error),
    };
  }
  process.send?.(message, () => process.exit(0));
}
