import { EngramError } from "../errors.js";
import type { Memory } from "../memory.js";
import type { SealKey } from "./keys.js";
import { NEW_SEAL_KEY_VARIABLES, resolveSealKey } from "./keys.js";
import { type RotationOutcome, rotateSealKey } from "./rotate.js";
import { type SealOutcome, sealFile, unsealFile } from "./seal-file.js";
import { type SpanSealOutcome, sealSpansFile, unsealSpansFile } from "./seal-spans.js";
import { SEALED_SOURCE } from "./session.js";

/** What sealing operations need of a memory (a {@link Memory} is one). */
export type SealingHost = Pick<
  Memory,
  "workspace" | "config" | "sealing" | "noteWritten" | "sync" | "store"
>;

/** What sealing one file did, and whether the index had held its plaintext. */
export interface MemorySealOutcome extends SealOutcome {
  /**
   * True when the file had been indexed in plain before it was sealed: its chunks leave the index
   * at once (and SQLite overwrites the freed pages), but the store may keep its words in its term
   * vocabulary; delete `.engram/` and sync to leave no trace (see the README).
   */
  wasIndexed?: boolean;
}

/** The memory's key, or a `SEAL_KEY_MISSING` error saying how to configure one. */
export async function requireSealKey(memory: Pick<SealingHost, "sealing">): Promise<SealKey> {
  const key = await memory.sealing.key();
  if (!key) {
    throw new EngramError("SEAL_KEY_MISSING", "no sealing key is configured", {
      hint: "set ENGRAM_KEY to an age identity or ENGRAM_KEY_FILE to a key file outside the workspace (engram keygen makes one)",
    });
  }
  return key;
}

/**
 * Seal memory files (paths as `engram get` takes them) with the memory's key, then re-index them
 * at once, so their plaintext chunks leave the index before this returns.
 */
export async function sealMemoryFiles(
  memory: SealingHost,
  paths: readonly string[],
): Promise<MemorySealOutcome[]> {
  const outcomes = await changeFiles(memory, paths, sealFile);
  return outcomes.map(({ indexedBefore, ...o }) =>
    o.changed && indexedBefore ? { ...o, wasIndexed: true } : o,
  );
}

/** Unseal memory files with the memory's key (the exact original bytes), then re-index them. */
export async function unsealMemoryFiles(
  memory: SealingHost,
  paths: readonly string[],
): Promise<SealOutcome[]> {
  return (await changeFiles(memory, paths, unsealFile)).map(({ indexedBefore: _i, ...o }) => o);
}

/**
 * Seal the private spans of memory files in place (see {@link sealSpansFile}), then re-index them
 * at once: the spans' plaintext chunks leave the index before this returns, and from then on the
 * index holds each sealed span as `[sealed]`.
 */
export async function sealMemorySpans(
  memory: SealingHost,
  paths: readonly string[],
): Promise<Array<SpanSealOutcome & { wasIndexed?: boolean }>> {
  const outcomes = await changeFiles(memory, paths, sealSpansFile);
  return outcomes.map(({ indexedBefore, ...o }) =>
    o.changed && indexedBefore ? { ...o, wasIndexed: true } : o,
  );
}

/** Open the sealed private spans of memory files (their exact original bytes), then re-index them. */
export async function unsealMemorySpans(
  memory: SealingHost,
  paths: readonly string[],
): Promise<SpanSealOutcome[]> {
  return (await changeFiles(memory, paths, unsealSpansFile)).map(
    ({ indexedBefore: _i, ...o }) => o,
  );
}

async function changeFiles<T extends SealOutcome>(
  memory: SealingHost,
  paths: readonly string[],
  change: (
    workspace: string,
    path: string,
    key: SealKey,
    options: { extraPaths: readonly string[]; maxBytes: number },
  ) => Promise<T>,
): Promise<Array<T & { indexedBefore?: boolean }>> {
  const key = await requireSealKey(memory);
  const options = {
    extraPaths: memory.config.extraPaths,
    maxBytes: memory.config.sync.maxFileBytes,
  };
  const outcomes: Array<T & { indexedBefore?: boolean }> = [];
  try {
    for (const path of paths) {
      const outcome = await change(memory.workspace, path, key, options);
      const known = await memory.store.getFile(outcome.path);
      outcomes.push({
        ...outcome,
        indexedBefore: Boolean(known && known.source !== SEALED_SOURCE),
      });
    }
  } finally {
    const changed = outcomes.filter((o) => o.changed).map((o) => o.path);
    if (changed.length) {
      memory.noteWritten(...changed);
      await memory.sync({ paths: changed });
    }
  }
  return outcomes;
}

/**
 * Rotate the key: every sealed file is re-sealed to the key of `ENGRAM_NEW_KEY` /
 * `ENGRAM_NEW_KEY_FILE` (journaled; see {@link rotateSealKey}). The old key comes from
 * `ENGRAM_KEY` / `ENGRAM_KEY_FILE`.
 */
export async function rotateMemoryKey(
  memory: SealingHost,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<RotationOutcome> {
  const newKey = await resolveSealKey(memory.workspace, env, NEW_SEAL_KEY_VARIABLES);
  if (!newKey) {
    throw new EngramError("SEAL_KEY_MISSING", "no new key to rotate to", {
      hint: "set ENGRAM_NEW_KEY or ENGRAM_NEW_KEY_FILE to the new key (engram keygen makes one)",
    });
  }
  const oldKey = await memory.sealing.key();
  const outcome = await rotateSealKey(memory.workspace, oldKey, newKey, {
    extraPaths: memory.config.extraPaths,
    maxBytes: memory.config.sync.maxFileBytes,
  });
  const changed = outcome.rotated;
  if (changed.length) {
    memory.noteWritten(...changed);
    await memory.sync({ paths: changed });
  }
  return outcome;
}
