import { type EngramConfigInput, EngramError } from "@engram/core";
import type { Command } from "commander";
import type { BeirBenchResult } from "../bench/beir.js";
import { registerConsolidateBench } from "../bench/consolidate-command.js";
import { registerLocomoBench } from "../bench/locomo-command.js";
import { registerBenchPerf } from "../bench/perf-command.js";
import { globals, positiveInt } from "../context.js";
import { type Io, json, line } from "../output.js";

/** `engram bench beir --dir <folder>`: retrieval quality and speed on a BEIR data set. */
export function registerBench(program: Command, io: Io): void {
  const bench = program.command("bench").description("measure retrieval quality and speed");
  bench
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
    .action(
      async (
        flags: { dir: string; split: string; runs: string; keep?: string; config?: string },
        cmd: Command,
      ) => {
        const g = globals(cmd);
        const config = parseConfigFlag(flags.config);
        // Bench code loads only when a bench runs (see lazy-commands.test.ts).
        const { benchBeir } = await import("../bench/beir.js");
        const result = await benchBeir({
          dir: flags.dir,
          split: flags.split,
          runs: positiveInt("--runs", flags.runs) ?? 3,
          ...(flags.keep ? { workspace: flags.keep } : {}),
          ...(config ? { config } : {}),
          log: (text) => io.stderr.write(`${text}\n`),
        });
        if (g.json) return json(io, result);
        printBeir(io, result);
      },
    );
  registerLocomoBench(bench, io, parseConfigFlag);
  registerBenchPerf(bench, io);
  registerConsolidateBench(bench, io);
}

function printBeir(io: Io, r: BeirBenchResult): void {
  const f = (n: number, d = 3) => n.toFixed(d);
  const ms = (n: number) => (n >= 1000 ? `${f(n / 1000, 2)} s` : `${f(n, 1)} ms`);
  line(
    io,
    `BEIR ${r.dataset} (${r.split}): ${r.docs} docs → ${r.chunks} chunks, ${r.queries} queries, ${r.mode} search`,
  );
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

function parseConfigFlag(text: string | undefined): EngramConfigInput | undefined {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as EngramConfigInput;
  } catch (error) {
    throw new EngramError("INVALID_ARGUMENT", `--config is not JSON: ${(error as Error).message}`, {
      hint: `pass a JSON object, e.g. --config '{"analyzer":{"english":"none"}}'`,
    });
  }
}
