import { stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import {
  CONFIG_FILE,
  createMemory,
  EngramError,
  INDEX_DIR,
  type KeyValueStore,
  loadConfig,
  MEMORY_DIR,
  MEMORY_FILE,
  type Memory,
} from "@engram/core";
import { withMemoryIndexFactory } from "@engram/core/driver";
import { LANGUAGE_MODELS, PROVIDERS, RERANKERS, storeFromConfig } from "./drivers.js";

/** The workspace folder: `--workspace`, else `ENGRAM_WORKSPACE`, else the current folder. */
export function workspaceDir(
  flag: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): string {
  return resolve(flag ?? env.ENGRAM_WORKSPACE ?? process.cwd());
}

/**
 * Open the memory of an existing workspace. A folder with none of `MEMORY.md`, `memory/`,
 * `.engram/` or `engram.config.json` is refused, so a command run in the wrong folder does not
 * start indexing it.
 */
export async function openMemory(
  dir: string,
  options: {
    create?: boolean;
    store?: string | undefined;
    /** Another store's key-value map to read cached embeddings from (see `reindex --to`). */
    cacheFrom?: KeyValueStore | undefined;
    /**
     * A process that stays up and searches many times (`watch`, `mcp`, `ui`): core's in-memory
     * index goes in front of the store (`withMemoryIndex`), loading in the background on the first
     * search. One-shot commands leave it out: they would pay for a load they never use.
     */
    longLived?: boolean;
  } = {},
): Promise<Memory> {
  const info = await stat(dir).catch(() => undefined);
  if (info && !info.isDirectory()) throw notAFolder(dir);
  if (!info) {
    throw new EngramError("WORKSPACE_MISSING", `workspace ${dir} does not exist`, {
      hint: `create it with "engram init --workspace ${dir}", or pass --workspace / set ENGRAM_WORKSPACE`,
    });
  }
  if (!options.create && !(await looksLikeWorkspace(dir))) {
    throw new EngramError(
      "WORKSPACE_MISSING",
      `${dir} is not an engram workspace (no ${MEMORY_FILE} or ${MEMORY_DIR}/)`,
      {
        hint: `run "engram init" there, or pass --workspace / set ENGRAM_WORKSPACE`,
      },
    );
  }
  const config = await loadConfig(dir);
  const store = await storeFromConfig(
    config,
    options.store ?? (process.env.ENGRAM_STORE || undefined),
  );
  return createMemory({
    workspace: dir,
    config,
    readConfigFile: false,
    store: options.longLived ? withMemoryIndexFactory(store) : store,
    providers: PROVIDERS,
    rerankers: RERANKERS,
    languageModels: LANGUAGE_MODELS,
    ...(options.cacheFrom ? { cacheFrom: options.cacheFrom } : {}),
  });
}

/** `--workspace` names something that is not a folder (a file, a device). */
export function notAFolder(dir: string): EngramError {
  return new EngramError("WORKSPACE_MISSING", `workspace ${dir} is a file, not a folder`, {
    hint: "pass the folder that holds (or will hold) MEMORY.md and memory/ with --workspace",
  });
}

async function looksLikeWorkspace(dir: string): Promise<boolean> {
  const marks = [MEMORY_FILE, MEMORY_DIR, INDEX_DIR, CONFIG_FILE];
  const found = await Promise.all(
    marks.map((m) =>
      stat(join(dir, m)).then(
        () => true,
        () => false,
      ),
    ),
  );
  return found.some(Boolean);
}
