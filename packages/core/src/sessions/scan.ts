import type { Dirent } from "node:fs";
import { lstatSync, readdirSync } from "node:fs";
import path from "node:path";
import type { EngramConfig } from "../config/schema.js";
import type { Source } from "../driver/records.js";
import type { Tier } from "../tier.js";
import { indexDir, indexKey, isSameOrInside } from "../workspace/paths.js";
import type { ScannedFile } from "../workspace/scan.js";

/** The `sessions` section of the config. */
export type SessionsConfig = EngramConfig["sessions"];

/** The source transcripts are indexed under (search with `sources: ["sessions"]`). */
export const SESSIONS_SOURCE: Source = "sessions";

/** The tier transcript chunks carry: conversation is short-term context. */
export const SESSIONS_TIER: Tier = "short";

/** True for a transcript file name: ends in `.jsonl`, any case. */
export function isTranscriptName(name: string): boolean {
  return /\.jsonl$/i.test(name);
}

/**
 * The folder whose `*.jsonl` files are indexed: `<dir>` or, with `agent` set, `<dir>/<agent>`
 * (only that agent's transcripts). `dir` is relative to the (real) workspace or absolute.
 * Undefined when sessions are disabled.
 */
export function transcriptFolder(workspace: string, sessions: SessionsConfig): string | undefined {
  if (!sessions.enabled) return undefined;
  const root = path.resolve(workspace, sessions.dir);
  return sessions.agent ? path.join(root, sessions.agent) : root;
}

/**
 * The transcripts to index: regular `*.jsonl` files directly in {@link transcriptFolder} (symlinks
 * are ignored, sub-folders are not entered, so other agents' folders stay out). A missing folder
 * is normal (no session yet); a folder inside `.engram/` is refused with a warning.
 */
export function scanTranscripts(
  workspace: string,
  sessions: SessionsConfig,
): { files: ScannedFile[]; warnings: string[] } {
  const folder = transcriptFolder(workspace, sessions);
  if (!folder) return { files: [], warnings: [] };
  if (isSameOrInside(indexDir(workspace), folder)) {
    return {
      files: [],
      warnings: [`sessions.dir ${sessions.dir} is inside .engram/ and is ignored`],
    };
  }
  let entries: Dirent[];
  try {
    entries = readdirSync(folder, { withFileTypes: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return { files: [], warnings: [] };
    return {
      files: [],
      warnings: [`cannot read sessions folder ${folder} (${code}); transcripts are not indexed`],
    };
  }
  const files: ScannedFile[] = [];
  for (const entry of entries) {
    if (!isTranscriptName(entry.name) || entry.isSymbolicLink() || entry.isDirectory()) continue;
    const absPath = path.join(folder, entry.name);
    const st = lstatSync(absPath, { throwIfNoEntry: false });
    if (!st?.isFile()) continue;
    files.push({
      path: indexKey(workspace, absPath),
      absPath,
      mtimeMs: Math.floor(st.mtimeMs),
      size: st.size,
    });
  }
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { files, warnings: [] };
}
