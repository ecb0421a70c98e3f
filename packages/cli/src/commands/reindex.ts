import { readFile } from "node:fs/promises";
import { join } from "node:path";
import {
  CONFIG_FILE,
  type EngramConfigInput,
  INDEX_DIR,
  loadConfig,
  type MemoryStore,
  resolveConfig,
} from "@engram/core";
import { writeFileAtomic } from "@engram/core/internal";
import type { Command } from "commander";
import { globals, withMemory } from "../context.js";
import { storeFromConfig } from "../drivers.js";
import { type Io, json, line } from "../output.js";
import { workspaceDir } from "../workspace.js";
import { describeSync } from "./sync.js";

/**
 * `engram reindex --to <driver>`: build another store's index from the files (the files are the
 * truth, so nothing is copied from the current index), and with `--switch` make it the configured one.
 * The embedding cache belongs to the workspace: what the new store's cache lacks is read from the
 * configured store's, so no text is embedded again.
 */
export function registerReindex(program: Command, io: Io): void {
  program
    .command("reindex")
    .description(
      "rebuild the index from the files into a store (e.g. --to lancedb); --switch to use it",
    )
    .requiredOption("--to <driver>", "the store to build: sqlite | memory | lancedb | qdrant")
    .option("--switch", "set store.driver in engram.config.json to it afterwards")
    .action(async (flags: { to: string; switch?: boolean }, cmd: Command) => {
      const g = globals(cmd);
      const workspace = workspaceDir(g.workspace);
      const configured = await openConfiguredStore(workspace, flags.to);
      let report: Awaited<ReturnType<typeof runReindex>>;
      try {
        report = await runReindex(cmd, flags.to, configured?.keyValue);
      } finally {
        await configured?.close();
      }
      if (flags.switch) await switchStore(workspace, flags.to);
      if (g.json) return json(io, { store: flags.to, switched: Boolean(flags.switch), report });
      if (report) line(io, `${flags.to}: ${describeSync(report)}`);
      line(
        io,
        flags.switch
          ? `engram.config.json now uses the ${flags.to} store`
          : `The configured store is unchanged; pass --switch to use ${flags.to}, or --store ${flags.to} per command.`,
      );
    });
}

function runReindex(cmd: Command, driver: string, cacheFrom: MemoryStore["keyValue"]) {
  return withMemory(cmd, (memory) => memory.sync({ force: true }), { store: driver, cacheFrom });
}

/**
 * The configured store, open, when it is another than `target` and keeps a key-value map (for its
 * embedding cache); undefined when it cannot be opened (the reindex then embeds what it must).
 */
async function openConfiguredStore(
  workspace: string,
  target: string,
): Promise<MemoryStore | undefined> {
  let store: MemoryStore | undefined;
  try {
    const config = await loadConfig(workspace);
    if (config.store.driver === target || !config.cache.enabled) return undefined;
    const factory = await storeFromConfig(config);
    store = await factory({ workspace, indexDir: join(workspace, INDEX_DIR) });
    await store.init();
    if (store.keyValue) return store;
  } catch {
    // Not fatal: the reindex works without it, only slower and dearer.
  }
  await store?.close().catch(() => undefined);
  return undefined;
}

/** Set `store.driver` in the workspace's config file (atomically), keeping everything else. */
async function switchStore(workspace: string, driver: string): Promise<void> {
  const path = join(workspace, CONFIG_FILE);
  let current: EngramConfigInput = {};
  try {
    current = JSON.parse(await readFile(path, "utf8")) as EngramConfigInput;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  const next: EngramConfigInput = {
    ...current,
    store: {
      ...current.store,
      driver,
      ...(current.store?.driver === driver ? {} : { options: {} }),
    },
  };
  resolveConfig(next); // never write a config that would not load
  await writeFileAtomic(path, `${JSON.stringify(next, null, 2)}\n`);
}
