import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CONFIG_FILE, type Embedder, type EngramConfigInput, type Memory } from "@engram/core";
import type { MemoryIndexedStore } from "@engram/core/driver";
import { queryTermsOf } from "@engram/core/internal";
import { readBeir, subsetBeir } from "./beir-data.js";
import { openBenchMemory } from "./bench-memory.js";
import { benchModes } from "./modes.js";
import { mrrAt, ndcgAt, recallAt } from "./retrieval-metrics.js";
import { median, percentile, timed } from "./stats.js";

/** Options of {@link benchBeir}. */
export interface BeirBenchOptions {
  /** A BEIR folder: corpus.jsonl, queries.jsonl, qrels/<split>.tsv. */
  dir: string;
  split?: string;
  /** Repetitions of each timed phase; medians are reported (default 3). */
  runs?: number;
  /** Keep the generated workspace here instead of a temp folder that is removed afterwards. */
  workspace?: string;
  log?: (line: string) => void;
  /** Config written to the workspace's `engram.config.json` (ablations: analyzer, chunking, …). */
  config?: EngramConfigInput;
  /** Embed with this instead of the configured providers (`--embedder`). */
  embedder?: Embedder;
  /**
   * Index at most this many documents: every judged one of the split, then the others in corpus
   * order (SciFact's 1,500-document subset: `maxDocs: 1500`).
   */
  maxDocs?: number;
  /** Only the queries whose position in the split (0-based) is even, or odd: a held-out half. */
  queryHalf?: "even" | "odd";
  /**
   * Results asked per query (default 200, so Recall@100 can be measured; the search default of 6
   * shows the ranking users get, with its smaller candidate pools).
   */
  maxResults?: number;
}

/** What {@link benchBeir} measured. Times in ms; quality metrics averaged over queries. */
export interface BeirBenchResult {
  dataset: string;
  split: string;
  docs: number;
  chunks: number;
  queries: number;
  mode: "keyword";
  quality: { ndcg10: number; recall100: number; mrr10: number };
  /**
   * Quality per mode (keyword, vector, hybrid weighted, hybrid rrf) when an embedding provider is
   * configured; `quality` is the keyword row.
   */
  modes?: Array<{ label: string; quality: { ndcg10: number; recall100: number; mrr10: number } }>;
  coldSync: { medianMs: number; runsMs: number[]; chunksPerSecond: number };
  /** Reading and hashing every file once: the floor any sync pays. */
  readHashFloor: { medianMs: number };
  resync: { medianMs: number; runsMs: number[]; filesPerSecond: number };
  search: { p50Ms: number; p95Ms: number; storeP50Ms: number };
  peakRssMb: number;
}

/**
 * Write a BEIR corpus into a workspace as Markdown (one file per document, title as heading),
 * sync it with the configured store, and run every judged query through `Memory.search` — the
 * path the CLI and the agent tools use. Reports retrieval quality (nDCG@10, Recall@100, MRR@10),
 * cold sync and unchanged re-sync times, and search latency, each against a floor measured in
 * the same run.
 */
export async function benchBeir(options: BeirBenchOptions): Promise<BeirBenchResult> {
  const log = options.log ?? (() => {});
  const runs = Math.max(1, options.runs ?? 3);
  const split = options.split ?? "test";
  const data = subsetBeir(await readBeir(options.dir, split), options);
  const ws = options.workspace ?? (await mkdtemp(join(tmpdir(), "engram-bench-")));
  try {
    log(`writing ${data.docs.length} documents to ${ws}`);
    const docOfPath = new Map<string, string>();
    await mkdir(join(ws, "memory", "corpus"), { recursive: true });
    if (options.config) {
      await writeFile(join(ws, CONFIG_FILE), JSON.stringify(options.config, null, 2));
    }
    for (const doc of data.docs) {
      const path = `memory/corpus/${fileName(doc.id)}.md`;
      docOfPath.set(path, doc.id);
      await writeFile(join(ws, path), `# ${doc.title.trim() || doc.id}\n\n${doc.text.trim()}\n`);
    }

    const floorRuns: number[] = [];
    for (let r = 0; r < runs; r++) {
      floorRuns.push(
        await timed(async () => {
          for (const path of docOfPath.keys()) {
            createHash("sha256")
              .update(readFileSync(join(ws, path)))
              .digest("hex");
          }
        }),
      );
    }

    const coldRuns: number[] = [];
    let chunks = 0;
    for (let r = 0; r < runs; r++) {
      await rm(join(ws, ".engram"), { recursive: true, force: true });
      await withMemory(ws, options.embedder, async (memory) => {
        let report: Awaited<ReturnType<Memory["sync"]>>;
        coldRuns.push(await timed(async () => (report = await memory.sync())));
        chunks = report?.chunks ?? 0;
      });
      log(`cold sync ${r + 1}/${runs}: ${Math.round(coldRuns.at(-1) ?? 0)} ms, ${chunks} chunks`);
    }
    const resyncRuns: number[] = [];
    for (let r = 0; r < runs; r++) {
      await withMemory(ws, options.embedder, async (memory) => {
        resyncRuns.push(await timed(() => memory.sync()));
      });
    }

    const latencies: number[] = [];
    const storeLatencies: number[] = [];
    const n = Math.max(1, data.queries.length);
    const modes: NonNullable<BeirBenchResult["modes"]> = [];
    await withMemory(ws, options.embedder, async (memory) => {
      for (const mode of benchModes(memory)) {
        const sums = { ndcg10: 0, recall100: 0, mrr10: 0 };
        for (const query of data.queries) {
          const judged = data.qrels.get(query.id) ?? new Map<string, number>();
          const { results } = await memory.search(query.text, {
            mode: mode.mode,
            maxResults: options.maxResults ?? 200,
            ...(mode.fusion ? { fusion: mode.fusion } : {}),
          });
          const ranked = [...new Set(results.map((r) => docOfPath.get(r.path) ?? r.path))];
          sums.ndcg10 += ndcgAt(ranked, judged, 10);
          sums.recall100 += recallAt(ranked, judged, 100);
          sums.mrr10 += mrrAt(ranked, judged, 10);
        }
        modes.push({
          label: mode.label,
          quality: {
            ndcg10: sums.ndcg10 / n,
            recall100: sums.recall100 / n,
            mrr10: sums.mrr10 / n,
          },
        });
      }
      const pool = memory.config.search.maxResults * memory.config.search.candidateMultiplier;
      // Time the steady state: the in-memory index loading in the background is ready.
      await (memory.store as Partial<MemoryIndexedStore>).indexReady?.();
      for (const query of data.queries) {
        latencies.push(await timed(() => memory.search(query.text, { mode: "keyword" })));
        const terms = [...new Set(queryTermsOf(memory.analyzer, query.text))];
        storeLatencies.push(await timed(() => memory.store.searchText(terms, pool)));
      }
    });
    const cold = median(coldRuns);
    const resync = median(resyncRuns);
    return {
      dataset: options.dir.split(/[\\/]/).filter(Boolean).at(-1) ?? options.dir,
      split,
      docs: data.docs.length,
      chunks,
      queries: data.queries.length,
      mode: "keyword",
      quality: modes[0]?.quality ?? { ndcg10: 0, recall100: 0, mrr10: 0 },
      ...(modes.length > 1 ? { modes } : {}),
      coldSync: { medianMs: cold, runsMs: coldRuns, chunksPerSecond: chunks / (cold / 1000) },
      readHashFloor: { medianMs: median(floorRuns) },
      resync: {
        medianMs: resync,
        runsMs: resyncRuns,
        filesPerSecond: data.docs.length / (resync / 1000),
      },
      search: {
        p50Ms: median(latencies),
        p95Ms: percentile(latencies, 95),
        storeP50Ms: median(storeLatencies),
      },
      peakRssMb: process.resourceUsage().maxRSS / 1024,
    };
  } finally {
    if (!options.workspace) await rm(ws, { recursive: true, force: true });
  }
}

async function withMemory(
  ws: string,
  embedder: Embedder | undefined,
  fn: (memory: Memory) => Promise<void>,
): Promise<void> {
  const memory = await openBenchMemory(ws, embedder);
  try {
    await fn(memory);
  } finally {
    await memory.close();
  }
}

/** A file name for a document id (ids may hold characters a file system refuses). */
function fileName(id: string): string {
  const safe = id.replace(/[^A-Za-z0-9._-]/g, "_");
  return safe === id ? id : `${safe}-${createHash("sha1").update(id).digest("hex").slice(0, 8)}`;
}
