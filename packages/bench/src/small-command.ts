import { type Io, json, line } from "@engram/cli";
import { EngramError } from "@engram/core";
import type { Command } from "commander";
import type { BeirSmallResult } from "./beir-small.js";
import { benchEmbedder } from "./bench-memory.js";
import { globals, parseConfigFlag } from "./flags.js";

/** `engram-bench small --dir <BEIR folder> --docs 20,50,200`: quality on small workspaces. */
export function registerSmallBench(program: Command, io: Io): void {
  program
    .command("small")
    .description(
      "cut a BEIR corpus into small workspaces (N documents each, judged ones added) and measure each query in its own",
    )
    .requiredOption("--dir <folder>", "BEIR folder: corpus.jsonl, queries.jsonl, qrels/<split>.tsv")
    .option("--split <name>", "qrels split", "test")
    .option("--docs <list>", "documents per workspace, comma-separated", "20,50,200")
    .option("--config <json>", "engram.config.json for every workspace")
    .option("--embedder <module>", "embed with use-lite, wink-average or an ES module")
    .option("--embedding-cache <dir>", "keep --embedder vectors here between runs")
    .action(
      async (
        flags: {
          dir: string;
          split: string;
          docs: string;
          config?: string;
          embedder?: string;
          embeddingCache?: string;
        },
        cmd: Command,
      ) => {
        const sizes = flags.docs.split(",").map((s) => Number(s.trim()));
        if (!sizes.length || sizes.some((n) => !Number.isInteger(n) || n < 2)) {
          throw new EngramError(
            "INVALID_ARGUMENT",
            `--docs must list whole numbers ≥ 2, got "${flags.docs}"`,
            {
              hint: "for example --docs 20,50,200",
            },
          );
        }
        const config = parseConfigFlag(flags.config);
        const embedding = flags.embedder
          ? await benchEmbedder(flags.embedder, flags.embeddingCache)
          : undefined;
        try {
          const { benchBeirSmall } = await import("./beir-small.js");
          const results: BeirSmallResult[] = [];
          for (const docs of sizes) {
            results.push(
              await benchBeirSmall({
                dir: flags.dir,
                split: flags.split,
                docs,
                ...(config ? { config } : {}),
                ...(embedding ? { embedder: embedding.embedder } : {}),
                log: (text) => io.stderr.write(`${text}\n`),
              }),
            );
          }
          if (globals(cmd).json) return json(io, results);
          line(
            io,
            "| documents per workspace | workspaces (size min / median / max) | queries | mode | nDCG@10 | Recall@100 | MRR@10 |",
          );
          line(io, "|---|---|---|---|---|---|---|");
          for (const r of results) {
            for (const m of r.modes) {
              line(
                io,
                `| ${r.docsPerWorkspace} | ${r.workspaces} (${r.sizes.min} / ${r.sizes.median} / ${r.sizes.max}) | ${r.queries} | ${m.label} | ${m.quality.ndcg10.toFixed(3)} | ${m.quality.recall100.toFixed(3)} | ${m.quality.mrr10.toFixed(3)} |`,
              );
            }
          }
        } finally {
          await embedding?.close();
        }
      },
    );
}
