import { type EngramConfigInput, EngramError } from "@engram/core";
import type { Command } from "commander";
import { globals } from "../context.js";
import { type Io, json, line } from "../output.js";

/**
 * Add `engram bench locomo --file <json>` to the `bench` command. `parseConfig` reads the
 * `--config` JSON the way every bench subcommand does.
 */
export function registerLocomoBench(
  bench: Command,
  io: Io,
  parseConfig: (text: string | undefined) => EngramConfigInput | undefined,
): void {
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
    .action(
      async (
        flags: {
          file: string;
          k: string;
          keep?: string;
          out: string | false;
          config?: string;
          consolidate?: boolean;
        },
        cmd: Command,
      ) => {
        const g = globals(cmd);
        const config = parseConfig(flags.config);
        const { benchLocomo } = await import("./locomo.js");
        const { locomoMarkdown, writeLocomoResults } = await import("./locomo-report.js");
        const result = await benchLocomo({
          file: flags.file,
          ks: parseKs(flags.k),
          ...(flags.keep ? { workspace: flags.keep } : {}),
          ...(config ? { config } : {}),
          ...(flags.consolidate ? { consolidate: true } : {}),
          log: (text) => io.stderr.write(`${text}\n`),
        });
        const files = flags.out === false ? undefined : await writeLocomoResults(flags.out, result);
        if (g.json) return json(io, { ...result, ...(files ? { files } : {}) });
        io.stdout.write(locomoMarkdown(result));
        if (files) line(io, `\nwrote ${files.json} and ${files.markdown}`);
      },
    );
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
