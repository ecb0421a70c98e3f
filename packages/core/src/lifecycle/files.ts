import { lstat, readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { EngramError } from "../errors.js";
import { sha256Hex } from "../text/hash.js";
import { INDEX_DIR } from "../workspace/layout.js";

/**
 * Absolute path of a workspace-relative POSIX path the lifecycle touches. Refuses paths that leave
 * the workspace or enter `.engram/` (a rule's `to` template is user input).
 *
 * @throws EngramError `PATH_OUTSIDE_WORKSPACE` or `PATH_NOT_ALLOWED`.
 */
export function workspacePath(ws: string, rel: string): string {
  const normal = path.posix.normalize(rel);
  if (path.posix.isAbsolute(normal) || normal === ".." || normal.startsWith("../")) {
    throw new EngramError("PATH_OUTSIDE_WORKSPACE", `${rel} is outside the workspace`, {
      hint: "lifecycle rules move files inside the workspace only; fix the rule's from/to",
    });
  }
  if (normal === INDEX_DIR || normal.startsWith(`${INDEX_DIR}/`) || normal === ".") {
    throw new EngramError("PATH_NOT_ALLOWED", `${rel} is not a memory path`, {
      hint: "lifecycle rules never touch .engram/ or the workspace root itself",
    });
  }
  return path.join(ws, ...normal.split("/"));
}

/** SHA-256 of a regular file's bytes, or null when nothing (or not a regular file) is there. */
export async function hashOrNull(abs: string): Promise<string | null> {
  const st = await lstat(abs).catch(() => null);
  if (!st?.isFile()) return null;
  return sha256Hex(await readFile(abs));
}

/** What is at `abs`: a regular file, a directory, something else, or nothing. */
export async function entryKind(abs: string): Promise<"file" | "dir" | "other" | null> {
  const st = await lstat(abs).catch(() => null);
  if (!st) return null;
  return st.isFile() ? "file" : st.isDirectory() ? "dir" : "other";
}

/**
 * Every entry below `dirRel` (workspace-relative POSIX), depth first, folders before their
 * contents: `{ rel, kind }`. Symbolic links are reported as `other`, never followed.
 */
export async function walk(
  ws: string,
  dirRel: string,
): Promise<Array<{ rel: string; kind: "file" | "dir" | "other" }>> {
  const out: Array<{ rel: string; kind: "file" | "dir" | "other" }> = [];
  const visit = async (rel: string): Promise<void> => {
    const entries = await readdir(workspacePath(ws, rel), { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      const child = `${rel}/${e.name}`;
      const kind = e.isFile() ? "file" : e.isDirectory() ? "dir" : "other";
      out.push({ rel: child, kind });
      if (kind === "dir") await visit(child);
    }
  };
  await visit(dirRel);
  return out;
}
