import { type Io, json, line, positiveInt } from "@engram/cli";
import { EngramError } from "@engram/core";
import type { Command } from "commander";
import type { BeirBenchResult } from "./beir.js";
import { type BenchEmbeddingInfo, benchEmbedder, embeddingInfo } from "./bench-memory.js";
import { globals, parseConfigFlag } from "./flags.js";

interface BeirFlags {
  dir: string;
  split: string;
  runs: string;
  keep?: string;
  config?: string;
  embedder?: string;
  embeddingCache?: string;
  maxDocs?: string;
  queries?: string;
  maxResults?: string;
}

/** `engram-bench beir --dir <folder>`: retrieval quality and speed on a BEIR data set. */
export function registerBeirBench(program: Command, io: Io): void {
  program
    .command("beir")
    .description(
      "index a BEIR data set as Markdown and measure nDCG@10, Recall@100, MRR@10, sync and search times",
    )
    .requiredOption("--dir <folder>", "BEIR folder: corpus.jsonl, queries.jsonl, qrels/<split>.tsv")
    .option("--split <name>", "qrels split", "test")
    .option("--runs <n>", "repetitions of each timed phase (medians are reported)", "3")
    .option("--keep <dir>", "build the workspace here and keep it")
    .option(
      "--config <json>",
      'engram.config.json for the run, e.g. \'{"analyzer":{"english":"none"}}\'',
    )
    .option(
      "--embedder <module>",
      "embed with use-lite, wink-average or an ES module exporting an engram EmbeddingProvider or Embedder (vector and hybrid modes are then measured too)",
    )
    .option(
      "--embedding-cache <dir>",
      "keep --embedder vectors here between runs (default: engram-bench-embeddings in the temp folder)",
    )
    .option(
      "--max-docs <n>",
      "index at most n documents: every judged one, then the others in corpus order",
    )
    .option("--queries <half>", "only the even or odd queries of the split (a held-out half)")
    .option("--max-results <n>", "results asked per query (default 200; 6 is the search default)")
    .action(async (flags: BeirFlags, cmd: Command) => {
      const config = parseConfigFlag(flags.config);
      if (flags.queries !== undefined && flags.queries !== "even" && flags.queries !== "odd") {
        throw new EngramError(
          "INVALID_ARGUMENT",
          `--queries must be even or odd, got "${flags.queries}"`,
          {
            hint: "for example --queries odd",
          },
        );
      }
      const embedding = flags.embedder
        ? await benchEmbedder(flags.embedder, flags.embeddingCache)
        : undefined;
      try {
        // Bench code loads only when a bench runs.
        const { benchBeir } = await import("./beir.js");
        const maxDocs = positiveInt("--max-docs", flags.maxDocs);
        const maxResults = positiveInt("--max-results", flags.maxResults);
        const result: BeirBenchResult & { embedding?: BenchEmbeddingInfo } = await benchBeir({
          dir: flags.dir,
          split: flags.split,
          runs: positiveInt("--runs", flags.runs) ?? 3,
          ...(flags.keep ? { workspace: flags.keep } : {}),
          ...(config ? { config } : {}),
          ...(embedding ? { embedder: embedding.embedder } : {}),
          ...(maxDocs !== undefined ? { maxDocs } : {}),
          ...(maxResults !== undefined ? { maxResults } : {}),
          ...(flags.queries ? { queryHalf: flags.queries as "even" | "odd" } : {}),
          log: (text) => io.stderr.write(`${text}\n`),
        });
        if (embedding) result.embedding = embeddingInfo(embedding.embedder);
        if (globals(cmd).json) return json(io, result);
        printBeir(io, result);
      } finally {
        await embedding?.close();
      }
    });
}

function printBeir(io: Io, r: BeirBenchResult & { embedding?: BenchEmbeddingInfo }): void {
  const f = (n: number, d = 3) => n.toFixed(d);
  const ms = (n: number) => (n >= 1000 ? `${f(n / 1000, 2)} s` : `${f(n, 1)} ms`);
  line(
    io,
    `BEIR ${r.dataset} (${r.split}): ${r.docs} docs → ${r.chunks} chunks, ${r.queries} queries, ${r.mode} search`,
  );
  if (r.embedding) {
    const { id, model, dims, cache } = r.embedding;
    line(
      io,
      `Embedder ${id} (${model}, ${dims} dims): ${cache.hits} vectors from ${cache.file}, ${cache.misses} computed`,
    );
  }
  line(io, "| measure | median | vs. baseline in the same run |");
  line(io, "|---|---|---|");
  line(
    io,
    `| nDCG@10 / Recall@100 / MRR@10 | ${f(r.quality.ndcg10)} / ${f(r.quality.recall100)} / ${f(r.quality.mrr10)} | |`,
  );
  line(
    io,
    `| cold sync | ${ms(r.coldSync.medianMs)} (${Math.round(r.coldSync.chunksPerSecond)} chunks/s) | ×${f(r.coldSync.medianMs / r.readHashFloor.medianMs, 1)} of reading + hashing the files (${ms(r.readHashFloor.medianMs)}) |`,
  );
  line(
    io,
    `| re-sync, nothing changed | ${ms(r.resync.medianMs)} (${Math.round(r.resync.filesPerSecond)} files/s) | ×${f(r.resync.medianMs / r.readHashFloor.medianMs, 2)} of reading + hashing |`,
  );
  line(
    io,
    `| search p50 / p95 | ${ms(r.search.p50Ms)} / ${ms(r.search.p95Ms)} | ×${f(r.search.p50Ms / r.search.storeP50Ms, 2)} of the store's own BM25 query (${ms(r.search.storeP50Ms)}) |`,
  );
  line(io, `| peak RSS | ${Math.round(r.peakRssMb)} MB | |`);
  for (const m of r.modes ?? []) {
    line(
      io,
      `| ${m.label}: nDCG@10 / Recall@100 / MRR@10 | ${f(m.quality.ndcg10)} / ${f(m.quality.recall100)} / ${f(m.quality.mrr10)} | |`,
    );
  }
}
