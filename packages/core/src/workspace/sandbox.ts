import { lstat, realpath } from "node:fs/promises";
import path from "node:path";
import { EngramError } from "../errors.js";
import { assertWorkspace, toPosix } from "./layout.js";
import {
  indexDir,
  indexKey,
  isInside,
  isLayoutMemoryPath,
  isMarkdownName,
  isSameOrInside,
  isSkippedDirName,
  resolveAgainstWorkspace,
} from "./paths.js";

/** A memory file the sandbox allows reading. */
export interface ResolvedMemoryPath {
  /** Index key (workspace-relative POSIX, or absolute POSIX for an extraPath outside). */
  path: string;
  /** Absolute real path on disk. */
  absPath: string;
}

const OUTSIDE_HINT =
  "memory_get reads only MEMORY.md, memory/**/*.md and the configured extraPaths; pass a path from a search result";

/**
 * The read sandbox behind `memory_get`: maps a requested path (workspace-relative or absolute) to
 * a file the scan would index, or refuses.
 *
 * - `PATH_OUTSIDE_WORKSPACE`: the normalised path leaves the workspace and every extraPath (incl.
 *   `..` escapes), or it is / goes through a symbolic link at or below the workspace or the
 *   extraPath it lies in, or its real path leaves that area.
 * - `PATH_NOT_ALLOWED`: inside the allowed area but not a memory file: `engram.config.json`, `.env`,
 *   anything in `.engram/` or a dot-folder or `node_modules`, any non-`.md` file, a folder.
 * - `FILE_NOT_FOUND`: allowed, but nothing is there.
 * - `INVALID_ARGUMENT`: empty path or a NUL byte.
 *
 * @throws EngramError `WORKSPACE_MISSING` when the workspace folder does not exist.
 */
export async function resolveMemoryPath(
  workspace: string,
  requested: string,
  options: { extraPaths?: readonly string[] } = {},
): Promise<ResolvedMemoryPath> {
  if (typeof requested !== "string" || requested.trim() === "" || requested.includes("\0")) {
    throw new EngramError("INVALID_ARGUMENT", "memory path is empty or contains a NUL byte", {
      hint: 'pass a memory file path such as "MEMORY.md" or "memory/2026-01-02.md"',
    });
  }
  const ws = await assertWorkspace(workspace);
  const wsGiven = path.resolve(workspace);
  const abs = resolveAgainstWorkspace(ws, wsGiven, requested);
  const area = allowedArea(ws, wsGiven, abs, options.extraPaths ?? []);
  const shown = toPosix(requested);

  if (area === null) {
    throw new EngramError("PATH_OUTSIDE_WORKSPACE", `${shown} is outside the memory workspace`, {
      hint: OUTSIDE_HINT,
    });
  }
  if (!area.allowed) {
    throw new EngramError("PATH_NOT_ALLOWED", `${shown} is not a memory file`, {
      hint: OUTSIDE_HINT,
    });
  }

  // Walk from the area root down, refusing any symlink on the way: the root itself too, except
  // the workspace, which is already its real path.
  const chain = area.root === ws ? [] : [area.root];
  let cursor = area.root;
  for (const part of path.relative(area.root, abs).split(path.sep)) {
    if (part === "") continue;
    cursor = path.join(cursor, part);
    chain.push(cursor);
  }
  for (const [i, step] of chain.entries()) {
    const st = await lstat(step).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT" || error.code === "ENOTDIR") return null;
      throw error;
    });
    if (st === null) {
      throw new EngramError("FILE_NOT_FOUND", `memory file ${shown} does not exist`, {
        hint: "search memory first and pass a path from a result",
      });
    }
    if (st.isSymbolicLink()) {
      throw new EngramError(
        "PATH_OUTSIDE_WORKSPACE",
        `${shown} is or goes through a symbolic link, which memory_get does not follow`,
        { hint: "copy the file into memory/ instead of linking it" },
      );
    }
    if (i === chain.length - 1 && !st.isFile()) {
      throw new EngramError("PATH_NOT_ALLOWED", `${shown} is not a regular file`, {
        hint: OUTSIDE_HINT,
      });
    }
  }

  // Defence in depth: the real path must still be inside the area's real root.
  const [realRoot, realFile] = await Promise.all([realpath(area.root), realpath(abs)]);
  if (!isInside(realRoot, realFile) && !(area.root === abs && realRoot === realFile)) {
    throw new EngramError(
      "PATH_OUTSIDE_WORKSPACE",
      `${shown} resolves outside the memory workspace`,
      {
        hint: OUTSIDE_HINT,
      },
    );
  }
  return { path: indexKey(ws, abs), absPath: abs };
}

interface Area {
  /** Folder (or, for a file extraPath, the file) the symlink walk starts from. */
  root: string;
  /** Whether `abs` is a memory file by name and location inside that area. */
  allowed: boolean;
}

/**
 * Which allowed area `abs` lies in, by path alone: the workspace (allowed when it is a layout
 * memory file or lies in an extraPath), an extraPath outside it, or none (`null`).
 */
function allowedArea(
  ws: string,
  wsGiven: string,
  abs: string,
  extraPaths: readonly string[],
): Area | null {
  const engramDir = indexDir(ws);
  const extras = extraPaths
    .map((p) => resolveAgainstWorkspace(ws, wsGiven, p))
    .filter((root) => isSameOrInside(root, abs) && !isSameOrInside(engramDir, root));
  // Same rules as the scan: an extraPath root may be anything; below it, no dot-folders.
  const mdBelow = (root: string): boolean => {
    if (!isMarkdownName(abs)) return false;
    if (root === abs) return true;
    const dirs = path.relative(root, abs).split(path.sep).slice(0, -1);
    return dirs.every((d) => !isSkippedDirName(d));
  };
  const viaExtra = extras.find(mdBelow);

  if (abs === ws || isSameOrInside(engramDir, abs)) return { root: ws, allowed: false };
  if (isInside(ws, abs)) {
    // Extra paths inside the workspace are walked from the workspace, so links above them count.
    return { root: ws, allowed: isLayoutMemoryPath(indexKey(ws, abs)) || viaExtra !== undefined };
  }
  const root = viaExtra ?? extras[0];
  return root === undefined ? null : { root, allowed: viaExtra !== undefined };
}
