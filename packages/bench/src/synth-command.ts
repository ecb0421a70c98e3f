import { readdirSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { resolve } from "node:path";
import { type Io, json, line, storeFromConfig } from "@engram/cli";
import { createMemory, EngramError, loadConfig } from "@engram/core";
import { createHashingEmbedder } from "@engram/core/testing";
import type { Command } from "commander";
import { globals } from "./flags.js";
import { DEFAULT_SYNTH_SEED, writeSynthWorkspace } from "./synth.js";

/**
 * `engram-bench synth --chunks 100000 --dir /tmp/ws100k`: the synthetic workspace `perf` measures,
 * written to a folder and indexed (SQLite, the fixed-cost 384-dimension embedder), to time any
 * `engram` command at that size (`node bench/cli-cpu.mjs --workspace <dir>`).
 */
export function registerSynthBench(program: Command, io: Io): void {
  program
    .command("synth")
    .description(
      "write the synthetic workspace perf uses (English + Chinese) to --dir and index it, to time commands at that size",
    )
    .requiredOption("--dir <folder>", "an empty or new folder")
    .option("--chunks <n>", "chunks, as a sync with the default config counts them", "10000")
    .option("--seed <n>", "seed of the workspace", String(DEFAULT_SYNTH_SEED))
    .option("--no-index", "write the files only")
    .action(
      async (
        flags: { dir: string; chunks: string; seed: string; index: boolean },
        cmd: Command,
      ) => {
        const chunks = Number(flags.chunks);
        const seed = Number(flags.seed);
        if (!Number.isInteger(chunks) || chunks < 1 || !Number.isInteger(seed)) {
          throw new EngramError("INVALID_ARGUMENT", "--chunks and --seed take whole numbers", {
            hint: "for example --chunks 100000",
          });
        }
        const dir = resolve(flags.dir);
        await mkdir(dir, { recursive: true });
        if (readdirSync(dir).length) {
          throw new EngramError("INVALID_ARGUMENT", `${dir} is not empty`, {
            hint: "name a new folder: synth writes a whole workspace there",
          });
        }
        const summary = writeSynthWorkspace(dir, { chunks, seed });
        let synced: { chunks: number; seconds: number } | undefined;
        if (flags.index) {
          const config = await loadConfig(dir);
          const memory = await createMemory({
            workspace: dir,
            config,
            readConfigFile: false,
            store: await storeFromConfig(config, "sqlite"),
            embedder: createHashingEmbedder({ dims: 384 }),
          });
          try {
            const started = performance.now();
            const report = await memory.sync();
            synced = { chunks: report?.chunks ?? 0, seconds: (performance.now() - started) / 1000 };
          } finally {
            await memory.close();
          }
        }
        if (globals(cmd).json) return json(io, { dir, ...summary, synced });
        line(io, `${dir}: ${summary.files} files, ${summary.chunks} chunks (seed ${summary.seed})`);
        if (synced) {
          line(io, `indexed ${synced.chunks} chunks in ${synced.seconds.toFixed(1)} s (SQLite)`);
        }
      },
    );
}
