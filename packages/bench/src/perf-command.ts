import { type Io, json, line, positiveInt } from "@engram/cli";
import { EngramError } from "@engram/core";
import type { Command } from "commander";
import { globals } from "./flags.js";

/** `engram-bench perf`: indexing and search speed per store on synthetic workspaces. */
export function registerBenchPerf(bench: Command, io: Io): void {
  bench
    .command("perf")
    .description(
      "generate synthetic workspaces (English + Chinese) and measure sync throughput, search latency, disk size and peak memory per store",
    )
    .option(
      "--sizes <list>",
      "corpus sizes in chunks, comma-separated (10k = 10000)",
      "10000,100000",
    )
    .option(
      "--stores <list>",
      "stores to measure, comma-separated (default: sqlite,memory,lancedb; qdrant when QDRANT_URL is set)",
    )
    .option(
      "--runs <n>",
      "repetitions of each timed phase (medians are reported); a list gives one per size (--sizes 10k,100k --runs 3,1)",
      "3",
    )
    .option("--dims <n>", "dimensions of the fixed-cost embedder", "384")
    .option("--seed <n>", "seed of the synthetic workspace and queries")
    .option(
      "--out <dir>",
      "write perf-<date>.json, perf-latest.json, perf.md and perf-latency.svg here",
      "bench/results",
    )
    .action(async (flags: PerfFlags, cmd: Command) => {
      const g = globals(cmd);
      const seed = flags.seed === undefined ? undefined : Number(flags.seed);
      if (seed !== undefined && !Number.isInteger(seed)) {
        throw new EngramError(
          "INVALID_ARGUMENT",
          `--seed must be a whole number, got "${flags.seed}"`,
          {
            hint: "for example --seed 42",
          },
        );
      }
      const { benchPerf } = await import("./perf.js");
      const { perfMarkdown } = await import("./report-perf.js");
      const { report, files } = await benchPerf({
        sizes: parseSizes(flags.sizes),
        ...(flags.stores ? { stores: parseList(flags.stores) } : {}),
        runs: parseRuns(flags.runs),
        dims: positiveInt("--dims", flags.dims) ?? 384,
        ...(seed !== undefined ? { seed } : {}),
        out: flags.out,
        log: (text) => io.stderr.write(`${text}\n`),
      });
      if (g.json) return json(io, { ...report, files });
      line(io, perfMarkdown(report).trimEnd());
      if (files) line(io, `\nwrote ${files.json}, ${files.markdown}, ${files.svg}`);
    });
}

interface PerfFlags {
  sizes: string;
  stores?: string;
  runs: string;
  dims: string;
  seed?: string;
  out: string;
}

/** `10000,100k` → [10000, 100000]; anything else is a usage error naming the flag. */
export function parseSizes(text: string): number[] {
  return parseList(text).map((item) => {
    const match = /^(\d+)(k?)$/i.exec(item);
    const n = match ? Number(match[1]) * (match[2] ? 1000 : 1) : Number.NaN;
    if (!Number.isInteger(n) || n < 1) {
      throw new EngramError("INVALID_ARGUMENT", `--sizes: "${item}" is not a number of chunks`, {
        hint: "for example --sizes 10000,100000 or --sizes 10k,100k",
      });
    }
    return n;
  });
}

/** `3` → 3; `3,1` → [3, 1] (one per size); anything else is a usage error naming the flag. */
export function parseRuns(text: string): number | number[] {
  const counts = parseList(text).map((item) => positiveInt("--runs", item) as number);
  return counts.length === 1 ? (counts[0] as number) : counts;
}

function parseList(text: string): string[] {
  return text
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}
