import path from "node:path";
import { INDEX_DIR, MEMORY_DIR, MEMORY_FILE, toPosix } from "./layout.js";

/** True when `child` is strictly below `parent` (both absolute, normalised). */
export function isInside(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  return rel !== "" && rel !== ".." && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel);
}

/** True when `child` is `parent` or below it. */
export function isSameOrInside(parent: string, child: string): boolean {
  return path.resolve(parent) === path.resolve(child) || isInside(parent, child);
}

/** True for a file name engram indexes: ends in `.md`, any case. */
export function isMarkdownName(name: string): boolean {
  return /\.md$/i.test(name);
}

/** True for a directory name the scan never enters: dot-folders and `node_modules`. */
export function isSkippedDirName(name: string): boolean {
  return name.startsWith(".") || name === "node_modules";
}

/**
 * The index key of an absolute path: workspace-relative POSIX when inside the (real) workspace,
 * else the absolute path in POSIX form.
 */
export function indexKey(ws: string, abs: string): string {
  // Fast path (scan builds paths by joining onto ws): a plain prefix check, no path.relative.
  const prefix = ws.endsWith(path.sep) ? ws : ws + path.sep;
  if (abs.startsWith(prefix) && !abs.includes(`${path.sep}..`)) {
    return toPosix(abs.slice(prefix.length));
  }
  return toPosix(isInside(ws, abs) ? path.relative(ws, abs) : abs);
}

/**
 * Absolute form of an extraPath: relative ones resolve against the real workspace; absolute ones
 * spelled through the workspace as given (e.g. a symlinked `/tmp`) are moved onto the real path.
 */
export function resolveAgainstWorkspace(ws: string, wsGiven: string, p: string): string {
  if (!path.isAbsolute(p)) return path.resolve(ws, p);
  const abs = path.resolve(p);
  if (wsGiven !== ws && isSameOrInside(wsGiven, abs)) {
    return path.join(ws, path.relative(wsGiven, abs));
  }
  return abs;
}

/** Absolute path of the workspace's `.engram` folder. */
export function indexDir(ws: string): string {
  return path.join(ws, INDEX_DIR);
}

/**
 * True when a workspace-relative POSIX path is a memory file by layout: `MEMORY.md`, or a `.md`
 * file under `memory/` with no dot-folder or `node_modules` on the way (the scan's own rules).
 */
export function isLayoutMemoryPath(rel: string): boolean {
  if (rel === MEMORY_FILE) return true;
  const parts = rel.split("/");
  if (parts.length < 2 || parts[0] !== MEMORY_DIR) return false;
  const name = parts[parts.length - 1] ?? "";
  return isMarkdownName(name) && parts.slice(1, -1).every((d) => !isSkippedDirName(d));
}
