import type { Dirent, Stats } from "node:fs";
import { lstatSync, readdirSync } from "node:fs";
import path from "node:path";
import { assertWorkspace, MEMORY_DIR, MEMORY_FILE } from "./layout.js";
import { Pacer } from "./pacer.js";
import {
  indexDir,
  indexKey,
  isMarkdownName,
  isSameOrInside,
  isSkippedDirName,
  resolveAgainstWorkspace,
} from "./paths.js";

/** One Markdown file found by {@link scanWorkspace}. */
export interface ScannedFile {
  /** Index key: workspace-relative POSIX path inside the workspace, else the absolute POSIX path. */
  path: string;
  /** Absolute path on disk. */
  absPath: string;
  /** Modification time in whole milliseconds (`Math.floor(stat.mtimeMs)`). */
  mtimeMs: number;
  /** Size in bytes. */
  size: number;
}

/** What to scan: the workspace plus optional extra folders/files (absolute or workspace-relative). */
export interface ScanOptions {
  /** Workspace folder (resolved to its real path). */
  workspace: string;
  /** Further Markdown folders or `.md` files; relative ones are relative to the workspace. */
  extraPaths?: readonly string[];
}

/** Result of {@link scanWorkspace}: files sorted by `path`, and non-fatal problems as sentences. */
export interface ScanResult {
  /** Every indexable file, once, sorted by `path` (code-unit order). */
  files: ScannedFile[];
  /** Ignored extraPaths and unreadable folders, one sentence each. */
  warnings: string[];
}

/**
 * Lists the Markdown files engram indexes: `MEMORY.md`, `memory/**\/*.md` and every extraPath (a
 * folder is scanned recursively, a file is taken when it ends in `.md`).
 *
 * Rules: only `.md` files (any case); symbolic links are ignored, files and folders alike, and never
 * followed; folders named `.*` or `node_modules` are skipped, and `<workspace>/.engram` is never
 * entered. A missing `memory/` is normal; a missing or unusable extraPath is reported in
 * `warnings`. A file reached twice (an extraPath overlapping `memory/`) is listed once.
 *
 * @throws EngramError `WORKSPACE_MISSING` when the workspace folder does not exist.
 */
export async function scanWorkspace(options: ScanOptions): Promise<ScanResult> {
  const ws = await assertWorkspace(options.workspace);
  const wsGiven = path.resolve(options.workspace);
  const engramDir = indexDir(ws);
  const warnings: string[] = [];
  const pace = new Pacer();
  const found = new Set<string>();

  const walk = async (root: string): Promise<void> => {
    const stack = [root];
    for (let dir = stack.pop(); dir !== undefined; dir = stack.pop()) {
      let entries: Dirent[];
      try {
        await pace.tick(1);
        entries = readdirSync(dir, { withFileTypes: true });
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code !== "ENOENT" && code !== "ENOTDIR") {
          warnings.push(`cannot read folder ${dir} (${code}); its files are not indexed`);
        }
        continue;
      }
      await pace.tick(entries.length);
      for (const entry of entries) {
        const abs = path.join(dir, entry.name);
        let kind = direntKind(entry);
        if (kind === "unknown") kind = statKind(abs);
        if (kind === "file") {
          if (isMarkdownName(entry.name)) found.add(abs);
        } else if (kind === "dir") {
          if (!isSkippedDirName(entry.name) && abs !== engramDir) stack.push(abs);
        }
      }
    }
  };

  // The workspace's own memory: MEMORY.md and memory/.
  const memoryFile = path.join(ws, MEMORY_FILE);
  if (statKind(memoryFile) === "file") found.add(memoryFile);
  const memoryDir = path.join(ws, MEMORY_DIR);
  if (statKind(memoryDir) === "dir") await walk(memoryDir);

  for (const extra of options.extraPaths ?? []) {
    const abs = resolveAgainstWorkspace(ws, wsGiven, extra);
    if (isSameOrInside(engramDir, abs)) {
      warnings.push(`extraPath ${extra} is inside ${path.basename(engramDir)}/ and is ignored`);
      continue;
    }
    const kind = statKind(abs);
    if (kind === "missing") warnings.push(`extraPath ${extra} does not exist and is ignored`);
    else if (kind === "unreadable")
      warnings.push(`extraPath ${extra} cannot be read and is ignored`);
    else if (kind === "symlink")
      warnings.push(`extraPath ${extra} is a symbolic link and is ignored`);
    else if (kind === "dir") await walk(abs);
    else if (kind === "file" && isMarkdownName(abs)) found.add(abs);
    else warnings.push(`extraPath ${extra} is not a .md file or a folder and is ignored`);
  }

  const files = await statAll([...found], ws, pace);
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { files, warnings };
}

type Kind = "file" | "dir" | "symlink" | "other" | "missing" | "unknown" | "unreadable";

function direntKind(entry: Dirent): Kind {
  if (entry.isSymbolicLink()) return "symlink";
  if (entry.isFile()) return "file";
  if (entry.isDirectory()) return "dir";
  // Some file systems report DT_UNKNOWN: every is*() is false and only lstat can tell.
  return entry.isBlockDevice() || entry.isCharacterDevice() || entry.isFIFO() || entry.isSocket()
    ? "other"
    : "unknown";
}

function statsKind(st: Stats): Kind {
  if (st.isSymbolicLink()) return "symlink";
  if (st.isFile()) return "file";
  if (st.isDirectory()) return "dir";
  return "other";
}

function statKind(abs: string): Kind {
  try {
    const st = lstatSync(abs, { throwIfNoEntry: false });
    return st ? statsKind(st) : "missing";
  } catch {
    return "unreadable"; // e.g. EACCES on a parent folder
  }
}

/** Stats every candidate (lstat: a file swapped for a symlink since the walk is dropped). */
async function statAll(absPaths: string[], ws: string, pace: Pacer): Promise<ScannedFile[]> {
  const files: ScannedFile[] = [];
  for (const absPath of absPaths) {
    await pace.tick(1);
    let st: Stats | undefined;
    try {
      st = lstatSync(absPath, { throwIfNoEntry: false });
    } catch {
      st = undefined; // vanished or unreadable between walk and stat: not indexed this time
    }
    if (!st?.isFile()) continue;
    files.push({
      path: indexKey(ws, absPath),
      absPath,
      mtimeMs: Math.floor(st.mtimeMs),
      size: st.size,
    });
  }
  return files;
}
