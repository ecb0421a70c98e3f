import { readFile } from "node:fs/promises";
import { EngramError } from "../errors.js";
import { workspacePath } from "../lifecycle/files.js";
import { STATE_FILE } from "./paths.js";

/** How far a source file was read: its first `lines` lines, which hashed to `hash`. */
export interface SeenFile {
  lines: number;
  /** SHA-256 (first 16 hex digits) of those lines: a rewrite of them makes the file new again. */
  hash: string;
  /** Size and mtime when read, to skip unchanged files without reading them. */
  size: number;
  mtimeMs: number;
}

/** `memory/dreams/.state.json`: the watermark of consolidation. */
export interface ConsolidationState {
  version: 1;
  /** Committed passes so far. */
  passes: number;
  /** When the last pass was applied (ISO), or null before the first. */
  lastPassAt: string | null;
  /** Per source key (`daily:YYYY-MM-DD`, or the path): how far it was read. */
  seen: Record<string, SeenFile>;
}

/** The state before the first pass. */
export function emptyState(): ConsolidationState {
  return { version: 1, passes: 0, lastPassAt: null, seen: {} };
}

/**
 * The consolidation state of a workspace (empty before the first pass).
 *
 * @throws EngramError `FILE_INVALID` when the file is not valid state JSON.
 */
export async function readState(ws: string): Promise<ConsolidationState> {
  const text = await readFile(workspacePath(ws, STATE_FILE), "utf8").catch(() => null);
  if (text === null) return emptyState();
  try {
    const parsed = JSON.parse(text) as ConsolidationState;
    if (parsed.version !== 1 || typeof parsed.seen !== "object" || parsed.seen === null) {
      throw new Error("unexpected shape");
    }
    return parsed;
  } catch (error) {
    throw new EngramError("FILE_INVALID", `${STATE_FILE} is not consolidation state`, {
      hint: "it is written by engram consolidate; restore it with `engram consolidate undo`, or delete it to read every source again",
      cause: error,
    });
  }
}

/** The state file's text (stable key order, so equal states are equal bytes). */
export function formatState(state: ConsolidationState): string {
  const seen = Object.fromEntries(Object.entries(state.seen).sort(([a], [b]) => (a < b ? -1 : 1)));
  return `${JSON.stringify({ ...state, seen }, null, 2)}\n`;
}
