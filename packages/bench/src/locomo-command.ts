import { type Io, json, line } from "@engram/cli";
import { EngramError } from "@engram/core";
import type { Command } from "commander";
import { benchEmbedder, embeddingInfo } from "./bench-memory.js";
import { globals, parseConfigFlag } from "./flags.js";

/** `engram-bench locomo --file <json>`: evidence recall of the snippets search returns. */
export function registerLocomoBench(bench: Command, io: Io): void {
  bench
    .command("locomo")
    .description(
      "index LoCoMo conversations as daily logs and measure evidence recall@k of the snippets search returns",
    )
    .requiredOption("--file <json>", "LoCoMo JSON file, e.g. ../shared/data/locomo/locomo-dev.json")
    .option("--k <list>", "comma-separated result counts to measure recall at", "1,6,10")
    .option("--keep <dir>", "build the workspaces here (one folder per conversation) and keep them")
    .option(
      "--consolidate",
      "ask every question once, apply a consolidation pass without a model, then measure",
    )
    .option("--out <dir>", "write locomo-<dataset>.json and .md here", "bench/results")
    .option("--no-out", "write no result files")
    .option(
      "--config <json>",
      'engram.config.json for the run, e.g. \'{"search":{"mmr":{"enabled":false}}}\'',
    )
    .option(
      "--embedder <module>",
      "embed with use-lite, wink-average or an ES module exporting an engram EmbeddingProvider or Embedder",
    )
    .option("--embedding-cache <dir>", "keep --embedder vectors here between runs")
    .action(async (flags: LocomoFlags, cmd: Command) => {
      const g = globals(cmd);
      const config = parseConfigFlag(flags.config);
      const embedding = flags.embedder
        ? await benchEmbedder(flags.embedder, flags.embeddingCache)
        : undefined;
      try {
        const { benchLocomo } = await import("./locomo.js");
        const { locomoMarkdown, writeLocomoResults } = await import("./locomo-report.js");
        const measured = await benchLocomo({
          file: flags.file,
          ks: parseKs(flags.k),
          ...(flags.keep ? { workspace: flags.keep } : {}),
          ...(config ? { config } : {}),
          ...(flags.consolidate ? { consolidate: true } : {}),
          ...(embedding ? { embedder: embedding.embedder } : {}),
          log: (text) => io.stderr.write(`${text}\n`),
        });
        const result = embedding
          ? { ...measured, embedding: embeddingInfo(embedding.embedder) }
          : measured;
        const files = flags.out === false ? undefined : await writeLocomoResults(flags.out, result);
        if (g.json) return json(io, { ...result, ...(files ? { files } : {}) });
        io.stdout.write(locomoMarkdown(result));
        if (files) line(io, `\nwrote ${files.json} and ${files.markdown}`);
      } finally {
        await embedding?.close();
      }
    });
}

interface LocomoFlags {
  file: string;
  k: string;
  keep?: string;
  out: string | false;
  config?: string;
  embedder?: string;
  embeddingCache?: string;
  consolidate?: boolean;
}

function parseKs(text: string): number[] {
  const ks = text.split(",").map((part) => Number(part.trim()));
  if (!ks.length || ks.some((k) => !Number.isInteger(k) || k < 1 || k > 100)) {
    throw new EngramError(
      "INVALID_ARGUMENT",
      `--k must list whole numbers from 1 to 100, got "${text}"`,
      {
        hint: "for example --k 1,6,10",
      },
    );
  }
  return ks;
}
